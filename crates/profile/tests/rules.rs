//! One test per spec 5.1 rule (and the syntax rules): each checks the
//! diagnostic kind and where it points (line:column).

use softosa_profile::validate::{validate_profile, validate_system};
use softosa_profile::*;

/// Parse + validate one profile; diagnostics as `LINE:COL: severity: message`.
fn check(src: &str) -> (Profile, Vec<String>, Diagnostics) {
    let (p, mut d) = parse_profile("t.prof", src);
    validate_profile(&p, &mut d);
    d.sort();
    let v = d
        .items()
        .iter()
        .map(|x| {
            format!(
                "{}:{}: {}: {}",
                x.span.line,
                x.span.col,
                x.severity(),
                x.message()
            )
        })
        .collect();
    (p, v, d)
}

fn has(v: &[String], prefix: &str, needle: &str) -> bool {
    v.iter()
        .any(|s| s.starts_with(prefix) && s.contains(needle))
}

/// The cross-stack checks of `stacks` with `trls`.
fn system(stacks: &[(String, &Profile)], trls: &[&TrlFile]) -> Diagnostics {
    let mut d = Diagnostics::new();
    validate_system(stacks, trls, &mut d);
    d
}

/// Each diagnostic as `FILE:LINE:COL: severity: message`.
fn lines(d: &Diagnostics) -> Vec<String> {
    d.items().iter().map(|x| x.to_string()).collect()
}

const GOOD: &str = "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n";

#[test]
fn good_interface_is_clean() {
    let (p, v, _) = check(GOOD);
    assert!(v.is_empty(), "{v:?}");
    let i = &p.interfaces[0];
    assert_eq!(i.name, "A");
    assert_eq!(i.kind, InterfaceKind::IpaqEnet);
    assert_eq!(i.ipaddr[0].value.to_string(), "192.0.2.1/24");
    assert_eq!(i.effective_inbperf(), InbPerf::Balanced);
}

#[test]
fn workloadq_needs_dynamic() {
    let src = "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 VMAC\n  INBPERF BALANCED WORKLOADQ\n";
    let (_, v, d) = check(src);
    assert!(
        has(&v, "2:20: error", "WORKLOADQ requires INBPERF DYNAMIC"),
        "{v:?}"
    );
    assert!(d
        .errors()
        .any(|e| matches!(e.error(), Some(ErrorKind::WorkloadqNeedsDynamic(n)) if n == "A")));
    // With DYNAMIC it is accepted.
    let ok = "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 VMAC INBPERF DYNAMIC WORKLOADQ\n";
    let (p, v, _) = check(ok);
    assert!(v.is_empty(), "{v:?}");
    assert!(p.interfaces[0].workloadq_on());
}

#[test]
fn workloadq_needs_vmac() {
    let src = "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n  INBPERF DYNAMIC WORKLOADQ\n";
    let (p, v, _) = check(src);
    assert!(has(&v, "2:19: error", "WORKLOADQ requires a VMAC"), "{v:?}");
    assert!(!p.interfaces[0].workloadq_on());
}

#[test]
fn workloadq_not_on_link() {
    let src =
        "DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1 INBPERF DYNAMIC WORKLOADQ\nHOME 192.0.2.1 L1\n";
    let (_, v, d) = check(src);
    assert!(
        has(
            &v,
            "2:37: error",
            "only supported on the INTERFACE statement"
        ),
        "{v:?}"
    );
    assert!(d
        .errors()
        .any(|e| matches!(e.error(), Some(ErrorKind::WorkloadqOnLink(_)))));
}

#[test]
fn olm_not_on_link_and_forces_dynamic() {
    let (_, v, _) = check("DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1 OLM\n");
    assert!(
        has(&v, "2:21: error", "OLM is only supported on the INTERFACE"),
        "{v:?}"
    );

    let src = "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n  INBPERF MINCPU OLM\n";
    let (p, v, d) = check(src);
    assert!(
        has(
            &v,
            "2:11: warning",
            "OLM forces INBPERF DYNAMIC; the INBPERF MINCPU"
        ),
        "{v:?}"
    );
    assert!(!d.has_errors());
    assert_eq!(p.interfaces[0].effective_inbperf(), InbPerf::Dynamic);
    // OLM without any INBPERF: no warning, still DYNAMIC.
    let (p, v, _) = check("INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 OLM\n");
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(p.interfaces[0].effective_inbperf(), InbPerf::Dynamic);
}

#[test]
fn router_ignored_with_vmac() {
    let src = "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n  VMAC PRIROUTER\n";
    let (p, v, d) = check(src);
    assert!(
        has(
            &v,
            "2:8: warning",
            "PRIROUTER is ignored because VMAC is coded"
        ),
        "{v:?}"
    );
    assert!(!d.has_errors());
    assert_eq!(p.interfaces[0].effective_router(), RouterRole::NonRouter);
    // Same on DEVICE/LINK.
    let (_, v, _) = check("DEVICE D1 MPCIPA SECROUTER\nLINK L1 IPAQENET D1 VMAC\n");
    assert!(has(&v, "1:18: warning", "SECROUTER is ignored"), "{v:?}");
    // Without VMAC the role stands.
    let (p, v, _) =
        check("INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 SECROUTER\n");
    assert!(v.is_empty());
    assert_eq!(p.interfaces[0].effective_router(), RouterRole::SecRouter);
}

#[test]
fn user_vmac_must_be_local_and_12_hex_digits() {
    let (p, v, _) = check(
        "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 VMAC 020000000001 ROUTELCL\n",
    );
    assert!(v.is_empty(), "{v:?}");
    let vm = p.interfaces[0].vmac.clone().expect("vmac");
    assert_eq!(vm.mac, Some([2, 0, 0, 0, 0, 1]));
    assert_eq!(vm.route, VmacRoute::Local);

    let (_, v, _) =
        check("INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n VMAC 000000000001\n");
    assert!(has(&v, "2:2: error", "locally administered bit"), "{v:?}");
    let (_, v, _) =
        check("INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n VMAC 03000000000\n");
    assert!(
        has(&v, "2:7: error", "exactly 12 hexadecimal digits"),
        "{v:?}"
    );
    let (_, v, _) =
        check("INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n VMAC 030000000001\n");
    assert!(has(&v, "2:2: error", "multicast"), "{v:?}");
}

#[test]
fn readstorage_maps_to_sbals() {
    assert_eq!(ReadStorage::Max.osa_sbals(ReadStorage::Max), 64);
    assert_eq!(ReadStorage::Avg.osa_sbals(ReadStorage::Max), 32);
    assert_eq!(ReadStorage::Min.osa_sbals(ReadStorage::Max), 16);
    // GLOBAL = the system default: MAX unless QDIOSTG says otherwise.
    assert_eq!(ReadStorage::Global.osa_sbals(ReadStorage::Global), 64);
    assert_eq!(ReadStorage::Global.osa_sbals(ReadStorage::Min), 16);
    assert_eq!(ReadStorage::Global.iqd_sbals(ReadStorage::Global), 126);
    let (p, v, _) =
        check("INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 READSTOR AVG\n");
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        has(
            &v,
            "1:61: error",
            "READSTOR is too short an abbreviation of READSTORAGE"
        ),
        "{v:?}"
    );
    let _ = p;
    let (p, v, _) =
        check("INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 READSTORAGE MIN\n");
    assert!(v.is_empty());
    assert_eq!(p.interfaces[0].readstorage_value(), ReadStorage::Min);
}

fn olm_stack(name: &str, port: &str, olm: bool, n: u8) -> Profile {
    let src = format!(
        "INTERFACE {name} DEFINE IPAQENET IPADDR 192.0.2.{n}/24 PORTNAME {port}{}\n",
        if olm { " OLM" } else { "" }
    );
    let (mut p, d) = parse_profile(&format!("{name}.prof"), &src);
    assert!(!d.has_errors());
    p.file = format!("{name}.prof");
    p
}

#[test]
fn olm_port_limit_refuses_the_fifth() {
    let profs: Vec<Profile> = (1..=5)
        .map(|i| olm_stack(&format!("S{i}"), "P1", i == 1, i))
        .collect();
    let stacks: Vec<(String, &Profile)> = profs
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("T{i}"), p))
        .collect();
    let d = system(&stacks, &[]);
    let errs: Vec<&Diagnostic> = d.errors().collect();
    assert_eq!(errs.len(), 1, "{:?}", d.items());
    assert_eq!(errs[0].file, "S5.prof");
    assert_eq!((errs[0].span.line, errs[0].span.col), (1, 11));
    assert!(matches!(errs[0].error(), Some(ErrorKind::OlmPortLimit { intf, .. }) if intf == "S5"));
    // Four are fine; five without OLM are fine.
    let d = system(&stacks[..4], &[]);
    assert!(!d.has_errors());
    let no_olm: Vec<Profile> = (1..=5)
        .map(|i| olm_stack(&format!("S{i}"), "P1", false, i))
        .collect();
    let stacks: Vec<(String, &Profile)> = no_olm.iter().map(|p| ("X".to_string(), p)).collect();
    let d = system(&stacks, &[]);
    assert!(!d.has_errors());
}

/// The cross-stack checks of stacks S1 to S9, each with one interface on
/// the port `port_of` its number gives, S2 with OLM, against TRLEs T1, T2
/// and T3 for ports PA, PB and PC, all on CHPID 2E, each with one
/// DATAPATH device.
fn nine_stacks_on_chpid_2e(port_of: impl Fn(u8) -> &'static str) -> Diagnostics {
    let trl = "T1 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(100),WRITE=(101),DATAPATH=(102),PORTNAME=(PA,0),CHPID=2E\n\
               T2 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(200),WRITE=(201),DATAPATH=(202),PORTNAME=(PB,1),CHPID=2E\n\
               T3 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(300),WRITE=(301),DATAPATH=(302),PORTNAME=(PC,0),CHPID=2E\n";
    let (t, td) = softosa_profile::trle::parse_trl("x.trl", trl);
    assert!(!td.has_errors(), "{:?}", td.items());
    let profs: Vec<Profile> = (1..=9u8)
        .map(|i| olm_stack(&format!("S{i}"), port_of(i), i == 2, i))
        .collect();
    let stacks: Vec<(String, &Profile)> = profs.iter().map(|p| (p.file.clone(), p)).collect();
    system(&stacks, &[&t])
}

#[test]
fn olm_chpid_limit_refuses_the_ninth() {
    // Two ports on CHPID 2E (per the TRLEs), 4 + 5 interfaces, one with OLM
    // on port B... port B alone would refuse its 5th, so spread 4 + 4 + 1
    // over three ports of the same CHPID.
    let d = nine_stacks_on_chpid_2e(|i| match i {
        1..=4 => "PA",
        5..=8 => "PB",
        _ => "PC",
    });
    let errs: Vec<&Diagnostic> = d.errors().collect();
    assert_eq!(errs.len(), 1, "{:?}", d.items());
    assert!(
        matches!(errs[0].error(), Some(ErrorKind::OlmChpidLimit { intf, chpid: 0x2E, .. }) if intf == "S9")
    );
    assert!(errs[0].to_string().contains("CHPID 2E"));
}

/// TRLEs are found by PORTNAME in any case: the PORTNAME check, the
/// CHPID of the OLM limit and the DATAPATH count all find them.
#[test]
fn trles_are_found_by_portname_in_any_case() {
    let d = nine_stacks_on_chpid_2e(|i| match i {
        1..=2 => "pa",
        3..=4 => "Pa",
        5..=8 => "pB",
        _ => "pc",
    });
    let errs: Vec<&Diagnostic> = d.errors().collect();
    assert_eq!(errs.len(), 1, "{:?}", d.items());
    assert!(
        matches!(errs[0].error(), Some(ErrorKind::OlmChpidLimit { intf, chpid: 0x2E, .. }) if intf == "S9")
    );
    let warnings: Vec<String> = d.warnings().map(|w| w.message()).collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0]
            .starts_with("TRLE T1 has DATAPATH devices for 1 of the 4 interfaces on port PA")
            && warnings[0].contains(
                "without one: S2 of stack S2.prof, S3 of stack S3.prof, S4 of stack S4.prof."
            ),
        "{warnings:?}"
    );
    assert!(
        warnings[1]
            .starts_with("TRLE T2 has DATAPATH devices for 1 of the 4 interfaces on port PB"),
        "{warnings:?}"
    );
}

#[test]
fn iqdiorouting_refused_with_accelerator() {
    let (_, v, _) = check("IPCONFIG QDIOACCELERATOR\nIPCONFIG IQDIOROUTING\n");
    assert!(
        has(
            &v,
            "2:10: error",
            "IQDIOROUTING cannot be enabled while QDIOACCELERATOR"
        ),
        "{v:?}"
    );
    let (_, v, _) = check("IPCONFIG IQDIOROUTING QDIOPRIORITY 2\n");
    assert!(v.is_empty(), "{v:?}");
}

#[test]
fn ziip_without_multiwrite_warns() {
    let (_, v, d) = check("GLOBALCONFIG ZIIP IQDIOMULTIWRITE\n");
    assert!(
        has(&v, "1:19: warning", "ZIIP IQDIOMULTIWRITE is ignored"),
        "{v:?}"
    );
    assert!(!d.has_errors());
    let (_, v, _) = check("GLOBALCONFIG IQDMULTIWRITE ZIIP IQDIOMULTIWRITE\n");
    assert!(v.is_empty(), "{v:?}");
}

#[test]
fn portname_must_match_a_trle() {
    let (t, _) = softosa_profile::trle::parse_trl(
        "x.trl",
        "T1 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(100),WRITE=(101),DATAPATH=(102),PORTNAME=(P1,0)\n",
    );
    let (p, _) = parse_profile(
        "t.prof",
        "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\nINTERFACE B DEFINE IPAQENET IPADDR 192.0.2.2/24\n PORTNAME P2\nDEVICE P3 MPCIPA\nLINK L3 IPAQENET P3\n",
    );
    let d = system(&[("S".into(), &p)], &[&t]);
    let v = lines(&d);
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(
        v[0].starts_with("t.prof:3:11: error: interface B: PORTNAME P2 does not match"),
        "{v:?}"
    );
    assert!(
        v[1].starts_with("t.prof:5:18: error: interface L3: PORTNAME P3"),
        "{v:?}"
    );
    // Without TRLEs nothing is checked.
    let d = system(&[("S".into(), &p)], &[]);
    assert!(!d.has_errors());
}

#[test]
fn ipaddr_prefix_required() {
    let (_, v, _) = check("INTERFACE A DEFINE IPAQENET\n  IPADDR 192.0.2.1 PORTNAME P1\n");
    assert!(
        has(&v, "2:10: error", "IPADDR 192.0.2.1 needs a prefix length"),
        "{v:?}"
    );
    let (_, v, _) = check("INTERFACE A DEFINE IPAQENET PORTNAME P1\n");
    assert!(
        has(&v, "1:11: error", "IPADDR for DEFINE IPAQENET"),
        "{v:?}"
    );
    let (_, v, _) = check("INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/33 PORTNAME P1\n");
    assert!(
        has(&v, "1:36: error", "prefix length must be 0-32"),
        "{v:?}"
    );
}

#[test]
fn vlan_range() {
    for (id, ok) in [(0, false), (1, true), (4094, true), (4095, false)] {
        let (_, v, _) = check(&format!("{} VLANID {id}\n", GOOD.trim_end()));
        assert_eq!(v.is_empty(), ok, "VLANID {id}: {v:?}");
        if !ok {
            assert!(has(&v, "1:68: error", "outside the range 1-4094"), "{v:?}");
        }
    }
}

#[test]
fn mtu_range() {
    for (m, ok) in [(575, false), (576, true), (8992, true), (8993, false)] {
        let (_, v, _) = check(&format!("{} MTU {m}\n", GOOD.trim_end()));
        assert_eq!(v.is_empty(), ok, "MTU {m}: {v:?}");
    }
    let (_, v, _) = check("INTERFACE H DEFINE IPAQIDIO IPADDR 203.0.113.1/24 CHPID FE MTU 57344\n");
    assert!(v.is_empty(), "{v:?}");
    let (_, v, _) = check("INTERFACE A6 DEFINE IPAQENET6 PORTNAME P1 MTU 1279\n");
    assert!(
        has(&v, "1:47: error", "MTU 1279 is outside the range 1280-9000"),
        "{v:?}"
    );
}

#[test]
fn duplicate_interface_names() {
    let src = "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\nINTERFACE a DEFINE IPAQENET IPADDR 192.0.2.2/24 PORTNAME P1\nDEVICE D MPCIPA\nLINK A IPAQENET D\n";
    let (_, v, _) = check(src);
    assert!(
        has(
            &v,
            "2:11: error",
            "interface a is defined more than once (first defined at line 1)"
        ),
        "{v:?}"
    );
    assert!(
        has(&v, "4:6: error", "link A is defined more than once"),
        "{v:?}"
    );
}

#[test]
fn home_unknown_link_and_home_on_interface() {
    let src = "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\nHOME 192.0.2.9 NOSUCH\n     192.0.2.1 A\n";
    let (_, v, _) = check(src);
    assert!(
        has(
            &v,
            "2:16: error",
            "HOME refers to link NOSUCH, which no LINK"
        ),
        "{v:?}"
    );
    assert!(has(&v, "3:16: error", "A, which is an INTERFACE"), "{v:?}");
}

/// A missing required parameter names the interface, as value errors do:
/// "INTERFACE: the required PORTNAME ... is missing" did not say whose.
#[test]
fn missing_required_parameters_name_the_interface() {
    let (_, v, _) = check(
        "INTERFACE O4 DEFINE IPAQENET\n\
         INTERFACE X1 DEFINE IPAQENET PORTNAME P1 IPADDR 10.1.1.1/24 CHPIDTYPE OSX\n\
         INTERFACE V1 DEFINE VIRTUAL\n",
    );
    assert_eq!(
        v,
        [
            "1:11: error: INTERFACE O4: the required IPADDR for DEFINE IPAQENET is missing",
            "1:11: error: INTERFACE O4: the required PORTNAME for DEFINE IPAQENET is missing",
            "2:11: error: INTERFACE X1: the required CHPID for CHPIDTYPE OSX is missing",
            "3:11: error: INTERFACE V1: the required IPADDR (INTERFACE VIRTUAL requires one IPv4 address) is missing",
        ]
    );
}

#[test]
fn link_unknown_device_and_start_unknown() {
    let (_, v, _) = check("LINK L1 IPAQENET NODEV\nSTART NODEV\n");
    assert!(has(&v, "1:18: error", "refers to device NODEV"), "{v:?}");
    assert!(has(&v, "2:7: error", "START NODEV"), "{v:?}");
}

#[test]
fn hipersockets_needs_chpid_and_refuses_osa_parameters() {
    let (_, v, _) = check("INTERFACE H DEFINE IPAQIDIO IPADDR 203.0.113.1/24 INBPERF DYNAMIC\n");
    assert!(has(&v, "1:11: error", "CHPID for DEFINE IPAQIDIO"), "{v:?}");
    assert!(
        has(
            &v,
            "1:51: error",
            "INBPERF is not valid for DEFINE IPAQIDIO"
        ),
        "{v:?}"
    );
}

/// An OSA parameter on a LINK IPAQIDIO is refused by name, as a LINK's;
/// the same parameters are accepted on a LINK IPAQENET.
#[test]
fn hipersockets_link_refuses_osa_parameters_by_name() {
    let src = "DEVICE IUTIQDF4 MPCIPA\nLINK L2 IPAQIDIO IUTIQDF4 INBPERF DYNAMIC ISOLATE\n  \
               NOISOLATE NOOLM\nHOME 10.1.1.1 L2\nSTART IUTIQDF4\n";
    let (_, v, _) = check(src);
    let refusal = |param: &str| {
        format!(
            "error: LINK L2: {param} is not valid on a LINK for an IPAQIDIO (HiperSockets) device; it is an OSA-Express (IPAQENET) parameter"
        )
    };
    assert_eq!(
        v,
        [
            format!("2:27: {}", refusal("INBPERF")),
            format!("2:43: {}", refusal("ISOLATE")),
            format!("3:3: {}", refusal("NOISOLATE")),
            format!("3:13: {}", refusal("NOOLM")),
        ]
    );
    let (_, v, _) = check(
        "DEVICE OSA1 MPCIPA\nLINK L1 IPAQENET OSA1 INBPERF DYNAMIC ISOLATE NOISOLATE NOOLM\n",
    );
    assert!(v.is_empty(), "{v:?}");
}

#[test]
fn vipadistribute_needs_vipadefine() {
    let src = "VIPADYNAMIC\n VIPADEFINE 255.255.255.0 201.2.10.11\n VIPADISTRIBUTE DEFINE DISTMETHOD ROUNDROBIN 201.2.10.12 PORT 21 DESTIP ALL\nENDVIPADYNAMIC\n";
    let (p, v, _) = check(src);
    assert!(
        has(&v, "3:46: error", "VIPADISTRIBUTE 201.2.10.12"),
        "{v:?}"
    );
    assert_eq!(p.vipa.defines[0].prefix, 24);
    assert_eq!(p.vipa.distributes[0].method, DistMethod::RoundRobin);
}

#[test]
fn accelerator_with_ipsecurity_is_ignored() {
    let (p, v, d) = check("IPCONFIG QDIOACCELERATOR IPSECURITY\n");
    assert!(
        has(&v, "1:10: warning", "QDIOACCELERATOR is ignored"),
        "{v:?}"
    );
    assert!(!d.has_errors());
    assert!(!p.ip.accelerator_on());
}

#[test]
fn wlmpriorityq_custom_and_duplicates() {
    let (p, v, _) = check("GLOBALCONFIG WLMPRIORITYQ IOPRI1 0 1 FWD\n");
    assert!(v.is_empty(), "{v:?}");
    let w = p.global.wlmpriorityq.expect("wlm");
    assert_eq!(w.queue_for_value, [1, 1, 3, 3, 4, 4, 4]);
    assert_eq!(w.fwd_queue, 1);
    let (_, v, _) = check("GLOBALCONFIG WLMPRIORITYQ IOPRI1 0 IOPRI2 0\n");
    assert!(
        has(
            &v,
            "1:43: error",
            "control value 0 is assigned to more than one"
        ),
        "{v:?}"
    );
    let (_, v, _) = check("GLOBALCONFIG WLMPRIORITYQ IOPRI1 7\n");
    assert!(has(&v, "1:34: error", "control values are 0-6"), "{v:?}");
    // The value is wrong, not missing: one error.
    assert_eq!(v.len(), 1, "{v:?}");
    let (_, v, _) = check("GLOBALCONFIG WLMPRIORITYQ IOPRI1 IOPRI2 1\n");
    assert!(has(&v, "1:27: error", "a value is missing"), "{v:?}");
}

#[test]
fn same_address_on_a_shared_port_is_refused() {
    let (a, _) = parse_profile(
        "a.prof",
        "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n",
    );
    let (b, _) = parse_profile(
        "b.prof",
        "DEVICE P1 MPCIPA\nLINK L IPAQENET P1\nHOME 192.0.2.1 L\n",
    );
    let d = system(&[("SA".into(), &a), ("SB".into(), &b)], &[]);
    let v = lines(&d);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].starts_with("b.prof:3:6: error: IPADDR 192.0.2.1 is the address of interface A of stack SA on the same port P1"), "{v:?}");
}

#[test]
fn missing_start_warns_only_when_start_is_used() {
    let (_, v, _) = check(GOOD);
    assert!(v.is_empty(), "{v:?}");
    let src =
        format!("{GOOD}INTERFACE B DEFINE IPAQENET IPADDR 192.0.3.1/24 PORTNAME P2\nSTART A\n");
    let (_, v, d) = check(&src);
    assert_eq!(v, vec!["2:11: warning: INTERFACE B has no START statement: z/OS would leave it inactive, softosa activates it anyway"]);
    assert!(!d.has_errors());
}

#[test]
fn one_user_vmac_per_port() {
    let (a, _) = parse_profile(
        "a.prof",
        "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 VMAC 020000000001\n",
    );
    let (b, _) = parse_profile(
        "b.prof",
        "INTERFACE B DEFINE IPAQENET IPADDR 192.0.2.2/24 PORTNAME P1\n  VMAC 020000000001\n",
    );
    let d = system(&[("SA".into(), &a), ("SB".into(), &b)], &[]);
    let v = lines(&d);
    assert_eq!(
        v,
        vec!["b.prof:2:3: error: interface B: VMAC 020000000001 is already used by interface A of stack SA on the same port P1"]
    );
    // On different ports the same VMAC is fine.
    let (c, _) = parse_profile(
        "c.prof",
        "INTERFACE C DEFINE IPAQENET IPADDR 192.0.2.3/24 PORTNAME P2 VMAC 020000000001\n",
    );
    let d = system(&[("SA".into(), &a), ("SC".into(), &c)], &[]);
    assert!(!d.has_errors());
}

#[test]
fn a_refused_required_value_is_reported_once_not_also_as_missing() {
    // Each line codes a required parameter with a bad value: one error,
    // at the value, and no "required ... is missing" for the same thing.
    let cases = [
        (
            "INTERFACE Q1 DEFINE IPAQENET PORTNAME P1 IPADDR 10.1.1.1/33\n",
            "1:49:",
            "prefix length must be 0-32",
        ),
        (
            "INTERFACE Q1 DEFINE IPAQENET PORTNAME P1 IPADDR 2001:db8::1/64\n",
            "1:49:",
            "an IPv4 address",
        ),
        (
            "INTERFACE Q1 DEFINE IPAQENET PORTNAME PORTNAME9 IPADDR 10.1.1.1/24\n",
            "1:39:",
            "1 to 8 characters",
        ),
        (
            "INTERFACE H1 DEFINE IPAQIDIO IPADDR 10.2.1.1/24 CHPID XZ\n",
            "1:55:",
            "2 hexadecimal digits",
        ),
        (
            "INTERFACE Q1 DEFINE IPAQENET PORTNAME P1 IPADDR 10.1.1.1/24 CHPIDTYPE OSX CHPID 1\n",
            "1:81:",
            "2 hexadecimal digits",
        ),
    ];
    for (src, at, what) in cases {
        let (_, v, _) = check(src);
        assert_eq!(v.len(), 1, "{src}: {v:?}");
        assert!(has(&v, at, what), "{src}: {v:?}");
    }
    // Left out altogether, they are still missing.
    let (_, v, _) = check("INTERFACE Q1 DEFINE IPAQENET PORTNAME P1\n");
    assert!(v.iter().any(|s| s.contains("required IPADDR")), "{v:?}");
}

#[test]
fn one_ipaqenet_link_per_device() {
    let src = "DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1\nLINK L2 IPAQENET d1 VLANID 5\nDEVICE D2 MPCIPA\nLINK L3 IPAQENET D2\nHOME 192.0.2.1 L1\n     192.0.2.2 L2\n     192.0.2.3 L3\n";
    let (_, v, d) = check(src);
    let errors: Vec<&Diagnostic> = d.errors().collect();
    assert_eq!(errors.len(), 1, "{v:?}");
    assert!(
        has(
            &v,
            "3:18: error",
            "LINK L2: device D1 already has the IPAQENET link L1 (line 2)"
        ),
        "{v:?}"
    );
    assert!(matches!(
        errors[0].error(),
        Some(ErrorKind::SecondLinkOnDevice { link, device, other, first_line: 2, kind: "IPAQENET", this_kind: "IPAQENET" })
            if link == "L2" && device == "D1" && other == "L1"
    ));
    // One link per device, on two devices: clean.
    let ok = "DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1\nDEVICE D2 MPCIPA\nLINK L2 IPAQENET D2\nHOME 192.0.2.1 L1\n 192.0.2.2 L2\n";
    let (_, v, _) = check(ok);
    assert!(v.is_empty(), "{v:?}");
}

#[test]
fn one_ipaqidio_link_per_hipersockets_device() {
    // With DEVICE/LINK the stack has one connection to the HiperSockets
    // CHPID: a second LINK on IUTIQDFE is refused, at its device name.
    let src = "DEVICE IUTIQDFE MPCIPA\nLINK HS1 IPAQIDIO IUTIQDFE\nLINK HS2 IPAQIDIO iutiqdfe\n\
               DEVICE IUTIQDFD MPCIPA\nLINK HS3 IPAQIDIO IUTIQDFD\n\
               HOME 10.1.1.1 HS1\n     10.1.2.1 HS2\n     10.1.3.1 HS3\n";
    let (_, v, d) = check(src);
    let errors: Vec<&Diagnostic> = d.errors().collect();
    assert_eq!(errors.len(), 1, "{v:?}");
    assert!(
        has(
            &v,
            "3:19: error",
            "LINK HS2: device IUTIQDFE already has the IPAQIDIO link HS1 (line 2); z/OS allows one LINK per MPCIPA DEVICE"
        ),
        "{v:?}"
    );
    assert!(has(&v, "3:19: error", "DEFINE IPAQIDIO CHPID"), "{v:?}");
    assert!(matches!(
        errors[0].error(),
        Some(ErrorKind::SecondLinkOnDevice { link, device, other, first_line: 2, kind: "IPAQIDIO", this_kind: "IPAQIDIO" })
            if link == "HS2" && device == "IUTIQDFE" && other == "HS1"
    ));
    // One HiperSockets link on each of two CHPIDs: clean.
    let ok = "DEVICE IUTIQDFE MPCIPA\nLINK HS1 IPAQIDIO IUTIQDFE\nDEVICE IUTIQDFD MPCIPA\nLINK HS3 IPAQIDIO IUTIQDFD\nHOME 10.1.1.1 HS1\n 10.1.3.1 HS3\n";
    let (_, v, _) = check(ok);
    assert!(v.is_empty(), "{v:?}");
    // A HiperSockets link on an OSA link's device: the advice is about the
    // mismatch, not about defining more OSA interfaces.
    let mixed = "DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1\nLINK HS1 IPAQIDIO D1\nHOME 10.1.1.1 L1\n 10.1.2.1 HS1\n";
    let (_, v, _) = check(mixed);
    assert!(
        has(
            &v,
            "3:19: error",
            "an IPAQIDIO link cannot share it with an IPAQENET link"
        ),
        "{v:?}"
    );
    assert!(
        !v.iter().any(|l| l.contains("on the port with INTERFACE")),
        "{v:?}"
    );
}

#[test]
fn interfaces_of_a_stack_on_one_port_need_distinct_vlanids() {
    // Same VLANID twice on P1; one with and one without on P2; distinct
    // VLANIDs on P3 (fine); the IPv6 interface on P3 is its own group.
    let src = "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 VLANID 10\n\
               INTERFACE B DEFINE IPAQENET IPADDR 192.0.3.1/24 PORTNAME p1 VLANID 10\n\
               INTERFACE C DEFINE IPAQENET IPADDR 192.0.4.1/24 PORTNAME P2 VLANID 20\n\
               INTERFACE D DEFINE IPAQENET IPADDR 192.0.5.1/24 PORTNAME P2\n\
               INTERFACE E DEFINE IPAQENET IPADDR 192.0.6.1/24 PORTNAME P3 VLANID 30\n\
               INTERFACE F DEFINE IPAQENET IPADDR 192.0.7.1/24 PORTNAME P3 VLANID 31\n\
               INTERFACE G DEFINE IPAQENET6 PORTNAME P3\n";
    let (_, v, d) = check(src);
    assert_eq!(d.error_count(), 2, "{v:?}");
    assert!(
        has(
            &v,
            "2:68: error",
            "interface B: VLANID 10 is already used by interface A of this stack on port P1 (line 1)"
        ),
        "{v:?}"
    );
    assert!(
        has(
            &v,
            "4:11: error",
            "interface D: VLANID is required: interface C of this stack is on port P2 too"
        ),
        "{v:?}"
    );
    // HiperSockets interfaces of one CHPID follow the same rule (the
    // IP Configuration Guide's steps for HiperSockets VLANs); another
    // CHPID, or an OSA port, is another group.
    let iqd = "INTERFACE H1 DEFINE IPAQIDIO CHPID F1 IPADDR 10.1.1.1/24 VLANID 5\n\
               INTERFACE H2 DEFINE IPAQIDIO CHPID F1 IPADDR 10.1.2.1/24\n\
               INTERFACE H3 DEFINE IPAQIDIO CHPID F2 IPADDR 10.1.3.1/24\n\
               INTERFACE H4 DEFINE IPAQIDIO CHPID F1 IPADDR 10.1.4.1/24 VLANID 5\n";
    let (_, v, d) = check(iqd);
    assert_eq!(d.error_count(), 2, "{v:?}");
    assert!(
        has(
            &v,
            "2:11: error",
            "interface H2: VLANID is required: interface H1 of this stack is on port IUTIQDF1 too"
        ),
        "{v:?}"
    );
    assert!(
        has(&v, "4:65: error", "interface H4: VLANID 5 is already used by interface H1 of this stack on port IUTIQDF1 (line 1)"),
        "{v:?}"
    );
    // A LINK IPAQIDIO is on the CHPID its IUTIQDxx device names.
    let mixed = "DEVICE IUTIQDF1 MPCIPA\nLINK HL IPAQIDIO IUTIQDF1\nHOME 10.3.1.1 HL\n\
                 INTERFACE HI DEFINE IPAQIDIO CHPID F1 IPADDR 10.4.1.1/24\n";
    let (_, v, d) = check(mixed);
    assert_eq!(d.error_count(), 2, "{v:?}");
    assert!(
        has(
            &v,
            "2:6: error",
            "interface HL: VLANID is required: interface HI"
        ),
        "{v:?}"
    );
    // A LINK IPAQENET on a device of the same name is on that port too.
    let legacy = "DEVICE P1 MPCIPA\nLINK L1 IPAQENET P1 VLANID 7\nHOME 192.0.2.9 L1\n\
                  INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 VLANID 7\n";
    let (_, v, d) = check(legacy);
    assert_eq!(d.error_count(), 1, "{v:?}");
    assert!(
        has(&v, "4:68: error", "VLANID 7 is already used by link L1"),
        "{v:?}"
    );
    // Other stacks on the port may use the same VLANID (that is sharing).
    let a = parse_profile(
        "a.prof",
        "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 VLANID 10\n",
    )
    .0;
    let b = parse_profile(
        "b.prof",
        "INTERFACE B DEFINE IPAQENET IPADDR 192.0.2.2/24 PORTNAME P1 VLANID 10\n",
    )
    .0;
    let mut d = Diagnostics::new();
    validate_profile(&a, &mut d);
    validate_profile(&b, &mut d);
    validate_system(&[("A".into(), &a), ("B".into(), &b)], &[], &mut d);
    assert!(d.items().is_empty(), "{:?}", d.items());
}

#[test]
fn a_route_over_an_undefined_link_is_refused() {
    let src = "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n\
               DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1\nHOME 198.51.100.1 L1\n\
               BEGINROUTES\n\
               ROUTE 192.0.2.0/24 = a MTU 1492\n\
               ROUTE 198.51.100.0 255.255.255.0 = L1\n\
               ROUTE DEFAULT 192.0.2.254 NOSUCH MTU 1492\n\
               ROUTE 203.0.113.0/24 192.0.2.254\n   QDIO9 MTU 1492\n\
               ENDROUTES\n";
    let (_, v, d) = check(src);
    assert_eq!(d.error_count(), 2, "{v:?}");
    assert!(
        has(
            &v,
            "8:27: error",
            "ROUTE DEFAULT: NOSUCH is not the name of any LINK or INTERFACE"
        ),
        "{v:?}"
    );
    assert!(
        has(
            &v,
            "10:4: error",
            "ROUTE 203.0.113.0/24 (line 9): QDIO9 is not"
        ),
        "{v:?}"
    );
}

#[test]
fn a_route_leaves_over_a_link_or_interface_of_its_ip_version() {
    let src = "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n\
               INTERFACE S6 DEFINE IPAQENET6 PORTNAME P2\n\
               DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1\nHOME 198.51.100.1 L1\n\
               BEGINROUTES\n\
               ROUTE DEFAULT6 FE80::1 S6\n\
               ROUTE DEFAULT 192.0.2.254 A\n\
               ROUTE DEFAULT6 FE80::1 L1\n\
               ROUTE DEFAULT 192.0.2.254 S6\n\
               ROUTE 2001:DB8::/64 = A\n\
               ENDROUTES\n";
    let (_, v, d) = check(src);
    assert_eq!(d.error_count(), 3, "{v:?}");
    assert!(
        has(
            &v,
            "9:24: error",
            "ROUTE DEFAULT6: L1 is an IPv4 link, so an IPv6 route cannot use it"
        ),
        "{v:?}"
    );
    assert!(
        has(
            &v,
            "10:27: error",
            "ROUTE DEFAULT: S6 is an IPv6 interface, so an IPv4 route cannot use it"
        ),
        "{v:?}"
    );
    assert!(
        has(
            &v,
            "11:23: error",
            "ROUTE 2001:db8::/64: A is an IPv4 interface, so an IPv6 route cannot use it"
        ),
        "{v:?}"
    );
    assert!(d
        .errors()
        .all(|e| matches!(e.error(), Some(ErrorKind::RouteLinkVersion { .. }))));
}

#[test]
fn a_trl_device_number_is_used_once() {
    use softosa_profile::trle::parse_trl;
    let src = "T1 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(0E28),WRITE=(0E29),DATAPATH=(0E2A,0E2A),PORTNAME=(P1,0)\n\
               T2 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(0E28),WRITE=(0E3A),\n     DATAPATH=(0E2B-0E2F),PORTNAME=(P2,0)\n\
               T3 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(0F00),WRITE=(0F00),DATAPATH=(0F01),PORTNAME=(P3,0)\n\
               T4 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(0F10),WRITE=(0F11),DATAPATH=(0E2C-0E2E,0F12),PORTNAME=(P4,0)\n\
               T5 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(1000),WRITE=(1001),DATAPATH=(1002,\n               0F12),PORTNAME=(P5,0)\n";
    let (t, pd) = parse_trl("v.trl", src);
    assert!(pd.items().is_empty(), "{:?}", pd.items());
    assert_eq!(t.trles.len(), 5);
    let mut d = system(&[], &[&t]);
    d.sort();
    let v = lines(&d);
    // Each error points at the device number inside the list (for a range,
    // at the range), not at the operand: the second 0E2A of line 1, the
    // 0E28 of READ=(0E28), the 0F00 of WRITE=(0F00), the range 0E2C-0E2E,
    // and 0F12 on the continuation line of T5.
    assert_eq!(
        v,
        [
            "v.trl:1:73: error: TRLE T1: DATAPATH device 0E2A is already a DATAPATH device of this TRLE; a device number is one device, so it can appear once in one TRLE only",
            "v.trl:2:39: error: TRLE T2: READ device 0E28 is already the READ device of TRLE T1 (line 1); a device number is one device, so it can appear once in one TRLE only",
            "v.trl:4:52: error: TRLE T3: WRITE device 0F00 is already the READ device of this TRLE; a device number is one device, so it can appear once in one TRLE only",
            "v.trl:5:68: error: TRLE T4: DATAPATH device 0E2C is already a DATAPATH device of TRLE T2 (line 2); a device number is one device, so it can appear once in one TRLE only",
            "v.trl:7:16: error: TRLE T5: DATAPATH device 0F12 is already a DATAPATH device of TRLE T4 (line 5); a device number is one device, so it can appear once in one TRLE only",
        ]
    );
    // The same numbers in another member clash too, named by file.
    let (t2, _) = parse_trl(
        "w.trl",
        "T9 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(1000),WRITE=(1001),DATAPATH=(0F01),PORTNAME=(P9,0)\n",
    );
    let d = system(&[], &[&t, &t2]);
    assert!(
        d.items().iter().any(|x| x.to_string().starts_with(
            "w.trl:1:68: error: TRLE T9: DATAPATH device 0F01 is already a DATAPATH device of TRLE T3 (v.trl:4)"
        )),
        "{:?}",
        d.items()
    );
    // The example member has none.
    let ex =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/profiles/osa.trl");
    let (l, _) = softosa_profile::load::load_path(&ex);
    let Some(softosa_profile::load::Loaded::Trl(ex)) = l else {
        panic!("osa.trl is a TRL member")
    };
    let d = system(&[], &[&ex]);
    assert!(d.items().is_empty(), "{:?}", d.items());
}

/// TRLE names and PORTNAMEs are unique across all the TRL members given,
/// as device numbers are: VTAM wants "domain-unique names in all
/// VTAM-related definitions that are active at the same time" (SNA
/// Resource Definition Reference) and refuses a PORTNAME "not unique in
/// this node" (IST1561I). Split over two members they passed, though the
/// same TRLEs in one member were refused, and activation then took the
/// first member's TRLE for the port and left the other unseen.
#[test]
fn trle_names_and_portnames_are_unique_across_members() {
    use softosa_profile::trle::parse_trl;
    let t1 = "QDIO101  TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(0E28),WRITE=(0E29),DATAPATH=(0E2A),PORTNAME=(QDIO4101,0)\n";
    let t2 = "QDIO101  TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(0F28),WRITE=(0F29),DATAPATH=(0F2A),PORTNAME=(QDIO4102,0)\n\
              QDIO102  TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(0D28),WRITE=(0D29),DATAPATH=(0D2A),PORTNAME=(QDIO4101,1)\n";
    let (a, ad) = parse_trl("a.trl", t1);
    let (b, bd) = parse_trl("b.trl", t2);
    assert!(ad.items().is_empty() && bd.items().is_empty());
    assert_eq!(
        lines(&system(&[], &[&a, &b])),
        [
            "b.trl:1:1: error: TRLE QDIO101 is defined more than once (first defined at a.trl:1)",
            "b.trl:2:1: error: TRLE PORTNAME QDIO4101 is defined more than once (first defined at a.trl:1)",
        ]
    );
    // In one member, as before: the first is named by its line.
    let (ab, _) = parse_trl("ab.trl", &format!("{t1}{t2}"));
    assert_eq!(
        lines(&system(&[], &[&ab])),
        [
            "ab.trl:2:1: error: TRLE QDIO101 is defined more than once (first defined at line 1)",
            "ab.trl:3:1: error: TRLE PORTNAME QDIO4101 is defined more than once (first defined at line 1)",
        ]
    );
    // Distinct TRLEs in two members are fine.
    let (c, _) = parse_trl(
        "c.trl",
        "QDIO103  TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(0C28),WRITE=(0C29),DATAPATH=(0C2A),PORTNAME=(QDIO4103,0)\n",
    );
    assert!(system(&[], &[&a, &c]).items().is_empty());
}

#[test]
fn a_trle_with_fewer_datapath_devices_than_interfaces_on_its_port_warns() {
    use softosa_profile::trle::parse_trl;
    let (t, _) = parse_trl(
        "v.trl",
        "T1 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(3300),WRITE=(3301),\n   DATAPATH=(3302),PORTNAME=(SHR1,0)\n",
    );
    let a = parse_profile(
        "a.prof",
        "INTERFACE A1 DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME SHR1 VLANID 1\n\
         INTERFACE A2 DEFINE IPAQENET IPADDR 192.0.3.1/24 PORTNAME SHR1 VLANID 2\n",
    )
    .0;
    let b = parse_profile(
        "b.prof",
        "INTERFACE B1 DEFINE IPAQENET IPADDR 192.0.2.2/24 PORTNAME SHR1 VMAC\n",
    )
    .0;
    let d = system(&[("SA".into(), &a), ("SB".into(), &b)], &[&t]);
    let v = lines(&d);
    assert_eq!(
        v,
        ["v.trl:2:4: warning: TRLE T1 has DATAPATH devices for 1 of the 3 interfaces on port SHR1 (each interface, of every stack, needs one of its own); without one: A2 of stack SA, B1 of stack SB. z/OS would not start those; softosa numbers them on after the last DATAPATH device"]
    );
    // Enough devices for every stack's interfaces: no warning.
    let (t3, _) = parse_trl(
        "v.trl",
        "T1 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(3300),WRITE=(3301),DATAPATH=(3302-3304),PORTNAME=(SHR1,0)\n",
    );
    let d = system(&[("SA".into(), &a), ("SB".into(), &b)], &[&t3]);
    assert!(d.items().is_empty(), "{:?}", d.items());
}

#[test]
fn a_route_may_name_the_links_dynamicxcf_creates() {
    let routes = "BEGINROUTES\n\
                  ROUTE 10.1.2.0/24 10.1.1.2 EZAXCF02 MTU 1500\n\
                  ROUTE 10.1.3.0/24 = ezasamemvs MTU 1500\n\
                  ENDROUTES\n";
    let with = format!("IPCONFIG DYNAMICXCF 10.1.1.1 255.255.255.0 1\n{routes}");
    let (_, v, d) = check(&with);
    assert_eq!(d.error_count(), 0, "{v:?}");
    // Without DYNAMICXCF no such link exists, and the routes are refused.
    let (_, v, d) = check(routes);
    assert_eq!(d.error_count(), 2, "{v:?}");
    assert!(has(&v, "2:", "EZAXCF02 is not the name"), "{v:?}");
}

/// Profile::static_vipa_of finds a static VIPA of the name (in any case)
/// among the given kinds only.
#[test]
fn static_vipa_of_looks_among_the_given_kinds() {
    let src = "DEVICE VIPA1 VIRTUAL 0\n\
               LINK VIPA1L VIRTUAL 0 VIPA1\n\
               INTERFACE VIPA6 DEFINE VIRTUAL6 IPADDR 2001:db8::5\n";
    let (p, _, _) = check(src);
    let of = |kinds: &[VipaKind], name| p.static_vipa_of(kinds, name).map(|v| v.kind);
    let ifs = [VipaKind::Interface, VipaKind::Interface6];
    assert_eq!(of(&ifs, "vipa6"), Some(VipaKind::Interface6));
    assert_eq!(of(&ifs, "VIPA1L"), None);
    assert_eq!(
        of(&[VipaKind::Device, VipaKind::Link], "VIPA1"),
        Some(VipaKind::Device)
    );
    assert_eq!(of(&[], "VIPA1"), None);
}

/// Static VIPAs (IP Configuration Reference, "INTERFACE - VIRTUAL
/// interfaces statement"; DEVICE/LINK VIRTUAL as in "Steps for configuring
/// static VIPAs"): they are defined, own their address, are named by HOME
/// and START, and may not be a static route's interface.
#[test]
fn static_vipas_are_defined_and_not_routes() {
    let src = "DEVICE VIPA1 VIRTUAL 0\n\
               LINK VIPA1L VIRTUAL 0 VIPA1\n\
               INTERFACE VIPA2 DEFINE VIRTUAL IPADDR 10.5.5.2\n\
               INTERFACE VIPA6 DEFINE VIRTUAL6 IPADDR 2001:db8::5\n\
               INTERFACE OSA1 DEFINE IPAQENET PORTNAME OSAPRT1 IPADDR 10.1.1.10/24 SOURCEVIPAINT VIPA2\n\
               HOME 10.5.5.1 VIPA1L\n\
               START OSA1\n";
    let (p, v, _) = check(src);
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(p.interfaces.len(), 1);
    assert!(p.devices.is_empty() && p.links.is_empty());
    let kinds: Vec<VipaKind> = p.static_vipas.iter().map(|v| v.kind).collect();
    assert_eq!(
        kinds,
        [
            VipaKind::Device,
            VipaKind::Link,
            VipaKind::Interface,
            VipaKind::Interface6
        ]
    );
    let link = p.static_vipa(VipaKind::Link, "vipa1l").expect("link");
    assert_eq!(
        link.device.as_ref().map(|d| d.value.as_str()),
        Some("VIPA1")
    );
    let intf = p.static_vipa(VipaKind::Interface, "VIPA2").expect("intf");
    assert_eq!(intf.ipaddr[0].value.to_string(), "10.5.5.2");

    // The VIPA owns its address; no prefix length; IPADDR is its only
    // parameter; its LINK names a DEVICE VIRTUAL; routes may not use it.
    let src = "DEVICE VIPA1 VIRTUAL 0\n\
               LINK VIPA1L VIRTUAL 0 VIPAX\n\
               INTERFACE VIPA2 DEFINE VIRTUAL IPADDR 10.5.5.5/24\n\
               INTERFACE VIPA3 DEFINE VIRTUAL IPADDR 10.1.1.10 MTU 1500\n\
               INTERFACE OSA1 DEFINE IPAQENET PORTNAME OSAPRT1 IPADDR 10.1.1.10/24\n\
               BEGINROUTES\n  ROUTE 10.9.0.0/16 = VIPA3 MTU 1492\n  ROUTE 10.8.0.0/16 = VIPA1L MTU 1492\nENDROUTES\n";
    let (_, v, _) = check(src);
    assert_eq!(v.len(), 6, "{v:?}");
    assert!(
        has(&v, "2:23: error", "LINK VIPA1L refers to device VIPAX"),
        "{v:?}"
    );
    assert!(
        has(
            &v,
            "3:39: error",
            "10.5.5.5/24 is not valid (one IPv4 address in dotted decimal"
        ),
        "{v:?}"
    );
    assert!(
        has(
            &v,
            "4:49: error",
            "parameter MTU is not valid on INTERFACE VIRTUAL"
        ),
        "{v:?}"
    );
    assert!(
        has(
            &v,
            "5:56: error",
            "IPADDR 10.1.1.10 is the address of interface VIPA3 too (first defined at line 4)"
        ),
        "{v:?}"
    );
    assert!(has(&v, "7:23: error", "VIPA3 is a static VIPA (INTERFACE VIRTUAL); a VIPA link or interface cannot be coded on a static route"), "{v:?}");
    assert!(
        has(&v, "8:23: error", "VIPA1L is a static VIPA (LINK VIRTUAL)"),
        "{v:?}"
    );
}
