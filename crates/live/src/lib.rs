//! softosa-live: the live data plane (spec 8.1). softosa runs as the
//! adapter between real Linux network stacks in network namespaces: frames
//! from a veth end (the LAN, read and written with AF_PACKET) go through the
//! sans-IO engine and are presented on multi-queue TAP/TUN devices (the
//! stacks' QDIO data devices); what the stacks send is drained by priority
//! back to the wire. The crate also holds `softosa lab`, which builds the
//! namespaces, runs iperf3/sockperf workloads and reports.

pub mod cli;
pub mod control;
pub mod dataplane;
pub mod displays;
pub mod engine_core;
pub mod fault;
pub mod lab;
pub mod passthrough;
pub mod sys;
pub mod topo;
pub mod vnet;
pub mod workload;

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that interrupted the run (0: none yet).
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    INTERRUPTED.store(sig, Ordering::SeqCst);
}

/// Install SIGINT/SIGTERM/SIGHUP handlers that only record the signal;
/// long-running loops poll [`interrupted`] and unwind normally, so every
/// guard (namespaces, child processes, sockets) is dropped and cleans up.
pub fn install_signal_handlers() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only stores to an atomic (async-signal-safe).
        unsafe {
            libc::signal(
                sig,
                on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}

/// Whether Ctrl-C (or SIGTERM/SIGHUP) arrived.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed) != 0
}

/// The signal that interrupted the run, if one did (the last one caught).
pub fn interrupting_signal() -> Option<i32> {
    Some(INTERRUPTED.load(Ordering::Relaxed)).filter(|s| *s != 0)
}
