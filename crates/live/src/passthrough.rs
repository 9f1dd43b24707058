//! A minimal layer-2 bridge [`Core`] with no adapter logic: wire frames go
//! to the host whose MAC they name (group frames to all), each wire receive
//! batch presented at once; host frames go straight to the wire. It exists
//! to measure the live plumbing alone (`softosa lab --bench --core
//! passthrough`), so the engine's own cost can be told apart.

use std::collections::VecDeque;

use crate::control::{DisplayRequest, Metric, Refusal};
use crate::dataplane::{Accounting, Core, DriverDrop, OutBatch, Placement};

/// The passthrough bridge.
#[derive(Default)]
pub struct Passthrough {
    /// MAC of each host interface (index = iface).
    pub macs: Vec<[u8; 6]>,
    pending: Vec<VecDeque<Vec<u8>>>,
    tx: VecDeque<Vec<u8>>,
    pool: Vec<Vec<u8>>,
    pub frames_in: u64,
    pub presented: u64,
    pub transmitted: u64,
    /// Wire frames no host took (no MAC of theirs, or too short for one).
    pub dropped: u64,
    /// Wire frames for a host whose queue was full.
    pub host_full: u64,
    /// Wire frames whose virtio-net header did not fit them.
    pub bad_offload: u64,
    /// Host frames refused because the transmit queue was full.
    pub tx_full: u64,
    /// Host frames the wire did not take: the send failed.
    pub wire_failed: u64,
    /// Host frames too large for the wire.
    pub wire_oversize: u64,
    pub crc: u64,
    pub replicated: u64,
    pub host_write_failed: u64,
    next_handle: u64,
}

/// Frames held per host before new ones are dropped (counted).
const LIMIT: usize = 4096;

impl Passthrough {
    pub fn new(macs: Vec<[u8; 6]>) -> Passthrough {
        let n = macs.len();
        Passthrough {
            macs,
            pending: (0..n).map(|_| VecDeque::new()).collect(),
            ..Default::default()
        }
    }
    fn buf(&mut self, data: &[u8]) -> Vec<u8> {
        let mut b = self.pool.pop().unwrap_or_default();
        b.clear();
        b.extend_from_slice(data);
        b
    }
}

impl Core for Passthrough {
    fn wire_frame(&mut self, _now: u64, _port: usize, frame: &[u8]) {
        self.frames_in += 1;
        let Some(dst) = frame.get(..6) else {
            self.dropped += 1;
            return;
        };
        let group = dst[0] & 1 != 0;
        let mut hit = false;
        let mut full = false;
        for i in 0..self.macs.len() {
            if !group && self.macs[i] != dst {
                continue;
            }
            if self.pending[i].len() >= LIMIT {
                full = true;
            } else {
                let b = self.buf(frame);
                self.pending[i].push_back(b);
                if hit {
                    self.replicated += 1;
                }
                hit = true;
            }
        }
        if !hit {
            if full {
                self.host_full += 1;
            } else {
                self.dropped += 1;
            }
        }
    }
    fn host_send(&mut self, _now: u64, _iface: usize, frame: &[u8], _last: bool) {
        // Outbound: not a wire frame, so not in the inbound identity.
        if self.tx.len() >= LIMIT {
            self.tx_full += 1;
            return;
        }
        let b = self.buf(frame);
        self.tx.push_back(b);
    }
    fn timeout(&mut self, _now: u64) {}
    fn deadline(&self) -> Option<u64> {
        None
    }
    fn presentation(&mut self, _now: u64, out: &mut OutBatch) -> bool {
        for i in 0..self.pending.len() {
            if self.pending[i].is_empty() {
                continue;
            }
            out.iface = i;
            out.queue = 0;
            self.next_handle += 1;
            out.handle = self.next_handle;
            while let Some(f) = self.pending[i].pop_front() {
                out.push(&f);
                self.presented += 1;
                self.pool.push(f);
            }
            return true;
        }
        false
    }
    fn tx_pending(&self, _port: usize) -> bool {
        !self.tx.is_empty()
    }
    fn complete(&mut self, _now: u64, _iface: usize, _handle: u64) {}
    fn transmit(&mut self, _now: u64, _port: usize, out: &mut Vec<u8>) -> bool {
        match self.tx.pop_front() {
            Some(f) => {
                out.extend_from_slice(&f);
                self.transmitted += 1;
                self.pool.push(f);
                true
            }
            None => false,
        }
    }
    fn driver_drop(&mut self, reason: DriverDrop) {
        match reason {
            DriverDrop::Crc => self.crc += 1,
            DriverDrop::BadOffload => self.bad_offload += 1,
            DriverDrop::HostWrite => self.host_write_failed += 1,
            DriverDrop::WireSend => self.wire_failed += 1,
            DriverDrop::WireOversize => self.wire_oversize += 1,
        }
    }
    fn accounting(&self) -> Accounting {
        Accounting {
            frames_in: self.frames_in + self.crc + self.bad_offload,
            presented: self.presented - self.replicated.min(self.presented),
            forwarded: 0,
            handled: 0,
            dropped: vec![
                ("no host".into(), self.dropped),
                ("host queue full".into(), self.host_full),
                (DriverDrop::Crc.label().into(), self.crc),
                (DriverDrop::BadOffload.label().into(), self.bad_offload),
            ],
            held: self.pending.iter().map(|p| p.len() as u64).sum(),
            dropped_out: vec![
                ("transmit queue full".into(), self.tx_full),
                (DriverDrop::WireSend.label().into(), self.wire_failed),
                (DriverDrop::WireOversize.label().into(), self.wire_oversize),
            ]
            .into_iter()
            .filter(|d| d.1 > 0)
            .collect(),
        }
    }
    fn display(&self, req: &DisplayRequest) -> Result<String, Refusal> {
        Err(Refusal::Usage(format!(
            "the passthrough core has no display {}",
            req.kind
        )))
    }
    fn metrics(&self) -> Vec<Metric> {
        Vec::new()
    }
    fn placements(&self) -> Vec<Placement> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: [u8; 6] = [0x02, 0x5a, 0x00, 0x01, 0x00, 0x01];

    fn frame(dst: [u8; 6]) -> Vec<u8> {
        let mut f = dst.to_vec();
        f.extend_from_slice(&[0u8; 54]);
        f
    }

    #[test]
    fn outbound_drops_are_not_counted_as_inbound_frames_without_a_host() {
        let mut p = Passthrough::new(vec![HOST]);
        // A paced wire: the stack sends more than the transmit queue holds.
        let extra = 10;
        for _ in 0..LIMIT + extra {
            p.host_send(0, 0, &frame([0xff; 6]), true);
        }
        p.driver_drop(DriverDrop::WireSend);
        p.driver_drop(DriverDrop::WireOversize);
        // Inbound: one frame for the host, one for nobody, one injected error.
        p.wire_frame(0, 0, &frame(HOST));
        p.wire_frame(0, 0, &frame([0x02, 0, 0, 0, 0, 9]));
        p.driver_drop(DriverDrop::Crc);
        let a = p.accounting();
        assert!(a.balanced(), "{a:?}");
        let count =
            |v: &[(String, u64)], why: &str| v.iter().find(|d| d.0 == why).map_or(0, |d| d.1);
        assert_eq!(count(&a.dropped, "no host"), 1, "{a:?}");
        assert_eq!(count(&a.dropped, "injected frame error"), 1, "{a:?}");
        assert_eq!(a.frames_in, 3, "{a:?}");
        assert_eq!(count(&a.dropped_out, "transmit queue full"), extra as u64);
        assert_eq!(count(&a.dropped_out, "wire send failed (driver)"), 1);
        assert_eq!(count(&a.dropped_out, "too large for the wire (driver)"), 1);
    }

    #[test]
    fn a_full_host_queue_is_its_own_reason() {
        let mut p = Passthrough::new(vec![HOST]);
        for _ in 0..LIMIT + 3 {
            p.wire_frame(0, 0, &frame(HOST));
        }
        let a = p.accounting();
        assert!(a.balanced(), "{a:?}");
        assert_eq!(a.held, LIMIT as u64);
        assert!(a.dropped.contains(&("host queue full".into(), 3)), "{a:?}");
        assert!(a.dropped.contains(&("no host".into(), 0)), "{a:?}");
    }
}
