#!/usr/bin/env bash
# Installs the Debian 12 packages rocecert builds and tests with. Idempotent: only what is
# missing is installed, and nothing at all is done when everything is present.
# Works as root; otherwise goes through sudo.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  clang libclang-rt-14-dev           # libFuzzer targets and their sanitizer runtimes
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

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
