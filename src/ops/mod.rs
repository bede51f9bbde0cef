//! Operations: what keeps a shop's server safe and observable beside the fiscal work. Each module
//! is a room of its own with its own rule (see the book's "The rooms and what each may import"):
//! `files` (the data dir's modes) sits below the store, `backup` above it; `windows` holds what
//! only a Windows PC needs (the service, the data dir's access list, the firewall rule).

pub mod backup;
pub mod copy;
pub mod data_lock;
pub mod files;
pub mod metrics;
pub mod secrets;
pub mod tls;
pub mod windows;
