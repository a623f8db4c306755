#!/usr/bin/env bash
# Boots the live guest built by build-guest.sh once, runs one script in it, and returns when
# the guest has powered off (docs/live.md).
#
#   run-guest.sh GUEST_SCRIPT SHARE_DIR
#
# SHARE_DIR is the 9p share (mount tag "live", /live in the guest): GUEST_SCRIPT is copied to
# SHARE_DIR/run, anything else the caller put there is visible to it, and what it writes there
# comes back. The guest's init (guest-init.sh) leaves SHARE_DIR/guest.log (the script's output)
# and SHARE_DIR/exit-status; this script adds SHARE_DIR/console.log (the serial console) and
# SHARE_DIR/run-guest.times (boot_s, guest_s: seconds from QEMU's start to the init's first
# line, and to power-off).
#
# QEMU: TCG (KVM is not usable on these hosts, docs/live.md), root on virtio-blk with
# snapshot=on (the image is never written), no network device at all (-nic none).
# Exit status: the guest script's, or 1 with the tail of the console when the guest did not
# get that far (boot failure, kernel panic, timeout).
#
# Env: LIVE_DIR (default build/live), LIVE_TIMEOUT (seconds, default 900), LIVE_SMP (2),
#      LIVE_MEM (MiB, 2048), LIVE_ACCEL (tcg; kvm where a real KVM exists).
set -euo pipefail

usage() {
  echo "usage: $0 GUEST_SCRIPT SHARE_DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
guest_script=$1
share=$2
live_dir=${LIVE_DIR:-build/live}
timeout_s=${LIVE_TIMEOUT:-900}
smp=${LIVE_SMP:-2}
mem=${LIVE_MEM:-2048}
accel=${LIVE_ACCEL:-tcg}

log() { echo "[live/run-guest $(date -u +%T)] $*"; }
die() {
  echo "live/run-guest: error: $*" >&2
  exit 1
}

for f in vmlinuz initrd.img rootfs.img; do
  [ -f "$live_dir/$f" ] || die "$live_dir/$f missing (run scripts/live/build-guest.sh)"
done
[ -f "$guest_script" ] || die "no guest script $guest_script"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (scripts/install-deps.sh live)"

mkdir -p "$share"
share=$(cd "$share" && pwd)
rm -f "$share/run" "$share/guest.log" "$share/exit-status" "$share/console.log" "$share/run-guest.times"
install -m 0755 "$guest_script" "$share/run"
console=$share/console.log
: >"$console"

case $accel in
  tcg) accel_args=(-accel "tcg,thread=multi" -cpu max) ;; # one host thread per vCPU
  kvm) accel_args=(-enable-kvm -cpu host) ;;
  *) die "LIVE_ACCEL must be tcg or kvm, not '$accel'" ;;
esac

qemu=(
  qemu-system-x86_64 "${accel_args[@]}" -smp "$smp" -m "$mem"
  -nodefaults -no-user-config -display none -no-reboot -monitor none -serial stdio
  -kernel "$live_dir/vmlinuz" -initrd "$live_dir/initrd.img"
  -append "root=/dev/vda rw console=ttyS0 init=/sbin/rocecert-init panic=-1 quiet loglevel=4"
  -drive "file=$live_dir/rootfs.img,if=virtio,format=raw,snapshot=on"
  -virtfs "local,path=$share,mount_tag=live,security_model=none,id=live"
  -nic none
)

log "booting ($accel, $smp vCPUs, $mem MiB, timeout ${timeout_s} s); console: $console"
t0=$(date +%s%N)
timeout -k 10 "$timeout_s" "${qemu[@]}" </dev/null >"$console" 2>&1 &
qpid=$!

# While the guest runs: note when the init's first line shows up (the boot time), and relay
# the init's and the guest script's progress lines ("rocecert-init:", "[live ...]").
boot_ms=""
shown=0
relay() {
  local n
  n=$(wc -l <"$console")
  if [ "$n" -gt "$shown" ]; then
    sed -n "$((shown + 1)),${n}p" "$console" | tr -d '\r' | grep -E '^(rocecert-init:|\[live)' || true
    shown=$n
  fi
}
while kill -0 "$qpid" 2>/dev/null; do
  if [ -z "$boot_ms" ] && grep -q '^rocecert-init: kernel' "$console"; then
    boot_ms=$((($(date +%s%N) - t0) / 1000000))
    log "guest up after $((boot_ms / 1000)).$(printf '%03d' $((boot_ms % 1000))) s"
  fi
  relay
  sleep 0.5
done
qrc=0
wait "$qpid" || qrc=$?
relay
guest_ms=$((($(date +%s%N) - t0) / 1000000))
secs() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
{
  echo "boot_s=$([ -n "$boot_ms" ] && secs "$boot_ms")"
  echo "guest_s=$(secs "$guest_ms")"
} >"$share/run-guest.times"

fail() {
  echo "live/run-guest: error: $*" >&2
  echo "---- last 40 lines of the console ($console):" >&2
  tail -n 40 "$console" | tr -d '\r' >&2
  if [ -f "$share/guest.log" ]; then
    echo "---- last 20 lines of the guest script's log ($share/guest.log):" >&2
    tail -n 20 "$share/guest.log" >&2
  fi
  exit 1
}

if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
  fail "the guest did not power off within ${timeout_s} s (LIVE_TIMEOUT)"
fi
[ "$qrc" -eq 0 ] || fail "qemu exited with status $qrc"
[ -n "$boot_ms" ] || fail "the guest never reached its init (kernel or initramfs failure?)"
[ -f "$share/exit-status" ] || fail "the guest stopped before its script finished (no exit-status)"
rc=$(cat "$share/exit-status")
log "guest powered off after $(secs "$guest_ms") s; guest script exit status $rc"
if [ "$rc" != 0 ]; then
  fail "the guest script $(basename "$guest_script") failed with status $rc"
fi
