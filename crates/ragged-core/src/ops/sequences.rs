//! The sequences family: biological sequences as ragged arrays of small codes, and
//! their Tensor Sketch embeddings (Joudaki, Rätsch, Kahles, "Fast Alignment-Free
//! Similarity Estimation by Tensor Sketching").
//!
//! # Data
//!
//! A [`SequenceColumn`] is a ragged array of codes `0..A` (one byte each) with i64
//! offsets: sequence `i` is `codes[offsets[i]..offsets[i + 1]]`. An [`Alphabet`] maps
//! text bytes to codes; bytes outside it are *removed* when a sequence is encoded (so
//! positions in a sequence count only kept characters).
//!
//! # Tensor Sketch (decided semantics)
//!
//! Parameters: alphabet size `A`, sub-sequence length `t`, dimension `D`, and for each
//! level `p = 1..=t` a hash table `h_p(c) ∈ [0, D)` and a sign table
//! `s_p(c) ∈ {−1, +1}` ([`SketchTables`]). For a sequence `x` of `n` codes, the sketch
//! is the average over all `C(n, t)` sub-sequences `i_1 < … < i_t` of the vector
//! `Π_p s_p(x_{i_p}) · e_{(Σ_p h_p(x_{i_p})) mod D}`. Equivalently, with `T_0 = e_0`,
//! `T_p = 0` for `p ≥ 1`, for each position `i` (0-based) holding `c`, for
//! `p = min(i + 1, t)` down to `1`: `z = p / (i + 1)`,
//! `T_p ← (1 − z)·T_p + z·s_p(c)·shift_{h_p(c)}(T_{p−1})`, with
//! `(shift_r v)[j] = v[(j − r) mod D]`; the sketch is `T_t`. A sequence shorter than
//! `t` (the empty one too) sketches to zeros.
//!
//! # How the backends compute it
//!
//! A circular shift is a product with a phase in the discrete Fourier domain, so each
//! frequency `k = 0..=D/2` of the sketch is an independent scalar (complex) recurrence
//! over the sequence: `U_p[k] += a_p(c)[k] · U_{p−1}[k]` with
//! `a_p(c)[k] = s_p(c)·exp(−2πi·h_p(c)·k / D)` ([`SketchPlan::phases`]), on the
//! *unnormalized* sums `U_p = C(n, p)·T_p` (`U_0 = 1`). No data moves between
//! frequencies, so a GPU thread owns a frequency and a CPU loop vectorizes over them.
//!
//! Each step is linear, so a long sequence is cut into chunks ([`sketch_layout`]) whose
//! *transfer operators* (lower-triangular `(t + 1) × (t + 1)` per frequency:
//! `V_{q,p}` = the sum over `(p − q)`-sub-sequences of the chunk using levels
//! `q + 1..=p`) are computed in parallel: the first chunk runs forward from `U_0 = 1`
//! (`t` updates per character), a middle chunk runs forward once from each start level
//! `q` (`t − q` updates), and the last chunk runs *backward* from `R_t = 1`, which
//! gives exactly the column `V_{q,t}` the end needs (`t` updates). [`finish_sketch`]
//! combines the chunks in order in f64, normalizing as it goes
//! (`T_p(AB) = Σ_q C(a, q) / C(a + b, p) · T_q(A) · V_{q,p}(B)`), and takes the
//! inverse transform of `T_t`. The chunk length bounds the unnormalized sums (at most
//! `C(L, t)`, kept below 2^100 by [`SketchPlan::max_chunk_length`]); backends choose
//! it for parallelism (the GPU: as many chunks as the chip holds at once). Inside a
//! chunk, increments are summed in blocks added to compensated (TwoSum) totals, so
//! float32 rounding stays near 1e-6 whatever the chunk's length.
//!
//! # Subsequence counts (small alphabets and `t`)
//!
//! The sketch is a fixed projection of the counts of every pattern of `t` codes
//! occurring as a sub-sequence: with `N(c_1..c_t) = #{i_1 < … < i_t : x_{i_p} = c_p}`,
//! `T_t = Σ_P N(P)·Π_p s_p(c_p)·e_{(Σ_p h_p(c_p)) mod D} / C(n, t)`. When `A ≤ 4` and
//! `t ≤ 4` ([`SketchPlan::by_counts`]) there are at most 256 patterns, and counting
//! them costs 4 + 16 + 64 additions per code at `t = 4` (the counts of the patterns
//! ending in the code grow by those of their prefixes), against `t` complex
//! multiply-adds per frequency (196 for `D = 96`) in the Fourier domain — and it is
//! exact. A chunk's counts of every pattern of length `1..=t` ([`count_chunk`]) are
//! its transfer operator in count space: chunks combine associatively,
//! `N_AB(P) = Σ_s N_A(P[..s])·N_B(P[s..])` ([`finish_counts`]), so every chunk is
//! a plain forward item ([`count_layout`]) and no chunk costs more than another.
//! Counts are float64: exact below 2^53 (chunks under about 20 000 codes at
//! `t = 4`), relative 1e-16 beyond.
//!
//! Both backends follow these plans with the same tables, so they agree within
//! float32 rounding; the testkit checks both against a float64 evaluation of the
//! defining recurrence.

use arrow_array::{ArrayRef, FixedSizeListArray, Float32Array, LargeListArray, UInt8Array};
use arrow_buffer::{OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field};
use std::sync::Arc;

use super::Memory;
use crate::location::{DataBuffer, Host, Location};
use crate::{Error, Result};

/// The largest sub-sequence length `t` accepted.
pub const MAX_SKETCH_LENGTH: usize = 16;
/// The largest sketch dimension `D` accepted.
pub const MAX_SKETCH_DIM: usize = 1024;
/// The code that marks a byte outside an alphabet in [`Alphabet::code_table`].
pub const SKIP: u8 = u8::MAX;

/// Which bytes of a text sequence are kept, and the code each one gets.
///
/// ```
/// use ragged_core::ops::Alphabet;
/// let dna = Alphabet::Dna;
/// assert_eq!(dna.size(), 4);
/// assert_eq!(dna.encode(b"ACgtNa"), vec![0, 1, 2, 3, 0]);
/// let custom = Alphabet::custom(b"01")?;
/// assert_eq!(custom.encode(b"0110x"), vec![0, 1, 1, 0]);
/// # Ok::<(), ragged_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Alphabet {
    /// `A C G T` → 0..3, either case; everything else (`N`, IUPAC codes, gaps) is
    /// removed. The default.
    #[default]
    Dna,
    /// The 20 standard amino acids `ACDEFGHIKLMNPQRSTVWY` → 0..19, either case;
    /// everything else (`X`, `B`, `Z`, `*`, gaps) is removed.
    Protein,
    /// The given symbols, in order, → 0..n. An ASCII letter also matches its other case
    /// unless that case is a symbol of its own. Build it with [`Alphabet::custom`].
    Custom(Vec<u8>),
}

impl Alphabet {
    /// A custom alphabet of the given symbols (one byte each).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (op `alphabet`) when it is empty, longer than 255
    /// symbols, or repeats a symbol.
    pub fn custom(symbols: &[u8]) -> Result<Self> {
        if symbols.is_empty() || symbols.len() > usize::from(SKIP) {
            return Err(Error::invalid_argument(
                "alphabet",
                format!("{} symbols: an alphabet has 1 to 255", symbols.len()),
            ));
        }
        let mut seen = [false; 256];
        for &s in symbols {
            if std::mem::replace(&mut seen[usize::from(s)], true) {
                return Err(Error::invalid_argument(
                    "alphabet",
                    format!("symbol {:?} appears twice", char::from(s)),
                ));
            }
        }
        Ok(Alphabet::Custom(symbols.to_vec()))
    }

    /// Parse a command-line name: `dna`, `protein`, or the symbols themselves.
    ///
    /// # Errors
    /// As [`Alphabet::custom`].
    pub fn parse(text: &str) -> Result<Self> {
        match text.to_ascii_lowercase().as_str() {
            "dna" => Ok(Alphabet::Dna),
            "protein" => Ok(Alphabet::Protein),
            _ => Alphabet::custom(text.as_bytes()),
        }
    }

    /// The symbols, in code order.
    pub fn symbols(&self) -> &[u8] {
        match self {
            Alphabet::Dna => b"ACGT",
            Alphabet::Protein => b"ACDEFGHIKLMNPQRSTVWY",
            Alphabet::Custom(s) => s,
        }
    }

    /// The number of codes `A`.
    pub fn size(&self) -> usize {
        self.symbols().len()
    }

    /// The code of every byte, [`SKIP`] for bytes outside the alphabet.
    pub fn code_table(&self) -> [u8; 256] {
        let mut table = [SKIP; 256];
        let symbols = self.symbols();
        for (code, &s) in symbols.iter().enumerate() {
            table[usize::from(s)] = code as u8;
        }
        for (code, &s) in symbols.iter().enumerate() {
            let other = if s.is_ascii_lowercase() {
                s.to_ascii_uppercase()
            } else {
                s.to_ascii_lowercase()
            };
            if other != s && !symbols.contains(&other) {
                table[usize::from(other)] = code as u8;
            }
        }
        table
    }

    /// The codes of `text`, bytes outside the alphabet removed.
    pub fn encode(&self, text: &[u8]) -> Vec<u8> {
        let table = self.code_table();
        text.iter()
            .map(|&b| table[usize::from(b)])
            .filter(|&c| c != SKIP)
            .collect()
    }
}

/// A column of sequences: codes `0..alphabet_size` (one byte each) and i64 offsets,
/// in the backend's memory. Sequence `i` is `codes[offsets[i]..offsets[i + 1]]`; there
/// are no nulls (an empty sequence is a valid sequence).
///
/// ```
/// use ragged_core::ops::SequenceColumn;
/// let col = SequenceColumn::from_codes(&[vec![0, 1, 2], vec![], vec![3]], 4)?;
/// assert_eq!(col.len(), 3);
/// assert_eq!(col.sequence(0), &[0, 1, 2]);
/// assert_eq!(col.total_length(), 4);
/// # Ok::<(), ragged_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SequenceColumn<L: Location = Host> {
    codes: L::Buffer<u8>,
    offsets: L::Buffer<i64>,
    alphabet_size: usize,
}

impl<L: Location> SequenceColumn<L> {
    /// A column from buffers the caller guarantees valid.
    ///
    /// # Safety
    /// `offsets` is non-empty, non-decreasing, starts at or above 0 and ends at or
    /// below `codes.len()`; every code inside the sequences is below `alphabet_size`,
    /// which is 1 to 255. Kernels index tables by code without a check.
    pub unsafe fn new_unchecked(
        codes: L::Buffer<u8>,
        offsets: L::Buffer<i64>,
        alphabet_size: usize,
    ) -> Self {
        Self {
            codes,
            offsets,
            alphabet_size,
        }
    }

    /// Number of sequences.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the column holds no sequence.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The codes buffer.
    pub fn codes(&self) -> &L::Buffer<u8> {
        &self.codes
    }

    /// The offsets buffer (`len() + 1` elements).
    pub fn offsets(&self) -> &L::Buffer<i64> {
        &self.offsets
    }

    /// The alphabet size `A`: every code is below it.
    pub fn alphabet_size(&self) -> usize {
        self.alphabet_size
    }
}

impl SequenceColumn<Host> {
    /// A column from host buffers, checked: the offsets as Arrow offsets over the codes,
    /// and every code inside a sequence below `alphabet_size`.
    ///
    /// # Errors
    /// [`Error::InvalidOffsets`] naming the first bad offset; [`Error::InvalidArgument`]
    /// (op `SequenceColumn`) for an alphabet size outside 1..=255 or naming the first
    /// code out of range.
    pub fn try_new(
        codes: ScalarBuffer<u8>,
        offsets: ScalarBuffer<i64>,
        alphabet_size: usize,
    ) -> Result<Self> {
        if alphabet_size == 0 || alphabet_size > usize::from(SKIP) {
            return Err(Error::invalid_argument(
                "SequenceColumn",
                format!("alphabet size {alphabet_size} is outside 1..=255"),
            ));
        }
        if offsets.is_empty() {
            return Err(Error::InvalidOffsets {
                index: 0,
                problem: crate::OffsetsProblem::Empty,
            });
        }
        crate::column::validate_offsets(&offsets, codes.len())?;
        let (first, last) = (offsets[0] as usize, offsets[offsets.len() - 1] as usize);
        if let Some(bad) = codes[first..last]
            .iter()
            .position(|&c| usize::from(c) >= alphabet_size)
        {
            return Err(Error::invalid_argument(
                "SequenceColumn",
                format!(
                    "code {} at position {} is not below the alphabet size {alphabet_size}",
                    codes[first + bad],
                    first + bad
                ),
            ));
        }
        Ok(Self {
            codes,
            offsets,
            alphabet_size,
        })
    }

    /// A column of the given code sequences.
    ///
    /// # Errors
    /// As [`SequenceColumn::try_new`].
    pub fn from_codes(sequences: &[Vec<u8>], alphabet_size: usize) -> Result<Self> {
        let mut offsets = Vec::with_capacity(sequences.len() + 1);
        offsets.push(0i64);
        let mut codes = Vec::new();
        for s in sequences {
            codes.extend_from_slice(s);
            offsets.push(codes.len() as i64);
        }
        Self::try_new(codes.into(), offsets.into(), alphabet_size)
    }

    /// The codes of sequence `i` (empty when out of range).
    pub fn sequence(&self, i: usize) -> &[u8] {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.codes[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The number of codes over all sequences.
    pub fn total_length(&self) -> usize {
        match (self.offsets.first(), self.offsets.last()) {
            (Some(&a), Some(&b)) => (b - a) as usize,
            _ => 0,
        }
    }

    /// Sequences `offset..offset + len` as a column of their own: the codes buffer is
    /// shared (zero-copy), the offsets rebased to start at 0, nothing validated again.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the range is out of bounds.
    ///
    /// ```
    /// use ragged_core::ops::SequenceColumn;
    /// let col = SequenceColumn::from_codes(&[vec![0, 1], vec![2], vec![3, 3]], 4)?;
    /// let tail = col.slice(1, 2)?;
    /// assert_eq!(tail.offsets().as_ref(), &[0, 1, 3]);
    /// assert_eq!(tail.sequence(1), &[3, 3]);
    /// # Ok::<(), ragged_core::Error>(())
    /// ```
    pub fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        if offset.checked_add(len).is_none_or(|end| end > self.len()) {
            return Err(Error::invalid_argument(
                "SequenceColumn::slice",
                format!(
                    "range {offset}..{offset}+{len} is out of bounds for {} sequences",
                    self.len()
                ),
            ));
        }
        let window = &self.offsets[offset..=offset + len];
        let (first, last) = (window[0], window[len]);
        let offsets: Vec<i64> = window.iter().map(|o| o - first).collect();
        let codes = self.codes.slice(first as usize, (last - first) as usize);
        // SAFETY: a window of valid offsets, rebased to the start of the codes it covers
        // (sliced to exactly those codes): still valid offsets over codes below the
        // alphabet size.
        Ok(unsafe { Self::new_unchecked(codes, offsets.into(), self.alphabet_size) })
    }

    /// As an Arrow `LargeList<UInt8>` array (zero-copy codes, offsets rebased to 0).
    pub fn to_arrow(&self) -> ArrayRef {
        let whole = match self.slice(0, self.len()) {
            Ok(whole) => whole,
            // 0..len is always in bounds.
            Err(_) => self.clone(),
        };
        let field = Arc::new(Field::new("item", DataType::UInt8, false));
        // SAFETY: the offsets were validated at construction and are rebased to 0.
        let offsets = unsafe { OffsetBuffer::new_unchecked(whole.offsets.clone()) };
        Arc::new(LargeListArray::new(
            field,
            offsets,
            Arc::new(UInt8Array::new(whole.codes, None)),
            None,
        ))
    }
}

/// The hash and sign tables of a Tensor Sketch: for each level `p = 1..=t` and code
/// `c < A`, `h_p(c) ∈ [0, D)` and `s_p(c) ∈ {−1, +1}`.
///
/// Drawn reproducibly from a seed ([`SketchTables::from_seed`]) or given explicitly
/// ([`SketchTables::new`]) to match another implementation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SketchTables {
    t: usize,
    dim: usize,
    alphabet_size: usize,
    hashes: Vec<u32>,
    signs: Vec<i8>,
}

impl SketchTables {
    /// Tables given explicitly: `hashes[p][c]` and `signs[p][c]` for level `p + 1`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] (op `tensor_sketch`) for `t` outside
    /// `1..=`[`MAX_SKETCH_LENGTH`], `dim` outside `1..=`[`MAX_SKETCH_DIM`], an alphabet
    /// size outside 1..=255, tables of the wrong shape, a hash not below `dim` or a
    /// sign other than ±1.
    pub fn new(dim: usize, hashes: Vec<Vec<u32>>, signs: Vec<Vec<i8>>) -> Result<Self> {
        let bad = |m: String| Error::invalid_argument("tensor_sketch", m);
        let t = hashes.len();
        let alphabet_size = hashes.first().map_or(0, Vec::len);
        check_shape(t, dim, alphabet_size)?;
        if signs.len() != t {
            return Err(bad(format!(
                "{} sign rows for {t} hash rows (one per level)",
                signs.len()
            )));
        }
        for (p, (h, s)) in hashes.iter().zip(&signs).enumerate() {
            if h.len() != alphabet_size || s.len() != alphabet_size {
                return Err(bad(format!(
                    "level {}: {} hashes and {} signs, expected {alphabet_size} of each",
                    p + 1,
                    h.len(),
                    s.len()
                )));
            }
            if let Some(c) = h.iter().position(|&v| v as usize >= dim) {
                return Err(bad(format!(
                    "level {}: hash {} of code {c} is not below the dimension {dim}",
                    p + 1,
                    h[c]
                )));
            }
            if let Some(c) = s.iter().position(|&v| v != 1 && v != -1) {
                return Err(bad(format!(
                    "level {}: sign {} of code {c} is not +1 or -1",
                    p + 1,
                    s[c]
                )));
            }
        }
        Ok(Self {
            t,
            dim,
            alphabet_size,
            hashes: hashes.concat(),
            signs: signs.concat(),
        })
    }

    /// Tables drawn from `seed` with SplitMix64: for each level `p = 1..=t` in order,
    /// for each code `c = 0..A`: `h_p(c) = (x >> 32) · D >> 32` of the next draw `x`,
    /// then `s_p(c) = +1` when the next draw is even, `−1` when odd.
    ///
    /// # Errors
    /// As [`SketchTables::new`] for the shape.
    ///
    /// ```
    /// use ragged_core::ops::SketchTables;
    /// let a = SketchTables::from_seed(4, 96, 4, 7)?;
    /// assert_eq!(a, SketchTables::from_seed(4, 96, 4, 7)?);
    /// assert!(a.hash(1, 2) < 96);
    /// assert_eq!(a.sign(4, 3).abs(), 1);
    /// # Ok::<(), ragged_core::Error>(())
    /// ```
    pub fn from_seed(t: usize, dim: usize, alphabet_size: usize, seed: u64) -> Result<Self> {
        check_shape(t, dim, alphabet_size)?;
        let mut state = seed;
        let mut next = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut hashes = Vec::with_capacity(t * alphabet_size);
        let mut signs = Vec::with_capacity(t * alphabet_size);
        for _ in 0..t {
            for _ in 0..alphabet_size {
                hashes.push((((next() >> 32) * dim as u64) >> 32) as u32);
                signs.push(if next() & 1 == 0 { 1 } else { -1 });
            }
        }
        Ok(Self {
            t,
            dim,
            alphabet_size,
            hashes,
            signs,
        })
    }

    /// The sub-sequence length `t`.
    pub fn t(&self) -> usize {
        self.t
    }

    /// The dimension `D`.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The alphabet size `A`.
    pub fn alphabet_size(&self) -> usize {
        self.alphabet_size
    }

    /// `h_p(c)` for level `p` in `1..=t` (0 outside the tables).
    pub fn hash(&self, p: usize, c: usize) -> usize {
        self.index(p, c).map_or(0, |i| self.hashes[i] as usize)
    }

    /// `s_p(c)` for level `p` in `1..=t` (0 outside the tables).
    pub fn sign(&self, p: usize, c: usize) -> i32 {
        self.index(p, c).map_or(0, |i| i32::from(self.signs[i]))
    }

    fn index(&self, p: usize, c: usize) -> Option<usize> {
        (p >= 1 && p <= self.t && c < self.alphabet_size).then(|| (p - 1) * self.alphabet_size + c)
    }

    /// The hash rows, one per level (`hashes[p - 1][c]`).
    pub fn hash_rows(&self) -> Vec<Vec<u32>> {
        self.hashes
            .chunks(self.alphabet_size)
            .map(<[u32]>::to_vec)
            .collect()
    }

    /// The sign rows, one per level (`signs[p - 1][c]`).
    pub fn sign_rows(&self) -> Vec<Vec<i8>> {
        self.signs
            .chunks(self.alphabet_size)
            .map(<[i8]>::to_vec)
            .collect()
    }
}

fn check_shape(t: usize, dim: usize, alphabet_size: usize) -> Result<()> {
    let bad = |m: String| Err(Error::invalid_argument("tensor_sketch", m));
    if t == 0 || t > MAX_SKETCH_LENGTH {
        return bad(format!("t = {t} is outside 1..={MAX_SKETCH_LENGTH}"));
    }
    if dim == 0 || dim > MAX_SKETCH_DIM {
        return bad(format!("dimension {dim} is outside 1..={MAX_SKETCH_DIM}"));
    }
    if alphabet_size == 0 || alphabet_size > usize::from(SKIP) {
        return bad(format!("alphabet size {alphabet_size} is outside 1..=255"));
    }
    Ok(())
}

/// Validated Tensor Sketch parameters, built once per call: the tables, their phase
/// table in the Fourier domain, and the chunk length bound.
///
/// ```
/// use ragged_core::ops::{SketchPlan, SketchTables};
/// let plan = SketchPlan::new(SketchTables::from_seed(4, 96, 4, 1)?);
/// assert_eq!(plan.frequencies(), 49);
/// assert_eq!(plan.phases().len(), 4 * 4 * 49);
/// # Ok::<(), ragged_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SketchPlan {
    tables: SketchTables,
    phases: Vec<[f32; 2]>,
    chunk_length: Option<usize>,
}

impl SketchPlan {
    /// The plan of `tables`, with the backend's own chunk length.
    pub fn new(tables: SketchTables) -> Self {
        let (t, dim, a) = (tables.t, tables.dim, tables.alphabet_size);
        let k_count = dim / 2 + 1;
        let mut phases = Vec::with_capacity(a * t * k_count);
        for c in 0..a {
            for p in 1..=t {
                let (h, s) = (tables.hash(p, c), f64::from(tables.sign(p, c)));
                for k in 0..k_count {
                    // exp(−2πi·h·k/D), the angle reduced exactly before the f64 cos/sin.
                    let angle = -2.0 * std::f64::consts::PI * ((h * k) % dim) as f64 / dim as f64;
                    phases.push([(s * angle.cos()) as f32, (s * angle.sin()) as f32]);
                }
            }
        }
        Self {
            tables,
            phases,
            chunk_length: None,
        }
    }

    /// The same plan with chunks of at most `length` codes (at least 1; capped at
    /// [`SketchPlan::max_chunk_length`]). Results do not depend on it beyond rounding;
    /// tests set small values so that every way of combining chunks runs.
    pub fn with_chunk_length(mut self, length: usize) -> Self {
        self.chunk_length = Some(length.max(1));
        self
    }

    /// The tables.
    pub fn tables(&self) -> &SketchTables {
        &self.tables
    }

    /// `t`.
    pub fn t(&self) -> usize {
        self.tables.t
    }

    /// `D`.
    pub fn dim(&self) -> usize {
        self.tables.dim
    }

    /// `A`.
    pub fn alphabet_size(&self) -> usize {
        self.tables.alphabet_size
    }

    /// The number of frequencies kept, `K = D / 2 + 1` (the rest are conjugates).
    pub fn frequencies(&self) -> usize {
        self.tables.dim / 2 + 1
    }

    /// `a_p(c)[k] = s_p(c)·exp(−2πi·h_p(c)·k / D)` as `[re, im]`, laid out
    /// `[c][p − 1][k]` (`A × t × K` entries).
    pub fn phases(&self) -> &[[f32; 2]] {
        &self.phases
    }

    /// Whether the sketch is computed from sub-sequence pattern counts (module
    /// documentation): `A ≤ 4` and `t ≤ 4`.
    pub fn by_counts(&self) -> bool {
        self.alphabet_size() <= COUNT_RADIX && self.t() <= MAX_COUNT_LENGTH
    }

    /// The projection of the count method, grouped by output entry: `D + 1` starts,
    /// then for each entry `e` its patterns of length `t` (those with every code below
    /// `A`, in increasing index order, see [`count_base`]), each as
    /// `sign · (index + 1)`. Entry `e` of a sketch is
    /// `Σ sign · N(index) / C(n, t)` over `entries[D + 1 + entries[e]..D + 1 + entries[e + 1]]`.
    pub fn count_entries(&self) -> Vec<i32> {
        let (t, dim, a) = (self.t(), self.dim(), self.alphabet_size());
        let tables = &self.tables;
        let mut by_entry: Vec<Vec<i32>> = vec![Vec::new(); dim];
        'patterns: for index in 0..COUNT_RADIX.pow(t as u32) {
            let (mut entry, mut sign) = (0usize, 1i32);
            for p in 1..=t {
                let c = (index >> (2 * (p - 1))) & 3;
                if c >= a {
                    continue 'patterns;
                }
                entry += tables.hash(p, c);
                sign *= tables.sign(p, c);
            }
            by_entry[entry % dim].push(sign * (index as i32 + 1));
        }
        let mut entries = Vec::with_capacity(dim + 1 + COUNT_RADIX.pow(t as u32));
        entries.push(0);
        for list in &by_entry {
            entries.push(entries[entries.len() - 1] + list.len() as i32);
        }
        entries.extend(by_entry.into_iter().flatten());
        entries
    }

    /// The chunk length asked for with [`SketchPlan::with_chunk_length`], if any.
    pub fn chunk_length(&self) -> Option<usize> {
        self.chunk_length
    }

    /// The longest chunk whose unnormalized sums stay below 2^100 (`C(L, t)`, far from
    /// float32's 2^128), at most 2^26 codes. Rounding does not grow with the length:
    /// the backends accumulate in blocks added to compensated totals.
    pub fn max_chunk_length(&self) -> usize {
        let t = self.t();
        let limit = 100.0 * std::f64::consts::LN_2;
        let mut length = 1usize << 26;
        while length > t && ln_choose(length as u64, t as u64) > limit {
            length = length * 7 / 8;
        }
        length.max(1)
    }

    /// The chunk length for a column of `total` codes: the one asked for, or
    /// `total / target_chunks` (at least 1024), capped by
    /// [`SketchPlan::max_chunk_length`].
    pub fn chunk_length_for(&self, total: usize, target_chunks: usize) -> usize {
        let wanted = self
            .chunk_length
            .unwrap_or_else(|| (total / target_chunks.max(1)).max(1024));
        wanted.clamp(1, self.max_chunk_length())
    }
}

/// `ln C(n, k)` (`−∞` when `k > n`), as a sum of `k` logarithms: exact enough for the
/// ratios of [`finish_sketch`] and the same on every backend.
pub fn ln_choose(n: u64, k: u64) -> f64 {
    if k > n {
        return f64::NEG_INFINITY;
    }
    let k = k.min(n - k);
    (0..k)
        .map(|j| ((n - j) as f64).ln() - ((j + 1) as f64).ln())
        .sum()
}

/// One unit of parallel work of a Tensor Sketch: a chunk of one sequence, processed
/// forward from a start level or backward (see the module documentation). Shared with
/// the CUDA kernels (`#[repr(C)]`, 32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SketchItem {
    /// The chunk's first code, as a position in the codes buffer.
    pub start: i64,
    /// The chunk's length in codes.
    pub len: i64,
    /// `q ≥ 0`: forward from level `q` (outputs `V_{q,p}` for `p = q..=t`);
    /// [`SketchItem::BACKWARD`]: backward (outputs `V_{q,t}` for `q = 0..t`).
    pub level: i32,
    /// Unused; keeps the layout 8-byte aligned.
    pub pad: i32,
    /// The item's output slot (`t + 1` rows of `K` complex values).
    pub slot: i64,
}

impl SketchItem {
    /// [`SketchItem::level`] of a backward item.
    pub const BACKWARD: i32 = -1;
}

/// The work items of one sketch call, in slot order, and where each sequence's items
/// begin: sequence `i`'s items are `items[first[i]..first[i + 1]]`, in this order —
/// its first chunk forward from level 0; each middle chunk forward from levels
/// `0..t`; its last chunk (when there are two or more) backward.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SketchLayout {
    /// Every item; `items[j].slot == j`.
    pub items: Vec<SketchItem>,
    /// `len + 1` item positions, one run of items per sequence.
    pub first: Vec<i64>,
}

/// Cut every sequence (host offsets, possibly not starting at 0) into chunks of at
/// most `chunk_length` codes of near-equal length, and list their items (see
/// [`SketchLayout`]). A sequence of `n` codes has `max(1, ceil(n / chunk_length))`
/// chunks; an empty sequence one empty chunk.
pub fn sketch_layout(offsets: &[i64], t: usize, chunk_length: usize) -> SketchLayout {
    cut_sequences(offsets, chunk_length, |chunk, chunks| {
        if chunk == 0 {
            0..1
        } else if chunk + 1 == chunks {
            SketchItem::BACKWARD..SketchItem::BACKWARD + 1
        } else {
            0..t as i32
        }
    })
}

/// Cut every sequence into `max(1, ceil(n / chunk_length))` chunks of near-equal length
/// and list one item per level of `levels(chunk, chunks)` for each, in order (the
/// layouts of both methods).
fn cut_sequences(
    offsets: &[i64],
    chunk_length: usize,
    levels: impl Fn(i64, i64) -> std::ops::Range<i32>,
) -> SketchLayout {
    let chunk_length = chunk_length.max(1) as i64;
    let mut layout = SketchLayout {
        items: Vec::new(),
        first: Vec::with_capacity(offsets.len()),
    };
    layout.first.push(0);
    for w in offsets.windows(2) {
        let (mut at, n) = (w[0], w[1] - w[0]);
        let chunks = ((n + chunk_length - 1) / chunk_length).max(1);
        let (base, extra) = (n / chunks, n % chunks);
        for chunk in 0..chunks {
            let len = base + i64::from(chunk < extra);
            for level in levels(chunk, chunks) {
                let slot = layout.items.len() as i64;
                layout.items.push(SketchItem {
                    start: at,
                    len,
                    level,
                    pad: 0,
                    slot,
                });
            }
            at += len;
        }
        layout.first.push(layout.items.len() as i64);
    }
    layout
}

/// The code radix of the count method: patterns are indexed in base 4.
pub const COUNT_RADIX: usize = 4;
/// The largest `t` of the count method.
pub const MAX_COUNT_LENGTH: usize = 4;

/// Counts per chunk of the count method: every pattern of length `1..=t`,
/// `(4^(t+1) − 4) / 3` (340 at `t = 4`).
pub fn count_patterns(t: usize) -> usize {
    count_base(t + 1)
}

/// Where the patterns of length `p ≥ 1` begin among a chunk's counts,
/// `(4^p − 4) / 3`. Pattern `c_1..c_p` (`c_1` first in the sequence) has index
/// `Σ_i c_i·4^(i−1)`: its prefix of length `s` is `index mod 4^s`, its suffix from
/// `s` is `index >> 2s`.
pub fn count_base(p: usize) -> usize {
    ((1usize << (2 * p)) - 4) / 3
}

/// Cut every sequence into chunks of at most `chunk_length` codes of near-equal
/// length, each one forward item from level 0 (the count method: sequence `i`'s
/// chunks are `items[first[i]..first[i + 1]]`, in order). A sequence of `n` codes has
/// `max(1, ceil(n / chunk_length))` chunks; an empty sequence one empty chunk.
pub fn count_layout(offsets: &[i64], chunk_length: usize) -> SketchLayout {
    cut_sequences(offsets, chunk_length, |_, _| 0..1)
}

/// The counts of every pattern of length `1..=t` (`t ≤ 4`) occurring as a
/// sub-sequence of `codes` (each below 4), into `out` ([`count_patterns`] values laid
/// out by [`count_base`]). Per code `c`, from the top level down, the patterns ending in
/// `c` grow by the counts of their prefixes; each level is its own fixed array, so that
/// a level's update is one loop over disjoint arrays, which vectorizes (the CPU backend
/// inlines this into an AVX2 variant). The CUDA `sketch_counts_<t>` kernel computes the
/// same values, one warp per chunk.
#[inline(always)]
pub fn count_chunk(codes: &[u8], t: usize, out: &mut [f64]) {
    match t {
        1 => count_levels::<1>(codes, out),
        2 => count_levels::<2>(codes, out),
        3 => count_levels::<3>(codes, out),
        _ => count_levels::<4>(codes, out),
    }
}

/// `dst[i] += src[i]`.
#[inline(always)]
fn add_level(dst: &mut [f64], src: &[f64]) {
    dst.iter_mut().zip(src).for_each(|(d, s)| *d += s);
}

/// [`count_chunk`] for `T` levels.
#[inline(always)]
fn count_levels<const T: usize>(codes: &[u8], out: &mut [f64]) {
    let (mut n1, mut n2, mut n3, mut n4) = ([0f64; 4], [0f64; 16], [0f64; 64], [0f64; 256]);
    for &c in codes {
        let c = usize::from(c & 3);
        if T >= 4 {
            add_level(&mut n4[c * 64..c * 64 + 64], &n3);
        }
        if T >= 3 {
            add_level(&mut n3[c * 16..c * 16 + 16], &n2);
        }
        if T >= 2 {
            add_level(&mut n2[c * 4..c * 4 + 4], &n1);
        }
        n1[c] += 1.0;
    }
    let levels: [&[f64]; 4] = [&n1, &n2, &n3, &n4];
    for (p, level) in levels.iter().enumerate().take(T) {
        out[count_base(p + 1)..count_base(p + 2)].copy_from_slice(level);
    }
}

/// Combine one sequence's chunk counts into its sketch (`out`, `D` values), the count
/// method's finish: the chunks in order (`items`, with `raw[slot·P..(slot + 1)·P]`
/// the counts of item `slot`, `P` = [`count_patterns`]), then each entry's patterns
/// from [`SketchPlan::count_entries`] divided by `C(n, t)`. The CUDA
/// `sketch_counts_finish` kernel is this function with the same order of operations.
pub fn finish_counts(
    plan: &SketchPlan,
    entries: &[i32],
    items: &[SketchItem],
    raw: &[f64],
    out: &mut [f32],
) {
    let (t, dim) = (plan.t(), plan.dim());
    let patterns = count_patterns(t);
    let mut state = vec![0f64; patterns];
    let mut next = vec![0f64; patterns];
    let mut n = 0i64;
    for (at, item) in items.iter().enumerate() {
        let chunk = &raw[item.slot as usize * patterns..(item.slot as usize + 1) * patterns];
        if at == 0 {
            state.copy_from_slice(chunk);
        } else {
            for p in 1..=t {
                for index in 0..1usize << (2 * p) {
                    let i = count_base(p) + index;
                    let mut acc = chunk[i] + state[i];
                    for split in 1..p {
                        let prefix = index & ((1 << (2 * split)) - 1);
                        let suffix = index >> (2 * split);
                        acc += state[count_base(split) + prefix]
                            * chunk[count_base(p - split) + suffix];
                    }
                    next[i] = acc;
                }
            }
            std::mem::swap(&mut state, &mut next);
        }
        n += item.len;
    }
    let mut norm = 1.0f64;
    for i in 0..t as i64 {
        norm = norm * (n - i) as f64 / (i + 1) as f64;
    }
    let top = &state[count_base(t)..];
    let list = &entries[dim + 1..];
    for (e, value) in out.iter_mut().enumerate() {
        let mut acc = 0.0f64;
        if n >= t as i64 && !items.is_empty() {
            for &v in &list[entries[e] as usize..entries[e + 1] as usize] {
                acc += if v > 0 {
                    top[(v - 1) as usize]
                } else {
                    -top[(-v - 1) as usize]
                };
            }
            acc /= norm;
        }
        *value = acc as f32;
    }
}

/// Combine the raw chunk results of one sequence into its sketch (`out`, `D` values):
/// the f64 chunk combination with its normalization, then the inverse transform of
/// `T_t`. `items` are the sequence's items (in [`SketchLayout`] order) and `raw` the
/// whole result table, `raw[(slot·(t + 1) + p)·K + k]` the unnormalized value of row
/// `p` of item `slot` at frequency `k`. The CUDA `sketch_finish` kernel is this
/// function, one thread per frequency.
pub fn finish_sketch(plan: &SketchPlan, items: &[SketchItem], raw: &[[f32; 2]], out: &mut [f32]) {
    let (t, dim, k_count) = (plan.t(), plan.dim(), plan.frequencies());
    let row = |slot: i64, p: usize, k: usize| {
        let v = raw[(slot as usize * (t + 1) + p) * k_count + k];
        (f64::from(v[0]), f64::from(v[1]))
    };
    let mut spectrum = vec![(0.0f64, 0.0f64); k_count];
    let mut state = vec![(0.0f64, 0.0f64); t + 1];
    let mut next = vec![(0.0f64, 0.0f64); t + 1];
    for (k, value) in spectrum.iter_mut().enumerate() {
        let Some(first) = items.first() else {
            break;
        };
        // The first chunk: T_p = V_{0,p} / C(a, p).
        let mut a = first.len as u64;
        for (p, s) in state.iter_mut().enumerate() {
            let norm = ln_choose(a, p as u64);
            *s = if norm.is_finite() {
                scale(row(first.slot, p, k), -norm)
            } else {
                (0.0, 0.0)
            };
        }
        state[0] = (1.0, 0.0);
        let mut rest = &items[1..];
        // Middle chunks: t items each, forward from q = 0..t.
        while rest.len() > 1 {
            let (chunk, tail) = rest.split_at(t);
            let m = chunk[0].len as u64;
            let n = a + m;
            for (p, slot) in next.iter_mut().enumerate() {
                let norm = ln_choose(n, p as u64);
                let mut acc = (0.0, 0.0);
                for q in 0..=p.min(a as usize) {
                    let v = if q == p {
                        (1.0, 0.0)
                    } else {
                        row(chunk[q].slot, p, k)
                    };
                    let w = ln_choose(a, q as u64) - norm;
                    acc = add(acc, scale(mul(state[q], v), w));
                }
                *slot = if norm.is_finite() { acc } else { (0.0, 0.0) };
            }
            std::mem::swap(&mut state, &mut next);
            a = n;
            rest = tail;
        }
        // The last chunk, backward: T_t = Σ_q C(a, q) / C(a + b, t) · T_q · R_q.
        *value = match rest.first() {
            None => state[t],
            Some(last) => {
                let n = a + last.len as u64;
                let norm = ln_choose(n, t as u64);
                if norm.is_finite() {
                    (0..=t.min(a as usize)).fold((0.0, 0.0), |acc, q| {
                        let r = if q == t {
                            (1.0, 0.0)
                        } else {
                            row(last.slot, q, k)
                        };
                        add(acc, scale(mul(state[q], r), ln_choose(a, q as u64) - norm))
                    })
                } else {
                    (0.0, 0.0)
                }
            }
        };
    }
    inverse_transform(&spectrum, dim, out);
}

/// `v · e^w` (0 when `w` is −∞).
fn scale(v: (f64, f64), w: f64) -> (f64, f64) {
    if w == f64::NEG_INFINITY {
        return (0.0, 0.0);
    }
    let f = w.exp();
    (v.0 * f, v.1 * f)
}

fn mul(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

fn add(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 + b.0, a.1 + b.1)
}

/// The real signal of length `dim` whose transform has the frequencies
/// `spectrum[0..=dim/2]` (the others are their conjugates):
/// `x[j] = (1/D)·Σ_k X[k]·exp(2πi·j·k / D)`.
fn inverse_transform(spectrum: &[(f64, f64)], dim: usize, out: &mut [f32]) {
    for (j, x) in out.iter_mut().enumerate().take(dim) {
        let mut acc = spectrum[0].0;
        for (k, &(re, im)) in spectrum.iter().enumerate().skip(1) {
            let angle = 2.0 * std::f64::consts::PI * ((j * k) % dim) as f64 / dim as f64;
            let term = re * angle.cos() - im * angle.sin();
            // The Nyquist frequency of an even D has no conjugate partner.
            acc += if 2 * k == dim { term } else { 2.0 * term };
        }
        *x = (acc / dim as f64) as f32;
    }
}

/// Sketches: `len` rows of `dim` float32 values, row-major, in the backend's memory
/// (Arrow `FixedSizeList<Float32>[dim]`).
#[derive(Clone, Debug)]
pub struct SketchColumn<L: Location = Host> {
    values: L::Buffer<f32>,
    dim: usize,
}

impl<L: Location> SketchColumn<L> {
    /// Sketches from `values` (`rows × dim`, row-major).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `dim` is 0 or does not divide the length.
    pub fn try_new(values: L::Buffer<f32>, dim: usize) -> Result<Self> {
        if dim == 0 || values.len() % dim != 0 {
            return Err(Error::invalid_argument(
                "SketchColumn",
                format!("{} values are not rows of dimension {dim}", values.len()),
            ));
        }
        Ok(Self { values, dim })
    }

    /// Number of sketches.
    pub fn len(&self) -> usize {
        self.values.len() / self.dim
    }

    /// Whether there is no sketch.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The dimension `D`.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The values, `len() × dim()` row-major.
    pub fn values(&self) -> &L::Buffer<f32> {
        &self.values
    }
}

impl SketchColumn<Host> {
    /// Sketch `i` (empty when out of range).
    pub fn row(&self, i: usize) -> &[f32] {
        self.values
            .get(i * self.dim..(i + 1) * self.dim)
            .unwrap_or(&[])
    }

    /// As an Arrow `FixedSizeList<Float32>[dim]` array (zero-copy).
    pub fn to_arrow(&self) -> ArrayRef {
        let field = Arc::new(Field::new("item", DataType::Float32, false));
        Arc::new(FixedSizeListArray::new(
            field,
            self.dim as i32,
            Arc::new(Float32Array::new(self.values.clone(), None)),
            None,
        ))
    }
}

/// Squared L2 distances between two sets of sketches: `rows × cols` float32 values,
/// row-major (`values[i·cols + j]` is the distance of query `i` to reference `j`).
#[derive(Clone, Debug)]
pub struct DistanceMatrix<L: Location = Host> {
    values: L::Buffer<f32>,
    rows: usize,
    cols: usize,
}

impl<L: Location> DistanceMatrix<L> {
    /// A matrix from `values` (`rows × cols`, row-major).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the length is not `rows × cols`.
    pub fn try_new(values: L::Buffer<f32>, rows: usize, cols: usize) -> Result<Self> {
        if rows.checked_mul(cols) != Some(values.len()) {
            return Err(Error::LengthMismatch {
                op: "DistanceMatrix",
                what: "values",
                expected: rows.saturating_mul(cols),
                actual: values.len(),
            });
        }
        Ok(Self { values, rows, cols })
    }

    /// Number of rows (queries).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns (references).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The values, row-major.
    pub fn values(&self) -> &L::Buffer<f32> {
        &self.values
    }
}

impl DistanceMatrix<Host> {
    /// The distance of query `i` to reference `j` (`None` when out of range).
    pub fn get(&self, i: usize, j: usize) -> Option<f32> {
        (i < self.rows && j < self.cols).then(|| self.values[i * self.cols + j])
    }
}

/// The sequences family: Tensor Sketch embeddings and the distances between them.
pub trait SequenceOps: Memory {
    /// The Tensor Sketch of every sequence (module documentation): a row of `D`
    /// float32 values per sequence, within float32 rounding of the defining recurrence
    /// evaluated exactly (the testkit bounds the relative L2 error by 1e-4 against a
    /// float64 evaluation). A sequence shorter than `t` sketches to zeros.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the column's alphabet size is not the plan's;
    /// [`Error::OutOfMemory`] and [`Error::Device`] on the GPU.
    ///
    /// # Example
    /// ```text
    /// let plan = SketchPlan::new(SketchTables::from_seed(4, 96, 4, 1)?);
    /// let sketches = backend.tensor_sketch(&sequences, &plan)?;
    /// ```
    fn tensor_sketch(
        &self,
        sequences: &SequenceColumn<Self::Loc>,
        plan: &SketchPlan,
    ) -> Result<SketchColumn<Self::Loc>>;

    /// [`SequenceOps::tensor_sketch`] of sequences in host memory, the sketches
    /// returned in host memory: what uploading the column, sketching it and
    /// downloading the sketches gives, which is what this default does. The CUDA
    /// backend overrides it to upload the codes while the sketch already runs (its
    /// kernel then reads them in other pieces, so the last bits of a value may differ
    /// from `tensor_sketch`'s; both hold the same accuracy bound).
    ///
    /// # Errors
    /// As [`SequenceOps::tensor_sketch`].
    fn tensor_sketch_host(
        &self,
        sequences: &SequenceColumn<Host>,
        plan: &SketchPlan,
    ) -> Result<SketchColumn<Host>> {
        let on_device = self.to_device_sequences(sequences)?;
        let sketches = self.tensor_sketch(&on_device, plan)?;
        self.to_host_sketches(&sketches)
    }

    /// Squared L2 distances from every query sketch to every reference sketch
    /// (`references = None`: all pairs of `queries`, a symmetric matrix with a zero
    /// diagonal), accumulated in float32.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the dimensions differ or the output would not
    /// be addressable; [`Error::OutOfMemory`] and [`Error::Device`] on the GPU.
    fn pairwise_distances(
        &self,
        queries: &SketchColumn<Self::Loc>,
        references: Option<&SketchColumn<Self::Loc>>,
    ) -> Result<DistanceMatrix<Self::Loc>>;
}

/// Check the arguments of [`SequenceOps::tensor_sketch`] (both backends call it).
///
/// # Errors
/// As [`SequenceOps::tensor_sketch`].
pub fn check_sketch_args<L: Location>(
    sequences: &SequenceColumn<L>,
    plan: &SketchPlan,
) -> Result<()> {
    if sequences.alphabet_size() != plan.alphabet_size() {
        return Err(Error::invalid_argument(
            "tensor_sketch",
            format!(
                "the sequences have an alphabet of {} codes, the tables {}",
                sequences.alphabet_size(),
                plan.alphabet_size()
            ),
        ));
    }
    Ok(())
}

/// Check the arguments of [`SequenceOps::pairwise_distances`] and return the output
/// shape `(rows, cols)`.
///
/// # Errors
/// As [`SequenceOps::pairwise_distances`].
pub fn check_distance_args<L: Location>(
    queries: &SketchColumn<L>,
    references: Option<&SketchColumn<L>>,
) -> Result<(usize, usize)> {
    let references = references.unwrap_or(queries);
    if queries.dim() != references.dim() {
        return Err(Error::invalid_argument(
            "pairwise_distances",
            format!(
                "query sketches have dimension {}, reference sketches {}",
                queries.dim(),
                references.dim()
            ),
        ));
    }
    let (rows, cols) = (queries.len(), references.len());
    if rows
        .checked_mul(cols)
        .is_none_or(|n| n > isize::MAX as usize / 4)
    {
        return Err(Error::invalid_argument(
            "pairwise_distances",
            format!("{rows} × {cols} distances do not fit in memory"),
        ));
    }
    Ok((rows, cols))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_orders_items_per_sequence() {
        // lengths 0, 5, 10 with chunks of 4 and t = 2.
        let layout = sketch_layout(&[3, 3, 8, 18], 2, 4);
        let levels: Vec<i32> = layout.items.iter().map(|i| i.level).collect();
        // 0 → one empty forward chunk; 5 → 2 chunks (3, 2); 10 → 3 chunks (4, 3, 3).
        assert_eq!(levels, vec![0, 0, -1, 0, 0, 1, -1]);
        assert_eq!(layout.first, vec![0, 1, 3, 7]);
        let lens: Vec<i64> = layout.items.iter().map(|i| i.len).collect();
        assert_eq!(lens, vec![0, 3, 2, 4, 3, 3, 3]);
        let starts: Vec<i64> = layout.items.iter().map(|i| i.start).collect();
        assert_eq!(starts, vec![3, 3, 6, 8, 12, 12, 15]);
        assert!(layout
            .items
            .iter()
            .enumerate()
            .all(|(j, i)| i.slot == j as i64));
    }

    #[test]
    fn ln_choose_matches_small_binomials() {
        assert_eq!(ln_choose(5, 0), 0.0);
        assert!((ln_choose(5, 2) - 10f64.ln()).abs() < 1e-12);
        assert!((ln_choose(96, 4) - 3_321_960f64.ln()).abs() < 1e-9);
        assert_eq!(ln_choose(3, 4), f64::NEG_INFINITY);
    }

    #[test]
    fn tables_reject_bad_shapes() {
        assert!(SketchTables::from_seed(0, 96, 4, 1).is_err());
        assert!(SketchTables::from_seed(4, 0, 4, 1).is_err());
        assert!(SketchTables::new(8, vec![vec![9, 1]], vec![vec![1, 1]]).is_err());
        assert!(SketchTables::new(8, vec![vec![1, 1]], vec![vec![1, 0]]).is_err());
        assert!(SketchTables::new(8, vec![vec![1, 1]], vec![vec![1, -1]]).is_ok());
    }

    #[test]
    fn chunk_bound_keeps_sums_small() {
        for t in 1..=MAX_SKETCH_LENGTH {
            let plan = SketchPlan::new(SketchTables::from_seed(t, 8, 4, 1).unwrap_or_else(|e| {
                unreachable!("{e}");
            }));
            let l = plan.max_chunk_length();
            assert!(l >= 64, "t = {t}: chunk {l}");
            assert!(ln_choose(l as u64, t as u64) <= 100.0 * std::f64::consts::LN_2);
        }
    }

    #[test]
    fn alphabets_fold_case_unless_both_cases_are_symbols() {
        let a = Alphabet::custom(b"aA").unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(a.encode(b"aAb"), vec![0, 1]);
        assert_eq!(Alphabet::Protein.encode(b"mkX*w"), vec![10, 8, 18]);
        assert!(Alphabet::custom(b"aa").is_err());
        assert!(Alphabet::custom(b"").is_err());
        assert_eq!(Alphabet::parse("DNA").ok(), Some(Alphabet::Dna));
    }

    /// The defining recurrence in f64, in the real domain (`T_p ← (1 − z)·T_p +
    /// z·s_p(c)·shift_{h_p(c)}(T_{p−1})`).
    fn sketch_by_definition(tables: &SketchTables, codes: &[u8]) -> Vec<f64> {
        let (t, dim) = (tables.t(), tables.dim());
        let mut levels = vec![vec![0f64; dim]; t + 1];
        levels[0][0] = 1.0;
        for (i, &c) in codes.iter().enumerate() {
            for p in (1..=t.min(i + 1)).rev() {
                let z = p as f64 / (i + 1) as f64;
                let (h, sign) = (
                    tables.hash(p, usize::from(c)),
                    f64::from(tables.sign(p, usize::from(c))),
                );
                let shifted: Vec<f64> = (0..dim)
                    .map(|j| levels[p - 1][(j + dim - h) % dim])
                    .collect();
                for (v, s) in levels[p].iter_mut().zip(shifted) {
                    *v = (1.0 - z) * *v + z * sign * s;
                }
            }
        }
        levels.swap_remove(t)
    }

    #[test]
    fn counts_combined_over_any_chunking_give_the_defined_sketch() {
        let mut state = 11u64;
        let mut next = move |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        for (t, dim, a) in [(1, 5, 4), (2, 7, 3), (3, 16, 4), (4, 96, 4), (4, 9, 2)] {
            let plan = SketchPlan::new(SketchTables::from_seed(t, dim, a, 5).unwrap());
            assert!(plan.by_counts());
            let entries = plan.count_entries();
            assert_eq!(entries.len(), dim + 1 + a.pow(t as u32));
            let lengths = [0usize, 1, 3, 4, 5, 17, 40];
            let mut offsets = vec![2i64];
            let mut codes: Vec<u8> = vec![0, 0];
            for &n in &lengths {
                codes.extend((0..n).map(|_| next(a as u64) as u8));
                offsets.push(codes.len() as i64);
            }
            for chunk in [1usize, 2, 3, 7, 64] {
                let layout = count_layout(&offsets, chunk);
                let patterns = count_patterns(t);
                let mut raw = vec![0f64; layout.items.len() * patterns];
                for (item, out) in layout.items.iter().zip(raw.chunks_mut(patterns)) {
                    let range = item.start as usize..(item.start + item.len) as usize;
                    count_chunk(&codes[range], t, out);
                }
                for (s, w) in layout.first.windows(2).enumerate() {
                    let items = &layout.items[w[0] as usize..w[1] as usize];
                    let mut out = vec![0f32; dim];
                    finish_counts(&plan, &entries, items, &raw, &mut out);
                    let sequence = &codes[offsets[s] as usize..offsets[s + 1] as usize];
                    let expected = sketch_by_definition(plan.tables(), sequence);
                    for (j, (&got, want)) in out.iter().zip(expected).enumerate() {
                        assert!(
                            (f64::from(got) - want).abs() <= 1e-6 * want.abs().max(1e-3),
                            "t {t} D {dim} chunk {chunk} sequence {s} entry {j}: {got} vs {want}"
                        );
                    }
                }
            }
        }
    }
}
