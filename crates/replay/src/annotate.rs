//! Annotated pcapng output (layer: replay driver, output; spec 08 §8.2
//! "queue id and presentation time as packet comments").
//!
//! A small pcapng writer: one Section Header Block, an Interface Description
//! Block per (capture interface, link type) met, written just before its
//! first packet, and one Enhanced Packet Block per record carrying the
//! original bytes, the original timestamp (nanosecond resolution) and an
//! `opt_comment` saying what softosa did with the frame. Wireshark shows the
//! comments as `frame.comment` / `pkt_comment`.

use crate::capture::CaptureIf;
use crate::replay::{AnnotationSink, PendingRecord};
use std::collections::BTreeMap;
use std::io::{self, Write};

const SHB: u32 = 0x0A0D_0D0A;
const IDB: u32 = 0x0000_0001;
const EPB: u32 = 0x0000_0006;
const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;
const OPT_END: u16 = 0;
const OPT_COMMENT: u16 = 1;
const SHB_USERAPPL: u16 = 4;
const IF_NAME: u16 = 2;
const IF_TSRESOL: u16 = 9;

/// Writes records with comments as pcapng (little-endian).
pub struct PcapNgWriter<W: Write> {
    out: W,
    /// Capture interface (id, link type, snap length) → our interface id.
    ifaces: BTreeMap<CaptureIf, u32>,
    pub packets: u64,
}

fn pad4(n: usize) -> usize {
    (4 - n % 4) % 4
}

fn option(buf: &mut Vec<u8>, code: u16, value: &[u8]) {
    // An option value is at most 65535 bytes; longer comments are cut.
    let value = &value[..value.len().min(0xFFF0)];
    buf.extend_from_slice(&code.to_le_bytes());
    buf.extend_from_slice(&(value.len() as u16).to_le_bytes());
    buf.extend_from_slice(value);
    buf.extend(std::iter::repeat_n(0u8, pad4(value.len())));
}

fn block(out: &mut impl Write, kind: u32, body: &[u8]) -> io::Result<()> {
    let total = (12 + body.len()) as u32;
    out.write_all(&kind.to_le_bytes())?;
    out.write_all(&total.to_le_bytes())?;
    out.write_all(body)?;
    out.write_all(&total.to_le_bytes())
}

impl<W: Write> PcapNgWriter<W> {
    /// Start a file: writes the section header.
    pub fn new(out: W) -> io::Result<Self> {
        Self::with_comment(out, None)
    }

    /// Start a file whose section header carries `comment` (what the
    /// packet comments describe: the mode, the profile, the capture), as
    /// Wireshark's capture file properties show it.
    pub fn with_comment(mut out: W, comment: Option<&str>) -> io::Result<Self> {
        let mut body = Vec::new();
        body.extend_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
        body.extend_from_slice(&1u16.to_le_bytes());
        body.extend_from_slice(&0u16.to_le_bytes());
        body.extend_from_slice(&(-1i64).to_le_bytes()); // section length unknown
        if let Some(c) = comment {
            option(&mut body, OPT_COMMENT, c.as_bytes());
        }
        option(&mut body, SHB_USERAPPL, b"softosa replay");
        option(&mut body, OPT_END, &[]);
        block(&mut out, SHB, &body)?;
        Ok(PcapNgWriter {
            out,
            ifaces: BTreeMap::new(),
            packets: 0,
        })
    }

    fn iface(&mut self, capture_if: CaptureIf) -> io::Result<u32> {
        if let Some(&id) = self.ifaces.get(&capture_if) {
            return Ok(id);
        }
        let id = self.ifaces.len() as u32;
        let mut body = Vec::new();
        body.extend_from_slice(&(capture_if.link_type as u16).to_le_bytes());
        body.extend_from_slice(&0u16.to_le_bytes());
        // The capture's own snap length, so that tools reading the copy
        // know its short frames were cut and not sent short.
        body.extend_from_slice(&capture_if.snaplen.to_le_bytes());
        option(
            &mut body,
            IF_NAME,
            format!("capture-if{}", capture_if.id).as_bytes(),
        );
        option(&mut body, IF_TSRESOL, &[9]);
        option(&mut body, OPT_END, &[]);
        block(&mut self.out, IDB, &body)?;
        self.ifaces.insert(capture_if, id);
        Ok(id)
    }

    /// Write one packet with a comment.
    pub fn packet(
        &mut self,
        capture_if: CaptureIf,
        ts_ns: i64,
        data: &[u8],
        orig_len: u32,
        comment: &str,
    ) -> io::Result<()> {
        // A record longer than its interface's snap length (a writer that
        // did not keep to its own limit) goes on a twin interface declaring
        // none: libpcap refuses a packet longer than its block's limit.
        let capture_if = if capture_if.snaplen != 0 && data.len() > capture_if.snaplen as usize {
            CaptureIf {
                snaplen: 0,
                ..capture_if
            }
        } else {
            capture_if
        };
        let id = self.iface(capture_if)?;
        let ts = u64::try_from(ts_ns).unwrap_or(0);
        let mut body = Vec::with_capacity(32 + data.len() + comment.len());
        body.extend_from_slice(&id.to_le_bytes());
        body.extend_from_slice(&((ts >> 32) as u32).to_le_bytes());
        body.extend_from_slice(&(ts as u32).to_le_bytes());
        body.extend_from_slice(&(data.len() as u32).to_le_bytes());
        body.extend_from_slice(&orig_len.max(data.len() as u32).to_le_bytes());
        body.extend_from_slice(data);
        body.extend(std::iter::repeat_n(0u8, pad4(data.len())));
        option(&mut body, OPT_COMMENT, comment.as_bytes());
        option(&mut body, OPT_END, &[]);
        block(&mut self.out, EPB, &body)?;
        self.packets += 1;
        Ok(())
    }

    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> AnnotationSink for PcapNgWriter<W> {
    fn record(&mut self, rec: &PendingRecord) -> io::Result<()> {
        let comment = rec
            .fates
            .iter()
            .map(|f| f.comment())
            .collect::<Vec<_>>()
            .join("; ");
        self.packet(rec.capture_if, rec.ts_ns, &rec.raw, rec.orig_len, &comment)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::CaptureReader;

    #[test]
    fn written_file_reads_back_with_same_packets_and_interfaces() {
        let mut w = PcapNgWriter::new(Vec::new()).unwrap();
        let frame = [
            0x02u8, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00, 0x45, 0, 0, 20, 1, 2, 3,
        ];
        let whole = CaptureIf {
            id: 0,
            link_type: 1,
            snaplen: 262_144,
        };
        let cut = CaptureIf {
            id: 1,
            link_type: 1,
            snaplen: 15,
        };
        w.packet(
            whole,
            1_700_000_000_123_456_789,
            &frame,
            60,
            "softosa: queue 2 BULKDATA",
        )
        .unwrap();
        w.packet(cut, 1_700_000_000_123_457_000, &frame[..15], 60, "")
            .unwrap();
        w.packet(whole, 1_700_000_000_123_458_000, &frame, 60, "")
            .unwrap();
        // Longer than its interface's snap length: on a twin with none.
        w.packet(cut, 1_700_000_000_123_459_000, &frame, 60, "")
            .unwrap();
        let bytes = w.finish().unwrap();
        assert_eq!(bytes.len() % 4, 0);
        let mut r = CaptureReader::new(&bytes[..]).unwrap();
        let a = r.next_record().unwrap().unwrap();
        assert_eq!(a.ts_ns, 1_700_000_000_123_456_789);
        assert_eq!(a.raw, &frame[..]);
        assert_eq!(a.orig_len, 60);
        assert_eq!(a.capture_if, whole);
        let b = r.next_record().unwrap().unwrap();
        assert_eq!(b.raw.len(), 15);
        // Each interface is described once, with its own snap length.
        assert_eq!(b.capture_if, cut);
        let c = r.next_record().unwrap().unwrap();
        assert_eq!(c.capture_if, whole);
        let d = r.next_record().unwrap().unwrap();
        assert_eq!((d.capture_if.snaplen, d.raw.len()), (0, frame.len()));
        assert!(r.next_record().unwrap().is_none());
    }
}
