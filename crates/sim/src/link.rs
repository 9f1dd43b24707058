//! Ethernet links and the switch (simulator layer; spec 6.2 "Links").
//!
//! Every NIC or adapter port attaches to one switch by a full-duplex link.
//! A direction serializes one frame at a time at the link rate, including
//! the Ethernet per-frame overhead (preamble + SFD, FCS, inter-frame gap), then
//! the frame propagates for the one-way latency. The switch's egress port
//! toward a NIC holds a bounded byte queue (tail drop, counted). Frames are
//! lost at random on the receiving end at the configured frame error rate.

use crate::event::Ns;
use crate::packet::{Pkt, ETH_OVERHEAD};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Static link parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkParams {
    /// Bits per second.
    pub rate_bps: u64,
    /// One-way propagation plus switch latency per hop, ns.
    pub latency_ns: Ns,
    /// IP MTU.
    pub mtu: u32,
    /// Probability that a frame is corrupted and dropped.
    pub loss: f64,
    /// Switch egress buffer in bytes.
    pub switch_buffer: u32,
}

impl LinkParams {
    /// Serialization time of a frame with `wire_len` bytes (no FCS/preamble).
    pub fn tx_ns(&self, wire_len: u32) -> Ns {
        let bits = u64::from(wire_len + ETH_OVERHEAD) * 8;
        (bits * 1_000_000_000).div_ceil(self.rate_bps.max(1))
    }
}

/// Counters per link direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WireStats {
    pub frames: u64,
    pub bytes: u64,
    pub dropped_queue_full: u64,
    pub dropped_frame_error: u64,
}

impl WireStats {
    /// These counters less those of an earlier instant.
    pub fn since(&self, b: &WireStats) -> WireStats {
        WireStats {
            frames: self.frames.saturating_sub(b.frames),
            bytes: self.bytes.saturating_sub(b.bytes),
            dropped_queue_full: self.dropped_queue_full.saturating_sub(b.dropped_queue_full),
            dropped_frame_error: self
                .dropped_frame_error
                .saturating_sub(b.dropped_frame_error),
        }
    }
}

/// One direction of a link with an output queue (switch egress side or a
/// peer NIC's transmit ring).
#[derive(Debug)]
pub struct Wire {
    pub p: LinkParams,
    pub busy: bool,
    pub queue: VecDeque<Pkt>,
    queued_bytes: u32,
    /// Queue bound in bytes (0 = unbounded, used where an upstream window
    /// already bounds it).
    pub cap_bytes: u32,
    pub stats: WireStats,
    /// Busy time accumulated (for utilisation).
    pub busy_ns: u64,
}

impl Wire {
    pub fn new(p: LinkParams, cap_bytes: u32) -> Wire {
        Wire {
            p,
            busy: false,
            queue: VecDeque::new(),
            queued_bytes: 0,
            cap_bytes,
            stats: WireStats::default(),
            busy_ns: 0,
        }
    }
    /// Queue a frame; false (and counted) if the buffer is full.
    pub fn enqueue(&mut self, p: Pkt) -> bool {
        let l = p.wire_len();
        if self.cap_bytes > 0 && self.queued_bytes + l > self.cap_bytes {
            self.stats.dropped_queue_full += 1;
            return false;
        }
        self.queued_bytes += l;
        self.queue.push_back(p);
        true
    }
    /// Start sending the head frame if idle: returns (frame, done_at, arrive_at).
    pub fn start(&mut self, now: Ns) -> Option<(Pkt, Ns, Ns)> {
        if self.busy {
            return None;
        }
        let p = self.queue.pop_front()?;
        self.queued_bytes -= p.wire_len();
        Some(self.send_now(now, p))
    }
    /// Serialize `p` immediately (caller guarantees the wire is idle).
    pub fn send_now(&mut self, now: Ns, p: Pkt) -> (Pkt, Ns, Ns) {
        let t = self.p.tx_ns(p.wire_len());
        self.busy = true;
        self.busy_ns += t;
        self.stats.frames += 1;
        self.stats.bytes += u64::from(p.wire_len());
        (p, now + t, now + t + self.p.latency_ns)
    }
    /// Decide whether an arriving frame survives the frame error rate.
    pub fn survives(&mut self, rng: &mut ChaCha8Rng) -> bool {
        if self.p.loss > 0.0 && rng.random::<f64>() < self.p.loss {
            self.stats.dropped_frame_error += 1;
            false
        } else {
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn gbe() -> LinkParams {
        LinkParams {
            rate_bps: 1_000_000_000,
            latency_ns: 5_000,
            mtu: 1500,
            loss: 0.0,
            switch_buffer: 3000,
        }
    }
    fn pkt(len: u32) -> Pkt {
        Pkt {
            src_mac: [0; 6],
            dst_mac: [0; 6],
            src_ip: 1,
            dst_ip: 2,
            sport: 1,
            dport: 2,
            seq: 0,
            ack: 0,
            flags: 0,
            tos: 0,
            wnd: 0,
            len,
            smc: None,
            esp: false,
        }
    }
    #[test]
    fn full_frame_takes_12_3_us_at_1gbe() {
        // 1514 bytes + 24 overhead = 1538 bytes = 12304 bits
        assert_eq!(gbe().tx_ns(1514), 12_304);
        // minimum frame: 60 + 24 = 84 bytes = 672 ns
        assert_eq!(gbe().tx_ns(60), 672);
    }
    #[test]
    fn queue_is_bounded_and_serializes() {
        let mut w = Wire::new(gbe(), 3100);
        assert!(w.enqueue(pkt(1460)));
        assert!(w.enqueue(pkt(1460)));
        assert!(!w.enqueue(pkt(1460)), "third full frame exceeds 3100 bytes");
        assert_eq!(w.stats.dropped_queue_full, 1);
        let (_, done, arrive) = w.start(100).unwrap();
        assert_eq!(done, 100 + 12_304);
        assert_eq!(arrive, done + 5_000);
        assert!(w.start(200).is_none(), "busy");
    }
    #[test]
    fn loss_rate_is_applied() {
        let mut w = Wire::new(LinkParams { loss: 0.1, ..gbe() }, 0);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let lost = (0..10_000).filter(|_| !w.survives(&mut rng)).count();
        assert!((800..1200).contains(&lost), "{lost}");
        assert_eq!(w.stats.dropped_frame_error as usize, lost);
    }
}
