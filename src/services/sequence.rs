//! The numbering sequences: what a document takes its number from, and the key of the lock and
//! of the lane its documents share. Below the pipeline and the queue, which both name them.

use chrono::Datelike;
use chrono_tz::Europe::Tirane;
use rusqlite::Connection;

use crate::domain::document::InvoiceType;
use crate::domain::numbering::{CarriedOver, SequenceName, next_ordinal};
use crate::store::{self, held_numbers, invoices};

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

/// The next number of `sequence` in `year`, read by the transaction that writes it: after every
/// number issued, every number held for a retry and the sequence's floor. The pipeline numbers
/// with it, and a chain's shop tells the head office where its own books stand with it.
pub fn reserve_number(
    tx: &Connection,
    company_id: i64,
    year: i32,
    sequence: &Sequence,
) -> store::Result<i64> {
    let (issued, carried) = match sequence {
        Sequence::WtnUnit(unit) => (crate::store::wtn::max_ord_num(tx, company_id, *unit, year)?, None),
        Sequence::Till(tcr) => {
            (invoices::max_ord_num(tx, company_id, year, InvoiceType::Cash, Some(tcr))?, None)
        }
        Sequence::Business => (
            invoices::max_ord_num(tx, company_id, year, InvoiceType::NonCash, None)?,
            invoices::noncash_carried_over(tx, company_id)?.and_then(|(last, registered)| {
                crate::domain::time::parse_stored(&registered)
                    .map(|at| CarriedOver { year: at.with_timezone(&Tirane).year(), last })
            }),
        ),
    };
    let key = sequence.key();
    let held = held_numbers::max_held(tx, company_id, &key, year)?;
    // After a restore over newer documents: the numbers the CIS registered from the replaced
    // database are not in this one, and are not given again.
    let floor = crate::store::numbering::floor(tx, company_id, &key, year)?;
    Ok(next_ordinal(issued.max(held).max(floor), carried, year))
}
