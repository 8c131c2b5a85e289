//! The backend conformance suite (ragged-testkit) instantiated for the CPU backend,
//! which is always available.

ragged_testkit::conformance_suite!(Ok::<_, String>(ragged_cpu::CpuBackend::new()));
