//! Inbound scenario tests with scripted time (spec 02): the LAN-idle timer
//! examples, INBPERF modes, DYNAMIC, IWQ, OLM, NOREADS.

mod common;
use common::*;
use core::time::Duration;
use softosa_engine::config::*;
use softosa_engine::*;

/// Spec 02 §2.1, streaming burst: 7 frames 2 µs apart, then a 40 µs pause,
/// gap timer 20 µs: one interrupt with all 7 frames, 20 µs into the pause.
#[test]
fn streaming_burst_is_one_interrupt_twenty_us_into_the_pause() {
    let timers = TimerTable {
        balanced: TimerPair::us(20, 250),
        ..TimerTable::default()
    };
    let mut e = Engine::new(single(InbPerf::Balanced, false, timers)).unwrap();
    for k in 0..7 {
        let t = us(2 * k);
        advance(&mut e, t);
        wire(&mut e, t, &tcp_in(PORT_MAC, "192.0.2.1", 1068, 2141, 1400));
        assert!(
            e.poll_presentation().is_none(),
            "presented inside the burst"
        );
    }
    // Last frame at 12 µs; the pause runs to 52 µs.
    assert_eq!(e.poll_timeout(), Some(us(32)));
    advance(&mut e, us(52));
    let p = drain(&mut e, us(52));
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].frames, 7);
    assert_eq!(p[0].at, us(32));
    assert_eq!(p[0].cause, PresentCause::GapTimer);
    assert!(p[0].interrupt);
    let c = e.read_counters(IfaceId(0), QueueKind::Primary).unwrap();
    assert_eq!(c.pcireal, 1);
    assert_eq!(c.packcnt, 7);
}

/// Spec 02 §2.1, single request/response: presented when the gap timer
/// expires, 20 µs later; with 20 µs of server CPU the server-side response
/// time is 40 µs.
#[test]
fn single_request_waits_for_the_gap_timer() {
    let timers = TimerTable {
        balanced: TimerPair::us(20, 250),
        ..TimerTable::default()
    };
    let mut e = Engine::new(single(InbPerf::Balanced, false, timers)).unwrap();
    let arrival = us(1000);
    wire(
        &mut e,
        arrival,
        &tcp_in(PORT_MAC, "192.0.2.1", 1068, 2141, 100),
    );
    advance(&mut e, us(1100));
    let p = drain(&mut e, us(1100));
    assert_eq!(p.len(), 1);
    let server_cpu = Duration::from_micros(20);
    let response = (p[0].at + server_cpu) - arrival;
    assert_eq!(p[0].at - arrival, Duration::from_micros(20));
    assert_eq!(response, Duration::from_micros(40));
}

#[test]
fn block_timer_bounds_the_wait_under_a_continuous_stream() {
    let mut e = Engine::new(single(InbPerf::Balanced, false, TimerTable::default())).unwrap();
    // A frame every 10 µs never lets the 40 µs gap expire; block is 250 µs.
    let mut presented = Vec::new();
    for k in 0..100 {
        let t = us(10 * k);
        advance(&mut e, t);
        presented.extend(drain(&mut e, t));
        wire(&mut e, t, &tcp_in(PORT_MAC, "192.0.2.1", 1068, 2141, 100));
    }
    assert!(presented.len() >= 3);
    for p in &presented {
        assert_eq!(p.cause, PresentCause::BlockTimer);
        assert_eq!(p.frames, 25);
    }
}

#[test]
fn inbperf_modes_trade_interrupts_for_latency() {
    let mut results = Vec::new();
    for mode in [InbPerf::MinLatency, InbPerf::Balanced, InbPerf::MinCpu] {
        let mut e = Engine::new(single(mode, false, TimerTable::default())).unwrap();
        // Frames 30 µs apart in bursts of 10, bursts 2 ms apart.
        for b in 0..20u64 {
            for k in 0..10u64 {
                let t = us(b * 2000 + k * 30);
                advance(&mut e, t);
                drain(&mut e, t);
                wire(&mut e, t, &tcp_in(PORT_MAC, "192.0.2.1", 1068, 2141, 100));
            }
        }
        advance(&mut e, us(50_000));
        drain(&mut e, us(50_000));
        let c = e
            .read_counters(IfaceId(0), QueueKind::Primary)
            .unwrap()
            .clone();
        assert_eq!(c.packcnt, 200);
        results.push((c.pcireal, c.hold_ns_total / c.packcnt));
    }
    let (lat, bal, cpu) = (results[0], results[1], results[2]);
    assert!(lat.0 > bal.0 && bal.0 > cpu.0, "interrupts {results:?}");
    assert!(lat.1 < bal.1 && bal.1 < cpu.1, "hold delay {results:?}");
}

#[test]
fn host_holding_buffers_causes_noreads() {
    let mut cfg = single(InbPerf::MinLatency, false, TimerTable::default());
    cfg.interfaces[0].read_storage_sbals = 8;
    let mut e = Engine::new(cfg).unwrap();
    let mut held = Vec::new();
    let mut t = 0;
    // 8 SBALs of 64 KB; 9000-byte frames, 7 per SBAL; never return buffers.
    for _ in 0..100 {
        t += 50;
        advance(&mut e, us(t));
        while let Some(p) = e.poll_presentation() {
            held.push(p.batch);
        }
        wire(
            &mut e,
            us(t),
            &tcp_in(PORT_MAC, "192.0.2.1", 1068, 2141, 8900),
        );
    }
    let c = e
        .read_counters(IfaceId(0), QueueKind::Primary)
        .unwrap()
        .clone();
    assert!(c.noreads > 0);
    assert_eq!(
        e.counters()
            .dropped_in
            .get(counters::DropReason::NoReadBuffer),
        c.noreads
    );
    // The stack's interface statistics (Netstat DEVLINKS) count what it was
    // given; the frames the adapter dropped are discarded, and nothing else.
    let i = &e.interface(IfaceId(0)).unwrap().counters;
    assert_eq!(i.packets_in, c.packcnt);
    assert_eq!(i.unicast_in, c.packcnt);
    assert_eq!(i.bytes_in, c.bytecnt);
    assert_eq!(i.packets_in_discarded, c.noreads);
    assert_eq!(c.packcnt + c.noreads, 100);
    // Returning the buffers lets frames in again.
    for b in held {
        e.complete_batch(us(t), b);
    }
    let before = c.noreads;
    t += 50;
    wire(
        &mut e,
        us(t),
        &tcp_in(PORT_MAC, "192.0.2.1", 1068, 2141, 8900),
    );
    assert_eq!(
        e.read_counters(IfaceId(0), QueueKind::Primary)
            .unwrap()
            .noreads,
        before
    );
    assert!(e.accounting().balanced());
}

/// A frame that finds every SBAL full makes the adapter present what it
/// holds: with read storage below the buffer threshold, a host that returns
/// buffers at once loses that one frame, not everything until a timer.
#[test]
fn a_full_queue_presents_at_the_first_refused_frame() {
    let mut cfg = single(InbPerf::MinCpu, false, TimerTable::default());
    cfg.interfaces[0].read_storage_sbals = 8;
    let mut e = Engine::new(cfg).unwrap();
    // 9000-byte frames, 7 per 64 KB SBAL: 56 fill the 8 SBALs.
    for k in 0..100 {
        let t = us(k);
        advance(&mut e, t);
        drain(&mut e, t);
        wire(&mut e, t, &tcp_in(PORT_MAC, "192.0.2.1", 1068, 2141, 8900));
        drain(&mut e, t);
    }
    let c = e.read_counters(IfaceId(0), QueueKind::Primary).unwrap();
    assert_eq!((c.noreads, c.pcithrsh), (1, 1), "{c:?}");
    assert!(e.accounting().balanced());
}

/// Netstat DEVLINKS counts a frame once the stack is given it, and a
/// layer-3 interface counts the IP packet, not the Ethernet padding of a
/// short one.
#[test]
fn interface_statistics_count_presented_ip_packets() {
    let mut e = Engine::new(single(InbPerf::Balanced, false, TimerTable::default())).unwrap();
    // A bare ACK: 54 bytes of Ethernet, IP and TCP, padded to 60 on the wire.
    let mut ack = tcp_in_flags(PORT_MAC, "192.0.2.1", 1068, 2141, 0, 0x10);
    assert_eq!(ack.len(), 54);
    ack.resize(60, 0);
    wire(&mut e, us(0), &ack);
    let i = &e.interface(IfaceId(0)).unwrap().counters;
    assert_eq!((i.packets_in, i.bytes_in), (0, 0), "counted while held");
    advance(&mut e, us(1000));
    assert_eq!(drain(&mut e, us(1000)).len(), 1);
    let i = &e.interface(IfaceId(0)).unwrap().counters;
    assert_eq!((i.packets_in, i.unicast_in, i.bytes_in), (1, 1, 40));
    let c = e.read_counters(IfaceId(0), QueueKind::Primary).unwrap();
    assert_eq!((c.packcnt, c.bytecnt), (1, 40));
}

/// Drive `conns` RR connections (100/800) and optionally one inbound stream
/// for `ms` milliseconds; return the engine.
fn mixed(mode: InbPerf, workloadq: bool, stream: bool, rr: bool, ms: u64) -> Engine {
    let mut e = Engine::new(single(mode, workloadq, TimerTable::default())).unwrap();
    let mac = e.interface(IfaceId(0)).unwrap().mac;
    let mut t = 0u64;
    let mut n = 0u64;
    while t < ms * 1000 {
        advance(&mut e, us(t));
        drain(&mut e, us(t));
        if stream {
            wire(&mut e, us(t), &tcp_in(mac, "192.0.2.1", 5000, 20, 1448));
        }
        if rr && n % 4 == 0 {
            let c = 6000 + (n / 4 % 30) as u16;
            wire(&mut e, us(t), &tcp_in(mac, "192.0.2.1", c, 2141, 100));
            let resp = tcp_out("192.0.2.1", "192.0.2.9", 2141, c, 800, 0);
            let _ = e.handle_host_send(us(t), IfaceId(0), Frame::full(&resp), SendMeta::default());
        }
        t += 5;
        n += 1;
    }
    e
}

#[test]
fn dynamic_goes_low_for_interactive_and_stays_high_for_a_mix() {
    let rr = mixed(InbPerf::Dynamic, false, false, true, 200);
    let floor = TimerTable::default().dynamic_floor.gap;
    assert_eq!(
        rr.timers(IfaceId(0), QueueKind::Primary).unwrap().gap,
        floor
    );
    let st = mixed(InbPerf::Dynamic, false, true, false, 200);
    assert_eq!(
        st.timers(IfaceId(0), QueueKind::Primary).unwrap(),
        TimerTable::default().balanced
    );
    let mix = mixed(InbPerf::Dynamic, false, true, true, 200);
    let t = mix.timers(IfaceId(0), QueueKind::Primary).unwrap();
    let balanced = TimerTable::default().balanced;
    // A mix on one queue leans toward saving CPU: one rung below BALANCED,
    // far above what the interactive flows alone get (the 1 µs floor).
    let floor = TimerTable::default().dynamic_floor;
    assert!(t.gap < balanced.gap && t.gap >= floor.gap * 10, "{t:?}");
    assert!(
        t.block < balanced.block && t.block >= floor.block * 10,
        "{t:?}"
    );
}

#[test]
fn iwq_separates_the_stream_and_each_queue_tunes_itself() {
    let e = mixed(InbPerf::Dynamic, true, true, true, 300);
    let bulk = e.read_counters(IfaceId(0), QueueKind::BulkData).unwrap();
    let prim = e.read_counters(IfaceId(0), QueueKind::Primary).unwrap();
    assert!(
        bulk.packcnt > 10_000,
        "stream on BULKDATA: {}",
        bulk.packcnt
    );
    // The RR connections never reach BULKDATA: the bulk queue got only the
    // stream (its first ~182 segments went to PRIMARY before detection).
    let iface = e.interface(IfaceId(0)).unwrap();
    let reg = iface.bulk_connections();
    assert_eq!(reg.len(), 1);
    assert_eq!(reg[0].src_port, 5000);
    assert!(prim.packcnt >= 6000);
    assert_eq!(
        e.timers(IfaceId(0), QueueKind::Primary).unwrap().gap,
        TimerTable::default().dynamic_floor.gap
    );
    assert_eq!(
        e.timers(IfaceId(0), QueueKind::BulkData).unwrap(),
        TimerTable::default().balanced
    );
    // Netstat STATS counts the TCP segments the stack was given on
    // BULKDATA: here every frame that queue presented.
    assert_eq!(iface.counters.segments_on_bulk_queue, bulk.packcnt);
}

#[test]
fn bulk_presentations_are_serialized_and_carry_the_ack_rule() {
    let mut e = Engine::new(single(InbPerf::Dynamic, true, TimerTable::default())).unwrap();
    let mac = e.interface(IfaceId(0)).unwrap().mac;
    let mut t = 0;
    for _ in 0..400 {
        t += 5;
        advance(&mut e, us(t));
        drain(&mut e, us(t));
        wire(&mut e, us(t), &tcp_in(mac, "192.0.2.1", 5000, 20, 1448));
    }
    advance(&mut e, us(t + 1000));
    let ps = drain(&mut e, us(t + 1000));
    let bulk: Vec<_> = ps
        .iter()
        .filter(|p| p.queue == QueueKind::BulkData)
        .collect();
    assert!(!bulk.is_empty());
    assert!(bulk.iter().all(|p| p.serialized && p.ack_each_out_of_order));
    // While a unit of work services BULKDATA, a new batch raises no interrupt.
    e.begin_service(us(t + 2000), IfaceId(0), QueueKind::BulkData);
    wire(
        &mut e,
        us(t + 2000),
        &tcp_in(mac, "192.0.2.1", 5000, 20, 1448),
    );
    advance(&mut e, us(t + 4000));
    let p = e.poll_presentation().unwrap();
    assert_eq!(p.queue, QueueKind::BulkData);
    assert!(!p.interrupt);
    assert_eq!(
        e.read_counters(IfaceId(0), QueueKind::BulkData)
            .unwrap()
            .pcivirt,
        1
    );
}

#[test]
fn registration_table_capacity_refusals_are_counted() {
    let mut cfg = single(InbPerf::Dynamic, true, TimerTable::default());
    cfg.tuning.bulk_table_capacity = 2;
    let mut e = Engine::new(cfg).unwrap();
    let mac = e.interface(IfaceId(0)).unwrap().mac;
    let mut t = 0;
    for _ in 0..200 {
        for port in [5000, 5001, 5002] {
            t += 2;
            wire(&mut e, us(t), &tcp_in(mac, "192.0.2.1", port, 20, 1448));
        }
        advance(&mut e, us(t));
        drain(&mut e, us(t));
    }
    assert_eq!(e.interface(IfaceId(0)).unwrap().bulk_connections().len(), 2);
    assert_eq!(e.stacks()[0].counters.registrations_refused, 1);
    let mut refused = 0;
    while let Some(ev) = e.poll_event() {
        if matches!(ev, Event::RegistrationRefused { .. }) {
            refused += 1;
        }
    }
    assert_eq!(refused, 1);
}

#[test]
fn idle_and_closed_connections_are_deregistered() {
    let mut e = Engine::new(single(InbPerf::Dynamic, true, TimerTable::default())).unwrap();
    let mac = e.interface(IfaceId(0)).unwrap().mac;
    let mut t = 0;
    for _ in 0..300 {
        t += 5;
        for port in [5000, 5001] {
            wire(&mut e, us(t), &tcp_in(mac, "192.0.2.1", port, 20, 1448));
        }
        advance(&mut e, us(t));
        drain(&mut e, us(t));
    }
    assert_eq!(e.interface(IfaceId(0)).unwrap().bulk_connections().len(), 2);
    wire(
        &mut e,
        us(t),
        &tcp_in_flags(mac, "192.0.2.1", 5000, 20, 0, 0x11),
    );
    assert_eq!(e.interface(IfaceId(0)).unwrap().bulk_connections().len(), 1);
    advance(&mut e, us(t + 5_000_000));
    assert!(e
        .interface(IfaceId(0))
        .unwrap()
        .bulk_connections()
        .is_empty());
    assert_eq!(e.stacks()[0].counters.bulk_deregistrations, 2);
}

#[test]
fn outbound_stream_acks_land_on_bulkdata() {
    let mut e = Engine::new(single(InbPerf::Dynamic, true, TimerTable::default())).unwrap();
    let mac = e.interface(IfaceId(0)).unwrap().mac;
    e.add_neighbor(PortId(0), ip("192.0.2.9"), PEER_MAC);
    let mut t = 0;
    for _ in 0..100 {
        t += 10;
        let seg = tcp_out("192.0.2.1", "192.0.2.9", 20, 5000, 8000, 0);
        e.handle_host_send(us(t), IfaceId(0), Frame::full(&seg), SendMeta::default())
            .unwrap();
        let mut buf = Vec::new();
        while e.poll_transmit(us(t), PortId(0), &mut buf).is_some() {}
        wire(&mut e, us(t), &tcp_in(mac, "192.0.2.1", 5000, 20, 0));
        advance(&mut e, us(t));
        drain(&mut e, us(t));
    }
    advance(&mut e, us(t + 1000));
    drain(&mut e, us(t + 1000));
    assert_eq!(e.interface(IfaceId(0)).unwrap().bulk_connections().len(), 1);
    assert!(
        e.read_counters(IfaceId(0), QueueKind::BulkData)
            .unwrap()
            .packcnt
            > 50
    );
}

#[test]
fn queue_precedence_ipsec_sysdist_bulk_ee_primary() {
    let mut cfg = single(InbPerf::Dynamic, true, TimerTable::default());
    cfg.stacks[0].ipsecurity = true;
    cfg.stacks[0].distributed_dvipas = vec![ip("192.0.2.100")];
    cfg.stacks[0].ee = Some(EeConfig {
        addr: ip("192.0.2.1"),
        first_port: 12000,
        last_port: 12004,
    });
    cfg.interfaces[0].addresses.push(IpNet {
        addr: ip("192.0.2.100"),
        prefix: 32,
    });
    let mut e = Engine::new(cfg).unwrap();
    let mac = e.interface(IfaceId(0)).unwrap().mac;
    use softosa_engine::wire::build::*;
    let eth = EthSpec {
        dst: mac,
        src: PEER_MAC,
        vlan: None,
    };
    let b = esp_frame(mac, "192.0.2.100", 60);
    assert_eq!(
        wire(&mut e, us(1), &b),
        Disposition::Queued {
            iface: IfaceId(0),
            queue: QueueKind::Ipsec
        }
    );
    let sd = tcp_in(mac, "192.0.2.100", 7000, 21, 10);
    assert!(matches!(
        wire(&mut e, us(2), &sd),
        Disposition::Queued {
            queue: QueueKind::SysDist,
            ..
        }
    ));
    let mut u = Vec::new();
    eth_udp(
        &mut u,
        &eth,
        &IpSpec::new(ip("192.0.2.9"), ip("192.0.2.1")),
        12000,
        12002,
        Payload::Len(100),
    );
    assert!(matches!(
        wire(&mut e, us(3), &u),
        Disposition::Queued {
            queue: QueueKind::Ee,
            ..
        }
    ));
    let mut u2 = Vec::new();
    eth_udp(
        &mut u2,
        &eth,
        &IpSpec::new(ip("192.0.2.9"), ip("192.0.2.1")),
        12000,
        13000,
        Payload::Len(100),
    );
    assert!(matches!(
        wire(&mut e, us(4), &u2),
        Disposition::Queued {
            queue: QueueKind::Primary,
            ..
        }
    ));
    // A later fragment cannot be sorted: PRIMARY.
    let mut frag = tcp_in(mac, "192.0.2.1", 5000, 20, 100);
    frag[14 + 7] = 0x10;
    assert!(matches!(
        wire(&mut e, us(5), &frag),
        Disposition::Queued {
            queue: QueueKind::Primary,
            ..
        }
    ));
}

#[test]
fn ipsec_queue_needs_osa_express6s() {
    let mut cfg = single(InbPerf::Dynamic, true, TimerTable::default());
    cfg.stacks[0].ipsecurity = true;
    cfg.ports[0] = osa_port(OsaGeneration::Express5S);
    let e = Engine::new(cfg).unwrap();
    assert!(e
        .interface(IfaceId(0))
        .unwrap()
        .queue(QueueKind::Ipsec)
        .is_none());
}

/// An ESP packet (IP protocol 50) of `ip_len` bytes from 192.0.2.9 to
/// `dst`, in an Ethernet frame to `mac`.
fn esp_frame(mac: Mac, dst: &str, ip_len: usize) -> Vec<u8> {
    use softosa_engine::wire::build::*;
    let eth = EthSpec {
        dst: mac,
        src: PEER_MAC,
        vlan: None,
    };
    let mut b = Vec::new();
    let ips = IpSpec::new(ip("192.0.2.9"), ip(dst));
    eth_ip_raw(&mut b, &eth, &ips, 50, &vec![0; ip_len - 20]);
    b
}

/// An IPsec (ESP) flow of `ip_len`-byte packets every 5 µs for 200 ms into
/// a stack with IPSECURITY; the engine.
fn esp_flow(workloadq: bool, ip_len: usize) -> Engine {
    let mut cfg = single(InbPerf::Dynamic, workloadq, TimerTable::default());
    cfg.stacks[0].ipsecurity = true;
    let mut e = Engine::new(cfg).unwrap();
    let mac = e.interface(IfaceId(0)).unwrap().mac;
    let b = esp_frame(mac, "192.0.2.1", ip_len);
    for n in 0..40_000u64 {
        let t = us(n * 5);
        advance(&mut e, t);
        drain(&mut e, t);
        wire(&mut e, t, &b);
    }
    e
}

#[test]
fn the_dynamic_tuner_takes_full_sized_esp_packets_as_a_stream() {
    // The adapter cannot see the connection inside ESP; the stack can, and
    // the engine stands in for it by the packets' size.
    let balanced = TimerTable::default().balanced;
    let floor = TimerTable::default().dynamic_floor;
    let stream = esp_flow(true, 1500);
    assert!(
        stream
            .read_counters(IfaceId(0), QueueKind::Ipsec)
            .unwrap()
            .packcnt
            > 30_000
    );
    assert_eq!(
        stream.timers(IfaceId(0), QueueKind::Ipsec).unwrap(),
        balanced
    );
    let small = esp_flow(true, 200);
    assert_eq!(
        small.timers(IfaceId(0), QueueKind::Ipsec).unwrap().gap,
        floor.gap
    );
    // Without IWQ the same stream is on PRIMARY, whose tuner then saves CPU.
    let one_queue = esp_flow(false, 1500);
    assert_eq!(
        one_queue.timers(IfaceId(0), QueueKind::Primary).unwrap(),
        balanced
    );
}

#[test]
fn workloadq_rules_are_enforced_at_activation() {
    for (mode, vmac, by) in [
        (InbPerf::Balanced, true, DefinedBy::Interface),
        (InbPerf::Dynamic, false, DefinedBy::Interface),
        (InbPerf::Dynamic, true, DefinedBy::Link),
    ] {
        let mut cfg = single(InbPerf::Dynamic, false, TimerTable::default());
        let i = &mut cfg.interfaces[0];
        i.inbperf = mode;
        i.workloadq = true;
        i.defined_by = by;
        i.vmac = vmac.then(VmacConfig::default);
        assert!(matches!(
            Engine::new(cfg),
            Err(ConfigError::Activate(ActivateError::WorkloadqRules(_)))
        ));
    }
}

#[test]
fn olm_presents_early_and_polls_after_service() {
    let mut cfg = single(InbPerf::Dynamic, false, TimerTable::default());
    cfg.interfaces[0].olm = true;
    let mut e = Engine::new(cfg).unwrap();
    wire(
        &mut e,
        us(10),
        &tcp_in(PORT_MAC, "192.0.2.1", 6000, 2141, 100),
    );
    let p = e.poll_presentation().unwrap();
    assert_eq!(p.cause, PresentCause::Early);
    assert!(p.interrupt);
    assert_eq!(p.at, us(10));
    e.begin_service(us(10), p.iface, p.queue);
    e.complete_batch(us(12), p.batch);
    let until = e.end_service(us(12), p.iface, p.queue);
    assert_eq!(
        until,
        Some(us(12) + e.tuning().olm.poll_window),
        "the host is told how long it keeps looking"
    );
    // Within the poll window: presented at once, no interrupt.
    wire(
        &mut e,
        us(20),
        &tcp_in(PORT_MAC, "192.0.2.1", 6000, 2141, 100),
    );
    let p = e.poll_presentation().unwrap();
    assert!(!p.interrupt);
    assert_eq!(p.cause, PresentCause::Immediate);
    let c = e.read_counters(IfaceId(0), QueueKind::Primary).unwrap();
    assert_eq!((c.earlyint, c.pcireal, c.pcivirt), (1, 1, 1));
}

#[test]
fn end_service_without_olm_asks_for_no_polling() {
    let cfg = single(InbPerf::Dynamic, false, TimerTable::default());
    let mut e = Engine::new(cfg).unwrap();
    e.begin_service(us(1), IfaceId(0), QueueKind::Primary);
    assert_eq!(e.end_service(us(2), IfaceId(0), QueueKind::Primary), None);
}

#[test]
fn olm_is_never_applied_to_bulkdata() {
    let mut cfg = single(InbPerf::Dynamic, true, TimerTable::default());
    cfg.interfaces[0].olm = true;
    let e = Engine::new(cfg).unwrap();
    let i = e.interface(IfaceId(0)).unwrap();
    assert!(i.queue(QueueKind::Primary).unwrap().olm);
    assert!(!i.queue(QueueKind::BulkData).unwrap().olm);
}

#[test]
fn olm_sharing_limit_refuses_the_fifth_interface_on_a_port() {
    let mut cfg = single(InbPerf::Dynamic, false, TimerTable::default());
    cfg.interfaces[0].olm = true;
    for n in 1..=3 {
        cfg.stacks.push(StackConfig::new(format!("TCPCS{}", n + 1)));
        let mut i = iface(&format!("OSA{n}"), n, &format!("192.0.2.{}", n + 10));
        i.vmac = Some(VmacConfig::default());
        cfg.interfaces.push(i);
    }
    let mut e = Engine::new(cfg).unwrap();
    let mut fifth = iface("OSA5", 0, "192.0.2.50");
    fifth.vmac = Some(VmacConfig::default());
    let r = e.activate_interface(us(1), fifth.clone());
    assert!(
        matches!(
            r,
            Err(ActivateError::OlmSharingLimit {
                limit: 4,
                what: "port",
                ..
            })
        ),
        "{r:?}"
    );
    // Without OLM anywhere, a fifth is fine.
    let mut cfg = single(InbPerf::Dynamic, false, TimerTable::default());
    for n in 1..=4 {
        cfg.stacks.push(StackConfig::new(format!("S{n}")));
        let mut i = iface(&format!("OSA{n}"), n, &format!("192.0.2.{}", n + 10));
        i.vmac = Some(VmacConfig::default());
        cfg.interfaces.push(i);
    }
    assert!(Engine::new(cfg).is_ok());
}

/// Eight active interfaces on the two ports of one CHPID, the first
/// using OLM (four on port 0, four on port 1), and a ninth for port 1.
fn eight_on_one_chpid() -> (Engine, InterfaceConfig) {
    let mut cfg = single(InbPerf::Dynamic, false, TimerTable::default());
    cfg.interfaces[0].olm = true;
    // A second port on the same CHPID.
    let mut p2 = osa_port(OsaGeneration::Express6S);
    p2.port_num = 1;
    p2.name = "QDIO4102".into();
    cfg.ports.push(p2);
    for n in 1..8 {
        cfg.stacks.push(StackConfig::new(format!("S{n}")));
        let mut i = iface(&format!("I{n}"), n, &format!("192.0.2.{}", n + 10));
        i.port = if n < 4 { 0 } else { 1 };
        i.vmac = Some(VmacConfig::default());
        cfg.interfaces.push(i);
    }
    let e = Engine::new(cfg).unwrap();
    let mut ninth = iface("I9", 0, "192.0.2.60");
    ninth.port = 1;
    ninth.vmac = Some(VmacConfig::default());
    (e, ninth)
}

#[test]
fn olm_sharing_limit_is_eight_per_chpid() {
    let (mut e, ninth) = eight_on_one_chpid();
    let r = e.activate_interface(us(1), ninth);
    assert!(
        matches!(
            r,
            Err(ActivateError::OlmSharingLimit {
                limit: 8,
                what: "CHPID",
                ..
            })
        ),
        "{r:?}"
    );
}

/// The OLM sharing limits count the interfaces active now: one stopped
/// makes room, and stopping the last OLM interface lifts the limit; an
/// interface of a name active in its stack is refused until it stops.
#[test]
fn olm_sharing_limits_count_only_active_interfaces() {
    let mut cfg = single(InbPerf::Dynamic, false, TimerTable::default());
    cfg.interfaces[0].olm = true;
    for n in 1..=3 {
        cfg.stacks.push(StackConfig::new(format!("S{n}")));
        let mut i = iface(&format!("OSA{n}"), n, &format!("192.0.2.{}", n + 10));
        i.vmac = Some(VmacConfig::default());
        cfg.interfaces.push(i);
    }
    let mut e = Engine::new(cfg).unwrap();
    let mut fifth = iface("OSA5", 1, "192.0.2.50");
    fifth.vmac = Some(VmacConfig::default());
    let refused = |r: &Result<IfaceId, ActivateError>, what: &str| matches!(r, Err(ActivateError::OlmSharingLimit { what: w, .. }) if *w == what);
    let r = e.activate_interface(us(1), fifth.clone());
    assert!(refused(&r, "port"), "{r:?}");
    e.deactivate_interface(IfaceId(1));
    let r = e.activate_interface(us(2), fifth.clone());
    assert!(r.is_ok(), "{r:?}");
    let mut sixth = fifth.clone();
    sixth.name = "OSA6".into();
    let r = e.activate_interface(us(3), sixth.clone());
    assert!(refused(&r, "port"), "{r:?}");
    // OSA1, the only OLM interface, stops: five may share the port.
    e.deactivate_interface(IfaceId(0));
    let r = e.activate_interface(us(4), sixth);
    assert!(r.is_ok(), "{r:?}");
    // Five are active: an OLM interface is refused.
    let mut olm = iface("OSA7", 2, "192.0.2.70");
    olm.vmac = Some(VmacConfig::default());
    olm.olm = true;
    let r = e.activate_interface(us(5), olm);
    assert!(refused(&r, "port"), "{r:?}");
    // OSA5 is active in stack 1: a second one is refused until it stops.
    let r = e.activate_interface(us(6), fifth.clone());
    assert!(matches!(r, Err(ActivateError::Duplicate(_))), "{r:?}");
    let five = IfaceId(4);
    e.deactivate_interface(five);
    let r = e.activate_interface(us(7), fifth.clone());
    assert!(r.is_ok(), "{r:?}");
    // The OSA5 started again is the active one now: a third is refused
    // while it runs, whichever OSA5 was first.
    let r = e.activate_interface(us(8), fifth);
    assert!(matches!(r, Err(ActivateError::Duplicate(_))), "{r:?}");
}

/// The CHPID limit counts the active interfaces of every port on the
/// CHPID: one stopped on either port makes room on the other.
#[test]
fn olm_chpid_limit_counts_only_active_interfaces() {
    let (mut e, ninth) = eight_on_one_chpid();
    let chpid_refused = |r: &Result<IfaceId, ActivateError>| {
        matches!(r, Err(ActivateError::OlmSharingLimit { what: "CHPID", .. }))
    };
    let r = e.activate_interface(us(1), ninth.clone());
    assert!(chpid_refused(&r), "{r:?}");
    // I1 (port 0) stops: I9 fits on port 1.
    e.deactivate_interface(IfaceId(1));
    let r = e.activate_interface(us(2), ninth);
    assert!(r.is_ok(), "{r:?}");
    let mut tenth = iface("I10", 1, "192.0.2.61");
    tenth.vmac = Some(VmacConfig::default());
    let r = e.activate_interface(us(3), tenth.clone());
    assert!(chpid_refused(&r), "{r:?}");
    // The OLM interface stops: no limit on the CHPID.
    e.deactivate_interface(IfaceId(0));
    let r = e.activate_interface(us(4), tenth);
    assert!(r.is_ok(), "{r:?}");
    let mut eleventh = iface("I11", 2, "192.0.2.62");
    eleventh.vmac = Some(VmacConfig::default());
    let r = e.activate_interface(us(5), eleventh);
    assert!(r.is_ok(), "{r:?}");
}

#[test]
fn hipersockets_delivers_at_once_between_lpars() {
    let cfg = SystemConfig {
        ports: vec![iqd_port("IQDFE", 0xfe, 64)],
        stacks: vec![StackConfig::new("A"), StackConfig::new("B")],
        interfaces: vec![iface("HSA", 0, "200.16.1.1"), iface("HSB", 1, "200.16.1.2")],
        tuning: Tuning::default(),
    };
    let mut e = Engine::new(cfg).unwrap();
    let pkt = tcp_out("200.16.1.1", "200.16.1.2", 1000, 2000, 30000, 0);
    let r = e.handle_host_send(us(5), IfaceId(0), Frame::full(&pkt), SendMeta::default());
    assert_eq!(r, Ok(SendOutcome::DeliveredInternally { to: IfaceId(1) }));
    let p = e.poll_presentation().unwrap();
    assert_eq!(
        (p.iface, p.at, p.cause),
        (IfaceId(1), us(5), PresentCause::Immediate)
    );
    let f: Vec<_> = e.batch_frames(p.batch).collect();
    assert_eq!(f[0].wire_len as usize, pkt.len());
    assert_eq!(f[0].data, &pkt[..]);
    // Nobody at that address: counted, not lost.
    let pkt = tcp_out("200.16.1.1", "200.16.1.7", 1000, 2000, 10, 0);
    assert!(e
        .handle_host_send(us(6), IfaceId(0), Frame::full(&pkt), SendMeta::default())
        .is_err());
    assert_eq!(
        e.counters().dropped_out.get(counters::DropReason::NoRoute),
        1
    );
}

/// An interface's MTU on HiperSockets is at most what the CHPID's frame
/// size carries (MFS less 8 KB): a larger coded MTU is cut to it, and none
/// coded takes it.
#[test]
fn a_hipersockets_mtu_fits_the_frame_size() {
    for (coded, act) in [(Some(57_344), 8_192), (Some(4_096), 4_096), (None, 8_192)] {
        let mut hs = iface("HSA", 0, "200.16.1.1");
        hs.mtu = coded;
        let cfg = SystemConfig {
            ports: vec![iqd_port("IQDF4", 0xf4, 16)],
            stacks: vec![StackConfig::new("A")],
            interfaces: vec![hs],
            tuning: Tuning::default(),
        };
        let e = Engine::new(cfg).unwrap();
        let i = &e.interfaces()[0];
        assert_eq!((i.cfg.mtu, i.mtu), (coded, act), "{coded:?}");
    }
}

#[test]
fn deferred_processing_and_replenishment_are_counted() {
    let mut cfg = single(InbPerf::MinLatency, false, TimerTable::default());
    cfg.interfaces[0].read_storage_sbals = 8;
    let mut e = Engine::new(cfg).unwrap();
    let mut held = Vec::new();
    let mut t = 0;
    // Each 60,000-byte frame fills one SBAL; the host keeps every batch.
    for _ in 0..7 {
        t += 100;
        wire(
            &mut e,
            us(t),
            &tcp_in(PORT_MAC, "192.0.2.1", 1068, 2141, 59_900),
        );
        advance(&mut e, us(t + 50));
        while let Some(p) = e.poll_presentation() {
            held.push(p.batch);
        }
    }
    let c = e.read_counters(IfaceId(0), QueueKind::Primary).unwrap();
    // Seven batches, the first six still held when the next came.
    assert_eq!(c.rprocdef, 6);
    // Frames 7 (1 free of 8 before it) counted as late replenishment.
    assert_eq!(c.rrepldef, 1);
}

/// Sends a stream out of the host, one 1400-byte segment every `every_us`,
/// and feeds back one pure ACK per segment; returns the engine afterwards.
fn outbound_stream_with_acks(workloadq: bool, every_us: u64) -> Engine {
    let mut e = Engine::new(single(InbPerf::Dynamic, workloadq, TimerTable::default())).unwrap();
    e.add_neighbor(PortId(0), ip("192.0.2.9"), PEER_MAC);
    let mac = e.interface(IfaceId(0)).unwrap().mac;
    let mut t = 0;
    let mut buf = Vec::new();
    for _ in 0..20_000 {
        t += every_us;
        let seg = tcp_out("192.0.2.1", "192.0.2.9", 20, 5000, 1400, 0);
        e.handle_host_send(us(t), IfaceId(0), Frame::full(&seg), SendMeta::default())
            .unwrap();
        while e.poll_transmit(us(t), PortId(0), &mut buf).is_some() {}
        wire(
            &mut e,
            us(t),
            &tcp_in_flags(mac, "192.0.2.1", 5000, 20, 0, 0x10),
        );
        advance(&mut e, us(t));
        drain(&mut e, us(t));
    }
    assert_eq!(e.streaming_connections(StackId(0)).len(), 1);
    e
}

#[test]
fn acks_of_an_outbound_stream_hold_the_timers_midway_when_dense() {
    // Spec 02 §2.2-2.3: the ACKs of a stream leaving the host are neither
    // interactive nor a stream of data. Dense (100k/s), the tuner holds
    // them midway: the geometric middle of the DYNAMIC floor and BALANCED.
    let d = TimerTable::default();
    let e = outbound_stream_with_acks(false, 10);
    let t = e.timers(IfaceId(0), QueueKind::Primary).unwrap();
    assert_eq!(t.block, Duration::from_micros(50), "{t:?}");
    let mid_gap = (d.dynamic_floor.gap.as_nanos() * d.balanced.gap.as_nanos()) as f64;
    assert_eq!(t.gap.as_nanos() as f64, mid_gap.sqrt().round(), "{t:?}");
    // With IWQ the ACKs go to BULKDATA, whose tuner saves CPU: longer
    // holds than PRIMARY's, still short of BALANCED.
    let e = outbound_stream_with_acks(true, 10);
    let b = e.timers(IfaceId(0), QueueKind::BulkData).unwrap();
    assert!(b.gap > t.gap && b.gap < d.balanced.gap, "{b:?}");
    assert!(b.block > t.block && b.block < d.balanced.block, "{b:?}");
}

#[test]
fn sparse_acks_of_an_outbound_stream_count_as_interactive() {
    // 25k ACKs/s, one every 40 µs: a hold gathers nothing, so without IWQ
    // they are presented promptly (and concurrent units can race on them).
    let e = outbound_stream_with_acks(false, 40);
    assert_eq!(
        e.timers(IfaceId(0), QueueKind::Primary).unwrap().gap,
        TimerTable::default().dynamic_floor.gap
    );
}

#[test]
fn zero_timers_present_every_frame_at_once_even_under_dynamic() {
    let mut e = Engine::new(single(InbPerf::Dynamic, false, TimerTable::zero())).unwrap();
    for k in 0..50_000u64 {
        let t = us(k * 3);
        wire(
            &mut e,
            t,
            &tcp_in(PORT_MAC, "192.0.2.1", 6000 + (k % 4) as u16, 2141, 100),
        );
        let p = e.poll_presentation().expect("presented on arrival");
        assert_eq!((p.at, p.frames, p.cause), (t, 1, PresentCause::Immediate));
        e.complete_batch(t, p.batch);
        // No LAN-idle deadline: only the bulk detector's idle scan, 1 s out.
        assert!(e
            .poll_timeout()
            .is_none_or(|d| d >= t + Duration::from_millis(500)));
    }
}

#[test]
fn olm_backs_off_for_a_stream_without_flapping() {
    // An OLM queue carrying a stream and interactive traffic: the host backs
    // OLM off once the tuner sees the stream, and the state does not flip
    // with every frame (the event queue stays small and bounded).
    let mut cfg = single(InbPerf::Dynamic, false, TimerTable::default());
    cfg.interfaces[0].olm = true;
    let mut e = Engine::new(cfg).unwrap();
    let mut t = 0;
    for n in 0..60_000u64 {
        t += 5;
        advance(&mut e, us(t));
        drain(&mut e, us(t));
        wire(
            &mut e,
            us(t),
            &tcp_in(PORT_MAC, "192.0.2.1", 5000, 20, 1448),
        );
        if n % 4 == 0 {
            wire(
                &mut e,
                us(t),
                &tcp_in(PORT_MAC, "192.0.2.1", 6000, 2141, 100),
            );
        }
    }
    let mut changes = 0;
    while let Some(ev) = e.poll_event() {
        if matches!(ev, Event::OlmBackoff { .. }) {
            changes += 1;
        }
    }
    assert!((1..=2).contains(&changes), "{changes} OLM back-off changes");
    assert!(
        e.interface(IfaceId(0))
            .unwrap()
            .queue(QueueKind::Primary)
            .unwrap()
            .olm_backoff
    );
}

#[test]
fn olm_writes_to_queue_one_need_no_signal() {
    for olm in [false, true] {
        let mut cfg = single(InbPerf::Dynamic, false, TimerTable::default());
        cfg.interfaces[0].olm = olm;
        let mut e = Engine::new(cfg).unwrap();
        e.add_neighbor(PortId(0), ip("192.0.2.9"), PEER_MAC);
        let p = tcp_out("192.0.2.1", "192.0.2.9", 2141, 6000, 800, 0);
        let eow = SendMeta {
            end_of_write: true,
            ..SendMeta::default()
        };
        // Two writes of one packet, one write of two packets.
        for (t, meta) in [(1, eow), (2, eow), (3, SendMeta::default()), (3, eow)] {
            let r = e.handle_host_send(us(t), IfaceId(0), Frame::full(&p), meta);
            assert!(matches!(r, Ok(SendOutcome::Queued { queue: 1, .. })));
        }
        let c = &e.interface(IfaceId(0)).unwrap().writes[0].counters;
        let (sigas, avoided) = if olm { (0, 3) } else { (3, 0) };
        assert_eq!(
            (c.sigas, c.sigas_avoided, c.sbalcnt),
            (sigas, avoided, 3),
            "olm {olm}"
        );
    }
}
