//! Helpers shared by the profile crate's integration tests: parse a profile
//! given as text and read its diagnostics as printed, and activate one.

#![allow(dead_code)]

use softosa_engine::config::StackConfig;
use softosa_profile::activate::{activate, ActivateOptions, StackInput};
use softosa_profile::*;

/// The profile `src` (file `s.prof`) and its diagnostics, as printed.
pub fn diags(src: &str) -> (Profile, Vec<String>) {
    let (p, d) = parse_profile("s.prof", src);
    (p, d.items().iter().map(|x| x.to_string()).collect())
}

/// The stack the profile `src` activates into; `src` must read clean.
pub fn activated_stack(src: &str) -> StackConfig {
    let (p, v) = diags(src);
    assert!(v.is_empty(), "{v:?}");
    let input = StackInput {
        name: "T".into(),
        profile: &p,
        policy: None,
    };
    let mut cfg = activate(&[input], &[], &ActivateOptions::default())
        .expect("the profile activates")
        .config;
    cfg.stacks.remove(0)
}
