//! Displays checked against engine runs: small configurations built in
//! code, frames driven through the engine, values read back from the text
//! and JSON displays.

mod common;

use common::*;
use softosa_display::{render, DisplayContext, DisplayError, DisplayKind, Format, TrleInfo};
use softosa_engine::config::{
    InterfaceConfig, Mac, PortConfig, PortKind, StackConfig, VmacConfig, VmacRoute,
};
use softosa_engine::{Engine, Frame, IfaceId, PortId, SendMeta};

fn text(kind: DisplayKind, e: &Engine, target: Option<&str>) -> String {
    render(kind, e, &DisplayContext::default(), target, Format::Text)
        .unwrap_or_else(|err| panic!("{kind} display failed: {err}"))
}

fn json(kind: DisplayKind, e: &Engine, target: Option<&str>) -> serde_json::Value {
    json_in(&DisplayContext::default(), kind, e, target)
}

/// [`json`] with the display context `ctx`.
fn json_in(
    ctx: &DisplayContext,
    kind: DisplayKind,
    e: &Engine,
    target: Option<&str>,
) -> serde_json::Value {
    let s = render(kind, e, ctx, target, Format::Json)
        .unwrap_or_else(|err| panic!("{kind} display failed: {err}"));
    serde_json::from_str(&s).unwrap_or_else(|err| panic!("{kind} JSON does not parse: {err}"))
}

/// A plain BALANCED interface (no VMAC) with one frame in and presented.
fn one_frame_engine() -> Engine {
    let mut i = InterfaceConfig::new("QDIO4101L", 0, 0);
    i.addresses = vec![net("172.16.1.1", 24)];
    let mut e = engine(system(vec![i]));
    // 262 payload bytes: IP packet of 302 bytes, 316 on the wire.
    let f = tcp_frame(PHYS, "172.16.1.2", 1068, "172.16.1.1", 2141, 262);
    assert_eq!(f.1, 316);
    wire(&mut e, us(0), 0, &f);
    e.handle_timeout(us(40));
    assert_eq!(drain(&mut e, us(40)), 1);
    e
}

#[test]
fn devlinks_layout_snapshot() {
    let e = one_frame_engine();
    let got = text(DisplayKind::Devlinks, &e, Some("qdio4101l"));
    let expected = "\
EZD0101I NETSTAT CS SOFTOSA TCPCS1
INTFNAME: QDIO4101L          INTFTYPE: IPAQENET   INTFSTATUS: READY
  PORTNAME: QDIO4101  DATAPATH: 2902      DATAPATHSTATUS: READY
  CHPIDTYPE: OSD
  SPEED: 0000001000
  IPBROADCASTCAPABILITY: YES
  CFGROUTER: NON                   ACTROUTER: NON
  ARPOFFLOAD: YES                  ARPOFFLOADINFO: YES
  CFGMTU: NONE                     ACTMTU: 8992
  IPADDR: 172.16.1.1/24
  VLANID: NONE                     VLANPRIORITY: DISABLED
  READSTORAGE: GLOBAL (4096K)
  INBPERF: BALANCED
  CHECKSUMOFFLOAD: YES             SEGMENTATIONOFFLOAD: NO
  SECCLASS: 255                    MONSYSPLEX: NO
  ISOLATE: NO                      OPTLATENCYMODE: NO
  INTERFACE STATISTICS:
    BYTESIN                           = 302
    INBOUND PACKETS                   = 1
    INBOUND PACKETS IN ERROR          = 0
    INBOUND PACKETS DISCARDED         = 0
    INBOUND UNICAST PACKETS           = 1
    INBOUND MULTICAST PACKETS         = 0
    INBOUND BROADCAST PACKETS         = 0
    BYTESOUT                          = 0
    OUTBOUND PACKETS                  = 0
    OUTBOUND PACKETS DISCARDED        = 0
    OUTBOUND UNICAST PACKETS          = 0
    OUTBOUND BROADCAST PACKETS        = 0

1 OF 1 RECORDS DISPLAYED
END OF THE REPORT
";
    assert_eq!(got, expected);
}

#[test]
fn vtam_tuning_block_snapshot() {
    let mut i = InterfaceConfig::new("QDIO4101L", 0, 0);
    i.addresses = vec![net("172.16.1.1", 24)];
    let mut e = engine(system(vec![i]));
    // Five frames 2 us apart; BALANCED gap timer (40 us) presents them all
    // in one interrupt at 48 us.
    for k in 0..5 {
        let f = tcp_frame(PHYS, "172.16.1.2", 1068, "172.16.1.1", 2141, 262);
        wire(&mut e, us(2 * k), 0, &f);
    }
    e.handle_timeout(us(47));
    assert_eq!(drain(&mut e, us(47)), 0, "gap timer must not fire early");
    e.handle_timeout(us(48));
    assert_eq!(drain(&mut e, us(48)), 1);
    // One send back to the peer (its MAC learned from the inbound frames):
    // a 140-byte IP packet, counted as such (as inbound counts what
    // reaches the stack, not the Ethernet header the adapter adds).
    let (pkt, len) = tcp_packet("172.16.1.1", "172.16.1.2", 100);
    let meta = SendMeta {
        end_of_write: true,
        ..SendMeta::default()
    };
    let r = e.handle_host_send(
        us(60),
        IfaceId(0),
        Frame {
            data: &pkt,
            wire_len: len,
        },
        meta,
    );
    assert!(r.is_ok(), "{r:?}");
    let mut buf = Vec::new();
    assert!(e.poll_transmit(us(61), PortId(0), &mut buf).is_some());

    let mut ctx = DisplayContext::default();
    ctx.trles.push(TrleInfo {
        name: "QDIO101".into(),
        portname: "QDIO4101".into(),
        portnum: 0,
        read: 0x0E28,
        write: 0x0E29,
        datapath: vec![0x0E2A, 0x0E2B],
        stack: None,
    });
    ctx.clock = Some(softosa_display::ClockStamp::from_unix(
        1_263_400_808,
        740_000_000,
    ));
    let got = render(
        DisplayKind::Tuning,
        &e,
        &ctx,
        Some("QDIO4101L"),
        Format::Text,
    )
    .unwrap_or_else(|err| panic!("{err}"));
    let zero_write = |n: u8| {
        format!(
            "\
IST924I -------------------------------------------------------------
IST1233I DEV = 0E2A  DIR = WR/{n}
IST1721I SBALCNTO =          0 SBALCNT  =          0
IST1722I PACKCNTO =          0 PACKCNT  =          0
IST1236I BYTECNTO =          0 BYTECNT  =          0
SFO1001I SIGACNTO =          0 SIGACNT  =          0
SFO1002I SIGAAVDO =          0 SIGAAVD  =          0
SFO1003I WRDISCO  =          0 WRDISC   =          0
SFO1004I MAXDEPTO =          0 MAXDEPTH =          0
"
        )
    };
    let expected = format!(
        "\
IST1230I TIME = 16400874    DATE = 10013   ID = QDIO101
IST1233I DEV = 0E2A  DIR = RD/1 (PRIMARY)
IST1719I PCIREALO =          0 PCIREAL  =          1
IST1720I PCIVIRTO =          0 PCIVIRT  =          0
IST1750I PCITHRSO =          0 PCITHRSH =          0
IST1751I PCIUNPRO =          0 PCIUNPRD =          0
IST2316I EARLYINO =          0 EARLYINT =          0
IST1752I RPROCDEO =          0 RPROCDEF =          0
IST1753I RREPLDEO =          0 RREPLDEF =          0
IST1754I NOREADSO =          0 NOREADS  =          0
IST1721I SBALCNTO =          0 SBALCNT  =          1
IST1722I PACKCNTO =          0 PACKCNT  =          5
IST2185I FRINVCTO =          0 FRINVCT  =          0
IST1236I BYTECNTO =          0 BYTECNT  =       1510
IST1810I PKTIQDO  =          0 PKTIQD   =          0
IST1811I BYTIQDO  =          0 BYTIQD   =          0
IST924I -------------------------------------------------------------
IST1233I DEV = 0E2A  DIR = WR/1
IST1721I SBALCNTO =          0 SBALCNT  =          1
IST1722I PACKCNTO =          0 PACKCNT  =          1
IST1236I BYTECNTO =          0 BYTECNT  =        140
SFO1001I SIGACNTO =          0 SIGACNT  =          1
SFO1002I SIGAAVDO =          0 SIGAAVD  =          0
SFO1003I WRDISCO  =          0 WRDISC   =          0
SFO1004I MAXDEPTO =          0 MAXDEPTH =          1
{}{}{}IST314I END
",
        zero_write(2),
        zero_write(3),
        zero_write(4)
    );
    assert_eq!(got, expected);
}

#[test]
fn tuning_json_carries_overflow_words_and_totals() {
    let e = one_frame_engine();
    let v = json(DisplayKind::Tuning, &e, Some("QDIO4101L"));
    let rd = &v["devices"][0]["read"][0];
    assert_eq!(rd["dir"], "RD/1");
    assert_eq!(rd["packcnt"]["total"], 1);
    assert_eq!(rd["packcnt"]["overflow"], 0);
    assert_eq!(rd["bytecnt"]["value"], 302);
    assert_eq!(v["devices"][0]["write"].as_array().map(Vec::len), Some(4));
}

#[test]
fn vtam_line_splits_counters_above_two_to_the_32() {
    let big = (7u64 << 32) + 12_345;
    let line = softosa_display::text::vtam_counter_line("IST1236I", "BYTECNTO", "BYTECNT", big);
    assert_eq!(line, "IST1236I BYTECNTO =          7 BYTECNT  =      12345");
    let max = softosa_display::text::vtam_counter_line("IST1722I", "PACKCNTO", "PACKCNT", u64::MAX);
    assert_eq!(max, "IST1722I PACKCNTO = 4294967295 PACKCNT  = 4294967295");
}

/// Stream enough data on one connection for the bulk detector to register it.
fn streamed_engine() -> Engine {
    let mut cfg = system(vec![iwq_iface("QDIO4101L", 0, 0, "172.16.1.1")]);
    cfg.stacks[0].distributed_dvipas = vec![ip("201.2.10.11")];
    let mut e = engine(cfg);
    let vmac = mac_of(&e, 0);
    for k in 0..40u64 {
        let f = tcp_frame(vmac, "172.16.1.2", 40000, "172.16.1.1", 5001, 8000);
        wire(&mut e, us(k * 20), 0, &f);
        e.handle_timeout(us(k * 20 + 10));
        drain(&mut e, us(k * 20 + 10));
    }
    e.handle_timeout(us(2_000));
    drain(&mut e, us(2_000));
    e
}

#[test]
fn bulkdata_five_tuple_appears_in_osainfo_after_a_stream() {
    let e = streamed_engine();
    let registered = e.interfaces()[0].bulk_connections();
    assert_eq!(registered.len(), 1, "the stream must be registered");
    let t = text(DisplayKind::OsaInfo, &e, Some("QDIO4101L"));
    assert!(t.contains("  Queue Type: BULKDATA  Queue ID:  2  Protocol: TCP\n    Src: 172.16.1.2..40000\n    Dst: 172.16.1.1..5001\n    Total number of IPv4 connections:      1\n"), "{t}");
    assert!(
        t.contains("  Queue Type: SYSDIST   Queue ID:  3  Protocol: TCP\n    Addr: 201.2.10.11\n"),
        "{t}"
    );
    assert!(
        t.contains("Queues defined Out: 4  In: 3  Ancillary queues in use: 2"),
        "{t}"
    );
    assert!(t.contains("VMAC Origin: OSA"), "{t}");
    // The base lines in z/OS's order, each field where z/OS has it.
    let ctx = DisplayContext {
        clock: Some(softosa_display::context::ClockStamp::from_unix(
            1_263_400_808,
            0,
        )),
        ..DisplayContext::default()
    };
    let timed = render(
        DisplayKind::OsaInfo,
        &e,
        &ctx,
        Some("QDIO4101L"),
        Format::Text,
    )
    .expect("osainfo");
    let heads: Vec<&str> = timed
        .lines()
        .take(7)
        .map(|l| l.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(
        heads,
        [
            "EZD0031I TCP/IP CS SOFTOSA TCPIP Name",
            "Display OSAINFO results for IntfName",
            "PortName",
            "PCHID",
            "Gen",
            "Media",
            "PhysicalMACAddr"
        ],
        "{timed}"
    );
    assert!(
        timed
            .lines()
            .next()
            .is_some_and(|l| l.ends_with(" 16:40:08")),
        "{timed}"
    );
    let v = json(DisplayKind::OsaInfo, &e, Some("QDIO4101L"));
    assert_eq!(
        v["interfaces"][0]["ancillary"][0]["connections"][0]["src"],
        "172.16.1.2..40000"
    );
}

#[test]
fn netstat_all_and_stats_show_the_bulk_connection() {
    let e = streamed_engine();
    let all = text(DisplayKind::NetstatAll, &e, Some("TCPCS1"));
    assert!(all.contains("Local Socket:   172.16.1.1..5001"), "{all}");
    assert!(all.contains("  Foreign Socket: 172.16.1.2..40000"), "{all}");
    assert!(
        all.contains("  Ancillary Input Queue: Yes\n    BulkDataIntfName: QDIO4101L\n"),
        "{all}"
    );

    let on_bulk = e.interfaces()[0].counters.segments_on_bulk_queue;
    assert!(on_bulk > 0, "segments after registration go to BULKDATA");
    let stats = text(DisplayKind::Stats, &e, None);
    assert!(
        stats.contains(&format!(
            "  SEGMENTS RECEIVED ON OSA BULK QUEUES= {on_bulk}\n"
        )),
        "{stats}"
    );
    // The BULKDATA read queue presented exactly those segments.
    let tuning = json(DisplayKind::Tuning, &e, None);
    let bulk = &tuning["devices"][0]["read"][1];
    assert_eq!(bulk["queue_type"], "BULKDATA");
    assert_eq!(bulk["packcnt"]["total"], on_bulk);
}

#[test]
fn stats_counts_connections_the_full_detector_table_left_out_once() {
    let mut i = InterfaceConfig::new("QDIO4101L", 0, 0);
    i.addresses = vec![net("172.16.1.1", 24)];
    let mut cfg = system(vec![i]);
    cfg.tuning.bulk.max_tracked = 1;
    let mut e = engine(cfg);
    // Three connections send data: the first is tracked, the table is
    // then full, and the other two are not tracked (none is evicted).
    for (k, sport) in [40000u16, 40001, 40002].into_iter().enumerate() {
        let f = tcp_frame(PHYS, "172.16.1.2", sport, "172.16.1.1", 5001, 1000);
        wire(&mut e, us(k as u64), 0, &f);
    }
    let stats = text(DisplayKind::Stats, &e, None);
    assert!(
        stats.contains("  CONNECTIONS NOT TRACKED (TABLE FULL)= 2\n"),
        "{stats}"
    );
    assert!(!stats.contains("EVICTED"), "{stats}");
    let v = json(DisplayKind::Stats, &e, None);
    assert_eq!(v["stacks"][0]["connections_not_tracked"], 2);
    assert!(v["stacks"][0].get("tracking_evictions").is_none(), "{v}");
}

#[test]
fn vmac_origin_osa_versus_cfg() {
    let generated = iwq_iface("GENL", 0, 0, "172.16.1.1");
    let mut coded = InterfaceConfig::new("CFGL", 0, 0);
    coded.addresses = vec![net("172.16.2.1", 24)];
    coded.vmac = Some(VmacConfig {
        mac: Some(Mac([0x02, 0x00, 0x00, 0xaa, 0xbb, 0xcc])),
        route: VmacRoute::Local,
    });
    let e = engine(system(vec![generated, coded]));
    let g = text(DisplayKind::Devlinks, &e, Some("GENL"));
    // Adapter-generated: 02, instance 0001, last three bytes of the port MAC.
    assert!(
        g.contains("  VMACADDR: 020001F30000   VMACORIGIN: OSA    VMACROUTER: ALL\n"),
        "{g}"
    );
    let c = text(DisplayKind::Devlinks, &e, Some("CFGL"));
    assert!(
        c.contains("  VMACADDR: 020000AABBCC   VMACORIGIN: CFG    VMACROUTER: LOCAL\n"),
        "{c}"
    );
    let v = json(DisplayKind::Devlinks, &e, Some("CFGL"));
    assert_eq!(v["stacks"][0]["interfaces"][0]["vmac"]["vmacorigin"], "CFG");
}

#[test]
fn readstorage_shows_setting_and_size() {
    let mut avg = InterfaceConfig::new("AVGL", 0, 0);
    avg.read_storage_global = false;
    avg.read_storage_sbals = 32;
    let mut min = InterfaceConfig::new("MINL", 0, 0);
    min.read_storage_global = false;
    min.read_storage_sbals = 16;
    let e = engine(system(vec![avg, min]));
    assert!(text(DisplayKind::Devlinks, &e, Some("AVGL")).contains("  READSTORAGE: AVG (2048K)\n"));
    assert!(text(DisplayKind::Devlinks, &e, Some("MINL")).contains("  READSTORAGE: MIN (1024K)\n"));
    let trl = text(DisplayKind::Trle, &e, Some("MINL"));
    assert!(
        trl.contains("IST2333I RD/1    PRIMARY   1.0M(16 SBALS)\n"),
        "{trl}"
    );
}

/// Stack with the QDIO accelerator; IN on port 0 (with a VMAC), OUT on port 1.
fn accel_engine() -> Engine {
    let mut inside = iwq_iface("INL", 0, 0, "172.16.1.1");
    inside.workloadq = false;
    let mut out = InterfaceConfig::new("OUTL", 0, 1);
    out.addresses = vec![net("10.1.1.1", 24)];
    let mut stack = StackConfig::new("TCPCS1");
    stack.datagram_fwd = true;
    stack.qdio_accelerator = Some(1);
    let cfg = softosa_engine::SystemConfig {
        ports: vec![
            osa_port("QDIO4101", 0x29, 0x00),
            osa_port("QDIO4201", 0x2a, 0x01),
        ],
        stacks: vec![stack],
        interfaces: vec![inside, out],
        tuning: Default::default(),
    };
    let mut e = engine(cfg);
    e.add_neighbor(PortId(1), ip("10.1.1.9"), PEER_MAC);
    e
}

/// The QDIO accelerator is IPv4 only: an IPv6 interface of an
/// accelerating stack shows accelerated routing disabled in its TRLE.
#[test]
fn an_ipv6_data_device_is_never_accelerated() {
    let mut v4 = InterfaceConfig::new("OSA4", 0, 0);
    v4.addresses = vec![net("10.1.1.1", 24)];
    let mut v6 = InterfaceConfig::new("OSA6", 0, 1);
    v6.ip_version = softosa_engine::config::IpVersion::V6;
    v6.addresses = vec![net("2001:db8::1", 64)];
    let mut stack = StackConfig::new("TCPCS1");
    stack.datagram_fwd = true;
    stack.qdio_accelerator = Some(1);
    let e = engine(softosa_engine::SystemConfig {
        ports: vec![
            osa_port("QDIO4101", 0x29, 0x00),
            osa_port("QDIO4201", 0x2a, 0x01),
        ],
        stacks: vec![stack],
        interfaces: vec![v4, v6],
        tuning: Default::default(),
    });
    let trl = |i| text(DisplayKind::Trle, &e, Some(i));
    assert!(
        trl("OSA4").contains("IST2310I ACCELERATED ROUTING ENABLED\n"),
        "{}",
        trl("OSA4")
    );
    assert!(
        trl("OSA6").contains("IST2310I ACCELERATED ROUTING DISABLED\n"),
        "{}",
        trl("OSA6")
    );
}

#[test]
fn route_qdioaccel_lists_a_route_after_a_forwarded_send() {
    let mut e = accel_engine();
    let before = text(DisplayKind::RouteQdioAccel, &e, Some("TCPCS1"));
    assert!(before.contains("0 routes displayed"), "{before}");
    // The stack forwards a packet that came in on INL out of OUTL.
    let (pkt, len) = tcp_packet("172.16.1.2", "10.1.1.9", 500);
    let meta = SendMeta {
        forwarded: true,
        in_iface: Some(IfaceId(0)),
        end_of_write: true,
        ..SendMeta::default()
    };
    let r = e.handle_host_send(
        us(0),
        IfaceId(1),
        Frame {
            data: &pkt,
            wire_len: len,
        },
        meta,
    );
    assert!(r.is_ok(), "{r:?}");
    let after = text(DisplayKind::RouteQdioAccel, &e, Some("TCPCS1"));
    assert!(after.contains("10.1.1.9/32        OUTL\n"), "{after}");
    assert!(after.contains("1 routes displayed"), "{after}");
    // The next frame to that destination is forwarded without the host:
    // PKTIQD counts it on INL's read queue.
    let vmac = mac_of(&e, 0);
    let f = tcp_frame(vmac, "172.16.1.2", 1000, "10.1.1.9", 2000, 500);
    wire(&mut e, us(10), 0, &f);
    assert_eq!(e.counters().forwarded, 1);
    let t = text(DisplayKind::Tuning, &e, Some("INL"));
    assert!(
        t.contains("IST1810I PKTIQDO  =          0 PKTIQD   =          1\n"),
        "{t}"
    );
    let trl = text(DisplayKind::Trle, &e, Some("INL"));
    assert!(
        trl.contains("IST2310I ACCELERATED ROUTING ENABLED\n"),
        "{trl}"
    );
    let drops = text(DisplayKind::Drops, &e, None);
    assert!(
        drops.contains("    FORWARDED BY ACCELERATOR          = 1\n"),
        "{drops}"
    );
    assert!(drops.contains("BALANCED: YES"), "{drops}");
}

#[test]
fn trle_display_uses_the_given_trle_devices() {
    let e = streamed_engine();
    let ctx = DisplayContext {
        osa_code_level: "ABCD".into(),
        trles: vec![TrleInfo {
            name: "NSQDIO11".into(),
            portname: "qdio4101".into(),
            portnum: 0,
            read: 0x0E28,
            write: 0x0E29,
            datapath: vec![0x0E2A, 0x0E2B],
            stack: Some("TCPCS1".into()),
        }],
        ..Default::default()
    };
    let t = render(DisplayKind::Trle, &e, &ctx, Some("NSQDIO11"), Format::Text)
        .unwrap_or_else(|err| panic!("{err}"));
    let expected_part = "\
IST2263I PORTNAME = QDIO4101    PORTNUM =    0    OSA CODE LEVEL = ABCD
IST1221I WRITE DEV = 0E29 STATUS = ACTIVE        STATE = ONLINE
IST1221I READ  DEV = 0E28 STATUS = ACTIVE        STATE = ONLINE
IST924I -------------------------------------------------------------
IST1221I DATA  DEV = 0E2A STATUS = ACTIVE        STATE = N/A
IST1717I ULPID = TCPCS1
IST2310I ACCELERATED ROUTING DISABLED
IST2331I QUEUE    QUEUE    READ
IST2332I ID      TYPE     STORAGE
IST2205I ------  -------- ---------------
IST2333I RD/1    PRIMARY   4.0M(64 SBALS)
IST2333I RD/2    BULKDATA  4.0M(64 SBALS)
IST2333I RD/3    SYSDIST   4.0M(64 SBALS)
IST924I -------------------------------------------------------------
IST1221I DATA  DEV = 0E2B STATUS = RESET         STATE = N/A
IST314I END
";
    assert!(
        t.starts_with("IST097I DISPLAY ACCEPTED\nIST075I NAME = NSQDIO11, TYPE = TRLE\n"),
        "{t}"
    );
    assert!(t.ends_with(expected_part), "{t}");
    // OSAINFO agrees on the data device and its unit address.
    let o = render(
        DisplayKind::OsaInfo,
        &e,
        &ctx,
        Some("QDIO4101L"),
        Format::Text,
    )
    .unwrap_or_else(|err| panic!("{err}"));
    assert!(
        o.contains("PortName: QDIO4101  PortNum: 00  Datapath: 0E2A  RealAddr: 0002\n"),
        "{o}"
    );
    // The interface name finds the same TRLE.
    let by_intf = render(DisplayKind::Trle, &e, &ctx, Some("QDIO4101L"), Format::Text)
        .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(by_intf, t);
}

#[test]
fn hipersockets_devlinks_shows_multiwrite_and_osainfo_refuses() {
    let mut stack = StackConfig::new("TCPCS1");
    stack.iqd_multiwrite = true;
    stack.ziip_iqdio_multiwrite = true;
    let mut hs = InterfaceConfig::new("HSINTF1", 0, 0);
    hs.addresses = vec![net("200.16.1.1", 24)];
    hs.read_storage_sbals = 126;
    let cfg = softosa_engine::SystemConfig {
        ports: vec![PortConfig {
            name: "IQDFE".into(),
            chpid: 0xfe,
            port_num: 0,
            kind: PortKind::HiperSockets { mfs_kb: 16 },
            physical_mac: Mac([0x02, 0, 0, 0, 0xfe, 0]),
            lan_mtu: None,
        }],
        stacks: vec![stack],
        interfaces: vec![hs],
        tuning: Default::default(),
    };
    let e = engine(cfg);
    let d = text(DisplayKind::Devlinks, &e, Some("HSINTF1"));
    assert!(d.contains("INTFTYPE: IPAQIDIO"), "{d}");
    assert!(d.contains("  IQDMULTIWRITE: ENABLED (ZIIP)\n"), "{d}");
    assert!(
        d.contains("  ACTMTU: 8192") || d.contains("ACTMTU: 8192"),
        "{d}"
    );
    let err = render(
        DisplayKind::OsaInfo,
        &e,
        &DisplayContext::default(),
        Some("HSINTF1"),
        Format::Text,
    );
    assert!(
        matches!(err, Err(DisplayError::NotOsa { chpid: 0xfe, .. })),
        "{err:?}"
    );
    // A usage error (exit 2), saying what to use instead.
    let err = err.expect_err("refused");
    assert!(err.is_usage(), "{err}");
    let msg = err.to_string();
    for says in [
        "applies to OSA-Express interfaces only",
        "HSINTF1 is a HiperSockets interface (IQD CHPID FE)",
        "devlinks",
        "trle (D NET,TRL,TRLE=IUTIQDFE)",
        "tuning",
    ] {
        assert!(msg.contains(says), "{says}: {msg}");
    }
    // Without a target, OSAINFO shows the OSA interfaces (here none).
    let v = json(DisplayKind::OsaInfo, &e, None);
    assert_eq!(v["interfaces"].as_array().map(Vec::len), Some(0), "{v}");
    let trl = text(DisplayKind::Trle, &e, None);
    assert!(
        trl.contains("IST075I NAME = IUTIQDFE, TYPE = TRLE"),
        "{trl}"
    );
    assert!(
        trl.contains("IST2333I RD/1    PRIMARY   2.0M(126 SBALS)"),
        "{trl}"
    );
    let t = text(DisplayKind::Tuning, &e, None);
    assert!(t.contains("DIR = WR/1") && !t.contains("DIR = WR/2"), "{t}");
}

#[test]
fn config_shows_accelerator_and_wlm_mapping() {
    let mut cfg = system(vec![InterfaceConfig::new("QDIO4101L", 0, 0)]);
    cfg.stacks[0].datagram_fwd = true;
    cfg.stacks[0].qdio_accelerator = Some(1);
    cfg.stacks[0].segmentation_offload = true;
    cfg.stacks[0].wlm_priorityq = Some(Default::default());
    cfg.stacks[0].smc_r = true;
    let e = engine(cfg);
    let c = text(DisplayKind::Config, &e, None);
    assert!(c.contains("QDIOAccel: Yes  QDIOAccelPriority: 1\n"), "{c}");
    assert!(c.contains("SMCR: Yes  SMCD: No\n"), "{c}");
    assert!(c.contains("SegmentationOffload: Yes\n"), "{c}");
    assert!(
        c.contains("  IOPRI1 0\n  IOPRI2 1\n  IOPRI3 2 3\n  IOPRI4 4 5 6 FWD\n"),
        "{c}"
    );
    let d = text(DisplayKind::Devlinks, &e, None);
    assert!(d.contains("SEGMENTATIONOFFLOAD: YES"), "{d}");
    // Forwarded packets go where WLMPRIORITYQ's FWD says; the others it
    // does not map (a TOS other than 0, no WLM class) to the default.
    assert!(
        c.contains("Default Write Queue: 1  Forwarded Write Queue: 4\n"),
        "{c}"
    );
    let mut cfg = system(vec![InterfaceConfig::new("QDIO4101L", 0, 0)]);
    cfg.stacks[0].wlm_priorityq = Some(softosa_engine::config::WlmPriorityMap {
        forwarded_queue: 1,
        ..Default::default()
    });
    let c = text(DisplayKind::Config, &engine(cfg), None);
    assert!(
        c.contains("Default Write Queue: 1  Forwarded Write Queue: 1\n"),
        "{c}"
    );
}

#[test]
fn config_shows_the_tcp_table_with_z_os_defaults_where_nothing_is_coded() {
    use softosa_engine::config::{AckDelay, TcpSettings};
    let mut cfg = system(vec![InterfaceConfig::new("QDIO4101L", 0, 0)]);
    let e = engine(cfg.clone());
    let c = text(DisplayKind::Config, &e, None);
    assert!(
        c.contains(
            "TCP Configuration Table:\n\
             DefaultRcvBufSize:  00065536  DefaultSndBufSize:  00065536\n\
             DefltMaxRcvBufSize: 00262144  DefltMaxSndBufSize: 00262144\n\
             DelayAck: Yes  FRRThreshold: 3  TimeWaitInterval: 60\n"
        ),
        "{c}"
    );
    cfg.stacks[0].tcp = TcpSettings {
        send_buf: 128 * 1024,
        rcv_buf: 256 * 1024,
        max_rcv_buf_coded: Some(512 * 1024),
        max_send_buf_coded: None,
        delay_acks: AckDelay::NoDelay,
        frr_threshold: 5,
        time_wait_s: 30,
    };
    let e = engine(cfg);
    let c = text(DisplayKind::Config, &e, None);
    assert!(
        c.contains("DefaultRcvBufSize:  00262144  DefaultSndBufSize:  00131072\n"),
        "{c}"
    );
    assert!(
        c.contains("DefltMaxRcvBufSize: 00524288  DefltMaxSndBufSize: 00262144\n"),
        "{c}"
    );
    assert!(
        c.contains("DelayAck: No  FRRThreshold: 5  TimeWaitInterval: 30\n"),
        "{c}"
    );
    let j = json(DisplayKind::Config, &e, None);
    assert_eq!(j["stacks"][0]["tcp_default_rcv_buf"], 262144);
    assert_eq!(j["stacks"][0]["tcp_delay_ack"], "No");
}

#[test]
fn vcrt_lists_distributed_dvipas_and_says_what_is_missing() {
    let e = streamed_engine();
    let v = text(DisplayKind::Vcrt, &e, None);
    assert!(v.contains("Dest: 201.2.10.11\n"), "{v}");
    assert!(v.contains("no sysplex distributor connection"), "{v}");
    let j = json(DisplayKind::Vcrt, &e, None);
    assert_eq!(j["stacks"][0]["connection_table_available"], false);
    // A stack that distributes nothing misses no table: no note.
    let v = text(DisplayKind::Vcrt, &one_frame_engine(), None);
    assert!(v.contains("This stack distributes no DVIPA."), "{v}");
    assert!(!v.contains("no sysplex distributor connection"), "{v}");
}

#[test]
fn vcrt_lists_the_connections_a_driver_knows() {
    let e = streamed_engine();
    let route = |dvipa: &str, sport: u16| softosa_display::VcrtRoute {
        dvipa: ip(dvipa),
        port: 4011,
        source: ip("9.27.13.119"),
        source_port: sport,
        dest_xcf: ip("193.1.2.20"),
    };
    let ctx = DisplayContext {
        // one connection of another DVIPA, which is not listed
        vcrt: Some(vec![
            route("201.2.10.11", 1025),
            route("201.2.10.11", 1026),
            route("201.2.10.99", 1027),
        ]),
        ..DisplayContext::default()
    };
    let v = render(DisplayKind::Vcrt, &e, &ctx, None, Format::Text).unwrap();
    assert!(
        v.contains(
            "Dest:      201.2.10.11..4011\n  Source:  9.27.13.119..1025\n  DestXCF: 193.1.2.20\n"
        ),
        "{v}"
    );
    assert!(v.contains("2 of 2 records displayed"), "{v}");
    assert!(!v.contains("..1027") && !v.contains("not available"), "{v}");
    let j = json_in(&ctx, DisplayKind::Vcrt, &e, None);
    assert_eq!(j["stacks"][0]["connection_table_available"], true);
    assert_eq!(j["stacks"][0]["dvipas"][0]["connections_total"], 2);
    assert_eq!(
        j["stacks"][0]["dvipas"][0]["connections"][1]["source_port"],
        1026
    );
}

#[test]
fn drops_cover_the_whole_adapter_and_refuse_a_target() {
    let e = one_frame_engine();
    let err = render(
        DisplayKind::Drops,
        &e,
        &DisplayContext::default(),
        Some("NOSUCH"),
        Format::Text,
    )
    .expect_err("a target is refused");
    assert!(err.is_usage(), "{err}");
    assert!(
        err.to_string().contains("DROPS covers the whole adapter"),
        "{err}"
    );
    // No target, or `*`, shows the whole balance.
    assert!(text(DisplayKind::Drops, &e, Some("*")).contains("BALANCED"));
}

#[test]
fn drops_count_every_reason_and_balance() {
    let mut e = one_frame_engine();
    // A frame to a MAC nobody owns, and a runt frame.
    let f = tcp_frame(
        Mac([0x00, 0x99, 0, 0, 0, 1]),
        "172.16.1.2",
        1,
        "172.16.1.1",
        2,
        10,
    );
    wire(&mut e, us(100), 0, &f);
    wire(&mut e, us(101), 0, &(vec![0u8; 5], 5));
    let d = text(DisplayKind::Drops, &e, None);
    assert!(
        d.contains("    FRAMES IN                         = 3\n"),
        "{d}"
    );
    assert!(
        d.contains("    PRESENTED TO STACKS               = 1\n"),
        "{d}"
    );
    assert!(
        d.contains("    DROPPED                           = 2\n"),
        "{d}"
    );
    assert!(d.contains("BALANCED: YES"), "{d}");
    let j = json(DisplayKind::Drops, &e, None);
    let reasons = j["reasons"].as_array().cloned().unwrap_or_default();
    let get = |name: &str| {
        reasons
            .iter()
            .find(|r| r["reason"] == name)
            .map(|r| r["inbound"].clone())
    };
    assert_eq!(get("unknown_mac"), Some(serde_json::json!(1)));
    assert_eq!(get("invalid_frame"), Some(serde_json::json!(1)));
    assert_eq!(
        reasons.len(),
        softosa_engine::counters::DropReason::ALL.len()
    );
}

/// docs/displays.md lists every drop reason's identifier with its label.
#[test]
fn the_drop_reason_ids_are_documented() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/displays.md"
    ))
    .expect("docs/displays.md");
    for r in softosa_engine::counters::DropReason::ALL {
        let row = format!("| `{}` | {} |", r.id(), r.label());
        assert!(doc.contains(&row), "missing: {row}");
    }
}

#[test]
fn unknown_names_list_the_valid_ones() {
    let e = one_frame_engine();
    let err = render(
        DisplayKind::Devlinks,
        &e,
        &DisplayContext::default(),
        Some("NOPE"),
        Format::Text,
    )
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(
        err.contains("NOPE") && err.contains("TCPCS1/QDIO4101L"),
        "{err}"
    );
    let err = render(
        DisplayKind::Trle,
        &e,
        &DisplayContext::default(),
        Some("NOPE"),
        Format::Text,
    )
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(err.contains("TRLEs: QDIO4101"), "{err}");
    let err = render(
        DisplayKind::Stats,
        &e,
        &DisplayContext::default(),
        Some("NOPE"),
        Format::Text,
    )
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(err.contains("stacks: TCPCS1"), "{err}");
}

#[test]
fn same_interface_name_in_two_stacks_needs_a_qualifier() {
    let mut cfg = system(vec![]);
    cfg.stacks.push(StackConfig::new("TCPCS2"));
    let mut a = iwq_iface("QDIO4101L", 0, 0, "172.16.1.1");
    a.workloadq = false;
    let mut b = iwq_iface("QDIO4101L", 1, 0, "172.16.1.2");
    b.workloadq = false;
    cfg.interfaces = vec![a, b];
    let e = engine(cfg);
    let err = render(
        DisplayKind::Devlinks,
        &e,
        &DisplayContext::default(),
        Some("QDIO4101L"),
        Format::Text,
    );
    assert!(
        matches!(err, Err(DisplayError::AmbiguousInterface { .. })),
        "{err:?}"
    );
    let t = text(DisplayKind::Devlinks, &e, Some("TCPCS2/QDIO4101L"));
    assert!(t.contains("EZD0101I NETSTAT CS SOFTOSA TCPCS2\n"), "{t}");
    assert!(t.contains("VMACADDR: 020002F30000"), "{t}");
    // A stack named alone: its interfaces only, as Netstat DEVLINKS of
    // that stack (any case).
    let t = text(DisplayKind::Devlinks, &e, Some("tcpcs2"));
    assert!(t.contains("EZD0101I NETSTAT CS SOFTOSA TCPCS2\n"), "{t}");
    assert!(!t.contains("TCPCS1"), "{t}");
    assert_eq!(t.matches("INTFNAME: QDIO4101L").count(), 1, "{t}");
    for k in [DisplayKind::Tuning, DisplayKind::OsaInfo] {
        let of_stack = text(k, &e, Some("TCPCS1"));
        assert_eq!(of_stack, text(k, &e, Some("TCPCS1/QDIO4101L")), "{k}");
        assert_ne!(of_stack, text(k, &e, None), "{k}");
    }
}

#[test]
fn every_display_renders_as_json_with_the_text_values() {
    let e = streamed_engine();
    for k in DisplayKind::ALL {
        let v = json(k, &e, None);
        assert!(v.is_object(), "{k}");
    }
    let v = json(DisplayKind::Devlinks, &e, Some("QDIO4101L"));
    let i = &v["stacks"][0]["interfaces"][0];
    let c = &e.interfaces()[0].counters;
    assert_eq!(i["statistics"]["bytesin"], c.bytes_in);
    assert_eq!(i["statistics"]["inbound_packets"], c.packets_in);
    assert_eq!(i["workloadqueueing"], true);
}

#[test]
fn interfaces_beyond_the_trle_datapath_list_get_the_next_devices() {
    let mut v6 = InterfaceConfig::new("QDIO4101I", 0, 0);
    v6.ip_version = softosa_engine::config::IpVersion::V6;
    v6.addresses = vec![net("2001:db8::1", 64)];
    let mut v4 = InterfaceConfig::new("QDIO4101L", 0, 0);
    v4.addresses = vec![net("172.16.1.1", 24)];
    let e = engine(system(vec![v4, v6]));
    let ctx = DisplayContext {
        trles: vec![TrleInfo {
            name: "QDIO101".into(),
            portname: "QDIO4101".into(),
            portnum: 0,
            read: 0x0E28,
            write: 0x0E29,
            datapath: vec![0x0E2A],
            stack: None,
        }],
        ..Default::default()
    };
    let d = render(DisplayKind::Devlinks, &e, &ctx, None, Format::Text)
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(d.contains("INTFNAME: QDIO4101L          INTFTYPE: IPAQENET   INTFSTATUS: READY\n  PORTNAME: QDIO4101  DATAPATH: 0E2A"), "{d}");
    assert!(d.contains("INTFNAME: QDIO4101I          INTFTYPE: IPAQENET6  INTFSTATUS: READY\n  PORTNAME: QDIO4101  DATAPATH: 0E2B"), "{d}");
    // IPv6: no ARP offload or broadcast lines.
    let v6_part = d.split("INTFNAME: QDIO4101I").nth(1).unwrap_or_default();
    assert!(!v6_part.contains("ARPOFFLOAD"), "{v6_part}");
    assert!(v6_part.contains("  IPADDR: 2001:db8::1/64\n"), "{v6_part}");
}

#[test]
fn cli_arguments_set_clock_code_level_and_format() {
    use clap::Parser;
    #[derive(Parser)]
    struct Top {
        #[command(flatten)]
        args: softosa_display::cli::DisplayArgs,
    }
    let e = one_frame_engine();
    let top = Top::try_parse_from([
        "softosa",
        "trle",
        "--intf",
        "QDIO4101L",
        "--code-level",
        "abcd",
    ])
    .unwrap_or_else(|err| panic!("{err}"));
    let out = softosa_display::cli::render_args(&top.args, &e, &DisplayContext::default())
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(out.contains("OSA CODE LEVEL = ABCD"), "{out}");
    let top = Top::try_parse_from([
        "softosa",
        "VTAM",
        "--clock",
        "1263400808",
        "--format",
        "json",
    ])
    .unwrap_or_else(|err| panic!("{err}"));
    let out = softosa_display::cli::render_args(&top.args, &e, &DisplayContext::default())
        .unwrap_or_else(|err| panic!("{err}"));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(v["devices"][0]["date"], "10013");
    assert_eq!(v["devices"][0]["time"], "16400800");
}

#[test]
fn link_defined_interfaces_show_device_and_link_lines() {
    let mut l = InterfaceConfig::new("QDIO4101L", 0, 0);
    l.defined_by = softosa_engine::config::DefinedBy::Link;
    l.addresses = vec![net("172.16.1.1", 24)];
    let e = engine(system(vec![l]));
    let d = text(DisplayKind::Devlinks, &e, None);
    assert!(d.contains("DEVNAME: QDIO4101           DEVTYPE: MPCIPA\n  DEVSTATUS: READY\nLNKNAME: QDIO4101L          LNKTYPE: IPAQENET   LNKSTATUS: READY\n"), "{d}");
    assert!(d.contains("  LINK STATISTICS:\n"), "{d}");
    assert!(!d.contains("INTFNAME"), "{d}");
}

#[test]
fn osainfo_lists_addresses_registered_while_running() {
    let mut e = streamed_engine();
    let before = text(DisplayKind::OsaInfo, &e, Some("QDIO4101L"));
    assert!(!before.contains("172.16.1.99"), "{before}");
    e.register_address(IfaceId(0), "172.16.1.99".parse().unwrap());
    let t = text(DisplayKind::OsaInfo, &e, Some("QDIO4101L"));
    assert!(t.contains("ARP: Yes  Addr: 172.16.1.99"), "{t}");
}

/// Without VMAC the interface registers the stack's VIPAs too: ARP for the
/// one in its subnet, not for the other.
#[test]
fn osainfo_lists_the_stacks_vipas_on_an_interface_without_vmac() {
    let mut l = InterfaceConfig::new("QDIO4101L", 0, 0);
    l.addresses = vec![net("172.16.1.1", 24)];
    let mut cfg = system(vec![l.clone()]);
    cfg.stacks[0].vipas = vec!["172.16.1.77".parse().unwrap(), "10.9.9.9".parse().unwrap()];
    let t = text(
        DisplayKind::OsaInfo,
        &engine(cfg.clone()),
        Some("QDIO4101L"),
    );
    assert!(
        t.contains(
            "    ARP: No   Addr: 10.9.9.9\n    ARP: Yes  Addr: 172.16.1.1\n    \
             ARP: Yes  Addr: 172.16.1.77\n    Total number of IPv4 addresses:      3\n"
        ),
        "{t}"
    );
    // With VMAC ROUTEALL the VMAC takes them: only its own is registered.
    cfg.interfaces[0].vmac = Some(Default::default());
    let t = text(DisplayKind::OsaInfo, &engine(cfg), Some("QDIO4101L"));
    assert!(!t.contains("10.9.9.9"), "{t}");
    assert!(
        t.contains("Total number of IPv4 addresses:      1\n"),
        "{t}"
    );
}

/// Two stacks sharing port QDIO4101 (each with its own VMAC), the first
/// with two interfaces on it.
fn shared_port_engine() -> Engine {
    let mut cfg = system(vec![]);
    cfg.stacks.push(StackConfig::new("TCPCS2"));
    let mut a1 = iwq_iface("A1", 0, 0, "172.16.1.1");
    a1.vlan = Some(10);
    let mut a2 = iwq_iface("A2", 0, 0, "172.16.2.1");
    a2.vlan = Some(20);
    let b = iwq_iface("B1", 1, 0, "172.16.1.2");
    cfg.interfaces = vec![a1, a2, b];
    engine(cfg)
}

#[test]
fn stacks_sharing_a_port_get_a_data_device_each() {
    let e = shared_port_engine();
    let shared = |datapath: Vec<u16>| DisplayContext {
        trles: vec![TrleInfo {
            name: "QDIO101".into(),
            portname: "QDIO4101".into(),
            portnum: 0,
            read: 0x3300,
            write: 0x3301,
            datapath,
            stack: None,
        }],
        ..Default::default()
    };
    let ctx = shared(vec![0x3302, 0x3303, 0x3304, 0x3305]);
    let dev = |ctx: &DisplayContext, name: &str| {
        let v = json_in(ctx, DisplayKind::Devlinks, &e, Some(name));
        v["stacks"][0]["interfaces"][0]["datapath"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        [dev(&ctx, "A1"), dev(&ctx, "A2"), dev(&ctx, "B1")],
        ["3302", "3303", "3304"]
    );
    // D NET,TRL shows the shared TRLE once, each device with its stack.
    let t = render(DisplayKind::Trle, &e, &ctx, None, Format::Text)
        .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(
        t.matches("IST075I NAME = QDIO101, TYPE = TRLE").count(),
        1,
        "{t}"
    );
    for (dev, ulpid) in [("3302", "TCPCS1"), ("3303", "TCPCS1"), ("3304", "TCPCS2")] {
        assert!(
            t.contains(&format!(
                "IST1221I DATA  DEV = {dev} STATUS = ACTIVE        STATE = N/A\nIST1717I ULPID = {ulpid}\n"
            )),
            "{dev} {ulpid}: {t}"
        );
    }
    assert!(
        t.contains("IST1221I DATA  DEV = 3305 STATUS = RESET         STATE = N/A\nIST314I END"),
        "{t}"
    );
    // The JSON names both stacks, as a list.
    let v = json_in(&ctx, DisplayKind::Trle, &e, None);
    assert_eq!(
        v["trles"][0]["stacks"],
        serde_json::json!(["TCPCS1", "TCPCS2"]),
        "{v}"
    );
    // Either stack's name, or an interface of it, finds the shared TRLE.
    for target in ["TCPCS2/QDIO101", "B1", "TCPCS1/A2"] {
        let by = render(DisplayKind::Trle, &e, &ctx, Some(target), Format::Text)
            .unwrap_or_else(|err| panic!("{target}: {err}"));
        assert_eq!(by, t, "{target}");
    }
    // Without a TRLE the made-up numbers do not collide either.
    let none = DisplayContext::default();
    assert_eq!(
        [dev(&none, "A1"), dev(&none, "A2"), dev(&none, "B1")],
        ["2902", "2903", "2904"]
    );
    // A TRLE tied to one stack serves that stack only: TCPCS2 has its own
    // (another LPAR's VTAM), and ranks are counted per TRLE.
    let mut per_stack = shared(vec![0x3302, 0x3303]);
    per_stack.trles[0].stack = Some("TCPCS1".into());
    per_stack.trles.push(TrleInfo {
        name: "QDIO201".into(),
        portname: "QDIO4101".into(),
        portnum: 0,
        read: 0x4300,
        write: 0x4301,
        datapath: vec![0x4302],
        stack: Some("TCPCS2".into()),
    });
    assert_eq!(
        [
            dev(&per_stack, "A1"),
            dev(&per_stack, "A2"),
            dev(&per_stack, "B1")
        ],
        ["3302", "3303", "4302"]
    );
}

/// OSAINFO's MAX= cuts each interface's report short and says so in its
/// "n of m Lines Displayed"; `*` shows all; other displays refuse it.
#[test]
fn osainfo_max_limits_the_lines_of_each_report() {
    use clap::Parser;
    #[derive(Parser)]
    struct Top {
        #[command(flatten)]
        args: softosa_display::cli::DisplayArgs,
    }
    let mut i = InterfaceConfig::new("QDIO4101L", 0, 0);
    i.addresses = vec![net("172.16.1.1", 24)];
    let mut cfg = system(vec![i]);
    // 300 VIPAs, each a registered address line: 300 + the rest.
    cfg.stacks[0].vipas = (0..300u32)
        .map(|n| std::net::IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0001 + (n << 8))))
        .collect();
    let e = engine(cfg);
    let every = DisplayContext {
        osainfo_max: None,
        ..DisplayContext::default()
    };
    let all = render(DisplayKind::OsaInfo, &e, &every, None, Format::Text)
        .unwrap_or_else(|err| panic!("{err}"));
    let body = all.lines().count() - 3; // header, n of m, End of report
    assert!(body > 300, "{all}");
    assert!(
        all.contains(&format!("{body} of {body} Lines Displayed\n")),
        "{all}"
    );
    let ask = |argv: &[&str]| {
        // The clock of `text`'s default context, so the headers agree.
        let argv = ["softosa", "--clock", "946684800"]
            .iter()
            .chain(argv)
            .copied();
        let top = Top::try_parse_from(argv).unwrap_or_else(|err| panic!("{err}"));
        softosa_display::cli::render_args(&top.args, &e, &DisplayContext::default())
    };
    // z/OS's default MAX is 200, the library's default too.
    let out = ask(&["osainfo"]).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(out.lines().count(), 200 + 3, "{out}");
    assert_eq!(out, text(DisplayKind::OsaInfo, &e, None));
    assert!(
        out.contains(&format!("200 of {body} Lines Displayed\n")),
        "{out}"
    );
    // The lines shown are the report's first ones, in order.
    let first: Vec<&str> = all.lines().take(1 + 200).collect();
    let shown: Vec<&str> = out.lines().take(1 + 200).collect();
    assert_eq!(first, shown);
    let out = ask(&["osainfo", "--max", "7"]).unwrap_or_else(|err| panic!("{err}"));
    assert!(
        out.contains(&format!("\n7 of {body} Lines Displayed\n")),
        "{out}"
    );
    let out = ask(&["osainfo", "--max", "*"]).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(out, all);
    // JSON lists every address whatever MAX says.
    let out =
        ask(&["osainfo", "--max", "7", "--format", "json"]).unwrap_or_else(|err| panic!("{err}"));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(
        v["interfaces"][0]["unicast"].as_array().map(Vec::len),
        Some(301)
    );
    let err = ask(&["devlinks", "--max", "7"]).expect_err("devlinks has no MAX");
    assert!(err.is_usage(), "{err}");
    assert!(err.to_string().contains("osainfo only"), "{err}");
    for bad in ["0", "65534", "-1", "all", ""] {
        let e = Top::try_parse_from(["softosa", "osainfo", &format!("--max={bad}")])
            .err()
            .unwrap_or_else(|| panic!("--max={bad} was taken"));
        assert!(e.to_string().contains("not a number of lines"), "{e}");
    }
}

/// MAX=* still stops at z/OS's 65533 lines, and says the report was cut.
#[test]
fn osainfo_never_shows_more_than_z_os_limit() {
    use softosa_display::context::OSAINFO_LINE_LIMIT;
    use softosa_display::osainfo::{build, RegisteredAddr};
    use softosa_display::Report as _;
    let mut i = InterfaceConfig::new("QDIO4101L", 0, 0);
    i.addresses = vec![net("172.16.1.1", 24)];
    let e = engine(system(vec![i]));
    let mut report = build(&e, &DisplayContext::default(), None).expect("osainfo builds");
    report.max_lines = None;
    let limit = OSAINFO_LINE_LIMIT as usize;
    report.interfaces[0]
        .unicast
        .extend((0..limit).map(|n| RegisteredAddr {
            addr: format!("10.{}.{}.1", n / 256 % 256, n % 256),
            arp: Some(false),
        }));
    let out = report.to_text();
    let n = out.lines().count();
    // header + the limit + the truncation line + n of m + End of report.
    assert_eq!(n, limit + 4);
    let tail: Vec<&str> = out.lines().skip(n - 3).collect();
    assert_eq!(
        tail[0],
        "Report truncated due to greater than 65533 lines of output"
    );
    assert!(tail[1].starts_with("65533 of "), "{tail:?}");
    let total: usize = tail[1]
        .split_whitespace()
        .nth(2)
        .and_then(|t| t.parse().ok())
        .expect("a line count");
    assert!(total > limit, "{tail:?}");
    // MAX=65533 cuts at the same place and says so the same way.
    report.max_lines = Some(OSAINFO_LINE_LIMIT);
    assert_eq!(report.to_text(), out);
    // With a MAX below the limit no truncation line is added.
    report.max_lines = Some(10);
    let out = report.to_text();
    assert!(!out.contains("Report truncated"), "{out}");
    assert!(
        out.contains(&format!("10 of {total} Lines Displayed")),
        "{out}"
    );
}
