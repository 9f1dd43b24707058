//! Tiny captures built in code, shared by the test files: the frames a
//! real capture seldom holds, so each can be checked against what it is.
#![allow(dead_code)] // each test file uses its own part

use softosa_engine::config::Mac;
use softosa_engine::wire::build::{self, EthSpec, IpSpec, Payload, TcpSpec};
use std::net::IpAddr;

/// The peer's and some far router's MACs (the capture was taken elsewhere).
const PEER: Mac = Mac([0x02, 0, 0, 0, 0, 2]);
const ROUTER: Mac = Mac([0x02, 0, 0, 0, 0, 0x99]);

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// A TCP frame from the peer to the host (192.0.2.1 or 2001:db8::1) with
/// `payload` bytes after a TCP header of `tcp_words` 32-bit words.
pub fn tcp_in(v6: bool, tcp_words: u8, payload: usize) -> Vec<u8> {
    let (src, dst) = if v6 {
        (ip("2001:db8::2"), ip("2001:db8::1"))
    } else {
        (ip("192.0.2.2"), ip("192.0.2.1"))
    };
    let opts = usize::from(tcp_words.saturating_sub(5)) * 4;
    let mut f = tcp_frame(src, dst, 0x10, &vec![0x61u8; opts + payload]);
    // Options: the data offset says so (their bytes are the body's first).
    let l3 = if v6 { 54 } else { 34 };
    f[l3 + 12] = tcp_words << 4;
    f
}

/// A TCP frame with 10 bytes of payload from `src` to `dst` (addresses
/// of one IP version), port 40001 to 5001.
pub fn tcp_between(src: &str, dst: &str) -> Vec<u8> {
    tcp_frame(ip(src), ip(dst), 0x18, &[0x61; 10])
}

/// An ARP frame (`op` 1 request, broadcast; 2 reply, to the peer) whose
/// sender is `sender` asking for or answering about `target`.
pub fn arp(op: u16, sender: &str, target: &str) -> Vec<u8> {
    let v4 = |s: &str| s.parse::<std::net::Ipv4Addr>().unwrap();
    let dst = if op == 1 { Mac([0xff; 6]) } else { PEER };
    let mut f = Vec::new();
    let eth = EthSpec {
        dst,
        src: ROUTER,
        vlan: None,
    };
    build::eth_arp(&mut f, &eth, op, ROUTER, v4(sender), PEER, v4(target));
    f
}

/// [`tcp_in`] (IPv4) in an 802.1Q tag of VLAN `vid`.
pub fn tcp_in_vlan(vid: u16, payload: usize) -> Vec<u8> {
    let mut f = tcp_in(false, 5, payload);
    let tag = [0x81, 0x00, (vid >> 8) as u8, vid as u8];
    f.splice(12..12, tag);
    f
}

/// A TCP frame from the peer's MAC to a far router's, `src` port 40001
/// to `dst` port 5001, with `flags` and `body` after a 20-byte header.
fn tcp_frame(src: IpAddr, dst: IpAddr, flags: u8, body: &[u8]) -> Vec<u8> {
    let mut f = Vec::new();
    let eth = EthSpec {
        dst: ROUTER,
        src: PEER,
        vlan: None,
    };
    let tcp = TcpSpec {
        src_port: 40001,
        dst_port: 5001,
        flags,
        window: 1000,
        ..TcpSpec::default()
    };
    build::eth_tcp(
        &mut f,
        &eth,
        &IpSpec::new(src, dst),
        &tcp,
        Payload::Bytes(body),
    );
    f
}

/// A classic pcap (Ethernet, µs stamps, snap length `snaplen`) holding
/// `frames` as (bytes, length on the wire), each cut at the snap length,
/// one millisecond apart.
pub fn pcap(snaplen: u32, frames: &[(Vec<u8>, u32)]) -> Vec<u8> {
    let mut b = pcap_header(false, snaplen);
    for (n, (f, wire)) in frames.iter().enumerate() {
        let cap = f.len().min(snaplen as usize);
        pcap_record(&mut b, (1_700_000_000, n as u32 * 1000), &f[..cap], *wire);
    }
    b
}

/// A little-endian pcap file header: version 2.4, Ethernet, the
/// nanosecond magic or the microsecond one.
fn pcap_header(nanos: bool, snaplen: u32) -> Vec<u8> {
    let magic: u32 = if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 };
    let mut b = magic.to_le_bytes().to_vec();
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&4u16.to_le_bytes());
    b.extend_from_slice(&[0; 8]);
    b.extend_from_slice(&snaplen.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    b
}

/// A pcap record of `data` stamped (seconds, fraction), `wire` bytes long
/// on the wire.
fn pcap_record(b: &mut Vec<u8>, (sec, frac): (u32, u32), data: &[u8], wire: u32) {
    b.extend_from_slice(&sec.to_le_bytes());
    b.extend_from_slice(&frac.to_le_bytes());
    b.extend_from_slice(&(data.len() as u32).to_le_bytes());
    b.extend_from_slice(&wire.to_le_bytes());
    b.extend_from_slice(data);
}

/// Whole frames, each as long on the wire as it is.
pub fn whole(frames: &[Vec<u8>]) -> Vec<(Vec<u8>, u32)> {
    frames.iter().map(|f| (f.clone(), f.len() as u32)).collect()
}

/// A little-endian pcapng block of type `kind` around `body` (padded to 32 bits).
pub fn ng_block(kind: u32, body: &[u8]) -> Vec<u8> {
    let mut body = body.to_vec();
    body.resize(body.len().div_ceil(4) * 4, 0);
    let len = (12 + body.len()) as u32;
    let mut b = kind.to_le_bytes().to_vec();
    b.extend_from_slice(&len.to_le_bytes());
    b.extend_from_slice(&body);
    b.extend_from_slice(&len.to_le_bytes());
    b
}

/// An Enhanced Packet Block on interface 0: `ts` in the interface's units,
/// `frame` whole, and a captured length field of `caplen`.
pub fn ng_epb(ts: u64, frame: &[u8], caplen: u32) -> Vec<u8> {
    ng_epb_on(0, ts, frame, caplen)
}

/// An Enhanced Packet Block as [`ng_epb`], on interface `ifid`.
pub fn ng_epb_on(ifid: u32, ts: u64, frame: &[u8], caplen: u32) -> Vec<u8> {
    let mut b = ifid.to_le_bytes().to_vec();
    b.extend_from_slice(&((ts >> 32) as u32).to_le_bytes());
    b.extend_from_slice(&(ts as u32).to_le_bytes());
    b.extend_from_slice(&caplen.to_le_bytes());
    b.extend_from_slice(&(frame.len() as u32).to_le_bytes());
    b.extend_from_slice(frame);
    ng_block(6, &b)
}

/// A little-endian pcapng Section Header Block: version 1.0, section
/// length unknown, no options.
pub fn ng_shb() -> Vec<u8> {
    let mut shb = 0x1A2B_3C4Du32.to_le_bytes().to_vec();
    shb.extend_from_slice(&[1, 0, 0, 0]);
    shb.extend_from_slice(&(-1i64).to_le_bytes());
    ng_block(0x0A0D_0D0A, &shb)
}

/// A pcapng file: a section header and one Ethernet interface whose
/// `if_tsresol` option is `tsresol` (none: microseconds), then `blocks`.
pub fn pcapng(tsresol: Option<u8>, blocks: &[Vec<u8>]) -> Vec<u8> {
    let mut f = ng_shb();
    let mut idb = vec![1, 0, 0, 0, 0, 0, 0, 0]; // Ethernet, no snap length
    if let Some(r) = tsresol {
        idb.extend_from_slice(&[9, 0, 1, 0, r, 0, 0, 0]); // if_tsresol
        idb.extend_from_slice(&[0, 0, 0, 0]); // opt_endofopt
    }
    f.extend(ng_block(1, &idb));
    for b in blocks {
        f.extend_from_slice(b);
    }
    f
}

/// A classic pcap (Ethernet) with the nanosecond magic or the microsecond
/// one, of whole `frames` given with their (seconds, fraction) stamps.
pub fn pcap_stamped(nanos: bool, frames: &[((u32, u32), Vec<u8>)]) -> Vec<u8> {
    let mut b = pcap_header(nanos, 65535);
    for (stamp, f) in frames {
        pcap_record(&mut b, *stamp, f, f.len() as u32);
    }
    b
}
