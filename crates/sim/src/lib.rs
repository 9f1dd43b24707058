//! # softosa-sim — the discrete-event simulator
//!
//! Drives the sans-IO engine (`softosa-engine`) in virtual time and models
//! everything the engine does not: links and the switch, the adapter's
//! microprocessor, host processors and units of work, TCP endpoints, peer
//! hosts and workloads (spec parts 2, 3, 6 and 7). It answers "what would this
//! configuration do to this workload?" and, through `reproduce`, shows that the
//! published measurements come out of the mechanisms.
//!
//! Determinism: virtual time, an event queue ordered by (time, sequence), a
//! seeded ChaCha RNG, ordered maps only — the same scenario and seed give
//! byte-identical output.

pub mod cli;
pub mod cpu;
pub mod event;
pub mod iqd;
pub mod link;
pub mod osa;
pub mod packet;
pub mod params;
pub mod report;
pub mod reproduce;
pub mod reproduce_html;
pub mod scenario;
pub mod sim_html;
pub mod spread;
pub mod svg;
pub mod tcp;
pub mod vse;
pub mod workload;
pub mod world;

use world::{Setup, World, WorldError};

/// Run one setup to completion, calling `progress(simulated_ns, end_ns)`
/// now and then.
pub fn run_setup(
    setup: &Setup,
    mut progress: impl FnMut(u64, u64),
) -> Result<(report::RunResult, World), WorldError> {
    let mut w = World::new(setup)?;
    let end = w.end();
    let step = (end / 100).max(1_000_000);
    let mut t = 0;
    loop {
        t += step;
        let done = w.run_until(t);
        progress(t.min(end), end);
        if done {
            break;
        }
    }
    Ok((w.results(), w))
}
