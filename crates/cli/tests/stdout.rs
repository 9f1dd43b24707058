//! The `softosa` binary's handling of its standard output (front end):
//! a full disk is an error with a message and a non-zero exit, never a
//! panic or a silently lost report; a reader that went away is not.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

fn scenario() -> PathBuf {
    repo("scenarios/quick-rr.toml")
}

/// Run softosa with its stdout on /dev/full; None where there is none.
fn run_into_full_disk(args: &[OsString]) -> Option<std::process::Output> {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: this system has no /dev/full");
        return None;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_softosa"))
        .args(args)
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .expect("the softosa binary runs");
    Some(out)
}

#[test]
fn a_full_disk_is_reported_not_a_panic() {
    let html = std::env::temp_dir().join(format!("softosa-stdout-{}.html", std::process::id()));
    let profile = repo("examples/profiles/iwq-dynamic-workloadq.prof");
    let commands: Vec<Vec<OsString>> = vec![
        vec!["sim".into(), "-q".into(), scenario().into()],
        vec![
            "display".into(),
            "osainfo".into(),
            "--profile".into(),
            profile.clone().into(),
        ],
        vec![
            "replay".into(),
            repo("crates/replay/tests/data/mix.pcap").into(),
            "--profile".into(),
            profile.into(),
        ],
        vec![
            "reproduce".into(),
            "--only".into(),
            "olm-rr1".into(),
            "--html".into(),
            html.clone().into(),
        ],
    ];
    for c in &commands {
        let Some(out) = run_into_full_disk(c) else {
            return;
        };
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{c:?}: stderr: {err}");
        assert!(err.contains("writing the output"), "{c:?}: stderr: {err}");
        assert!(!err.contains("panicked"), "{c:?}: stderr: {err}");
    }
    let _ = std::fs::remove_file(html);
}

#[test]
fn a_reader_that_went_away_ends_the_output_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_softosa"))
        .args(["sim", "-q"])
        .arg(scenario())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the softosa binary runs");
    // Close the read end before the run has printed anything.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("softosa finishes");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
    assert!(err.is_empty(), "stderr: {err}");
}
