//! A z/OS host's TCPCONFIG statement in its profile decides its end of
//! every connection (spec 6.2 "TCP"): the default buffers (and so the
//! window it advertises), the largest buffer an application may ask for,
//! whether it delays ACKs, and how many duplicate ACKs start a fast
//! retransmit.

mod common;
use common::{host, only};
use softosa_sim::report::RunResult;

/// z/OS `zos` with `tcpconfig` in its profile, an AIX peer more than
/// 500 µs away each way (its `latency_us` is split over its two hops), and
/// one workload (`workload` holds its lines).
fn scenario(tcpconfig: &str, aix_lines: &str, workload: &str) -> String {
    format!(
        r#"
duration_ms = 200
warmup_ms = 100
[[host]]
name = "zos"
type = "zos"
machine = "z10"
ip = "192.0.2.2"
speed = "1g"
profile_text = """
INTERFACE OSAIF1 DEFINE IPAQENET IPADDR 192.0.2.2/24 PORTNAME OSAP1
{tcpconfig}
START OSAIF1
"""
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.10"
speed = "1g"
latency_us = 1000
{aix_lines}
[[workload]]
{workload}
"#
    )
}

/// AIX streams to z/OS: z/OS's receive buffer is the window (AIX's
/// application asks for a send buffer that does not limit it).
const INTO_ZOS: &str = "type = \"STR\"\nconnections = 1\nrequest = 1\nresponse = 20000000\nclient = \"zos\"\nserver = \"aix\"\nsndbuf_kb = 1024";

fn mb_per_s(r: &RunResult) -> f64 {
    r.workloads[0].mb_per_s
}

/// The most a window of `bytes` can carry over a round trip of at least
/// 1 ms (AIX's half of its 1000 µs, each way), MB/s.
fn window_bound(bytes: u32) -> f64 {
    f64::from(bytes) / 1e-3 / 1e6
}

#[test]
fn tcprcvbufrsize_is_the_window_z_os_advertises() {
    let small = only(&scenario("TCPCONFIG TCPRCVBUFRSIZE 16K", "", INTO_ZOS));
    let large = only(&scenario("TCPCONFIG TCPRCVBUFRSIZE 256K", "", INTO_ZOS));
    let (s, l) = (mb_per_s(&small), mb_per_s(&large));
    assert!(
        s > 0.0 && s <= window_bound(16 * 1024),
        "16K window: {s} MB/s"
    );
    assert!(l > 4.0 * s, "256K window {l} MB/s against 16K {s} MB/s");
}

#[test]
fn an_application_asks_past_the_default_but_not_past_tcpmaxrcvbufrsize() {
    let asks = format!("{INTO_ZOS}\nrcvbuf_kb = 1024");
    // The application's 1 MB wins over the 16K default...
    let uncapped = only(&scenario("TCPCONFIG TCPRCVBUFRSIZE 16K", "", &asks));
    // ...up to the maximum the profile codes.
    let capped = only(&scenario(
        "TCPCONFIG TCPRCVBUFRSIZE 16K TCPMAXRCVBUFRSIZE 16K",
        "",
        &asks,
    ));
    let (u, c) = (mb_per_s(&uncapped), mb_per_s(&capped));
    assert!(c > 0.0 && c <= window_bound(16 * 1024), "capped: {c} MB/s");
    assert!(u > 4.0 * c, "1 MB asked: {u} MB/s against capped {c} MB/s");
}

#[test]
fn nodelayacks_acknowledges_each_request_before_its_reply() {
    let rr = "type = \"RR\"\nconnections = 4\nrequest = 100\nresponse = 800\nclient = \"aix\"\nserver = \"zos\"";
    let delayed = only(&scenario("TCPCONFIG DELAYACKS", "", rr));
    let at_once = only(&scenario("TCPCONFIG NODELAYACKS", "", rr));
    let acks = |r: &RunResult| host(r, "zos").tcp.acks_out as f64;
    let txns = |r: &RunResult| r.workloads[0].transactions as f64;
    assert!(txns(&delayed) > 100.0 && txns(&at_once) > 100.0);
    // Delayed, the ACK rides on the reply.
    assert!(
        acks(&delayed) < 0.05 * txns(&delayed),
        "DELAYACKS: {} ACKs for {} transactions",
        acks(&delayed),
        txns(&delayed)
    );
    // At once, a bare ACK goes out for (nearly) every request.
    assert!(
        acks(&at_once) > 0.9 * txns(&at_once),
        "NODELAYACKS: {} ACKs for {} transactions",
        acks(&at_once),
        txns(&at_once)
    );
}

#[test]
fn frrthreshold_sets_how_many_duplicate_acks_start_a_fast_retransmit() {
    // z/OS streams to AIX over a link that loses frames.
    let out = "type = \"STR\"\nconnections = 1\nrequest = 1\nresponse = 20000000\nclient = \"aix\"\nserver = \"zos\"\nsndbuf_kb = 256\nrcvbuf_kb = 256";
    let lossy = "loss = 0.002";
    let usual = only(&scenario("TCPCONFIG FRRTHRESHOLD 3", lossy, out));
    let never = only(&scenario("TCPCONFIG FRRTHRESHOLD 100000", lossy, out));
    let z = |r: &RunResult| host(r, "zos").tcp.clone();
    let (u, n) = (z(&usual), z(&never));
    assert!(u.dupacks_in > 0 && u.fast_retransmits > 0, "{u:?}");
    // However many duplicates come, none reaches the threshold: each loss
    // waits for the retransmission timer instead.
    assert!(n.dupacks_in > 0, "{n:?}");
    assert_eq!(n.fast_retransmits, 0, "{n:?}");
    assert!(n.timeouts > 0, "{n:?}");
}

#[test]
fn a_profile_buffer_the_simulator_cannot_hold_is_refused_with_its_name() {
    let text = scenario("TCPCONFIG TCPRCVBUFRSIZE 2K", "", INTO_ZOS);
    let e = softosa_sim::scenario::Scenario::parse("t.toml", &text)
        .unwrap()
        .variants()
        .expect_err("a 2 KB window is refused")
        .to_string();
    assert!(e.contains("TCPRCVBUFRSIZE 2048"), "{e}");
    assert!(e.contains("4 KB to 16384 KB"), "{e}");
}

#[test]
fn timewaitinterval_is_how_long_z_os_keeps_a_connection_it_closed_first() {
    // z/OS is the CRR client, so its end of each connection closes first.
    let crr = "type = \"CRR\"\nconnections = 4\nrequest = 100\nresponse = 800\nclient = \"zos\"\nserver = \"aix\"";
    let kept = only(&scenario("", "", crr));
    let none = only(&scenario("TCPCONFIG TIMEWAITINTERVAL 0", "", crr));
    for r in [&kept, &none] {
        let (z, a) = (&host(r, "zos").tcp, &host(r, "aix").tcp);
        assert!(z.connections_opened > 20, "{z:?}");
        // the passive end is done at the last ACK
        assert_eq!(a.time_wait_entered, 0, "{a:?}");
        assert_eq!((z.stray_segments, a.stray_segments), (0, 0));
    }
    // 60 s by default: every connection closed in the window is still
    // there at its end (the window's edges cut a few).
    let z = &host(&kept, "zos").tcp;
    assert!(
        z.time_wait_entered.abs_diff(z.connections_opened) <= 4,
        "{z:?}"
    );
    assert_eq!(host(&none, "zos").tcp.time_wait_entered, 0);
    // The report says how long each host keeps TIME_WAIT: z/OS its
    // profile's, AIX its own 15 s.
    let keep = |r: &RunResult, h: &str| host(r, h).time_wait_s;
    assert_eq!((keep(&kept, "zos"), keep(&none, "zos")), (60, 0));
    assert_eq!(keep(&none, "aix"), 15);
    assert!(none.to_text().contains("to TIME_WAIT 0 (kept 0 s)"));
}
