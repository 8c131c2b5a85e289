//! Where a column's buffers live: [`Host`] memory here, device memory in backend crates.
//!
//! Columns are generic over a [`Location`], so `StringColumn<i32, Host>` and a device
//! string column are the same type constructor with different buffers. The host
//! buffers are arrow-rs buffers, which makes conversion to and from arrow-rs arrays
//! zero-copy.

use arrow_buffer::{NullBuffer, ScalarBuffer};

use crate::types::Native;

/// A typed, immutable buffer of `T` in some memory.
pub trait DataBuffer<T>: Clone + std::fmt::Debug + Send + Sync {
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether the buffer holds no element.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A validity bitmap (bit set = valid, LSB bit order as in Arrow) in some memory.
pub trait ValidityBitmap: Clone + std::fmt::Debug + Send + Sync {
    /// Number of slots (rows) it covers.
    fn len(&self) -> usize;
    /// Whether it covers no slot.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Number of null (unset) slots.
    fn null_count(&self) -> usize;
}

/// A memory space holding column buffers.
pub trait Location: Clone + Copy + std::fmt::Debug + Send + Sync + 'static {
    /// A buffer of `T` in this memory.
    type Buffer<T: Native>: DataBuffer<T>;
    /// A validity bitmap in this memory.
    type Bitmap: ValidityBitmap;
    /// A short name for messages: `host`, `cuda`.
    const NAME: &'static str;
}

/// Host (CPU) memory. Buffers are arrow-rs [`ScalarBuffer`]s, bitmaps [`NullBuffer`]s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Host;

impl Location for Host {
    type Buffer<T: Native> = ScalarBuffer<T>;
    type Bitmap = NullBuffer;
    const NAME: &'static str = "host";
}

impl<T: Native> DataBuffer<T> for ScalarBuffer<T> {
    fn len(&self) -> usize {
        ScalarBuffer::len(self)
    }
}

impl ValidityBitmap for NullBuffer {
    fn len(&self) -> usize {
        NullBuffer::len(self)
    }
    fn null_count(&self) -> usize {
        NullBuffer::null_count(self)
    }
}
