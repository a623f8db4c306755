#!/usr/bin/env bash
# Host packages the live device under test needs (docs/live.md), on top of those of
# scripts/install-deps.sh. Idempotent: only what is missing is installed, and nothing at all
# is done when everything is present. Works as root; otherwise goes through sudo.
set -euo pipefail

packages=(
  qemu-system-x86                    # the guest, under TCG (KVM is unusable on these hosts)
  debootstrap                        # builds the Debian 12 guest root file system
  e2fsprogs                          # mkfs.ext4 -d: the guest disk image without loop mounts
  libibverbs-dev                     # the verbs DUT (also in scripts/install-deps.sh, for the
                                     # build): rocecert links the guest's bookworm libibverbs
  tshark                             # a second opinion on the captured pcaps
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "live/install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
