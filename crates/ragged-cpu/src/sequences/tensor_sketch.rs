//! Tensor Sketch on the CPU, following the plan of `ragged_core::ops::sequences`:
//! every sequence is cut into chunks (`sketch_layout`), each chunk item runs its
//! recurrence in the Fourier domain over all frequencies at once, the items run in
//! parallel on rayon, and each sequence's items are combined in f64 and transformed
//! back (`finish_sketch`), sequences in parallel.
//!
//! The inner loop: for each code `c` of the chunk, for each level `p` (descending when
//! forward, ascending when backward), `U_p[k] += a_p(c)[k] · U_{p−1}[k]` over the
//! frequencies `k`, held as separate real and imaginary lanes of [`LANES`] floats so
//! that the loop over `k` is one vector operation per lane group (AVX2 + FMA when the
//! processor has them, detected at run time).
//!
//! Work: `t` complex multiply-adds per code and frequency for first and last chunks,
//! `t(t+1)/2` for middle chunks; memory: the codes are read once per lane group.

use ragged_core::ops::{
    check_sketch_args, count_chunk, count_layout, count_patterns, finish_counts, finish_sketch,
    sketch_layout, SequenceColumn, SketchColumn, SketchItem, SketchLayout, SketchPlan,
    MAX_SKETCH_LENGTH,
};
use ragged_core::{Result, ScalarBuffer};
use rayon::prelude::*;

use crate::output_vec;

/// Frequencies per vector group (one AVX2 register of f32, or two SSE registers).
const LANES: usize = 8;

/// The phase table regrouped for the inner loop: for group `g`, code `c` and level
/// `p`, [`LANES`] real parts then [`LANES`] imaginary parts, padded with zeros.
struct LaneTable {
    values: Vec<f32>,
    groups: usize,
    t: usize,
    alphabet: usize,
}

impl LaneTable {
    fn new(plan: &SketchPlan) -> Self {
        let (t, a, kc) = (plan.t(), plan.alphabet_size(), plan.frequencies());
        let groups = kc.div_ceil(LANES);
        let mut values = vec![0f32; groups * a * t * 2 * LANES];
        for c in 0..a {
            for p in 0..t {
                for k in 0..kc {
                    let [re, im] = plan.phases()[(c * t + p) * kc + k];
                    let base = ((k / LANES * a + c) * t + p) * 2 * LANES;
                    values[base + k % LANES] = re;
                    values[base + LANES + k % LANES] = im;
                }
            }
        }
        Self {
            values,
            groups,
            t,
            alphabet: a,
        }
    }

    /// The `2 × LANES` phases of group `g`, code `c`, level `p` (1-based).
    #[inline(always)]
    fn entry(&self, g: usize, c: u8, p: usize) -> &[f32] {
        let base = ((g * self.alphabet + usize::from(c)) * self.t + p - 1) * 2 * LANES;
        &self.values[base..base + 2 * LANES]
    }
}

pub(super) fn tensor_sketch(sequences: &SequenceColumn, plan: &SketchPlan) -> Result<SketchColumn> {
    check_sketch_args(sequences, plan)?;
    if plan.by_counts() {
        return by_counts(sequences, plan);
    }
    let (t, dim, kc) = (plan.t(), plan.dim(), plan.frequencies());
    // Four chunks per thread: enough to balance skewed lengths, few enough that long
    // sequences are rarely cut (a middle chunk costs up to (t + 1) / 2 times a first).
    let chunk = plan.chunk_length_for(sequences.total_length(), rayon::current_num_threads() * 4);
    let layout = sketch_layout(sequences.offsets(), t, chunk);
    let table = LaneTable::new(plan);
    let codes: &[u8] = sequences.codes();
    let rows = (t + 1) * kc;
    let mut raw = vec![[0f32; 2]; layout.items.len() * rows];
    raw.par_chunks_mut(rows)
        .zip(layout.items.par_iter())
        .for_each(|(out, item)| run_item(&table, codes, item, kc, out));
    let values = per_sequence(&layout, dim, |items, out| {
        finish_sketch(plan, items, &raw, out)
    });
    SketchColumn::try_new(ScalarBuffer::from(values), dim)
}

/// The `D` values of every sequence of `layout`, each computed by `finish` from the
/// sequence's items, sequences in parallel.
fn per_sequence(
    layout: &SketchLayout,
    dim: usize,
    finish: impl Fn(&[SketchItem], &mut [f32]) + Sync,
) -> Vec<f32> {
    let mut values = output_vec::<f32>((layout.first.len() - 1) * dim);
    values
        .par_chunks_mut(dim)
        .zip(layout.first.par_windows(2))
        .for_each(|(out, w)| finish(&layout.items[w[0] as usize..w[1] as usize], out));
    values
}

/// The count method (`ragged_core::ops::sequences`, "Subsequence counts"): every chunk's
/// pattern counts in parallel, then each sequence's chunks combined and projected.
fn by_counts(sequences: &SequenceColumn, plan: &SketchPlan) -> Result<SketchColumn> {
    let (t, dim) = (plan.t(), plan.dim());
    // Every chunk costs the same per code, so chunks only balance the threads.
    let chunk = plan.chunk_length_for(sequences.total_length(), rayon::current_num_threads() * 8);
    let layout = count_layout(sequences.offsets(), chunk);
    let codes: &[u8] = sequences.codes();
    let patterns = count_patterns(t);
    let mut raw = vec![0f64; layout.items.len() * patterns];
    raw.par_chunks_mut(patterns)
        .zip(layout.items.par_iter())
        .for_each(|(out, item)| {
            chunk_counts(
                &codes[item.start as usize..(item.start + item.len) as usize],
                t,
                out,
            )
        });
    let entries = plan.count_entries();
    let values = per_sequence(&layout, dim, |items, out| {
        finish_counts(plan, &entries, items, &raw, out)
    });
    SketchColumn::try_new(ScalarBuffer::from(values), dim)
}

/// The counts of every pattern of length `1..=t` in one chunk
/// (`ragged_core::ops::count_chunk`), compiled for AVX2 when the processor has it
/// (detected at run time).
fn chunk_counts(codes: &[u8], t: usize, out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor supports AVX2 (checked just above).
        return unsafe { chunk_counts_avx2(codes, t, out) };
    }
    chunk_counts_body(codes, t, out);
}

/// [`chunk_counts_body`] compiled for AVX2.
///
/// # Safety
/// The processor supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn chunk_counts_avx2(codes: &[u8], t: usize, out: &mut [f64]) {
    chunk_counts_body(codes, t, out);
}

/// The portable variant (`count_chunk` is inlined into each variant).
#[inline(always)]
fn chunk_counts_body(codes: &[u8], t: usize, out: &mut [f64]) {
    count_chunk(codes, t, out);
}

/// One item's raw rows (`(t + 1) × K` complex values) into `out`: rows `q..=t` (an
/// item from level `q`; backward items all rows), the others left at 0.
fn run_item(table: &LaneTable, codes: &[u8], item: &SketchItem, kc: usize, out: &mut [[f32; 2]]) {
    let chunk = &codes[item.start as usize..(item.start + item.len) as usize];
    let backward = item.level == SketchItem::BACKWARD;
    let q = if backward { 0 } else { item.level as usize };
    let levels = if backward { table.t } else { table.t - q };
    for g in 0..table.groups {
        let (total, carry) = run_lanes(table, g, chunk, q, levels, backward);
        for i in 0..=levels {
            for l in 0..LANES.min(kc - g * LANES) {
                let (total, carry) = (&total[i], &carry[i]);
                out[(q + i) * kc + g * LANES + l] =
                    [total[l] + carry[l], total[LANES + l] + carry[LANES + l]];
            }
        }
    }
}

/// Codes between two flushes of the block sums into the compensated totals.
const BLOCK: usize = 32;

/// The sums of an item's levels `q..=q + levels` (index 0 is level `q`), as local
/// arrays that the unrolled loops index by constants, so they live in registers.
type Local = [[f32; 2 * LANES]; MAX_SKETCH_LENGTH + 1];

/// Run one lane group of one item, picking the vector instructions at run time;
/// returns the totals and carries of its levels.
fn run_lanes(
    table: &LaneTable,
    g: usize,
    chunk: &[u8],
    q: usize,
    levels: usize,
    backward: bool,
) -> (Local, Local) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the processor supports AVX2 and FMA (checked just above).
        return unsafe { run_lanes_avx2(table, g, chunk, q, levels, backward) };
    }
    run_lanes_body::<false>(table, g, chunk, q, levels, backward)
}

/// [`run_lanes_body`] compiled for AVX2 with fused multiply-adds.
///
/// # Safety
/// The processor supports AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_lanes_avx2(
    table: &LaneTable,
    g: usize,
    chunk: &[u8],
    q: usize,
    levels: usize,
    backward: bool,
) -> (Local, Local) {
    run_lanes_body::<true>(table, g, chunk, q, levels, backward)
}

/// `x·y + z`, fused when `FMA` (then compiled only under the `fma` feature).
#[inline(always)]
fn madd<const FMA: bool>(x: f32, y: f32, z: f32) -> f32 {
    if FMA {
        x.mul_add(y, z)
    } else {
        x * y + z
    }
}

/// The recurrence of one item over one lane group. Forward from level `q`: for each
/// code, `U_p += a_p(c)·U_{p−1}` for `p = t..q+1` (descending, so each reads the
/// previous code's `U_{p−1}`). Backward: codes from the end, `R_q += a_{q+1}(c)·R_{q+1}`
/// for `q = 0..t` (ascending, for the same reason).
///
/// Accuracy: each increment is added to a block sum of at most [`BLOCK`] increments,
/// which is then added to the level's total with TwoSum. Summing straight into the
/// total loses about `eps·sqrt(L)` over a chunk of `L` codes, amplified where a
/// frequency's terms cancel (1e-4 was measured over 54 000 codes); this keeps it near
/// `eps` for about 1.5 times the arithmetic.
#[inline(always)]
fn run_lanes_body<const FMA: bool>(
    table: &LaneTable,
    g: usize,
    chunk: &[u8],
    q: usize,
    levels: usize,
    backward: bool,
) -> (Local, Local) {
    // A constant level count (an item from level q is a sketch of t − q levels on the
    // shifted table), so that the loops over levels unroll.
    macro_rules! by_levels {
        ($($n:literal)*) => {
            match levels {
                $($n => run_levels::<FMA, $n>(table, g, chunk, q, backward),)*
                // levels <= t <= MAX_SKETCH_LENGTH (16), checked by SketchTables.
                _ => run_levels::<FMA, MAX_SKETCH_LENGTH>(table, g, chunk, q, backward),
            }
        };
    }
    by_levels!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
}

/// [`run_lanes_body`] for `TL` levels above `q` (backward: `q` is 0 and `TL` is `t`).
#[inline(always)]
fn run_levels<const FMA: bool, const TL: usize>(
    table: &LaneTable,
    g: usize,
    chunk: &[u8],
    q: usize,
    backward: bool,
) -> (Local, Local) {
    let (mut total, mut block, mut carry): (Local, Local, Local) = Default::default();
    if backward {
        total[TL][..LANES].fill(1.0);
        for codes in chunk.rchunks(BLOCK) {
            for &c in codes.iter().rev() {
                for l in 0..TL {
                    local_step::<FMA>(table.entry(g, c, q + l + 1), &total, &mut block, l + 1, l);
                }
            }
            local_flush::<TL>(&mut total, &mut block, &mut carry, 0);
        }
    } else {
        total[0][..LANES].fill(1.0);
        for codes in chunk.chunks(BLOCK) {
            for &c in codes {
                for p in (1..=TL).rev() {
                    local_step::<FMA>(table.entry(g, c, q + p), &total, &mut block, p - 1, p);
                }
            }
            local_flush::<TL>(&mut total, &mut block, &mut carry, 1);
        }
    }
    (total, carry)
}

/// One step of one level: `block[to] += a · (total[from] + block[from])` on [`LANES`]
/// complex lanes (`a`: real lanes then imaginary lanes).
#[inline(always)]
fn local_step<const FMA: bool>(
    a: &[f32],
    total: &Local,
    block: &mut Local,
    from: usize,
    to: usize,
) {
    let (ar, ai) = a.split_at(LANES);
    let mut v = [0f32; 2 * LANES];
    for (l, x) in v.iter_mut().enumerate() {
        *x = total[from][l] + block[from][l];
    }
    let out = &mut block[to];
    for l in 0..LANES {
        let (fr, fi) = (v[l], v[LANES + l]);
        out[l] = madd::<FMA>(-ai[l], fi, madd::<FMA>(ar[l], fr, out[l]));
        out[LANES + l] = madd::<FMA>(ai[l], fr, madd::<FMA>(ar[l], fi, out[LANES + l]));
    }
}

/// Add the block sums of levels `first..first + TL` (0 backward, 1 forward) into their
/// totals with TwoSum, keeping the rounding error in the carries, and clear them.
#[inline(always)]
fn local_flush<const TL: usize>(
    total: &mut Local,
    block: &mut Local,
    carry: &mut Local,
    first: usize,
) {
    for p in first..first + TL {
        for l in 0..2 * LANES {
            let (a, b) = (total[p][l], block[p][l]);
            let s = a + b;
            let bb = s - a;
            carry[p][l] += (a - (s - bb)) + (b - bb);
            total[p][l] = s;
            block[p][l] = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vectorized counts (both the run-time dispatched and the portable body, which
    /// AVX2 machines never reach) equal the reference `count_chunk` exactly.
    #[test]
    fn chunk_counts_equal_the_reference() {
        let mut state = 3u64;
        for n in [0usize, 1, 2, 5, 64, 1000] {
            let codes: Vec<u8> = (0..n)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (state >> 60) as u8 & 3
                })
                .collect();
            for t in 1..=4 {
                let patterns = count_patterns(t);
                let mut expected = vec![0f64; patterns];
                count_chunk(&codes, t, &mut expected);
                let mut got = vec![0f64; patterns];
                chunk_counts(&codes, t, &mut got);
                assert_eq!(got, expected, "n {n} t {t}");
                let mut portable = vec![0f64; patterns];
                chunk_counts_body(&codes, t, &mut portable);
                assert_eq!(portable, expected, "n {n} t {t} (portable)");
            }
        }
    }
}
