//! SMCAT, the SMC applicability report, from a replayed capture (layer:
//! replay driver, analysis; spec 04 §4.5).
//!
//! Watches every TCP connection of the analysed host in the capture and
//! reports how much of it could use SMC: connections whose peer is in the
//! configured IPADDR list and that are not IPsec-protected are *eligible*;
//! eligible connections that are not very short-lived with trivial payloads
//! are *well suited*. Application send and receive sizes are estimated from
//! the segments: a run of payload in one direction, ended by PSH or by data
//! the other way, is one application message. Two sections: *potential
//! benefit* (every matching peer) and *immediate benefit* (peers on a subnet
//! of the host's own interfaces, reachable by a direct route today).
//!
//! Model choices (ours, stated in the report): "very short-lived with
//! trivial payloads" = under [`SHORT_LIVED_NS`] and under
//! [`TRIVIAL_PAYLOAD`] payload bytes in total; the fast-response cache is
//! invisible in a capture and is taken as unused.

use crate::replay::{Direction, FrameObserver};
use serde::Serialize;
use softosa_engine::config::IpNet;
use softosa_engine::wire::{tcp_flags, FrameInfo, L4Info, NetInfo, PROTO_TCP};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::IpAddr;

pub const SHORT_LIVED_NS: u64 = 1_000_000_000;
pub const TRIVIAL_PAYLOAD: u64 = 1500;
/// Upper bounds of the size buckets (the last bucket is everything above).
pub const BUCKETS: [u64; 7] = [1500, 4096, 8192, 16384, 32768, 65536, 262_144];
pub const BUCKET_LABELS: [&str; 8] = [
    "<=1500", "<=4K", "<=8K", "<=16K", "<=32K", "<=64K", "<=256K", ">256K",
];
/// Most IPADDR entries the configuration may list.
pub const MAX_IPADDR: usize = 256;

/// A parsed SMCAT configuration data set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SmcatConfig {
    pub interval_min: u32,
    pub peers: Vec<IpNet>,
}

/// Errors in the configuration, with the line (1-based).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SmcatConfigError {
    #[error("{file}:{line}: {what}")]
    Bad {
        file: String,
        line: usize,
        what: String,
    },
}

fn bad(file: &str, line: usize, what: impl Into<String>) -> SmcatConfigError {
    SmcatConfigError::Bad {
        file: file.into(),
        line,
        what: what.into(),
    }
}

/// Parse `SMCATCFG [INTERVAL n]` then `IPADDR` and one address or subnet a line.
pub fn parse_config(file: &str, text: &str) -> Result<SmcatConfig, SmcatConfigError> {
    let mut interval = 60u32;
    let mut peers = Vec::new();
    let mut seen_header = false;
    let mut in_list = false;
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let t = raw.split(';').next().unwrap_or("").trim();
        if t.is_empty() || t.starts_with('*') {
            continue;
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        let first = words[0].to_ascii_uppercase();
        if !seen_header {
            if first != "SMCATCFG" {
                return Err(bad(
                    file,
                    line,
                    format!("expected SMCATCFG, found {:?}", words[0]),
                ));
            }
            seen_header = true;
            let mut i = 1;
            while i < words.len() {
                match words[i].to_ascii_uppercase().as_str() {
                    "INTERVAL" => {
                        let v = words
                            .get(i + 1)
                            .ok_or_else(|| bad(file, line, "INTERVAL needs a number of minutes"))?;
                        interval = v.parse().map_err(|_| {
                            bad(
                                file,
                                line,
                                format!("INTERVAL {v:?} is not a number of minutes"),
                            )
                        })?;
                        if !(1..=1440).contains(&interval) {
                            return Err(bad(
                                file,
                                line,
                                format!("INTERVAL {interval} is outside 1..1440 minutes"),
                            ));
                        }
                        i += 2;
                    }
                    "IPADDR" => {
                        in_list = true;
                        i += 1;
                    }
                    other => {
                        return Err(bad(file, line, format!("unknown SMCATCFG operand {other}")))
                    }
                }
            }
            continue;
        }
        if first == "IPADDR" {
            in_list = true;
            continue;
        }
        if !in_list {
            return Err(bad(
                file,
                line,
                format!("expected IPADDR, found {:?}", words[0]),
            ));
        }
        for w in words {
            if peers.len() >= MAX_IPADDR {
                return Err(bad(
                    file,
                    line,
                    format!("more than {MAX_IPADDR} IPADDR entries"),
                ));
            }
            peers.push(parse_net(w).ok_or_else(|| {
                bad(
                    file,
                    line,
                    format!("{w:?} is not an IPv4/IPv6 address or address/prefix"),
                )
            })?);
        }
    }
    if !seen_header {
        return Err(bad(file, 1, "empty configuration: expected SMCATCFG"));
    }
    Ok(SmcatConfig {
        interval_min: interval,
        peers,
    })
}

fn parse_net(w: &str) -> Option<IpNet> {
    let (a, p) = match w.split_once('/') {
        Some((a, p)) => (a, Some(p)),
        None => (w, None),
    };
    let addr: IpAddr = a.parse().ok()?;
    let max = if addr.is_ipv6() { 128 } else { 32 };
    let prefix = match p {
        Some(p) => p.parse::<u8>().ok().filter(|p| *p <= max)?,
        None => max,
    };
    Some(IpNet { addr, prefix })
}

#[derive(Clone, Debug, Default)]
struct Conn {
    first: u64,
    last: u64,
    ipsec: bool,
    seg_in: u64,
    seg_out: u64,
    payload: u64,
    run_dir: Option<Direction>,
    run_bytes: u64,
    send: [u64; 8],
    recv: [u64; 8],
}

fn bucket(size: u64) -> usize {
    BUCKETS
        .iter()
        .position(|b| size <= *b)
        .unwrap_or(BUCKETS.len())
}

impl Conn {
    fn end_run(&mut self) {
        if let Some(d) = self.run_dir.take() {
            if self.run_bytes > 0 {
                let b = bucket(self.run_bytes);
                match d {
                    Direction::Outbound => self.send[b] += 1,
                    Direction::Inbound => self.recv[b] += 1,
                }
            }
        }
        self.run_bytes = 0;
    }
}

/// One section of the report.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct SmcatSection {
    pub total_connections: u64,
    pub eligible_connections: u64,
    pub well_suited_connections: u64,
    pub outbound_segments: u64,
    pub outbound_segments_well_suited: u64,
    pub inbound_segments: u64,
    pub inbound_segments_well_suited: u64,
    pub send_sizes: [u64; 8],
    pub receive_sizes: [u64; 8],
}

/// The SMCAT report.
#[derive(Clone, Debug, Serialize)]
pub struct SmcatReport {
    pub interval_min: u32,
    pub peers: Vec<String>,
    pub duration_us: f64,
    pub potential: SmcatSection,
    pub immediate: SmcatSection,
    pub connections_untracked: u64,
    /// Comma-separated export lines.
    pub export: Vec<String>,
}

/// Collects SMCAT data while a capture is replayed.
pub struct SmcatAnalyzer {
    cfg: SmcatConfig,
    local_nets: Vec<IpNet>,
    conns: BTreeMap<(IpAddr, u16, IpAddr, u16), Conn>,
    max_conns: usize,
    untracked: u64,
    last: u64,
}

impl SmcatAnalyzer {
    /// `local_nets`: the host's interface subnets (direct routes).
    pub fn new(cfg: SmcatConfig, local_nets: Vec<IpNet>, max_conns: usize) -> Self {
        SmcatAnalyzer {
            cfg,
            local_nets,
            conns: BTreeMap::new(),
            max_conns,
            untracked: 0,
            last: 0,
        }
    }

    pub fn finish(mut self) -> SmcatReport {
        let mut potential = SmcatSection::default();
        let mut immediate = SmcatSection::default();
        for ((_, _, remote, _), c) in self.conns.iter_mut() {
            c.end_run();
            let eligible = !c.ipsec && self.cfg.peers.iter().any(|n| n.contains(*remote));
            let direct = self.local_nets.iter().any(|n| n.contains(*remote));
            let short =
                c.last.saturating_sub(c.first) < SHORT_LIVED_NS && c.payload < TRIVIAL_PAYLOAD;
            let suited = eligible && !short;
            for (s, applies) in [(&mut potential, true), (&mut immediate, direct)] {
                s.total_connections += 1;
                s.outbound_segments += c.seg_out;
                s.inbound_segments += c.seg_in;
                if !applies {
                    continue;
                }
                if eligible {
                    s.eligible_connections += 1;
                }
                if suited {
                    s.well_suited_connections += 1;
                    s.outbound_segments_well_suited += c.seg_out;
                    s.inbound_segments_well_suited += c.seg_in;
                    for i in 0..8 {
                        s.send_sizes[i] += c.send[i];
                        s.receive_sizes[i] += c.recv[i];
                    }
                }
            }
        }
        let mut export = Vec::new();
        for (name, s) in [("POTENTIAL", &potential), ("IMMEDIATE", &immediate)] {
            export.push(format!(
                "{name},CONNECTIONS,{},{},{}",
                s.total_connections, s.eligible_connections, s.well_suited_connections
            ));
            export.push(format!(
                "{name},SEGMENTS,{},{},{},{}",
                s.outbound_segments,
                s.outbound_segments_well_suited,
                s.inbound_segments,
                s.inbound_segments_well_suited
            ));
            export.push(format!(
                "{name},SENDSIZES,{}",
                s.send_sizes.map(|v| v.to_string()).join(",")
            ));
            export.push(format!(
                "{name},RECVSIZES,{}",
                s.receive_sizes.map(|v| v.to_string()).join(",")
            ));
        }
        SmcatReport {
            interval_min: self.cfg.interval_min,
            peers: self.cfg.peers.iter().map(|n| n.to_string()).collect(),
            duration_us: self.last as f64 / 1000.0,
            potential,
            immediate,
            connections_untracked: self.untracked,
            export,
        }
    }
}

impl FrameObserver for SmcatAnalyzer {
    fn observe(&mut self, now_ns: u64, dir: Direction, info: &FrameInfo, _frame: &[u8]) {
        self.last = self.last.max(now_ns);
        let NetInfo::Ip(
            ip,
            L4Info::Tcp {
                src_port,
                dst_port,
                flags,
                payload_len,
                ..
            },
        ) = info.net
        else {
            return;
        };
        if ip.proto != PROTO_TCP {
            return;
        }
        let key = match dir {
            Direction::Inbound => (ip.dst, dst_port, ip.src, src_port),
            Direction::Outbound => (ip.src, src_port, ip.dst, dst_port),
        };
        if !self.conns.contains_key(&key) && self.conns.len() >= self.max_conns {
            self.untracked += 1;
            return;
        }
        let c = self.conns.entry(key).or_insert_with(|| Conn {
            first: now_ns,
            ..Conn::default()
        });
        c.last = now_ns;
        c.ipsec |= ip.ipsec;
        if payload_len == 0 {
            return;
        }
        match dir {
            Direction::Inbound => c.seg_in += 1,
            Direction::Outbound => c.seg_out += 1,
        }
        c.payload += u64::from(payload_len);
        if c.run_dir != Some(dir) {
            c.end_run();
            c.run_dir = Some(dir);
        }
        c.run_bytes += u64::from(payload_len);
        if flags & tcp_flags::PSH != 0 {
            c.end_run();
        }
    }
}

fn pct(n: u64, of: u64) -> String {
    if of == 0 {
        "0.0%".into()
    } else {
        format!("{:.1}%", n as f64 * 100.0 / of as f64)
    }
}

/// The report as text, laid out like the z/OS SMCAT report.
pub fn render_text(r: &SmcatReport) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "SMC Applicability Tool (SMCAT) report");
    let _ = writeln!(
        o,
        "  Interval {} minutes configured; capture covers {:.3} s. Peers: {}",
        r.interval_min,
        r.duration_us / 1e6,
        if r.peers.is_empty() {
            "(none)".into()
        } else {
            r.peers.join(" ")
        }
    );
    let _ = writeln!(
        o,
        "  Well suited = eligible and not (shorter than {} s with under {} payload bytes).",
        SHORT_LIVED_NS / 1_000_000_000,
        TRIVIAL_PAYLOAD
    );
    for (title, s) in [
        ("Potential benefit (all matching peers)", &r.potential),
        (
            "Immediate benefit (peers reachable by a direct route)",
            &r.immediate,
        ),
    ] {
        let _ = writeln!(o, "  {title}");
        let _ = writeln!(
            o,
            "    Total TCP connections            {:>10}",
            s.total_connections
        );
        let _ = writeln!(
            o,
            "    SMC-eligible connections         {:>10} ({})",
            s.eligible_connections,
            pct(s.eligible_connections, s.total_connections)
        );
        let _ = writeln!(
            o,
            "    SMC well-suited connections      {:>10} ({})",
            s.well_suited_connections,
            pct(s.well_suited_connections, s.total_connections)
        );
        let _ = writeln!(
            o,
            "    Outbound segments total/suited   {:>10} {:>10} ({})",
            s.outbound_segments,
            s.outbound_segments_well_suited,
            pct(s.outbound_segments_well_suited, s.outbound_segments)
        );
        let _ = writeln!(
            o,
            "    Inbound segments total/suited    {:>10} {:>10} ({})",
            s.inbound_segments,
            s.inbound_segments_well_suited,
            pct(s.inbound_segments_well_suited, s.inbound_segments)
        );
        let sends: u64 = s.send_sizes.iter().sum();
        let recvs: u64 = s.receive_sizes.iter().sum();
        let _ = writeln!(o, "    Application size   sends            receives");
        for (i, label) in BUCKET_LABELS.iter().enumerate() {
            let _ = writeln!(
                o,
                "      {label:<8} {:>10} {:>6}  {:>10} {:>6}",
                s.send_sizes[i],
                pct(s.send_sizes[i], sends),
                s.receive_sizes[i],
                pct(s.receive_sizes[i], recvs)
            );
        }
    }
    if r.connections_untracked > 0 {
        let _ = writeln!(
            o,
            "  {} of connections beyond the table not counted",
            crate::report::counted(r.connections_untracked, "segment")
        );
    }
    let _ = writeln!(o, "  Export:");
    for l in &r.export {
        let _ = writeln!(o, "    {l}");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_parses_spec_example_and_rejects_errors() {
        let c = parse_config(
            "cfg",
            "SMCATCFG INTERVAL 120\nIPADDR\nC5::1:2:3:4/126\n9.67.113.61\n",
        )
        .unwrap();
        assert_eq!(c.interval_min, 120);
        assert_eq!(c.peers.len(), 2);
        assert_eq!(c.peers[1].prefix, 32);
        assert!(c.peers[0].contains("c5::1:2:3:5".parse().unwrap()));
        assert_eq!(
            parse_config("c", "SMCATCFG\nIPADDR 10.0.0.0/8\n")
                .unwrap()
                .interval_min,
            60
        );
        let e = parse_config("c", "SMCATCFG INTERVAL 2000\n").unwrap_err();
        assert!(e.to_string().starts_with("c:1:"), "{e}");
        let e = parse_config("c", "SMCATCFG\nIPADDR\n1.2.3.4/40\n").unwrap_err();
        assert!(e.to_string().starts_with("c:3:"), "{e}");
        assert!(parse_config("c", "IPADDR 1.2.3.4\n").is_err());
    }

    #[test]
    fn buckets_follow_the_spec_edges() {
        assert_eq!(bucket(1), 0);
        assert_eq!(bucket(1500), 0);
        assert_eq!(bucket(1501), 1);
        assert_eq!(bucket(262_144), 6);
        assert_eq!(bucket(262_145), 7);
    }
}
