//! The sequences family's conformance bodies: Tensor Sketch against the float64
//! oracle (`oracle::sequences`, the defining recurrence in the direct form) and its
//! exact properties, under every way of cutting sequences into chunks; pairwise
//! distances against float64 sums; argument errors.
//!
//! The accuracy bound is DESIGN.md's (§2, Sequences): a relative L2 error of at most
//! 1e-4 per sketch, on every sequence length from 0 up to millions of codes.

use ragged_core::ops::{DistanceMatrix, SequenceColumn, SketchColumn, SketchPlan, SketchTables};
use ragged_core::{Backend, Error, ScalarBuffer};

use crate::check::{Failures, Mismatch};
use crate::oracle::sequences as oracle;
use crate::rng::Rng;

/// The accuracy bound: relative L2 error of a float32 sketch against float64.
pub const SKETCH_TOLERANCE: f64 = 1e-4;

/// Sketch `col` on `backend` and bring the sketches back.
///
/// # Errors
/// The backend's error, at any step.
pub fn run_sketch<B: Backend>(
    backend: &B,
    col: &SequenceColumn,
    plan: &SketchPlan,
) -> Result<SketchColumn, Error> {
    let device = backend.to_device_sequences(col)?;
    let out = backend.tensor_sketch(&device, plan)?;
    backend.to_host_sketches(&out)
}

/// Random codes below `a`: uniform, or (one case in four) long runs of one code.
pub fn random_codes(rng: &mut Rng, len: usize, a: usize) -> Vec<u8> {
    let runs = rng.chance(25);
    let mut out = Vec::with_capacity(len);
    let mut c = rng.index(a) as u8;
    while out.len() < len {
        if !runs || rng.chance(1) {
            c = rng.index(a) as u8;
        }
        out.push(c);
    }
    out
}

/// A column of `sequences`, its codes placed after `pad` filler codes (out of the
/// alphabet, never to be read) so that the offsets do not start at 0 when `pad > 0`.
pub fn column(sequences: &[Vec<u8>], a: usize, pad: usize) -> SequenceColumn {
    let mut codes = vec![u8::MAX - 1; pad];
    let mut offsets = vec![pad as i64];
    for s in sequences {
        codes.extend_from_slice(s);
        offsets.push(codes.len() as i64);
    }
    codes.extend_from_slice(&[u8::MAX - 1; 3]);
    SequenceColumn::try_new(ScalarBuffer::from(codes), ScalarBuffer::from(offsets), a)
        .expect("a valid generated column")
}

/// Compare every sketch of `col` with the oracle, from a column on the backend
/// (`tensor_sketch`) and from host memory (`tensor_sketch_host`, which on the GPU
/// uploads while it sketches and may cut a chunk's loads differently, so it is held to
/// the same bound rather than to the same bits).
fn check_against_oracle<B: Backend>(
    backend: &B,
    label: &str,
    sequences: &[Vec<u8>],
    col: &SequenceColumn,
    plan: &SketchPlan,
) -> Result<(), Mismatch> {
    let got = run_sketch(backend, col, plan)
        .map_err(|e| Mismatch::new(label, None, format!("tensor_sketch failed: {e}")))?;
    check_sketches(label, sequences, &got, plan)?;
    let from_host = backend
        .tensor_sketch_host(col, plan)
        .map_err(|e| Mismatch::new(label, None, format!("tensor_sketch_host failed: {e}")))?;
    check_sketches(&format!("{label}, from host"), sequences, &from_host, plan)
}

/// Compare sketches with the oracle's.
fn check_sketches(
    label: &str,
    sequences: &[Vec<u8>],
    got: &SketchColumn,
    plan: &SketchPlan,
) -> Result<(), Mismatch> {
    if got.len() != sequences.len() || got.dim() != plan.dim() {
        return Err(Mismatch::new(
            label,
            None,
            format!(
                "{} sketches of dimension {}, expected {} of {}",
                got.len(),
                got.dim(),
                sequences.len(),
                plan.dim()
            ),
        ));
    }
    for (i, s) in sequences.iter().enumerate() {
        let want = oracle::tensor_sketch(s, plan.tables());
        let row = got.row(i);
        if s.len() < plan.t() {
            if row.iter().any(|&v| v != 0.0) {
                return Err(Mismatch::new(
                    label,
                    Some(i),
                    format!(
                        "a sequence of {} codes (< t) must sketch to zeros: {row:?}",
                        s.len()
                    ),
                ));
            }
            continue;
        }
        let error = oracle::relative_error(row, &want);
        if error.is_nan() || error > SKETCH_TOLERANCE {
            return Err(Mismatch::new(
                label,
                Some(i),
                format!(
                    "relative L2 error {error:.3e} > {SKETCH_TOLERANCE:e} (length {}); got {:?}…, want {:?}…",
                    s.len(),
                    &row[..row.len().min(4)],
                    &want[..want.len().min(4)]
                ),
            ));
        }
    }
    Ok(())
}

/// Tensor Sketch's exact properties, within float32 rounding (1e-5 absolute per entry):
/// empty and shorter-than-t sequences give zeros (exactly); with t = 1 a single code
/// `c` gives `s_1(c)` at `h_1(c)`; exactly t codes give `Π s_p(x_p)` at
/// `(Σ h_p(x_p)) mod D`; a run of one code gives a single ±1 entry — for several
/// shapes and chunk lengths.
///
/// # Panics
/// When a property fails (the suite's assertion).
pub fn sketch_properties<B: Backend>(backend: &B) {
    let mut failures = Failures::new();
    for &(t, d, a, seed) in &[
        (1usize, 96usize, 4usize, 1u64),
        (4, 96, 4, 2),
        (3, 17, 20, 3),
        (2, 1, 4, 4),
        (6, 64, 5, 5),
        (16, 33, 4, 6),
    ] {
        let tables = SketchTables::from_seed(t, d, a, seed).expect("valid tables");
        let mut rng = Rng::new(seed);
        for chunk in [None, Some(1), Some(5)] {
            let mut plan = SketchPlan::new(tables.clone());
            if let Some(c) = chunk {
                plan = plan.with_chunk_length(c);
            }
            let label = format!("t={t} D={d} A={a} chunk={chunk:?}");
            let mut sequences: Vec<Vec<u8>> = vec![vec![], random_codes(&mut rng, t - 1, a)];
            let single: Vec<Vec<u8>> = (0..a as u8).map(|c| vec![c]).collect();
            let exact: Vec<Vec<u8>> = (0..8).map(|_| random_codes(&mut rng, t, a)).collect();
            // Long runs only where chunks are long: a chunk of 1 code makes a run of
            // n codes n chunks, each combined in f64 (slow, and covered by short runs).
            let run_lengths: &[usize] = if chunk.is_some() {
                &[t, t + 1, 100]
            } else {
                &[t, t + 1, 100, 5000, 70_000]
            };
            let runs: Vec<Vec<u8>> = run_lengths
                .iter()
                .map(|&n| vec![rng.index(a) as u8; n])
                .collect();
            sequences.extend(single.iter().cloned());
            sequences.extend(exact.iter().cloned());
            sequences.extend(runs.iter().cloned());
            let col = column(&sequences, a, 0);
            let got = match run_sketch(backend, &col, &plan) {
                Ok(g) => g,
                Err(e) => {
                    failures.record(Err(Mismatch::new(&label, None, format!("failed: {e}"))));
                    continue;
                }
            };
            let mut check = |row: usize, want: &[f64], what: &str| {
                let g = got.row(row);
                let bad = g.len() != want.len()
                    || g.iter()
                        .zip(want)
                        .any(|(&x, &w)| (f64::from(x) - w).abs() > 1e-5);
                failures.record(if bad {
                    Err(Mismatch::new(
                        &label,
                        Some(row),
                        format!("{what}: got {g:?}, want {want:?}"),
                    ))
                } else {
                    Ok(())
                });
            };
            check(0, &vec![0.0; d], "empty sequence");
            check(1, &vec![0.0; d], "shorter than t");
            let mut row = 2;
            for s in &single {
                if t == 1 {
                    let mut want = vec![0.0; d];
                    want[tables.hash(1, usize::from(s[0]))] =
                        f64::from(tables.sign(1, usize::from(s[0])));
                    check(row, &want, "t = 1, one code");
                }
                row += 1;
            }
            for s in &exact {
                check(row, &oracle::exact_t_sketch(s, &tables), "exactly t codes");
                row += 1;
            }
            for s in &runs {
                let c = usize::from(s[0]);
                let (at, sign) = (1..=t).fold((0, 1), |(h, g), p| {
                    (h + tables.hash(p, c), g * tables.sign(p, c))
                });
                let mut want = vec![0.0; d];
                want[at % d] = f64::from(sign);
                check(row, &want, "a run of one code");
                row += 1;
            }
        }
    }
    failures.finish("sketch_properties");
}

/// Random sequences of every small length, lengths around chunk and tile boundaries,
/// both alphabets, odd and even dimensions, every t up to 16, sliced columns, and
/// chunk lengths from 1 up to the backend's own, against the float64 oracle.
///
/// # Panics
/// When a sketch differs from the oracle beyond [`SKETCH_TOLERANCE`].
pub fn sketch_random<B: Backend>(backend: &B) {
    let mut failures = Failures::new();
    let shapes = [
        (4usize, 96usize, 4usize),
        (1, 8, 4),
        (2, 31, 4),
        (3, 64, 20),
        (5, 128, 4),
        (8, 96, 4),
        (16, 20, 3),
        (4, 1024, 4),
        (4, 96, 255),
        (4, 50, 3),
        (3, 40, 2),
    ];
    for (case, &(t, d, a)) in shapes.iter().enumerate() {
        let mut rng = Rng::new(100 + case as u64);
        let tables = SketchTables::from_seed(t, d, a, rng.next_u64()).expect("valid tables");
        let mut lengths: Vec<usize> = (0..40).collect();
        lengths.extend([
            63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4095, 4096, 4097,
        ]);
        lengths.extend((0..4).map(|_| rng.index(12_000)));
        let all: Vec<Vec<u8>> = lengths
            .iter()
            .map(|&n| random_codes(&mut rng, n, a))
            .collect();
        for (pad, chunk) in [
            (0, None),
            (5, Some(1)),
            (0, Some(7)),
            (1, Some(64)),
            (0, Some(1000)),
        ] {
            let mut plan = SketchPlan::new(tables.clone());
            if let Some(c) = chunk {
                plan = plan.with_chunk_length(c);
            }
            // At most 300 chunks per sequence (each chunk is combined in f64).
            let sequences: Vec<Vec<u8>> = all
                .iter()
                .filter(|s| s.len() <= 300 * chunk.unwrap_or(usize::MAX / 300))
                .cloned()
                .collect();
            let col = column(&sequences, a, pad);
            let label = format!("t={t} D={d} A={a} pad={pad} chunk={chunk:?}");
            failures.record(check_against_oracle(
                backend, &label, &sequences, &col, &plan,
            ));
        }
    }
    // No sequence at all.
    let tables = SketchTables::from_seed(4, 96, 4, 9).expect("valid tables");
    let plan = SketchPlan::new(tables);
    failures.record(check_against_oracle(
        backend,
        "no sequences",
        &[],
        &column(&[], 4, 0),
        &plan,
    ));
    failures.finish("sketch_random");
}

/// Long sequences: one of 2.5 million codes among short ones, and a skewed set
/// (lengths spread over four orders of magnitude), with the backend's own chunking,
/// against the float64 oracle.
///
/// # Panics
/// When a sketch differs from the oracle beyond [`SKETCH_TOLERANCE`].
pub fn sketch_long<B: Backend>(backend: &B) {
    let mut failures = Failures::new();
    let mut rng = Rng::new(77);
    let tables = SketchTables::from_seed(4, 96, 4, 1234).expect("valid tables");
    let plan = SketchPlan::new(tables);
    let mut sequences: Vec<Vec<u8>> = (0..20).map(|i| random_codes(&mut rng, 10 * i, 4)).collect();
    sequences.insert(7, (0..2_500_000).map(|_| rng.index(4) as u8).collect());
    failures.record(check_against_oracle(
        backend,
        "one long among short",
        &sequences,
        &column(&sequences, 4, 0),
        &plan,
    ));
    // The same as one chunk per sequence (the longest chunk the plan allows).
    let whole = plan.clone().with_chunk_length(usize::MAX);
    failures.record(check_against_oracle(
        backend,
        "one long, unchunked",
        &sequences,
        &column(&sequences, 4, 0),
        &whole,
    ));
    let skewed: Vec<Vec<u8>> = (0..40)
        .map(|_| {
            let len = 10f64.powf(1.0 + 4.5 * (rng.index(1000) as f64 / 1000.0)) as usize;
            random_codes(&mut rng, len, 4)
        })
        .collect();
    failures.record(check_against_oracle(
        backend,
        "skewed",
        &skewed,
        &column(&skewed, 4, 3),
        &plan,
    ));
    failures.finish("sketch_long");
}

/// Argument errors: an alphabet that is not the tables' one.
///
/// # Panics
/// When the backend accepts the call or reports another error.
pub fn sketch_errors<B: Backend>(backend: &B) {
    let tables = SketchTables::from_seed(4, 96, 20, 1).expect("valid tables");
    let plan = SketchPlan::new(tables);
    let col = column(&[vec![0, 1, 2, 3]], 4, 0);
    match run_sketch(backend, &col, &plan) {
        Err(Error::InvalidArgument {
            op: "tensor_sketch",
            ..
        }) => {}
        other => panic!("an alphabet of 4 codes against tables of 20: {other:?}"),
    }
    match backend.tensor_sketch_host(&col, &plan) {
        Err(Error::InvalidArgument {
            op: "tensor_sketch",
            ..
        }) => {}
        other => {
            panic!("tensor_sketch_host, an alphabet of 4 codes against tables of 20: {other:?}")
        }
    }
}

fn sketches(rng: &mut Rng, rows: usize, dim: usize) -> SketchColumn {
    let values: Vec<f32> = (0..rows * dim)
        .map(|_| (rng.range_i64(-1000, 1000) as f32) / 997.0)
        .collect();
    SketchColumn::try_new(ScalarBuffer::from(values), dim).expect("valid sketches")
}

fn run_distances<B: Backend>(
    backend: &B,
    queries: &SketchColumn,
    references: Option<&SketchColumn>,
) -> Result<DistanceMatrix, Error> {
    let q = backend.to_device_sketches(queries)?;
    let r = references
        .map(|r| backend.to_device_sketches(r))
        .transpose()?;
    let m = backend.pairwise_distances(&q, r.as_ref())?;
    backend.to_host_distances(&m)
}

/// `pairwise_distances`: all pairs and query × reference, shapes around tile
/// boundaries, odd dimensions, empty sets, against float64 (relative 1e-5); a
/// dimension mismatch is an `InvalidArgument`.
///
/// # Panics
/// When a distance differs or the error is not reported.
pub fn distances<B: Backend>(backend: &B) {
    let mut failures = Failures::new();
    let mut rng = Rng::new(5);
    for &(rows, cols, dim) in &[
        (0usize, 0usize, 96usize),
        (1, 1, 1),
        (3, 0, 8),
        (33, 31, 96),
        (64, 65, 17),
        (100, 300, 128),
        (5, 7, 1024),
    ] {
        let q = sketches(&mut rng, rows, dim);
        let r = sketches(&mut rng, cols, dim);
        for all_pairs in [false, true] {
            let label = format!("{rows}x{cols} D={dim} all_pairs={all_pairs}");
            let (refs, expect_cols) = if all_pairs {
                (None, rows)
            } else {
                (Some(&r), cols)
            };
            let outcome = match run_distances(backend, &q, refs) {
                Err(e) => Err(Mismatch::new(&label, None, format!("failed: {e}"))),
                Ok(m) if m.rows() != rows || m.cols() != expect_cols => Err(Mismatch::new(
                    &label,
                    None,
                    format!("shape {}x{}", m.rows(), m.cols()),
                )),
                Ok(m) => (0..rows)
                    .flat_map(|i| (0..expect_cols).map(move |j| (i, j)))
                    .find_map(|(i, j)| {
                        let other = refs.map_or(q.row(j), |r| r.row(j));
                        let want = oracle::squared_distance(q.row(i), other);
                        let got = f64::from(m.get(i, j).unwrap_or(f32::NAN));
                        let ok = (got - want).abs() <= 1e-5 * want.max(1e-3);
                        (!ok).then(|| {
                            Mismatch::new(
                                &label,
                                Some(i),
                                format!("({i}, {j}): got {got}, want {want}"),
                            )
                        })
                    })
                    .map_or(Ok(()), Err),
            };
            failures.record(outcome);
        }
    }
    let (a, b) = (sketches(&mut rng, 2, 8), sketches(&mut rng, 2, 9));
    failures.record(match run_distances(backend, &a, Some(&b)) {
        Err(Error::InvalidArgument {
            op: "pairwise_distances",
            ..
        }) => Ok(()),
        other => Err(Mismatch::new(
            "dimension mismatch",
            None,
            format!("{other:?}"),
        )),
    });
    failures.finish("distances");
}
