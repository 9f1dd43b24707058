//! Tokenizer for the TCP/IP profile and the Policy Agent file (spec 5.1).
//!
//! Layer: configuration front end. A profile is a stream of blank-separated
//! tokens; line ends have no meaning (statements continue across lines), and
//! a comment character (`;` in the profile, `#` or `;` in policy files) starts
//! a comment that runs to the end of the line. Each token remembers its
//! 1-based line and column so every diagnostic can point at it.

use crate::diag::Span;

/// One blank-delimited word of the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub text: String,
    pub span: Span,
}

impl Token {
    /// The token in upper case (keywords are case-insensitive).
    pub fn upper(&self) -> String {
        self.text.to_ascii_uppercase()
    }
}

/// Split `src` into tokens. `comment` lists the characters that start a
/// comment. Braces `{` and `}` are returned as tokens of their own when
/// `braces` is set (Policy Agent syntax). A leading byte order mark is
/// skipped.
pub fn tokenize(src: &str, comment: &[char], braces: bool) -> Vec<Token> {
    tokens(src, comment, braces).collect()
}

/// The tokens of [`tokenize`], one at a time: a reader that needs only the
/// first ones (to tell what kind of file it is) splits no more lines than
/// it takes to find them.
pub fn tokens<'a>(
    src: &'a str,
    comment: &'a [char],
    braces: bool,
) -> impl Iterator<Item = Token> + 'a {
    let lines = crate::load::text_lines(crate::load::strip_bom(src)).enumerate();
    lines.flat_map(move |(li, line)| {
        let line_no = u32::try_from(li + 1).unwrap_or(u32::MAX);
        split_line(line, line_no, comment, braces)
    })
}

/// The tokens of one line, numbered `line_no`.
fn split_line(line: &str, line_no: u32, comment: &[char], braces: bool) -> Vec<Token> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut start_col = 0u32;
    for (ci, ch) in line.chars().enumerate() {
        let col = u32::try_from(ci + 1).unwrap_or(u32::MAX);
        if comment.contains(&ch) {
            break;
        }
        if ch.is_whitespace() || ch.is_control() {
            flush(&mut out, &mut cur, line_no, start_col);
            continue;
        }
        if braces && (ch == '{' || ch == '}') {
            flush(&mut out, &mut cur, line_no, start_col);
            out.push(Token {
                text: ch.to_string(),
                span: Span::new(line_no, col),
            });
            continue;
        }
        if cur.is_empty() {
            start_col = col;
        }
        cur.push(ch);
    }
    flush(&mut out, &mut cur, line_no, start_col);
    out
}

fn flush(out: &mut Vec<Token>, cur: &mut String, line: u32, col: u32) {
    if !cur.is_empty() {
        out.push(Token {
            text: std::mem::take(cur),
            span: Span::new(line, col),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_positions() {
        let t = tokenize("INTERFACE  A ; comment here\n  MTU 1492;x\n", &[';'], false);
        let v: Vec<(&str, u32, u32)> = t
            .iter()
            .map(|t| (t.text.as_str(), t.span.line, t.span.col))
            .collect();
        assert_eq!(
            v,
            vec![
                ("INTERFACE", 1, 1),
                ("A", 1, 12),
                ("MTU", 2, 3),
                ("1492", 2, 7)
            ]
        );
    }

    #[test]
    fn braces_split() {
        let t = tokenize("Set{ a }# c\n}", &['#'], true);
        let v: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(v, vec!["Set", "{", "a", "}", "}"]);
    }
}
