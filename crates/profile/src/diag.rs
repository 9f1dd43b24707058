//! Diagnostics: every error and warning the profile, policy and TRLE readers
//! produce, with the file, line and column it refers to (spec 5.1: "unknown or
//! unsupported statements are reported with file, line and column").
//!
//! Layer: configuration front end. Nothing here panics; all problems are
//! collected so that one run reports every mistake in a file, as the z/OS
//! profile check does.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::hash::{Hash, Hasher};

/// A position in a source file: 1-based line and column (columns count
/// characters, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize)]
pub struct Span {
    pub line: u32,
    pub col: u32,
}

impl Span {
    pub const fn new(line: u32, col: u32) -> Self {
        Span { line, col }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A value together with where it was coded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub const fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }
}

/// Errors: the statement (or the whole configuration) cannot be used as coded.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum ErrorKind {
    // ---- syntax -------------------------------------------------------
    #[error("unknown statement {0}")]
    UnknownStatement(String),
    /// Statements, none of which a profile has: the wrong file.
    #[error(
        "this does not look like a TCP/IP profile: none of its {statements} statements is one \
         (the first is {first:?}); a profile holds statements such as INTERFACE, DEVICE, LINK, \
         HOME, GLOBALCONFIG, IPCONFIG and START"
    )]
    NotAProfile { statements: usize, first: String },
    /// A `.toml` file: a softosa scenario, not a profile.
    #[error(
        "this is a softosa scenario (a .toml file), not a TCP/IP profile: run it with softosa sim \
         FILE; its z/OS hosts' profiles are its profile and profile_text fields"
    )]
    ScenarioNotProfile,
    #[error("statement {0} is a valid z/OS statement but softosa does not support it")]
    UnsupportedStatement(String),
    /// `min` is the whole keyword when z/OS accepts no abbreviation of it.
    /// `whose`: the statement and its name ("INTERFACE O7") when the
    /// keyword is a parameter of a named statement.
    #[error(
        "{}{got} is too short an abbreviation of {keyword}: {}",
        whose.as_deref().map(|w| format!("{w}: ")).unwrap_or_default(),
        code_at_least(keyword, min)
    )]
    AbbreviationTooShort {
        whose: Option<String>,
        got: String,
        keyword: &'static str,
        min: &'static str,
    },
    /// `name` as for [`ErrorKind::MissingValue`].
    #[error("unknown parameter {param} on the {stmt}{} statement", space_then_name(name.as_deref()))]
    UnknownParameter {
        stmt: &'static str,
        name: Option<String>,
        param: String,
    },
    /// A real z/OS parameter of a statement softosa reads, whose values
    /// softosa cannot check (IP Configuration Reference lists it, but the
    /// form of its values is not one softosa knows).
    #[error("{param} is a z/OS parameter of the {stmt} statement, but softosa does not support it: its values cannot be checked, so they are skipped up to the next parameter softosa knows; check them on z/OS (VARY TCPIP,,SYNTAXCHECK)")]
    UnsupportedParameter { stmt: &'static str, param: String },
    #[error("parameter {param} is not valid on {context}")]
    ParameterNotValidHere { param: String, context: String },
    /// `name`: the statement's own name, when it has one and it was read
    /// before the value (an INTERFACE's, a LINK's), so that the message
    /// says whose parameter it is.
    #[error("{stmt} {}{param}: a value is missing ({expected})", name_then_space(name.as_deref()))]
    MissingValue {
        stmt: &'static str,
        name: Option<String>,
        param: Cow<'static, str>,
        expected: Cow<'static, str>,
    },
    /// `name` as for [`ErrorKind::MissingValue`].
    #[error("{stmt} {}{param}: {value} is not valid ({expected})", name_then_space(name.as_deref()))]
    InvalidValue {
        stmt: &'static str,
        name: Option<String>,
        param: Cow<'static, str>,
        value: String,
        expected: String,
    },
    #[error("{stmt}: subnet mask {mask} is not valid: it is not contiguous (the one bits of a mask come first, with no zero bit between them, e.g. 255.255.0.0)")]
    MaskNotContiguous { stmt: &'static str, mask: String },
    /// `name` as for [`ErrorKind::MissingValue`].
    #[error("{stmt}{}: the required {what} is missing", space_then_name(name.as_deref()))]
    MissingRequired {
        stmt: &'static str,
        name: Option<String>,
        what: String,
    },
    #[error("{0} without a matching begin statement")]
    UnmatchedEnd(&'static str),
    #[error("{begin} block is not closed: {end} is missing")]
    UnclosedBlock {
        begin: &'static str,
        end: &'static str,
    },
    #[error("unexpected {0}")]
    Unexpected(String),
    #[error("{lines} line(s) carry a sequence number in columns 73-80 (this one first): sequence numbers are not allowed in a TCP/IP profile, z/OS reads them as parameters; remove them (ISPF: UNNUM, then NUMBER OFF)")]
    SequenceNumbers { lines: usize },
    #[error("/* does not begin a comment in a TCP/IP profile: ';' does, and the comment runs to the end of the line")]
    SlashStarComment,

    // ---- rules (spec 5.1 / 1.4 / 2.3 / 2.4 / 3.3) ----------------------
    #[error("interface {0}: WORKLOADQ requires INBPERF DYNAMIC")]
    WorkloadqNeedsDynamic(String),
    #[error(
        "interface {0}: WORKLOADQ requires a VMAC (inbound workload queueing needs a virtual MAC)"
    )]
    WorkloadqNeedsVmac(String),
    #[error("LINK {0}: WORKLOADQ is only supported on the INTERFACE statement; convert the DEVICE/LINK/HOME definitions to INTERFACE")]
    WorkloadqOnLink(String),
    #[error("LINK {0}: OLM is only supported on the INTERFACE statement; convert the DEVICE/LINK/HOME definitions to INTERFACE")]
    OlmOnLink(String),
    #[error("interface {intf}: {param} is not valid for DEFINE {kind}")]
    NotValidForKind {
        intf: String,
        param: &'static str,
        kind: &'static str,
    },
    /// An OSA parameter (INBPERF, WORKLOADQ, OLM, ISOLATE and their NO
    /// forms) on a LINK IPAQIDIO.
    #[error("LINK {link}: {param} is not valid on a LINK for an IPAQIDIO (HiperSockets) device; it is an OSA-Express (IPAQENET) parameter")]
    NotValidOnIdioLink { link: String, param: &'static str },
    #[error("VMAC {0}: a virtual MAC address must be exactly 12 hexadecimal digits")]
    VmacFormat(String),
    #[error("VMAC {0}: the locally administered bit (X'02' in the first byte) must be on in a user-defined virtual MAC")]
    VmacNotLocal(String),
    #[error(
        "VMAC {0}: a multicast MAC address (X'01' bit of the first byte) cannot be a virtual MAC"
    )]
    VmacMulticast(String),
    #[error("interface {intf}: refused, OSA port {port} already has {count} interfaces and an interface on it uses OLM (limit 4 per port)")]
    OlmPortLimit {
        intf: String,
        port: String,
        count: usize,
    },
    #[error("interface {intf}: refused, CHPID {chpid:02X} already has {count} interfaces and an interface on it uses OLM (limit 8 per CHPID)")]
    OlmChpidLimit {
        intf: String,
        chpid: u8,
        count: usize,
    },
    #[error("IPCONFIG IQDIOROUTING cannot be enabled while QDIOACCELERATOR is in effect")]
    IqdioroutingWithAccelerator,
    #[error("interface {intf}: PORTNAME {port} does not match the PORTNAME of any TRLE")]
    PortnameNoTrle { intf: String, port: String },
    #[error("interface {intf}: IPADDR {addr} needs a prefix length, e.g. {addr}/24")]
    PrefixRequired { intf: String, addr: String },
    #[error("interface {intf}: VLANID {value} is outside the range 1-4094")]
    VlanRange { intf: String, value: u32 },
    #[error("interface {intf}: MTU {value} is outside the range {min}-{max} for {kind}")]
    MtuRange {
        intf: String,
        value: u32,
        min: u32,
        max: u32,
        kind: &'static str,
    },
    #[error("{what} {name} is defined more than once (first defined at line {first_line})")]
    Duplicate {
        what: &'static str,
        name: String,
        first_line: u32,
    },
    /// [`ErrorKind::Duplicate`] whose first definition is in another file
    /// (another TRL member).
    #[error(
        "{what} {name} is defined more than once (first defined at {first_file}:{first_line})"
    )]
    DuplicateInOtherFile {
        what: &'static str,
        name: String,
        first_file: String,
        first_line: u32,
    },
    #[error(
        "interface {intf}: VMAC {mac} is already used by interface {other} on the same port {port}"
    )]
    VmacInUse {
        intf: String,
        mac: String,
        other: String,
        port: String,
    },
    #[error("interface {intf}: VLANID is required: {other} of this stack is on port {port} too, and several {version} interfaces of one stack on a port are told apart only by their VLANIDs")]
    VlanRequired {
        intf: String,
        other: String,
        port: String,
        version: &'static str,
    },
    #[error("interface {intf}: VLANID {vlan} is already used by {other} of this stack on port {port} (line {first_line}); each {version} interface of a stack on one port needs its own VLANID")]
    VlanInUse {
        intf: String,
        vlan: u32,
        other: String,
        port: String,
        first_line: u32,
        version: &'static str,
    },
    #[error("HOME refers to link {0}, which no LINK statement defines")]
    HomeUnknownLink(String),
    #[error("HOME refers to {0}, which is an INTERFACE; code the address with IPADDR on the INTERFACE statement")]
    HomeOnInterface(String),
    #[error("LINK {link} refers to device {device}, which no DEVICE statement defines")]
    LinkUnknownDevice { link: String, device: String },
    /// A second LINK (IPAQENET or IPAQIDIO) on one MPCIPA DEVICE; `kind`
    /// is the link type of the first link, `this_kind` of the second.
    #[error("LINK {link}: device {device} already has the {kind} link {other} (line {first_line}); z/OS allows one LINK per MPCIPA DEVICE: {}", second_link_advice(kind, this_kind))]
    SecondLinkOnDevice {
        link: String,
        device: String,
        other: String,
        first_line: u32,
        kind: &'static str,
        this_kind: &'static str,
    },
    #[error("ROUTE {dest}: {link} is not the name of any LINK or INTERFACE of this profile, so the route has no interface to use")]
    RouteUnknownLink { dest: String, link: String },
    /// A static route over a static VIPA (IP Configuration Reference: "A
    /// VIRTUAL interface name cannot be coded in the BEGINROUTES block").
    #[error("ROUTE {dest}: {link} is a static VIPA ({what}); a VIPA link or interface cannot be coded on a static route in BEGINROUTES: name the LINK or INTERFACE of an adapter")]
    RouteOnStaticVipa {
        dest: String,
        link: String,
        what: &'static str,
    },
    /// A ROUTE whose first hop is of the other IP version than its
    /// destination (`default`: the destination is DEFAULT or DEFAULT6).
    #[error("ROUTE {dest}: the first hop {hop} is an {} address, but this is an {} route; {}", ip_version(!*dest_v6), ip_version(*dest_v6), route_hop_advice(*dest_v6, *default))]
    RouteHopVersion {
        dest: String,
        hop: String,
        dest_v6: bool,
        default: bool,
    },
    /// A ROUTE over a link or interface of the other IP version.
    #[error("ROUTE {dest}: {link} is an {} {what}, so an {} route cannot use it; {}", ip_version(!*dest_v6), ip_version(*dest_v6), route_link_advice(*dest_v6))]
    RouteLinkVersion {
        dest: String,
        link: String,
        /// `link` or `interface`.
        what: &'static str,
        dest_v6: bool,
    },
    /// `INTERFACE name DELETE` of an interface the same profile defines
    /// above it: z/OS would delete it, softosa does not apply DELETE.
    #[error("INTERFACE {name} DELETE: {name} is defined above (line {first_line}); softosa does not apply DELETE, so it would still simulate the interface: remove the DELETE, or the definition")]
    DeleteNotApplied { name: String, first_line: u32 },
    #[error("START {0}: no DEVICE or INTERFACE of that name is defined")]
    StartUnknown(String),
    #[error("interface {intf}: SOURCEVIPAINTERFACE {vipa}: no VIRTUAL interface or LINK of that name and of the interface's IP version (VIRTUAL6 for IPv6) is defined")]
    SourceVipaUnknown { intf: String, vipa: String },
    #[error("VIPADISTRIBUTE {0}: the address is not defined by a VIPADEFINE")]
    DistributeUndefinedVipa(String),
    #[error("WLMPRIORITYQ: control value {0} is assigned to more than one IOPRI queue")]
    WlmDuplicateValue(String),
    #[error("PriorityTosMapping for TOS {0:08b} is coded more than once")]
    PolicyDuplicateTos(u8),
    #[error("{0} is defined more than once in the policy")]
    PolicyDuplicateBlock(&'static str),
    #[error("IPADDR {addr} is the address of interface {other} too (first defined at line {first_line})")]
    DuplicateAddress {
        addr: String,
        other: String,
        first_line: u32,
    },

    // ---- TRLE -----------------------------------------------------------
    #[error("TRLE {name}: {operand} is required")]
    TrleMissingOperand { name: String, operand: &'static str },
    #[error("TRLE {name}: {operand}={value} is not supported ({why})")]
    TrleBadOperand {
        name: String,
        operand: String,
        value: String,
        why: String,
    },
    #[error("TRLE {name}: {operand} device {dev:04X} is already {other}; a device number is one device, so it can appear once in one TRLE only")]
    TrleDeviceInUse {
        name: String,
        operand: &'static str,
        dev: u16,
        other: String,
    },
    #[error("VTAM definition statement {0} is not supported (only VBUILD TYPE=TRL and TRLE)")]
    TrleUnsupportedStatement(String),
    #[error("TRLE statement has no name in column 1")]
    TrleNoName,
    #[error("continuation expected: the previous line ended with a comma but the file ended")]
    TrleContinuationAtEof,

    // ---- conversion / activation -------------------------------------
    #[error("LINK {0}: the prefix length of the HOME address is unknown (no route for its subnet); give it with --prefix {0}=NN")]
    ConvertPrefixUnknown(String),
    #[error(
        "LINK {0}: no HOME address is coded for this link, so there is nothing to put in IPADDR"
    )]
    ConvertNoHome(String),
    // No advice on how to name a stack: that depends on the front end
    // (`profile check` has --stack NAME=FILE; `display` and `lab` name a
    // stack after its file only, see `activate::StackNameClash`).
    #[error("stack name {name} is also the name of the stack of {other}; every stack needs its own name")]
    DuplicateStackName { name: String, other: String },
    #[error("activation: {0}")]
    Activation(String),
    #[error("cannot read the file: {0}")]
    Io(String),
    #[error("not valid UTF-8 text: byte X'{byte:02X}' here is not part of a UTF-8 character; convert the file to UTF-8 first (from EBCDIC, or from the code page it was written in)")]
    NotUtf8 { byte: u8 },
}

/// A statement's name followed by a space, or nothing when it has none.
fn name_then_space(name: Option<&str>) -> String {
    name.map(|n| format!("{n} ")).unwrap_or_default()
}

/// A space and a statement's name, or nothing when it has none.
fn space_then_name(name: Option<&str>) -> String {
    name.map(|n| format!(" {n}")).unwrap_or_default()
}

/// What to code instead of a too-short abbreviation: the minimum, or the
/// whole keyword when it has no abbreviation.
fn code_at_least(keyword: &str, min: &str) -> String {
    if min.len() == keyword.len() {
        "code it in full".into()
    } else {
        format!("code at least {min}")
    }
}

fn ip_version(v6: bool) -> &'static str {
    if v6 {
        "IPv6"
    } else {
        "IPv4"
    }
}

/// What to code instead of a first hop of the other IP version.
fn route_hop_advice(dest_v6: bool, default: bool) -> &'static str {
    match (default, dest_v6) {
        (true, false) => "the IPv6 default route is coded ROUTE DEFAULT6",
        (true, true) => "the IPv4 default route is coded ROUTE DEFAULT",
        (false, _) => "the first hop is an address of the destination's IP version, or = for a directly attached network",
    }
}

/// What a route of this IP version may leave over.
fn route_link_advice(dest_v6: bool) -> &'static str {
    if dest_v6 {
        "an IPv6 route leaves over an IPv6 interface (INTERFACE DEFINE IPAQENET6)"
    } else {
        "an IPv4 route leaves over a LINK or an IPv4 INTERFACE"
    }
}

/// What to do instead of a second LINK of type `this` on a device whose
/// first LINK is of type `first`.
fn second_link_advice(first: &str, this: &str) -> String {
    if first != this {
        return format!(
            "an {this} link cannot share it with an {first} link; name the DEVICE this link \
             belongs to (a HiperSockets link its IUTIQDxx device, an OSA link its port's)"
        );
    }
    if first == "IPAQIDIO" {
        "with DEVICE and LINK the stack has one connection to the HiperSockets CHPID; define more interfaces on the CHPID with INTERFACE ... DEFINE IPAQIDIO CHPID statements (and a VLANID each)".into()
    } else {
        "define more interfaces on the port with INTERFACE statements (and a VLANID each)".into()
    }
}

/// Warnings: the statement is accepted, but something is ignored or overridden.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum WarningKind {
    #[error("interface {0}: OLM forces INBPERF DYNAMIC; the INBPERF {1} coded here is ignored")]
    OlmOverridesInbperf(String, &'static str),
    #[error("interface {intf}: {role} is ignored because VMAC is coded (a VMAC interface receives its own traffic)")]
    RouterIgnoredWithVmac { intf: String, role: &'static str },
    #[error("GLOBALCONFIG ZIIP IQDIOMULTIWRITE is ignored: HiperSockets multiple write (IQDMULTIWRITE) is not enabled")]
    ZiipWithoutMultiwrite,
    /// `name`: the statement's own name, when it has one (an INTERFACE's).
    #[error("{stmt}{}: {param} is coded more than once; the last value is used", space_then_name(name.as_deref()))]
    Repeated {
        stmt: &'static str,
        name: Option<String>,
        param: Cow<'static, str>,
    },
    #[error("QDIOACCELERATOR is ignored: IPSECURITY is in effect (the accelerator cannot forward with IP security)")]
    AcceleratorWithIpsecurity,
    #[error(
        "QDIOACCELERATOR without DATAGRAMFWD: only sysplex distributor traffic can be accelerated"
    )]
    AcceleratorWithoutForwarding,
    #[error("PriorityTosMapping {tos:08b}: bits outside SubnetTosMask {mask:08b} are ignored")]
    PolicyTosOutsideMask { tos: u8, mask: u8 },
    #[error("interface {0}: the QDIO accelerator does not accelerate traffic to or from an OLM interface")]
    OlmNotAccelerated(String),
    #[error(
        "{0} has no START statement: z/OS would leave it inactive, softosa activates it anyway"
    )]
    NotStarted(String),
    #[error("the Enterprise Extender address IPADDR={0} is not a home address or VIPA of any stack given; no stack gets an EE queue for it")]
    EeAddressNotOwned(String),
    #[error("TRLE {name} has DATAPATH devices for {have} of the {need} interfaces on port {port} (each interface, of every stack, needs one of its own); without one: {without}. z/OS would not start those; softosa numbers them on after the last DATAPATH device")]
    TrleTooFewDatapaths {
        name: String,
        port: String,
        have: usize,
        need: usize,
        without: String,
    },
    /// What kind of file, and what it has instead.
    #[error("the {0} defines nothing: {1}")]
    NothingDefined(&'static str, &'static str),
    /// A z/OS statement (or VIPADYNAMIC sub-statement) softosa does not
    /// model: reported where it is, then skipped.
    #[error("statement {0} is not modelled by softosa and is skipped (z/OS would apply it)")]
    NotModelled(String),
    /// A DEVICE, LINK or INTERFACE of a real z/OS type that softosa does
    /// not model (an MPCPTP device for XCF or Enterprise Extender, a CTC):
    /// skipped, with the HOME, START and ROUTE entries that name it.
    #[error("{0}: a type softosa does not model; the statement is skipped, with the HOME, START and ROUTE entries that name it (z/OS would apply them)")]
    TypeNotModelled(String),
    /// A real parameter of a statement softosa reads, which softosa does
    /// not model: its values were checked, then it is ignored. `name`: the
    /// statement's own name, when it has one (an INTERFACE's), so that the
    /// message says whose parameter it is.
    #[error("{stmt} {}{param} is not modelled by softosa and is ignored (z/OS would apply it)", name_then_space(name.as_deref()))]
    ParameterNotModelled {
        stmt: &'static str,
        name: Option<String>,
        param: String,
    },
    /// `profile convert`: a LINK with more than one HOME address becomes
    /// an INTERFACE with the first only.
    #[error("LINK {link}: an IPAQENET INTERFACE has one IPADDR, so only the link's first HOME address {kept} is converted; its other HOME address(es) {dropped} are left out")]
    ConvertHomesLeftOut {
        link: String,
        kept: String,
        dropped: String,
    },
    /// A z/OS system symbol (`&SYSCLONE.`): z/OS substitutes it when it
    /// reads the profile; softosa cannot.
    #[error("{0} is a system symbol, which z/OS replaces with its value when it reads the profile; softosa does not, so it is read as written (a name keeps it, an address or number holding it is refused): give the profile with the symbols' values in place")]
    SystemSymbol(String),
    /// INCLUDE names a data set softosa cannot read.
    #[error("INCLUDE {0}: softosa does not read included data sets; the statements in it are not checked (to check them, paste the member in place of this INCLUDE in a copy of the profile: given as a file of its own it would be another stack's profile)")]
    IncludeNotRead(String),
}

/// Error or warning.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DiagKind {
    Error(ErrorKind),
    Warning(WarningKind),
}

/// Severity, for printing and counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One diagnostic: `FILE:LINE:COL: error|warning: message`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub file: String,
    pub span: Span,
    pub kind: DiagKind,
}

impl Diagnostic {
    pub fn severity(&self) -> Severity {
        match self.kind {
            DiagKind::Error(_) => Severity::Error,
            DiagKind::Warning(_) => Severity::Warning,
        }
    }
    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }
    /// A warning about something of the file that softosa reads past and
    /// does not keep (a statement, parameter or type it does not model, an
    /// INCLUDE it cannot read): what `profile convert` cannot print again.
    pub fn is_left_out(&self) -> bool {
        matches!(
            &self.kind,
            DiagKind::Warning(
                WarningKind::NotModelled(_)
                    | WarningKind::ParameterNotModelled { .. }
                    | WarningKind::TypeNotModelled(_)
                    | WarningKind::IncludeNotRead(_)
            )
        )
    }
    /// What is wrong, in words. A huge token the message echoes (a name
    /// of ten million characters) is shown by its start, saying how much
    /// more there was, so the words around it still say what is wrong;
    /// the whole is cut at [`Diagnostic::MESSAGE_CHARS`] characters.
    pub fn message(&self) -> String {
        let m = match &self.kind {
            DiagKind::Error(e) => e.to_string(),
            DiagKind::Warning(w) => w.to_string(),
        };
        cut_to(
            &shorten_long_words(&m, Self::WORD_CHARS),
            Self::MESSAGE_CHARS,
        )
    }

    /// The longest message shown whole.
    pub const MESSAGE_CHARS: usize = 1000;
    /// The longest word (a run without spaces) of a message shown whole.
    pub const WORD_CHARS: usize = 100;
    /// The error kind, when this is an error.
    pub fn error(&self) -> Option<&ErrorKind> {
        match &self.kind {
            DiagKind::Error(e) => Some(e),
            DiagKind::Warning(_) => None,
        }
    }
    /// The warning kind, when this is a warning.
    pub fn warning(&self) -> Option<&WarningKind> {
        match &self.kind {
            DiagKind::Warning(w) => Some(w),
            DiagKind::Error(_) => None,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Line 0 means the diagnostic is about the file as a whole (it
        // could not be read, say): no position to print.
        if self.span.line == 0 {
            return write!(f, "{}: {}: {}", self.file, self.severity(), self.message());
        }
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.file,
            self.span.line,
            self.span.col,
            self.severity(),
            self.message()
        )
    }
}

/// A collector of diagnostics for one or more files. Bounded: after
/// [`Diagnostics::LIMIT`] entries further ones are only counted.
///
/// A diagnostic that is counted but not kept leaves a key behind (a 64-bit
/// hash of it), so that [`Diagnostics::extend_new`] tells a problem found
/// again past the cap as it does below it. The keys are bounded too: at
/// most [`Diagnostics::DROPPED_KEYS`] (about 1 MB). Past that, dropped
/// diagnostics are only counted, and `extend_new` adds the other side's
/// unkeyed ones without telling whether they are here already (they may be
/// counted twice; it takes more than LIMIT + DROPPED_KEYS problems in one
/// run). Two different problems with one key would be counted once (a
/// chance of about n²/2⁶⁵ among n keys).
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
    dropped_errors: usize,
    dropped_warnings: usize,
    /// Keys of the distinct diagnostics dropped here, with their severity
    /// (ordered, so that which ones are kept when the keys are full does
    /// not depend on a hash map's order).
    dropped_keys: BTreeMap<u64, Severity>,
    /// Drops of diagnostics whose key could not be kept (the keys were full).
    unkeyed_errors: usize,
    unkeyed_warnings: usize,
}

/// The key of a dropped diagnostic: a hash of all of it. `DefaultHasher::new`
/// has fixed keys, so a diagnostic has one key throughout a run.
fn key(d: &Diagnostic) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    d.hash(&mut h);
    h.finish()
}

impl Diagnostics {
    /// At most this many diagnostics are kept (a garbage file must not make
    /// memory grow without bound).
    pub const LIMIT: usize = 1000;
    /// At most this many keys of dropped diagnostics are kept (see the type).
    pub const DROPPED_KEYS: usize = 65_536;

    pub fn new() -> Self {
        Self::default()
    }
    fn push(&mut self, d: Diagnostic) {
        if self.items.len() < Self::LIMIT {
            self.items.push(d);
            return;
        }
        // At the cap an error takes the place of the latest warning kept,
        // so that a file with thousands of warnings still shows its errors.
        let last_warning = self.items.iter().rposition(|x| !x.is_error());
        match (d.is_error(), last_warning) {
            (true, Some(i)) => {
                let w = self.items.remove(i);
                self.count_dropped(key(&w), w.severity());
                self.items.push(d);
            }
            _ => self.count_dropped(key(&d), d.severity()),
        }
    }
    /// Count one dropped diagnostic of key `k`.
    fn count_dropped(&mut self, k: u64, s: Severity) {
        match s {
            Severity::Error => self.dropped_errors += 1,
            Severity::Warning => self.dropped_warnings += 1,
        }
        self.note_key(k, s);
    }
    /// Remember that the diagnostic of key `k` was dropped, when there is
    /// room; else count it as one without a key.
    fn note_key(&mut self, k: u64, s: Severity) {
        if self.dropped_keys.contains_key(&k) {
            return;
        }
        if self.dropped_keys.len() < Self::DROPPED_KEYS {
            self.dropped_keys.insert(k, s);
        } else {
            match s {
                Severity::Error => self.unkeyed_errors += 1,
                Severity::Warning => self.unkeyed_warnings += 1,
            }
        }
    }
    pub fn error(&mut self, file: &str, span: Span, e: ErrorKind) {
        self.push(Diagnostic {
            file: file.to_string(),
            span,
            kind: DiagKind::Error(e),
        });
    }
    pub fn warning(&mut self, file: &str, span: Span, w: WarningKind) {
        self.push(Diagnostic {
            file: file.to_string(),
            span,
            kind: DiagKind::Warning(w),
        });
    }
    pub fn extend(&mut self, other: Diagnostics) {
        self.dropped_errors += other.dropped_errors;
        self.dropped_warnings += other.dropped_warnings;
        self.unkeyed_errors += other.unkeyed_errors;
        self.unkeyed_warnings += other.unkeyed_warnings;
        for (k, s) in other.dropped_keys {
            self.note_key(k, s);
        }
        for d in other.items {
            self.push(d);
        }
    }
    /// Add those diagnostics of `other` that are not here already (the
    /// same problem found twice, by two checks that overlap, is shown once).
    /// Past the cap too: a problem `other` dropped, or that is dropped here,
    /// is counted only if it is neither kept nor dropped here already (by
    /// its key; see the type for the bound on keys).
    pub fn extend_new(&mut self, other: Diagnostics) {
        for d in other.items {
            if self.items.contains(&d) || self.dropped_keys.contains_key(&key(&d)) {
                continue;
            }
            self.push(d);
        }
        let kept: BTreeSet<u64> = self.items.iter().map(key).collect();
        for (k, s) in other.dropped_keys {
            if !kept.contains(&k) && !self.dropped_keys.contains_key(&k) {
                self.count_dropped(k, s);
            }
        }
        // Without their keys, these cannot be told from what is here.
        self.dropped_errors += other.unkeyed_errors;
        self.dropped_warnings += other.unkeyed_warnings;
        self.unkeyed_errors += other.unkeyed_errors;
        self.unkeyed_warnings += other.unkeyed_warnings;
    }
    pub fn items(&self) -> &[Diagnostic] {
        &self.items
    }
    pub fn error_count(&self) -> usize {
        self.items.iter().filter(|d| d.is_error()).count() + self.dropped_errors
    }
    pub fn warning_count(&self) -> usize {
        self.items.iter().filter(|d| !d.is_error()).count() + self.dropped_warnings
    }
    pub fn has_errors(&self) -> bool {
        self.error_count() > 0
    }
    /// Sort by file, line, column (stable for equal positions).
    pub fn sort(&mut self) {
        self.items
            .sort_by(|a, b| (a.file.as_str(), a.span).cmp(&(b.file.as_str(), b.span)));
    }
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter().filter(|d| d.is_error())
    }
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter().filter(|d| !d.is_error())
    }
    /// How many diagnostics were counted but not kept.
    pub fn dropped(&self) -> usize {
        self.dropped_errors + self.dropped_warnings
    }
}

/// `text` whole if it has at most `max` characters, else its first `max`
/// followed by `... (N more characters)`.
pub fn cut_to(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((at, _)) => {
            let more = text[at..].chars().count();
            let s = if more == 1 { "" } else { "s" };
            format!("{}... ({more} more character{s})", &text[..at])
        }
    }
}

/// `text` with every word (a run of characters other than white space)
/// longer than `max` characters cut to its first `max`, followed by
/// `... (N more characters)`: a message that quotes a huge token keeps
/// the words after it.
pub fn shorten_long_words(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(4096));
    let mut word_start: Option<usize> = None;
    let flush = |out: &mut String, word: &str| out.push_str(&cut_to(word, max));
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = word_start.take() {
                flush(&mut out, &text[s..i]);
            }
            out.push(c);
        } else if word_start.is_none() {
            word_start = Some(i);
        }
    }
    if let Some(s) = word_start {
        flush(&mut out, &text[s..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_word_is_cut_and_the_words_after_it_kept() {
        let kind = ErrorKind::InvalidValue {
            stmt: "INTERFACE",
            name: Some("OSA1".into()),
            param: "PORTNAME".into(),
            value: "P".repeat(2000),
            expected: "a name of at most 16 characters".into(),
        };
        let d = Diagnostic {
            file: "p.prof".into(),
            span: Span::new(1, 1),
            kind: DiagKind::Error(kind),
        };
        let m = d.message();
        assert!(m.len() < 400, "{m}");
        assert!(
            m.contains(&format!("{}... (1900 more characters)", "P".repeat(100))),
            "{m}"
        );
        // What the message says after the value is all still there.
        assert!(
            m.ends_with(" is not valid (a name of at most 16 characters)"),
            "{m}"
        );
        assert_eq!(
            shorten_long_words("a bb  ccc\tdddd", 3),
            "a bb  ccc\tddd... (1 more character)"
        );
        assert_eq!(
            shorten_long_words("é".repeat(5).as_str(), 2),
            "éé... (3 more characters)"
        );
        assert_eq!(shorten_long_words("", 2), "");
    }

    /// A distinct warning per `n`.
    fn warn(d: &mut Diagnostics, n: usize) {
        d.warning(
            "p.prof",
            Span::new(1, 1),
            WarningKind::NotModelled(format!("S{n}")),
        );
    }

    fn err(d: &mut Diagnostics, n: usize) {
        d.error(
            "p.prof",
            Span::new(2, 1),
            ErrorKind::UnknownStatement(format!("X{n}")),
        );
    }

    /// Two checks that find the same problems, more than the cap: each
    /// problem is counted once, past the cap as below it.
    #[test]
    fn extend_new_counts_a_problem_past_the_cap_once() {
        let n = Diagnostics::LIMIT + 5;
        let both = |d: &mut Diagnostics| {
            for k in 0..n {
                warn(d, k);
            }
            err(d, 0);
        };
        let mut a = Diagnostics::new();
        both(&mut a);
        let mut b = Diagnostics::new();
        both(&mut b);
        assert_eq!((a.warning_count(), a.error_count()), (n, 1));
        a.extend_new(b);
        assert_eq!(a.items().len(), Diagnostics::LIMIT);
        assert_eq!((a.warning_count(), a.error_count()), (n, 1));
        assert_eq!(a.dropped(), 6);
        // A problem only the second check found, past the cap, is counted.
        let mut c = Diagnostics::new();
        both(&mut c);
        err(&mut c, 1);
        warn(&mut c, n);
        a.extend_new(c);
        assert_eq!((a.warning_count(), a.error_count()), (n + 1, 2));
        // Kept by one and dropped by the other: found once.
        let mut d = Diagnostics::new();
        warn(&mut d, 3);
        let mut e = Diagnostics::new();
        for k in 0..Diagnostics::LIMIT {
            warn(&mut e, n + 10 + k);
        }
        warn(&mut e, 3);
        d.extend_new(e);
        assert_eq!(d.warning_count(), Diagnostics::LIMIT + 1);
    }

    /// One check that reports a problem twice counts it twice, past the
    /// cap as below it (only `extend_new` drops what is already here).
    #[test]
    fn push_past_the_cap_counts_every_report() {
        let mut a = Diagnostics::new();
        for k in 0..Diagnostics::LIMIT {
            warn(&mut a, k);
        }
        err(&mut a, 0);
        err(&mut a, 0);
        assert_eq!(a.error_count(), 2);
        assert_eq!(a.dropped(), 2);
    }

    /// Past the cap an error is kept in place of a warning: a file with
    /// thousands of warnings still shows its errors, and nothing goes
    /// uncounted.
    #[test]
    fn errors_are_kept_before_warnings_at_the_cap() {
        let mut a = Diagnostics::new();
        for k in 0..Diagnostics::LIMIT + 50 {
            warn(&mut a, k);
        }
        err(&mut a, 1);
        err(&mut a, 2);
        assert_eq!(a.errors().count(), 2, "both errors are shown");
        assert_eq!(a.items().len(), Diagnostics::LIMIT);
        assert_eq!(a.error_count(), 2);
        assert_eq!(a.warning_count(), Diagnostics::LIMIT + 50);
        assert_eq!(a.dropped(), 52);
        // A cap full of errors keeps the first ones and counts the rest.
        let mut b = Diagnostics::new();
        for k in 0..Diagnostics::LIMIT + 5 {
            err(&mut b, k);
        }
        assert_eq!(b.error_count(), Diagnostics::LIMIT + 5);
        assert_eq!(b.dropped(), 5);
    }

    /// The keys of dropped diagnostics are bounded; past the bound they are
    /// only counted, and `extend_new` counts the other side's unkeyed ones
    /// as they are (as the type says).
    #[test]
    fn dropped_keys_are_bounded() {
        let n = Diagnostics::LIMIT + Diagnostics::DROPPED_KEYS + 3;
        let fill = || {
            let mut d = Diagnostics::new();
            for k in 0..n {
                warn(&mut d, k);
            }
            d
        };
        let mut a = fill();
        assert_eq!(a.warning_count(), n);
        assert_eq!(a.dropped_keys.len(), Diagnostics::DROPPED_KEYS);
        assert_eq!(a.unkeyed_warnings, 3);
        a.extend_new(fill());
        assert_eq!(a.dropped_keys.len(), Diagnostics::DROPPED_KEYS);
        assert_eq!(a.warning_count(), n + 3);
    }
}
