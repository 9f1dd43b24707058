//! Instruction count per inbound frame, for callgrind (ARCHITECTURE.md habit
//! 9: count instructions, not seconds, on a shared machine).
//!
//! `valgrind --tool=callgrind --callgrind-out-file=cg.N target/release/examples/inbound_callgrind N`
//! for two values of N; (Ir(2N) − Ir(N)) / N is the cost of one frame with
//! the setup (building 10,000 registered connections) cancelled out.
//! `scripts/bench-engine.sh` does exactly that.

use softosa_engine::bench_support::InboundBench;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let mut b = InboundBench::new(10_000);
    let presented = b.run(n);
    println!(
        "frames {n} presented {presented} registered {} accounting balanced {}",
        b.registered(),
        b.engine.accounting().balanced()
    );
}
