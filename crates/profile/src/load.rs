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

/// Largest text file softosa reads whole (a profile, a scenario, a replay
/// configuration): far above any real one, and it keeps a device or a
/// capture named by mistake (`/dev/zero`) from filling memory.
pub const MAX_TEXT_BYTES: u64 = 16 << 20;

/// Read a text file of at most [`MAX_TEXT_BYTES`]; a longer one is an
/// `InvalidData` error saying so, read no further than the limit.
pub fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_TEXT_BYTES + 1)
        .read_to_end(&mut buf)?;
    if buf.len() as u64 > MAX_TEXT_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "larger than {} MiB, which no text input of softosa is; is it the right file?",
                MAX_TEXT_BYTES >> 20
            ),
        ));
    }
    Ok(buf)
}

/// [`read_bounded`], as UTF-8 text.
pub fn read_bounded_string(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_bounded(path)?).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not valid UTF-8 text ({e})"),
        )
    })
}

/// Read and parse a file. A file that cannot be read (or is not UTF-8) is
/// an error diagnostic at 0:0, never a panic.
pub fn load_path(path: &Path) -> (Option<Loaded>, Diagnostics) {
    let name = path.display().to_string();
    match read_bounded(path) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_file_is_read_up_to_the_limit_and_no_further() {
        let dir = std::env::temp_dir().join(format!("softosa-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let at = dir.join("at-limit.txt");
        std::fs::write(&at, vec![b'x'; MAX_TEXT_BYTES as usize]).unwrap();
        assert_eq!(read_bounded(&at).unwrap().len() as u64, MAX_TEXT_BYTES);
        let over = dir.join("over.txt");
        std::fs::write(&over, vec![b'x'; MAX_TEXT_BYTES as usize + 1]).unwrap();
        let e = read_bounded(&over).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("larger than 16 MiB"), "{e}");
        // A profile that large is a diagnostic, not a read of all of it.
        let (loaded, d) = load_path(&over);
        assert!(loaded.is_none() && d.has_errors());
        std::fs::write(&over, [0xc1, 0xc2]).unwrap();
        let e = read_bounded_string(&over).unwrap_err();
        assert!(e.to_string().contains("not valid UTF-8"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
