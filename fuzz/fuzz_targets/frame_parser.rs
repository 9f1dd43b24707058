#![no_main]
//! Fuzz the frame parser and the whole inbound path: arbitrary bytes as an
//! Ethernet frame from the wire and as an IP packet from a stack. Nothing may
//! panic and the accounting identity must hold.
use libfuzzer_sys::fuzz_target;
use softosa_engine::config::*;
use softosa_engine::*;

fuzz_target!(|data: &[u8]| {
    let _ = softosa_engine::wire::parse_ethernet(data);
    let _ = softosa_engine::wire::parse_ip(data);
    let mut i = InterfaceConfig::new("F", 0, 0);
    i.addresses.push(IpNet { addr: "192.0.2.1".parse().unwrap(), prefix: 24 });
    i.inbperf = InbPerf::Dynamic;
    i.workloadq = true;
    i.vmac = Some(VmacConfig { mac: Some(Mac([2, 0, 0, 0, 0, 1])), route: VmacRoute::All });
    let mut s = StackConfig::new("S");
    s.segmentation_offload = true;
    let mut e = Engine::new(SystemConfig {
        ports: vec![PortConfig {
            name: "P".into(),
            chpid: 1,
            port_num: 0,
            kind: PortKind::Osa { generation: OsaGeneration::Express6S, speed_mbps: 1000, chpid_type: ChpidType::Osd },
            physical_mac: Mac([0x64, 0, 0, 0, 0, 1]),
            lan_mtu: None,
        }],
        stacks: vec![s],
        interfaces: vec![i],
        tuning: Tuning::default(),
    })
    .unwrap();
    let wire_len = data.len() as u32 + u32::from(data.first().copied().unwrap_or(0));
    e.handle_wire_frame(Instant::ZERO, PortId(0), Frame { data, wire_len });
    let _ = e.handle_host_send(Instant::ZERO, IfaceId(0), Frame { data, wire_len }, SendMeta::default());
    e.handle_timeout(Instant::from_micros(10_000));
    let mut buf = Vec::new();
    while e.poll_transmit(Instant::ZERO, PortId(0), &mut buf).is_some() {}
    assert!(e.accounting().balanced());
});
