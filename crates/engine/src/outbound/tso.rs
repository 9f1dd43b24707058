//! TCP segmentation offload, "large send" (layer: engine, outbound;
//! spec 03 §3.2).
//!
//! The stack hands one TCP segment of up to 64 KB; the adapter cuts it into
//! packets of at most `mss` payload bytes. Each packet gets a copy of the IP
//! and TCP headers with: the IP total length (IPv6 payload length) of its own
//! size, a fresh IPv4 identification (incrementing), the sequence number
//! advanced by the bytes before it, FIN and PSH only on the last packet, CWR
//! only on the first, and recomputed IPv4 header and TCP checksums. A packet
//! whose payload bytes are not present (a header-only simulator packet) is
//! cut by length alone and its TCP checksum left as it was.

use crate::wire::{checksum, tcp_flags, FrameInfo, L4Info, NetInfo};

/// Why a packet cannot be segmented.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TsoError {
    #[error("not a TCP packet")]
    NotTcp,
    #[error("IP header shorter than its own length fields say")]
    Truncated,
    #[error("maximum segment size of zero")]
    ZeroMss,
}

/// One produced segment: `bytes` is the IP packet (headers, and payload when
/// the source had it), `wire_len` its full IP length.
pub struct Segment<'a> {
    pub bytes: &'a [u8],
    pub wire_len: u32,
}

/// Cut the IP packet `pkt` (parsed as `info`) into segments of at most `mss`
/// payload bytes, calling `emit` for each; `scratch` is reused for the bytes.
/// Returns the number of segments.
pub fn segment(
    pkt: &[u8],
    info: &FrameInfo,
    mss: u32,
    scratch: &mut Vec<u8>,
    mut emit: impl FnMut(Segment<'_>),
) -> Result<u32, TsoError> {
    let NetInfo::Ip(
        ip,
        L4Info::Tcp {
            seq,
            flags,
            header_len: tcp_hlen,
            payload_len,
            ..
        },
    ) = info.net
    else {
        return Err(TsoError::NotTcp);
    };
    if mss == 0 {
        return Err(TsoError::ZeroMss);
    }
    let ip_hlen = usize::from(ip.header_len);
    let hdrs = ip_hlen + usize::from(tcp_hlen);
    // A capture's snap length may have cut the TCP options: each segment
    // then carries the header bytes held (the fixed 20 at least, which are
    // all that is rewritten), and its length on the wire stays whole.
    let held = pkt.len().min(hdrs);
    if held < ip_hlen + 20 {
        return Err(TsoError::Truncated);
    }
    let have_payload = pkt.len() >= hdrs + payload_len as usize;
    let v4 = ip.src.is_ipv4();
    let base_id = if v4 {
        u16::from_be_bytes([pkt[4], pkt[5]])
    } else {
        0
    };
    let n = payload_len.div_ceil(mss).max(1);
    for i in 0..n {
        let off = i * mss;
        let len = (payload_len - off).min(mss);
        scratch.clear();
        scratch.extend_from_slice(&pkt[..held]);
        if have_payload {
            let start = hdrs + off as usize;
            scratch.extend_from_slice(&pkt[start..start + len as usize]);
        }
        let total = hdrs as u32 + len;
        if v4 {
            scratch[2..4].copy_from_slice(&(total.min(65535) as u16).to_be_bytes());
            scratch[4..6].copy_from_slice(&base_id.wrapping_add(i as u16).to_be_bytes());
            scratch[10..12].copy_from_slice(&[0, 0]);
            let c = checksum::ipv4_header(&scratch[..ip_hlen]);
            scratch[10..12].copy_from_slice(&c.to_be_bytes());
        } else {
            let plen = (total - 40).min(65535) as u16;
            scratch[4..6].copy_from_slice(&plen.to_be_bytes());
        }
        let t = ip_hlen;
        scratch[t + 4..t + 8].copy_from_slice(&seq.wrapping_add(off).to_be_bytes());
        let mut f = flags;
        if i + 1 != n {
            f &= !(tcp_flags::FIN | tcp_flags::PSH);
        }
        if i != 0 {
            f &= !0x80; // CWR only on the first
        }
        scratch[t + 13] = f;
        if have_payload {
            scratch[t + 16..t + 18].copy_from_slice(&[0, 0]);
            let c = checksum::transport(ip.src, ip.dst, crate::wire::PROTO_TCP, &scratch[t..]);
            scratch[t + 16..t + 18].copy_from_slice(&c.to_be_bytes());
        }
        emit(Segment {
            bytes: scratch,
            wire_len: total,
        });
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::build::{ip_tcp, IpSpec, Payload, TcpSpec};
    use crate::wire::parse_ip;

    fn big(n: usize, v6: bool) -> Vec<u8> {
        let (s, d) = if v6 {
            ("2001:db8::1", "2001:db8::2")
        } else {
            ("192.0.2.1", "192.0.2.2")
        };
        let mut ip = IpSpec::new(s.parse().unwrap(), d.parse().unwrap());
        ip.ip_id = 100;
        let payload: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
        let mut out = Vec::new();
        ip_tcp(
            &mut out,
            &ip,
            &TcpSpec {
                src_port: 20,
                dst_port: 3000,
                seq: 1_000,
                ack: 5,
                flags: tcp_flags::ACK | tcp_flags::PSH | tcp_flags::FIN,
                window: 100,
            },
            Payload::Bytes(&payload),
        );
        out
    }

    fn cut(pkt: &[u8], mss: u32) -> Vec<Vec<u8>> {
        let info = parse_ip(pkt).unwrap();
        let mut segs = Vec::new();
        let mut scratch = Vec::new();
        segment(pkt, &info, mss, &mut scratch, |s| {
            segs.push(s.bytes.to_vec())
        })
        .unwrap();
        segs
    }

    #[test]
    fn segments_are_correct_ipv4_packets() {
        let pkt = big(10_000, false);
        let segs = cut(&pkt, 1460);
        assert_eq!(segs.len(), 7);
        let mut payload = Vec::new();
        for (i, s) in segs.iter().enumerate() {
            let info = parse_ip(s).unwrap();
            let ip = info.ip().unwrap();
            assert_eq!(ip.total_len as usize, s.len());
            assert_eq!(
                checksum::ipv4_header(&s[..20]),
                0,
                "IP checksum of segment {i}"
            );
            assert_eq!(
                checksum::transport(ip.src, ip.dst, 6, &s[20..]),
                0,
                "TCP checksum {i}"
            );
            assert_eq!(u16::from_be_bytes([s[4], s[5]]), 100 + i as u16);
            let L4Info::Tcp { seq, flags, .. } = *info.l4().unwrap() else {
                panic!()
            };
            assert_eq!(seq, 1_000 + (i as u32) * 1460);
            let last = i == segs.len() - 1;
            assert_eq!(flags & tcp_flags::FIN != 0, last);
            assert_eq!(flags & tcp_flags::PSH != 0, last);
            assert!(flags & tcp_flags::ACK != 0);
            payload.extend_from_slice(&s[40..]);
        }
        assert_eq!(payload, pkt[40..]);
    }

    /// A large send whose TCP options a capture's snap length cut: each
    /// segment carries the header bytes held, and is as long on the wire
    /// as a whole one.
    #[test]
    fn a_send_with_its_tcp_options_cut_is_still_segmented() {
        let mut pkt = big(3000, false);
        pkt[20 + 12] = 8 << 4; // a 32-byte TCP header: 2988 payload bytes
        let wire = pkt.len() as u32;
        let held = &pkt[..46];
        let info = crate::wire::parse_ip_frame(crate::wire::Frame {
            data: held,
            wire_len: wire,
        })
        .unwrap();
        let mut lens = Vec::new();
        let mut scratch = Vec::new();
        let n = segment(held, &info, 1448, &mut scratch, |s| {
            assert_eq!(s.bytes.len(), 46);
            lens.push(s.wire_len);
        })
        .unwrap();
        assert_eq!(n, 3);
        assert_eq!(lens, [52 + 1448, 52 + 1448, 52 + 92]);
        // Cut inside the fixed 20 bytes: nothing to rewrite, refused.
        let info = crate::wire::parse_ip_frame(crate::wire::Frame {
            data: &pkt[..46],
            wire_len: wire,
        })
        .unwrap();
        assert_eq!(
            segment(&pkt[..39], &info, 1448, &mut scratch, |_| {}),
            Err(TsoError::Truncated)
        );
    }

    #[test]
    fn ipv6_segments_carry_their_payload_length() {
        let pkt = big(3000, true);
        let segs = cut(&pkt, 1440);
        assert_eq!(segs.len(), 3);
        for s in &segs {
            let info = parse_ip(s).unwrap();
            let ip = info.ip().unwrap();
            assert_eq!(ip.total_len as usize, s.len());
            assert_eq!(checksum::transport(ip.src, ip.dst, 6, &s[40..]), 0);
        }
    }

    #[test]
    fn header_only_packets_are_cut_by_length() {
        let mut out = Vec::new();
        let ip = IpSpec::new("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        ip_tcp(&mut out, &ip, &TcpSpec::default(), Payload::Len(65_000));
        let info = parse_ip(&out).unwrap();
        let mut lens = Vec::new();
        let mut scratch = Vec::new();
        let n = segment(&out, &info, 8952, &mut scratch, |s| {
            assert_eq!(s.bytes.len(), 40);
            lens.push(s.wire_len);
        })
        .unwrap();
        assert_eq!(n, 8);
        assert_eq!(lens.iter().map(|l| l - 40).sum::<u32>(), 65_000);
    }

    #[test]
    fn non_tcp_is_refused() {
        let mut out = Vec::new();
        let ip = IpSpec::new("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        crate::wire::build::ip_udp(&mut out, &ip, 1, 2, Payload::Len(3000));
        let info = parse_ip(&out).unwrap();
        let r = segment(&out, &info, 1000, &mut Vec::new(), |_| {});
        assert_eq!(r.err(), Some(TsoError::NotTcp));
    }
}
