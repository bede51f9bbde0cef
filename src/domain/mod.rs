//! Pure rules: no I/O, no async. Plain structs in, plain structs or typed errors out.

pub mod client;
pub mod product;
pub mod time;
pub mod validation;
