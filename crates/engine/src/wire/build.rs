//! Frame builders (layer: engine, wire). The simulator builds its packets
//! with these (headers only, `wire_len` carrying the real size), tests build
//! byte vectors with them, and the adapter builds ARP replies and forwarded
//! or segmented frames with the same code.

use super::checksum;
use super::{ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERTYPE_VLAN, PROTO_TCP, PROTO_UDP};
use crate::config::Mac;
use std::net::{IpAddr, Ipv4Addr};

/// Ethernet header fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EthSpec {
    pub dst: Mac,
    pub src: Mac,
    pub vlan: Option<u16>,
}

/// An IP + TCP/UDP packet description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpSpec {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub tos: u8,
    pub ttl: u8,
    pub ip_id: u16,
}

impl IpSpec {
    pub fn new(src: IpAddr, dst: IpAddr) -> Self {
        IpSpec {
            src,
            dst,
            tos: 0,
            ttl: 64,
            ip_id: 0,
        }
    }
}

/// TCP header fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TcpSpec {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
}

/// Payload: real bytes (checksums computed) or only a length (headers only;
/// the TCP/UDP checksum is left zero).
#[derive(Clone, Copy, Debug)]
pub enum Payload<'a> {
    Bytes(&'a [u8]),
    Len(u32),
}

impl Payload<'_> {
    fn len(&self) -> u32 {
        match self {
            Payload::Bytes(b) => b.len() as u32,
            Payload::Len(n) => *n,
        }
    }
}

/// Append an Ethernet (and VLAN) header; returns its length.
pub fn eth_header(out: &mut Vec<u8>, eth: &EthSpec, ethertype: u16) -> usize {
    out.extend_from_slice(&eth.dst.0);
    out.extend_from_slice(&eth.src.0);
    if let Some(v) = eth.vlan {
        out.extend_from_slice(&ETHERTYPE_VLAN.to_be_bytes());
        out.extend_from_slice(&(v & 0x0fff).to_be_bytes());
        out.extend_from_slice(&ethertype.to_be_bytes());
        18
    } else {
        out.extend_from_slice(&ethertype.to_be_bytes());
        14
    }
}

/// What [`super::parse_ethernet_frame`] reads from a frame [`eth_header`]
/// began with `eth` and `ethertype`, around a packet whose network facts
/// are `net`: the header as written (VLAN ID masked to 12 bits, priority
/// 0) and `net` as it is. `net` must be what the packet's own parse gave
/// under that ethertype, with the same bytes and the same length on the
/// wire (the frame's less the header); the frame then parses to exactly
/// this, without being parsed again.
pub fn eth_info(eth: &EthSpec, ethertype: u16, net: super::NetInfo) -> super::FrameInfo {
    super::FrameInfo {
        l2: Some(super::L2Info {
            dst: eth.dst,
            src: eth.src,
            vlan: eth.vlan.map(|v| v & 0x0fff),
            vlan_pcp: 0,
            ethertype,
            header_len: if eth.vlan.is_some() { 18 } else { 14 },
        }),
        net,
    }
}

fn ip_header(out: &mut Vec<u8>, ip: &IpSpec, proto: u8, l4_len: u32) -> usize {
    match (ip.src, ip.dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            let total = (20 + l4_len).min(u32::from(u16::MAX)) as u16;
            let start = out.len();
            out.extend_from_slice(&[0x45, ip.tos]);
            out.extend_from_slice(&total.to_be_bytes());
            out.extend_from_slice(&ip.ip_id.to_be_bytes());
            out.extend_from_slice(&[0x40, 0, ip.ttl, proto, 0, 0]);
            out.extend_from_slice(&s.octets());
            out.extend_from_slice(&d.octets());
            let c = checksum::ipv4_header(&out[start..start + 20]);
            out[start + 10..start + 12].copy_from_slice(&c.to_be_bytes());
            20
        }
        (IpAddr::V6(s), IpAddr::V6(d)) => {
            let plen = l4_len.min(u32::from(u16::MAX)) as u16;
            out.push(0x60 | (ip.tos >> 4));
            out.push(ip.tos << 4);
            out.extend_from_slice(&[0, 0]);
            out.extend_from_slice(&plen.to_be_bytes());
            out.push(proto);
            out.push(ip.ttl);
            out.extend_from_slice(&s.octets());
            out.extend_from_slice(&d.octets());
            40
        }
        // Mixed families: write an IPv4 header with unspecified addresses so
        // the caller still gets a well-formed (if useless) packet.
        _ => ip_header(
            out,
            &IpSpec {
                src: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
                dst: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
                ..*ip
            },
            proto,
            l4_len,
        ),
    }
}

/// Append an IP/TCP packet (no Ethernet header). Returns the packet's full
/// length (what `wire_len` should say, less any Ethernet header).
pub fn ip_tcp(out: &mut Vec<u8>, ip: &IpSpec, tcp: &TcpSpec, payload: Payload<'_>) -> u32 {
    let start = out.len();
    let l4_len = 20 + payload.len();
    let ip_len = ip_header(out, ip, PROTO_TCP, l4_len);
    let tcp_start = out.len();
    out.extend_from_slice(&tcp.src_port.to_be_bytes());
    out.extend_from_slice(&tcp.dst_port.to_be_bytes());
    out.extend_from_slice(&tcp.seq.to_be_bytes());
    out.extend_from_slice(&tcp.ack.to_be_bytes());
    out.extend_from_slice(&[0x50, tcp.flags]);
    out.extend_from_slice(&tcp.window.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    if let Payload::Bytes(b) = payload {
        out.extend_from_slice(b);
        let c = checksum::transport(ip.src, ip.dst, PROTO_TCP, &out[tcp_start..]);
        out[tcp_start + 16..tcp_start + 18].copy_from_slice(&c.to_be_bytes());
    }
    debug_assert_eq!(tcp_start - start, ip_len);
    ip_len as u32 + l4_len
}

/// Append an IP/UDP packet (no Ethernet header); returns its full length.
pub fn ip_udp(
    out: &mut Vec<u8>,
    ip: &IpSpec,
    src_port: u16,
    dst_port: u16,
    payload: Payload<'_>,
) -> u32 {
    let l4_len = 8 + payload.len();
    let ip_len = ip_header(out, ip, PROTO_UDP, l4_len);
    let udp_start = out.len();
    out.extend_from_slice(&src_port.to_be_bytes());
    out.extend_from_slice(&dst_port.to_be_bytes());
    out.extend_from_slice(&(l4_len.min(65535) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    if let Payload::Bytes(b) = payload {
        out.extend_from_slice(b);
        let c = checksum::transport(ip.src, ip.dst, PROTO_UDP, &out[udp_start..]);
        out[udp_start + 6..udp_start + 8].copy_from_slice(&c.to_be_bytes());
    }
    ip_len as u32 + l4_len
}

/// Append an IP packet carrying `proto` with an opaque payload (ESP, AH...).
pub fn ip_raw(out: &mut Vec<u8>, ip: &IpSpec, proto: u8, payload: &[u8]) -> u32 {
    let l4_len = payload.len() as u32;
    let ip_len = ip_header(out, ip, proto, l4_len);
    out.extend_from_slice(payload);
    ip_len as u32 + l4_len
}

fn ethertype_of(ip: &IpSpec) -> u16 {
    if ip.src.is_ipv6() {
        ETHERTYPE_IPV6
    } else {
        ETHERTYPE_IPV4
    }
}

/// An Ethernet frame with IP/TCP; returns the frame's full wire length.
pub fn eth_tcp(
    out: &mut Vec<u8>,
    eth: &EthSpec,
    ip: &IpSpec,
    tcp: &TcpSpec,
    payload: Payload<'_>,
) -> u32 {
    let h = eth_header(out, eth, ethertype_of(ip));
    h as u32 + ip_tcp(out, ip, tcp, payload)
}

/// An Ethernet frame with IP/UDP; returns the frame's full wire length.
pub fn eth_udp(
    out: &mut Vec<u8>,
    eth: &EthSpec,
    ip: &IpSpec,
    src_port: u16,
    dst_port: u16,
    payload: Payload<'_>,
) -> u32 {
    let h = eth_header(out, eth, ethertype_of(ip));
    h as u32 + ip_udp(out, ip, src_port, dst_port, payload)
}

/// An Ethernet frame with an opaque IP payload of protocol `proto`.
pub fn eth_ip_raw(out: &mut Vec<u8>, eth: &EthSpec, ip: &IpSpec, proto: u8, payload: &[u8]) -> u32 {
    let h = eth_header(out, eth, ethertype_of(ip));
    h as u32 + ip_raw(out, ip, proto, payload)
}

/// An Ethernet ARP packet (op 1 request, 2 reply).
#[allow(clippy::too_many_arguments)]
pub fn eth_arp(
    out: &mut Vec<u8>,
    eth: &EthSpec,
    op: u16,
    sender_mac: Mac,
    sender_ip: Ipv4Addr,
    target_mac: Mac,
    target_ip: Ipv4Addr,
) -> u32 {
    let h = eth_header(out, eth, ETHERTYPE_ARP);
    out.extend_from_slice(&[0, 1, 8, 0, 6, 4]);
    out.extend_from_slice(&op.to_be_bytes());
    out.extend_from_slice(&sender_mac.0);
    out.extend_from_slice(&sender_ip.octets());
    out.extend_from_slice(&target_mac.0);
    out.extend_from_slice(&target_ip.octets());
    h as u32 + 28
}
