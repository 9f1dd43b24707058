//! Activation: lowering validated profiles (one per stack/LPAR), their
//! policies and the VTAM TRLEs into the engine's typed
//! [`softosa_engine::config::SystemConfig`] (spec 5.1 with 1.1–1.4, 2.2–2.4,
//! 3.1–3.3).
//!
//! Layer: configuration front end → engine contract. Several stacks may
//! share one OSA port: every INTERFACE/LINK naming the same PORTNAME becomes
//! an interface on the same `PortConfig`. HiperSockets interfaces share the
//! port of their IQD CHPID. Things a profile cannot say (adapter generation,
//! speed, burned-in MAC, HiperSockets frame size) come from
//! [`ActivateOptions`], per port or as defaults.
//!
//! Activation refuses (returns the diagnostics) when any profile or the
//! system as a whole has errors — including the OLM sharing limit, which is
//! an activation-time rule in z/OS.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use softosa_engine::config as ec;

use crate::ast::*;
use crate::convert::prefix_from_routes;
use crate::diag::{Diagnostics, ErrorKind, Span, WarningKind};
use crate::validate::{olm_refused, port_users, validate_profile, validate_system_with_limits};

/// Per-port facts that the profile and TRLE do not carry.
#[derive(Debug, Clone, Default)]
pub struct PortOverride {
    pub generation: Option<ec::OsaGeneration>,
    pub speed_mbps: Option<u32>,
    pub physical_mac: Option<ec::Mac>,
    pub chpid: Option<u8>,
}

/// Options for [`activate`].
#[derive(Debug, Clone)]
pub struct ActivateOptions {
    /// Adapter generation of OSA ports without an override.
    pub generation: ec::OsaGeneration,
    /// Port speed in Mb/s of OSA ports without an override.
    pub speed_mbps: u32,
    /// HiperSockets maximum frame size in KB (16, 24, 40 or 64).
    pub iqd_mfs_kb: u16,
    /// Overrides by PORTNAME (upper case).
    pub ports: BTreeMap<String, PortOverride>,
    /// Engine model defaults (timers, OLM limits, ...).
    pub tuning: ec::Tuning,
}

impl Default for ActivateOptions {
    fn default() -> Self {
        ActivateOptions {
            generation: ec::OsaGeneration::Express3,
            speed_mbps: 1000,
            iqd_mfs_kb: 16,
            ports: BTreeMap::new(),
            tuning: ec::Tuning::default(),
        }
    }
}

/// One stack to activate: its name (the TCP/IP procedure / LPAR label), its
/// profile, and its Policy Agent TOS policy if any.
#[derive(Debug, Clone)]
pub struct StackInput<'a> {
    pub name: String,
    pub profile: &'a Profile,
    pub policy: Option<&'a TosPolicy>,
}

/// A successful activation: the engine config and any warnings.
#[derive(Debug, Clone)]
pub struct Activation {
    pub config: ec::SystemConfig,
    pub warnings: Diagnostics,
}

fn inbperf(i: InbPerf) -> ec::InbPerf {
    match i {
        InbPerf::Balanced => ec::InbPerf::Balanced,
        InbPerf::Dynamic => ec::InbPerf::Dynamic,
        InbPerf::MinCpu => ec::InbPerf::MinCpu,
        InbPerf::MinLatency => ec::InbPerf::MinLatency,
    }
}

fn router(r: RouterRole) -> ec::RouterRole {
    match r {
        RouterRole::NonRouter => ec::RouterRole::NonRouter,
        RouterRole::PriRouter => ec::RouterRole::Primary,
        RouterRole::SecRouter => ec::RouterRole::Secondary,
    }
}

fn vmac(v: &Vmac) -> ec::VmacConfig {
    ec::VmacConfig {
        mac: v.mac.map(ec::Mac),
        route: match v.route {
            VmacRoute::All => ec::VmacRoute::All,
            VmacRoute::Local => ec::VmacRoute::Local,
        },
    }
}

/// Default IPv6 prefix length when IPAQENET6 IPADDR has none (the stack
/// learns prefixes from router advertisements; softosa needs one).
pub const DEFAULT_V6_PREFIX: u8 = 64;

/// A port being assembled.
struct PortPlan {
    name: String,
    iqd_chpid: Option<u8>,
    /// The statement that named the port first (`INTERFACE X`, `LINK Y`),
    /// and its profile's file.
    first: String,
    first_file: String,
}

/// Lower the stacks and TRLEs into one [`ec::SystemConfig`].
pub fn activate(
    stacks: &[StackInput<'_>],
    trls: &[&TrlFile],
    opts: &ActivateOptions,
) -> Result<Activation, Diagnostics> {
    let mut d = Diagnostics::new();
    // Two stacks of one name would be one stack to everything that finds
    // a stack by name (displays, STACK/INTERFACE, policies).
    for (k, s) in stacks.iter().enumerate() {
        if let Some(first) = stacks
            .iter()
            .take(k)
            .find(|o| o.name.eq_ignore_ascii_case(&s.name))
        {
            d.error(
                &s.profile.file,
                Span::default(),
                ErrorKind::DuplicateStackName {
                    name: s.name.clone(),
                    other: first.profile.file.clone(),
                },
            );
        }
    }
    for s in stacks {
        validate_profile(s.profile, &mut d);
    }
    let named: Vec<(String, &Profile)> =
        stacks.iter().map(|s| (s.name.clone(), s.profile)).collect();
    let limits = (opts.tuning.olm.max_per_port, opts.tuning.olm.max_per_chpid);
    validate_system_with_limits(&named, trls, limits, &mut d);
    let trles: Vec<Trle> = trls.iter().flat_map(|t| t.trles.iter().cloned()).collect();
    // Belt and braces: validation already reported refusals as errors.
    let mut users = Vec::new();
    for (n, p) in &named {
        users.extend(port_users(n, p));
    }
    if !olm_refused(&users, &trles, limits).is_empty() && !d.has_errors() {
        d.error(
            "",
            Span::default(),
            ErrorKind::Activation("OLM sharing limit exceeded".into()),
        );
    }
    if d.has_errors() {
        return Err(d);
    }
    let global_rs = trls
        .iter()
        .find_map(|t| t.qdiostg)
        .unwrap_or(ReadStorage::Max);

    // ---- ports ----------------------------------------------------------
    let mut plans: Vec<PortPlan> = Vec::new();
    // Port name (upper case) → its plan: a scan of the plans per interface
    // is quadratic in the number of ports.
    let mut plan_of: HashMap<String, usize> = HashMap::new();
    // A port is one kind: an OSA PORTNAME that is also a HiperSockets
    // CHPID's port name (IUTIQDxx) would merge the two; the error names
    // the statement that claimed the port first.
    let mut port_index = |name: &str,
                          iqd: Option<u8>,
                          user: String,
                          file: &str,
                          plans: &mut Vec<PortPlan>|
     -> Result<usize, ErrorKind> {
        let key = name.to_ascii_uppercase();
        if let Some(&i) = plan_of.get(&key) {
            let other = &plans[i];
            if other.iqd_chpid.is_some() != iqd.is_some() {
                // The first statement's file, when it is another profile's.
                let first = if other.first_file == file {
                    other.first.clone()
                } else {
                    format!("{} of {}", other.first, other.first_file)
                };
                let why = match (iqd, other.iqd_chpid) {
                    (Some(c), _) => format!(
                        "the port of its HiperSockets CHPID {c:02X} is named {key}, which \
                         {first} gives an OSA port as its name"
                    ),
                    (None, c) => format!(
                        "{key} names the port of HiperSockets CHPID {:02X}, which {first} is \
                         on, not an OSA port",
                        c.unwrap_or_default()
                    ),
                };
                return Err(ErrorKind::Activation(format!(
                    "{user}: {why}; HiperSockets ports are named IUTIQDxx after their CHPID, \
                     so give the OSA port another name"
                )));
            }
            return Ok(i);
        }
        plans.push(PortPlan {
            name: key.clone(),
            iqd_chpid: iqd,
            first: user,
            first_file: file.to_string(),
        });
        plan_of.insert(key, plans.len() - 1);
        Ok(plans.len() - 1)
    };
    let iqd_name = |c: u8| format!("IUTIQD{c:02X}");

    let mut cfg = ec::SystemConfig {
        tuning: opts.tuning.clone(),
        ..ec::SystemConfig::default()
    };

    for (si, s) in stacks.iter().enumerate() {
        let p = s.profile;
        for i in &p.interfaces {
            let (port, iqd) = match i.kind {
                InterfaceKind::IpaqIdio => {
                    let c = i.chpid.as_ref().map(|c| c.value).unwrap_or(0);
                    (iqd_name(c), Some(c))
                }
                _ => (
                    i.portname
                        .as_ref()
                        .map(|p| p.value.clone())
                        .unwrap_or_default(),
                    None,
                ),
            };
            let user = format!("INTERFACE {}", i.name);
            let pi = match port_index(&port, iqd, user, &p.file, &mut plans) {
                Ok(pi) => pi,
                Err(e) => {
                    let at = match i.kind {
                        InterfaceKind::IpaqIdio => i.chpid.as_ref().map(|c| c.span),
                        _ => i.portname.as_ref().map(|p| p.span),
                    };
                    d.error(&p.file, at.unwrap_or(i.span), e);
                    continue;
                }
            };
            let mut ic = ec::InterfaceConfig::new(i.name.clone(), si, pi);
            ic.ip_version = if i.kind == InterfaceKind::IpaqEnet6 {
                ec::IpVersion::V6
            } else {
                ec::IpVersion::V4
            };
            ic.defined_by = ec::DefinedBy::Interface;
            ic.addresses = i
                .ipaddr
                .iter()
                .map(|a| ec::IpNet {
                    addr: a.value.addr,
                    prefix: a.value.prefix.unwrap_or(if a.value.addr.is_ipv6() {
                        DEFAULT_V6_PREFIX
                    } else {
                        32
                    }),
                })
                .collect();
            ic.mtu = i.mtu.as_ref().map(|m| m.value);
            ic.vlan = i.vlanid.as_ref().and_then(|v| u16::try_from(v.value).ok());
            ic.vmac = i.vmac.as_ref().map(vmac);
            ic.inbperf = inbperf(i.effective_inbperf());
            ic.workloadq = i.workloadq_on();
            ic.olm = i.olm_on();
            let rs = i.readstorage_value();
            ic.read_storage_global = rs == ReadStorage::Global;
            ic.read_storage_sbals = if i.kind == InterfaceKind::IpaqIdio {
                rs.iqd_sbals(global_rs)
            } else {
                rs.osa_sbals(global_rs)
            };
            // The role coded: the engine leaves it unused beside a VMAC
            // (ACTROUTER NON), and DEVLINKS shows it as CFGROUTER.
            ic.router = router(i.router.as_ref().map(|r| r.value).unwrap_or_default());
            ic.isolate = i.isolate_on();
            if let Some(c) = &i.secclass {
                ic.secclass = c.value;
            }
            ic.monsysplex = i.monsysplex.as_ref().is_some_and(|m| m.value);
            ic.source_vipa = i.source_vipa.as_ref().map(|v| v.value.clone());
            cfg.interfaces.push(ic);
        }
        let devices = p.device_index();
        // Each link's HOMEs and ROUTEs, found once: a scan of them all per
        // link takes seconds for tens of thousands of links.
        let homes = p.homes_by_link();
        let routes = p.routes_by_link();
        for l in &p.links {
            let (port, iqd) = match l.kind {
                InterfaceKind::IpaqIdio => {
                    // HiperSockets devices are named IUTIQDxx, xx = CHPID.
                    match iqd_chpid_of_device(&l.device.value) {
                        Some(c) => (iqd_name(c), Some(c)),
                        None => {
                            d.error(
                                &p.file,
                                l.device.span,
                                ErrorKind::Activation(format!(
                                    "LINK {} IPAQIDIO: device {} is not named IUTIQDxx, so its HiperSockets CHPID is unknown",
                                    l.name, l.device.value
                                )),
                            );
                            continue;
                        }
                    }
                }
                _ => (l.device.value.clone(), None),
            };
            let user = format!("LINK {}", l.name);
            let pi = match port_index(&port, iqd, user, &p.file, &mut plans) {
                Ok(pi) => pi,
                Err(e) => {
                    d.error(&p.file, l.device.span, e);
                    continue;
                }
            };
            let mut ic = ec::InterfaceConfig::new(l.name.clone(), si, pi);
            ic.defined_by = ec::DefinedBy::Link;
            let link_routes = routes.get(&l.name);
            ic.addresses = homes
                .get(&l.name)
                .iter()
                .map(|h| ec::IpNet {
                    addr: h.addr.value,
                    prefix: prefix_from_routes(link_routes, h.addr.value).unwrap_or(32),
                })
                .collect();
            ic.vlan = l.vlanid.as_ref().and_then(|v| u16::try_from(v.value).ok());
            ic.vmac = l.vmac.as_ref().map(vmac);
            ic.inbperf = inbperf(l.inbperf.as_ref().map(|x| x.value).unwrap_or_default());
            let rs = l.readstorage.as_ref().map(|r| r.value).unwrap_or_default();
            ic.read_storage_global = rs == ReadStorage::Global;
            ic.read_storage_sbals = if l.kind == InterfaceKind::IpaqIdio {
                rs.iqd_sbals(global_rs)
            } else {
                rs.osa_sbals(global_rs)
            };
            let role = devices
                .get(&l.device.value)
                .and_then(|dv| dv.router.as_ref().map(|r| r.value))
                .unwrap_or_default();
            ic.router = router(role);
            ic.isolate = l.isolate.as_ref().is_some_and(|x| x.value);
            if let Some(c) = &l.secclass {
                ic.secclass = c.value;
            }
            ic.monsysplex = l.monsysplex.as_ref().is_some_and(|m| m.value);
            cfg.interfaces.push(ic);
        }

        // ---- stack -------------------------------------------------------
        let mut sc = ec::StackConfig::new(s.name.clone());
        sc.segmentation_offload = p
            .global
            .segmentation_offload
            .as_ref()
            .is_some_and(|x| x.value)
            || p.ip.segmentation_offload.as_ref().is_some_and(|x| x.value);
        let t = &p.tcp;
        let dflt = ec::TcpSettings::default();
        sc.tcp = ec::TcpSettings {
            send_buf: t.send_buf.as_ref().map_or(dflt.send_buf, |v| v.value),
            rcv_buf: t.rcv_buf.as_ref().map_or(dflt.rcv_buf, |v| v.value),
            max_rcv_buf_coded: t.max_rcv_buf.as_ref().map(|v| v.value),
            max_send_buf_coded: t.max_send_buf.as_ref().map(|v| v.value),
            delay_acks: match t.delay_acks.as_ref().map(|d| d.value) {
                None | Some(DelayAcks::Delay) => ec::AckDelay::Delay,
                Some(DelayAcks::NoDelay) => ec::AckDelay::NoDelay,
                Some(DelayAcks::Auto) => ec::AckDelay::Auto,
            },
            frr_threshold: t
                .frr_threshold
                .as_ref()
                .map_or(dflt.frr_threshold, |v| v.value),
            time_wait_s: t.time_wait.as_ref().map_or(dflt.time_wait_s, |v| v.value),
        };
        sc.iqd_multiwrite = p.global.iqdmultiwrite.as_ref().is_some_and(|x| x.value);
        sc.smc_r = p.global.smcr.as_ref().is_some_and(|x| x.value);
        sc.smc_d = p.global.smcd.as_ref().is_some_and(|x| x.value);
        sc.ziip_iqdio_multiwrite = sc.iqd_multiwrite
            && p.global
                .ziip_iqdiomultiwrite
                .as_ref()
                .is_some_and(|x| x.value);
        sc.wlm_priorityq = p.global.wlmpriorityq.as_ref().map(|w| ec::WlmPriorityMap {
            queue_for: w.queue_for_value,
            forwarded_queue: w.fwd_queue,
        });
        sc.tos_policy = s.policy.or(p.policy.as_ref()).map(|t| ec::TosPolicy {
            mask: t.mask,
            mappings: t.mappings.iter().map(|(tos, q)| (*q, *tos)).collect(),
        });
        sc.datagram_fwd = p.ip.forwarding();
        sc.qdio_accelerator = p.ip.accelerator_on().then(|| p.ip.qdio_priority());
        sc.iqdio_routing =
            p.ip.iqdiorouting.as_ref().is_some_and(|x| x.value) && !p.ip.accelerator_coded();
        sc.ipsecurity = p.ip.ipsecurity.is_some();
        sc.distributed_dvipas = p
            .vipa
            .distributes
            .iter()
            .map(|x| IpAddr::V4(x.addr.value))
            .collect();
        // Home addresses on no adapter: a LINK VIRTUAL's HOMEs, an
        // INTERFACE VIRTUAL's IPADDR, and VIPADEFINE's dynamic VIPAs.
        let vipas = p.static_vipa_index();
        let mut own: Vec<IpAddr> = p
            .home
            .iter()
            .filter(|h| vipas.get(VipaKind::Link, &h.link.value).is_some())
            .map(|h| h.addr.value)
            .chain(
                p.static_vipas
                    .iter()
                    .filter(|v| matches!(v.kind, VipaKind::Interface | VipaKind::Interface6))
                    .flat_map(|v| v.ipaddr.iter().map(|a| a.value)),
            )
            .chain(
                p.vipa
                    .defines
                    .iter()
                    .flat_map(|d| d.addrs.iter().map(|a| IpAddr::V4(a.value))),
            )
            .collect();
        own.sort();
        own.dedup();
        sc.vipas = own;
        cfg.stacks.push(sc);
    }

    // ---- Enterprise Extender address → the stack that owns it ------------
    for t in trls {
        let Some(ee) = &t.ee else { continue };
        let owner = stacks.iter().position(|s| {
            s.profile
                .interfaces
                .iter()
                .any(|i| i.ipaddr.iter().any(|a| a.value.addr == ee.addr.value))
                || s.profile.home.iter().any(|h| h.addr.value == ee.addr.value)
                || s.profile
                    .vipa
                    .defines
                    .iter()
                    .any(|v| v.addrs.iter().any(|a| IpAddr::V4(a.value) == ee.addr.value))
        });
        match owner.and_then(|o| cfg.stacks.get_mut(o)) {
            Some(sc) => {
                let (first, last) = ee.port_range();
                sc.ee = Some(ec::EeConfig {
                    addr: ee.addr.value,
                    first_port: first,
                    last_port: last,
                });
            }
            None => d.warning(
                &t.file,
                ee.addr.span,
                WarningKind::EeAddressNotOwned(ee.addr.value.to_string()),
            ),
        }
    }

    // ---- ports, now that all users are known ----------------------------
    // Found once for every port, not by a scan per port: the TRLE of each
    // PORTNAME (the first), and the first INTERFACE on it, of every stack
    // in order, whose CHPIDTYPE and CHPID describe the port.
    let trle_of = ByName::first_of(&trles, |t| &t.portname);
    let first_on_port = ByName::first_of(
        stacks
            .iter()
            .flat_map(|s| s.profile.interfaces.iter())
            .filter(|i| i.portname.is_some()),
        |i| i.portname.as_ref().map_or("", |p| p.value.as_str()),
    );
    let mut next_chpid: u8 = 0x10;
    for (idx, plan) in plans.iter().enumerate() {
        let ov = opts.ports.get(&plan.name).cloned().unwrap_or_default();
        let low = u8::try_from(idx & 0xff).unwrap_or(0);
        let pc = match plan.iqd_chpid {
            Some(c) => ec::PortConfig {
                name: plan.name.clone(),
                chpid: c,
                port_num: 0,
                kind: ec::PortKind::HiperSockets {
                    mfs_kb: opts.iqd_mfs_kb,
                },
                // HiperSockets MACs are generated; locally administered.
                physical_mac: ov
                    .physical_mac
                    .unwrap_or(ec::Mac([0x06, 0x00, 0x00, 0x00, c, low])),
                lan_mtu: None,
            },
            None => {
                let trle = trle_of.get(&plan.name);
                let first = first_on_port.get(&plan.name);
                let ct = first
                    .and_then(|i| i.chpidtype.as_ref().map(|c| c.value))
                    .unwrap_or_default();
                let chpid_from_intf = first.and_then(|i| i.chpid.as_ref().map(|c| c.value));
                let chpid = ov
                    .chpid
                    .or(trle.and_then(|t| t.chpid))
                    .or(chpid_from_intf)
                    .unwrap_or_else(|| {
                        let c = next_chpid;
                        next_chpid = next_chpid.wrapping_add(1);
                        c
                    });
                ec::PortConfig {
                    name: plan.name.clone(),
                    chpid,
                    port_num: trle.map(|t| t.portnum).unwrap_or(0),
                    kind: ec::PortKind::Osa {
                        generation: ov.generation.unwrap_or(opts.generation),
                        speed_mbps: ov.speed_mbps.unwrap_or(opts.speed_mbps),
                        chpid_type: match ct {
                            ChpidType::Osd => ec::ChpidType::Osd,
                            ChpidType::Osx => ec::ChpidType::Osx,
                        },
                    },
                    // A universal (burned-in style) MAC: OUI-like prefix,
                    // last bytes from the port's position.
                    physical_mac: ov
                        .physical_mac
                        .unwrap_or(ec::Mac([0x64, 0x3B, 0x88, 0xF3, 0x00, low])),
                    lan_mtu: None,
                }
            }
        };
        cfg.ports.push(pc);
    }
    if d.has_errors() {
        return Err(d);
    }
    // Dry run: the engine must accept the result (its own activation rules
    // are the final word; a refusal here means our checks missed a case).
    if let Err(e) = softosa_engine::Engine::new(cfg.clone()) {
        // At the statement of the interface refused, where its name tells
        // which stack's it is; else at the first profile, as a whole.
        let (file, at) = refused_at(&e, &cfg, stacks).unwrap_or_else(|| {
            let file = stacks.first().map(|s| s.profile.file.as_str());
            (file.unwrap_or(""), Span::default())
        });
        d.error(
            file,
            at,
            ErrorKind::Activation(format!("the engine refused the configuration: {e}")),
        );
        return Err(d);
    }
    Ok(Activation {
        config: cfg,
        warnings: d,
    })
}

/// The CHPID a HiperSockets device name IUTIQDxx names (two hexadecimal
/// digits, any case), or `None`.
pub fn iqd_chpid_of_device(device: &str) -> Option<u8> {
    let up = device.to_ascii_uppercase();
    let x = up.strip_prefix("IUTIQD")?;
    if x.len() != 2 || !x.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u8::from_str_radix(x, 16).ok()
}

/// The profile and place of the interface an engine refusal names: its
/// VMAC when the refusal is about one, else its statement. `None` when no
/// interface of the configuration has the name, or several stacks do.
fn refused_at<'a>(
    e: &softosa_engine::config::ConfigError,
    cfg: &ec::SystemConfig,
    stacks: &'a [StackInput<'_>],
) -> Option<(&'a str, Span)> {
    use softosa_engine::config::ConfigError;
    use softosa_engine::engine::ActivateError;
    let ConfigError::Activate(a) = e else {
        return None;
    };
    let name = a.interface();
    let mut owners = cfg
        .interfaces
        .iter()
        .filter(|i| i.name.eq_ignore_ascii_case(name))
        .map(|i| i.stack);
    let si = owners.next()?;
    if owners.any(|o| o != si) {
        return None;
    }
    let p = stacks.get(si)?.profile;
    let vmac_issue = matches!(
        a,
        ActivateError::VmacInUse(..) | ActivateError::VmacNotLocal(..)
    );
    let at = if let Some(i) = p
        .interfaces
        .iter()
        .find(|i| i.name.eq_ignore_ascii_case(name))
    {
        i.vmac
            .as_ref()
            .filter(|_| vmac_issue)
            .map_or(i.span, |v| v.span)
    } else {
        let l = p.links.iter().find(|l| l.name.eq_ignore_ascii_case(name))?;
        l.vmac
            .as_ref()
            .filter(|_| vmac_issue)
            .map_or(l.span, |v| v.span)
    };
    Some((p.file.as_str(), at))
}

/// Two profiles that [`activate`] refused as stacks of one name
/// ([`ErrorKind::DuplicateStackName`]): `first` and `second` are their
/// files. Its `Display` says what clashes; [`StackNameClash::with_advice`]
/// adds how to fix it, for a front end that takes `--profile FILE...` and
/// names each stack after its file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("two stacks are named {name}: {first} and {second}")]
pub struct StackNameClash {
    pub name: String,
    pub first: String,
    pub second: String,
}

impl StackNameClash {
    /// The first stack-name clash among the errors of a refused
    /// activation, if there is one.
    pub fn find(d: &Diagnostics) -> Option<StackNameClash> {
        d.errors().find_map(|x| match x.error() {
            Some(ErrorKind::DuplicateStackName { name, other }) => Some(StackNameClash {
                name: name.clone(),
                first: other.clone(),
                second: x.file.clone(),
            }),
            _ => None,
        })
    }

    /// The clash with what to do about it, for a front end (`who`, e.g.
    /// "display" or "the lab") that names each stack after its profile's
    /// file unless told NAME=FILE.
    pub fn with_advice(&self, who: &str) -> String {
        format!(
            "{self}; {who} names each stack after its profile's file, \
             so name them (NAME=FILE, e.g. TCPIPA=a/tcpip.prof) or give the files \
             different names"
        )
    }
}

/// Read configuration files (profiles, policy files, TRL members — told
/// apart by content, see [`crate::load`]) and activate them in one go: each
/// profile is one stack named after its file stem in upper case (or the
/// name given with it); a policy file applies to every stack. This is the
/// entry point for drivers that take `--profile FILE...`.
pub fn activate_files(
    files: &[(Option<String>, std::path::PathBuf)],
    opts: &ActivateOptions,
) -> Result<Activation, Diagnostics> {
    use crate::load::{load_path_within, Loaded, TextBudget};
    let mut d = Diagnostics::new();
    let mut profiles: Vec<(String, Profile)> = Vec::new();
    let mut trls: Vec<TrlFile> = Vec::new();
    let mut policy: Option<TosPolicy> = None;
    let mut budget = TextBudget::default();
    for (name, path) in files {
        let (l, ld) = load_path_within(path, &mut budget);
        d.extend(ld);
        match l {
            Some(Loaded::Profile(p)) => {
                let n = name
                    .clone()
                    .unwrap_or_else(|| crate::load::stack_name_of(path));
                profiles.push((n, *p));
            }
            Some(Loaded::Trl(t)) => trls.push(t),
            Some(Loaded::Policy(p)) => policy = p.or(policy),
            None => {}
        }
    }
    if d.has_errors() {
        return Err(d);
    }
    let inputs: Vec<StackInput<'_>> = profiles
        .iter()
        .map(|(n, p)| StackInput {
            name: n.clone(),
            profile: p,
            policy: policy.as_ref(),
        })
        .collect();
    let refs: Vec<&TrlFile> = trls.iter().collect();
    let mut a = activate(&inputs, &refs, opts)?;
    let mut all = d;
    all.extend(a.warnings);
    a.warnings = all;
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::parse_profile;

    /// The profile `src`, which has no errors, activated as stack T alone.
    fn activated(src: &str) -> Activation {
        let (p, d) = parse_profile("t.prof", src);
        assert!(!d.has_errors(), "{:?}", d.items());
        let input = StackInput {
            name: "T".into(),
            profile: &p,
            policy: None,
        };
        activate(&[input], &[], &ActivateOptions::default()).expect("activates")
    }

    /// A LINK's addresses are all its HOME entries, whatever the case of
    /// the link name in each, in file order, each with the longest prefix
    /// of the routes over the link (in any case) that holds it.
    #[test]
    fn a_link_gets_every_home_with_its_routes_prefix() {
        let src = "DEVICE OSA1 MPCIPA\nLINK La IPAQENET osa1\nDEVICE OSA2 MPCIPA\n\
                   LINK LB IPAQENET OSA2\n\
                   HOME 10.1.1.1 la 10.2.2.2 LB 10.1.9.9 LA\n\
                   BEGINROUTES\n ROUTE 10.1.0.0/16 = LA MTU 1500\n \
                   ROUTE 10.1.1.0/24 = la MTU 1500\n ROUTE 10.2.0.0/16 = lb MTU 1500\n\
                   ENDROUTES\n";
        let act = activated(src);
        let addrs = |name: &str| -> Vec<String> {
            act.config
                .interfaces
                .iter()
                .find(|i| i.name == name)
                .map(|i| i.addresses.iter().map(|a| a.to_string()).collect())
                .unwrap_or_default()
        };
        assert_eq!(addrs("La"), ["10.1.1.1/24", "10.1.9.9/16"]);
        assert_eq!(addrs("LB"), ["10.2.2.2/16"]);
    }

    /// A stack's home addresses on no adapter: a LINK VIRTUAL's HOMEs (in
    /// any case of the link name), an INTERFACE VIRTUAL's IPADDR and
    /// VIPADEFINE's addresses; an adapter's HOME is not one of them.
    #[test]
    fn static_and_dynamic_vipas_are_the_stacks_own_addresses() {
        let src = "DEVICE VD VIRTUAL 0\nLINK VL VIRTUAL 0 VD\n\
                   INTERFACE VI DEFINE VIRTUAL IPADDR 10.7.7.7\n\
                   DEVICE OSA1 MPCIPA\nLINK L1 IPAQENET OSA1\n\
                   HOME 10.9.9.9 vl 10.1.1.1 L1\n\
                   VIPADYNAMIC\n VIPADEFINE 255.255.255.0 10.8.8.8\nENDVIPADYNAMIC\n";
        let act = activated(src);
        let v: Vec<String> = act.config.stacks[0]
            .vipas
            .iter()
            .map(|a| a.to_string())
            .collect();
        assert_eq!(v, ["10.7.7.7", "10.8.8.8", "10.9.9.9"]);
    }

    /// Interfaces on one PORTNAME in any case, INTERFACE or LINK, share
    /// one port, numbered in order of first use; the port's CHPID type and
    /// CHPID are those of the first INTERFACE on it.
    #[test]
    fn a_port_is_shared_in_any_case_and_described_by_its_first_interface() {
        let src = "INTERFACE I1 DEFINE IPAQENET IPADDR 10.1.1.1/24 PORTNAME px VLANID 1\n\
                   CHPIDTYPE OSX CHPID 5A\n\
                   INTERFACE I2 DEFINE IPAQENET IPADDR 10.1.2.1/24 PORTNAME PX VLANID 2\n\
                   CHPIDTYPE OSX CHPID 5B\n\
                   INTERFACE I3 DEFINE IPAQENET IPADDR 10.1.3.1/24 PORTNAME Py VLANID 3\n\
                   DEVICE py MPCIPA\nLINK L1 IPAQENET PY VLANID 9\nHOME 10.1.9.1 L1\n";
        let act = activated(src);
        let ports: Vec<(&str, u8, bool)> = act
            .config
            .ports
            .iter()
            .map(|p| {
                let osx = matches!(
                    p.kind,
                    ec::PortKind::Osa {
                        chpid_type: ec::ChpidType::Osx,
                        ..
                    }
                );
                (p.name.as_str(), p.chpid, osx)
            })
            .collect();
        assert_eq!(ports, [("PX", 0x5A, true), ("PY", 0x10, false)]);
        let on: Vec<(&str, usize)> = act
            .config
            .interfaces
            .iter()
            .map(|i| (i.name.as_str(), i.port))
            .collect();
        assert_eq!(on, [("I1", 0), ("I2", 0), ("I3", 1), ("L1", 1)]);
    }
}
