//! Checks and helpers shared by every family.

pub(crate) mod bits;

pub(crate) mod offset_lengths;
pub(crate) mod validate_offsets;
