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
    /// Per IPsec-protected packet sent or received (ESP header and trailer,
    /// security association lookup), besides `crypto_ps_per_byte` on its
    /// TCP header and payload.
    #[serde(default)]
    pub ipsec_pkt_ns: u64,
    /// Peers only: NIC interrupt coalescing delay.
    #[serde(default)]
    pub nic_coalesce_ns: u64,
    /// Peers only: ACK after this many full-sized segments.
    #[serde(default)]
    pub ack_every: u32,
    /// Peers only: delayed-ACK timer.
    #[serde(default)]
    pub delack_ns: u64,
    /// A z/VM guest on a VSWITCH (spec 7.1): CP's work to move one frame
    /// between the guest's virtual NIC and the uplink OSA, either mode.
    #[serde(default)]
    pub vswitch_frame_ns: u64,
    /// Likewise, IP mode only: CP's link-layer work for the guest (finding
    /// the guest by IP address, building and stripping link headers).
    #[serde(default)]
    pub vswitch_ip_ns: u64,
    /// Peers and VSE: seconds a connection this host closed first stays in
    /// TIME_WAIT (a z/OS host takes its profile's TCPCONFIG
    /// TIMEWAITINTERVAL instead).
    #[serde(default = "default_time_wait_s")]
    pub time_wait_s: u32,
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

/// TIME_WAIT where a model set gives none: twice a maximum segment
/// lifetime of 30 s, as Linux and z/OS keep it.
fn default_time_wait_s() -> u32 {
    60
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
    /// The sender's move takes the data straight from the application's
    /// buffer (SMC-D's zero-copy outbound): no copy into a send buffer.
    #[serde(default)]
    pub zero_copy_send: bool,
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

/// The tables of named sets a `[models]` layer may hold.
pub const TABLES: [&str; 6] = ["adapter", "machine", "peer", "vse", "hipersockets", "smc"];

/// What is wrong with a scenario's `[models]`: the table it is in
/// (`[models]`, `[models.machine]` or `[models.machine.z10]`), the field
/// or set to blame when one is, and what.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerError {
    pub place: String,
    pub key: Option<String>,
    pub what: String,
}

impl LayerError {
    /// An error of the `[models]` table as a whole, or of its `key`.
    fn models(key: Option<&str>, what: String) -> Self {
        LayerError {
            place: "[models]".into(),
            key: key.map(str::to_string),
            what,
        }
    }

    fn at(table: &str, name: &str, key: Option<String>, what: String) -> Self {
        LayerError {
            place: format!("[models.{table}.{name}]"),
            key,
            what,
        }
    }
}

/// Type-checks one set of `table` on its own, so an error names it and the
/// field to blame. `new`: no built-in set has its name (it gives every
/// field).
fn check_set(table: &str, name: &str, set: &toml::Table, new: bool) -> Result<(), LayerError> {
    fn one<T: serde::de::DeserializeOwned>(set: &toml::Table) -> Result<(), String> {
        toml::Value::Table(set.clone())
            .try_into::<T>()
            .map(drop)
            .map_err(|e| e.to_string())
    }
    let r = match table {
        "adapter" => one::<AdapterGen>(set),
        "machine" | "peer" | "vse" => one::<HostCosts>(set),
        "hipersockets" => one::<IqdModel>(set),
        _ => one::<SmcModel>(set),
    };
    let Err(msg) = r else { return Ok(()) };
    let msg = msg.trim_end();
    // serde names the field of a type error on a line of its own
    // ("...\nin `key`"), and an unknown one in the message itself.
    if let Some((what, key)) = msg.split_once("\nin `") {
        let key = key.trim_end_matches('`').to_string();
        return Err(LayerError::at(table, name, Some(key), what.to_string()));
    }
    if let Some(key) = msg
        .strip_prefix("unknown field `")
        .and_then(|r| r.split_once('`'))
        .map(|(k, _)| k.to_string())
    {
        // The three host tables share one layout: list only the fields a
        // set of this one takes.
        let msg = match msg.split_once("expected one of ") {
            Some((head, list)) => {
                let fields: Vec<&str> = list
                    .split(", ")
                    .filter(|f| unused_by(table, f.trim_matches('`')).is_none())
                    .collect();
                format!("{head}expected one of {}", fields.join(", "))
            }
            None => msg.to_string(),
        };
        return Err(LayerError::at(table, name, Some(key), msg));
    }
    let what = if new && msg.starts_with("missing field") {
        format!(
            "{msg}: a set of a new name gives every field (one named like a built-in set, \
             e.g. [models.{table}.{}], gives only the fields it changes)",
            builtin_example(table)
        )
    } else {
        msg.to_string()
    };
    Err(LayerError::at(table, name, None, what))
}

/// The [`HostCosts`] fields a set of `table` (`machine`, `peer` or `vse`)
/// never uses, each with the reason: the three tables share one layout,
/// but a z/OS host ACKs, signals and keeps TIME_WAIT its own way, a peer
/// has no OSA, and VSE runs on HiperSockets only. Giving one would change
/// nothing, so it is refused like an unknown field.
fn unused_by(table: &str, key: &str) -> Option<&'static str> {
    const VSE_ONLY: &str = "VSE only (a [models.vse] set)";
    const VSWITCH: &str = "a z/VM guest's on a VSWITCH (a [models.peer] set; host field vswitch)";
    match (table, key) {
        ("machine", "ack_every" | "delack_ns") => Some(
            "a peer's ACK habit; a z/OS stack ACKs once per connection per batch \
             (spec 6.2), and its profile's TCPCONFIG DELAYACKS says whether it delays",
        ),
        ("machine", "nic_coalesce_ns") => Some(
            "a peer's NIC; a z/OS host's inbound path is its OSA's (a [models.adapter] set) \
             or HiperSockets' (a [models.hipersockets] set)",
        ),
        ("machine", "time_wait_s") => {
            Some("a z/OS host keeps TIME_WAIT for its profile's TCPCONFIG TIMEWAITINTERVAL")
        }
        ("machine" | "vse", "vswitch_frame_ns" | "vswitch_ip_ns") => Some(VSWITCH),
        (
            "machine" | "peer",
            "stack_wait_ns" | "stack_np_share" | "app_np_share" | "app_call_ns",
        ) => Some(VSE_ONLY),
        ("peer", "siga_ns") => Some(
            "z/OS only: a peer has no OSA to signal (a HiperSockets write's cost is \
             [models.hipersockets]' siga_ns)",
        ),
        ("vse", "siga_ns") => Some(
            "z/OS only: VSE runs on HiperSockets, whose write costs [models.hipersockets]' siga_ns",
        ),
        ("vse", "nic_coalesce_ns") => Some(
            "a peer's NIC on Ethernet; VSE runs on HiperSockets, signalled after \
             [models.hipersockets]' latency_ns",
        ),
        _ => None,
    }
}

/// A built-in set's name in `table`, for messages.
fn builtin_example(table: &str) -> &'static str {
    match table {
        "adapter" => "osa-express3",
        "machine" => "z10",
        "peer" => "aix",
        "vse" => "z800",
        "hipersockets" => "z800",
        _ => "r",
    }
}

impl Models {
    /// The embedded defaults.
    pub fn builtin() -> Result<Models, toml::de::Error> {
        toml::from_str(DEFAULT_MODELS)
    }

    /// The names of the sets in `table` (one of [`TABLES`]).
    pub fn names(&self, table: &str) -> Option<Vec<&str>> {
        fn k<V>(m: &BTreeMap<String, V>) -> Vec<&str> {
            m.keys().map(String::as_str).collect()
        }
        Some(match table {
            "adapter" => k(&self.adapter),
            "machine" => k(&self.machine),
            "peer" => k(&self.peer),
            "vse" => k(&self.vse),
            "hipersockets" => k(&self.hipersockets),
            "smc" => k(&self.smc),
            _ => return None,
        })
    }

    /// The built-in sets with a scenario's own `[models]` laid over them.
    /// A set named like a built-in one changes only the fields it gives
    /// (`[models.machine.z10]` with `interrupt_ns = 3000` keeps every other
    /// z10 cost); a set of a new name gives every field.
    pub fn layered(own: Option<&toml::Table>) -> Result<Models, LayerError> {
        toml::Value::Table(Self::layered_table(own)?)
            .try_into()
            .map_err(|e: toml::de::Error| LayerError::models(None, e.to_string()))
    }

    /// [`Models::layered`] as TOML: every set, built in or the file's, with
    /// the file's fields laid over the built-in ones; each set checked.
    pub fn layered_table(own: Option<&toml::Table>) -> Result<toml::Table, LayerError> {
        let whole = |what: String| LayerError::models(None, what);
        let mut base: toml::Table = DEFAULT_MODELS
            .parse()
            .map_err(|e| whole(format!("built-in models: {e}")))?;
        for (table, sets) in own.into_iter().flatten() {
            if !TABLES.contains(&table.as_str()) {
                return Err(LayerError::models(
                    Some(table),
                    format!(
                        "not a table of parameter sets (known: {})",
                        TABLES.join(", ")
                    ),
                ));
            }
            let Some(sets) = sets.as_table() else {
                return Err(LayerError::models(
                    Some(table),
                    format!(
                        "holds named sets, e.g. [models.{table}.{}] with the fields to change",
                        builtin_example(table)
                    ),
                ));
            };
            let slot = base
                .entry(table.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            let Some(slot) = slot.as_table_mut() else {
                return Err(whole(format!("built-in models: {table} is not a table")));
            };
            for (name, set) in sets {
                let Some(set) = set.as_table() else {
                    return Err(LayerError {
                        place: format!("[models.{table}]"),
                        key: Some(name.clone()),
                        what: format!(
                            "is a set of fields: [models.{table}.{name}] then field = value lines"
                        ),
                    });
                };
                if let Some((k, why)) = set
                    .keys()
                    .find_map(|k| unused_by(table, k).map(|why| (k, why)))
                {
                    return Err(LayerError::at(
                        table,
                        name,
                        Some(k.clone()),
                        format!("not a field of a [models.{table}] set: {why}"),
                    ));
                }
                let builtin = slot.get(name).and_then(toml::Value::as_table);
                let mut merged = builtin.cloned().unwrap_or_default();
                for (k, v) in set {
                    merged.insert(k.clone(), v.clone());
                }
                check_set(table, name, &merged, builtin.is_none())?;
                slot.insert(name.clone(), toml::Value::Table(merged));
            }
        }
        Ok(base)
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
        // Spec 1.1: OSA-Express3's 10 GbE port runs about four times as
        // fast as OSA-Express2's (jumbo frames, each card's own bound),
        // while the 1 GbE cards differ far less.
        let big = |g: &str| m.adapter[g].frame_cost(9018);
        let ratio = big("osa-express2") as f64 / big("osa-express3") as f64;
        assert!((3.5..=4.5).contains(&ratio), "{ratio}");
        assert!(c("osa-express2-1g") < 2 * c("osa-express3-1g"));
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
    fn a_set_named_like_a_builtin_changes_only_what_it_gives() {
        let base = Models::builtin().unwrap();
        let own: toml::Table = "[machine.z10]\ninterrupt_ns = 9999\n".parse().unwrap();
        let m = Models::layered(Some(&own)).unwrap();
        assert_eq!(m.machine["z10"].interrupt_ns, 9999);
        let mut want = base.machine["z10"].clone();
        want.interrupt_ns = 9999;
        assert_eq!(m.machine["z10"], want, "every other z10 cost kept");
        assert_eq!(m.machine["z14"], base.machine["z14"]);
        assert_eq!(Models::layered(None).unwrap(), base);
    }

    #[test]
    fn a_new_set_gives_every_field() {
        let own: toml::Table = "[adapter.my-osa]\nframe_ns = 1\n".parse().unwrap();
        let e = Models::layered(Some(&own)).unwrap_err();
        assert_eq!(e.place, "[models.adapter.my-osa]");
        assert!(
            e.what.contains("missing field") && e.what.contains("gives every field"),
            "{e:?}"
        );
        // A whole set of a new name is added beside the built-in ones.
        let builtin: toml::Table = DEFAULT_MODELS.parse().unwrap();
        let mut whole = toml::Table::new();
        whole.insert("my-osa".into(), builtin["adapter"]["osa-express3"].clone());
        let mut own = toml::Table::new();
        own.insert("adapter".into(), toml::Value::Table(whole));
        let m = Models::layered(Some(&own)).unwrap();
        assert_eq!(m.adapter["my-osa"], m.adapter["osa-express3"]);
    }

    #[test]
    fn a_field_another_kind_of_host_uses_is_refused() {
        let err = |t: &str| Models::layered(Some(&t.parse().unwrap())).unwrap_err();
        for (set, key) in [
            ("machine.z10", "ack_every = 5"),
            ("machine.z10", "nic_coalesce_ns = 1000"),
            ("machine.z14", "time_wait_s = 30"),
            ("machine.z10", "stack_wait_ns = 1"),
            ("peer.aix", "siga_ns = 1"),
            ("peer.linux", "app_call_ns = 1"),
            ("vse.z800", "siga_ns = 1"),
            ("vse.z800", "vswitch_frame_ns = 1"),
        ] {
            let e = err(&format!("[{set}]\n{key}\n"));
            let field = key.split(' ').next().unwrap();
            assert_eq!(
                (e.place.as_str(), e.key.as_deref()),
                (format!("[models.{set}]").as_str(), Some(field)),
                "{e:?}"
            );
            assert!(e.what.starts_with("not a field of a [models."), "{e:?}");
        }
        // Each kind keeps the fields it uses.
        for t in [
            "[peer.aix]\nack_every = 4\ntime_wait_s = 30\nvswitch_ip_ns = 1\n",
            "[machine.z10]\nsiga_ns = 1\n",
            "[vse.z800]\nack_every = 2\nstack_wait_ns = 1\ntime_wait_s = 9\n",
        ] {
            assert!(Models::layered(Some(&t.parse().unwrap())).is_ok(), "{t}");
        }
        // An unknown field's message lists only the table's own fields.
        let e = err("[machine.z10]\nack_evry = 2\n");
        assert!(e.what.contains("`interrupt_ns`"), "{e:?}");
        assert!(!e.what.contains("`ack_every`"), "{e:?}");
        assert!(!e.what.contains("`stack_np_share`"), "{e:?}");
        let e = err("[peer.aix]\nsiga_nss = 2\n");
        assert!(
            e.what.contains("`ack_every`") && !e.what.contains("`siga_ns`"),
            "{e:?}"
        );
    }

    #[test]
    fn layer_errors_name_the_set_and_field() {
        let err = |t: &str| Models::layered(Some(&t.parse().unwrap())).unwrap_err();
        let e = err("[peer.aix]\nack_every = \"two\"\n");
        assert_eq!(
            (e.place.as_str(), e.key.as_deref()),
            ("[models.peer.aix]", Some("ack_every"))
        );
        let e = err("[peer.aix]\nack_evry = 2\n");
        assert_eq!(e.key.as_deref(), Some("ack_evry"));
        assert!(e.what.contains("unknown field"), "{e:?}");
        let e = err("[machines.z10]\nprocessors = 2\n");
        assert_eq!(
            (e.place.as_str(), e.key.as_deref()),
            ("[models]", Some("machines"))
        );
        let e = err("machine = 3\n");
        assert_eq!(e.key.as_deref(), Some("machine"));
        let e = err("[machine]\nz10 = 3\n");
        assert_eq!(
            (e.place.as_str(), e.key.as_deref()),
            ("[models.machine]", Some("z10"))
        );
    }
}
