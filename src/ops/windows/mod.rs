//! Windows: the data dir's access list (`acl`), the service's registration and settings file
//! (`service`) and the firewall rule (`firewall`). What they hand Windows is built by pure
//! functions compiled and tested on every platform; the calls to Windows sit behind
//! `#[cfg(windows)]`.

pub mod acl;
pub mod firewall;
pub mod service;
