//! Byte-vector tests of the frame parser, both ways (build → parse) and on
//! hand-written malformed input.

use super::build::*;
use super::*;

fn eth(vlan: Option<u16>) -> EthSpec {
    EthSpec {
        dst: Mac([0x02, 0, 0, 0, 0, 1]),
        src: Mac([0x02, 0, 0, 0, 0, 2]),
        vlan,
    }
}

fn v4(a: &str, b: &str) -> IpSpec {
    IpSpec::new(a.parse().unwrap(), b.parse().unwrap())
}

#[test]
fn tcp_over_vlan_round_trips() {
    let mut buf = Vec::new();
    let tcp = TcpSpec {
        src_port: 1068,
        dst_port: 2141,
        seq: 7,
        ack: 9,
        flags: tcp_flags::ACK | tcp_flags::PSH,
        window: 65535,
    };
    let mut ip = v4("192.0.2.1", "192.0.2.2");
    ip.tos = 0xb8;
    let len = eth_tcp(
        &mut buf,
        &eth(Some(1261)),
        &ip,
        &tcp,
        Payload::Bytes(b"hello"),
    );
    assert_eq!(len as usize, buf.len());
    let info = parse_ethernet(&buf).unwrap();
    let l2 = info.l2.unwrap();
    assert_eq!(l2.vlan, Some(1261));
    assert_eq!(l2.header_len, 18);
    let ipi = info.ip().unwrap();
    assert_eq!(ipi.tos, 0xb8);
    assert_eq!(ipi.total_len, 45);
    assert_eq!(info.tcp_payload(), Some(5));
    let flow = info.flow().unwrap();
    assert_eq!(flow.src_port, 1068);
    assert_eq!(flow.dst_port, 2141);
    assert_eq!(flow.reversed().reversed(), flow);
    // The TCP checksum we wrote verifies.
    let seg = &buf[18 + 20..];
    assert_eq!(checksum::transport(ipi.src, ipi.dst, PROTO_TCP, seg), 0);
}

#[test]
fn header_only_frames_keep_the_real_payload_length() {
    let mut buf = Vec::new();
    let len = eth_tcp(
        &mut buf,
        &eth(None),
        &v4("192.0.2.1", "192.0.2.2"),
        &TcpSpec::default(),
        Payload::Len(1448),
    );
    assert_eq!(buf.len(), 54);
    assert_eq!(len, 54 + 1448);
    assert_eq!(parse_ethernet(&buf).unwrap().tcp_payload(), Some(1448));
}

#[test]
fn ipv6_udp_and_extension_chain() {
    let mut buf = Vec::new();
    let ip = v4("2001:db8::1", "2001:db8::2");
    eth_udp(
        &mut buf,
        &eth(None),
        &ip,
        12000,
        12001,
        Payload::Bytes(&[1, 2, 3]),
    );
    let info = parse_ethernet(&buf).unwrap();
    assert_eq!(info.flow().unwrap().proto, PROTO_UDP);
    assert_eq!(info.flow().unwrap().dst_port, 12001);

    // Insert a destination-options header (8 bytes) and an AH before TCP.
    let mut p = Vec::new();
    ip_tcp(
        &mut p,
        &ip,
        &TcpSpec {
            src_port: 5,
            dst_port: 6,
            ..Default::default()
        },
        Payload::Len(0),
    );
    let tcp = p[40..].to_vec();
    let mut pkt = p[..40].to_vec();
    pkt[6] = 60; // next header: destination options
    let ah_len_words = 4u8; // (4+2)*4 = 24 bytes
    let ext_total = 8 + 24;
    let plen = (tcp.len() + ext_total) as u16;
    pkt[4..6].copy_from_slice(&plen.to_be_bytes());
    pkt.extend_from_slice(&[PROTO_AH, 0, 0, 0, 0, 0, 0, 0]);
    let mut ah = vec![PROTO_TCP, ah_len_words];
    ah.resize(24, 0);
    pkt.extend_from_slice(&ah);
    pkt.extend_from_slice(&tcp);
    let info = parse_ip(&pkt).unwrap();
    let ipi = info.ip().unwrap();
    assert!(ipi.ipsec);
    assert_eq!(ipi.proto, PROTO_TCP);
    assert_eq!(info.flow().unwrap().dst_port, 6);
}

#[test]
fn esp_is_ipsec_without_a_tuple() {
    let mut buf = Vec::new();
    eth_ip_raw(
        &mut buf,
        &eth(None),
        &v4("192.0.2.1", "192.0.2.2"),
        PROTO_ESP,
        &[0; 16],
    );
    let info = parse_ethernet(&buf).unwrap();
    assert!(info.ip().unwrap().ipsec);
    assert!(info.flow().is_none());
}

#[test]
fn later_fragments_have_no_tuple_but_first_does() {
    let mut buf = Vec::new();
    eth_tcp(
        &mut buf,
        &eth(None),
        &v4("192.0.2.1", "192.0.2.2"),
        &TcpSpec::default(),
        Payload::Len(100),
    );
    let mut first = buf.clone();
    first[14 + 6] = 0x20; // MF
    assert_eq!(
        parse_ethernet(&first).unwrap().ip().unwrap().fragment,
        Fragment::First
    );
    assert!(parse_ethernet(&first).unwrap().flow().is_some());
    let mut later = buf.clone();
    later[14 + 6] = 0x00;
    later[14 + 7] = 0x10; // offset 16 * 8
    let info = parse_ethernet(&later).unwrap();
    assert_eq!(info.ip().unwrap().fragment, Fragment::Later);
    assert!(info.flow().is_none());
}

#[test]
fn arp_round_trips() {
    let mut buf = Vec::new();
    eth_arp(
        &mut buf,
        &EthSpec {
            dst: Mac::BROADCAST,
            src: Mac([2, 0, 0, 0, 0, 9]),
            vlan: None,
        },
        1,
        Mac([2, 0, 0, 0, 0, 9]),
        "192.0.2.9".parse().unwrap(),
        Mac::ZERO,
        "192.0.2.1".parse().unwrap(),
    );
    match parse_ethernet(&buf).unwrap().net {
        NetInfo::Arp(a) => {
            assert_eq!(a.op, 1);
            assert_eq!(a.target_ip.to_string(), "192.0.2.1");
        }
        other => panic!("not ARP: {other:?}"),
    }
}

fn malformed(header: Header) -> Result<FrameInfo, ParseError> {
    Err(ParseError {
        header,
        problem: Problem::Malformed,
    })
}

fn cut(header: Header) -> Result<FrameInfo, ParseError> {
    Err(ParseError {
        header,
        problem: Problem::Cut,
    })
}

#[test]
fn malformed_frames_are_errors_not_panics() {
    assert_eq!(parse_ethernet(&[0; 10]), malformed(Header::Ethernet));
    let mut buf = Vec::new();
    eth_tcp(
        &mut buf,
        &eth(None),
        &v4("192.0.2.1", "192.0.2.2"),
        &TcpSpec::default(),
        Payload::Len(0),
    );
    // IHL of 3 words is invalid.
    let mut bad = buf.clone();
    bad[14] = 0x43;
    assert_eq!(parse_ethernet(&bad), malformed(Header::Ipv4));
    // Cut inside the TCP header.
    assert_eq!(parse_ethernet(&buf[..40]), malformed(Header::Tcp));
    // Total length shorter than the header.
    let mut short = buf.clone();
    short[16..18].copy_from_slice(&10u16.to_be_bytes());
    assert!(parse_ethernet(&short).is_err());
    assert_eq!(parse_ip(&[0x10, 0, 0]), malformed(Header::Ip));
    assert_eq!(parse_ip(&[]), malformed(Header::Ip));
}

/// The first `held` bytes of `frame`, which was `wire` bytes long on the wire.
fn held(frame: &[u8], held: usize, wire: usize) -> Result<FrameInfo, ParseError> {
    parse_ethernet_frame(Frame {
        data: &frame[..held],
        wire_len: wire as u32,
    })
}

#[test]
fn each_error_names_the_header_and_whether_it_was_cut() {
    // VLAN tag (18) + IPv4 (20) + TCP (20) + 100 bytes.
    let mut buf = Vec::new();
    let ip = v4("192.0.2.1", "192.0.2.2");
    let tcp = TcpSpec::default();
    let wire = eth_tcp(&mut buf, &eth(Some(5)), &ip, &tcp, Payload::Len(100)) as usize;
    buf.resize(wire, 0x61);
    for (at, header) in [
        (10, Header::Ethernet),
        (16, Header::Vlan),
        (18, Header::Ipv4),
        (30, Header::Ipv4),
        (50, Header::Tcp),
    ] {
        // Held short of a frame that had the header: cut...
        assert_eq!(held(&buf, at, wire), cut(header), "{at}");
        // ...but a frame that ends there never had it.
        assert_eq!(held(&buf, at, at), malformed(header), "{at}");
    }
    // A header-length field is read before the bytes it asks for, so an
    // invalid one is malformed however short the frame held is.
    let mut ihl = buf.clone();
    ihl[18] = 0x44;
    assert_eq!(held(&ihl, 19, wire), malformed(Header::Ipv4));
    let mut doff = buf.clone();
    doff[18 + 20 + 12] = 0x40;
    assert_eq!(held(&doff, 51, wire), malformed(Header::Tcp));
    // A 60-byte TCP header fits the packet: its options cut by a snap
    // length leave the frame readable (the fixed 20 bytes hold what is
    // read); cut in the fixed part it is cut; a packet too short for the
    // header makes it malformed.
    doff[18 + 20 + 12] = 0xf0;
    doff[18 + 20..18 + 20 + 4].copy_from_slice(&[0x13, 0x88, 0x00, 0x50]);
    doff[18 + 20 + 13] = 0x18;
    let info = held(&doff, 70, wire).expect("options cut: still read");
    match info.l4() {
        Some(L4Info::Tcp {
            src_port,
            dst_port,
            flags,
            header_len,
            payload_len,
            ..
        }) => {
            assert_eq!((*src_port, *dst_port, *flags), (5000, 80, 0x18));
            assert_eq!((*header_len, *payload_len), (60, 60));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(held(&doff, 18 + 20 + 19, wire), cut(Header::Tcp));
    doff[18 + 2..18 + 4].copy_from_slice(&60u16.to_be_bytes());
    assert_eq!(held(&doff, 70, wire), malformed(Header::Tcp));
    // IPv4 AH, IPv6 and its extensions, UDP, ARP.
    let mut ah = buf.clone();
    ah[18 + 9] = PROTO_AH;
    assert_eq!(held(&ah, 39, wire), cut(Header::IpAuth));
    let mut v6 = Vec::new();
    let ip6 = IpSpec::new(
        "2001:db8::1".parse().unwrap(),
        "2001:db8::2".parse().unwrap(),
    );
    let wire6 = eth_udp(&mut v6, &eth(None), &ip6, 1, 2, Payload::Len(100)) as usize;
    assert_eq!(held(&v6, 40, wire6), cut(Header::Ipv6));
    assert_eq!(held(&v6, 60, wire6), cut(Header::Udp));
    v6[14 + 6] = 60; // destination options, which the frame does not hold
    assert_eq!(held(&v6, 54, wire6), cut(Header::Ipv6Extension));
    let mut arp = Vec::new();
    let a = "192.0.2.1".parse().unwrap();
    let wire_arp = eth_arp(&mut arp, &eth(None), 1, Mac::ZERO, a, Mac::ZERO, a) as usize;
    assert_eq!(held(&arp, 30, 60), cut(Header::Arp));
    arp[15] = 6;
    assert_eq!(held(&arp, wire_arp, wire_arp), malformed(Header::Arp));
    // A bare packet with no byte to read its version from.
    let empty = Frame {
        data: &[],
        wire_len: 40,
    };
    assert_eq!(parse_ip_frame(empty), cut(Header::Ip));
}

#[test]
fn errors_read_as_the_header_and_the_problem() {
    let e = |header, problem| ParseError { header, problem }.to_string();
    assert_eq!(e(Header::Tcp, Problem::Malformed), "malformed TCP header");
    assert_eq!(
        e(Header::IpAuth, Problem::Cut),
        "truncated IP authentication (AH) header (the frame was longer on the wire)"
    );
}

#[test]
fn ipv4_total_length_zero_takes_the_frame_length() {
    // A BIG TCP packet as Linux hands it to tcpdump: total length 0.
    let mut buf = Vec::new();
    eth_tcp(
        &mut buf,
        &eth(None),
        &v4("192.0.2.1", "192.0.2.2"),
        &TcpSpec::default(),
        Payload::Len(0),
    );
    buf[16..18].copy_from_slice(&[0, 0]);
    let big = Frame {
        data: &buf,
        wire_len: 150_014,
    };
    let info = parse_ethernet_frame(big).unwrap();
    assert_eq!(info.ip().unwrap().total_len, 150_000);
    assert_eq!(info.tcp_payload(), Some(150_000 - 40));
    // The bare IP packet, as a layer-3 stack sends it.
    let pkt = Frame {
        data: &buf[14..],
        wire_len: 150_000,
    };
    assert_eq!(
        parse_ip_frame(pkt).unwrap().tcp_payload(),
        Some(150_000 - 40)
    );
    // Only a packet the field cannot hold (over 65 535 bytes) leaves it 0.
    let edge = |wire_len| {
        parse_ethernet_frame(Frame {
            data: &buf,
            wire_len,
        })
    };
    assert_eq!(edge(14 + 65_536).unwrap().ip().unwrap().total_len, 65_536);
    assert_eq!(edge(14 + 65_535), malformed(Header::Ipv4));
    // A short frame held whole stays malformed: the length is not taken
    // from the frame, whose last bytes may be Ethernet padding.
    let mut whole = buf.clone();
    whole.extend_from_slice(&[0x61; 100]);
    assert_eq!(parse_ethernet(&whole), malformed(Header::Ipv4));
    // A minimum-size frame: IPv4 and UDP (28 bytes) and 18 of padding,
    // which would otherwise be read as 18 bytes of UDP payload.
    let mut padded = Vec::new();
    eth_udp(
        &mut padded,
        &eth(None),
        &v4("192.0.2.1", "192.0.2.2"),
        1,
        2,
        Payload::Len(0),
    );
    padded.resize(60, 0);
    padded[16..18].copy_from_slice(&[0, 0]);
    assert_eq!(parse_ethernet(&padded), malformed(Header::Ipv4));
    assert_eq!(parse_ip(&padded[14..]), malformed(Header::Ipv4));
    // A packet no longer than its header has no length to take: still bad.
    assert_eq!(parse_ethernet(&buf[..34]), malformed(Header::Ipv4));
    // Any other length under the header stays bad, whatever the frame.
    buf[16..18].copy_from_slice(&10u16.to_be_bytes());
    let short = Frame {
        data: &buf,
        wire_len: 150_014,
    };
    assert_eq!(parse_ethernet_frame(short), malformed(Header::Ipv4));
}

/// An Ethernet/IPv6/TCP frame, 2001:db8::1 to ::2, with `payload` bytes.
fn ipv6_tcp(payload: u32) -> Vec<u8> {
    let mut buf = Vec::new();
    let ip6 = IpSpec::new(
        "2001:db8::1".parse().unwrap(),
        "2001:db8::2".parse().unwrap(),
    );
    eth_tcp(
        &mut buf,
        &eth(None),
        &ip6,
        &TcpSpec::default(),
        Payload::Len(payload),
    );
    buf
}

/// An Ethernet/IPv6/TCP frame (headers only) with payload length 0 and,
/// if `jumbo`, a Hop-by-Hop header holding a Jumbo Payload option of that
/// value, as Linux BIG TCP sends it.
fn ipv6_big_tcp(jumbo: Option<u32>) -> Vec<u8> {
    let mut buf = ipv6_tcp(0);
    buf[18..20].copy_from_slice(&[0, 0]);
    if let Some(len) = jumbo {
        let mut hbh = vec![buf[20], 0, 0xc2, 4];
        hbh.extend_from_slice(&len.to_be_bytes());
        buf[20] = 0;
        buf.splice(54..54, hbh);
    }
    buf
}

#[test]
fn ipv6_payload_length_zero_takes_the_jumbo_option_or_the_frame_length() {
    let big = |buf: &[u8], wire_len| {
        parse_ethernet_frame(Frame {
            data: buf,
            wire_len,
        })
    };
    // With the Jumbo Payload option: its length (the Hop-by-Hop header
    // included), whatever the frame says.
    let jumbo = ipv6_big_tcp(Some(8 + 20 + 100_000));
    let info = big(&jumbo, 14 + 40 + 8 + 20 + 100_000).unwrap();
    let ip = info.ip().unwrap();
    assert_eq!((ip.total_len, ip.header_len), (40 + 8 + 20 + 100_000, 48));
    assert_eq!(info.tcp_payload(), Some(100_000));
    assert_eq!(big(&jumbo, 200_000).unwrap().tcp_payload(), Some(100_000));
    // Options before it (Pad1, PadN) are stepped over.
    let mut padded = ipv6_big_tcp(None);
    padded[20] = 0;
    let mut hbh = vec![6, 1, 0, 1, 0, 0xc2, 4];
    hbh.extend_from_slice(&(16 + 20 + 70_000u32).to_be_bytes());
    hbh.extend_from_slice(&[1, 3, 0, 0, 0]);
    padded.splice(54..54, hbh);
    assert_eq!(
        big(&padded, 14 + 40 + 16 + 20 + 70_000)
            .unwrap()
            .tcp_payload(),
        Some(70_000)
    );
    // A jumbo length the field could hold, or an option of the wrong size,
    // is malformed; the option cut by a snap length is cut.
    let small = ipv6_big_tcp(Some(65_535));
    assert_eq!(big(&small, 100_000), malformed(Header::Ipv6Extension));
    let mut wrong = jumbo.clone();
    wrong[57] = 2;
    assert_eq!(big(&wrong, 100_000), malformed(Header::Ipv6Extension));
    assert_eq!(big(&jumbo[..58], 100_000), cut(Header::Ipv6Extension));
    // No option: the frame's length, when the payload on the wire is more
    // than the field holds...
    let bare = ipv6_big_tcp(None);
    let info = big(&bare, 14 + 40 + 65_536).unwrap();
    assert_eq!(info.ip().unwrap().total_len, 40 + 65_536);
    assert_eq!(info.tcp_payload(), Some(65_536 - 20));
    // ...and not otherwise: a payload of 0 has no room for the TCP header.
    assert_eq!(big(&bare, 14 + 40 + 65_535), malformed(Header::Tcp));
    assert_eq!(parse_ethernet(&bare), malformed(Header::Tcp));
    // The largest jumbo length does not overflow the packet's length.
    let max = ipv6_big_tcp(Some(u32::MAX));
    assert_eq!(big(&max, u32::MAX), malformed(Header::Ipv6Extension));
    // The bare packet, as a layer-3 stack hands it over.
    let pkt = Frame {
        data: &jumbo[14..],
        wire_len: 40 + 8 + 20 + 100_000,
    };
    assert_eq!(parse_ip_frame(pkt).unwrap().tcp_payload(), Some(100_000));
}

/// An Ethernet/IPv6/TCP frame (20 payload bytes) with one 8-byte
/// extension header of type `kind` (0 Hop-by-Hop, 60 Destination Options)
/// whose six option bytes are `options`.
fn ipv6_with_options(kind: u8, options: [u8; 6]) -> Vec<u8> {
    let mut buf = ipv6_tcp(20);
    let mut ext = vec![buf[20], 0];
    ext.extend_from_slice(&options);
    buf[20] = kind;
    let payload = u16::from_be_bytes([buf[18], buf[19]]) + 8;
    buf[18..20].copy_from_slice(&payload.to_be_bytes());
    buf.splice(54..54, ext);
    buf
}

#[test]
fn an_ipv6_option_running_past_its_header_is_malformed() {
    for kind in [0u8, 60] {
        // PadN filling the header: fine, and the TCP header after it read.
        let ok = ipv6_with_options(kind, [1, 4, 0, 0, 0, 0]);
        let info = parse_ethernet(&ok).unwrap();
        assert_eq!(info.ip().unwrap().header_len, 48, "{kind}");
        assert_eq!(info.tcp_payload(), Some(20), "{kind}");
        // An option claiming 200 bytes in a header of six option bytes,
        // and one whose length byte is past the header: a stack drops
        // both, so the adapter's parser counts them malformed.
        for options in [[0xc2, 200, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0x1e]] {
            let bad = ipv6_with_options(kind, options);
            assert_eq!(
                parse_ethernet(&bad),
                malformed(Header::Ipv6Extension),
                "{kind} {options:?}"
            );
        }
    }
    // A routing header's bytes are not options: not read as such.
    let routing = ipv6_with_options(43, [0xc2, 200, 0, 0, 0, 0]);
    assert!(parse_ethernet(&routing).is_ok());
}

proptest::proptest! {
    #[test]
    fn parser_never_panics(data in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
        let _ = parse_ethernet(&data);
        let _ = parse_ip(&data);
    }

    #[test]
    fn parser_never_panics_whatever_the_wire_length(
        data in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
        wire_len in proptest::num::u32::ANY,
    ) {
        let _ = parse_ethernet_frame(Frame { data: &data, wire_len });
        let _ = parse_ip_frame(Frame { data: &data, wire_len });
    }

    #[test]
    fn built_tcp_parses_back(sp in 1u16.., dp in 1u16.., seq: u32, len in 0u32..9000, tos: u8) {
        let mut buf = Vec::new();
        let mut ip = v4("198.51.100.1", "198.51.100.2");
        ip.tos = tos;
        let wire = eth_tcp(&mut buf, &eth(None), &ip,
            &TcpSpec { src_port: sp, dst_port: dp, seq, ..Default::default() }, Payload::Len(len));
        let info = parse_ethernet(&buf).unwrap();
        proptest::prop_assert_eq!(info.tcp_payload(), Some(len));
        proptest::prop_assert_eq!(info.ip().unwrap().tos, tos);
        proptest::prop_assert_eq!(wire, 54 + len);
    }
}

#[test]
fn dst_mac_is_the_first_six_bytes_even_of_an_unparsable_frame() {
    let d = [0x01, 0, 0x5e, 0, 0, 1, 0xaa];
    assert_eq!(dst_mac(&d), Some(Mac([0x01, 0, 0x5e, 0, 0, 1])));
    assert!(parse_ethernet(&d).is_err());
    assert_eq!(dst_mac(&d[..6]), Some(Mac([0x01, 0, 0x5e, 0, 0, 1])));
    assert_eq!(dst_mac(&d[..5]), None);
    assert_eq!(dst_mac(&[]), None);
}
