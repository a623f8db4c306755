#!/bin/bash
# shellcheck disable=SC2154  # ga and gb, the GID indexes, come from /live/topology.sh
# The smoke scenario, run INSIDE the live guest by guest-init.sh (as /live/run; docs/live.md).
# Two Soft-RoCE devices on the two ends of one veth pair, a few verbs tools between them, one
# pcap per case in /live/pcap/ and one row per case in /live/pcap/cases.tsv
# (name, client status, server status, packets captured, packets seen by the filter, seconds).
#
# The network (guest-topology.sh, here /live/topology.sh): rxe_a on va 10.0.0.1 <-> veth <->
# vb 10.0.0.2 on rxe_b, policy-routed through the veth, tcpdump on va (both directions).
# Server tools run on rxe_b, clients on rxe_a; their TCP side channel goes over 127.0.0.1.
#
# Parameters (optional, /live/params, key=value lines written by the host):
#   CASES     space-separated subset of the case names below (default: all)
#   NETEM_VA  netem arguments for va's egress (requests A->B), e.g. "loss 5%"; default none
#   NETEM_VB  the same for vb's egress (responses, ACKs)
#   TOOL_TIMEOUT  seconds per tool run (default 60)
set -euo pipefail

out=/live/pcap
CASES=""
NETEM_VA=""
NETEM_VB=""
TOOL_TIMEOUT=60
if [ -f /live/params ]; then
  # shellcheck disable=SC1091
  . /live/params
fi
mkdir -p "$out"
rm -f "$out"/*.pcap "$out"/cases.tsv
t_start=$(cut -d' ' -f1 /proc/uptime)

log() { echo "[live $(cut -d' ' -f1 /proc/uptime)] $*"; }

# The host's rocecert must run here: the vector-driven run (make live) plays the verbs steps on
# this guest's rxe devices with it.
if [ -x /live/rocecert ]; then
  /live/rocecert --help >/dev/null || {
    log "the host's rocecert does not run in the guest (a runtime library missing?)"
    exit 1
  }
  log "the host's rocecert runs in the guest"
fi

# The network, the GID indexes ga/gb, and the capture functions (guest-topology.sh).
# shellcheck disable=SC1091
. /live/topology.sh

wait_listen() { # PORT: until a server listens on it (5 s at most)
  for _ in $(seq 1 50); do
    ss -ltnH "sport = :$1" | grep -q . && return 0
    sleep 0.1
  done
  return 1
}

# run_case NAME SERVER_CMD... -- CLIENT_CMD...
run_case() {
  local name=$1 srv=() cli=() spid src=0 crc=0 t0 t1 captured filtered
  shift
  while [ "$1" != -- ]; do
    srv+=("$1")
    shift
  done
  shift
  cli=("$@")
  if [ -n "$CASES" ] && [[ " $CASES " != *" $name "* ]]; then return 0; fi

  netem_on "$NETEM_VA" "$NETEM_VB"
  # The capture goes to tmpfs first: 9p writes are slow under TCG and would hold tcpdump back.
  start_capture "/tmp/$name.pcap"
  t0=$(cut -d' ' -f1 /proc/uptime)
  timeout "$TOOL_TIMEOUT" "${srv[@]}" >"/tmp/$name.server.log" 2>&1 &
  spid=$!
  wait_listen 18515 || log "warning: $name: server not listening after 5 s"
  timeout "$TOOL_TIMEOUT" "${cli[@]}" >"/tmp/$name.client.log" 2>&1 || crc=$?
  wait "$spid" || src=$?
  t1=$(cut -d' ' -f1 /proc/uptime)
  sleep 0.3
  stop_capture
  netem_off
  cp "/tmp/$name.pcap" "$out/$name.pcap"
  captured=$(tcpdump_count captured)
  filtered=$(tcpdump_count 'received by filter')
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$crc" "$src" "$captured" "$filtered" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" >>"$out/cases.tsv"
  [ "${captured:-0}" != 0 ] || log "warning: $name: no RoCEv2 frame crossed va (routing?)"
  log "$name: client $crc, server $src, $captured/$filtered packets, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
  {
    echo "---- $name"
    echo "server: ${srv[*]}"
    sed 's/^/  /' "/tmp/$name.server.log"
    echo "client: ${cli[*]}"
    sed 's/^/  /' "/tmp/$name.client.log"
  } >>"$out/tools.log"
}

# ---------------------------------------------------------------- cases
rm -f "$out/tools.log"
[ -z "$NETEM_VA$NETEM_VB" ] || log "netem: va '$NETEM_VA', vb '$NETEM_VB'"
# ibv_rc_pingpong: -g GID index, -m path MTU; 4096 B messages = 4 packets at MTU 1024.
run_case rc_pingpong_4096_mtu1024 \
  ibv_rc_pingpong -d rxe_b -g "$gb" -m 1024 -s 4096 -n 20 -- \
  ibv_rc_pingpong -d rxe_a -g "$ga" -m 1024 -s 4096 -n 20 127.0.0.1
# perftest: -x GID index, -F no CPU-frequency check (a VM has none), -n iterations.
run_case rc_write_bw_4096_mtu1024 \
  ib_write_bw -d rxe_b -x "$gb" -F -m 1024 -s 4096 -n 20 -- \
  ib_write_bw -d rxe_a -x "$ga" -F -m 1024 -s 4096 -n 20 127.0.0.1
run_case rc_read_bw_4096_mtu1024 \
  ib_read_bw -d rxe_b -x "$gb" -F -m 1024 -s 4096 -n 20 -- \
  ib_read_bw -d rxe_a -x "$ga" -F -m 1024 -s 4096 -n 20 127.0.0.1
run_case rc_send_bw_4096_mtu1024 \
  ib_send_bw -d rxe_b -x "$gb" -F -m 1024 -s 4096 -n 20 -- \
  ib_send_bw -d rxe_a -x "$ga" -F -m 1024 -s 4096 -n 20 127.0.0.1
run_case rc_atomic_fadd_bw \
  ib_atomic_bw -d rxe_b -x "$gb" -F -A FETCH_AND_ADD -n 20 -- \
  ib_atomic_bw -d rxe_a -x "$ga" -F -A FETCH_AND_ADD -n 20 127.0.0.1
# UC: no ACKs, no resends; SRQ: four QPs sharing one receive queue; UD: datagrams at most the
# path MTU (512 B here, GRH included in the receive buffer).
run_case uc_pingpong_4096_mtu1024 \
  ibv_uc_pingpong -d rxe_b -g "$gb" -m 1024 -s 4096 -n 20 -- \
  ibv_uc_pingpong -d rxe_a -g "$ga" -m 1024 -s 4096 -n 20 127.0.0.1
run_case srq_pingpong_q4_4096_mtu1024 \
  ibv_srq_pingpong -d rxe_b -g "$gb" -m 1024 -s 4096 -n 20 -q 4 -- \
  ibv_srq_pingpong -d rxe_a -g "$ga" -m 1024 -s 4096 -n 20 -q 4 127.0.0.1
run_case ud_pingpong_512 \
  ibv_ud_pingpong -d rxe_b -g "$gb" -s 512 -n 20 -- \
  ibv_ud_pingpong -d rxe_a -g "$ga" -s 512 -n 20 127.0.0.1

log "done in $(awk -v a="$t_start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s"
# A failed tool is a failed smoke run, after every case has had its turn.
if awk -F'\t' '$2 != 0 || $3 != 0 { bad = 1 } END { exit !bad }' "$out/cases.tsv"; then
  log "a tool failed (status in $out/cases.tsv, output in $out/tools.log)"
  exit 1
fi
