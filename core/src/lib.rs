//! Arka's core: what a shop and its chain's head office both hold, and nothing that reaches a
//! disk, a database or the network. The domain's pure rules (`domain`), the invoice as stored
//! (`invoice`), the report model and its pure summing (`report`), a stored row read by name over
//! either database (`row`), and what a shop and its head office say to each other (`wire`). The
//! shop (the crate `arka`) and the head office build on it; it imports neither.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[cfg(feature = "rusqlite")]
pub mod columns;
pub mod domain;
pub mod invoice;
pub mod report;
pub mod row;
pub mod wire;
