#![no_main]
//! Fuzz target: the streaming pcap/pcapng reader (softosa-replay, spec 08
//! §8.2) must return records or a typed error for any input, never panic,
//! and never allocate more than its block limit. The input is fed through a
//! reader that returns it in small pieces so the refill paths are exercised.
use libfuzzer_sys::fuzz_target;
use softosa_replay::capture::CaptureReader;

/// Hands out the input a few bytes at a time (the first byte picks the size).
struct Dribble<'a> {
    data: &'a [u8],
    step: usize,
}

impl std::io::Read for Dribble<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let step = usize::from(first % 64) + 1;
    let Ok(mut reader) = CaptureReader::new(Dribble { data: rest, step }) else {
        return;
    };
    let mut records = 0u64;
    while let Ok(Some(rec)) = reader.next_record() {
        records += 1;
        // Numbers count skipped records too, so they never lag behind.
        assert!(rec.number >= records);
        assert!(rec.frame.len() >= 14);
    }
    assert!(reader.stats().returned == records);
});
