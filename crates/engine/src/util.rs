//! Small helpers (layer: engine core): a fixed, seedless hasher so that hash
//! tables behave identically on every run and machine (determinism,
//! ARCHITECTURE.md pitfalls), and a bounded FIFO.

use core::hash::{BuildHasherDefault, Hasher};
use std::collections::{HashMap, HashSet};

/// A fast multiplicative hasher with a fixed seed (in the style of rustc's Fx).
#[derive(Default, Clone, Copy)]
pub struct FixedHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl Hasher for FixedHasher {
    fn finish(&self) -> u64 {
        // A multiplicative hash alone leaves the low bits (which pick the
        // bucket) depending only on the input's low bits; addresses vary in
        // their high bytes. The MurmurHash3 finalizer spreads every bit.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(u64::from(i));
    }
    fn write_u16(&mut self, i: u16) {
        self.write_u64(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(K);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

pub type FixedMap<K, V> = HashMap<K, V, BuildHasherDefault<FixedHasher>>;
pub type FixedSet<K> = HashSet<K, BuildHasherDefault<FixedHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use core::hash::BuildHasher;

    #[test]
    fn addresses_differing_in_high_bytes_spread_over_buckets() {
        let b = BuildHasherDefault::<FixedHasher>::default();
        let mut low_bits = FixedSet::default();
        for c in 0..1024u32 {
            let ip = std::net::Ipv4Addr::new(10, 1, (c >> 8) as u8, c as u8);
            low_bits.insert(b.hash_one(ip) & 0x3ff);
        }
        // A good hash fills most of 1024 buckets; the weak one filled a handful.
        assert!(low_bits.len() > 500, "{}", low_bits.len());
    }
}
