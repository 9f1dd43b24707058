//! Criterion benchmark of the inbound path (classify + queue + LAN-idle
//! timers + bulk detector) with 10,000 registered bulk connections. Reports
//! frames per second (criterion's element throughput); instruction counts
//! per frame come from `examples/inbound_callgrind.rs` under callgrind.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use softosa_engine::bench_support::InboundBench;
use std::hint::black_box;

const BATCH: usize = 10_000;

fn inbound(c: &mut Criterion) {
    let mut b = InboundBench::new(10_000);
    assert_eq!(b.registered(), 10_000);
    let mut g = c.benchmark_group("inbound");
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("10k_bulk_connections", |bench| {
        bench.iter(|| black_box(b.run(BATCH)))
    });
    g.finish();
}

criterion_group!(benches, inbound);
criterion_main!(benches);
