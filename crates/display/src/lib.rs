//! # softosa-display — z/OS operator displays of the engine's state
//!
//! Layer: displays (spec 05 §5.2). Turns [`softosa_engine::Engine`] state
//! into the layouts mainframe network people know — Netstat DEVLINKS,
//! `D TCPIP,,OSAINFO`, `D NET,TRL,TRLE=`, VTAM tuning statistics, Netstat
//! ALL / STATS / CONFIG / VCRT / ROUTE QDIOACCEL — plus softosa's own frame
//! accounting ("drops"). Every display is also available as JSON with the
//! same fields. Every counter shown is read from the engine; nothing is
//! estimated. This crate does not know how the engine was built or driven.
//!
//! ```no_run
//! # use softosa_display::{render, DisplayContext, DisplayKind, Format};
//! # fn f(engine: &softosa_engine::Engine) -> Result<(), softosa_display::DisplayError> {
//! let kind: DisplayKind = "devlinks".parse()?;
//! let text = render(kind, engine, &DisplayContext::default(), Some("QDIO4101L"), Format::Text)?;
//! println!("{text}");
//! # Ok(()) }
//! ```
//!
//! Modules: [`context`] (TRLE devices, clock), [`devlinks`], [`osainfo`],
//! [`vtam`] (TRLE display and tuning statistics), [`netstat`] (ALL, STATS,
//! CONFIG, VCRT, ROUTE QDIOACCEL), [`drops`], [`cli`].

pub mod cli;
pub mod context;
pub mod devlinks;
pub mod drops;
pub mod netstat;
pub mod osainfo;
pub mod text;
pub mod vtam;

pub use context::{ClockStamp, Devices, DisplayContext, TrleInfo, VcrtRoute};

use core::fmt;
use core::str::FromStr;
use softosa_engine::engine::Interface;
use softosa_engine::Engine;

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// The z/OS layout.
    #[default]
    Text,
    /// Pretty-printed JSON with the same fields.
    Json,
}

impl FromStr for Format {
    type Err = DisplayError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "text" | "txt" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            _ => Err(DisplayError::UnknownFormat(s.to_string())),
        }
    }
}

/// Which display.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DisplayKind {
    /// `D TCPIP,tcp,NETSTAT,DEVLINKS,INTFNAME=x`.
    Devlinks,
    /// `D TCPIP,,OSAINFO,INTFN=x`.
    OsaInfo,
    /// `D NET,TRL,TRLE=name`.
    Trle,
    /// VTAM tuning statistics (one block per read and write queue).
    Tuning,
    /// Netstat ALL (connections the engine knows).
    NetstatAll,
    /// Netstat STATS.
    Stats,
    /// Netstat CONFIG.
    Config,
    /// Netstat VCRT DETAIL.
    Vcrt,
    /// Netstat ROUTE QDIOACCEL.
    RouteQdioAccel,
    /// softosa's frame accounting and drops by reason.
    Drops,
}

impl DisplayKind {
    pub const ALL: [DisplayKind; 10] = [
        DisplayKind::Devlinks,
        DisplayKind::OsaInfo,
        DisplayKind::Trle,
        DisplayKind::Tuning,
        DisplayKind::NetstatAll,
        DisplayKind::Stats,
        DisplayKind::Config,
        DisplayKind::Vcrt,
        DisplayKind::RouteQdioAccel,
        DisplayKind::Drops,
    ];

    /// The word users type.
    pub fn word(self) -> &'static str {
        match self {
            DisplayKind::Devlinks => "devlinks",
            DisplayKind::OsaInfo => "osainfo",
            DisplayKind::Trle => "trle",
            DisplayKind::Tuning => "tuning",
            DisplayKind::NetstatAll => "netstat-all",
            DisplayKind::Stats => "stats",
            DisplayKind::Config => "config",
            DisplayKind::Vcrt => "vcrt",
            DisplayKind::RouteQdioAccel => "route-qdioaccel",
            DisplayKind::Drops => "drops",
        }
    }

    /// One line of help.
    pub fn describe(self) -> &'static str {
        match self {
            DisplayKind::Devlinks => "Netstat DEVLINKS: interface settings and statistics",
            DisplayKind::OsaInfo => "D TCPIP,,OSAINFO: what the adapter holds for an interface",
            DisplayKind::Trle => "D NET,TRL,TRLE=: devices, ULPID and read queues",
            DisplayKind::Tuning => "VTAM tuning statistics per read/write queue (alias: vtam)",
            DisplayKind::NetstatAll => "Netstat ALL: connections on ancillary (bulk) queues",
            DisplayKind::Stats => "Netstat STATS: bulk-queue segments and stack counters",
            DisplayKind::Config => "Netstat CONFIG: GLOBALCONFIG and IPCONFIG settings",
            DisplayKind::Vcrt => "Netstat VCRT DETAIL: sysplex distributor routing",
            DisplayKind::RouteQdioAccel => "Netstat ROUTE QDIOACCEL: accelerator routes",
            DisplayKind::Drops => "softosa frame accounting: nothing lost silently",
        }
    }

    /// The list of kinds for help and error messages.
    pub fn help_list() -> String {
        let mut s = String::new();
        for k in DisplayKind::ALL {
            s.push_str(&format!("  {:<16} {}\n", k.word(), k.describe()));
        }
        s
    }
}

impl fmt::Display for DisplayKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

impl FromStr for DisplayKind {
    type Err = DisplayError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let w: String = s
            .trim()
            .to_ascii_lowercase()
            .chars()
            .map(|c| if c == '_' || c == ' ' { '-' } else { c })
            .collect();
        let k = match w.as_str() {
            "devlinks" | "devlink" | "dev" | "netstat-devlinks" => DisplayKind::Devlinks,
            "osainfo" | "osa" => DisplayKind::OsaInfo,
            "trle" | "trl" => DisplayKind::Trle,
            "tuning" | "vtam" | "tnstats" | "tuning-stats" => DisplayKind::Tuning,
            "netstat-all" | "all" | "allconn" => DisplayKind::NetstatAll,
            "stats" | "statistics" | "netstat-stats" => DisplayKind::Stats,
            "config" | "netstat-config" => DisplayKind::Config,
            "vcrt" | "vcrt-detail" | "netstat-vcrt" => DisplayKind::Vcrt,
            "route-qdioaccel" | "qdioaccel" | "route" | "netstat-route" => {
                DisplayKind::RouteQdioAccel
            }
            "drops" | "drop" | "accounting" => DisplayKind::Drops,
            _ => return Err(DisplayError::UnknownKind(s.to_string())),
        };
        Ok(k)
    }
}

/// Why a display could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum DisplayError {
    #[error("unknown display {0:?}; the displays are:\n{list}", list = DisplayKind::help_list())]
    UnknownKind(String),
    #[error("unknown format {0:?}; use text or json")]
    UnknownFormat(String),
    #[error("--code-level {0:?}: an OSA code level is four hex digits, e.g. 0001")]
    BadCodeLevel(String),
    #[error("no interface or stack named {name:?}; interfaces: {valid}; stacks: {stacks}")]
    UnknownInterface {
        name: String,
        valid: String,
        stacks: String,
    },
    #[error(
        "interface name {name:?} is used by several stacks; name one as STACK/INTERFACE: {choices}"
    )]
    AmbiguousInterface { name: String, choices: String },
    #[error("no TRLE or interface named {name:?}; TRLEs: {valid}")]
    UnknownTrle { name: String, valid: String },
    #[error("no stack or interface named {name:?}; stacks: {stacks}; interfaces: {interfaces}")]
    UnknownStack {
        name: String,
        stacks: String,
        interfaces: String,
    },
    /// OSAINFO asked of a HiperSockets interface: z/OS rejects Netstat
    /// OSAINFO for an IQD interface, and so does softosa (a usage error).
    #[error("osainfo (D TCPIP,,OSAINFO) applies to OSA-Express interfaces only, and z/OS rejects it for HiperSockets; {name} is a HiperSockets interface (IQD CHPID {chpid:02X}). For it use devlinks (Netstat DEVLINKS), trle (D NET,TRL,TRLE=IUTIQD{chpid:02X}) or tuning (VTAM tuning statistics)")]
    NotOsa { name: String, chpid: u8 },
    #[error("the engine has no interfaces to display")]
    NoInterfaces,
    /// A target given to a display of the whole adapter (DROPS).
    #[error("{kind} covers the whole adapter and takes no --intf {target:?} (DEVLINKS, OSAINFO and TUNING show an interface or a stack's, TRLE a TRLE, the Netstat displays one stack)")]
    WholeAdapter { kind: &'static str, target: String },
    /// `--max` (OSAINFO's MAX=) given to another display.
    #[error("--max is OSAINFO's MAX= and applies to osainfo only, not {}", .0.word())]
    MaxNotOsaInfo(DisplayKind),
    #[error("could not encode the display as JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("writing the output: {0}")]
    Stdout(std::io::Error),
}

impl DisplayError {
    /// The command line asked for something that is not there (a display,
    /// format or code level that does not exist, a target that names no
    /// interface, stack or TRLE, or names several, or asks OSAINFO of a
    /// HiperSockets interface): a usage error, which the front end exits 2
    /// for. The others are failures of the run.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            DisplayError::UnknownKind(_)
                | DisplayError::UnknownFormat(_)
                | DisplayError::BadCodeLevel(_)
                | DisplayError::UnknownInterface { .. }
                | DisplayError::AmbiguousInterface { .. }
                | DisplayError::UnknownTrle { .. }
                | DisplayError::UnknownStack { .. }
                | DisplayError::NotOsa { .. }
                | DisplayError::WholeAdapter { .. }
                | DisplayError::MaxNotOsaInfo(_)
        )
    }
}

/// Render display `kind` of `engine`. `target` names an interface
/// (`NAME` or `STACK/NAME`) or a stack for devlinks, osainfo and tuning; a TRLE or an
/// interface for trle; a stack or an interface (meaning its stack) for the
/// Netstat displays; drops covers the whole adapter and refuses one.
/// `None` (or `*`) shows everything.
pub fn render(
    kind: DisplayKind,
    engine: &Engine,
    ctx: &DisplayContext,
    target: Option<&str>,
    format: Format,
) -> Result<String, DisplayError> {
    match kind {
        DisplayKind::Devlinks => emit(&devlinks::build(engine, ctx, target)?, format),
        DisplayKind::OsaInfo => emit(&osainfo::build(engine, ctx, target)?, format),
        DisplayKind::Trle => emit(&vtam::build_trl(engine, ctx, target)?, format),
        DisplayKind::Tuning => emit(&vtam::build_tuning(engine, ctx, target)?, format),
        DisplayKind::NetstatAll => emit(&netstat::build_all(engine, ctx, target)?, format),
        DisplayKind::Stats => emit(&netstat::build_stats(engine, ctx, target)?, format),
        DisplayKind::Config => emit(&netstat::build_config(engine, ctx, target)?, format),
        DisplayKind::Vcrt => emit(&netstat::build_vcrt(engine, ctx, target)?, format),
        DisplayKind::RouteQdioAccel => emit(&netstat::build_route(engine, ctx, target)?, format),
        DisplayKind::Drops => {
            if let Some(t) = narrowing(target) {
                return Err(DisplayError::WholeAdapter {
                    kind: "DROPS",
                    target: t.to_string(),
                });
            }
            emit(&drops::build(engine, ctx), format)
        }
    }
}

/// A display model: serializable, and printable in the z/OS layout.
pub trait Report: serde::Serialize {
    fn to_text(&self) -> String;
}

fn emit<R: Report>(r: &R, format: Format) -> Result<String, DisplayError> {
    match format {
        Format::Text => Ok(r.to_text()),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(r)?;
            s.push('\n');
            Ok(s)
        }
    }
}

/// `STACK/NAME` of an interface.
fn qualified(engine: &Engine, ctx: &DisplayContext, i: &Interface) -> String {
    format!("{}/{}", ctx.stack_name(engine, i.cfg.stack), i.cfg.name)
}

/// Every stack's name, for a message listing what a target may name.
fn stack_names(engine: &Engine, ctx: &DisplayContext) -> String {
    (0..engine.stacks().len())
        .map(|s| ctx.stack_name(engine, s).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn interface_names(engine: &Engine, ctx: &DisplayContext) -> String {
    let v: Vec<String> = engine
        .interfaces()
        .iter()
        .map(|i| qualified(engine, ctx, i))
        .collect();
    if v.is_empty() {
        "(none)".to_string()
    } else {
        v.join(", ")
    }
}

/// The part of a `--intf` target that narrows a display: `None` when it
/// is absent, blank or `*`, each of which shows everything. Every display
/// and a running lab's own views read a target through this.
pub fn narrowing(target: Option<&str>) -> Option<&str> {
    target.map(str::trim).filter(|t| !t.is_empty() && *t != "*")
}

/// Interfaces a target selects: all, one by name, one by `STACK/NAME`, or
/// every interface of a stack named alone (names match case-insensitively;
/// an interface's name is tried before a stack's). The rule of `--intf` for devlinks,
/// osainfo and tuning; a running lab applies it to its own per-interface
/// views too, so that `--intf` means one thing everywhere.
pub fn select_interfaces<'a>(
    engine: &'a Engine,
    ctx: &DisplayContext,
    target: Option<&str>,
) -> Result<Vec<&'a Interface>, DisplayError> {
    let all = engine.interfaces();
    let Some(t) = narrowing(target) else {
        if all.is_empty() {
            return Err(DisplayError::NoInterfaces);
        }
        return Ok(all.iter().collect());
    };
    let (stack, name) = match t.split_once('/') {
        Some((s, n)) => (Some(s), n),
        None => (None, t),
    };
    let found: Vec<&Interface> = all
        .iter()
        .filter(|i| i.cfg.name.eq_ignore_ascii_case(name))
        .filter(|i| {
            stack.is_none_or(|s| ctx.stack_name(engine, i.cfg.stack).eq_ignore_ascii_case(s))
        })
        .collect();
    if found.is_empty() && stack.is_none() {
        // A stack's name: all its interfaces, as Netstat DEVLINKS of that
        // stack shows them (an interface of the same name comes first).
        let of_stack: Vec<&Interface> = all
            .iter()
            .filter(|i| {
                ctx.stack_name(engine, i.cfg.stack)
                    .eq_ignore_ascii_case(name)
            })
            .collect();
        if !of_stack.is_empty() {
            return Ok(of_stack);
        }
    }
    match found.len() {
        0 => Err(DisplayError::UnknownInterface {
            name: t.to_string(),
            valid: interface_names(engine, ctx),
            stacks: stack_names(engine, ctx),
        }),
        1 => Ok(found),
        _ => Err(DisplayError::AmbiguousInterface {
            name: t.to_string(),
            choices: found
                .iter()
                .map(|i| qualified(engine, ctx, i))
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// Stacks a target selects: all, one by stack name, or the stack of a named
/// interface. Returns stack indices.
pub(crate) fn select_stacks(
    engine: &Engine,
    ctx: &DisplayContext,
    target: Option<&str>,
) -> Result<Vec<usize>, DisplayError> {
    let n = engine.stacks().len();
    let Some(t) = narrowing(target) else {
        return Ok((0..n).collect());
    };
    if let Some(s) = (0..n).find(|s| ctx.stack_name(engine, *s).eq_ignore_ascii_case(t)) {
        return Ok(vec![s]);
    }
    match select_interfaces(engine, ctx, Some(t)) {
        Ok(v) => Ok(v.iter().map(|i| i.cfg.stack).take(1).collect()),
        Err(DisplayError::AmbiguousInterface { name, choices }) => {
            Err(DisplayError::AmbiguousInterface { name, choices })
        }
        Err(_) => Err(DisplayError::UnknownStack {
            name: t.to_string(),
            stacks: stack_names(engine, ctx),
            interfaces: interface_names(engine, ctx),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_case_insensitively_and_round_trip() {
        for k in DisplayKind::ALL {
            assert_eq!(k.word().parse::<DisplayKind>().ok(), Some(k));
            assert_eq!(k.word().to_uppercase().parse::<DisplayKind>().ok(), Some(k));
        }
        assert_eq!(
            "VTAM".parse::<DisplayKind>().ok(),
            Some(DisplayKind::Tuning)
        );
        assert_eq!(
            "Route_QdioAccel".parse::<DisplayKind>().ok(),
            Some(DisplayKind::RouteQdioAccel)
        );
    }

    #[test]
    fn unknown_kind_lists_every_kind() {
        let e = "devlink5"
            .parse::<DisplayKind>()
            .err()
            .map(|e| e.to_string());
        let msg = e.unwrap_or_default();
        for k in DisplayKind::ALL {
            assert!(msg.contains(k.word()), "{msg}");
        }
    }

    #[test]
    fn formats_parse() {
        assert_eq!("JSON".parse::<Format>().ok(), Some(Format::Json));
        assert!("xml".parse::<Format>().is_err());
    }
}
