//! Operations below the store: the data dir's modes (`files`) and lock (`data_lock`), tokens and
//! the key file (`secrets`), the counters (`metrics`), and what only a Windows PC needs
//! (`windows`: the service, the data dir's access list, the firewall rule). Each module is a room
//! of its own with its own rule (the book's "The rooms and what each may import"); what stands
//! above the store (backups, HTTPS) is `crate::backup` and `crate::tls`.

pub mod data_lock;
pub mod files;
pub mod metrics;
pub mod secrets;
pub mod windows;
