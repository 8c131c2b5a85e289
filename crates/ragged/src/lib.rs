//! # ragged
//!
//! Ragged (variable-length) columnar data in Apache Arrow layout — strings columns, list
//! columns, lines of text and biological sequences — on the CPU and on CUDA GPUs.
//!
//! This is the facade crate users depend on: it re-exports the data model of
//! [`ragged_core`] (columns, [`Error`], backend traits) and adds file IO ([`io`]) and the streaming split of files into records
//! ([`lines`]).

pub mod bench;
pub mod compute;
pub mod device;
pub mod info;
pub mod io;
pub mod lines;
mod mapped;

pub use ragged_cpu::CpuBackend;
pub use ragged_cuda::{cuda_status, CudaBackend, CudaOptions, CudaStatus};

pub use ragged_core::*;
