//! Lab topology (spec 8.1 "Lab command"): network namespaces, the veth wire
//! and the stacks' TAP/TUN devices, all named with the `sosa-` prefix and the
//! owning process id so a crashed run's leftovers can be recognised and
//! removed, and torn down by [`Topology`]'s `Drop`.
//!
//! ```text
//!  ns sosa-<id>-cli            ns sosa-<id>-osa            ns sosa-<id>-h1 (, -h2)
//!  [client] sosa-<id>c =veth= sosa-<id>w | softosa | TAP/TUN sosa-<id>t1 [stack 1]
//! ```
//! Addresses are from the documentation ranges only (192.0.2.0/24,
//! 2001:db8::/32). A second, plain veth pair (`-ra`/`-rb` namespaces) is the
//! speed reference.

use std::io;
use std::os::fd::OwnedFd;
use std::process::{Command, Stdio};

use crate::sys::{self, TunKind};
use softosa_engine::config::{AckDelay, TcpSettings};

/// Errors building the topology.
#[derive(Debug, thiserror::Error)]
pub enum TopoError {
    #[error("`ip {args}` failed: {stderr}")]
    Ip { args: String, stderr: String },
    #[error("{what}: {source}")]
    Sys {
        what: String,
        #[source]
        source: io::Error,
    },
}

/// The network `addr4`/`prefix` belongs to, as `ip route` writes it.
fn subnet(addr4: &str, prefix: u8) -> Result<String, TopoError> {
    let a: std::net::Ipv4Addr = addr4.parse().map_err(|_| TopoError::Sys {
        what: format!("stack address {addr4}"),
        source: io::Error::new(io::ErrorKind::InvalidInput, "not an IPv4 address"),
    })?;
    let p = u32::from(prefix.min(32));
    let mask = u32::MAX.checked_shl(32 - p).unwrap_or(0);
    Ok(format!(
        "{}/{p}",
        std::net::Ipv4Addr::from(u32::from(a) & mask)
    ))
}

fn sys_err(what: impl Into<String>) -> impl FnOnce(io::Error) -> TopoError {
    let what = what.into();
    move |source| TopoError::Sys { what, source }
}

/// Run `ip <args>`; error with its stderr on failure.
pub fn ip(args: &[&str]) -> Result<(), TopoError> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(sys_err("running ip"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(TopoError::Ip {
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}

/// Base-36 tag of a process id, used in every lab name.
pub fn tag_for(pid: u32) -> String {
    const D: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut n = pid;
    let mut s = Vec::new();
    loop {
        s.push(D[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8_lossy(&s).into_owned()
}

/// Inverse of [`tag_for`].
pub fn pid_of_tag(tag: &str) -> Option<u32> {
    let mut n: u32 = 0;
    for c in tag.chars() {
        n = n.checked_mul(36)?.checked_add(c.to_digit(36)?)?;
    }
    Some(n)
}

/// The lab namespace names of one run.
#[derive(Clone, Debug)]
pub struct Names {
    pub tag: String,
}

impl Names {
    pub fn new(tag: &str) -> Names {
        Names {
            tag: tag.to_string(),
        }
    }
    pub fn ns(&self, role: &str) -> String {
        format!("sosa-{}-{role}", self.tag)
    }
    /// Interface name (at most 15 bytes: `sosa` + tag ≤ 5 + role ≤ 3).
    pub fn ifname(&self, role: &str) -> String {
        format!("sosa{}{role}", self.tag)
    }
}

/// Whether process `pid` still runs: its `/proc` entry exists and it is
/// not a zombie (a killed lab whose parent has not reaped it yet still has
/// an entry, state `Z`, and its namespaces are leftovers all the same).
fn process_running(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    !matches!(proc_state(&stat), Some('Z' | 'X' | 'x'))
}

/// The state letter of a `/proc/PID/stat` line: the field after the
/// command name, which is in parentheses and may itself hold spaces and
/// parentheses (hence the last `)`).
fn proc_state(stat: &str) -> Option<char> {
    let (_, rest) = stat.rsplit_once(')')?;
    rest.trim_start().chars().next()
}

/// Remove namespaces left by lab runs whose process is gone (or, with
/// `all`, every `sosa-` namespace). Returns the names removed.
pub fn clean_leftovers(all: bool) -> Vec<String> {
    let mut removed = Vec::new();
    let Ok(dir) = std::fs::read_dir("/run/netns") else {
        return removed;
    };
    let me = std::process::id();
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix("sosa-") else {
            continue;
        };
        let tag = rest.split(['-', '_']).next().unwrap_or("");
        let stale = match pid_of_tag(tag) {
            Some(pid) if pid == me => false,
            Some(pid) => all || !process_running(pid),
            None => all,
        };
        if !stale {
            continue;
        }
        // Processes a crashed run left inside its namespaces (normally none:
        // workloads die with the lab) are ended by their pid.
        if let Ok(out) = Command::new("ip").args(["netns", "pids", &name]).output() {
            for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                if let Ok(pid) = pid.parse::<i32>() {
                    // SAFETY: kill(2) on a pid listed in our own lab namespace.
                    unsafe {
                        libc::kill(pid, libc::SIGKILL);
                    }
                }
            }
        }
        if ip(&["netns", "del", &name]).is_ok() {
            removed.push(name);
        }
    }
    removed
}

/// One sharing stack's host side.
pub struct HostSide {
    pub ns: String,
    pub ifname: String,
    /// One fd per device queue (the engine's input queues of the interface).
    pub queues: Vec<OwnedFd>,
    pub addr4: String,
}

/// What to build.
#[derive(Clone, Debug)]
pub struct TopoSpec {
    pub kind: TunKind,
    /// Per sharing stack: IPv4 address, MAC for a TAP, queues.
    pub stacks: Vec<StackSpec>,
    /// Prefix length of the client/stack subnet.
    pub prefix: u8,
    pub client4: String,
    pub mtu: u32,
    /// Also build the plain veth reference pair.
    pub reference: bool,
}

/// One stack's device parameters.
#[derive(Clone, Debug)]
pub struct StackSpec {
    pub addr4: String,
    pub mac: Option<[u8; 6]>,
    pub queues: usize,
    /// The profile's TCPCONFIG, applied to the stack namespace's Linux TCP
    /// (see [`tcp_tuning`]); `None` leaves Linux's own settings.
    pub tcp: Option<TcpSettings>,
}

/// The Linux settings of a stack namespace that stand for a z/OS profile's
/// TCPCONFIG, as `sysctl` keys and values: the default and largest buffers
/// (`tcp_rmem`, `tcp_wmem`; z/OS gives a connection its default buffer and
/// does not grow it, so receive autotuning is off), and FRRTHRESHOLD as
/// the duplicate-ACK threshold Linux starts from (`tcp_reordering`; Linux
/// raises it when it sees reordering). NODELAYACKS is a route attribute,
/// set apart ([`Topology::build`]). TIMEWAITINTERVAL has no counterpart
/// (Linux's TIME_WAIT is a fixed 60 s).
pub fn tcp_tuning(t: &TcpSettings) -> Vec<(&'static str, String)> {
    let rmax = t.max_rcv_buf().max(t.rcv_buf);
    let wmax = t.max_send_buf().max(t.send_buf);
    vec![
        ("net.ipv4.tcp_rmem", format!("4096 {} {rmax}", t.rcv_buf)),
        ("net.ipv4.tcp_wmem", format!("4096 {} {wmax}", t.send_buf)),
        ("net.ipv4.tcp_moderate_rcvbuf", "0".into()),
        ("net.ipv4.tcp_reordering", t.frr_threshold.to_string()),
    ]
}

/// A built lab; dropping it deletes every namespace (and so every device).
pub struct Topology {
    pub names: Names,
    namespaces: Vec<String>,
    pub client_ns: String,
    pub osa_ns: String,
    pub wire_if: String,
    pub client_if: String,
    pub hosts: Vec<HostSide>,
    pub ref_ns: Option<(String, String)>,
}

fn mac_text(m: [u8; 6]) -> String {
    m.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

fn sysctl_in(ns: &str, key: &str, val: &str) -> Result<(), TopoError> {
    ip(&[
        "netns",
        "exec",
        ns,
        "sysctl",
        "-qw",
        &format!("{key}={val}"),
    ])
}

impl Topology {
    /// Build namespaces, veths and devices for `spec`.
    pub fn build(names: Names, spec: &TopoSpec) -> Result<Topology, TopoError> {
        let mut t = Topology {
            client_ns: names.ns("cli"),
            osa_ns: names.ns("osa"),
            wire_if: names.ifname("w"),
            client_if: names.ifname("c"),
            names,
            namespaces: Vec::new(),
            hosts: Vec::new(),
            ref_ns: None,
        };
        // Any error from here on drops `t`, deleting what was made.
        for ns in [t.client_ns.clone(), t.osa_ns.clone()] {
            t.add_ns(&ns)?;
        }
        let mtu = spec.mtu.to_string();
        ip(&[
            "link",
            "add",
            &t.client_if,
            "netns",
            &t.client_ns,
            "mtu",
            &mtu,
            "type",
            "veth",
            "peer",
            "name",
            &t.wire_if,
            "netns",
            &t.osa_ns,
            "mtu",
            &mtu,
        ])?;
        // softosa's wire end carries no addresses and must stay silent.
        sysctl_in(
            &t.osa_ns,
            &format!("net.ipv6.conf.{}.disable_ipv6", t.wire_if),
            "1",
        )?;
        ip(&["-n", &t.osa_ns, "link", "set", &t.wire_if, "up"])?;
        let c = t.client_ns.clone();
        ip(&[
            "-n",
            &c,
            "addr",
            "add",
            &format!("{}/{}", spec.client4, spec.prefix),
            "dev",
            &t.client_if,
        ])?;
        // The lab is IPv4 only (the engine has no neighbour discovery
        // offload, and a profile's IPv6 interfaces are refused): without
        // IPv6 the client sends no router or neighbour solicitations that
        // the adapter could only count as dropped.
        sysctl_in(
            &c,
            &format!("net.ipv6.conf.{}.disable_ipv6", t.client_if),
            "1",
        )?;
        ip(&["-n", &c, "link", "set", &t.client_if, "up"])?;
        for (i, s) in spec.stacks.iter().enumerate() {
            let ns = t.names.ns(&format!("h{}", i + 1));
            t.add_ns(&ns)?;
            let ifname = t.names.ifname(&format!("t{}", i + 1));
            let (n2, k, q) = (ifname.clone(), spec.kind, s.queues);
            let queues = sys::in_netns(&ns, move || sys::open_tun_queues(&n2, k, q))
                .map_err(sys_err(format!("creating {ifname} in {ns}")))?;
            if let (TunKind::Tap, Some(m)) = (spec.kind, s.mac) {
                ip(&["-n", &ns, "link", "set", &ifname, "address", &mac_text(m)])?;
            }
            ip(&["-n", &ns, "link", "set", &ifname, "mtu", &mtu])?;
            ip(&[
                "-n",
                &ns,
                "addr",
                "add",
                &format!("{}/{}", s.addr4, spec.prefix),
                "dev",
                &ifname,
            ])?;
            sysctl_in(&ns, &format!("net.ipv6.conf.{ifname}.disable_ipv6"), "1")?;
            ip(&["-n", &ns, "link", "set", &ifname, "up"])?;
            if let Some(tcp) = &s.tcp {
                for (k, v) in tcp_tuning(tcp) {
                    sysctl_in(&ns, k, &v)?;
                }
                if tcp.delay_acks == AckDelay::NoDelay {
                    // Linux ACKs at once on a route marked quickack: the
                    // subnet's route, rewritten with the attribute.
                    let net = subnet(&s.addr4, spec.prefix)?;
                    ip(&[
                        "-n", &ns, "route", "replace", &net, "dev", &ifname, "proto", "kernel",
                        "scope", "link", "src", &s.addr4, "quickack", "1",
                    ])?;
                }
            }
            t.hosts.push(HostSide {
                ns,
                ifname,
                queues,
                addr4: s.addr4.clone(),
            });
        }
        if spec.reference {
            let (a, b) = (t.names.ns("ra"), t.names.ns("rb"));
            t.add_ns(&a)?;
            t.add_ns(&b)?;
            let (ia, ib) = (t.names.ifname("ra"), t.names.ifname("rb"));
            ip(&[
                "link", "add", &ia, "netns", &a, "mtu", &mtu, "type", "veth", "peer", "name", &ib,
                "netns", &b, "mtu", &mtu,
            ])?;
            ip(&["-n", &a, "addr", "add", "198.51.100.1/24", "dev", &ia])?;
            ip(&["-n", &b, "addr", "add", "198.51.100.2/24", "dev", &ib])?;
            ip(&["-n", &a, "link", "set", &ia, "up"])?;
            ip(&["-n", &b, "link", "set", &ib, "up"])?;
            t.ref_ns = Some((a, b));
        }
        Ok(t)
    }

    fn add_ns(&mut self, ns: &str) -> Result<(), TopoError> {
        ip(&["netns", "add", ns])?;
        self.namespaces.push(ns.to_string());
        ip(&["-n", ns, "link", "set", "lo", "up"])
    }

    /// Namespaces this topology made.
    pub fn namespaces(&self) -> &[String] {
        &self.namespaces
    }

    /// Delete everything now (also done on drop).
    pub fn teardown(&mut self) {
        // Close the device queues first so the TAP/TUN devices go away.
        for h in &mut self.hosts {
            h.queues.clear();
        }
        for ns in self.namespaces.drain(..).rev() {
            let _ = ip(&["netns", "del", &ns]);
        }
    }
}

impl Drop for Topology {
    fn drop(&mut self) {
        self.teardown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_and_fit_interface_names() {
        for pid in [1u32, 35, 36, 4_194_304, 99_999] {
            let t = tag_for(pid);
            assert_eq!(pid_of_tag(&t), Some(pid));
            let n = Names::new(&format!("{t}_z"));
            assert!(n.ifname("t2").len() <= 15, "{}", n.ifname("t2"));
            assert!(n.ifname("ra").len() <= 15);
        }
        assert_eq!(pid_of_tag("!"), None);
    }

    #[test]
    fn a_zombie_is_not_a_running_lab() {
        assert_eq!(proc_state("123 (softosa) R 1 2 3"), Some('R'));
        assert_eq!(proc_state("123 (a (b) c) Z 1 2 3"), Some('Z'));
        assert_eq!(proc_state("garbage"), None);
        assert!(process_running(std::process::id()));
        // A child that has exited and is not yet reaped: still in /proc.
        let mut child = std::process::Command::new("true")
            .spawn()
            .expect("spawn true");
        let pid = child.id();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while process_running(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(
            std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "unreaped, so its entry stays"
        );
        assert!(!process_running(pid), "but it no longer runs");
        let _ = child.wait();
        assert!(!process_running(pid));
    }

    #[test]
    fn tcpconfig_becomes_the_namespaces_linux_tcp_settings() {
        let t = TcpSettings {
            rcv_buf: 128 * 1024,
            max_rcv_buf_coded: Some(512 * 1024),
            frr_threshold: 5,
            ..TcpSettings::default()
        };
        let got: Vec<(&str, String)> = tcp_tuning(&t);
        let want = [
            ("net.ipv4.tcp_rmem", "4096 131072 524288"),
            ("net.ipv4.tcp_wmem", "4096 65536 262144"),
            ("net.ipv4.tcp_moderate_rcvbuf", "0"),
            ("net.ipv4.tcp_reordering", "5"),
        ];
        assert_eq!(got.len(), want.len());
        for ((k, v), (wk, wv)) in got.iter().zip(want) {
            assert_eq!((*k, v.as_str()), (wk, wv));
        }
        // A default above the (defaulted) maximum raises the maximum: Linux
        // would refuse a middle value above the last.
        let big = TcpSettings {
            send_buf: 1024 * 1024,
            ..TcpSettings::default()
        };
        assert_eq!(tcp_tuning(&big)[1].1, "4096 1048576 1048576");
        assert_eq!(subnet("192.0.2.20", 24).unwrap(), "192.0.2.0/24");
        assert_eq!(subnet("198.51.100.77", 30).unwrap(), "198.51.100.76/30");
        assert!(subnet("not-an-address", 24).is_err());
    }
}
