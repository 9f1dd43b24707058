//! Named model parameter sets (simulator layer; spec 1.1 generations, 2.5 host
//! CPU, 6.2 peers, 7.2 VSE).
//!
//! Adapter generations, machine types and peer hosts are *data*: they live in
//! `calibration/models.toml` (embedded at build time) and a scenario may
//! override or add entries. Nothing here is specific to one scenario.

use serde::Deserialize;
use std::collections::BTreeMap;

/// The embedded default parameter file.
pub const DEFAULT_MODELS: &str = include_str!("../../../calibration/models.toml");

/// Adapter microprocessor parameters for one OSA generation.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AdapterGen {
    /// Microprocessor time per frame, either direction.
    pub frame_ns: u64,
    /// Microprocessor time per byte, in picoseconds (DMA and checksum work).
    pub byte_ps: u64,
    /// Extra per inbound frame when the data router sorts onto IWQ queues.
    pub sort_ns: u64,
    /// Per presentation (interrupt / status update).
    pub present_ns: u64,
    /// Fixed latency through the adapter, each direction.
    pub latency_ns: u64,
    /// Inbound frames the adapter can hold waiting for the microprocessor.
    pub in_buffer_frames: usize,
    /// Extra per frame on an OLM interface (early interrupts, outbound polling).
    pub olm_frame_ns: u64,
    /// From the host's write signal (SIGA) to the adapter fetching the
    /// outbound buffers; OLM interfaces skip it (SIGA reduction).
    pub siga_latency_ns: u64,
    /// SBALs of each QDIO output (write) queue. A write fills one; the
    /// adapter empties it once it has sent its frames. With none empty the
    /// stack keeps its data queued until one is (spec 1.2: 128 per queue).
    #[serde(default = "default_write_sbals")]
    pub write_queue_sbals: usize,
    /// Microprocessor time to field one write signal (SIGA) and scan the
    /// write queues for primed buffers: the last part of `siga_latency_ns`,
    /// so it adds latency only when the microprocessor is busy. Writes the
    /// adapter finds by polling (OLM's write queue 1) need no signal.
    #[serde(default)]
    pub signal_ns: u64,
}

fn default_write_sbals() -> usize {
    128
}

impl AdapterGen {
    /// Microprocessor time for one frame of `wire_len` bytes.
    pub fn frame_cost(&self, wire_len: u32) -> u64 {
        self.frame_ns + u64::from(wire_len) * self.byte_ps / 1000
    }
}

/// CPU costs and processor count of a host (z/OS machine type or peer).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostCosts {
    pub processors: usize,
    pub interrupt_ns: u64,
    pub rx_pkt_ns: u64,
    pub rx_ooo_ns: u64,
    pub rx_ack_ns: u64,
    pub tx_pkt_ns: u64,
    pub tx_ack_ns: u64,
    pub tso_seg_ns: u64,
    pub tso_pkt_ns: u64,
    pub sock_call_ns: u64,
    pub conn_ns: u64,
    pub sock_block: u32,
    pub poll_ns: u64,
    /// Scheduling latency from data arriving for an application to its
    /// socket call running (not CPU time).
    #[serde(default)]
    pub wakeup_ns: u64,
    /// Issuing one write signal (SIGA) to the adapter after a write.
    #[serde(default)]
    pub siga_ns: u64,
    /// TLS protocol work of one full handshake, excluding the RSA operation.
    #[serde(default)]
    pub tls_handshake_ns: u64,
    /// One abbreviated (session-cache) handshake.
    #[serde(default)]
    pub tls_resume_ns: u64,
    /// One RSA-2048 private-key operation in software.
    #[serde(default)]
    pub rsa_ns: u64,
    /// CPU to drive one RSA operation on a crypto coprocessor.
    #[serde(default)]
    pub rsa_copro_ns: u64,
    /// Symmetric encryption or decryption per byte (picoseconds).
    #[serde(default)]
    pub crypto_ps_per_byte: u64,
    /// Per TLS-protected message (record framing, MAC setup).
    #[serde(default)]
    pub tls_record_ns: u64,
    /// Peers only: NIC interrupt coalescing delay.
    #[serde(default)]
    pub nic_coalesce_ns: u64,
    /// Peers only: ACK after this many full-sized segments.
    #[serde(default)]
    pub ack_every: u32,
    /// Peers only: delayed-ACK timer.
    #[serde(default)]
    pub delack_ns: u64,
    /// Per payload byte received or sent in a data packet, picoseconds: the
    /// stack's own copy and checksum work (0 where `rx_pkt_ns`/`tx_pkt_ns`
    /// already cover it).
    #[serde(default)]
    pub byte_ps: u64,
    /// Software TCP checksum per byte of an outbound data packet
    /// (picoseconds). Part of `tx_pkt_ns` for a full-sized packet; a stack
    /// whose adapter computes outbound checksums (segmentation offload
    /// requires checksum offload) saves it on every data packet.
    #[serde(default)]
    pub cksum_ps_per_byte: u64,
    /// VSE only: how long the TCP/IP partition's internal dispatcher waits
    /// when a cycle found nothing to do before it looks at the queue of
    /// application socket requests again (device input posts it at once).
    #[serde(default)]
    pub stack_wait_ns: u64,
    /// VSE only: share of the TCP/IP partition's CPU time that is
    /// non-parallel (turbo dispatcher: one non-parallel unit system-wide).
    #[serde(default)]
    pub stack_np_share: f64,
    /// VSE only: non-parallel share of an application partition's socket
    /// call (the supervisor call and cross-partition hand-off).
    #[serde(default)]
    pub app_np_share: f64,
    /// VSE only: an application partition's side of one socket request
    /// (building the request and handing it to the TCP/IP partition).
    #[serde(default)]
    pub app_call_ns: u64,
}

/// A HiperSockets (IQD) LAN on one machine: the sending CPU moves each frame
/// memory to memory in its write instruction (SIGA), synchronously.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct IqdModel {
    /// Sender CPU per write instruction (one frame), fixed part.
    pub siga_ns: u64,
    /// Sender CPU per byte moved, picoseconds.
    pub byte_ps: u64,
    /// From the move completing to the receiver being signalled.
    pub latency_ns: u64,
    /// Frames a receiver's input queue holds before a send fails (the
    /// receiver had no empty buffer; counted, TCP retransmits).
    pub in_buffers: usize,
    /// A z/OS stack's CPU per payload byte of a HiperSockets frame, at the
    /// sender and at the receiver, picoseconds: the copy between the
    /// application's buffer and the stack's. Its per-packet costs, fitted at
    /// Ethernet frame sizes, do not cover frames of up to 56 KB. (0 for the
    /// VSE and peer stacks, whose costs were fitted on HiperSockets.)
    #[serde(default)]
    pub zos_byte_ps: u64,
}

/// A Shared Memory Communications path (spec 4.4): once two hosts that
/// both have it finish a TCP handshake over their OSAs, the connection's
/// data moves by memory writes — RDMA writes over RoCE between machines
/// (SMC-R), or moves through internal shared memory inside one machine
/// (SMC-D, ISM). The TCP connection stays the control channel; its window
/// becomes the peer's receive buffer (RMB) and its ACKs the cursor updates
/// the receiver writes back.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SmcModel {
    /// Rate of the path: the RoCE port, or ISM's memory move, bits/s.
    pub rate_bps: u64,
    /// One way, from a write leaving the sender to its completion being
    /// signalled at the receiver.
    pub latency_ns: u64,
    /// Largest single write (the data moves in writes of up to this).
    pub write_bytes: u32,
    /// Sender CPU per write (posting it; for ISM, the move instruction),
    /// fixed part.
    pub send_ns: u64,
    /// Sender CPU per byte written, picoseconds (ISM: the CPU moves the
    /// data; RoCE: the adapter does, so none).
    pub move_byte_ps: u64,
    /// Receiver CPU per write taken (a data write or a cursor update),
    /// after the completion interrupt.
    pub recv_ns: u64,
    /// CPU per byte at each end, picoseconds: the sender copies the
    /// application's data into its send buffer, the receiver out of its
    /// RMB into the application's buffer.
    pub copy_byte_ps: u64,
    /// Share of a socket call's CPU (`sock_call_ns`) an SMC connection
    /// still pays, percent: the socket layer stays, the TCP protocol work
    /// done inside the call goes to the SMC path.
    pub socket_share_pct: u32,
}

/// All named parameter sets.
#[derive(Clone, Debug, Deserialize, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Models {
    #[serde(default)]
    pub adapter: BTreeMap<String, AdapterGen>,
    #[serde(default)]
    pub machine: BTreeMap<String, HostCosts>,
    #[serde(default)]
    pub peer: BTreeMap<String, HostCosts>,
    /// VSE systems by machine type: the TCP/IP for VSE stack's costs on
    /// that CPU and the turbo dispatcher's parameters.
    #[serde(default)]
    pub vse: BTreeMap<String, HostCosts>,
    /// HiperSockets by machine type.
    #[serde(default)]
    pub hipersockets: BTreeMap<String, IqdModel>,
    /// SMC paths: `r` (SMC-R over RoCE) and `d` (SMC-D over ISM).
    #[serde(default)]
    pub smc: BTreeMap<String, SmcModel>,
}

impl Models {
    /// The embedded defaults.
    pub fn builtin() -> Result<Models, toml::de::Error> {
        toml::from_str(DEFAULT_MODELS)
    }
    /// Overlay `other` (scenario-supplied) on top of `self`.
    pub fn overlay(&mut self, other: &Models) {
        for (k, v) in &other.adapter {
            self.adapter.insert(k.clone(), v.clone());
        }
        for (k, v) in &other.machine {
            self.machine.insert(k.clone(), v.clone());
        }
        for (k, v) in &other.peer {
            self.peer.insert(k.clone(), v.clone());
        }
        for (k, v) in &other.vse {
            self.vse.insert(k.clone(), v.clone());
        }
        for (k, v) in &other.hipersockets {
            self.hipersockets.insert(k.clone(), v.clone());
        }
        for (k, v) in &other.smc {
            self.smc.insert(k.clone(), v.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn builtin_parses_and_names_generations() {
        let m = Models::builtin().unwrap();
        for g in [
            "osa-express2",
            "osa-express3",
            "osa-express5s",
            "osa-express6s",
        ] {
            assert!(m.adapter.contains_key(g), "{g}");
        }
        // Newer generations are never slower per frame.
        let c = |g: &str| m.adapter[g].frame_cost(1500);
        assert!(c("osa-express2") > c("osa-express3"));
        assert!(c("osa-express3") > c("osa-express5s"));
        assert!(c("osa-express5s") > c("osa-express6s"));
        assert!(m.machine["z10"].processors >= 1);
        assert!(m.peer["aix"].ack_every >= 1);
        // OSA-Express3's 1 GbE feature: same data path, dearer signals.
        let (ten, one) = (&m.adapter["osa-express3"], &m.adapter["osa-express3-1g"]);
        assert_eq!(ten.frame_cost(1500), one.frame_cost(1500));
        assert!(one.signal_ns > ten.signal_ns);
        assert!(
            one.signal_ns <= one.siga_latency_ns,
            "inside the signal latency"
        );
    }
    #[test]
    fn overlay_replaces_entries() {
        let mut m = Models::builtin().unwrap();
        let o: Models = toml::from_str(
            "[machine.z10]\nprocessors=8\ninterrupt_ns=1\nrx_pkt_ns=1\nrx_ooo_ns=1\nrx_ack_ns=1\ntx_pkt_ns=1\ntx_ack_ns=1\ntso_seg_ns=1\ntso_pkt_ns=1\nsock_call_ns=1\nconn_ns=1\nsock_block=1\npoll_ns=1\n",
        )
        .unwrap();
        m.overlay(&o);
        assert_eq!(m.machine["z10"].processors, 8);
    }
}
