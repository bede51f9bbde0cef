//! What a fiscal document is.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_read_back_as_written() {
        for t in [InvoiceType::Cash, InvoiceType::NonCash] {
            assert_eq!(InvoiceType::parse(t.as_str()), Some(t));
        }
        assert_eq!(InvoiceType::parse("EINVOICE"), None);
    }
}
