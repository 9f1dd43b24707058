//! Frame-error injection on the wire side (spec 8.1 "Fault injection"): a
//! configurable share of arriving frames is dropped as a CRC error would
//! drop it, before the engine sees it, and counted. Deterministic: a seeded
//! SplitMix64 stream decides, so a run with the same seed and the same frame
//! sequence drops the same frames.

/// A seeded frame-error injector.
#[derive(Clone, Debug)]
pub struct FaultInjector {
    state: u64,
    /// Drop when the next draw is below this (rate × 2^64).
    threshold: u64,
    /// Frames dropped as CRC errors.
    pub crc_errors: u64,
    /// Frames examined.
    pub seen: u64,
}

impl FaultInjector {
    /// `rate` in [0, 1] (clamped; NaN means 0).
    pub fn new(rate: f64, seed: u64) -> FaultInjector {
        let r = if rate.is_nan() {
            0.0
        } else {
            rate.clamp(0.0, 1.0)
        };
        let threshold = if r >= 1.0 {
            u64::MAX
        } else {
            (r * 18_446_744_073_709_551_616.0) as u64
        };
        FaultInjector {
            state: seed,
            threshold,
            crc_errors: 0,
            seen: 0,
        }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Whether this frame is lost to a (simulated) CRC error; counted.
    pub fn corrupt(&mut self) -> bool {
        self.seen += 1;
        if self.threshold == 0 {
            return false;
        }
        let hit = self.threshold == u64::MAX || self.next() < self.threshold;
        if hit {
            self.crc_errors += 1;
        }
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_rate_never_drops_and_full_rate_always_does() {
        let mut z = FaultInjector::new(0.0, 1);
        let mut a = FaultInjector::new(1.0, 1);
        for _ in 0..1000 {
            assert!(!z.corrupt());
            assert!(a.corrupt());
        }
        assert_eq!((z.crc_errors, a.crc_errors, a.seen), (0, 1000, 1000));
    }

    #[test]
    fn rate_is_met_and_seed_is_deterministic() {
        let mut f = FaultInjector::new(0.01, 42);
        let mut g = FaultInjector::new(0.01, 42);
        let mut h = FaultInjector::new(0.01, 43);
        let (mut same, mut diff) = (true, false);
        for _ in 0..100_000 {
            let (x, y, z) = (f.corrupt(), g.corrupt(), h.corrupt());
            same &= x == y;
            diff |= x != z;
        }
        assert!(same && diff);
        assert!((800..1200).contains(&f.crc_errors), "{}", f.crc_errors);
    }
}
