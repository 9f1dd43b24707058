//! Driving the engine from a capture (layer: replay driver; spec 08 §8.2
//! with 02 §2.1–2.4).
//!
//! The capture's timestamps are the engine's clock (rebased so the first
//! record is time zero). Before each frame every deadline the engine asked
//! for ([`Engine::poll_timeout`]) and every host completion that falls before
//! the frame's time is run, in time order. Each frame is then sorted by
//! direction:
//! - **inbound**: addressed to one of the analysed interfaces' registered
//!   addresses (its destination MAC is rewritten to that interface's MAC,
//!   because the capture was taken elsewhere), to its MAC, or to a group
//!   address; fed to `handle_wire_frame`;
//! - **outbound**: sent from one of those addresses; fed to
//!   `handle_host_send` (so the bulk detector sees both directions) and the
//!   write queues are drained;
//! - **foreign**: neither (a cooked capture's own direction mark decides
//!   when present); counted, not replayed;
//! - **unusable**: headers that cannot be read (see [`crate::unusable`]);
//!   counted by reason, not replayed, and never taken for foreign. One the
//!   adapter would have received is added to the invalid-frame count
//!   (FRINVCT) reported for where it would have landed (see
//!   `Run::charge_invalid`).
//!
//! The host is modelled as prompt: every presented batch is serviced for a
//! fixed time and then completed. One run per INBPERF [`Mode`] gives one
//! [`ModeResult`]; all memory is bounded (histograms, binned series, a
//! capped flow table, a reorder window for annotation bounded by the frames
//! the engine holds).

use crate::capture::{CaptureError, CaptureIf, CaptureReader, DirectionHint, Entry, Skipped};
use crate::stats::{DelaySummary, Histogram, TimeSeries};
use crate::unusable;
use core::time::Duration;
use serde::Serialize;
use softosa_engine::config::{
    InbPerf, IpNet, IpVersion, Layer, Mac, PortKind, SystemConfig, VmacConfig, VmacRoute,
};
use softosa_engine::counters::{DropCounts, DropReason, ReadQueueCounters, WriteQueueCounters};
use softosa_engine::inbound::bulk::ConnKey;
use softosa_engine::wire::{self, Frame, FrameInfo, L4Info, NetInfo};
use softosa_engine::{
    BatchId, Disposition, Engine, Event, IfaceId, Instant, InvalidAt, PortId, PresentCause,
    QueueKind, SendMeta, SendOutcome,
};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::Read;
use std::net::IpAddr;

/// The INBPERF settings compared side by side. In JSON a mode is its
/// [`Mode::label`] (`"DYNAMIC WORKLOADQ"`), as the text and the profile
/// spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    Balanced,
    MinCpu,
    MinLatency,
    Dynamic,
    DynamicWorkloadq,
    Olm,
}

impl Serialize for Mode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

impl Mode {
    pub const ALL: [Mode; 6] = [
        Mode::Balanced,
        Mode::MinCpu,
        Mode::MinLatency,
        Mode::Dynamic,
        Mode::DynamicWorkloadq,
        Mode::Olm,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Mode::Balanced => "BALANCED",
            Mode::MinCpu => "MINCPU",
            Mode::MinLatency => "MINLATENCY",
            Mode::Dynamic => "DYNAMIC",
            Mode::DynamicWorkloadq => "DYNAMIC WORKLOADQ",
            Mode::Olm => "OLM",
        }
    }

    /// The mode's column heading in the text report: its label, but
    /// `DYN+IWQ` for DYNAMIC WORKLOADQ, too wide for a column.
    pub fn heading(self) -> &'static str {
        match self {
            Mode::DynamicWorkloadq => "DYN+IWQ",
            m => m.label(),
        }
    }

    /// Parse a label (case-insensitive; `WORKLOADQ`, `IWQ`, `-`/`_`
    /// accepted), or a column heading of the text report (`DYN+IWQ`).
    pub fn parse(s: &str) -> Option<Mode> {
        let t: String = s
            .trim()
            .to_ascii_uppercase()
            .chars()
            .map(|c| if c == '_' || c == '-' { ' ' } else { c })
            .collect();
        // A heading that is not the label (DYN+IWQ), spaces ignored.
        let compact: String = t.split_whitespace().collect();
        if let Some(m) = Mode::ALL
            .into_iter()
            .find(|m| m.heading() != m.label() && compact == m.heading())
        {
            return Some(m);
        }
        match t.split_whitespace().collect::<Vec<_>>().join(" ").as_str() {
            "BALANCED" => Some(Mode::Balanced),
            "MINCPU" => Some(Mode::MinCpu),
            "MINLATENCY" => Some(Mode::MinLatency),
            "DYNAMIC" => Some(Mode::Dynamic),
            "DYNAMIC WORKLOADQ" | "WORKLOADQ" | "IWQ" => Some(Mode::DynamicWorkloadq),
            "OLM" => Some(Mode::Olm),
            _ => None,
        }
    }

    /// The mode an interface is configured with.
    pub fn of(inbperf: InbPerf, workloadq: bool, olm: bool) -> Mode {
        match (inbperf, workloadq, olm) {
            (_, _, true) => Mode::Olm,
            (InbPerf::Dynamic, true, _) => Mode::DynamicWorkloadq,
            (InbPerf::Dynamic, false, _) => Mode::Dynamic,
            (InbPerf::Balanced, ..) => Mode::Balanced,
            (InbPerf::MinCpu, ..) => Mode::MinCpu,
            (InbPerf::MinLatency, ..) => Mode::MinLatency,
        }
    }
}

/// How a replay is run.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    /// Interfaces to analyse (names); empty: every OSA interface.
    pub interfaces: Vec<String>,
    /// Extra addresses owned by the host (registered on the first analysed
    /// interface of the same IP version) when the capture's host addresses
    /// are not in the profile.
    pub extra_addresses: Vec<IpAddr>,
    /// Time the modelled host spends on each presented batch.
    pub host_service: Duration,
    /// Flows tracked for the report at most (beyond: counted only).
    pub max_flows: usize,
    /// Presentations and arrivals kept per queue for the timeline.
    pub timeline_detail: usize,
    /// Window `[start, start + length)` (ns since the capture start) whose
    /// arrivals and presentations are kept for the timeline.
    pub timeline_window: (u64, u64),
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            interfaces: Vec::new(),
            extra_addresses: Vec::new(),
            host_service: Duration::from_micros(5),
            max_flows: 10_000,
            timeline_detail: 4000,
            timeline_window: (0, 3_000_000),
        }
    }
}

/// Errors of a replay run.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Capture(#[from] CaptureError),
    #[error("no interface named {0} in the profile (interfaces: {1})")]
    NoSuchInterface(String, String),
    #[error("the profile defines no OSA interface to analyse")]
    NoInterface,
    #[error("address {0}: no analysed interface of that IP version to register it on")]
    AddressVersion(IpAddr),
    #[error("writing the annotated capture: {0}")]
    Annotate(std::io::Error),
}

/// Direction of a flow's packet relative to the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    In,
    Out,
}

/// One flow, from the host's side (local = the analysed host).
///
/// Up to 100,000 flows per mode are held until the report is written, so
/// a flow holds no heap allocation of its own.
#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    pub proto: FlowProto,
    pub local: IpAddr,
    pub local_port: u16,
    pub remote: IpAddr,
    pub remote_port: u16,
    pub packets_in: u64,
    pub packets_out: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// Payload bytes carried (TCP/UDP), in and out.
    pub payload_in: u64,
    pub payload_out: u64,
    /// Frames the adapter model dropped, in and out (not in the counts
    /// above; the reasons are in the totals).
    pub dropped_in: u64,
    pub dropped_out: u64,
    pub first_us: f64,
    pub last_us: f64,
    /// Inbound frames queued per input queue.
    pub queues: FlowQueues,
    /// When the stack registered it as bulk (µs since the capture start).
    pub bulk_registered_us: Option<f64>,
    pub bulk_deregistered_us: Option<f64>,
    pub bulk_refused: bool,
}

impl FlowResult {
    /// The queue that took most of the flow's inbound frames (of two that
    /// took as many, the later label in alphabetical order).
    pub fn main_queue(&self) -> Option<&'static str> {
        self.queues.iter().max_by_key(|(_, n)| *n).map(|(q, _)| q)
    }
}

/// A flow's IP protocol number, written `TCP`, `UDP` or `IP/n`; flows
/// sort by that text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowProto(pub u8);

impl FlowProto {
    /// The written form's bytes, without an allocation (`IP/255` is the
    /// longest).
    fn text(self) -> ([u8; 6], usize) {
        let mut b = [0u8; 6];
        let t: &[u8] = match self.0 {
            6 => b"TCP",
            17 => b"UDP",
            p => {
                b[..3].copy_from_slice(b"IP/");
                let mut n = 3;
                for (place, d) in [(100, p / 100), (10, p / 10 % 10), (1, p % 10)] {
                    if p >= place || place == 1 {
                        b[n] = b'0' + d;
                        n += 1;
                    }
                }
                return (b, n);
            }
        };
        b[..t.len()].copy_from_slice(t);
        (b, t.len())
    }
}

impl core::fmt::Display for FlowProto {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (b, n) = self.text();
        // Only ASCII is written into `b`.
        f.write_str(core::str::from_utf8(&b[..n]).map_err(|_| core::fmt::Error)?)
    }
}

impl Ord for FlowProto {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        let ((a, m), (b, n)) = (self.text(), other.text());
        a[..m].cmp(&b[..n])
    }
}

impl PartialOrd for FlowProto {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq<&str> for FlowProto {
    fn eq(&self, other: &&str) -> bool {
        let (b, n) = self.text();
        &b[..n] == other.as_bytes()
    }
}

impl Serialize for FlowProto {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A flow's inbound frames per input queue: written, and iterated, as a
/// map from each used queue's label to its frames, labels in alphabetical
/// order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowQueues([u64; QueueKind::ALL.len()]);

impl FlowQueues {
    /// The queues that took any of the flow's frames: label and frames, in
    /// the labels' alphabetical order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        let mut kinds = QueueKind::ALL;
        kinds.sort_by_key(|k| k.label());
        kinds
            .into_iter()
            .map(|k| (k.label(), self.0[k.index()]))
            .filter(|(_, n)| *n > 0)
    }

    /// Frames the queue labelled `label` took (`None` if it took none).
    pub fn get(&self, label: &str) -> Option<u64> {
        self.iter().find(|(q, _)| *q == label).map(|(_, n)| n)
    }

    /// Frames all the queues took.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
}

impl Serialize for FlowQueues {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

/// One input queue's results.
#[derive(Clone, Debug, Serialize)]
pub struct QueueResult {
    pub interface: String,
    pub queue: String,
    pub queue_id: u8,
    pub interrupts: u64,
    pub presentations: u64,
    pub frames: u64,
    pub packets_per_interrupt: Option<f64>,
    pub packets_per_presentation: Option<f64>,
    pub by_cause: BTreeMap<String, u64>,
    /// Hold delay added: presentation time minus arrival.
    pub hold: DelaySummary,
    /// Timers at the end of the replay (µs).
    pub final_gap_us: Option<f64>,
    pub final_block_us: Option<f64>,
    /// The VTAM tuning statistics counters of the queue.
    pub vtam: ReadQueueCounters,
    pub arrivals: TimeSeries,
    pub presents: TimeSeries,
    /// First arrivals (ns) and presentations (ns, frames) for the timeline.
    pub detail_arrivals: Vec<u64>,
    pub detail_presents: Vec<(u64, u32)>,
}

/// Whole-run totals and the accounting identity.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Totals {
    pub records: u64,
    /// Records the reader skipped, by reason, with the first of each.
    pub reader_skipped: BTreeMap<String, Skipped>,
    /// Frames read but not replayed because their headers cannot be used
    /// (cut by the snap length, malformed), by reason, with the first of
    /// each; never foreign.
    pub unusable: BTreeMap<String, Skipped>,
    /// Unusable frames the engine cannot read (cut, malformed) that it
    /// counted on an interface, the one owning their destination MAC:
    /// FRINVCT of its PRIMARY read queue (`queues[].vtam.frinvct`).
    pub invalid_charged: u64,
    /// Invalid frames counted on a port, not on an interface (the engine
    /// counts there a frame whose destination MAC no one interface owns:
    /// the port's own, shared by its interfaces, or a group address), by
    /// port name. Only ports with some.
    pub port_invalid: BTreeMap<String, u64>,
    pub inbound: u64,
    pub outbound: u64,
    /// ARP frames from an analysed interface's address: the adapter sends
    /// them itself (ARP offload), so the host never hands them over; not
    /// replayed.
    pub adapter_arp: u64,
    pub foreign: u64,
    /// Frames from an address to itself, or to or from 127.0.0.0/8 or ::1:
    /// a loopback device's traffic, which never crosses an adapter (a
    /// capture on `any` holds it); not replayed.
    pub loopback: u64,
    /// Inbound and outbound IP unicast frames to or from an analysed
    /// address (what `--address` hints are judged by: a broadcast or
    /// multicast frame matching says nothing of the host).
    pub matched_unicast: u64,
    /// What the capture itself suggests is wrong with it (taken above the
    /// NIC's offloads, on a loopback device, with VLAN tags the interface
    /// does not have), in words; empty when nothing does.
    pub warnings: Vec<String>,
    /// The addresses foreign frames carried most (source or destination),
    /// busiest first, at most [`FOREIGN_ADDRESSES_SHOWN`]: the candidates
    /// for `--address` (or `-i`) when no frame matched.
    pub foreign_addresses: Vec<ForeignAddress>,
    pub inbound_queued: u64,
    pub inbound_replicated: u64,
    pub inbound_forwarded: u64,
    pub inbound_handled: u64,
    pub inbound_dropped: BTreeMap<String, u64>,
    pub outbound_queued: BTreeMap<String, u64>,
    pub outbound_internal: u64,
    pub outbound_awaiting_arp: u64,
    pub outbound_dropped: BTreeMap<String, u64>,
    pub timestamps_backwards: u64,
    /// Packets the capture itself lost (pcapng interface statistics:
    /// dropped by the interface or the operating system while capturing);
    /// a warning says so when there are any.
    pub capture_dropped: u64,
    /// Set when the capture ended inside a record (the rest was replayed).
    pub truncated: Option<String>,
    pub duration_us: f64,
    /// Frames (not flows) of flows the flow table had no room for.
    pub flows_untracked: u64,
    /// Replayed frames (inbound, outbound) that carry no ports, so belong
    /// to no flow: ICMP, neighbour discovery, IP fragments after the first.
    pub portless: [u64; 2],
    /// How many such flows there were, counted up to
    /// [`UNTRACKED_FLOWS_COUNTED`] (at that, "at least").
    pub untracked_flow_count: u64,
    /// Engine accounting at the end (held should be 0 after the drain).
    pub engine_frames_in: u64,
    pub engine_presented: u64,
    pub engine_replicated: u64,
    pub engine_held: u64,
    pub engine_forwarded: u64,
    pub engine_handled: u64,
    pub engine_dropped: u64,
    pub balanced: bool,
    /// Deadlines that did not move when handled (should stay 0).
    pub stuck_timers: u64,
    /// Outbound packets with payload the captured host sent on a
    /// connection while this mode still held inbound payload of it: the
    /// capture answers what the mode had not yet presented, so where this
    /// is large (request/response traffic under long timers) the mode's
    /// hold and batching figures are of timing that could not happen.
    pub sent_before_presented: u64,
}

/// The longest IP packet an Ethernet frame carries (a 9000-byte jumbo
/// MTU): anything longer in a capture was merged or never cut up by the
/// host's NIC offloads.
const MAX_WIRE_IP_PACKET: u32 = 9000;

/// Distinct flows beyond the flow table counted at most (one hash of 8
/// bytes each: 8 MB at most).
pub const UNTRACKED_FLOWS_COUNTED: usize = 1 << 20;

/// Distinct addresses of foreign frames counted at most (later new ones
/// are not: the busiest of a capture show early).
pub const FOREIGN_ADDRESSES_TRACKED: usize = 4096;
/// Addresses of foreign frames reported.
pub const FOREIGN_ADDRESSES_SHOWN: usize = 3;

/// An address seen on frames not to or from the analysed interfaces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ForeignAddress {
    pub address: IpAddr,
    /// Foreign frames from or to it.
    pub frames: u64,
    /// The profile's interface registering it, when that one is not
    /// analysed (`-i` left it out).
    pub interface: Option<String>,
}

/// Everything one mode's replay produced.
#[derive(Clone, Debug, Serialize)]
pub struct ModeResult {
    pub mode: Mode,
    pub label: &'static str,
    /// Set when the mode could not be activated (then the rest is empty).
    pub unavailable: Option<String>,
    pub notes: Vec<String>,
    pub queues: Vec<QueueResult>,
    pub flows: Vec<FlowResult>,
    pub totals: Totals,
    pub write_queues: BTreeMap<String, WriteQueueCounters>,
    pub bulk_registrations: u64,
    pub bulk_deregistrations: u64,
    pub registrations_refused: u64,
    pub retunes: u64,
}

impl ModeResult {
    pub fn interrupts(&self) -> u64 {
        self.queues.iter().map(|q| q.interrupts).sum()
    }
    pub fn frames_presented(&self) -> u64 {
        self.queues.iter().map(|q| q.frames).sum()
    }
    /// Hold delay over every queue.
    pub fn queue(&self, iface: &str, q: QueueKind) -> Option<&QueueResult> {
        self.queues
            .iter()
            .find(|r| r.interface.eq_ignore_ascii_case(iface) && r.queue == q.label())
    }
    pub fn flow(&self, remote_port: u16) -> Option<&FlowResult> {
        self.flows.iter().find(|f| f.remote_port == remote_port)
    }
}

/// What happened to one record (for the annotated capture).
#[derive(Clone, Debug, PartialEq)]
pub enum Fate {
    Presented {
        interface: String,
        queue: QueueKind,
        at_ns: u64,
        hold_ns: u64,
        interrupt: bool,
        /// The queue's presentation that carried it (1, 2, ...) and how
        /// many frames that presentation carried: frames of one
        /// presentation share one interrupt.
        presentation: u64,
        frames: u32,
    },
    Outbound(String),
    Other(String),
}

impl Fate {
    pub fn comment(&self) -> String {
        match self {
            Fate::Presented {
                interface,
                queue,
                at_ns,
                hold_ns,
                interrupt,
                presentation,
                frames,
            } => format!(
                "softosa: {interface} queue {} {} presented at {:.3} us (+{:.3} us held), \
                 presentation {presentation} of the queue ({frames} frame{}, {})",
                queue.id(),
                queue.label(),
                *at_ns as f64 / 1000.0,
                *hold_ns as f64 / 1000.0,
                if *frames == 1 { "" } else { "s" },
                if *interrupt {
                    "with an interrupt"
                } else {
                    "without an interrupt"
                }
            ),
            Fate::Outbound(s) | Fate::Other(s) => format!("softosa: {s}"),
        }
    }
}

/// A record waiting for its fate, kept only while annotating.
pub struct PendingRecord {
    pub number: u64,
    pub ts_ns: i64,
    pub raw: Vec<u8>,
    pub orig_len: u32,
    pub capture_if: CaptureIf,
    pub fates: Vec<Fate>,
    /// Copies still to be presented.
    awaiting: u32,
}

impl PendingRecord {
    /// A record as the capture holds it, `(number, stamp, bytes)` and
    /// `(original length, interface)`, waiting for the fates of its copies
    /// (a skipped record comes with its one fate).
    fn as_captured(
        (number, ts_ns, raw): (u64, i64, &[u8]),
        (orig_len, capture_if): (u32, CaptureIf),
        fates: Vec<Fate>,
    ) -> PendingRecord {
        PendingRecord {
            number,
            ts_ns,
            raw: raw.to_vec(),
            orig_len,
            capture_if,
            fates,
            awaiting: 0,
        }
    }
}

/// Receives records in capture order once their fate is known.
pub trait AnnotationSink {
    fn record(&mut self, rec: &PendingRecord) -> std::io::Result<()>;
}

/// Progress callback: bytes read so far.
pub type Progress<'a> = &'a mut dyn FnMut(u64);

/// Direction of a replayed frame, from the analysed host's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Direction {
    Inbound,
    Outbound,
}

/// Sees every replayed frame with its direction (SMCAT, zERT).
pub trait FrameObserver {
    fn observe(&mut self, now_ns: u64, dir: Direction, info: &wire::FrameInfo, frame: &[u8]);
}

/// Optional attachments to one replay run.
#[derive(Default)]
pub struct Hooks<'a> {
    /// Receives every record with its fate, in capture order.
    pub sink: Option<&'a mut dyn AnnotationSink>,
    /// Sees every replayed frame.
    pub observers: Vec<&'a mut dyn FrameObserver>,
    /// Called with the bytes read so far (about every MiB).
    pub progress: Option<Progress<'a>>,
}

struct Subject {
    id: IfaceId,
    name: String,
    port: PortId,
    mac: Mac,
    version: IpVersion,
    layer: Layer,
    addrs: Vec<IpAddr>,
    /// Its stack (engine index), whose VIPAs are the host's addresses too.
    stack: usize,
}

#[derive(Default)]
struct FlowAcc {
    packets_in: u64,
    packets_out: u64,
    bytes_in: u64,
    bytes_out: u64,
    payload_in: u64,
    payload_out: u64,
    dropped_in: u64,
    dropped_out: u64,
    first: u64,
    last: u64,
    queues: [u64; 5],
    bulk_on: Option<u64>,
    bulk_off: Option<u64>,
    refused: bool,
    /// Inbound frames with payload queued and not yet presented.
    held: u32,
}

struct QueueAcc {
    hold: Histogram,
    interrupts: u64,
    presentations: u64,
    frames: u64,
    causes: BTreeMap<&'static str, u64>,
    arrivals: TimeSeries,
    presents: TimeSeries,
    detail_arrivals: Vec<u64>,
    detail_presents: Vec<(u64, u32)>,
}

impl QueueAcc {
    fn new() -> Self {
        QueueAcc {
            hold: Histogram::default(),
            interrupts: 0,
            presentations: 0,
            frames: 0,
            causes: BTreeMap::new(),
            arrivals: TimeSeries::new(512, 100_000),
            presents: TimeSeries::new(512, 100_000),
            detail_arrivals: Vec::new(),
            detail_presents: Vec::new(),
        }
    }
}

fn cause_label(c: PresentCause) -> &'static str {
    match c {
        PresentCause::GapTimer => "gap timer",
        PresentCause::BlockTimer => "block timer",
        PresentCause::Threshold => "threshold",
        PresentCause::Early => "early (OLM)",
        PresentCause::Immediate => "immediate",
    }
}

type FlowMapKey = (u8, IpAddr, u16, IpAddr, u16);

struct Run<'s> {
    engine: Engine,
    subjects: Vec<Subject>,
    /// Each stack's VIPAs ([`vipas`]).
    vipas: Vec<BTreeSet<IpAddr>>,
    /// The frame being replayed was stamped before an earlier one, so it
    /// is replayed at a time that is not its own.
    stamp_behind: bool,
    opts: ReplayOptions,
    totals: Totals,
    flows: BTreeMap<FlowMapKey, FlowAcc>,
    queues: BTreeMap<(usize, QueueKind), QueueAcc>,
    completions: VecDeque<(Instant, BatchId, IfaceId, QueueKind)>,
    scratch: Vec<u8>,
    tx_buf: Vec<u8>,
    sink: Option<&'s mut dyn AnnotationSink>,
    pending: VecDeque<PendingRecord>,
    /// Per (iface, queue): record numbers waiting there, with arrival.
    fifo: BTreeMap<(usize, QueueKind), VecDeque<(u64, Instant)>>,
    group: VecDeque<(u64, Instant)>,
    sink_error: Option<std::io::Error>,
    notes: Vec<String>,
    observers: Vec<&'s mut dyn FrameObserver>,
    /// Foreign frames per address (bounded: [`FOREIGN_ADDRESSES_TRACKED`]).
    foreign_addrs: BTreeMap<IpAddr, u64>,
    /// Counted here without a `String` per frame; put into the totals'
    /// maps (`inbound_dropped`, `outbound_dropped`, `outbound_queued`)
    /// when the result is built.
    inbound_dropped: DropCounts,
    outbound_dropped: DropCounts,
    /// Packets queued, by write queue number.
    outbound_queued: [u64; 1 << u8::BITS],
    /// Unusable frames by reason, in the order first met (a handful of
    /// reasons), counted without a `String` per frame: put into the
    /// totals' `unusable` by text when the result is built.
    unusable_by_reason: Vec<(unusable::Unusable, Skipped)>,
    facts: CaptureFacts,
    /// Hashes of the flows the flow table had no room for (bounded:
    /// [`UNTRACKED_FLOWS_COUNTED`]).
    untracked: std::collections::HashSet<u64>,
    /// Source MACs of the frames the host sent from an analysed address
    /// (at most [`HOST_MACS_KEPT`]): its own group frames come from them.
    host_macs: Vec<Mac>,
}

/// Source MACs of the host kept at most (a NIC per analysed interface).
const HOST_MACS_KEPT: usize = 16;

/// What the frames show about how the capture was taken, gathered as they
/// are classified and put into words as [`Totals::warnings`].
#[derive(Default)]
struct CaptureFacts {
    /// Per way (inbound, outbound): IP packets longer than their
    /// interface's MTU, the longest, and that interface.
    over_mtu: [(u64, u32, Option<usize>); 2],
    /// Frames from an address to itself, or to or from 127.0.0.0/8 or ::1.
    loopback: u64,
    /// Inbound frames whose VLAN tag is not their interface's: count, the
    /// first one's tag (`None`: untagged) and interface.
    vlan_mismatch: (u64, Option<u16>, usize),
    /// Inbound wire bytes per [`RATE_WINDOW_NS`], per port (by engine port
    /// index).
    inbound_rate: Vec<Burst>,
}

/// The busiest window of inbound traffic on one port: a window of
/// [`RATE_SLOTS`] slots of [`RATE_SLOT_NS`] that slides a slot at a time.
#[derive(Debug, Default, Clone, Copy)]
struct Burst {
    /// Bytes per slot, by slot number modulo [`RATE_SLOTS`], and the
    /// latest slot number seen.
    slots: [u64; RATE_SLOTS],
    slot: u64,
    /// The busiest window so far: the slot it ended in, and its bytes.
    peak_end: u64,
    peak_bytes: u64,
}

impl Burst {
    /// Count `bytes` arriving at `t_ns`, at or after every earlier arrival.
    fn add(&mut self, t_ns: u64, bytes: u64) {
        let slot = t_ns / RATE_SLOT_NS;
        // Clear the slots the window left since the latest arrival.
        let gone = slot.saturating_sub(self.slot).min(RATE_SLOTS as u64);
        for k in 1..=gone {
            self.slots[((self.slot + k) % RATE_SLOTS as u64) as usize] = 0;
        }
        self.slot = self.slot.max(slot);
        self.slots[(self.slot % RATE_SLOTS as u64) as usize] += bytes;
        let sum: u64 = self.slots.iter().sum();
        if sum > self.peak_bytes {
            (self.peak_end, self.peak_bytes) = (self.slot, sum);
        }
    }
}

/// The window a port's inbound rate is measured over ([`RATE_SLOTS`] ×
/// [`RATE_SLOT_NS`], 10 ms): long beside the bunching of a receiving host's
/// timestamps (it stamps a batch of frames at once, after they arrived over
/// up to a few hundred microseconds), short beside a burst.
const RATE_SLOTS: usize = 10;
const RATE_SLOT_NS: u64 = 1_000_000;
const RATE_WINDOW_NS: u64 = RATE_SLOTS as u64 * RATE_SLOT_NS;

/// Bytes a frame takes on an Ethernet wire beyond its captured length: the
/// frame check sequence (4), preamble and start delimiter (8) and the
/// inter-frame gap (12).
const WIRE_OVERHEAD: u64 = 24;

/// A port's inbound rate over its busiest window is reported when it is
/// above the port's speed by more than this share (timestamp bunching).
const OVER_SPEED_SLACK: f64 = 1.1;

/// Replay a capture under one mode.
pub fn replay_mode<R: Read>(
    mut reader: CaptureReader<R>,
    base: &SystemConfig,
    mode: Mode,
    opts: &ReplayOptions,
    hooks: Hooks<'_>,
) -> Result<ModeResult, ReplayError> {
    let Hooks {
        sink,
        observers,
        progress,
    } = hooks;
    let (cfg, notes, selected) = configure(base, mode, opts)?;
    let engine = match Engine::new(cfg) {
        Ok(e) => e,
        Err(e) => return Ok(unavailable(mode, e.to_string(), notes)),
    };
    let mut run = Run {
        subjects: subjects(&engine, &selected),
        vipas: vipas(&engine),
        stamp_behind: false,
        engine,
        opts: opts.clone(),
        totals: Totals::default(),
        flows: BTreeMap::new(),
        queues: BTreeMap::new(),
        completions: VecDeque::new(),
        scratch: Vec::with_capacity(2048),
        tx_buf: Vec::with_capacity(2048),
        sink,
        pending: VecDeque::new(),
        fifo: BTreeMap::new(),
        host_macs: Vec::new(),
        group: VecDeque::new(),
        sink_error: None,
        notes,
        observers,
        foreign_addrs: BTreeMap::new(),
        inbound_dropped: DropCounts::default(),
        outbound_dropped: DropCounts::default(),
        outbound_queued: [0; 1 << u8::BITS],
        unusable_by_reason: Vec::new(),
        facts: CaptureFacts::default(),
        untracked: std::collections::HashSet::new(),
    };
    run.register_extra()?;
    let mut progress = progress;
    let mut origin: Option<i64> = None;
    let mut latest_ts: Option<i64> = None;
    let mut clock = 0u64;
    let mut last_progress = 0u64;
    loop {
        let rec = match reader.next_entry() {
            Ok(Some(Entry::Record(rec))) => rec,
            // A record the reader left out is written back in its place
            // with its reason, so the annotated capture numbers its frames
            // as the original and the report do.
            Ok(Some(Entry::Skipped(rec))) => {
                if run.sink.is_some() {
                    run.pending.push_back(PendingRecord::as_captured(
                        (rec.number, rec.ts_ns, rec.raw),
                        (rec.orig_len, rec.capture_if),
                        vec![Fate::Other(format!("not replayed: {}", rec.reason))],
                    ));
                    run.flush_pending();
                }
                continue;
            }
            Ok(None) => break,
            // A capture cut short (tcpdump killed, disk full) still has
            // everything before the cut: replay that and say so. Cut in its
            // first record it has nothing: that is an error, not a replay
            // of an empty capture.
            // A damaged record length ends the readable part the same way.
            Err(e @ (CaptureError::Truncated { .. } | CaptureError::DamagedLength { .. }))
                if origin.is_some() =>
            {
                run.totals.truncated = Some(e.to_string());
                break;
            }
            Err(e) => return Err(e.into()),
        };
        let first = *origin.get_or_insert(rec.ts_ns);
        let rel = u64::try_from(rec.ts_ns.saturating_sub(first)).unwrap_or(0);
        // Against the latest stamp so far, not the clock: with the first
        // record stamped late, every later one falls before it (rel 0,
        // clock 0) and none would be counted, though each is replayed at
        // the first record's time.
        run.stamp_behind = latest_ts.is_some_and(|l| rec.ts_ns < l);
        if run.stamp_behind {
            run.totals.timestamps_backwards += 1;
        }
        latest_ts = Some(latest_ts.map_or(rec.ts_ns, |l| l.max(rec.ts_ns)));
        clock = clock.max(rel);
        let now = Instant::from_nanos(clock);
        run.advance(now);
        if run.sink.is_some() {
            run.pending.push_back(PendingRecord::as_captured(
                (rec.number, rec.ts_ns, rec.raw),
                (rec.orig_len, rec.capture_if),
                Vec::new(),
            ));
        }
        run.scratch.clear();
        run.scratch.extend_from_slice(rec.frame);
        run.frame(now, rec.number, rec.wire_len, rec.direction_hint);
        run.flush_pending();
        if let Some(p) = progress.as_mut() {
            let b = reader.bytes_read();
            if b - last_progress > 1 << 20 {
                p(b);
                last_progress = b;
            }
        }
    }
    if let Some(p) = progress.as_mut() {
        p(reader.bytes_read());
    }
    run.totals.records = reader.stats().records;
    run.totals.reader_skipped = reader.stats().skipped.clone();
    run.totals.capture_dropped = reader.stats().capture_dropped;
    run.totals.duration_us = clock as f64 / 1000.0;
    // Drain: every timer and completion after the last frame (bounded).
    run.advance(Instant::from_nanos(clock) + Duration::from_secs(30));
    run.finish_pending();
    if let Some(e) = run.sink_error.take() {
        return Err(ReplayError::Annotate(e));
    }
    Ok(run.result(mode))
}

fn unavailable(mode: Mode, why: String, notes: Vec<String>) -> ModeResult {
    ModeResult {
        mode,
        label: mode.label(),
        unavailable: Some(why),
        notes,
        queues: Vec::new(),
        flows: Vec::new(),
        totals: Totals::default(),
        write_queues: BTreeMap::new(),
        bulk_registrations: 0,
        bulk_deregistrations: 0,
        registrations_refused: 0,
        retunes: 0,
    }
}

/// Apply `mode` to the analysed interfaces of a copy of `base`.
/// The interfaces a replay analyses, as indices into `cfg.interfaces`:
/// those `wanted` names (`-i`, any case), or without names every OSA
/// interface (HiperSockets ones only when named).
pub fn analysed_interfaces(
    cfg: &SystemConfig,
    wanted: &[String],
) -> Result<Vec<usize>, ReplayError> {
    let selected: Vec<usize> = if wanted.is_empty() {
        cfg.interfaces
            .iter()
            .enumerate()
            .filter(|(_, i)| {
                cfg.ports
                    .get(i.port)
                    .is_some_and(|p| matches!(p.kind, PortKind::Osa { .. }))
            })
            .map(|(n, _)| n)
            .collect()
    } else {
        let mut v = Vec::new();
        for want in wanted {
            match cfg
                .interfaces
                .iter()
                .position(|i| i.name.eq_ignore_ascii_case(want))
            {
                Some(n) => v.push(n),
                None => {
                    let names: Vec<&str> = cfg.interfaces.iter().map(|i| i.name.as_str()).collect();
                    return Err(ReplayError::NoSuchInterface(want.clone(), names.join(", ")));
                }
            }
        }
        v
    };
    if selected.is_empty() {
        return Err(ReplayError::NoInterface);
    }
    Ok(selected)
}

fn configure(
    base: &SystemConfig,
    mode: Mode,
    opts: &ReplayOptions,
) -> Result<(SystemConfig, Vec<String>, Vec<String>), ReplayError> {
    let mut cfg = base.clone();
    let mut notes = Vec::new();
    let selected = analysed_interfaces(&cfg, &opts.interfaces)?;
    for &n in &selected {
        let i = &mut cfg.interfaces[n];
        let (perf, wq, olm) = match mode {
            Mode::Balanced => (InbPerf::Balanced, false, false),
            Mode::MinCpu => (InbPerf::MinCpu, false, false),
            Mode::MinLatency => (InbPerf::MinLatency, false, false),
            Mode::Dynamic => (InbPerf::Dynamic, false, false),
            Mode::DynamicWorkloadq => (InbPerf::Dynamic, true, false),
            Mode::Olm => (InbPerf::Dynamic, false, true),
        };
        i.inbperf = perf;
        i.workloadq = wq;
        i.olm = olm;
        if wq && i.vmac.is_none() {
            i.vmac = Some(VmacConfig {
                mac: None,
                route: VmacRoute::All,
            });
            notes.push(format!(
                "{}: WORKLOADQ needs a VMAC; an adapter-generated one was assumed",
                i.name
            ));
        }
    }
    let selected = selected
        .iter()
        .map(|&n| cfg.interfaces[n].name.clone())
        .collect();
    Ok((cfg, notes, selected))
}

/// The analysed interfaces, each with its own addresses, which decide a
/// frame's direction (with [`vipas`]).
fn subjects(engine: &Engine, selected: &[String]) -> Vec<Subject> {
    engine
        .interfaces()
        .iter()
        .filter(|i| i.active && selected.iter().any(|s| s.eq_ignore_ascii_case(&i.cfg.name)))
        .map(|i| Subject {
            id: i.id,
            name: i.cfg.name.clone(),
            port: PortId(i.cfg.port),
            mac: i.mac,
            version: i.cfg.ip_version,
            layer: i.cfg.layer,
            addrs: i.cfg.addresses.iter().map(|n: &IpNet| n.addr).collect(),
            stack: i.cfg.stack,
        })
        .collect()
}

/// Each stack's home addresses that are no interface's own (its VIPAs,
/// IPv4 and IPv6, both of which its interfaces register with the
/// adapter): traffic to one is the host's whichever interface carries it,
/// while another interface's address is that interface's traffic (foreign
/// unless it is analysed).
fn vipas(engine: &Engine) -> Vec<BTreeSet<IpAddr>> {
    let interface_addrs: BTreeSet<IpAddr> = engine
        .interfaces()
        .iter()
        .flat_map(|i| i.cfg.addresses.iter().map(|n| n.addr))
        .collect();
    engine
        .stacks()
        .iter()
        .map(|s| {
            s.home_addresses()
                .into_iter()
                .filter(|a| !interface_addrs.contains(a))
                .collect()
        })
        .collect()
}

fn version_of(ip: IpAddr) -> IpVersion {
    if ip.is_ipv6() {
        IpVersion::V6
    } else {
        IpVersion::V4
    }
}

impl Run<'_> {
    fn register_extra(&mut self) -> Result<(), ReplayError> {
        for &a in &self.opts.extra_addresses.clone() {
            let Some(s) = self
                .subjects
                .iter_mut()
                .find(|s| s.version == version_of(a))
            else {
                return Err(ReplayError::AddressVersion(a));
            };
            if !s.addrs.contains(&a) {
                s.addrs.push(a);
                self.engine.register_address(s.id, a);
            }
        }
        Ok(())
    }

    /// The subject that owns `ip`; for a VIPA of a subject's stack (which
    /// every interface of the stack carries), the one whose MAC is `mac`
    /// (the frame's, on the host's side) if one is, else the first.
    fn subject_owning(&self, ip: IpAddr) -> Option<usize> {
        self.subject_owning_at(ip, None)
    }

    fn subject_owning_at(&self, ip: IpAddr, mac: Option<Mac>) -> Option<usize> {
        if let Some(s) = self.subjects.iter().position(|s| s.addrs.contains(&ip)) {
            return Some(s);
        }
        let carries = |s: &Subject| {
            s.version == version_of(ip) && self.vipas.get(s.stack).is_some_and(|v| v.contains(&ip))
        };
        self.subjects
            .iter()
            .position(|s| carries(s) && Some(s.mac) == mac)
            .or_else(|| self.subjects.iter().position(carries))
    }

    fn subject_for_version(&self, v: IpVersion) -> Option<usize> {
        self.subjects
            .iter()
            .position(|s| s.version == v)
            .or(if self.subjects.is_empty() {
                None
            } else {
                Some(0)
            })
    }

    /// Run timers and host completions up to `target`, in time order.
    fn advance(&mut self, target: Instant) {
        let mut guard = 0u64;
        loop {
            let timer = self.engine.poll_timeout();
            let done = self.completions.front().map(|c| c.0);
            let next = match (timer, done) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) => a,
                (None, Some(b)) => b,
                (None, None) => return,
            };
            if next > target {
                return;
            }
            guard += 1;
            if guard > 10_000_000 {
                self.totals.stuck_timers += 1;
                return;
            }
            if done == Some(next) {
                if let Some((t, batch, iface, q)) = self.completions.pop_front() {
                    self.engine.complete_batch(t, batch);
                    self.engine.end_service(t, iface, q);
                }
            } else {
                self.engine.handle_timeout(next);
                if self.engine.poll_timeout() == Some(next) && done.is_none_or(|d| d > next) {
                    // A deadline that does not move would spin forever.
                    self.totals.stuck_timers += 1;
                    self.drain(next);
                    return;
                }
            }
            self.drain(next);
        }
    }

    /// Collect presentations (the host starts servicing each) and events.
    fn drain(&mut self, now: Instant) {
        while let Some(p) = self.engine.poll_presentation() {
            let iface_name = self
                .engine
                .interface(p.iface)
                .map(|i| i.cfg.name.clone())
                .unwrap_or_default();
            let detail_cap = self.opts.timeline_detail;
            let acc = self
                .queues
                .entry((p.iface.0, p.queue))
                .or_insert_with(QueueAcc::new);
            acc.presentations += 1;
            if p.interrupt {
                acc.interrupts += 1;
            }
            acc.frames += u64::from(p.frames);
            *acc.causes.entry(cause_label(p.cause)).or_default() += 1;

            let at = p.at.as_nanos();
            acc.presents.add(at, u64::from(p.frames));
            if in_window(self.opts.timeline_window, at) && acc.detail_presents.len() < detail_cap {
                acc.detail_presents.push((at, p.frames));
            }
            let mut arrivals: Vec<Instant> = Vec::new();
            let layer = self.engine.interface(p.iface).map(|i| i.cfg.layer);
            for f in self.engine.batch_frames(p.batch) {
                // Its flow no longer has this payload waiting: each frame
                // as presented (a group frame's copies too) tells its own.
                if let Some(k) = held_key(f.data, f.wire_len, layer) {
                    if let Some(flow) = self.flows.get_mut(&k) {
                        flow.held = flow.held.saturating_sub(1);
                    }
                }
                let hold = p.at.saturating_duration_since(f.arrival);
                acc.hold
                    .record(u64::try_from(hold.as_nanos()).unwrap_or(u64::MAX));
                if self.sink.is_some() {
                    arrivals.push(f.arrival);
                }
            }
            if self.sink.is_some() {
                let nth = (acc.presentations, p.frames);
                for arrival in arrivals {
                    self.annotate_presented(
                        &iface_name,
                        (p.iface, p.queue),
                        arrival,
                        p.at,
                        p.interrupt,
                        nth,
                    );
                }
            }
            self.engine.begin_service(now, p.iface, p.queue);
            self.completions
                .push_back((now + self.opts.host_service, p.batch, p.iface, p.queue));
        }
        while let Some(ev) = self.engine.poll_event() {
            match ev {
                Event::BulkRegistered { at, conn, .. } => {
                    if let Some(f) = self.flows.get_mut(&conn_key(&conn)) {
                        f.bulk_on.get_or_insert(at.as_nanos());
                    }
                }
                Event::BulkDeregistered { at, conn, .. } => {
                    if let Some(f) = self.flows.get_mut(&conn_key(&conn)) {
                        f.bulk_off = Some(at.as_nanos());
                    }
                }
                Event::RegistrationRefused { conn, .. } => {
                    if let Some(f) = self.flows.get_mut(&conn_key(&conn)) {
                        f.refused = true;
                    }
                }
                _ => {}
            }
        }
    }

    /// `nth`: the queue's presentation number and its frames.
    fn annotate_presented(
        &mut self,
        iface_name: &str,
        (iface, q): (IfaceId, QueueKind),
        arrival: Instant,
        at: Instant,
        interrupt: bool,
        (presentation, frames): (u64, u32),
    ) {
        let fate = Fate::Presented {
            interface: iface_name.to_string(),
            queue: q,
            at_ns: at.as_nanos(),
            hold_ns: u64::try_from(at.saturating_duration_since(arrival).as_nanos())
                .unwrap_or(u64::MAX),
            interrupt,
            presentation,
            frames,
        };
        let number = match self.fifo.get_mut(&(iface.0, q)) {
            Some(fifo) => {
                // Frames leave a queue in arrival order; skip any that never
                // will (should not happen) so the window stays bounded.
                while fifo.front().is_some_and(|(_, a)| *a < arrival) {
                    fifo.pop_front();
                }
                match fifo.front() {
                    Some((n, a)) if *a == arrival => {
                        let n = *n;
                        fifo.pop_front();
                        Some(n)
                    }
                    _ => None,
                }
            }
            None => None,
        };
        let number = number.or_else(|| {
            self.group
                .iter()
                .find(|(_, a)| *a == arrival)
                .map(|(n, _)| *n)
        });
        let Some(number) = number else { return };
        if let Some(p) = self.pending.iter_mut().find(|p| p.number == number) {
            p.fates.push(fate);
            p.awaiting = p.awaiting.saturating_sub(1);
            if p.awaiting == 0 {
                self.group.retain(|(n, _)| *n != number);
            }
        }
    }

    /// Note what became of frame `number` for the annotated capture; the
    /// text is built only when there is one.
    fn settle(&mut self, number: u64, fate: impl FnOnce() -> Fate) {
        if self.sink.is_none() {
            return;
        }
        if let Some(p) = self.pending.iter_mut().rev().find(|p| p.number == number) {
            p.fates.push(fate());
        }
    }

    fn expect(
        &mut self,
        number: u64,
        at: Instant,
        where_: Option<(usize, QueueKind)>,
        copies: u32,
    ) {
        if self.sink.is_none() {
            return;
        }
        if let Some(p) = self.pending.iter_mut().rev().find(|p| p.number == number) {
            p.awaiting = copies;
        }
        match where_ {
            Some(k) => self.fifo.entry(k).or_default().push_back((number, at)),
            None => self.group.push_back((number, at)),
        }
    }

    fn flush_pending(&mut self) {
        let Some(sink) = self.sink.as_mut() else {
            return;
        };
        while self.pending.front().is_some_and(|p| p.awaiting == 0) {
            if let Some(p) = self.pending.pop_front() {
                let mut p = p;
                if p.fates.is_empty() {
                    p.fates.push(Fate::Other("not replayed".into()));
                }
                if self.sink_error.is_none() {
                    if let Err(e) = sink.record(&p) {
                        self.sink_error = Some(e);
                    }
                }
            }
        }
    }

    fn finish_pending(&mut self) {
        for p in self.pending.iter_mut() {
            if p.awaiting > 0 {
                p.fates.push(Fate::Other("still held at the end".into()));
                p.awaiting = 0;
            }
        }
        self.flush_pending();
    }

    /// Count what frame `info`, going `way` on subject `s`, says of the
    /// capture ([`CaptureFacts`]). A loopback frame's size is the loopback
    /// device's, which says nothing of offloads.
    #[allow(clippy::too_many_arguments)]
    fn note_facts(
        &mut self,
        now: Instant,
        wire_len: u32,
        way: Way,
        s: usize,
        info: &FrameInfo,
        group: bool,
        looped: bool,
    ) {
        let Some(iface) = self.engine.interface(self.subjects[s].id) else {
            return;
        };
        // A frame replayed at a later stamp than its own (the capture's
        // stamps went backwards) would crowd into that stamp's window.
        if way == Way::In && !looped && !self.stamp_behind {
            let port = iface.cfg.port;
            let rates = &mut self.facts.inbound_rate;
            if rates.len() <= port {
                rates.resize(port + 1, Burst::default());
            }
            if let Some(b) = rates.get_mut(port) {
                b.add(now.as_nanos(), u64::from(wire_len) + WIRE_OVERHEAD);
            }
        }
        if let Some(ip) = info.ip() {
            if !group {
                self.totals.matched_unicast += 1;
            }
            let w = match way {
                Way::In => 0,
                Way::Out => 1,
            };
            // A large send is the adapter's to cut up when the stack
            // offloads segmentation; otherwise no stack hands over more
            // than its MTU, and no adapter receives it.
            let offloads = way == Way::Out
                && self
                    .engine
                    .stacks()
                    .get(iface.cfg.stack)
                    .is_some_and(|st| st.cfg.segmentation_offload);
            if ip.total_len > iface.mtu && !offloads && !looped {
                let f = &mut self.facts.over_mtu[w];
                f.0 += 1;
                f.1 = f.1.max(ip.total_len);
                f.2.get_or_insert(s);
            }
        }
        if way == Way::In {
            let tag = info.l2.and_then(|l| l.vlan);
            if tag != iface.cfg.vlan {
                let f = &mut self.facts.vlan_mismatch;
                if f.0 == 0 {
                    (f.1, f.2) = (tag, s);
                }
                f.0 += 1;
            }
        }
    }

    /// [`Totals::warnings`]: the capture facts in words.
    fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let f = &self.facts;
        let name = |s: usize| self.subjects.get(s).map_or("?", |x| x.name.as_str());
        let mtu = |s: usize| {
            self.subjects
                .get(s)
                .and_then(|x| self.engine.interface(x.id))
                .map_or(0, |i| i.mtu)
        };
        for (w, (n, longest, s)) in f.over_mtu.iter().enumerate() {
            let Some(s) = *s else { continue };
            let way = if w == 0 { "inbound" } else { "outbound" };
            let wire_sized = *longest <= MAX_WIRE_IP_PACKET;
            let (packets, are, longest) = if *n == 1 {
                (
                    format!("1 {way} IP packet"),
                    "is",
                    format!("{longest} bytes"),
                )
            } else {
                (
                    format!("{n} {way} IP packets"),
                    "are",
                    format!("the longest {longest} bytes"),
                )
            };
            if wire_sized {
                // Packets an Ethernet frame holds: the network's MTU is
                // larger than the profile's, not an offload at work.
                out.push(format!(
                    "{packets} {are} longer than {}'s MTU of {} ({longest}): the capture's \
                     network carries larger packets than the profile allows; check the \
                     INTERFACE statement's MTU",
                    name(s),
                    mtu(s)
                ));
                continue;
            }
            let (offload, off) = if w == 0 {
                (
                    "receive offload (GRO or LRO), which merges the frames of the wire",
                    "gro off lro off",
                )
            } else {
                // Without SEGMENTATIONOFFLOAD the z/OS stack cuts its sends
                // to the MTU itself; the adapter segments only when told to.
                (
                    "segmentation offload (TSO or GSO), which cuts large sends into frames; \
                     the profile has no GLOBALCONFIG SEGMENTATIONOFFLOAD, so the stack itself \
                     would have cut large sends to the MTU",
                    "tso off gso off",
                )
            };
            out.push(format!(
                "{packets} {are} longer than {}'s MTU of {} ({longest}): the capture was \
                 taken above the NIC's {offload}. The adapter never sees such packets, so \
                 frame, interrupt and per-interrupt counts are not the wire's; capture \
                 with the offloads off (ethtool -K IF {off}) or on a mirror port",
                name(s),
                mtu(s)
            ));
        }
        for (port, b) in f.inbound_rate.iter().enumerate() {
            let Some(PortKind::Osa { speed_mbps, .. }) =
                self.engine.ports().get(port).map(|p| p.cfg.kind)
            else {
                continue;
            };
            // Bits per microsecond are Mb/s.
            let mbps = b.peak_bytes as f64 * 8.0 / (RATE_WINDOW_NS as f64 / 1000.0);
            if b.peak_bytes == 0 || mbps <= f64::from(speed_mbps) * OVER_SPEED_SLACK {
                continue;
            }
            let port_name = self
                .engine
                .ports()
                .get(port)
                .map_or("?", |p| p.cfg.name.as_str());
            // The port carries all its interfaces' frames: name them all.
            let on_port: Vec<&str> = self
                .subjects
                .iter()
                .filter(|x| x.port.0 == port)
                .map(|x| x.name.as_str())
                .collect();
            out.push(format!(
                "inbound frames on port {port_name} (for {}) arrive at up to {} Mb/s (over \
                 the {} ms from {:.2} s into the capture), faster than its {speed_mbps} \
                 Mb/s: \
                 the capture's network is faster than the port the replay models. The \
                 replay keeps the captured times, so the adapter sees arrivals its wire \
                 could not carry and the queues and timers see more per interval than they \
                 would; give the port's speed with --port-speed",
                on_port.join(" and "),
                mbps.round(),
                RATE_WINDOW_NS / 1_000_000,
                ((b.peak_end + 1) * RATE_SLOT_NS).saturating_sub(RATE_WINDOW_NS) as f64 / 1e9,
            ));
        }
        if f.loopback > 0 {
            out.push(format!(
                "{} from an address to itself or to or from a loopback address: \
                 traffic on a loopback device never crosses an adapter, so it is not \
                 replayed (was the capture taken on lo, or on any?)",
                if f.loopback == 1 {
                    "1 frame goes".to_string()
                } else {
                    format!("{} frames go", f.loopback)
                }
            ));
        }
        let (n, tag, s) = f.vlan_mismatch;
        if n > 0 {
            let has = self
                .subjects
                .get(s)
                .and_then(|x| self.engine.interface(x.id))
                .and_then(|i| i.cfg.vlan);
            let (carried, fix) = match (tag, has) {
                (None, Some(v)) => (
                    "no VLAN tag".to_string(),
                    format!(
                        "a capture taken on a VLAN device (such as eth0.{v}) shows no tags: \
                         replay it with a copy of the profile without VLANID"
                    ),
                ),
                (Some(t), _) => (
                    format!("VLAN ID {t}"),
                    format!("give the INTERFACE statement VLANID {t}, or check the capture"),
                ),
                (None, None) => (String::new(), String::new()),
            };
            out.push(format!(
                "{} interface's VLAN (the first: {carried}, where {} has {}): the \
                 adapter drops {}; {fix}",
                if n == 1 {
                    "1 inbound frame does not carry its".to_string()
                } else {
                    format!("{n} inbound frames do not carry their")
                },
                name(s),
                has.map_or("no VLANID".to_string(), |v| format!("VLANID {v}")),
                if n == 1 { "it" } else { "them" }
            ));
        }
        out
    }

    /// Classify and feed one frame (in `self.scratch`).
    fn frame(&mut self, now: Instant, number: u64, wire_len: u32, hint: Option<DirectionHint>) {
        // A frame whose headers cannot be read has no direction: it is
        // counted under its own reason, never as foreign traffic.
        let info = match unusable::check(&self.scratch, wire_len) {
            Ok(info) => info,
            Err(why) => {
                self.settle(number, || Fate::Other(format!("not replayed: {why}")));
                match self.unusable_by_reason.iter_mut().find(|(u, _)| *u == why) {
                    Some((_, s)) => s.count += 1,
                    None => self.unusable_by_reason.push((
                        why,
                        Skipped {
                            count: 1,
                            first_record: number,
                        },
                    )),
                }
                if why.is_invalid_frame() {
                    self.charge_invalid(hint);
                }
                return;
            }
        };
        let (src_ip, dst_ip) = match &info.net {
            NetInfo::Ip(ip, _) => (Some(ip.src), Some(ip.dst)),
            NetInfo::Arp(a) => (Some(IpAddr::V4(a.sender_ip)), Some(IpAddr::V4(a.target_ip))),
            _ => (None, None),
        };
        let is_arp = matches!(info.net, NetInfo::Arp(_));
        let dst_mac = info.l2.map(|l| l.dst);
        let src_mac = info.l2.map(|l| l.src);
        let from_us = src_ip.and_then(|ip| self.subject_owning_at(ip, src_mac));
        let to_us = dst_ip.and_then(|ip| self.subject_owning_at(ip, dst_mac));
        let to_mac = dst_mac.and_then(|m| self.subjects.iter().position(|s| s.mac == m));
        let group = dst_mac.is_some_and(|m| m.is_group());
        let version = src_ip.map(version_of).unwrap_or(IpVersion::V4);
        // (A gratuitous ARP names one address twice on any LAN.)
        let looped = match (src_ip, dst_ip, is_arp) {
            (Some(a), Some(b), false) => a == b || a.is_loopback() || b.is_loopback(),
            _ => false,
        };
        if looped {
            self.facts.loopback += 1;
            self.totals.loopback += 1;
            self.settle(number, || {
                Fate::Other("loopback traffic, which never crosses an adapter: not replayed".into())
            });
            return;
        }
        if from_us.is_some() && is_arp {
            // The adapter answers ARP itself (ARP offload): the host never
            // hands it such a frame.
            self.totals.adapter_arp += 1;
            self.settle(number, || {
                Fate::Other("ARP the adapter sends itself (ARP offload): not replayed".into())
            });
            return;
        }
        if let (Some(_), Some(m)) = (from_us, src_mac) {
            if !self.host_macs.contains(&m) && self.host_macs.len() < HOST_MACS_KEPT {
                self.host_macs.push(m);
            }
        }
        // A group frame from a link-local or unspecified address, from the
        // MAC the host's own unicast frames come from, is the host's (an
        // mDNS or router solicitation, from an address no profile lists):
        // sent, not received. Only such sources: across a routed hop that
        // MAC is the router's, whose own group frames come from addresses
        // of its own.
        let unlisted_source = src_ip.is_some_and(|ip| match ip {
            IpAddr::V4(a) => a.is_link_local() || a.is_unspecified(),
            IpAddr::V6(a) => (a.segments()[0] & 0xffc0) == 0xfe80 || a.is_unspecified(),
        });
        let own_group =
            group && unlisted_source && src_mac.is_some_and(|m| self.host_macs.contains(&m));
        let decision = if let Some(s) = from_us {
            Some((Way::Out, s))
        } else if let Some(s) = to_us.or(to_mac) {
            Some((Way::In, s))
        } else if own_group {
            self.subject_for_version(version).map(|s| (Way::Out, s))
        } else if group {
            self.subject_for_version(version).map(|s| (Way::In, s))
        } else {
            match hint {
                Some(DirectionHint::ToHost) => {
                    self.subject_for_version(version).map(|s| (Way::In, s))
                }
                Some(DirectionHint::FromHost) => {
                    self.subject_for_version(version).map(|s| (Way::Out, s))
                }
                _ => None,
            }
        };
        let Some((way, s)) = decision else {
            self.totals.foreign += 1;
            let dst = dst_ip.filter(|d| Some(*d) != src_ip);
            for ip in [src_ip, dst].into_iter().flatten() {
                let tracked = self.foreign_addrs.len() < FOREIGN_ADDRESSES_TRACKED;
                match self.foreign_addrs.get_mut(&ip) {
                    Some(n) => *n += 1,
                    None if tracked => {
                        self.foreign_addrs.insert(ip, 1);
                    }
                    None => {}
                }
            }
            self.settle(number, || {
                Fate::Other("not to or from the analysed interfaces: not replayed".into())
            });
            return;
        };
        self.note_facts(now, wire_len, way, s, &info, group, looped);
        let flow = info.flow();
        let payload = info
            .l4()
            .map(|l4| match l4 {
                L4Info::Tcp { payload_len, .. } | L4Info::Udp { payload_len, .. } => *payload_len,
                L4Info::Other => 0,
            })
            .unwrap_or(0);
        let fkey = flow.map(|f| match way {
            Way::In => (f.proto, f.dst, f.dst_port, f.src, f.src_port),
            Way::Out => (f.proto, f.src, f.src_port, f.dst, f.dst_port),
        });
        if fkey.is_none() && matches!(info.net, NetInfo::Ip(..)) {
            self.totals.portless[usize::from(way == Way::Out)] += 1;
        }
        let rel = now.as_nanos();
        // The flow's entry exists before the engine sees the frame (the
        // queue it lands on is counted there, bulk events look it up); the
        // frame counts as carried or as dropped once the engine has said.
        if let Some(k) = fkey {
            if !self.flows.contains_key(&k) && self.flows.len() >= self.opts.max_flows {
                self.totals.flows_untracked += 1;
                if self.untracked.len() < UNTRACKED_FLOWS_COUNTED {
                    // SipHash with fixed keys: the same count every run.
                    use std::hash::{Hash, Hasher};
                    let mut h = std::hash::DefaultHasher::new();
                    k.hash(&mut h);
                    self.untracked.insert(h.finish());
                }
            } else {
                let f = self.flows.entry(k).or_insert_with(|| FlowAcc {
                    first: rel,
                    ..FlowAcc::default()
                });
                f.last = rel;
            }
        }
        let dir = match way {
            Way::In => Direction::Inbound,
            Way::Out => Direction::Outbound,
        };
        for o in self.observers.iter_mut() {
            o.observe(rel, dir, &info, &self.scratch);
        }
        if way == Way::Out
            && payload > 0
            && fkey
                .and_then(|k| self.flows.get(&k))
                .is_some_and(|f| f.held > 0)
        {
            self.totals.sent_before_presented += 1;
        }
        let carried = match way {
            Way::In => self.inbound(now, number, s, wire_len, to_us.is_some(), (fkey, payload)),
            Way::Out => self.outbound(now, number, s, wire_len, &info),
        };
        if let Some(f) = fkey.and_then(|k| self.flows.get_mut(&k)) {
            match (way, carried) {
                (Way::In, true) => {
                    f.packets_in += 1;
                    f.bytes_in += u64::from(wire_len);
                    f.payload_in += u64::from(payload);
                }
                (Way::Out, true) => {
                    f.packets_out += 1;
                    f.bytes_out += u64::from(wire_len);
                    f.payload_out += u64::from(payload);
                }
                (Way::In, false) => f.dropped_in += 1,
                (Way::Out, false) => f.dropped_out += 1,
            }
        }
        self.drain(now);
    }

    /// Count a frame the engine's parser refuses (cut or malformed: see
    /// [`unusable::Unusable::is_invalid_frame`]) where the engine counts a
    /// frame it cannot read ([`Engine::count_unreadable`]: on the interface
    /// owning its destination MAC, else on the port), had it been given
    /// the frame as it is given a readable one: on the port of the
    /// analysed interface it is addressed to (by IP address when the
    /// capture kept it, with that interface's MAC as [`Run::inbound`]
    /// gives a unicast frame, else by MAC), or of the interface for its IP
    /// version for a group frame or one the capture marks as to the host.
    /// A frame sent by the host never reached the adapter's input side,
    /// and one to and from other hosts (or whose destination is lost)
    /// would not have, as far as can be known: neither is counted.
    fn charge_invalid(&mut self, hint: Option<DirectionHint>) {
        let a = unusable::addresses(&self.scratch);
        let from_us = a.src_ip.and_then(|ip| self.subject_owning(ip)).is_some();
        if from_us || hint == Some(DirectionHint::FromHost) {
            return;
        }
        let group = a.dst_mac.is_some_and(|m| m.is_group());
        let to = if let Some(s) = a.dst_ip.and_then(|ip| self.subject_owning(ip)) {
            let mac = if group {
                a.dst_mac
            } else {
                Some(self.subjects[s].mac)
            };
            Some((s, mac))
        } else if let Some(s) = a
            .dst_mac
            .and_then(|m| self.subjects.iter().position(|s| s.mac == m))
        {
            Some((s, a.dst_mac))
        } else if group || hint == Some(DirectionHint::ToHost) {
            let version = if a.ipv6 { IpVersion::V6 } else { IpVersion::V4 };
            self.subject_for_version(version).map(|s| (s, a.dst_mac))
        } else {
            None
        };
        let Some((s, mac)) = to else { return };
        let port = self.subjects[s].port;
        if let Some(InvalidAt::Interface(_)) = self.engine.count_unreadable(port, mac) {
            self.totals.invalid_charged += 1;
        }
    }

    fn inbound(
        &mut self,
        now: Instant,
        number: u64,
        s: usize,
        wire_len: u32,
        rewrite: bool,
        (fkey, payload): (Option<FlowMapKey>, u32),
    ) -> bool {
        self.totals.inbound += 1;
        let subj = &self.subjects[s];
        if rewrite && self.scratch.len() >= 6 && self.scratch[0] & 1 == 0 {
            self.scratch[..6].copy_from_slice(&subj.mac.0);
        }
        let port = subj.port;
        // The engine counts each dropped copy of a group frame, under its
        // reason; the difference tells them.
        let drops_before = self.engine.counters().dropped_in.clone();
        let d = self.engine.handle_wire_frame(
            now,
            port,
            Frame {
                data: &self.scratch,
                wire_len,
            },
        );
        match d {
            Disposition::Queued { iface, queue } => {
                self.totals.inbound_queued += 1;
                let acc = self
                    .queues
                    .entry((iface.0, queue))
                    .or_insert_with(QueueAcc::new);
                acc.arrivals.add(now.as_nanos(), 1);
                if in_window(self.opts.timeline_window, now.as_nanos())
                    && acc.detail_arrivals.len() < self.opts.timeline_detail
                {
                    acc.detail_arrivals.push(now.as_nanos());
                }
                if let Some(f) = fkey.and_then(|k| self.flows.get_mut(&k)) {
                    f.queues[queue.index()] += 1;
                    if payload > 0 {
                        f.held += 1;
                    }
                }
                self.expect(number, now, Some((iface.0, queue)), 1);
            }
            Disposition::Replicated { copies } => {
                self.totals.inbound_replicated += 1;
                let dropped = copies_dropped(&drops_before, &self.engine.counters().dropped_in);
                for (r, n) in &dropped {
                    self.inbound_dropped.0[r.index()] += n;
                }
                let why = || {
                    dropped
                        .iter()
                        .map(|(r, n)| format!("{n}: {}", r.label()))
                        .collect::<Vec<_>>()
                        .join("; ")
                };
                if copies == 0 {
                    // Nothing reached a stack: the frame was not carried.
                    self.settle(number, || {
                        Fate::Other(format!("dropped inbound, every copy ({})", why()))
                    });
                    return false;
                }
                if !dropped.is_empty() {
                    self.settle(number, || {
                        Fate::Other(format!("some copies dropped inbound ({})", why()))
                    });
                }
                self.expect(number, now, None, copies);
            }
            Disposition::Forwarded { out } => {
                self.totals.inbound_forwarded += 1;
                self.settle(number, || {
                    Fate::Other(format!(
                        "forwarded by the accelerator to interface {}",
                        out.0
                    ))
                });
            }
            Disposition::Handled => {
                self.totals.inbound_handled += 1;
                self.settle(number, || {
                    Fate::Other("handled by the adapter (ARP offload)".into())
                });
            }
            Disposition::Dropped(r) => {
                self.inbound_dropped.add(r);
                self.settle(number, || {
                    Fate::Other(format!("dropped inbound: {}", r.label()))
                });
                return false;
            }
        }
        true
    }

    fn outbound(
        &mut self,
        now: Instant,
        number: u64,
        s: usize,
        wire_len: u32,
        info: &FrameInfo,
    ) -> bool {
        self.totals.outbound += 1;
        let subj = &self.subjects[s];
        let (id, port, layer) = (subj.id, subj.port, subj.layer);
        let l2len = info.l2.map_or(0, |l| usize::from(l.header_len));
        // Tell the adapter the next hop's MAC the capture shows (it would
        // have learned it by ARP before this traffic started).
        if let (Some(l), Some(ip)) = (info.l2, info.ip()) {
            if !l.dst.is_group() {
                self.engine.add_neighbor(port, ip.dst, l.dst);
            }
        }
        let (data, len) = match layer {
            Layer::Layer3 => (
                self.scratch.get(l2len..).unwrap_or(&[]),
                wire_len.saturating_sub(l2len as u32),
            ),
            Layer::Layer2 => (&self.scratch[..], wire_len),
        };
        let meta = SendMeta {
            end_of_write: true,
            ..SendMeta::default()
        };
        let r = self.engine.handle_host_send(
            now,
            id,
            Frame {
                data,
                wire_len: len,
            },
            meta,
        );
        match r {
            Ok(SendOutcome::Queued { queue, .. }) => {
                self.outbound_queued[usize::from(queue)] += 1;
            }
            Ok(SendOutcome::DeliveredInternally { .. }) => self.totals.outbound_internal += 1,
            Ok(SendOutcome::AwaitingArp) => self.totals.outbound_awaiting_arp += 1,
            Err(r) => self.outbound_dropped.add(r),
        }
        // Comments name the interfaces: a capture may hold several.
        let name_of = |i: IfaceId| {
            self.engine
                .interface(i)
                .map_or_else(|| format!("interface {}", i.0), |x| x.cfg.name.clone())
        };
        let from = name_of(id);
        let what = match r {
            Ok(SendOutcome::Queued { queue, .. }) => {
                format!("{from} outbound on write queue {queue}")
            }
            Ok(SendOutcome::DeliveredInternally { to }) => format!(
                "{from} outbound, delivered inside the adapter to {}",
                name_of(to)
            ),
            Ok(SendOutcome::AwaitingArp) => format!("{from} outbound, waiting for ARP"),
            Err(r) => format!("{from} outbound dropped: {}", r.label()),
        };
        self.settle(number, || Fate::Outbound(what));
        while self
            .engine
            .poll_transmit(now, port, &mut self.tx_buf)
            .is_some()
        {}
        r.is_ok()
    }

    fn result(mut self, mode: Mode) -> ModeResult {
        let acc = self.engine.accounting();
        let t = &mut self.totals;
        t.engine_frames_in = acc.frames_in;
        t.engine_presented = acc.presented;
        t.engine_replicated = acc.replicated;
        t.engine_held = acc.held;
        t.engine_forwarded = acc.forwarded;
        t.engine_handled = acc.handled;
        t.engine_dropped = acc.dropped;
        t.balanced = acc.balanced();
        let mut warnings = self.warnings();
        let t = &mut self.totals;
        if t.capture_dropped > 0 {
            // First: it qualifies every figure of the report.
            warnings.insert(
                0,
                format!(
                    "the capture itself lost {} packet{} (its interface statistics count \
                     them as dropped while capturing, against {} captured): the replay sees \
                     only part of the traffic, so its interrupt, batching and delay \
                     figures are those of that part",
                    t.capture_dropped,
                    if t.capture_dropped == 1 { "" } else { "s" },
                    t.records
                ),
            );
        }
        t.warnings = warnings;
        t.untracked_flow_count = self.untracked.len() as u64;
        let by_label = |c: &DropCounts| {
            c.nonzero()
                .map(|(r, n)| (r.label().to_string(), n))
                .collect()
        };
        t.inbound_dropped = by_label(&self.inbound_dropped);
        t.outbound_dropped = by_label(&self.outbound_dropped);
        t.unusable = self
            .unusable_by_reason
            .iter()
            .map(|(why, s)| (why.to_string(), *s))
            .collect();
        t.outbound_queued = (0u8..=u8::MAX)
            .zip(self.outbound_queued)
            .filter(|(_, n)| *n > 0)
            .map(|(q, n)| (format!("WR/{q}"), n))
            .collect();
        let mut busiest: Vec<(IpAddr, u64)> =
            self.foreign_addrs.iter().map(|(a, n)| (*a, *n)).collect();
        busiest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        t.foreign_addresses = busiest
            .into_iter()
            .take(FOREIGN_ADDRESSES_SHOWN)
            .map(|(address, frames)| ForeignAddress {
                address,
                frames,
                interface: self
                    .engine
                    .interfaces()
                    .iter()
                    .find(|i| i.cfg.addresses.iter().any(|n| n.addr == address))
                    .map(|i| i.cfg.name.clone()),
            })
            .collect();
        let mut queues = Vec::new();
        let mut retunes = 0;
        let mut write_queues = BTreeMap::new();
        let mut ports: Vec<usize> = self.subjects.iter().map(|s| s.port.0).collect();
        ports.sort_unstable();
        ports.dedup();
        for p in ports {
            let Some(port) = self.engine.ports().get(p) else {
                continue;
            };
            if port.frinvct > 0 {
                t.port_invalid.insert(port.cfg.name.clone(), port.frinvct);
            }
        }
        for s in &self.subjects {
            let Some(iface) = self.engine.interface(s.id) else {
                continue;
            };
            for k in QueueKind::ALL {
                let Some(rq) = iface.queue(k) else { continue };
                let acc = self
                    .queues
                    .remove(&(s.id.0, k))
                    .unwrap_or_else(QueueAcc::new);
                retunes += rq.q.counters.retunes;
                let timers = self.engine.timers(s.id, k);
                let vtam = rq.q.counters.clone();
                queues.push(QueueResult {
                    interface: s.name.clone(),
                    queue: k.label().to_string(),
                    queue_id: k.id(),
                    interrupts: acc.interrupts,
                    presentations: acc.presentations,
                    frames: acc.frames,
                    packets_per_interrupt: (acc.interrupts > 0)
                        .then(|| acc.frames as f64 / acc.interrupts as f64),
                    packets_per_presentation: (acc.presentations > 0)
                        .then(|| acc.frames as f64 / acc.presentations as f64),
                    by_cause: acc
                        .causes
                        .iter()
                        .map(|(k, v)| (k.to_string(), *v))
                        .collect(),
                    hold: acc.hold.summary(),
                    final_gap_us: timers.map(|t| t.gap.as_nanos() as f64 / 1000.0),
                    final_block_us: timers.map(|t| t.block.as_nanos() as f64 / 1000.0),
                    vtam,
                    arrivals: acc.arrivals,
                    presents: acc.presents,
                    detail_arrivals: acc.detail_arrivals,
                    detail_presents: acc.detail_presents,
                });
            }
            for (n, wq) in iface.writes.iter().enumerate() {
                if wq.counters.packcnt > 0 || wq.counters.discards > 0 {
                    write_queues.insert(format!("{} WR/{}", s.name, n + 1), wq.counters.clone());
                }
            }
        }
        let flows = self
            .flows
            .iter()
            .map(|(k, f)| FlowResult {
                proto: FlowProto(k.0),
                local: k.1,
                local_port: k.2,
                remote: k.3,
                remote_port: k.4,
                packets_in: f.packets_in,
                packets_out: f.packets_out,
                bytes_in: f.bytes_in,
                bytes_out: f.bytes_out,
                payload_in: f.payload_in,
                payload_out: f.payload_out,
                dropped_in: f.dropped_in,
                dropped_out: f.dropped_out,
                first_us: f.first as f64 / 1000.0,
                last_us: f.last as f64 / 1000.0,
                queues: FlowQueues(f.queues),
                bulk_registered_us: f.bulk_on.map(|t| t as f64 / 1000.0),
                bulk_deregistered_us: f.bulk_off.map(|t| t as f64 / 1000.0),
                bulk_refused: f.refused,
            })
            .collect();
        let (mut reg, mut dereg, mut refused) = (0, 0, 0);
        for st in self.engine.stacks() {
            reg += st.counters.bulk_registrations;
            dereg += st.counters.bulk_deregistrations;
            refused += st.counters.registrations_refused;
        }
        ModeResult {
            mode,
            label: mode.label(),
            unavailable: None,
            notes: self.notes,
            queues,
            flows,
            totals: self.totals,
            write_queues,
            bulk_registrations: reg,
            bulk_deregistrations: dereg,
            registrations_refused: refused,
            retunes,
        }
    }
}

/// The inbound drops counted between two snapshots of the engine's
/// counters, by reason.
/// The flow (as an inbound frame's: local end first) of a presented frame
/// that carries payload, as [`Run::frame`] keys it: what its presentation
/// no longer holds. A layer-3 interface presents the IP packet, a layer-2
/// one the Ethernet frame.
fn held_key(data: &[u8], wire_len: u32, layer: Option<Layer>) -> Option<FlowMapKey> {
    let frame = Frame { data, wire_len };
    let info = match layer? {
        Layer::Layer3 => wire::parse_ip_frame(frame),
        Layer::Layer2 => wire::parse_ethernet_frame(frame),
    }
    .ok()?;
    let payload = match info.l4()? {
        L4Info::Tcp { payload_len, .. } | L4Info::Udp { payload_len, .. } => *payload_len,
        L4Info::Other => 0,
    };
    let f = info.flow().filter(|_| payload > 0)?;
    Some((f.proto, f.dst, f.dst_port, f.src, f.src_port))
}

fn copies_dropped(before: &DropCounts, after: &DropCounts) -> Vec<(DropReason, u64)> {
    DropReason::ALL
        .iter()
        .map(|r| (*r, after.get(*r).saturating_sub(before.get(*r))))
        .filter(|(_, n)| *n > 0)
        .collect()
}

fn in_window(w: (u64, u64), t: u64) -> bool {
    t >= w.0 && t - w.0 < w.1
}

/// The `length`-long window with the most records (ns since the first
/// record), found by one streaming pass over the capture: the timeline
/// shows where the traffic is densest. See [`tighten_window`].
pub fn busiest_window<R: Read>(
    mut reader: CaptureReader<R>,
    length: u64,
) -> Result<(u64, u64), ReplayError> {
    let mut series = TimeSeries::new(1024, length.max(1));
    let mut first = None;
    // A capture cut short is replayed up to the cut (see `replay_mode`),
    // so the pre-passes stop there too instead of failing.
    while let Some(rec) = until_cut(reader.next_record())? {
        let f = *first.get_or_insert(rec.ts_ns);
        series.add(u64::try_from(rec.ts_ns.saturating_sub(f)).unwrap_or(0), 1);
    }
    let best = series
        .bins
        .iter()
        .enumerate()
        .max_by_key(|(i, n)| (**n, core::cmp::Reverse(*i)))
        .map_or(0, |(i, _)| i as u64);
    // Bins coarsen on long captures: the window is then one (wider) bin.
    Ok((best * series.bin_ns, series.bin_ns.max(length)))
}

/// A record, or the end of the capture — also where a cut-short capture
/// or one with a damaged record length ends (every other read error stays
/// an error).
fn until_cut<T>(r: Result<Option<T>, CaptureError>) -> Result<Option<T>, ReplayError> {
    match r {
        Err(CaptureError::Truncated { .. } | CaptureError::DamagedLength { .. }) => Ok(None),
        other => Ok(other?),
    }
}

/// Narrow a window to the records inside it (a second streaming pass),
/// keeping `tail` after the last one so its presentation shows too.
pub fn tighten_window<R: Read>(
    mut reader: CaptureReader<R>,
    window: (u64, u64),
    tail: u64,
) -> Result<(u64, u64), ReplayError> {
    let mut first = None;
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    while let Some(rec) = until_cut(reader.next_record())? {
        let f = *first.get_or_insert(rec.ts_ns);
        let t = u64::try_from(rec.ts_ns.saturating_sub(f)).unwrap_or(0);
        if in_window(window, t) {
            lo = lo.min(t);
            hi = hi.max(t);
        }
    }
    if lo > hi {
        return Ok(window);
    }
    let start = lo.saturating_sub(tail / 20);
    Ok((start, (hi + tail).saturating_sub(start).max(1)))
}

fn conn_key(c: &ConnKey) -> FlowMapKey {
    (6, c.local, c.local_port, c.remote, c.remote_port)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window slides: a burst across a 10 ms boundary is seen whole,
    /// and arrivals more than 10 ms apart never add up.
    #[test]
    fn the_rate_window_slides_a_millisecond_at_a_time() {
        let ms = 1_000_000;
        let mut b = Burst::default();
        // 6 MB in the 6 ms from 7 ms: across the boundary at 10 ms.
        for k in 7..13 {
            b.add(k * ms, 1_000_000);
        }
        assert_eq!(b.peak_bytes, 6_000_000);
        assert_eq!(b.peak_end, 12);
        // Then one a slot every 10 ms: never two in a window.
        let mut b = Burst::default();
        for k in 0..5 {
            b.add(k * 10 * ms, 1000);
        }
        assert_eq!(b.peak_bytes, 1000);
        // Within one slot they add up; a long gap clears the window.
        b.add(100 * ms, 500);
        b.add(100 * ms + 10, 500);
        b.add(100 * ms + 20, 1);
        assert_eq!(b.peak_bytes, 1001);
    }

    #[test]
    fn a_flow_protocol_is_written_as_its_name_or_number_and_sorts_by_that_text() {
        let written: Vec<String> = [6, 17, 0, 1, 50, 99, 132, 255]
            .into_iter()
            .map(|p| FlowProto(p).to_string())
            .collect();
        assert_eq!(
            written,
            ["TCP", "UDP", "IP/0", "IP/1", "IP/50", "IP/99", "IP/132", "IP/255"]
        );
        let mut protos: Vec<FlowProto> = [17, 6, 50, 132, 1, 99].map(FlowProto).to_vec();
        protos.sort();
        let mut texts: Vec<String> = protos.iter().map(|p| p.to_string()).collect();
        let by_text = {
            let mut t = texts.clone();
            t.sort();
            t
        };
        assert_eq!(texts, by_text);
        texts.dedup();
        assert_eq!(texts.len(), 6);
        assert!(FlowProto(50) == "IP/50" && FlowProto(6) == "TCP" && FlowProto(6) != "IP/6");
        assert_eq!(
            serde_json::to_string(&FlowProto(132)).expect("a string"),
            "\"IP/132\""
        );
    }

    #[test]
    fn a_flows_queues_are_the_used_ones_by_label_and_the_main_one_took_most() {
        let mut q = [0u64; QueueKind::ALL.len()];
        q[QueueKind::Primary.index()] = 3;
        q[QueueKind::BulkData.index()] = 5;
        q[QueueKind::Ee.index()] = 5;
        let queues = FlowQueues(q);
        assert_eq!(
            queues.iter().collect::<Vec<_>>(),
            [("BULKDATA", 5), ("EE", 5), ("PRIMARY", 3)]
        );
        assert_eq!(
            serde_json::to_string(&queues).expect("a map"),
            r#"{"BULKDATA":5,"EE":5,"PRIMARY":3}"#
        );
        assert_eq!((queues.get("EE"), queues.get("SYSDIST")), (Some(5), None));
        assert_eq!(queues.total(), 13);
        let flow = FlowResult {
            proto: FlowProto(6),
            local: IpAddr::from([192, 0, 2, 2]),
            local_port: 23,
            remote: IpAddr::from([10, 0, 0, 1]),
            remote_port: 1024,
            packets_in: 13,
            packets_out: 0,
            bytes_in: 0,
            bytes_out: 0,
            payload_in: 0,
            payload_out: 0,
            dropped_in: 0,
            dropped_out: 0,
            first_us: 0.0,
            last_us: 0.0,
            queues,
            bulk_registered_us: None,
            bulk_deregistered_us: None,
            bulk_refused: false,
        };
        // A tie goes to the later label, as the map this replaced gave it.
        assert_eq!(flow.main_queue(), Some("EE"));
        let none = FlowResult {
            queues: FlowQueues::default(),
            ..flow
        };
        assert_eq!((none.main_queue(), none.queues.iter().count()), (None, 0));
    }
}
