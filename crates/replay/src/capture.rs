//! Streaming capture reader (layer: replay driver, input; spec 08 §8.2).
//!
//! Reads pcap (micro- and nanosecond, either byte order) and pcapng (any
//! `if_tsresol`, several interfaces and sections) through the rusticata
//! `pcap-parser` streaming readers, whose circular buffer keeps memory
//! constant whatever the file size: a record is copied out, the buffer
//! space is consumed, and only the current record is ever held.
//!
//! Every record is normalised to what the engine's data router reads: an
//! Ethernet II frame plus its wire length and a timestamp in nanoseconds.
//! Ethernet captures pass through; Linux cooked captures (SLL, SLL2), raw IP
//! (LINKTYPE_RAW, IPV4, IPV6) and BSD loopback (NULL) get a synthesised
//! Ethernet header. Records that cannot be normalised are skipped and
//! counted by [`SkipReason`]; a truncated or corrupt file ends the read with
//! a typed [`CaptureError`] naming the record number (1-based, as Wireshark
//! numbers frames) and the byte counts.

use pcap_parser::pcapng::{Block, InterfaceDescriptionBlock};
use pcap_parser::traits::PcapReaderIterator;
use pcap_parser::OptionCode;
use pcap_parser::{LegacyPcapReader, PcapBlockOwned, PcapError, PcapNGOption, PcapNGReader};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Initial size of the streaming buffer.
const INITIAL_BUFFER: usize = 256 * 1024;
/// Largest single block accepted (the buffer never grows past this).
pub const MAX_BLOCK: usize = 16 * 1024 * 1024;
/// Most interfaces one pcapng section may declare.
pub const MAX_INTERFACES: usize = 4096;

/// Source MAC put on frames whose link layer had no usable address.
pub const SYNTH_SRC_MAC: [u8; 6] = [0x02, 0x00, 0x00, 0x00, 0x00, 0xfe];
/// Destination MAC put on synthesised frames (the replay rewrites it for
/// inbound frames to the interface's MAC).
pub const SYNTH_DST_MAC: [u8; 6] = [0x02, 0x00, 0x00, 0x00, 0x00, 0xff];

/// pcap link-layer header types this reader normalises.
pub mod linktype {
    pub const NULL: i32 = 0;
    pub const ETHERNET: i32 = 1;
    pub const RAW: i32 = 101;
    pub const LINUX_SLL: i32 = 113;
    pub const IPV4: i32 = 228;
    pub const IPV6: i32 = 229;
    pub const LINUX_SLL2: i32 = 276;
    /// Some old writers put the BSD DLT_RAW values in files.
    pub const DLT_RAW_12: i32 = 12;
    pub const DLT_RAW_14: i32 = 14;
}

/// Which container format the file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum CaptureFormat {
    /// Classic libpcap format; `nanos` when the magic says nanosecond stamps.
    Pcap {
        nanos: bool,
    },
    PcapNg,
}

/// Direction recorded by the capturing system, when the link type says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum DirectionHint {
    /// Addressed to the capturing host (SLL packet type 0).
    ToHost,
    /// Sent by the capturing host (SLL packet type 4).
    FromHost,
    /// Broadcast, multicast or another host's traffic.
    Other,
}

/// Why a record was skipped rather than replayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum SkipReason {
    /// The link type is not one this reader normalises.
    UnsupportedLinkType(i32),
    /// Fewer bytes than the link-layer header.
    ShortLinkHeader,
    /// Cooked capture carrying a non-Ethernet-II protocol (802.2 LLC, CAN, ...).
    NotEthernetII(u16),
    /// Raw/loopback capture whose payload is neither IPv4 nor IPv6.
    NotIp,
    /// pcap record whose fraction of a second (micro- or nanoseconds, as
    /// the file's magic says) is a whole second or more.
    StampFraction { nanos: bool },
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::UnsupportedLinkType(t) => write!(f, "unsupported link type {t}"),
            SkipReason::ShortLinkHeader => write!(f, "shorter than its link-layer header"),
            SkipReason::NotEthernetII(p) => {
                write!(f, "cooked protocol {p:#06x} is not Ethernet II")
            }
            SkipReason::NotIp => write!(f, "raw payload is neither IPv4 nor IPv6"),
            SkipReason::StampFraction { nanos: false } => {
                write!(f, "malformed timestamp: 1000000 microseconds or more")
            }
            SkipReason::StampFraction { nanos: true } => {
                write!(f, "malformed timestamp: 1000000000 nanoseconds or more")
            }
        }
    }
}

/// Why the first bytes are not a capture's header (an empty file says so).
fn not_a_capture(magic: &[u8]) -> String {
    if magic.is_empty() {
        return "the file is empty: not a pcap or pcapng capture".into();
    }
    // tcpdump -w - | gzip and Wireshark's "compress with gzip" both make
    // these; the reader takes the capture uncompressed.
    if magic.starts_with(&[0x1f, 0x8b]) {
        return "the file is gzip-compressed; decompress it first (gunzip) and replay \
                the capture inside"
            .into();
    }
    format!(
        "not a pcap or pcapng file: it starts with {magic:02x?} (expected a pcap magic \
         a1b2c3d4/a1b23c4d in either byte order, or the pcapng block type 0a0d0d0a)"
    )
}

/// Errors reading a capture. Record numbers are 1-based packet numbers.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("cannot open the capture: {source}")]
    Open {
        path: String,
        source: std::io::Error,
    },
    #[error("{}", not_a_capture(magic))]
    NotACapture { magic: Vec<u8> },
    #[error("capture file header is damaged after {bytes_read} bytes: {detail}")]
    BadHeader { bytes_read: u64, detail: String },
    #[error("capture truncated: record {record} starts at byte {offset} but the file ends after {bytes_read} bytes")]
    Truncated {
        record: u64,
        offset: u64,
        bytes_read: u64,
    },
    /// A pcap record whose length runs past the end of the file and is
    /// larger than the file's snap length: its header is damaged (the file
    /// was not merely cut short). The records before it are good.
    #[error(
        "the header of record {record} (at byte {offset}) looks damaged: it claims \
         {claimed} bytes, more than the file's snap length of {snaplen}, so reading \
         stops there"
    )]
    DamagedLength {
        record: u64,
        offset: u64,
        claimed: u32,
        snaplen: u32,
    },
    /// `offset` is where the record or block starts in the file;
    /// `bytes_read` (how far the reader had read ahead into its buffer) is
    /// kept for callers but not shown: it says nothing of the damage.
    #[error("corrupt capture at record {record} (at byte {offset} of the file): {detail}")]
    Corrupt {
        record: u64,
        offset: u64,
        bytes_read: u64,
        detail: String,
    },
    #[error(
        "record {record} (at byte {offset}) is larger than the {max}-byte limit for one block"
    )]
    RecordTooLarge {
        record: u64,
        offset: u64,
        max: usize,
    },
    #[error("read error at record {record} after {bytes_read} bytes: {source}")]
    Io {
        record: u64,
        bytes_read: u64,
        source: std::io::Error,
    },
}

/// One normalised capture record. Borrowed from the reader until the next call.
#[derive(Debug)]
pub struct Record<'a> {
    /// 1-based packet number (Wireshark's frame number).
    pub number: u64,
    /// Timestamp in nanoseconds since the Unix epoch (as the file says).
    pub ts_ns: i64,
    /// The frame as an Ethernet II frame (possibly cut at the snap length).
    pub frame: &'a [u8],
    /// Length of that Ethernet frame on the wire.
    pub wire_len: u32,
    /// The bytes exactly as captured, and their original length.
    pub raw: &'a [u8],
    pub orig_len: u32,
    /// The capture interface it was taken on.
    pub capture_if: CaptureIf,
    pub direction_hint: Option<DirectionHint>,
}

/// The capture interface a record was taken on, as the file declares it:
/// what an annotated copy needs to describe it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct CaptureIf {
    /// pcapng interface id within its section (0 for pcap).
    pub id: u32,
    pub link_type: i32,
    /// The most bytes of a packet the capture kept (0: no limit).
    pub snaplen: u32,
}

/// A record the reader left out (see [`SkipReason`]), with what the
/// annotated capture needs to write it back in its place.
#[derive(Debug)]
pub struct SkippedRecord<'a> {
    /// 1-based packet number (Wireshark's frame number).
    pub number: u64,
    /// Timestamp in nanoseconds since the Unix epoch. For a record whose
    /// own stamp is malformed: the previous record's (its whole second for
    /// the first record), so that a capture written back stays in order.
    pub ts_ns: i64,
    /// The bytes exactly as captured, and their original length.
    pub raw: &'a [u8],
    pub orig_len: u32,
    /// The capture interface it was taken on.
    pub capture_if: CaptureIf,
    pub reason: SkipReason,
}

/// One packet record: replayable, or left out with its reason.
#[derive(Debug)]
pub enum Entry<'a> {
    Record(Record<'a>),
    Skipped(SkippedRecord<'a>),
}

/// Records left out for one reason: how many, and the first of them, so
/// that it can be found in Wireshark (`frame.number == first_record`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    pub count: u64,
    /// 1-based number of the first such record (Wireshark's frame number).
    pub first_record: u64,
}

impl Skipped {
    /// Count record number `record` under `why`.
    pub fn count_in(map: &mut BTreeMap<String, Skipped>, why: String, record: u64) {
        map.entry(why)
            .and_modify(|s| s.count += 1)
            .or_insert(Skipped {
                count: 1,
                first_record: record,
            });
    }
}

/// Counters kept while reading.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ReaderStats {
    /// Packet records seen (replayed + skipped).
    pub records: u64,
    /// Records returned to the caller.
    pub returned: u64,
    /// Records skipped, by reason.
    pub skipped: BTreeMap<String, Skipped>,
    /// Non-packet pcapng blocks (interface statistics, name resolution, ...).
    pub other_blocks: u64,
    /// Packets the capturing system says it lost while capturing: the
    /// latest `isb_ifdrop` plus `isb_osdrop` of each interface's
    /// statistics blocks (pcapng only; the counters are running totals).
    pub capture_dropped: u64,
}

/// Wraps the input: counts bytes, keeps the last I/O error, fills each
/// read completely (the parsers treat a short read as end of input when
/// probing the header) and replays the magic bytes peeked at open time.
struct CountingReader<R> {
    inner: R,
    prefix: [u8; 4],
    prefix_len: usize,
    prefix_pos: usize,
    bytes: Arc<AtomicU64>,
    error: Arc<Mutex<Option<std::io::Error>>>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut filled = 0;
        while self.prefix_pos < self.prefix_len && filled < buf.len() {
            buf[filled] = self.prefix[self.prefix_pos];
            self.prefix_pos += 1;
            filled += 1;
        }
        while filled < buf.len() {
            match self.inner.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => {
                    filled += n;
                    self.bytes.fetch_add(n as u64, Ordering::Relaxed);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let kind = e.kind();
                    if let Ok(mut slot) = self.error.lock() {
                        *slot = Some(e);
                    }
                    if filled > 0 {
                        break;
                    }
                    return Err(std::io::Error::from(kind));
                }
            }
        }
        Ok(filled)
    }
}

enum Inner<R: Read> {
    Pcap(LegacyPcapReader<CountingReader<R>>),
    Ng(PcapNGReader<CountingReader<R>>),
}

impl<R: Read> Inner<R> {
    fn reader(&mut self) -> &mut dyn PcapReaderIterator {
        match self {
            Inner::Pcap(r) => r,
            Inner::Ng(r) => r,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct IfInfo {
    link_type: i32,
    snaplen: u32,
    /// Timestamp units per second.
    units: u64,
    /// Seconds added to every timestamp.
    offset_s: i64,
}

impl IfInfo {
    fn capture_if(&self, id: u32) -> CaptureIf {
        CaptureIf {
            id,
            link_type: self.link_type,
            snaplen: self.snaplen,
        }
    }
}

#[derive(Debug, Default)]
struct State {
    pcap_link: i32,
    pcap_snaplen: u32,
    pcap_nanos: bool,
    /// Byte order of the pcap file or of the current pcapng section.
    big_endian: bool,
    interfaces: Vec<IfInfo>,
    /// Last timestamp seen (Simple Packet Blocks carry none).
    last_ts: i64,
    /// pcapng sections begun so far (interface numbers restart in each).
    section: u32,
    /// Packets dropped while capturing, by section and interface: the
    /// latest statistics block's count.
    capture_drops: BTreeMap<(u32, u32), u64>,
    stats: ReaderStats,
}

impl State {
    /// A pcap file's one interface.
    fn pcap_if(&self) -> CaptureIf {
        CaptureIf {
            id: 0,
            link_type: self.pcap_link,
            snaplen: self.pcap_snaplen,
        }
    }
}

/// Streaming reader over a pcap or pcapng file.
pub struct CaptureReader<R: Read> {
    inner: Inner<R>,
    format: CaptureFormat,
    state: State,
    frame_buf: Vec<u8>,
    raw_buf: Vec<u8>,
    bytes: Arc<AtomicU64>,
    io_error: Arc<Mutex<Option<std::io::Error>>>,
    capacity: usize,
    finished: bool,
}

impl CaptureReader<std::fs::File> {
    /// Open a capture file.
    pub fn open(path: &Path) -> Result<Self, CaptureError> {
        let open_err = |source| CaptureError::Open {
            path: path.display().to_string(),
            source,
        };
        let file = std::fs::File::open(path).map_err(open_err)?;
        // Opening a directory succeeds on Unix; reading it fails obscurely.
        if file.metadata().map_err(open_err)?.is_dir() {
            return Err(open_err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "it is a directory, not a capture file",
            )));
        }
        Self::new(file)
    }
}

impl<R: Read> CaptureReader<R> {
    /// Start reading from any byte source (file, pipe, memory).
    pub fn new(mut input: R) -> Result<Self, CaptureError> {
        let bytes = Arc::new(AtomicU64::new(0));
        let io_error = Arc::new(Mutex::new(None));
        let mut magic = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match input.read(&mut magic[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(CaptureError::Io {
                        record: 1,
                        bytes_read: got as u64,
                        source,
                    })
                }
            }
        }
        bytes.fetch_add(got as u64, Ordering::Relaxed);
        let counting = CountingReader {
            inner: input,
            prefix: magic,
            prefix_len: got,
            prefix_pos: 0,
            bytes: Arc::clone(&bytes),
            error: Arc::clone(&io_error),
        };
        let bad_header = |e: PcapError<&[u8]>, bytes: &AtomicU64| CaptureError::BadHeader {
            bytes_read: bytes.load(Ordering::Relaxed),
            detail: describe(&e),
        };
        let (inner, format) = match (got, magic) {
            (4, [0x0a, 0x0d, 0x0d, 0x0a]) => {
                let r = PcapNGReader::new(INITIAL_BUFFER, counting)
                    .map_err(|e| bad_header(e, &bytes))?;
                (Inner::Ng(r), CaptureFormat::PcapNg)
            }
            (4, m)
                if matches!(
                    u32::from_le_bytes(m),
                    0xa1b2_c3d4
                        | 0xd4c3_b2a1
                        | 0xa1b2_3c4d
                        | 0x4d3c_b2a1
                        | 0xa1b2_cd34
                        | 0x34cd_b2a1
                ) =>
            {
                let nanos = matches!(u32::from_le_bytes(m), 0xa1b2_3c4d | 0x4d3c_b2a1);
                let r = LegacyPcapReader::new(INITIAL_BUFFER, counting)
                    .map_err(|e| bad_header(e, &bytes))?;
                (Inner::Pcap(r), CaptureFormat::Pcap { nanos })
            }
            _ => {
                return Err(CaptureError::NotACapture {
                    magic: magic[..got].to_vec(),
                })
            }
        };
        Ok(CaptureReader {
            inner,
            format,
            state: State::default(),
            frame_buf: Vec::with_capacity(2048),
            raw_buf: Vec::with_capacity(2048),
            bytes,
            io_error,
            capacity: INITIAL_BUFFER,
            finished: false,
        })
    }

    pub fn format(&self) -> CaptureFormat {
        self.format
    }

    pub fn stats(&self) -> &ReaderStats {
        &self.state.stats
    }

    /// Bytes read from the input so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// The next replayable record, `Ok(None)` at the end of the capture.
    /// Records left out are counted in [`Self::stats`] and passed over.
    pub fn next_record(&mut self) -> Result<Option<Record<'_>>, CaptureError> {
        loop {
            match self.next_step()? {
                None => return Ok(None),
                Some(Step::Packet(meta)) => return Ok(Some(self.record(meta))),
                Some(Step::Skipped { .. }) => continue,
            }
        }
    }

    /// The next packet record, replayable or left out (counted in
    /// [`Self::stats`] either way), `Ok(None)` at the end of the capture:
    /// for a caller that writes every record back, as the annotated
    /// capture does.
    pub fn next_entry(&mut self) -> Result<Option<Entry<'_>>, CaptureError> {
        Ok(match self.next_step()? {
            None => None,
            Some(Step::Packet(meta)) => Some(Entry::Record(self.record(meta))),
            Some(Step::Skipped { meta, reason }) => Some(Entry::Skipped(SkippedRecord {
                number: self.state.stats.records,
                ts_ns: meta.ts_ns,
                raw: &self.raw_buf,
                orig_len: meta.orig_len,
                capture_if: meta.capture_if,
                reason,
            })),
        })
    }

    fn record(&mut self, meta: Meta) -> Record<'_> {
        let stats = &mut self.state.stats;
        stats.returned += 1;
        Record {
            number: stats.records,
            ts_ns: meta.ts_ns,
            frame: &self.frame_buf,
            wire_len: meta.wire_len,
            raw: &self.raw_buf,
            orig_len: meta.orig_len,
            capture_if: meta.capture_if,
            direction_hint: meta.hint,
        }
    }

    /// Read blocks up to the next packet record.
    fn next_step(&mut self) -> Result<Option<Step>, CaptureError> {
        if self.finished {
            return Ok(None);
        }
        let mut stalled = 0u32;
        loop {
            let record_no = self.state.stats.records + 1;
            let offset = self.inner.reader().consumed() as u64;
            let bytes_read = self.bytes.load(Ordering::Relaxed);
            let reader = self.inner.reader();
            let step = match reader.next() {
                Ok((len, block)) => {
                    let step = handle_block(
                        block,
                        &mut self.state,
                        &mut self.frame_buf,
                        &mut self.raw_buf,
                        record_no,
                        offset,
                        bytes_read,
                    );
                    reader.consume(len);
                    step?
                }
                Err(PcapError::Eof) => {
                    self.finished = true;
                    return Ok(None);
                }
                Err(PcapError::Incomplete(_)) => {
                    if self.skip_empty_block() {
                        continue;
                    }
                    self.stop_if_inconsistent(record_no, offset)?;
                    let reader = self.inner.reader();
                    let before = reader.data().len();
                    if let Err(e) = reader.refill() {
                        let e = e.to_owned_vec();
                        self.finished = true;
                        return Err(self.read_error(record_no, e));
                    }
                    let reader = self.inner.reader();
                    if reader.data().len() == before && !reader.reader_exhausted() {
                        // Buffer full yet the block is still incomplete.
                        stalled += 1;
                        if stalled > 1 && !self.grow() {
                            self.finished = true;
                            return Err(CaptureError::RecordTooLarge {
                                record: record_no,
                                offset,
                                max: MAX_BLOCK,
                            });
                        }
                    }
                    continue;
                }
                Err(PcapError::BufferTooSmall) => {
                    if self.skip_empty_block() {
                        continue;
                    }
                    // A block held whole whose contents ask for more (an
                    // EPB's captured length past its end) is damaged.
                    self.stop_if_inconsistent(record_no, offset)?;
                    // A block longer than the buffer: first learn whether the
                    // input even holds that much (a damaged length at the end
                    // of a file is a truncation, not a reason to grow).
                    let reader = self.inner.reader();
                    let before = reader.data().len();
                    if let Err(e) = reader.refill() {
                        let e = e.to_owned_vec();
                        self.finished = true;
                        return Err(self.read_error(record_no, e));
                    }
                    let reader = self.inner.reader();
                    if reader.reader_exhausted() || reader.data().len() != before {
                        continue;
                    }
                    if self.grow() {
                        continue;
                    }
                    self.finished = true;
                    return Err(CaptureError::RecordTooLarge {
                        record: record_no,
                        offset,
                        max: MAX_BLOCK,
                    });
                }
                Err(PcapError::UnexpectedEof) => {
                    if self.skip_empty_block() {
                        continue;
                    }
                    self.stop_if_inconsistent(record_no, offset)?;
                    self.finished = true;
                    let reader = self.inner.reader();
                    let claimed = claimed_len(&self.state, self.format, reader.data());
                    // A pcap record longer than the file's snap length
                    // cannot have been written so: its header is damaged.
                    let snaplen = self.state.pcap_snaplen;
                    let over_snaplen = matches!(self.format, CaptureFormat::Pcap { .. })
                        && snaplen > 0
                        && claimed.is_some_and(|n| n > snaplen && n as usize <= MAX_BLOCK);
                    if let (true, Some(claimed)) = (over_snaplen, claimed) {
                        return Err(CaptureError::DamagedLength {
                            record: record_no,
                            offset,
                            claimed,
                            snaplen,
                        });
                    }
                    if let Some(n) = claimed.filter(|n| *n as usize > MAX_BLOCK) {
                        // Not a cut file: a length no capture writes.
                        return Err(CaptureError::Corrupt {
                            record: record_no,
                            offset,
                            bytes_read: self.bytes.load(Ordering::Relaxed),
                            detail: format!(
                                "record claims {n} bytes, past the end of the file and over \
                                 the {} MiB that softosa reads in one record: a damaged length, \
                                 not a capture cut short",
                                MAX_BLOCK >> 20
                            ),
                        });
                    }
                    return Err(CaptureError::Truncated {
                        record: record_no,
                        offset,
                        bytes_read: self.bytes.load(Ordering::Relaxed),
                    });
                }
                Err(e) => {
                    let e = e.to_owned_vec();
                    self.finished = true;
                    return Err(self.read_error(record_no, e));
                }
            };
            if step.is_some() {
                return Ok(step);
            }
        }
    }

    fn grow(&mut self) -> bool {
        if self.capacity >= MAX_BLOCK {
            return false;
        }
        let new = (self.capacity * 2).min(MAX_BLOCK);
        if self.inner.reader().grow(new) {
            self.capacity = new;
            true
        } else {
            false
        }
    }

    /// Pass over an empty block the parser cannot read ([`ng_empty_block`]);
    /// true if there was one.
    fn skip_empty_block(&mut self) -> bool {
        let big = self.state.big_endian;
        let Inner::Ng(r) = &mut self.inner else {
            return false;
        };
        if !ng_empty_block(r.data(), big) {
            return false;
        }
        r.consume(12);
        true
    }

    /// End the reading with [`Self::inconsistent_block`]'s error, if the
    /// block is one.
    fn stop_if_inconsistent(&mut self, record: u64, offset: u64) -> Result<(), CaptureError> {
        match self.inconsistent_block(record, offset) {
            Some(e) => {
                self.finished = true;
                Err(e)
            }
            None => Ok(()),
        }
    }

    /// A pcapng block the buffer holds whole, yet the parser wants more
    /// bytes for: corrupt, with what is wrong, rather than a cut file (or
    /// a buffer grown to the limit waiting for bytes no block needs).
    fn inconsistent_block(&self, record: u64, offset: u64) -> Option<CaptureError> {
        let Inner::Ng(r) = &self.inner else {
            return None;
        };
        let (data, big) = (r.data(), self.state.big_endian);
        if !ng_block_complete(data, big) {
            return None;
        }
        Some(CaptureError::Corrupt {
            record,
            offset,
            bytes_read: self.bytes.load(Ordering::Relaxed),
            detail: ng_block_problem(data, big)
                .unwrap_or_else(|| "the block's contents do not fit its length".into()),
        })
    }

    fn read_error(&self, record: u64, e: PcapError<&'static [u8]>) -> CaptureError {
        let offset = match &self.inner {
            Inner::Pcap(r) => r.consumed(),
            Inner::Ng(r) => r.consumed(),
        } as u64;
        let bytes_read = self.bytes.load(Ordering::Relaxed);
        if matches!(e, PcapError::ReadError) {
            let source = self
                .io_error
                .lock()
                .ok()
                .and_then(|mut slot| slot.take())
                .unwrap_or_else(|| std::io::Error::other("read failed"));
            return CaptureError::Io {
                record,
                bytes_read,
                source,
            };
        }
        // A pcapng block the parser refused: say which length is wrong.
        let detail = match (&self.inner, &e) {
            (Inner::Ng(r), PcapError::NomError(..) | PcapError::OwnedNomError(..)) => {
                ng_block_problem(r.data(), self.state.big_endian)
            }
            _ => None,
        };
        CaptureError::Corrupt {
            record,
            offset,
            bytes_read,
            detail: detail.unwrap_or_else(|| describe(&e)),
        }
    }
}

/// Timestamp units per second for a pcapng `if_tsresol`: 10^n, or 2^n when
/// the high bit is set. (pcap-parser 0.17's own `ts_resolution` refuses
/// every binary resolution: it compares the byte, high bit and all, with 63.)
fn ts_units(tsresol: u8) -> Option<u64> {
    let n = u32::from(tsresol & 0x7f);
    if tsresol & 0x80 == 0 {
        10u64.checked_pow(n)
    } else {
        1u64.checked_shl(n)
    }
}

/// The clock of a pcapng Interface Description Block: its `if_tsresol`
/// (6, microseconds, when absent) and `if_tsoffset` (seconds, 0 when
/// absent), read here from its options in the section's byte order.
/// pcap-parser's own fields would do for a well-formed block, but it
/// passes over an option that runs past the block (and every option
/// after it), takes a resolution option of the wrong length as absent,
/// and reads the offset little-endian in a big-endian section. Each of
/// those would put every packet of the interface at a wrong time, so
/// each is refused in words.
fn idb_clock(idb: &InterfaceDescriptionBlock, big_endian: bool) -> Result<(u8, i64), String> {
    // The block: type, length, link type, reserved, snap length (16
    // bytes), the options, and the length again (4).
    let area = (idb.block_len1 as usize).saturating_sub(20);
    let read: usize = idb
        .options
        .iter()
        .map(|o| 4 + usize::from(o.len).div_ceil(4) * 4)
        .sum();
    let ended = idb.options.iter().any(|o| o.code == OptionCode::EndOfOpt);
    if read < area && !ended {
        return Err(format!(
            "an option runs past the end of its description block \
             ({} of its {area} bytes of options could not be read)",
            area - read
        ));
    }
    let first = |code: OptionCode| idb.options.iter().find(|o| o.code == code);
    let tsresol = match first(OptionCode::IfTsresol) {
        None => 6,
        Some(o) if o.len == 1 => o.value()[0],
        Some(o) => {
            return Err(format!(
                "its if_tsresol option is {} bytes long (one byte expected)",
                o.len
            ))
        }
    };
    let offset_s = match first(OptionCode::IfTsoffset) {
        None => 0,
        Some(o) => {
            let bytes = o
                .value()
                .get(..8)
                .filter(|_| o.len == 8)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .ok_or_else(|| {
                    format!(
                        "its if_tsoffset option is {} bytes long (eight bytes expected)",
                        o.len
                    )
                })?;
            if big_endian {
                i64::from_be_bytes(bytes)
            } else {
                i64::from_le_bytes(bytes)
            }
        }
    };
    Ok((tsresol, offset_s))
}

/// A 64-bit option value in the section's byte order; `None` when the
/// option is not eight bytes long (such a counter is not believed).
fn option_u64(o: &PcapNGOption<'_>, big_endian: bool) -> Option<u64> {
    let bytes = <[u8; 8]>::try_from(o.value().get(..8).filter(|_| o.len == 8)?).ok()?;
    Some(if big_endian {
        u64::from_be_bytes(bytes)
    } else {
        u64::from_le_bytes(bytes)
    })
}

/// An `if_tsresol` unit in words: "10^-6 s", "2^-10 s".
fn ts_unit_name(tsresol: u8) -> String {
    let base = if tsresol & 0x80 == 0 { 10 } else { 2 };
    format!("{base}^-{} s", tsresol & 0x7f)
}

/// The pcapng block at the start of `data` is all there: the length it
/// states is held. If the parser still asks for more, the block's contents
/// contradict its length (the file is damaged there, not cut).
/// A pcapng block of 12 bytes, its lengths agreeing, of a type whose
/// body may be empty (a local or unknown one): legal, and nothing to read,
/// but the parser asks for more bytes. The reader passes over it.
fn ng_empty_block(data: &[u8], big_endian: bool) -> bool {
    // Types whose fixed fields need a body: section header, interface
    // description, packet, simple packet, name resolution, statistics,
    // enhanced packet, systemd journal, decryption secrets, custom.
    const WITH_BODY: [u32; 12] = [
        0x0A0D_0D0A,
        1,
        2,
        3,
        4,
        5,
        6,
        9,
        0xA,
        0xBAD,
        0x4000_0BAD,
        0x0000_0BAD,
    ];
    u32_at(data, 0, big_endian).is_some_and(|k| !WITH_BODY.contains(&k))
        && u32_at(data, 4, big_endian) == Some(12)
        && u32_at(data, 8, big_endian) == Some(12)
}

fn ng_block_complete(data: &[u8], big_endian: bool) -> bool {
    u32_at(data, 4, big_endian).is_some_and(|len| len >= 12 && data.len() >= len as usize)
}

fn u32_at(data: &[u8], at: usize, big_endian: bool) -> Option<u32> {
    let b: [u8; 4] = data.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(if big_endian {
        u32::from_be_bytes(b)
    } else {
        u32::from_le_bytes(b)
    })
}

/// What is wrong with the pcapng block at the start of `data`, which the
/// parser refused: its lengths, against each other and against the least
/// its type needs. `None` when no length can be read, or none is wrong.
fn ng_block_problem(data: &[u8], big_endian: bool) -> Option<String> {
    let kind = u32_at(data, 0, big_endian)?;
    let len = u32_at(data, 4, big_endian)?;
    let (what, min): (std::borrow::Cow<str>, u32) = match kind {
        0x0A0D_0D0A => ("section header block".into(), 28),
        1 => ("interface description block".into(), 20),
        3 => ("simple packet block".into(), 16),
        5 => ("interface statistics block".into(), 24),
        6 => ("enhanced packet block".into(), 32),
        other => (
            std::borrow::Cow::Owned(format!("block of type {other:#x}")),
            12,
        ),
    };
    if len < min || len % 4 != 0 {
        return Some(format!(
            "the {what} says it is {len} bytes long (it takes at least {min}, in whole 4-byte words)"
        ));
    }
    if data.len() < len as usize {
        return None;
    }
    let closing = u32_at(data, len as usize - 4, big_endian)?;
    if closing != len {
        return Some(format!(
            "the {what}'s closing length ({closing}) differs from its opening length ({len})"
        ));
    }
    if kind == 6 {
        let caplen = u32_at(data, 20, big_endian)?;
        if caplen > len - 32 {
            return Some(format!(
                "the {what} is inconsistent: its captured length {caplen} is larger than \
                 the block ({} bytes of packet data)",
                len - 32
            ));
        }
    }
    // The lengths agree: the parser refused something else.
    None
}

/// The length the next record claims (pcap caplen, pcapng block length).
fn claimed_len(st: &State, format: CaptureFormat, data: &[u8]) -> Option<u32> {
    let at = match format {
        CaptureFormat::Pcap { .. } => 8,
        CaptureFormat::PcapNg => 4,
    };
    u32_at(data, at, st.big_endian)
}

fn describe<I>(e: &PcapError<I>) -> String {
    match e {
        // The parser's error kinds (Verify, Tag, ...) mean nothing to a
        // user; what they checked is a length or a type field.
        PcapError::NomError(..) | PcapError::OwnedNomError(..) => {
            "malformed block: a length or type field does not fit the format".into()
        }
        PcapError::HeaderNotRecognized => "header not recognised".into(),
        PcapError::UnexpectedEof | PcapError::Incomplete(_) => "ends too early".into(),
        PcapError::BufferTooSmall => "block too large".into(),
        PcapError::ReadError => "read error".into(),
        PcapError::Eof => "empty".into(),
    }
}

struct Meta {
    ts_ns: i64,
    wire_len: u32,
    orig_len: u32,
    capture_if: CaptureIf,
    hint: Option<DirectionHint>,
}

/// What one packet block gave: a frame to replay, or a record left out
/// (its bytes in `raw_buf` either way).
enum Step {
    Packet(Meta),
    Skipped { meta: Meta, reason: SkipReason },
}

/// Process one block: header blocks update the state; a packet block is
/// copied out and normalised ([`Step::Packet`]) or skipped and counted
/// ([`Step::Skipped`]), its bytes in `raw_buf` either way.
fn handle_block(
    block: PcapBlockOwned<'_>,
    st: &mut State,
    frame_buf: &mut Vec<u8>,
    raw_buf: &mut Vec<u8>,
    record: u64,
    offset: u64,
    bytes_read: u64,
) -> Result<Option<Step>, CaptureError> {
    let corrupt = |detail: String| CaptureError::Corrupt {
        record,
        offset,
        bytes_read,
        detail,
    };
    let (ts_ns, data, orig_len, capture_if, stamp) = match block {
        PcapBlockOwned::LegacyHeader(h) => {
            st.pcap_link = h.network.0 & 0xffff; // upper bits: FCS flags
            st.pcap_snaplen = h.snaplen;
            st.pcap_nanos = h.is_nanosecond_precision();
            st.big_endian = h.is_bigendian();
            return Ok(None);
        }
        PcapBlockOwned::Legacy(b) => {
            let (second, unit) = if st.pcap_nanos {
                (1_000_000_000, 1)
            } else {
                (1_000_000, 1000)
            };
            // The fraction must be under a second: a record that says
            // otherwise is malformed, and its time cannot be trusted. It
            // is written back (annotated) at the previous record's time.
            if b.ts_usec >= second {
                let ts = if st.stats.records > 0 {
                    st.last_ts
                } else {
                    i64::from(b.ts_sec) * 1_000_000_000
                };
                let reason = SkipReason::StampFraction {
                    nanos: st.pcap_nanos,
                };
                (ts, b.data, b.origlen, st.pcap_if(), Err(reason))
            } else {
                let ts = i64::from(b.ts_sec) * 1_000_000_000 + i64::from(b.ts_usec) * unit;
                (ts, b.data, b.origlen, st.pcap_if(), Ok(()))
            }
        }
        PcapBlockOwned::NG(Block::SectionHeader(shb)) => {
            st.big_endian = shb.big_endian();
            st.interfaces.clear();
            // The last section's totals are in the sum already.
            st.capture_drops.clear();
            st.section = st.section.saturating_add(1);
            return Ok(None);
        }
        PcapBlockOwned::NG(Block::InterfaceStatistics(isb)) => {
            st.stats.other_blocks += 1;
            let drops: Vec<u64> = [OptionCode::IsbIfDrop, OptionCode::IsbOsDrop]
                .into_iter()
                .filter_map(|code| isb.options.iter().find(|o| o.code == code))
                .filter_map(|o| option_u64(o, st.big_endian))
                .collect();
            // Each block's counters run from the start of the capture, so
            // the latest one of an interface holds its total: the sum moves
            // by the difference. Only interfaces the section described
            // count, which also bounds the map by the sections' interfaces.
            let known = usize::try_from(isb.if_id).is_ok_and(|i| i < st.interfaces.len());
            if !drops.is_empty() && known {
                let total = drops.into_iter().fold(0u64, u64::saturating_add);
                let old = st
                    .capture_drops
                    .insert((st.section, isb.if_id), total)
                    .unwrap_or(0);
                st.stats.capture_dropped = st
                    .stats
                    .capture_dropped
                    .saturating_sub(old)
                    .saturating_add(total);
            }
            return Ok(None);
        }
        PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => {
            if st.interfaces.len() >= MAX_INTERFACES {
                return Err(corrupt(format!(
                    "more than {MAX_INTERFACES} interfaces in one section"
                )));
            }
            let number = st.interfaces.len();
            let (tsresol, offset_s) = idb_clock(&idb, st.big_endian)
                .map_err(|why| corrupt(format!("interface {number}: {why}")))?;
            let units = ts_units(tsresol).ok_or_else(|| {
                corrupt(format!(
                    "interface {number} has a timestamp resolution of {} (if_tsresol {tsresol:#04x}), \
                     finer than this reader can count (10^-19 or 2^-63 s at most)",
                    ts_unit_name(tsresol),
                ))
            })?;
            st.interfaces.push(IfInfo {
                link_type: i32::from(idb.linktype.0 as u16),
                snaplen: idb.snaplen,
                units,
                offset_s,
            });
            return Ok(None);
        }
        PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
            let Some(ifc) = st.interfaces.get(epb.if_id as usize).copied() else {
                let declared = match st.interfaces.len() {
                    0 => "no interface (no Interface Description Block before it)".to_string(),
                    1 => "one interface (number 0)".to_string(),
                    n => format!("{n} interfaces (numbers 0 to {})", n - 1),
                };
                return Err(corrupt(format!(
                    "packet names interface {} but the section declares {declared}",
                    epb.if_id
                )));
            };
            let raw_ts = (u128::from(epb.ts_high) << 32) | u128::from(epb.ts_low);
            let ns = raw_ts * 1_000_000_000 / u128::from(ifc.units);
            let ns =
                i128::try_from(ns).unwrap_or(i128::MAX) + i128::from(ifc.offset_s) * 1_000_000_000;
            let ts = i64::try_from(ns).map_err(|_| corrupt("timestamp out of range".into()))?;
            let caplen = (epb.caplen as usize).min(epb.data.len());
            (
                ts,
                &epb.data[..caplen],
                epb.origlen,
                ifc.capture_if(epb.if_id),
                Ok(()),
            )
        }
        PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
            let Some(ifc) = st.interfaces.first().copied() else {
                return Err(corrupt(
                    "simple packet block before any interface description".into(),
                ));
            };
            let caplen = (spb.origlen as usize).min(spb.data.len());
            (
                st.last_ts,
                &spb.data[..caplen],
                spb.origlen,
                ifc.capture_if(0),
                Ok(()),
            )
        }
        PcapBlockOwned::NG(_) => {
            st.stats.other_blocks += 1;
            return Ok(None);
        }
    };
    // A malformed stamp's time is already the record before's (or, for
    // the first record, its whole seconds), so the next one keeps it.
    st.last_ts = ts_ns;
    st.stats.records += 1;
    raw_buf.clear();
    raw_buf.extend_from_slice(data);
    let meta = |wire_len, hint| Meta {
        ts_ns,
        wire_len,
        orig_len,
        capture_if,
        hint,
    };
    match stamp.and_then(|()| normalise(capture_if.link_type, data, orig_len, frame_buf)) {
        Ok((wire_len, hint)) => Ok(Some(Step::Packet(meta(wire_len, hint)))),
        Err(reason) => {
            Skipped::count_in(&mut st.stats.skipped, reason.to_string(), st.stats.records);
            Ok(Some(Step::Skipped {
                meta: meta(0, None),
                reason,
            }))
        }
    }
}

fn be16(d: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*d.get(at)?, *d.get(at + 1)?]))
}

fn sll_hint(pkttype: u16) -> DirectionHint {
    match pkttype {
        0 => DirectionHint::ToHost,
        4 => DirectionHint::FromHost,
        _ => DirectionHint::Other,
    }
}

/// The Ethernet group address an IP multicast or broadcast packet would
/// have carried (synthesised headers must keep group frames recognisable).
fn group_mac(ethertype: u16, ip: &[u8]) -> Option<[u8; 6]> {
    match ethertype {
        0x0800 => {
            let d = ip.get(16..20)?;
            if d == [255, 255, 255, 255] {
                Some([0xff; 6])
            } else if d[0] & 0xf0 == 0xe0 {
                Some([0x01, 0x00, 0x5e, d[1] & 0x7f, d[2], d[3]])
            } else {
                None
            }
        }
        0x86dd => {
            let d = ip.get(24..40)?;
            (d[0] == 0xff).then(|| [0x33, 0x33, d[12], d[13], d[14], d[15]])
        }
        _ => None,
    }
}

/// Turn one captured record into an Ethernet II frame in `out`. Returns the
/// frame's wire length and the capture's own direction hint.
pub fn normalise(
    link_type: i32,
    data: &[u8],
    orig_len: u32,
    out: &mut Vec<u8>,
) -> Result<(u32, Option<DirectionHint>), SkipReason> {
    out.clear();
    let orig_len = orig_len.max(u32::try_from(data.len()).unwrap_or(u32::MAX));
    // Build a header: (link header bytes to strip, ethertype, src, hint).
    let (strip, ethertype, src, hint) = match link_type {
        linktype::ETHERNET => {
            if data.len() < 14 {
                return Err(SkipReason::ShortLinkHeader);
            }
            out.extend_from_slice(data);
            return Ok((orig_len, None));
        }
        linktype::LINUX_SLL => {
            // pkttype(2) arphrd(2) halen(2) addr(8) protocol(2)
            if data.len() < 16 {
                return Err(SkipReason::ShortLinkHeader);
            }
            let pkttype = be16(data, 0).unwrap_or(0);
            let halen = be16(data, 4).unwrap_or(0);
            let proto = be16(data, 14).unwrap_or(0);
            let src =
                (halen == 6).then(|| [data[6], data[7], data[8], data[9], data[10], data[11]]);
            (16usize, proto, src, Some(sll_hint(pkttype)))
        }
        linktype::LINUX_SLL2 => {
            // protocol(2) reserved(2) ifindex(4) arphrd(2) pkttype(1) halen(1) addr(8)
            if data.len() < 20 {
                return Err(SkipReason::ShortLinkHeader);
            }
            let proto = be16(data, 0).unwrap_or(0);
            let pkttype = u16::from(data[10]);
            let halen = data[11];
            let src =
                (halen == 6).then(|| [data[12], data[13], data[14], data[15], data[16], data[17]]);
            (20usize, proto, src, Some(sll_hint(pkttype)))
        }
        linktype::RAW
        | linktype::IPV4
        | linktype::IPV6
        | linktype::DLT_RAW_12
        | linktype::DLT_RAW_14 => {
            let Some(first) = data.first() else {
                return Err(SkipReason::ShortLinkHeader);
            };
            let et = match first >> 4 {
                4 => 0x0800,
                6 => 0x86dd,
                _ => return Err(SkipReason::NotIp),
            };
            (0usize, et, None, None)
        }
        linktype::NULL => {
            if data.len() < 4 {
                return Err(SkipReason::ShortLinkHeader);
            }
            // Address family in the writer's byte order.
            let fam_le = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
            let fam_be = u32::from_be_bytes([data[0], data[1], data[2], data[3]]);
            let fam = if fam_le < 0x100 { fam_le } else { fam_be };
            let et = match fam {
                2 => 0x0800,
                10 | 24 | 28 | 30 => 0x86dd,
                _ => return Err(SkipReason::NotIp),
            };
            (4usize, et, None, None)
        }
        other => return Err(SkipReason::UnsupportedLinkType(other)),
    };
    if ethertype < 0x0600 {
        return Err(SkipReason::NotEthernetII(ethertype));
    }
    let payload = data.get(strip..).unwrap_or(&[]);
    out.extend_from_slice(&group_mac(ethertype, payload).unwrap_or(SYNTH_DST_MAC));
    out.extend_from_slice(&src.unwrap_or(SYNTH_SRC_MAC));
    out.extend_from_slice(&ethertype.to_be_bytes());
    out.extend_from_slice(payload);
    let wire = orig_len.saturating_sub(strip as u32).saturating_add(14);
    Ok((wire, hint))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pcapng with a Simple Packet Block (no timestamp, interface 0) after
    /// an Enhanced one: it takes the previous stamp.
    #[test]
    fn simple_packet_blocks_are_read() {
        fn block(kind: u32, body: &[u8]) -> Vec<u8> {
            let len = (12 + body.len()) as u32;
            let mut v = kind.to_le_bytes().to_vec();
            v.extend_from_slice(&len.to_le_bytes());
            v.extend_from_slice(body);
            v.extend_from_slice(&len.to_le_bytes());
            v
        }
        let frame = [
            2u8, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00, 0x45, 0, 0, 20,
        ];
        let mut f = Vec::new();
        let mut shb = 0x1A2B_3C4Du32.to_le_bytes().to_vec();
        shb.extend_from_slice(&[1, 0, 0, 0]);
        shb.extend_from_slice(&(-1i64).to_le_bytes());
        f.extend(block(0x0A0D_0D0A, &shb));
        f.extend(block(1, &[1, 0, 0, 0, 0, 0, 0, 0])); // Ethernet, no options: µs
        let mut epb = vec![0u8; 4];
        epb.extend_from_slice(&0u32.to_le_bytes());
        epb.extend_from_slice(&1_500_000u32.to_le_bytes()); // 1.5 s in µs
        epb.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        epb.extend_from_slice(&(frame.len() as u32).to_le_bytes());
        epb.extend_from_slice(&frame);
        epb.extend_from_slice(&[0, 0]);
        f.extend(block(6, &epb));
        let mut spb = (frame.len() as u32).to_le_bytes().to_vec();
        spb.extend_from_slice(&frame);
        spb.extend_from_slice(&[0, 0]);
        f.extend(block(3, &spb));
        let mut r = CaptureReader::new(&f[..]).unwrap();
        let a = r.next_record().unwrap().unwrap();
        assert_eq!((a.number, a.ts_ns), (1, 1_500_000_000));
        let b = r.next_record().unwrap().unwrap();
        assert_eq!((b.number, b.ts_ns), (2, 1_500_000_000));
        assert_eq!(b.frame, &frame[..]);
        assert!(r.next_record().unwrap().is_none());
    }

    #[test]
    fn sll_gets_ethernet_header_with_source_mac_and_hint() {
        let mut d = vec![0, 4, 0, 1, 0, 6, 2, 0, 0x5e, 0, 0, 1, 0, 0, 0x08, 0x00];
        d.extend_from_slice(&[0x45, 0, 0, 20]);
        let mut out = Vec::new();
        let (wire, hint) = normalise(linktype::LINUX_SLL, &d, 100, &mut out).unwrap();
        assert_eq!(wire, 100 - 16 + 14);
        assert_eq!(hint, Some(DirectionHint::FromHost));
        assert_eq!(&out[6..12], &[2, 0, 0x5e, 0, 0, 1]);
        assert_eq!(&out[12..14], &[0x08, 0x00]);
        assert_eq!(&out[14..], &[0x45, 0, 0, 20]);
    }

    #[test]
    fn raw_ip_version_picks_ethertype() {
        let mut out = Vec::new();
        normalise(linktype::RAW, &[0x60, 0, 0, 0], 40, &mut out).unwrap();
        assert_eq!(&out[12..14], &[0x86, 0xdd]);
        assert_eq!(out.len(), 18);
        assert_eq!(
            normalise(linktype::RAW, &[0x10], 1, &mut out),
            Err(SkipReason::NotIp)
        );
        assert_eq!(
            normalise(linktype::RAW, &[], 0, &mut out),
            Err(SkipReason::ShortLinkHeader)
        );
    }

    #[test]
    fn synthesised_headers_keep_group_addresses() {
        let mut out = Vec::new();
        let mut v6 = vec![0x60u8; 40];
        v6[24] = 0xff;
        v6[36..40].copy_from_slice(&[0, 0, 0, 0x16]);
        normalise(linktype::RAW, &v6, 40, &mut out).unwrap();
        assert_eq!(&out[..6], &[0x33, 0x33, 0, 0, 0, 0x16]);
        let mut v4 = vec![0x45u8; 20];
        v4[16..20].copy_from_slice(&[224, 0, 0, 251]);
        normalise(linktype::RAW, &v4, 20, &mut out).unwrap();
        assert_eq!(&out[..6], &[0x01, 0x00, 0x5e, 0, 0, 251]);
        v4[16..20].copy_from_slice(&[192, 0, 2, 1]);
        normalise(linktype::RAW, &v4, 20, &mut out).unwrap();
        assert_eq!(&out[..6], &SYNTH_DST_MAC);
    }

    #[test]
    fn null_loopback_both_byte_orders() {
        let mut out = Vec::new();
        normalise(linktype::NULL, &[2, 0, 0, 0, 0x45], 5, &mut out).unwrap();
        assert_eq!(&out[12..14], &[0x08, 0x00]);
        normalise(linktype::NULL, &[0, 0, 0, 30, 0x60], 5, &mut out).unwrap();
        assert_eq!(&out[12..14], &[0x86, 0xdd]);
    }

    #[test]
    fn cooked_non_ethernet_protocol_is_skipped() {
        let d = [0u8, 0, 0, 1, 0, 6, 1, 2, 3, 4, 5, 6, 0, 0, 0x00, 0x04, 0xaa];
        let mut out = Vec::new();
        assert_eq!(
            normalise(linktype::LINUX_SLL, &d, 17, &mut out),
            Err(SkipReason::NotEthernetII(4))
        );
        assert_eq!(
            normalise(147, &d, 17, &mut out),
            Err(SkipReason::UnsupportedLinkType(147))
        );
    }
}
