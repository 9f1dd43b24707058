//! Parser for the TCP/IP profile statements of spec 5.1 into [`Profile`].
//!
//! Layer: configuration front end. Hand-written recursive descent over the
//! token stream of [`crate::lexer`]. A statement starts with a statement
//! keyword and runs until the next token that is a statement keyword and
//! not a parameter of the statement (GLOBALCONFIG TCPIPSTATISTICS is the
//! parameter), so statements may span lines and several may share a line.
//! Unknown statements and parameters are errors; real z/OS statements and
//! parameters softosa does not model are warnings (a parameter's values are
//! still checked for count and form, and for range where softosa has the
//! range IBM documents), or errors that say so where softosa cannot check
//! their values. A word that is a parameter of the statement is never
//! taken as another parameter's value. After an error the parser skips to
//! the next statement keyword and carries on, so one run reports every
//! problem. Cross-statement rules live in [`crate::validate`].

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr};

use crate::ast::*;
use crate::diag::{Diagnostics, ErrorKind, Span, Spanned, WarningKind};
use crate::keywords::{kw, lookup, Keyword, Lookup, Match};
use crate::lexer::{tokenize, Token};

/// Top-level statements softosa understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stmt {
    Interface,
    Device,
    Link,
    Home,
    GlobalConfig,
    IpConfig,
    VipaDynamic,
    EndVipaDynamic,
    BeginRoutes,
    EndRoutes,
    Start,
    TcpConfig,
}

const STATEMENTS: &[(Keyword, Stmt)] = &[
    (kw("INTERFace"), Stmt::Interface),
    (kw("DEVICE"), Stmt::Device),
    (kw("LINK"), Stmt::Link),
    (kw("HOME"), Stmt::Home),
    (kw("GLOBALCONFig"), Stmt::GlobalConfig),
    (kw("IPCONFig"), Stmt::IpConfig),
    (kw("VIPADYNAMIC"), Stmt::VipaDynamic),
    (kw("ENDVIPADYNAMIC"), Stmt::EndVipaDynamic),
    (kw("BEGINROUTES"), Stmt::BeginRoutes),
    (kw("ENDROUTES"), Stmt::EndRoutes),
    (kw("START"), Stmt::Start),
    (kw("TCPCONFIG"), Stmt::TcpConfig),
];

/// z/OS profile statements that softosa recognises but does not model
/// (IP Configuration Reference, "TCP/IP profile (PROFILE.TCPIP) and
/// configuration statements"). A real profile carries many of them, so each
/// is reported as a warning at its line and skipped, never refused. Those
/// that open a block are in [`UNSUPPORTED_BLOCKS`], with their END.
const UNSUPPORTED: &[&str] = &[
    "ARPAGE",
    "ATMARPSV",
    "ATMLIS",
    "ATMPVC",
    "IPCONFIG6",
    "UDPCONFIG",
    "SACONFIG",
    "SMFCONFIG",
    "SMFPARMS",
    "TCPIPSTATISTICS",
    "ITRACE",
    "PKTTRACE",
    "PRIMARYINTERFACE",
    "INCLUDE",
    "DELETE",
    "STOP",
    "NETMONITOR",
    "DATASETPREFIX",
    "SOMAXCONN",
    "TRANSLATE",
    "KEEPALIVEOPTIONS",
    "PORT",
    "PORTRANGE",
    "ROUTETABLE",
    "DEFADDRTABLE",
    "SYSPLEXPORTS",
    "VIPABACKUP",
    "VIPARANGE",
    "VIPAROUTE",
    "SETSUBNETPRIOTOSMASK",
];

/// Unmodelled statements that open a block closed by an END statement
/// ("An END statement terminates a number of statements, such as AUTOLOG";
/// IP Configuration Reference, statement syntax): everything up to the END
/// belongs to the block.
const UNSUPPORTED_BLOCKS: &[(&str, &str)] = &[
    ("AUTOLOG", "ENDAUTOLOG"),
    ("BSDROUTINGPARMS", "ENDBSDROUTINGPARMS"),
    ("GATEWAY", "ENDGATEWAY"),
    ("IPSEC", "ENDIPSEC"),
    ("NETACCESS", "ENDNETACCESS"),
    ("SRCIP", "ENDSRCIP"),
];

/// Statement keywords that are also parameters of an unmodelled statement:
/// inside that statement, wherever they are coded, they are its parameters
/// and begin no statement (as GLOBALCONFIG TCPIPSTATISTICS is GLOBALCONFIG's
/// parameter). SMFCONFIG: TYPE118 and TYPE119 take TCPIPSTATISTICS, and its
/// parameters come in any order (IP Configuration Reference, SMFCONFIG
/// statement).
const UNSUPPORTED_PARAMS: &[(&str, &[&str])] = &[("SMFCONFIG", &["TCPIPSTATISTICS"])];

/// Is `tok` one of [`UNSUPPORTED_PARAMS`]'s parameters of the unmodelled
/// statement `stmt` (upper case)?
fn is_unsupported_param(stmt: &str, tok: &str) -> bool {
    UNSUPPORTED_PARAMS
        .iter()
        .filter(|(s, _)| *s == stmt)
        .any(|(_, params)| params.iter().any(|p| p.eq_ignore_ascii_case(tok)))
}

fn stmt_of(tok: &str) -> Option<Stmt> {
    find(STATEMENTS, tok).ok()
}

/// A statement softosa does not model: one of [`UNSUPPORTED`], or a block
/// of [`UNSUPPORTED_BLOCKS`] or its END.
fn is_unsupported(tok: &str) -> bool {
    UNSUPPORTED.iter().any(|u| u.eq_ignore_ascii_case(tok))
        || UNSUPPORTED_BLOCKS
            .iter()
            .any(|(b, e)| b.eq_ignore_ascii_case(tok) || e.eq_ignore_ascii_case(tok))
}

/// Is this token a statement keyword (a place where a new statement starts)?
fn starts_statement(tok: &str) -> bool {
    stmt_of(tok).is_some() || is_unsupported(tok)
}

/// Parse a profile. `file` is used in diagnostics. A leading byte order
/// mark is skipped; a profile with no statement at all is a warning (a
/// wrong or truncated file would otherwise pass as a stack with nothing
/// defined). Never panics.
pub fn parse_profile(file: &str, src: &str) -> (Profile, Diagnostics) {
    let mut toks = tokenize(src, &[';'], false);
    let seq = take_sequence_numbers(&mut toks);
    let mut p = Parser {
        toks: &toks,
        pos: 0,
        file,
        diags: Diagnostics::new(),
        prof: Profile {
            file: file.to_string(),
            ..Profile::default()
        },
        seen: Vec::new(),
        named: None,
        named_stmt: "",
        known_seen: false,
        unknown_first: Vec::new(),
        unmodelled_devices: Vec::new(),
        unmodelled_links: Vec::new(),
    };
    // A softosa scenario: its keys and comments may hold statement words
    // (a profile_text, 'INTERFACE' in a comment), so it is told by name.
    if file.to_ascii_lowercase().ends_with(".toml") && !toks.is_empty() {
        p.err(Span::new(1, 1), ErrorKind::ScenarioNotProfile);
        return (p.prof, p.diags);
    }
    if toks.is_empty() {
        p.warn(
            Span::default(),
            WarningKind::NothingDefined("profile", "it is empty or has only comments"),
        );
    }
    if let Some((first, lines)) = seq {
        p.err(first, ErrorKind::SequenceNumbers { lines });
    }
    p.note_system_symbols();
    p.run();
    p.settle_unknown();
    p.drop_unmodelled_references();
    (p.prof, p.diags)
}

/// Columns 73-80 of a numbered member (ISPF NUMBER ON) hold eight digits.
/// "Sequence numbers are not allowed" in a profile (IP Configuration
/// Reference, statement syntax): they are reported once, where the first
/// one is, and left out so that each is not also an unknown parameter.
/// Returns the first one's place and how many lines carry one.
fn take_sequence_numbers(toks: &mut Vec<Token>) -> Option<(Span, usize)> {
    let is_seq = |i: usize, t: &Token| {
        t.span.col == 73
            && t.text.len() == 8
            && t.text.bytes().all(|b| b.is_ascii_digit())
            && toks.get(i + 1).is_none_or(|n| n.span.line != t.span.line)
    };
    let at: Vec<usize> = toks
        .iter()
        .enumerate()
        .filter(|(i, t)| is_seq(*i, t))
        .map(|(i, _)| i)
        .collect();
    let first = toks.get(*at.first()?)?.span;
    let lines = at.len();
    // z/OS reads columns 73-80 like any other: a lone eight-digit value
    // that happens to start there in a profile of several lines is a value
    // (MTU 00001492). A numbered member has the numbers on every line.
    let token_lines = toks
        .windows(2)
        .filter(|w| w.first().map(|t| t.span.line) != w.get(1).map(|t| t.span.line))
        .count()
        + 1;
    if lines < 2 && token_lines > 1 {
        return None;
    }
    // In one pass (`at` is in order): removing them one at a time moved
    // every later token once per numbered line.
    let mut i = 0;
    toks.retain(|_| {
        let keep = at.binary_search(&i).is_err();
        i += 1;
        keep
    });
    Some((first, lines))
}

struct Parser<'a> {
    toks: &'a [Token],
    pos: usize,
    file: &'a str,
    diags: Diagnostics,
    prof: Profile,
    /// The not-modelled parameters read in the current statement (or
    /// ROUTE), by [`group`]: one coded again is a warning.
    seen: Vec<String>,
    /// The name of the current statement (an INTERFACE's, LINK's or
    /// DEVICE's, a ROUTE's destination), once it is read: the diagnostics
    /// about its parameters (a bad, missing, unknown or too briefly
    /// abbreviated one, one coded twice, one not modelled) say whose they
    /// are.
    named: Option<String>,
    /// The statement [`Parser::named`] names ("INTERFACE", "ROUTE", ...).
    named_stmt: &'static str,
    /// A statement softosa knows (or knows of) was met.
    known_seen: bool,
    /// Statement words not known (or abbreviated too far) met before any
    /// known one, with their errors: reported as they are once a known one
    /// follows, or as one error when none does (a file that is not a
    /// profile would otherwise give an error per line, each quoting the
    /// file).
    unknown_first: Vec<(Span, String, ErrorKind)>,
    /// Devices, and links and interfaces, of real z/OS types softosa does
    /// not model (MPCPTP, CTC, IPAQIDIO6, ...), upper case: skipped with a
    /// warning, and so are the entries that name them (they would
    /// otherwise name nothing): START names a device or an interface,
    /// HOME and ROUTE a link or an interface.
    unmodelled_devices: Vec<String>,
    unmodelled_links: Vec<String>,
}

/// DEVICE types of z/OS other than MPCIPA and VIRTUAL (IP Configuration
/// Reference, DEVICE and LINK statements), which softosa does not model.
const UNMODELLED_DEVICES: &[&str] = &[
    "ATM", "CDLC", "CLAW", "CTC", "HCH", "LCS", "MPCOSA", "MPCPTP", "SAMEHOST", "SNAIUCV",
    "SNALINK", "SNALU62", "X25NPSI",
];

/// LINK types of z/OS other than IPAQENET, IPAQIDIO and VIRTUAL.
const UNMODELLED_LINKS: &[&str] = &[
    "ATM",
    "CDLC",
    "CLAW",
    "CTC",
    "ETHERNET",
    "ETHEROR802.3",
    "802.3",
    "FDDI",
    "HCH",
    "IBMTR",
    "IPAQTR",
    "MPCPTP",
    "OSAENET",
    "OSAFDDI",
    "SAMEHOST",
    "X25NPSI",
];

/// INTERFACE types of z/OS other than IPAQENET, IPAQENET6, IPAQIDIO and
/// VIRTUAL/VIRTUAL6.
const UNMODELLED_INTERFACES: &[&str] = &["IPAQIDIO6", "MPCPTP6", "LOOPBACK6"];

/// Unknown statements, and none known, from which a file is said not to be
/// a profile rather than listed statement by statement.
const NOT_A_PROFILE_AFTER: usize = 2;
/// The most of a statement word quoted when the file is not a profile.
const QUOTED_WORD_MAX: usize = 24;

// ---- parameter tables -------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IP {
    Define,
    IpAddr,
    PortName,
    ChpidType,
    Chpid,
    Mtu,
    VlanId,
    Vmac,
    /// A word of the INBPERF setting (see [`InbPerfWord`]).
    InbPerf(InbPerfWord),
    Olm,
    NoOlm,
    ReadStorage,
    PriRouter,
    SecRouter,
    NonRouter,
    Isolate,
    NoIsolate,
    SourceVipa,
    SecClass,
    MonSysplex,
    NoMonSysplex,
    IpBcast,
    DynVlanReg,
    NoDynVlanReg,
}

const INTF_PARAMS: &[(Keyword, IP)] = &[
    (kw("DEFINE"), IP::Define),
    (kw("IPADDR"), IP::IpAddr),
    (kw("PORTNAME"), IP::PortName),
    (kw("CHPIDTYPE"), IP::ChpidType),
    (kw("CHPID"), IP::Chpid),
    (kw("MTU"), IP::Mtu),
    (kw("VLANID"), IP::VlanId),
    (kw("VMAC"), IP::Vmac),
    (kw("INBPERF"), IP::InbPerf(InbPerfWord::Mode)),
    (kw("WORKLOADQ"), IP::InbPerf(InbPerfWord::WorkloadQ(true))),
    (
        kw("NOWORKLOADQ"),
        IP::InbPerf(InbPerfWord::WorkloadQ(false)),
    ),
    (kw("OLM"), IP::Olm),
    (kw("NOOLM"), IP::NoOlm),
    (kw("READSTORAGE"), IP::ReadStorage),
    (kw("PRIROUTER"), IP::PriRouter),
    (kw("SECROUTER"), IP::SecRouter),
    (kw("NONROUTER"), IP::NonRouter),
    (kw("ISOLATE"), IP::Isolate),
    (kw("NOISOLATE"), IP::NoIsolate),
    (kw("SOURCEVIPAINTerface"), IP::SourceVipa),
    (kw("SECCLASS"), IP::SecClass),
    (kw("MONSYSPLEX"), IP::MonSysplex),
    (kw("NOMONSYSPLEX"), IP::NoMonSysplex),
    (kw("IPBCAST"), IP::IpBcast),
    (kw("DYNVLANREG"), IP::DynVlanReg),
    (kw("NODYNVLANREG"), IP::NoDynVlanReg),
];

/// The name of an INTERFACE or LINK parameter, as IBM spells it.
fn intf_param_name(p: IP) -> &'static str {
    INTF_PARAMS
        .iter()
        .find(|(_, v)| *v == p)
        .map(|(k, _)| k.doc)
        .unwrap_or("this parameter")
}

/// `INTERFACE name DELEte` (in place of DEFINE).
const INTERFACE_DELETE: Keyword = kw("DELEte");

/// `INTERFACE name ADDADDR ipv6_addr ...`.
const INTERFACE_ADDADDR: Keyword = kw("ADDADDR");
/// `INTERFACE name DELADDR ipv6_addr ...`.
const INTERFACE_DELADDR: Keyword = kw("DELADDR");

/// The forms of INTERFACE that change an IPv6 interface's addresses and
/// prefixes, in place of DEFINE.
const INTERFACE_MODIFY: &[Keyword] = &[
    INTERFACE_ADDADDR,
    INTERFACE_DELADDR,
    kw("DEPRADDR"),
    kw("ADDTEMPPREFIX"),
    kw("DELTEMPPREFIX"),
];

const KINDS: &[(Keyword, InterfaceKind)] = &[
    (kw("IPAQENET"), InterfaceKind::IpaqEnet),
    (kw("IPAQENET6"), InterfaceKind::IpaqEnet6),
    (kw("IPAQIDIO"), InterfaceKind::IpaqIdio),
];

/// The INBPERF setting of INTERFACE and LINK (spec 5.1): `INBPERF BALANCED |
/// DYNAMIC [WORKLOADQ | NOWORKLOADQ] | MINCPU | MINLATENCY`. Its words are
/// the parameters INBPERF (with one of [`INBPERFS`]) and WORKLOADQ /
/// NOWORKLOADQ, which are read wherever they are coded on the statement
/// (validation holds WORKLOADQ to INBPERF DYNAMIC, a VMAC and INTERFACE);
/// [`Parser::inbperf`] reads them for both statements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InbPerfWord {
    /// `INBPERF mode`.
    Mode,
    /// WORKLOADQ (true) or NOWORKLOADQ (false).
    WorkloadQ(bool),
}

/// What a second WORKLOADQ or NOWORKLOADQ on one statement does: on
/// INTERFACE a warning that the last is used, on LINK (which takes its
/// switches without one) just the last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Again {
    Warn,
    Replace,
}

/// The modes of INBPERF.
const INBPERFS: &[(Keyword, InbPerf)] = &[
    (kw("BALANCED"), InbPerf::Balanced),
    (kw("DYNAMIC"), InbPerf::Dynamic),
    (kw("MINCPU"), InbPerf::MinCpu),
    (kw("MINLATENCY"), InbPerf::MinLatency),
];

const READSTORAGES: &[(Keyword, ReadStorage)] = &[
    (kw("GLOBAL"), ReadStorage::Global),
    (kw("MAX"), ReadStorage::Max),
    (kw("AVG"), ReadStorage::Avg),
    (kw("MIN"), ReadStorage::Min),
];

const CHPIDTYPES: &[(Keyword, ChpidType)] =
    &[(kw("OSD"), ChpidType::Osd), (kw("OSX"), ChpidType::Osx)];

const ROUTERS: &[(Keyword, RouterRole)] = &[
    (kw("PRIROUTER"), RouterRole::PriRouter),
    (kw("SECROUTER"), RouterRole::SecRouter),
    (kw("NONROUTER"), RouterRole::NonRouter),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GP {
    Seg,
    NoSeg,
    IqdMw,
    NoIqdMw,
    Ziip,
    Wlm,
    NoWlm,
    Smcr,
    NoSmcr,
    Smcd,
    NoSmcd,
}

const GLOBAL_PARAMS: &[(Keyword, GP)] = &[
    (kw("SEGMENTATIONOFFLoad"), GP::Seg),
    (kw("NOSEGMENTATIONOFFLoad"), GP::NoSeg),
    (kw("IQDMULTIWRITE"), GP::IqdMw),
    (kw("NOIQDMULTIWRITE"), GP::NoIqdMw),
    (kw("ZIIP"), GP::Ziip),
    (kw("WLMPRIORITYQ"), GP::Wlm),
    (kw("NOWLMPRIORITYQ"), GP::NoWlm),
    (kw("SMCR"), GP::Smcr),
    (kw("NOSMCR"), GP::NoSmcr),
    (kw("SMCD"), GP::Smcd),
    (kw("NOSMCD"), GP::NoSmcd),
];

/// The options of GLOBALCONFIG SMCR and SMCD (IP Configuration Reference,
/// GLOBALCONFIG statement, "SMCR options" and "SMCD options"; SMCD has only
/// the last two: its ISM functions are found, not defined).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SmcOpt {
    Pfid,
    PortNum,
    Mtu,
    FixedMemory,
    TcpKeep,
}

const SMC_OPTIONS: &[(Keyword, SmcOpt)] = &[
    (kw("PFID"), SmcOpt::Pfid),
    (kw("PORTNum"), SmcOpt::PortNum),
    (kw("MTU"), SmcOpt::Mtu),
    (kw("FIXEDMemory"), SmcOpt::FixedMemory),
    (kw("TCPKEEPmininterval"), SmcOpt::TcpKeep),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ZP {
    IqdioMw,
    NoIqdioMw,
    IpSec,
    NoIpSec,
}

const ZIIP_PARAMS: &[(Keyword, ZP)] = &[
    (kw("IQDIOMULTIWRITE"), ZP::IqdioMw),
    (kw("NOIQDIOMULTIWRITE"), ZP::NoIqdioMw),
    (kw("IPSECURITY"), ZP::IpSec),
    (kw("NOIPSECURITY"), ZP::NoIpSec),
];

/// Parameters of TCPCONFIG that softosa models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TP {
    SendBuf,
    RcvBuf,
    MaxRcvBuf,
    MaxSendBuf,
    Delay,
    NoDelay,
    AutoDelay,
    Frr,
    TimeWait,
}

/// TCPCONFIG (IP Configuration Reference, TCPCONFIG statement; the
/// shortest forms are its syntax diagram's capitals).
const TCPCONFIG_PARAMS: &[(Keyword, TP)] = &[
    (kw("TCPSENDBfrsize"), TP::SendBuf),
    (kw("TCPRCVBufrsize"), TP::RcvBuf),
    (kw("TCPMAXRCVBufrsize"), TP::MaxRcvBuf),
    (kw("TCPMAXSENDBufrsize"), TP::MaxSendBuf),
    (kw("DELAYAcks"), TP::Delay),
    (kw("NODELAYAcks"), TP::NoDelay),
    (kw("AUTODELAYAcks"), TP::AutoDelay),
    (kw("FRRTHReshold"), TP::Frr),
    (kw("TIMEWAITInterval"), TP::TimeWait),
];

/// The longest TIMEWAITINTERVAL, seconds (IP Configuration Reference,
/// TCPCONFIG: 0 to 120, default 60).
const TIME_WAIT_MAX_S: u32 = 120;

/// The smallest TCP buffer size z/OS takes, bytes (IBM Health Checker for
/// z/OS, CSTCP_TCPMAXRCVBUFRSIZE: "256 to 512K").
const TCP_BUF_MIN: u32 = 256;
/// The largest TCPMAXRCVBUFRSIZE (same source; "Networking on z/OS":
/// "The maximum is 512 KB").
const TCP_MAX_RCV_BUF_MAX: u32 = 512 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CP {
    Fwd,
    NoFwd,
    Accel,
    NoAccel,
    Iqdr,
    NoIqdr,
    QdioPri,
    Xcf,
    NoXcf,
    IpSec,
    Seg,
    NoSeg,
}

const IPCONFIG_PARAMS: &[(Keyword, CP)] = &[
    (kw("DATAGRamfwd"), CP::Fwd),
    (kw("NODATAGRamfwd"), CP::NoFwd),
    (kw("QDIOACCELerator"), CP::Accel),
    (kw("NOQDIOACCELerator"), CP::NoAccel),
    (kw("IQDIORouting"), CP::Iqdr),
    (kw("NOIQDIORouting"), CP::NoIqdr),
    (kw("QDIOPriority"), CP::QdioPri),
    (kw("DYNAMICXCF"), CP::Xcf),
    (kw("NODYNAMICXCF"), CP::NoXcf),
    (kw("IPSECURITY"), CP::IpSec),
    (kw("SEGMENTATIONOFFLoad"), CP::Seg),
    (kw("NOSEGMENTATIONOFFLoad"), CP::NoSeg),
];

/// Parameters of a ROUTE in BEGINROUTES that softosa models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RP {
    Mtu,
    Repl,
    NoRepl,
}

/// REPL is how IBM's own static route examples code REPLACEABLE (IP
/// Configuration Guide, static route configuration examples: `MTU 5000
/// REPL`); NOREPLaceable takes the same minimum after NO, as every z/OS NO
/// form does (NOSEGMENTATIONOFFLoad, NODATAGRamfwd, NOTCPIPStatistics, ...).
const ROUTE_PARAMS: &[(Keyword, RP)] = &[
    (kw("MTU"), RP::Mtu),
    (kw("REPLaceable"), RP::Repl),
    (kw("NOREPLaceable"), RP::NoRepl),
];

fn find<T: Copy>(table: &[(Keyword, T)], tok: &str) -> Result<T, Option<Keyword>> {
    match lookup(table.iter().copied(), tok) {
        Lookup::Found(v) => Ok(v),
        Lookup::TooShort(k) => Err(Some(k)),
        Lookup::NotFound => Err(None),
    }
}

fn keyword_list<T>(table: &[(Keyword, T)]) -> String {
    table
        .iter()
        .map(|(k, _)| k.full_upper())
        .collect::<Vec<_>>()
        .join(" | ")
}

// ---- real parameters softosa does not model ---------------------------
//
// z/OS statements softosa reads carry many parameters that softosa does not
// model (IP Configuration Reference, the statement's syntax diagram). Those
// whose values softosa can check are read (their values checked for count
// and form, and for range only where the range below was confirmed from
// IBM's pages: ARPTO, SECCLASS), reported as a warning and ignored. Those
// whose values softosa cannot check are an error that says so, not an
// "unknown parameter".

/// The form of one value of a parameter softosa does not model.
#[derive(Debug, Clone, Copy)]
enum Val {
    /// A decimal number of up to 9 digits (see [`parse_dec`]) in
    /// `min..=max`: IBM's documented range, or 0 to [`ANY`] where softosa
    /// has none confirmed.
    Num {
        min: u32,
        max: u32,
        expected: &'static str,
    },
    /// A decimal number with up to three decimal places (`120`, `0.125`),
    /// as the TCP retransmission settings are coded.
    Decimal(&'static str),
    /// An IPv4 address in dotted decimal.
    Ipv4(&'static str),
    /// One of these keywords.
    Kw(&'static [Keyword], &'static str),
    /// Optionally one of these keywords.
    OptKw(&'static [Keyword]),
    /// A 64-bit interface identifier: four groups of 1-4 hexadecimal digits
    /// separated by colons (`0:16:207:3`).
    IntfId,
    /// A device number: 1-4 hexadecimal digits.
    DevNum,
    /// A storage size: a decimal number followed by K or M (`2048K`, `200M`).
    SizeKm(&'static str),
    /// A decimal number, or the word given (`*` for no limit, `SMF`).
    NumOr(&'static str, &'static str),
    /// A time of day `hh:mm` (two digits each).
    Time(&'static str),
    /// A name of 1-16 characters (an interface name).
    Name(&'static str),
    /// An IPv6 prefix `prefix/length` (length 1-128), or ALL or NONE.
    V6PrefixOrAll,
}

/// No upper bound beyond what [`parse_dec`] reads.
const ANY: u32 = u32::MAX;

/// A number whose range softosa has not confirmed: its form is checked.
const fn num(expected: &'static str) -> Val {
    Val::Num {
        min: 0,
        max: ANY,
        expected,
    }
}

impl Val {
    fn expected(self) -> &'static str {
        match self {
            Val::Num { expected, .. }
            | Val::Decimal(expected)
            | Val::Ipv4(expected)
            | Val::Kw(_, expected)
            | Val::SizeKm(expected)
            | Val::NumOr(_, expected)
            | Val::Time(expected)
            | Val::Name(expected) => expected,
            Val::OptKw(_) => "an optional keyword",
            Val::IntfId => {
                "an interface identifier: four groups of 1-4 hexadecimal digits separated by colons, e.g. 0:16:207:3"
            }
            Val::DevNum => "a device number of 1-4 hexadecimal digits, e.g. 2B70",
            Val::V6PrefixOrAll => "ALL, NONE or an IPv6 prefix/length, e.g. 2001:db8::/64",
        }
    }

    /// Is `s` a value of this form? (Keyword values are matched apart.)
    fn accepts(self, s: &str) -> bool {
        let hex =
            |g: &str| !g.is_empty() && g.len() <= 4 && g.bytes().all(|b| b.is_ascii_hexdigit());
        match self {
            Val::Num { min, max, .. } => parse_dec(s).is_some_and(|n| (min..=max).contains(&n)),
            Val::Decimal(_) => {
                let (int, frac) = s.split_once('.').unwrap_or((s, "0"));
                parse_dec(int).is_some()
                    && !frac.is_empty()
                    && frac.len() <= 3
                    && frac.bytes().all(|b| b.is_ascii_digit())
            }
            Val::Ipv4(_) => parse_ipv4(s).is_some(),
            Val::Kw(..) | Val::OptKw(_) => false,
            Val::IntfId => {
                let groups: Vec<&str> = s.split(':').collect();
                groups.len() == 4 && groups.iter().all(|g| hex(g))
            }
            Val::DevNum => hex(s),
            Val::SizeKm(_) => {
                let n = s.len();
                n > 1
                    && s.get(n - 1..)
                        .is_some_and(|u| u.eq_ignore_ascii_case("K") || u.eq_ignore_ascii_case("M"))
                    && s.get(..n - 1).and_then(parse_dec).is_some()
            }
            Val::NumOr(word, _) => s.eq_ignore_ascii_case(word) || parse_dec(s).is_some(),
            Val::Time(_) => {
                let two = |d: &str| d.len() == 2 && d.bytes().all(|b| b.is_ascii_digit());
                s.split_once(':').is_some_and(|(h, m)| two(h) && two(m))
            }
            Val::Name(_) => (1..=16).contains(&s.chars().count()),
            Val::V6PrefixOrAll => {
                s.eq_ignore_ascii_case("ALL")
                    || s.eq_ignore_ascii_case("NONE")
                    || s.split_once('/').is_some_and(|(a, l)| {
                        a.parse::<std::net::Ipv6Addr>().is_ok()
                            && parse_dec(l).is_some_and(|n| (1..=128).contains(&n))
                    })
            }
        }
    }
}

/// A real parameter softosa does not model: its keyword as documented, and
/// the values that follow it. Messages name it by its full keyword, after
/// the parameter it follows for a sub-parameter (`DYNAMICXCF SECCLASS`).
#[derive(Debug)]
struct Other {
    kw: Keyword,
    values: &'static [Val],
}

const fn other(doc: &'static str, values: &'static [Val]) -> Other {
    Other {
        kw: kw(doc),
        values,
    }
}

impl Other {
    /// Its name in messages; `after`: the parameter a sub-parameter follows.
    fn name(&self, after: Option<&str>) -> String {
        match after {
            Some(a) => format!("{a} {}", self.kw.full_upper()),
            None => self.kw.full_upper(),
        }
    }
}

/// Parameters that are valid only right after `after`: a parameter, with
/// the option it took where that option is what allows them (DATAGRAMFWD's
/// and DYNAMICXCF's on IPCONFIG, ZERT AGGREGATION's on GLOBALCONFIG).
struct SubParams {
    after: &'static str,
    params: &'static [Other],
}

/// The real parameters of one statement that softosa does not model:
/// `other` ones it reads and ignores (`subs` only in their place),
/// `unsupported` ones it cannot check.
struct OtherParams {
    other: &'static [Other],
    subs: &'static [SubParams],
    unsupported: &'static [Keyword],
}

/// Every parameter of one statement: those softosa models, and the real
/// ones it does not. A word that is one of them is never taken as the value
/// of another parameter.
struct Params<T: 'static> {
    stmt: &'static str,
    modelled: &'static [(Keyword, T)],
    others: &'static OtherParams,
    /// Where the statement ends.
    end: fn(&str) -> bool,
}

const PER: &[Keyword] = &[kw("PERConnection"), kw("PERPacket")];
const IQD_TRAFFIC: &[Keyword] = &[kw("ALLTRAFFIC"), kw("NOLARGEDATA")];

/// IPCONFIG (IP Configuration Reference, IPCONFIG statement). The
/// sub-parameters of DATAGRAMFWD and DYNAMICXCF are read with them.
const IPCONFIG_OTHER: OtherParams = OtherParams {
    other: &[
        other(
            "ARPTO",
            &[Val::Num {
                min: 60,
                max: 86400,
                expected: "seconds, 60-86400",
            }],
        ),
        other("CHECKSUMOFFLoad", &[]),
        other("NOCHECKSUMOFFLoad", &[]),
        other("DEVRETRYDURation", &[num("a number of seconds")]),
        other(
            "FORMat",
            &[Val::Kw(&[kw("LONG"), kw("SHORT")], "LONG or SHORT")],
        ),
        other("IGNORERedirect", &[]),
        other("MULTIPATH", &[Val::OptKw(PER)]),
        other("NOMULTIPATH", &[]),
        other("PATHMTUDISCovery", &[]),
        other("NOPATHMTUDISCovery", &[]),
        other("REASSEMBLytimeout", &[num("a number of seconds")]),
        other("SOURCEVIPA", &[]),
        other("NOSOURCEVIPA", &[]),
        other("SYSPLEXRouting", &[]),
        other("NOSYSPLEXRouting", &[]),
        other(
            "TCPSTACKSOURCEVipa",
            &[Val::Ipv4("the IPv4 address of a VIPA, e.g. 10.1.9.1")],
        ),
        other("NOTCPSTACKSOURCEVipa", &[]),
        other("TTL", &[num("a time to live (hop count)")]),
    ],
    subs: &[
        SubParams {
            after: "DATAGRAMFWD",
            params: DATAGRAMFWD_OTHER,
        },
        SubParams {
            after: "DYNAMICXCF",
            params: DYNAMICXCF_OTHER,
        },
    ],
    unsupported: &[],
};

/// The parameters that may follow DYNAMICXCF's cost metric (IPCONFIG
/// statement, DYNAMICXCF).
const DYNAMICXCF_OTHER: &[Other] = &[
    other(
        "SECCLASS",
        &[Val::Num {
            min: 1,
            max: 255,
            expected: "a security class 1-255",
        }],
    ),
    other("SMCD", &[]),
    other("NOSMCD", &[]),
    other(
        "SOURCEVIPAINTerface",
        &[Val::Name(
            "the name of a static VIPA interface, 1-16 characters",
        )],
    ),
];

/// The parameters that may follow DATAGRAMFWD (IPCONFIG statement):
/// NOFWDMULTIPATH, or FWDMULTIPATH PERPACKET.
const DATAGRAMFWD_OTHER: &[Other] = &[
    other("NOFWDMULTipath", &[]),
    other("FWDMULTipath", &[Val::Kw(&[kw("PERPacket")], "PERPACKET")]),
];

/// GLOBALCONFIG (IP Configuration Reference, GLOBALCONFIG statement). ZERT
/// as its syntax diagram has it (z/OS 3.2): `ZERT [NOAGGregation |
/// AGGregation [INTVAL SMF | INTVAL intval] [SYNCVAL hh:mm]]`; SAMPPROF's
/// example is `GLOBALCONFIG ZERT AGGREGATION`.
const GLOBALCONFIG_OTHER: OtherParams = OtherParams {
    other: &[
        other(
            "ADJUSTDVipamss",
            &[Val::Kw(
                &[kw("AUTO"), kw("ALL"), kw("NONE")],
                "AUTO, ALL or NONE",
            )],
        ),
        other("AUTOIQDC", &[Val::OptKw(IQD_TRAFFIC)]),
        other("NOAUTOIQDC", &[]),
        other("AUTOIQDX", &[Val::OptKw(IQD_TRAFFIC)]),
        other("NOAUTOIQDX", &[]),
        other("ECSALimit", &[Val::SizeKm("a size in K or M, e.g. 2048M")]),
        other(
            "EXPLICITBINDPORTRANGE",
            &[
                num("the first port of the range"),
                num("the number of ports"),
            ],
        ),
        other("NOEXPLICITBINDPORTRANGE", &[]),
        other("IQDVLANid", &[num("a VLAN id")]),
        other(
            "MAXRECS",
            &[Val::NumOr("*", "a number of records, or * for no limit")],
        ),
        other("MLSCHKTERMinate", &[]),
        other("NOMLSCHKTERMinate", &[]),
        other("POOLLimit", &[Val::SizeKm("a size in K or M, e.g. 512M")]),
        other("SYSPLEXWLMPoll", &[num("a number of seconds")]),
        other("TCPIPStatistics", &[]),
        other("NOTCPIPStatistics", &[]),
        other("XCFGRPid", &[num("a sysplex group id suffix")]),
        other("NOZERT", &[]),
        other("SMCGlobal", &[]),
        other(
            "ZERT",
            &[Val::OptKw(&[kw("AGGregation"), kw("NOAGGregation")])],
        ),
        other("SYSPLEXMONitor", &[]),
    ],
    subs: &[
        // GLOBALCONFIG statement, SYSPLEXMONITOR's sub-parameters: the
        // sysplex autonomics softosa has no sysplex for.
        SubParams {
            after: "SYSPLEXMONITOR",
            params: &[
                other("DELAYJOIN", &[]),
                other("NODELAYJOIN", &[]),
                other("RECOVERY", &[]),
                other("NORECOVERY", &[]),
                other(
                    "TIMERSECS",
                    &[Val::Num {
                        min: 10,
                        max: 3600,
                        expected: "a number of seconds, 10-3600",
                    }],
                ),
                other("AUTOREJOIN", &[]),
                other("NOAUTOREJOIN", &[]),
                other("MONINTERFACE", &[]),
                other("NOMONINTERFACE", &[]),
                other("DYNROUTE", &[]),
                other("NODYNROUTE", &[]),
                other("JOIN", &[]),
                other("NOJOIN", &[]),
            ],
        },
        SubParams {
            after: "ZERT AGGREGATION",
            params: &[
                other(
                    "INTVAL",
                    &[Val::NumOr("SMF", "SMF, or a recording interval (a number)")],
                ),
                other("SYNCVAL", &[Val::Time("a time of day hh:mm, e.g. 00:00")]),
            ],
        },
        // GLOBALCONFIG statement, V2R3 syntax diagram: SMCGlobal, then
        // AUTOCACHE or NOAUTOCACHE and AUTOSMC or NOAUTOSMC.
        SubParams {
            after: "SMCGLOBAL",
            params: &[
                other("AUTOCACHE", &[]),
                other("NOAUTOCACHE", &[]),
                other("AUTOSMC", &[]),
                other("NOAUTOSMC", &[]),
            ],
        },
    ],
    unsupported: &[kw("AIASSIST"), kw("IKEDREQuired"), kw("POLICYREQuired")],
};

/// The IPv6 interface identifier (INTERFACE - IPAQENET6 statement):
/// IPAQENET6 only.
const INTFID: Other = other("INTFID", &[Val::IntfId]);

/// Duplicate address detection attempts, and the prefixes temporary
/// (privacy) addresses are made for (INTERFACE - IPAQENET6 statement):
/// IPAQENET6 only. DUPADDRDET's range is not confirmed: its form is
/// checked.
const DUPADDRDET: Other = other(
    "DUPADDRDET",
    &[num(
        "a number of duplicate address detection attempts, e.g. 1",
    )],
);
const TEMPPREFIX: Other = other("TEMPPREFIX", &[Val::V6PrefixOrAll]);

/// TEMPIP, coded in place of IPADDR: the interface starts with the address
/// 0.0.0.0 (IP Configuration Guide, "Using TEMPIP interfaces": "Define an
/// interface with the TEMPIP parameter instead of the IPADDR parameter";
/// "can be configured only on the IPv4 IPAQENET OSA-Express QDIO
/// INTERFACE statement"). It takes no value.
const TEMPIP: Other = other("TEMPIP", &[]);

/// INTERFACE (IP Configuration Reference, INTERFACE - IPAQENET6 statement;
/// DEVNUM, SMCR and SMCD from IBM's z/OS Communications Server Network
/// Express presentation, support page 7231685; the form of SMCR's and
/// SMCD's values on INTERFACE is not confirmed, so they stay unsupported).
const INTERFACE_OTHER: OtherParams = OtherParams {
    other: &[
        INTFID,
        DUPADDRDET,
        TEMPPREFIX,
        other("DEVNUM", &[Val::DevNum]),
        TEMPIP,
    ],
    subs: &[],
    unsupported: &[kw("SMCR"), kw("SMCD")],
};

/// ROUTE of a BEGINROUTES block: the per-route TCP settings (their names
/// and their one value each as the TCP/IP profile SMF record's routing
/// section carries them; DELAYACKS on BEGINROUTES from the TCPCONFIG
/// statement). Abbreviations not confirmed: coded in full.
const ROUTE_OTHER: OtherParams = OtherParams {
    other: &[
        other("DELAYACKS", &[]),
        other("NODELAYACKS", &[]),
        other(
            "MAXIMUMRETRANSMITTIME",
            &[Val::Decimal("seconds, e.g. 120 or 0.5")],
        ),
        other(
            "MINIMUMRETRANSMITTIME",
            &[Val::Decimal("seconds, e.g. 0.5")],
        ),
        other(
            "ROUNDTRIPGAIN",
            &[Val::Decimal("a decimal gain, e.g. 0.125")],
        ),
        other("VARIANCEGAIN", &[Val::Decimal("a decimal gain, e.g. 0.25")]),
        other(
            "VARIANCEMULTIPLIER",
            &[Val::Decimal("a decimal multiplier, e.g. 2.0")],
        ),
    ],
    subs: &[],
    unsupported: &[],
};

/// What a token is among a statement's parameters.
enum ParamKind<T> {
    Modelled(T),
    NotModelled(NotModelled),
}

/// A token that is no parameter softosa models on the statement.
enum NotModelled {
    /// A real parameter softosa reads and ignores.
    Other(&'static Other),
    /// One valid only right after another one.
    Sub(&'static SubParams, &'static Other),
    /// A real parameter whose values softosa cannot check.
    Unsupported(Keyword),
    /// Too short an abbreviation of a parameter of any of those kinds.
    TooShort(Keyword),
    Unknown,
}

impl<T> ParamKind<T> {
    /// A parameter of the statement, of any kind (spelled in full or
    /// abbreviated far enough)?
    fn is_param(&self) -> bool {
        !matches!(
            self,
            ParamKind::NotModelled(NotModelled::TooShort(_) | NotModelled::Unknown)
        )
    }
}

impl<T: Copy> Params<T> {
    fn kind(&self, tok: &str) -> ParamKind<T> {
        let o = self.others;
        let not = ParamKind::NotModelled;
        let all = self
            .modelled
            .iter()
            .map(|(k, v)| (*k, ParamKind::Modelled(*v)))
            .chain(o.other.iter().map(|x| (x.kw, not(NotModelled::Other(x)))))
            .chain(o.subs.iter().flat_map(|sp| {
                sp.params
                    .iter()
                    .map(move |x| (x.kw, not(NotModelled::Sub(sp, x))))
            }))
            .chain(
                o.unsupported
                    .iter()
                    .map(|k| (*k, not(NotModelled::Unsupported(*k)))),
            );
        match lookup(all, tok) {
            Lookup::Found(kind) => kind,
            Lookup::TooShort(k) => not(NotModelled::TooShort(k)),
            Lookup::NotFound => not(NotModelled::Unknown),
        }
    }

    /// Does the statement end before `tok`, of kind `k` (its [`kind`],
    /// looked up once by the caller)? At the next statement, unless `tok`
    /// is a parameter of this one: GLOBALCONFIG TCPIPSTATISTICS is
    /// GLOBALCONFIG's parameter, not the TCPIPSTATISTICS statement.
    ///
    /// [`kind`]: Params::kind
    fn ends_at(&self, tok: &str, k: &ParamKind<T>) -> bool {
        !k.is_param() && (self.end)(tok)
    }

    /// Can `tok`, of kind `k`, not be a value of the form `v` here: it is
    /// the next statement, a parameter of this one, or too short an
    /// abbreviation of one that is no value of that form either?
    fn not_a_value(&self, tok: &str, k: &ParamKind<T>, v: Val) -> bool {
        self.ends_at(tok, k)
            || match k {
                ParamKind::NotModelled(NotModelled::Unknown) => false,
                ParamKind::NotModelled(NotModelled::TooShort(_)) => !v.accepts(tok),
                _ => true,
            }
    }
}

/// What a parameter `o` of `list` is called when it is coded twice: a
/// parameter and its NO form are one setting (SOURCEVIPA/NOSOURCEVIPA), as
/// WORKLOADQ and NOWORKLOADQ are.
fn group(list: &[Other], o: &Other) -> String {
    let full = o.kw.full_upper();
    let has = |w: &str| list.iter().any(|x| x.kw.full_upper() == w);
    let pos = match full.strip_prefix("NO") {
        Some(p) if has(p) => p.to_string(),
        _ => full.clone(),
    };
    let neg = format!("NO{pos}");
    if has(&neg) {
        format!("{pos}/{neg}")
    } else {
        pos
    }
}

const INTERFACE_P: Params<IP> = Params {
    stmt: "INTERFACE",
    modelled: INTF_PARAMS,
    others: &INTERFACE_OTHER,
    end: starts_statement,
};

/// LINK: the INTERFACE parameters it shares (those that belong on
/// INTERFACE or DEVICE only are refused where they are read).
const LINK_P: Params<IP> = Params {
    stmt: "LINK",
    modelled: INTF_PARAMS,
    others: &OtherParams {
        other: &[],
        subs: &[],
        unsupported: &[],
    },
    end: starts_statement,
};

/// TCPCONFIG's parameters that softosa reads and ignores. Ranges from the
/// IP Configuration Reference where it gives them (CONNECTINITINTERVAL,
/// CONNECTTIMEOUT); the rest are checked for form only.
const TCPCONFIG_OTHER: OtherParams = OtherParams {
    other: &[
        other(
            "CONNECTInitinterval",
            &[Val::Num {
                min: 100,
                max: 3000,
                expected: "milliseconds, 100-3000",
            }],
        ),
        other(
            "CONNECTTimeout",
            &[Val::Num {
                min: 5,
                max: 190,
                expected: "seconds, 5-190",
            }],
        ),
        other(
            "EPHEMERALPORTS",
            &[num("the lowest port"), num("the highest port")],
        ),
        other("FINWait2time", &[num("a number of seconds")]),
        other("INTerval", &[num("the keepalive interval in minutes")]),
        other("KEEPALIVEPROBEInterval", &[num("a number of seconds")]),
        other("KEEPALIVEPROBES", &[num("a number of probes")]),
        other(
            "MAXImumretransmittime",
            &[Val::Decimal("seconds, e.g. 120 or 0.5")],
        ),
        other("NAGLE", &[]),
        other("NONAGLE", &[]),
        other("QUEUEDrtt", &[num("a number of milliseconds")]),
        other("RESTRICTLowports", &[]),
        other("UNRESTRICTLowports", &[]),
        other("RETRANSMITAttempts", &[num("a number of retransmissions")]),
        other("SELECTIVEACK", &[]),
        other("NOSELECTIVEACK", &[]),
        other(
            "SENDGarbage",
            &[Val::Kw(&[kw("TRUE"), kw("FALSE")], "TRUE or FALSE")],
        ),
        other("TCPTIMEstamp", &[]),
        other("NOTCPTIMEstamp", &[]),
        other("TTLS", &[]),
        other("NOTTLS", &[]),
    ],
    subs: &[],
    unsupported: &[],
};

const TCPCONFIG_P: Params<TP> = Params {
    stmt: "TCPCONFIG",
    modelled: TCPCONFIG_PARAMS,
    others: &TCPCONFIG_OTHER,
    end: starts_statement,
};

const GLOBALCONFIG_P: Params<GP> = Params {
    stmt: "GLOBALCONFIG",
    modelled: GLOBAL_PARAMS,
    others: &GLOBALCONFIG_OTHER,
    end: starts_statement,
};

const IPCONFIG_P: Params<CP> = Params {
    stmt: "IPCONFIG",
    modelled: IPCONFIG_PARAMS,
    others: &IPCONFIG_OTHER,
    end: starts_statement,
};

const ROUTE_P: Params<RP> = Params {
    stmt: "ROUTE",
    modelled: ROUTE_PARAMS,
    others: &ROUTE_OTHER,
    end: Parser::route_end,
};

// ---- value helpers (also used by the TRLE and policy readers) ----------

/// Parse `a.b.c.d` strictly (four decimal octets).
pub fn parse_ipv4(s: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    let mut o = [0u8; 4];
    for (i, p) in parts.iter().enumerate() {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *o.get_mut(i)? = p.parse().ok()?;
    }
    Some(Ipv4Addr::from(o))
}

/// Parse an IPv4 or IPv6 address.
pub fn parse_ip(s: &str) -> Option<IpAddr> {
    if let Some(v4) = parse_ipv4(s) {
        return Some(IpAddr::V4(v4));
    }
    if s.contains(':') {
        return s.parse::<std::net::Ipv6Addr>().ok().map(IpAddr::V6);
    }
    None
}

/// Prefix length of a contiguous dotted subnet mask (`255.255.255.0` → 24).
pub fn mask_to_prefix(mask: Ipv4Addr) -> Option<u8> {
    let m = u32::from(mask);
    let ones = m.leading_ones();
    if m.checked_shl(ones).unwrap_or(0) != 0 {
        return None;
    }
    u8::try_from(ones).ok()
}

/// Parse `addr` or `addr/len`.
pub fn parse_prefix(s: &str) -> Result<IpPrefix, String> {
    let (a, p) = match s.split_once('/') {
        Some((a, p)) => (a, Some(p)),
        None => (s, None),
    };
    let addr = parse_ip(a).ok_or_else(|| "expected an IP address".to_string())?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    let prefix = match p {
        None => None,
        Some(p) => {
            let n: u8 = p.parse().ok().filter(|n| *n <= max).ok_or_else(|| {
                // A dotted mask after the slash: say what to write instead.
                match parse_ipv4(p).map(mask_to_prefix) {
                    Some(Some(n)) => format!(
                        "a prefix length 0-{max} follows the /, not a subnet mask: write {a}/{n}"
                    ),
                    Some(None) => format!(
                        "a prefix length 0-{max} follows the /; {p} is a subnet mask, and not a contiguous one"
                    ),
                    None => format!("prefix length must be 0-{max}"),
                }
            })?;
            Some(n)
        }
    };
    Ok(IpPrefix { addr, prefix })
}

/// Parse 12 hex digits into a MAC.
pub fn parse_mac(s: &str) -> Option<[u8; 6]> {
    if s.len() != 12 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut m = [0u8; 6];
    for (i, slot) in m.iter_mut().enumerate() {
        *slot = u8::from_str_radix(s.get(i * 2..i * 2 + 2)?, 16).ok()?;
    }
    Some(m)
}

/// A port number, 1-65535: what begins an entry of PORT (or UNRSV, PORT's
/// entry for the unreserved ports) and of PORTRANGE (its 1st_port) (IP
/// Configuration Reference, PORT and PORTRANGE statements).
fn is_port_number(s: &str) -> bool {
    parse_dec(s).is_some_and(|n| (1..=65535).contains(&n))
}

/// A decimal number of 1 to 9 digits (no sign): as large as any profile
/// value softosa reads, and never an overflow.
fn parse_dec(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 9 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }
    fn bump(&mut self) -> Option<Token> {
        let t = self.toks.get(self.pos).cloned();
        if t.is_some() {
            self.pos += 1;
        }
        t
    }
    /// The next token, taken, with what it is among the parameters of the
    /// statement of `ps`, unless the statement ends before it.
    fn next_param<T: Copy>(&mut self, ps: &Params<T>) -> Option<(Token, ParamKind<T>)> {
        let toks = self.toks;
        let t = toks.get(self.pos)?;
        let k = ps.kind(&t.text);
        if ps.ends_at(&t.text, &k) {
            return None;
        }
        self.pos += 1;
        Some((t.clone(), k))
    }
    /// The next token is absent or begins a new statement.
    fn at_end(&self) -> bool {
        self.peek().is_none_or(|t| starts_statement(&t.text))
    }
    fn last_span(&self) -> Span {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.toks.get(i))
            .map(|t| t.span)
            .unwrap_or_default()
    }
    fn err(&mut self, span: Span, e: ErrorKind) {
        self.diags.error(self.file, span, e);
    }
    fn warn(&mut self, span: Span, w: WarningKind) {
        self.diags.warning(self.file, span, w);
    }
    /// After an unknown statement its parameters are unknown too: skip to
    /// the next statement keyword, or to a later line whose first token is
    /// in column 1 (continuation lines are normally indented), unless that
    /// token is one that `continues` the statement (which ends it neither
    /// in column 1 nor as a statement keyword).
    fn skip_unknown(&mut self, line: u32, continues: impl Fn(&str) -> bool) {
        let mut prev_line = line;
        while let Some(t) = self.peek() {
            let new_line = t.span.line != prev_line && t.span.col == 1;
            if !continues(&t.text) && (starts_statement(&t.text) || new_line) {
                break;
            }
            prev_line = t.span.line;
            self.pos += 1;
        }
    }

    /// A z/OS statement softosa does not model: a warning, then skipped
    /// with its parameters (a block up to its END statement). An END with
    /// no block open, or a block whose END is missing, is still an error.
    fn unmodelled(&mut self, t: &Token) {
        let word = t.upper();
        if let Some((_, end)) = UNSUPPORTED_BLOCKS.iter().find(|(_, e)| *e == word) {
            self.err(t.span, ErrorKind::UnmatchedEnd(end));
            self.skip_unknown(t.span.line, |_| false);
            return;
        }
        if word == "INCLUDE" {
            let dsn = self
                .peek()
                .filter(|n| !starts_statement(&n.text))
                .map(|n| n.text.clone())
                .unwrap_or_default();
            self.warn(t.span, WarningKind::IncludeNotRead(dsn));
            self.skip_unknown(t.span.line, |_| false);
            return;
        }
        if word == "DELETE" {
            // DELETE's object is named by a statement's word (DELETE DEVICE
            // name, DELETE LINK name, DELETE PORT ...): it belongs to the
            // DELETE, and is no new statement.
            // The object on a line of its own is DELETE's too when it is
            // one of the words DELETE takes.
            const OBJECTS: &[&str] = &[
                "ATMARPSV",
                "ATMLIS",
                "ATMPVC",
                "DEVICE",
                "LINK",
                "PORT",
                "PORTRANGE",
            ];
            let object = self
                .peek()
                .filter(|n| n.span.line == t.span.line || OBJECTS.contains(&n.upper().as_str()))
                .map(|n| n.upper());
            if object.is_some() {
                self.pos += 1;
            }
            let what = object.map_or(word.clone(), |o| format!("DELETE {o}"));
            self.warn(t.span, WarningKind::NotModelled(what));
            self.skip_unknown(t.span.line, |w| {
                is_port_number(w) || w.eq_ignore_ascii_case("UNRSV")
            });
            return;
        }
        self.warn(t.span, WarningKind::NotModelled(word.clone()));
        // PORT and PORTRANGE entries may start in column 1.
        if word == "PORT" {
            self.skip_unknown(t.span.line, |w| {
                is_port_number(w) || w.eq_ignore_ascii_case("UNRSV")
            });
            return;
        }
        if word == "PORTRANGE" {
            self.skip_unknown(t.span.line, is_port_number);
            return;
        }
        let Some((begin, end)) = UNSUPPORTED_BLOCKS.iter().find(|(b, _)| *b == word) else {
            self.skip_unknown(t.span.line, |w| is_unsupported_param(&word, w));
            return;
        };
        // Up to the END statement; another statement first means the END
        // is missing (z/OS would read the rest of the file as the block's).
        while let Some(n) = self.peek() {
            if n.text.eq_ignore_ascii_case(end) {
                self.pos += 1;
                return;
            }
            if starts_statement(&n.text) {
                break;
            }
            self.pos += 1;
        }
        self.err(t.span, ErrorKind::UnclosedBlock { begin, end });
    }

    fn skip_statement(&mut self) {
        while !self.at_end() {
            self.pos += 1;
        }
    }

    /// Take a value token for `stmt param`; reports a missing value.
    fn value(
        &mut self,
        stmt: &'static str,
        param: &'static str,
        expected: &'static str,
    ) -> Option<Token> {
        if self.at_end() {
            self.missing_value(stmt, param, expected);
            return None;
        }
        self.bump()
    }

    /// The prefix length of the dotted subnet mask `m`; None after an error
    /// at it (a mask with a hole is not contiguous in statement `mask_stmt`,
    /// anything else is not a valid `stmt` `param`, which expects
    /// `expected`). The caller recovers as its statement does.
    fn mask(
        &mut self,
        m: &Token,
        mask_stmt: &'static str,
        (stmt, param): (&'static str, &'static str),
        expected: &'static str,
    ) -> Option<u8> {
        match parse_ipv4(&m.text).map(mask_to_prefix) {
            Some(Some(p)) => Some(p),
            Some(None) => {
                self.err(
                    m.span,
                    ErrorKind::MaskNotContiguous {
                        stmt: mask_stmt,
                        mask: m.text.clone(),
                    },
                );
                None
            }
            None => {
                self.invalid(m, stmt, param, expected);
                None
            }
        }
    }
    /// `t`, the value of `stmt param`, is not valid: `expected` says what
    /// is. The error names the statement, when [`Parser::named`] does.
    fn invalid(
        &mut self,
        t: &Token,
        stmt: &'static str,
        param: impl Into<Cow<'static, str>>,
        expected: impl Into<String>,
    ) {
        self.err(
            t.span,
            ErrorKind::InvalidValue {
                stmt,
                name: self.named.clone(),
                param: param.into(),
                value: t.text.clone(),
                expected: expected.into(),
            },
        );
    }

    /// The value of `stmt param`, `expected`, is missing: reported at the
    /// last word read (the keyword, or its last value). The error names
    /// the statement, when [`Parser::named`] does.
    fn missing_value(
        &mut self,
        stmt: &'static str,
        param: impl Into<Cow<'static, str>>,
        expected: impl Into<Cow<'static, str>>,
    ) {
        let sp = self.last_span();
        self.err(
            sp,
            ErrorKind::MissingValue {
                stmt,
                name: self.named.clone(),
                param: param.into(),
                expected: expected.into(),
            },
        );
    }

    /// The statement being read and its name ("INTERFACE O7"), once the
    /// name is read.
    fn whose(&self) -> Option<String> {
        self.named
            .as_ref()
            .map(|n| format!("{} {n}", self.named_stmt))
    }

    /// `t` is too short an abbreviation of the keyword `k`.
    fn too_short(&mut self, t: &Token, k: Keyword) {
        let e = self.too_short_error(t, k);
        self.err(t.span, e);
    }

    fn too_short_error(&self, t: &Token, k: Keyword) -> ErrorKind {
        ErrorKind::AbbreviationTooShort {
            whose: self.whose(),
            got: t.text.clone(),
            keyword: k.doc,
            min: k.min_upper(),
        }
    }

    /// `stmt param` is coded again, at `span`: the last value is used.
    /// The warning names the statement, when [`Parser::named`] does.
    fn repeated(&mut self, span: Span, stmt: &'static str, param: impl Into<Cow<'static, str>>) {
        self.warn(
            span,
            WarningKind::Repeated {
                stmt,
                name: self.named.clone(),
                param: param.into(),
            },
        );
    }

    /// A keyword value from `table`.
    fn choice<T: Copy>(
        &mut self,
        table: &[(Keyword, T)],
        stmt: &'static str,
        param: &'static str,
    ) -> Option<Spanned<T>> {
        if self.at_end() {
            self.missing_value(stmt, param, keyword_list(table));
            return None;
        }
        let t = self.bump()?;
        match find(table, &t.text) {
            Ok(v) => Some(Spanned::new(v, t.span)),
            Err(Some(k)) => {
                self.too_short(&t, k);
                None
            }
            Err(None) => {
                self.invalid(&t, stmt, param, format!("expected {}", keyword_list(table)));
                None
            }
        }
    }

    fn number(
        &mut self,
        stmt: &'static str,
        param: &'static str,
        expected: &'static str,
    ) -> Option<Spanned<u32>> {
        self.number_in(stmt, param, expected, 0..=u32::MAX)
    }

    /// A number that must lie in `range`; anything else is an error at the
    /// value.
    fn number_in(
        &mut self,
        stmt: &'static str,
        param: &'static str,
        expected: &'static str,
        range: std::ops::RangeInclusive<u32>,
    ) -> Option<Spanned<u32>> {
        let t = self.value(stmt, param, expected)?;
        match parse_dec(&t.text).filter(|n| range.contains(n)) {
            Some(n) => Some(Spanned::new(n, t.span)),
            None => {
                self.invalid(&t, stmt, param, expected);
                None
            }
        }
    }

    fn set_once<T>(
        &mut self,
        slot: &mut Option<Spanned<T>>,
        v: Spanned<T>,
        stmt: &'static str,
        param: &'static str,
    ) {
        if slot.is_some() {
            self.repeated(v.span, stmt, param);
        }
        *slot = Some(v);
    }

    /// A name operand (interface, link, device, port name): 1-16 chars,
    /// not a statement keyword.
    fn name(&mut self, stmt: &'static str, param: &'static str) -> Option<Token> {
        let t = self.value(stmt, param, "a name of 1-16 characters")?;
        if t.text.chars().count() > 16 {
            self.invalid(&t, stmt, param, "a name of at most 16 characters");
            return None;
        }
        Some(t)
    }

    /// `/* ... */` written as a comment: one error, and its words up to the
    /// `*/` (or the next statement) are skipped rather than each reported.
    fn slash_star(&mut self, t: &Token) {
        self.err(t.span, ErrorKind::SlashStarComment);
        if t.text.len() > 2 && t.text.ends_with("*/") {
            return;
        }
        // A */ on the same line closes it, whatever words come between
        // (a statement name among them is still the comment's).
        let line = t.span.line;
        let close = self.toks.get(self.pos..).and_then(|rest| {
            rest.iter()
                .take_while(|n| n.span.line == line)
                .position(|n| n.text.ends_with("*/"))
        });
        if let Some(i) = close {
            self.pos += i + 1;
            return;
        }
        while let Some(n) = self.peek() {
            if starts_statement(&n.text) {
                return;
            }
            let closes = n.text.ends_with("*/");
            self.pos += 1;
            if closes {
                return;
            }
        }
    }

    /// `t`, of kind `k`, is no parameter softosa models on the statement of
    /// `ps`: a real one is read (its values checked) and reported as not
    /// modelled; one softosa cannot check is an error that says so; else
    /// it is out of place, too short an abbreviation, or unknown. The
    /// values of one that cannot be read are skipped, so that they are not
    /// reported again as unknown parameters.
    fn other_param<T: Copy>(&mut self, t: &Token, ps: &Params<T>, k: NotModelled) {
        let stmt = ps.stmt;
        match k {
            NotModelled::Other(o) => {
                self.note_repeat(t.span, stmt, group(ps.others.other, o));
                // Sub-parameters may follow it, or the option it took.
                let after = match self.other_values(t, ps, o, None) {
                    Some(v) => format!("{} {}", o.name(None), v.full_upper()),
                    None => o.name(None),
                };
                self.sub_params(ps, &after);
            }
            NotModelled::Sub(sp, _) => {
                self.err(
                    t.span,
                    ErrorKind::ParameterNotValidHere {
                        param: t.upper(),
                        context: format!("{stmt} except right after {}", sp.after),
                    },
                );
                self.skip_values(ps);
            }
            NotModelled::Unsupported(k) => {
                self.err(
                    t.span,
                    ErrorKind::UnsupportedParameter {
                        stmt,
                        param: k.full_upper(),
                    },
                );
                self.skip_values(ps);
            }
            NotModelled::TooShort(k) => {
                self.too_short(t, k);
                self.skip_values(ps);
            }
            NotModelled::Unknown if t.text.starts_with("/*") => self.slash_star(t),
            NotModelled::Unknown => self.err(
                t.span,
                ErrorKind::UnknownParameter {
                    stmt,
                    name: self.named.clone(),
                    param: t.text.clone(),
                },
            ),
        }
    }

    /// A not-modelled parameter of group `g` is coded at `span`: a warning
    /// when the statement has it already, as for a modelled one.
    fn note_repeat(&mut self, span: Span, stmt: &'static str, g: String) {
        if self.seen.contains(&g) {
            self.repeated(span, stmt, g);
        } else {
            self.seen.push(g);
        }
    }

    /// Skip the values of a parameter that could not be read: up to the
    /// next parameter of the statement, a word too short an abbreviation
    /// of one (reported as such by the caller's loop), or the end.
    fn skip_values<T: Copy>(&mut self, ps: &Params<T>) {
        while self.peek().is_some_and(|n| {
            let k = ps.kind(&n.text);
            matches!(k, ParamKind::NotModelled(NotModelled::Unknown)) && !ps.ends_at(&n.text, &k)
        }) {
            self.pos += 1;
        }
    }

    /// The values of the not-modelled parameter `o` (keyword `t`; a
    /// sub-parameter of `after`) of the statement of `ps`, checked for
    /// count and form; a warning when they are right. A word that cannot
    /// be the value (the next statement, or any parameter of this one)
    /// means the value is missing: it is left to be read as what it is.
    /// The warning names the statement, when [`Parser::named`] does.
    /// Returns the keyword value taken, if any.
    fn other_values<T: Copy>(
        &mut self,
        t: &Token,
        ps: &Params<T>,
        o: &'static Other,
        after: Option<&str>,
    ) -> Option<Keyword> {
        let stmt = ps.stmt;
        let name = o.name(after);
        let mut ok = true;
        let mut taken = None;
        for &v in o.values {
            let Some(n) = self.peek().cloned() else {
                if !matches!(v, Val::OptKw(_)) {
                    self.missing_value(stmt, name.clone(), v.expected());
                    ok = false;
                }
                break;
            };
            // Which keyword of a keyword value `n` spells.
            let kw = match v {
                Val::OptKw(kws) | Val::Kw(kws, _) => lookup(kws.iter().map(|k| (*k, *k)), &n.text),
                _ => Lookup::NotFound,
            };
            if let Lookup::Found(k) = kw {
                self.pos += 1;
                taken = Some(k);
                continue;
            }
            let pk = ps.kind(&n.text);
            match (v, kw) {
                // Too short an abbreviation of the keyword value, and no
                // parameter: the value, miscoded.
                (_, Lookup::TooShort(k)) if !ps.ends_at(&n.text, &pk) && !pk.is_param() => {
                    self.pos += 1;
                    self.too_short(&n, k);
                    ok = false;
                }
                (Val::OptKw(_), _) => {}
                _ if !ps.not_a_value(&n.text, &pk, v) => {
                    self.pos += 1;
                    if matches!(v, Val::Kw(..)) {
                        self.invalid(&n, stmt, name.clone(), format!("expected {}", v.expected()));
                        ok = false;
                    } else if !v.accepts(&n.text) {
                        self.invalid(&n, stmt, name.clone(), v.expected());
                        ok = false;
                    }
                }
                _ => {
                    self.missing_value(stmt, name.clone(), v.expected());
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            self.warn(
                t.span,
                WarningKind::ParameterNotModelled {
                    stmt,
                    name: self.named.clone(),
                    param: name,
                },
            );
        }
        taken
    }

    /// After the parameter `after` (DATAGRAMFWD, DYNAMICXCF, ZERT
    /// AGGREGATION), read the sub-parameters of `ps` that belong to it and
    /// follow it.
    fn sub_params<T: Copy>(&mut self, ps: &Params<T>, after: &str) {
        while let Some(n) = self.peek().cloned() {
            // A sub-parameter is a parameter of the statement: it never
            // ends it.
            let ParamKind::NotModelled(NotModelled::Sub(sp, o)) = ps.kind(&n.text) else {
                break;
            };
            if sp.after != after {
                break;
            }
            self.pos += 1;
            self.note_repeat(n.span, ps.stmt, format!("{after} {}", group(sp.params, o)));
            self.other_values(&n, ps, o, Some(after));
        }
    }

    // ---- driver -----------------------------------------------------------

    /// A known statement: unknown ones before it are errors as usual.
    fn known_statement(&mut self) {
        if !self.known_seen {
            self.known_seen = true;
            self.report_unknown_first();
        }
    }

    fn report_unknown_first(&mut self) {
        for (span, _, e) in std::mem::take(&mut self.unknown_first) {
            self.err(span, e);
        }
    }

    /// A statement word not known (`e` says how): an error, or held while
    /// no known statement was met.
    fn unknown_statement(&mut self, t: &Token, e: ErrorKind) {
        if self.known_seen {
            self.err(t.span, e);
        } else {
            self.unknown_first.push((t.span, t.text.clone(), e));
        }
    }

    /// At the end: unknown statements and no known one say the file is
    /// not a profile (one error, at the first of them); fewer are errors
    /// each.
    fn settle_unknown(&mut self) {
        if self.known_seen || self.unknown_first.len() < NOT_A_PROFILE_AFTER {
            self.report_unknown_first();
            return;
        }
        let (span, text, _) = self.unknown_first[0].clone();
        let mut first: String = text.chars().take(QUOTED_WORD_MAX).collect();
        if first.len() < text.len() {
            first.push_str("...");
        }
        self.err(
            span,
            ErrorKind::NotAProfile {
                statements: self.unknown_first.len(),
                first,
            },
        );
        self.unknown_first.clear();
    }

    fn run(&mut self) {
        while let Some(t) = self.bump() {
            // A statement's name is read by its own reader, if it has one.
            self.named = None;
            match find(STATEMENTS, &t.text) {
                Ok(s) => {
                    self.known_statement();
                    self.seen.clear();
                    match s {
                        Stmt::Interface => self.interface(&t),
                        Stmt::Device => self.device(&t),
                        Stmt::Link => self.link(&t),
                        Stmt::Home => self.home(),
                        Stmt::GlobalConfig => self.globalconfig(),
                        Stmt::IpConfig => self.ipconfig(),
                        Stmt::VipaDynamic => self.vipadynamic(&t),
                        Stmt::EndVipaDynamic => {
                            self.err(t.span, ErrorKind::UnmatchedEnd("ENDVIPADYNAMIC"));
                        }
                        Stmt::BeginRoutes => self.beginroutes(&t),
                        Stmt::EndRoutes => self.err(t.span, ErrorKind::UnmatchedEnd("ENDROUTES")),
                        Stmt::Start => self.start(),
                        Stmt::TcpConfig => self.tcpconfig(),
                    }
                    // Anything left before the next statement is unexpected.
                    while !self.at_end() {
                        if let Some(x) = self.bump() {
                            self.err(
                                x.span,
                                ErrorKind::Unexpected(format!("{} (not a parameter here)", x.text)),
                            );
                        }
                    }
                }
                Err(Some(k)) => {
                    let e = self.too_short_error(&t, k);
                    self.unknown_statement(&t, e);
                    self.skip_unknown(t.span.line, |_| false);
                }
                Err(None) if t.text.starts_with("/*") => self.slash_star(&t),
                Err(None) => {
                    if is_unsupported(&t.text) {
                        self.known_statement();
                        self.unmodelled(&t);
                    } else {
                        self.unknown_statement(&t, ErrorKind::UnknownStatement(t.text.clone()));
                        self.skip_unknown(t.span.line, |_| false);
                    }
                }
            }
        }
    }

    // ---- INTERFACE --------------------------------------------------------

    fn interface(&mut self, kwt: &Token) {
        let Some(name) = self.name("INTERFACE", "interface name") else {
            self.skip_statement();
            return;
        };
        self.named = Some(name.text.clone());
        self.named_stmt = "INTERFACE";
        // `INTERFACE name DELETE` removes a defined interface (IP
        // Configuration Reference, INTERFACE statements: DELEte in place of
        // DEFINE). softosa reads each profile from scratch and does not
        // apply it: of an interface defined in an earlier profile it is a
        // warning; of one this profile defines above, an error (it would
        // be simulated although z/OS deletes it).
        if let Some(t) = self.peek().cloned() {
            if INTERFACE_DELETE.matches(&t.text) == Match::Yes {
                self.pos += 1;
                let same = |n: &str| n.eq_ignore_ascii_case(&name.text);
                let defined = self
                    .prof
                    .interfaces
                    .iter()
                    .filter(|i| same(&i.name))
                    .map(|i| i.span)
                    .chain(
                        self.prof
                            .static_vipas
                            .iter()
                            .filter(|v| {
                                matches!(v.kind, VipaKind::Interface | VipaKind::Interface6)
                                    && same(&v.name)
                            })
                            .map(|v| v.span),
                    )
                    .min();
                match defined {
                    Some(first) => self.err(
                        t.span,
                        ErrorKind::DeleteNotApplied {
                            name: name.text.clone(),
                            first_line: first.line,
                        },
                    ),
                    None => self.warn(
                        t.span,
                        WarningKind::ParameterNotModelled {
                            stmt: "INTERFACE",
                            name: Some(name.text.clone()),
                            param: "DELETE".into(),
                        },
                    ),
                }
                return;
            }
        }
        // `INTERFACE name ADDADDR addr` and its kin change an interface
        // defined before (IP Configuration Reference, INTERFACE - IPAQENET6:
        // the modify forms), in a VARY OBEYFILE or after the DEFINE in the
        // profile itself. ADDADDR and DELADDR of an IPAQENET6 interface this
        // profile defines above change its addresses; the others (and these
        // of an interface defined elsewhere) are not modelled.
        if let Some(t) = self.peek().cloned() {
            if let Some(k) = INTERFACE_MODIFY
                .iter()
                .find(|k| k.matches(&t.text) == Match::Yes)
            {
                self.pos += 1;
                let target = self.prof.interfaces.iter().position(|i| {
                    i.name.eq_ignore_ascii_case(&name.text) && i.kind == InterfaceKind::IpaqEnet6
                });
                let changes = [INTERFACE_ADDADDR, INTERFACE_DELADDR].contains(k);
                if let (Some(at), true) = (target, changes) {
                    self.change_addresses(at, *k == INTERFACE_ADDADDR);
                    return;
                }
                // An interface defined above that is no IPAQENET6 one:
                // z/OS refuses the change.
                let same = |n: &str| n.eq_ignore_ascii_case(&name.text);
                let other = self
                    .prof
                    .interfaces
                    .iter()
                    .find(|i| same(&i.name))
                    .map(|i| i.kind.keyword())
                    .or_else(|| {
                        self.prof
                            .static_vipas
                            .iter()
                            .find(|v| v.kind == VipaKind::Interface && same(&v.name))
                            .map(|_| "VIRTUAL")
                    });
                if let (Some(kind), None) = (other, target) {
                    // These keywords are spelt in full: the doc is the word.
                    let param = k.doc;
                    let why = format!("{param} changes an IPAQENET6 interface; this one is {kind}");
                    self.invalid(&name, "INTERFACE", param, why);
                    self.skip_statement();
                    return;
                }
                self.warn(
                    t.span,
                    WarningKind::ParameterNotModelled {
                        stmt: "INTERFACE",
                        name: Some(name.text.clone()),
                        param: k.full_upper(),
                    },
                );
                self.skip_statement();
                return;
            }
        }
        let mut kind = InterfaceKind::IpaqEnet;
        let mut have_define = false;
        if let Some(t) = self.peek() {
            if find(INTF_PARAMS, &t.text) == Ok(IP::Define) {
                self.pos += 1;
                let vipa = match self.peek().map(|t| t.upper()).as_deref() {
                    Some("VIRTUAL") => Some(VipaKind::Interface),
                    Some("VIRTUAL6") => Some(VipaKind::Interface6),
                    _ => None,
                };
                if let Some(vk) = vipa {
                    self.pos += 1;
                    self.virtual_interface(&name, vk);
                    return;
                }
                if let Some(t) = self
                    .peek()
                    .cloned()
                    .filter(|t| UNMODELLED_INTERFACES.contains(&t.upper().as_str()))
                {
                    self.pos += 1;
                    self.skip_unmodelled(&t, format!("INTERFACE {} {}", name.upper(), t.upper()));
                    // An interface is started by its name, and is where
                    // HOME and ROUTE entries would point.
                    self.unmodelled_devices.push(name.upper());
                    self.unmodelled_links.push(name.upper());
                    return;
                }
                if let Some(k) = self.choice(KINDS, "INTERFACE", "DEFINE") {
                    kind = k.value;
                    have_define = true;
                } else {
                    // Unknown DEFINE type: the parameters would be misread.
                    self.skip_statement();
                    return;
                }
            }
        }
        // Without DEFINE, the kind is known only when it is coded without
        // it (`INTERFACE O6 IPAQENET6 ...`); else the default IPAQENET is
        // a guess, and no parameter is refused as not valid for it.
        let mut kind_known = have_define;
        if !have_define {
            let coded = self
                .peek()
                .and_then(|t| find(KINDS, &t.text).ok().map(|k| (k, t.upper())));
            let what = match coded {
                Some((k, word)) => {
                    self.pos += 1;
                    kind = k;
                    kind_known = true;
                    format!("DEFINE before {word}")
                }
                None => "DEFINE IPAQENET | IPAQENET6 | IPAQIDIO after the interface name".into(),
            };
            self.err(
                name.span,
                ErrorKind::MissingRequired {
                    stmt: "INTERFACE",
                    name: self.named.clone(),
                    what,
                },
            );
        }
        let _ = kwt;
        let mut intf = Interface::new(name.text.clone(), name.span, kind);
        const S: &str = "INTERFACE";
        while let Some((t, k)) = self.next_param(&INTERFACE_P) {
            let p = match k {
                ParamKind::Modelled(p) => p,
                ParamKind::NotModelled(k) => {
                    // INTFID, DUPADDRDET and TEMPPREFIX are IPAQENET6's
                    // only, TEMPIP IPAQENET's.
                    let only = match k {
                        NotModelled::Other(o)
                            if [INTFID.kw, DUPADDRDET.kw, TEMPPREFIX.kw].contains(&o.kw) =>
                        {
                            Some((InterfaceKind::IpaqEnet6, o))
                        }
                        NotModelled::Other(o) if o.kw == TEMPIP.kw => {
                            Some((InterfaceKind::IpaqEnet, o))
                        }
                        _ => None,
                    };
                    if let Some((only, o)) = only {
                        if kind_known && kind != only {
                            self.err(
                                t.span,
                                ErrorKind::NotValidForKind {
                                    intf: intf.name.clone(),
                                    param: o.kw.doc,
                                    kind: kind.keyword(),
                                },
                            );
                            self.skip_values(&INTERFACE_P);
                            continue;
                        }
                        if o.kw == TEMPIP.kw {
                            intf.tempip = Some(t.span);
                        }
                    }
                    let more_prefixes =
                        matches!(&k, NotModelled::Other(o) if o.kw == TEMPPREFIX.kw);
                    self.other_param(&t, &INTERFACE_P, k);
                    // TEMPPREFIX takes one prefix or several, each checked.
                    while more_prefixes
                        && self
                            .peek()
                            .is_some_and(|n| n.text.contains(':') && n.text.contains('/'))
                    {
                        if let Some(v) = self.bump() {
                            if !Val::V6PrefixOrAll.accepts(&v.text) {
                                self.invalid(&v, S, "TEMPPREFIX", Val::V6PrefixOrAll.expected());
                            }
                        }
                    }
                    continue;
                }
            };
            self.check_kind_param(&intf, p, &t);
            match p {
                IP::Define => self.err(
                    t.span,
                    ErrorKind::ParameterNotValidHere {
                        param: "DEFINE".into(),
                        context: "INTERFACE except right after the interface name".into(),
                    },
                ),
                IP::IpAddr => {
                    let v6 = kind == InterfaceKind::IpaqEnet6;
                    for v in self.ipaddr_values(v6, "address/prefix, e.g. 172.16.1.1/24") {
                        match parse_prefix(&v.text) {
                            Ok(ip) => {
                                let ok = match kind {
                                    InterfaceKind::IpaqEnet6 => ip.addr.is_ipv6(),
                                    _ => ip.addr.is_ipv4(),
                                };
                                if let (true, Err(why)) = (ok, unicast(ip.addr)) {
                                    self.invalid(&v, S, "IPADDR", why);
                                    intf.refused.push("IPADDR");
                                } else if ok {
                                    if kind != InterfaceKind::IpaqEnet6 && !intf.ipaddr.is_empty() {
                                        self.repeated(v.span, S, "IPADDR");
                                        intf.ipaddr.clear();
                                    }
                                    intf.ipaddr.push(Spanned::new(ip, v.span));
                                } else {
                                    let want = if kind == InterfaceKind::IpaqEnet6 {
                                        "an IPv6 address for IPAQENET6"
                                    } else {
                                        "an IPv4 address"
                                    };
                                    self.invalid(&v, S, "IPADDR", want);
                                    intf.refused.push("IPADDR");
                                }
                            }
                            Err(why) => {
                                self.invalid(&v, S, "IPADDR", why);
                                intf.refused.push("IPADDR");
                            }
                        }
                    }
                }
                IP::PortName => {
                    // The port name is the TRLE's PORTNAME: 1 to 8 characters.
                    let v = self.name(S, "PORTNAME").filter(|v| {
                        let ok = v.text.chars().count() <= 8;
                        if !ok {
                            self.invalid(
                                v,
                                S,
                                "PORTNAME",
                                "the TRLE's port name, 1 to 8 characters",
                            );
                        }
                        ok
                    });
                    if let Some(v) = v {
                        let sp = Spanned::new(v.upper(), v.span);
                        let mut slot = intf.portname.take();
                        self.set_once(&mut slot, sp, S, "PORTNAME");
                        intf.portname = slot;
                    } else {
                        intf.refused.push("PORTNAME");
                    }
                }
                IP::ChpidType => {
                    if let Some(v) = self.choice(CHPIDTYPES, S, "CHPIDTYPE") {
                        let mut slot = intf.chpidtype.take();
                        self.set_once(&mut slot, v, S, "CHPIDTYPE");
                        intf.chpidtype = slot;
                    }
                }
                IP::Chpid => {
                    if let Some(v) = self.value(S, "CHPID", "2 hexadecimal digits, e.g. FE") {
                        let ok = v.text.len() == 2 && v.text.bytes().all(|b| b.is_ascii_hexdigit());
                        match u8::from_str_radix(&v.text, 16).ok().filter(|_| ok) {
                            Some(c) => {
                                let mut slot = intf.chpid.take();
                                self.set_once(&mut slot, Spanned::new(c, v.span), S, "CHPID");
                                intf.chpid = slot;
                            }
                            None => {
                                self.invalid(&v, S, "CHPID", "2 hexadecimal digits, e.g. FE");
                                intf.refused.push("CHPID");
                            }
                        }
                    } else {
                        intf.refused.push("CHPID");
                    }
                }
                IP::Mtu => {
                    if let Some(v) = self.number(S, "MTU", "a decimal number of bytes") {
                        let mut slot = intf.mtu.take();
                        self.set_once(&mut slot, v, S, "MTU");
                        intf.mtu = slot;
                    }
                }
                IP::VlanId => {
                    if let Some(v) = self.number(S, "VLANID", "a VLAN id 1-4094") {
                        let mut slot = intf.vlanid.take();
                        self.set_once(&mut slot, v, S, "VLANID");
                        intf.vlanid = slot;
                    }
                }
                IP::Vmac => {
                    let v = self.vmac(&t, S, INTF_PARAMS);
                    if intf.vmac.is_some() {
                        self.repeated(t.span, S, "VMAC");
                    }
                    intf.vmac = Some(v);
                }
                IP::InbPerf(w) => {
                    let coded = (&mut intf.inbperf, &mut intf.workloadq);
                    self.inbperf(S, w, &t, coded, Again::Warn);
                }
                IP::Olm | IP::NoOlm => {
                    let mut slot = intf.olm.take();
                    self.set_once(&mut slot, Spanned::new(p == IP::Olm, t.span), S, "OLM");
                    intf.olm = slot;
                }
                IP::ReadStorage => {
                    if let Some(v) = self.choice(READSTORAGES, S, "READSTORAGE") {
                        let mut slot = intf.readstorage.take();
                        self.set_once(&mut slot, v, S, "READSTORAGE");
                        intf.readstorage = slot;
                    }
                }
                IP::PriRouter | IP::SecRouter | IP::NonRouter => {
                    let r = match p {
                        IP::PriRouter => RouterRole::PriRouter,
                        IP::SecRouter => RouterRole::SecRouter,
                        _ => RouterRole::NonRouter,
                    };
                    let mut slot = intf.router.take();
                    self.set_once(
                        &mut slot,
                        Spanned::new(r, t.span),
                        S,
                        "PRIROUTER/SECROUTER/NONROUTER",
                    );
                    intf.router = slot;
                }
                IP::Isolate | IP::NoIsolate => {
                    let mut slot = intf.isolate.take();
                    self.set_once(
                        &mut slot,
                        Spanned::new(p == IP::Isolate, t.span),
                        S,
                        "ISOLATE",
                    );
                    intf.isolate = slot;
                }
                IP::SourceVipa => {
                    if let Some(v) = self.name(S, "SOURCEVIPAINTERFACE") {
                        intf.source_vipa = Some(Spanned::new(v.upper(), v.span));
                    }
                }
                IP::SecClass => {
                    if let Some(c) = self.secclass(S) {
                        intf.secclass = Some(c);
                    }
                }
                IP::MonSysplex | IP::NoMonSysplex => {
                    intf.monsysplex = Some(Spanned::new(p == IP::MonSysplex, t.span));
                }
                IP::IpBcast => {
                    if kind != InterfaceKind::IpaqEnet {
                        self.err(
                            t.span,
                            ErrorKind::NotValidForKind {
                                intf: intf.name.clone(),
                                param: "IPBCAST",
                                kind: kind.keyword(),
                            },
                        );
                    }
                    intf.ipbcast = Some(t.span);
                }
                IP::DynVlanReg | IP::NoDynVlanReg => {
                    intf.dynvlanreg = Some(Spanned::new(p == IP::DynVlanReg, t.span));
                }
            }
        }
        self.prof.interfaces.push(intf);
    }

    /// The word `w` (keyword `t`) of the INBPERF setting of statement
    /// `stmt`, into its `coded` INBPERF mode and WORKLOADQ switch: the
    /// reader of that setting for INTERFACE and LINK alike (see
    /// [`InbPerfWord`]). A mode coded twice is a warning, the last one
    /// used; WORKLOADQ coded twice as `again` says.
    fn inbperf(
        &mut self,
        stmt: &'static str,
        w: InbPerfWord,
        t: &Token,
        coded: (&mut Option<Spanned<InbPerf>>, &mut Option<Spanned<bool>>),
        again: Again,
    ) {
        let (mode, workloadq) = coded;
        match w {
            InbPerfWord::Mode => {
                if let Some(v) = self.choice(INBPERFS, stmt, "INBPERF") {
                    self.set_once(mode, v, stmt, "INBPERF");
                }
            }
            InbPerfWord::WorkloadQ(on) => {
                let v = Spanned::new(on, t.span);
                match again {
                    Again::Warn => self.set_once(workloadq, v, stmt, "WORKLOADQ"),
                    Again::Replace => *workloadq = Some(v),
                }
            }
        }
    }

    /// The values of an INTERFACE's IPADDR: one (a missing one is reported,
    /// expecting `expected`), and on an IPv6 interface (`v6`) each further
    /// word that is neither a statement nor a parameter and has a colon.
    /// `INTERFACE name ADDADDR addr ...` (`add`) or `DELADDR addr ...` of
    /// the IPAQENET6 interface `self.prof.interfaces[at]`: each unicast IPv6
    /// address is added to its IPADDR list, or taken from it (one it does
    /// not have is refused). Anything after the addresses is refused too.
    fn change_addresses(&mut self, at: usize, add: bool) {
        const S: &str = "INTERFACE";
        let param = if add { "ADDADDR" } else { "DELADDR" };
        if self.at_end() {
            self.missing_value(S, param, "an IPv6 address");
            return;
        }
        for v in self.ipaddr_values(true, "an IPv6 address, e.g. 2001:db8::9") {
            let ip = match parse_prefix(&v.text) {
                Ok(ip) if !ip.addr.is_ipv6() => Err("an IPv6 address for IPAQENET6".to_string()),
                Ok(ip) => unicast(ip.addr).map(|()| ip).map_err(str::to_string),
                Err(why) => Err(why),
            };
            let ip = match ip {
                Ok(ip) => ip,
                Err(why) => {
                    self.invalid(&v, S, param, why);
                    continue;
                }
            };
            let Some(i) = self.prof.interfaces.get_mut(at) else {
                return;
            };
            let had = i.ipaddr.iter().position(|a| a.value.addr == ip.addr);
            match (had, add) {
                (None, true) => i.ipaddr.push(Spanned::new(ip, v.span)),
                (Some(_), true) => {
                    let why = format!("already an address of interface {}", i.name);
                    self.invalid(&v, S, param, why);
                }
                (Some(k), false) => {
                    i.ipaddr.remove(k);
                }
                (None, false) => {
                    let why = format!("not an address of interface {}", i.name);
                    self.invalid(&v, S, param, why);
                }
            }
        }
        while !self.at_end() {
            if let Some(t) = self.bump() {
                self.err(
                    t.span,
                    ErrorKind::UnknownParameter {
                        stmt: S,
                        name: self.named.clone(),
                        param: t.text.clone(),
                    },
                );
            }
        }
    }

    fn ipaddr_values(&mut self, v6: bool, expected: &'static str) -> Vec<Token> {
        let Some(first) = self.value("INTERFACE", "IPADDR", expected) else {
            return Vec::new();
        };
        let mut values = vec![first];
        while v6
            && self.peek().is_some_and(|n| {
                !starts_statement(&n.text)
                    && find(INTF_PARAMS, &n.text).is_err()
                    && n.text.contains(':')
            })
        {
            values.extend(self.bump());
        }
        values
    }

    /// Parameters that do not exist for the interface's DEFINE type.
    fn check_kind_param(&mut self, intf: &Interface, p: IP, t: &Token) {
        let bad = match intf.kind {
            InterfaceKind::IpaqIdio => matches!(
                p,
                IP::PortName
                    | IP::ChpidType
                    | IP::InbPerf(_)
                    | IP::Olm
                    | IP::NoOlm
                    | IP::PriRouter
                    | IP::SecRouter
                    | IP::NonRouter
                    | IP::Isolate
                    | IP::NoIsolate
            ),
            InterfaceKind::IpaqEnet | InterfaceKind::IpaqEnet6 => false,
        };
        if bad {
            let param = match find(INTF_PARAMS, &t.text) {
                Ok(_) => INTF_PARAMS
                    .iter()
                    .find(|(_, v)| *v == p)
                    .map(|(k, _)| k.doc)
                    .unwrap_or("parameter"),
                Err(_) => "parameter",
            };
            self.err(
                t.span,
                ErrorKind::NotValidForKind {
                    intf: intf.name.clone(),
                    param,
                    kind: intf.kind.keyword(),
                },
            );
        }
    }

    /// `VMAC [macaddr] [ROUTEALL|ROUTELCL]`.
    fn vmac<T: Copy>(&mut self, t: &Token, stmt: &'static str, params: &[(Keyword, T)]) -> Vmac {
        let mut v = Vmac {
            mac: None,
            route: VmacRoute::All,
            span: t.span,
        };
        let is_route = |s: &str| {
            let u = s.to_ascii_uppercase();
            u == "ROUTEALL" || u == "ROUTELCL"
        };
        if let Some(n) = self.peek().cloned() {
            let is_kw =
                starts_statement(&n.text) || find(params, &n.text).is_ok() || is_route(&n.text);
            if !is_kw {
                self.pos += 1;
                match parse_mac(&n.text) {
                    Some(m) => v.mac = Some(m),
                    None => self.err(n.span, ErrorKind::VmacFormat(n.text.clone())),
                }
            }
        }
        if let Some(n) = self.peek().cloned() {
            if is_route(&n.text) {
                self.pos += 1;
                v.route = if n.upper() == "ROUTELCL" {
                    VmacRoute::Local
                } else {
                    VmacRoute::All
                };
            }
        }
        let _ = stmt;
        v
    }

    // ---- DEVICE / LINK / HOME / START -------------------------------------

    /// `INTERFACE name DEFINE VIRTUAL IPADDR ipv4_address` (one address in
    /// dotted decimal, no prefix length: IP Configuration Reference,
    /// INTERFACE - VIRTUAL interfaces statement) or `DEFINE VIRTUAL6
    /// [IPADDR ipv6_address ...]`. IPADDR is the only parameter.
    fn virtual_interface(&mut self, name: &Token, kind: VipaKind) {
        const S: &str = "INTERFACE";
        let v6 = kind == VipaKind::Interface6;
        let mut vipa = StaticVipa {
            name: name.text.clone(),
            span: name.span,
            kind,
            device: None,
            ipaddr: Vec::new(),
        };
        let mut have_ipaddr = false;
        while !self.at_end() {
            let Some(t) = self.bump() else { break };
            if find(INTF_PARAMS, &t.text) != Ok(IP::IpAddr) {
                if t.text.starts_with("/*") {
                    self.slash_star(&t);
                    continue;
                }
                self.err(
                    t.span,
                    ErrorKind::ParameterNotValidHere {
                        param: t.upper(),
                        context: format!("{} (its only parameter is IPADDR)", kind.what()),
                    },
                );
                // Its values are not reported again.
                while !self.at_end()
                    && self
                        .peek()
                        .is_some_and(|n| find(INTF_PARAMS, &n.text) != Ok(IP::IpAddr))
                {
                    self.pos += 1;
                }
                continue;
            }
            have_ipaddr = true;
            let expected = if v6 {
                "an IPv6 address"
            } else {
                "one IPv4 address in dotted decimal, e.g. 10.1.1.1"
            };
            for v in self.ipaddr_values(v6, expected) {
                let addr = if v6 {
                    parse_ip(&v.text).filter(|a| a.is_ipv6())
                } else {
                    parse_ipv4(&v.text).map(IpAddr::V4)
                };
                match addr {
                    Some(a) => {
                        if !v6 && !vipa.ipaddr.is_empty() {
                            self.repeated(v.span, S, "IPADDR");
                            vipa.ipaddr.clear();
                        }
                        vipa.ipaddr.push(Spanned::new(a, v.span));
                    }
                    None => self.invalid(&v, S, "IPADDR", expected),
                }
            }
        }
        if !have_ipaddr && !v6 {
            self.err(
                name.span,
                ErrorKind::MissingRequired {
                    stmt: S,
                    name: self.named.clone(),
                    what: "IPADDR (INTERFACE VIRTUAL requires one IPv4 address)".into(),
                },
            );
        }
        self.prof.static_vipas.push(vipa);
    }

    /// `DEVICE name VIRTUAL 0` / `LINK name VIRTUAL 0 device`: the number
    /// after VIRTUAL, then (LINK) the device name.
    fn virtual_device_or_link(&mut self, stmt: &'static str, name: &Token) {
        match self.value(stmt, "VIRTUAL", "0") {
            Some(n) if parse_dec(&n.text).is_some() => {}
            Some(n) => {
                self.invalid(&n, stmt, "VIRTUAL", "a number (VIRTUAL 0)");
                self.skip_statement();
                return;
            }
            None => return,
        }
        let device = if stmt == "LINK" {
            let Some(dev) = self.name(stmt, "device name") else {
                self.skip_statement();
                return;
            };
            Some(Spanned::new(dev.upper(), dev.span))
        } else {
            None
        };
        self.prof.static_vipas.push(StaticVipa {
            name: if stmt == "LINK" {
                name.text.clone()
            } else {
                name.upper()
            },
            span: name.span,
            kind: if stmt == "LINK" {
                VipaKind::Link
            } else {
                VipaKind::Device
            },
            device,
            ipaddr: Vec::new(),
        });
    }

    /// SECCLASS's value (1-255) on statement `stmt`; an error, and none,
    /// when it is missing or out of range.
    fn secclass(&mut self, stmt: &'static str) -> Option<Spanned<u8>> {
        let v = self.number(stmt, "SECCLASS", "a security class 1-255")?;
        match u8::try_from(v.value).ok().filter(|c| *c >= 1) {
            Some(c) => Some(Spanned::new(c, v.span)),
            None => {
                self.err(
                    v.span,
                    ErrorKind::InvalidValue {
                        stmt,
                        name: self.named.clone(),
                        param: "SECCLASS".into(),
                        value: v.value.to_string(),
                        expected: "a security class 1-255".into(),
                    },
                );
                None
            }
        }
    }

    /// A DEVICE, LINK or INTERFACE of a real type softosa does not model
    /// (`what`: the statement, its name and type): a warning at the type,
    /// and the rest of the statement skipped.
    fn skip_unmodelled(&mut self, ty: &Token, what: String) {
        self.warn(ty.span, WarningKind::TypeNotModelled(what));
        self.skip_statement();
    }

    /// Each distinct z/OS system symbol (`&NAME.`, the period optional at
    /// a token's end) once, where it first appears: a value holding one is
    /// refused later, and this says why.
    fn note_system_symbols(&mut self) {
        let mut seen: Vec<String> = Vec::new();
        for t in self.toks {
            let mut rest = t.text.as_str();
            while let Some(at) = rest.find('&') {
                let after = &rest[at + 1..];
                let len = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '@' | '#' | '$')))
                    .unwrap_or(after.len());
                let name = &after[..len];
                let starts_well = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '@' | '#' | '$'));
                if starts_well && len <= 8 {
                    let dot = if after[len..].starts_with('.') {
                        "."
                    } else {
                        ""
                    };
                    let sym = format!("&{}{dot}", name.to_ascii_uppercase());
                    if !seen.contains(&sym) && seen.len() < 64 {
                        self.diags.warning(
                            self.file,
                            t.span,
                            WarningKind::SystemSymbol(sym.clone()),
                        );
                        seen.push(sym);
                    }
                }
                rest = &after[len..];
            }
        }
    }

    /// Leave out the HOME, START and ROUTE entries that name a device,
    /// link or interface of a type softosa does not model: z/OS would
    /// apply them to it, and here they would name nothing.
    fn drop_unmodelled_references(&mut self) {
        let among = |list: &[String], n: &str| list.iter().any(|u| u.eq_ignore_ascii_case(n));
        let (devices, links) = (&self.unmodelled_devices, &self.unmodelled_links);
        self.prof.home.retain(|h| !among(links, &h.link.value));
        self.prof.starts.retain(|s| !among(devices, &s.name.value));
        self.prof.routes.retain(|r| !among(links, &r.link.value));
    }

    fn device(&mut self, _kwt: &Token) {
        const S: &str = "DEVICE";
        let Some(name) = self.name(S, "device name") else {
            self.skip_statement();
            return;
        };
        self.named = Some(name.upper());
        self.named_stmt = S;
        let Some(ty) = self.value(S, "device type", "MPCIPA") else {
            return;
        };
        if ty.upper() == "VIRTUAL" {
            self.virtual_device_or_link(S, &name);
            return;
        }
        if UNMODELLED_DEVICES.contains(&ty.upper().as_str()) {
            self.skip_unmodelled(&ty, format!("DEVICE {} {}", name.upper(), ty.upper()));
            self.unmodelled_devices.push(name.upper());
            return;
        }
        if ty.upper() != "MPCIPA" {
            self.invalid(
                &ty,
                S,
                "device type",
                "only MPCIPA (OSA-Express QDIO and HiperSockets) devices are supported",
            );
            self.skip_statement();
            return;
        }
        let mut dev = Device {
            name: name.upper(),
            span: name.span,
            router: None,
            autorestart: None,
        };
        while !self.at_end() {
            let Some(t) = self.bump() else { break };
            let u = t.upper();
            if let Ok(r) = find(ROUTERS, &u) {
                let mut slot = dev.router.take();
                self.set_once(
                    &mut slot,
                    Spanned::new(r, t.span),
                    S,
                    "PRIROUTER/SECROUTER/NONROUTER",
                );
                dev.router = slot;
            } else if u == "AUTORESTART" || u == "NOAUTORESTART" {
                dev.autorestart = Some(Spanned::new(u == "AUTORESTART", t.span));
            } else {
                self.err(
                    t.span,
                    ErrorKind::UnknownParameter {
                        stmt: S,
                        name: self.named.clone(),
                        param: t.text.clone(),
                    },
                );
            }
        }
        self.prof.devices.push(dev);
    }

    fn link(&mut self, _kwt: &Token) {
        const S: &str = "LINK";
        let Some(name) = self.name(S, "link name") else {
            self.skip_statement();
            return;
        };
        self.named = Some(name.text.clone());
        self.named_stmt = S;
        let Some(kt) = self.value(S, "link type", "IPAQENET or IPAQIDIO") else {
            return;
        };
        let kind = match kt.upper().as_str() {
            "VIRTUAL" => {
                self.virtual_device_or_link(S, &name);
                return;
            }
            "IPAQENET" => InterfaceKind::IpaqEnet,
            "IPAQIDIO" => InterfaceKind::IpaqIdio,
            t if UNMODELLED_LINKS.contains(&t) => {
                self.skip_unmodelled(&kt, format!("LINK {} {t}", name.upper()));
                self.unmodelled_links.push(name.upper());
                return;
            }
            _ => {
                self.invalid(
                    &kt,
                    S,
                    "link type",
                    "IPAQENET or IPAQIDIO (the other LINK types are not supported)",
                );
                self.skip_statement();
                return;
            }
        };
        let Some(dev) = self.name(S, "device name") else {
            self.skip_statement();
            return;
        };
        let device = Spanned::new(dev.upper(), dev.span);
        let mut link = Link::new(name.text.clone(), name.span, kind, device);
        while let Some((t, k)) = self.next_param(&LINK_P) {
            let p = match k {
                ParamKind::Modelled(p) => p,
                ParamKind::NotModelled(k) => {
                    self.other_param(&t, &LINK_P, k);
                    continue;
                }
            };
            let osa_only = matches!(
                p,
                IP::InbPerf(_) | IP::Olm | IP::NoOlm | IP::Isolate | IP::NoIsolate
            );
            if osa_only && kind == InterfaceKind::IpaqIdio {
                self.err(
                    t.span,
                    ErrorKind::NotValidOnIdioLink {
                        link: link.name.clone(),
                        param: intf_param_name(p),
                    },
                );
            }
            match p {
                IP::InbPerf(w) => {
                    let coded = (&mut link.inbperf, &mut link.workloadq);
                    self.inbperf(S, w, &t, coded, Again::Replace);
                }
                IP::Olm | IP::NoOlm => link.olm = Some(Spanned::new(p == IP::Olm, t.span)),
                IP::ReadStorage => {
                    if let Some(v) = self.choice(READSTORAGES, S, "READSTORAGE") {
                        link.readstorage = Some(v);
                    }
                }
                IP::Vmac => link.vmac = Some(self.vmac(&t, S, INTF_PARAMS)),
                IP::VlanId => {
                    if let Some(v) = self.number(S, "VLANID", "a VLAN id 1-4094") {
                        link.vlanid = Some(v);
                    }
                }
                IP::Isolate | IP::NoIsolate => {
                    link.isolate = Some(Spanned::new(p == IP::Isolate, t.span))
                }
                // Read as on INTERFACE (IBM's TCPIPCS PROFILE output writes
                // `SECCLASS 255 NOMONSYSPLEX` on every LINK).
                IP::SecClass => {
                    if let Some(c) = self.secclass(S) {
                        link.secclass = Some(c);
                    }
                }
                IP::MonSysplex | IP::NoMonSysplex => {
                    link.monsysplex = Some(Spanned::new(p == IP::MonSysplex, t.span));
                }
                // LINK parameters softosa reads and does not model (the
                // MPCIPA LINK statement has them).
                IP::IpBcast | IP::DynVlanReg | IP::NoDynVlanReg => {
                    self.warn(
                        t.span,
                        WarningKind::ParameterNotModelled {
                            stmt: S,
                            name: Some(link.name.clone()),
                            param: t.upper(),
                        },
                    );
                }
                _ => self.err(
                    t.span,
                    ErrorKind::ParameterNotValidHere {
                        param: t.upper(),
                        context: "the LINK statement (it belongs on INTERFACE or DEVICE)".into(),
                    },
                ),
            }
        }
        self.prof.links.push(link);
    }

    fn home(&mut self) {
        const S: &str = "HOME";
        while !self.at_end() {
            let Some(a) = self.bump() else { break };
            let addr = match parse_ipv4(&a.text) {
                Some(x) => x,
                None => {
                    self.invalid(&a, S, "address", "an IPv4 address (HOME is IPv4 only)");
                    // Skip its link name too, if any.
                    if !self.at_end() {
                        self.pos += 1;
                    }
                    continue;
                }
            };
            let Some(l) = self.name(S, "link name") else {
                break;
            };
            self.prof.home.push(HomeEntry {
                addr: Spanned::new(IpAddr::V4(addr), a.span),
                link: Spanned::new(l.text.clone(), l.span),
            });
        }
    }

    fn start(&mut self) {
        if let Some(n) = self.name("START", "device or interface name") {
            self.prof.starts.push(Start {
                name: Spanned::new(n.text.clone(), n.span),
            });
        }
    }

    // ---- GLOBALCONFIG -----------------------------------------------------

    fn globalconfig(&mut self) {
        const S: &str = "GLOBALCONFIG";
        while let Some((t, k)) = self.next_param(&GLOBALCONFIG_P) {
            let p = match k {
                ParamKind::Modelled(p) => p,
                ParamKind::NotModelled(k) => {
                    self.other_param(&t, &GLOBALCONFIG_P, k);
                    continue;
                }
            };
            let g = &mut self.prof.global;
            match p {
                GP::Seg | GP::NoSeg => {
                    g.segmentation_offload = Some(Spanned::new(p == GP::Seg, t.span))
                }
                GP::IqdMw | GP::NoIqdMw => {
                    g.iqdmultiwrite = Some(Spanned::new(p == GP::IqdMw, t.span))
                }
                GP::NoWlm => {
                    g.wlmpriorityq = None;
                    g.nowlmpriorityq = Some(t.span);
                }
                GP::Ziip => {
                    let mut any = false;
                    while let Some(n) = self.peek().cloned() {
                        match find(ZIIP_PARAMS, &n.text) {
                            Ok(z) => {
                                self.pos += 1;
                                any = true;
                                let g = &mut self.prof.global;
                                match z {
                                    ZP::IqdioMw | ZP::NoIqdioMw => {
                                        g.ziip_iqdiomultiwrite =
                                            Some(Spanned::new(z == ZP::IqdioMw, n.span));
                                    }
                                    ZP::IpSec | ZP::NoIpSec => {
                                        g.ziip_ipsecurity =
                                            Some(Spanned::new(z == ZP::IpSec, n.span));
                                    }
                                }
                            }
                            Err(_) => break,
                        }
                    }
                    if !any {
                        self.err(
                            t.span,
                            ErrorKind::MissingValue {
                                stmt: S,
                                name: None,
                                param: "ZIIP".into(),
                                expected: "IQDIOMULTIWRITE | NOIQDIOMULTIWRITE | IPSECURITY | NOIPSECURITY".into(),
                            },
                        );
                    }
                }
                GP::Wlm => self.wlmpriorityq(&t),
                GP::Smcr | GP::Smcd => {
                    let r = p == GP::Smcr;
                    let pfids = self.smc_options(r);
                    let g = &mut self.prof.global;
                    if r {
                        g.smcr = Some(Spanned::new(true, t.span));
                        g.smcr_pfids = pfids;
                    } else {
                        g.smcd = Some(Spanned::new(true, t.span));
                    }
                }
                GP::NoSmcr => {
                    self.prof.global.smcr = Some(Spanned::new(false, t.span));
                    self.prof.global.smcr_pfids.clear();
                }
                GP::NoSmcd => self.prof.global.smcd = Some(Spanned::new(false, t.span)),
            }
        }
    }

    /// The options after GLOBALCONFIG SMCR (`r`) or SMCD: PFID pfid (four
    /// hexadecimal digits at most; each may be followed by PORTNUM 1 or 2
    /// and MTU), FIXEDMEMORY and TCPKEEPMININTERVAL, in any order. Returns
    /// the PFIDs read. Ranges softosa has not confirmed (MTU, FIXEDMEMORY,
    /// TCPKEEPMININTERVAL) are checked for form only.
    fn smc_options(&mut self, r: bool) -> Vec<Spanned<u16>> {
        const S: &str = "GLOBALCONFIG";
        let mut pfids = Vec::new();
        while let Some(n) = self.peek().cloned() {
            let Ok(o) = find(SMC_OPTIONS, &n.text) else {
                break;
            };
            self.pos += 1;
            if !r && matches!(o, SmcOpt::Pfid | SmcOpt::PortNum | SmcOpt::Mtu) {
                self.err(
                    n.span,
                    ErrorKind::ParameterNotValidHere {
                        param: n.upper(),
                        context: "GLOBALCONFIG SMCD (its ISM functions are found, not named)"
                            .into(),
                    },
                );
                self.skip_values(&GLOBALCONFIG_P);
                continue;
            }
            match o {
                SmcOpt::Pfid => {
                    const E: &str = "a PCIe function id of 1-4 hexadecimal digits, e.g. 0018";
                    let Some(v) = self.value(S, "SMCR PFID", E) else {
                        continue;
                    };
                    let hex = !v.text.is_empty()
                        && v.text.len() <= 4
                        && v.text.bytes().all(|b| b.is_ascii_hexdigit());
                    match u16::from_str_radix(&v.text, 16).ok().filter(|_| hex) {
                        Some(id) => {
                            if pfids.iter().any(|x: &Spanned<u16>| x.value == id) {
                                self.repeated(v.span, S, format!("SMCR PFID {}", v.text));
                            }
                            pfids.push(Spanned::new(id, v.span));
                        }
                        None => self.invalid(&v, S, "SMCR PFID", E),
                    }
                }
                SmcOpt::PortNum => {
                    const E: &str = "a RoCE port number, 1 or 2";
                    if pfids.is_empty() {
                        self.err(
                            n.span,
                            ErrorKind::ParameterNotValidHere {
                                param: "PORTNUM".into(),
                                context: "GLOBALCONFIG SMCR except after a PFID".into(),
                            },
                        );
                    }
                    if let Some(v) = self.number(S, "SMCR PORTNUM", E) {
                        if !(1..=2).contains(&v.value) {
                            self.err(
                                v.span,
                                ErrorKind::InvalidValue {
                                    stmt: S,
                                    name: None,
                                    param: "SMCR PORTNUM".into(),
                                    value: v.value.to_string(),
                                    expected: E.into(),
                                },
                            );
                        }
                    }
                }
                SmcOpt::Mtu => {
                    if pfids.is_empty() {
                        self.err(
                            n.span,
                            ErrorKind::ParameterNotValidHere {
                                param: "MTU".into(),
                                context: "GLOBALCONFIG SMCR except after a PFID".into(),
                            },
                        );
                    }
                    let _ = self.number(S, "SMCR MTU", "a decimal number of bytes, e.g. 1024");
                }
                SmcOpt::FixedMemory => {
                    let p = if r {
                        "SMCR FIXEDMEMORY"
                    } else {
                        "SMCD FIXEDMEMORY"
                    };
                    let _ = self.number(S, p, "a decimal number of megabytes, e.g. 256");
                }
                SmcOpt::TcpKeep => {
                    let p = if r {
                        "SMCR TCPKEEPMININTERVAL"
                    } else {
                        "SMCD TCPKEEPMININTERVAL"
                    };
                    let _ = self.number(S, p, "a decimal number of seconds, e.g. 300");
                }
            }
        }
        pfids
    }

    fn wlmpriorityq(&mut self, t: &Token) {
        const S: &str = "GLOBALCONFIG";
        let mut w = WlmPriorityQ::default_at(t.span);
        // Which control values were coded explicitly (to catch duplicates).
        let mut seen: [bool; 8] = [false; 8];
        while let Some(n) = self.peek().cloned() {
            let u = n.upper();
            let Some(q) = u
                .strip_prefix("IOPRI")
                .and_then(|d| d.parse::<u8>().ok())
                .filter(|_| u.len() == 6)
            else {
                break;
            };
            self.pos += 1;
            if !(1..=4).contains(&q) {
                self.invalid(&n, S, "WLMPRIORITYQ", "IOPRI1, IOPRI2, IOPRI3 or IOPRI4");
                continue;
            }
            let mut count = 0;
            while let Some(v) = self.peek().cloned() {
                let vu = v.upper();
                let idx = if vu == "FWD" {
                    7usize
                } else if let Some(d) = parse_dec(&vu).filter(|_| vu.len() == 1) {
                    if d > 6 {
                        self.pos += 1;
                        // A value was given, if not a valid one: no
                        // "missing" besides.
                        count += 1;
                        self.invalid(&v, S, "WLMPRIORITYQ", "control values are 0-6 or FWD");
                        continue;
                    }
                    d as usize
                } else {
                    break;
                };
                self.pos += 1;
                count += 1;
                if seen.get(idx).copied().unwrap_or(false) {
                    self.err(v.span, ErrorKind::WlmDuplicateValue(vu.clone()));
                    continue;
                }
                if let Some(s) = seen.get_mut(idx) {
                    *s = true;
                }
                if idx == 7 {
                    w.fwd_queue = q;
                } else if let Some(slot) = w.queue_for_value.get_mut(idx) {
                    *slot = q;
                }
            }
            if count == 0 {
                self.err(
                    n.span,
                    ErrorKind::MissingValue {
                        stmt: S,
                        name: None,
                        param: "WLMPRIORITYQ IOPRIn".into(),
                        expected: "control values 0-6 or FWD".into(),
                    },
                );
            }
        }
        self.prof.global.wlmpriorityq = Some(w);
        self.prof.global.nowlmpriorityq = None;
    }

    // ---- IPCONFIG ---------------------------------------------------------

    fn ipconfig(&mut self) {
        while let Some((t, k)) = self.next_param(&IPCONFIG_P) {
            let p = match k {
                ParamKind::Modelled(p) => p,
                ParamKind::NotModelled(k) => {
                    self.other_param(&t, &IPCONFIG_P, k);
                    continue;
                }
            };
            match p {
                CP::Fwd | CP::NoFwd => {
                    self.prof.ip.datagramfwd = Some(Spanned::new(p == CP::Fwd, t.span));
                    if p == CP::Fwd {
                        self.sub_params(&IPCONFIG_P, "DATAGRAMFWD");
                    }
                }
                CP::Accel | CP::NoAccel | CP::Iqdr | CP::NoIqdr => {
                    let on = matches!(p, CP::Accel | CP::Iqdr);
                    if matches!(p, CP::Accel | CP::NoAccel) {
                        self.prof.ip.qdioaccelerator = Some(Spanned::new(on, t.span));
                    } else {
                        self.prof.ip.iqdiorouting = Some(Spanned::new(on, t.span));
                    }
                    if on
                        && self
                            .peek()
                            .is_some_and(|n| find(IPCONFIG_PARAMS, &n.text) == Ok(CP::QdioPri))
                    {
                        self.pos += 1;
                        self.qdiopriority();
                    }
                }
                CP::QdioPri => self.err(
                    t.span,
                    ErrorKind::ParameterNotValidHere {
                        param: "QDIOPRIORITY".into(),
                        context: "IPCONFIG except right after QDIOACCELERATOR or IQDIOROUTING"
                            .into(),
                    },
                ),
                CP::Xcf => self.dynamicxcf(&t),
                CP::NoXcf => {
                    self.prof.ip.dynamicxcf = None;
                    self.prof.ip.nodynamicxcf = Some(t.span);
                }
                CP::IpSec => self.prof.ip.ipsecurity = Some(t.span),
                CP::Seg | CP::NoSeg => {
                    self.prof.ip.segmentation_offload = Some(Spanned::new(p == CP::Seg, t.span));
                }
            }
        }
    }

    /// TCPCONFIG: the buffer sizes, the delayed-ACK choice and the fast
    /// retransmit threshold are kept (the last coded wins, as over several
    /// TCPCONFIG statements); the other parameters are read and ignored.
    fn tcpconfig(&mut self) {
        const S: &str = "TCPCONFIG";
        while let Some((t, k)) = self.next_param(&TCPCONFIG_P) {
            let p = match k {
                ParamKind::Modelled(p) => p,
                ParamKind::NotModelled(k) => {
                    self.other_param(&t, &TCPCONFIG_P, k);
                    continue;
                }
            };
            // Its name in messages; the three delayed-ACK choices are one
            // setting when repeated.
            let name = match p {
                TP::SendBuf => "TCPSENDBFRSIZE",
                TP::RcvBuf => "TCPRCVBUFRSIZE",
                TP::MaxRcvBuf => "TCPMAXRCVBUFRSIZE",
                TP::MaxSendBuf => "TCPMAXSENDBUFRSIZE",
                TP::Delay | TP::NoDelay | TP::AutoDelay => "DELAYACKS/NODELAYACKS/AUTODELAYACKS",
                TP::Frr => "FRRTHRESHOLD",
                TP::TimeWait => "TIMEWAITINTERVAL",
            };
            self.note_repeat(t.span, S, name.to_string());
            match p {
                TP::SendBuf | TP::RcvBuf | TP::MaxRcvBuf | TP::MaxSendBuf => {
                    let max = if p == TP::MaxRcvBuf {
                        TCP_MAX_RCV_BUF_MAX
                    } else {
                        u32::MAX
                    };
                    let Some(v) = self.tcp_size(name, max) else {
                        continue;
                    };
                    let tc = &mut self.prof.tcp;
                    let slot = match p {
                        TP::SendBuf => &mut tc.send_buf,
                        TP::RcvBuf => &mut tc.rcv_buf,
                        TP::MaxRcvBuf => &mut tc.max_rcv_buf,
                        _ => &mut tc.max_send_buf,
                    };
                    *slot = Some(v);
                }
                TP::Delay | TP::NoDelay | TP::AutoDelay => {
                    let d = match p {
                        TP::Delay => DelayAcks::Delay,
                        TP::NoDelay => DelayAcks::NoDelay,
                        _ => DelayAcks::Auto,
                    };
                    self.prof.tcp.delay_acks = Some(Spanned::new(d, t.span));
                }
                TP::Frr => {
                    const E: &str = "a number of duplicate ACKs, at least 1";
                    if let Some(v) = self.number_in(S, name, E, 1..=u32::MAX) {
                        self.prof.tcp.frr_threshold = Some(v);
                    }
                }
                TP::TimeWait => {
                    const E: &str = "seconds, 0-120";
                    if let Some(v) = self.number_in(S, name, E, 0..=TIME_WAIT_MAX_S) {
                        self.prof.tcp.time_wait = Some(v);
                    }
                }
            }
        }
    }

    /// A TCPCONFIG buffer size: bytes, or kilobytes with K (`256K`), from
    /// 256 bytes to `max`.
    fn tcp_size(&mut self, param: &'static str, max: u32) -> Option<Spanned<u32>> {
        const S: &str = "TCPCONFIG";
        let expected = if max == TCP_MAX_RCV_BUF_MAX {
            "a size in bytes, or in K (e.g. 256K), from 256 to 512K"
        } else {
            "a size in bytes, or in K (e.g. 256K), of at least 256"
        };
        let t = self.value(S, param, expected)?;
        let text = t.text.as_str();
        let (digits, unit) = match text.strip_suffix(['K', 'k']) {
            Some(d) => (d, 1024u32),
            None => (text, 1),
        };
        match parse_dec(digits).and_then(|n| n.checked_mul(unit)) {
            Some(n) if (TCP_BUF_MIN..=max).contains(&n) => Some(Spanned::new(n, t.span)),
            _ => {
                self.invalid(&t, S, param, expected);
                None
            }
        }
    }

    fn qdiopriority(&mut self) {
        if let Some(v) = self.number("IPCONFIG", "QDIOPRIORITY", "a write queue priority 1-4") {
            if (1..=4).contains(&v.value) {
                self.prof.ip.qdiopriority = Some(Spanned::new(v.value as u8, v.span));
            } else {
                self.err(
                    v.span,
                    ErrorKind::InvalidValue {
                        stmt: "IPCONFIG",
                        name: None,
                        param: "QDIOPRIORITY".into(),
                        value: v.value.to_string(),
                        expected: "a write queue priority 1-4".into(),
                    },
                );
            }
        }
    }

    /// `DYNAMICXCF address mask cost` and then its sub-parameters. After a
    /// refused value, the rest of its values are skipped and its
    /// sub-parameters still read, so that one mistake is one error.
    fn dynamicxcf(&mut self, t: &Token) {
        match self.dynamicxcf_values(t.span) {
            Some(xcf) => {
                self.prof.ip.dynamicxcf = Some(xcf);
                self.prof.ip.nodynamicxcf = None;
            }
            None => self.skip_values(&IPCONFIG_P),
        }
        self.sub_params(&IPCONFIG_P, "DYNAMICXCF");
    }

    /// DYNAMICXCF's address, mask and cost metric; None after an error.
    fn dynamicxcf_values(&mut self, span: Span) -> Option<DynamicXcf> {
        const S: &str = "IPCONFIG";
        let a = self.value(S, "DYNAMICXCF", "ipv4_address subnet_mask cost_metric")?;
        let (addr, prefix) = match a.text.split_once('/') {
            Some(_) => match parse_prefix(&a.text) {
                Ok(IpPrefix {
                    addr: IpAddr::V4(v4),
                    prefix: Some(p),
                }) => (v4, p),
                _ => {
                    self.invalid(&a, S, "DYNAMICXCF", "ipv4_address/num_mask_bits");
                    return None;
                }
            },
            None => {
                let Some(v4) = parse_ipv4(&a.text) else {
                    self.invalid(&a, S, "DYNAMICXCF", "an IPv4 address");
                    return None;
                };
                let m = self.value(S, "DYNAMICXCF", "subnet mask, e.g. 255.255.255.0")?;
                let p = self.mask(
                    &m,
                    "IPCONFIG DYNAMICXCF",
                    (S, "DYNAMICXCF"),
                    "a contiguous subnet mask, e.g. 255.255.255.0",
                )?;
                (v4, p)
            }
        };
        let c = self.number(S, "DYNAMICXCF", "cost metric 1-16")?;
        let Some(cost) = u8::try_from(c.value).ok().filter(|c| (1..=16).contains(c)) else {
            self.err(
                c.span,
                ErrorKind::InvalidValue {
                    stmt: S,
                    name: None,
                    param: "DYNAMICXCF".into(),
                    value: c.value.to_string(),
                    expected: "cost metric 1-16".into(),
                },
            );
            return None;
        };
        Some(DynamicXcf {
            addr,
            prefix,
            cost,
            span,
        })
    }

    // ---- blocks (VIPADYNAMIC, BEGINROUTES) ------------------------------

    /// The next item inside a block opened by `kwt`, consumed; `None` when the
    /// block ends: at its end statement (consumed), or — reported as an
    /// unclosed block — at the end of the file, at another top-level
    /// statement, or (when `unsupported_ends`) at a statement softosa does not
    /// support.
    fn block_item(
        &mut self,
        kwt: &Token,
        (begin, end, end_stmt): (&'static str, &'static str, Stmt),
        unsupported_ends: bool,
    ) -> Option<Token> {
        let unclosed = |p: &mut Self| p.err(kwt.span, ErrorKind::UnclosedBlock { begin, end });
        let Some(t) = self.peek().cloned() else {
            unclosed(self);
            return None;
        };
        match stmt_of(&t.text) {
            Some(st) if st == end_stmt => {
                self.pos += 1;
                return None;
            }
            Some(_) => {
                unclosed(self);
                return None;
            }
            None if unsupported_ends && is_unsupported(&t.text) => {
                unclosed(self);
                return None;
            }
            None => {}
        }
        self.pos += 1;
        Some(t)
    }

    // ---- VIPADYNAMIC ------------------------------------------------------

    /// Inside VIPADYNAMIC, the block ends at ENDVIPADYNAMIC; sub-statements
    /// are VIPADEFINE and VIPADISTRIBUTE.
    fn vipadynamic(&mut self, kwt: &Token) {
        let block = ("VIPADYNAMIC", "ENDVIPADYNAMIC", Stmt::EndVipaDynamic);
        while let Some(t) = self.block_item(kwt, block, false) {
            match t.upper().as_str() {
                "VIPADEFINE" => self.vipadefine(&t),
                "VIPADISTRIBUTE" => self.vipadistribute(&t),
                "VIPABACKUP" | "VIPARANGE" | "VIPADELETE" | "VIPAROUTE" | "VIPASMPARMS"
                | "VIPASOURCE" => {
                    self.warn(t.span, WarningKind::NotModelled(t.upper()));
                    self.skip_vipa_sub();
                }
                _ => {
                    self.err(
                        t.span,
                        ErrorKind::UnknownStatement(format!("{} (inside VIPADYNAMIC)", t.text)),
                    );
                    self.skip_vipa_sub();
                }
            }
        }
    }

    /// Where a VIPADYNAMIC sub-statement ends. PORT is a statement of its
    /// own outside the block, but inside it is VIPADISTRIBUTE's parameter.
    fn is_vipa_sub(tok: &str) -> bool {
        tok.to_ascii_uppercase().starts_with("VIPA")
            || stmt_of(tok).is_some()
            || (is_unsupported(tok) && !tok.eq_ignore_ascii_case("PORT"))
    }

    fn skip_vipa_sub(&mut self) {
        while self.peek().is_some_and(|t| !Self::is_vipa_sub(&t.text)) {
            self.pos += 1;
        }
    }

    fn vipadefine(&mut self, t: &Token) {
        const S: &str = "VIPADEFINE";
        let mut moveable = None;
        if self.peek().is_some_and(|n| n.upper() == "MOVEABLE") {
            self.pos += 1;
            if let Some(m) = self.peek().cloned() {
                let u = m.upper();
                if ["IMMEDIATE", "WHENIDLE", "DISRUPTIVE"].contains(&u.as_str()) {
                    self.pos += 1;
                    moveable = Some(u);
                }
            }
        }
        let Some(first) = self.value(
            S,
            "address",
            "subnet_mask ipv4_address..., or ipv4_address/bits",
        ) else {
            return;
        };
        let mut def = VipaDefine {
            prefix: 32,
            addrs: Vec::new(),
            moveable,
            span: t.span,
        };
        if let Ok(IpPrefix {
            addr: IpAddr::V4(a),
            prefix: Some(p),
        }) = parse_prefix(&first.text)
        {
            def.prefix = p;
            def.addrs.push(Spanned::new(a, first.span));
        } else {
            let Some(p) = self.mask(
                &first,
                S,
                (S, "subnet mask"),
                "a contiguous subnet mask, e.g. 255.255.255.0",
            ) else {
                self.skip_vipa_sub();
                return;
            };
            def.prefix = p;
        }
        while let Some(n) = self.peek().cloned() {
            if Self::is_vipa_sub(&n.text) {
                break;
            }
            self.pos += 1;
            match parse_ipv4(&n.text) {
                Some(a) => def.addrs.push(Spanned::new(a, n.span)),
                None => self.invalid(&n, S, "address", "an IPv4 dynamic VIPA address"),
            }
        }
        if def.addrs.is_empty() {
            self.err(
                t.span,
                ErrorKind::MissingRequired {
                    stmt: S,
                    name: None,
                    what: "dynamic VIPA address".into(),
                },
            );
        }
        self.prof.vipa.defines.push(def);
    }

    fn vipadistribute(&mut self, t: &Token) {
        const S: &str = "VIPADISTRIBUTE";
        let mut method = DistMethod::default();
        let mut addr = None;
        let mut ports = Vec::new();
        let mut destip = None;
        // VIPADISTRIBUTE options softosa reads and does not model
        // (VIPADYNAMIC - VIPADISTRIBUTE statement): the word, and whether
        // a number follows (OPTLOCAL's is optional).
        const NOT_MODELLED: &[(&str, Option<bool>)] = &[
            ("SYSPLEXPORTS", None),
            ("OPTLOCAL", Some(false)),
            ("TIMEDAFFINITY", Some(true)),
            // HOTSTANDBY's switching options.
            ("AUTOSWITCHBACK", None),
            ("NOAUTOSWITCHBACK", None),
            ("HEALTHSWITCH", None),
            ("NOHEALTHSWITCH", None),
        ];
        let not_modelled = |p: &mut Self, n: &Token, param: String| {
            p.warn(
                n.span,
                WarningKind::ParameterNotModelled {
                    stmt: S,
                    name: None,
                    param,
                },
            );
        };
        while let Some(n) = self.peek().cloned() {
            let u = n.upper();
            if let Some((_, number)) = NOT_MODELLED.iter().find(|(w, _)| *w == u) {
                self.pos += 1;
                let follows = self.peek().and_then(|v| parse_dec(&v.text));
                match (number, follows) {
                    (Some(_), Some(_)) => self.pos += 1,
                    (Some(true), None) => {
                        self.err(
                            n.span,
                            ErrorKind::MissingValue {
                                stmt: S,
                                name: None,
                                param: u.clone().into(),
                                expected: "a number of seconds".into(),
                            },
                        );
                        continue;
                    }
                    _ => {}
                }
                not_modelled(self, &n, u);
                continue;
            }
            if Self::is_vipa_sub(&n.text) {
                break;
            }
            self.pos += 1;
            match u.as_str() {
                "DEFINE" => {}
                "DISTMETHOD" => {
                    if let Some(m) = self.value(S, "DISTMETHOD", "BASEWLM | ROUNDROBIN | SERVERWLM | WEIGHTEDACTIVE | TARGCONTROLLED | HOTSTANDBY") {
                        match DistMethod::ALL.iter().find(|(_, k)| *k == m.upper()) {
                            Some((d, _)) => method = *d,
                            None => self.invalid(&m, S, "DISTMETHOD", "BASEWLM | ROUNDROBIN | SERVERWLM | WEIGHTEDACTIVE | TARGCONTROLLED | HOTSTANDBY"),
                        }
                    }
                }
                "PORT" => {
                    while let Some(p) = self.peek().cloned() {
                        let Some(v) = parse_dec(&p.text) else { break };
                        self.pos += 1;
                        match u16::try_from(v).ok().filter(|v| *v > 0) {
                            Some(v) => ports.push(v),
                            None => self.invalid(&p, S, "PORT", "a port number 1-65535"),
                        }
                    }
                    if ports.is_empty() {
                        self.err(n.span, ErrorKind::MissingValue { stmt: S, name: None, param: "PORT".into(), expected: "one or more port numbers".into() });
                    }
                }
                "DESTIP" => {
                    if self.peek().is_some_and(|p| p.upper() == "ALL") {
                        self.pos += 1;
                        destip = Some(DestIp::All);
                    } else {
                        let mut list = Vec::new();
                        while let Some(p) = self.peek().cloned() {
                            // A target's WEIGHT (WEIGHTEDACTIVE), or
                            // PREFERRED / BACKUP rank (HOTSTANDBY).
                            let w = p.upper();
                            if !list.is_empty() && ["WEIGHT", "PREFERRED", "BACKUP"].contains(&w.as_str()) {
                                self.pos += 1;
                                let what = format!("DESTIP {w}");
                                if w != "PREFERRED" {
                                    match self.peek().and_then(|v| parse_dec(&v.text)) {
                                        Some(_) => self.pos += 1,
                                        None => {
                                            self.err(p.span, ErrorKind::MissingValue { stmt: S, name: None, param: what.into(), expected: "a number".into() });
                                            continue;
                                        }
                                    }
                                }
                                not_modelled(self, &p, what);
                                continue;
                            }
                            let Some(a) = parse_ipv4(&p.text) else { break };
                            self.pos += 1;
                            list.push(a);
                        }
                        if list.is_empty() {
                            self.err(n.span, ErrorKind::MissingValue { stmt: S, name: None, param: "DESTIP".into(), expected: "ALL or one or more dynamic XCF addresses".into() });
                        } else {
                            destip = Some(DestIp::List(list));
                        }
                    }
                }
                _ => match parse_ipv4(&n.text) {
                    Some(a) if addr.is_none() => addr = Some(Spanned::new(a, n.span)),
                    _ => self.err(n.span, ErrorKind::UnknownParameter { stmt: S, name: self.named.clone(), param: n.text.clone() }),
                },
            }
        }
        let Some(addr) = addr else {
            self.err(
                t.span,
                ErrorKind::MissingRequired {
                    stmt: S,
                    name: None,
                    what: "distributed dynamic VIPA address".into(),
                },
            );
            return;
        };
        if ports.is_empty() {
            self.err(
                t.span,
                ErrorKind::MissingRequired {
                    stmt: S,
                    name: None,
                    what: "PORT list".into(),
                },
            );
        }
        let Some(destip) = destip else {
            self.err(
                t.span,
                ErrorKind::MissingRequired {
                    stmt: S,
                    name: None,
                    what: "DESTIP ALL | addresses".into(),
                },
            );
            return;
        };
        self.prof.vipa.distributes.push(VipaDistribute {
            addr,
            method,
            ports,
            destip,
            span: t.span,
        });
    }

    // ---- BEGINROUTES ------------------------------------------------------

    fn beginroutes(&mut self, kwt: &Token) {
        let block = ("BEGINROUTES", "ENDROUTES", Stmt::EndRoutes);
        while let Some(t) = self.block_item(kwt, block, true) {
            if t.upper() == "ROUTE" {
                self.route(&t);
            } else {
                self.err(
                    t.span,
                    ErrorKind::UnknownStatement(format!(
                        "{} (inside BEGINROUTES; expected ROUTE)",
                        t.text
                    )),
                );
                self.skip_route();
            }
        }
    }

    fn route_end(tok: &str) -> bool {
        tok.eq_ignore_ascii_case("ROUTE") || starts_statement(tok)
    }

    fn skip_route(&mut self) {
        while self.peek().is_some_and(|t| !Self::route_end(&t.text)) {
            self.pos += 1;
        }
    }

    fn route(&mut self, t: &Token) {
        const S: &str = "ROUTE";
        self.seen.clear();
        // Named by its destination once that is read (a block holds many
        // ROUTEs, and this one's errors must not take the last one's).
        self.named = None;
        let Some(d) = self.value(
            S,
            "destination",
            "DEFAULT, DEFAULT6, address/prefix, or address subnet_mask",
        ) else {
            return;
        };
        let word = d.upper();
        let dest = if word == "DEFAULT" {
            RouteDest::Default
        } else if word == "DEFAULT6" {
            RouteDest::Default6
        } else if word.starts_with("DEFAULT") {
            // DEFAULTNET is the GATEWAY statement's word; other spellings
            // are guesses at the two that BEGINROUTES knows.
            self.invalid(
                &d,
                S,
                "destination",
                "the default routes are coded DEFAULT (IPv4) and DEFAULT6 (IPv6); DEFAULTNET belongs to the GATEWAY statement",
            );
            self.skip_route();
            return;
        } else {
            match parse_prefix(&d.text) {
                Ok(IpPrefix {
                    addr,
                    prefix: Some(p),
                }) => RouteDest::Net(addr, p),
                Ok(IpPrefix { addr, prefix: None }) => {
                    // `dest subnet_mask first_hop link`, `dest HOST first_hop
                    // link`, or (softosa) `dest first_hop link` as a host
                    // route. The word after the destination is the mask when
                    // a first hop (`=` or an address) follows it.
                    let host = if addr.is_ipv4() { 32 } else { 128 };
                    let next = self.peek().cloned();
                    let hop_after = self
                        .toks
                        .get(self.pos + 1)
                        .is_some_and(|h| h.text == "=" || parse_ip(&h.text).is_some());
                    match next {
                        Some(h) if h.upper() == "HOST" => {
                            self.pos += 1;
                            RouteDest::Net(addr, host)
                        }
                        Some(m) if addr.is_ipv4() && hop_after && m.text != "=" => {
                            self.pos += 1;
                            let Some(p) = self.mask(
                                &m,
                                S,
                                (S, "subnet mask"),
                                "a dotted subnet mask, e.g. 255.255.255.0, or HOST",
                            ) else {
                                self.skip_route();
                                return;
                            };
                            RouteDest::Net(addr, p)
                        }
                        _ => RouteDest::Net(addr, host),
                    }
                }
                Err(why) => {
                    self.invalid(&d, S, "destination", why);
                    self.skip_route();
                    return;
                }
            }
        };
        self.named = Some(dest.to_string());
        self.named_stmt = S;
        let Some(g) = self.value(S, "first hop", "= or a gateway address") else {
            return;
        };
        let gateway = if g.text == "=" {
            None
        } else {
            match parse_ip(&g.text) {
                Some(a) if a.is_ipv6() != dest.is_ipv6() => {
                    self.err(
                        g.span,
                        ErrorKind::RouteHopVersion {
                            dest: dest.to_string(),
                            hop: g.text.clone(),
                            dest_v6: dest.is_ipv6(),
                            default: matches!(dest, RouteDest::Default | RouteDest::Default6),
                        },
                    );
                    self.skip_route();
                    return;
                }
                Some(a) => Some(a),
                None => {
                    self.invalid(&g, S, "first hop", "= or a gateway address");
                    self.skip_route();
                    return;
                }
            }
        };
        let Some(l) = self.name(S, "link name") else {
            self.skip_route();
            return;
        };
        let mut mtu = None;
        let mut replaceable = None;
        while let Some((n, k)) = self.next_param(&ROUTE_P) {
            match k {
                ParamKind::Modelled(RP::Mtu) => {
                    self.note_repeat(n.span, S, "MTU".into());
                    if let Some(v) = self.value(S, "MTU", "a number or DEFAULTSIZE") {
                        if v.upper() != "DEFAULTSIZE" {
                            match parse_dec(&v.text) {
                                Some(m) => mtu = Some(m),
                                None => self.invalid(&v, S, "MTU", "a number or DEFAULTSIZE"),
                            }
                        }
                    }
                }
                ParamKind::Modelled(r @ (RP::Repl | RP::NoRepl)) => {
                    self.note_repeat(n.span, S, "REPLACEABLE/NOREPLACEABLE".into());
                    replaceable = Some(r == RP::Repl);
                }
                ParamKind::NotModelled(k) => self.other_param(&n, &ROUTE_P, k),
            }
        }
        self.prof.routes.push(Route {
            dest,
            gateway,
            link: Spanned::new(l.text.clone(), l.span),
            mtu,
            replaceable,
            span: t.span,
        });
    }
}

/// An interface's own address must be one a host can have: not the
/// unspecified address, a broadcast, multicast, loopback or reserved one.
pub fn unicast(a: std::net::IpAddr) -> Result<(), &'static str> {
    use std::net::IpAddr;
    let v4 = match a {
        IpAddr::V4(v) => Some(v),
        IpAddr::V6(_) => None,
    };
    Err(if a.is_unspecified() {
        "the unspecified address; an interface needs a unicast address"
    } else if v4.is_some_and(|v| v.is_broadcast()) {
        "the broadcast address; an interface needs a unicast address"
    } else if a.is_multicast() {
        "a multicast address; an interface needs a unicast address"
    } else if a.is_loopback() && v4.is_some() {
        "a loopback address; an interface needs a unicast address, and z/OS has its own LOOPBACK interface"
    } else if a.is_loopback() {
        "the loopback address; an interface needs a unicast address, and z/OS has its own LOOPBACK interface"
    } else if v4.is_some_and(|v| v.octets()[0] >= 240) {
        "a reserved address (240.0.0.0/4); an interface needs a unicast address"
    } else {
        return Ok(());
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_prefix() {
        assert_eq!(mask_to_prefix(Ipv4Addr::new(255, 255, 255, 0)), Some(24));
        assert_eq!(mask_to_prefix(Ipv4Addr::new(255, 255, 255, 255)), Some(32));
        assert_eq!(mask_to_prefix(Ipv4Addr::new(0, 0, 0, 0)), Some(0));
        assert_eq!(mask_to_prefix(Ipv4Addr::new(255, 0, 255, 0)), None);
    }

    /// Every keyword of the statements softosa reads, as the full word and
    /// as its shortest abbreviation.
    fn spellings<T: Copy>(ps: &Params<T>) -> Vec<String> {
        let o = ps.others;
        let kws = ps
            .modelled
            .iter()
            .map(|(k, _)| *k)
            .chain(o.other.iter().map(|x| x.kw))
            .chain(o.subs.iter().flat_map(|s| s.params.iter().map(|x| x.kw)))
            .chain(o.unsupported.iter().copied());
        kws.flat_map(|k| [k.full_upper(), k.min_upper().to_string()])
            .collect()
    }

    /// Does the statement of `ps` end before `w`?
    fn ends<T: Copy>(ps: &Params<T>, w: &str) -> bool {
        ps.ends_at(w, &ps.kind(w))
    }

    /// Which parameters of IPCONFIG, GLOBALCONFIG, INTERFACE and ROUTE
    /// are also statement keywords. Inside its statement each is read as
    /// the parameter (the statement does not end there); today that is
    /// GLOBALCONFIG TCPIPSTATISTICS only. A new one is found here.
    #[test]
    fn statement_keywords_that_are_parameters_do_not_end_their_statement() {
        let mut both = Vec::new();
        let mut check = |stmt: &str, words: Vec<String>, ends: &dyn Fn(&str) -> bool| {
            for w in words {
                if starts_statement(&w) || w == "ROUTE" {
                    assert!(!ends(&w), "{stmt} {w}");
                    both.push(format!("{stmt} {w}"));
                }
            }
        };
        check("INTERFACE", spellings(&INTERFACE_P), &|w| {
            ends(&INTERFACE_P, w)
        });
        check("GLOBALCONFIG", spellings(&GLOBALCONFIG_P), &|w| {
            ends(&GLOBALCONFIG_P, w)
        });
        check("IPCONFIG", spellings(&IPCONFIG_P), &|w| {
            ends(&IPCONFIG_P, w)
        });
        check("ROUTE", spellings(&ROUTE_P), &|w| ends(&ROUTE_P, w));
        both.dedup();
        assert_eq!(both, ["GLOBALCONFIG TCPIPSTATISTICS"]);
    }

    /// Each entry of UNSUPPORTED_PARAMS is an unmodelled statement, and
    /// each of its parameters a statement keyword (else it needs no entry).
    #[test]
    fn unsupported_params_are_statement_keywords_of_unmodelled_statements() {
        for (stmt, params) in UNSUPPORTED_PARAMS {
            assert!(UNSUPPORTED.contains(stmt), "{stmt}");
            for p in *params {
                assert!(starts_statement(p), "{stmt} {p}");
                assert!(is_unsupported_param(stmt, &p.to_ascii_lowercase()));
            }
        }
    }

    #[test]
    fn ipv4_strict() {
        assert!(parse_ipv4("1.2.3.4").is_some());
        assert!(parse_ipv4("1.2.3").is_none());
        assert!(parse_ipv4("1.2.3.256").is_none());
        assert!(parse_ipv4("+1.2.3.4").is_none());
    }
}
