//! Rules of spec 5.1 (with 1.4, 2.3, 2.4 and 3.3) checked on parsed profiles.
//!
//! Layer: configuration front end. [`validate_profile`] checks one stack's
//! profile on its own; [`validate_system`] checks what only shows when
//! several stacks and the TRLEs are seen together: PORTNAME against the
//! TRLEs, and the OLM sharing limit (4 interfaces per port, 8 per CHPID when
//! any interface on the port uses OLM — the 5th/9th is refused).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::ast::*;
use crate::diag::{Diagnostics, ErrorKind, Span, Spanned, WarningKind};

/// Check one profile. Diagnostics carry `profile.file`.
pub fn validate_profile(p: &Profile, d: &mut Diagnostics) {
    let f = p.file.as_str();

    // Interface / link names share one namespace.
    let mut names: BTreeMap<String, u32> = BTreeMap::new();
    let mut note_name = |d: &mut Diagnostics, what: &'static str, name: &str, span: Span| {
        let key = name.to_ascii_uppercase();
        if let Some(first) = names.get(&key) {
            d.error(
                f,
                span,
                ErrorKind::Duplicate {
                    what,
                    name: name.to_string(),
                    first_line: *first,
                },
            );
        } else {
            names.insert(key, span.line);
        }
    };
    for i in &p.interfaces {
        note_name(d, "interface", &i.name, i.span);
    }
    for l in &p.links {
        note_name(d, "link", &l.name, l.span);
    }
    for v in &p.static_vipas {
        match v.kind {
            VipaKind::Link => note_name(d, "link", &v.name, v.span),
            VipaKind::Interface | VipaKind::Interface6 => {
                note_name(d, "interface", &v.name, v.span)
            }
            VipaKind::Device => {}
        }
    }
    let mut devs: BTreeMap<String, u32> = BTreeMap::new();
    let vipa_devices = p
        .static_vipas
        .iter()
        .filter(|v| v.kind == VipaKind::Device)
        .map(|v| (v.name.to_ascii_uppercase(), v.span));
    let all_devices = p
        .devices
        .iter()
        .map(|dv| (dv.name.clone(), dv.span))
        .chain(vipa_devices);
    for (name, span) in all_devices {
        if let Some(first) = devs.get(&name) {
            d.error(
                f,
                span,
                ErrorKind::Duplicate {
                    what: "device",
                    name: name.clone(),
                    first_line: *first,
                },
            );
        } else {
            devs.insert(name, span.line);
        }
    }
    for i in &p.interfaces {
        check_interface(p, i, d);
    }
    // Duplicate addresses across interfaces.
    let mut addrs: BTreeMap<std::net::IpAddr, (String, u32)> = BTreeMap::new();
    // A static VIPA owns its address like an adapter interface does.
    let owned = p
        .interfaces
        .iter()
        .flat_map(|i| {
            i.ipaddr
                .iter()
                .map(move |a| (&i.name, a.value.addr, a.span))
        })
        .chain(
            p.static_vipas
                .iter()
                .flat_map(|v| v.ipaddr.iter().map(move |a| (&v.name, a.value, a.span))),
        );
    // In file order, so the first definition is the one named.
    let mut owned: Vec<_> = owned.collect();
    owned.sort_by_key(|(_, _, span)| (span.line, span.col));
    for (name, addr, span) in owned {
        if let Some((other, line)) = addrs.get(&addr) {
            d.error(
                f,
                span,
                ErrorKind::DuplicateAddress {
                    addr: addr.to_string(),
                    other: other.clone(),
                    first_line: *line,
                },
            );
        } else {
            addrs.insert(addr, (name.clone(), span.line));
        }
    }

    // One LINK per MPCIPA DEVICE, OSA (IPAQENET) or HiperSockets
    // (IPAQIDIO, whose DEVICE/LINK is the stack's single connection to the
    // CHPID): a second one is refused.
    let mut device_links: BTreeMap<String, &Link> = BTreeMap::new();
    for l in &p.links {
        let key = l.device.value.to_ascii_uppercase();
        match device_links.get(&key) {
            Some(first) => d.error(
                f,
                l.device.span,
                ErrorKind::SecondLinkOnDevice {
                    link: l.name.clone(),
                    device: l.device.value.clone(),
                    other: first.name.clone(),
                    first_line: first.span.line,
                    kind: first.kind.keyword(),
                    this_kind: l.kind.keyword(),
                },
            ),
            None => {
                device_links.insert(key, l);
            }
        }
    }
    check_vlans_per_port(p, d);
    let devices = p.device_index();
    for l in &p.links {
        if let Some(w) = l.workloadq.as_ref().filter(|w| w.value) {
            d.error(f, w.span, ErrorKind::WorkloadqOnLink(l.name.clone()));
        }
        if let Some(o) = l.olm.as_ref().filter(|o| o.value) {
            d.error(f, o.span, ErrorKind::OlmOnLink(l.name.clone()));
        }
        if let Some(v) = &l.vlanid {
            if !(1..=4094).contains(&v.value) {
                d.error(
                    f,
                    v.span,
                    ErrorKind::VlanRange {
                        intf: l.name.clone(),
                        value: v.value,
                    },
                );
            }
        }
        if let Some(v) = &l.vmac {
            check_vmac(f, v, d);
        }
        match devices.get(&l.device.value) {
            None => d.error(
                f,
                l.device.span,
                ErrorKind::LinkUnknownDevice {
                    link: l.name.clone(),
                    device: l.device.value.clone(),
                },
            ),
            Some(dev) => {
                if let (Some(_), Some(r)) = (&l.vmac, &dev.router) {
                    if r.value != RouterRole::NonRouter {
                        d.warning(
                            f,
                            r.span,
                            WarningKind::RouterIgnoredWithVmac {
                                intf: l.name.clone(),
                                role: r.value.keyword(),
                            },
                        );
                    }
                }
            }
        }
    }

    // Names are looked up through maps built once: one scan of the
    // statements per HOME, START or ROUTE takes seconds for tens of
    // thousands of them.
    let links = p.link_index();
    let interfaces = p.interface_index();
    let vipas = p.static_vipa_index();

    // A LINK VIRTUAL names a DEVICE VIRTUAL.
    for v in p.static_vipas.iter().filter(|v| v.kind == VipaKind::Link) {
        if let Some(dev) = &v.device {
            if vipas.get(VipaKind::Device, &dev.value).is_none() {
                d.error(
                    f,
                    dev.span,
                    ErrorKind::LinkUnknownDevice {
                        link: v.name.clone(),
                        device: dev.value.clone(),
                    },
                );
            }
        }
    }

    for h in &p.home {
        let name = &h.link.value;
        if links.get(name).is_some() || vipas.get(VipaKind::Link, name).is_some() {
            continue;
        }
        let on_interface = interfaces.get(name).is_some()
            || vipas
                .of(&[VipaKind::Interface, VipaKind::Interface6], name)
                .is_some();
        let e = if on_interface {
            ErrorKind::HomeOnInterface(name.clone())
        } else {
            ErrorKind::HomeUnknownLink(name.clone())
        };
        d.error(f, h.link.span, e);
    }
    // When the profile uses START at all, an interface without one is
    // probably an oversight (z/OS would not start it).
    if !p.starts.is_empty() {
        let starts = ByName::first_of(&p.starts, |s| &s.name.value);
        let started = |n: &str| starts.get(n).is_some();
        for i in &p.interfaces {
            if !started(&i.name) {
                d.warning(
                    f,
                    i.span,
                    WarningKind::NotStarted(format!("INTERFACE {}", i.name)),
                );
            }
        }
        for dv in &p.devices {
            if !started(&dv.name) {
                d.warning(
                    f,
                    dv.span,
                    WarningKind::NotStarted(format!("DEVICE {}", dv.name)),
                );
            }
        }
    }
    // The source VIPA an interface names is one of the profile's static
    // VIPAs (INTERFACE VIRTUAL or VIRTUAL6, DEVICE/LINK VIRTUAL).
    for i in &p.interfaces {
        let Some(v) = &i.source_vipa else { continue };
        // Of the interface's IP version: VIRTUAL6 for an IPv6 one.
        let v6 = i.kind == InterfaceKind::IpaqEnet6;
        let kinds: &[VipaKind] = if v6 {
            &[VipaKind::Interface6]
        } else {
            &[VipaKind::Interface, VipaKind::Link]
        };
        if vipas.of(kinds, &v.value).is_none() {
            d.error(
                f,
                v.span,
                ErrorKind::SourceVipaUnknown {
                    intf: i.name.clone(),
                    vipa: v.value.clone(),
                },
            );
        }
    }
    for s in &p.starts {
        let n = &s.name.value;
        let vipa = [VipaKind::Device, VipaKind::Interface, VipaKind::Interface6];
        if devices.get(n).is_none() && interfaces.get(n).is_none() && vipas.of(&vipa, n).is_none() {
            d.error(f, s.name.span, ErrorKind::StartUnknown(n.clone()));
        }
    }

    // A route leaves over one of the profile's own links or interfaces, of
    // the route's IP version (a LINK is always IPv4).
    for r in &p.routes {
        let name = &r.link.value;
        let version = match (links.get(name), interfaces.get(name)) {
            (Some(_), _) => Some(("link", false)),
            (None, Some(i)) => Some(("interface", i.kind == InterfaceKind::IpaqEnet6)),
            (None, None) => None,
        };
        if let Some((what, _)) = version.filter(|(_, v6)| *v6 != r.dest.is_ipv6()) {
            d.error(
                f,
                r.link.span,
                ErrorKind::RouteLinkVersion {
                    dest: r.dest.to_string(),
                    link: name.clone(),
                    what,
                    dest_v6: r.dest.is_ipv6(),
                },
            );
        }
        // Neither: a static VIPA, DYNAMICXCF's interface, or unknown.
        if version.is_some() {
            continue;
        }
        let vipa = [VipaKind::Link, VipaKind::Interface, VipaKind::Interface6];
        if let Some(v) = vipas.of(&vipa, name) {
            d.error(
                f,
                r.link.span,
                ErrorKind::RouteOnStaticVipa {
                    dest: r.dest.to_string(),
                    link: name.clone(),
                    what: v.kind.what(),
                },
            );
        } else if !(p.ip.dynamicxcf.is_some() && is_dynamic_xcf_name(name)) {
            let mut dest = r.dest.to_string();
            // The link name may be on a continuation line: say where the
            // ROUTE itself is.
            if r.span.line != r.link.span.line {
                dest = format!("{dest} (line {})", r.span.line);
            }
            d.error(
                f,
                r.link.span,
                ErrorKind::RouteUnknownLink {
                    dest,
                    link: name.clone(),
                },
            );
        }
    }

    // GLOBALCONFIG
    if let Some(z) = p.global.ziip_iqdiomultiwrite.as_ref().filter(|z| z.value) {
        if !p.global.iqdmultiwrite.as_ref().is_some_and(|m| m.value) {
            d.warning(f, z.span, WarningKind::ZiipWithoutMultiwrite);
        }
    }

    // IPCONFIG
    if let (Some(r), Some(_)) = (
        p.ip.iqdiorouting.as_ref().filter(|r| r.value),
        p.ip.qdioaccelerator.as_ref().filter(|q| q.value),
    ) {
        d.error(f, r.span, ErrorKind::IqdioroutingWithAccelerator);
    }
    if let Some(q) = p.ip.qdioaccelerator.as_ref().filter(|q| q.value) {
        if p.ip.ipsecurity.is_some() {
            d.warning(f, q.span, WarningKind::AcceleratorWithIpsecurity);
        } else if !p.ip.forwarding() {
            d.warning(f, q.span, WarningKind::AcceleratorWithoutForwarding);
        }
        if p.ip.ipsecurity.is_none() {
            for i in p.interfaces.iter().filter(|i| i.olm_on()) {
                let sp = i.olm.as_ref().map(|o| o.span).unwrap_or(i.span);
                d.warning(f, sp, WarningKind::OlmNotAccelerated(i.name.clone()));
            }
        }
    }

    // VIPADYNAMIC
    for dist in &p.vipa.distributes {
        let defined = p
            .vipa
            .defines
            .iter()
            .any(|def| def.addrs.iter().any(|a| a.value == dist.addr.value));
        if !defined {
            d.error(
                f,
                dist.addr.span,
                ErrorKind::DistributeUndefinedVipa(dist.addr.value.to_string()),
            );
        }
    }
}

/// Several interfaces of one stack on one OSA port or HiperSockets CHPID
/// (per IP version) are told apart by VLAN only: each needs a VLANID, and
/// they must differ (IP Configuration Guide, OSA VLAN and HiperSockets
/// VLAN steps). The interfaces are INTERFACE IPAQENET/IPAQENET6 by
/// PORTNAME, INTERFACE IPAQIDIO by CHPID (its port IUTIQDxx) and LINK
/// IPAQENET by device (only the first link of a device: a second one is
/// refused on its own).
fn check_vlans_per_port(p: &Profile, d: &mut Diagnostics) {
    struct Member<'a> {
        what: String,
        name: &'a str,
        vlan: Option<&'a Spanned<u32>>,
        span: Span,
    }
    let f = p.file.as_str();
    // Keyed by port name, IPv6 or not, and HiperSockets or not (an OSA
    // PORTNAME spelt IUTIQDxx is another port, refused at activation).
    let mut ports: BTreeMap<(String, bool, bool), Vec<Member<'_>>> = BTreeMap::new();
    for i in p.interfaces.iter().filter(|i| i.kind.is_osa()) {
        if let Some(port) = &i.portname {
            let v6 = i.kind == InterfaceKind::IpaqEnet6;
            ports
                .entry((port.value.to_ascii_uppercase(), v6, false))
                .or_default()
                .push(Member {
                    what: format!("interface {}", i.name),
                    name: &i.name,
                    vlan: i.vlanid.as_ref(),
                    span: i.span,
                });
        }
    }
    for i in p
        .interfaces
        .iter()
        .filter(|i| i.kind == InterfaceKind::IpaqIdio)
    {
        if let Some(c) = &i.chpid {
            ports
                .entry((format!("IUTIQD{:02X}", c.value), false, true))
                .or_default()
                .push(Member {
                    what: format!("interface {}", i.name),
                    name: &i.name,
                    vlan: i.vlanid.as_ref(),
                    span: i.span,
                });
        }
    }
    let mut devices: BTreeSet<String> = BTreeSet::new();
    // A LINK IPAQIDIO is on the CHPID its device IUTIQDxx names.
    for l in p.links.iter().filter(|l| l.kind == InterfaceKind::IpaqIdio) {
        let Some(c) = crate::activate::iqd_chpid_of_device(&l.device.value) else {
            continue;
        };
        if !devices.insert(l.device.value.to_ascii_uppercase()) {
            continue;
        }
        ports
            .entry((format!("IUTIQD{c:02X}"), false, true))
            .or_default()
            .push(Member {
                what: format!("link {}", l.name),
                name: &l.name,
                vlan: l.vlanid.as_ref(),
                span: l.span,
            });
    }
    for l in p.links.iter().filter(|l| l.kind == InterfaceKind::IpaqEnet) {
        let dev = l.device.value.to_ascii_uppercase();
        if !devices.insert(dev.clone()) {
            continue;
        }
        ports.entry((dev, false, false)).or_default().push(Member {
            what: format!("link {}", l.name),
            name: &l.name,
            vlan: l.vlanid.as_ref(),
            span: l.span,
        });
    }
    for ((port, v6, _), mut list) in ports {
        if list.len() < 2 {
            continue;
        }
        let version = if v6 { "IPv6" } else { "IPv4" };
        list.sort_by_key(|m| m.span);
        let mut used: BTreeMap<u32, &Member<'_>> = BTreeMap::new();
        for (k, m) in list.iter().enumerate() {
            match m.vlan {
                None => {
                    let other = list
                        .iter()
                        .enumerate()
                        .find(|(j, _)| *j != k)
                        .map(|(_, o)| o.what.clone())
                        .unwrap_or_default();
                    d.error(
                        f,
                        m.span,
                        ErrorKind::VlanRequired {
                            intf: m.name.to_string(),
                            other,
                            port: port.clone(),
                            version,
                        },
                    );
                }
                Some(v) => match used.get(&v.value) {
                    Some(first) => d.error(
                        f,
                        v.span,
                        ErrorKind::VlanInUse {
                            intf: m.name.to_string(),
                            vlan: v.value,
                            other: first.what.clone(),
                            port: port.clone(),
                            first_line: first.span.line,
                            version,
                        },
                    ),
                    None => {
                        used.insert(v.value, m);
                    }
                },
            }
        }
    }
}

fn check_vmac(f: &str, v: &Vmac, d: &mut Diagnostics) {
    if let Some(m) = v.mac {
        let text: String = m.iter().map(|b| format!("{b:02X}")).collect();
        if m[0] & 0x01 != 0 {
            d.error(f, v.span, ErrorKind::VmacMulticast(text));
        } else if m[0] & 0x02 == 0 {
            d.error(f, v.span, ErrorKind::VmacNotLocal(text));
        }
    }
}

fn check_interface(p: &Profile, i: &Interface, d: &mut Diagnostics) {
    let f = p.file.as_str();
    let kind = i.kind.keyword();
    // IPADDR
    match i.kind {
        InterfaceKind::IpaqEnet | InterfaceKind::IpaqIdio => {
            // TEMPIP is coded in place of IPADDR.
            if i.ipaddr.is_empty() && !i.refused.contains(&"IPADDR") && i.tempip.is_none() {
                d.error(
                    f,
                    i.span,
                    ErrorKind::MissingRequired {
                        stmt: "INTERFACE",
                        name: Some(i.name.clone()),
                        what: format!("IPADDR for DEFINE {kind}"),
                    },
                );
            }
            for a in &i.ipaddr {
                if a.value.prefix.is_none() {
                    d.error(
                        f,
                        a.span,
                        ErrorKind::PrefixRequired {
                            intf: i.name.clone(),
                            addr: a.value.addr.to_string(),
                        },
                    );
                }
            }
        }
        InterfaceKind::IpaqEnet6 => {}
    }
    // PORTNAME / CHPID
    if i.kind.is_osa() {
        if i.portname.is_none() && !i.refused.contains(&"PORTNAME") {
            d.error(
                f,
                i.span,
                ErrorKind::MissingRequired {
                    stmt: "INTERFACE",
                    name: Some(i.name.clone()),
                    what: format!("PORTNAME for DEFINE {kind}"),
                },
            );
        }
        let osx = i
            .chpidtype
            .as_ref()
            .is_some_and(|c| c.value == ChpidType::Osx);
        match (&i.chpid, osx) {
            (None, true) if !i.refused.contains(&"CHPID") => d.error(
                f,
                i.span,
                ErrorKind::MissingRequired {
                    stmt: "INTERFACE",
                    name: Some(i.name.clone()),
                    what: "CHPID for CHPIDTYPE OSX".into(),
                },
            ),
            (Some(c), false) => d.error(
                f,
                c.span,
                ErrorKind::ParameterNotValidHere {
                    param: "CHPID".into(),
                    context: format!("DEFINE {kind} unless CHPIDTYPE OSX is coded"),
                },
            ),
            _ => {}
        }
    } else if i.chpid.is_none() && !i.refused.contains(&"CHPID") {
        d.error(
            f,
            i.span,
            ErrorKind::MissingRequired {
                stmt: "INTERFACE",
                name: Some(i.name.clone()),
                what: "CHPID for DEFINE IPAQIDIO (the HiperSockets CHPID, e.g. CHPID FE)".into(),
            },
        );
    }
    // MTU / VLAN
    if let Some(m) = &i.mtu {
        let (min, max) = i.kind.mtu_range();
        if !(min..=max).contains(&m.value) {
            d.error(
                f,
                m.span,
                ErrorKind::MtuRange {
                    intf: i.name.clone(),
                    value: m.value,
                    min,
                    max,
                    kind,
                },
            );
        }
    }
    if let Some(v) = &i.vlanid {
        if !(1..=4094).contains(&v.value) {
            d.error(
                f,
                v.span,
                ErrorKind::VlanRange {
                    intf: i.name.clone(),
                    value: v.value,
                },
            );
        }
    }
    if let Some(v) = &i.vmac {
        check_vmac(f, v, d);
    }
    // OLM forces DYNAMIC.
    if i.olm_on() {
        if let Some(ip) = i.inbperf.as_ref().filter(|ip| ip.value != InbPerf::Dynamic) {
            d.warning(
                f,
                ip.span,
                WarningKind::OlmOverridesInbperf(i.name.clone(), ip.value.keyword()),
            );
        }
    }
    // WORKLOADQ needs DYNAMIC and a VMAC.
    if let Some(w) = i.workloadq.as_ref().filter(|w| w.value) {
        if i.effective_inbperf() != InbPerf::Dynamic {
            d.error(f, w.span, ErrorKind::WorkloadqNeedsDynamic(i.name.clone()));
        }
        if i.vmac.is_none() {
            d.error(f, w.span, ErrorKind::WorkloadqNeedsVmac(i.name.clone()));
        }
    }
    // PRIROUTER / SECROUTER ignored with VMAC.
    if let (Some(_), Some(r)) = (&i.vmac, &i.router) {
        if r.value != RouterRole::NonRouter {
            d.warning(
                f,
                r.span,
                WarningKind::RouterIgnoredWithVmac {
                    intf: i.name.clone(),
                    role: r.value.keyword(),
                },
            );
        }
    }
}

/// One OSA attachment seen across all stacks: which stack, which interface
/// (INTERFACE or LINK name), which port, whether it uses OLM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortUser {
    pub stack: String,
    pub file: String,
    pub name: String,
    pub port: String,
    pub olm: bool,
    pub span: Span,
}

/// Every OSA interface of a profile, with its port name: INTERFACE
/// IPAQENET/IPAQENET6 and LINK IPAQENET (whose port is the DEVICE name).
pub fn port_users(stack: &str, p: &Profile) -> Vec<PortUser> {
    let mut v = Vec::new();
    for i in p.interfaces.iter().filter(|i| i.kind.is_osa()) {
        if let Some(port) = &i.portname {
            v.push(PortUser {
                stack: stack.to_string(),
                file: p.file.clone(),
                name: i.name.clone(),
                port: port.value.to_ascii_uppercase(),
                olm: i.olm_on(),
                span: i.span,
            });
        }
    }
    for l in p.links.iter().filter(|l| l.kind == InterfaceKind::IpaqEnet) {
        v.push(PortUser {
            stack: stack.to_string(),
            file: p.file.clone(),
            name: l.name.clone(),
            port: l.device.value.to_ascii_uppercase(),
            olm: false,
            span: l.span,
        });
    }
    v
}

/// Interfaces refused by the OLM sharing limit, in order (stack order, then
/// statement order). Returned as (stack, interface name).
pub fn olm_refused(
    users: &[PortUser],
    trles: &[Trle],
    (max_port, max_chpid): (usize, usize),
) -> Vec<(PortUser, ErrorKind)> {
    let mut out = Vec::new();
    // Per port.
    let mut by_port: BTreeMap<&str, Vec<&PortUser>> = BTreeMap::new();
    for u in users {
        by_port.entry(u.port.as_str()).or_default().push(u);
    }
    let mut refused: HashSet<(String, String)> = HashSet::new();
    for (port, list) in &by_port {
        if list.iter().any(|u| u.olm) && list.len() > max_port {
            for u in list.iter().skip(max_port) {
                refused.insert((u.stack.clone(), u.name.clone()));
                out.push((
                    (*u).clone(),
                    ErrorKind::OlmPortLimit {
                        intf: u.name.clone(),
                        port: port.to_string(),
                        count: max_port,
                    },
                ));
            }
        }
    }
    // Per CHPID (only when the TRLEs name CHPIDs; otherwise a port is its
    // own CHPID and the port limit is the stricter one).
    let mut by_chpid: BTreeMap<u8, Vec<&PortUser>> = BTreeMap::new();
    let trle_of = ByName::first_of(trles, |t| &t.portname);
    for u in users {
        if let Some(c) = trle_of.get(&u.port).and_then(|t| t.chpid) {
            by_chpid.entry(c).or_default().push(u);
        }
    }
    for (chpid, list) in &by_chpid {
        let kept: Vec<&&PortUser> = list
            .iter()
            .filter(|u| !refused.contains(&(u.stack.clone(), u.name.clone())))
            .collect();
        if kept.iter().any(|u| u.olm) && kept.len() > max_chpid {
            for u in kept.iter().skip(max_chpid) {
                out.push((
                    (**u).clone(),
                    ErrorKind::OlmChpidLimit {
                        intf: u.name.clone(),
                        chpid: *chpid,
                        count: max_chpid,
                    },
                ));
            }
        }
    }
    out
}

/// TRLE names and PORTNAMEs are unique across every TRL member given (the
/// members together are the TRL of the system, as for device numbers):
/// VTAM wants "domain-unique names in all VTAM-related definitions that are
/// active at the same time" (SNA Resource Definition Reference) and
/// refuses a PORTNAME that "is not unique in this node" (IST1561I). A name
/// coded again is an error at that TRLE naming the first, by its line in
/// the same member, else by file and line.
fn check_trle_names(trls: &[&TrlFile], d: &mut Diagnostics) {
    // Name (or port name) → (file, line) of its first TRLE.
    let mut names: BTreeMap<&str, (&str, u32)> = BTreeMap::new();
    let mut ports: BTreeMap<&str, (&str, u32)> = BTreeMap::new();
    for t in trls {
        for e in &t.trles {
            for (what, name, seen) in [
                ("TRLE", &e.name, &mut names),
                ("TRLE PORTNAME", &e.portname, &mut ports),
            ] {
                match seen.get(name.as_str()) {
                    Some(&(file, first_line)) if file == t.file => d.error(
                        &t.file,
                        e.span,
                        ErrorKind::Duplicate {
                            what,
                            name: name.clone(),
                            first_line,
                        },
                    ),
                    Some(&(file, first_line)) => d.error(
                        &t.file,
                        e.span,
                        ErrorKind::DuplicateInOtherFile {
                            what,
                            name: name.clone(),
                            first_file: file.to_string(),
                            first_line,
                        },
                    ),
                    None => {
                        seen.insert(name, (&t.file, e.span.line));
                    }
                }
            }
        }
    }
}

/// Every READ, WRITE and DATAPATH device number of the TRLEs given (in
/// one member or several) is a device of its own: a number coded twice, in
/// one TRLE or in two, is an error at the second use (at the device
/// number inside the operand's list, or at the range that holds it) naming
/// the first (once per list element and first user: two overlapping
/// DATAPATH ranges give one error, for their first common device).
fn check_trle_devices(trls: &[&TrlFile], d: &mut Diagnostics) {
    // Device number → (TRLE, operand, file, line) of its first use.
    let mut seen: BTreeMap<u16, (&str, &str, &str, u32)> = BTreeMap::new();
    let mut reported: BTreeSet<(&str, Span, (&str, &str, &str))> = BTreeSet::new();
    for t in trls {
        for e in &t.trles {
            for (dev, operand, span) in &e.devices_at {
                match seen.get(dev) {
                    Some((name, op, file, line)) => {
                        let key = (t.file.as_str(), *span, (*name, *op, *file));
                        if !reported.insert(key) {
                            continue;
                        }
                        let role = match *op {
                            "DATAPATH" => "a DATAPATH device".to_string(),
                            other => format!("the {other} device"),
                        };
                        let other = if *name == e.name.as_str() && *file == t.file.as_str() {
                            format!("{role} of this TRLE")
                        } else if *file == t.file.as_str() {
                            format!("{role} of TRLE {name} (line {line})")
                        } else {
                            format!("{role} of TRLE {name} ({file}:{line})")
                        };
                        d.error(
                            &t.file,
                            *span,
                            ErrorKind::TrleDeviceInUse {
                                name: e.name.clone(),
                                operand,
                                dev: *dev,
                                other,
                            },
                        );
                    }
                    None => {
                        seen.insert(*dev, (&e.name, operand, &t.file, e.span.line));
                    }
                }
            }
        }
    }
}

/// Every interface on a port, of every stack, takes a DATAPATH device of
/// the port's TRLE for itself (in activation order: stack by stack,
/// INTERFACEs then LINKs). A TRLE with fewer devices than that is a
/// warning at its DATAPATH operand naming the interfaces left without one.
fn check_datapath_counts(trls: &[&TrlFile], users: &[PortUser], d: &mut Diagnostics) {
    // The users of each port, in order, gathered once (not by a scan of
    // every user per TRLE).
    let by_port = AllByName::all_of(users, |u| &u.port);
    for t in trls {
        for e in &t.trles {
            let on_port = by_port.get(&e.portname);
            if on_port.len() <= e.datapath.len() {
                continue;
            }
            let without: Vec<String> = on_port
                .iter()
                .skip(e.datapath.len())
                .map(|u| format!("{} of stack {}", u.name, u.stack))
                .collect();
            d.warning(
                &t.file,
                e.datapath_at,
                WarningKind::TrleTooFewDatapaths {
                    name: e.name.clone(),
                    port: e.portname.clone(),
                    have: e.datapath.len(),
                    need: on_port.len(),
                    without: without.join(", "),
                },
            );
        }
    }
}

/// Cross-stack checks: PORTNAME against TRLEs (when any TRLE is given),
/// duplicate TRLE names/port names, and the OLM sharing limit.
pub fn validate_system(stacks: &[(String, &Profile)], trls: &[&TrlFile], d: &mut Diagnostics) {
    validate_system_with_limits(stacks, trls, (OLM_MAX_PER_PORT, OLM_MAX_PER_CHPID), d);
}

/// Interfaces allowed on a port when any of them uses OLM (spec 2.4).
pub const OLM_MAX_PER_PORT: usize = 4;
/// Interfaces allowed on a CHPID when any of them uses OLM (spec 2.4).
pub const OLM_MAX_PER_CHPID: usize = 8;

/// [`validate_system`] with explicit OLM limits (port, CHPID).
pub fn validate_system_with_limits(
    stacks: &[(String, &Profile)],
    trls: &[&TrlFile],
    limits: (usize, usize),
    d: &mut Diagnostics,
) {
    let trles: Vec<Trle> = trls.iter().flat_map(|t| t.trles.iter().cloned()).collect();
    check_trle_names(trls, d);
    check_trle_devices(trls, d);
    let mut users = Vec::new();
    for (stack, p) in stacks {
        users.extend(port_users(stack, p));
    }
    check_datapath_counts(trls, &users, d);
    if !trles.is_empty() {
        let trle_of = ByName::first_of(&trles, |t| &t.portname);
        for (_, p) in stacks {
            for i in p.interfaces.iter().filter(|i| i.kind.is_osa()) {
                if let Some(port) = &i.portname {
                    if trle_of.get(&port.value).is_none() {
                        d.error(
                            &p.file,
                            port.span,
                            ErrorKind::PortnameNoTrle {
                                intf: i.name.clone(),
                                port: port.value.clone(),
                            },
                        );
                    }
                }
            }
            for l in p.links.iter().filter(|l| l.kind == InterfaceKind::IpaqEnet) {
                if trle_of.get(&l.device.value).is_none() {
                    d.error(
                        &p.file,
                        l.device.span,
                        ErrorKind::PortnameNoTrle {
                            intf: l.name.clone(),
                            port: l.device.value.clone(),
                        },
                    );
                }
            }
        }
    }
    // Two stacks registering the same IP address on one port: the data
    // router could not tell them apart.
    let mut seen: BTreeMap<(String, std::net::IpAddr), (String, String, u32)> = BTreeMap::new();
    for (stack, p) in stacks {
        let mut regs: Vec<(String, &str, std::net::IpAddr, Span)> = Vec::new();
        for i in p.interfaces.iter().filter(|i| i.kind.is_osa()) {
            if let Some(port) = &i.portname {
                for a in &i.ipaddr {
                    regs.push((
                        port.value.to_ascii_uppercase(),
                        &i.name,
                        a.value.addr,
                        a.span,
                    ));
                }
            }
        }
        let links = p.link_index();
        for h in &p.home {
            if let Some(l) = links
                .get(&h.link.value)
                .filter(|l| l.kind == InterfaceKind::IpaqEnet)
            {
                regs.push((
                    l.device.value.to_ascii_uppercase(),
                    &l.name,
                    h.addr.value,
                    h.addr.span,
                ));
            }
        }
        for (port, name, addr, span) in regs {
            match seen.get(&(port.clone(), addr)) {
                Some((other_stack, other, line)) if other_stack != stack => d.error(
                    &p.file,
                    span,
                    ErrorKind::DuplicateAddress {
                        addr: addr.to_string(),
                        other: format!("{other} of stack {other_stack} on the same port {port}"),
                        first_line: *line,
                    },
                ),
                Some(_) => {}
                None => {
                    seen.insert((port, addr), (stack.clone(), name.to_string(), span.line));
                }
            }
        }
    }
    // A user VMAC may be used by one interface per port only.
    let mut macs: BTreeMap<(String, [u8; 6]), String> = BTreeMap::new();
    for (stack, p) in stacks {
        let mut list: Vec<(String, &str, [u8; 6], Span)> = Vec::new();
        for i in p.interfaces.iter() {
            let port = match (&i.portname, &i.chpid, i.kind) {
                (_, Some(c), InterfaceKind::IpaqIdio) => format!("IUTIQD{:02X}", c.value),
                (Some(pn), _, _) => pn.value.to_ascii_uppercase(),
                _ => continue,
            };
            if let Some((m, sp)) = i.vmac.as_ref().and_then(|v| v.mac.map(|m| (m, v.span))) {
                list.push((port, &i.name, m, sp));
            }
        }
        for l in &p.links {
            if let Some((m, sp)) = l.vmac.as_ref().and_then(|v| v.mac.map(|m| (m, v.span))) {
                list.push((l.device.value.to_ascii_uppercase(), &l.name, m, sp));
            }
        }
        for (port, name, m, sp) in list {
            let who = format!("{name} of stack {stack}");
            match macs.get(&(port.clone(), m)) {
                Some(other) => d.error(
                    &p.file,
                    sp,
                    ErrorKind::VmacInUse {
                        intf: name.to_string(),
                        mac: m.iter().map(|b| format!("{b:02X}")).collect(),
                        other: other.clone(),
                        port,
                    },
                ),
                None => {
                    macs.insert((port, m), who);
                }
            }
        }
    }
    for (u, e) in olm_refused(&users, &trles, limits) {
        d.error(&u.file, u.span, e);
    }
}

/// Whether `name` is one of the links or interfaces z/OS creates itself for
/// DYNAMICXCF (same-host, XCF and HiperSockets IQDIO ones, IPv4 and IPv6).
/// A route may name them though no statement of the profile defines them.
fn is_dynamic_xcf_name(name: &str) -> bool {
    const GENERATED: [&str; 6] = [
        "EZASAMEMVS",
        "EZ6SAMEMVS",
        "EZAXCF",
        "EZ6XCF",
        "IQDIOLNK",
        "IQDIOINTF6",
    ];
    let upper = name.to_ascii_uppercase();
    GENERATED.iter().any(|g| upper.starts_with(g))
}
