//! The engine as the live plane's [`Core`] (spec 8.1): the lab's
//! `SystemConfig`, built in code from the lab options until profiles are
//! wired in, and the mapping of the engine's API onto the driver's calls.

use std::net::IpAddr;

use softosa_engine::config::{
    ChpidType, InbPerf, InterfaceConfig, IpNet, Layer, Mac, OsaGeneration, PortConfig, PortKind,
    RouterRole, StackConfig, SystemConfig, TimerTable, TosPolicy, VmacConfig, VmacRoute,
};

use crate::lab::{LabResult, Inb, LabError, LabOptions, Sharing, PORT_MAC, STACK4, VMAC};

/// The lab's adapter configuration: one OSA-Express6S 10 GbE port shared by
/// one or two stacks, each with one IPv4 INTERFACE.
pub fn config_for_lab(o: &LabOptions) -> SystemConfig {
    let stacks = match o.sharing {
        Sharing::One | Sharing::Layer2 => 1,
        Sharing::Vmac | Sharing::Prirouter => 2,
    };
    let mut cfg = SystemConfig {
        ports: vec![PortConfig {
            name: "OSAPORT1".into(),
            chpid: 0xe0,
            port_num: 0,
            kind: PortKind::Osa {
                generation: OsaGeneration::Express6S,
                speed_mbps: 10_000,
                chpid_type: ChpidType::Osd,
            },
            physical_mac: Mac(PORT_MAC),
        }],
        ..Default::default()
    };
    for i in 0..stacks {
        let mut s = StackConfig::new(format!("TCPIP{}", i + 1));
        s.segmentation_offload = o.segmentation_offload;
        if o.tos_priority {
            s.tos_policy = Some(TosPolicy::default());
        }
        cfg.stacks.push(s);
        let mut ifc = InterfaceConfig::new(format!("OSAQDIO{}", i + 1), i, 0);
        let addr: IpAddr = STACK4[i].parse().unwrap_or(IpAddr::from([192, 0, 2, 10]));
        ifc.addresses.push(IpNet { addr, prefix: 24 });
        ifc.mtu = Some(o.mtu);
        ifc.layer = if o.sharing == Sharing::Layer2 {
            Layer::Layer2
        } else {
            Layer::Layer3
        };
        if o.sharing == Sharing::Prirouter {
            ifc.vmac = None;
            ifc.router = if i == 0 {
                RouterRole::Primary
            } else {
                RouterRole::NonRouter
            };
        } else {
            ifc.vmac = Some(VmacConfig {
                mac: Some(Mac(VMAC[i])),
                route: VmacRoute::All,
            });
        }
        let (mode, wq) = match o.inbperf {
            Inb::MinLatency => (InbPerf::MinLatency, false),
            Inb::Balanced => (InbPerf::Balanced, false),
            Inb::MinCpu => (InbPerf::MinCpu, false),
            Inb::Dynamic => (InbPerf::Dynamic, false),
            Inb::DynamicWorkloadq => (InbPerf::Dynamic, true),
        };
        ifc.inbperf = mode;
        // WORKLOADQ needs a VMAC; without one the engine would refuse it.
        ifc.workloadq = wq && ifc.vmac.is_some();
        cfg.interfaces.push(ifc);
    }
    if o.zero_timers {
        cfg.tuning.timers = TimerTable::zero();
    }
    cfg.tuning.store_bytes = None;
    cfg
}

/// The engine driven by the live plane.
#[derive(Default)]
pub struct EngineCore {}

impl EngineCore {
    pub fn for_lab(o: &LabOptions) -> Result<EngineCore, LabError> {
        let _cfg = config_for_lab(o);
        Err(LabError::Config(
            "the engine core is not wired yet; use --core passthrough".into(),
        ))
    }
}

/// Run the lab with the engine as the core.
pub fn run_lab(o: &LabOptions, _label: &str) -> Result<LabResult, LabError> {
    let _core = EngineCore::for_lab(o)?;
    Err(LabError::Config("engine core not wired yet".into()))
}
