#!/usr/bin/env bash
# `make live-smoke` (docs/live.md): Linux Soft-RoCE as a live device under test, one command.
#
#   smoke.sh ROCECERT
#
#   1. host packages (scripts/install-deps.sh live), the guest (build-guest.sh, cached);
#   2. one boot of the guest (run-guest.sh) running guest-smoke.sh: two rxe devices on a
#      veth pair, ibv_rc_pingpong / ib_write_bw / ib_read_bw between them, one pcap each;
#   3. `ROCECERT check --profile rxe` on every pcap, and a table capture x verdict.
#
# Output in LIVE_DIR/smoke/ (default build/live/smoke): pcap/ (captures, cases.tsv, tools.log),
# check/NAME.txt and check/NAME.json (the checker's reports), console.log, guest.log,
# summary.txt (the table and the timings). A capture whose verdict is not PASS is copied with
# its reports to LIVE_DIR/findings/ (kept across runs, named with the run's time), to be judged.
# Exit status: 0 when every tool ran and every verdict is PASS or DEVIATION (what the rxe
# profile declares); 1 otherwise (FAIL, INCONCLUSIVE, UNSUPPORTED, a checker error).
#
# Env: LIVE_CASES (subset of the cases in guest-smoke.sh), LIVE_NETEM_VA / LIVE_NETEM_VB
#      (netem arguments on the veth ends, e.g. "loss 5%"), LIVE_TOOL_TIMEOUT, and those of
#      build-guest.sh and run-guest.sh (LIVE_DIR, LIVE_TIMEOUT, LIVE_SMP, ...).
set -euo pipefail

[ $# -eq 1 ] || {
  echo "usage: $0 ROCECERT" >&2
  exit 2
}
rocecert=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
live_dir=${LIVE_DIR:-build/live}
export LIVE_DIR=$live_dir
share=$live_dir/smoke
stamp=$(date -u +%Y%m%dT%H%M%SZ)

log() { echo "[live/smoke $(date -u +%T)] $*"; }
die() {
  echo "live/smoke: error: $*" >&2
  exit 1
}
# shellcheck source=scripts/live/host-steps.sh
. "$here/host-steps.sh"

prepare_host "$rocecert"
prepare_share "$share" "$rocecert" # guest-smoke.sh checks that rocecert runs in the guest
mkdir -p "$share/check"
{
  printf 'CASES=%q\n' "${LIVE_CASES:-}"
  printf 'NETEM_VA=%q\n' "${LIVE_NETEM_VA:-}"
  printf 'NETEM_VB=%q\n' "${LIVE_NETEM_VB:-}"
  printf 'TOOL_TIMEOUT=%q\n' "${LIVE_TOOL_TIMEOUT:-60}"
} >"$share/params"

boot_guest "$here/guest-smoke.sh" "$share"

shopt -s nullglob
pcaps=("$share"/pcap/*.pcap)
if [ ${#pcaps[@]} -eq 0 ]; then
  echo "live/smoke: error: the guest wrote no capture" >&2
  exit 1
fi

# One row per capture: the packets tcpdump captured and the tools' exit status (cases.tsv, from
# the guest), how many of the frames tshark dissects as RoCEv2, and the checker's verdict.
t=$(now_ms)
table=$share/summary.txt
run_ok=$guest_ok
{
  printf '%-28s %8s %7s %6s %-10s %s\n' capture packets tshark tools verdict report
  for pcap in "${pcaps[@]}"; do
    name=$(basename "$pcap" .pcap)
    rc=0
    "$rocecert" check --profile rxe --json "$share/check/$name.json" "$pcap" \
      >"$share/check/$name.txt" 2>&1 || rc=$?
    verdict=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["verdict"])' \
      "$share/check/$name.json" 2>/dev/null || echo "ERROR(exit $rc)")
    tools=$(awk -F'\t' -v n="$name" '$1 == n { print ($2 == 0 && $3 == 0) ? "ok" : "c" $2 "/s" $3 }' \
      "$share/pcap/cases.tsv")
    packets=$(awk -F'\t' -v n="$name" '$1 == n { print $4 }' "$share/pcap/cases.tsv")
    # A second opinion on the capture's shape: the frames Wireshark's dissector takes for RoCEv2.
    tshark_ib=$(tshark -r "$pcap" -n -d udp.port==4791,infiniband -Y infiniband 2>/dev/null | wc -l)
    report=$share/check/$name.txt
    if [ "$verdict" != PASS ]; then
      # DEVIATION: only behaviour the rxe profile declares (e.g. a resumed READ under loss)
      case $verdict in DEVIATION) ;; *) run_ok=0 ;; esac
      mkdir -p "$live_dir/findings"
      for f in "$pcap" "$share/check/$name.txt" "$share/check/$name.json"; do
        [ -f "$f" ] && cp "$f" "$live_dir/findings/${stamp}_$(basename "$f")"
      done
      report="$live_dir/findings/${stamp}_$name.txt"
    fi
    [ "$tools" = ok ] || run_ok=0
    printf '%-28s %8s %7s %6s %-10s %s\n' "$name" "${packets:-?}" "$tshark_ib" "${tools:-?}" \
      "$verdict" "$report"
  done
} >"$table"
check_ms=$(($(now_ms) - t))

{
  echo
  echo "guest build (cached unless stale): $(secs "$guest_build_ms") s"
  echo "guest boot to init: ${boot_s:-?} s; guest run to power-off: ${guest_s:-?} s (wall $(secs "$guest_ms") s)"
  echo "rocecert check, ${#pcaps[@]} captures: $(secs "$check_ms") s"
  echo "live-smoke total: $(secs $(($(now_ms) - t_all))) s"
} >>"$table"
echo
cat "$table"
if [ "$run_ok" != 1 ]; then
  echo "live/smoke: a tool failed or a verdict is neither PASS nor DEVIATION; see $table and $live_dir/findings/" >&2
  exit 1
fi
