//! Pure rules: no I/O, no async. Plain structs in, plain structs or typed errors out.

pub mod audit;
pub mod cancellation;
pub mod cash_register;
pub mod chat;
pub mod client;
pub mod currency;
pub mod discount;
pub mod document;
pub mod einvoice;
pub mod error;
pub mod invoice;
pub mod marketplace;
pub mod money;
pub mod numbering;
pub mod payments;
pub mod product;
pub mod product_import;
pub mod report;
pub mod role;
pub mod sales_day;
pub mod spelled;
pub mod stock;
pub mod table;
pub mod time;
pub mod validation;
pub mod wtn;
