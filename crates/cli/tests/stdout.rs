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
            "profile".into(),
            "check".into(),
            repo("examples/profiles/basic-osa.prof").into(),
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

/// Every example profile, for a `profile check` whose summary is longer
/// than one line.
fn example_profiles() -> Vec<OsString> {
    let mut files: Vec<OsString> = std::fs::read_dir(repo("examples/profiles"))
        .expect("examples/profiles is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "prof"))
        .map(PathBuf::into_os_string)
        .collect();
    files.sort();
    files
}

#[test]
fn a_reader_that_went_away_ends_the_output_quietly() {
    let mut check: Vec<OsString> = vec!["profile".into(), "check".into()];
    check.extend(example_profiles());
    let commands: Vec<Vec<OsString>> = vec![
        vec!["sim".into(), "-q".into(), scenario().into()],
        check,
        vec![
            "profile".into(),
            "convert".into(),
            repo("examples/profiles/legacy-device-link.prof").into(),
        ],
    ];
    for c in &commands {
        let mut child = Command::new(env!("CARGO_BIN_EXE_softosa"))
            .args(c)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the softosa binary runs");
        // Close the read end before the command has printed anything.
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("softosa finishes");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{c:?}: stderr: {err}");
        // Warnings about the inputs may be there; no error of softosa's own.
        assert!(
            !err.lines().any(|l| l.starts_with("softosa:")),
            "{c:?}: stderr: {err}"
        );
        assert!(!err.contains("panicked"), "{c:?}: stderr: {err}");
    }
}

/// Run softosa with its stderr a pipe nobody reads (the reader closed
/// before it starts, as `2>&1 | head -1` leaves it once head is done).
fn run_with_stderr_gone(args: &[OsString]) -> std::process::Output {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe() fills both descriptors on success; each is then owned
    // by exactly one OwnedFd.
    let (reader, writer) = unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0, "a pipe");
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    };
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_softosa"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(writer)
        .output()
        .expect("the softosa binary runs")
}

#[test]
fn a_closed_stderr_is_not_a_panic() {
    // Each writes to stderr: an error message, progress lines, a warning.
    let bad = std::env::temp_dir().join(format!("softosa-stderr-{}.toml", std::process::id()));
    std::fs::write(&bad, "name = 1\n").unwrap();
    for (args, code) in [
        (vec!["sim".into(), bad.clone().into()], 1),
        (
            vec![
                "reproduce".into(),
                "--only".into(),
                "olm-rr1".into(),
                "--html".into(),
                bad.with_extension("html").into(),
            ],
            0,
        ),
        (
            vec![
                "profile".into(),
                "check".into(),
                repo("nonexistent.prof").into(),
            ],
            1,
        ),
        (vec!["lab".into(), "--secs".into(), "0".into()], 2),
    ] {
        let args: Vec<OsString> = args;
        let out = run_with_stderr_gone(&args);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {:?}", out.status);
    }
    let _ = std::fs::remove_file(bad.with_extension("html"));
    let _ = std::fs::remove_file(&bad);
}
