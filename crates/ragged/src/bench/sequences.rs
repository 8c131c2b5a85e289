//! The sequences cases of `ragged bench` (the shapes of the sequences targets,
//! DESIGN.md §5): 100 M codes (1 M with `--quick`) in 1 410 DNA sequences (141 with
//! `--quick`), A = 4, t = 4, D = 96, tables from seed 1:
//! - *homogeneous*: every sequence the same length (± 1);
//! - *skewed*: lognormal lengths with σ = 1.5 (Box–Muller from `hash`), scaled to the
//!   same total, the longest about 2.5 M codes.
//!
//! Codes are `hash(9, i) >> 62` (uniform over ACGT). Cases:
//! - `sequences/sketch/<shape>`: encoded sequences in host memory → sketches in host
//!   memory (`tensor_sketch_host`: on the GPU the upload overlaps the sketch), the
//!   end-to-end measure the targets are set on (≤ 10 ms homogeneous, ≤ 20 ms skewed);
//! - `sequences/sketch_device/<shape>`: sequences already in the backend's memory →
//!   sketches there;
//! - `sequences/distances/<n>`: all pairs of the homogeneous sketches;
//! - `sequences/fasta_parse/<label>` (CPU only: parsing is host work on every backend):
//!   the homogeneous sequences as FASTA text in memory (a `>seq<i>` header, lines of 80
//!   bases) → names + codes with `ragged::io::parse_sequences`; bytes = the text.
//!
//! Bytes count codes + offsets read and sketches written once (distances: sketches read,
//! the matrix written), so GB/s and × copy are given, but the bars are in milliseconds.

use ragged_core::ops::{Alphabet, SequenceColumn, SketchPlan, SketchTables};
use ragged_core::{Result, ScalarBuffer};

use super::lists::hash;
use super::{BenchBackend, Harness};

/// Sequence lengths summing to `total`, proportional to `weights`.
fn lengths_for(weights: &[f64], total: u64) -> Vec<i64> {
    let sum: f64 = weights.iter().sum();
    let mut lengths: Vec<i64> = weights
        .iter()
        .map(|w| (w / sum * total as f64).floor() as i64)
        .collect();
    let short = total as i64 - lengths.iter().sum::<i64>();
    for l in lengths.iter_mut().take(short.max(0) as usize) {
        *l += 1;
    }
    lengths
}

/// Lognormal weights with σ = 1.5: `exp(σ z)` for standard normal `z` (Box–Muller).
fn lognormal(n: usize, sigma: f64) -> Vec<f64> {
    (0..n as u64)
        .map(|j| {
            let u1 = ((hash(11, j) >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
            let u2 = (hash(12, j) >> 11) as f64 / (1u64 << 53) as f64;
            let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
            (sigma * z).exp()
        })
        .collect()
}

fn column(lengths: &[i64], codes: &ScalarBuffer<u8>) -> Result<SequenceColumn> {
    let mut offsets = Vec::with_capacity(lengths.len() + 1);
    offsets.push(0i64);
    for l in lengths {
        offsets.push(offsets[offsets.len() - 1] + l);
    }
    SequenceColumn::try_new(codes.clone(), ScalarBuffer::from(offsets), 4)
}

pub(super) fn sequences_suite<B: BenchBackend>(h: &mut Harness<'_, B>, quick: bool) -> Result<()> {
    let b = h.backend;
    let (total, count) = if quick {
        (1_000_000u64, 141usize)
    } else {
        (100_000_000, 1410)
    };
    let codes: ScalarBuffer<u8> = (0..total).map(|i| (hash(9, i) >> 62) as u8).collect();
    let plan = SketchPlan::new(SketchTables::from_seed(4, 96, 4, 1)?);
    let label = if quick { "1M" } else { "100M" };
    let homogeneous = column(&lengths_for(&vec![1.0; count], total), &codes)?;
    let skewed = column(&lengths_for(&lognormal(count, 1.5), total), &codes)?;
    let bytes = total + 8 * (count as u64 + 1) + 4 * 96 * count as u64;
    for (shape, col) in [("homogeneous", &homogeneous), ("skewed", &skewed)] {
        h.case(
            &format!("sequences/sketch/{shape}/{label}"),
            total,
            bytes,
            || b.tensor_sketch_host(col, &plan).map(drop),
        )?;
        let device = b.to_device_sequences(col)?;
        h.case(
            &format!("sequences/sketch_device/{shape}/{label}"),
            total,
            bytes,
            || b.tensor_sketch(&device, &plan).map(drop),
        )?;
    }
    let device = b.to_device_sequences(&homogeneous)?;
    let sketches = b.tensor_sketch(&device, &plan)?;
    let n = count as u64;
    h.case(
        &format!("sequences/distances/{count}x{count}"),
        n * n,
        4 * 96 * n + 4 * n * n,
        || b.pairwise_distances(&sketches, None).map(drop),
    )?;
    if b.kind() == "cpu" {
        let text = fasta_text(&homogeneous);
        h.case(
            &format!("sequences/fasta_parse/{label}"),
            total,
            text.len() as u64,
            || {
                crate::io::parse_sequences(&text, &Alphabet::Dna, std::path::Path::new("bench.fa"))
                    .map(drop)
            },
        )?;
    }
    Ok(())
}

/// The column as FASTA text: `>seq<i>` and lines of 80 bases.
fn fasta_text(col: &SequenceColumn) -> Vec<u8> {
    let mut text = Vec::with_capacity(col.total_length() * 82 / 80 + 16 * col.len());
    for i in 0..col.len() {
        text.extend_from_slice(format!(">seq{i}\n").as_bytes());
        for line in col.sequence(i).chunks(80) {
            text.extend(line.iter().map(|&c| b"ACGT"[usize::from(c)]));
            text.push(b'\n');
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_have_the_issue_totals() {
        let even = lengths_for(&vec![1.0; 1410], 100_000_000);
        assert_eq!(even.iter().sum::<i64>(), 100_000_000);
        assert!(even.iter().all(|&l| (70_921..=70_922).contains(&l)));
        let skewed = lengths_for(&lognormal(1410, 1.5), 100_000_000);
        assert_eq!(skewed.iter().sum::<i64>(), 100_000_000);
        let longest = skewed.iter().copied().max().unwrap_or(0);
        assert!(
            (1_000_000..6_000_000).contains(&longest),
            "longest {longest}"
        );
    }
}
