#!/usr/bin/env bash
# Builds the live guest (docs/live.md): a Debian 12 (bookworm) root file system made with
# debootstrap, its kernel and initramfs copied out, and an ext4 disk image made from it with
# `mkfs.ext4 -d` (no loop mount). Everything goes to LIVE_DIR (default build/live):
#
#   rootfs/          the debootstrapped tree                 (rebuilt when rootfs.stamp differs)
#   vmlinuz          the guest kernel (Debian's 6.1, ships rdma_rxe.ko)
#   initrd.img       the guest's own initramfs (virtio_blk + ext4 come from it)
#   rootfs.img       ext4 image of rootfs/ with guest-init.sh as /sbin/rocecert-init
#                                                            (rebuilt when rootfs.img.stamp differs)
#   timings.txt      how long the last debootstrap and mkfs took (seconds)
#
# The stamps hold a SHA-256 of what the step depends on: rootfs.stamp of the package list, the
# suite, the mirror and recipe_rev (below); rootfs.img.stamp of rootfs.stamp, guest-init.sh and
# the image size. So editing guest-init.sh only redoes the image (seconds), changing the package
# list redoes debootstrap (minutes). LIVE_REBUILD=1 forces both.
#
# Env: LIVE_DIR, LIVE_MIRROR (default: the first Debian URI of this host's apt sources),
#      LIVE_IMG_SIZE (default 2G, sparse), LIVE_REBUILD=1.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
live_dir=${LIVE_DIR:-build/live}
rootfs=$live_dir/rootfs
img=$live_dir/rootfs.img
img_size=${LIVE_IMG_SIZE:-2G}

# Guest packages. linux-image-amd64 brings the kernel with rdma_rxe, veth, sch_netem and 9p;
# initramfs-tools builds the initramfs that mounts the virtio-blk root; rdma-core +
# ibverbs-providers give the rxe user-space provider; ibverbs-utils the ibv_*_pingpong
# examples; perftest ib_write_bw & co; iproute2 ip/tc/rdma/ss; iputils-ping warms up ARP.
# libpcap0.8, libfmt9, libdeflate0 and libz3-4 are the runtime libraries of the host-built
# rocecert, which runs in the guest too (the verbs DUT drives the guest's rxe devices).
guest_packages=(
  linux-image-amd64 initramfs-tools kmod
  rdma-core ibverbs-providers ibverbs-utils perftest
  tcpdump iproute2 iputils-ping procps util-linux
  libpcap0.8 libfmt9 libdeflate0 libz3-4
)

log() { echo "[live/build-guest $(date -u +%T)] $*"; }
die() {
  echo "live/build-guest: error: $*" >&2
  exit 1
}

[ "$(id -u)" -eq 0 ] || die "debootstrap needs root"
for tool in debootstrap mkfs.ext4 sha256sum; do
  command -v "$tool" >/dev/null || die "$tool missing (run scripts/install-deps.sh live)"
done

host_mirror() {
  # deb822 sources (Debian 12's default) first, then one-line sources; the first URI that
  # serves the main archive (not -security).
  local uri
  uri=$(grep -h -E '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk '{print $2}' | grep -v -- '-security' | head -n1 || true)
  if [ -z "$uri" ]; then
    uri=$(grep -h -E '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      awk '{print $2}' | grep -v -- '-security' | head -n1 || true)
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}
mirror=${LIVE_MIRROR:-$(host_mirror)}

mkdir -p "$live_dir"
if [ "${LIVE_REBUILD:-0}" = 1 ]; then
  rm -f "$live_dir/rootfs.stamp" "$live_dir/rootfs.img.stamp"
fi

# What the rootfs is made of. Bump recipe_rev when the debootstrap step below changes in a way
# the package list and mirror do not show (other edits to this script do not redo debootstrap).
recipe_rev=1
rootfs_hash=$(printf '%s\n' "rev=$recipe_rev" "suite=bookworm variant=minbase" "mirror=$mirror" \
  "${guest_packages[@]}" | sha256sum | cut -d' ' -f1)

# ---------------------------------------------------------------- rootfs (debootstrap)
if [ -x "$rootfs/usr/bin/ib_write_bw" ] && [ -f "$live_dir/rootfs.stamp" ] &&
  [ "$(cat "$live_dir/rootfs.stamp")" = "$rootfs_hash" ]; then
  log "rootfs up to date ($rootfs)"
else
  log "debootstrap bookworm from $mirror into $rootfs (a few minutes)"
  rm -rf "$rootfs" "$live_dir/rootfs.stamp" "$live_dir/rootfs.img.stamp"
  t0=$(date +%s)
  include=$(
    IFS=,
    echo "${guest_packages[*]}"
  )
  debootstrap --variant=minbase --include="$include" bookworm "$rootfs" "$mirror" \
    >"$live_dir/debootstrap.log" 2>&1 ||
    {
      tail -n 30 "$live_dir/debootstrap.log" >&2
      die "debootstrap failed (log: $live_dir/debootstrap.log)"
    }
  # No network in the guest: the package cache and lists only make the image bigger.
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  [ -x "$rootfs/usr/bin/ib_write_bw" ] || die "debootstrap finished without perftest"
  ls "$rootfs"/lib/modules/*/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko* >/dev/null 2>&1 ||
    die "the guest kernel has no rdma_rxe module"
  echo "debootstrap_s=$(($(date +%s) - t0))" >"$live_dir/timings.txt"
  echo "$rootfs_hash" >"$live_dir/rootfs.stamp"
  log "debootstrap done in $(($(date +%s) - t0)) s"
fi

# ---------------------------------------------------------------- kernel, initrd, image
img_hash=$( (
  cat "$live_dir/rootfs.stamp"
  cat "$here/guest-init.sh"
  echo "size=$img_size"
) | sha256sum | cut -d' ' -f1)

if [ -f "$img" ] && [ -f "$live_dir/vmlinuz" ] && [ -f "$live_dir/initrd.img" ] &&
  [ -f "$live_dir/rootfs.img.stamp" ] && [ "$(cat "$live_dir/rootfs.img.stamp")" = "$img_hash" ]; then
  log "image up to date ($img)"
  exit 0
fi

log "building $img ($img_size, sparse)"
rm -f "$live_dir/rootfs.img.stamp"
t0=$(date +%s)
# One kernel is installed; the newest by version order if there ever were several.
kernel=$(find "$rootfs/boot" -maxdepth 1 -name 'vmlinuz-*' | sort -V | tail -n1)
initrd=$(find "$rootfs/boot" -maxdepth 1 -name 'initrd.img-*' | sort -V | tail -n1)
if [ -z "$kernel" ] || [ -z "$initrd" ]; then die "no kernel or initramfs in $rootfs/boot"; fi
cp "$kernel" "$live_dir/vmlinuz"
cp "$initrd" "$live_dir/initrd.img"
install -D -m 0755 "$here/guest-init.sh" "$rootfs/sbin/rocecert-init"
rm -f "$img"
mkfs.ext4 -q -F -L rocecert-live -d "$rootfs" "$img" "$img_size" >/dev/null
sed -i '/^mkfs_s=/d' "$live_dir/timings.txt" 2>/dev/null || true
echo "mkfs_s=$(($(date +%s) - t0))" >>"$live_dir/timings.txt"
echo "$img_hash" >"$live_dir/rootfs.img.stamp"
log "image done in $(($(date +%s) - t0)) s (kernel $(basename "$kernel"))"
