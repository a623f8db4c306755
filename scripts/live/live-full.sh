#!/usr/bin/env bash
# `make live-full` (docs/live.md): after `make live` (the clean link), the whole vector set again
# under each fault plan of LIVE_FULL_NETEM, on both ends of the veth, one guest boot per plan.
#
#   live-full.sh ROCECERT "NETEM;NETEM;..." LIVE_DIR
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
  n=$((n + 1))
  echo "[live-full] run-$n: netem \"$plan\" on va and vb"
  LIVE_DIR=$live_dir LIVE_RUN=run-$n LIVE_GATE=check LIVE_NETEM_VA=$plan LIVE_NETEM_VB=$plan \
    bash "$here/live.sh" "$rocecert" || status=1
done
exit $status
