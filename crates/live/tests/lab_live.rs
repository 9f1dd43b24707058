//! The live lab end to end (spec 8.1), through the real engine: every frame
//! accounted for, the mixed-workload effect of inbound workload queueing,
//! outbound priority queueing, port sharing with VMACs and PRIROUTER, and
//! the control socket and metrics of a running instance. Needs root and
//! network namespaces (skips with a printed reason otherwise).

mod common;

use std::time::Duration;

use softosa_live::cli::run_lab;
use softosa_live::lab::{is_rr_port, Inb, LabError, LabOptions, LabResult, Sharing, STR_PORT};
use softosa_live::workload::median;

fn opts() -> LabOptions {
    LabOptions {
        secs: 2.0,
        ..Default::default()
    }
}

fn run(o: &LabOptions) -> LabResult {
    match run_lab(o) {
        Ok(r) => r,
        Err(e) => panic!("lab run failed: {e}"),
    }
}

#[test]
fn every_frame_is_accounted_for_with_injected_errors() {
    require_lab!("every_frame_is_accounted_for_with_injected_errors");
    let _g = common::lab_lock();
    let o = LabOptions {
        streams: 1,
        rr: 1,
        fault_rate: 0.002,
        seed: 7,
        ..opts()
    };
    let r = run(&o);
    print!("{}", softosa_live::lab::report(&r));
    let a = &r.accounting;
    assert!(a.balanced(), "identity does not hold: {a:?}");
    let driver = |k: &str| r.driver.iter().find(|d| d.0 == k).map_or(0, |d| d.1);
    // What the driver received from the wire is exactly what the accounting
    // saw: frames the engine took, the injected CRC errors among them
    // (counted by the engine itself as "injected frame error").
    let crc = a
        .dropped
        .iter()
        .find(|d| d.0.contains("injected frame error"))
        .map_or(0, |d| d.1);
    assert_eq!(crc, driver("crc_dropped"));
    assert!(crc > 0, "the injector dropped nothing at 0.2%");
    assert!(a.frames_in >= driver("wire_rx_frames"));
    assert_eq!(a.held, 0, "frames still held after the quiet period");
    assert!(r.stream_bps.unwrap_or(0.0) > 1e8, "stream did not flow");
    assert!(!r.rr.is_empty());
    // Presented frames all reached the host device.
    assert_eq!(driver("host_tx_errors"), 0);
    assert!(common::no_leftovers(), "namespaces left behind");
}

#[test]
fn workload_queueing_moves_the_stream_and_spares_rr_latency() {
    require_lab!("workload_queueing_moves_the_stream_and_spares_rr_latency");
    let _g = common::lab_lock();
    let mut hold = [Vec::new(), Vec::new()];
    let mut rtt = [Vec::new(), Vec::new()];
    let mut hold50 = [Vec::new(), Vec::new()];
    for round in 0..3 {
        for (k, mode) in [Inb::Dynamic, Inb::DynamicWorkloadq]
            .into_iter()
            .enumerate()
        {
            let o = LabOptions {
                inbperf: mode,
                streams: 1,
                rr: 2,
                // A capped stream leaves CPU for the RR connections on a
                // 2-core machine, so the adapter's queues and timers, not
                // CPU contention, decide how long RR packets wait.
                stream_mbps: 3000,
                ..opts()
            };
            let r = run(&o);
            assert!(r.accounting.balanced());
            let stream: Vec<_> = r
                .placements
                .iter()
                .filter(|p| p.local_port == STR_PORT && p.per_queue.iter().sum::<u64>() > 1000)
                .collect();
            assert_eq!(
                stream.len(),
                1,
                "one data connection expected: {:?}",
                r.placements
            );
            let rr: Vec<_> = r
                .placements
                .iter()
                .filter(|p| is_rr_port(p.local_port, o.rr))
                .collect();
            assert_eq!(rr.len(), 2);
            for p in &rr {
                assert_eq!(
                    p.per_queue[1], 0,
                    "an RR connection landed on BULKDATA: {p:?}"
                );
                assert!(p.bulk_since.is_none());
            }
            let s = stream[0];
            if mode == Inb::DynamicWorkloadq {
                let since = s.bulk_since.expect("stream never reached BULKDATA");
                let after = since.saturating_sub(s.first_seen);
                assert!(
                    after < 500_000_000,
                    "stream took {after} ns to reach BULKDATA"
                );
                assert!(
                    s.per_queue[1] > 20 * s.per_queue[0],
                    "stream mostly off BULKDATA: {s:?}"
                );
            } else {
                assert_eq!(s.per_queue[1], 0, "no BULKDATA queue without WORKLOADQ");
            }
            eprintln!(
                "round {round} {}: RR rtt p50 {:?} us, RR hold p50 {:?} us, RR hold p99 {:?}, stream {:?} bit/s",
                mode.label(),
                r.rr_p50_us,
                r.rr_hold_p50_us,
                median(&rr.iter().filter_map(|p| p.hold_p99_us).collect::<Vec<_>>()),
                r.stream_bps
            );
            hold[k].push(
                median(&rr.iter().filter_map(|p| p.hold_p99_us).collect::<Vec<_>>()).unwrap_or(0.0),
            );
            rtt[k].push(r.rr_p99_us.unwrap_or(0.0));
            hold50[k].push(r.rr_hold_p50_us.unwrap_or(0.0));
        }
    }
    let (hd, hw) = (
        median(&hold[0]).unwrap_or(0.0),
        median(&hold[1]).unwrap_or(0.0),
    );
    let (rd, rw) = (
        median(&rtt[0]).unwrap_or(0.0),
        median(&rtt[1]).unwrap_or(0.0),
    );
    let (md, mw) = (
        median(&hold50[0]).unwrap_or(0.0),
        median(&hold50[1]).unwrap_or(0.0),
    );
    eprintln!(
        "median RR hold p50: DYNAMIC {md} us, WORKLOADQ {mw} us; p99: {hd} / {hw} us; median RR rtt p99: {rd} / {rw} us"
    );
    // The direction. On a quiet 2-core machine both the typical wait and
    // the tail show it about threefold (p50 25-28 against 8.5-9.5 us, p99
    // 294-314 against 96-103 us). Other work on the machine can blur one
    // of them: a run beside a compiler saw p50 at 13.5 against 15 us while
    // p99 stayed at 302 against 159 us. Without the queues apart, RR
    // packets would wait alike in both statistics.
    //
    // Waits measured in real time on a shared machine are a timing claim,
    // not a test: the gate (CI) checks only where each connection's packets
    // went, above. With SOFTOSA_LAB_TIMING set (a quiet machine, by hand)
    // the direction is asserted as well.
    let faster = md > mw || hd > 1.5 * hw;
    if std::env::var_os("SOFTOSA_LAB_TIMING").is_some() {
        assert!(
            faster,
            "RR packets should wait longer in the adapter under DYNAMIC (mixed queue) than with \
             WORKLOADQ: hold p50 {md} against {mw} us, p99 {hd} against {hw} us"
        );
    } else if !faster {
        eprintln!(
            "note: RR packets did not wait longer under DYNAMIC here (a busy machine?); \
             not asserted without SOFTOSA_LAB_TIMING"
        );
    }
}

#[test]
fn outbound_priority_lets_interactive_packets_pass_the_stream() {
    require_lab!("outbound_priority_lets_interactive_packets_pass_the_stream");
    let _g = common::lab_lock();
    let mut wait = Vec::new();
    for tos in [false, true] {
        // The stack streams UDP out faster than the (paced) wire carries,
        // so the write queues stay full; the RR server's responses share
        // the port.
        let o = LabOptions {
            streams: 1,
            reverse: true,
            udp: true,
            stream_mbps: 400,
            rr: 1,
            tos_priority: tos,
            wire_mbps: 200,
            ..opts()
        };
        let r = run(&o);
        print!("{}", softosa_live::lab::report(&r));
        assert!(r.accounting.balanced());
        let rr = r
            .placements
            .iter()
            .find(|p| is_rr_port(p.local_port, o.rr))
            .expect("RR connection seen");
        wait.push((
            rr.out_refused,
            rr.out_wait_p99_us.unwrap_or(0.0),
            r.rr_transactions,
        ));
        if tos {
            let wr4 = r
                .stats_text
                .lines()
                .find(|l| l.contains("DIR = WR/4"))
                .unwrap_or("")
                .to_string();
            let field = |name: &str| -> u64 {
                wr4.split_whitespace()
                    .find_map(|w| w.strip_prefix(name))
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0)
            };
            // The stream is on write queue 4 and keeps it full...
            assert!(field("MAXDEPTH=") >= 1000, "queue 4 never filled: {wr4}");
            assert!(field("PACKCNT=") > 0, "stream not on queue 4: {wr4}");
            // ...while every RR response left from queue 1 ahead of it: none
            // refused, none waiting anywhere near the queue 4 backlog (1000
            // frames at 200 Mbit/s is 60 ms).
            assert_eq!(rr.out_refused, 0, "responses refused despite priority");
            // (A tenth of that: a busy machine can delay a response by a
            // few ms of its own, but not by the backlog.)
            assert!(
                rr.out_wait_p99_us.unwrap_or(f64::MAX) < 6000.0,
                "responses waited behind the stream: {:?}",
                rr.out_wait_p99_us
            );
        }
    }
    eprintln!(
        "RR under a saturating outbound stream (responses refused, response wait p99 us, \
         round trips): without priority {:?}, with priority {:?}",
        wait[0], wait[1]
    );
    // Without priority the comparison is reported, not asserted: on this
    // kind of machine the RR responses were not seen to meet the stream's
    // full queue (the stream saturates it in bursts), so the difference is
    // not reliable enough for a test.
}

#[test]
fn two_stacks_share_the_port_with_vmacs_and_with_a_prirouter() {
    require_lab!("two_stacks_share_the_port_with_vmacs_and_with_a_prirouter");
    let _g = common::lab_lock();
    for sharing in [Sharing::Vmac, Sharing::Prirouter] {
        let o = LabOptions {
            sharing,
            streams: 1,
            rr: 1,
            rr_stack: if sharing == Sharing::Vmac { 2 } else { 1 },
            secs: 1.0,
            ..opts()
        };
        let r = run(&o);
        print!("{}", softosa_live::lab::report(&r));
        assert!(r.accounting.balanced());
        assert!(
            r.stream_bps.unwrap_or(0.0) > 1e7,
            "{sharing:?}: stream to stack 1"
        );
        assert!(!r.rr.is_empty(), "{sharing:?}: RR did not run");
    }
}

/// Layer 2 (TAP, VMAC filtering) carries traffic both ways: the stack's own
/// Ethernet header (its ARP replies included) reaches the wire intact.
#[test]
fn request_response_under_load_runs_at_the_rate_asked() {
    require_lab!("request_response_under_load_runs_at_the_rate_asked");
    let _g = common::lab_lock();
    let o = LabOptions {
        streams: 0,
        rr: 1,
        rr_mps: 2000,
        secs: 2.0,
        ..opts()
    };
    let r = run(&o);
    assert!(r.accounting.balanced());
    // No injected errors and nothing the stacks should not send: nothing
    // is dropped at all (IPv6 solicitations used to be).
    assert_eq!(
        r.accounting.dropped_total(),
        0,
        "{:?}",
        r.accounting.dropped
    );
    // sockperf measures 2 s less its 0.4 s warm-up: about 3200 messages,
    // each answered and timed. A ping-pong through the lab makes tens of
    // thousands in that time, so this tells the modes apart.
    // (The lower bound leaves room for a busy machine starving sockperf.)
    let n = r.rr_transactions;
    assert!((800..=6400).contains(&n), "{n} round trips at 2000/s");
    assert!(r.rr_p50_us.is_some_and(|p| p > 0.0));
    let text = softosa_live::lab::report(&r);
    assert!(text.contains("under load at 2000 msg/s"), "{text}");
    // No streams ran: the report has no line for them.
    assert_eq!(r.streams, 0);
    assert!(!text.contains("STR throughput"), "{text}");
    assert!(common::no_leftovers(), "namespaces left behind");
}

#[test]
fn a_layer2_stack_carries_traffic() {
    require_lab!("a_layer2_stack_carries_traffic");
    let _g = common::lab_lock();
    let o = LabOptions {
        sharing: Sharing::Layer2,
        streams: 1,
        rr: 1,
        secs: 1.0,
        ..opts()
    };
    let r = run(&o);
    assert!(r.accounting.balanced());
    assert!(r.stream_bps.unwrap_or(0.0) > 1e7, "stream did not flow");
    assert!(r.rr_transactions > 0, "no round trips");
    assert!(common::no_leftovers(), "namespaces left behind");
}

#[test]
fn a_running_instance_answers_displays_and_metrics() {
    require_lab!("a_running_instance_answers_displays_and_metrics");
    let _g = common::lab_lock();
    let inst = format!("t{}", std::process::id());
    let o = LabOptions {
        streams: 0,
        rr: 1,
        secs: 3.0,
        instance: Some(inst.clone()),
        metrics_port: Some(0),
        ..opts()
    };
    let sock = softosa_live::control::socket_path(&inst);
    let h = std::thread::spawn(move || run_lab(&o));
    let mut tuning = String::new();
    // The lab answers once its namespaces are built: up to 30 s on a busy
    // machine, while it still runs.
    for _ in 0..300 {
        std::thread::sleep(Duration::from_millis(100));
        if h.is_finished() {
            break;
        }
        if let Ok(t) = softosa_live::control::request(&sock, "display TUNING") {
            tuning = t;
            break;
        }
    }
    // A second lab under the same name is refused before it builds
    // anything, and the running one keeps its socket.
    let second = run_lab(&LabOptions {
        streams: 0,
        rr: 1,
        secs: 1.0,
        instance: Some(inst.clone()),
        ..opts()
    });
    match second {
        Err(LabError::Busy(e)) => assert!(e.to_string().contains("already running"), "{e}"),
        Err(e) => panic!("second instance: wrong error {e}"),
        Ok(_) => panic!("a second instance of the same name ran"),
    }
    let counters =
        softosa_live::control::request(&sock, "display COUNTERS json").unwrap_or_default();
    let metrics = softosa_live::control::request(&sock, "metrics").unwrap_or_default();
    let r = h.join().expect("lab thread").expect("lab run");
    assert!(tuning.contains("DIR = RD/1"), "tuning display: {tuning}");
    assert!(tuning.contains("IST1233I"), "not the VTAM layout: {tuning}");
    assert!(counters.contains("\"balanced\""), "counters: {counters}");
    assert!(
        metrics.contains("softosa_frames_in_total"),
        "metrics: {metrics}"
    );
    assert!(r.accounting.balanced());
    assert!(!sock.exists(), "control socket left behind");
}

#[test]
fn a_running_instance_shows_the_interface_asked_for() {
    require_lab!("a_running_instance_shows_the_interface_asked_for");
    let _g = common::lab_lock();
    let inst = format!("i{}", std::process::id());
    // Two stacks on the port: TCPIP1/OSAQDIO1 and TCPIP2/OSAQDIO2.
    let o = LabOptions {
        sharing: Sharing::Vmac,
        streams: 0,
        rr: 1,
        secs: 3.0,
        instance: Some(inst.clone()),
        ..opts()
    };
    let h = std::thread::spawn(move || run_lab(&o));
    let ask = |kind: &str, target: &str| {
        softosa_live::cli::ask_display(&softosa_live::cli::DisplayArgs {
            kind: kind.into(),
            instance: inst.clone(),
            socket: None,
            json: false,
            target: Some(target.into()),
            max: None,
        })
    };
    let mut devlinks = Err("the lab never answered".to_string());
    for _ in 0..300 {
        std::thread::sleep(Duration::from_millis(100));
        if h.is_finished() {
            break;
        }
        devlinks = ask("DEVLINKS", "OSAQDIO2").map_err(|e| e.to_string());
        if devlinks.is_ok() {
            break;
        }
    }
    let queues = ask("QUEUES", "tcpip1/osaqdio1").map_err(|e| e.to_string());
    let missing = ask("TUNING", "QDIO4101L");
    let r = h.join().expect("lab thread").expect("lab run");
    let devlinks = devlinks.expect("devlinks of OSAQDIO2");
    assert!(devlinks.contains("OSAQDIO2"), "{devlinks}");
    assert!(!devlinks.contains("OSAQDIO1"), "{devlinks}");
    let queues = queues.expect("queues of OSAQDIO1");
    assert_eq!(
        queues.matches("TUNING STATISTICS FOR").count(),
        1,
        "{queues}"
    );
    assert!(
        queues.starts_with("TUNING STATISTICS FOR OSAQDIO1"),
        "{queues}"
    );
    let e = missing.expect_err("the lab has no QDIO4101L");
    match e.downcast_ref::<softosa_live::control::Refusal>() {
        Some(refusal) => assert!(refusal.is_usage(), "{refusal:?}"),
        None => panic!("not a refusal: {e}"),
    }
    assert!(
        e.to_string()
            .contains("interfaces: TCPIP1/OSAQDIO1, TCPIP2/OSAQDIO2"),
        "{e}"
    );
    assert!(r.accounting.balanced());
    assert!(common::no_leftovers(), "namespaces left behind");
}

#[test]
fn profiles_configure_the_lab() {
    require_lab!("profiles_configure_the_lab");
    let _g = common::lab_lock();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/profiles");
    let o = LabOptions {
        profiles: vec![dir.join("lab-share-a.prof"), dir.join("lab-share-b.prof")],
        streams: 1,
        rr: 1,
        rr_stack: 2,
        secs: 1.0,
        ..opts()
    };
    let r = run(&o);
    print!("{}", softosa_live::lab::report(&r));
    assert!(r.accounting.balanced());
    // Both interfaces of the profiles are active and carried traffic.
    assert!(r.stats_text.contains("LABSHRA") && r.stats_text.contains("LABSHRB"));
    assert!(r.stream_bps.unwrap_or(0.0) > 1e7);
    assert!(r.rr_transactions > 0);
    // Stack B's profile codes NODELAYACKS, so its Linux stack ACKs each
    // request at once and then replies: about two frames out per request
    // in, where a delayed ACK would ride on the reply.
    let count = |dir: &str| -> f64 {
        r.stats_text
            .split("TUNING STATISTICS FOR LABSHRB")
            .nth(1)
            .and_then(|b| b.lines().find(|l| l.contains(dir)))
            .and_then(|l| {
                l.split_whitespace()
                    .find_map(|w| w.strip_prefix("PACKCNT="))
            })
            .and_then(|n| n.parse().ok())
            .unwrap_or(0.0)
    };
    let (inb, out) = (count("DIR = RD/1"), count("DIR = WR/1"));
    assert!(
        inb > 100.0 && out > 1.8 * inb,
        "LABSHRB in {inb}, out {out}"
    );
    // A profile with a non-documentation address is refused with its name.
    let bad = std::env::temp_dir().join(format!("sosa-bad-{}.prof", std::process::id()));
    std::fs::write(
        &bad,
        "INTERFACE BAD1 DEFINE IPAQENET\n  PORTNAME LABPORT\n  IPADDR 10.1.1.1/24\nSTART BAD1\n",
    )
    .expect("write temp profile");
    let e = run_lab(&LabOptions {
        profiles: vec![bad.clone()],
        ..opts()
    });
    let _ = std::fs::remove_file(&bad);
    match e {
        Err(e) => assert!(e.to_string().contains("documentation"), "{e}"),
        Ok(_) => panic!("a non-documentation address was accepted"),
    }
}

#[test]
fn per_cpu_threads_carry_the_traffic_and_account_for_every_frame() {
    require_lab!("per_cpu_threads_carry_the_traffic_and_account_for_every_frame");
    let _g = common::lab_lock();
    let cpus = softosa_live::sys::allowed_cpus().map_or(1, |c| c.len());
    let o = LabOptions {
        per_cpu: true,
        streams: 1,
        rr: 2,
        zero_timers: true,
        realtime_prio: 0,
        wake_qos: true,
        ..opts()
    };
    if cpus < 2 {
        // A thread per CPU on one CPU is refused, not run as the normal
        // layout under the per-CPU name.
        match run_lab(&o) {
            Err(e @ LabError::Usage(_)) => assert!(e.to_string().contains("--per-cpu"), "{e}"),
            other => panic!("--per-cpu on one CPU was not refused: {other:?}"),
        }
        return;
    }
    let r = run(&o);
    print!("{}", softosa_live::lab::report(&r));
    let a = &r.accounting;
    assert!(a.balanced(), "identity does not hold: {a:?}");
    assert_eq!(a.held, 0, "frames still held after the quiet period");
    assert!(r.stream_bps.unwrap_or(0.0) > 1e8, "stream did not flow");
    assert!(r.rr_transactions > 0, "no round trips");
    let threads: Vec<&String> = r
        .cpu_by_thread
        .iter()
        .map(|t| &t.0)
        .filter(|n| n.starts_with("sosa-cpu"))
        .collect();
    // One data-plane thread per CPU, each with its wire socket.
    assert_eq!(threads.len(), cpus, "{:?}", r.cpu_by_thread);
    let driver = |k: &str| r.driver.iter().find(|d| d.0 == k).map_or(0, |d| d.1);
    assert_eq!(driver("host_tx_errors"), 0);
    assert!(common::no_leftovers(), "namespaces left behind");
}
