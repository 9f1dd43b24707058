//! The OSA adapter as the simulator sees it (simulator layer; spec 1, 2, 3).
//!
//! A thin wrapper around the sans-IO engine: packets become header frames
//! going in, presentations and transmit frames coming out. TEMPORARY: until
//! the engine's `Engine` type lands this is a pass-through (every frame
//! presented at once, every send transmitted at once).

use crate::event::Ns;
use crate::packet::Pkt;
use softosa_engine::config::SystemConfig;
use std::collections::VecDeque;

/// What the simulator needs to build an adapter.
#[derive(Clone, Debug)]
pub struct OsaSetup {
    pub config: SystemConfig,
    /// Index of the simulated host's interface in `config.interfaces`.
    pub iface: usize,
}

/// A batch presented to the host.
#[derive(Debug)]
pub struct SimPresentation {
    pub key: u64,
    pub serialized: bool,
    pub interrupt: bool,
    pub ack_each_ooo: bool,
    pub frames: Vec<Pkt>,
    pub token: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum OsaError {
    #[error("engine configuration refused: {0}")]
    Config(String),
}

pub struct Osa {
    mss: u32,
    workloadq: bool,
    olm: bool,
    inq: VecDeque<Pkt>,
    outq: VecDeque<Pkt>,
}

impl Osa {
    pub fn new(setup: &OsaSetup, _ip: u32, _mac: [u8; 6]) -> Result<Osa, OsaError> {
        let i = setup
            .config
            .interfaces
            .get(setup.iface)
            .ok_or_else(|| OsaError::Config("no such interface".into()))?;
        Ok(Osa {
            mss: i.mtu.unwrap_or(1500).saturating_sub(40),
            workloadq: i.workloadq,
            olm: i.olm,
            inq: VecDeque::new(),
            outq: VecDeque::new(),
        })
    }
    pub fn sorts(&self) -> bool {
        self.workloadq
    }
    pub fn olm(&self) -> bool {
        self.olm
    }
    pub fn mss(&self) -> u32 {
        self.mss
    }
    pub fn wire_in(&mut self, _now: Ns, p: &Pkt) {
        self.inq.push_back(*p);
    }
    pub fn host_send(&mut self, _now: Ns, p: &Pkt, _importance: u8, _offload: bool) {
        let mut q = *p;
        let mss = self.mss.max(1);
        let mut left = p.len;
        loop {
            let l = left.min(mss);
            q.len = l;
            self.outq.push_back(q);
            q.seq = q.seq.wrapping_add(l);
            left -= l;
            if left == 0 {
                break;
            }
        }
    }
    pub fn poll_presentation(&mut self) -> Option<SimPresentation> {
        let p = self.inq.pop_front()?;
        Some(SimPresentation {
            key: 1,
            serialized: false,
            interrupt: true,
            ack_each_ooo: false,
            frames: vec![p],
            token: 0,
        })
    }
    pub fn complete(&mut self, _now: Ns, _token: u64) {}
    pub fn poll_transmit(&mut self) -> Option<Pkt> {
        self.outq.pop_front()
    }
    pub fn poll_timeout(&self) -> Option<Ns> {
        None
    }
    pub fn timeout(&mut self, _now: Ns) {}
    pub fn timer_values(&self) -> Vec<(&'static str, u64, u64)> {
        Vec::new()
    }
    pub fn counters_json(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
}
