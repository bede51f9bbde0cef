//! Windows: the data dir's access list (`acl`), the service's registration and settings file
//! (`service`), the firewall rule (`firewall`) and the Start-menu link to the owner's page
//! (`start_menu`). What they hand Windows is built by pure
//! functions compiled and tested on every platform; the calls to Windows sit behind
//! `#[cfg(windows)]`.

pub use arka_edge::acl;
pub mod firewall;
pub mod service;
pub mod start_menu;
