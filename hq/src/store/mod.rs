//! The head office's PostgreSQL: the shops and their owners, the shops' shipped rows and the
//! batches that bring them, the chain's numbering and central products, the audit trail, and the
//! rows every report reads. Nothing here knows HTTP (`hq::server`).

pub mod apply;
pub mod audit;
pub mod catalog;
pub mod columns;
pub mod days;
pub mod db;
pub mod filter;
pub mod held;
pub mod invoices;
pub mod numbering;
pub mod report_rows;
pub mod reports;
pub mod shops;
pub mod today;

pub use super::{Error, Result};
