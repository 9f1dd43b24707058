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

/// Which of `items` `token` spells: the value of the first whose keyword
/// it matches (in full, or abbreviated far enough), else the first keyword
/// it is too short an abbreviation of. Every keyword lookup of the readers
/// goes through here.
pub fn lookup<T>(items: impl IntoIterator<Item = (Keyword, T)>, token: &str) -> Lookup<T> {
    let mut short = None;
    for (k, v) in items {
        match k.matches(token) {
            Match::Yes => return Lookup::Found(v),
            Match::TooShort if short.is_none() => short = Some(k),
            Match::TooShort | Match::No => {}
        }
    }
    short.map_or(Lookup::NotFound, Lookup::TooShort)
}

/// The result of [`lookup`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup<T> {
    Found(T),
    /// Too short an abbreviation of this keyword (and no match).
    TooShort(Keyword),
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

    /// A match anywhere wins over a too-short abbreviation before it; of
    /// several too-short ones, the first is named.
    #[test]
    fn lookup_prefers_a_match_then_the_first_too_short() {
        let t = [
            (kw("SOURCEVIPAINTerface"), 1),
            (kw("SOURCEVIPA"), 2),
            (kw("PERConnection"), 3),
            (kw("PERPacket"), 4),
        ];
        assert_eq!(lookup(t, "sourcevipa"), Lookup::Found(2));
        assert_eq!(lookup(t, "SOURCEVIPAINT"), Lookup::Found(1));
        assert_eq!(lookup(t, "PER"), Lookup::TooShort(kw("PERConnection")));
        assert_eq!(lookup(t, "X"), Lookup::NotFound);
    }
}
