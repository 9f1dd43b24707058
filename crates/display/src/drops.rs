//! softosa's frame accounting display (layer: displays; spec 01 §1.2
//! "nothing is ever lost silently"). Not a z/OS display.
//!
//! Shows the engine's inbound identity — frames in + extra copies =
//! presented + held + forwarded + handled + dropped — from
//! `Engine::accounting()`, every drop reason inbound and outbound from the
//! engine counters, and where drops happened: per interface and per queue.

use crate::context::DisplayContext;
use crate::text::{yes_no, Lines};
use crate::Report;
use serde::Serialize;
use softosa_engine::counters::DropReason;
use softosa_engine::{Engine, PortId};

#[derive(Debug, Serialize)]
pub struct ReasonCount {
    /// Stable snake_case identifier ([`DropReason::id`], `invalid_frame`).
    pub reason: &'static str,
    pub label: String,
    pub inbound: u64,
    pub outbound: u64,
}

#[derive(Debug, Serialize)]
pub struct InterfaceLosses {
    pub stack: String,
    pub interface: String,
    pub inbound_discarded: u64,
    pub inbound_in_error: u64,
    pub outbound_discarded: u64,
    /// (queue, NOREADS) for read queues with NOREADS > 0.
    pub noreads: Vec<(String, u64)>,
    /// Frames still held on the interface's input queues.
    pub held: u64,
    /// Frames waiting on its write queues.
    pub write_queued: u64,
}

#[derive(Debug, Serialize)]
pub struct DropsReport {
    pub frames_in: u64,
    pub extra_copies: u64,
    pub presented: u64,
    pub held: u64,
    pub forwarded: u64,
    pub handled: u64,
    pub dropped_in: u64,
    pub balanced: bool,
    /// Presented and not yet returned by the host.
    pub outstanding: u64,
    pub sends: u64,
    pub transmitted: u64,
    pub delivered_internally: u64,
    pub dropped_out: u64,
    pub awaiting_transmit: u64,
    pub events_lost: u64,
    /// Invalid frames no interface could be charged with, per port.
    pub port_frinvct: Vec<(String, u64)>,
    pub reasons: Vec<ReasonCount>,
    pub interfaces: Vec<InterfaceLosses>,
}

/// Build the accounting display. Never fails; the signature matches the others.
pub fn build(engine: &Engine, ctx: &DisplayContext) -> DropsReport {
    let a = engine.accounting();
    let c = engine.counters();
    let reasons = DropReason::ALL
        .iter()
        .map(|r| ReasonCount {
            reason: r.id(),
            label: r.label().to_string(),
            inbound: c.dropped_in.get(*r),
            outbound: c.dropped_out.get(*r),
        })
        .collect();
    let interfaces = engine
        .interfaces()
        .iter()
        .map(|i| InterfaceLosses {
            stack: ctx.stack_name(engine, i.cfg.stack).to_string(),
            interface: i.cfg.name.clone(),
            inbound_discarded: i.counters.packets_in_discarded,
            inbound_in_error: i.counters.packets_in_error,
            outbound_discarded: i.counters.packets_out_discarded,
            noreads: i
                .read_queues()
                .filter(|rq| rq.q.counters.noreads > 0)
                .map(|rq| (rq.q.kind.label().to_string(), rq.q.counters.noreads))
                .collect(),
            held: i.read_queues().map(|rq| rq.q.held() as u64).sum(),
            write_queued: i.writes.iter().map(|w| w.depth() as u64).sum(),
        })
        .collect();
    DropsReport {
        frames_in: a.frames_in,
        extra_copies: a.replicated,
        presented: a.presented,
        held: a.held,
        forwarded: a.forwarded,
        handled: a.handled,
        dropped_in: a.dropped,
        balanced: a.balanced(),
        outstanding: engine.outstanding(),
        sends: c.sends,
        transmitted: c.transmitted,
        delivered_internally: c.delivered_internally,
        dropped_out: c.dropped_out.total(),
        awaiting_transmit: (0..engine.ports().len())
            .map(|p| engine.tx_pending(PortId(p)) as u64)
            .sum(),
        events_lost: c.events_lost,
        port_frinvct: engine
            .ports()
            .iter()
            .map(|p| (p.cfg.name.clone(), p.frinvct))
            .collect(),
        reasons,
        interfaces,
    }
}

const W: usize = 34;

impl Report for DropsReport {
    fn to_text(&self) -> String {
        let mut l = Lines::new();
        l.line("SOFTOSA FRAME ACCOUNTING");
        l.line("  INBOUND (FROM THE LAN AND FROM INSIDE THE ADAPTER):");
        let rows: [(&str, u64); 8] = [
            ("FRAMES IN", self.frames_in),
            ("EXTRA COPIES (BCAST/MCAST)", self.extra_copies),
            ("PRESENTED TO STACKS", self.presented),
            ("HELD ON INPUT QUEUES", self.held),
            ("FORWARDED BY ACCELERATOR", self.forwarded),
            ("HANDLED BY ADAPTER (ARP)", self.handled),
            ("DROPPED", self.dropped_in),
            ("PRESENTED, NOT YET RETURNED", self.outstanding),
        ];
        for (k, v) in rows {
            l.stat(4, k, W, v);
        }
        l.line(format!(
            "    BALANCED: {}  (IN + COPIES = PRESENTED + HELD + FORWARDED + HANDLED + DROPPED)",
            yes_no(self.balanced)
        ));
        l.line("  OUTBOUND (SENT BY STACKS):");
        let rows: [(&str, u64); 5] = [
            ("PACKETS SENT", self.sends),
            ("FRAMES TRANSMITTED", self.transmitted),
            ("DELIVERED INSIDE THE ADAPTER", self.delivered_internally),
            ("WAITING TO TRANSMIT", self.awaiting_transmit),
            ("DROPPED", self.dropped_out),
        ];
        for (k, v) in rows {
            l.stat(4, k, W, v);
        }
        l.stat(2, "ENGINE EVENTS LOST", W + 2, self.events_lost);
        l.line(format!(
            "  DROPS BY REASON:{:>53} {:>10}",
            "INBOUND", "OUTBOUND"
        ));
        for r in &self.reasons {
            l.line(format!(
                "    {:<56} {:>10} {:>10}",
                truncate(&r.label, 56),
                r.inbound,
                r.outbound
            ));
        }
        l.line("  BY INTERFACE:");
        for i in &self.interfaces {
            l.line(format!(
                "    {}/{}: IN DISCARDED {}  IN ERROR {}  OUT DISCARDED {}  HELD {}  QUEUED OUT {}",
                i.stack,
                i.interface,
                i.inbound_discarded,
                i.inbound_in_error,
                i.outbound_discarded,
                i.held,
                i.write_queued
            ));
            for (q, n) in &i.noreads {
                l.line(format!("      NOREADS ON {q}: {n}"));
            }
        }
        for (p, n) in &self.port_frinvct {
            if *n > 0 {
                l.line(format!(
                    "  PORT {p}: INVALID FRAMES NOT CHARGED TO AN INTERFACE {n}"
                ));
            }
        }
        l.finish()
    }
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}
