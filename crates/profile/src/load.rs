//! Reading configuration files from disk and telling their kinds apart:
//! TCP/IP profile, Policy Agent policy, or VTAM TRL member (spec 5.1).
//!
//! Layer: configuration front end (the only module besides [`crate::cli`]
//! that touches the file system). The kind is decided from the content: a
//! policy file starts with `SetSubnetPrioTosMask`; a VTAM member's first
//! statement is `VBUILD`, a `TRLE`, or a start option (`QDIOSTG=`,
//! `IPADDR=`); anything else is a profile.

use std::path::Path;

use crate::ast::{Profile, TosPolicy, TrlFile};
use crate::diag::{Diagnostics, ErrorKind, Span};
use crate::parser::parse_profile;
use crate::policy::{looks_like_policy, parse_policy};
use crate::trle::parse_trl;

/// What a file turned out to be.
#[derive(Debug, Clone)]
pub enum Loaded {
    Profile(Box<Profile>),
    Policy(Option<TosPolicy>),
    Trl(TrlFile),
}

/// Kinds of configuration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Profile,
    Policy,
    Trl,
}

/// Guess the kind of a configuration text.
pub fn classify(src: &str) -> FileKind {
    if looks_like_policy(src) {
        return FileKind::Policy;
    }
    for line in src.lines() {
        let t = line.trim_start();
        if t.is_empty() || line.starts_with('*') || t.starts_with(';') {
            continue;
        }
        let words: Vec<String> = t
            .split_whitespace()
            .take(2)
            .map(|w| w.to_ascii_uppercase())
            .collect();
        let first = words.first().map(String::as_str).unwrap_or("");
        let second = words.get(1).map(String::as_str).unwrap_or("");
        if first == "VBUILD"
            || second == "VBUILD"
            || second == "TRLE"
            || first.starts_with("QDIOSTG=")
            || first.starts_with("IPADDR=")
        {
            return FileKind::Trl;
        }
        return FileKind::Profile;
    }
    FileKind::Profile
}

/// Parse a text whose kind is decided by [`classify`].
pub fn load_str(file: &str, src: &str) -> (Loaded, Diagnostics) {
    match classify(src) {
        FileKind::Policy => {
            let (p, d) = parse_policy(file, src);
            (Loaded::Policy(p), d)
        }
        FileKind::Trl => {
            let (t, d) = parse_trl(file, src);
            (Loaded::Trl(t), d)
        }
        FileKind::Profile => {
            let (p, d) = parse_profile(file, src);
            (Loaded::Profile(Box::new(p)), d)
        }
    }
}

/// Read and parse a file. A file that cannot be read (or is not UTF-8) is
/// an error diagnostic at 0:0, never a panic.
pub fn load_path(path: &Path) -> (Option<Loaded>, Diagnostics) {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(src) => {
                let (l, d) = load_str(&name, &src);
                (Some(l), d)
            }
            Err(e) => {
                let mut d = Diagnostics::new();
                d.error(
                    &name,
                    Span::default(),
                    ErrorKind::Io(format!(
                        "not valid UTF-8 text ({e}); convert it from EBCDIC first"
                    )),
                );
                (None, d)
            }
        },
        Err(e) => {
            let mut d = Diagnostics::new();
            d.error(&name, Span::default(), ErrorKind::Io(e.to_string()));
            (None, d)
        }
    }
}
