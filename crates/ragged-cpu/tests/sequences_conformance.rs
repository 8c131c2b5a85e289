//! The sequences conformance suite (ragged-testkit) instantiated for the CPU backend.

ragged_testkit::sequences_conformance_suite!(Ok::<_, String>(ragged_cpu::CpuBackend::new()));
