//! Buffers, transfers and synchronization: what every backend provides.

use std::sync::Arc;

use arrow_buffer::{NullBuffer, ScalarBuffer};

use super::{DistanceMatrix, SequenceColumn, SketchColumn};
use crate::column::{
    BooleanColumn, Column, ListColumn, ListViewColumn, PrimitiveColumn, StringColumn,
};
use crate::location::{Host, Location};
use crate::types::{Native, OffsetSize};
use crate::Result;

/// Moving buffers between host memory and a backend's memory.
///
/// The column-level transfers ([`Memory::to_device_strings`], …) are provided on top of
/// the four buffer-level ones. For the CPU backend every transfer is a zero-copy clone.
pub trait Memory: Send + Sync {
    /// Where this backend's column buffers live.
    type Loc: Location;

    /// A one-line description: `cpu (2 threads)`, `cuda:0 NVIDIA H100 80GB HBM3`.
    fn describe(&self) -> String;

    /// Copy a host buffer into this backend's memory.
    ///
    /// # Errors
    /// [`crate::Error::OutOfMemory`] when the allocation does not fit;
    /// [`crate::Error::Device`] when the copy fails.
    fn upload<T: Native>(
        &self,
        data: &ScalarBuffer<T>,
    ) -> Result<<Self::Loc as Location>::Buffer<T>>;

    /// Copy a buffer of this backend into host memory.
    ///
    /// # Errors
    /// [`crate::Error::Device`] when the copy fails (including earlier asynchronous
    /// kernel failures reported by the device at this point).
    fn download<T: Native>(
        &self,
        data: &<Self::Loc as Location>::Buffer<T>,
    ) -> Result<ScalarBuffer<T>>;

    /// Copy a host bitmap into this backend's memory.
    ///
    /// # Errors
    /// As [`Memory::upload`].
    fn upload_bitmap(&self, bits: &NullBuffer) -> Result<<Self::Loc as Location>::Bitmap>;

    /// Copy a bitmap of this backend into host memory.
    ///
    /// # Errors
    /// As [`Memory::download`].
    fn download_bitmap(&self, bits: &<Self::Loc as Location>::Bitmap) -> Result<NullBuffer>;

    /// Check an offsets buffer in this backend's memory against the Arrow invariants,
    /// exactly as [`crate::column::validate_offsets`] does on the host: the same error
    /// kind at the same lowest index. On the GPU this runs as a kernel reporting through
    /// the device error word.
    ///
    /// # Errors
    /// [`crate::Error::InvalidOffsets`] naming the lowest offending index.
    fn validate_offsets<O: OffsetSize>(
        &self,
        offsets: &<Self::Loc as Location>::Buffer<O>,
        values_len: usize,
    ) -> Result<()>;

    /// Wait until all work queued on this backend has finished.
    ///
    /// # Errors
    /// [`crate::Error::Device`] when queued work failed.
    fn synchronize(&self) -> Result<()>;

    /// Copy a host primitive column to this backend.
    ///
    /// # Errors
    /// As [`Memory::upload`].
    fn to_device_primitive<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Host>,
    ) -> Result<PrimitiveColumn<T, Self::Loc>> {
        let values = self.upload(col.values())?;
        let validity = col.validity().map(|v| self.upload_bitmap(v)).transpose()?;
        PrimitiveColumn::try_new(values, validity)
    }

    /// Copy a primitive column of this backend to the host.
    ///
    /// # Errors
    /// As [`Memory::download`].
    fn to_host_primitive<T: Native>(
        &self,
        col: &PrimitiveColumn<T, Self::Loc>,
    ) -> Result<PrimitiveColumn<T, Host>> {
        let values = self.download(col.values())?;
        let validity = col
            .validity()
            .map(|v| self.download_bitmap(v))
            .transpose()?;
        PrimitiveColumn::try_new(values, validity)
    }

    /// Copy a host boolean column to this backend.
    ///
    /// # Errors
    /// As [`Memory::upload`].
    fn to_device_booleans(&self, col: &BooleanColumn<Host>) -> Result<BooleanColumn<Self::Loc>> {
        let values = self.upload_bitmap(col.values())?;
        let validity = col.validity().map(|v| self.upload_bitmap(v)).transpose()?;
        BooleanColumn::try_new(values, validity)
    }

    /// Copy a boolean column of this backend to the host.
    ///
    /// # Errors
    /// As [`Memory::download`].
    fn to_host_booleans(&self, col: &BooleanColumn<Self::Loc>) -> Result<BooleanColumn<Host>> {
        let values = self.download_bitmap(col.values())?;
        let validity = col
            .validity()
            .map(|v| self.download_bitmap(v))
            .transpose()?;
        BooleanColumn::try_new(values, validity)
    }

    /// Copy a host strings column to this backend (offsets as they are, sliced or not).
    ///
    /// # Errors
    /// As [`Memory::upload`].
    fn to_device_strings<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Host>,
    ) -> Result<StringColumn<O, Self::Loc>> {
        let offsets = self.upload(col.offsets())?;
        let values = self.upload(col.values())?;
        let validity = col.validity().map(|v| self.upload_bitmap(v)).transpose()?;
        // SAFETY: the buffers are exact copies of a valid host column.
        Ok(unsafe { StringColumn::new_unchecked(offsets, values, validity) })
    }

    /// Copy a strings column of this backend to the host.
    ///
    /// # Errors
    /// As [`Memory::download`].
    fn to_host_strings<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Self::Loc>,
    ) -> Result<StringColumn<O, Host>> {
        let offsets = self.download(col.offsets())?;
        let values = self.download(col.values())?;
        let validity = col
            .validity()
            .map(|v| self.download_bitmap(v))
            .transpose()?;
        // SAFETY: device columns hold the same invariants as host ones (they are built
        // from valid host columns or by ops that produce valid output).
        Ok(unsafe { StringColumn::new_unchecked(offsets, values, validity) })
    }

    /// Copy a host list column (and its child, recursively) to this backend.
    ///
    /// # Errors
    /// As [`Memory::upload`].
    fn to_device_list<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Host>,
    ) -> Result<ListColumn<O, Self::Loc>> {
        let offsets = self.upload(col.offsets())?;
        let child = self.to_device(col.child())?;
        let validity = col.validity().map(|v| self.upload_bitmap(v)).transpose()?;
        // SAFETY: exact copies of a valid host column.
        Ok(unsafe { ListColumn::new_unchecked(offsets, Arc::new(child), validity) })
    }

    /// Copy a list column of this backend (and its child) to the host.
    ///
    /// # Errors
    /// As [`Memory::download`].
    fn to_host_list<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Self::Loc>,
    ) -> Result<ListColumn<O, Host>> {
        let offsets = self.download(col.offsets())?;
        let child = self.to_host(col.child())?;
        let validity = col
            .validity()
            .map(|v| self.download_bitmap(v))
            .transpose()?;
        // SAFETY: device columns hold the same invariants as host ones.
        Ok(unsafe { ListColumn::new_unchecked(offsets, Arc::new(child), validity) })
    }

    /// Copy a host list-view column (and its child, recursively) to this backend.
    ///
    /// # Errors
    /// As [`Memory::upload`].
    fn to_device_list_view<O: OffsetSize>(
        &self,
        col: &ListViewColumn<O, Host>,
    ) -> Result<ListViewColumn<O, Self::Loc>> {
        let starts = self.upload(col.starts())?;
        let stops = self.upload(col.stops())?;
        let child = self.to_device(col.child())?;
        let validity = col.validity().map(|v| self.upload_bitmap(v)).transpose()?;
        // SAFETY: exact copies of a valid host column.
        Ok(unsafe { ListViewColumn::new_unchecked(starts, stops, Arc::new(child), validity) })
    }

    /// Copy a list-view column of this backend (and its child) to the host.
    ///
    /// # Errors
    /// As [`Memory::download`].
    fn to_host_list_view<O: OffsetSize>(
        &self,
        col: &ListViewColumn<O, Self::Loc>,
    ) -> Result<ListViewColumn<O, Host>> {
        let starts = self.download(col.starts())?;
        let stops = self.download(col.stops())?;
        let child = self.to_host(col.child())?;
        let validity = col
            .validity()
            .map(|v| self.download_bitmap(v))
            .transpose()?;
        // SAFETY: device columns hold the same invariants as host ones.
        Ok(unsafe { ListViewColumn::new_unchecked(starts, stops, Arc::new(child), validity) })
    }

    /// Copy any host column to this backend.
    ///
    /// # Errors
    /// As [`Memory::upload`].
    fn to_device(&self, col: &Column<Host>) -> Result<Column<Self::Loc>> {
        Ok(match col {
            Column::Int8(c) => Column::Int8(self.to_device_primitive(c)?),
            Column::Int16(c) => Column::Int16(self.to_device_primitive(c)?),
            Column::Int32(c) => Column::Int32(self.to_device_primitive(c)?),
            Column::Int64(c) => Column::Int64(self.to_device_primitive(c)?),
            Column::UInt8(c) => Column::UInt8(self.to_device_primitive(c)?),
            Column::UInt16(c) => Column::UInt16(self.to_device_primitive(c)?),
            Column::UInt32(c) => Column::UInt32(self.to_device_primitive(c)?),
            Column::UInt64(c) => Column::UInt64(self.to_device_primitive(c)?),
            Column::Float32(c) => Column::Float32(self.to_device_primitive(c)?),
            Column::Float64(c) => Column::Float64(self.to_device_primitive(c)?),
            Column::Boolean(c) => Column::Boolean(self.to_device_booleans(c)?),
            Column::Utf8(c) => Column::Utf8(self.to_device_strings(c)?),
            Column::LargeUtf8(c) => Column::LargeUtf8(self.to_device_strings(c)?),
            Column::List(c) => Column::List(self.to_device_list(c)?),
            Column::LargeList(c) => Column::LargeList(self.to_device_list(c)?),
            Column::ListView(c) => Column::ListView(self.to_device_list_view(c)?),
            Column::LargeListView(c) => Column::LargeListView(self.to_device_list_view(c)?),
        })
    }

    /// Copy any column of this backend to the host.
    ///
    /// # Errors
    /// As [`Memory::download`].
    fn to_host(&self, col: &Column<Self::Loc>) -> Result<Column<Host>> {
        Ok(match col {
            Column::Int8(c) => Column::Int8(self.to_host_primitive(c)?),
            Column::Int16(c) => Column::Int16(self.to_host_primitive(c)?),
            Column::Int32(c) => Column::Int32(self.to_host_primitive(c)?),
            Column::Int64(c) => Column::Int64(self.to_host_primitive(c)?),
            Column::UInt8(c) => Column::UInt8(self.to_host_primitive(c)?),
            Column::UInt16(c) => Column::UInt16(self.to_host_primitive(c)?),
            Column::UInt32(c) => Column::UInt32(self.to_host_primitive(c)?),
            Column::UInt64(c) => Column::UInt64(self.to_host_primitive(c)?),
            Column::Float32(c) => Column::Float32(self.to_host_primitive(c)?),
            Column::Float64(c) => Column::Float64(self.to_host_primitive(c)?),
            Column::Boolean(c) => Column::Boolean(self.to_host_booleans(c)?),
            Column::Utf8(c) => Column::Utf8(self.to_host_strings(c)?),
            Column::LargeUtf8(c) => Column::LargeUtf8(self.to_host_strings(c)?),
            Column::List(c) => Column::List(self.to_host_list(c)?),
            Column::LargeList(c) => Column::LargeList(self.to_host_list(c)?),
            Column::ListView(c) => Column::ListView(self.to_host_list_view(c)?),
            Column::LargeListView(c) => Column::LargeListView(self.to_host_list_view(c)?),
        })
    }

    /// Copy a host sequences column to this backend.
    ///
    /// # Errors
    /// As [`Memory::upload`].
    fn to_device_sequences(&self, col: &SequenceColumn<Host>) -> Result<SequenceColumn<Self::Loc>> {
        let codes = self.upload(col.codes())?;
        let offsets = self.upload(col.offsets())?;
        // SAFETY: exact copies of a checked host column's buffers.
        Ok(unsafe { SequenceColumn::new_unchecked(codes, offsets, col.alphabet_size()) })
    }

    /// Copy a sequences column of this backend to the host.
    ///
    /// # Errors
    /// As [`Memory::download`].
    fn to_host_sequences(&self, col: &SequenceColumn<Self::Loc>) -> Result<SequenceColumn<Host>> {
        let codes = self.download(col.codes())?;
        let offsets = self.download(col.offsets())?;
        // SAFETY: exact copies of a column whose invariants hold on this backend.
        Ok(unsafe { SequenceColumn::new_unchecked(codes, offsets, col.alphabet_size()) })
    }

    /// Copy host sketches to this backend.
    ///
    /// # Errors
    /// As [`Memory::upload`].
    fn to_device_sketches(&self, col: &SketchColumn<Host>) -> Result<SketchColumn<Self::Loc>> {
        SketchColumn::try_new(self.upload(col.values())?, col.dim())
    }

    /// Copy sketches of this backend to the host.
    ///
    /// # Errors
    /// As [`Memory::download`].
    fn to_host_sketches(&self, col: &SketchColumn<Self::Loc>) -> Result<SketchColumn<Host>> {
        SketchColumn::try_new(self.download(col.values())?, col.dim())
    }

    /// Copy a distance matrix of this backend to the host.
    ///
    /// # Errors
    /// As [`Memory::download`].
    fn to_host_distances(&self, m: &DistanceMatrix<Self::Loc>) -> Result<DistanceMatrix<Host>> {
        DistanceMatrix::try_new(self.download(m.values())?, m.rows(), m.cols())
    }
}
