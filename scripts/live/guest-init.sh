#!/bin/sh
# PID 1 of the live guest (installed as /sbin/rocecert-init in build/live/rootfs.img by
# build-guest.sh; POSIX sh because bash is not needed this early). No systemd, no udev, no
# network but what the guest script creates.
#
#   1. mounts /proc, /sys, /dev (+ pts, shm), tmpfs on /run and /tmp;
#   2. mounts the host's 9p share (mount tag "live") on /live;
#   3. runs /live/run (the guest script run-guest.sh copied there), its output both on the
#      console and in /live/guest.log, its exit code in /live/exit-status;
#   4. syncs, unmounts the share and powers off.
# run-guest.sh treats a missing /live/exit-status as a failed boot.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

say() { echo "rocecert-init: $*"; }

# The initramfs hands over /proc, /sys, /dev and /run already mounted; mount what is not.
mount_once() { # TYPE DIR
  mkdir -p "$2"
  mountpoint -q "$2" || mount -t "$1" "$1" "$2"
}
mount_once proc /proc
mount_once sysfs /sys
mount_once devtmpfs /dev
mount_once devpts /dev/pts
mount_once tmpfs /dev/shm
mount_once tmpfs /run
mount_once tmpfs /tmp
hostname rocecert-live
ip link set lo up

modprobe 9pnet_virtio && modprobe 9p
mkdir -p /live
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 live /live; then
  say "cannot mount the 9p share 'live'"
else
  say "kernel $(uname -r), running /live/run"
  if [ -x /live/run ]; then
    # The log goes to tmpfs first (9p writes are slow under TCG), the console sees it live.
    { /live/run; echo $? >/tmp/exit-status; } 2>&1 | tee /tmp/guest.log
    cp /tmp/guest.log /live/guest.log
    cp /tmp/exit-status /live/exit-status
    say "guest script exit status $(cat /tmp/exit-status)"
  else
    say "/live/run missing or not executable"
  fi
  sync
  umount /live
fi

# ACPI power-off through sysrq (no init system to ask); if that does not take, PID 1 exits,
# the kernel panics, and panic=-1 with qemu's -no-reboot ends the VM as well.
echo 1 >/proc/sys/kernel/sysrq
echo o >/proc/sysrq-trigger
sleep 10
