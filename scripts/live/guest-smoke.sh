#!/bin/bash
# The smoke scenario, run INSIDE the live guest by guest-init.sh (as /live/run; docs/live.md).
# Two Soft-RoCE devices on the two ends of one veth pair, a few verbs tools between them, one
# pcap per case in /live/pcap/ and one row per case in /live/pcap/cases.tsv
# (name, client status, server status, packets captured, packets seen by the filter, seconds).
#
# Network (all in the root namespace: rdma_rxe in 6.1 opens its UDP 4791 socket and routes
# only in init_net, so the devices cannot be split into two namespaces):
#
#   rxe_a on va 10.0.0.1/32  <--- veth --->  vb 10.0.0.2/32 on rxe_b
#
# Both addresses are local, and the local routing table would send traffic between them via
# lo, where rxe never sees it. So locally generated traffic (iif lo) is looked up in table 100
# first (10.0.0.2 via va, 10.0.0.1 via vb), the local table moves behind it, and the veth ends
# accept packets from a local source (accept_local=1, rp_filter=0). IPv6 is off, so each
# device's GID table holds only its link-local default and the IPv4-mapped RoCEv2 GID.
# Server tools run on rxe_b, clients on rxe_a; their TCP side channel goes over 127.0.0.1.
# tcpdump listens on va, so each capture holds both directions.
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

# ---------------------------------------------------------------- topology
log "kernel $(uname -r); setting up rxe_a/va <-> vb/rxe_b"
for m in rdma_rxe veth sch_netem; do modprobe "$m"; done
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip link add va type veth peer name vb
# MTU 9000: the rxe port's active MTU becomes 4096, so every RoCE path MTU fits unfragmented.
ip link set va mtu 9000 up
ip link set vb mtu 9000 up
ip addr add 10.0.0.1/32 dev va
ip addr add 10.0.0.2/32 dev vb
for k in all default va vb; do
  sysctl -qw "net.ipv4.conf.$k.accept_local=1" "net.ipv4.conf.$k.rp_filter=0"
done
ip route add 10.0.0.2/32 dev va src 10.0.0.1 table 100
ip route add 10.0.0.1/32 dev vb src 10.0.0.2 table 100
ip rule add pref 100 iif lo lookup 100
ip rule add pref 200 lookup local
ip rule del pref 0 lookup local
rdma link add rxe_a type rxe netdev va
rdma link add rxe_b type rxe netdev vb

# The route really crosses the veth (not lo):
ip route get 10.0.0.2 from 10.0.0.1 | grep -q 'dev va' || {
  log "policy routing did not take: $(ip route get 10.0.0.2 from 10.0.0.1)"
  exit 1
}

# GID index of a device's RoCEv2 GID for an IPv4 address: the GID is ::ffff:a.b.c.d. One grep
# over the whole table (a shell loop over its 1024 sysfs files takes minutes under TCG).
gid_index() { # DEVICE IPV4
  local dev=$1 ip=$2 a b c d want f idx
  IFS=. read -r a b c d <<<"$ip"
  want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
  for _ in $(seq 1 50); do # ib_core adds the GID asynchronously after the address
    for f in $(grep -l -x "$want" /sys/class/infiniband/"$dev"/ports/1/gids/* 2>/dev/null || true); do
      idx=${f##*/}
      if grep -q 'RoCE v2' "/sys/class/infiniband/$dev/ports/1/gid_attrs/types/$idx" 2>/dev/null; then
        echo "$idx"
        return 0
      fi
    done
    sleep 0.2
  done
  return 1
}
ga=$(gid_index rxe_a 10.0.0.1) || {
  log "rxe_a has no RoCEv2 GID for 10.0.0.1"
  exit 1
}
gb=$(gid_index rxe_b 10.0.0.2) || {
  log "rxe_b has no RoCEv2 GID for 10.0.0.2"
  exit 1
}
log "rxe_a GID index $ga, rxe_b GID index $gb; $(ibv_devinfo -d rxe_a | grep -o 'active_mtu:.*' | tr -s '\t ' ' ')"
# Resolve the neighbours now, so no capture begins with ARP delays.
ping -c1 -W2 -I 10.0.0.1 10.0.0.2 >/dev/null || log "warning: no ping reply from 10.0.0.2"

# ---------------------------------------------------------------- capture
tcpdump_pid=""
start_capture() { # FILE
  rm -f /tmp/tcpdump.err
  # -s 9216: the biggest frame on this veth is 9014 B, and a bigger snaplen only makes the ring's
  # slots bigger and fewer. -B 65536: a 64 MiB ring. --immediate-mode: frames are handed over
  # one by one, not in blocks that may still be pending when the capture stops.
  tcpdump -i va -n -s 9216 -B 65536 --immediate-mode -Z root -w "$1" 'udp port 4791' \
    2>/tmp/tcpdump.err &
  tcpdump_pid=$!
  for _ in $(seq 1 100); do
    grep -q 'listening on' /tmp/tcpdump.err 2>/dev/null && return 0
    sleep 0.1
  done
  log "tcpdump did not start: $(cat /tmp/tcpdump.err)"
  return 1
}
tcpdump_count() { # WHAT ("captured" or "received by filter") -> the last count reported
  grep -o "[0-9]* packets\? $1" /tmp/tcpdump.err | tail -n1 | cut -d' ' -f1
}
# SIGINT alone loses what the kernel has queued for tcpdump but tcpdump has not written yet,
# and under TCG it lags. SIGUSR1 makes it report its counters without stopping: stop it only
# once "captured" has caught up with "received by filter" and holds still.
stop_capture() {
  local captured filtered last=-1
  for _ in $(seq 1 100); do
    kill -USR1 "$tcpdump_pid" 2>/dev/null || break # it has already ended
    sleep 0.2
    captured=$(tcpdump_count captured)
    filtered=$(tcpdump_count 'received by filter')
    if [ -n "$captured" ] && [ "$captured" = "$filtered" ] && [ "$captured" = "$last" ]; then
      break
    fi
    last=$captured
  done
  kill -INT "$tcpdump_pid" 2>/dev/null || true
  wait "$tcpdump_pid" || true
}

wait_listen() { # PORT: until a server listens on it (5 s at most)
  for _ in $(seq 1 50); do
    ss -ltnH "sport = :$1" | grep -q . && return 0
    sleep 0.1
  done
  return 1
}

# run_case NAME SERVER_CMD... -- CLIENT_CMD...
run_case() {
  local name=$1 srv=() cli=() netem=() spid src=0 crc=0 t0 t1 captured filtered
  shift
  while [ "$1" != -- ]; do
    srv+=("$1")
    shift
  done
  shift
  cli=("$@")
  if [ -n "$CASES" ] && [[ " $CASES " != *" $name "* ]]; then return 0; fi

  if [ -n "$NETEM_VA" ]; then
    read -ra netem <<<"$NETEM_VA"
    tc qdisc add dev va root netem "${netem[@]}"
  fi
  if [ -n "$NETEM_VB" ]; then
    read -ra netem <<<"$NETEM_VB"
    tc qdisc add dev vb root netem "${netem[@]}"
  fi
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
  tc qdisc del dev va root 2>/dev/null || true
  tc qdisc del dev vb root 2>/dev/null || true
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
