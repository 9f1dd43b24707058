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

/// The UTF-8 byte order mark some Windows editors put at the start of a
/// text file.
pub const BOM: char = '\u{feff}';

/// `src` without a leading byte order mark: it is not part of the first
/// statement (it is invisible in an editor, so an error about it could not
/// be understood).
pub fn strip_bom(src: &str) -> &str {
    src.strip_prefix(BOM).unwrap_or(src)
}

/// The lines of a text file, whatever ends them: a line feed, CR LF, or a
/// carriage return alone (a file from an old Mac editor, or a transfer that
/// turned every line end into CR, which `str::lines` would read as one
/// line).
pub fn text_lines(src: &str) -> impl Iterator<Item = &str> {
    src.lines().flat_map(|l| l.split('\r'))
}

/// A `--profile` argument: `NAME=FILE` gives the stack its TCP/IP
/// procedure name (1 to 8 letters, digits or @ # $, not starting with a
/// digit), else the argument is the file and the stack is named after it.
/// An argument that is itself an existing file is always a file. A name
/// that is not a procedure name, before an existing file, is refused
/// (rather than read as a file of that whole name, which does not exist).
pub fn named_file(arg: &Path) -> Result<(Option<String>, std::path::PathBuf), String> {
    let whole = Ok((None, arg.to_path_buf()));
    if arg.exists() {
        return whole;
    }
    let Some((name, file)) = arg.to_str().and_then(|s| s.split_once('=')) else {
        return whole;
    };
    let national = |c: char| c.is_ascii_alphanumeric() || matches!(c, '@' | '#' | '$');
    let ok = (1..=8).contains(&name.len())
        && name.chars().all(national)
        && !name.starts_with(|c: char| c.is_ascii_digit());
    match (ok, file.is_empty(), Path::new(file).exists()) {
        (true, false, _) => Ok((
            Some(name.to_ascii_uppercase()),
            std::path::PathBuf::from(file),
        )),
        (false, false, true) => Err(format!(
            "{}: {name:?} is not a TCP/IP procedure name for the stack of {file} (1 to 8 \
             letters, digits or @ # $, not starting with a digit)",
            arg.display()
        )),
        _ => whole,
    }
}

/// The stack a profile file stands for when no name is given: its file
/// name without the extension, in capitals (`tcpipa.prof` is TCPIPA).
pub fn stack_name_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().to_ascii_uppercase())
        .unwrap_or_else(|| path.display().to_string())
}

/// Guess the kind of a configuration text. A text with no statement at all
/// is a profile, unless it has VTAM `*` comment lines (a TRL member that
/// defines nothing).
pub fn classify(src: &str) -> FileKind {
    let src = strip_bom(src);
    if looks_like_policy(src) {
        return FileKind::Policy;
    }
    let mut vtam_comments = false;
    for line in text_lines(src) {
        let t = line.trim_start();
        if line.starts_with('*') {
            vtam_comments = true;
            continue;
        }
        if t.is_empty() || t.starts_with(';') {
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
    if vtam_comments {
        FileKind::Trl
    } else {
        FileKind::Profile
    }
}

/// Parse a text whose kind is decided by [`classify`]. A leading byte order
/// mark is skipped.
pub fn load_str(file: &str, src: &str) -> (Loaded, Diagnostics) {
    // classify and each parser skip the mark themselves.
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

/// Most profile, policy and TRL text one command reads from all its files
/// together. A profile held in memory, activated and checked takes about
/// fifty times its size, so without a total many files of the largest
/// size each would still fill memory.
pub const MAX_TOTAL_TEXT_BYTES: u64 = 32 << 20;

/// Whether two paths name one existing file (the same device and inode:
/// through links and other spellings alike). An output a command is about
/// to write is checked against its inputs with it, so that writing never
/// destroys what it was made from.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// The first file given twice among `files` (by any spelling or link), as
/// the positions of its two mentions counted from 1: one file read twice
/// would clash with itself (every stack, TRLE and device "defined more
/// than once").
pub fn given_twice(files: &[&Path]) -> Option<(usize, usize)> {
    files.iter().enumerate().find_map(|(j, f)| {
        files[..j]
            .iter()
            .position(|x| x == f || same_file(x, f))
            .map(|i| (i + 1, j + 1))
    })
}

/// Read a text file of at most [`MAX_TEXT_BYTES`]; a longer one is an
/// `InvalidData` error saying so, read no further than the limit.
pub fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    read_at_most(path, MAX_TEXT_BYTES, || {
        format!(
            "larger than {} MiB, which no text input of softosa is; is it the right file?",
            MAX_TEXT_BYTES >> 20
        )
    })
}

/// Read `path` whole if it is at most `limit` bytes, else the error
/// `too_long` words, having read no more than `limit + 1` bytes.
fn read_at_most(
    path: &Path,
    limit: u64,
    too_long: impl FnOnce() -> String,
) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            too_long(),
        ));
    }
    Ok(buf)
}

/// [`read_bounded`], within `left` bytes of a command's budget: a file
/// that would pass it is refused as such.
fn read_within(path: &Path, left: u64) -> std::io::Result<Vec<u8>> {
    if left < MAX_TEXT_BYTES {
        read_at_most(path, left, budget_spent)
    } else {
        read_bounded(path)
    }
}

/// Why a file that would pass a command's [`MAX_TOTAL_TEXT_BYTES`] is refused.
fn budget_spent() -> String {
    format!(
        "with the files before it, more than {} MiB of profile, policy and TRL text in one \
         command; use fewer or smaller files",
        MAX_TOTAL_TEXT_BYTES >> 20
    )
}

/// What is left of one command's [`MAX_TOTAL_TEXT_BYTES`] as its files are
/// read with [`load_path_within`].
#[derive(Debug)]
pub struct TextBudget {
    left: u64,
}

impl Default for TextBudget {
    fn default() -> Self {
        TextBudget {
            left: MAX_TOTAL_TEXT_BYTES,
        }
    }
}

/// Where the first byte that is not UTF-8 is: its line and column (columns
/// count characters, as in every diagnostic; a leading byte order mark is
/// not counted), and the byte itself.
pub fn utf8_error_at(bytes: &[u8], e: &std::str::Utf8Error) -> (Span, u8) {
    let start = if bytes.starts_with("\u{feff}".as_bytes()) {
        BOM.len_utf8()
    } else {
        0
    };
    let bad = e.valid_up_to();
    let valid = bytes.get(start.min(bad)..bad).unwrap_or_default();
    let line = valid.iter().filter(|b| **b == b'\n').count() + 1;
    let line_start = valid
        .iter()
        .rposition(|b| *b == b'\n')
        .map(|i| i + 1)
        .unwrap_or(0);
    let col = std::str::from_utf8(valid.get(line_start..).unwrap_or_default())
        .map(|s| s.chars().count())
        .unwrap_or(0)
        + 1;
    let n = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
    (
        Span::new(n(line), n(col)),
        bytes.get(bad).copied().unwrap_or(0),
    )
}

/// [`read_bounded_string`] for one of several files a command reads (a
/// scenario's profiles): the file must also fit in what `budget` has
/// left, which it then takes.
pub fn read_bounded_string_within(path: &Path, budget: &mut TextBudget) -> std::io::Result<String> {
    let text = read_bounded_string_limit(path, budget.left)?;
    budget.left = budget.left.saturating_sub(text.len() as u64);
    Ok(text)
}

/// [`read_bounded`], as UTF-8 text; invalid text is an `InvalidData` error
/// naming the line and column of the first byte that is not UTF-8.
pub fn read_bounded_string(path: &Path) -> std::io::Result<String> {
    read_bounded_string_limit(path, MAX_TEXT_BYTES)
}

/// [`read_bounded_string`] within `left` bytes of a command's budget.
fn read_bounded_string_limit(path: &Path, left: u64) -> std::io::Result<String> {
    String::from_utf8(read_within(path, left)?).map_err(|e| {
        let (at, byte) = utf8_error_at(e.as_bytes(), &e.utf8_error());
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not valid UTF-8 text: line {}, column {} has byte X'{byte:02X}', \
                 which is not part of a UTF-8 character",
                at.line, at.col
            ),
        )
    })
}

/// Read and parse a file. A file that cannot be read is an error
/// diagnostic at 0:0, one that is not UTF-8 an error at the line and column
/// of the first byte that is not; never a panic.
pub fn load_path(path: &Path) -> (Option<Loaded>, Diagnostics) {
    load_path_within(path, &mut TextBudget::default())
}

/// [`load_path`] for one of several files a command reads: the file must
/// also fit in what `budget` has left, which it then takes.
pub fn load_path_within(path: &Path, budget: &mut TextBudget) -> (Option<Loaded>, Diagnostics) {
    let name = path.display().to_string();
    let read = read_within(path, budget.left);
    if let Ok(bytes) = &read {
        budget.left = budget.left.saturating_sub(bytes.len() as u64);
    }
    match read {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(src) => {
                let (l, d) = load_str(&name, &src);
                (Some(l), d)
            }
            Err(e) => {
                let (at, byte) = utf8_error_at(e.as_bytes(), &e.utf8_error());
                let mut d = Diagnostics::new();
                d.error(&name, at, ErrorKind::NotUtf8 { byte });
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
    #[test]
    fn a_profile_argument_may_name_its_stack() {
        let p = |s: &str| named_file(Path::new(s)).expect("not refused");
        let named = |n: &str, f: &str| (Some(n.to_string()), std::path::PathBuf::from(f));
        let file = |f: &str| (None, std::path::PathBuf::from(f));
        assert_eq!(p("tcpipa=/x/a.prof"), named("TCPIPA", "/x/a.prof"));
        assert_eq!(p("T@#$1234=a"), named("T@#$1234", "a"));
        for not_a_name in ["1TCPIP=a", "TOOLONGNM=a", "=a", "A-B=a", "TCPIP="] {
            assert_eq!(p(not_a_name), file(not_a_name), "{not_a_name}");
        }
        assert_eq!(p("a.prof"), file("a.prof"));
        // An existing file whose name holds '=' is that file.
        let dir = std::env::temp_dir().join(format!("softosa-named-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let odd = dir.join("A=b.prof");
        std::fs::write(&odd, "").expect("write");
        assert_eq!(named_file(&odd), Ok((None, odd.clone())));
        // A bad name before a file that exists is said to be one.
        let real = dir.join("a.prof");
        std::fs::write(&real, "").expect("write");
        let e = named_file(Path::new(&format!("TCPIP-A={}", real.display())));
        assert!(e.is_err_and(|m| m.contains("\"TCPIP-A\" is not a TCP/IP procedure name")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    use super::*;

    /// The kind is decided by the first token, wherever it is: after
    /// blank and comment-only lines (`#` and `;` in a policy file), glued
    /// to a brace, behind a byte order mark; a `*` line is a VTAM comment.
    #[test]
    fn classify_goes_by_the_first_token() {
        for (src, kind) in [
            ("SetSubnetPrioTosMask {\n}\n", FileKind::Policy),
            (
                "\n  \n# comment\n; comment\n  setsubnetpriotosmask{\n",
                FileKind::Policy,
            ),
            ("\u{feff}SetSubnetPrioTosMask\n", FileKind::Policy),
            ("\t# x\r\nSetSubnetPrioTosMask # y\n{}\n", FileKind::Policy),
            (
                "PolicyRule r { }\nSetSubnetPrioTosMask {}\n",
                FileKind::Profile,
            ),
            ("* VTAM\nSetSubnetPrioTosMask\n", FileKind::Profile),
            ("* VTAM comment only\n", FileKind::Trl),
            ("; a profile comment\n  \n", FileKind::Profile),
            ("", FileKind::Profile),
            ("TRL1 VBUILD TYPE=TRL\n", FileKind::Trl),
            ("; c\nQDIOSTG=MAX\n", FileKind::Trl),
            ("INTERFACE A DEFINE IPAQENET\n", FileKind::Profile),
        ] {
            assert_eq!(classify(src), kind, "{src:?}");
        }
    }

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

    #[test]
    fn files_read_together_share_one_budget() {
        let dir = std::env::temp_dir().join(format!("softosa-budget-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = "INTERFACE A DEFINE IPAQENET PORTNAME P IPADDR 10.0.0.1/24\n";
        let f = dir.join("a.prof");
        std::fs::write(&f, text).unwrap();
        let n = text.len() as u64;
        // Room for two copies and a bit: the third is refused in words,
        // and a refused file takes nothing from what is left.
        let mut budget = TextBudget { left: 2 * n + 10 };
        for _ in 0..2 {
            let (loaded, d) = load_path_within(&f, &mut budget);
            assert!(loaded.is_some() && !d.has_errors(), "{d:?}");
        }
        assert_eq!(budget.left, 10);
        let (loaded, d) = load_path_within(&f, &mut budget);
        assert!(loaded.is_none());
        let says = format!("{d:?}");
        assert!(
            says.contains("with the files before it, more than 32 MiB"),
            "{says}"
        );
        assert_eq!(budget.left, 10);
        // The whole budget by default, and each file still under its own cap.
        assert_eq!(TextBudget::default().left, MAX_TOTAL_TEXT_BYTES);
        const { assert!(MAX_TOTAL_TEXT_BYTES >= MAX_TEXT_BYTES) };
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn text_that_is_not_utf8_is_reported_at_its_line_and_column() {
        let dir = std::env::temp_dir().join(format!("softosa-utf8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("latin1.prof");
        // Line 2, after 30 characters (one of them a two-byte é): X'C1'.
        let mut text = "INTERFACE A DEFINE IPAQENET\n IPADDR 10.1.1.1/24 PORTNAME é"
            .as_bytes()
            .to_vec();
        text.extend([0xC1, b'\n']);
        std::fs::write(&f, &text).unwrap();
        let (loaded, d) = load_path(&f);
        assert!(loaded.is_none());
        let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
        assert_eq!(v.len(), 1, "{v:?}");
        assert!(
            v[0].starts_with(&format!(
                "{}:2:31: error: not valid UTF-8 text: byte X'C1'",
                f.display()
            )),
            "{v:?}"
        );
        let e = read_bounded_string(&f).unwrap_err().to_string();
        assert!(e.contains("line 2, column 31 has byte X'C1'"), "{e}");
        // A byte order mark in front is not counted as a column.
        let mut bom = "\u{feff}AB".as_bytes().to_vec();
        bom.push(0xFF);
        let e = String::from_utf8(bom.clone()).unwrap_err();
        assert_eq!(
            utf8_error_at(&bom, &e.utf8_error()),
            (Span::new(1, 3), 0xFF)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
