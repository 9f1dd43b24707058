//! Run results and their renderings (simulator layer; spec 6.1 results).
//!
//! Per workload: throughput (transactions/s and MB/s), latency mean/p50/p99,
//! CPU per transaction and per MB on the client and server hosts. Per host:
//! processor utilisation, TCP counters, link counters, and for adapters the
//! microprocessor utilisation and every engine counter. Rendered as text, JSON
//! or CSV. Each received frame's processing is charged to its connection's
//! workload, an interrupt or poll to the workload of its batch when all the
//! batch's frames belong to one; CPU spent on work not attributable to one
//! workload (mixed batches, timers) is shared among the host's workloads in
//! proportion to their own CPU.

use crate::link::WireStats;
use crate::world::{HostStats, World};
use serde::Serialize;
use std::fmt::Write as _;

#[derive(Clone, Debug, Serialize)]
pub struct WlResult {
    pub name: String,
    pub kind: &'static str,
    pub connections: u32,
    pub request: u32,
    pub response: u32,
    pub client: String,
    pub server: String,
    /// The clients' mean think time (µs; 0: a closed loop).
    pub think_us: f64,
    pub transactions: u64,
    pub transactions_per_s: f64,
    pub mb_per_s: f64,
    pub latency_mean_us: f64,
    pub latency_p50_us: f64,
    pub latency_p99_us: f64,
    pub cpu_us_per_txn_client: f64,
    pub cpu_us_per_txn_server: f64,
    pub cpu_ms_per_mb_client: f64,
    pub cpu_ms_per_mb_server: f64,
    #[serde(skip)]
    pub latency_points: Vec<(u64, u64)>,
}

impl WlResult {
    /// The fields that are per completed transaction.
    pub const PER_TXN_FIELDS: [&'static str; 5] = [
        "latency_mean_us",
        "latency_p50_us",
        "latency_p99_us",
        "cpu_us_per_txn_client",
        "cpu_us_per_txn_server",
    ];

    /// `v` (a latency or a CPU cost per transaction of this workload) to
    /// `prec` decimals, or "-" when no transaction completed: then there is
    /// nothing it could be per.
    pub fn per_txn(&self, v: f64, prec: usize) -> String {
        self.per_txn_or(v, prec, "-")
    }

    /// As [`WlResult::per_txn`], with `none` standing for the missing value.
    pub fn per_txn_or(&self, v: f64, prec: usize, none: &str) -> String {
        if self.transactions == 0 {
            none.to_string()
        } else {
            format!("{v:.prec$}")
        }
    }

    /// The fields that are per MB delivered.
    pub const PER_MB_FIELDS: [&'static str; 2] = ["cpu_ms_per_mb_client", "cpu_ms_per_mb_server"];

    /// Whether the workload delivered no payload in the window (its CPU per
    /// MB is then per nothing).
    pub fn delivered_nothing(&self) -> bool {
        self.mb_per_s == 0.0
    }

    /// `v` (a CPU cost per MB of this workload) to `prec` decimals, or
    /// `none` when it delivered no payload.
    pub fn per_mb_or(&self, v: f64, prec: usize, none: &str) -> String {
        if self.delivered_nothing() {
            none.to_string()
        } else {
            format!("{v:.prec$}")
        }
    }
}

impl WlResult {
    /// The latency distribution as a curve for a chart: about twenty bins
    /// per decade of µs, each the share (%) of transactions in it; `None`
    /// when no transaction completed.
    pub fn latency_curve(&self) -> Option<Vec<(f64, f64)>> {
        let total: u64 = self.latency_points.iter().map(|p| p.1).sum();
        if total == 0 {
            return None;
        }
        let mut bins: std::collections::BTreeMap<i64, u64> = std::collections::BTreeMap::new();
        for &(ns, n) in &self.latency_points {
            let b = ((ns.max(1) as f64 / 1e3).log10() * 20.0).round() as i64;
            *bins.entry(b).or_default() += n;
        }
        Some(
            bins.into_iter()
                .map(|(b, n)| (10f64.powf(b as f64 / 20.0), n as f64 / total as f64 * 100.0))
                .collect(),
        )
    }
}

impl AdapterResult {
    /// The sampled inter-packet gap timer of each read queue over time, as
    /// chart series: (`"QUEUE gap"`, [(ms, µs)]); empty without sampling.
    pub fn gap_series(&self) -> Vec<(String, Vec<(f64, f64)>)> {
        let mut per_q: std::collections::BTreeMap<&str, Vec<(f64, f64)>> =
            std::collections::BTreeMap::new();
        for &(t, q, gap, _) in &self.samples {
            per_q
                .entry(q)
                .or_default()
                .push((t as f64 / 1e6, gap as f64 / 1e3));
        }
        per_q
            .into_iter()
            .map(|(q, p)| (format!("{q} gap"), p))
            .collect()
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct AdapterResult {
    /// Timer retunes of the DYNAMIC tuner: (ns, queue, gap ns, block ns).
    #[serde(skip)]
    pub retunes: Vec<crate::osa::Retune>,
    /// Sampled timers (`sample_us`): (ns, queue, gap ns, block ns); in the
    /// JSON as `timer_samples` when the scenario asked for sampling.
    #[serde(
        rename = "timer_samples",
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "samples_json"
    )]
    pub samples: Vec<crate::osa::Retune>,
    /// The time of the last sample (µs), when sampling stopped at its cap
    /// before the run ended.
    #[serde(
        rename = "timer_samples_stopped_us",
        skip_serializing_if = "Option::is_none"
    )]
    pub samples_stopped_us: Option<f64>,
    pub microprocessor_busy_pct: f64,
    /// `microprocessor_busy_pct` by the kind of work, each a share of the
    /// window (they add up to it).
    pub microprocessor_busy_by: MicroprocessorShares,
    pub inbound_overruns: u64,
    /// The engine's counters over the measured window: the engine-wide
    /// ones under `counters` (frames, `dropped_in`/`dropped_out` by
    /// reason id), the interface's under `interface`, the queues' under
    /// `read_queues` and `write_queues`, and the adapter model's own
    /// (`bulk_registrations`, `timer_retunes`, ...) beside them.
    pub engine: serde_json::Value,
    /// Frames the adapter dropped inbound over the whole run, warm-up
    /// included, by reason: what explains a workload that never got going.
    #[serde(skip)]
    pub run_dropped_in: Vec<(&'static str, u64)>,
}

/// Where the adapter's microprocessor spent the measured window, each a
/// percentage of it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MicroprocessorShares {
    pub inbound_frames_pct: f64,
    pub outbound_frames_pct: f64,
    pub write_signals_pct: f64,
    pub presentations_pct: f64,
    pub olm_pct: f64,
}

impl MicroprocessorShares {
    fn of(b: &crate::world::MicroBusy, win_s: f64) -> MicroprocessorShares {
        let pct = |ns: u64| ns as f64 / 1e9 / win_s * 100.0;
        MicroprocessorShares {
            inbound_frames_pct: pct(b.inbound_frames_ns),
            outbound_frames_pct: pct(b.outbound_frames_ns),
            write_signals_pct: pct(b.write_signals_ns),
            presentations_pct: pct(b.presentations_ns),
            olm_pct: pct(b.olm_ns),
        }
    }

    /// " (inbound frames 40.1%, ...)" for the shares of 0.05 % or more;
    /// empty when there are none.
    fn text(&self) -> String {
        let parts: Vec<String> = [
            ("inbound frames", self.inbound_frames_pct),
            ("outbound frames", self.outbound_frames_pct),
            ("write signals", self.write_signals_pct),
            ("presenting", self.presentations_pct),
            ("OLM", self.olm_pct),
        ]
        .iter()
        .filter(|(_, p)| *p >= 0.05)
        .map(|(k, p)| format!("{k} {p:.1}%"))
        .collect();
        if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        }
    }
}

/// Timer samples as JSON objects, times in microseconds.
fn samples_json<S: serde::Serializer>(v: &[crate::osa::Retune], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|&(t, queue, gap, block)| {
        serde_json::json!({
            "t_us": t as f64 / 1e3,
            "queue": queue,
            "gap_us": gap as f64 / 1e3,
            "block_us": block as f64 / 1e3,
        })
    }))
}

#[derive(Clone, Debug, Serialize)]
pub struct HostResult {
    pub name: String,
    pub model: String,
    pub processors: usize,
    /// How long a connection this host closed first stays in TIME_WAIT,
    /// seconds (TIMEWAITINTERVAL, or a peer's own).
    pub time_wait_s: u32,
    /// A z/VM guest on a VSWITCH: its virtual NIC's transport layer, 2
    /// (Ethernet mode) or 3 (IP mode), as the Performance Toolkit's VNIC
    /// screens show it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vnic_layer: Option<u8>,
    pub cpu_busy_pct: f64,
    pub cpu_ms_per_s: f64,
    /// Data segments received per workload (same order as `workloads`).
    pub rx_data_segments: Vec<u64>,
    pub tcp: HostStats,
    pub link_out: WireStats,
    pub link_in: WireStats,
    /// A sysplex distributor's target: the dynamic XCF link that brings it
    /// the distributed connections' packets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xcf_in: Option<WireStats>,
    pub adapter: Option<AdapterResult>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    pub window_s: f64,
    pub workloads: Vec<WlResult>,
    pub hosts: Vec<HostResult>,
    /// Host CPU ns per workload with the unattributed share distributed.
    #[serde(skip)]
    pub cpu_by_host_wl: Vec<Vec<f64>>,
}

fn shared_cpu(cpu_wl: &[u64]) -> Vec<f64> {
    let n = cpu_wl.len().saturating_sub(1);
    let own: u64 = cpu_wl[..n].iter().sum();
    let extra = cpu_wl.get(n).copied().unwrap_or(0) as f64;
    cpu_wl[..n]
        .iter()
        .map(|&c| {
            if own == 0 {
                extra / n.max(1) as f64
            } else {
                c as f64 + extra * c as f64 / own as f64
            }
        })
        .collect()
}

pub(crate) fn collect(w: &World) -> RunResult {
    let win = w.window_ns().max(1) as f64 / 1e9;
    let names = w.host_names();
    let mut hosts = Vec::new();
    let mut cpu_by_host_wl = Vec::new();
    for h in 0..names.len() {
        let v = w.host_view(h);
        cpu_by_host_wl.push(shared_cpu(v.cpu_wl));
        hosts.push(HostResult {
            name: v.name.to_string(),
            model: v.model.to_string(),
            processors: v.processors,
            time_wait_s: v.time_wait_s,
            vnic_layer: v.vswitch.map(|m| match m {
                crate::world::VswitchMode::Ethernet => 2,
                crate::world::VswitchMode::Ip => 3,
            }),
            cpu_busy_pct: v.cpu_window_ns as f64 / 1e9 / win / v.processors.max(1) as f64 * 100.0,
            cpu_ms_per_s: v.cpu_window_ns as f64 / 1e6 / win,
            rx_data_segments: v.rx_wl.to_vec(),
            tcp: v.stats,
            link_out: v.up,
            link_in: v.down,
            xcf_in: v.xcf_in,
            adapter: v.osa.map(|o| AdapterResult {
                retunes: o.osa.retunes.clone(),
                samples: w
                    .samples
                    .iter()
                    .filter(|x| x.1 == h)
                    .map(|x| (x.0, x.2, x.3, x.4))
                    .collect(),
                samples_stopped_us: w.sampling_stopped.map(|t| t as f64 / 1e3),
                microprocessor_busy_pct: o.micro_busy_window_ns as f64 / 1e9 / win * 100.0,
                microprocessor_busy_by: MicroprocessorShares::of(&o.micro_busy_by, win),
                inbound_overruns: o.overruns,
                engine: o.engine,
                run_dropped_in: o
                    .osa
                    .engine()
                    .counters()
                    .dropped_in
                    .nonzero()
                    .map(|(r, n)| (r.label(), n))
                    .collect(),
            }),
        });
    }
    let mut workloads = Vec::new();
    for (i, (spec, st)) in w.workloads.iter().zip(&w.stats).enumerate() {
        let tx = st.transactions as f64;
        let mb = st.delivered_bytes as f64 / 1e6;
        let cc = cpu_by_host_wl[spec.client][i];
        // The server side of a distributed workload is the distributor plus
        // its targets: sum the workload's CPU on every host but the client.
        let cs = if spec.via_distributor.is_some() {
            (0..cpu_by_host_wl.len())
                .filter(|&h| h != spec.client)
                .map(|h| cpu_by_host_wl[h][i])
                .sum()
        } else {
            cpu_by_host_wl[spec.server][i]
        };
        let per = |ns: f64, d: f64| if d > 0.0 { ns / d } else { 0.0 };
        workloads.push(WlResult {
            name: spec.name.clone(),
            kind: spec.kind.label(),
            think_us: spec.think_ns as f64 / 1e3,
            connections: spec.connections,
            request: spec.request,
            response: spec.response,
            client: names[spec.client].clone(),
            server: names[spec.server].clone(),
            transactions: st.transactions,
            transactions_per_s: tx / win,
            mb_per_s: mb / win,
            latency_mean_us: st.latency.mean() / 1e3,
            latency_p50_us: st.latency.quantile(0.5) as f64 / 1e3,
            latency_p99_us: st.latency.quantile(0.99) as f64 / 1e3,
            cpu_us_per_txn_client: per(cc / 1e3, tx),
            cpu_us_per_txn_server: per(cs / 1e3, tx),
            cpu_ms_per_mb_client: per(cc / 1e6, mb),
            cpu_ms_per_mb_server: per(cs / 1e6, mb),
            latency_points: st.latency.points(),
        });
    }
    RunResult {
        window_s: win,
        workloads,
        hosts,
        cpu_by_host_wl,
    }
}

impl RunResult {
    /// Human-readable table.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "measured window: {:.3} s", self.window_s);
        // Columns as wide as the longest name and size, so a long
        // workload name does not push its row out of line.
        let size = |w: &WlResult| format!("{}/{}", w.request, w.response);
        let nw = self
            .workloads
            .iter()
            .map(|w| w.name.len())
            .fold(16, usize::max);
        let sw = self
            .workloads
            .iter()
            .map(|w| size(w).len())
            .fold(13, usize::max);
        let _ = writeln!(
            s,
            "{:<nw$} {:<5} {:>5} {:>sw$} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10} {:>9} {:>9}",
            "workload",
            "kind",
            "conns",
            "size",
            "trans/s",
            "MB/s",
            "mean us",
            "p50 us",
            "p99 us",
            "cpu us/tr",
            "srv ms/MB",
            "cli ms/MB"
        );
        for w in &self.workloads {
            // Without a completed transaction there is no latency and no CPU
            // per transaction: "-", not a 0.0 that reads as "instant".
            let _ = writeln!(
                s,
                "{:<nw$} {:<5} {:>5} {:>sw$} {:>9.0} {:>9.2} {:>9} {:>9} {:>10} {:>10} {:>9} {:>9}",
                w.name,
                w.kind,
                w.connections,
                size(w),
                w.transactions_per_s,
                w.mb_per_s,
                w.per_txn(w.latency_mean_us, 1),
                w.per_txn(w.latency_p50_us, 1),
                w.per_txn(w.latency_p99_us, 1),
                w.per_txn(w.cpu_us_per_txn_server, 2),
                w.per_mb_or(w.cpu_ms_per_mb_server, 2, "-"),
                w.per_mb_or(w.cpu_ms_per_mb_client, 2, "-"),
            );
        }
        if self.workloads.iter().any(|w| w.delivered_nothing()) {
            let _ = writeln!(
                s,
                "- in ms/MB: no payload delivered in the measured window, so there is no \
                 CPU per MB to show"
            );
        }
        if self.workloads.iter().any(|w| w.transactions == 0) {
            let _ = writeln!(
                s,
                "- : no transaction completed in the measured window (e.g. a STR response \
                 longer than the window carries); its MB/s still counts"
            );
        }
        // A workload that moved nothing at all: say what the adapters threw
        // away over the whole run, which the window's counters may not show.
        if self.workloads.iter().any(|w| w.delivered_nothing()) {
            for h in &self.hosts {
                let drops = h.adapter.as_ref().map_or(&[][..], |a| &a.run_dropped_in);
                if drops.is_empty() {
                    continue;
                }
                let total: u64 = drops.iter().map(|d| d.1).sum();
                let why: Vec<String> = drops.iter().map(|(r, n)| format!("{r} {n}")).collect();
                let _ = writeln!(
                    s,
                    "note: host {}'s adapter dropped {total} inbound frame{} over the whole \
                     run (warm-up included): {}; see `--display drops`",
                    h.name,
                    if total == 1 { "" } else { "s" },
                    why.join(", ")
                );
            }
        }
        let _ = writeln!(s);
        for h in &self.hosts {
            let _ = writeln!(
                s,
                "host {} ({}, {} CPs): CPU {:.1}% busy ({:.1} ms/s); segs out {} (acks {}), rexmit {} (fast {}), RTO {}, dupacks in {}, out-of-order in {}, interrupts {}, polls {}, SIGAs {}, units {}, SD forwarded {}{}",
                h.name,
                h.model,
                h.processors,
                h.cpu_busy_pct,
                h.cpu_ms_per_s,
                h.tcp.segments_out,
                h.tcp.acks_out,
                h.tcp.retransmits,
                h.tcp.fast_retransmits,
                h.tcp.timeouts,
                h.tcp.dupacks_in,
                h.tcp.ooo_segments_in,
                h.tcp.interrupts,
                h.tcp.polls,
                h.tcp.sigas,
                h.tcp.units,
                h.tcp.sd_forwarded,
                match (h.tcp.sd_local, h.tcp.sd_unrouted) {
                    (0, 0) => String::new(),
                    (l, 0) => format!(" (served itself {l})"),
                    (0, u) => format!(" (unrouted, dropped {u})"),
                    (l, u) => format!(" (served itself {l}; unrouted, dropped {u})"),
                },
            );
            if let Some(layer) = h.vnic_layer {
                // the virtual NIC as the Performance Toolkit's VNIC screens
                // show it, and the guest's own CPU ("emulation") and CP's
                let cp = h.tcp.vswitch_cp_ns as f64 / 1e6 / self.window_s.max(1e-9);
                let _ = writeln!(
                    s,
                    "  z/VM: VNIC type QDIO, L {layer} ({} mode) on a VSWITCH; guest (emulation) {:.1} ms/s, CP for the VSWITCH {:.1} ms/s",
                    if layer == 2 { "Ethernet" } else { "IP" },
                    (h.cpu_ms_per_s - cp).max(0.0),
                    cp
                );
            }
            let t = &h.tcp;
            if t.connections_opened + t.time_wait_entered + t.time_wait_segments + t.stray_segments
                > 0
            {
                // a port reused while in TIME_WAIT is one a stack without
                // TIME_WAIT reuse would not have had
                let reused = match t.time_wait_reused {
                    0 => String::new(),
                    n => format!(" ({n} of its ports reused while in TIME_WAIT)"),
                };
                let _ = writeln!(
                    s,
                    "  connections: opened {}, to TIME_WAIT {} (kept {} s){reused}, segments to TIME_WAIT {} (FINs answered again {}), segments for no connection {}",
                    t.connections_opened,
                    t.time_wait_entered,
                    h.time_wait_s,
                    t.time_wait_segments,
                    t.time_wait_acks,
                    t.stray_segments
                );
            }
            if h.tcp.smc_writes_out + h.tcp.smc_writes_in > 0 {
                let _ = writeln!(
                    s,
                    "  SMC: writes out {} (data and cursor updates), writes in {}",
                    h.tcp.smc_writes_out, h.tcp.smc_writes_in
                );
            }
            let _ = writeln!(
                s,
                "  link out: {} frames {} bytes; link in: {} frames, switch drops {}, frame errors {}",
                h.link_out.frames,
                h.link_out.bytes,
                h.link_in.frames,
                h.link_in.dropped_queue_full,
                h.link_in.dropped_frame_error
            );
            if let Some(x) = &h.xcf_in {
                let _ = writeln!(
                    s,
                    "  XCF in (from the sysplex distributor): {} frames {} bytes",
                    x.frames, x.bytes
                );
            }
            if h.tcp.iqd_sent > 0 || h.tcp.iqd_no_buffer > 0 {
                let _ = writeln!(
                    s,
                    "  HiperSockets: {} frames moved, {} dropped (no input buffer)",
                    h.tcp.iqd_sent, h.tcp.iqd_no_buffer
                );
            }
            if let Some(v) = &h.tcp.vse {
                let _ = writeln!(
                    s,
                    "  VSE: non-parallel CPU {:.1} ms, spin {:.1} ms; TCP/IP partition: {} socket requests, {} timer cycles ({} empty)",
                    v.np_ns as f64 / 1e6,
                    v.spin_ns as f64 / 1e6,
                    v.requests,
                    v.timer_cycles,
                    v.empty_cycles
                );
            }
            if let Some(a) = &h.adapter {
                let _ = writeln!(
                    s,
                    "  adapter microprocessor {:.1}% busy{}, inbound overruns {}",
                    a.microprocessor_busy_pct,
                    a.microprocessor_busy_by.text(),
                    a.inbound_overruns
                );
                if !a.samples.is_empty() {
                    let _ = writeln!(
                        s,
                        "  LAN-idle timer samples: {} (sample_us; from time 0, warm-up included; \
                         listed with --format json as timer_samples)",
                        a.samples.len()
                    );
                }
                if let Some(t) = a.samples_stopped_us {
                    let _ = writeln!(
                        s,
                        "  LAN-idle timer sampling stopped at {:.3} ms, before the run's end: \
                         a scenario keeps {} samples at most, shared by its runs (a larger \
                         sample_us covers the whole run)",
                        t / 1e3,
                        crate::world::MAX_TIMER_SAMPLES
                    );
                }
                if !a.engine.is_null() {
                    render_engine_counters(&mut s, &a.engine);
                }
            }
        }
        s
    }

    /// One CSV row per host (`--format csv-hosts`), under
    /// [`RunResult::CSV_HOSTS_HEADER`]: CPU, TCP recovery, links and the
    /// adapter's microprocessor; empty adapter fields for a host without
    /// an OSA.
    pub fn to_csv_hosts(&self, label: &str) -> String {
        let mut s = String::new();
        let label = csv_field(label);
        for h in &self.hosts {
            let t = &h.tcp;
            let adapter = match &h.adapter {
                Some(a) => {
                    let b = &a.microprocessor_busy_by;
                    format!(
                        "{:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{}",
                        a.microprocessor_busy_pct,
                        b.inbound_frames_pct,
                        b.outbound_frames_pct,
                        b.write_signals_pct,
                        b.presentations_pct,
                        b.olm_pct,
                        a.inbound_overruns
                    )
                }
                None => ",,,,,,".into(),
            };
            let _ = writeln!(
                s,
                "{},{},{},{},{:.3},{:.3},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                label,
                csv_field(&h.name),
                csv_field(&h.model),
                h.processors,
                h.cpu_busy_pct,
                h.cpu_ms_per_s,
                t.segments_out,
                t.acks_out,
                t.retransmits,
                t.fast_retransmits,
                t.timeouts,
                t.dupacks_in,
                t.ooo_segments_in,
                t.interrupts,
                t.sigas,
                h.link_out.frames,
                h.link_out.bytes,
                h.link_in.frames,
                h.link_in.bytes,
                h.link_in.dropped_queue_full,
                h.link_in.dropped_frame_error,
                adapter
            );
        }
        s
    }

    pub const CSV_HOSTS_HEADER: &'static str = "variant,host,machine,processors,cpu_busy_pct,cpu_ms_per_s,segments_out,acks_out,retransmits,fast_retransmits,timeouts,dupacks_in,out_of_order_in,interrupts,sigas,link_out_frames,link_out_bytes,link_in_frames,link_in_bytes,switch_drops,frame_errors,adapter_busy_pct,adapter_inbound_frames_pct,adapter_outbound_frames_pct,adapter_write_signals_pct,adapter_presentations_pct,adapter_olm_pct,inbound_overruns";

    /// One CSV line per workload. The latencies and CPU per transaction of
    /// a workload that completed no transaction, and the CPU per MB of one
    /// that delivered no payload, are empty fields, not 0. Text fields
    /// (variant label, names) are quoted as RFC 4180 has it when they hold
    /// a comma, a quote or a line break.
    pub fn to_csv(&self, label: &str) -> String {
        let mut s = String::new();
        let label = csv_field(label);
        for w in &self.workloads {
            let per_txn = |v: f64, prec: usize| w.per_txn_or(v, prec, "");
            let per_mb = |v: f64| w.per_mb_or(v, 5, "");
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{:.3},{:.4},{},{},{},{},{},{},{},{}",
                label,
                csv_field(&w.name),
                w.kind,
                w.connections,
                w.request,
                w.response,
                csv_field(&w.client),
                csv_field(&w.server),
                w.transactions_per_s,
                w.mb_per_s,
                per_txn(w.latency_mean_us, 3),
                per_txn(w.latency_p50_us, 3),
                per_txn(w.latency_p99_us, 3),
                per_txn(w.cpu_us_per_txn_client, 4),
                per_txn(w.cpu_us_per_txn_server, 4),
                per_mb(w.cpu_ms_per_mb_client),
                per_mb(w.cpu_ms_per_mb_server),
                w.think_us
            );
        }
        s
    }

    /// The result as JSON. The latencies and CPU per transaction of a
    /// workload that completed no transaction, and the CPU per MB of one
    /// that delivered no payload, are null, not 0.
    pub fn to_json(&self) -> Result<serde_json::Value, serde_json::Error> {
        let mut v = serde_json::to_value(self)?;
        if let Some(ws) = v.get_mut("workloads").and_then(|w| w.as_array_mut()) {
            for (j, w) in ws.iter_mut().zip(&self.workloads) {
                if w.transactions == 0 {
                    for k in WlResult::PER_TXN_FIELDS {
                        j[k] = serde_json::Value::Null;
                    }
                }
                if w.delivered_nothing() {
                    for k in WlResult::PER_MB_FIELDS {
                        j[k] = serde_json::Value::Null;
                    }
                }
            }
        }
        Ok(v)
    }
    pub const CSV_HEADER: &'static str = "variant,workload,kind,connections,request,response,client,server,transactions_per_s,mb_per_s,latency_mean_us,latency_p50_us,latency_p99_us,cpu_us_per_txn_client,cpu_us_per_txn_server,cpu_ms_per_mb_client,cpu_ms_per_mb_server,think_us";
}

/// A CSV field: as it is, or in double quotes (inner quotes doubled) when
/// it holds a separator, a quote or a line break. A `[vary]` label such as
/// `[1, 2, 2, 3, 4, 4, 4]` (a wlm_priorityq_map value) split its row.
fn csv_field(t: &str) -> std::borrow::Cow<'_, str> {
    if t.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", t.replace('"', "\"\"")).into()
    } else {
        t.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn csv_fields_with_separators_are_quoted() {
        assert_eq!(csv_field("RR30"), "RR30");
        assert_eq!(csv_field("[1, 2]"), "\"[1, 2]\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("a\nb"), "\"a\nb\"");
    }

    #[test]
    fn unattributed_cpu_is_shared_proportionally() {
        let v = shared_cpu(&[300, 100, 40]);
        assert_eq!(v, vec![330.0, 110.0]);
        let v = shared_cpu(&[0, 0, 40]);
        assert_eq!(v, vec![20.0, 20.0]);
    }
}

/// Writes the engine's counters (as captured in JSON) as indented text lines:
/// one line per group, non-zero values only, drops by reason. The z/OS
/// displays of the same counters are `softosa sim --display KIND`.
fn render_engine_counters(s: &mut String, v: &serde_json::Value) {
    use serde_json::Value;
    /// The non-zero counts of `v`, but those of the keys in `skip`.
    fn nonzero_fields_but(v: &Value, skip: &[&str]) -> String {
        let mut parts = Vec::new();
        if let Value::Object(m) = v {
            for (k, x) in m.iter().filter(|(k, _)| !skip.contains(&k.as_str())) {
                match x {
                    Value::Number(n) if n.as_f64().unwrap_or(0.0) != 0.0 => {
                        parts.push(format!("{k} {n}"))
                    }
                    Value::Object(_) => {
                        let inner = nonzero_fields(x);
                        if !inner.is_empty() {
                            parts.push(format!("{k} [{inner}]"));
                        }
                    }
                    _ => {}
                }
            }
        }
        parts.join(", ")
    }
    fn nonzero_fields(v: &Value) -> String {
        nonzero_fields_but(v, &[])
    }
    /// A list of counters that are all zero says so, not a blank.
    fn or_none(f: String) -> String {
        if f.is_empty() {
            "none".to_string()
        } else {
            f
        }
    }
    /// Drops by reason, from an object of reason ids to counts, in the
    /// engine's order of reasons.
    fn drops(v: Option<&Value>) -> String {
        let mut parts = Vec::new();
        if let Some(Value::Object(m)) = v {
            for r in softosa_engine::counters::DropReason::ALL {
                let n = m.get(r.id()).and_then(Value::as_u64).unwrap_or(0);
                if n > 0 {
                    parts.push(format!("{} {n}", r.label()));
                }
            }
        }
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        }
    }
    let _ = writeln!(s, "  engine:");
    if let Some(e) = v.get(crate::osa::ENGINE_COUNTERS) {
        let _ = writeln!(
            s,
            "    frames: {}",
            or_none(nonzero_fields_but(e, &["dropped_in", "dropped_out"]))
        );
        let _ = writeln!(s, "    dropped in: {}", drops(e.get("dropped_in")));
        let _ = writeln!(s, "    dropped out: {}", drops(e.get("dropped_out")));
    }
    if let Some(i) = v.get("interface") {
        let _ = writeln!(s, "    interface: {}", or_none(nonzero_fields(i)));
    }
    if let Some(serde_json::Value::Object(qs)) = v.get("read_queues") {
        for (name, q) in qs {
            // A defined queue that carried nothing says so, not a blank.
            let _ = writeln!(s, "    read queue {name}: {}", or_none(nonzero_fields(q)));
        }
    }
    if let Some(serde_json::Value::Array(qs)) = v.get("write_queues") {
        for (i, q) in qs.iter().enumerate() {
            let f = nonzero_fields(q);
            if !f.is_empty() {
                let _ = writeln!(s, "    write queue {}: {f}", i + 1);
            }
        }
    }
    if let serde_json::Value::Object(m) = v {
        let rest: Vec<String> = m
            .iter()
            .filter(|(k, x)| {
                !matches!(
                    k.as_str(),
                    crate::osa::ENGINE_COUNTERS | "interface" | "read_queues" | "write_queues"
                ) && x.as_f64().is_some_and(|n| n != 0.0)
            })
            .map(|(k, x)| format!("{k} {x}"))
            .collect();
        if !rest.is_empty() {
            let _ = writeln!(s, "    other: {}", rest.join(", "));
        }
    }
}

#[cfg(test)]
mod text_tests {
    use super::render_engine_counters;

    #[test]
    fn engine_counters_render_as_labelled_lines_without_zeros() {
        let v = serde_json::json!({
            "bulk_registrations": 2,
            "timer_retunes": 0,
            "counters": {"frames_in": 10, "presented": 8, "forwarded": 0,
                        "dropped_in": {"invalid_frame": 0, "no_read_buffer": 2},
                        "dropped_out": {"invalid_send": 0}},
            "interface": {"packets_in": 10, "offload": {"sends": 0, "segments": 3}},
            "read_queues": {"RD/1 PRIMARY": {"sbalcnt": 4, "noreads": 0},
                            "RD/2 BULKDATA": {"sbalcnt": 0}},
            "write_queues": [{"packcnt": 5}, {"packcnt": 0}]
        });
        let mut s = String::new();
        render_engine_counters(&mut s, &v);
        assert!(s.contains("frames: frames_in 10, presented 8\n"), "{s}");
        assert!(s.contains("dropped in: no read buffer (NOREADS) 2"), "{s}");
        assert!(s.contains("dropped out: none"), "{s}");
        assert!(s.contains("offload [segments 3]"), "{s}");
        assert!(s.contains("read queue RD/1 PRIMARY: sbalcnt 4\n"), "{s}");
        assert!(s.contains("read queue RD/2 BULKDATA: none\n"), "{s}");
        assert!(s.contains("write queue 1: packcnt 5\n"), "{s}");
        assert!(!s.contains("write queue 2"), "{s}");
        assert!(s.contains("other: bulk_registrations 2\n"), "{s}");
        assert!(!s.contains('{'), "no raw JSON in text output: {s}");
        // Counters all zero read "none", not a blank after the label.
        let idle = serde_json::json!({
            "counters": {"frames_in": 0, "dropped_in": {}, "dropped_out": {}},
            "interface": {"packets_in": 0},
        });
        let mut s = String::new();
        render_engine_counters(&mut s, &idle);
        assert!(s.contains("    frames: none\n"), "{s}");
        assert!(s.contains("    interface: none\n"), "{s}");
    }
}
