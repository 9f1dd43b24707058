//! Keyword tables with z/OS minimum abbreviations (spec 5.1).
//!
//! Layer: configuration front end. z/OS documents each keyword with its
//! minimum abbreviation in upper case and the optional rest in lower case
//! (`GLOBALCONFig`: `GLOBALCONF` up to `GLOBALCONFIG` are accepted). The
//! tables below carry that spelling. Where we could not confirm a keyword's
//! minimum abbreviation from the IBM syntax diagrams, the whole keyword is
//! upper case here, so only the full keyword is accepted — that is safe:
//! softosa never accepts a spelling that z/OS would reject.
//!
//! Abbreviable keywords (minimum in upper case): `INTERFace`,
//! `GLOBALCONFig`, `IPCONFig`, `SEGMENTATIONOFFLoad`/`NOSEGMENTATIONOFFLoad`,
//! `DATAGRamfwd`/`NODATAGRamfwd`, `QDIOACCELerator`/`NOQDIOACCELerator`,
//! `IQDIORouting`/`NOIQDIORouting`, `QDIOPriority`, `SOURCEVIPAINTerface`,
//! `REPLaceable`/`NOREPLaceable` (ROUTE), and the parameters softosa reads
//! but does not model, as their syntax diagrams spell them
//! (`SYSPLEXRouting`, `TCPSTACKSOURCEVipa`, `NOTCPIPStatistics`, ...; see
//! the tables in [`crate::parser`]).
//! Every other keyword (DEVICE, LINK, HOME, START, VIPADYNAMIC, BEGINROUTES,
//! DEFINE, IPADDR, PORTNAME, INBPERF, WORKLOADQ, OLM, READSTORAGE, VMAC,
//! VLANID, MTU, WLMPRIORITYQ, IQDMULTIWRITE, ZIIP, DYNAMICXCF, ...) must be
//! coded in full; a prefix of it is reported as too short.

/// A keyword as documented: upper-case part is the minimum abbreviation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keyword {
    /// The documented spelling, e.g. `GLOBALCONFig` (ASCII).
    pub doc: &'static str,
}

/// Build a keyword from its documented spelling, e.g. `"GLOBALCONFig"`.
pub const fn kw(doc: &'static str) -> Keyword {
    Keyword { doc }
}

impl Keyword {
    /// Upper-case full keyword.
    pub fn full_upper(&self) -> String {
        self.doc.to_ascii_uppercase()
    }

    /// Minimum abbreviation (upper case part).
    pub fn min_upper(&self) -> &'static str {
        let n = self
            .doc
            .bytes()
            .take_while(|b| !b.is_ascii_lowercase())
            .count();
        self.doc.get(..n).unwrap_or(self.doc)
    }

    /// Does `token` (any case) spell this keyword, fully or abbreviated?
    pub fn matches(&self, token: &str) -> Match {
        let full = self.doc.as_bytes();
        let t = token.as_bytes();
        if t.is_empty() || t.len() > full.len() || !full[..t.len()].eq_ignore_ascii_case(t) {
            return Match::No;
        }
        if t.len() >= self.min_upper().len() {
            Match::Yes
        } else {
            Match::TooShort
        }
    }
}

/// Result of matching a token against a keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    Yes,
    /// A prefix of the keyword, but shorter than z/OS accepts.
    TooShort,
    No,
}

/// Find which keyword of `table` a token spells. Returns the index, or the
/// keyword it is a too-short abbreviation of.
pub fn lookup(table: &[Keyword], token: &str) -> Lookup {
    let mut short = None;
    for (i, k) in table.iter().enumerate() {
        match k.matches(token) {
            Match::Yes => return Lookup::Found(i),
            Match::TooShort => {
                if short.is_none() {
                    short = Some(i);
                }
            }
            Match::No => {}
        }
    }
    match short {
        Some(i) => Lookup::TooShort(i),
        None => Lookup::NotFound,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    Found(usize),
    TooShort(usize),
    NotFound,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviation_rules() {
        let k = kw("GLOBALCONFig");
        assert_eq!(k.min_upper(), "GLOBALCONF");
        assert_eq!(k.matches("globalconfig"), Match::Yes);
        assert_eq!(k.matches("GlobalConf"), Match::Yes);
        assert_eq!(k.matches("GLOBALCONFI"), Match::Yes);
        assert_eq!(k.matches("GLOBALCON"), Match::TooShort);
        assert_eq!(k.matches("GLOBALCONFIGX"), Match::No);
        assert_eq!(k.matches("GLOBALX"), Match::No);
        let full = kw("DEVICE");
        assert_eq!(full.matches("DEVIC"), Match::TooShort);
        assert_eq!(full.matches("device"), Match::Yes);
    }
}
