//! VTAM's views (layer: displays; spec 05 §5.2 "D NET,TRL,TRLE=name" and
//! "VTAM tuning statistics").
//!
//! `D NET,TRL,TRLE=name` shows the TRLE's devices, the stack using each data
//! device (ULPID), whether accelerated routing is on, and the read queues
//! with their storage. The tuning statistics show, per data device, one
//! block per read queue (`DIR = RD/n (TYPE)`) and per write queue
//! (`DIR = WR/n`): every counter of the engine's `ReadQueueCounters` /
//! `WriteQueueCounters` with its overflow word.
//!
//! The write-queue counters that VTAM has no message for (write signals,
//! signals avoided by OLM, discards, deepest queue) are printed with
//! softosa's own `SFO` message numbers in the same layout.

use crate::context::{Devices, DisplayContext};
use crate::text::{dev, split, storage_mk, vtam_counter_line, Lines, Split};
use crate::{select_interfaces, DisplayError, Report};
use serde::Serialize;
use softosa_engine::config::PortKind;
use softosa_engine::engine::Interface;
use softosa_engine::Engine;

// ----- D NET,TRL ------------------------------------------------------------

#[derive(Debug, Serialize)]
pub struct TrlReport {
    pub trles: Vec<TrleDisplay>,
}

#[derive(Debug, Serialize)]
pub struct QueueStorage {
    /// `RD/1`...
    pub id: String,
    pub queue_type: String,
    /// `4.0M`.
    pub storage: String,
    pub sbals: u16,
}

#[derive(Debug, Serialize)]
pub struct DataDevice {
    pub dev: String,
    /// ACTIVE when an interface uses it, RESET otherwise.
    pub status: String,
    pub interface: Option<String>,
    /// The stack using the device.
    pub ulpid: Option<String>,
    pub accelerated_routing: Option<bool>,
    pub read_queues: Vec<QueueStorage>,
}

#[derive(Debug, Serialize)]
pub struct TrleDisplay {
    pub name: String,
    /// The stacks using the TRLE: several when stacks share it (one VTAM
    /// serves them; each data device shows its own ULPID).
    pub stacks: Vec<String>,
    /// OSA only.
    pub portname: Option<String>,
    pub portnum: u8,
    pub osa_code_level: Option<String>,
    pub mpclevel: String,
    pub write_dev: String,
    pub read_dev: String,
    /// Whether the devices come from a TRLE definition (false: softosa's
    /// defaults derived from the CHPID).
    pub defined: bool,
    pub data_devices: Vec<DataDevice>,
}

/// Whether the QDIO accelerator routes through this data device: never for
/// an IPv6 interface (the accelerator is IPv4 only, spec 3.3) or an OLM one.
fn accel_enabled(engine: &Engine, i: &Interface) -> bool {
    i.cfg.ip_version == softosa_engine::config::IpVersion::V4
        && engine.stacks().get(i.cfg.stack).is_some_and(|s| {
            s.accelerating() && s.cfg.datagram_fwd && !s.cfg.ipsecurity && !i.cfg.olm
        })
}

fn read_storages(engine: &Engine, i: &Interface) -> Vec<QueueStorage> {
    let _ = engine;
    i.read_queues()
        .map(|rq| QueueStorage {
            id: format!("RD/{}", rq.q.kind.id()),
            queue_type: rq.q.kind.label().to_string(),
            storage: storage_mk(u64::from(rq.q.capacity) * u64::from(rq.q.sbal_bytes())),
            sbals: rq.q.capacity,
        })
        .collect()
}

/// Build `D NET,TRL,TRLE=target` (a TRLE name, `STACK/TRLE`, or an
/// interface name meaning its TRLE); `None`: every TRLE in use.
pub fn build_trl(
    engine: &Engine,
    ctx: &DisplayContext,
    target: Option<&str>,
) -> Result<TrlReport, DisplayError> {
    // Group interfaces by the TRLE serving them: a TRLE that several stacks
    // share is one group, whose data devices each show the stack using it.
    let mut groups: Vec<(Devices, Vec<&Interface>)> = Vec::new();
    for i in engine.interfaces() {
        let first = ctx.trle_users(engine, i).first().map(|u| u.id);
        match groups
            .iter_mut()
            .find(|(_, v)| v.first().map(|u| u.id) == first)
        {
            Some((_, v)) => v.push(i),
            None => groups.push((ctx.devices(engine, i), vec![i])),
        }
    }
    if groups.is_empty() {
        return Err(DisplayError::NoInterfaces);
    }
    let uses_stack = |g: usize, s: &str| {
        groups[g]
            .1
            .iter()
            .any(|i| ctx.stack_name(engine, i.cfg.stack).eq_ignore_ascii_case(s))
    };
    let wanted: Vec<usize> = match crate::narrowing(target) {
        None => (0..groups.len()).collect(),
        Some(t) => {
            let (stack, name) = match t.split_once('/') {
                Some((s, n)) => (Some(s), n),
                None => (None, t),
            };
            let by_trle: Vec<usize> = (0..groups.len())
                .filter(|g| groups[*g].0.trle.eq_ignore_ascii_case(name))
                .filter(|g| stack.is_none_or(|s| uses_stack(*g, s)))
                .collect();
            if !by_trle.is_empty() {
                by_trle
            } else {
                match select_interfaces(engine, ctx, Some(t)) {
                    Ok(v) => {
                        let id = v[0].id;
                        (0..groups.len())
                            .filter(|g| groups[*g].1.iter().any(|i| i.id == id))
                            .collect()
                    }
                    Err(e @ DisplayError::AmbiguousInterface { .. }) => return Err(e),
                    Err(_) => {
                        return Err(DisplayError::UnknownTrle {
                            name: t.to_string(),
                            valid: ctx.trle_names(engine).join(", "),
                        })
                    }
                }
            }
        }
    };
    let mut trles = Vec::new();
    for g in wanted {
        let (d, ifaces) = &groups[g];
        let port = engine.ports().get(ifaces[0].cfg.port).map(|p| &p.cfg);
        let osa = matches!(port.map(|p| p.kind), Some(PortKind::Osa { .. }));
        let mut stacks: Vec<&str> = Vec::new();
        for i in ifaces {
            let n = ctx.stack_name(engine, i.cfg.stack);
            if !stacks.contains(&n) {
                stacks.push(n);
            }
        }
        let mut devs: Vec<u16> = d.all_datapaths.clone();
        for i in ifaces {
            let dp = ctx.devices(engine, i).datapath;
            if !devs.contains(&dp) {
                devs.push(dp);
            }
        }
        let data_devices = devs
            .iter()
            .map(|dp| {
                let user = ifaces
                    .iter()
                    .find(|i| ctx.devices(engine, i).datapath == *dp);
                match user {
                    Some(i) => DataDevice {
                        dev: dev(*dp),
                        status: if i.active { "ACTIVE" } else { "RESET" }.into(),
                        interface: Some(i.cfg.name.clone()),
                        ulpid: Some(ctx.stack_name(engine, i.cfg.stack).to_string()),
                        accelerated_routing: Some(accel_enabled(engine, i)),
                        read_queues: read_storages(engine, i),
                    },
                    None => DataDevice {
                        dev: dev(*dp),
                        status: "RESET".into(),
                        interface: None,
                        ulpid: None,
                        accelerated_routing: None,
                        read_queues: Vec::new(),
                    },
                }
            })
            .collect();
        trles.push(TrleDisplay {
            name: d.trle.clone(),
            stacks: stacks.iter().map(|s| s.to_string()).collect(),
            portname: osa.then(|| port.map(|p| p.name.clone()).unwrap_or_default()),
            portnum: d.portnum,
            osa_code_level: osa.then(|| ctx.osa_code_level.clone()),
            mpclevel: "QDIO".into(),
            write_dev: dev(d.write),
            read_dev: dev(d.read),
            defined: d.from_trle,
            data_devices,
        });
    }
    Ok(TrlReport { trles })
}

impl Report for TrlReport {
    fn to_text(&self) -> String {
        let mut l = Lines::new();
        for t in &self.trles {
            l.line("IST097I DISPLAY ACCEPTED");
            l.line(format!("IST075I NAME = {}, TYPE = TRLE", t.name));
            l.line("IST486I STATUS= ACTIV, DESIRED STATE= ACTIV");
            l.line(format!(
                "IST1715I MPCLEVEL = {}       MPCUSAGE = SHARE",
                t.mpclevel
            ));
            if let (Some(p), Some(c)) = (&t.portname, &t.osa_code_level) {
                l.line(format!(
                    "IST2263I PORTNAME = {p:<8}    PORTNUM = {:>4}    OSA CODE LEVEL = {c}",
                    t.portnum
                ));
            }
            l.line(format!(
                "IST1221I WRITE DEV = {} STATUS = ACTIVE        STATE = ONLINE",
                t.write_dev
            ));
            l.line(format!(
                "IST1221I READ  DEV = {} STATUS = ACTIVE        STATE = ONLINE",
                t.read_dev
            ));
            for d in &t.data_devices {
                l.line("IST924I -------------------------------------------------------------");
                l.line(format!(
                    "IST1221I DATA  DEV = {} STATUS = {:<13} STATE = N/A",
                    d.dev, d.status
                ));
                if let Some(u) = &d.ulpid {
                    l.line(format!("IST1717I ULPID = {u}"));
                }
                if let Some(a) = d.accelerated_routing {
                    l.line(format!(
                        "IST2310I ACCELERATED ROUTING {}",
                        if a { "ENABLED" } else { "DISABLED" }
                    ));
                }
                if !d.read_queues.is_empty() {
                    l.line("IST2331I QUEUE    QUEUE    READ");
                    l.line("IST2332I ID      TYPE     STORAGE");
                    l.line("IST2205I ------  -------- ---------------");
                    for q in &d.read_queues {
                        l.line(format!(
                            "IST2333I {:<7} {:<9} {}({} SBALS)",
                            q.id, q.queue_type, q.storage, q.sbals
                        ));
                    }
                }
            }
            l.line("IST314I END");
        }
        l.finish()
    }
}

// ----- tuning statistics ------------------------------------------------------

/// A counter with VTAM's split.
#[derive(Debug, Serialize, Clone, Copy)]
pub struct Counter {
    pub total: u64,
    pub overflow: u32,
    pub value: u32,
}

impl Counter {
    fn of(n: u64) -> Self {
        let Split { overflow, value } = split(n);
        Counter {
            total: n,
            overflow,
            value,
        }
    }
}

#[derive(Debug, Serialize)]
pub struct ReadBlock {
    /// `RD/1`.
    pub dir: String,
    pub queue_type: String,
    pub pcireal: Counter,
    pub pcivirt: Counter,
    pub pcithrsh: Counter,
    pub pciunprd: Counter,
    pub earlyint: Counter,
    pub rprocdef: Counter,
    pub rrepldef: Counter,
    pub noreads: Counter,
    pub sbalcnt: Counter,
    pub packcnt: Counter,
    pub frinvct: Counter,
    pub bytecnt: Counter,
    pub pktiqd: Counter,
    pub bytiqd: Counter,
}

#[derive(Debug, Serialize)]
pub struct WriteBlock {
    /// `WR/1`.
    pub dir: String,
    pub sbalcnt: Counter,
    pub packcnt: Counter,
    pub bytecnt: Counter,
    pub sigacnt: Counter,
    pub sigaavoided: Counter,
    pub discards: Counter,
    pub maxdepth: Counter,
}

#[derive(Debug, Serialize)]
pub struct TuningDevice {
    pub stack: String,
    pub interface: String,
    /// The TRLE name (`ID =`).
    pub id: String,
    pub time: String,
    pub date: String,
    pub dev: String,
    pub read: Vec<ReadBlock>,
    pub write: Vec<WriteBlock>,
}

#[derive(Debug, Serialize)]
pub struct TuningReport {
    pub devices: Vec<TuningDevice>,
}

/// Build the tuning statistics of one interface (or all).
pub fn build_tuning(
    engine: &Engine,
    ctx: &DisplayContext,
    target: Option<&str>,
) -> Result<TuningReport, DisplayError> {
    let ifaces = select_interfaces(engine, ctx, target)?;
    let clock = ctx.clock();
    let devices = ifaces
        .iter()
        .map(|i| {
            let d = ctx.devices(engine, i);
            let iqd = engine
                .ports()
                .get(i.cfg.port)
                .is_some_and(|p| p.cfg.is_hipersockets());
            let read = i
                .read_queues()
                .map(|rq| {
                    let c = &rq.q.counters;
                    ReadBlock {
                        dir: format!("RD/{}", rq.q.kind.id()),
                        queue_type: rq.q.kind.label().to_string(),
                        pcireal: Counter::of(c.pcireal),
                        pcivirt: Counter::of(c.pcivirt),
                        pcithrsh: Counter::of(c.pcithrsh),
                        pciunprd: Counter::of(c.pciunprd),
                        earlyint: Counter::of(c.earlyint),
                        rprocdef: Counter::of(c.rprocdef),
                        rrepldef: Counter::of(c.rrepldef),
                        noreads: Counter::of(c.noreads),
                        sbalcnt: Counter::of(c.sbalcnt),
                        packcnt: Counter::of(c.packcnt),
                        frinvct: Counter::of(c.frinvct),
                        bytecnt: Counter::of(c.bytecnt),
                        pktiqd: Counter::of(c.pktiqd),
                        bytiqd: Counter::of(c.bytiqd),
                    }
                })
                .collect();
            let nwrite = if iqd { 1 } else { 4 };
            let write = i
                .writes
                .iter()
                .take(nwrite)
                .enumerate()
                .map(|(n, w)| {
                    let c = &w.counters;
                    WriteBlock {
                        dir: format!("WR/{}", n + 1),
                        sbalcnt: Counter::of(c.sbalcnt),
                        packcnt: Counter::of(c.packcnt),
                        bytecnt: Counter::of(c.bytecnt),
                        sigacnt: Counter::of(c.sigas),
                        sigaavoided: Counter::of(c.sigas_avoided),
                        discards: Counter::of(c.discards),
                        maxdepth: Counter::of(c.max_depth),
                    }
                })
                .collect();
            TuningDevice {
                stack: ctx.stack_name(engine, i.cfg.stack).to_string(),
                interface: i.cfg.name.clone(),
                id: d.trle,
                time: clock.time_field(),
                date: clock.date_field(),
                dev: dev(d.datapath),
                read,
                write,
            }
        })
        .collect();
    Ok(TuningReport { devices })
}

const SEPARATOR: &str = "IST924I -------------------------------------------------------------";

impl ReadBlock {
    /// The counter lines of one read queue, in VTAM's order.
    pub fn write_lines(&self, l: &mut Lines) {
        let rows: [(&str, &str, &str, &Counter); 14] = [
            ("IST1719I", "PCIREALO", "PCIREAL", &self.pcireal),
            ("IST1720I", "PCIVIRTO", "PCIVIRT", &self.pcivirt),
            ("IST1750I", "PCITHRSO", "PCITHRSH", &self.pcithrsh),
            ("IST1751I", "PCIUNPRO", "PCIUNPRD", &self.pciunprd),
            ("IST2316I", "EARLYINO", "EARLYINT", &self.earlyint),
            ("IST1752I", "RPROCDEO", "RPROCDEF", &self.rprocdef),
            ("IST1753I", "RREPLDEO", "RREPLDEF", &self.rrepldef),
            ("IST1754I", "NOREADSO", "NOREADS", &self.noreads),
            ("IST1721I", "SBALCNTO", "SBALCNT", &self.sbalcnt),
            ("IST1722I", "PACKCNTO", "PACKCNT", &self.packcnt),
            ("IST2185I", "FRINVCTO", "FRINVCT", &self.frinvct),
            ("IST1236I", "BYTECNTO", "BYTECNT", &self.bytecnt),
            ("IST1810I", "PKTIQDO", "PKTIQD", &self.pktiqd),
            ("IST1811I", "BYTIQDO", "BYTIQD", &self.bytiqd),
        ];
        for (m, o, n, c) in rows {
            l.line(vtam_counter_line(m, o, n, c.total));
        }
    }
}

impl WriteBlock {
    pub fn write_lines(&self, l: &mut Lines) {
        let rows: [(&str, &str, &str, &Counter); 7] = [
            ("IST1721I", "SBALCNTO", "SBALCNT", &self.sbalcnt),
            ("IST1722I", "PACKCNTO", "PACKCNT", &self.packcnt),
            ("IST1236I", "BYTECNTO", "BYTECNT", &self.bytecnt),
            ("SFO1001I", "SIGACNTO", "SIGACNT", &self.sigacnt),
            ("SFO1002I", "SIGAAVDO", "SIGAAVD", &self.sigaavoided),
            ("SFO1003I", "WRDISCO", "WRDISC", &self.discards),
            ("SFO1004I", "MAXDEPTO", "MAXDEPTH", &self.maxdepth),
        ];
        for (m, o, n, c) in rows {
            l.line(vtam_counter_line(m, o, n, c.total));
        }
    }
}

impl TuningDevice {
    pub fn write_lines(&self, l: &mut Lines) {
        l.line(format!(
            "IST1230I TIME = {}    DATE = {}   ID = {}",
            self.time, self.date, self.id
        ));
        let mut first = true;
        for r in &self.read {
            if !first {
                l.line(SEPARATOR);
            }
            first = false;
            l.line(format!(
                "IST1233I DEV = {}  DIR = {} ({})",
                self.dev, r.dir, r.queue_type
            ));
            r.write_lines(l);
        }
        for w in &self.write {
            if !first {
                l.line(SEPARATOR);
            }
            first = false;
            l.line(format!("IST1233I DEV = {}  DIR = {}", self.dev, w.dir));
            w.write_lines(l);
        }
        l.line("IST314I END");
    }
}

impl Report for TuningReport {
    fn to_text(&self) -> String {
        let mut l = Lines::new();
        for d in &self.devices {
            d.write_lines(&mut l);
        }
        l.finish()
    }
}
