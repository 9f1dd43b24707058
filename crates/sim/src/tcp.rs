//! TCP endpoint model (simulator layer; spec 6.2 "TCP", 2.3 ordering and
//! ACK frequency).
//!
//! One [`Tcb`] per connection end: three-way handshake and close (CRR; a
//! FIN is retransmitted until acknowledged, and the host keeps the closed
//! connection through FIN_WAIT / LAST_ACK and TIME_WAIT), slow start,
//! congestion avoidance, the peer's receive window, duplicate ACKs,
//! NewReno fast retransmit / recovery on the third duplicate ACK (RFC 6582:
//! one recovery per window of losses, one retransmission per hole, none for
//! a hole that a reordered original filled), congestion window validation
//! (cwnd grows only while it limits the sender, RFC 7661) and a
//! retransmission timeout with exponential backoff. *When* ACKs are sent is a
//! host policy (z/OS per batch, peers every N segments) and lives in the host
//! model; the Tcb only records what needs acknowledging. Sequence numbers wrap
//! (u32) like real TCP; no payload bytes exist.

use crate::event::Ns;
use crate::packet::{ACK, FIN, PSH, SYN};

/// Largest offloaded send (bytes of TCP payload).
pub const TSO_MAX: u32 = 65536 - 54;

#[inline]
pub fn seq_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}
#[inline]
pub fn seq_le(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) <= 0
}

/// Per-connection configuration.
#[derive(Clone, Copy, Debug)]
pub struct TcpCfg {
    pub mss: u32,
    pub sndbuf: u32,
    pub rcvbuf: u32,
    pub init_cwnd_segs: u32,
    pub min_rto: Ns,
    pub max_rto: Ns,
    pub init_rto: Ns,
    /// Hand the adapter large sends (segmentation offload).
    pub tso: bool,
    /// Duplicate ACKs that start a fast retransmit (z/OS FRRTHRESHOLD).
    pub dupthresh: u32,
    /// The SMC path the connection's data takes once it is open.
    pub smc: Option<crate::packet::SmcKind>,
}

impl Default for TcpCfg {
    fn default() -> Self {
        TcpCfg {
            mss: 1448,
            sndbuf: 256 * 1024,
            rcvbuf: 256 * 1024,
            init_cwnd_segs: 4,
            min_rto: 200_000_000,
            max_rto: 60_000_000_000,
            init_rto: 1_000_000_000,
            tso: false,
            dupthresh: 3,
            smc: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    SynSent,
    SynRcvd,
    Established,
    Closed,
}

/// A segment to send (addresses are filled in by the host).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seg {
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub wnd: u32,
    pub len: u32,
    /// A retransmission (for counters).
    pub rexmit: bool,
}

/// What an input segment did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InputResult {
    /// In-order payload bytes newly delivered to the application.
    pub delivered: u32,
    /// The segment carried data beyond rcv_nxt (out of order).
    pub ooo: bool,
    /// The segment filled (part of) a hole: ACK at once.
    pub filled_hole: bool,
    /// The segment was an old duplicate: ACK at once.
    pub dup_data: bool,
    /// New bytes acknowledged of what we sent.
    pub acked: u32,
    /// This was a duplicate ACK.
    pub dupack: bool,
    /// The connection just became established.
    pub established: bool,
    /// The peer closed (FIN received in order).
    pub peer_fin: bool,
    /// The segment carried payload.
    pub had_data: bool,
}

/// Connection counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    pub segs_out: u64,
    pub rexmits: u64,
    pub fast_rexmits: u64,
    pub timeouts: u64,
    pub dupacks_in: u64,
    pub ooo_in: u64,
    pub acks_out: u64,
}

/// TCP control block.
#[derive(Clone, Debug)]
pub struct Tcb {
    pub cfg: TcpCfg,
    pub state: State,
    // send side
    pub snd_una: u32,
    pub snd_nxt: u32,
    pub snd_max: u32,
    /// End of the data the application has written (sequence space).
    pub snd_lim: u32,
    pub fin_queued: bool,
    pub fin_sent: bool,
    /// The peer's FIN has arrived (in order).
    pub fin_rcvd: bool,
    /// Congestion window (bytes); grows by bytes acknowledged.
    pub cwnd: u32,
    pub ssthresh: u32,
    pub peer_wnd: u32,
    pub dupacks: u32,
    /// NewReno's `recover` (RFC 6582): snd_max when recovery (fast
    /// retransmit or timeout) began. Three duplicate ACKs start a new fast
    /// retransmit only once the cumulative ACK has passed it, so losses of
    /// one window cause one window reduction.
    pub recover: u32,
    pub in_recovery: bool,
    /// Congestion window validation (RFC 7661 idea): the last output stopped
    /// because the congestion window was full (not the peer's window, not a
    /// lack of data). Only then do ACKs open the window further.
    cwnd_limited: bool,
    /// When the last retransmission of the recovery went out: a partial ACK
    /// arriving sooner than one minimum round trip later cannot be the
    /// answer to it (the original arrived late, reordered).
    last_rexmit_at: Ns,
    /// Smallest RTT sample seen (path round trip without queueing).
    min_rtt: Option<Ns>,
    /// A fast retransmit went out and no ACK has answered it yet.
    fr_unanswered: bool,
    pub rto: Ns,
    srtt: Option<Ns>,
    rttvar: Ns,
    rtt_probe: Option<(u32, Ns)>,
    pub rto_at: Option<Ns>,
    pub backoff: u32,
    // receive side
    pub rcv_nxt: u32,
    ooo: Vec<(u32, u32)>,
    pub ooo_bytes: u32,
    pub unacked_segs: u32,
    pub ack_pending: bool,
    pub delack_at: Option<Ns>,
    /// Do not send new data from `input`: the host calls `output` once per
    /// processed batch instead (z/OS batch processing).
    pub defer_output: bool,
    pub stats: TcpStats,
}

impl Tcb {
    fn new(cfg: TcpCfg, iss: u32, state: State) -> Tcb {
        Tcb {
            cfg,
            state,
            snd_una: iss,
            snd_nxt: iss.wrapping_add(1),
            snd_max: iss.wrapping_add(1),
            snd_lim: iss.wrapping_add(1),
            fin_queued: false,
            fin_sent: false,
            fin_rcvd: false,
            cwnd: cfg.init_cwnd_segs.max(1) * cfg.mss,
            ssthresh: u32::MAX / 2,
            peer_wnd: cfg.mss * 4,
            dupacks: 0,
            recover: iss,
            in_recovery: false,
            cwnd_limited: false,
            last_rexmit_at: 0,
            min_rtt: None,
            fr_unanswered: false,
            rto: cfg.init_rto,
            srtt: None,
            rttvar: 0,
            rtt_probe: None,
            rto_at: None,
            backoff: 0,
            rcv_nxt: 0,
            ooo: Vec::new(),
            ooo_bytes: 0,
            unacked_segs: 0,
            ack_pending: false,
            delack_at: None,
            defer_output: false,
            stats: TcpStats::default(),
        }
    }

    /// Active open: returns the control block and the SYN to send.
    pub fn connect(cfg: TcpCfg, iss: u32, now: Ns) -> (Tcb, Seg) {
        let mut t = Tcb::new(cfg, iss, State::SynSent);
        t.rto_at = Some(now + t.rto);
        let s = Seg {
            seq: iss,
            ack: 0,
            flags: SYN,
            wnd: cfg.rcvbuf,
            len: 0,
            rexmit: false,
        };
        t.stats.segs_out += 1;
        (t, s)
    }

    /// Passive open on a received SYN: returns the block and the SYN-ACK.
    pub fn accept(cfg: TcpCfg, iss: u32, syn_seq: u32, peer_wnd: u32, now: Ns) -> (Tcb, Seg) {
        let mut t = Tcb::new(cfg, iss, State::SynRcvd);
        t.rcv_nxt = syn_seq.wrapping_add(1);
        t.peer_wnd = peer_wnd;
        t.rto_at = Some(now + t.rto);
        t.stats.segs_out += 1;
        let s = t.syn_ack();
        (t, s)
    }

    fn syn_ack(&self) -> Seg {
        Seg {
            seq: self.snd_una,
            ack: self.rcv_nxt,
            flags: SYN | ACK,
            wnd: self.adv_wnd(),
            len: 0,
            rexmit: false,
        }
    }

    /// Receive window we advertise. Applications read in-order data at once
    /// and out-of-order data sits inside the window already, so the right
    /// edge never shrinks: the buffer size.
    pub fn adv_wnd(&self) -> u32 {
        self.cfg.rcvbuf
    }

    /// Bytes sent and not yet acknowledged.
    pub fn flight(&self) -> u32 {
        self.snd_nxt.wrapping_sub(self.snd_una)
    }

    /// The application wrote data that has not been sent yet.
    pub fn has_unsent(&self) -> bool {
        self.snd_lim != self.snd_nxt
    }

    /// Bytes the application may still write (send buffer space).
    pub fn send_space(&self) -> u32 {
        self.cfg
            .sndbuf
            .saturating_sub(self.snd_lim.wrapping_sub(self.snd_una))
    }

    /// The application writes `n` bytes (must fit [`Self::send_space`]; the
    /// excess is refused and the accepted count returned).
    pub fn write(&mut self, n: u32) -> u32 {
        let n = n.min(self.send_space());
        self.snd_lim = self.snd_lim.wrapping_add(n);
        n
    }

    /// Queue a FIN after all written data.
    pub fn close(&mut self) {
        self.fin_queued = true;
    }

    /// Our FIN went out and the peer has acknowledged it (the FIN takes
    /// the sequence number after the last byte written).
    pub fn fin_acked(&self) -> bool {
        self.fin_sent && self.snd_una == self.snd_lim.wrapping_add(1)
    }

    /// A pure ACK for the current receive state.
    pub fn make_ack(&mut self) -> Seg {
        self.ack_pending = false;
        self.unacked_segs = 0;
        self.delack_at = None;
        self.stats.acks_out += 1;
        self.stats.segs_out += 1;
        Seg {
            seq: self.snd_nxt,
            ack: self.rcv_nxt,
            flags: ACK,
            wnd: self.adv_wnd(),
            len: 0,
            rexmit: false,
        }
    }

    fn data_seg(&mut self, seq: u32, len: u32, rexmit: bool) -> Seg {
        self.ack_pending = false;
        self.unacked_segs = 0;
        self.delack_at = None;
        self.stats.segs_out += 1;
        Seg {
            seq,
            ack: self.rcv_nxt,
            flags: ACK | PSH,
            wnd: self.adv_wnd(),
            len,
            rexmit,
        }
    }

    /// Send what the windows allow. Returns the number of segments added.
    pub fn output(&mut self, now: Ns, out: &mut Vec<Seg>) -> usize {
        if self.state != State::Established {
            return 0;
        }
        let mss = self.cfg.mss;
        let n0 = out.len();
        self.cwnd_limited = false;
        loop {
            let wnd = self.cwnd.min(self.peer_wnd);
            let flight = self.flight();
            let usable = wnd.saturating_sub(flight);
            let avail = self.snd_lim.wrapping_sub(self.snd_nxt);
            if avail == 0 || (self.snd_nxt != self.snd_lim && seq_lt(self.snd_lim, self.snd_nxt)) {
                break;
            }
            let max_seg = if self.cfg.tso {
                TSO_MAX / mss * mss
            } else {
                mss
            };
            let mut len = avail.min(max_seg).min(usable);
            if len == 0 || (len < mss && len < avail) {
                // Window too small for a full segment and more data waits.
                if len < avail.min(mss) {
                    self.cwnd_limited = self.cwnd < self.peer_wnd;
                    break;
                }
            }
            if self.cfg.tso && len > mss && len < avail {
                len = len / mss * mss;
            }
            let seq = self.snd_nxt;
            let rexmit = seq_lt(seq, self.snd_max);
            let s = self.data_seg(seq, len, rexmit);
            if rexmit {
                self.stats.rexmits += 1;
            } else if self.rtt_probe.is_none() {
                self.rtt_probe = Some((seq.wrapping_add(len), now));
            }
            out.push(s);
            self.snd_nxt = self.snd_nxt.wrapping_add(len);
            if seq_lt(self.snd_max, self.snd_nxt) {
                self.snd_max = self.snd_nxt;
            }
            if self.rto_at.is_none() {
                self.rto_at = Some(now + self.rto);
            }
        }
        if self.fin_queued && !self.fin_sent && self.snd_nxt == self.snd_lim {
            self.fin_sent = true;
            // the FIN carries the acknowledgment of all received
            self.ack_pending = false;
            self.unacked_segs = 0;
            self.delack_at = None;
            let s = Seg {
                seq: self.snd_nxt,
                ack: self.rcv_nxt,
                flags: FIN | ACK,
                wnd: self.adv_wnd(),
                len: 0,
                rexmit: false,
            };
            self.stats.segs_out += 1;
            out.push(s);
            // an unacknowledged FIN is retransmitted like data
            if self.rto_at.is_none() {
                self.rto_at = Some(now + self.rto);
            }
        }
        out.len() - n0
    }

    fn retransmit_una(&mut self, now: Ns, out: &mut Vec<Seg>) {
        let len = self.snd_max.wrapping_sub(self.snd_una).min(self.cfg.mss);
        if len == 0 {
            return;
        }
        self.last_rexmit_at = now;
        self.stats.rexmits += 1;
        self.rtt_probe = None;
        let s = self.data_seg(self.snd_una, len, true);
        out.push(s);
    }

    /// Fast recovery is over: the window stays at the reduced `ssthresh`.
    fn end_recovery(&mut self) {
        self.in_recovery = false;
        self.fr_unanswered = false;
        self.cwnd = self.ssthresh.max(self.cfg.mss);
    }

    fn rtt_sample(&mut self, rtt: Ns) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = rtt / 2;
            }
            Some(s) => {
                let d = s.abs_diff(rtt);
                self.rttvar = (3 * self.rttvar + d) / 4;
                self.srtt = Some((7 * s + rtt) / 8);
            }
        }
        let s = self.srtt.unwrap_or(rtt);
        self.rto = (s + 4 * self.rttvar).clamp(self.cfg.min_rto, self.cfg.max_rto);
    }

    /// Process one received segment (its header fields, as on the wire). Segments to send at once (handshake
    /// replies, fast retransmissions, new data opened by the ACK) go to `out`.
    #[allow(clippy::too_many_arguments)] // the TCP header fields, kept apart on purpose
    pub fn input(
        &mut self,
        now: Ns,
        seq: u32,
        ack: u32,
        flags: u8,
        wnd: u32,
        len: u32,
        out: &mut Vec<Seg>,
    ) -> InputResult {
        let mut r = InputResult {
            had_data: len > 0,
            ..Default::default()
        };
        let mss = self.cfg.mss;
        match self.state {
            State::Closed => return r,
            State::SynSent => {
                if flags & SYN != 0 && flags & ACK != 0 && ack == self.snd_nxt {
                    self.rcv_nxt = seq.wrapping_add(1);
                    self.snd_una = ack;
                    self.peer_wnd = wnd;
                    self.state = State::Established;
                    self.rto_at = None;
                    self.backoff = 0;
                    self.ack_pending = true;
                    r.established = true;
                }
                return r;
            }
            State::SynRcvd => {
                if flags & SYN != 0 {
                    // retransmitted SYN: answer again
                    out.push(self.syn_ack());
                    return r;
                }
                if flags & ACK != 0 && ack == self.snd_nxt {
                    self.snd_una = ack;
                    self.state = State::Established;
                    self.rto_at = None;
                    self.backoff = 0;
                    r.established = true;
                } else {
                    return r;
                }
            }
            State::Established => {}
        }
        // ---- ACK processing (sender side)
        if flags & ACK != 0 {
            if seq_lt(self.snd_una, ack) && seq_le(ack, self.snd_max.wrapping_add(1)) {
                let acked = ack.wrapping_sub(self.snd_una);
                r.acked = acked;
                self.snd_una = ack;
                if seq_lt(self.snd_nxt, self.snd_una) {
                    self.snd_nxt = self.snd_una;
                }
                if let Some((pseq, t)) = self.rtt_probe {
                    if seq_le(pseq, ack) {
                        self.rtt_sample(now.saturating_sub(t));
                        self.rtt_probe = None;
                    }
                }
                self.backoff = 0;
                // Grow only a window the sender fills (RFC 7661).
                let cwnd_limited = self.cwnd_limited;
                // Never count the window beyond what the peer lets us send.
                let cap = self.cwnd.max(self.peer_wnd.max(wnd));
                if self.in_recovery {
                    let too_soon = self
                        .min_rtt
                        .is_some_and(|m| now.saturating_sub(self.last_rexmit_at) < m);
                    if seq_le(self.recover, ack) {
                        self.end_recovery();
                    } else if too_soon && self.fr_unanswered {
                        // The hole filled sooner than our retransmission
                        // could have reached the receiver and been
                        // acknowledged: the original was reordered, not
                        // lost. Retransmitting on every following partial
                        // ACK would resend a window of segments already in
                        // flight, so recovery ends here, at the reduced
                        // window (no undo: a 2010 z/OS stack has no
                        // spurious retransmission response, RFC 4015).
                        self.end_recovery();
                        self.recover = ack;
                    } else {
                        // partial ACK: the next hole is lost; retransmit it
                        // once, deflate
                        self.fr_unanswered = false;
                        self.retransmit_una(now, out);
                        self.cwnd = self.cwnd.saturating_sub(acked).saturating_add(mss);
                    }
                } else if !cwnd_limited {
                    // application- or peer-window-limited: keep cwnd
                } else if self.cwnd < self.ssthresh {
                    // Byte counting: stretch ACKs (one per batch) open the
                    // window as much as the data they cover.
                    self.cwnd = self.cwnd.saturating_add(acked).min(cap);
                } else {
                    let inc =
                        (u64::from(mss) * u64::from(acked) / u64::from(self.cwnd.max(1))) as u32;
                    self.cwnd = self.cwnd.saturating_add(inc.max(1)).min(cap);
                }
                self.dupacks = 0;
                // nothing left to acknowledge: all data, and the FIN if sent
                let idle = if self.fin_sent {
                    self.fin_acked()
                } else {
                    self.snd_una == self.snd_max
                };
                self.rto_at = if idle { None } else { Some(now + self.rto) };
            } else if ack == self.snd_una
                && len == 0
                && flags & (SYN | FIN) == 0
                && self.snd_max != self.snd_una
                && wnd == self.peer_wnd
            {
                r.dupack = true;
                self.stats.dupacks_in += 1;
                self.dupacks += 1;
                let thresh = self.cfg.dupthresh.max(1);
                if self.dupacks == thresh && !self.in_recovery && seq_le(self.recover, ack) {
                    let flight = self.snd_max.wrapping_sub(self.snd_una);
                    self.fr_unanswered = true;
                    self.ssthresh = (flight / 2).max(2 * mss);
                    self.stats.fast_rexmits += 1;
                    self.retransmit_una(now, out);
                    self.cwnd = self.ssthresh.saturating_add(thresh.saturating_mul(mss));
                    self.in_recovery = true;
                    self.recover = self.snd_max;
                } else if self.dupacks > thresh && self.in_recovery {
                    self.cwnd = self.cwnd.saturating_add(mss);
                }
            }
            self.peer_wnd = wnd;
        }
        // ---- data (receiver side)
        if len > 0 {
            let end = seq.wrapping_add(len);
            if seq == self.rcv_nxt {
                self.rcv_nxt = end;
                r.delivered += len;
                if !self.ooo.is_empty() {
                    r.filled_hole = true;
                    let mut i = 0;
                    while i < self.ooo.len() {
                        let (s, e) = self.ooo[i];
                        if seq_le(s, self.rcv_nxt) {
                            if seq_lt(self.rcv_nxt, e) {
                                r.delivered += e.wrapping_sub(self.rcv_nxt);
                                self.rcv_nxt = e;
                            }
                            self.ooo.remove(i);
                        } else {
                            i += 1;
                        }
                    }
                    self.ooo_bytes = self.ooo.iter().map(|(s, e)| e.wrapping_sub(*s)).sum();
                }
                self.unacked_segs += 1;
                self.ack_pending = true;
            } else if seq_lt(self.rcv_nxt, seq) {
                r.ooo = true;
                self.stats.ooo_in += 1;
                self.ack_pending = true;
                let room = self.cfg.rcvbuf.saturating_sub(self.ooo_bytes);
                if len <= room && !self.ooo.iter().any(|&(s, _)| s == seq) && self.ooo.len() < 4096
                {
                    let pos = self
                        .ooo
                        .iter()
                        .position(|&(s, _)| seq_lt(seq, s))
                        .unwrap_or(self.ooo.len());
                    self.ooo.insert(pos, (seq, end));
                    self.ooo_bytes += len;
                }
            } else {
                r.dup_data = true;
                self.ack_pending = true;
                if seq_lt(self.rcv_nxt, end) {
                    // overlapping: take the new part
                    r.delivered += end.wrapping_sub(self.rcv_nxt);
                    self.rcv_nxt = end;
                }
            }
        }
        if flags & FIN != 0 && seq.wrapping_add(len) == self.rcv_nxt {
            self.rcv_nxt = self.rcv_nxt.wrapping_add(1);
            self.fin_rcvd = true;
            r.peer_fin = true;
            self.ack_pending = true;
        }
        if (r.acked > 0 || r.established) && !self.defer_output {
            self.output(now, out);
        }
        r
    }

    /// The retransmission timer fired (call when `rto_at <= now`).
    pub fn on_rto(&mut self, now: Ns, out: &mut Vec<Seg>) {
        match self.rto_at {
            Some(t) if t <= now => {}
            _ => return,
        }
        self.stats.timeouts += 1;
        self.backoff = (self.backoff + 1).min(10);
        let rto = (self.rto << self.backoff).min(self.cfg.max_rto);
        self.rto_at = Some(now + rto);
        match self.state {
            State::SynSent => {
                self.stats.rexmits += 1;
                out.push(Seg {
                    seq: self.snd_una,
                    ack: 0,
                    flags: SYN,
                    wnd: self.cfg.rcvbuf,
                    len: 0,
                    rexmit: true,
                });
            }
            State::SynRcvd => {
                self.stats.rexmits += 1;
                out.push(self.syn_ack());
            }
            State::Established => {
                let flight = self.snd_max.wrapping_sub(self.snd_una);
                if flight == 0 && !(self.fin_sent && self.snd_max == self.snd_una) {
                    self.rto_at = None;
                    return;
                }
                self.ssthresh = (flight / 2).max(2 * self.cfg.mss);
                self.cwnd = self.cfg.mss;
                self.in_recovery = false;
                self.fr_unanswered = false;
                // losses of the window sent so far end with this timeout
                self.recover = self.snd_max;
                self.dupacks = 0;
                self.snd_nxt = self.snd_una;
                self.rtt_probe = None;
                if self.fin_sent && self.snd_max == self.snd_una {
                    self.fin_sent = false;
                }
                self.output(now, out);
            }
            State::Closed => self.rto_at = None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(cfg: TcpCfg) -> (Tcb, Tcb) {
        let (mut c, syn) = Tcb::connect(cfg, 1000, 0);
        let mut out = Vec::new();
        let (mut s, sa) = Tcb::accept(cfg, 5000, syn.seq, syn.wnd, 0);
        let r = c.input(0, sa.seq, sa.ack, sa.flags, sa.wnd, 0, &mut out);
        assert!(r.established);
        let a = c.make_ack();
        let r = s.input(0, a.seq, a.ack, a.flags, a.wnd, 0, &mut out);
        assert!(r.established);
        (c, s)
    }

    /// Deliver all of `segs` from `from` to `to`, returning what `to` emits
    /// (ACKing every segment).
    fn deliver(to: &mut Tcb, segs: &[Seg], now: Ns) -> (Vec<Seg>, InputResult) {
        let mut out = Vec::new();
        let mut last = InputResult::default();
        for s in segs {
            last = to.input(now, s.seq, s.ack, s.flags, s.wnd, s.len, &mut out);
            if s.len > 0 {
                out.push(to.make_ack());
            }
        }
        (out, last)
    }

    #[test]
    fn bulk_transfer_completes_in_order_and_cwnd_grows() {
        let cfg = TcpCfg {
            sndbuf: 2 << 20,
            ..TcpCfg::default()
        };
        let (mut c, mut s) = pair(cfg);
        s.write(1_000_000);
        let mut out = Vec::new();
        s.output(0, &mut out);
        assert_eq!(out.len(), 4, "initial window of 4 segments");
        let mut got = 0u64;
        let mut t = 0;
        while !out.is_empty() && t < 10_000 {
            t += 1;
            let (acks, r) = deliver(&mut c, &out, t);
            got += u64::from(r.delivered);
            let _ = r;
            let mut next = Vec::new();
            for a in acks {
                s.input(t, a.seq, a.ack, a.flags, a.wnd, a.len, &mut next);
            }
            out = next;
        }
        assert_eq!(c.rcv_nxt.wrapping_sub(5001), 1_000_000);
        assert!(got > 0);
        assert!(s.cwnd > 100 * cfg.mss, "slow start opened the window");
        assert_eq!(s.stats.rexmits, 0);
    }

    #[test]
    fn three_dupacks_trigger_fast_retransmit_and_halve() {
        let cfg = TcpCfg {
            init_cwnd_segs: 10,
            ..TcpCfg::default()
        };
        let (mut c, mut s) = pair(cfg);
        s.write(100_000);
        let mut out = Vec::new();
        s.output(0, &mut out);
        assert_eq!(out.len(), 10);
        // segment 0 lost; 1..5 arrive out of order => 5 dup ACKs
        let mut acks = Vec::new();
        for seg in &out[1..6] {
            let r = c.input(1, seg.seq, seg.ack, seg.flags, seg.wnd, seg.len, &mut acks);
            assert!(r.ooo);
            acks.push(c.make_ack());
        }
        let flight = s.flight();
        let mut re = Vec::new();
        for (i, a) in acks.iter().enumerate() {
            let r = s.input(2, a.seq, a.ack, a.flags, a.wnd, a.len, &mut re);
            assert!(r.dupack);
            if i == 2 {
                assert_eq!(s.stats.fast_rexmits, 1);
                assert_eq!(re[0].seq, out[0].seq, "retransmits the hole");
            }
        }
        assert_eq!(s.ssthresh, flight / 2);
        // hole filled: receiver delivers everything held
        let r = c.input(
            3,
            re[0].seq,
            re[0].ack,
            re[0].flags,
            re[0].wnd,
            re[0].len,
            &mut acks,
        );
        assert!(r.filled_hole);
        assert_eq!(r.delivered, 6 * cfg.mss);
    }

    #[test]
    fn timeout_backs_off_and_resends_from_una() {
        let (_c, mut s) = pair(TcpCfg::default());
        s.write(10_000);
        let mut out = Vec::new();
        s.output(0, &mut out);
        let first = s.rto_at.unwrap();
        let mut re = Vec::new();
        s.on_rto(first, &mut re);
        assert_eq!(re.len(), 1);
        assert_eq!(re[0].seq, out[0].seq);
        assert_eq!(s.cwnd, s.cfg.mss);
        let second = s.rto_at.unwrap() - first;
        re.clear();
        s.on_rto(s.rto_at.unwrap(), &mut re);
        let third = s.rto_at.unwrap() - first - second;
        assert!(third > second, "exponential backoff");
        assert_eq!(s.stats.timeouts, 2);
    }

    #[test]
    fn window_limits_flight_and_tso_builds_large_sends() {
        let cfg = TcpCfg {
            tso: true,
            init_cwnd_segs: 100,
            sndbuf: 1 << 20,
            ..TcpCfg::default()
        };
        let (_c, mut s) = pair(cfg);
        s.peer_wnd = 20 * cfg.mss;
        s.write(1 << 20);
        let mut out = Vec::new();
        s.output(0, &mut out);
        let total: u32 = out.iter().map(|x| x.len).sum();
        assert_eq!(total, 20 * cfg.mss);
        assert!(out[0].len > cfg.mss && out[0].len <= TSO_MAX);
    }

    #[test]
    fn fin_closes_after_data() {
        let (mut c, mut s) = pair(TcpCfg::default());
        s.write(100);
        s.close();
        let mut out = Vec::new();
        s.output(0, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].flags & FIN, FIN);
        let mut o2 = Vec::new();
        c.input(
            1,
            out[0].seq,
            out[0].ack,
            out[0].flags,
            out[0].wnd,
            out[0].len,
            &mut o2,
        );
        let r = c.input(
            1,
            out[1].seq,
            out[1].ack,
            out[1].flags,
            out[1].wnd,
            0,
            &mut o2,
        );
        assert!(r.peer_fin);
    }

    #[test]
    fn a_lost_fin_is_sent_again_until_acknowledged() {
        let (mut c, mut s) = pair(TcpCfg::default());
        s.write(100);
        let mut out = Vec::new();
        s.output(0, &mut out);
        let (acks, _) = deliver(&mut c, &out, 1);
        let mut o = Vec::new();
        for a in &acks {
            s.input(2, a.seq, a.ack, a.flags, a.wnd, a.len, &mut o);
        }
        // all data acknowledged; the FIN goes out and is lost
        s.close();
        let mut fin = Vec::new();
        s.output(3, &mut fin);
        assert_eq!(fin.len(), 1);
        assert_eq!(fin[0].flags & FIN, FIN);
        assert!(!s.fin_acked());
        let due = s.rto_at.expect("an unacknowledged FIN keeps the timer");
        let mut again = Vec::new();
        s.on_rto(due, &mut again);
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].flags & FIN, FIN);
        assert_eq!(again[0].seq, fin[0].seq);
        // the peer acknowledges it: the timer stops for good
        let r = c.input(
            due + 1,
            again[0].seq,
            again[0].ack,
            again[0].flags,
            again[0].wnd,
            0,
            &mut o,
        );
        assert!(r.peer_fin);
        let a = c.make_ack();
        assert_eq!(a.ack, fin[0].seq.wrapping_add(1));
        s.input(due + 2, a.seq, a.ack, a.flags, a.wnd, 0, &mut o);
        assert!(s.fin_acked());
        assert_eq!(s.rto_at, None);
    }

    #[test]
    fn cwnd_stays_within_what_the_peer_window_lets_us_use() {
        // 64 KB peer window, plenty of data: the window, not cwnd, limits
        // the sender, so cwnd must not keep growing (RFC 7661).
        let cfg = TcpCfg {
            sndbuf: 4 << 20,
            rcvbuf: 64 * 1024,
            ..TcpCfg::default()
        };
        let (mut c, mut s) = pair(cfg);
        s.write(3_000_000);
        let mut out = Vec::new();
        s.output(0, &mut out);
        let mut t = 0;
        while !out.is_empty() && t < 100_000 {
            t += 1;
            let (acks, _) = deliver(&mut c, &out, t);
            let mut next = Vec::new();
            for a in acks {
                s.input(t, a.seq, a.ack, a.flags, a.wnd, a.len, &mut next);
            }
            out = next;
        }
        assert_eq!(c.rcv_nxt.wrapping_sub(5001), 3_000_000);
        assert!(s.cwnd >= 32 * 1024, "slow start still opened the window");
        assert!(
            s.cwnd <= 64 * 1024 + cfg.mss,
            "cwnd {} grew past the 64 KB window it never filled",
            s.cwnd
        );
    }

    #[test]
    fn application_limited_sender_keeps_its_window() {
        let (mut c, mut s) = pair(TcpCfg::default());
        let cwnd0 = s.cwnd;
        for t in 1..200u64 {
            // one small message per round trip: never fills cwnd
            s.write(100);
            let mut out = Vec::new();
            s.output(t, &mut out);
            let (acks, _) = deliver(&mut c, &out, t);
            let mut o = Vec::new();
            for a in acks {
                feed(&mut s, t, &a, &mut o);
            }
        }
        assert_eq!(s.cwnd, cwnd0);
    }

    /// Hand segment `g` to `t` at `now`, collecting what it sends.
    fn feed(t: &mut Tcb, now: u64, g: &Seg, out: &mut Vec<Seg>) {
        t.input(now, g.seq, g.ack, g.flags, g.wnd, g.len, out);
    }

    /// [`ten_out_first_missing`] with a 10-segment initial window, after
    /// the three duplicate ACKs: the sender has fast-retransmitted the
    /// first segment (returned last) and is in recovery.
    fn in_fast_recovery() -> (Tcb, Tcb, Vec<Seg>, Vec<Seg>) {
        let cfg = TcpCfg {
            init_cwnd_segs: 10,
            ..TcpCfg::default()
        };
        let (c, mut s, out, dup) = ten_out_first_missing(cfg);
        let mut re = Vec::new();
        for a in &dup {
            feed(&mut s, 2000, a, &mut re);
        }
        (c, s, out, re)
    }

    /// Sender with 10 segments out (RTT sampled at 1000 ns) whose first
    /// segment the receiver has not got; returns the segments and the
    /// three duplicate ACKs 1..3 produced.
    fn ten_out_first_missing(cfg: TcpCfg) -> (Tcb, Tcb, Vec<Seg>, Vec<Seg>) {
        let (mut c, mut s) = pair(cfg);
        // one round trip first, so the sender knows the path RTT
        s.write(1000);
        let mut out = Vec::new();
        s.output(0, &mut out);
        let (acks, _) = deliver(&mut c, &out, 500);
        let mut o = Vec::new();
        for a in acks {
            feed(&mut s, 1000, &a, &mut o);
        }
        s.write(100_000);
        let mut out = Vec::new();
        s.output(1000, &mut out);
        assert_eq!(out.len(), 10);
        let mut dup = Vec::new();
        for seg in &out[1..4] {
            feed(&mut c, 1500, seg, &mut dup);
            dup.push(c.make_ack());
        }
        (c, s, out, dup)
    }

    #[test]
    fn reordered_segment_ends_recovery_without_a_retransmission_storm() {
        let (mut c, mut s, out, _) = in_fast_recovery();
        assert_eq!(s.stats.fast_rexmits, 1);
        assert!(s.in_recovery);
        let rex0 = s.stats.rexmits;
        // the "lost" segment was only late: it and the rest arrive now,
        // well within one round trip of the retransmission
        let mut acks = Vec::new();
        for seg in out[0..1].iter().chain(&out[4..]) {
            feed(&mut c, 2100, seg, &mut acks);
            acks.push(c.make_ack());
        }
        let mut o = Vec::new();
        let first = acks[0];
        feed(&mut s, 2200, &first, &mut o);
        assert!(
            !s.in_recovery,
            "partial ACK too early for the retransmission"
        );
        assert_eq!(s.cwnd, s.ssthresh, "the reduced window stays");
        for a in &acks[1..] {
            feed(&mut s, 2200, a, &mut o);
        }
        assert_eq!(s.stats.rexmits, rex0, "no retransmission per ACK");
    }

    #[test]
    fn partial_ack_after_a_round_trip_retransmits_the_next_hole_once() {
        let (mut c, mut s, out, re) = in_fast_recovery();
        // segments 0 and 5 were really lost: 4, 6.. arrive; then the
        // retransmission of 0 fills the first hole a round trip later
        let mut acks = Vec::new();
        for seg in out[4..5].iter().chain(&out[6..]) {
            feed(&mut c, 2100, seg, &mut acks);
        }
        feed(&mut c, 2600, &re[0], &mut acks);
        let partial = c.make_ack();
        assert_eq!(partial.ack, out[5].seq);
        let rex0 = s.stats.rexmits;
        let mut o = Vec::new();
        feed(&mut s, 3100, &partial, &mut o);
        assert!(s.in_recovery);
        assert_eq!(s.stats.rexmits, rex0 + 1);
        assert_eq!(o[0].seq, out[5].seq, "the next hole");
        // further duplicates of that partial ACK retransmit nothing more
        for _ in 0..5 {
            let d = c.make_ack();
            feed(&mut s, 3200, &d, &mut o);
        }
        assert_eq!(s.stats.rexmits, rex0 + 1);
        assert_eq!(
            s.stats.fast_rexmits, 1,
            "no second fast retransmit inside recovery"
        );
    }

    #[test]
    fn dupacks_for_a_window_already_recovered_by_timeout_do_not_refire() {
        let cfg = TcpCfg {
            init_cwnd_segs: 10,
            ..TcpCfg::default()
        };
        let (_c, mut s, _out, dup) = ten_out_first_missing(cfg);
        let at = s.rto_at.unwrap_or(0);
        let mut re = Vec::new();
        s.on_rto(at, &mut re);
        assert_eq!(s.recover, s.snd_max);
        for a in &dup {
            feed(&mut s, at + 1, a, &mut re);
        }
        assert_eq!(s.stats.fast_rexmits, 0, "losses of the timed-out window");
    }
}
