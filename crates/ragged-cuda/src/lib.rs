//! # ragged-cuda
//!
//! The CUDA backend of ragged: device columns ([`Device`] location), a stream-ordered
//! memory pool with a memory limit, pinned transfers, kernels in CUDA C++ built into the
//! binary ahead of time or compiled at run time by NVRTC for the device's exact
//! architecture (cached on disk), and the
//! device error word.
//!
//! Nothing here touches the CUDA driver before [`cuda_status`] has confirmed it is
//! usable, so every program links and runs on machines without a GPU.
//!
//! Layout: `probe.rs` (is CUDA usable), `toolkit.rs` (NVRTC + CCCL headers),
//! `compile.rs` (module registry, NVRTC, disk cache), `built_in.rs` (modules compiled
//! ahead of time into the binary), `memory.rs` (pool, buffers),
//! `backend.rs` (the backend, transfers, timing), `launch.rs` (the only raw launches),
//! `error_word.rs`, and one file per op under `<family>/`, mirroring `kernels/`.

mod backend;
pub mod built_in;
mod common;
pub mod compile;
mod error_word;
mod launch;
mod lists;
mod memory;
mod primitives;
pub mod probe;
mod sequences;
mod strings;
mod text;
pub mod toolkit;
mod transfer;

pub use backend::{parse_size, CudaBackend, CudaOptions, MemoryStats, ModuleOrigin};
pub use memory::{Device, DeviceBitmap, DeviceBuffer, PinnedBuffer, REGISTER_MIN};
pub use probe::{cuda_status, CudaStatus, DeviceInfo};
