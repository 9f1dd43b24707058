//! Shared helpers for the engine's scenario tests: small configurations and
//! frame builders with scripted time.
#![allow(dead_code)]

use softosa_engine::config::*;
use softosa_engine::wire::build::{self, EthSpec, IpSpec, Payload, TcpSpec};
use softosa_engine::*;
use std::net::IpAddr;

pub const PORT_MAC: Mac = Mac([0x64, 0x3b, 0x88, 0xf3, 0x00, 0x01]);
pub const PEER_MAC: Mac = Mac([0x02, 0xaa, 0, 0, 0, 1]);

pub fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

pub fn us(n: u64) -> Instant {
    Instant::from_micros(n)
}

/// A HiperSockets CHPID of frame size `mfs_kb`.
pub fn iqd_port(name: &str, chpid: u8, mfs_kb: u16) -> PortConfig {
    PortConfig {
        name: name.into(),
        chpid,
        port_num: 0,
        kind: PortKind::HiperSockets { mfs_kb },
        physical_mac: Mac([0x02, 0, 0, 0, chpid, 0]),
        lan_mtu: None,
    }
}

pub fn osa_port(gen: OsaGeneration) -> PortConfig {
    PortConfig {
        name: "QDIO4101".into(),
        chpid: 0x29,
        port_num: 0,
        kind: PortKind::Osa {
            generation: gen,
            speed_mbps: 10_000,
            chpid_type: ChpidType::Osd,
        },
        physical_mac: PORT_MAC,
        lan_mtu: None,
    }
}

pub fn iface(name: &str, stack: usize, addr: &str) -> InterfaceConfig {
    let mut i = InterfaceConfig::new(name, stack, 0);
    i.addresses.push(IpNet {
        addr: ip(addr),
        prefix: 24,
    });
    i
}

/// One stack, one OSA interface at 192.0.2.1 with the given timers/mode.
pub fn single(mode: InbPerf, workloadq: bool, timers: TimerTable) -> SystemConfig {
    let mut i = iface("OSA1", 0, "192.0.2.1");
    i.inbperf = mode;
    i.workloadq = workloadq;
    if workloadq {
        i.vmac = Some(VmacConfig::default());
    }
    SystemConfig {
        ports: vec![osa_port(OsaGeneration::Express6S)],
        stacks: vec![StackConfig::new("TCPCS1")],
        interfaces: vec![i],
        tuning: Tuning {
            timers,
            ..Tuning::default()
        },
    }
}

/// A TCP frame from the peer 192.0.2.9:`sport` to `dst`:`dport`.
pub fn tcp_in(dst_mac: Mac, dst: &str, sport: u16, dport: u16, payload: u32) -> Vec<u8> {
    tcp_in_flags(dst_mac, dst, sport, dport, payload, 0x18)
}

pub fn tcp_in_flags(
    dst_mac: Mac,
    dst: &str,
    sport: u16,
    dport: u16,
    payload: u32,
    flags: u8,
) -> Vec<u8> {
    let mut b = Vec::new();
    build::eth_tcp(
        &mut b,
        &EthSpec {
            dst: dst_mac,
            src: PEER_MAC,
            vlan: None,
        },
        &IpSpec::new(ip("192.0.2.9"), ip(dst)),
        &TcpSpec {
            src_port: sport,
            dst_port: dport,
            flags,
            ..TcpSpec::default()
        },
        Payload::Bytes(&vec![0u8; payload as usize]),
    );
    b
}

/// An IP/TCP packet the stack at `src` sends to `dst`.
pub fn tcp_out(src: &str, dst: &str, sport: u16, dport: u16, payload: u32, tos: u8) -> Vec<u8> {
    let mut b = Vec::new();
    let mut ipspec = IpSpec::new(ip(src), ip(dst));
    ipspec.tos = tos;
    build::ip_tcp(
        &mut b,
        &ipspec,
        &TcpSpec {
            src_port: sport,
            dst_port: dport,
            flags: 0x18,
            seq: 1,
            ..TcpSpec::default()
        },
        Payload::Bytes(&vec![7u8; payload as usize]),
    );
    b
}

pub fn wire(e: &mut Engine, t: Instant, frame: &[u8]) -> Disposition {
    e.handle_wire_frame(t, PortId(0), Frame::full(frame))
}

/// Advance to `t`, running every due timer on the way.
pub fn advance(e: &mut Engine, t: Instant) {
    while let Some(d) = e.poll_timeout() {
        if d > t {
            break;
        }
        e.handle_timeout(d);
        assert!(
            e.poll_timeout().is_none_or(|n| n > d),
            "handle_timeout({d:?}) left a deadline at or before it"
        );
    }
    e.handle_timeout(t);
}

/// Drain presentations, completing each at once; returns them.
pub fn drain(e: &mut Engine, now: Instant) -> Vec<Presentation> {
    let mut v = Vec::new();
    while let Some(p) = e.poll_presentation() {
        e.complete_batch(now, p.batch);
        v.push(p);
    }
    v
}
