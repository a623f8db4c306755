#!/usr/bin/env bash
# Installs the Debian 12 packages rocecert needs. Idempotent: only what is missing is installed,
# and nothing at all is done when everything is present. Works as root; otherwise goes through
# sudo.
#
#   install-deps.sh          the packages rocecert builds and tests with
#   install-deps.sh live     those the live device under test needs on top (docs/live.md)
set -euo pipefail

build_packages=(
  build-essential cmake ninja-build pkg-config
  clang libclang-rt-14-dev           # the ASan/UBSan build, the libFuzzer targets, their runtimes
  lld                                # links the ASan/UBSan build (3x faster than ld.bfd there)
  clang-format-14                    # make format / make check-format (scripts/check-format.sh)
  libpcap-dev libdeflate-dev
  libz3-dev                          # proofs/: the Z3 solver's C++ API
  libibverbs-dev                     # conformance/verbs: rocecert vectors run --dut verbs:A,B
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev
  tshark                             # independent oracle in the test suite and the benchmark
  wireshark-common                   # editcap (tshark depends on it; the pcap tests run it)
  python3 python3-jsonschema          # /usr/bin/python3 validates the scenarios against the schema
)
live_packages=(
  qemu-system-x86                    # the guest, under TCG (KVM is unusable on these hosts)
  debootstrap                        # builds the Debian 12 guest root file system
  e2fsprogs                          # mkfs.ext4 -d: the guest disk image without loop mounts
  libibverbs-dev                     # the verbs DUT: rocecert links the guest's bookworm libibverbs
  tshark                             # a second opinion on the captured pcaps
)

case "${1:-build}" in
  build) packages=("${build_packages[@]}") what=install-deps ;;
  live) packages=("${live_packages[@]}") what=live/install-deps ;;
  *)
    echo "usage: $0 [build|live]" >&2
    exit 2
    ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "$what: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
