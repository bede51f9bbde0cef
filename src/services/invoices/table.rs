//! A restaurant's table: order invoices open it, summary invoices pay it. Both are documents
//! of the till's cash sequence and travel the same pipeline as a cash sale: an order is a cash
//! invoice paid with ORDER (kept and queued when the CIS is away, like a receipt, and left out
//! of the cash balance), taken for a named table; a summary copies its orders' lines (all that
//! is left of them, or the lines and quantities of one guest's bill), takes its own invoice
//! discount and payment, names the orders in `SumInvIICRefs`, and records what it paid of each
//! line in its own transaction, settling each order it pays the last of (given up, with the
//! lines open again, when the CIS cannot take it).

use std::collections::BTreeMap;

use rust_decimal::Decimal;

use super::super::pipeline::Issued;
use super::super::{Error, NotNow, Result, Selling};
use super::IssueRequest;
use super::content::InvoiceDocument;
use super::content::{Content, Links, computed, internal_id, this_year, user_codes};
use crate::domain::currency::{Origin, RateBasis};
use crate::domain::document::{ApiVersion, DocumentKind, InvoiceType};
use crate::domain::invoice::{InvoiceInput, LineInput};
use crate::domain::payments::PaymentsInput;
use crate::domain::table::{self, LineChoice, OrderLine};
use crate::domain::validation::FieldErrors;
use crate::store::accounts::Caller;
use crate::store::invoices::{self as db, Invoice, SettledOrder};
use crate::store::tables::{self, Part};

/// An order a summary invoice settles still waits for its FIC (`NotNow::OrderWaiting`), said
/// to POS apps.
pub(in crate::services) fn order_waiting(number: &str) -> String {
    format!(
        "The order {} is still waiting for the fiscalization service (CIS); nothing was saved. Retry with the same internalId once it is fiscalized.",
        number
    )
}

/// A summary request after the edge read v1 or v2.
#[derive(Debug, Clone)]
pub struct SummaryRequest {
    pub api_version: ApiVersion,
    pub internal_id: String,
    /// IICs of the orders it pays.
    pub order_invoices: Vec<String>,
    pub currency: Option<String>,
    pub exchange_rate: Option<Decimal>,
    pub supply_start_date: Option<String>,
    pub supply_end_date: Option<String>,
    pub invoice_discount_type: Option<String>,
    pub invoice_discount_value: Option<Decimal>,
    pub payments: PaymentsInput,
    /// The lines and quantities it pays (a guest's bill); none: all that is left of its orders.
    pub order_lines: Option<Vec<LineChoice>>,
}

/// The summary's line for `quantity` of a line of an order, as the POS would have sent it.
fn copied(line: &db::Line, quantity: Decimal) -> LineInput {
    let total = if quantity == line.quantity {
        line.total
    } else {
        table::part_total(line.price, quantity, line.discount_rate)
    };
    LineInput {
        product_name: Some(line.product_name.clone()),
        product_code: Some(line.product_code.clone()),
        unit: Some(line.unit.clone()),
        unit_code: line.unit_code.clone(),
        quantity: Some(quantity),
        price: Some(line.price),
        total: Some(total),
        discount: Some(line.discount_rate),
        vat: Some(line.vat_rate),
        vat_exempt_type: line.exemption.clone(),
    }
}

/// An open order as a till reads it: the order, the table it was taken for, and what summaries
/// paid so far of each of its lines (by position).
#[derive(Debug, Clone)]
pub struct OpenOrder {
    pub order: Invoice,
    pub table: Option<String>,
    pub paid: BTreeMap<i64, Decimal>,
}

impl OpenOrder {
    /// Each line's quantity and what is left of it.
    pub fn lines(&self) -> Vec<OrderLine> {
        self.order
            .lines
            .iter()
            .enumerate()
            .map(|(position, l)| {
                let paid = i64::try_from(position).ok().and_then(|p| self.paid.get(&p)).copied();
                OrderLine { quantity: l.quantity, left: l.quantity - paid.unwrap_or_default() }
            })
            .collect()
    }
}

impl Selling<'_> {
    /// `POST /invoice/order`: opens a table. The edge refused payment and invoice-discount
    /// fields; the order is paid with ORDER by its summary.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn issue_order(
        &self,
        caller: &Caller,
        req: IssueRequest,
        table: Option<&str>,
    ) -> Result<Issued<Invoice>> {
        let table = table::table_name(table)?;
        let mut document =
            self.invoice_document(caller, IssueRequest { kind: DocumentKind::Order, ..req }).await?;
        if let Some(name) = table {
            document.content.links = Links::ForTable(name);
        }
        self.services.issue(document).await
    }

    /// The open orders a till shows as its tables: a cashier's till's, or every till's for a
    /// manager or an owner; oldest first, each with its table and what is left of its lines.
    pub async fn open_orders_of(&self, caller: &Caller) -> Result<Vec<OpenOrder>> {
        let company_id = caller.company.id;
        let tcr = match caller.user.role {
            crate::domain::role::Role::Cashier => Some(caller.user.tcr_code.clone().unwrap_or_default()),
            _ => None,
        };
        Ok(self
            .services
            .store
            .read(move |conn| {
                db::open_orders(conn, company_id, tcr.as_deref())?
                    .into_iter()
                    .map(|order| {
                        Ok(OpenOrder {
                            table: tables::table_of(conn, order.id)?,
                            paid: tables::paid_by_position(conn, order.id)?,
                            order,
                        })
                    })
                    .collect::<crate::store::Result<Vec<_>>>()
            })
            .await?)
    }

    /// `POST /invoice/summary`: pays the orders of a table.
    /// Sent again, it is looked up by its internalId first: its orders, settled by the first,
    /// would refuse it.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn issue_summary(&self, caller: &Caller, req: SummaryRequest) -> Result<Issued<Invoice>> {
        let year = this_year(self.services.clock.utc());
        self.services.first_look(&internal_id(caller, year, &req.internal_id)).await?;
        let (operator_code, unit_code, tcr_code) = user_codes(caller, true)?;
        let checked = table::check_summary(&table::SummaryDetails {
            internal_id: &req.internal_id,
            order_invoices: &req.order_invoices,
            supply_start_date: req.supply_start_date.as_deref(),
            supply_end_date: req.supply_end_date.as_deref(),
            payments: &req.payments,
        })?;
        let open = self.open_orders(caller, &checked.iics).await?;
        let lines: Vec<Vec<OrderLine>> = open.iter().map(OpenOrder::lines).collect();
        let takes = table::takes(&checked.iics, &lines, req.order_lines.as_deref())?;
        let orders: Vec<Invoice> = open.into_iter().map(|o| o.order).collect();

        // The lines and the currency come from the orders.
        let mut errors = FieldErrors::new();
        let order_currencies: Vec<&str> = orders.iter().map(|o| o.currency.as_str()).collect();
        let currency = table::summary_currency(&order_currencies, req.currency.as_deref(), &mut errors);
        // A summary sent without a rate pays its orders at the rate they were issued with.
        let rate_basis = match req.exchange_rate.filter(|r| r.is_sign_positive() && !r.is_zero()) {
            Some(rate) => Some(RateBasis { rate, origin: Origin::Request, date: None }),
            None => orders.first().filter(|o| o.currency != "ALL").map(|o| RateBasis {
                rate: o.exchange_rate,
                origin: o.exchange_rate_origin.unwrap_or(Origin::Request),
                date: o.exchange_rate_date.as_deref().and_then(|d| d.parse().ok()),
            }),
        };
        let input = InvoiceInput {
            lines: takes.iter().map(|t| copied(&orders[t.order].lines[t.position], t.quantity)).collect(),
            issuer_in_vat: caller.company.issuer_in_vat,
            invoice_discount_type: req.invoice_discount_type.clone(),
            invoice_discount_value: req.invoice_discount_value,
            fee: None,
            exchange_rate: Some(rate_basis.as_ref().map_or(Decimal::ONE, |b| b.rate)),
            payments: req.payments,
        };
        let computed = computed(&input, errors)?;
        let issuer = self.services.issuer(caller, operator_code, unit_code, tcr_code).await?;
        let parts = takes
            .iter()
            .map(|t| Part {
                order_id: orders[t.order].id,
                position: i64::try_from(t.position).unwrap_or(i64::MAX),
                quantity: t.quantity,
            })
            .collect();
        let settled = orders
            .iter()
            .map(|o| SettledOrder {
                id: o.id,
                number: o.number.clone(),
                iic: o.iic.clone(),
                issued_at: o.issued_at.clone(),
                currency: o.currency.clone(),
                total: o.totals.total,
            })
            .collect();
        let content = Content {
            document_kind: DocumentKind::Summary,
            invoice_type: InvoiceType::Cash,
            links: Links::Settles { orders: settled, parts },
            internal_id: req.internal_id,
            api_version: req.api_version,
            computed,
            buyer: db::Buyer::default(),
            corrective: None,
            due: None,
            supply_start: checked.supply_start,
            supply_end: checked.supply_end,
            currency,
            self_issue_type: None,
            reverse_charge: false,
            periodic_invoice: false,
            notes: None,
            doc_type: None,
            original_invoice_iic: None,
            bank_account: None,
            wtn: None,
            invoice_discount_type: req.invoice_discount_type,
            invoice_discount_value: req.invoice_discount_value,
            rate_basis,
            einvoice: None,
            corrects: None,
        };
        let sequence = issuer.sequence(InvoiceType::Cash);
        self.services.issue(InvoiceDocument { issuer, content, sequence, year, test_sale_by: None }).await
    }

    /// The company's open order invoices with these IICs, with their lines. An IIC that is not
    /// one is 400 naming it; an order still waiting for the CIS is 503 (retry once it is
    /// fiscalized: the summary must reach the CIS after its orders).
    async fn open_orders(&self, caller: &Caller, iics: &[String]) -> Result<Vec<OpenOrder>> {
        let company_id = caller.company.id;
        let wanted = iics.to_vec();
        let found = self
            .services
            .store
            .read(move |conn| {
                wanted
                    .iter()
                    .map(|iic| match db::id_by_iic(conn, company_id, iic)? {
                        Some(id) => match db::get(conn, company_id, id)? {
                            Some(order) => Ok(Some(OpenOrder {
                                table: None,
                                paid: tables::paid_by_position(conn, id)?,
                                order,
                            })),
                            None => Ok(None),
                        },
                        None => Ok(None),
                    })
                    .collect::<crate::store::Result<Vec<_>>>()
            })
            .await?;
        let mut problems = Vec::new();
        let mut orders = Vec::new();
        for (index, (iic, order)) in iics.iter().zip(found).enumerate() {
            let problem = match order.as_ref().map(|o| &o.order) {
                None => Some("no invoice of the company has this IIC"),
                Some(o) if o.document_kind != DocumentKind::Order => {
                    Some("the invoice is not an order invoice")
                }
                Some(o) if o.settled_by.is_some() => Some("the order is already settled"),
                Some(o) if o.reversed_at.is_some() => Some("the order was cancelled"),
                Some(_) => None,
            };
            match (problem, order) {
                (Some(problem), _) => problems.push(format!("order_invoices.{index}: {problem} ({iic}).")),
                (None, Some(order)) => orders.push(order),
                (None, None) => {}
            }
        }
        if !problems.is_empty() {
            return Err(Error::Incomplete {
                message: "An order invoice cannot be settled.".into(),
                errors: problems,
            });
        }
        if let Some(waiting) = orders.iter().find(|o| o.order.fic.is_none()) {
            return Err(Error::Unavailable(NotNow::OrderWaiting { number: waiting.order.number.clone() }));
        }
        Ok(orders)
    }
}
