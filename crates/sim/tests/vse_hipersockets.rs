//! Whole-world tests of the VSE host model and the HiperSockets path (spec
//! 7.2, 1.6): the TCP/IP partition's idle wait sets a lone connection's
//! response time and vanishes under load, the turbo dispatcher's
//! non-parallel lock spins only with more than one CPU, the HiperSockets
//! move is sender CPU, and a receiver without free buffers drops frames.

use softosa_sim::report::RunResult;
use softosa_sim::scenario::Scenario;

mod common;
use common::{host, run_text as run};

fn echo(extra_vse: &str, models: &str, vary: &str) -> String {
    format!(
        r#"
duration_ms = 100
warmup_ms = 20
[hipersockets]
mfs_kb = 16
[[host]]
name = "vse"
type = "vse"
link = "hipersockets"
ip = "192.0.2.20"
{extra_vse}
[[host]]
name = "linux"
type = "linux"
machine = "z800"
link = "hipersockets"
ip = "192.0.2.30"
[[workload]]
name = "ECHO"
type = "RR"
connections = 1
request = 100
response = 100
client = "linux"
server = "vse"
{models}
{vary}
"#
    )
}

const SWEEP: &str = "[vary]\nfield = \"connections\"\nvalues = [1, 30]\n";

#[test]
fn a_lone_connection_waits_for_the_stack_cycle_and_load_removes_the_wait() {
    let out = run(&echo("", "", SWEEP));
    let one = &out[0].1.workloads[0];
    let many = &out[1].1.workloads[0];
    let wait_us = 2000.0; // stack_wait_ns of [vse.z800]
    assert!(
        one.latency_mean_us > wait_us,
        "one connection waits about one idle wait: {}",
        one.latency_mean_us
    );
    assert!(
        one.latency_mean_us < 1.5 * wait_us,
        "{}",
        one.latency_mean_us
    );
    let v = host(&out[0].1, "vse").tcp.vse.clone().unwrap();
    assert!(v.timer_cycles > 0 && v.requests > 0);
    // Thirty connections keep the stack busy: throughput grows far beyond
    // 30 x (1 / wait) would allow if every request still waited...
    assert!(many.transactions_per_s > 5.0 * one.transactions_per_s);
    // ...and the one CPU is saturated.
    assert!(host(&out[1].1, "vse").cpu_busy_pct > 95.0);
}

#[test]
fn a_shorter_stack_wait_shortens_the_lone_response_time() {
    let models = r#"
[models.vse.fast]
processors = 1
interrupt_ns = 20000
rx_pkt_ns = 35000
rx_ooo_ns = 30000
rx_ack_ns = 18000
tx_pkt_ns = 35000
tx_ack_ns = 18000
tso_seg_ns = 35000
tso_pkt_ns = 5000
sock_call_ns = 30000
conn_ns = 200000
sock_block = 65536
poll_ns = 12000
wakeup_ns = 20000
ack_every = 2
delack_ns = 200000000
byte_ps = 1000
app_call_ns = 25000
stack_wait_ns = 500000
stack_np_share = 0.8
app_np_share = 0.3
"#;
    let slow = run(&echo("", "", ""));
    let fast = run(&echo("machine = \"fast\"", models, ""));
    let (s, f) = (&slow[0].1.workloads[0], &fast[0].1.workloads[0]);
    assert!(
        s.latency_mean_us - f.latency_mean_us > 1000.0,
        "1.5 ms less waiting: {} vs {}",
        s.latency_mean_us,
        f.latency_mean_us
    );
    // Each ended wait starts a stack cycle: a shorter wait runs more of
    // them in the same measured window.
    let cyc = |r: &RunResult| host(r, "vse").tcp.vse.clone().unwrap().timer_cycles as f64;
    assert!(cyc(&fast[0].1) > 2.0 * cyc(&slow[0].1));
}

#[test]
fn the_non_parallel_lock_spins_only_with_more_cpus() {
    let vary = "[vary]\nfield = \"processors\"\nhosts = [\"vse\"]\nvalues = [1, 2]\n";
    let text = echo("", "", vary).replace("connections = 1", "connections = 30");
    let out = run(&text);
    let one = host(&out[0].1, "vse").tcp.vse.clone().unwrap();
    let two = host(&out[1].1, "vse").tcp.vse.clone().unwrap();
    assert_eq!(one.spin_ns, 0, "one CPU never waits for itself");
    assert!(two.spin_ns > 0, "a second CPU spins for non-parallel work");
    assert!(one.np_ns > 0);
    // The stack is one partition, largely non-parallel: a second CPU adds
    // little throughput and more CPU per transaction.
    let t1 = out[0].1.workloads[0].transactions_per_s;
    let t2 = out[1].1.workloads[0].transactions_per_s;
    assert!(t2 < 1.5 * t1, "{t1} -> {t2}");
    let cpu = |r: &RunResult| host(r, "vse").cpu_ms_per_s / r.workloads[0].transactions_per_s;
    assert!(cpu(&out[1].1) > cpu(&out[0].1));
}

#[test]
fn the_hipersockets_move_is_sender_cpu_and_grows_with_the_frame() {
    // The same echo with 100-byte and 8000-byte messages: the frames are
    // bigger, so the sender spends more CPU per frame moved.
    let vary = "[vary]\nfield = \"response\"\nvalues = [100, 8000]\n";
    let out = run(&echo("", "", vary));
    let per_frame = |r: &RunResult| {
        let h = host(r, "vse");
        h.cpu_ms_per_s / h.tcp.iqd_sent as f64
    };
    assert!(per_frame(&out[1].1) > per_frame(&out[0].1));
    let h = host(&out[0].1, "vse");
    assert!(h.tcp.iqd_sent > 0);
    assert!(h.adapter.is_none(), "no adapter on HiperSockets");
}

#[test]
fn a_receiver_without_free_buffers_drops_and_tcp_recovers() {
    let models = r#"
[models.hipersockets.tiny]
siga_ns = 10000
byte_ps = 500
latency_ns = 2000
in_buffers = 2
"#;
    let text = echo("", models, "")
        .replace("mfs_kb = 16", "mfs_kb = 16\nmachine = \"tiny\"")
        .replace("connections = 1", "connections = 20")
        .replace("duration_ms = 100", "duration_ms = 1500");
    let out = run(&text);
    let drops: u64 = out[0].1.hosts.iter().map(|h| h.tcp.iqd_no_buffer).sum();
    assert!(drops > 0, "20 connections overrun 2 buffers");
    let rexmit: u64 = out[0].1.hosts.iter().map(|h| h.tcp.retransmits).sum();
    assert!(rexmit > 0);
    assert!(out[0].1.workloads[0].transactions > 0);
}

#[test]
fn bad_hipersockets_settings_are_reported() {
    let bad = echo("", "", "").replace("mfs_kb = 16", "mfs_kb = 32");
    let e = Scenario::parse("t.toml", &bad)
        .unwrap()
        .variants()
        .unwrap_err()
        .to_string();
    assert!(e.contains("mfs_kb"), "{e}");
    let bad = echo("", "", "").replace(
        "link = \"hipersockets\"\nip = \"192.0.2.20\"",
        "ip = \"192.0.2.20\"",
    );
    let e = Scenario::parse("t.toml", &bad)
        .unwrap()
        .variants()
        .unwrap_err()
        .to_string();
    assert!(e.contains("HiperSockets"), "{e}");
}

#[test]
fn the_same_seed_gives_identical_vse_results() {
    let text = echo("", "", SWEEP);
    let a = serde_json::to_string(&run(&text).iter().map(|x| &x.1).collect::<Vec<_>>()).unwrap();
    let b = serde_json::to_string(&run(&text).iter().map(|x| &x.1).collect::<Vec<_>>()).unwrap();
    assert_eq!(a, b);
}
