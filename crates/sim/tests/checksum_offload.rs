//! Segmentation offload requires checksum offload (spec 3.2): with
//! SEGMENTATIONOFFLOAD the adapter computes the TCP checksum of every
//! outbound data packet, so even a request/response workload whose answers
//! are never segmented saves the stack's checksum pass over each response.

const RR: &str = r#"
duration_ms = 100
warmup_ms = 30
[[host]]
name = "zos"
type = "zos"
machine = "z10"
adapter = "osa-express2"
ip = "192.0.2.2"
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.10"
[[workload]]
type = "RR"
connections = 10
request = 100
response = 800
client = "aix"
server = "zos"
[vary]
field = "segmentation_offload"
hosts = ["zos"]
values = [false, true]
"#;

mod common;

fn cpu_per_txn(text: &str) -> Vec<f64> {
    common::run_text(text)
        .iter()
        .map(|(_, r)| r.workloads[0].cpu_us_per_txn_server)
        .collect()
}

#[test]
fn offload_saves_the_checksum_of_small_responses() {
    let v = cpu_per_txn(RR);
    let saved = v[0] - v[1];
    // 800 bytes of payload + 20 of TCP header at 250 ps a byte (z10):
    // about 0.2 us per transaction, nothing else changes.
    assert!(saved > 0.1 && saved < 0.4, "{v:?}");
}

#[test]
fn without_a_checksum_cost_offload_changes_nothing_for_small_responses() {
    // The same machine with the checksum folded back into tx_pkt_ns.
    // Only the two fields given change; every other z10 cost is the
    // built-in one.
    let models = r#"
[models.machine.z10]
tx_pkt_ns = 2100
cksum_ps_per_byte = 0
"#;
    let v = cpu_per_txn(&format!("{RR}{models}"));
    assert!((v[0] - v[1]).abs() < 0.05, "{v:?}");
}
