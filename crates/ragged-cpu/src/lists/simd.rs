//! AVX2 folds of one list's 32-bit elements, for the per-list reductions of lists
//! without null elements (`reduce.rs`).
//!
//! A list is read in whole vectors of eight elements, then its last zero to seven
//! elements by one masked load (`vpmaskmovd`, which reads nothing under a clear lane
//! and cannot fault there): no loop over a remainder, whose length is unpredictable
//! from one list to the next. The compiler's own vectorization of a fold unrolls by
//! 32 elements and finishes with vector and scalar remainder loops, which lists of
//! tens of elements spend most of their time in.
//!
//! Every function is `#[target_feature(enable = "avx2")]` and `#[inline]`: it is
//! inlined into the AVX2 variant of the per-list loop (`reduce_task_avx2`), whose
//! caller checked the CPU.

use std::any::TypeId;
use std::arch::x86_64::{
    __m128, __m128i, __m256, __m256i, _mm256_add_epi64, _mm256_blendv_epi8, _mm256_blendv_ps,
    _mm256_castps256_ps128, _mm256_castsi256_ps, _mm256_castsi256_si128, _mm256_cvtepi32_epi64,
    _mm256_extractf128_ps, _mm256_extracti128_si256, _mm256_loadu_ps, _mm256_loadu_si256,
    _mm256_maskload_epi32, _mm256_maskload_ps, _mm256_max_epi32, _mm256_max_ps, _mm256_min_epi32,
    _mm256_min_ps, _mm256_set1_epi32, _mm256_set1_ps, _mm256_setzero_si256, _mm_add_epi64,
    _mm_cvtsi128_si32, _mm_cvtsi128_si64, _mm_cvtss_f32, _mm_max_epi32, _mm_max_ps, _mm_min_epi32,
    _mm_min_ps, _mm_movehl_ps, _mm_shuffle_epi32, _mm_shuffle_ps, _mm_unpackhi_epi64,
};

use ragged_core::host::{elements_in, prefetch, PREFETCH_DISTANCE};
use ragged_core::Native;

/// `values` as `&[U]` when `T` is `U`.
#[inline(always)]
pub(super) fn as_type<T: Native, U: Native>(values: &[T]) -> Option<&[U]> {
    (TypeId::of::<T>() == TypeId::of::<U>()).then(|| {
        // SAFETY: T is U (same TypeId), so the slice's memory is `len` values of U.
        unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<U>(), values.len()) }
    })
}

/// `value` as `T` when `U` is `T`.
#[inline(always)]
pub(super) fn from_type<U: Native, T: Native>(value: U) -> Option<T> {
    (TypeId::of::<T>() == TypeId::of::<U>()).then(|| {
        // SAFETY: T is U (same TypeId): the same type, read as itself.
        unsafe { std::mem::transmute_copy::<U, T>(&value) }
    })
}

/// Eight `i32` lanes with lanes `0..rest % 8` set (all ones) and the others clear.
#[inline]
#[target_feature(enable = "avx2")]
fn first_lanes(rest: usize) -> __m256i {
    static LANES: [i32; 16] = [-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0];
    // SAFETY: 8 - rest % 8 is in 1..=8, so the eight values read lie within LANES.
    unsafe { _mm256_loadu_si256(LANES.as_ptr().add(8 - rest % 8).cast()) }
}

/// Lists of at least this many elements have their lines requested
/// [`PREFETCH_DISTANCE`] bytes ahead of the vector in hand ([`for_each_vector`]).
const PREFETCHED: usize = 256;

/// `f` of the address of each whole vector of eight 32-bit elements of `list`, in
/// order.
///
/// In a list of at least [`PREFETCHED`] elements, each cache line's two vectors are
/// handed out after the line [`PREFETCH_DISTANCE`] bytes further on was requested (past
/// the list's end: the next lists', which the task reads next), as
/// `ragged_core::host::prefetched_pieces` reads a long slice. Without it the fold of
/// lists of 10 000 elements read about a tenth slower than a plain loop over
/// prefetched pieces.
#[inline]
#[target_feature(enable = "avx2")]
fn for_each_vector<T: Native>(list: &[T], mut f: impl FnMut(*const T)) {
    let p = list.as_ptr();
    let whole = list.len() / 8;
    let mut k = 0;
    if list.len() >= PREFETCHED {
        let ahead = elements_in::<T>(PREFETCH_DISTANCE);
        while k + 2 <= whole {
            prefetch(p.wrapping_add(8 * k + ahead), 1);
            f(p.wrapping_add(8 * k));
            f(p.wrapping_add(8 * k + 8));
            k += 2;
        }
    }
    while k < whole {
        f(p.wrapping_add(8 * k));
        k += 1;
    }
}

/// The sum of `list` in `i64`, exact for fewer than 2^31 elements (the caller's bound:
/// their sum stays below 2^62).
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn sum_i32(list: &[i32]) -> i64 {
    let p = list.as_ptr();
    let whole = list.len() / 8;
    let (mut lo, mut hi) = (_mm256_setzero_si256(), _mm256_setzero_si256());
    let mut add = |x: __m256i| {
        lo = _mm256_add_epi64(lo, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(x)));
        hi = _mm256_add_epi64(hi, _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(x)));
    };
    // SAFETY: `for_each_vector` hands out the addresses of whole vectors of the list.
    for_each_vector(list, |v| add(unsafe { _mm256_loadu_si256(v.cast()) }));
    // SAFETY: the mask sets the lanes 8·whole..len only, which lie within the list;
    // a masked load reads nothing under a clear lane.
    add(unsafe { _mm256_maskload_epi32(p.add(8 * whole), first_lanes(list.len() % 8)) });
    let s = _mm256_add_epi64(lo, hi);
    let h = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
    _mm_cvtsi128_si64(_mm_add_epi64(h, _mm_unpackhi_epi64(h, h)))
}

/// The least (`MAX` false) or greatest value of a non-empty `list`.
///
/// # Safety
/// The CPU must support AVX2; `list` must not be empty.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn extreme_i32<const MAX: bool>(list: &[i32]) -> i32 {
    let pick = |a: __m256i, b: __m256i| {
        if MAX {
            _mm256_max_epi32(a, b)
        } else {
            _mm256_min_epi32(a, b)
        }
    };
    let identity = _mm256_set1_epi32(if MAX { i32::MIN } else { i32::MAX });
    let p = list.as_ptr();
    let whole = list.len() / 8;
    let mut acc = identity;
    for_each_vector(list, |v| {
        // SAFETY: `for_each_vector` hands out the addresses of whole vectors of the list.
        acc = pick(acc, unsafe { _mm256_loadu_si256(v.cast()) })
    });
    let lanes = first_lanes(list.len() % 8);
    // SAFETY: as in `sum_i32`; the clear lanes then take the identity.
    let rest = unsafe { _mm256_maskload_epi32(p.add(8 * whole), lanes) };
    acc = pick(acc, _mm256_blendv_epi8(identity, rest, lanes));
    let pick4 = |a: __m128i, b: __m128i| {
        if MAX {
            _mm_max_epi32(a, b)
        } else {
            _mm_min_epi32(a, b)
        }
    };
    let h = pick4(
        _mm256_castsi256_si128(acc),
        _mm256_extracti128_si256::<1>(acc),
    );
    let h = pick4(h, _mm_shuffle_epi32::<0b01_00_11_10>(h));
    _mm_cvtsi128_si32(pick4(h, _mm_shuffle_epi32::<0b10_11_00_01>(h)))
}

/// The least (`MAX` false) or greatest value of the non-NaN elements of `list`, or
/// `None` when that is the identity (+inf for the least, -inf for the greatest): no
/// element but NaN, or an infinity is the answer — the caller decides those by the
/// scalar rule. Which of two equal values wins is unspecified (the sign of a zero: the
/// caller settles it).
///
/// `minps`/`maxps` give their second operand when either is NaN: with the running
/// extreme second, a NaN element leaves it as it was.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn extreme_f32<const MAX: bool>(list: &[f32]) -> Option<f32> {
    let pick = |x: __m256, acc: __m256| {
        if MAX {
            _mm256_max_ps(x, acc)
        } else {
            _mm256_min_ps(x, acc)
        }
    };
    let bound = if MAX {
        f32::NEG_INFINITY
    } else {
        f32::INFINITY
    };
    let identity = _mm256_set1_ps(bound);
    let p = list.as_ptr();
    let whole = list.len() / 8;
    let mut acc = identity;
    // SAFETY: `for_each_vector` hands out the addresses of whole vectors of the list.
    for_each_vector(list, |v| acc = pick(unsafe { _mm256_loadu_ps(v) }, acc));
    let lanes = first_lanes(list.len() % 8);
    // SAFETY: as in `sum_i32`; the clear lanes then take the identity.
    let rest = unsafe { _mm256_maskload_ps(p.add(8 * whole), lanes) };
    acc = pick(
        _mm256_blendv_ps(identity, rest, _mm256_castsi256_ps(lanes)),
        acc,
    );
    let pick4 = |a: __m128, b: __m128| {
        if MAX {
            _mm_max_ps(a, b)
        } else {
            _mm_min_ps(a, b)
        }
    };
    let h = pick4(_mm256_castps256_ps128(acc), _mm256_extractf128_ps::<1>(acc));
    let h = pick4(h, _mm_movehl_ps(h, h));
    let best = _mm_cvtss_f32(pick4(h, _mm_shuffle_ps::<0b01>(h, h)));
    (best != bound).then_some(best)
}
