//! zERT-style encryption readiness from a replayed capture (layer: replay
//! driver, analysis; spec 04 §4.3).
//!
//! Passive: for every TCP connection of the analysed host it reads the
//! first payload segments each way — a TLS handshake (ClientHello offers,
//! ServerHello chooses the version and cipher suite), an SSH version
//! exchange (`SSH-2.0-...`), or neither (clear text) — and it lists IPsec
//! security associations from ESP and AH SPIs. *Discovery* gives one detail
//! record per connection; *aggregation* groups connections by security
//! session (server address and port, client address, protection) with
//! counts and bytes, like the SMF 119 subtype 12 summary records.
//! With a short snap length the handshake may be cut; such connections are
//! reported as TLS with the fields that were visible. A cut ServerHello
//! that says 1.2 in its version field is not taken for TLS 1.2: TLS 1.3
//! sends the same value there and names its real choice in an extension
//! (or gives itself away by its cipher suite), so without either the
//! version is "1.2 or later".

use crate::replay::{Direction, FrameObserver};
use crate::report::counted;
use serde::Serialize;
use softosa_engine::wire::{tcp_flags, FrameInfo, L4Info, NetInfo, PROTO_ESP};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::IpAddr;

/// Payload segments inspected per direction of a connection.
const SEGMENTS_INSPECTED: u8 = 4;

/// What protects a connection. In JSON, an object with the `kind`
/// (`tls`, `ssh`, `ipsec_ah`, `clear_text`, `no_data`), the `label` the
/// text report shows, and a TLS or SSH `version` and TLS `cipher` where
/// seen (null otherwise), the same for connections and sessions.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Protection {
    Tls {
        version: TlsVersion,
        cipher: Option<String>,
    },
    Ssh {
        version: String,
    },
    /// Carried inside AH (ESP-protected TCP is not visible as TCP).
    IpsecAh,
    ClearText,
    /// No payload seen.
    NoData,
}

impl Serialize for Protection {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let (kind, version, cipher) = match self {
            Protection::Tls { version, cipher } => {
                ("tls", Some(version.to_string()), cipher.as_ref())
            }
            Protection::Ssh { version } => ("ssh", Some(version.clone()), None),
            Protection::IpsecAh => ("ipsec_ah", None, None),
            Protection::ClearText => ("clear_text", None, None),
            Protection::NoData => ("no_data", None, None),
        };
        let mut st = ser.serialize_struct("Protection", 4)?;
        st.serialize_field("kind", kind)?;
        st.serialize_field("label", &self.label())?;
        st.serialize_field("version", &version)?;
        st.serialize_field("cipher", &cipher)?;
        st.end()
    }
}

impl Protection {
    pub fn label(&self) -> String {
        match self {
            Protection::Tls { version, cipher } => match (version, cipher) {
                (_, Some(c)) => format!("{version} {c}"),
                (TlsVersion::Exact(_), None) => format!("{version} (cipher not seen)"),
                (TlsVersion::TwelveOrLater { unseen }, None) => format!("{version} ({unseen})"),
                (TlsVersion::Offered { .. }, None) => {
                    format!("{version} (ServerHello not captured)")
                }
            },
            Protection::Ssh { version } => format!("SSH {version}"),
            Protection::IpsecAh => "IPsec AH".into(),
            Protection::ClearText => "clear text".into(),
            Protection::NoData => "no data".into(),
        }
    }
}

/// The TLS version of a connection, as far as the capture shows it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TlsVersion {
    /// Known: `TLSv1.2`, `TLSv1.3`, `SSLv3`, ...
    Exact(String),
    /// Only a version field saying 1.2 was seen, which TLS 1.3 sends too;
    /// `unseen` says what would have told them apart ("extensions not
    /// captured").
    TwelveOrLater { unseen: &'static str },
    /// Only the client's hello was seen: the most it offers (`TLSv1.2 or
    /// later` for a 3.3), which the server may answer with less.
    Offered { up_to: String },
}

impl std::fmt::Display for TlsVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TlsVersion::Exact(v) => f.write_str(v),
            TlsVersion::TwelveOrLater { .. } => f.write_str("TLSv1.2 or later"),
            TlsVersion::Offered { up_to } => write!(f, "TLS, client offers up to {up_to}"),
        }
    }
}

/// A version field's value, or "1.2 or later" when it reads 3.3: TLS 1.3
/// keeps 3.3 in every version field and says 1.3 only in an extension.
fn legacy_version(major: u8, minor: u8, unseen: &'static str) -> TlsVersion {
    match (major, minor) {
        (3, 3) => TlsVersion::TwelveOrLater { unseen },
        (a, b) => TlsVersion::Exact(tls_version(a, b)),
    }
}

fn tls_version(major: u8, minor: u8) -> String {
    match (major, minor) {
        (3, 0) => "SSLv3".into(),
        (3, 1) => "TLSv1.0".into(),
        (3, 2) => "TLSv1.1".into(),
        (3, 3) => "TLSv1.2".into(),
        (3, 4) => "TLSv1.3".into(),
        (a, b) => format!("TLS {a}.{b}"),
    }
}

/// IANA name of a TLS cipher suite (hex when not in our short list).
pub fn cipher_name(id: u16) -> String {
    let n = match id {
        0x1301 => "TLS_AES_128_GCM_SHA256",
        0x1302 => "TLS_AES_256_GCM_SHA384",
        0x1303 => "TLS_CHACHA20_POLY1305_SHA256",
        0xC02F => "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        0xC030 => "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        0xC02B => "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        0xC02C => "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        0x009C => "TLS_RSA_WITH_AES_128_GCM_SHA256",
        0x009D => "TLS_RSA_WITH_AES_256_GCM_SHA384",
        0x002F => "TLS_RSA_WITH_AES_128_CBC_SHA",
        0x0035 => "TLS_RSA_WITH_AES_256_CBC_SHA",
        0x000A => "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
        _ => return format!("0x{id:04X}"),
    };
    n.to_string()
}

/// What a TLS record at the start of a payload says.
#[derive(Debug, PartialEq)]
enum TlsSeen {
    ClientHello {
        version: TlsVersion,
    },
    ServerHello {
        version: TlsVersion,
        cipher: Option<u16>,
    },
    Other {
        version: TlsVersion,
    },
}

fn parse_tls(p: &[u8]) -> Option<TlsSeen> {
    // record: type(1)=22 version(2) length(2); handshake: type(1) len(3)
    if p.len() < 6 || !(20..=23).contains(&p[0]) || p[1] != 3 || p[2] > 4 {
        return None;
    }
    const NO_HANDSHAKE: &str = "handshake not captured";
    if p[0] != 22 {
        return Some(TlsSeen::Other {
            version: legacy_version(p[1], p[2], NO_HANDSHAKE),
        });
    }
    let (major, minor) = match (p.get(9), p.get(10)) {
        (Some(&a), Some(&b)) if a == 3 => (a, b),
        _ => (p[1], p[2]),
    };
    match p[5] {
        1 => Some(TlsSeen::ClientHello {
            // What the client offers; the server's choice is not here.
            version: TlsVersion::Offered {
                up_to: legacy_version(major, minor, "").to_string(),
            },
        }),
        2 => {
            // version(2) random(32) sid_len(1) sid cipher(2) at 9..
            let sid_at = 9 + 2 + 32;
            let cipher = p.get(sid_at).and_then(|&sid| {
                let c = sid_at + 1 + usize::from(sid);
                Some(u16::from_be_bytes([*p.get(c)?, *p.get(c + 1)?]))
            });
            // TLS 1.3 chooses 1.3 in an extension, but the suite settles
            // it either way: 1.3 has suites of its own (0x13xx) and cannot
            // use any other. Without the suite, a 3.3 stays undecided.
            let version = match cipher {
                Some(0x1301..=0x1305) => TlsVersion::Exact("TLSv1.3".into()),
                Some(_) => TlsVersion::Exact(tls_version(major, minor)),
                None => legacy_version(major, minor, "extensions not captured"),
            };
            Some(TlsSeen::ServerHello { version, cipher })
        }
        _ => Some(TlsSeen::Other {
            version: legacy_version(major, minor, NO_HANDSHAKE),
        }),
    }
}

#[derive(Clone, Debug, Default)]
struct Conn {
    /// True when the local end is the server.
    local_is_server: Option<bool>,
    inspected_in: u8,
    inspected_out: u8,
    tls: Option<(TlsVersion, Option<u16>)>,
    ssh: Option<String>,
    ah: bool,
    payload_seen: bool,
    bytes_in: u64,
    bytes_out: u64,
}

/// One connection (discovery detail record).
#[derive(Clone, Debug, Serialize)]
pub struct ConnectionRecord {
    pub server: IpAddr,
    pub server_port: u16,
    pub client: IpAddr,
    pub client_port: u16,
    pub protection: Protection,
    pub bytes_in: u64,
    pub bytes_out: u64,
}

/// One security session (aggregation summary record).
#[derive(Clone, Debug, Serialize)]
pub struct SessionSummary {
    pub server: IpAddr,
    pub server_port: u16,
    pub client: IpAddr,
    pub protection: Protection,
    pub connections: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
}

/// An IPsec security association seen (ESP or AH SPI).
#[derive(Clone, Debug, Serialize)]
pub struct IpsecSa {
    pub protocol: &'static str,
    pub src: IpAddr,
    pub dst: IpAddr,
    pub spi: u32,
    pub packets: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ZertReport {
    pub connections: Vec<ConnectionRecord>,
    pub sessions: Vec<SessionSummary>,
    pub ipsec: Vec<IpsecSa>,
    pub untracked: u64,
}

/// Collects zERT data while a capture is replayed.
pub struct ZertAnalyzer {
    conns: BTreeMap<(IpAddr, u16, IpAddr, u16), Conn>,
    sas: BTreeMap<(&'static str, IpAddr, IpAddr, u32), u64>,
    max: usize,
    untracked: u64,
}

impl ZertAnalyzer {
    pub fn new(max: usize) -> Self {
        ZertAnalyzer {
            conns: BTreeMap::new(),
            sas: BTreeMap::new(),
            max,
            untracked: 0,
        }
    }

    pub fn finish(self) -> ZertReport {
        let mut connections = Vec::new();
        let mut sessions: BTreeMap<(IpAddr, u16, IpAddr, String), SessionSummary> = BTreeMap::new();
        for ((local, lport, remote, rport), c) in &self.conns {
            let local_server = c.local_is_server.unwrap_or(lport <= rport);
            let (server, server_port, client, client_port) = if local_server {
                (*local, *lport, *remote, *rport)
            } else {
                (*remote, *rport, *local, *lport)
            };
            let protection = if let Some((v, cipher)) = &c.tls {
                Protection::Tls {
                    version: v.clone(),
                    cipher: cipher.map(cipher_name),
                }
            } else if let Some(v) = &c.ssh {
                Protection::Ssh { version: v.clone() }
            } else if c.ah {
                Protection::IpsecAh
            } else if c.payload_seen {
                Protection::ClearText
            } else {
                Protection::NoData
            };
            let label = protection.label();
            let s = sessions
                .entry((server, server_port, client, label.clone()))
                .or_insert_with(|| SessionSummary {
                    server,
                    server_port,
                    client,
                    protection: protection.clone(),
                    connections: 0,
                    bytes_in: 0,
                    bytes_out: 0,
                });
            s.connections += 1;
            s.bytes_in += c.bytes_in;
            s.bytes_out += c.bytes_out;
            connections.push(ConnectionRecord {
                server,
                server_port,
                client,
                client_port,
                protection,
                bytes_in: c.bytes_in,
                bytes_out: c.bytes_out,
            });
        }
        ZertReport {
            connections,
            sessions: sessions.into_values().collect(),
            ipsec: self
                .sas
                .into_iter()
                .map(|((protocol, src, dst, spi), packets)| IpsecSa {
                    protocol,
                    src,
                    dst,
                    spi,
                    packets,
                })
                .collect(),
            untracked: self.untracked,
        }
    }

    fn note_sa(&mut self, proto: &'static str, src: IpAddr, dst: IpAddr, spi: u32) {
        if self.sas.len() < self.max || self.sas.contains_key(&(proto, src, dst, spi)) {
            *self.sas.entry((proto, src, dst, spi)).or_default() += 1;
        } else {
            self.untracked += 1;
        }
    }
}

impl FrameObserver for ZertAnalyzer {
    fn observe(&mut self, _now_ns: u64, dir: Direction, info: &FrameInfo, frame: &[u8]) {
        let NetInfo::Ip(ip, l4) = info.net else {
            return;
        };
        let l2 = info.l2.map_or(0, |l| usize::from(l.header_len));
        let ip_start = l2;
        let after_ip = l2 + usize::from(ip.header_len);
        if ip.proto == PROTO_ESP {
            if let Some(s) = frame.get(after_ip..after_ip + 4) {
                let spi = u32::from_be_bytes([s[0], s[1], s[2], s[3]]);
                self.note_sa("ESP", ip.src, ip.dst, spi);
            }
            return;
        }
        // AH on IPv4: protocol 51 right after the IPv4 header.
        let mut ah = false;
        if ip.ipsec && ip.src.is_ipv4() {
            if let (Some(&vihl), Some(&proto)) = (frame.get(ip_start), frame.get(ip_start + 9)) {
                let at = ip_start + usize::from(vihl & 0x0f) * 4;
                if proto == 51 {
                    if let Some(s) = frame.get(at + 4..at + 8) {
                        let spi = u32::from_be_bytes([s[0], s[1], s[2], s[3]]);
                        self.note_sa("AH", ip.src, ip.dst, spi);
                        ah = true;
                    }
                }
            }
        } else if ip.ipsec {
            ah = true;
        }
        let L4Info::Tcp {
            src_port,
            dst_port,
            flags,
            header_len,
            payload_len,
            ..
        } = l4
        else {
            return;
        };
        let key = match dir {
            Direction::Inbound => (ip.dst, dst_port, ip.src, src_port),
            Direction::Outbound => (ip.src, src_port, ip.dst, dst_port),
        };
        if !self.conns.contains_key(&key) && self.conns.len() >= self.max {
            self.untracked += 1;
            return;
        }
        let c = self.conns.entry(key).or_default();
        c.ah |= ah;
        let syn_only = flags & tcp_flags::SYN != 0 && flags & tcp_flags::ACK == 0;
        if syn_only {
            // The SYN's sender is the client.
            c.local_is_server = Some(dir == Direction::Inbound);
        }
        match dir {
            Direction::Inbound => c.bytes_in += u64::from(payload_len),
            Direction::Outbound => c.bytes_out += u64::from(payload_len),
        }
        if payload_len == 0 {
            return;
        }
        c.payload_seen = true;
        let inspected = match dir {
            Direction::Inbound => &mut c.inspected_in,
            Direction::Outbound => &mut c.inspected_out,
        };
        if *inspected >= SEGMENTS_INSPECTED {
            return;
        }
        *inspected += 1;
        let start = after_ip + usize::from(header_len);
        let payload = frame.get(start..).unwrap_or(&[]);
        if payload.starts_with(b"SSH-") {
            let end = payload
                .iter()
                .position(|b| *b == b'\r' || *b == b'\n')
                .unwrap_or(payload.len())
                .min(64);
            c.ssh = Some(String::from_utf8_lossy(&payload[..end]).into_owned());
            return;
        }
        match parse_tls(payload) {
            Some(TlsSeen::ServerHello { version, cipher }) => {
                c.tls = Some((version, cipher));
                // The ServerHello's sender is the server.
                c.local_is_server.get_or_insert(dir == Direction::Outbound);
            }
            Some(TlsSeen::ClientHello { version }) => {
                c.tls.get_or_insert((version, None));
                c.local_is_server.get_or_insert(dir == Direction::Inbound);
            }
            Some(TlsSeen::Other { version }) => {
                c.tls.get_or_insert((version, None));
            }
            None => {}
        }
    }
}

/// The report as text.
pub fn render_text(r: &ZertReport) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "zERT: {} (discovery records), {} (summary records)",
        counted(r.connections.len() as u64, "connection"),
        counted(r.sessions.len() as u64, "security session")
    );
    // Columns as wide as their longest entry (a TLS cipher suite or an SSH
    // version string is often longer than the usual width), so the numbers
    // stay aligned.
    let rows: Vec<(String, String, &SessionSummary)> = r
        .sessions
        .iter()
        .map(|s| {
            (
                format!("{}..{}", s.server, s.server_port),
                s.client.to_string(),
                s,
            )
        })
        .collect();
    let width = |min: usize, f: &dyn Fn(&(String, String, &SessionSummary)) -> usize| {
        rows.iter().map(f).fold(min, usize::max)
    };
    let ws = width(40, &|r| r.0.chars().count());
    let wc = width(22, &|r| r.1.chars().count());
    let wp = width(28, &|r| r.2.protection.label().chars().count());
    let _ = writeln!(
        o,
        "  {:<ws$} {:<wc$} {:<wp$} {:>5} {:>12} {:>12}",
        "Server", "Client", "Protection", "Conns", "Bytes in", "Bytes out"
    );
    for (server, client, s) in &rows {
        let _ = writeln!(
            o,
            "  {:<ws$} {:<wc$} {:<wp$} {:>5} {:>12} {:>12}",
            server,
            client,
            s.protection.label(),
            s.connections,
            s.bytes_in,
            s.bytes_out
        );
    }
    for sa in &r.ipsec {
        let _ = writeln!(
            o,
            "  IPsec {} SPI 0x{:08X} {} -> {}: {}",
            sa.protocol,
            sa.spi,
            sa.src,
            sa.dst,
            counted(sa.packets, "packet")
        );
    }
    if r.untracked > 0 {
        let _ = writeln!(
            o,
            "  {} of connections beyond the table not analysed",
            counted(r.untracked, "frame")
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_server_hello_gives_version_and_cipher() {
        let mut p = vec![22, 3, 3, 0, 80, 2, 0, 0, 76, 3, 3];
        p.extend_from_slice(&[0u8; 32]);
        p.push(0); // no session id
        p.extend_from_slice(&[0xC0, 0x2F]);
        assert_eq!(
            parse_tls(&p),
            Some(TlsSeen::ServerHello {
                version: TlsVersion::Exact("TLSv1.2".into()),
                cipher: Some(0xC02F)
            })
        );
        // An older version field needs no extension to be believed.
        let mut p11 = p.clone();
        p11[10] = 2;
        assert_eq!(
            parse_tls(&p11[..30]),
            Some(TlsSeen::ServerHello {
                version: TlsVersion::Exact("TLSv1.1".into()),
                cipher: None
            })
        );
        let ch = [22u8, 3, 1, 0, 200, 1, 0, 0, 196, 3, 3];
        assert_eq!(
            parse_tls(&ch),
            Some(TlsSeen::ClientHello {
                version: TlsVersion::Offered {
                    up_to: "TLSv1.2 or later".into()
                }
            })
        );
        // The server may choose less than the client offers.
        let prot = Protection::Tls {
            version: TlsVersion::Offered {
                up_to: "TLSv1.2 or later".into(),
            },
            cipher: None,
        };
        assert_eq!(
            prot.label(),
            "TLS, client offers up to TLSv1.2 or later (ServerHello not captured)"
        );
        assert_eq!(parse_tls(b"GET / HTTP/1.1\r\n"), None);
    }

    #[test]
    fn a_server_hello_cut_before_its_suite_is_not_called_tls_1_2() {
        // A TLS 1.3 ServerHello: version field 3.3, suite 0x1302, and the
        // supported_versions extension (0x002b) saying 3.4.
        let mut p = vec![22, 3, 3, 0, 90, 2, 0, 0, 86, 3, 3];
        p.extend_from_slice(&[0u8; 32]);
        p.push(32);
        p.extend_from_slice(&[0u8; 32]);
        p.extend_from_slice(&[0x13, 0x02, 0, 0, 6, 0, 0x2b, 0, 2, 3, 4]);
        assert_eq!(
            parse_tls(&p),
            Some(TlsSeen::ServerHello {
                version: TlsVersion::Exact("TLSv1.3".into()),
                cipher: Some(0x1302)
            })
        );
        // Cut inside the session id (a 128-byte snap length does this).
        let cut = parse_tls(&p[..60]);
        let unsure = TlsVersion::TwelveOrLater {
            unseen: "extensions not captured",
        };
        assert_eq!(
            cut,
            Some(TlsSeen::ServerHello {
                version: unsure.clone(),
                cipher: None
            })
        );
        let prot = Protection::Tls {
            version: unsure,
            cipher: None,
        };
        assert_eq!(prot.label(), "TLSv1.2 or later (extensions not captured)");
        let json = serde_json::to_value(&prot).unwrap();
        assert_eq!(json["kind"], "tls");
        assert_eq!(json["version"], "TLSv1.2 or later");
        assert!(json["cipher"].is_null());
    }

    #[test]
    fn counts_of_one_are_singular() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let one = |protection| SessionSummary {
            server: ip("192.0.2.1"),
            server_port: 22,
            client: ip("192.0.2.2"),
            protection,
            connections: 1,
            bytes_in: 1,
            bytes_out: 1,
        };
        let r = ZertReport {
            connections: vec![ConnectionRecord {
                server: ip("192.0.2.1"),
                server_port: 22,
                client: ip("192.0.2.2"),
                client_port: 40000,
                protection: Protection::ClearText,
                bytes_in: 1,
                bytes_out: 1,
            }],
            sessions: vec![one(Protection::ClearText)],
            ipsec: vec![IpsecSa {
                protocol: "ESP",
                src: ip("192.0.2.2"),
                dst: ip("192.0.2.1"),
                spi: 7,
                packets: 1,
            }],
            untracked: 1,
        };
        let text = render_text(&r);
        assert!(
            text.starts_with("zERT: 1 connection (discovery records), 1 security session "),
            "{text}"
        );
        assert!(text.contains("192.0.2.1: 1 packet\n"), "{text}");
        assert!(text.contains("  1 frame of connections beyond"), "{text}");
    }

    #[test]
    fn text_table_columns_stay_aligned_with_long_protection_labels() {
        let session = |protection: Protection| SessionSummary {
            server: "192.0.2.1".parse().unwrap(),
            server_port: 4433,
            client: "192.0.2.2".parse().unwrap(),
            protection,
            connections: 1,
            bytes_in: 260,
            bytes_out: 1459,
        };
        let r = ZertReport {
            connections: Vec::new(),
            sessions: vec![
                session(Protection::ClearText),
                session(Protection::Tls {
                    version: TlsVersion::Exact("TLSv1.2".into()),
                    cipher: Some("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256".into()),
                }),
                session(Protection::Ssh {
                    version: "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u6".into(),
                }),
            ],
            ipsec: Vec::new(),
            untracked: 0,
        };
        let text = render_text(&r);
        let table: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(table.len(), 4, "{text}");
        // The last column is right-aligned: aligned rows all end at the
        // header's width, and each label keeps a space before the numbers.
        let header_len = table[0].chars().count();
        for line in &table {
            assert_eq!(line.chars().count(), header_len, "{text}");
        }
        let conns_end = table[0].find("Conns").unwrap() + "Conns".len();
        for line in &table[1..] {
            assert_eq!(&line[conns_end - 1..conns_end], "1", "{text}");
            assert_eq!(&line[conns_end - 5..conns_end - 1], "    ", "{text}");
        }
    }
}
