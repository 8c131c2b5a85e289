//! Checks shared by every family.

pub(crate) mod offset_lengths;
pub(crate) mod validate_offsets;
