//! Command-line entry for `softosa display` (layer: displays, front end;
//! spec 05 §5.2). The lead's CLI builds the engine (from a profile, a
//! simulation or a live plane) and calls [`run`] with these arguments; this
//! module does not care how the engine was built.

use crate::context::{ClockStamp, DisplayContext, OSAINFO_LINE_LIMIT};
use crate::{render, DisplayError, DisplayKind, Format};
use softosa_engine::Engine;

fn parse_kind(s: &str) -> Result<DisplayKind, String> {
    s.parse::<DisplayKind>().map_err(|e| e.to_string())
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse::<Format>().map_err(|e| e.to_string())
}

/// `softosa display KIND [--intf NAME] [--format json]`.
#[derive(clap::Args, Debug, Clone)]
#[command(after_help = AFTER_HELP)]
pub struct DisplayArgs {
    /// Which display: devlinks, osainfo, trle, tuning (vtam), netstat-all,
    /// stats, config, vcrt, route-qdioaccel, drops (case-insensitive).
    #[arg(value_parser = parse_kind)]
    pub kind: DisplayKind,
    /// What to display: an interface (`NAME` or `STACK/NAME`) or a stack (all
    /// its interfaces) for devlinks, osainfo and tuning; a TRLE or interface
    /// for trle; a stack or interface for the Netstat displays. Omit it to
    /// show everything.
    #[arg(long = "intf", visible_aliases = ["target", "trle", "stack"], value_name = "NAME")]
    pub target: Option<String>,
    /// Output format: text (the z/OS layout) or json (same fields, for scripts).
    #[arg(long, default_value = "text", value_parser = parse_format)]
    pub format: Format,
    /// Time of the display for IST1230I and Netstat headers, in seconds since
    /// the Unix epoch (UTC). Default: the current time.
    #[arg(long, value_name = "UNIX_SECONDS")]
    pub clock: Option<u64>,
    /// OSA code level to show (four hex digits).
    #[arg(long, value_name = "HEX")]
    pub code_level: Option<String>,
    /// OSAINFO's MAX=: lines of each interface's report to show (1 to
    /// 65533), or `*` for all of them; default 200, as z/OS's.
    #[arg(long, value_name = "LINES|*", value_parser = parse_max)]
    pub max: Option<OsaInfoMax>,
}

/// OSAINFO's `MAX=`: a number of lines, or `*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OsaInfoMax {
    Lines(u32),
    All,
}

impl OsaInfoMax {
    /// As [`DisplayContext::osainfo_max`] holds it: `None` for `*`.
    pub fn limit(self) -> Option<u32> {
        match self {
            OsaInfoMax::Lines(n) => Some(n),
            OsaInfoMax::All => None,
        }
    }
}

impl std::fmt::Display for OsaInfoMax {
    /// As typed: `200`, `*`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OsaInfoMax::Lines(n) => write!(f, "{n}"),
            OsaInfoMax::All => f.write_str("*"),
        }
    }
}

/// `*`, or a number of lines from 1 to z/OS's limit.
pub fn parse_max(s: &str) -> Result<OsaInfoMax, String> {
    let s = s.trim();
    if s == "*" {
        return Ok(OsaInfoMax::All);
    }
    match s.parse::<u32>() {
        Ok(n) if (1..=OSAINFO_LINE_LIMIT).contains(&n) => Ok(OsaInfoMax::Lines(n)),
        _ => Err(format!(
            "{s:?} is not a number of lines from 1 to {OSAINFO_LINE_LIMIT}, or * for all"
        )),
    }
}

const AFTER_HELP: &str = "\
Displays:
  devlinks         Netstat DEVLINKS: interface settings and statistics
  osainfo          D TCPIP,,OSAINFO: what the adapter holds for an interface
  trle             D NET,TRL,TRLE=: devices, ULPID and read queues
  tuning           VTAM tuning statistics per read/write queue (alias: vtam)
  netstat-all      Netstat ALL: connections on ancillary (bulk) queues
  stats            Netstat STATS: bulk-queue segments and stack counters
  config           Netstat CONFIG: GLOBALCONFIG and IPCONFIG settings
  vcrt             Netstat VCRT DETAIL: sysplex distributor routing
  route-qdioaccel  Netstat ROUTE QDIOACCEL: accelerator routes
  drops            softosa frame accounting: nothing lost silently

Example: softosa display devlinks --profile prof.tcpip --intf QDIO4101L";

/// The context with the arguments' clock and code level applied.
pub fn apply(args: &DisplayArgs, mut ctx: DisplayContext) -> DisplayContext {
    let clock = match args.clock {
        Some(s) => Some(ClockStamp::from_unix(s, 0)),
        None => ctx.clock.or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .ok()
                .map(|d| ClockStamp::from_unix(d.as_secs(), d.subsec_nanos()))
        }),
    };
    ctx.clock = clock;
    if let Some(c) = &args.code_level {
        ctx.osa_code_level = c.to_ascii_uppercase();
    }
    if let Some(m) = args.max {
        ctx.osainfo_max = m.limit();
    }
    ctx
}

/// Render the display the arguments ask for.
pub fn render_args(
    args: &DisplayArgs,
    engine: &Engine,
    ctx: &DisplayContext,
) -> Result<String, DisplayError> {
    if let Some(c) = &args.code_level {
        // Shown as typed in OSAINFO and D NET,TRL: refuse what no adapter has.
        if c.len() != 4 || !c.chars().all(|ch| ch.is_ascii_hexdigit()) {
            return Err(DisplayError::BadCodeLevel(c.clone()));
        }
    }
    if args.max.is_some() && args.kind != DisplayKind::OsaInfo {
        return Err(DisplayError::MaxNotOsaInfo(args.kind));
    }
    let ctx = apply(args, ctx.clone());
    render(args.kind, engine, &ctx, args.target.as_deref(), args.format)
}

/// Print the display on stdout (the `softosa display` subcommand body once
/// the engine exists).
pub fn run(
    args: &DisplayArgs,
    engine: &Engine,
    ctx: &DisplayContext,
) -> Result<std::process::ExitCode, DisplayError> {
    let out = render_args(args, engine, ctx)?;
    write_stdout(&out).map_err(DisplayError::Stdout)?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// A command line that cannot be carried out as given (options that
/// conflict, a word no option knows). The `softosa` front end exits 2 for
/// it, as clap does for the usage errors it finds itself, and 1 for an
/// error in an input file or in the run.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Usage(pub String);

/// Write a command's output to stdout. A reader that went away (`| head`)
/// ends the output quietly; any other failure (a full disk, a closed
/// descriptor) is returned, so the command can say so and exit non-zero
/// instead of panicking inside `print!` or losing the output unnoticed.
pub fn write_stdout(text: &str) -> std::io::Result<()> {
    write_stdout_pieces([text])
}

/// As [`write_stdout`], for output made of pieces written one after the
/// other (a large output need not be joined into one string first).
pub fn write_stdout_pieces<S: AsRef<str>>(
    pieces: impl IntoIterator<Item = S>,
) -> std::io::Result<()> {
    write_stdout_with(|out| {
        pieces
            .into_iter()
            .try_for_each(|p| out.write_all(p.as_ref().as_bytes()))
    })
}

/// As [`write_stdout`], for output that `write` puts straight into
/// standard output (buffered), as a serializer does: a large document is
/// never held whole in memory.
pub fn write_stdout_with(
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match write(&mut out).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// A number as a message shows it back to the user: as typed while it is
/// short, in exponent form once it would run to dozens of digits (1e300
/// printed in full is three hundred of them).
pub fn shown_number(x: f64) -> String {
    if x.is_finite() && x.abs() >= 1e9 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// Write one line to standard error, as `eprintln!` does, but without
/// panicking when it cannot be written (a reader of `2>&1 | head` that went
/// away, a closed descriptor): a message nobody can read is dropped, and
/// the command still ends with its own exit status.
pub fn stderr_line(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(line).and_then(|()| err.write_all(b"\n"));
}

/// `eprintln!` that never panics: see [`stderr_line`].
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::cli::stderr_line(format_args!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Top {
        #[command(flatten)]
        args: DisplayArgs,
    }

    #[test]
    fn a_number_is_shown_short() {
        assert_eq!(shown_number(1e300), "1e300");
        assert_eq!(shown_number(-2.5e12), "-2.5e12");
        assert_eq!(shown_number(86401.0), "86401");
        assert_eq!(shown_number(0.001), "0.001");
        assert_eq!(shown_number(f64::NAN), "NaN");
        assert_eq!(shown_number(f64::INFINITY), "inf");
    }

    #[test]
    fn a_code_level_that_is_not_four_hex_digits_is_refused() {
        let cfg = softosa_engine::config::SystemConfig::default();
        let engine = Engine::new(cfg).expect("an empty configuration is valid");
        for bad in ["ZZZZ", "123", "12345", ""] {
            let t = Top::try_parse_from(["x", "osainfo", "--code-level", bad]).unwrap();
            let e = render_args(&t.args, &engine, &DisplayContext::default()).unwrap_err();
            assert!(matches!(e, DisplayError::BadCodeLevel(_)), "{bad}: {e}");
        }
    }

    #[test]
    fn parses_kind_target_and_format() {
        let t = Top::try_parse_from(["x", "VTAM", "--intf", "QDIO4101L", "--format", "json"]);
        let t = t.map_err(|e| e.to_string());
        assert!(t.is_ok(), "{t:?}", t = t.as_ref().err());
        if let Ok(t) = t {
            assert_eq!(t.args.kind, DisplayKind::Tuning);
            assert_eq!(t.args.target.as_deref(), Some("QDIO4101L"));
            assert_eq!(t.args.format, Format::Json);
        }
    }

    #[test]
    fn bad_kind_is_a_clap_error_listing_kinds() {
        let e = Top::try_parse_from(["x", "bogus"])
            .err()
            .map(|e| e.to_string());
        let e = e.unwrap_or_default();
        assert!(e.contains("route-qdioaccel"), "{e}");
    }
}
