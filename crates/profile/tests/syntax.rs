//! Syntax: abbreviations (accepted and too short), case, comments,
//! continuation across lines, unknown/unsupported statements, error
//! positions, and that every problem in a file is reported.

use softosa_profile::validate::validate_profile;
use softosa_profile::*;

mod common;
use common::diags;

#[test]
fn documented_abbreviations_are_accepted() {
    let src = "GLOBALCONF SEGMENTATIONOFFL IQDMULTIWRITE\n\
               IPCONF DATAGR QDIOACCEL QDIOP 2\n\
               INTERF A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 SOURCEVIPAINT VIPA1\n";
    let (p, v) = diags(src);
    assert!(v.is_empty(), "{v:?}");
    assert!(p
        .global
        .segmentation_offload
        .as_ref()
        .is_some_and(|s| s.value));
    assert!(p.global.iqdmultiwrite.as_ref().is_some_and(|s| s.value));
    assert!(p.ip.forwarding());
    assert!(p.ip.accelerator_on());
    assert_eq!(p.ip.qdio_priority(), 2);
    assert_eq!(
        p.interfaces[0]
            .source_vipa
            .as_ref()
            .map(|s| s.value.as_str()),
        Some("VIPA1")
    );
}

#[test]
fn keywords_are_case_insensitive() {
    let (p, v) =
        diags("interface a define ipaqenet ipaddr 192.0.2.1/24 portname p1 inbperf Dynamic\n");
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(
        p.interfaces[0].inbperf.as_ref().map(|x| x.value),
        Some(InbPerf::Dynamic)
    );
    assert_eq!(
        p.interfaces[0].portname.as_ref().map(|x| x.value.as_str()),
        Some("P1")
    );
}

#[test]
fn too_short_abbreviations_are_rejected_with_the_minimum() {
    let (_, v) = diags("GLOBALCON SEGMENTATIONOFFLOAD\n");
    assert_eq!(
        v,
        vec!["s.prof:1:1: error: GLOBALCON is too short an abbreviation of GLOBALCONFig: code at least GLOBALCONF"]
    );
    let (_, v) = diags("GLOBALCONFIG SEGMENTATIONOFF\n");
    assert!(v[0].starts_with("s.prof:1:14: error: SEGMENTATIONOFF is too short an abbreviation of SEGMENTATIONOFFLoad"), "{v:?}");
    let (_, v) = diags("INTER A DEFINE IPAQENET\n");
    assert!(
        v[0].contains("INTER is too short an abbreviation of INTERFace"),
        "{v:?}"
    );
    let (_, v) = diags("IPCONFIG DATAG\n");
    assert!(
        v[0].starts_with("s.prof:1:10: error: DATAG is too short"),
        "{v:?}"
    );
    // Keywords we require in full: a prefix is too short.
    let (_, v) =
        diags("INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 INBPERF DYNAM\n");
    assert!(
        v[0].contains("DYNAM is too short an abbreviation of DYNAMIC"),
        "{v:?}"
    );
    let (_, v) = diags("DEVIC D MPCIPA\n");
    assert!(
        v[0].contains("DEVIC is too short an abbreviation of DEVICE"),
        "{v:?}"
    );
}

#[test]
fn comments_and_continuation() {
    let src = "; a whole-line comment\n\
               INTERFACE QDIO4101L ; the name\n\
                 DEFINE IPAQENET;no blank before the comment\n\
                 IPADDR\n\
                   172.16.1.1/24\n\
                 PORTNAME QDIO4101 INBPERF DYNAMIC GLOBALCONFIG SEGMENTATIONOFFLOAD ; next statement on the same line\n";
    let (p, v) = diags(src);
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(p.interfaces.len(), 1);
    let i = &p.interfaces[0];
    assert_eq!(i.ipaddr[0].span, Span::new(5, 1));
    assert_eq!(i.inbperf.as_ref().map(|x| x.value), Some(InbPerf::Dynamic));
    assert!(p.global.segmentation_offload.is_some());
}

#[test]
fn unknown_statements_are_errors_unmodelled_ones_warnings_and_parsing_resumes() {
    let src = "FOO BAR BAZ\nUDPCONFIG RESTRICTLOWPORTS\nINTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 FROB\nHOME 1.2.3 L\n";
    let (p, v) = diags(src);
    assert_eq!(v.len(), 4, "{v:?}");
    assert_eq!(v[0], "s.prof:1:1: error: unknown statement FOO");
    assert_eq!(
        v[1],
        "s.prof:2:1: warning: statement UDPCONFIG is not modelled by softosa and is skipped (z/OS would apply it)"
    );
    assert_eq!(
        v[2],
        "s.prof:3:61: error: unknown parameter FROB on the INTERFACE A statement"
    );
    assert!(
        v[3].starts_with("s.prof:4:6: error: HOME address: 1.2.3 is not valid"),
        "{v:?}"
    );
    // The good statement in between was still read.
    assert_eq!(p.interfaces.len(), 1);
}

/// A profile as SEZAINST(SAMPPROF) lays one out: statements softosa does not
/// model (AUTOLOG block, PORT reservations, INCLUDE, VIPARANGE) are warnings
/// at their line and skipped, as is TCPCONFIG's RESTRICTLOWPORTS, so the
/// profile has no error and what softosa does model (TCPCONFIG's buffer
/// sizes among it) is still read.
#[test]
fn statements_of_a_real_profile_that_softosa_does_not_model_are_skipped_with_a_warning() {
    let src = "\
ARPAGE 20
TCPCONFIG TCPSENDBFRSIZE 256K TCPRCVBUFRSIZE 256K
          RESTRICTLOWPORTS
AutoLog 5
  FTPD JOBNAME FTPD1   ; FTP server
  OMPROUTE
EndAutoLog
PORT
   20 TCP * NOAUTOLOG  ; FTP data
   21 TCP FTPD1
INCLUDE SYS1.TCPPARMS(OSAINTF)
VIPADYNAMIC
  VIPARANGE DEFINE MOVEABLE NONDISRUPTIVE 255.255.255.0 10.1.8.0
  VIPADEFINE 255.255.255.0 10.1.9.1
  VIPADISTRIBUTE DEFINE 10.1.9.1 PORT 21 23 DESTIP ALL
ENDVIPADYNAMIC
interface osa1 define ipaqenet portname OSAPRT1 ipaddr 10.1.1.10/24
";
    let (p, v) = diags(src);
    let errors: Vec<_> = v.iter().filter(|x| x.contains(": error: ")).collect();
    assert!(errors.is_empty(), "{v:?}");
    let warned: Vec<&str> = v
        .iter()
        .filter_map(|x| x.strip_prefix("s.prof:"))
        .filter_map(|x| x.split_once(": warning: ").map(|(at, _)| at))
        .collect();
    assert_eq!(
        warned,
        ["1:1", "3:11", "4:1", "8:1", "11:1", "13:3"],
        "{v:?}"
    );
    assert!(
        v[4].contains("INCLUDE SYS1.TCPPARMS(OSAINTF): softosa does not read included data sets"),
        "{v:?}"
    );
    assert!(
        v[1].contains("TCPCONFIG RESTRICTLOWPORTS is not modelled"),
        "{v:?}"
    );
    let sizes = (
        p.tcp.send_buf.map(|x| x.value),
        p.tcp.rcv_buf.map(|x| x.value),
    );
    assert_eq!(sizes, (Some(256 * 1024), Some(256 * 1024)));
    assert_eq!(p.interfaces.len(), 1);
    assert_eq!(p.vipa.defines.len(), 1);
    assert_eq!(p.vipa.distributes.len(), 1);
    assert_eq!(p.vipa.distributes[0].ports, [21, 23]);
}

/// An END with no block open is an error; so is a block whose END is
/// missing (z/OS would read the rest of the file as its parameters).
#[test]
fn unmodelled_blocks_still_need_their_end() {
    let (_, v) = diags("ENDAUTOLOG\nAUTOLOG 5\n FTPD\nINTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n");
    assert_eq!(
        v,
        [
            "s.prof:1:1: error: ENDAUTOLOG without a matching begin statement",
            "s.prof:2:1: warning: statement AUTOLOG is not modelled by softosa and is skipped (z/OS would apply it)",
            "s.prof:2:1: error: AUTOLOG block is not closed: ENDAUTOLOG is missing",
        ]
    );
}

#[test]
fn missing_values_point_at_the_keyword() {
    let (_, v) =
        diags("INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n  MTU\nSTART A\n");
    assert_eq!(
        v,
        vec!["s.prof:2:3: error: INTERFACE A MTU: a value is missing (a decimal number of bytes)"]
    );
}

#[test]
fn blocks_must_close() {
    let (_, v) = diags("VIPADYNAMIC\n VIPADEFINE 255.255.255.0 201.2.10.11\nINTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n");
    assert!(
        v[0].starts_with("s.prof:1:1: error: VIPADYNAMIC block is not closed"),
        "{v:?}"
    );
    let (_, v) = diags("ENDROUTES\n");
    assert_eq!(
        v,
        vec!["s.prof:1:1: error: ENDROUTES without a matching begin statement"]
    );
    let (p, v) = diags("BEGINROUTES\n ROUTE 10.0.0.0/8 = L1 MTU 1500\n ROUTE DEFAULT 10.0.0.1 L1 MTU DEFAULTSIZE\nENDROUTES\n");
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(p.routes.len(), 2);
    assert_eq!(p.routes[1].dest, RouteDest::Default);
}

#[test]
fn ipv6_default_route_is_default6() {
    // z/OS codes the IPv6 default route DEFAULT6 (IP Configuration Guide
    // static route examples: ROUTE DEFAULT6 FE80::1:2:3:4 OSAQDIO46).
    let intf = "INTERFACE Q4 DEFINE IPAQENET IPADDR 10.1.1.1/24 PORTNAME P1\n\
                INTERFACE Q6 DEFINE IPAQENET6 PORTNAME P2\n";
    let src = format!(
        "{intf}BEGINROUTES\n ROUTE DEFAULT6 FE80::1:2:3:4 Q6 MTU 5000 REPLACEABLE\n ROUTE default 10.1.1.254 Q4\nENDROUTES\n"
    );
    let (p, v) = diags(&src);
    assert!(v.is_empty(), "{v:?}");
    let dests: Vec<RouteDest> = p.routes.iter().map(|r| r.dest).collect();
    assert_eq!(dests, [RouteDest::Default6, RouteDest::Default]);
    // It prints back as coded, and reads again the same.
    let text = softosa_profile::print::print_profile(&p);
    assert!(
        text.contains("ROUTE DEFAULT6 fe80::1:2:3:4 Q6 MTU 5000"),
        "{text}"
    );
    let (again, v) = diags(&text);
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(
        again.routes.iter().map(|r| r.dest).collect::<Vec<_>>(),
        dests
    );

    // A first hop of the other IP version says which word to code.
    for (route, at, says) in [
        (
            "ROUTE DEFAULT FE80::1 Q6",
            "s.prof:4:16:",
            "ROUTE DEFAULT: the first hop FE80::1 is an IPv6 address, but this is an IPv4 route; the IPv6 default route is coded ROUTE DEFAULT6",
        ),
        (
            "ROUTE DEFAULT6 10.1.1.254 Q4",
            "s.prof:4:17:",
            "ROUTE DEFAULT6: the first hop 10.1.1.254 is an IPv4 address, but this is an IPv6 route; the IPv4 default route is coded ROUTE DEFAULT",
        ),
        (
            "ROUTE 2001:DB8::/64 10.1.1.254 Q6",
            "s.prof:4:22:",
            "ROUTE 2001:db8::/64: the first hop 10.1.1.254 is an IPv4 address, but this is an IPv6 route",
        ),
    ] {
        let (p, v) = diags(&format!("{intf}BEGINROUTES\n {route}\nENDROUTES\n"));
        assert_eq!(v.len(), 1, "{route}: {v:?}");
        assert!(v[0].starts_with(&format!("{at} error: {says}")), "{route}: {v:?}");
        assert!(p.routes.is_empty(), "{route}");
    }

    // Other spellings of a default route are refused with the two z/OS has.
    for word in ["DEFAULTNET", "DEFAULT4", "DEFAULTV6"] {
        let (_, v) = diags(&format!(
            "{intf}BEGINROUTES\n ROUTE {word} FE80::1 Q6\nENDROUTES\n"
        ));
        assert_eq!(v.len(), 1, "{word}: {v:?}");
        assert!(
            v[0].starts_with(&format!(
                "s.prof:4:8: error: ROUTE destination: {word} is not valid"
            )) && v[0].contains("DEFAULT (IPv4) and DEFAULT6 (IPv6)"),
            "{word}: {v:?}"
        );
    }
}

#[test]
fn every_problem_is_reported() {
    // Unknown statements before and after one the profile knows.
    let mut src = String::from("BOGUS0\nGLOBALCONFIG\n");
    for i in 1..=30 {
        src.push_str(&format!("BOGUS{i}\n"));
    }
    let (_, v) = diags(&src);
    assert_eq!(v.len(), 31, "{v:?}");
    assert!(v[0].starts_with("s.prof:1:1: error: unknown statement BOGUS0"));
    assert!(v[30].starts_with("s.prof:32:1:"));
}

/// A file with statements and none a profile has is the wrong file: one
/// error says so (quoting little of it), not one per line.
#[test]
fn a_file_that_is_not_a_profile_is_said_to_be_one() {
    // `ip` reads as a too-short IPCONFIG: no more a profile for that.
    let scenario = "name = \"quick\"\nduration_ms = 300\n[[host]]\nip = \"192.0.2.2\"\n";
    let shadow = "root:*:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n";
    // A scenario whose comment names a statement is still a scenario.
    let commented = format!("# INTERFACE lines come from profile_text\n{scenario}");
    for (file, text, says) in [
        ("quick.toml", scenario, "this is a softosa scenario"),
        (
            "quick.TOML",
            commented.as_str(),
            "this is a softosa scenario",
        ),
        ("shadow", shadow, "this does not look like a TCP/IP profile"),
    ] {
        let (_, d) = softosa_profile::parser::parse_profile(file, text);
        let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
        assert_eq!(v.len(), 1, "{file}: {v:?}");
        assert!(
            v[0].starts_with(&format!("{file}:1:1: error: {says}")),
            "{v:?}"
        );
        assert!(
            !v[0].contains("daemon"),
            "quotes only the first word: {v:?}"
        );
        let scenario_file = file.to_ascii_lowercase().ends_with(".toml");
        assert_eq!(v[0].contains("softosa sim"), scenario_file, "{v:?}");
    }
    // One unknown statement alone is just that.
    let (_, d) = softosa_profile::parser::parse_profile("one.prof", "BOGUS\n");
    let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
    assert_eq!(v, ["one.prof:1:1: error: unknown statement BOGUS"]);
}

#[test]
fn ipv6_interface_takes_several_addresses() {
    let (p, v) = diags(
        "INTERFACE A6 DEFINE IPAQENET6 PORTNAME P1 IPADDR 2001:db8::1 2001:db8::2/64 MTU 1500\n",
    );
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(p.interfaces[0].ipaddr.len(), 2);
    assert_eq!(p.interfaces[0].mtu.as_ref().map(|m| m.value), Some(1500));
}

#[test]
fn display_related_parameters_are_read() {
    let (p, v) = diags("INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 SECCLASS 12 MONSYSPLEX IPBCAST DYNVLANREG\n");
    assert!(v.is_empty(), "{v:?}");
    let i = &p.interfaces[0];
    assert_eq!(i.secclass.as_ref().map(|c| c.value), Some(12));
    assert!(i.monsysplex.as_ref().is_some_and(|m| m.value));
    assert!(i.ipbcast.is_some());
    let (_, v) = diags("INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 SECCLASS 0\n");
    assert!(
        v[0].starts_with("s.prof:1:70: error: INTERFACE A SECCLASS: 0 is not valid"),
        "{v:?}"
    );
}

#[test]
fn blocks_end_at_their_end_statement_or_are_reported_unclosed() {
    // Closed: the items are read and nothing is reported.
    let (p, v) = diags(
        "VIPADYNAMIC\n  VIPADEFINE 255.255.255.0 201.2.10.11\nENDVIPADYNAMIC\n\
         BEGINROUTES\n  ROUTE 192.0.2.0/24 = OSA1 MTU 1492\nENDROUTES\n",
    );
    assert!(v.is_empty(), "{v:?}");
    assert_eq!((p.vipa.defines.len(), p.routes.len()), (1, 1), "{p:?}");
    // The file ends inside the block: reported at the opening keyword.
    let (_, v) = diags("VIPADYNAMIC\n  VIPADEFINE 255.255.255.0 201.2.10.11\n");
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].starts_with("s.prof:1:1: error:") && v[0].contains("ENDVIPADYNAMIC"),
        "{v:?}"
    );
    // Another statement starts inside the block: unclosed, and that
    // statement is still read.
    let (p, v) = diags(
        "BEGINROUTES\n  ROUTE 192.0.2.0/24 = OSA1 MTU 1492\n\
         GLOBALCONFIG SEGMENTATIONOFFLOAD\n",
    );
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].starts_with("s.prof:1:1: error:") && v[0].contains("ENDROUTES"),
        "{v:?}"
    );
    assert!(p.global.segmentation_offload.is_some());
}

#[test]
fn a_leading_byte_order_mark_is_skipped() {
    use softosa_profile::load::{load_str, Loaded};
    let (p, v) = diags("\u{feff}INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n");
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(p.interfaces.len(), 1);
    // Told apart by content with the mark in front, and read without it.
    let trl = "\u{feff}T1 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(0E28),WRITE=(0E29),DATAPATH=(0E2A),PORTNAME=(P1,0)\n";
    match load_str("t.trl", trl) {
        (Loaded::Trl(t), d) => {
            assert!(d.items().is_empty(), "{:?}", d.items());
            assert_eq!(t.trles[0].name, "T1");
        }
        (other, _) => panic!("read as {other:?}"),
    }
    let pol =
        "\u{feff}SetSubnetPrioTosMask { SubnetTosMask 11100000 PriorityTosMapping 1 11100000 }\n";
    assert!(matches!(load_str("p", pol), (Loaded::Policy(Some(_)), d) if d.items().is_empty()));
}

#[test]
fn a_file_that_defines_nothing_is_a_warning() {
    for src in [
        "",
        "\n\n",
        "; only a comment\n   ; and another\n",
        "\u{feff}",
    ] {
        let (p, d) = parse_profile("e.prof", src);
        let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
        assert_eq!(
            v,
            ["e.prof: warning: the profile defines nothing: it is empty or has only comments"],
            "{src:?}"
        );
        assert_eq!(
            p,
            Profile {
                file: "e.prof".into(),
                ..Profile::default()
            }
        );
    }
    // A TRL member of comments and VBUILD only: told apart as TRL by its
    // `*` comments, and warned about.
    use softosa_profile::load::{load_str, Loaded};
    for src in ["* nothing yet\n", "* c\n         VBUILD TYPE=TRL\n"] {
        match load_str("e.trl", src) {
            (Loaded::Trl(t), d) => {
                assert!(t.trles.is_empty());
                assert!(
                    d.warnings().any(|w| matches!(
                        w.warning(),
                        Some(WarningKind::NothingDefined("TRL member", _))
                    )),
                    "{src:?}: {:?}",
                    d.items()
                );
                assert!(!d.has_errors(), "{:?}", d.items());
            }
            (other, _) => panic!("{src:?} read as {other:?}"),
        }
    }
    // Something defined: no such warning.
    let (_, v) = diags("START A\n");
    assert!(!v.iter().any(|x| x.contains("defines nothing")), "{v:?}");
    let (_, d) = softosa_profile::trle::parse_trl("t", "QDIOSTG=MAX\n");
    assert!(d.items().is_empty(), "{:?}", d.items());
}

#[test]
fn a_non_contiguous_subnet_mask_is_reported_as_such() {
    let intf = "INTERFACE A DEFINE IPAQENET IPADDR 10.1.1.1/24 PORTNAME P1\n";
    let src = format!("{intf}BEGINROUTES\n  ROUTE 10.1.0.0 255.0.255.0 = A MTU 1492\nENDROUTES\n");
    let (p, d) = parse_profile("s.prof", &src);
    let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].starts_with(
            "s.prof:3:18: error: ROUTE: subnet mask 255.0.255.0 is not valid: it is not contiguous"
        ),
        "{v:?}"
    );
    assert!(matches!(
        d.items()[0].error(),
        Some(ErrorKind::MaskNotContiguous { stmt: "ROUTE", mask }) if mask == "255.0.255.0"
    ));
    assert!(p.routes.is_empty());

    // The forms that are right: a contiguous mask, HOST, a bare host route
    // with a gateway.
    let good = format!(
        "{intf}BEGINROUTES\n  ROUTE 10.1.0.0 255.255.0.0 = A\n  ROUTE 10.1.1.5 HOST = A\n  ROUTE 10.9.9.9 10.1.1.254 A MTU 1492\nENDROUTES\n"
    );
    let (p, d) = parse_profile("s.prof", &good);
    assert!(d.items().is_empty(), "{:?}", d.items());
    let dests: Vec<_> = p.routes.iter().map(|r| (r.dest, r.gateway)).collect();
    let ip = |s: &str| s.parse::<std::net::IpAddr>().unwrap();
    assert_eq!(
        dests,
        [
            (RouteDest::Net(ip("10.1.0.0"), 16), None),
            (RouteDest::Net(ip("10.1.1.5"), 32), None),
            (RouteDest::Net(ip("10.9.9.9"), 32), Some(ip("10.1.1.254"))),
        ]
    );

    // A mask after the slash: say what to write.
    for (dest, says) in [
        (
            "10.2.0.0/255.255.0.0",
            "not a subnet mask: write 10.2.0.0/16",
        ),
        ("10.2.0.0/255.0.255.0", "not a contiguous one"),
    ] {
        let (_, v) = diags(&format!(
            "{intf}BEGINROUTES\n ROUTE {dest} = A\nENDROUTES\n"
        ));
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(
            v[0].starts_with("s.prof:3:8: error: ROUTE destination") && v[0].contains(says),
            "{v:?}"
        );
    }

    // VIPADEFINE and DYNAMICXCF masks say the same.
    let (_, d) = parse_profile(
        "s.prof",
        "VIPADYNAMIC\n VIPADEFINE 255.0.255.0 201.2.10.11\nENDVIPADYNAMIC\nIPCONFIG DYNAMICXCF 10.1.1.1 255.255.0.255 1\n",
    );
    let kinds: Vec<_> = d
        .items()
        .iter()
        .map(|x| (x.span, x.error().cloned()))
        .collect();
    assert_eq!(
        kinds,
        [
            (
                Span::new(2, 13),
                Some(ErrorKind::MaskNotContiguous {
                    stmt: "VIPADEFINE",
                    mask: "255.0.255.0".into()
                })
            ),
            (
                Span::new(4, 30),
                Some(ErrorKind::MaskNotContiguous {
                    stmt: "IPCONFIG DYNAMICXCF",
                    mask: "255.255.0.255".into()
                })
            ),
        ]
    );
}

/// A member edited with ISPF NUMBER ON has eight-digit sequence numbers in
/// columns 73-80; z/OS does not allow them in a profile. One error says so,
/// at the first, instead of an unknown parameter on every line, and the
/// statements are still read.
#[test]
fn sequence_numbers_are_one_error_that_says_what_they_are() {
    let pad = |s: &str, n: &str| format!("{s:<72}{n}\n");
    let src = [
        pad(
            "INTERFACE OSA1 DEFINE IPAQENET PORTNAME OSAPRT1",
            "00010000",
        ),
        pad("   IPADDR 10.1.1.10/24 MTU 1492", "00020000"),
        pad("START OSA1", "00030000"),
    ]
    .concat();
    let (p, v) = diags(&src);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].starts_with("s.prof:1:73: error: 3 line(s) carry a sequence number in columns 73-80"),
        "{v:?}"
    );
    assert!(v[0].contains("sequence numbers are not allowed in a TCP/IP profile"));
    assert_eq!(p.interfaces.len(), 1);
    assert_eq!(p.interfaces[0].mtu.as_ref().map(|m| m.value), Some(1492));
    assert_eq!(p.starts.len(), 1);
    // One eight-digit value that happens to start in column 73 of a
    // profile of several lines is a value, as z/OS reads it.
    let src = "INTERFACE OSA1 DEFINE IPAQENET PORTNAME OSAPRT1 IPADDR 10.1.1.10/24 MTU 00001492\nSTART OSA1\n";
    let (p, v) = diags(src);
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(p.interfaces[0].mtu.as_ref().map(|m| m.value), Some(1492));
}

/// The IP Configuration Reference documents ';' as the profile's comment
/// ('A semicolon begins a comment'); /* */ is not one. It stays an error,
/// one that says so, once per comment, whether it opens a line or follows
/// a parameter, and the statements around it are still read.
#[test]
fn slash_star_comments_are_one_error_that_names_the_semicolon() {
    let src = "/* OSA interfaces */\nINTERFACE OSA1 DEFINE IPAQENET PORTNAME OSAPRT1\n  IPADDR 10.1.1.10/24 /* the home address */ MTU 1492\nSTART OSA1\n";
    let (p, v) = diags(src);
    let msg = "error: /* does not begin a comment in a TCP/IP profile: ';' does, and the comment runs to the end of the line";
    assert_eq!(
        v,
        [format!("s.prof:1:1: {msg}"), format!("s.prof:3:23: {msg}")]
    );
    assert_eq!(p.interfaces.len(), 1);
    assert_eq!(p.interfaces[0].mtu.as_ref().map(|m| m.value), Some(1492));
    assert_eq!(p.starts.len(), 1);
}

/// A dotted subnet mask is read alike in IPCONFIG DYNAMICXCF, VIPADEFINE
/// and ROUTE: a mask with a hole is not contiguous, a word that is no
/// address is not a valid mask, each one error at the mask, and the
/// statement is left.
#[test]
fn dotted_subnet_masks_are_read_alike_in_each_statement() {
    let intf = "INTERFACE A DEFINE IPAQENET IPADDR 10.1.1.1/24 PORTNAME P1\n";
    let hole = "is not valid: it is not contiguous (the one bits of a mask come first, with no zero bit between them, e.g. 255.255.0.0)";
    let cases = [
        (
            "255.0.255.0",
            [
                format!("s.prof:1:30: error: IPCONFIG DYNAMICXCF: subnet mask 255.0.255.0 {hole}"),
                format!("s.prof:2:13: error: VIPADEFINE: subnet mask 255.0.255.0 {hole}"),
                format!("s.prof:3:17: error: ROUTE: subnet mask 255.0.255.0 {hole}"),
            ],
        ),
        (
            "255.255.X.0",
            [
                "s.prof:1:30: error: IPCONFIG DYNAMICXCF: 255.255.X.0 is not valid (a contiguous subnet mask, e.g. 255.255.255.0)".to_string(),
                "s.prof:2:13: error: VIPADEFINE subnet mask: 255.255.X.0 is not valid (a contiguous subnet mask, e.g. 255.255.255.0)".to_string(),
                "s.prof:3:17: error: ROUTE subnet mask: 255.255.X.0 is not valid (a dotted subnet mask, e.g. 255.255.255.0, or HOST)".to_string(),
            ],
        ),
    ];
    for (mask, want) in cases {
        let srcs = [
            format!("IPCONFIG DYNAMICXCF 10.7.7.1 {mask} 1\n"),
            format!("VIPADYNAMIC\n VIPADEFINE {mask} 10.5.5.5\nENDVIPADYNAMIC\n"),
            format!("{intf}BEGINROUTES\n ROUTE 10.2.0.0 {mask} = A\nENDROUTES\n"),
        ];
        for (src, want) in srcs.iter().zip(want) {
            let (p, d) = parse_profile("s.prof", src);
            let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
            assert_eq!(v, [want], "{src:?}");
            assert!(p.ip.dynamicxcf.is_none() && p.routes.is_empty(), "{p:?}");
        }
    }
}

/// The warnings of a run, as `line:col param`, for the not-modelled
/// parameters only.
fn not_modelled(v: &[String]) -> Vec<String> {
    v.iter()
        .filter_map(|x| {
            let (at, msg) = x.strip_prefix("s.prof:")?.split_once(": warning: ")?;
            let param = msg
                .strip_suffix(" is not modelled by softosa and is ignored (z/OS would apply it)")?;
            Some(format!("{at} {param}"))
        })
        .collect()
}

/// Real IPCONFIG parameters softosa does not model (IP Configuration
/// Reference, IPCONFIG statement) are read, their values checked, and
/// reported as not modelled: the IBM sysplex distributor example's
/// `IPCONFIG SYSPLEXROUTING SOURCEVIPA TCPSTACKSOURCEVIPA 201.2.10.11`
/// checks clean. What IPCONFIG models is still read around them.
#[test]
fn real_ipconfig_parameters_softosa_does_not_model_are_warnings() {
    let src = "IPCONFIG SYSPLEXROUTING SOURCEVIPA TCPSTACKSOURCEVIPA 201.2.10.11\n\
               \x20  DYNAMICXCF 193.9.200.1 255.255.255.240 1 SECCLASS 9 SMCD SOURCEVIPAINT SVIPA1\n\
               IPCONFIG DATAGRAMFWD FWDMULTIPATH PERPACKET ARPTO 1200 TTL 64\n\
               \x20  NOSYSPLEXR NOSOURCEVIPA NOTCPSTACKSOURCEV PATHMTUDISC MULTIPATH PERC\n\
               \x20  IGNOREREDIRECT REASSEMBLYTIMEOUT 60 CHECKSUMOFFL FORMAT LONG DEVRETRYDUR 90\n";
    let (p, v) = diags(src);
    assert_eq!(
        not_modelled(&v),
        [
            "1:10 IPCONFIG SYSPLEXROUTING",
            "1:25 IPCONFIG SOURCEVIPA",
            "1:36 IPCONFIG TCPSTACKSOURCEVIPA",
            "2:45 IPCONFIG DYNAMICXCF SECCLASS",
            "2:56 IPCONFIG DYNAMICXCF SMCD",
            "2:61 IPCONFIG DYNAMICXCF SOURCEVIPAINTERFACE",
            "3:22 IPCONFIG DATAGRAMFWD FWDMULTIPATH",
            "3:45 IPCONFIG ARPTO",
            "3:56 IPCONFIG TTL",
            "4:4 IPCONFIG NOSYSPLEXROUTING",
            "4:15 IPCONFIG NOSOURCEVIPA",
            "4:28 IPCONFIG NOTCPSTACKSOURCEVIPA",
            "4:46 IPCONFIG PATHMTUDISCOVERY",
            "4:58 IPCONFIG MULTIPATH",
            "5:4 IPCONFIG IGNOREREDIRECT",
            "5:19 IPCONFIG REASSEMBLYTIMEOUT",
            "5:40 IPCONFIG CHECKSUMOFFLOAD",
            "5:53 IPCONFIG FORMAT",
            "5:65 IPCONFIG DEVRETRYDURATION",
        ],
        "{v:?}"
    );
    assert_eq!(v.len(), 19, "{v:?}");
    assert!(p.ip.forwarding());
    let xcf = p.ip.dynamicxcf.as_ref().expect("DYNAMICXCF read");
    assert_eq!((xcf.prefix, xcf.cost), (28, 1));
}

/// Their values are checked for count, form and the documented range: a
/// wrong one is an error at the value, a missing one at the keyword, and
/// the parameter after it is still read.
#[test]
fn values_of_real_parameters_softosa_does_not_model_are_checked() {
    for (src, want) in [
        (
            "IPCONFIG ARPTO 30\n",
            "s.prof:1:16: error: IPCONFIG ARPTO: 30 is not valid (seconds, 60-86400)",
        ),
        (
            "IPCONFIG TCPSTACKSOURCEVIPA VIPA1\n",
            "s.prof:1:29: error: IPCONFIG TCPSTACKSOURCEVIPA: VIPA1 is not valid (the IPv4 address of a VIPA, e.g. 10.1.9.1)",
        ),
        (
            "IPCONFIG TCPSTACKSOURCEVIPA SOURCEVIPA\n",
            "s.prof:1:10: error: IPCONFIG TCPSTACKSOURCEVIPA: a value is missing (the IPv4 address of a VIPA, e.g. 10.1.9.1)",
        ),
        (
            "IPCONFIG FORMAT MEDIUM\n",
            "s.prof:1:17: error: IPCONFIG FORMAT: MEDIUM is not valid (expected LONG or SHORT)",
        ),
        (
            "IPCONFIG DATAGRAMFWD FWDMULTIPATH\n",
            "s.prof:1:22: error: IPCONFIG DATAGRAMFWD FWDMULTIPATH: a value is missing (PERPACKET)",
        ),
        (
            "IPCONFIG NOFWDMULTIPATH\n",
            "s.prof:1:10: error: parameter NOFWDMULTIPATH is not valid on IPCONFIG except right after DATAGRAMFWD",
        ),
        (
            "IPCONFIG DYNAMICXCF 10.7.7.1/24 1 SECCLASS 0\n",
            "s.prof:1:44: error: IPCONFIG DYNAMICXCF SECCLASS: 0 is not valid (a security class 1-255)",
        ),
        (
            "GLOBALCONFIG ECSALIMIT 2048\n",
            "s.prof:1:24: error: GLOBALCONFIG ECSALIMIT: 2048 is not valid (a size in K or M, e.g. 2048M)",
        ),
        (
            "GLOBALCONFIG EXPLICITBINDPORTRANGE 5000\n",
            "s.prof:1:36: error: GLOBALCONFIG EXPLICITBINDPORTRANGE: a value is missing (the number of ports)",
        ),
        (
            "GLOBALCONFIG NOTCPIP\n",
            "s.prof:1:14: error: NOTCPIP is too short an abbreviation of NOTCPIPStatistics: code at least NOTCPIPS",
        ),
    ] {
        let (_, v) = diags(src);
        assert_eq!(v.first().map(String::as_str), Some(want), "{src:?}");
        assert!(v.iter().skip(1).all(|x| x.contains(": warning: ")), "{src:?}: {v:?}");
    }
    // After a refused value, the next parameter is still read.
    let (_, v) = diags("IPCONFIG ARPTO 30 SYSPLEXROUTING\n");
    assert_eq!(v.len(), 2, "{v:?}");
    assert_eq!(not_modelled(&v), ["1:19 IPCONFIG SYSPLEXROUTING"]);
}

/// GLOBALCONFIG: real parameters with values softosa can check are
/// warnings (NOTCPIPSTATISTICS is in SEZAINST(SAMPPROF)); those whose
/// values it cannot check (SYSPLEXMONITOR and its options) are one error
/// that says the parameter is real, not an unknown parameter per word.
#[test]
fn real_globalconfig_parameters_are_warnings_or_said_to_be_unsupported() {
    let (p, v) = diags(
        "GLOBALCONFIG NOTCPIPSTATISTICS SEGMENTATIONOFFLOAD ECSALIMIT 2048M POOLLIMIT 512K\n\
         \x20 EXPLICITBINDPORTRANGE 5000 1000 MAXRECS * TCPIPS XCFGRPID 11 AUTOIQDX NOLARGEDATA\n",
    );
    assert_eq!(
        not_modelled(&v),
        [
            "1:14 GLOBALCONFIG NOTCPIPSTATISTICS",
            "1:52 GLOBALCONFIG ECSALIMIT",
            "1:68 GLOBALCONFIG POOLLIMIT",
            "2:3 GLOBALCONFIG EXPLICITBINDPORTRANGE",
            "2:35 GLOBALCONFIG MAXRECS",
            "2:45 GLOBALCONFIG TCPIPSTATISTICS",
            "2:52 GLOBALCONFIG XCFGRPID",
            "2:64 GLOBALCONFIG AUTOIQDX",
        ],
    );
    // And TCPIPS after NOTCPIPSTATISTICS: coded twice.
    assert_eq!(v.len(), 9, "{v:?}");
    assert!(p.global.segmentation_offload.is_some());

    // SYSPLEXMONITOR and its options, in nearly every sysplex's profile:
    // read, checked and ignored (softosa has no sysplex to monitor).
    let (p, v) =
        diags("GLOBALCONFIG SYSPLEXMONITOR DELAYJOIN NORECOVERY TIMERSECS 60 IQDMULTIWRITE\n");
    assert_eq!(
        not_modelled(&v),
        [
            "1:14 GLOBALCONFIG SYSPLEXMONITOR",
            "1:29 GLOBALCONFIG SYSPLEXMONITOR DELAYJOIN",
            "1:39 GLOBALCONFIG SYSPLEXMONITOR NORECOVERY",
            "1:50 GLOBALCONFIG SYSPLEXMONITOR TIMERSECS",
        ],
        "{v:?}"
    );
    assert_eq!(v.len(), 4, "{v:?}");
    assert!(p.global.iqdmultiwrite.is_some());
    let (_, v) = diags("GLOBALCONFIG SYSPLEXMONITOR TIMERSECS 5\n");
    assert!(v.iter().any(|d| d.contains("10-3600")), "{v:?}");
    // Its options are its own, not GLOBALCONFIG's.
    let (_, v) = diags("GLOBALCONFIG DELAYJOIN\n");
    assert!(
        v.iter()
            .any(|d| d.contains("error") && d.contains("SYSPLEXMONITOR")),
        "{v:?}"
    );
    // A parameter whose values softosa cannot check is an error that
    // says so.
    let (p, v) = diags("GLOBALCONFIG AIASSIST IQDMULTIWRITE\n");
    assert_eq!(
        v,
        ["s.prof:1:14: error: AIASSIST is a z/OS parameter of the GLOBALCONFIG statement, but softosa does not support it: its values cannot be checked, so they are skipped up to the next parameter softosa knows; check them on z/OS (VARY TCPIP,,SYNTAXCHECK)"]
    );
    assert!(p.global.iqdmultiwrite.is_some());
}

/// DUPADDRDET (duplicate address detection attempts) and TEMPPREFIX (the
/// prefixes temporary addresses are made for: ALL, NONE or one) are
/// IPAQENET6 parameters softosa does not model: a warning each, their
/// values checked for form, and an error on an IPv4 interface.
#[test]
fn dupaddrdet_and_tempprefix_are_read_on_ipaqenet6_only() {
    let (p, v) = diags(
        "INTERFACE O6 DEFINE IPAQENET6 PORTNAME P1 IPADDR 2001:db8::1 DUPADDRDET 1 \
         TEMPPREFIX 2001:db8::/64 MTU 1500\n",
    );
    assert_eq!(
        not_modelled(&v),
        [
            "1:62 INTERFACE O6 DUPADDRDET",
            "1:75 INTERFACE O6 TEMPPREFIX"
        ],
        "{v:?}"
    );
    assert_eq!(v.len(), 2, "{v:?}");
    assert_eq!(p.interfaces[0].mtu.as_ref().map(|m| m.value), Some(1500));
    // Several prefixes, each checked; the statement goes on after them.
    let (p, v) = diags(
        "INTERFACE O6 DEFINE IPAQENET6 PORTNAME P1 TEMPPREFIX 2001:db8::/64 2001:db9::/48 \
         2001:dbz::/64 MTU 1500\n",
    );
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(v[1].contains("2001:dbz::/64 is not valid"), "{v:?}");
    assert_eq!(p.interfaces[0].mtu.as_ref().map(|m| m.value), Some(1500));
    for ok in ["ALL", "none"] {
        let (_, v) = diags(&format!(
            "INTERFACE O6 DEFINE IPAQENET6 PORTNAME P1 TEMPPREFIX {ok}\n"
        ));
        assert_eq!(v.len(), 1, "{ok}: {v:?}");
    }
    for bad in ["2001:db8::", "2001:db8::/129", "10.0.0.0/8", "SOME"] {
        let (_, v) = diags(&format!(
            "INTERFACE O6 DEFINE IPAQENET6 PORTNAME P1 TEMPPREFIX {bad}\n"
        ));
        assert_eq!(v.len(), 1, "{bad}: {v:?}");
        assert!(
            v[0].contains("is not valid (ALL, NONE or an IPv6 prefix/length"),
            "{v:?}"
        );
    }
    let (_, v) =
        diags("INTERFACE O4 DEFINE IPAQENET PORTNAME P1 IPADDR 10.1.1.1/24 DUPADDRDET 1\n");
    assert_eq!(
        v,
        ["s.prof:1:61: error: interface O4: DUPADDRDET is not valid for DEFINE IPAQENET"]
    );
}

/// INTFID (the 64-bit interface identifier, x:x:x:x) is a parameter of
/// IPAQENET6 (IBM's examples: `INTFID 0:16:207:3`); softosa does not model
/// it. It is no parameter of an IPv4 interface.
#[test]
fn intfid_is_read_on_ipaqenet6_only() {
    let (p, v) =
        diags("INTERFACE O6 DEFINE IPAQENET6 PORTNAME P1 INTFID 0:16:207:3 IPADDR 2001:db8::13\n");
    assert_eq!(not_modelled(&v), ["1:43 INTERFACE O6 INTFID"], "{v:?}");
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(p.interfaces[0].ipaddr.len(), 1);

    let (_, v) = diags("INTERFACE O6 DEFINE IPAQENET6 PORTNAME P1 INTFID 6:7:8 MTU 1500\n");
    assert_eq!(
        v,
        ["s.prof:1:50: error: INTERFACE O6 INTFID: 6:7:8 is not valid (an interface identifier: four groups of 1-4 hexadecimal digits separated by colons, e.g. 0:16:207:3)"]
    );
    let (p, v) = diags(
        "INTERFACE O4 DEFINE IPAQENET PORTNAME P1 IPADDR 10.1.1.1/24 INTFID 6:7:8:9 MTU 1500\n",
    );
    assert_eq!(
        v,
        ["s.prof:1:61: error: interface O4: INTFID is not valid for DEFINE IPAQENET"]
    );
    assert_eq!(p.interfaces[0].mtu.as_ref().map(|m| m.value), Some(1500));

    // DEVNUM (Network Express migration, IBM z/OS Communications Server
    // presentation) is read; SMCR is real but its options are not checked:
    // one error that says so, and MTU after it is still read.
    let (p, v) = diags(
        "INTERFACE O4 DEFINE IPAQENET DEVNUM 2B70 PORTNAME P1 IPADDR 10.1.1.1/24\n\
         \x20 SMCR PFID 3140 SMCRIPADDR 10.1.1.5 MTU 1500\n",
    );
    assert_eq!(not_modelled(&v), ["1:30 INTERFACE O4 DEVNUM"], "{v:?}");
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(
        v[1].starts_with("s.prof:2:3: error: SMCR is a z/OS parameter of the INTERFACE statement, but softosa does not support it"),
        "{v:?}"
    );
    assert_eq!(p.interfaces[0].mtu.as_ref().map(|m| m.value), Some(1500));
}

/// The warning for a parameter softosa does not model on an INTERFACE
/// names the interface, as `INTERFACE name DELETE`'s does: in a profile of
/// many interfaces, "INTERFACE INTFID is not modelled" did not say whose.
#[test]
fn not_modelled_interface_parameters_name_the_interface() {
    let (_, v) = diags(
        "INTERFACE O6 DEFINE IPAQENET6 PORTNAME P1 INTFID 0:16:207:3\n\
         INTERFACE O4 DEFINE IPAQENET PORTNAME P1 TEMPIP DEVNUM 2B70\n\
         INTERFACE O5 DELETE\n",
    );
    assert_eq!(
        v,
        [
            "s.prof:1:43: warning: INTERFACE O6 INTFID is not modelled by softosa and is ignored (z/OS would apply it)",
            "s.prof:2:42: warning: INTERFACE O4 TEMPIP is not modelled by softosa and is ignored (z/OS would apply it)",
            "s.prof:2:49: warning: INTERFACE O4 DEVNUM is not modelled by softosa and is ignored (z/OS would apply it)",
            "s.prof:3:14: warning: INTERFACE O5 DELETE is not modelled by softosa and is ignored (z/OS would apply it)",
        ]
    );
}

/// A value error names the statement it belongs to once its name is read,
/// as the not-modelled warning does: in a profile of many interfaces,
/// "INTERFACE INBPERF: XYZ is not valid" did not say whose. Before the
/// name, and on a statement without one, the wording is as it was.
#[test]
fn value_errors_name_their_statement() {
    let (_, v) = diags(
        "INTERFACE O6 DEFINE IPAQENET6 PORTNAME P1 INTFID xyz\n\
         INTERFACE O7 DEFINE IPAQENET PORTNAME P1 IPADDR 10.1.1.1/24 INBPERF XYZ\n\
         INTERFACE O8 DEFINE IPAQENET PORTNAME P1 IPADDR 10.1.1.2/24 MTU\n\
         INTERFACE V1 DEFINE VIRTUAL IPADDR 10.9.9.9/32\n\
         IPCONFIG TCPSTACKSOURCEVIPA VIPA1\n",
    );
    assert_eq!(
        v,
        [
            "s.prof:1:50: error: INTERFACE O6 INTFID: xyz is not valid (an interface identifier: four groups of 1-4 hexadecimal digits separated by colons, e.g. 0:16:207:3)",
            "s.prof:2:69: error: INTERFACE O7 INBPERF: XYZ is not valid (expected BALANCED | DYNAMIC | MINCPU | MINLATENCY)",
            "s.prof:3:61: error: INTERFACE O8 MTU: a value is missing (a decimal number of bytes)",
            "s.prof:4:36: error: INTERFACE V1 IPADDR: 10.9.9.9/32 is not valid (one IPv4 address in dotted decimal, e.g. 10.1.1.1)",
            "s.prof:5:29: error: IPCONFIG TCPSTACKSOURCEVIPA: VIPA1 is not valid (the IPv4 address of a VIPA, e.g. 10.1.9.1)",
        ]
    );

    // LINK and DEVICE: modelled values, and after VIRTUAL.
    let (_, v) = diags(
        "DEVICE D1 MPCIPA\n\
         LINK L1 IPAQENET D1 VLANID X READSTORAGE\n\
         DEVICE D2 MPC\n\
         LINK L2 VIRTUAL V\n",
    );
    assert_eq!(
        v,
        [
            "s.prof:2:28: error: LINK L1 VLANID: X is not valid (a VLAN id 1-4094)",
            "s.prof:2:30: error: LINK L1 READSTORAGE: a value is missing (GLOBAL | MAX | AVG | MIN)",
            "s.prof:3:11: error: DEVICE D2 device type: MPC is not valid (only MPCIPA (OSA-Express QDIO and HiperSockets) devices are supported)",
            "s.prof:4:17: error: LINK L2 VIRTUAL: V is not valid (a number (VIRTUAL 0))",
        ]
    );

    // ROUTE: named by its destination, once that is read; one route's
    // name does not carry over to the next route's destination.
    let (_, v) = diags(
        "BEGINROUTES\n\
         ROUTE 10.0.0.0/8 = L1 MTU x\n\
         ROUTE DEFAULT 10.1.1.9 L1 MAXIMUMRETRANSMITTIME\n\
         ROUTE 10.9.9.9/99 = L1\n\
         ENDROUTES\n",
    );
    assert_eq!(
        v,
        [
            "s.prof:2:27: error: ROUTE 10.0.0.0/8 MTU: x is not valid (a number or DEFAULTSIZE)",
            "s.prof:3:27: error: ROUTE DEFAULT MAXIMUMRETRANSMITTIME: a value is missing (seconds, e.g. 120 or 0.5)",
            "s.prof:4:7: error: ROUTE destination: 10.9.9.9/99 is not valid (prefix length must be 0-32)",
        ]
    );

    // No name yet: the name itself is what is wrong.
    let (_, v) = diags("LINK L234567890ABCDEFG IPAQENET D1\nINTERFACE\n");
    assert_eq!(
        v,
        [
            "s.prof:1:6: error: LINK link name: L234567890ABCDEFG is not valid (a name of at most 16 characters)",
            "s.prof:2:1: error: INTERFACE interface name: a value is missing (a name of 1-16 characters)",
        ]
    );
}

/// The TCP settings of a static route (DELAYACKS, NODELAYACKS and the
/// retransmission values) are read and reported as not modelled; each
/// retransmission value is one decimal number.
#[test]
fn route_tcp_settings_are_warnings() {
    let intf = "INTERFACE A DEFINE IPAQENET IPADDR 10.1.1.1/24 PORTNAME P1\n";
    let src = format!(
        "{intf}BEGINROUTES\n\
         \x20ROUTE 10.2.0.0/16 10.1.1.254 A MTU 1492 NODELAYACKS MAXIMUMRETRANSMITTIME 120\n\
         \x20  MINIMUMRETRANSMITTIME 0.5 ROUNDTRIPGAIN 0.125 VARIANCEGAIN 0.25 VARIANCEMULTIPLIER 2.0\n\
         \x20ROUTE DEFAULT 10.1.1.254 A MTU DEFAULTSIZE DELAYACKS\n\
         ENDROUTES\n"
    );
    let (p, v) = diags(&src);
    assert_eq!(
        not_modelled(&v),
        [
            "3:42 ROUTE 10.2.0.0/16 NODELAYACKS",
            "3:54 ROUTE 10.2.0.0/16 MAXIMUMRETRANSMITTIME",
            "4:4 ROUTE 10.2.0.0/16 MINIMUMRETRANSMITTIME",
            "4:30 ROUTE 10.2.0.0/16 ROUNDTRIPGAIN",
            "4:50 ROUTE 10.2.0.0/16 VARIANCEGAIN",
            "4:68 ROUTE 10.2.0.0/16 VARIANCEMULTIPLIER",
            "5:45 ROUTE DEFAULT DELAYACKS",
        ],
        "{v:?}"
    );
    assert_eq!(v.len(), 7, "{v:?}");
    assert_eq!(p.routes.len(), 2);
    // The value is one number; the next ROUTE is not taken as it.
    let src = format!(
        "{intf}BEGINROUTES\n ROUTE 10.2.0.0/16 = A MTU 1492 ROUNDTRIPGAIN 1/8\n\
         \x20ROUTE 10.3.0.0/16 = A MTU 1492 VARIANCEGAIN\n ROUTE DEFAULT 10.1.1.254 A MTU 1492\nENDROUTES\n"
    );
    let (p, v) = diags(&src);
    assert_eq!(
        v,
        [
            "s.prof:3:47: error: ROUTE 10.2.0.0/16 ROUNDTRIPGAIN: 1/8 is not valid (a decimal gain, e.g. 0.125)",
            "s.prof:4:33: error: ROUTE 10.3.0.0/16 VARIANCEGAIN: a value is missing (a decimal gain, e.g. 0.25)",
        ]
    );
    assert_eq!(p.routes.len(), 3);
}

/// IBM's static route examples code REPLACEABLE as REPL (IP Configuration
/// Guide: `Route DEFAULT6 FE80::1:2:3:4 OSAQDIO46 MTU 5000 REPL`); NOREPL
/// likewise. A shorter prefix is too short.
#[test]
fn repl_and_norepl_abbreviate_replaceable() {
    let intf = "INTERFACE Q6 DEFINE IPAQENET6 PORTNAME P2\n\
                INTERFACE Q4 DEFINE IPAQENET IPADDR 10.1.1.1/24 PORTNAME P1\n";
    let src = format!(
        "{intf}BEGINROUTES\n\
         \x20Route DEFAULT6 FE80::1:2:3:4 Q6 MTU 5000 REPL\n\
         \x20Route 10.2.0.0/16 10.1.1.254 Q4 MTU 1500 norepl\n\
         \x20Route 10.3.0.0/16 10.1.1.254 Q4 MTU 1500 Replaceable\n\
         EndRoutes\n"
    );
    let (p, v) = diags(&src);
    assert!(v.is_empty(), "{v:?}");
    let repl: Vec<Option<bool>> = p.routes.iter().map(|r| r.replaceable).collect();
    assert_eq!(repl, [Some(true), Some(false), Some(true)]);

    let (_, v) = diags(&format!(
        "{intf}BEGINROUTES\n Route 10.2.0.0/16 10.1.1.254 Q4 MTU 1500 REP\nENDROUTES\n"
    ));
    assert_eq!(
        v,
        ["s.prof:4:43: error: ROUTE 10.2.0.0/16: REP is too short an abbreviation of REPLaceable: code at least REPL"]
    );
}

/// PORT's entries belong to it in whatever column they start: an entry is
/// a port number (or UNRSV) with its protocol and job name, so a line that
/// starts with one in column 1 is not an unknown statement. A word that is
/// no entry in column 1 still ends the statement.
#[test]
fn port_entries_in_column_1_are_skipped_with_port() {
    let src = "PORT\n\
               20 TCP * NOAUTOLOG ; FTP data\n\
               21 TCP FTPD1\n\
               \x20  23 TCP TN3270\n\
               UNRSV TCP * DENY\n\
               PORTRANGE 10000 2000 TCP OMVS\n\
               12000 100 UDP OMVS\n\
               INTERFACE A DEFINE IPAQENET IPADDR 10.1.1.1/24 PORTNAME P1\n\
               PORT 7 UDP MISCSERV\n\
               FOO BAR\n";
    let (p, v) = diags(src);
    assert_eq!(
        v,
        [
            "s.prof:1:1: warning: statement PORT is not modelled by softosa and is skipped (z/OS would apply it)",
            "s.prof:6:1: warning: statement PORTRANGE is not modelled by softosa and is skipped (z/OS would apply it)",
            "s.prof:9:1: warning: statement PORT is not modelled by softosa and is skipped (z/OS would apply it)",
            "s.prof:10:1: error: unknown statement FOO",
        ]
    );
    assert_eq!(p.interfaces.len(), 1);
}

/// A whole profile laid out as SEZAINST(SAMPPROF) and IBM's configuration
/// examples lay one out, with the real parameters softosa does not model
/// on the statements it does (IPCONFIG SYSPLEXROUTING SOURCEVIPA
/// TCPSTACKSOURCEVIPA, GLOBALCONFIG NOTCPIPSTATISTICS, IPAQENET6 INTFID,
/// REPL and DELAYACKS on routes, PORT entries in column 1): it checks
/// without an error, parse and cross-statement rules alike, and what
/// softosa models is read.
#[test]
fn a_sampprof_style_profile_checks_clean() {
    let src = "\
; PROFILE.TCPIP for TCPIPA
ARPAGE 20
GLOBALCONFIG NOTCPIPSTATISTICS SEGMENTATIONOFFLOAD
   EXPLICITBINDPORTRANGE 5000 1000 SYSPLEXWLMPOLL 60
IPCONFIG DATAGRAMFWD SYSPLEXROUTING SOURCEVIPA TCPSTACKSOURCEVIPA 10.1.9.1
   DYNAMICXCF 10.1.7.1 255.255.255.0 1
   PATHMTUDISCOVERY TTL 64 ARPTO 1200
IPCONFIG6 DATAGRAMFWD SOURCEVIPA
   DYNAMICXCF 2001:db8:7::1 INTFID 6:7:8:9
SOMAXCONN 1024
TCPCONFIG TCPSENDBFRSIZE 256K TCPRCVBUFRSIZE 256K
   RESTRICTLOWPORTS
UDPCONFIG RESTRICTLOWPORTS
INTERFACE VIPA1 DEFINE VIRTUAL IPADDR 10.1.9.1
INTERFACE OSA1 DEFINE IPAQENET PORTNAME OSAPRT1 IPADDR 10.1.1.10/24
   SOURCEVIPAINT VIPA1 MTU 1492 INBPERF DYNAMIC
INTERFACE OSA16 DEFINE IPAQENET6 PORTNAME OSAPRT1
   INTFID 0:16:207:3 IPADDR 2001:db8:1::10
VIPADYNAMIC
   VIPADEFINE 255.255.255.0 10.1.8.1
   VIPADISTRIBUTE DEFINE 10.1.8.1 PORT 21 23 DESTIP ALL
ENDVIPADYNAMIC
BEGINRoutes
;      Destination    First hop   Link   Packet size
   ROUTE 10.1.1.0/24   =           OSA1   MTU 1492
   ROUTE 10.2.0.0 255.255.0.0 10.1.1.254 OSA1 MTU 1492 NODELAYACKS
   ROUTE DEFAULT       10.1.1.254  OSA1   MTU DEFAULTSIZE REPL
   ROUTE 2001:db8:1::/64 =         OSA16  MTU 1500
   ROUTE DEFAULT6      fe80::1     OSA16  MTU 1500 REPL
ENDRoutes
AUTOLOG 5
   FTPD JOBNAME FTPD1   ; FTP server
   OMPROUTE
ENDAUTOLOG
PORT
20 TCP * NOAUTOLOG      ; FTP data
21 TCP FTPD1            ; FTP control
23 TCP TN3270
START OSA1
START OSA16
";
    let (p, mut d) = parse_profile("s.prof", src);
    validate_profile(&p, &mut d);
    let errors: Vec<String> = d.errors().map(|x| x.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(p.interfaces.len(), 2);
    assert_eq!(p.static_vipas.len(), 1);
    assert_eq!(p.routes.len(), 5);
    assert_eq!(
        p.routes
            .iter()
            .filter(|r| r.replaceable == Some(true))
            .count(),
        2
    );
    assert!(p.ip.forwarding() && p.ip.dynamicxcf.is_some());
    assert!(p.global.segmentation_offload.is_some());
    assert_eq!((p.vipa.defines.len(), p.vipa.distributes.len()), (1, 1));
    assert_eq!(p.starts.len(), 2);
}

/// `INTERFACE name DELETE` (DELEte in the syntax diagram, in place of
/// DEFINE) is real z/OS syntax: not modelled, so a warning, not a missing
/// DEFINE and an unknown parameter.
#[test]
fn interface_delete_is_a_warning() {
    let (p, v) = diags("INTERFACE VIPAV4 DELETE\nINTERFACE OSA1 DELE\n");
    assert_eq!(
        v,
        [
            "s.prof:1:18: warning: INTERFACE VIPAV4 DELETE is not modelled by softosa and is ignored (z/OS would apply it)",
            "s.prof:2:16: warning: INTERFACE OSA1 DELETE is not modelled by softosa and is ignored (z/OS would apply it)",
        ]
    );
    assert!(p.interfaces.is_empty() && p.static_vipas.is_empty());
    let (_, v) = diags("INTERFACE OSA1 DEL\n");
    assert!(v[0].contains("DEFINE IPAQENET"), "{v:?}");
}

/// The IPv6 modify forms (`INTERFACE name ADDADDR addr`, DELADDR,
/// DEPRADDR, ADDTEMPPREFIX, DELTEMPPREFIX) are not a second DEFINE (that
/// gave six errors). ADDADDR and DELADDR of an IPAQENET6 interface defined
/// above change its addresses (on following lines too); the others, and
/// these of an interface this profile does not define, are one warning
/// each.
#[test]
fn interface_modify_forms_are_read() {
    let (p, v) = diags(
        "INTERFACE I6 DEFINE IPAQENET6 PORTNAME P1 IPADDR 2001:db8::1\n\
         INTERFACE i6 ADDADDR 2001:db8::5\n  2001:db8::6\n\
         INTERFACE I6 DELADDR 2001:db8::6\n\
         INTERFACE I6 DELTEMPPREFIX 2001:db8:1::/64\n\
         INTERFACE OTHER ADDADDR 2001:db8::7\nSTART I6\n",
    );
    assert_eq!(
        v,
        [
            "s.prof:5:14: warning: INTERFACE I6 DELTEMPPREFIX is not modelled by softosa and is ignored (z/OS would apply it)",
            "s.prof:6:17: warning: INTERFACE OTHER ADDADDR is not modelled by softosa and is ignored (z/OS would apply it)",
        ]
    );
    assert_eq!(p.interfaces.len(), 1);
    let addrs: Vec<String> = p.interfaces[0]
        .ipaddr
        .iter()
        .map(|a| a.value.addr.to_string())
        .collect();
    assert_eq!(addrs, ["2001:db8::1", "2001:db8::5"]);
    assert_eq!(p.starts.len(), 1);
    // An address that is no IPv6 unicast address, one to delete that the
    // interface does not have, and a word after the addresses are refused
    // where they stand.
    let (_, v) = diags(
        "INTERFACE I6 DEFINE IPAQENET6 PORTNAME P1\n\
         INTERFACE I6 ADDADDR 10.1.1.1 ff02::1\n\
         INTERFACE I6 DELADDR 2001:db8::9\n\
         INTERFACE I6 ADDADDR 2001:db8::5 NOW\n\
         INTERFACE I6 ADDADDR 2001:db8::5\n",
    );
    assert_eq!(
        v,
        [
            "s.prof:2:22: error: INTERFACE I6 ADDADDR: 10.1.1.1 is not valid (an IPv6 address for IPAQENET6)",
            "s.prof:2:31: error: INTERFACE I6 ADDADDR: ff02::1 is not valid (a multicast address; an interface needs a unicast address)",
            "s.prof:3:22: error: INTERFACE I6 DELADDR: 2001:db8::9 is not valid (not an address of interface I6)",
            "s.prof:4:34: error: unknown parameter NOW on the INTERFACE I6 statement",
            "s.prof:5:22: error: INTERFACE I6 ADDADDR: 2001:db8::5 is not valid (already an address of interface I6)",
        ]
    );
    // The change of an IPv4 interface is refused, as z/OS refuses it.
    let (_, v) = diags(
        "INTERFACE I4 DEFINE IPAQENET IPADDR 10.1.1.1/24 PORTNAME P1\n\
         INTERFACE I4 ADDADDR 2001:db8::5\n",
    );
    assert_eq!(
        v,
        ["s.prof:2:11: error: INTERFACE I4 ADDADDR: I4 is not valid (ADDADDR changes an IPAQENET6 interface; this one is IPAQENET)"]
    );
    let (_, v) =
        diags("INTERFACE V1 DEFINE VIRTUAL IPADDR 10.1.1.1\nINTERFACE V1 DELADDR 10.1.1.1\n");
    assert_eq!(
        v,
        ["s.prof:2:11: error: INTERFACE V1 DELADDR: V1 is not valid (DELADDR changes an IPAQENET6 interface; this one is VIRTUAL)"]
    );
}

/// A value-taking parameter softosa does not model, with its value left
/// out, never takes the statement's next parameter as its value: any
/// parameter of the statement (modelled or not) is the next parameter, and
/// the value is missing. DYNAMICXCF's and DATAGRAMFWD's sub-parameters
/// took the next IPCONFIG parameter as their value, so NODATAGRAMFWD or
/// QDIOACCELERATOR was silently lost.
#[test]
fn a_missing_value_never_takes_the_next_parameter() {
    let xcf = "IPCONFIG DYNAMICXCF 10.1.7.1 255.255.255.0 1 SOURCEVIPAINTERFACE";
    let missing = "s.prof:1:46: error: IPCONFIG DYNAMICXCF SOURCEVIPAINTERFACE: a value is missing (the name of a static VIPA interface, 1-16 characters)";
    let (p, v) = diags(&format!("{xcf}\n   NODATAGRAMFWD\n"));
    assert_eq!(v, [missing]);
    assert_eq!(
        p.ip.datagramfwd.as_ref().map(|f| f.value),
        Some(false),
        "NODATAGRAMFWD is read"
    );
    let (p, v) = diags(&format!("{xcf} QDIOACCELERATOR\n"));
    assert_eq!(v, [missing]);
    assert!(p.ip.qdioaccelerator.is_some());
    let (_, v) = diags(&format!("{xcf}\n   SYSPLEXROUTING\n"));
    assert_eq!(
        v,
        [
            missing,
            "s.prof:2:4: warning: IPCONFIG SYSPLEXROUTING is not modelled by softosa and is ignored (z/OS would apply it)",
        ]
    );
    // A keyword value: the same.
    let (p, v) = diags("IPCONFIG DATAGRAMFWD FWDMULTIPATH QDIOACCELERATOR\n");
    assert_eq!(
        v,
        ["s.prof:1:22: error: IPCONFIG DATAGRAMFWD FWDMULTIPATH: a value is missing (PERPACKET)"]
    );
    assert!(p.ip.qdioaccelerator.is_some());
    // A sub-parameter abbreviated too short is one error, as any
    // parameter is: not an unknown parameter, and its value with it.
    let (_, v) = diags("IPCONFIG DYNAMICXCF 10.1.7.1/24 1 SOURCEVIPAIN VIPA1\n");
    assert_eq!(
        v,
        ["s.prof:1:35: error: SOURCEVIPAIN is too short an abbreviation of SOURCEVIPAINTerface: code at least SOURCEVIPAINT"]
    );
    // A name that is no parameter is still the name.
    let (_, v) = diags(&format!("{xcf} VIPA1 QDIOACCELERATOR\n"));
    assert_eq!(
        v,
        ["s.prof:1:46: warning: IPCONFIG DYNAMICXCF SOURCEVIPAINTERFACE is not modelled by softosa and is ignored (z/OS would apply it)"]
    );
}

/// TCPIPSTATISTICS is both a statement and a parameter of GLOBALCONFIG.
/// Inside GLOBALCONFIG it is the parameter: spelled in full it ended the
/// statement, and the parameters after it (SEGMENTATIONOFFLOAD here) were
/// skipped with a "statement TCPIPSTATISTICS" warning. Outside, it is
/// still the statement.
#[test]
fn globalconfig_tcpipstatistics_in_full_is_the_parameter() {
    let not_modelled_stat = "warning: GLOBALCONFIG TCPIPSTATISTICS is not modelled by softosa and is ignored (z/OS would apply it)";
    for src in [
        "GLOBALCONFIG TCPIPSTATISTICS SEGMENTATIONOFFLOAD\n",
        "GLOBALCONFIG TCPIPSTATISTICS\n   SEGMENTATIONOFFLOAD\n",
        "GLOBALCONFIG NOTCPIPSTATISTICS TCPIPSTATISTICS SEGMENTATIONOFFLOAD\n",
    ] {
        let (p, v) = diags(src);
        assert!(
            v.iter().any(|x| x.ends_with(not_modelled_stat)),
            "{src:?}: {v:?}"
        );
        assert!(
            v.iter().all(|x| x.contains(": warning: ")),
            "{src:?}: {v:?}"
        );
        assert!(
            p.global.segmentation_offload.is_some(),
            "{src:?}: SEGMENTATIONOFFLOAD is read"
        );
    }
    let (_, v) = diags("TCPIPSTATISTICS\n");
    assert_eq!(
        v,
        ["s.prof:1:1: warning: statement TCPIPSTATISTICS is not modelled by softosa and is skipped (z/OS would apply it)"]
    );
}

/// TCPIPSTATISTICS is a statement, and a parameter of SMFCONFIG too (IP
/// Configuration Reference, SMFCONFIG statement: TYPE118 and TYPE119
/// TCPIPSTATISTICS, the parameters in any order). SMFCONFIG is not
/// modelled, and skipping it stopped at TCPIPSTATISTICS as if a statement
/// began there: a second warning, "statement TCPIPSTATISTICS is not
/// modelled", for a word of the first. Inside SMFCONFIG it is SMFCONFIG's
/// parameter, wherever it is coded (as inside GLOBALCONFIG): one warning,
/// and the statements after it are still read. Elsewhere it is still the
/// statement.
#[test]
fn smfconfig_tcpipstatistics_is_smfconfigs_parameter() {
    let smfconfig = "s.prof:1:1: warning: statement SMFCONFIG is not modelled by softosa and is skipped (z/OS would apply it)";
    for src in [
        "SMFCONFIG TCPIPSTATISTICS\n",
        "SMFCONFIG TYPE118 TCPIPSTATISTICS TYPE119 TCPIPSTATISTICS IFSTATISTICS\n",
        "SMFCONFIG TYPE118 TCPINIT\n   TCPIPSTATISTICS\n",
        "SMFCONFIG TYPE118\nTCPIPSTATISTICS NOTCPINIT\n",
    ] {
        let (p, v) = diags(&format!(
            "{src}INTERFACE A DEFINE IPAQENET IPADDR 10.1.1.1/24 PORTNAME P1\n"
        ));
        assert_eq!(v, [smfconfig], "{src:?}");
        assert_eq!(p.interfaces.len(), 1, "{src:?}");
    }
    let (_, v) = diags("UDPCONFIG RESTRICTLOWPORTS TCPIPSTATISTICS\nSMFCONFIG TYPE118\n");
    assert_eq!(
        v,
        [
            "s.prof:1:1: warning: statement UDPCONFIG is not modelled by softosa and is skipped (z/OS would apply it)",
            "s.prof:1:28: warning: statement TCPIPSTATISTICS is not modelled by softosa and is skipped (z/OS would apply it)",
            "s.prof:2:1: warning: statement SMFCONFIG is not modelled by softosa and is skipped (z/OS would apply it)",
        ]
    );
}

/// Only a port number 1-65535 (or UNRSV, for PORT only) in column 1
/// continues a PORT or PORTRANGE statement. Anything that merely began
/// with a digit did, so a HOME list that lost its HOME line (`10.1.1.10
/// OSA1`) was skipped as a PORT entry without a word.
#[test]
fn only_a_port_number_in_column_1_continues_port() {
    let (_, v) = diags("PORT\n21 TCP FTPD1\n10.1.1.10 OSA1\n");
    assert_eq!(
        v,
        [
            "s.prof:1:1: warning: statement PORT is not modelled by softosa and is skipped (z/OS would apply it)",
            "s.prof:3:1: error: unknown statement 10.1.1.10",
        ]
    );
    for (entry, continues) in [
        ("65535 TCP X", true),
        ("1 TCP X", true),
        ("99999 TCP X", false),
        ("0 TCP X", false),
        ("21A TCP X", false),
    ] {
        let (_, v) = diags(&format!("PORT\n21 TCP FTPD1\n{entry}\n"));
        assert_eq!(v.len() == 1, continues, "{entry}: {v:?}");
    }
    // UNRSV is PORT's; a PORTRANGE entry begins with its first port.
    let (_, v) = diags("PORTRANGE 10000 2000 TCP OMVS\n12000 100 UDP OMVS\nUNRSV TCP * DENY\n");
    assert_eq!(
        v,
        [
            "s.prof:1:1: warning: statement PORTRANGE is not modelled by softosa and is skipped (z/OS would apply it)",
            "s.prof:3:1: error: unknown statement UNRSV",
        ]
    );
}

/// One mistake is one error. A refused DYNAMICXCF value skipped the
/// reading of its sub-parameters, so each became an unknown parameter
/// (six errors for one bad cost metric); a sub-parameter out of place had
/// its value reported as an unknown parameter too; a keyword value
/// abbreviated too short was an unknown parameter; and INTERFACE without
/// DEFINE refused INTFID as not valid for an IPAQENET nobody coded.
#[test]
fn one_mistake_is_one_error() {
    let first_error = |src: &str| {
        let (_, v) = diags(src);
        let errors: Vec<String> = v.into_iter().filter(|x| x.contains(": error: ")).collect();
        assert_eq!(errors.len(), 1, "{src:?}: {errors:?}");
        errors.into_iter().next().unwrap_or_default()
    };
    // A refused DYNAMICXCF value: its sub-parameters are still read.
    let (_, v) = diags("IPCONFIG DYNAMICXCF 10.7.7.1/24 20 SECCLASS 9 SMCD SOURCEVIPAINT VIPA1\n");
    assert_eq!(
        v,
        [
            "s.prof:1:33: error: IPCONFIG DYNAMICXCF: 20 is not valid (cost metric 1-16)",
            "s.prof:1:36: warning: IPCONFIG DYNAMICXCF SECCLASS is not modelled by softosa and is ignored (z/OS would apply it)",
            "s.prof:1:47: warning: IPCONFIG DYNAMICXCF SMCD is not modelled by softosa and is ignored (z/OS would apply it)",
            "s.prof:1:52: warning: IPCONFIG DYNAMICXCF SOURCEVIPAINTERFACE is not modelled by softosa and is ignored (z/OS would apply it)",
        ]
    );
    for src in [
        "IPCONFIG DYNAMICXCF 10.7.7.1 255.0.255.0 1 SECCLASS 9\n",
        "IPCONFIG DYNAMICXCF 10.7.7 255.255.255.0 1 SECCLASS 9\n",
        "IPCONFIG DYNAMICXCF 10.7.7.1/40 1 SECCLASS 9\n",
        "IPCONFIG DYNAMICXCF 10.7.7.1/24 X SECCLASS 9\n",
    ] {
        first_error(src);
    }
    // A sub-parameter out of place: said so, once, whichever parent.
    assert_eq!(
        first_error("IPCONFIG SYSPLEXROUTING FWDMULTIPATH PERPACKET\n"),
        "s.prof:1:25: error: parameter FWDMULTIPATH is not valid on IPCONFIG except right after DATAGRAMFWD"
    );
    assert_eq!(
        first_error("IPCONFIG DYNAMICXCF 10.1.7.1/24 1 SYSPLEXROUTING SECCLASS 5\n"),
        "s.prof:1:50: error: parameter SECCLASS is not valid on IPCONFIG except right after DYNAMICXCF"
    );
    // A keyword value abbreviated too short.
    assert_eq!(
        first_error("IPCONFIG MULTIPATH PER\n"),
        "s.prof:1:20: error: PER is too short an abbreviation of PERConnection: code at least PERC"
    );
    assert_eq!(
        first_error("GLOBALCONFIG ADJUSTDVIPAMSS NON SEGMENTATIONOFFLOAD\n"),
        "s.prof:1:29: error: NON is too short an abbreviation of NONE: code it in full"
    );
    // DEFINE missing: the kind coded without it is read, and no kind is
    // made up.
    let (p, v) = diags("INTERFACE O6 IPAQENET6 PORTNAME P1 INTFID 0:1:2:3 IPADDR 2001:db8::1\n");
    assert_eq!(
        v,
        [
            "s.prof:1:11: error: INTERFACE O6: the required DEFINE before IPAQENET6 is missing",
            "s.prof:1:36: warning: INTERFACE O6 INTFID is not modelled by softosa and is ignored (z/OS would apply it)",
        ]
    );
    assert_eq!(p.interfaces[0].kind, InterfaceKind::IpaqEnet6);
    let (_, v) = diags("INTERFACE O6 PORTNAME P1 INTFID 0:1:2:3\n");
    assert!(
        v.iter().all(|x| !x.contains("not valid for DEFINE")),
        "{v:?}"
    );
}

/// After a parameter whose values are skipped (one softosa cannot check,
/// or one abbreviated too short), a later parameter abbreviated too short
/// is reported, not skipped with those values.
#[test]
fn skipped_values_end_at_a_too_short_parameter() {
    let (_, v) = diags("GLOBALCONFIG AIASSIST XYZ SEGMENTATIONOFF\n");
    assert_eq!(v.len(), 2, "{v:?}");
    assert_eq!(
        v[1],
        "s.prof:1:27: error: SEGMENTATIONOFF is too short an abbreviation of SEGMENTATIONOFFLoad: code at least SEGMENTATIONOFFL"
    );
    let (_, v) = diags("IPCONFIG SYSPLEXR REASSEMB 60 SOURCEV\n");
    assert_eq!(v.len(), 3, "{v:?}");
}

/// Profiles IBM documents that were refused. GLOBALCONFIG ZERT
/// [AGGREGATION [INTVAL SMF|intval] [SYNCVAL hh:mm] | NOAGGREGATION]
/// (GLOBALCONFIG syntax diagram; SAMPPROF's `GLOBALCONFIG ZERT
/// AGGREGATION`), and INTERFACE ... TEMPIP, which takes no value and is
/// coded in place of IPADDR on an IPv4 IPAQENET interface (IP
/// Configuration Guide, "Using TEMPIP interfaces").
#[test]
fn zert_aggregation_and_tempip_are_accepted() {
    let (p, v) = diags(
        "GLOBALCONFIG ZERT AGGREGATION SEGMENTATIONOFFLOAD\n\
         GLOBALCONFIG ZERT AGG INTVAL SMF SYNCVAL 00:30 NOZERT ZERT NOAGGREGATION\n\
         GLOBALCONFIG ZERT AGGREGATION INTVAL 4\n",
    );
    assert_eq!(
        not_modelled(&v),
        [
            "1:14 GLOBALCONFIG ZERT",
            "2:14 GLOBALCONFIG ZERT",
            "2:23 GLOBALCONFIG ZERT AGGREGATION INTVAL",
            "2:34 GLOBALCONFIG ZERT AGGREGATION SYNCVAL",
            "2:48 GLOBALCONFIG NOZERT",
            "2:55 GLOBALCONFIG ZERT",
            "3:14 GLOBALCONFIG ZERT",
            "3:31 GLOBALCONFIG ZERT AGGREGATION INTVAL",
        ],
        "{v:?}"
    );
    // And ZERT/NOZERT coded more than once on line 2.
    assert_eq!(v.len(), 10, "{v:?}");
    assert!(p.global.segmentation_offload.is_some());
    // INTVAL and SYNCVAL belong to ZERT AGGREGATION.
    let (_, v) = diags("GLOBALCONFIG ZERT NOAGGREGATION INTVAL 5 SYNCVAL 9:30\n");
    assert_eq!(
        v[1..],
        [
            "s.prof:1:33: error: parameter INTVAL is not valid on GLOBALCONFIG except right after ZERT AGGREGATION",
            "s.prof:1:42: error: parameter SYNCVAL is not valid on GLOBALCONFIG except right after ZERT AGGREGATION",
        ]
    );
    let (_, v) = diags("GLOBALCONFIG ZERT AGGREGATION SYNCVAL 9:30\n");
    assert_eq!(
        v[1],
        "s.prof:1:39: error: GLOBALCONFIG ZERT AGGREGATION SYNCVAL: 9:30 is not valid (a time of day hh:mm, e.g. 00:00)"
    );

    // TEMPIP: a flag, in place of IPADDR; the interface has no address.
    let src = "INTERFACE T1 DEFINE IPAQENET PORTNAME P1 TEMPIP VLANID 5\nSTART T1\n";
    let (p, mut d) = parse_profile("s.prof", src);
    validate_profile(&p, &mut d);
    let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
    assert_eq!(
        v,
        ["s.prof:1:42: warning: INTERFACE T1 TEMPIP is not modelled by softosa and is ignored (z/OS would apply it)"]
    );
    let t1 = &p.interfaces[0];
    assert!(t1.tempip.is_some() && t1.ipaddr.is_empty());
    assert_eq!(t1.vlanid.as_ref().map(|x| x.value), Some(5));
    // IPv4 IPAQENET only.
    let (_, v) = diags("INTERFACE T6 DEFINE IPAQENET6 PORTNAME P1 TEMPIP MTU 1500\n");
    assert_eq!(
        v,
        ["s.prof:1:43: error: interface T6: TEMPIP is not valid for DEFINE IPAQENET6"]
    );
}

/// `INTERFACE name DELETE` of an interface the profile defines above it:
/// z/OS would delete it, softosa does not apply DELETE and would still
/// simulate it, so that is an error that says so. Of an interface this
/// profile does not define above (an earlier profile's, or one it defines
/// again below), it stays a warning, which names the interface.
#[test]
fn interface_delete_of_an_interface_defined_above_is_an_error() {
    let (_, v) = diags(
        "INTERFACE VIPA1 DELETE\n\
         INTERFACE VIPA1 DEFINE VIRTUAL IPADDR 10.1.9.1\n\
         INTERFACE OSA1 DEFINE IPAQENET PORTNAME P1 IPADDR 10.1.1.10/24\n\
         START OSA1\n\
         INTERFACE osa1 DELETE\n\
         INTERFACE VIPA1 DELETE\n",
    );
    assert_eq!(
        v,
        [
            "s.prof:1:17: warning: INTERFACE VIPA1 DELETE is not modelled by softosa and is ignored (z/OS would apply it)",
            "s.prof:5:16: error: INTERFACE osa1 DELETE: osa1 is defined above (line 3); softosa does not apply DELETE, so it would still simulate the interface: remove the DELETE, or the definition",
            "s.prof:6:17: error: INTERFACE VIPA1 DELETE: VIPA1 is defined above (line 2); softosa does not apply DELETE, so it would still simulate the interface: remove the DELETE, or the definition",
        ]
    );
}

/// A not-modelled parameter coded twice in one statement (or a parameter
/// and its NO form) is a warning, as a modelled one is; so are REPLACEABLE
/// and NOREPLACEABLE, or MTU, twice on one ROUTE.
#[test]
fn not_modelled_parameters_coded_twice_are_a_warning() {
    let repeated = |v: &[String]| -> Vec<String> {
        v.iter()
            .filter(|x| x.contains("is coded more than once"))
            .cloned()
            .collect()
    };
    let (_, v) = diags(
        "IPCONFIG TTL 60 TTL 64 SOURCEVIPA NOSOURCEVIPA\n\
         IPCONFIG TTL 32 DATAGRAMFWD NOFWDMULTIPATH FWDMULTIPATH PERPACKET\n",
    );
    assert_eq!(
        repeated(&v),
        [
            "s.prof:1:17: warning: IPCONFIG: TTL is coded more than once; the last value is used",
            "s.prof:1:35: warning: IPCONFIG: SOURCEVIPA/NOSOURCEVIPA is coded more than once; the last value is used",
            "s.prof:2:44: warning: IPCONFIG: DATAGRAMFWD FWDMULTIPATH/NOFWDMULTIPATH is coded more than once; the last value is used",
        ]
    );
    let (_, v) = diags("GLOBALCONFIG ZERT NOZERT XCFGRPID 11 XCFGRPID 12\n");
    assert_eq!(
        repeated(&v),
        [
            "s.prof:1:19: warning: GLOBALCONFIG: ZERT/NOZERT is coded more than once; the last value is used",
            "s.prof:1:38: warning: GLOBALCONFIG: XCFGRPID is coded more than once; the last value is used",
        ]
    );
    let (_, v) = diags(
        "INTERFACE A DEFINE IPAQENET IPADDR 10.1.1.1/24 PORTNAME P1\n\
         BEGINROUTES\n\
         \x20ROUTE 10.2.0.0/16 10.1.1.254 A MTU 1492 REPL NOREPL MTU 1500 DELAYACKS NODELAYACKS\n\
         \x20ROUTE 10.3.0.0/16 10.1.1.254 A MTU 1492 REPL DELAYACKS\n\
         ENDROUTES\n",
    );
    assert_eq!(
        repeated(&v),
        [
            "s.prof:3:47: warning: ROUTE 10.2.0.0/16: REPLACEABLE/NOREPLACEABLE is coded more than once; the last value is used",
            "s.prof:3:54: warning: ROUTE 10.2.0.0/16: MTU is coded more than once; the last value is used",
            "s.prof:3:73: warning: ROUTE 10.2.0.0/16: DELAYACKS/NODELAYACKS is coded more than once; the last value is used",
        ]
    );
}

/// A parameter coded twice on a named statement names it, modelled or
/// not: "INTERFACE: MTU is coded more than once" did not say whose.
#[test]
fn parameters_coded_twice_name_their_statement() {
    let (_, v) = diags(
        "INTERFACE O4 DEFINE IPAQENET PORTNAME P1 IPADDR 10.1.1.1/24 MTU 1500 MTU 1492\n\
         \x20 TEMPIP TEMPIP\n\
         DEVICE D1 MPCIPA PRIROUTER NONROUTER\n",
    );
    assert_eq!(
        v.iter()
            .filter(|x| x.contains("is coded more than once"))
            .collect::<Vec<_>>(),
        [
            "s.prof:1:74: warning: INTERFACE O4: MTU is coded more than once; the last value is used",
            "s.prof:2:10: warning: INTERFACE O4: TEMPIP is coded more than once; the last value is used",
            "s.prof:3:28: warning: DEVICE D1: PRIROUTER/SECROUTER/NONROUTER is coded more than once; the last value is used",
        ]
    );
}

/// A keyword z/OS accepts only in full: "code it in full", not "code at
/// least" the keyword itself.
#[test]
fn a_keyword_with_no_abbreviation_is_to_be_coded_in_full() {
    let (_, v) = diags(
        "INTERFACE A DEFINE IPAQENET IPADDR 10.1.1.1/24 PORTNAME P1\n\
         BEGINROUTES\n ROUTE 10.2.0.0/16 = A MT 1492 MAXIMUMRETRANS 120\nENDROUTES\n",
    );
    assert_eq!(
        v,
        [
            "s.prof:3:24: error: ROUTE 10.2.0.0/16: MT is too short an abbreviation of MTU: code it in full",
            "s.prof:3:32: error: ROUTE 10.2.0.0/16: MAXIMUMRETRANS is too short an abbreviation of MAXIMUMRETRANSMITTIME: code it in full",
        ]
    );
}

#[test]
fn an_interface_address_must_be_unicast() {
    // Accepted without a word before: an interface cannot own these.
    for (addr, says) in [
        ("0.0.0.0/24", "the unspecified address"),
        ("255.255.255.255/32", "the broadcast address"),
        ("224.0.0.1/24", "a multicast address"),
        ("127.0.0.1/8", "a loopback address"),
        ("240.0.0.1/8", "a reserved address"),
    ] {
        let (_, v) = diags(&format!(
            "INTERFACE A DEFINE IPAQENET IPADDR {addr} PORTNAME P1\n"
        ));
        assert_eq!(v.len(), 1, "{addr}: {v:?}");
        assert!(
            v[0].contains(&format!("IPADDR: {addr} is not valid ({says}")),
            "{v:?}"
        );
    }
    for (addr, says) in [
        ("::", "the unspecified"),
        ("ff02::1", "a multicast"),
        ("::1", "the loopback"),
    ] {
        let (_, v) = diags(&format!(
            "INTERFACE A6 DEFINE IPAQENET6 IPADDR {addr} PORTNAME P1\n"
        ));
        assert!(v.iter().any(|d| d.contains(says)), "{addr}: {v:?}");
    }
    let (_, v) = diags("INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n");
    assert!(v.is_empty(), "{v:?}");
}

#[test]
fn lines_may_end_in_a_carriage_return_alone() {
    // Read as one line (a comment, or nothing) before.
    let src = "; a CR-only file\rINTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24\r  PORTNAME P1 BADKW\rSTART A\r";
    let (p, v) = diags(src);
    assert_eq!(p.interfaces.len(), 1, "{v:?}");
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].starts_with("s.prof:3:15: error: unknown parameter BADKW"),
        "{v:?}"
    );
    // CR LF and LF still count one line each.
    let (_, v) = diags("\r\nINTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1 BADKW\n");
    assert!(v[0].starts_with("s.prof:2:"), "{v:?}");
}

#[test]
fn a_huge_token_is_not_echoed_whole() {
    // A 10 MB interface name made a 10 MB diagnostic line.
    let name = "A".repeat(20_000);
    let (_, v) = diags(&format!(
        "INTERFACE {name} DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\n"
    ));
    assert!(!v.is_empty());
    for d in &v {
        assert!(d.chars().count() < 1200, "{} characters", d.len());
    }
    assert!(v.iter().any(|d| d.contains("more characters)")), "{v:?}");
}

/// Devices, links and interfaces of real z/OS types softosa does not model
/// (the MPCPTP device IUTSAMEH of nearly every sysplex profile, a CTC, an
/// IPAQIDIO6 interface) are a warning each, and the HOME, START and ROUTE
/// entries that name them go with them, instead of four errors that made
/// the whole profile unusable. A type that is no z/OS type stays an error.
#[test]
fn devices_of_types_softosa_does_not_model_are_skipped_with_their_references() {
    let src = "DEVICE IUTSAMEH MPCPTP\n\
               LINK EELINK MPCPTP IUTSAMEH\n\
               DEVICE CTC1 CTC 0E00\n\
               LINK CTCL1 CTC 0 CTC1\n\
               HOME 10.8.8.8 EELINK\n\
               \x20    10.9.9.9 CTCL1\n\
               INTERFACE HS6 DEFINE IPAQIDIO6 CHPID F5 IPADDR 2001:DB8:2::1\n\
               INTERFACE OSA1 DEFINE IPAQENET PORTNAME P1 IPADDR 192.0.2.1/24\n\
               BEGINROUTES\n\
               ROUTE 10.7.0.0/16 10.8.8.9 EELINK MTU 1500\n\
               ENDROUTES\n\
               START IUTSAMEH\nSTART CTC1\nSTART HS6\nSTART OSA1\n";
    let (p, v) = diags(src);
    let skipped: Vec<&String> = v
        .iter()
        .filter(|d| d.contains("a type softosa does not model"))
        .collect();
    assert_eq!(skipped.len(), 5, "{v:?}");
    assert!(
        v[0].starts_with("s.prof:1:17: warning: DEVICE IUTSAMEH MPCPTP"),
        "{v:?}"
    );
    assert!(v.iter().all(|d| d.contains("warning")), "{v:?}");
    assert!(p.home.is_empty(), "{:?}", p.home);
    assert!(p.routes.is_empty(), "{:?}", p.routes);
    let started: Vec<&str> = p.starts.iter().map(|s| s.name.value.as_str()).collect();
    assert_eq!(started, ["OSA1"]);
    // What remains activates: one interface, the OSA.
    use softosa_profile::activate::{activate, ActivateOptions, StackInput};
    let input = StackInput {
        name: "T".into(),
        profile: &p,
        policy: None,
    };
    let cfg = activate(&[input], &[], &ActivateOptions::default())
        .expect("the rest of the profile activates")
        .config;
    let names: Vec<&str> = cfg.interfaces.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["OSA1"]);
    // A skipped device's name does not take a modelled link's HOME with
    // it, nor a skipped link's name a modelled device's START.
    let (p, v) = diags(
        "DEVICE X1 CTC 0E00\nDEVICE D1 MPCIPA\nLINK X1 IPAQENET D1\nHOME 192.0.2.1 X1\n\
         LINK D1 CTC 0 X1\nSTART D1\n",
    );
    assert_eq!(p.home.len(), 1, "{v:?}");
    assert_eq!(p.starts.len(), 1, "{v:?}");
    // A misspelt type is no z/OS type: an error, as before.
    let (_, v) = diags("DEVICE D1 MPCIAP\n");
    assert!(v[0].contains("error") && v[0].contains("MPCIAP"), "{v:?}");
}

/// The MPCIPA LINK statement's own parameters that softosa does not model
/// are warnings naming the link, not "belongs on INTERFACE"; SECCLASS and
/// MONSYSPLEX (IBM's TCPIPCS PROFILE output writes `SECCLASS 255
/// NOMONSYSPLEX` on a LINK) are read, as on INTERFACE.
#[test]
fn link_parameters_softosa_does_not_model_are_warnings() {
    let (p, v) =
        diags("DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1 SECCLASS 12 MONSYSPLEX IPBCAST DYNVLANREG\n");
    assert_eq!(
        not_modelled(&v),
        ["2:44 LINK L1 IPBCAST", "2:52 LINK L1 DYNVLANREG"],
        "{v:?}"
    );
    assert_eq!(v.len(), 2, "{v:?}");
    let l = &p.links[0];
    assert_eq!(l.secclass.as_ref().map(|c| c.value), Some(12));
    assert_eq!(l.monsysplex.as_ref().map(|m| m.value), Some(true));
    let (_, v) = diags("DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1 SECCLASS 0\n");
    assert!(
        v.iter().any(|d| d.contains("a security class 1-255")),
        "{v:?}"
    );
    // A parameter of INTERFACE alone is still refused on a LINK.
    let (_, v) = diags("DEVICE D1 MPCIPA\nLINK L1 IPAQENET D1 PORTNAME P1\n");
    assert!(v.iter().any(|d| d.contains("error")), "{v:?}");
}

/// VIPADISTRIBUTE options softosa does not model (SYSPLEXPORTS, OPTLOCAL,
/// TIMEDAFFINITY, a target's WEIGHT, HOTSTANDBY's PREFERRED and BACKUP)
/// are warnings; SYSPLEXPORTS was taken for the end of the statement and
/// the next VIPA sub-statement, with a false "address missing".
#[test]
fn vipadistribute_options_are_read_and_ignored() {
    let (p, v) = diags(
        "VIPADYNAMIC\n\
         \x20 VIPADEFINE MOVEABLE IMMEDIATE 255.255.255.0 192.0.2.50\n\
         \x20 VIPADISTRIBUTE DEFINE SYSPLEXPORTS DISTMETHOD SERVERWLM 192.0.2.50 PORT 8080 DESTIP ALL\n\
         \x20 VIPADISTRIBUTE DEFINE OPTLOCAL 1 TIMEDAFFINITY 60 192.0.2.51 PORT 443\n\
         \x20   DESTIP 10.99.1.2 WEIGHT 10 10.99.1.3 WEIGHT 20\n\
         \x20 VIPADISTRIBUTE DEFINE DISTMETHOD HOTSTANDBY NOAUTOSWITCHBACK NOHEALTHSWITCH\n\
         \x20   192.0.2.52 PORT 23\n\
         \x20   DESTIP 203.3.10.16 PREFERRED 203.3.10.17 BACKUP 50\n\
         ENDVIPADYNAMIC\n",
    );
    assert!(v.iter().all(|d| d.contains("warning")), "{v:?}");
    assert_eq!(
        v.iter().filter(|d| d.contains("VIPADISTRIBUTE")).count(),
        9,
        "{v:?}"
    );
    assert_eq!(p.vipa.distributes.len(), 3, "{:?}", p.vipa);
    // TIMEDAFFINITY needs its seconds: one error, no warning beside it.
    let (_, v) = diags(
        "VIPADYNAMIC\n VIPADISTRIBUTE TIMEDAFFINITY 192.0.2.50 PORT 80 DESTIP ALL\nENDVIPADYNAMIC\n",
    );
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].contains("error") && v[0].contains("TIMEDAFFINITY"),
        "{v:?}"
    );
}

/// SOURCEVIPAINTERFACE names one of the profile's static VIPAs; a name
/// that is none was accepted without a word.
#[test]
fn a_source_vipa_interface_must_be_defined() {
    let base = "INTERFACE VIPA1 DEFINE VIRTUAL IPADDR 10.1.1.99\n\
                DEVICE VD VIRTUAL 0\nLINK VL VIRTUAL 0 VD\nHOME 10.1.1.98 VL\n\
                INTERFACE O1 DEFINE IPAQENET PORTNAME P1 IPADDR 192.0.2.1/24 SOURCEVIPAINTERFACE ";
    let base = base.replace(
        "INTERFACE VIPA1",
        "INTERFACE V6 DEFINE VIRTUAL6 IPADDR 2001:db8::9\nINTERFACE VIPA1",
    );
    for (name, ok) in [
        ("VIPA1", true),
        ("vl", true),
        ("NOSUCH", false),
        ("V6", false),
    ] {
        let (p, _) = diags(&format!("{base}{name}\nSTART O1\n"));
        let mut d = Diagnostics::new();
        validate_profile(&p, &mut d);
        let errors: Vec<String> = d.errors().map(|x| x.to_string()).collect();
        assert_eq!(errors.is_empty(), ok, "{name}: {errors:?}");
        if !ok {
            assert!(
                errors[0].contains(&format!(
                    "SOURCEVIPAINTERFACE {name}: no VIRTUAL interface or LINK"
                )),
                "{errors:?}"
            );
        }
    }
}

/// DELETE DEVICE / LINK / PORT: the object's word belongs to the DELETE
/// (it was read as a new DEVICE statement missing its type).
#[test]
fn delete_takes_its_object_with_it() {
    let (p, v) = diags(
        "DELETE DEVICE OLDDEV\nDELETE LINK OLDLINK\nDELETE PORT 23 TCP TN3270\n\
         INTERFACE O1 DEFINE IPAQENET PORTNAME P1 IPADDR 192.0.2.1/24\n",
    );
    assert_eq!(
        v,
        [
            "s.prof:1:1: warning: statement DELETE DEVICE is not modelled by softosa and is skipped (z/OS would apply it)",
            "s.prof:2:1: warning: statement DELETE LINK is not modelled by softosa and is skipped (z/OS would apply it)",
            "s.prof:3:1: warning: statement DELETE PORT is not modelled by softosa and is skipped (z/OS would apply it)",
        ]
    );
    assert!(p.devices.is_empty() && p.links.is_empty());
    assert_eq!(p.interfaces.len(), 1);
    // Its object on the next line is its own too.
    let (p, v) = diags("DELETE\n  DEVICE OLDDEV\n");
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].contains("statement DELETE DEVICE"), "{v:?}");
    assert!(p.devices.is_empty());
}

/// z/OS system symbols (`&SYSCLONE.`) are named once each, so that the
/// error of an address holding one says more than "not valid".
#[test]
fn system_symbols_are_named_once_each() {
    let (_, v) = diags(
        "INTERFACE OSA&SYSCLONE. DEFINE IPAQENET PORTNAME OSAPRT1 IPADDR &HOMEIP./24\n\
         START OSA&sysclone.\n",
    );
    let symbols: Vec<&String> = v
        .iter()
        .filter(|d| d.contains("is a system symbol"))
        .collect();
    assert_eq!(symbols.len(), 2, "{v:?}");
    assert!(symbols[0].starts_with("s.prof:1:11: warning: &SYSCLONE. is a system symbol"));
    assert!(symbols[1].contains("&HOMEIP."), "{v:?}");
    assert!(v
        .iter()
        .any(|d| d.contains("error") && d.contains("&HOMEIP./24")));
    // An ampersand that starts no symbol is not one.
    let (_, v) = diags("INTERFACE O1 DEFINE IPAQENET PORTNAME P&1 IPADDR 192.0.2.1/24\n");
    assert!(!v.iter().any(|d| d.contains("system symbol")), "{v:?}");
}
