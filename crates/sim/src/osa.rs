//! The OSA adapter as the simulator sees it (simulator layer; spec 1, 2, 3).
//!
//! A thin wrapper around the sans-IO engine (`softosa_engine::Engine`):
//! simulated segments become real header frames going in
//! (`handle_wire_frame`, `handle_host_send`), presentations and transmit
//! frames come out and are parsed back into segments. All adapter *logic*
//! (data router, input queues and LAN-idle timers, DYNAMIC tuner, IWQ and the
//! bulk detector, OLM, write priority queues, segmentation offload, counters)
//! is the engine's; the *time* the adapter's microprocessor spends is modelled
//! by the world (`params::AdapterGen`).

use crate::event::Ns;
use crate::packet::{Pkt, MAX_HDR_LEN, VLAN_TAG_LEN};
use softosa_engine::config::{Mac, SystemConfig};
use softosa_engine::wire::Frame;
use softosa_engine::{
    BatchId, Engine, Event, IfaceId, Instant, PortId, PresentCause, QueueKind, SendMeta,
    SendOutcome, WlmClass,
};
use std::net::{IpAddr, Ipv4Addr};

/// What the simulator needs to build an adapter.
#[derive(Clone, Debug)]
pub struct OsaSetup {
    pub config: SystemConfig,
    /// Index of the simulated host's interface in `config.interfaces`.
    pub iface: usize,
    /// What the host's profile has that softosa reads but does not apply
    /// (its diagnostics' warnings, `file:line:col: warning: ...`); empty
    /// for a host described by fields.
    pub warnings: Vec<String>,
    /// What the scenario asks of this host that its profile's z/OS would
    /// do otherwise (a peer outside its interface's subnets, reached
    /// directly on the flat simulated LAN); shown beside the warnings.
    pub notes: Vec<String>,
}

/// A batch presented to the host, with its frames already parsed.
#[derive(Debug)]
pub struct SimPresentation {
    /// Serialization key of the input queue (per host).
    pub key: u64,
    pub queue: QueueKind,
    pub serialized: bool,
    pub interrupt: bool,
    /// An OLM early interrupt: raised while the frame was still on its way
    /// through the adapter, not after the adapter had stored it.
    pub early: bool,
    pub ack_each_ooo: bool,
    pub frames: Vec<Pkt>,
    pub token: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum OsaError {
    #[error("engine configuration refused: {0}")]
    Config(String),
}

/// One retune of a queue's timers: (time, queue, gap ns, block ns).
pub type Retune = (Ns, &'static str, u64, u64);

/// The key of the engine-wide counters in [`Osa::counters_json`]: in
/// `softosa sim --format json`, `.adapter.engine.counters` of a host (it
/// was `.adapter.engine.engine`, a key nested in itself).
pub const ENGINE_COUNTERS: &str = "counters";

pub struct Osa {
    engine: Engine,
    iface: IfaceId,
    port: PortId,
    mss: u32,
    workloadq: bool,
    olm: bool,
    hdr: [u8; MAX_HDR_LEN],
    /// The interface's VLAN (`VLANID`): frames from the LAN reach the port
    /// tagged with it, as from a switch's trunk port.
    vlan: Option<u16>,
    /// A frame from the LAN with its 802.1Q tag inserted.
    tagged: [u8; MAX_HDR_LEN + VLAN_TAG_LEN],
    buf: Vec<u8>,
    /// Batches handed to the host, by token.
    open: Vec<Option<(BatchId, QueueKind)>>,
    free: Vec<usize>,
    /// Frames the engine presented that the simulator could not parse.
    pub unparsable: u64,
    /// Sends the engine refused, by outcome label.
    pub send_refused: u64,
    /// The first [`MAX_RETUNES_KEPT`] timer retunes, for the report's
    /// plot; [`Osa::retune_count`] counts them all.
    pub retunes: Vec<Retune>,
    /// Every timer retune of the run, kept or not.
    pub retune_count: u64,
    /// How many retunes [`Osa::retunes`] keeps ([`MAX_RETUNES_KEPT`]).
    pub retunes_kept: usize,
    pub bulk_registrations: u64,
}

/// Timer retunes kept for the plot of one adapter: a tuner moves at most
/// once an epoch, so a run of minutes keeps them all; beyond this the
/// count goes on and the list stops.
pub const MAX_RETUNES_KEPT: usize = 100_000;

fn ns(t: Ns) -> Instant {
    Instant::from_nanos(t)
}

impl Osa {
    pub fn new(setup: &OsaSetup) -> Result<Osa, OsaError> {
        let mut cfg = setup.config.clone();
        // Keep only headers: payload bytes never exist in the simulator.
        cfg.tuning.store_bytes = Some(MAX_HDR_LEN as u32);
        let icfg = cfg
            .interfaces
            .get(setup.iface)
            .ok_or_else(|| OsaError::Config("no such interface".into()))?
            .clone();
        let engine = Engine::new(cfg).map_err(|e| OsaError::Config(e.to_string()))?;
        let iface = engine
            .interface_by_name(&icfg.name)
            .ok_or_else(|| OsaError::Config(format!("interface {} not active", icfg.name)))?;
        let port = engine
            .port_of(iface)
            .ok_or_else(|| OsaError::Config("interface has no port".into()))?;
        let mtu = engine.interface(iface).map(|i| i.mtu).unwrap_or(1500);
        Ok(Osa {
            engine,
            iface,
            port,
            mss: mtu.saturating_sub(40).max(536),
            workloadq: icfg.workloadq,
            olm: icfg.olm,
            hdr: [0; MAX_HDR_LEN],
            vlan: icfg.vlan,
            tagged: [0; MAX_HDR_LEN + VLAN_TAG_LEN],
            buf: Vec::with_capacity(128),
            open: Vec::new(),
            free: Vec::new(),
            unparsable: 0,
            send_refused: 0,
            retunes: Vec::new(),
            retune_count: 0,
            retunes_kept: MAX_RETUNES_KEPT,
            bulk_registrations: 0,
        })
    }
    /// The interface's MAC on the LAN: its VMAC (coded, or generated by
    /// the adapter), else its port's.
    pub fn mac(&self) -> [u8; 6] {
        self.engine
            .interface(self.iface)
            .map_or([0; 6], |i| i.mac.0)
    }
    /// Tell the adapter where a neighbour lives (what ARP would learn).
    pub fn add_neighbor(&mut self, ip: u32, mac: [u8; 6]) {
        self.engine
            .add_neighbor(self.port, IpAddr::V4(Ipv4Addr::from(ip)), Mac(mac));
    }
    /// The interface's VLAN (`VLANID`), if it codes one.
    pub fn vlan(&self) -> Option<u16> {
        self.vlan
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
    pub fn engine(&self) -> &Engine {
        &self.engine
    }
    /// A frame from the LAN, after the microprocessor got to it.
    pub fn wire_in(&mut self, now: Ns, p: &Pkt) {
        let n = p.build(&mut self.hdr);
        let f = match self.vlan {
            None => Frame {
                data: &self.hdr[..n],
                wire_len: p.wire_len(),
            },
            Some(v) => {
                // The tag goes between the MAC addresses and the EtherType.
                let t = &mut self.tagged;
                t[..12].copy_from_slice(&self.hdr[..12]);
                t[12..14].copy_from_slice(&0x8100u16.to_be_bytes());
                t[14..16].copy_from_slice(&(v & 0x0fff).to_be_bytes());
                t[16..n + VLAN_TAG_LEN].copy_from_slice(&self.hdr[12..n]);
                Frame {
                    data: &t[..n + VLAN_TAG_LEN],
                    wire_len: p.wire_len() + VLAN_TAG_LEN as u32,
                }
            }
        };
        let _ = self.engine.handle_wire_frame(ns(now), self.port, f);
        self.drain_events();
    }
    /// A frame reached the port damaged (a frame error on the link): the
    /// adapter discards it, and counts it (the drops display's "injected
    /// frame error", as the live lab's error injector).
    pub fn frame_error(&mut self) {
        self.engine.note_injected_error(self.port);
    }
    /// The stack signals write queue `queue` (or, under OLM on queue 1, the
    /// adapter polls it) for the sends queued there since its last signal.
    pub fn write_signalled(&mut self, queue: u8) {
        self.engine.note_write_signal(self.iface, queue);
    }
    /// The stack sends a segment (possibly a large send when offloading).
    /// Returns the write queue (1..4) the engine put it on, `None` if refused.
    pub fn host_send(&mut self, now: Ns, p: &Pkt, importance: u8) -> Option<u8> {
        let n = p.build(&mut self.hdr);
        let f = Frame {
            data: &self.hdr[14..n],
            // the IP packet as the stack hands it over (no Ethernet padding)
            wire_len: 40 + p.esp_overhead() + p.len,
        };
        let wlm = match importance {
            0 => WlmClass::SysStc,
            6 => WlmClass::Discretionary,
            i => WlmClass::Importance(i),
        };
        // The stack's signals are told apart ([`Osa::write_signalled`]).
        let meta = SendMeta {
            wlm: Some(wlm),
            ..SendMeta::default()
        };
        let queue = match self.engine.handle_host_send(ns(now), self.iface, f, meta) {
            Ok(SendOutcome::Queued { queue, .. }) => Some(queue),
            Ok(_) => None,
            Err(_) => {
                self.send_refused += 1;
                None
            }
        };
        self.drain_events();
        queue
    }
    /// The next batch for the host. Marks the queue as being serviced.
    pub fn poll_presentation(&mut self, now: Ns) -> Option<SimPresentation> {
        let pr = self.engine.poll_presentation()?;
        self.engine.begin_service(ns(now), pr.iface, pr.queue);
        let mut frames = Vec::with_capacity(pr.frames as usize);
        for f in self.engine.batch_frames(pr.batch) {
            match Pkt::parse(f.data, f.wire_len) {
                Some(p) => frames.push(p),
                None => self.unparsable += 1,
            }
        }
        let slot = match self.free.pop() {
            Some(s) => {
                self.open[s] = Some((pr.batch, pr.queue));
                s
            }
            None => {
                self.open.push(Some((pr.batch, pr.queue)));
                self.open.len() - 1
            }
        };
        Some(SimPresentation {
            key: pr.queue.index() as u64 + 1,
            queue: pr.queue,
            serialized: pr.serialized,
            interrupt: pr.interrupt,
            early: pr.cause == PresentCause::Early,
            ack_each_ooo: pr.ack_each_out_of_order,
            frames,
            token: slot as u64,
        })
    }
    /// The host's unit of work finished the batch: buffers back, service ends.
    /// Under OLM the unit keeps looking at the queue: returns the queue's
    /// serialization key and the end of that poll window.
    pub fn complete(&mut self, now: Ns, token: u64) -> Option<(u64, Ns)> {
        let slot = self.open.get_mut(token as usize)?;
        let mut look = None;
        if let Some((b, q)) = slot.take() {
            self.free.push(token as usize);
            self.engine.complete_batch(ns(now), b);
            look = self
                .engine
                .end_service(ns(now), self.iface, q)
                .map(|t| (q.index() as u64 + 1, t.as_nanos()));
        }
        self.drain_events();
        look
    }
    /// Next frame for the wire, parsed, with the write queue (1..4) it
    /// came from.
    pub fn poll_transmit(&mut self, now: Ns) -> Option<(Pkt, u8)> {
        loop {
            let meta = self
                .engine
                .poll_transmit(ns(now), self.port, &mut self.buf)?;
            match Pkt::parse(&self.buf, meta.wire_len) {
                Some(p) => return Some((p, meta.queue)),
                None => self.unparsable += 1, // e.g. an ARP frame: not simulated further
            }
        }
    }
    pub fn poll_timeout(&self) -> Option<Ns> {
        self.engine.poll_timeout().map(|t| t.as_nanos())
    }
    pub fn timeout(&mut self, now: Ns) {
        self.engine.handle_timeout(ns(now));
        self.drain_events();
    }
    fn drain_events(&mut self) {
        while let Some(ev) = self.engine.poll_event() {
            match ev {
                Event::TimersRetuned {
                    at,
                    queue,
                    gap_ns,
                    block_ns,
                    ..
                } => {
                    self.retune_count += 1;
                    if self.retunes.len() < self.retunes_kept {
                        self.retunes
                            .push((at.as_nanos(), queue.label(), gap_ns, block_ns));
                    }
                }
                Event::BulkRegistered { .. } => self.bulk_registrations += 1,
                _ => {}
            }
        }
    }
    /// Current timers of every defined input queue: (queue, gap ns, block ns).
    pub fn timer_values(&self) -> Vec<(&'static str, u64, u64)> {
        QueueKind::ALL
            .iter()
            .filter_map(|q| {
                self.engine.timers(self.iface, *q).map(|t| {
                    (
                        q.label(),
                        t.gap.as_nanos() as u64,
                        t.block.as_nanos() as u64,
                    )
                })
            })
            .collect()
    }
    /// Engine counters for reports: an adapter's `engine` in the JSON. The
    /// engine-wide counters ([`softosa_engine::counters::EngineCounters`]:
    /// frames, drops by reason) are under [`ENGINE_COUNTERS`], beside the
    /// interface's and the queues'.
    pub fn counters_json(&self) -> serde_json::Value {
        let mut queues = serde_json::Map::new();
        for q in QueueKind::ALL {
            if let Some(c) = self.engine.read_counters(self.iface, q) {
                queues.insert(
                    format!("RD/{} {}", q.id(), q.label()),
                    serde_json::to_value(c).unwrap_or(serde_json::Value::Null),
                );
            }
        }
        let iface = self.engine.interface(self.iface);
        let writes: Vec<serde_json::Value> = iface
            .map(|i| {
                i.writes
                    .iter()
                    .map(|w| serde_json::to_value(&w.counters).unwrap_or(serde_json::Value::Null))
                    .collect()
            })
            .unwrap_or_default();
        serde_json::json!({
            ENGINE_COUNTERS: serde_json::to_value(self.engine.counters()).unwrap_or(serde_json::Value::Null),
            "interface": iface.map(|i| serde_json::to_value(&i.counters).unwrap_or(serde_json::Value::Null)),
            "read_queues": queues,
            "write_queues": writes,
            "bulk_registrations": self.bulk_registrations,
            "timer_retunes": self.retune_count,
            "unparsable_frames": self.unparsable,
            "sends_refused": self.send_refused,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::nic_mac;
    use crate::scenario::Scenario;

    fn setup(extra: &str) -> OsaSetup {
        let text = format!(
            "[[host]]\nname=\"z\"\ntype=\"zos\"\nip=\"192.0.2.1\"\n{extra}\n[[host]]\nname=\"a\"\ntype=\"aix\"\nip=\"192.0.2.2\"\n[[workload]]\ntype=\"RR\"\nconnections=1\nrequest=1\nresponse=1\nclient=\"a\"\nserver=\"z\"\n"
        );
        let v = Scenario::parse("t", &text).unwrap().variants().unwrap();
        v[0].setup.hosts[0].adapter.clone().unwrap().osa
    }

    fn seg(len: u32, seq: u32) -> Pkt {
        Pkt {
            src_mac: nic_mac(0),
            dst_mac: nic_mac(1),
            src_ip: 0xc0000201,
            dst_ip: 0xc0000202,
            sport: 5001,
            dport: 1024,
            seq,
            ack: 1,
            flags: crate::packet::ACK,
            tos: 0,
            wnd: 65536,
            len,
            smc: None,
            esp: false,
        }
    }

    #[test]
    fn offloaded_send_leaves_as_consecutive_mss_frames() {
        let mut o = Osa::new(&setup("segmentation_offload = true")).unwrap();
        o.add_neighbor(0xc0000202, nic_mac(1));
        assert_eq!(o.host_send(0, &seg(10 * 1460, 1000), 2), Some(1));
        let mut seq = 1000;
        let mut n = 0;
        while let Some((p, queue)) = o.poll_transmit(0) {
            assert_eq!(queue, 1, "default priority goes to write queue 1");
            assert_eq!(p.seq, seq, "frame {n}");
            assert!(p.len <= 1460);
            seq = seq.wrapping_add(p.len);
            n += 1;
        }
        assert_eq!(seq, 1000 + 10 * 1460);
        assert_eq!(n, 10);
    }

    #[test]
    fn retunes_are_counted_beyond_the_ones_kept() {
        // The list for the plot stops; the count does not (it used to be
        // the list's length, so it stopped silently at the cap).
        let mut o = Osa::new(&setup("inbperf = \"DYNAMIC\"")).unwrap();
        o.retunes_kept = 1;
        let mut p = seg(100, 7);
        p.src_ip = 0xc0000202;
        p.dst_ip = 0xc0000201;
        p.src_mac = nic_mac(1);
        p.dst_mac = o.mac();
        // An interactive frame every 100 us for a second: the tuner walks
        // down from BALANCED's rung, one retune at a time.
        let mut now = 0;
        while now < 1_000_000_000 {
            o.wire_in(now, &p);
            let until = now + 100_000;
            while let Some(t) = o.poll_timeout().filter(|t| *t <= until) {
                o.timeout(t);
                while let Some(pr) = o.poll_presentation(t) {
                    o.complete(t, pr.token);
                }
            }
            now = until;
        }
        assert_eq!(o.retunes.len(), 1);
        assert!(o.retune_count >= 2, "{}", o.retune_count);
        assert_eq!(o.counters_json()["timer_retunes"], o.retune_count);
    }

    #[test]
    fn inbound_frame_is_presented_and_parsed_back() {
        let mut o = Osa::new(&setup("inbperf = \"MINLATENCY\"")).unwrap();
        let mut p = seg(100, 7);
        p.src_ip = 0xc0000202;
        p.dst_ip = 0xc0000201;
        p.src_mac = nic_mac(1);
        p.dst_mac = o.mac();
        o.wire_in(1_000, &p);
        assert!(
            o.poll_presentation(1_000).is_none(),
            "held for the gap timer"
        );
        let t = o.poll_timeout().unwrap();
        assert_eq!(t, 1_000 + 20_000, "MINLATENCY gap timer is 20 us");
        o.timeout(t);
        let pr = o.poll_presentation(t).unwrap();
        assert!(pr.interrupt);
        assert_eq!(pr.frames.len(), 1);
        assert_eq!(pr.frames[0].seq, 7);
        assert_eq!(pr.frames[0].len, 100);
        o.complete(t, pr.token);
    }
}
