//! `softosa replay` (layer: replay driver, command-line front end; spec 08
//! §8.2). The lead wires [`ReplayArgs`] in as the `replay` subcommand and
//! calls [`run`].

use crate::annotate::PcapNgWriter;
use crate::capture::{CaptureFormat, CaptureReader};
use crate::config::{load_config, ConfigLoadError};
use crate::replay::{
    busiest_window, replay_mode, tighten_window, FrameObserver, Hooks, Mode, ReplayError,
    ReplayOptions,
};
use crate::report::{render_text, write_json, Report, ReportPort, SpeedFrom};
use crate::smcat::{parse_config, SmcatAnalyzer, SmcatConfigError};
use crate::zert::ZertAnalyzer;
use clap::{Args, ValueEnum};
use core::time::Duration;
use softosa_engine::config::{PortKind, SystemConfig};
use softosa_profile::load::same_file;
use std::io::IsTerminal;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const LONG_ABOUT: &str = "\
Replay a packet capture through softosa's OSA adapter model and show, for
each INBPERF setting side by side, how the adapter would have sorted the
traffic onto input queues and batched it into interrupts:

  * interrupts and packets per interrupt, per input queue;
  * the delay the LAN-idle timers add (presentation time minus arrival:
    mean, median, 99th percentile);
  * which TCP connections the stack would detect as bulk, and when, and the
    queue each connection's frames landed on (BULKDATA under WORKLOADQ);
  * the VTAM tuning statistics counters (PCIREAL, PCIVIRT, PACKCNT, ...).

The capture's own timestamps drive the model. Frames addressed to the
analysed interfaces' addresses (from the profile, plus --address) are
inbound; frames sent from those addresses are outbound and let the bulk
detector see both directions; anything else is counted and left out.
Captures: pcap or pcapng, Ethernet, Linux cooked (SLL, SLL2) or raw IP.
The capture is read as a stream, once per mode: any size works.";

const EXAMPLES: &str = "\
Examples:
  # Compare every INBPERF setting for traffic captured at the host:
  softosa replay trace.pcapng --profile tcpip.prof

  # Only the interface OSAQDIO4, and the host is 10.1.1.5 in this capture:
  softosa replay trace.pcap -p tcpip.prof -i OSAQDIO4 --address 10.1.1.5

  # Everything: HTML with charts, annotated capture for Wireshark
  # (see the comments with: tshark -r out.pcapng -T fields -e frame.comment),
  # SMC applicability and zERT summaries, JSON on stdout:
  softosa replay trace.pcap -p tcpip.prof --html out.html \\
      --annotate out.pcapng --smcat smcat.cfg --zert --format json";

/// Output format of the report on stdout (or --output).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// What would each INBPERF mode do to my traffic? Replay a capture.
#[derive(Debug, Args)]
#[command(
    long_about = LONG_ABOUT,
    after_help = "Example: softosa replay trace.pcapng --profile tcpip.prof   (--help: more examples)",
    after_long_help = EXAMPLES
)]
pub struct ReplayArgs {
    /// The capture file (pcap or pcapng).
    #[arg(value_name = "CAPTURE")]
    pub capture: PathBuf,
    /// TCP/IP profile of the host the capture was taken at (or a JSON
    /// SystemConfig).
    #[arg(long, short = 'p', value_name = "FILE")]
    pub profile: PathBuf,
    /// Interface to analyse (repeatable); default: every OSA interface.
    #[arg(long = "interface", short = 'i', value_name = "NAME")]
    pub interfaces: Vec<String>,
    /// An address the capture's host owns that the profile does not list
    /// (repeatable).
    #[arg(long = "address", value_name = "IP", value_parser = parse_address)]
    pub addresses: Vec<IpAddr>,
    /// Mode to run (repeatable, or a comma-separated list such as
    /// BALANCED,OLM): BALANCED, MINCPU, MINLATENCY, DYNAMIC, WORKLOADQ (=
    /// DYNAMIC WORKLOADQ, the report's DYN+IWQ), OLM. Default: all six.
    #[arg(
        long = "mode",
        value_name = "MODE",
        value_parser = parse_mode,
        value_delimiter = ','
    )]
    pub modes: Vec<Mode>,
    /// Time the host spends on each presented batch, in microseconds.
    #[arg(long, value_name = "US", default_value_t = 5.0)]
    pub host_service_us: f64,
    /// Speed of the OSA ports in Mb/s: 1000, 10000 or 25000 (what the
    /// capture's inbound rate is held against). Default: 1000 for a
    /// profile, a JSON SystemConfig's own.
    #[arg(long, value_name = "MBPS", value_parser = parse_port_speed)]
    pub port_speed: Option<u32>,
    /// Report format.
    #[arg(long, value_enum, ignore_case = true, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write a self-contained HTML report with charts and timelines.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
    /// Write the capture back as pcapng with each packet's queue and
    /// presentation time as a packet comment.
    #[arg(long, value_name = "OUT.pcapng")]
    pub annotate: Option<PathBuf>,
    /// Mode whose outcome --annotate writes; default: the interface's
    /// configured INBPERF.
    #[arg(long, value_name = "MODE", value_parser = parse_mode, requires = "annotate")]
    pub annotate_mode: Option<Mode>,
    /// SMCAT configuration (SMCATCFG INTERVAL n / IPADDR list): add the SMC
    /// applicability report.
    #[arg(long, value_name = "CONFIG")]
    pub smcat: Option<PathBuf>,
    /// Add the zERT summary (TLS, SSH, IPsec or clear text per connection).
    #[arg(long)]
    pub zert: bool,
    /// Flows itemised in the report at most (others are counted); up to
    /// 100000.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_flows: usize,
}

/// `--address`: an address a host can own (as an INTERFACE's IPADDR).
fn parse_address(s: &str) -> Result<IpAddr, String> {
    let a: IpAddr = s
        .parse()
        .map_err(|_| format!("{s:?} is not an IPv4 or IPv6 address"))?;
    softosa_profile::parser::unicast(a).map_err(str::to_string)?;
    Ok(a)
}

/// OSA-Express Ethernet port speeds, Mb/s.
const PORT_SPEEDS: [u32; 3] = [1000, 10_000, 25_000];

fn parse_port_speed(s: &str) -> Result<u32, String> {
    s.trim()
        .parse::<u32>()
        .ok()
        .filter(|v| PORT_SPEEDS.contains(v))
        .ok_or_else(|| {
            format!(
                "{s:?} is not an OSA-Express port speed: use 1000, 10000 or 25000 (Mb/s; \
                 10000 for a 10 GbE port)"
            )
        })
}

fn parse_mode(s: &str) -> Result<Mode, String> {
    Mode::parse(s).ok_or_else(|| {
        format!(
            "unknown mode {s:?}: use BALANCED, MINCPU, MINLATENCY, DYNAMIC, WORKLOADQ \
             (DYN+IWQ) or OLM"
        )
    })
}

/// Largest `--max-flows`: ten times the default. Every mode keeps its
/// table until the report is written: 100,000 flows in six modes take
/// about 170 MB, text or JSON (a million took 8 GB).
pub const MAX_FLOWS: usize = 100_000;

/// Errors of `softosa replay`.
#[derive(Debug, thiserror::Error)]
pub enum ReplayCliError {
    #[error(transparent)]
    Config(#[from] ConfigLoadError),
    #[error("{}: {source}", path.display())]
    Replay { path: PathBuf, source: ReplayError },
    #[error(transparent)]
    Smcat(#[from] SmcatConfigError),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// An output path that cannot or must not be written.
    #[error("{flag} {}: {why}", path.display())]
    Output {
        flag: &'static str,
        path: PathBuf,
        why: String,
    },
    #[error(
        "--host-service-us must be a number of microseconds from 0 to 1000000, not {}",
        softosa_display::cli::shown_number(*.0)
    )]
    HostService(f64),
    #[error(
        "--max-flows {0}: at most {MAX_FLOWS} (each flow itemised takes memory in every mode: \
         a million took 8 GB with --format json); flows beyond the table are still counted"
    )]
    MaxFlows(usize),
    /// Records there were, but none could be read.
    #[error(
        "{}: {} ({why}); nothing to replay",
        path.display(),
        if *records == 1 {
            "its one record could not be read".to_string()
        } else {
            format!("none of its {records} records could be read")
        }
    )]
    NothingReadable {
        path: PathBuf,
        records: u64,
        why: String,
    },
    /// One file named for two outputs.
    #[error("{flag} {}: is also given to {other}", path.display())]
    OutputTwice {
        flag: &'static str,
        path: PathBuf,
        other: &'static str,
    },
    #[error("writing the output: {0}")]
    Stdout(std::io::Error),
}

impl ReplayCliError {
    /// A mistake on the command line (exit status 2), not in an input: an
    /// option value out of range, an output that cannot be written where
    /// it is named (or would overwrite an input), an `--interface` the
    /// profile does not have, or an `--address` no analysed interface can
    /// take. `softosa display` and `softosa lab` treat the same mistakes
    /// alike.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            ReplayCliError::HostService(_)
                | ReplayCliError::MaxFlows(_)
                | ReplayCliError::OutputTwice { .. }
                | ReplayCliError::Output { .. }
                | ReplayCliError::Replay {
                    source: ReplayError::NoSuchInterface(..) | ReplayError::AddressVersion(_),
                    ..
                }
        )
    }
}

/// Removes the file it names when dropped, unless cleared first.
struct RemoveOnDrop<'a>(Option<&'a Path>);

impl Drop for RemoveOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(p) = self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ReplayCliError + '_ {
    move |source| ReplayCliError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The file a replay error is about: reading the capture, writing the
/// annotated capture, or else the configuration (profile, `--interface`,
/// `--address`).
fn replay_err(args: &ReplayArgs) -> impl Fn(ReplayError) -> ReplayCliError + '_ {
    move |source| {
        let path = match &source {
            ReplayError::Capture(_) => args.capture.clone(),
            ReplayError::Annotate(_) => args.annotate.clone().unwrap_or(args.capture.clone()),
            _ => args.profile.clone(),
        };
        ReplayCliError::Replay { path, source }
    }
}

/// Where a path would put a file: its directory made absolute and
/// canonical, plus its name. Two spellings of a file not yet there
/// (`./x.html` and `x.html`, relative and absolute, through a linked
/// directory) come out alike; `None` when the directory cannot be resolved.
fn normalised(p: &Path) -> Option<PathBuf> {
    let name = p.file_name()?;
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(dir).ok()?.join(name))
}

/// Whether two output paths name one file, there already or not.
fn same_output(a: &Path, b: &Path) -> bool {
    a == b
        || same_file(a, b)
        || matches!((normalised(a), normalised(b)), (Some(x), Some(y)) if x == y)
}

/// Refuse, before the (possibly long) replay, outputs that would fail at the
/// end or overwrite an input: `--annotate trace.pcap` on `trace.pcap` would
/// truncate the capture while it is being read.
fn check_outputs(args: &ReplayArgs) -> Result<(), ReplayCliError> {
    let inputs: Vec<&PathBuf> = [
        Some(&args.capture),
        Some(&args.profile),
        args.smcat.as_ref(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let outputs: Vec<(&'static str, &PathBuf)> = [
        ("--output", args.output.as_ref()),
        ("--html", args.html.as_ref()),
        ("--annotate", args.annotate.as_ref()),
    ]
    .into_iter()
    .filter_map(|(f, p)| p.map(|p| (f, p)))
    .collect();
    let refuse = |flag, path: &PathBuf, why: String| ReplayCliError::Output {
        flag,
        path: path.clone(),
        why,
    };
    for (n, &(flag, out)) in outputs.iter().enumerate() {
        if out.is_dir() {
            return Err(refuse(flag, out, "is a directory; name a file".into()));
        }
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !dir.is_dir() {
                return Err(refuse(
                    flag,
                    out,
                    format!("the directory {} does not exist", dir.display()),
                ));
            }
        }
        if let Some(input) = inputs.iter().find(|i| same_file(i, out)) {
            return Err(refuse(
                flag,
                out,
                format!(
                    "is the input {}; writing it would destroy it — choose another file",
                    input.display()
                ),
            ));
        }
        if let Some((other, _)) = outputs[..n].iter().find(|(_, p)| same_output(p, out)) {
            return Err(ReplayCliError::OutputTwice {
                flag,
                path: out.clone(),
                other,
            });
        }
    }
    Ok(())
}

/// The configured mode of the first analysed interface.
fn configured_mode(cfg: &SystemConfig, names: &[String]) -> Mode {
    cfg.interfaces
        .iter()
        .find(|i| {
            if names.is_empty() {
                cfg.ports
                    .get(i.port)
                    .is_some_and(|p| matches!(p.kind, PortKind::Osa { .. }))
            } else {
                names.iter().any(|n| n.eq_ignore_ascii_case(&i.name))
            }
        })
        .map_or(Mode::Balanced, |i| Mode::of(i.inbperf, i.workloadq, i.olm))
}

/// Entry point for `softosa replay`.
pub fn run(args: ReplayArgs) -> Result<ExitCode, ReplayCliError> {
    let report = build_report(&args)?;
    // JSON goes out as it is made; text is small (the busiest flows only).
    let write = |out: &mut dyn std::io::Write| match args.format {
        Format::Text => out.write_all(render_text(&report).as_bytes()),
        Format::Json => write_json(&report, out),
    };
    match &args.output {
        Some(p) => {
            let mut f = std::io::BufWriter::new(std::fs::File::create(p).map_err(io_err(p))?);
            write(&mut f)
                .and_then(|()| std::io::Write::flush(&mut f))
                .map_err(io_err(p))?
        }
        // A closed pipe (| head) is not an error worth reporting; anything
        // else (a full disk) loses the report, so it is.
        None => softosa_display::cli::write_stdout_with(write).map_err(ReplayCliError::Stdout)?,
    }
    if let Some(p) = &args.html {
        std::fs::write(p, crate::html::render_html(&report)).map_err(io_err(p))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The ports of the analysed interfaces (all of the profile's when `-i`
/// names none), each with its interfaces in profile order.
fn report_ports(cfg: &SystemConfig, wanted: &[String], speed: SpeedFrom) -> Vec<ReportPort> {
    let mut out: Vec<(usize, ReportPort)> = Vec::new();
    let analysed = crate::replay::analysed_interfaces(cfg, wanted).unwrap_or_default();
    for i in analysed.iter().filter_map(|&n| cfg.interfaces.get(n)) {
        let Some(port) = cfg.ports.get(i.port) else {
            continue;
        };
        if let Some((_, p)) = out.iter_mut().find(|(n, _)| *n == i.port) {
            p.interfaces.push(i.name.clone());
            continue;
        }
        let (adapter, speed_mbps) = match port.kind {
            PortKind::Osa {
                generation,
                speed_mbps,
                ..
            } => (generation.label().to_string(), Some(speed_mbps)),
            PortKind::HiperSockets { .. } => ("HiperSockets".to_string(), None),
        };
        out.push((
            i.port,
            ReportPort {
                name: port.name.clone(),
                adapter,
                speed_mbps,
                speed_from: speed_mbps.map(|_| speed),
                interfaces: vec![i.name.clone()],
            },
        ));
    }
    out.into_iter().map(|(_, p)| p).collect()
}

/// Run every requested mode and assemble the report (no output written
/// except the annotated capture).
pub fn build_report(args: &ReplayArgs) -> Result<Report, ReplayCliError> {
    // Beyond a second per batch the model host never keeps up and every
    // timer result is meaningless; 1e30 used to saturate silently.
    if !(0.0..=1_000_000.0).contains(&args.host_service_us) {
        return Err(ReplayCliError::HostService(args.host_service_us));
    }
    // The flow table is what keeps memory from growing with the capture.
    if args.max_flows > MAX_FLOWS {
        return Err(ReplayCliError::MaxFlows(args.max_flows));
    }
    check_outputs(args)?;
    let mut cfg = load_config(&args.profile)?;
    let speed_from = if args.port_speed.is_some() {
        SpeedFrom::Option
    } else if crate::config::is_json(&args.profile) {
        SpeedFrom::Configuration
    } else {
        SpeedFrom::Default
    };
    if let Some(speed) = args.port_speed {
        for p in &mut cfg.ports {
            if let PortKind::Osa { speed_mbps, .. } = &mut p.kind {
                *speed_mbps = speed;
            }
        }
    }
    let smcat_cfg = match &args.smcat {
        Some(p) => {
            let text = softosa_profile::load::read_bounded_string(p).map_err(io_err(p))?;
            Some(parse_config(&p.display().to_string(), &text)?)
        }
        None => None,
    };
    let mut modes: Vec<Mode> = if args.modes.is_empty() {
        Mode::ALL.to_vec()
    } else {
        let mut v = Vec::new();
        for m in &args.modes {
            if !v.contains(m) {
                v.push(*m);
            }
        }
        v
    };
    let annotate_mode = args.annotate.as_ref().map(|_| {
        args.annotate_mode
            .unwrap_or_else(|| configured_mode(&cfg, &args.interfaces))
    });
    if let Some(m) = annotate_mode {
        if !modes.contains(&m) {
            modes.push(m);
        }
    }
    let err = replay_err(args);
    let open = || CaptureReader::open(&args.capture).map_err(|e| err(e.into()));
    let window =
        busiest_window(open()?, ReplayOptions::default().timeline_window.1).map_err(&err)?;
    // Keep a MINCPU block hold time after the last frame so it shows presented.
    let tail = cfg.tuning.timers.min_cpu.block.as_nanos() as u64 + 100_000;
    let window = tighten_window(open()?, window, tail).map_err(&err)?;
    let opts = ReplayOptions {
        timeline_window: window,
        interfaces: args.interfaces.clone(),
        extra_addresses: args.addresses.clone(),
        host_service: Duration::from_nanos((args.host_service_us * 1000.0).round() as u64),
        max_flows: args.max_flows,
        ..ReplayOptions::default()
    };
    let size = std::fs::metadata(&args.capture)
        .map_err(io_err(&args.capture))?
        .len();
    let bar = indicatif::ProgressBar::hidden();
    bar.set_length(size.saturating_mul(modes.len() as u64));
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{msg:>18} [{bar:40}] {bytes}/{total_bytes} ({eta})",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    let started = std::time::Instant::now();
    let terminal = std::io::stderr().is_terminal();
    let mut shown = false;
    let local_nets: Vec<_> = crate::replay::analysed_interfaces(&cfg, &args.interfaces)
        .unwrap_or_default()
        .iter()
        .filter_map(|&n| cfg.interfaces.get(n))
        .flat_map(|i| i.addresses.iter().copied())
        .collect();
    let mut smcat = smcat_cfg.map(|c| SmcatAnalyzer::new(c, local_nets, args.max_flows));
    let mut zert = args.zert.then(|| ZertAnalyzer::new(args.max_flows));
    let mut results = Vec::new();
    let mut format = String::new();
    let mut bytes = 0;
    for (n, &mode) in modes.iter().enumerate() {
        let reader = open()?;
        format = match reader.format() {
            CaptureFormat::Pcap { nanos: true } => "pcap, nanosecond stamps".into(),
            CaptureFormat::Pcap { nanos: false } => "pcap, microsecond stamps".into(),
            CaptureFormat::PcapNg => "pcapng".into(),
        };
        bar.set_message(mode.label());
        let base = size.saturating_mul(n as u64);
        let mut progress = |b: u64| {
            bar.set_position(base + b);
            if !shown && terminal && started.elapsed() > Duration::from_secs(1) {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                shown = true;
            }
        };
        let mut writer = None;
        // An annotated capture this run does not finish is removed, not
        // left half written, if this run made the file: a path that was
        // there before (a file the user keeps, a device such as /dev/null,
        // a link to standard output) is never removed.
        let mut unfinished = RemoveOnDrop(None);
        if annotate_mode == Some(mode) {
            if let Some(p) = &args.annotate {
                let existed = std::fs::symlink_metadata(p).is_ok();
                let f = std::fs::File::create(p).map_err(io_err(p))?;
                unfinished.0 = (!existed).then_some(p.as_path());
                let about = format!(
                    "softosa replay of {} through INBPERF {} with the profile {}: each packet's \
                     comment says what the adapter did with it",
                    args.capture.display(),
                    mode.label(),
                    args.profile.display()
                );
                writer = Some(
                    PcapNgWriter::with_comment(std::io::BufWriter::new(f), Some(&about))
                        .map_err(io_err(p))?,
                );
            }
        }
        let mut observers: Vec<&mut dyn FrameObserver> = Vec::new();
        if n == 0 {
            if let Some(s) = smcat.as_mut() {
                observers.push(s);
            }
            if let Some(z) = zert.as_mut() {
                observers.push(z);
            }
        }
        let hooks = Hooks {
            sink: writer
                .as_mut()
                .map(|w| w as &mut dyn crate::replay::AnnotationSink),
            observers,
            progress: Some(&mut progress),
        };
        let result = replay_mode(reader, &cfg, mode, &opts, hooks).map_err(&err)?;
        let t = &result.totals;
        if t.records > 0 && t.inbound + t.outbound + t.adapter_arp + t.foreign + t.loopback == 0 {
            // Every record was skipped (an unsupported link type, frames
            // cut by the snap length, say): a table of zeros would read as
            // a replay that found nothing.
            let why: Vec<String> = t
                .reader_skipped
                .iter()
                .chain(&t.unusable)
                .map(|(why, s)| format!("{why}: {} (first: record {})", s.count, s.first_record))
                .collect();
            return Err(ReplayCliError::NothingReadable {
                path: args.capture.clone(),
                records: t.records,
                why: why.join(", "),
            });
        }
        if let (Some(w), Some(p)) = (writer, &args.annotate) {
            w.finish().map_err(io_err(p))?;
            unfinished.0 = None;
        }
        bytes = size;
        results.push(result);
    }
    bar.finish_and_clear();
    // Report modes in the canonical order.
    results.sort_by_key(|r| Mode::ALL.iter().position(|m| *m == r.mode));
    Ok(Report {
        capture: args.capture.display().to_string(),
        capture_format: format,
        capture_bytes: bytes,
        profile: args.profile.display().to_string(),
        host_service_us: args.host_service_us,
        ports: report_ports(&cfg, &args.interfaces, speed_from),
        modes: results,
        timeline_window_ns: opts.timeline_window,
        annotated_mode: annotate_mode.map(|m| m.label().to_string()),
        smcat: smcat.map(SmcatAnalyzer::finish),
        zert: zert.map(ZertAnalyzer::finish),
    })
}
