#!/usr/bin/env bash
# `make bench`: the codec micro-benchmarks, then the end-to-end capture benchmark (1 M frames)
# against tshark on the same file, then `rocecert check` on 1 M frames of replayed real traffic
# (one thread, two threads, and tshark on the same file). Figures go to stdout and to build/bench-results.txt.
set -euo pipefail
build=${1:-build/release}
out="$build/../bench-results.txt"
{
  echo "# rocecert benchmarks, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  "$build/bench/wire_bench" --benchmark_min_time=0.2
  "$build/bench/model_bench" --benchmark_min_time=0.5
  "$build/bench/capture_bench" --frames 1000000 --tshark
  f=$(mktemp /tmp/rocecert-check-bench.XXXXXX.pcap)
  "$build/bench/check_bench" --frames 1000000 --file "$f" --keep --tshark
  "$build/bench/check_bench" --frames 1000000 --file "$f" --reuse --jobs 2
  rm -f "$f"
} 2>&1 | tee "$out"
echo "results: $out"
