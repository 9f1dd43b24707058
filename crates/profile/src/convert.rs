//! Conversion of legacy IPv4 OSA definitions (DEVICE MPCIPA, LINK IPAQENET
//! and HOME) into the equivalent INTERFACE statement, like the `CONVERT`
//! option of the stack's profile check (spec 5.1).
//!
//! Layer: configuration front end. Steps, per LINK IPAQENET:
//! the LINK name becomes the interface name; `DEFINE IPAQENET`; the LINK's
//! own parameters (INBPERF, VMAC, ...) are carried over; the HOME address
//! becomes `IPADDR addr/prefix` (an INTERFACE has one: of a link with
//! several, the first, and a warning names the others, which are left
//! out); the DEVICE name becomes `PORTNAME`; the DEVICE's router role is
//! carried over. The prefix length comes from the subnet mask of a
//! BEGINROUTES route over that link whose network contains the HOME
//! address (longest match), or from the caller
//! ([`ConvertOptions::prefixes`], `--prefix LINK=24` on the command line);
//! when neither gives it, the link is left unconverted and an error says so.
//! `START device` becomes `START link`.

use std::collections::{BTreeMap, HashSet};
use std::net::IpAddr;

use crate::ast::*;
use crate::diag::{Diagnostics, ErrorKind, Spanned, WarningKind};

/// Options for [`convert`].
#[derive(Debug, Clone, Default)]
pub struct ConvertOptions {
    /// Prefix length per LINK name (upper case), overriding the routes.
    pub prefixes: BTreeMap<String, u8>,
}

fn contains(net: IpAddr, prefix: u8, a: IpAddr) -> bool {
    match (net, a) {
        (IpAddr::V4(n), IpAddr::V4(a)) => {
            let p = u32::from(prefix.min(32));
            let m = if p == 0 { 0 } else { u32::MAX << (32 - p) };
            u32::from(n) & m == u32::from(a) & m
        }
        _ => false,
    }
}

/// The prefix length for `addr` from the routes over its link (the
/// link's entry of [`Profile::routes_by_link`]): the longest prefix,
/// short of a host route, of a network route that holds the address.
pub fn prefix_from_routes(link_routes: &[&Route], addr: IpAddr) -> Option<u8> {
    link_routes
        .iter()
        .filter_map(|r| r.dest.net())
        .filter(|(net, pl)| *pl < 32 && contains(*net, *pl, addr))
        .map(|(_, pl)| pl)
        .max()
}

/// Convert every LINK IPAQENET that can be converted. Returns the new
/// profile and the diagnostics (one error per link left unconverted).
pub fn convert(p: &Profile, opts: &ConvertOptions) -> (Profile, Diagnostics) {
    let f = p.file.as_str();
    let mut d = Diagnostics::new();
    let mut out = p.clone();
    // Upper-case names of the links converted: looked up for every LINK
    // and HOME, so a set, not a list to scan.
    let mut converted_links: HashSet<String> = HashSet::new();
    // Device → the links converted on it (a device may carry several).
    let mut renamed_devices: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let devices = p.device_index();
    let homes = p.homes_by_link();
    let routes = p.routes_by_link();
    for l in p.links.iter().filter(|l| l.kind == InterfaceKind::IpaqEnet) {
        let Some(dev) = devices.get(&l.device.value) else {
            d.error(
                f,
                l.device.span,
                ErrorKind::LinkUnknownDevice {
                    link: l.name.clone(),
                    device: l.device.value.clone(),
                },
            );
            continue;
        };
        let Some((home, others)) = homes.get(&l.name).split_first() else {
            d.error(f, l.span, ErrorKind::ConvertNoHome(l.name.clone()));
            continue;
        };
        let prefix = opts
            .prefixes
            .get(&l.name.to_ascii_uppercase())
            .copied()
            .or_else(|| prefix_from_routes(routes.get(&l.name), home.addr.value));
        let Some(prefix) = prefix else {
            d.error(f, l.span, ErrorKind::ConvertPrefixUnknown(l.name.clone()));
            continue;
        };
        let mut i = Interface::new(l.name.clone(), l.span, InterfaceKind::IpaqEnet);
        i.inbperf = l.inbperf.clone();
        i.workloadq = l.workloadq.clone();
        i.olm = l.olm.clone();
        i.readstorage = l.readstorage.clone();
        i.vmac = l.vmac.clone();
        i.vlanid = l.vlanid.clone();
        i.isolate = l.isolate.clone();
        i.secclass = l.secclass.clone();
        i.monsysplex = l.monsysplex.clone();
        i.ipaddr.push(Spanned::new(
            IpPrefix {
                addr: home.addr.value,
                prefix: Some(prefix),
            },
            home.addr.span,
        ));
        // Nothing is lost silently: the HOME addresses that do not fit.
        if let Some(first) = others.first() {
            let dropped: Vec<String> = others.iter().map(|h| h.addr.value.to_string()).collect();
            d.warning(
                f,
                first.addr.span,
                WarningKind::ConvertHomesLeftOut {
                    link: l.name.clone(),
                    kept: home.addr.value.to_string(),
                    dropped: dropped.join(", "),
                },
            );
        }
        i.portname = Some(Spanned::new(dev.name.clone(), dev.span));
        i.router = dev.router.clone();
        out.interfaces.push(i);
        converted_links.insert(l.name.to_ascii_uppercase());
        renamed_devices
            .entry(dev.name.to_ascii_uppercase())
            .or_default()
            .push(l.name.clone());
    }
    out.links
        .retain(|l| !converted_links.contains(&l.name.to_ascii_uppercase()));
    out.home
        .retain(|h| !converted_links.contains(&h.link.value.to_ascii_uppercase()));
    // A device is dropped once no remaining LINK uses it.
    let still_used: HashSet<String> = p
        .links
        .iter()
        .filter(|l| !converted_links.contains(&l.name.to_ascii_uppercase()))
        .map(|l| l.device.value.to_ascii_uppercase())
        .collect();
    out.devices.retain(|dv| {
        let name = dv.name.to_ascii_uppercase();
        !renamed_devices.contains_key(&name) || still_used.contains(&name)
    });
    // START of a device starts every link on it: one START per interface.
    out.starts = out
        .starts
        .iter()
        .flat_map(
            |s| match renamed_devices.get(&s.name.value.to_ascii_uppercase()) {
                Some(links) => links
                    .iter()
                    .map(|l| {
                        let mut t = s.clone();
                        t.name.value = l.clone();
                        t
                    })
                    .collect(),
                None => vec![s.clone()],
            },
        )
        .collect();
    (out, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::parse_profile;

    /// A LINK's INTERFACE takes the link's first HOME entry (its name in
    /// any case) and the longest prefix of the routes over the link that
    /// holds it; a link with no HOME is an error.
    #[test]
    fn a_link_converts_with_its_first_home_and_longest_route() {
        let src = "DEVICE OSA1 MPCIPA\nLINK La IPAQENET osa1\nDEVICE OSA2 MPCIPA\n\
                   LINK LB IPAQENET OSA2\n\
                   HOME 10.2.2.2 Lx 10.1.1.1 la 10.1.9.9 LA\n\
                   BEGINROUTES\n ROUTE 10.1.0.0/16 = LA MTU 1500\n \
                   ROUTE 10.1.1.0/24 = la MTU 1500\n ROUTE 10.1.1.0/30 = lb MTU 1500\n\
                   ENDROUTES\n";
        let (p, _) = parse_profile("t.prof", src);
        let (c, d) = convert(&p, &ConvertOptions::default());
        let ipaddr: Vec<String> = c
            .interfaces
            .iter()
            .flat_map(|i| i.ipaddr.iter().map(|a| format!("{} {}", i.name, a.value)))
            .collect();
        assert_eq!(ipaddr, ["La 10.1.1.1/24"]);
        let errors: Vec<String> = d.errors().map(|x| x.message()).collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("LB"), "{errors:?}");
    }

    /// A LINK with several HOME addresses becomes an INTERFACE with the
    /// first: a warning at the first left out names the link and every
    /// address left out. A link with one HOME address converts quietly.
    #[test]
    fn a_link_with_more_than_one_home_warns_of_those_left_out() {
        let src = "DEVICE OSA1 MPCIPA\nLINK L1 IPAQENET OSA1\n\
                   DEVICE OSA2 MPCIPA\nLINK L2 IPAQENET OSA2\n\
                   HOME 10.1.1.1 L1 10.2.1.1 L2\n 10.1.1.2 l1\n 10.1.1.3 L1\n";
        let (p, _) = parse_profile("t.prof", src);
        let mut opts = ConvertOptions::default();
        opts.prefixes.insert("L1".into(), 24);
        opts.prefixes.insert("L2".into(), 24);
        let (c, d) = convert(&p, &opts);
        assert_eq!(c.interfaces.len(), 2);
        let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
        assert_eq!(
            v,
            ["t.prof:6:2: warning: LINK L1: an IPAQENET INTERFACE has one IPADDR, so only the link's first HOME address 10.1.1.1 is converted; its other HOME address(es) 10.1.1.2, 10.1.1.3 are left out"]
        );
    }

    /// What is left of the legacy statements: a converted LINK goes with
    /// its HOMEs (named in any case), and its DEVICE when no LINK that is
    /// not converted still uses it (named in any case).
    #[test]
    fn converted_links_take_their_homes_and_unused_devices_along() {
        let src = "DEVICE OSA1 MPCIPA\nDEVICE osa2 MPCIPA\nDEVICE OSA3 MPCIPA\n\
                   LINK LA IPAQENET osa1\nLINK LB IPAQENET OSA2\nLINK LC IPAQENET osa2\n\
                   LINK LD IPAQENET Osa3\n\
                   HOME 10.1.1.1 la 10.2.1.1 LB 10.1.1.2 La 10.4.1.1 ld\n\
                   BEGINROUTES\n ROUTE 10.1.0.0/16 = LA MTU 1500\n \
                   ROUTE 10.2.0.0/16 = LB MTU 1500\nENDROUTES\n";
        let (p, _) = parse_profile("t.prof", src);
        let (c, _) = convert(&p, &ConvertOptions::default());
        let names = |v: Vec<&String>| -> Vec<String> { v.into_iter().cloned().collect() };
        assert_eq!(
            names(c.interfaces.iter().map(|i| &i.name).collect()),
            ["LA", "LB"]
        );
        // LC has no HOME, LD no route for its HOME's prefix.
        assert_eq!(
            names(c.links.iter().map(|l| &l.name).collect()),
            ["LC", "LD"]
        );
        assert_eq!(
            names(c.home.iter().map(|h| &h.link.value).collect()),
            ["ld"]
        );
        // OSA1 carried only LA; osa2 still carries LC, OSA3 LD.
        assert_eq!(
            names(c.devices.iter().map(|d| &d.name).collect()),
            ["OSA2", "OSA3"]
        );
    }
}
