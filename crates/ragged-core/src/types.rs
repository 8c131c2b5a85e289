//! Element and offset types: what a column can hold, and how offsets are indexed.

use crate::column::{Column, ListColumn, PrimitiveColumn, StringColumn};
use crate::location::Location;
use crate::ops::{AnyStringColumn, OffsetWidth, StringArg};
use arrow_array::types as at;
use arrow_array::{ArrowPrimitiveType, OffsetSizeTrait};
use arrow_buffer::ArrowNativeType;

mod sealed {
    pub trait Sealed {}
}

/// A fixed-width element type of a [`crate::PrimitiveColumn`]: i8…i64, u8…u64, f32, f64.
///
/// Sealed: the set matches the kernels instantiated by the CUDA backend.
pub trait Native:
    ArrowNativeType + PartialOrd + Copy + Send + Sync + std::fmt::Debug + sealed::Sealed + 'static
{
    /// The arrow-rs primitive type with this native type.
    type Arrow: ArrowPrimitiveType<Native = Self>;
    /// The type sums accumulate in: i64 for signed integers, u64 for unsigned, the type
    /// itself for floats. A sum that does not fit is [`crate::Error::Overflow`].
    type Sum: Native;
    /// The short name used in kernel entry points and messages: `i32`, `f64`, …
    const NAME: &'static str;
    /// Whether this is a floating-point type.
    const IS_FLOAT: bool;
    /// The type partial sums are kept in so that no partial sum can overflow: `i128`
    /// for signed integers, `u128` for unsigned, the type itself for floats. Only the
    /// total is checked against [`Native::Sum`], so the result does not depend on the
    /// order of summation (which differs between backends).
    type Wide: Copy + Send + Sync + std::fmt::Debug + 'static;
    /// The additive identity of [`Native::Wide`].
    fn wide_zero() -> Self::Wide;
    /// `acc + value` in [`Native::Wide`].
    fn wide_add(acc: Self::Wide, value: Self) -> Self::Wide;
    /// `a + b` in [`Native::Wide`].
    fn wide_merge(a: Self::Wide, b: Self::Wide) -> Self::Wide;
    /// The total as [`Native::Sum`], or `None` when it does not fit.
    fn wide_total(wide: Self::Wide) -> Option<Self::Sum>;
    /// The sum of a slice of at most 2^32 values in [`Native::Wide`], with eight
    /// independent lanes so that the compiler vectorizes it (floats: the order of
    /// additions differs from a sequential loop, within rounding).
    fn sum_slice(values: &[Self]) -> Self::Wide;
    /// A running total to continue in [`Native::Sum`] with [`Native::sum_step`] over at
    /// most 2^16 more values without any chance of overflow: `Some` for floats and for
    /// integers of at most 32 bits whose total is below 2^62 in magnitude, `None`
    /// otherwise (64-bit integers must be checked value by value).
    fn fast_carry(wide: Self::Wide) -> Option<Self::Sum>;
    /// `acc + value` in [`Native::Sum`], unchecked (see [`Native::fast_carry`]).
    fn sum_step(acc: Self::Sum, value: Self) -> Self::Sum;
    /// `a + b` in [`Native::Sum`], unchecked (see [`Native::fast_carry`]).
    fn sum_merge(a: Self::Sum, b: Self::Sum) -> Self::Sum;
    /// The additive identity of the accumulator.
    fn sum_zero() -> Self::Sum;
    /// The value as `f64` (rounded for 64-bit integers beyond 2^53).
    fn to_f64(self) -> f64;
    /// The type's greatest value (`+inf` for floats): the identity of minimum.
    fn max_value() -> Self;
    /// The type's least value (`-inf` for floats): the identity of maximum.
    fn min_value() -> Self;
    /// Whether the value is NaN (always `false` for integers).
    fn is_nan_value(self) -> bool;
    /// The accumulator from a 16-byte little-endian wide total as device backends
    /// produce it (an `i128` for signed integers, a `u128` for unsigned, the float in
    /// the low bytes for floats), or `None` when it does not fit [`Native::Sum`].
    fn sum_from_wide(wide: [u8; 16]) -> Option<Self::Sum>;
    /// The column as a column of this type, `None` for any other variant.
    fn column_ref<L: Location>(col: &Column<L>) -> Option<&PrimitiveColumn<Self, L>>;
    /// The [`Column`] variant holding a column of this type.
    fn into_column<L: Location>(col: PrimitiveColumn<Self, L>) -> Column<L>;
}

macro_rules! native_int {
    ($t:ty, $arrow:ty, $sum:ty, $wide:ty, $lane:ty, $name:literal, $variant:ident) => {
        impl sealed::Sealed for $t {}
        impl Native for $t {
            type Arrow = $arrow;
            type Sum = $sum;
            const NAME: &'static str = $name;
            const IS_FLOAT: bool = false;
            type Wide = $wide;
            #[inline]
            fn wide_zero() -> $wide {
                0
            }
            #[inline]
            fn wide_add(acc: $wide, value: $t) -> $wide {
                acc.wrapping_add(<$wide>::from(value))
            }
            #[inline]
            fn wide_merge(a: $wide, b: $wide) -> $wide {
                a.wrapping_add(b)
            }
            #[inline]
            fn wide_total(wide: $wide) -> Option<$sum> {
                <$sum>::try_from(wide).ok()
            }
            #[inline]
            fn fast_carry(wide: $wide) -> Option<$sum> {
                let small = std::mem::size_of::<$t>() <= 4;
                let bound = 1 as $wide << 62;
                // -2^62 for signed wides, 0 for unsigned ones.
                let lower = (0 as $wide).wrapping_sub(bound).min(0);
                #[allow(unused_comparisons)] // unsigned wides are never negative
                let inside = wide >= lower && wide < bound;
                if small && inside {
                    <$sum>::try_from(wide).ok()
                } else {
                    None
                }
            }
            #[inline]
            fn sum_step(acc: $sum, value: $t) -> $sum {
                acc.wrapping_add(<$sum>::from(value))
            }
            #[inline]
            fn sum_merge(a: $sum, b: $sum) -> $sum {
                a.wrapping_add(b)
            }
            #[inline]
            fn sum_slice(values: &[$t]) -> $wide {
                // Lanes of at least 64 bits: 2^32 values of at most 32 bits cannot wrap.
                // Read in prefetched pieces (whole multiples of 8 values but the last).
                let mut lanes = [<$lane>::default(); 8];
                let mut total: $wide = 0;
                for piece in crate::host::prefetched_pieces(values) {
                    let mut chunks = piece.chunks_exact(8);
                    for c in &mut chunks {
                        for k in 0..8 {
                            lanes[k] = lanes[k].wrapping_add(<$lane>::from(c[k]));
                        }
                    }
                    for &v in chunks.remainder() {
                        total = total.wrapping_add(<$wide>::from(v));
                    }
                }
                for lane in lanes {
                    total = total.wrapping_add(<$wide>::from(lane));
                }
                total
            }
            #[inline]
            fn sum_zero() -> $sum {
                0
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn max_value() -> $t {
                <$t>::MAX
            }
            #[inline]
            fn min_value() -> $t {
                <$t>::MIN
            }
            #[inline]
            fn is_nan_value(self) -> bool {
                false
            }
            #[inline]
            fn column_ref<L: Location>(col: &Column<L>) -> Option<&PrimitiveColumn<Self, L>> {
                match col {
                    Column::$variant(c) => Some(c),
                    _ => None,
                }
            }
            fn into_column<L: Location>(col: PrimitiveColumn<Self, L>) -> Column<L> {
                Column::$variant(col)
            }
            fn sum_from_wide(wide: [u8; 16]) -> Option<$sum> {
                Self::wide_total(<$wide>::from_le_bytes(wide))
            }
        }
    };
}
native_int!(i8, at::Int8Type, i64, i128, i64, "i8", Int8);
native_int!(i16, at::Int16Type, i64, i128, i64, "i16", Int16);
native_int!(i32, at::Int32Type, i64, i128, i64, "i32", Int32);
native_int!(i64, at::Int64Type, i64, i128, i128, "i64", Int64);
native_int!(u8, at::UInt8Type, u64, u128, u64, "u8", UInt8);
native_int!(u16, at::UInt16Type, u64, u128, u64, "u16", UInt16);
native_int!(u32, at::UInt32Type, u64, u128, u64, "u32", UInt32);
native_int!(u64, at::UInt64Type, u64, u128, u128, "u64", UInt64);

macro_rules! native_float {
    ($t:ty, $arrow:ty, $name:literal, $variant:ident) => {
        impl sealed::Sealed for $t {}
        impl Native for $t {
            type Arrow = $arrow;
            type Sum = $t;
            const NAME: &'static str = $name;
            const IS_FLOAT: bool = true;
            type Wide = $t;
            #[inline]
            fn wide_zero() -> $t {
                0.0
            }
            #[inline]
            fn wide_add(acc: $t, value: $t) -> $t {
                acc + value
            }
            #[inline]
            fn wide_merge(a: $t, b: $t) -> $t {
                a + b
            }
            #[inline]
            fn wide_total(wide: $t) -> Option<$t> {
                Some(wide)
            }
            #[inline]
            fn fast_carry(wide: $t) -> Option<$t> {
                Some(wide)
            }
            #[inline]
            fn sum_step(acc: $t, value: $t) -> $t {
                acc + value
            }
            #[inline]
            fn sum_merge(a: $t, b: $t) -> $t {
                a + b
            }
            #[inline]
            fn sum_slice(values: &[$t]) -> $t {
                // Read in prefetched pieces (whole multiples of 8 values but the last).
                let mut lanes = [0.0 as $t; 8];
                let mut tail: $t = 0.0;
                for piece in crate::host::prefetched_pieces(values) {
                    let mut chunks = piece.chunks_exact(8);
                    for c in &mut chunks {
                        for k in 0..8 {
                            lanes[k] += c[k];
                        }
                    }
                    tail += chunks.remainder().iter().sum::<$t>();
                }
                ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
                    + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
                    + tail
            }
            #[inline]
            fn sum_zero() -> $t {
                0.0
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn max_value() -> $t {
                <$t>::INFINITY
            }
            #[inline]
            fn min_value() -> $t {
                <$t>::NEG_INFINITY
            }
            #[inline]
            fn is_nan_value(self) -> bool {
                self.is_nan()
            }
            #[inline]
            fn column_ref<L: Location>(col: &Column<L>) -> Option<&PrimitiveColumn<Self, L>> {
                match col {
                    Column::$variant(c) => Some(c),
                    _ => None,
                }
            }
            fn into_column<L: Location>(col: PrimitiveColumn<Self, L>) -> Column<L> {
                Column::$variant(col)
            }
            fn sum_from_wide(wide: [u8; 16]) -> Option<$t> {
                const N: usize = std::mem::size_of::<$t>();
                let mut bytes = [0u8; N];
                bytes.copy_from_slice(&wide[..N]);
                Some(<$t>::from_le_bytes(bytes))
            }
        }
    };
}
native_float!(f32, at::Float32Type, "f32", Float32);
native_float!(f64, at::Float64Type, "f64", Float64);

/// The integer type of an offsets buffer: `i32` (Arrow `Utf8`, `List`) or `i64`
/// (`LargeUtf8`, `LargeList`).
pub trait OffsetSize: OffsetSizeTrait + Native + Ord {
    /// `i32` or `i64`, as used in kernel entry points.
    const OFFSET_NAME: &'static str;
    /// The offset as an `i64` (lossless for both widths).
    fn as_i64(self) -> i64;
    /// The offset for `value`, or `None` when it does not fit.
    fn from_i64(value: i64) -> Option<Self>;
    /// Wrap a list column with these offsets into its [`Column`] variant (`List` for
    /// `i32`, `LargeList` for `i64`).
    fn into_list_column<L: Location>(col: ListColumn<Self, L>) -> Column<L>;
    /// A strings column with these offsets as a [`StringArg`] (`Utf8` for `i32`,
    /// `LargeUtf8` for `i64`).
    fn string_arg<L: Location>(col: &StringColumn<Self, L>) -> StringArg<'_, L>;
    /// The [`OffsetWidth`] that asks an op for these offsets.
    const WIDTH: OffsetWidth;
    /// Wrap a strings column with these offsets into its [`Column`] variant (`Utf8` for
    /// `i32`, `LargeUtf8` for `i64`).
    fn into_strings_column<L: Location>(col: StringColumn<Self, L>) -> Column<L>;
    /// The column inside `col` when it has these offsets.
    fn from_any_strings<L: Location>(col: AnyStringColumn<L>) -> Option<StringColumn<Self, L>>;
}

impl OffsetSize for i32 {
    const OFFSET_NAME: &'static str = "i32";
    #[inline]
    fn as_i64(self) -> i64 {
        i64::from(self)
    }
    #[inline]
    fn from_i64(value: i64) -> Option<Self> {
        i32::try_from(value).ok()
    }
    fn into_list_column<L: Location>(col: ListColumn<Self, L>) -> Column<L> {
        Column::List(col)
    }
    fn string_arg<L: Location>(col: &StringColumn<Self, L>) -> StringArg<'_, L> {
        StringArg::Utf8(col)
    }
    const WIDTH: OffsetWidth = OffsetWidth::I32;
    fn into_strings_column<L: Location>(col: StringColumn<Self, L>) -> Column<L> {
        Column::Utf8(col)
    }
    fn from_any_strings<L: Location>(col: AnyStringColumn<L>) -> Option<StringColumn<Self, L>> {
        match col {
            AnyStringColumn::Utf8(c) => Some(c),
            AnyStringColumn::LargeUtf8(_) => None,
        }
    }
}

impl OffsetSize for i64 {
    const OFFSET_NAME: &'static str = "i64";
    #[inline]
    fn as_i64(self) -> i64 {
        self
    }
    #[inline]
    fn from_i64(value: i64) -> Option<Self> {
        Some(value)
    }
    fn into_list_column<L: Location>(col: ListColumn<Self, L>) -> Column<L> {
        Column::LargeList(col)
    }
    fn string_arg<L: Location>(col: &StringColumn<Self, L>) -> StringArg<'_, L> {
        StringArg::LargeUtf8(col)
    }
    const WIDTH: OffsetWidth = OffsetWidth::I64;
    fn into_strings_column<L: Location>(col: StringColumn<Self, L>) -> Column<L> {
        Column::LargeUtf8(col)
    }
    fn from_any_strings<L: Location>(col: AnyStringColumn<L>) -> Option<StringColumn<Self, L>> {
        match col {
            AnyStringColumn::LargeUtf8(c) => Some(c),
            AnyStringColumn::Utf8(_) => None,
        }
    }
}
