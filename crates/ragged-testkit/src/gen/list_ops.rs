//! Inputs of the lists family's conformance suite: list columns ([`ListModel`]) and
//! list views ([`ViewModel`]) over numeric, boolean and strings children
//! ([`ListElement`]), in the shapes the suite enumerates ([`ListShape`],
//! [`ViewShape`]).
//!
//! As everywhere in the testkit, a case is built from a model (plain Rust values), so
//! the oracles ([`crate::oracle::lists`]) compute expectations from the model, never
//! from the column.

use std::fmt;
use std::sync::Arc;

use arrow_buffer::{NullBuffer, ScalarBuffer};
use ragged_core::{
    BooleanColumn, Column, Host, ListColumn, ListViewColumn, OffsetSize, PrimitiveColumn,
    StringColumn,
};

use super::{validity_from, Case};
use crate::check::same_bits;
use crate::native::TestNative;
use crate::rng::Rng;

/// Lists as plain values: `None` is a null list.
pub type Lists<E> = Vec<Option<Vec<Option<E>>>>;

/// Which values a generated case holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueMode {
    /// [`TestNative::random`] (sums exact in any order).
    Random,
    /// Mostly `±1`, rarely `2` (and, for integers, `0`): products stay exact in any
    /// order and long lists rarely overflow.
    Tame,
    /// The edges: for integers the type's extremes, 0, `±1`; for floats NaN, `±inf`,
    /// `±0.0`, `±1`.
    Special,
}

/// An element type of a list child in the suite: the numeric types (every
/// [`TestNative`]), `bool`, [`String`] (a `Utf8` child) and [`LargeString`] (a
/// `LargeUtf8` child).
pub trait ListElement: Clone + PartialEq + fmt::Debug + Send + Sync + 'static {
    /// The name in case labels.
    const NAME: &'static str;
    /// A child column holding `values` (null slots hold garbage where the type has
    /// some), sliced so that its first `prefix` values are cut off.
    fn build_child(values: &[Option<Self>], prefix: usize) -> Column<Host>;
    /// The rows of a column of this type, `None` when the column has another type.
    fn read_column(col: &Column<Host>) -> Option<Vec<Option<Self>>>;
    /// A value of `mode`.
    fn value(rng: &mut Rng, mode: ValueMode) -> Self;
    /// Whether two values are the same (floats bit for bit, any NaN matching any NaN).
    fn same(a: &Self, b: &Self) -> bool;
}

/// The number `k` as `T` (integers exactly, floats through `f64`), `None` when it does
/// not fit.
pub fn number<T: TestNative>(k: i64) -> Option<T> {
    T::from_i128(i128::from(k)).or_else(|| T::from_f64(k as f64))
}

impl<T: TestNative> ListElement for T {
    const NAME: &'static str = <T as ragged_core::Native>::NAME;

    fn build_child(values: &[Option<Self>], prefix: usize) -> Column<Host> {
        let data: Vec<T> = values.iter().map(|v| v.unwrap_or(T::garbage())).collect();
        let valid: Vec<bool> = values.iter().map(Option::is_some).collect();
        let col = PrimitiveColumn::try_new(ScalarBuffer::from(data), validity_from(&valid, false))
            .expect("generated child is valid");
        T::into_column(col.slice(prefix, values.len() - prefix))
    }

    fn read_column(col: &Column<Host>) -> Option<Vec<Option<Self>>> {
        T::column_ref(col).map(PrimitiveColumn::to_options)
    }

    fn value(rng: &mut Rng, mode: ValueMode) -> Self {
        match mode {
            ValueMode::Random => T::random(rng),
            ValueMode::Tame => {
                let k = match rng.index(100) {
                    0 if T::EXACT => 0,
                    1 => 2,
                    2..=30 => -1,
                    _ => 1,
                };
                number::<T>(k).unwrap_or_else(|| number::<T>(1).expect("1 fits every type"))
            }
            ValueMode::Special => {
                // Finite float extremes would make sums and products depend on the
                // order of operations (MAX + MAX - MAX); floats get NaN and infinities.
                let (lo, hi) = T::extremes();
                let special = match rng.index(12) {
                    0 if T::EXACT => Some(lo),
                    1 if T::EXACT => Some(hi),
                    2 => number(0),
                    3 => number(1),
                    4 => T::from_f64(f64::NAN),
                    5 => T::from_f64(f64::INFINITY),
                    6 => T::from_f64(f64::NEG_INFINITY),
                    7 => T::from_f64(-0.0),
                    8 => number(-1),
                    _ => None,
                };
                special.unwrap_or_else(|| T::random(rng))
            }
        }
    }

    fn same(a: &Self, b: &Self) -> bool {
        same_bits(*a, *b)
    }
}

impl ListElement for bool {
    const NAME: &'static str = "bool";

    fn build_child(values: &[Option<Self>], prefix: usize) -> Column<Host> {
        // Null slots hold `true` (garbage for `all`).
        let bits: Vec<bool> = values.iter().map(|v| v.unwrap_or(true)).collect();
        let valid: Vec<bool> = values.iter().map(Option::is_some).collect();
        let len = values.len() - prefix;
        let validity = validity_from(&valid, false).map(|v| v.slice(prefix, len));
        let col = BooleanColumn::try_new(NullBuffer::from(bits).slice(prefix, len), validity)
            .expect("generated child is valid");
        Column::Boolean(col)
    }

    fn read_column(col: &Column<Host>) -> Option<Vec<Option<Self>>> {
        match col {
            Column::Boolean(c) => Some(c.to_options()),
            _ => None,
        }
    }

    fn value(rng: &mut Rng, mode: ValueMode) -> Self {
        match mode {
            // Mostly true, so that `all` is often true on short lists.
            ValueMode::Tame => !rng.chance(5),
            _ => rng.chance(50),
        }
    }

    fn same(a: &Self, b: &Self) -> bool {
        a == b
    }
}

/// Short strings of 1- to 4-byte characters (and empty ones).
fn random_text(rng: &mut Rng) -> String {
    const PIECES: [&str; 8] = [
        "",
        "a",
        "xy",
        "\u{e9}",
        "\u{65e5}\u{672c}",
        "\u{1f389}",
        "q\u{e9}",
        "hello",
    ];
    let mut s = String::new();
    for _ in 0..rng.index(3) {
        s.push_str(PIECES[rng.index(PIECES.len())]);
    }
    s
}

fn strings_child<O: OffsetSize>(values: &[Option<String>], prefix: usize) -> StringColumn<O> {
    let col = StringColumn::<O>::from_options(values.iter().map(|v| v.as_deref()));
    col.slice(prefix, values.len() - prefix)
        .expect("generated slice is in range")
}

impl ListElement for String {
    const NAME: &'static str = "utf8";

    fn build_child(values: &[Option<Self>], prefix: usize) -> Column<Host> {
        Column::Utf8(strings_child::<i32>(values, prefix))
    }

    fn read_column(col: &Column<Host>) -> Option<Vec<Option<Self>>> {
        match col {
            Column::Utf8(c) => Some(c.iter().map(|s| s.map(str::to_string)).collect()),
            _ => None,
        }
    }

    fn value(rng: &mut Rng, _: ValueMode) -> Self {
        random_text(rng)
    }

    fn same(a: &Self, b: &Self) -> bool {
        a == b
    }
}

/// A string in a `LargeUtf8` child.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LargeString(pub String);

impl ListElement for LargeString {
    const NAME: &'static str = "large_utf8";

    fn build_child(values: &[Option<Self>], prefix: usize) -> Column<Host> {
        let strings: Vec<Option<String>> = values
            .iter()
            .map(|v| v.as_ref().map(|s| s.0.clone()))
            .collect();
        Column::LargeUtf8(strings_child::<i64>(&strings, prefix))
    }

    fn read_column(col: &Column<Host>) -> Option<Vec<Option<Self>>> {
        match col {
            Column::LargeUtf8(c) => Some(
                c.iter()
                    .map(|s| s.map(|s| LargeString(s.to_string())))
                    .collect(),
            ),
            _ => None,
        }
    }

    fn value(rng: &mut Rng, _: ValueMode) -> Self {
        LargeString(random_text(rng))
    }

    fn same(a: &Self, b: &Self) -> bool {
        a == b
    }
}

// ---------------------------------------------------------------------------------
// Offsets-based lists
// ---------------------------------------------------------------------------------

/// A list column as plain values.
#[derive(Clone, Debug, PartialEq)]
pub struct ListModel<E> {
    /// Each list's elements (kept in the child even when the list is null) and whether
    /// the list is valid.
    pub lists: Vec<(Vec<Option<E>>, bool)>,
    /// Lists `offset..offset + len` of the built column are the case.
    pub slice: Option<(usize, usize)>,
    /// Elements before the lists' elements, sliced off the child.
    pub child_prefix: Vec<Option<E>>,
}

impl<E: ListElement> ListModel<E> {
    /// The lists of the case (after slicing).
    pub fn rows(&self) -> Lists<E> {
        let (start, len) = self.slice.unwrap_or((0, self.lists.len()));
        self.lists[start..start + len]
            .iter()
            .map(|(elements, valid)| valid.then(|| elements.clone()))
            .collect()
    }

    /// The host column (then sliced).
    ///
    /// # Panics
    /// When the elements do not fit `O` (generator misuse).
    pub fn build<O: OffsetSize>(&self) -> ListColumn<O, Host> {
        let elements: Vec<Option<E>> = self
            .child_prefix
            .iter()
            .cloned()
            .chain(self.lists.iter().flat_map(|(e, _)| e.iter().cloned()))
            .collect();
        let child = E::build_child(&elements, self.child_prefix.len());
        let mut offsets = vec![O::usize_as(0)];
        let mut end = 0usize;
        for (e, _) in &self.lists {
            end += e.len();
            offsets.push(O::from_i64(end as i64).expect("generated lists fit the offset type"));
        }
        let valid: Vec<bool> = self.lists.iter().map(|(_, v)| *v).collect();
        let column = ListColumn::try_new(
            ScalarBuffer::from(offsets),
            child,
            validity_from(&valid, false),
        )
        .expect("generated list column is valid");
        match self.slice {
            Some((start, len)) => column.slice(start, len).expect("slice in range"),
            None => column,
        }
    }
}

/// The shape of a generated list column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListShape {
    /// No list at all.
    Empty,
    /// `n` valid, empty lists.
    AllEmpty(usize),
    /// `n` null lists (empty ranges).
    AllNull(usize),
    /// `n` lists of 0 to 6 elements: about 15 % empty, 10 % null (some covering
    /// elements), 10 % null elements.
    Mixed(usize),
    /// `count` lists of exactly `len` elements (a few null elements, one null list
    /// covering its elements when `count > 2`).
    Sized {
        /// Elements per list.
        len: usize,
        /// Number of lists.
        count: usize,
    },
    /// One list of 100 000 elements among 300 tiny ones.
    Huge,
    /// Lists of 0 to 5 000 elements (block paths on a GPU), some null.
    Long(usize),
    /// `count` lists of 0 to `max_len` elements without a null element (every seventh
    /// list null): the paths a backend takes when the child has no validity. With
    /// `count >= 1000` the column is also a slice (the first list off) over a sliced
    /// child, and its middle list holds 9 000 elements (whole GPU tiles of elements).
    Dense {
        /// Number of lists.
        count: usize,
        /// The longest list.
        max_len: usize,
    },
    /// A slice of `Mixed`: `offsets[0] != 0`, the validity at a bit offset.
    Sliced(usize),
    /// `Mixed` over a child that is itself a slice.
    SlicedChild(usize),
}

impl ListShape {
    /// The shape's label.
    pub fn name(self) -> String {
        match self {
            ListShape::Empty => "empty".into(),
            ListShape::AllEmpty(n) => format!("all-empty/n={n}"),
            ListShape::AllNull(n) => format!("all-null/n={n}"),
            ListShape::Mixed(n) => format!("mixed/n={n}"),
            ListShape::Sized { len, count } => format!("sized/len={len}/count={count}"),
            ListShape::Huge => "huge".into(),
            ListShape::Long(n) => format!("long/n={n}"),
            ListShape::Dense { count, max_len } => format!("dense/max={max_len}/count={count}"),
            ListShape::Sliced(n) => format!("sliced/n={n}"),
            ListShape::SlicedChild(n) => format!("sliced-child/n={n}"),
        }
    }

    /// Every shape the suite enumerates.
    pub fn all() -> Vec<ListShape> {
        let mut shapes = vec![
            ListShape::Empty,
            ListShape::AllEmpty(5),
            ListShape::AllEmpty(300),
            ListShape::AllNull(33),
        ];
        shapes.extend([1, 7, 33, 128, 1025, 5000].map(ListShape::Mixed));
        shapes.extend(
            [1, 7, 8, 31, 32, 127, 128, 2047, 2048, 2049]
                .map(|len| ListShape::Sized { len, count: 3 }),
        );
        shapes.push(ListShape::Sized { len: 1, count: 70 });
        shapes.push(ListShape::Huge);
        shapes.push(ListShape::Long(12));
        // Short (average below 16), medium (the second also sliced, with a long list)
        // and long lists over a child without nulls.
        shapes.extend(
            [(300, 8), (40, 200), (1500, 100), (6, 6000)]
                .map(|(count, max_len)| ListShape::Dense { count, max_len }),
        );
        shapes.extend([1, 33, 700].map(ListShape::Sliced));
        shapes.extend([5, 257].map(ListShape::SlicedChild));
        shapes
    }

    /// The model of this shape with values of `mode`, from `rng`.
    pub fn generate<E: ListElement>(self, mode: ValueMode, rng: &mut Rng) -> ListModel<E> {
        let element = |rng: &mut Rng| (!rng.chance(10)).then(|| E::value(rng, mode));
        let elements = |rng: &mut Rng, len: usize| (0..len).map(|_| element(rng)).collect();
        let mixed = |rng: &mut Rng, n: usize| -> Vec<(Vec<Option<E>>, bool)> {
            (0..n)
                .map(|_| {
                    let valid = !rng.chance(10);
                    let len = if rng.chance(15) { 0 } else { 1 + rng.index(6) };
                    (elements(rng, len), valid)
                })
                .collect()
        };
        let mut model = ListModel {
            lists: Vec::new(),
            slice: None,
            child_prefix: Vec::new(),
        };
        match self {
            ListShape::Empty => {}
            ListShape::AllEmpty(n) => model.lists = vec![(Vec::new(), true); n],
            ListShape::AllNull(n) => model.lists = vec![(Vec::new(), false); n],
            ListShape::Mixed(n) => model.lists = mixed(rng, n),
            ListShape::Sized { len, count } => {
                model.lists = (0..count).map(|_| (elements(rng, len), true)).collect();
                if count > 2 {
                    model.lists[1].1 = false;
                }
            }
            ListShape::Huge => {
                model.lists = (0..300)
                    .map(|_| {
                        let len = rng.index(4);
                        (elements(rng, len), !rng.chance(10))
                    })
                    .collect();
                model.lists[150] = (elements(rng, 100_000), true);
            }
            ListShape::Long(n) => {
                model.lists = (0..n)
                    .map(|_| {
                        let len = rng.index(5001);
                        (elements(rng, len), !rng.chance(20))
                    })
                    .collect();
            }
            ListShape::Dense { count, max_len } => {
                model.lists = (0..count)
                    .map(|i| {
                        let len = rng.index(max_len + 1);
                        let values = (0..len).map(|_| Some(E::value(rng, mode))).collect();
                        (values, i % 7 != 3)
                    })
                    .collect();
                if count >= 1000 {
                    let long = (0..9000).map(|_| Some(E::value(rng, mode))).collect();
                    model.lists[count / 2] = (long, true);
                    model.slice = Some((1, count - 1));
                    model.child_prefix = (0..3).map(|_| Some(E::value(rng, mode))).collect();
                }
            }
            ListShape::Sliced(n) => {
                model.lists = mixed(rng, n + 5);
                model.lists[0] = (elements(rng, 3), true);
                model.lists[1] = (elements(rng, 2), false);
                model.slice = Some((3, n));
            }
            ListShape::SlicedChild(n) => {
                model.lists = mixed(rng, n);
                model.child_prefix = elements(rng, 7);
            }
        }
        model
    }
}

/// One list input: the column, its lists (the oracle's input) and a label.
#[derive(Clone)]
pub struct ListOpsCase<O: OffsetSize, E> {
    /// E.g. `list<i32>/mixed/n=33/random`.
    pub label: String,
    /// The column under test (host memory).
    pub column: ListColumn<O, Host>,
    /// The lists, independent of the column.
    pub rows: Lists<E>,
}

impl<O: OffsetSize, E> Case for ListOpsCase<O, E> {
    fn label(&self) -> &str {
        &self.label
    }
    fn row_count(&self) -> usize {
        self.rows.len()
    }
}

impl<O: OffsetSize, E: fmt::Debug> fmt::Debug for ListOpsCase<O, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListOpsCase")
            .field("label", &self.label)
            .field("rows", &self.rows.len())
            .finish()
    }
}

/// `list` or `large_list`, for labels.
pub fn list_type_name<O: OffsetSize>() -> &'static str {
    if O::OFFSET_NAME == "i32" {
        "list"
    } else {
        "large_list"
    }
}

/// The case of `shape` with elements `E` of `mode`, seeded by its label (without the
/// offset width, so both widths see the same lists).
pub fn list_ops_case<O: OffsetSize, E: ListElement>(
    shape: ListShape,
    mode: ValueMode,
) -> ListOpsCase<O, E> {
    let seed = format!("list-ops<{}>/{}/{mode:?}", E::NAME, shape.name());
    let model = shape.generate::<E>(mode, &mut Rng::from_label(&seed));
    ListOpsCase {
        label: format!(
            "{}<{}>/{}/{mode:?}",
            list_type_name::<O>(),
            E::NAME,
            shape.name()
        ),
        column: model.build(),
        rows: model.rows(),
    }
}

/// A case from explicit lists (`None`: a null list), for hand-written inputs.
///
/// # Panics
/// As [`ListModel::build`].
pub fn list_ops_case_from<O: OffsetSize, E: ListElement>(
    label: &str,
    lists: &[Option<Vec<Option<E>>>],
) -> ListOpsCase<O, E> {
    let model = ListModel {
        lists: lists
            .iter()
            .map(|l| (l.clone().unwrap_or_default(), l.is_some()))
            .collect(),
        slice: None,
        child_prefix: Vec::new(),
    };
    ListOpsCase {
        label: format!("{}<{}>/{label}", list_type_name::<O>(), E::NAME),
        column: model.build(),
        rows: model.rows(),
    }
}

/// Every [`ListShape::all`] case with elements `E` of `mode`.
pub fn list_ops_cases<O: OffsetSize, E: ListElement>(mode: ValueMode) -> Vec<ListOpsCase<O, E>> {
    ListShape::all()
        .into_iter()
        .map(|shape| list_ops_case(shape, mode))
        .collect()
}

// ---------------------------------------------------------------------------------
// Starts/stops views
// ---------------------------------------------------------------------------------

/// A list view as plain values: a child and one `(start, stop, valid)` per list.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewModel<E> {
    /// The child's elements.
    pub child: Vec<Option<E>>,
    /// Each list's start, stop and validity.
    pub lists: Vec<(i64, i64, bool)>,
    /// Lists `offset..offset + len` of the built view are the case.
    pub slice: Option<(usize, usize)>,
}

impl<E: ListElement> ViewModel<E> {
    /// The lists (after slicing) of the case.
    pub fn visible(&self) -> &[(i64, i64, bool)] {
        let (start, len) = self.slice.unwrap_or((0, self.lists.len()));
        &self.lists[start..start + len]
    }

    /// The host view (then sliced).
    ///
    /// # Panics
    /// When a list does not fit `O` or the child (generator misuse).
    pub fn build<O: OffsetSize>(&self) -> ListViewColumn<O, Host> {
        let conv = |v: i64| O::from_i64(v).expect("generated view fits the offset type");
        let starts: Vec<O> = self.lists.iter().map(|l| conv(l.0)).collect();
        let stops: Vec<O> = self.lists.iter().map(|l| conv(l.1)).collect();
        let valid: Vec<bool> = self.lists.iter().map(|l| l.2).collect();
        let view = ListViewColumn::try_new_shared(
            ScalarBuffer::from(starts),
            ScalarBuffer::from(stops),
            Arc::new(E::build_child(&self.child, 0)),
            validity_from(&valid, false),
        )
        .expect("generated view is valid");
        match self.slice {
            Some((start, len)) => view.slice(start, len).expect("slice in range"),
            None => view,
        }
    }
}

/// The shape of a generated list view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewShape {
    /// Random ranges: overlapping, in any order, leaving gaps; 0 to 8 elements.
    Random(usize),
    /// Increasing, disjoint ranges with gaps between them.
    Gaps(usize),
    /// Disjoint ranges in decreasing order.
    Reversed(usize),
    /// Empty lists at every odd position, starting anywhere (the child's end
    /// included).
    EmptyOdd(usize),
    /// 30 % null lists, which cover elements.
    NullCovering(usize),
    /// Overlapping lists of up to 3 000 elements over a child of 10 000.
    Long(usize),
    /// `n` lists, almost all empty: in every other run of 4 000 lists one list in 50 holds
    /// 1 to 200 elements, the others hold none (a GPU warp passing thousands of empty
    /// lists at once, and windows of output spanning many lists).
    Sparse(usize),
    /// A slice of `Random` (lists 3.. of the view).
    Sliced(usize),
}

impl ViewShape {
    /// The shape's label.
    pub fn name(self) -> String {
        match self {
            ViewShape::Random(n) => format!("random/n={n}"),
            ViewShape::Gaps(n) => format!("gaps/n={n}"),
            ViewShape::Reversed(n) => format!("reversed/n={n}"),
            ViewShape::EmptyOdd(n) => format!("empty-odd/n={n}"),
            ViewShape::NullCovering(n) => format!("null-covering/n={n}"),
            ViewShape::Long(n) => format!("long/n={n}"),
            ViewShape::Sparse(n) => format!("sparse/n={n}"),
            ViewShape::Sliced(n) => format!("sliced/n={n}"),
        }
    }

    /// Every shape the suite enumerates.
    pub fn all() -> Vec<ViewShape> {
        let mut shapes = Vec::new();
        for n in [0, 1, 7, 33, 1025] {
            shapes.push(ViewShape::Random(n));
        }
        for n in [5, 257] {
            shapes.extend([
                ViewShape::Gaps(n),
                ViewShape::Reversed(n),
                ViewShape::EmptyOdd(n),
                ViewShape::NullCovering(n),
                ViewShape::Sliced(n),
            ]);
        }
        shapes.push(ViewShape::Long(9));
        shapes.push(ViewShape::Sparse(20_000));
        shapes
    }

    /// The model of this shape with values of `mode`, from `rng`.
    pub fn generate<E: ListElement>(self, mode: ValueMode, rng: &mut Rng) -> ViewModel<E> {
        let child_len = match self {
            ViewShape::Long(_) | ViewShape::Sparse(_) => 10_000,
            ViewShape::Gaps(n) | ViewShape::Reversed(n) => 10 * n + 3,
            _ => 64,
        };
        let child: Vec<Option<E>> = (0..child_len)
            .map(|_| (!rng.chance(10)).then(|| E::value(rng, mode)))
            .collect();
        let len = child_len as i64;
        let random = |rng: &mut Rng, max: i64| {
            let a = rng.range_i64(0, len);
            let b = a + rng.range_i64(0, max.min(len - a));
            (a, b)
        };
        let mut slice = None;
        let lists: Vec<(i64, i64, bool)> = match self {
            ViewShape::Random(n) => (0..n)
                .map(|_| {
                    let (a, b) = random(rng, 8);
                    (a, b, !rng.chance(10))
                })
                .collect(),
            ViewShape::Sliced(n) => {
                slice = Some((3, n));
                (0..n + 3)
                    .map(|_| {
                        let (a, b) = random(rng, 8);
                        (a, b, !rng.chance(10))
                    })
                    .collect()
            }
            ViewShape::Gaps(n) | ViewShape::Reversed(n) => {
                let mut lists: Vec<(i64, i64, bool)> = (0..n as i64)
                    .map(|i| {
                        let a = 10 * i + rng.range_i64(0, 3);
                        (a, a + rng.range_i64(0, 7), true)
                    })
                    .collect();
                if matches!(self, ViewShape::Reversed(_)) {
                    lists.reverse();
                }
                lists
            }
            ViewShape::EmptyOdd(n) => (0..n)
                .map(|i| {
                    if i % 2 == 1 {
                        let at = if rng.chance(30) {
                            len
                        } else {
                            rng.range_i64(0, len)
                        };
                        (at, at, true)
                    } else {
                        let (a, b) = random(rng, 8);
                        (a, b, true)
                    }
                })
                .collect(),
            ViewShape::NullCovering(n) => (0..n)
                .map(|_| {
                    let (a, b) = random(rng, 8);
                    (a, b, !rng.chance(30))
                })
                .collect(),
            ViewShape::Long(n) => (0..n)
                .map(|_| {
                    let (a, b) = random(rng, 3000);
                    (a, b, !rng.chance(15))
                })
                .collect(),
            ViewShape::Sparse(n) => (0..n)
                .map(|i| {
                    if (i / 4000) % 2 == 0 && rng.chance(2) {
                        let (a, b) = random(rng, 200);
                        (a, b.max(a + 1).min(len), true)
                    } else {
                        let at = rng.range_i64(0, len);
                        (at, at, true)
                    }
                })
                .collect(),
        };
        ViewModel {
            child,
            lists,
            slice,
        }
    }
}

/// One list-view input: the view, its model and a label.
#[derive(Clone)]
pub struct ViewCase<O: OffsetSize, E> {
    /// E.g. `list_view<i32>/gaps/n=5`.
    pub label: String,
    /// The view under test (host memory).
    pub column: ListViewColumn<O, Host>,
    /// The model (the oracle's input).
    pub model: ViewModel<E>,
}

impl<O: OffsetSize, E> Case for ViewCase<O, E> {
    fn label(&self) -> &str {
        &self.label
    }
    fn row_count(&self) -> usize {
        self.column.len()
    }
}

impl<O: OffsetSize, E> fmt::Debug for ViewCase<O, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ViewCase")
            .field("label", &self.label)
            .finish()
    }
}

/// The view case of `shape` with elements `E` of `mode`, seeded by its label.
pub fn view_case<O: OffsetSize, E: ListElement>(
    shape: ViewShape,
    mode: ValueMode,
) -> ViewCase<O, E> {
    let seed = format!("view<{}>/{}/{mode:?}", E::NAME, shape.name());
    let model = shape.generate::<E>(mode, &mut Rng::from_label(&seed));
    let list = if O::OFFSET_NAME == "i32" {
        "list_view"
    } else {
        "large_list_view"
    };
    ViewCase {
        label: format!("{list}<{}>/{}", E::NAME, shape.name()),
        column: model.build(),
        model,
    }
}

/// Every [`ViewShape::all`] case with elements `E`.
pub fn view_cases<O: OffsetSize, E: ListElement>(mode: ValueMode) -> Vec<ViewCase<O, E>> {
    ViewShape::all()
        .into_iter()
        .map(|shape| view_case(shape, mode))
        .collect()
}
