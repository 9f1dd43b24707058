//! Internet checksums (layer: engine, wire; RFC 1071). Used when the adapter
//! builds frames itself: ARP replies, segmentation offload, accelerated
//! forwarding (TTL decrement).

use std::net::IpAddr;

/// Add `data` as big-endian 16-bit words to a running 32-bit sum.
pub fn sum_words(mut sum: u64, data: &[u8]) -> u64 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u64::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        sum += u64::from(u16::from_be_bytes([*last, 0]));
    }
    sum
}

/// Fold a running sum and complement it.
pub fn finish(mut sum: u64) -> u16 {
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// IPv4 header checksum of `header` (its checksum field must be zero or is
/// treated as data: callers zero it first).
pub fn ipv4_header(header: &[u8]) -> u16 {
    finish(sum_words(0, header))
}

/// TCP or UDP checksum over the pseudo header and `segment` (header + payload,
/// with the checksum field zeroed).
pub fn transport(src: IpAddr, dst: IpAddr, proto: u8, segment: &[u8]) -> u16 {
    let mut sum = 0u64;
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            sum = sum_words(sum, &s.octets());
            sum = sum_words(sum, &d.octets());
            sum += u64::from(proto);
            sum += segment.len() as u64;
        }
        (IpAddr::V6(s), IpAddr::V6(d)) => {
            sum = sum_words(sum, &s.octets());
            sum = sum_words(sum, &d.octets());
            sum += segment.len() as u64;
            sum += u64::from(proto);
        }
        _ => {}
    }
    finish(sum_words(sum, segment))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn rfc1071_example() {
        // The worked example of RFC 1071 section 3: sum 0xddf2, checksum !0xddf2.
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(finish(sum_words(0, &data)), !0xddf2);
    }
    #[test]
    fn verifying_a_header_with_its_checksum_gives_zero() {
        let mut h = [
            0x45, 0, 0, 0x54, 0, 0, 0x40, 0, 0x40, 1, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2,
        ];
        let c = ipv4_header(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        assert_eq!(ipv4_header(&h), 0);
    }
}
