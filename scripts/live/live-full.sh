#!/usr/bin/env bash
# `make live-full` (docs/live.md): after `make live` (the clean link), the whole vector set again
# under each fault plan of LIVE_FULL_NETEM, one guest boot per plan.
#
#   live-full.sh ROCECERT "PLAN;PLAN;..." LIVE_DIR
#
# A plan is "WHERE:NETEM": WHERE is va (requests, A -> B), vb (responses and ACKs) or both.
# The tap is on va after its qdisc: a delay there holds requests back between the requester and
# the tap, so that a requester's prompt reaction to a NAK looks late (psn.retransmit judges it
# against the profile's fatal_nak_grace_ns, 1 ms for rxe). Delays and reordering therefore go on
# vb, where the tap sees responses as the requester gets them; loss and duplication on both.
#
# Each plan's run is LIVE_DIR/run-N (N from 1), its table run-N/summary.txt. Under faults only
# the check verdicts gate (LIVE_GATE=check): the wire must conform whatever the link does, while
# a vector's completions may differ for the link's sake. Exit 1 when a plan's run fails.
set -euo pipefail
[ $# -eq 3 ] || {
  echo "usage: $0 ROCECERT NETEM_PLANS LIVE_DIR" >&2
  exit 2
}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rocecert=$1
live_dir=$3
IFS=';' read -ra plans <<<"$2"
status=0
n=0
for plan in "${plans[@]}"; do
  plan=$(echo "$plan" | sed 's/^ *//; s/ *$//')
  [ -n "$plan" ] || continue
  where=${plan%%:*}
  netem=${plan#*:}
  va="" vb=""
  case $where in
    va) va=$netem ;;
    vb) vb=$netem ;;
    both) va=$netem vb=$netem ;;
    *)
      echo "live-full: \"$plan\": a plan is va:NETEM, vb:NETEM or both:NETEM" >&2
      exit 2
      ;;
  esac
  n=$((n + 1))
  echo "[live-full] run-$n: netem \"$netem\" on $where"
  LIVE_DIR=$live_dir LIVE_RUN=run-$n LIVE_GATE=check LIVE_NETEM_VA=$va LIVE_NETEM_VB=$vb \
    bash "$here/live.sh" "$rocecert" || status=1
done
exit $status
