//! The data dir's modes (0700, 0600; on Windows its access list) are the edge's
//! (`arka_edge::files`): the head office's TLS key is written with them too.

pub use arka_edge::files::{private_dir, private_file, private_if_present};
