#!/usr/bin/env bash
# The demo: decode the real Soft-RoCE captures bundled in vectors/real/ and validate every ICRC.
set -euo pipefail
rocecert=${1:-build/release/apps/rocecert/rocecert}
cd "$(dirname "$0")/.."

echo "== rocecert decode vectors/real/rc_ops_mtu4096.pcap (every RC operation, MTU 4096)"
"$rocecert" decode vectors/real/rc_ops_mtu4096.pcap
echo
echo "== one frame as JSON"
"$rocecert" decode --json --count 1 vectors/real/err_write_bad_rkey.pcap
echo
echo "== every bundled capture: frames, RoCEv2 frames, malformed frames, ICRC failures"
for f in vectors/real/*.pcap; do
  "$rocecert" decode --stats "$f" > /dev/null
done
echo
echo "(the one ICRC failure is the frame netem corrupted on purpose in rc_send_bw_64_mtu1024_corrupt2)"
echo
echo "== rocecert simulate examples/rc_basic.json (the golden model: two adapters, one RC connection)"
"$rocecert" simulate examples/rc_basic.json --pcap /tmp/rocecert-demo.pcap --trace /tmp/rocecert-demo.jsonl
echo
echo "== its pcap, decoded"
"$rocecert" decode --strict /tmp/rocecert-demo.pcap
