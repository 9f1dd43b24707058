//! A minimal layer-2 bridge [`Core`] with no adapter logic: wire frames go
//! to the host whose MAC they name (group frames to all), each wire receive
//! batch presented at once; host frames go straight to the wire. It exists
//! to measure the live plumbing alone (`softosa lab bench --core
//! passthrough`), so the engine's own cost can be told apart.

use std::collections::VecDeque;

use crate::control::Metric;
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
    pub dropped: u64,
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
        for i in 0..self.macs.len() {
            if (group || self.macs[i] == dst) && self.pending[i].len() < LIMIT {
                let b = self.buf(frame);
                self.pending[i].push_back(b);
                if hit {
                    self.replicated += 1;
                }
                hit = true;
            }
        }
        if !hit {
            self.dropped += 1;
        }
    }
    fn host_send(&mut self, _now: u64, _iface: usize, frame: &[u8], _last: bool) {
        if self.tx.len() >= LIMIT {
            self.dropped += 1;
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
            DriverDrop::Crc | DriverDrop::BadOffload => self.crc += 1,
            DriverDrop::HostWrite => self.host_write_failed += 1,
            _ => self.dropped += 1,
        }
    }
    fn accounting(&self) -> Accounting {
        Accounting {
            frames_in: self.frames_in + self.crc,
            presented: self.presented - self.replicated.min(self.presented),
            forwarded: 0,
            handled: 0,
            dropped: vec![("no host".into(), self.dropped), ("CRC".into(), self.crc)],
            held: self.pending.iter().map(|p| p.len() as u64).sum(),
        }
    }
    fn display(&self, kind: &str, _json: bool) -> Result<String, String> {
        Err(format!("the passthrough core has no display {kind}"))
    }
    fn metrics(&self) -> Vec<Metric> {
        Vec::new()
    }
    fn placements(&self) -> Vec<Placement> {
        Vec::new()
    }
}
