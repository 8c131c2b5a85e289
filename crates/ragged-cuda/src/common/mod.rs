//! Checks shared by every family.

pub(crate) mod validate_offsets;
