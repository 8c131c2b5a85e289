//! `unflatten` on the GPU: the offsets are the exclusive scan of the counts
//! (`counts_to_offsets_<O>` of `kernels/lists/compact_offsets.cu`, one pass, negative
//! counts and i32 overflow through the device error word); the child is shared.
//!
//! Errors come in the CPU backend's order: the lowest negative count, then a total that
//! differs from the child's length, then an offset above `i32::MAX`.

use std::sync::Arc;

use ragged_core::{Column, Error, ListColumn, OffsetSize, PrimitiveColumn, Result};

use super::compact_offsets::{counts_to_offsets, CountsPass};
use super::{read_offset, zero_offsets};
use crate::memory::Device;
use crate::CudaBackend;

pub(crate) fn unflatten<O: OffsetSize>(
    backend: &CudaBackend,
    child: &Column<Device>,
    counts: &PrimitiveColumn<O, Device>,
) -> Result<ListColumn<O, Device>> {
    let (offsets, total, overflow) = if counts.is_empty() {
        (zero_offsets::<O>(backend)?, 0, None)
    } else {
        match counts_to_offsets(backend, counts.values(), counts.validity())? {
            CountsPass::Negative(row) => {
                let size = read_offset(backend, counts.values(), row as usize)?;
                return Err(Error::NegativeSize {
                    index: row as usize,
                    size,
                });
            }
            CountsPass::Done(offsets, total, overflow) => (offsets, total, overflow),
        }
    };
    if usize::try_from(total).ok() != Some(child.len()) {
        return Err(Error::LengthMismatch {
            op: "unflatten",
            what: "counts",
            expected: child.len(),
            actual: usize::try_from(total).unwrap_or(usize::MAX),
        });
    }
    if let Some(index) = overflow {
        return Err(Error::Overflow {
            op: "unflatten",
            message: format!(
                "the offset at index {index} exceeds {}::MAX",
                O::OFFSET_NAME
            ),
        });
    }
    // SAFETY: the offsets are an exclusive scan of non-negative counts starting at 0,
    // and their total is the child's length; the validity is the counts' (one slot
    // per list).
    Ok(unsafe {
        ListColumn::new_unchecked(offsets, Arc::new(child.clone()), counts.validity().cloned())
    })
}
