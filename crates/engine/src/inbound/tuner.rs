//! The INBPERF DYNAMIC tuner (layer: engine, inbound; spec 02 §2.2, §2.3, §2.4).
//!
//! One per input queue. The host side watches arrivals and retunes the
//! adapter's LAN-idle timers. Our algorithm (peer: Linux `lib/dim`): per
//! epoch, what the queue carried picks an aim on a ladder of timer pairs,
//! spaced geometrically from the DYNAMIC floor up to BALANCED:
//!
//! - no streaming: the bottom rung, lowest latency;
//! - data of streaming connections above a share: the top rung (BALANCED,
//!   least CPU); a smaller share: proportional, rounded toward saving CPU,
//!   so a mix on one queue leans toward saving CPU and the interactive
//!   flows pay for the stream — the dilemma IWQ solves;
//! - nearly nothing but the pure ACKs of streams leaving the host, arriving
//!   densely: the middle rung (half a rung higher on BULKDATA, whose tuner
//!   settles on CPU-saving values). An ACK stream is neither interactive nor
//!   a stream of data: presenting every ACK alone costs an interrupt and a
//!   write per ACK, while holding ACKs long stalls the sender's window, so
//!   a short hold that gathers the ACKs arriving close together is the
//!   compromise. Sparse ACKs (a z/OS receiver ACKs once per batch) gain
//!   nothing from a hold and count as interactive.
//!
//! The ladder has whole rungs and the half rungs between them. The tuner
//! moves at most one whole rung per epoch and only after its aim held for a
//! number of epochs, so steady traffic cannot make it oscillate.

use crate::config::{TimerPair, TimerTable, TunerConfig};
use crate::time::Instant;
use core::time::Duration;

/// Share of streaming data frames from which a queue counts as carrying a
/// stream with little else (the top rung, BALANCED's values): one RR
/// connection beside a stream is this; thirty busy ones are a mix.
const PURE_STREAMING: f64 = 0.9;

/// Share of an epoch's frames that must be a stream's pure ACKs for the
/// queue to count as carrying an ACK stream.
const ACK_STREAM_SHARE: f64 = 0.9;

/// Places on the ladder per whole rung (a whole rung, then a half rung).
const PLACES_PER_RUNG: usize = 2;

/// What the stack knows of an arriving frame, as the tuner weighs it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FrameKind {
    /// Not of a connection the stack sees streaming (interactive, control).
    Other,
    /// Data of a connection the stack sees streaming.
    StreamData,
    /// A pure ACK of a connection the stack sees streaming.
    StreamAck,
}

/// Which queue a tuner serves.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TunerRole {
    /// PRIMARY and the other queues: aggressive unless a stream is seen.
    Ordinary,
    /// BULKDATA (spec 2.3): settles on CPU-saving values.
    Bulk,
}

#[derive(Clone, Debug)]
pub struct Tuner {
    cfg: TunerConfig,
    role: TunerRole,
    /// Whole rungs at even indices, half rungs between them.
    ladder: Vec<TimerPair>,
    level: usize,
    epoch_start: Instant,
    frames: u64,
    stream_frames: u64,
    ack_frames: u64,
    aim: usize,
    aim_streak: u32,
    /// The last epoch with traffic carried streaming data above the share.
    streaming_seen: bool,
}

fn geometric(lo: Duration, hi: Duration, i: usize, n: usize) -> Duration {
    // Zero stays zero (timers switched off), and the ends are exact.
    if n < 2 || hi.is_zero() || i + 1 >= n {
        return hi;
    }
    if i == 0 {
        return lo;
    }
    let lo_ns = lo.as_nanos().max(1) as f64;
    let hi_ns = hi.as_nanos().max(1) as f64;
    let f = i as f64 / (n - 1) as f64;
    let v = lo_ns * (hi_ns / lo_ns).powf(f);
    Duration::from_nanos(v.round() as u64)
}

impl Tuner {
    /// A tuner for a queue of `role`, starting at the top rung (BALANCED
    /// values) at `now`.
    pub fn new(cfg: TunerConfig, timers: &TimerTable, now: Instant, role: TunerRole) -> Self {
        let rungs = usize::from(cfg.levels.max(2));
        let n = PLACES_PER_RUNG * (rungs - 1) + 1;
        let floor = timers.dynamic_floor;
        let top = timers.balanced;
        let ladder: Vec<TimerPair> = (0..n)
            .map(|i| TimerPair {
                gap: geometric(floor.gap, top.gap, i, n),
                block: geometric(floor.block, top.block, i, n),
            })
            .collect();
        Tuner {
            cfg,
            role,
            level: n - 1,
            aim: n - 1,
            aim_streak: 0,
            streaming_seen: false,
            ladder,
            epoch_start: now,
            frames: 0,
            stream_frames: 0,
            ack_frames: 0,
        }
    }

    /// Current timer values.
    pub fn timers(&self) -> TimerPair {
        self.ladder[self.level]
    }

    /// Current place on the ladder (0 = most aggressive; whole rungs are
    /// the even places, half rungs the odd ones).
    pub fn level(&self) -> usize {
        self.level
    }

    /// Whether the last epoch with traffic carried a stream (at least the
    /// configured streaming share): the host backs OLM off then.
    pub fn sees_streaming(&self) -> bool {
        self.streaming_seen
    }

    /// Every timer pair the tuner may pick: whole and half rungs in order.
    pub fn ladder(&self) -> &[TimerPair] {
        &self.ladder
    }

    /// Record one arriving frame of `kind`. Returns new timer values when
    /// the tuner moved.
    pub fn on_frame(&mut self, now: Instant, kind: FrameKind) -> Option<TimerPair> {
        self.on_frames(now, kind, 1)
    }

    /// As [`Tuner::on_frame`] for a frame standing for `units` wire frames
    /// (a segmentation-offload aggregate counts as the frames it carries).
    pub fn on_frames(&mut self, now: Instant, kind: FrameKind, units: u32) -> Option<TimerPair> {
        let moved = self.close_epochs(now);
        let units = u64::from(units.max(1));
        self.frames += units;
        match kind {
            FrameKind::StreamData => self.stream_frames += units,
            FrameKind::StreamAck => self.ack_frames += units,
            FrameKind::Other => {}
        }
        moved
    }

    /// The place an epoch of `elapsed` aims at, whose streaming data made
    /// up `share` of its frames.
    fn aim_for(&self, share: f64, elapsed: Duration) -> usize {
        let top = self.ladder.len() - 1;
        let rung = PLACES_PER_RUNG;
        if share >= PURE_STREAMING {
            return top;
        }
        if share >= self.cfg.streaming_share {
            // A mix leans toward saving CPU, one rung short of a pure stream.
            return top - rung;
        }
        if self.stream_frames == 0 {
            let acks = self.ack_frames as f64;
            let dense = acks >= f64::from(self.cfg.ack_stream_per_s) * elapsed.as_secs_f64();
            if dense && acks >= ACK_STREAM_SHARE * self.frames as f64 {
                let middle = top / 2;
                return match self.role {
                    TunerRole::Ordinary => middle,
                    TunerRole::Bulk => (middle + 1).min(top),
                };
            }
            return 0;
        }
        // Proportional below that, on whole rungs, rounded up: lean toward CPU.
        let whole = top / rung;
        let f = share / self.cfg.streaming_share;
        rung * ((f * (whole - 1) as f64).ceil() as usize).min(whole - 1)
    }

    fn close_epochs(&mut self, now: Instant) -> Option<TimerPair> {
        let elapsed = now.saturating_duration_since(self.epoch_start);
        if elapsed < self.cfg.epoch {
            return None;
        }
        let before = self.level;
        if self.frames > 0 {
            let share = self.stream_frames as f64 / self.frames as f64;
            self.streaming_seen = share >= self.cfg.streaming_share;
            let aim = self.aim_for(share, elapsed);
            if aim == self.aim {
                self.aim_streak = self.aim_streak.saturating_add(1);
            } else {
                self.aim = aim;
                self.aim_streak = 1;
            }
            if self.aim_streak >= self.cfg.hysteresis_epochs.max(1) && aim != self.level {
                // At most one whole rung per move.
                self.level = if aim > self.level {
                    (self.level + PLACES_PER_RUNG).min(aim)
                } else {
                    self.level.saturating_sub(PLACES_PER_RUNG).max(aim)
                };
            }
        }
        // An idle stretch restarts the epoch at now (no retune while idle).
        self.epoch_start = now;
        self.frames = 0;
        self.stream_frames = 0;
        self.ack_frames = 0;
        (self.level != before).then(|| self.timers())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(
        t: &mut Tuner,
        from_ms: u64,
        to_ms: u64,
        every_us: u64,
        stream_every: u64,
    ) -> Vec<usize> {
        let mut levels = Vec::new();
        let mut n = 0u64;
        let mut us = from_ms * 1000;
        while us < to_ms * 1000 {
            let streaming = stream_every != 0 && n % stream_every != 0;
            t.on_frame(Instant::from_micros(us), data(streaming));
            if n % 100 == 0 {
                levels.push(t.level());
            }
            n += 1;
            us += every_us;
        }
        levels
    }

    fn data(streaming: bool) -> FrameKind {
        if streaming {
            FrameKind::StreamData
        } else {
            FrameKind::Other
        }
    }

    fn tuner() -> Tuner {
        tuner_as(TunerRole::Ordinary)
    }

    /// A tuner with the default knobs and timers for a queue of `role`.
    fn tuner_as(role: TunerRole) -> Tuner {
        Tuner::new(
            TunerConfig::default(),
            &TimerTable::default(),
            Instant::ZERO,
            role,
        )
    }

    /// The place one whole rung below the top (where a mix settles).
    fn mix_place(t: &Tuner) -> usize {
        t.ladder().len() - 1 - PLACES_PER_RUNG
    }

    #[test]
    fn an_offload_aggregate_weighs_as_the_frames_it_carries() {
        // 1 aggregate of 8 units per 4 interactive frames: 8/12 streaming
        // by weight (a mix), where a count by frames would say 1/5.
        let mut t = tuner();
        for (n, us) in (0..200_000u64).step_by(10).enumerate() {
            let now = Instant::from_micros(us);
            if n % 5 == 0 {
                t.on_frames(now, FrameKind::StreamData, 8);
            } else {
                t.on_frame(now, FrameKind::Other);
            }
        }
        assert_eq!(t.level(), mix_place(&t));
    }

    #[test]
    fn ladder_spans_floor_to_balanced() {
        let t = tuner();
        let l = t.ladder();
        assert_eq!(l.first().unwrap().gap, Duration::from_micros(1));
        assert_eq!(l.last().unwrap().gap, Duration::from_micros(40));
        assert_eq!(l.last().unwrap().block, Duration::from_micros(250));
        assert!(l.windows(2).all(|w| w[0].gap < w[1].gap));
    }

    #[test]
    fn zero_timers_stay_zero_on_every_rung() {
        let t = Tuner::new(
            TunerConfig::default(),
            &TimerTable::zero(),
            Instant::ZERO,
            TunerRole::Ordinary,
        );
        assert!(t
            .ladder()
            .iter()
            .all(|p| p.gap.is_zero() && p.block.is_zero()));
    }

    #[test]
    fn pure_interactive_goes_to_the_minimum_gap() {
        let mut t = tuner();
        run(&mut t, 0, 200, 50, 0);
        assert_eq!(t.level(), 0);
        assert_eq!(t.timers().gap, Duration::from_micros(1));
    }

    #[test]
    fn pure_streaming_settles_at_balanced() {
        let mut t = tuner();
        run(&mut t, 0, 200, 10, 1_000_000);
        assert_eq!(t.timers(), TimerTable::default().balanced);
    }

    #[test]
    fn a_mix_leans_toward_saving_cpu() {
        let mut t = tuner();
        // One frame in four is interactive, the rest belong to a stream.
        run(&mut t, 0, 200, 10, 4);
        assert_eq!(t.level(), mix_place(&t));
        // Even a small streaming share keeps timers well above the floor.
        let mut t = tuner();
        run(&mut t, 0, 100, 10, 0);
        assert_eq!(t.level(), 0);
        // 1 frame in 20 streaming (5%): half the threshold → a middle rung, not the floor.
        let mut t = tuner();
        run(&mut t, 0, 100, 10, 0);
        for (n, us) in (100_000..300_000u64).step_by(10).enumerate() {
            t.on_frame(Instant::from_micros(us), data(n % 20 == 0));
        }
        assert!(t.level() >= t.ladder().len() / 2, "level {}", t.level());
    }

    /// Feeds `acks` of a stream leaving the host every `every_us`, with one
    /// interactive frame in `other_every` (0: none), for `ms` milliseconds.
    fn ack_stream(role: TunerRole, every_us: u64, other_every: u64, ms: u64) -> Tuner {
        let mut t = tuner_as(role);
        for (n, us) in (0..ms * 1000).step_by(every_us as usize).enumerate() {
            let kind = if other_every != 0 && n as u64 % other_every == 0 {
                FrameKind::Other
            } else {
                FrameKind::StreamAck
            };
            t.on_frame(Instant::from_micros(us), kind);
        }
        t
    }

    #[test]
    fn a_dense_ack_stream_settles_in_the_middle_and_bulkdata_half_a_rung_higher() {
        // 125k ACKs/s: the ACKs of a 10 GbE stream, one per two segments.
        let t = ack_stream(TunerRole::Ordinary, 8, 0, 300);
        let middle = t.ladder().len() / 2;
        assert_eq!(t.level(), middle);
        let floor = TimerTable::default().dynamic_floor;
        let balanced = TimerTable::default().balanced;
        let mid = t.timers();
        assert!(mid.gap > floor.gap && mid.gap < balanced.gap, "{mid:?}");
        assert!(mid.block > floor.block && mid.block < balanced.block);
        let b = ack_stream(TunerRole::Bulk, 8, 0, 300);
        assert_eq!(b.level(), middle + 1);
        assert!(b.timers().gap > mid.gap && b.timers().block > mid.block);
        // Still short of a mix's timers: the hold must not stall the window.
        assert!(b.level() < mix_place(&b));
    }

    #[test]
    fn sparse_acks_or_acks_among_interactive_frames_count_as_interactive() {
        // 20k ACKs/s (a z/OS receiver ACKs once per batch): a hold gathers
        // nothing, so the queue goes to the floor like interactive traffic.
        let t = ack_stream(TunerRole::Ordinary, 50, 0, 300);
        assert_eq!(t.level(), 0);
        let b = ack_stream(TunerRole::Bulk, 50, 0, 300);
        assert_eq!(b.level(), 0);
        // Dense ACKs, but one frame in four interactive: the interactive
        // flows decide.
        let t = ack_stream(TunerRole::Ordinary, 8, 4, 300);
        assert_eq!(t.level(), 0);
    }

    #[test]
    fn an_ack_stream_moves_one_whole_rung_per_move() {
        // From the top (BALANCED) to the middle is two whole rungs: after
        // the hysteresis the first move goes one rung, never straight there.
        let t = ack_stream(TunerRole::Ordinary, 8, 0, 25);
        let top = t.ladder().len() - 1;
        assert_eq!(t.level(), top - 2);
    }

    #[test]
    fn retunes_at_a_bounded_rate_and_never_oscillates_when_steady() {
        let mut t = tuner();
        // From the top, reaching the floor takes at least (levels-1) moves,
        // each needing `hysteresis_epochs` epochs of 10 ms.
        run(&mut t, 0, 50, 20, 0);
        assert!(t.level() > 0, "moved too fast");
        let levels = run(&mut t, 50, 400, 20, 0);
        // Once settled, the level never changes again.
        let settled = levels.iter().position(|l| *l == 0).unwrap();
        assert!(levels[settled..].iter().all(|l| *l == 0));
        // A steady mix: one move to settle (samples are 1 ms apart), then none.
        let mut t = tuner();
        let levels = run(&mut t, 0, 500, 10, 3);
        let changes = levels.windows(2).filter(|w| w[0] != w[1]).count();
        assert!(changes <= 1, "{changes} moves");
        assert!(levels[50..].windows(2).all(|w| w[0] == w[1]));
    }
}
