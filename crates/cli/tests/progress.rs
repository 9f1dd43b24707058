//! What the `softosa` binary says on standard error while it works (front
//! end): a long run tells where it is.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn reproduce_with_several_seeds_names_each_pass() {
    let html = std::env::temp_dir().join(format!("softosa-progress-{}.html", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_softosa"))
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(["reproduce", "--only", "olm-rr1", "--seeds", "2", "--html"])
        .arg(&html)
        .output()
        .expect("the softosa binary runs");
    let _ = std::fs::remove_file(&html);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // Each pass is announced before its runs, with the seed it uses.
    let first = err.find("seed pass 1 of 2: each scenario's own seed\n");
    let second = err.find("seed pass 2 of 2: each scenario's own seed + 1\n");
    let (Some(first), Some(second)) = (first, second) else {
        panic!("{err}");
    };
    let runs: Vec<usize> = err
        .match_indices("ran olm-rr1 [OLM]")
        .map(|m| m.0)
        .collect();
    assert_eq!(runs.len(), 2, "{err}");
    assert!(
        first < runs[0] && runs[0] < second && second < runs[1],
        "{err}"
    );
}
