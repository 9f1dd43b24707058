//! Workload primitives and their statistics (simulator layer; spec 6.1).
//!
//! RRn(x/y), CRRn(x/y) and STRn(x/y) are all "the client sends x bytes, the
//! server answers y bytes, repeat": RR and STR on n persistent connections,
//! CRR on a fresh connection per transaction. Direction ("inbound" /
//! "outbound") follows from which host is the client and which the server.
//! Latency is measured per transaction at the client, from the request's
//! socket send to the last response byte, in a bounded log histogram.

use serde::Serialize;

/// The workload primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Kind {
    Rr,
    Crr,
    Str,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Rr => "RR",
            Kind::Crr => "CRR",
            Kind::Str => "STR",
        }
    }
}

/// AT-TLS on a workload's connections (spec 4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Tls {
    /// A full handshake on every connection (2 extra round trips, an RSA
    /// private-key operation at the server).
    Full,
    /// Abbreviated handshakes from the session cache (1 extra round trip,
    /// no asymmetric crypto).
    Resume,
}

impl Tls {
    /// Handshake rounds before application data.
    pub fn rounds(self) -> u8 {
        match self {
            Tls::Full => 2,
            Tls::Resume => 1,
        }
    }
    /// (client bytes, server bytes) of handshake round `r`.
    pub fn sizes(self, r: u8) -> (u32, u32) {
        match (self, r) {
            (Tls::Full, 0) => (250, 2600), // ClientHello / ServerHello+Certificate+Done
            (Tls::Full, _) => (330, 60),   // ClientKeyExchange+Finished / Finished
            (Tls::Resume, _) => (250, 140), // ClientHello / ServerHello+Finished
        }
    }
}

/// A resolved workload.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadSpec {
    pub name: String,
    pub kind: Kind,
    pub connections: u32,
    pub request: u32,
    pub response: u32,
    /// Host indices.
    pub client: usize,
    pub server: usize,
    /// WLM importance of the workload's address spaces (0 = SYSSTC .. 6).
    pub importance: u8,
    /// TCP buffer sizes the applications ask for; `None`: each end's
    /// stack default.
    pub sndbuf: Option<u32>,
    pub rcvbuf: Option<u32>,
    /// If the server is reached through a sysplex distributor DVIPA: the
    /// distributing host index.
    pub via_distributor: Option<usize>,
    /// AT-TLS protection of the connections.
    pub tls: Option<Tls>,
    /// IPsec (ESP, transport mode) between the two hosts: every packet of
    /// the workload's connections encrypted and authenticated.
    pub ipsec: bool,
    /// The client's mean pause between a response and its next request
    /// (a CRR client's next connection), ns; 0: none (a closed loop).
    pub think_ns: u64,
}

/// Bounded logarithmic latency histogram: 64 buckets per power of two from
/// 1 ns to ~1100 s (about 1% resolution).
#[derive(Clone, Debug)]
pub struct Histogram {
    buckets: Vec<u64>,
    pub count: u64,
    pub sum_ns: u128,
    pub min: u64,
    pub max: u64,
}

const SUB: u32 = 64;

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            buckets: vec![0; (40 * SUB) as usize],
            count: 0,
            sum_ns: 0,
            min: u64::MAX,
            max: 0,
        }
    }
}

impl Histogram {
    fn index(v: u64) -> usize {
        let v = v.max(1);
        let e = 63 - v.leading_zeros();
        let frac = if e >= 6 {
            ((v >> (e - 6)) & 63) as u32
        } else {
            ((v << (6 - e)) & 63) as u32
        };
        ((e * SUB + frac) as usize).min(40 * SUB as usize - 1)
    }
    fn lower(i: usize) -> u64 {
        let e = (i as u32) / SUB;
        let frac = u64::from((i as u32) % SUB);
        if e >= 6 {
            (64 + frac) << (e - 6)
        } else {
            (64 + frac) >> (6 - e)
        }
    }
    pub fn record(&mut self, ns: u64) {
        self.buckets[Self::index(ns)] += 1;
        self.count += 1;
        self.sum_ns += u128::from(ns);
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count as f64
        }
    }
    /// Value at quantile `q` (0..1), bucket lower bound.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        if q >= 1.0 {
            return self.max;
        }
        let target = ((self.count as f64) * q).ceil().max(1.0) as u64;
        let mut acc = 0;
        for (i, b) in self.buckets.iter().enumerate() {
            acc += b;
            if acc >= target {
                return Self::lower(i).clamp(self.min, self.max);
            }
        }
        self.max
    }
    /// Non-empty buckets as (lower bound ns, count), for plots.
    pub fn points(&self) -> Vec<(u64, u64)> {
        self.buckets
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, c)| (Self::lower(i), *c))
            .collect()
    }
}

/// Measured results of one workload.
#[derive(Clone, Debug, Default)]
pub struct WlStats {
    pub transactions: u64,
    pub response_bytes: u64,
    pub request_bytes: u64,
    /// Payload bytes delivered to either end inside the window (streams are
    /// measured by this, not by completed 20 MB transactions).
    pub delivered_bytes: u64,
    pub latency: Histogram,
    /// CPU ns charged on the client host / server host for this workload.
    pub cpu_client_ns: u64,
    pub cpu_server_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn histogram_quantiles_within_two_percent() {
        let mut h = Histogram::default();
        for v in 1..=10_000u64 {
            h.record(v * 1000);
        }
        let p50 = h.quantile(0.5) as f64;
        let p99 = h.quantile(0.99) as f64;
        assert!((p50 / 5_000_000.0 - 1.0).abs() < 0.02, "{p50}");
        assert!((p99 / 9_900_000.0 - 1.0).abs() < 0.02, "{p99}");
        assert!((h.mean() / 5_000_500.0 - 1.0).abs() < 1e-9);
        assert_eq!(h.count, 10_000);
    }
    #[test]
    fn histogram_is_bounded() {
        let mut h = Histogram::default();
        h.record(0);
        h.record(u64::MAX);
        assert_eq!(h.count, 2);
        assert_eq!(h.quantile(1.0), u64::MAX);
        assert!(h.points().len() <= 2);
    }
}
