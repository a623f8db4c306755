#!/bin/bash
# The vector-driven run, INSIDE the live guest (as /live/run, by guest-init.sh; docs/live.md,
# `make live`). The host's rocecert plays every vector of /live/vectors on the two Soft-RoCE
# devices (`vectors run --dut verbs:rxe_a,rxe_b`: rxe_a is the vector's adapter A on 10.0.0.1,
# rxe_b is B on 10.0.0.2, the addresses the vectors give them) while tcpdump listens on va.
# Out, in /live/out/: verbs.txt and verbs.json (the verbs verdicts), events/ (per vector its
# event log and its setup with the devices' QPNs and rkeys), live.pcap (the whole run; the host
# cuts it per vector by the logs' times), capture.tsv (tcpdump's counters), verbs.status.
#
# Parameters (/live/params, key=value lines written by the host):
#   NETEM_VA, NETEM_VB  netem arguments for va's / vb's egress for the whole run (default none)
set -euo pipefail

NETEM_VA=""
NETEM_VB=""
if [ -f /live/params ]; then
  # shellcheck disable=SC1091
  . /live/params
fi
out=/live/out
rm -rf "$out"
mkdir -p "$out"
t_start=$(cut -d' ' -f1 /proc/uptime)

log() { echo "[live $(cut -d' ' -f1 /proc/uptime)] $*"; }

/live/rocecert --help >/dev/null || {
  log "the host's rocecert does not run in the guest (a runtime library missing?)"
  exit 1
}

# The network, the GID indexes ga/gb, and the capture functions (guest-topology.sh).
# shellcheck disable=SC1091
. /live/topology.sh

netem_on "$NETEM_VA" "$NETEM_VB"
[ -z "$NETEM_VA$NETEM_VB" ] || log "netem: va '$NETEM_VA', vb '$NETEM_VB'"

# One capture for the whole run: starting and draining tcpdump per vector would cost more than
# most vectors take. The logs' timestamps (CLOCK_REALTIME, as tcpdump's) separate the vectors.
# Everything goes to tmpfs first: 9p writes are slow under TCG.
start_capture /tmp/live.pcap
log "playing $(find /live/vectors -name '*.json' -not -path '*/scenarios/*' | wc -l) vector files"
rc=0
/live/rocecert vectors run /live/vectors --dut verbs:rxe_a,rxe_b --profile rxe \
  --events /tmp/events --json /tmp/verbs.json >/tmp/verbs.txt 2>&1 || rc=$?
sleep 0.3
stop_capture
printf '%s\t%s\n' "$(tcpdump_count captured)" "$(tcpdump_count 'received by filter')" \
  >"$out/capture.tsv"
cp /tmp/live.pcap /tmp/verbs.txt "$out/"
[ ! -f /tmp/verbs.json ] || cp /tmp/verbs.json "$out/"
[ ! -d /tmp/events ] || cp -r /tmp/events "$out/events"
echo "$rc" >"$out/verbs.status"
log "verbs run: exit $rc; $(tail -n 1 /tmp/verbs.txt)"
log "captured $(cut -f1 "$out/capture.tsv") of $(cut -f2 "$out/capture.tsv") frames"
log "done in $(awk -v a="$t_start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s"
# The verdicts are the host's to judge: exit 2 (unusable input) is the only failure here.
[ "$rc" -le 1 ]
