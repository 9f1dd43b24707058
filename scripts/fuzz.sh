#!/usr/bin/env bash
# Run every fuzz target for a bounded time (default 30 s each). Uses cargo-fuzz
# with a nightly toolchain when there is one; otherwise stable with
# RUSTC_BOOTSTRAP and no sanitizer. Findings are printed and fail the run.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
if ! command -v cargo-fuzz >/dev/null; then
  echo "installing cargo-fuzz"
  cargo install -q --locked cargo-fuzz
fi
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  run() { cargo +nightly fuzz run "$@"; }
else
  echo "no nightly toolchain: fuzzing on stable without a sanitizer"
  run() { RUSTC_BOOTSTRAP=1 cargo fuzz run -s none "$@"; }
fi
cd fuzz
for t in frame_parser profile_parser capture_reader scenario_parser; do
  echo "fuzz $t for ${secs}s"
  mkdir -p "corpus/$t"
  # Start from the project's own inputs, so a short run explores near
  # real files instead of first having to discover the syntax.
  case $t in
    profile_parser) cp -n ../scenarios/profiles/* "corpus/$t/" 2>/dev/null || true ;;
    scenario_parser) cp -n ../scenarios/*.toml ../scenarios/calibration/*.toml "corpus/$t/" ;;
  esac
  log=$(mktemp)
  if ! run "$t" "corpus/$t" -- -max_total_time="$secs" -rss_limit_mb=2048 >"$log" 2>&1; then
    tail -40 "$log" >&2
    echo "fuzz target $t failed (crash inputs, if any, are in fuzz/artifacts/$t)" >&2
    exit 1
  fi
  grep -E '^Done' "$log" || tail -3 "$log"
  rm -f "$log"
done
