#!/usr/bin/env bash
# Install what softosa needs on a fresh Debian 12 machine: the programs the
# live lab drives (iperf3, sockperf, iproute2, procps), the capture tools the replay
# tests use (tcpdump, tshark), valgrind for the instruction-count benchmark.
# Rust itself comes from rustup. Safe to run again: installs only what is missing.
set -euo pipefail
pkgs=(iperf3 sockperf tcpdump tshark valgrind iproute2 procps bc)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections || true
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null; then
  echo "softosa needs Rust (cargo): install it with rustup, then run this again" >&2
  exit 1
fi
