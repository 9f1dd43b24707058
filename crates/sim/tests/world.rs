//! Whole-world tests: determinism, the SRB races of spec 2.3 emerging from
//! concurrent units of work (and IWQ removing them), CRR, the sysplex
//! distributor, and every example scenario running.

use softosa_sim::report::RunResult;
use softosa_sim::scenario::Scenario;
use softosa_sim::world::{World, WorldError};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shipped example `scenarios/NAME` with its measured window changed
/// from `from` ms to `to` ms (a longer or shorter run of the same setup).
fn example_for(name: &str, from: u32, to: u32) -> String {
    let text = std::fs::read_to_string(repo().join("scenarios").join(name)).unwrap();
    let was = format!("duration_ms = {from}\n");
    assert!(text.contains(&was), "{name} no longer says {was:?}");
    text.replace(&was, &format!("duration_ms = {to}\n"))
}

mod common;
use common::{host, only, run_text};

/// A `[[workload]]` of CRRn(100/800) from `client` to `server`.
fn crr(n: u32, client: &str, server: &str) -> String {
    format!(
        "[[workload]]\nname = \"CRR{n}\"\ntype = \"CRR\"\nconnections = {n}\n\
         request = 100\nresponse = 800\nclient = \"{client}\"\nserver = \"{server}\"\n"
    )
}

const STREAM_OUT: &str = r#"
duration_ms = 100
warmup_ms = 60
[[host]]
name = "zos"
type = "zos"
machine = "z10"
ip = "192.0.2.2"
adapter = "osa-express3"
speed = "10g"
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.10"
speed = "10g"
[[workload]]
type = "STR"
connections = 1
request = 1
response = 20000000
client = "aix"
server = "zos"
sndbuf_kb = 512
rcvbuf_kb = 256
[vary]
field = "inbperf"
values = ["DYNAMIC", "DYNAMIC WORKLOADQ"]
"#;

#[test]
fn same_seed_gives_identical_results() {
    let text = std::fs::read_to_string(repo().join("scenarios/quick-rr.toml")).unwrap();
    let a = run_text(&text);
    let b = run_text(&text);
    let ja = serde_json::to_string(&a.iter().map(|x| &x.1).collect::<Vec<_>>()).unwrap();
    let jb = serde_json::to_string(&b.iter().map(|x| &x.1).collect::<Vec<_>>()).unwrap();
    assert_eq!(ja, jb);
    assert!(a[0].1.workloads[0].transactions > 0);
}

/// The engine's drops in the JSON are named by reason id (as `display
/// drops` names them), every reason, not an array indexed by reason.
#[test]
fn engine_drops_are_named_by_reason_id() {
    let text = std::fs::read_to_string(repo().join("scenarios/quick-rr.toml")).unwrap();
    let r = run_text(&text);
    let v = serde_json::to_value(&r[0].1).unwrap();
    let hosts = v["hosts"].as_array().unwrap();
    let with_adapter: Vec<_> = hosts.iter().filter(|h| !h["adapter"].is_null()).collect();
    assert!(!with_adapter.is_empty());
    let ids: Vec<&str> = softosa_engine::counters::DropReason::ALL
        .iter()
        .map(|r| r.id())
        .collect();
    for h in with_adapter {
        // Not under a key nested in itself (`engine.engine`), as before.
        assert!(h["adapter"]["engine"].get("engine").is_none(), "{h}");
        for dir in ["dropped_in", "dropped_out"] {
            let d = h["adapter"]["engine"]["counters"][dir]
                .as_object()
                .unwrap_or_else(|| panic!("{dir} is an object: {h}"));
            let mut keys: Vec<&str> = d.keys().map(String::as_str).collect();
            let mut want = ids.clone();
            keys.sort_unstable();
            want.sort_unstable();
            assert_eq!(keys, want);
            assert!(d.values().all(|n| n.as_u64().is_some()), "{d:?}");
        }
    }
}

#[test]
fn a_different_seed_changes_details_not_the_picture() {
    let text = std::fs::read_to_string(repo().join("scenarios/quick-rr.toml")).unwrap();
    let a = run_text(&text);
    let b = run_text(&text.replace("seed = 1", "seed = 2"));
    let ta = a[0].1.workloads[0].transactions_per_s;
    let tb = b[0].1.workloads[0].transactions_per_s;
    assert!((ta / tb - 1.0).abs() < 0.2, "{ta} vs {tb}");
}

#[test]
fn outbound_race_reorders_without_iwq_and_recovery_does_not_storm() {
    let r = run_text(STREAM_OUT);
    let (plain, iwq) = (&r[0].1, &r[1].1);
    // Without IWQ (DYNAMIC holds a dense ACK stream only briefly), ACK
    // batches are presented faster than one unit processes them: units on
    // different processors each release a burst, the bursts can interleave
    // SBAL by SBAL, the AIX receiver sees an out-of-order run and ACKs each
    // segment of it, and z/OS fast-retransmits spuriously.
    let ooo_p = host(plain, "aix").tcp.ooo_segments_in;
    let z = host(plain, "zos");
    assert!(ooo_p > 0, "{ooo_p}");
    assert!(z.tcp.fast_retransmits > 0);
    // NewReno ends the recovery when the reordered original fills the
    // hole: no retransmission per partial ACK (which fed more duplicate
    // data, more immediate ACKs and more concurrent units: a storm).
    assert!(
        z.tcp.retransmits <= 2 * z.tcp.fast_retransmits,
        "{} retransmits for {} fast retransmits",
        z.tcp.retransmits,
        z.tcp.fast_retransmits
    );
    // With IWQ the ACKs land on BULKDATA, serviced by one unit at a time:
    // after the bulk registration no further reordering.
    let zi = host(iwq, "zos");
    assert!(zi.tcp.fast_retransmits <= 1, "{}", zi.tcp.fast_retransmits);
}

#[test]
fn inbound_race_emerges_from_concurrent_units() {
    let text = STREAM_OUT.replace(
        "client = \"aix\"\nserver = \"zos\"",
        "client = \"zos\"\nserver = \"aix\"",
    );
    let r = run_text(&text);
    let (plain, iwq) = (&r[0].1, &r[1].1);
    let ooo_plain = host(plain, "zos").tcp.ooo_segments_in;
    let ooo_iwq = host(iwq, "zos").tcp.ooo_segments_in;
    assert!(ooo_plain > 0, "two units on one queue reorder segments");
    assert!(ooo_iwq < ooo_plain, "{ooo_iwq} vs {ooo_plain}");
}

#[test]
fn crr_opens_a_connection_per_transaction() {
    let text = std::fs::read_to_string(repo().join("scenarios/crr-web.toml")).unwrap();
    let r = run_text(&text);
    let w = &r[0].1.workloads[0];
    assert!(w.transactions > 100);
    // Each transaction opens one connection and closes it; the window's
    // edges cut at most one per connection of the workload.
    let near = |n: u64, what: &str| {
        assert!(
            n.abs_diff(w.transactions) <= 9,
            "{what} {n}, transactions {}",
            w.transactions
        );
    };
    let (zos, linux) = (host(&r[0].1, "zos"), host(&r[0].1, "linux"));
    near(zos.tcp.connections_opened, "accepted");
    near(linux.tcp.connections_opened, "opened");
    // The client closes first: its end of every connection passes through
    // TIME_WAIT after acknowledging the server's FIN, so nothing arrives
    // for a connection that is already gone.
    near(linux.tcp.time_wait_entered, "TIME_WAIT");
    assert_eq!(zos.tcp.time_wait_entered, 0, "the server closes second");
    assert_eq!(linux.tcp.stray_segments + zos.tcp.stray_segments, 0);
    assert_eq!(linux.tcp.time_wait_reused, 0, "ports are plenty here");
    assert_eq!(
        linux.tcp.time_wait_segments, 0,
        "on a clean link nothing comes late"
    );
}

#[test]
fn a_peer_server_closes_with_one_fin_carrying_its_ack() {
    // Linux serving AIX, a connection per transaction: the server answers
    // the client's FIN with its own FIN, which carries the ACK. A separate
    // pure ACK queued first would leave after the FIN and reach the client
    // in TIME_WAIT.
    let text = r#"
name = "peer CRR"
duration_ms = 200
warmup_ms = 50
seed = 4

[[host]]
name = "linux"
type = "linux"
ip = "192.0.2.10"
speed = "10g"

[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.11"
speed = "10g"

"#;
    let r = run_text(&(text.to_string() + &crr(4, "aix", "linux")));
    let res = &r[0].1;
    let w = &res.workloads[0];
    assert!(w.transactions > 500, "{}", w.transactions);
    let (srv, cli) = (host(res, "linux"), host(res, "aix"));
    // SYN-ACK, the response, the FIN: three segments a connection
    let per = srv.tcp.segments_out as f64 / w.transactions as f64;
    assert!((per - 3.0).abs() < 0.05, "{per}");
    assert_eq!(cli.tcp.time_wait_segments + cli.tcp.stray_segments, 0);
    assert!(cli.tcp.time_wait_entered.abs_diff(w.transactions) <= 4);
}

/// `scenarios/crr-web.toml` run for 1.6 s, with `extra` appended: some
/// 50k connections a second from one Linux client, enough to wrap its
/// ephemeral ports about 1.25 s in.
fn busy_crr_web(extra: &str) -> RunResult {
    let text = example_for("crr-web.toml", 100, 1600);
    let mut r = run_text(&(text + extra));
    r.remove(0).1
}

#[test]
fn a_busy_crr_client_reuses_time_wait_ports_and_counts_it() {
    // Some 50k connections a second from one client to one server port
    // use up the 64k ephemeral ports in about a second and a quarter; the
    // client then takes ports whose previous connection is still in
    // TIME_WAIT, and says how often.
    let r = busy_crr_web("");
    let linux = host(&r, "linux");
    let opened = linux.tcp.connections_opened;
    assert!(opened > 70_000, "{opened}");
    // the window starts after the warm-up: every port wrap in it reuses
    assert!(linux.tcp.time_wait_reused > 0);
    assert!(linux.tcp.time_wait_reused < opened);
    assert_eq!(linux.tcp.stray_segments, 0);
    let text_out = r.to_text();
    assert!(
        text_out.contains("of its ports reused while in TIME_WAIT"),
        "{text_out}"
    );
}

#[test]
fn a_peer_whose_time_wait_has_run_out_reuses_its_ports_freely() {
    // The same busy client as above, keeping TIME_WAIT for one second: by
    // the time its ports wrap (about 1.25 s in), the first connections'
    // entries have expired, so no port is taken from TIME_WAIT.
    let r = busy_crr_web("\n[models.peer.linux]\ntime_wait_s = 1\n");
    let linux = host(&r, "linux");
    assert!(linux.tcp.connections_opened > 70_000, "{:?}", linux.tcp);
    assert!(linux.tcp.time_wait_entered > 60_000, "{:?}", linux.tcp);
    assert_eq!(linux.tcp.time_wait_reused, 0, "{:?}", linux.tcp);
    assert_eq!(linux.tcp.stray_segments, 0);
}

#[test]
fn a_lost_last_ack_is_answered_from_time_wait() {
    // Frames into the client are lost at random: sometimes the server's
    // FIN, sometimes the client's last ACK on the way back is lost
    // (the server then sends its FIN again, and the client's TIME_WAIT
    // entry answers it). Every connection still closes on both ends.
    let text = r#"
name = "lossy CRR"
duration_ms = 6000
warmup_ms = 100
seed = 3

[[host]]
name = "zos"
type = "zos"
ip = "192.0.2.2"
speed = "1g"
machine = "z10"
adapter = "osa-express3"
inbperf = "DYNAMIC"
loss = 0.01

[[host]]
name = "linux"
type = "linux"
ip = "192.0.2.10"
speed = "1g"
loss = 0.01

"#;
    let r = run_text(&(text.to_string() + &crr(4, "linux", "zos")));
    let (zos, linux) = (host(&r[0].1, "zos"), host(&r[0].1, "linux"));
    let w = &r[0].1.workloads[0];
    // (a lost SYN or response stalls its connection for a timeout)
    assert!(w.transactions > 100, "{}", w.transactions);
    assert!(zos.tcp.retransmits > 0, "the server resends what was lost");
    assert!(
        linux.tcp.time_wait_acks > 0,
        "some FINs come again to TIME_WAIT: {:?}",
        linux.tcp
    );
    assert!(linux.tcp.time_wait_acks < linux.tcp.time_wait_entered / 10);
}

/// A connection per transaction from a Linux client to the DVIPA of z/OS
/// host zosd, which spreads it over `distribute_to`; `targets` are the
/// other z/OS hosts (192.0.2.2, .3, ...), all on 1 GbE.
fn distributed_crr(seed: u32, distribute_to: &[&str], targets: &[&str]) -> String {
    let zos = |name: &str, ip: usize| {
        format!(
            "[[host]]\nname = \"{name}\"\ntype = \"zos\"\nmachine = \"z10\"\n\
             ip = \"192.0.2.{ip}\"\nadapter = \"osa-express3\"\nspeed = \"1g\"\n\
             inbperf = \"DYNAMIC\"\n"
        )
    };
    let mut text = format!(
        "name = \"distributed CRR\"\nduration_ms = 300\nwarmup_ms = 50\nseed = {seed}\n\n{}\
         dvipa = \"192.0.2.100\"\ndistribute_to = {distribute_to:?}\n\n",
        zos("zosd", 1)
    );
    for (k, t) in targets.iter().enumerate() {
        text += &zos(t, k + 2);
        text += "\n";
    }
    text += "[[host]]\nname = \"linux\"\ntype = \"linux\"\nip = \"192.0.2.10\"\nspeed = \"1g\"\n\n";
    text + &crr(8, "linux", "zosd") + "to_dvipa = true\n"
}

#[test]
fn distributed_crr_connections_close_on_their_target() {
    // A connection per transaction to a distributed DVIPA with two targets:
    // every segment of a connection, the client's last ACK after the FIN
    // exchange too, must reach the target that accepted it, and the
    // distributor's routing entry must go when the connection has ended.
    let r = run_text(&distributed_crr(
        2,
        &["zost1", "zost2"],
        &["zost1", "zost2"],
    ));
    let res = &r[0].1;
    let w = &res.workloads[0];
    assert!(w.transactions > 1000, "{}", w.transactions);
    for name in ["zosd", "zost1", "zost2", "linux"] {
        assert_eq!(host(res, name).tcp.stray_segments, 0, "{name}");
    }
    // every segment to the DVIPA found its connection's route
    assert_eq!(host(res, "zosd").tcp.sd_unrouted, 0);
    // the client's SYN, its request (carrying the handshake's ACK), its
    // FIN and its last ACK: four frames a connection go through the
    // distributor (the targets answer the client directly)
    let per = host(res, "zosd").tcp.sd_forwarded as f64 / w.transactions as f64;
    assert!((per - 4.0).abs() < 0.05, "{per}");
    let (t1, t2) = (host(res, "zost1"), host(res, "zost2"));
    // round robin: both targets serve about half
    let (a, b) = (t1.tcp.connections_opened, t2.tcp.connections_opened);
    assert!(a.abs_diff(b) <= 8, "{a} {b}");
    assert!(
        host(res, "linux")
            .tcp
            .time_wait_entered
            .abs_diff(w.transactions)
            <= 8
    );
}

#[test]
fn a_distributor_that_targets_itself_serves_its_share_locally() {
    // Round robin over the distributor and one other target: about half the
    // connections stay on the distributor, with nothing of theirs
    // forwarded, and every route ends with its connection, the local ones
    // too (CRR: a connection per transaction, so a route left behind would
    // pile up in the table).
    let full = distributed_crr(3, &["zosd", "zost"], &["zost"]);
    let sc = Scenario::parse("self.toml", &full).expect("a distributor may name itself");
    let v = sc.variants().expect("variants").remove(0);
    let (res, world) = softosa_sim::run_setup(&v.setup, |_, _| {}).expect("runs");
    let w = &res.workloads[0];
    assert!(w.transactions > 1000, "{}", w.transactions);
    let (d, t) = (host(&res, "zosd"), host(&res, "zost"));
    for name in ["zosd", "zost", "linux"] {
        assert_eq!(host(&res, name).tcp.stray_segments, 0, "{name}");
    }
    assert_eq!(d.tcp.sd_unrouted, 0);
    // both serve: the distributor keeps its share, the target gets the rest
    let (a, b) = (d.tcp.connections_opened, t.tcp.connections_opened);
    assert!(a > 100 && b > 100, "{a} {b}");
    assert!(a.abs_diff(b) * 4 < a + b, "round robin: {a} {b}");
    // what it serves itself is not forwarded: four frames of each forwarded
    // connection cross the XCF link, none of a local one
    let per = d.tcp.sd_forwarded as f64 / b as f64;
    assert!((per - 4.0).abs() < 0.2, "{per}");
    assert!(d.tcp.sd_local as f64 / a as f64 > 3.5, "{:?}", d.tcp);
    // routes end with their connections: at the end only those of open
    // connections remain, at most two a client (one closing, its next one
    // opening), where a leak would leave hundreds
    let routes = world.vcrt_routes("zosd").expect("a distributor");
    assert!(routes.len() <= 16, "{} routes left", routes.len());
}

#[test]
fn think_time_paces_the_clients_and_stays_out_of_the_response_time() {
    // scenarios/rr-think-time.toml, shortened: forty RR clients in a closed
    // loop, then with a mean think time of 500, 2000 and 8000 us. Each
    // client goes round once per response time plus its think time, so
    // the rate follows from those, and the response time is the round
    // trip's alone, much shorter than the longer think times.
    let text = example_for("rr-think-time.toml", 500, 300);
    let runs = run_text(&text);
    let wl = |k: usize| &runs[k].1.workloads[0];
    for (k, think) in [(1, 500.0), (2, 2000.0), (3, 8000.0)] {
        let w = wl(k);
        assert!(w.latency_mean_us < 500.0, "{think}: {}", w.latency_mean_us);
        assert!(w.latency_mean_us > 50.0, "{think}: {}", w.latency_mean_us);
        let expect = 40.0 / ((w.latency_mean_us + think) / 1e6);
        let rate = w.transactions_per_s;
        assert!(
            rate < expect * 1.05 && rate > expect * 0.85,
            "{think}: {rate} against at most {expect}"
        );
    }
    assert!(
        wl(0).transactions_per_s > 3.0 * wl(2).transactions_per_s,
        "{}",
        wl(0).transactions_per_s
    );
    // the same seed gives the same draws
    let again = run_text(&text);
    assert_eq!(
        again[2].1.workloads[0].transactions_per_s.to_bits(),
        wl(2).transactions_per_s.to_bits()
    );
    // CRR: the think time delays the next connection
    let crr = run_text(&text.replace("type = \"RR\"", "type = \"CRR\""));
    let (w, think) = (&crr[3].1.workloads[0], 8000.0);
    let expect = 40.0 / ((w.latency_mean_us + think) / 1e6);
    let r = w.transactions_per_s;
    assert!(
        r < expect * 1.05 && r > expect * 0.6,
        "{r} against {expect}"
    );
}

#[test]
fn sysplex_distributor_forwards_to_its_target() {
    let text =
        std::fs::read_to_string(repo().join("scenarios/sysplex-distributor-mix.toml")).unwrap();
    let r = run_text(&text);
    for (_, res) in &r {
        assert!(host(res, "zosd").tcp.sd_forwarded > 0);
        assert_eq!(host(res, "zost").tcp.sd_forwarded, 0);
        let d = res
            .workloads
            .iter()
            .find(|w| w.name == "distributed-RR10")
            .unwrap();
        assert!(d.transactions > 0);
        assert!(host(res, "zost").tcp.segments_out > 0, "the target answers");
        // What the distributor forwards comes in over the target's XCF
        // link (a few frames apart at the window's edges); the distributor
        // has no XCF link into it.
        let xcf = host(res, "zost").xcf_in.expect("a target's XCF link");
        let fwd = host(res, "zosd").tcp.sd_forwarded;
        assert!(xcf.frames.abs_diff(fwd) <= 4, "{} {fwd}", xcf.frames);
        assert!(xcf.bytes > 40 * xcf.frames);
        assert!(host(res, "zosd").xcf_in.is_none());
    }
}

#[test]
fn every_example_scenario_loads() {
    for e in std::fs::read_dir(repo().join("scenarios")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            let sc = Scenario::load(&p).unwrap_or_else(|e| panic!("{e}"));
            assert!(!sc.variants().unwrap().is_empty(), "{}", p.display());
        }
    }
}

#[test]
fn olm_writes_to_queue_one_need_no_siga() {
    let text = r#"
duration_ms = 20
warmup_ms = 10
[[host]]
name = "zos"
type = "zos"
ip = "192.0.2.2"
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.10"
[[workload]]
type = "RR"
connections = 4
request = 100
response = 800
client = "aix"
server = "zos"
[vary]
field = "inbperf"
values = ["DYNAMIC", "OLM"]
"#;
    let runs = run_text(text);
    let dynamic = host(&runs[0].1, "zos");
    let olm = host(&runs[1].1, "zos");
    assert!(
        dynamic.tcp.sigas >= dynamic.tcp.segments_out / 2,
        "without OLM every write is signalled: {} SIGAs for {} segments",
        dynamic.tcp.sigas,
        dynamic.tcp.segments_out
    );
    assert!(olm.tcp.segments_out > 0);
    assert_eq!(olm.tcp.sigas, 0, "OLM: the adapter polls write queue 1");
}

/// RR between z/OS and AIX, DYNAMIC versus OLM, with `conns` connections.
fn olm_rr(conns: u32) -> (f64, f64) {
    let text = format!(
        r#"
duration_ms = 30
warmup_ms = 10
[[host]]
name = "zos"
type = "zos"
ip = "192.0.2.2"
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.10"
[[workload]]
type = "RR"
connections = {conns}
request = 1
response = 1
client = "aix"
server = "zos"
[vary]
field = "inbperf"
values = ["DYNAMIC", "OLM"]
"#
    );
    let runs = run_text(&text);
    let cpu = |r: &RunResult| r.workloads[0].cpu_us_per_txn_server;
    (cpu(&runs[0].1), cpu(&runs[1].1))
}

#[test]
fn olm_host_keeps_polling_after_a_batch_and_pays_for_it() {
    let window_us = softosa_engine::config::OlmConfig::default()
        .poll_window
        .as_micros() as f64;
    // One connection: the next request comes long after the window, so
    // the host spins through the whole window after every batch.
    let (dynamic, olm) = olm_rr(1);
    assert!(
        olm - dynamic > 0.6 * window_us,
        "one session: OLM {olm:.1} us/txn vs DYNAMIC {dynamic:.1}"
    );
    // Many connections: the poller finds the next request inside the
    // window and stops looking, so far less of the window is paid.
    let (dynamic, olm) = olm_rr(40);
    assert!(
        olm - dynamic < 0.6 * window_us,
        "busy queue: OLM {olm:.1} us/txn vs DYNAMIC {dynamic:.1}"
    );
}

#[test]
fn a_stream_beside_request_response_does_not_inflate_its_cpu_per_transaction() {
    let base = r#"
duration_ms = 30
warmup_ms = 20
[[host]]
name = "zos"
type = "zos"
ip = "192.0.2.2"
speed = "10g"
inbperf = "DYNAMIC WORKLOADQ"
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.10"
speed = "10g"
[[workload]]
name = "RR"
type = "RR"
connections = 4
request = 100
response = 800
client = "aix"
server = "zos"
"#;
    let stream = r#"
[[workload]]
name = "STR"
type = "STR"
connections = 1
request = 1
response = 20000000
client = "zos"
server = "aix"
"#;
    let alone = run_text(base);
    let mixed = run_text(&format!("{base}{stream}"));
    let rr = |r: &RunResult| {
        r.workloads
            .iter()
            .find(|w| w.name == "RR")
            .unwrap()
            .cpu_us_per_txn_server
    };
    let (a, m) = (rr(&alone[0].1), rr(&mixed[0].1));
    let s = mixed[0]
        .1
        .workloads
        .iter()
        .find(|w| w.name == "STR")
        .unwrap();
    assert!(s.mb_per_s > 50.0, "the stream ran: {} MB/s", s.mb_per_s);
    assert!(
        m < a * 1.25,
        "RR CPU per transaction {m:.1} us beside a stream vs {a:.1} us alone"
    );
}

#[test]
fn z_os_displays_work_on_a_finished_run() {
    let sc = Scenario::load(&repo().join("scenarios/quick-rr.toml")).unwrap();
    let v = sc.variants().unwrap().remove(0);
    let (r, world) = softosa_sim::run_setup(&v.setup, |_, _| {}).unwrap();
    let engines = world.engines();
    assert!(!engines.is_empty(), "a z/OS host has an adapter");
    let (_, engine) = engines[0];
    let text = softosa_display::render(
        softosa_display::DisplayKind::Tuning,
        engine,
        &softosa_display::DisplayContext::default(),
        None,
        softosa_display::Format::Text,
    )
    .unwrap();
    // The display shows the engine's own counters of the finished run.
    let packcnt = engine.interfaces()[0]
        .queue(softosa_engine::QueueKind::Primary)
        .unwrap()
        .q
        .counters
        .packcnt;
    assert!(packcnt > 0 && r.workloads.iter().any(|w| w.transactions > 0));
    assert!(
        text.contains(&format!("PACKCNT  = {packcnt:>10}")),
        "{text}"
    );
    assert!(engine.accounting().balanced());
}

/// Netstat DEVLINKS of a simulated host: CFGMTU is what the profile codes
/// (NONE here), ACTMTU what the simulated link carries, and a coded MTU
/// larger than the link's is cut to it.
#[test]
fn a_simulated_interface_uses_the_links_mtu_and_shows_the_coded_one() {
    for (coded, cfg, act) in [
        ("", None, 1500),
        (" MTU 1492", Some(1492), 1492),
        (" MTU 8992", Some(8992), 1500),
    ] {
        let (_, world) = zos_with_aix((5, 1), 1, 100, coded).unwrap();
        let engines = world.engines();
        let i = &engines[0].1.interfaces()[0];
        assert_eq!((i.cfg.mtu, i.mtu), (cfg, act), "{coded}");
    }
}

/// A peer whose application answers at once (no scheduling latency, no
/// socket-call cost) writes while the NIC unit that delivered the data is
/// still busy with other frames of its batch and so still holds the
/// connection: the unit must send what was written when it lets go, or the
/// exchange stalls until some other segment happens to arrive.
#[test]
fn data_written_while_the_receiving_unit_holds_the_connection_is_sent() {
    let text = r#"
duration_ms = 40
warmup_ms = 10
[[host]]
name = "zos"
type = "zos"
machine = "z10"
ip = "192.0.2.2"
adapter = "osa-express3"
inbperf = "MINLATENCY"
[[host]]
name = "peer"
type = "quick"
ip = "192.0.2.10"
[[workload]]
type = "RR"
connections = 4
request = 100
response = 800
client = "peer"
server = "zos"
[models.peer.quick]
processors = 4
interrupt_ns = 3000
rx_pkt_ns = 20000
rx_ooo_ns = 1800
rx_ack_ns = 700
tx_pkt_ns = 1300
tx_ack_ns = 800
tso_seg_ns = 1500
tso_pkt_ns = 200
sock_call_ns = 0
conn_ns = 20000
sock_block = 65536
poll_ns = 1000
wakeup_ns = 0
nic_coalesce_ns = 100000
ack_every = 2
delack_ns = 200000000
"#;
    let r = run_text(text);
    let w = &r[0].1.workloads[0];
    // Four connections exchange freely (about 500 transactions in the 30 ms
    // window); a stranded request waits until a segment of some other
    // connection happens to wake its unit (about 160).
    assert!(w.transactions > 350, "{} transactions", w.transactions);
}

#[test]
fn bulk_queue_batches_waiting_for_its_unit_are_processed_in_one_pass() {
    // IWQ outbound stream: the AIX ACKs land on BULKDATA, serviced by one
    // unit at a time. Batches presented while a unit waits join it, so the
    // stack never holds one read buffer per waiting ACK and runs dry.
    let r = run_text(STREAM_OUT);
    let iwq = &r[1].1;
    let z = host(iwq, "zos");
    let eng = &z.adapter.as_ref().unwrap().engine;
    let bulk = &eng["read_queues"]["RD/2 BULKDATA"];
    let presented = bulk["sbalcnt"].as_u64().unwrap();
    assert!(presented > 1000, "{bulk}");
    assert_eq!(bulk["noreads"].as_u64().unwrap_or(0), 0, "{bulk}");
    // Fewer units of work than bulk presentations: each unit that had to
    // wait took the batches presented meanwhile (without joining, every
    // presentation would be a unit of its own, plus PRIMARY's).
    assert!(
        z.tcp.units * 20 < presented * 19,
        "{} vs {presented}",
        z.tcp.units
    );
}

#[test]
fn a_full_write_queue_holds_data_in_the_stack_without_loss() {
    // Only 4 output SBALs: the stack must wait for the adapter to empty
    // one before writing more; the adapter's queue stays short, nothing is
    // dropped, the stream still flows.
    let adapter = r#"
[models.adapter.small-wq]
siga_latency_ns = 15000
frame_ns = 2000
byte_ps = 500
sort_ns = 100
present_ns = 1500
latency_ns = 6500
in_buffer_frames = 2048
olm_frame_ns = 250
write_queue_sbals = 4
"#;
    let text = STREAM_OUT.replace("osa-express3", "small-wq") + adapter;
    let r = run_text(&text);
    let full = run_text(STREAM_OUT);
    for ((_, small), (_, big)) in r.iter().zip(&full) {
        let z = host(small, "zos");
        assert!(z.tcp.write_waits > 0);
        assert_eq!(host(big, "zos").tcp.write_waits, 0, "128 SBALs suffice");
        let eng = &z.adapter.as_ref().unwrap().engine;
        let wq = &eng["write_queues"][0];
        let depth = wq["max_depth"].as_u64().unwrap();
        assert!(depth <= 4 * 16, "{wq}");
        assert_eq!(wq["discards"].as_u64(), Some(0));
        let lost: u64 = eng["counters"]["dropped_out"]
            .as_object()
            .unwrap()
            .values()
            .filter_map(|x| x.as_u64())
            .sum();
        assert_eq!(lost, 0);
        assert!(small.workloads[0].mb_per_s > 50.0);
    }
}

/// RR over a 1 GbE adapter (a test copy of OSA-Express3 whose microprocessor
/// spends `signal_ns` on each write signal), DYNAMIC versus OLM: mean latency
/// (µs) and transactions per second of each.
/// A built-in model entry (`kind` "adapter" or "machine") with one value
/// changed, as a scenario's `[models.<kind>.<as_name>]` table.
fn model_with(kind: &str, name: &str, as_name: &str, key: &str, value: u64) -> String {
    let all: toml::Table = toml::from_str(softosa_sim::params::DEFAULT_MODELS).unwrap();
    let mut entry = all[kind][name].as_table().unwrap().clone();
    entry.insert(key.into(), toml::Value::Integer(value as i64));
    format!(
        "[models.{kind}.{as_name}]\n{}",
        toml::to_string(&entry).unwrap()
    )
}

/// RR`conns` (`req`/`resp` bytes) from AIX to a z10 on 1 GbE, DYNAMIC
/// then OLM, with the given adapter and machine (and their `models`
/// tables): (mean latency us, `metric`) per mode.
fn rr_dynamic_then_olm(
    conns: u32,
    (req, resp): (u32, u32),
    adapter: &str,
    machine: &str,
    models: &str,
    metric: impl Fn(&RunResult) -> f64,
) -> [(f64, f64); 2] {
    let text = format!(
        r#"
duration_ms = 40
warmup_ms = 20
[[host]]
name = "zos"
type = "zos"
machine = "{machine}"
adapter = "{adapter}"
speed = "1g"
ip = "192.0.2.2"
[[host]]
name = "aix"
type = "aix"
speed = "1g"
ip = "192.0.2.10"
[[workload]]
type = "RR"
connections = {conns}
request = {req}
response = {resp}
client = "aix"
server = "zos"
[vary]
field = "inbperf"
values = ["DYNAMIC", "OLM"]
{models}
"#
    );
    let runs = run_text(&text);
    let w = |r: &RunResult| (r.workloads[0].latency_mean_us, metric(r));
    [w(&runs[0].1), w(&runs[1].1)]
}

fn rr_signal_cost(conns: u32, signal_ns: u64) -> [(f64, f64); 2] {
    // The 10 GbE card's costs with a chosen signal cost.
    let models = model_with(
        "adapter",
        "osa-express3",
        "osa-e3-test",
        "signal_ns",
        signal_ns,
    );
    rr_dynamic_then_olm(conns, (128, 1024), "osa-e3-test", "z10", &models, |r| {
        r.workloads[0].transactions_per_s
    })
}

#[test]
fn fielding_write_signals_costs_adapter_capacity_not_idle_latency() {
    // One session: the microprocessor is idle when the signal arrives, so
    // its time fits inside the signal latency and the response time is the
    // same with or without it.
    let [(free, _), _] = rr_signal_cost(1, 0);
    let [(costly, _), _] = rr_signal_cost(1, 12_000);
    assert!(
        (costly - free).abs() <= free * 0.02,
        "RR1 latency: {costly:.1} us with a signal cost vs {free:.1} us without"
    );
    // Twenty sessions: every response is a signalled write, and fielding
    // the signals makes the adapter the bottleneck. OLM's self-polled write
    // queue 1 needs no signals, so only the non-OLM run loses throughput.
    let [(_, dyn_free), (_, olm_free)] = rr_signal_cost(20, 0);
    let [(_, dyn_costly), (_, olm_costly)] = rr_signal_cost(20, 12_000);
    assert!(
        dyn_costly < dyn_free * 0.8,
        "DYNAMIC RR20: {dyn_costly:.0}/s with a signal cost vs {dyn_free:.0}/s without"
    );
    assert!(
        (olm_costly - olm_free).abs() <= olm_free * 0.05,
        "OLM RR20: {olm_costly:.0}/s with a signal cost vs {olm_free:.0}/s without"
    );
    assert!(olm_costly > dyn_costly * 1.4);
}

#[test]
fn rr1_response_time_is_what_the_client_program_sees() {
    // One session: each transaction starts when the previous one's receive
    // returns, so the response time a benchmark program reports is the
    // inverse of its transaction rate, client wake-up included.
    let text = r#"
duration_ms = 60
warmup_ms = 20
[[host]]
name = "zos"
type = "zos"
machine = "z10"
adapter = "osa-express3"
speed = "1g"
ip = "192.0.2.2"
inbperf = "DYNAMIC"
[[host]]
name = "aix"
type = "aix"
speed = "1g"
ip = "192.0.2.10"
[[workload]]
type = "RR"
connections = 1
request = 100
response = 800
client = "aix"
server = "zos"
"#;
    let r = run_text(text);
    let w = &r[0].1.workloads[0];
    let cycle_us = 1e6 / w.transactions_per_s;
    assert!(
        (w.latency_mean_us - cycle_us).abs() <= cycle_us * 0.03,
        "mean response time {:.1} us vs {:.1} us per transaction",
        w.latency_mean_us,
        cycle_us
    );
}

/// RR1 (1/1) between AIX and a z/OS whose interrupt fielding costs
/// `interrupt_ns`, DYNAMIC versus OLM: (mean latency µs, server CPU µs per
/// transaction) of each.
fn rr1_interrupt_cost(interrupt_ns: u64) -> [(f64, f64); 2] {
    let models = model_with("machine", "z10", "z10-test", "interrupt_ns", interrupt_ns);
    rr_dynamic_then_olm(1, (1, 1), "osa-express3", "z10-test", &models, |r| {
        r.workloads[0].cpu_us_per_txn_server
    })
}

#[test]
fn an_olm_early_interrupt_is_fielded_while_the_adapter_stores_the_frame() {
    // Fielding an interrupt (1.5 us) takes less than the adapter's own work
    // on a small frame (2 us). Without OLM the interrupt comes after that
    // work and its cost adds to the response time; OLM's early interrupt is
    // raised when the frame reaches the adapter, so the host fields it
    // meanwhile and the response time does not grow. The CPU is paid either
    // way.
    let [(dyn_cheap, dyn_cpu_cheap), (olm_cheap, olm_cpu_cheap)] = rr1_interrupt_cost(1);
    let [(dyn_costly, dyn_cpu_costly), (olm_costly, olm_cpu_costly)] = rr1_interrupt_cost(1500);
    assert!(
        dyn_costly - dyn_cheap > 1.2,
        "DYNAMIC: {dyn_costly:.2} us vs {dyn_cheap:.2} us"
    );
    assert!(
        (olm_costly - olm_cheap).abs() < 0.3,
        "OLM: {olm_costly:.2} us vs {olm_cheap:.2} us"
    );
    assert!(dyn_cpu_costly - dyn_cpu_cheap > 1.2);
    assert!(olm_cpu_costly - olm_cpu_cheap > 1.2);
}

/// z/OS-A streams into z/OS-B, whose interface runs IWQ with OLM, while an
/// AIX client keeps thirty RR connections busy on z/OS-B's adapter (the
/// published mixed workload). z/OS-A has no IWQ: its ACK units race, and
/// its stream reaches z/OS-B partly out of order.
const STREAM_INTO_IWQ: &str = r#"
duration_ms = 150
warmup_ms = 50
[[host]]
name = "zosa"
type = "zos"
ip = "192.0.2.1"
speed = "10g"
machine = "z10"
adapter = "osa-express3"
inbperf = "DYNAMIC"
[[host]]
name = "zosb"
type = "zos"
ip = "192.0.2.2"
speed = "10g"
machine = "z10"
adapter = "osa-express3"
inbperf = "DYNAMIC WORKLOADQ OLM"
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.10"
speed = "10g"
[[workload]]
type = "RR"
connections = 30
request = 100
response = 800
client = "aix"
server = "zosb"
[[workload]]
type = "STR"
connections = 1
request = 1
response = 20000000
client = "zosb"
server = "zosa"
sndbuf_kb = 256
rcvbuf_kb = 256
"#;

#[test]
fn iwq_acks_out_of_order_segments_one_by_one_only_while_a_hole_stays_open() {
    let r = run_text(STREAM_INTO_IWQ);
    let r = &r[0].1;
    let ooo = host(r, "zosb").tcp.ooo_segments_in;
    let dups = host(r, "zosa").tcp.dupacks_in;
    assert!(ooo > 20, "z/OS-A's race reorders its stream: {ooo}");
    // Each out-of-order segment of a batch that ends with the hole still
    // open is ACKed on its own (the sender sees duplicate ACKs and
    // retransmits at once) ...
    assert!(
        dups > 0,
        "no duplicate ACKs for {ooo} out-of-order segments"
    );
    // ... but a batch whose later segments fill the hole lost nothing and
    // gets one ACK, so z/OS-B sends fewer duplicates than it received
    // out-of-order segments (ACKing each one as it came did not).
    assert!(
        dups < ooo,
        "{dups} duplicate ACKs for {ooo} out-of-order segments"
    );
}

#[test]
fn a_bulk_batch_presented_while_its_unit_runs_joins_that_units_pass() {
    // z/OS-B's BULKDATA unit, before it ends, takes the batches presented
    // while it ran and sends one ACK for the whole pass. Without that, a
    // burst's tail presented a moment after the rest got an ACK of its own,
    // and z/OS-A, whose ACK units race, answered the pair of close ACKs
    // with two interleaved bursts.
    let r = run_text(STREAM_INTO_IWQ);
    let z = host(&r[0].1, "zosb");
    let eng = &z.adapter.as_ref().unwrap().engine;
    let bulk = &eng["read_queues"]["RD/2 BULKDATA"];
    let presented = bulk["sbalcnt"].as_u64().unwrap();
    assert!(presented > 300, "{bulk}");
    assert!(
        z.tcp.acks_out * 10 < presented * 9,
        "{} ACKs for {presented} bulk presentations",
        z.tcp.acks_out
    );
}

#[test]
fn counters_cover_the_measured_window_not_the_warm_up() {
    // The same run with a warm-up of 0 and of 200 ms: the window is 100 ms
    // both times, so the counts beside the window's rates must agree.
    let text = std::fs::read_to_string(repo().join("scenarios/quick-rr.toml")).unwrap();
    let with = |warmup: u32| {
        let t: String = text
            .lines()
            .map(|l| {
                if l.starts_with("warmup_ms") {
                    format!("warmup_ms = {warmup}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        assert!(
            t.contains(&format!("warmup_ms = {warmup}")),
            "quick-rr sets warmup_ms"
        );
        run_text(&t).remove(0).1
    };
    let (short, long) = (with(0), with(200));
    let z = |r: &RunResult| host(r, "zosb").clone();
    let (a, b) = (z(&short), z(&long));
    let close = |x: u64, y: u64| (x as f64 - y as f64).abs() <= 0.15 * x.max(y) as f64;
    assert!(
        close(a.tcp.segments_out, b.tcp.segments_out),
        "{} vs {}",
        a.tcp.segments_out,
        b.tcp.segments_out
    );
    assert!(
        close(a.link_in.frames, b.link_in.frames),
        "{} vs {}",
        a.link_in.frames,
        b.link_in.frames
    );
    let frames_in = |h: &softosa_sim::report::HostResult| {
        h.adapter.as_ref().unwrap().engine["counters"]["frames_in"]
            .as_u64()
            .unwrap()
    };
    assert!(
        close(frames_in(&a), frames_in(&b)),
        "{} vs {}",
        frames_in(&a),
        frames_in(&b)
    );
    // The high-water mark is not a count: it stays the run's.
    let depth = |h: &softosa_sim::report::HostResult| {
        h.adapter.as_ref().unwrap().engine["write_queues"][0]["max_depth"]
            .as_u64()
            .unwrap()
    };
    assert!(depth(&b) > 0);
}

/// A stream that loses a segment early in its life is timed out at the
/// retransmission timeout its round trips set (the 200 ms floor), not at
/// the 1 s initial value: the timer moving earlier must move its event
/// too. Without the IWQ ACK rule a z/OS receiver ACKs once per batch, so
/// most losses here end in a timeout. Before, the stream stopped at its
/// first such loss for the rest of its first second.
#[test]
fn an_early_loss_is_timed_out_at_the_rto_its_round_trips_set() {
    let text = r#"
duration_ms = 600
warmup_ms = 0
seed = 7
[[host]]
name = "zosa"
type = "zos"
ip = "192.0.2.1"
adapter = "osa-express3"
speed = "1g"
inbperf = "DYNAMIC"
[[host]]
name = "zosb"
type = "zos"
ip = "192.0.2.2"
adapter = "osa-express3"
speed = "1g"
inbperf = "DYNAMIC"
loss = 0.001
[[workload]]
name = "bulk"
type = "STR"
connections = 1
request = 1
response = 20000000
client = "zosb"
server = "zosa"
sndbuf_kb = 256
rcvbuf_kb = 256
"#;
    let runs = run_text(text);
    let r = &runs[0].1;
    let sender = host(r, "zosa");
    // Timeouts well inside the first second (there were none), and the
    // stream going on after each (it had stopped after 669 segments).
    assert!(sender.tcp.timeouts >= 2, "{:?}", sender.tcp);
    assert!(sender.tcp.segments_out > 900, "{:?}", sender.tcp);
}

/// scenarios/signal-cost.toml, shortened: a [vary] over one model
/// parameter (the 1 GbE card's signal cost) changes that field alone, and
/// RR20's signalled responses then take the card's time: the dearer the
/// signal, the fewer transactions, while the host's CPU per transaction
/// (no field of that set) stays put.
#[test]
fn a_vary_over_the_card_s_signal_cost_moves_only_the_card() {
    let text = example_for("signal-cost.toml", 300, 60);
    let runs = run_text(&text);
    assert_eq!(runs.len(), 3);
    let rr: Vec<_> = runs.iter().map(|(_, r)| r.workloads[0].clone()).collect();
    assert!(
        rr[0].transactions_per_s > 1.2 * rr[1].transactions_per_s
            && rr[1].transactions_per_s > 1.2 * rr[2].transactions_per_s,
        "{:?}",
        rr.iter().map(|w| w.transactions_per_s).collect::<Vec<_>>()
    );
    let cpu: Vec<f64> = rr.iter().map(|w| w.cpu_us_per_txn_server).collect();
    assert!(
        cpu.iter().all(|c| (c - cpu[0]).abs() < 0.05 * cpu[0]),
        "the host's costs are not the varied set's: {cpu:?}"
    );
    // With the built-in 12 us the card, not the link, is what is full.
    let card = |i: usize| {
        host(&runs[i].1, "zos")
            .adapter
            .as_ref()
            .unwrap()
            .microprocessor_busy_pct
    };
    assert!(
        card(2) > 95.0 && card(0) < card(2),
        "{} {}",
        card(0),
        card(2)
    );
    // The card's time by kind of work adds up to its busy time, and shows
    // where the signals' cost went: none at 0 µs, the largest share at 12.
    let by = |i: usize| {
        host(&runs[i].1, "zos")
            .adapter
            .as_ref()
            .unwrap()
            .microprocessor_busy_by
            .clone()
    };
    for i in 0..3 {
        let b = by(i);
        let sum = b.inbound_frames_pct
            + b.outbound_frames_pct
            + b.write_signals_pct
            + b.presentations_pct
            + b.olm_pct;
        assert!((sum - card(i)).abs() < 1e-6, "{sum} {}", card(i));
    }
    assert_eq!(by(0).write_signals_pct, 0.0);
    let b = by(2);
    assert!(
        b.write_signals_pct > b.inbound_frames_pct.max(b.outbound_frames_pct),
        "{b:?}"
    );
}

/// scenarios/switch-buffer.toml, shortened: a deep switch buffer keeps the
/// stream's excess window standing in front of every request; a shallow
/// one drops (counted) and the stream backs off.
#[test]
fn a_deep_switch_buffer_holds_a_standing_queue_ahead_of_requests() {
    let text = example_for("switch-buffer.toml", 2000, 300);
    let runs = run_text(&text);
    assert_eq!(runs.len(), 3);
    let wl = |r: &RunResult, n: &str| r.workloads.iter().find(|w| w.name == n).unwrap().clone();
    let (shallow, deep) = (&runs[0].1, &runs[2].1);
    let drops = |r: &RunResult| host(r, "zosb").link_in.dropped_queue_full;
    assert!(drops(shallow) > 0, "a 32 KB buffer overflows");
    assert_eq!(drops(deep), 0, "1 MB holds the whole window");
    let (rs, rd) = (wl(shallow, "RR30"), wl(deep, "RR30"));
    assert!(
        rd.latency_mean_us > 1.3 * rs.latency_mean_us,
        "requests wait behind the standing queue: {} us against {} us",
        rd.latency_mean_us,
        rs.latency_mean_us
    );
    let (ss, sd) = (wl(shallow, "STR1"), wl(deep, "STR1"));
    assert!(
        sd.mb_per_s > ss.mb_per_s,
        "the stream keeps its window only in the deep buffer: {} against {} MB/s",
        sd.mb_per_s,
        ss.mb_per_s
    );
}

/// Busy time counts the part of a job inside the measured window: a card
/// whose every frame takes longer than the window reads 100 %, not 0 %
/// (the job started before the window) or over 100 % (one ran past its end).
#[test]
fn busy_time_is_clipped_to_the_measured_window() {
    let text = |frame_ns: u64| {
        format!(
            r#"
duration_ms = 10
warmup_ms = 2
[[host]]
name = "zos"
type = "zos"
ip = "192.0.2.1"
speed = "1g"
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.2"
speed = "1g"
[[workload]]
type = "RR"
connections = 4
request = 100
response = 800
client = "aix"
server = "zos"
[models.adapter.osa-express3-1g]
frame_ns = {frame_ns}
"#
        )
    };
    // 30 ms a frame: the first frame's job spans the whole window;
    // 3 ms: jobs run back to back and one runs past the window's end.
    for frame_ns in [30_000_000, 3_000_000] {
        let r = only(&text(frame_ns));
        let busy = host(&r, "zos")
            .adapter
            .as_ref()
            .unwrap()
            .microprocessor_busy_pct;
        assert!((busy - 100.0).abs() < 1e-9, "frame_ns {frame_ns}: {busy}");
    }
    // A processor busy with one long step the same way.
    let r = only(&text(2000).replace(
        "[models.adapter.osa-express3-1g]\nframe_ns = 2000\n",
        "[models.peer.aix]\ninterrupt_ns = 50000000\n",
    ));
    let aix = host(&r, "aix");
    assert!(
        aix.cpu_busy_pct > 0.0 && aix.cpu_busy_pct <= 100.0 / aix.processors as f64 + 1e-9,
        "{} of {} processors",
        aix.cpu_busy_pct,
        aix.processors
    );
}

/// The distributor's work of forwarding a distributed workload is that
/// workload's CPU, not shared among the distributor's own workloads: a
/// local RR beside it costs what it costs without it.
#[test]
fn a_distributors_forwarding_is_the_distributed_workloads_cpu() {
    let file =
        std::fs::read_to_string(repo().join("scenarios/sysplex-distributor-mix.toml")).unwrap();
    // The DYNAMIC run alone: the hosts already say DYNAMIC.
    let text = &file[..file.find("[vary]").unwrap()];
    let with = only(text);
    // The same without the distributed workload.
    let start = text
        .find("[[workload]]\nname = \"distributed-RR10\"")
        .unwrap();
    let end = text.find("[[workload]]\nname = \"stream-in\"").unwrap();
    let alone = format!("{}{}", &text[..start], &text[end..]);
    let without = only(&alone);
    let cpu = |r: &RunResult, name: &str| {
        r.workloads
            .iter()
            .find(|w| w.name == name)
            .unwrap()
            .cpu_us_per_txn_server
    };
    let (local, local_alone) = (cpu(&with, "local-RR10"), cpu(&without, "local-RR10"));
    assert!(
        (local - local_alone).abs() < 0.15 * local_alone,
        "local RR {local} us per transaction beside the distributed one, {local_alone} alone"
    );
    // The distributed workload's server side is its target's work plus
    // the distributor's: more than the local RR's on one host.
    let dist = cpu(&with, "distributed-RR10");
    assert!(dist > 1.1 * local, "distributed {dist}, local {local}");
}

/// A VMAC the profile codes is the interface's MAC on the simulated LAN
/// (frames reach it, and the displays show it); each port's own MAC is a
/// burned-in, universally administered one, one per host.
#[test]
fn the_profiles_vmac_is_the_hosts_mac_on_the_lan() {
    let text = r#"
duration_ms = 20
warmup_ms = 5
[[host]]
name = "zos"
type = "zos"
ip = "192.0.2.1"
profile_text = """
INTERFACE OSAIF1 DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME OSAP1
  VMAC 020000ABCDEF ROUTELCL INBPERF DYNAMIC WORKLOADQ
START OSAIF1
"""
[[host]]
name = "zos2"
type = "zos"
ip = "192.0.2.2"
inbperf = "DYNAMIC WORKLOADQ"
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.10"
[[workload]]
type = "RR"
connections = 2
request = 100
response = 800
client = "aix"
server = "zos"
[[workload]]
name = "zos2"
type = "RR"
connections = 2
request = 100
response = 800
client = "zos2"
server = "zos"
"#;
    let sc = Scenario::parse("t.toml", text).unwrap();
    let v = sc.variants().unwrap();
    let (r, world) = softosa_sim::run_setup(&v[0].setup, |_, _| {}).unwrap();
    assert!(
        r.workloads.iter().all(|w| w.transactions > 0),
        "frames reach the VMAC"
    );
    let engines = world.engines();
    let mac = |e: &softosa_engine::Engine| {
        let i = e.interface(softosa_engine::IfaceId(0)).unwrap();
        (i.mac.0, e.ports()[0].cfg.physical_mac.0)
    };
    let (vmac, phys) = mac(engines[0].1);
    assert_eq!(vmac, [0x02, 0x00, 0x00, 0xab, 0xcd, 0xef]);
    let (generated, phys2) = mac(engines[1].1);
    assert_ne!(generated, vmac);
    assert_eq!(generated[0] & 0x02, 0x02, "a generated VMAC is local");
    for p in [phys, phys2] {
        assert_eq!(
            p[0] & 0x03,
            0,
            "a burned-in MAC is universal and unicast: {p:02x?}"
        );
    }
    assert_ne!(phys, phys2);
}

/// The host's SIGA count and the adapter's write queue counters (the VTAM
/// tuning statistics' SIGACNT) count the same signals: a write longer
/// than one SBAL is signalled per SBAL in both.
#[test]
fn the_hosts_sigas_and_the_write_queues_agree() {
    let file = std::fs::read_to_string(repo().join("scenarios/tso-10g.toml")).unwrap();
    for (label, r) in run_text(&file) {
        for h in r.hosts.iter().filter(|h| h.adapter.is_some()) {
            let a = h.adapter.as_ref().unwrap();
            let queues: u64 = a.engine["write_queues"]
                .as_array()
                .unwrap()
                .iter()
                .map(|q| q["sigas"].as_u64().unwrap_or(0))
                .sum();
            assert_eq!(h.tcp.sigas, queues, "{label}: host {}", h.name);
        }
    }
}

/// A frame lost to a link error toward a z/OS host is counted by its
/// adapter too (the drops display's "injected frame error"), once per
/// frame the link lost.
#[test]
fn a_frame_error_toward_zos_is_in_the_adapters_drops() {
    let file = std::fs::read_to_string(repo().join("scenarios/lossy-zos-to-zos.toml")).unwrap();
    let mut lost = 0;
    for (label, r) in run_text(&file) {
        for h in r.hosts.iter().filter(|h| h.adapter.is_some()) {
            let counted = h.adapter.as_ref().unwrap().engine["counters"]["dropped_in"]
                ["injected_error"]
                .as_u64()
                .unwrap();
            assert_eq!(
                counted, h.link_in.dropped_frame_error,
                "{label}: {}",
                h.name
            );
            lost += counted;
        }
    }
    assert!(lost > 0, "the scenario's links lose frames");
}

/// An interface that codes VLANID is on a tagged LAN: the peer's frames
/// reach its port with the tag, and its replies leave with it, so traffic
/// flows (it used to be dropped whole, with nothing but the drops display
/// to say why), with a VMAC or without.
#[test]
fn an_interface_with_a_vlan_id_carries_traffic() {
    for vmac in ["", " VMAC"] {
        let (r, world) = zos_with_aix((20, 5), 2, 800, &format!(" VLANID 10{vmac}")).unwrap();
        assert!(
            r.workloads[0].transactions > 10,
            "{vmac}: {:?}",
            r.workloads[0]
        );
        let engines = world.engines();
        let c = engines[0].1.counters();
        assert_eq!(c.dropped_in.total(), 0, "{vmac}: {c:?}");
        assert!(c.presented > 10 && c.transmitted > 10, "{vmac}: {c:?}");
        assert_eq!(engines[0].1.interfaces()[0].cfg.vlan, Some(10));
    }
}

/// A VMAC coded in a profile that is the MAC the simulator gives a peer's
/// NIC is the z/OS host's to change: the error names it first (it blamed
/// the peer, which has no MAC setting at all).
#[test]
fn a_vmac_equal_to_a_peers_nic_mac_names_the_zos_host() {
    let e = match zos_with_aix((5, 1), 1, 100, " VMAC 025A00000001") {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a MAC on two hosts is refused"),
    };
    assert!(
        e.starts_with("host zos: its MAC 025A00000001 (its interface's"),
        "{e}"
    );
    assert!(
        e.contains("is host \"aix\"'s MAC too (the one softosa gives a peer's NIC)"),
        "{e}"
    );
    assert!(e.contains("code another VMAC"), "{e}");
}

/// Two z/OS hosts whose interfaces are on different VLANs cannot talk
/// without a router, which the simulated LAN does not have: refused (they
/// exchanged traffic as if on one VLAN).
#[test]
fn a_workload_across_two_vlans_is_refused() {
    let text = |vb: &str| {
        format!(
            r#"
duration_ms = 5
warmup_ms = 1
[[host]]
name = "zosa"
type = "zos"
ip = "192.0.2.2"
profile_text = "INTERFACE Q1 DEFINE IPAQENET IPADDR 192.0.2.2/24 PORTNAME P1 VLANID 10\nSTART Q1\n"
[[host]]
name = "zosb"
type = "zos"
ip = "192.0.2.3"
profile_text = "INTERFACE Q1 DEFINE IPAQENET IPADDR 192.0.2.3/24 PORTNAME P1{vb}\nSTART Q1\n"
[[workload]]
type = "RR"
connections = 1
request = 100
response = 100
client = "zosa"
server = "zosb"
"#
        )
    };
    for (vb, ok) in [(" VLANID 10", true), (" VLANID 20", false), ("", false)] {
        let sc = Scenario::parse("t.toml", &text(vb)).unwrap();
        let v = sc.variants().unwrap().remove(0);
        match softosa_sim::run_setup(&v.setup, |_, _| {}) {
            Ok((r, _)) => {
                assert!(ok, "{vb}: must be refused");
                assert!(r.workloads[0].transactions > 0, "{vb}");
            }
            Err(e) => {
                assert!(!ok, "{vb}: {e}");
                assert!(e.to_string().contains("on different VLANs"), "{e}");
            }
        }
    }
}

/// The one run of a z/OS host (192.0.2.2, its INTERFACE Q1 coded with
/// `tail` after PORTNAME) serving an AIX client RR`connections`(100/`response`).
fn zos_with_aix(
    (duration_ms, warmup_ms): (u32, u32),
    connections: u32,
    response: u32,
    tail: &str,
) -> Result<(RunResult, World), WorldError> {
    let text = format!(
        r#"
duration_ms = {duration_ms}
warmup_ms = {warmup_ms}
[[host]]
name = "zos"
type = "zos"
ip = "192.0.2.2"
profile_text = "INTERFACE Q1 DEFINE IPAQENET IPADDR 192.0.2.2/24 PORTNAME P1{tail}\nSTART Q1\n"
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.10"
[[workload]]
type = "RR"
connections = {connections}
request = 100
response = {response}
client = "aix"
server = "zos"
"#
    );
    let sc = Scenario::parse("t.toml", &text).unwrap();
    let v = sc.variants().unwrap().remove(0);
    softosa_sim::run_setup(&v.setup, |_, _| {})
}
