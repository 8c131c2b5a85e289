//! The strings family on the CPU.

mod length;
mod like;
mod search;
mod slice;

use ragged_core::ops::{Pattern, Search, SliceBounds};
use ragged_core::{BooleanColumn, OffsetSize, PrimitiveColumn, Result, StringColumn, StringOps};

use crate::CpuBackend;

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
}
