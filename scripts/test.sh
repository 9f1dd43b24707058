#!/usr/bin/env bash
# softosa's test command: formatting, lints, API docs that build without
# warnings (broken links), every crate's tests (the live
# lab's namespace tests run when root, and say why they skip otherwise), and
# a bounded fuzzing run of every parser (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cargo fmt --all -- --check
cargo clippy -q --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc -q --workspace --no-deps
cargo test --workspace
scripts/fuzz.sh "${FUZZ_SECONDS:-30}"
