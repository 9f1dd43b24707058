//! Netstat reports of a stack (layer: displays; spec 05 §5.2 "Netstat ALL",
//! "STATS", "CONFIG", "VCRT DETAIL", "ROUTE QDIOACCEL"; spec 02 §2.3,
//! 03 §3.3–3.4).
//!
//! softosa's engine is the adapter plus the part of the stack that talks to
//! it; it does not keep a TCP connection table. So Netstat ALL lists the
//! connections the engine knows — those its bulk detector sees streaming and
//! those registered in an interface's BULKDATA table — and VCRT lists the
//! distributed DVIPAs and what reaches them, saying plainly that no
//! per-connection routing table exists. Each report names one stack; with no
//! target every stack is shown.

use crate::context::DisplayContext;
use crate::text::{yes_no_mixed, Lines};
use crate::{select_stacks, DisplayError, Report};

use serde::Serialize;
use softosa_engine::config::AckDelay;
use softosa_engine::inbound::bulk::ConnKey;
use softosa_engine::{Engine, QueueKind, StackId};

/// The stacks a Netstat display covers, with their state.
fn stacks_of<'e>(
    engine: &'e Engine,
    ctx: &DisplayContext,
    target: Option<&str>,
) -> Result<Vec<(usize, &'e softosa_engine::engine::Stack)>, DisplayError> {
    let all = engine.stacks();
    Ok(select_stacks(engine, ctx, target)?
        .into_iter()
        .filter_map(|s| all.get(s).map(|st| (s, st)))
        .collect())
}

/// Every interface defined on stack `s` (active or not).
fn interfaces_of(engine: &Engine, s: usize) -> Vec<&softosa_engine::Interface> {
    engine
        .interfaces()
        .iter()
        .filter(|i| i.cfg.stack == s)
        .collect()
}

fn header(l: &mut Lines, stack: &str, time: &str) {
    l.line(format!(
        "MVS TCP/IP NETSTAT CS SOFTOSA   TCPIP Name: {stack:<16} {time}"
    ));
}

// ----- Netstat ALL ------------------------------------------------------------

#[derive(Debug, Serialize)]
pub struct Connection {
    pub local_socket: String,
    pub foreign_socket: String,
    /// The stack's bulk detector currently sees the connection streaming.
    pub streaming: bool,
    /// Registered with the adapter for an ancillary (BULKDATA) input queue.
    pub ancillary_input_queue: bool,
    pub bulk_data_intf_name: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct AllStack {
    pub stack: String,
    pub connections: Vec<Connection>,
}

#[derive(Debug, Serialize)]
pub struct AllReport {
    pub time: String,
    pub stacks: Vec<AllStack>,
}

/// Build Netstat ALL for a stack (or every stack).
pub fn build_all(
    engine: &Engine,
    ctx: &DisplayContext,
    target: Option<&str>,
) -> Result<AllReport, DisplayError> {
    let stacks = select_stacks(engine, ctx, target)?;
    let mut out = Vec::new();
    for s in stacks {
        // Registered connections, by interface.
        let mut conns: Vec<(ConnKey, bool, Option<String>)> = Vec::new();
        for i in interfaces_of(engine, s) {
            for f in i.bulk_connections() {
                let k = ConnKey::from_inbound(&f);
                conns.push((k, false, Some(i.cfg.name.clone())));
            }
        }
        for k in engine.streaming_connections(StackId(s)) {
            match conns.iter_mut().find(|(c, _, _)| *c == k) {
                Some(e) => e.1 = true,
                None => conns.push((k, true, None)),
            }
        }
        conns.sort_by_key(|c| c.0);
        out.push(AllStack {
            stack: ctx.stack_name(engine, s).to_string(),
            connections: conns
                .into_iter()
                .map(|(k, streaming, intf)| Connection {
                    local_socket: format!("{}..{}", k.local, k.local_port),
                    foreign_socket: format!("{}..{}", k.remote, k.remote_port),
                    streaming,
                    ancillary_input_queue: intf.is_some(),
                    bulk_data_intf_name: intf,
                })
                .collect(),
        });
    }
    Ok(AllReport {
        time: ctx.clock().hms(),
        stacks: out,
    })
}

impl Report for AllReport {
    fn to_text(&self) -> String {
        let mut l = Lines::new();
        for s in &self.stacks {
            header(&mut l, &s.stack, &self.time);
            if s.connections.is_empty() {
                l.line("No streaming or registered connections.");
            }
            for c in &s.connections {
                l.line(format!("Local Socket:   {}", c.local_socket));
                l.line(format!("  Foreign Socket: {}", c.foreign_socket));
                l.line(format!("  Streaming: {}", yes_no_mixed(c.streaming)));
                l.line(format!(
                    "  Ancillary Input Queue: {}",
                    yes_no_mixed(c.ancillary_input_queue)
                ));
                if let Some(n) = &c.bulk_data_intf_name {
                    l.line(format!("    BulkDataIntfName: {n}"));
                }
            }
            l.line("Note: softosa lists the connections its bulk detector tracks as");
            l.line("streaming and those registered for a BULKDATA queue; the engine");
            l.line("keeps no other connection state.");
        }
        l.finish()
    }
}

// ----- Netstat STATS ------------------------------------------------------------

#[derive(Debug, Serialize)]
pub struct StatsStack {
    pub stack: String,
    pub segments_received_on_osa_bulk_queues: u64,
    pub bulk_registrations: u64,
    pub bulk_deregistrations: u64,
    pub bulk_registrations_refused: u64,
    pub connections_streaming: u64,
    /// New connections the bulk detector did not track because its table
    /// was full (it evicts none).
    pub connections_not_tracked: u64,
    pub offload_sends: u64,
    pub offload_segments: u64,
    pub offload_bytes: u64,
    pub offload_excluded: u64,
    pub qdioaccel_routes: u64,
    pub qdioaccel_routes_learned: u64,
    pub qdioaccel_routes_refused: u64,
    pub qdioaccel_packets_forwarded: u64,
    pub qdioaccel_bytes_forwarded: u64,
}

#[derive(Debug, Serialize)]
pub struct StatsReport {
    pub time: String,
    pub stacks: Vec<StatsStack>,
}

/// Build Netstat STATS.
pub fn build_stats(
    engine: &Engine,
    ctx: &DisplayContext,
    target: Option<&str>,
) -> Result<StatsReport, DisplayError> {
    let mut stacks = Vec::new();
    for (s, st) in stacks_of(engine, ctx, target)? {
        let ifs = interfaces_of(engine, s);
        let sum = |f: &dyn Fn(&softosa_engine::Interface) -> u64| ifs.iter().map(|i| f(i)).sum();
        let rq_sum = |f: &dyn Fn(&softosa_engine::counters::ReadQueueCounters) -> u64| -> u64 {
            ifs.iter()
                .flat_map(|i| i.read_queues())
                .map(|rq| f(&rq.q.counters))
                .sum()
        };
        stacks.push(StatsStack {
            stack: ctx.stack_name(engine, s).to_string(),
            segments_received_on_osa_bulk_queues: sum(&|i| i.counters.segments_on_bulk_queue),
            bulk_registrations: st.counters.bulk_registrations,
            bulk_deregistrations: st.counters.bulk_deregistrations,
            bulk_registrations_refused: st.counters.registrations_refused,
            connections_streaming: engine.streaming_connections(StackId(s)).len() as u64,
            connections_not_tracked: st.counters.connections_not_tracked,
            offload_sends: sum(&|i| i.counters.offload.sends),
            offload_segments: sum(&|i| i.counters.offload.segments),
            offload_bytes: sum(&|i| i.counters.offload.bytes),
            offload_excluded: sum(&|i| i.counters.offload.excluded),
            qdioaccel_routes: st.accel_routes().len() as u64,
            qdioaccel_routes_learned: st.counters.accel_routes_learned,
            qdioaccel_routes_refused: st.counters.accel_routes_refused,
            qdioaccel_packets_forwarded: rq_sum(&|c| c.pktiqd),
            qdioaccel_bytes_forwarded: rq_sum(&|c| c.bytiqd),
        });
    }
    Ok(StatsReport {
        time: ctx.clock().hms(),
        stacks,
    })
}

const STATS_W: usize = 36;

impl Report for StatsReport {
    fn to_text(&self) -> String {
        let mut l = Lines::new();
        for s in &self.stacks {
            header(&mut l, &s.stack, &self.time);
            l.line("TCP STATISTICS");
            let tcp: [(&str, u64); 6] = [
                (
                    "SEGMENTS RECEIVED ON OSA BULK QUEUES",
                    s.segments_received_on_osa_bulk_queues,
                ),
                ("STREAMING CONNECTIONS (DETECTOR)", s.connections_streaming),
                ("BULKDATA REGISTRATIONS", s.bulk_registrations),
                ("BULKDATA DEREGISTRATIONS", s.bulk_deregistrations),
                (
                    "BULKDATA REGISTRATIONS REFUSED",
                    s.bulk_registrations_refused,
                ),
                (
                    "CONNECTIONS NOT TRACKED (TABLE FULL)",
                    s.connections_not_tracked,
                ),
            ];
            for (k, v) in tcp {
                l.stat(2, k, STATS_W.max(k.len()), v);
            }
            l.line("SEGMENTATION OFFLOAD STATISTICS");
            let tso: [(&str, u64); 4] = [
                ("OFFLOAD SENDS", s.offload_sends),
                ("OFFLOAD SEGMENTS", s.offload_segments),
                ("OFFLOAD BYTES", s.offload_bytes),
                ("LARGE SENDS NOT OFFLOADED", s.offload_excluded),
            ];
            for (k, v) in tso {
                l.stat(2, k, STATS_W, v);
            }
            l.line("QDIO ACCELERATOR STATISTICS");
            let acc: [(&str, u64); 5] = [
                ("ROUTES IN QDIOACCEL TABLE", s.qdioaccel_routes),
                ("ROUTES LEARNED", s.qdioaccel_routes_learned),
                ("ROUTES REFUSED (TABLE FULL)", s.qdioaccel_routes_refused),
                ("PACKETS FORWARDED (PKTIQD)", s.qdioaccel_packets_forwarded),
                ("BYTES FORWARDED (BYTIQD)", s.qdioaccel_bytes_forwarded),
            ];
            for (k, v) in acc {
                l.stat(2, k, STATS_W, v);
            }
        }
        l.finish()
    }
}

// ----- Netstat CONFIG -------------------------------------------------------------

#[derive(Debug, Serialize)]
pub struct WlmQueue {
    pub iopri: u8,
    pub control_values: Vec<u8>,
    pub fwd: bool,
}

#[derive(Debug, Serialize)]
pub struct TosMapping {
    pub queue: u8,
    pub tos: String,
}

#[derive(Debug, Serialize)]
pub struct ConfigStack {
    pub stack: String,
    pub datagram_fwd: bool,
    pub ipsecurity: bool,
    pub qdio_accel: bool,
    pub qdio_accel_priority: Option<u8>,
    pub iqdio_routing: bool,
    pub distributed_dvipas: Vec<String>,
    pub ee_address: Option<String>,
    pub ee_ports: Option<String>,
    pub segmentation_offload: bool,
    pub iqd_multiwrite: bool,
    pub ziip_iqdio_multiwrite: bool,
    pub wlm_priority_q: bool,
    pub wlm_mapping: Vec<WlmQueue>,
    pub tos_mask: Option<String>,
    pub tos_mappings: Vec<TosMapping>,
    pub default_write_queue: u8,
    pub default_forward_queue: u8,
    /// TCPCONFIG: default and largest buffers, bytes.
    pub tcp_default_rcv_buf: u32,
    pub tcp_default_snd_buf: u32,
    pub tcp_max_rcv_buf: u32,
    pub tcp_max_snd_buf: u32,
    /// `Yes`, `No` or `Auto` (DELAYACKS, NODELAYACKS, AUTODELAYACKS).
    pub tcp_delay_ack: &'static str,
    pub tcp_frr_threshold: u32,
    pub tcp_time_wait_s: u32,
    pub smc_r: bool,
    pub smc_d: bool,
}

#[derive(Debug, Serialize)]
pub struct ConfigReport {
    pub time: String,
    pub stacks: Vec<ConfigStack>,
}

/// Build Netstat CONFIG.
pub fn build_config(
    engine: &Engine,
    ctx: &DisplayContext,
    target: Option<&str>,
) -> Result<ConfigReport, DisplayError> {
    let mut stacks = Vec::new();
    for (s, st) in stacks_of(engine, ctx, target)? {
        let c = &st.cfg;
        let wlm_mapping = c
            .wlm_priorityq
            .map(|m| {
                (1..=4u8)
                    .map(|q| WlmQueue {
                        iopri: q,
                        control_values: (0..7u8)
                            .filter(|v| m.queue_for[usize::from(*v)] == q)
                            .collect(),
                        fwd: m.forwarded_queue == q,
                    })
                    .collect()
            })
            .unwrap_or_default();
        stacks.push(ConfigStack {
            stack: ctx.stack_name(engine, s).to_string(),
            datagram_fwd: c.datagram_fwd,
            ipsecurity: c.ipsecurity,
            qdio_accel: c.qdio_accelerator.is_some(),
            qdio_accel_priority: c.qdio_accelerator,
            iqdio_routing: c.iqdio_routing,
            distributed_dvipas: c.distributed_dvipas.iter().map(|a| a.to_string()).collect(),
            ee_address: c.ee.map(|e| e.addr.to_string()),
            ee_ports: c.ee.map(|e| format!("{}-{}", e.first_port, e.last_port)),
            segmentation_offload: c.segmentation_offload,
            iqd_multiwrite: c.iqd_multiwrite,
            ziip_iqdio_multiwrite: c.iqd_multiwrite && c.ziip_iqdio_multiwrite,
            wlm_priority_q: c.wlm_priorityq.is_some(),
            wlm_mapping,
            tos_mask: c.tos_policy.as_ref().map(|p| format!("{:08b}", p.mask)),
            tos_mappings: c
                .tos_policy
                .as_ref()
                .map(|p| {
                    p.mappings
                        .iter()
                        .map(|(q, t)| TosMapping {
                            queue: *q,
                            tos: format!("{t:08b}"),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            default_write_queue: c.default_queue,
            // WLMPRIORITYQ's FWD places every forwarded packet a QoS
            // policy does not (prio.rs); unforwarded packets it does not
            // map still take the default queue.
            default_forward_queue: c
                .wlm_priorityq
                .map_or(c.default_forward_queue, |m| m.forwarded_queue),
            tcp_default_rcv_buf: c.tcp.rcv_buf,
            tcp_default_snd_buf: c.tcp.send_buf,
            tcp_max_rcv_buf: c.tcp.max_rcv_buf(),
            tcp_max_snd_buf: c.tcp.max_send_buf(),
            tcp_delay_ack: match c.tcp.delay_acks {
                AckDelay::Delay => "Yes",
                AckDelay::NoDelay => "No",
                AckDelay::Auto => "Auto",
            },
            tcp_frr_threshold: c.tcp.frr_threshold,
            tcp_time_wait_s: c.tcp.time_wait_s,
            smc_r: c.smc_r,
            smc_d: c.smc_d,
        });
    }
    Ok(ConfigReport {
        time: ctx.clock().hms(),
        stacks,
    })
}

impl Report for ConfigReport {
    fn to_text(&self) -> String {
        let mut l = Lines::new();
        for s in &self.stacks {
            header(&mut l, &s.stack, &self.time);
            l.line("TCP Configuration Table:");
            l.line(format!(
                "DefaultRcvBufSize:  {:08}  DefaultSndBufSize:  {:08}",
                s.tcp_default_rcv_buf, s.tcp_default_snd_buf
            ));
            l.line(format!(
                "DefltMaxRcvBufSize: {:08}  DefltMaxSndBufSize: {:08}",
                s.tcp_max_rcv_buf, s.tcp_max_snd_buf
            ));
            l.line(format!(
                "DelayAck: {}  FRRThreshold: {}  TimeWaitInterval: {}",
                s.tcp_delay_ack, s.tcp_frr_threshold, s.tcp_time_wait_s
            ));
            l.line("");
            l.line("IP Configuration Table:");
            l.line(format!(
                "Forwarding: {:<8} IpSecurity: {}",
                if s.datagram_fwd { "Pkt" } else { "No" },
                yes_no_mixed(s.ipsecurity)
            ));
            match s.qdio_accel_priority {
                Some(p) => l.line(format!("QDIOAccel: Yes  QDIOAccelPriority: {p}")),
                None => l.line("QDIOAccel: No"),
            }
            l.line(format!("IQDIORoute: {}", yes_no_mixed(s.iqdio_routing)));
            if !s.distributed_dvipas.is_empty() {
                l.line(format!(
                    "Distributed DVIPAs: {}",
                    s.distributed_dvipas.join(" ")
                ));
            }
            if let (Some(a), Some(p)) = (&s.ee_address, &s.ee_ports) {
                l.line(format!("EE Address: {a}  EE Ports: {p}"));
            }
            l.line("");
            l.line("Global Configuration Information:");
            l.line(format!(
                "SegmentationOffload: {}",
                yes_no_mixed(s.segmentation_offload)
            ));
            l.line(format!(
                "SMCR: {}  SMCD: {}",
                yes_no_mixed(s.smc_r),
                yes_no_mixed(s.smc_d)
            ));
            l.line(format!(
                "IQDMultiWrite: {}  ZIIP IQDIOMultiWrite: {}",
                yes_no_mixed(s.iqd_multiwrite),
                yes_no_mixed(s.ziip_iqdio_multiwrite)
            ));
            l.line(format!("WLMPriorityQ: {}", yes_no_mixed(s.wlm_priority_q)));
            for q in &s.wlm_mapping {
                let vals: Vec<String> = q.control_values.iter().map(|v| v.to_string()).collect();
                let mut line = format!("  IOPRI{} {}", q.iopri, vals.join(" "));
                if q.fwd {
                    line.push_str(" FWD");
                }
                l.line(line);
            }
            match &s.tos_mask {
                Some(m) => {
                    l.line(format!("QoS Policy: Yes  SubnetTosMask: {m}"));
                    for t in &s.tos_mappings {
                        l.line(format!("  PriorityTosMapping {} {}", t.queue, t.tos));
                    }
                }
                None => l.line("QoS Policy: No"),
            }
            l.line(format!(
                "Default Write Queue: {}  Forwarded Write Queue: {}",
                s.default_write_queue, s.default_forward_queue
            ));
        }
        l.finish()
    }
}

// ----- Netstat VCRT DETAIL ------------------------------------------------------

#[derive(Debug, Serialize)]
pub struct SysdistQueue {
    pub interface: String,
    pub packets: u64,
    pub bytes: u64,
    pub accelerated_packets: u64,
}

#[derive(Debug, Serialize)]
pub struct VcrtDvipa {
    pub dvipa: String,
    /// Interfaces of the stack with a SYSDIST queue and its counters (the
    /// queue carries every distributed DVIPA of the stack together).
    pub sysdist_queues: Vec<SysdistQueue>,
    /// Accelerator routes whose destination is this DVIPA.
    pub accelerator_routes: Vec<String>,
    /// Its connections and their targets, where the driver keeps the
    /// table (the simulator), at most [`VCRT_SHOWN`] of them.
    pub connections: Vec<crate::VcrtRoute>,
    /// How many connections the table holds for this DVIPA in all.
    pub connections_total: usize,
}

/// Connections Netstat VCRT lists per DVIPA at most (the table may hold
/// hundreds of thousands).
pub const VCRT_SHOWN: usize = 1000;

#[derive(Debug, Serialize)]
pub struct VcrtStack {
    pub stack: String,
    pub qdio_accel: bool,
    pub dvipas: Vec<VcrtDvipa>,
    /// Whether the connections are known: the engine keeps no routing
    /// table of its own; a driver that does (the simulator) gives it.
    pub connection_table_available: bool,
}

#[derive(Debug, Serialize)]
pub struct VcrtReport {
    pub time: String,
    pub stacks: Vec<VcrtStack>,
}

/// Build Netstat VCRT DETAIL.
pub fn build_vcrt(
    engine: &Engine,
    ctx: &DisplayContext,
    target: Option<&str>,
) -> Result<VcrtReport, DisplayError> {
    let mut stacks = Vec::new();
    for (s, st) in stacks_of(engine, ctx, target)? {
        let ifs = interfaces_of(engine, s);
        let routes = st.accel_routes();
        let dvipas = st
            .cfg
            .distributed_dvipas
            .iter()
            .map(|d| {
                let mine: Vec<&crate::VcrtRoute> = ctx
                    .vcrt
                    .iter()
                    .flatten()
                    .filter(|r| r.dvipa == *d)
                    .collect();
                (d, mine)
            })
            .map(|(d, mine)| VcrtDvipa {
                connections_total: mine.len(),
                connections: mine.into_iter().take(VCRT_SHOWN).cloned().collect(),
                dvipa: d.to_string(),
                sysdist_queues: ifs
                    .iter()
                    .filter_map(|i| {
                        i.queue(QueueKind::SysDist).map(|rq| SysdistQueue {
                            interface: i.cfg.name.clone(),
                            packets: rq.q.counters.packcnt,
                            bytes: rq.q.counters.bytecnt,
                            accelerated_packets: rq.q.counters.pktiqd,
                        })
                    })
                    .collect(),
                accelerator_routes: routes
                    .iter()
                    .filter(|(a, _)| std::net::IpAddr::V4(*a) == *d)
                    .filter_map(|(_, out)| engine.interface(*out).map(|i| i.cfg.name.clone()))
                    .collect(),
            })
            .collect();
        stacks.push(VcrtStack {
            stack: ctx.stack_name(engine, s).to_string(),
            qdio_accel: st.cfg.qdio_accelerator.is_some(),
            dvipas,
            connection_table_available: ctx.vcrt.is_some(),
        });
    }
    Ok(VcrtReport {
        time: ctx.clock().hms(),
        stacks,
    })
}

impl Report for VcrtReport {
    fn to_text(&self) -> String {
        let mut l = Lines::new();
        for s in &self.stacks {
            header(&mut l, &s.stack, &self.time);
            l.line("Dynamic VIPA Connection Routing Table:");
            if s.dvipas.is_empty() {
                l.line("  This stack distributes no DVIPA.");
            }
            for d in &s.dvipas {
                l.line(format!("Dest: {}", d.dvipa));
                l.line(format!("  Accelerator: {}", yes_no_mixed(s.qdio_accel)));
                for r in &d.accelerator_routes {
                    l.line(format!("  QDIOAccel route via: {r}"));
                }
                for q in &d.sysdist_queues {
                    l.line(format!(
                        "  SYSDIST queue on {}: packets {}  bytes {}  accelerated {}",
                        q.interface, q.packets, q.bytes, q.accelerated_packets
                    ));
                }
                if !s.connection_table_available {
                    continue;
                }
                for c in &d.connections {
                    l.line(format!("Dest:      {}..{}", c.dvipa, c.port));
                    l.line(format!("  Source:  {}..{}", c.source, c.source_port));
                    l.line(format!("  DestXCF: {}", c.dest_xcf));
                }
                if d.connections_total > d.connections.len() {
                    l.line(format!(
                        "  ... and {} more connections",
                        d.connections_total - d.connections.len()
                    ));
                }
                l.line(format!(
                    "{} of {} records displayed",
                    d.connections.len(),
                    d.connections_total
                ));
            }
            // (a stack that distributes nothing has no table to miss)
            if !s.connection_table_available && !s.dvipas.is_empty() {
                l.line("Note: the softosa engine keeps no sysplex distributor connection");
                l.line("table; connections and their targets are not available here.");
            }
        }
        l.finish()
    }
}

// ----- Netstat ROUTE QDIOACCEL ------------------------------------------------------

#[derive(Debug, Serialize)]
pub struct AccelRoute {
    pub destination: String,
    pub interface: String,
}

#[derive(Debug, Serialize)]
pub struct RouteStack {
    pub stack: String,
    pub accelerator: String,
    pub routes: Vec<AccelRoute>,
}

#[derive(Debug, Serialize)]
pub struct RouteReport {
    pub time: String,
    pub stacks: Vec<RouteStack>,
}

/// Build Netstat ROUTE QDIOACCEL.
pub fn build_route(
    engine: &Engine,
    ctx: &DisplayContext,
    target: Option<&str>,
) -> Result<RouteReport, DisplayError> {
    let mut stacks = Vec::new();
    for (s, st) in stacks_of(engine, ctx, target)? {
        let accelerator = if st.cfg.qdio_accelerator.is_some() {
            "QDIOACCELERATOR"
        } else if st.cfg.iqdio_routing {
            "IQDIOROUTING"
        } else {
            "NONE"
        };
        stacks.push(RouteStack {
            stack: ctx.stack_name(engine, s).to_string(),
            accelerator: accelerator.into(),
            routes: st
                .accel_routes()
                .iter()
                .map(|(dst, out)| AccelRoute {
                    destination: format!("{dst}/32"),
                    interface: engine
                        .interface(*out)
                        .map(|i| i.cfg.name.clone())
                        .unwrap_or_else(|| format!("#{}", out.0)),
                })
                .collect(),
        });
    }
    Ok(RouteReport {
        time: ctx.clock().hms(),
        stacks,
    })
}

impl Report for RouteReport {
    fn to_text(&self) -> String {
        let mut l = Lines::new();
        for s in &self.stacks {
            header(&mut l, &s.stack, &self.time);
            l.line(format!("QDIO Accelerator Routes ({}):", s.accelerator));
            l.line("Destination        Interface");
            l.line("-----------        ---------");
            for r in &s.routes {
                l.line(format!("{:<18} {}", r.destination, r.interface));
            }
            l.line(format!("{} routes displayed", s.routes.len()));
        }
        l.finish()
    }
}
