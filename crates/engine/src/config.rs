//! Typed engine configuration (layer: engine core; spec 01 §1.1–1.4, 02 §2.2–2.4,
//! 03 §3.1–3.3).
//!
//! This is what an activated TCP/IP profile becomes: the profile crate parses
//! text and lowers it into a [`SystemConfig`]; the simulator and the live plane
//! may also build one in code. Every *model default* of the spec lives in
//! [`Tuning`] and is configurable.

use core::fmt;
use core::str::FromStr;
use core::time::Duration;
use serde::{Deserialize, Serialize};
use std::net::IpAddr;

/// An Ethernet MAC address.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
pub struct Mac(pub [u8; 6]);

impl Mac {
    pub const BROADCAST: Mac = Mac([0xff; 6]);
    pub const ZERO: Mac = Mac([0; 6]);
    /// Group (multicast or broadcast) bit of the first byte.
    pub fn is_group(&self) -> bool {
        self.0[0] & 0x01 != 0
    }
    /// Locally administered bit of the first byte (required for a user VMAC).
    pub fn is_local(&self) -> bool {
        self.0[0] & 0x02 != 0
    }
}

impl fmt::Display for Mac {
    /// z/OS style: twelve upper-case hex digits, no separators.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02X}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Mac {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a MAC address text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MacParseError {
    #[error(
        "a MAC address is 12 hexadecimal digits (optionally separated by ':' or '-'), found {0:?}"
    )]
    Format(String),
}

impl FromStr for Mac {
    type Err = MacParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let digits: Vec<u8> = s
            .bytes()
            .filter(|b| *b != b':' && *b != b'-' && *b != b'.')
            .collect();
        if digits.len() != 12 || !digits.iter().all(u8::is_ascii_hexdigit) {
            return Err(MacParseError::Format(s.to_string()));
        }
        let mut out = [0u8; 6];
        for (i, pair) in digits.chunks(2).enumerate() {
            let text = core::str::from_utf8(pair).map_err(|_| MacParseError::Format(s.into()))?;
            out[i] = u8::from_str_radix(text, 16).map_err(|_| MacParseError::Format(s.into()))?;
        }
        Ok(Mac(out))
    }
}

/// An address with its prefix length (`IPADDR 172.16.1.1/24`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct IpNet {
    pub addr: IpAddr,
    pub prefix: u8,
}

impl IpNet {
    /// The subnet's directed broadcast address (IPv4, a prefix of 30 or
    /// less: a /31 or /32 has none).
    pub fn broadcast(&self) -> Option<IpAddr> {
        match self.addr {
            IpAddr::V4(a) if self.prefix <= 30 => {
                let host_bits = u32::MAX >> u32::from(self.prefix);
                Some(IpAddr::V4((u32::from(a) | host_bits).into()))
            }
            _ => None,
        }
    }
    /// Whether `ip` lies in this subnet.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip) {
            (IpAddr::V4(a), IpAddr::V4(b)) => {
                let p = u32::from(self.prefix.min(32));
                let mask = if p == 0 { 0 } else { u32::MAX << (32 - p) };
                u32::from(a) & mask == u32::from(b) & mask
            }
            (IpAddr::V6(a), IpAddr::V6(b)) => {
                let p = u32::from(self.prefix.min(128));
                let mask = if p == 0 { 0 } else { u128::MAX << (128 - p) };
                u128::from(a) & mask == u128::from(b) & mask
            }
            _ => false,
        }
    }
}

impl fmt::Display for IpNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix)
    }
}

/// OSA-Express generations (spec 01 §1.1). The simulator keeps their speeds
/// and capacities as named parameter sets; the engine needs the name for
/// feature rules (the IPSEC queue needs 6S or later) and displays.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub enum OsaGeneration {
    #[serde(rename = "OSA-E2")]
    Express2,
    #[serde(rename = "OSA-E3")]
    Express3,
    #[serde(rename = "OSA-E5S")]
    Express5S,
    #[serde(rename = "OSA-E6S")]
    Express6S,
    #[serde(rename = "OSA-E7S")]
    Express7S,
}

impl OsaGeneration {
    /// The label OSAINFO prints (`Gen: OSA-E3`).
    pub fn label(self) -> &'static str {
        match self {
            OsaGeneration::Express2 => "OSA-E2",
            OsaGeneration::Express3 => "OSA-E3",
            OsaGeneration::Express5S => "OSA-E5S",
            OsaGeneration::Express6S => "OSA-E6S",
            OsaGeneration::Express7S => "OSA-E7S",
        }
    }
    /// Only OSA-Express6S and later route IPsec traffic to its own queue.
    pub fn has_ipsec_queue(self) -> bool {
        self >= OsaGeneration::Express6S
    }
}

/// CHPID types (`CHPIDTYPE OSD|OSX`; IQD for HiperSockets).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum ChpidType {
    Osd,
    Osx,
    Iqd,
}

impl ChpidType {
    pub fn label(self) -> &'static str {
        match self {
            ChpidType::Osd => "OSD",
            ChpidType::Osx => "OSX",
            ChpidType::Iqd => "IQD",
        }
    }
}

/// What kind of port this is.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum PortKind {
    /// An OSA-Express port on an Ethernet LAN.
    Osa {
        generation: OsaGeneration,
        speed_mbps: u32,
        chpid_type: ChpidType,
    },
    /// A HiperSockets (IQD) CHPID: an internal LAN, memory to memory.
    HiperSockets {
        /// Maximum frame size in KB: 16, 24, 40 or 64.
        mfs_kb: u16,
    },
}

/// One adapter port (OSA) or one IQD CHPID.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PortConfig {
    /// PORTNAME for OSA (also the TRLE PORTNAME); a label for IQD.
    pub name: String,
    pub chpid: u8,
    pub port_num: u8,
    pub kind: PortKind,
    /// Burned-in MAC of the port (HiperSockets: a generated one).
    pub physical_mac: Mac,
    /// The largest IP MTU the LAN behind the port carries, when the driver
    /// knows it (a simulated link, the live lab's devices); `None`: the
    /// adapter's own (8992 on OSA, jumbo frames). An interface's MTU in use
    /// is never larger.
    #[serde(default)]
    pub lan_mtu: Option<u32>,
}

impl PortConfig {
    pub fn is_hipersockets(&self) -> bool {
        matches!(self.kind, PortKind::HiperSockets { .. })
    }
    /// Bytes one SBAL can hold: 16 × 4 KB on OSA, the MFS on HiperSockets.
    pub fn sbal_bytes(&self) -> u32 {
        match self.kind {
            PortKind::Osa { .. } => 16 * 4096,
            PortKind::HiperSockets { mfs_kb } => u32::from(mfs_kb.max(16)) * 1024,
        }
    }
    pub fn generation(&self) -> Option<OsaGeneration> {
        match self.kind {
            PortKind::Osa { generation, .. } => Some(generation),
            PortKind::HiperSockets { .. } => None,
        }
    }
}

/// `INBPERF` (spec 02 §2.2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum InbPerf {
    MinLatency,
    #[default]
    Balanced,
    MinCpu,
    Dynamic,
}

impl InbPerf {
    pub fn label(self) -> &'static str {
        match self {
            InbPerf::MinLatency => "MINLATENCY",
            InbPerf::Balanced => "BALANCED",
            InbPerf::MinCpu => "MINCPU",
            InbPerf::Dynamic => "DYNAMIC",
        }
    }
}

/// `PRIROUTER | SECROUTER | NONROUTER` (spec 01 §1.4).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum RouterRole {
    Primary,
    Secondary,
    #[default]
    NonRouter,
}

/// `VMAC ROUTEALL | ROUTELCL`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum VmacRoute {
    #[default]
    All,
    Local,
}

/// `VMAC [macaddr] [ROUTEALL|ROUTELCL]`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct VmacConfig {
    /// A user-configured VMAC (must have the locally administered bit), or
    /// `None` for an adapter-generated one.
    pub mac: Option<Mac>,
    pub route: VmacRoute,
}

/// Layer 3 (IP mode, what z/OS uses) or layer 2 (Ethernet mode).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum Layer {
    #[default]
    Layer3,
    Layer2,
}

/// IP version of an interface (`IPAQENET` vs `IPAQENET6`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum IpVersion {
    #[default]
    V4,
    V6,
}

/// How the interface was defined (WORKLOADQ and OLM need an INTERFACE).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub enum DefinedBy {
    #[default]
    Interface,
    /// Legacy DEVICE/LINK/HOME.
    Link,
}

/// One stack's interface on one port (an INTERFACE or LINK statement).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InterfaceConfig {
    pub name: String,
    /// Index into [`SystemConfig::stacks`].
    pub stack: usize,
    /// Index into [`SystemConfig::ports`].
    pub port: usize,
    pub ip_version: IpVersion,
    pub layer: Layer,
    pub defined_by: DefinedBy,
    /// Home addresses registered with the adapter at activation.
    pub addresses: Vec<IpNet>,
    /// Multicast groups registered at activation.
    pub multicast: Vec<IpAddr>,
    /// Configured MTU (`None`: the adapter's, 8992 on OSA with jumbo frames).
    pub mtu: Option<u32>,
    pub vlan: Option<u16>,
    pub vmac: Option<VmacConfig>,
    pub inbperf: InbPerf,
    /// `INBPERF DYNAMIC WORKLOADQ`.
    pub workloadq: bool,
    /// `OLM` (forces DYNAMIC).
    pub olm: bool,
    /// Read storage in SBALs (`READSTORAGE MAX/AVG/MIN` = 64/32/16; z/OS 8..126).
    pub read_storage_sbals: u16,
    /// Whether READSTORAGE was GLOBAL (for the display).
    pub read_storage_global: bool,
    pub router: RouterRole,
    pub isolate: bool,
    /// `SECCLASS` (1-255; 255 when not coded), for the displays.
    #[serde(default = "default_secclass")]
    pub secclass: u8,
    /// `MONSYSPLEX` coded, for the displays.
    #[serde(default)]
    pub monsysplex: bool,
    /// `SOURCEVIPAINTERFACE`: the static VIPA named as the source address,
    /// for the displays.
    #[serde(default)]
    pub source_vipa: Option<String>,
}

fn default_secclass() -> u8 {
    255
}

impl InterfaceConfig {
    /// A layer-3 IPv4 OSA interface with BALANCED timers and 64 SBALs.
    pub fn new(name: impl Into<String>, stack: usize, port: usize) -> Self {
        InterfaceConfig {
            name: name.into(),
            stack,
            port,
            ip_version: IpVersion::V4,
            layer: Layer::Layer3,
            defined_by: DefinedBy::Interface,
            addresses: Vec::new(),
            multicast: Vec::new(),
            mtu: None,
            vlan: None,
            vmac: None,
            inbperf: InbPerf::Balanced,
            workloadq: false,
            olm: false,
            read_storage_sbals: 64,
            read_storage_global: true,
            router: RouterRole::NonRouter,
            isolate: false,
            secclass: default_secclass(),
            monsysplex: false,
            source_vipa: None,
        }
    }
}

/// `GLOBALCONFIG WLMPRIORITYQ` mapping: control value (0 = SYSSTC, 1–5 =
/// importance, 6 = discretionary) to write queue 1–4, and where forwarded
/// packets go.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct WlmPriorityMap {
    /// `queue_for[c]` is the write queue (1–4) of control value `c` (0..=6).
    pub queue_for: [u8; 7],
    /// Write queue for forwarded packets (`FWD` puts them with IOPRI4 by default).
    pub forwarded_queue: u8,
}

impl Default for WlmPriorityMap {
    /// `IOPRI1 0 IOPRI2 1 IOPRI3 2 3 IOPRI4 4 5 6 FWD`.
    fn default() -> Self {
        WlmPriorityMap {
            queue_for: [1, 2, 3, 3, 4, 4, 4],
            forwarded_queue: 4,
        }
    }
}

/// Policy Agent `SetSubnetPrioTosMask`.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct TosPolicy {
    pub mask: u8,
    /// `(queue, tos pattern)` in the order written; first match wins.
    pub mappings: Vec<(u8, u8)>,
}

impl Default for TosPolicy {
    fn default() -> Self {
        TosPolicy {
            mask: 0b1110_0000,
            mappings: vec![
                (1, 0b1110_0000),
                (1, 0b1100_0000),
                (1, 0b1010_0000),
                (1, 0b1000_0000),
                (2, 0b0110_0000),
                (3, 0b0100_0000),
                (4, 0b0010_0000),
                (4, 0b0000_0000),
            ],
        }
    }
}

/// Enterprise Extender: UDP to the stack's EE address on these ports.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct EeConfig {
    pub addr: IpAddr,
    pub first_port: u16,
    pub last_port: u16,
}

/// When the stack acknowledges data that arrives with the PUSH bit on
/// (TCPCONFIG DELAYACKS / NODELAYACKS / AUTODELAYACKS).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub enum AckDelay {
    /// Hold the ACK for the reply (z/OS's default).
    #[default]
    Delay,
    /// ACK at once.
    NoDelay,
    /// The stack decides per connection.
    Auto,
}

impl AckDelay {
    /// The TCPCONFIG parameter that sets it.
    pub fn keyword(self) -> &'static str {
        match self {
            AckDelay::Delay => "DELAYACKS",
            AckDelay::NoDelay => "NODELAYACKS",
            AckDelay::Auto => "AUTODELAYACKS",
        }
    }
}

/// The stack's TCP layer settings (TCPCONFIG), with z/OS's defaults where
/// the profile codes nothing. The adapter does not use them; the simulator
/// and the displays do.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct TcpSettings {
    /// TCPSENDBFRSIZE, bytes (default 64K).
    pub send_buf: u32,
    /// TCPRCVBUFRSIZE, bytes (default 64K).
    pub rcv_buf: u32,
    /// TCPMAXRCVBUFRSIZE as coded: the most an application may ask for.
    /// `None` when not coded (z/OS then applies 256K, which
    /// [`TcpSettings::max_rcv_buf`] gives).
    pub max_rcv_buf_coded: Option<u32>,
    /// TCPMAXSENDBUFRSIZE as coded; likewise.
    pub max_send_buf_coded: Option<u32>,
    pub delay_acks: AckDelay,
    /// FRRTHRESHOLD: duplicate ACKs that start a fast retransmit (default 3).
    pub frr_threshold: u32,
    /// TIMEWAITINTERVAL: seconds a connection stays in TIME_WAIT after
    /// this end closed first (default 60).
    pub time_wait_s: u32,
}

impl TcpSettings {
    /// z/OS's default for both maximums.
    pub const DEFAULT_MAX_BUF: u32 = 256 * 1024;

    pub fn max_rcv_buf(&self) -> u32 {
        self.max_rcv_buf_coded.unwrap_or(Self::DEFAULT_MAX_BUF)
    }
    pub fn max_send_buf(&self) -> u32 {
        self.max_send_buf_coded.unwrap_or(Self::DEFAULT_MAX_BUF)
    }
}

impl Default for TcpSettings {
    fn default() -> Self {
        TcpSettings {
            send_buf: 64 * 1024,
            rcv_buf: 64 * 1024,
            max_rcv_buf_coded: None,
            max_send_buf_coded: None,
            delay_acks: AckDelay::Delay,
            frr_threshold: 3,
            time_wait_s: 60,
        }
    }
}

/// One TCP/IP stack (one LPAR's profile).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StackConfig {
    pub name: String,
    /// `GLOBALCONFIG SEGMENTATIONOFFLOAD`.
    pub segmentation_offload: bool,
    /// `GLOBALCONFIG IQDMULTIWRITE`.
    pub iqd_multiwrite: bool,
    /// `GLOBALCONFIG ZIIP IQDIOMULTIWRITE` (effective only with IQDMULTIWRITE).
    pub ziip_iqdio_multiwrite: bool,
    /// `GLOBALCONFIG WLMPRIORITYQ`.
    pub wlm_priorityq: Option<WlmPriorityMap>,
    /// Policy Agent TOS mapping, when QoS policy is active.
    pub tos_policy: Option<TosPolicy>,
    /// `IPCONFIG DATAGRAMFWD`.
    pub datagram_fwd: bool,
    /// `IPCONFIG QDIOACCELERATOR QDIOPRIORITY n` (the write queue).
    pub qdio_accelerator: Option<u8>,
    /// `IPCONFIG IQDIOROUTING`.
    pub iqdio_routing: bool,
    /// `IPCONFIG IPSECURITY`.
    pub ipsecurity: bool,
    /// Distributed DVIPAs this stack's sysplex distributor owns (SYSDIST queue).
    pub distributed_dvipas: Vec<IpAddr>,
    /// Home addresses on no adapter: static VIPAs and the dynamic VIPAs the
    /// stack defines. Its IPv4 interfaces register them with the adapter
    /// (with their own addresses) so that datagrams for them reach it.
    #[serde(default)]
    pub vipas: Vec<IpAddr>,
    pub ee: Option<EeConfig>,
    /// Write queue when no QoS policy or WLMPRIORITYQ applies (model default 1).
    pub default_queue: u8,
    /// Write queue for forwarded packets in that case (model default 4).
    pub default_forward_queue: u8,
    /// TCPCONFIG.
    #[serde(default)]
    pub tcp: TcpSettings,
    /// `GLOBALCONFIG SMCR` / `SMCD`: the stack may move a connection's data
    /// by Shared Memory Communications over RoCE / ISM.
    #[serde(default)]
    pub smc_r: bool,
    #[serde(default)]
    pub smc_d: bool,
}

impl StackConfig {
    pub fn new(name: impl Into<String>) -> Self {
        StackConfig {
            name: name.into(),
            segmentation_offload: false,
            iqd_multiwrite: false,
            ziip_iqdio_multiwrite: false,
            wlm_priorityq: None,
            tos_policy: None,
            datagram_fwd: false,
            qdio_accelerator: None,
            iqdio_routing: false,
            ipsecurity: false,
            distributed_dvipas: Vec::new(),
            vipas: Vec::new(),
            ee: None,
            default_queue: 1,
            default_forward_queue: 4,
            tcp: TcpSettings::default(),
            smc_r: false,
            smc_d: false,
        }
    }
}

/// Gap and block-hold timer pair.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct TimerPair {
    #[serde(with = "duration_us")]
    pub gap: Duration,
    #[serde(with = "duration_us")]
    pub block: Duration,
}

impl TimerPair {
    pub const fn us(gap: u64, block: u64) -> Self {
        TimerPair {
            gap: Duration::from_micros(gap),
            block: Duration::from_micros(block),
        }
    }
}

/// Static timer values per INBPERF setting (spec 02 §2.2 model defaults).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct TimerTable {
    pub min_latency: TimerPair,
    pub balanced: TimerPair,
    pub min_cpu: TimerPair,
    /// The most aggressive values DYNAMIC may choose.
    pub dynamic_floor: TimerPair,
}

impl Default for TimerTable {
    fn default() -> Self {
        TimerTable {
            min_latency: TimerPair::us(20, 40),
            balanced: TimerPair::us(40, 250),
            min_cpu: TimerPair::us(100, 1000),
            dynamic_floor: TimerPair::us(1, 10),
        }
    }
}

impl TimerTable {
    /// Every timer zero: frames are presented as they arrive (the live
    /// plane's "timers at zero" speed reference).
    pub fn zero() -> Self {
        let z = TimerPair::us(0, 0);
        TimerTable {
            min_latency: z,
            balanced: z,
            min_cpu: z,
            dynamic_floor: z,
        }
    }
    pub fn for_mode(&self, mode: InbPerf) -> TimerPair {
        match mode {
            InbPerf::MinLatency => self.min_latency,
            InbPerf::Balanced | InbPerf::Dynamic => self.balanced,
            InbPerf::MinCpu => self.min_cpu,
        }
    }
}

/// The DYNAMIC tuner's knobs (spec 02 §2.2; the algorithm is ours).
///
/// The tuner keeps a ladder of `levels` timer pairs (and the half rungs
/// between them), spaced geometrically from [`TimerTable::dynamic_floor`]
/// up to BALANCED. Each epoch it measures the share of the queue's frames
/// that carry data of connections the stack sees streaming; above
/// `streaming_share` it aims at the top rung (save CPU), with no streaming
/// at the bottom rung (lowest latency). A queue carrying almost only the
/// ACKs of streams leaving the host, at least `ack_stream_per_s` of them,
/// aims at the middle rung (BULKDATA: half a rung above). It moves one rung
/// at a time, and only after the same aim held for `hysteresis_epochs`
/// epochs.
#[derive(Clone, Copy, PartialEq, Debug, Serialize, Deserialize)]
pub struct TunerConfig {
    /// Length of one observation epoch.
    #[serde(with = "duration_us")]
    pub epoch: Duration,
    /// Number of rungs on the ladder (at least 2).
    pub levels: u8,
    /// Share of an epoch's frames from streaming connections above which the
    /// queue leans toward saving CPU.
    pub streaming_share: f64,
    /// Epochs a new aim must persist before the tuner moves one rung.
    pub hysteresis_epochs: u32,
    /// ACKs per second from which a queue carrying a stream's ACKs counts
    /// as an ACK stream (below it, ACKs come too far apart for a hold to
    /// gather any, and count as interactive).
    #[serde(default = "default_ack_stream_per_s")]
    pub ack_stream_per_s: u32,
}

fn default_ack_stream_per_s() -> u32 {
    50_000
}

impl Default for TunerConfig {
    fn default() -> Self {
        TunerConfig {
            epoch: Duration::from_millis(10),
            levels: 5,
            streaming_share: 0.10,
            hysteresis_epochs: 2,
            ack_stream_per_s: default_ack_stream_per_s(),
        }
    }
}

/// The behavioural bulk-connection detector (spec 02 §2.3).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct BulkConfig {
    /// Payload bytes one direction must carry without a data segment the
    /// other way before the connection counts as streaming.
    pub run_bytes: u64,
    /// ... within this window from the run's first segment.
    #[serde(with = "duration_us")]
    pub run_window: Duration,
    /// A registered connection idle this long is deregistered.
    #[serde(with = "duration_us")]
    pub idle_timeout: Duration,
    /// A registered connection whose data changes direction this many times
    /// without a new streaming run behaves as request/response: deregistered.
    pub turns_to_deregister: u32,
    /// How many connections the stack side tracks at most (a new one beyond
    /// is not tracked, and counted; none is evicted).
    pub max_tracked: usize,
}

impl Default for BulkConfig {
    fn default() -> Self {
        BulkConfig {
            run_bytes: 256 * 1024,
            run_window: Duration::from_millis(500),
            idle_timeout: Duration::from_secs(2),
            turns_to_deregister: 8,
            max_tracked: 65_536,
        }
    }
}

/// Optimized latency mode knobs (spec 02 §2.4).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct OlmConfig {
    /// After a batch completes the host keeps looking for data this long.
    #[serde(with = "duration_us")]
    pub poll_window: Duration,
    /// Interfaces per port / per CHPID allowed when any of them uses OLM.
    pub max_per_port: usize,
    pub max_per_chpid: usize,
}

impl Default for OlmConfig {
    fn default() -> Self {
        OlmConfig {
            poll_window: Duration::from_micros(25),
            max_per_port: 4,
            max_per_chpid: 8,
        }
    }
}

/// Model defaults and capacities, all configurable.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct Tuning {
    pub timers: TimerTable,
    pub tuner: TunerConfig,
    pub bulk: BulkConfig,
    pub olm: OlmConfig,
    /// Closed SBALs in one batch that force a presentation (PCITHRSH).
    pub threshold_sbals: u16,
    /// Entries of the adapter's BULKDATA 5-tuple table per interface.
    pub bulk_table_capacity: usize,
    /// Frames one write queue holds before a send is refused (counted).
    pub write_queue_frames: usize,
    /// Routes the accelerator learns per stack at most.
    pub accel_table_capacity: usize,
    /// Frames waiting for ARP resolution per port at most.
    pub arp_pending_frames: usize,
    /// Engine events kept for the driver before the oldest are dropped (counted).
    pub event_queue: usize,
    /// Bytes of each frame the engine keeps (headers; the rest is counted by
    /// length only). `None` keeps whole frames (the live plane needs them).
    pub store_bytes: Option<u32>,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            timers: TimerTable::default(),
            tuner: TunerConfig::default(),
            bulk: BulkConfig::default(),
            olm: OlmConfig::default(),
            threshold_sbals: 16,
            bulk_table_capacity: 16_384,
            write_queue_frames: 2_048,
            accel_table_capacity: 4_096,
            arp_pending_frames: 256,
            event_queue: 65_536,
            store_bytes: None,
        }
    }
}

/// Everything the engine runs: ports, stacks and their interfaces.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SystemConfig {
    pub ports: Vec<PortConfig>,
    pub stacks: Vec<StackConfig>,
    pub interfaces: Vec<InterfaceConfig>,
    #[serde(default)]
    pub tuning: Tuning,
}

/// Serialize durations as whole microseconds (what people write in files).
mod duration_us {
    use core::time::Duration;
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_micros(u64::deserialize(d)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mac_parses_and_prints_zos_style() {
        let m: Mac = "02:00:11:3b:92:13".parse().unwrap();
        assert_eq!(m.to_string(), "0200113B9213");
        assert!(m.is_local());
        assert!(!m.is_group());
        assert!("02001".parse::<Mac>().is_err());
        assert!("0200113B92ZZ".parse::<Mac>().is_err());
    }

    #[test]
    fn subnet_membership() {
        let n = IpNet {
            addr: "172.16.1.1".parse().unwrap(),
            prefix: 24,
        };
        assert!(n.contains("172.16.1.200".parse().unwrap()));
        assert!(!n.contains("172.16.2.1".parse().unwrap()));
        assert!(!n.contains("::1".parse().unwrap()));
    }

    #[test]
    fn default_wlm_map_matches_the_documented_statement() {
        let m = WlmPriorityMap::default();
        // IOPRI1 0 IOPRI2 1 IOPRI3 2 3 IOPRI4 4 5 6
        assert_eq!(m.queue_for, [1, 2, 3, 3, 4, 4, 4]);
    }
}

/// Why a [`SystemConfig`] could not become an engine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("stack {0}: IPCONFIG IQDIOROUTING cannot be used while QDIOACCELERATOR is on")]
    IqdioRoutingWithAccelerator(String),
    #[error(transparent)]
    Activate(#[from] crate::engine::ActivateError),
}
