//! Frame parsing (layer: engine, wire; spec 01 §1.3, §1.5 and 02 §2.3).
//!
//! The data router looks at each frame once. [`parse_ethernet`] and
//! [`parse_ip`] walk the headers through etherparse's checked header slices
//! (Ethernet II, 802.1Q VLAN, IPv4, IPv6, TCP, UDP) and our own small views for
//! ARP and the IPv6 extension chain (so AH is seen wherever it sits), and
//! return a [`FrameInfo`]: a small `Copy` value with everything the router,
//! the bulk detector and the priority mapper need.
//!
//! A frame handed to the engine may be *truncated*: `data` holds at least the
//! headers and `wire_len` is the real length (a capture with a snap length, or
//! the simulator's header-only packets). Lengths therefore come from the IP
//! header, never from `data.len()`. One exception: an IPv4 total length of
//! 0 in a packet longer than 65 535 bytes on the wire (more than the field
//! can hold) means "as long as the frame", as Linux writes it on a GSO
//! packet over 64 KiB (BIG TCP) and Wireshark reads it;
//! [`parse_ethernet_frame`] and [`parse_ip_frame`] take that length from
//! `wire_len`. A shorter packet with total length 0 is malformed: the rule
//! would make a 60-byte frame's Ethernet padding part of its packet. IPv6
//! BIG TCP leaves the payload length 0 too: Linux adds a Hop-by-Hop header
//! with the Jumbo Payload option (RFC 2675) so that captures can read the
//! length, and the length is taken from that option; without the option,
//! from `wire_len` under the same rule as IPv4 (a payload over 65 535
//! bytes on the wire).
//!
//! A frame that cannot be read gives a [`ParseError`] naming the [`Header`]
//! and the [`Problem`]: the header is *cut* when the bytes it needs were on
//! the wire (`wire_len`) but are not in `data` (a snap length, a header-only
//! copy), and *malformed* when a field is invalid whatever the length, or
//! when it needs more bytes than the frame had even on the wire. The
//! fields that say how long a header is or whether it can be read at all
//! (IP version and header length, TCP data offset) are read as soon as they
//! are held, before the rest of the header is asked for, so such a header
//! is malformed even when cut; other fields are checked once the whole
//! header is held. Nothing here panics on any input.

pub mod build;
pub mod checksum;

use crate::config::Mac;
use etherparse::{
    Ethernet2HeaderSlice, Ipv4HeaderSlice, Ipv6HeaderSlice, SingleVlanHeaderSlice, UdpHeaderSlice,
};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A frame as handed to the engine: the bytes held, and its length on the wire.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    pub data: &'a [u8],
    pub wire_len: u32,
}

impl<'a> Frame<'a> {
    /// A complete frame (`wire_len` = bytes held).
    pub fn full(data: &'a [u8]) -> Self {
        Frame {
            data,
            wire_len: u32::try_from(data.len()).unwrap_or(u32::MAX),
        }
    }
}

pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_ARP: u16 = 0x0806;
pub const ETHERTYPE_VLAN: u16 = 0x8100;
pub const ETHERTYPE_IPV6: u16 = 0x86dd;
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;
pub const PROTO_ESP: u8 = 50;
pub const PROTO_AH: u8 = 51;

/// The header a frame could not be read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    Ethernet,
    Vlan,
    /// A bare IP packet whose version is not known (neither 4 nor 6, or
    /// no byte to read it from).
    Ip,
    Ipv4,
    /// IP Authentication Header (AH) in an IPv4 packet (in IPv6 it is an
    /// extension header).
    IpAuth,
    Ipv6,
    Ipv6Extension,
    Tcp,
    Udp,
    Arp,
}

impl core::fmt::Display for Header {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Header::Ethernet => "Ethernet",
            Header::Vlan => "VLAN",
            Header::Ip => "IP",
            Header::Ipv4 => "IPv4",
            Header::IpAuth => "IP authentication (AH)",
            Header::Ipv6 => "IPv6",
            Header::Ipv6Extension => "IPv6 extension",
            Header::Tcp => "TCP",
            Header::Udp => "UDP",
            Header::Arp => "ARP",
        })
    }
}

/// What is wrong with the header (see the module notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The bytes the header needs were on the wire but are not held.
    Cut,
    /// A field is invalid, or the header runs past the frame on the wire.
    Malformed,
}

/// Why a frame could not be read (counted as FRINVCT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub header: Header,
    pub problem: Problem,
}

impl ParseError {
    fn malformed(header: Header) -> Self {
        ParseError {
            header,
            problem: Problem::Malformed,
        }
    }

    /// `header` needs `len` bytes where fewer are held; `room` is how many
    /// the frame had on the wire from the same place.
    fn short(header: Header, len: usize, room: u32) -> Self {
        let on_wire = u32::try_from(len).is_ok_and(|len| len <= room);
        ParseError {
            header,
            problem: if on_wire {
                Problem::Cut
            } else {
                Problem::Malformed
            },
        }
    }
}

impl core::fmt::Display for ParseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.problem {
            Problem::Cut => write!(
                f,
                "truncated {} header (the frame was longer on the wire)",
                self.header
            ),
            Problem::Malformed => write!(f, "malformed {} header", self.header),
        }
    }
}

impl std::error::Error for ParseError {}

/// Layer-2 facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct L2Info {
    pub dst: Mac,
    pub src: Mac,
    pub vlan: Option<u16>,
    /// VLAN priority (PCP) bits when tagged.
    pub vlan_pcp: u8,
    pub ethertype: u16,
    /// Bytes of Ethernet (and VLAN) header before the network layer.
    pub header_len: u16,
}

/// IP fragment position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Fragment {
    #[default]
    None,
    /// First fragment: transport header present.
    First,
    /// A later fragment: no transport header, 5-tuple unreadable.
    Later,
}

/// Network-layer facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpInfo {
    pub src: IpAddr,
    pub dst: IpAddr,
    /// The upper-layer protocol after any extension headers (ESP stops the walk).
    pub proto: u8,
    /// TOS (IPv4) or traffic class (IPv6).
    pub tos: u8,
    pub ttl: u8,
    pub fragment: Fragment,
    /// ESP or AH seen (spec 02 §2.3: the IPSEC queue).
    pub ipsec: bool,
    /// IP header + extension bytes before the transport header.
    pub header_len: u16,
    /// Total IP packet length from the header.
    pub total_len: u32,
}

/// ARP facts (Ethernet / IPv4 only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArpInfo {
    pub op: u16,
    pub sender_mac: Mac,
    pub sender_ip: Ipv4Addr,
    pub target_mac: Mac,
    pub target_ip: Ipv4Addr,
}

/// TCP flag bits as on the wire.
pub mod tcp_flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
}

/// Transport facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L4Info {
    Tcp {
        src_port: u16,
        dst_port: u16,
        seq: u32,
        ack: u32,
        flags: u8,
        window: u16,
        header_len: u16,
        payload_len: u32,
    },
    Udp {
        src_port: u16,
        dst_port: u16,
        payload_len: u32,
    },
    /// Not parsed (ESP, ICMP, later fragment, other).
    Other,
}

/// What the frame is above layer 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetInfo {
    Ip(IpInfo, L4Info),
    Arp(ArpInfo),
    /// A protocol the router does not read (layer 2 interfaces may still take it).
    Other,
}

/// Everything the engine reads from one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameInfo {
    /// `None` for bare IP packets (layer 3 host side).
    pub l2: Option<L2Info>,
    pub net: NetInfo,
}

/// A TCP/UDP flow key in the direction of the frame.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct FlowKey {
    pub proto: u8,
    pub src: IpAddr,
    pub src_port: u16,
    pub dst: IpAddr,
    pub dst_port: u16,
}

impl FlowKey {
    /// The same flow seen from the other end.
    pub fn reversed(&self) -> FlowKey {
        FlowKey {
            proto: self.proto,
            src: self.dst,
            src_port: self.dst_port,
            dst: self.src,
            dst_port: self.src_port,
        }
    }
}

impl core::fmt::Display for FlowKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let p = match self.proto {
            PROTO_TCP => "TCP",
            PROTO_UDP => "UDP",
            _ => "IP",
        };
        write!(
            f,
            "{p} {}..{} -> {}..{}",
            self.src, self.src_port, self.dst, self.dst_port
        )
    }
}

impl FrameInfo {
    pub fn ip(&self) -> Option<&IpInfo> {
        match &self.net {
            NetInfo::Ip(ip, _) => Some(ip),
            _ => None,
        }
    }
    pub fn l4(&self) -> Option<&L4Info> {
        match &self.net {
            NetInfo::Ip(_, l4) => Some(l4),
            _ => None,
        }
    }
    /// The 5-tuple, when it can be read (not for later fragments or non-TCP/UDP).
    pub fn flow(&self) -> Option<FlowKey> {
        match &self.net {
            NetInfo::Ip(
                ip,
                L4Info::Tcp {
                    src_port, dst_port, ..
                },
            ) => Some(FlowKey {
                proto: PROTO_TCP,
                src: ip.src,
                src_port: *src_port,
                dst: ip.dst,
                dst_port: *dst_port,
            }),
            NetInfo::Ip(
                ip,
                L4Info::Udp {
                    src_port, dst_port, ..
                },
            ) => Some(FlowKey {
                proto: PROTO_UDP,
                src: ip.src,
                src_port: *src_port,
                dst: ip.dst,
                dst_port: *dst_port,
            }),
            _ => None,
        }
    }
    /// TCP payload length, if TCP.
    pub fn tcp_payload(&self) -> Option<u32> {
        match self.l4() {
            Some(L4Info::Tcp { payload_len, .. }) => Some(*payload_len),
            _ => None,
        }
    }
    pub fn tcp_flags(&self) -> Option<u8> {
        match self.l4() {
            Some(L4Info::Tcp { flags, .. }) => Some(*flags),
            _ => None,
        }
    }
}

/// The first `len` bytes of `data` (`room` bytes long on the wire), which
/// `header` needs.
fn need(data: &[u8], len: usize, room: u32, header: Header) -> Result<&[u8], ParseError> {
    data.get(..len)
        .ok_or_else(|| ParseError::short(header, len, room))
}

/// The wire bytes left after the first `offset`.
fn room_after(room: u32, offset: usize) -> u32 {
    room.saturating_sub(u32::try_from(offset).unwrap_or(u32::MAX))
}

/// The destination MAC of a frame that starts with an Ethernet II header:
/// its first six bytes, read even when the rest cannot be parsed (None
/// when fewer are held).
pub fn dst_mac(data: &[u8]) -> Option<Mac> {
    data.first_chunk::<6>().copied().map(Mac)
}

/// Parse a frame that starts with an Ethernet II header (all of it held:
/// its length is `data.len()`).
pub fn parse_ethernet(data: &[u8]) -> Result<FrameInfo, ParseError> {
    parse_ethernet_frame(Frame::full(data))
}

/// Parse a frame that starts with an Ethernet II header, whose length on
/// the wire is `frame.wire_len` (see the module notes for the one length
/// taken from it).
pub fn parse_ethernet_frame(frame: Frame<'_>) -> Result<FrameInfo, ParseError> {
    let data = frame.data;
    let wire = frame.wire_len;
    let eth = Ethernet2HeaderSlice::from_slice(data)
        .map_err(|e| ParseError::short(Header::Ethernet, e.required_len, wire))?;
    let mut ethertype = eth.ether_type().0;
    let mut offset = 14usize;
    let mut vlan = None;
    let mut vlan_pcp = 0;
    if ethertype == ETHERTYPE_VLAN {
        let rest = data.get(offset..).unwrap_or(&[]);
        let tag = SingleVlanHeaderSlice::from_slice(rest).map_err(|e| {
            ParseError::short(Header::Vlan, e.required_len, room_after(wire, offset))
        })?;
        vlan = Some(tag.vlan_identifier().value());
        vlan_pcp = tag.priority_code_point().value();
        ethertype = tag.ether_type().0;
        offset += 4;
    }
    let l2 = L2Info {
        dst: Mac(eth.destination()),
        src: Mac(eth.source()),
        vlan,
        vlan_pcp,
        ethertype,
        header_len: offset as u16,
    };
    let rest = data.get(offset..).unwrap_or(&[]);
    let room = room_after(wire, offset);
    let net = match ethertype {
        ETHERTYPE_IPV4 => parse_ipv4(rest, room)?,
        ETHERTYPE_IPV6 => parse_ipv6(rest, room)?,
        ETHERTYPE_ARP => NetInfo::Arp(parse_arp(rest, room)?),
        _ => NetInfo::Other,
    };
    Ok(FrameInfo { l2: Some(l2), net })
}

/// Parse a bare IP packet (what a layer-3 stack hands the adapter), all
/// of it held.
pub fn parse_ip(data: &[u8]) -> Result<FrameInfo, ParseError> {
    parse_ip_frame(Frame::full(data))
}

/// Parse a bare IP packet whose full length is `packet.wire_len`.
pub fn parse_ip_frame(packet: Frame<'_>) -> Result<FrameInfo, ParseError> {
    let data = packet.data;
    let net = match data.first().map(|b| b >> 4) {
        Some(4) => parse_ipv4(data, packet.wire_len)?,
        Some(6) => parse_ipv6(data, packet.wire_len)?,
        Some(_) => return Err(ParseError::malformed(Header::Ip)),
        None => return Err(ParseError::short(Header::Ip, 1, packet.wire_len)),
    };
    Ok(FrameInfo { l2: None, net })
}

/// The largest length an IP header's 16-bit length field holds: IPv4's
/// total length, IPv6's payload length. Only a packet longer than this
/// leaves the field 0 for its length to be read elsewhere (BIG TCP).
const MAX_IP_LEN_FIELD: u32 = 65_535;

/// An IPv4 packet at the start of `data`, `room` bytes long on the wire.
fn parse_ipv4(data: &[u8], room: u32) -> Result<NetInfo, ParseError> {
    // Version and header length first: etherparse checks that 20 bytes are
    // held before it looks at them.
    let Some(&vihl) = data.first() else {
        return Err(ParseError::short(Header::Ipv4, 1, room));
    };
    let header_len = u16::from(vihl & 0x0f) * 4;
    if vihl >> 4 != 4 || header_len < 20 {
        return Err(ParseError::malformed(Header::Ipv4));
    }
    need(data, usize::from(header_len), room, Header::Ipv4)?;
    let h = Ipv4HeaderSlice::from_slice(data).map_err(|_| ParseError::malformed(Header::Ipv4))?;
    let mut total_len = u32::from(h.total_len());
    if total_len == 0 && room > MAX_IP_LEN_FIELD {
        // BIG TCP / TSO: too long for the field, so left 0 (see the module notes).
        total_len = room;
    }
    if total_len < u32::from(header_len) {
        return Err(ParseError::malformed(Header::Ipv4));
    }
    let offset = h.fragments_offset().value();
    let fragment = if offset != 0 {
        Fragment::Later
    } else if h.more_fragments() {
        Fragment::First
    } else {
        Fragment::None
    };
    let mut proto = h.protocol().0;
    let mut l4_offset = usize::from(header_len);
    let mut ipsec = proto == PROTO_ESP;
    let mut ip_payload_len = total_len - u32::from(header_len);
    // IPv4 AH: skip it to read what it protects.
    if proto == PROTO_AH && fragment != Fragment::Later {
        ipsec = true;
        let ah = data
            .get(l4_offset..l4_offset + 2)
            .ok_or_else(|| ParseError::short(Header::IpAuth, l4_offset + 2, room))?;
        let ah_len = (usize::from(ah[1]) + 2) * 4;
        proto = ah[0];
        l4_offset += ah_len;
        ip_payload_len = ip_payload_len.saturating_sub(ah_len as u32);
    }
    let ip = IpInfo {
        src: IpAddr::V4(h.source_addr()),
        dst: IpAddr::V4(h.destination_addr()),
        proto,
        tos: h.dcp().value() << 2 | h.ecn().value(),
        ttl: h.ttl(),
        fragment,
        ipsec,
        header_len: l4_offset as u16,
        total_len,
    };
    let l4 = if fragment == Fragment::Later || proto == PROTO_ESP {
        L4Info::Other
    } else {
        parse_l4(
            proto,
            data.get(l4_offset..).unwrap_or(&[]),
            ip_payload_len,
            room_after(room, l4_offset),
        )?
    };
    Ok(NetInfo::Ip(ip, l4))
}

/// An IPv6 packet at the start of `data`, `room` bytes long on the wire.
fn parse_ipv6(data: &[u8], room: u32) -> Result<NetInfo, ParseError> {
    // The version first, as for IPv4.
    let Some(&version) = data.first() else {
        return Err(ParseError::short(Header::Ipv6, 1, room));
    };
    if version >> 4 != 6 {
        return Err(ParseError::malformed(Header::Ipv6));
    }
    need(data, 40, room, Header::Ipv6)?;
    let h = Ipv6HeaderSlice::from_slice(data).map_err(|_| ParseError::malformed(Header::Ipv6))?;
    let mut payload_len = u32::from(h.payload_length());
    if payload_len == 0 {
        // BIG TCP (see the module notes): the Jumbo Payload option's length,
        // else the wire's for a payload the field cannot hold.
        let on_wire = room_after(room, 40);
        payload_len = match jumbo_payload_len(data, h.next_header().0, room)? {
            Some(len) => len,
            None if on_wire > MAX_IP_LEN_FIELD => on_wire,
            None => 0,
        };
    }
    let total_len = payload_len
        .checked_add(40)
        .ok_or(ParseError::malformed(Header::Ipv6Extension))?;
    let mut next = h.next_header().0;
    let mut offset = 40usize;
    let mut fragment = Fragment::None;
    let mut ipsec = false;
    // Extension bytes `at..at + len`.
    let ext_at = |at: usize, len: usize| {
        data.get(at..at + len)
            .ok_or_else(|| ParseError::short(Header::Ipv6Extension, at + len, room))
    };
    // Walk the extension chain: hop-by-hop 0, routing 43, fragment 44,
    // destination options 60, AH 51. ESP (50) ends what can be read.
    for _ in 0..16 {
        match next {
            0 | 43 | 60 => {
                let ext = ext_at(offset, 2)?;
                let len = (usize::from(ext[1]) + 1) * 8;
                // Hop-by-Hop and Destination Options: an option running
                // past its header makes the packet malformed (a stack
                // drops it). Checked where the capture holds the header.
                if next != 43 {
                    if let Some(options) = data.get(offset + 2..offset + len) {
                        find_option(options, None)?;
                    }
                }
                next = ext[0];
                offset += len;
            }
            44 => {
                let ext = ext_at(offset, 8)?;
                next = ext[0];
                let frag_offset = u16::from_be_bytes([ext[2], ext[3]]) >> 3;
                let more = ext[3] & 1 != 0;
                fragment = if frag_offset != 0 {
                    Fragment::Later
                } else if more {
                    Fragment::First
                } else {
                    Fragment::None
                };
                offset += 8;
            }
            PROTO_AH => {
                ipsec = true;
                let ext = ext_at(offset, 2)?;
                next = ext[0];
                offset += (usize::from(ext[1]) + 2) * 4;
            }
            _ => break,
        }
        if fragment == Fragment::Later {
            break;
        }
    }
    if next == PROTO_ESP {
        ipsec = true;
    }
    let ext_len = (offset - 40) as u32;
    if ext_len > payload_len {
        return Err(ParseError::malformed(Header::Ipv6Extension));
    }
    let ip = IpInfo {
        src: IpAddr::V6(h.source_addr()),
        dst: IpAddr::V6(h.destination_addr()),
        proto: next,
        tos: h.traffic_class(),
        ttl: h.hop_limit(),
        fragment,
        ipsec,
        header_len: offset as u16,
        total_len,
    };
    let l4 = if fragment == Fragment::Later || next == PROTO_ESP {
        L4Info::Other
    } else {
        parse_l4(
            next,
            data.get(offset..).unwrap_or(&[]),
            payload_len - ext_len,
            room_after(room, offset),
        )?
    };
    Ok(NetInfo::Ip(ip, l4))
}

/// The payload length in the Jumbo Payload option (RFC 2675) of the IPv6
/// packet at the start of `data` (`room` bytes on the wire), whose
/// payload length field is 0; `None` when the packet has no such option
/// (it would be in a Hop-by-Hop Options header, right after the IPv6
/// header). The option counts the bytes after the IPv6 header, the
/// Hop-by-Hop header's included; one of 65 535 or less, or of the wrong
/// size, is malformed.
fn jumbo_payload_len(data: &[u8], next: u8, room: u32) -> Result<Option<u32>, ParseError> {
    const HOP_BY_HOP: u8 = 0;
    const JUMBO_PAYLOAD: u8 = 0xc2;
    let bad = ParseError::malformed(Header::Ipv6Extension);
    if next != HOP_BY_HOP {
        return Ok(None);
    }
    let Some(&words) = data.get(41) else {
        return Err(ParseError::short(Header::Ipv6Extension, 42, room));
    };
    let end = 40 + (usize::from(words) + 1) * 8;
    let options = data
        .get(42..end)
        .ok_or_else(|| ParseError::short(Header::Ipv6Extension, end, room))?;
    let Some(value) = find_option(options, Some(JUMBO_PAYLOAD))? else {
        return Ok(None);
    };
    let len = <[u8; 4]>::try_from(value).map_err(|_| bad)?;
    let len = u32::from_be_bytes(len);
    if len > MAX_IP_LEN_FIELD {
        Ok(Some(len))
    } else {
        Err(bad)
    }
}

/// The value of the first option of type `want` among the type-length-
/// value `options` of a Hop-by-Hop or Destination Options header (the
/// bytes after its first two), after checking every option fits in them;
/// an option that runs past them is malformed.
fn find_option(options: &[u8], want: Option<u8>) -> Result<Option<&[u8]>, ParseError> {
    const PAD1: u8 = 0;
    let bad = ParseError::malformed(Header::Ipv6Extension);
    let (mut at, mut found) = (0, None);
    while let Some(&kind) = options.get(at) {
        if kind == PAD1 {
            at += 1;
            continue;
        }
        let len = usize::from(*options.get(at + 1).ok_or(bad)?);
        let value = options.get(at + 2..at + 2 + len).ok_or(bad)?;
        if found.is_none() && want == Some(kind) {
            found = Some(value);
        }
        at += 2 + len;
    }
    Ok(found)
}

/// A transport header at the start of `data` (`room` bytes on the wire),
/// in an IP payload of `ip_payload_len` bytes.
fn parse_l4(proto: u8, data: &[u8], ip_payload_len: u32, room: u32) -> Result<L4Info, ParseError> {
    Ok(match proto {
        PROTO_TCP => {
            // The data offset decides the header's length: read it first.
            let Some(&offset) = data.get(12) else {
                return Err(ParseError::short(Header::Tcp, 20, room));
            };
            let header_len = u16::from(offset >> 4) * 4;
            if header_len < 20 || u32::from(header_len) > ip_payload_len {
                return Err(ParseError::malformed(Header::Tcp));
            }
            // The fixed 20 bytes carry everything the adapter reads. The
            // options may have been cut by a capture's snap length (a
            // header capture of 64 or 68 bytes ends inside TCP timestamps):
            // the frame is still read, as long as they were on the wire.
            let fixed = need(data, 20, room, Header::Tcp)?;
            if data.len() < usize::from(header_len) {
                need(data, usize::from(header_len), room, Header::Tcp).or_else(|e| {
                    if e.problem == Problem::Cut {
                        Ok(fixed)
                    } else {
                        Err(e)
                    }
                })?;
            }
            let be16 = |at: usize| u16::from_be_bytes([fixed[at], fixed[at + 1]]);
            let be32 = |at: usize| {
                u32::from_be_bytes([fixed[at], fixed[at + 1], fixed[at + 2], fixed[at + 3]])
            };
            L4Info::Tcp {
                src_port: be16(0),
                dst_port: be16(2),
                seq: be32(4),
                ack: be32(8),
                flags: fixed[13],
                window: be16(14),
                header_len,
                payload_len: ip_payload_len - u32::from(header_len),
            }
        }
        PROTO_UDP => {
            let u = UdpHeaderSlice::from_slice(data)
                .map_err(|e| ParseError::short(Header::Udp, e.required_len, room))?;
            if ip_payload_len < 8 {
                return Err(ParseError::malformed(Header::Udp));
            }
            L4Info::Udp {
                src_port: u.source_port(),
                dst_port: u.destination_port(),
                payload_len: ip_payload_len - 8,
            }
        }
        _ => L4Info::Other,
    })
}

/// An ARP packet at the start of `data`, `room` bytes long on the wire.
fn parse_arp(data: &[u8], room: u32) -> Result<ArpInfo, ParseError> {
    // Ethernet/IPv4 ARP: htype 1, ptype 0x0800, hlen 6, plen 4.
    let a = need(data, 28, room, Header::Arp)?;
    if a[0..2] != [0, 1] || a[2..4] != [8, 0] || a[4] != 6 || a[5] != 4 {
        return Err(ParseError::malformed(Header::Arp));
    }
    let mac = |s: &[u8]| {
        let mut m = [0u8; 6];
        m.copy_from_slice(s);
        Mac(m)
    };
    Ok(ArpInfo {
        op: u16::from_be_bytes([a[6], a[7]]),
        sender_mac: mac(&a[8..14]),
        sender_ip: Ipv4Addr::new(a[14], a[15], a[16], a[17]),
        target_mac: mac(&a[18..24]),
        target_ip: Ipv4Addr::new(a[24], a[25], a[26], a[27]),
    })
}

/// Is this address one the adapter treats as group (multicast/broadcast)?
pub fn is_group_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => a.is_multicast() || a.is_broadcast(),
        IpAddr::V6(a) => a.is_multicast(),
    }
}

/// The IPv6 solicited-node multicast address for `ip` (for neighbour discovery).
pub fn solicited_node(ip: Ipv6Addr) -> Ipv6Addr {
    let o = ip.octets();
    Ipv6Addr::new(
        0xff02,
        0,
        0,
        0,
        0,
        1,
        0xff00 | u16::from(o[13]),
        u16::from_be_bytes([o[14], o[15]]),
    )
}

#[cfg(test)]
mod tests;
