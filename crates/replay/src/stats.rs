//! Bounded statistics for the replay reports (layer: replay driver; spec 08
//! §8.2 "added latency per queue"): a log-linear histogram of hold delays
//! and a time-binned series whose bin width doubles when the capture runs
//! longer than its bins, so memory never depends on the capture's length.

use serde::Serialize;

/// Sub-buckets per power of two (4 bits of mantissa: ±3 % resolution).
const SUB_BITS: u32 = 4;
const SUB: usize = 1 << SUB_BITS;
/// Buckets covering every u64 value: values below SUB exactly, then SUB
/// sub-buckets for each power of two from 2^SUB_BITS to 2^63.
const BUCKETS: usize = (64 - SUB_BITS as usize + 1) * SUB;

/// Log-linear histogram of nanosecond values: fixed 8 KB, any range.
#[derive(Clone, Debug)]
pub struct Histogram {
    counts: Box<[u64; BUCKETS]>,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: Box::new([0; BUCKETS]),
            count: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }
}

fn bucket_of(v: u64) -> usize {
    if v < SUB as u64 {
        return v as usize;
    }
    let msb = 63 - v.leading_zeros(); // >= SUB_BITS
    let shift = msb - SUB_BITS;
    let mantissa = ((v >> shift) as usize) & (SUB - 1);
    ((shift as usize + 1) << SUB_BITS) + mantissa
}

/// Smallest and largest value of a bucket.
fn bucket_range(b: usize) -> (u64, u64) {
    if b < SUB {
        return (b as u64, b as u64);
    }
    let shift = (b >> SUB_BITS) as u32 - 1;
    let mantissa = (b & (SUB - 1)) as u64;
    let lo = (SUB as u64 + mantissa) << shift;
    let hi = lo.saturating_add((1u64 << shift) - 1);
    (lo, hi)
}

impl Histogram {
    pub fn record(&mut self, v: u64) {
        self.counts[bucket_of(v)] += 1;
        self.count += 1;
        self.sum += u128::from(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum as f64 / self.count as f64)
    }

    pub fn max(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max)
    }

    /// The value below which a share `q` (0..=1) of samples lie: the middle
    /// of the bucket holding that rank, kept within the smallest and largest
    /// sample (so identical samples give their exact value).
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (b, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                let (lo, hi) = bucket_range(b);
                return Some((lo + (hi - lo) / 2).clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }

    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    pub fn summary(&self) -> DelaySummary {
        DelaySummary {
            samples: self.count,
            mean_us: self.mean().map(|m| m / 1000.0),
            p50_us: self.quantile(0.50).map(|v| v as f64 / 1000.0),
            p99_us: self.quantile(0.99).map(|v| v as f64 / 1000.0),
            max_us: self.max().map(|v| v as f64 / 1000.0),
        }
    }
}

/// What a report prints of a histogram (microseconds).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct DelaySummary {
    pub samples: u64,
    pub mean_us: Option<f64>,
    pub p50_us: Option<f64>,
    pub p99_us: Option<f64>,
    pub max_us: Option<f64>,
}

/// Counts per time bin; when time passes the last bin, neighbouring bins
/// merge and the width doubles (fixed number of bins).
#[derive(Clone, Debug, Serialize)]
pub struct TimeSeries {
    pub bin_ns: u64,
    pub bins: Vec<u64>,
}

impl TimeSeries {
    pub fn new(bins: usize, initial_bin_ns: u64) -> Self {
        TimeSeries {
            bin_ns: initial_bin_ns.max(1),
            bins: vec![0; bins.max(2) & !1],
        }
    }

    pub fn add(&mut self, t_ns: u64, n: u64) {
        loop {
            let idx = t_ns / self.bin_ns;
            if let Some(slot) = self.bins.get_mut(idx as usize) {
                *slot += n;
                return;
            }
            let half = self.bins.len() / 2;
            for i in 0..half {
                self.bins[i] = self.bins[2 * i] + self.bins[2 * i + 1];
            }
            for b in &mut self.bins[half..] {
                *b = 0;
            }
            self.bin_ns = self.bin_ns.saturating_mul(2);
        }
    }

    pub fn total(&self) -> u64 {
        self.bins.iter().sum()
    }

    /// Re-bin to `width` (a multiple of the current width) for side-by-side plots.
    pub fn rebinned(&self, width: u64) -> Vec<u64> {
        let factor = (width / self.bin_ns).max(1) as usize;
        self.bins.chunks(factor).map(|c| c.iter().sum()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_cover_values() {
        let mut prev_hi = None;
        for b in 0..BUCKETS {
            let (lo, hi) = bucket_range(b);
            assert!(lo <= hi);
            if let Some(p) = prev_hi {
                assert_eq!(lo, p + 1, "bucket {b}");
            }
            prev_hi = Some(hi);
            assert_eq!(bucket_of(lo), b);
            assert_eq!(bucket_of(hi), b);
        }
        assert_eq!(prev_hi, Some(u64::MAX));
    }

    #[test]
    fn quantiles_within_bucket_precision() {
        let mut h = Histogram::default();
        for v in 1..=10_000u64 {
            h.record(v * 1000);
        }
        let p50 = h.quantile(0.5).unwrap() as f64;
        let p99 = h.quantile(0.99).unwrap() as f64;
        assert!((p50 / 5_000_000.0 - 1.0).abs() < 0.035, "{p50}");
        assert!((p99 / 9_900_000.0 - 1.0).abs() < 0.035, "{p99}");
        assert_eq!(h.max(), Some(10_000_000));
        assert!((h.mean().unwrap() - 5_000_500.0).abs() < 1.0);
        assert_eq!(Histogram::default().quantile(0.5), None);
        let mut same = Histogram::default();
        for _ in 0..10 {
            same.record(40_000);
        }
        assert_eq!(same.quantile(0.5), Some(40_000));
        assert_eq!(same.quantile(0.99), Some(40_000));
    }

    #[test]
    fn series_doubles_width_and_keeps_totals() {
        let mut s = TimeSeries::new(8, 10);
        for t in 0..1000u64 {
            s.add(t, 1);
        }
        assert_eq!(s.total(), 1000);
        assert!(s.bin_ns * 8 > 999);
        assert_eq!(s.bins.len(), 8);
        assert_eq!(s.bins[0], s.bin_ns.min(1000));
    }
}
