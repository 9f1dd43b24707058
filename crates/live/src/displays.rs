//! Displays and metrics of a running live instance (spec 8.1 "Operation
//! while running", spec 05 §5.2 for the statistics shown). The z/OS layouts
//! (DEVLINKS, OSAINFO, TRLE, TUNING, Netstat ..., DROPS) come from the
//! display crate, stamped with the wall clock; this module adds the live
//! plane's own views: QUEUES (a one-line-per-queue summary the lab report
//! prints), COUNTERS, BULK and PLACEMENT, and the Prometheus samples.

use softosa_display::DisplayError;
use softosa_engine::engine::Interface;
use softosa_engine::QueueKind;

use crate::control::{DisplayRequest, Metric, Refusal};
use crate::dataplane::Core;
use crate::engine_core::EngineCore;

/// Display kinds this module renders itself (the display crate's kinds
/// are accepted too).
pub const KINDS: &[&str] = &["QUEUES", "COUNTERS", "BULK", "PLACEMENT"];

/// The display crate's kind for a word (`tuning`, `vtam`, `devlinks`, ...).
fn zos_kind(word: &str) -> Option<softosa_display::DisplayKind> {
    let w = word.to_ascii_lowercase();
    let w = if w == "vtam" { "tuning".to_string() } else { w };
    softosa_display::DisplayKind::ALL
        .into_iter()
        .find(|k| k.word() == w)
}

/// Why the display crate showed nothing, in the control protocol's terms:
/// what it counts as a usage error (an unknown interface, ...) stays one.
fn refusal(e: DisplayError) -> Refusal {
    if e.is_usage() {
        Refusal::Usage(e.to_string())
    } else {
        Refusal::Failed(e.to_string())
    }
}

/// Refusal of a target for display `kind`, which covers the whole adapter.
pub fn whole_adapter(kind: &str, target: &str) -> Refusal {
    Refusal::Usage(format!(
        "{} covers the whole adapter and takes no --intf {target:?} (DEVLINKS, OSAINFO, \
         TUNING and QUEUES show an interface or a stack's, TRLE a TRLE, the Netstat displays \
         one stack)",
        kind.to_ascii_uppercase()
    ))
}

/// Render the display `req` asks of the engine core. A target selects as
/// it does for `softosa display --profile`: the display crate's rules, for
/// its displays and for QUEUES.
pub fn render(c: &EngineCore, req: &DisplayRequest) -> Result<String, Refusal> {
    let e = c.engine();
    // Blank or `*` is everything, as for a profile's displays.
    let target = softosa_display::narrowing(req.target.as_deref());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut ctx = softosa_display::DisplayContext {
        clock: Some(softosa_display::ClockStamp::from_unix(
            now.as_secs(),
            now.subsec_nanos(),
        )),
        ..Default::default()
    };
    if let Some(m) = req.max {
        if zos_kind(&req.kind) != Some(softosa_display::DisplayKind::OsaInfo) {
            return Err(Refusal::Usage(format!(
                "--max is OSAINFO's MAX= and applies to osainfo only, not {}",
                req.kind.to_ascii_lowercase()
            )));
        }
        ctx.osainfo_max = m.limit();
    }
    if let Some(k) = zos_kind(&req.kind) {
        let format = if req.json {
            softosa_display::Format::Json
        } else {
            softosa_display::Format::Text
        };
        return softosa_display::render(k, e, &ctx, target, format).map_err(refusal);
    }
    let kind = req.kind.to_ascii_uppercase();
    if kind == "QUEUES" {
        let ifaces = match target {
            Some(_) => softosa_display::select_interfaces(e, &ctx, target).map_err(refusal)?,
            None => e.interfaces().iter().collect(),
        };
        return Ok(if req.json {
            tuning_json(&ifaces)
        } else {
            tuning_text(&ifaces)
        });
    }
    let adapter_wide = matches!(
        kind.as_str(),
        "COUNTERS" | "ACCOUNTING" | "BULK" | "PLACEMENT"
    );
    if let Some(t) = target.filter(|_| adapter_wide) {
        return Err(whole_adapter(&kind, t));
    }
    let json = req.json;
    match kind.as_str() {
        "COUNTERS" | "ACCOUNTING" => {
            let a = c.accounting();
            if json {
                let v = serde_json::json!({
                    "engine": e.counters(),
                    "accounting": a,
                    "balanced": a.balanced(),
                    "driver_drops": {
                        "crc": c.crc, "host_write": c.host_write_failed,
                        "wire_send": c.wire_send_failed, "wire_oversize": c.wire_oversize
                    },
                    "tx_by_queue": c.tx_by_queue,
                });
                Ok(format!("{v}\n"))
            } else {
                let mut s = String::from("SOFTOSA FRAME ACCOUNTING\n");
                s.push_str(&format!(
                    "  FRAMES IN {}  PRESENTED {}  FORWARDED {}  HANDLED {}  DROPPED {}  HELD {}  {}\n",
                    a.frames_in,
                    a.presented,
                    a.forwarded,
                    a.handled,
                    a.dropped_total(),
                    a.held,
                    if a.balanced() { "ALL ACCOUNTED FOR" } else { "MISMATCH" }
                ));
                for (why, n) in a.dropped.iter().filter(|d| d.1 > 0) {
                    s.push_str(&format!("  DROPPED {n:>10}  {why}\n"));
                }
                let k = e.counters();
                s.push_str(&format!(
                    "  SENDS {}  TRANSMITTED {}  INTERNAL {}  SEND DROPS {}\n",
                    k.sends,
                    k.transmitted,
                    k.delivered_internally,
                    k.dropped_out.total()
                ));
                for (r, n) in k.dropped_out.nonzero() {
                    s.push_str(&format!("  SEND DROPPED {n:>10}  {}\n", r.label()));
                }
                Ok(s)
            }
        }
        "BULK" => {
            let mut s = String::from("BULKDATA REGISTRATIONS\n");
            for i in e.interfaces() {
                for f in i.bulk_connections() {
                    s.push_str(&format!(
                        "  {}  {}:{} <- {}:{}\n",
                        i.cfg.name, f.dst, f.dst_port, f.src, f.src_port
                    ));
                }
            }
            if json {
                return Ok(format!(
                    "{}\n",
                    serde_json::json!({"registrations": c.registrations})
                ));
            }
            Ok(s)
        }
        "PLACEMENT" => {
            let p = c.placements();
            if json {
                return Ok(format!("{}\n", serde_json::json!(p)));
            }
            let mut s = String::from("INBOUND QUEUE OF EACH TCP CONNECTION\n");
            for x in p {
                s.push_str(&format!(
                    "  :{} <- :{}  {}\n",
                    x.local_port, x.remote_port, x.queue
                ));
            }
            Ok(s)
        }
        other => Err(Refusal::Usage(format!(
            "unknown display {other:?}; try {}, {} or DRIVER",
            softosa_display::DisplayKind::ALL
                .map(|k| k.word().to_ascii_uppercase())
                .join(", "),
            KINDS.join(", ")
        ))),
    }
}

fn tuning_text(ifaces: &[&Interface]) -> String {
    let mut s = String::new();
    for i in ifaces {
        s.push_str(&format!(
            "TUNING STATISTICS FOR {} ({}{})\n",
            i.cfg.name,
            i.cfg.inbperf.label(),
            if i.cfg.workloadq { " WORKLOADQ" } else { "" }
        ));
        for k in QueueKind::ALL {
            let Some(rq) = i.queue(k) else { continue };
            let q = &rq.q.counters;
            let t = rq.q.timers;
            s.push_str(&format!(
                " DIR = RD/{} ({:<8}) PCIREAL={} PCIVIRT={} PCITHRSH={} NOREADS={} SBALCNT={} PACKCNT={} BYTECNT={} GAP={}us BLOCK={}us RETUNES={} HOLD(avg)={:.1}us\n",
                k.id(),
                k.label(),
                q.pcireal,
                q.pcivirt,
                q.pcithrsh,
                q.noreads,
                q.sbalcnt,
                q.packcnt,
                q.bytecnt,
                t.gap.as_micros(),
                t.block.as_micros(),
                q.retunes,
                if q.packcnt > 0 {
                    q.hold_ns_total as f64 / q.packcnt as f64 / 1000.0
                } else {
                    0.0
                }
            ));
        }
        for (n, w) in i.writes.iter().enumerate() {
            let k = &w.counters;
            s.push_str(&format!(
                " DIR = WR/{}            PACKCNT={} BYTECNT={} SBALCNT={} SIGAS={} DISCARDS={} MAXDEPTH={}\n",
                n + 1,
                k.packcnt,
                k.bytecnt,
                k.sbalcnt,
                k.sigas,
                k.discards,
                k.max_depth
            ));
        }
    }
    s
}

fn tuning_json(ifaces: &[&Interface]) -> String {
    let v: Vec<_> = ifaces
        .iter()
        .map(|i| {
            let reads: Vec<_> = QueueKind::ALL
                .iter()
                .filter_map(|k| {
                    i.queue(*k).map(|rq| {
                        serde_json::json!({
                            "queue": k.label(), "id": k.id(),
                            "gap_us": rq.q.timers.gap.as_micros() as u64,
                            "block_us": rq.q.timers.block.as_micros() as u64,
                            "counters": rq.q.counters,
                        })
                    })
                })
                .collect();
            let writes: Vec<_> = i.writes.iter().map(|w| &w.counters).collect();
            serde_json::json!({"interface": i.cfg.name, "read": reads, "write": writes})
        })
        .collect();
    format!("{}\n", serde_json::Value::Array(v))
}

/// A per-read-queue metric: name, help, and the counter it reads.
type ReadField = (
    &'static str,
    &'static str,
    fn(&softosa_engine::counters::ReadQueueCounters) -> u64,
);

/// Prometheus samples of the engine's counters.
pub fn metrics(c: &EngineCore) -> Vec<Metric> {
    let e = c.engine();
    let mut v = Vec::new();
    let a = c.accounting();
    for (name, help, val) in [
        (
            "softosa_frames_in_total",
            "frames that entered the adapter",
            a.frames_in,
        ),
        (
            "softosa_frames_presented_total",
            "frames presented to a stack",
            a.presented,
        ),
        (
            "softosa_frames_forwarded_total",
            "frames forwarded by the accelerator",
            a.forwarded,
        ),
        (
            "softosa_frames_handled_total",
            "frames consumed by the adapter (ARP offload)",
            a.handled,
        ),
        (
            "softosa_frames_held",
            "frames held on input queues now",
            a.held,
        ),
    ] {
        v.push(Metric {
            name: name.into(),
            help,
            kind: if name.ends_with("_total") {
                "counter"
            } else {
                "gauge"
            },
            labels: Vec::new(),
            value: val as f64,
        });
    }
    // Every reason, zero included, so a dashboard's rate() has a series
    // from the first scrape and a reason that never happened is visibly 0.
    let counters = e.counters();
    let engine_in = softosa_engine::counters::DropReason::ALL
        .iter()
        .map(|r| (r.label(), counters.dropped_in.get(*r)));
    for (why, n) in engine_in.chain(c.driver_in_drops()) {
        v.push(Metric {
            name: "softosa_frames_dropped_total".into(),
            help: "inbound frames dropped, by reason",
            kind: "counter",
            labels: vec![("reason", why.to_string())],
            value: n as f64,
        });
    }
    for r in softosa_engine::counters::DropReason::ALL {
        v.push(Metric {
            name: "softosa_frames_dropped_out_total".into(),
            help: "outbound packets dropped, by reason",
            kind: "counter",
            labels: vec![("reason", r.label().to_string())],
            value: counters.dropped_out.get(r) as f64,
        });
    }
    let read_fields: [ReadField; 6] = [
        (
            "softosa_read_pcireal_total",
            "real interrupts (PCIREAL)",
            |q| q.pcireal,
        ),
        (
            "softosa_read_pcivirt_total",
            "presentations without interrupt (PCIVIRT)",
            |q| q.pcivirt,
        ),
        (
            "softosa_read_noreads_total",
            "no read buffer (NOREADS)",
            |q| q.noreads,
        ),
        (
            "softosa_read_packets_total",
            "packets presented (PACKCNT)",
            |q| q.packcnt,
        ),
        (
            "softosa_read_bytes_total",
            "bytes presented (BYTECNT)",
            |q| q.bytecnt,
        ),
        ("softosa_read_retunes_total", "DYNAMIC timer retunes", |q| {
            q.retunes
        }),
    ];
    for (name, help, f) in read_fields {
        for i in e.interfaces() {
            for k in QueueKind::ALL {
                if let Some(rq) = i.queue(k) {
                    v.push(Metric {
                        name: name.into(),
                        help,
                        kind: "counter",
                        labels: vec![
                            ("interface", i.cfg.name.clone()),
                            ("queue", k.label().into()),
                        ],
                        value: f(&rq.q.counters) as f64,
                    });
                }
            }
        }
    }
    for i in e.interfaces() {
        for k in QueueKind::ALL {
            if let Some(rq) = i.queue(k) {
                v.push(Metric {
                    name: "softosa_read_gap_timer_seconds".into(),
                    help: "current inter-packet gap timer",
                    kind: "gauge",
                    labels: vec![
                        ("interface", i.cfg.name.clone()),
                        ("queue", k.label().into()),
                    ],
                    value: rq.q.timers.gap.as_secs_f64(),
                });
            }
        }
    }
    for i in e.interfaces() {
        for (n, w) in i.writes.iter().enumerate() {
            v.push(Metric {
                name: "softosa_write_packets_total".into(),
                help: "packets sent per write queue",
                kind: "counter",
                labels: vec![
                    ("interface", i.cfg.name.clone()),
                    ("queue", (n + 1).to_string()),
                ],
                value: w.counters.packcnt as f64,
            });
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::{LabOptions, Sharing};

    /// The engine core of a lab of two stacks on one port: TCPIP1 with
    /// OSAQDIO1, TCPIP2 with OSAQDIO2.
    fn two_stacks() -> EngineCore {
        let o = LabOptions {
            sharing: Sharing::Vmac,
            ..Default::default()
        };
        EngineCore::for_lab(&o).expect("the lab's configuration is valid")
    }

    fn ask(
        c: &EngineCore,
        kind: &str,
        json: bool,
        target: Option<&str>,
    ) -> Result<String, Refusal> {
        render(
            c,
            &DisplayRequest {
                kind: kind.into(),
                json,
                target: target.map(str::to_string),
                max: None,
            },
        )
    }

    /// OSAINFO's MAX= reaches a running lab's display; other displays
    /// refuse it as `softosa display --profile` does.
    #[test]
    fn osainfo_max_is_honoured_and_refused_elsewhere() {
        use softosa_display::cli::OsaInfoMax;
        let c = two_stacks();
        let req = |kind: &str, max| DisplayRequest {
            max: Some(max),
            ..DisplayRequest::text(kind)
        };
        let cut = render(&c, &req("osainfo", OsaInfoMax::Lines(3))).expect("osainfo");
        let whole = render(&c, &req("osainfo", OsaInfoMax::All)).expect("osainfo");
        let footers = |t: &str| {
            t.lines()
                .filter(|l| l.ends_with("Lines Displayed"))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert!(
            footers(&cut).iter().all(|f| f.starts_with("3 of ")),
            "{cut}"
        );
        let full: Vec<String> = footers(&whole);
        assert!(!full.is_empty());
        for f in &full {
            let mut w = f.split_whitespace();
            assert_eq!(w.next(), w.nth(1), "all shown: {f}");
        }
        match render(&c, &req("devlinks", OsaInfoMax::Lines(3))) {
            Err(Refusal::Usage(m)) => assert!(m.contains("osainfo only"), "{m}"),
            other => panic!("devlinks took --max: {other:?}"),
        }
    }

    #[test]
    fn a_target_selects_as_for_a_profile() {
        let c = two_stacks();
        // The display crate's displays: the interface alone, by name or
        // STACK/NAME in any case.
        for t in ["OSAQDIO2", "tcpip2/osaqdio2"] {
            let one = ask(&c, "devlinks", false, Some(t)).expect("devlinks of one");
            assert!(one.contains("OSAQDIO2"), "{t}: {one}");
            assert!(!one.contains("OSAQDIO1"), "{t}: {one}");
        }
        let all = ask(&c, "DEVLINKS", false, None).expect("devlinks");
        assert!(
            all.contains("OSAQDIO1") && all.contains("OSAQDIO2"),
            "{all}"
        );
        // '*' is everything, as for a profile.
        let star = ask(&c, "devlinks", false, Some("*")).expect("devlinks *");
        assert!(
            star.contains("OSAQDIO1") && star.contains("OSAQDIO2"),
            "{star}"
        );
        // A Netstat display takes a stack.
        let stats = ask(&c, "stats", false, Some("TCPIP2")).expect("stats of a stack");
        assert!(
            stats.contains("TCPIP2") && !stats.contains("TCPIP1"),
            "{stats}"
        );
    }

    #[test]
    fn queues_take_a_target_as_the_tuning_display_does() {
        let c = two_stacks();
        let text = ask(&c, "queues", false, Some("OSAQDIO1")).expect("queues of one");
        assert!(text.starts_with("TUNING STATISTICS FOR OSAQDIO1"), "{text}");
        assert_eq!(text.matches("TUNING STATISTICS FOR").count(), 1, "{text}");
        let all = ask(&c, "QUEUES", false, None).expect("queues");
        assert_eq!(all.matches("TUNING STATISTICS FOR").count(), 2, "{all}");
        let json = ask(&c, "QUEUES", true, Some("TCPIP2/OSAQDIO2")).expect("json");
        let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        let names: Vec<&str> = v
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i["interface"].as_str())
            .collect();
        assert_eq!(names, ["OSAQDIO2"]);
    }

    #[test]
    fn an_interface_the_lab_does_not_have_is_a_usage_error_naming_those_it_has() {
        let c = two_stacks();
        for kind in ["TUNING", "QUEUES", "OSAINFO"] {
            match ask(&c, kind, false, Some("QDIO4101L")) {
                Err(Refusal::Usage(m)) => {
                    assert!(
                        m.contains("no interface or stack named \"QDIO4101L\""),
                        "{kind}: {m}"
                    );
                    assert!(
                        m.contains("TCPIP1/OSAQDIO1, TCPIP2/OSAQDIO2"),
                        "{kind}: {m}"
                    );
                }
                other => panic!("{kind}: {other:?}"),
            }
        }
        // A stack of that name is not there either.
        match ask(&c, "config", false, Some("TCPIP9")) {
            Err(Refusal::Usage(m)) => assert!(m.contains("stacks: TCPIP1, TCPIP2"), "{m}"),
            other => panic!("{other:?}"),
        }
        // So is a display it does not have.
        match ask(&c, "unknown-kind", false, None) {
            Err(Refusal::Usage(m)) => assert!(m.contains("unknown display"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn displays_of_the_whole_adapter_refuse_a_target() {
        let c = two_stacks();
        for kind in ["COUNTERS", "accounting", "BULK", "PLACEMENT"] {
            assert!(ask(&c, kind, false, None).is_ok(), "{kind}");
            match ask(&c, kind, false, Some("OSAQDIO1")) {
                Err(Refusal::Usage(m)) => {
                    assert!(m.contains("covers the whole adapter"), "{kind}: {m}");
                    assert!(m.contains(&kind.to_ascii_uppercase()), "{kind}: {m}");
                }
                other => panic!("{kind}: {other:?}"),
            }
            // `*` is everything here too, as for a profile's displays.
            assert!(ask(&c, kind, false, Some("*")).is_ok(), "{kind}");
        }
        assert!(ask(&c, "drops", false, Some(" * ")).is_ok());
    }
}
