//! The invoices a head office reads from the rows a shop shipped it (`wire`): each table's rows
//! through the same mappers the shop's store reads its own with (`invoice::rows`), put together
//! as the shop's `store::invoices::by_id` puts an invoice together. No database of the shop's
//! schema in between.

use serde_json::{Map, Value};

use super::{Invoice, rows, whole_verify_url};
use crate::domain::cancellation;
use crate::domain::document::DocumentKind;
use crate::row::{Columns, Result};

/// A shop's shipped rows of some documents and of what they name: their lines, payments, notes,
/// bank accounts, e-invoices, a summary's orders and the corrective documents of each.
pub struct Shipped {
    rows: Vec<(String, Map<String, Value>)>,
}

impl Shipped {
    /// `rows`: (table, row) as the shop shipped them.
    pub fn new(rows: Vec<(String, Map<String, Value>)>) -> Shipped {
        Shipped { rows }
    }

    /// The rows of `table` whose column `column` is `value`.
    fn of<'a>(
        &'a self,
        table: &'static str,
        column: &'static str,
        value: i64,
    ) -> impl Iterator<Item = Result<&'a Map<String, Value>>> {
        self.rows.iter().filter(move |(t, _)| t == table).filter_map(move |(_, r)| match r.int_opt(column) {
            Ok(Some(v)) if v == value => Some(Ok(r)),
            Ok(_) => None,
            Err(e) => Some(Err(e)),
        })
    }

    /// The rows of `table` naming `id` in `column`, in the order of their column `order`.
    fn sorted(
        &self,
        table: &'static str,
        column: &'static str,
        id: i64,
        order: &str,
    ) -> Result<Vec<&Map<String, Value>>> {
        let mut found = Vec::new();
        for r in self.of(table, column, id) {
            let r = r?;
            found.push((r.int(order)?, r));
        }
        found.sort_by_key(|(position, _)| *position);
        Ok(found.into_iter().map(|(_, r)| r).collect())
    }

    fn invoice_row(&self, id: i64) -> Result<Option<&Map<String, Value>>> {
        self.of("invoices", "id", id).next().transpose()
    }

    /// The kind of the document `id`, if its row was shipped.
    pub fn document_kind(&self, id: i64) -> Result<Option<DocumentKind>> {
        match self.invoice_row(id)? {
            Some(r) => r.spelled_opt::<DocumentKind>("document_kind", "a document's kind"),
            None => Ok(None),
        }
    }

    /// The document `id` with what it is read with, as the shop reads it; none when its row was
    /// not shipped.
    pub fn invoice(&self, id: i64) -> Result<Option<Invoice>> {
        let Some(row) = self.invoice_row(id)? else { return Ok(None) };
        let mut invoice = whole_verify_url(rows::invoice(row)?);
        if let Some(account) = invoice.bank_account_id {
            for r in self.of("bank_accounts", "id", account) {
                let r = r?;
                if r.int("company_id")? == invoice.company_id {
                    invoice.bank_account = Some(rows::bank_account(r)?);
                }
            }
        }
        if let Some(e) = self.of("einvoices", "invoice_id", id).next() {
            invoice.process = Some(e?.text("process")?);
        }
        if let Some(link) = self.of("invoice_wtns", "invoice_id", id).next()
            && let Some(note) = self.of("wtns", "id", link?.int("wtn_id")?).next()
        {
            invoice.wtn = Some(rows::wtn_ref(note?)?);
        }
        invoice.wtn_id = invoice.wtn.as_ref().map(|w| w.id);
        invoice.lines = self
            .sorted("invoice_lines", "invoice_id", id, "position")?
            .into_iter()
            .map(rows::line)
            .collect::<Result<_>>()?;
        invoice.payments = self
            .sorted("invoice_payments", "invoice_id", id, "position")?
            .into_iter()
            .map(rows::payment)
            .collect::<Result<_>>()?;
        if invoice.document_kind == DocumentKind::Summary {
            invoice.settled_orders = self
                .sorted("invoices", "settled_by_invoice_id", id, "id")?
                .into_iter()
                .map(rows::settled_order)
                .collect::<Result<_>>()?;
        }
        if invoice.reversed_at.is_some() {
            invoice.remains = Some(self.remains(&invoice)?);
        }
        Ok(Some(invoice))
    }

    /// What the corrective documents of `invoice` left of it, as the shop's `remains_of` reads it.
    fn remains(&self, invoice: &Invoice) -> Result<cancellation::Remains> {
        let mut reversed: Vec<(i64, rust_decimal::Decimal)> = Vec::new();
        let mut totals = Vec::new();
        for corrective in self.of("invoices", "original_invoice_id", invoice.id) {
            let corrective = corrective?;
            totals.push(corrective.decimal("total")?);
            for line in self.of("invoice_lines", "invoice_id", corrective.int("id")?) {
                let line = line?;
                let Some(position) = line.int_opt("original_position")? else { continue };
                let quantity = -line.decimal("quantity")?;
                match reversed.iter_mut().find(|(p, _)| *p == position) {
                    Some((_, sum)) => *sum += quantity,
                    None => reversed.push((position, quantity)),
                }
            }
        }
        let quantities: Vec<_> = invoice.lines.iter().map(|l| l.quantity).collect();
        Ok(cancellation::remains(&quantities, &reversed, invoice.totals.total, &totals))
    }
}
