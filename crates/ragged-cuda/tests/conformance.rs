//! The backend conformance suite (ragged-testkit) instantiated for the CUDA backend.
//!
//! Without a usable GPU every test prints `skipped: <reason>` and returns; with
//! `RAGGED_REQUIRE_CUDA=1` (set by `scripts/gpu-run.sh`) a missing GPU fails instead.
//! Options come from the environment (`RAGGED_MEMORY_LIMIT`, `RAGGED_POOL=off` for
//! compute-sanitizer runs).

ragged_testkit::conformance_suite!(ragged_cuda::CudaOptions::from_env()
    .and_then(|options| ragged_cuda::CudaBackend::new(0, options))
    .map_err(|e| e.to_string()));
