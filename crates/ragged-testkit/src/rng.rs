//! A tiny deterministic pseudo-random number generator (SplitMix64).
//!
//! The generators only need reproducible, well-mixed bits, not cryptographic quality,
//! so the testkit carries its own ten-line generator instead of depending on `rand`:
//! the same seed gives the same columns on every machine and every toolchain.

/// SplitMix64 (Steele, Lea and Flood 2014): a 64-bit state advanced by a Weyl
/// sequence and finalized by a bit mixer.
///
/// # Example
/// ```
/// use ragged_testkit::rng::Rng;
/// let mut a = Rng::new(7);
/// let mut b = Rng::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!(a.below(10) < 10);
/// ```
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// A generator seeded from a label (FNV-1a of its bytes), so each named case has
    /// its own reproducible stream.
    pub fn from_label(label: &str) -> Self {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in label.bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        Self::new(hash)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0), by multiply-shift (Lemire), without
    /// the modulo bias that matters for small tests.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// An index in `0..n` (0 when `n` is 0).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// A number in `lo..=hi` (requires `lo <= hi`; returns `lo` otherwise).
    pub fn range_i64(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = hi.abs_diff(lo);
        if span == u64::MAX {
            return self.next_u64() as i64;
        }
        lo.wrapping_add(self.below(span + 1) as i64)
    }

    /// `true` with probability `percent / 100`.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < u64::from(percent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_stay_in_bounds() {
        let mut rng = Rng::new(1);
        for _ in 0..10_000 {
            assert!(rng.below(3) < 3);
            let v = rng.range_i64(-5, 5);
            assert!((-5..=5).contains(&v));
        }
        assert_eq!(rng.below(0), 0);
        assert_eq!(rng.range_i64(4, 4), 4);
        // The full i64 range does not overflow.
        let _ = rng.range_i64(i64::MIN, i64::MAX);
    }

    #[test]
    fn labels_give_distinct_reproducible_streams() {
        let a = Rng::from_label("utf8/mixed/rows=33").next_u64();
        let b = Rng::from_label("utf8/mixed/rows=33").next_u64();
        let c = Rng::from_label("utf8/mixed/rows=32").next_u64();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
