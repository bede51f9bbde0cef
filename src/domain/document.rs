//! What a fiscal document is: its type (the CIS's `TypeOfInv` and its numbering sequence) and
//! its kind (what the list and reports tell apart).

/// Cash or non-cash: the CIS's `TypeOfInv`, the list's `type`, and the numbering sequence a
/// document takes its number from (a cash document on its TCR, a non-cash one on the business).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InvoiceType {
    Cash,
    NonCash,
}

impl InvoiceType {
    pub fn as_str(self) -> &'static str {
        match self {
            InvoiceType::Cash => "CASH",
            InvoiceType::NonCash => "NONCASH",
        }
    }

    pub fn parse(text: &str) -> Option<InvoiceType> {
        [InvoiceType::Cash, InvoiceType::NonCash].into_iter().find(|t| t.as_str() == text)
    }
}

/// What a document is, as the list (`document_kind`) and reports tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DocumentKind {
    /// A cash sale on a TCR.
    Cash,
    /// A non-cash invoice of the business (credit and debit notes included).
    NonCash,
    /// An order invoice opening a restaurant's table: paid later by a summary, paid with ORDER.
    Order,
    /// A summary invoice paying one or more orders.
    Summary,
    /// The corrective document of a cancellation (whole or partial), reversing its original.
    Corrective,
}

impl DocumentKind {
    pub const ALL: [DocumentKind; 5] = [
        DocumentKind::Cash,
        DocumentKind::NonCash,
        DocumentKind::Order,
        DocumentKind::Summary,
        DocumentKind::Corrective,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DocumentKind::Cash => "CASH",
            DocumentKind::NonCash => "NONCASH",
            DocumentKind::Order => "ORDER",
            DocumentKind::Summary => "SUMMARY",
            DocumentKind::Corrective => "CORRECTIVE",
        }
    }

    pub fn parse(text: &str) -> Option<DocumentKind> {
        DocumentKind::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// The type of a document issued as this kind; a corrective document takes its original's.
    pub fn invoice_type(self) -> Option<InvoiceType> {
        match self {
            DocumentKind::Cash | DocumentKind::Order | DocumentKind::Summary => Some(InvoiceType::Cash),
            DocumentKind::NonCash => Some(InvoiceType::NonCash),
            DocumentKind::Corrective => None,
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
    fn a_table_is_a_till_document() {
        // | kind       | type of invoice |
        assert_eq!(DocumentKind::Order.invoice_type(), Some(InvoiceType::Cash));
        assert_eq!(DocumentKind::Summary.invoice_type(), Some(InvoiceType::Cash));
        assert_eq!(DocumentKind::NonCash.invoice_type(), Some(InvoiceType::NonCash));
        assert_eq!(DocumentKind::Corrective.invoice_type(), None);
    }
}
