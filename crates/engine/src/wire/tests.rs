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

#[test]
fn malformed_frames_are_errors_not_panics() {
    assert_eq!(parse_ethernet(&[0; 10]), Err(ParseError::ShortEthernet));
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
    assert_eq!(parse_ethernet(&bad), Err(ParseError::BadIpv4));
    // Cut inside the TCP header.
    assert_eq!(parse_ethernet(&buf[..40]), Err(ParseError::BadTcp));
    // Total length shorter than the header.
    let mut short = buf.clone();
    short[16..18].copy_from_slice(&10u16.to_be_bytes());
    assert!(parse_ethernet(&short).is_err());
    assert_eq!(parse_ip(&[0x10, 0, 0]), Err(ParseError::BadIpVersion));
    assert_eq!(parse_ip(&[]), Err(ParseError::BadIpVersion));
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
    // Held whole, the frame's own length is the one.
    let mut whole = buf.clone();
    whole.extend_from_slice(&[0x61; 100]);
    assert_eq!(parse_ethernet(&whole).unwrap().tcp_payload(), Some(100));
    // A packet no longer than its header has no length to take: still bad.
    assert_eq!(parse_ethernet(&buf[..34]), Err(ParseError::BadIpv4));
    // Any other length under the header stays bad, whatever the frame.
    buf[16..18].copy_from_slice(&10u16.to_be_bytes());
    let short = Frame {
        data: &buf,
        wire_len: 150_014,
    };
    assert_eq!(parse_ethernet_frame(short), Err(ParseError::BadIpv4));
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
