//! Shared test harness: small configurations built in code and frames run
//! through the engine.
#![allow(dead_code)]

use softosa_engine::config::{
    ChpidType, InbPerf, InterfaceConfig, IpNet, Mac, OsaGeneration, PortConfig, PortKind,
    StackConfig, SystemConfig, VmacConfig, VmacRoute,
};
use softosa_engine::wire::build::{self, EthSpec, IpSpec, Payload, TcpSpec};
use softosa_engine::wire::tcp_flags;
use softosa_engine::{Engine, Frame, IfaceId, Instant, PortId};
use std::net::IpAddr;

pub fn ip(s: &str) -> IpAddr {
    s.parse().expect("test address literal")
}

pub fn net(s: &str, prefix: u8) -> IpNet {
    IpNet {
        addr: ip(s),
        prefix,
    }
}

pub const PHYS: Mac = Mac([0x64, 0x3b, 0x88, 0xf3, 0x00, 0x00]);
pub const PEER_MAC: Mac = Mac([0x00, 0x11, 0x22, 0x33, 0x44, 0x55]);

pub fn osa_port(name: &str, chpid: u8, last: u8) -> PortConfig {
    let mut mac = PHYS;
    mac.0[5] = last;
    PortConfig {
        name: name.into(),
        chpid,
        port_num: 0,
        kind: PortKind::Osa {
            generation: OsaGeneration::Express3,
            speed_mbps: 1000,
            chpid_type: ChpidType::Osd,
        },
        physical_mac: mac,
        lan_mtu: None,
    }
}

/// An IWQ interface: INBPERF DYNAMIC WORKLOADQ with an OSA-generated VMAC.
pub fn iwq_iface(name: &str, stack: usize, port: usize, addr: &str) -> InterfaceConfig {
    let mut i = InterfaceConfig::new(name, stack, port);
    i.addresses = vec![net(addr, 24)];
    i.vmac = Some(VmacConfig {
        mac: None,
        route: VmacRoute::All,
    });
    i.inbperf = InbPerf::Dynamic;
    i.workloadq = true;
    i
}

/// One stack TCPCS1, one OSA port QDIO4101 (CHPID 29), given interfaces.
pub fn system(ifaces: Vec<InterfaceConfig>) -> SystemConfig {
    SystemConfig {
        ports: vec![osa_port("QDIO4101", 0x29, 0x00)],
        stacks: vec![StackConfig::new("TCPCS1")],
        interfaces: ifaces,
        tuning: Default::default(),
    }
}

pub fn engine(cfg: SystemConfig) -> Engine {
    Engine::new(cfg).expect("test configuration activates")
}

/// An Ethernet/IPv4/TCP frame (headers only; `wire_len` carries the size).
pub fn tcp_frame(
    dst_mac: Mac,
    src: &str,
    sport: u16,
    dst: &str,
    dport: u16,
    payload: u32,
) -> (Vec<u8>, u32) {
    let mut out = Vec::new();
    let len = build::eth_tcp(
        &mut out,
        &EthSpec {
            dst: dst_mac,
            src: PEER_MAC,
            vlan: None,
        },
        &IpSpec::new(ip(src), ip(dst)),
        &TcpSpec {
            src_port: sport,
            dst_port: dport,
            seq: 1,
            ack: 1,
            flags: tcp_flags::ACK | tcp_flags::PSH,
            window: 65535,
        },
        Payload::Len(payload),
    );
    (out, len)
}

/// A bare IPv4/TCP packet as a stack sends it.
pub fn tcp_packet(src: &str, dst: &str, payload: u32) -> (Vec<u8>, u32) {
    let mut out = Vec::new();
    let len = build::ip_tcp(
        &mut out,
        &IpSpec::new(ip(src), ip(dst)),
        &TcpSpec {
            src_port: 1000,
            dst_port: 2000,
            seq: 1,
            ack: 1,
            flags: tcp_flags::ACK,
            window: 65535,
        },
        Payload::Len(payload),
    );
    (out, len)
}

pub fn us(n: u64) -> Instant {
    Instant::from_micros(n)
}

pub fn wire(e: &mut Engine, now: Instant, port: usize, f: &(Vec<u8>, u32)) {
    e.handle_wire_frame(
        now,
        PortId(port),
        Frame {
            data: &f.0,
            wire_len: f.1,
        },
    );
}

/// Service every presented batch at once (begin, complete, end).
pub fn drain(e: &mut Engine, now: Instant) -> usize {
    let mut n = 0;
    while let Some(p) = e.poll_presentation() {
        e.begin_service(now, p.iface, p.queue);
        e.complete_batch(now, p.batch);
        e.end_service(now, p.iface, p.queue);
        n += 1;
    }
    n
}

pub fn mac_of(e: &Engine, i: usize) -> Mac {
    e.interface(IfaceId(i)).map(|i| i.mac).unwrap_or(Mac::ZERO)
}
