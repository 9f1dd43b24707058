//! `softosa lab` (spec 8.1 "Lab command"): one command that checks the
//! machine, builds the namespaces and devices, starts the live data plane,
//! runs real iperf3/sockperf workloads, reports throughput, latency
//! percentiles, CPU of softosa's threads and the engine's counters, and tears
//! everything down — also on error or Ctrl-C (guards + a signal flag), and
//! removes leftovers of a crashed run at start.

use std::time::Duration;

use crate::dataplane::{Accounting, Core, DriverStats, HostQueue, Placement, Plane, PlaneConfig};
use crate::sys::{self, TunKind};
use crate::topo::{self, Names, StackSpec, TopoError, TopoSpec, Topology};
use crate::vnet::Framing;
use crate::workload::{self, ChildGuard, RttStats};
use softosa_engine::config::TcpSettings;

/// Lab failures, with what to do about them.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    #[error("the lab needs root (network namespaces, TAP devices); run it with sudo")]
    NotRoot,
    #[error("missing tools: {0}; install them with: apt-get install -y {1}")]
    MissingTools(String, String),
    #[error("cannot create network namespaces here: {0}")]
    NoNamespaces(String),
    #[error("building the lab network: {0}")]
    Topo(#[from] TopoError),
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("workload failed: {0}")]
    Workload(String),
    #[error("configuration: {0}")]
    Config(String),
    /// An option or a combination of options the lab cannot run (a usage
    /// error: the command exits 2, as for clap's own).
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Busy(#[from] crate::control::BindError),
    #[error("interrupted")]
    Interrupted,
}

impl LabError {
    /// Whether this is a usage error (a bad option value or combination)
    /// rather than an error in an input file or in the run.
    pub fn is_usage(&self) -> bool {
        matches!(self, LabError::Usage(_))
    }
}

fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> LabError {
    let what = what.into();
    move |source| LabError::Io { what, source }
}

/// Check root, the tools the run needs (iperf3 only with streams, sockperf
/// only with RR connections) and that namespaces can be made.
pub fn preflight(need_iperf3: bool, need_sockperf: bool) -> Result<(), LabError> {
    if !sys::is_root() {
        return Err(LabError::NotRoot);
    }
    let mut missing = Vec::new();
    let mut pkgs = Vec::new();
    for (t, p) in needed_tools(need_iperf3, need_sockperf) {
        let found = std::env::var_os("PATH")
            .map(|paths| std::env::split_paths(&paths).any(|d| d.join(t).is_file()))
            .unwrap_or(false);
        if !found {
            missing.push(t);
            pkgs.push(p);
        }
    }
    if !missing.is_empty() {
        return Err(LabError::MissingTools(missing.join(", "), pkgs.join(" ")));
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Err(LabError::NoNamespaces("/dev/net/tun is missing".into()));
    }
    let out = std::process::Command::new("unshare")
        .args(["-n", "true"])
        .output()
        .map_err(io_err("running unshare"))?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        let why = why.trim();
        return Err(LabError::NoNamespaces(if why.is_empty() {
            "`unshare -n true` failed".into()
        } else {
            format!("`unshare -n true` failed: {why}")
        }));
    }
    Ok(())
}

/// The programs a run needs, each with the Debian package that has it.
fn needed_tools(iperf3: bool, sockperf: bool) -> Vec<(&'static str, &'static str)> {
    // unshare and true check that namespaces can be made (see preflight);
    // sysctl sets each namespace's buffers and switches IPv6 off.
    let mut tools = vec![
        ("ip", "iproute2"),
        ("unshare", "util-linux"),
        ("true", "coreutils"),
        ("sysctl", "procps"),
    ];
    if iperf3 {
        tools.push(("iperf3", "iperf3"));
    }
    if sockperf {
        tools.push(("sockperf", "sockperf"));
    }
    tools
}

/// Largest sockperf message (its own limit for `-m`).
pub const MAX_RR_SIZE: usize = 1_048_575;
/// Highest `--rr-mps` (sockperf under-load messages per second per
/// connection): far above what one connection through the lab carries.
pub const MAX_RR_MPS: u32 = 1_000_000;
/// Smallest sockperf message (its header).
pub const MIN_RR_SIZE: usize = 14;
/// Most RR connections (one sockperf server and client each).
pub const MAX_RR: usize = 64;
/// Most iperf3 streams (iperf3's own limit for `-P`).
pub const MAX_STREAMS: usize = 128;
/// Longest workload, seconds (one day).
pub const MAX_SECS: f64 = 86_400.0;

/// Check the options before anything is built: every value the lab would
/// otherwise clamp, ignore or trip over is refused with what to use.
pub fn validate(o: &LabOptions) -> Result<(), LabError> {
    let bad = |m: String| Err(LabError::Usage(m));
    if !o.secs.is_finite() || o.secs < 1.0 || o.secs > MAX_SECS {
        return bad(format!(
            "--secs {}: the workload runs from 1 to {MAX_SECS} seconds (iperf3 and sockperf \
             count whole seconds)",
            softosa_display::cli::shown_number(o.secs)
        ));
    }
    if o.streams == 0 && o.rr == 0 {
        return bad(
            "--streams 0 and --rr 0: nothing to run; give at least one stream or RR connection"
                .into(),
        );
    }
    // Options that shape a workload that does not run would be dropped
    // without a word: refuse them.
    let streams = [
        (o.udp, "--udp"),
        (o.reverse, "--reverse"),
        (o.stream_mbps > 0, "--stream-mbps"),
    ];
    let rr = [(o.rr_mps > 0, "--rr-mps"), (o.rr_stack != 1, "--rr-stack")];
    for (none, count, workload, shaping) in [
        (o.streams == 0, "--streams", "iperf3 streams", &streams[..]),
        (o.rr == 0, "--rr", "RR connections", &rr[..]),
    ] {
        if !none {
            continue;
        }
        if let Some(given) = Given::of(shaping) {
            return bad(format!(
                "{count} 0 with {given}: {} the {workload} and there are none; drop {} or \
                 give {count} N",
                given.agree("it shapes", "they shape"),
                given.agree("it", "them"),
            ));
        }
    }
    if o.streams > MAX_STREAMS {
        return bad(format!(
            "--streams {}: iperf3 runs at most {MAX_STREAMS} parallel streams",
            o.streams
        ));
    }
    if o.rr > MAX_RR {
        return bad(format!(
            "--rr {}: at most {MAX_RR} RR connections (each is a sockperf server and client)",
            o.rr
        ));
    }
    if o.rr > 0 && !(MIN_RR_SIZE..=MAX_RR_SIZE).contains(&o.rr_size) {
        return bad(format!(
            "--rr-size {}: sockperf messages are {MIN_RR_SIZE} to {MAX_RR_SIZE} bytes",
            o.rr_size
        ));
    }
    if o.rr_mps > MAX_RR_MPS {
        return bad(format!(
            "--rr-mps {}: at most {MAX_RR_MPS} messages per second per connection (0: ping-pong)",
            o.rr_mps
        ));
    }
    if o.rr_stack == 0 {
        return bad("--rr-stack 0: stacks are numbered from 1".into());
    }
    let n = stacks_for(o);
    if o.rr > 0 && o.profiles.is_empty() && o.rr_stack > n {
        return bad(format!(
            "--rr-stack {}: --sharing {} has {n} stack{}",
            o.rr_stack,
            sharing_name(o.sharing),
            if n == 1 {
                "; use --sharing vmac or prirouter (or two --profile files)"
            } else {
                "s"
            }
        ));
    }
    if !o.fault_rate.is_finite() || !(0.0..1.0).contains(&o.fault_rate) {
        return bad(format!(
            "--fault-rate {}: a share of frames from 0 up to (not including) 1, e.g. 0.001",
            softosa_display::cli::shown_number(o.fault_rate)
        ));
    }
    // A SCHED_FIFO thread has no nice value: the data plane sets it only
    // with normal scheduling, so it would be dropped without a word.
    if o.nice != 0 && o.realtime_prio > 0 {
        return bad(format!(
            "--nice {}: softosa's threads run SCHED_FIFO (--realtime {}), which has no nice \
             value; give --realtime 0 (the default with --bench) or drop --nice",
            o.nice, o.realtime_prio
        ));
    }
    for (opt, cpus) in [("--cpus", &o.cpus), ("--rr-cpus", &o.rr_cpus)] {
        if cpus.is_empty() {
            continue;
        }
        let allowed = match sys::allowed_cpus() {
            Ok(a) => a,
            Err(e) => {
                return bad(format!(
                    "{opt}: cannot read which CPUs this process may run on ({e})"
                ))
            }
        };
        // As typed: the command line's parser (CpuList) took it apart.
        let typed = join_cpus(cpus);
        if let Some(c) = listed_twice(cpus) {
            return bad(format!("{opt} {typed}: {}", CpuListError::Twice(c)));
        }
        let missing: Vec<usize> = cpus
            .iter()
            .copied()
            .filter(|c| !allowed.contains(c))
            .collect();
        if !missing.is_empty() {
            let (which, are) = if missing.len() == 1 {
                ("CPU", "is not one")
            } else {
                ("CPUs", "are not ones")
            };
            return bad(format!(
                "{opt} {typed}: {which} {} {are} this process may run on (it may use {})",
                join_cpus(&missing),
                join_cpus(&allowed)
            ));
        }
    }
    if let Some(i) = &o.instance {
        check_instance_name(i)?;
    }
    // With profiles the stacks come from the files: checked once they are
    // read (per_cpu_conflict with their plan).
    if o.profiles.is_empty() && o.plan.is_none() {
        if let Some(m) = per_cpu_conflict(o, stacks_for(o), queues_for(o)) {
            return bad(m);
        }
    }
    Ok(())
}

/// Why `--rr-stack` names a stack the lab of `nst` stacks does not have,
/// if it does. Without profiles [`validate`] refuses it; with profiles the
/// count is known once they are read. Either way it is a usage error: the
/// option asks for what the configuration does not have.
pub(crate) fn rr_stack_conflict(o: &LabOptions, nst: usize) -> Option<String> {
    (o.rr > 0 && o.rr_stack > nst).then(|| {
        format!(
            "--rr-stack {}: the profiles define {nst} stack{}",
            o.rr_stack,
            if nst == 1 { "" } else { "s" }
        )
    })
}

/// The options a refusal names: those of a list of `(given, name)` that
/// were given, in the list's order, and the words that agree with how many
/// there are. The lab's checks of options that would change nothing (a
/// workload that does not run, the passthrough core) all name them so, as
/// does `softosa display` for the options a running lab would not honour.
pub struct Given<'a>(Vec<&'a str>);

impl<'a> Given<'a> {
    /// The given ones of `options`; `None` if none is.
    pub fn of(options: &[(bool, &'a str)]) -> Option<Given<'a>> {
        let names: Vec<&str> = options
            .iter()
            .filter_map(|&(given, name)| given.then_some(name))
            .collect();
        (!names.is_empty()).then_some(Given(names))
    }

    /// `one` for a single option, `several` for more.
    pub fn agree(&self, one: &'static str, several: &'static str) -> &'static str {
        if self.0.len() == 1 {
            one
        } else {
            several
        }
    }
}

impl std::fmt::Display for Given<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.join(", "))
    }
}

/// The spelling of a `--sharing` value the user typed (clap's name for
/// the variant).
fn sharing_name(s: Sharing) -> String {
    clap::ValueEnum::to_possible_value(&s)
        .map_or_else(|| format!("{s:?}"), |v| v.get_name().to_string())
}

/// The CPUs softosa's data-plane threads may use: `--cpus`, else every CPU
/// this process may run on (which need not be 0..n-1, e.g. under taskset).
fn plane_cpu_set(o: &LabOptions) -> Vec<usize> {
    if o.cpus.is_empty() {
        sys::allowed_cpus().unwrap_or_default()
    } else {
        o.cpus.clone()
    }
}

/// Why `--per-cpu` cannot be honoured in a lab of `stacks` interfaces
/// with `queues` input queues each, as a usage message; None when it can
/// (or was not asked for). The plane's per-CPU mode gives one interface a
/// device queue and a wire socket per CPU, with the timers on the first
/// CPU's thread ([`crate::dataplane::Plane::start`] refuses anything
/// else), so there is no per-CPU variant of these shapes to fall back to.
pub fn per_cpu_conflict(o: &LabOptions, stacks: usize, queues: usize) -> Option<String> {
    if !o.per_cpu {
        return None;
    }
    let drop = "or drop --per-cpu";
    if stacks > 1 {
        let (what, instead) = if o.plan.is_some() || !o.profiles.is_empty() {
            (
                format!("--profile files that define {stacks} interfaces"),
                "profiles that define one",
            )
        } else {
            (
                format!("--sharing {} ({stacks} stacks)", sharing_name(o.sharing)),
                "--sharing one or layer2",
            )
        };
        return Some(format!(
            "--per-cpu with {what}: the per-CPU layout serves one stack, giving its \
             device a queue per CPU; use {instead} {drop}"
        ));
    }
    if queues > 1 {
        return Some(format!(
            "--per-cpu with INBPERF DYNAMIC-WORKLOADQ: its {queues} input queues each need a \
             device queue of their own, and the per-CPU layout gives one input queue a device \
             queue per CPU; use another INBPERF {drop}"
        ));
    }
    if o.timer_thread {
        return Some(
            "--per-cpu with --timer-thread: the per-CPU layout serves the timers on its first \
             CPU's thread and has no timer thread; drop one of them"
                .into(),
        );
    }
    let cpus = plane_cpu_set(o);
    if cpus.len() < 2 {
        let which = if o.cpus.is_empty() {
            format!(
                "this process may run on {} CPU{}",
                cpus.len(),
                if cpus.len() == 1 { "" } else { "s" }
            )
        } else {
            format!("--cpus {} is one CPU", join_cpus(&o.cpus))
        };
        return Some(format!(
            "--per-cpu: {which}, and a thread per CPU needs two or more (on one CPU it is \
             the normal layout); give --cpus two or more CPUs {drop}"
        ));
    }
    None
}

/// A CPU list as it is typed: `0,2,3`.
pub fn join_cpus(cpus: &[usize]) -> String {
    cpus.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The first CPU that appears a second time in `cpus`.
fn listed_twice(cpus: &[usize]) -> Option<usize> {
    cpus.iter()
        .enumerate()
        .find(|(k, c)| cpus[..*k].contains(c))
        .map(|(_, c)| *c)
}

/// The value of `--cpus` or `--rr-cpus`: CPU numbers separated by commas,
/// each once (`0,2`). Parsed whole, so a mistake is reported with the
/// list as the user typed it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuList(pub Vec<usize>);

/// What is wrong with a CPU list; the message follows the option and the
/// value (clap: `invalid value '0,0' for '--cpus <LIST>': ...`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CpuListError {
    #[error("no CPU given; list CPU numbers separated by commas, e.g. 0,2")]
    Empty,
    #[error("an empty entry between commas; list CPU numbers separated by commas, e.g. 0,2")]
    EmptyEntry,
    #[error(
        "{0:?} is not a CPU number; list each CPU by its number, separated by commas, e.g. 0,1,2"
    )]
    NotANumber(String),
    #[error("CPU {0} is listed twice")]
    Twice(usize),
}

impl std::str::FromStr for CpuList {
    type Err = CpuListError;

    fn from_str(s: &str) -> Result<CpuList, CpuListError> {
        if s.trim().is_empty() {
            return Err(CpuListError::Empty);
        }
        let mut cpus = Vec::new();
        for entry in s.split(',').map(str::trim) {
            if entry.is_empty() {
                return Err(CpuListError::EmptyEntry);
            }
            if !entry.bytes().all(|b| b.is_ascii_digit()) {
                return Err(CpuListError::NotANumber(entry.to_string()));
            }
            let c: usize = entry
                .parse()
                .map_err(|_| CpuListError::NotANumber(entry.to_string()))?;
            if cpus.contains(&c) {
                return Err(CpuListError::Twice(c));
            }
            cpus.push(c);
        }
        Ok(CpuList(cpus))
    }
}

/// An instance name becomes a file name under `/run/softosa/`: letters,
/// digits, `-`, `_` and `.`, not starting with a dot, at most 64 bytes.
pub fn check_instance_name(name: &str) -> Result<(), LabError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(LabError::Usage(format!(
            "instance name {name:?}: use letters, digits, '-', '_' or '.' (not first), \
             at most 64 characters; it names /run/softosa/<NAME>.sock"
        )))
    }
}

/// How the stacks attach and share the port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
pub enum Sharing {
    /// One stack, layer 3 (TUN, IP mode, ARP offload) with a VMAC.
    One,
    /// Two stacks sharing the port, each with its own VMAC (layer 3, TUN).
    Vmac,
    /// Two stacks sharing the port's MAC (no VMAC); stack 1 is PRIROUTER and
    /// gets traffic for addresses nobody registered.
    Prirouter,
    /// One stack, layer 2 (TAP, Ethernet mode, VMAC filtering).
    Layer2,
}

/// The inbound performance setting of the lab's interfaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Inb {
    MinLatency,
    Balanced,
    MinCpu,
    Dynamic,
    DynamicWorkloadq,
}

impl Inb {
    pub fn parse(s: &str) -> Result<Inb, LabError> {
        match s.trim().to_ascii_uppercase().replace(['_', ' '], "-").as_str() {
            "MINLATENCY" => Ok(Inb::MinLatency),
            "BALANCED" => Ok(Inb::Balanced),
            "MINCPU" => Ok(Inb::MinCpu),
            "DYNAMIC" => Ok(Inb::Dynamic),
            "DYNAMIC-WORKLOADQ" | "WORKLOADQ" | "IWQ" => Ok(Inb::DynamicWorkloadq),
            other => Err(LabError::Usage(format!(
                "unknown INBPERF {other:?}: use MINLATENCY, BALANCED, MINCPU, DYNAMIC or DYNAMIC-WORKLOADQ"
            ))),
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Inb::MinLatency => "MINLATENCY",
            Inb::Balanced => "BALANCED",
            Inb::MinCpu => "MINCPU",
            Inb::Dynamic => "DYNAMIC",
            Inb::DynamicWorkloadq => "DYNAMIC WORKLOADQ",
        }
    }
}

/// Which core drives the plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
pub enum CoreKind {
    /// The softosa engine (the adapter).
    Engine,
    /// A bare layer-2 bridge: measures the plumbing alone.
    Passthrough,
}

/// One lab run's parameters.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LabOptions {
    pub sharing: Sharing,
    pub inbperf: Inb,
    pub core: CoreKind,
    /// iperf3 streams (client → stack 1, or stack → client with `reverse`).
    pub streams: usize,
    /// Cap each stream at this rate (Mbit/s; 0: as fast as it goes).
    pub stream_mbps: u64,
    /// UDP streams (unresponsive; at `stream_mbps`, default 1000) instead of TCP.
    pub udp: bool,
    /// sockperf ping-pong connections (client → the RR stack).
    pub rr: usize,
    /// RR message size in bytes.
    pub rr_size: usize,
    /// 0: each RR connection is a sockperf ping-pong; otherwise sockperf
    /// under-load at this many messages per second per connection.
    pub rr_mps: u32,
    /// CPUs the RR clients and servers run on, in softosa's run and in the
    /// plain veth reference alike (empty: anywhere).
    pub rr_cpus: Vec<usize>,
    /// Seconds of workload.
    pub secs: f64,
    /// Stream direction: the stack sends (outbound) instead of receiving.
    pub reverse: bool,
    /// Which stack (1 or 2) serves the RR connections.
    pub rr_stack: usize,
    /// Map outbound traffic to priority queues by TOS (RR marked 0x80 →
    /// queue 1, streams 0x20 → queue 4).
    pub tos_priority: bool,
    /// Pace the wire at this rate (Mbit/s; 0: as fast as the veth takes).
    pub wire_mbps: u64,
    /// All LAN-idle timers zero (the speed reference setting).
    pub zero_timers: bool,
    pub segmentation_offload: bool,
    pub fault_rate: f64,
    pub seed: u64,
    /// Adaptive spin window of the data-plane threads after any work (µs).
    pub busy_poll_us: u64,
    /// Hold a 0 µs CPU wake-up latency request while traffic flows (idle
    /// CPUs poll instead of halting; see docs/live.md).
    pub wake_qos: bool,
    /// One data-plane thread per CPU (one stack, one input queue only).
    pub per_cpu: bool,
    /// SCHED_FIFO priority of softosa's threads (0: normal).
    pub realtime_prio: i32,
    /// Nice value of softosa's threads when not real-time.
    pub nice: i32,
    /// CPUs softosa's data-plane threads may run on (empty: any).
    pub cpus: Vec<usize>,
    /// Serve the engine's timers on a thread of their own.
    pub timer_thread: bool,
    /// Control socket instance name (None: no socket).
    pub instance: Option<String>,
    pub metrics_port: Option<u16>,
    /// Also measure a plain veth pair in the same run.
    pub reference: bool,
    /// Run streams and request/response one after the other (benchmark).
    pub sequential: bool,
    /// TCP/IP profiles (and policy / TRL files) to activate instead of the
    /// configuration built from these options.
    pub profiles: Vec<std::path::PathBuf>,
    /// With profiles: give every interface `inbperf` instead of the
    /// profiles' own INBPERF (`--compare` with `--profile`).
    pub profile_inbperf_override: bool,
    /// The stacks' side of the lab when it comes from a profile.
    #[serde(skip)]
    pub plan: Option<LabPlan>,
    pub mtu: u32,
}

impl Default for LabOptions {
    fn default() -> Self {
        LabOptions {
            sharing: Sharing::One,
            inbperf: Inb::Dynamic,
            core: CoreKind::Engine,
            streams: 1,
            stream_mbps: 0,
            udp: false,
            rr: 2,
            rr_size: 64,
            rr_mps: 0,
            rr_cpus: Vec::new(),
            secs: 3.0,
            reverse: false,
            rr_stack: 1,
            tos_priority: false,
            wire_mbps: 0,
            zero_timers: false,
            segmentation_offload: true,
            fault_rate: 0.0,
            seed: 1,
            busy_poll_us: 0,
            wake_qos: false,
            per_cpu: false,
            realtime_prio: 10,
            nice: 0,
            cpus: Vec::new(),
            timer_thread: false,
            instance: None,
            metrics_port: None,
            reference: false,
            sequential: false,
            profiles: Vec::new(),
            profile_inbperf_override: false,
            plan: None,
            mtu: 1500,
        }
    }
}

/// The stacks of a lab built from a profile: one host namespace per
/// interface, in the engine's interface order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabPlan {
    /// IPv4 address of each interface.
    pub addrs: Vec<String>,
    /// Prefix length of the lab subnet.
    pub prefix: u8,
    /// MAC of each interface (its VMAC, or the port's).
    pub macs: Vec<[u8; 6]>,
    /// Layer 2 (TAP) rather than layer 3 (TUN).
    pub layer2: bool,
    /// Device queues per interface.
    pub queues: usize,
    /// The client's address in the same subnet.
    pub client: String,
    /// TCPCONFIG of each interface's stack (the namespace's Linux TCP
    /// follows it where the profile codes anything).
    pub tcp: Vec<TcpSettings>,
}

impl LabOptions {
    /// Address of stack `i` (0-based).
    pub fn stack_addr(&self, i: usize) -> String {
        match &self.plan {
            Some(p) => p
                .addrs
                .get(i)
                .or(p.addrs.first())
                .cloned()
                .unwrap_or_default(),
            None => STACK4[i.min(1)].to_string(),
        }
    }
    fn client_addr(&self) -> String {
        self.plan
            .as_ref()
            .map_or_else(|| CLIENT4.to_string(), |p| p.client.clone())
    }
    fn prefix(&self) -> u8 {
        self.plan.as_ref().map_or(24, |p| p.prefix)
    }
}

/// What one run measured.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LabResult {
    pub label: String,
    /// iperf3 streams run (0: none, and the report leaves them out).
    pub streams: usize,
    /// Sum of the iperf3 throughput, bits/s.
    pub stream_bps: Option<f64>,
    /// Per RR connection.
    pub rr: Vec<RttStats>,
    /// RR round trips measured, all connections (0 for a starved one).
    pub rr_transactions: u64,
    /// Median over the RR connections of their median adapter hold (µs).
    pub rr_hold_p50_us: Option<f64>,
    /// Median over the RR connections of their median RTT (µs).
    pub rr_p50_us: Option<f64>,
    pub rr_p99_us: Option<f64>,
    pub rr_avg_us: Option<f64>,
    /// CPU seconds used by softosa's threads during the workload.
    pub cpu_secs: f64,
    /// CPU seconds all CPUs spent polling in the idle loop (cpuidle POLL
    /// state) during softosa's workload: the cost of the wake-up latency
    /// request (not in `cpu_secs`: no thread runs then).
    pub idle_poll_secs: Option<f64>,
    pub cpu_by_thread: Vec<(String, f64)>,
    pub accounting: Accounting,
    pub placements: Vec<Placement>,
    /// Driver counters (name, value).
    pub driver: Vec<(String, u64)>,
    /// The engine's statistics display, rendered at the end of the run.
    pub stats_text: String,
    /// Plain veth reference, if measured.
    pub ref_stream_bps: Option<f64>,
    pub ref_rr: Option<RttStats>,
    /// Workload start (ns since plane start), for placement timing.
    pub workload_start_ns: u64,
    /// softosa's thread layout in this run, in words.
    pub layout: String,
    /// The RR clients' rate (0: ping-pong).
    pub rr_mps: u32,
    /// `--repeat`: each run's headline figures, in the order run. The
    /// result's own headline figures are their medians; everything else
    /// (counters, threads, connections, displays) is run `shown_run`'s.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repeats: Vec<RepeatFigures>,
    /// With `repeats`: the run (1-based) whose counters the result shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shown_run: Option<usize>,
}

/// One run of a `--repeat`: what it measured of the figures the result
/// gives as medians.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct RepeatFigures {
    pub stream_bps: Option<f64>,
    pub rr_p50_us: Option<f64>,
    pub rr_p99_us: Option<f64>,
    pub cpu_secs: f64,
    pub all_accounted_for: bool,
}

/// How long the CPU wake-up latency request outlives the last frame.
pub const WAKE_QOS_LINGER: Duration = Duration::from_millis(20);

/// Whether `port` is one of the lab's RR server ports.
pub fn is_rr_port(port: u16, rr: usize) -> bool {
    port >= RR_PORT && usize::from(port - RR_PORT) < rr
}

/// Orders `cpus` for per-CPU threads: entry k is a CPU whose number is k
/// modulo the count (the wire socket PACKET_FANOUT_CPU hands its frames to),
/// so each thread runs where its frames are handled. Where the set has no
/// CPU for a slot the remaining CPUs fill in, and the flag says so.
pub fn fanout_order(cpus: &[usize]) -> (Vec<usize>, bool) {
    let n = cpus.len();
    let mut slots: Vec<Option<usize>> = vec![None; n];
    let mut rest = Vec::new();
    for &c in cpus {
        match slots.get_mut(c % n.max(1)) {
            Some(s @ None) => *s = Some(c),
            _ => rest.push(c),
        }
    }
    let aligned = rest.is_empty();
    let mut rest = rest.into_iter();
    let order = slots
        .into_iter()
        .filter_map(|s| s.or_else(|| rest.next()))
        .collect();
    (order, aligned)
}

/// First sockperf port (one server per RR connection from here on).
pub const RR_PORT: u16 = 11111;
/// iperf3 port.
pub const STR_PORT: u16 = 5201;

/// Addresses used by the lab (documentation ranges).
pub const CLIENT4: &str = "192.0.2.1";
pub const STACK4: [&str; 2] = ["192.0.2.10", "192.0.2.20"];
/// An address behind the stacks that nobody registers with the adapter: the
/// client routes its subnet via stack 1, and with PRIROUTER the adapter
/// hands it to stack 1, which holds it as a local address.
pub const UNREGISTERED4: &str = "203.0.113.99";
/// The wire's MAC (softosa's port) and the VMACs of the stacks.
pub const PORT_MAC: [u8; 6] = [0x02, 0x5a, 0x00, 0x00, 0x00, 0x01];
pub const VMAC: [[u8; 6]; 2] = [
    [0x02, 0x5a, 0x00, 0x01, 0x00, 0x01],
    [0x02, 0x5a, 0x00, 0x02, 0x00, 0x01],
];

fn stacks_for(o: &LabOptions) -> usize {
    match o.sharing {
        Sharing::One | Sharing::Layer2 => 1,
        Sharing::Vmac | Sharing::Prirouter => 2,
    }
}

/// Device queues per interface: one per input queue the engine may use.
pub fn queues_for(o: &LabOptions) -> usize {
    if o.inbperf == Inb::DynamicWorkloadq {
        2
    } else {
        1
    }
}

fn thread_cpu_sosa() -> Vec<(String, f64)> {
    sys::thread_cpu()
        .into_iter()
        .filter(|(n, _)| n.starts_with("sosa-"))
        .collect()
}

/// Build the topology, start the plane with `core`, run the workloads and
/// collect results. Everything is torn down when this returns.
pub fn run_once<C: Core + Default>(
    o: &LabOptions,
    core: C,
    label: &str,
) -> Result<LabResult, LabError> {
    let tag = topo::tag_for(std::process::id());
    // `<pid>_<run>`: the pid part identifies the owner for leftover cleanup.
    let names = Names::new(&format!("{tag}_{}", run_suffix()));
    let kind = match (&o.plan, o.sharing) {
        (Some(p), _) if p.layer2 => TunKind::Tap,
        (Some(_), _) => TunKind::Tun,
        (None, Sharing::Layer2) => TunKind::Tap,
        _ if o.core == CoreKind::Passthrough => TunKind::Tap,
        _ => TunKind::Tun,
    };
    let nst = o
        .plan
        .as_ref()
        .map_or_else(|| stacks_for(o), |p| p.addrs.len());
    let base_queues = o.plan.as_ref().map_or_else(|| queues_for(o), |p| p.queues);
    // Per-CPU threads: one stack with one input queue, a device queue and
    // a wire socket per CPU. validate and the front end refuse other
    // shapes before a run; this catches a caller that did not ask them.
    if let Some(m) = per_cpu_conflict(o, nst, base_queues) {
        return Err(LabError::Usage(m));
    }
    let cpu_set = plane_cpu_set(o);
    let ncpu = cpu_set.len();
    let per_cpu = o.per_cpu;
    // Thread k serves the wire socket the kernel picks for frames handled
    // on a CPU c with c % n == k; pin it to such a CPU when the set allows.
    let (plane_cpus, aligned) = if per_cpu {
        fanout_order(&cpu_set)
    } else {
        (o.cpus.clone(), true)
    };
    if !aligned {
        softosa_display::note!(
            "--cpus {cpu_set:?}: no CPU for every socket slot (CPU number modulo {ncpu}); \
             some hand-offs will cross CPUs"
        );
    }
    let spec = TopoSpec {
        kind,
        stacks: (0..nst)
            .map(|i| StackSpec {
                addr4: o.stack_addr(i),
                mac: Some(o.plan.as_ref().map_or(VMAC[i.min(1)], |p| p.macs[i])),
                queues: if per_cpu { ncpu } else { base_queues },
                tcp: o
                    .plan
                    .as_ref()
                    .and_then(|p| p.tcp.get(i).copied())
                    .filter(|t| *t != TcpSettings::default()),
            })
            .collect(),
        prefix: o.prefix(),
        client4: o.client_addr(),
        mtu: o.mtu,
        reference: o.reference,
    };
    // The instance name and metrics port first: if another run holds
    // them, nothing is built.
    let sock = o.instance.as_ref().map(|i| crate::control::socket_path(i));
    let listeners = crate::control::Listeners::bind(sock.as_deref(), o.metrics_port)?;
    if let Some(m) = rr_stack_conflict(o, nst) {
        return Err(LabError::Usage(m));
    }
    let mut topo = Topology::build(names, &spec)?;
    if o.sharing == Sharing::Prirouter && o.plan.is_none() {
        let h = topo.hosts[0].ns.clone();
        let ifn = topo.hosts[0].ifname.clone();
        topo::ip(&[
            "-n",
            &h,
            "addr",
            "add",
            &format!("{UNREGISTERED4}/32"),
            "dev",
            &ifn,
        ])?;
        let c = topo.client_ns.clone();
        let cif = topo.client_if.clone();
        topo::ip(&[
            "-n",
            &c,
            "route",
            "add",
            "203.0.113.0/24",
            "via",
            STACK4[0],
            "dev",
            &cif,
        ])?;
    }
    let wire_if = topo.wire_if.clone();
    let extra = if per_cpu { ncpu - 1 } else { 0 };
    let group = (std::process::id() & 0xffff) as u16;
    let mut wires = sys::in_netns(&topo.osa_ns, move || {
        let mut v = Vec::new();
        for _ in 0..=extra {
            let w = sys::open_packet_socket(&wire_if)?;
            if extra > 0 {
                sys::join_fanout_cpu(std::os::fd::AsRawFd::as_raw_fd(&w), group)?;
            }
            v.push(w);
        }
        Ok(v)
    })
    .map_err(io_err("opening the wire socket"))?;
    let wire = wires.remove(0);
    let mut hosts = Vec::new();
    for (i, h) in topo.hosts.iter_mut().enumerate() {
        for (q, fd) in h.queues.drain(..).enumerate() {
            hosts.push(HostQueue {
                iface: i,
                queue: q,
                fd,
            });
        }
    }
    let plane = Plane::start(
        core,
        PlaneConfig {
            wire,
            per_cpu_wires: wires,
            hosts,
            host_framing: if kind == TunKind::Tap {
                Framing::Ethernet
            } else {
                Framing::Ip
            },
            mtu: o.mtu as usize,
            fault_rate: o.fault_rate,
            fault_seed: o.seed,
            busy_poll: Duration::from_micros(o.busy_poll_us),
            wake_qos: o.wake_qos.then_some(WAKE_QOS_LINGER),
            wire_bps: o.wire_mbps.saturating_mul(1_000_000),
            realtime_prio: o.realtime_prio,
            nice: o.nice,
            cpus: plane_cpus.clone(),
            timer_thread: o.timer_thread,
        },
    )
    .map_err(io_err("starting the data plane"))?;
    let _servers = listeners
        .serve(plane.status_source())
        .map_err(io_err("starting the control socket / metrics endpoint"))?;
    if let Some(p) = &sock {
        softosa_display::note!("control socket: {}", p.display());
    }
    if let Some(a) = _servers.metrics_addr {
        softosa_display::note!("metrics: http://{a}/metrics");
    }
    let mut res = run_workloads(o, &topo, &plane)?;
    res.label = label.to_string();
    res.rr_mps = o.rr_mps;
    res.layout = if per_cpu {
        format!("one data-plane thread per CPU, on CPUs {plane_cpus:?}")
    } else if plane_cpus.is_empty() {
        "one data-plane thread per input queue, on any CPU".to_string()
    } else {
        format!("one data-plane thread per input queue, on CPUs {plane_cpus:?}")
    };
    // Let the last held frames go out, then read the counters.
    std::thread::sleep(Duration::from_millis(300));
    // The engine's accounting and the driver's counters are read apart; a
    // late frame (a retransmission) between the two reads would make them
    // disagree, so they are read until the driver's did not move meanwhile.
    let driver = || {
        let st = plane.stats();
        [
            ("wire_rx_frames", &st.wire_rx_frames),
            ("crc_dropped", &st.crc_dropped),
            ("wire_tx_frames", &st.wire_tx_frames),
            ("wire_tx_errors", &st.wire_tx_errors),
            ("host_rx_frames", &st.host_rx_frames),
            ("host_tx_frames", &st.host_tx_frames),
            ("host_tx_batches", &st.host_tx_batches),
            ("host_tx_errors", &st.host_tx_errors),
            ("timer_wakeups", &st.timer_wakeups),
            ("timer_late_ns_total", &st.timer_late_ns_total),
            ("timer_late_ns_max", &st.timer_late_ns_max),
            ("qos_holds", &st.qos_holds),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), DriverStats::get(v)))
        .collect::<Vec<_>>()
    };
    for _ in 0..10 {
        let before = driver();
        res.accounting = plane.with_core(|c, _| c.accounting());
        res.driver = driver();
        let moved = |k: &str| {
            let at = |v: &[(String, u64)]| v.iter().find(|d| d.0 == k).map(|d| d.1);
            at(&before) != at(&res.driver)
        };
        if !moved("wire_rx_frames") && !moved("crc_dropped") && !moved("host_tx_frames") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    res.placements = plane.with_core(|c, _| c.placements());
    let holds: Vec<f64> = res
        .placements
        .iter()
        .filter(|p| is_rr_port(p.local_port, o.rr))
        .filter_map(|p| p.hold_p50_us)
        .collect();
    res.rr_hold_p50_us = workload::median(&holds);
    res.stats_text = plane
        .with_core(|c, _| c.display(&crate::control::DisplayRequest::text("QUEUES")))
        .unwrap_or_default();
    drop(_servers);
    drop(plane);
    topo.teardown();
    Ok(res)
}

fn run_suffix() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed) % 36;
    topo::tag_for(n)
}

fn run_workloads<C: Core>(
    o: &LabOptions,
    topo: &Topology,
    plane: &Plane<C>,
) -> Result<LabResult, LabError> {
    let mut res = LabResult {
        streams: o.streams,
        ..Default::default()
    };
    let cli = topo.client_ns.clone();
    let stack_ns = |i: usize| topo.hosts[i.min(topo.hosts.len() - 1)].ns.clone();
    let rr_idx = o.rr_stack.clamp(1, topo.hosts.len()) - 1;
    let rr_own = o.stack_addr(rr_idx);
    let rr_addr = if o.sharing == Sharing::Prirouter && o.rr_stack == 1 && o.plan.is_none() {
        UNREGISTERED4
    } else {
        rr_own.as_str()
    };
    let mut servers: Vec<ChildGuard> = Vec::new();
    if o.streams > 0 {
        servers.push(
            workload::iperf3_server(&stack_ns(0), &o.stack_addr(0), STR_PORT)
                .map_err(io_err("starting iperf3 server"))?,
        );
    }
    // One sockperf server per RR connection: a sockperf TCP server starves
    // all but one of several simultaneous ping-pong clients.
    for k in 0..o.rr {
        servers.push(
            workload::sockperf_server(
                &stack_ns(rr_idx),
                "0.0.0.0",
                RR_PORT + k as u16,
                o.tos_priority.then_some(128),
                &o.rr_cpus,
            )
            .map_err(io_err("starting sockperf"))?,
        );
    }
    // Let servers bind and ARP settle, then make sure every server
    // listens: on a busy machine starting one can take longer.
    std::thread::sleep(Duration::from_millis(500));
    await_servers(&servers, o.rr, o.streams > 0);
    if crate::interrupted() {
        return Err(LabError::Interrupted);
    }
    let cpu0 = thread_cpu_sosa();
    let poll0 = sys::idle_poll_secs();
    res.workload_start_ns = plane.now();
    if o.sequential {
        // Speed benchmark: streams alone, then request/response alone.
        let (bps, _) = run_clients(o, &cli, &o.stack_addr(0), rr_addr, true, false)?;
        let (_, rr) = run_clients(o, &cli, &o.stack_addr(0), rr_addr, false, true)?;
        res.stream_bps = bps;
        res.rr = rr;
    } else {
        let (bps, rr) = run_clients(o, &cli, &o.stack_addr(0), rr_addr, true, true)?;
        res.stream_bps = bps;
        res.rr = rr;
    }
    let cpu1 = thread_cpu_sosa();
    if let (Some(a), Some(b)) = (poll0, sys::idle_poll_secs()) {
        res.idle_poll_secs = Some((b - a).max(0.0));
    }
    res.cpu_by_thread = cpu1
        .iter()
        .map(|(n, t)| {
            let before: f64 = cpu0.iter().filter(|(m, _)| m == n).map(|x| x.1).sum();
            (n.clone(), t - before)
        })
        .collect();
    res.cpu_secs = res.cpu_by_thread.iter().map(|x| x.1).sum();
    let ok = res.rr.iter().filter(|r| r.observations > 0);
    let p50: Vec<f64> = ok.clone().map(|r| r.p50).collect();
    let p99: Vec<f64> = ok.clone().map(|r| r.p99).collect();
    let avg: Vec<f64> = ok.map(|r| r.avg).collect();
    res.rr_transactions = res.rr.iter().map(|r| r.observations).sum();
    res.rr_p50_us = workload::median(&p50);
    res.rr_p99_us = workload::median(&p99);
    res.rr_avg_us = workload::median(&avg);
    drop(servers);
    // Plain veth reference, same run, same workload shape, and the same
    // machine-wide settings: the CPU wake-up latency request softosa held
    // while frames flowed is held for the reference as well, so a plain
    // veth pair is not measured with halting idle CPUs that softosa's run
    // never saw.
    if let Some((a, b)) = &topo.ref_ns {
        let _qos = if o.wake_qos {
            match sys::CpuLatencyQos::open().and_then(|mut q| q.hold().map(|()| q)) {
                Ok(q) => Some(q),
                Err(e) => {
                    tracing::warn!(error = %e, "reference run without the CPU wake-up latency request");
                    None
                }
            }
        } else {
            None
        };
        let mut srv = vec![workload::iperf3_server(b, "198.51.100.2", STR_PORT)
            .map_err(io_err("reference iperf3 server"))?];
        for k in 0..o.rr {
            srv.push(
                workload::sockperf_server(b, "198.51.100.2", RR_PORT + k as u16, None, &o.rr_cpus)
                    .map_err(io_err("reference sockperf server"))?,
            );
        }
        std::thread::sleep(Duration::from_millis(300));
        await_servers(&srv, o.rr, true);
        if o.sequential {
            let (bps, _) = run_clients(o, a, "198.51.100.2", "198.51.100.2", true, false)?;
            let (_, rr) = run_clients(o, a, "198.51.100.2", "198.51.100.2", false, true)?;
            res.ref_stream_bps = bps;
            res.ref_rr = summarize_rr(&rr);
        } else {
            let (bps, rr) = run_clients(o, a, "198.51.100.2", "198.51.100.2", true, true)?;
            res.ref_stream_bps = bps;
            res.ref_rr = summarize_rr(&rr);
        }
        drop(srv);
    }
    Ok(res)
}

/// The median connection's figures, as one summary.
fn summarize_rr(rr: &[RttStats]) -> Option<RttStats> {
    let m = |f: fn(&RttStats) -> f64| workload::median(&rr.iter().map(f).collect::<Vec<_>>());
    Some(RttStats {
        avg: m(|r| r.avg)?,
        p50: m(|r| r.p50)?,
        p90: m(|r| r.p90)?,
        p99: m(|r| r.p99)?,
        max: m(|r| r.max)?,
        observations: rr.iter().map(|r| r.observations).sum(),
    })
}

/// Wait (up to 10 s) until the workload servers listen: the iperf3 server
/// first in `servers` when `stream`, then one sockperf server per RR
/// connection. If one never does, its client reports why.
fn await_servers(servers: &[ChildGuard], rr: usize, stream: bool) {
    let mut want: Vec<(&ChildGuard, &str, u16)> = Vec::new();
    let mut it = servers.iter();
    if stream {
        if let Some(g) = it.next() {
            want.push((g, "iperf3", STR_PORT));
        }
    }
    for (k, g) in it.take(rr).enumerate() {
        want.push((g, "sockperf", RR_PORT + k as u16));
    }
    if !workload::wait_listening(&want, Duration::from_secs(10)) {
        tracing::warn!(
            "a workload server was not listening after 10 s; starting the clients anyway"
        );
    }
}

/// Start the selected clients from namespace `ns` against `addr` (streams
/// to the same address as RR when `addr` is the reference), wait for all,
/// and parse their reports.
fn run_clients(
    o: &LabOptions,
    ns: &str,
    str_addr: &str,
    rr_addr: &str,
    streams: bool,
    rr: bool,
) -> Result<(Option<f64>, Vec<RttStats>), LabError> {
    let mut clients = Vec::new();
    // Request/response first: their connections are set up before a
    // stream can fill the queues (sockperf warms up for 400 ms anyway).
    if rr {
        for k in 0..o.rr {
            let args = workload::sockperf_client_args(
                rr_addr,
                RR_PORT + k as u16,
                o.secs,
                o.rr_size,
                o.rr_mps,
                o.tos_priority.then_some(128),
            );
            let mut c = workload::ns_command(ns, "sockperf", &args);
            sys::pin_command(&mut c, &o.rr_cpus).map_err(io_err("pinning sockperf client"))?;
            clients.push((
                "rr",
                ChildGuard::spawn(c, "sockperf client")
                    .map_err(io_err("starting sockperf client"))?,
            ));
        }
    }
    // A stream running beside RR covers the RR measurement window (warm-up
    // included), so every RR sample sees it.
    let mut stream_secs = o.secs;
    if rr && o.rr > 0 && streams && o.streams > 0 {
        std::thread::sleep(Duration::from_millis(300));
        stream_secs = o.secs + 1.0;
    }
    if streams && o.streams > 0 {
        let mut args: Vec<String> = vec![
            "-c".into(),
            str_addr.into(),
            "-p".into(),
            STR_PORT.to_string(),
            "-t".into(),
            format!("{}", stream_secs.max(1.0).ceil() as u64),
            "-P".into(),
            o.streams.to_string(),
            "-J".into(),
        ];
        if o.reverse {
            args.push("-R".into());
        }
        if o.udp {
            args.push("-u".into());
            args.push("-l".into());
            args.push("1400".into());
        }
        if o.stream_mbps > 0 || o.udp {
            args.push("-b".into());
            args.push(format!(
                "{}M",
                if o.stream_mbps > 0 {
                    o.stream_mbps
                } else {
                    1000
                }
            ));
        }
        if o.tos_priority {
            args.push("-S".into());
            args.push("32".into());
        }
        clients.push((
            "str",
            ChildGuard::spawn(workload::ns_command(ns, "iperf3", &args), "iperf3 client")
                .map_err(io_err("starting iperf3 client"))?,
        ));
    }
    // `validate` bounds `secs`; a caller that skipped it gets the longest
    // allowed run instead of a panic.
    let limit = Duration::try_from_secs_f64(o.secs + 20.0)
        .unwrap_or(Duration::from_secs_f64(MAX_SECS + 20.0));
    let mut bps = None;
    let mut rtts = Vec::new();
    for (kind, c) in clients {
        let (ok, out, err) = c.wait_output(limit).map_err(wait_err)?;
        if crate::interrupted() {
            return Err(LabError::Interrupted);
        }
        if kind == "str" {
            if !ok {
                return Err(LabError::Workload(format!("iperf3: {}", err.trim())));
            }
            bps = Some(workload::parse_iperf3(&out).ok_or_else(|| {
                let why = serde_json::from_str::<serde_json::Value>(&out)
                    .ok()
                    .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(String::from))
                    .unwrap_or_else(|| err.trim().to_string());
                LabError::Workload(format!("iperf3 gave no report: {why}"))
            })?);
        } else {
            match workload::parse_sockperf(&out) {
                Some(s) => rtts.push(s),
                None if out.contains("No messages were received") => {
                    // Starved: not one response in the whole run.
                    rtts.push(RttStats::default());
                }
                None => {
                    return Err(LabError::Workload(format!(
                        "sockperf gave no report: {}",
                        workload::tool_complaint(&out, &err)
                    )))
                }
            }
        }
    }
    Ok((bps, rtts))
}

fn wait_err(e: std::io::Error) -> LabError {
    if e.kind() == std::io::ErrorKind::Interrupted {
        LabError::Interrupted
    } else {
        LabError::Workload(e.to_string())
    }
}

fn fmt_opt(v: Option<f64>, scale: f64, prec: usize) -> String {
    v.map(|x| format!("{:.prec$}", x / scale))
        .unwrap_or_else(|| "-".into())
}

/// Human report of one run.
pub fn report(r: &LabResult) -> String {
    let mut s = String::new();
    s.push_str(&format!("=== {} ===\n", r.label));
    // A workload that did not run (--streams 0, --rr 0) has no lines: a
    // row of dashes would read as one that ran and measured nothing.
    if r.streams > 0 {
        s.push_str(&format!(
            "STR throughput      {} Gbit/s\n",
            fmt_opt(r.stream_bps, 1e9, 2)
        ));
    }
    if !r.rr.is_empty() {
        s.push_str(&format!(
            "RR round trip (us)  p50 {}  p99 {}  avg {}  ({} connection{}{}, {} round trips)\n",
            fmt_opt(r.rr_p50_us, 1.0, 1),
            fmt_opt(r.rr_p99_us, 1.0, 1),
            fmt_opt(r.rr_avg_us, 1.0, 1),
            r.rr.len(),
            if r.rr.len() == 1 { "" } else { "s" },
            if r.rr_mps > 0 {
                format!(" under load at {} msg/s each", r.rr_mps)
            } else {
                String::new()
            },
            r.rr_transactions
        ));
        s.push_str(&format!(
            "RR adapter hold     p50 {} us (median over RR connections)\n",
            fmt_opt(r.rr_hold_p50_us, 1.0, 0)
        ));
    }
    s.push_str(&format!("softosa CPU         {:.2} s\n", r.cpu_secs));
    if let Some(p) = r.idle_poll_secs.filter(|p| *p > 0.0) {
        s.push_str(&format!(
            "idle CPUs polling   {p:.2} s (cpuidle POLL state; not halted, for fast wake-ups)\n"
        ));
    }
    if let Some(k) = r.shown_run.filter(|_| !r.repeats.is_empty()) {
        // The lines above are medians; the rest is one run's, whose own
        // CPU need not equal the median.
        s.push_str(&format!(
            "runs                {}\n\
             (the figures above are the medians of these runs; what follows is run {k}'s)\n",
            repeat_line(&r.repeats)
        ));
    }
    for (n, t) in &r.cpu_by_thread {
        s.push_str(&format!("  {n:<16} {t:.2} s\n"));
    }
    let a = &r.accounting;
    s.push_str(&format!(
        "frames in {} = presented {} + forwarded {} + handled {} + dropped {} + held {} : {}\n",
        a.frames_in,
        a.presented,
        a.forwarded,
        a.handled,
        a.dropped_total(),
        a.held,
        // Not "balanced": the word would read as the INBPERF setting.
        if a.balanced() {
            "all accounted for"
        } else {
            "MISMATCH"
        }
    ));
    for (why, n) in a.dropped.iter().filter(|d| d.1 > 0) {
        s.push_str(&format!("  dropped {n:>8}  {why}\n"));
    }
    for (why, n) in a.dropped_out.iter().filter(|d| d.1 > 0) {
        s.push_str(&format!("  outbound dropped {n:>8}  {why}\n"));
    }
    for p in &r.placements {
        s.push_str(&format!(
            "  conn :{} <- :{}  packets PRIMARY {} BULKDATA {}, last on {}, hold p50 {} p99 {} us, out wait p50 {} p99 {} us, refused {}{}\n",
            p.local_port,
            p.remote_port,
            p.per_queue[0],
            p.per_queue[1],
            p.queue,
            fmt_opt(p.hold_p50_us, 1.0, 0),
            fmt_opt(p.hold_p99_us, 1.0, 0),
            fmt_opt(p.out_wait_p50_us, 1.0, 0),
            fmt_opt(p.out_wait_p99_us, 1.0, 0),
            p.out_refused,
            p.bulk_since
                .map(|b| format!(
                    "  (BULKDATA {:.3} s after first packet)",
                    b.saturating_sub(p.first_seen) as f64 / 1e9
                ))
                .unwrap_or_default()
        ));
    }
    let get = |k: &str| r.driver.iter().find(|d| d.0 == k).map_or(0, |d| d.1);
    let tw = get("timer_wakeups");
    if tw > 0 {
        s.push_str(&format!(
            "timers served       {} times, late by avg {:.1} us, max {:.1} us\n",
            tw,
            get("timer_late_ns_total") as f64 / tw as f64 / 1000.0,
            get("timer_late_ns_max") as f64 / 1000.0
        ));
    }
    let veth: Vec<String> = [
        r.ref_stream_bps
            .filter(|_| r.streams > 0)
            .map(|b| format!("{:.2} Gbit/s", b / 1e9)),
        r.ref_rr
            .as_ref()
            .filter(|_| !r.rr.is_empty())
            .map(|x| format!("RR p50 {:.1} us", x.p50)),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !veth.is_empty() {
        s.push_str(&format!("plain veth          {}\n", veth.join(", ")));
    }
    if !r.stats_text.is_empty() {
        s.push_str(&r.stats_text);
        if !r.stats_text.ends_with('\n') {
            s.push('\n');
        }
    }
    s
}

/// Side-by-side table of several runs; the columns of a workload none of
/// them ran (--streams 0, --rr 0) are left out.
pub fn compare_table(rs: &[LabResult]) -> String {
    let w = rs
        .iter()
        .map(|r| r.label.len() + 2)
        .max()
        .unwrap_or(0)
        .max(34);
    let streams = rs.iter().any(|r| r.streams > 0);
    let rr = rs.iter().any(|r| !r.rr.is_empty());
    let mut head = format!("{:<w$}", "INBPERF");
    if streams {
        head.push_str(&format!("{:>9}", "STR Gb/s"));
    }
    if rr {
        for h in ["RR p50", "RR p99", "RR avg", "RR hold"] {
            head.push_str(&format!("{h:>9}"));
        }
    }
    let mut s = format!("{head}{:>8}{:>7}\n", "CPU s", "frames");
    for r in rs {
        s.push_str(&format!("{:<w$}", r.label));
        if streams {
            s.push_str(&format!("{:>9}", fmt_opt(r.stream_bps, 1e9, 2)));
        }
        if rr {
            for (v, prec) in [
                (r.rr_p50_us, 1),
                (r.rr_p99_us, 1),
                (r.rr_avg_us, 1),
                (r.rr_hold_p50_us, 0),
            ] {
                s.push_str(&format!("{:>9}", fmt_opt(v, 1.0, prec)));
            }
        }
        s.push_str(&format!(
            "{:>8.2}{:>7}\n",
            r.cpu_secs,
            if r.accounting.balanced() { "ok" } else { "NO" }
        ));
    }
    s
}

/// Combine repeated runs: medians of the measured numbers; the accounting
/// and placements of the median run, unless a run failed to balance (then
/// that run's, so a mismatch is never hidden).
pub fn median_result(mut runs: Vec<LabResult>) -> LabResult {
    if runs.len() <= 1 {
        return runs.pop().unwrap_or_default();
    }
    let med = |f: &dyn Fn(&LabResult) -> Option<f64>| -> Option<f64> {
        let v: Vec<f64> = runs.iter().filter_map(f).collect();
        workload::median(&v)
    };
    let bps = med(&|r| r.stream_bps);
    let p50 = med(&|r| r.rr_p50_us);
    let p99 = med(&|r| r.rr_p99_us);
    let avg = med(&|r| r.rr_avg_us);
    let cpu = med(&|r| Some(r.cpu_secs));
    let poll = med(&|r| r.idle_poll_secs);
    let rbps = med(&|r| r.ref_stream_bps);
    let rp50 = med(&|r| r.ref_rr.as_ref().map(|x| x.p50));
    let rp99 = med(&|r| r.ref_rr.as_ref().map(|x| x.p99));
    let hold = med(&|r| r.rr_hold_p50_us);
    let n = runs.len();
    let repeats: Vec<RepeatFigures> = runs
        .iter()
        .map(|r| RepeatFigures {
            stream_bps: r.stream_bps,
            rr_p50_us: r.rr_p50_us,
            rr_p99_us: r.rr_p99_us,
            cpu_secs: r.cpu_secs,
            all_accounted_for: r.accounting.balanced(),
        })
        .collect();
    // The run whose counters are shown: one whose accounting does not
    // balance (so the mismatch is seen), else the middle one by RR p50
    // (or stream throughput).
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        let k = |r: &LabResult| r.rr_p50_us.or(r.stream_bps).unwrap_or(0.0);
        k(&runs[a]).total_cmp(&k(&runs[b]))
    });
    let pick = order
        .iter()
        .copied()
        .find(|&i| !runs[i].accounting.balanced())
        .unwrap_or(order[n / 2]);
    let mut out = runs.swap_remove(pick);
    out.repeats = repeats;
    out.shown_run = Some(pick + 1);
    out.stream_bps = bps;
    out.rr_p50_us = p50;
    out.rr_p99_us = p99;
    out.rr_avg_us = avg;
    out.rr_hold_p50_us = hold;
    out.cpu_secs = cpu.unwrap_or(out.cpu_secs);
    out.idle_poll_secs = poll;
    out.ref_stream_bps = rbps;
    if let Some(r) = out.ref_rr.as_mut() {
        r.p50 = rp50.unwrap_or(r.p50);
        r.p99 = rp99.unwrap_or(r.p99);
    }
    out.label = format!("{} (median of {n})", out.label);
    out
}

/// Each run of a `--repeat` in a few words: `1: 9.41 Gbit/s, p50 21.3 us,
/// CPU 0.61 s; 2: ...`.
fn repeat_line(runs: &[RepeatFigures]) -> String {
    runs.iter()
        .enumerate()
        .map(|(i, f)| {
            let mut parts = Vec::new();
            if let Some(b) = f.stream_bps {
                parts.push(format!("{:.2} Gbit/s", b / 1e9));
            }
            if let Some(p) = f.rr_p50_us {
                parts.push(format!("p50 {p:.1} us"));
            }
            parts.push(format!("CPU {:.2} s", f.cpu_secs));
            if !f.all_accounted_for {
                parts.push("frames MISMATCH".into());
            }
            format!("{}: {}", i + 1, parts.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The speed benchmark's verdict lines.
pub fn bench_summary(r: &LabResult) -> String {
    let mut s = String::from("--- speed versus a plain veth pair (same run) ---\n");
    if !r.layout.is_empty() {
        s.push_str(&format!("softosa: {}\n", r.layout));
    }
    if let (Some(a), Some(b)) = (r.stream_bps, r.ref_stream_bps) {
        s.push_str(&format!(
            "iperf3 TCP: softosa {:.2} Gbit/s, veth {:.2} Gbit/s, ratio {:.0}% (target >= 30%)\n",
            a / 1e9,
            b / 1e9,
            100.0 * a / b.max(1.0)
        ));
    }
    if let (Some(a), Some(b)) = (r.rr_p50_us, r.ref_rr.as_ref().map(|x| x.p50)) {
        s.push_str(&format!(
            "sockperf TCP RTT p50: softosa {a:.1} us, veth {b:.1} us, added {:.1} us (target <= 15 us)\n",
            a - b
        ));
    }
    if let (Some(a), Some(b)) = (r.rr_p99_us, r.ref_rr.as_ref().map(|x| x.p99)) {
        s.push_str(&format!(
            "sockperf TCP RTT p99: softosa {a:.1} us, veth {b:.1} us, added {:.1} us\n",
            a - b
        ));
    }
    s.push_str(&format!(
        "cost: softosa threads {:.2} CPU s{}\n",
        r.cpu_secs,
        r.idle_poll_secs
            .map(|p| format!(", idle CPUs polling {p:.2} s (cpuidle POLL residency)"))
            .unwrap_or_default()
    ));
    s
}

#[cfg(test)]
mod fanout_tests {
    use super::fanout_order;

    #[test]
    fn each_thread_lands_on_a_cpu_of_its_socket_slot() {
        // taskset -c 2,3 or --cpus 3,2: thread 0 serves CPU 2's frames.
        assert_eq!(fanout_order(&[2, 3]), (vec![2, 3], true));
        assert_eq!(fanout_order(&[3, 2]), (vec![2, 3], true));
        assert_eq!(fanout_order(&[1, 2]), (vec![2, 1], true));
        assert_eq!(fanout_order(&[5, 0, 4]), (vec![0, 4, 5], true));
        // 0 and 2 both fall in slot 0 of two: one thread is off its slot.
        assert_eq!(fanout_order(&[0, 2]), (vec![0, 2], false));
        assert_eq!(fanout_order(&[]), (vec![], true));
    }
}

#[cfg(test)]
mod validate_tests {
    use super::*;

    fn refused(o: LabOptions, needle: &str) {
        match validate(&o) {
            Err(LabError::Usage(m)) => assert!(m.contains(needle), "{m:?} lacks {needle:?}"),
            other => panic!("expected a usage error about {needle}, got {other:?}"),
        }
    }

    /// A result of `streams` streams and `rr` RR connections that
    /// measured something.
    fn measured(label: &str, streams: usize, rr: usize) -> LabResult {
        let rtt = RttStats {
            avg: 30.0,
            p50: 25.0,
            p90: 40.0,
            p99: 60.0,
            max: 90.0,
            observations: 1000,
        };
        LabResult {
            label: label.into(),
            streams,
            stream_bps: (streams > 0).then_some(4.2e9),
            rr: vec![rtt.clone(); rr],
            rr_transactions: 1000 * rr as u64,
            rr_p50_us: (rr > 0).then_some(25.0),
            rr_p99_us: (rr > 0).then_some(60.0),
            rr_avg_us: (rr > 0).then_some(30.0),
            rr_hold_p50_us: (rr > 0).then_some(7.0),
            ref_stream_bps: Some(9.9e9),
            ref_rr: Some(rtt),
            ..Default::default()
        }
    }

    #[test]
    fn a_workload_that_did_not_run_has_no_report_lines() {
        let both = report(&measured("DYNAMIC", 1, 2));
        assert!(both.contains("STR throughput      4.20 Gbit/s\n"), "{both}");
        assert!(both.contains("(2 connections, 2000 round trips)"), "{both}");
        assert!(both.contains("RR adapter hold     p50 7 us"), "{both}");
        assert!(
            both.contains("plain veth          9.90 Gbit/s, RR p50 25.0 us\n"),
            "{both}"
        );
        let no_streams = report(&measured("DYNAMIC", 0, 1));
        assert!(!no_streams.contains("STR"), "{no_streams}");
        assert!(
            no_streams.contains("(1 connection, 1000 round trips)"),
            "{no_streams}"
        );
        assert!(
            no_streams.contains("plain veth          RR p50 25.0 us\n"),
            "{no_streams}"
        );
        let no_rr = report(&measured("DYNAMIC", 1, 0));
        assert!(!no_rr.contains("RR "), "{no_rr}");
        assert!(
            no_rr.contains("plain veth          9.90 Gbit/s\n"),
            "{no_rr}"
        );
        for text in [&both, &no_streams, &no_rr] {
            assert!(!text.contains("\n\n"), "a blank line: {text}");
            assert!(!text.contains(" - "), "a line of dashes: {text}");
        }
    }

    #[test]
    fn repeated_runs_give_medians_and_say_whose_counters_follow() {
        let run = |p50: f64, cpu: f64, thread: f64| {
            let mut r = measured("DYNAMIC", 0, 1);
            r.rr_p50_us = Some(p50);
            r.cpu_secs = cpu;
            r.cpu_by_thread = vec![("sosa-wq0.0".into(), thread)];
            r
        };
        let r = median_result(vec![
            run(30.0, 0.70, 0.69),
            run(20.0, 0.60, 0.59),
            run(25.0, 0.65, 0.61),
        ]);
        assert_eq!((r.rr_p50_us, r.cpu_secs), (Some(25.0), 0.65), "medians");
        // The counters are those of the run with the median p50: the third.
        assert_eq!(r.shown_run, Some(3));
        assert_eq!(r.cpu_by_thread, vec![("sosa-wq0.0".to_string(), 0.61)]);
        let cpus: Vec<f64> = r.repeats.iter().map(|f| f.cpu_secs).collect();
        assert_eq!(cpus, [0.70, 0.60, 0.65], "every run, in the order run");
        let text = report(&r);
        assert!(
            text.contains("runs                1: p50 30.0 us, CPU 0.70 s; 2: p50 20.0 us, CPU 0.60 s; 3: p50 25.0 us, CPU 0.65 s\n"),
            "{text}"
        );
        assert!(text.contains("what follows is run 3's"), "{text}");
        // One run: no such lines.
        let one = median_result(vec![run(30.0, 0.7, 0.7)]);
        assert!(one.repeats.is_empty() && !report(&one).contains("runs "));
    }

    #[test]
    fn the_comparison_leaves_out_the_columns_of_a_workload_that_did_not_run() {
        // Headers as printed (the label column is 34 wide); rows as words.
        let table = |rs: &[LabResult]| -> (String, Vec<Vec<String>>) {
            let t = compare_table(rs);
            let mut lines = t.lines();
            let head = lines.next().unwrap_or_default().to_string();
            let rows = lines
                .map(|l| l.split_whitespace().map(String::from).collect())
                .collect();
            (head, rows)
        };
        let pad = |h: &str| format!("{h:<34}");
        let (head, rows) = table(&[measured("BALANCED", 1, 1), measured("DYNAMIC", 1, 1)]);
        assert_eq!(
            head,
            pad("INBPERF") + " STR Gb/s   RR p50   RR p99   RR avg  RR hold   CPU s frames"
        );
        assert_eq!(
            rows[0],
            ["BALANCED", "4.20", "25.0", "60.0", "30.0", "7", "0.00", "ok"]
        );
        let (head, rows) = table(&[measured("BALANCED", 0, 1), measured("DYNAMIC", 0, 1)]);
        assert_eq!(
            head,
            pad("INBPERF") + "   RR p50   RR p99   RR avg  RR hold   CPU s frames"
        );
        assert_eq!(
            rows[1],
            ["DYNAMIC", "25.0", "60.0", "30.0", "7", "0.00", "ok"]
        );
        let (head, rows) = table(&[measured("BALANCED", 2, 0), measured("DYNAMIC", 2, 0)]);
        assert_eq!(head, pad("INBPERF") + " STR Gb/s   CPU s frames");
        assert_eq!(rows[0], ["BALANCED", "4.20", "0.00", "ok"]);
    }

    #[test]
    fn the_accounting_line_does_not_name_an_inbperf_setting() {
        let r = LabResult {
            label: "DYNAMIC".into(),
            ..Default::default()
        };
        let text = report(&r);
        let line = text
            .lines()
            .find(|l| l.starts_with("frames in "))
            .unwrap_or_default();
        assert!(line.ends_with(": all accounted for"), "{text}");
        assert!(!text.contains("BALANCED"), "{text}");
    }

    #[test]
    fn only_the_tools_of_the_workloads_that_run_are_needed() {
        let names = |i, s| -> Vec<&str> { needed_tools(i, s).iter().map(|t| t.0).collect() };
        let base = ["ip", "unshare", "true", "sysctl"];
        let with =
            |extra: &[&'static str]| -> Vec<&str> { base.iter().chain(extra).copied().collect() };
        assert_eq!(names(true, true), with(&["iperf3", "sockperf"]));
        assert_eq!(names(false, true), with(&["sockperf"]));
        assert_eq!(names(true, false), with(&["iperf3"]));
    }

    #[test]
    fn defaults_pass() {
        assert!(validate(&LabOptions::default()).is_ok());
    }

    #[test]
    fn out_of_range_seconds_are_refused_not_clamped() {
        for secs in [
            0.0,
            -1.0,
            0.5,
            f64::NAN,
            f64::INFINITY,
            1e30,
            MAX_SECS + 1.0,
        ] {
            refused(
                LabOptions {
                    secs,
                    ..Default::default()
                },
                "--secs",
            );
        }
        for secs in [1.0, 2.5, MAX_SECS] {
            let o = LabOptions {
                secs,
                ..Default::default()
            };
            assert!(validate(&o).is_ok(), "{secs}");
        }
    }

    #[test]
    fn a_nice_value_needs_normal_scheduling() {
        refused(
            LabOptions {
                nice: -5,
                ..LabOptions::default()
            },
            "--nice -5: softosa's threads run SCHED_FIFO (--realtime 10)",
        );
        for realtime_prio in [0, 10] {
            let o = LabOptions {
                realtime_prio,
                nice: if realtime_prio == 0 { -5 } else { 0 },
                ..LabOptions::default()
            };
            assert!(validate(&o).is_ok(), "{o:?}");
        }
    }

    #[test]
    fn an_empty_workload_is_refused() {
        refused(
            LabOptions {
                streams: 0,
                rr: 0,
                ..Default::default()
            },
            "nothing to run",
        );
    }

    #[test]
    fn workload_sizes_the_tools_cannot_run_are_refused() {
        let base = LabOptions::default;
        refused(
            LabOptions {
                streams: MAX_STREAMS + 1,
                ..base()
            },
            "--streams",
        );
        refused(
            LabOptions {
                rr: MAX_RR + 1,
                ..base()
            },
            "--rr",
        );
        refused(
            LabOptions {
                rr_mps: MAX_RR_MPS + 1,
                ..base()
            },
            "--rr-mps",
        );
        for rr_size in [0, MIN_RR_SIZE - 1, MAX_RR_SIZE + 1] {
            refused(LabOptions { rr_size, ..base() }, "--rr-size");
        }
        // The message size does not matter without RR connections.
        let o = LabOptions {
            rr: 0,
            rr_size: 0,
            ..base()
        };
        assert!(validate(&o).is_ok());
    }

    #[test]
    fn options_of_a_workload_that_does_not_run_are_refused() {
        let no_streams = || LabOptions {
            streams: 0,
            rr: 1,
            ..LabOptions::default()
        };
        for (o, needle) in [
            (
                LabOptions {
                    udp: true,
                    ..no_streams()
                },
                "--streams 0 with --udp: it shapes the iperf3 streams and there are none; \
                 drop it or give --streams N",
            ),
            (
                LabOptions {
                    reverse: true,
                    stream_mbps: 400,
                    ..no_streams()
                },
                "--streams 0 with --reverse, --stream-mbps: they shape the iperf3 streams and \
                 there are none; drop them or give --streams N",
            ),
            (
                LabOptions {
                    rr: 0,
                    rr_mps: 100,
                    ..LabOptions::default()
                },
                "--rr 0 with --rr-mps: it shapes the RR connections and there are none; \
                 drop it or give --rr N",
            ),
            (
                LabOptions {
                    rr: 0,
                    rr_mps: 100,
                    rr_stack: 2,
                    ..LabOptions::default()
                },
                "--rr 0 with --rr-mps, --rr-stack: they shape the RR connections and there \
                 are none; drop them or give --rr N",
            ),
        ] {
            refused(o, needle);
        }
        // The same options with their workload pass.
        let o = LabOptions {
            udp: true,
            reverse: true,
            stream_mbps: 400,
            rr: 0,
            ..LabOptions::default()
        };
        assert!(validate(&o).is_ok());
        assert!(validate(&no_streams()).is_ok());
    }

    #[test]
    fn the_rr_stack_must_exist() {
        refused(
            LabOptions {
                rr_stack: 2,
                ..Default::default()
            },
            "has 1 stack;",
        );
        refused(
            LabOptions {
                rr_stack: 0,
                ..Default::default()
            },
            "--rr-stack",
        );
        refused(
            LabOptions {
                rr_stack: 3,
                sharing: Sharing::Vmac,
                ..Default::default()
            },
            "has 2 stacks",
        );
        for sharing in [Sharing::Vmac, Sharing::Prirouter] {
            let o = LabOptions {
                rr_stack: 2,
                sharing,
                ..Default::default()
            };
            assert!(validate(&o).is_ok(), "{sharing:?}");
        }
    }

    #[test]
    fn fault_rate_is_a_share_below_one() {
        for fault_rate in [-0.1, 1.0, 1.5, f64::NAN] {
            refused(
                LabOptions {
                    fault_rate,
                    ..Default::default()
                },
                "--fault-rate",
            );
        }
        let o = LabOptions {
            fault_rate: 0.01,
            ..Default::default()
        };
        assert!(validate(&o).is_ok());
    }

    #[test]
    fn cpus_must_be_usable_and_listed_once() {
        let allowed = sys::allowed_cpus().expect("affinity");
        let absent = allowed.iter().max().map_or(0, |m| m + 1);
        refused(
            LabOptions {
                cpus: vec![absent],
                ..Default::default()
            },
            &format!(
                "--cpus {absent}: CPU {absent} is not one this process may run on (it may use {})",
                join_cpus(&allowed)
            ),
        );
        refused(
            LabOptions {
                rr_cpus: vec![allowed[0], 5000, 5001],
                ..Default::default()
            },
            &format!(
                "--rr-cpus {},5000,5001: CPUs 5000,5001 are not ones",
                allowed[0]
            ),
        );
        let first = allowed[0];
        refused(
            LabOptions {
                cpus: vec![first, first],
                ..Default::default()
            },
            &format!("--cpus {first},{first}: CPU {first} is listed twice"),
        );
        let o = LabOptions {
            cpus: vec![first],
            ..Default::default()
        };
        assert!(validate(&o).is_ok());
    }

    #[test]
    fn per_cpu_is_refused_where_the_layout_cannot_be_built() {
        // Two CPUs to run on, so only the shape decides.
        let allowed = sys::allowed_cpus().expect("affinity");
        let two = if allowed.len() >= 2 {
            allowed[..2].to_vec()
        } else {
            Vec::new()
        };
        let per_cpu = |o: LabOptions| LabOptions {
            per_cpu: true,
            cpus: two.clone(),
            ..o
        };
        if !two.is_empty() {
            assert!(validate(&per_cpu(LabOptions::default())).is_ok());
            let l2 = per_cpu(LabOptions {
                sharing: Sharing::Layer2,
                ..Default::default()
            });
            assert!(validate(&l2).is_ok());
        }
        for (sharing, name) in [(Sharing::Vmac, "vmac"), (Sharing::Prirouter, "prirouter")] {
            refused(
                per_cpu(LabOptions {
                    sharing,
                    ..Default::default()
                }),
                &format!("--per-cpu with --sharing {name} (2 stacks): the per-CPU layout serves one stack"),
            );
        }
        refused(
            per_cpu(LabOptions {
                inbperf: Inb::DynamicWorkloadq,
                ..Default::default()
            }),
            "--per-cpu with INBPERF DYNAMIC-WORKLOADQ",
        );
        refused(
            per_cpu(LabOptions {
                timer_thread: true,
                ..Default::default()
            }),
            "--per-cpu with --timer-thread",
        );
        refused(
            LabOptions {
                per_cpu: true,
                cpus: vec![allowed[0]],
                ..Default::default()
            },
            &format!("--per-cpu: --cpus {} is one CPU", allowed[0]),
        );
        // Profiles: the stacks are counted once the files are read.
        let from_profiles = per_cpu(LabOptions {
            profiles: vec!["a.prof".into(), "b.prof".into()],
            ..Default::default()
        });
        assert!(per_cpu_conflict(&from_profiles, 2, 1)
            .is_some_and(|m| m.contains("--profile files that define 2 interfaces")));
        assert!(per_cpu_conflict(
            &LabOptions {
                per_cpu: false,
                ..from_profiles
            },
            2,
            2
        )
        .is_none());
    }

    #[test]
    fn a_cpu_list_is_numbers_separated_by_commas_each_once() {
        let parse = |s: &str| s.parse::<CpuList>();
        assert_eq!(parse("0"), Ok(CpuList(vec![0])));
        assert_eq!(parse("3,1, 2"), Ok(CpuList(vec![3, 1, 2])));
        assert_eq!(parse("0,0"), Err(CpuListError::Twice(0)));
        assert_eq!(parse("1,2,1"), Err(CpuListError::Twice(1)));
        assert_eq!(parse(""), Err(CpuListError::Empty));
        assert_eq!(parse("0,,1"), Err(CpuListError::EmptyEntry));
        assert_eq!(parse("0,"), Err(CpuListError::EmptyEntry));
        for bad in ["0-3", "-1", "+1", "x", "1.5"] {
            assert_eq!(
                parse(&format!("0,{bad}")),
                Err(CpuListError::NotANumber(bad.into()))
            );
        }
        assert_eq!(CpuListError::Twice(0).to_string(), "CPU 0 is listed twice");
    }

    #[test]
    fn instance_names_stay_inside_the_socket_directory() {
        for bad in ["", "../x", "a/b", ".hidden", "sp ace", &"x".repeat(65)] {
            assert!(check_instance_name(bad).is_err(), "{bad:?}");
        }
        for good in ["lab", "lab1", "my-lab_2.test"] {
            assert!(check_instance_name(good).is_ok(), "{good:?}");
        }
        refused(
            LabOptions {
                instance: Some("../../etc/x".into()),
                ..Default::default()
            },
            "instance name",
        );
    }
}
