//! List columns over numeric children: [`ListSpec`] → [`ListCase`].

use std::fmt;

use arrow_buffer::ScalarBuffer;
use ragged_core::{Host, ListColumn, OffsetSize, PrimitiveColumn};

use super::{cached, row_counts, validity_from, Case, CACHE_ABOVE_ROWS, SMALL_ROW_COUNTS};
use crate::native::TestNative;
use crate::rng::Rng;

/// The shape of a generated list case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListKind {
    /// About 15 % empty lists, 10 % null lists (empty ranges), 10 % null elements.
    Mixed,
    /// Null lists whose child ranges are non-empty (they must be ignored).
    NullNonEmpty,
    /// Every list null.
    AllNull,
    /// Every list valid and empty (the child is empty).
    AllEmpty,
    /// No null list, but an explicit all-valid validity bitmap.
    AllValidBitmap,
    /// A slice of a larger column: `offsets[0] != 0`, validity at a bit offset of 3.
    Sliced,
    /// Offsets into a child that is itself a slice of a larger primitive column.
    SlicedChild,
}

impl ListKind {
    /// Every kind, in enumeration order.
    pub const ALL: [ListKind; 7] = [
        ListKind::Mixed,
        ListKind::NullNonEmpty,
        ListKind::AllNull,
        ListKind::AllEmpty,
        ListKind::AllValidBitmap,
        ListKind::Sliced,
        ListKind::SlicedChild,
    ];

    /// The kind's name in case labels.
    pub fn name(self) -> &'static str {
        match self {
            ListKind::Mixed => "mixed",
            ListKind::NullNonEmpty => "null-non-empty",
            ListKind::AllNull => "all-null",
            ListKind::AllEmpty => "all-empty",
            ListKind::AllValidBitmap => "all-valid-bitmap",
            ListKind::Sliced => "sliced",
            ListKind::SlicedChild => "sliced-child",
        }
    }

    /// The row counts this kind is enumerated at: every count for `Mixed` and `Sliced`,
    /// the small ones for the others.
    pub fn row_counts(self) -> &'static [usize] {
        match self {
            ListKind::Mixed | ListKind::Sliced => row_counts(),
            _ => &SMALL_ROW_COUNTS,
        }
    }
}

/// A list input as plain values.
#[derive(Clone, Debug, PartialEq)]
pub struct ListSpec<T: TestNative> {
    /// Each list's elements (kept in the child even when the list is null) and whether
    /// the list is valid.
    pub lists: Vec<(Vec<Option<T>>, bool)>,
    /// Lists `offset..offset + len` of the built column are the case.
    pub slice: Option<(usize, usize)>,
    /// Build a validity bitmap even when every list is valid.
    pub explicit_validity: bool,
    /// Elements placed in the child before the lists' elements and sliced off the child
    /// (so the list offsets index a sliced child).
    pub child_prefix: Vec<Option<T>>,
}

impl<T: TestNative> Default for ListSpec<T> {
    fn default() -> Self {
        Self {
            lists: Vec::new(),
            slice: None,
            explicit_validity: false,
            child_prefix: Vec::new(),
        }
    }
}

impl<T: TestNative> ListSpec<T> {
    /// The spec of `kind` with `rows` lists (after slicing), from `rng`.
    pub fn generate(kind: ListKind, rows: usize, rng: &mut Rng) -> Self {
        let max_len = if rows > 4096 { 3 } else { 6 };
        let list = |rng: &mut Rng, null_percent: u32, null_elements: bool| {
            let valid = !rng.chance(null_percent);
            let len = if rng.chance(15) || (!valid && !null_elements) {
                0
            } else {
                1 + rng.index(max_len)
            };
            let elements = (0..len)
                .map(|_| (!rng.chance(10)).then(|| T::random(rng)))
                .collect();
            (elements, valid)
        };
        let mut spec = ListSpec::default();
        match kind {
            ListKind::Mixed => spec.lists = (0..rows).map(|_| list(rng, 10, false)).collect(),
            ListKind::NullNonEmpty => {
                spec.lists = (0..rows)
                    .map(|_| {
                        let (mut elements, valid) = list(rng, 30, true);
                        if !valid && elements.is_empty() {
                            elements.push(Some(T::random(rng)));
                        }
                        (elements, valid)
                    })
                    .collect();
            }
            ListKind::AllNull => spec.lists = vec![(Vec::new(), false); rows],
            ListKind::AllEmpty => spec.lists = vec![(Vec::new(), true); rows],
            ListKind::AllValidBitmap => {
                spec.lists = (0..rows).map(|_| list(rng, 0, false)).collect();
                spec.explicit_validity = true;
            }
            ListKind::Sliced => {
                let (before, after) = (3, 2);
                spec.lists = (0..before + rows + after)
                    .map(|_| list(rng, 20, true))
                    .collect();
                // The lists cut off must hold elements so that offsets[0] != 0.
                spec.lists[0] = (vec![Some(T::random(rng)), None], true);
                spec.slice = Some((before, rows));
            }
            ListKind::SlicedChild => {
                spec.lists = (0..rows).map(|_| list(rng, 10, false)).collect();
                spec.child_prefix = (0..7)
                    .map(|_| (!rng.chance(30)).then(|| T::random(rng)))
                    .collect();
            }
        }
        spec
    }

    /// The lists of the case (after slicing) as options: `None` for null lists.
    pub fn expected_rows(&self) -> Vec<Option<Vec<Option<T>>>> {
        let (start, len) = self.slice.unwrap_or((0, self.lists.len()));
        self.lists[start..start + len]
            .iter()
            .map(|(elements, valid)| valid.then(|| elements.clone()))
            .collect()
    }

    /// Build the host column (then slice it). Null child elements hold
    /// [`TestNative::garbage`].
    ///
    /// # Panics
    /// When the elements do not fit `O` or the slice is out of range: generator misuse in
    /// test code.
    pub fn build<O: OffsetSize>(&self) -> ListColumn<O, Host> {
        let elements: Vec<Option<T>> = self
            .child_prefix
            .iter()
            .copied()
            .chain(self.lists.iter().flat_map(|(e, _)| e.iter().copied()))
            .collect();
        let values: Vec<T> = elements.iter().map(|e| e.unwrap_or(T::garbage())).collect();
        let child_valid: Vec<bool> = elements.iter().map(Option::is_some).collect();
        let child = PrimitiveColumn::try_new(
            ScalarBuffer::from(values),
            validity_from(&child_valid, false),
        )
        .expect("generated child is valid");
        let prefix = self.child_prefix.len();
        let child = child.slice(prefix, elements.len() - prefix);

        let mut offsets = Vec::with_capacity(self.lists.len() + 1);
        let mut end = 0usize;
        offsets.push(O::usize_as(0));
        for (e, _) in &self.lists {
            end += e.len();
            let offset = i64::try_from(end)
                .ok()
                .and_then(O::from_i64)
                .expect("generated lists fit the offset type");
            offsets.push(offset);
        }
        let valid: Vec<bool> = self.lists.iter().map(|(_, v)| *v).collect();
        let column = ListColumn::try_new(
            ScalarBuffer::from(offsets),
            T::into_column(child),
            validity_from(&valid, self.explicit_validity),
        )
        .expect("generated list column is valid");
        match self.slice {
            Some((start, len)) => column
                .slice(start, len)
                .expect("generated slice is in range"),
            None => column,
        }
    }
}

/// One list input: the host column, its lists (the oracle's input) and a label.
#[derive(Clone)]
pub struct ListCase<O: OffsetSize, T: TestNative> {
    /// E.g. `list<i32>/sliced/rows=33`.
    pub label: String,
    /// The column under test (host memory).
    pub column: ListColumn<O, Host>,
    /// The lists as options (`None` = null list), independent of the column.
    pub rows: Vec<Option<Vec<Option<T>>>>,
}

impl<O: OffsetSize, T: TestNative> ListCase<O, T> {
    /// The case for `spec`, labelled `label`.
    ///
    /// # Panics
    /// As [`ListSpec::build`].
    pub fn from_spec(label: impl Into<String>, spec: &ListSpec<T>) -> Self {
        Self {
            label: label.into(),
            column: spec.build(),
            rows: spec.expected_rows(),
        }
    }

    /// `list<T>` or `large_list<T>`, for labels.
    pub fn type_name() -> String {
        let list = if O::OFFSET_NAME == "i32" {
            "list"
        } else {
            "large_list"
        };
        format!("{list}<{}>", T::NAME)
    }
}

impl<O: OffsetSize, T: TestNative> Case for ListCase<O, T> {
    fn label(&self) -> &str {
        &self.label
    }
    fn row_count(&self) -> usize {
        self.rows.len()
    }
}

impl<O: OffsetSize, T: TestNative> fmt::Debug for ListCase<O, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let offsets: &[O] = self.column.offsets();
        f.debug_struct("ListCase")
            .field("label", &self.label)
            .field("first_offset", &offsets.first())
            .field("rows", &self.rows)
            .finish()
    }
}

/// The case of `kind` with `rows` lists of `T`, seeded by its label.
///
/// # Panics
/// As [`ListSpec::build`].
pub fn list_case<O: OffsetSize, T: TestNative>(kind: ListKind, rows: usize) -> ListCase<O, T> {
    let label = format!(
        "{}/{}/rows={rows}",
        ListCase::<O, T>::type_name(),
        kind.name()
    );
    // The spec does not depend on the offset width: key the cache without it.
    let seed = format!("lists<{}>/{}/rows={rows}", T::NAME, kind.name());
    let make = || ListSpec::<T>::generate(kind, rows, &mut Rng::from_label(&seed));
    if rows > CACHE_ABOVE_ROWS {
        ListCase::from_spec(label, &cached(&seed, make))
    } else {
        ListCase::from_spec(label, &make())
    }
}

/// Every list case with children of `T`: each [`ListKind`] at each of its row counts.
///
/// # Panics
/// As [`ListSpec::build`].
pub fn list_cases<O: OffsetSize, T: TestNative>() -> Vec<ListCase<O, T>> {
    ListKind::ALL
        .iter()
        .flat_map(|&kind| kind.row_counts().iter().map(move |&n| list_case(kind, n)))
        .collect()
}
