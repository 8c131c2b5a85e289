//! # ragged-cuda
//!
//! The CUDA backend of ragged.

pub mod compile;
pub mod probe;
pub mod toolkit;

pub use probe::{cuda_status, CudaStatus, DeviceInfo};
