//! The `softosa` binary on inputs a user gets wrong (front end): a usage
//! error exits 2 as clap's own do, an error in an input file exits 1 with a
//! message, option values are case-insensitive, and an input that is not
//! a text file is refused without reading it whole.

use std::path::PathBuf;
use std::process::{Command, Output};

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

fn softosa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_softosa"))
        .args(args)
        .current_dir(repo(""))
        .output()
        .expect("the softosa binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `softosa ARGS`, which must exit 2 (a usage error) saying `says` on
/// standard error; its output, for further checks.
fn refused_as_usage(args: &[&str], says: &str) -> Output {
    let o = softosa(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    o
}

const QUICK: &str = "scenarios/quick-rr.toml";
const PROFILE: &str = "examples/profiles/iwq-dynamic-workloadq.prof";
const CAPTURE: &str = "crates/replay/tests/data/mix.pcap";

#[test]
fn usage_errors_exit_2_and_input_errors_exit_1() {
    for (args, says) in [
        (
            vec!["sim", "-q", QUICK, "--format", "csv", "--display", "tuning"],
            "cannot be combined",
        ),
        (vec!["sim", "-q", QUICK, "--display", "nope"], "\"nope\""),
        (
            vec![
                "sim",
                "-q",
                QUICK,
                "--display",
                "tuning",
                "--display",
                "vtam",
            ],
            "--display tuning is given twice",
        ),
        (vec!["sim", "-q", QUICK, "--format", "yaml"], "yaml"),
        (
            vec![
                "display",
                "devlinks",
                "--format",
                "yaml",
                "--profile",
                PROFILE,
            ],
            "yaml",
        ),
        (vec!["display", "devlinks"], "needs --profile"),
        (
            vec!["reproduce", "--only", "no-such-entry"],
            "no-such-entry",
        ),
        (vec!["reproduce", "--seeds", "21"], "1..=20"),
        (
            vec![
                "display",
                "devlinks",
                "--profile",
                PROFILE,
                "--clock",
                "18446744073709551615",
            ],
            "--clock",
        ),
        (
            vec![
                "display",
                "osainfo",
                "--profile",
                PROFILE,
                "--code-level",
                "ZZZZ",
            ],
            "four hex digits",
        ),
        (
            vec!["profile", "check", "--stack", "FOO", PROFILE],
            "NAME=FILE",
        ),
        (
            vec![
                "profile",
                "convert",
                "examples/profiles/legacy-device-link.prof",
                "--prefix",
                "L1",
            ],
            "LINK=LEN",
        ),
        (
            vec![
                "display",
                "osainfo",
                "--profile",
                "examples/profiles/hipersockets-multiwrite.prof",
                "--intf",
                "HSINTF1",
            ],
            "applies to OSA-Express interfaces only",
        ),
        (
            vec![
                "replay",
                CAPTURE,
                "--profile",
                PROFILE,
                "--annotate-mode",
                "OLM",
            ],
            "--annotate",
        ),
        (
            vec![
                "replay",
                CAPTURE,
                "--profile",
                PROFILE,
                "-o",
                "same.out",
                "--html",
                "same.out",
            ],
            "also given to --output",
        ),
        (
            vec!["replay", CAPTURE, "--profile", PROFILE, "-i", "NOPE"],
            "no interface named NOPE",
        ),
        (
            vec![
                "replay",
                CAPTURE,
                "--profile",
                PROFILE,
                "--annotate",
                CAPTURE,
            ],
            "writing it would destroy it",
        ),
        (
            vec![
                "replay",
                CAPTURE,
                "--profile",
                PROFILE,
                "-o",
                "no-such-directory/out.txt",
            ],
            "does not exist",
        ),
        // The same rule for sim: an output path, a [vary] from the command
        // line that cannot be run, and --vary against a file's own [vary].
        (
            vec!["sim", QUICK, "--html", "no-such-directory/r.html"],
            "does not exist",
        ),
        (
            vec!["reproduce", "--html", "no-such-directory/r.html"],
            "does not exist",
        ),
        (
            vec![
                "sim",
                QUICK,
                "--vary",
                "connections=1,10",
                "--vary-on",
                "NOPE",
            ],
            "which is not a workload's name",
        ),
        (
            vec!["sim", QUICK, "--vary", "connections=1,many"],
            "--vary connections",
        ),
        (
            vec![
                "sim",
                "scenarios/inbperf-modes.toml",
                "--vary",
                "inbperf=BALANCED,DYNAMIC",
            ],
            "has a [vary] of its own",
        ),
        (
            vec![
                "sim",
                QUICK,
                "--seed",
                "18446744073709551615",
                "--seeds",
                "3",
            ],
            "pass the largest seed",
        ),
    ] {
        refused_as_usage(&args, says);
    }
    // A profile convert whose result would not pass profile check: two
    // LINKs of one DEVICE become two interfaces on one port without VLANIDs.
    let dir = std::env::temp_dir().join(format!("softosa-convert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let shared = dir.join("shared.prof");
    std::fs::write(
        &shared,
        "DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1\nLINK L2 IPAQENET D1\nHOME 192.0.2.1 L1\n 192.0.2.2 L2\n",
    )
    .expect("write a profile");
    let shared = shared.to_str().expect("a UTF-8 temporary directory");
    let o = softosa(&[
        "profile", "convert", shared, "--prefix", "L1=24", "--prefix", "L2=24",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("shared.prof:3:6: error: interface L2: VLANID is required"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
    let missing = std::env::temp_dir().join("softosa-no-such-scenario.toml");
    let missing = missing.to_str().expect("a UTF-8 temporary directory");
    let o = softosa(&["sim", "-q", missing]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
}

#[test]
fn lab_option_errors_are_usage_errors() {
    // Checked before the root and tool checks, so this runs anywhere; a
    // wrong value or a combination the lab cannot run exits 2 like clap's.
    for (args, says) in [
        (vec!["lab", "--secs", "0"], "--secs 0"),
        (vec!["lab", "--inbperf", "FAST"], "unknown INBPERF"),
        (vec!["lab", "--compare", "DYNAMIC"], "two or more"),
        (vec!["lab", "--streams", "0", "--rr", "0"], "nothing to run"),
        (vec!["lab", "--rr-stack", "2"], "--sharing one has 1 stack"),
        (vec!["lab", "--instance", "../x"], "instance name"),
        (
            vec!["lab", "--rr", "0", "--rr-size", "100"],
            "--rr 0 with --rr-size",
        ),
        (
            vec!["lab", "--rr", "0", "--rr-cpus", "0", "--bench"],
            "--rr 0 with --rr-cpus",
        ),
        (vec!["lab", "--clean", "--secs", "5"], "cannot be used with"),
        (
            vec!["lab", "--cpus", "0,0"],
            "invalid value '0,0' for '--cpus <LIST>': CPU 0 is listed twice",
        ),
        (
            vec!["lab", "--rr-cpus", "4096"],
            "--rr-cpus 4096: CPU 4096 is not one this process may run on",
        ),
        (
            vec!["lab", "--log", "foo[["],
            "invalid value 'foo[[' for '--log <LOG>': not a log filter",
        ),
        (
            vec!["display", "tuning", "--instance", "../x"],
            "instance name",
        ),
    ] {
        refused_as_usage(&args, says);
    }
    // An instance that is not running is not a usage error.
    let o = softosa(&["display", "tuning", "--instance", "softosa-test-none"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn a_missing_lab_socket_is_named_by_the_option_given() {
    // The hint used to suggest `--instance lab` to a user who gave --socket.
    let missing = std::env::temp_dir().join("softosa-no-such-lab.sock");
    let missing = missing.to_str().expect("a UTF-8 temporary directory");
    let o = softosa(&["display", "tuning", "--socket", missing]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let said = format!("softosa: --socket: there is no {missing}; a lab opens /run/softosa/");
    assert!(stderr(&o).starts_with(&said), "{}", stderr(&o));
    assert!(!stderr(&o).contains("--instance lab"), "{}", stderr(&o));
    let o = softosa(&["display", "tuning", "--instance", "softosa-test-none"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with("softosa: no lab named \"softosa-test-none\" is running"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn lab_switches_and_their_negations_do_not_mix() {
    // `--per-cpu --no-per-cpu` used to run with whichever came last.
    for args in [
        ["lab", "--per-cpu", "--no-per-cpu"],
        ["lab", "--no-wake-qos", "--wake-qos"],
    ] {
        let o = softosa(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        for name in &args[1..] {
            assert!(
                stderr(&o).contains(&format!("'{name}'")),
                "{args:?}: {}",
                stderr(&o)
            );
        }
    }
}

#[test]
fn lab_per_cpu_is_refused_before_anything_is_built_where_it_cannot_work() {
    // These once ran the normal layout after a warning printed while the
    // network was being built.
    let cpu = softosa_live::sys::allowed_cpus()
        .ok()
        .and_then(|c| c.first().copied())
        .unwrap_or(0)
        .to_string();
    let one_cpu = format!("--cpus {cpu} is one CPU");
    for (args, says) in [
        (
            vec!["lab", "--per-cpu", "--sharing", "vmac"],
            "--per-cpu with --sharing vmac (2 stacks)",
        ),
        (
            vec!["lab", "--per-cpu", "--inbperf", "dynamic-workloadq"],
            "--per-cpu with INBPERF DYNAMIC-WORKLOADQ",
        ),
        (
            vec!["lab", "--per-cpu", "--timer-thread"],
            "--per-cpu with --timer-thread",
        ),
        (vec!["lab", "--per-cpu", "--cpus", &cpu], &one_cpu),
    ] {
        let o = refused_as_usage(&args, says);
        assert!(!stderr(&o).contains("run 1 of"), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn lab_per_cpu_with_two_profile_stacks_is_refused_before_the_first_run() {
    // The profiles' stacks are known once they are read, after the root
    // and tool checks: this needs a machine that passes them.
    if let Err(why) = softosa_live::lab::preflight(false, true) {
        eprintln!("skipped: {why}");
        return;
    }
    let args = [
        "lab",
        "--per-cpu",
        "--rr",
        "1",
        "--streams",
        "0",
        "--profile",
        "crates/live/examples/profiles/lab-share-a.prof",
        "crates/live/examples/profiles/lab-share-b.prof",
    ];
    let o = softosa(&args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--per-cpu with --profile files that define 2 interfaces"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("run 1 of"), "{}", stderr(&o));
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn a_live_display_refuses_options_it_would_ignore() {
    // What a running lab's displays do not honour is refused, not dropped
    // (before the socket is asked, so no lab needs to run).
    // --max belongs to osainfo, with a lab as with a profile.
    refused_as_usage(
        &[
            "display",
            "devlinks",
            "--instance",
            "softosa-test-none",
            "--max",
            "5",
        ],
        "applies to osainfo only",
    );
    for (flag, value) in [("--clock", "0"), ("--code-level", "0001")] {
        let args = [
            "display",
            "tuning",
            "--instance",
            "softosa-test-none",
            flag,
            value,
        ];
        refused_as_usage(&args, flag);
    }
}

#[test]
fn a_lab_only_display_for_a_profile_points_to_the_lab() {
    let prof = repo("examples/profiles/basic-osa.prof");
    let prof = prof.to_string_lossy();
    for kind in ["queues", "Driver", "placement"] {
        let o = refused_as_usage(&["display", kind, "--profile", &prof], "--instance");
        assert!(stderr(&o).contains("running lab"), "{}", stderr(&o));
    }
}

#[test]
fn a_live_display_of_one_interface_exits_as_a_profile_display_does() {
    let o = softosa_live::lab::LabOptions {
        sharing: softosa_live::lab::Sharing::Vmac,
        ..Default::default()
    };
    // A lab engine's displays (two stacks: TCPIP1/OSAQDIO1,
    // TCPIP2/OSAQDIO2) served on a control socket as a running lab serves
    // them.
    let core = softosa_live::engine_core::EngineCore::for_lab(&o).expect("lab engine");
    let dir = std::env::temp_dir().join(format!("softosa-live-intf-{}", std::process::id()));
    let sock = dir.join("t.sock");
    let served = std::sync::Arc::new(std::sync::Mutex::new(core));
    let s = softosa_live::control::Servers::start(served, Some(&sock), None).expect("serve");
    let sock_arg = sock.to_string_lossy().into_owned();
    let ask = |args: &[&str]| {
        let mut all = vec!["display", "devlinks", "--socket", &sock_arg];
        all.extend_from_slice(args);
        softosa(&all)
    };
    let one = ask(&["--intf", "TCPIP2/OSAQDIO2"]);
    assert!(one.status.success(), "{}", stderr(&one));
    let text = String::from_utf8_lossy(&one.stdout);
    assert!(
        text.contains("OSAQDIO2") && !text.contains("OSAQDIO1"),
        "{text}"
    );
    // One the lab does not have: exit 2 and the interfaces it has, on
    // stderr, as for a profile.
    let none = ask(&["--intf", "QDIO4101L"]);
    assert_eq!(none.status.code(), Some(2), "{}", stderr(&none));
    assert!(
        none.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&none.stdout)
    );
    assert!(
        stderr(&none).starts_with("softosa: no interface or stack named \"QDIO4101L\""),
        "{}",
        stderr(&none)
    );
    assert!(
        stderr(&none).contains("interfaces: TCPIP1/OSAQDIO1, TCPIP2/OSAQDIO2"),
        "{}",
        stderr(&none)
    );
    let offline = softosa(&[
        "display",
        "devlinks",
        "--profile",
        PROFILE,
        "--intf",
        "NOSUCH",
    ]);
    assert_eq!(offline.status.code(), none.status.code());
    // So is a display the lab does not have, and a target for a display
    // of the whole adapter.
    let kind = softosa(&["display", "nosuch", "--socket", &sock_arg]);
    assert_eq!(kind.status.code(), Some(2), "{}", stderr(&kind));
    let counters = softosa(&[
        "display", "counters", "--socket", &sock_arg, "--intf", "OSAQDIO1",
    ]);
    assert_eq!(counters.status.code(), Some(2), "{}", stderr(&counters));
    assert!(
        stderr(&counters).contains("whole adapter"),
        "{}",
        stderr(&counters)
    );
    drop(s);
    let _ = std::fs::remove_dir(dir);
}

#[test]
fn option_values_are_case_insensitive() {
    let upper = softosa(&["sim", "-q", QUICK, "--format", "JSON"]);
    assert!(upper.status.success(), "{}", stderr(&upper));
    let lower = softosa(&["sim", "-q", QUICK, "--format", "json"]);
    assert_eq!(upper.stdout, lower.stdout);
    let v: serde_json::Value = serde_json::from_slice(&upper.stdout).expect("JSON");
    assert!(v["variants"].is_array(), "{v}");
}

#[test]
fn a_device_named_as_a_scenario_is_refused_not_read_whole() {
    if !std::path::Path::new("/dev/zero").exists() {
        eprintln!("skipped: this system has no /dev/zero");
        return;
    }
    let o = softosa(&["sim", "-q", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("larger than 16 MiB"), "{}", stderr(&o));
}

#[test]
fn stack_names_that_clash_or_name_nothing_are_usage_errors() {
    let a = "examples/profiles/two-stacks-a.prof";
    let b = "examples/profiles/two-stacks-b.prof";
    let policy = "examples/profiles/qos-policy.policy";
    let a_is_x = format!("X={a}");
    let b_is_x = format!("X={b}");
    let nosuch_policy = format!("NOSUCH={policy}");
    // Two profiles in two directories with one file name: one stack name.
    let dir = std::env::temp_dir().join(format!("softosa-stack-names-{}", std::process::id()));
    let (d1, d2) = (dir.join("one"), dir.join("two"));
    for (d, src) in [(&d1, a), (&d2, b)] {
        std::fs::create_dir_all(d).expect("temporary directory");
        std::fs::copy(repo(src), d.join("tcpip.prof")).expect("copy a profile");
    }
    let t1 = d1.join("tcpip.prof").display().to_string();
    let t2 = d2.join("tcpip.prof").display().to_string();
    // Said as a usage error (one line), with advice display can follow.
    let clash = format!(
        "softosa: two stacks are named TCPIP: {t1} and {t2}; display names each stack \
         after its profile's file, so name them (NAME=FILE, e.g. TCPIPA=a/tcpip.prof) or give \
         the files different names\n"
    );
    for (args, says) in [
        (
            vec![
                "profile", "check", a, b, "--stack", &a_is_x, "--stack", &b_is_x,
            ],
            "two stacks are named X",
        ),
        (
            vec!["profile", "check", a, "--stack", &b_is_x],
            "is not among the files to check",
        ),
        (
            vec!["profile", "check", a, b, "--policy", &nosuch_policy],
            "no stack NOSUCH is being checked",
        ),
        (
            vec![
                "display",
                "config",
                "--profile",
                PROFILE,
                "--stack",
                "NOSUCH",
            ],
            "no stack or interface named \"NOSUCH\"",
        ),
    ] {
        refused_as_usage(&args, says);
    }
    let o = refused_as_usage(
        &["display", "devlinks", "--profile", &t1, "--profile", &t2],
        "two stacks are named TCPIP",
    );
    assert_eq!(stderr(&o), clash);
    // Named as the advice says, the two stacks are shown apart.
    let (n1, n2) = (format!("TCPIPA={t1}"), format!("tcpipb={t2}"));
    let named = softosa(&["display", "devlinks", "--profile", &n1, "--profile", &n2]);
    let text = String::from_utf8_lossy(&named.stdout);
    assert!(named.status.success(), "{}", stderr(&named));
    assert!(
        text.contains("EZD0101I NETSTAT CS SOFTOSA TCPIPA\n")
            && text.contains("EZD0101I NETSTAT CS SOFTOSA TCPIPB\n"),
        "{text}"
    );
    // Not a procedure name (nine characters) before a file: said so.
    refused_as_usage(
        &[
            "display",
            "devlinks",
            "--profile",
            &format!("TOOLONGNM={t1}"),
        ],
        "\"TOOLONGNM\" is not a TCP/IP procedure name",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_profile_display_lists_its_diagnostics_in_line_order() {
    // The activation finds the missing START (line 1) after the errors of
    // lines 5 and 6; the message lists them by line, as profile check does.
    let dir = std::env::temp_dir().join(format!("softosa-diag-order-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let prof = dir.join("order.prof");
    std::fs::write(
        &prof,
        "INTERFACE X\n  DEFINE IPAQENET\n  IPADDR 192.0.2.1/24\n  PORTNAME P1\n  \
         INBPERF BALANCED WORKLOADQ\nSTART Y\n",
    )
    .expect("write a profile");
    let o = softosa(&[
        "display",
        "devlinks",
        "--profile",
        prof.to_str().expect("a UTF-8 temporary directory"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<(u32, u32)> = err
        .lines()
        .filter_map(|l| {
            let rest = l.split_once("order.prof:")?.1;
            let mut it = rest.split(':');
            Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
        })
        .collect();
    assert!(lines.len() >= 3, "{err}");
    assert!(lines.windows(2).all(|w| w[0] <= w[1]), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_are_shown_and_warnings_left_to_profile_check() {
    // A production-sized profile: 1,500 PORT reservations (each a "not
    // modelled" warning) and one typo at the end.
    let dir = std::env::temp_dir().join(format!("softosa-many-warn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let prof = dir.join("big.prof");
    let mut text = String::new();
    for p in 0..1500 {
        text.push_str(&format!("PORT {} TCP JOB{p}\n", 2000 + p));
    }
    text.push_str(
        "INTERFACE X DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 INBPREF DYNAMIC\nSTART X\n",
    );
    std::fs::write(&prof, &text).expect("write a profile");
    let p = prof.to_str().expect("a UTF-8 temporary directory");
    // profile check keeps the error although the warnings fill its list.
    let o = softosa(&["profile", "check", p]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("unknown parameter INBPREF"),
        "{}",
        stderr(&o)
    );
    // A display lists the errors alone.
    let o = softosa(&["display", "devlinks", "--profile", p]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("unknown parameter INBPREF"), "{err}");
    assert!(!err.contains("warning"), "{err}");
    assert!(err.lines().count() < 10, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_simulated_hosts_profile_warnings_are_summarised() {
    let dir = std::env::temp_dir().join(format!("softosa-sim-warn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut prof = String::new();
    for p in 0..40 {
        prof.push_str(&format!("PORT {} TCP JOB{p}\n", 2000 + p));
    }
    prof.push_str("INTERFACE X DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\nSTART X\n");
    std::fs::write(dir.join("host.prof"), prof).expect("write a profile");
    let scenario = "duration_ms = 5\nwarmup_ms = 1\n\
        [[host]]\nname = \"zos\"\ntype = \"zos\"\nip = \"192.0.2.1\"\nprofile = \"host.prof\"\n\
        [[host]]\nname = \"aix\"\ntype = \"aix\"\nip = \"192.0.2.10\"\n\
        [[workload]]\ntype = \"RR\"\nconnections = 1\nrequest = 100\nresponse = 100\n\
        client = \"aix\"\nserver = \"zos\"\n";
    let file = dir.join("s.toml");
    std::fs::write(&file, scenario).expect("write a scenario");
    let o = softosa(&["sim", "-q", file.to_str().expect("UTF-8")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.matches("is not modelled").count(), 3, "{err}");
    assert!(err.contains("... and 37 more profile warnings"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn devlinks_shows_the_coded_secclass_monsysplex_and_source_vipa() {
    let dir = std::env::temp_dir().join(format!("softosa-srcvipa-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let prof = dir.join("sv.prof");
    std::fs::write(
        &prof,
        "INTERFACE VIPA1 DEFINE VIRTUAL IPADDR 10.1.1.99\n\
         INTERFACE O1 DEFINE IPAQENET PORTNAME P1 IPADDR 192.0.2.1/24\n\
         \x20 SOURCEVIPAINTERFACE VIPA1 SECCLASS 7 MONSYSPLEX\n\
         INTERFACE O2 DEFINE IPAQENET PORTNAME P2 IPADDR 192.0.3.1/24\n\
         START O1\nSTART O2\n",
    )
    .expect("write a profile");
    let p = prof.to_str().expect("UTF-8");
    let o = softosa(&["display", "devlinks", "--profile", p]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let o1 = &out[out.find("INTFNAME: O1").expect("O1")..out.find("INTFNAME: O2").expect("O2")];
    assert!(
        o1.contains("SECCLASS: 7 ") && o1.contains("MONSYSPLEX: YES"),
        "{o1}"
    );
    assert!(o1.contains("SRCVIPAINTF: VIPA1"), "{o1}");
    // Not coded: the defaults, and no SRCVIPAINTF line.
    let o2 = &out[out.find("INTFNAME: O2").expect("O2")..];
    assert!(
        o2.contains("SECCLASS: 255") && o2.contains("MONSYSPLEX: NO"),
        "{o2}"
    );
    assert!(!o2.contains("SRCVIPAINTF"), "{o2}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// profile check's summary names a stack's VIPAs (which its interfaces
/// register with the adapter), the first 20 of them and a count of the rest.
#[test]
fn profile_check_lists_a_stacks_vipas() {
    let dir = std::env::temp_dir().join(format!("softosa-vipas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let prof = dir.join("v.prof");
    let mut text = String::from(
        "DEVICE VD VIRTUAL 0\nLINK VL VIRTUAL 0 VD\n\
         INTERFACE X DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\nSTART X\nHOME\n",
    );
    for k in 1..=22 {
        text.push_str(&format!(" 10.9.9.{k} VL\n"));
    }
    std::fs::write(&prof, &text).expect("write a profile");
    let o = softosa(&["profile", "check", prof.to_str().expect("UTF-8")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let line = out
        .lines()
        .find(|l| l.starts_with("  VIPAs: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.starts_with("  VIPAs: 10.9.9.1 10.9.9.2 10.9.9.3 "),
        "{line}"
    );
    assert!(line.ends_with(" ... and 2 more"), "{line}");
    assert_eq!(line.split_whitespace().count(), 1 + 20 + 4, "{line}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `sim --html` naming the scenario, or a profile file it reads, would
/// replace the input with the report: refused before the run, through a
/// link too, and the file is left as it was.
#[test]
fn sim_html_never_overwrites_its_inputs() {
    let dir = std::env::temp_dir().join(format!("softosa-html-in-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("profiles")).expect("scratch dir");
    let scenario = dir.join("s.toml");
    let text = std::fs::read_to_string(repo("scenarios/profile-file.toml")).expect("scenario");
    std::fs::write(&scenario, &text).expect("copy");
    for entry in std::fs::read_dir(repo("scenarios/profiles")).expect("profiles") {
        let p = entry.expect("entry").path();
        std::fs::copy(&p, dir.join("profiles").join(p.file_name().expect("name"))).expect("copy");
    }
    let link = dir.join("link.html");
    std::os::unix::fs::symlink(&scenario, &link).expect("symlink");
    let profile = dir.join("profiles/zosb-iwq.prof");
    let before = std::fs::read(&profile).expect("profile");
    let s = scenario.to_str().expect("utf-8");
    for out in [&scenario, &link, &profile] {
        let o = refused_as_usage(
            &[
                "sim",
                "-q",
                s,
                "--duration-ms",
                "5",
                "--html",
                out.to_str().expect("utf-8"),
            ],
            "writing the report there would destroy it",
        );
        assert!(o.stdout.is_empty());
    }
    assert_eq!(std::fs::read_to_string(&scenario).expect("scenario"), text);
    assert_eq!(std::fs::read(&profile).expect("profile"), before);
    // Another file is written.
    let html = dir.join("r.html");
    let o = softosa(&[
        "sim",
        "-q",
        s,
        "--duration-ms",
        "5",
        "--html",
        html.to_str().expect("utf-8"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&html)
        .expect("report")
        .contains("<html"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `sim --display` on a scenario without an OSA says why there is none:
/// no z/OS host at all, or z/OS hosts only on HiperSockets.
#[test]
fn a_display_without_an_osa_says_why() {
    for (scenario, why) in [
        ("scenarios/zvm-vswitch.toml", "(it has no z/OS host)"),
        (
            "scenarios/smc-d-hipersockets.toml",
            "(its z/OS hosts are on HiperSockets, which has no OSA to display)",
        ),
    ] {
        let o = softosa(&[
            "sim",
            "-q",
            scenario,
            "--duration-ms",
            "1",
            "--display",
            "devlinks",
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains(why), "{scenario}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
}

/// display refuses one file given twice, by any spelling, as profile
/// check does: it would be read against itself.
#[test]
fn display_refuses_a_file_given_twice() {
    let trl = "examples/profiles/osa.trl";
    for second in [trl.to_string(), format!("./{trl}")] {
        refused_as_usage(
            &[
                "display",
                "trle",
                "--profile",
                PROFILE,
                "--profile",
                trl,
                "--profile",
                &second,
            ],
            "is given twice (--profile 2 and 3)",
        );
    }
    let o = softosa(&["display", "trle", "--profile", PROFILE, "--profile", trl]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// CFGROUTER is the role the profile codes, ACTROUTER the one in effect:
/// beside a VMAC the coded PRIROUTER is shown and not used.
#[test]
fn devlinks_shows_a_coded_router_role_beside_a_vmac_as_not_active() {
    let o = softosa(&[
        "display",
        "devlinks",
        "--profile",
        "examples/profiles/two-stacks-a.prof",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("CFGROUTER: PRI                   ACTROUTER: NON"),
        "{out}"
    );
}
