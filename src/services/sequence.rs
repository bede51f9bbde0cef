//! The numbering sequences: what a document takes its number from, and the key of the lock and
//! of the lane its documents share. Below the pipeline and the queue, which both name them.

use crate::domain::numbering::SequenceName;

/// The numbering sequence a document takes its number from. Its lock serializes the numbering
/// and saving of the sequence's documents, so numbers are consecutive; their delivery runs
/// outside it, in the sequence's lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sequence {
    /// The TCR's cash sequence (`<n>/<year>/<TCR>` at the CIS): cash invoices, orders, summaries
    /// and the corrective documents of cash invoices.
    Till(String),
    /// The business's non-cash sequence: non-cash invoices and their corrective documents.
    Business,
    /// A business unit's warehouse transfer notes (`<n>/<year>` at the CIS, no TCR), by the
    /// unit's id.
    WtnUnit(i64),
}

impl Sequence {
    /// The key of its lock and of its lane of documents on their way to the CIS.
    pub(super) fn lock_key(&self, company_id: i64) -> String {
        match self {
            Sequence::Till(tcr) => format!("cash:{company_id}:{tcr}"),
            Sequence::Business => format!("noncash:{company_id}"),
            Sequence::WtnUnit(unit) => format!("wtn:{company_id}:{unit}"),
        }
    }

    /// The sequence within its company, as held numbers and numbering floors name it.
    pub fn key(&self) -> String {
        let name = match self {
            Sequence::Till(tcr) => SequenceName::Till(tcr.clone()),
            Sequence::Business => SequenceName::NonCash,
            Sequence::WtnUnit(id) => SequenceName::WtnUnit { id: *id, code: String::new() },
        };
        name.key()
    }

    /// The TCR of a till's sequence.
    pub fn tcr_code(&self) -> Option<&str> {
        match self {
            Sequence::Till(tcr) => Some(tcr),
            Sequence::Business | Sequence::WtnUnit(_) => None,
        }
    }
}
