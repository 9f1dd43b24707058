#!/usr/bin/env bash
# Engine inbound-path benchmark (issue: classify + queue + timers with 10,000
# registered bulk connections). Reports, never asserts:
#  - instructions per frame under callgrind: (Ir(2N) - Ir(N)) / N, so the
#    setup of 10,000 registered connections cancels out (repeatable on a
#    shared machine);
#  - frames per second from criterion (noisy on a shared machine).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p softosa-engine --example inbound_callgrind
bin=${CARGO_TARGET_DIR:-target}/release/examples/inbound_callgrind
N=${N:-200000}
ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" 2>&1 \
    | awk '/refs:/ {gsub(",", "", $4); print $4}'
}
if command -v valgrind >/dev/null; then
  a=$(ir "$N"); b=$(ir $((2 * N)))
  echo "instructions per inbound frame: $(( (b - a) / N ))  (callgrind, N=$N)"
else
  echo "valgrind not installed: skipping the instruction count"
fi
start=$(date +%s.%N); "$bin" 4000000 >/dev/null; end=$(date +%s.%N)
echo "wall clock: $(echo "4000000 / ($end - $start) / 1000000" | bc -l | cut -c1-5) million frames/s (one core, includes setup)"
if [ "${CRITERION:-1}" = 1 ]; then
  cargo bench -q -p softosa-engine --bench inbound 2>&1 | grep -E 'thrpt' || true
fi
