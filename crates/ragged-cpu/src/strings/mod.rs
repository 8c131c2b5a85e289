//! The strings family on the CPU.

mod build;
mod length;
mod like;
mod modify;
mod search;
mod slice;
mod split;
mod transform;

use ragged_core::ops::{
    AnyStringColumn, ConcatNulls, OffsetWidth, Pattern, Search, Side, SliceBounds, SplitOn,
    StringArg,
};
use ragged_core::{
    BooleanColumn, ListColumn, OffsetSize, PrimitiveColumn, Result, StringColumn, StringOps,
};
use rayon::prelude::*;

use crate::{output_vec, CpuBackend, CHUNK};

/// The boolean answers of `n` rows, built 64 rows to a word across rayon tasks:
/// `fill(base, words)` sets `words` (zeroed on entry), the answers of the rows from
/// `base`.
pub(crate) fn bool_words(
    n: usize,
    fill: impl Fn(usize, &mut [u64]) + Sync,
) -> arrow_buffer::BooleanBuffer {
    const WORDS_PER_TASK: usize = CHUNK / 64;
    let mut words: Vec<u64> = output_vec(n.div_ceil(64));
    words
        .par_chunks_mut(WORDS_PER_TASK)
        .enumerate()
        .for_each(|(task, chunk)| fill(task * CHUNK, chunk));
    arrow_buffer::BooleanBuffer::new(arrow_buffer::Buffer::from_vec(words), 0, n)
}

/// Set `words`, the answers of rows `base..` (fewer than `n`), from `hit(row)`.
pub(crate) fn set_bits(words: &mut [u64], base: usize, n: usize, hit: impl Fn(usize) -> bool) {
    for (k, word) in words.iter_mut().enumerate() {
        let first = base + k * 64;
        let mut bits = 0u64;
        for (b, row) in (first..n.min(first + 64)).enumerate() {
            bits |= u64::from(hit(row)) << b;
        }
        *word = bits;
    }
}

impl StringOps for CpuBackend {
    fn length<O: OffsetSize>(&self, col: &StringColumn<O>) -> Result<PrimitiveColumn<O>> {
        length::length(col)
    }

    fn length_bytes<O: OffsetSize>(&self, col: &StringColumn<O>) -> Result<PrimitiveColumn<O>> {
        length::length_bytes(col)
    }

    fn contains<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        pattern: Pattern<'_>,
    ) -> Result<BooleanColumn> {
        search::search_bool(Search::Contains, col, pattern)
    }

    fn starts_with<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        pattern: Pattern<'_>,
    ) -> Result<BooleanColumn> {
        search::search_bool(Search::StartsWith, col, pattern)
    }

    fn ends_with<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        pattern: Pattern<'_>,
    ) -> Result<BooleanColumn> {
        search::search_bool(Search::EndsWith, col, pattern)
    }

    fn find<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        pattern: Pattern<'_>,
    ) -> Result<PrimitiveColumn<O>> {
        search::search_position(Search::Find, col, pattern)
    }

    fn rfind<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        pattern: Pattern<'_>,
    ) -> Result<PrimitiveColumn<O>> {
        search::search_position(Search::Rfind, col, pattern)
    }

    fn like<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        pattern: &str,
        escape: Option<char>,
    ) -> Result<BooleanColumn> {
        like::like(col, pattern, escape)
    }

    fn slice_chars<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        bounds: SliceBounds<'_>,
    ) -> Result<StringColumn<O>> {
        slice::slice(col, bounds, true)
    }

    fn slice_bytes<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        bounds: SliceBounds<'_>,
    ) -> Result<StringColumn<O>> {
        slice::slice(col, bounds, false)
    }

    fn count_matches<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        pattern: Pattern<'_>,
    ) -> Result<PrimitiveColumn<O>> {
        search::search_position(Search::CountMatches, col, pattern)
    }

    fn copy_if_else(
        &self,
        mask: &BooleanColumn,
        left: StringArg<'_>,
        right: StringArg<'_>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn> {
        transform::copy_if_else(mask, left, right, width)
    }

    fn concatenate(
        &self,
        columns: &[StringArg<'_>],
        separator: &str,
        nulls: ConcatNulls<'_>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn> {
        transform::concatenate(columns, separator, nulls, width)
    }

    fn split<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        on: SplitOn<'_>,
        max_splits: Option<usize>,
    ) -> Result<Vec<StringColumn<O>>> {
        split::split(col, on, max_splits, false)
    }

    fn rsplit<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        on: SplitOn<'_>,
        max_splits: Option<usize>,
    ) -> Result<Vec<StringColumn<O>>> {
        split::split(col, on, max_splits, true)
    }

    fn split_record<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        on: SplitOn<'_>,
        max_splits: Option<usize>,
    ) -> Result<ListColumn<O>> {
        split::split_record(col, on, max_splits, false)
    }

    fn rsplit_record<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        on: SplitOn<'_>,
        max_splits: Option<usize>,
    ) -> Result<ListColumn<O>> {
        split::split_record(col, on, max_splits, true)
    }

    fn redact<O: OffsetSize>(
        &self,
        names: &StringColumn<O>,
        visibility: StringArg<'_>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn> {
        transform::redact(names, visibility, width)
    }

    fn upper<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn> {
        modify::upper(col, width)
    }

    fn lower<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn> {
        modify::lower(col, width)
    }

    fn strip<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        side: Side,
        chars: Option<&str>,
    ) -> Result<StringColumn<O>> {
        modify::strip(col, side, chars)
    }

    fn pad<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        width_chars: usize,
        side: Side,
        fill: char,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn> {
        modify::pad(col, width_chars, side, fill, width)
    }

    fn repeat<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        times: usize,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn> {
        modify::repeat(col, times, width)
    }

    fn replace<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        pattern: &str,
        replacement: &str,
        max_count: Option<usize>,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn> {
        modify::replace(col, pattern, replacement, max_count, width)
    }

    fn join<O: OffsetSize>(
        &self,
        col: &StringColumn<O>,
        separator: &str,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn> {
        modify::join(col, separator, width)
    }

    fn append(&self, columns: &[StringArg<'_>], width: OffsetWidth) -> Result<AnyStringColumn> {
        modify::append(columns, width)
    }
}
