//! The strings conformance suite (ragged-testkit) instantiated for the CPU backend.

ragged_testkit::strings_conformance_suite!(Ok::<_, String>(ragged_cpu::CpuBackend::new()));
