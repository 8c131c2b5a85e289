//! The lists conformance suite (ragged-testkit) instantiated for the CUDA backend.
//! Every test is `#[ignore]`d — reported as ignored, not passed, where no GPU runs it —
//! and runs with `--include-ignored` (as `scripts/gpu-run.sh` runs it); without a usable
//! GPU it then prints `skipped: <reason>` and returns, and with
//! `RAGGED_REQUIRE_CUDA=1` a missing GPU fails instead.

ragged_testkit::lists_conformance_suite!(
    #[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
    ragged_cuda::CudaOptions::from_env()
        .and_then(|options| ragged_cuda::CudaBackend::new(0, options))
        .map_err(|e| e.to_string())
);
