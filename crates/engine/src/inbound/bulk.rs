//! The stack-side bulk-connection detector (layer: engine, stack agent;
//! spec 02 §2.3 "Bulk detection").
//!
//! Behavioural, never by port or application. Per TCP connection it watches
//! the data segments in both directions:
//! - a *run* is payload flowing one way with no data segment the other way;
//!   a run of at least `run_bytes` within `run_window` marks the connection
//!   streaming (in either direction: for a stream leaving the host, what
//!   arrives is ACKs, and they are sorted with it);
//! - request/response traffic turns direction every transaction, so its runs
//!   stay short and it is never marked; a streaming connection that starts
//!   turning often (`turns_to_deregister` turns without a new long run) is
//!   unmarked, as is one idle for `idle_timeout`, or one that closes (FIN/RST);
//! - a connection seen on several interfaces at once (multipath) is never
//!   marked.
//!
//! The table is bounded (`max_tracked`); connections beyond it are not
//! tracked and counted.

use crate::config::BulkConfig;
use crate::time::Instant;
use crate::util::FixedMap;
use crate::wire::{tcp_flags, FlowKey};
use std::net::IpAddr;

/// A connection seen from the stack: local end first.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct ConnKey {
    pub local: IpAddr,
    pub local_port: u16,
    pub remote: IpAddr,
    pub remote_port: u16,
}

impl ConnKey {
    /// Key of an inbound frame's flow (its destination is local).
    pub fn from_inbound(f: &FlowKey) -> Self {
        ConnKey {
            local: f.dst,
            local_port: f.dst_port,
            remote: f.src,
            remote_port: f.src_port,
        }
    }
    /// Key of an outbound frame's flow (its source is local).
    pub fn from_outbound(f: &FlowKey) -> Self {
        ConnKey {
            local: f.src,
            local_port: f.src_port,
            remote: f.dst,
            remote_port: f.dst_port,
        }
    }
    /// The 5-tuple the adapter matches inbound frames against.
    pub fn inbound_flow(&self) -> FlowKey {
        FlowKey {
            proto: crate::wire::PROTO_TCP,
            src: self.remote,
            src_port: self.remote_port,
            dst: self.local,
            dst_port: self.local_port,
        }
    }
}

/// Direction of a segment, from the stack's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    In,
    Out,
}

#[derive(Clone, Debug)]
struct Conn {
    run_dir: Dir,
    run_bytes: u64,
    run_start: Instant,
    last_seen: Instant,
    turns: u32,
    streaming: bool,
    multipath: bool,
    /// Interface the connection's inbound frames last arrived on (an index).
    iface: Option<usize>,
}

/// What the detector concluded from one segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Unchanged,
    /// The connection just became streaming: register it.
    Started,
    /// The connection stopped streaming (turns, close): deregister it.
    Stopped,
}

/// Per-stack detector.
#[derive(Clone, Debug)]
pub struct BulkDetector {
    cfg: BulkConfig,
    conns: FixedMap<ConnKey, Conn>,
    /// Connections not tracked because the table was full.
    pub untracked: u64,
}

impl BulkDetector {
    pub fn new(cfg: BulkConfig) -> Self {
        BulkDetector {
            cfg,
            conns: FixedMap::default(),
            untracked: 0,
        }
    }

    pub fn tracked(&self) -> usize {
        self.conns.len()
    }

    /// Whether the connection is currently considered streaming.
    pub fn is_streaming(&self, key: &ConnKey) -> bool {
        self.conns.get(key).is_some_and(|c| c.streaming)
    }

    /// Interface index a streaming connection's inbound traffic uses.
    pub fn iface_of(&self, key: &ConnKey) -> Option<usize> {
        self.conns.get(key).and_then(|c| c.iface)
    }

    /// Observe one TCP segment of `key` in direction `dir` with `payload`
    /// bytes and TCP `flags`, arriving on / leaving by interface `iface`.
    pub fn observe(
        &mut self,
        now: Instant,
        key: ConnKey,
        dir: Dir,
        payload: u32,
        flags: u8,
        iface: usize,
    ) -> Verdict {
        self.observe_streaming(now, key, dir, payload, flags, iface)
            .0
    }

    /// As [`BulkDetector::observe`], also saying whether the connection is
    /// streaming afterwards (one table lookup on the hot path).
    pub fn observe_streaming(
        &mut self,
        now: Instant,
        key: ConnKey,
        dir: Dir,
        payload: u32,
        flags: u8,
        iface: usize,
    ) -> (Verdict, bool) {
        let closing = flags & (tcp_flags::FIN | tcp_flags::RST) != 0;
        let cfg = self.cfg;
        let full = self.conns.len() >= cfg.max_tracked;
        let c = match self.conns.get_mut(&key) {
            Some(c) => c,
            None => {
                if closing || payload == 0 {
                    // Nothing to learn from a bare ACK or a close of an unknown connection.
                    return (Verdict::Unchanged, false);
                }
                if full {
                    self.untracked += 1;
                    return (Verdict::Unchanged, false);
                }
                self.conns.entry(key).or_insert(Conn {
                    run_dir: dir,
                    run_bytes: 0,
                    run_start: now,
                    last_seen: now,
                    turns: 0,
                    streaming: false,
                    multipath: false,
                    iface: None,
                })
            }
        };
        c.last_seen = now;
        if dir == Dir::In {
            match c.iface {
                Some(i) if i != iface => c.multipath = true,
                _ => c.iface = Some(iface),
            }
        }
        if closing {
            let was = c.streaming;
            self.conns.remove(&key);
            let v = if was {
                Verdict::Stopped
            } else {
                Verdict::Unchanged
            };
            return (v, false);
        }
        if payload == 0 {
            return (Verdict::Unchanged, c.streaming);
        }
        if dir != c.run_dir {
            c.run_dir = dir;
            c.run_bytes = 0;
            c.run_start = now;
            c.turns = c.turns.saturating_add(1);
        } else if now.saturating_duration_since(c.run_start) > cfg.run_window
            && c.run_bytes < cfg.run_bytes
        {
            // Too slow to be a stream: start measuring again from here.
            c.run_bytes = 0;
            c.run_start = now;
        }
        c.run_bytes += u64::from(payload);
        if c.run_bytes >= cfg.run_bytes {
            c.turns = 0;
            if !c.streaming && !c.multipath {
                c.streaming = true;
                return (Verdict::Started, true);
            }
        }
        if c.streaming && (c.turns >= cfg.turns_to_deregister || c.multipath) {
            c.streaming = false;
            return (Verdict::Stopped, false);
        }
        (Verdict::Unchanged, c.streaming)
    }

    /// Mark a connection as carried over several interfaces (multipath per
    /// packet): it will never be registered. Returns true if it was streaming.
    pub fn set_multipath(&mut self, key: ConnKey) -> bool {
        match self.conns.get_mut(&key) {
            Some(c) => {
                c.multipath = true;
                let was = c.streaming;
                c.streaming = false;
                was
            }
            None => false,
        }
    }

    /// Forget connections idle for `idle_timeout`; returns the streaming ones
    /// among them (to deregister), sorted for determinism.
    pub fn expire_idle(&mut self, now: Instant) -> Vec<(ConnKey, Option<usize>)> {
        let timeout = self.cfg.idle_timeout;
        let mut stopped = Vec::new();
        self.conns.retain(|k, c| {
            let idle = now.saturating_duration_since(c.last_seen) >= timeout;
            if idle && c.streaming {
                stopped.push((*k, c.iface));
            }
            !idle
        });
        stopped.sort();
        stopped
    }

    /// Streaming connections, sorted (for displays).
    pub fn streaming(&self) -> Vec<ConnKey> {
        let mut v: Vec<ConnKey> = self
            .conns
            .iter()
            .filter(|(_, c)| c.streaming)
            .map(|(k, _)| *k)
            .collect();
        v.sort();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::time::Duration;

    fn key(port: u16) -> ConnKey {
        ConnKey {
            local: "192.0.2.1".parse().unwrap(),
            local_port: 2141,
            remote: "192.0.2.9".parse().unwrap(),
            remote_port: port,
        }
    }

    fn det() -> BulkDetector {
        BulkDetector::new(BulkConfig::default())
    }

    #[test]
    fn inbound_stream_is_detected_within_a_few_round_trips() {
        let mut d = det();
        let mut t = Instant::ZERO;
        let mut started_at = None;
        for i in 0..400u32 {
            t = t + Duration::from_micros(12);
            if d.observe(t, key(1), Dir::In, 1448, tcp_flags::ACK, 0) == Verdict::Started {
                started_at = Some(i);
                break;
            }
        }
        // 256 KiB of 1448-byte segments: 182 segments (about 5 RTTs of slow start).
        assert_eq!(started_at, Some(181));
        assert!(d.is_streaming(&key(1)));
    }

    #[test]
    fn outbound_stream_is_detected_and_acks_do_not_break_it() {
        let mut d = det();
        let mut t = Instant::ZERO;
        let mut started = false;
        for _ in 0..300 {
            t = t + Duration::from_micros(10);
            started |= d.observe(t, key(2), Dir::Out, 8960, tcp_flags::ACK, 0) == Verdict::Started;
            // The peer's pure ACKs carry no payload and do not turn the run.
            d.observe(t, key(2), Dir::In, 0, tcp_flags::ACK, 0);
        }
        assert!(started);
    }

    #[test]
    fn request_response_is_never_registered_even_with_large_messages() {
        let mut d = det();
        let mut t = Instant::ZERO;
        for _ in 0..20_000 {
            t = t + Duration::from_micros(30);
            assert_eq!(
                d.observe(t, key(3), Dir::In, 100, tcp_flags::PSH, 0),
                Verdict::Unchanged
            );
            t = t + Duration::from_micros(30);
            assert_eq!(
                d.observe(t, key(3), Dir::Out, 800, tcp_flags::PSH, 0),
                Verdict::Unchanged
            );
        }
        // 64 KB responses in 45 segments each: still request/response.
        for _ in 0..200 {
            d.observe(t, key(4), Dir::In, 1024, tcp_flags::PSH, 0);
            for _ in 0..45 {
                t = t + Duration::from_micros(5);
                assert_eq!(
                    d.observe(t, key(4), Dir::Out, 1448, 0, 0),
                    Verdict::Unchanged
                );
            }
        }
        assert!(d.streaming().is_empty());
    }

    #[test]
    fn a_trickle_is_not_a_stream() {
        let mut d = det();
        let mut t = Instant::ZERO;
        for _ in 0..10_000 {
            t = t + Duration::from_millis(10);
            assert_eq!(
                d.observe(t, key(5), Dir::In, 1000, 0, 0),
                Verdict::Unchanged
            );
        }
    }

    #[test]
    fn close_idle_and_turning_deregister() {
        let mut d = det();
        let mut t = Instant::ZERO;
        for k in [6, 7, 8] {
            for _ in 0..200 {
                t = t + Duration::from_micros(10);
                d.observe(t, key(k), Dir::In, 1448, 0, 0);
            }
            assert!(d.is_streaming(&key(k)));
        }
        assert_eq!(
            d.observe(t, key(6), Dir::In, 0, tcp_flags::FIN, 0),
            Verdict::Stopped
        );
        // Connection 8 turns into request/response.
        let mut stops = 0;
        for _ in 0..8 {
            t = t + Duration::from_micros(10);
            for dir in [Dir::Out, Dir::In] {
                if d.observe(t, key(8), dir, 100, 0, 0) == Verdict::Stopped {
                    stops += 1;
                }
            }
        }
        assert_eq!(stops, 1);
        assert!(!d.is_streaming(&key(8)));
        // Connection 7 goes idle.
        let idle = d.expire_idle(t + Duration::from_secs(3));
        assert_eq!(idle, vec![(key(7), Some(0))]);
        assert_eq!(d.tracked(), 0);
    }

    #[test]
    fn multipath_connections_are_never_registered() {
        let mut d = det();
        let mut t = Instant::ZERO;
        for i in 0..400 {
            t = t + Duration::from_micros(10);
            let v = d.observe(t, key(9), Dir::In, 1448, 0, i % 2);
            assert_ne!(v, Verdict::Started);
        }
    }

    #[test]
    fn table_is_bounded_and_overflow_counted() {
        let mut d = BulkDetector::new(BulkConfig {
            max_tracked: 3,
            ..BulkConfig::default()
        });
        for p in 0..10 {
            d.observe(Instant::ZERO, key(p), Dir::In, 10, 0, 0);
        }
        assert_eq!(d.tracked(), 3);
        assert_eq!(d.untracked, 7);
    }
}
