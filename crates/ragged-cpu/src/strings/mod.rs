//! The strings family on the CPU.

mod build;
mod length;
mod like;
mod modify;
mod search;
mod slice;
mod split;
mod transform;

use crate::CpuBackend;
use ragged_core::ops::{
    AnyStringColumn, ConcatNulls, OffsetWidth, Pattern, Search, Side, SliceBounds, SplitOn,
    StringArg,
};
use ragged_core::{
    BooleanColumn, ListColumn, OffsetSize, PrimitiveColumn, Result, StringColumn, StringOps,
};

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
