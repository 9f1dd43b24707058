//! GLOBALCONFIG SMCR and SMCD (spec 4.4): read with their options, checked,
//! activated and printed back.

use softosa_profile::print::print_profile;

mod common;
use common::diags;

#[test]
fn smcr_with_pfids_and_smcd_are_read_and_print_back() {
    let src = "GLOBALCONFIG SMCR PFID 0018 PORTNUM 1 MTU 1024 PFID 19 PORTN 2\n\
               \x20  FIXEDMEMORY 256 TCPKEEPMININTERVAL 300 SMCD FIXEDM 128 SEGMENTATIONOFFLOAD\n";
    let (p, v) = diags(src);
    assert!(v.is_empty(), "{v:?}");
    let g = &p.global;
    assert_eq!(g.smcr.as_ref().map(|x| x.value), Some(true));
    assert_eq!(g.smcd.as_ref().map(|x| x.value), Some(true));
    let ids: Vec<u16> = g.smcr_pfids.iter().map(|x| x.value).collect();
    assert_eq!(ids, [0x18, 0x19]);
    // The option list ended where another GLOBALCONFIG parameter began.
    assert!(g.segmentation_offload.as_ref().is_some_and(|x| x.value));
    let text = print_profile(&p);
    assert!(text.contains("SMCR PFID 0018 PFID 0019 SMCD"), "{text}");
    let (again, v) = diags(&text);
    assert!(v.is_empty(), "{v:?}");
    let ids2: Vec<u16> = again.global.smcr_pfids.iter().map(|x| x.value).collect();
    assert_eq!(ids2, ids);
    let (p, v) = diags("GLOBALCONFIG SMCR PFID 18 NOSMCR\n");
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(p.global.smcr.as_ref().map(|x| x.value), Some(false));
    assert!(p.global.smcr_pfids.is_empty());
}

#[test]
fn bad_smc_options_are_errors_at_their_place() {
    let (_, v) = diags("GLOBALCONFIG SMCR PFID 12345\n");
    assert_eq!(
        v,
        ["s.prof:1:24: error: GLOBALCONFIG SMCR PFID: 12345 is not valid (a PCIe function id of 1-4 hexadecimal digits, e.g. 0018)"]
    );
    let (_, v) = diags("GLOBALCONFIG SMCR PFID 18 PORTNUM 3\n");
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].contains("PORTNUM: 3 is not valid (a RoCE port number, 1 or 2)"),
        "{v:?}"
    );
    // SMCD names no functions: ISM is found through the PNETID.
    let (p, v) = diags("GLOBALCONFIG SMCD PFID 18 FIXEDMEMORY 64\n");
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].contains("parameter PFID is not valid on GLOBALCONFIG SMCD"),
        "{v:?}"
    );
    assert_eq!(p.global.smcd.as_ref().map(|x| x.value), Some(true));
    // PORTNUM belongs to a PFID.
    let (_, v) = diags("GLOBALCONFIG SMCR PORTNUM 1\n");
    assert!(
        v[0].contains("PORTNUM is not valid on GLOBALCONFIG SMCR except after a PFID"),
        "{v:?}"
    );
    let (_, v) = diags("GLOBALCONFIG SMCR PFID 18 PFID 0018\n");
    assert!(
        v.iter()
            .any(|x| x.contains("warning") && x.contains("SMCR PFID")),
        "{v:?}"
    );
}

#[test]
fn activation_marks_the_stack_smc_capable() {
    let stack = |global: &str| {
        let s = common::activated_stack(&format!(
            "{global}\nINTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\nSTART A\n"
        ));
        (s.smc_r, s.smc_d)
    };
    assert_eq!(stack(""), (false, false));
    assert_eq!(stack("GLOBALCONFIG SMCR PFID 0018"), (true, false));
    assert_eq!(stack("GLOBALCONFIG SMCD"), (false, true));
    assert_eq!(
        stack("GLOBALCONFIG SMCR PFID 18 SMCD NOSMCR"),
        (false, true)
    );
}

#[test]
fn smcglobal_and_its_options_are_read_and_warned() {
    let (p, v) = diags("GLOBALCONFIG SMCGLOBAL AUTOCACHE NOAUTOSMC SMCR PFID 18\n");
    // SMCGLOBAL and each option: a warning at its place, no error.
    assert_eq!(v.len(), 3, "{v:?}");
    assert!(v.iter().all(|x| x.contains("warning")), "{v:?}");
    assert!(
        v[0].starts_with("s.prof:1:14: warning: GLOBALCONFIG SMCGLOBAL is not modelled"),
        "{v:?}"
    );
    assert!(
        v[2].starts_with("s.prof:1:34: warning: GLOBALCONFIG SMCGLOBAL NOAUTOSMC"),
        "{v:?}"
    );
    assert_eq!(p.global.smcr.as_ref().map(|x| x.value), Some(true));
    // Its options only follow it.
    let (_, v) = diags("GLOBALCONFIG AUTOSMC\n");
    assert!(
        v[0].contains("AUTOSMC is not valid on GLOBALCONFIG except right after SMCGLOBAL"),
        "{v:?}"
    );
}
