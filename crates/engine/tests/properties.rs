//! Property tests over random operation sequences (ARCHITECTURE.md habit 6):
//! the engine against a simple reference model of the LAN-idle timers, and
//! the accounting identity under any mix of frames, sends, held buffers and
//! time advances.

mod common;
use common::*;
use proptest::prelude::*;
use softosa_engine::config::*;
use softosa_engine::wire::build::{self, EthSpec, IpSpec, Payload, TcpSpec};
use softosa_engine::*;

/// The reference model: a batch starts with its first frame and is presented
/// at min(last arrival + gap, first arrival + block), as soon as that instant
/// is not after the next arrival.
fn reference(arrivals: &[u64], gap: u64, block: u64) -> Vec<(u64, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    let mut last = 0;
    let mut n = 0;
    for &t in arrivals {
        if let Some(s) = start {
            let due = (last + gap).min(s + block);
            if due <= t {
                out.push((due, n));
                start = None;
                n = 0;
            }
        }
        if start.is_none() {
            start = Some(t);
        }
        last = t;
        n += 1;
    }
    if let Some(s) = start {
        out.push(((last + gap).min(s + block), n));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn lan_idle_timers_match_the_reference_model(
        gaps in proptest::collection::vec(0u64..120, 1..150),
        gap in 1u64..60,
        extra in 0u64..300,
    ) {
        let block = gap + extra;
        let timers = TimerTable { balanced: TimerPair::us(gap, block), ..TimerTable::default() };
        let mut e = Engine::new(single(InbPerf::Balanced, false, timers)).unwrap();
        let mut t = 0;
        let mut arrivals = Vec::new();
        let mut got = Vec::new();
        for g in gaps {
            t += g;
            advance(&mut e, us(t));
            got.extend(drain(&mut e, us(t)).into_iter().map(|p| (p.at.as_nanos() / 1000, p.frames as usize)));
            wire(&mut e, us(t), &tcp_in(PORT_MAC, "192.0.2.1", 1, 2, 10));
            arrivals.push(t);
        }
        advance(&mut e, us(t + block + gap + 1));
        got.extend(drain(&mut e, us(t)).into_iter().map(|p| (p.at.as_nanos() / 1000, p.frames as usize)));
        prop_assert_eq!(got, reference(&arrivals, gap, block));
    }
}

#[derive(Clone, Debug)]
enum Op {
    Advance(u64),
    Close {
        port: u16,
        rst: bool,
    },
    Tcp {
        to_vmac: bool,
        stack_b: bool,
        port: u16,
        len: u32,
    },
    Garbage(Vec<u8>),
    UnknownMac,
    ArpFor(u8),
    Broadcast,
    Send {
        to: u8,
        len: u32,
        tos: u8,
    },
    CompleteAll,
    HoldNext,
    Toggle,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1u64..400).prop_map(Op::Advance),
        8 => (any::<bool>(), any::<bool>(), 1u16..6, 0u32..9000)
            .prop_map(|(to_vmac, stack_b, port, len)| Op::Tcp { to_vmac, stack_b, port, len }),
        1 => (1u16..6, any::<bool>()).prop_map(|(port, rst)| Op::Close { port, rst }),
        1 => proptest::collection::vec(any::<u8>(), 0..80).prop_map(Op::Garbage),
        1 => Just(Op::UnknownMac),
        1 => (0u8..4).prop_map(Op::ArpFor),
        1 => Just(Op::Broadcast),
        2 => (0u8..4, 0u32..70_000, any::<u8>()).prop_map(|(to, len, tos)| Op::Send { to, len, tos }),
        2 => Just(Op::CompleteAll),
        2 => Just(Op::HoldNext),
        1 => Just(Op::Toggle),
    ]
}

fn config() -> SystemConfig {
    let mut a = iface("A", 0, "192.0.2.1");
    a.inbperf = InbPerf::Dynamic;
    a.workloadq = true;
    a.vmac = Some(VmacConfig::default());
    a.read_storage_sbals = 8;
    let mut b = iface("B", 1, "192.0.2.2");
    b.router = RouterRole::Primary;
    b.read_storage_sbals = 8;
    let mut s0 = StackConfig::new("S0");
    s0.segmentation_offload = true;
    SystemConfig {
        ports: vec![osa_port(OsaGeneration::Express6S)],
        stacks: vec![s0, StackConfig::new("S1")],
        interfaces: vec![a, b],
        tuning: Tuning {
            write_queue_frames: 64,
            // Register after a short run, so random sequences register,
            // refuse (capacity 2) and deregister connections often.
            bulk: BulkConfig {
                run_bytes: 20_000,
                ..BulkConfig::default()
            },
            bulk_table_capacity: 2,
            ..Tuning::default()
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_frame_is_accounted_for(ops in proptest::collection::vec(op(), 1..300)) {
        let mut e = Engine::new(config()).unwrap();
        let vmac = e.interface(IfaceId(0)).unwrap().mac;
        e.add_neighbor(PortId(0), ip("192.0.2.9"), PEER_MAC);
        let mut t = 0u64;
        let mut held = Vec::new();
        let mut hold_next = false;
        let mut buf = Vec::new();
        let mut active_b = true;
        for op in ops {
            match op {
                Op::Advance(d) => { t += d; advance(&mut e, us(t)); }
                Op::Tcp { to_vmac, stack_b, port, len } => {
                    let (mac, dst) = match (to_vmac, stack_b) {
                        (true, _) => (vmac, "192.0.2.1"),
                        (false, true) => (PORT_MAC, "192.0.2.2"),
                        (false, false) => (PORT_MAC, "203.0.113.1"),
                    };
                    let mut f = Vec::new();
                    let wire_len = build::eth_tcp(&mut f, &EthSpec { dst: mac, src: PEER_MAC, vlan: None },
                        &IpSpec::new(ip("192.0.2.9"), ip(dst)),
                        &TcpSpec { src_port: 4000 + port, dst_port: 20, flags: 0x10, ..TcpSpec::default() },
                        Payload::Len(len));
                    e.handle_wire_frame(us(t), PortId(0), Frame { data: &f, wire_len });
                }
                Op::Close { port, rst } => {
                    let flags = if rst { 0x04 } else { 0x11 };
                    wire(&mut e, us(t), &tcp_in_flags(vmac, "192.0.2.1", 4000 + port, 20, 0, flags));
                }
                Op::Garbage(g) => { wire(&mut e, us(t), &g); }
                Op::UnknownMac => { wire(&mut e, us(t), &tcp_in(Mac([2, 1, 1, 1, 1, 1]), "192.0.2.1", 1, 2, 5)); }
                Op::ArpFor(n) => {
                    let mut f = Vec::new();
                    build::eth_arp(&mut f, &EthSpec { dst: Mac::BROADCAST, src: PEER_MAC, vlan: None }, 1,
                        PEER_MAC, "192.0.2.9".parse().unwrap(), Mac::ZERO,
                        std::net::Ipv4Addr::new(192, 0, 2, n));
                    wire(&mut e, us(t), &f);
                }
                Op::Broadcast => {
                    let mut f = Vec::new();
                    build::eth_udp(&mut f, &EthSpec { dst: Mac::BROADCAST, src: PEER_MAC, vlan: None },
                        &IpSpec::new(ip("192.0.2.9"), ip("192.0.2.255")), 67, 68, Payload::Len(300));
                    wire(&mut e, us(t), &f);
                }
                Op::Send { to, len, tos } => {
                    let dst = ["192.0.2.9", "192.0.2.2", "192.0.2.77", "198.51.100.1"][usize::from(to)];
                    let p = tcp_out("192.0.2.1", dst, 20, 5000, len.min(65_000), tos);
                    let _ = e.handle_host_send(us(t), IfaceId(0), Frame::full(&p), SendMeta { end_of_write: true, ..SendMeta::default() });
                }
                Op::CompleteAll => {
                    for b in held.drain(..) { e.complete_batch(us(t), b); }
                }
                Op::HoldNext => hold_next = true,
                Op::Toggle => {
                    if active_b {
                        e.deactivate_interface(IfaceId(1));
                    }
                    active_b = false;
                }
            }
            while let Some(p) = e.poll_presentation() {
                // Frames of a batch are in arrival order.
                let arrivals: Vec<_> = e.batch_frames(p.batch).map(|f| f.arrival).collect();
                prop_assert_eq!(arrivals.len(), p.frames as usize);
                prop_assert!(arrivals.windows(2).all(|w| w[0] <= w[1]));
                prop_assert!(arrivals.iter().all(|a| *a <= p.at));
                if hold_next { held.push(p.batch); hold_next = false; } else { e.complete_batch(us(t), p.batch); }
            }
            while e.poll_transmit(us(t), PortId(0), &mut buf).is_some() {}
            // Timers are data: after handling `now`, nothing is due at `now`.
            e.handle_timeout(us(t));
            while let Some(p) = e.poll_presentation() { e.complete_batch(us(t), p.batch); }
            prop_assert!(e.poll_timeout().is_none_or(|d| d > us(t)), "stale deadline");
            let acc = e.accounting();
            prop_assert!(acc.balanced(), "{:?}", acc);
            // The adapter's BULKDATA table holds only connections the stack
            // currently sees streaming (registration follows detection).
            let streaming: Vec<_> = e
                .streaming_connections(StackId(0))
                .iter()
                .map(|c| c.inbound_flow())
                .collect();
            for f in e.interface(IfaceId(0)).unwrap().bulk_connections() {
                prop_assert!(streaming.contains(&f), "{f} registered but not streaming");
            }
            for i in e.interfaces() {
                for rq in i.read_queues() {
                    prop_assert!(rq.q.free <= rq.q.capacity);
                }
                for w in &i.writes {
                    prop_assert!(w.depth() <= 64 * 64);
                }
            }
        }
        advance(&mut e, us(t + 10_000_000));
        let acc = e.accounting();
        prop_assert!(acc.balanced(), "{:?}", acc);
        prop_assert_eq!(acc.held, 0);
    }
}

#[test]
fn reference_model_examples() {
    // The spec's streaming burst: 7 frames 2 µs apart, gap 20.
    assert_eq!(reference(&[0, 2, 4, 6, 8, 10, 12], 20, 250), vec![(32, 7)]);
    assert_eq!(reference(&[0], 20, 40), vec![(20, 1)]);
    assert_eq!(
        reference(&[0, 10, 20, 30, 40, 50], 20, 40),
        vec![(40, 4), (70, 2)]
    );
}
