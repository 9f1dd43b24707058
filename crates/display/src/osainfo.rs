//! `D TCPIP,,OSAINFO,INTFN=x` (layer: displays; spec 05 §5.2 "OSAINFO").
//!
//! What the adapter holds for one interface: port, CHPID, generation and
//! speed, MACs, queues, registered addresses, and the ancillary input queue
//! routing variables — the BULKDATA 5-tuples from the adapter's registration
//! table, the SYSDIST distributed DVIPAs, the EE address and ports, IPSEC.

use crate::context::{DisplayContext, OSAINFO_LINE_LIMIT};
use crate::text::{dev, yes_no_mixed, Lines};
use crate::{select_interfaces, DisplayError, Report};
use serde::Serialize;
use softosa_engine::config::{IpVersion, Layer, PortKind, VmacRoute};
use softosa_engine::engine::{Interface, VmacOrigin};
use softosa_engine::wire::{PROTO_TCP, PROTO_UDP};
use softosa_engine::{Engine, QueueKind};

#[derive(Debug, Serialize)]
pub struct OsaInfoReport {
    /// Time of the display, `hh:mm:ss` (the EZD0031I header's).
    pub time: String,
    pub interfaces: Vec<OsaInfo>,
    /// The text's `MAX=` (see [`DisplayContext::osainfo_max`]); JSON lists
    /// everything.
    #[serde(skip)]
    pub max_lines: Option<u32>,
}

#[derive(Debug, Serialize)]
pub struct RegisteredAddr {
    pub addr: String,
    /// IPv4 unicast: the adapter answers ARP for it.
    pub arp: Option<bool>,
}

#[derive(Debug, Serialize)]
pub struct BulkTuple {
    pub protocol: String,
    pub src: String,
    pub dst: String,
}

#[derive(Debug, Serialize)]
pub struct AncillaryRouting {
    pub queue_type: String,
    pub queue_id: u8,
    pub protocol: String,
    /// BULKDATA: registered 5-tuples (inbound direction).
    pub connections: Vec<BulkTuple>,
    /// SYSDIST: distributed DVIPAs; EE: the EE address.
    pub addresses: Vec<String>,
    /// EE: the port range.
    pub ports: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct OsaInfo {
    pub stack: String,
    pub intfname: String,
    pub portname: String,
    pub portnum: u8,
    pub datapath: String,
    pub realaddr: String,
    /// Physical channel id: softosa has no physical channels and numbers
    /// them 0100 + CHPID, so the field keeps its place.
    pub pchid: String,
    pub chpid: String,
    pub chpid_type: String,
    pub osa_code_level: String,
    pub gen: String,
    pub active_speed_mbps: u32,
    /// The feature's media, by speed (softosa models no optics): fiber
    /// from 10 GbE, copper below.
    pub media: String,
    pub jumbo_frames: bool,
    pub isolate: bool,
    pub physical_mac: String,
    pub locally_cfg_mac: String,
    pub queues_defined_out: u8,
    pub queues_defined_in: u8,
    pub ancillary_queues_in_use: u8,
    pub connection_mode: String,
    pub ipv4: bool,
    pub ipv6: bool,
    pub vlan_id: Option<u16>,
    pub vmac_active: bool,
    pub vmac_addr: Option<String>,
    pub vmac_origin: Option<String>,
    pub vmac_router: Option<String>,
    pub unicast: Vec<RegisteredAddr>,
    pub multicast: Vec<RegisteredAddr>,
    pub ancillary: Vec<AncillaryRouting>,
}

/// Build OSAINFO for one interface (or every OSA interface of the engine).
pub fn build(
    engine: &Engine,
    ctx: &DisplayContext,
    target: Option<&str>,
) -> Result<OsaInfoReport, DisplayError> {
    let mut ifaces = select_interfaces(engine, ctx, target)?;
    if target.is_some() {
        if let Some(i) = ifaces.first() {
            let p = engine.ports().get(i.cfg.port).map(|p| &p.cfg);
            if let Some(p) = p.filter(|p| p.is_hipersockets()) {
                return Err(DisplayError::NotOsa {
                    name: i.cfg.name.clone(),
                    chpid: p.chpid,
                });
            }
        }
    } else {
        ifaces.retain(|i| {
            engine
                .ports()
                .get(i.cfg.port)
                .is_some_and(|p| !p.cfg.is_hipersockets())
        });
    }
    Ok(OsaInfoReport {
        time: ctx.clock().hms(),
        interfaces: ifaces.iter().map(|i| info(engine, ctx, i)).collect(),
        max_lines: ctx.osainfo_max,
    })
}

fn proto_name(p: u8) -> String {
    match p {
        PROTO_TCP => "TCP".into(),
        PROTO_UDP => "UDP".into(),
        n => format!("{n}"),
    }
}

fn info(engine: &Engine, ctx: &DisplayContext, i: &Interface) -> OsaInfo {
    let port = engine.ports().get(i.cfg.port).map(|p| &p.cfg);
    let stack = engine.stacks().get(i.cfg.stack).map(|s| &s.cfg);
    let devs = ctx.devices(engine, i);
    let (gen, speed, chpid_type) = match port.map(|p| p.kind) {
        Some(PortKind::Osa {
            generation,
            speed_mbps,
            chpid_type,
        }) => (
            generation.label().to_string(),
            speed_mbps,
            chpid_type.label().to_string(),
        ),
        _ => ("IQD".to_string(), 0, "IQD".to_string()),
    };
    let v4 = i.cfg.ip_version == IpVersion::V4;
    let l3 = i.cfg.layer == Layer::Layer3;
    let defined_in = i.read_queues().count() as u8;
    // What the adapter holds, from the port's registration table: the
    // interface's home addresses, the stack's others it registered (VIPAs,
    // other interfaces' addresses) and any registered later.
    let unicast = engine
        .registered_addresses(i.id)
        .into_iter()
        .map(|(addr, reg)| RegisteredAddr {
            addr: addr.to_string(),
            arp: (addr.is_ipv4() && l3).then_some(reg.arp),
        })
        .collect();
    let multicast = i
        .cfg
        .multicast
        .iter()
        .map(|a| RegisteredAddr {
            addr: a.to_string(),
            arp: None,
        })
        .collect();
    let mut ancillary = Vec::new();
    for k in QueueKind::ALL {
        if k == QueueKind::Primary || i.queue(k).is_none() {
            continue;
        }
        let mut r = AncillaryRouting {
            queue_type: k.label().to_string(),
            queue_id: k.id(),
            protocol: "TCP".into(),
            connections: Vec::new(),
            addresses: Vec::new(),
            ports: None,
        };
        match k {
            QueueKind::BulkData => {
                r.connections = i
                    .bulk_connections()
                    .iter()
                    .map(|f| BulkTuple {
                        protocol: proto_name(f.proto),
                        src: format!("{}..{}", f.src, f.src_port),
                        dst: format!("{}..{}", f.dst, f.dst_port),
                    })
                    .collect();
            }
            QueueKind::SysDist => {
                r.addresses = stack
                    .map(|s| s.distributed_dvipas.iter().map(|a| a.to_string()).collect())
                    .unwrap_or_default();
            }
            QueueKind::Ee => {
                r.protocol = "UDP".into();
                if let Some(ee) = stack.and_then(|s| s.ee) {
                    r.addresses = vec![ee.addr.to_string()];
                    r.ports = Some(format!("{}-{}", ee.first_port, ee.last_port));
                }
            }
            QueueKind::Ipsec => r.protocol = "ESP/AH".into(),
            QueueKind::Primary => {}
        }
        ancillary.push(r);
    }
    OsaInfo {
        stack: ctx.stack_name(engine, i.cfg.stack).to_string(),
        intfname: i.cfg.name.clone(),
        portname: port.map(|p| p.name.clone()).unwrap_or_default(),
        portnum: devs.portnum,
        datapath: dev(devs.datapath),
        realaddr: dev(devs.real_addr),
        pchid: format!("{:04X}", 0x100 + u16::from(port.map_or(0, |p| p.chpid))),
        chpid: format!("{:02X}", port.map_or(0, |p| p.chpid)),
        chpid_type,
        osa_code_level: ctx.osa_code_level.clone(),
        gen,
        active_speed_mbps: speed,
        media: if speed >= 10_000 {
            "Singlemode Fiber"
        } else {
            "Copper"
        }
        .into(),
        // The port's, not the interface's: every interface on it says the same.
        jumbo_frames: port.is_none_or(|p| p.lan_mtu.is_none_or(|m| m > 1500)),
        isolate: i.cfg.isolate,
        physical_mac: port.map(|p| p.physical_mac.to_string()).unwrap_or_default(),
        locally_cfg_mac: "000000000000".into(),
        queues_defined_out: 4,
        queues_defined_in: defined_in,
        ancillary_queues_in_use: defined_in.saturating_sub(1),
        connection_mode: if l3 { "Layer 3" } else { "Layer 2" }.into(),
        ipv4: v4,
        ipv6: !v4,
        vlan_id: i.cfg.vlan,
        vmac_active: i.vmac_origin.is_some(),
        vmac_addr: i.vmac_origin.map(|_| i.mac.to_string()),
        vmac_origin: i.vmac_origin.map(|o| {
            match o {
                VmacOrigin::Osa => "OSA",
                VmacOrigin::Cfg => "Cfg",
            }
            .to_string()
        }),
        vmac_router: i.vmac_origin.map(|_| {
            match i.cfg.vmac.map(|v| v.route) {
                Some(VmacRoute::Local) => "Local",
                _ => "All",
            }
            .to_string()
        }),
        unicast,
        multicast,
        ancillary,
    }
}

impl OsaInfo {
    pub fn write(&self, l: &mut Lines) {
        l.line(format!(
            "Display OSAINFO results for IntfName: {}",
            self.intfname
        ));
        l.line(format!(
            "PortName: {:<9} PortNum: {:02}  Datapath: {}  RealAddr: {}",
            self.portname, self.portnum, self.datapath, self.realaddr
        ));
        l.line(format!(
            "PCHID: {}  CHPID: {}  CHPID Type: {}  OSA code level: {}",
            self.pchid, self.chpid, self.chpid_type, self.osa_code_level
        ));
        l.line(format!(
            "Gen: {}  Active speed/mode: {} mb/sec full duplex",
            self.gen, self.active_speed_mbps
        ));
        l.line(format!(
            "Media: {}  Jumbo frames: {}  Isolate: {}",
            self.media,
            yes_no_mixed(self.jumbo_frames),
            yes_no_mixed(self.isolate)
        ));
        l.line(format!(
            "PhysicalMACAddr: {}  LocallyCfgMACAddr: {}",
            self.physical_mac, self.locally_cfg_mac
        ));
        l.line(format!(
            "Queues defined Out: {}  In: {}  Ancillary queues in use: {}",
            self.queues_defined_out, self.queues_defined_in, self.ancillary_queues_in_use
        ));
        l.line(format!(
            "Connection Mode: {}  IPv4: {}  IPv6: {}",
            self.connection_mode,
            yes_no_mixed(self.ipv4),
            yes_no_mixed(self.ipv6)
        ));
        let v = if self.ipv4 { "IPv4" } else { "IPv6" };
        l.line(format!("{v} attributes:"));
        l.line(format!(
            "  VLAN ID: {}  VMAC Active: {}",
            self.vlan_id.map_or("N/A".to_string(), |v| v.to_string()),
            yes_no_mixed(self.vmac_active)
        ));
        if let (Some(a), Some(o), Some(r)) = (&self.vmac_addr, &self.vmac_origin, &self.vmac_router)
        {
            l.line(format!(
                "  VMAC Addr: {a}  VMAC Origin: {o}  VMAC Router: {r}"
            ));
        }
        l.line("Registered Addresses:");
        l.line(format!("  {v} Unicast Addresses:"));
        for a in &self.unicast {
            match a.arp {
                Some(arp) => l.line(format!(
                    "    ARP: {:<3}  Addr: {}",
                    yes_no_mixed(arp),
                    a.addr
                )),
                None => l.line(format!("    Addr: {}", a.addr)),
            }
        }
        l.line(format!(
            "    Total number of {v} addresses: {:>6}",
            self.unicast.len()
        ));
        l.line(format!("  {v} Multicast Addresses:"));
        for a in &self.multicast {
            l.line(format!("    Addr: {}", a.addr));
        }
        l.line(format!(
            "    Total number of {v} addresses: {:>6}",
            self.multicast.len()
        ));
        if !self.ancillary.is_empty() {
            l.line("Ancillary Input Queue Routing Variables:");
            for q in &self.ancillary {
                l.line(format!(
                    "  Queue Type: {:<9} Queue ID: {:>2}  Protocol: {}",
                    q.queue_type, q.queue_id, q.protocol
                ));
                match q.queue_type.as_str() {
                    "BULKDATA" => {
                        for c in &q.connections {
                            l.line(format!("    Src: {}", c.src));
                            l.line(format!("    Dst: {}", c.dst));
                        }
                        l.line(format!(
                            "    Total number of {v} connections: {:>6}",
                            q.connections.len()
                        ));
                    }
                    "IPSEC" => l.line("    All ESP and AH traffic"),
                    _ => {
                        for a in &q.addresses {
                            match &q.ports {
                                Some(p) => l.line(format!("    Addr: {a}  Ports: {p}")),
                                None => l.line(format!("    Addr: {a}")),
                            }
                        }
                        l.line(format!(
                            "    Total number of {v} addresses: {:>6}",
                            q.addresses.len()
                        ));
                    }
                }
            }
        }
    }
}

impl Report for OsaInfoReport {
    fn to_text(&self) -> String {
        let mut l = Lines::new();
        if self.interfaces.is_empty() {
            l.line("No OSA interfaces to display.");
        }
        for i in &self.interfaces {
            let mut body = Lines::new();
            i.write(&mut body);
            let body = body.finish();
            let n = body.lines().count();
            // MAX= cuts the report short, and z/OS never shows more than
            // its limit whatever MAX says.
            let limit = self
                .max_lines
                .unwrap_or(OSAINFO_LINE_LIMIT)
                .min(OSAINFO_LINE_LIMIT) as usize;
            let shown = n.min(limit);
            l.line(format!(
                "EZD0031I TCP/IP CS SOFTOSA TCPIP Name: {} {}",
                i.stack, self.time
            ));
            for line in body.lines().take(shown) {
                l.line(line);
            }
            if n > OSAINFO_LINE_LIMIT as usize && shown == OSAINFO_LINE_LIMIT as usize {
                l.line(format!(
                    "Report truncated due to greater than {OSAINFO_LINE_LIMIT} lines of output"
                ));
            }
            l.line(format!("{shown} of {n} Lines Displayed"));
            l.line("End of report");
        }
        l.finish()
    }
}
