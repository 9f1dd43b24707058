//! Command-line entry points of the live driver (brief "CLI convention"):
//! `softosa lab` ([`LabArgs`], [`run`]) and `softosa display` against a
//! running instance ([`DisplayArgs`], [`run_display`]).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::engine_core;
use crate::lab::{self, CoreKind, CpuList, Given, Inb, LabError, LabOptions, LabResult, Sharing};
use crate::passthrough::Passthrough;
use softosa_engine::config::InterfaceConfig;

/// Run softosa as the adapter between real Linux stacks in network
/// namespaces, drive iperf3 (streams) and sockperf (request/response)
/// through it, and report.
///
/// Needs root, iproute2, iperf3 and sockperf. Everything the lab creates is
/// named `sosa-<pid>...` and removed at the end, on error and on Ctrl-C;
/// leftovers of a crashed run are removed at start.
#[derive(Debug, clap::Args)]
#[command(after_help = LAB_EXAMPLES, allow_negative_numbers = true)]
pub struct LabArgs {
    /// INBPERF of the lab's interfaces: MINLATENCY, BALANCED, MINCPU,
    /// DYNAMIC or DYNAMIC-WORKLOADQ. Default DYNAMIC; with --profile the
    /// profiles' own INBPERF unless this is given.
    #[arg(long, conflicts_with = "compare")]
    pub inbperf: Option<String>,
    /// Run the same workload under each of these INBPERF settings (two or
    /// more, comma separated) and print them side by side.
    #[arg(long, value_delimiter = ',')]
    pub compare: Vec<String>,
    /// Repeat each run this many times (medians are reported with --compare).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// No progress lines: by default a line on standard error announces
    /// each run (setting, repeat, length) as it starts.
    #[arg(short, long)]
    pub quiet: bool,
    /// TCP/IP profiles (plus Policy Agent and TRL files) to activate, one
    /// stack per profile (named after its file, or NAME=FILE), instead of
    /// the configuration the options build. Their interfaces must be IPv4
    /// in one documentation subnet.
    #[arg(long, num_args = 1..)]
    pub profile: Vec<std::path::PathBuf>,
    /// Port sharing: one stack (layer 3), two stacks with VMACs, two stacks
    /// with a PRIROUTER, or one layer-2 stack. (With --profile the
    /// profiles define the stacks.)
    #[arg(long, value_enum, ignore_case = true, default_value_t = Sharing::One, conflicts_with = "profile")]
    pub sharing: Sharing,
    /// Which stack serves the request/response connections (1 or 2; with
    /// --profile, any of the profiles' stacks).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=64))]
    pub rr_stack: u8,
    /// iperf3 TCP streams (client to stack 1).
    #[arg(long, default_value_t = 1)]
    pub streams: usize,
    /// Cap each stream at this rate in Mbit/s (0: unlimited). A capped
    /// stream leaves CPU for the RR connections on a small machine, so
    /// the adapter's timers, not CPU contention, decide their latency.
    #[arg(long, default_value_t = 0)]
    pub stream_mbps: u64,
    /// UDP streams (iperf3 -u, at --stream-mbps or 1000 Mbit/s): they do not
    /// back off, so a paced wire's write queues stay full.
    #[arg(long)]
    pub udp: bool,
    /// sockperf TCP ping-pong connections [default: 2; with --bench 1, the
    /// usual single ping-pong of a latency measurement].
    #[arg(long)]
    pub rr: Option<usize>,
    /// Drive each RR connection with sockperf under-load at this many
    /// messages per second instead of ping-pong (0), every message answered
    /// and timed: the latency of a given transaction rate, not of as many
    /// transactions as the connection can carry.
    #[arg(long, default_value_t = 0)]
    pub rr_mps: u32,
    /// Request/response message size (bytes) [default: 64].
    #[arg(long)]
    pub rr_size: Option<usize>,
    /// Seconds each workload runs (1 to 86400; iperf3 and sockperf count
    /// whole seconds, so a fraction is rounded up).
    #[arg(long, default_value_t = 3.0, allow_negative_numbers = true)]
    pub secs: f64,
    /// Streams flow from the stack to the client (outbound).
    #[arg(long)]
    pub reverse: bool,
    /// Map outbound packets to the four write queues by TOS (QoS policy):
    /// RR traffic is marked TOS 0x80 (queue 1), streams 0x20 (queue 4).
    #[arg(long)]
    pub tos_priority: bool,
    /// Pace softosa's transmissions to the wire at this rate in Mbit/s (0:
    /// unpaced), so outbound priority queues actually fill. Inbound
    /// traffic (client to stack) is not paced.
    #[arg(long, default_value_t = 0)]
    pub wire_mbps: u64,
    /// Set every LAN-idle timer to zero.
    #[arg(long)]
    pub zero_timers: bool,
    /// Turn GLOBALCONFIG SEGMENTATIONOFFLOAD off.
    #[arg(long)]
    pub no_offload: bool,
    /// Share of wire frames dropped as CRC errors (0 up to, not including, 1).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub fault_rate: f64,
    /// Seed of the frame-error injector.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Adaptive spin, at most this many µs: after any frame the data-plane
    /// threads keep polling their sockets and device queues instead of
    /// sleeping; the window doubles when traffic comes back within it,
    /// halves when it runs out, and a spin that loses its CPU stops. The
    /// spinning is in softosa's CPU seconds. Default 0: it did not help on
    /// a shared 2-core VM (see docs/live.md); for machines with spare cores.
    #[arg(long, alias = "busy-poll-us", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub spin_us: u64,
    /// While frames flow (and 20 ms after), hold a 0 µs CPU wake-up latency
    /// request (/dev/cpu_dma_latency): idle CPUs poll instead of halting,
    /// so handing a frame to a task on another CPU costs no vCPU wake-up.
    /// On by default with --bench; the polling shows as "idle CPUs polling".
    #[arg(long, conflicts_with = "no_wake_qos")]
    pub wake_qos: bool,
    /// Do not hold the CPU wake-up latency request (also with --bench).
    #[arg(long)]
    pub no_wake_qos: bool,
    /// One data-plane thread per CPU, each pinned, with its own wire socket
    /// (PACKET_FANOUT_CPU) and device queue, so frames are handed on on the
    /// CPU that sent them. One stack with one input queue on two or more
    /// CPUs only (other shapes, and --timer-thread, are refused).
    #[arg(long, conflicts_with = "no_per_cpu")]
    pub per_cpu: bool,
    /// The normal thread layout (one thread per input queue); the default.
    #[arg(long)]
    pub no_per_cpu: bool,
    /// SCHED_FIFO priority of softosa's threads (0: normal scheduling).
    /// Default 10 (timers served on time under load); with --bench 0, since
    /// timers are zero there and normal scheduling lets the kernel run the
    /// data-plane thread on the CPU of the stack it hands a frame to.
    #[arg(long, value_parser = clap::value_parser!(i32).range(0..=99))]
    pub realtime: Option<i32>,
    /// Nice value (-20..19) of softosa's threads. Needs --realtime 0 (the
    /// default with --bench): SCHED_FIFO threads have no nice value, so it
    /// is refused with a real-time priority.
    #[arg(long, default_value_t = 0, allow_hyphen_values = true,
          value_parser = clap::value_parser!(i32).range(-20..=19))]
    pub nice: i32,
    /// Run softosa's data-plane threads only on these CPUs (numbers
    /// separated by commas, each once, e.g. 0,2).
    /// With --bench on a machine of two or more CPUs the default is the last
    /// one: an adapter has a processor of its own, and the stacks keep the
    /// others.
    #[arg(long, value_name = "LIST")]
    pub cpus: Option<CpuList>,
    /// Run the RR clients and servers (sockperf) only on these CPUs, in
    /// softosa's run and in the plain veth reference alike. With --bench
    /// the default is every CPU but softosa's, so a ping-pong never shares
    /// a CPU with the data-plane thread and the veth pair's client and
    /// server sit together, its best case.
    #[arg(long, value_name = "LIST")]
    pub rr_cpus: Option<CpuList>,
    /// Serve the engine's timers on a thread of their own instead of the
    /// wire thread: more precise timers under load, but a presentation the
    /// timer makes costs one more thread wake-up (measured: about 30 µs
    /// more round trip on a busy 2-core VM), so it is off by default.
    #[arg(long)]
    pub timer_thread: bool,
    /// Which core drives the plane (passthrough measures plumbing only).
    #[arg(long, value_enum, ignore_case = true, default_value_t = CoreKind::Engine)]
    pub core: CoreKind,
    /// Open a control socket /run/softosa/NAME.sock for `softosa display`.
    #[arg(long)]
    pub instance: Option<String>,
    /// Serve Prometheus metrics on 127.0.0.1:PORT.
    #[arg(long)]
    pub metrics_port: Option<u16>,
    /// Speed benchmark: zero timers, a plain veth pair measured in the same
    /// run, throughput ratio and added round trip (p50, p99) reported.
    /// Streams first, then one RR connection. Runs with --wake-qos (held for
    /// the veth pair too), --realtime 0 and softosa's threads on the last CPU
    /// unless told otherwise.
    #[arg(long)]
    pub bench: bool,
    /// Only remove leftovers of runs whose process is gone: namespaces
    /// named sosa-<pid in base 36>_..., anything still running in them, and
    /// control sockets under /run/softosa nobody answers on. Takes no other
    /// option (it runs nothing).
    #[arg(long, exclusive = true)]
    pub clean: bool,
    /// Print results as JSON.
    #[arg(long)]
    pub json: bool,
    /// Structured logs as JSON lines on stderr.
    #[arg(long)]
    pub log_json: bool,
    /// Log filter (tracing-subscriber EnvFilter syntax), e.g. warn or
    /// softosa_live=debug.
    #[arg(long, default_value = "warn", value_parser = log_filter)]
    pub log: String,
}

/// Examples shown under `softosa lab --help` (the subcommand's one-line
/// description comes from the CLI crate, so they cannot live in the doc
/// comment).
pub const LAB_EXAMPLES: &str = "\
Examples:
  softosa lab                                   1 stream + 2 RR connections, DYNAMIC, 3 s
  softosa lab --streams 1 --rr 4 --secs 5
  softosa lab --rr 4 --rr-mps 5000              RR at 5000 transactions/s each (sockperf under-load)
  softosa lab --compare BALANCED,DYNAMIC,DYNAMIC-WORKLOADQ --repeat 3
  softosa lab --sharing vmac --rr-stack 2       two stacks on one port, RR to stack 2
  softosa lab --reverse --udp --stream-mbps 400 --wire-mbps 200 --tos-priority
  softosa lab --fault-rate 0.001                drop 0.1% of wire frames as CRC errors
  softosa lab --profile crates/live/examples/profiles/lab-share-a.prof \\
              crates/live/examples/profiles/lab-share-b.prof --rr-stack 2
  softosa lab --instance lab1 --metrics-port 9464 --secs 60
      then: softosa display tuning --instance lab1 [--intf OSAQDIO1] [--format json]
            curl http://127.0.0.1:9464/metrics
  softosa lab --bench                           speed versus a plain veth pair
  softosa lab --clean                           remove leftovers of a killed run";

/// Show a z/OS display of a running instance over its control socket.
#[derive(Debug, clap::Args)]
pub struct DisplayArgs {
    /// Which display: the z/OS ones (TUNING, DEVLINKS, OSAINFO, TRLE,
    /// STATS, NETSTAT-ALL, CONFIG, DROPS, ...) or the live plane's own
    /// (QUEUES, COUNTERS, BULK, PLACEMENT, DRIVER).
    pub kind: String,
    /// Instance name given to `softosa lab --instance`.
    #[arg(long, default_value = "lab")]
    pub instance: String,
    /// Control socket path (overrides --instance).
    #[arg(long)]
    pub socket: Option<std::path::PathBuf>,
    /// JSON instead of the z/OS layout.
    #[arg(long)]
    pub json: bool,
    /// What to show, as for `softosa display --profile`: an interface
    /// (`NAME` or `STACK/NAME`) for DEVLINKS, OSAINFO, TUNING and QUEUES; a
    /// TRLE or interface for TRLE; a stack or interface for the Netstat
    /// displays. Omit it to show everything.
    #[arg(long = "intf", value_name = "NAME")]
    pub target: Option<String>,
    /// OSAINFO's MAX=: the lines of each interface's report to show (1 to
    /// 65533), or `*` for all; default 200, as on z/OS.
    #[arg(long, value_name = "LINES|*", value_parser = softosa_display::cli::parse_max)]
    pub max: Option<softosa_display::cli::OsaInfoMax>,
}

/// Why `filter` is not a log filter, in words for after the option and
/// value (clap's "invalid value ... for '--log'" and [`init_logging`]).
fn parse_filter(filter: &str) -> Result<tracing_subscriber::EnvFilter, String> {
    tracing_subscriber::EnvFilter::try_new(filter).map_err(|e| {
        format!(
            "not a log filter ({e}); give a level (error, warn, info, debug, trace) or \
             TARGET=LEVEL pairs separated by commas, e.g. warn,softosa_live=debug"
        )
    })
}

/// clap's parser of `--log`: a filter tracing-subscriber accepts, so a
/// typo is a usage error instead of a run with other logging than asked.
fn log_filter(s: &str) -> Result<String, String> {
    parse_filter(s).map(|_| s.to_string())
}

/// Set up tracing (text or JSON) once. A filter that does not parse is
/// refused as a usage error naming `--log` (the command line's parser
/// refuses it first; this covers callers that build [`LabArgs`] otherwise).
pub fn init_logging(filter: &str, json: bool) -> Result<(), LabError> {
    let f =
        parse_filter(filter).map_err(|why| LabError::Usage(format!("--log {filter:?}: {why}")))?;
    // Colour only on a terminal: escape codes in a redirected log are noise.
    let b = tracing_subscriber::fmt()
        .with_env_filter(f)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    // Already set up (a second run in one process): the first stands.
    let _ = if json {
        b.json().try_init()
    } else {
        b.try_init()
    };
    Ok(())
}

fn options(a: &LabArgs, inb: Inb) -> LabOptions {
    let (cpus, rr_cpus) = placement(a);
    LabOptions {
        sharing: a.sharing,
        inbperf: inb,
        core: a.core,
        streams: a.streams,
        stream_mbps: a.stream_mbps,
        udp: a.udp,
        rr: a.rr.unwrap_or(if a.bench { 1 } else { 2 }),
        rr_size: a.rr_size.unwrap_or(DEFAULT_RR_SIZE),
        rr_mps: a.rr_mps,
        secs: a.secs,
        reverse: a.reverse,
        rr_stack: usize::from(a.rr_stack),
        tos_priority: a.tos_priority,
        wire_mbps: a.wire_mbps,
        zero_timers: a.zero_timers || a.bench,
        segmentation_offload: !a.no_offload,
        fault_rate: a.fault_rate,
        seed: a.seed,
        busy_poll_us: a.spin_us,
        wake_qos: (a.wake_qos || a.bench) && !a.no_wake_qos,
        per_cpu: a.per_cpu && !a.no_per_cpu,
        realtime_prio: a.realtime.unwrap_or(if a.bench { 0 } else { 10 }),
        nice: a.nice,
        cpus,
        rr_cpus,
        timer_thread: a.timer_thread,
        instance: a.instance.clone(),
        metrics_port: a.metrics_port,
        reference: a.bench,
        sequential: a.bench,
        profiles: a.profile.clone(),
        profile_inbperf_override: !a.compare.is_empty() || a.inbperf.is_some(),
        plan: None,
        mtu: 1500,
    }
}

/// Where softosa's threads and the RR tools run: `--cpus` and `--rr-cpus`
/// as given, with the benchmark's defaults for what is not. The benchmark
/// gives softosa's threads the last CPU this process may use, when there
/// are at least two, and the RR tools the others (for the veth pair too).
/// The data-plane thread then never competes with a stack's task for its
/// CPU, and with the wake-up latency request a hand-off to the other CPU
/// costs no vCPU wake-up. Measured against the per-CPU layout
/// (docs/live.md): higher throughput and a shorter round trip on a 2-vCPU
/// VM.
fn placement(a: &LabArgs) -> (Vec<usize>, Vec<usize>) {
    let given = |l: &Option<CpuList>| l.as_ref().map(|l| l.0.clone()).unwrap_or_default();
    let (mut cpus, mut rr_cpus) = (given(&a.cpus), given(&a.rr_cpus));
    if !a.bench {
        return (cpus, rr_cpus);
    }
    let allowed = crate::sys::allowed_cpus().unwrap_or_default();
    if cpus.is_empty() && !a.per_cpu && allowed.len() >= 2 {
        cpus = allowed.last().copied().into_iter().collect();
    }
    if rr_cpus.is_empty() && !cpus.is_empty() {
        rr_cpus = allowed.into_iter().filter(|c| !cpus.contains(c)).collect();
    }
    (cpus, rr_cpus)
}

/// Run one lab configuration with the selected core.
pub fn run_lab(o: &LabOptions) -> Result<LabResult, LabError> {
    lab::validate(o)?;
    let label = if o.zero_timers {
        format!("{} (timers 0)", o.inbperf.label())
    } else {
        o.inbperf.label().to_string()
    };
    match o.core {
        CoreKind::Engine => engine_core::run_lab(o, &label),
        CoreKind::Passthrough => {
            let n = if matches!(o.sharing, Sharing::Vmac | Sharing::Prirouter) {
                2
            } else {
                1
            };
            let macs = (0..n).map(|i| lab::VMAC[i]).collect();
            lab::run_once(o, Passthrough::new(macs), "passthrough")
        }
    }
}

/// The RR message size used where `--rr-size` is not given.
const DEFAULT_RR_SIZE: usize = 64;

/// `--rr 0` with an option that only the RR connections use (beside
/// `--rr-mps` and `--rr-stack`, which [`lab::validate`] refuses): given by
/// hand, it would be dropped without a word.
fn check_rr_options(a: &LabArgs) -> Result<(), LabError> {
    if a.rr != Some(0) {
        return Ok(());
    }
    let Some(given) = Given::of(&[
        (a.rr_size.is_some(), "--rr-size"),
        (a.rr_cpus.is_some(), "--rr-cpus"),
    ]) else {
        return Ok(());
    };
    Err(LabError::Usage(format!(
        "--rr 0 with {given}: {} the RR connections and there are none; drop {} or give --rr N",
        given.agree("it shapes", "they shape"),
        given.agree("it", "them"),
    )))
}

/// `--core passthrough` is a bare bridge: refuse the options only the
/// engine acts on instead of running without them.
fn check_core(a: &LabArgs) -> Result<(), LabError> {
    if a.core != CoreKind::Passthrough {
        return Ok(());
    }
    let Some(given) = Given::of(&[
        (a.inbperf.is_some(), "--inbperf"),
        (!a.compare.is_empty(), "--compare"),
        (!a.profile.is_empty(), "--profile"),
        (a.zero_timers, "--zero-timers"),
        (a.tos_priority, "--tos-priority"),
        (a.no_offload, "--no-offload"),
        (a.timer_thread, "--timer-thread"),
    ]) else {
        return Ok(());
    };
    Err(LabError::Usage(format!(
        "--core passthrough with {given}: the passthrough core is a bare layer-2 bridge with \
         no INBPERF, timers, QoS mapping, segmentation offload or profile, so {} would change \
         nothing; drop {} or use --core engine",
        given.agree("it", "they"),
        given.agree("it", "them"),
    )))
}

/// `--profile`: read the files before anything is built (and before a
/// comparison's first run), so that a profile softosa refuses, or two of
/// one name, stop the lab before it starts rather than at its first run;
/// and whether the stacks they define have the `--rr-stack` asked for, and
/// fit the `--per-cpu` layout under every setting to run (usage errors,
/// as they are without profiles). Without either option one setting's
/// reading says all.
fn check_profiles(a: &LabArgs, modes: &[Inb]) -> Result<(), LabError> {
    if a.profile.is_empty() || a.core != CoreKind::Engine {
        return Ok(());
    }
    let option = if a.compare.is_empty() {
        "--inbperf"
    } else {
        "--compare"
    };
    let Some(first) = modes.first() else {
        return Ok(());
    };
    // Whether an interface has a VMAC or OLM does not depend on the
    // setting: one reading says it for all.
    let ifaces = engine_core::profile_interfaces(&options(a, *first))?;
    let names = |pick: fn(&InterfaceConfig) -> bool| -> Vec<String> {
        ifaces
            .iter()
            .filter(|i| pick(i))
            .map(|i| i.name.clone())
            .collect()
    };
    // z/OS refuses WORKLOADQ without a VMAC, so the lab gives it only to
    // the interfaces that have one: say which run without it.
    if modes.contains(&Inb::DynamicWorkloadq) {
        unreached(
            &names(|i| i.vmac.is_none()),
            ifaces.len(),
            a.quiet,
            |n| {
                format!(
                    "{option} DYNAMIC-WORKLOADQ: inbound workload queueing needs a VMAC, and no \
                     interface of the profiles has one ({n}), so the run would be DYNAMIC under \
                     another name; add VMAC to the INTERFACE statement"
                )
            },
            |n| {
                format!("DYNAMIC WORKLOADQ runs as DYNAMIC on {n} (no VMAC, which WORKLOADQ needs)")
            },
        )?;
    }
    // OLM forces DYNAMIC: a static setting does not reach those interfaces.
    let fixed: Vec<&str> = modes
        .iter()
        .filter(|m| !matches!(m, Inb::Dynamic | Inb::DynamicWorkloadq))
        .map(|m| m.label())
        .collect();
    if !fixed.is_empty() {
        unreached(
            &names(|i| i.olm),
            ifaces.len(),
            a.quiet,
            |n| {
                format!(
                    "{option} {}: every interface of the profiles has OLM ({n}), which forces \
                     INBPERF DYNAMIC, so the run would be DYNAMIC under another name; code NOOLM \
                     to try a static setting",
                    fixed.join(",")
                )
            },
            |n| {
                format!(
                    "{} runs as DYNAMIC on {n} (OLM forces DYNAMIC)",
                    fixed.join(", ")
                )
            },
        )?;
    }
    let modes = if !a.per_cpu && a.rr_stack == 1 {
        &modes[..modes.len().min(1)]
    } else {
        modes
    };
    for m in modes {
        let o = options(a, *m);
        let plan = engine_core::profile_plan(&o)?;
        if let Some(why) = lab::rr_stack_conflict(&o, plan.addrs.len()) {
            return Err(LabError::Usage(why));
        }
        if !a.per_cpu {
            continue;
        }
        if let Some(why) = lab::per_cpu_conflict(&o, plan.addrs.len(), plan.queues) {
            return Err(LabError::Usage(why));
        }
    }
    Ok(())
}

/// Interfaces (by name) that a setting does not reach, of `all`: a usage
/// error (`refuse`) when that is every one, since the run would be another
/// setting under this one's name; else a note, unless quiet.
fn unreached(
    names: &[String],
    all: usize,
    quiet: bool,
    refuse: impl FnOnce(&str) -> String,
    note: impl FnOnce(&str) -> String,
) -> Result<(), LabError> {
    let list = names.join(", ");
    if names.len() == all && all > 0 {
        return Err(LabError::Usage(refuse(&list)));
    }
    if !names.is_empty() && !quiet {
        softosa_display::note!("softosa lab: {}", note(&list));
    }
    Ok(())
}

/// The INBPERF settings to run: `--inbperf`, or `--compare` (two or more,
/// each once).
fn modes(a: &LabArgs) -> Result<Vec<Inb>, LabError> {
    // The option's name goes in front, so the message says which input.
    let named = |opt: &str, e: LabError| LabError::Usage(format!("{opt}: {e}"));
    if a.compare.is_empty() {
        let m = a.inbperf.as_deref().unwrap_or("DYNAMIC");
        return Ok(vec![Inb::parse(m).map_err(|e| named("--inbperf", e))?]);
    }
    let modes: Vec<Inb> = a
        .compare
        .iter()
        .map(|m| Inb::parse(m).map_err(|e| named("--compare", e)))
        .collect::<Result<_, _>>()?;
    if modes.len() < 2 {
        return Err(LabError::Usage(format!(
            "--compare {}: name two or more settings to compare (for one, use --inbperf {})",
            a.compare.join(","),
            a.compare.join(",")
        )));
    }
    for (k, m) in modes.iter().enumerate() {
        if modes[..k].contains(m) {
            return Err(LabError::Usage(format!(
                "--compare {}: {} is listed twice (use --repeat N to run a setting N times)",
                a.compare.join(","),
                m.label()
            )));
        }
    }
    Ok(modes)
}

/// The exit status after an interruption: 128 + the signal's number, as a
/// shell reports a command a signal ended (130 for Ctrl-C, 143 for
/// SIGTERM, 129 for SIGHUP), so a supervisor can tell them apart.
pub fn interrupted_status() -> u8 {
    let sig = crate::interrupting_signal().unwrap_or(libc::SIGINT);
    u8::try_from(128 + sig).unwrap_or(130)
}

/// Ctrl-C (or SIGTERM/SIGHUP): the run has unwound and removed what it
/// made; say so and exit with [`interrupted_status`].
fn interrupted_exit() -> ExitCode {
    let name = match crate::interrupting_signal() {
        Some(libc::SIGTERM) => "SIGTERM",
        Some(libc::SIGHUP) => "SIGHUP",
        _ => "Ctrl-C (SIGINT)",
    };
    softosa_display::note!(
        "softosa: interrupted by {name}; the lab's namespaces, devices and workloads are removed"
    );
    ExitCode::from(interrupted_status())
}

/// `softosa lab`.
pub fn run(a: LabArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    init_logging(&a.log, a.log_json)?;
    crate::install_signal_handlers();
    if a.clean {
        if !crate::sys::is_root() {
            return Err(LabError::NotRoot.into());
        }
        let namespaces = crate::topo::clean_leftovers(false);
        for n in &namespaces {
            println!("removed namespace {n}");
        }
        let dir = std::path::Path::new(crate::control::SOCKET_DIR);
        let sockets = crate::control::clean_stale_sockets(dir);
        for p in &sockets {
            println!("removed stale control socket {}", p.display());
        }
        if namespaces.is_empty() && sockets.is_empty() {
            println!("nothing to clean: no leftovers of killed lab runs");
        }
        return Ok(ExitCode::SUCCESS);
    }
    check_core(&a)?;
    check_rr_options(&a)?;
    let modes = modes(&a)?;
    for m in &modes {
        lab::validate(&options(&a, *m))?;
    }
    lab::preflight(a.streams > 0 || a.bench, a.rr != Some(0))?;
    check_profiles(&a, &modes)?;
    // Another lab holding the instance name or the metrics port refuses
    // this one before its first run is announced (each run binds them
    // again for itself).
    let sock = a.instance.as_ref().map(|i| crate::control::socket_path(i));
    drop(crate::control::Listeners::bind(
        sock.as_deref(),
        a.metrics_port,
    )?);
    for n in crate::topo::clean_leftovers(false) {
        softosa_display::note!("removed leftover namespace {n} of a crashed run");
    }
    crate::control::clean_stale_sockets(std::path::Path::new(crate::control::SOCKET_DIR));
    let mut results = Vec::new();
    // A failure or Ctrl-C in a later setting keeps what finished: those
    // results are printed before the error.
    let mut stopped: Option<LabError> = None;
    let repeats = a.repeat.max(1);
    let total = modes.len() * repeats as usize;
    'modes: for (i, m) in modes.iter().enumerate() {
        let mut runs = Vec::new();
        for rep in 0..repeats {
            let r = if crate::interrupted() {
                Err(LabError::Interrupted)
            } else {
                let o = options(&a, *m);
                if !a.quiet {
                    let k = i * repeats as usize + rep as usize + 1;
                    softosa_display::note!("{}", progress_line(k, total, &o, rep + 1, repeats));
                }
                run_lab(&o)
            };
            match r {
                Ok(r) => runs.push(r),
                Err(e) => {
                    stopped = Some(e);
                    break 'modes;
                }
            }
        }
        results.push(lab::median_result(runs));
    }
    if !results.is_empty() {
        print_results(&a, &results)?;
    }
    match stopped {
        Some(LabError::Interrupted) => return Ok(interrupted_exit()),
        Some(e) => {
            if !results.is_empty() {
                softosa_display::note!("softosa: the settings above finished; the next one failed");
            }
            return Err(e.into());
        }
        None => {}
    }
    let ok = results.iter().all(|r| r.accounting.balanced());
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        softosa_display::note!("frame accounting does not balance");
        ExitCode::FAILURE
    })
}

/// The line announcing run `k` of `total` (the `rep`-th of `repeats` of
/// one setting): a lab run is seconds to minutes of real time, and a
/// comparison several of them, with nothing else printed until the end.
fn progress_line(k: usize, total: usize, o: &LabOptions, rep: u32, repeats: u32) -> String {
    let setting = match o.core {
        // Without --inbperf or --compare each interface runs its own.
        CoreKind::Engine if !o.profiles.is_empty() && !o.profile_inbperf_override => {
            "INBPERF of the profiles"
        }
        CoreKind::Engine => o.inbperf.label(),
        CoreKind::Passthrough => "passthrough",
    };
    let again = if repeats > 1 {
        format!(", repeat {rep} of {repeats}")
    } else {
        String::new()
    };
    // The workloads run whole seconds (see --secs).
    let secs = o.secs.ceil();
    let left = (total - k + 1) as f64 * secs;
    format!(
        "softosa lab: run {k} of {total}: {setting}{again}, {secs} s \
         (at least {left} s of runs left)"
    )
}

fn print_results(a: &LabArgs, results: &[LabResult]) -> Result<(), serde_json::Error> {
    if a.json {
        println!("{}", serde_json::to_string_pretty(results)?);
    } else {
        for r in results {
            print!("{}", lab::report(r));
        }
        if results.len() > 1 {
            print!("\n{}", lab::compare_table(results));
        }
        if a.bench {
            for r in results {
                print!("{}", lab::bench_summary(r));
            }
        }
    }
    Ok(())
}

/// Why `softosa display` got no answer from a running lab. The message
/// speaks of the option the user gave: an instance name, or a socket path.
#[derive(Debug, thiserror::Error)]
pub enum ReachError {
    #[error(
        "no lab named {name:?} is running (there is no {}); {}",
        path.display(),
        running_hint(.running)
    )]
    NotRunning {
        name: String,
        path: PathBuf,
        running: Vec<String>,
    },
    #[error(
        "--socket: there is no {}; a lab opens {}/NAME.sock while it runs with \
         --instance NAME; {}",
        path.display(),
        crate::control::SOCKET_DIR,
        running_hint(.running)
    )]
    NoSocket { path: PathBuf, running: Vec<String> },
    #[error(
        "{what}: {} is not a socket; a lab's control socket is {}/NAME.sock, made while it \
         runs with --instance NAME",
        path.display(),
        crate::control::SOCKET_DIR
    )]
    NotASocket { what: String, path: PathBuf },
    #[error(
        "{what}: nobody answers on {}: the lab that opened it is gone (a killed run left \
         its socket; `softosa lab --clean` removes it)",
        path.display()
    )]
    Gone { what: String, path: PathBuf },
    #[error("{what}: cannot ask the lab at {}: {source}", path.display())]
    Io {
        what: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What to do when the lab asked for is not there: the labs that are
/// running, or how to start one.
fn running_hint(running: &[String]) -> String {
    if running.is_empty() {
        "no lab is running now; start one with `softosa lab --instance NAME --secs 60` \
         and ask while it runs"
            .into()
    } else {
        format!(
            "running now: {} (ask one with --instance NAME)",
            running.join(", ")
        )
    }
}

/// The [`ReachError`] for a failed request to `path` (`--socket` if
/// `socket`, else the socket of instance `name`).
fn reach_error(e: std::io::Error, path: PathBuf, socket: bool, name: &str) -> ReachError {
    use std::os::unix::fs::FileTypeExt;
    let running =
        || crate::control::running_instances(std::path::Path::new(crate::control::SOCKET_DIR));
    let what = if socket {
        "--socket".to_string()
    } else {
        format!("lab {name:?}")
    };
    match e.kind() {
        std::io::ErrorKind::NotFound if socket => ReachError::NoSocket {
            path,
            running: running(),
        },
        std::io::ErrorKind::NotFound => ReachError::NotRunning {
            name: name.to_string(),
            path,
            running: running(),
        },
        // Connecting to a file that is not a socket is refused too.
        std::io::ErrorKind::ConnectionRefused
            if std::fs::metadata(&path).is_ok_and(|m| !m.file_type().is_socket()) =>
        {
            ReachError::NotASocket { what, path }
        }
        std::io::ErrorKind::ConnectionRefused => ReachError::Gone { what, path },
        _ => ReachError::Io {
            what,
            path,
            source: e,
        },
    }
}

/// `value` of option `what` as one word of a control request, which is
/// split at blanks: a usage error if it has any.
fn one_word(what: &str, value: &str) -> Result<(), LabError> {
    if !value.is_empty() && !value.contains(char::is_whitespace) {
        return Ok(());
    }
    Err(LabError::Usage(format!(
        "{what} {value:?}: a running lab is asked in words separated by blanks, so this \
         cannot be sent; give one word (display, interface, TRLE and stack names have no \
         blanks)"
    )))
}

/// Ask a running instance for the display `a` names; the display's text.
/// Errors: [`ReachError`] when nobody answers, [`crate::control::Refusal`]
/// when the lab does not show it (a usage error if it was asked for what
/// the lab does not have), [`LabError::Usage`] for what cannot be asked.
pub fn ask_display(a: &DisplayArgs) -> Result<String, Box<dyn std::error::Error>> {
    let path = a
        .socket
        .clone()
        .unwrap_or_else(|| crate::control::socket_path(&a.instance));
    if a.socket.is_none() {
        lab::check_instance_name(&a.instance)?;
    }
    one_word("display", &a.kind)?;
    // Blank, `*` or absent is everything, as for a profile's displays.
    let target = softosa_display::narrowing(a.target.as_deref());
    if let Some(t) = target {
        one_word("--intf", t)?;
    }
    let req = crate::control::DisplayRequest {
        kind: a.kind.clone(),
        json: a.json,
        target: target.map(str::to_string),
        max: a.max,
    };
    let reply = crate::control::request(&path, &req.line())
        .map_err(|e| reach_error(e, path.clone(), a.socket.is_some(), &a.instance))?;
    Ok(crate::control::decode_reply(&req, &reply)?)
}

/// `softosa display KIND [--intf NAME]` against a running instance: the
/// display on standard output, or an error for the front end to report.
pub fn run_display(a: DisplayArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let text = ask_display(&a)?;
    softosa_display::cli::write_stdout(&text)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, clap::Parser)]
    struct T {
        #[command(flatten)]
        lab: LabArgs,
    }

    fn args(a: &[&str]) -> Result<LabArgs, clap::Error> {
        T::try_parse_from(std::iter::once("lab").chain(a.iter().copied())).map(|t| t.lab)
    }

    fn modes_of(a: &[&str]) -> Result<Vec<Inb>, String> {
        modes(&args(a).map_err(|e| e.to_string())?).map_err(|e| e.to_string())
    }

    #[test]
    fn a_stack_the_profiles_do_not_define_is_a_usage_error() {
        let iwq = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/profiles/lab-iwq.prof"
        );
        let a = args(&["--profile", iwq, "--rr-stack", "2"]).expect("args");
        match check_profiles(&a, &[Inb::Dynamic]) {
            Err(LabError::Usage(m)) => {
                assert_eq!(m, "--rr-stack 2: the profiles define 1 stack");
            }
            other => panic!("expected a usage error, got {other:?}"),
        }
        // With no RR connection there is nothing for it to choose.
        let a = args(&["--profile", iwq, "--rr", "0", "--rr-stack", "1"]).expect("args");
        assert!(check_profiles(&a, &[Inb::Dynamic]).is_ok());
        let a = args(&["--profile", iwq]).expect("args");
        assert!(check_profiles(&a, &[Inb::Dynamic]).is_ok());
    }

    /// Two profiles of one file name stop the lab before its first run,
    /// with no other option asking for the profiles to be read early.
    #[test]
    fn two_profiles_of_one_name_are_refused_before_the_first_run() {
        let iwq = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/profiles/lab-iwq.prof"
        );
        let dir = std::env::temp_dir().join(format!("sosa-clash-{}", std::process::id()));
        let files: Vec<std::path::PathBuf> = ["a", "b"]
            .iter()
            .map(|d| dir.join(d).join("tcpip.prof"))
            .collect();
        for f in &files {
            if let Some(parent) = f.parent() {
                std::fs::create_dir_all(parent).expect("temp dir");
            }
            std::fs::copy(iwq, f).expect("copy profile");
        }
        let (one, two) = (files[0].to_string_lossy(), files[1].to_string_lossy());
        let a = args(&["--profile", &one, "--profile", &two]).expect("args");
        let r = check_profiles(&a, &[Inb::Dynamic, Inb::Balanced]);
        let _ = std::fs::remove_dir_all(&dir);
        match r {
            Err(LabError::Usage(m)) => assert!(m.starts_with("two stacks are named TCPIP"), "{m}"),
            other => panic!("expected a usage error, got {other:?}"),
        }
    }

    /// OLM forces DYNAMIC: a static INBPERF for a lab whose every
    /// interface has OLM would be DYNAMIC under another name.
    #[test]
    fn a_static_setting_for_olm_interfaces_is_refused() {
        let dir = std::env::temp_dir().join(format!("sosa-olm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let p = dir.join("olm.prof");
        std::fs::write(
            &p,
            "INTERFACE OLM1 DEFINE IPAQENET PORTNAME LABPORT IPADDR 192.0.2.10/24 \
             INBPERF DYNAMIC OLM\nSTART OLM1\n",
        )
        .expect("write profile");
        let file = p.to_string_lossy().into_owned();
        let cases = [
            (vec!["--inbperf", "BALANCED"], Some("--inbperf BALANCED")),
            (
                vec!["--compare", "MINCPU,BALANCED,DYNAMIC"],
                Some("--compare MINCPU,BALANCED"),
            ),
            (vec!["--inbperf", "DYNAMIC"], None),
        ];
        let mut results = Vec::new();
        for (opts, _) in &cases {
            let mut v = vec!["--profile", &file];
            v.extend(opts.iter().copied());
            let a = args(&v).expect("args");
            let m = modes(&a).expect("modes");
            results.push(check_profiles(&a, &m));
        }
        let _ = std::fs::remove_dir_all(&dir);
        for ((opts, refused), r) in cases.iter().zip(results) {
            match (refused, r) {
                (Some(start), Err(LabError::Usage(m))) => {
                    assert!(m.starts_with(start), "{opts:?}: {m}");
                    assert!(m.contains("OLM1") && m.contains("forces"), "{m}");
                }
                (None, Ok(())) => {}
                (_, other) => panic!("{opts:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_help_examples_are_whole_command_lines() {
        // A line clap would wrap, or a `\` the string literal swallowed,
        // splits a command in two on the screen.
        for l in LAB_EXAMPLES.lines() {
            assert!(l.chars().count() <= 100, "wrapped by clap: {l:?}");
        }
        let two =
            "lab-share-a.prof \\\n              crates/live/examples/profiles/lab-share-b.prof";
        assert!(LAB_EXAMPLES.contains(two), "{LAB_EXAMPLES}");
    }

    #[test]
    fn each_run_is_announced_with_what_is_left() {
        let a = args(&[
            "--compare",
            "BALANCED,DYNAMIC",
            "--repeat",
            "3",
            "--secs",
            "2.5",
        ])
        .expect("args");
        let o = options(&a, Inb::Dynamic);
        assert_eq!(
            progress_line(4, 6, &o, 1, 3),
            "softosa lab: run 4 of 6: DYNAMIC, repeat 1 of 3, 3 s (at least 9 s of runs left)"
        );
        let one = options(&args(&[]).expect("args"), Inb::MinLatency);
        assert_eq!(
            progress_line(1, 1, &one, 1, 1),
            "softosa lab: run 1 of 1: MINLATENCY, 3 s (at least 3 s of runs left)"
        );
        // From profiles, each interface runs its own INBPERF unless one is
        // given for all.
        let own = options(&args(&["--profile", "a.prof"]).expect("args"), Inb::Dynamic);
        assert_eq!(
            progress_line(1, 1, &own, 1, 1),
            "softosa lab: run 1 of 1: INBPERF of the profiles, 3 s (at least 3 s of runs left)"
        );
        let given = args(&["--profile", "a.prof", "--inbperf", "BALANCED"]).expect("args");
        let given = options(&given, Inb::Balanced);
        assert!(progress_line(1, 1, &given, 1, 1).contains("run 1 of 1: BALANCED, 3 s"));
        assert!(args(&["-q"]).expect("args").quiet);
    }

    #[test]
    fn the_benchmark_gives_softosa_the_last_cpu_and_one_ping_pong() {
        let o = options(&args(&["--bench"]).unwrap(), Inb::Dynamic);
        assert_eq!(o.rr, 1);
        assert!(!o.per_cpu);
        assert!(o.reference && o.sequential && o.zero_timers && o.wake_qos);
        let allowed = crate::sys::allowed_cpus().unwrap();
        if allowed.len() >= 2 {
            let last = *allowed.last().unwrap();
            assert_eq!(o.cpus, vec![last]);
            // The ping-pongs run on the others, for softosa and veth alike.
            assert_eq!(o.rr_cpus, allowed[..allowed.len() - 1].to_vec());
        } else {
            assert!(o.cpus.is_empty() && o.rr_cpus.is_empty());
        }
        // What the user says wins.
        let o = options(
            &args(&["--bench", "--rr", "3", "--cpus", "0"]).unwrap(),
            Inb::Dynamic,
        );
        assert_eq!((o.rr, o.cpus.clone()), (3, vec![0]));
        let o = options(
            &args(&["--bench", "--cpus", "0", "--rr-cpus", "0"]).unwrap(),
            Inb::Dynamic,
        );
        assert_eq!(o.rr_cpus, vec![0]);
        let o = options(&args(&["--bench", "--per-cpu"]).unwrap(), Inb::Dynamic);
        assert!(o.per_cpu && o.cpus.is_empty() && o.rr_cpus.is_empty());
        // Outside the benchmark: two connections, no pinning.
        let o = options(&args(&[]).unwrap(), Inb::Dynamic);
        assert_eq!((o.rr, o.per_cpu, o.cpus.is_empty()), (2, false, true));
        assert!(o.rr_cpus.is_empty());
    }

    #[test]
    fn a_negative_count_is_named_as_a_bad_value() {
        // Not "unexpected argument '-1'", as if it were an unknown flag.
        for (flag, v) in [("--rr", "-1"), ("--streams", "-2"), ("--rr-mps", "-5")] {
            let e = args(&[flag, v]).unwrap_err().to_string();
            assert!(
                e.contains(&format!("invalid value '{v}' for '{flag}")),
                "{e}"
            );
        }
        assert_eq!(args(&["--nice", "-5"]).unwrap().nice, -5);
    }

    #[test]
    fn compare_needs_two_distinct_known_settings() {
        assert_eq!(
            modes_of(&["--compare", "BALANCED,dynamic-workloadq"]),
            Ok(vec![Inb::Balanced, Inb::DynamicWorkloadq])
        );
        assert_eq!(modes_of(&[]), Ok(vec![Inb::Dynamic]));
        let one = modes_of(&["--compare", "DYNAMIC"]).unwrap_err();
        assert!(one.contains("two or more"), "{one}");
        let dup = modes_of(&["--compare", "DYNAMIC,BALANCED,dynamic"]).unwrap_err();
        assert!(dup.contains("listed twice"), "{dup}");
        let bad = modes_of(&["--compare", "DYNAMIC,FAST"]).unwrap_err();
        assert!(bad.contains("unknown INBPERF \"FAST\""), "{bad}");
        let bad = modes_of(&["--inbperf", "FAST"]).unwrap_err();
        assert!(bad.contains("--inbperf: unknown INBPERF \"FAST\""), "{bad}");
    }

    #[test]
    fn option_errors_are_usage_errors() {
        // The front end exits 2 for these (usage), 1 for input or run errors.
        for bad in [
            &["--secs", "0"][..],
            &["--inbperf", "FAST"],
            &["--compare", "DYNAMIC"],
            &["--compare", "DYNAMIC,dynamic"],
            &["--rr-stack", "2"],
            &["--fault-rate", "1"],
            &["--instance", "../x"],
        ] {
            let e = run(args(bad).expect("parses")).expect_err("refused");
            let lab = e.downcast_ref::<LabError>().expect("a lab error");
            assert!(lab.is_usage(), "{bad:?}: {lab:?}");
        }
        // A huge value is echoed short, not as three hundred digits.
        let e = run(args(&["--secs", "1e300"]).expect("parses")).expect_err("refused");
        let said = e.to_string();
        assert!(said.starts_with("--secs 1e300: "), "{said}");
        let e = run(args(&["--secs", "100000"]).expect("parses")).expect_err("refused");
        assert!(e.to_string().starts_with("--secs 100000: "), "{e}");
    }

    #[test]
    fn the_passthrough_core_refuses_what_only_the_engine_does() {
        for (bad, names) in [
            (&["--inbperf", "MINCPU"][..], "--inbperf"),
            (&["--compare", "MINCPU,DYNAMIC"], "--compare"),
            (
                &["--profile", "a.prof", "--zero-timers"],
                "--profile, --zero-timers",
            ),
            (
                &["--tos-priority", "--no-offload"],
                "--tos-priority, --no-offload",
            ),
        ] {
            let a = args(&[&["--core", "passthrough"][..], bad].concat()).expect("parses");
            let e = run(a).expect_err("refused");
            let lab = e.downcast_ref::<LabError>().expect("a lab error");
            assert!(lab.is_usage(), "{bad:?}: {lab:?}");
            assert!(e.to_string().contains(names), "{bad:?}: {e}");
        }
        // The whole message, for one option and for several.
        let said = |bad: &[&str]| {
            let a = args(&[&["--core", "passthrough"][..], bad].concat()).expect("parses");
            check_core(&a).map_err(|e| e.to_string())
        };
        let why = "the passthrough core is a bare layer-2 bridge with no INBPERF, timers, QoS \
                   mapping, segmentation offload or profile, so";
        assert_eq!(
            said(&["--timer-thread"]),
            Err(format!(
                "--core passthrough with --timer-thread: {why} it would change nothing; \
                 drop it or use --core engine"
            ))
        );
        assert_eq!(
            said(&["--no-offload", "--zero-timers"]),
            Err(format!(
                "--core passthrough with --zero-timers, --no-offload: {why} they would change \
                 nothing; drop them or use --core engine"
            ))
        );
        // What it does act on passes.
        let a = args(&["--core", "passthrough", "--fault-rate", "0.01"]).expect("parses");
        assert!(check_core(&a).is_ok());
        let a = args(&["--inbperf", "MINCPU"]).expect("parses");
        assert!(check_core(&a).is_ok());
    }

    #[test]
    fn a_switch_and_its_negation_do_not_mix() {
        // Both orders: the last one does not silently win.
        for pair in [
            ["--per-cpu", "--no-per-cpu"],
            ["--no-per-cpu", "--per-cpu"],
            ["--wake-qos", "--no-wake-qos"],
            ["--no-wake-qos", "--wake-qos"],
        ] {
            let e = args(&pair).expect_err("refused");
            assert_eq!(
                e.kind(),
                clap::error::ErrorKind::ArgumentConflict,
                "{pair:?}"
            );
            let text = e.to_string();
            for name in pair {
                assert!(text.contains(&format!("'{name}'")), "{pair:?}: {text}");
            }
        }
        // Each alone still parses, and --no-wake-qos still turns off the
        // benchmark's default.
        let o = options(
            &args(&["--bench", "--no-wake-qos"]).expect("args"),
            Inb::Dynamic,
        );
        assert!(!o.wake_qos);
        let o = options(&args(&["--per-cpu"]).expect("args"), Inb::Dynamic);
        assert!(o.per_cpu);
    }

    #[test]
    fn a_log_filter_that_does_not_parse_is_refused() {
        let e = args(&["--log", "foo[["]).expect_err("refused");
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
        let text = e.to_string();
        assert!(
            text.contains("invalid value 'foo[[' for '--log <LOG>': not a log filter"),
            "{text}"
        );
        assert_eq!(
            args(&["--log", "softosa_live=debug"]).expect("args").log,
            "softosa_live=debug"
        );
        assert_eq!(args(&[]).expect("args").log, "warn");
        // Past the parser too.
        let e = init_logging("foo=bar", false).expect_err("refused");
        assert!(e.is_usage(), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("--log \"foo=bar\": not a log filter"),
            "{e}"
        );
    }

    #[test]
    fn a_bad_cpu_list_is_named_as_typed() {
        for (opt, value, says) in [
            ("--cpus", "0,0", "CPU 0 is listed twice"),
            ("--rr-cpus", "1, 2,1", "CPU 1 is listed twice"),
            ("--cpus", "0-3", "\"0-3\" is not a CPU number"),
            ("--cpus", "0,,1", "an empty entry between commas"),
        ] {
            let e = args(&[opt, value]).expect_err("refused");
            assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
            let text = e.to_string();
            let head = format!("invalid value '{value}' for '{opt} <LIST>': {says}");
            assert!(text.contains(&head), "{text}");
        }
        // Given twice, not merged into one list.
        assert!(args(&["--cpus", "0", "--cpus", "1"]).is_err());
        let a = args(&["--cpus", "1,0", "--rr-cpus", "0"]).expect("args");
        let o = options(&a, Inb::Dynamic);
        assert_eq!((o.cpus, o.rr_cpus), (vec![1, 0], vec![0]));
    }

    #[test]
    fn inbperf_and_compare_do_not_mix() {
        assert!(args(&["--inbperf", "BALANCED", "--compare", "DYNAMIC,MINCPU"]).is_err());
    }

    #[test]
    fn an_explicit_inbperf_overrides_the_profiles_and_sharing_does_not_mix() {
        let own = args(&["--profile", "a.prof"]).expect("parses");
        assert!(!options(&own, Inb::Dynamic).profile_inbperf_override);
        let given = args(&["--profile", "a.prof", "--inbperf", "BALANCED"]).expect("parses");
        assert_eq!(modes(&given).expect("modes"), vec![Inb::Balanced]);
        assert!(options(&given, Inb::Balanced).profile_inbperf_override);
        assert!(args(&["--profile", "a.prof", "--sharing", "vmac"]).is_err());
    }

    #[test]
    fn ranges_are_checked_by_the_parser() {
        for bad in [
            &["--repeat", "0"][..],
            &["--realtime", "100"],
            &["--nice", "20"],
            &["--rr-stack", "0"],
            &["--spin-us", "2000000"],
        ] {
            assert!(args(bad).is_err(), "{bad:?} accepted");
        }
        // Negative numbers reach the validation (with its explanation)
        // instead of being taken for options.
        let a = args(&["--secs", "-1", "--fault-rate", "-0.5", "--nice", "-5"]).expect("parses");
        assert_eq!(a.secs, -1.0);
        assert_eq!(a.nice, -5);
        let e = lab::validate(&options(&a, Inb::Dynamic)).unwrap_err();
        assert!(e.to_string().contains("--secs -1"), "{e}");
    }

    #[test]
    fn an_unreachable_lab_is_explained_in_terms_of_the_option_given() {
        let dir = std::env::temp_dir().join(format!("sosa-reach-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temporary directory");
        let ask = |socket: Option<PathBuf>, instance: &str| {
            let e = run_display(DisplayArgs {
                kind: "TUNING".into(),
                instance: instance.into(),
                socket,
                json: false,
                target: None,
                max: None,
            })
            .expect_err("nobody to ask");
            let text = e.to_string();
            (e.downcast::<ReachError>().expect("a ReachError"), text)
        };
        // --socket: said of the path, with no --instance to retry.
        let missing = dir.join("none.sock");
        let (e, text) = ask(Some(missing.clone()), "lab");
        assert!(matches!(*e, ReachError::NoSocket { .. }), "{e:?}");
        let head = format!("--socket: there is no {}; a lab opens", missing.display());
        assert!(text.starts_with(&head), "{text}");
        assert!(!text.contains("--instance lab"), "{text}");
        assert!(
            text.contains("no lab is running now") || text.contains("running now: "),
            "{text}"
        );
        // A killed run's socket, and a file that is no socket.
        let dead = dir.join("dead.sock");
        crate::control::dead_socket(&dead);
        let (e, text) = ask(Some(dead.clone()), "lab");
        assert!(matches!(*e, ReachError::Gone { .. }), "{e:?}");
        assert!(text.starts_with("--socket: nobody answers on"), "{text}");
        let plain = dir.join("plain");
        std::fs::write(&plain, "x").expect("a file");
        let (e, text) = ask(Some(plain.clone()), "lab");
        assert!(matches!(*e, ReachError::NotASocket { .. }), "{e:?}");
        let head = format!("--socket: {} is not a socket", plain.display());
        assert!(text.starts_with(&head), "{text}");
        // --instance: said of the name.
        let (e, text) = ask(None, "sosa-test-none");
        assert!(matches!(*e, ReachError::NotRunning { .. }), "{e:?}");
        assert!(
            text.starts_with("no lab named \"sosa-test-none\" is running"),
            "{text}"
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_running_lab_shows_the_interface_asked_for() {
        let o = LabOptions {
            sharing: Sharing::Vmac,
            ..Default::default()
        };
        // A lab engine of two stacks (TCPIP1/OSAQDIO1, TCPIP2/OSAQDIO2),
        // its displays served as a running lab serves them.
        let core = crate::engine_core::EngineCore::for_lab(&o).expect("lab engine");
        let dir = std::env::temp_dir().join(format!("sosa-intf-{}", std::process::id()));
        let sock = dir.join("t.sock");
        let served = std::sync::Arc::new(std::sync::Mutex::new(core));
        let s = crate::control::Servers::start(served, Some(&sock), None).expect("serve");
        let ask = |kind: &str, target: Option<&str>| {
            ask_display(&DisplayArgs {
                kind: kind.into(),
                instance: "lab".into(),
                socket: Some(sock.clone()),
                json: false,
                target: target.map(str::to_string),
                max: None,
            })
        };
        let one = ask("DEVLINKS", Some("osaqdio2")).expect("devlinks of OSAQDIO2");
        assert!(
            one.contains("OSAQDIO2") && !one.contains("OSAQDIO1"),
            "{one}"
        );
        assert!(!one.starts_with("intf="), "acknowledgement left in: {one}");
        // Blank is everything, as for a profile's displays.
        let all = ask("DEVLINKS", Some("  ")).expect("devlinks");
        assert!(
            all.contains("OSAQDIO1") && all.contains("OSAQDIO2"),
            "{all}"
        );
        // An interface the lab does not have: a usage error naming those
        // it has.
        let e = ask("DEVLINKS", Some("QDIO4101L")).expect_err("no such interface");
        let refusal = e
            .downcast_ref::<crate::control::Refusal>()
            .expect("a Refusal");
        assert!(refusal.is_usage(), "{refusal:?}");
        let text = e.to_string();
        assert!(
            text.starts_with("no interface or stack named \"QDIO4101L\""),
            "{text}"
        );
        assert!(text.contains("TCPIP1/OSAQDIO1, TCPIP2/OSAQDIO2"), "{text}");
        // What a request line cannot carry is refused before asking.
        for (kind, target) in [("TUNING", Some("OSA QDIO1")), ("tuning json", None)] {
            let e = ask(kind, target).expect_err("blank inside a word");
            let e = e.downcast::<LabError>().expect("a LabError");
            assert!(e.is_usage() && e.to_string().contains("blanks"), "{e}");
        }
        drop(s);
        let _ = std::fs::remove_dir(dir);
    }

    #[test]
    fn display_refuses_a_name_outside_the_socket_directory() {
        let e = run_display(DisplayArgs {
            kind: "TUNING".into(),
            instance: "../../tmp/x".into(),
            socket: None,
            json: false,
            target: None,
            max: None,
        })
        .unwrap_err();
        assert!(e.to_string().contains("instance name"), "{e}");
    }
}
