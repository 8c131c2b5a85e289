//! The primitives family on the GPU: host dispatch for `kernels/primitives/*.cu`.

mod reduce;
pub(crate) mod scan;
pub(crate) mod segmented_reduce;
mod select;

use ragged_core::ops::{OffsetWidth, Offsets, Predicate, ScanKind, Selection, Transform};
use ragged_core::{BooleanColumn, Native, OffsetSize, PrimitiveColumn, Primitives, Result};

use crate::memory::{Device, DeviceBitmap, DeviceBuffer};
use crate::CudaBackend;

/// Whether a kernel checks a sum of T (a prefix or a segment's) against T::Sum: only
/// for 64-bit integers (accumulated in 128 bits). Smaller integers sum into 64 bits,
/// which fewer than 2^32 values of them cannot overflow; floats go to infinity.
pub(crate) fn can_overflow<T: Native>() -> bool {
    !T::IS_FLOAT && std::mem::size_of::<T>() == 8
}

/// (bitmap pointer, bit offset) for a kernel; (0, 0) when every row is valid.
pub(crate) fn validity_args(validity: Option<&DeviceBitmap>) -> (u64, u64) {
    validity.map_or((0, 0), |v| (v.bits().device_ptr(), v.bit_offset() as u64))
}

/// A plain value from its little-endian bytes (as the device wrote it).
pub(crate) fn value_from_bytes<T: Native>(bytes: &[u8]) -> Option<T> {
    if bytes.len() < std::mem::size_of::<T>() {
        return None;
    }
    // SAFETY: T is a plain number type (every bit pattern is a value) and `bytes` holds
    // at least size_of::<T>() bytes; read_unaligned needs no alignment.
    Some(unsafe { std::ptr::read_unaligned(bytes.as_ptr().cast::<T>()) })
}

impl Primitives for CudaBackend {
    fn reduce_sum<T: Native>(&self, col: &PrimitiveColumn<T, Device>) -> Result<T::Sum> {
        reduce::reduce_sum(self, col)
    }
    fn reduce_sum_f64<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        transform: Transform,
    ) -> Result<f64> {
        reduce::reduce_sum_f64(self, col, transform)
    }
    fn reduce_min<T: Native>(&self, col: &PrimitiveColumn<T, Device>) -> Result<Option<T>> {
        Ok(reduce::reduce_extremum(self, col, false)?.map(|(v, _)| v))
    }
    fn reduce_max<T: Native>(&self, col: &PrimitiveColumn<T, Device>) -> Result<Option<T>> {
        Ok(reduce::reduce_extremum(self, col, true)?.map(|(v, _)| v))
    }
    fn reduce_argmin<T: Native>(&self, col: &PrimitiveColumn<T, Device>) -> Result<Option<usize>> {
        Ok(reduce::reduce_extremum(self, col, false)?.map(|(_, i)| i))
    }
    fn reduce_argmax<T: Native>(&self, col: &PrimitiveColumn<T, Device>) -> Result<Option<usize>> {
        Ok(reduce::reduce_extremum(self, col, true)?.map(|(_, i)| i))
    }
    fn count_valid<T: Native>(&self, col: &PrimitiveColumn<T, Device>) -> Result<usize> {
        Ok(col.len() - col.null_count())
    }
    fn count_if<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        predicate: Predicate<T>,
    ) -> Result<usize> {
        reduce::count_if(self, col, predicate)
    }
    fn reduce_any(&self, col: &BooleanColumn<Device>) -> Result<Option<bool>> {
        let (valid, set) = reduce::reduce_bool(self, col)?;
        Ok((valid > 0).then_some(set > 0))
    }
    fn reduce_all(&self, col: &BooleanColumn<Device>) -> Result<Option<bool>> {
        let (valid, set) = reduce::reduce_bool(self, col)?;
        Ok((valid > 0).then_some(set == valid))
    }
    fn scan_sum<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<T::Sum, Device>> {
        scan::scan_sum(self, col, kind)
    }
    fn scan_min<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<T, Device>> {
        scan::scan_extremum(self, col, kind, false)
    }
    fn scan_max<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<T, Device>> {
        scan::scan_extremum(self, col, kind, true)
    }
    fn scan_sum_f64<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        transform: Transform,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<f64, Device>> {
        scan::scan_sum_f64(self, col, transform, kind)
    }
    fn scan_count_if<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        predicate: Predicate<T>,
        kind: ScanKind,
    ) -> Result<PrimitiveColumn<i64, Device>> {
        scan::scan_count_if(self, col, predicate, kind)
    }
    fn sizes_to_offsets(
        &self,
        sizes: &PrimitiveColumn<i32, Device>,
        width: OffsetWidth,
    ) -> Result<(Offsets<Device>, i64)> {
        scan::sizes_to_offsets(self, sizes, width)
    }
    fn select_mask<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        mask: &BooleanColumn<Device>,
        with_indices: bool,
    ) -> Result<Selection<T, Device>> {
        select::select_mask(self, col, mask, with_indices)
    }
    fn select_if<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        predicate: Predicate<T>,
        with_indices: bool,
    ) -> Result<Selection<T, Device>> {
        select::select_if(self, col, predicate, with_indices)
    }
    fn segmented_sum<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        offsets: &DeviceBuffer<O>,
    ) -> Result<PrimitiveColumn<T::Sum, Device>> {
        segmented_reduce::segmented_sum(self, col, offsets)
    }
    fn segmented_min<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        offsets: &DeviceBuffer<O>,
    ) -> Result<PrimitiveColumn<T, Device>> {
        segmented_reduce::segmented_extremum(self, col, offsets, false)
    }
    fn segmented_max<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        offsets: &DeviceBuffer<O>,
    ) -> Result<PrimitiveColumn<T, Device>> {
        segmented_reduce::segmented_extremum(self, col, offsets, true)
    }
    fn segmented_argmin<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        offsets: &DeviceBuffer<O>,
    ) -> Result<PrimitiveColumn<i64, Device>> {
        segmented_reduce::segmented_arg(self, col, offsets, false)
    }
    fn segmented_argmax<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        offsets: &DeviceBuffer<O>,
    ) -> Result<PrimitiveColumn<i64, Device>> {
        segmented_reduce::segmented_arg(self, col, offsets, true)
    }
    fn segmented_count<T: Native, O: OffsetSize>(
        &self,
        col: &PrimitiveColumn<T, Device>,
        offsets: &DeviceBuffer<O>,
    ) -> Result<PrimitiveColumn<i64, Device>> {
        segmented_reduce::segmented_count(self, col, offsets)
    }
}
