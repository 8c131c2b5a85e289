//! The lists cases of `ragged bench`.
//!
//! Data (identical on every backend and reproducible outside ragged: see
//! `scripts/awkward-compare.py`, which builds the same arrays for Awkward Array):
//! - a child of `n` `i32` values `hash(1, i) >> 40` (uniform in `[0, 2^24)`), and the
//!   same values as `f32` divided by `2^24`;
//! - list lengths `hash(2 + a, j) % (2a + 1)` for an average of `a` = 4, 64 and 10 000
//!   elements, and a *skewed* distribution: `hash(3, j) % 8` elements, except one list
//!   in 64 with `hash(4, j) % 4096` and one in 4096 with `hash(5, j) % 1_000_000`
//!   (about 280 on average, the longest near a million); lists are appended until they
//!   cover the child, the last one cut at its end;
//! - a starts/stops view *with gaps*: the lists of average 64 without their first
//!   quarter (`starts[j] = offsets[j] + len / 4`, `stops[j] = offsets[j + 1]`);
//! - for `compact_offsets`: `n` lists (i64 starts and stops) of `hash(6, j) % 9`
//!   elements laid end to end, one element apart.
//!
//! `hash(seed, i)` is SplitMix64 of `i * 0x9E3779B97F4A7C15 + seed`. Bytes count the
//! inputs read (child, offsets or starts/stops) and the outputs written, once.
//!
//! The inputs are host vectors advised for transparent huge pages before they are
//! filled ([`filled`]), as NumPy allocates arrays of 4 MiB and more on Linux: Awkward
//! Array's inputs in `scripts/awkward-compare.py` are such arrays, and a plain sum of
//! 1 GiB read through 4 KiB pages instead took up to 1.7 times as long (PERFORMANCE
//! v0.36).

use ragged_core::ops::{OffsetWidth, OutOfRange};
use ragged_core::{Column, ListColumn, ListViewColumn, PrimitiveColumn};
use ragged_core::{Result, ScalarBuffer};

use super::{size_label, BenchBackend, Harness};

/// SplitMix64 of `i * golden + seed`: the counter-based generator of the lists data.
pub(crate) fn hash(seed: u64, i: u64) -> u64 {
    let mut z = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(seed);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The length of list `j` for a distribution (`Some(average)` or `None` for skewed).
fn list_len(average: Option<u64>, j: u64) -> u64 {
    match average {
        Some(a) => hash(2 + a, j) % (2 * a + 1),
        None if hash(7, j) % 4096 == 0 => hash(5, j) % 1_000_000,
        None if hash(7, j) % 64 == 0 => hash(4, j) % 4096,
        None => hash(3, j) % 8,
    }
}

/// `f(0), f(1), …, f(n - 1)` in a vector advised for transparent huge pages before it
/// is filled (see the module's notes).
fn filled<T>(n: usize, f: impl FnMut(usize) -> T) -> Vec<T> {
    let mut values = Vec::with_capacity(n);
    ragged_core::host::advise_huge_pages(values.spare_capacity_mut());
    values.extend((0..n).map(f));
    values
}

/// Offsets of lists covering `n` elements exactly.
fn offsets_for(n: usize, average: Option<u64>) -> Vec<i32> {
    let mut offsets = vec![0i32];
    let mut end = 0u64;
    let mut j = 0u64;
    while end < n as u64 {
        end = (end + list_len(average, j)).min(n as u64);
        // n ≤ 2^28 < i32::MAX.
        offsets.push(end as i32);
        j += 1;
    }
    filled(offsets.len(), |j| offsets[j])
}

/// The benchmark's child values.
fn child_i32(n: usize) -> Vec<i32> {
    filled(n, |i| (hash(1, i as u64) >> 40) as i32)
}

pub(super) fn lists_suite<B: BenchBackend>(h: &mut Harness<'_, B>, quick: bool) -> Result<()> {
    let b = h.backend;
    let n = if quick { 1 << 20 } else { 1 << 28 };
    let label = size_label(n);
    let n64 = n as u64;
    let ints = child_i32(n);
    let floats: Vec<f32> = filled(n, |i| ints[i] as f32 / (1 << 24) as f32);
    let ci = Column::Int32(PrimitiveColumn::from_vec(ints));
    let cf = Column::Float32(PrimitiveColumn::from_vec(floats));

    for (name, average) in [
        ("avg4", Some(4)),
        ("avg64", Some(64)),
        ("avg10000", Some(10_000)),
        ("skewed", None),
    ] {
        let offsets = ScalarBuffer::from(offsets_for(n, average));
        let m = offsets.len() as u64 - 1;
        let list_i = b.to_device_list(&ListColumn::try_new(offsets.clone(), ci.clone(), None)?)?;
        let list_f = b.to_device_list(&ListColumn::try_new(offsets.clone(), cf.clone(), None)?)?;
        let read = 4 * n64 + 4 * (m + 1);
        h.case(
            &format!("lists/sum/{name}/i32/{label}"),
            n64,
            read + 8 * m,
            || b.list_sum::<i32, i32>(&list_i).map(drop),
        )?;
        h.case(
            &format!("lists/min/{name}/i32/{label}"),
            n64,
            read + 4 * m,
            || b.list_min::<i32, i32>(&list_i).map(drop),
        )?;
        h.case(
            &format!("lists/max/{name}/f32/{label}"),
            n64,
            read + 4 * m,
            || b.list_max::<i32, f32>(&list_f).map(drop),
        )?;
        h.case(
            &format!("lists/mean/{name}/f32/{label}"),
            n64,
            read + 8 * m,
            || b.list_mean::<i32, f32>(&list_f).map(drop),
        )?;
        if name == "avg64" || name == "skewed" {
            h.case(
                &format!("lists/counts/{name}/{label}"),
                m,
                4 * (m + 1) + 4 * m,
                || b.counts(&list_i).map(drop),
            )?;
            h.case(
                &format!("lists/local_index/{name}/{label}"),
                n64,
                4 * (m + 1) + 4 * (m + 1) + 8 * n64,
                || b.local_index(&list_i).map(drop),
            )?;
            // Reads offsets pairs and at most one element per list.
            h.case(
                &format!("lists/get_last/{name}/i32/{label}"),
                m,
                4 * (m + 1) + 4 * m + 4 * m,
                || b.get(&list_i, -1, OutOfRange::Null).map(drop),
            )?;
            h.case(
                &format!("lists/slice/{name}/{label}"),
                m,
                4 * (m + 1) + 8 * m,
                || b.slice(&list_i, Some(1), Some(-1)).map(drop),
            )?;
        }
        if name == "avg64" {
            // Flatten with every 16th list null: the valid lists' elements are gathered.
            let validity: Vec<bool> = (0..m).map(|j| j % 16 != 0).collect();
            let host = ListColumn::try_new(
                offsets.clone(),
                ci.clone(),
                Some(ragged_core::NullBuffer::from(validity.clone())),
            )?;
            let kept: u64 = (0..m as usize)
                .filter(|&j| validity[j])
                .map(|j| (offsets[j + 1] - offsets[j]) as u64)
                .sum();
            let with_nulls = b.to_device_list(&host)?;
            h.case(
                &format!("lists/flatten/nulls/i32/{label}"),
                kept,
                4 * (m + 1) + m.div_ceil(8) + 8 * kept,
                || b.flatten(&with_nulls).map(drop),
            )?;
            drop(with_nulls);
            // A starts/stops view with gaps → compact lists.
            let starts: Vec<i32> = filled(m as usize, |j| {
                offsets[j] + (offsets[j + 1] - offsets[j]) / 4
            });
            let stops: Vec<i32> = filled(m as usize, |j| offsets[j + 1]);
            let total: u64 = starts.iter().zip(&stops).map(|(a, z)| (z - a) as u64).sum();
            let view = b.to_device_list_view(&ListViewColumn::try_new(
                ScalarBuffer::from(starts),
                ScalarBuffer::from(stops),
                ci.clone(),
                None,
            )?)?;
            h.case(
                &format!("lists/to_compact/gaps/i32/{label}"),
                total,
                8 * m + 4 * (m + 1) + 8 * total,
                || b.to_compact(&view).map(drop),
            )?;
        }
    }
    drop((ci, cf));

    // compact_offsets: n lists, i64 starts/stops → i64 offsets; list j has
    // `hash(6, j) % 9` elements and starts one past the previous list's stop.
    let len = |j: usize| (hash(6, j as u64) % 9) as i64;
    let mut end = 0i64;
    let stops: Vec<i64> = filled(n, |j| {
        end += 1 + len(j);
        end
    });
    let starts: Vec<i64> = filled(n, |j| stops[j] - len(j));
    let child_len = usize::try_from(end).unwrap_or(usize::MAX);
    let starts = b.upload(&ScalarBuffer::from(starts))?;
    let stops = b.upload(&ScalarBuffer::from(stops))?;
    h.case(
        &format!("lists/compact_offsets/i64/{label}"),
        n64,
        8 * n64 + 8 * n64 + 8 * (n64 + 1),
        || {
            b.compact_offsets(&starts, &stops, child_len, OffsetWidth::I64)
                .map(drop)
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_cover_the_child_and_match_the_documented_generator() {
        // The first values are the ones scripts/awkward-compare.py reproduces.
        assert_eq!(hash(1, 0), 0x5692_161d_100b_05e5);
        for average in [Some(4), Some(64), None] {
            let offsets = offsets_for(10_000, average);
            assert_eq!(offsets.first(), Some(&0));
            assert_eq!(offsets.last(), Some(&10_000));
            assert!(offsets.windows(2).all(|w| w[0] <= w[1]));
        }
    }
}
