//! The text (lines) conformance suite (ragged-testkit) instantiated for the CPU
//! backend.

ragged_testkit::text_conformance_suite!(Ok::<_, String>(ragged_cpu::CpuBackend::new()));
