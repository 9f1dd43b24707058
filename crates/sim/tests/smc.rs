//! Shared Memory Communications (spec 4.4): between two hosts of the same
//! SMC kind, a connection opens over the OSAs and then moves its data by
//! writes into the peer's buffer, bypassing the adapter, its timers and its
//! signals; the TCP window still bounds it. Each such connection first
//! does the CLC rendezvous over TCP, so short-lived ones pay a round trip
//! through the OSAs for it. AT-TLS and distributed connections stay on TCP.

mod common;
use common::{host, only, refusal};
use softosa_sim::report::RunResult;

/// Two z/OS hosts on 10 GbE OSAs with `smc_a` / `smc_b`, one workload (its
/// lines after `[[workload]]`).
fn scenario(smc_a: &str, smc_b: &str, workload: &str) -> String {
    format!(
        r#"
duration_ms = 150
warmup_ms = 50
[[host]]
name = "zosa"
type = "zos"
machine = "z14"
ip = "192.0.2.1"
adapter = "osa-express6s"
speed = "10g"
inbperf = "DYNAMIC"
smc = "{smc_a}"
[[host]]
name = "zosb"
type = "zos"
machine = "z14"
ip = "192.0.2.2"
adapter = "osa-express6s"
speed = "10g"
inbperf = "DYNAMIC"
smc = "{smc_b}"
[[workload]]
{workload}
"#
    )
}

const RR1: &str = "type = \"RR\"\nconnections = 1\nrequest = 1024\nresponse = 1024\nclient = \"zosa\"\nserver = \"zosb\"";

fn smc_writes(r: &RunResult) -> u64 {
    r.hosts.iter().map(|h| h.tcp.smc_writes_out).sum()
}

fn osa_frames(r: &RunResult, name: &str) -> u64 {
    host(r, name).link_out.frames
}

#[test]
fn smc_r_carries_request_response_off_the_adapter() {
    let tcp = only(&scenario("none", "none", RR1));
    let smc = only(&scenario("r", "r", RR1));
    let (t, s) = (&tcp.workloads[0], &smc.workloads[0]);
    assert!(t.transactions > 100 && s.transactions > 100);
    // Over TCP each transaction is two frames through the OSAs, each
    // signalled; over SMC-R none in the measured window (the connection
    // opened during the warm-up), and two writes per transaction instead.
    assert!(osa_frames(&tcp, "zosa") >= t.transactions);
    assert!(10 * host(&tcp, "zosb").tcp.sigas >= 9 * t.transactions);
    assert_eq!(osa_frames(&smc, "zosa") + osa_frames(&smc, "zosb"), 0);
    assert_eq!(host(&smc, "zosb").tcp.sigas, 0);
    assert_eq!(smc_writes(&tcp), 0);
    let w = smc_writes(&smc);
    assert!(
        w >= 2 * s.transactions,
        "{w} writes, {} txns",
        s.transactions
    );
    // No adapter hold, no signal, no IP/TCP processing: a shorter round
    // trip, and less CPU per transaction.
    assert!(
        s.latency_mean_us < 0.9 * t.latency_mean_us,
        "SMC-R {} us, TCP {} us",
        s.latency_mean_us,
        t.latency_mean_us
    );
    assert!(s.cpu_us_per_txn_server < t.cpu_us_per_txn_server);
}

#[test]
fn only_two_ends_of_one_kind_and_plain_connections_use_smc() {
    // One end SMC-R, the other SMC-D: no common path.
    assert_eq!(smc_writes(&only(&scenario("r", "d", RR1))), 0);
    assert_eq!(smc_writes(&only(&scenario("r", "none", RR1))), 0);
    // SMC-D between two hosts that both have it.
    assert!(smc_writes(&only(&scenario("d", "d", RR1))) > 0);
    // AT-TLS stays on TCP.
    let tls = format!("{RR1}\ntls = \"resume\"");
    let r = only(&scenario("r", "r", &tls));
    assert!(r.workloads[0].transactions > 10);
    assert_eq!(smc_writes(&r), 0);
}

#[test]
fn the_receive_buffer_still_bounds_an_smc_stream() {
    let str_ = |kb: u32| {
        format!(
            "type = \"STR\"\nconnections = 1\nrequest = 1\nresponse = 20000000\n\
             client = \"zosa\"\nserver = \"zosb\"\nsndbuf_kb = 1024\nrcvbuf_kb = {kb}"
        )
    };
    let small = only(&scenario("r", "r", &str_(16)));
    let large = only(&scenario("r", "r", &str_(1024)));
    let (s, l) = (small.workloads[0].mb_per_s, large.workloads[0].mb_per_s);
    assert!(smc_writes(&small) > 0);
    assert!(s > 0.0 && l > 2.0 * s, "16 KB: {s} MB/s, 1 MB: {l} MB/s");
    // The 25 GbE RoCE port bounds the large one (3125 MB/s).
    assert!(l < 3125.0, "{l}");
}

#[test]
fn smc_runs_are_deterministic() {
    let text = scenario("r", "r", RR1);
    let a = serde_json::to_string(&only(&text).to_json().unwrap()).unwrap();
    let b = serde_json::to_string(&only(&text).to_json().unwrap()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn a_bad_smc_value_is_refused_with_the_choices() {
    let e = softosa_sim::scenario::Scenario::parse("t.toml", &scenario("x", "r", RR1))
        .unwrap()
        .variants()
        .expect_err("smc = x is refused")
        .to_string();
    assert!(e.contains("smc \"x\"") && e.contains("r (SMC-R"), "{e}");
}

/// A z/OS profile's GLOBALCONFIG SMCR / SMCD gives the host SMC as the
/// `smc` field does; a host with both uses SMC-D with a peer that has it.
#[test]
fn globalconfig_smcr_and_smcd_in_a_profile_enable_smc() {
    let profiled = |global: &str, other_smc: &str| {
        let text = scenario("none", other_smc, RR1).replacen(
            "inbperf = \"DYNAMIC\"\nsmc = \"none\"",
            &format!(
                "profile_text = \"\"\"\n{global}\nINTERFACE OSA1 DEFINE IPAQENET IPADDR \
                 192.0.2.1/24 PORTNAME P1\nSTART OSA1\n\"\"\""
            ),
            1,
        );
        assert!(text.contains("profile_text"), "{text}");
        only(&text)
    };
    let writes_of = |r: &RunResult| smc_writes(r);
    assert!(writes_of(&profiled("GLOBALCONFIG SMCR PFID 0018 PORTNUM 1", "r")) > 0);
    assert_eq!(writes_of(&profiled("GLOBALCONFIG NOSMCR", "r")), 0);
    assert_eq!(writes_of(&profiled("GLOBALCONFIG SMCR PFID 0018", "d")), 0);
    // Both kinds at one end, SMC-D at the other: SMC-D.
    let both = profiled("GLOBALCONFIG SMCR PFID 0018 SMCD", "d");
    assert!(writes_of(&both) > 0);
    // The smc field beside a profile is refused: the profile decides.
    let clash = scenario("r", "r", RR1).replacen(
        "inbperf = \"DYNAMIC\"\n",
        "profile_text = \"INTERFACE OSA1 DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\"\n",
        1,
    );
    let e = softosa_sim::scenario::Scenario::parse("t.toml", &clash)
        .unwrap()
        .variants()
        .expect_err("smc beside a profile is refused")
        .to_string();
    assert!(e.contains("GLOBALCONFIG SMCR or SMCD"), "{e}");
}

/// Two z/OS systems on one machine's HiperSockets LAN (`link =
/// "hipersockets"`: no OSA), with `smc` at both.
fn on_hipersockets(smc: &str, workload: &str) -> String {
    format!(
        r#"
duration_ms = 150
warmup_ms = 50
[hipersockets]
machine = "z14"
mfs_kb = 64
[[host]]
name = "zosa"
type = "zos"
machine = "z14"
link = "hipersockets"
ip = "192.0.2.1"
smc = "{smc}"
[[host]]
name = "zosb"
type = "zos"
machine = "z14"
link = "hipersockets"
ip = "192.0.2.2"
smc = "{smc}"
[[workload]]
{workload}
"#
    )
}

#[test]
fn smc_d_between_two_z_os_on_one_machine_against_their_hipersockets() {
    let iqd = only(&on_hipersockets("none", RR1));
    let ism = only(&on_hipersockets("d", RR1));
    let (t, s) = (&iqd.workloads[0], &ism.workloads[0]);
    assert!(t.transactions > 100 && s.transactions > 100);
    // Over HiperSockets the frames move on the LAN and no adapter exists.
    assert_eq!(smc_writes(&iqd), 0);
    assert!(host(&iqd, "zosa").tcp.iqd_sent >= t.transactions);
    assert!(host(&iqd, "zosa").adapter.is_none());
    // Over ISM the data moves by writes; the LAN carries nothing in the
    // measured window, and each transaction costs less CPU (no IP/TCP
    // segment work, the socket calls' TCP part gone).
    assert!(smc_writes(&ism) >= 2 * s.transactions);
    assert_eq!(host(&ism, "zosa").tcp.iqd_sent, 0);
    assert!(
        s.cpu_us_per_txn_server < t.cpu_us_per_txn_server,
        "SMC-D {} us, HiperSockets {} us",
        s.cpu_us_per_txn_server,
        t.cpu_us_per_txn_server
    );
}

#[test]
fn a_z_os_host_on_hipersockets_takes_no_osa_setting() {
    for (line, says) in [
        (
            "adapter = \"osa-express6s\"",
            "adapter applies to a z/OS host's OSA",
        ),
        (
            "inbperf = \"DYNAMIC\"",
            "inbperf applies to a z/OS host's OSA",
        ),
        // The wire's settings were taken and ignored.
        ("speed = \"10g\"", "speed is a setting of an Ethernet link"),
        ("loss = 0.5", "loss is a setting of an Ethernet link"),
        (
            "latency_us = 900",
            "latency_us is a setting of an Ethernet link",
        ),
        ("mtu = 9000", "mtu is a setting of an Ethernet link"),
        (
            "switch_buffer_kb = 1",
            "switch_buffer_kb is a setting of an Ethernet link",
        ),
    ] {
        let text = on_hipersockets("none", RR1).replacen(
            "link = \"hipersockets\"\n",
            &format!("link = \"hipersockets\"\n{line}\n"),
            1,
        );
        let e = refusal(&text);
        assert!(e.contains(says), "{e}");
    }
    // A [vary] of an OSA or wire setting without a hosts list leaves such
    // hosts out (here: every host, so it selects nothing and says so).
    for (vary, says) in [
        (
            "field = \"inbperf\"\nvalues = [\"BALANCED\", \"DYNAMIC\"]",
            "inbperf is a setting of a z/OS host's OSA, and every z/OS host here is on HiperSockets",
        ),
        (
            "field = \"speed\"\nvalues = [\"1g\", \"10g\"]",
            "speed is a setting of an Ethernet link, and every z/OS host here is on HiperSockets",
        ),
    ] {
        let e = refusal(&format!("{}[vary]\n{vary}\n", on_hipersockets("none", RR1)));
        assert!(e.contains(says), "{e}");
    }
}

/// A connection per transaction does the CLC rendezvous over the OSAs each
/// time (a round trip of TCP segments) before its data moves over SMC-R:
/// with tiny messages that round trip costs more than SMC saves, with
/// larger ones SMC still wins (spec 4.4: "tiny short-lived connections gain
/// nothing").
#[test]
fn a_connection_per_transaction_pays_the_rendezvous_each_time() {
    let crr = |req: u32, resp: u32| {
        format!(
            "type = \"CRR\"\nconnections = 1\nrequest = {req}\nresponse = {resp}\n\
             client = \"zosa\"\nserver = \"zosb\""
        )
    };
    let (tcp, smc) = (
        only(&scenario("none", "none", &crr(100, 100))),
        only(&scenario("r", "r", &crr(100, 100))),
    );
    let (t, s) = (&tcp.workloads[0], &smc.workloads[0]);
    assert!(t.transactions > 100 && s.transactions > 100);
    // Data over SMC, the rendezvous and the handshake through the OSAs.
    // (A transaction's request and response; one may fall outside the
    // window at either edge.)
    assert!(smc_writes(&smc) + 2 >= 2 * s.transactions);
    let frames = osa_frames(&smc, "zosa");
    assert!(
        frames >= 3 * s.transactions,
        "SYN, its ACK, the Proposal and the FIN go out per connection: {frames} frames, {} txns",
        s.transactions
    );
    assert!(
        s.transactions_per_s < t.transactions_per_s,
        "tiny: SMC-R {} against TCP {} per second",
        s.transactions_per_s,
        t.transactions_per_s
    );
    // Application bytes only: the CLC messages are not the workload's.
    let per_txn = s.mb_per_s * 1e6 / s.transactions_per_s;
    assert!(
        (per_txn - 200.0).abs() < 2.0,
        "{per_txn} bytes a transaction"
    );
    let (tcp, smc) = (
        only(&scenario("none", "none", &crr(8192, 32768))),
        only(&scenario("r", "r", &crr(8192, 32768))),
    );
    let (t, s) = (&tcp.workloads[0], &smc.workloads[0]);
    assert!(
        s.transactions_per_s > 1.3 * t.transactions_per_s,
        "8K/32K: SMC-R {} against TCP {} per second",
        s.transactions_per_s,
        t.transactions_per_s
    );
}

#[test]
fn smc_d_sends_from_the_application_buffer_without_a_copy() {
    // zosb streams to zosa over ISM. SMC-D's move reads the sending
    // application's buffer itself; with the copy into a send buffer put
    // back (as SMC-R makes it), the sender pays copy_byte_ps per byte more.
    let str1 = "type = \"STR\"\nconnections = 1\nrequest = 1\nresponse = 20000000\nclient = \"zosa\"\nserver = \"zosb\"\nsndbuf_kb = 256\nrcvbuf_kb = 256";
    let zero = only(&on_hipersockets("d", str1));
    let copied = only(&(on_hipersockets("d", str1) + "[models.smc.d]\nzero_copy_send = false\n"));
    let per_mb = |r: &RunResult| r.workloads[0].cpu_ms_per_mb_server;
    let (z, c) = (per_mb(&zero), per_mb(&copied));
    assert!(smc_writes(&zero) > 0 && smc_writes(&copied) > 0);
    // 250 ps a byte is 0.25 ms a MB, give or take the per-write parts.
    assert!(
        (c - z - 0.25).abs() < 0.05,
        "sender CPU per MB: {z} without the copy, {c} with it"
    );
    // The receiver still copies out of its buffer either way.
    let recv = |r: &RunResult| r.workloads[0].cpu_ms_per_mb_client;
    assert!(
        (recv(&zero) - recv(&copied)).abs() < 0.05,
        "{} {}",
        recv(&zero),
        recv(&copied)
    );
}
