//! The store's own enumerations stored as their text, as the domain's are (`arka_core::columns`):
//! written as their `as_str`, read back exactly.

use super::fiscal_queue::{Document, Status};

arka_core::columns::text_column!(Document, Status);
