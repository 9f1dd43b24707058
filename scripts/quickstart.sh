#!/usr/bin/env bash
# The main job on a fresh machine: install what is needed, build softosa, and
# reproduce every published measurement the simulator is calibrated to
# (simulated vs published, pass/fail, and an HTML report with plots).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cargo build --release -q -p softosa
mkdir -p out
exec "${CARGO_TARGET_DIR:-target}/release/softosa" reproduce --html out/reproduce.html "$@"
