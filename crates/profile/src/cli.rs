//! `softosa profile check` and `softosa profile convert` (spec 5.1).
//!
//! Layer: command-line front end of the configuration crate. The lead wires
//! [`ProfileArgs`] in as the `profile` subcommand and calls [`run`].
//! Diagnostics print as `FILE:LINE:COL: error|warning: message`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::activate::{activate, ActivateOptions, StackInput};
use crate::ast::*;
use crate::convert::{convert, ConvertOptions};
use crate::diag::Diagnostics;
use crate::load::{load_path, Loaded};
use crate::print::print_profile;
use crate::validate::{validate_profile, validate_system};

/// Read, check and convert z/OS TCP/IP profiles, Policy Agent files and VTAM TRLEs.
#[derive(Debug, Args)]
#[command(
    long_about = "Read the configuration a z/OS network person already has — TCP/IP profile \
statements (INTERFACE, DEVICE/LINK/HOME, GLOBALCONFIG, IPCONFIG, TCPCONFIG, VIPADYNAMIC, \
BEGINROUTES), \
the Policy Agent SetSubnetPrioTosMask block, and VTAM TRLE definitions — and check it the way \
the stack would at activation."
)]
pub struct ProfileArgs {
    #[command(subcommand)]
    pub command: ProfileCommand,
}

#[derive(Debug, Subcommand)]
pub enum ProfileCommand {
    /// Check profiles, policy files and TRL members; print every error and warning.
    #[command(long_about = CHECK_HELP)]
    Check(CheckArgs),
    /// Rewrite legacy DEVICE/LINK/HOME (IPAQENET) definitions as INTERFACE statements.
    #[command(long_about = CONVERT_HELP)]
    Convert(ConvertArgs),
}

const CHECK_HELP: &str = "\
Check one or more configuration files and print every problem as
  FILE:LINE:COL: error|warning: message
then, when there are no errors, a summary of what was understood: stacks,
interfaces, ports (shared ports show every stack that uses them).

Each file is recognised by its content (a leading UTF-8 byte order mark is
skipped; a file that is not UTF-8 is reported at the line and column of
its first bad byte; each file may hold up to 16 MiB, the files of one
command 32 MiB together):
  * a TCP/IP profile (one file per stack; the stack is named after the file,
    or give --stack NAME=FILE, FILE being one of the FILEs checked),
  * a Policy Agent file starting with SetSubnetPrioTosMask (applies to every
    stack checked, unless paired with --policy STACK=FILE, STACK being one
    of the stacks checked),
  * a VTAM TRL member (VBUILD TYPE=TRL, TRLE statements; QDIOSTG= and IPADDR=
    start options are accepted too).
Every stack needs its own name: two profiles of one name (by --stack or by
file name) are refused, as is a --stack or --policy that names no file or
stack being checked (usage errors, exit status 2). A profile or TRL member
that defines nothing is a warning.

When TRLEs are given, every OSA PORTNAME must match a TRLE PORTNAME, no
device number, TRLE name or TRLE PORTNAME may be used twice (in one TRL
member or across the members given), and a TRLE with fewer DATAPATH devices
than the interfaces on its port (of every stack) is a warning. Rules that
span stacks (the OLM sharing limit of 4 interfaces per port and 8 per
CHPID) are checked across all the profiles given. Within a profile: one
LINK per DEVICE (IPAQENET and IPAQIDIO alike), distinct VLANIDs for several
interfaces of the stack on one port or HiperSockets CHPID, and every ROUTE over a LINK or
INTERFACE the profile defines, of the route's IP version (DEFAULT is the
IPv4 default route, DEFAULT6 the IPv6 one).

START: softosa activates every interface and device of the types it models.
When the profile has START statements, one it does not START is warned
about (z/OS would leave it inactive); a profile with no START at all is
read as a fragment to try settings on, and gets no such warning.

Keywords are case-insensitive and may be abbreviated as z/OS allows
(GLOBALCONFig: GLOBALCONF is fine, GLOBALCON is not). ';' starts a comment.
TCPCONFIG's buffer sizes (TCPSENDBFRSIZE, TCPRCVBUFRSIZE and their MAX
forms: bytes or K, at least 256, TCPMAXRCVBUFRSIZE at most 512K),
DELAYACKS / NODELAYACKS / AUTODELAYACKS, FRRTHRESHOLD and TIMEWAITINTERVAL
(0-120 seconds) are read and used by `softosa sim`; its other parameters
are warnings. GLOBALCONFIG SMCR
(with its PFID, PORTNUM, MTU, FIXEDMEMORY and TCPKEEPMININTERVAL options)
and SMCD are read too: they give a simulated host SMC-R / SMC-D.
z/OS statements softosa does not model (UDPCONFIG, PORT, AUTOLOG ...
ENDAUTOLOG, INCLUDE, VIPARANGE, ...) are a warning at their line and are
skipped up to the next statement, or to the next line that starts in
column 1: indent their continuation lines (a PORT or PORTRANGE entry may
start in column 1 with its port number); an unknown statement is an error.
Likewise a z/OS parameter softosa does not model on a statement it reads
(IPCONFIG SYSPLEXROUTING, SOURCEVIPA, TCPSTACKSOURCEVIPA addr; GLOBALCONFIG
NOTCPIPSTATISTICS, ZERT AGGREGATION; IPAQENET6 INTFID, DUPADDRDET and
TEMPPREFIX; IPAQENET TEMPIP;
ROUTE DELAYACKS and the retransmission settings; ...) is a warning once its
values are checked for count and form (ranges only where softosa has IBM's,
such as ARPTO 60-86400); one whose values softosa cannot check
(GLOBALCONFIG AIASSIST, POLICYREQUIRED, ...) is an error that says so; an
unknown parameter is an error.

Example:
  softosa profile check examples/profiles/two-stacks-a.prof \\
      examples/profiles/two-stacks-b.prof examples/profiles/osa.trl

Exit status: 0 no errors (warnings allowed), 1 errors found, 2 a usage
error.";

const CONVERT_HELP: &str = "\
Like the CONVERT option of the stack's profile check: each LINK IPAQENET,
with its DEVICE MPCIPA and HOME address, becomes one INTERFACE statement:

  DEVICE QDIO4101 MPCIPA PRIROUTER
  LINK   QDIO4101L IPAQENET QDIO4101 INBPERF DYNAMIC
  HOME   172.16.1.1 QDIO4101L
becomes
  INTERFACE QDIO4101L DEFINE IPAQENET INBPERF DYNAMIC IPADDR 172.16.1.1/24
            PORTNAME QDIO4101 PRIROUTER

The prefix length (/24) comes from the subnet mask of a BEGINROUTES route
over that link; when there is none, give it with --prefix LINK=LEN. An
INTERFACE has one IPADDR: of a link with several HOME addresses the first
is converted, and a warning names the others, which are left out. The
whole profile is printed again in canonical form, without its comments and
without the statements and parameters softosa does not model (each is named
in a warning, and the output says how many it lacks: copy the converted
statements into your profile rather than replacing it);
problems go to standard error.

The result is then checked as `profile check` would check it on its own:
a conversion can carry a problem over (WORKLOADQ without a VMAC) or make
one (two LINKs of one DEVICE become two interfaces on one port, which need
a VLANID each). Each problem is reported at the statement of FILE the
converted statement comes from. When there are errors, the output is still
printed, with a NOT READY comment at its top.

Example:
  softosa profile convert examples/profiles/legacy-device-link.prof
  softosa profile convert old.prof --prefix QDIO4101L=24 > new.prof

Exit status: 0 the converted profile passes the check (warnings allowed),
1 a link could not be converted or the result has errors, 2 a usage error.";

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Profiles, policy files and TRL members to check.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Name the stack of a profile: --stack TCPIPA=prof.a (default: file stem).
    #[arg(long = "stack", value_name = "NAME=FILE")]
    pub stacks: Vec<String>,
    /// Pair a policy file with one stack: --policy TCPIPA=pagent.conf.
    #[arg(long = "policy", value_name = "STACK=FILE")]
    pub policies: Vec<String>,
    /// Print only the diagnostics, no summary.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The profile to convert.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Prefix length of a link's HOME address: --prefix QDIO4101L=24.
    #[arg(long = "prefix", value_name = "LINK=LEN")]
    pub prefixes: Vec<String>,
}

/// Errors of the command line itself (bad option values).
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{option}: expected {expected}, found {value:?}")]
    BadOption {
        option: &'static str,
        expected: &'static str,
        value: String,
    },
    /// Options that cannot be carried out as given: a --stack or --policy
    /// naming a file or stack that is not being checked, two stacks of one
    /// name.
    #[error("{0}")]
    Usage(String),
    #[error("writing the output: {0}")]
    Io(#[from] std::io::Error),
}

impl CliError {
    /// A usage error (the front end exits 2), as opposed to a failure to
    /// write the output.
    pub fn is_usage(&self) -> bool {
        matches!(self, CliError::BadOption { .. } | CliError::Usage(_))
    }
}

/// The same file, however spelled (`a.prof`, `./a.prof`, an absolute
/// path): equal paths, or equal once canonicalized.
fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

/// The stack names of the profiles: from --stack, else the file stem in
/// upper case. Refuses a --stack whose file is not one of the profiles
/// checked, a file given two names, and two stacks of one name (their
/// interfaces and displays would merge).
fn stack_names(
    stack_opts: &[(String, String)],
    profiles: &[(PathBuf, Profile)],
    files: &[PathBuf],
) -> Result<Vec<String>, CliError> {
    for (name, f) in stack_opts {
        let path = Path::new(f);
        if !files.iter().any(|x| same_file(x, path)) {
            return Err(CliError::Usage(format!(
                "--stack {name}={f}: {f} is not among the files to check; give it as a FILE too"
            )));
        }
        if !profiles.iter().any(|(x, _)| same_file(x, path)) {
            return Err(CliError::Usage(format!(
                "--stack {name}={f}: {f} is not a TCP/IP profile (it was read as a policy or TRL file, or could not be read), so it is no stack"
            )));
        }
    }
    let mut names: Vec<String> = Vec::new();
    for (path, _) in profiles {
        let given: Vec<&String> = stack_opts
            .iter()
            .filter(|(_, f)| same_file(path, Path::new(f)))
            .map(|(n, _)| n)
            .collect();
        let name = match given.as_slice() {
            [] => crate::load::stack_name_of(path),
            [n, rest @ ..] => {
                if let Some(other) = rest.iter().find(|o| !o.eq_ignore_ascii_case(n)) {
                    return Err(CliError::Usage(format!(
                        "--stack: {} is given two stack names, {n} and {other}",
                        path.display()
                    )));
                }
                n.to_string()
            }
        };
        if let Some(k) = names.iter().position(|x| x.eq_ignore_ascii_case(&name)) {
            let first = profiles.get(k).map(|(p, _)| p.display().to_string());
            return Err(CliError::Usage(format!(
                "two stacks are named {name}: {} and {} (a stack is named after its file unless --stack NAME=FILE names it); give each its own name",
                first.unwrap_or_default(),
                path.display()
            )));
        }
        names.push(name);
    }
    Ok(names)
}

/// Entry point for `softosa profile ...`. Standard output is written
/// with [`softosa_display::cli::write_stdout`], as by the other softosa
/// commands: a reader that went away (`softosa profile check ... | head`)
/// ends the output quietly and the command keeps the exit status of its
/// check; any other failure (a full disk) is an error.
pub fn run(args: ProfileArgs) -> Result<ExitCode, CliError> {
    let mut out = Vec::new();
    let err = std::io::stderr();
    let code = match args.command {
        ProfileCommand::Check(a) => run_check(&a, &mut out, &mut err.lock()),
        ProfileCommand::Convert(a) => run_convert(&a, &mut out, &mut err.lock()),
    }?;
    softosa_display::cli::write_stdout(&String::from_utf8_lossy(&out))?;
    Ok(code)
}

fn pairs(
    list: &[String],
    option: &'static str,
    expected: &'static str,
) -> Result<Vec<(String, String)>, CliError> {
    list.iter()
        .map(|s| {
            s.split_once('=')
                .filter(|(a, b)| !a.is_empty() && !b.is_empty())
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .ok_or_else(|| CliError::BadOption {
                    option,
                    expected,
                    value: s.clone(),
                })
        })
        .collect()
}

fn print_diags(d: &Diagnostics, err: &mut dyn Write) -> std::io::Result<()> {
    for x in d.items() {
        writeln!(err, "{x}")?;
    }
    if d.dropped() > 0 {
        writeln!(err, "... and {} more diagnostics not shown", d.dropped())?;
    }
    Ok(())
}

/// `softosa profile check`.
pub fn run_check(
    a: &CheckArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitCode, CliError> {
    let stack_opts = pairs(&a.stacks, "--stack", "NAME=FILE")?;
    let policy_pairs = pairs(&a.policies, "--policy", "STACK=FILE")?;
    // One file twice would be checked against itself: every TRLE, device
    // and stack name "defined more than once".
    let files: Vec<&Path> = a.files.iter().map(PathBuf::as_path).collect();
    if let Some((i, j)) = crate::load::given_twice(&files) {
        return Err(CliError::Usage(format!(
            "{} is given twice (FILE {i} and {j}); give each file once",
            files[j - 1].display(),
        )));
    }
    let mut d = Diagnostics::new();
    let mut loaded: Vec<(PathBuf, Profile)> = Vec::new();
    let mut trls: Vec<TrlFile> = Vec::new();
    let mut shared_policy: Option<TosPolicy> = None;
    // Policies paired with a stack: (stack as given, file, policy).
    let mut paired: Vec<(String, String, Option<TosPolicy>)> = Vec::new();
    let mut files: Vec<PathBuf> = a.files.clone();
    for (_, f) in &policy_pairs {
        files.push(PathBuf::from(f));
    }
    let mut budget = crate::load::TextBudget::default();
    for (k, path) in files.iter().enumerate() {
        let (l, pd) = crate::load::load_path_within(path, &mut budget);
        d.extend(pd);
        // Files after the FILE arguments are the --policy files.
        let pairing = k
            .checked_sub(a.files.len())
            .and_then(|j| policy_pairs.get(j));
        match (l, pairing) {
            (Some(Loaded::Policy(pol)), Some((stack, f))) => {
                paired.push((stack.clone(), f.clone(), pol));
            }
            (Some(_), Some((stack, f))) => {
                return Err(CliError::Usage(format!(
                    "--policy {stack}={f}: {f} is not a Policy Agent file (it does not start with SetSubnetPrioTosMask)"
                )));
            }
            (Some(Loaded::Profile(p)), None) => loaded.push((path.clone(), *p)),
            (Some(Loaded::Policy(Some(pol))), None) => shared_policy = Some(pol),
            (Some(Loaded::Policy(None)), None) | (None, _) => {}
            (Some(Loaded::Trl(t)), None) => trls.push(t),
        }
    }
    let names = stack_names(&stack_opts, &loaded, &a.files)?;
    let profiles: Vec<(String, Profile)> = names
        .into_iter()
        .zip(loaded)
        .map(|(n, (_, p))| (n, p))
        .collect();
    // A --policy for a stack that is not checked would be dropped unnoticed
    // (a typo leaves the real stack on the default table).
    let mut stack_policy: BTreeMap<String, TosPolicy> = BTreeMap::new();
    let mut policy_for: Vec<String> = Vec::new();
    for (stack, f, pol) in paired {
        if !profiles.iter().any(|(n, _)| n.eq_ignore_ascii_case(&stack)) {
            let list: Vec<&str> = profiles.iter().map(|(n, _)| n.as_str()).collect();
            return Err(CliError::Usage(format!(
                "--policy {stack}={f}: no stack {stack} is being checked (stacks: {})",
                if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(", ")
                }
            )));
        }
        let key = stack.to_ascii_uppercase();
        if policy_for.contains(&key) {
            return Err(CliError::Usage(format!(
                "--policy: stack {stack} is given more than one policy file"
            )));
        }
        policy_for.push(key.clone());
        if let Some(pol) = pol {
            stack_policy.insert(key, pol);
        }
    }
    let trl_refs: Vec<&TrlFile> = trls.iter().collect();
    // Activation checks each profile and the system as a whole (once);
    // files that did not read cleanly are only checked, not activated.
    let act = if d.has_errors() {
        for (_, p) in &profiles {
            validate_profile(p, &mut d);
        }
        let named: Vec<(String, &Profile)> = profiles.iter().map(|(n, p)| (n.clone(), p)).collect();
        validate_system(&named, &trl_refs, &mut d);
        None
    } else {
        let inputs: Vec<StackInput<'_>> = profiles
            .iter()
            .map(|(n, p)| StackInput {
                name: n.clone(),
                profile: p,
                policy: stack_policy
                    .get(&n.to_ascii_uppercase())
                    .or(shared_policy.as_ref()),
            })
            .collect();
        match activate(&inputs, &trl_refs, &ActivateOptions::default()) {
            Ok(mut a) => {
                d.extend(std::mem::take(&mut a.warnings));
                Some(a)
            }
            Err(ad) => {
                d.extend(ad);
                None
            }
        }
    };
    d.sort();
    print_diags(&d, err)?;
    let act = match act {
        Some(a) if !d.has_errors() => a,
        _ => {
            writeln!(
                err,
                "{} error(s), {} warning(s)",
                d.error_count(),
                d.warning_count()
            )?;
            return Ok(ExitCode::from(1));
        }
    };
    if a.quiet {
        return Ok(ExitCode::SUCCESS);
    }
    summary(&act.config, &profiles, &trls, d.warning_count(), out)?;
    Ok(ExitCode::SUCCESS)
}

fn summary(
    cfg: &softosa_engine::config::SystemConfig,
    profiles: &[(String, Profile)],
    trls: &[TrlFile],
    warnings: usize,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    use softosa_engine::config as ec;
    writeln!(
        out,
        "OK: {} stack(s), {} interface(s), {} port(s), {} TRLE(s), 0 errors, {} warning(s)",
        cfg.stacks.len(),
        cfg.interfaces.len(),
        cfg.ports.len(),
        trls.iter().map(|t| t.trles.len()).sum::<usize>(),
        warnings
    )?;
    // The interfaces of each stack and of each port, in order, gathered
    // once: a scan of every interface per port is quadratic in the number
    // of ports.
    let mut of_stack: Vec<Vec<&ec::InterfaceConfig>> = vec![Vec::new(); cfg.stacks.len()];
    let mut on_port: Vec<Vec<&ec::InterfaceConfig>> = vec![Vec::new(); cfg.ports.len()];
    for i in &cfg.interfaces {
        if let Some(v) = of_stack.get_mut(i.stack) {
            v.push(i);
        }
        if let Some(v) = on_port.get_mut(i.port) {
            v.push(i);
        }
    }
    for ((si, s), interfaces) in cfg.stacks.iter().enumerate().zip(&of_stack) {
        let file = profiles.get(si).map(|(_, p)| p.file.as_str()).unwrap_or("");
        writeln!(out, "Stack {} ({file})", s.name)?;
        let mut g = Vec::new();
        if s.segmentation_offload {
            g.push("SEGMENTATIONOFFLOAD".to_string());
        }
        if s.iqd_multiwrite {
            g.push(
                if s.ziip_iqdio_multiwrite {
                    "IQDMULTIWRITE (ZIIP)"
                } else {
                    "IQDMULTIWRITE"
                }
                .to_string(),
            );
        }
        if let Some(w) = &s.wlm_priorityq {
            g.push(format!(
                "WLMPRIORITYQ {:?} FWD->{}",
                w.queue_for, w.forwarded_queue
            ));
        }
        if s.smc_r {
            g.push("SMCR".to_string());
        }
        if s.smc_d {
            g.push("SMCD".to_string());
        }
        if !g.is_empty() {
            writeln!(out, "  GLOBALCONFIG: {}", g.join(", "))?;
        }
        let mut ip = vec![if s.datagram_fwd {
            "DATAGRAMFWD"
        } else {
            "NODATAGRAMFWD"
        }
        .to_string()];
        if let Some(q) = s.qdio_accelerator {
            ip.push(format!("QDIOACCELERATOR QDIOPRIORITY {q}"));
        }
        if s.iqdio_routing {
            ip.push("IQDIOROUTING".into());
        }
        if s.ipsecurity {
            ip.push("IPSECURITY".into());
        }
        if s.tcp != ec::TcpSettings::default() {
            let t = &s.tcp;
            let mut w = vec![
                format!("TCPSENDBFRSIZE {}", t.send_buf),
                format!("TCPRCVBUFRSIZE {}", t.rcv_buf),
            ];
            if let Some(m) = t.max_rcv_buf_coded {
                w.push(format!("TCPMAXRCVBUFRSIZE {m}"));
            }
            if let Some(m) = t.max_send_buf_coded {
                w.push(format!("TCPMAXSENDBUFRSIZE {m}"));
            }
            w.push(t.delay_acks.keyword().into());
            w.push(format!("FRRTHRESHOLD {}", t.frr_threshold));
            w.push(format!("TIMEWAITINTERVAL {}", t.time_wait_s));
            writeln!(out, "  TCPCONFIG: {}", w.join(", "))?;
        }
        writeln!(out, "  IPCONFIG: {}", ip.join(", "))?;
        if let Some(t) = &s.tos_policy {
            let m: Vec<String> = t
                .mappings
                .iter()
                .map(|(q, tos)| format!("{tos:08b}->{q}"))
                .collect();
            writeln!(
                out,
                "  Policy: SubnetTosMask {:08b}, {}",
                t.mask,
                m.join(" ")
            )?;
        }
        if !s.vipas.is_empty() {
            // Home addresses on no adapter, which its interfaces register.
            const SHOWN: usize = 20;
            let v: Vec<String> = s.vipas.iter().take(SHOWN).map(|a| a.to_string()).collect();
            let more = s.vipas.len().saturating_sub(SHOWN);
            let rest = if more > 0 {
                format!(" ... and {more} more")
            } else {
                String::new()
            };
            writeln!(out, "  VIPAs: {}{rest}", v.join(" "))?;
        }
        if !s.distributed_dvipas.is_empty() {
            let v: Vec<String> = s.distributed_dvipas.iter().map(|a| a.to_string()).collect();
            writeln!(out, "  Distributed DVIPAs (SYSDIST): {}", v.join(" "))?;
        }
        if let Some(ee) = &s.ee {
            writeln!(
                out,
                "  Enterprise Extender: {} UDP {}-{}",
                ee.addr, ee.first_port, ee.last_port
            )?;
        }
        for i in interfaces {
            let port = cfg
                .ports
                .get(i.port)
                .map(|p| p.name.as_str())
                .unwrap_or("?");
            let mut addrs: Vec<String> = i.addresses.iter().map(|a| a.to_string()).collect();
            if addrs.is_empty() {
                // TEMPIP, or IPv6 with no IPADDR coded.
                addrs.push("(no address)".into());
            }
            let mut f = vec![format!("INBPERF {}", i.inbperf.label())];
            if i.workloadq {
                f.push("WORKLOADQ".into());
            }
            if i.olm {
                f.push("OLM".into());
            }
            if let Some(v) = &i.vmac {
                let mac = v
                    .mac
                    .map(|m| m.to_string())
                    .unwrap_or_else(|| "(generated)".into());
                let r = if v.route == ec::VmacRoute::Local {
                    "ROUTELCL"
                } else {
                    "ROUTEALL"
                };
                f.push(format!("VMAC {mac} {r}"));
            }
            if let Some(v) = i.vlan {
                f.push(format!("VLANID {v}"));
            }
            if let Some(m) = i.mtu {
                f.push(format!("MTU {m}"));
            }
            match i.router {
                ec::RouterRole::Primary => f.push("PRIROUTER".into()),
                ec::RouterRole::Secondary => f.push("SECROUTER".into()),
                ec::RouterRole::NonRouter => {}
            }
            if i.isolate {
                f.push("ISOLATE".into());
            }
            let kb = u32::from(i.read_storage_sbals)
                * cfg
                    .ports
                    .get(i.port)
                    .map(|p| p.sbal_bytes())
                    .unwrap_or(65536)
                / 1024;
            f.push(format!(
                "READSTORAGE {}{} SBALs ({kb}K)",
                if i.read_storage_global { "GLOBAL " } else { "" },
                i.read_storage_sbals
            ));
            let how = if i.defined_by == ec::DefinedBy::Link {
                "LINK"
            } else {
                "INTERFACE"
            };
            writeln!(
                out,
                "  {how} {} on {port}: {} {}",
                i.name,
                addrs.join(" "),
                f.join(" ")
            )?;
        }
    }
    for (p, interfaces) in cfg.ports.iter().zip(&on_port) {
        let users: Vec<String> = interfaces
            .iter()
            .map(|i| {
                format!(
                    "{}/{}",
                    cfg.stacks
                        .get(i.stack)
                        .map(|s| s.name.as_str())
                        .unwrap_or("?"),
                    i.name
                )
            })
            .collect();
        let kind = match p.kind {
            ec::PortKind::Osa {
                generation,
                speed_mbps,
                chpid_type,
            } => {
                format!(
                    "{} {} {speed_mbps} Mb/s",
                    chpid_type.label(),
                    generation.label()
                )
            }
            ec::PortKind::HiperSockets { mfs_kb } => format!("IQD MFS {mfs_kb}K"),
        };
        writeln!(
            out,
            "Port {} CHPID {:02X} port {} {kind}: {}",
            p.name,
            p.chpid,
            p.port_num,
            users.join(", ")
        )?;
    }
    Ok(())
}

/// `softosa profile convert`.
pub fn run_convert(
    a: &ConvertArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitCode, CliError> {
    let mut opts = ConvertOptions::default();
    for (l, n) in pairs(&a.prefixes, "--prefix", "LINK=LEN (e.g. QDIO4101L=24)")? {
        let len = n
            .parse::<u8>()
            .ok()
            .filter(|n| *n <= 32)
            .ok_or(CliError::BadOption {
                option: "--prefix",
                expected: "a prefix length 0-32",
                value: n.clone(),
            })?;
        if opts.prefixes.insert(l.to_ascii_uppercase(), len).is_some() {
            return Err(CliError::BadOption {
                option: "--prefix",
                expected: "each link once",
                value: l.clone(),
            });
        }
    }
    let (l, mut d) = load_path(&a.file);
    let Some(Loaded::Profile(p)) = l else {
        if !d.has_errors() {
            writeln!(
                err,
                "{}: not a TCP/IP profile (it looks like a policy or TRL file)",
                a.file.display()
            )?;
        }
        print_diags(&d, err)?;
        return Ok(ExitCode::from(1));
    };
    // A prefix for a link the profile does not have would be dropped
    // unnoticed (a typo leaves the real link without its prefix).
    if let Some(link) = opts.prefixes.keys().find(|k| {
        !p.links
            .iter()
            .any(|l| l.kind == InterfaceKind::IpaqEnet && l.name.eq_ignore_ascii_case(k))
    }) {
        return Err(CliError::BadOption {
            option: "--prefix",
            expected: "an IPAQENET LINK of the profile",
            value: link.clone(),
        });
    }
    let (c, cd) = convert(&p, &opts);
    d.extend(cd);
    // The result must pass profile check: a conversion can make problems
    // of its own (two links of one device become two interfaces on one
    // port, which need VLANIDs). Its statements keep the positions of the
    // statements of FILE they come from, so that is where they are reported.
    let stack = crate::load::stack_name_of(&a.file);
    d.extend_new(check_converted(&stack, &c));
    d.sort();
    print_diags(&d, err)?;
    if d.has_errors() {
        writeln!(
            err,
            "{} error(s), {} warning(s): the converted profile is not ready to use",
            d.error_count(),
            d.warning_count()
        )?;
    }
    writeln!(
        out,
        "; converted by softosa profile convert from {}",
        a.file.display()
    )?;
    if d.has_errors() {
        writeln!(
            out,
            "; NOT READY: {} error(s) (listed on standard error) must be fixed in {} first",
            d.error_count(),
            a.file.display()
        )?;
    }
    // The printed profile holds what softosa models: say what it lacks,
    // so that it is not taken for the whole of FILE.
    let kept = d.items().iter().filter(|x| x.is_left_out()).count();
    // Past the kept diagnostics' cap more may have been left out.
    let left_out = if d.dropped() > 0 {
        format!("at least {kept}")
    } else {
        kept.to_string()
    };
    if kept > 0 {
        writeln!(
            out,
            "; NOT THE WHOLE PROFILE: {left_out} statement(s) or parameter(s) softosa does not \
             model are left out (each named on standard error); copy the converted \
             statements into {} rather than replacing it",
            a.file.display()
        )?;
        writeln!(
            err,
            "the converted profile leaves out {left_out} statement(s) or parameter(s) softosa \
             does not model (the warnings above): copy its converted statements into {} \
             rather than replacing it",
            a.file.display()
        )?;
    }
    write!(out, "{}", print_profile(&c))?;
    Ok(if d.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// What `profile check` says of a converted profile on its own: activation
/// as a system of one stack, which runs the rules of one profile and of a
/// system (stopping there on an error) and then lowers, as check does for
/// its summary.
fn check_converted(stack: &str, c: &Profile) -> Diagnostics {
    let input = StackInput {
        name: stack.to_string(),
        profile: c,
        policy: None,
    };
    match activate(&[input], &[], &ActivateOptions::default()) {
        Ok(act) => act.warnings,
        Err(d) => d,
    }
}
