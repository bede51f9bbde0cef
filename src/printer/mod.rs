//! The shop's thermal printer: an issued invoice as ESC/POS bytes (`receipt`), on code page 858
//! (`cp858`), with the printer's own QR command, cut and drawer pulse (`escpos`), sent over the
//! network or to a USB device file (`transport`).
//!
//! The bytes are written here rather than through the `escpos` crate: a receipt needs a dozen
//! commands, the crate's drivers are blocking and own their connection (no bounded paper-status
//! read before the receipt, no async), and its text goes through its own page tables; a few
//! hundred lines keep every byte the printer gets visible and tested against a decoder.

pub mod cp858;
pub mod escpos;
pub mod receipt;
pub mod transport;

pub use receipt::{Extras, render, test_page};
pub use transport::{Connection, Error, send};
