//! Command-line entry points (`softosa sim`, `softosa reproduce`); the lead
//! wires these into the `softosa` binary.

use crate::report::RunResult;
use crate::scenario::Scenario;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The tables and counters as the docs show them.
    Text,
    /// Everything, for scripts (docs/scenarios.md lists the keys).
    Json,
    /// One row per variant and workload.
    Csv,
    /// One row per variant and host: CPU, TCP recovery, links, adapter.
    CsvHosts,
}

impl Format {
    /// The CSV formats.
    fn csv(self) -> bool {
        matches!(self, Format::Csv | Format::CsvHosts)
    }

    /// A CSV format's header line.
    fn csv_header(self) -> &'static str {
        if self == Format::CsvHosts {
            RunResult::CSV_HOSTS_HEADER
        } else {
            RunResult::CSV_HEADER
        }
    }

    /// A CSV format's rows for one run, labelled `label`.
    fn csv_rows(self, r: &RunResult, label: &str) -> String {
        if self == Format::CsvHosts {
            r.to_csv_hosts(label)
        } else {
            r.to_csv(label)
        }
    }
}

const SIM_EXAMPLES: &str = "\
Examples:
  softosa sim scenarios/quick-rr.toml                      RR10 and a stream, z/OS with BALANCED
  softosa sim scenarios/inbperf-modes.toml                 each INBPERF setting side by side
  softosa sim scenarios/quick-rr.toml --display tuning     ... plus the VTAM tuning statistics
  softosa sim scenarios/inbperf-modes.toml --format csv    one line per variant and workload
  softosa sim scenarios/inbperf-modes.toml --format csv-hosts
                                                           one line per variant and host (CPU,
                                                           retransmits, links, adapter busy)
  softosa sim scenarios/olm-rr-sweep.toml --seed 2         the same run with another seed
  softosa sim scenarios/inbperf-modes.toml --seeds 5       is a mode's gain larger than the seed's?
  softosa sim scenarios/quick-rr.toml --duration-ms 2000   a longer measured window than the file's
  softosa sim scenarios/inbperf-modes.toml --html r.html   the same, and a page of charts per mode
  softosa sim scenarios/quick-rr.toml --vary inbperf=BALANCED,DYNAMIC
                                                           a [vary] from the command line
  softosa sim scenarios/quick-rr.toml --vary models.adapter.osa-express3-1g.signal_ns=6000,12000
                                                           how much a result owes to a model value
  softosa sim scenarios/quick-rr.toml --models             the model values its runs use, as TOML

Scenario files: scenarios/*.toml (one per feature); every field is in
docs/scenarios.md. Start from scenarios/quick-rr.toml and change the hosts'
inbperf, adapter, speed or profile, or the workloads.";

/// Simulate a scenario: what would this configuration do to this workload?
///
/// A scenario file (TOML, see docs/scenarios.md) names the hosts (z/OS
/// systems with their OSA adapter and profile settings, AIX/Linux peers), the
/// links, the workloads (RR, CRR, STR), run length and seed. With a `[vary]`
/// table the scenario runs once per value and the results are shown side by
/// side. Output: per-workload throughput, latency (mean, p50, p99), CPU per
/// transaction or per MB, then per-host TCP, link and adapter counters.
/// Same scenario + same seed = byte-identical output.
#[derive(Clone, Debug, clap::Args)]
#[command(after_help = SIM_EXAMPLES, allow_negative_numbers = true)]
pub struct SimArgs {
    /// Scenario file (e.g. scenarios/inbperf-modes.toml; format: docs/scenarios.md).
    pub scenario: PathBuf,
    /// Output format.
    #[arg(long, value_enum, ignore_case = true, default_value_t = Format::Text)]
    pub format: Format,
    /// Override the scenario's random seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run every variant with this many seeds (the scenario's or --seed's,
    /// and the next ones) and show each figure as the mean with the
    /// farthest run's distance, and each variant's change against the
    /// first paired seed by seed (1 to 20; 1 is a single run). A change
    /// smaller than its spread is the seed's, not the setting's.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=20))]
    pub seeds: u64,
    /// Measure this long instead of the scenario's duration_ms (0.000001
    /// to 600000 ms; the warm-up stays the scenario's): a longer window
    /// for a noisy stream, a shorter one for a first look.
    #[arg(long, value_name = "MS", value_parser = duration_ms)]
    pub duration_ms: Option<f64>,
    /// Run the scenario once per value of one setting, as the file's vary
    /// table would, without editing the file: FIELD=V1,V2,... (a host
    /// field for every z/OS host, a workload field for every workload, or
    /// a model parameter models.TABLE.SET.FIELD for every host on that set;
    /// e.g. inbperf=BALANCED,DYNAMIC, connections=1,10,30 or
    /// models.machine.z10.interrupt_ns=1500,3000; values that are arrays as
    /// one TOML array of them). Refused when the file has a vary table of
    /// its own.
    #[arg(long, value_name = "FIELD=VALUES", value_parser = vary_arg)]
    pub vary: Option<(String, Vec<toml::Value>)>,
    /// With --vary: only these hosts (a host field) or workloads (a
    /// workload field), by name, comma-separated (a workload by its own
    /// name = "...", or without one by its type and sizes as the report
    /// shows them); e.g. on scenarios/quick-rr.toml, --vary
    /// connections=1,10,30 --vary-on 'RR10(100/800)' leaves the stream
    /// beside it alone. A name that holds a comma is given whole, as its
    /// own --vary-on.
    #[arg(long, value_name = "NAMES", requires = "vary")]
    pub vary_on: Vec<String>,
    /// Also write a self-contained HTML report to FILE: the figures as a
    /// table, bars per variant for each workload's throughput, latency and
    /// CPU, its latency distributions, the adapters' and hosts' processors,
    /// and the sampled LAN-idle timers (sample_us); with --seeds, each
    /// mean with a whisker from its lowest to its highest run, and the
    /// changes the same way. Standard output is unchanged.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Run nothing; print the model parameter sets the scenario's runs
    /// use (the adapter generations, machines, peers, ... of its hosts),
    /// as TOML for the file's models table: the built-in values with the
    /// file's own laid over them, the fields the file or its vary sets
    /// marked.
    #[arg(long, conflicts_with_all = ["seeds", "html", "display", "seed"])]
    pub models: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// After the results, show this z/OS display of every simulated host's
    /// adapter at the end of the run (devlinks, osainfo, trle, tuning,
    /// netstat-all, stats, config, vcrt, route-qdioaccel, drops); may be
    /// given several times, each kind once. With --format json the displays are in the
    /// JSON ("displays"); the CSV formats have no place for them.
    #[arg(long = "display", value_name = "KIND")]
    pub display: Vec<String>,
}

/// Run `softosa sim`.
pub fn run(args: SimArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    // Written piece by piece: the pieces of a large run are hundreds of MB,
    // and joining them first would hold them twice.
    softosa_display::cli::write_stdout_pieces(pieces(&args)?)
        .map_err(|e| format!("writing the output: {e}"))?;
    Ok(ExitCode::SUCCESS)
}

/// Everything `softosa sim` prints: the results, then any displays.
pub fn output(args: &SimArgs) -> Result<String, Box<dyn std::error::Error>> {
    Ok(pieces(args)?.concat())
}

/// What `softosa sim` prints, in the order printed. Each run is rendered as
/// soon as it ends and its results and world are dropped, so what is held
/// is the output's text, not every run's result structures (a `[vary]` of
/// 10 runs of 1000 hosts and 1000 workloads held 1.4 GB to print 212 MB of
/// JSON). Nothing is printed before every run has succeeded.
fn pieces(args: &SimArgs) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    if args.format.csv() && !args.display.is_empty() {
        // Text after the CSV would break every tool reading it.
        return Err(Box::new(Usage(
            "--display cannot be combined with --format csv or csv-hosts: use --format \
             text or --format json (the displays are then in its \"displays\" list)"
                .into(),
        )));
    }
    if let Some(p) = &args.html {
        // Before a run that can take minutes, not after it.
        check_output("--html", p)?;
    }
    if args.seeds > 1 && !args.display.is_empty() {
        // A display shows one run's adapter, and there would be N of them.
        return Err(Box::new(Usage(
            "--display shows the adapter at the end of one run, and --seeds makes several: \
             pick one run with --seed S and leave out --seeds"
                .into(),
        )));
    }
    let mut sc = Scenario::load(&args.scenario)?;
    if let Some((field, values)) = &args.vary {
        if let Some(v) = &sc.file.vary {
            return Err(Box::new(Usage(format!(
                "--vary {field}: {} has a [vary] of its own (field {}); a scenario varies one \
                 setting, so remove its [vary] table or leave out --vary",
                args.scenario.display(),
                v.field
            ))));
        }
        if field.starts_with("models.") && !args.vary_on.is_empty() {
            return Err(Box::new(Usage(format!(
                "--vary-on: {field} is a model parameter, which changes every host that runs \
                 on its set; leave out --vary-on"
            ))));
        }
        let on = vary_on_names(&args.vary_on, &sc);
        if !args.vary_on.is_empty() {
            crate::scenario::check_named_list(&on)
                .map_err(|why| Usage(format!("--vary-on: {why}")))?;
        }
        let host_field = crate::scenario::HOST_FIELDS.contains(&field.as_str());
        sc.file.vary = Some(crate::scenario::Vary {
            field: field.clone(),
            hosts: if host_field { on.clone() } else { Vec::new() },
            workloads: if host_field { Vec::new() } else { on },
            values: values.clone(),
            labels: Vec::new(),
        });
    }
    if let Some(p) = &args.html {
        refuse_writing_an_input(&args.scenario, &sc, p)?;
    }
    let file_duration = sc.file.duration_ms;
    if let Some(d) = args.duration_ms {
        sc.file.duration_ms = d;
    }
    let mut variants = sc.variants().map_err(|e| -> Box<dyn std::error::Error> {
        let text = e.to_string();
        match (&args.vary, args.duration_ms) {
            // The [vary] the message names is the command line's.
            // A mistake on the command line, then (exit status 2).
            (Some((field, _)), _) if text.contains("[vary]") => {
                // its hosts and workloads lists are --vary-on
                let text = text
                    .replace("(hosts = [\"...\"])", "(--vary-on NAME,...)")
                    .replace("[vary] workloads names", "--vary-on names")
                    .replace("[vary] hosts names", "--vary-on names");
                Box::new(Usage(format!("{text} (the [vary] of --vary {field}=...)")))
            }
            // An error about the run's length, which the file gives
            // otherwise: say where the length came from.
            (_, Some(d)) if text.contains("duration_ms") => format!(
                "{text} (the run is measured for --duration-ms {d}, not the file's \
                 duration_ms {file_duration})"
            )
            .into(),
            _ => Box::new(e),
        }
    })?;
    // What the hosts' profiles code that softosa reads but does not apply:
    // once each, however many runs share the profile, and a few per host
    // (a production profile has dozens; profile check lists them all).
    let scenario = &args.scenario.display().to_string();
    let sc_ref = &sc;
    note_a_few_per_host(
        variants.iter().flat_map(|v| &v.setup.hosts).flat_map(|h| {
            h.adapter
                .iter()
                .flat_map(|a| &a.osa.warnings)
                .map(move |w| {
                    // At the host's profile line, as a profile error is.
                    let w = format!("host {:?}: {w}", h.name);
                    let at = sc_ref
                        .line_of(&w)
                        .map_or_else(String::new, |l| format!(":{l}"));
                    (h.name.as_str(), format!("{scenario}{at}: {w}"))
                })
        }),
        |host, n| {
            format!(
                "{scenario}: host {host:?}: ... and {n} more profile warnings (softosa \
                 profile check on its profile lists them all)"
            )
        },
    );
    // What the scenario does that the hosts' z/OS would not, likewise.
    note_a_few_per_host(
        variants.iter().flat_map(|v| &v.setup.hosts).flat_map(|h| {
            h.adapter.iter().flat_map(|a| &a.osa.notes).map(move |n| {
                (
                    h.name.as_str(),
                    format!("{scenario}: host {:?}: {n}", h.name),
                )
            })
        }),
        |host, n| {
            format!("{scenario}: host {host:?}: ... and {n} more hosts in none of its interface's subnets")
        },
    );
    if args.models {
        if args.format != Format::Text {
            return Err(Box::new(Usage(
                "--models prints TOML, the layout of a scenario's [models]; leave out --format"
                    .into(),
            )));
        }
        return Ok(vec![sc.models_text(&variants)?]);
    }
    if let Some(s) = args.seed {
        for v in &mut variants {
            v.setup.seed = s;
        }
    }
    if args.seeds > 1 {
        return seeded(args, &sc, variants);
    }
    let kinds = args
        .display
        .iter()
        .map(|k| k.parse::<softosa_display::DisplayKind>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Usage(format!("--display: {e}")))?;
    // A kind given twice printed its display twice per host and variant.
    if let Some((i, k)) = kinds
        .iter()
        .enumerate()
        .find(|(i, k)| kinds[..*i].contains(k))
    {
        return Err(Box::new(Usage(format!(
            "--display {} is given twice (as {:?} and {:?}); give each display once",
            k.word(),
            args.display[kinds[..i].iter().position(|x| x == k).unwrap_or(0)],
            args.display[i]
        ))));
    }
    let has_adapter = variants
        .iter()
        .any(|v| v.setup.hosts.iter().any(|h| h.adapter.is_some()));
    if !kinds.is_empty() && !has_adapter {
        // Otherwise the displays asked for would silently not appear.
        let zos_on_iqd = variants.iter().any(|v| {
            v.setup
                .hosts
                .iter()
                .any(|h| h.kind == crate::world::HostKind::Zos && h.iqd.is_some())
        });
        let why = if zos_on_iqd {
            "its z/OS hosts are on HiperSockets, which has no OSA to display"
        } else {
            "it has no z/OS host"
        };
        return Err(format!(
            "--display shows the OSA adapter of each z/OS host, and {} has no z/OS host \
             with an OSA ({why})",
            args.scenario.display()
        )
        .into());
    }
    let mut runs: Vec<Rendered> = Vec::new();
    let mut html_runs: Vec<crate::sim_html::Run> = Vec::new();
    let mut displays = String::new();
    let mut displays_json: Vec<String> = Vec::new();
    let json = args.format == Format::Json;
    let display_format = if json {
        softosa_display::Format::Json
    } else {
        softosa_display::Format::Text
    };
    let ctx = softosa_display::DisplayContext::default();
    // The bar's second counts from the start of the whole command: six
    // variants of 0.9 s each ran 5 s without one.
    let started = Instant::now();
    for (i, v) in variants.iter().enumerate() {
        let label = variant_label(&v.label, i, variants.len());
        let (r, world) = run_world_since(&label, &v.setup, args.quiet, started)?;
        for kind in &kinds {
            for (host, engine) in world.engines() {
                // A distributor's connection routes are the simulator's.
                let routed;
                let routes = (*kind == softosa_display::DisplayKind::Vcrt)
                    .then(|| world.vcrt_routes(&host))
                    .flatten();
                let ctx = match routes {
                    Some(v) => {
                        routed = softosa_display::DisplayContext {
                            vcrt: Some(v),
                            ..ctx.clone()
                        };
                        &routed
                    }
                    None => &ctx,
                };
                let text = softosa_display::render(*kind, engine, ctx, None, display_format)?;
                if json {
                    displays_json.push(json_element(&serde_json::json!({
                        "variant": v.label,
                        "host": host,
                        "kind": kind.word(),
                        "display": serde_json::from_str::<serde_json::Value>(&text)?,
                    }))?);
                    continue;
                }
                displays.push_str(&format!(
                    "==== {} on host {host} ({})\n{text}\n",
                    kind.word(),
                    v.label
                ));
            }
        }
        if !kinds.is_empty() && !json {
            // A z/OS host on HiperSockets has no OSA to display: say so,
            // rather than leave its displays silently missing.
            for h in v
                .setup
                .hosts
                .iter()
                .filter(|h| h.kind == crate::world::HostKind::Zos && h.adapter.is_none())
            {
                displays.push_str(&format!(
                    "==== no displays of host {} ({}): it is on HiperSockets, with no OSA \
                     adapter (the displays show an OSA's engine)\n\n",
                    h.name, v.label
                ));
            }
        }
        if args.html.is_some() {
            html_runs.push(crate::sim_html::Run::of(&v.label, &r));
        }
        runs.push(Rendered::new(
            &v.label,
            &r,
            args.format,
            args.html.is_some(),
        )?);
    }
    // The seed the runs used (--seed overrides the file's).
    let seed = args.seed.unwrap_or(sc.file.seed);
    if let Some(path) = &args.html {
        // The table as the text's side-by-side one.
        let table: Vec<(String, String, String)> = side_rows(&runs)
            .map(|(label, w)| (label.to_string(), w.workload.clone(), w.cells.clone()))
            .collect();
        let title = sc.file.name.clone().unwrap_or_else(|| sc.path.clone());
        let page = crate::sim_html::render(&title, seed, &html_runs, &table);
        write_page(path, page, args.quiet)?;
    }
    let mut out = render(&sc, seed, runs, args.format, displays_json)?;
    if !displays.is_empty() {
        out.push(displays);
    }
    Ok(out)
}

/// Write `--html`'s page and say so on standard error (standard output is
/// the results').
fn write_page(path: &std::path::Path, page: String, quiet: bool) -> Result<(), String> {
    std::fs::write(path, page).map_err(|e| format!("--html {}: {e}", path.display()))?;
    if !quiet {
        softosa_display::note!("report written to {}", path.display());
    }
    Ok(())
}

/// `--vary FIELD=V1,V2,...`: the field and its values, each read as a TOML
/// value (`10`, `0.001`, `true`, `"x"`) or else taken as a string
/// (`BALANCED`, `DYNAMIC WORKLOADQ`, `10g`); values that are arrays are
/// given as one TOML array, `FIELD=[[1, 2, 3, 4], [1, 1, 2, 2]]`.
fn vary_arg(s: &str) -> Result<(String, Vec<toml::Value>), String> {
    let (field, list) = s
        .split_once('=')
        .map(|(f, l)| (f.trim(), l.trim()))
        .filter(|(f, l)| !f.is_empty() && !l.is_empty())
        .ok_or("FIELD=V1,V2,... (e.g. inbperf=BALANCED,DYNAMIC)")?;
    let toml_value = |t: &str| {
        toml::from_str::<toml::Table>(&format!("v = {t}"))
            .ok()
            .and_then(|mut tb| tb.remove("v"))
    };
    let values = if list.starts_with('[') {
        match toml_value(list) {
            Some(toml::Value::Array(a)) => a,
            _ => return Err(format!("{list}: not a TOML array of values")),
        }
    } else {
        list.split(',')
            .map(str::trim)
            .map(|t| toml_value(t).unwrap_or_else(|| toml::Value::String(t.to_string())))
            .collect()
    };
    Ok((field.to_string(), values))
}

/// `--duration-ms`: what a scenario's `duration_ms` may be.
fn duration_ms(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(d) if crate::scenario::DURATION_MS.contains(&d) => Ok(d),
        _ => Err(
            "a measured window in ms, from 0.000001 (one nanosecond) to 600000 \
                  (ten minutes)"
                .into(),
        ),
    }
}

/// `softosa sim --seeds N`: every variant with N seeds, summarised by
/// [`crate::spread`]; CSV gives every run's own rows, with its seed.
fn seeded(
    args: &SimArgs,
    sc: &Scenario,
    variants: Vec<crate::scenario::Variant>,
) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let first = args.seed.unwrap_or(sc.file.seed);
    if first.checked_add(args.seeds - 1).is_none() {
        // The next seeds would wrap to 0, 1, ...: not "the next ones".
        return Err(Box::new(Usage(format!(
            "--seeds {}: the seeds after {first} pass the largest seed, {}; give a smaller \
             --seed",
            args.seeds,
            u64::MAX
        ))));
    }
    let seeds: Vec<u64> = (0..args.seeds).map(|k| first + k).collect();
    let mut all = crate::spread::SeedRuns::new(seeds.clone());
    let mut csv = vec![format!("seed,{}\n", args.format.csv_header())];
    let started = Instant::now();
    let total = variants.len() * seeds.len();
    for (i, v) in variants.iter().enumerate() {
        for (k, &seed) in seeds.iter().enumerate() {
            let mut setup = v.setup.clone();
            setup.seed = seed;
            let n = i * seeds.len() + k;
            let label = variant_label(&format!("{}, seed {seed}", v.label), n, total);
            let (r, _) = run_world_since(&label, &setup, args.quiet, started)?;
            if args.format.csv() {
                let rows = args.format.csv_rows(&r, &v.label);
                csv.extend(rows.lines().map(|l| format!("{seed},{l}\n")));
            }
            all.add(i, &v.label, &r);
        }
    }
    let scenario = sc.file.name.clone().unwrap_or_else(|| sc.path.clone());
    if let Some(path) = &args.html {
        write_page(path, all.to_html(&scenario), args.quiet)?;
    }
    Ok(match args.format {
        Format::Csv | Format::CsvHosts => csv,
        Format::Json => vec![format!(
            "{}\n",
            serde_json::to_string_pretty(&all.to_json(&scenario))?
        )],
        Format::Text => vec![all.to_text(sc.file.name.as_deref())],
    })
}

/// One finished run as it will be printed: its text, JSON or CSV, and
/// for the side-by-side table (the text's, or `--html`'s) its workloads'
/// main figures.
struct Rendered {
    label: String,
    /// The run's part of the output in the chosen format (for JSON, the
    /// element of `variants`, indented for its place).
    body: String,
    rows: Vec<SideRow>,
}

/// One line of the side-by-side table, without the variant's name.
struct SideRow {
    workload: String,
    cells: String,
}

impl Rendered {
    /// `side`: keep the side-by-side rows in any format (for `--html`).
    fn new(
        label: &str,
        r: &RunResult,
        f: Format,
        side: bool,
    ) -> Result<Rendered, serde_json::Error> {
        let body = match f {
            Format::Json => {
                json_element(&serde_json::json!({ "variant": label, "result": r.to_json()? }))?
            }
            Format::Csv | Format::CsvHosts => f.csv_rows(r, label),
            Format::Text => r.to_text(),
        };
        let rows = if f == Format::Text || side {
            r.workloads
                .iter()
                .map(|w| SideRow {
                    workload: w.name.clone(),
                    cells: side_cells(w),
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(Rendered {
            label: label.to_string(),
            body,
            rows,
        })
    }
}

/// A workload's main figures as the side-by-side table shows them. No
/// completed transaction: no latency, no CPU per transaction.
fn side_cells(w: &crate::report::WlResult) -> String {
    format!(
        "{:>10.0} {:>9.2} {:>9} {:>9} {:>10} {:>10}",
        w.transactions_per_s,
        w.mb_per_s,
        w.per_txn(w.latency_mean_us, 1),
        w.per_txn(w.latency_p99_us, 1),
        w.per_txn(w.cpu_us_per_txn_server, 2),
        w.per_mb_or(w.cpu_ms_per_mb_server, 2, "-")
    )
}

/// `v` pretty-printed as an element of an array that is itself a member
/// of the top-level object: every line but the first indented two levels,
/// as `serde_json::to_string_pretty` indents it inside the whole document.
fn json_element(v: &serde_json::Value) -> Result<String, serde_json::Error> {
    let text = serde_json::to_string_pretty(v)?;
    // A JSON string never holds a raw line break, so every '\n' is
    // between tokens.
    Ok(text.replace('\n', "\n    "))
}

/// The members of a pretty-printed array at the top level's first depth.
fn json_array(out: &mut Vec<String>, elements: Vec<String>) {
    if elements.is_empty() {
        out.push("[]".into());
        return;
    }
    out.push("[\n".into());
    let n = elements.len();
    for (i, e) in elements.into_iter().enumerate() {
        out.push("    ".into());
        out.push(e);
        out.push(if i + 1 < n {
            ",\n".into()
        } else {
            "\n  ]".into()
        });
    }
}

/// Each distinct line of `lines` (host, line) on standard error once, at
/// most [`NOTES_PER_HOST`] per host, then for each host with more a line
/// `more(host, how many more)`.
fn note_a_few_per_host<'a>(
    lines: impl Iterator<Item = (&'a str, String)>,
    more: impl Fn(&str, usize) -> String,
) {
    let mut seen = std::collections::BTreeSet::new();
    let mut per_host: std::collections::BTreeMap<&str, usize> = Default::default();
    for (host, line) in lines {
        if seen.insert(line.clone()) {
            let n = per_host.entry(host).or_default();
            *n += 1;
            if *n <= NOTES_PER_HOST {
                softosa_display::note!("{line}");
            }
        }
    }
    for (host, n) in per_host.iter().filter(|(_, n)| **n > NOTES_PER_HOST) {
        softosa_display::note!("{}", more(host, n - NOTES_PER_HOST));
    }
}

/// How many of a host's profile warnings (or notes) a run shows.
const NOTES_PER_HOST: usize = 3;

/// `--vary-on`'s names: each argument split at its commas, unless it is
/// itself the name of one of the scenario's hosts or workloads (a name
/// may hold a comma).
fn vary_on_names(args: &[String], sc: &Scenario) -> Vec<String> {
    let named = |t: &toml::Value| {
        t.get("name")
            .and_then(toml::Value::as_str)
            .map(str::trim)
            .map(str::to_string)
    };
    let names: Vec<String> = sc
        .file
        .hosts
        .iter()
        .chain(&sc.file.workloads)
        .filter_map(named)
        .collect();
    args.iter()
        .flat_map(|a| {
            if names.iter().any(|n| n == a.trim()) {
                vec![a.trim().to_string()]
            } else {
                a.split(',').map(|n| n.trim().to_string()).collect()
            }
        })
        .collect()
}

/// Refuse `--html` naming the scenario or a profile file it reads (through
/// a link or another spelling too): the report would replace it.
fn refuse_writing_an_input(
    scenario: &std::path::Path,
    sc: &Scenario,
    out: &std::path::Path,
) -> Result<(), Usage> {
    let base = scenario.parent().unwrap_or(std::path::Path::new("."));
    let profile_files = sc
        .file
        .hosts
        .iter()
        .filter_map(|h| h.get("profile"))
        .chain(
            sc.file
                .vary
                .iter()
                .filter(|v| v.field == "profile")
                .flat_map(|v| &v.values),
        )
        .filter_map(toml::Value::as_str)
        .map(|f| base.join(f));
    let inputs = std::iter::once(scenario.to_path_buf()).chain(profile_files);
    for input in inputs {
        if softosa_profile::load::same_file(&input, out) {
            return Err(Usage(format!(
                "--html {}: is the input {}; writing the report there would destroy it — \
                 choose another file",
                out.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Refuse an output path that would only fail after a long run: a
/// directory, or a file in a directory that does not exist.
pub fn check_output(flag: &str, path: &std::path::Path) -> Result<(), Usage> {
    if path.is_dir() {
        return Err(Usage(format!(
            "{flag} {}: is a directory; name a file",
            path.display()
        )));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            return Err(Usage(format!(
                "{flag} {}: the directory {} does not exist",
                path.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

/// Run one setup, showing a progress bar when it takes more than a second.
pub fn run_with_progress(
    label: &str,
    setup: &crate::world::Setup,
    quiet: bool,
) -> Result<RunResult, crate::world::WorldError> {
    run_world(label, setup, quiet).map(|(r, _)| r)
}

/// As [`run_with_progress`], keeping the finished world (for displays).
pub fn run_world(
    label: &str,
    setup: &crate::world::Setup,
    quiet: bool,
) -> Result<(RunResult, crate::world::World), crate::world::WorldError> {
    run_world_since(label, setup, quiet, Instant::now())
}

/// A run's name on its progress bar: which of a `[vary]`'s runs it is.
fn variant_label(label: &str, i: usize, n: usize) -> String {
    if n > 1 {
        format!("{label} ({} of {n})", i + 1)
    } else {
        label.to_string()
    }
}

/// As [`run_world`], one of several runs of a command that began at
/// `started`: the bar shows once the command (not this run) has taken more
/// than a second.
fn run_world_since(
    label: &str,
    setup: &crate::world::Setup,
    quiet: bool,
    started: Instant,
) -> Result<(RunResult, crate::world::World), crate::world::WorldError> {
    let start = Instant::now();
    let mut bar: Option<ProgressBar> = None;
    let terminal = std::io::stderr().is_terminal();
    let mut beat = Heartbeat::new(Duration::from_secs(30));
    let (r, world) = crate::run_setup(setup, |t, end| {
        if quiet {
            return;
        }
        if !terminal {
            // A log file or CI, where no bar is drawn: a line now and then,
            // so a long run (up to 600 s simulated per variant) is never
            // silent for hours.
            if beat.due(start.elapsed()) {
                softosa_display::note!(
                    "{label}: {} of {} ms simulated after {:.0} s",
                    t / 1_000_000,
                    end / 1_000_000,
                    start.elapsed().as_secs_f64()
                );
            }
            return;
        }
        if bar.is_none() && started.elapsed() > Duration::from_secs(1) {
            let b = ProgressBar::new(end / 1_000_000);
            b.set_style(
                ProgressStyle::with_template(
                    "{msg} [{bar:40}] {pos}/{len} ms simulated, about {eta} left in this run",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b.set_message(label.to_string());
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_position(t / 1_000_000);
        }
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok((r, world))
}

/// When a run without a progress bar should log a line: every `every`.
struct Heartbeat {
    every: Duration,
    next: Duration,
}

impl Heartbeat {
    fn new(every: Duration) -> Self {
        Heartbeat { every, next: every }
    }

    /// True once per `every` of elapsed time (never twice for one period,
    /// however often it is asked).
    fn due(&mut self, elapsed: Duration) -> bool {
        if elapsed < self.next {
            return false;
        }
        while self.next <= elapsed {
            self.next += self.every;
        }
        true
    }
}

fn render(
    sc: &Scenario,
    seed: u64,
    runs: Vec<Rendered>,
    f: Format,
    displays: Vec<String>,
) -> Result<Vec<String>, serde_json::Error> {
    let mut out = Vec::new();
    match f {
        Format::Json => {
            // The document serde_json would print for {displays, scenario,
            // seed, variants} (its keys in that order), built from the
            // runs' pieces.
            let scenario = sc.file.name.clone().unwrap_or_else(|| sc.path.clone());
            out.push("{\n".into());
            if !displays.is_empty() {
                out.push("  \"displays\": ".into());
                json_array(&mut out, displays);
                out.push(",\n".into());
            }
            out.push(format!(
                "  \"scenario\": {},\n  \"seed\": {},\n  \"variants\": ",
                serde_json::to_string(&scenario)?,
                serde_json::to_string(&seed)?
            ));
            json_array(&mut out, runs.into_iter().map(|r| r.body).collect());
            out.push("\n}\n".into());
        }
        Format::Csv | Format::CsvHosts => {
            out.push(format!("{}\n", f.csv_header()));
            out.extend(runs.into_iter().map(|r| r.body));
        }
        Format::Text => {
            if let Some(n) = &sc.file.name {
                out.push(format!("scenario: {n}\n"));
            }
            if runs.len() > 1 {
                out.push(side_by_side(&runs));
                out.push("\n".into());
            }
            let many = runs.len() > 1;
            for r in runs {
                if many {
                    out.push(format!("==== variant {}\n", r.label));
                }
                out.push(r.body);
                out.push("\n".into());
            }
        }
    }
    Ok(out)
}

/// One line per workload and variant: the comparison people want first.
fn side_by_side(runs: &[Rendered]) -> String {
    let mut s = String::new();
    let vw = runs.iter().map(|r| r.label.len()).fold(22, usize::max);
    let ww = runs
        .iter()
        .flat_map(|r| r.rows.iter().map(|w| w.workload.len()))
        .fold(18, usize::max);
    s.push_str(&format!(
        "{:<vw$} {:<ww$} {:>10} {:>9} {:>9} {:>9} {:>10} {:>10}\n",
        "variant", "workload", "trans/s", "MB/s", "mean us", "p99 us", "cpu us/tr", "srv ms/MB"
    ));
    for (label, w) in side_rows(runs) {
        s.push_str(&format!("{:<vw$} {:<ww$} {}\n", label, w.workload, w.cells));
    }
    s
}

/// The side-by-side order: workload by workload, each variant's row.
fn side_rows(runs: &[Rendered]) -> impl Iterator<Item = (&str, &SideRow)> {
    let n = runs.iter().map(|r| r.rows.len()).max().unwrap_or(0);
    (0..n).flat_map(move |i| {
        runs.iter()
            .filter_map(move |r| Some((r.label.as_str(), r.rows.get(i)?)))
    })
}

pub use crate::reproduce::{run as run_reproduce, ReproduceArgs};
pub use softosa_display::cli::Usage;

#[cfg(test)]
mod tests {
    use super::*;

    /// The output for runs already made, as `softosa sim` renders them.
    fn render_all(
        sc: &Scenario,
        results: &[(String, RunResult)],
        f: Format,
    ) -> Result<String, serde_json::Error> {
        let runs = results
            .iter()
            .map(|(l, r)| Rendered::new(l, r, f, false))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(render(sc, 1, runs, f, Vec::new())?.concat())
    }

    /// Every run of `sc`, in order, with its label.
    fn run_variants(sc: &Scenario) -> Vec<(String, RunResult)> {
        sc.variants()
            .unwrap()
            .into_iter()
            .map(|v| {
                let r = run_with_progress(&v.label, &v.setup, true).unwrap();
                (v.label, r)
            })
            .collect()
    }

    /// The text of scenarios/quick-rr.toml, the scenario `args` names, for
    /// a test to change before parsing it with [`Scenario::parse`].
    fn quick_rr() -> String {
        std::fs::read_to_string(args(Format::Text, &[]).scenario).unwrap()
    }

    fn args(format: Format, display: &[&str]) -> SimArgs {
        SimArgs {
            scenario: PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../scenarios/quick-rr.toml"
            )),
            format,
            seed: None,
            seeds: 1,
            duration_ms: None,
            html: None,
            vary: None,
            vary_on: Vec::new(),
            models: false,
            quiet: true,
            display: display.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// `args` for a short quick-rr with a `[vary]` of BALANCED and DYNAMIC,
    /// written to a file of its own named `tag`.
    fn short_vary(format: Format, tag: &str) -> SimArgs {
        let text = quick_rr().replace("duration_ms = 100", "duration_ms = 8")
            + "\n[vary]\nfield = \"inbperf\"\nvalues = [\"BALANCED\", \"DYNAMIC\"]\n";
        let path =
            std::env::temp_dir().join(format!("softosa-seeds-{}-{tag}.toml", std::process::id()));
        std::fs::write(&path, text).unwrap();
        SimArgs {
            scenario: path,
            ..args(format, &[])
        }
    }

    /// `--format csv-hosts`: a row per variant and host, every row as wide
    /// as the header, each figure the JSON's for that host; a peer without
    /// an OSA leaves the adapter's fields empty. With --seeds, each run's
    /// rows with its seed.
    #[test]
    fn csv_hosts_gives_each_hosts_figures_as_the_json_has_them() {
        let a = short_vary(Format::CsvHosts, "csvhosts");
        let csv = output(&a).unwrap();
        let doc: serde_json::Value = serde_json::from_str(
            &output(&SimArgs {
                format: Format::Json,
                ..a.clone()
            })
            .unwrap(),
        )
        .unwrap();
        let mut lines = csv.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(
            head,
            RunResult::CSV_HOSTS_HEADER.split(',').collect::<Vec<_>>()
        );
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), 4, "{csv}");
        let col = |row: &[&str], name: &str| {
            row[head.iter().position(|h| *h == name).unwrap()].to_string()
        };
        for (k, row) in rows.iter().enumerate() {
            assert_eq!(row.len(), head.len(), "{row:?}");
            let h = &doc["variants"][k / 2]["result"]["hosts"][k % 2];
            assert_eq!(col(row, "host"), h["name"].as_str().unwrap());
            assert_eq!(col(row, "sigas"), h["tcp"]["sigas"].to_string());
            assert_eq!(
                col(row, "link_in_frames"),
                h["link_in"]["frames"].to_string()
            );
            let cpu: f64 = col(row, "cpu_busy_pct").parse().unwrap();
            assert!((cpu - h["cpu_busy_pct"].as_f64().unwrap()).abs() < 5e-4);
            match h["adapter"].as_object() {
                Some(ad) => {
                    let busy: f64 = col(row, "adapter_busy_pct").parse().unwrap();
                    let want = ad["microprocessor_busy_pct"].as_f64().unwrap();
                    assert!(busy > 0.0 && (busy - want).abs() < 5e-4, "{busy} {want}");
                }
                None => assert_eq!(col(row, "adapter_busy_pct"), ""),
            }
        }
        let seeded = output(&SimArgs { seeds: 2, ..a }).unwrap();
        assert!(seeded.starts_with("seed,variant,host,"), "{seeded}");
        assert_eq!(seeded.lines().count(), 1 + 2 * 4, "{seeded}");
    }

    /// Every figure `--seeds` reports is the one the single run with that
    /// seed gives, and each change is the paired one of those runs.
    #[test]
    fn several_seeds_report_the_single_runs_and_their_paired_changes() {
        let mut a = short_vary(Format::Json, "json");
        a.seed = Some(4);
        a.seeds = 3;
        let doc: serde_json::Value = serde_json::from_str(&output(&a).unwrap()).unwrap();
        assert_eq!(doc["seeds"], serde_json::json!([4, 5, 6]));
        let vs = doc["variants"].as_array().unwrap();
        assert_eq!(vs.len(), 2);
        assert_eq!(vs[1]["changes_against"], "BALANCED");
        let single: Vec<serde_json::Value> = (4..7)
            .map(|seed| {
                let mut one = a.clone();
                one.seeds = 1;
                one.seed = Some(seed);
                serde_json::from_str(&output(&one).unwrap()).unwrap()
            })
            .collect();
        let mut differ = false;
        for (v, var) in vs.iter().enumerate() {
            for (w, wl) in var["workloads"].as_array().unwrap().iter().enumerate() {
                for key in ["transactions_per_s", "mb_per_s", "cpu_ms_per_mb_server"] {
                    let runs: Vec<f64> = wl[key]["runs"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_f64().unwrap())
                        .collect();
                    for (k, one) in single.iter().enumerate() {
                        let r = &one["variants"][v]["result"]["workloads"][w];
                        assert_eq!(wl["workload"], r["name"]);
                        assert_eq!(runs[k], r[key].as_f64().unwrap(), "{key} seed {k}");
                        if v == 1 {
                            let b = one["variants"][0]["result"]["workloads"][w][key]
                                .as_f64()
                                .unwrap();
                            let ch = &var["changes"][w][key]["runs"][k];
                            if b == 0.0 {
                                // No change against nothing (a stream's
                                // zero whole transactions).
                                assert!(ch.is_null(), "{key}: {ch}");
                            } else {
                                let ch = ch.as_f64().unwrap();
                                assert!((ch - (runs[k] / b - 1.0)).abs() < 1e-12, "{key}");
                            }
                        }
                    }
                    let mean = runs.iter().sum::<f64>() / runs.len() as f64;
                    assert!((wl[key]["mean"].as_f64().unwrap() - mean).abs() < 1e-9);
                    let lo = runs.iter().copied().fold(f64::INFINITY, f64::min);
                    assert_eq!(wl[key]["min"].as_f64().unwrap(), lo);
                    differ |= runs.iter().any(|x| *x != runs[0]);
                }
            }
        }
        assert!(differ, "three seeds gave three identical runs");
    }

    #[test]
    fn several_seeds_in_csv_are_each_runs_rows_with_its_seed() {
        let mut a = short_vary(Format::Csv, "csv");
        a.seeds = 2;
        let out = output(&a).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], format!("seed,{}", RunResult::CSV_HEADER));
        // 2 variants x 2 seeds x 2 workloads, variant by variant.
        assert_eq!(lines.len(), 1 + 8);
        for seed in [1u64, 2] {
            let mut one = a.clone();
            one.seeds = 1;
            one.seed = Some(seed);
            let single = output(&one).unwrap();
            let mine: Vec<&str> = lines[1..]
                .iter()
                .filter_map(|l| l.strip_prefix(&format!("{seed},")))
                .collect();
            let theirs: Vec<&str> = single.lines().skip(1).collect();
            assert_eq!(mine, theirs, "seed {seed}");
        }
    }

    #[test]
    fn several_seeds_in_text_show_means_and_changes_and_repeat_exactly() {
        let mut a = short_vary(Format::Text, "text");
        a.seeds = 2;
        let out = output(&a).unwrap();
        assert!(out.contains("2 runs per variant (seeds 1 to 2)"), "{out}");
        assert!(out.contains("change against BALANCED"), "{out}");
        let dynamic_rr = out
            .lines()
            .filter(|l| l.starts_with("DYNAMIC") && l.contains("RR10"))
            .nth(1)
            .expect("a change line for DYNAMIC's RR10");
        assert!(dynamic_rr.contains("trans/s +") || dynamic_rr.contains("trans/s -"));
        assert!(dynamic_rr.contains("cpu us/tr"), "{dynamic_rr}");
        assert_eq!(out, output(&a).unwrap(), "same seeds, same bytes");
        // One scenario run: no change to show.
        let mut one = args(Format::Text, &[]);
        one.seeds = 2;
        let text = output(&one).unwrap();
        assert!(!text.contains("change against"), "{text}");
    }

    #[test]
    fn the_measured_window_can_be_set_from_the_command_line() {
        let mut a = args(Format::Json, &[]);
        a.duration_ms = Some(7.5);
        let doc: serde_json::Value = serde_json::from_str(&output(&a).unwrap()).unwrap();
        let w = doc["variants"][0]["result"]["window_s"].as_f64().unwrap();
        assert!((w - 0.0075).abs() < 1e-12, "window {w} s");
        #[derive(Debug, clap::Parser)]
        struct T {
            #[command(flatten)]
            a: SimArgs,
        }
        // An error the shorter window causes says where the length came from.
        let quick = quick_rr();
        let path = std::env::temp_dir().join(format!("softosa-dur-{}.toml", std::process::id()));
        let text = quick.replace("seed = 1", "seed = 1\nsample_us = 50000");
        std::fs::write(&path, text).unwrap();
        let mut a = args(Format::Text, &[]);
        a.scenario = path.clone();
        a.duration_ms = Some(1.0);
        let e = output(&a).unwrap_err().to_string();
        let _ = std::fs::remove_file(&path);
        assert!(e.contains("sample_us 50000"), "{e}");
        assert!(
            e.contains("--duration-ms 1, not the file's duration_ms 100"),
            "{e}"
        );
        for bad in ["0", "-1", "600001", "ten", "NaN"] {
            let e = <T as clap::Parser>::try_parse_from(["sim", "x.toml", "--duration-ms", bad])
                .unwrap_err()
                .to_string();
            assert!(e.contains("ten minutes"), "{bad}: {e}");
        }
    }

    /// `--html`: every row in the table, the charts each workload kind and
    /// the hosts get, names escaped, standard output untouched, the same
    /// page twice.
    #[test]
    fn the_html_report_charts_every_workload_and_leaves_stdout_alone() {
        let mut a = short_vary(Format::Csv, "html");
        let plain = output(&a).unwrap();
        // A name that must be escaped in HTML.
        let text = std::fs::read_to_string(&a.scenario).unwrap().replace(
            "[[workload]]\ntype = \"RR\"",
            "[[workload]]\nname = \"RR<10>\"\ntype = \"RR\"",
        );
        assert!(text.contains("RR<10>"), "quick-rr names its RR workload");
        std::fs::write(&a.scenario, text).unwrap();
        let page = a.scenario.with_extension("html");
        a.html = Some(page.clone());
        let out = output(&a).unwrap();
        assert_eq!(
            out,
            plain.replace("RR10(100/800)", "RR<10>"),
            "stdout is the CSV alone"
        );
        let h = std::fs::read_to_string(&page).unwrap();
        assert!(
            h.contains("RR&lt;10&gt;") && !h.contains("RR<10>"),
            "escaped"
        );
        // Two variants x two workloads in the table.
        assert_eq!(h.matches("<tr><td>").count(), 4);
        assert!(h.contains("<td>BALANCED</td>") && h.contains("<td>DYNAMIC</td>"));
        // RR: throughput, latency, CPU bars and the distribution; STR:
        // throughput and CPU per MB; hosts: microprocessor and CPU.
        assert_eq!(h.matches("<svg").count(), 4 + 2 + 2, "{h}");
        assert!(h.contains("RR&lt;10&gt;: latency distribution"));
        assert_eq!(h, {
            output(&a).unwrap();
            std::fs::read_to_string(&page).unwrap()
        });
        // Sampled timers add one chart per adapter and variant.
        let text = std::fs::read_to_string(&a.scenario)
            .unwrap()
            .replace("seed = 1", "seed = 1\nsample_us = 1000");
        std::fs::write(&a.scenario, text).unwrap();
        output(&a).unwrap();
        let h = std::fs::read_to_string(&page).unwrap();
        assert_eq!(
            h.matches("<svg").count(),
            8 + 2,
            "one z/OS host, two variants"
        );
        let _ = std::fs::remove_file(&page);
        let _ = std::fs::remove_file(&a.scenario);
    }

    #[test]
    fn the_html_report_is_refused_where_it_could_not_be_written() {
        let mut a = args(Format::Text, &[]);
        a.html = Some(std::env::temp_dir());
        let e = output(&a).unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        a.html = Some(std::env::temp_dir().join("softosa-nonexistent-dir/r.html"));
        let e = output(&a).unwrap_err().to_string();
        assert!(e.contains("does not exist"), "{e}");
    }

    /// `--html` with `--seeds`: per workload and figure the means with a
    /// whisker each, and the changes against the first variant the same way.
    #[test]
    fn the_html_report_of_several_seeds_draws_each_spread() {
        let mut a = short_vary(Format::Text, "html-seeds");
        a.seeds = 3;
        let page = a.scenario.with_extension("html");
        a.html = Some(page.clone());
        let text = output(&a).unwrap();
        let h = std::fs::read_to_string(&page).unwrap();
        let _ = std::fs::remove_file(&page);
        let _ = std::fs::remove_file(&a.scenario);
        // RR: three figures and their changes; STR: two and their changes.
        assert_eq!(h.matches("<svg").count(), (3 + 1) + (2 + 1), "{h}");
        // A whisker per bar: 2 variants x 5 figures, 1 change x 5 figures.
        assert_eq!(h.matches("<path d=").count(), 2 * 5 + 5);
        assert!(h.contains("change against BALANCED"));
        // The page carries the text's tables, escaped.
        let first = text.lines().nth(1).unwrap();
        assert!(h.contains(&first.replace('>', "&gt;")), "{first}");
    }

    /// `--vary` runs as the same `[vary]` written in the file would, with
    /// numbers read as numbers and words as strings, and `--vary-on`
    /// choosing workloads by name.
    #[test]
    fn a_vary_from_the_command_line_runs_as_the_file_s_would() {
        let quick = quick_rr()
            .replace("duration_ms = 100", "duration_ms = 8")
            .replace(
                "[[workload]]\ntype = \"RR\"",
                "[[workload]]\nname = \"rr\"\ntype = \"RR\"",
            );
        let dir = std::env::temp_dir();
        let plain = dir.join(format!("softosa-vary-{}.toml", std::process::id()));
        let written = dir.join(format!("softosa-vary-file-{}.toml", std::process::id()));
        std::fs::write(&plain, &quick).unwrap();
        std::fs::write(
            &written,
            quick.clone()
                + "\n[vary]\nfield = \"connections\"\nworkloads = [\"rr\"]\nvalues = [1, 4]\n",
        )
        .unwrap();
        let mut a = args(Format::Csv, &[]);
        a.scenario = written.clone();
        let from_file = output(&a).unwrap();
        a.scenario = plain.clone();
        a.vary = Some(vary_arg("connections=1, 4").unwrap());
        a.vary_on = vec!["rr".into()];
        assert_eq!(output(&a).unwrap(), from_file);
        assert_eq!(
            from_file.lines().count(),
            1 + 4,
            "two runs of two workloads"
        );
        // A file with a [vary] of its own is not varied twice.
        a.scenario = written.clone();
        let e = output(&a).unwrap_err().to_string();
        assert!(e.contains("has a [vary] of its own"), "{e}");
        // An error in the values names the flag.
        a.scenario = plain.clone();
        a.vary = Some(vary_arg("inbperf=BALANCED,FAST").unwrap());
        a.vary_on = Vec::new();
        let e = output(&a).unwrap_err().to_string();
        assert!(
            e.contains("\"FAST\"") && e.contains("--vary inbperf="),
            "{e}"
        );
        // A host field with no z/OS host to fall back on: the fix named
        // is the command line's own (--vary-on), not the file's hosts list.
        let guests = std::env::temp_dir().join(format!("softosa-zv-{}.toml", std::process::id()));
        let zv = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/zvm-vswitch.toml"
        ))
        .unwrap();
        std::fs::write(&guests, zv.split("\n[vary]").next().unwrap()).unwrap();
        a.scenario = guests.clone();
        a.vary = Some(vary_arg("vswitch=ip,ethernet").unwrap());
        let e = output(&a).unwrap_err().to_string();
        assert!(
            e.contains("(--vary-on NAME,...)") && !e.contains("hosts ="),
            "{e}"
        );
        let _ = std::fs::remove_file(&guests);
        a.scenario = plain.clone();
        // A model parameter: every host on the set changes, so no
        // --vary-on; the runs are the values.
        a.vary = Some(vary_arg("models.machine.z10.interrupt_ns=1500,6000").unwrap());
        a.vary_on = vec!["rr".into()];
        let e = output(&a).unwrap_err().to_string();
        assert!(
            e.contains("--vary-on: models.machine.z10.interrupt_ns"),
            "{e}"
        );
        // The file's rules for its hosts and workloads lists hold here too.
        a.vary = Some(vary_arg("connections=1,2").unwrap());
        for (on, says) in [
            (
                vec!["rr", "rr"],
                "--vary-on: \"rr\" is named twice (entry 2)",
            ),
            (vec![""], "--vary-on: entry 1 is an empty name"),
        ] {
            a.vary_on = on.iter().map(|s| s.to_string()).collect();
            let e = output(&a).unwrap_err();
            assert!(e.downcast_ref::<Usage>().is_some(), "{e}");
            assert_eq!(e.to_string(), says);
        }
        a.vary = Some(vary_arg("models.machine.z10.interrupt_ns=1500,6000").unwrap());
        a.vary_on = Vec::new();
        let csv = output(&a).unwrap();
        let rows: Vec<&str> = csv.lines().skip(1).collect();
        assert_eq!(rows.len(), 4, "{csv}");
        assert!(
            rows[0].starts_with("1500,rr,") && rows[2].starts_with("6000,rr,"),
            "{csv}"
        );
        // The dearer interrupt shows in the server's CPU per transaction.
        let server_cpu = |row: &str| row.split(',').nth(14).unwrap().parse::<f64>().unwrap();
        assert!(server_cpu(rows[2]) > server_cpu(rows[0]), "{csv}");
        // --models shows the set with the varied field, as TOML, and
        // runs nothing; it prints TOML only.
        a.models = true;
        let e = output(&a).unwrap_err().to_string();
        assert!(e.contains("--models prints TOML"), "{e}");
        a.format = Format::Text;
        let toml_text = output(&a).unwrap();
        assert!(
            toml_text.contains("[models.machine.z10]")
                && toml_text.contains("interrupt_ns = 1500  # varied by [vary]: 1500, 6000"),
            "{toml_text}"
        );
        assert!(toml_text.parse::<toml::Table>().is_ok(), "{toml_text}");
        a.models = false;
        a.format = Format::Csv;
        let _ = std::fs::remove_file(&plain);
        let _ = std::fs::remove_file(&written);
        // How values are read.
        let (f, v) = vary_arg("inbperf=BALANCED,DYNAMIC WORKLOADQ").unwrap();
        assert_eq!(f, "inbperf");
        assert_eq!(
            v,
            vec![
                toml::Value::from("BALANCED"),
                toml::Value::from("DYNAMIC WORKLOADQ")
            ]
        );
        let (_, v) = vary_arg("loss=0,0.001").unwrap();
        assert_eq!(v, vec![toml::Value::from(0), toml::Value::from(0.001)]);
        let (_, v) =
            vary_arg("wlm_priorityq_map=[[1, 2, 2, 3, 4, 4, 4], [1, 1, 2, 2, 3, 3, 4]]").unwrap();
        assert_eq!(v.len(), 2);
        assert!(v[0].is_array());
        for bad in ["inbperf", "=1,2", "inbperf=", "x=[1, 2"] {
            assert!(vary_arg(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn several_seeds_with_a_display_are_refused() {
        let mut a = args(Format::Text, &["tuning"]);
        a.seeds = 3;
        let e = output(&a).unwrap_err().to_string();
        assert!(e.contains("--seed S"), "{e}");
    }

    #[test]
    fn displays_never_corrupt_machine_readable_output() {
        // CSV has no place for a display: refused before anything runs.
        let e = run(args(Format::Csv, &["tuning"])).unwrap_err().to_string();
        assert!(e.contains("--format csv"), "{e}");
        // A scenario without an adapter to show: said before running.
        let mut a = args(Format::Text, &["tuning"]);
        a.scenario = a.scenario.with_file_name("vse-hipersockets.toml");
        let e = output(&a).unwrap_err().to_string();
        assert!(e.contains("no z/OS host"), "{e}");
        // JSON carries them as JSON: the output stays one document.
        let out = output(&args(Format::Json, &["tuning", "devlinks"])).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
        assert_eq!(doc["displays"][0]["host"], "zosb");
        assert_eq!(doc["displays"][0]["kind"], "tuning");
        assert_eq!(doc["displays"][1]["kind"], "devlinks");
        assert!(doc["displays"][0]["display"].is_object());
        assert_eq!(doc["seed"], 1, "the file's seed");
        // The JSON records the seed the run used, not the file's.
        let mut a = args(Format::Json, &[]);
        a.seed = Some(7);
        let doc: serde_json::Value = serde_json::from_str(&output(&a).unwrap()).unwrap();
        assert_eq!(doc["seed"], 7);
        assert!(doc["variants"].is_array());
    }

    #[test]
    fn a_zos_host_on_hipersockets_is_said_to_have_no_display() {
        let dir = std::env::temp_dir().join(format!("softosa-hs-disp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("hs.toml");
        std::fs::write(
            &f,
            r#"
duration_ms = 5
warmup_ms = 1
[hipersockets]
machine = "z14"
[[host]]
name = "A"
type = "zos"
machine = "z14"
ip = "10.20.0.1"
link = "hipersockets"
[[host]]
name = "B"
type = "zos"
machine = "z14"
ip = "10.20.0.2"
link = "hipersockets"
[[workload]]
type = "RR"
connections = 1
request = 100
response = 100
client = "A"
server = "B"
[vary]
field = "link"
values = ["hipersockets", "ethernet"]
"#,
        )
        .unwrap();
        let mut a = args(Format::Text, &["devlinks"]);
        a.scenario = f;
        let out = output(&a).unwrap();
        for h in ["A", "B"] {
            assert!(
                out.contains(&format!(
                    "==== no displays of host {h} (hipersockets): it is on HiperSockets"
                )),
                "{out}"
            );
            assert!(
                out.contains(&format!("==== devlinks on host {h} (ethernet)")),
                "{out}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The JSON is put together from each run's piece as the run ends; it
    /// must be exactly the document serde_json prints for the whole (keys
    /// in order, two-space indents), with and without displays, with
    /// several runs.
    #[test]
    fn json_assembled_run_by_run_is_the_whole_document_pretty_printed() {
        let quick = quick_rr();
        let text = quick.replace("duration_ms = 100", "duration_ms = 5")
            + "\n[vary]\nfield = \"inbperf\"\nvalues = [\"BALANCED\", \"DYNAMIC\"]\n";
        let sc = Scenario::parse("t.toml", &text).unwrap();
        let results = run_variants(&sc);
        let displays = [
            serde_json::json!({ "kind": "tuning", "display": { "queues": [1, {"a": "x\ny"}] } }),
            serde_json::json!({ "kind": "devlinks", "display": [] }),
        ];
        for shown in [0, 1, 2] {
            let runs = results
                .iter()
                .map(|(l, r)| Rendered::new(l, r, Format::Json, false))
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
            let pieces = displays[..shown].iter().map(|d| json_element(d).unwrap());
            let out = render(&sc, 9, runs, Format::Json, pieces.collect()).unwrap();
            let mut whole = serde_json::json!({
                "scenario": sc.file.name,
                "seed": 9,
                "variants": results
                    .iter()
                    .map(|(l, r)| serde_json::json!({ "variant": l, "result": r.to_json().unwrap() }))
                    .collect::<Vec<_>>(),
            });
            if shown > 0 {
                whole["displays"] = serde_json::Value::from(displays[..shown].to_vec());
            }
            let whole = serde_json::to_string_pretty(&whole).unwrap() + "\n";
            assert_eq!(out.concat(), whole, "{shown} displays");
        }
    }

    /// The path docs/scenarios.md gives for `jq`:
    /// `.variants[].result.hosts[].adapter.engine.counters.dropped_in`.
    #[test]
    fn engine_counters_are_at_the_documented_json_path() {
        let out = output(&args(Format::Json, &[])).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
        let hosts = doc["variants"][0]["result"]["hosts"]
            .as_array()
            .expect("hosts");
        let zosb = hosts
            .iter()
            .find(|h| h["name"] == "zosb")
            .expect("host zosb");
        let engine = &zosb["adapter"]["engine"];
        for dir in ["dropped_in", "dropped_out"] {
            assert!(
                engine["counters"][dir]["no_read_buffer"].is_u64(),
                "{dir}: {engine}"
            );
        }
        assert!(
            engine["counters"]["frames_in"].as_u64() > Some(0),
            "{engine}"
        );
        assert!(engine.get("engine").is_none(), "no engine.engine: {engine}");
        assert!(engine["interface"].is_object(), "{engine}");
    }

    #[test]
    fn a_display_given_twice_is_a_usage_error() {
        // "vtam" is tuning's alias: the same display under two words.
        for twice in [["tuning", "tuning"], ["TUNING", "vtam"]] {
            let e = output(&args(Format::Text, &twice)).unwrap_err();
            assert!(e.is::<Usage>(), "{e}");
            assert!(
                e.to_string().starts_with("--display tuning is given twice"),
                "{e}"
            );
        }
        let out = output(&args(Format::Text, &["tuning", "devlinks"])).unwrap();
        assert_eq!(out.matches("==== tuning on host zosb").count(), 1);
    }

    #[test]
    fn long_workload_names_keep_the_columns_in_line() {
        let text = r#"
duration_ms = 2
warmup_ms = 1
[[host]]
name = "zos"
type = "zos"
ip = "192.0.2.1"
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.2"
[[workload]]
name = "interactive-order-entry-from-branches"
type = "RR"
connections = 1
request = 100
response = 1000000000
client = "aix"
server = "zos"
[vary]
field = "inbperf"
values = ["BALANCED", "DYNAMIC"]
labels = ["BALANCED-with-the-default-read-storage", "DYNAMIC"]
"#;
        let sc = Scenario::parse("t.toml", text).unwrap();
        let results = run_variants(&sc);
        let out = render_all(&sc, &results, Format::Text).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        // Each table: the header's column starts are where the row's are.
        for (head, row) in [("variant ", "BALANCED-with"), ("workload ", "interactive")] {
            let h = lines.iter().position(|l| l.starts_with(head)).unwrap();
            let r = lines[h + 1..].iter().find(|l| l.starts_with(row)).unwrap();
            let starts = |l: &str| -> Vec<usize> {
                let b = l.as_bytes();
                (1..b.len())
                    .filter(|&i| b[i] != b' ' && b[i - 1] == b' ')
                    .collect()
            };
            // The second column (workload / kind) starts at the same place.
            assert_eq!(starts(lines[h])[0], starts(r)[0], "\n{}\n{r}", lines[h]);
        }
    }

    #[test]
    fn a_workload_that_moved_nothing_is_explained_by_the_adapters_drops() {
        // Nearly every frame into the z/OS host is corrupted, so no
        // connection gets going and the measured window shows nothing.
        let text = r#"
duration_ms = 30
warmup_ms = 10
[[host]]
name = "zos"
type = "zos"
ip = "192.0.2.2"
loss = 0.999
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.10"
[[workload]]
type = "RR"
connections = 2
request = 100
response = 100
client = "aix"
server = "zos"
"#;
        let sc = Scenario::parse("t.toml", text).unwrap();
        let results = run_variants(&sc);
        let out = render_all(&sc, &results, Format::Text).unwrap();
        let line = out
            .lines()
            .find(|l| l.starts_with("note: host zos's adapter dropped"))
            .unwrap_or_else(|| panic!("no note on the drops: {out}"));
        assert!(line.contains("injected frame error"), "{line}");
        let n: u64 = line
            .split_whitespace()
            .nth(5)
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(n >= 2, "at least the two SYNs: {line}");
        assert!(
            !out.contains("note: host aix's"),
            "the peer dropped nothing: {out}"
        );
    }

    #[test]
    fn a_workload_without_a_completed_transaction_shows_no_latency() {
        // quick-rr's 20 MB stream response does not complete in 100 ms.
        let out = output(&args(Format::Text, &[])).unwrap();
        let row = out.lines().find(|l| l.starts_with("STR1(")).unwrap();
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cols[4], "0", "trans/s: {row}");
        assert!(cols[5].parse::<f64>().unwrap() > 0.0, "MB/s: {row}");
        assert_eq!(&cols[6..10], ["-", "-", "-", "-"], "{row}");
        assert!(out.contains("- : no transaction completed"), "{out}");
        let rr = out.lines().find(|l| l.starts_with("RR10(")).unwrap();
        assert!(!rr.contains(" - "), "{rr}");
        // For scripts the same values are missing, not 0: empty CSV fields
        // and JSON nulls, while the RR workload keeps its numbers.
        let csv = output(&args(Format::Csv, &[])).unwrap();
        let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let col = |row: &str, name: &str| {
            let i = head.iter().position(|h| *h == name).unwrap();
            row.split(',').nth(i).unwrap().to_string()
        };
        let str_row = csv.lines().find(|l| l.contains(",STR1(")).unwrap();
        let rr_row = csv.lines().find(|l| l.contains(",RR10(")).unwrap();
        for k in crate::report::WlResult::PER_TXN_FIELDS {
            assert_eq!(col(str_row, k), "", "{k}: {str_row}");
            assert!(
                col(rr_row, k).parse::<f64>().unwrap() > 0.0,
                "{k}: {rr_row}"
            );
        }
        assert!(col(str_row, "mb_per_s").parse::<f64>().unwrap() > 0.0);
        let doc: serde_json::Value =
            serde_json::from_str(&output(&args(Format::Json, &[])).unwrap()).unwrap();
        let ws = &doc["variants"][0]["result"]["workloads"];
        let by = |n: &str| {
            ws.as_array()
                .unwrap()
                .iter()
                .find(|w| w["name"].as_str().unwrap().starts_with(n))
                .unwrap()
                .clone()
        };
        for k in crate::report::WlResult::PER_TXN_FIELDS {
            assert!(by("STR1")[k].is_null(), "{k}");
            assert!(by("RR10")[k].as_f64().unwrap() > 0.0, "{k}");
        }
    }

    #[test]
    fn a_workload_that_delivered_nothing_shows_no_cpu_per_mb() {
        // A window of 100 ns: no payload arrives in it.
        let quick = quick_rr();
        let text = quick.replace("duration_ms = 100", "duration_ms = 0.0001");
        let sc = Scenario::parse("t.toml", &text).unwrap();
        let v = &sc.variants().unwrap()[0];
        let r = run_with_progress(&v.label, &v.setup, true).unwrap();
        assert!(r.workloads.iter().all(|w| w.delivered_nothing()));
        let results = vec![(v.label.clone(), r)];
        let json = render_all(&sc, &results, Format::Json).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        for w in doc["variants"][0]["result"]["workloads"]
            .as_array()
            .unwrap()
        {
            for k in crate::report::WlResult::PER_MB_FIELDS {
                assert!(w[k].is_null(), "{k}: {w}");
            }
        }
        let csv = render_all(&sc, &results, Format::Csv).unwrap();
        // (the per-MB columns, then think_us)
        for row in csv.lines().skip(1) {
            assert!(row.ends_with(",,,0"), "{row}");
        }
        let text = render_all(&sc, &results, Format::Text).unwrap();
        let row = text.lines().find(|l| l.starts_with("RR10(")).unwrap();
        assert!(row.ends_with("        -         -"), "{row}");
        assert!(text.contains("- in ms/MB: no payload delivered"), "{text}");
    }

    #[test]
    fn timer_samples_are_shown_when_the_scenario_asks_for_them() {
        let quick = quick_rr();
        let run = |text: &str, format: Format| {
            let sc = Scenario::parse("t.toml", text).unwrap();
            render_all(&sc, &run_variants(&sc), format).unwrap()
        };
        let sampled = quick.replace("seed = 1", "seed = 1\nsample_us = 5000");
        // quick-rr runs 20 ms of warm-up and 100 ms measured: a sample at
        // time 0 and every 5 ms after it.
        let doc: serde_json::Value = serde_json::from_str(&run(&sampled, Format::Json)).unwrap();
        let samples = doc["variants"][0]["result"]["hosts"][0]["adapter"]["timer_samples"]
            .as_array()
            .expect("timer_samples")
            .clone();
        assert_eq!(samples.len(), 25);
        for (i, x) in samples.iter().enumerate() {
            assert_eq!(x["t_us"].as_f64(), Some(i as f64 * 5000.0), "{x}");
            assert_eq!(x["queue"], "PRIMARY", "{x}");
            assert!(x["gap_us"].as_f64().unwrap() > 0.0, "{x}");
            assert!(x["block_us"].as_f64().unwrap() >= x["gap_us"].as_f64().unwrap());
        }
        let text = run(&sampled, Format::Text);
        assert!(text.contains("LAN-idle timer samples: 25 "));
        // The whole run is sampled: no word of stopping.
        assert!(!text.contains("sampling stopped"), "{text}");
        assert!(doc["variants"][0]["result"]["hosts"][0]["adapter"]
            .get("timer_samples_stopped_us")
            .is_none());
        // Not asked for: neither the key nor the line.
        let doc: serde_json::Value = serde_json::from_str(&run(&quick, Format::Json)).unwrap();
        assert!(doc["variants"][0]["result"]["hosts"][0]["adapter"]
            .get("timer_samples")
            .is_none());
        assert!(!run(&quick, Format::Text).contains("timer samples"));
    }

    #[test]
    fn the_runs_of_a_vary_share_the_timer_samples() {
        // Each run kept 200,000 samples until its results were printed: 64
        // runs sampled every microsecond took 14 GB with --format json.
        let quick = quick_rr();
        let sampled = quick.replace("seed = 1", "seed = 1\nsample_us = 1")
            + "[vary]\nfield = \"latency_us\"\nvalues = [10, 20]\n";
        let sc = Scenario::parse("t.toml", &sampled).unwrap();
        let mut total = 0;
        for (label, r) in run_variants(&sc) {
            let n: usize = r
                .hosts
                .iter()
                .filter_map(|h| h.adapter.as_ref())
                .map(|a| a.samples.len())
                .sum();
            // 120 ms sampled every µs: the run stops at its half.
            assert_eq!(n, crate::world::MAX_TIMER_SAMPLES / 2, "{label}");
            total += n;
            // ... and says so, with the time of its last sample.
            let stopped: Vec<f64> = r
                .hosts
                .iter()
                .filter_map(|h| h.adapter.as_ref())
                .filter_map(|a| a.samples_stopped_us)
                .collect();
            assert!(!stopped.is_empty(), "{label}");
            assert!(
                stopped.iter().all(|t| *t > 0.0 && *t < 120_000.0),
                "{stopped:?}"
            );
            let text = render_all(&sc, &[(label, r)], Format::Text).unwrap();
            assert!(
                text.contains("LAN-idle timer sampling stopped at "),
                "{text}"
            );
        }
        assert!(total <= crate::world::MAX_TIMER_SAMPLES, "{total}");
    }

    #[test]
    fn csv_rows_keep_their_columns_when_a_label_or_name_holds_a_comma() {
        // A [vary] over wlm_priorityq_map labels its runs "[1, 2, 2, ...]":
        // unquoted, each row had 23 fields under a 17-field header.
        let wlm = std::fs::read_to_string(
            args(Format::Text, &[])
                .scenario
                .with_file_name("wlm-priority.toml"),
        )
        .unwrap();
        let text = wlm
            .replace("duration_ms = 200", "duration_ms = 5")
            .replace("field = \"wlm_priorityq\"", "field = \"wlm_priorityq_map\"")
            .replace(
                "values = [false, true]",
                "values = [[1, 2, 2, 3, 4, 4, 4], [1, 1, 1, 1, 4, 4, 4]]",
            )
            .replace("labels = [\"no WLMPRIORITYQ\", \"WLMPRIORITYQ\"]\n", "")
            .replace(
                "wlm_priorityq_map = [1, 2, 2, 3, 4, 4, 4]",
                "wlm_priorityq = true",
            )
            .replace("name = \"stream\"", "name = \"bulk, \\\"FTP\\\"\"");
        let sc = Scenario::parse("t.toml", &text).unwrap();
        let results = run_variants(&sc);
        let csv = render_all(&sc, &results, Format::Csv).unwrap();
        // RFC 4180: fields split at commas outside double quotes, "" inside
        // quotes is one quote.
        let fields = |row: &str| -> Vec<String> {
            let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
            let mut chars = row.chars().peekable();
            while let Some(c) = chars.next() {
                match (c, quoted) {
                    ('"', true) if chars.peek() == Some(&'"') => {
                        chars.next();
                        cur.push('"');
                    }
                    ('"', _) => quoted = !quoted,
                    (',', false) => out.push(std::mem::take(&mut cur)),
                    _ => cur.push(c),
                }
            }
            out.push(cur);
            out
        };
        let mut lines = csv.lines();
        let head = fields(lines.next().unwrap());
        let rows: Vec<Vec<String>> = lines.map(fields).collect();
        assert_eq!(rows.len(), 4, "{csv}");
        for r in &rows {
            assert_eq!(r.len(), head.len(), "{csv}");
        }
        assert_eq!(rows[0][0], "[1, 2, 2, 3, 4, 4, 4]");
        assert_eq!(rows[3][0], "[1, 1, 1, 1, 4, 4, 4]");
        assert_eq!(rows[1][1], "bulk, \"FTP\"");
        assert_eq!(rows[1][2], "STR");
    }

    #[test]
    fn a_negative_seed_is_named_as_a_bad_value() {
        // Not "unexpected argument '-3'", as if it were an unknown flag.
        #[derive(Debug, clap::Parser)]
        enum T {
            Sim(SimArgs),
            Reproduce(crate::reproduce::ReproduceArgs),
        }
        for (cmd, flag) in [("sim", "--seed"), ("reproduce", "--seeds")] {
            let mut a = vec!["softosa", cmd];
            if cmd == "sim" {
                a.push("x.toml");
            }
            a.extend([flag, "-3"]);
            let e = <T as clap::Parser>::try_parse_from(a)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("invalid value '-3' for '{flag}")),
                "{e}"
            );
        }
    }

    #[test]
    fn a_variant_is_named_with_its_place_on_the_progress_bar() {
        assert_eq!(variant_label("DYNAMIC", 1, 6), "DYNAMIC (2 of 6)");
        assert_eq!(variant_label("base", 0, 1), "base");
        // A run that starts after the command's first second shows its
        // bar at once; quiet never does (nothing to see in a test, but it
        // must not fail).
        let sc = Scenario::parse(
            "t.toml",
            &quick_rr().replace("duration_ms = 100", "duration_ms = 1"),
        )
        .unwrap();
        let v = &sc.variants().unwrap()[0];
        let long_ago = Instant::now() - Duration::from_secs(5);
        let (r, _) = run_world_since(&v.label, &v.setup, true, long_ago).unwrap();
        assert!(r.workloads[0].transactions > 0);
    }

    /// --vary-on splits at commas, except an argument that is itself a
    /// host's or workload's name.
    #[test]
    fn vary_on_keeps_a_name_that_holds_a_comma() {
        let text = r#"
name = "t"
[[host]]
name = "zos, a"
type = "zos"
ip = "192.0.2.1"
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.2"
[[workload]]
name = "rr, small"
type = "RR"
connections = 1
request = 1
response = 1
client = "aix"
server = "zos, a"
[[workload]]
name = "str"
type = "STR"
connections = 1
request = 1
response = 1000
client = "aix"
server = "zos, a"
"#;
        let sc = Scenario::parse("t.toml", text).unwrap();
        let on =
            |a: &[&str]| vary_on_names(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>(), &sc);
        assert_eq!(on(&["rr, small"]), ["rr, small"]);
        assert_eq!(on(&[" zos, a "]), ["zos, a"]);
        assert_eq!(on(&["str,aix"]), ["str", "aix"]);
        assert_eq!(on(&["rr, small", "str"]), ["rr, small", "str"]);
        // Not a name: split, and the pieces are judged as names later.
        assert_eq!(on(&["rr,small"]), ["rr", "small"]);
    }

    #[test]
    fn a_run_without_a_terminal_logs_a_line_every_period() {
        let s = Duration::from_secs;
        let mut b = Heartbeat::new(s(30));
        assert!(!b.due(s(0)));
        assert!(!b.due(s(29)));
        assert!(b.due(s(30)));
        assert!(!b.due(s(31)), "once per period");
        assert!(b.due(s(95)), "a late call still logs");
        assert!(!b.due(s(100)), "and skips the periods it passed");
        assert!(b.due(s(120)));
    }

    #[test]
    fn an_output_path_that_cannot_be_written_is_refused() {
        let dir = std::env::temp_dir();
        assert!(check_output("--html", &dir)
            .unwrap_err()
            .0
            .contains("is a directory"));
        let e = check_output("--html", &dir.join("no-such-dir-softosa/x.html")).unwrap_err();
        assert!(e.0.contains("does not exist"), "{e}");
        assert!(check_output("--html", &dir.join("x.html")).is_ok());
        assert!(check_output("--html", std::path::Path::new("x.html")).is_ok());
        let e = crate::reproduce::run(crate::reproduce::ReproduceArgs {
            html: dir,
            only: Some("olm-rr1".into()),
            strict: false,
            json: true,
            seeds: 1,
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("--html"), "{e}");
    }
}
