//! Property tests: the readers never panic on arbitrary input, and printing
//! a (converted) profile then parsing it gives the same profile back.

use proptest::prelude::*;
use softosa_profile::convert::{convert, ConvertOptions};
use softosa_profile::print::print_profile;
use softosa_profile::validate::validate_profile;
use softosa_profile::*;

/// Tokens that make random input hit real parser paths.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("INTERFACE".to_string()),
        Just("DEFINE".to_string()),
        Just("IPAQENET".to_string()),
        Just("IPAQIDIO".to_string()),
        Just("IPADDR".to_string()),
        Just("PORTNAME".to_string()),
        Just("VMAC".to_string()),
        Just("INBPERF".to_string()),
        Just("DYNAMIC".to_string()),
        Just("WORKLOADQ".to_string()),
        Just("OLM".to_string()),
        Just("GLOBALCONFIG".to_string()),
        Just("WLMPRIORITYQ".to_string()),
        Just("IOPRI1".to_string()),
        Just("IPCONFIG".to_string()),
        Just("DYNAMICXCF".to_string()),
        Just("VIPADYNAMIC".to_string()),
        Just("VIPADISTRIBUTE".to_string()),
        Just("ENDVIPADYNAMIC".to_string()),
        Just("BEGINROUTES".to_string()),
        Just("ROUTE".to_string()),
        Just("HOME".to_string()),
        Just("LINK".to_string()),
        Just("DEVICE".to_string()),
        Just("MPCIPA".to_string()),
        Just(";".to_string()),
        Just("\n".to_string()),
        Just("=".to_string()),
        "[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}(/[0-9]{1,3})?",
        "[0-9A-Fa-f]{1,13}",
        "\\PC{0,8}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn profile_parser_never_panics(words in prop::collection::vec(word(), 0..60)) {
        let src = words.join(" ");
        let (p, mut d) = parse_profile("f", &src);
        validate_profile(&p, &mut d);
        let _ = convert(&p, &ConvertOptions::default());
        let _ = print_profile(&p);
    }

    #[test]
    fn any_text_never_panics(src in "\\PC{0,400}") {
        let _ = parse_profile("f", &src);
        let _ = softosa_profile::trle::parse_trl("f", &src);
        let _ = softosa_profile::policy::parse_policy("f", &src);
        let _ = softosa_profile::load::load_str("f", &src);
    }

    #[test]
    fn trl_and_policy_never_panic(lines in prop::collection::vec(
        prop_oneof![
            "[A-Z0-9]{1,8} TRLE [A-Z=(),0-9-]{0,60}",
            " {1,15}[A-Z=(),0-9-]{0,60}",
            "\\*.{0,20}",
            "(SetSubnetPrioTosMask|SubnetTosMask|PriorityTosMapping|\\{|\\}|[01]{1,9}|[0-9]) {0,2}",
        ], 0..20)) {
        let src = lines.join("\n");
        let _ = softosa_profile::trle::parse_trl("f", &src);
        let _ = softosa_profile::policy::parse_policy("f", &src);
    }
}

/// A random legacy DEVICE/LINK/HOME set with routes.
fn legacy() -> impl Strategy<Value = String> {
    let link = (
        prop::option::of(prop_oneof![
            Just("BALANCED"),
            Just("DYNAMIC"),
            Just("MINCPU"),
            Just("MINLATENCY")
        ]),
        prop::option::of(prop_oneof![
            Just("PRIROUTER"),
            Just("SECROUTER"),
            Just("NONROUTER")
        ]),
        prop::option::of(prop_oneof![
            Just("GLOBAL"),
            Just("MAX"),
            Just("AVG"),
            Just("MIN")
        ]),
        prop::option::of(1u32..=4094),
        8u8..=30,
        any::<bool>(),
    );
    prop::collection::vec(link, 1..5).prop_map(|links| {
        let mut s = String::new();
        let mut routes = String::new();
        for (n, (perf, role, rs, vlan, prefix, vmac)) in links.iter().enumerate() {
            s.push_str(&format!("DEVICE DEV{n} MPCIPA {}\n", role.unwrap_or("")));
            s.push_str(&format!("LINK LNK{n} IPAQENET DEV{n}"));
            if let Some(p) = perf {
                s.push_str(&format!(" INBPERF {p}"));
            }
            if let Some(r) = rs {
                s.push_str(&format!(" READSTORAGE {r}"));
            }
            if let Some(v) = vlan {
                s.push_str(&format!(" VLANID {v}"));
            }
            if *vmac {
                s.push_str(" VMAC ROUTELCL");
            }
            s.push('\n');
            s.push_str(&format!("HOME 10.{n}.1.1 LNK{n}\n"));
            let mask = u32::MAX << (32 - u32::from(*prefix));
            let net = u32::from(std::net::Ipv4Addr::new(10, n as u8, 1, 1)) & mask;
            routes.push_str(&format!(
                "  ROUTE {} {} = LNK{n} MTU 1492\n",
                std::net::Ipv4Addr::from(net),
                std::net::Ipv4Addr::from(mask)
            ));
        }
        s.push_str("BEGINROUTES\n");
        s.push_str(&routes);
        s.push_str("ENDROUTES\nGLOBALCONFIG SEGMENTATIONOFFLOAD WLMPRIORITYQ IOPRI1 0 1 FWD\nIPCONFIG DATAGRAMFWD QDIOACCELERATOR QDIOPRIORITY 3\n");
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn converted_profile_round_trips(src in legacy()) {
        let (p, d) = parse_profile("legacy", &src);
        prop_assert!(!d.has_errors(), "{:?}", d.items());
        let (c, cd) = convert(&p, &ConvertOptions::default());
        prop_assert!(!cd.has_errors(), "{:?}", cd.items());
        prop_assert_eq!(c.interfaces.len(), p.links.len());
        prop_assert!(c.links.is_empty());
        let text = print_profile(&c);
        let (back, bd) = parse_profile("printed", &text);
        prop_assert!(!bd.has_errors(), "{}\n{:?}", text, bd.items());
        // Same meaning: printing the re-parsed profile gives the same text.
        prop_assert_eq!(print_profile(&back), text.clone());
        for (a, b) in c.interfaces.iter().zip(&back.interfaces) {
            prop_assert_eq!(&a.name, &b.name);
            prop_assert_eq!(a.ipaddr[0].value, b.ipaddr[0].value);
            prop_assert_eq!(a.effective_inbperf(), b.effective_inbperf());
            prop_assert_eq!(a.effective_router(), b.effective_router());
            prop_assert_eq!(a.readstorage_value(), b.readstorage_value());
            prop_assert_eq!(a.vmac.as_ref().map(|v| (v.mac, v.route)), b.vmac.as_ref().map(|v| (v.mac, v.route)));
        }
        prop_assert_eq!(back.global.wlmpriorityq.map(|w| (w.queue_for_value, w.fwd_queue)),
                        p.global.wlmpriorityq.map(|w| (w.queue_for_value, w.fwd_queue)));
        prop_assert_eq!(back.ip.qdio_priority(), 3);
    }
}

#[test]
fn convert_reports_unknown_prefix_and_takes_it_from_options() {
    let src = "DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1\nHOME 10.0.0.1 L1\n";
    let (p, _) = parse_profile("x.prof", src);
    let (c, d) = convert(&p, &ConvertOptions::default());
    let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
    assert_eq!(
        v,
        vec!["x.prof:2:6: error: LINK L1: the prefix length of the HOME address is unknown (no route for its subnet); give it with --prefix L1=NN"]
    );
    assert_eq!(c.links.len(), 1, "left unconverted");
    let mut o = ConvertOptions::default();
    o.prefixes.insert("L1".into(), 16);
    let (c, d) = convert(&p, &o);
    assert!(!d.has_errors());
    assert_eq!(c.interfaces[0].ipaddr[0].value.to_string(), "10.0.0.1/16");
}

/// A random INTERFACE statement built from valid parameters.
fn interface_stmt() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just("IPAQENET"), Just("IPAQIDIO")],
        prop::collection::vec(
            prop_oneof![
                Just("INBPERF DYNAMIC".to_string()),
                Just("INBPERF MINLATENCY".to_string()),
                Just("WORKLOADQ".to_string()),
                Just("NOOLM".to_string()),
                Just("OLM".to_string()),
                Just("READSTORAGE AVG".to_string()),
                Just("PRIROUTER".to_string()),
                Just("ISOLATE".to_string()),
                Just("VMAC ROUTELCL".to_string()),
                Just("VMAC 02AB00000001".to_string()),
                (1u32..5000).prop_map(|v| format!("VLANID {v}")),
                (500u32..9000).prop_map(|m| format!("MTU {m}")),
                Just("SOURCEVIPAINTERFACE VIPA1".to_string()),
                Just("SECCLASS 7 NOMONSYSPLEX DYNVLANREG".to_string()),
            ],
            0..8,
        ),
        1u8..=32,
    )
        .prop_map(|(kind, params, prefix)| {
            // HiperSockets has no INBPERF/OLM/router role/ISOLATE.
            let osa_only = [
                "INBPERF",
                "WORKLOADQ",
                "OLM",
                "NOOLM",
                "PRIROUTER",
                "ISOLATE",
            ];
            let params: Vec<String> = params
                .into_iter()
                .filter(|p| kind == "IPAQENET" || !osa_only.iter().any(|o| p.starts_with(o)))
                .collect();
            let fixed = if kind == "IPAQIDIO" {
                "CHPID F1".to_string()
            } else {
                "PORTNAME OSAP1".to_string()
            };
            format!(
                "INTERFACE I1 DEFINE {kind} IPADDR 192.0.2.9/{prefix} {fixed} {}\n",
                params.join(" ")
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn printed_interfaces_parse_back_the_same(src in interface_stmt()) {
        let (p, d) = parse_profile("gen", &src);
        // Rules may complain (e.g. WORKLOADQ without VMAC); syntax must not.
        prop_assert!(!d.has_errors(), "{}: {:?}", src, d.items());
        let text = print_profile(&p);
        let (back, bd) = parse_profile("printed", &text);
        prop_assert!(!bd.has_errors(), "{}\n{:?}", text, bd.items());
        prop_assert_eq!(print_profile(&back), text);
        let (a, b) = (&p.interfaces[0], &back.interfaces[0]);
        prop_assert_eq!(a.effective_inbperf(), b.effective_inbperf());
        prop_assert_eq!(a.workloadq_on(), b.workloadq_on());
        prop_assert_eq!(a.mtu.as_ref().map(|m| m.value), b.mtu.as_ref().map(|m| m.value));
        prop_assert_eq!(a.vlanid.as_ref().map(|m| m.value), b.vlanid.as_ref().map(|m| m.value));
    }
}
