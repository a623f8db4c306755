#!/usr/bin/env bash
# `make fuzz-campaign`: the long fuzz runs that `make test` only samples (docs/bench.md records
# their figures). Each target in FUZZ_TARGETS runs FUZZ_RUNS executions built without ASan
# (coverage and UBSan only, optimised: several times as many executions a second), on
# FUZZ_WORKERS processes, from the seeds of the test suite plus what earlier campaigns kept;
# then every input of the grown corpus is run once more under ASan/UBSan (the build of
# `make test`).
# Each run is added to OUT_DIR/ledger.tsv under the code it fuzzed (a hash of the source trees
# the targets are built from, so that a change to the docs does not start the count again), and
# the executions each target has had on the code as it is are printed: a campaign may be run in
# several parts (FUZZ_SECONDS bounds each) and still add up to FUZZ_RUNS on one code;
# FUZZ_ASAN_PASS=0 leaves out the ASan/UBSan pass of a part whose corpus the next part's pass will
# cover (it took 8 minutes of a one-hour part at 10,000 inputs).
# Usage: scripts/fuzz-campaign.sh FAST_BUILD ASAN_BUILD OUT_DIR
set -euo pipefail
fast=$1 asan=$2 out=$3
runs=${FUZZ_RUNS:-10000000}
workers=${FUZZ_WORKERS:-1}
asan_pass=${FUZZ_ASAN_PASS:-1}
seconds=${FUZZ_SECONDS:-0}  # 0: no time bound, each process runs its share of FUZZ_RUNS
targets=${FUZZ_TARGETS:-fuzz_check fuzz_events fuzz_decode fuzz_pcap_reader fuzz_scenario fuzz_fault_rule fuzz_vector}
mkdir -p "$out"
heap_tunables=glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864:glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=1073741824
# The unit tests beside each block (*/tests/) are not built into the fuzz targets: a change to
# them does not start the count again. (Before 2026-12-04 the hash covered them too.)
code_dirs=(CMakeLists.txt cmake refmodel conformance proofs pcap_tools fuzz)
code=$(git ls-tree -r HEAD -- "${code_dirs[@]}" | grep -v '/tests/' | sha1sum | cut -c1-12)
git diff --quiet HEAD -- "${code_dirs[@]}" ':(exclude)*/tests/*' || code="$code-dirty"
ledger="$out/ledger.tsv"
[[ -f $ledger ]] || printf 'date\tcode\tcommit\ttarget\texecutions\tworkers\tseconds\tresult\n' > "$ledger"
# The executions of target $1 recorded in the ledger for this code, findings or not.
on_this_code() {
  awk -F'\t' -v c="$code" -v t="$1" 'NR > 1 && $2 == c && $4 == t { n += $5 } END { print n + 0 }' "$ledger"
}
# The seeds: the fuzz suite's fixture writes them into the ASan build's corpus folders.
(cd "$asan" && ctest -R '^fuzz_seeds$' --output-on-failure >/dev/null)
for t in $targets; do
  corpus="$out/corpus_${t#fuzz_}"
  seeds="$asan/fuzz/corpus_${t#fuzz_}"
  [[ $t == fuzz_pcap_reader ]] && seeds="$asan/fuzz/corpus_pcap"
  mkdir -p "$corpus" "$out/crashes_${t#fuzz_}"
  extra=()
  # Entropic scheduling spent half of fuzz_check's time choosing inputs.
  [[ $t == fuzz_check ]] && extra+=(-entropic=0)
  # The workers share their finds through the corpus folder; reading it again every second (the
  # default) was 7 % of fuzz_check's time with 7,500 inputs in it.
  extra+=(-reload=60)
  [[ -f fuzz/${t#fuzz_}.dict ]] && extra+=(-dict="fuzz/${t#fuzz_}.dict")
  [[ $t == fuzz_vector ]] && extra+=(-dict=fuzz/scenario.dict)
  echo "== $t: $runs executions on $workers process(es), corpus $corpus"
  per=$(( (runs + workers - 1) / workers ))
  # The executions are added up from this part's logs alone: a log of an earlier part run with
  # more workers would count again.
  rm -f "$out/$t".*.log
  pids=()
  [[ $seconds != 0 ]] && extra+=(-max_total_time="$seconds")
  started=$(date +%s)
  for w in $(seq 1 "$workers"); do
    # A seed of its own for each part of a campaign, so that parts do not repeat each other.
    # glibc's heap kept, not handed back and asked again at every execution: fuzz_check makes
    # and drops Z3 contexts of many megabytes, and the page faults and mmap/munmap churn that
    # caused were more than half its time (628 instead of 286 executions a second).
    GLIBC_TUNABLES="$heap_tunables" "$fast/fuzz/$t" -runs="$per" -seed="$((started % 100000 * 8 + w))" -timeout=30 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/crashes_${t#fuzz_}/" \
      "${extra[@]}" "$corpus" "$seeds" > "$out/$t.$w.log" 2>&1 &
    pids+=($!)
  done
  status=0
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  grep -h -E 'stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$out/$t".*.log
  executed=$(awk '/stat::number_of_executed_units/ { n += $2 } END { print n + 0 }' "$out/$t".*.log)
  result=clean
  [[ $status != 0 ]] && result=finding
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$code" \
    "$(git rev-parse --short HEAD)" "$t" "$executed" "$workers" "$(($(date +%s) - started))" \
    "$result" >> "$ledger"
  echo "== $t: $executed executions now, $(on_this_code "$t") on this code ($code) in $ledger"
  if [[ $status != 0 ]]; then
    echo "$t: a finding; inputs in $out/crashes_${t#fuzz_}, logs $out/$t.*.log" >&2
    exit 1
  fi
  if [[ $asan_pass == 0 ]]; then
    echo "== $t: no ASan/UBSan pass this part (FUZZ_ASAN_PASS=0): the next part's pass covers its finds"
    continue
  fi
  echo "== $t: the corpus ($(find "$corpus" -type f | wc -l) inputs) once more under ASan/UBSan"
  "$asan/fuzz/$t" -runs=0 -timeout=60 "${extra[@]}" "$corpus" > "$out/$t.asan.log" 2>&1 ||
    { echo "$t: a finding under ASan; log $out/$t.asan.log" >&2; exit 1; }
done
echo "fuzz campaign: no finding"
