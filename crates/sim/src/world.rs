//! The simulated world (simulator layer; spec 6.2): hosts with processors and
//! TCP stacks, NICs and OSA adapters, links through one switch, workloads.
//! This is where the pieces meet; each model lives in its own module.
//!
//! Frame paths:
//! * peer → z/OS: peer CPU unit emits a segment → peer NIC transmit ring →
//!   link → switch egress queue → link → adapter microprocessor (finite,
//!   per-frame cost) → engine `handle_wire_frame` → presentation → a unit of
//!   work (SRB) on a z/OS processor → TCP.
//! * z/OS → peer: a unit emits a segment → engine `handle_host_send` → the
//!   engine's write queues → microprocessor → link → switch → peer NIC
//!   (interrupt coalescing) → peer unit → TCP.
//! * SMC (spec 4.4), between two hosts of the same SMC kind: the connection
//!   opens on the paths above and does its CLC rendezvous there (one round
//!   trip of TCP data); its data and ACKs (the receiver's cursor
//!   updates) then go as writes onto the peer's SMC path (RoCE port or
//!   ISM: a rate and a latency) → a completion interrupt and a unit on the
//!   peer → TCP, bypassing adapter, switch and IP/TCP segment costs.
//!
//! The SRB races of spec 2.3 are not programmed anywhere: they happen when
//! two units of the same queue run on two processors at once.
//!
//! Write signals (spec 2.4, SIGA reduction): a SIGA reaches the adapter
//! `siga_latency_ns - signal_ns` after the host issued it; the
//! microprocessor then spends `signal_ns` fielding it and scanning the write
//! queues, in turn with its frame work, and fetches every primed buffer. So
//! a signal costs no latency on an idle adapter but adapter capacity under
//! load; OLM's self-polled write queue 1 needs no signals.
//!
//! OLM early interrupts (spec 2.4, "the adapter raises an early interrupt
//! when data is on its way"): the interrupt is raised when the frame reaches
//! the adapter, not after the microprocessor has stored it, so a processor
//! that takes it at once fields it while the adapter still works on the
//! frame. Only the wait overlaps; the interrupt's CPU is charged in full.

use crate::cpu::{Cpu, Unit};
use crate::event::{EventQueue, Ns};
use crate::iqd::IqdAttach;
use crate::link::{LinkParams, Wire, WireStats};
use crate::osa::{Osa, OsaSetup};
use crate::packet::{nic_mac, Pkt, ACK, ESP_OVERHEAD, FIN, SYN};
use crate::params::{AdapterGen, HostCosts, SmcModel};
use crate::tcp::{seq_le, Seg, State, Tcb, TcpCfg};
use crate::vse::{Next, Partition, VseState};
use crate::workload::{Kind, WlStats, WorkloadSpec};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use softosa_engine::config::{AckDelay, TcpSettings};
use softosa_engine::QueueKind;
use std::collections::{BTreeMap, VecDeque};

/// What kind of host.
#[derive(Clone, Debug, PartialEq)]
pub enum HostKind {
    /// z/OS system with an OSA adapter driven by the engine.
    Zos,
    /// A peer (AIX, Linux) with a plain NIC.
    Peer,
    /// VSE: partitions under the turbo dispatcher, a TCP/IP partition with
    /// its own dispatch cycle (see `vse.rs`).
    Vse,
}

/// A resolved host.
#[derive(Clone, Debug)]
pub struct HostSpec {
    pub name: String,
    pub kind: HostKind,
    pub model: String,
    pub costs: HostCosts,
    pub ip: u32,
    pub link: LinkParams,
    /// z/OS only.
    pub adapter: Option<AdapterSetup>,
    /// Stack hands the adapter large sends.
    pub segmentation_offload: bool,
    /// The stack's TCPCONFIG (defaults for peers and profile-less hosts).
    pub tcp: TcpSettings,
    /// Shared Memory Communications this host has (spec 4.4): SMC-R,
    /// SMC-D or both.
    pub smc: Vec<SmcPath>,
    /// Sysplex distributor role.
    pub distributor: Option<Distributor>,
    /// RSA operations go to a crypto coprocessor.
    pub crypto_coprocessor: bool,
    /// Attached to the machine's HiperSockets LAN instead of Ethernet.
    pub iqd: Option<IqdAttach>,
    /// A z/VM guest whose NIC is a virtual NIC on a VSWITCH (spec 7.1), in
    /// this transport mode; `None`: its own NIC.
    pub vswitch: Option<VswitchMode>,
}

/// How a z/VM virtual switch and its guests' virtual NICs carry traffic
/// (spec 7.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VswitchMode {
    /// IP mode (layer 3): CP finds a frame's guest by IP address and
    /// handles the link layer for it.
    Ip,
    /// Ethernet mode (layer 2): CP forwards frames by MAC address; the
    /// guest's stack builds and reads its own Ethernet headers.
    Ethernet,
}

pub use crate::packet::SmcKind;

/// One of a host's SMC paths: its kind and parameters.
#[derive(Clone, Debug)]
pub struct SmcPath {
    pub kind: SmcKind,
    pub model: SmcModel,
}

/// A sysplex distributor: connections to `dvipa` are spread round robin over
/// `targets`, every packet of a connection forwarded over a dynamic XCF link.
/// The distributor may be one of its own targets: the connections it picks
/// itself for it serves locally, with nothing forwarded.
#[derive(Clone, Debug)]
pub struct Distributor {
    pub dvipa: u32,
    pub targets: Vec<usize>,
    pub xcf: LinkParams,
}

/// A z/OS host's adapter.
#[derive(Clone, Debug)]
pub struct AdapterSetup {
    pub generation_name: String,
    pub gen: AdapterGen,
    pub osa: OsaSetup,
}

/// Everything a run needs.
#[derive(Clone, Debug)]
pub struct Setup {
    pub hosts: Vec<HostSpec>,
    pub workloads: Vec<WorkloadSpec>,
    pub warmup_ns: Ns,
    pub duration_ns: Ns,
    pub seed: u64,
    /// Sample the DYNAMIC tuner's timers this often (0 = never).
    pub sample_every_ns: Ns,
    /// Stop sampling once this many samples are taken: the scenario's
    /// [`MAX_TIMER_SAMPLES`], shared by a `[vary]`'s runs.
    pub max_samples: usize,
}

/// Timer samples one scenario keeps at most, all its runs together: each
/// ends up in the output (about 180 bytes of JSON), which is held until
/// every run has ended (64 runs of 200,000 each once took 14 GB).
pub const MAX_TIMER_SAMPLES: usize = 200_000;

#[derive(Clone, Copy, Debug)]
enum TxKind {
    Data,
    Ack,
}

#[derive(Clone, Copy, Debug)]
enum SockOp {
    /// Client: (receive the previous response and) send the next request.
    Request,
    /// Server: receive the request, send the response.
    Respond,
    /// Streaming receiver: one read of a large block.
    Read,
    /// Streaming sender: write more of a large response.
    Write,
}

#[derive(Clone, Copy, Debug)]
enum Step {
    /// Field an interrupt and dispatch the unit. An OLM early interrupt
    /// carries (presented at, lead): the adapter raised it `lead` ns before
    /// the batch was presented, when the frame reached the adapter, so a
    /// processor that takes it at once fields it while the adapter's
    /// microprocessor still works on the frame (spec 2.4).
    Interrupt(Option<(Ns, Ns)>),
    Poll,
    Rx(Pkt, bool),
    BatchEnd(u64),
    /// The host is done with the SBALs of a batch that was merged into a
    /// later one (see `osa_sync_pull`): return them to the adapter.
    ReturnBuffers(u64),
    /// A segment to hand to the NIC: kind, WLM importance, end of this
    /// write (SIGA), emitted by an application unit.
    Tx(Pkt, TxKind, u8, bool, bool),
    Sock(usize, u32, SockOp),
    Connect(usize),
    Timer(usize, u32),
    /// The write signal (SIGA) after a write to a queue the adapter does not
    /// poll by itself; the adapter fetches the data `siga_latency_ns` later.
    Siga,
    /// VSE: an application partition hands a socket request to the TCP/IP
    /// partition's request queue.
    AppCall(usize, u32, SockOp),
    /// OLM: the unit that emptied an input queue keeps looking at it until
    /// the given time (spec 2.4, "the host keeps checking briefly after a
    /// batch"). The processor is busy polling all along; a batch found
    /// meanwhile ends the look early (the CPU not spent is given back).
    PollWindow(u64, Ns),
}

#[derive(Debug)]
struct Conn {
    id: u32,
    /// IPsec-protected: its packets are ESP (spec 4.1).
    esp: bool,
    /// Local address (a target answers from the DVIPA).
    lip: u32,
    tcb: Tcb,
    wl: usize,
    client: bool,
    rip: u32,
    lport: u16,
    rport: u16,
    src_mac: [u8; 6],
    dst_mac: [u8; 6],
    rcvd: u64,
    unread: u32,
    to_write: u64,
    write_pending: bool,
    txn_start: Ns,
    /// A request/response transaction whose response has fully arrived but
    /// whose application has not yet taken it: (start, inside the measured
    /// window). Its latency is recorded when the client application's
    /// receive returns, as a benchmark program measures it.
    answered: Option<(Ns, bool)>,
    rto_ev: Option<Ns>,
    delack_ev: Option<Ns>,
    force_ack: bool,
    /// Units of work (batches) currently processing this connection; while
    /// one does, an application send only queues data and the unit sends it
    /// at its end (the connection is latched; the latch holder does the work).
    in_units: u32,
    /// Out-of-order segments the batch being processed brought on an IWQ
    /// bulk connection (spec 2.3, ACK frequency): at the batch's end, if a
    /// hole is still open (likely loss), each of them is ACKed.
    ooo_acks: u32,
    /// Application units still handing this connection's segments to the
    /// NIC; a batch's output waits for them (one writer at a time).
    app_emitting: u32,
    /// Batch (SRB) or timer units still handing segments to the NIC; an
    /// application send waits for them.
    srb_emitting: u32,
    /// TLS handshake rounds this end has completed (of the workload's
    /// `tls.rounds()`), or on an SMC connection its CLC rendezvous (one).
    hs: u8,
    /// An SMC connection: the first sequence number this end sends over
    /// the SMC path, once its side of the CLC rendezvous is done; what
    /// comes before it (the rendezvous) went over TCP.
    smc_from: Option<u32>,
    /// Whether the application has closed this end (and which end closed
    /// first). A closed connection lingers until the close handshake ends;
    /// its application does nothing more meanwhile.
    close: Close,
}

/// How far a connection is in closing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Close {
    Open,
    /// This end closed first (FIN_WAIT): it waits for its FIN to be
    /// acknowledged and for the peer's FIN, acknowledges that, and stays
    /// in TIME_WAIT.
    Active,
    /// The peer closed first (LAST_ACK): this end's FIN needs only its
    /// acknowledgment.
    Passive,
}

/// A connection in TIME_WAIT, kept small: when its acknowledgment of the
/// peer's FIN was lost, the peer sends the FIN again and this answers it.
#[derive(Clone, Copy, Debug)]
struct TimeWait {
    until: Ns,
    /// The last ACK, to send again.
    ack: Pkt,
    wl: usize,
}

/// Routes a sysplex distributor's connection table (VCRT) holds; a new
/// connection beyond them is refused (its SYN dropped and counted). A
/// scenario has at most 100,000 connections, each with at most one more
/// still closing, so a valid one never reaches it: it only bounds memory.
const VCRT_ROUTES: usize = 262_144;

/// The two ends of a new connection, as seen from this host.
struct ConnEnds {
    lip: u32,
    lport: u16,
    rip: u32,
    rport: u16,
    src_mac: [u8; 6],
    dst_mac: [u8; 6],
}

impl Conn {
    /// A connection just opened (client) or accepted (server): nothing sent,
    /// received or pending yet.
    fn new(
        id: u32,
        tcb: Tcb,
        (wl, esp): (usize, bool),
        client: bool,
        ends: ConnEnds,
        now: Ns,
    ) -> Conn {
        Conn {
            id,
            esp,
            lip: ends.lip,
            tcb,
            wl,
            client,
            rip: ends.rip,
            lport: ends.lport,
            rport: ends.rport,
            src_mac: ends.src_mac,
            dst_mac: ends.dst_mac,
            rcvd: 0,
            unread: 0,
            to_write: 0,
            write_pending: false,
            txn_start: now,
            answered: None,
            rto_ev: None,
            delack_ev: None,
            force_ack: false,
            in_units: 0,
            app_emitting: 0,
            srb_emitting: 0,
            ooo_acks: 0,
            hs: 0,
            smc_from: None,
            close: Close::Open,
        }
    }

    /// Segment `s` of this connection as host `h` sends it, over `smc`
    /// or (None) through the adapter or NIC.
    fn packet(&self, s: &Seg, smc: Option<SmcKind>) -> Pkt {
        Pkt {
            src_mac: self.src_mac,
            dst_mac: self.dst_mac,
            src_ip: self.lip,
            dst_ip: self.rip,
            sport: self.lport,
            dport: self.rport,
            seq: s.seq,
            ack: s.ack,
            flags: s.flags,
            tos: 0,
            wnd: s.wnd,
            len: s.len,
            smc,
            esp: self.esp,
        }
    }
}

/// Per-host counters of the simulator's own making.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct HostStats {
    pub stray_segments: u64,
    pub connections_opened: u64,
    /// Connections that went through TIME_WAIT (closed by this end first).
    pub time_wait_entered: u64,
    /// Segments that reached a connection in TIME_WAIT (late ACKs,
    /// retransmitted FINs).
    pub time_wait_segments: u64,
    /// Of them, retransmitted FINs, answered with the last ACK again.
    pub time_wait_acks: u64,
    /// Client ports taken for a new connection while their previous
    /// connection to the same server port was still in TIME_WAIT, as a
    /// stack that reuses TIME_WAIT ports does (Linux `tcp_tw_reuse`). A
    /// stack that does not would have run out of ephemeral ports.
    pub time_wait_reused: u64,
    pub units: u64,
    pub ooo_segments_in: u64,
    /// Packets this sysplex distributor forwarded to targets.
    pub sd_forwarded: u64,
    /// Packets for the distributed DVIPA that this distributor, one of its
    /// own targets, kept and served itself.
    pub sd_local: u64,
    /// Packets for the distributed DVIPA that no route (VCRT entry) took:
    /// a new connection when the table was full, or a late segment of an
    /// ended one. Dropped.
    pub sd_unrouted: u64,
    pub dupacks_in: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub retransmits: u64,
    pub acks_out: u64,
    pub segments_out: u64,
    /// Writes (data and cursor updates) sent and taken over SMC.
    pub smc_writes_out: u64,
    pub smc_writes_in: u64,
    pub interrupts: u64,
    pub polls: u64,
    /// Write signals (SIGA) the stack issued to its adapter.
    pub sigas: u64,
    /// Writes the stack had to hold: no empty SBAL on the write queue.
    pub write_waits: u64,
    /// Frames this host moved onto the HiperSockets LAN.
    pub iqd_sent: u64,
    /// HiperSockets frames for this host dropped: no free input buffer.
    pub iqd_no_buffer: u64,
    /// CPU time CP spent moving this guest's frames through its VSWITCH
    /// (part of the host's CPU), ns.
    pub vswitch_cp_ns: u64,
    /// VSE turbo dispatcher and stack cycle counters.
    pub vse: Option<crate::vse::VseStats>,
}

impl HostStats {
    /// These counters less those of an earlier instant.
    fn since(&self, b: &HostStats) -> HostStats {
        HostStats {
            stray_segments: self.stray_segments.saturating_sub(b.stray_segments),
            connections_opened: self.connections_opened.saturating_sub(b.connections_opened),
            time_wait_entered: self.time_wait_entered.saturating_sub(b.time_wait_entered),
            time_wait_segments: self.time_wait_segments.saturating_sub(b.time_wait_segments),
            time_wait_acks: self.time_wait_acks.saturating_sub(b.time_wait_acks),
            time_wait_reused: self.time_wait_reused.saturating_sub(b.time_wait_reused),
            units: self.units.saturating_sub(b.units),
            ooo_segments_in: self.ooo_segments_in.saturating_sub(b.ooo_segments_in),
            sd_forwarded: self.sd_forwarded.saturating_sub(b.sd_forwarded),
            sd_local: self.sd_local.saturating_sub(b.sd_local),
            sd_unrouted: self.sd_unrouted.saturating_sub(b.sd_unrouted),
            dupacks_in: self.dupacks_in.saturating_sub(b.dupacks_in),
            fast_retransmits: self.fast_retransmits.saturating_sub(b.fast_retransmits),
            timeouts: self.timeouts.saturating_sub(b.timeouts),
            retransmits: self.retransmits.saturating_sub(b.retransmits),
            acks_out: self.acks_out.saturating_sub(b.acks_out),
            segments_out: self.segments_out.saturating_sub(b.segments_out),
            smc_writes_out: self.smc_writes_out.saturating_sub(b.smc_writes_out),
            smc_writes_in: self.smc_writes_in.saturating_sub(b.smc_writes_in),
            interrupts: self.interrupts.saturating_sub(b.interrupts),
            polls: self.polls.saturating_sub(b.polls),
            sigas: self.sigas.saturating_sub(b.sigas),
            write_waits: self.write_waits.saturating_sub(b.write_waits),
            iqd_sent: self.iqd_sent.saturating_sub(b.iqd_sent),
            iqd_no_buffer: self.iqd_no_buffer.saturating_sub(b.iqd_no_buffer),
            vswitch_cp_ns: self.vswitch_cp_ns.saturating_sub(b.vswitch_cp_ns),
            vse: match (&self.vse, &b.vse) {
                (Some(n), Some(b)) => Some(n.since(b)),
                (n, _) => n.clone(),
            },
        }
    }
}

/// A socket request queued for a VSE TCP/IP partition: connection, its id,
/// the call, the workload.
type VseReq = (usize, u32, SockOp, usize);

struct Host {
    spec: HostSpec,
    cpu: Cpu<(Step, usize)>,
    cur: Vec<Option<(Step, usize)>>,
    conns: Vec<Option<Conn>>,
    free: Vec<usize>,
    lookup: BTreeMap<(u16, u32, u16), usize>,
    /// Connections in TIME_WAIT by (local port, remote ip, remote port),
    /// and their keys in the order they entered it (some since reused:
    /// an entry is expired from the front only if its time still matches).
    /// At most one entry per client port and server, so bounded.
    time_wait: BTreeMap<(u16, u32, u16), TimeWait>,
    tw_order: VecDeque<((u16, u32, u16), Ns)>,
    listen: BTreeMap<u16, usize>,
    /// A sysplex distributor: the workload of each DVIPA port it
    /// forwards (it listens on none of them).
    distributed: BTreeMap<u16, usize>,
    touched: Vec<Vec<usize>>,
    /// Per processor: packets built by the running unit and not yet handed
    /// to the adapter (the device layer fills an output SBAL, then writes it).
    pending_write: Vec<Vec<(Pkt, u8)>>,
    /// Per write queue (1..4): frames not yet sent of each SBAL the stack
    /// filled, oldest first. Their count is the SBALs in use.
    wq_sbals: [VecDeque<u32>; 4],
    /// Write queues written since the stack last signalled them.
    wq_unsignalled: [bool; 4],
    /// Filled SBALs' worth of packets the stack holds because the write
    /// queue they go to has no empty SBAL left (sent in order as SBALs
    /// empty; nothing is dropped).
    held_writes: VecDeque<Vec<(Pkt, u8)>>,
    /// The write queue the engine last chose for each WLM importance
    /// (indexed by importance; a plain table, written once per packet sent).
    imp_queue: [Option<u8>; 256],
    next_port: u16,
    next_id: u32,
    iss: u32,
    /// CPU ns per workload (last slot: not attributable to one workload).
    cpu_wl: Vec<u64>,
    /// Data segments received per workload inside the window.
    rx_wl: Vec<u64>,
    cpu_window: u64,
    nic_pending: Vec<Pkt>,
    nic_timer: bool,
    up: Wire,
    down: Wire,
    /// XCF link from the distributor into this host (a target).
    xcf_in: Option<Wire>,
    /// The SMC paths into this host (its RoCE port, ISM).
    smc_in: Vec<(SmcKind, Wire)>,
    /// Distributor: connection routing table (client ip, client port, port)
    /// → target, and the round-robin cursor.
    vcrt: BTreeMap<(u32, u16, u16), usize>,
    rr_next: usize,
    stats: HostStats,
    /// VSE hosts: turbo dispatcher and TCP/IP partition state.
    vse: Option<VseState<VseReq>>,
    /// HiperSockets input buffers holding frames not yet processed.
    iqd_held: usize,
    /// Per processor: generation of the step it runs (see `Ev::CpuDone`).
    step_gen: Vec<u32>,
    /// Per processor: the OLM poll window it is spinning in, if any.
    spin: Vec<Option<Spin>>,
}

/// A processor polling an input queue (OLM), charged in advance up to `end`.
#[derive(Clone, Copy, Debug)]
struct Spin {
    end: Ns,
    slot: usize,
}

/// A MAC as z/OS displays write it.
fn mac_text(m: &[u8; 6]) -> String {
    m.iter().map(|b| format!("{b:02X}")).collect()
}

/// How much of `[start, start + dur)` lies in the measured window
/// `[from, end)`: busy time is counted for the part of a job or step inside
/// it, so one that starts before the window or runs past its end does not
/// count in full (a card busy all window long reads 100 %, never more).
fn window_part(from: Ns, end: Ns, start: Ns, dur: u64) -> u64 {
    let to = start.saturating_add(dur).min(end);
    to.saturating_sub(start.max(from))
}

struct Micro {
    jobs: VecDeque<MicroJob>,
    busy: bool,
    in_jobs: usize,
    out_inflight: usize,
    busy_ns: u64,
    busy_window: u64,
    /// Of `busy_window`, each kind of work's ns: see [`MicroBusy`].
    busy_by: MicroBusy,
    overruns: u64,
    /// When the inbound frame the microprocessor finished last reached the
    /// adapter (the moment an OLM early interrupt for it is raised).
    last_in_arrival: Ns,
}

/// Where the adapter's microprocessor spent its time in the measured
/// window, ns.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct MicroBusy {
    /// Inbound frames: the data router's frame and byte cost, and sorting
    /// onto input queues.
    pub inbound_frames_ns: u64,
    /// Outbound frames (segmentation offload's extra segments included).
    pub outbound_frames_ns: u64,
    /// Fielding write signals (SIGA) and scanning the write queues.
    pub write_signals_ns: u64,
    /// Presenting batches to the host (interrupts).
    pub presentations_ns: u64,
    /// OLM's extra work per frame.
    pub olm_ns: u64,
}

#[derive(Debug)]
enum MicroJob {
    /// An inbound frame and when it reached the adapter.
    In(Pkt, Ns),
    /// An outbound frame and the write queue (1..4) it was fetched from.
    Out(Pkt, u8),
    Present,
    /// OLM's per-frame extra work for frames presented promptly (early
    /// interrupt / host polling), charged per presented frame of a non-bulk
    /// queue: OLM's CPU-hungry mechanisms never apply to BULKDATA (spec 2.4).
    OlmFrames(u64),
    /// Field a write signal (SIGA) and scan the write queues; the adapter
    /// fetches what is primed when it is done.
    Signal,
}

enum Ev {
    UpDone(usize),
    DownDone(usize),
    AtSwitch(Pkt),
    AtNic(usize, Pkt),
    MicroDone(usize),
    EngineTimer(usize),
    /// A processor finished its step; the generation tells a step ended
    /// early (an OLM poll window that found data) from a stale event.
    CpuDone(usize, usize, u32),
    NicIrq(usize),
    ConnTimer(usize, usize, u32),
    Start(usize),
    Siga(usize),
    XcfDone(usize),
    XcfArrive(usize, Pkt),
    /// The SMC path into a host finished sending a write / a write landed.
    SmcDone(usize, SmcKind),
    SmcArrive(usize, Pkt),
    App(usize, usize, u32, SockOp),
    Sample,
    /// A VSE TCP/IP partition's idle wait (of this generation) ends.
    VseCycle(usize, u64),
}

/// Tuner timer samples: (time, host, queue label, gap ns, block ns).
pub type TimerSample = (Ns, usize, &'static str, u64, u64);

/// The event queue's length below which it is never compacted
/// ([`World::compact_events`]).
const MIN_COMPACT_EVENTS: usize = 1 << 16;

/// The simulated world.
pub struct World {
    q: EventQueue<Ev>,
    /// The queue's length at which it is next compacted.
    compact_at: usize,
    rng: ChaCha8Rng,
    /// Separate stream for CPU service-time variation, so frame-error draws
    /// stay the same whatever the processors do.
    cpu_rng: ChaCha8Rng,
    /// Clients' think times: a stream of their own, drawn only by
    /// workloads that think, so that others' runs stay as they were.
    think_rng: ChaCha8Rng,
    hosts: Vec<Host>,
    osas: Vec<Option<(Osa, Micro, AdapterGen)>>,
    osa_timer: Vec<Option<Ns>>,
    pub workloads: Vec<WorkloadSpec>,
    pub stats: Vec<WlStats>,
    ip_map: BTreeMap<u32, usize>,
    /// Each host's MAC on the LAN, and the host of each MAC (the switch).
    macs: Vec<[u8; 6]>,
    by_mac: BTreeMap<[u8; 6], usize>,
    measure_from: Ns,
    end: Ns,
    sample_every: Ns,
    max_samples: usize,
    segs: Vec<Seg>,
    started: Vec<usize>,
    /// Segment steps the step being applied has put at the front of its
    /// unit so far: later segments of the same step go after them, so a
    /// step's segments leave in the order they were made.
    front_pushed: usize,
    pub samples: Vec<TimerSample>,
    /// When sampling stopped before the run's end, at its cap
    /// ([`Setup::max_samples`]): the time of the last sample.
    pub sampling_stopped: Option<Ns>,
    /// Frames that crossed any link (for speed reports).
    pub link_frames: u64,
    pub events: u64,
    /// Every host's counters as they stood when the measured window
    /// opened; the report shows what happened after that.
    baseline: Option<Vec<HostBaseline>>,
}

/// Errors building a world.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    #[error("host {0}: {1}")]
    Engine(String, String),
    #[error("workload {0}: {1}")]
    Workload(String, String),
}

const SERIAL_NIC: u64 = 1 << 40;
const SERIAL_XCF: u64 = 1 << 41;
/// Completions of a host's SMC path are taken in order, one unit at a time.
const SERIAL_SMC: u64 = 1 << 42;
/// Packets the device layer packs into one output SBAL before writing it.
const SBAL_PACKETS: usize = 16;
const DELACK_ZOS_NS: Ns = 200_000_000;
const UNATTRIBUTED: usize = usize::MAX;

impl World {
    pub fn new(setup: &Setup) -> Result<World, WorldError> {
        let nwl = setup.workloads.len();
        let mut hosts = Vec::new();
        let mut osas = Vec::new();
        let mut ip_map = BTreeMap::new();
        for (i, h) in setup.hosts.iter().enumerate() {
            ip_map.insert(h.ip, i);
            let mut up_link = h.link;
            let mut down_link = h.link;
            up_link.latency_ns = h.link.latency_ns / 2;
            down_link.latency_ns = h.link.latency_ns - up_link.latency_ns;
            let osa = match &h.adapter {
                Some(a) => {
                    up_link.latency_ns += a.gen.latency_ns;
                    down_link.latency_ns += a.gen.latency_ns;
                    let o = Osa::new(&a.osa)
                        .map_err(|e| WorldError::Engine(h.name.clone(), e.to_string()))?;
                    Some((
                        o,
                        Micro {
                            jobs: VecDeque::new(),
                            busy: false,
                            in_jobs: 0,
                            out_inflight: 0,
                            busy_ns: 0,
                            busy_window: 0,
                            busy_by: MicroBusy::default(),
                            overruns: 0,
                            last_in_arrival: 0,
                        },
                        a.gen.clone(),
                    ))
                }
                None => None,
            };
            osas.push(osa);
            let n = h.costs.processors.max(1);
            hosts.push(Host {
                spec: h.clone(),
                cpu: Cpu::new(n),
                cur: (0..n).map(|_| None).collect(),
                conns: Vec::new(),
                free: Vec::new(),
                lookup: BTreeMap::new(),
                time_wait: BTreeMap::new(),
                tw_order: VecDeque::new(),
                listen: BTreeMap::new(),
                distributed: BTreeMap::new(),
                touched: (0..n).map(|_| Vec::new()).collect(),
                pending_write: (0..n).map(|_| Vec::new()).collect(),
                wq_sbals: Default::default(),
                wq_unsignalled: [false; 4],
                held_writes: VecDeque::new(),
                imp_queue: [None; 256],
                next_port: 1024,
                next_id: 1,
                iss: 0x1000_0000u32.wrapping_mul(i as u32 + 1),
                cpu_wl: vec![0; nwl + 1],
                rx_wl: vec![0; nwl],
                cpu_window: 0,
                nic_pending: Vec::new(),
                nic_timer: false,
                up: Wire::new(up_link, 0),
                down: Wire::new(down_link, h.link.switch_buffer),
                xcf_in: None,
                smc_in: h
                    .smc
                    .iter()
                    .map(|m| {
                        let p = LinkParams {
                            rate_bps: m.model.rate_bps,
                            latency_ns: m.model.latency_ns,
                            mtu: m.model.write_bytes,
                            loss: 0.0,
                            switch_buffer: 0,
                        };
                        (m.kind, Wire::new(p, 0))
                    })
                    .collect(),
                vcrt: BTreeMap::new(),
                rr_next: 0,
                stats: HostStats::default(),
                vse: (h.kind == HostKind::Vse).then(VseState::default),
                iqd_held: 0,
                step_gen: vec![0; n],
                spin: vec![None; n],
            });
        }
        for (i, h) in setup.hosts.iter().enumerate() {
            if let Some(d) = &h.distributor {
                ip_map.insert(d.dvipa, i);
                for &t in d.targets.iter().filter(|&&t| t != i) {
                    if let Some(th) = hosts.get_mut(t) {
                        th.xcf_in = Some(Wire::new(d.xcf, 0));
                    }
                }
            }
        }
        for (w, spec) in setup.workloads.iter().enumerate() {
            if spec.client >= hosts.len() || spec.server >= hosts.len() {
                return Err(WorldError::Workload(
                    spec.name.clone(),
                    "unknown host".into(),
                ));
            }
            match setup.hosts[spec.server]
                .distributor
                .as_ref()
                .filter(|_| spec.via_distributor.is_some())
            {
                Some(d) => {
                    for &t in &d.targets {
                        hosts[t].listen.insert(listen_port(w), w);
                    }
                    hosts[spec.server].distributed.insert(listen_port(w), w);
                }
                None => {
                    hosts[spec.server].listen.insert(listen_port(w), w);
                }
            }
        }
        // Each host's MAC on the LAN: a z/OS host's is its interface's as
        // the adapter made it (the VMAC, coded or generated, else the
        // port's), a peer's one of the simulator's own.
        let macs: Vec<[u8; 6]> = osas
            .iter()
            .enumerate()
            .map(|(i, o)| o.as_ref().map_or(nic_mac(i), |(o, _, _)| o.mac()))
            .collect();
        let mut by_mac = BTreeMap::new();
        for (i, m) in macs.iter().enumerate() {
            if let Some(j) = by_mac.insert(*m, i) {
                // Name the z/OS host first: its VMAC is what can change.
                let (a, b) = if osas[i].is_none() && osas[j].is_some() {
                    (j, i)
                } else {
                    (i, j)
                };
                let whose = |x: usize| {
                    if osas[x].is_some() {
                        "its interface's: a VMAC its profile codes, or its port's"
                    } else {
                        "the one softosa gives a peer's NIC"
                    }
                };
                return Err(WorldError::Engine(
                    setup.hosts[a].name.clone(),
                    format!(
                        "its MAC {} ({}) is host {:?}'s MAC too ({}); code another VMAC",
                        mac_text(m),
                        whose(a),
                        setup.hosts[b].name,
                        whose(b)
                    ),
                ));
            }
        }
        // Two z/OS hosts on different VLANs need a router between them,
        // which the simulated LAN does not have (a peer is on the VLAN of
        // the interface it talks to).
        let vlan = |h: usize| osas[h].as_ref().map(|(o, _, _)| o.vlan());
        for w in setup
            .workloads
            .iter()
            .filter(|w| w.via_distributor.is_none())
        {
            if let (Some(a), Some(b)) = (vlan(w.client), vlan(w.server)) {
                if a != b {
                    let shown =
                        |v: Option<u16>| v.map_or("no VLANID".into(), |v| format!("VLANID {v}"));
                    return Err(WorldError::Engine(
                        setup.hosts[w.client].name.clone(),
                        format!(
                            "workload {:?} runs between this host ({}) and host {:?} ({}), on \
                             different VLANs: that needs a router, which the simulated LAN does \
                             not have; give both interfaces the same VLANID",
                            w.name,
                            shown(a),
                            setup.hosts[w.server].name,
                            shown(b)
                        ),
                    ));
                }
            }
        }
        for (i, o) in osas.iter_mut().enumerate() {
            if let Some((o, _, _)) = o.as_mut() {
                for (j, h) in setup.hosts.iter().enumerate() {
                    if j != i {
                        o.add_neighbor(h.ip, macs[j]);
                    }
                }
            }
        }
        let n_osa = osas.len();
        let mut world = World {
            q: EventQueue::new(),
            compact_at: MIN_COMPACT_EVENTS,
            rng: ChaCha8Rng::seed_from_u64(setup.seed),
            cpu_rng: ChaCha8Rng::seed_from_u64(setup.seed ^ 0x5c4e_d011_7e55_0001),
            think_rng: ChaCha8Rng::seed_from_u64(setup.seed ^ 0x7411_4b00_0000_0003),
            hosts,
            osas,
            osa_timer: vec![None; n_osa],
            workloads: setup.workloads.clone(),
            stats: vec![WlStats::default(); nwl],
            ip_map,
            macs,
            by_mac,
            measure_from: setup.warmup_ns,
            end: setup.warmup_ns + setup.duration_ns,
            sample_every: setup.sample_every_ns,
            max_samples: setup.max_samples,
            segs: Vec::with_capacity(64),
            started: Vec::with_capacity(8),
            front_pushed: 0,
            samples: Vec::new(),
            sampling_stopped: None,
            link_frames: 0,
            events: 0,
            baseline: None,
        };
        // Stagger connection starts over the first millisecond, seeded.
        use rand::Rng;
        for (w, spec) in setup.workloads.iter().enumerate() {
            for _ in 0..spec.connections {
                let at = world.rng.random_range(0..1_000_000u64);
                world.q.schedule(at, Ev::Start(w));
            }
        }
        if world.sample_every > 0 {
            world.q.schedule(0, Ev::Sample);
        }
        // A VSE stack starts idle, in its dispatcher's wait.
        for h in 0..world.hosts.len() {
            world.vse_sleep(h, 0);
        }
        Ok(world)
    }

    /// Current virtual time.
    pub fn now(&self) -> Ns {
        self.q.now()
    }
    /// End of the run.
    pub fn end(&self) -> Ns {
        self.end
    }

    /// Run until `until` (capped at the end of the run). Returns true when
    /// the run is complete.
    pub fn run_until(&mut self, until: Ns) -> bool {
        let lim = until.min(self.end);
        if self.baseline.is_none() && lim >= self.measure_from {
            // Everything before the window (events at its first instant
            // already count as in it), then the counters' starting point.
            if let Some(before) = self.measure_from.checked_sub(1) {
                self.drain(before);
            }
            self.baseline = Some((0..self.hosts.len()).map(|h| self.host_totals(h)).collect());
        }
        self.drain(lim);
        lim >= self.end
    }

    fn drain(&mut self, lim: Ns) {
        while let Some((now, ev)) = self.q.pop_until(lim) {
            self.events += 1;
            self.handle(now, ev);
            if self.q.len() > self.compact_at {
                self.compact_events();
            }
        }
    }

    /// Drop the queued events of connections that are gone: a closed
    /// connection leaves its retransmission and delayed-ACK timers queued
    /// until they come due (the first RTO a second out), so under fast
    /// enough connection churn the queue would grow with the rate of
    /// closing, not with what is open. Run when the queue has doubled since
    /// the last time; what runs, and in what order, is unchanged.
    fn compact_events(&mut self) {
        let hosts = &self.hosts;
        let live = |h: usize, c: usize, id: u32| {
            hosts
                .get(h)
                .and_then(|x| x.conns.get(c))
                .and_then(|x| x.as_ref())
                .is_some_and(|cn| cn.id == id)
        };
        self.q.retain(|e| match *e {
            Ev::ConnTimer(h, c, id) | Ev::App(h, c, id, _) => live(h, c, id),
            _ => true,
        });
        self.compact_at = self.q.len().saturating_mul(2).max(MIN_COMPACT_EVENTS);
    }

    fn in_window(&self, now: Ns) -> bool {
        now >= self.measure_from && now < self.end
    }

    fn handle(&mut self, now: Ns, ev: Ev) {
        match ev {
            Ev::UpDone(h) => {
                self.hosts[h].up.busy = false;
                self.kick_up(h, now);
                if self.osas[h].is_some() {
                    self.osa_pull(h, now);
                }
            }
            Ev::DownDone(h) => {
                self.hosts[h].down.busy = false;
                self.kick_down(h, now);
            }
            Ev::AtSwitch(p) => {
                let dst = self
                    .by_mac
                    .get(&p.dst_mac)
                    .copied()
                    .or_else(|| self.ip_map.get(&p.dst_ip).copied());
                if let Some(d) = dst {
                    if self.hosts[d].down.enqueue(p) {
                        self.kick_down(d, now);
                    }
                }
            }
            Ev::AtNic(h, p) => {
                if !self.hosts[h].down.survives(&mut self.rng) {
                    // An OSA counts the damaged frame it discards.
                    if let Some((o, _, _)) = self.osas[h].as_mut() {
                        o.frame_error();
                    }
                    return;
                }
                if self.osas[h].is_some() {
                    self.micro_in(h, now, p);
                } else {
                    let host = &mut self.hosts[h];
                    host.nic_pending.push(p);
                    if !host.nic_timer {
                        host.nic_timer = true;
                        let at = now + host.spec.costs.nic_coalesce_ns;
                        self.q.schedule(at, Ev::NicIrq(h));
                    }
                }
            }
            Ev::MicroDone(h) => self.micro_done(h, now),
            Ev::Siga(h) => self.signal_arrives(h, now),
            Ev::XcfDone(t) => {
                if let Some(x) = self.hosts[t].xcf_in.as_mut() {
                    x.busy = false;
                }
                self.kick_xcf(t, now);
            }
            Ev::XcfArrive(t, p) => {
                // HiperSockets-like delivery: presented at once, one unit.
                let mut u = Unit::new(Some(SERIAL_XCF | t as u64));
                let w = self.frame_wl(t, &p);
                u.steps.push_back((Step::Interrupt(None), w));
                u.steps.push_back((Step::Rx(p, false), w));
                u.steps.push_back((Step::BatchEnd(u64::MAX), w));
                self.hosts[t].stats.interrupts += 1;
                self.submit(t, u, now);
            }
            Ev::SmcDone(t, k) => {
                if let Some(x) = self.smc_wire(t, k) {
                    x.busy = false;
                }
                self.kick_smc(t, k, now);
            }
            Ev::SmcArrive(t, p) => {
                // A completion: its interrupt, then the write taken.
                let mut u = Unit::new(Some(SERIAL_SMC | t as u64));
                let w = self.frame_wl(t, &p);
                u.steps.push_back((Step::Interrupt(None), w));
                u.steps.push_back((Step::Rx(p, false), w));
                u.steps.push_back((Step::BatchEnd(u64::MAX), w));
                let host = &mut self.hosts[t];
                host.stats.interrupts += 1;
                host.stats.smc_writes_in += 1;
                self.submit(t, u, now);
            }
            Ev::App(h, c, id, op) => {
                let w = match self.hosts[h].conns.get(c).and_then(|x| x.as_ref()) {
                    Some(cn) if cn.id == id => cn.wl,
                    _ => return,
                };
                self.app_call(h, c, id, op, w, now);
            }
            Ev::VseCycle(h, gen) => self.vse_cycle(h, gen, now),
            Ev::EngineTimer(h) => {
                if self.osa_timer[h] == Some(now) {
                    self.osa_timer[h] = None;
                }
                if let Some((o, _, _)) = self.osas[h].as_mut() {
                    o.timeout(now);
                }
                self.osa_sync(h, now);
            }
            Ev::CpuDone(h, p, gen) => {
                if self.hosts[h].step_gen.get(p) == Some(&gen) {
                    self.cpu_done(h, p, now);
                }
            }
            Ev::NicIrq(h) => {
                self.hosts[h].nic_timer = false;
                if self.hosts[h].nic_pending.is_empty() {
                    return;
                }
                let frames = std::mem::take(&mut self.hosts[h].nic_pending);
                let key = if self.hosts[h].vse.is_some() {
                    crate::vse::tcpip_key(h)
                } else {
                    SERIAL_NIC | h as u64
                };
                let mut u = Unit::new(Some(key));
                self.batch_steps(h, &mut u, Step::Interrupt(None), frames, false, u64::MAX);
                self.hosts[h].stats.interrupts += 1;
                self.submit(h, u, now);
            }
            Ev::ConnTimer(h, c, id) => self.conn_timer(h, c, id, now),
            Ev::Start(w) => self.open_connection(w, now),
            Ev::Sample => {
                for (h, o) in self.osas.iter().enumerate() {
                    if let Some((o, _, _)) = o {
                        for (label, gap, block) in o.timer_values() {
                            self.samples.push((now, h, label, gap, block));
                        }
                    }
                }
                if self.samples.len() < self.max_samples {
                    self.q.schedule(now + self.sample_every, Ev::Sample);
                } else if now + self.sample_every < self.end {
                    // The report says the series ends early, and why.
                    self.sampling_stopped = Some(now);
                }
            }
        }
    }

    // ------------------------------------------------------------ wires

    fn kick_up(&mut self, h: usize, now: Ns) {
        if let Some((p, done, arrive)) = self.hosts[h].up.start(now) {
            self.link_frames += 1;
            self.q.schedule(done, Ev::UpDone(h));
            self.q.schedule(arrive, Ev::AtSwitch(p));
        }
    }
    fn kick_xcf(&mut self, t: usize, now: Ns) {
        if let Some(x) = self.hosts[t].xcf_in.as_mut() {
            if let Some((p, done, arrive)) = x.start(now) {
                self.link_frames += 1;
                self.q.schedule(done, Ev::XcfDone(t));
                self.q.schedule(arrive, Ev::XcfArrive(t, p));
            }
        }
    }

    fn smc_wire(&mut self, t: usize, k: SmcKind) -> Option<&mut Wire> {
        self.hosts
            .get_mut(t)?
            .smc_in
            .iter_mut()
            .find(|(x, _)| *x == k)
            .map(|(_, w)| w)
    }

    fn kick_smc(&mut self, t: usize, k: SmcKind, now: Ns) {
        if let Some(x) = self.smc_wire(t, k) {
            if let Some((p, done, arrive)) = x.start(now) {
                self.q.schedule(done, Ev::SmcDone(t, k));
                self.q.schedule(arrive, Ev::SmcArrive(t, p));
            }
        }
    }

    /// A write (or cursor update) of an SMC connection: onto the SMC path
    /// into the peer, which takes writes one after another at its rate.
    /// The connection's window bounds what waits there.
    fn smc_send(&mut self, h: usize, k: SmcKind, pkt: Pkt, now: Ns) {
        self.hosts[h].stats.smc_writes_out += 1;
        let Some(d) = self.ip_map.get(&pkt.dst_ip).copied() else {
            self.hosts[h].stats.stray_segments += 1;
            return;
        };
        match self.smc_wire(d, k) {
            Some(x) => {
                x.enqueue(pkt);
                self.kick_smc(d, k, now);
            }
            None => self.hosts[h].stats.stray_segments += 1,
        }
    }

    /// The SMC path workload `w`'s connections take, if any: both ends have
    /// the same kind of SMC, and the connection is one SMC serves here —
    /// plain TCP reached directly (not AT-TLS, not through a sysplex
    /// distributor). Every such connection, short-lived ones too, first
    /// does the CLC rendezvous over TCP ([`CLC_PROPOSAL_BYTES`]). SMC-D is
    /// preferred where both ends have it (they are in one machine).
    fn smc_for(&self, w: usize) -> Option<&SmcPath> {
        let spec = self.workloads.get(w)?;
        // IPsec-protected traffic is not eligible either (spec 4.4).
        let eligible = spec.tls.is_none() && spec.via_distributor.is_none() && !spec.ipsec;
        if !eligible {
            return None;
        }
        let a = &self.hosts.get(spec.client)?.spec.smc;
        let b = &self.hosts.get(spec.server)?.spec.smc;
        [SmcKind::D, SmcKind::R].into_iter().find_map(|k| {
            a.iter()
                .find(|x| x.kind == k)
                .filter(|_| b.iter().any(|y| y.kind == k))
        })
    }

    /// A z/OS stack's copy of `len` payload bytes of a HiperSockets frame
    /// (its per-packet costs hold that of an Ethernet frame only).
    fn iqd_zos_copy(&self, h: usize, len: u32) -> u64 {
        let host = &self.hosts[h];
        match &host.spec.iqd {
            Some(a) if host.spec.kind == HostKind::Zos => {
                u64::from(len) * a.model.zos_byte_ps / 1000
            }
            _ => 0,
        }
    }

    /// The parameters of host `h`'s SMC path of kind `k`.
    fn smc_model(&self, h: usize, k: SmcKind) -> Option<&SmcModel> {
        self.hosts[h]
            .spec
            .smc
            .iter()
            .find(|x| x.kind == k)
            .map(|x| &x.model)
    }

    /// Sysplex distributor: forward a packet for the DVIPA to its target.
    /// Returns false if this host does not distribute that address.
    fn sd_forward(&mut self, h: usize, pkt: &Pkt) -> bool {
        let Some(d) = self.hosts[h].spec.distributor.as_ref() else {
            return false;
        };
        if d.dvipa != pkt.dst_ip || d.targets.is_empty() {
            return false;
        }
        let key = (pkt.src_ip, pkt.sport, pkt.dport);
        let n = d.targets.len();
        let next = d.targets[self.hosts[h].rr_next % n];
        let host = &mut self.hosts[h];
        let target = match host.vcrt.get(&key) {
            Some(&t) => t,
            // a new connection gets a route if the table has room
            None if pkt.flags & SYN != 0 && host.vcrt.len() < VCRT_ROUTES => {
                let t = next;
                host.rr_next = host.rr_next.wrapping_add(1);
                host.vcrt.insert(key, t);
                t
            }
            None => {
                // No route: a connection the table had no room for, or a
                // segment after its connection ended. Sent on at random it
                // would reach a target that does not know it; it is
                // dropped here and counted.
                host.stats.sd_unrouted += 1;
                return true;
            }
        };
        // A FIN does not end the route: the last ACK of the close follows
        // it. The target says when the connection is gone (`free_conn`).
        if pkt.flags & crate::packet::RST != 0 {
            host.vcrt.remove(&key);
        }
        if target == h {
            // Its own target: the stack serves the connection itself.
            host.stats.sd_local += 1;
            return false;
        }
        host.stats.sd_forwarded += 1;
        if let Some(x) = self.hosts[target].xcf_in.as_mut() {
            x.enqueue(*pkt);
        }
        true
    }

    fn kick_down(&mut self, h: usize, now: Ns) {
        if let Some((p, done, arrive)) = self.hosts[h].down.start(now) {
            self.link_frames += 1;
            self.q.schedule(done, Ev::DownDone(h));
            self.q.schedule(arrive, Ev::AtNic(h, p));
        }
    }

    // ------------------------------------------------------------ adapter

    fn micro_in(&mut self, h: usize, now: Ns, p: Pkt) {
        let Some((_, m, g)) = self.osas[h].as_mut() else {
            return;
        };
        if m.in_jobs >= g.in_buffer_frames {
            m.overruns += 1;
            return;
        }
        m.in_jobs += 1;
        m.jobs.push_back(MicroJob::In(p, now));
        self.micro_start(h, now);
    }

    fn micro_start(&mut self, h: usize, now: Ns) {
        let (from, end) = (self.measure_from, self.end);
        let Some((o, m, g)) = self.osas[h].as_mut() else {
            return;
        };
        if m.busy {
            return;
        }
        let Some(job) = m.jobs.front() else {
            return;
        };
        // The job's own work, where it is counted, and OLM's extra on it.
        let b = &mut m.busy_by;
        let (work, slot, olm) = match job {
            MicroJob::In(p, _) => (
                g.frame_cost(p.wire_len()) + if o.sorts() { g.sort_ns } else { 0 },
                &mut b.inbound_frames_ns,
                0,
            ),
            MicroJob::Out(p, queue) => {
                let segs = p.len.div_ceil(o.mss().max(1)).max(1);
                // Under OLM the adapter polls write queue 1 itself (SIGA
                // reduction); only that queue's frames carry OLM's extra.
                let olm = if o.olm() && *queue == 1 {
                    g.olm_frame_ns
                } else {
                    0
                };
                (
                    g.frame_cost(p.wire_len()) + (u64::from(segs) - 1) * g.frame_ns,
                    &mut b.outbound_frames_ns,
                    olm,
                )
            }
            MicroJob::Present => (g.present_ns, &mut b.presentations_ns, 0),
            MicroJob::OlmFrames(n) => (0, &mut b.olm_ns, n * g.olm_frame_ns),
            MicroJob::Signal => (g.signal_ns, &mut b.write_signals_ns, 0),
        };
        let cost = work + olm;
        // The window's part of each: the work first, OLM's extra after it.
        let work_part = window_part(from, end, now, work);
        let olm_part = window_part(from, end, now + work, olm);
        *slot += work_part;
        b.olm_ns += olm_part;
        let part = work_part + olm_part;
        m.busy = true;
        m.busy_ns += cost;
        m.busy_window += part;
        self.q.schedule(now + cost, Ev::MicroDone(h));
    }

    fn micro_done(&mut self, h: usize, now: Ns) {
        let job = {
            let Some((_, m, _)) = self.osas[h].as_mut() else {
                return;
            };
            m.busy = false;
            m.jobs.pop_front()
        };
        match job {
            Some(MicroJob::In(p, arrived)) => {
                if let Some((o, m, _)) = self.osas[h].as_mut() {
                    m.in_jobs -= 1;
                    m.last_in_arrival = arrived;
                    o.wire_in(now, &p);
                }
                self.osa_sync(h, now);
            }
            Some(MicroJob::Out(p, queue)) => {
                if let Some((_, m, _)) = self.osas[h].as_mut() {
                    m.out_inflight -= 1;
                }
                self.frame_sent(h, queue, now);
                self.hosts[h].up.enqueue(p);
                self.kick_up(h, now);
                self.osa_pull(h, now);
            }
            Some(MicroJob::Signal) => self.osa_pull(h, now),
            Some(MicroJob::Present) | Some(MicroJob::OlmFrames(_)) | None => {}
        }
        self.micro_start(h, now);
    }

    /// A write signal issued `siga_latency_ns` ago would be done now on an
    /// idle adapter: schedule its arrival at the microprocessor, which then
    /// spends `signal_ns` on it (spec 2.4).
    fn signal(&mut self, h: usize, now: Ns) {
        let lat = self.osas[h]
            .as_ref()
            .map_or(0, |(_, _, g)| g.siga_latency_ns.saturating_sub(g.signal_ns));
        self.q.schedule(now + lat, Ev::Siga(h));
    }

    /// A write signal reached the adapter: the microprocessor fields it in
    /// turn with its other work, then fetches every primed buffer.
    fn signal_arrives(&mut self, h: usize, now: Ns) {
        let Some((_, m, g)) = self.osas[h].as_mut() else {
            return;
        };
        if g.signal_ns == 0 {
            self.osa_pull(h, now);
            return;
        }
        m.jobs.push_back(MicroJob::Signal);
        self.micro_start(h, now);
    }

    /// Move frames from the engine's write queues toward the wire, keeping a
    /// short pipeline so the link never idles while the adapter has data.
    fn osa_pull(&mut self, h: usize, now: Ns) {
        let upq = self.hosts[h].up.queue.len();
        let mut pulled = false;
        let mut drained = false;
        if let Some((o, m, _)) = self.osas[h].as_mut() {
            while m.out_inflight + upq < 3 {
                match o.poll_transmit(now) {
                    Some((p, queue)) => {
                        m.out_inflight += 1;
                        m.jobs.push_back(MicroJob::Out(p, queue));
                        pulled = true;
                    }
                    None => {
                        drained = m.out_inflight == 0;
                        break;
                    }
                }
            }
        }
        if drained && self.hosts[h].wq_sbals.iter().any(|q| !q.is_empty()) {
            // every frame written has been sent: every SBAL is empty (also
            // covers frames the engine refused after accepting the write)
            for q in self.hosts[h].wq_sbals.iter_mut() {
                q.clear();
            }
            self.write_held(h, now);
        }
        if pulled {
            self.micro_start(h, now);
        }
    }

    /// Whether the write queue `batch` goes to has an empty SBAL.
    fn write_sbal_free(&self, h: usize, batch: &[(Pkt, u8)]) -> bool {
        let host = &self.hosts[h];
        let limit = self.osas[h]
            .as_ref()
            .map_or(usize::MAX, |(_, _, g)| g.write_queue_sbals.max(1));
        let imp = batch.first().map_or(0, |(_, i)| *i);
        let q = host.imp_queue[usize::from(imp)].unwrap_or(1);
        host.wq_sbals[wq_index(q)].len() < limit
    }

    /// Hand one filled SBAL's packets to the adapter. Returns whether the
    /// write needs a signal (SIGA): under OLM the adapter polls write queue
    /// 1 by itself (SIGA reduction, spec 2.4), so a write that went only
    /// there needs none; any other write is signalled. With `signalled` the
    /// stack signals (or OLM's polling finds) this SBAL at once, and the
    /// adapter's write queue counters say so; a held write's flush says it
    /// once for all its SBALs (`write_held`). `None` without an adapter.
    fn write_sbal(
        &mut self,
        h: usize,
        batch: &[(Pkt, u8)],
        signalled: bool,
        now: Ns,
    ) -> Option<bool> {
        let (o, _, _) = self.osas[h].as_mut()?;
        let olm = o.olm();
        let mut signal = !olm;
        let mut per_q = [0u32; 4];
        let host = &mut self.hosts[h];
        for (pk, im) in batch {
            let q = o.host_send(now, pk, *im);
            if let Some(q) = q {
                if q != 1 {
                    signal = true;
                }
                per_q[wq_index(q)] += 1;
                host.imp_queue[usize::from(*im)] = Some(q);
            }
        }
        for (q, &frames) in per_q.iter().enumerate() {
            if frames > 0 {
                host.wq_sbals[q].push_back(frames);
                host.wq_unsignalled[q] = true;
            }
        }
        if signalled {
            self.write_signalled(h);
        }
        Some(signal)
    }

    /// The stack's signal (or OLM's polling) covers what it wrote to each
    /// write queue since the last one: the adapter's counters are told.
    fn write_signalled(&mut self, h: usize) {
        let Some((o, _, _)) = self.osas[h].as_mut() else {
            return;
        };
        for (q, pending) in self.hosts[h].wq_unsignalled.iter_mut().enumerate() {
            if std::mem::take(pending) {
                o.write_signalled(q as u8 + 1);
            }
        }
    }

    /// The adapter sent a frame of write queue `queue`: when that empties
    /// the oldest SBAL, writes the stack held can go.
    fn frame_sent(&mut self, h: usize, queue: u8, now: Ns) {
        let sbals = &mut self.hosts[h].wq_sbals[wq_index(queue)];
        let Some(front) = sbals.front_mut() else {
            return;
        };
        *front = front.saturating_sub(1);
        if *front == 0 {
            sbals.pop_front();
            self.write_held(h, now);
        }
    }

    /// Write what the stack held for lack of an empty SBAL, in order, as
    /// far as SBALs are free; the adapter is signalled once (the stack's
    /// device layer notices the emptied buffer on output completion).
    fn write_held(&mut self, h: usize, now: Ns) {
        let mut signal = false;
        let mut wrote = false;
        while let Some(batch) = self.hosts[h].held_writes.front() {
            if !self.write_sbal_free(h, batch) {
                break;
            }
            let Some(batch) = self.hosts[h].held_writes.pop_front() else {
                break;
            };
            signal |= self.write_sbal(h, &batch, false, now).unwrap_or(false);
            wrote = true;
        }
        if !wrote {
            return;
        }
        self.write_signalled(h);
        if signal {
            self.hosts[h].stats.sigas += 1;
            self.signal(h, now);
            self.osa_sync(h, now);
        } else {
            self.osa_sync_pull(h, now, true);
        }
    }

    /// After any engine call: turn presentations into units of work, keep the
    /// engine's timer scheduled, move outbound frames.
    fn osa_sync(&mut self, h: usize, now: Ns) {
        self.osa_sync_pull(h, now, false);
    }

    fn osa_sync_pull(&mut self, h: usize, now: Ns, pull: bool) {
        loop {
            let Some((o, m, _)) = self.osas[h].as_mut() else {
                return;
            };
            let Some(pres) = o.poll_presentation(now) else {
                break;
            };
            if pres.interrupt {
                m.jobs.push_back(MicroJob::Present);
            }
            if o.olm() && pres.queue != QueueKind::BulkData && !pres.frames.is_empty() {
                m.jobs
                    .push_back(MicroJob::OlmFrames(pres.frames.len() as u64));
            }
            // An early interrupt was raised when the frame reached the
            // adapter, before the microprocessor had stored it.
            let lead = pres
                .early
                .then(|| (now, now.saturating_sub(m.last_in_arrival)));
            let mut u = Unit::new(if pres.serialized {
                Some(pres.key)
            } else {
                None
            });
            let first = if pres.interrupt {
                self.hosts[h].stats.interrupts += 1;
                Step::Interrupt(lead)
            } else {
                self.hosts[h].stats.polls += 1;
                Step::Poll
            };
            let key = pres.key;
            self.batch_steps(h, &mut u, first, pres.frames, pres.ack_each_ooo, pres.token);
            self.end_poll_windows(h, key, now);
            if pres.serialized && merge_into_pass(&mut self.hosts[h].cpu, key, &mut u) {
                // Joined the unit already on this queue (waiting, or
                // running and not yet at its end): it processes every SBAL
                // primed on the queue in one pass (one send or ACK per
                // connection at its end), returning each SBAL as it is
                // done.
            } else {
                self.submit(h, u, now);
            }
            self.micro_start(h, now);
        }
        let next = self.osas[h].as_ref().and_then(|(o, _, _)| o.poll_timeout());
        if let Some(t) = next {
            let t = t.max(now);
            if self.osa_timer[h].is_none_or(|cur| t < cur) {
                self.osa_timer[h] = Some(t);
                self.q.schedule(t, Ev::EngineTimer(h));
            }
        }
        if pull {
            self.osa_pull(h, now);
        }
    }

    // ------------------------------------------------------------ CPU

    /// The workload a received frame belongs to (its connection's, or the
    /// listener's for a new connection); UNATTRIBUTED if none.
    fn frame_wl(&self, h: usize, p: &Pkt) -> usize {
        let host = &self.hosts[h];
        host.lookup
            .get(&(p.dport, p.src_ip, p.sport))
            .and_then(|&c| host.conns.get(c)?.as_ref())
            .map(|cn| cn.wl)
            .or_else(|| host.listen.get(&p.dport).copied())
            .or_else(|| {
                // A distributor holds no connection of what it forwards:
                // the DVIPA's port names the distributed workload, whose
                // CPU this is (not the distributor's own workloads').
                let d = host.spec.distributor.as_ref()?;
                (d.dvipa == p.dst_ip)
                    .then(|| host.distributed.get(&p.dport).copied())
                    .flatten()
            })
            .unwrap_or(UNATTRIBUTED)
    }

    /// A batch was presented on input queue `key`: a processor polling that
    /// queue (OLM poll window) stops looking now, and the CPU time charged
    /// in advance for the rest of its window is given back.
    fn end_poll_windows(&mut self, h: usize, key: u64, now: Ns) {
        let (from, end) = (self.measure_from, self.end);
        let host = &mut self.hosts[h];
        for p in 0..host.cur.len() {
            if !matches!(host.cur[p], Some((Step::PollWindow(k, _), _)) if k == key) {
                continue;
            }
            let Some(sp) = host.spin[p].take() else {
                continue;
            };
            let unspent = sp.end.saturating_sub(now);
            if let Some(b) = host.cpu.busy_ns.get_mut(p) {
                *b = b.saturating_sub(unspent);
            }
            // what of the unspent rest the window had counted
            let counted = window_part(from, end, now, unspent);
            host.cpu_window = host.cpu_window.saturating_sub(counted);
            if let Some(x) = host.cpu_wl.get_mut(sp.slot) {
                *x = x.saturating_sub(counted);
            }
            host.step_gen[p] = host.step_gen[p].wrapping_add(1);
            let gen = host.step_gen[p];
            self.q.schedule(now, Ev::CpuDone(h, p, gen));
        }
    }

    /// Fill a unit that processes one presented batch: its first step (an
    /// interrupt or a poll), one receive step per frame, the batch end. Each
    /// frame's processing is charged to its own workload; the interrupt or
    /// poll and the batch end to the batch's workload when all its frames
    /// belong to one, else shared (by CPU) among the host's workloads.
    fn batch_steps(
        &self,
        h: usize,
        u: &mut Unit<(Step, usize)>,
        first: Step,
        frames: Vec<Pkt>,
        ack_each_ooo: bool,
        token: u64,
    ) {
        let wls: Vec<usize> = frames.iter().map(|p| self.frame_wl(h, p)).collect();
        let common = match wls.first() {
            Some(&w) if wls.iter().all(|&x| x == w) => w,
            _ => UNATTRIBUTED,
        };
        u.steps.push_back((first, common));
        for (p, w) in frames.into_iter().zip(wls) {
            u.steps.push_back((Step::Rx(p, ack_each_ooo), w));
        }
        u.steps.push_back((Step::BatchEnd(token), common));
    }

    fn submit(&mut self, h: usize, u: Unit<(Step, usize)>, now: Ns) {
        let mut u = u;
        if let Some(v) = self.hosts[h].vse.as_mut() {
            // On VSE all stack work (interrupts, timers, connects) belongs to
            // the TCP/IP partition; application units carry their own key.
            let key = *u.serial.get_or_insert(crate::vse::tcpip_key(h));
            if crate::vse::partition_of(h, Some(key)) == Partition::Tcpip {
                v.stack_unit_submitted();
            }
        }
        self.hosts[h].stats.units += 1;
        self.hosts[h].cpu.submit(u);
        let mut started = std::mem::take(&mut self.started);
        started.clear();
        self.hosts[h].cpu.dispatch(&mut started);
        for &p in &started {
            self.next_step(h, p, now);
        }
        self.started = started;
    }

    fn next_step(&mut self, h: usize, p: usize, now: Ns) {
        loop {
            let key = if self.hosts[h].vse.is_some() {
                self.hosts[h].cpu.serial_of(p)
            } else {
                None
            };
            let Some((step, wl)) = self.hosts[h].cpu.next_step(p) else {
                if key.is_some() {
                    self.vse_unit_done(h, key, now);
                }
                // unit finished: start another one if ready
                let mut started = std::mem::take(&mut self.started);
                started.clear();
                self.hosts[h].cpu.dispatch(&mut started);
                let again = started.contains(&p);
                let others: Vec<usize> = started.iter().copied().filter(|x| *x != p).collect();
                self.started = started;
                for o in others {
                    self.next_step(h, o, now);
                }
                if again {
                    continue;
                }
                return;
            };
            let cost = match step {
                // wall time spent looking, not a service time that varies
                Step::PollWindow(_, until) => until.saturating_sub(now),
                _ => self.vary(self.step_cost(h, &step)),
            };
            let (from, end) = (self.measure_from, self.end);
            let host = &mut self.hosts[h];
            // VSE: the step's non-parallel part needs the system-wide lock;
            // waiting for it spins (CPU time).
            let (elapsed, cost) = match host.vse.as_mut() {
                Some(v) => {
                    let c = &host.spec.costs;
                    let share = match crate::vse::partition_of(h, key) {
                        Partition::Tcpip => c.stack_np_share,
                        Partition::App => c.app_np_share,
                        Partition::Other => 0.0,
                    };
                    let (el, spin) = v.np_reserve(now, cost, share);
                    (el, cost + spin)
                }
                None => (cost, cost),
            };
            // An OLM early interrupt taken as soon as it was presented: the
            // processor has been fielding it since the frame reached the
            // adapter (CPU charged in full; only the wait overlaps).
            let elapsed = match step {
                Step::Interrupt(Some((at, lead))) if at == now => elapsed.saturating_sub(lead),
                _ => elapsed,
            };
            host.cpu.charge(p, cost);
            // The measured window holds the part of the step that falls in
            // it, so a step across either edge counts for what it spent
            // inside (the CPU time spread evenly over the step).
            let counted = if elapsed == 0 {
                window_part(from, end, now, 1) * cost
            } else {
                let inside = window_part(from, end, now, elapsed);
                (u128::from(cost) * u128::from(inside) / u128::from(elapsed)) as u64
            };
            let slot = if wl == UNATTRIBUTED {
                host.cpu_wl.len() - 1
            } else {
                wl
            };
            host.cpu_window += counted;
            if let Some(x) = host.cpu_wl.get_mut(slot) {
                *x += counted;
            }
            host.cur[p] = Some((step, wl));
            host.spin[p] = match step {
                Step::PollWindow(..) => Some(Spin {
                    end: now + elapsed,
                    slot,
                }),
                _ => None,
            };
            let gen = host.step_gen[p];
            self.q.schedule(now + elapsed, Ev::CpuDone(h, p, gen));
            return;
        }
    }

    /// CPU service time varies from one execution to the next (cache and
    /// TLB state, memory contention): a step takes at least 80 % of its
    /// nominal cost plus an exponentially distributed rest, 100 % on
    /// average. The variation is what lets a unit of work that started later
    /// finish first on another processor (the SRB races of spec 2.3).
    fn vary(&mut self, cost: u64) -> u64 {
        if cost == 0 {
            return 0;
        }
        let base = cost * 4 / 5;
        base + exp_draw(&mut self.cpu_rng, cost - base)
    }

    fn step_cost(&self, h: usize, step: &Step) -> u64 {
        let host = &self.hosts[h];
        let c = &host.spec.costs;
        match step {
            Step::Interrupt(_) => c.interrupt_ns,
            Step::Poll => c.poll_ns,
            Step::AppCall(..) => c.app_call_ns,
            Step::Rx(p, _) if p.smc.is_some() => {
                // A write taken from the SMC path: no IP or TCP segment
                // processing; the data is copied out of the receive buffer.
                let m = p.smc.and_then(|k| self.smc_model(h, k));
                m.map_or(c.rx_ack_ns, |m| {
                    m.recv_ns + u64::from(p.len) * m.copy_byte_ps / 1000
                })
            }
            Step::Rx(p, _) => {
                let cp = vswitch_cost(&host.spec, p);
                if p.len == 0 {
                    return c.rx_ack_ns + esp_cost(c, p) + cp;
                }
                let bytes = u64::from(p.len) * c.byte_ps / 1000;
                let ooo = host
                    .lookup
                    .get(&(p.dport, p.src_ip, p.sport))
                    .and_then(|&i| host.conns.get(i)?.as_ref())
                    .is_some_and(|cn| {
                        cn.tcb.state == State::Established && p.seq != cn.tcb.rcv_nxt
                    });
                bytes
                    + c.rx_pkt_ns
                    + if ooo { c.rx_ooo_ns } else { 0 }
                    + self.iqd_zos_copy(h, p.len)
                    + esp_cost(c, p)
                    + cp
            }
            Step::BatchEnd(_) | Step::ReturnBuffers(_) => 0,
            Step::PollWindow(..) => 0,
            Step::Siga => c.siga_ns,
            Step::Tx(p, _, _, _, _) if p.smc.is_some() => {
                // Posting a write: the data copied into the send buffer
                // (unless the move takes it from the application's own)
                // and, over ISM, moved by the CPU.
                let m = p.smc.and_then(|k| self.smc_model(h, k));
                m.map_or(c.tx_ack_ns, |m| {
                    let copy = if m.zero_copy_send { 0 } else { m.copy_byte_ps };
                    m.send_ns + u64::from(p.len) * (copy + m.move_byte_ps) / 1000
                })
            }
            Step::Tx(p, kind, _, _, _) => {
                // On HiperSockets the sending CPU also moves the frame.
                let mv = host.spec.iqd.as_ref().map_or(0, |a| {
                    a.move_cost(crate::iqd::frame_bytes(p.len + p.esp_overhead()))
                }) + self.iqd_zos_copy(h, p.len);
                mv + esp_cost(c, p)
                    + vswitch_cost(&host.spec, p)
                    + match kind {
                        TxKind::Ack => c.tx_ack_ns,
                        TxKind::Data => {
                            let mss = host.spec.link.mtu.saturating_sub(40).max(536);
                            let bytes = u64::from(p.len) * c.byte_ps / 1000;
                            if p.len > mss {
                                bytes + c.tso_seg_ns + u64::from(p.len.div_ceil(mss)) * c.tso_pkt_ns
                            } else {
                                // Segmentation offload needs checksum offload:
                                // the adapter then computes the TCP checksum of
                                // every outbound data packet, small ones too; the
                                // stack still does header-only packets, and an
                                // ESP packet's (its checksum is encrypted).
                                let offload = host.spec.segmentation_offload && p.len > 0 && !p.esp;
                                let cksum = if offload {
                                    0
                                } else {
                                    u64::from(p.len + 20) * c.cksum_ps_per_byte / 1000
                                };
                                bytes + cksum + c.tx_pkt_ns
                            }
                        }
                    }
            }
            Step::Sock(ci, id, op) => {
                // On an SMC connection a socket call does the socket layer's
                // part only: the TCP protocol work it would do is the SMC
                // path's, paid per write.
                let smc_share = || {
                    let cn = host.conns.get(*ci)?.as_ref().filter(|cn| cn.id == *id)?;
                    let m = self.smc_model(h, cn.tcb.cfg.smc?)?;
                    Some(u64::from(m.socket_share_pct.min(100)))
                };
                // (Only a host with SMC looks its connection up.)
                let sock_call_ns = if host.spec.smc.is_empty() {
                    c.sock_call_ns
                } else {
                    smc_share().map_or(c.sock_call_ns, |pct| c.sock_call_ns * pct / 100)
                };
                let calls = match op {
                    SockOp::Request | SockOp::Respond => {
                        return 2 * sock_call_ns + self.tls_cost(h, *ci, *id, *op);
                    }
                    SockOp::Read => 1,
                    SockOp::Write => host
                        .conns
                        .get(*ci)
                        .and_then(|c| c.as_ref())
                        .filter(|cn| cn.id == *id)
                        .map(|cn| {
                            let n = cn.to_write.min(u64::from(cn.tcb.send_space()));
                            n.div_ceil(u64::from(c.sock_block.max(1))).max(1)
                        })
                        .unwrap_or(1),
                };
                calls * sock_call_ns
            }
            Step::Connect(..) => c.conn_ns,
            Step::Timer(..) => c.interrupt_ns / 2,
        }
    }

    /// TLS CPU of one request/response step: handshake work during the
    /// handshake, symmetric crypto of the message bytes after it.
    fn tls_cost(&self, h: usize, c: usize, id: u32, op: SockOp) -> u64 {
        let host = &self.hosts[h];
        let Some(cn) = host
            .conns
            .get(c)
            .and_then(|x| x.as_ref())
            .filter(|x| x.id == id)
        else {
            return 0;
        };
        let spec = &self.workloads[cn.wl];
        let Some(tls) = spec.tls else {
            return 0;
        };
        let k = &host.spec.costs;
        let (req, resp, in_hs) = msg_sizes(spec, cn.hs, false);
        let bytes = req + resp;
        let sym = bytes * k.crypto_ps_per_byte / 1000 + k.tls_record_ns;
        if !in_hs {
            return sym;
        }
        let server = matches!(op, SockOp::Respond);
        match (tls, cn.hs, server) {
            (crate::workload::Tls::Resume, _, _) => k.tls_resume_ns,
            // the server decrypts the pre-master secret: RSA private key
            (crate::workload::Tls::Full, 1, true) => {
                k.tls_handshake_ns / 2
                    + if host.spec.crypto_coprocessor {
                        k.rsa_copro_ns
                    } else {
                        k.rsa_ns
                    }
            }
            (crate::workload::Tls::Full, _, _) => k.tls_handshake_ns / 2,
        }
    }

    fn cpu_done(&mut self, h: usize, p: usize, now: Ns) {
        if let Some((step, wl)) = self.hosts[h].cur[p].take() {
            self.front_pushed = 0;
            self.apply(h, p, step, wl, now);
        }
        self.next_step(h, p, now);
    }

    fn push_segs(&mut self, h: usize, p: usize, c: usize) {
        self.push_segs_from(h, p, c, false);
    }

    fn push_segs_from(&mut self, h: usize, p: usize, c: usize, app: bool) {
        if self.segs.is_empty() {
            return;
        }
        if let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) {
            if app {
                cn.app_emitting += 1;
            } else {
                cn.srb_emitting += 1;
            }
        }
        let segs = std::mem::take(&mut self.segs);
        let host = &self.hosts[h];
        let Some(cn) = host.conns.get(c).and_then(|x| x.as_ref()) else {
            self.segs = segs;
            self.segs.clear();
            return;
        };
        let wl = cn.wl;
        let imp = self.workloads.get(wl).map(|w| w.importance).unwrap_or(1);
        let mk = |s: &Seg| {
            // the close handshake goes over TCP
            let smc = cn.tcb.cfg.smc.filter(|_| {
                s.flags & (SYN | FIN | crate::packet::RST) == 0
                    && cn.close == Close::Open
                    && cn.smc_from.is_some_and(|f| seq_le(f, s.seq))
            });
            let pk = cn.packet(s, smc);
            let k = if s.len == 0 && s.flags & (SYN | FIN) == 0 {
                TxKind::Ack
            } else {
                TxKind::Data
            };
            (Step::Tx(pk, k, imp, false, app), wl)
        };
        let mut steps: Vec<(Step, usize)> = segs.iter().map(mk).collect();
        if let Some((Step::Tx(_, _, _, eow, _), _)) = steps.last_mut() {
            *eow = true;
        }
        let n = steps.len();
        self.hosts[h]
            .cpu
            .insert_front(p, self.front_pushed, steps.into_iter());
        self.front_pushed += n;
        self.segs = segs;
        self.segs.clear();
    }

    fn apply(&mut self, h: usize, p: usize, step: Step, wl: usize, now: Ns) {
        match step {
            Step::Interrupt(_) | Step::Poll | Step::PollWindow(..) => {}
            Step::ReturnBuffers(token) => {
                if self.hosts[h].spec.kind == HostKind::Zos && token != u64::MAX {
                    if let Some((o, _, _)) = self.osas[h].as_mut() {
                        // a serialized (BULKDATA) queue: no OLM poll window
                        let _ = o.complete(now, token);
                    }
                    self.osa_sync(h, now);
                }
            }
            Step::AppCall(c, id, op) => {
                if let Some(v) = self.hosts[h].vse.as_mut() {
                    v.pending.push_back((c, id, op, wl));
                }
            }
            Step::Rx(pkt, ack_each_ooo) => {
                let cp = vswitch_cost(&self.hosts[h].spec, &pkt);
                self.hosts[h].stats.vswitch_cp_ns += cp;
                if self.hosts[h].spec.iqd.is_some() {
                    // the frame is processed: its input buffer is free again
                    self.hosts[h].iqd_held = self.hosts[h].iqd_held.saturating_sub(1);
                }
                self.rx(h, p, pkt, ack_each_ooo, now)
            }
            Step::BatchEnd(token) => {
                let touched = std::mem::take(&mut self.hosts[h].touched[p]);
                let zos = self.hosts[h].spec.kind == HostKind::Zos;
                let no_delay = self.hosts[h].spec.tcp.delay_acks == AckDelay::NoDelay;
                for &c in &touched {
                    let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) else {
                        continue;
                    };
                    cn.in_units = cn.in_units.saturating_sub(1);
                    // The IWQ rule decides on the whole batch: when its
                    // out-of-order segments leave a hole open at the end
                    // (likely loss), each is answered by an ACK, so the
                    // sender sees duplicate ACKs at once; when later
                    // segments of the same batch filled the hole, nothing
                    // was lost and the batch gets the usual one ACK.
                    let dups = std::mem::take(&mut cn.ooo_acks);
                    if dups > 0 && cn.tcb.ooo_bytes > 0 {
                        for _ in 0..dups {
                            let a = cn.tcb.make_ack();
                            self.segs.push(a);
                        }
                        cn.force_ack = false;
                        self.push_segs(h, p, c);
                    }
                    let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) else {
                        continue;
                    };
                    // z/OS sends once per batch; any host sends here what an
                    // application wrote while this unit held the connection.
                    if (cn.tcb.defer_output || cn.tcb.has_unsent())
                        && cn.app_emitting == 0
                        && cn.tcb.output(now, &mut self.segs) > 0
                    {
                        self.push_segs(h, p, c);
                        self.arm_timers(h, c);
                        continue;
                    }
                    let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) else {
                        continue;
                    };
                    if !cn.tcb.ack_pending {
                        continue;
                    }
                    // NODELAYACKS: what arrived is acknowledged now, not
                    // held for a reply. AUTODELAYACKS is taken as DELAYACKS:
                    // it keeps delaying where the reply carries the ACK before
                    // the delay runs out, as in every closed-loop workload.
                    if cn.tcb.unacked_segs >= 2 || cn.force_ack || no_delay {
                        cn.force_ack = false;
                        let a = cn.tcb.make_ack();
                        self.segs.push(a);
                        self.push_segs(h, p, c);
                    } else if cn.tcb.delack_at.is_none() {
                        cn.tcb.delack_at = Some(now + DELACK_ZOS_NS);
                        self.arm_timers(h, c);
                    }
                }
                let mut touched = touched;
                touched.clear();
                self.hosts[h].touched[p] = touched;
                if zos && token != u64::MAX {
                    let look = self.osas[h]
                        .as_mut()
                        .and_then(|(o, _, _)| o.complete(now, token));
                    if let Some((key, until)) = look.filter(|(_, t)| *t > now) {
                        self.hosts[h]
                            .cpu
                            .push_front(p, [(Step::PollWindow(key, until), wl)].into_iter());
                    }
                    self.osa_sync(h, now);
                }
            }
            Step::Tx(pkt, kind, imp, eow, app) => {
                if eow {
                    self.write_done(h, p, &pkt, app, now);
                }
                let host = &mut self.hosts[h];
                host.stats.vswitch_cp_ns += vswitch_cost(&host.spec, &pkt);
                host.stats.segments_out += 1;
                if let TxKind::Ack = kind {
                    host.stats.acks_out += 1;
                }
                if let Some(k) = pkt.smc {
                    self.smc_send(h, k, pkt, now);
                } else if self.hosts[h].spec.iqd.is_some() {
                    self.iqd_send(h, pkt, now);
                } else if self.osas[h].is_some() {
                    // Fill an output SBAL (up to 16 packets or 64 KB), then
                    // hand it to the adapter in one write.
                    let pw = &mut self.hosts[h].pending_write[p];
                    pw.push((pkt, imp));
                    let bytes: u32 = pw.iter().map(|(x, _)| x.len + 54).sum();
                    if !(eow || pw.len() >= SBAL_PACKETS || bytes >= 65_536) {
                        return;
                    }
                    let batch = std::mem::take(&mut self.hosts[h].pending_write[p]);
                    if !self.hosts[h].held_writes.is_empty() || !self.write_sbal_free(h, &batch) {
                        // No empty output SBAL: the stack keeps the data, in
                        // order behind what it already holds. The write's
                        // signal comes when an SBAL empties.
                        self.hosts[h].stats.write_waits += 1;
                        self.hosts[h].held_writes.push_back(batch);
                        return;
                    }
                    // Written here, each SBAL is signalled at once (or
                    // polled under OLM), the end of a write or not.
                    let Some(signal) = self.write_sbal(h, &batch, true, now) else {
                        return;
                    };
                    let mut batch = batch;
                    batch.clear();
                    self.hosts[h].pending_write[p] = batch;
                    if !signal {
                        self.osa_sync_pull(h, now, true);
                    } else if eow {
                        // the stack issues the SIGA instruction (CPU), then
                        // the adapter fetches
                        self.osa_sync(h, now);
                        self.hosts[h]
                            .cpu
                            .push_front(p, [(Step::Siga, wl)].into_iter());
                    } else {
                        // a full SBAL within a longer write: signalled too
                        self.hosts[h].stats.sigas += 1;
                        self.osa_sync(h, now);
                        self.signal(h, now);
                    }
                } else {
                    self.hosts[h].up.enqueue(pkt);
                    self.kick_up(h, now);
                }
            }
            Step::Sock(c, id, op) => self.sock(h, p, c, id, op, now),
            Step::Connect(w) => self.connect(h, p, w, now),
            Step::Siga => {
                self.hosts[h].stats.sigas += 1;
                self.signal(h, now);
            }
            Step::Timer(c, id) => {
                let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) else {
                    return;
                };
                if cn.id != id {
                    return;
                }
                if cn.tcb.rto_at.is_some_and(|t| t <= now) {
                    cn.tcb.on_rto(now, &mut self.segs);
                }
                if cn.tcb.delack_at.is_some_and(|t| t <= now) && cn.tcb.ack_pending {
                    let a = cn.tcb.make_ack();
                    self.segs.push(a);
                }
                self.push_segs(h, p, c);
                self.arm_timers(h, c);
            }
        }
        let _ = wl;
    }

    fn alloc_conn(&mut self, h: usize, cn: Conn) -> usize {
        let host = &mut self.hosts[h];
        let key = (cn.lport, cn.rip, cn.rport);
        let idx = match host.free.pop() {
            Some(i) => {
                host.conns[i] = Some(cn);
                i
            }
            None => {
                host.conns.push(Some(cn));
                host.conns.len() - 1
            }
        };
        host.lookup.insert(key, idx);
        host.stats.connections_opened += 1;
        idx
    }

    fn free_conn(&mut self, h: usize, c: usize) {
        let host = &mut self.hosts[h];
        let Some(cn) = host.conns.get_mut(c).and_then(|x| x.take()) else {
            return;
        };
        host.lookup.remove(&(cn.lport, cn.rip, cn.rport));
        let s = cn.tcb.stats;
        host.stats.ooo_segments_in += s.ooo_in;
        host.stats.dupacks_in += s.dupacks_in;
        host.stats.fast_retransmits += s.fast_rexmits;
        host.stats.timeouts += s.timeouts;
        host.stats.retransmits += s.rexmits;
        host.free.push(c);
        // A target tells its distributor that a distributed connection has
        // ended, which removes the distributor's route for it (a DVIPA maps
        // to its distributor, any other address to its own host; a
        // distributor that served the connection itself ends its own route).
        if let Some(d) = self.ip_map.get(&cn.lip).copied().filter(|&d| {
            d != h
                || self.hosts[d]
                    .spec
                    .distributor
                    .as_ref()
                    .is_some_and(|x| x.dvipa == cn.lip)
        }) {
            self.hosts[d].vcrt.remove(&(cn.rip, cn.rport, cn.lport));
        }
    }

    fn tcp_cfg(&self, h: usize, w: usize, peer: usize) -> TcpCfg {
        let spec = &self.workloads[w];
        let mtu = self.hosts[h]
            .spec
            .link
            .mtu
            .min(self.hosts[peer].spec.link.mtu);
        // An application's own size wins over the stack's default, up to
        // the maximum the profile codes (z/OS limits what an application
        // may ask for; softosa assumes no limit the profile does not code).
        let t = &self.hosts[h].spec.tcp;
        let ask = |want: Option<u32>, dflt: u32, max: Option<u32>| {
            want.map_or(dflt, |b| max.map_or(b, |m| b.min(m)))
        };
        let rcvbuf = ask(spec.rcvbuf, t.rcv_buf, t.max_rcv_buf_coded);
        // An SMC connection's data goes in writes of up to the path's size,
        // and at most a quarter of the smaller receive buffer, so that
        // several are in flight while the receiver's cursor updates return.
        let smc = self.smc_for(w).map(|s| {
            let pt = &self.hosts[peer].spec.tcp;
            let peer_rcv = ask(spec.rcvbuf, pt.rcv_buf, pt.max_rcv_buf_coded);
            let write = (rcvbuf.min(peer_rcv) / 4).clamp(1024, s.model.write_bytes.max(1024));
            (s.kind, write)
        });
        // ESP's header, IV, trailer and check value leave less of the MTU
        // for TCP; and every packet is encrypted on its own, so none is
        // offloaded (spec 4.1, 3.2).
        let esp = if spec.ipsec { ESP_OVERHEAD } else { 0 };
        TcpCfg {
            mss: smc.map_or(mtu.saturating_sub(40 + esp).max(536), |(_, b)| b),
            smc: smc.map(|(k, _)| k),
            sndbuf: ask(spec.sndbuf, t.send_buf, t.max_send_buf_coded),
            rcvbuf,
            tso: self.hosts[h].spec.segmentation_offload && !spec.ipsec,
            dupthresh: t.frr_threshold,
            ..TcpCfg::default()
        }
    }

    fn connect(&mut self, h: usize, p: usize, w: usize, now: Ns) {
        let server = self.workloads[w].server;
        let target = self.workloads[w].via_distributor.unwrap_or(server);
        let cfg = self.tcp_cfg(h, w, server);
        let rip = self.hosts[server]
            .spec
            .distributor
            .as_ref()
            .filter(|_| self.workloads[w].via_distributor.is_some())
            .map(|d| d.dvipa)
            .unwrap_or(self.hosts[server].spec.ip);
        let rport = listen_port(w);
        // pick a free ephemeral port
        let host = &mut self.hosts[h];
        let mut lport = host.next_port;
        for _ in 0..64_512 {
            lport = if host.next_port == u16::MAX {
                1024
            } else {
                host.next_port + 1
            };
            host.next_port = lport;
            if !host.lookup.contains_key(&(lport, rip, rport)) {
                break;
            }
        }
        if let Some(t) = host.time_wait.remove(&(lport, rip, rport)) {
            if t.until > now {
                host.stats.time_wait_reused += 1;
            }
        }
        host.iss = host.iss.wrapping_add(0x0101_0101);
        let id = host.next_id;
        host.next_id = host.next_id.wrapping_add(1);
        let (mut tcb, syn) = Tcb::connect(cfg, host.iss, now);
        tcb.defer_output = host.spec.kind == HostKind::Zos;
        let lip = self.hosts[h].spec.ip;
        let ends = ConnEnds {
            lip,
            lport,
            rip,
            rport,
            src_mac: self.macs[h],
            dst_mac: self.macs[target],
        };
        let esp = self.workloads[w].ipsec;
        let cn = Conn::new(id, tcb, (w, esp), true, ends, now);
        let c = self.alloc_conn(h, cn);
        self.segs.push(syn);
        self.push_segs(h, p, c);
        self.arm_timers(h, c);
    }

    fn rx(&mut self, h: usize, p: usize, pkt: Pkt, ack_each_ooo: bool, now: Ns) {
        if self.sd_forward(h, &pkt) {
            for t in 0..self.hosts.len() {
                self.kick_xcf(t, now);
            }
            return;
        }
        let key = (pkt.dport, pkt.src_ip, pkt.sport);
        let found = self.hosts[h].lookup.get(&key).copied();
        let c = match found {
            Some(c) => c,
            None => {
                let w = self.hosts[h].listen.get(&pkt.dport).copied();
                match w {
                    Some(w) if pkt.flags & SYN != 0 && pkt.flags & ACK == 0 => {
                        let cfg = self.tcp_cfg(h, w, self.workloads[w].client);
                        let host = &mut self.hosts[h];
                        host.iss = host.iss.wrapping_add(0x0101_0101);
                        let id = host.next_id;
                        host.next_id = host.next_id.wrapping_add(1);
                        let (mut tcb, sa) = Tcb::accept(cfg, host.iss, pkt.seq, pkt.wnd, now);
                        tcb.defer_output = host.spec.kind == HostKind::Zos;
                        let src = self
                            .by_mac
                            .get(&pkt.src_mac)
                            .copied()
                            .or_else(|| self.ip_map.get(&pkt.src_ip).copied())
                            .unwrap_or(0);
                        let ends = ConnEnds {
                            lip: pkt.dst_ip,
                            lport: pkt.dport,
                            rip: pkt.src_ip,
                            rport: pkt.sport,
                            src_mac: self.macs[h],
                            dst_mac: self.macs[src],
                        };
                        let esp = self.workloads[w].ipsec;
                        let cn = Conn::new(id, tcb, (w, esp), false, ends, now);
                        let c = self.alloc_conn(h, cn);
                        self.segs.push(sa);
                        self.push_segs(h, p, c);
                        self.arm_timers(h, c);
                    }
                    _ => self.time_wait_rx(h, p, &pkt, now),
                }
                return;
            }
        };
        let zos = self.hosts[h].spec.kind == HostKind::Zos;
        let ack_every = self.hosts[h].spec.costs.ack_every.max(1);
        let delack = self.hosts[h].spec.costs.delack_ns.max(1_000_000);
        let block = self.hosts[h].spec.costs.sock_block.max(1);
        let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) else {
            return;
        };
        let r = cn.tcb.input(
            now,
            pkt.seq,
            pkt.ack,
            pkt.flags,
            pkt.wnd,
            pkt.len,
            &mut self.segs,
        );
        if cn.close != Close::Open {
            self.closing_rx(h, p, c, r.peer_fin, now);
            return;
        }
        let w = cn.wl;
        let id = cn.id;
        if pkt.len > 0 && now >= self.measure_from && now < self.end {
            if let Some(x) = self.hosts[h].rx_wl.get_mut(w) {
                *x += 1;
            }
        }
        let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) else {
            return;
        };
        // ---- ACK policy
        if pkt.len > 0 || r.peer_fin {
            if zos {
                if r.ooo && ack_each_ooo {
                    cn.ooo_acks += 1;
                    cn.force_ack = true;
                } else if r.ooo || r.dup_data || r.filled_hole || pkt.len >= cn.tcb.cfg.mss {
                    // out of order, or a full-sized (streaming) segment: ACK
                    // at the end of this batch; small requests wait for a
                    // piggyback or the delayed-ACK timer.
                    cn.force_ack = true;
                }
            } else if cn.tcb.ack_pending
                && (r.ooo
                    || r.dup_data
                    || r.filled_hole
                    // a server closes at once on the peer's FIN, and its
                    // own FIN carries the ACK (a pure ACK queued before it
                    // would go out after it)
                    || (r.peer_fin && cn.client)
                    || cn.tcb.unacked_segs >= ack_every)
            {
                let a = cn.tcb.make_ack();
                self.segs.push(a);
            } else if cn.tcb.ack_pending && cn.tcb.delack_at.is_none() {
                cn.tcb.delack_at = Some(now + delack);
            }
        }
        let spec = &self.workloads[w];
        let kind = spec.kind;
        let (req, resp, in_hs) = msg_sizes(spec, cn.hs, cn.tcb.cfg.smc.is_some());
        let mut app: Option<SockOp> = None;
        let mut txn_done = false;
        // the client's pause before its next request (or connection)
        let mut think = 0;
        let mut close_client = false;
        let mut close_server = false;
        if r.established && cn.client {
            app = Some(SockOp::Request);
        }
        if r.delivered > 0 {
            // A handshake's messages (TLS, SMC's CLC) are the stack's, not
            // the application's data: they count as neither's throughput.
            if !in_hs && now >= self.measure_from && now < self.end {
                self.stats[w].delivered_bytes += u64::from(r.delivered);
            }
            cn.rcvd += u64::from(r.delivered);
            if cn.client {
                if cn.rcvd >= resp && in_hs {
                    // handshake round done: next round or the real request
                    cn.rcvd -= resp;
                    cn.hs += 1;
                    if cn.tcb.cfg.smc.is_some() {
                        // The rendezvous is done: what follows goes over SMC.
                        cn.smc_from = Some(cn.tcb.snd_lim);
                    }
                    app = Some(SockOp::Request);
                } else if cn.rcvd >= resp {
                    cn.rcvd -= resp;
                    txn_done = true;
                    if spec.think_ns > 0 {
                        think = exp_draw(&mut self.think_rng, spec.think_ns);
                    }
                    if kind == Kind::Crr {
                        close_client = true;
                    } else {
                        app = Some(SockOp::Request);
                    }
                }
            } else if cn.rcvd >= req {
                cn.rcvd -= req;
                app = Some(SockOp::Respond);
            }
            if resp >= u64::from(block) || req >= u64::from(block) {
                cn.unread += r.delivered;
            }
        }
        let mut read_call = false;
        if cn.unread >= block {
            cn.unread -= block;
            read_call = true;
        }
        if r.peer_fin && !cn.client {
            close_server = true;
        }
        let mut write_more = false;
        if r.acked > 0 && cn.to_write > 0 && !cn.write_pending {
            // The blocked send() resumes once a quarter of the buffer is free.
            let space = u64::from(cn.tcb.send_space());
            let low_water = u64::from((cn.tcb.cfg.sndbuf / 4).max(cn.tcb.cfg.mss));
            if space >= cn.to_write.min(low_water) {
                cn.write_pending = true;
                write_more = true;
            }
        }
        let txn_start = cn.txn_start;
        if !self.hosts[h].touched[p].contains(&c) {
            self.hosts[h].touched[p].push(c);
            if let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) {
                cn.in_units += 1;
            }
        }
        self.push_segs(h, p, c);
        if txn_done {
            let win = self.in_window(now);
            let st = &mut self.stats[w];
            if win {
                st.transactions += 1;
                st.response_bytes += resp;
                st.request_bytes += req;
            }
            if kind == Kind::Crr {
                // the client closes now; its response time ends here
                if win {
                    st.latency.record(now.saturating_sub(txn_start));
                }
            } else if let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) {
                // The response time ends where the next request's call
                // takes the response, less the think time before that call.
                cn.answered = Some((txn_start.saturating_add(think), win));
            }
        }
        if close_server {
            if let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) {
                cn.tcb.close();
                cn.tcb.output(now, &mut self.segs);
                if self.segs.is_empty() {
                    let a = cn.tcb.make_ack();
                    self.segs.push(a);
                }
            }
            if let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) {
                cn.close = Close::Passive;
            }
            self.push_segs(h, p, c);
            self.arm_timers(h, c);
            return;
        }
        if close_client {
            if let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) {
                cn.tcb.close();
                cn.tcb.output(now, &mut self.segs);
                cn.close = Close::Active;
            }
            self.push_segs(h, p, c);
            self.arm_timers(h, c);
            // the next connection, after the client's think time if any
            if think > 0 {
                self.q.schedule(now + think, Ev::Start(w));
            } else {
                self.open_connection(w, now);
            }
            return;
        }
        self.arm_timers(h, c);
        if let Some(op) = app {
            // The application is a separate dispatchable unit: waking it
            // takes scheduling latency before its socket calls run.
            let wake = self.hosts[h].spec.costs.wakeup_ns;
            self.q.schedule(now + wake + think, Ev::App(h, c, id, op));
        }
        if read_call {
            self.app_call(h, c, id, SockOp::Read, w, now);
        }
        if write_more {
            self.app_call(h, c, id, SockOp::Write, w, now);
        }
    }

    /// A segment reached a connection its application has closed (see
    /// [`Close`]): the close handshake goes on. The peer's FIN is
    /// acknowledged at once; once both FINs are acknowledged, the end that
    /// closed first keeps only a TIME_WAIT entry and the other is gone.
    fn closing_rx(&mut self, h: usize, p: usize, c: usize, peer_fin: bool, now: Ns) {
        // TIMEWAITINTERVAL (or a peer's own habit); 0 closes at once
        let tw_ns = u64::from(self.hosts[h].spec.tcp.time_wait_s) * 1_000_000_000;
        let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) else {
            return;
        };
        if peer_fin {
            let a = cn.tcb.make_ack();
            self.segs.push(a);
        }
        let done = cn.tcb.fin_acked() && cn.tcb.fin_rcvd;
        // what TIME_WAIT sends again: the ACK of the peer's FIN
        let tw = (done && cn.close == Close::Active && tw_ns > 0).then(|| {
            let ack = Seg {
                seq: cn.tcb.snd_nxt,
                ack: cn.tcb.rcv_nxt,
                flags: ACK,
                wnd: cn.tcb.adv_wnd(),
                len: 0,
                rexmit: false,
            };
            TimeWait {
                until: now + tw_ns,
                ack: cn.packet(&ack, None),
                wl: cn.wl,
            }
        });
        let key = (cn.lport, cn.rip, cn.rport);
        self.push_segs(h, p, c);
        if !done {
            self.arm_timers(h, c);
            return;
        }
        self.free_conn(h, c);
        let Some(tw) = tw else {
            return;
        };
        let host = &mut self.hosts[h];
        // What has expired leaves first; entries of reused ports are
        // dropped from the order when they outnumber the live ones, so
        // both stay bounded by the ports in TIME_WAIT.
        while let Some(&(k, until)) = host.tw_order.front() {
            if until > now {
                break;
            }
            host.tw_order.pop_front();
            if host.time_wait.get(&k).is_some_and(|t| t.until == until) {
                host.time_wait.remove(&k);
            }
        }
        if host.tw_order.len() > 2 * host.time_wait.len() + 1024 {
            let live = &host.time_wait;
            host.tw_order
                .retain(|(k, until)| live.get(k).is_some_and(|t| t.until == *until));
        }
        host.tw_order.push_back((key, tw.until));
        host.time_wait.insert(key, tw);
        host.stats.time_wait_entered += 1;
    }

    /// A segment for no open connection. One for a connection in
    /// TIME_WAIT is taken there (RFC 9293: a late ACK is absorbed; a
    /// retransmitted FIN, whose sender missed our last ACK, gets that ACK
    /// again); anything else is stray.
    fn time_wait_rx(&mut self, h: usize, p: usize, pkt: &Pkt, now: Ns) {
        let host = &mut self.hosts[h];
        let key = (pkt.dport, pkt.src_ip, pkt.sport);
        match host.time_wait.get(&key) {
            Some(t) if t.until > now => {
                host.stats.time_wait_segments += 1;
                if pkt.flags & FIN != 0 {
                    let (ack, wl) = (t.ack, t.wl);
                    host.stats.time_wait_acks += 1;
                    let imp = self.workloads.get(wl).map(|w| w.importance).unwrap_or(1);
                    let step = Step::Tx(ack, TxKind::Ack, imp, true, false);
                    host.cpu.push_front(p, [(step, wl)].into_iter());
                }
            }
            _ => host.stats.stray_segments += 1,
        }
    }

    fn sock(&mut self, h: usize, p: usize, c: usize, id: u32, op: SockOp, now: Ns) {
        let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) else {
            return;
        };
        if cn.id != id || cn.tcb.state != State::Established || cn.close != Close::Open {
            return;
        }
        let spec = &self.workloads[cn.wl];
        let smc = cn.tcb.cfg.smc.is_some();
        let (req, resp, in_hs) = msg_sizes(spec, cn.hs, smc);
        match op {
            SockOp::Request => {
                // The receive of the previous response returns in this same
                // call: that transaction's response time, as the client
                // program sees it, ends here (it includes the wake-up of
                // the application and its socket call).
                if let Some((start, win)) = cn.answered.take() {
                    if win {
                        self.stats[cn.wl].latency.record(now.saturating_sub(start));
                    }
                }
                // A transaction starts with the connection's first send when it
                // must connect each time (CRR, handshake included), else with
                // each request.
                let rounds = spec.tls.is_some() || smc;
                if !rounds || (in_hs && cn.hs == 0) || (!in_hs && spec.kind != Kind::Crr) {
                    cn.txn_start = now;
                }
                cn.to_write += req;
            }
            SockOp::Respond => {
                cn.to_write += resp;
                if in_hs {
                    cn.hs += 1;
                }
            }
            SockOp::Read => return,
            SockOp::Write => cn.write_pending = false,
        }
        let n = cn.to_write.min(u64::from(u32::MAX)) as u32;
        let wrote = cn.tcb.write(n);
        cn.to_write -= u64::from(wrote);
        if smc && matches!(op, SockOp::Respond) && in_hs {
            // The server's Accept is written: its later data goes over SMC.
            cn.smc_from = Some(cn.tcb.snd_lim);
        }
        if cn.in_units == 0 && cn.app_emitting == 0 && cn.srb_emitting == 0 {
            cn.tcb.output(now, &mut self.segs);
        }
        self.push_segs_from(h, p, c, true);
        self.arm_timers(h, c);
    }

    /// An application unit handed its last segment to the NIC: if the
    /// window opened meanwhile, it keeps sending (it holds the connection).
    fn write_done(&mut self, h: usize, p: usize, pkt: &Pkt, app: bool, now: Ns) {
        let Some(&c) = self.hosts[h]
            .lookup
            .get(&(pkt.sport, pkt.dst_ip, pkt.dport))
        else {
            return;
        };
        let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) else {
            return;
        };
        if app {
            cn.app_emitting = cn.app_emitting.saturating_sub(1);
        } else {
            cn.srb_emitting = cn.srb_emitting.saturating_sub(1);
        }
        if cn.app_emitting == 0
            && cn.srb_emitting == 0
            && cn.in_units == 0
            && (cn.tcb.defer_output || cn.tcb.has_unsent())
        {
            cn.tcb.output(now, &mut self.segs);
            self.push_segs_from(h, p, c, app);
            self.arm_timers(h, c);
        }
    }

    fn arm_timers(&mut self, h: usize, c: usize) {
        let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) else {
            return;
        };
        let id = cn.id;
        if let Some(t) = cn.tcb.rto_at {
            // An earlier deadline needs an event of its own: the first RTT
            // sample takes the timeout from its 1 s initial value down to
            // the 200 ms floor, and waiting for the event armed with the
            // initial value stalled a stream that lost a segment in its
            // first second until that second was over.
            if cn.rto_ev.is_none_or(|e| t < e) {
                cn.rto_ev = Some(t);
                self.q.schedule(t, Ev::ConnTimer(h, c, id));
            }
        }
        if let Some(t) = cn.tcb.delack_at {
            if cn.delack_ev.is_none_or(|e| t < e) {
                cn.delack_ev = Some(t);
                self.q.schedule(t, Ev::ConnTimer(h, c, id));
            }
        }
    }

    fn conn_timer(&mut self, h: usize, c: usize, id: u32, now: Ns) {
        let Some(cn) = self.hosts[h].conns.get_mut(c).and_then(|x| x.as_mut()) else {
            return;
        };
        if cn.id != id {
            return;
        }
        if cn.rto_ev.is_some_and(|t| t <= now) {
            cn.rto_ev = None;
        }
        if cn.delack_ev.is_some_and(|t| t <= now) {
            cn.delack_ev = None;
        }
        let rto_due = cn.tcb.rto_at.is_some_and(|t| t <= now);
        let del_due = cn.tcb.delack_at.is_some_and(|t| t <= now) && cn.tcb.ack_pending;
        if cn.tcb.delack_at.is_some_and(|t| t <= now) && !cn.tcb.ack_pending {
            cn.tcb.delack_at = None;
        }
        if rto_due || del_due {
            let w = cn.wl;
            let mut u = Unit::new(None);
            u.steps.push_back((Step::Timer(c, id), w));
            self.submit(h, u, now);
        } else {
            self.arm_timers(h, c);
        }
    }

    // ------------------------------------------------------------ VSE, IQD

    /// Workload `w`'s client opens a connection (a unit of work on it).
    fn open_connection(&mut self, w: usize, now: Ns) {
        let client = self.workloads[w].client;
        let mut u = Unit::new(None);
        u.steps.push_back((Step::Connect(w), w));
        self.submit(client, u, now);
    }

    /// An application's socket call (request/response, read, write). On
    /// z/OS and peers the application's unit does the TCP work itself; on
    /// VSE the application partition hands the request to the TCP/IP
    /// partition, which serves it in its next cycle.
    fn app_call(&mut self, h: usize, c: usize, id: u32, op: SockOp, w: usize, now: Ns) {
        let (key, step) = if self.hosts[h].vse.is_some() {
            (Some(crate::vse::app_key(h, w)), Step::AppCall(c, id, op))
        } else {
            (None, Step::Sock(c, id, op))
        };
        let mut u = Unit::new(key);
        u.steps.push_back((step, w));
        self.submit(h, u, now);
    }

    /// A VSE host's unit retired; if it was the TCP/IP partition's last one,
    /// the stack serves waiting requests or goes to sleep.
    fn vse_unit_done(&mut self, h: usize, key: Option<u64>, now: Ns) {
        if crate::vse::partition_of(h, key) != Partition::Tcpip {
            return;
        }
        let Some(v) = self.hosts[h].vse.as_mut() else {
            return;
        };
        match v.stack_unit_finished() {
            Next::Busy => {}
            Next::ServeRequests => {
                let u = vse_stack_unit(h, false, v.take_requests());
                v.stack_unit_submitted();
                // queued only: the caller's dispatch loop starts it
                self.hosts[h].stats.units += 1;
                self.hosts[h].cpu.submit(u);
            }
            Next::Sleep(gen) => self.vse_wait(h, gen, now),
        }
    }

    /// The VSE stack went idle (wait generation `gen`): its dispatcher looks
    /// again `stack_wait_ns` later unless work wakes it first.
    fn vse_wait(&mut self, h: usize, gen: u64, now: Ns) {
        let at = now + self.hosts[h].spec.costs.stack_wait_ns.max(1);
        self.q.schedule(at, Ev::VseCycle(h, gen));
    }

    /// Put a VSE host's idle stack to sleep at start-up.
    fn vse_sleep(&mut self, h: usize, now: Ns) {
        let Some(v) = self.hosts[h].vse.as_mut() else {
            return;
        };
        v.tcpip_units = 1;
        if let Next::Sleep(gen) = v.stack_unit_finished() {
            self.vse_wait(h, gen, now);
        }
    }

    /// The stack's idle wait ended: one cycle looks at its queues (CPU) and
    /// serves the socket requests that arrived meanwhile.
    fn vse_cycle(&mut self, h: usize, gen: u64, now: Ns) {
        let Some(v) = self.hosts[h].vse.as_mut() else {
            return;
        };
        if !v.wait_ended(gen) {
            return;
        }
        let u = vse_stack_unit(h, true, v.take_requests());
        self.submit(h, u, now);
    }

    /// HiperSockets: the sender's CPU has moved the frame (its cost is part
    /// of the transmit step); it lands in the receiver's input queue, which
    /// is signalled after the IQD latency. No free buffer: dropped, counted.
    fn iqd_send(&mut self, h: usize, pkt: Pkt, now: Ns) {
        let Some(a) = self.hosts[h].spec.iqd.as_ref() else {
            return;
        };
        let lat = a.model.latency_ns;
        let bytes = crate::iqd::frame_bytes(pkt.len + pkt.esp_overhead());
        let dst = self
            .ip_map
            .get(&pkt.dst_ip)
            .copied()
            .filter(|&d| d != h && self.hosts[d].spec.iqd.is_some());
        let host = &mut self.hosts[h];
        host.stats.iqd_sent += 1;
        host.up.stats.frames += 1;
        host.up.stats.bytes += u64::from(bytes);
        self.link_frames += 1;
        let Some(d) = dst else {
            // no LPAR on this HiperSockets LAN owns the address
            host.stats.stray_segments += 1;
            return;
        };
        let cap = self.hosts[d]
            .spec
            .iqd
            .as_ref()
            .map_or(0, |a| a.model.in_buffers);
        let rcv = &mut self.hosts[d];
        if rcv.iqd_held >= cap {
            rcv.stats.iqd_no_buffer += 1;
            rcv.down.stats.dropped_queue_full += 1;
            return;
        }
        rcv.down.stats.frames += 1;
        rcv.down.stats.bytes += u64::from(bytes);
        rcv.iqd_held += 1;
        rcv.nic_pending.push(pkt);
        if !rcv.nic_timer {
            rcv.nic_timer = true;
            self.q.schedule(now + lat, Ev::NicIrq(d));
        }
    }

    // ------------------------------------------------------------ results

    /// Snapshot of results.
    pub fn results(&self) -> crate::report::RunResult {
        if std::env::var_os("SOFTOSA_SIM_DEBUG").is_some() {
            for h in &self.hosts {
                for cn in h.conns.iter().flatten() {
                    let t = &cn.tcb;
                    softosa_display::note!(
                        "{} conn {}:{} cwnd {} ssthresh {} peer_wnd {} flight {} unsent {} to_write {} in_units {} app_emitting {} write_pending {}",
                        h.spec.name, cn.lport, cn.rport, t.cwnd, t.ssthresh, t.peer_wnd, t.flight(),
                        t.snd_lim.wrapping_sub(t.snd_nxt), cn.to_write, cn.in_units, cn.app_emitting, cn.write_pending
                    );
                }
            }
        }
        crate::report::collect(self)
    }

    /// The connection routing table of the sysplex distributor called
    /// `name` as it stands (Netstat VCRT's connections: the engine keeps
    /// none, the simulator's distributor does); `None` for any other host.
    pub fn vcrt_routes(&self, name: &str) -> Option<Vec<softosa_display::VcrtRoute>> {
        let h = self.hosts.iter().position(|x| x.spec.name == name)?;
        let d = self.hosts[h].spec.distributor.as_ref()?;
        let v4 = |ip: u32| std::net::IpAddr::V4(std::net::Ipv4Addr::from(ip));
        Some(
            self.hosts[h]
                .vcrt
                .iter()
                .map(|(&(src, sport, dport), &t)| softosa_display::VcrtRoute {
                    dvipa: v4(d.dvipa),
                    port: dport,
                    source: v4(src),
                    source_port: sport,
                    dest_xcf: v4(self.hosts[t].spec.ip),
                })
                .collect(),
        )
    }

    /// Each host's adapter engine after (or during) a run, by host name, so
    /// the z/OS displays can be shown on a finished run.
    pub fn engines(&self) -> Vec<(String, &softosa_engine::Engine)> {
        let names = self.host_names();
        self.osas
            .iter()
            .enumerate()
            .filter_map(|(h, o)| {
                let (osa, _, _) = o.as_ref()?;
                Some((names.get(h).cloned().unwrap_or_default(), osa.engine()))
            })
            .collect()
    }

    pub(crate) fn host_names(&self) -> Vec<String> {
        self.hosts.iter().map(|h| h.spec.name.clone()).collect()
    }
    /// Host `h`'s counters since the start of the run.
    fn host_totals(&self, h: usize) -> HostBaseline {
        let host = &self.hosts[h];
        let mut stats = host.stats.clone();
        stats.vse = host.vse.as_ref().map(|v| v.stats.clone());
        for cn in host.conns.iter().flatten() {
            let s = cn.tcb.stats;
            stats.ooo_segments_in += s.ooo_in;
            stats.dupacks_in += s.dupacks_in;
            stats.fast_retransmits += s.fast_rexmits;
            stats.timeouts += s.timeouts;
            stats.retransmits += s.rexmits;
        }
        let osa = self.osas[h].as_ref();
        HostBaseline {
            stats,
            up: host.up.stats,
            down: host.down.stats,
            xcf_in: host.xcf_in.as_ref().map(|x| x.stats),
            overruns: osa.map_or(0, |(_, m, _)| m.overruns),
            engine: osa.map(|(o, _, _)| o.counters_json()),
        }
    }

    /// Host `h` as the report shows it: its counters over the measured
    /// window (what happened in the warm-up is taken off).
    pub(crate) fn host_view(&self, h: usize) -> HostView<'_> {
        let host = &self.hosts[h];
        let now = self.host_totals(h);
        let base = self.baseline.as_ref().and_then(|b| b.get(h));
        HostView {
            name: &host.spec.name,
            model: &host.spec.model,
            processors: host.cpu.processors(),
            time_wait_s: host.spec.tcp.time_wait_s,
            vswitch: host.spec.vswitch,
            cpu_window_ns: host.cpu_window,
            cpu_wl: &host.cpu_wl,
            rx_wl: &host.rx_wl,
            stats: match base {
                Some(b) => now.stats.since(&b.stats),
                None => now.stats,
            },
            up: base.map_or(now.up, |b| now.up.since(&b.up)),
            down: base.map_or(now.down, |b| now.down.since(&b.down)),
            xcf_in: now.xcf_in.map(|n| match base.and_then(|b| b.xcf_in) {
                Some(b) => n.since(&b),
                None => n,
            }),
            osa: self.osas[h].as_ref().map(|(o, m, _)| OsaView {
                osa: o,
                micro_busy_window_ns: m.busy_window,
                micro_busy_by: m.busy_by,
                overruns: now.overruns.saturating_sub(base.map_or(0, |b| b.overruns)),
                engine: match (now.engine, base.and_then(|b| b.engine.as_ref())) {
                    (Some(n), Some(b)) => counters_since(&n, b),
                    (n, _) => n.unwrap_or(serde_json::Value::Null),
                },
            }),
        }
    }
    pub(crate) fn window_ns(&self) -> Ns {
        self.end.saturating_sub(self.measure_from)
    }
}

pub(crate) struct HostView<'a> {
    pub name: &'a str,
    pub model: &'a str,
    pub processors: usize,
    pub time_wait_s: u32,
    pub vswitch: Option<VswitchMode>,
    pub cpu_window_ns: u64,
    pub cpu_wl: &'a [u64],
    pub rx_wl: &'a [u64],
    pub stats: HostStats,
    pub up: WireStats,
    pub down: WireStats,
    pub xcf_in: Option<WireStats>,
    pub osa: Option<OsaView<'a>>,
}

pub(crate) struct OsaView<'a> {
    pub osa: &'a Osa,
    pub micro_busy_window_ns: u64,
    pub micro_busy_by: MicroBusy,
    pub overruns: u64,
    /// The engine's counters over the measured window.
    pub engine: serde_json::Value,
}

/// A host's counters at one instant (see `World::baseline`).
#[derive(Clone, Debug)]
struct HostBaseline {
    stats: HostStats,
    up: WireStats,
    down: WireStats,
    /// The XCF link from a sysplex distributor into this target.
    xcf_in: Option<WireStats>,
    overruns: u64,
    engine: Option<serde_json::Value>,
}

/// The engine's counters `now` less those at `base`, field by field. High
/// water marks (`max_*`) are not counts and stay as they are.
fn counters_since(now: &serde_json::Value, base: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match (now, base) {
        (Value::Object(n), Value::Object(b)) => Value::Object(
            n.iter()
                .map(|(k, v)| {
                    let v = match b.get(k) {
                        Some(bv) if !k.starts_with("max_") => counters_since(v, bv),
                        _ => v.clone(),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        (Value::Array(n), Value::Array(b)) => Value::Array(
            n.iter()
                .enumerate()
                .map(|(i, v)| b.get(i).map_or(v.clone(), |bv| counters_since(v, bv)))
                .collect(),
        ),
        (Value::Number(n), Value::Number(b)) => match (n.as_u64(), b.as_u64()) {
            (Some(n), Some(b)) => Value::from(n.saturating_sub(b)),
            _ => Value::Number(n.clone()),
        },
        _ => now.clone(),
    }
}

/// A unit of VSE host `h`'s TCP/IP partition that serves the socket
/// requests `reqs` in order, after one look at its queues if `poll`.
fn vse_stack_unit(h: usize, poll: bool, reqs: Vec<VseReq>) -> Unit<(Step, usize)> {
    let mut u = Unit::new(Some(crate::vse::tcpip_key(h)));
    if poll {
        u.steps.push_back((Step::Poll, UNATTRIBUTED));
    }
    for (c, id, op, w) in reqs {
        u.steps.push_back((Step::Sock(c, id, op), w));
    }
    u
}

/// Index into a host's `wq_sbals` of write queue `q` (1..4; anything else
/// is clamped into that range).
fn wq_index(q: u8) -> usize {
    usize::from(q.clamp(1, 4)) - 1
}

/// Hand a serialized queue's new batch unit `u` (its first step the
/// interrupt or poll, its last the batch end) to the unit of work already on
/// that queue: the one waiting to be dispatched, or the one running that has
/// not reached its batch end (it looks at the queue again before it ends).
/// That unit's batch end becomes a buffer return, and `u`'s packets and
/// batch end follow, so one end of batch covers both: one send or ACK per
/// connection. Returns whether it was merged (otherwise `u` is left as it
/// was and needs a unit of its own).
fn merge_into_pass(cpu: &mut Cpu<(Step, usize)>, key: u64, u: &mut Unit<(Step, usize)>) -> bool {
    let w = match cpu.waiting_mut(key) {
        Some(w) => w,
        None => match cpu.running_mut(key) {
            Some(w) => w,
            None => return false,
        },
    };
    let Some((Step::BatchEnd(tok), wl)) = w.steps.back().copied() else {
        return false;
    };
    w.steps.pop_back();
    w.steps.push_back((Step::ReturnBuffers(tok), wl));
    w.steps.extend(u.steps.drain(..).skip(1));
    true
}

/// The SMC CLC rendezvous (spec 4.4) inside the TCP stream, after the
/// three-way handshake and before any data moves over the SMC path: the
/// client's Proposal, the server's Accept, the client's Confirm (the CLC
/// messages of RFC 7609 are some 50–70 bytes each). It takes one round
/// trip over TCP: the Confirm goes with the client's first data, so its
/// bytes are counted with the Proposal's.
const CLC_PROPOSAL_BYTES: u64 = 120;
/// The server's CLC Accept.
const CLC_ACCEPT_BYTES: u64 = 68;

/// CP's work to move one frame between a guest's virtual NIC and the
/// VSWITCH's uplink (spec 7.1): the same in both modes, plus the IP-mode
/// link-layer work. Nothing for a host with its own NIC or over SMC.
fn vswitch_cost(spec: &HostSpec, p: &Pkt) -> u64 {
    match spec.vswitch {
        _ if p.smc.is_some() => 0,
        None => 0,
        Some(VswitchMode::Ethernet) => spec.costs.vswitch_frame_ns,
        Some(VswitchMode::Ip) => spec.costs.vswitch_frame_ns + spec.costs.vswitch_ip_ns,
    }
}

/// What IPsec adds to handling one packet (spec 4.1): the per-packet ESP
/// work, and encrypting or decrypting its TCP header and payload.
fn esp_cost(c: &HostCosts, p: &Pkt) -> u64 {
    if !p.esp {
        return 0;
    }
    c.ipsec_pkt_ns + u64::from(p.len + 20) * c.crypto_ps_per_byte / 1000
}

/// The sizes of the next request and response of a connection whose
/// rounds so far are `hs`, and whether they are a handshake's (a TLS
/// handshake's, or on an SMC connection, `smc`, the CLC rendezvous).
fn msg_sizes(spec: &WorkloadSpec, hs: u8, smc: bool) -> (u64, u64, bool) {
    if smc && hs == 0 {
        return (CLC_PROPOSAL_BYTES, CLC_ACCEPT_BYTES, true);
    }
    match spec.tls {
        Some(t) if hs < t.rounds() => {
            let (a, b) = t.sizes(hs);
            (u64::from(a), u64::from(b), true)
        }
        _ => (u64::from(spec.request), u64::from(spec.response), false),
    }
}

fn listen_port(w: usize) -> u16 {
    5001u16.wrapping_add(w as u16)
}

/// An exponentially distributed time of mean `mean` ns (users' think
/// times, the variable part of a CPU step), at most twenty means.
fn exp_draw(rng: &mut ChaCha8Rng, mean: u64) -> u64 {
    let u: f64 = rand::Rng::random_range(rng, f64::EPSILON..1.0);
    let x = -u.ln() * mean as f64;
    (x.min(20.0 * mean as f64)) as u64
}
