//! TCPCONFIG: the TCP layer settings softosa models (buffer sizes, delayed
//! ACKs, the fast retransmit threshold, TIME_WAIT) are read, checked and activated;
//! its other parameters are checked for form and skipped with a warning.

use softosa_profile::print::print_profile;
use softosa_profile::*;

mod common;
use common::diags;

fn sizes(p: &Profile) -> [Option<u32>; 4] {
    let t = &p.tcp;
    [&t.send_buf, &t.rcv_buf, &t.max_rcv_buf, &t.max_send_buf].map(|x| x.as_ref().map(|v| v.value))
}

#[test]
fn sizes_in_bytes_or_k_abbreviations_and_the_last_coded_wins() {
    let src = "TCPCONFIG TCPSENDB 128K TCPRCVB 65536 DELAYACKS\n\
               TCPCONFIG tcpmaxrcvb 512k NODELAYA FRRTHR 5 TIMEWAITI 30\n\
               \x20 TCPMAXSENDB 300000 SENDGARBAGE FALSE\n";
    let (p, v) = diags(src);
    assert_eq!(
        v,
        ["s.prof:3:22: warning: TCPCONFIG SENDGARBAGE is not modelled by softosa and is ignored (z/OS would apply it)"]
    );
    assert_eq!(
        sizes(&p),
        [Some(131072), Some(65536), Some(524288), Some(300000)]
    );
    assert_eq!(
        p.tcp.delay_acks.as_ref().map(|d| d.value),
        Some(DelayAcks::NoDelay)
    );
    assert_eq!(p.tcp.frr_threshold.as_ref().map(|f| f.value), Some(5));
    assert_eq!(p.tcp.time_wait.as_ref().map(|f| f.value), Some(30));
    // Printed in bytes, it reads back the same.
    let text = print_profile(&p);
    assert!(
        text.contains("TCPCONFIG TCPSENDBFRSIZE 131072 TCPRCVBUFRSIZE 65536 TCPMAXRCVBUFRSIZE 524288 TCPMAXSENDBUFRSIZE 300000 NODELAYACKS FRRTHRESHOLD 5 TIMEWAITINTERVAL 30"),
        "{text}"
    );
    let (again, v) = diags(&text);
    assert!(v.is_empty(), "{v:?}");
    assert_eq!(again.tcp, p.tcp.clone().with_spans_of(&again.tcp));
}

/// Spans differ between a file and its print; compare the values.
trait SameValues {
    fn with_spans_of(self, other: &TcpConfig) -> TcpConfig;
}
impl SameValues for TcpConfig {
    fn with_spans_of(self, o: &TcpConfig) -> TcpConfig {
        fn sp<T: Copy>(v: Option<Spanned<T>>, o: &Option<Spanned<T>>) -> Option<Spanned<T>> {
            match (v, o) {
                (Some(v), Some(o)) => Some(Spanned::new(v.value, o.span)),
                (v, _) => v,
            }
        }
        TcpConfig {
            send_buf: sp(self.send_buf, &o.send_buf),
            rcv_buf: sp(self.rcv_buf, &o.rcv_buf),
            max_rcv_buf: sp(self.max_rcv_buf, &o.max_rcv_buf),
            max_send_buf: sp(self.max_send_buf, &o.max_send_buf),
            delay_acks: sp(self.delay_acks, &o.delay_acks),
            frr_threshold: sp(self.frr_threshold, &o.frr_threshold),
            time_wait: sp(self.time_wait, &o.time_wait),
        }
    }
}

#[test]
fn bad_values_are_errors_at_the_value_and_the_rest_is_still_read() {
    let cases = [
        (
            "TCPCONFIG TCPSENDBFRSIZE 100 TCPRCVBUFRSIZE 32K",
            "s.prof:1:26: error: TCPCONFIG TCPSENDBFRSIZE: 100 is not valid (a size in bytes, or in K (e.g. 256K), of at least 256)",
        ),
        (
            "TCPCONFIG TCPSENDBFRSIZE 64X TCPRCVBUFRSIZE 32K",
            "s.prof:1:26: error: TCPCONFIG TCPSENDBFRSIZE: 64X is not valid (a size in bytes, or in K (e.g. 256K), of at least 256)",
        ),
        (
            "TCPCONFIG TCPMAXRCVBUFRSIZE 1024K TCPRCVBUFRSIZE 32K",
            "s.prof:1:29: error: TCPCONFIG TCPMAXRCVBUFRSIZE: 1024K is not valid (a size in bytes, or in K (e.g. 256K), from 256 to 512K)",
        ),
        (
            "TCPCONFIG FRRTHRESHOLD 0 TCPRCVBUFRSIZE 32K",
            "s.prof:1:24: error: TCPCONFIG FRRTHRESHOLD: 0 is not valid (a number of duplicate ACKs, at least 1)",
        ),
        (
            "TCPCONFIG TIMEWAITINTERVAL 121 TCPRCVBUFRSIZE 32K",
            "s.prof:1:28: error: TCPCONFIG TIMEWAITINTERVAL: 121 is not valid (seconds, 0-120)",
        ),
        (
            "TCPCONFIG CONNECTTIMEOUT 500 TCPRCVBUFRSIZE 32K",
            "s.prof:1:26: error: TCPCONFIG CONNECTTIMEOUT: 500 is not valid (seconds, 5-190)",
        ),
    ];
    for (src, want) in cases {
        let (p, v) = diags(src);
        assert_eq!(v, [want], "{src}");
        assert_eq!(
            sizes(&p)[1],
            Some(32 * 1024),
            "{src}: the next parameter is read"
        );
    }
}

#[test]
fn a_missing_value_a_repeat_and_an_unknown_parameter_are_reported() {
    let (_, v) = diags("TCPCONFIG TCPRCVBUFRSIZE\nSTART A\n");
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].starts_with("s.prof:1:11: error: TCPCONFIG TCPRCVBUFRSIZE: a value is missing"),
        "{v:?}"
    );
    let (p, v) = diags("TCPCONFIG DELAYACKS NODELAYACKS\n");
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].contains("warning") && v[0].contains("DELAYACKS/NODELAYACKS/AUTODELAYACKS"),
        "{v:?}"
    );
    assert_eq!(
        p.tcp.delay_acks.as_ref().map(|d| d.value),
        Some(DelayAcks::NoDelay)
    );
    let (_, v) = diags("TCPCONFIG TCPBIGBUFFERS 1\n");
    assert!(
        v[0].contains("error: unknown parameter TCPBIGBUFFERS on the TCPCONFIG statement"),
        "{v:?}"
    );
}

#[test]
fn activation_carries_the_settings_with_z_os_defaults_for_the_rest() {
    let intf = "INTERFACE A DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME P1\nSTART A\n";
    let stack = |src: &str| common::activated_stack(src).tcp;
    let plain = stack(intf);
    assert_eq!(plain, softosa_engine::config::TcpSettings::default());
    assert_eq!(
        (plain.send_buf, plain.rcv_buf, plain.frr_threshold),
        (65536, 65536, 3)
    );
    assert_eq!(
        (plain.max_rcv_buf(), plain.max_send_buf()),
        (262144, 262144)
    );
    let coded = stack(&format!(
        "TCPCONFIG TCPRCVBUFRSIZE 256K TCPMAXRCVBUFRSIZE 512K AUTODELAYACKS FRRTHRESHOLD 4\n\
         TCPCONFIG TIMEWAITINTERVAL 0\n{intf}"
    ));
    assert_eq!(coded.rcv_buf, 262144);
    assert_eq!(coded.send_buf, 65536);
    assert_eq!(coded.max_rcv_buf_coded, Some(524288));
    assert_eq!(coded.max_send_buf_coded, None);
    assert_eq!(coded.delay_acks, softosa_engine::config::AckDelay::Auto);
    assert_eq!(coded.frr_threshold, 4);
    assert_eq!((plain.time_wait_s, coded.time_wait_s), (60, 0));
}
