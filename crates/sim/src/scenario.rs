//! Scenario files (simulator layer; spec 6.1 "A scenario file names ...").
//!
//! TOML: `[[host]]` tables (z/OS systems with their adapter and profile
//! settings, peers), `[[workload]]` tables, run length and seed, an optional
//! `[vary]` table that repeats the run with one setting changed, and an
//! optional `[models]` table overriding named parameter sets. Unknown fields
//! are errors reported with file, line and column. See docs/scenarios.md.

use crate::event::Ns;
use crate::link::LinkParams;
use crate::osa::OsaSetup;
use crate::params::Models;
use crate::workload::{Kind, WorkloadSpec};
use crate::world::{AdapterSetup, HostKind, HostSpec, Setup, SmcKind, SmcPath};
use serde::Deserialize;
use softosa_display::cli::shown_number;
use softosa_engine::config as ec;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

/// Errors reading or resolving a scenario.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Toml { path: String, message: String },
    /// A value the file states is wrong; `loc` is ":LINE" when the line
    /// holding it was found, else empty.
    #[error("{path}{loc}: {what}")]
    Invalid {
        path: String,
        loc: String,
        what: String,
    },
}

fn default_seed() -> u64 {
    1
}
fn default_duration() -> f64 {
    200.0
}
fn default_warmup() -> f64 {
    50.0
}

/// Fields of `[[host]]` that only a z/OS host has (`adapter` has its own
/// message).
const ZOS_ONLY: [&str; 11] = [
    "inbperf",
    "segmentation_offload",
    "wlm_priorityq",
    "wlm_priorityq_map",
    "read_storage",
    "profile",
    "profile_text",
    "dvipa",
    "distribute_to",
    "xcf_speed",
    "xcf_latency_us",
];

/// Whether `[[host]]` field `k` configures a z/OS host's OSA (which a z/OS
/// host on HiperSockets does not have): `adapter`, and the z/OS-only fields
/// but the XCF link's.
fn osa_setting(k: &str) -> bool {
    k == "adapter" || (ZOS_ONLY.contains(&k) && !k.starts_with("xcf_"))
}

/// Host fields of a host's Ethernet link, which a host on HiperSockets has
/// not (its LAN is memory to memory, its MTU the CHPID's frame size).
const WIRE_FIELDS: [&str; 5] = ["speed", "latency_us", "loss", "switch_buffer_kb", "mtu"];

/// The `link` words for a host on the machine's HiperSockets LAN.
const HIPERSOCKETS_LINKS: [&str; 2] = ["hipersockets", "iqd"];

/// Whether host table `h` says `link = "hipersockets"` (or `iqd`).
fn on_hipersockets(h: &toml::Value) -> bool {
    h.get("link")
        .and_then(|l| l.as_str())
        .is_some_and(|l| HIPERSOCKETS_LINKS.iter().any(|w| l.eq_ignore_ascii_case(w)))
}

/// Fields of `[[host]]` that a z/OS host's `profile` / `profile_text`
/// decides (its INTERFACE, GLOBALCONFIG and IPCONFIG statements), with the
/// profile statement that sets each.
const PROFILE_SET: [(&str, &str); 6] = [
    ("inbperf", "INBPERF on the INTERFACE statement"),
    ("smc", "GLOBALCONFIG SMCR or SMCD; without either, no SMC"),
    (
        "segmentation_offload",
        "GLOBALCONFIG or IPCONFIG SEGMENTATIONOFFLOAD",
    ),
    ("wlm_priorityq", "GLOBALCONFIG WLMPRIORITYQ"),
    ("wlm_priorityq_map", "GLOBALCONFIG WLMPRIORITYQ IOPRIn"),
    ("read_storage", "READSTORAGE on the INTERFACE statement"),
];

/// Bytes a frame carries beyond the IP MTU in the switch's buffer (its
/// Ethernet header; the simulator's frames are counted that way).
const ETH_HEADER: u32 = 14;
/// The largest IP MTU of an OSA-Express port (jumbo frames).
const OSA_MAX_MTU: u32 = 8992;

/// The TCP buffers softosa simulates, bytes: a window below 4 KB holds
/// less than three full segments, and 16 MB bounds each connection's
/// memory.
const MIN_TCP_BUF: u32 = 4 * 1024;
const MAX_TCP_BUF: u32 = 16 * 1024 * 1024;

/// Values in one `[vary]` (each is a whole run).
const MAX_VARIANTS: usize = 64;

/// Connections of all workloads together (each workload has at most
/// 10,000): keeps a scenario's memory in the hundred-megabyte range.
const MAX_CONNECTIONS: u64 = 100_000;

/// Hosts in one scenario (a sysplex has at most 32 systems; the rest are
/// peers): keeps memory bounded however long the file is.
const MAX_HOSTS: usize = 1000;

/// Hosts times `[vary]` runs: every run's output (per host its counters,
/// per workload too) is held until all runs have ended, so the output
/// grows with both. 64 runs of 1000 hosts once took 2.7 GB with
/// `--format json`, 9 GB with 1000 workloads; at this bound and 1000
/// workloads the JSON is about 210 MB, held once.
const MAX_HOST_RUNS: usize = 10_000;

/// Workloads in one scenario: every host keeps counters per workload, so
/// memory grows with hosts times workloads (100,000 one-connection
/// workloads on 1000 hosts took 5 GB before the run began).
const MAX_WORKLOADS: usize = 1000;

/// Largest one-way latency a scenario may give, µs (one second: beyond
/// it nothing completes within any run length allowed).
const MAX_LATENCY_US: f64 = 1_000_000.0;

/// The file as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub name: Option<String>,
    pub description: Option<String>,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Measured time, milliseconds of simulated time.
    #[serde(default = "default_duration")]
    pub duration_ms: f64,
    /// Simulated time before measuring starts (connections open, windows
    /// grow, the DYNAMIC tuner settles).
    #[serde(default = "default_warmup")]
    pub warmup_ms: f64,
    /// Sample adapter timers for plots every this many microseconds (0 = off).
    #[serde(default)]
    pub sample_us: u64,
    #[serde(rename = "host")]
    pub hosts: Vec<toml::Value>,
    #[serde(rename = "workload")]
    pub workloads: Vec<toml::Value>,
    pub vary: Option<Vary>,
    /// The file's own `[models]`, laid over the built-in sets by
    /// [`Models::layered`] (so a set may give only the fields it changes).
    pub models: Option<toml::Table>,
    /// The machine's HiperSockets LAN that hosts with
    /// `link = "hipersockets"` attach to.
    pub hipersockets: Option<HiperSocketsCfg>,
}

fn default_iqd_machine() -> String {
    "z800".into()
}
fn default_mfs() -> u32 {
    16
}

/// `[hipersockets]`: one IQD CHPID inside one machine.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HiperSocketsCfg {
    /// Machine type whose CPUs move the frames (`[models.hipersockets.*]`).
    #[serde(default = "default_iqd_machine")]
    pub machine: String,
    /// Maximum frame size of the CHPID, KB: 16, 24, 40 or 64 (MTU 8, 16,
    /// 32 or 56 KB).
    #[serde(default = "default_mfs")]
    pub mfs_kb: u32,
}

/// What `duration_ms` may be, in ms: at least a nanosecond, the clock's
/// step, and at most ten simulated minutes (also `softosa sim
/// --duration-ms`).
pub const DURATION_MS: std::ops::RangeInclusive<f64> = 1e-6..=600_000.0;

/// Repeat the run with one setting changed.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vary {
    /// A `[[host]]` or `[[workload]]` field name, e.g. `inbperf`.
    pub field: String,
    /// Hosts to change (default: every z/OS host); host fields only.
    #[serde(default, deserialize_with = "named_list")]
    pub hosts: Vec<String>,
    /// Workloads to change (default: all); workload fields only.
    #[serde(default, deserialize_with = "named_list")]
    pub workloads: Vec<String>,
    pub values: Vec<toml::Value>,
    /// Labels for the variants (default: the values).
    #[serde(default)]
    pub labels: Vec<String>,
}

/// A `[vary]` list of names: left out it means all, so an empty one (which
/// read as all too) and a name given twice are refused.
fn named_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let v = Vec::<String>::deserialize(d)?;
    check_named_list(&v).map_err(serde::de::Error::custom)?;
    Ok(v)
}

/// What is wrong with a list of names a `[vary]` changes (the file's hosts
/// or workloads, or `--vary-on`): empty, an empty name, or one twice.
pub(crate) fn check_named_list(v: &[String]) -> Result<(), String> {
    if v.is_empty() {
        return Err(
            "an empty list; leave the key out to mean all, or name the ones to change".into(),
        );
    }
    if let Some(i) = v.iter().position(|n| n.trim().is_empty()) {
        return Err(format!("entry {} is an empty name", i + 1));
    }
    if let Some((i, n)) = v.iter().enumerate().find(|(i, n)| v[..*i].contains(n)) {
        return Err(format!("{n:?} is named twice (entry {})", i + 1));
    }
    Ok(())
}

/// `speed` as written: a word such as `10g`, or a bare number of Mb/s
/// (`speed = 1000`, as `--vary speed=100,1000` gives it), kept as text for
/// [`parse_speed`] to judge.
fn speed_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    struct Speed;
    impl serde::de::Visitor<'_> for Speed {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a link speed such as \"1g\", \"10g\", \"100m\" or a number of Mb/s")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<String, E> {
            Ok(v.to_string())
        }
    }
    d.deserialize_any(Speed)
}

fn default_speed() -> String {
    "1g".into()
}
fn default_mtu() -> u32 {
    1500
}
fn default_latency() -> f64 {
    10.0
}
fn default_switch_buffer() -> u32 {
    1024
}
fn default_inbperf() -> String {
    "BALANCED".into()
}

/// One `[[host]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostCfg {
    pub name: String,
    /// `zos`, `vse`, `aix` or `linux` (any `[models.peer.*]` name).
    #[serde(rename = "type")]
    pub kind: String,
    /// Machine type: for z/OS `[models.machine.*]` (e.g. `z10`, `z14`), for
    /// VSE `[models.vse.*]` (e.g. `z800`); for a peer it selects
    /// `[models.peer.<type>-<machine>]` (e.g. Linux on a z800: `linux-z800`).
    pub machine: Option<String>,
    /// `ethernet` (default: a link to the switch) or `hipersockets` (the
    /// machine's IQD LAN, see `[hipersockets]`).
    pub link: Option<String>,
    pub ip: Ipv4Addr,
    pub processors: Option<usize>,
    /// Adapter generation (`[models.adapter.*]`), z/OS only.
    pub adapter: Option<String>,
    /// `1g`, `10g`, `100m` or a number of Mb/s.
    #[serde(default = "default_speed", deserialize_with = "speed_text")]
    pub speed: String,
    #[serde(default = "default_mtu")]
    pub mtu: u32,
    /// One-way latency host to switch to host, µs (split over both hops).
    #[serde(default = "default_latency")]
    pub latency_us: f64,
    /// Frame error rate on frames arriving at this host.
    #[serde(default)]
    pub loss: f64,
    /// Switch egress buffer toward this host, KB.
    #[serde(default = "default_switch_buffer")]
    pub switch_buffer_kb: u32,
    /// `MINLATENCY`, `BALANCED`, `MINCPU`, `DYNAMIC`, `DYNAMIC WORKLOADQ`,
    /// optionally followed by `OLM` (or `OLM` alone).
    #[serde(default = "default_inbperf")]
    pub inbperf: String,
    #[serde(default)]
    pub segmentation_offload: bool,
    #[serde(default)]
    pub wlm_priorityq: bool,
    /// Write queue (1-4) for each WLM control value 0 (SYSSTC), 1-5
    /// (importance), 6 (discretionary); default `[1, 2, 3, 3, 4, 4, 4]`
    /// (`IOPRI1 0 IOPRI2 1 IOPRI3 2 3 IOPRI4 4 5 6`). Used only when
    /// `wlm_priorityq` is true.
    pub wlm_priorityq_map: Option<[u8; 7]>,
    /// Read storage in SBALs (8..126). Read as a u32 so that any whole
    /// number is told the field's own range, not the limit of a u16.
    pub read_storage: Option<u32>,
    /// z/OS only: a TCP/IP profile file (path relative to the scenario file)
    /// whose INTERFACE with this host's `ip` is the simulated interface;
    /// takes the place of `inbperf`, `read_storage`, `segmentation_offload`,
    /// `wlm_priorityq` and `wlm_priorityq_map`, which may then not be given.
    pub profile: Option<String>,
    /// z/OS only: the same, written inline.
    pub profile_text: Option<String>,
    /// A crypto coprocessor (Crypto Express) does this host's RSA operations.
    #[serde(default)]
    pub crypto_coprocessor: bool,
    /// Sysplex distributor: a distributed dynamic VIPA this host owns.
    pub dvipa: Option<Ipv4Addr>,
    /// Sysplex distributor: target hosts (round robin per new connection).
    #[serde(default)]
    pub distribute_to: Vec<String>,
    /// Rate of the dynamic XCF link from this distributor to each target.
    pub xcf_speed: Option<String>,
    /// One-way latency of the XCF link, µs.
    pub xcf_latency_us: Option<f64>,
    /// Shared Memory Communications: `r` (SMC-R, a RoCE port), `d` (SMC-D,
    /// ISM: hosts in one machine) or `none` (default). Connections between
    /// two hosts of the same kind move their data that way.
    pub smc: Option<String>,
    /// A z/VM guest's virtual NIC on a VSWITCH: `ip` (IP mode, layer 3) or
    /// `ethernet` (Ethernet mode, layer 2). Left out: the host's own NIC.
    pub vswitch: Option<String>,
}

fn default_importance() -> u8 {
    2
}
/// One `[[workload]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadCfg {
    pub name: Option<String>,
    /// `RR`, `CRR` or `STR`.
    #[serde(rename = "type")]
    pub kind: String,
    pub connections: u32,
    pub request: u32,
    pub response: u32,
    pub client: String,
    pub server: String,
    #[serde(default = "default_importance")]
    pub importance: u8,
    /// TCP buffers the workload's applications ask for (both ends); left
    /// out, each end has its stack's default (a z/OS profile's TCPCONFIG
    /// TCPSENDBFRSIZE / TCPRCVBUFRSIZE, else 64 KB).
    pub sndbuf_kb: Option<u32>,
    pub rcvbuf_kb: Option<u32>,
    /// AT-TLS: `none` (default), `full` (a full handshake per connection) or
    /// `resume` (abbreviated handshakes from the session cache).
    pub tls: Option<String>,
    /// Connect to the server's distributed DVIPA (the server must be a
    /// sysplex distributor) instead of its own address.
    #[serde(default)]
    pub to_dvipa: bool,
    /// IPsec (ESP in transport mode) between client and server.
    #[serde(default)]
    pub ipsec: bool,
    /// The client's mean think time between a response and its next
    /// request, in µs (exponentially distributed); left out, none.
    pub think_us: Option<f64>,
}

/// A loaded scenario: the file plus where it came from.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub path: String,
    pub file: ScenarioFile,
    /// The file's text, to point errors at their line.
    text: String,
    /// How messages name each `[[host]]` table ([`table_refs`]). A `[vary]`
    /// never changes a host's name, so these serve every variant.
    host_refs: Vec<String>,
    /// The same for each `[[workload]]` table (`workload "NAME"` or
    /// `workload #N`); no `[vary]` field is a workload's name either.
    workload_refs: Vec<String>,
}

/// One runnable variant.
#[derive(Clone, Debug)]
pub struct Variant {
    pub label: String,
    pub setup: Setup,
}

impl Scenario {
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let text =
            softosa_profile::load::read_bounded_string(path).map_err(|e| ScenarioError::Io {
                path: path.to_path_buf(),
                source: e,
            })?;
        Scenario::parse(&path.display().to_string(), &text)
    }

    pub fn parse(path: &str, text: &str) -> Result<Scenario, ScenarioError> {
        const NEEDS: &str = "a scenario needs [[host]] tables and at least one [[workload]] \
                             (see docs/scenarios.md; scenarios/quick-rr.toml is a small one)";
        let file: ScenarioFile = toml::from_str(text).map_err(|e| {
            // A missing table is a whole-file matter: the parser points its
            // error at the first line, which has nothing wrong with it.
            for table in ["host", "workload"] {
                if e.message() == format!("missing field `{table}`") {
                    return ScenarioError::Invalid {
                        path: path.to_string(),
                        loc: String::new(),
                        what: format!("no [[{table}]] table: {NEEDS}"),
                    };
                }
            }
            // Top-level fields, [vary], [models] and [hipersockets] are
            // typed here: their type errors in the same words as a host's.
            ScenarioError::Toml {
                path: path.to_string(),
                message: plain_types(&e.to_string()),
            }
        })?;
        if file.workloads.is_empty() {
            // `workload = []` would run and print an empty table.
            return Err(ScenarioError::Invalid {
                path: path.to_string(),
                loc: String::new(),
                what: format!("no workload: {NEEDS}"),
            });
        }
        // Validate host and workload tables now, against the original text so
        // errors carry line and column.
        #[derive(Deserialize)]
        struct TypedLoose {
            #[serde(rename = "host")]
            _hosts: Vec<HostCfg>,
            #[serde(rename = "workload")]
            _workloads: Vec<WorkloadCfg>,
        }
        toml::from_str::<TypedLoose>(text).map_err(|e| ScenarioError::Toml {
            path: path.to_string(),
            message: plain_types(&e.to_string()),
        })?;
        Ok(Scenario {
            path: path.to_string(),
            host_refs: table_refs("host", &file.hosts),
            workload_refs: table_refs("workload", &file.workloads),
            file,
            text: text.to_string(),
        })
    }

    fn invalid(&self, what: impl Into<String>) -> ScenarioError {
        let what = what.into();
        let loc = self
            .line_of(&what)
            .map_or_else(String::new, |l| format!(":{l}"));
        ScenarioError::Invalid {
            path: self.path.clone(),
            loc,
            what,
        }
    }

    /// The line (1-based) an error message is about. Messages name their
    /// place the same way throughout: `host "NAME": ...` (or `host #N: ...`
    /// for a host without a name of its own, see [`table_refs`]),
    /// `workload "NAME": ...` (or `workload #N: ...`), `[TABLE] ...`, or a
    /// top-level key; within that table the line of the message's first
    /// quoted value (other than a host or workload the message names),
    /// else of the key the message
    /// starts with, else the table's header. The file is read
    /// by a TOML parser that keeps positions (toml_edit, which the `toml`
    /// crate is built on), so comments, quoting and spacing are TOML's.
    pub(crate) fn line_of(&self, what: &str) -> Option<usize> {
        let doc = toml_edit::ImDocument::parse(self.text.as_str()).ok()?;
        let root = doc.as_table();
        // The first quoted value of `t` that is not a host's name.
        let quoted = |t: &str| -> Option<String> {
            let mut from = 0;
            loop {
                let a = from + t[from..].find('"')?;
                let b = a + 1 + t[a + 1..].find('"')?;
                if !t[..a].ends_with("host ") && !t[..a].ends_with("workload ") {
                    return Some(t[a + 1..b].to_string());
                }
                from = b + 1;
            }
        };
        // A message about a host starts with its reference (host_refs).
        let host = self
            .host_refs
            .iter()
            .enumerate()
            .find_map(|(i, r)| Some((i, what.strip_prefix(r.as_str())?.strip_prefix(": ")?)));
        let (table, rest): (TablePlace<'_>, &str) = if let Some((i, rest)) = host {
            (array_tables(root, "host").into_iter().nth(i)?, rest)
        } else if let Some((i, rest)) = self
            .workload_refs
            .iter()
            .enumerate()
            .find_map(|(i, r)| Some((i, what.strip_prefix(r.as_str())?.strip_prefix(": ")?)))
        {
            (array_tables(root, "workload").into_iter().nth(i)?, rest)
        } else if let Some((name, rest)) = what
            .strip_prefix('[')
            .and_then(|t| t.split_once("] "))
            .filter(|(t, _)| !t.contains(['[', ']']))
        {
            // `[vary] ...`, `[models.adapter.osa-express3] ...`: within
            // that table.
            let mut parts = name.split('.');
            let mut item = root.get(parts.next()?)?;
            for part in parts {
                item = item.as_table_like()?.get(part)?;
            }
            let table = item.as_table_like()?;
            (
                TablePlace {
                    table,
                    span: item.span(),
                },
                rest,
            )
        } else {
            (
                TablePlace {
                    table: root,
                    span: None,
                },
                what,
            )
        };
        let key = rest.split([' ', ':']).next().unwrap_or("");
        // The quoted value in the field the message names first (a
        // distributor's own name in its distribute_to, not its name line).
        let at = quoted(rest)
            .and_then(|q| {
                table
                    .table
                    .get(key)
                    .and_then(|i| item_string_span(i, &q))
                    .or_else(|| string_span(table.table, &q))
            })
            .or_else(|| {
                let (k, _) = table.table.get_key_value(key)?;
                k.span()
            })
            .or(table.span)?;
        Some(line_at(&self.text, at.start))
    }

    /// The variants to run (one if there is no `[vary]`).
    pub fn variants(&self) -> Result<Vec<Variant>, ScenarioError> {
        let models = self.models(self.file.models.as_ref())?;
        // Checked even when no host uses it yet: a typo here should not
        // wait for the day a host is moved onto HiperSockets.
        if let Some(hs) = &self.file.hipersockets {
            if !models.hipersockets.contains_key(&hs.machine) {
                return Err(self.invalid(format!(
                    "[hipersockets] machine {:?} is unknown (known: {})",
                    hs.machine,
                    keys(&models.hipersockets)
                )));
            }
            if crate::iqd::mtu_for_mfs(hs.mfs_kb).is_none() {
                return Err(self.invalid(format!(
                    "[hipersockets] mfs_kb {} is not 16, 24, 40 or 64",
                    hs.mfs_kb
                )));
            }
        }
        // The file as written first, so an error in it is reported as such
        // and not as one of a variant's.
        let base = self.resolve(&self.file.hosts, &self.file.workloads, &models)?;
        self.check_unused_host_fields()?;
        let Some(v) = &self.file.vary else {
            let out = vec![Variant {
                label: "base".into(),
                setup: base,
            }];
            self.check_models_used(&out)?;
            return Ok(out);
        };
        if v.values.len() < 2 {
            // One value ran one variant whose text output named nothing:
            // the results of the value read as those of the host table.
            return Err(self.invalid(format!(
                "[vary] values: {}; a [vary] compares runs, so give two or more values \
                 (for a single run, set {} in the {} table and drop [vary])",
                match v.values.first() {
                    None => "no value".to_string(),
                    Some(x) => format!("only {} = {}", v.field, value_text(x)),
                },
                model_field(&v.field).map_or(v.field.as_str(), |(_, _, k)| k),
                match model_field(&v.field) {
                    Some((t, n, _)) => format!("[models.{t}.{n}]"),
                    None if WORKLOAD_FIELDS.contains(&v.field.as_str()) => "[[workload]]".into(),
                    None => "[[host]]".into(),
                }
            )));
        }
        if v.values.len() > MAX_VARIANTS {
            return Err(self.invalid(format!(
                "[vary] values: {} values; at most {MAX_VARIANTS} (each is a whole run)",
                v.values.len()
            )));
        }
        let hosts = self.file.hosts.len();
        if v.values.len() * hosts > MAX_HOST_RUNS {
            return Err(self.invalid(format!(
                "[vary] values: {} values, each a run of all {hosts} hosts; every run's output \
                 is held until all have run, so values times hosts may be at most \
                 {MAX_HOST_RUNS} (at most {} values here)",
                v.values.len(),
                (MAX_HOST_RUNS / hosts).max(1)
            )));
        }
        let host_field = HOST_FIELDS.contains(&v.field.as_str());
        let wl_field = WORKLOAD_FIELDS.contains(&v.field.as_str());
        let model = model_field(&v.field);
        if !host_field && !wl_field && model.is_none() {
            return Err(self.invalid(format!(
                "[vary] field {:?} is not a host or workload field or a model parameter \
                 (host: {}; workload: {}; model: models.TABLE.SET.FIELD, e.g. \
                 models.machine.z10.interrupt_ns)",
                v.field,
                HOST_FIELDS.join(", "),
                WORKLOAD_FIELDS.join(", ")
            )));
        }
        if let Some((t, n, _)) = model {
            self.check_model_vary(v, &models, t, n)?;
        }
        self.check_vary_selection(v, host_field || model.is_some())?;
        let mut out: Vec<Variant> = Vec::new();
        let mut digests = Vec::new();
        for (i, val) in v.values.iter().enumerate() {
            // The base resolved, so what fails from here is the value's
            // doing: point at [vary], say which value.
            let at_value = |e: ScenarioError| match e {
                ScenarioError::Invalid { what, .. } => self.invalid(format!(
                    "[vary] values: {} = {}: {what}",
                    v.field,
                    value_text(val)
                )),
                other => other,
            };
            let mut hosts = self.file.hosts.clone();
            let mut wls = self.file.workloads.clone();
            let mut run_models = None;
            if let Some((t, n, k)) = model {
                let own = with_model_value(self.file.models.as_ref(), t, n, k, val);
                run_models = Some(self.models(Some(&own)).map_err(at_value)?);
            } else if host_field {
                for h in hosts.iter_mut() {
                    if vary_selects_host(v, h) {
                        if let Some(t) = h.as_table_mut() {
                            t.insert(v.field.clone(), val.clone());
                        }
                    }
                }
            } else {
                for w in wls.iter_mut() {
                    let name = workload_known_as(w).unwrap_or_default();
                    if v.workloads.is_empty() || v.workloads.contains(&name) {
                        if let Some(t) = w.as_table_mut() {
                            t.insert(v.field.clone(), val.clone());
                        }
                    }
                }
            }
            let label = v.labels.get(i).cloned().unwrap_or_else(|| value_label(val));
            let setup = self
                .resolve(&hosts, &wls, run_models.as_ref().unwrap_or(&models))
                .map_err(at_value)?;
            // A variant that runs the same setup as another would be shown
            // as a comparison of two settings while nothing differs.
            let digest = setup_digest(&setup);
            if let Some(j) = digests.iter().position(|d| *d == digest) {
                let same: &Variant = &out[j];
                if format!("{:?}", same.setup) == format!("{setup:?}") {
                    if let Some((t, n, _)) = model {
                        // Only a set no host runs on leaves the runs alike.
                        return Err(self.invalid(format!(
                            "[vary] field: no host of this scenario runs on [models.{t}.{n}], \
                             so {} could not change its runs{}",
                            v.field,
                            if t == "adapter" && models.adapter.contains_key(&format!("{n}-1g")) {
                                format!(
                                    " (a host at 1g or less runs on the generation's 1 GbE \
                                     feature, {n}-1g)"
                                )
                            } else {
                                String::new()
                            }
                        )));
                    }
                    // The map is read only with WLMPRIORITYQ on: say so
                    // rather than leave the user comparing two maps.
                    let map_unused = v.field == "wlm_priorityq_map"
                        && !hosts.iter().any(|h| {
                            vary_selects_host(v, h)
                                && h.get("wlm_priorityq").and_then(toml::Value::as_bool)
                                    == Some(true)
                        });
                    let why = if map_unused {
                        ": wlm_priorityq_map is used only with wlm_priorityq = true, which no \
                         host it varies has (give those hosts wlm_priorityq = true)"
                    } else {
                        "; give values that change the run"
                    };
                    return Err(self.invalid(format!(
                        "[vary] values: {f} = {} and {f} = {} run the same setup, so their \
                         columns could not differ{why}",
                        value_text(&v.values[j]),
                        value_text(val),
                        f = v.field,
                    )));
                }
            }
            digests.push(digest);
            out.push(Variant { label, setup });
        }
        self.check_models_used(&out)?;
        // The output of every run is held until all have run.
        let share = crate::world::MAX_TIMER_SAMPLES / out.len().max(1);
        for v in &mut out {
            v.setup.max_samples = share;
        }
        Ok(out)
    }

    /// The named parameter sets of a run: the built-in ones with `own`
    /// (the file's `[models]`, or a variant's) laid over them, checked.
    fn models(&self, own: Option<&toml::Table>) -> Result<Models, ScenarioError> {
        // Set names are printed in messages and in each host's line: a
        // control character would drive the terminal.
        for (table, sets) in own.into_iter().flatten() {
            for name in sets.as_table().into_iter().flat_map(|t| t.keys()) {
                if let Some(c) = unprintable(name) {
                    return Err(
                        self.invalid(format!("[models.{table}] the set {name:?} holds {c}"))
                    );
                }
            }
            // Costs are multiplied by sizes and counts: a value beyond
            // 10^12 (a thousand seconds in ns) would wrap in that arithmetic.
            let sets = sets.as_table().into_iter().flat_map(|t| t.iter());
            for (name, set) in sets {
                let fields = set.as_table().into_iter().flat_map(|t| t.iter());
                for (field, v) in fields {
                    if v.as_integer().is_some_and(|n| n > MAX_MODEL_VALUE) {
                        return Err(self.invalid(format!(
                            "[models.{table}.{name}] {field} {v} is beyond the largest value \
                             softosa takes, {MAX_MODEL_VALUE} (a thousand seconds in ns)"
                        )));
                    }
                }
            }
        }
        let models = Models::layered(own).map_err(|e| {
            let what = plain_types_line(&e.what);
            self.invalid(match &e.key {
                Some(k) => format!("{} {k}: {what}", e.place),
                None => format!("{} {what}", e.place),
            })
        })?;
        self.check_models(&models)?;
        Ok(models)
    }

    /// Refuses the sets' values that the simulator would otherwise clamp
    /// (a processor count of 0 ran as 1 and was reported as "1 CPs") or
    /// that make every frame a drop (no input buffer).
    fn check_models(&self, m: &Models) -> Result<(), ScenarioError> {
        let err = |table: &str, name: &str, what: String| {
            Err(self.invalid(format!("[models.{table}.{name}] {what}")))
        };
        for (name, a) in &m.adapter {
            for (key, v) in [
                ("in_buffer_frames", a.in_buffer_frames),
                ("write_queue_sbals", a.write_queue_sbals),
            ] {
                if v == 0 {
                    return err(
                        "adapter",
                        name,
                        format!("{key} 0: the adapter needs at least 1 (with none, every frame is lost)"),
                    );
                }
            }
        }
        for (table, costs) in [("machine", &m.machine), ("peer", &m.peer), ("vse", &m.vse)] {
            for (name, c) in costs {
                if !(1..=256).contains(&c.processors) {
                    return err(
                        table,
                        name,
                        format!("processors {} must be 1..256", c.processors),
                    );
                }
                if c.sock_block == 0 {
                    return err(
                        table,
                        name,
                        "sock_block 0: a socket call moves at least 1 byte".into(),
                    );
                }
                if table == "peer" && c.ack_every == 0 {
                    return err(
                        table,
                        name,
                        "ack_every 0 (or not given): a peer ACKs after 1 or more full-sized \
                         segments"
                            .into(),
                    );
                }
                for (key, v) in [
                    ("stack_np_share", c.stack_np_share),
                    ("app_np_share", c.app_np_share),
                ] {
                    if !(0.0..=1.0).contains(&v) {
                        return err(table, name, format!("{key} {v} is a share, 0..1"));
                    }
                }
            }
        }
        for (name, c) in &m.smc {
            if c.socket_share_pct > 100 {
                return err(
                    "smc",
                    name,
                    format!(
                        "socket_share_pct {} is a percentage, 0..100",
                        c.socket_share_pct
                    ),
                );
            }
        }
        for (name, h) in &m.hipersockets {
            if h.in_buffers == 0 {
                return err(
                    "hipersockets",
                    name,
                    "in_buffers 0: a receiver needs at least 1 (with none, every frame is lost)"
                        .into(),
                );
            }
        }
        Ok(())
    }

    /// Fields of the file as written that no run would use (checked on the
    /// file, not on a variant: a `[vary]` over `xcf_speed` sets it on every
    /// z/OS host, the distributor's targets too, and its variants are told
    /// apart by what they run).
    fn check_unused_host_fields(&self) -> Result<(), ScenarioError> {
        for (hv, at) in self.file.hosts.iter().zip(&self.host_refs) {
            let h: HostCfg = self.typed(hv, at)?;
            // The map is used only with WLMPRIORITYQ on: in the file, or in
            // the runs of a [vary] over wlm_priorityq that includes the host
            // (scenarios/wlm-priority.toml).
            let varied_on = self
                .file
                .vary
                .as_ref()
                .is_some_and(|v| v.field == "wlm_priorityq" && vary_selects_host(v, hv));
            if h.wlm_priorityq_map.is_some() && !h.wlm_priorityq && !varied_on {
                return Err(self.invalid(format!(
                    "{at}: wlm_priorityq_map is used only with wlm_priorityq = true, \
                     which this host does not have, so no run would use it (give \
                     wlm_priorityq = true, or drop the map)"
                )));
            }
            if h.distribute_to.iter().all(|n| *n == h.name) {
                // The XCF link runs from a distributor to its other
                // targets; on any other host the value was never even
                // parsed, and one that names only itself forwards nothing.
                if let Some(k) = ["xcf_speed", "xcf_latency_us"]
                    .into_iter()
                    .find(|k| hv.get(k).is_some())
                {
                    let (none, fix) = if h.distribute_to.is_empty() {
                        ("this host distributes to none", "give distribute_to")
                    } else {
                        (
                            "this host names only itself in distribute_to and forwards nothing",
                            "name another target",
                        )
                    };
                    return Err(self.invalid(format!(
                        "{at}: {k} is the XCF link of a sysplex distributor to its \
                         targets, and {none} ({fix}, or drop {k})"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The parameter sets the hosts of `variants` run on, each with the
    /// hosts on it: (index in [`crate::params::TABLES`], set name).
    fn used_sets(
        &self,
        variants: &[Variant],
    ) -> std::collections::BTreeMap<(usize, String), Vec<String>> {
        let tables = crate::params::TABLES;
        let mut used: std::collections::BTreeMap<(usize, String), Vec<String>> =
            std::collections::BTreeMap::new();
        let iqd_machine = self
            .file
            .hipersockets
            .as_ref()
            .map_or_else(default_iqd_machine, |h| h.machine.clone());
        for v in variants {
            for h in &v.setup.hosts {
                let mut add = |table: &str, name: &str| {
                    let t = tables.iter().position(|x| *x == table).unwrap_or(0);
                    let on = used.entry((t, name.to_string())).or_default();
                    if !on.contains(&h.name) {
                        on.push(h.name.clone());
                    }
                };
                add(
                    match h.kind {
                        HostKind::Zos => "machine",
                        HostKind::Peer => "peer",
                        HostKind::Vse => "vse",
                    },
                    &h.model,
                );
                if let Some(a) = &h.adapter {
                    add("adapter", &a.generation_name);
                }
                if h.iqd.is_some() {
                    add("hipersockets", &iqd_machine);
                }
                for p in &h.smc {
                    add(
                        "smc",
                        match p.kind {
                            SmcKind::R => "r",
                            SmcKind::D => "d",
                        },
                    );
                }
            }
        }
        used
    }

    /// A set of the file's `[models]` that no host of any run is on would
    /// change nothing, silently: an error (an OSA-Express3 port at 1 GbE
    /// runs on `osa-express3-1g`, not on `osa-express3`).
    fn check_models_used(&self, variants: &[Variant]) -> Result<(), ScenarioError> {
        let Some(own) = &self.file.models else {
            return Ok(());
        };
        let used = self.used_sets(variants);
        let tables = crate::params::TABLES;
        for (table, sets) in own {
            let t = tables.iter().position(|x| x == table).unwrap_or(0);
            for name in sets.as_table().into_iter().flat_map(|x| x.keys()) {
                if !used.contains_key(&(t, name.clone())) {
                    let gbe = format!("{name}-1g");
                    let hint = if table == "adapter"
                        && used
                            .keys()
                            .any(|(u, n)| tables[*u] == "adapter" && *n == gbe)
                    {
                        format!(" (the 1 GbE ports here run on [models.adapter.{gbe}])")
                    } else {
                        String::new()
                    };
                    return Err(self.invalid(format!(
                        "[models.{table}.{name}] no host of this scenario runs on this set, so \
                         its values would change nothing{hint}; `softosa sim FILE --models` \
                         lists the sets the hosts use"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The model parameter sets the runs of `variants` use, as TOML that a
    /// `[models]` table could hold: each set whole (built in, with the
    /// file's fields laid over it), headed by the hosts on it, the fields
    /// this file or its `[vary]` sets marked (`softosa sim --models`).
    pub fn models_text(&self, variants: &[Variant]) -> Result<String, ScenarioError> {
        use std::fmt::Write as _;
        let tables = crate::params::TABLES;
        let used = self.used_sets(variants);
        let layered = |own: Option<&toml::Table>| {
            Models::layered_table(own).map_err(|e| self.invalid(format!("{} {}", e.place, e.what)))
        };
        let (merged, builtin) = (layered(self.file.models.as_ref())?, layered(None)?);
        let set_of = |t: &toml::Table, table: &str, name: &str| -> Option<toml::Table> {
            t.get(table)?.get(name)?.as_table().cloned()
        };
        let own = self.file.models.as_ref();
        let varied = self
            .file
            .vary
            .as_ref()
            .and_then(|v| Some((model_field(&v.field)?, v)));
        let mut out = format!(
            "# The model parameter sets the runs of {} use: the built-in ones\n\
             # (calibration/models.toml) with the file's [models] laid over them.\n\
             # To change a value, copy its set's header and the line into the\n\
             # file's [models]; the fields left out keep these values. A field\n\
             # a set does not list has its default (docs/scenarios.md, [models]).\n",
            self.path
        );
        let given = |table: &str, name: &str, key: &str| -> bool {
            own.and_then(|o| o.get(table)?.get(name)?.get(key))
                .is_some()
        };
        for ((t, name), hosts) in &used {
            let table = tables[*t];
            let Some(set) = set_of(&merged, table, name) else {
                continue;
            };
            let was = set_of(&builtin, table, name);
            let bare = name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            let header = if bare {
                name.clone()
            } else {
                format!("{name:?}")
            };
            let _ = writeln!(out, "\n# hosts: {}", hosts.join(", "));
            let _ = writeln!(out, "[models.{table}.{header}]");
            for (key, value) in &set {
                let mut line = format!("{key} = {value}");
                let note = match varied {
                    Some(((vt, vn, vk), v))
                        if (vt, vn, vk) == (table, name.as_str(), key.as_str()) =>
                    {
                        Some(format!(
                            "varied by [vary]: {}",
                            v.values
                                .iter()
                                .map(value_text)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    }
                    _ if given(table, name, key) => {
                        Some(match was.as_ref().and_then(|w| w.get(key)) {
                            Some(b) if b != value => format!("this file's (built in: {b})"),
                            Some(_) => "this file's (the built-in value)".to_string(),
                            None => "this file's".to_string(),
                        })
                    }
                    _ => None,
                };
                if let Some(n) = note {
                    let _ = write!(line, "  # {n}");
                }
                let _ = writeln!(out, "{line}");
            }
            if let Some(((vt, vn, vk), v)) = varied {
                if (vt, vn) == (table, name.as_str()) && !set.contains_key(vk) {
                    // A field the set leaves at its default.
                    let vals: Vec<String> = v.values.iter().map(value_text).collect();
                    let _ = writeln!(out, "# {vk}: varied by [vary]: {}", vals.join(", "));
                }
            }
        }
        Ok(out)
    }

    /// A `[vary]` of a model parameter (`models.TABLE.SET.FIELD`) changes
    /// one named set wherever it is used: it takes no hosts or workloads
    /// list, and the set must exist (built in or the file's own).
    fn check_model_vary(
        &self,
        v: &Vary,
        models: &Models,
        table: &str,
        set: &str,
    ) -> Result<(), ScenarioError> {
        let list = if v.hosts.is_empty() {
            (!v.workloads.is_empty()).then_some("workloads")
        } else {
            Some("hosts")
        };
        if let Some(list) = list {
            return Err(self.invalid(format!(
                "[vary] {list}: field {} is a model parameter; it changes every host that \
                 runs on [models.{table}.{set}], so give no hosts or workloads list",
                v.field
            )));
        }
        let Some(names) = models.names(table) else {
            return Err(self.invalid(format!(
                "[vary] field {:?}: {table:?} is not a table of parameter sets (known: {})",
                v.field,
                crate::params::TABLES.join(", ")
            )));
        };
        if !names.contains(&set) {
            return Err(self.invalid(format!(
                "[vary] field {:?}: there is no set [models.{table}.{set}] (known: {})",
                v.field,
                names.join(", ")
            )));
        }
        Ok(())
    }

    /// A `[vary]` whose `hosts` or `workloads` select nothing would run
    /// identical variants and present them as a comparison; labels that do
    /// not match the values one to one make the columns ambiguous.
    fn check_vary_selection(&self, v: &Vary, host_field: bool) -> Result<(), ScenarioError> {
        let names = |list: &[toml::Value]| -> Vec<String> {
            list.iter()
                .filter_map(|x| x.get("name").and_then(|n| n.as_str()))
                .map(str::to_string)
                .collect()
        };
        if host_field && !v.workloads.is_empty() {
            return Err(self.invalid(format!(
                "[vary] workloads: field {} is a host field, so the variants change hosts; \
                 select them with hosts = [...]",
                v.field
            )));
        }
        if !host_field && !v.hosts.is_empty() {
            return Err(self.invalid(format!(
                "[vary] hosts: field {} is a workload field, so the variants change \
                 workloads; select them with workloads = [...]",
                v.field
            )));
        }
        let keys: Vec<String> = v.values.iter().map(value_key).collect();
        if let Some((i, j)) = (0..keys.len())
            .find_map(|i| keys[..i].iter().position(|k| *k == keys[i]).map(|j| (i, j)))
        {
            return Err(self.invalid(format!(
                "[vary] values: {} is given twice (values {} and {})",
                value_text(&v.values[i]),
                j + 1,
                i + 1
            )));
        }
        if let Some((_, stmt)) = PROFILE_SET.iter().find(|(k, _)| *k == v.field) {
            let profiled = self.file.hosts.iter().position(|h| {
                vary_selects_host(v, h)
                    && (h.get("profile").is_some() || h.get("profile_text").is_some())
            });
            if let Some(i) = profiled {
                return Err(self.invalid(format!(
                    "[vary] field: {} takes {} from its profile ({stmt}), so \
                     changing the field would change nothing there; {}",
                    self.host_refs[i],
                    v.field,
                    if v.hosts.is_empty() {
                        "name the hosts to vary (hosts = [...]; without it every z/OS host is)"
                    } else {
                        "vary hosts without a profile"
                    }
                )));
            }
        }
        if host_field {
            let known = names(&self.file.hosts);
            if let Some(n) = v.hosts.iter().find(|n| !known.contains(n)) {
                return Err(self.invalid(format!(
                    "[vary] hosts names {n:?}, which is not a host (hosts: {})",
                    known.join(", ")
                )));
            }
            let any_zos = self.file.hosts.iter().any(|h| {
                h.get("type")
                    .and_then(|t| t.as_str())
                    .is_some_and(|t| t.eq_ignore_ascii_case("zos"))
            });
            if v.hosts.is_empty() && !any_zos {
                return Err(self.invalid(
                    "[vary] field: without a hosts list only z/OS hosts are changed, and there \
                     is none; name the hosts to change (hosts = [\"...\"])",
                ));
            }
            if v.hosts.is_empty()
                && any_zos
                && !self.file.hosts.iter().any(|h| vary_selects_host(v, h))
            {
                let what = if WIRE_FIELDS.contains(&v.field.as_str()) {
                    "an Ethernet link"
                } else {
                    "a z/OS host's OSA"
                };
                return Err(self.invalid(format!(
                    "[vary] field: {} is a setting of {what}, and every z/OS host here is on \
                     HiperSockets, which has none: the [vary] would change nothing",
                    v.field
                )));
            }
        } else {
            let known: Vec<String> = self
                .file
                .workloads
                .iter()
                .filter_map(workload_known_as)
                .collect();
            if let Some(n) = v.workloads.iter().find(|n| !known.contains(n)) {
                return Err(self.invalid(format!(
                    "[vary] workloads names {n:?}, which is not a workload's name (workloads: \
                     {}; one without name = \"...\" is known by its type and sizes)",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                )));
            }
        }
        if let Some(i) = v.labels.iter().position(|l| l.trim().is_empty()) {
            return Err(self.invalid(format!(
                "[vary] labels: label {} is empty; each names a run in the results",
                i + 1
            )));
        }
        if let Some((i, c)) = v
            .labels
            .iter()
            .enumerate()
            .find_map(|(i, l)| unprintable(l).map(|c| (i, c)))
        {
            return Err(self.invalid(format!(
                "[vary] labels: label {} holds {c}, which would break the report's lines",
                i + 1
            )));
        }
        if !v.labels.is_empty() && v.labels.len() != v.values.len() {
            return Err(self.invalid(format!(
                "[vary] labels: {} labels for {} values; give one per value",
                v.labels.len(),
                v.values.len()
            )));
        }
        if let Some((i, l)) = v
            .labels
            .iter()
            .enumerate()
            .find(|(i, l)| v.labels[..*i].contains(l))
        {
            return Err(self.invalid(format!(
                "[vary] labels: {l:?} is given twice (label {})",
                i + 1
            )));
        }
        Ok(())
    }

    /// How messages name workload `i` (0-based) of the file ([`table_refs`]).
    fn workload_ref(&self, i: usize) -> String {
        self.workload_refs
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("workload #{}", i + 1))
    }

    /// A `[[host]]` or `[[workload]]` table in its typed form; an error
    /// names it `at` (`host "NAME"`, `workload "NAME"`, `host #N`).
    fn typed<T: serde::de::DeserializeOwned>(
        &self,
        v: &toml::Value,
        at: &str,
    ) -> Result<T, ScenarioError> {
        v.clone().try_into().map_err(|e: toml::de::Error| {
            self.invalid(format!("{at}: {}", plain_types_line(&e.to_string())))
        })
    }

    /// The setup of `hosts` and `wls`: the file's tables, or a variant's
    /// (which has the file's host names: no `[vary]` field is a name, so
    /// `self.host_refs` names its hosts too).
    fn resolve(
        &self,
        hosts: &[toml::Value],
        wls: &[toml::Value],
        models: &Models,
    ) -> Result<Setup, ScenarioError> {
        if hosts.len() > MAX_HOSTS {
            // A z/OS host carries a whole adapter and stack (about 120 KB).
            return Err(self.invalid(format!(
                "the scenario has {} hosts; at most {MAX_HOSTS}",
                hosts.len()
            )));
        }
        let refs = &self.host_refs;
        let mut cfgs = Vec::new();
        for (hv, at) in hosts.iter().zip(refs) {
            let h: HostCfg = self.typed(hv, at)?;
            if !h.kind.eq_ignore_ascii_case("zos") {
                // Silently ignoring them would run a different setup than the
                // one the user wrote (a peer's "profile" does nothing).
                if let Some(k) = ZOS_ONLY.iter().find(|k| hv.get(**k).is_some()) {
                    return Err(self.invalid(format!(
                        "{at}: {k} applies to z/OS hosts only (this host is of type {})",
                        h.kind
                    )));
                }
            }
            if h.kind.eq_ignore_ascii_case("zos") && on_hipersockets(hv) {
                // The OSA's settings would be shown in the scenario but not run.
                let mut fields = std::iter::once("adapter").chain(ZOS_ONLY);
                if let Some(k) = fields.find(|k| osa_setting(k) && hv.get(*k).is_some()) {
                    return Err(self.invalid(format!(
                        "{at}: {k} applies to a z/OS host's OSA; this host is on HiperSockets \
                         (link = \"hipersockets\"), which presents every frame at once and \
                         has no write queues"
                    )));
                }
            }
            if on_hipersockets(hv) {
                // Shown in the scenario but not run: a HiperSockets LAN has
                // no wire, no switch and no frame errors.
                if let Some(k) = WIRE_FIELDS.iter().find(|k| hv.get(**k).is_some()) {
                    return Err(self.invalid(format!(
                        "{at}: {k} is a setting of an Ethernet link; this host is on \
                         HiperSockets (link = \"hipersockets\"), a memory-to-memory LAN whose \
                         MTU follows [hipersockets] mfs_kb: drop {k}"
                    )));
                }
            }
            if hv.get("profile").is_some() || hv.get("profile_text").is_some() {
                // The profile wins; a field beside it would be shown in the
                // scenario but not run.
                if let Some((k, stmt)) = PROFILE_SET.iter().find(|(k, _)| hv.get(*k).is_some()) {
                    return Err(self.invalid(format!(
                        "{at}: {k} is decided by this host's profile ({stmt}); set it \
                         there or drop the profile"
                    )));
                }
            }
            for (key, v) in [
                ("latency_us", Some(h.latency_us)),
                ("xcf_latency_us", h.xcf_latency_us),
            ] {
                if let Some(v) = v {
                    if !(0.0..=MAX_LATENCY_US).contains(&v) {
                        return Err(self.invalid(format!(
                            "{at}: {key} {} must be in [0, {MAX_LATENCY_US}] microseconds",
                            shown_number(v)
                        )));
                    }
                }
            }
            cfgs.push(h);
        }
        for (i, h) in cfgs.iter().enumerate() {
            let at = &refs[i];
            // No interface owns these; the simulator delivered to them as
            // if they were any host's unicast address.
            for (key, addr) in [("ip", Some(h.ip)), ("dvipa", h.dvipa)] {
                let Some(a) = addr else { continue };
                let what = if a.is_unspecified() {
                    "the unspecified address"
                } else if a.is_broadcast() {
                    "the broadcast address"
                } else if a.is_multicast() {
                    "a multicast address"
                } else if a.is_loopback() {
                    "a loopback address"
                } else if key == "ip"
                    && h.kind.eq_ignore_ascii_case("zos")
                    && h.profile.is_none()
                    && h.profile_text.is_none()
                    && matches!(a.octets()[3], 0 | 255)
                {
                    // A z/OS host described by fields has a /24 interface
                    // (a peer's subnet is the z/OS interface's it talks to,
                    // which a profile may make wider).
                    if a.octets()[3] == 0 {
                        "the network address of its /24 (a host described by fields is on a /24)"
                    } else {
                        "the broadcast address of its /24 (a host described by fields is on a /24)"
                    }
                } else {
                    continue;
                };
                return Err(self.invalid(format!(
                    "{at}: {key} \"{a}\" is {what}; a host's address is a unicast one \
                     (e.g. 192.0.2.1, a documentation range)"
                )));
            }
            // Workloads name their hosts, and the report heads each
            // host's counters with the name: "host  (z10, ...)".
            if h.name.trim().is_empty() {
                return Err(self.invalid(format!(
                    "{at}: name is empty; give the host a name workloads can use"
                )));
            }
            if let Some(c) = unprintable(&h.name) {
                return Err(self.invalid(format!(
                    "{at}: name {:?} holds {c}, which would break the report's lines; \
                     use letters, digits and punctuation",
                    h.name
                )));
            }
            if let Some(j) = cfgs[..i].iter().position(|o| o.name == h.name) {
                return Err(self.invalid(format!(
                    "{at}: name {:?} is already used by {}",
                    h.name, refs[j]
                )));
            }
            if let Some(j) = cfgs[..i].iter().position(|o| o.ip == h.ip) {
                return Err(self.invalid(format!(
                    "{at}: ip \"{}\" is already {}'s address",
                    h.ip, refs[j]
                )));
            }
        }
        for (i, h) in cfgs.iter().enumerate() {
            let Some(d) = h.dvipa else { continue };
            // Frames for the DVIPA would reach the other host, not the
            // distributor.
            let at = &refs[i];
            if let Some(j) = cfgs.iter().position(|o| o.ip == d) {
                return Err(self.invalid(format!(
                    "{at}: dvipa {d} is {}'s own ip; a distributed DVIPA needs an \
                     address of its own",
                    refs[j]
                )));
            }
            if let Some(j) = cfgs[..i].iter().position(|o| o.dvipa == Some(d)) {
                return Err(self.invalid(format!("{at}: dvipa {d} is already {}'s dvipa", refs[j])));
            }
        }
        let mut specs = Vec::new();
        // The profiles of all hosts together, as for `profile check`: a
        // thousand hosts each naming a large profile would fill memory.
        let mut budget = softosa_profile::load::TextBudget::default();
        for (i, h) in cfgs.iter().enumerate() {
            // A target of a distributor also answers for the DVIPA (a
            // distributor that targets itself owns it already).
            let extra: Vec<Ipv4Addr> = cfgs
                .iter()
                .filter(|d| d.name != h.name && d.distribute_to.contains(&h.name))
                .filter_map(|d| d.dvipa)
                .collect();
            specs.push(self.resolve_host(i, &refs[i], h, models, &extra, &mut budget)?);
        }
        for (i, h) in cfgs.iter().enumerate() {
            if h.distribute_to.is_empty() {
                continue;
            }
            let at = &refs[i];
            if h.dvipa.is_none() {
                return Err(self.invalid(format!("{at}: distribute_to needs a dvipa")));
            }
            let mut t = Vec::new();
            for n in &h.distribute_to {
                let j = cfgs
                    .iter()
                    .position(|x| x.name == *n && x.kind.eq_ignore_ascii_case("zos"))
                    .ok_or_else(|| {
                        self.invalid(format!(
                            "{at}: distribute_to names {n:?}, which is not a z/OS host"
                        ))
                    })?;
                if t.contains(&j) {
                    return Err(self.invalid(format!(
                        "{at}: distribute_to names {n:?} twice (each target takes one \
                         connection in turn; name it once)"
                    )));
                }
                // A target answers the client directly from its own OSA.
                if j != i && hosts.get(j).is_some_and(on_hipersockets) {
                    return Err(self.invalid(format!(
                        "{at}: distribute_to names {n:?}, which is on HiperSockets: a target \
                         answers the client itself, through an OSA on the client's LAN, and \
                         that host has none"
                    )));
                }
                t.push(j);
            }
            // Only itself: nothing crosses an XCF link, whose settings then
            // make no run of their own (check_unused_host_fields refuses
            // them in the file, and a [vary] of them runs one setup).
            let (xcf_speed, xcf_latency_us) = if t.iter().all(|&j| j == i) {
                (None, None)
            } else {
                (h.xcf_speed.clone(), h.xcf_latency_us)
            };
            let xs = xcf_speed.unwrap_or_else(|| "10g".into());
            let rate =
                parse_speed(&xs).ok_or_else(|| {
                    self.invalid(format!(
                        "{at}: xcf_speed {xs:?} (use 1g, 10g or a number of Mb/s, from 1 to 1000000 (1000g))"
                    ))
                })?;
            specs[i].distributor = Some(crate::world::Distributor {
                dvipa: u32::from(h.dvipa.unwrap_or(Ipv4Addr::UNSPECIFIED)),
                targets: t,
                xcf: LinkParams {
                    rate_bps: rate,
                    latency_ns: (xcf_latency_us.unwrap_or(5.0).max(0.0) * 1000.0) as Ns,
                    mtu: h.mtu,
                    loss: 0.0,
                    switch_buffer: 0,
                },
            });
        }
        let find = |n: &str| specs.iter().position(|h| h.name == n);
        if wls.len() > MAX_WORKLOADS {
            return Err(self.invalid(format!(
                "{}: the scenario has {} workloads; at most {MAX_WORKLOADS} \
                 (workloads that differ only in their name can be one with more connections)",
                self.workload_ref(MAX_WORKLOADS),
                wls.len()
            )));
        }
        let mut workloads = Vec::new();
        // (host, workload) pairs protected by IPsec
        let mut ipsec_hosts: Vec<(usize, usize)> = Vec::new();
        for (i, wv) in wls.iter().enumerate() {
            let r = &self.workload_ref(i);
            let w: WorkloadCfg = self.typed(wv, r)?;
            let kind = match w.kind.to_ascii_uppercase().as_str() {
                "RR" => Kind::Rr,
                "CRR" => Kind::Crr,
                "STR" => Kind::Str,
                other => {
                    return Err(self.invalid(format!("{r}: type {other:?} is not RR, CRR or STR")))
                }
            };
            let client = find(&w.client)
                .ok_or_else(|| self.invalid(format!("{r}: no host named {:?}", w.client)))?;
            let server = find(&w.server)
                .ok_or_else(|| self.invalid(format!("{r}: no host named {:?}", w.server)))?;
            if client == server {
                return Err(self.invalid(format!("{r}: client and server are the same host")));
            }
            if specs[client].iqd.is_some() != specs[server].iqd.is_some() {
                let net = |h: usize| {
                    if specs[h].iqd.is_some() {
                        "HiperSockets"
                    } else {
                        "Ethernet"
                    }
                };
                return Err(self.invalid(format!(
                    "{r}: client {:?} is on {} and server {:?} on {}; \
                     they cannot reach each other (give both the same link)",
                    w.client,
                    net(client),
                    w.server,
                    net(server)
                )));
            }
            if w.connections == 0 || w.connections > 10_000 {
                return Err(self.invalid(format!("{r}: connections must be 1..10000")));
            }
            // One field named per message, so the error points at its line.
            for (key, bytes) in [("request", w.request), ("response", w.response)] {
                if bytes == 0 {
                    return Err(self.invalid(format!("{r}: {key} must be at least 1 byte")));
                }
            }
            for (key, kb) in [("sndbuf_kb", w.sndbuf_kb), ("rcvbuf_kb", w.rcvbuf_kb)] {
                let Some(kb) = kb else { continue };
                if !(MIN_TCP_BUF / 1024..=MAX_TCP_BUF / 1024).contains(&kb) {
                    return Err(self.invalid(format!(
                        "{r}: {key} {kb}: a TCP buffer of 4 to 16384 KB (left out, each end \
                         has its stack's default: a profile's TCPCONFIG, else 64)"
                    )));
                }
            }
            if w.importance > 6 {
                return Err(self.invalid(format!(
                    "{r}: importance is 0 (SYSSTC) .. 6 (discretionary)"
                )));
            }
            let think_ns = match w.think_us {
                None => 0,
                Some(t) if (0.0..=MAX_THINK_US).contains(&t) => (t * 1000.0).round() as u64,
                Some(t) => {
                    return Err(self.invalid(format!(
                        "{r}: think_us {}: a mean think time of 0 to {MAX_THINK_US} µs \
                         (one minute)",
                        shown_number(t)
                    )))
                }
            };
            let via = if w.to_dvipa {
                if specs[server].distributor.is_none() {
                    return Err(self.invalid(format!(
                        "{r}: to_dvipa needs a server with dvipa and distribute_to"
                    )));
                }
                Some(server)
            } else {
                None
            };
            let tls = match w.tls.as_deref().map(str::to_ascii_lowercase).as_deref() {
                None | Some("none") | Some("off") => None,
                Some("full") => Some(crate::workload::Tls::Full),
                Some("resume") => Some(crate::workload::Tls::Resume),
                Some(o) => {
                    return Err(self.invalid(format!(
                        "{r}: tls {o:?}: use none (the default), full or resume"
                    )))
                }
            };
            if w.ipsec {
                let why = if tls.is_some() {
                    Some("it takes tls or ipsec, not both".to_string())
                } else if via.is_some() {
                    Some("IPsec to a distributed DVIPA is not modelled".to_string())
                } else {
                    [client, server]
                        .into_iter()
                        .find(|&h| specs[h].kind == HostKind::Vse)
                        .map(|h| {
                            format!("{:?} is VSE, which softosa gives no IPsec", specs[h].name)
                        })
                };
                if let Some(why) = why {
                    return Err(self.invalid(format!("{r}: ipsec: {why}")));
                }
                ipsec_hosts.extend([(client, i), (server, i)]);
            }
            if w.name.as_deref().is_some_and(|n| n.trim().is_empty()) {
                // A nameless row in every table and an empty CSV field.
                return Err(self.invalid(format!(
                    "{r}: name is empty; give a name, or leave name out for one made \
                     of the type and sizes"
                )));
            }
            if let Some(c) = w.name.as_deref().and_then(unprintable) {
                return Err(self.invalid(format!(
                    "{r}: name {:?} holds {c}, which would break the report's lines; \
                     use letters, digits and punctuation",
                    w.name.as_deref().unwrap_or_default()
                )));
            }
            let name = w.name.clone().unwrap_or_else(|| {
                format!(
                    "{}{}({}/{})",
                    kind.label(),
                    w.connections,
                    w.request,
                    w.response
                )
            });
            // The report's rows are known by name alone.
            if let Some(j) = workloads.iter().position(|o: &WorkloadSpec| o.name == name) {
                return Err(self.invalid(format!(
                    "{r}: name {name:?} is already the name of workload #{}{}; give each \
                     workload a name of its own (name = \"...\")",
                    j + 1,
                    if w.name.is_none() {
                        " (a workload without a name is known by its type and sizes)"
                    } else {
                        ""
                    }
                )));
            }
            workloads.push(WorkloadSpec {
                name,
                kind,
                connections: w.connections,
                request: w.request,
                response: w.response,
                client,
                server,
                importance: w.importance,
                sndbuf: w.sndbuf_kb.map(|k| k * 1024),
                rcvbuf: w.rcvbuf_kb.map(|k| k * 1024),
                via_distributor: via,
                tls,
                ipsec: w.ipsec,
                think_ns,
            });
        }
        // A z/OS stack protects traffic with IPsec only with IPCONFIG
        // IPSECURITY: a profile must code it; a host described by fields
        // gets it (and with it the IPSEC input queue on an OSA-Express6S
        // with IWQ, spec 2.3).
        for (h, i) in ipsec_hosts {
            let Some(a) = specs[h].adapter.as_mut() else {
                continue;
            };
            let from_profile = cfgs[h].profile.is_some() || cfgs[h].profile_text.is_some();
            let iface = a.osa.config.interfaces.get(a.osa.iface).map(|x| x.stack);
            let Some(stack) = iface.and_then(|k| a.osa.config.stacks.get_mut(k)) else {
                continue;
            };
            if from_profile && !stack.ipsecurity {
                let r = self.workload_ref(i);
                return Err(self.invalid(format!(
                    "{r}: ipsec: {:?}'s profile has no IPCONFIG IPSECURITY (z/OS \
                     protects traffic with IPsec only with it)",
                    specs[h].name
                )));
            }
            stack.ipsecurity = true;
        }
        // The simulated LAN reaches every host directly, where z/OS would
        // need a route and a router for a peer outside its interface's
        // subnets: say so for the hosts whose profile gives the subnets.
        for w in workloads.iter().filter(|w| w.via_distributor.is_none()) {
            for (me, other) in [(w.client, w.server), (w.server, w.client)] {
                let from_profile = cfgs
                    .get(me)
                    .is_some_and(|h| h.profile.is_some() || h.profile_text.is_some());
                let peer = IpAddr::V4(Ipv4Addr::from(specs[other].ip));
                let (Some(a), true) = (specs[me].adapter.as_mut(), from_profile) else {
                    continue;
                };
                let Some(iface) = a.osa.config.interfaces.get(a.osa.iface) else {
                    continue;
                };
                if iface.addresses.iter().any(|n| n.contains(peer)) {
                    continue;
                }
                let note = format!(
                    "host {:?} ({peer}), which a workload runs with, is in no subnet of \
                     interface {} ({}); z/OS would reach it through a router, which the \
                     simulated LAN does not have, so softosa delivers its frames directly on \
                     the LAN",
                    cfgs[other].name,
                    iface.name,
                    iface
                        .addresses
                        .iter()
                        .map(|n| format!("{}/{}", n.addr, n.prefix))
                        .collect::<Vec<_>>()
                        .join(" ")
                );
                if !a.osa.notes.contains(&note) {
                    a.osa.notes.push(note);
                }
            }
        }
        // Each connection holds both ends' TCP state (about 400 bytes):
        // bound the whole scenario, not only each workload.
        let total: u64 = workloads.iter().map(|w| u64::from(w.connections)).sum();
        if total > MAX_CONNECTIONS {
            return Err(self.invalid(format!(
                "the workloads open {total} connections together; at most {MAX_CONNECTIONS} \
                 (fewer workloads or connections per workload)"
            )));
        }
        // At least a nanosecond, the clock's step: 1e-9 ms was taken and
        // ran with a 0 ns window, every rate zero.
        if !DURATION_MS.contains(&self.file.duration_ms) {
            return Err(self.invalid(format!(
                "duration_ms {} must be in [0.000001, 600000] (one nanosecond to ten minutes)",
                shown_number(self.file.duration_ms)
            )));
        }
        if !(self.file.warmup_ms >= 0.0 && self.file.warmup_ms <= 600_000.0) {
            return Err(self.invalid("warmup_ms must be in [0, 600000]"));
        }
        // The report heads its output with the name as it is: a control
        // character would drive the terminal (clear it, forge a line).
        if let Some(c) = self.file.name.as_deref().and_then(unprintable) {
            return Err(self.invalid(format!("name holds {c}")));
        }
        // Sampling starts at time 0: a period beyond the whole run takes
        // only that sample (a unit slip, ms for µs), and µs × 1000 must not
        // wrap (18446744073709552 µs wrapped to a sample every 384 ns).
        let run_us = (self.file.warmup_ms + self.file.duration_ms) * 1000.0;
        let sample_every_ns = match self.file.sample_us.checked_mul(1000) {
            Some(ns) if (self.file.sample_us as f64) <= run_us => ns,
            _ => {
                return Err(self.invalid(format!(
                    "sample_us {} is longer than the run (warmup_ms + duration_ms = {} us), \
                     so only the sample at time 0 would be taken; give a period in \
                     microseconds within the run, or 0 for no sampling",
                    self.file.sample_us, run_us
                )))
            }
        };
        Ok(Setup {
            hosts: specs,
            workloads,
            warmup_ns: (self.file.warmup_ms * 1e6) as Ns,
            duration_ns: (self.file.duration_ms * 1e6) as Ns,
            seed: self.file.seed,
            sample_every_ns,
            max_samples: crate::world::MAX_TIMER_SAMPLES,
        })
    }

    /// Host `idx`, named `at` in messages ([`table_refs`]).
    fn resolve_host(
        &self,
        idx: usize,
        at: &str,
        h: &HostCfg,
        models: &Models,
        extra_addrs: &[Ipv4Addr],
        budget: &mut softosa_profile::load::TextBudget,
    ) -> Result<HostSpec, ScenarioError> {
        let bad = |w: String| self.invalid(format!("{at}: {w}"));
        let rate = parse_speed(&h.speed).ok_or_else(|| {
            bad(format!(
                "speed {:?} (use 100m, 1g, 10g, 25g or a number of Mb/s, from 1 to 1000000 (1000g))",
                h.speed
            ))
        })?;
        if !(576..=65_535).contains(&h.mtu) {
            return Err(bad(format!("mtu {} out of range 576..65535", h.mtu)));
        }
        if !(0.0..1.0).contains(&h.loss) {
            return Err(bad(format!(
                "loss {} must be in [0, 1)",
                shown_number(h.loss)
            )));
        }
        let link = LinkParams {
            rate_bps: rate,
            latency_ns: (h.latency_us.max(0.0) * 1000.0) as Ns,
            mtu: h.mtu,
            loss: h.loss,
            switch_buffer: h.switch_buffer_kb.saturating_mul(1024),
        };
        let zos = h.kind.eq_ignore_ascii_case("zos");
        let is_vse = h.kind.eq_ignore_ascii_case("vse");
        // An OSA's largest IP MTU (z/OS refuses a larger MTU on IPAQENET).
        if zos && h.mtu > OSA_MAX_MTU {
            return Err(bad(format!(
                "mtu {}: a z/OS host's OSA carries IP packets of at most {OSA_MAX_MTU} bytes \
                 (jumbo frames); use 576..{OSA_MAX_MTU}",
                h.mtu
            )));
        }
        let vswitch = match h.vswitch.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None => None,
            Some(_) if zos || is_vse => {
                return Err(bad(
                    "vswitch: a z/VM guest's virtual NIC; give it to a peer type (zvm, linux)"
                        .into(),
                ))
            }
            Some("ip") | Some("layer3") => Some(crate::world::VswitchMode::Ip),
            Some("ethernet") | Some("layer2") => Some(crate::world::VswitchMode::Ethernet),
            Some(o) => {
                return Err(bad(format!(
                    "vswitch {o:?}: use ip (IP mode, layer 3) or ethernet (Ethernet mode, layer 2)"
                )))
            }
        };
        let iqd = match h.link.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None | Some("ethernet") => None,
            Some(l) if HIPERSOCKETS_LINKS.contains(&l) => {
                let hs = self.file.hipersockets.clone().unwrap_or(HiperSocketsCfg {
                    machine: default_iqd_machine(),
                    mfs_kb: default_mfs(),
                });
                let model = models.hipersockets.get(&hs.machine).ok_or_else(|| {
                    bad(format!(
                        "[hipersockets] machine {:?} unknown (known: {})",
                        hs.machine,
                        keys(&models.hipersockets)
                    ))
                })?;
                if crate::iqd::mtu_for_mfs(hs.mfs_kb).is_none() {
                    return Err(bad(format!(
                        "[hipersockets] mfs_kb {} (use 16, 24, 40 or 64)",
                        hs.mfs_kb
                    )));
                }
                Some(crate::iqd::IqdAttach {
                    model: model.clone(),
                    mfs_kb: hs.mfs_kb,
                })
            }
            Some(o) => return Err(bad(format!("link {o:?} is not ethernet or hipersockets"))),
        };
        if vswitch.is_some() && iqd.is_some() {
            return Err(bad(
                "vswitch: a VSWITCH's uplink is an OSA on Ethernet, not HiperSockets".into(),
            ));
        }
        if is_vse && iqd.is_none() {
            return Err(bad(
                "VSE hosts attach by HiperSockets (link = \"hipersockets\") in this version".into(),
            ));
        }
        if iqd.is_none() && link.switch_buffer < h.mtu + ETH_HEADER {
            // Every frame of the MTU would be dropped at the switch.
            return Err(bad(format!(
                "switch_buffer_kb {} cannot hold one frame of mtu {} (at least {} KB)",
                h.switch_buffer_kb,
                h.mtu,
                (h.mtu + ETH_HEADER).div_ceil(1024)
            )));
        }
        let mut link = link;
        if let Some(a) = &iqd {
            // the CHPID's frame size decides the MTU; no wire, no switch
            link.mtu = crate::iqd::mtu_for_mfs(a.mfs_kb).unwrap_or(link.mtu);
            link.loss = 0.0;
        }
        let (kind, model, mut costs) = if zos {
            let m = h.machine.clone().unwrap_or_else(|| "z10".into());
            let c = models.machine.get(&m).ok_or_else(|| {
                bad(format!(
                    "unknown machine {m:?} (known: {})",
                    keys(&models.machine)
                ))
            })?;
            (HostKind::Zos, m, c.clone())
        } else if is_vse {
            let m = h.machine.clone().unwrap_or_else(|| "z800".into());
            let c = models.vse.get(&m).ok_or_else(|| {
                bad(format!(
                    "unknown VSE machine {m:?} (known: {})",
                    keys(&models.vse)
                ))
            })?;
            (HostKind::Vse, m, c.clone())
        } else {
            let kind = h.kind.to_ascii_lowercase();
            let m = match &h.machine {
                Some(mach) => format!("{kind}-{mach}"),
                None => kind.clone(),
            };
            let c = models.peer.get(&m).ok_or_else(|| {
                if h.machine.is_some() && models.peer.contains_key(&kind) {
                    bad(format!(
                        "machine {:?} has no model for type {:?}: no peer model {m:?} (peer \
                         models: {}; leave machine out for the plain {kind:?} model)",
                        h.machine.as_deref().unwrap_or(""),
                        h.kind,
                        keys(&models.peer)
                    ))
                } else {
                    bad(format!(
                        "unknown host type {:?} (zos, vse or a peer: {})",
                        h.kind,
                        keys(&models.peer)
                    ))
                }
            })?;
            (HostKind::Peer, m, c.clone())
        };
        if let Some(p) = h.processors {
            if p == 0 || p > 256 {
                return Err(bad("processors must be 1..256".into()));
            }
            costs.processors = p;
        }
        let adapter = if zos && iqd.is_none() {
            let named = h.adapter.clone().unwrap_or_else(|| "osa-express3".into());
            let g = adapter_feature(&named, rate, models).map_err(bad)?;
            let gen = models
                .adapter
                .get(&g)
                .ok_or_else(|| {
                    bad(format!(
                        "unknown adapter {g:?} (known: {})",
                        keys(&models.adapter)
                    ))
                })?
                .clone();
            let osa = match (&h.profile, &h.profile_text) {
                (None, None) => OsaSetup {
                    config: engine_config(idx, h, &g, rate, extra_addrs).map_err(bad)?,
                    iface: 0,
                    warnings: Vec::new(),
                    notes: Vec::new(),
                },
                (Some(_), Some(_)) => {
                    return Err(bad("give profile or profile_text, not both".into()))
                }
                (Some(f), None) if f.trim().is_empty() => {
                    // It read the scenario's directory: "Is a directory",
                    // or "profile : No such file" beside the current one.
                    return Err(bad(
                        "profile is empty; name a TCP/IP profile file (relative to the scenario \
                         file), or write the statements in profile_text"
                            .into(),
                    ));
                }
                (Some(f), None) if f.contains('\n') => {
                    // Statements written inline under the file field.
                    return Err(bad(
                        "profile names a file; write profile statements inline as profile_text = \"\"\"...\"\"\""
                            .into(),
                    ));
                }
                (Some(f), None) => {
                    let base = Path::new(&self.path).parent().unwrap_or(Path::new("."));
                    let p = base.join(f);
                    let src = softosa_profile::load::read_bounded_string_within(&p, budget)
                        .map_err(|e| bad(format!("profile {}: {e}", p.display())))?;
                    // "profile FILE:LINE:COL: ..." points at the `profile =` line
                    // of the scenario and then into the profile.
                    profile_config(
                        idx,
                        h,
                        &g,
                        rate,
                        &p.display().to_string(),
                        &src,
                        extra_addrs,
                    )
                    .map_err(|e| bad(format!("profile {e}")))?
                }
                (None, Some(t)) => {
                    // Lines within the inline text: "profile_text:LINE:COL".
                    profile_config(idx, h, &g, rate, "profile_text", t, extra_addrs).map_err(bad)?
                }
            };
            Some(AdapterSetup {
                generation_name: g,
                gen,
                osa,
            })
        } else {
            if h.adapter.is_some() {
                return Err(bad(if zos {
                    "adapter: this z/OS host is on HiperSockets, which has no OSA".into()
                } else {
                    "adapter applies to z/OS hosts only".into()
                }));
            }
            None
        };
        let stack = adapter.as_ref().and_then(|a| {
            let c = &a.osa.config;
            c.interfaces
                .get(a.osa.iface)
                .and_then(|i| c.stacks.get(i.stack))
        });
        let profile_tso = stack.is_some_and(|s| s.segmentation_offload);
        let mut tcp = stack.map(|s| s.tcp).unwrap_or_default();
        if !zos {
            // A peer's TIME_WAIT is its system's habit (AIX's tcp_timewait).
            tcp.time_wait_s = costs.time_wait_s;
        }
        for (name, b) in [
            ("TCPSENDBFRSIZE", tcp.send_buf),
            ("TCPRCVBUFRSIZE", tcp.rcv_buf),
        ] {
            if !(MIN_TCP_BUF..=MAX_TCP_BUF).contains(&b) {
                return Err(bad(format!(
                    "profile TCPCONFIG {name} {b}: softosa simulates TCP buffers of {} KB to {} KB",
                    MIN_TCP_BUF / 1024,
                    MAX_TCP_BUF / 1024
                )));
            }
        }
        // The kinds: the host's `smc` field, or its profile's GLOBALCONFIG
        // SMCR / SMCD (the two are never both given).
        let mut kinds: Vec<SmcKind> = match h.smc.as_deref().map(str::to_ascii_lowercase).as_deref()
        {
            None | Some("none") | Some("no") => Vec::new(),
            Some("r") => vec![SmcKind::R],
            Some("d") => vec![SmcKind::D],
            Some("rd") | Some("dr") | Some("both") => vec![SmcKind::R, SmcKind::D],
            Some(o) => {
                return Err(bad(format!(
                    "smc {o:?}: use r (SMC-R over RoCE), d (SMC-D over ISM, hosts in one \
                         machine), rd (both) or none"
                )))
            }
        };
        if let Some(s) = stack {
            if s.smc_r {
                kinds.push(SmcKind::R);
            }
            if s.smc_d {
                kinds.push(SmcKind::D);
            }
        }
        if !kinds.is_empty() && kind == HostKind::Vse {
            return Err(bad("smc: VSE has no SMC".into()));
        }
        let mut smc = Vec::new();
        for k in kinds {
            let key = if k == SmcKind::R { "r" } else { "d" };
            let model = models
                .smc
                .get(key)
                .cloned()
                .ok_or_else(|| bad(format!("smc {key:?}: no [models.smc.{key}] parameters")))?;
            if model.write_bytes < 1024 || model.rate_bps == 0 {
                return Err(bad(format!(
                    "[models.smc.{key}]: write_bytes must be at least 1024 and rate_bps above 0"
                )));
            }
            smc.push(SmcPath { kind: k, model });
        }
        Ok(HostSpec {
            name: h.name.clone(),
            kind,
            model,
            costs,
            ip: u32::from(h.ip),
            link,
            adapter,
            segmentation_offload: zos && (h.segmentation_offload || profile_tso),
            tcp,
            smc,
            crypto_coprocessor: h.crypto_coprocessor,
            vswitch,
            distributor: None,
            iqd,
        })
    }
}

/// A table of the scenario file and where it starts (its header, or the
/// inline table), for [`Scenario::line_of`].
struct TablePlace<'a> {
    table: &'a dyn toml_edit::TableLike,
    span: Option<std::ops::Range<usize>>,
}

/// The tables of array `name`, in order, written either as `[[name]]`
/// tables or as an inline array of inline tables.
fn array_tables<'a>(root: &'a toml_edit::Table, name: &str) -> Vec<TablePlace<'a>> {
    match root.get(name) {
        Some(toml_edit::Item::ArrayOfTables(a)) => a
            .iter()
            .map(|t| TablePlace {
                table: t,
                span: t.span(),
            })
            .collect(),
        Some(toml_edit::Item::Value(toml_edit::Value::Array(a))) => a
            .iter()
            .filter_map(|v| {
                Some(TablePlace {
                    table: v.as_inline_table()?,
                    span: v.span(),
                })
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Where the first string value equal to `q` is written in `table`, at any
/// depth (a `[vary]` value, an entry of an inline table).
fn string_span(table: &dyn toml_edit::TableLike, q: &str) -> Option<std::ops::Range<usize>> {
    table.iter().find_map(|(_, i)| item_string_span(i, q))
}

/// As [`string_span`], within one item (a key's value).
fn item_string_span(i: &toml_edit::Item, q: &str) -> Option<std::ops::Range<usize>> {
    fn in_value(v: &toml_edit::Value, q: &str) -> Option<std::ops::Range<usize>> {
        match v {
            toml_edit::Value::String(s) if s.value() == q => v.span(),
            toml_edit::Value::Array(a) => a.iter().find_map(|v| in_value(v, q)),
            toml_edit::Value::InlineTable(t) => t.iter().find_map(|(_, v)| in_value(v, q)),
            _ => None,
        }
    }
    match i {
        toml_edit::Item::Value(v) => in_value(v, q),
        toml_edit::Item::Table(t) => string_span(t, q),
        toml_edit::Item::ArrayOfTables(a) => a.iter().find_map(|t| string_span(t, q)),
        toml_edit::Item::None => None,
    }
}

/// The line (1-based) of byte `offset` in `text`.
fn line_at(text: &str, offset: usize) -> usize {
    1 + text
        .as_bytes()
        .iter()
        .take(offset)
        .filter(|&&b| b == b'\n')
        .count()
}

/// A serde message in a user's words: Rust's type names become what the
/// field takes, and the lines of a nested error become one. A whole number
/// the field's type cannot hold is told why (negative, or above the
/// largest), since "expected a whole number" alone reads wrong for `-1` or
/// `4294967296`.
fn plain_types(msg: &str) -> String {
    let mut m = msg.to_string();
    // serde: "invalid value: integer `N`, expected u32".
    let given: Option<i128> = m
        .split_once("invalid value: integer `")
        .and_then(|(_, r)| r.split_once('`'))
        .and_then(|(n, _)| n.parse().ok());
    for (t, max) in [
        ("usize", usize::MAX as u128),
        ("u64", u128::from(u64::MAX)),
        ("u32", u128::from(u32::MAX)),
        ("u16", u128::from(u16::MAX)),
        ("u8", u128::from(u8::MAX)),
    ] {
        let words = match given {
            Some(n) if n < 0 => "expected a whole number, not negative".to_string(),
            Some(_) => format!("expected a whole number of at most {max}"),
            None => "expected a whole number".to_string(),
        };
        m = m.replace(&format!("expected {t}"), &words);
    }
    let m = m
        .replace("expected i64", "expected a whole number")
        .replace("expected f64", "expected a number");
    // The parser quotes the offending line of the file (`12 | ...`, then a
    // `   |  ^^^` marker): a line of 200 KB is shown by its first part. Its
    // message lines keep every word (the list of valid fields after an
    // unknown one), with a huge one cut as a profile diagnostic cuts it.
    const LINE_CHARS: usize = 300;
    let quoted = |l: &str| {
        l.trim_start()
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start()
            .starts_with('|')
    };
    use softosa_profile::diag::{cut_to, shorten_long_words, Diagnostic};
    m.lines()
        .map(|l| {
            if quoted(l) {
                cut_to(l, LINE_CHARS)
            } else {
                // Many short words (a long string value the message
                // repeats) are bounded as a whole line.
                cut_to(
                    &shorten_long_words(l, Diagnostic::WORD_CHARS),
                    Diagnostic::MESSAGE_CHARS,
                )
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if m.ends_with('\n') { "\n" } else { "" }
}

/// As [`plain_types`], on one line (errors of a table converted after
/// parsing end in "\nin `field`").
fn plain_types_line(msg: &str) -> String {
    plain_types(
        &msg.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// How messages name each `[[KIND]]` table of `tables` (`kind` is `host`
/// or `workload`): `host "NAME"` by its name, or `host #N` (1-based) when
/// it has none that tells it from the others (no name, an empty one, one
/// another table has too) or one that needs escaping in quotes
/// (`Scenario::line_of` finds a message's table by this reference, and
/// passes over the names of others between their quotes).
fn table_refs(kind: &str, tables: &[toml::Value]) -> Vec<String> {
    fn name_of(h: &toml::Value) -> Option<&str> {
        h.get("name").and_then(|n| n.as_str())
    }
    let mut uses: std::collections::BTreeMap<&str, usize> = Default::default();
    for n in tables.iter().filter_map(name_of) {
        *uses.entry(n).or_default() += 1;
    }
    tables
        .iter()
        .enumerate()
        .map(|(i, h)| match name_of(h) {
            Some(n)
                if !n.trim().is_empty()
                    && uses.get(n) == Some(&1)
                    && format!("{n:?}") == format!("\"{n}\"") =>
            {
                format!("{kind} \"{n}\"")
            }
            _ => format!("{kind} #{}", i + 1),
        })
        .collect()
}

/// The name a `[[workload]]` table is selected by (`[vary] workloads`,
/// `--vary-on`) and shown under: its `name`, else its type and sizes as the
/// report shows them (`RR10(100/800)`); `None` for a table too malformed to
/// say (the scenario refuses it anyway).
fn workload_known_as(w: &toml::Value) -> Option<String> {
    if let Some(n) = w.get("name") {
        return n.as_str().map(str::to_string);
    }
    let typed: WorkloadCfg = w.clone().try_into().ok()?;
    Some(format!(
        "{}{}({}/{})",
        typed.kind.to_ascii_uppercase(),
        typed.connections,
        typed.request,
        typed.response
    ))
}

/// Whether a `[vary]` of a host field changes host table `h`: the hosts it
/// names, else every z/OS host (for a field of the OSA's, every z/OS host
/// that has one).
fn vary_selects_host(v: &Vary, h: &toml::Value) -> bool {
    if v.hosts.is_empty() {
        let zos = h
            .get("type")
            .and_then(|t| t.as_str())
            .is_some_and(|t| t.eq_ignore_ascii_case("zos"));
        // A field of the OSA's or of the wire changes the z/OS hosts that
        // have one.
        zos && !(on_hipersockets(h)
            && (osa_setting(&v.field) || WIRE_FIELDS.contains(&v.field.as_str())))
    } else {
        let name = h.get("name").and_then(|n| n.as_str()).unwrap_or("");
        v.hosts.iter().any(|x| x == name)
    }
}

/// A `[vary]` value as a variant's default label: strings without quotes.
fn value_label(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A `[vary]` field naming a model parameter, `models.TABLE.SET.FIELD`:
/// (table, set, field). The set's name may hold dots; the table's and the
/// field's do not.
fn model_field(field: &str) -> Option<(&str, &str, &str)> {
    let (table, rest) = field.strip_prefix("models.")?.split_once('.')?;
    let (set, key) = rest.rsplit_once('.')?;
    (!table.is_empty() && !set.is_empty() && !key.is_empty()).then_some((table, set, key))
}

/// The file's own `[models]` (or none) with `table.set.key` = `value`.
fn with_model_value(
    own: Option<&toml::Table>,
    table: &str,
    set: &str,
    key: &str,
    value: &toml::Value,
) -> toml::Table {
    let mut own = own.cloned().unwrap_or_default();
    let t = own
        .entry(table.to_string())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if !t.is_table() {
        *t = toml::Value::Table(toml::Table::new());
    }
    if let Some(t) = t.as_table_mut() {
        let s = t
            .entry(set.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if !s.is_table() {
            *s = toml::Value::Table(toml::Table::new());
        }
        if let Some(s) = s.as_table_mut() {
            s.insert(key.to_string(), value.clone());
        }
    }
    own
}

/// A `[vary]` value as written in TOML, for messages.
fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// A value that tells one value from another the way the run would: words
/// in any case and spacing are the same word (`"dynamic  olm"` is
/// `"DYNAMIC OLM"`).
fn value_key(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s
            .split_whitespace()
            .map(str::to_ascii_uppercase)
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}

/// A digest of everything a variant runs, to find two that are the same
/// without keeping their whole text.
fn setup_digest(s: &Setup) -> u64 {
    use std::fmt::Write as _;
    use std::hash::Hasher;
    struct Feed(std::collections::hash_map::DefaultHasher);
    impl std::fmt::Write for Feed {
        fn write_str(&mut self, t: &str) -> std::fmt::Result {
            self.0.write(t.as_bytes());
            Ok(())
        }
    }
    let mut f = Feed(std::collections::hash_map::DefaultHasher::new());
    let _ = write!(f, "{s:?}");
    f.0.finish()
}

/// Lower a z/OS profile with the softosa-profile crate; the simulated
/// interface is the one that carries the host's address. The port gets a
/// burned-in MAC of its own ([`port_mac`]); the profile's warnings (what it
/// codes that softosa does not apply) go with the setup.
fn profile_config(
    idx: usize,
    h: &HostCfg,
    gen: &str,
    rate: u64,
    file: &str,
    src: &str,
    extra_addrs: &[Ipv4Addr],
) -> Result<OsaSetup, String> {
    use softosa_profile::activate::{activate, ActivateOptions, StackInput};
    use softosa_profile::load::{load_str, Loaded};
    // The first few problems in one message; `softosa profile check`
    // lists them all.
    // Only the errors: the warnings are what profile check is for.
    let fmt = |d: &softosa_profile::diag::Diagnostics| {
        const SHOWN: usize = 10;
        let mut m = d
            .errors()
            .take(SHOWN)
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join("; ");
        let more = d
            .error_count()
            .saturating_sub(SHOWN.min(d.errors().count()));
        if more > 0 {
            let all = if file == "profile_text" {
                "the text saved as a file, softosa profile check FILE lists them all".to_string()
            } else {
                format!("softosa profile check {file} lists them all")
            };
            m.push_str(&format!("; ... and {more} more ({all})"));
        }
        m
    };
    let (loaded, diags) = load_str(file, src);
    if diags.has_errors() {
        return Err(fmt(&diags));
    }
    let Loaded::Profile(p) = loaded else {
        return Err(format!("{file}: not a TCP/IP profile"));
    };
    let opts = ActivateOptions {
        generation: generation(gen),
        speed_mbps: u32::try_from(rate / 1_000_000).unwrap_or(u32::MAX),
        ..ActivateOptions::default()
    };
    let stack = StackInput {
        name: stack_name(idx, &h.name),
        profile: &p,
        policy: None,
    };
    let activation = activate(&[stack], &[], &opts).map_err(|d| fmt(&d))?;
    let mut warnings: Vec<String> = diags
        .items()
        .iter()
        .chain(activation.warnings.items())
        .map(|d| d.to_string())
        .collect();
    let mut cfg = activation.config;
    let want = IpAddr::V4(h.ip);
    let iface = cfg
        .interfaces
        .iter()
        .position(|i| i.addresses.iter().any(|a| a.addr == want))
        .ok_or_else(|| format!("{file}: no interface has IPADDR {}", h.ip))?;
    // Each simulated port has a burned-in MAC of its own; a VMAC stays as
    // the profile codes it (or as the adapter generates it from the port's).
    let port = cfg.interfaces[iface].port;
    if cfg.ports.get(port).is_some_and(|p| p.is_hipersockets()) {
        // The host is on an Ethernet LAN through an OSA: an IQD interface
        // would receive none of its frames.
        return Err(format!(
            "{file}: interface {} (IPADDR {}) is a HiperSockets interface, but this host \
             reaches the LAN through an OSA (adapter = ...); define an IPAQENET interface for \
             it, or put the host on the [hipersockets] LAN with link = \"hipersockets\" \
             (where it takes no profile; docs/scenarios.md)",
            cfg.interfaces[iface].name, h.ip
        ));
    }
    if let Some(pc) = cfg.ports.get_mut(port) {
        pc.physical_mac = port_mac(idx);
        pc.lan_mtu = Some(h.mtu);
    }
    let i = &mut cfg.interfaces[iface];
    // The scenario's dvipa is the host's whether or not the profile codes
    // it (VIPADEFINE / VIPADISTRIBUTE): the interface answers for it, and a
    // distributor's goes to the SYSDIST queue, as with the fields.
    for a in extra_addrs.iter().chain(h.dvipa.iter()) {
        if !i.addresses.iter().any(|x| x.addr == IpAddr::V4(*a)) {
            i.addresses.push(ec::IpNet {
                addr: IpAddr::V4(*a),
                prefix: 32,
            });
        }
    }
    let stack = i.stack;
    if let (Some(d), false) = (h.dvipa, h.distribute_to.is_empty()) {
        if let Some(st) = cfg.stacks.get_mut(stack) {
            // The scenario distributes one DVIPA; another the profile
            // distributes has no targets here.
            for x in st
                .distributed_dvipas
                .iter()
                .filter(|x| **x != IpAddr::V4(d))
            {
                warnings.push(format!(
                    "{file}: VIPADISTRIBUTE distributes {x}, which is not the scenario's dvipa \
                     {d}: only {d} is spread over distribute_to's targets, and {x} has none \
                     (set dvipa to it, or drop it from the profile)"
                ));
            }
            if !st.distributed_dvipas.contains(&IpAddr::V4(d)) {
                st.distributed_dvipas.push(IpAddr::V4(d));
            }
        }
    }
    Ok(OsaSetup {
        config: cfg,
        iface,
        warnings,
        notes: Vec::new(),
    })
}

/// The TCP/IP procedure name the displays give host `idx`'s stack: the
/// host's name in capitals when it can be one (1 to 8 letters, digits or
/// national characters, not starting with a digit), else TCPIPn.
fn stack_name(idx: usize, host: &str) -> String {
    let up = host.to_ascii_uppercase();
    let national = |c: char| matches!(c, '@' | '#' | '$');
    let ok = (1..=8).contains(&up.len())
        && up
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase() || national(c))
        && up
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || national(c));
    if ok {
        up
    } else {
        format!("TCPIP{idx}")
    }
}

/// The burned-in MAC of host `idx`'s OSA port: universally administered
/// (IBM's 64:3B:88 prefix, as the profile activation's default port MAC),
/// one per host, unlike the VMACs a profile codes or the adapter makes.
fn port_mac(idx: usize) -> ec::Mac {
    let i = idx as u32;
    ec::Mac([
        0x64,
        0x3b,
        0x88,
        0x80 | ((i >> 16) & 0x7f) as u8,
        (i >> 8) as u8,
        i as u8,
    ])
}

/// Host fields a `[vary]` may change.
pub const HOST_FIELDS: &[&str] = &[
    "inbperf",
    "vswitch",
    "adapter",
    "machine",
    "processors",
    "speed",
    "mtu",
    "latency_us",
    "loss",
    "switch_buffer_kb",
    "segmentation_offload",
    "wlm_priorityq",
    "wlm_priorityq_map",
    "read_storage",
    "xcf_speed",
    "xcf_latency_us",
    "crypto_coprocessor",
    "link",
    "smc",
];
/// What in a name would break the report's text or be shown as something
/// else than it is: a control character (a line feed, an escape sequence)
/// or a bidirectional override. None for a name that prints as written.
fn unprintable(name: &str) -> Option<String> {
    name.chars()
        .find(|c| c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'))
        .map(|c| format!("the character U+{:04X}", u32::from(c)))
}

/// The largest number a `[models]` field may hold: costs are multiplied
/// by sizes and counts, and must not wrap.
const MAX_MODEL_VALUE: i64 = 1_000_000_000_000;

/// The longest mean think time a workload may give, µs (a minute).
const MAX_THINK_US: f64 = 60_000_000.0;

/// Workload fields a `[vary]` may change.
pub const WORKLOAD_FIELDS: &[&str] = &[
    "connections",
    "request",
    "response",
    "importance",
    "think_us",
    "sndbuf_kb",
    "rcvbuf_kb",
    "type",
    "tls",
    "ipsec",
];

fn keys<V>(m: &std::collections::BTreeMap<String, V>) -> String {
    m.keys().cloned().collect::<Vec<_>>().join(", ")
}

/// `1g` → 1e9 b/s.
pub fn parse_speed(s: &str) -> Option<u64> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mul) = if let Some(n) = t.strip_suffix('g') {
        (n, 1_000_000_000u64)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 1_000_000)
    } else {
        (t.as_str(), 1_000_000)
    };
    let v: f64 = num.trim().parse().ok()?;
    // NaN or a rate below 1 Mb/s would give a link that never delivers a
    // frame: every workload silently shows zero. Above a terabit per
    // second a run crawls (every cost but the link's) and models nothing
    // a mainframe attaches.
    let bps = v * mul as f64;
    if !v.is_finite() || !(1e6..=MAX_SPEED_BPS as f64).contains(&bps) {
        return None;
    }
    Some(bps as u64)
}

/// The fastest link rate a scenario may give: 1000g.
const MAX_SPEED_BPS: u64 = 1_000_000_000_000;

/// One gigabit per second.
const GBE: u64 = 1_000_000_000;

/// The adapter feature a host's port is on. A generation's ports of 1 Gb/s
/// and below sit on a different feature (card) than its 10 GbE ports; where
/// the models have one (`<generation>-1g`, e.g. `osa-express3-1g`), naming
/// the generation with such a speed selects it. A `-1g` feature cannot run a
/// faster port.
fn adapter_feature(named: &str, rate: u64, models: &Models) -> Result<String, String> {
    if named.ends_with("-1g") {
        if rate > GBE {
            return Err(format!(
                "adapter {named:?} is a 1 GbE feature; its ports run at 1g or less"
            ));
        }
        return Ok(named.to_string());
    }
    if let Some(max) = fastest_port(named) {
        if rate > max {
            return Err(format!(
                "adapter {named:?} has no port faster than {}g, so it cannot run speed \
                 {} Mb/s; give a speed of {}g or less",
                max / GBE,
                rate / 1_000_000,
                max / GBE
            ));
        }
    }
    let gbe = format!("{named}-1g");
    if rate <= GBE && models.adapter.contains_key(&gbe) {
        Ok(gbe)
    } else {
        Ok(named.to_string())
    }
}

/// The fastest port (b/s) of an OSA-Express generation's features:
/// 10 GbE up to OSA-Express6S, 25 GbE on OSA-Express7S. None for a name
/// the scenario's own `[models.adapter]` defines, whose ports it decides.
fn fastest_port(named: &str) -> Option<u64> {
    match known_generation(named)? {
        ec::OsaGeneration::Express7S => Some(25 * GBE),
        _ => Some(10 * GBE),
    }
}

/// The generation a built-in adapter name (or its `-1g` feature) stands
/// for; None for a name of the scenario's own.
fn known_generation(name: &str) -> Option<ec::OsaGeneration> {
    Some(match name.trim_end_matches("-1g") {
        "osa-express2" => ec::OsaGeneration::Express2,
        "osa-express3" => ec::OsaGeneration::Express3,
        "osa-express5s" => ec::OsaGeneration::Express5S,
        "osa-express6s" => ec::OsaGeneration::Express6S,
        "osa-express7s" => ec::OsaGeneration::Express7S,
        _ => return None,
    })
}

/// The engine's generation for an adapter: a scenario's own adapter
/// behaves as an OSA-Express3.
fn generation(name: &str) -> ec::OsaGeneration {
    known_generation(name).unwrap_or(ec::OsaGeneration::Express3)
}

/// Build the engine configuration of a z/OS host's one OSA interface from
/// the scenario's settings (what the profile crate would produce from
/// `INTERFACE ... INBPERF ... VMAC` and `GLOBALCONFIG` statements).
fn engine_config(
    idx: usize,
    h: &HostCfg,
    gen: &str,
    rate: u64,
    extra_addrs: &[Ipv4Addr],
) -> Result<ec::SystemConfig, String> {
    let words: Vec<String> = h
        .inbperf
        .split_whitespace()
        .map(|w| w.to_ascii_uppercase())
        .collect();
    // The INTERFACE statement's words, held to the profile's rules: in any
    // order, no word twice, one mode at most; OLM forces DYNAMIC (spec 2.4)
    // and WORKLOADQ needs DYNAMIC in effect.
    const WORDS: &str =
        "one of MINLATENCY, BALANCED, MINCPU or DYNAMIC, with WORKLOADQ and OLM as wanted, \
         e.g. \"DYNAMIC WORKLOADQ\" or \"OLM\"";
    if words.is_empty() {
        return Err(format!("inbperf is empty; give {WORDS}"));
    }
    let mut mode: Option<ec::InbPerf> = None;
    let mut workloadq = false;
    let mut olm = false;
    for (i, w) in words.iter().enumerate() {
        if words[..i].contains(w) {
            return Err(format!("inbperf {:?}: {w} is given twice", h.inbperf));
        }
        let m = match w.as_str() {
            "MINLATENCY" => ec::InbPerf::MinLatency,
            "BALANCED" => ec::InbPerf::Balanced,
            "MINCPU" => ec::InbPerf::MinCpu,
            "DYNAMIC" => ec::InbPerf::Dynamic,
            "WORKLOADQ" => {
                workloadq = true;
                continue;
            }
            "OLM" => {
                olm = true;
                continue;
            }
            other => return Err(format!("inbperf word {other:?}; give {WORDS}")),
        };
        if mode.replace(m).is_some() {
            return Err(format!("inbperf {:?}: give one mode ({WORDS})", h.inbperf));
        }
    }
    let inbperf = if olm {
        ec::InbPerf::Dynamic
    } else {
        mode.unwrap_or(ec::InbPerf::Balanced)
    };
    if workloadq && inbperf != ec::InbPerf::Dynamic {
        return Err(format!(
            "inbperf {:?}: WORKLOADQ requires INBPERF DYNAMIC (or OLM, which forces it), \
             e.g. \"DYNAMIC WORKLOADQ\"",
            h.inbperf
        ));
    }
    let port = ec::PortConfig {
        name: format!("OSA{idx:02}"),
        chpid: 0x10u8.wrapping_add(idx as u8),
        port_num: 0,
        kind: ec::PortKind::Osa {
            generation: generation(gen),
            speed_mbps: u32::try_from(rate / 1_000_000).unwrap_or(u32::MAX),
            chpid_type: ec::ChpidType::Osd,
        },
        physical_mac: port_mac(idx),
        lan_mtu: Some(h.mtu),
    };
    let mut stack = ec::StackConfig::new(stack_name(idx, &h.name));
    stack.segmentation_offload = h.segmentation_offload;
    // Checked whether or not wlm_priorityq is on in this run: a [vary]
    // may turn it on, and a bad map must not wait for that.
    if let Some(q) = h.wlm_priorityq_map {
        if q.iter().any(|x| !(1..=4).contains(x)) {
            return Err("wlm_priorityq_map entries are write queues 1..4".into());
        }
    }
    if h.wlm_priorityq {
        let mut m = ec::WlmPriorityMap::default();
        if let Some(q) = h.wlm_priorityq_map {
            m.queue_for = q;
        }
        stack.wlm_priorityq = Some(m);
    }
    let mut iface = ec::InterfaceConfig::new(format!("OSAIF{idx}"), 0, 0);
    iface.addresses.push(ec::IpNet {
        addr: IpAddr::V4(h.ip),
        prefix: 24,
    });
    for a in extra_addrs.iter().chain(h.dvipa.iter()) {
        iface.addresses.push(ec::IpNet {
            addr: IpAddr::V4(*a),
            prefix: 32,
        });
    }
    if let Some(d) = h.dvipa {
        if !h.distribute_to.is_empty() {
            stack.distributed_dvipas.push(IpAddr::V4(d));
        }
    }
    iface.inbperf = inbperf;
    iface.workloadq = workloadq;
    iface.olm = olm;
    // VMAC ROUTEALL with no MAC coded: the adapter generates one.
    iface.vmac = Some(ec::VmacConfig {
        mac: None,
        route: ec::VmacRoute::All,
    });
    if let Some(r) = h.read_storage {
        let sbals = u16::try_from(r)
            .ok()
            .filter(|r| (8..=126).contains(r))
            .ok_or_else(|| format!("read_storage {r} SBALs out of range 8..126"))?;
        iface.read_storage_sbals = sbals;
        iface.read_storage_global = false;
    }
    Ok(ec::SystemConfig {
        ports: vec![port],
        stacks: vec![stack],
        interfaces: vec![iface],
        tuning: ec::Tuning::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host's name becomes its stack's procedure name where z/OS would
    /// take it; otherwise the stack is TCPIPn.
    #[test]
    fn a_host_name_that_can_be_a_procedure_name_names_the_stack() {
        assert_eq!(stack_name(0, "zosb"), "ZOSB");
        assert_eq!(stack_name(1, "TCPCS2"), "TCPCS2");
        assert_eq!(stack_name(2, "#sys@1"), "#SYS@1");
        for bad in ["", "zos-b", "9lives", "z/OS B", "ninechars", "zösb"] {
            assert_eq!(stack_name(3, bad), "TCPIP3", "{bad:?}");
        }
    }

    const BASIC: &str = r#"
name = "t"
duration_ms = 10
[[host]]
name = "zos"
type = "zos"
ip = "192.0.2.1"
inbperf = "DYNAMIC WORKLOADQ"
[[host]]
name = "aix"
type = "aix"
ip = "192.0.2.2"
[[workload]]
type = "RR"
connections = 2
request = 100
response = 800
client = "aix"
server = "zos"
[vary]
field = "inbperf"
values = ["BALANCED", "DYNAMIC", "OLM"]
"#;

    /// BASIC's z/OS host configured by the inline profile `profile`
    /// instead of fields, without the [vary]: its variants.
    fn inline_profile(profile: &str) -> Vec<Variant> {
        let text = BASIC.replace(
            "inbperf = \"DYNAMIC WORKLOADQ\"",
            &format!("profile_text = \"\"\"\n{profile}\n\"\"\""),
        );
        let no_vary = &text[..text.find("[vary]").unwrap()];
        Scenario::parse("t.toml", no_vary)
            .unwrap()
            .variants()
            .unwrap()
    }

    #[test]
    fn a_huge_line_is_not_quoted_whole_in_a_parse_error() {
        let text = format!("name = [{}\n", "1, ".repeat(50_000));
        let e = Scenario::parse("t.toml", &text)
            .expect_err("not TOML")
            .to_string();
        assert!(e.len() < 2000, "{} bytes", e.len());
        assert!(e.contains("more characters)"), "{e}");
    }

    /// An unknown field's message lists every valid field, however long
    /// the list; a huge field name is cut and the list still follows.
    #[test]
    fn an_unknown_field_lists_every_valid_one() {
        let e = Scenario::parse(
            "t.toml",
            &BASIC.replace("ip = \"192.0.2.2\"", "ip = \"192.0.2.2\"\nbogus = 1"),
        )
        .expect_err("an unknown field")
        .to_string();
        assert!(e.contains("unknown field `bogus`"), "{e}");
        assert!(e.contains("`smc`, `vswitch`"), "{e}");
        let huge = "q".repeat(3000);
        let e = Scenario::parse(
            "t.toml",
            &BASIC.replace(
                "ip = \"192.0.2.2\"",
                &format!("ip = \"192.0.2.2\"\n{huge} = 1"),
            ),
        )
        .expect_err("an unknown field")
        .to_string();
        assert!(e.len() < 2000, "{} bytes", e.len());
        assert!(e.contains("`smc`, `vswitch`"), "{e}");
        // A huge value of short words, which the message repeats.
        let words = "a ".repeat(100_000);
        let e = Scenario::parse(
            "t.toml",
            &BASIC.replace(
                "type = \"aix\"",
                &format!("type = \"aix\"\nprocessors = \"{words}\""),
            ),
        )
        .expect_err("a string for a number")
        .to_string();
        assert!(e.len() < 3000, "{} bytes", e.len());
    }

    #[test]
    fn a_profile_with_many_errors_gives_the_first_few() {
        // Every error joined into one message made a 52 KB line.
        // Forty errors, then a statement a profile has.
        let bad: String = (0..40)
            .map(|_| "BOGUS\n")
            .chain(std::iter::once("GLOBALCONFIG\n"))
            .collect();
        let text = BASIC.replace(
            "inbperf = \"DYNAMIC WORKLOADQ\"",
            &format!("profile_text = \"\"\"\n{bad}\"\"\""),
        );
        let no_vary = &text[..text.find("[vary]").unwrap()];
        let e = Scenario::parse("t.toml", no_vary)
            .unwrap()
            .variants()
            .expect_err("refused")
            .to_string();
        assert_eq!(e.matches("unknown statement BOGUS").count(), 10, "{e}");
        assert!(
            e.contains("... and 30 more (the text saved as a file, softosa profile check FILE"),
            "{e}"
        );
    }

    #[test]
    fn a_profiles_warnings_go_with_its_setup() {
        let v = inline_profile(
            "GLOBALCONFIG NOTCPIPSTATISTICS\nINTERFACE OSAIF1 DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME OSAP1\nSTART OSAIF1",
        );
        let w = &v[0].setup.hosts[0].adapter.as_ref().unwrap().osa.warnings;
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("profile_text:1:14: warning"), "{w:?}");
        assert!(w[0].contains("NOTCPIPSTATISTICS"), "{w:?}");
        // A host of fields has none.
        let v = Scenario::parse("t.toml", BASIC)
            .unwrap()
            .variants()
            .unwrap();
        assert!(v[0].setup.hosts[0]
            .adapter
            .as_ref()
            .unwrap()
            .osa
            .warnings
            .is_empty());
    }

    /// The simulated LAN is flat: a peer outside the profile's subnets is
    /// reached as z/OS would only reach it through a router, and the setup
    /// says so once per host pair.
    #[test]
    fn a_peer_outside_the_profiles_subnets_is_named() {
        let iface =
            "INTERFACE OSAIF1 DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME OSAP1\nSTART OSAIF1";
        let v = inline_profile(iface);
        let w = &v[0].setup.hosts[0].adapter.as_ref().unwrap().osa.notes;
        assert!(w.is_empty(), "{w:?}");
        // 192.0.2.2 is inside 192.0.2.0/30 too.
        let v = inline_profile(&iface.replace("/24", "/30"));
        let w = &v[0].setup.hosts[0].adapter.as_ref().unwrap().osa.notes;
        assert!(w.is_empty(), "{w:?}");
        let text = BASIC
            .replace(
                "inbperf = \"DYNAMIC WORKLOADQ\"",
                &format!(
                    "profile_text = \"\"\"\n{}\n\"\"\"",
                    iface.replace("/24", "/32")
                ),
            )
            .replace(
                "[vary]",
                "[[workload]]\ntype = \"STR\"\nconnections = 1\nrequest = 1\nresponse = 100000\nclient = \"zos\"\nserver = \"aix\"\n[vary]",
            );
        let no_vary = &text[..text.find("[vary]").unwrap()];
        let v = Scenario::parse("t.toml", no_vary)
            .unwrap()
            .variants()
            .unwrap();
        let w = &v[0].setup.hosts[0].adapter.as_ref().unwrap().osa.notes;
        assert_eq!(w.len(), 1, "two workloads, one peer: {w:?}");
        // It is no profile warning.
        let warnings = &v[0].setup.hosts[0].adapter.as_ref().unwrap().osa.warnings;
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(
            w[0].starts_with(
                "host \"aix\" (192.0.2.2), which a workload runs with, is in no subnet of \
                 interface OSAIF1 (192.0.2.1/32)"
            ),
            "{w:?}"
        );
    }

    #[test]
    fn a_hipersockets_interface_on_an_osa_host_is_refused() {
        let text = BASIC.replace(
            "inbperf = \"DYNAMIC WORKLOADQ\"",
            "profile_text = \"\"\"\nINTERFACE IQD1 DEFINE IPAQIDIO IPADDR 192.0.2.1/24 CHPID F0\nSTART IQD1\n\"\"\"",
        );
        let no_vary = &text[..text.find("[vary]").unwrap()];
        let e = Scenario::parse("t.toml", no_vary)
            .unwrap()
            .variants()
            .expect_err("an IQD interface gets no OSA frames")
            .to_string();
        assert!(
            e.contains("interface IQD1 (IPADDR 192.0.2.1) is a HiperSockets interface"),
            "{e}"
        );
    }

    /// `speed = 1000` is the number of Mb/s `"1000"` and `"1g"` are, and
    /// a `[vary]` of bare numbers works as of strings.
    #[test]
    fn a_speed_may_be_a_bare_number_of_mbps() {
        let rate = |speed: &str| {
            let text = BASIC.replace(
                "ip = \"192.0.2.2\"",
                &format!("ip = \"192.0.2.2\"\nspeed = {speed}"),
            );
            let no_vary = &text[..text.find("[vary]").unwrap()];
            let v = Scenario::parse("t.toml", no_vary)
                .unwrap()
                .variants()
                .unwrap();
            v[0].setup.hosts[1].link.rate_bps
        };
        assert_eq!(rate("1000"), 1_000_000_000);
        assert_eq!(rate("\"1000\""), 1_000_000_000);
        assert_eq!(rate("\"1g\""), 1_000_000_000);
        assert_eq!(rate("100"), 100_000_000);
        let text = BASIC.replace(
            "field = \"inbperf\"\nvalues = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]",
            "field = \"speed\"\nhosts = [\"aix\"]\nvalues = [100, 1000]",
        );
        let v = Scenario::parse("t.toml", &text)
            .unwrap()
            .variants()
            .unwrap();
        let rates: Vec<u64> = v.iter().map(|v| v.setup.hosts[1].link.rate_bps).collect();
        assert_eq!(rates, [100_000_000, 1_000_000_000]);
        for bad in ["0", "-5", "true", "1.5e30"] {
            let text = BASIC.replace(
                "ip = \"192.0.2.2\"",
                &format!("ip = \"192.0.2.2\"\nspeed = {bad}"),
            );
            let no_vary = &text[..text.find("[vary]").unwrap()];
            let refused = Scenario::parse("t.toml", no_vary).and_then(|s| s.variants());
            assert!(refused.is_err(), "speed = {bad} was taken");
        }
    }

    #[test]
    fn a_zero_size_names_its_own_line() {
        for (key, line) in [("request", 16), ("response", 17)] {
            let text = BASIC.replace(&format!("{key} = "), &format!("{key} = 0 # "));
            let e = Scenario::parse("t.toml", &text)
                .unwrap()
                .variants()
                .expect_err("a zero size")
                .to_string();
            assert!(
                e.starts_with(&format!(
                    "t.toml:{line}: workload #1: {key} must be at least 1"
                )),
                "{e}"
            );
        }
    }

    #[test]
    fn the_docs_name_every_field_a_vary_takes() {
        let doc = include_str!("../../../docs/scenarios.md");
        let row = doc
            .lines()
            .find(|l| l.starts_with("| `field` |"))
            .expect("the [vary] table's field row");
        let (hosts, workloads) = row
            .split_once("a `[[workload]]` field")
            .expect("the row names host fields, then workload fields");
        for f in HOST_FIELDS {
            assert!(hosts.contains(&format!("`{f}`")), "host field {f}");
        }
        for f in WORKLOAD_FIELDS {
            assert!(workloads.contains(&format!("`{f}`")), "workload field {f}");
        }
    }

    #[test]
    fn a_port_speed_selects_the_adapter_feature() {
        let m = Models::builtin().unwrap();
        let f = |n: &str, rate: u64| adapter_feature(n, rate, &m);
        // OSA-Express3 has a separate 1 GbE feature; its 10 GbE feature
        // cannot run a 1 Gb/s port.
        assert_eq!(f("osa-express3", 1_000_000_000).unwrap(), "osa-express3-1g");
        assert_eq!(f("osa-express3", 100_000_000).unwrap(), "osa-express3-1g");
        assert_eq!(f("osa-express3", 10_000_000_000).unwrap(), "osa-express3");
        assert_eq!(
            f("osa-express3-1g", 1_000_000_000).unwrap(),
            "osa-express3-1g"
        );
        assert!(f("osa-express3-1g", 10_000_000_000).is_err());
        // OSA-Express2 has its 1 GbE card too; a generation without a
        // separate 1 GbE entry keeps its own.
        assert_eq!(f("osa-express2", 1_000_000_000).unwrap(), "osa-express2-1g");
        assert_eq!(f("osa-express2", 10_000_000_000).unwrap(), "osa-express2");
        assert_eq!(f("osa-express6s", 1_000_000_000).unwrap(), "osa-express6s");
        assert_eq!(generation("osa-express3-1g"), ec::OsaGeneration::Express3);
        assert_eq!(generation("osa-express2-1g"), ec::OsaGeneration::Express2);
        // The scenario shows the feature it resolved.
        let s = Scenario::parse(
            "t.toml",
            &BASIC.replace(
                "inbperf = \"DYNAMIC WORKLOADQ\"",
                "adapter = \"osa-express3\"",
            ),
        )
        .unwrap();
        let v = s.variants().unwrap();
        let a = v[0].setup.hosts[0].adapter.as_ref().unwrap();
        assert_eq!(a.generation_name, "osa-express3-1g");
        assert_eq!(a.gen, m.adapter["osa-express3-1g"]);
    }

    #[test]
    fn parses_and_expands_variants() {
        let s = Scenario::parse("t.toml", BASIC).unwrap();
        let v = s.variants().unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].label, "BALANCED");
        let cfg = &v[2].setup.hosts[0].adapter.as_ref().unwrap().osa.config;
        assert!(cfg.interfaces[0].olm);
        assert_eq!(cfg.interfaces[0].inbperf, ec::InbPerf::Dynamic);
        assert!(v[1].setup.hosts[1].adapter.is_none(), "peers have no OSA");
        assert_eq!(v[0].setup.workloads[0].name, "RR2(100/800)");
    }

    #[test]
    fn unknown_field_is_an_error_with_a_line() {
        let bad = BASIC.replace("connections = 2", "connections = 2\nconections = 3");
        let e = Scenario::parse("t.toml", &bad).unwrap_err().to_string();
        assert!(e.contains("t.toml"), "{e}");
        assert!(e.contains("line"), "{e}");
        assert!(e.contains("conections"), "{e}");
    }

    #[test]
    fn bad_values_are_reported() {
        let bad = BASIC.replace("type = \"RR\"", "type = \"XX\"");
        let e = refused(&bad);
        assert!(e.contains("XX"), "{e}");
        // The error names the line that holds the bad value.
        let line = bad.lines().position(|l| l.contains("\"XX\"")).unwrap() + 1;
        assert!(e.starts_with(&format!("t.toml:{line}: workload #1")), "{e}");
        let speed = BASIC.replacen(
            "ip = \"192.0.2.2\"",
            "ip = \"192.0.2.2\"\nspeed = \"warp\"",
            1,
        );
        let e = refused(&speed);
        let line = speed.lines().position(|l| l.contains("warp")).unwrap() + 1;
        assert!(e.starts_with(&format!("t.toml:{line}: host ")), "{e}");
        let bad = BASIC.replace("field = \"inbperf\"", "field = \"colour\"");
        assert!(Scenario::parse("t.toml", &bad).unwrap().variants().is_err());
        let no_vary = &BASIC[..BASIC.find("[vary]").unwrap()];
        let bad = no_vary.replace("\"DYNAMIC WORKLOADQ\"", "\"TURBO\"");
        assert!(Scenario::parse("t.toml", &bad).unwrap().variants().is_err());
    }

    /// The error of a scenario that parses but whose runs are refused.
    fn refused(text: &str) -> String {
        Scenario::parse("t.toml", text)
            .unwrap()
            .variants()
            .expect_err("must be refused")
            .to_string()
    }

    /// The error `variants()` gives for BASIC edited by `f`, and the line
    /// (1-based) of the first line containing `marker`.
    fn error_at(f: impl Fn(&str) -> String, marker: &str) -> (String, usize) {
        let text = f(BASIC);
        let e = refused(&text);
        let line = text.lines().position(|l| l.contains(marker)).unwrap() + 1;
        (e, line)
    }

    /// As [`error_at`], for an error that must be about that line and say
    /// `says` first (after `t.toml:LINE: `); the error, for more checks.
    fn refused_at(f: impl Fn(&str) -> String, marker: &str, says: &str) -> String {
        let (e, line) = error_at(f, marker);
        assert!(e.starts_with(&format!("t.toml:{line}: {says}")), "{e}");
        e
    }

    /// As [`refused_at`], with BASIC's first host given `lines` in place
    /// of its inbperf line.
    fn refused_with_host_lines(lines: &str, marker: &str, says: &str) -> String {
        refused_at(
            |b| b.replace("inbperf = \"DYNAMIC WORKLOADQ\"", lines),
            marker,
            says,
        )
    }

    #[test]
    fn inbperf_words_follow_the_profile_rules() {
        // Without the [vary], whose values would replace the host's inbperf.
        let with = |b: &str, v: &str| {
            b[..b.find("[vary]").unwrap()].replace("\"DYNAMIC WORKLOADQ\"", &format!("{v:?}"))
        };
        for (v, why) in [
            ("BALANCED WORKLOADQ", "WORKLOADQ requires INBPERF DYNAMIC"),
            ("WORKLOADQ", "WORKLOADQ requires INBPERF DYNAMIC"),
            ("", "inbperf is empty"),
            ("OLM OLM", "OLM is given twice"),
            ("DYNAMIC MINCPU", "give one mode"),
            ("MINCPU OLM DYNAMIC", "give one mode"),
        ] {
            let (e, line) = error_at(|b| with(b, v), "inbperf =");
            assert!(e.starts_with(&format!("t.toml:{line}: ")), "{v:?}: {e}");
            assert!(e.contains(why), "{v:?}: {e}");
        }
        // As in a profile, the words may come in any order.
        for v in [
            "dynamic workloadq olm",
            "OLM",
            "MINCPU",
            "BALANCED OLM",
            "OLM BALANCED",
            "WORKLOADQ DYNAMIC",
            "OLM WORKLOADQ",
        ] {
            let sc = Scenario::parse("t.toml", &with(BASIC, v)).unwrap();
            assert!(sc.variants().is_ok(), "{v:?}");
        }
    }

    #[test]
    fn a_vary_list_of_names_is_neither_empty_nor_repeated() {
        // `hosts = []` read as every z/OS host, and a name given twice was
        // taken once, each without a word.
        for (list, says) in [
            ("hosts = []", "an empty list"),
            (
                "hosts = [\"zos\", \"zos\"]",
                "\"zos\" is named twice (entry 2)",
            ),
            ("workloads = []", "an empty list"),
        ] {
            let text = BASIC.replace(
                "field = \"inbperf\"",
                &format!("field = \"inbperf\"\n{list}"),
            );
            let e = Scenario::parse("t.toml", &text)
                .expect_err("refused")
                .to_string();
            let line = text.lines().position(|l| l == list).unwrap() + 1;
            assert!(
                e.contains(&format!("line {line}")) && e.contains(says),
                "{e}"
            );
        }
    }

    #[test]
    fn a_think_time_outside_a_minute_is_refused() {
        for bad in ["-1", "nan", "60000001"] {
            let e = refused_at(
                |t| {
                    t.replace(
                        "server = \"zos\"",
                        &format!("server = \"zos\"\nthink_us = {bad}"),
                    )
                },
                "think_us",
                "workload #1",
            );
            assert!(e.contains("0 to 60000000"), "{e}");
        }
        for good in ["0", "60000000", "2.5"] {
            let t = BASIC.replace(
                "server = \"zos\"",
                &format!("server = \"zos\"\nthink_us = {good}"),
            );
            let v = Scenario::parse("t.toml", &t).unwrap().variants().unwrap();
            let want = (good.parse::<f64>().unwrap() * 1000.0).round() as u64;
            assert_eq!(v[0].setup.workloads[0].think_ns, want);
        }
    }

    #[test]
    fn buffer_sizes_outside_the_model_are_refused_not_clamped() {
        let e = refused_at(
            |t| t.replace("server = \"zos\"", "server = \"zos\"\nrcvbuf_kb = 2"),
            "rcvbuf_kb",
            "workload #1",
        );
        assert!(e.contains("rcvbuf_kb 2") && e.contains("4 to 16384"), "{e}");
        // Also when a [vary] value is the bad one.
        let (e, _) = error_at(
            |t| {
                let no_vary = &t[..t.find("[vary]").unwrap()];
                format!("{no_vary}[vary]\nfield = \"sndbuf_kb\"\nvalues = [64, 100000]\n")
            },
            "100000",
        );
        assert!(e.contains("sndbuf_kb 100000"), "{e}");
        // The edges are accepted as written.
        let ok = BASIC.replace(
            "server = \"zos\"",
            "server = \"zos\"\nsndbuf_kb = 4\nrcvbuf_kb = 16384",
        );
        let v = Scenario::parse("t.toml", &ok).unwrap().variants().unwrap();
        let w = &v[0].setup.workloads[0];
        assert_eq!((w.sndbuf, w.rcvbuf), (Some(4 * 1024), Some(16384 * 1024)));
    }

    #[test]
    fn an_unknown_tls_names_every_value_it_takes() {
        let (e, line) = error_at(
            |t| t.replace("server = \"zos\"", "server = \"zos\"\ntls = \"tls13\""),
            "tls =",
        );
        assert_eq!(
            e,
            format!(
                "t.toml:{line}: workload #1: tls \"tls13\": use none (the default), full or resume"
            )
        );
        for ok in ["none", "full", "resume"] {
            let t = BASIC.replace(
                "server = \"zos\"",
                &format!("server = \"zos\"\ntls = \"{ok}\""),
            );
            let sc = Scenario::parse("t.toml", &t).unwrap();
            assert!(sc.variants().is_ok(), "{ok}");
        }
    }

    #[test]
    fn duplicate_host_names_and_addresses_are_named_with_their_line() {
        let (e, line) = error_at(
            |t| t.replace("name = \"aix\"", "name = \"zos\""),
            "type = \"aix\"",
        );
        // Two hosts of one name are told apart by their numbers.
        assert!(
            e.starts_with(&format!(
                "t.toml:{}: host #2: name \"zos\" is already used by host #1",
                line - 1
            )),
            "{e}"
        );
        let (e, line) = error_at(
            |t| t.replace("192.0.2.2\"", "192.0.2.1\""),
            "type = \"aix\"",
        );
        assert!(
            e.starts_with(&format!(
                "t.toml:{}: host \"aix\": ip \"192.0.2.1\" is already host \"zos\"'s address",
                line + 1
            )),
            "{e}"
        );
    }

    /// Errors name a host by its name; by its number only when its name
    /// cannot tell it (none, a shared one, one with a quote in it). The
    /// line is the one the message is about, whatever the name.
    #[test]
    fn hosts_are_named_by_name_else_by_number() {
        fn peer_field(name: &str) -> impl Fn(&str) -> String + '_ {
            move |b: &str| {
                b.replace(
                    "name = \"aix\"\ntype = \"aix\"",
                    &format!("name = {name}\ntype = \"aix\"\ninbperf = \"DYNAMIC\""),
                )
            }
        }
        for (name, says) in [
            ("\"aix\"", "host \"aix\""),
            ("\"my: aix\"", "host \"my: aix\""),
            ("'a\"b'", "host #2"),
            ("\"zos\"", "host #2"),
        ] {
            let (e, line) = error_at(peer_field(name), "inbperf = \"DYNAMIC\"");
            assert!(
                e.starts_with(&format!("t.toml:{line}: {says}: inbperf applies to z/OS")),
                "{name}: {e}"
            );
        }
        // The other host a message names is not the value it is about:
        // the line is the dvipa's, not distribute_to's, which names "aix".
        refused_with_host_lines(
            "distribute_to = [\"aix\"]\ndvipa = \"192.0.2.2\"",
            "dvipa =",
            "host \"zos\": dvipa 192.0.2.2 is host \"aix\"'s own ip",
        );
    }

    #[test]
    fn zos_only_fields_on_a_peer_are_refused() {
        for field in [
            "inbperf = \"DYNAMIC\"",
            "profile = \"x.prof\"",
            "segmentation_offload = true",
        ] {
            let key = field.split(' ').next().unwrap();
            refused_at(
                |t| t.replace("type = \"aix\"", &format!("type = \"aix\"\n{field}")),
                field,
                &format!("host \"aix\": {key} applies to z/OS"),
            );
        }
    }

    #[test]
    fn latencies_and_speeds_that_cannot_work_are_refused() {
        for (bad, key) in [
            ("latency_us = -100", "latency_us"),
            ("latency_us = 1e15", "latency_us"),
            ("xcf_latency_us = -4", "xcf_latency_us"),
            ("speed = \"nan\"", "speed"),
            ("speed = \"0.0001\"", "speed"),
        ] {
            let (e, line) = error_at(
                |t| {
                    t.replacen(
                        "ip = \"192.0.2.1\"",
                        &format!("ip = \"192.0.2.1\"\n{bad}"),
                        1,
                    )
                },
                bad,
            );
            assert!(
                e.starts_with(&format!("t.toml:{line}: host ")),
                "{bad}: {e}"
            );
            assert!(e.contains(key), "{bad}: {e}");
        }
        assert_eq!(parse_speed("nan"), None);
        assert_eq!(parse_speed("1"), Some(1_000_000));
    }

    #[test]
    fn a_vary_that_selects_nothing_or_mislabels_is_refused() {
        for (edit, marker, says) in [
            (
                "values = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]\nhosts = [\"zso\"]",
                "hosts =",
                "\"zso\"",
            ),
            (
                "values = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]\nlabels = [\"a\", \"b\"]",
                "labels =",
                "2 labels for 3",
            ),
            (
                "values = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]\nlabels = [\"a\", \"b\", \"a\"]",
                "labels =",
                "twice",
            ),
        ] {
            let e = refused_at(
                |t| t.replace("values = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]", edit),
                marker,
                "[vary]",
            );
            assert!(e.contains(says), "{e}");
        }
        refused_at(
            |t| {
                t.replace(
                    "field = \"inbperf\"",
                    "field = \"connections\"\nworkloads = [\"web\"]",
                )
                .replace(
                    "values = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]",
                    "values = [1, 2]",
                )
            },
            "workloads =",
            "[vary] workloads",
        );
        // Naming the workload makes the same [vary] valid.
        let ok = BASIC
            .replace("type = \"RR\"", "name = \"web\"\ntype = \"RR\"")
            .replace(
                "field = \"inbperf\"",
                "field = \"connections\"\nworkloads = [\"web\"]",
            )
            .replace(
                "values = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]",
                "values = [1, 2]",
            );
        let v = Scenario::parse("t.toml", &ok).unwrap().variants().unwrap();
        assert_eq!(v[1].setup.workloads[0].connections, 2);
        // So does the unnamed workload's type and sizes, as the report
        // names it; a second workload beside it is left alone.
        let two = BASIC.replace(
            "[[workload]]",
            "[[workload]]\ntype = \"STR\"\nconnections = 1\nrequest = 1\nresponse = 1000\n\
             client = \"aix\"\nserver = \"zos\"\n\n[[workload]]",
        );
        assert_ne!(two, BASIC);
        let by_label = two
            .replace(
                "field = \"inbperf\"",
                "field = \"connections\"\nworkloads = [\"RR2(100/800)\"]",
            )
            .replace(
                "values = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]",
                "values = [1, 3]",
            );
        let v = Scenario::parse("t.toml", &by_label)
            .unwrap()
            .variants()
            .unwrap();
        let conns =
            |k: usize| -> Vec<u32> { v[k].setup.workloads.iter().map(|w| w.connections).collect() };
        assert_eq!((conns(0), conns(1)), (vec![1, 1], vec![1, 3]));
        // Only peers and no hosts list: nothing would change.
        let (e, _) = error_at(
            |t| {
                t.replace("type = \"zos\"", "type = \"linux\"")
                    .replace("inbperf = \"DYNAMIC WORKLOADQ\"\n", "")
                    .replace("field = \"inbperf\"", "field = \"mtu\"")
                    .replace(
                        "values = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]",
                        "values = [1500, 9000]",
                    )
            },
            "[vary]",
        );
        assert!(e.contains("there is none"), "{e}");
    }

    /// BASIC with its [vary] replaced by `vary` (the lines after `[vary]`).
    fn with_vary(b: &str, vary: &str) -> String {
        format!("{}[vary]\n{vary}\n", &b[..b.find("[vary]").unwrap()])
    }

    #[test]
    fn a_vary_whose_variants_would_not_differ_is_refused() {
        for (vary, marker, says) in [
            // The same value twice, also when only case and spacing differ.
            (
                "field = \"inbperf\"\nvalues = [\"DYNAMIC\", \"dynamic \"]",
                "values =",
                "given twice (values 1 and 2)",
            ),
            // Different words, the same setting (OLM forces DYNAMIC).
            (
                "field = \"inbperf\"\nvalues = [\"BALANCED\", \"DYNAMIC OLM\", \"OLM\"]",
                "values =",
                "inbperf = \"DYNAMIC OLM\" and inbperf = \"OLM\" run the same setup",
            ),
            // A field that matters only to a sysplex distributor.
            (
                "field = \"xcf_speed\"\nvalues = [\"1g\", \"10g\"]",
                "values =",
                "run the same setup",
            ),
            // A map of priority queues on a host without them: the reason.
            (
                "field = \"wlm_priorityq_map\"\nvalues = [[1, 2, 2, 3, 4, 4, 4], [1, 1, 2, 2, 3, 3, 4]]",
                "values =",
                "used only with wlm_priorityq = true, which no host it varies has",
            ),
            // A selection list of the other kind of field.
            (
                "field = \"inbperf\"\nworkloads = [\"w\"]\nvalues = [\"BALANCED\", \"DYNAMIC\"]",
                "workloads =",
                "is a host field",
            ),
            (
                "field = \"connections\"\nhosts = [\"zos\"]\nvalues = [1, 2]",
                "hosts =",
                "is a workload field",
            ),
        ] {
            let e = refused_at(|b| with_vary(b, vary), marker, "[vary] ");
            assert!(e.contains(says), "{e}");
        }
        let many: Vec<String> = (1..=MAX_VARIANTS + 1).map(|n| n.to_string()).collect();
        let (e, _) = error_at(
            |b| {
                with_vary(
                    b,
                    &format!("field = \"connections\"\nvalues = [{}]", many.join(", ")),
                )
            },
            "values =",
        );
        assert!(e.contains("at most 64"), "{e}");
        // Values that change the run are accepted, in any case.
        let ok = with_vary(
            BASIC,
            "field = \"inbperf\"\nvalues = [\"balanced\", \"DYNAMIC\", \"olm\"]",
        );
        let v = Scenario::parse("t.toml", &ok).unwrap().variants().unwrap();
        assert_eq!(v.len(), 3);
    }

    #[test]
    fn a_bad_vary_value_is_reported_at_the_vary_table() {
        for (values, says) in [
            ("[2, \"four\"]", "processors = \"four\": host \"zos\": invalid type: string \"four\", expected a whole number"),
            ("[2, 0]", "processors = 0: host \"zos\": processors must be 1..256"),
        ] {
            let e = refused_at(
                |b| with_vary(b, &format!("field = \"processors\"\nvalues = {values}")),
                "values =",
                "[vary] values: ",
            );
            assert!(e.contains(says), "{e}");
            assert!(!e.contains('\n'), "one line: {e:?}");
        }
    }

    #[test]
    fn a_field_the_profile_decides_is_refused_beside_a_profile() {
        const PROFILE: &str = "profile_text = \"\"\"\nINTERFACE OSAIF1 DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME OSAP1\nSTART OSAIF1\n\"\"\"";
        for field in [
            "inbperf = \"DYNAMIC\"",
            "read_storage = 64",
            "segmentation_offload = true",
            "wlm_priorityq = true",
        ] {
            let key = field.split(' ').next().unwrap();
            refused_with_host_lines(
                &format!("{field}\n{PROFILE}"),
                field,
                &format!("host \"zos\": {key} is decided by this host's profile"),
            );
        }
        // A [vary] of such a field over a host with a profile would run the
        // profile's setting every time.
        refused_with_host_lines(
            PROFILE,
            "field =",
            "[vary] field: host \"zos\" takes inbperf from its profile",
        );
        // A field the profile does not set may be varied.
        let text = with_vary(
            &BASIC.replace("inbperf = \"DYNAMIC WORKLOADQ\"", PROFILE),
            "field = \"processors\"\nvalues = [1, 2]",
        );
        let v = Scenario::parse("t.toml", &text)
            .unwrap()
            .variants()
            .unwrap();
        assert_eq!(v[1].setup.hosts[0].costs.processors, 2);
    }

    #[test]
    fn workloads_need_names_of_their_own() {
        let no_vary = &BASIC[..BASIC.find("[vary]").unwrap()];
        let at = no_vary.find("[[workload]]").unwrap();
        let (hosts, wl) = no_vary.split_at(at);
        let named =
            |n: &str| wl.replace("type = \"RR\"", &format!("name = \"{n}\"\ntype = \"RR\""));
        // The error for `text`, and the line of the last `marker` in it.
        let refused = |text: &str, marker: &str| {
            let e = Scenario::parse("t.toml", text)
                .unwrap()
                .variants()
                .unwrap_err()
                .to_string();
            (e, text[..text.rfind(marker).unwrap()].lines().count() + 1)
        };
        // Two unnamed workloads of the same type and sizes.
        let (e, line) = refused(&format!("{no_vary}{wl}"), "[[workload]]");
        let says = "workload #2: name \"RR2(100/800)\" is already the name of workload #1";
        assert!(e.starts_with(&format!("t.toml:{line}: {says}")), "{e}");
        // Two that say the same name.
        let (e, line) = refused(
            &format!("{hosts}{}{}", named("web"), named("web")),
            "name = \"web\"",
        );
        let says = "workload #2: name \"web\"";
        assert!(e.starts_with(&format!("t.toml:{line}: {says}")), "{e}");
        // Names of their own run.
        let text = format!("{hosts}{}{}", named("web"), named("api"));
        let v = Scenario::parse("t.toml", &text)
            .unwrap()
            .variants()
            .unwrap();
        assert_eq!(v[0].setup.workloads.len(), 2);
        // A workload with a name of its own is known by it in messages,
        // and the message still points at the field's line in its table.
        let api = named("api").replace("response = ", "think_us = -5\nresponse = ");
        assert_ne!(api, named("api"), "the workload table has a response line");
        let text = format!("{hosts}{}{api}", named("web"));
        let (e, line) = refused(&text, "think_us = -5");
        let says = "workload \"api\": think_us -5";
        assert!(e.starts_with(&format!("t.toml:{line}: {says}")), "{e}");
    }

    #[test]
    fn a_dvipa_needs_an_address_of_its_own() {
        for (dvipa, says) in [
            ("192.0.2.2", "host \"aix\"'s own ip"),
            ("192.0.2.1", "host \"zos\"'s own ip"),
        ] {
            let field = format!("dvipa = \"{dvipa}\"");
            let e = refused_with_host_lines(&field, &field, "host \"zos\": dvipa");
            assert!(e.contains(says), "{e}");
        }
        assert!(Scenario::parse(
            "t.toml",
            &BASIC.replace("inbperf = \"DYNAMIC WORKLOADQ\"", "dvipa = \"192.0.2.99\"")
        )
        .unwrap()
        .variants()
        .is_ok());
    }

    #[test]
    fn a_peer_on_a_machine_without_a_model_names_both() {
        let (e, line) = error_at(
            |b| b.replace("type = \"aix\"", "type = \"aix\"\nmachine = \"z800\""),
            "type = \"aix\"",
        );
        assert!(
            e.starts_with(&format!("t.toml:{}: host \"aix\": machine", line + 1)),
            "{e}"
        );
        assert!(
            e.contains("no peer model \"aix-z800\"") && e.contains("linux-z800"),
            "{e}"
        );
        assert!(!e.contains("unknown host type"), "{e}");
        let (e, _) = error_at(|b| b.replace("type = \"aix\"", "type = \"os2\""), "os2");
        assert!(e.contains("unknown host type \"os2\""), "{e}");
    }

    #[test]
    fn a_z_os_mtu_fits_an_osa() {
        for (mtu, ok) in [(8992, true), (8993, false), (9000, false)] {
            let text = BASIC.replace(
                "type = \"zos\"",
                &format!("type = \"zos\"\nmtu = {mtu}\nswitch_buffer_kb = 64"),
            );
            let r = Scenario::parse("t.toml", &text).and_then(|s| s.variants());
            match (r, ok) {
                (Ok(_), true) => {}
                (Err(e), false) => assert!(e.to_string().contains("at most 8992"), "{e}"),
                (r, _) => panic!("mtu {mtu}: {:?}", r.map(|_| ())),
            }
        }
    }

    #[test]
    fn a_switch_buffer_must_hold_a_frame() {
        for (lines, ok) in [
            ("switch_buffer_kb = 0", false),
            ("switch_buffer_kb = 2", true),
            ("mtu = 9000\nswitch_buffer_kb = 8", false),
            ("mtu = 9000\nswitch_buffer_kb = 9", true),
        ] {
            // (on HiperSockets, where there is no switch, the field is
            // refused: tests/smc.rs)
            let text = BASIC.replace("type = \"aix\"", &format!("type = \"aix\"\n{lines}"));
            let r = Scenario::parse("t.toml", &text).unwrap().variants();
            match (r, ok) {
                (Ok(v), true) => {
                    let kb: u32 = lines.rsplit(' ').next().unwrap().parse().unwrap();
                    assert_eq!(v[0].setup.hosts[1].link.switch_buffer, kb * 1024);
                }
                (Err(e), false) => assert!(e.to_string().contains("cannot hold one frame"), "{e}"),
                (r, _) => panic!("{lines}: {:?}", r.map(|v| v.len())),
            }
        }
    }

    #[test]
    fn the_connections_of_all_workloads_together_are_bounded() {
        let no_vary = &BASIC[..BASIC.find("[vary]").unwrap()];
        let wl = &no_vary[no_vary.find("[[workload]]").unwrap()..];
        // n workloads of 10,000 connections each (named: the report knows
        // workloads by name).
        let many = |n: usize| {
            let first = no_vary.replace("connections = 2", "connections = 10000");
            let rest: String = (1..n)
                .map(|i| {
                    wl.replace(
                        "connections = 2",
                        &format!("connections = 10000\nname = \"w{i}\""),
                    )
                })
                .collect();
            format!("{first}{rest}")
        };
        let ok = Scenario::parse("t.toml", &many(10)).unwrap().variants();
        assert!(ok.is_ok(), "100,000 connections are allowed");
        let e = refused(&many(11));
        assert!(e.contains("110000 connections"), "{e}");
    }

    /// A 1 ms scenario of `n` hosts of `kind`, h0 to h{n-1}, each with an
    /// address of its own; the caller adds the workloads.
    fn many_hosts(n: usize, kind: &str) -> String {
        let mut t = String::from("duration_ms = 1\n");
        for i in 0..n {
            t += &format!(
                "[[host]]\nname = \"h{i}\"\ntype = \"{kind}\"\nip = \"10.{}.{}.1\"\n",
                i / 250,
                i % 250
            );
        }
        t
    }

    #[test]
    fn the_number_of_hosts_is_bounded() {
        let hosts = |n: usize| {
            many_hosts(n, "linux") + "[[workload]]\ntype = \"RR\"\nconnections = 1\nrequest = 1\nresponse = 1\nclient = \"h0\"\nserver = \"h1\"\n"
        };
        assert!(Scenario::parse("t.toml", &hosts(1000))
            .unwrap()
            .variants()
            .is_ok());
        let e = refused(&hosts(1001));
        assert!(e.contains("1001 hosts"), "{e}");
    }

    #[test]
    fn vary_values_times_hosts_is_bounded() {
        // Every run's output is held until all have run: 64 runs of 1000
        // hosts took 2.7 GB with --format json.
        let scenario = |hosts: usize, values: usize| {
            let values: Vec<String> = (1..=values).map(|n| n.to_string()).collect();
            many_hosts(hosts, "zos")
                + "[[workload]]\ntype = \"RR\"\nconnections = 1\nrequest = 1\nresponse = 1\n\
                 client = \"h0\"\nserver = \"h1\"\n\
                 [vary]\nfield = \"latency_us\"\nvalues = ["
                + &values.join(", ")
                + "]\n"
        };
        assert!(Scenario::parse("t.toml", &scenario(1000, 10))
            .unwrap()
            .variants()
            .is_ok());
        let text = scenario(1000, 11);
        let e = refused(&text);
        let line = 1 + text.lines().position(|l| l.starts_with("values")).unwrap();
        assert!(
            e.starts_with(&format!("t.toml:{line}: [vary] values: 11 values")),
            "{e}"
        );
        assert!(e.contains("at most 10 values here"), "{e}");
    }

    #[test]
    fn the_number_of_workloads_is_bounded() {
        let workloads = |n: usize| {
            let mut t = many_hosts(2, "linux");
            for i in 0..n {
                t += &format!(
                    "[[workload]]\nname = \"w{i}\"\ntype = \"RR\"\nconnections = 1\n\
                     request = 1\nresponse = 1\nclient = \"h0\"\nserver = \"h1\"\n"
                );
            }
            t
        };
        assert!(Scenario::parse("t.toml", &workloads(1000))
            .unwrap()
            .variants()
            .is_ok());
        let text = workloads(1001);
        let e = refused(&text);
        // At the first workload too many, with what to do instead.
        let line = 1 + text.lines().position(|l| l == "name = \"w1000\"").unwrap();
        assert!(e.starts_with(&format!("t.toml:{}: ", line - 1)), "{e}");
        assert!(e.contains("1001 workloads; at most 1000"), "{e}");
        assert!(e.contains("more connections"), "{e}");
    }

    #[test]
    fn a_profile_error_points_at_the_profile_line_and_into_the_profile() {
        let dir = std::env::temp_dir().join(format!("softosa-sc-prof-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("bad.prof"),
            "INTERFACE OSAIF1\n DEFINE IPAQENET\n IPADDR 192.0.2.1/24\n INBPERF TURBO\n",
        )
        .unwrap();
        let text = BASIC.replace(
            "inbperf = \"DYNAMIC WORKLOADQ\"",
            "machine = \"z10\"\nprofile = \"bad.prof\"",
        );
        let path = dir.join("t.toml");
        let e = Scenario::parse(&path.display().to_string(), &text)
            .unwrap()
            .variants()
            .unwrap_err()
            .to_string();
        let line = text
            .lines()
            .position(|l| l.starts_with("profile ="))
            .unwrap()
            + 1;
        assert!(
            e.starts_with(&format!("{}:{line}: ", path.display())),
            "{e}"
        );
        assert!(e.contains("bad.prof:4:"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
        // Inline: the scenario line of profile_text, then the line in the text.
        let e = refused_with_host_lines(
            "profile_text = \"\"\"\nINTERFACE OSAIF1\n DEFINE IPAQENET\n IPADDR 192.0.2.1/24\n INBPERF TURBO\n\"\"\"",
            "profile_text =",
            "",
        );
        assert!(e.contains("profile_text:4:"), "{e}");
    }

    #[test]
    fn the_profiles_of_one_scenario_share_a_budget_of_text() {
        // Three z/OS hosts naming one profile of 12 MiB (mostly comments):
        // the third read would pass 32 MiB and is refused at its host.
        let dir = std::env::temp_dir().join(format!("softosa-sc-budget-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut prof = String::new();
        for (n, ip) in ["192.0.2.1", "192.0.2.3", "192.0.2.4"].iter().enumerate() {
            prof +=
                &format!("INTERFACE OSAIF{n}\n DEFINE IPAQENET\n PORTNAME P{n}\n IPADDR {ip}/24\n");
        }
        let comment = format!("; {}\n", "x".repeat(1022));
        prof += &comment.repeat(12 * 1024);
        std::fs::write(dir.join("big.prof"), &prof).unwrap();
        let mut text = BASIC[..BASIC.find("[vary]").unwrap()]
            .replace("inbperf = \"DYNAMIC WORKLOADQ\"", "profile = \"big.prof\"");
        for (name, ip) in [("zos2", "192.0.2.3"), ("zos3", "192.0.2.4")] {
            text += &format!(
                "[[host]]\nname = \"{name}\"\ntype = \"zos\"\nip = \"{ip}\"\nprofile = \"big.prof\"\n"
            );
        }
        let path = dir.join("t.toml");
        let e = Scenario::parse(&path.display().to_string(), &text)
            .unwrap()
            .variants()
            .unwrap_err()
            .to_string();
        assert!(e.contains("host \"zos3\": profile "), "{e}");
        assert!(e.contains("more than 32 MiB of profile"), "{e}");
        // Two of them fit.
        let two = &text[..text.rfind("[[host]]").unwrap()];
        let v = Scenario::parse(&path.display().to_string(), two)
            .unwrap()
            .variants()
            .unwrap();
        assert_eq!(v[0].setup.hosts.len(), 3);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn profile_statements_under_the_file_field_point_to_profile_text() {
        // A multi-line `profile` is statements, not a path: say which field
        // takes them rather than report a file that cannot exist.
        let e = refused_with_host_lines(
            "profile = \"\"\"\nINTERFACE OSAIF1\n DEFINE IPAQENET\n IPADDR 192.0.2.1/24\n\"\"\"",
            "profile =",
            "",
        );
        assert!(e.contains("profile_text"), "{e}");
        assert!(!e.contains("No such file"), "{e}");
    }

    #[test]
    fn a_scenario_without_hosts_or_workloads_says_what_it_needs() {
        let no_vary = &BASIC[..BASIC.find("[vary]").unwrap()];
        let no_wl = &no_vary[..no_vary.find("[[workload]]").unwrap()];
        for text in [
            String::new(),
            no_wl.to_string(),
            format!("workload = []\n{no_wl}"),
        ] {
            let e = Scenario::parse("t.toml", &text).unwrap_err().to_string();
            assert!(e.starts_with("t.toml"), "{e}");
            assert!(e.contains("at least one [[workload]]"), "{e}");
            // Not a parse error pointed at a first line with nothing wrong.
            assert!(!e.contains("line 1"), "{e}");
        }
        let e = Scenario::parse("t.toml", no_wl).unwrap_err().to_string();
        assert!(e.starts_with("t.toml: no [[workload]] table: "), "{e}");
        let no_host = &no_vary[no_vary.find("[[workload]]").unwrap()..];
        let e = Scenario::parse("t.toml", no_host).unwrap_err().to_string();
        assert!(e.starts_with("t.toml: no [[host]] table: "), "{e}");
    }

    #[test]
    fn a_bad_hipersockets_table_is_refused_even_when_unused() {
        for (bad, says) in [
            ("mfs_kb = 17", "mfs_kb 17"),
            ("machine = \"z99\"", "\"z99\""),
        ] {
            let e = refused_at(|t| format!("{t}[hipersockets]\n{bad}\n"), bad, "");
            assert!(e.contains(says), "{e}");
        }
    }

    #[test]
    fn a_workload_across_hipersockets_and_ethernet_is_refused() {
        let e = refused_at(
            |t| t.replace("type = \"aix\"", "type = \"aix\"\nlink = \"hipersockets\""),
            "client = ",
            "workload #1",
        );
        assert!(e.contains("HiperSockets") && e.contains("Ethernet"), "{e}");
    }

    #[test]
    fn inline_profile_becomes_the_interface() {
        let text = BASIC.replace(
            "inbperf = \"DYNAMIC WORKLOADQ\"",
            "profile_text = \"\"\"\nINTERFACE OSAIF1 DEFINE IPAQENET IPADDR 192.0.2.1/24 PORTNAME OSAP1 VMAC ROUTEALL INBPERF DYNAMIC WORKLOADQ\nGLOBALCONFIG SEGMENTATIONOFFLOAD\nSTART OSAIF1\n\"\"\"",
        );
        let no_vary = &text[..text.find("[vary]").unwrap()];
        let v = Scenario::parse("t.toml", no_vary)
            .unwrap()
            .variants()
            .unwrap();
        let h = &v[0].setup.hosts[0];
        let a = h.adapter.as_ref().unwrap();
        let i = &a.osa.config.interfaces[a.osa.iface];
        assert!(i.workloadq);
        // VMAC ROUTEALL with no MAC coded: the adapter makes one.
        assert_eq!(i.vmac.unwrap().mac, None);
        assert!(
            h.segmentation_offload,
            "GLOBALCONFIG SEGMENTATIONOFFLOAD reaches the stack model"
        );
        let bad = no_vary.replace("IPADDR 192.0.2.1/24", "IPADDR 192.0.2.99/24");
        let e = refused(&bad);
        assert!(e.contains("192.0.2.1"), "{e}");
    }

    #[test]
    fn type_errors_say_what_the_field_takes_everywhere() {
        // Top-level fields said "expected u64" / "expected f64"; a whole
        // number out of its type's range said "expected a whole number".
        let parse_err = |text: &str| Scenario::parse("t.toml", text).unwrap_err().to_string();
        for (from, to, says) in [
            ("name = \"t\"", "seed = \"one\"", "expected a whole number"),
            (
                "name = \"t\"",
                "seed = -1",
                "expected a whole number, not negative",
            ),
            (
                "name = \"t\"",
                "sample_us = -5",
                "expected a whole number, not negative",
            ),
            (
                "duration_ms = 10",
                "duration_ms = \"10\"",
                "expected a number",
            ),
            (
                "request = 100",
                "request = 4294967296",
                "expected a whole number of at most 4294967295",
            ),
            (
                "connections = 2",
                "connections = -1",
                "expected a whole number, not negative",
            ),
        ] {
            let e = parse_err(&BASIC.replacen(from, to, 1));
            assert!(e.contains(says), "{to}: {e}");
            assert!(!e.contains("u64") && !e.contains("f64"), "{to}: {e}");
            let line = BASIC
                .replacen(from, to, 1)
                .lines()
                .position(|l| l.starts_with(to.lines().last().unwrap()))
                .unwrap()
                + 1;
            assert!(e.contains(&format!("line {line}")), "{to}: {e}");
        }
        // [vary] values are typed against the host's fields: same words.
        let e = Scenario::parse(
            "t.toml",
            &BASIC
                .replace(
                    "values = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]",
                    "values = [8, 70000]\nhosts = [\"zos\"]",
                )
                .replace("field = \"inbperf\"", "field = \"read_storage\"")
                .replace("inbperf = \"DYNAMIC WORKLOADQ\"\n", ""),
        )
        .unwrap()
        .variants()
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("read_storage 70000 SBALs out of range 8..126"),
            "{e}"
        );
        // The field's own range, not the limit of the type that holds it.
        let e = Scenario::parse(
            "t.toml",
            &BASIC.replacen("name = \"zos\"", "name = \"zos\"\nread_storage = 70000", 1),
        )
        .unwrap()
        .variants()
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("read_storage 70000 SBALs out of range 8..126"),
            "{e}"
        );
        assert!(!e.contains("65535"), "{e}");
    }

    #[test]
    fn a_sample_period_beyond_the_run_is_refused_not_wrapped() {
        // BASIC runs 50 ms of warm-up (default) and 10 ms measured.
        let no_vary = &BASIC[..BASIC.find("[vary]").unwrap()];
        let with = |us: &str| {
            no_vary.replace(
                "duration_ms = 10",
                &format!("duration_ms = 10\nsample_us = {us}"),
            )
        };
        // 18446744073709552 µs × 1000 wrapped to 384 ns: 200,000 samples.
        for us in ["18446744073709552", "9223372036854775807", "60001"] {
            let text = with(us);
            let e = Scenario::parse("t.toml", &text)
                .unwrap()
                .variants()
                .expect_err(us)
                .to_string();
            let line = text
                .lines()
                .position(|l| l.starts_with("sample_us"))
                .unwrap()
                + 1;
            assert!(
                e.starts_with(&format!(
                    "t.toml:{line}: sample_us {us} is longer than the run"
                )),
                "{e}"
            );
            assert!(e.contains("60000 us"), "{e}");
        }
        for (us, ns) in [("0", 0), ("60000", 60_000_000), ("1", 1000)] {
            let v = Scenario::parse("t.toml", &with(us))
                .unwrap()
                .variants()
                .unwrap();
            assert_eq!(v[0].setup.sample_every_ns, ns);
        }
    }

    #[test]
    fn a_run_shorter_than_a_nanosecond_is_refused_at_its_line() {
        // 1e-9 ms ran, with a 0 ns window and every rate zero.
        let no_vary = &BASIC[..BASIC.find("[vary]").unwrap()];
        let line = 1 + no_vary
            .lines()
            .position(|l| l.starts_with("duration_ms"))
            .unwrap();
        for d in ["1e-9", "0.0000009", "0", "-1", "600001"] {
            let text = no_vary.replace("duration_ms = 10", &format!("duration_ms = {d}"));
            let e = refused(&text);
            assert!(
                e.starts_with(&format!("t.toml:{line}: duration_ms ")),
                "{e}"
            );
            assert!(e.contains("must be in [0.000001, 600000]"), "{e}");
        }
        let text = no_vary.replace("duration_ms = 10", "duration_ms = 0.000001");
        let v = Scenario::parse("t.toml", &text)
            .unwrap()
            .variants()
            .unwrap();
        assert_eq!(v[0].setup.duration_ns, 1);
    }

    #[test]
    fn a_vary_of_one_value_is_refused() {
        // It ran the value as a single run whose text named no variant, so
        // DYNAMIC's results read as those of the host table's inbperf.
        for (values, says) in [
            (
                "[\"DYNAMIC\"]",
                "[vary] values: only inbperf = \"DYNAMIC\"; a [vary] compares runs",
            ),
            ("[]", "[vary] values: no value; a [vary] compares runs"),
        ] {
            let e = refused_at(
                |b| {
                    b.replace(
                        "values = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]",
                        &format!("values = {values}"),
                    )
                },
                "values = ",
                says,
            );
            assert!(e.contains("set inbperf in the [[host]] table"), "{e}");
        }
        let (e, _) = error_at(
            |b| {
                b.replace("field = \"inbperf\"", "field = \"connections\"")
                    .replace(
                        "values = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]",
                        "values = [4]",
                    )
            },
            "values = ",
        );
        assert!(
            e.contains("set connections in the [[workload]] table"),
            "{e}"
        );
    }

    #[test]
    fn an_adapter_cannot_run_a_port_faster_than_its_features_have() {
        // osa-express3 at 25g ran, and OSAINFO showed "Gen: OSA-E3 Active
        // speed/mode: 25000 mb/sec".
        let no_vary = &BASIC[..BASIC.find("[vary]").unwrap()];
        for (adapter, speed, says) in [
            ("osa-express3", "25g", "adapter \"osa-express3\" has no port faster than 10g, so it cannot run speed 25000 Mb/s"),
            ("osa-express2", "100g", "adapter \"osa-express2\" has no port faster than 10g"),
            ("osa-express6s", "10001", "cannot run speed 10001 Mb/s"),
        ] {
            let text = no_vary.replacen(
                "inbperf = \"DYNAMIC WORKLOADQ\"",
                &format!("adapter = \"{adapter}\"\nspeed = \"{speed}\""),
                1,
            );
            let e = Scenario::parse("t.toml", &text)
                .unwrap()
                .variants()
                .expect_err(speed)
                .to_string();
            let line = text.lines().position(|l| l.starts_with("adapter =")).unwrap() + 1;
            assert!(e.starts_with(&format!("t.toml:{line}: host \"zos\": adapter ")), "{e}");
            assert!(e.contains(says), "{e}");
        }
        // Their own speeds still run; a scenario's own adapter model decides
        // its ports (the file's set only where a host runs on it: a set no
        // host uses is refused).
        for (adapter, speed) in [
            ("osa-express3", "10g"),
            ("osa-express5s", "1g"),
            ("my-osa", "25g"),
        ] {
            let own = if adapter == "my-osa" {
                "[models.adapter.my-osa]\nframe_ns = 1000\nbyte_ps = 100\nsort_ns = 0\npresent_ns = 1000\nlatency_ns = 1000\nin_buffer_frames = 100\nolm_frame_ns = 0\nsiga_latency_ns = 1000\n"
            } else {
                ""
            };
            let text = no_vary.replacen(
                "inbperf = \"DYNAMIC WORKLOADQ\"",
                &format!("adapter = \"{adapter}\"\nspeed = \"{speed}\""),
                1,
            ) + own;
            let v = Scenario::parse("t.toml", &text).unwrap().variants();
            assert!(v.is_ok(), "{adapter} {speed}: {v:?}");
        }
    }

    #[test]
    fn xcf_fields_on_a_host_that_distributes_nothing_are_refused() {
        // They were ignored, and xcf_speed = "fast" was never parsed.
        for field in [
            "xcf_speed = \"fast\"",
            "xcf_speed = \"1g\"",
            "xcf_latency_us = 20",
        ] {
            let key = field.split(' ').next().unwrap();
            refused_at(
                |b| {
                    b[..b.find("[vary]").unwrap()].replace("inbperf = \"DYNAMIC WORKLOADQ\"", field)
                },
                field,
                &format!("host \"zos\": {key} is the XCF link of a sysplex distributor"),
            );
        }
        // A [vary] over xcf_speed sets it on every z/OS host, targets too:
        // the example scenario's distributor still varies.
        let sd = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/sysplex-distributor-mix.toml"
        ))
        .unwrap();
        let varied = sd[..sd.find("[vary]").unwrap()].to_string()
            + "[vary]\nfield = \"xcf_speed\"\nvalues = [\"1g\", \"10g\"]\n";
        let v = Scenario::parse("t.toml", &varied)
            .unwrap()
            .variants()
            .unwrap();
        assert_eq!(v.len(), 2);
        assert!(Scenario::parse("t.toml", &sd).unwrap().variants().is_ok());
    }

    #[test]
    fn a_distributor_names_each_target_once_and_may_name_itself() {
        let sd = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/sysplex-distributor-mix.toml"
        ))
        .unwrap();
        let with = |targets: &str| {
            sd.replace(
                "distribute_to = [\"zost\"]",
                &format!("distribute_to = {targets}"),
            )
        };
        let twice = Scenario::parse("t.toml", &with("[\"zost\", \"zost\"]"))
            .and_then(|s| s.variants())
            .expect_err("refused");
        assert!(
            twice
                .to_string()
                .contains("distribute_to names \"zost\" twice"),
            "{twice}"
        );
        // Its own name twice: at the distribute_to line, not its name's.
        let text = with("[\"zosd\", \"zost\", \"zosd\"]");
        let e = Scenario::parse("t.toml", &text)
            .and_then(|s| s.variants())
            .expect_err("refused")
            .to_string();
        let line = text
            .lines()
            .position(|l| l.starts_with("distribute_to"))
            .unwrap()
            + 1;
        assert!(e.starts_with(&format!("t.toml:{line}: ")), "{e}");
        let v = Scenario::parse("t.toml", &with("[\"zosd\", \"zost\"]"))
            .unwrap()
            .variants()
            .unwrap();
        let d = v[0].setup.hosts[0]
            .distributor
            .as_ref()
            .expect("distributes");
        assert_eq!(d.targets, vec![0, 1]);
        // Itself alone: no XCF link, so its settings are refused as on a
        // host that distributes nothing.
        let alone = with("[\"zosd\"]");
        let e = Scenario::parse("t.toml", &alone)
            .and_then(|s| s.variants())
            .expect_err("refused")
            .to_string();
        assert!(e.contains("names only itself in distribute_to"), "{e}");
        // A target on HiperSockets has no OSA to answer the client with.
        let hs = with("[\"zost\"]").replacen(
            "ip = \"192.0.2.2\"\nadapter = \"osa-express3\"\nspeed = \"1g\"\ninbperf = \"DYNAMIC\"",
            "ip = \"192.0.2.2\"\nlink = \"hipersockets\"",
            1,
        );
        assert!(hs.contains("link = \"hipersockets\""));
        let e = Scenario::parse("t.toml", &format!("{hs}\n[hipersockets]\n"))
            .and_then(|s| s.variants())
            .expect_err("refused")
            .to_string();
        assert!(
            e.contains("distribute_to names \"zost\", which is on HiperSockets"),
            "{e}"
        );
    }

    #[test]
    fn a_distributor_described_by_a_profile_keeps_its_dvipa() {
        // The fields dvipa and distribute_to beside a profile that codes no
        // VIPADISTRIBUTE: the run forwarded, but the engine knew no DVIPA,
        // so the SYSDIST queue and the displays missed it.
        let sd = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/sysplex-distributor-mix.toml"
        ))
        .unwrap();
        let prof = "profile_text = \"\"\"\nINTERFACE OSAIF0 DEFINE IPAQENET IPADDR \
                    192.0.2.1/24 PORTNAME OSA00 VMAC INBPERF DYNAMIC WORKLOADQ\n\
                    START OSAIF0\n\"\"\"";
        let at = sd.find("inbperf = \"DYNAMIC\"").unwrap();
        let text = format!(
            "{}{prof}{}",
            &sd[..at],
            &sd[at + "inbperf = \"DYNAMIC\"".len()..]
        );
        let text = &text[..text.find("[vary]").unwrap()];
        let v = Scenario::parse("t.toml", text).unwrap().variants().unwrap();
        let setup = &v[0].setup.hosts[0].adapter.as_ref().expect("an OSA").osa;
        let cfg = &setup.config;
        let dvipa: IpAddr = "192.0.2.100".parse().unwrap();
        let i = &cfg.interfaces[setup.iface];
        assert!(
            i.addresses.iter().any(|a| a.addr == dvipa),
            "{:?}",
            i.addresses
        );
        assert_eq!(cfg.stacks[i.stack].distributed_dvipas, vec![dvipa]);
        assert!(setup.warnings.is_empty(), "{:?}", setup.warnings);
        // A profile distributing another DVIPA: kept, with a warning that
        // it has no targets here.
        let other = text.replace(
            "START OSAIF0\n",
            "VIPADYNAMIC\n  VIPADEFINE 255.255.255.255 192.0.2.101\n  \
             VIPADISTRIBUTE DEFINE 192.0.2.101 PORT 5001 DESTIP ALL\nENDVIPADYNAMIC\n\
             START OSAIF0\n",
        );
        let v = Scenario::parse("t.toml", &other)
            .unwrap()
            .variants()
            .unwrap();
        let w = &v[0].setup.hosts[0]
            .adapter
            .as_ref()
            .expect("an OSA")
            .osa
            .warnings;
        assert!(
            w.iter()
                .any(|w| w.contains("VIPADISTRIBUTE distributes 192.0.2.101")),
            "{w:?}"
        );
    }

    #[test]
    fn a_wlm_priorityq_map_no_run_uses_is_refused_and_always_checked() {
        let no_vary = |b: &str| b[..b.find("[vary]").unwrap()].to_string();
        // Without wlm_priorityq = true the map was ignored, its entries
        // unchecked.
        let map = "wlm_priorityq_map = [1, 2, 3, 4, 1, 1, 1]";
        refused_at(
            |b| no_vary(b).replace("inbperf = \"DYNAMIC WORKLOADQ\"", map),
            map,
            "host \"zos\": wlm_priorityq_map is used only with wlm_priorityq = true",
        );
        let bad = "wlm_priorityq_map = [1, 2, 3, 4, 5, 1, 1]";
        refused_at(
            |b| {
                b.replace("inbperf = \"DYNAMIC WORKLOADQ\"", bad)
                    .replace("field = \"inbperf\"", "field = \"wlm_priorityq\"")
                    .replace(
                        "values = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]",
                        "values = [false, true]",
                    )
            },
            bad,
            "host \"zos\": wlm_priorityq_map entries",
        );
        // A [vary] that turns WLMPRIORITYQ on uses it (wlm-priority.toml).
        let text = BASIC
            .replace("inbperf = \"DYNAMIC WORKLOADQ\"", map)
            .replace("field = \"inbperf\"", "field = \"wlm_priorityq\"")
            .replace(
                "values = [\"BALANCED\", \"DYNAMIC\", \"OLM\"]",
                "values = [false, true]",
            );
        let v = Scenario::parse("t.toml", &text)
            .unwrap()
            .variants()
            .unwrap();
        let wlm = |i: usize| {
            v[i].setup.hosts[0]
                .adapter
                .as_ref()
                .unwrap()
                .osa
                .config
                .stacks[0]
                .wlm_priorityq
        };
        assert!(wlm(0).is_none());
        assert_eq!(wlm(1).unwrap().queue_for, [1, 2, 3, 4, 1, 1, 1]);
    }

    #[test]
    fn empty_names_and_labels_are_refused() {
        // Empty ones ran, heading a host's counters "host  (z10, ...)" and
        // giving a workload a nameless row; a line feed or an escape
        // sequence in a name broke the report's lines or was printed raw
        // to the terminal. (edit of BASIC, the line it is on, the message)
        type Edit = fn(&str) -> String;
        // A model set's name, which is a table's key, before its fields
        // are read (a new set's missing field quoted it raw).
        let e = Scenario::parse(
            "t.toml",
            &format!("{BASIC}[models.peer.\"p\\nX\"]\nprocessors = 2\n"),
        )
        .and_then(|s| s.variants())
        .expect_err("refused")
        .to_string();
        assert!(
            e.contains("[models.peer] the set \"p\\nX\" holds the character U+000A"),
            "{e}"
        );
        let cases: [(Edit, &str, &str); 7] = [
            (
                |b| b.replacen("name = \"t\"", "name = \"t\\u001b[2J\"", 1),
                "name = \"t",
                "name holds the character U+001B",
            ),
            (
                |b| b.replacen("name = \"zos\"", "name = \" \"", 1),
                "name = \" \"",
                "host #1: name is empty",
            ),
            (
                |b| b.replacen("type = \"RR\"", "type = \"RR\"\nname = \"\"", 1),
                "name = \"\"",
                "workload #1: name is empty",
            ),
            (
                |b| format!("{b}labels = [\"a\", \"\", \"c\"]\n"),
                "labels = ",
                "[vary] labels: label 2 is empty",
            ),
            (
                |b| format!("{b}labels = [\"a\", \"b\\u001b[2J\", \"c\"]\n"),
                "labels = ",
                "[vary] labels: label 2 holds the character U+001B",
            ),
            (
                |b| b.replacen("name = \"zos\"", "name = \"z\\nos\"", 1),
                "name = \"z",
                "host #1: name \"z\\nos\" holds the character U+000A",
            ),
            (
                |b| b.replacen("type = \"RR\"", "type = \"RR\"\nname = \"RR\\u202E01\"", 1),
                "name = \"RR",
                "workload #1: name \"RR\\u{202e}01\" holds the character U+202E",
            ),
        ];
        for (edit, marker, says) in cases {
            refused_at(edit, marker, says);
        }
    }

    #[test]
    fn model_values_that_would_wrap_are_refused() {
        let e = Scenario::parse(
            "t.toml",
            &format!("{BASIC}[models.peer.aix]\nbyte_ps = 9223372036854775807\n"),
        )
        .and_then(|s| s.variants())
        .expect_err("refused")
        .to_string();
        assert!(
            e.contains("[models.peer.aix] byte_ps 9223372036854775807 is beyond the largest value"),
            "{e}"
        );
        // The largest taken is taken.
        let ok = Scenario::parse(
            "t.toml",
            &format!("{BASIC}[models.peer.aix]\nbyte_ps = {MAX_MODEL_VALUE}\n"),
        )
        .and_then(|s| s.variants());
        assert!(ok.is_ok(), "{:?}", ok.err());
    }

    #[test]
    fn an_smc_socket_share_is_a_percentage() {
        let e = Scenario::parse(
            "t.toml",
            &format!("{BASIC}[models.smc.r]\nsocket_share_pct = 1000\n"),
        )
        .and_then(|s| s.variants())
        .expect_err("refused")
        .to_string();
        assert!(
            e.contains("[models.smc.r] socket_share_pct 1000 is a percentage, 0..100"),
            "{e}"
        );
    }

    #[test]
    fn an_address_no_interface_can_own_is_refused() {
        // A z/OS host described by fields is on a /24: the subnet's own
        // addresses are not a host's (a DVIPA is a /32 of its own).
        for (addr, what) in [
            ("192.0.2.255", "the broadcast address of its /24"),
            ("192.0.2.0", "the network address of its /24"),
        ] {
            refused_at(
                |b| b.replacen("ip = \"192.0.2.1\"", &format!("ip = \"{addr}\""), 1),
                &format!("\"{addr}\""),
                &format!("host \"zos\": ip \"{addr}\" is {what}"),
            );
        }
        // A peer's subnet is not the simulator's to say: 10.1.1.255 is a
        // host of a /16 a z/OS profile codes.
        let text = BASIC[..BASIC.find("[vary]").unwrap()]
            .replace(
                "inbperf = \"DYNAMIC WORKLOADQ\"",
                "profile_text = \"INTERFACE Q1 DEFINE IPAQENET IPADDR 192.0.2.1/16 PORTNAME P1\"",
            )
            .replace("ip = \"192.0.2.2\"", "ip = \"192.0.3.255\"");
        assert!(Scenario::parse("t.toml", &text)
            .and_then(|s| s.variants())
            .is_ok());
        for (addr, what) in [
            ("0.0.0.0", "the unspecified address"),
            ("255.255.255.255", "the broadcast address"),
            ("224.0.0.1", "a multicast address"),
            ("127.0.0.1", "a loopback address"),
        ] {
            refused_at(
                |b| b.replacen("ip = \"192.0.2.2\"", &format!("ip = \"{addr}\""), 1),
                &format!("\"{addr}\""),
                &format!("host \"aix\": ip \"{addr}\" is {what}"),
            );
            refused_with_host_lines(
                &format!("dvipa = \"{addr}\""),
                "dvipa",
                &format!("host \"zos\": dvipa \"{addr}\" is {what}"),
            );
        }
    }

    #[test]
    fn model_values_the_simulator_would_clamp_or_drop_on_are_refused() {
        // in_buffer_frames = 0 dropped every frame (all workloads 0, exit
        // 0); processors = 0 ran as 1 and was reported as "1 CPs".
        let costs = "interrupt_ns = 1\nrx_pkt_ns = 1\nrx_ooo_ns = 1\nrx_ack_ns = 1\ntx_pkt_ns = 1\ntx_ack_ns = 1\ntso_seg_ns = 1\ntso_pkt_ns = 1\nsock_call_ns = 1\nconn_ns = 1\npoll_ns = 1\n";
        let adapter = "frame_ns = 1\nbyte_ps = 1\nsort_ns = 0\npresent_ns = 1\nlatency_ns = 1\nolm_frame_ns = 0\nsiga_latency_ns = 1\n";
        for (table, body, bad, says) in [
            (
                "adapter.osa-express3",
                adapter,
                "in_buffer_frames = 0",
                "in_buffer_frames 0",
            ),
            (
                "adapter.osa-express3",
                &format!("{adapter}in_buffer_frames = 9\n"),
                "write_queue_sbals = 0",
                "write_queue_sbals 0",
            ),
            (
                "machine.z10",
                &format!("{costs}sock_block = 1\n"),
                "processors = 0",
                "processors 0 must be 1..256",
            ),
            (
                "machine.z10",
                &format!("{costs}processors = 2\n"),
                "sock_block = 0",
                "sock_block 0",
            ),
            (
                "peer.aix",
                &format!("{costs}processors = 2\nsock_block = 1\n"),
                "ack_every = 0",
                "ack_every 0",
            ),
            (
                "vse.z800",
                &format!("{costs}processors = 2\nsock_block = 1\n"),
                "stack_np_share = 1.5",
                "stack_np_share 1.5 is a share",
            ),
            (
                "hipersockets.z800",
                "siga_ns = 1\nbyte_ps = 1\nlatency_ns = 1\n",
                "in_buffers = 0",
                "in_buffers 0",
            ),
        ] {
            refused_at(
                |b| {
                    format!(
                        "{}[models.{table}]\n{body}{bad}\n",
                        &b[..b.find("[vary]").unwrap()]
                    )
                },
                bad,
                &format!("[models.{table}] {says}"),
            );
        }
        // The built-in entries, copied as a scenario's own, pass.
        let mut own = Models::builtin().unwrap();
        own.machine.get_mut("z10").unwrap().processors = 256;
        let sc = Scenario::parse("t.toml", BASIC).unwrap();
        assert!(sc.check_models(&own).is_ok());
    }

    #[test]
    fn a_models_table_may_change_one_field_of_a_builtin_set() {
        let no_vary = &BASIC[..BASIC.find("[vary]").unwrap()];
        let text = format!("{no_vary}[models.machine.z10]\ninterrupt_ns = 4321\n");
        let v = Scenario::parse("t.toml", &text)
            .unwrap()
            .variants()
            .unwrap();
        let mut want = Models::builtin().unwrap().machine["z10"].clone();
        assert_ne!(want.interrupt_ns, 4321);
        want.interrupt_ns = 4321;
        assert_eq!(v[0].setup.hosts[0].costs, want, "the other z10 costs kept");
        // Errors point at the field's line, or at the set's header: a set
        // of a new name must give every field, and a set no host runs on
        // would change nothing (BASIC's z/OS is on 1 GbE, so on the
        // OSA-Express3 1 GbE feature). (set, its lines, where, what)
        for (set, lines, marker, says, also) in [
            (
                "peer.aix",
                "ack_every = \"two\"",
                "ack_every",
                "ack_every: invalid type",
                "",
            ),
            (
                "machine.z10",
                "intrupt_ns = 1",
                "intrupt_ns",
                "intrupt_ns: unknown field",
                "",
            ),
            (
                "adapter.my-osa",
                "frame_ns = 1",
                "[models.",
                "missing field",
                "gives every field",
            ),
            (
                "machine.z14",
                "interrupt_ns = 1",
                "[models.",
                "no host of this scenario",
                "",
            ),
            (
                "adapter.osa-express3",
                "frame_ns = 1",
                "[models.",
                "no host of this scenario runs on this set",
                "[models.adapter.osa-express3-1g]",
            ),
        ] {
            let e = refused_at(
                |b| {
                    format!(
                        "{}[models.{set}]\n{lines}\n",
                        &b[..b.find("[vary]").unwrap()]
                    )
                },
                marker,
                &format!("[models.{set}] {says}"),
            );
            assert!(e.contains(also), "{e}");
        }
        refused_at(
            |b| {
                format!(
                    "{}[models.machines.z10]\nprocessors = 2\n",
                    &b[..b.find("[vary]").unwrap()]
                )
            },
            "[models.machines.z10]",
            "[models] machines: not a table of parameter sets",
        );
        // A set only a [vary]'s run uses is used.
        let text = format!(
            "{no_vary}[models.machine.z14]\ninterrupt_ns = 1\n[vary]\nfield = \"machine\"\nvalues = [\"z10\", \"z14\"]\n"
        );
        assert!(Scenario::parse("t.toml", &text).unwrap().variants().is_ok());
    }

    #[test]
    fn the_models_text_is_the_sets_the_runs_use_and_reads_back() {
        let no_vary = &BASIC[..BASIC.find("[vary]").unwrap()];
        let own = format!("{no_vary}[models.machine.z10]\ninterrupt_ns = 4321\nrx_pkt_ns = 2000\n");
        let sc = Scenario::parse("t.toml", &own).unwrap();
        let v = sc.variants().unwrap();
        let text = sc.models_text(&v).unwrap();
        // The sets of the hosts: z/OS's machine and 1 GbE card, the peer.
        for h in [
            "[models.machine.z10]",
            "[models.adapter.osa-express3-1g]",
            "[models.peer.aix]",
        ] {
            assert!(text.contains(h), "{h}: {text}");
        }
        assert!(!text.contains("[models.machine.z14]"), "{text}");
        assert!(
            text.contains("interrupt_ns = 4321  # this file's (built in: 1500)"),
            "{text}"
        );
        assert!(
            text.contains("rx_pkt_ns = 2000  # this file's (the built-in value)"),
            "{text}"
        );
        // As a file's [models] (in place of its own), the runs are the same.
        let back = format!("{no_vary}{text}");
        let w = Scenario::parse("t.toml", &back)
            .unwrap()
            .variants()
            .unwrap();
        assert_eq!(format!("{:?}", w[0].setup), format!("{:?}", v[0].setup));
        // A [vary] over a model parameter is marked on its field.
        let varied =
            format!("{no_vary}[vary]\nfield = \"models.peer.aix.ack_every\"\nvalues = [2, 4]\n");
        let sc = Scenario::parse("t.toml", &varied).unwrap();
        let text = sc.models_text(&sc.variants().unwrap()).unwrap();
        assert!(
            text.contains("ack_every = 2  # varied by [vary]: 2, 4"),
            "{text}"
        );
    }

    #[test]
    fn a_vary_may_change_one_model_parameter() {
        let no_vary = &BASIC[..BASIC.find("[vary]").unwrap()];
        let vary = |field: &str, values: &str| {
            format!("{no_vary}[vary]\nfield = \"{field}\"\nvalues = [{values}]\n")
        };
        let text = vary("models.machine.z10.interrupt_ns", "1000, 3000");
        let v = Scenario::parse("t.toml", &text)
            .unwrap()
            .variants()
            .unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!((v[0].label.as_str(), v[1].label.as_str()), ("1000", "3000"));
        let z10 = Models::builtin().unwrap().machine["z10"].clone();
        for (run, ns) in v.iter().zip([1000, 3000]) {
            let c = &run.setup.hosts[0].costs;
            assert_eq!(c.interrupt_ns, ns);
            assert_eq!(c.rx_pkt_ns, z10.rx_pkt_ns, "only the varied field changes");
        }
        // The peer is not a z10: its costs are the same in both runs.
        assert_eq!(v[0].setup.hosts[1].costs, v[1].setup.hosts[1].costs);
        // The file's own partial set is the base each value changes.
        let own = text.replace("[vary]", "[models.machine.z10]\nrx_pkt_ns = 777\n[vary]");
        let v = Scenario::parse("t.toml", &own).unwrap().variants().unwrap();
        assert_eq!(v[1].setup.hosts[0].costs.rx_pkt_ns, 777);
        assert_eq!(v[1].setup.hosts[0].costs.interrupt_ns, 3000);
        // Refused: a set no host runs on (BASIC's 1 GbE OSA-Express3 runs
        // on the 1 GbE feature), an unknown set, a hosts list, a bad value.
        let e = refused(&vary("models.adapter.osa-express3.frame_ns", "1, 2"));
        assert!(
            e.contains("no host of this scenario runs on") && e.contains("osa-express3-1g"),
            "{e}"
        );
        let e = refused(&vary("models.machine.z11.interrupt_ns", "1, 2"));
        assert!(
            e.contains("no set [models.machine.z11]") && e.contains("z10"),
            "{e}"
        );
        let e = refused(&text.replace("values =", "hosts = [\"zos\"]\nvalues ="));
        assert!(
            e.contains("[vary] hosts: field models.machine.z10.interrupt_ns is a model parameter"),
            "{e}"
        );
        let e = refused(&vary("models.machine.z10.processors", "0, 2"));
        assert!(e.contains("[vary] values: models.machine.z10.processors = 0: [models.machine.z10] processors 0 must be 1..256"), "{e}");
        let e = refused(&vary("models.machine.z10.interrupt_ns", "1000"));
        assert!(
            e.contains("set interrupt_ns in the [models.machine.z10] table"),
            "{e}"
        );
    }

    #[test]
    fn errors_find_their_line_in_any_spelling_of_the_table() {
        // Single-quoted names, spaces in a header and a comment after it
        // lost the line.
        for (from, to) in [
            ("name = \"zos\"", "name = 'zos'"),
            ("name = \"zos\"", "name=\"zos\"  # the z/OS side"),
            ("[[host]]", "[[ host ]]"),
            ("[[host]]", "[[host]]   # systems"),
            ("[[host]]", "[[host]]  # z/OS [the side under test]"),
            ("name = \"zos\"", "\"name\" = \"zos\""),
        ] {
            let (e, line) = error_at(
                |b| {
                    b.replacen(from, to, 1).replacen(
                        "ip = \"192.0.2.1\"",
                        "ip = \"192.0.2.1\"\nspeed = \"warp\"",
                        1,
                    )
                },
                "warp",
            );
            assert!(
                e.starts_with(&format!("t.toml:{line}: host \"zos\": speed")),
                "{to}: {e}"
            );
        }
        for to in [
            "[[workload]] # interactive",
            "[[ workload ]]",
            "[[workload]]  # RR [10 conns]",
        ] {
            let (e, line) = error_at(
                |b| {
                    b.replace("[[workload]]", to)
                        .replace("connections = 2", "connections = 0")
                },
                "connections = 0",
            );
            assert!(
                e.starts_with(&format!("t.toml:{line}: workload #1")),
                "{to}: {e}"
            );
        }
        refused_at(
            |b| {
                b.replace("[vary]", "[ vary ] # modes")
                    .replace("\"OLM\"]", "\"OLM\", \"OLM\"]")
            },
            "values =",
            "[vary] values",
        );
    }

    #[test]
    fn an_empty_profile_path_says_so() {
        let e = refused_with_host_lines(
            "profile = \"\"",
            "profile = ",
            "host \"zos\": profile is empty",
        );
        assert!(
            !e.contains("directory") && !e.contains("No such file"),
            "{e}"
        );
    }

    #[test]
    fn speeds() {
        assert_eq!(parse_speed("1g"), Some(1_000_000_000));
        assert_eq!(parse_speed("10G"), Some(10_000_000_000));
        assert_eq!(parse_speed("100m"), Some(100_000_000));
        assert_eq!(parse_speed("2500"), Some(2_500_000_000));
        assert_eq!(parse_speed("fast"), None);
        assert_eq!(parse_speed("1000g"), Some(MAX_SPEED_BPS));
        assert_eq!(parse_speed("1000001"), None, "just over 1000g, in Mb/s");
        assert_eq!(parse_speed("0.5"), None, "below 1 Mb/s");
    }
}
