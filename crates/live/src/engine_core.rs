//! The engine as the live plane's [`Core`] (spec 8.1, call order of the
//! engine crate docs): the lab's
//! `SystemConfig`, built in code from the lab options until profiles are
//! wired in, and the mapping of the engine's API onto the driver's calls.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use softosa_engine::counters::DropReason;
use softosa_engine::{
    BatchId, Disposition, Engine, Event, Frame, IfaceId, Instant, PortId, QueueKind, SendMeta,
    SendOutcome,
};

use crate::control::{DisplayRequest, Metric, Refusal};
use crate::dataplane::{Accounting, Core, DriverDrop, OutBatch, Placement};
use crate::vnet::{self, Framing};

use softosa_engine::config::{
    ChpidType, InbPerf, InterfaceConfig, IpNet, Layer, Mac, OsaGeneration, PortConfig, PortKind,
    RouterRole, StackConfig, SystemConfig, TimerTable, TosPolicy, VmacConfig, VmacRoute,
};

use crate::lab::{self, Inb, LabError, LabOptions, LabResult, Sharing, PORT_MAC, STACK4, VMAC};

/// The lab's adapter configuration: one OSA-Express6S 10 GbE port shared by
/// one or two stacks, each with one IPv4 INTERFACE.
pub fn config_for_lab(o: &LabOptions) -> SystemConfig {
    let stacks = match o.sharing {
        Sharing::One | Sharing::Layer2 => 1,
        Sharing::Vmac | Sharing::Prirouter => 2,
    };
    let mut cfg = SystemConfig {
        ports: vec![PortConfig {
            name: "OSAPORT1".into(),
            chpid: 0xe0,
            port_num: 0,
            kind: PortKind::Osa {
                generation: OsaGeneration::Express6S,
                speed_mbps: 10_000,
                chpid_type: ChpidType::Osd,
            },
            physical_mac: Mac(PORT_MAC),
            lan_mtu: Some(o.mtu),
        }],
        ..Default::default()
    };
    for i in 0..stacks {
        let mut s = StackConfig::new(format!("TCPIP{}", i + 1));
        s.segmentation_offload = o.segmentation_offload;
        if o.tos_priority {
            s.tos_policy = Some(TosPolicy::default());
        }
        cfg.stacks.push(s);
        let mut ifc = InterfaceConfig::new(format!("OSAQDIO{}", i + 1), i, 0);
        let addr: IpAddr = STACK4[i].parse().unwrap_or(IpAddr::from([192, 0, 2, 10]));
        ifc.addresses.push(IpNet { addr, prefix: 24 });
        ifc.layer = if o.sharing == Sharing::Layer2 {
            Layer::Layer2
        } else {
            Layer::Layer3
        };
        if o.sharing == Sharing::Prirouter {
            ifc.vmac = None;
            ifc.router = if i == 0 {
                RouterRole::Primary
            } else {
                RouterRole::NonRouter
            };
        } else {
            ifc.vmac = Some(VmacConfig {
                mac: Some(Mac(VMAC[i])),
                route: VmacRoute::All,
            });
        }
        set_inbperf(&mut ifc, o.inbperf);
        cfg.interfaces.push(ifc);
    }
    if o.zero_timers {
        cfg.tuning.timers = TimerTable::zero();
    }
    cfg.tuning.store_bytes = None;
    cfg
}

/// Give an interface the lab's INBPERF setting. WORKLOADQ needs a VMAC;
/// without one the engine would refuse it, so it is left off there.
fn set_inbperf(ifc: &mut InterfaceConfig, inb: Inb) {
    let (mode, wq) = match inb {
        Inb::MinLatency => (InbPerf::MinLatency, false),
        Inb::Balanced => (InbPerf::Balanced, false),
        Inb::MinCpu => (InbPerf::MinCpu, false),
        Inb::Dynamic => (InbPerf::Dynamic, false),
        Inb::DynamicWorkloadq => (InbPerf::Dynamic, true),
    };
    // OLM forces DYNAMIC (spec 2.4), whatever INBPERF is coded beside it.
    ifc.inbperf = if ifc.olm { InbPerf::Dynamic } else { mode };
    ifc.workloadq = wq && ifc.vmac.is_some();
}

/// Connections tracked for the placement report at most.
const MAX_TRACKED: usize = 4096;

#[derive(Clone, Debug)]
struct ConnSeen {
    first_seen: u64,
    queue: QueueKind,
    bulk_since: Option<u64>,
    per_queue: [u64; 5],
    hold: Option<Box<HoldHist>>,
}

/// Connections whose hold times, and whose outbound waits, are kept: each
/// keeps a histogram of about 12 KB, so this bounds both at about 3 MB.
const MAX_HOLD_TRACKED: usize = 256;

/// Histogram of waits (arrival to presentation, or queued to sent), in
/// steps of 0.1 µs up to a minute with two significant digits (an HDR
/// histogram, so a tail of 100 ms is measured, not capped).
#[derive(Clone)]
pub struct HoldHist(hdrhistogram::Histogram<u32>);

/// Tenths of a microsecond: the unit the histogram counts in.
const HIST_UNIT_NS: u64 = 100;
/// The longest wait told apart: a minute.
const HIST_MAX_UNITS: u64 = 60_000_000_000 / HIST_UNIT_NS;

impl std::fmt::Debug for HoldHist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HoldHist({} samples)", self.0.len())
    }
}

impl Default for HoldHist {
    fn default() -> Self {
        HoldHist::new()
    }
}

impl HoldHist {
    fn new() -> HoldHist {
        // Fixed, valid bounds: the constructor cannot refuse them.
        let h = hdrhistogram::Histogram::new_with_bounds(1, HIST_MAX_UNITS, 2)
            .expect("fixed histogram bounds are valid");
        HoldHist(h)
    }
    fn add(&mut self, ns: u64) {
        // Longer than a minute counts as a minute.
        self.0.saturating_record(ns / HIST_UNIT_NS);
    }
    /// The `q` quantile (0..1) in µs, within 1 % (none without samples).
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.0.is_empty() {
            return None;
        }
        let units = self.0.value_at_quantile(q);
        Some((units * HIST_UNIT_NS) as f64 / 1000.0)
    }
}

/// The engine driven by the live plane.
pub struct EngineCore {
    engine: Engine,
    handles: HashMap<u64, (BatchId, IfaceId, QueueKind)>,
    next_handle: u64,
    /// Frames the driver dropped, by reason.
    pub crc: u64,
    /// Wire frames with an unusable virtio-net header.
    pub bad_offload: u64,
    pub host_write_failed: u64,
    pub wire_send_failed: u64,
    pub wire_oversize: u64,
    conns: BTreeMap<(u16, u16), ConnSeen>,
    /// Transmitted frames per write queue (index 0: adapter-generated).
    pub tx_by_queue: [u64; 5],
    /// Bulk registrations seen (time ns, local port, remote port).
    pub registrations: Vec<(u64, u16, u16)>,
    /// Per connection (local, remote port): queue times of single-frame
    /// sends not yet transmitted, and the histogram of their waits.
    out_wait: BTreeMap<(u16, u16), (std::collections::VecDeque<u64>, HoldHist)>,
    /// Per connection (local, remote port): sends the adapter refused
    /// (write queue full, ...).
    out_refused: BTreeMap<(u16, u16), u64>,
}

impl EngineCore {
    /// The engine for `cfg`.
    pub fn new(cfg: SystemConfig) -> Result<EngineCore, LabError> {
        let engine = Engine::new(cfg).map_err(|e| LabError::Config(e.to_string()))?;
        Ok(EngineCore::around(engine))
    }

    /// A core with no traffic seen yet around `engine`.
    fn around(engine: Engine) -> EngineCore {
        EngineCore {
            engine,
            handles: HashMap::new(),
            next_handle: 0,
            crc: 0,
            bad_offload: 0,
            host_write_failed: 0,
            wire_send_failed: 0,
            wire_oversize: 0,
            conns: BTreeMap::new(),
            tx_by_queue: [0; 5],
            registrations: Vec::new(),
            out_wait: BTreeMap::new(),
            out_refused: BTreeMap::new(),
        }
    }

    /// The engine for a lab run.
    pub fn for_lab(o: &LabOptions) -> Result<EngineCore, LabError> {
        EngineCore::new(config_for_lab(o))
    }

    /// The engine (displays, counters).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    fn drain_events(&mut self) {
        while let Some(ev) = self.engine.poll_event() {
            match &ev {
                Event::BulkRegistered { at, conn, .. } => {
                    if self.registrations.len() < MAX_TRACKED {
                        self.registrations
                            .push((at.as_nanos(), conn.local_port, conn.remote_port));
                    }
                    tracing::info!(at = %at, local_port = conn.local_port, remote_port = conn.remote_port, "bulk connection registered");
                }
                Event::BulkDeregistered { at, conn, .. } => {
                    tracing::info!(at = %at, local_port = conn.local_port, remote_port = conn.remote_port, "bulk connection deregistered");
                }
                Event::TimersRetuned {
                    at,
                    queue,
                    gap_ns,
                    block_ns,
                    ..
                } => {
                    tracing::debug!(at = %at, queue = queue.label(), gap_ns, block_ns, "timers retuned");
                }
                other => tracing::debug!(event = ?other, "engine event"),
            }
        }
    }

    fn note_placement(&mut self, now: u64, frame: &[u8], queue: QueueKind) {
        let Some(key) = tcp_ports(frame, Framing::Ethernet) else {
            return;
        };
        if !self.conns.contains_key(&key) && self.conns.len() >= MAX_TRACKED {
            return;
        }
        let e = self.conns.entry(key).or_insert(ConnSeen {
            first_seen: now,
            queue,
            bulk_since: None,
            per_queue: [0; 5],
            hold: None,
        });
        e.queue = queue;
        e.per_queue[queue.index()] += 1;
        if queue == QueueKind::BulkData && e.bulk_since.is_none() {
            e.bulk_since = Some(now);
        }
    }
}

impl Default for EngineCore {
    fn default() -> Self {
        // An engine with no ports: used only as the placeholder left behind
        // when a plane is stopped and hands its core back.
        let engine = match Engine::new(SystemConfig::default()) {
            Ok(e) => e,
            Err(e) => unreachable!("an empty configuration is always valid: {e}"),
        };
        EngineCore::around(engine)
    }
}

/// (local = destination port, remote = source port) of an inbound TCP packet.
fn tcp_ports(frame: &[u8], framing: Framing) -> Option<(u16, u16)> {
    let info = vnet::l4_info(frame, framing)?;
    if info.proto != 6 {
        return None;
    }
    let t = info.l4_off;
    let src = u16::from_be_bytes([frame[t], frame[t + 1]]);
    let dst = u16::from_be_bytes([frame[t + 2], frame[t + 3]]);
    Some((dst, src))
}

fn drop_label(r: DropReason) -> String {
    r.label().to_string()
}

impl EngineCore {
    /// Inbound frames the driver dropped before the engine saw them, by
    /// reason (counted in "frames in" too).
    pub fn driver_in_drops(&self) -> [(&'static str, u64); 1] {
        [(DriverDrop::BadOffload.label(), self.bad_offload)]
    }
    /// Outbound frames the driver lost after the engine sent them, by reason.
    pub fn driver_out_drops(&self) -> [(&'static str, u64); 2] {
        [
            (DriverDrop::WireSend.label(), self.wire_send_failed),
            (DriverDrop::WireOversize.label(), self.wire_oversize),
        ]
    }
}

impl Core for EngineCore {
    fn wire_frame(&mut self, now: u64, port: usize, frame: &[u8]) {
        let d = self.engine.handle_wire_frame(
            Instant::from_nanos(now),
            PortId(port),
            Frame::full(frame),
        );
        if let Disposition::Queued { queue, .. } = d {
            self.note_placement(now, frame, queue);
        }
    }

    fn host_send(&mut self, now: u64, iface: usize, frame: &[u8], last: bool) {
        let meta = SendMeta {
            end_of_write: last,
            ..Default::default()
        };
        let framing = match self.engine.interface(IfaceId(iface)).map(|i| i.cfg.layer) {
            Some(Layer::Layer2) => Framing::Ethernet,
            _ => Framing::Ip,
        };
        let r = self.engine.handle_host_send(
            Instant::from_nanos(now),
            IfaceId(iface),
            Frame::full(frame),
            meta,
        );
        match r {
            Ok(SendOutcome::Queued { segments: 1, queue }) => {
                let depth = self.engine.tx_pending(PortId(0));
                tracing::trace!(queue, depth, "single-frame send queued");
                // Remember when this single-frame send was queued, to time
                // its wait on the write queue (outbound priority).
                if let Some((l, r)) = tcp_ports(frame, framing).map(|(d, s)| (s, d)) {
                    if self.out_wait.len() < MAX_HOLD_TRACKED || self.out_wait.contains_key(&(l, r))
                    {
                        let e = self.out_wait.entry((l, r)).or_default();
                        if e.0.len() < 4096 {
                            e.0.push_back(now);
                        }
                    }
                }
            }
            Ok(_) => {}
            Err(reason) => {
                tracing::debug!(reason = reason.label(), "send dropped");
                if let Some((d, s)) = tcp_ports(frame, framing) {
                    if self.out_refused.len() < MAX_TRACKED
                        || self.out_refused.contains_key(&(s, d))
                    {
                        *self.out_refused.entry((s, d)).or_default() += 1;
                    }
                }
            }
        }
    }

    fn timeout(&mut self, now: u64) {
        self.engine.handle_timeout(Instant::from_nanos(now));
        self.drain_events();
    }

    fn deadline(&self) -> Option<u64> {
        self.engine.poll_timeout().map(Instant::as_nanos)
    }

    fn presentation(&mut self, now: u64, out: &mut OutBatch) -> bool {
        self.drain_events();
        let Some(p) = self.engine.poll_presentation() else {
            return false;
        };
        let t = Instant::from_nanos(now);
        self.engine.begin_service(t, p.iface, p.queue);
        let framing = match self.engine.interface(p.iface).map(|i| i.cfg.layer) {
            Some(Layer::Layer2) => Framing::Ethernet,
            _ => Framing::Ip,
        };
        let mut holds: Vec<((u16, u16), u64)> = Vec::new();
        for f in self.engine.batch_frames(p.batch) {
            out.push(f.data);
            if let Some(k) = tcp_ports(f.data, framing) {
                holds.push((k, now.saturating_sub(f.arrival.as_nanos())));
            }
        }
        let mut tracked = self.conns.values().filter(|c| c.hold.is_some()).count();
        for (k, ns) in holds {
            if let Some(c) = self.conns.get_mut(&k) {
                if c.hold.is_none() && tracked < MAX_HOLD_TRACKED {
                    c.hold = Some(Box::new(HoldHist::new()));
                    tracked += 1;
                }
                if let Some(h) = c.hold.as_mut() {
                    h.add(ns);
                }
            }
        }
        self.next_handle += 1;
        self.handles
            .insert(self.next_handle, (p.batch, p.iface, p.queue));
        out.iface = p.iface.0;
        out.queue = p.queue.index();
        out.handle = self.next_handle;
        true
    }

    fn complete(&mut self, now: u64, _iface: usize, handle: u64) {
        if let Some((b, i, q)) = self.handles.remove(&handle) {
            let t = Instant::from_nanos(now);
            self.engine.complete_batch(t, b);
            self.engine.end_service(t, i, q);
        }
    }

    fn transmit(&mut self, now: u64, port: usize, out: &mut Vec<u8>) -> bool {
        match self
            .engine
            .poll_transmit(Instant::from_nanos(now), PortId(port), out)
        {
            Some(m) => {
                self.tx_by_queue[usize::from(m.queue.min(4))] += 1;
                // Outbound: the source port is the local one.
                if let Some((d, s)) = tcp_ports(out, Framing::Ethernet) {
                    if let Some(e) = self.out_wait.get_mut(&(s, d)) {
                        if let Some(t) = e.0.pop_front() {
                            e.1.add(now.saturating_sub(t));
                        }
                    }
                }
                true
            }
            None => false,
        }
    }

    fn tx_pending(&self, port: usize) -> bool {
        self.engine.tx_pending(PortId(port)) > 0
    }

    fn driver_drop(&mut self, reason: DriverDrop) {
        match reason {
            DriverDrop::Crc => {
                // The engine counts it in and drops it (its own reason), so
                // its counters and displays show the injected errors.
                self.crc += 1;
                self.engine.note_injected_error(PortId(0));
            }
            DriverDrop::BadOffload => self.bad_offload += 1,
            DriverDrop::HostWrite => self.host_write_failed += 1,
            DriverDrop::WireSend => self.wire_send_failed += 1,
            DriverDrop::WireOversize => self.wire_oversize += 1,
        }
    }

    fn accounting(&self) -> Accounting {
        let a = self.engine.accounting();
        let c = self.engine.counters();
        let mut dropped: Vec<(String, u64)> = c
            .dropped_in
            .nonzero()
            .map(|(r, n)| (drop_label(r), n))
            .collect();
        // Only the reasons that dropped something, as the engine's own.
        dropped.extend(
            self.driver_in_drops()
                .into_iter()
                .filter(|d| d.1 > 0)
                .map(|(why, n)| (why.to_string(), n)),
        );
        // Copies of broadcast frames count as extra frames in, so the
        // identity stays "frames in = presented + ... " per copy. Injected
        // errors are in the engine's own counts (`note_injected_error`).
        Accounting {
            frames_in: a.frames_in + a.replicated + self.bad_offload,
            presented: a.presented,
            forwarded: a.forwarded,
            handled: a.handled,
            dropped,
            held: a.held,
            dropped_out: c
                .dropped_out
                .nonzero()
                .map(|(r, n)| (drop_label(r), n))
                .chain(self.driver_out_drops().map(|(why, n)| (why.to_string(), n)))
                .filter(|d| d.1 > 0)
                .collect(),
        }
    }

    fn display(&self, req: &DisplayRequest) -> Result<String, Refusal> {
        crate::displays::render(self, req)
    }

    fn metrics(&self) -> Vec<Metric> {
        crate::displays::metrics(self)
    }

    fn placements(&self) -> Vec<Placement> {
        self.conns
            .iter()
            .map(|((l, r), c)| Placement {
                local_port: *l,
                remote_port: *r,
                queue: c.queue.label().to_string(),
                bulk_since: c.bulk_since,
                per_queue: c.per_queue,
                first_seen: c.first_seen,
                hold_p50_us: c.hold.as_ref().and_then(|h| h.quantile(0.5)),
                hold_p99_us: c.hold.as_ref().and_then(|h| h.quantile(0.99)),
                out_wait_p50_us: self.out_wait.get(&(*l, *r)).and_then(|w| w.1.quantile(0.5)),
                out_wait_p99_us: self
                    .out_wait
                    .get(&(*l, *r))
                    .and_then(|w| w.1.quantile(0.99)),
                out_refused: self.out_refused.get(&(*l, *r)).copied().unwrap_or(0),
            })
            .collect()
    }
}

/// Run the lab with the engine as the core: configured from the profiles
/// if any were given, else from the lab options.
pub fn run_lab(o: &LabOptions, label: &str) -> Result<LabResult, LabError> {
    if o.profiles.is_empty() {
        let core = EngineCore::for_lab(o)?;
        return lab::run_once(o, core, label);
    }
    let cfg = config_from_profiles(o)?;
    let core = EngineCore::new(cfg)?;
    let plan = plan_for(core.engine())?;
    let mut o2 = o.clone();
    o2.plan = Some(plan);
    let files = o
        .profiles
        .iter()
        .filter_map(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(", ");
    let label = if o.profile_inbperf_override {
        format!("profile {files}: {label}")
    } else {
        format!("profile {files}")
    };
    lab::run_once(&o2, core, &label)
}

/// Activate the profiles (and policy / TRL files) of `o.profiles` into a
/// `SystemConfig` for one OSA-Express6S 10 GbE port, with the lab's timer
/// choice. Errors name file, line and column.
pub fn config_from_profiles(o: &LabOptions) -> Result<SystemConfig, LabError> {
    profile_config(o, true)
}

/// The host side a lab from `o.profiles` gets, for checks before the run:
/// the files are read without printing their warnings (the run does).
pub fn profile_plan(o: &LabOptions) -> Result<lab::LabPlan, LabError> {
    let core = EngineCore::new(profile_config(o, false)?)?;
    plan_for(core.engine())
}

/// The interfaces `o.profiles` define, for checks before the run (the
/// files are read without printing their warnings).
pub fn profile_interfaces(o: &LabOptions) -> Result<Vec<InterfaceConfig>, LabError> {
    Ok(profile_config(o, false)?.interfaces)
}

/// [`config_from_profiles`], printing the activation's warnings or not.
fn profile_config(o: &LabOptions, show_warnings: bool) -> Result<SystemConfig, LabError> {
    let files: Vec<(Option<String>, std::path::PathBuf)> = o
        .profiles
        .iter()
        .map(|p| softosa_profile::load::named_file(p))
        .collect::<Result<_, _>>()
        .map_err(LabError::Usage)?;
    let mut opts = softosa_profile::activate::ActivateOptions {
        generation: OsaGeneration::Express6S,
        speed_mbps: 10_000,
        ..Default::default()
    };
    if o.zero_timers {
        opts.tuning.timers = TimerTable::zero();
    }
    opts.tuning.store_bytes = None;
    match softosa_profile::activate::activate_files(&files, &opts) {
        Ok(a) => {
            if show_warnings {
                for w in a.warnings.items() {
                    softosa_display::note!("{w}");
                }
            }
            let mut cfg = a.config;
            // The lab's devices carry o.mtu: no interface uses more.
            for p in &mut cfg.ports {
                p.lan_mtu = Some(o.mtu);
            }
            // Lab options that change the stacks apply to the profiles'
            // stacks too (they were silently ignored before).
            for s in &mut cfg.stacks {
                if !o.segmentation_offload {
                    s.segmentation_offload = false;
                }
                if o.tos_priority && s.tos_policy.is_none() {
                    s.tos_policy = Some(TosPolicy::default());
                }
            }
            if o.profile_inbperf_override {
                // `--compare` with profiles: every interface gets the
                // compared INBPERF; the rest of the profiles stands.
                for ifc in &mut cfg.interfaces {
                    set_inbperf(ifc, o.inbperf);
                }
            }
            Ok(cfg)
        }
        Err(d) => {
            // Two --profile files of one stack name are a command-line
            // mistake (the files are fine on their own): NAME=FILE mends it.
            if let Some(clash) = softosa_profile::activate::StackNameClash::find(&d) {
                return Err(LabError::Usage(clash.with_advice("the lab")));
            }
            // A wrong file (not a profile at all) gives an error per line:
            // the first few say enough.
            const SHOWN: usize = 10;
            let items = d.items();
            let mut lines: Vec<String> = items.iter().take(SHOWN).map(|x| x.to_string()).collect();
            if items.len() > SHOWN {
                lines.push(format!("... and {} more", items.len() - SHOWN));
            }
            Err(LabError::Config(lines.join("\n")))
        }
    }
}

fn is_documentation(a: std::net::Ipv4Addr) -> bool {
    let o = a.octets();
    matches!(
        (o[0], o[1], o[2]),
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113)
    )
}

/// The lab's host side for the engine's interfaces: one namespace per
/// interface, all IPv4 on the first port, in one documentation subnet.
pub fn plan_for(e: &Engine) -> Result<lab::LabPlan, LabError> {
    let mut addrs = Vec::new();
    let mut names = Vec::new();
    let mut macs = Vec::new();
    let mut prefix = 24;
    let mut layer2 = None;
    let mut queues = 1;
    let mut tcp = Vec::new();
    for i in e.interfaces() {
        if e.is_hipersockets(PortId(i.cfg.port)) {
            return Err(LabError::Config(format!(
                "interface {}: HiperSockets (IQD) has no LAN wire; the lab drives an \
                 OSA-Express port (IPAQENET)",
                i.cfg.name
            )));
        }
        if i.cfg.port != 0 {
            return Err(LabError::Config(format!(
                "interface {}: the lab drives one port; it is on port {}",
                i.cfg.name, i.cfg.port
            )));
        }
        let Some(net) = i.cfg.addresses.iter().find(|n| n.addr.is_ipv4()) else {
            return Err(LabError::Config(format!(
                "interface {}: the lab needs an IPv4 address on every interface",
                i.cfg.name
            )));
        };
        let IpAddr::V4(a) = net.addr else {
            continue;
        };
        if !is_documentation(a) {
            return Err(LabError::Config(format!(
                "interface {}: {a} is not a documentation address; the lab uses \
                 192.0.2.0/24, 198.51.100.0/24 or 203.0.113.0/24 only",
                i.cfg.name
            )));
        }
        if addrs.is_empty() {
            prefix = net.prefix.clamp(16, 30);
        }
        let l2 = i.cfg.layer == Layer::Layer2;
        if layer2.is_some_and(|x| x != l2) {
            return Err(LabError::Config(
                "the lab needs all interfaces in the same layer (2 or 3)".into(),
            ));
        }
        layer2 = Some(l2);
        if i.cfg.workloadq {
            queues = 2;
        }
        addrs.push(a);
        names.push(i.cfg.name.clone());
        macs.push(i.mac.0);
        tcp.push(
            e.stacks()
                .get(i.cfg.stack)
                .map(|s| s.cfg.tcp)
                .unwrap_or_default(),
        );
    }
    let Some(first) = addrs.first().copied() else {
        return Err(LabError::Config("the profiles define no interface".into()));
    };
    let mask = u32::MAX << (32 - u32::from(prefix));
    let base = u32::from(first) & mask;
    // One LAN segment: the client reaches every interface only within it.
    if let Some((i, a)) = names
        .iter()
        .zip(&addrs)
        .find(|(_, a)| u32::from(**a) & mask != base)
    {
        return Err(LabError::Config(format!(
            "interface {i}: {a} is outside {}/{prefix}, the subnet of the first interface; \
             the lab puts every interface and its client on one LAN segment, so give them \
             addresses in one subnet",
            std::net::Ipv4Addr::from(base)
        )));
    }
    let client = (1..255u32)
        .map(|h| std::net::Ipv4Addr::from(base + h))
        .find(|c| !addrs.contains(c))
        .unwrap_or(first);
    Ok(lab::LabPlan {
        addrs: addrs.iter().map(|a| a.to_string()).collect(),
        prefix,
        macs,
        layer2: layer2.unwrap_or(false),
        queues,
        client: client.to_string(),
        tcp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use softosa_engine::config::{AckDelay, TcpSettings};

    fn example(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/profiles")
            .join(name)
    }

    /// Write `text` to `<name>.prof` in a fresh temporary directory of its
    /// own; (directory, file) for the test to remove.
    fn temp_profile(name: &str, text: &str) -> (std::path::PathBuf, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("sosa-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let p = dir.join(format!("{name}.prof"));
        std::fs::write(&p, text).expect("write profile");
        (dir, p)
    }

    /// Two one-interface profiles on port LABPORT, each
    /// `(file, interface, address, extra parameters)`: (directories, files).
    fn two_stack_profiles(
        a: (&str, &str, &str, &str),
        b: (&str, &str, &str, &str),
    ) -> (Vec<std::path::PathBuf>, Vec<std::path::PathBuf>) {
        [a, b]
            .iter()
            .map(|(file, intf, addr, extra)| {
                temp_profile(
                    file,
                    &format!(
                        "INTERFACE {intf} DEFINE IPAQENET PORTNAME LABPORT IPADDR {addr}/24{extra}\n\
                         START {intf}\n"
                    ),
                )
            })
            .unzip()
    }

    fn remove_dirs(dirs: &[std::path::PathBuf]) {
        for d in dirs {
            let _ = std::fs::remove_dir_all(d);
        }
    }

    #[test]
    fn compare_overrides_the_profiles_inbperf() {
        let mut o = LabOptions {
            profiles: vec![example("lab-iwq.prof")],
            inbperf: Inb::Balanced,
            ..Default::default()
        };
        let own = config_from_profiles(&o).expect("profile activates");
        assert!(own.interfaces.iter().all(|i| i.workloadq));
        assert!(own.interfaces.iter().all(|i| i.inbperf == InbPerf::Dynamic));
        o.profile_inbperf_override = true;
        let cmp = config_from_profiles(&o).expect("profile activates");
        assert!(!cmp.interfaces.is_empty());
        assert!(cmp
            .interfaces
            .iter()
            .all(|i| i.inbperf == InbPerf::Balanced && !i.workloadq));
        // The rest of the profile stands: same interfaces, same addresses.
        let names = |c: &SystemConfig| {
            c.interfaces
                .iter()
                .map(|i| (i.name.clone(), i.addresses.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&own), names(&cmp));
        // And the host side follows: WORKLOADQ gone, one device queue.
        let e = Engine::new(cmp).expect("engine");
        assert_eq!(plan_for(&e).expect("plan").queues, 1);
    }

    /// Waits are measured far past the old 2 ms cap, and under a
    /// microsecond too, each within the histogram's 1 %.
    #[test]
    fn the_wait_histogram_measures_long_tails_and_short_waits() {
        let mut h = HoldHist::new();
        assert_eq!(h.quantile(0.5), None);
        for _ in 0..98 {
            h.add(400); // 0.4 µs
        }
        h.add(150_000_000); // 150 ms
        h.add(120_000_000_000); // two minutes: counted as the one-minute ceiling
        let p50 = h.quantile(0.5).expect("samples");
        assert!((0.39..=0.41).contains(&p50), "{p50}");
        let p99 = h.quantile(0.99).expect("samples");
        assert!((148_500.0..=151_500.0).contains(&p99), "{p99}");
        let max = h.quantile(1.0).expect("samples");
        assert!((59_000_000.0..=61_000_000.0).contains(&max), "{max}");
    }

    /// OLM forces DYNAMIC (spec 2.4): an INBPERF given to every interface
    /// leaves an OLM interface's alone.
    #[test]
    fn an_olm_interface_keeps_dynamic_under_an_override() {
        let (dirs, profiles) = two_stack_profiles(
            ("olm-one", "OLM1", "192.0.2.10", " INBPERF DYNAMIC OLM"),
            ("olm-other", "PLAIN1", "192.0.2.11", ""),
        );
        let o = LabOptions {
            profiles,
            inbperf: Inb::Balanced,
            profile_inbperf_override: true,
            ..Default::default()
        };
        let cfg = config_from_profiles(&o);
        remove_dirs(&dirs);
        let modes: Vec<(String, InbPerf)> = cfg
            .expect("profile activates")
            .interfaces
            .iter()
            .map(|i| (i.name.clone(), i.inbperf))
            .collect();
        assert_eq!(
            modes,
            [
                ("OLM1".to_string(), InbPerf::Dynamic),
                ("PLAIN1".to_string(), InbPerf::Balanced)
            ]
        );
    }

    /// The lab's interfaces and its client share one LAN segment: an
    /// interface outside the first one's subnet is refused before the lab
    /// is built, not found unreachable by the workload.
    #[test]
    fn interfaces_in_two_subnets_are_refused() {
        let (dirs, profiles) = two_stack_profiles(
            ("subnet-a", "A1", "192.0.2.10", ""),
            ("subnet-b", "B1", "198.51.100.10", ""),
        );
        let o = LabOptions {
            profiles,
            ..Default::default()
        };
        let r = profile_plan(&o);
        remove_dirs(&dirs);
        match r {
            Err(LabError::Config(m)) => {
                assert!(m.starts_with("interface B1: 198.51.100.10"), "{m}");
                assert!(m.contains("192.0.2.0/24"), "{m}");
            }
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn each_interface_carries_its_stacks_tcpconfig_into_the_plan() {
        let o = LabOptions {
            profiles: vec![example("lab-share-a.prof"), example("lab-share-b.prof")],
            ..Default::default()
        };
        let plan = profile_plan(&o).expect("profiles activate");
        assert_eq!(plan.addrs, ["192.0.2.10", "192.0.2.20"]);
        // Stack A codes no TCPCONFIG; stack B does.
        assert_eq!(plan.tcp[0], TcpSettings::default());
        assert_eq!(plan.tcp[1].rcv_buf, 128 * 1024);
        assert_eq!(plan.tcp[1].max_rcv_buf_coded, Some(512 * 1024));
        assert_eq!(plan.tcp[1].delay_acks, AckDelay::NoDelay);
    }

    #[test]
    fn a_hipersockets_profile_is_refused_with_the_reason() {
        let (dir, p) = temp_profile(
            "iqd",
            "INTERFACE HSINTF1 DEFINE IPAQIDIO IPADDR 203.0.113.1/24 CHPID FE MTU 8192\n\
             START HSINTF1\n",
        );
        let o = LabOptions {
            profiles: vec![p.clone()],
            ..Default::default()
        };
        let cfg = config_from_profiles(&o).expect("profile activates");
        let e = Engine::new(cfg).expect("engine");
        let msg = plan_for(&e)
            .expect_err("HiperSockets has no wire")
            .to_string();
        assert!(
            msg.contains("HSINTF1") && msg.contains("HiperSockets"),
            "{msg}"
        );
        let _ = std::fs::remove_file(p);
        let _ = std::fs::remove_dir(dir);
    }

    #[test]
    fn two_profiles_of_one_file_name_are_a_usage_error() {
        let text = std::fs::read_to_string(example("lab-iwq.prof")).expect("example profile");
        let (d1, p1) = temp_profile("clash-one", &text);
        let (d2, p2) = temp_profile("clash-two", &text);
        let (t1, t2) = (d1.join("tcpip.prof"), d2.join("tcpip.prof"));
        std::fs::rename(&p1, &t1).expect("rename");
        std::fs::rename(&p2, &t2).expect("rename");
        let e = config_from_profiles(&LabOptions {
            profiles: vec![t1.clone(), t2.clone()],
            ..Default::default()
        })
        .expect_err("two stacks of one name");
        assert!(e.is_usage(), "{e}");
        assert_eq!(
            e.to_string(),
            format!(
                "two stacks are named TCPIP: {} and {}; the lab names each stack after its \
                 profile's file, so name them (NAME=FILE, e.g. TCPIPA=a/tcpip.prof) or give the \
                 files different names",
                t1.display(),
                t2.display()
            )
        );
        // Named, they are two stacks (the one profile twice then clashes in
        // its address, which names the first stack).
        let named = config_from_profiles(&LabOptions {
            profiles: ["A", "B"]
                .iter()
                .zip([&t1, &t2])
                .map(|(n, t)| std::path::PathBuf::from(format!("TCPIP{n}={}", t.display())))
                .collect(),
            ..Default::default()
        })
        .expect_err("one address twice")
        .to_string();
        for (d, t) in [(d1, t1), (d2, t2)] {
            let _ = std::fs::remove_file(t);
            let _ = std::fs::remove_dir(d);
        }
        assert!(
            named.contains("of stack TCPIPA on the same port") && !named.contains("two stacks"),
            "{named}"
        );
    }

    #[test]
    fn stack_options_apply_to_profile_stacks_and_errors_are_capped() {
        let o = LabOptions {
            profiles: vec![example("lab-iwq.prof")],
            segmentation_offload: false,
            tos_priority: true,
            ..Default::default()
        };
        let cfg = config_from_profiles(&o).expect("profile activates");
        assert!(!cfg.stacks.is_empty());
        assert!(cfg
            .stacks
            .iter()
            .all(|s| !s.segmentation_offload && s.tos_policy.is_some()));
        let own = config_from_profiles(&LabOptions {
            profiles: vec![example("lab-iwq.prof")],
            ..Default::default()
        })
        .expect("profile activates");
        assert!(own.stacks.iter().all(|s| s.tos_policy.is_none()));

        // A profile with one statement it should have, and thirty errors.
        let junk: String = std::iter::once("GLOBALCONFIG\n".to_string())
            .chain((0..30).map(|k| format!("NOTASTATEMENT{k} x\n")))
            .collect();
        let (dir, p) = temp_profile("junk", &junk);
        let e = config_from_profiles(&LabOptions {
            profiles: vec![p.clone()],
            ..Default::default()
        })
        .expect_err("not a profile")
        .to_string();
        assert!(e.lines().count() <= 11, "{e}");
        assert!(e.contains("junk.prof:2:") && e.contains("more"), "{e}");
        let _ = std::fs::remove_file(p);
        let _ = std::fs::remove_dir(dir);
    }

    #[test]
    fn outbound_waits_are_kept_for_a_bounded_number_of_connections() {
        use softosa_engine::wire::build;
        let mut c = EngineCore::for_lab(&LabOptions::default()).expect("engine");
        // The peer makes itself known (an ARP request for the stack).
        let peer = Mac([0x02, 0, 0, 0, 0, 0x99]);
        let mut arp = Vec::new();
        let eth = build::EthSpec {
            dst: Mac([0xff; 6]),
            src: peer,
            vlan: None,
        };
        let (me, them) = ([192, 0, 2, 10].into(), [192, 0, 2, 99].into());
        build::eth_arp(&mut arp, &eth, 1, peer, them, Mac([0; 6]), me);
        c.wire_frame(0, 0, &arp);
        let mut out = Vec::new();
        let mut sent = 0;
        for i in 0..300u16 {
            // A bare IPv4/TCP packet (layer 3) from the first stack, one
            // connection per source port.
            let mut p = vec![0u8; 40];
            p[0] = 0x45;
            p[2..4].copy_from_slice(&40u16.to_be_bytes());
            p[8] = 64;
            p[9] = 6;
            p[12..16].copy_from_slice(&[192, 0, 2, 10]);
            p[16..20].copy_from_slice(&[192, 0, 2, 99]);
            p[20..22].copy_from_slice(&(5000 + i).to_be_bytes());
            p[22..24].copy_from_slice(&80u16.to_be_bytes());
            p[32] = 0x50;
            let now = u64::from(i) * 1_000_000;
            c.host_send(now, 0, &p, true);
            // Drive the adapter through the millisecond in 10 µs steps.
            for t in (now..now + 1_000_000).step_by(10_000) {
                c.timeout(t);
                while c.transmit(t, 0, &mut out) {
                    sent += usize::from(tcp_ports(&out, Framing::Ethernet).is_some());
                    out.clear();
                }
            }
        }
        assert_eq!(sent, 300, "every send left the adapter");
        assert_eq!(c.out_wait.len(), MAX_HOLD_TRACKED);
        // The first ones sent keep theirs, and measured a wait.
        let first = c.out_wait.get(&(5000, 80)).expect("the first connection");
        assert!(first.1.quantile(0.5).is_some());
        assert!(!c.out_wait.contains_key(&(5299, 80)));
    }

    #[test]
    fn injected_errors_are_counted_by_the_engine() {
        let mut c = EngineCore::for_lab(&LabOptions::default()).expect("engine");
        c.driver_drop(DriverDrop::Crc);
        c.driver_drop(DriverDrop::Crc);
        let a = c.accounting();
        assert_eq!(a.frames_in, 2);
        assert!(a.balanced(), "{a:?}");
        let n = a
            .dropped
            .iter()
            .filter(|d| d.0.contains("injected frame error"))
            .map(|d| d.1)
            .sum::<u64>();
        assert_eq!(n, 2);
        // Reasons that dropped nothing are left out, the driver's as well.
        assert!(a.dropped.iter().all(|d| d.1 > 0), "{a:?}");
        assert_eq!(
            c.engine()
                .counters()
                .dropped_in
                .get(DropReason::InjectedError),
            2
        );
    }

    #[test]
    fn every_drop_reason_is_a_series_from_the_start_and_counts() {
        let mut c = EngineCore::new(config_for_lab(&LabOptions::default())).expect("engine");
        let text = crate::control::render_metrics(&crate::displays::metrics(&c));
        let zero = |t: &str, name: &str, r: DropReason| {
            t.contains(&format!("{name}{{reason=\"{}\"}} 0\n", r.label()))
        };
        for r in DropReason::ALL {
            assert!(
                zero(&text, "softosa_frames_dropped_total", r),
                "{r:?}\n{text}"
            );
            assert!(zero(&text, "softosa_frames_dropped_out_total", r), "{r:?}");
        }
        assert!(text.contains("reason=\"bad virtio-net header (driver)\"} 0\n"));
        // A frame for a MAC nobody owns is counted under its reason.
        let mut f = vec![0u8; 60];
        f[..6].copy_from_slice(&[0x02, 0, 0, 0, 0xee, 0xee]);
        f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        c.wire_frame(0, 0, &f);
        let text = crate::control::render_metrics(&crate::displays::metrics(&c));
        let counted = DropReason::ALL
            .iter()
            .filter(|r| !zero(&text, "softosa_frames_dropped_total", **r))
            .count();
        assert_eq!(counted, 1, "{text}");
    }
}
