//! Cancellation: a corrective document (`CorrectiveInv` of type CORRECTIVE naming the original's
//! IIC and IssueDateTime) reverses the whole invoice or part of it, with negative quantities and
//! amounts. It travels the pipeline as any document of its original's type: a cash original's is
//! numbered on the cancelling user's till (so a cash cancellation queues behind that till's cash
//! issues, and the till's balance gives back what it reverses), a non-cash original's on the
//! business. Kept and queued when the CIS does not answer; given up when it refuses.

use rust_decimal::Decimal;

use super::super::pipeline::Issued;
use super::super::{Corrections, Error, Result};
use super::content::InvoiceDocument;
use super::content::{Content, Links, internal_id, sale_day_and_today, this_year, user_codes};
use crate::domain::cancellation::{self, CancelLineInput, Reversed, Reversible, WholeOnly};
use crate::domain::currency::RateBasis;
use crate::domain::document::{ApiVersion, DocumentKind, InvoiceType};
use crate::domain::invoice::{self as rules, Exemption};
use crate::domain::role;
use crate::domain::spelled::Spelled;
use crate::domain::validation::FieldErrors;
use crate::fiscal::model::{CorrectiveInv, CorrectiveInvType};
use crate::store::accounts::Caller;
use crate::store::invoices::{self as db, Invoice, LastReversal};

/// Which invoice a cancellation names.
#[derive(Debug, Clone)]
pub enum Cancelled {
    Id(i64),
    /// Issued this year with this internalId.
    InternalId(String),
}

/// A cancellation after the edge read it.
#[derive(Debug, Clone)]
pub struct CancelRequest {
    pub api_version: ApiVersion,
    pub invoice: Cancelled,
    /// `None`: the whole invoice.
    pub lines: Option<Vec<CancelLineInput>>,
    /// The corrective document's own internalId (trimmed), its idempotency key as an
    /// invoice's; `None`: Arka names it `<original's>/cancel-<n>`.
    pub internal_id: Option<String>,
}

/// A stored line, priced as the rules priced it.
fn priced(line: &db::Line) -> rules::Line {
    rules::Line {
        product_name: line.product_name.clone(),
        product_code: line.product_code.clone(),
        unit: line.unit.clone(),
        unit_code: line.unit_code.clone(),
        quantity: line.quantity,
        unit_price: line.price,
        unit_price_before_vat: line.unit_price_net,
        discount_rate: line.discount_rate,
        discount: line.discount,
        total: line.total,
        rebate: line.rebate,
        price_before_vat: line.net,
        vat_rate: line.vat_rate,
        vat_amount: line.vat,
        price_after_vat: line.gross,
        exemption: line.exemption.as_deref().and_then(<Exemption as Spelled>::parse),
    }
}

/// An order some of whose lines a summary paid (a guest's bill of its table).
pub(super) const PARTLY_PAID: &str = "Part of the order is paid by a summary invoice: cancel the summary.";

/// Why the invoice cannot be cancelled in its state (422 on `invoice`), or whether it is
/// cancelled whole only.
fn cancellable(original: &Invoice) -> Result<Option<WholeOnly>> {
    let refused = |message: &str| Err(FieldErrors::one("invoice", message).into());
    if original.document_kind == DocumentKind::Corrective {
        return refused("A corrective document cannot be cancelled.");
    }
    if original.settled_by.is_some() {
        return refused("The order is paid by a summary invoice: cancel the summary.");
    }
    if original.fic.is_none() {
        return refused(
            "The invoice is not registered with the CIS yet (it waits for late delivery): cancel it once it is fiscalized.",
        );
    }
    Ok(if original.document_kind == DocumentKind::Order {
        Some(WholeOnly::Order)
    } else if original.kind == InvoiceType::NonCash {
        Some(WholeOnly::NonCash)
    } else if original.totals.discount_gross != Decimal::ZERO {
        Some(WholeOnly::InvoiceDiscount)
    } else {
        None
    })
}

/// An invoice with nothing left to cancel, named by its last corrective document.
fn wholly_cancelled(last: Option<&LastReversal>) -> Error {
    let message = match last {
        Some(last) => format!(
            "The invoice is already wholly cancelled, last by the corrective document {} ({}); read it with details by internalId.",
            last.internal_id, last.number
        ),
        None => "The invoice is already wholly cancelled.".to_string(),
    };
    FieldErrors::one("invoice", message).into()
}

impl Corrections<'_> {
    /// The invoice a cancellation names, when the caller may cancel it: any of the company's for
    /// a manager, a cashier's own sale of the same business day for a cashier.
    async fn cancelled_original(&self, caller: &Caller, invoice: &Cancelled) -> Result<Invoice> {
        let original = match invoice {
            Cancelled::Id(id) => self.services.selling().company_invoice(caller, *id).await?,
            Cancelled::InternalId(internal_id) => {
                self.services.selling().company_invoice_by_internal_id(caller, internal_id).await?
            }
        };
        let (sale_day, today) =
            sale_day_and_today(original.id, &original.issue_date, self.services.clock.utc())?;
        role::may_cancel(caller.reader(), original.user_id, sale_day, today)?;
        Ok(original)
    }

    /// `POST /invoice/cancel/{id}` and `/invoice/cancel-by-internal-id/{internalId}`. Sent again,
    /// with an internalId of its own it is looked up first, as any invoice's; an invoice its
    /// earlier cancellations left empty is 422 naming the last of them.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn cancel_invoice(&self, caller: &Caller, req: CancelRequest) -> Result<Issued<Invoice>> {
        let year = this_year(self.services.clock.utc());
        if let Some(own) = &req.internal_id {
            cancellation::check_own_internal_id(own)?;
            self.services.first_look(&internal_id(caller, year, own)).await?;
        }
        let original = self.cancelled_original(caller, &req.invoice).await?;
        let whole_only = cancellable(&original)?;
        let (operator_code, unit_code, tcr_code) = user_codes(caller, original.kind == InvoiceType::Cash)?;
        let original_id = original.id;
        if self.services.store.read(move |conn| crate::store::tables::partly_paid(conn, original_id)).await? {
            return Err(FieldErrors::one("invoice", PARTLY_PAID).into());
        }
        let (company_id, names) = (caller.company.id, format!("{}/cancel-", original.internal_id));
        let (corrections_seen, reversed, refunded, last, taken) = self
            .services
            .store
            .read(move |conn| {
                Ok((
                    db::corrective_count(conn, original_id)?,
                    db::reversed_so_far(conn, original_id)?,
                    db::refunded_so_far(conn, original_id)?,
                    db::last_reversal(conn, original_id)?,
                    db::internal_ids_beginning(conn, company_id, year, &names)?,
                ))
            })
            .await?;
        let lines: Vec<Reversible> = original
            .lines
            .iter()
            .enumerate()
            .map(|(position, line)| Reversible {
                line: priced(line),
                reversed: reversed
                    .iter()
                    .find(|(p, _)| usize::try_from(*p).is_ok_and(|p| p == position))
                    .map(|(_, r)| *r)
                    .unwrap_or_else(Reversed::default),
            })
            .collect();
        if cancellation::wholly_cancelled(&lines) {
            return Err(wholly_cancelled(last.as_ref()));
        }
        let quantities = cancellation::quantities(&lines, req.lines.as_deref(), whole_only)?;
        let reversal = cancellation::reversal(&lines, &quantities);
        // A fee goes back with the whole invoice; a partial cancellation has none to give.
        let fee = if req.lines.is_none() { -original.totals.fee } else { Decimal::ZERO };
        let refund = -(reversal.iter().map(|(_, l)| l.price_after_vat).sum::<Decimal>() + fee);
        let refunds = cancellation::refunds(&original.payments, &refunded, refund);
        let positions: Vec<i64> = reversal.iter().filter_map(|(p, _)| i64::try_from(*p).ok()).collect();
        let computed = rules::from_priced(
            reversal.into_iter().map(|(_, line)| line).collect(),
            caller.company.issuer_in_vat,
            fee,
            original.exchange_rate,
            refunds,
        );
        let issued = crate::domain::time::parse_stored(&original.issued_at).ok_or(Error::Unreadable {
            what: "issue time",
            id: original.id,
            cause: None,
        })?;
        let issuer = self.services.issuer(caller, operator_code, unit_code, tcr_code).await?;
        let content = Content {
            document_kind: DocumentKind::Corrective,
            invoice_type: original.kind,
            links: Links::Reverses { original_id, positions, corrections_seen },
            internal_id: req.internal_id.unwrap_or_else(|| {
                cancellation::cancellation_name(&original.internal_id, corrections_seen + 1, &taken)
            }),
            api_version: req.api_version,
            computed,
            buyer: original.buyer.clone(),
            corrective: Some(CorrectiveInv {
                iic_ref: original.iic.clone(),
                issue_date_time: issued,
                kind: CorrectiveInvType::Corrective,
            }),
            due: None,
            supply_start: None,
            supply_end: None,
            currency: original.currency.clone(),
            self_issue_type: original.self_issue_type.clone(),
            reverse_charge: original.reverse_charge,
            periodic_invoice: false,
            notes: None,
            doc_type: None,
            original_invoice_iic: Some(original.iic.clone()),
            bank_account: original.bank_account.clone(),
            // The link stays the original's: its cancellation gives back to the note through it.
            wtn: None,
            invoice_discount_type: None,
            invoice_discount_value: None,
            rate_basis: original.exchange_rate_origin.map(|origin| RateBasis {
                rate: original.exchange_rate,
                origin,
                date: original.exchange_rate_date.as_deref().and_then(|d| d.parse().ok()),
            }),
            einvoice: None,
            // Audited as the cancellation it is (`Links::Reverses`).
            corrects: None,
        };
        let sequence = issuer.sequence(original.kind);
        self.services.issue(InvoiceDocument { issuer, content, sequence, year, test_sale_by: None }).await
    }
}
