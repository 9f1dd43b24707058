//! Replay reports (layer: replay driver, output; spec 08 §8.2): the
//! per-mode comparison as text with the modes side by side, and as JSON.

use crate::replay::{FlowProto, ModeResult, QueueResult};
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Everything `softosa replay` reports.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub capture: String,
    pub capture_format: String,
    pub capture_bytes: u64,
    pub profile: String,
    pub host_service_us: f64,
    /// The ports the analysed interfaces use, as the replay models them.
    pub ports: Vec<ReportPort>,
    pub modes: Vec<ModeResult>,
    /// The timeline window (start, length) in ns since the capture start.
    pub timeline_window_ns: (u64, u64),
    /// Mode whose per-frame fate was written to the annotated capture.
    pub annotated_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smcat: Option<crate::smcat::SmcatReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zert: Option<crate::zert::ZertReport>,
}

/// One adapter port of the replay: what its wire carries decides how fast
/// frames may arrive at it (the capture's rate warning compares the two).
#[derive(Clone, Debug, Serialize)]
pub struct ReportPort {
    /// PORTNAME (OSA) or the IQD CHPID's label.
    pub name: String,
    /// "OSA-E3" and the like, or "HiperSockets".
    pub adapter: String,
    /// The wire's speed; `None` for HiperSockets (memory to memory).
    pub speed_mbps: Option<u32>,
    /// Where the speed came from (`None` with no speed).
    pub speed_from: Option<SpeedFrom>,
    /// The analysed interfaces on this port.
    pub interfaces: Vec<String>,
}

/// Where a port's speed in the replay came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpeedFrom {
    /// `--port-speed`.
    Option,
    /// A profile says no speed: the OSA ports' default of 1000 Mb/s.
    Default,
    /// A JSON SystemConfig's own port configuration.
    Configuration,
}

impl ReportPort {
    /// "OSAQDIO1: OSA-E3 at 1000 Mb/s (the default; --port-speed sets it);
    /// interfaces ETH1 ETH2".
    pub fn describe(&self) -> String {
        let speed = match (self.speed_mbps, self.speed_from) {
            (Some(s), Some(SpeedFrom::Option)) => format!(" at {s} Mb/s (set by --port-speed)"),
            (Some(s), Some(SpeedFrom::Configuration)) => {
                format!(" at {s} Mb/s (the configuration's; --port-speed sets it)")
            }
            (Some(s), _) => format!(" at {s} Mb/s (the default; --port-speed sets it)"),
            (None, _) => String::new(),
        };
        format!(
            "{}: {}{speed}; interface{} {}",
            self.name,
            self.adapter,
            if self.interfaces.len() == 1 { "" } else { "s" },
            self.interfaces.join(" ")
        )
    }
}

impl Report {
    pub fn available(&self) -> impl Iterator<Item = &ModeResult> {
        self.modes.iter().filter(|m| m.unavailable.is_none())
    }

    /// Queues (interface, queue label) that received frames in any mode, in order.
    pub fn queue_keys(&self) -> Vec<(String, String, u8)> {
        self.keys_where(|q| q.frames > 0)
    }

    /// Queues with tuning statistics to show: those that received frames,
    /// and those charged with invalid frames (FRINVCT) in any mode.
    pub fn tuning_keys(&self) -> Vec<(String, String, u8)> {
        self.keys_where(|q| q.frames > 0 || q.vtam.frinvct > 0)
    }

    fn keys_where(&self, keep: impl Fn(&QueueResult) -> bool) -> Vec<(String, String, u8)> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for m in self.available() {
            for q in &m.queues {
                if keep(q) && seen.insert((q.interface.clone(), q.queue_id)) {
                    out.push((q.interface.clone(), q.queue.clone(), q.queue_id));
                }
            }
        }
        out.sort_by(|a, b| (a.0.as_str(), a.2).cmp(&(b.0.as_str(), b.2)));
        out
    }
}

const LABEL_W: usize = 30;
/// Flows itemised in the text report (bulk ones first, then the busiest).
const TEXT_FLOWS: usize = 40;
const COL_W: usize = 14;

fn row(out: &mut String, label: &str, cells: &[String]) {
    let _ = write!(out, "{label:<LABEL_W$}");
    for c in cells {
        // A leading space keeps wide cells apart.
        let _ = write!(out, " {c:>w$}", w = COL_W - 1);
    }
    out.push('\n');
}

fn f1(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |x| format!("{x:.1}"))
}

fn f2(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |x| format!("{x:.2}"))
}

fn find<'a>(m: &'a ModeResult, iface: &str, qid: u8) -> Option<&'a QueueResult> {
    m.queues
        .iter()
        .find(|q| q.interface == iface && q.queue_id == qid)
}

/// `n` and its noun, plural unless `n` is 1: "1 frame", "2 frames". For
/// nouns whose plural only adds an "s".
pub(crate) fn counted(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

fn ms(us: f64) -> String {
    format!("{:.3} ms", us / 1000.0)
}

/// The text report: modes side by side.
pub fn render_text(r: &Report) -> String {
    let mut o = String::new();
    let modes: Vec<&ModeResult> = r.available().collect();
    let _ = writeln!(o, "softosa replay of {} ({})", r.capture, r.capture_format);
    let _ = writeln!(
        o,
        "Profile {}; host services each presented batch in {:.1} us",
        r.profile, r.host_service_us
    );
    for p in &r.ports {
        let _ = writeln!(o, "Port {}", p.describe());
    }
    if let Some(m) = modes.first() {
        let t = &m.totals;
        let _ = writeln!(
            o,
            "Records {}  ({:.3} s): {} inbound, {} outbound, {}{}{} not to or from the analysed interfaces, {} unreadable",
            t.records,
            t.duration_us / 1e6,
            t.inbound,
            t.outbound,
            if t.adapter_arp > 0 {
                format!("{} ARP sent by the adapter itself (ARP offload), ", t.adapter_arp)
            } else {
                String::new()
            },
            if t.loopback > 0 {
                format!("{} loopback (never on an adapter), ", t.loopback)
            } else {
                String::new()
            },
            t.foreign,
            t.reader_skipped
                .values()
                .chain(t.unusable.values())
                .map(|s| s.count)
                .sum::<u64>()
        );
        for (why, s) in t.reader_skipped.iter().chain(&t.unusable) {
            let _ = writeln!(
                o,
                "  skipped {}: {why} (first: record {})",
                s.count, s.first_record
            );
        }
        if let Some(why) = &t.truncated {
            let _ = writeln!(o, "  warning: {why}; the records before it were replayed");
        }
        if t.timestamps_backwards > 0 {
            let _ =
                writeln!(
                o,
                "  {} stamped earlier than a record before {}; replayed at the latest time so far",
                if t.timestamps_backwards == 1 {
                    "1 record was".to_string()
                } else {
                    format!("{} records were", t.timestamps_backwards)
                },
                if t.timestamps_backwards == 1 { "it" } else { "them" }
            );
        }
        if t.records == 0 {
            // Every column below is zero because there was nothing to replay.
            let _ = writeln!(
                o,
                "  The capture holds no packets (a file header only): nothing to replay."
            );
        }
        for w in &t.warnings {
            let _ = writeln!(o, "  warning: {w}");
        }
        // Broadcasts and multicasts reach every interface: only unicast
        // IP traffic says the capture is the host's.
        if t.foreign > 0 && t.matched_unicast == 0 && t.foreign_addresses.is_empty() {
            // Spanning tree, LLDP, ARP between others: no address to offer.
            let _ = writeln!(
                o,
                "  No frame matched the analysed interfaces' addresses, and none of the {} \
                 frame{} left out is an IP frame: the capture has no IP traffic that could \
                 name its host.",
                t.foreign,
                if t.foreign == 1 { "" } else { "s" }
            );
        } else if t.foreign > 0 && t.matched_unicast == 0 {
            let _ = writeln!(
                o,
                "  No frame matched the analysed interfaces' addresses. The capture's busiest addresses:"
            );
            let width = t
                .foreign_addresses
                .iter()
                .map(|a| a.address.to_string().len())
                .max()
                .unwrap_or(0);
            for a in &t.foreign_addresses {
                let whose = match &a.interface {
                    Some(i) => {
                        format!("  (the profile's {i}, not analysed: select it with -i {i})")
                    }
                    None => String::new(),
                };
                let _ = writeln!(
                    o,
                    "    {:<width$}  {} frame{}{whose}",
                    a.address.to_string(),
                    a.frames,
                    if a.frames == 1 { "" } else { "s" }
                );
            }
            let _ = writeln!(
                o,
                "  Name the capture's host with --address IP (one of these, if it is the host's){}.",
                if t.foreign_addresses.iter().any(|a| a.interface.is_some()) {
                    ", or analyse the interface that owns it with -i NAME"
                } else {
                    ""
                }
            );
        }
    }
    for m in &r.modes {
        if let Some(why) = &m.unavailable {
            let _ = writeln!(o, "{}: not available: {why}", m.label);
        }
        for n in &m.notes {
            let _ = writeln!(o, "{}: note: {n}", m.label);
        }
    }
    o.push('\n');
    let head: Vec<String> = modes.iter().map(|m| m.mode.heading().to_string()).collect();
    row(&mut o, "INBPERF", &head);
    row(
        &mut o,
        "",
        &modes
            .iter()
            .map(|_| "-".repeat(COL_W - 2))
            .collect::<Vec<_>>(),
    );
    let all = |f: &dyn Fn(&ModeResult) -> String| modes.iter().map(|m| f(m)).collect::<Vec<_>>();
    row(
        &mut o,
        "Interrupts (all queues)",
        &all(&|m| m.interrupts().to_string()),
    );
    row(
        &mut o,
        "Presentations",
        &all(&|m| {
            m.queues
                .iter()
                .map(|q| q.presentations)
                .sum::<u64>()
                .to_string()
        }),
    );
    row(
        &mut o,
        "Packets per interrupt",
        &all(&|m| {
            let i = m.interrupts();
            f2((i > 0).then(|| m.frames_presented() as f64 / i as f64))
        }),
    );
    // The capture's host answered on its own timing: where a mode would
    // still hold the request, its figures are of timing that cannot be.
    let early = modes.iter().any(|m| m.totals.sent_before_presented > 0);
    if early {
        row(
            &mut o,
            "Sent before presented *",
            &all(&|m| m.totals.sent_before_presented.to_string()),
        );
    }
    row(
        &mut o,
        "Bulk registrations",
        &all(&|m| m.bulk_registrations.to_string()),
    );
    row(&mut o, "Timer retunes", &all(&|m| m.retunes.to_string()));
    if early {
        for line in [
            "* Packets with payload the captured host sent on a connection while the mode",
            "  still held inbound payload of it. The capture's answers keep their captured",
            "  times, so under a mode that holds longer they leave before the request they",
            "  answer was presented: for request/response traffic that mode's interrupts,",
            "  batches and holds are what its timers do to these arrival times, not what",
            "  the host would see (its answers, and so the next requests, would come",
            "  later). Compare the modes where this is near 0.",
        ] {
            let _ = writeln!(o, "{line}");
        }
    }
    for (iface, qlabel, qid) in r.queue_keys() {
        o.push('\n');
        let _ = writeln!(o, "{iface} input queue {qid} ({qlabel})");
        let q = |f: &dyn Fn(&QueueResult) -> String| {
            modes
                .iter()
                .map(|m| find(m, &iface, qid).map_or_else(|| "-".into(), f))
                .collect::<Vec<_>>()
        };
        row(&mut o, "  Frames presented", &q(&|x| x.frames.to_string()));
        row(
            &mut o,
            "  Interrupts (PCIREAL)",
            &q(&|x| x.interrupts.to_string()),
        );
        row(
            &mut o,
            "  Packets per interrupt",
            &q(&|x| f2(x.packets_per_interrupt)),
        );
        row(
            &mut o,
            "  Hold delay mean (us)",
            &q(&|x| f1(x.hold.mean_us)),
        );
        row(&mut o, "  Hold delay p50 (us)", &q(&|x| f1(x.hold.p50_us)));
        row(&mut o, "  Hold delay p99 (us)", &q(&|x| f1(x.hold.p99_us)));
        row(&mut o, "  Hold delay max (us)", &q(&|x| f1(x.hold.max_us)));
        row(
            &mut o,
            "  Timers at end gap/block us",
            &q(&|x| format!("{}/{}", f1(x.final_gap_us), f1(x.final_block_us))),
        );
        for cause in [
            "gap timer",
            "block timer",
            "threshold",
            "early (OLM)",
            "immediate",
        ] {
            if modes
                .iter()
                .any(|m| find(m, &iface, qid).is_some_and(|x| x.by_cause.contains_key(cause)))
            {
                row(
                    &mut o,
                    &format!("  Presented by {cause}"),
                    &q(&|x| x.by_cause.get(cause).copied().unwrap_or(0).to_string()),
                );
            }
        }
    }
    // Flows: which queue each landed on, per mode, and bulk detection.
    o.push('\n');
    let _ = writeln!(
        o,
        "Flows (local <- remote; inbound frames and the queue that took most of them)"
    );
    // The busiest flows (and every bulk one); JSON has them all.
    type Key = (FlowProto, std::net::IpAddr, u16, std::net::IpAddr, u16);
    let mut weight: std::collections::BTreeMap<Key, (bool, u64)> = Default::default();
    for m in &modes {
        for f in &m.flows {
            let w = weight
                .entry((f.proto, f.local, f.local_port, f.remote, f.remote_port))
                .or_default();
            w.0 |= f.bulk_registered_us.is_some() || f.bulk_refused;
            w.1 = w.1.max(f.packets_in + f.packets_out);
        }
    }
    let mut ranked: Vec<(Key, (bool, u64))> = weight.into_iter().collect();
    ranked.sort_by(|a, b| (b.1 .0, b.1 .1).cmp(&(a.1 .0, a.1 .1)).then(a.0.cmp(&b.0)));
    let mut after_end = false;
    let hidden = ranked.len().saturating_sub(TEXT_FLOWS);
    let keys: Vec<Key> = ranked
        .into_iter()
        .take(TEXT_FLOWS)
        .map(|(k, _)| k)
        .collect();
    for k in &keys {
        let _ = writeln!(o, "  {} {}..{} <- {}..{}", k.0, k.1, k.2, k.3, k.4);
        let flows: Vec<_> = modes
            .iter()
            .map(|m| {
                m.flows
                    .iter()
                    .find(|f| (f.proto, f.local, f.local_port, f.remote, f.remote_port) == *k)
            })
            .collect();
        if let Some(f) = flows.iter().flatten().next() {
            let _ = writeln!(
                o,
                "    in {} ({}), out {} ({}), {} .. {}",
                counted(f.packets_in, "frame"),
                counted(f.payload_in, "payload byte"),
                counted(f.packets_out, "frame"),
                counted(f.payload_out, "payload byte"),
                ms(f.first_us),
                ms(f.last_us)
            );
        }
        // Drops depend on the mode (a full queue in one, not in another).
        if flows
            .iter()
            .flatten()
            .any(|f| f.dropped_in + f.dropped_out > 0)
        {
            row(
                &mut o,
                "    dropped in/out",
                &flows
                    .iter()
                    .map(|f| {
                        f.map_or("-".into(), |f| {
                            format!("{}/{}", f.dropped_in, f.dropped_out)
                        })
                    })
                    .collect::<Vec<_>>(),
            );
        }
        row(
            &mut o,
            "    queue",
            &flows
                .iter()
                .map(|f| match f {
                    Some(f) => {
                        let total = f.queues.total();
                        match f.main_queue() {
                            Some(q) if total > 0 => {
                                let n = f.queues.get(q).unwrap_or(0);
                                if n == total {
                                    q.to_string()
                                } else {
                                    format!("{q} {}%", n * 100 / total)
                                }
                            }
                            _ => "-".into(),
                        }
                    }
                    None => "-".into(),
                })
                .collect::<Vec<_>>(),
        );
        if flows
            .iter()
            .flatten()
            .any(|f| f.bulk_registered_us.is_some() || f.bulk_refused)
        {
            row(
                &mut o,
                "    bulk registered at (ms)",
                &flows
                    .iter()
                    .map(|f| match f {
                        Some(f) if f.bulk_refused && f.bulk_registered_us.is_none() => {
                            "refused".into()
                        }
                        Some(f) => f
                            .bulk_registered_us
                            .map_or("-".into(), |t| format!("{:.3}", t / 1000.0)),
                        None => "-".into(),
                    })
                    .collect::<Vec<_>>(),
            );
            // The capture's end, in the modes' common time (µs).
            let end = modes
                .first()
                .map_or(f64::INFINITY, |m| m.totals.duration_us);
            row(
                &mut o,
                "    deregistered at (ms)",
                &flows
                    .iter()
                    .map(|f| {
                        f.and_then(|f| f.bulk_deregistered_us)
                            .map_or("-".into(), |t| {
                                if t > end {
                                    after_end = true;
                                    format!("{:.3}*", t / 1000.0)
                                } else {
                                    format!("{:.3}", t / 1000.0)
                                }
                            })
                    })
                    .collect::<Vec<_>>(),
            );
        }
    }
    if hidden > 0 {
        let _ = writeln!(
            o,
            "  ... and {hidden} smaller flows (all are in --format json)"
        );
    }
    if after_end {
        let _ = writeln!(
            o,
            "  * after the capture's last record: the flow was still registered when the \
             capture ended, and the stack's idle check let it go in the drain after it"
        );
    }
    if let Some(m) = modes.first() {
        let [pin, pout] = m.totals.portless;
        if pin + pout > 0 {
            let _ = writeln!(
                o,
                "  ({pin} inbound and {} carry no ports (ICMP, neighbour discovery, IP \
                 fragments after the first) and belong to no flow: they are replayed, and \
                 counted above, but not itemised here)",
                counted(pout, "outbound frame"),
            );
        }
        let untracked = m.totals.flows_untracked;
        if untracked > 0 {
            let n = m.totals.untracked_flow_count;
            let flows = if n as usize >= crate::replay::UNTRACKED_FLOWS_COUNTED {
                format!("at least {n} flows")
            } else {
                format!("{n} flow{}", if n == 1 { "" } else { "s" })
            };
            let were = if n == 1 { "was" } else { "were" };
            let _ = writeln!(
                o,
                "  ({flows} beyond the flow table, with {}, {were} not itemised: \
                 the table keeps the first flows met; --max-flows makes it larger)",
                counted(untracked, "frame")
            );
        }
    }
    // VTAM tuning statistics.
    o.push('\n');
    let _ = writeln!(o, "VTAM tuning statistics (read queues)");
    for (iface, qlabel, qid) in r.tuning_keys() {
        let _ = writeln!(o, "  {iface} DIR = RD/{qid} ({qlabel})");
        let q = |f: &dyn Fn(&QueueResult) -> u64| {
            modes
                .iter()
                .map(|m| find(m, &iface, qid).map_or_else(|| "-".into(), |x| f(x).to_string()))
                .collect::<Vec<_>>()
        };
        row(&mut o, "    PCIREAL", &q(&|x| x.vtam.pcireal));
        row(&mut o, "    PCIVIRT", &q(&|x| x.vtam.pcivirt));
        row(&mut o, "    PCITHRSH", &q(&|x| x.vtam.pcithrsh));
        row(&mut o, "    PCIUNPRD", &q(&|x| x.vtam.pciunprd));
        row(&mut o, "    EARLYINT", &q(&|x| x.vtam.earlyint));
        row(&mut o, "    NOREADS", &q(&|x| x.vtam.noreads));
        row(&mut o, "    SBALCNT", &q(&|x| x.vtam.sbalcnt));
        row(&mut o, "    PACKCNT", &q(&|x| x.vtam.packcnt));
        row(&mut o, "    FRINVCT", &q(&|x| x.vtam.frinvct));
        row(&mut o, "    BYTECNT", &q(&|x| x.vtam.bytecnt));
    }
    let ports: BTreeSet<&String> = modes
        .iter()
        .flat_map(|m| m.totals.port_invalid.keys())
        .collect();
    for p in ports {
        row(
            &mut o,
            &format!("  Port {p} invalid frames"),
            &all(&|m| {
                m.totals
                    .port_invalid
                    .get(p)
                    .copied()
                    .unwrap_or(0)
                    .to_string()
            }),
        );
    }
    // Accounting.
    o.push('\n');
    let _ = writeln!(
        o,
        "Accounting (inbound frames in = presented + forwarded + handled + dropped)"
    );
    row(
        &mut o,
        "  Frames in",
        &all(&|m| m.totals.engine_frames_in.to_string()),
    );
    row(
        &mut o,
        "  Presented",
        &all(&|m| m.totals.engine_presented.to_string()),
    );
    row(
        &mut o,
        "  Forwarded",
        &all(&|m| m.totals.engine_forwarded.to_string()),
    );
    row(
        &mut o,
        "  Handled by adapter",
        &all(&|m| m.totals.engine_handled.to_string()),
    );
    row(
        &mut o,
        "  Dropped",
        &all(&|m| m.totals.engine_dropped.to_string()),
    );
    row(
        &mut o,
        "  Still held",
        &all(&|m| m.totals.engine_held.to_string()),
    );
    row(
        &mut o,
        "  Balanced",
        &all(&|m| if m.totals.balanced { "yes" } else { "NO" }.to_string()),
    );
    for m in &modes {
        for (why, n) in &m.totals.inbound_dropped {
            let _ = writeln!(o, "  {}: {n} inbound dropped: {why}", m.label);
        }
        for (why, n) in &m.totals.outbound_dropped {
            let _ = writeln!(o, "  {}: {n} outbound dropped: {why}", m.label);
        }
    }
    if let Some(s) = &r.smcat {
        o.push('\n');
        o.push_str(&crate::smcat::render_text(s));
    }
    if let Some(z) = &r.zert {
        o.push('\n');
        o.push_str(&crate::zert::render_text(z));
    }
    o
}

/// The JSON report and a line break, written into `out` as it is made
/// (a report of 100,000 flows per mode runs to hundreds of MB).
pub fn write_json(r: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, r)?;
    out.write_all(b"\n")
}
