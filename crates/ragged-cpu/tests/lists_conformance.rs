//! The lists conformance suite (ragged-testkit) instantiated for the CPU backend.

ragged_testkit::lists_conformance_suite!(Ok::<_, String>(ragged_cpu::CpuBackend::new()));
