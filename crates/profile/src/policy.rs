//! Reader for the Policy Agent `SetSubnetPrioTosMask` block (spec 3.1):
//! which outbound write queue (1-4) a packet uses, by its masked TOS byte.
//!
//! Layer: configuration front end. Syntax:
//! ```text
//! SetSubnetPrioTosMask
//! {
//!   SubnetTosMask      11100000
//!   PriorityTosMapping 1 11100000
//! }
//! ```
//! `#` and `;` start comments. Keywords are case-insensitive and not
//! abbreviable. Other Policy Agent statements are reported as unsupported.

use crate::ast::TosPolicy;
use crate::diag::{Diagnostics, ErrorKind, Span, WarningKind};
use crate::lexer::{tokenize, tokens, Token};

/// Is the first significant token of `src` a Policy Agent statement? Only
/// the lines up to that token are split: the file is tokenized in full
/// once, by the reader of its kind.
pub fn looks_like_policy(src: &str) -> bool {
    tokens(src, &['#', ';'], true)
        .next()
        .is_some_and(|t| t.text.eq_ignore_ascii_case("SetSubnetPrioTosMask"))
}

fn bits8(s: &str) -> Option<u8> {
    if s.len() != 8 || !s.bytes().all(|b| b == b'0' || b == b'1') {
        return None;
    }
    u8::from_str_radix(s, 2).ok()
}

/// Parse a policy file. Returns the block if one was coded. Never panics.
pub fn parse_policy(file: &str, src: &str) -> (Option<TosPolicy>, Diagnostics) {
    let toks = tokenize(src, &['#', ';'], true);
    let mut d = Diagnostics::new();
    let mut out: Option<TosPolicy> = None;
    let mut i = 0;
    while let Some(t) = toks.get(i) {
        i += 1;
        if t.text.eq_ignore_ascii_case("SetSubnetPrioTosMask") {
            let (p, next) = block(file, &toks, i, t.span, &mut d);
            i = next;
            if out.is_some() {
                d.error(
                    file,
                    t.span,
                    ErrorKind::PolicyDuplicateBlock("SetSubnetPrioTosMask"),
                );
            } else {
                out = p;
            }
        } else {
            if t.text == "{" || t.text == "}" {
                d.error(file, t.span, ErrorKind::Unexpected(t.text.clone()));
                continue;
            }
            d.error(
                file,
                t.span,
                ErrorKind::UnsupportedStatement(format!(
                    "{} (softosa reads only SetSubnetPrioTosMask from a policy file)",
                    t.text
                )),
            );
            // Skip a name and a balanced { ... } block if present.
            while toks.get(i).is_some_and(|x| x.text != "{") {
                if toks
                    .get(i)
                    .is_some_and(|x| x.text.eq_ignore_ascii_case("SetSubnetPrioTosMask"))
                {
                    break;
                }
                i += 1;
            }
            if toks.get(i).is_some_and(|x| x.text == "{") {
                let mut depth = 0usize;
                while let Some(x) = toks.get(i) {
                    i += 1;
                    if x.text == "{" {
                        depth += 1;
                    } else if x.text == "}" {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                }
            }
        }
    }
    (out, d)
}

fn block(
    file: &str,
    toks: &[Token],
    mut i: usize,
    span: Span,
    d: &mut Diagnostics,
) -> (Option<TosPolicy>, usize) {
    const S: &str = "SetSubnetPrioTosMask";
    if toks.get(i).map(|t| t.text.as_str()) != Some("{") {
        d.error(
            file,
            span,
            ErrorKind::MissingRequired {
                stmt: S,
                name: None,
                what: "{ after SetSubnetPrioTosMask".into(),
            },
        );
        return (None, i);
    }
    i += 1;
    let mut mask: Option<u8> = None;
    let mut maps: Vec<(u8, u8, Span)> = Vec::new();
    let mut closed = false;
    while let Some(t) = toks.get(i) {
        i += 1;
        let u = t.text.to_ascii_uppercase();
        match u.as_str() {
            "}" => {
                closed = true;
                break;
            }
            "SUBNETTOSMASK" => {
                let v = toks.get(i);
                i += 1;
                match v.and_then(|v| bits8(&v.text)) {
                    Some(m) => mask = Some(m),
                    None => {
                        d.error(
                            file,
                            v.map(|v| v.span).unwrap_or(t.span),
                            ErrorKind::InvalidValue {
                                stmt: S,
                                name: None,
                                param: "SubnetTosMask".into(),
                                value: v.map(|v| v.text.clone()).unwrap_or_default(),
                                expected: "8 binary digits, e.g. 11100000".into(),
                            },
                        );
                    }
                }
            }
            "PRIORITYTOSMAPPING" => {
                let p = toks.get(i);
                let b = toks.get(i + 1);
                i += 2;
                let prio = p
                    .and_then(|p| p.text.parse::<u8>().ok())
                    .filter(|p| (1..=4).contains(p));
                let tos = b.and_then(|b| bits8(&b.text));
                match (prio, tos) {
                    (Some(q), Some(tv)) => maps.push((tv, q, b.map(|b| b.span).unwrap_or(t.span))),
                    (None, _) => d.error(
                        file,
                        p.map(|p| p.span).unwrap_or(t.span),
                        ErrorKind::InvalidValue {
                            stmt: S,
                            name: None,
                            param: "PriorityTosMapping".into(),
                            value: p.map(|p| p.text.clone()).unwrap_or_default(),
                            expected: "a write queue priority 1-4".into(),
                        },
                    ),
                    (_, None) => d.error(
                        file,
                        b.map(|b| b.span).unwrap_or(t.span),
                        ErrorKind::InvalidValue {
                            stmt: S,
                            name: None,
                            param: "PriorityTosMapping".into(),
                            value: b.map(|b| b.text.clone()).unwrap_or_default(),
                            expected: "8 binary digits, e.g. 01100000".into(),
                        },
                    ),
                }
            }
            _ => d.error(
                file,
                t.span,
                ErrorKind::UnknownParameter {
                    stmt: S,
                    name: None,
                    param: t.text.clone(),
                },
            ),
        }
    }
    if !closed {
        d.error(file, span, ErrorKind::UnclosedBlock { begin: S, end: "}" });
    }
    let mask = mask.unwrap_or(0b1110_0000);
    let mut seen: Vec<u8> = Vec::new();
    let mut mappings = Vec::new();
    for (tos, q, sp) in maps {
        if tos & !mask != 0 {
            d.warning(file, sp, WarningKind::PolicyTosOutsideMask { tos, mask });
        }
        let m = tos & mask;
        if seen.contains(&m) {
            d.error(file, sp, ErrorKind::PolicyDuplicateTos(m));
            continue;
        }
        seen.push(m);
        mappings.push((m, q));
    }
    (
        Some(TosPolicy {
            mask,
            mappings,
            span,
        }),
        i,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "SetSubnetPrioTosMask\n{\n  SubnetTosMask      11100000\n  PriorityTosMapping 1 11100000\n  PriorityTosMapping 2 01100000\n  PriorityTosMapping 3 00100000\n  PriorityTosMapping 4 00000000\n}\n";

    #[test]
    fn spec_block() {
        let (p, d) = parse_policy("p", SPEC);
        assert!(!d.has_errors(), "{:?}", d.items());
        let p = p.expect("policy");
        assert_eq!(p.mask, 0b1110_0000);
        assert_eq!(p.queue_for(0b1110_0101), 1);
        assert_eq!(p.queue_for(0b0110_0000), 2);
        assert_eq!(p.queue_for(0b0011_1111), 3);
        assert_eq!(p.queue_for(0), 4);
        // 110xxxxx is not mapped in this block: lowest priority.
        assert_eq!(p.queue_for(0b1100_0000), 4);
        assert!(looks_like_policy(SPEC));
    }

    #[test]
    fn default_table_matches_spec() {
        let t = TosPolicy::default_table();
        for (tos, q) in [
            (0xE0, 1),
            (0xC0, 1),
            (0xA0, 1),
            (0x80, 1),
            (0x60, 2),
            (0x40, 3),
            (0x20, 4),
            (0x00, 4),
        ] {
            assert_eq!(t.queue_for(tos), q, "tos {tos:08b}");
        }
    }

    #[test]
    fn errors_with_positions() {
        let src = "SetSubnetPrioTosMask {\n SubnetTosMask 1110\n PriorityTosMapping 5 11100000\n PriorityTosMapping 1 00000001\n PriorityTosMapping 2 00000000\n}\nPolicyRule r1 { x y }\n";
        let (_, d) = parse_policy("pol", src);
        let v: Vec<String> = d.items().iter().map(|x| x.to_string()).collect();
        assert!(v.iter().any(|s| s.starts_with("pol:2:16: error:")), "{v:?}");
        assert!(v.iter().any(|s| s.starts_with("pol:3:21: error:")), "{v:?}");
        assert!(
            v.iter().any(|s| s.starts_with("pol:4:23: warning:")),
            "{v:?}"
        );
        // 00000001 masked is 00000000, so line 5 duplicates it.
        assert!(v.iter().any(|s| s.starts_with("pol:5:23: error:")), "{v:?}");
        assert!(v.iter().any(|s| s.starts_with("pol:7:1: error:")), "{v:?}");
    }
}
