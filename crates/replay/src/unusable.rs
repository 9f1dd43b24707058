//! Frames the replay cannot use (layer: replay driver, input checks; spec
//! 08 §8.2).
//!
//! Every record the reader returns is an Ethernet frame, but not every such
//! frame can be replayed: the snap length may have cut it inside its
//! headers, or its headers may be malformed. [`check`] says which, so each
//! frame is counted under its own [`Unusable`] reason instead of passing for
//! traffic that is not to or from the analysed interfaces (which would send
//! the user looking for a missing `--address`).
//!
//! The engine's parser ([`wire`]) gives the verdict on the headers it
//! reads: which [`Header`] it could not read, and whether it was *cut* (the
//! bytes it needs were on the wire, the record's original length, but not
//! captured: here, by the snap length) or *malformed* (invalid fields, or
//! more bytes needed than the frame had even on the wire). What is added
//! here is the replay's own:
//!
//! - frames with stacked VLAN tags (802.1ad Q-in-Q, or two 802.1Q tags):
//!   the engine reads one 802.1Q tag, and would take the inner tag for the
//!   network protocol;
//! - an IP length larger than the frame on the wire, which the engine
//!   takes as it stands (see [`check`]);
//! - the [`addresses`] a frame that failed still shows, to tell where it
//!   was going.

use softosa_engine::config::Mac;
pub use softosa_engine::wire::Header;
use softosa_engine::wire::{self, Frame, FrameInfo, ParseError, Problem};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why a frame read from the capture is not replayed (other than being
/// foreign to the analysed interfaces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unusable {
    /// The snap length cut the frame before the end of this header.
    CutBySnapLen(Header),
    /// This header's fields are invalid, or it runs past the end of the
    /// frame on the wire.
    Malformed(Header),
    /// This IP header's length says more than the frame carried on the wire.
    LongerThanFrame(Header),
    /// An 802.1ad service tag or two stacked VLAN tags (Q-in-Q).
    StackedVlan,
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::CutBySnapLen(h) => {
                write!(f, "cut by the snap length inside its {h} header")
            }
            Unusable::Malformed(h) => write!(f, "malformed {h} header"),
            Unusable::LongerThanFrame(h) => write!(
                f,
                "malformed {h} header: its length is larger than the frame on the wire"
            ),
            Unusable::StackedVlan => {
                f.write_str("stacked VLAN tags (802.1ad, Q-in-Q): only one 802.1Q tag is read")
            }
        }
    }
}

impl Unusable {
    /// Whether the engine's parser refuses the frame too (a header cut or
    /// malformed), so that the adapter counts it as invalid (FRINVCT). The
    /// replay's own reasons are frames the engine reads: behind stacked
    /// tags it takes the inner tag for the network protocol (a protocol it
    /// does not route), and it takes an IP length as it stands.
    pub fn is_invalid_frame(self) -> bool {
        match self {
            Unusable::CutBySnapLen(_) | Unusable::Malformed(_) => true,
            Unusable::LongerThanFrame(_) | Unusable::StackedVlan => false,
        }
    }
}

/// The engine's verdict on a header it could not read; in a capture, a
/// header is cut by the snap length.
impl From<ParseError> for Unusable {
    fn from(e: ParseError) -> Self {
        match e.problem {
            Problem::Cut => Unusable::CutBySnapLen(e.header),
            Problem::Malformed => Unusable::Malformed(e.header),
        }
    }
}

/// Read a frame's headers as the engine will, or say why they cannot be
/// used. `wire_len` is the frame's length on the wire.
///
/// The engine takes packet and payload lengths from the IP header (a frame
/// cut by the snap length holds only part of the packet). The wire length
/// bounds them: an IP header that claims more than the frame carried on the
/// wire is malformed, or every byte it claims would be counted as payload.
pub fn check(frame: &[u8], wire_len: u32) -> Result<FrameInfo, Unusable> {
    if stacked_vlan(frame) {
        return Err(Unusable::StackedVlan);
    }
    let info = wire::parse_ethernet_frame(Frame {
        data: frame,
        wire_len,
    })
    .map_err(Unusable::from)?;
    if let (Some(l2), Some(ip)) = (info.l2, info.ip()) {
        let room = wire_len.saturating_sub(u32::from(l2.header_len));
        if ip.total_len > room {
            let h = if ip.src.is_ipv6() {
                Header::Ipv6
            } else {
                Header::Ipv4
            };
            return Err(Unusable::LongerThanFrame(h));
        }
    }
    Ok(info)
}

/// Where an unusable frame was going, as far as its bytes still show.
///
/// Read without the checks of [`check`] (the frame failed them): the
/// destination MAC when the frame holds it, and the IP (or ARP) addresses
/// when the bytes that carry them were captured, behind up to
/// `MAX_TAGS` (4) VLAN tags. The replay uses them to tell whether the frame
/// would have reached an analysed interface.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Addresses {
    pub dst_mac: Option<Mac>,
    pub src_ip: Option<IpAddr>,
    pub dst_ip: Option<IpAddr>,
    /// The frame's network protocol is IPv6 (by its EtherType).
    pub ipv6: bool,
}

/// VLAN tags looked through for [`addresses`] at most.
const MAX_TAGS: usize = 4;

/// The addresses an unusable frame still shows (see [`Addresses`]).
pub fn addresses(d: &[u8]) -> Addresses {
    let mut a = Addresses {
        dst_mac: wire::dst_mac(d),
        ..Addresses::default()
    };
    let mut at = 12;
    let mut ethertype = None;
    for _ in 0..=MAX_TAGS {
        if d.len() < at + 2 {
            break;
        }
        let t = be16(d, at);
        if t == wire::ETHERTYPE_VLAN || STACKING_TAGS.contains(&t) {
            at += 4;
        } else {
            ethertype = Some(t);
            at += 2;
            break;
        }
    }
    let v4 = |from: usize| {
        d.get(from..from + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(|b| IpAddr::V4(Ipv4Addr::from(b)))
    };
    let v6 = |from: usize| {
        d.get(from..from + 16)
            .and_then(|b| <[u8; 16]>::try_from(b).ok())
            .map(|b| IpAddr::V6(Ipv6Addr::from(b)))
    };
    match ethertype {
        Some(wire::ETHERTYPE_IPV4) if byte(d, at) >> 4 == 4 => {
            a.src_ip = v4(at + 12);
            a.dst_ip = v4(at + 16);
        }
        Some(wire::ETHERTYPE_IPV6) => {
            a.ipv6 = true;
            if byte(d, at) >> 4 == 6 {
                a.src_ip = v6(at + 8);
                a.dst_ip = v6(at + 24);
            }
        }
        // Sender and target only where an Ethernet/IPv4 ARP keeps them.
        Some(wire::ETHERTYPE_ARP) if d.get(at..at + 6) == Some(&[0, 1, 8, 0, 6, 4][..]) => {
            a.src_ip = v4(at + 14);
            a.dst_ip = v4(at + 24);
        }
        _ => {}
    }
    a
}

/// Tag types that stack: 802.1ad (S-tag) and the pre-standard Q-in-Q
/// values; an 802.1Q tag (0x8100) stacks when another tag follows it.
const STACKING_TAGS: [u16; 4] = [0x88a8, 0x9100, 0x9200, 0x9300];

fn stacked_vlan(d: &[u8]) -> bool {
    match be16(d, 12) {
        t if STACKING_TAGS.contains(&t) => true,
        wire::ETHERTYPE_VLAN if d.len() >= 18 => {
            let inner = be16(d, 16);
            inner == wire::ETHERTYPE_VLAN || STACKING_TAGS.contains(&inner)
        }
        _ => false,
    }
}

fn be16(d: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([
        d.get(at).copied().unwrap_or(0),
        d.get(at + 1).copied().unwrap_or(0),
    ])
}

fn byte(d: &[u8], at: usize) -> u8 {
    d.get(at).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    use softosa_engine::wire::build::{self, EthSpec, IpSpec, Payload, TcpSpec};

    /// Ethernet + IPv4 (20) + TCP (20), 100 bytes of payload, from
    /// 192.0.2.2 to 192.0.2.1 (MAC 02:00:00:00:00:01).
    fn tcp() -> Vec<u8> {
        let mut f = Vec::new();
        let eth = EthSpec {
            dst: Mac([2, 0, 0, 0, 0, 1]),
            src: Mac([2, 0, 0, 0, 0, 2]),
            vlan: None,
        };
        let ip = IpSpec::new([192, 0, 2, 2].into(), [192, 0, 2, 1].into());
        let tcp = TcpSpec {
            src_port: 40001,
            dst_port: 5001,
            flags: 0x10,
            window: 1000,
            ..TcpSpec::default()
        };
        build::eth_tcp(&mut f, &eth, &ip, &tcp, Payload::Bytes(&[0x61; 100]));
        f
    }

    #[test]
    fn a_good_frame_reads() {
        let f = tcp();
        assert!(check(&f, f.len() as u32).is_ok());
        // Headers complete, payload cut: still usable.
        assert!(check(&f[..54], f.len() as u32).is_ok());
    }

    #[test]
    fn cut_and_malformed_are_told_apart() {
        let f = tcp();
        let wire = f.len() as u32;
        for (cut, header) in [
            (10, Header::Ethernet),
            (20, Header::Ipv4),
            (40, Header::Tcp),
        ] {
            assert_eq!(
                check(&f[..cut], wire),
                Err(Unusable::CutBySnapLen(header)),
                "{cut}"
            );
            // The same bytes as the whole frame: it never had the header.
            assert_eq!(
                check(&f[..cut], cut as u32),
                Err(Unusable::Malformed(header)),
                "{cut}"
            );
        }
        let mut ihl = f.clone();
        ihl[14] = 0x44;
        assert_eq!(check(&ihl, wire), Err(Unusable::Malformed(Header::Ipv4)));
        // Invalid whatever the snap length: malformed even when cut.
        assert_eq!(
            check(&ihl[..20], wire),
            Err(Unusable::Malformed(Header::Ipv4))
        );
        let mut doff = f.clone();
        doff[46] = 0x40;
        assert_eq!(check(&doff, wire), Err(Unusable::Malformed(Header::Tcp)));
        assert_eq!(
            check(&doff[..50], wire),
            Err(Unusable::Malformed(Header::Tcp))
        );
    }

    #[test]
    fn stacked_tags_are_told_from_one_tag() {
        let f = tcp();
        let tagged = |tags: &[u16]| {
            let mut t = f[..12].to_vec();
            for &tpid in tags {
                t.extend_from_slice(&tpid.to_be_bytes());
                t.extend_from_slice(&[0, 10]);
            }
            t.extend_from_slice(&f[12..]);
            t
        };
        for tags in [&[0x88a8, 0x8100][..], &[0x8100, 0x8100], &[0x9100, 0x8100]] {
            let t = tagged(tags);
            assert_eq!(
                check(&t, t.len() as u32),
                Err(Unusable::StackedVlan),
                "{tags:x?}"
            );
        }
        let one = tagged(&[0x8100]);
        let info = check(&one, one.len() as u32).unwrap();
        assert_eq!(info.l2.and_then(|l| l.vlan), Some(10));
        assert!(info.flow().is_some());
    }

    #[test]
    fn addresses_are_read_from_what_the_capture_kept() {
        let f = tcp();
        let host: IpAddr = "192.0.2.1".parse().unwrap();
        let peer: IpAddr = "192.0.2.2".parse().unwrap();
        let a = addresses(&f[..40]);
        assert_eq!(a.dst_mac, Some(Mac([2, 0, 0, 0, 0, 1])));
        assert_eq!(
            (a.src_ip, a.dst_ip, a.ipv6),
            (Some(peer), Some(host), false)
        );
        // Cut after the source address: the destination is unknown.
        assert_eq!(addresses(&f[..30]).src_ip, Some(peer));
        assert_eq!(addresses(&f[..30]).dst_ip, None);
        // Behind stacked tags, as behind one.
        let mut q = f[..12].to_vec();
        q.extend_from_slice(&[0x88, 0xa8, 0, 100, 0x81, 0x00, 0, 10]);
        q.extend_from_slice(&f[12..]);
        assert_eq!(addresses(&q).dst_ip, Some(host));
        // Nothing past a short Ethernet header; nothing at all from 4 bytes.
        assert_eq!(addresses(&f[..13]).dst_ip, None);
        assert_eq!(addresses(&f[..4]), Addresses::default());
        // An IPv4 EtherType over another version: no addresses.
        let mut bad = f.clone();
        bad[14] = 0x65;
        assert_eq!(addresses(&bad).dst_ip, None);
    }

    #[test]
    fn an_ipv4_total_length_of_zero_is_the_frame_length() {
        // A 100 000-byte BIG TCP frame, captured with -s 54: total length 0.
        let mut f = tcp();
        f[16..18].copy_from_slice(&[0, 0]);
        let info = check(&f[..54], 100_000).expect("usable");
        assert_eq!(info.ip().map(|ip| ip.total_len), Some(100_000 - 14));
        assert_eq!(info.tcp_payload(), Some(100_000 - 54));
        // Cut inside its TCP header, it is cut, not a malformed IPv4 header.
        assert_eq!(
            check(&f[..40], 100_000),
            Err(Unusable::CutBySnapLen(Header::Tcp))
        );
        // A frame no longer than the header has no length to take.
        assert_eq!(check(&f[..34], 34), Err(Unusable::Malformed(Header::Ipv4)));
        // Nor one the field could have held: BIG TCP leaves it 0 only over
        // 65 535 bytes, so a short frame's padding is not taken as payload.
        assert_eq!(check(&f, 154), Err(Unusable::Malformed(Header::Ipv4)));
        assert_eq!(
            check(&f[..54], 14 + 65_535),
            Err(Unusable::Malformed(Header::Ipv4))
        );
    }

    #[test]
    fn the_ip_length_must_fit_the_frame_on_the_wire() {
        let mut f = tcp();
        // Total length 9000 in a frame the wire says was 154 bytes long.
        f[16..18].copy_from_slice(&9000u16.to_be_bytes());
        assert_eq!(
            check(&f[..54], f.len() as u32),
            Err(Unusable::LongerThanFrame(Header::Ipv4))
        );
        // The same headers cut from a 9014-byte frame: a full-sized packet.
        let info = check(&f[..54], 9014).unwrap();
        assert_eq!(info.tcp_payload(), Some(9000 - 40));
        // Ethernet padding (a 46-byte packet in a 60-byte frame) is fine.
        f[16..18].copy_from_slice(&46u16.to_be_bytes());
        assert!(check(&f[..60], 60).is_ok());
    }
}
