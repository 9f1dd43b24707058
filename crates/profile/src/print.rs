//! Printing a [`Profile`] back as profile statements (spec 5.1).
//!
//! Layer: configuration front end. The output is canonical: full keywords,
//! one statement per line (INTERFACE on one line, as in the conversion
//! example of spec 5.1), comments dropped. Parsing the output gives back the
//! same profile (checked by the round-trip property test), which is what the
//! converter relies on.

use std::fmt::Write as _;
use std::net::Ipv4Addr;

use crate::ast::*;
use crate::diag::Spanned;

fn mask(prefix: u8) -> Ipv4Addr {
    let p = u32::from(prefix.min(32));
    let m = if p == 0 { 0 } else { u32::MAX << (32 - p) };
    Ipv4Addr::from(m)
}

fn mac_hex(m: &[u8; 6]) -> String {
    m.iter().map(|b| format!("{b:02X}")).collect()
}

fn vmac_text(v: &Vmac) -> String {
    let mut s = String::from("VMAC");
    if let Some(m) = &v.mac {
        s.push(' ');
        s.push_str(&mac_hex(m));
    }
    if v.route == VmacRoute::Local {
        s.push_str(" ROUTELCL");
    }
    s
}

/// The INBPERF setting of an INTERFACE or LINK as coded, onto `w`:
/// `INBPERF mode`, then WORKLOADQ or NOWORKLOADQ.
fn inbperf_words(
    mode: &Option<Spanned<InbPerf>>,
    workloadq: &Option<Spanned<bool>>,
    w: &mut Vec<String>,
) {
    if let Some(p) = mode {
        w.push(format!("INBPERF {}", p.value.keyword()));
    }
    if let Some(q) = workloadq {
        w.push(if q.value { "WORKLOADQ" } else { "NOWORKLOADQ" }.into());
    }
}

/// One INTERFACE statement on one line.
pub fn interface_line(i: &Interface) -> String {
    let mut w: Vec<String> = vec![format!("INTERFACE {} DEFINE {}", i.name, i.kind.keyword())];
    if let Some(c) = &i.chpidtype {
        w.push(format!("CHPIDTYPE {}", c.value.keyword()));
    }
    inbperf_words(&i.inbperf, &i.workloadq, &mut w);
    if let Some(o) = &i.olm {
        w.push(if o.value { "OLM" } else { "NOOLM" }.into());
    }
    if let Some(r) = &i.readstorage {
        w.push(format!("READSTORAGE {}", r.value.keyword()));
    }
    if let Some(v) = &i.vmac {
        w.push(vmac_text(v));
    }
    if let Some(v) = &i.vlanid {
        w.push(format!("VLANID {}", v.value));
    }
    if let Some(x) = &i.isolate {
        w.push(if x.value { "ISOLATE" } else { "NOISOLATE" }.into());
    }
    if !i.ipaddr.is_empty() {
        let a: Vec<String> = i.ipaddr.iter().map(|a| a.value.to_string()).collect();
        w.push(format!("IPADDR {}", a.join(" ")));
    }
    if i.tempip.is_some() {
        w.push("TEMPIP".into());
    }
    if let Some(p) = &i.portname {
        w.push(format!("PORTNAME {}", p.value));
    }
    if let Some(c) = &i.chpid {
        w.push(format!("CHPID {:02X}", c.value));
    }
    if let Some(m) = &i.mtu {
        w.push(format!("MTU {}", m.value));
    }
    if let Some(s) = &i.source_vipa {
        w.push(format!("SOURCEVIPAINTERFACE {}", s.value));
    }
    security_words(&i.secclass, &i.monsysplex, &mut w);
    if i.ipbcast.is_some() {
        w.push("IPBCAST".into());
    }
    if let Some(x) = &i.dynvlanreg {
        w.push(
            if x.value {
                "DYNVLANREG"
            } else {
                "NODYNVLANREG"
            }
            .into(),
        );
    }
    if let Some(r) = &i.router {
        w.push(r.value.keyword().into());
    }
    w.join(" ")
}

/// SECCLASS and MONSYSPLEX as coded, on an INTERFACE or a LINK.
fn security_words(
    secclass: &Option<Spanned<u8>>,
    monsysplex: &Option<Spanned<bool>>,
    w: &mut Vec<String>,
) {
    if let Some(c) = secclass {
        w.push(format!("SECCLASS {}", c.value));
    }
    if let Some(m) = monsysplex {
        w.push(
            if m.value {
                "MONSYSPLEX"
            } else {
                "NOMONSYSPLEX"
            }
            .into(),
        );
    }
}

fn link_line(l: &Link) -> String {
    let mut w = vec![format!(
        "LINK {} {} {}",
        l.name,
        l.kind.keyword(),
        l.device.value
    )];
    inbperf_words(&l.inbperf, &l.workloadq, &mut w);
    if let Some(o) = &l.olm {
        w.push(if o.value { "OLM" } else { "NOOLM" }.into());
    }
    if let Some(r) = &l.readstorage {
        w.push(format!("READSTORAGE {}", r.value.keyword()));
    }
    if let Some(v) = &l.vmac {
        w.push(vmac_text(v));
    }
    if let Some(v) = &l.vlanid {
        w.push(format!("VLANID {}", v.value));
    }
    if let Some(x) = &l.isolate {
        w.push(if x.value { "ISOLATE" } else { "NOISOLATE" }.into());
    }
    security_words(&l.secclass, &l.monsysplex, &mut w);
    w.join(" ")
}

/// Print a whole profile.
pub fn print_profile(p: &Profile) -> String {
    let mut s = String::new();
    // GLOBALCONFIG
    let g = &p.global;
    let mut gw: Vec<String> = Vec::new();
    if let Some(x) = &g.segmentation_offload {
        gw.push(
            if x.value {
                "SEGMENTATIONOFFLOAD"
            } else {
                "NOSEGMENTATIONOFFLOAD"
            }
            .into(),
        );
    }
    if let Some(x) = &g.iqdmultiwrite {
        gw.push(
            if x.value {
                "IQDMULTIWRITE"
            } else {
                "NOIQDMULTIWRITE"
            }
            .into(),
        );
    }
    let mut z = Vec::new();
    if let Some(x) = &g.ziip_iqdiomultiwrite {
        z.push(if x.value {
            "IQDIOMULTIWRITE"
        } else {
            "NOIQDIOMULTIWRITE"
        });
    }
    if let Some(x) = &g.ziip_ipsecurity {
        z.push(if x.value {
            "IPSECURITY"
        } else {
            "NOIPSECURITY"
        });
    }
    if !z.is_empty() {
        gw.push(format!("ZIIP {}", z.join(" ")));
    }
    if let Some(w) = &g.wlmpriorityq {
        let mut t = String::from("WLMPRIORITYQ");
        for q in 1..=4u8 {
            let mut vals: Vec<String> = w
                .queue_for_value
                .iter()
                .enumerate()
                .filter(|(_, qq)| **qq == q)
                .map(|(v, _)| v.to_string())
                .collect();
            if w.fwd_queue == q {
                vals.push("FWD".into());
            }
            if !vals.is_empty() {
                let _ = write!(t, " IOPRI{q} {}", vals.join(" "));
            }
        }
        gw.push(t);
    } else if g.nowlmpriorityq.is_some() {
        gw.push("NOWLMPRIORITYQ".into());
    }
    match &g.smcr {
        Some(x) if x.value => {
            let mut t = String::from("SMCR");
            for p in &g.smcr_pfids {
                let _ = write!(t, " PFID {:04X}", p.value);
            }
            gw.push(t);
        }
        Some(_) => gw.push("NOSMCR".into()),
        None => {}
    }
    if let Some(x) = &g.smcd {
        gw.push(if x.value { "SMCD" } else { "NOSMCD" }.into());
    }
    if !gw.is_empty() {
        let _ = writeln!(s, "GLOBALCONFIG {}", gw.join(" "));
    }
    // IPCONFIG
    let ip = &p.ip;
    let mut iw: Vec<String> = Vec::new();
    if let Some(x) = &ip.datagramfwd {
        iw.push(
            if x.value {
                "DATAGRAMFWD"
            } else {
                "NODATAGRAMFWD"
            }
            .into(),
        );
    }
    let mut pri_done = false;
    if let Some(x) = &ip.qdioaccelerator {
        if x.value {
            let mut t = String::from("QDIOACCELERATOR");
            if let Some(q) = &ip.qdiopriority {
                let _ = write!(t, " QDIOPRIORITY {}", q.value);
                pri_done = true;
            }
            iw.push(t);
        } else {
            iw.push("NOQDIOACCELERATOR".into());
        }
    }
    if let Some(x) = &ip.iqdiorouting {
        if x.value {
            let mut t = String::from("IQDIOROUTING");
            if let (Some(q), false) = (&ip.qdiopriority, pri_done) {
                let _ = write!(t, " QDIOPRIORITY {}", q.value);
            }
            iw.push(t);
        } else {
            iw.push("NOIQDIOROUTING".into());
        }
    }
    if let Some(x) = &ip.dynamicxcf {
        iw.push(format!(
            "DYNAMICXCF {} {} {}",
            x.addr,
            mask(x.prefix),
            x.cost
        ));
    } else if ip.nodynamicxcf.is_some() {
        iw.push("NODYNAMICXCF".into());
    }
    if ip.ipsecurity.is_some() {
        iw.push("IPSECURITY".into());
    }
    if let Some(x) = &ip.segmentation_offload {
        iw.push(
            if x.value {
                "SEGMENTATIONOFFLOAD"
            } else {
                "NOSEGMENTATIONOFFLOAD"
            }
            .into(),
        );
    }
    if !iw.is_empty() {
        let _ = writeln!(s, "IPCONFIG {}", iw.join(" "));
    }
    // TCPCONFIG (sizes in bytes: they read back as the same values).
    let t = &p.tcp;
    let mut tw: Vec<String> = Vec::new();
    for (name, v) in [
        ("TCPSENDBFRSIZE", &t.send_buf),
        ("TCPRCVBUFRSIZE", &t.rcv_buf),
        ("TCPMAXRCVBUFRSIZE", &t.max_rcv_buf),
        ("TCPMAXSENDBUFRSIZE", &t.max_send_buf),
    ] {
        if let Some(v) = v {
            tw.push(format!("{name} {}", v.value));
        }
    }
    if let Some(d) = &t.delay_acks {
        tw.push(d.value.keyword().into());
    }
    if let Some(f) = &t.frr_threshold {
        tw.push(format!("FRRTHRESHOLD {}", f.value));
    }
    if let Some(f) = &t.time_wait {
        tw.push(format!("TIMEWAITINTERVAL {}", f.value));
    }
    if !tw.is_empty() {
        let _ = writeln!(s, "TCPCONFIG {}", tw.join(" "));
    }
    // Legacy definitions.
    for d in &p.devices {
        let mut t = format!("DEVICE {} MPCIPA", d.name);
        if let Some(a) = &d.autorestart {
            t.push_str(if a.value {
                " AUTORESTART"
            } else {
                " NOAUTORESTART"
            });
        }
        if let Some(r) = &d.router {
            let _ = write!(t, " {}", r.value.keyword());
        }
        let _ = writeln!(s, "{t}");
    }
    for l in &p.links {
        let _ = writeln!(s, "{}", link_line(l));
    }
    // Static VIPAs, as coded (the VIRTUAL number is always 0 here).
    for v in &p.static_vipas {
        let t = match v.kind {
            VipaKind::Device => format!("DEVICE {} VIRTUAL 0", v.name),
            VipaKind::Link => format!(
                "LINK {} VIRTUAL 0 {}",
                v.name,
                v.device.as_ref().map(|d| d.value.as_str()).unwrap_or("")
            ),
            VipaKind::Interface | VipaKind::Interface6 => {
                let mut t = format!(
                    "INTERFACE {} DEFINE {}",
                    v.name,
                    if v.kind == VipaKind::Interface {
                        "VIRTUAL"
                    } else {
                        "VIRTUAL6"
                    }
                );
                if !v.ipaddr.is_empty() {
                    t.push_str(" IPADDR");
                    for a in &v.ipaddr {
                        let _ = write!(t, " {}", a.value);
                    }
                }
                t
            }
        };
        let _ = writeln!(s, "{t}");
    }
    if !p.home.is_empty() {
        let _ = writeln!(s, "HOME");
        for h in &p.home {
            let _ = writeln!(s, "  {} {}", h.addr.value, h.link.value);
        }
    }
    for i in &p.interfaces {
        let _ = writeln!(s, "{}", interface_line(i));
    }
    if !p.routes.is_empty() {
        let _ = writeln!(s, "BEGINROUTES");
        for r in &p.routes {
            let dest = r.dest;
            let gw = r
                .gateway
                .map(|g| g.to_string())
                .unwrap_or_else(|| "=".into());
            let mtu = r
                .mtu
                .map(|m| m.to_string())
                .unwrap_or_else(|| "DEFAULTSIZE".into());
            let rep = match r.replaceable {
                Some(true) => " REPLACEABLE",
                Some(false) => " NOREPLACEABLE",
                None => "",
            };
            let _ = writeln!(s, "  ROUTE {dest} {gw} {} MTU {mtu}{rep}", r.link.value);
        }
        let _ = writeln!(s, "ENDROUTES");
    }
    if !p.vipa.defines.is_empty() || !p.vipa.distributes.is_empty() {
        let _ = writeln!(s, "VIPADYNAMIC");
        for d in &p.vipa.defines {
            let mut t = String::from("  VIPADEFINE");
            if let Some(m) = &d.moveable {
                let _ = write!(t, " MOVEABLE {m}");
            }
            let _ = write!(t, " {}", mask(d.prefix));
            for a in &d.addrs {
                let _ = write!(t, " {}", a.value);
            }
            let _ = writeln!(s, "{t}");
        }
        for d in &p.vipa.distributes {
            let ports: Vec<String> = d.ports.iter().map(|p| p.to_string()).collect();
            let dest = match &d.destip {
                DestIp::All => "ALL".to_string(),
                DestIp::List(l) => l
                    .iter()
                    .map(|a| a.to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            let _ = writeln!(
                s,
                "  VIPADISTRIBUTE DEFINE DISTMETHOD {} {} PORT {} DESTIP {}",
                d.method.keyword(),
                d.addr.value,
                ports.join(" "),
                dest
            );
        }
        let _ = writeln!(s, "ENDVIPADYNAMIC");
    }
    for st in &p.starts {
        let _ = writeln!(s, "START {}", st.name.value);
    }
    s
}
