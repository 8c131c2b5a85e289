//! The text (lines) conformance suite (ragged-testkit) instantiated for the CUDA
//! backend. Without a usable GPU every test prints `skipped: <reason>` and returns;
//! with `RAGGED_REQUIRE_CUDA=1` a missing GPU fails instead.

ragged_testkit::text_conformance_suite!(
    #[ignore = "needs a CUDA GPU: run with --include-ignored (scripts/gpu-run.sh does)"]
    ragged_cuda::CudaOptions::from_env()
        .and_then(|options| ragged_cuda::CudaBackend::new(0, options))
        .map_err(|e| e.to_string())
);
