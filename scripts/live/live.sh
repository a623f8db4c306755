#!/usr/bin/env bash
# `make live` / `make live-full` (docs/live.md): the project's vectors played on Linux Soft-RoCE
# in the live guest, every vector's traffic captured and certified, one command.
#
#   live.sh ROCECERT
#
#   1. host packages (scripts/install-deps.sh live), the guest (build-guest.sh, cached in LIVE_DIR);
#   2. one boot of the guest running guest-vectors.sh: `rocecert vectors run --dut
#      verbs:rxe_a,rxe_b --events` over the selected vectors, tcpdump on the veth throughout;
#   3. on the host: the capture cut per vector (split-by-events.py), then for each vector
#      `rocecert check --profile rxe --setup SETUP --events LOG` (the setup is the vector's
#      scenario with the QPNs and rkeys rxe gave, written by the verbs run), and a table of
#      vectors x verdicts: the verbs verdict (completions, QP states, events, memory against the
#      vector) and the check verdict (the wire and the log against the IBTA, as the rxe profile
#      reads it).
#
# Output in LIVE_DIR/run/ (default build/live/run; LIVE_RUN names another folder): out/ (from the guest: live.pcap, verbs.txt,
# verbs.json, events/), pcap/NAME.pcap, check/NAME.txt and .json, summary.txt. A vector with a
# FAIL, INCONCLUSIVE or DEVIATION is copied with its reports to LIVE_DIR/findings/ (kept across
# runs, named with the run's time). Exit status 0 when no vector FAILs (verbs or check) and
# every tool ran; 1 otherwise.
#
# Env: LIVE_VECTORS  the vectors to play: areas of vectors/ (opcodes, transitions, errors,
#                    bugs, boundary, reliability) or vector ids (opcodes/rc-send-1pkt-00), space
#                    separated; default: every generated area (make live chooses a budgeted set)
#      LIVE_NETEM_VA / LIVE_NETEM_VB  netem on the veth ends for the whole run
#      LIVE_RUN      the run's folder under LIVE_DIR (default run)
#      LIVE_GATE     "all" (default): a verbs or check FAIL fails the run; "check": only a check
#                    FAIL does (under netem faults a vector's completions may differ for the
#                    link's sake, e.g. a retry count exhausted; the wire must still conform)
#      and those of build-guest.sh and run-guest.sh (LIVE_DIR, LIVE_TIMEOUT, LIVE_SMP, ...).
set -euo pipefail

[ $# -eq 1 ] || {
  echo "usage: $0 ROCECERT" >&2
  exit 2
}
rocecert=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
live_dir=${LIVE_DIR:-build/live}
export LIVE_DIR=$live_dir
run=$live_dir/${LIVE_RUN:-run}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
areas="opcodes transitions errors bugs boundary reliability"
selection=${LIVE_VECTORS:-$areas}

log() { echo "[live $(date -u +%T)] $*"; }
die() {
  echo "live: error: $*" >&2
  exit 1
}
# shellcheck source=scripts/live/host-steps.sh
. "$here/host-steps.sh"

prepare_host "$rocecert"

# The share: rocecert, the topology, the selected vectors, the parameters.
rm -rf "$run"
share=$run/share
prepare_share "$share" "$rocecert"
mkdir -p "$share/vectors" "$run/pcap" "$run/check"
count=0
for item in $selection; do
  if [ -d "$root/vectors/$item" ]; then
    mkdir -p "$share/vectors/$item"
    cp "$root/vectors/$item"/*.json "$share/vectors/$item/"
    count=$((count + $(find "$root/vectors/$item" -maxdepth 1 -name '*.json' | wc -l)))
  elif [ -f "$root/vectors/$item.json" ]; then
    mkdir -p "$share/vectors/$(dirname "$item")"
    cp "$root/vectors/$item.json" "$share/vectors/$item.json"
    count=$((count + 1))
  else
    die "LIVE_VECTORS: \"$item\" is neither an area of vectors/ nor a vector id"
  fi
done
log "$count vectors selected: $selection"
{
  printf 'NETEM_VA=%q\n' "${LIVE_NETEM_VA:-}"
  printf 'NETEM_VB=%q\n' "${LIVE_NETEM_VB:-}"
} >"$share/params"

boot_guest "$here/guest-vectors.sh" "$share"
out=$share/out
[ -f "$out/verbs.json" ] || die "the guest wrote no verbs report (see $share/guest.log)"

t=$(now_ms)
python3 "$here/split-by-events.py" "$out/live.pcap" "$out/events" "$run/pcap" >"$run/split.tsv"
split_ms=$(($(now_ms) - t))

# Each vector's capture, judged with its setup (the vector's scenario with the QPNs and rkeys rxe
# gave) and its event log, by the rxe profile. The verbs verdicts came from the guest.
t=$(now_ms)
while IFS=$'\t' read -r name _; do
  rc=0
  "$rocecert" check --profile rxe --setup "$out/events/$name.setup.json" \
    --events "$out/events/$name.events.jsonl" --json "$run/check/$name.json" \
    "$run/pcap/$name.pcap" >"$run/check/$name.txt" 2>&1 || rc=$?
  echo "$rc" >"$run/check/$name.status"
done <"$run/split.tsv"
check_ms=$(($(now_ms) - t))

# The table: a FAIL that is neither the profile's DEVIATION nor a known rxe failure
# (known-failures.tsv, each a finding of docs/rxe-divergences.md) fails the run.
table=$run/summary.txt
run_ok=$guest_ok
python3 "$here/table.py" --gate "${LIVE_GATE:-all}" "$run" "$here/known-failures.tsv" \
  >"$table" || run_ok=0
# Every vector that is not a plain PASS keeps its capture and reports in findings/.
mkdir -p "$live_dir/findings"
awk 'NR > 1 && NF >= 4 && ($2 != "PASS" && $2 != "UNSUPPORTED" || ($4 != "PASS" && $4 != "-")) { print $1 }' \
  "$table" | while read -r id; do
  name=${id//\//_}
  for f in "$run/pcap/$name.pcap" "$run/check/$name.txt" "$run/check/$name.json" \
    "$out/events/$name.events.jsonl" "$out/events/$name.setup.json"; do
    if [ -f "$f" ]; then cp "$f" "$live_dir/findings/${stamp}_$(basename "$f")"; fi
  done
done

{
  echo
  echo "frames captured: $(cut -f1 "$out/capture.tsv") of $(cut -f2 "$out/capture.tsv") the filter saw"
  echo "guest build (cached unless stale): $(secs "$guest_build_ms") s"
  echo "guest boot to init: ${boot_s:-?} s; guest run to power-off: ${guest_s:-?} s (wall $(secs "$guest_ms") s)"
  echo "capture cut per vector: $(secs "$split_ms") s; rocecert check: $(secs "$check_ms") s"
  echo "live total: $(secs $(($(now_ms) - t_all))) s"
} >>"$table"
echo
cat "$table"
if [ "$run_ok" != 1 ]; then
  echo "live: an unexplained FAIL, or the guest failed; see $table and $live_dir/findings/" >&2
  exit 1
fi
