#![no_main]
//! Fuzz target scenario_parser: the simulator's scenario reader (TOML,
//! field checks, inline profiles, `[models]` overlays, `[vary]`) on
//! arbitrary bytes, down to the variants it would run. Nothing is
//! simulated; reading must never panic, only refuse with an error.
use libfuzzer_sys::fuzz_target;
use softosa_sim::scenario::Scenario;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    if let Ok(s) = Scenario::parse("fuzz.toml", &src) {
        let _ = s.variants();
    }
});
