//! Helpers shared by the simulator's whole-world tests: run every variant of
//! a scenario given as text, and find a host's results.

#![allow(dead_code)]

use softosa_sim::report::{HostResult, RunResult};
use softosa_sim::scenario::Scenario;

/// Runs each variant of the scenario `text`; (variant label, results).
pub fn run_text(text: &str) -> Vec<(String, RunResult)> {
    let sc = Scenario::parse("test.toml", text).unwrap();
    sc.variants()
        .unwrap()
        .into_iter()
        .map(|v| {
            let (r, _) = softosa_sim::run_setup(&v.setup, |_, _| {}).unwrap();
            (v.label, r)
        })
        .collect()
}

/// The results of the host called `name`.
pub fn host<'a>(r: &'a RunResult, name: &str) -> &'a HostResult {
    r.hosts.iter().find(|h| h.name == name).unwrap()
}

/// The results of the scenario `text`, which has no `[vary]` (one run).
pub fn only(text: &str) -> RunResult {
    let mut runs = run_text(text);
    assert_eq!(runs.len(), 1, "a scenario with one run");
    runs.remove(0).1
}

/// The error a scenario `text` is refused with (at parsing or when its
/// variants are made).
pub fn refusal(text: &str) -> String {
    Scenario::parse("t.toml", text)
        .and_then(|s| s.variants())
        .expect_err("the scenario is refused")
        .to_string()
}
