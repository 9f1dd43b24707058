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
  # real files instead of first having to discover the syntax: every
  # reader the target runs (profiles, TRL members, policies; scenarios).
  # Plain cp: `cp -n` fails where it skips a file on coreutils 9.2-9.4.
  case $t in
    profile_parser) cp ../examples/profiles/* ../scenarios/profiles/* \
      ../crates/live/examples/profiles/* "corpus/$t/" ;;
    scenario_parser) cp ../scenarios/*.toml ../scenarios/calibration/*.toml "corpus/$t/" ;;
  esac
  log=$(mktemp)
  seed=()
  if [ -n "${FUZZ_SEED:-}" ]; then seed=(-seed="$FUZZ_SEED"); fi
  if ! run "$t" "corpus/$t" -- -max_total_time="$secs" -rss_limit_mb=2048 "${seed[@]}" >"$log" 2>&1; then
    tail -40 "$log" >&2
    echo "fuzz target $t failed (crash inputs, if any, are in fuzz/artifacts/$t)" >&2
    exit 1
  fi
  grep -E '^Done' "$log" || tail -3 "$log"
  rm -f "$log"
done
