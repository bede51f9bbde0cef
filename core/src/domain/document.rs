//! What a fiscal document is: its type (the CIS's `TypeOfInv` and its numbering sequence) and
//! its kind (what the list and reports tell apart).

use super::spelled::spelled;

spelled! {
    /// Cash or non-cash: the CIS's `TypeOfInv`, the list's `type`, and the numbering sequence a
    /// document takes its number from (a cash document on its TCR, a non-cash one on the business).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum InvoiceType {
        Cash = "CASH",
        NonCash = "NONCASH",
    }
}

spelled! {
    /// What a document is, as the list (`document_kind`) and reports tell them apart.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum DocumentKind {
        /// A cash sale on a TCR.
        Cash = "CASH",
        /// A non-cash invoice of the business (credit and debit notes included).
        NonCash = "NONCASH",
        /// An order invoice opening a restaurant's table: paid later by a summary, paid with ORDER.
        Order = "ORDER",
        /// A summary invoice paying one or more orders.
        Summary = "SUMMARY",
        /// The corrective document of a cancellation (whole or partial), reversing its original.
        Corrective = "CORRECTIVE",
    }
}

spelled! {
    /// The invoice list's `type` filter. An e-invoice is a non-cash invoice registered on the
    /// e-invoice platform; NONCASH lists the other non-cash ones.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ListedType {
        Cash = "CASH",
        NonCash = "NONCASH",
        EInvoice = "EINVOICE",
    }
}

impl DocumentKind {
    /// The type of a document issued as this kind; a corrective document takes its original's.
    pub fn invoice_type(self) -> Option<InvoiceType> {
        match self {
            DocumentKind::Cash | DocumentKind::Order | DocumentKind::Summary => Some(InvoiceType::Cash),
            DocumentKind::NonCash => Some(InvoiceType::NonCash),
            DocumentKind::Corrective => None,
        }
    }
}

/// The version of the API a document was asked for through (`/api/v1/…` or `/api/v2/…`): the
/// shape of its answers, a repeat's included, and what each version requires of the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApiVersion {
    V1,
    V2,
}

impl ApiVersion {
    /// The number in the path, and in the stored `api_version` column.
    pub fn number(self) -> i64 {
        match self {
            ApiVersion::V1 => 1,
            ApiVersion::V2 => 2,
        }
    }

    pub fn from_number(number: i64) -> Option<ApiVersion> {
        match number {
            1 => Some(ApiVersion::V1),
            2 => Some(ApiVersion::V2),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_and_kinds_read_back_as_written() {
        for t in [InvoiceType::Cash, InvoiceType::NonCash] {
            assert_eq!(InvoiceType::parse(t.as_str()), Some(t));
        }
        assert_eq!(InvoiceType::parse("EINVOICE"), None);
        for k in DocumentKind::ALL {
            assert_eq!(DocumentKind::parse(k.as_str()), Some(k));
        }
    }

    #[test]
    fn api_versions_read_back_from_their_numbers() {
        for v in [ApiVersion::V1, ApiVersion::V2] {
            assert_eq!(ApiVersion::from_number(v.number()), Some(v));
        }
        assert_eq!(ApiVersion::from_number(3), None);
    }

    #[test]
    fn a_table_is_a_till_document() {
        // | kind       | type of invoice |
        assert_eq!(DocumentKind::Order.invoice_type(), Some(InvoiceType::Cash));
        assert_eq!(DocumentKind::Summary.invoice_type(), Some(InvoiceType::Cash));
        assert_eq!(DocumentKind::NonCash.invoice_type(), Some(InvoiceType::NonCash));
        assert_eq!(DocumentKind::Corrective.invoice_type(), None);
    }
}
