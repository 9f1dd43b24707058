//! Replay of the committed captures (made by iperf3 and sockperf, see
//! tests/data/README.md) through the engine: classification against what
//! the traffic really was, the expected ordering of the INBPERF modes, and
//! the accounting identity.

mod common;

use softosa_engine::QueueKind;
use softosa_replay::annotate::PcapNgWriter;
use softosa_replay::capture::CaptureReader;
use softosa_replay::config::load_config;
use softosa_replay::replay::{replay_mode, Hooks, Mode, ModeResult, ReplayOptions};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn run(capture: &str, mode: Mode) -> ModeResult {
    replay_reader(CaptureReader::open(&data(capture)).expect("capture"), mode)
}

/// Replay what `reader` reads against the test host's profile.
fn replay_reader<R: std::io::Read>(reader: CaptureReader<R>, mode: Mode) -> ModeResult {
    let cfg = load_config(&data("host.prof")).expect("profile");
    replay_mode(
        reader,
        &cfg,
        mode,
        &ReplayOptions::default(),
        Hooks::default(),
    )
    .expect("replay")
}

const CAPTURES: [&str; 8] = [
    "iperf3-tcp.pcap",
    "sockperf-rr.pcap",
    "mix.pcap",
    "ipv6-tcp.pcapng",
    "rr-nano.pcapng",
    "sll2.pcap",
    "sll.pcap",
    "sll2-micro.pcapng",
];
/// Client ports of the iperf3 data connections (streams), per README.md.
const STREAM_PORTS: [u16; 3] = [40001, 40003, 40005];

#[test]
fn streams_land_on_bulkdata_and_request_response_never_does() {
    for (capture, port) in [
        ("iperf3-tcp.pcap", 40001u16),
        ("mix.pcap", 40003),
        ("ipv6-tcp.pcapng", 40005),
    ] {
        let r = run(capture, Mode::DynamicWorkloadq);
        let f = r.flow(port).expect("stream flow");
        let at = f.bulk_registered_us.expect("stream registered as bulk");
        assert!(
            at > f.first_us && at < f.last_us,
            "{capture}: registered at {at}"
        );
        let bulk = f.queues.get("BULKDATA").unwrap_or(0);
        assert!(
            bulk * 2 > f.packets_in,
            "{capture}: {bulk} of {} frames on BULKDATA",
            f.packets_in
        );
        assert_eq!(f.main_queue(), Some("BULKDATA"));
        let q = r
            .queues
            .iter()
            .find(|q| q.queue == "BULKDATA" && q.frames > 0)
            .expect("BULKDATA queue used");
        assert_eq!(q.frames, bulk);
    }
    // Everything else, in every capture and mode, stays off BULKDATA.
    for capture in CAPTURES {
        for mode in Mode::ALL {
            let r = run(capture, mode);
            for f in r
                .flows
                .iter()
                .filter(|f| !STREAM_PORTS.contains(&f.remote_port))
            {
                assert_eq!(
                    f.bulk_registered_us, None,
                    "{capture} {mode:?}: {}:{} registered",
                    f.remote, f.remote_port
                );
                assert!(f.queues.get("BULKDATA").is_none(), "{capture} {mode:?}");
            }
            if mode != Mode::DynamicWorkloadq {
                assert_eq!(r.bulk_registrations, 0, "{capture} {mode:?}");
                assert!(r.flows.iter().all(|f| f.queues.get("BULKDATA").is_none()));
            }
        }
    }
}

#[test]
fn modes_order_as_expected() {
    for capture in [
        "iperf3-tcp.pcap",
        "sockperf-rr.pcap",
        "mix.pcap",
        "ipv6-tcp.pcapng",
    ] {
        let results: BTreeMap<Mode, ModeResult> =
            Mode::ALL.iter().map(|m| (*m, run(capture, *m))).collect();
        let ints = |m: Mode| results[&m].interrupts();
        for m in Mode::ALL {
            assert!(
                ints(Mode::MinCpu) <= ints(m),
                "{capture}: MINCPU {} > {m:?} {}",
                ints(Mode::MinCpu),
                ints(m)
            );
        }
        assert!(ints(Mode::MinCpu) < ints(Mode::MinLatency), "{capture}");
        let primary = |m: Mode| {
            let iface = if capture.contains("ipv6") {
                "OSAV6"
            } else {
                "OSAV4"
            };
            results[&m]
                .queue(iface, QueueKind::Primary)
                .expect("primary queue")
                .hold
                .clone()
        };
        let mean = |m: Mode| primary(m).mean_us.expect("frames held");
        // Static timers: MINLATENCY < BALANCED < MINCPU in added delay.
        assert!(mean(Mode::MinLatency) < mean(Mode::Balanced), "{capture}");
        assert!(mean(Mode::Balanced) < mean(Mode::MinCpu), "{capture}");
        // DYNAMIC may go lower still on pure request/response (its gap
        // timer falls to the floor), so only the static modes are ranked.
        // No frame waits longer than the block hold timer (+ gap) of its mode.
        assert!(primary(Mode::MinLatency).max_us.unwrap() <= 40.0 + 1e-6);
        assert!(primary(Mode::Balanced).max_us.unwrap() <= 250.0 + 40.0);
    }
}

fn expected_flows(capture: &str) -> Vec<(String, u16, String, u16, u64)> {
    std::fs::read_to_string(data("expected-flows.txt"))
        .unwrap()
        .lines()
        .filter(|l| l.starts_with(capture))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (
                w[1].into(),
                w[2].parse().unwrap(),
                w[3].into(),
                w[4].parse().unwrap(),
                w[5].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn frames_are_accounted_for_and_flows_match_tshark() {
    for capture in CAPTURES {
        for mode in Mode::ALL {
            let r = run(capture, mode);
            let t = &r.totals;
            assert!(r.unavailable.is_none(), "{capture} {mode:?}");
            let skipped: u64 = t.reader_skipped.values().map(|s| s.count).sum();
            assert!(t.unusable.is_empty(), "{capture}: {:?}", t.unusable);
            assert_eq!(
                t.records,
                t.inbound + t.outbound + t.adapter_arp + t.foreign + t.loopback + skipped,
                "{capture}"
            );
            assert_eq!(
                t.foreign, 0,
                "{capture}: every frame is to or from the host"
            );
            // frames in = presented + forwarded + handled + dropped (+ held, 0 after the drain).
            assert_eq!(t.engine_frames_in, t.inbound, "{capture} {mode:?}");
            assert_eq!(t.engine_held, 0, "{capture} {mode:?}");
            let dropped: u64 = t.inbound_dropped.values().sum();
            assert_eq!(t.engine_dropped, dropped);
            assert_eq!(
                t.engine_frames_in + t.engine_replicated,
                t.engine_presented + t.engine_forwarded + t.engine_handled + t.engine_dropped,
                "{capture} {mode:?}"
            );
            assert!(t.balanced);
            assert_eq!(
                r.frames_presented(),
                t.engine_presented + t.engine_replicated
            );
            assert_eq!(t.stuck_timers, 0);
            // Per-flow packet counts agree with tshark's, both directions.
            for (src, sport, dst, dport, n) in expected_flows(capture) {
                let (remote_port, inbound) = if src.ends_with("::2") || src == "192.0.2.2" {
                    (sport, true)
                } else {
                    (dport, false)
                };
                let f = r
                    .flows
                    .iter()
                    .find(|f| {
                        f.remote_port == remote_port
                            && f.local_port == if inbound { dport } else { sport }
                    })
                    .unwrap_or_else(|| panic!("{capture}: flow {src}:{sport} > {dst}:{dport}"));
                let got = if inbound { f.packets_in } else { f.packets_out };
                assert_eq!(got, n, "{capture} {mode:?}: {src}:{sport} > {dst}:{dport}");
            }
        }
    }
}

#[test]
fn host_service_time_turns_interrupts_into_polls_on_bulkdata() {
    // BULKDATA is serviced by one unit of work at a time: while the host is
    // still busy with a batch, the next one is found without an interrupt.
    let cfg = load_config(&data("host.prof")).unwrap();
    let slow = ReplayOptions {
        host_service: core::time::Duration::from_millis(5),
        ..ReplayOptions::default()
    };
    let reader = CaptureReader::open(&data("iperf3-tcp.pcap")).unwrap();
    let r = replay_mode(
        reader,
        &cfg,
        Mode::DynamicWorkloadq,
        &slow,
        Hooks::default(),
    )
    .unwrap();
    let bulk = r.queue("OSAV4", QueueKind::BulkData).unwrap();
    assert!(bulk.vtam.pcivirt > 0, "{:?}", bulk.vtam);
    assert!(bulk.interrupts < bulk.presentations);
    let fast = run("iperf3-tcp.pcap", Mode::DynamicWorkloadq);
    let fast_bulk = fast.queue("OSAV4", QueueKind::BulkData).unwrap();
    assert_eq!(fast_bulk.vtam.pcivirt, 0);
}

#[test]
fn annotated_capture_keeps_every_record_with_its_queue() {
    let cfg = load_config(&data("host.prof")).unwrap();
    let mut w = PcapNgWriter::new(Vec::new()).unwrap();
    let reader = CaptureReader::open(&data("mix.pcap")).unwrap();
    let hooks = Hooks {
        sink: Some(&mut w),
        ..Hooks::default()
    };
    let r = replay_mode(
        reader,
        &cfg,
        Mode::DynamicWorkloadq,
        &ReplayOptions::default(),
        hooks,
    )
    .unwrap();
    let out = w.finish().unwrap();
    // Same records, same order and timestamps, on an interface with the
    // capture's link type and snap length.
    let mut a = CaptureReader::new(&out[..]).unwrap();
    let mut b = CaptureReader::open(&data("mix.pcap")).unwrap();
    let mut n = 0;
    loop {
        let x = a
            .next_record()
            .unwrap()
            .map(|r| (r.ts_ns, r.raw.to_vec(), r.capture_if));
        let y = b
            .next_record()
            .unwrap()
            .map(|r| (r.ts_ns, r.raw.to_vec(), r.capture_if));
        assert_eq!(x, y, "record {}", n + 1);
        if x.is_none() {
            break;
        }
        n += 1;
    }
    assert_eq!(n, r.totals.records);
    // Comments: as many BULKDATA presentations as frames BULKDATA took.
    let text = String::from_utf8_lossy(&out);
    let bulk = r.queue("OSAV4", QueueKind::BulkData).unwrap().frames;
    assert_eq!(
        text.matches("queue 2 BULKDATA presented at").count() as u64,
        bulk
    );
    let primary = r.queue("OSAV4", QueueKind::Primary).unwrap().frames;
    assert_eq!(
        text.matches("queue 1 PRIMARY presented at").count() as u64,
        primary
    );
    assert_eq!(
        text.matches("outbound on write queue").count() as u64,
        r.totals.outbound
    );
    // Frames of one presentation share its number and its interrupt: the
    // distinct numbers said to come with an interrupt are the queue's
    // interrupts, and each presentation's frames say how many they are.
    for (q, label) in [
        (QueueKind::BulkData, "2 BULKDATA"),
        (QueueKind::Primary, "1 PRIMARY"),
    ] {
        let mut with: std::collections::BTreeSet<u64> = Default::default();
        let mut sizes: std::collections::BTreeMap<u64, (u64, u64)> = Default::default();
        let head = format!("queue {label} presented at ");
        for c in text.split("softosa: ").filter(|c| c.contains(&head)) {
            let tail = c.split("presentation ").nth(1).unwrap();
            let n: u64 = tail.split(' ').next().unwrap().parse().unwrap();
            let frames: u64 = tail
                .split('(')
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let e = sizes.entry(n).or_insert((frames, 0));
            assert_eq!(e.0, frames, "{label} presentation {n}");
            e.1 += 1;
            if tail.contains("with an interrupt") {
                with.insert(n);
            }
        }
        let qr = r.queue("OSAV4", q).unwrap();
        assert_eq!(with.len() as u64, qr.interrupts, "{label}");
        assert!(sizes.values().all(|(said, seen)| said == seen), "{label}");
    }
}

#[test]
fn unknown_interface_and_foreign_traffic_are_reported() {
    let cfg = load_config(&data("host.prof")).unwrap();
    let opts = ReplayOptions {
        interfaces: vec!["NOSUCH".into()],
        ..ReplayOptions::default()
    };
    let reader = CaptureReader::open(&data("sll.pcap")).unwrap();
    let e = replay_mode(reader, &cfg, Mode::Balanced, &opts, Hooks::default()).unwrap_err();
    assert!(
        e.to_string().contains("NOSUCH") && e.to_string().contains("OSAV4"),
        "{e}"
    );
    // Only the IPv6 interface analysed: the IPv4 capture is foreign to it.
    let opts = ReplayOptions {
        interfaces: vec!["osav6".into()],
        ..ReplayOptions::default()
    };
    let reader = CaptureReader::open(&data("sockperf-rr.pcap")).unwrap();
    let r = replay_mode(reader, &cfg, Mode::Balanced, &opts, Hooks::default()).unwrap();
    let tcp: u64 = expected_flows("sockperf-rr.pcap").iter().map(|f| f.4).sum();
    assert_eq!(r.totals.foreign, tcp, "every TCP frame is foreign to OSAV6");
    assert!(r.flows.iter().all(|f| f.proto != "TCP"));
    // What remains are the IPv6 group frames (MLD), inbound to OSAV6.
    assert_eq!(r.totals.inbound, r.totals.records - tcp);
}

mod cli {
    use super::data;
    use clap::Parser;
    use softosa_replay::cli::{build_report, run, ReplayArgs};

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: ReplayArgs,
    }

    fn args(extra: &[&str]) -> ReplayArgs {
        let capture = data("mix.pcap");
        let profile = data("host.prof");
        let mut v = vec![
            "softosa-replay".to_string(),
            capture.display().to_string(),
            "--profile".into(),
            profile.display().to_string(),
        ];
        v.extend(extra.iter().map(|s| s.to_string()));
        Cli::try_parse_from(v).expect("arguments").args
    }

    fn tmp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("softosa-replay-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn every_output_is_written_and_consistent() {
        let html = tmp("r.html");
        let json = tmp("r.json");
        let ann = tmp("r.pcapng");
        let smcat = tmp("smcat.cfg");
        std::fs::write(&smcat, "SMCATCFG INTERVAL 30\nIPADDR\n192.0.2.0/24\n").unwrap();
        let a = args(&[
            "--format",
            "json",
            "-o",
            json.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
            "--annotate",
            ann.to_str().unwrap(),
            "--smcat",
            smcat.to_str().unwrap(),
            "--zert",
            "--mode",
            "balanced",
            "--mode",
            "mincpu",
        ]);
        run(a).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let modes = v["modes"].as_array().unwrap();
        // Two requested plus the profile's own DYNAMIC WORKLOADQ for --annotate.
        let labels: Vec<&str> = modes.iter().map(|m| m["label"].as_str().unwrap()).collect();
        assert_eq!(labels, ["BALANCED", "MINCPU", "DYNAMIC WORKLOADQ"]);
        // `mode` is spelled as the label is, not as the Rust variant.
        let names: Vec<&str> = modes.iter().map(|m| m["mode"].as_str().unwrap()).collect();
        assert_eq!(names, labels);
        assert_eq!(v["annotated_mode"], "DYNAMIC WORKLOADQ");
        assert_eq!(v["smcat"]["potential"]["total_connections"], 3);
        assert_eq!(v["smcat"]["potential"]["eligible_connections"], 3);
        assert_eq!(v["zert"]["connections"].as_array().unwrap().len(), 3);
        // Connections and sessions describe protection alike: a kind in
        // snake case, the text report's label, version and cipher.
        for list in ["connections", "sessions"] {
            for c in v["zert"][list].as_array().unwrap() {
                let p = &c["protection"];
                assert_eq!(p["kind"], "clear_text", "{list}: {p}");
                assert_eq!(p["label"], "clear text", "{list}: {p}");
                assert!(p["version"].is_null() && p["cipher"].is_null(), "{p}");
            }
        }
        let page = std::fs::read_to_string(&html).unwrap();
        assert!(page.contains("<svg") && page.contains("BULKDATA"));
        assert!(
            !page.contains("<script") && !page.contains("<link"),
            "self-contained"
        );
        // The annotated capture reads back with every record.
        let mut r = softosa_replay::capture::CaptureReader::open(&ann).unwrap();
        let mut n = 0;
        while r.next_record().unwrap().is_some() {
            n += 1;
        }
        assert_eq!(n, 2023);
        // Wireshark's reader sees the comments, when tshark is installed.
        if let Ok(out) = std::process::Command::new("tshark")
            .args([
                "-r",
                ann.to_str().unwrap(),
                "-T",
                "fields",
                "-e",
                "frame.comment",
            ])
            .output()
        {
            if out.status.success() {
                let text = String::from_utf8_lossy(&out.stdout);
                assert_eq!(
                    text.lines().filter(|l| l.contains("softosa:")).count(),
                    2023
                );
                assert!(text.contains("queue 2 BULKDATA presented at"));
            }
        }
    }

    #[test]
    fn text_report_puts_modes_side_by_side() {
        let r = build_report(&args(&[])).unwrap();
        let text = softosa_replay::report::render_text(&r);
        let header = text.lines().find(|l| l.starts_with("INBPERF")).unwrap();
        for m in [
            "BALANCED",
            "MINCPU",
            "MINLATENCY",
            "DYNAMIC",
            "DYN+IWQ",
            "OLM",
        ] {
            assert!(header.contains(m), "{header}");
        }
        let ints = text
            .lines()
            .find(|l| l.starts_with("Interrupts (all queues)"))
            .unwrap();
        let cells: Vec<u64> = ints
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        let expect: Vec<u64> = r.modes.iter().map(|m| m.interrupts()).collect();
        assert_eq!(cells, expect);
        assert!(text.contains("DIR = RD/2 (BULKDATA)"));
    }

    #[test]
    fn user_errors_are_messages_not_panics() {
        let e = build_report(&args(&["--interface", "NOPE"])).unwrap_err();
        assert!(e.to_string().contains("NOPE"), "{e}");
        let bad = tmp("bad.prof");
        std::fs::write(
            &bad,
            "INTERFACE X\n  DEFINE IPAQENET\n  INBPERF SOMETIMES\n",
        )
        .unwrap();
        let mut a = args(&[]);
        a.profile = bad.clone();
        let e = build_report(&a).unwrap_err().to_string();
        assert!(e.contains("bad.prof:3"), "{e}");
        let mut a = args(&[]);
        a.capture = data("host.prof");
        let e = build_report(&a).unwrap_err().to_string();
        assert!(e.contains("not a pcap or pcapng file"), "{e}");
        assert!(Cli::try_parse_from(["x", "c.pcap", "-p", "p", "--mode", "fast"]).is_err());
    }

    #[test]
    fn modes_are_taken_as_a_comma_separated_list_or_repeated() {
        use softosa_replay::replay::Mode;
        let a = args(&["--mode", "BALANCED,olm", "--mode", "dyn+iwq"]);
        assert_eq!(a.modes, [Mode::Balanced, Mode::Olm, Mode::DynamicWorkloadq]);
        // The INBPERF words keep their space inside a list.
        let a = args(&["--mode", "MINCPU,DYNAMIC WORKLOADQ"]);
        assert_eq!(a.modes, [Mode::MinCpu, Mode::DynamicWorkloadq]);
        let e = Cli::try_parse_from(["x", "c.pcap", "-p", "p", "--mode", "BALANCED,fast"]);
        assert!(e.is_err());
    }
}

#[test]
fn zert_reads_tls_and_ssh_as_tshark_does() {
    use softosa_replay::zert::{cipher_name, ZertAnalyzer};
    let cfg = load_config(&data("host.prof")).unwrap();
    let mut z = ZertAnalyzer::new(100);
    let reader = CaptureReader::open(&data("tls-ssh.pcap")).unwrap();
    let hooks = Hooks {
        observers: vec![&mut z],
        ..Hooks::default()
    };
    replay_mode(
        reader,
        &cfg,
        Mode::Balanced,
        &ReplayOptions::default(),
        hooks,
    )
    .unwrap();
    let report = z.finish();
    assert_eq!(report.connections.len(), 3);
    let labels: Vec<String> = report
        .connections
        .iter()
        .map(|c| c.protection.label())
        .collect();
    let truth = std::fs::read_to_string(data("expected-tls.txt")).unwrap();
    let mut checked = 0;
    for line in truth.lines().filter(|l| !l.starts_with('#')) {
        let (port, rest) = line.split_once(' ').unwrap();
        let (kind, value) = rest.split_once(' ').unwrap();
        let port: u16 = port.parse().unwrap();
        match kind {
            "cipher" => {
                let id = u16::from_str_radix(value.trim_start_matches("0x"), 16).unwrap();
                let version = if (0x1301..=0x1305).contains(&id) {
                    "TLSv1.3"
                } else {
                    "TLSv1.2"
                };
                let want = format!("{version} {}", cipher_name(id));
                assert!(labels.contains(&want), "{want} not in {labels:?}");
            }
            "ssh" => {
                let c = report
                    .connections
                    .iter()
                    .find(|c| c.server_port == port)
                    .expect("ssh connection");
                assert_eq!(c.protection.label(), format!("SSH {value}"));
            }
            other => panic!("unknown ground truth kind {other}"),
        }
        checked += 1;
    }
    assert_eq!(checked, 3);
    // The host is the server of every connection.
    assert!(report
        .connections
        .iter()
        .all(|c| c.server.to_string() == "192.0.2.1"));
    // And the plain iperf3/sockperf traffic is clear text.
    let mut z = ZertAnalyzer::new(100);
    let reader = CaptureReader::open(&data("mix.pcap")).unwrap();
    let hooks = Hooks {
        observers: vec![&mut z],
        ..Hooks::default()
    };
    replay_mode(
        reader,
        &cfg,
        Mode::Balanced,
        &ReplayOptions::default(),
        hooks,
    )
    .unwrap();
    let r = z.finish();
    assert!(r
        .connections
        .iter()
        .all(|c| c.protection.label() == "clear text"));
    assert!(r.ipsec.is_empty());
}

#[test]
fn timestamps_going_backwards_are_counted_and_replayed_in_order() {
    // sockperf-rr.pcap with the seconds of the record at byte `off` moved.
    let restamped = |off: usize, by: i64| {
        let mut bytes = std::fs::read(data("sockperf-rr.pcap")).unwrap();
        let sec = u32::from_le_bytes(bytes[off..off + 4].try_into().unwrap());
        let sec = u32::try_from(i64::from(sec) + by).unwrap();
        bytes[off..off + 4].copy_from_slice(&sec.to_le_bytes());
        replay_reader(CaptureReader::new(&bytes[..]).unwrap(), Mode::Balanced)
    };
    // Record 5 restamped one second earlier.
    let bytes = std::fs::read(data("sockperf-rr.pcap")).unwrap();
    let mut off = 24;
    for _ in 0..4 {
        let caplen = u32::from_le_bytes(bytes[off + 8..off + 12].try_into().unwrap()) as usize;
        off += 16 + caplen;
    }
    let r = restamped(off, -1);
    assert_eq!(r.totals.timestamps_backwards, 1);
    assert!(r.totals.balanced);
    assert_eq!(r.totals.engine_held, 0);
    let text_total: u64 = r.queues.iter().map(|q| q.frames).sum();
    assert_eq!(text_total, r.totals.inbound);
    // The first record stamped ten seconds late: every later record is
    // earlier than it and is replayed at its time, so each is counted.
    let r = restamped(24, 10);
    assert_eq!(r.totals.timestamps_backwards, r.totals.records - 1);
}

#[test]
fn a_record_length_beyond_the_snap_length_is_called_damaged_not_cut() {
    let f = common::tcp_in(false, 5, 10);
    let mut bytes = common::pcap(128, &common::whole(&[f.clone(), f.clone(), f.clone(), f]));
    // Record 3's captured length (after the 24-byte file header and two
    // records of 16 + 64 bytes) made 200,000: past the end of the file.
    let at = 24 + 2 * (16 + 64);
    bytes[at + 8..at + 12].copy_from_slice(&200_000u32.to_le_bytes());
    let mut r = CaptureReader::new(&bytes[..]).unwrap();
    assert!(r.next_record().unwrap().is_some());
    assert!(r.next_record().unwrap().is_some());
    match r.next_record() {
        Err(softosa_replay::capture::CaptureError::DamagedLength {
            record: 3,
            claimed: 200_000,
            snaplen: 128,
            ..
        }) => {}
        other => panic!("expected a damaged length, got {other:?}"),
    }
    // The records before it are replayed, with the reason in words.
    let m = replay_reader(CaptureReader::new(&bytes[..]).unwrap(), Mode::Balanced);
    assert_eq!(m.totals.records, 2);
    let why = m.totals.truncated.as_deref().expect("reading stopped");
    assert!(
        why.contains("record 3 (at byte 184) looks damaged")
            && why.contains("claims 200000 bytes, more than the file's snap length of 128")
            && !why.contains("file ends"),
        "{why}"
    );
}

#[test]
fn truncated_capture_is_replayed_up_to_the_cut() {
    let bytes = std::fs::read(data("sockperf-rr.pcap")).unwrap();
    let cut = &bytes[..bytes.len() - 7];
    let cfg = load_config(&data("host.prof")).unwrap();
    let reader = CaptureReader::new(cut).unwrap();
    let r = replay_mode(
        reader,
        &cfg,
        Mode::Balanced,
        &ReplayOptions::default(),
        Hooks::default(),
    )
    .unwrap();
    let why = r.totals.truncated.as_deref().expect("truncation reported");
    assert!(why.contains("record 809"), "{why}");
    assert_eq!(r.totals.records, 808);
    assert!(r.totals.balanced);
    // A damaged (not merely cut) capture is an error.
    let mut bad = bytes.clone();
    bad[24 + 8..24 + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    let reader = CaptureReader::new(&bad[..]).unwrap();
    assert!(replay_mode(
        reader,
        &cfg,
        Mode::Balanced,
        &ReplayOptions::default(),
        Hooks::default()
    )
    .is_err());
}

#[test]
fn address_option_names_the_host_when_the_profile_differs() {
    let mut cfg = load_config(&data("host.prof")).unwrap();
    for i in cfg.interfaces.iter_mut().filter(|i| i.name == "OSAV4") {
        i.addresses[0].addr = "198.51.100.1".parse().unwrap();
    }
    let run_with = |extra: Vec<std::net::IpAddr>| {
        let opts = ReplayOptions {
            extra_addresses: extra,
            ..ReplayOptions::default()
        };
        let reader = CaptureReader::open(&data("mix.pcap")).unwrap();
        replay_mode(
            reader,
            &cfg,
            Mode::DynamicWorkloadq,
            &opts,
            Hooks::default(),
        )
        .unwrap()
    };
    let without = run_with(Vec::new());
    let tcp: u64 = expected_flows("mix.pcap").iter().map(|f| f.4).sum();
    assert!(without.totals.foreign >= tcp);
    let with = run_with(vec!["192.0.2.1".parse().unwrap()]);
    let normal = run("mix.pcap", Mode::DynamicWorkloadq);
    assert_eq!(with.totals.inbound, normal.totals.inbound);
    assert_eq!(with.totals.foreign, 0);
    assert!(with.flow(40003).unwrap().bulk_registered_us.is_some());
}

/// Hand-built captures (tests/common): frames the committed captures do
/// not hold, each checked against what it is.
mod built {
    use super::common::{pcap, tcp_in, whole};
    use super::replay_reader;
    use softosa_engine::QueueKind;
    use softosa_replay::capture::CaptureReader;
    use softosa_replay::replay::{Mode, ModeResult};

    fn replay(bytes: &[u8], mode: Mode) -> ModeResult {
        replay_reader(CaptureReader::new(bytes).expect("capture"), mode)
    }

    fn unusable(r: &ModeResult, what: &str) -> u64 {
        r.totals
            .unusable
            .iter()
            .filter(|(why, _)| why.contains(what))
            .map(|(_, s)| s.count)
            .sum()
    }

    #[test]
    fn frames_cut_by_the_snap_length_or_malformed_are_not_foreign() {
        let good = tcp_in(false, 5, 100);
        // TCP with timestamps (8 words) cut at 44: inside the fixed part of
        // the TCP header. Cut at 60, only its options are cut: replayed.
        let opts = tcp_in(false, 8, 100);
        // IPv6 cut at 50: inside the IPv6 header (14 + 40).
        let v6 = tcp_in(true, 5, 100);
        // IPv4 cut at 30: inside the IPv4 header.
        let mut frames = vec![(good.clone(), good.len() as u32)];
        for (f, cut) in [(&opts, 44), (&v6, 50), (&good, 30), (&opts, 60)] {
            frames.push((f[..cut].to_vec(), f.len() as u32));
        }
        // Complete frames with an IPv4 header length of 4 words, and a TCP
        // data offset of 4 words.
        let mut ihl = good.clone();
        ihl[14] = 0x44;
        let mut doff = good.clone();
        doff[34 + 12] = 0x40;
        frames.extend(whole(&[ihl, doff]));
        let r = replay(&pcap(65535, &frames), Mode::Balanced);
        let t = &r.totals;
        assert_eq!(t.foreign, 0, "{t:?}");
        assert_eq!(t.inbound, 2, "{t:?}");
        assert_eq!(
            unusable(&r, "cut by the snap length inside its TCP header"),
            1
        );
        assert_eq!(
            unusable(&r, "cut by the snap length inside its IPv6 header"),
            1
        );
        assert_eq!(
            unusable(&r, "cut by the snap length inside its IPv4 header"),
            1
        );
        assert_eq!(unusable(&r, "malformed IPv4 header"), 1);
        assert_eq!(unusable(&r, "malformed TCP header"), 1);
        let skipped: u64 = t.reader_skipped.values().map(|s| s.count).sum();
        let unusable: u64 = t.unusable.values().map(|s| s.count).sum();
        assert_eq!(
            t.records,
            t.inbound + t.outbound + t.foreign + t.loopback + skipped + unusable
        );
    }

    #[test]
    fn payload_is_bounded_by_the_frame_on_the_wire() {
        // A 9014-byte frame captured with -s 54: its IP header says 9000
        // bytes, and the wire had them: 8960 bytes of TCP payload.
        let jumbo = tcp_in(false, 5, 8960);
        // A 54-byte frame whose IP header also says 9000: it cannot have
        // carried them.
        let mut liar = tcp_in(false, 5, 0);
        liar[16..18].copy_from_slice(&9000u16.to_be_bytes());
        let frames = [(jumbo.clone(), jumbo.len() as u32), (liar, 54)];
        let r = replay(&pcap(54, &frames), Mode::Balanced);
        let f = r.flow(40001).expect("flow");
        assert_eq!((f.packets_in, f.payload_in), (1, 8960));
        assert_eq!(f.bytes_in, 9014);
        assert_eq!(
            unusable(&r, "its length is larger than the frame on the wire"),
            1
        );
        assert_eq!(r.totals.inbound, 1);
    }

    #[test]
    fn a_big_tcp_frame_with_ipv4_total_length_zero_is_replayed() {
        // Linux BIG TCP: GSO packets over 64 KiB carry IPv4 total length 0;
        // tcpdump on such a host records them whole on the wire (here
        // 100 014 bytes) and cut at its snap length.
        let wire = 100_014u32;
        let mut inbound = tcp_in(false, 5, 0);
        inbound[16..18].copy_from_slice(&[0, 0]);
        let mut outbound = inbound.clone();
        outbound[26..30].copy_from_slice(&[192, 0, 2, 1]);
        outbound[30..34].copy_from_slice(&[192, 0, 2, 2]);
        let frames = [(outbound, wire), (inbound, wire)];
        let r = replay(&pcap(128, &frames), Mode::Balanced);
        let t = &r.totals;
        assert!(t.unusable.is_empty(), "{:?}", t.unusable);
        assert_eq!((t.inbound, t.outbound, t.foreign), (1, 1, 0), "{t:?}");
        // Sent by the host: its length and payload are the wire's.
        let sent = r
            .flows
            .iter()
            .find(|f| f.local_port == 40001)
            .expect("outbound flow");
        assert_eq!(
            (sent.packets_out, sent.bytes_out, sent.payload_out),
            (1, u64::from(wire), u64::from(wire) - 54)
        );
        // Received: read, and then dropped by the adapter for its size.
        assert_eq!(t.inbound_dropped.get("frame larger than an SBAL"), Some(&1));
        assert_eq!(r.flow(40001).map(|f| f.dropped_in), Some(1));
    }

    #[test]
    fn a_big_tcp_ipv6_frame_with_a_jumbo_payload_option_is_replayed() {
        // Linux IPv6 BIG TCP: payload length 0, and a Hop-by-Hop header
        // with the Jumbo Payload option (RFC 2675) giving the length, which
        // tcpdump records; here 100 000 bytes of TCP payload.
        let jumbo = 8 + 20 + 100_000u32;
        let wire = 14 + 40 + jumbo;
        let mut f = tcp_in(true, 5, 0);
        f[18..20].copy_from_slice(&[0, 0]);
        let mut hbh = vec![f[20], 0, 0xc2, 4];
        hbh.extend_from_slice(&jumbo.to_be_bytes());
        f[20] = 0;
        f.splice(54..54, hbh);
        let r = replay(&pcap(128, &[(f, wire)]), Mode::Balanced);
        let t = &r.totals;
        assert!(t.unusable.is_empty(), "{:?}", t.unusable);
        assert_eq!((t.inbound, t.foreign), (1, 0), "{t:?}");
        // Read, and then dropped by the adapter for its size.
        assert_eq!(t.inbound_dropped.get("frame larger than an SBAL"), Some(&1));
        assert_eq!(r.flow(40001).map(|f| f.dropped_in), Some(1));
    }

    /// `f` with VLAN tags of the given types (VLAN 10, 20, ...) after its MACs.
    fn tagged(f: &[u8], tags: &[u16]) -> Vec<u8> {
        let mut t = f[..12].to_vec();
        for (n, &tpid) in tags.iter().enumerate() {
            t.extend_from_slice(&tpid.to_be_bytes());
            t.extend_from_slice(&(10 * (n as u16 + 1)).to_be_bytes());
        }
        t.extend_from_slice(&f[12..]);
        t
    }

    #[test]
    fn stacked_vlan_tags_are_counted_apart_not_as_foreign() {
        let f = tcp_in(false, 5, 10);
        let frames = [
            f.clone(),
            tagged(&f, &[0x88a8, 0x8100]),
            tagged(&f, &[0x8100, 0x8100]),
        ];
        let r = replay(&pcap(65535, &whole(&frames)), Mode::Balanced);
        let t = &r.totals;
        assert_eq!(t.foreign, 0, "{t:?}");
        assert_eq!(t.inbound, 1, "{t:?}");
        assert_eq!(unusable(&r, "stacked VLAN tags"), 2, "{:?}", t.unusable);
    }

    #[test]
    fn unusable_frames_for_the_host_count_as_invalid_frames_once() {
        // Cut inside the TCP header: one to the IPv4 host, one from it, one
        // between two other hosts.
        let opts = tcp_in(false, 8, 100);
        let mut out = opts.clone();
        out[26..30].copy_from_slice(&[192, 0, 2, 1]);
        out[30..34].copy_from_slice(&[192, 0, 2, 2]);
        let mut other = opts.clone();
        other[26..30].copy_from_slice(&[198, 51, 100, 7]);
        other[30..34].copy_from_slice(&[198, 51, 100, 8]);
        // A broadcast cut inside its IPv4 header (its destination is lost),
        // and an IPv6 frame to the host cut inside its TCP header.
        let mut bcast = tcp_in(false, 5, 100);
        bcast[..6].copy_from_slice(&[0xff; 6]);
        let v6 = tcp_in(true, 8, 100);
        // Unusable to the replay, but read by the engine, so never invalid
        // frames: an IPv6 frame to the host behind stacked VLAN tags, and an
        // IPv4 one whose total length is larger than the frame on the wire.
        let stacked = tagged(&tcp_in(true, 5, 10), &[0x88a8, 0x8100]);
        let mut longer = tcp_in(false, 5, 0);
        longer[16..18].copy_from_slice(&9000u16.to_be_bytes());
        let good = tcp_in(false, 5, 10);
        let mut frames = whole(&[good, stacked, longer]);
        // (Cut 10 bytes into TCP: inside its fixed part.)
        for (f, cut) in [
            (&opts, 44),
            (&out, 44),
            (&other, 44),
            (&bcast, 30),
            (&v6, 64),
        ] {
            frames.push((f[..cut].to_vec(), f.len() as u32));
        }
        let capture = pcap(65535, &frames);
        for mode in Mode::ALL {
            let r = replay(&capture, mode);
            let t = &r.totals;
            let unusable: u64 = t.unusable.values().map(|s| s.count).sum();
            assert_eq!(unusable, 7, "{mode:?} {t:?}");
            let frinvct = |iface: &str, q: QueueKind| r.queue(iface, q).map(|x| x.vtam.frinvct);
            assert_eq!(frinvct("OSAV4", QueueKind::Primary), Some(1), "{mode:?}");
            assert_eq!(frinvct("OSAV6", QueueKind::Primary), Some(1), "{mode:?}");
            let elsewhere: u64 = r
                .queues
                .iter()
                .filter(|q| q.queue != "PRIMARY")
                .map(|q| q.vtam.frinvct)
                .sum();
            assert_eq!(elsewhere, 0, "{mode:?}");
            assert_eq!(t.invalid_charged, 2, "{mode:?}");
            assert_eq!(t.port_invalid.get("OSAPRT1"), Some(&1), "{mode:?}");
            // The engine never saw them: its accounting holds the one frame
            // it was given, and drops nothing as invalid.
            assert_eq!((t.inbound, t.engine_frames_in), (1, 1), "{mode:?}");
            assert!(!t.inbound_dropped.contains_key("invalid frame"), "{mode:?}");
            assert!(t.balanced, "{mode:?}");
        }
    }

    #[test]
    fn an_invalid_frame_to_a_shared_mac_is_counted_on_the_port_as_the_engine_does() {
        use super::{data, load_config, replay_mode, Hooks, ReplayOptions};
        // host.prof without its VMACs: OSAV4 and OSAV6 share the port's MAC.
        let mut cfg = load_config(&data("host.prof")).expect("profile");
        for i in cfg.interfaces.iter_mut() {
            i.vmac = None;
        }
        let port_mac = cfg.ports[0].physical_mac;
        // To OSAV6's address, cut inside its TCP header; to the port's MAC,
        // cut before its IP addresses.
        let v6 = tcp_in(true, 8, 100);
        let mut by_mac = tcp_in(false, 5, 100);
        by_mac[..6].copy_from_slice(&port_mac.0);
        let mut frames = whole(&[tcp_in(false, 5, 10)]);
        frames.push((v6[..64].to_vec(), v6.len() as u32));
        frames.push((by_mac[..20].to_vec(), by_mac.len() as u32));
        let capture = pcap(65535, &frames);
        // DYN+IWQ assumes a VMAC for each: the frame to OSAV6's address is
        // then addressed to OSAV6's own MAC, and counted there, and the
        // port's MAC is no analysed interface's, so the frame to it is not
        // counted (a readable one would be foreign).
        for (mode, on_v6, on_port) in [
            (Mode::Balanced, 0, Some(&2)),
            (Mode::DynamicWorkloadq, 1, None),
        ] {
            let reader = CaptureReader::new(&capture[..]).expect("capture");
            let opts = ReplayOptions::default();
            let r = replay_mode(reader, &cfg, mode, &opts, Hooks::default()).expect("replay");
            let frinvct = |iface: &str| {
                r.queue(iface, QueueKind::Primary)
                    .map_or(0, |q| q.vtam.frinvct)
            };
            let t = &r.totals;
            // Never the first interface sharing the MAC.
            assert_eq!(frinvct("OSAV4"), 0, "{mode:?}");
            assert_eq!(frinvct("OSAV6"), on_v6, "{mode:?}");
            assert_eq!(t.invalid_charged, on_v6, "{mode:?}");
            assert_eq!(t.port_invalid.get("OSAPRT1"), on_port, "{mode:?}");
        }
    }

    /// Traffic to and from a static VIPA of the host's stack is the host's:
    /// inbound to the VIPA, presented to the stack through an interface
    /// without VMAC (it registered the VIPA), and outbound from it.
    #[test]
    fn traffic_of_a_vipa_is_the_hosts() {
        use super::common::tcp_between;
        use super::{data, load_config, replay_mode, Hooks, ReplayOptions};
        let mut cfg = load_config(&data("host.prof")).expect("profile");
        for i in cfg.interfaces.iter_mut() {
            i.vmac = None;
        }
        cfg.stacks[0].vipas = vec![
            "10.9.9.9".parse().unwrap(),
            "2001:db8:9::9".parse().unwrap(),
        ];
        // An IPv6 VIPA is the host's as well: the IPv6 interface registers
        // it (INTERFACE IPAQENET6).
        let frames = whole(&[
            tcp_between("192.0.2.2", "10.9.9.9"),
            tcp_between("10.9.9.9", "192.0.2.2"),
            tcp_between("192.0.2.2", "10.9.9.10"),
            tcp_between("2001:db8::2", "2001:db8:9::9"),
            tcp_between("2001:db8:9::9", "2001:db8::2"),
        ]);
        let capture = pcap(65535, &frames);
        for mode in [Mode::Balanced, Mode::DynamicWorkloadq] {
            let reader = CaptureReader::new(&capture[..]).expect("capture");
            let opts = ReplayOptions::default();
            let r = replay_mode(reader, &cfg, mode, &opts, Hooks::default()).expect("replay");
            let t = &r.totals;
            assert_eq!(
                (t.inbound, t.outbound, t.foreign),
                (2, 2, 1),
                "{mode:?} {t:?}"
            );
            assert_eq!(t.inbound_queued, 2, "{mode:?} {t:?}");
            assert!(t.inbound_dropped.is_empty(), "{mode:?} {t:?}");
        }
    }

    #[test]
    fn a_frame_dropped_as_larger_than_an_sbal_is_not_counted_in_its_flow() {
        // Two IPv6 frames of one flow (a 64 KiB payload length makes the
        // second larger than an SBAL even without its Ethernet header),
        // captured with -s 128.
        let small = tcp_in(true, 5, 10);
        let big = tcp_in(true, 5, 65535 - 20);
        let frames = [
            (small.clone(), small.len() as u32),
            (big.clone(), big.len() as u32),
        ];
        let r = replay(&pcap(128, &frames), Mode::Balanced);
        let t = &r.totals;
        assert_eq!(t.inbound, 2);
        assert_eq!(t.inbound_dropped.get("frame larger than an SBAL"), Some(&1));
        let f = r.flow(40001).expect("flow");
        assert_eq!(
            (f.packets_in, f.bytes_in, f.payload_in, f.dropped_in),
            (1, small.len() as u64, 10, 1)
        );
        let queued = f.queues.total();
        assert_eq!(queued, 1);
    }

    /// Two stacks sharing the port OSAPRT1, each with an IPv6 interface:
    /// a multicast frame to ff02::1 is copied to both.
    fn two_stacks_sharing_a_port() -> softosa_engine::config::SystemConfig {
        use softosa_profile::activate::{activate, ActivateOptions, StackInput};
        let profiles: Vec<_> = [("A", "2001:db8::1"), ("B", "2001:db8::3")]
            .iter()
            .map(|(n, addr)| {
                let src = format!(
                    "INTERFACE OSAV6{n} DEFINE IPAQENET6 IPADDR {addr}/64 PORTNAME OSAPRT1\n\
                     START OSAV6{n}\n"
                );
                let (p, d) = softosa_profile::parse_profile("test.prof", &src);
                assert!(!d.has_errors(), "{:?}", d.items());
                p
            })
            .collect();
        let inputs: Vec<StackInput<'_>> = profiles
            .iter()
            .enumerate()
            .map(|(i, p)| StackInput {
                name: format!("TCPIP{i}"),
                profile: p,
                policy: None,
            })
            .collect();
        activate(&inputs, &[], &ActivateOptions::default())
            .expect("two stacks")
            .config
    }

    #[test]
    fn a_group_frame_whose_copies_were_all_dropped_is_dropped_in_its_flow() {
        use softosa_engine::config::Mac;
        use softosa_engine::wire::build::{self, EthSpec, IpSpec, Payload};
        use softosa_replay::replay::{
            replay_mode, AnnotationSink, Hooks, PendingRecord, ReplayOptions,
        };
        // Two UDP datagrams of one flow to ff02::1: a small one, and one
        // whose 64 KiB IPv6 payload makes every copy larger than an SBAL.
        let frame = |payload: u32| {
            let mut f = Vec::new();
            let eth = EthSpec {
                dst: Mac([0x33, 0x33, 0, 0, 0, 1]),
                src: Mac([2, 0, 0, 0, 0, 2]),
                vlan: None,
            };
            let ip = IpSpec::new("2001:db8::2".parse().unwrap(), "ff02::1".parse().unwrap());
            let wire = build::eth_udp(&mut f, &eth, &ip, 40001, 5001, Payload::Len(payload));
            (f, wire)
        };
        let capture = pcap(128, &[frame(100), frame(65_527)]);
        let cfg = two_stacks_sharing_a_port();
        for mode in Mode::ALL {
            let reader = CaptureReader::new(&capture[..]).expect("capture");
            let opts = ReplayOptions::default();
            let r = replay_mode(reader, &cfg, mode, &opts, Hooks::default()).expect("replay");
            let t = &r.totals;
            assert_eq!((t.inbound, t.inbound_replicated), (2, 2), "{mode:?} {t:?}");
            let f = r.flow(40001).expect("flow");
            assert_eq!(
                (f.packets_in, f.bytes_in, f.payload_in, f.dropped_in),
                (1, u64::from(frame(100).1), 100, 1),
                "{mode:?}"
            );
            // Each copy dropped is counted with its reason, as the engine
            // counts it.
            assert_eq!(
                t.inbound_dropped.get("frame larger than an SBAL"),
                Some(&2),
                "{mode:?}"
            );
            assert_eq!(t.engine_dropped, 2, "{mode:?}");
            assert_eq!(r.frames_presented(), 2, "{mode:?}");
            assert!(t.balanced, "{mode:?}");
        }
        // The annotated capture says so, and the small one's two copies
        // are presented.
        struct Fates(Vec<Vec<String>>);
        impl AnnotationSink for Fates {
            fn record(&mut self, rec: &PendingRecord) -> std::io::Result<()> {
                self.0.push(rec.fates.iter().map(|f| f.comment()).collect());
                Ok(())
            }
        }
        let mut fates = Fates(Vec::new());
        let reader = CaptureReader::new(&capture[..]).expect("capture");
        let hooks = Hooks {
            sink: Some(&mut fates),
            ..Hooks::default()
        };
        replay_mode(
            reader,
            &cfg,
            Mode::Balanced,
            &ReplayOptions::default(),
            hooks,
        )
        .expect("replay");
        assert_eq!(fates.0.len(), 2);
        assert_eq!(fates.0[0].len(), 2, "{:?}", fates.0);
        assert!(
            fates.0[0].iter().all(|c| c.contains("presented")),
            "{:?}",
            fates.0
        );
        assert_eq!(
            fates.0[1],
            ["softosa: dropped inbound, every copy (2: frame larger than an SBAL)"]
        );
    }

    #[test]
    fn lldp_is_dropped_as_a_protocol_a_layer3_interface_does_not_take() {
        // LLDP (0x88cc) to its group address, and another non-IP protocol
        // (0x88b5) broadcast: both are not IP, which a layer-3 interface
        // does not take; neither is a missing route.
        let mut lldp = vec![0x01, 0x80, 0xc2, 0, 0, 0x0e, 2, 0, 0, 0, 0, 2, 0x88, 0xcc];
        lldp.extend_from_slice(&[0; 46]);
        let mut other = lldp.clone();
        other[..6].copy_from_slice(&[0xff; 6]);
        other[12..14].copy_from_slice(&[0x88, 0xb5]);
        let r = replay(&pcap(65535, &whole(&[lldp, other])), Mode::Balanced);
        let t = &r.totals;
        assert_eq!(t.inbound, 2, "{t:?}");
        assert_eq!(
            t.inbound_dropped
                .get("protocol not taken by a layer-3 interface"),
            Some(&2),
            "{:?}",
            t.inbound_dropped
        );
        assert!(t.balanced);
    }
}

/// Annotate `capture` in `mode` against the test host; the pcapng bytes
/// and the mode's result.
fn annotate(capture: &[u8], mode: Mode) -> (Vec<u8>, ModeResult) {
    let cfg = load_config(&data("host.prof")).unwrap();
    let mut w = PcapNgWriter::new(Vec::new()).unwrap();
    let hooks = Hooks {
        sink: Some(&mut w),
        ..Hooks::default()
    };
    let r = replay_mode(
        CaptureReader::new(capture).unwrap(),
        &cfg,
        mode,
        &ReplayOptions::default(),
        hooks,
    )
    .unwrap();
    (w.finish().unwrap(), r)
}

/// Every record of `bytes` as (number, raw bytes, left out by the reader).
fn entries(bytes: &[u8]) -> Vec<(u64, Vec<u8>, bool)> {
    use softosa_replay::capture::Entry;
    let mut r = CaptureReader::new(bytes).unwrap();
    let mut v = Vec::new();
    while let Some(e) = r.next_entry().unwrap() {
        v.push(match e {
            Entry::Record(x) => (x.number, x.raw.to_vec(), false),
            Entry::Skipped(x) => (x.number, x.raw.to_vec(), true),
        });
    }
    v
}

#[test]
fn annotated_capture_writes_back_the_records_the_reader_left_out() {
    // A pcapng with an Ethernet interface and an 802.11 one (link type
    // 105, not replayed): records 2 and 4 are on the 802.11 interface.
    let mut ng = common::ng_shb();
    ng.extend(common::ng_block(1, &[1, 0, 0, 0, 0, 0, 0, 0]));
    ng.extend(common::ng_block(1, &[105, 0, 0, 0, 0, 0, 0, 0]));
    let frame = common::tcp_in(false, 5, 10);
    for (n, ifid) in [0, 1, 0, 1, 0].into_iter().enumerate() {
        let ts = 1000 * n as u64;
        ng.extend(common::ng_epb_on(ifid, ts, &frame, frame.len() as u32));
    }
    // A pcap whose record 2 has a malformed timestamp (a whole second of
    // microseconds): written back at record 1's time.
    let pcap = common::pcap_stamped(
        false,
        &[
            ((10, 5), frame.clone()),
            ((10, 1_000_000), frame.clone()),
            ((10, 7), frame.clone()),
        ],
    );
    for (capture, reason, left_out) in [
        (&ng, "unsupported link type 105", vec![2u64, 4]),
        (
            &pcap,
            "malformed timestamp: 1000000 microseconds or more",
            vec![2],
        ),
    ] {
        let (out, r) = annotate(capture, Mode::Balanced);
        let (orig, back) = (entries(capture), entries(&out));
        // Same records, same bytes, numbered alike (the record with a
        // malformed stamp reads back with a good one, and its comment).
        let bytes =
            |v: &[(u64, Vec<u8>, bool)]| v.iter().map(|e| (e.0, e.1.clone())).collect::<Vec<_>>();
        assert_eq!(bytes(&back), bytes(&orig));
        assert_eq!(back.len() as u64, r.totals.records);
        let skipped: Vec<u64> = orig.iter().filter(|e| e.2).map(|e| e.0).collect();
        assert_eq!(skipped, left_out);
        assert_eq!(r.totals.reader_skipped[reason].count, left_out.len() as u64);
        // Each says why it was not replayed; the others were presented.
        let text = String::from_utf8_lossy(&out);
        assert_eq!(
            text.matches(&format!("softosa: not replayed: {reason}"))
                .count(),
            left_out.len()
        );
        assert_eq!(
            text.matches("PRIMARY presented at").count(),
            back.len() - left_out.len()
        );
    }
    // The malformed stamp is written back in order, at its predecessor's time.
    let (out, _) = annotate(&pcap, Mode::Balanced);
    let mut a = CaptureReader::new(&out[..]).unwrap();
    let stamps: Vec<i64> = std::iter::from_fn(|| {
        a.next_entry().unwrap().map(|e| match e {
            softosa_replay::capture::Entry::Record(x) => x.ts_ns,
            softosa_replay::capture::Entry::Skipped(x) => x.ts_ns,
        })
    })
    .collect();
    assert_eq!(stamps, vec![10_000_005_000, 10_000_005_000, 10_000_007_000]);
}

#[test]
fn outbound_packets_are_counted_by_write_queue_name() {
    for capture in CAPTURES {
        let t = run(capture, Mode::Balanced).totals;
        assert!(
            t.outbound_queued
                .keys()
                .all(|k| ["WR/1", "WR/2", "WR/3", "WR/4"].contains(&k.as_str())),
            "{capture}: {:?}",
            t.outbound_queued
        );
        assert!(t.outbound_queued.values().all(|n| *n > 0), "{capture}");
        let queued: u64 = t.outbound_queued.values().sum();
        let dropped: u64 = t.outbound_dropped.values().sum();
        assert_eq!(
            queued + t.outbound_internal + t.outbound_awaiting_arp + dropped,
            t.outbound,
            "{capture}"
        );
    }
}

#[test]
fn every_mode_parses_from_its_label_and_its_heading() {
    for m in Mode::ALL {
        assert_eq!(Mode::parse(m.label()), Some(m));
        assert_eq!(Mode::parse(m.heading()), Some(m));
    }
    assert_eq!(Mode::DynamicWorkloadq.heading(), "DYN+IWQ");
    assert_eq!(Mode::parse("DYN + IWQ"), Some(Mode::DynamicWorkloadq));
    // Spaces are ignored in a heading only, not inside a label.
    assert_eq!(Mode::parse("MIN CPU"), None);
    assert_eq!(Mode::parse("DYNAMICWORKLOADQ"), None);
}

/// An Interface Statistics Block for interface `ifid` with `isb_ifdrop`
/// and, when given, `isb_osdrop` (little-endian).
fn ng_isb(ifid: u32, ifdrop: u64, osdrop: Option<u64>) -> Vec<u8> {
    let mut b = ifid.to_le_bytes().to_vec();
    b.extend_from_slice(&[0; 8]);
    b.extend_from_slice(&[5, 0, 8, 0]);
    b.extend_from_slice(&ifdrop.to_le_bytes());
    if let Some(n) = osdrop {
        b.extend_from_slice(&[7, 0, 8, 0]);
        b.extend_from_slice(&n.to_le_bytes());
    }
    b.extend_from_slice(&[0, 0, 0, 0]);
    common::ng_block(5, &b)
}

#[test]
fn packets_the_capture_itself_dropped_are_counted_and_warned_of() {
    let frame = common::tcp_in(false, 5, 100);
    let epb = |ts| common::ng_epb(ts, &frame, frame.len() as u32);
    // A running count part way, then the final one: the latest counts.
    let mut ng = common::pcapng(
        None,
        &[
            epb(1),
            ng_isb(0, 10, None),
            epb(2),
            epb(3),
            ng_isb(0, 40, Some(2)),
            // An interface the section never described: not counted.
            ng_isb(7, 1000, None),
        ],
    );
    // A second section numbers its interfaces afresh: its drops add up.
    ng.extend(common::pcapng(None, &[epb(4), ng_isb(0, 5, None)]));
    let r = replay_reader(CaptureReader::new(&ng[..]).unwrap(), Mode::Balanced);
    assert_eq!(r.totals.records, 4);
    assert_eq!(r.totals.capture_dropped, 47);
    let w = r.totals.warnings.first().expect("a warning");
    assert!(
        w.contains("lost 47 packets") && w.contains("against 4 captured") && !w.contains("  "),
        "{w}"
    );
    // None dropped, none warned of.
    let ng = common::pcapng(None, &[epb(1), ng_isb(0, 0, Some(0))]);
    let r = replay_reader(CaptureReader::new(&ng[..]).unwrap(), Mode::Balanced);
    assert_eq!(r.totals.capture_dropped, 0);
    assert!(
        r.totals.warnings.iter().all(|w| !w.contains("lost")),
        "{:?}",
        r.totals.warnings
    );
}

/// A request/response capture replayed under long timers sends its
/// answers, at their captured times, while the mode still holds the
/// requests they answer: counted per mode, most under the longest holds,
/// none where every request is presented at once.
#[test]
fn answers_sent_before_their_request_was_presented_are_counted() {
    let early = |m: Mode| run("sockperf-rr.pcap", m).totals.sent_before_presented;
    let (mincpu, balanced, minlat, olm) = (
        early(Mode::MinCpu),
        early(Mode::Balanced),
        early(Mode::MinLatency),
        early(Mode::Olm),
    );
    assert!(
        mincpu > balanced && balanced > minlat && minlat > 0,
        "{mincpu} {balanced} {minlat}"
    );
    assert_eq!(olm, 0);
}
