//! The backend contracts: [`Memory`] (buffers, transfers, synchronization) and one
//! trait per op family. [`Backend`] is all of them together.
//!
//! Required ops have no default method, so adding an op to a family is a compile
//! error in every backend until each implements it. Ops take the backend explicitly
//! (`&B`): it carries the stream, module cache and memory pool, so there is no global
//! state.

mod lists;
mod memory;
mod primitives;
mod sequences;
mod strings;
mod text;

pub use lists::{python_index, python_slice, ListOps, OutOfRange};
pub use memory::Memory;
pub use primitives::{
    Comparison, OffsetWidth, Offsets, Predicate, Primitives, ScanKind, Selection, Transform,
};
pub use sequences::{
    check_distance_args, check_sketch_args, count_base, count_chunk, count_layout, count_patterns,
    finish_counts, finish_sketch, ln_choose, sketch_layout, Alphabet, DistanceMatrix,
    SequenceColumn, SequenceOps, SketchColumn, SketchItem, SketchLayout, SketchPlan, SketchTables,
    COUNT_RADIX, MAX_COUNT_LENGTH, MAX_SKETCH_DIM, MAX_SKETCH_LENGTH, SKIP,
};
pub use strings::{
    case_table, char_count, is_split_whitespace, is_strip_whitespace, like_tokens, lower_char,
    redact_into, redact_row, slice_range, split_ranges, split_ranges_into, upper_char,
    AnyStringColumn, CaseTable, ConcatNulls, Pattern, Search, Side, SliceBounds, SplitOn,
    StringArg, StringOps, LIKE_ANY_MANY, LIKE_ANY_ONE, REDACTED,
};
pub use text::{Delimiter, LineOptions, LinePlan, LinesColumn, TextOps, MAX_DELIMITER_BYTES};

/// A complete backend: memory and transfers plus every op family.
///
/// Generic code is written against `B: Backend` and instantiated once per backend
/// (`run::<CpuBackend>`, `run::<CudaBackend>`).
pub trait Backend: Memory + Primitives + StringOps + ListOps + TextOps + SequenceOps {}

impl<B: Memory + Primitives + StringOps + ListOps + TextOps + SequenceOps> Backend for B {}
