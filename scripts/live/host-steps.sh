# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154  # it sets variables for, and reads `here` of, its sourcer
# The host's side of a live run, sourced by smoke.sh and live.sh (docs/live.md): the timing
# helpers, the set-up before a boot (host packages, the cached guest, the share) and the boot.
# Needs `here` (scripts/live) and a `die` that prints and exits.

now_ms() { echo $(($(date +%s%N) / 1000000)); }
secs() { printf '%d.%01d' $(($1 / 1000)) $((($1 % 1000) / 100)); }

# Host packages and the guest (built or cached); sets t_all and guest_build_ms.
prepare_host() { # ROCECERT
  [ -x "$1" ] || die "$1 is not an executable (make build)"
  t_all=$(now_ms)
  bash "$here/../install-deps.sh" live
  local t
  t=$(now_ms)
  bash "$here/build-guest.sh"
  guest_build_ms=$(($(now_ms) - t))
}

# An empty share holding what every guest script uses: the host's rocecert (the guest runs it)
# and the network (/live/topology.sh).
prepare_share() { # SHARE ROCECERT
  rm -rf "$1"
  mkdir -p "$1"
  cp "$2" "$1/rocecert"
  cp "$here/guest-topology.sh" "$1/topology.sh"
}

# One boot on GUEST_SCRIPT; sets guest_ok (0 when the guest or its script failed), guest_ms,
# and boot_s / guest_s as run-guest.sh measured them.
boot_guest() { # GUEST_SCRIPT SHARE
  local t
  t=$(now_ms)
  guest_ok=1
  bash "$here/run-guest.sh" "$1" "$2" || guest_ok=0
  guest_ms=$(($(now_ms) - t))
  # shellcheck disable=SC1091
  if [ -f "$2/run-guest.times" ]; then . "$2/run-guest.times"; fi
}
