//! # ragged-core
//!
//! The data model and contracts of ragged: Arrow-layout columns generic over where
//! their buffers live ([`Location`]), the structured [`Error`], element and offset
//! types, and the backend traits ([`Backend`] and one trait per op family).
//!
//! No compute lives here: backends (`ragged-cpu`, `ragged-cuda`) implement the traits.
//!
//! ```
//! use ragged_core::{StringColumn, Column};
//! let names = StringColumn::<i32>::from_options([Some("Ada Lovelace"), None]);
//! let array = Column::Utf8(names).to_arrow();
//! assert_eq!(array.len(), 2);
//! ```

pub mod arrow;
pub mod column;
pub mod error;
pub mod host;
pub mod location;
pub mod ops;
pub mod trace;
pub mod types;

pub use column::{
    BinaryColumn, BooleanColumn, Column, ListColumn, ListViewColumn, PrimitiveColumn, StringColumn,
};
pub use error::{Error, OffsetsProblem, Result};
pub use location::{DataBuffer, Host, Location, ValidityBitmap};
pub use ops::{Backend, ListOps, Memory, Primitives, SequenceOps, StringOps, TextOps};
pub use types::{Native, OffsetSize};

/// Re-exported arrow-rs buffer types used in the column API.
pub use arrow_buffer::{NullBuffer, ScalarBuffer};
