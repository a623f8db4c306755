# shellcheck shell=bash
# The live guest's network and capture, sourced by the guest scripts (guest-smoke.sh,
# guest-vectors.sh) from the share, where the host puts it as /live/topology.sh (docs/live.md).
# Sourcing it builds the network and sets `ga`/`gb` (the devices' GID indexes); it defines
# `start_capture FILE` and `stop_capture` (tcpdump on va), `tcpdump_count`, and `netem_on VA VB`
# / `netem_off` (netem arguments for va's and vb's egress; empty: none). Needs `log`.
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
# tcpdump listens on va, so each capture holds both directions. The addresses are the ones the
# vectors give their adapters A and B, so a vector's setup names these hosts.

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

# ---------------------------------------------------------------- faults
netem_on() { # VA_ARGS VB_ARGS
  local args=()
  if [ -n "$1" ]; then
    read -ra args <<<"$1"
    tc qdisc add dev va root netem "${args[@]}"
  fi
  if [ -n "$2" ]; then
    read -ra args <<<"$2"
    tc qdisc add dev vb root netem "${args[@]}"
  fi
}
netem_off() {
  tc qdisc del dev va root 2>/dev/null || true
  tc qdisc del dev vb root 2>/dev/null || true
}
