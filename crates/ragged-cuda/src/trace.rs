//! The trace switch and timer of `ragged_core::trace`, under this crate's name.

pub(crate) use ragged_core::trace::timed;
