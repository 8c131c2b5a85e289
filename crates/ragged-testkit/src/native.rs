//! [`TestNative`]: what the testkit needs to know about each element type.
//!
//! `ragged_core::Native` is sealed and says what a backend needs; the testkit adds
//! exact conversions (for the oracles), value generators (deterministic and proptest)
//! and a "garbage" value stored under null slots to catch kernels that read them.

use proptest::prelude::*;
use ragged_core::Native;

use crate::rng::Rng;

/// A [`Native`] element type with test support: i8…i64, u8…u64, f32, f64.
///
/// Integer values convert to `i128` exactly (every sum of up to 2^63 values fits), floats
/// to `f64` exactly (through `Native::to_f64`).
pub trait TestNative: Native {
    /// Whether sums of this type are compared exactly (integers) or within a rounding
    /// bound (floats).
    const EXACT: bool;
    /// Machine epsilon of the type (0 for integers).
    const EPSILON: f64;

    /// The value as an exact `i128`; `None` for floats.
    fn to_i128(self) -> Option<i128>;
    /// The value for an exact integer, `None` when it does not fit (or for floats).
    fn from_i128(value: i128) -> Option<Self>;

    /// A "typical" random value. Integers stay small enough that a sum of up to 2^21
    /// values never overflows the accumulator (`i64`/`u64` values below 2^40); floats are
    /// dyadic rationals small enough that every partial sum of up to 2^20 + 3 values is
    /// exactly representable, so a sum is the same in every order and can be compared
    /// exactly.
    fn random(rng: &mut Rng) -> Self;
    /// The value written under null slots: the type's maximum for integers (a backend
    /// that adds it gets a wrong sum or an overflow), NaN for floats.
    fn garbage() -> Self;
    /// A proptest strategy over "arbitrary" values: the full range for 8- to 32-bit
    /// integers, below 2^40 in magnitude for `i64` and `u64` (so that sums of a few
    /// hundred values never overflow; overflow has its own strategies), finite values
    /// for floats.
    fn arbitrary_value() -> BoxedStrategy<Self>;

    /// The type's minimum and maximum (finite ones for floats).
    fn extremes() -> (Self, Self);

    /// The float nearest `value` (NaN and infinities included), `None` for integers:
    /// how the NaN-placement cases write their values.
    fn from_f64(value: f64) -> Option<Self>;

    /// The value's bits, zero-extended: two values are the same *bit for bit* (`-0.0`
    /// is not `0.0`) when their bits are equal.
    fn bits(self) -> u64;

    /// A proptest strategy over the values that exercise the edges of minima, maxima,
    /// predicates and arg forms: for floats NaN, `±inf`, `±0.0` and a few small values
    /// (many ties); for integers the extremes, 0, 1 and a few small values.
    fn special_value() -> BoxedStrategy<Self>;
}

/// Whether `x` is NaN, without `Native` (`x != x` holds only for NaN).
#[allow(clippy::eq_op)]
pub fn is_nan<T: PartialEq + Copy>(x: T) -> bool {
    x != x
}

macro_rules! test_int {
    ($t:ty, $lo:expr, $hi:expr, $arb:expr) => {
        impl TestNative for $t {
            const EXACT: bool = true;
            const EPSILON: f64 = 0.0;
            fn to_i128(self) -> Option<i128> {
                Some(i128::from(self))
            }
            fn from_i128(value: i128) -> Option<Self> {
                <$t>::try_from(value).ok()
            }
            fn random(rng: &mut Rng) -> Self {
                // Both bounds fit i64 for every integer type (u64 is bounded to 2^40).
                rng.range_i64($lo as i64, $hi as i64) as $t
            }
            fn garbage() -> Self {
                <$t>::MAX
            }
            fn arbitrary_value() -> BoxedStrategy<Self> {
                $arb.boxed()
            }
            fn extremes() -> (Self, Self) {
                (<$t>::MIN, <$t>::MAX)
            }
            fn from_f64(_: f64) -> Option<Self> {
                None
            }
            fn bits(self) -> u64 {
                // Zero-extend through the unsigned type of the same width.
                u64::from_le_bytes({
                    let mut b = [0u8; 8];
                    let le = self.to_le_bytes();
                    b[..le.len()].copy_from_slice(&le);
                    b
                })
            }
            fn special_value() -> BoxedStrategy<Self> {
                prop_oneof![
                    Just(<$t>::MIN),
                    Just(<$t>::MAX),
                    Just(0 as $t),
                    Just(1 as $t),
                    (0u8..4).prop_map(|v| v as $t),
                ]
                .boxed()
            }
        }
    };
}

test_int!(i8, i8::MIN, i8::MAX, any::<i8>());
test_int!(i16, i16::MIN, i16::MAX, any::<i16>());
test_int!(i32, i32::MIN, i32::MAX, any::<i32>());
test_int!(i64, -(1i64 << 40), 1i64 << 40, -(1i64 << 40)..=(1i64 << 40));
test_int!(u8, 0, u8::MAX, any::<u8>());
test_int!(u16, 0, u16::MAX, any::<u16>());
test_int!(u32, 0, u32::MAX, any::<u32>());
test_int!(u64, 0, 1u64 << 40, any::<u64>().prop_map(|v| v >> 24));

impl TestNative for f32 {
    const EXACT: bool = false;
    const EPSILON: f64 = f32::EPSILON as f64;
    fn to_i128(self) -> Option<i128> {
        None
    }
    fn from_i128(_: i128) -> Option<Self> {
        None
    }
    fn random(rng: &mut Rng) -> Self {
        // k / 4 with |k| <= 12: |partial sum| <= 3 * (2^20 + 3) < 2^22 at a granularity
        // of 2^-2, i.e. fewer than 24 significant bits: exact in f32 in any order.
        rng.range_i64(-12, 12) as f32 / 4.0
    }
    fn garbage() -> Self {
        f32::NAN
    }
    fn extremes() -> (Self, Self) {
        (f32::MIN, f32::MAX)
    }
    fn from_f64(value: f64) -> Option<Self> {
        Some(value as f32)
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn special_value() -> BoxedStrategy<Self> {
        prop_oneof![
            Just(f32::NAN),
            Just(f32::INFINITY),
            Just(f32::NEG_INFINITY),
            Just(0.0),
            Just(-0.0),
            (-3i8..4).prop_map(|v| f32::from(v) / 2.0),
        ]
        .boxed()
    }
    fn arbitrary_value() -> BoxedStrategy<Self> {
        prop_oneof![-1.0e4f32..1.0e4f32, -1.0f32..1.0f32].boxed()
    }
}

impl TestNative for f64 {
    const EXACT: bool = false;
    const EPSILON: f64 = f64::EPSILON;
    fn to_i128(self) -> Option<i128> {
        None
    }
    fn from_i128(_: i128) -> Option<Self> {
        None
    }
    fn random(rng: &mut Rng) -> Self {
        // k / 1024 with |k| <= 2^20: |partial sum| <= 2^31 at a granularity of 2^-10,
        // 41 significant bits: exact in f64 in any order.
        rng.range_i64(-(1 << 20), 1 << 20) as f64 / 1024.0
    }
    fn garbage() -> Self {
        f64::NAN
    }
    fn extremes() -> (Self, Self) {
        (f64::MIN, f64::MAX)
    }
    fn from_f64(value: f64) -> Option<Self> {
        Some(value)
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn special_value() -> BoxedStrategy<Self> {
        prop_oneof![
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(0.0),
            Just(-0.0),
            (-3i8..4).prop_map(|v| f64::from(v) / 2.0),
        ]
        .boxed()
    }
    fn arbitrary_value() -> BoxedStrategy<Self> {
        prop_oneof![-1.0e9f64..1.0e9f64, -1.0f64..1.0f64].boxed()
    }
}
