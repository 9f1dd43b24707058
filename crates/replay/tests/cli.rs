//! `softosa replay` as a user meets it: bad files and bad output paths give
//! an error naming the right file and never touch the inputs.

mod common;

use softosa_replay::cli::{build_report, run, Format, ReplayArgs};
use softosa_replay::report::{render_text, SpeedFrom};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("softosa-replay-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn args(capture: &Path, profile: &Path) -> ReplayArgs {
    ReplayArgs {
        capture: capture.to_path_buf(),
        profile: profile.to_path_buf(),
        interfaces: Vec::new(),
        addresses: Vec::new(),
        modes: Vec::new(),
        host_service_us: 5.0,
        port_speed: None,
        format: Format::Text,
        output: None,
        html: None,
        annotate: None,
        annotate_mode: None,
        smcat: None,
        zert: false,
        max_flows: 100,
    }
}

#[test]
fn annotating_onto_the_capture_itself_is_refused_and_the_capture_kept() {
    let dir = scratch("annotate-self");
    let cap = dir.join("trace.pcap");
    std::fs::copy(data("sockperf-rr.pcap"), &cap).unwrap();
    let before = std::fs::read(&cap).unwrap();
    let mut a = args(&cap, &data("host.prof"));
    // The same file, spelled differently.
    a.annotate = Some(dir.join(".").join("trace.pcap"));
    let e = run(a).expect_err("must refuse").to_string();
    assert!(e.contains("--annotate") && e.contains("destroy"), "{e}");
    assert_eq!(std::fs::read(&cap).unwrap(), before, "capture changed");
    // The same file under a path of its own (a hard link).
    let linked = dir.join("trace-out.pcapng");
    std::fs::hard_link(&cap, &linked).unwrap();
    let mut a = args(&cap, &data("host.prof"));
    a.annotate = Some(linked);
    let e = run(a).expect_err("must refuse").to_string();
    assert!(e.contains("--annotate") && e.contains("destroy"), "{e}");
    assert_eq!(std::fs::read(&cap).unwrap(), before, "capture changed");
    // Writing the report over the profile is refused too.
    let mut a = args(&data("sockperf-rr.pcap"), &data("host.prof"));
    a.output = Some(data("host.prof"));
    let e = run(a).expect_err("must refuse").to_string();
    assert!(e.contains("--output") && e.contains("host.prof"), "{e}");
}

#[test]
fn unwritable_outputs_are_refused_before_the_replay() {
    let dir = scratch("outputs");
    let mut a = args(&data("sockperf-rr.pcap"), &data("host.prof"));
    a.html = Some(dir.clone());
    let e = build_report(&a).expect_err("a directory").to_string();
    assert!(e.contains("--html") && e.contains("directory"), "{e}");
    let mut a = args(&data("sockperf-rr.pcap"), &data("host.prof"));
    a.html = Some(dir.join("no/such/dir/x.html"));
    let e = build_report(&a).expect_err("no parent").to_string();
    assert!(e.contains("does not exist"), "{e}");
    let mut a = args(&data("sockperf-rr.pcap"), &data("host.prof"));
    a.html = Some(dir.join("same"));
    a.output = Some(dir.join("same"));
    let e = build_report(&a).expect_err("twice").to_string();
    assert!(e.contains("also given to --output"), "{e}");
}

#[test]
fn one_new_file_spelled_two_ways_for_two_outputs_is_refused() {
    let dir = scratch("outputs-spelled");
    let mut a = args(&data("sockperf-rr.pcap"), &data("host.prof"));
    // Neither exists yet: only the spelling differs.
    a.output = Some(dir.join("x.pcapng"));
    a.annotate = Some(dir.join(".").join("sub").join("..").join("x.pcapng"));
    std::fs::create_dir(dir.join("sub")).unwrap();
    let e = build_report(&a).expect_err("one file twice").to_string();
    assert!(
        e.contains("--annotate") && e.contains("also given to --output"),
        "{e}"
    );
    assert!(!dir.join("x.pcapng").exists(), "nothing written");
    // Through a link to the directory.
    std::os::unix::fs::symlink(&dir, dir.join("here")).unwrap();
    let mut a = args(&data("sockperf-rr.pcap"), &data("host.prof"));
    a.html = Some(dir.join("r.html"));
    a.output = Some(dir.join("here").join("r.html"));
    let e = build_report(&a).expect_err("one file twice").to_string();
    assert!(
        e.contains("--html") && e.contains("also given to --output"),
        "{e}"
    );
    // Two files of the same name in two directories are two outputs.
    let mut a = args(&data("sockperf-rr.pcap"), &data("host.prof"));
    a.html = Some(dir.join("r.html"));
    a.output = Some(dir.join("sub").join("r.html"));
    a.modes = vec![softosa_replay::replay::Mode::Balanced];
    build_report(&a).expect("different files");
}

#[test]
fn a_capture_cut_short_is_replayed_up_to_the_cut() {
    let dir = scratch("cut");
    let bytes = std::fs::read(data("sockperf-rr.pcap")).unwrap();
    let cap = dir.join("cut.pcap");
    std::fs::write(&cap, &bytes[..bytes.len() - 7]).unwrap();
    let report = build_report(&args(&cap, &data("host.prof"))).expect("replayed to the cut");
    assert!(!report.modes.is_empty());
    for m in &report.modes {
        let why = m.totals.truncated.as_deref().expect("truncation reported");
        assert!(why.contains("record 809"), "{why}");
        assert_eq!(m.totals.records, 808);
    }
}

#[test]
fn a_capture_cut_in_its_first_record_is_an_error_not_an_empty_replay() {
    let dir = scratch("cut-first");
    let bytes = std::fs::read(data("sockperf-rr.pcap")).unwrap();
    let cap = dir.join("cut.pcap");
    // The 24-byte file header, the 16-byte record header and part of the
    // first frame.
    std::fs::write(&cap, &bytes[..24 + 16 + 10]).unwrap();
    let e = build_report(&args(&cap, &data("host.prof")))
        .expect_err("nothing to replay")
        .to_string();
    assert!(e.starts_with(&cap.display().to_string()), "{e}");
    assert!(e.contains("truncated") && e.contains("record 1"), "{e}");
}

#[test]
fn a_capture_of_an_unreadable_link_type_is_an_error_not_an_empty_replay() {
    let dir = scratch("linktype");
    let mut bytes = std::fs::read(data("sockperf-rr.pcap")).unwrap();
    // The file header's link type: 147 (a user-defined one).
    bytes[20..24].copy_from_slice(&147u32.to_le_bytes());
    let cap = dir.join("lt147.pcap");
    std::fs::write(&cap, &bytes).unwrap();
    let e = build_report(&args(&cap, &data("host.prof")))
        .expect_err("nothing readable")
        .to_string();
    assert!(e.starts_with(&cap.display().to_string()), "{e}");
    assert!(
        e.contains("none of its 809 records could be read")
            && e.contains("unsupported link type 147: 809"),
        "{e}"
    );
    // An annotated capture begun for the failed run is not left behind.
    let mut a = args(&cap, &data("host.prof"));
    let out = dir.join("annotated.pcapng");
    a.annotate = Some(out.clone());
    // The first mode run, whose file is created before the error.
    a.annotate_mode = Some(softosa_replay::replay::Mode::Balanced);
    assert!(build_report(&a).is_err());
    assert!(!out.exists(), "{} left half written", out.display());
    // A path that was there before is never removed: a file of the user's,
    // or a link (to a device, to standard output); `--annotate /dev/full`
    // once removed /dev/full.
    let kept = dir.join("kept.pcapng");
    std::fs::write(&kept, b"old").unwrap();
    let link = dir.join("link.pcapng");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&kept, &link).unwrap();
    for p in [&kept, &link] {
        a.annotate = Some(p.clone());
        assert!(build_report(&a).is_err());
        assert!(
            std::fs::symlink_metadata(p).is_ok(),
            "{} was removed",
            p.display()
        );
    }
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn errors_name_the_file_that_is_wrong() {
    let dir = scratch("names");
    // A profile without an OSA interface: the profile is named, not the capture.
    let prof = dir.join("empty.prof");
    std::fs::write(&prof, "").unwrap();
    let e = build_report(&args(&data("mix.pcap"), &prof))
        .expect_err("no interface")
        .to_string();
    assert!(e.starts_with(&prof.display().to_string()), "{e}");
    let mut a = args(&data("mix.pcap"), &data("host.prof"));
    a.interfaces = vec!["NOPE".into()];
    let e = build_report(&a).expect_err("no such interface").to_string();
    assert!(e.contains("host.prof") && e.contains("NOPE"), "{e}");
    // An empty capture says so.
    let empty = dir.join("empty.pcap");
    std::fs::write(&empty, "").unwrap();
    let e = build_report(&args(&empty, &data("host.prof")))
        .expect_err("empty")
        .to_string();
    assert!(
        e.contains("empty.pcap") && e.contains("file is empty"),
        "{e}"
    );
    // A directory says so, naming it once.
    let e = build_report(&args(&dir, &data("host.prof")))
        .expect_err("directory")
        .to_string();
    assert!(e.contains("is a directory"), "{e}");
    assert_eq!(e.matches(&dir.display().to_string()).count(), 1, "{e}");
}

#[test]
fn a_capture_without_packets_says_so() {
    let dir = scratch("header-only");
    let bytes = std::fs::read(data("sockperf-rr.pcap")).unwrap();
    let cap = dir.join("header.pcap");
    std::fs::write(&cap, &bytes[..24]).unwrap();
    let report = build_report(&args(&cap, &data("host.prof"))).expect("an empty replay");
    let text = softosa_replay::report::render_text(&report);
    assert!(text.contains("holds no packets"), "{text}");
    // A capture with packets does not say it.
    let report = build_report(&args(&data("sockperf-rr.pcap"), &data("host.prof"))).unwrap();
    assert!(!softosa_replay::report::render_text(&report).contains("holds no packets"));
}

#[test]
fn a_host_service_time_out_of_range_is_refused() {
    for bad in [-1.0, 1e30, f64::NAN, f64::INFINITY] {
        let mut a = args(&data("mix.pcap"), &data("host.prof"));
        a.host_service_us = bad;
        let e = build_report(&a).expect_err("refused").to_string();
        assert!(e.contains("--host-service-us"), "{bad}: {e}");
    }
    let mut a = args(&data("sockperf-rr.pcap"), &data("host.prof"));
    a.host_service_us = 1_000_000.0;
    assert!(build_report(&a).is_ok());
}

#[test]
fn a_flow_table_beyond_its_limit_is_refused() {
    // Unbounded, a million-flow capture took 8 GB: memory grew with the file.
    let mut a = args(&data("mix.pcap"), &data("host.prof"));
    a.max_flows = 100_000_000;
    let e = build_report(&a).expect_err("refused");
    assert!(e.is_usage(), "{e}");
    let e = e.to_string();
    assert!(e.contains("--max-flows 100000000: at most 100000"), "{e}");
    let mut a = args(&data("sockperf-rr.pcap"), &data("host.prof"));
    a.max_flows = softosa_replay::cli::MAX_FLOWS;
    assert!(build_report(&a).is_ok());
}

#[test]
fn frames_cut_by_the_snap_length_do_not_ask_for_an_address() {
    let dir = scratch("snaplen");
    // IPv6 TCP under -s 60: every frame is cut inside the fixed part of
    // its TCP header (6 of its 20 bytes held).
    let f = common::tcp_in(true, 5, 1000);
    let cut = common::pcap(
        60,
        &[(f.clone(), f.len() as u32), (f.clone(), f.len() as u32)],
    );
    let cap = dir.join("s60.pcap");
    std::fs::write(&cap, &cut).unwrap();
    let e = build_report(&args(&cap, &data("host.prof")))
        .expect_err("nothing usable")
        .to_string();
    assert!(!e.contains("--address"), "{e}");
    assert!(
        e.contains("none of its 2 records could be read")
            && e.contains("cut by the snap length inside its TCP header: 2"),
        "{e}"
    );
    // With a frame that can be replayed, the report lists the cut ones
    // among the unreadable, and asks for no address.
    let good = common::tcp_in(false, 5, 10);
    let frames = [
        (good.clone(), good.len() as u32),
        (f.clone(), f.len() as u32),
    ];
    std::fs::write(&cap, common::pcap(60, &frames)).unwrap();
    let report = build_report(&args(&cap, &data("host.prof"))).expect("replayed");
    let text = softosa_replay::report::render_text(&report);
    assert!(!text.contains("--address"), "{text}");
    assert!(
        text.contains(
            "1 inbound, 0 outbound, 0 not to or from the analysed interfaces, 1 unreadable"
        ) && text.contains("skipped 1: cut by the snap length inside its TCP header"),
        "{text}"
    );
}

/// A header capture (-s 60 here; tcpdump's classic 64 or 68 alike) ends
/// inside the options of TCP with timestamps (a 32-byte header): the fixed
/// 20 bytes hold all the adapter reads, so every frame is replayed, with
/// its payload length from the IP header.
#[test]
fn frames_whose_tcp_options_the_snap_length_cut_are_replayed() {
    let dir = scratch("snaplen-options");
    let f = common::tcp_in(false, 8, 1000);
    let cap = dir.join("s60.pcap");
    let frames = vec![(f.clone(), f.len() as u32); 3];
    std::fs::write(&cap, common::pcap(60, &frames)).unwrap();
    let mut a = args(&cap, &data("host.prof"));
    a.modes = vec![softosa_replay::replay::Mode::Balanced];
    let report = build_report(&a).expect("replayed");
    let t = &report.modes[0].totals;
    assert_eq!((t.inbound, t.records), (3, 3));
    assert!(t.unusable.is_empty(), "{:?}", t.unusable);
    let flow = &report.modes[0].flows[0];
    assert_eq!((flow.packets_in, flow.payload_in), (3, 3000));
}

#[test]
fn a_capture_of_one_unusable_record_says_so_in_the_singular() {
    let dir = scratch("one-cut");
    let f = common::tcp_in(true, 5, 1000);
    let cap = dir.join("s60.pcap");
    std::fs::write(&cap, common::pcap(60, &[(f.clone(), f.len() as u32)])).unwrap();
    let e = build_report(&args(&cap, &data("host.prof")))
        .expect_err("nothing usable")
        .to_string();
    assert!(e.contains("its one record could not be read ("), "{e}");
}

#[test]
fn the_tuning_statistics_show_unusable_frames_as_invalid() {
    let dir = scratch("frinvct");
    // One frame replayed, one to the host cut inside its TCP header.
    let good = common::tcp_in(false, 5, 10);
    let cut = common::tcp_in(true, 5, 1000);
    let frames = [
        (good.clone(), good.len() as u32),
        (cut.clone(), cut.len() as u32),
    ];
    let cap = dir.join("s60.pcap");
    std::fs::write(&cap, common::pcap(60, &frames)).unwrap();
    let report = build_report(&args(&cap, &data("host.prof"))).expect("replayed");
    let text = softosa_replay::report::render_text(&report);
    let tuning = text
        .split("VTAM tuning statistics")
        .nth(1)
        .expect("tuning section");
    // Charged to the interface the frame was for (OSAV6), in every mode.
    let frinvct: Vec<&str> = tuning
        .split("OSAV6 DIR = RD/1")
        .nth(1)
        .expect("OSAV6's read queue")
        .lines()
        .find(|l| l.trim_start().starts_with("FRINVCT"))
        .expect("FRINVCT row")
        .split_whitespace()
        .skip(1)
        .collect();
    assert_eq!(frinvct, vec!["1"; report.available().count()], "{text}");
    assert!(!text.contains("invalid frames"), "no port count: {text}");
}

#[test]
fn each_skip_reason_names_its_first_record() {
    let dir = scratch("first-record");
    let good = common::tcp_in(false, 5, 10);
    let mut ihl = good.clone();
    ihl[14] = 0x44;
    // Records 2 and 4 have a malformed stamp, record 3 a malformed header.
    let p = common::pcap_stamped(
        false,
        &[
            ((100, 1), good.clone()),
            ((100, 1_000_000), good.clone()),
            ((100, 2), ihl),
            ((100, 1_000_001), good.clone()),
            ((100, 3), good),
        ],
    );
    let cap = dir.join("stamps.pcap");
    std::fs::write(&cap, p).unwrap();
    let report = build_report(&args(&cap, &data("host.prof"))).expect("replayed");
    let text = softosa_replay::report::render_text(&report);
    assert!(
        text.contains(
            "skipped 2: malformed timestamp: 1000000 microseconds or more (first: record 2)"
        ) && text.contains("skipped 1: malformed IPv4 header (first: record 3)"),
        "{text}"
    );
    let json = serde_json::to_value(&report).unwrap();
    let totals = &json["modes"][0]["totals"];
    let stamp = &totals["reader_skipped"]["malformed timestamp: 1000000 microseconds or more"];
    assert_eq!(
        (stamp["count"].as_u64(), stamp["first_record"].as_u64()),
        (Some(2), Some(2))
    );
    let header = &totals["unusable"]["malformed IPv4 header"];
    assert_eq!(
        (header["count"].as_u64(), header["first_record"].as_u64()),
        (Some(1), Some(3))
    );
    // The shape docs/replay.md gives script authors: an object of exactly
    // these two fields per reason (until this release, a bare count).
    for reason in [stamp, header] {
        let fields: Option<Vec<&str>> = reason
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect());
        assert_eq!(fields, Some(vec!["count", "first_record"]), "{reason}");
    }
}

#[test]
fn stacked_vlan_tags_do_not_ask_for_an_address() {
    let dir = scratch("qinq");
    let f = common::tcp_in(false, 5, 10);
    // An 802.1ad service tag (VLAN 100) outside an 802.1Q tag (VLAN 10).
    let mut q = f[..12].to_vec();
    q.extend_from_slice(&[0x88, 0xa8, 0, 100, 0x81, 0x00, 0, 10]);
    q.extend_from_slice(&f[12..]);
    let cap = dir.join("qinq.pcap");
    std::fs::write(&cap, common::pcap(65535, &common::whole(&[q.clone(), q]))).unwrap();
    let e = build_report(&args(&cap, &data("host.prof")))
        .expect_err("nothing usable")
        .to_string();
    assert!(!e.contains("--address"), "{e}");
    assert!(
        e.contains("none of its 2 records could be read") && e.contains("stacked VLAN tags"),
        "{e}"
    );
}

/// `softosa replay`'s options alone, as the front end parses them.
#[derive(clap::Parser)]
struct Cli {
    #[command(flatten)]
    replay: ReplayArgs,
}

#[test]
fn every_mode_column_of_the_report_is_a_mode_the_options_take() {
    use clap::Parser;
    use softosa_replay::replay::Mode;
    // The report's headings, in its order, are the six modes.
    let report = build_report(&args(&data("sockperf-rr.pcap"), &data("host.prof"))).unwrap();
    let text = softosa_replay::report::render_text(&report);
    let head = text
        .lines()
        .find(|l| l.starts_with("INBPERF"))
        .expect("heading");
    let columns: Vec<&str> = head.split_whitespace().skip(1).collect();
    assert!(columns.contains(&"DYN+IWQ"), "{head}");
    let modes: Vec<Option<Mode>> = columns.iter().map(|c| Mode::parse(c)).collect();
    assert_eq!(modes, Mode::ALL.map(Some).to_vec(), "{head}");
    // And on the command line, as --mode and --annotate-mode.
    for spelling in ["DYN+IWQ", "dyn+iwq", "DYN + IWQ"] {
        let cli = Cli::try_parse_from([
            "replay",
            "t.pcap",
            "-p",
            "h.prof",
            "--mode",
            spelling,
            "--annotate",
            "out.pcapng",
            "--annotate-mode",
            spelling,
        ])
        .unwrap_or_else(|e| panic!("{spelling}: {e}"));
        assert_eq!(cli.replay.modes, vec![Mode::DynamicWorkloadq]);
        assert_eq!(cli.replay.annotate_mode, Some(Mode::DynamicWorkloadq));
    }
    // An unknown one still names the heading among the choices.
    let e = Cli::try_parse_from(["replay", "t.pcap", "-p", "h.prof", "--mode", "IWQ+DYN"])
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("WORKLOADQ (DYN+IWQ)"), "{e}");
}

#[test]
fn the_address_hint_names_the_capture_s_busiest_addresses() {
    let dir = scratch("address-hint");
    let cap = dir.join("other.pcap");
    // A capture taken at 10.9.9.1, which the profile does not list:
    // 3 frames to it, 2 from it, 1 between two other hosts.
    let mut frames = vec![common::tcp_between("10.9.9.2", "10.9.9.1"); 3];
    frames.extend(vec![common::tcp_between("10.9.9.1", "10.9.9.3"); 2]);
    frames.push(common::tcp_between("10.7.7.7", "10.7.7.8"));
    std::fs::write(&cap, common::pcap(65535, &common::whole(&frames))).unwrap();
    let report = build_report(&args(&cap, &data("host.prof"))).unwrap();
    let text = softosa_replay::report::render_text(&report);
    assert!(
        text.contains("No frame matched the analysed interfaces' addresses.")
            && text.contains(
                "    10.9.9.1  5 frames\n    10.9.9.2  3 frames\n    10.9.9.3  2 frames\n"
            )
            && text.contains("--address IP")
            && !text.contains("-i NAME"),
        "{text}"
    );
    let shown: Vec<(String, u64)> = report.modes[0]
        .totals
        .foreign_addresses
        .iter()
        .map(|a| (a.address.to_string(), a.frames))
        .collect();
    assert_eq!(
        shown,
        [("10.9.9.1", 5), ("10.9.9.2", 3), ("10.9.9.3", 2)].map(|(a, n)| (a.to_string(), n))
    );
    // Following it replays the capture, and the hint goes.
    let mut a = args(&cap, &data("host.prof"));
    a.addresses = vec!["10.9.9.1".parse().unwrap()];
    let text = softosa_replay::report::render_text(&build_report(&a).unwrap());
    assert!(
        text.contains("3 inbound, 2 outbound, 1 not to or from")
            && !text.contains("No frame matched"),
        "{text}"
    );
    // The host's address belongs to an interface -i left out: --address
    // cannot take it (no analysed IPv4 interface); the hint says to select it.
    let cap = dir.join("v4.pcap");
    let f = common::tcp_in(false, 5, 10);
    std::fs::write(&cap, common::pcap(65535, &common::whole(&[f.clone(), f]))).unwrap();
    let mut a = args(&cap, &data("host.prof"));
    a.interfaces = vec!["OSAV6".into()];
    let text = softosa_replay::report::render_text(&build_report(&a).unwrap());
    assert!(
        text.contains(
            "    192.0.2.1  2 frames  (the profile's OSAV4, not analysed: select it with -i OSAV4)\n    192.0.2.2  2 frames\n"
        ) && text.contains("or analyse the interface that owns it with -i NAME"),
        "{text}"
    );
}

/// The text report and the first mode's totals of `frames` (10 µs apart)
/// replayed against tests/data/host.prof under BALANCED.
fn replay_frames(test: &str, frames: &[Vec<u8>]) -> (String, softosa_replay::replay::Totals) {
    let report = report_of_frames(test, frames);
    let text = softosa_replay::report::render_text(&report);
    (text, report.modes[0].totals.clone())
}

/// The report of `frames` (10 µs apart) replayed against
/// tests/data/host.prof under BALANCED.
fn report_of_frames(test: &str, frames: &[Vec<u8>]) -> softosa_replay::report::Report {
    report_at_speed(test, frames, None)
}

/// [`report_of_frames`] with `--port-speed`.
fn report_at_speed(
    test: &str,
    frames: &[Vec<u8>],
    port_speed: Option<u32>,
) -> softosa_replay::report::Report {
    let dir = scratch(test);
    let cap = dir.join("c.pcap");
    let stamped: Vec<((u32, u32), Vec<u8>)> = frames
        .iter()
        .enumerate()
        .map(|(n, f)| ((1_700_000_000, n as u32 * 10), f.clone()))
        .collect();
    std::fs::write(&cap, common::pcap_stamped(false, &stamped)).unwrap();
    let mut a = args(&cap, &data("host.prof"));
    a.modes = vec![softosa_replay::replay::Mode::Balanced];
    a.port_speed = port_speed;
    build_report(&a).unwrap()
}

/// Frames of 1502 bytes 10 µs apart are 1221 Mb/s on the wire (with FCS,
/// preamble and gap): more than the
/// 1 GbE port a profile's OSA has by default, within a 10 GbE one.
#[test]
fn a_capture_faster_than_the_port_is_said_to_be() {
    let frames = vec![common::tcp_in(false, 5, 1448); 3000];
    let report = report_at_speed("over-speed", &frames, None);
    let t = &report.modes[0].totals;
    let w: Vec<_> = t.warnings.iter().filter(|w| w.contains("Mb/s")).collect();
    assert_eq!(w.len(), 1, "{:?}", t.warnings);
    assert!(
        w[0].starts_with(
            "inbound frames on port OSAPRT1 (for OSAV4 and OSAV6) arrive at up to 1221 Mb/s \
             (over the 10 ms from 0.00 s into the capture), faster than its 1000 Mb/s"
        ),
        "{}",
        w[0]
    );
    assert!(w[0].contains("--port-speed"), "{}", w[0]);
    // At 10 GbE it fits.
    let report = report_at_speed("over-speed-10g", &frames, Some(10_000));
    let t = &report.modes[0].totals;
    assert!(
        t.warnings.iter().all(|w| !w.contains("Mb/s")),
        "{:?}",
        t.warnings
    );
    // Half as dense fits a 1 GbE port.
    let sparse: Vec<Vec<u8>> = (0..3000)
        .map(|n| {
            if n % 2 == 0 {
                common::tcp_in(false, 5, 1448)
            } else {
                common::tcp_in(false, 5, 0)
            }
        })
        .collect();
    let report = report_at_speed("under-speed", &sparse, None);
    let t = &report.modes[0].totals;
    assert!(
        t.warnings.iter().all(|w| !w.contains("Mb/s")),
        "{:?}",
        t.warnings
    );
}

/// The report names the port it modelled and the speed it gave it, so a
/// reader sees what the rate warning compared against.
#[test]
fn the_report_says_which_port_speed_it_modelled() {
    let frames = vec![common::tcp_in(false, 5, 100); 4];
    let report = report_at_speed("port-line", &frames, None);
    assert_eq!(report.ports.len(), 1, "{:?}", report.ports);
    let p = &report.ports[0];
    assert_eq!(
        (p.name.as_str(), p.speed_mbps, p.speed_from),
        ("OSAPRT1", Some(1000), Some(SpeedFrom::Default))
    );
    assert_eq!(p.interfaces, ["OSAV4", "OSAV6"]);
    let text = render_text(&report);
    assert!(
        text.contains(
            "Port OSAPRT1: OSA-E3 at 1000 Mb/s (the default; --port-speed sets it); \
             interfaces OSAV4 OSAV6\n"
        ),
        "{text}"
    );
    let report = report_at_speed("port-line-25g", &frames, Some(25_000));
    assert_eq!(report.ports[0].speed_mbps, Some(25_000));
    assert!(render_text(&report).contains("OSA-E3 at 25000 Mb/s (set by --port-speed)"));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["ports"][0]["speed_mbps"], 25_000);
}

/// The Port lines name the ports of the analysed interfaces only: a
/// profile's HiperSockets interface is analysed (and its port shown) only
/// when -i names it. A JSON configuration's speed is its own.
#[test]
fn the_ports_shown_are_the_analysed_ones() {
    let prof = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/profiles/qdio-accelerator.prof");
    let mut a = args(&data("iperf3-tcp.pcap"), &prof);
    a.modes = vec![softosa_replay::replay::Mode::Balanced];
    let r = build_report(&a).unwrap();
    assert!(!r.ports.is_empty());
    assert!(
        r.ports.iter().all(|p| p.adapter != "HiperSockets"),
        "{:?}",
        r.ports
    );
    a.interfaces = vec!["hsroute".into()];
    let r = build_report(&a).unwrap();
    assert_eq!(r.ports.len(), 1, "{:?}", r.ports);
    assert_eq!(
        (
            r.ports[0].adapter.as_str(),
            r.ports[0].speed_mbps,
            r.ports[0].speed_from
        ),
        ("HiperSockets", None, None)
    );
    assert!(render_text(&r).contains("Port IUTIQDF4: HiperSockets; interface HSROUTE\n"));
    // The same host as a JSON SystemConfig: its ports' speeds are its own.
    let dir = scratch("json-config");
    let cfg = softosa_replay::config::load_config(&data("host.prof")).unwrap();
    let json = dir.join("host.json");
    std::fs::write(&json, serde_json::to_string(&cfg).unwrap()).unwrap();
    let mut a = args(&data("iperf3-tcp.pcap"), &json);
    a.modes = vec![softosa_replay::replay::Mode::Balanced];
    let r = build_report(&a).unwrap();
    assert_eq!(r.ports[0].speed_from, Some(SpeedFrom::Configuration));
    assert!(render_text(&r).contains("at 1000 Mb/s (the configuration's; --port-speed sets it)"));
}

/// A capture whose first record is stamped late replays the others at
/// that stamp: they are not taken for a burst.
#[test]
fn frames_stamped_before_an_earlier_one_are_no_burst() {
    let dir = scratch("stamps-behind");
    let f = common::tcp_in(false, 5, 1448);
    let mut stamped = vec![((1_700_000_001, 0), f.clone())];
    stamped.extend((0..999u32).map(|n| ((1_700_000_000, n * 100), f.clone())));
    let cap = dir.join("c.pcap");
    std::fs::write(&cap, common::pcap_stamped(false, &stamped)).unwrap();
    let mut a = args(&cap, &data("host.prof"));
    a.modes = vec![softosa_replay::replay::Mode::Balanced];
    let report = build_report(&a).unwrap();
    let t = &report.modes[0].totals;
    assert_eq!(t.timestamps_backwards, 999);
    assert!(
        t.warnings.iter().all(|w| !w.contains("Mb/s")),
        "{:?}",
        t.warnings
    );
}

#[test]
fn a_port_speed_that_is_no_osa_speed_is_refused() {
    use clap::Parser;
    #[derive(Parser)]
    struct T {
        #[command(flatten)]
        r: ReplayArgs,
    }
    let e = T::try_parse_from(["t", "c.pcap", "-p", "x.prof", "--port-speed", "2500"])
        .err()
        .expect("refused");
    assert!(e.to_string().contains("1000, 10000 or 25000"), "{e}");
    let ok = T::try_parse_from(["t", "c.pcap", "-p", "x.prof", "--port-speed", "10000"]).unwrap();
    assert_eq!(ok.r.port_speed, Some(10_000));
}

#[test]
fn a_capture_taken_where_the_adapter_cannot_see_is_said_to_be() {
    // A wire-sized frame to the host (OSAV4, 192.0.2.1, MTU 8992 by
    // default), two merged by receive offload, one from the host to
    // itself, two in a VLAN the interface does not have, and the host's
    // own ARP reply.
    let frames = vec![
        common::tcp_in(false, 5, 1000),
        common::tcp_in(false, 5, 20_000),
        common::tcp_in(false, 5, 30_000),
        common::tcp_between("192.0.2.1", "192.0.2.1"),
        common::tcp_in_vlan(100, 10),
        common::tcp_in_vlan(100, 10),
        common::arp(2, "192.0.2.1", "192.0.2.2"),
        // A gratuitous ARP names one address twice: not loopback traffic.
        common::arp(1, "192.0.2.2", "192.0.2.2"),
    ];
    let (text, t) = replay_frames("capture-warnings", &frames);
    assert_eq!(t.adapter_arp, 1, "{text}");
    assert_eq!(
        t.records,
        t.inbound + t.outbound + t.adapter_arp + t.foreign + t.loopback
    );
    assert_eq!(t.loopback, 1, "the host's frame to itself is not replayed");
    assert!(
        text.contains("1 ARP sent by the adapter itself (ARP offload)"),
        "{text}"
    );
    let says = |w: &str| t.warnings.iter().any(|x| x.contains(w));
    assert!(
        says("2 inbound IP packets are longer than OSAV4's MTU of 8992 (the longest 30040 bytes)"),
        "{:?}",
        t.warnings
    );
    assert!(says("receive offload (GRO or LRO)"), "{:?}", t.warnings);
    assert!(
        says("1 frame goes from an address to itself"),
        "{:?}",
        t.warnings
    );
    assert!(
        says("2 inbound frames do not carry their interface's VLAN (the first: VLAN ID 100, where OSAV4 has no VLANID)"),
        "{:?}",
        t.warnings
    );
    assert_eq!(t.warnings.len(), 3, "{:?}", t.warnings);
    for w in &t.warnings {
        assert!(text.contains(&format!("  warning: {w}\n")), "{text}");
    }
    // A wire-sized capture of the host says nothing of the kind.
    let (_, t) = replay_frames("capture-clean", &frames[..1]);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    // A large packet from the host to itself is the loopback device's
    // size, not an offload's: only the loopback warning.
    let mut big_loop = common::tcp_in(false, 5, 20_000);
    big_loop[26..30].copy_from_slice(&[192, 0, 2, 1]);
    let (_, t) = replay_frames("capture-loop", &[big_loop]);
    assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
    assert!(t.warnings[0].contains("loopback"), "{:?}", t.warnings);
    // A large send from the host: the stack (no SEGMENTATIONOFFLOAD in the
    // profile) would have cut it, not the adapter.
    let mut big_out = common::tcp_in(false, 5, 20_000);
    big_out[26..34].copy_from_slice(&[192, 0, 2, 1, 192, 0, 2, 2]);
    let (_, t) = replay_frames("capture-tso", &[big_out]);
    assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
    let w = &t.warnings[0];
    assert!(
        w.contains("segmentation offload (TSO or GSO)")
            && w.contains("no GLOBALCONFIG SEGMENTATIONOFFLOAD, so the stack itself would have cut large sends")
            && !w.contains("the adapter would have cut")
            && !w.contains("  "),
        "{w}"
    );
    // A capture of only the host's own ARP is a report, not an error.
    let (text, t) = replay_frames("capture-own-arp", &frames[6..7]);
    assert_eq!((t.records, t.adapter_arp), (1, 1), "{text}");
    // Untagged frames for an interface with a VLANID: most likely taken on
    // the host's VLAN device, which strips the tag.
    let dir = scratch("capture-untagged");
    let prof = dir.join("vlan.prof");
    let text = std::fs::read_to_string(data("host.prof")).unwrap();
    let tagged = text.replacen(
        "  PORTNAME OSAPRT1\n",
        "  PORTNAME OSAPRT1\n  VLANID 100\n",
        1,
    );
    assert_ne!(tagged, text, "host.prof has the PORTNAME line");
    std::fs::write(&prof, tagged).unwrap();
    let cap = dir.join("c.pcap");
    std::fs::write(
        &cap,
        common::pcap_stamped(false, &[((1_700_000_000, 0), frames[0].clone())]),
    )
    .unwrap();
    let mut a = args(&cap, &prof);
    a.modes = vec![softosa_replay::replay::Mode::Balanced];
    a.interfaces = vec!["OSAV4".into()];
    let t = build_report(&a).unwrap().modes[0].totals.clone();
    assert!(
        t.warnings.iter().any(|w| w
            .contains("1 inbound frame does not carry its interface's VLAN")
            && w.contains("the adapter drops it;")
            && w.contains("no VLAN tag, where OSAV4 has VLANID 100")
            && w.contains("a capture taken on a VLAN device (such as eth0.100) shows no tags")),
        "{:?}",
        t.warnings
    );
    // Wire-sized packets over a smaller MTU in the profile: the profile's
    // MTU is in question, not an offload.
    let small = dir.join("mtu.prof");
    let text = text.replacen(
        "  PORTNAME OSAPRT1\n",
        "  PORTNAME OSAPRT1\n  MTU 1400\n",
        1,
    );
    std::fs::write(&small, text).unwrap();
    std::fs::write(
        &cap,
        common::pcap_stamped(
            false,
            &[((1_700_000_000, 0), common::tcp_in(false, 5, 1460))],
        ),
    )
    .unwrap();
    let mut a = args(&cap, &small);
    a.modes = vec![softosa_replay::replay::Mode::Balanced];
    a.interfaces = vec!["OSAV4".into()];
    let t = build_report(&a).unwrap().modes[0].totals.clone();
    assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
    assert!(
        t.warnings[0]
            .contains("1 inbound IP packet is longer than OSAV4's MTU of 1400 (1500 bytes)")
            && t.warnings[0].contains("check the INTERFACE statement's MTU")
            && !t.warnings[0].contains("offload"),
        "{:?}",
        t.warnings
    );
}

#[test]
fn a_bulk_flow_let_go_after_the_capture_ends_is_marked_so() {
    // The first 400 records of the iperf3 capture: its stream is still
    // sending when the capture stops, so the stack lets it go only in the
    // drain after the last record.
    let bytes = std::fs::read(data("iperf3-tcp.pcap")).unwrap();
    let (mut at, mut kept) = (24usize, 0);
    while kept < 400 {
        let len = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        at += 16 + len;
        kept += 1;
    }
    let dir = scratch("dereg-after-end");
    let cap = dir.join("cut.pcap");
    std::fs::write(&cap, &bytes[..at]).unwrap();
    let mut a = args(&cap, &data("host.prof"));
    a.modes = vec![softosa_replay::replay::Mode::DynamicWorkloadq];
    let report = build_report(&a).unwrap();
    let end = report.modes[0].totals.duration_us;
    let off: Vec<f64> = report.modes[0]
        .flows
        .iter()
        .filter_map(|f| f.bulk_deregistered_us)
        .collect();
    assert!(off.iter().any(|t| *t > end), "{off:?} against {end}");
    let text = softosa_replay::report::render_text(&report);
    assert!(text.contains("* after the capture's last record"), "{text}");
    // The annotated capture says what its comments describe.
    let ann = dir.join("cut.pcapng");
    let mut a = args(&cap, &data("host.prof"));
    a.modes = vec![softosa_replay::replay::Mode::DynamicWorkloadq];
    a.annotate = Some(ann.clone());
    a.annotate_mode = Some(softosa_replay::replay::Mode::DynamicWorkloadq);
    build_report(&a).unwrap();
    let written = String::from_utf8_lossy(&std::fs::read(&ann).unwrap()).into_owned();
    let about = format!(
        "softosa replay of {} through INBPERF DYNAMIC WORKLOADQ with the profile {}",
        cap.display(),
        data("host.prof").display()
    );
    assert!(
        written.contains(&about),
        "{}",
        &written[..300.min(written.len())]
    );
    // The whole capture lets it go within the capture: no mark.
    let mut a = args(&data("iperf3-tcp.pcap"), &data("host.prof"));
    a.modes = vec![softosa_replay::replay::Mode::DynamicWorkloadq];
    let text = softosa_replay::report::render_text(&build_report(&a).unwrap());
    assert!(text.contains("deregistered at (ms)"), "{text}");
    assert!(!text.contains("after the capture's last record"), "{text}");
}

#[test]
fn flows_beyond_the_table_are_counted_as_flows_and_frames() {
    // 5 flows to the host, three frames each, into a table of 2: the
    // first two are itemised, the other three counted.
    let dir = scratch("untracked");
    let cap = dir.join("c.pcap");
    let mut stamped = Vec::new();
    for k in 0..3u32 {
        for n in 0..5u32 {
            let mut f = common::tcp_in(false, 5, 10);
            // Source port 40001 + n: a flow per n.
            f[34..36].copy_from_slice(&(40001 + n as u16).to_be_bytes());
            stamped.push(((1_700_000_000, (k * 5 + n) * 10), f));
        }
    }
    std::fs::write(&cap, common::pcap_stamped(false, &stamped)).unwrap();
    let mut a = args(&cap, &data("host.prof"));
    a.modes = vec![softosa_replay::replay::Mode::Balanced];
    a.max_flows = 2;
    let report = build_report(&a).unwrap();
    let t = &report.modes[0].totals;
    assert_eq!((t.untracked_flow_count, t.flows_untracked), (3, 9));
    assert_eq!(report.modes[0].flows.len(), 2);
    let text = softosa_replay::report::render_text(&report);
    assert!(
        text.contains("(3 flows beyond the flow table, with 9 frames, were not itemised"),
        "{text}"
    );
}

#[test]
fn a_broadcast_that_matches_does_not_hide_the_address_hint() {
    // Only an ARP broadcast reaches OSAV4's address; the capture's own
    // unicast traffic is another host's.
    let mut frames = vec![common::tcp_between("10.9.9.2", "10.9.9.1"); 3];
    frames.push(common::arp(1, "10.9.9.2", "192.0.2.1"));
    let (text, t) = replay_frames("broadcast-hint", &frames);
    assert_eq!((t.matched_unicast, t.foreign), (0, 3), "{text}");
    assert!(
        text.contains("No frame matched the analysed interfaces' addresses"),
        "{text}"
    );
    assert!(text.contains("10.9.9.1  3 frames"), "{text}");
}

#[test]
fn the_addresses_of_foreign_frames_are_counted_in_bounded_memory() {
    use softosa_replay::replay::FOREIGN_ADDRESSES_TRACKED;
    // The busiest address first, then more distinct peers than are tracked;
    // the busiest is still named first, with all its frames.
    let mut frames = vec![common::tcp_between("10.9.9.2", "10.9.9.1"); 2];
    for n in 0..FOREIGN_ADDRESSES_TRACKED + 100 {
        let peer = format!("10.{}.{}.{}", (n >> 16) & 255, (n >> 8) & 255, n & 255);
        frames.push(common::tcp_between(&peer, "10.9.9.1"));
    }
    // 10 µs apart (common::pcap's 1 ms would pass a second of µs).
    let (_, t) = replay_frames("address-bound", &frames);
    assert_eq!(t.foreign, frames.len() as u64);
    assert_eq!(t.foreign_addresses.len(), 3);
    assert_eq!(t.foreign_addresses[0].address.to_string(), "10.9.9.1");
    assert_eq!(t.foreign_addresses[0].frames, frames.len() as u64);
    assert_eq!(t.foreign_addresses[1].frames, 2);
}

#[test]
fn the_json_report_written_as_it_is_made_is_the_whole_document_and_a_full_disk_is_an_error() {
    let dir = scratch("json-streamed");
    let out = dir.join("report.json");
    let mut a = args(&data("mix.pcap"), &data("host.prof"));
    a.format = Format::Json;
    a.zert = true;
    // The whole document, as serde_json prints it in one piece.
    let whole = serde_json::to_string_pretty(&build_report(&a).expect("replayed"))
        .expect("the report serialises");
    a.output = Some(out.clone());
    run(a).expect("written");
    let written = std::fs::read_to_string(&out).expect("the report file");
    assert_eq!(written, whole + "\n");
    // A write that fails part way loses the report: an error naming the
    // file, not a success with a cut document.
    if Path::new("/dev/full").exists() {
        let mut a = args(&data("mix.pcap"), &data("host.prof"));
        a.format = Format::Json;
        a.output = Some(PathBuf::from("/dev/full"));
        let e = run(a).expect_err("no space").to_string();
        assert!(e.contains("/dev/full"), "{e}");
    }
}

#[test]
fn an_address_the_host_cannot_own_is_refused_on_the_command_line() {
    use clap::Parser;
    for (bad, says) in [
        ("0.0.0.0", "the unspecified address"),
        ("255.255.255.255", "the broadcast address"),
        ("224.0.0.1", "a multicast address"),
        ("::", "the unspecified address"),
        ("10.1", "is not an IPv4 or IPv6 address"),
    ] {
        let e = Cli::try_parse_from(["replay", "t.pcap", "-p", "h.prof", "--address", bad])
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
    let cli = Cli::try_parse_from(["replay", "t.pcap", "-p", "h.prof", "--address", "10.9.9.9"])
        .expect("a unicast address");
    assert_eq!(
        cli.replay.addresses,
        vec!["10.9.9.9".parse::<std::net::IpAddr>().unwrap()]
    );
}

#[test]
fn a_capture_without_ip_frames_offers_no_empty_address_list() {
    let dir = scratch("no-ip");
    // Frames of a local experimental EtherType between two other
    // stations: left out, and not IP (ARP would name addresses).
    let mut f = vec![2, 0, 0, 0, 0, 0x99, 2, 0, 0, 0, 0, 2, 0x88, 0xb5];
    f.resize(60, 0);
    let frames = common::whole(&[f.clone(), f]);
    let cap = dir.join("l2.pcap");
    std::fs::write(&cap, common::pcap(65535, &frames)).unwrap();
    let report = build_report(&args(&cap, &data("host.prof"))).expect("replayed");
    let text = softosa_replay::report::render_text(&report);
    assert!(!text.contains("busiest addresses"), "{text}");
    assert!(
        text.contains("none of the 2 frames left out is an IP frame"),
        "{text}"
    );
}

/// A group frame from the MAC the host sends its unicast frames from is the
/// host's own (mDNS from its link-local address, which no profile lists):
/// outbound, not presented to the host's own queues as received.
#[test]
fn the_hosts_own_group_frames_are_outbound() {
    let sent = common::tcp_between("192.0.2.1", "192.0.2.2");
    let mut mdns = common::tcp_between("169.254.7.7", "224.0.0.251");
    mdns[..6].copy_from_slice(&[0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb]);
    let (text, t) = replay_frames("own-group", &[sent.clone(), mdns.clone()]);
    assert_eq!((t.inbound, t.outbound), (0, 2), "{text}");
    // Before the host has sent anything from that MAC, it is a received one.
    let (text, t) = replay_frames("other-group", &[mdns, sent.clone()]);
    assert_eq!((t.inbound, t.outbound), (1, 1), "{text}");
    // From an address of its own (a router's, the capture across a routed
    // hop), a group frame from that MAC is received.
    let mut ospf = common::tcp_between("192.0.2.254", "224.0.0.5");
    ospf[..6].copy_from_slice(&[0x01, 0x00, 0x5e, 0x00, 0x00, 0x05]);
    let (text, t) = replay_frames("router-group", &[sent, ospf]);
    assert_eq!((t.inbound, t.outbound), (1, 1), "{text}");
}

/// Frames without ports belong to no flow: counted as such, so the flows
/// and the inbound count can be reconciled (IP fragments after the first
/// were presented but in no flow and in no count).
#[test]
fn frames_without_ports_are_counted_apart_from_the_flows() {
    let tcp = common::tcp_in(false, 5, 100);
    // The same packet as a fragment after the first (offset 8 bytes).
    let mut frag = tcp.clone();
    frag[20] = 0x00;
    frag[21] = 0x01;
    let ipv4_csum = |f: &mut Vec<u8>| {
        f[24] = 0;
        f[25] = 0;
        let mut sum: u32 = 0;
        for c in f[14..34].chunks(2) {
            sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
        }
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        f[24..26].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    };
    ipv4_csum(&mut frag);
    // An ARP request for the host is no IP frame: not among them.
    let arp = common::arp(1, "192.0.2.2", "192.0.2.1");
    let (text, t) = replay_frames("portless", &[tcp, frag, arp]);
    assert_eq!(t.inbound, 3, "{text}");
    assert_eq!(t.portless, [1, 0], "{text}");
    assert!(
        text.contains("(1 inbound and 0 outbound frames carry no ports"),
        "{text}"
    );
}

/// The HTML page says what is wrong with the capture before its charts
/// (the warnings were only in the text report at its foot).
#[test]
fn the_html_page_opens_with_the_captures_warnings() {
    let frames = [
        common::tcp_in(false, 5, 100),
        common::tcp_between("192.0.2.1", "192.0.2.1"),
    ];
    let report = report_of_frames("html-warnings", &frames);
    let html = softosa_replay::html::render_html(&report);
    let warn = html
        .find("Warnings about the capture")
        .expect("a warnings list");
    let charts = html.find("<h2>Comparison</h2>").expect("the charts");
    assert!(warn < charts);
    assert!(
        html.contains("<li>1 frame goes from an address to itself"),
        "{html}"
    );
}
