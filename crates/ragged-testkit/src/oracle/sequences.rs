//! Oracles of the sequences family (`ragged_core::ops::sequences`): the Tensor Sketch
//! recurrence evaluated exactly as its definition states, in float64 and in the direct
//! (shifted-vector) form, sharing nothing with the backends' Fourier-domain plan; and
//! squared L2 distances in float64.

use ragged_core::ops::SketchTables;

/// The Tensor Sketch of `codes` by the defining normalized recurrence, in f64:
/// `T_0 = e_0`; for each position `i` with code `c`, for `p = min(i + 1, t)` down to 1,
/// `T_p ← (1 − z)·T_p + z·s_p(c)·shift_{h_p(c)}(T_{p−1})` with `z = p / (i + 1)`.
///
/// # Panics
/// When a code is outside the tables' alphabet.
pub fn tensor_sketch(codes: &[u8], tables: &SketchTables) -> Vec<f64> {
    let (t, d) = (tables.t(), tables.dim());
    let mut levels = vec![vec![0f64; d]; t + 1];
    levels[0][0] = 1.0;
    for (i, &c) in codes.iter().enumerate() {
        let c = usize::from(c);
        assert!(c < tables.alphabet_size(), "code {c} outside the alphabet");
        for p in (1..=t.min(i + 1)).rev() {
            let z = p as f64 / (i + 1) as f64;
            let (h, s) = (tables.hash(p, c), f64::from(tables.sign(p, c)));
            let (low, high) = levels.split_at_mut(p);
            let (from, to) = (&low[p - 1], &mut high[0]);
            for (j, v) in to.iter_mut().enumerate() {
                *v = (1.0 - z) * *v + z * s * from[(j + d - h) % d];
            }
        }
    }
    levels.swap_remove(t)
}

/// The sketch of a sequence of exactly `t` codes, from the closed form: a single entry
/// `Π_p s_p(x_p)` at `(Σ_p h_p(x_p)) mod D`.
///
/// # Panics
/// When `codes.len() != t`.
pub fn exact_t_sketch(codes: &[u8], tables: &SketchTables) -> Vec<f64> {
    assert_eq!(codes.len(), tables.t());
    let mut out = vec![0f64; tables.dim()];
    let (mut at, mut sign) = (0usize, 1i32);
    for (p, &c) in codes.iter().enumerate() {
        at += tables.hash(p + 1, usize::from(c));
        sign *= tables.sign(p + 1, usize::from(c));
    }
    out[at % tables.dim()] = f64::from(sign);
    out
}

/// `Σ (a[i] − b[i])²` in f64.
pub fn squared_distance(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            let d = f64::from(x) - f64::from(y);
            d * d
        })
        .sum()
}

/// `‖got − want‖ / ‖want‖`, or `‖got‖` when `want` is zero.
pub fn relative_error(got: &[f32], want: &[f64]) -> f64 {
    let (mut diff, mut norm) = (0f64, 0f64);
    for (&g, &w) in got.iter().zip(want) {
        diff += (f64::from(g) - w).powi(2);
        norm += w * w;
    }
    if got.len() != want.len() {
        return f64::INFINITY;
    }
    if norm == 0.0 {
        diff.sqrt()
    } else {
        (diff / norm).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recurrence_averages_subsequences() {
        // Against brute force over every t-subset of a short sequence.
        let tables = SketchTables::from_seed(3, 7, 4, 11).unwrap();
        let codes = [0u8, 3, 1, 1, 2, 3];
        let mut want = vec![0f64; 7];
        let mut count = 0;
        for a in 0..codes.len() {
            for b in a + 1..codes.len() {
                for c in b + 1..codes.len() {
                    let sub = [codes[a], codes[b], codes[c]];
                    for (w, e) in want.iter_mut().zip(exact_t_sketch(&sub, &tables)) {
                        *w += e;
                    }
                    count += 1;
                }
            }
        }
        want.iter_mut().for_each(|w| *w /= f64::from(count));
        let got = tensor_sketch(&codes, &tables);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-12, "{got:?} vs {want:?}");
        }
    }
}
