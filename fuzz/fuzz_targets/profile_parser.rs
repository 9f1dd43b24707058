#![no_main]
//! Fuzz target profile_parser: every reader of softosa-profile (profile,
//! TRL member, policy, and the classifier that picks one) on arbitrary
//! bytes, plus validation and conversion of whatever parsed. None may panic.
use libfuzzer_sys::fuzz_target;
use softosa_profile::convert::{convert, ConvertOptions};
use softosa_profile::validate::validate_profile;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let (p, mut d) = softosa_profile::parse_profile("fuzz", &src);
    validate_profile(&p, &mut d);
    let (c, _) = convert(&p, &ConvertOptions::default());
    let _ = softosa_profile::print::print_profile(&c);
    let _ = softosa_profile::trle::parse_trl("fuzz", &src);
    let _ = softosa_profile::policy::parse_policy("fuzz", &src);
    let _ = softosa_profile::load::load_str("fuzz", &src);
});
