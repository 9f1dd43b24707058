//! Capture reader against the committed captures (made by real programs;
//! ground truth counted by tshark in tests/data/expected-*.txt), and
//! against truncated and corrupted copies of them.

mod common;

use softosa_engine::wire::parse_ethernet;
use softosa_replay::capture::{CaptureError, CaptureFormat, CaptureReader, Entry};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn expected(file: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(data_dir().join(file)).expect("ground truth file");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

type FlowCounts = BTreeMap<(String, u16, String, u16), u64>;

/// Read a whole capture: (records returned, TCP packets per directed flow, timestamps).
fn read_all(name: &str) -> (u64, FlowCounts, Vec<i64>) {
    let mut r = CaptureReader::open(&data_dir().join(name)).expect("open");
    let mut flows = FlowCounts::new();
    let mut n = 0;
    let mut ts = Vec::new();
    while let Some(rec) = r.next_record().expect("record") {
        n += 1;
        assert_eq!(rec.number, n, "{name}: record numbering");
        ts.push(rec.ts_ns);
        let info = parse_ethernet(rec.frame).expect("engine parses the normalised frame");
        if let Some(f) = info.flow() {
            if f.proto == 6 {
                *flows
                    .entry((f.src.to_string(), f.src_port, f.dst.to_string(), f.dst_port))
                    .or_default() += 1;
            }
        }
    }
    assert!(
        r.stats().skipped.is_empty(),
        "{name}: {:?}",
        r.stats().skipped
    );
    assert_eq!(r.stats().records, n);
    (n, flows, ts)
}

#[test]
fn every_capture_matches_tshark_counts() {
    let counts = expected("expected-counts.txt");
    assert!(counts.len() >= 8, "all captures listed");
    let flows_truth = expected("expected-flows.txt");
    for row in &counts {
        let (name, want) = (&row[0], row[1].parse::<u64>().unwrap());
        let (n, flows, _) = read_all(name);
        assert_eq!(n, want, "{name}: packets vs tshark");
        let mut truth = FlowCounts::new();
        for f in flows_truth.iter().filter(|f| &f[0] == name) {
            truth.insert(
                (
                    f[1].clone(),
                    f[2].parse().unwrap(),
                    f[3].clone(),
                    f[4].parse().unwrap(),
                ),
                f[5].parse().unwrap(),
            );
        }
        assert!(!truth.is_empty(), "{name}: ground truth has flows");
        assert_eq!(flows, truth, "{name}: TCP packets per flow and direction");
    }
}

#[test]
fn formats_and_timestamp_precision() {
    let fmt = |n: &str| CaptureReader::open(&data_dir().join(n)).unwrap().format();
    assert_eq!(fmt("iperf3-tcp.pcap"), CaptureFormat::Pcap { nanos: false });
    assert_eq!(fmt("rr-nano.pcapng"), CaptureFormat::PcapNg);
    // Nanosecond pcapng keeps sub-microsecond digits; the microsecond ones never do.
    let (_, _, ts) = read_all("rr-nano.pcapng");
    assert!(ts.iter().any(|t| t % 1000 != 0));
    for name in ["sll2-micro.pcapng", "iperf3-tcp.pcap", "sll.pcap"] {
        let (_, _, ts) = read_all(name);
        assert!(ts.iter().all(|t| t % 1000 == 0), "{name}");
    }
    // The pcapng made from sll2.pcap has the very same stamps (µs resolution decoded right).
    assert_eq!(read_all("sll2.pcap").2, read_all("sll2-micro.pcapng").2);
    // Plausible epoch (2020..2100) and non-decreasing within a single-interface capture.
    assert!(ts_ok(&read_all("ipv6-tcp.pcapng").2));
}

fn ts_ok(ts: &[i64]) -> bool {
    ts.windows(2).all(|w| w[0] <= w[1])
        && ts
            .iter()
            .all(|&t| t > 1_577_836_800_000_000_000 && t < 4_102_444_800_000_000_000)
}

#[test]
fn cooked_captures_get_direction_hints_and_wire_lengths() {
    for name in ["sll.pcap", "sll2.pcap"] {
        let mut r = CaptureReader::open(&data_dir().join(name)).unwrap();
        let (mut to_host, mut from_host) = (0, 0);
        while let Some(rec) = r.next_record().unwrap() {
            let info = parse_ethernet(rec.frame).unwrap();
            let ip = info.ip().expect("ip");
            let inbound = ip.dst.to_string() == "192.0.2.1";
            match rec.direction_hint {
                Some(softosa_replay::capture::DirectionHint::ToHost) => {
                    assert!(inbound);
                    to_host += 1;
                }
                Some(softosa_replay::capture::DirectionHint::FromHost) => {
                    assert!(!inbound);
                    from_host += 1;
                }
                Some(softosa_replay::capture::DirectionHint::Other) => {
                    assert!(softosa_engine::wire::is_group_ip(ip.dst), "{name}: {ip:?}");
                }
                None => panic!("{name}: cooked capture without a direction"),
            }
            // Ethernet wire length = IP total length + 14 (no padding below 60 here).
            assert_eq!(
                rec.wire_len,
                ip.total_len + 14,
                "{name} record {}",
                rec.number
            );
        }
        assert!(
            to_host > 50 && from_host > 50,
            "{name}: {to_host}/{from_host}"
        );
    }
}

fn file_bytes(name: &str) -> Vec<u8> {
    std::fs::read(data_dir().join(name)).unwrap()
}

fn read_bytes(bytes: &[u8]) -> Result<u64, CaptureError> {
    let mut r = CaptureReader::new(bytes)?;
    let mut n = 0;
    while r.next_record()?.is_some() {
        n += 1;
    }
    Ok(n)
}

#[test]
fn truncated_files_name_the_record_and_bytes() {
    for name in ["sockperf-rr.pcap", "rr-nano.pcapng"] {
        let full = file_bytes(name);
        let total = read_bytes(&full).unwrap();
        // Cut inside the last record: it is the one named.
        match read_bytes(&full[..full.len() - 5]) {
            Err(CaptureError::Truncated { record, .. }) => assert_eq!(record, total, "{name}"),
            other => panic!("{name}: expected Truncated, got {other:?}"),
        }
        // Cut in the middle of the file (this offset is inside a record in both files).
        let cut = full.len() / 2 + 10;
        match read_bytes(&full[..cut]) {
            Err(CaptureError::Truncated {
                record,
                offset,
                bytes_read,
            }) => {
                assert_eq!(bytes_read, cut as u64, "{name}");
                assert!(offset < bytes_read);
                assert!(record > 1 && record < total, "{name}: record {record}");
                let msg = CaptureError::Truncated {
                    record,
                    offset,
                    bytes_read,
                }
                .to_string();
                assert!(msg.contains(&format!("record {record}")), "{msg}");
                // Records before the cut were all delivered.
                let mut r = CaptureReader::new(&full[..cut]).unwrap();
                let mut ok = 0;
                while let Ok(Some(_)) = r.next_record() {
                    ok += 1;
                }
                assert_eq!(ok + 1, record);
            }
            other => panic!("{name}: expected Truncated, got {other:?}"),
        }
    }
}

#[test]
fn corrupt_and_foreign_files_are_typed_errors() {
    // Not a capture at all.
    assert!(matches!(
        read_bytes(b"GET / HTTP/1.1\r\n"),
        Err(CaptureError::NotACapture { .. })
    ));
    assert!(matches!(
        read_bytes(b""),
        Err(CaptureError::NotACapture { .. })
    ));
    // A gzipped capture is named as such, not by its magic bytes.
    let e = read_bytes(&[0x1f, 0x8b, 8, 8, 0, 0, 0, 0]).unwrap_err();
    assert!(matches!(e, CaptureError::NotACapture { .. }));
    let e = e.to_string();
    assert!(
        e.contains("gzip-compressed") && e.contains("gunzip") && !e.contains("1f"),
        "{e}"
    );
    // Header cut short.
    let full = file_bytes("sll.pcap");
    assert!(read_bytes(&full[..10]).is_err());
    // pcapng: damage the trailing length of the 3rd block (block lengths must match).
    let mut ng = file_bytes("rr-nano.pcapng");
    let mut off = 0usize;
    let mut starts = Vec::new();
    while off + 8 <= ng.len() && starts.len() < 6 {
        starts.push(off);
        let len = u32::from_le_bytes(ng[off + 4..off + 8].try_into().unwrap()) as usize;
        off += len;
    }
    // Blocks: SHB, IDB, EPB#1, EPB#2, ...: corrupt EPB#2 (record 2).
    let b = starts[3];
    let len = u32::from_le_bytes(ng[b + 4..b + 8].try_into().unwrap()) as usize;
    ng[b + len - 4] ^= 0x55;
    match read_bytes(&ng) {
        Err(CaptureError::Corrupt { record, offset, .. }) => {
            assert_eq!(record, 2);
            assert_eq!(offset, b as u64);
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    // pcapng: an EPB naming an undeclared interface.
    let mut ng = file_bytes("rr-nano.pcapng");
    let b = starts[2];
    ng[b + 8] = 7;
    match read_bytes(&ng) {
        Err(e @ CaptureError::Corrupt { record: 1, .. }) => {
            assert!(e.to_string().contains("interface 7"), "{e}");
        }
        other => panic!("expected Corrupt record 1, got {other:?}"),
    }
    // pcap: an absurd caplen is refused without allocating it.
    let mut p = file_bytes("sll.pcap");
    p[24 + 8..24 + 12].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    match read_bytes(&p) {
        Err(e @ CaptureError::Corrupt { record: 1, .. }) => {
            let e = e.to_string();
            assert!(e.contains("claims 2147483647 bytes"), "{e}");
            // ... and says why that is damage, not a cut
            assert!(e.contains("over the 16 MiB"), "{e}");
        }
        other => panic!("expected Corrupt record 1, got {other:?}"),
    }
}

#[test]
fn memory_stays_bounded_on_a_long_stream() {
    // 40 copies of a capture's records, streamed from a reader that never
    // holds the whole input: the reader's buffers stay at their initial size.
    struct Repeat {
        header: Vec<u8>,
        body: Vec<u8>,
        copies: usize,
        pos: usize,
    }
    impl std::io::Read for Repeat {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let total = self.header.len() + self.body.len() * self.copies;
            if self.pos >= total {
                return Ok(0);
            }
            let (src, at) = if self.pos < self.header.len() {
                (&self.header, self.pos)
            } else {
                (&self.body, (self.pos - self.header.len()) % self.body.len())
            };
            let n = (src.len() - at).min(buf.len());
            buf[..n].copy_from_slice(&src[at..at + n]);
            self.pos += n;
            Ok(n)
        }
    }
    let full = file_bytes("sockperf-rr.pcap");
    let one = read_bytes(&full).unwrap();
    let src = Repeat {
        header: full[..24].to_vec(),
        body: full[24..].to_vec(),
        copies: 40,
        pos: 0,
    };
    let mut r = CaptureReader::new(src).unwrap();
    let mut n = 0u64;
    while r.next_record().unwrap().is_some() {
        n += 1;
    }
    assert_eq!(n, one * 40);
    assert_eq!(r.bytes_read(), 24 + (full.len() as u64 - 24) * 40);
}

#[test]
fn mutated_captures_never_panic() {
    // A deterministic stand-in for the fuzz target (fuzz/fuzz_targets/
    // capture_reader.rs): byte flips, cuts and length overwrites over real
    // captures. Every outcome must be records or a typed error.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut errors = 0;
    for name in ["sll.pcap", "rr-nano.pcapng", "sll2-micro.pcapng"] {
        let base = file_bytes(name);
        let base = &base[..base.len().min(4096)];
        for _ in 0..150 {
            let mut b = base.to_vec();
            for _ in 0..(next() % 8 + 1) {
                let at = (next() as usize) % b.len();
                match next() % 3 {
                    0 => b[at] ^= 1 << (next() % 8),
                    1 => b[at] = 0xff,
                    _ => {
                        let v = (next() as u32).to_le_bytes();
                        let end = (at + 4).min(b.len());
                        b[at..end].copy_from_slice(&v[..end - at]);
                    }
                }
            }
            if next() % 4 == 0 {
                let keep = (next() as usize) % b.len();
                b.truncate(keep);
            }
            if read_bytes(&b).is_err() {
                errors += 1;
            }
        }
    }
    // The mutations do hit the error paths (not only harmless payload bytes).
    assert!(errors > 50, "{errors}");
}

/// Every record's stamp, or the error that stopped the read.
fn stamps(bytes: &[u8]) -> Result<Vec<i64>, CaptureError> {
    let mut r = CaptureReader::new(bytes)?;
    let mut ts = Vec::new();
    while let Some(rec) = r.next_record()? {
        ts.push(rec.ts_ns);
    }
    Ok(ts)
}

#[test]
fn pcapng_binary_timestamp_resolutions_are_read() {
    let f = common::tcp_in(false, 5, 10);
    // 2^-10 s: 1024 units a second.
    let ng = common::pcapng(
        Some(0x8a),
        &[
            common::ng_epb(1024, &f, f.len() as u32),
            common::ng_epb(1536, &f, f.len() as u32),
        ],
    );
    assert_eq!(stamps(&ng).unwrap(), [1_000_000_000, 1_500_000_000]);
    // 2^-30 s, and the decimal 10^-9 s for comparison.
    let ng = common::pcapng(Some(0x9e), &[common::ng_epb(3 << 30, &f, f.len() as u32)]);
    assert_eq!(stamps(&ng).unwrap(), [3_000_000_000]);
    let ng = common::pcapng(Some(9), &[common::ng_epb(7, &f, f.len() as u32)]);
    assert_eq!(stamps(&ng).unwrap(), [7]);
    // 2^-64 and 10^-20 do not fit: refused, in plain words.
    for bad in [0xc0u8, 20] {
        let ng = common::pcapng(Some(bad), &[common::ng_epb(1, &f, f.len() as u32)]);
        let e = stamps(&ng).expect_err("resolution refused").to_string();
        assert!(e.contains("timestamp resolution"), "{bad:#x}: {e}");
    }
}

#[test]
fn an_epb_claiming_more_than_its_block_is_corrupt_not_truncated() {
    let f = common::tcp_in(false, 5, 10);
    let good = common::ng_epb(1, &f, f.len() as u32);
    // Record 2 says 2000 bytes were captured, in a block holding 64; good
    // blocks follow, so the file is not cut.
    let bad = common::ng_epb(2, &f, 2000);
    let ng = common::pcapng(None, &[good.clone(), bad, good.clone(), good]);
    match read_bytes(&ng) {
        Err(e @ CaptureError::Corrupt { record: 2, .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("captured length 2000") && msg.contains("larger than the block"),
                "{msg}"
            );
            // Where the block is in the file, not how far the reader had
            // read ahead.
            assert!(msg.contains("record 2 (at byte 144 of the file)"), "{msg}");
            assert!(!msg.contains("bytes read"), "{msg}");
        }
        other => panic!("expected Corrupt at record 2, got {other:?}"),
    }
    // The same block last in the file: still corrupt, not a cut file.
    let ng = common::pcapng(None, &[common::ng_epb(2, &f, 2000)]);
    assert!(
        matches!(
            read_bytes(&ng),
            Err(CaptureError::Corrupt { record: 1, .. })
        ),
        "{:?}",
        read_bytes(&ng)
    );
}

#[test]
fn damaged_blocks_are_described_in_plain_words() {
    let f = common::tcp_in(false, 5, 10);
    let good = common::ng_epb(1, &f, f.len() as u32);
    // The closing length of record 2 differs from its opening length.
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 4] ^= 0x55;
    let ng = common::pcapng(None, &[good.clone(), bad, good.clone()]);
    let e = read_bytes(&ng).expect_err("damaged").to_string();
    assert!(
        e.contains("record 2") && e.contains("closing length"),
        "{e}"
    );
    assert!(!e.contains("Verify") && !e.contains("check failed"), "{e}");
    // The interface description's closing length (the file starts with a
    // 28-byte section header and a 20-byte interface description).
    let mut ng = common::pcapng(None, std::slice::from_ref(&good));
    ng[28 + 16] ^= 0x55;
    let e = read_bytes(&ng).expect_err("damaged interface").to_string();
    assert!(
        e.contains("interface description block's closing length"),
        "{e}"
    );
    assert!(!e.contains("Verify") && !e.contains("check failed"), "{e}");
    // A packet block shorter than its fixed fields.
    let mut short = good.clone();
    short[4..8].copy_from_slice(&28u32.to_le_bytes());
    let e = read_bytes(&common::pcapng(None, &[short])).expect_err("short block");
    let e = e.to_string();
    assert!(
        e.contains("record 1") && e.contains("enhanced packet block says it is 28 bytes long"),
        "{e}"
    );
    assert!(!e.contains("Verify") && !e.contains("check failed"), "{e}");
}

#[test]
fn a_pcap_stamp_fraction_of_a_second_or_more_is_skipped_and_counted() {
    let f = common::tcp_in(false, 5, 10);
    for (nanos, second) in [(false, 1_000_000u32), (true, 1_000_000_000)] {
        let p = common::pcap_stamped(
            nanos,
            &[
                ((100, 5), f.clone()),
                ((100, second), f.clone()),
                ((100, second - 1), f.clone()),
                ((100, u32::MAX), f.clone()),
            ],
        );
        let mut r = CaptureReader::new(&p[..]).unwrap();
        let mut got = Vec::new();
        while let Some(rec) = r.next_record().unwrap() {
            got.push((rec.number, rec.ts_ns));
        }
        let unit = if nanos { 1 } else { 1000 };
        assert_eq!(
            got,
            [
                (1, 100_000_000_000 + 5 * unit),
                (3, 100_000_000_000 + i64::from(second - 1) * unit)
            ],
            "nanos {nanos}"
        );
        let st = r.stats();
        assert_eq!((st.records, st.returned), (4, 2));
        let skipped: Vec<_> = st.skipped.iter().collect();
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert!(skipped[0].0.contains("timestamp"), "{skipped:?}");
        // Both counted; the first is record 2, as Wireshark numbers it.
        assert_eq!(
            (skipped[0].1.count, skipped[0].1.first_record),
            (2, 2),
            "{skipped:?}"
        );
    }
}

/// A record whose stamp is malformed (a fraction of a second or more) is
/// written back at the time of the record before it; when the capture
/// starts with such records, the first one's whole seconds are that time,
/// for the second one too (it used to fall back to 0, 1 January 1970).
#[test]
fn malformed_stamps_at_the_start_keep_the_first_records_seconds() {
    let f = common::tcp_in(false, 5, 10);
    let cap = common::pcap_stamped(
        false,
        &[
            ((100, 1_000_000), f.clone()),
            ((100, 2_000_000), f.clone()),
            ((101, 5), f),
        ],
    );
    let mut r = CaptureReader::new(&cap[..]).expect("a pcap header");
    let mut seen = Vec::new();
    while let Some(e) = r.next_entry().expect("readable") {
        seen.push(match e {
            Entry::Skipped(s) => (false, s.ts_ns),
            Entry::Record(rec) => (true, rec.ts_ns),
        });
    }
    assert_eq!(
        seen,
        [
            (false, 100_000_000_000),
            (false, 100_000_000_000),
            (true, 101_000_005_000)
        ]
    );
}

#[test]
fn a_packet_on_an_undeclared_interface_says_what_the_section_declares() {
    let frame = common::tcp_in(false, 5, 10);
    for (idbs, ifid, says) in [
        (
            0,
            0,
            "declares no interface (no Interface Description Block before it)",
        ),
        (1, 1, "declares one interface (number 0)"),
        (2, 5, "declares 2 interfaces (numbers 0 to 1)"),
    ] {
        let mut ng = common::ng_shb();
        for _ in 0..idbs {
            ng.extend(common::ng_block(1, &[1, 0, 0, 0, 0, 0, 0, 0]));
        }
        ng.extend(common::ng_epb_on(ifid, 0, &frame, frame.len() as u32));
        match read_bytes(&ng) {
            Err(CaptureError::Corrupt { detail, .. }) => assert!(
                detail.contains(&format!(
                    "packet names interface {ifid} but the section {says}"
                )),
                "{detail}"
            ),
            other => panic!("expected Corrupt, got {other:?}"),
        }
    }
}

#[test]
fn an_empty_block_of_a_local_type_is_passed_over() {
    // The smallest legal block (12 bytes, no body) of a local-use type was
    // refused as corrupt; one with a body was read.
    let frame = common::tcp_in(false, 5, 10);
    let empty = common::ng_block(0x8000_0001, &[]);
    assert_eq!(empty.len(), 12);
    let mut ng = common::ng_shb();
    ng.extend_from_slice(&empty);
    ng.extend(common::ng_block(1, &[1, 0, 0, 0, 0, 0, 0, 0]));
    ng.extend_from_slice(&empty);
    ng.extend(common::ng_epb(0, &frame, frame.len() as u32));
    ng.extend_from_slice(&empty);
    ng.extend(common::ng_epb(1, &frame, frame.len() as u32));
    ng.extend_from_slice(&empty);
    assert_eq!(read_bytes(&ng).expect("a valid file"), 2);
    // An enhanced packet block of 12 bytes is still damaged, not skipped.
    let mut bad = common::ng_shb();
    bad.extend(common::ng_block(1, &[1, 0, 0, 0, 0, 0, 0, 0]));
    bad.extend(common::ng_block(6, &[]));
    assert!(matches!(
        read_bytes(&bad),
        Err(CaptureError::Corrupt { .. })
    ));
}

/// A pcapng file of one section and one Ethernet interface whose
/// description block carries `options` (raw, little-endian), then one
/// packet stamped `ts` in the interface's units.
fn ng_with_idb_options(options: &[u8], ts: u64) -> Vec<u8> {
    let frame = common::tcp_in(false, 5, 10);
    let mut idb = vec![1, 0, 0, 0, 0, 0, 0, 0];
    idb.extend_from_slice(options);
    let mut ng = common::ng_shb();
    ng.extend(common::ng_block(1, &idb));
    ng.extend(common::ng_epb(ts, &frame, frame.len() as u32));
    ng
}

#[test]
fn interface_clock_options_that_cannot_be_read_are_refused() {
    // Each of these was read as "microseconds, no offset" before: the
    // packets' times would have been silently wrong.
    for (options, says) in [
        // if_tsresol claiming 60000 bytes in a block of 8.
        (
            vec![9, 0, 0x60, 0xea, 9, 0, 0, 0],
            "an option runs past the end of its description block",
        ),
        // if_tsresol with no value byte.
        (
            vec![9, 0, 0, 0, 0, 0, 0, 0],
            "its if_tsresol option is 0 bytes long (one byte expected)",
        ),
        // if_tsoffset of four bytes.
        (
            vec![14, 0, 4, 0, 1, 0, 0, 0],
            "its if_tsoffset option is 4 bytes long (eight bytes expected)",
        ),
    ] {
        match stamps(&ng_with_idb_options(&options, 5)) {
            Err(CaptureError::Corrupt { detail, .. }) => {
                assert!(detail.contains("interface 0: "), "{detail}");
                assert!(detail.contains(says), "{detail}");
            }
            other => panic!("{options:?}: expected Corrupt, got {other:?}"),
        }
    }
    // Well-formed options around them still read: nanoseconds, an offset
    // of 2 s, and an end-of-options marker followed by nothing.
    let mut good = vec![9, 0, 1, 0, 9, 0, 0, 0];
    good.extend_from_slice(&[14, 0, 8, 0]);
    good.extend_from_slice(&2i64.to_le_bytes());
    good.extend_from_slice(&[0, 0, 0, 0]);
    assert_eq!(
        stamps(&ng_with_idb_options(&good, 5)).unwrap(),
        [2_000_000_005]
    );
}

/// A big-endian pcapng block of type `kind` around `body` (a multiple of
/// four bytes).
fn ng_block_be(kind: u32, body: &[u8]) -> Vec<u8> {
    let len = (12 + body.len()) as u32;
    let mut b = kind.to_be_bytes().to_vec();
    b.extend_from_slice(&len.to_be_bytes());
    b.extend_from_slice(body);
    b.extend_from_slice(&len.to_be_bytes());
    b
}

#[test]
fn a_big_endian_sections_time_offset_is_read_big_endian() {
    let frame = common::tcp_in(false, 5, 10);
    let mut shb = 0x1A2B_3C4Du32.to_be_bytes().to_vec();
    shb.extend_from_slice(&[0, 1, 0, 0]);
    shb.extend_from_slice(&(-1i64).to_be_bytes());
    let mut idb = vec![0, 1, 0, 0, 0, 0, 0, 0]; // Ethernet
    idb.extend_from_slice(&[0, 14, 0, 8]); // if_tsoffset
    idb.extend_from_slice(&3i64.to_be_bytes());
    idb.extend_from_slice(&[0, 0, 0, 0]);
    let mut epb = 0u32.to_be_bytes().to_vec();
    epb.extend_from_slice(&0u32.to_be_bytes());
    epb.extend_from_slice(&7u32.to_be_bytes()); // 7 µs
    epb.extend_from_slice(&(frame.len() as u32).to_be_bytes());
    epb.extend_from_slice(&(frame.len() as u32).to_be_bytes());
    epb.extend_from_slice(&frame);
    epb.resize(epb.len().div_ceil(4) * 4, 0);
    let mut ng = ng_block_be(0x0A0D_0D0A, &shb);
    ng.extend(ng_block_be(1, &idb));
    ng.extend(ng_block_be(6, &epb));
    // Read little-endian, the offset would be 3 << 56 seconds: out of range.
    assert_eq!(stamps(&ng).unwrap(), [3_000_007_000]);
}
