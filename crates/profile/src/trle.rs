//! Reader for VTAM transport resource list members: `VBUILD TYPE=TRL` and
//! `TRLE` definitions for OSA-Express QDIO ports (spec 5.1), plus the VTAM
//! start options softosa uses: `QDIOSTG=` (system default read storage) and
//! `IPADDR=` (the Enterprise Extender address, spec 2.3).
//!
//! Layer: configuration front end. VTAM layout: a name in column 1 (or a
//! blank), the operation, then operands separated by commas without blanks;
//! anything after the operands and a blank is a comment. An operand field
//! that ends with a comma continues on the next line. Lines starting with
//! `*` are comments. VTAM reads columns 1-71 of its 80-column records:
//! column 72 holds the continuation character and 73-80 sequence numbers.
//! Where an operand field fills column 71 with its continuing comma, a
//! character in column 72 followed by nothing but digits (a sequence
//! number) is that continuation character, not part of the operands.
//! softosa also reads lines longer than a record whole (a TRLE written on
//! one line), so only that pattern is cut.
//!
//! softosa extension: `CHPID=xx` on a TRLE names the CHPID of the port
//! (VTAM learns it from the I/O definition, which softosa does not have); it
//! is used only for the OLM per-CHPID sharing limit.

use crate::ast::{EeConfig, ReadStorage, TrlFile, Trle};
use crate::diag::{Diagnostics, ErrorKind, Span, Spanned, WarningKind};
use crate::parser::parse_ip;

/// A character of an operand field with its source position.
type Chars = Vec<(char, Span)>;

struct Stmt {
    name: Option<(String, Span)>,
    op: Option<(String, Span)>,
    operands: Chars,
    span: Span,
}

fn col(i: usize) -> u32 {
    u32::try_from(i + 1).unwrap_or(u32::MAX)
}

/// Split the file into logical statements (continuations joined). A
/// leading byte order mark is skipped.
fn statements(src: &str, file: &str, d: &mut Diagnostics) -> Vec<Stmt> {
    let src = crate::load::strip_bom(src);
    let mut out: Vec<Stmt> = Vec::new();
    let mut cont = false;
    let mut last_line = 0u32;
    for (li, raw) in crate::load::text_lines(src).enumerate() {
        let line_no = u32::try_from(li + 1).unwrap_or(u32::MAX);
        last_line = line_no;
        let mut chars: Vec<char> = raw.chars().collect();
        // An 80-column record whose operands fill column 71: its columns
        // 72-80 (a continuation character, a sequence number) are no part
        // of the statement.
        if (72..=80).contains(&chars.len())
            && chars[70] == ','
            && !chars[71].is_whitespace()
            && chars[72..].iter().all(|c| c.is_ascii_digit() || *c == ' ')
        {
            chars.truncate(71);
        }
        // `*` in column 1 is a VTAM comment; softosa also takes a line whose
        // first non-blank character is `;` as a comment (as in profiles).
        if chars.first() == Some(&'*') || (!cont && raw.trim_start().starts_with(';')) {
            continue;
        }
        // Words with their starting column.
        let mut words: Vec<(usize, String)> = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if chars.get(i).is_some_and(|c| c.is_whitespace()) {
                i += 1;
                continue;
            }
            let start = i;
            let mut w = String::new();
            while let Some(c) = chars.get(i).filter(|c| !c.is_whitespace()) {
                w.push(*c);
                i += 1;
            }
            words.push((start, w));
        }
        if words.is_empty() {
            continue;
        }
        let to_chars = |start: usize, w: &str| -> Chars {
            w.chars()
                .enumerate()
                .map(|(k, c)| (c, Span::new(line_no, col(start + k))))
                .collect()
        };
        if cont {
            if let (Some(st), Some((s, w))) = (out.last_mut(), words.first()) {
                st.operands.extend(to_chars(*s, w));
                cont = w.ends_with(',');
            }
            continue;
        }
        let in_col1 = chars.first().is_some_and(|c| !c.is_whitespace());
        let mut it = words.iter();
        let name = if in_col1 && !words.first().is_some_and(|(_, w)| w.contains('=')) {
            it.next()
                .map(|(s, w)| (w.clone(), Span::new(line_no, col(*s))))
        } else {
            None
        };
        // Start options (KEY=VALUE,...) have no operation.
        let first_has_eq = words.first().is_some_and(|(_, w)| w.contains('='));
        let (op, operands) = if first_has_eq {
            let (s, w) = words
                .first()
                .map(|(s, w)| (*s, w.as_str()))
                .unwrap_or((0, ""));
            (None, to_chars(s, w))
        } else {
            let op = it
                .next()
                .map(|(s, w)| (w.clone(), Span::new(line_no, col(*s))));
            let operands = it.next().map(|(s, w)| to_chars(*s, w)).unwrap_or_default();
            (op, operands)
        };
        cont = operands.last().is_some_and(|(c, _)| *c == ',');
        out.push(Stmt {
            name,
            op,
            operands,
            span: Span::new(line_no, 1),
        });
    }
    if cont {
        d.error(
            file,
            Span::new(last_line, 1),
            ErrorKind::TrleContinuationAtEof,
        );
    }
    out
}

/// One `KEYWORD=value` operand: the keyword in upper case, the value as
/// coded, where the keyword starts, and the value's characters with their
/// positions (to point into a list such as `DATAPATH=(0E2A,0E2B)`).
struct Operand {
    key: String,
    value: String,
    at: Span,
    value_chars: Chars,
}

/// Split an operand field at commas outside parentheses into operands.
fn operands(field: &Chars) -> Vec<Operand> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur: Chars = Vec::new();
    for (c, sp) in field {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if *c == ',' && depth <= 0 {
            if !cur.is_empty() {
                out.push(split_kv(std::mem::take(&mut cur)));
            }
            continue;
        }
        cur.push((*c, *sp));
    }
    if !cur.is_empty() {
        out.push(split_kv(cur));
    }
    out
}

fn split_kv(chars: Chars) -> Operand {
    let at = chars.first().map(|(_, sp)| *sp).unwrap_or_default();
    let (key, value_chars) = match chars.iter().position(|(c, _)| *c == '=') {
        Some(eq) => (
            chars.get(..eq).unwrap_or_default(),
            chars.get(eq + 1..).unwrap_or_default().to_vec(),
        ),
        None => (chars.as_slice(), Vec::new()),
    };
    Operand {
        key: key
            .iter()
            .map(|(c, _)| c)
            .collect::<String>()
            .to_ascii_uppercase(),
        value: value_chars.iter().map(|(c, _)| c).collect(),
        at,
        value_chars,
    }
}

/// `(a,b)` → `[a, b]`; `a` → `[a]`: each element, blanks trimmed, with
/// where it starts (`at` when the element has no characters of its own).
fn list(value: &Chars, at: Span) -> Vec<(String, Span)> {
    let inner = match (value.first(), value.last()) {
        (Some(('(', _)), Some((')', _))) if value.len() >= 2 => {
            value.get(1..value.len() - 1).unwrap_or_default()
        }
        _ => value.as_slice(),
    };
    inner
        .split(|(c, _)| *c == ',')
        .filter_map(|elem| {
            let kept: Vec<&(char, Span)> =
                elem.iter().skip_while(|(c, _)| c.is_whitespace()).collect();
            let text: String = kept.iter().map(|(c, _)| c).collect();
            let text = text.trim_end().to_string();
            let sp = kept.first().map(|(_, sp)| *sp).unwrap_or(at);
            (!text.is_empty()).then_some((text, sp))
        })
        .collect()
}

fn device(s: &str) -> Option<u16> {
    if !(3..=4).contains(&s.len()) || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(s, 16).ok()
}

/// Parse a VTAM TRL member. A leading byte order mark is skipped; a member
/// that defines neither a TRLE nor a start option is a warning. Never
/// panics.
pub fn parse_trl(file: &str, src: &str) -> (TrlFile, Diagnostics) {
    let mut d = Diagnostics::new();
    let mut out = TrlFile {
        file: file.to_string(),
        ..TrlFile::default()
    };
    let stmts = statements(src, file, &mut d);
    if stmts.iter().all(|st| {
        st.op
            .as_ref()
            .is_some_and(|(o, _)| o.eq_ignore_ascii_case("VBUILD"))
    }) {
        d.warning(
            file,
            Span::default(),
            WarningKind::NothingDefined(
                "TRL member",
                "it has no TRLE and no start option (only comments, or VBUILD alone)",
            ),
        );
    }
    for st in stmts {
        match st.op.as_ref().map(|(o, s)| (o.to_ascii_uppercase(), *s)) {
            None => start_options(file, &st, &mut out, &mut d),
            Some((op, _)) if op == "VBUILD" => {
                for Operand {
                    key: k,
                    value: v,
                    at: sp,
                    ..
                } in operands(&st.operands)
                {
                    if k != "TYPE" || !v.eq_ignore_ascii_case("TRL") {
                        d.error(
                            file,
                            sp,
                            ErrorKind::TrleBadOperand {
                                name: "VBUILD".into(),
                                operand: k,
                                value: v,
                                why: "only VBUILD TYPE=TRL is supported".into(),
                            },
                        );
                    }
                }
            }
            Some((op, _)) if op == "TRLE" => {
                if let Some(t) = trle(file, &st, &mut d) {
                    out.trles.push(t);
                }
            }
            Some((op, sp)) => d.error(file, sp, ErrorKind::TrleUnsupportedStatement(op)),
        }
    }
    (out, d)
}

fn start_options(file: &str, st: &Stmt, out: &mut TrlFile, d: &mut Diagnostics) {
    for Operand {
        key: k,
        value: v,
        at: sp,
        ..
    } in operands(&st.operands)
    {
        let bad = |why: &str| ErrorKind::TrleBadOperand {
            name: "start option".into(),
            operand: k.clone(),
            value: v.clone(),
            why: why.into(),
        };
        match k.as_str() {
            "QDIOSTG" => {
                let rs = match v.to_ascii_uppercase().as_str() {
                    "MAX" => Some(ReadStorage::Max),
                    "AVG" => Some(ReadStorage::Avg),
                    "MIN" => Some(ReadStorage::Min),
                    _ => None,
                };
                match rs {
                    Some(r) => out.qdiostg = Some(r),
                    None => d.error(file, sp, bad("softosa accepts QDIOSTG=MAX, AVG or MIN")),
                }
            }
            "IPADDR" => match parse_ip(&v) {
                Some(a) => {
                    out.ee = Some(EeConfig {
                        addr: Spanned::new(a, sp),
                        first_port: EeConfig::DEFAULT_FIRST_PORT,
                        span: sp,
                    })
                }
                None => d.error(file, sp, bad("expected the Enterprise Extender IP address")),
            },
            _ => d.error(
                file,
                sp,
                bad("softosa understands only the QDIOSTG and IPADDR start options"),
            ),
        }
    }
}

fn trle(file: &str, st: &Stmt, d: &mut Diagnostics) -> Option<Trle> {
    let Some((name, _)) = &st.name else {
        d.error(file, st.span, ErrorKind::TrleNoName);
        return None;
    };
    let name = name.to_ascii_uppercase();
    let mut read = None;
    let mut write = None;
    let mut datapath = Vec::new();
    let mut port: Option<(String, u8)> = None;
    let mut chpid = None;
    let mut devices_at: Vec<(u16, &'static str, Span)> = Vec::new();
    let mut ok = true;
    let mut coded: Vec<String> = Vec::new();
    let mut datapath_at = None;
    for Operand {
        key: k,
        value: v,
        at: sp,
        value_chars,
    } in operands(&st.operands)
    {
        coded.push(k.clone());
        let mut bad = |why: String, d: &mut Diagnostics| {
            ok = false;
            d.error(
                file,
                sp,
                ErrorKind::TrleBadOperand {
                    name: name.clone(),
                    operand: k.clone(),
                    value: v.clone(),
                    why,
                },
            );
        };
        match k.as_str() {
            "LNCTL" => {
                if !v.eq_ignore_ascii_case("MPC") {
                    bad("an OSA-Express QDIO TRLE needs LNCTL=MPC".into(), d);
                }
            }
            "MPCLEVEL" => {
                if !v.eq_ignore_ascii_case("QDIO") {
                    bad("softosa supports MPCLEVEL=QDIO only".into(), d);
                }
            }
            "READ" | "WRITE" => {
                let l = list(&value_chars, sp);
                match (
                    l.len(),
                    l.first().and_then(|(x, at)| Some((device(x)?, *at))),
                ) {
                    (1, Some((dev, at))) => {
                        if k == "READ" {
                            read = Some(dev);
                            devices_at.push((dev, "READ", at));
                        } else {
                            write = Some(dev);
                            devices_at.push((dev, "WRITE", at));
                        }
                    }
                    _ => bad(
                        "a QDIO TRLE has exactly one device number (3-4 hex digits)".into(),
                        d,
                    ),
                }
            }
            "DATAPATH" => {
                datapath_at = Some(sp);
                for (x, at) in list(&value_chars, sp) {
                    let range = match x.split_once('-') {
                        Some((a, b)) => device(a).zip(device(b)),
                        None => device(&x).map(|a| (a, a)),
                    };
                    match range {
                        Some((a, b)) if a <= b && b - a < 256 => {
                            datapath.extend(a..=b);
                            devices_at.extend((a..=b).map(|x| (x, "DATAPATH", at)));
                        }
                        _ => bad(
                            format!("{x} is not a device number or range (e.g. 0E2A-0E2F)"),
                            d,
                        ),
                    }
                }
            }
            "PORTNAME" => {
                let l: Vec<String> = list(&value_chars, sp).into_iter().map(|(x, _)| x).collect();
                let pn = l.first().cloned().unwrap_or_default();
                let num = match l.get(1) {
                    None => Some(0u8),
                    Some(n) => n.parse::<u8>().ok().filter(|n| *n <= 1),
                };
                if pn.is_empty() || pn.chars().count() > 8 || l.len() > 2 {
                    bad(
                        "expected PORTNAME=(name,portnum) with a name of 1-8 characters".into(),
                        d,
                    );
                } else if let Some(num) = num {
                    port = Some((pn.to_ascii_uppercase(), num));
                } else {
                    bad("the port number must be 0 or 1".into(), d);
                }
            }
            "CHPID" => match u8::from_str_radix(&v, 16)
                .ok()
                .filter(|_| (1..=2).contains(&v.len()) && v.bytes().all(|b| b.is_ascii_hexdigit()))
            {
                Some(c) => chpid = Some(c),
                None => bad("CHPID must be 1 or 2 hexadecimal digits".into(), d),
            },
            "MPCUSAGE" => {}
            _ => d.error(
                file,
                sp,
                ErrorKind::UnknownParameter {
                    stmt: "TRLE",
                    name: None,
                    param: k.clone(),
                },
            ),
        }
    }
    let mut need = |what: &'static str, have: bool| {
        let key = what.trim_end_matches('=');
        if !have && !coded.iter().any(|c| c == key) {
            ok = false;
            d.error(
                file,
                st.span,
                ErrorKind::TrleMissingOperand {
                    name: name.clone(),
                    operand: what,
                },
            );
        }
    };
    need("READ=", read.is_some());
    need("WRITE=", write.is_some());
    need("DATAPATH=", !datapath.is_empty());
    need("PORTNAME=", port.is_some());
    let (Some(read), Some(write), Some((portname, portnum))) = (read, write, port) else {
        return None;
    };
    if !ok {
        return None;
    }
    Some(Trle {
        name,
        span: st.span,
        read,
        write,
        datapath,
        portname,
        portnum,
        chpid,
        devices_at,
        datapath_at: datapath_at.unwrap_or(st.span),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_example_with_continuation() {
        let src = "NSQDIO11 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(0E28),WRITE=(0E29),\n               DATAPATH=(0E2A,0E2B),PORTNAME=(NSQDIO1,0)\n";
        let (t, d) = parse_trl("t", src);
        assert!(!d.has_errors(), "{:?}", d.items());
        let e = &t.trles[0];
        assert_eq!(e.name, "NSQDIO11");
        assert_eq!((e.read, e.write), (0x0E28, 0x0E29));
        assert_eq!(e.datapath, vec![0x0E2A, 0x0E2B]);
        assert_eq!((e.portname.as_str(), e.portnum), ("NSQDIO1", 0));
    }

    #[test]
    fn one_line_and_column72_marker() {
        let one = "NSQDIO11 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(0E28),WRITE=(0E29),DATAPATH=(0E2A,0E2B),PORTNAME=(NSQDIO1,0)";
        let (t, d) = parse_trl("t", one);
        assert!(!d.has_errors());
        assert_eq!(t.trles.len(), 1);
        // Column 72 continuation character plus sequence numbers.
        let l1 = format!(
            "{:<71}X00010000",
            "QDIO101  TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(2E00),WRITE=(2E01),"
        );
        let src =
            format!("{l1}\n               DATAPATH=(2E02-2E05),PORTNAME=(QDIO4101,1)  comment\n");
        let (t, d) = parse_trl("t", &src);
        assert!(!d.has_errors(), "{:?}", d.items());
        assert_eq!(t.trles[0].datapath, vec![0x2E02, 0x2E03, 0x2E04, 0x2E05]);
        assert_eq!(t.trles[0].portnum, 1);
    }

    /// An operand field that fills column 71 with a continuation
    /// character in column 72 (and sequence numbers after it), as a card
    /// of a VTAMLST member has it.
    #[test]
    fn a_full_card_ends_at_column_71() {
        let l1 = "NSQDIO1 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(0E28),WRITE=(0E29),CHPID=02,";
        assert_eq!(l1.len(), 71);
        for tail in ["X", "X00010000", "*    0001"] {
            let src =
                format!("{l1}{tail}\n               DATAPATH=(0E2A,0E2B),PORTNAME=(QDIO4101,0)\n");
            let (t, d) = parse_trl("t", &src);
            assert!(!d.has_errors(), "{tail}: {:?}", d.items());
            assert_eq!(t.trles[0].chpid, Some(2));
            assert_eq!(t.trles[0].datapath, vec![0x0E2A, 0x0E2B]);
        }
        // softosa's CHPID= takes one hexadecimal digit too, not three.
        let one = "T1 TRLE LNCTL=MPC,MPCLEVEL=QDIO,READ=(0E28),WRITE=(0E29),DATAPATH=(0E2A),PORTNAME=(P1,0),CHPID=";
        let (t, d) = parse_trl("t", &format!("{one}2"));
        assert!(!d.has_errors(), "{:?}", d.items());
        assert_eq!(t.trles[0].chpid, Some(2));
        for bad in ["102", "+F", ""] {
            let (_, d) = parse_trl("t", &format!("{one}{bad}"));
            assert!(d.has_errors(), "CHPID={bad}");
        }
    }

    #[test]
    fn errors_point_at_operand() {
        let src = "* comment\nT1 TRLE LNCTL=MPC,MPCLEVEL=HPDT,READ=(0E28),WRITE=(0E29),\n      DATAPATH=(0E2A),PORTNAME=(P1,3)\n";
        let (_, d) = parse_trl("f.trl", src);
        let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
        assert!(
            v[0].starts_with("f.trl:2:19: error: TRLE T1: MPCLEVEL=HPDT"),
            "{v:?}"
        );
        assert_eq!(v.len(), 2, "{v:?}");
        assert!(
            v[1].starts_with("f.trl:3:23: error: TRLE T1: PORTNAME=(P1,3)"),
            "{v:?}"
        );
    }

    #[test]
    fn missing_operands_and_eof_continuation() {
        let (_, d) = parse_trl("f", "T1 TRLE LNCTL=MPC,");
        let msgs: Vec<String> = d.items().iter().map(|x| x.message()).collect();
        assert!(msgs.iter().any(|m| m.contains("READ= is required")));
        assert!(msgs.iter().any(|m| m.contains("continuation expected")));
    }

    #[test]
    fn start_options() {
        let (t, d) = parse_trl("f", "QDIOSTG=AVG,IPADDR=192.0.2.9\n");
        assert!(!d.has_errors());
        assert_eq!(t.qdiostg, Some(ReadStorage::Avg));
        assert_eq!(t.ee.map(|e| e.port_range()), Some((12000, 12004)));
    }
}
