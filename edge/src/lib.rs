//! Arka's HTTP edge, the one both servers answer through: a shop's (`arka serve`) and its head
//! office's (`arka hq serve`). The spec's envelopes and their one writer (`error`), the readers of
//! bodies, queries and paths that answer a bad one with a 422 naming the field (`extract`), a
//! list's query (`list`), the owner's page's files (`web`), serving over TCP or TLS (`serve`,
//! `tls`), tokens and their hashes (`secrets`), the private files a key is written to (`files`,
//! `acl`) and the one line a failure is logged with (`error_chain`). It builds on the core
//! (`arka-core`) alone: what a shop or the head office answers stays in their crates.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod acl;
pub mod error;
pub mod error_chain;
pub mod extract;
pub mod files;
pub mod list;
pub mod reports;
pub mod secrets;
pub mod serve;
pub mod tls;
pub mod web;

pub use error_chain::{ErrorChain, error_chain};
