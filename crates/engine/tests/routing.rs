//! Data-router, sharing, VMAC, ARP offload, outbound priority, segmentation
//! offload and accelerator tests (spec 01 §1.3–1.5, 03).

mod common;
use common::*;
use softosa_engine::config::*;
use softosa_engine::counters::DropReason;
use softosa_engine::wire::build::{self, EthSpec, IpSpec, Payload, TcpSpec};
use softosa_engine::wire::{parse_ethernet, NetInfo};
use softosa_engine::*;

fn two_stacks(vmac_a: bool, vmac_b: bool) -> SystemConfig {
    let mut a = iface("A", 0, "192.0.2.1");
    let mut b = iface("B", 1, "192.0.2.2");
    a.vmac = vmac_a.then(VmacConfig::default);
    b.vmac = vmac_b.then(VmacConfig::default);
    SystemConfig {
        ports: vec![osa_port(OsaGeneration::Express3)],
        stacks: vec![StackConfig::new("TCPCS1"), StackConfig::new("TCPCS2")],
        interfaces: vec![a, b],
        tuning: Tuning::default(),
    }
}

#[test]
fn generated_vmacs_follow_the_adapter_scheme() {
    let mut e = Engine::new(two_stacks(true, true)).unwrap();
    let a = e.interface(IfaceId(0)).unwrap().mac;
    let b = e.interface(IfaceId(1)).unwrap().mac;
    assert_eq!(a.0[0], 0x02);
    assert_eq!(&a.0[3..], &PORT_MAC.0[3..]);
    assert_eq!(u16::from_be_bytes([a.0[1], a.0[2]]), 1);
    assert_eq!(u16::from_be_bytes([b.0[1], b.0[2]]), 2);
    assert_eq!(
        e.interface(IfaceId(0)).unwrap().vmac_origin,
        Some(VmacOrigin::Osa)
    );
    // Stop and restart the device: same VMAC.
    let cfg = e.interface(IfaceId(0)).unwrap().cfg.clone();
    e.deactivate_interface(IfaceId(0));
    let again = e.activate_interface(us(1), cfg.clone()).unwrap();
    assert_eq!(e.interface(again).unwrap().mac, a);
    // The stack restarts: a new one.
    e.deactivate_interface(again);
    e.forget_stack_vmacs(StackId(0));
    let fresh = e.activate_interface(us(2), cfg).unwrap();
    assert_ne!(e.interface(fresh).unwrap().mac, a);
}

/// A coded VMAC that looks like the adapter's next generated one is
/// passed over when the adapter generates one later; coding one already
/// held is refused, naming both interfaces.
#[test]
fn a_generated_vmac_is_none_the_port_already_holds() {
    let mut cfg = two_stacks(false, true);
    let mut next = PORT_MAC.0;
    next[0] = 0x02;
    next[1] = 0;
    next[2] = 1;
    cfg.interfaces[0].vmac = Some(VmacConfig {
        mac: Some(Mac(next)),
        route: VmacRoute::All,
    });
    let e = Engine::new(cfg).unwrap();
    let b = e.interface(IfaceId(1)).unwrap().mac;
    assert_ne!(b, Mac(next));
    assert_eq!(u16::from_be_bytes([b.0[1], b.0[2]]), 2);
    // The other way round: the configuration's coded VMACs are known
    // before any is generated, so the order does not matter.
    let mut cfg = two_stacks(true, false);
    cfg.interfaces[1].vmac = Some(VmacConfig {
        mac: Some(Mac(next)),
        route: VmacRoute::All,
    });
    let e = Engine::new(cfg).unwrap();
    assert_eq!(e.interface(IfaceId(1)).unwrap().mac, Mac(next));
    assert_ne!(e.interface(IfaceId(0)).unwrap().mac, Mac(next));
    // An interface started later that codes a VMAC already handed out is
    // refused, naming both.
    let mut e = Engine::new(two_stacks(true, false)).unwrap();
    let mut late = iface("C", 1, "192.0.2.3");
    late.vmac = Some(VmacConfig {
        mac: Some(Mac(next)),
        route: VmacRoute::All,
    });
    match e.activate_interface(us(1), late) {
        Err(a @ ActivateError::VmacInUse(..)) => {
            assert_eq!(a.interface(), "C");
            assert!(a.to_string().contains("already used by interface A"), "{a}");
        }
        other => panic!("expected VmacInUse, got {other:?}"),
    }
}

#[test]
fn user_vmac_must_be_locally_administered() {
    let mut cfg = two_stacks(true, false);
    cfg.interfaces[0].vmac = Some(VmacConfig {
        mac: Some("0000113B9213".parse().unwrap()),
        route: VmacRoute::All,
    });
    assert!(matches!(
        Engine::new(cfg),
        Err(ConfigError::Activate(ActivateError::VmacNotLocal(..)))
    ));
    let mut cfg = two_stacks(true, false);
    let m: Mac = "0200113B9213".parse().unwrap();
    cfg.interfaces[0].vmac = Some(VmacConfig {
        mac: Some(m),
        route: VmacRoute::All,
    });
    let e = Engine::new(cfg).unwrap();
    assert_eq!(e.interface(IfaceId(0)).unwrap().mac, m);
    assert_eq!(
        e.interface(IfaceId(0)).unwrap().vmac_origin,
        Some(VmacOrigin::Cfg)
    );
}

#[test]
fn frames_are_steered_by_vmac_then_by_registered_ip() {
    let mut e = Engine::new(two_stacks(true, false)).unwrap();
    let vmac = e.interface(IfaceId(0)).unwrap().mac;
    // To the VMAC with any IP (ROUTEALL): stack A.
    assert!(matches!(
        wire(&mut e, us(1), &tcp_in(vmac, "203.0.113.5", 1, 2, 10)),
        Disposition::Queued {
            iface: IfaceId(0),
            ..
        }
    ));
    // To the port MAC for B's address: stack B.
    assert!(matches!(
        wire(&mut e, us(2), &tcp_in(PORT_MAC, "192.0.2.2", 1, 2, 10)),
        Disposition::Queued {
            iface: IfaceId(1),
            ..
        }
    ));
    // Unknown address, no router: discarded and counted.
    assert_eq!(
        wire(&mut e, us(3), &tcp_in(PORT_MAC, "203.0.113.5", 1, 2, 10)),
        Disposition::Dropped(DropReason::NoRoute)
    );
    // Unknown MAC.
    assert_eq!(
        wire(
            &mut e,
            us(4),
            &tcp_in(Mac([0x02, 9, 9, 9, 9, 9]), "192.0.2.2", 1, 2, 10)
        ),
        Disposition::Dropped(DropReason::UnknownMac)
    );
    // Garbage.
    assert_eq!(
        wire(&mut e, us(5), &[1, 2, 3]),
        Disposition::Dropped(DropReason::InvalidFrame)
    );
    assert_eq!(e.ports()[0].frinvct, 1);
    advance(&mut e, us(10_000));
    drain(&mut e, us(10_000));
    assert!(e.accounting().balanced(), "{:?}", e.accounting());
}

#[test]
fn an_unreadable_frame_is_counted_on_its_vmac_owner_else_on_the_port() {
    let mut e = Engine::new(two_stacks(true, false)).unwrap();
    let vmac = e.interface(IfaceId(0)).unwrap().mac;
    let counts = |e: &Engine, id: usize| {
        let i = e.interface(IfaceId(id)).unwrap();
        let frinvct = i.queue(QueueKind::Primary).map(|q| q.q.counters.frinvct);
        (frinvct, i.counters.packets_in_error)
    };
    // A's VMAC: A's FRINVCT and packets in error, together.
    assert_eq!(
        e.count_unreadable(PortId(0), Some(vmac)),
        Some(InvalidAt::Interface(IfaceId(0)))
    );
    assert_eq!(counts(&e, 0), (Some(1), 1));
    // The port's MAC (B's, and any other interface's without a VMAC), a
    // group address, no MAC held: the port's.
    for dst in [Some(PORT_MAC), Some(Mac([0xff; 6])), None] {
        assert_eq!(e.count_unreadable(PortId(0), dst), Some(InvalidAt::Port));
    }
    assert_eq!(e.ports()[0].frinvct, 3);
    assert_eq!(counts(&e, 1), (Some(0), 0));
    // No such port: nothing counted.
    assert_eq!(e.count_unreadable(PortId(7), Some(vmac)), None);
    // Counting is not receiving: no frame in, nothing dropped.
    assert_eq!(e.accounting().frames_in, 0);
    // A frame the parser refuses is counted by the same rule.
    let mut garbage = vmac.0.to_vec();
    garbage.extend_from_slice(&[0; 6]);
    assert_eq!(
        wire(&mut e, us(1), &garbage),
        Disposition::Dropped(DropReason::InvalidFrame)
    );
    assert_eq!(counts(&e, 0), (Some(2), 2));
    assert_eq!(
        wire(&mut e, us(2), &PORT_MAC.0),
        Disposition::Dropped(DropReason::InvalidFrame)
    );
    assert_eq!(e.ports()[0].frinvct, 4);
}

#[test]
fn routelcl_takes_only_registered_addresses() {
    let mut cfg = two_stacks(true, false);
    cfg.interfaces[0].vmac = Some(VmacConfig {
        mac: None,
        route: VmacRoute::Local,
    });
    let mut e = Engine::new(cfg).unwrap();
    let vmac = e.interface(IfaceId(0)).unwrap().mac;
    assert_eq!(
        wire(&mut e, us(1), &tcp_in(vmac, "203.0.113.5", 1, 2, 10)),
        Disposition::Dropped(DropReason::NotLocal)
    );
    assert!(matches!(
        wire(&mut e, us(2), &tcp_in(vmac, "192.0.2.1", 1, 2, 10)),
        Disposition::Queued {
            iface: IfaceId(0),
            ..
        }
    ));
}

#[test]
fn unregistered_destinations_go_to_prirouter_then_secrouter() {
    let mut cfg = two_stacks(false, false);
    cfg.interfaces[0].router = RouterRole::Secondary;
    cfg.interfaces[1].router = RouterRole::Primary;
    let mut e = Engine::new(cfg).unwrap();
    assert!(matches!(
        wire(&mut e, us(1), &tcp_in(PORT_MAC, "203.0.113.5", 1, 2, 10)),
        Disposition::Queued {
            iface: IfaceId(1),
            ..
        }
    ));
    e.deactivate_interface(IfaceId(1));
    assert!(matches!(
        wire(&mut e, us(2), &tcp_in(PORT_MAC, "203.0.113.5", 1, 2, 10)),
        Disposition::Queued {
            iface: IfaceId(0),
            ..
        }
    ));
}

#[test]
fn a_vmac_interface_is_never_the_router() {
    let mut cfg = two_stacks(true, false);
    cfg.interfaces[0].router = RouterRole::Primary;
    let mut e = Engine::new(cfg).unwrap();
    assert_eq!(
        wire(&mut e, us(1), &tcp_in(PORT_MAC, "203.0.113.5", 1, 2, 10)),
        Disposition::Dropped(DropReason::NoRoute)
    );
    // Coded, but not given: DEVLINKS shows CFGROUTER PRI, ACTROUTER NON.
    assert_eq!(e.active_router_role(IfaceId(0)), RouterRole::NonRouter);
}

/// The role the adapter gives (DEVLINKS ACTROUTER): one primary router per
/// port; a second interface coding PRIROUTER gets none until the first
/// stops.
#[test]
fn one_interface_holds_a_router_role_on_a_port() {
    let mut cfg = two_stacks(false, false);
    cfg.interfaces[0].router = RouterRole::Primary;
    cfg.interfaces[1].router = RouterRole::Primary;
    let mut e = Engine::new(cfg).unwrap();
    let roles = |e: &Engine| [0, 1].map(|i| e.active_router_role(IfaceId(i)));
    assert_eq!(roles(&e), [RouterRole::Primary, RouterRole::NonRouter]);
    e.deactivate_interface(IfaceId(0));
    assert_eq!(roles(&e)[1], RouterRole::Primary);
}

#[test]
fn sharing_stacks_talk_inside_the_adapter_unless_isolated() {
    let mut e = Engine::new(two_stacks(true, true)).unwrap();
    let pkt = tcp_out("192.0.2.1", "192.0.2.2", 1000, 2000, 100, 0);
    let r = e.handle_host_send(us(1), IfaceId(0), Frame::full(&pkt), SendMeta::default());
    assert_eq!(r, Ok(SendOutcome::DeliveredInternally { to: IfaceId(1) }));
    advance(&mut e, us(1000));
    let p = drain(&mut e, us(1000));
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].iface, IfaceId(1));
    let mut cfg = two_stacks(true, true);
    cfg.interfaces[1].isolate = true;
    let mut e = Engine::new(cfg).unwrap();
    let r = e.handle_host_send(us(1), IfaceId(0), Frame::full(&pkt), SendMeta::default());
    assert_eq!(r, Err(DropReason::Isolated));
}

#[test]
fn arp_offload_answers_for_registered_addresses() {
    let mut e = Engine::new(two_stacks(true, false)).unwrap();
    let vmac = e.interface(IfaceId(0)).unwrap().mac;
    let mut req = arp_request("192.0.2.1");
    assert_eq!(wire(&mut e, us(1), &req), Disposition::Handled);
    let mut buf = Vec::new();
    let tx = e.poll_transmit(us(1), PortId(0), &mut buf).unwrap();
    assert_eq!(tx.iface, None);
    match parse_ethernet(&buf).unwrap().net {
        NetInfo::Arp(a) => {
            assert_eq!(a.op, 2);
            assert_eq!(a.sender_mac, vmac);
            assert_eq!(a.target_mac, PEER_MAC);
        }
        other => panic!("{other:?}"),
    }
    // ARP for someone else: dropped with a reason.
    req[41] = 77;
    assert_eq!(
        wire(&mut e, us(2), &req),
        Disposition::Dropped(DropReason::ArpNotForUs)
    );
}

#[test]
fn unresolved_next_hops_send_arp_and_flush_on_reply() {
    let mut e = Engine::new(two_stacks(false, false)).unwrap();
    let pkt = tcp_out("192.0.2.1", "192.0.2.9", 1000, 2000, 100, 0);
    let r = e.handle_host_send(us(1), IfaceId(0), Frame::full(&pkt), SendMeta::default());
    assert_eq!(r, Ok(SendOutcome::AwaitingArp));
    let mut buf = Vec::new();
    let tx = e.poll_transmit(us(1), PortId(0), &mut buf).unwrap();
    assert_eq!(tx.iface, None);
    assert!(matches!(parse_ethernet(&buf).unwrap().net, NetInfo::Arp(a) if a.op == 1));
    let mut reply = Vec::new();
    softosa_engine::wire::build::eth_arp(
        &mut reply,
        &softosa_engine::wire::build::EthSpec {
            dst: PORT_MAC,
            src: PEER_MAC,
            vlan: None,
        },
        2,
        PEER_MAC,
        "192.0.2.9".parse().unwrap(),
        PORT_MAC,
        "192.0.2.1".parse().unwrap(),
    );
    wire(&mut e, us(2), &reply);
    let tx = e.poll_transmit(us(2), PortId(0), &mut buf).unwrap();
    assert_eq!(tx.iface, Some(IfaceId(0)));
    assert_eq!(&buf[..6], &PEER_MAC.0);
    // One that never resolves is dropped after a timeout, counted.
    let pkt = tcp_out("192.0.2.1", "192.0.2.77", 1000, 2000, 100, 0);
    e.handle_host_send(us(3), IfaceId(0), Frame::full(&pkt), SendMeta::default())
        .unwrap();
    advance(&mut e, us(3_000_000));
    assert_eq!(e.counters().dropped_out.get(DropReason::ArpUnresolved), 1);
}

/// A send to the interface's subnet broadcast needs no ARP: it leaves at
/// once for every station (a replayed capture's broadcasts waited for an
/// ARP reply that never comes).
#[test]
fn a_subnet_broadcast_leaves_without_arp() {
    let mut e = Engine::new(two_stacks(false, false)).unwrap();
    let pkt = tcp_out("192.0.2.1", "192.0.2.255", 1000, 2000, 100, 0);
    let r = e.handle_host_send(us(1), IfaceId(0), Frame::full(&pkt), SendMeta::default());
    assert!(matches!(r, Ok(SendOutcome::Queued { .. })), "{r:?}");
    let mut buf = Vec::new();
    advance(&mut e, us(1_000));
    let tx = e.poll_transmit(us(1_000), PortId(0), &mut buf).unwrap();
    assert_eq!(tx.iface, Some(IfaceId(0)));
    assert_eq!(&buf[..6], &[0xff; 6]);
    // A host of the subnet still needs its ARP.
    let pkt = tcp_out("192.0.2.1", "192.0.2.254", 1000, 2000, 100, 0);
    let r = e.handle_host_send(us(5), IfaceId(0), Frame::full(&pkt), SendMeta::default());
    assert_eq!(r, Ok(SendOutcome::AwaitingArp));
}

#[test]
fn write_queues_drain_by_priority() {
    let mut cfg = two_stacks(false, false);
    cfg.stacks[0].tos_policy = Some(TosPolicy::default());
    let mut e = Engine::new(cfg).unwrap();
    e.add_neighbor(PortId(0), ip("192.0.2.9"), PEER_MAC);
    // A stream fills queue 4 (TOS 0), then one interactive packet (TOS 0x80).
    for _ in 0..50 {
        let p = tcp_out("192.0.2.1", "192.0.2.9", 20, 5000, 1400, 0);
        e.handle_host_send(us(1), IfaceId(0), Frame::full(&p), SendMeta::default())
            .unwrap();
    }
    let p = tcp_out("192.0.2.1", "192.0.2.9", 2141, 6000, 800, 0x80);
    let r = e.handle_host_send(us(2), IfaceId(0), Frame::full(&p), SendMeta::default());
    assert_eq!(
        r,
        Ok(SendOutcome::Queued {
            queue: 1,
            segments: 1
        })
    );
    let mut buf = Vec::new();
    let first = e.poll_transmit(us(3), PortId(0), &mut buf).unwrap();
    assert_eq!(first.queue, 1);
    let info = parse_ethernet(&buf).unwrap();
    assert_eq!(info.flow().unwrap().src_port, 2141);
    let mut rest = 0;
    while let Some(t) = e.poll_transmit(us(3), PortId(0), &mut buf) {
        assert_eq!(t.queue, 4);
        rest += 1;
    }
    assert_eq!(rest, 50);
}

#[test]
fn wlm_importance_picks_the_queue() {
    let mut cfg = two_stacks(false, false);
    let mut m = WlmPriorityMap::default();
    m.queue_for[2] = 2; // interactive at importance 2 → queue 2
    cfg.stacks[0].wlm_priorityq = Some(m);
    let mut e = Engine::new(cfg).unwrap();
    e.add_neighbor(PortId(0), ip("192.0.2.9"), PEER_MAC);
    let p = tcp_out("192.0.2.1", "192.0.2.9", 20, 5000, 1400, 0);
    let meta = |i| SendMeta {
        wlm: Some(WlmClass::Importance(i)),
        ..SendMeta::default()
    };
    assert_eq!(
        e.handle_host_send(us(1), IfaceId(0), Frame::full(&p), meta(3)),
        Ok(SendOutcome::Queued {
            queue: 3,
            segments: 1
        })
    );
    assert_eq!(
        e.handle_host_send(us(1), IfaceId(0), Frame::full(&p), meta(2)),
        Ok(SendOutcome::Queued {
            queue: 2,
            segments: 1
        })
    );
}

#[test]
fn full_write_queue_refuses_and_counts() {
    let mut cfg = two_stacks(false, false);
    cfg.tuning.write_queue_frames = 4;
    let mut e = Engine::new(cfg).unwrap();
    e.add_neighbor(PortId(0), ip("192.0.2.9"), PEER_MAC);
    let p = tcp_out("192.0.2.1", "192.0.2.9", 20, 5000, 100, 0);
    for _ in 0..4 {
        e.handle_host_send(us(1), IfaceId(0), Frame::full(&p), SendMeta::default())
            .unwrap();
    }
    assert_eq!(
        e.handle_host_send(us(1), IfaceId(0), Frame::full(&p), SendMeta::default()),
        Err(DropReason::WriteQueueFull)
    );
    assert_eq!(
        e.interface(IfaceId(0)).unwrap().writes[0].counters.discards,
        1
    );
}

#[test]
fn segmentation_offload_cuts_large_sends_into_mss_packets() {
    let mut cfg = two_stacks(false, false);
    cfg.stacks[0].segmentation_offload = true;
    cfg.interfaces[0].mtu = Some(1500);
    let mut e = Engine::new(cfg).unwrap();
    e.add_neighbor(PortId(0), ip("192.0.2.9"), PEER_MAC);
    let p = tcp_out("192.0.2.1", "192.0.2.9", 20, 5000, 60_000, 0);
    let r = e.handle_host_send(us(1), IfaceId(0), Frame::full(&p), SendMeta::default());
    assert_eq!(
        r,
        Ok(SendOutcome::Queued {
            queue: 1,
            segments: 42
        })
    );
    let mut buf = Vec::new();
    let mut total = 0;
    let mut n = 0;
    while let Some(t) = e.poll_transmit(us(2), PortId(0), &mut buf) {
        assert!(t.wire_len <= 1514);
        assert_eq!(t.wire_len as usize, buf.len());
        total += parse_ethernet(&buf).unwrap().tcp_payload().unwrap();
        n += 1;
    }
    assert_eq!((n, total), (42, 60_000));
    let off = &e.interface(IfaceId(0)).unwrap().counters.offload;
    assert_eq!((off.sends, off.segments, off.bytes), (1, 42, 60_040));
    // To a stack sharing the adapter, the stack segments itself.
    assert!(!e.offload_applies(IfaceId(0), ip("192.0.2.2"), false, false));
    assert!(e.offload_applies(IfaceId(0), ip("192.0.2.9"), false, false));
    assert!(!e.offload_applies(IfaceId(0), ip("192.0.2.9"), true, false));
}

#[test]
fn a_big_tcp_send_with_ipv4_total_length_zero_is_segmented() {
    // Linux BIG TCP leaves the IPv4 total length of a GSO packet over
    // 64 KiB at 0; the packet is as long as the frame says.
    let mut cfg = two_stacks(false, false);
    cfg.stacks[0].segmentation_offload = true;
    cfg.interfaces[0].mtu = Some(1500);
    let mut e = Engine::new(cfg).unwrap();
    e.add_neighbor(PortId(0), ip("192.0.2.9"), PEER_MAC);
    let mut p = tcp_out("192.0.2.1", "192.0.2.9", 20, 5000, 0, 0);
    p[2..4].copy_from_slice(&[0, 0]);
    let big = Frame {
        data: &p,
        wire_len: 100_040,
    };
    let r = e.handle_host_send(us(1), IfaceId(0), big, SendMeta::default());
    assert_eq!(
        r,
        Ok(SendOutcome::Queued {
            queue: 1,
            segments: 100_000u32.div_ceil(1460)
        })
    );
    // From the wire, it is read (and too large for an SBAL), not invalid.
    let mut f = Vec::new();
    build::eth_header(
        &mut f,
        &EthSpec {
            dst: e.interface(IfaceId(0)).unwrap().mac,
            src: PEER_MAC,
            vlan: None,
        },
        0x0800,
    );
    f.extend_from_slice(&tcp_out("192.0.2.9", "192.0.2.1", 5000, 20, 0, 0));
    f[16..18].copy_from_slice(&[0, 0]);
    let d = e.handle_wire_frame(
        us(2),
        PortId(0),
        Frame {
            data: &f,
            wire_len: 100_054,
        },
    );
    assert_eq!(d, Disposition::Dropped(DropReason::FrameTooLarge));
    let rq = e.interface(IfaceId(0)).unwrap().queue(QueueKind::Primary);
    assert_eq!(rq.map(|q| q.q.counters.frinvct), Some(0));
}

fn router_config(accel: bool, iqdio: bool, out_iqd: bool) -> SystemConfig {
    let mut s = StackConfig::new("ROUTER");
    s.datagram_fwd = true;
    s.qdio_accelerator = accel.then_some(1);
    s.iqdio_routing = iqdio;
    let mut ports = vec![osa_port(OsaGeneration::Express3)];
    let mut second = osa_port(OsaGeneration::Express3);
    second.name = "QDIO4201".into();
    second.chpid = 0x2a;
    second.physical_mac = Mac([0x64, 0x3b, 0x88, 0xf3, 0x00, 0x02]);
    if out_iqd {
        second.kind = PortKind::HiperSockets { mfs_kb: 64 };
    }
    ports.push(second);
    // A forwarding stack gets frames for foreign addresses as PRIROUTER.
    let mut a = iface("OSAIN", 0, "192.0.2.1");
    a.router = RouterRole::Primary;
    let mut b = iface("OUT", 0, "198.51.100.1");
    b.port = 1;
    SystemConfig {
        ports,
        stacks: vec![s, StackConfig::new("BACKEND")],
        interfaces: vec![a, b, {
            let mut c = iface("BACK", 1, "198.51.100.2");
            c.port = 1;
            c
        }],
        tuning: Tuning::default(),
    }
}

fn forward_once(e: &mut Engine) {
    // The stack forwards the first packet itself, which teaches the DLC.
    let p = tcp_out("192.0.2.9", "198.51.100.20", 1000, 80, 100, 0);
    let meta = SendMeta {
        forwarded: true,
        in_iface: Some(IfaceId(0)),
        ..SendMeta::default()
    };
    let _ = e.handle_host_send(us(1), IfaceId(1), Frame::full(&p), meta);
}

#[test]
fn accelerator_forwards_after_the_first_packet() {
    let mut e = Engine::new(router_config(true, false, false)).unwrap();
    e.add_neighbor(PortId(1), ip("198.51.100.20"), PEER_MAC);
    forward_once(&mut e);
    assert_eq!(e.stacks()[0].accel_routes().len(), 1);
    let f = tcp_in(PORT_MAC, "198.51.100.20", 1000, 80, 500);
    assert_eq!(
        wire(&mut e, us(2), &f),
        Disposition::Forwarded { out: IfaceId(1) }
    );
    let c = e.read_counters(IfaceId(0), QueueKind::Primary).unwrap();
    assert_eq!((c.pktiqd, c.bytiqd), (1, 40 + 500));
    // It left on the other port, TTL decremented, never presented.
    let mut buf = Vec::new();
    let mut got = None;
    while let Some(t) = e.poll_transmit(us(3), PortId(1), &mut buf) {
        let info = parse_ethernet(&buf).unwrap();
        if t.iface == Some(IfaceId(1)) && info.tcp_payload() == Some(500) {
            assert_eq!(t.queue, 1, "QDIOPRIORITY 1");
            got = Some(info);
        }
    }
    let info = got.unwrap();
    assert_eq!(info.ip().unwrap().ttl, 63);
    assert_eq!(softosa_engine::wire::checksum::ipv4_header(&buf[14..34]), 0);
    assert!(e.poll_presentation().is_none());
    assert!(e.accounting().balanced());
}

#[test]
fn iqdiorouting_does_not_accelerate_osa_to_osa() {
    let mut e = Engine::new(router_config(false, true, false)).unwrap();
    forward_once(&mut e);
    assert!(e.stacks()[0].accel_routes().is_empty());
    // OSA to HiperSockets it does.
    let mut e = Engine::new(router_config(false, true, true)).unwrap();
    forward_once(&mut e);
    assert_eq!(e.stacks()[0].accel_routes().len(), 1);
}

#[test]
fn accelerator_is_refused_with_iqdiorouting_and_skips_olm() {
    assert!(matches!(
        Engine::new(router_config(true, true, false)),
        Err(ConfigError::IqdioRoutingWithAccelerator(_))
    ));
    let mut cfg = router_config(true, false, false);
    cfg.interfaces[0].olm = true;
    cfg.interfaces[0].inbperf = InbPerf::Dynamic;
    let mut e = Engine::new(cfg).unwrap();
    forward_once(&mut e);
    assert!(e.stacks()[0].accel_routes().is_empty());
}

#[test]
fn non_ip_frames_are_an_unsupported_protocol_on_a_layer3_port() {
    let mut e = Engine::new(two_stacks(false, false)).unwrap();
    // LLDP to its group address, and the same protocol to the port's MAC:
    // no layer-3 interface takes it, whatever the address.
    let lldp = |dst: Mac| {
        let mut f = dst.0.to_vec();
        f.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x42, 0x88, 0xcc]);
        f.extend_from_slice(&[0; 46]);
        f
    };
    for (n, dst) in [Mac([0x01, 0x80, 0xc2, 0, 0, 0x0e]), PORT_MAC]
        .into_iter()
        .enumerate()
    {
        assert_eq!(
            wire(&mut e, us(n as u64 + 1), &lldp(dst)),
            Disposition::Dropped(DropReason::UnsupportedProtocol),
            "{dst:?}"
        );
    }
    assert!(e.accounting().balanced(), "{:?}", e.accounting());
}

#[test]
fn multicast_goes_to_the_stacks_that_registered_the_group() {
    let mut e = Engine::new(two_stacks(false, false)).unwrap();
    let group = ip("239.1.1.1");
    let mut f = Vec::new();
    softosa_engine::wire::build::eth_udp(
        &mut f,
        &softosa_engine::wire::build::EthSpec {
            dst: Mac([0x01, 0x00, 0x5e, 1, 1, 1]),
            src: PEER_MAC,
            vlan: None,
        },
        &softosa_engine::wire::build::IpSpec::new(ip("192.0.2.9"), group),
        5000,
        5000,
        softosa_engine::wire::build::Payload::Len(100),
    );
    assert_eq!(
        wire(&mut e, us(1), &f),
        Disposition::Dropped(DropReason::NoRoute)
    );
    assert!(e.register_multicast(IfaceId(1), group));
    assert!(!e.register_multicast(IfaceId(1), ip("192.0.2.50")));
    assert!(matches!(
        wire(&mut e, us(2), &f),
        Disposition::Queued {
            iface: IfaceId(1),
            ..
        }
    ));
    assert!(e.register_multicast(IfaceId(0), group));
    assert_eq!(
        wire(&mut e, us(3), &f),
        Disposition::Replicated { copies: 2 }
    );
    e.deregister_multicast(IfaceId(1), group);
    e.deregister_multicast(IfaceId(0), group);
    assert_eq!(
        wire(&mut e, us(4), &f),
        Disposition::Dropped(DropReason::NoRoute)
    );
    advance(&mut e, us(100_000));
    drain(&mut e, us(100_000));
    let acc = e.accounting();
    assert!(acc.balanced(), "{acc:?}");
    assert_eq!(acc.replicated, 1);
    assert_eq!(e.interface(IfaceId(1)).unwrap().counters.multicast_in, 2);
}

#[test]
fn a_layer2_stack_sends_the_frames_it_built() {
    // Layer 2 (spec 1.4): the stack builds its own Ethernet header — its
    // VMAC as source, the next hop as destination, ARP or IP — and the
    // adapter sends it as built.
    let mut cfg = two_stacks(false, false);
    cfg.interfaces[0].layer = Layer::Layer2;
    let mut e = Engine::new(cfg).unwrap();
    let mac = e.interface(IfaceId(0)).unwrap().mac;
    let eth = EthSpec {
        dst: PEER_MAC,
        src: mac,
        vlan: None,
    };
    let mut ipf = Vec::new();
    build::eth_tcp(
        &mut ipf,
        &eth,
        &IpSpec::new(ip("192.0.2.1"), ip("192.0.2.9")),
        &TcpSpec {
            src_port: 20,
            dst_port: 5000,
            flags: 0x18,
            seq: 1,
            ..TcpSpec::default()
        },
        Payload::Bytes(&[7u8; 100]),
    );
    let mut arp = Vec::new();
    build::eth_arp(
        &mut arp,
        &eth,
        2,
        mac,
        "192.0.2.1".parse().unwrap(),
        PEER_MAC,
        "192.0.2.9".parse().unwrap(),
    );
    for f in [&ipf, &arp] {
        let r = e.handle_host_send(us(1), IfaceId(0), Frame::full(f), SendMeta::default());
        assert!(matches!(r, Ok(SendOutcome::Queued { .. })), "{r:?}");
        let mut buf = Vec::new();
        e.poll_transmit(us(2), PortId(0), &mut buf).unwrap();
        assert_eq!(&buf[..], &f[..], "the frame leaves as the stack built it");
    }
}

#[test]
fn a_port_lists_every_interface_activated_on_it_stopped_ones_too() {
    // What the displays' TRLE users were found by: a pass over every
    // interface, once per interface (20,000 interfaces took 3.3 s).
    let mut second = osa_port(OsaGeneration::Express3);
    second.name = "QDIO4102".into();
    second.port_num = 1;
    let mut c = iface("C", 0, "192.0.3.1");
    c.port = 1;
    let cfg = SystemConfig {
        ports: vec![osa_port(OsaGeneration::Express3), second],
        stacks: vec![StackConfig::new("TCPCS1"), StackConfig::new("TCPCS2")],
        interfaces: vec![iface("A", 0, "192.0.2.1"), c, iface("B", 1, "192.0.2.2")],
        tuning: Tuning::default(),
    };
    let mut e = Engine::new(cfg).expect("valid");
    let b = e.interface_by_name("B").expect("B");
    e.deactivate_interface(b);
    e.activate_interface(us(10), iface("D", 1, "192.0.2.3"))
        .expect("D");
    for port in 0..3 {
        let by_index: Vec<&str> = e
            .port_interfaces(port)
            .map(|i| i.cfg.name.as_str())
            .collect();
        let by_scan: Vec<&str> = e
            .interfaces()
            .iter()
            .filter(|i| i.cfg.port == port)
            .map(|i| i.cfg.name.as_str())
            .collect();
        assert_eq!(by_index, by_scan, "port {port}");
    }
    let names: Vec<&str> = e.port_interfaces(0).map(|i| i.cfg.name.as_str()).collect();
    assert_eq!(names, ["A", "B", "D"]);
}

/// An ARP request from the peer for `target`, to the broadcast MAC, on
/// VLAN `vlan`.
fn arp_request_on(target: &str, vlan: Option<u16>) -> Vec<u8> {
    let mut req = Vec::new();
    build::eth_arp(
        &mut req,
        &EthSpec {
            dst: Mac::BROADCAST,
            src: PEER_MAC,
            vlan,
        },
        1,
        PEER_MAC,
        "192.0.2.9".parse().unwrap(),
        Mac::ZERO,
        target.parse().unwrap(),
    );
    req
}

/// [`arp_request_on`] untagged.
fn arp_request(target: &str) -> Vec<u8> {
    arp_request_on(target, None)
}

/// A TCP frame from the peer to `dst` at `mac`, on VLAN `vlan`.
fn tcp_in_on(mac: Mac, dst: &str, vlan: Option<u16>) -> Vec<u8> {
    let mut b = Vec::new();
    build::eth_tcp(
        &mut b,
        &EthSpec {
            dst: mac,
            src: PEER_MAC,
            vlan,
        },
        &IpSpec::new(ip("192.0.2.9"), ip(dst)),
        &TcpSpec::default(),
        Payload::Len(10),
    );
    b
}

/// The interfaces that registered `addr` with the adapter, each with
/// whether the adapter answers ARP for it there.
fn registration(e: &Engine, addr: &str) -> Vec<(IfaceId, bool)> {
    let a = ip(addr);
    e.interfaces()
        .iter()
        .flat_map(|i| e.registered_addresses(i.id))
        .filter(|(x, _)| *x == a)
        .map(|(_, r)| (r.iface, r.arp))
        .collect()
}

/// Stack A (non-VMAC) has a VIPA in its subnet and one outside it; stack B
/// shares the port and its MAC.
fn vipa_stacks() -> SystemConfig {
    let mut cfg = two_stacks(false, false);
    cfg.stacks[0].vipas = vec![ip("192.0.2.77"), ip("10.9.9.9")];
    cfg
}

#[test]
fn a_stack_registers_its_vipas_so_a_shared_mac_reaches_them() {
    let mut e = Engine::new(vipa_stacks()).unwrap();
    // Registered on A's interface; the adapter answers ARP only for the
    // one in the interface's subnet.
    assert_eq!(registration(&e, "192.0.2.1"), [(IfaceId(0), true)]);
    assert_eq!(registration(&e, "192.0.2.77"), [(IfaceId(0), true)]);
    assert_eq!(registration(&e, "10.9.9.9"), [(IfaceId(0), false)]);
    // A datagram for the VIPA, to the port's MAC, goes to stack A although
    // no stack is a router.
    assert!(matches!(
        wire(&mut e, us(1), &tcp_in(PORT_MAC, "10.9.9.9", 1, 2, 10)),
        Disposition::Queued {
            iface: IfaceId(0),
            ..
        }
    ));
    assert_eq!(
        wire(&mut e, us(2), &tcp_in(PORT_MAC, "10.9.9.10", 1, 2, 10)),
        Disposition::Dropped(DropReason::NoRoute)
    );
    // ARP: answered for the VIPA in the subnet, not for the other.
    assert_eq!(
        wire(&mut e, us(3), &arp_request("192.0.2.77")),
        Disposition::Handled
    );
    let mut buf = Vec::new();
    assert!(e.poll_transmit(us(3), PortId(0), &mut buf).is_some());
    assert_eq!(
        wire(&mut e, us(4), &arp_request("10.9.9.9")),
        Disposition::Dropped(DropReason::ArpNotForUs)
    );
    // Stack B sends to A's VIPA: the adapter hands it over inside.
    let pkt = tcp_out("192.0.2.2", "10.9.9.9", 1000, 2000, 100, 0);
    let r = e.handle_host_send(us(5), IfaceId(1), Frame::full(&pkt), SendMeta::default());
    assert_eq!(r, Ok(SendOutcome::DeliveredInternally { to: IfaceId(0) }));
}

#[test]
fn a_routeall_vmac_interface_registers_only_its_own_addresses() {
    let mut cfg = vipa_stacks();
    cfg.interfaces[0].vmac = Some(VmacConfig::default());
    let e = Engine::new(cfg.clone()).unwrap();
    assert_eq!(registration(&e, "192.0.2.1"), [(IfaceId(0), true)]);
    assert!(registration(&e, "10.9.9.9").is_empty());
    // ROUTELCL registers them: the VMAC takes only registered addresses.
    cfg.interfaces[0].vmac = Some(VmacConfig {
        mac: None,
        route: VmacRoute::Local,
    });
    let mut e = Engine::new(cfg).unwrap();
    let vmac = e.interface(IfaceId(0)).unwrap().mac;
    assert!(matches!(
        wire(&mut e, us(1), &tcp_in(vmac, "10.9.9.9", 1, 2, 10)),
        Disposition::Queued {
            iface: IfaceId(0),
            ..
        }
    ));
}

/// One stack with two interfaces on one port, on VLANs 10 and 20, and a
/// VIPA in VLAN 20's subnet: each interface registers it for its VLAN, and
/// the one whose subnet holds it answers ARP for it, whichever started
/// first.
#[test]
fn each_vlan_reaches_the_stacks_vipa_through_its_own_interface() {
    for order in [[0, 1], [1, 0]] {
        let mut a = iface("A", 0, "192.0.2.1");
        a.vlan = Some(10);
        let mut b = iface("B", 0, "198.51.100.1");
        b.vlan = Some(20);
        let ifs = [a, b];
        let mut stack = StackConfig::new("TCPCS1");
        stack.vipas = vec![ip("198.51.100.77")];
        let cfg = SystemConfig {
            ports: vec![osa_port(OsaGeneration::Express3)],
            stacks: vec![stack],
            interfaces: order.iter().map(|k| ifs[*k].clone()).collect(),
            tuning: Tuning::default(),
        };
        let mut e = Engine::new(cfg).unwrap();
        let id = |name: &str| {
            e.interfaces()
                .iter()
                .find(|i| i.cfg.name == name)
                .map(|i| i.id)
                .unwrap()
        };
        let (ia, ib) = (id("A"), id("B"));
        let mut r = registration(&e, "198.51.100.77");
        r.sort();
        let mut want = vec![(ia, false), (ib, true)];
        want.sort();
        assert_eq!(r, want, "{order:?}");
        // B's own address is A's too on VLAN 10 (no ARP: B answers it),
        // as a datagram for it on VLAN 10 finds A.
        let mut r = registration(&e, "198.51.100.1");
        r.sort();
        let mut want = vec![(ia, false), (ib, true)];
        want.sort();
        assert_eq!(r, want, "{order:?}");
        let vip = "198.51.100.77";
        let t = |n: u64| us(10 * n);
        assert!(
            matches!(wire(&mut e, t(1), &tcp_in_on(PORT_MAC, vip, Some(20))),
                Disposition::Queued { iface, .. } if iface == ib),
            "{order:?}"
        );
        assert!(
            matches!(wire(&mut e, t(2), &tcp_in_on(PORT_MAC, vip, Some(10))),
                Disposition::Queued { iface, .. } if iface == ia),
            "{order:?}"
        );
        assert_eq!(
            wire(&mut e, t(3), &arp_request_on(vip, Some(20))),
            Disposition::Handled,
            "{order:?}"
        );
        assert_eq!(
            wire(&mut e, t(4), &arp_request_on(vip, Some(10))),
            Disposition::Dropped(DropReason::ArpNotForUs),
            "{order:?}"
        );
    }
}

/// Two interfaces of one stack in one subnet on two ports. Each port
/// registers the other's address too, but answers ARP only for its own;
/// when B stops, its address stays the stack's, and A's port takes over
/// ARP for it and takes its datagrams (EZZ4329I). B back: its own again.
#[test]
fn a_stopped_interfaces_address_is_taken_over_in_its_subnet() {
    let a = iface("A", 0, "192.0.2.1");
    let mut b = iface("B", 0, "192.0.2.2");
    b.port = 1;
    let mut p1 = osa_port(OsaGeneration::Express3);
    p1.name = "QDIO4102".into();
    p1.chpid = 0x2A;
    p1.physical_mac = "643B88F30001".parse().unwrap();
    let cfg = SystemConfig {
        ports: vec![osa_port(OsaGeneration::Express3), p1],
        stacks: vec![StackConfig::new("TCPCS1")],
        interfaces: vec![a, b],
        tuning: Tuning::default(),
    };
    let mut e = Engine::new(cfg).unwrap();
    // A dynamic VIPA the driver registers on B is B's own while B is up.
    e.register_address(IfaceId(1), ip("192.0.2.50"));
    let mut r = registration(&e, "192.0.2.2");
    r.sort();
    assert_eq!(r, [(IfaceId(0), false), (IfaceId(1), true)]);
    let mut r = registration(&e, "192.0.2.50");
    r.sort();
    assert_eq!(r, [(IfaceId(0), false), (IfaceId(1), true)]);
    for target in ["192.0.2.2", "192.0.2.50"] {
        assert_eq!(
            wire(&mut e, us(1), &arp_request(target)),
            Disposition::Dropped(DropReason::ArpNotForUs),
            "{target}"
        );
    }
    e.deactivate_interface(IfaceId(1));
    assert_eq!(registration(&e, "192.0.2.2"), [(IfaceId(0), true)]);
    assert_eq!(
        wire(&mut e, us(2), &arp_request("192.0.2.2")),
        Disposition::Handled
    );
    let mut buf = Vec::new();
    assert!(e.poll_transmit(us(2), PortId(0), &mut buf).is_some());
    assert!(matches!(
        wire(&mut e, us(3), &tcp_in(PORT_MAC, "192.0.2.2", 1, 2, 10)),
        Disposition::Queued {
            iface: IfaceId(0),
            ..
        }
    ));
    let cfg_b = e.interface(IfaceId(1)).unwrap().cfg.clone();
    let b2 = e.activate_interface(us(4), cfg_b).unwrap();
    let mut r = registration(&e, "192.0.2.2");
    r.sort();
    assert_eq!(r, [(IfaceId(0), false), (b2, true)]);
}

/// A stack on another VLAN of the port sends to a sharing stack's address
/// over the LAN, not inside the adapter: the adapter delivers inside only
/// to a stack that registered it on the sender's VLAN.
#[test]
fn the_adapter_delivers_inside_only_on_the_senders_vlan() {
    let mut cfg = two_stacks(false, false);
    cfg.interfaces[0].vlan = Some(10);
    cfg.interfaces[1].vlan = Some(20);
    let mut e = Engine::new(cfg).unwrap();
    let pkt = tcp_out("192.0.2.2", "192.0.2.1", 1000, 2000, 100, 0);
    let r = e.handle_host_send(us(1), IfaceId(1), Frame::full(&pkt), SendMeta::default());
    // Out to the LAN: first the ARP for the next hop.
    assert_eq!(r, Ok(SendOutcome::AwaitingArp));
    let mut cfg = two_stacks(false, false);
    cfg.interfaces[0].vlan = Some(10);
    cfg.interfaces[1].vlan = Some(10);
    let mut e = Engine::new(cfg).unwrap();
    let r = e.handle_host_send(us(1), IfaceId(1), Frame::full(&pkt), SendMeta::default());
    assert_eq!(r, Ok(SendOutcome::DeliveredInternally { to: IfaceId(0) }));
}

/// An IPv6 interface registers its stack's IPv6 home addresses as an IPv4
/// one registers the IPv4 ones (INTERFACE IPAQENET6): a datagram for the
/// stack's IPv6 VIPA, to the shared port MAC, reaches it; an IPv4 VIPA is
/// no IPv6 interface's, and no ARP is answered for an IPv6 address.
#[test]
fn an_ipv6_interface_registers_the_stacks_ipv6_vipas() {
    let mut cfg = two_stacks(false, false);
    for (n, i) in cfg.interfaces.iter_mut().enumerate() {
        i.ip_version = IpVersion::V6;
        i.addresses = vec![IpNet {
            addr: ip(&format!("2001:db8::{}", n + 1)),
            prefix: 64,
        }];
    }
    cfg.stacks[0].vipas = vec![ip("2001:db8:9::9"), ip("10.9.9.9")];
    let mut e = Engine::new(cfg).unwrap();
    assert_eq!(registration(&e, "2001:db8:9::9"), [(IfaceId(0), false)]);
    assert!(registration(&e, "10.9.9.9").is_empty());
    let frame = |dst: &str| {
        let mut b = Vec::new();
        build::eth_tcp(
            &mut b,
            &EthSpec {
                dst: PORT_MAC,
                src: PEER_MAC,
                vlan: None,
            },
            &IpSpec::new(ip("2001:db8::99"), ip(dst)),
            &TcpSpec {
                src_port: 1,
                dst_port: 2,
                flags: 0x18,
                ..TcpSpec::default()
            },
            Payload::Bytes(&[0u8; 10]),
        );
        b
    };
    assert!(matches!(
        wire(&mut e, us(1), &frame("2001:db8:9::9")),
        Disposition::Queued {
            iface: IfaceId(0),
            ..
        }
    ));
    assert_eq!(
        wire(&mut e, us(2), &frame("2001:db8:9::10")),
        Disposition::Dropped(DropReason::NoRoute)
    );
}
