//! Text helpers shared by the displays (layer: displays; spec 05 §5.2):
//! the VTAM overflow-word split, z/OS spellings of values, and a small line
//! builder.

use core::fmt::Write as _;

/// A counter as VTAM prints it: `overflow` = count >> 32 (the `xxxO`
/// word), `value` = count & 0xffffffff; total = overflow × 2^32 + value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Split {
    pub overflow: u32,
    pub value: u32,
}

/// Split a 64-bit counter into VTAM's overflow word and 32-bit count.
pub fn split(count: u64) -> Split {
    Split {
        overflow: (count >> 32) as u32,
        value: (count & 0xffff_ffff) as u32,
    }
}

/// One tuning-statistics line:
/// `IST1719I PCIREALO =          0 PCIREAL  =       7687`.
pub fn vtam_counter_line(msg: &str, olabel: &str, label: &str, count: u64) -> String {
    let s = split(count);
    format!(
        "{msg} {olabel:<8} = {o:>10} {label:<8} = {v:>10}",
        o = s.overflow,
        v = s.value
    )
}

/// `YES`/`NO`.
pub fn yes_no(b: bool) -> &'static str {
    if b {
        "YES"
    } else {
        "NO"
    }
}

/// `Yes`/`No` (mixed-case displays: OSAINFO, Netstat CONFIG/ALL).
pub fn yes_no_mixed(b: bool) -> &'static str {
    if b {
        "Yes"
    } else {
        "No"
    }
}

/// A device number as four hex digits.
pub fn dev(d: u16) -> String {
    format!("{d:04X}")
}

/// Read storage as `D NET,TRL` shows it: `4.0M`, `512K`.
pub fn storage_mk(bytes: u64) -> String {
    const M: u64 = 1024 * 1024;
    if bytes >= M {
        format!("{:.1}M", bytes as f64 / M as f64)
    } else {
        format!("{}K", bytes / 1024)
    }
}

/// Accumulates display lines.
#[derive(Default)]
pub struct Lines(String);

impl Lines {
    pub fn new() -> Self {
        Lines(String::new())
    }
    pub fn line(&mut self, s: impl AsRef<str>) {
        self.0.push_str(s.as_ref().trim_end());
        self.0.push('\n');
    }
    /// `label = value` with the label padded to `width`.
    pub fn stat(&mut self, indent: usize, label: &str, width: usize, value: u64) {
        let _ = writeln!(self.0, "{:indent$}{label:<width$}= {value}", "");
    }
    pub fn finish(self) -> String {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_word_carries_the_high_half() {
        let c = (3u64 << 32) + 17;
        assert_eq!(
            split(c),
            Split {
                overflow: 3,
                value: 17
            }
        );
        assert_eq!(
            vtam_counter_line("IST1236I", "BYTECNTO", "BYTECNT", c),
            "IST1236I BYTECNTO =          3 BYTECNT  =         17"
        );
        // Just below the wrap: all in the low word.
        assert_eq!(split(u64::from(u32::MAX)).overflow, 0);
        assert_eq!(split(1u64 << 32).value, 0);
    }

    #[test]
    fn storage_sizes() {
        assert_eq!(storage_mk(64 * 65536), "4.0M");
        assert_eq!(storage_mk(8 * 65536), "512K");
        assert_eq!(storage_mk(126 * 65536), "7.9M");
    }
}
