//! The strings family on the GPU.

mod length;
mod like;
mod search;
mod slice;

use ragged_core::ops::{Pattern, Search, SliceBounds};
use ragged_core::{BooleanColumn, OffsetSize, PrimitiveColumn, Result, StringColumn, StringOps};

use crate::memory::Device;
use crate::CudaBackend;

impl StringOps for CudaBackend {
    fn length<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        length::length(self, col)
    }

    fn length_bytes<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        length::length_bytes(self, col)
    }

    fn contains<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: Pattern<'_, Device>,
    ) -> Result<BooleanColumn<Device>> {
        search::search_bool(self, Search::Contains, col, pattern)
    }

    fn starts_with<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: Pattern<'_, Device>,
    ) -> Result<BooleanColumn<Device>> {
        search::search_bool(self, Search::StartsWith, col, pattern)
    }

    fn ends_with<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: Pattern<'_, Device>,
    ) -> Result<BooleanColumn<Device>> {
        search::search_bool(self, Search::EndsWith, col, pattern)
    }

    fn find<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: Pattern<'_, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        search::search_position(self, Search::Find, col, pattern)
    }

    fn rfind<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: Pattern<'_, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        search::search_position(self, Search::Rfind, col, pattern)
    }

    fn like<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: &str,
        escape: Option<char>,
    ) -> Result<BooleanColumn<Device>> {
        like::like(self, col, pattern, escape)
    }

    fn slice_chars<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        bounds: SliceBounds<'_, Device>,
    ) -> Result<StringColumn<O, Device>> {
        slice::slice(self, col, bounds, true)
    }

    fn slice_bytes<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        bounds: SliceBounds<'_, Device>,
    ) -> Result<StringColumn<O, Device>> {
        slice::slice(self, col, bounds, false)
    }

    fn count_matches<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
        pattern: Pattern<'_, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        search::search_position(self, Search::CountMatches, col, pattern)
    }
}
