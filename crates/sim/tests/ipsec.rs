//! IPsec (spec 4.1, 2.3): a workload's connections protected by ESP pay for
//! encryption on every packet, give up segmentation offload and SMC, and
//! with IWQ on an OSA-Express6S land on the IPSEC input queue, where they
//! no longer share a queue (and its timers) with clear interactive work.

mod common;
use common::{host, only, refusal, run_text};
use softosa_sim::report::RunResult;

/// z/OS on a 10 GbE OSA of `adapter` with `inbperf`, a clear RR30 from one
/// Linux host, and a stream into z/OS from another (`ipsec` on it or not);
/// `extra` goes into the z/OS host.
fn scenario(adapter: &str, inbperf: &str, ipsec: bool, extra: &str) -> String {
    format!(
        r#"
duration_ms = 200
warmup_ms = 100
[[host]]
name = "zos"
type = "zos"
machine = "z14"
ip = "192.0.2.1"
adapter = "{adapter}"
speed = "10g"
inbperf = "{inbperf}"
processors = 4
{extra}
[[host]]
name = "web"
type = "linux"
ip = "192.0.2.10"
speed = "10g"
[[host]]
name = "backup"
type = "linux"
ip = "192.0.2.11"
speed = "10g"
[[workload]]
name = "RR30"
type = "RR"
connections = 30
request = 100
response = 800
client = "web"
server = "zos"
[[workload]]
name = "STR1"
type = "STR"
connections = 1
request = 1
response = 20000000
client = "zos"
server = "backup"
sndbuf_kb = 256
rcvbuf_kb = 256
ipsec = {ipsec}
"#
    )
}

fn queue(r: &RunResult, q: &str) -> u64 {
    let eng = &host(r, "zos").adapter.as_ref().unwrap().engine;
    eng["read_queues"][q]["packcnt"].as_u64().unwrap_or(0)
}

#[test]
fn an_ipsec_stream_lands_on_the_ipsec_queue_of_an_osa_express6s() {
    let iwq = only(&scenario("osa-express6s", "DYNAMIC WORKLOADQ", true, ""));
    assert!(
        queue(&iwq, "RD/5 IPSEC") > 10_000,
        "{:?}",
        host(&iwq, "zos").adapter
    );
    // Inside ESP the stream's connection cannot be read: never BULKDATA.
    assert_eq!(queue(&iwq, "RD/2 BULKDATA"), 0);
    // Without the IPSEC queue (OSA-Express5S) it stays on PRIMARY.
    let five = only(&scenario("osa-express5s", "DYNAMIC WORKLOADQ", true, ""));
    assert!(queue(&five, "RD/1 PRIMARY") > 10_000);
    assert_eq!(queue(&five, "RD/2 BULKDATA"), 0);
}

#[test]
fn the_ipsec_queue_keeps_encrypted_and_clear_work_apart() {
    // One queue: the encrypted stream and RR30 share PRIMARY, whose tuner
    // then holds frames to save CPU. With IWQ the stream has its own
    // queue and RR30's stays low (spec 2.3, 4.1).
    let runs = run_text(&(scenario("osa-express6s", "DYNAMIC", true, "")
        + "[vary]\nfield = \"inbperf\"\nhosts = [\"zos\"]\nvalues = [\"DYNAMIC\", \"DYNAMIC WORKLOADQ\"]\n"));
    let rr = |r: &RunResult| r.workloads[0].transactions_per_s;
    let (one, iwq) = (&runs[0].1, &runs[1].1);
    assert!(
        rr(iwq) > 1.3 * rr(one),
        "RR30 {} against {}",
        rr(iwq),
        rr(one)
    );
}

#[test]
fn ipsec_costs_cpu_per_byte_and_takes_no_offload() {
    // z/OS streams to the backup host, with segmentation offload on: in the
    // clear its large sends are offloaded; under IPsec each packet is
    // encrypted on its own, so none is, and both ends pay for the crypto.
    let out = |ipsec: bool| {
        scenario(
            "osa-express6s",
            "DYNAMIC WORKLOADQ",
            ipsec,
            "segmentation_offload = true",
        )
        .replace(
            "client = \"zos\"\nserver = \"backup\"",
            "client = \"backup\"\nserver = \"zos\"",
        )
    };
    let (clear, esp) = (only(&out(false)), only(&out(true)));
    let offload = |r: &RunResult| {
        let eng = &host(r, "zos").adapter.as_ref().unwrap().engine;
        eng["interface"]["offload"]["sends"].as_u64().unwrap()
    };
    assert!(offload(&clear) > 100, "{}", offload(&clear));
    assert_eq!(offload(&esp), 0);
    let (e, c) = (&esp.workloads[1], &clear.workloads[1]);
    assert!(
        e.cpu_ms_per_mb_server > 1.5 * c.cpu_ms_per_mb_server,
        "z/OS, the sender: {} against {} ms/MB",
        e.cpu_ms_per_mb_server,
        c.cpu_ms_per_mb_server
    );
    assert!(
        e.cpu_ms_per_mb_client > 1.2 * c.cpu_ms_per_mb_client,
        "Linux, the receiver: {} against {} ms/MB",
        e.cpu_ms_per_mb_client,
        c.cpu_ms_per_mb_client
    );
}

#[test]
fn bad_ipsec_workloads_are_refused_with_the_reason() {
    let err = |text: String| refusal(&text);
    let base = scenario("osa-express6s", "DYNAMIC", true, "");
    let e = err(base.replace("ipsec = true", "ipsec = true\ntls = \"full\""));
    assert!(e.contains("ipsec: it takes tls or ipsec, not both"), "{e}");
    // A profile must code IPCONFIG IPSECURITY.
    let prof = base.replace(
        "inbperf = \"DYNAMIC\"",
        "profile_text = \"\"\"\nINTERFACE OSAIF1 DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME OSAP1 INBPERF DYNAMIC\nSTART OSAIF1\n\"\"\"",
    );
    let e = err(prof.clone());
    assert!(e.contains("profile has no IPCONFIG IPSECURITY"), "{e}");
    let ok = prof.replace("START OSAIF1", "IPCONFIG IPSECURITY\nSTART OSAIF1");
    assert!(softosa_sim::scenario::Scenario::parse("t.toml", &ok)
        .and_then(|s| s.variants())
        .is_ok());
}
