//! Shared helpers of the live integration tests: they need root, iproute2,
//! iperf3, sockperf and network namespaces, and skip with a printed reason
//! when the machine cannot provide them. Lab runs are serialized (a global
//! lock) so they do not compete for the two CPUs.

use std::sync::{Mutex, MutexGuard};

static LAB: Mutex<()> = Mutex::new(());

/// Serialize lab runs within one test binary.
pub fn lab_lock() -> MutexGuard<'static, ()> {
    LAB.lock().unwrap_or_else(|e| e.into_inner())
}

/// `Err(reason)` when the live lab cannot run here.
pub fn can_run() -> Result<(), String> {
    softosa_live::lab::preflight(true, true).map_err(|e| e.to_string())
}

/// Skip the calling test (return early) with a printed reason.
#[macro_export]
macro_rules! require_lab {
    ($name:expr) => {
        if let Err(why) = common::can_run() {
            eprintln!("SKIP {}: {}", $name, why);
            return;
        }
    };
}

/// No `sosa-` namespace of this process is left.
pub fn no_leftovers() -> bool {
    let tag = softosa_live::topo::tag_for(std::process::id());
    // `sosa-<tag>_<run>-<role>`: the `_` keeps pid 12's tag from
    // matching pid 123's namespaces.
    let prefix = format!("sosa-{tag}_");
    std::fs::read_dir("/run/netns")
        .map(|d| {
            d.flatten()
                .all(|e| !e.file_name().to_string_lossy().starts_with(&prefix))
        })
        .unwrap_or(true)
}
