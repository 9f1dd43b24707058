//! Every file in examples/profiles must parse without errors and activate
//! (with the TRL member, so PORTNAMEs are checked); specific examples are
//! checked for what they mean.

use std::path::{Path, PathBuf};

use softosa_engine::config as ec;
use softosa_profile::activate::{activate, ActivateOptions, StackInput};
use softosa_profile::convert::{convert, ConvertOptions};
use softosa_profile::load::{load_path, Loaded};
use softosa_profile::print::interface_line;
use softosa_profile::validate::validate_profile;
use softosa_profile::*;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/profiles")
}

fn load(name: &str) -> Loaded {
    let (l, d) = load_path(&dir().join(name));
    assert!(!d.has_errors(), "{name}: {:?}", d.items());
    l.expect("loaded")
}

fn profile(name: &str) -> Profile {
    match load(name) {
        Loaded::Profile(p) => *p,
        other => panic!("{name} is not a profile: {other:?}"),
    }
}

fn trl() -> TrlFile {
    match load("osa.trl") {
        Loaded::Trl(t) => t,
        other => panic!("osa.trl is not a TRL member: {other:?}"),
    }
}

fn policy() -> TosPolicy {
    match load("qos-policy.policy") {
        Loaded::Policy(Some(p)) => p,
        other => panic!("not a policy: {other:?}"),
    }
}

fn activate_names(names: &[&str]) -> ec::SystemConfig {
    let profs: Vec<Profile> = names.iter().map(|n| profile(n)).collect();
    let t = trl();
    let inputs: Vec<StackInput<'_>> = profs
        .iter()
        .zip(names)
        .map(|(p, n)| StackInput {
            name: n.to_string(),
            profile: p,
            policy: None,
        })
        .collect();
    match activate(&inputs, &[&t], &ActivateOptions::default()) {
        Ok(a) => a.config,
        Err(d) => panic!("{names:?}: {:?}", d.items()),
    }
}

#[test]
fn every_example_parses_and_activates() {
    let mut count = 0;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("examples/profiles")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    let t = trl();
    for path in entries {
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(
            text.starts_with(';'),
            "{} must begin with a ';' comment saying what it shows",
            path.display()
        );
        let (l, d) = load_path(&path);
        assert!(!d.has_errors(), "{}: {:?}", path.display(), d.items());
        count += 1;
        if let Some(Loaded::Profile(p)) = l {
            let mut d = Diagnostics::new();
            validate_profile(&p, &mut d);
            assert!(!d.has_errors(), "{}: {:?}", path.display(), d.items());
            let r = activate(
                &[StackInput {
                    name: "S".into(),
                    profile: &p,
                    policy: None,
                }],
                &[&t],
                &ActivateOptions::default(),
            );
            let cfg = match r {
                Ok(a) => a.config,
                Err(d) => panic!("{}: {:?}", path.display(), d.items()),
            };
            assert_eq!(cfg.stacks.len(), 1);
            assert!(!cfg.interfaces.is_empty(), "{}", path.display());
            // The engine accepts what activation produced.
            if let Err(e) = softosa_engine::Engine::new(cfg) {
                panic!("{}: engine refused the config: {e}", path.display());
            }
        }
    }
    assert!(count >= 12, "only {count} example files");
    // All examples together (13 stacks, several sharing ports) activate too.
    let mut profs = Vec::new();
    for e in std::fs::read_dir(dir())
        .expect("dir")
        .filter_map(|e| e.ok())
    {
        if let (Some(Loaded::Profile(p)), _) = load_path(&e.path()) {
            profs.push(*p);
        }
    }
    let inputs: Vec<StackInput<'_>> = profs
        .iter()
        .map(|p| StackInput {
            name: p.file.clone(),
            profile: p,
            policy: None,
        })
        .collect();
    let all = activate(&inputs, &[&t], &ActivateOptions::default())
        .map_err(|d| format!("{:?}", d.items()))
        .expect("all examples together");
    assert_eq!(all.config.stacks.len(), profs.len());
    let n = all.config.interfaces.len();
    let e = softosa_engine::Engine::new(all.config)
        .map_err(|e| e.to_string())
        .expect("engine accepts all examples");
    let _ = (e, n);
}

#[test]
fn basic_osa_means_what_it_says() {
    let c = activate_names(&["basic-osa.prof"]);
    let i = &c.interfaces[0];
    assert_eq!(i.name, "QDIO4101L");
    assert_eq!(i.addresses[0].to_string(), "172.16.1.5/24");
    assert_eq!(i.mtu, Some(1492));
    assert_eq!(i.vlan, Some(1261));
    assert_eq!(i.inbperf, ec::InbPerf::Balanced);
    assert_eq!(i.read_storage_sbals, 64);
    assert!(i.read_storage_global);
    let p = &c.ports[i.port];
    assert_eq!(p.name, "QDIO4101");
    assert_eq!(p.chpid, 0x29);
}

#[test]
fn iwq_example_has_workloadq_vmac_and_ee() {
    let c = activate_names(&["iwq-dynamic-workloadq.prof"]);
    let i = &c.interfaces[0];
    assert!(i.workloadq);
    assert_eq!(i.inbperf, ec::InbPerf::Dynamic);
    assert_eq!(i.vmac.map(|v| v.mac), Some(None), "adapter-generated VMAC");
    let ee = c.stacks[0].ee.expect("EE address owned by this stack");
    assert_eq!((ee.first_port, ee.last_port), (12000, 12004));
}

#[test]
fn olm_example_forces_dynamic() {
    let c = activate_names(&["olm.prof"]);
    let i = &c.interfaces[0];
    assert!(i.olm);
    assert_eq!(i.inbperf, ec::InbPerf::Dynamic);
    assert_eq!(
        i.vmac.and_then(|v| v.mac).map(|m| m.to_string()),
        Some("020000000021".into())
    );
}

#[test]
fn hipersockets_example() {
    let c = activate_names(&["hipersockets-multiwrite.prof"]);
    assert!(c.stacks[0].iqd_multiwrite);
    assert!(c.stacks[0].ziip_iqdio_multiwrite);
    let p = &c.ports[c.interfaces[0].port];
    assert!(p.is_hipersockets());
    assert_eq!(p.chpid, 0xFE);
    assert_eq!(c.interfaces[0].read_storage_sbals, 126);
}

#[test]
fn legacy_example_converts_to_the_spec_interface() {
    let p = profile("legacy-device-link.prof");
    let (c, d) = convert(&p, &ConvertOptions::default());
    assert!(!d.has_errors(), "{:?}", d.items());
    assert_eq!(
        interface_line(&c.interfaces[0]),
        "INTERFACE QDIO4101L DEFINE IPAQENET INBPERF DYNAMIC IPADDR 172.16.1.1/24 PORTNAME QDIO4101 PRIROUTER"
    );
    assert!(c.devices.is_empty() && c.links.is_empty() && c.home.is_empty());
    assert_eq!(c.starts[0].name.value, "QDIO4101L");
    // Unconverted, it activates as a LINK-defined interface.
    let cfg = activate_names(&["legacy-device-link.prof"]);
    assert_eq!(cfg.interfaces[0].defined_by, ec::DefinedBy::Link);
    assert_eq!(cfg.interfaces[0].router, ec::RouterRole::Primary);
    assert_eq!(cfg.interfaces[0].addresses[0].prefix, 24);
}

#[test]
fn wlm_and_policy_examples() {
    let p = profile("wlmpriorityq.prof");
    let pol = policy();
    let t = trl();
    let a = activate(
        &[StackInput {
            name: "W".into(),
            profile: &p,
            policy: Some(&pol),
        }],
        &[&t],
        &ActivateOptions::default(),
    )
    .map_err(|d| format!("{:?}", d.items()))
    .expect("activates");
    let s = &a.config.stacks[0];
    assert_eq!(s.wlm_priorityq, Some(ec::WlmPriorityMap::default()));
    let tp = s.tos_policy.clone().expect("policy");
    assert_eq!(tp.mask, 0b1110_0000);
    assert_eq!(tp.mappings[1], (2, 0b0110_0000));
}

#[test]
fn segmentation_and_accelerator_examples() {
    let c = activate_names(&["segmentation-offload.prof"]);
    assert!(c.stacks[0].segmentation_offload);
    assert_eq!(c.interfaces[0].read_storage_sbals, 32);
    let t = c.stacks[0].tcp;
    assert_eq!((t.send_buf, t.rcv_buf), (256 * 1024, 256 * 1024));
    assert_eq!(t.max_rcv_buf_coded, Some(512 * 1024));
    let c = activate_names(&["qdio-accelerator.prof"]);
    assert_eq!(c.stacks[0].qdio_accelerator, Some(1));
    assert!(c.stacks[0].datagram_fwd);
    assert!(!c.stacks[0].iqdio_routing);
    assert_eq!(c.ports.len(), 2);
}

#[test]
fn sysplex_distributor_example() {
    let p = profile("sysplex-distributor.prof");
    let x = p.ip.dynamicxcf.clone().expect("DYNAMICXCF");
    assert_eq!(
        (x.addr.to_string(), x.prefix, x.cost),
        ("10.1.1.1".into(), 24, 1)
    );
    let c = activate_names(&["sysplex-distributor.prof"]);
    assert_eq!(
        c.stacks[0].distributed_dvipas,
        vec!["201.2.10.11".parse::<std::net::IpAddr>().expect("ip")]
    );
    // Port OSAPRT5 is port 1 of CHPID 31 (shared with OSAPRT4).
    let port = &c.ports[c.interfaces[0].port];
    assert_eq!((port.chpid, port.port_num), (0x31, 1));
}

#[test]
fn two_stacks_share_one_port() {
    let c = activate_names(&["two-stacks-a.prof", "two-stacks-b.prof"]);
    assert_eq!(c.ports.len(), 1);
    assert_eq!(c.interfaces.len(), 2);
    assert_eq!(c.interfaces[0].port, c.interfaces[1].port);
    assert_eq!((c.interfaces[0].stack, c.interfaces[1].stack), (0, 1));
    // A's PRIROUTER is carried as coded (DEVLINKS CFGROUTER) and left
    // unused because of its VMAC: no frame goes to it as a router.
    assert_eq!(c.interfaces[0].router, ec::RouterRole::Primary);
    let e = softosa_engine::Engine::new(c.clone()).expect("activates");
    assert_eq!(
        e.active_router_role(softosa_engine::IfaceId(0)),
        ec::RouterRole::NonRouter
    );
    assert_eq!(
        c.interfaces[1].vmac.map(|v| v.route),
        Some(ec::VmacRoute::Local)
    );
}

#[test]
fn prirouter_sharing() {
    let c = activate_names(&["prirouter-sharing-a.prof", "prirouter-sharing-b.prof"]);
    assert_eq!(c.ports.len(), 1);
    assert_eq!(c.interfaces[0].router, ec::RouterRole::Primary);
    assert_eq!(c.interfaces[1].router, ec::RouterRole::Secondary);
    assert!(c.interfaces.iter().all(|i| i.vmac.is_none()));
}

#[test]
fn trl_example() {
    let t = trl();
    assert_eq!(t.trles.len(), 8);
    let first = &t.trles[0];
    assert_eq!(first.name, "NSQDIO11");
    assert_eq!(first.datapath, vec![0x0E2A, 0x0E2B]);
    assert_eq!(t.qdiostg, Some(ReadStorage::Max));
}
