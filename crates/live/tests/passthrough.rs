//! Live plumbing without the engine: veth wire, AF_PACKET, multi-queue TAP
//! with the virtio-net header, the passthrough core. Needs root and network
//! namespaces; skips with a printed reason otherwise.

use std::time::Duration;

use softosa_live::dataplane::{HostQueue, Plane, PlaneConfig};
use softosa_live::passthrough::Passthrough;
use softosa_live::sys::{self, TunKind};
use softosa_live::topo::{Names, StackSpec, TopoSpec, Topology};
use softosa_live::vnet::Framing;
use softosa_live::workload;

/// The two tests build namespaces one at a time: iproute2's first
/// `ip netns add` on a fresh machine sets up /run/netns, and two at once
/// can lose one of the namespaces.
static NETNS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn netns_lock() -> std::sync::MutexGuard<'static, ()> {
    NETNS.lock().unwrap_or_else(|e| e.into_inner())
}

fn can_run() -> Result<(), String> {
    if !sys::is_root() {
        return Err("not root".into());
    }
    for t in ["ip", "iperf3"] {
        if std::process::Command::new("which")
            .arg(t)
            .output()
            .map(|o| !o.status.success())
            .unwrap_or(true)
        {
            return Err(format!("{t} not installed"));
        }
    }
    let ok = std::process::Command::new("unshare")
        .args(["-n", "true"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        return Err("cannot create network namespaces".into());
    }
    Ok(())
}

#[test]
fn frames_cross_the_passthrough_plumbing() {
    if let Err(why) = can_run() {
        eprintln!("SKIP frames_cross_the_passthrough_plumbing: {why}");
        return;
    }
    let tag = format!("{}_p", softosa_live::topo::tag_for(std::process::id()));
    let mac = [0x02, 0x00, 0x00, 0x5e, 0x00, 0x10];
    let spec = TopoSpec {
        kind: TunKind::Tap,
        stacks: vec![StackSpec {
            addr4: "192.0.2.10".into(),
            mac: Some(mac),
            queues: 2,
            tcp: None,
        }],
        prefix: 24,
        client4: "192.0.2.1".into(),
        mtu: 1500,
        reference: false,
    };
    let _g = netns_lock();
    let mut topo = Topology::build(Names::new(&tag), &spec).expect("topology");
    let wire_if = topo.wire_if.clone();
    let wire = sys::in_netns(&topo.osa_ns, move || sys::open_packet_socket(&wire_if))
        .expect("packet socket");
    let hosts: Vec<HostQueue> = topo.hosts[0]
        .queues
        .drain(..)
        .enumerate()
        .map(|(q, fd)| HostQueue {
            iface: 0,
            queue: q,
            fd,
        })
        .collect();
    let plane = Plane::start(
        Passthrough::new(vec![mac]),
        PlaneConfig {
            wire,
            hosts,
            host_framing: Framing::Ethernet,
            mtu: 1500,
            fault_rate: 0.0,
            fault_seed: 1,
            busy_poll: Duration::ZERO,
            wake_qos: None,
            per_cpu_wires: Vec::new(),
            wire_bps: 0,
            realtime_prio: 0,
            nice: 0,
            cpus: Vec::new(),
            timer_thread: false,
        },
    )
    .expect("plane");
    let h = topo.hosts[0].ns.clone();
    let srv = workload::iperf3_server(&h, "192.0.2.10", 5301).expect("server");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        workload::wait_listening(&[(&srv, "iperf3", 5301)], Duration::from_secs(10)),
        "iperf3 server not listening"
    );
    let cli = workload::iperf3_client(&topo.client_ns, "192.0.2.10", 5301, 2.0, 2, false)
        .expect("client");
    let (ok, out, err) = cli.wait_output(Duration::from_secs(20)).expect("iperf3");
    drop(srv);
    assert!(ok, "iperf3 failed: {err}");
    let bps = workload::parse_iperf3(&out).expect("iperf3 report");
    let st = plane.stats();
    use softosa_live::dataplane::DriverStats as S;
    eprintln!(
        "passthrough iperf3: {:.2} Gbit/s; wire rx {} frames in {} batches, host tx {} frames in {} batches, host rx {}, wire tx {}",
        bps / 1e9,
        S::get(&st.wire_rx_frames),
        S::get(&st.wire_rx_batches),
        S::get(&st.host_tx_frames),
        S::get(&st.host_tx_batches),
        S::get(&st.host_rx_frames),
        S::get(&st.wire_tx_frames),
    );
    assert!(bps > 1e8);
    let core = plane.stop();
    assert_eq!(core.frames_in, core.presented + core.dropped);
    topo.teardown();
    assert!(!std::path::Path::new(&format!("/run/netns/{}", topo.client_ns)).exists());
}

/// A stack namespace built with a profile's TCPCONFIG has the Linux TCP
/// settings that stand for it, and NODELAYACKS marks its subnet's route
/// quickack; the namespaces are gone afterwards.
#[test]
fn a_stack_namespace_takes_the_profiles_tcp_settings() {
    use softosa_engine::config::{AckDelay, TcpSettings};
    if let Err(why) = can_run() {
        eprintln!("SKIP a_stack_namespace_takes_the_profiles_tcp_settings: {why}");
        return;
    }
    let tag = format!("{}_t", softosa_live::topo::tag_for(std::process::id()));
    let spec = TopoSpec {
        kind: TunKind::Tun,
        stacks: vec![StackSpec {
            addr4: "192.0.2.10".into(),
            mac: None,
            queues: 1,
            tcp: Some(TcpSettings {
                rcv_buf: 32 * 1024,
                send_buf: 128 * 1024,
                frr_threshold: 6,
                delay_acks: AckDelay::NoDelay,
                ..TcpSettings::default()
            }),
        }],
        prefix: 24,
        client4: "192.0.2.1".into(),
        mtu: 1500,
        reference: false,
    };
    let _g = netns_lock();
    let topo = Topology::build(Names::new(&tag), &spec).expect("topology");
    let ns = topo.hosts[0].ns.clone();
    let read = |args: &[&str]| {
        let out = std::process::Command::new("ip")
            .args(["netns", "exec", &ns])
            .args(args)
            .output()
            .expect("ip netns exec");
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(
        read(&["sysctl", "-n", "net.ipv4.tcp_rmem"]),
        "4096 32768 262144"
    );
    assert_eq!(
        read(&["sysctl", "-n", "net.ipv4.tcp_wmem"]),
        "4096 131072 262144"
    );
    assert_eq!(read(&["sysctl", "-n", "net.ipv4.tcp_moderate_rcvbuf"]), "0");
    assert_eq!(read(&["sysctl", "-n", "net.ipv4.tcp_reordering"]), "6");
    let route = read(&["ip", "route", "show", "192.0.2.0/24"]);
    assert!(route.contains("quickack 1"), "{route}");
    // The client namespace keeps Linux's own settings.
    let client = std::process::Command::new("ip")
        .args([
            "netns",
            "exec",
            &topo.client_ns,
            "sysctl",
            "-n",
            "net.ipv4.tcp_moderate_rcvbuf",
        ])
        .output()
        .expect("ip netns exec");
    assert_eq!(String::from_utf8_lossy(&client.stdout).trim(), "1");
    let made = topo.namespaces().to_vec();
    drop(topo);
    let left: Vec<String> = std::fs::read_dir("/run/netns")
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(made.iter().all(|n| !left.contains(n)), "{left:?}");
}
