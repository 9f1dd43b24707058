//! Activation across stacks (shared ports, OLM refusal, read storage from
//! QDIOSTG) and the `profile check` / `profile convert` commands end to end.

use std::path::PathBuf;
use std::process::ExitCode;

use softosa_engine::config as ec;
use softosa_profile::activate::{activate, ActivateOptions, StackInput, StackNameClash};
use softosa_profile::cli::{run_check, run_convert, CheckArgs, CliError, ConvertArgs};
use softosa_profile::print::print_profile;
use softosa_profile::trle::parse_trl;
use softosa_profile::*;

fn prof(name: &str, src: &str) -> Profile {
    let (p, d) = parse_profile(name, src);
    assert!(!d.has_errors(), "{:?}", d.items());
    p
}

/// The stack `name` of `profile`, without a policy.
fn stack<'a>(name: &str, profile: &'a Profile) -> StackInput<'a> {
    StackInput {
        name: name.into(),
        profile,
        policy: None,
    }
}

#[test]
fn olm_limit_refuses_activation_of_the_fifth_stack() {
    let profs: Vec<Profile> = (1..=5)
        .map(|i| {
            prof(
                &format!("s{i}.prof"),
                &format!(
                    "INTERFACE I{i} DEFINE IPAQENET IPADDR 192.0.2.{i}/24 PORTNAME SHARED{}\n",
                    if i == 3 { " OLM" } else { "" }
                ),
            )
        })
        .collect();
    let inputs: Vec<StackInput<'_>> = profs
        .iter()
        .enumerate()
        .map(|(i, p)| stack(&format!("TCPIP{i}"), p))
        .collect();
    let err = activate(&inputs, &[], &ActivateOptions::default()).expect_err("refused");
    let v: Vec<String> = err.items().iter().map(|x| x.to_string()).collect();
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].starts_with("s5.prof:1:11: error: interface I5: refused, OSA port SHARED"),
        "{v:?}"
    );
    // Four stacks activate, on one shared port.
    let ok = activate(&inputs[..4], &[], &ActivateOptions::default()).expect("four fit");
    assert_eq!(ok.config.ports.len(), 1);
    assert_eq!(ok.config.interfaces.len(), 4);
    assert!(ok.config.interfaces.iter().all(|i| i.port == 0));
    // A larger engine limit lets five in.
    let mut o = ActivateOptions::default();
    o.tuning.olm.max_per_port = 5;
    assert!(activate(&inputs, &[], &o).is_ok());
}

#[test]
fn readstorage_global_follows_qdiostg() {
    // Two interfaces of one stack on a port: on two VLANs, as z/OS requires.
    let p = prof("a.prof", "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 VLANID 1\nINTERFACE B DEFINE IPAQENET IPADDR 192.0.3.1/24 PORTNAME P1 VLANID 2 READSTORAGE MAX\n");
    let (t, td) = parse_trl("v.trl", "QDIOSTG=MIN\n");
    assert!(!td.has_errors());
    let a = activate(&[stack("S", &p)], &[&t], &ActivateOptions::default()).expect("activates");
    assert_eq!(a.config.interfaces[0].read_storage_sbals, 16);
    assert!(a.config.interfaces[0].read_storage_global);
    assert_eq!(a.config.interfaces[1].read_storage_sbals, 64);
    assert!(!a.config.interfaces[1].read_storage_global);
    assert_eq!(a.config.ports[0].sbal_bytes(), 65536);
}

#[test]
fn port_facts_come_from_trle_and_options() {
    let p = prof(
        "a.prof",
        "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 VMAC 020000000001\n",
    );
    let (t, _) = parse_trl("v.trl", "T1 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(100),WRITE=(101),DATAPATH=(102),PORTNAME=(P1,1),CHPID=2A\n");
    let mut o = ActivateOptions::default();
    o.ports.insert(
        "P1".into(),
        softosa_profile::activate::PortOverride {
            generation: Some(ec::OsaGeneration::Express6S),
            speed_mbps: Some(10_000),
            physical_mac: Some(ec::Mac([0x64, 0x3B, 0x88, 0xF3, 0, 0])),
            chpid: None,
        },
    );
    let a = activate(&[stack("S", &p)], &[&t], &o).expect("ok");
    let port = &a.config.ports[0];
    assert_eq!((port.chpid, port.port_num), (0x2A, 1));
    assert_eq!(port.generation(), Some(ec::OsaGeneration::Express6S));
    assert_eq!(port.physical_mac.to_string(), "643B88F30000");
    assert_eq!(
        a.config.interfaces[0].vmac.and_then(|v| v.mac).map(|m| m.0),
        Some([2, 0, 0, 0, 0, 1])
    );
}

#[test]
fn activation_refuses_profiles_with_errors() {
    let (p, _) = parse_profile(
        "bad.prof",
        "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1 PORTNAME P1\n",
    );
    let e =
        activate(&[stack("S", &p)], &[], &ActivateOptions::default()).expect_err("prefix missing");
    assert!(e.items()[0]
        .to_string()
        .starts_with("bad.prof:1:36: error:"));
}

fn tmp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("softosa-profile-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

/// What a command printed: its exit code, standard output and error.
type Printed = (ExitCode, String, String);

/// A command run on in-memory standard output and error.
fn printed(
    run: impl FnOnce(&mut Vec<u8>, &mut Vec<u8>) -> Result<ExitCode, CliError>,
) -> Result<Printed, CliError> {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run(&mut out, &mut err)?;
    Ok((
        code,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    ))
}

/// `profile check FILES --stack STACKS --policy POLICIES`.
fn check_args(
    files: Vec<PathBuf>,
    stacks: &[String],
    policies: &[String],
) -> Result<Printed, CliError> {
    let a = CheckArgs {
        files,
        stacks: stacks.to_vec(),
        policies: policies.to_vec(),
        quiet: false,
    };
    printed(|out, err| run_check(&a, out, err))
}

fn check(files: Vec<PathBuf>) -> Printed {
    check_args(files, &[], &[]).expect("runs")
}

/// `profile convert FILE --prefix PREFIXES`.
fn convert(file: PathBuf, prefixes: &[&str]) -> Result<Printed, CliError> {
    let a = ConvertArgs {
        file,
        prefixes: prefixes.iter().map(|p| p.to_string()).collect(),
    };
    printed(|out, err| run_convert(&a, out, err))
}

#[test]
fn check_prints_diagnostics_and_fails() {
    let f = tmp("bad.prof", "; bad\nINTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n  INBPERF BALANCED WORKLOADQ\nGLOBALCONFIG ZIIP IQDIOMULTIWRITE\n");
    let (code, out, err) = check(vec![f.clone()]);
    assert_eq!(code, ExitCode::from(1));
    assert!(out.is_empty());
    let shown = f.display().to_string();
    assert!(
        err.contains(&format!(
            "{shown}:3:20: error: interface A: WORKLOADQ requires INBPERF DYNAMIC"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{shown}:3:20: error: interface A: WORKLOADQ requires a VMAC"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{shown}:4:19: warning: GLOBALCONFIG ZIIP IQDIOMULTIWRITE is ignored"
        )),
        "{err}"
    );
    assert!(err.contains("2 error(s), 1 warning(s)"), "{err}");
    let missing = PathBuf::from("/nonexistent/softosa.prof");
    let (code, _, err) = check(vec![missing]);
    assert_eq!(code, ExitCode::from(1));
    assert!(
        err.starts_with("/nonexistent/softosa.prof: error: cannot read the file"),
        "{err}"
    );
}

/// A profile whose error only activation finds, beside a warning the
/// check found first: the warning is printed once.
#[test]
fn check_prints_a_warning_once_when_activation_fails() {
    let f = tmp(
        "iqd-link.prof",
        "DEVICE FOO MPCIPA\nLINK L1 IPAQIDIO FOO\nHOME 10.1.1.1 L1\nGLOBALCONFIG ZIIP IQDIOMULTIWRITE\nSTART FOO\n",
    );
    let (code, out, err) = check(vec![f.clone()]);
    assert_eq!(code, ExitCode::from(1));
    assert!(out.is_empty(), "{out}");
    let shown = f.display().to_string();
    let warning = format!("{shown}:4:19: warning: GLOBALCONFIG ZIIP IQDIOMULTIWRITE is ignored");
    assert_eq!(err.matches(&warning).count(), 1, "{err}");
    assert_eq!(
        err.matches(&format!(
            "{shown}:2:18: error: activation: LINK L1 IPAQIDIO: device FOO is not named IUTIQDxx"
        ))
        .count(),
        1,
        "{err}"
    );
}

#[test]
fn check_summarises_shared_ports() {
    let a = tmp(
        "tcpipa.prof",
        "; A\nINTERFACE SA DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME PX VMAC\n",
    );
    let b = tmp(
        "tcpipb.prof",
        "; B\nINTERFACE SB DEFINE IPAQENET IPADDR 192.0.2.2/24 PORTNAME PX VMAC\n",
    );
    let (code, out, err) = check(vec![a, b]);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    assert!(
        out.starts_with("OK: 2 stack(s), 2 interface(s), 1 port(s)"),
        "{out}"
    );
    assert!(
        out.contains("Port PX CHPID 10 port 0 OSD OSA-E3 1000 Mb/s: TCPIPA/SA, TCPIPB/SB"),
        "{out}"
    );
}

/// The summary lists each stack's interfaces under it, and each port's
/// users, of every stack, in activation order (stack by stack,
/// INTERFACEs then LINKs).
#[test]
fn check_summary_lists_interfaces_by_stack_and_port() {
    let a = tmp(
        "stacka.prof",
        "INTERFACE A1 DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P2 VMAC\n\
         INTERFACE A2 DEFINE IPAQENET IPADDR 192.0.3.1/24 PORTNAME p1 VMAC\n\
         DEVICE P3 MPCIPA\nLINK A3 IPAQENET p3\nHOME 192.0.4.1 A3\n",
    );
    let b = tmp(
        "stackb.prof",
        "DEVICE P1 MPCIPA\nLINK B1 IPAQENET P1 VMAC\nHOME 192.0.3.2 B1\n\
         INTERFACE B2 DEFINE IPAQENET IPADDR 192.0.2.2/24 PORTNAME P2 VMAC\n",
    );
    let (code, out, err) = check(vec![a, b]);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let listed: Vec<&str> = out
        .lines()
        .filter(|l| {
            l.starts_with("Stack ") || l.starts_with("  INTERFACE ") || l.starts_with("  LINK ")
        })
        .map(|l| l.split([':', '(']).next().unwrap_or(l).trim_end())
        .collect();
    assert_eq!(
        listed,
        [
            "Stack STACKA",
            "  INTERFACE A1 on P2",
            "  INTERFACE A2 on P1",
            "  LINK A3 on P3",
            "Stack STACKB",
            "  INTERFACE B2 on P2",
            "  LINK B1 on P1",
        ],
        "{out}"
    );
    let ports: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("Port "))
        .map(|l| l.rsplit(": ").next().unwrap_or(l))
        .collect();
    assert_eq!(
        ports,
        ["STACKA/A1, STACKB/B2", "STACKA/A2, STACKB/B1", "STACKA/A3"],
        "{out}"
    );
}

#[test]
fn convert_command_prints_the_interface() {
    let f = tmp("legacy.prof", "DEVICE QDIO4101 MPCIPA PRIROUTER\nLINK QDIO4101L IPAQENET QDIO4101 INBPERF DYNAMIC\nHOME 172.16.1.1 QDIO4101L\n");
    let (code, out, _) = convert(f.clone(), &["qdio4101l=24"]).expect("runs");
    assert_eq!(code, ExitCode::SUCCESS);
    assert!(out.contains("\nINTERFACE QDIO4101L DEFINE IPAQENET INBPERF DYNAMIC IPADDR 172.16.1.1/24 PORTNAME QDIO4101 PRIROUTER\n"), "{out}");
    assert!(convert(f, &["QDIO4101L"]).is_err());
}

/// The converted profile holds only what softosa models: when the file
/// codes more (PORT reservations, TCPCONFIG TTLS), the output says it is not
/// the whole profile, so that `> new.prof` is not taken as a replacement.
#[test]
fn convert_says_when_its_output_is_not_the_whole_profile() {
    let legacy = "DEVICE QDIO4101 MPCIPA PRIROUTER\nLINK QDIO4101L IPAQENET QDIO4101\n\
                  HOME 172.16.1.1 QDIO4101L\n";
    let f = tmp("whole.prof", legacy);
    let (code, out, err) = convert(f, &["QDIO4101L=24"]).expect("runs");
    assert_eq!(code, ExitCode::SUCCESS);
    assert!(!out.contains("NOT THE WHOLE PROFILE"), "{out}");
    assert!(!err.contains("leaves out"), "{err}");
    let f = tmp(
        "partial.prof",
        &format!("TCPCONFIG TTLS\nPORT 23 TCP TN3270\n    21 TCP FTPD1\n{legacy}"),
    );
    let (code, out, err) = convert(f, &["QDIO4101L=24"]).expect("runs");
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    assert!(
        out.contains("; NOT THE WHOLE PROFILE: 2 statement(s) or parameter(s)"),
        "{out}"
    );
    assert!(err.contains("leaves out 2 statement(s)"), "{err}");
    assert!(!out.contains("\nPORT "), "{out}");
    // More than the diagnostics kept: a lower bound, said as one.
    let ports: String = (0..1500)
        .map(|p| format!("PORT {} TCP J{p}\n", 2000 + p))
        .collect();
    let f = tmp("many.prof", &format!("{ports}{legacy}"));
    let (_, out, _) = convert(f, &["QDIO4101L=24"]).expect("runs");
    assert!(
        out.contains("; NOT THE WHOLE PROFILE: at least 1000 statement(s)"),
        "{}",
        &out[..out.len().min(600)]
    );
}

#[test]
fn convert_starts_every_link_of_a_started_device() {
    let f = tmp(
        "two-links.prof",
        "DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1\nLINK L2 IPAQENET D1\nHOME 192.0.2.1 L1\n 192.0.2.2 L2\nSTART D1\n",
    );
    let (_, out, _) = convert(f.clone(), &["L1=24", "L2=24"]).expect("runs");
    assert!(
        out.contains("\nSTART L1\n") && out.contains("\nSTART L2\n"),
        "{out}"
    );
    // A --prefix for no link of the profile, or for one link twice, would
    // be dropped unnoticed: refused.
    for prefixes in [
        vec!["L1=24", "L2=24", "NOPE=24"],
        vec!["L1=24", "L1=16", "L2=24"],
    ] {
        let e = convert(f.clone(), &prefixes)
            .expect_err("refused")
            .to_string();
        assert!(e.starts_with("--prefix"), "{prefixes:?}: {e}");
    }
}

#[test]
fn convert_checks_its_result_as_profile_check_would() {
    let run = |name: &str, text: &str, prefixes: &[&str]| {
        convert(tmp(name, text), prefixes).expect("runs")
    };
    // The spec example converts cleanly: nothing on standard error.
    let legacy = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/profiles/legacy-device-link.prof"),
    )
    .expect("example");
    let (code, out, err) = run("clean.prof", &legacy, &[]);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    assert!(err.is_empty(), "{err}");
    assert!(!out.contains("NOT READY"), "{out}");

    // Two links of one device become two interfaces on one port, which
    // need a VLANID each: the converted profile would not pass check.
    let (code, out, err) = run(
        "shared-device.prof",
        "DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1\nLINK L2 IPAQENET D1\nHOME 192.0.2.1 L1\n 192.0.2.2 L2\n",
        &["L1=24", "L2=24"],
    );
    assert_eq!(code, ExitCode::from(1), "{err}");
    assert!(
        err.contains("shared-device.prof:2:6: error: interface L1: VLANID is required: interface L2 of this stack is on port D1 too"),
        "{err}"
    );
    assert!(
        err.contains("shared-device.prof:3:6: error: interface L2: VLANID is required"),
        "{err}"
    );
    assert!(
        err.contains("2 error(s), 0 warning(s): the converted profile is not ready to use"),
        "{err}"
    );
    // The output still comes, marked as not ready to use.
    assert!(out.contains("; NOT READY: 2 error(s)"), "{out}");
    assert!(out.contains("\nINTERFACE L2 DEFINE IPAQENET"), "{out}");

    // WORKLOADQ, refused on a LINK, is carried over to the INTERFACE,
    // where it still needs a VMAC: reported at the WORKLOADQ of FILE.
    let (code, _, err) = run(
        "iwq.prof",
        "DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1 INBPERF DYNAMIC WORKLOADQ\nHOME 192.0.2.1 L1\n",
        &["L1=24"],
    );
    assert_eq!(code, ExitCode::from(1), "{err}");
    assert_eq!(err.matches(": error: ").count(), 1, "{err}");
    assert!(
        err.contains("iwq.prof:2:37: error: interface L1: WORKLOADQ requires a VMAC"),
        "{err}"
    );
}

#[test]
fn activate_files_reads_a_whole_set() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/profiles");
    let files: Vec<(Option<String>, PathBuf)> = vec![
        (Some("TCPIPA".into()), dir.join("two-stacks-a.prof")),
        (None, dir.join("two-stacks-b.prof")),
        (None, dir.join("osa.trl")),
        (None, dir.join("qos-policy.policy")),
    ];
    let a = softosa_profile::activate::activate_files(&files, &ActivateOptions::default())
        .expect("activates");
    assert_eq!(a.config.stacks[0].name, "TCPIPA");
    assert_eq!(a.config.stacks[1].name, "TWO-STACKS-B");
    assert!(a.config.stacks.iter().all(|s| s.tos_policy.is_some()));
    assert_eq!(a.config.ports.len(), 1);
    // The PRIROUTER-with-VMAC warning is kept.
    assert!(a
        .warnings
        .warnings()
        .any(|w| matches!(w.warning(), Some(WarningKind::RouterIgnoredWithVmac { .. }))));
    let bad = vec![(None, dir.join("does-not-exist.prof"))];
    assert!(softosa_profile::activate::activate_files(&bad, &ActivateOptions::default()).is_err());
}

/// `profile check` with --stack and --policy options; the error (if any)
/// as text, else the exit code and the summary.
fn check_with(
    files: Vec<PathBuf>,
    stacks: &[String],
    policies: &[String],
) -> Result<(ExitCode, String), String> {
    match check_args(files, stacks, policies) {
        Ok((code, out, _)) => Ok((code, out)),
        Err(e) => {
            assert!(e.is_usage(), "{e}");
            Err(e.to_string())
        }
    }
}

#[test]
fn stack_and_policy_options_must_name_what_is_checked() {
    let a = tmp(
        "name-a.prof",
        "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 VMAC\n",
    );
    let b = tmp(
        "name-b.prof",
        "INTERFACE B DEFINE IPAQENET IPADDR 192.0.2.2/24 PORTNAME P1 VMAC\n",
    );
    let pol = tmp(
        "name.policy",
        "SetSubnetPrioTosMask { SubnetTosMask 11100000 PriorityTosMapping 1 11100000 }\n",
    );
    let s = |x: &PathBuf| x.display().to_string();
    // Two files given one stack name: refused, not merged into one stack.
    let e = check_with(
        vec![a.clone(), b.clone()],
        &[format!("TCPIPA={}", s(&a)), format!("tcpipa={}", s(&b))],
        &[],
    )
    .expect_err("two stacks of one name");
    assert!(e.starts_with("two stacks are named tcpipa:"), "{e}");
    // The same by a --stack name equal to another file's stem.
    let e = check_with(
        vec![a.clone(), b.clone()],
        &[format!("NAME-B={}", s(&a))],
        &[],
    )
    .expect_err("a --stack name equal to another file's stem");
    assert!(e.starts_with("two stacks are named NAME-B:"), "{e}");
    // One file twice, however spelled: said once, not checked against
    // itself.
    let again = a.parent().unwrap().join(".").join(a.file_name().unwrap());
    let e = check_with(vec![a.clone(), b.clone(), again], &[], &[]).expect_err("one file twice");
    assert!(e.contains("is given twice (FILE 1 and 3)"), "{e}");
    // --stack for a file that is not checked.
    let e = check_with(vec![a.clone()], &[format!("TCPIPB={}", s(&b))], &[])
        .expect_err("--stack for a file not checked");
    assert!(e.contains("is not among the files to check"), "{e}");
    // --policy for a stack that is not checked.
    let e = check_with(
        vec![a.clone(), b.clone()],
        &[],
        &[format!("TCPIPX={}", s(&pol))],
    )
    .expect_err("--policy for no stack");
    assert_eq!(
        e,
        format!(
            "--policy TCPIPX={}: no stack TCPIPX is being checked (stacks: NAME-A, NAME-B)",
            s(&pol)
        )
    );
    // --policy with a profile as its file would have checked it as a stack.
    let e = check_with(vec![a.clone()], &[], &[format!("NAME-A={}", s(&b))])
        .expect_err("--policy with a profile");
    assert!(e.contains("is not a Policy Agent file"), "{e}");
    // Named right (the file spelled another way): accepted, and the policy
    // goes to the stack named.
    let dotted = a
        .parent()
        .map(|d| d.join(".").join("name-a.prof"))
        .unwrap_or_default();
    let (code, out) = check_with(
        vec![a.clone(), b.clone()],
        &[format!("TCPIPA={}", dotted.display())],
        &[format!("tcpipa={}", s(&pol))],
    )
    .expect("accepted");
    assert_eq!(code, ExitCode::SUCCESS);
    let a_part = out.split("Stack NAME-B").next().unwrap_or_default();
    assert!(
        a_part.contains("Stack TCPIPA (") && a_part.contains("Policy: SubnetTosMask"),
        "{out}"
    );
    assert!(
        !out.split("Stack NAME-B")
            .nth(1)
            .unwrap_or_default()
            .contains("Policy:"),
        "{out}"
    );
}

#[test]
fn activation_refuses_two_stacks_of_one_name() {
    let a = prof(
        "x/tcpip.prof",
        "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 VMAC\n",
    );
    let b = prof(
        "y/tcpip.prof",
        "INTERFACE B DEFINE IPAQENET IPADDR 192.0.2.2/24 PORTNAME P1 VMAC\n",
    );
    let d = activate(
        &[stack("TCPIP", &a), stack("tcpip", &b)],
        &[],
        &ActivateOptions::default(),
    )
    .expect_err("refused");
    let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
    assert_eq!(
        v,
        ["y/tcpip.prof: error: stack name tcpip is also the name of the stack of x/tcpip.prof; every stack needs its own name"]
    );
    // What a front end that names stacks after their files reports.
    let clash = StackNameClash::find(&d).expect("a clash");
    assert_eq!(
        clash.to_string(),
        "two stacks are named tcpip: x/tcpip.prof and y/tcpip.prof"
    );
    assert!(activate(
        &[stack("TCPIPA", &a), stack("TCPIPB", &b)],
        &[],
        &ActivateOptions::default()
    )
    .is_ok());
}

/// Static VIPAs are not adapters: activation leaves them out without an
/// error, and `profile convert` keeps them (and the HOME entry of a VIPA
/// link) as coded.
#[test]
fn static_vipas_are_not_activated_and_convert_keeps_them() {
    let p = prof(
        "v.prof",
        "DEVICE VIPA1 VIRTUAL 0\nLINK VIPA1L VIRTUAL 0 VIPA1\nINTERFACE VIPA2 DEFINE VIRTUAL IPADDR 10.5.5.2\nINTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\nHOME 10.5.5.1 VIPA1L\n",
    );
    let a = activate(&[stack("S", &p)], &[], &ActivateOptions::default()).expect("activates");
    assert_eq!(a.config.interfaces.len(), 1);
    assert_eq!(a.config.ports.len(), 1);
    let text = print_profile(&p);
    for line in [
        "DEVICE VIPA1 VIRTUAL 0",
        "LINK VIPA1L VIRTUAL 0 VIPA1",
        "INTERFACE VIPA2 DEFINE VIRTUAL IPADDR 10.5.5.2",
        "  10.5.5.1 VIPA1L",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}: {text}");
    }
    let (again, d) = parse_profile("again.prof", &text);
    assert!(!d.has_errors(), "{:?}", d.items());
    let summary = |p: &Profile| -> Vec<(String, VipaKind, Option<String>, Vec<String>)> {
        p.static_vipas
            .iter()
            .map(|v| {
                (
                    v.name.clone(),
                    v.kind,
                    v.device.as_ref().map(|d| d.value.clone()),
                    v.ipaddr.iter().map(|a| a.value.to_string()).collect(),
                )
            })
            .collect()
    };
    assert_eq!(summary(&again), summary(&p));
    assert_eq!(summary(&p).len(), 3);
}

/// REPLACEABLE (OMPROUTE may replace the static route) is part of the
/// route: `profile convert` keeps it, and NOREPLACEABLE, as coded.
#[test]
fn convert_keeps_replaceable_on_a_route() {
    let p = prof(
        "r.prof",
        "DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1\nHOME 10.1.2.10 L1\nBEGINROUTES\n  ROUTE 10.1.2.0/24 = L1 MTU 1492 NOREPLACEABLE\n  ROUTE DEFAULT 10.1.2.1 L1 MTU 1492 REPLACEABLE\n  ROUTE 10.9.0.0/16 10.1.2.1 L1 MTU 1492\nENDROUTES\nSTART D1\n",
    );
    assert_eq!(
        p.routes.iter().map(|r| r.replaceable).collect::<Vec<_>>(),
        [Some(false), Some(true), None]
    );
    let (converted, d) =
        softosa_profile::convert::convert(&p, &softosa_profile::convert::ConvertOptions::default());
    assert!(!d.has_errors(), "{:?}", d.items());
    assert_eq!(converted.interfaces.len(), 1);
    let text = print_profile(&converted);
    for line in [
        "  ROUTE 10.1.2.0/24 = L1 MTU 1492 NOREPLACEABLE",
        "  ROUTE DEFAULT 10.1.2.1 L1 MTU 1492 REPLACEABLE",
        "  ROUTE 10.9.0.0/16 10.1.2.1 L1 MTU 1492",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}: {text}");
    }
}

/// A TEMPIP interface is checked clean and activated without an address;
/// the summary says so.
#[test]
fn check_activates_a_tempip_interface_without_an_address() {
    let f = tmp(
        "tempip.prof",
        "INTERFACE T1 DEFINE IPAQENET PORTNAME P1 TEMPIP\nSTART T1\n",
    );
    let (code, out, err) = check(vec![f]);
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    assert!(
        out.contains("  INTERFACE T1 on P1: (no address) INBPERF BALANCED"),
        "{out}"
    );
}

/// An OSA PORTNAME that is a HiperSockets CHPID's port name (IUTIQDxx)
/// would merge an OSA and a HiperSockets interface onto one port: refused
/// at the statement that comes second, whichever kind it is, and across
/// stacks too.
#[test]
fn an_osa_port_named_as_a_hipersockets_port_is_refused() {
    let osa = "INTERFACE O1 DEFINE IPAQENET PORTNAME IUTIQDF1 IPADDR 10.2.1.1/24\n";
    let iqd = "INTERFACE H1 DEFINE IPAQIDIO CHPID F1 IPADDR 10.1.1.1/24\n";
    for (text, at, says) in [
        (
            format!("{osa}{iqd}"),
            "p.prof:2:36",
            "INTERFACE H1: the port of its HiperSockets CHPID F1 is named IUTIQDF1, which \
             INTERFACE O1 gives an OSA port as its name",
        ),
        (
            format!("{iqd}{}", osa.replace("IUTIQDF1", "iutiqdf1")),
            "p.prof:2:39",
            "INTERFACE O1: IUTIQDF1 names the port of HiperSockets CHPID F1, which \
             INTERFACE H1 is on, not an OSA port",
        ),
    ] {
        let p = prof("p.prof", &text);
        let d = activate(&[stack("TCPIP", &p)], &[], &ActivateOptions::default())
            .expect_err("one port of two kinds");
        let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(
            v[0].starts_with(&format!("{at}: error: activation: {says}")),
            "{v:?}"
        );
    }
    // Two stacks, one of each.
    let a = prof("a.prof", osa);
    let b = prof("b.prof", iqd);
    let d = activate(
        &[stack("TCPIPA", &a), stack("TCPIPB", &b)],
        &[],
        &ActivateOptions::default(),
    )
    .expect_err("one port of two kinds");
    let e = d.items()[0].to_string();
    assert!(e.starts_with("b.prof:1:"), "{e}");
    // The first statement is named with its file, another profile's.
    assert!(e.contains("which INTERFACE O1 of a.prof gives"), "{e}");
    // A HiperSockets CHPID whose port name no OSA port uses is fine.
    let ok = prof("c.prof", &format!("{osa}{}", iqd.replace("F1", "F2")));
    assert!(activate(&[stack("TCPIP", &ok)], &[], &ActivateOptions::default()).is_ok());
}

/// A LINK's SECCLASS and MONSYSPLEX are the interface's, and profile
/// convert carries them onto the INTERFACE it writes: the converted
/// profile activates to the same settings.
#[test]
fn convert_keeps_a_links_secclass_and_monsysplex() {
    let legacy = prof(
        "leg.prof",
        "DEVICE OSAD1 MPCIPA\nLINK OSAL1 IPAQENET OSAD1 SECCLASS 12 MONSYSPLEX\n\
         HOME 10.1.1.1 OSAL1\nSTART OSAD1\n",
    );
    let settings = |p: &Profile| {
        let a =
            activate(&[stack("TCPIP", p)], &[], &ActivateOptions::default()).expect("activates");
        let i = &a.config.interfaces[0];
        (i.secclass, i.monsysplex)
    };
    assert_eq!(settings(&legacy), (12, true));
    let opts = softosa_profile::convert::ConvertOptions {
        prefixes: [("OSAL1".to_string(), 24u8)].into_iter().collect(),
    };
    let (out, d) = softosa_profile::convert::convert(&legacy, &opts);
    assert!(!d.has_errors(), "{:?}", d.items());
    let text = print_profile(&out);
    assert!(text.contains("SECCLASS 12 MONSYSPLEX"), "{text}");
    let again = prof("conv.prof", &text);
    assert_eq!(settings(&again), (12, true));
}

/// The engine's refusal of an interface is reported at that interface's
/// statement in its own profile (at its VMAC for a VMAC clash), not at the
/// first profile given.
#[test]
fn an_engine_refusal_points_at_the_interface_refused() {
    let g1 = prof(
        "vg1.prof",
        "INTERFACE G1 DEFINE IPAQENET PORTNAME PG IPADDR 10.1.1.1/24 VMAC\nSTART G1\n",
    );
    let g2 = prof(
        "vg2.prof",
        "INTERFACE G2 DEFINE IPAQENET PORTNAME PG IPADDR 10.1.1.2/24 VMAC 020001F30000\n\
         START G2\n",
    );
    // The adapter generates G1 a VMAC the configuration does not code,
    // whichever profile comes first.
    for order in [[&g1, &g2], [&g2, &g1]] {
        let a = activate(
            &[stack("TCPIPA", order[0]), stack("TCPIPB", order[1])],
            &[],
            &ActivateOptions::default(),
        );
        assert!(a.is_ok(), "{:?}", a.err().map(|d| d.items().to_vec()));
    }
    // Two coded VMACs alike: the second is refused at its VMAC.
    let g3 = prof(
        "vg3.prof",
        "INTERFACE G3 DEFINE IPAQENET PORTNAME PG IPADDR 10.1.1.3/24 VMAC 020001F30000\n\
         START G3\n",
    );
    let d = activate(
        &[stack("TCPIPB", &g2), stack("TCPIPC", &g3)],
        &[],
        &ActivateOptions::default(),
    )
    .expect_err("G3 codes G2's VMAC");
    let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
    assert!(
        v.iter().any(|x| x.starts_with("vg3.prof:1:61: error:")
            && x.contains("interface G3: VMAC 020001F30000 is already used by interface G2")),
        "{v:?}"
    );
}
