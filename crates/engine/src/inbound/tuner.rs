//! The INBPERF DYNAMIC tuner (layer: engine, inbound; spec 02 §2.2, §2.4).
//!
//! One per input queue. The host side watches arrivals and retunes the
//! adapter's LAN-idle timers. Our algorithm (peer: Linux `lib/dim`):
//! per epoch, the share of frames that carry data of connections the stack
//! sees streaming (a stream's pure ACKs do not count) picks an aim on a ladder of timer pairs (no streaming: bottom
//! rung, lowest latency; streaming above a share: top rung = BALANCED, least
//! CPU; in between: proportional). So a mix on one queue leans toward saving
//! CPU and the interactive flows pay for the stream — the dilemma IWQ solves.
//! The tuner moves one rung per epoch and only after its aim held for a
//! number of epochs, so steady traffic cannot make it oscillate.

use crate::config::{TimerPair, TimerTable, TunerConfig};
use crate::time::Instant;
use core::time::Duration;

/// Share of streaming data frames from which a queue counts as carrying a
/// stream with little else (the top rung, BALANCED's values): one RR
/// connection beside a stream is this; thirty busy ones are a mix.
const PURE_STREAMING: f64 = 0.9;

#[derive(Clone, Debug)]
pub struct Tuner {
    cfg: TunerConfig,
    ladder: Vec<TimerPair>,
    level: usize,
    epoch_start: Instant,
    frames: u64,
    stream_frames: u64,
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
    /// A tuner starting at the top rung (BALANCED values) at `now`.
    pub fn new(cfg: TunerConfig, timers: &TimerTable, now: Instant) -> Self {
        let n = usize::from(cfg.levels.max(2));
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
            level: n - 1,
            aim: n - 1,
            aim_streak: 0,
            streaming_seen: false,
            ladder,
            epoch_start: now,
            frames: 0,
            stream_frames: 0,
        }
    }

    /// Current timer values.
    pub fn timers(&self) -> TimerPair {
        self.ladder[self.level]
    }

    /// Current rung (0 = most aggressive).
    pub fn level(&self) -> usize {
        self.level
    }

    /// Whether the last epoch with traffic carried a stream (at least the
    /// configured streaming share): the host backs OLM off then.
    pub fn sees_streaming(&self) -> bool {
        self.streaming_seen
    }

    pub fn ladder(&self) -> &[TimerPair] {
        &self.ladder
    }

    /// Record one arriving frame; `streaming` says whether the stack sees its
    /// connection streaming. Returns new timer values when the tuner moved.
    pub fn on_frame(&mut self, now: Instant, streaming: bool) -> Option<TimerPair> {
        self.on_frames(now, streaming, 1)
    }

    /// As [`Tuner::on_frame`] for a frame standing for `units` wire frames
    /// (a segmentation-offload aggregate counts as the frames it carries).
    pub fn on_frames(&mut self, now: Instant, streaming: bool, units: u32) -> Option<TimerPair> {
        let moved = self.close_epochs(now);
        let units = u64::from(units.max(1));
        self.frames += units;
        if streaming {
            self.stream_frames += units;
        }
        moved
    }

    fn close_epochs(&mut self, now: Instant) -> Option<TimerPair> {
        if now.saturating_duration_since(self.epoch_start) < self.cfg.epoch {
            return None;
        }
        let before = self.level;
        if self.frames > 0 {
            let share = self.stream_frames as f64 / self.frames as f64;
            self.streaming_seen = share >= self.cfg.streaming_share;
            let top = self.ladder.len() - 1;
            let aim = if share >= PURE_STREAMING {
                top
            } else if share >= self.cfg.streaming_share {
                // A mix leans toward saving CPU, one rung short of a pure stream.
                top - 1
            } else if self.stream_frames == 0 {
                0
            } else {
                // Proportional below that, rounded up: lean toward CPU.
                let f = share / self.cfg.streaming_share;
                ((f * (top - 1) as f64).ceil() as usize).min(top - 1)
            };
            if aim == self.aim {
                self.aim_streak = self.aim_streak.saturating_add(1);
            } else {
                self.aim = aim;
                self.aim_streak = 1;
            }
            if self.aim_streak >= self.cfg.hysteresis_epochs.max(1) && aim != self.level {
                if aim > self.level {
                    self.level += 1;
                } else {
                    self.level -= 1;
                }
            }
        }
        // An idle stretch restarts the epoch at now (no retune while idle).
        self.epoch_start = now;
        self.frames = 0;
        self.stream_frames = 0;
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
            t.on_frame(Instant::from_micros(us), streaming);
            if n % 100 == 0 {
                levels.push(t.level());
            }
            n += 1;
            us += every_us;
        }
        levels
    }

    fn tuner() -> Tuner {
        Tuner::new(
            TunerConfig::default(),
            &TimerTable::default(),
            Instant::ZERO,
        )
    }

    #[test]
    fn an_offload_aggregate_weighs_as_the_frames_it_carries() {
        // 1 aggregate of 8 units per 4 interactive frames: 8/12 streaming
        // by weight (a mix), where a count by frames would say 1/5.
        let mut t = tuner();
        for (n, us) in (0..200_000u64).step_by(10).enumerate() {
            let now = Instant::from_micros(us);
            if n % 5 == 0 {
                t.on_frames(now, true, 8);
            } else {
                t.on_frame(now, false);
            }
        }
        assert_eq!(t.level(), t.ladder().len() - 2);
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
        let t = Tuner::new(TunerConfig::default(), &TimerTable::zero(), Instant::ZERO);
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
        assert_eq!(t.level(), t.ladder().len() - 2);
        // Even a small streaming share keeps timers well above the floor.
        let mut t = tuner();
        run(&mut t, 0, 100, 10, 0);
        assert_eq!(t.level(), 0);
        // 1 frame in 20 streaming (5%): half the threshold → a middle rung, not the floor.
        let mut t = tuner();
        run(&mut t, 0, 100, 10, 0);
        for (n, us) in (100_000..300_000u64).step_by(10).enumerate() {
            t.on_frame(Instant::from_micros(us), n % 20 == 0);
        }
        assert!(t.level() >= 2, "level {}", t.level());
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
