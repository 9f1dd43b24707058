//! Packets as real header bytes (simulator layer; spec 6.2 "Links", 1.5).
//!
//! The simulator's TCP segments are turned into genuine Ethernet II + IPv4 +
//! TCP headers (54 bytes) so the engine's parser and data router classify them
//! exactly as they would live traffic. Payload bytes never exist: a frame is
//! the 54 header bytes plus its real `wire_len`.
//!
//! An IPsec-protected segment (spec 4.1: ESP in transport mode) is IP
//! protocol 50: after the IPv4 header comes the 8-byte ESP header (SPI and
//! sequence number), and after that, where the ciphertext would start, the
//! simulator keeps the TCP header in the clear for its own use; the adapter
//! reads only up to the ESP header, as it would. Its wire length adds what
//! ESP adds to each packet ([`ESP_OVERHEAD`]).

/// Length of Ethernet (14) + IPv4 (20) + TCP (20) headers.
pub const HDR_LEN: usize = 54;
/// An 802.1Q tag (TPID 0x8100 and the tag control field). The simulator's
/// LAN carries untagged frames; the tag exists between the switch and an
/// adapter port whose interface codes `VLANID` ([`crate::osa`]).
pub const VLAN_TAG_LEN: usize = 4;
/// The ESP header: SPI (4) and sequence number (4).
pub const ESP_HDR_LEN: usize = 8;
/// The longest header the simulator builds: an ESP packet's.
pub const MAX_HDR_LEN: usize = HDR_LEN + ESP_HDR_LEN;
/// What ESP adds to a packet on the wire, bytes: its header (8), an
/// AES-GCM initialisation vector (8), the trailer's pad length and next
/// header (2) with padding to a 4-byte boundary (2 on average), and a
/// 16-byte integrity check value.
pub const ESP_OVERHEAD: u32 = 36;
/// The IP protocol number of ESP.
const IPPROTO_ESP: u8 = 50;
/// Ethernet per-frame overhead on the wire that is not in `wire_len`:
/// preamble+SFD (8), FCS (4), inter-frame gap (12).
pub const ETH_OVERHEAD: u32 = 24;
/// Minimum Ethernet frame without FCS (60 bytes + 4 FCS = 64).
pub const ETH_MIN: u32 = 60;

pub const FIN: u8 = 0x01;
pub const SYN: u8 = 0x02;
pub const RST: u8 = 0x04;
pub const PSH: u8 = 0x08;
pub const ACK: u8 = 0x10;

/// Window scale used on every simulated connection (advertised windows are
/// carried in the 16-bit field shifted by this amount).
pub const WSCALE: u32 = 6;

/// A TCP/IPv4 segment as the simulator sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pkt {
    pub src_mac: [u8; 6],
    pub dst_mac: [u8; 6],
    pub src_ip: u32,
    pub dst_ip: u32,
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub tos: u8,
    /// Advertised receive window in bytes (scaled on the wire).
    pub wnd: u32,
    /// TCP payload bytes (may exceed the MTU for an offloaded large send).
    pub len: u32,
    /// Carried by this SMC path (a write into the peer's buffer, or a
    /// cursor update), not as a frame through the adapter and the switch.
    pub smc: Option<SmcKind>,
    /// IPsec-protected (ESP): encrypted by the sending host, decrypted by
    /// the receiving one, and not readable past the ESP header on the way.
    pub esp: bool,
}

/// SMC-R (RoCE, between machines) or SMC-D (ISM, inside one machine).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SmcKind {
    R,
    D,
}

impl Pkt {
    /// Length on the wire excluding preamble/FCS/IFG (padded to 60).
    pub fn wire_len(&self) -> u32 {
        (HDR_LEN as u32 + self.esp_overhead() + self.len).max(ETH_MIN)
    }
    /// Bytes ESP adds to this packet (none when it is not protected).
    pub fn esp_overhead(&self) -> u32 {
        if self.esp {
            ESP_OVERHEAD
        } else {
            0
        }
    }
    /// Build the header bytes (Ethernet, IPv4, the ESP header if
    /// protected, TCP); how many: 54, or [`MAX_HDR_LEN`] for ESP.
    pub fn build(&self, b: &mut [u8; MAX_HDR_LEN]) -> usize {
        b[0..6].copy_from_slice(&self.dst_mac);
        b[6..12].copy_from_slice(&self.src_mac);
        b[12] = 0x08;
        b[13] = 0x00;
        let ip = &mut b[14..34];
        ip[0] = 0x45;
        ip[1] = self.tos;
        let tot = (40 + self.esp_overhead() + self.len).min(65535) as u16;
        ip[2..4].copy_from_slice(&tot.to_be_bytes());
        ip[4..6].copy_from_slice(&(self.seq as u16).to_be_bytes());
        ip[6] = 0x40; // DF
        ip[7] = 0;
        ip[8] = 64;
        ip[9] = if self.esp { IPPROTO_ESP } else { 6 };
        ip[10] = 0;
        ip[11] = 0;
        ip[12..16].copy_from_slice(&self.src_ip.to_be_bytes());
        ip[16..20].copy_from_slice(&self.dst_ip.to_be_bytes());
        let c = ip_checksum(ip);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        let mut at = 34;
        if self.esp {
            // One security association per connection and direction: an
            // SPI made from the ports (1-255 are reserved), the sequence
            // number from TCP's.
            let spi = u32::from(self.sport).wrapping_mul(0x9e37_79b1) ^ u32::from(self.dport);
            b[34..38].copy_from_slice(&spi.max(256).to_be_bytes());
            b[38..42].copy_from_slice(&self.seq.to_be_bytes());
            at += ESP_HDR_LEN;
        }
        let t = &mut b[at..at + 20];
        t[0..2].copy_from_slice(&self.sport.to_be_bytes());
        t[2..4].copy_from_slice(&self.dport.to_be_bytes());
        t[4..8].copy_from_slice(&self.seq.to_be_bytes());
        t[8..12].copy_from_slice(&self.ack.to_be_bytes());
        t[12] = 5 << 4;
        t[13] = self.flags;
        let w = (self.wnd >> WSCALE).min(65535) as u16;
        t[14..16].copy_from_slice(&w.to_be_bytes());
        t[16] = 0;
        t[17] = 0;
        t[18] = 0;
        t[19] = 0;
        at + 20
    }
    /// Parse a frame that starts with an Ethernet header (with or without
    /// an 802.1Q tag) or directly with an IPv4 header (layer-3
    /// presentation). `wire_len` is the frame's real length, used when the
    /// IP total length was clamped (large sends).
    pub fn parse(data: &[u8], wire_len: u32) -> Option<Pkt> {
        let (macs, ip, l2) = if data.first().map(|b| b >> 4) == Some(4) {
            (None, data, 0u32)
        } else {
            let tag = if data.get(12..14) == Some(&[0x81, 0x00]) {
                VLAN_TAG_LEN
            } else {
                0
            };
            let l2 = 14 + tag;
            if data.len() < l2 || data[12 + tag] != 0x08 || data[13 + tag] != 0x00 {
                return None;
            }
            (Some(&data[0..12]), &data[l2..], l2 as u32)
        };
        if ip.len() < 40 || ip[0] >> 4 != 4 || (ip[9] != 6 && ip[9] != IPPROTO_ESP) {
            return None;
        }
        let esp = ip[9] == IPPROTO_ESP;
        let ihl = ((ip[0] & 0x0f) as usize) * 4;
        let skip = if esp { ESP_HDR_LEN } else { 0 };
        if ihl < 20 || ip.len() < ihl + skip + 20 {
            return None;
        }
        let t = &ip[ihl + skip..];
        let doff = ((t[12] >> 4) as u32) * 4;
        let extra = if esp { ESP_OVERHEAD } else { 0 };
        let hdrs = l2 + ihl as u32 + doff + extra;
        let tot = u16::from_be_bytes([ip[2], ip[3]]) as u32;
        let len_ip = tot.saturating_sub(ihl as u32 + doff + extra);
        let len_wire = wire_len.saturating_sub(hdrs);
        // Minimum-size frames are padded: trust the IP length when smaller.
        let len = if tot >= 65535 { len_wire } else { len_ip };
        let mut src_mac = [0u8; 6];
        let mut dst_mac = [0u8; 6];
        if let Some(m) = macs {
            dst_mac.copy_from_slice(&m[0..6]);
            src_mac.copy_from_slice(&m[6..12]);
        }
        let be32 = |s: &[u8]| u32::from_be_bytes([s[0], s[1], s[2], s[3]]);
        Some(Pkt {
            src_mac,
            dst_mac,
            src_ip: be32(&ip[12..16]),
            dst_ip: be32(&ip[16..20]),
            sport: u16::from_be_bytes([t[0], t[1]]),
            dport: u16::from_be_bytes([t[2], t[3]]),
            seq: be32(&t[4..8]),
            ack: be32(&t[8..12]),
            flags: t[13],
            tos: ip[1],
            wnd: (u16::from_be_bytes([t[14], t[15]]) as u32) << WSCALE,
            len,
            smc: None,
            esp,
        })
    }
}

fn ip_checksum(h: &[u8]) -> u16 {
    let mut s: u32 = 0;
    for c in h.chunks(2) {
        s += u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]));
    }
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

/// A simulator MAC address naming NIC `idx` (locally administered, 02:5a:..).
pub fn nic_mac(idx: usize) -> [u8; 6] {
    let i = idx as u32;
    [0x02, 0x5a, 0, (i >> 16) as u8, (i >> 8) as u8, i as u8]
}

#[cfg(test)]
mod tests {
    use super::*;
    fn sample() -> Pkt {
        Pkt {
            src_mac: nic_mac(1),
            dst_mac: nic_mac(2),
            src_ip: 0xc0000201,
            dst_ip: 0xc0000202,
            sport: 1025,
            dport: 5001,
            seq: 0xfffffff0,
            ack: 77,
            flags: ACK | PSH,
            tos: 0,
            wnd: 65536,
            len: 1448,
            smc: None,
            esp: false,
        }
    }
    #[test]
    fn round_trips_through_bytes() {
        let p = sample();
        let mut b = [0u8; MAX_HDR_LEN];
        assert_eq!(p.build(&mut b), HDR_LEN);
        assert_eq!(ip_checksum(&b[14..34]), 0, "valid IPv4 checksum");
        let q = Pkt::parse(&b, p.wire_len()).unwrap();
        assert_eq!(p, q);
        // layer-3 presentation (no Ethernet header)
        let r = Pkt::parse(&b[14..], p.wire_len() - 14).unwrap();
        assert_eq!(r.seq, p.seq);
        assert_eq!(r.len, 1448);
    }
    #[test]
    fn a_vlan_tagged_frame_parses_as_the_untagged_one() {
        let p = sample();
        let mut b = [0u8; MAX_HDR_LEN];
        let n = p.build(&mut b);
        let mut t = b[..12].to_vec();
        t.extend_from_slice(&[0x81, 0x00, 0x00, 0x0a]);
        t.extend_from_slice(&b[12..n]);
        let q = Pkt::parse(&t, p.wire_len() + VLAN_TAG_LEN as u32).unwrap();
        assert_eq!(p, q);
        // A tag followed by something other than IPv4 is not a segment.
        t[16] = 0x86;
        t[17] = 0xdd;
        assert!(Pkt::parse(&t, 100).is_none());
    }
    #[test]
    fn small_frames_are_padded_but_keep_payload_length() {
        let mut p = sample();
        p.len = 1;
        assert_eq!(p.wire_len(), 60);
        let mut b = [0u8; MAX_HDR_LEN];
        p.build(&mut b);
        assert_eq!(Pkt::parse(&b, 60).unwrap().len, 1);
        p.len = 0;
        p.build(&mut b);
        assert_eq!(Pkt::parse(&b, 60).unwrap().len, 0);
    }
    #[test]
    fn rejects_non_tcp_and_short() {
        let mut b = [0u8; MAX_HDR_LEN];
        sample().build(&mut b);
        b[23] = 17;
        assert!(Pkt::parse(&b, 100).is_none());
        assert!(Pkt::parse(&b[..20], 100).is_none());
    }
    #[test]
    fn an_esp_packet_is_protocol_50_and_longer_on_the_wire() {
        let p = Pkt {
            esp: true,
            ..sample()
        };
        let mut b = [0u8; MAX_HDR_LEN];
        assert_eq!(p.build(&mut b), MAX_HDR_LEN);
        assert_eq!(b[23], 50, "IP protocol ESP");
        assert_eq!(ip_checksum(&b[14..34]), 0, "valid IPv4 checksum");
        assert_eq!(p.wire_len(), sample().wire_len() + ESP_OVERHEAD);
        let tot = u16::from_be_bytes([b[16], b[17]]) as u32;
        assert_eq!(tot + 14, p.wire_len(), "IP total length");
        assert_eq!(Pkt::parse(&b, p.wire_len()), Some(p));
        // layer 3, and a pure ACK (padding never hides ESP's overhead)
        let a = Pkt { len: 0, ..p };
        a.build(&mut b);
        let l3 = Pkt {
            src_mac: [0; 6],
            dst_mac: [0; 6],
            ..a
        };
        assert_eq!(Pkt::parse(&b[14..], a.wire_len() - 14), Some(l3));
    }
    #[test]
    fn nic_macs_are_local_unicast_and_one_per_nic() {
        for i in [0, 1, 255, 256, 70000] {
            let m = nic_mac(i);
            assert_eq!(m[0] & 0x03, 0x02, "locally administered, unicast");
            assert_ne!(m, nic_mac(i + 1));
        }
    }
}
