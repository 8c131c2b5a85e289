//! [`Memory`] for the CUDA backend: uploads and downloads of buffers and bitmaps.

use ragged_core::{Memory, Native, NullBuffer, OffsetSize, Result, ScalarBuffer};

use crate::memory::{Device, DeviceBitmap, DeviceBuffer};
use crate::CudaBackend;

impl Memory for CudaBackend {
    type Loc = Device;

    fn describe(&self) -> String {
        let info = self.info();
        format!("cuda:{} {}", info.ordinal, info.name)
    }

    fn upload<T: Native>(&self, data: &ScalarBuffer<T>) -> Result<DeviceBuffer<T>> {
        self.upload_slice(data)
    }

    fn download<T: Native>(&self, data: &DeviceBuffer<T>) -> Result<ScalarBuffer<T>> {
        Ok(ScalarBuffer::from(self.download_vec(data)?))
    }

    fn upload_bitmap(&self, bits: &NullBuffer) -> Result<DeviceBitmap> {
        self.upload_validity(bits)
    }

    fn download_bitmap(&self, bits: &DeviceBitmap) -> Result<NullBuffer> {
        self.download_validity(bits)
    }

    fn validate_offsets<O: OffsetSize>(
        &self,
        offsets: &DeviceBuffer<O>,
        values_len: usize,
    ) -> Result<()> {
        crate::common::validate_offsets::validate_offsets(self, offsets, values_len)
    }

    fn synchronize(&self) -> Result<()> {
        self.synchronize_stream()
    }
}
