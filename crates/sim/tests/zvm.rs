//! z/VM guests on a VSWITCH (spec 7.1): CP moves every frame between a
//! guest's virtual NIC and the uplink, and in IP mode also does the link
//! layer for it, so Ethernet mode costs CP less per frame; the report
//! splits a guest's CPU into its own and CP's.

mod common;
use common::{host, refusal, run_text};
use std::path::PathBuf;

fn example() -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/zvm-vswitch.toml");
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn ethernet_mode_saves_cp_time_per_frame() {
    let runs = run_text(&example());
    let (ip, eth) = (&runs[0].1, &runs[1].1);
    assert_eq!(
        (runs[0].0.as_str(), runs[1].0.as_str()),
        ("IP mode", "Ethernet mode")
    );
    for name in ["rr-client", "rr-server", "str-client", "str-server"] {
        let (a, b) = (host(ip, name), host(eth, name));
        let frames = |h: &softosa_sim::report::HostResult| h.link_in.frames + h.link_out.frames;
        // CP's time per frame through the VSWITCH: 3 us in either mode,
        // 1 us more in IP mode ([models.peer.zvm]).
        let per =
            |h: &softosa_sim::report::HostResult| h.tcp.vswitch_cp_ns as f64 / frames(h) as f64;
        assert!(
            (per(a) - 4000.0).abs() < 200.0,
            "{name}: IP mode {} ns a frame",
            per(a)
        );
        assert!(
            (per(b) - 3000.0).abs() < 200.0,
            "{name}: Ethernet mode {} ns a frame",
            per(b)
        );
    }
    // Ethernet mode is never worse: RR10 (the stacks' CPU bounds it) does
    // more for less CPU; the stream fills the 1 GbE link either way.
    let (r_ip, r_eth) = (&ip.workloads[0], &eth.workloads[0]);
    assert!(r_eth.transactions_per_s > r_ip.transactions_per_s);
    assert!(r_eth.cpu_us_per_txn_server < r_ip.cpu_us_per_txn_server);
    let (s_ip, s_eth) = (&ip.workloads[1], &eth.workloads[1]);
    assert!((s_eth.mb_per_s / s_ip.mb_per_s - 1.0).abs() < 0.01);
    assert!(s_eth.cpu_ms_per_mb_server < s_ip.cpu_ms_per_mb_server);
    let text = ip.to_text();
    assert!(
        text.contains("z/VM: VNIC type QDIO, L 3 (IP mode)"),
        "{text}"
    );
    assert!(text.contains("CP for the VSWITCH"), "{text}");
    assert!(eth.to_text().contains("L 2 (Ethernet mode)"));
    assert_eq!(host(eth, "rr-client").vnic_layer, Some(2));
}

#[test]
fn a_host_with_its_own_nic_pays_no_cp_time() {
    let text = example().replace("vswitch = \"ip\"\n", "");
    let text = text.split("\n[vary]").next().unwrap().to_string();
    let runs = run_text(&text);
    let r = &runs[0].1;
    assert!(r.hosts.iter().all(|h| h.tcp.vswitch_cp_ns == 0));
    assert!(!r.to_text().contains("z/VM:"));
}

#[test]
fn a_vswitch_only_for_a_guest_on_ethernet_and_only_in_two_modes() {
    let err = |text: String| refusal(&text);
    let zos = "[[host]]\nname = \"z\"\ntype = \"zos\"\nip = \"192.0.2.9\"\n";
    let wl = "[[workload]]\ntype = \"RR\"\nconnections = 1\nrequest = 1\nresponse = 1\nclient = \"g\"\nserver = \"z\"\n";
    let guest = |extra: &str| {
        format!("[[host]]\nname = \"g\"\ntype = \"zvm\"\nip = \"192.0.2.8\"\n{extra}\n")
    };
    let e = err(format!("{zos}vswitch = \"ip\"\n{}{wl}", guest("")));
    assert!(e.contains("vswitch: a z/VM guest's virtual NIC"), "{e}");
    let e = err(format!("{zos}{}{wl}", guest("vswitch = \"layer4\"")));
    assert!(e.contains("vswitch \"layer4\": use ip"), "{e}");
    let hs = format!(
        "[[host]]\nname = \"z\"\ntype = \"zos\"\nip = \"192.0.2.9\"\nlink = \"hipersockets\"\n{}{wl}",
        guest("vswitch = \"ethernet\"\nlink = \"hipersockets\"")
    );
    let e = err(hs);
    assert!(e.contains("not HiperSockets"), "{e}");
}
