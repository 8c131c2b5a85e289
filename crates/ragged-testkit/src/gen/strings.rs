//! Strings columns: [`StringSpec`] → [`StringCase`], and the enumeration of kinds.

use std::fmt;

use arrow_buffer::ScalarBuffer;
use ragged_core::{Host, OffsetSize, StringColumn};

use super::{
    cached, long_row_chars, row_counts, validity_from, Case, CACHE_ABOVE_ROWS, SMALL_ROW_COUNTS,
};
use crate::rng::Rng;

/// Which characters a generated row is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CharMix {
    /// U+0000..U+007F, one byte each.
    Ascii,
    /// U+0080..U+07FF, two bytes each.
    TwoByte,
    /// U+0800..U+FFFF without surrogates, three bytes each.
    ThreeByte,
    /// U+10000..U+10FFFF, four bytes each.
    FourByte,
    /// Half ASCII, the rest spread over 2-, 3- and 4-byte characters.
    Mixed,
    /// Only the first and last characters of each width (U+0000, U+007F, U+0080,
    /// U+07FF, U+0800, U+FFFF, U+10000, U+10FFFF).
    Boundary,
}

/// A random character of `width` UTF-8 bytes (1 to 4; other widths give ASCII).
pub fn random_char(rng: &mut Rng, width: usize) -> char {
    let code = match width {
        2 => rng.range_i64(0x80, 0x7FF),
        3 => {
            // Skip the surrogate gap U+D800..U+DFFF.
            let c = rng.range_i64(0x800, 0xFFFF - 0x800);
            if c >= 0xD800 {
                c + 0x800
            } else {
                c
            }
        }
        4 => rng.range_i64(0x1_0000, 0x10_FFFF),
        _ => rng.range_i64(0, 0x7F),
    };
    char::from_u32(code as u32).unwrap_or('?')
}

/// A random string of `0..=max_chars` characters drawn from `mix`.
pub fn random_string(rng: &mut Rng, mix: CharMix, max_chars: usize) -> String {
    let n = rng.index(max_chars + 1);
    let mut s = String::with_capacity(n);
    for _ in 0..n {
        let c = match mix {
            CharMix::Ascii => random_char(rng, 1),
            CharMix::TwoByte => random_char(rng, 2),
            CharMix::ThreeByte => random_char(rng, 3),
            CharMix::FourByte => random_char(rng, 4),
            CharMix::Mixed => {
                let width = if rng.chance(50) { 1 } else { 2 + rng.index(3) };
                random_char(rng, width)
            }
            CharMix::Boundary => {
                const EDGES: [char; 8] = [
                    '\u{0}',
                    '\u{7F}',
                    '\u{80}',
                    '\u{7FF}',
                    '\u{800}',
                    '\u{FFFF}',
                    '\u{10000}',
                    '\u{10FFFF}',
                ];
                EDGES[rng.index(EDGES.len())]
            }
        };
        s.push(c);
    }
    s
}

/// The shape of a generated strings case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringKind {
    /// Mixed-width characters, about 10 % null rows (with empty bytes) and 10 % empty
    /// rows.
    Mixed,
    /// Every row null.
    AllNull,
    /// Every row valid and empty.
    AllEmpty,
    /// ASCII only.
    Ascii,
    /// 2-byte characters only.
    TwoByte,
    /// 3-byte characters only.
    ThreeByte,
    /// 4-byte characters only.
    FourByte,
    /// The first and last character of each UTF-8 width.
    BoundaryChars,
    /// One row of mixed characters among short rows ([`super::long_row_chars`]:
    /// 100 000 unless a sanitizer run asks for fewer).
    LongRow,
    /// Null rows whose bytes are non-empty (they must be ignored).
    NullBytes,
    /// No null row, but an explicit all-valid validity bitmap.
    AllValidBitmap,
    /// A slice of a larger column: `offsets[0] != 0`, a validity bitmap starting at a
    /// bit offset of 5, null rows with non-empty bytes.
    Sliced,
}

impl StringKind {
    /// Every kind, in enumeration order.
    pub const ALL: [StringKind; 12] = [
        StringKind::Mixed,
        StringKind::AllNull,
        StringKind::AllEmpty,
        StringKind::Ascii,
        StringKind::TwoByte,
        StringKind::ThreeByte,
        StringKind::FourByte,
        StringKind::BoundaryChars,
        StringKind::LongRow,
        StringKind::NullBytes,
        StringKind::AllValidBitmap,
        StringKind::Sliced,
    ];

    /// The kind's name in case labels.
    pub fn name(self) -> &'static str {
        match self {
            StringKind::Mixed => "mixed",
            StringKind::AllNull => "all-null",
            StringKind::AllEmpty => "all-empty",
            StringKind::Ascii => "ascii",
            StringKind::TwoByte => "2-byte",
            StringKind::ThreeByte => "3-byte",
            StringKind::FourByte => "4-byte",
            StringKind::BoundaryChars => "boundary-chars",
            StringKind::LongRow => "long-row",
            StringKind::NullBytes => "null-bytes",
            StringKind::AllValidBitmap => "all-valid-bitmap",
            StringKind::Sliced => "sliced",
        }
    }

    /// The row counts this kind is enumerated at: every count for `Mixed` and `Sliced`,
    /// the small ones for the others.
    pub fn row_counts(self) -> &'static [usize] {
        match self {
            StringKind::Mixed | StringKind::Sliced => row_counts(),
            _ => &SMALL_ROW_COUNTS,
        }
    }
}

/// A strings input as plain values: each row's text and validity, and an optional
/// slice `(offset, len)` taken after building the column.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StringSpec {
    /// Each row's text (kept in the values buffer even when the row is null) and
    /// whether the row is valid.
    pub rows: Vec<(String, bool)>,
    /// Rows `offset..offset + len` of the built column are the case.
    pub slice: Option<(usize, usize)>,
    /// Build a validity bitmap even when every row is valid.
    pub explicit_validity: bool,
}

impl StringSpec {
    /// The spec of `rows`, every one valid, unsliced, without a validity bitmap.
    pub fn all_valid<S: Into<String>>(rows: impl IntoIterator<Item = S>) -> Self {
        StringSpec {
            rows: rows.into_iter().map(|r| (r.into(), true)).collect(),
            slice: None,
            explicit_validity: false,
        }
    }

    /// The spec of `kind` with `rows` rows (after slicing), from `rng`.
    pub fn generate(kind: StringKind, rows: usize, rng: &mut Rng) -> Self {
        // Large inputs get short rows to keep generation fast in debug builds.
        let max_chars = if rows > 4096 { 6 } else { 12 };
        let mut spec = StringSpec::default();
        let row = |rng: &mut Rng, mix: CharMix, null_percent: u32, null_bytes: bool| {
            let valid = !rng.chance(null_percent);
            let empty = rng.chance(10);
            let text = if (valid || null_bytes) && !empty {
                let s = random_string(rng, mix, max_chars);
                if s.is_empty() && !valid && null_bytes {
                    // A null row with bytes: make sure it has some.
                    {
                        let width = 1 + rng.index(4);
                        random_char(rng, width).to_string()
                    }
                } else {
                    s
                }
            } else {
                String::new()
            };
            (text, valid)
        };
        match kind {
            StringKind::Mixed => {
                spec.rows = (0..rows)
                    .map(|_| row(rng, CharMix::Mixed, 10, false))
                    .collect();
            }
            StringKind::AllNull => spec.rows = vec![(String::new(), false); rows],
            StringKind::AllEmpty => spec.rows = vec![(String::new(), true); rows],
            StringKind::Ascii => {
                spec.rows = (0..rows)
                    .map(|_| row(rng, CharMix::Ascii, 10, false))
                    .collect();
            }
            StringKind::TwoByte => {
                spec.rows = (0..rows)
                    .map(|_| row(rng, CharMix::TwoByte, 10, false))
                    .collect();
            }
            StringKind::ThreeByte => {
                spec.rows = (0..rows)
                    .map(|_| row(rng, CharMix::ThreeByte, 10, false))
                    .collect();
            }
            StringKind::FourByte => {
                spec.rows = (0..rows)
                    .map(|_| row(rng, CharMix::FourByte, 10, false))
                    .collect();
            }
            StringKind::BoundaryChars => {
                spec.rows = (0..rows)
                    .map(|_| row(rng, CharMix::Boundary, 10, false))
                    .collect();
            }
            StringKind::LongRow => {
                spec.rows = (0..rows)
                    .map(|_| row(rng, CharMix::Mixed, 10, false))
                    .collect();
                if rows > 0 {
                    let at = rng.index(rows);
                    let long: String = (0..long_row_chars())
                        .map(|_| {
                            let width = 1 + rng.index(4);
                            random_char(rng, width)
                        })
                        .collect();
                    spec.rows[at] = (long, true);
                }
            }
            StringKind::NullBytes => {
                spec.rows = (0..rows)
                    .map(|_| row(rng, CharMix::Mixed, 30, true))
                    .collect();
            }
            StringKind::AllValidBitmap => {
                spec.rows = (0..rows)
                    .map(|_| row(rng, CharMix::Mixed, 0, false))
                    .collect();
                spec.explicit_validity = true;
            }
            StringKind::Sliced => {
                let (before, after) = (5, 3);
                spec.rows = (0..before + rows + after)
                    .map(|_| row(rng, CharMix::Mixed, 20, true))
                    .collect();
                // The rows cut off must hold bytes so that offsets[0] != 0.
                spec.rows[0] = ("ab\u{e9}".to_string(), true);
                spec.slice = Some((before, rows));
            }
        }
        spec
    }

    /// The rows of the case (after slicing) as options: `None` for null rows.
    pub fn expected_rows(&self) -> Vec<Option<String>> {
        let (start, len) = self.slice.unwrap_or((0, self.rows.len()));
        self.rows[start..start + len]
            .iter()
            .map(|(s, valid)| valid.then(|| s.clone()))
            .collect()
    }

    /// Build the host column (then slice it).
    ///
    /// # Panics
    /// When the bytes do not fit `O` (more than 2 GiB for `i32`) or the slice is out of
    /// range: generator misuse in test code.
    pub fn build<O: OffsetSize>(&self) -> StringColumn<O, Host> {
        let total: usize = self.rows.iter().map(|(s, _)| s.len()).sum();
        let mut values = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(self.rows.len() + 1);
        offsets.push(O::usize_as(0));
        for (s, _) in &self.rows {
            values.extend_from_slice(s.as_bytes());
            let end = i64::try_from(values.len())
                .ok()
                .and_then(O::from_i64)
                .expect("generated strings fit the offset type");
            offsets.push(end);
        }
        let valid: Vec<bool> = self.rows.iter().map(|(_, v)| *v).collect();
        let column = StringColumn::try_new(
            ScalarBuffer::from(offsets),
            ScalarBuffer::from(values),
            validity_from(&valid, self.explicit_validity),
        )
        .expect("generated strings column is valid");
        match self.slice {
            Some((start, len)) => column
                .slice(start, len)
                .expect("generated slice is in range"),
            None => column,
        }
    }
}

/// One strings input: the host column, the rows it holds (the oracle's input) and a
/// label for messages.
#[derive(Clone)]
pub struct StringCase<O: OffsetSize> {
    /// E.g. `utf8/sliced/rows=257`.
    pub label: String,
    /// The column under test (host memory; the suite uploads it).
    pub column: StringColumn<O, Host>,
    /// The rows as options (`None` = null), independent of the column.
    pub rows: Vec<Option<String>>,
}

impl<O: OffsetSize> StringCase<O> {
    /// The case for `spec`, labelled `label`.
    ///
    /// # Panics
    /// As [`StringSpec::build`].
    pub fn from_spec(label: impl Into<String>, spec: &StringSpec) -> Self {
        Self {
            label: label.into(),
            column: spec.build(),
            rows: spec.expected_rows(),
        }
    }

    /// `utf8` or `large_utf8`, for labels.
    pub fn type_name() -> &'static str {
        if O::OFFSET_NAME == "i32" {
            "utf8"
        } else {
            "large_utf8"
        }
    }
}

impl<O: OffsetSize> Case for StringCase<O> {
    fn label(&self) -> &str {
        &self.label
    }
    fn row_count(&self) -> usize {
        self.rows.len()
    }
}

impl<O: OffsetSize> fmt::Debug for StringCase<O> {
    // The rows say everything; the buffers would only repeat them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let offsets: &[O] = self.column.offsets();
        f.debug_struct("StringCase")
            .field("label", &self.label)
            .field("first_offset", &offsets.first())
            .field("rows", &self.rows)
            .finish()
    }
}

/// The case of `kind` with `rows` rows, seeded by its label.
///
/// # Panics
/// As [`StringSpec::build`].
pub fn string_case<O: OffsetSize>(kind: StringKind, rows: usize) -> StringCase<O> {
    let label = format!(
        "{}/{}/rows={rows}",
        StringCase::<O>::type_name(),
        kind.name()
    );
    // The spec does not depend on the offset width: key the cache without it.
    let seed = format!("strings/{}/rows={rows}", kind.name());
    let make = || StringSpec::generate(kind, rows, &mut Rng::from_label(&seed));
    if rows > CACHE_ABOVE_ROWS {
        StringCase::from_spec(label, &cached(&seed, make))
    } else {
        StringCase::from_spec(label, &make())
    }
}

/// Every strings case: each [`StringKind`] at each of its row counts (those of this
/// process's shard when `RAGGED_TEST_SHARD` is set, [`super::in_shard`]).
///
/// # Panics
/// As [`StringSpec::build`] and [`super::shard`].
pub fn string_cases<O: OffsetSize>() -> Vec<StringCase<O>> {
    let kinds_and_rows = StringKind::ALL
        .iter()
        .flat_map(|&kind| kind.row_counts().iter().map(move |&n| (kind, n)))
        .collect();
    super::in_shard(kinds_and_rows)
        .into_iter()
        .map(|(kind, n)| string_case(kind, n))
        .collect()
}
