//! The virtio-net header and checksum/segmentation offload bookkeeping of the
//! live driver (spec 8.1 "Host side", 3.2 "TCP segmentation offload").
//!
//! Pure functions over byte slices, no I/O. Both the TAP/TUN devices and the
//! AF_PACKET wire socket are opened with the legacy 10-byte virtio-net header
//! so the Linux stacks on either side hand over and accept large (GSO)
//! segments and partial checksums.
//!
//! The engine sees only the frame bytes, so the header is *not* carried
//! through it. It is rebuilt on the way out from the frame itself:
//! a TCP/UDP packet whose checksum field holds the folded pseudo-header sum is
//! in "partial" form (`VIRTIO_NET_HDR_F_NEEDS_CSUM`: the receiver completes
//! it); anything else carries a full checksum and is sent with no flag. If a
//! valid full checksum happens to equal the pseudo-header sum, marking it
//! partial is harmless: completing it recomputes the same value. A TCP packet
//! larger than the egress MTU is marked GSO with the MSS that MTU implies.

/// Size of the legacy `struct virtio_net_hdr`.
pub const VNET_HDR_LEN: usize = 10;
/// `VIRTIO_NET_HDR_F_NEEDS_CSUM`: checksum is partial, complete it.
pub const F_NEEDS_CSUM: u8 = 1;
/// `VIRTIO_NET_HDR_F_DATA_VALID`: checksum already verified.
pub const F_DATA_VALID: u8 = 2;
/// `VIRTIO_NET_HDR_GSO_NONE`.
pub const GSO_NONE: u8 = 0;
/// `VIRTIO_NET_HDR_GSO_TCPV4`.
pub const GSO_TCPV4: u8 = 1;
/// `VIRTIO_NET_HDR_GSO_UDP`.
pub const GSO_UDP: u8 = 3;
/// `VIRTIO_NET_HDR_GSO_TCPV6`.
pub const GSO_TCPV6: u8 = 4;
/// `VIRTIO_NET_HDR_GSO_ECN` flag bit.
pub const GSO_ECN: u8 = 0x80;

/// The legacy virtio-net header (native byte order, as TAP and AF_PACKET use
/// on a little-endian host without `TUNSETVNETBE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VnetHdr {
    pub flags: u8,
    pub gso_type: u8,
    pub hdr_len: u16,
    pub gso_size: u16,
    pub csum_start: u16,
    pub csum_offset: u16,
}

impl VnetHdr {
    /// Parse the first [`VNET_HDR_LEN`] bytes; `None` if too short.
    pub fn parse(b: &[u8]) -> Option<VnetHdr> {
        let b = b.get(..VNET_HDR_LEN)?;
        let u = |i: usize| u16::from_ne_bytes([b[i], b[i + 1]]);
        Some(VnetHdr {
            flags: b[0],
            gso_type: b[1],
            hdr_len: u(2),
            gso_size: u(4),
            csum_start: u(6),
            csum_offset: u(8),
        })
    }

    /// Write into the first [`VNET_HDR_LEN`] bytes of `out`.
    pub fn write(&self, out: &mut [u8; VNET_HDR_LEN]) {
        out[0] = self.flags;
        out[1] = self.gso_type;
        out[2..4].copy_from_slice(&self.hdr_len.to_ne_bytes());
        out[4..6].copy_from_slice(&self.gso_size.to_ne_bytes());
        out[6..8].copy_from_slice(&self.csum_start.to_ne_bytes());
        out[8..10].copy_from_slice(&self.csum_offset.to_ne_bytes());
    }
}

/// Whether frames start with an Ethernet header (TAP, wire) or the IP header
/// (TUN, layer 3 mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    Ethernet,
    Ip,
}

/// Where the transport header of a TCP/UDP packet sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct L4Info {
    pub l3_off: usize,
    pub l4_off: usize,
    pub ipv6: bool,
    /// 6 (TCP) or 17 (UDP).
    pub proto: u8,
    /// Transport header length (TCP data offset; 8 for UDP).
    pub l4_hdr_len: usize,
    /// Transport length (header + payload) per the IP header.
    pub l4_len: usize,
}

impl L4Info {
    /// Offset of the checksum field inside the transport header.
    pub fn csum_field(&self) -> usize {
        if self.proto == 6 {
            16
        } else {
            6
        }
    }
}

/// Locate a TCP or UDP header; `None` for anything else (ARP, ICMP,
/// fragments, IPv6 extension headers, truncated or inconsistent headers).
pub fn l4_info(frame: &[u8], framing: Framing) -> Option<L4Info> {
    let mut l3 = 0usize;
    let mut ethertype;
    if framing == Framing::Ethernet {
        ethertype = u16::from_be_bytes([*frame.get(12)?, *frame.get(13)?]);
        l3 = 14;
        if ethertype == 0x8100 {
            ethertype = u16::from_be_bytes([*frame.get(16)?, *frame.get(17)?]);
            l3 = 18;
        }
    } else {
        ethertype = match frame.first()? >> 4 {
            4 => 0x0800,
            6 => 0x86dd,
            _ => return None,
        };
    }
    let ip = frame.get(l3..)?;
    let (l4_off, proto, l4_len, ipv6) = match ethertype {
        0x0800 => {
            if ip.len() < 20 || ip[0] >> 4 != 4 {
                return None;
            }
            let ihl = usize::from(ip[0] & 0x0f) * 4;
            let total = usize::from(u16::from_be_bytes([ip[2], ip[3]]));
            let frag = u16::from_be_bytes([ip[6], ip[7]]);
            if ihl < 20 || total < ihl || total > ip.len() || frag & 0x3fff != 0 {
                return None;
            }
            (l3 + ihl, ip[9], total - ihl, false)
        }
        0x86dd => {
            if ip.len() < 40 || ip[0] >> 4 != 6 {
                return None;
            }
            let plen = usize::from(u16::from_be_bytes([ip[4], ip[5]]));
            if 40 + plen > ip.len() {
                return None;
            }
            (l3 + 40, ip[6], plen, true)
        }
        _ => return None,
    };
    let l4_hdr_len = match proto {
        6 => usize::from(*frame.get(l4_off + 12)? >> 4) * 4,
        17 => 8,
        _ => return None,
    };
    if l4_hdr_len < 8 || l4_hdr_len > l4_len || frame.len() < l4_off + l4_len {
        return None;
    }
    Some(L4Info {
        l3_off: l3,
        l4_off,
        ipv6,
        proto,
        l4_hdr_len,
        l4_len,
    })
}

/// One's-complement sum of `data` (big-endian 16-bit words, odd byte padded)
/// added to `acc`, not folded.
pub fn ones_sum(data: &[u8], mut acc: u64) -> u64 {
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        acc += (w >> 32) + (w & 0xffff_ffff);
    }
    let mut rest = chunks.remainder().chunks_exact(2);
    for c in &mut rest {
        acc += u64::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [b] = rest.remainder() {
        acc += u64::from(*b) << 8;
    }
    acc
}

/// Fold a one's-complement accumulator to 16 bits.
pub fn fold(mut acc: u64) -> u16 {
    while acc >> 16 != 0 {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// Pseudo-header sum (addresses, protocol, transport length), unfolded.
pub fn pseudo_sum(frame: &[u8], info: &L4Info) -> u64 {
    let (src, dst) = if info.ipv6 {
        (
            info.l3_off + 8..info.l3_off + 24,
            info.l3_off + 24..info.l3_off + 40,
        )
    } else {
        (
            info.l3_off + 12..info.l3_off + 16,
            info.l3_off + 16..info.l3_off + 20,
        )
    };
    let mut acc = ones_sum(&frame[src], 0);
    acc = ones_sum(&frame[dst], acc);
    acc + u64::from(info.proto) + info.l4_len as u64
}

/// Whether the checksum field holds the partial (pseudo-header) sum.
pub fn is_partial(frame: &[u8], info: &L4Info) -> bool {
    let f = info.l4_off + info.csum_field();
    let stored = u16::from_be_bytes([frame[f], frame[f + 1]]);
    stored == fold(pseudo_sum(frame, info))
}

/// Complete a partial checksum in software: sum from `csum_start` to the end
/// of the transport data and store the complement at
/// `csum_start + csum_offset`. Returns false if the offsets do not fit.
pub fn complete_csum(frame: &mut [u8], csum_start: usize, csum_offset: usize, end: usize) -> bool {
    let field = csum_start + csum_offset;
    if end > frame.len() || field + 2 > end || csum_start >= end {
        return false;
    }
    let mut c = !fold(ones_sum(&frame[csum_start..end], 0));
    if c == 0 && csum_offset == 6 {
        // UDP: a computed zero is sent as all ones.
        c = 0xffff;
    }
    frame[field..field + 2].copy_from_slice(&c.to_be_bytes());
    true
}

/// Full checksum of a TCP/UDP packet (replacing whatever the field holds).
pub fn fill_full_csum(frame: &mut [u8], info: &L4Info) {
    let f = info.l4_off + info.csum_field();
    let p = fold(pseudo_sum(frame, info));
    frame[f..f + 2].copy_from_slice(&p.to_be_bytes());
    complete_csum(
        frame,
        info.l4_off,
        info.csum_field(),
        info.l4_off + info.l4_len,
    );
}

/// Check a full TCP/UDP checksum (true if it verifies).
pub fn verify_csum(frame: &[u8], info: &L4Info) -> bool {
    let end = info.l4_off + info.l4_len;
    if info.proto == 17 {
        let f = info.l4_off + 6;
        if !info.ipv6 && frame[f] == 0 && frame[f + 1] == 0 {
            return true; // IPv4 UDP without checksum
        }
    }
    fold(ones_sum(&frame[info.l4_off..end], pseudo_sum(frame, info))) == 0xffff
}

/// Bring a frame received with header `h` into the form the driver keeps
/// internally: exactly as received, except that a checksum described by
/// `NEEDS_CSUM` offsets that do *not* sit at the standard TCP/UDP field is
/// completed in software (so the egress rule can find every partial sum).
/// Returns false if the header's offsets are out of range (drop the frame).
pub fn normalize_ingress(frame: &mut [u8], h: &VnetHdr, framing: Framing) -> bool {
    if h.flags & F_NEEDS_CSUM == 0 {
        return true;
    }
    let start = usize::from(h.csum_start);
    let off = usize::from(h.csum_offset);
    if let Some(info) = l4_info(frame, framing) {
        if info.l4_off == start && info.csum_field() == off {
            return true;
        }
        return complete_csum(frame, start, off, info.l4_off + info.l4_len);
    }
    complete_csum(frame, start, off, frame.len())
}

/// Build the header for sending `frame` to a device or socket whose MTU (IP
/// packet size) is `mtu`: partial checksums get `NEEDS_CSUM`, TCP packets
/// larger than the MTU get GSO with the MSS the MTU implies.
pub fn egress_hdr(frame: &[u8], framing: Framing, mtu: usize) -> VnetHdr {
    let Some(info) = l4_info(frame, framing) else {
        return VnetHdr::default();
    };
    let mut h = VnetHdr::default();
    if is_partial(frame, &info) {
        h.flags = F_NEEDS_CSUM;
        h.csum_start = info.l4_off as u16;
        h.csum_offset = info.csum_field() as u16;
    }
    let ip_len = info.l4_off - info.l3_off + info.l4_len;
    if info.proto == 6 && ip_len > mtu && h.flags & F_NEEDS_CSUM != 0 {
        let hdrs = info.l4_off - info.l3_off + info.l4_hdr_len;
        let mss = mtu.saturating_sub(hdrs).max(1);
        h.gso_type = if info.ipv6 { GSO_TCPV6 } else { GSO_TCPV4 };
        h.gso_size = mss.min(usize::from(u16::MAX)) as u16;
        h.hdr_len = (info.l4_off + info.l4_hdr_len) as u16;
    }
    h
}

/// Cut one large TCP segment into segments of at most `mss` payload bytes
/// (software segmentation, as the adapter's "large send" does), calling
/// `emit` with each complete frame (full, valid checksums; IPv4 header
/// checksum and ID, lengths, sequence numbers and flags fixed up). Returns
/// the number of segments, or `None` if the frame is not a TCP packet.
pub fn segment_tcp(
    frame: &[u8],
    framing: Framing,
    mss: usize,
    scratch: &mut Vec<u8>,
    mut emit: impl FnMut(&[u8]),
) -> Option<usize> {
    let info = l4_info(frame, framing)?;
    if info.proto != 6 || mss == 0 {
        return None;
    }
    let hdr_end = info.l4_off + info.l4_hdr_len;
    let payload = &frame[hdr_end..info.l4_off + info.l4_len];
    let seq0 = u32::from_be_bytes([
        frame[info.l4_off + 4],
        frame[info.l4_off + 5],
        frame[info.l4_off + 6],
        frame[info.l4_off + 7],
    ]);
    let flags0 = frame[info.l4_off + 13];
    let ip_id0 = if info.ipv6 {
        0
    } else {
        u16::from_be_bytes([frame[info.l3_off + 4], frame[info.l3_off + 5]])
    };
    let n = payload.len().div_ceil(mss).max(1);
    for i in 0..n {
        let lo = (i * mss).min(payload.len());
        let hi = ((i + 1) * mss).min(payload.len());
        scratch.clear();
        scratch.extend_from_slice(&frame[..hdr_end]);
        scratch.extend_from_slice(&payload[lo..hi]);
        let l4_len = info.l4_hdr_len + (hi - lo);
        let l3 = info.l3_off;
        if info.ipv6 {
            scratch[l3 + 4..l3 + 6].copy_from_slice(&(l4_len as u16).to_be_bytes());
        } else {
            let total = (info.l4_off - l3 + l4_len) as u16;
            scratch[l3 + 2..l3 + 4].copy_from_slice(&total.to_be_bytes());
            scratch[l3 + 4..l3 + 6].copy_from_slice(&ip_id0.wrapping_add(i as u16).to_be_bytes());
            scratch[l3 + 10] = 0;
            scratch[l3 + 11] = 0;
            let c = !fold(ones_sum(&scratch[l3..info.l4_off], 0));
            scratch[l3 + 10..l3 + 12].copy_from_slice(&c.to_be_bytes());
        }
        let t = info.l4_off;
        let seq = seq0.wrapping_add(lo as u32);
        scratch[t + 4..t + 8].copy_from_slice(&seq.to_be_bytes());
        let mut fl = flags0;
        if i + 1 < n {
            fl &= !(0x01 | 0x08); // FIN, PSH only on the last segment
        }
        if i > 0 {
            fl &= !0x80; // CWR only on the first
        }
        scratch[t + 13] = fl;
        let seg_info = L4Info { l4_len, ..info };
        fill_full_csum(scratch, &seg_info);
        emit(scratch);
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small IPv4/TCP frame with a full checksum.
    fn tcp4(payload: &[u8]) -> Vec<u8> {
        let mut f = vec![0u8; 14];
        f[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
        f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 2]);
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        let total = 20 + 20 + payload.len();
        let mut ip = vec![
            0x45, 0, 0, 0, 0x12, 0x34, 0x40, 0, 64, 6, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2,
        ];
        ip[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        let c = !fold(ones_sum(&ip, 0));
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        f.extend_from_slice(&ip);
        let tcp = [
            0x30, 0x39, 0x14, 0x51, 0, 0, 0x10, 0, 0, 0, 0, 0, 0x50, 0x19, 0xff, 0xff, 0, 0, 0, 0,
        ];
        f.extend_from_slice(&tcp);
        f.extend_from_slice(payload);
        let info = l4_info(&f, Framing::Ethernet).unwrap();
        fill_full_csum(&mut f, &info);
        f
    }

    #[test]
    fn header_round_trip() {
        let h = VnetHdr {
            flags: F_NEEDS_CSUM,
            gso_type: GSO_TCPV6,
            hdr_len: 74,
            gso_size: 1428,
            csum_start: 54,
            csum_offset: 16,
        };
        let mut b = [0u8; VNET_HDR_LEN];
        h.write(&mut b);
        assert_eq!(VnetHdr::parse(&b), Some(h));
        assert_eq!(VnetHdr::parse(&b[..9]), None);
    }

    #[test]
    fn full_checksum_verifies_and_partial_is_detected() {
        let mut f = tcp4(b"hello world!");
        let info = l4_info(&f, Framing::Ethernet).unwrap();
        assert_eq!(info.l4_off, 34);
        assert!(verify_csum(&f, &info));
        assert!(!is_partial(&f, &info));
        // Turn it into partial form as a Linux stack would hand it over.
        let p = fold(pseudo_sum(&f, &info));
        f[50..52].copy_from_slice(&p.to_be_bytes());
        assert!(is_partial(&f, &info));
        assert!(!verify_csum(&f, &info));
        let h = egress_hdr(&f, Framing::Ethernet, 1500);
        assert_eq!(h.flags, F_NEEDS_CSUM);
        assert_eq!((h.csum_start, h.csum_offset), (34, 16));
        assert_eq!(h.gso_type, GSO_NONE);
        // Completing it in software yields the full checksum again.
        let n = f.len();
        assert!(complete_csum(&mut f, 34, 16, n));
        assert!(verify_csum(&f, &info));
        assert_eq!(f, tcp4(b"hello world!"));
    }

    #[test]
    fn odd_length_and_corruption_detected() {
        let mut f = tcp4(b"abc");
        let info = l4_info(&f, Framing::Ethernet).unwrap();
        assert!(verify_csum(&f, &info));
        let last = f.len() - 1;
        f[last] ^= 0x40;
        assert!(!verify_csum(&f, &info));
    }

    #[test]
    fn ip_framing_and_non_tcp() {
        let f = tcp4(b"x");
        assert!(l4_info(&f[14..], Framing::Ip).is_some());
        let mut arp = f.clone();
        arp[12..14].copy_from_slice(&[0x08, 0x06]);
        assert!(l4_info(&arp, Framing::Ethernet).is_none());
        assert_eq!(
            egress_hdr(&arp, Framing::Ethernet, 1500),
            VnetHdr::default()
        );
        // Truncated header is rejected, not panicking.
        assert!(l4_info(&f[..40], Framing::Ethernet).is_none());
    }

    #[test]
    fn large_partial_tcp_gets_gso_and_segments_cleanly() {
        let payload: Vec<u8> = (0..4000u32).map(|i| (i % 251) as u8).collect();
        let mut f = tcp4(&payload);
        let info = l4_info(&f, Framing::Ethernet).unwrap();
        let p = fold(pseudo_sum(&f, &info));
        f[50..52].copy_from_slice(&p.to_be_bytes());
        let h = egress_hdr(&f, Framing::Ethernet, 1500);
        assert_eq!(h.gso_type, GSO_TCPV4);
        assert_eq!(h.gso_size, 1460);
        let mut segs = Vec::new();
        let mut scratch = Vec::new();
        let n = segment_tcp(&f, Framing::Ethernet, 1460, &mut scratch, |s| {
            segs.push(s.to_vec())
        })
        .unwrap();
        assert_eq!(n, 3);
        let mut joined = Vec::new();
        for (i, s) in segs.iter().enumerate() {
            let si = l4_info(s, Framing::Ethernet).unwrap();
            assert!(verify_csum(s, &si), "segment {i} checksum");
            assert_eq!(fold(ones_sum(&s[14..34], 0)), 0xffff, "ip checksum {i}");
            let seq = u32::from_be_bytes([s[38], s[39], s[40], s[41]]);
            assert_eq!(seq as usize, 4096 + i * 1460);
            let fl = s[47];
            assert_eq!(fl & 0x08 != 0, i == 2, "PSH only on last");
            joined.extend_from_slice(&s[54..]);
        }
        assert_eq!(joined, payload);
    }

    #[test]
    fn ingress_normalization_completes_odd_offsets() {
        let mut f = tcp4(b"payload");
        let good = f.clone();
        let info = l4_info(&f, Framing::Ethernet).unwrap();
        let p = fold(pseudo_sum(&f, &info));
        f[50..52].copy_from_slice(&p.to_be_bytes());
        // Standard offsets: kept partial.
        let h = VnetHdr {
            flags: F_NEEDS_CSUM,
            csum_start: 34,
            csum_offset: 16,
            ..Default::default()
        };
        assert!(normalize_ingress(&mut f, &h, Framing::Ethernet));
        assert!(is_partial(&f, &info));
        // Out-of-range offsets: refused.
        let bad = VnetHdr {
            csum_start: 9000,
            ..h
        };
        assert!(!normalize_ingress(&mut f, &bad, Framing::Ethernet));
        // Completed when asked explicitly.
        let n = f.len();
        assert!(complete_csum(&mut f, 34, 16, n));
        assert_eq!(f, good);
    }
}
