//! An invoice as a shop stores it and reads it back, with its lines, payments and what it is
//! read with: one model for the shop's SQLite store and the head office's PostgreSQL copy of it,
//! each reading it through the same mappers (`rows`).

pub mod rows;
pub mod shipped;

use rust_decimal::Decimal;

use crate::domain::cancellation::Remains;
use crate::domain::currency::Origin;
use crate::domain::document::{ApiVersion, DocumentKind, InvoiceType};
pub use crate::domain::invoice::request::Buyer;
pub use crate::domain::payments::Payment;
use crate::domain::verify;

#[derive(Debug, Clone)]
pub struct Line {
    pub product_name: String,
    pub product_code: String,
    pub unit: String,
    pub unit_code: Option<String>,
    pub quantity: Decimal,
    pub price: Decimal,
    pub total: Decimal,
    pub discount_rate: Decimal,
    pub discount: Decimal,
    pub vat_rate: Decimal,
    pub exemption: Option<String>,
    pub unit_price_net: Decimal,
    pub rebate: Option<Decimal>,
    pub net: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
    /// On a corrective document: the position of the original's line it reverses.
    pub original_position: Option<i64>,
}

/// Totals in the invoice currency and in lek.
#[derive(Debug, Clone, Default)]
pub struct Totals {
    pub gross: Decimal,
    pub net: Decimal,
    pub vat: Decimal,
    pub discount: Decimal,
    pub discount_gross: Decimal,
    pub fee: Decimal,
    pub total: Decimal,
    pub gross_all: Decimal,
    pub net_all: Decimal,
    pub vat_all: Decimal,
    pub discount_all: Decimal,
}

/// One invoice as stored (also what is written).
#[derive(Debug, Clone)]
pub struct Invoice {
    pub id: i64,
    pub company_id: i64,
    pub business_unit_id: Option<i64>,
    pub user_id: Option<i64>,
    pub internal_id: String,
    pub year: i32,
    /// Its type and numbering sequence (the list's `type`).
    pub kind: InvoiceType,
    pub document_kind: DocumentKind,
    pub api_version: ApiVersion,
    pub doc_type: Option<String>,
    pub original_invoice_iic: Option<String>,
    pub tcr_code: Option<String>,
    pub ord_num: i64,
    pub number: String,
    pub inv_num: String,
    pub issued_at: String,
    pub issue_date: String,
    pub issue_date_time: String,
    pub operator_code: Option<String>,
    pub business_unit_code: Option<String>,
    pub currency: String,
    pub exchange_rate: Decimal,
    /// Where a foreign-currency invoice's rate came from, and the day it was quoted for.
    pub exchange_rate_origin: Option<Origin>,
    pub exchange_rate_date: Option<String>,
    pub totals: Totals,
    pub invoice_discount_type: Option<String>,
    pub invoice_discount_value: Option<Decimal>,
    pub buyer: Buyer,
    pub self_issue_type: Option<String>,
    pub due_date: Option<String>,
    pub delivery_date: Option<String>,
    pub supply_start_date: Option<String>,
    pub supply_end_date: Option<String>,
    pub reverse_charge: bool,
    pub periodic_invoice: bool,
    pub notes: Option<String>,
    pub bank_account_id: Option<i64>,
    pub iic: String,
    /// Read from its queue entry when the row let its copy go (`kept_signature`).
    pub iic_signature: String,
    pub header_uuid: String,
    pub fic: Option<String>,
    pub eic: Option<String>,
    /// Whole, as printed; the row keeps a few characters of it (`domain::verify::kept_url`).
    pub verify_url: String,
    pub created_at: String,
    pub lines: Vec<Line>,
    pub payments: Vec<Payment>,
    /// The bank account `bank_account_id` names, read with the invoice.
    pub bank_account: Option<BankAccount>,
    /// The warehouse transfer note the goods left with (`wtn_id` of the body; `invoice_wtns`).
    pub wtn_id: Option<i64>,
    /// The note `wtn_id` names, read with the invoice.
    pub wtn: Option<WtnRef>,
    /// A corrective document's original.
    pub original_invoice_id: Option<i64>,
    /// When a cancellation last reversed (part of) it.
    pub reversed_at: Option<String>,
    /// What its cancellations left of it, read with it when there were some.
    pub remains: Option<Remains>,
    /// An order's summary, once it paid the order.
    pub settled_by: Option<i64>,
    /// A summary's orders, read with it.
    pub settled_orders: Vec<SettledOrder>,
    /// The UBL profile (`P1`..`P12`) of an e-invoice, read with the invoice; `None` on any
    /// other invoice.
    pub process: Option<String>,
}

/// The warehouse transfer note an invoice names as the one its goods left with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WtnRef {
    pub id: i64,
    /// `<n>/<year>`, the CIS's WTNNum.
    pub number: String,
    /// The WTNIC.
    pub iic: String,
}

/// An order a summary paid, as the summary's answer lists it.
#[derive(Debug, Clone)]
pub struct SettledOrder {
    pub id: i64,
    pub number: String,
    pub iic: String,
    pub issued_at: String,
    pub currency: String,
    /// With VAT, in its currency.
    pub total: Decimal,
}

/// A company's bank account, as an invoice names it.
#[derive(Debug, Clone)]
pub struct BankAccount {
    pub id: i64,
    pub name: String,
    pub holder: String,
    pub iban: String,
    pub swift: Option<String>,
    pub currency: String,
    pub notes: Option<String>,
}

/// The fields of `invoice` its verify URL is made of; none for a row without a business unit.
pub fn verify_fields(invoice: &Invoice) -> Option<verify::RowFields<'_>> {
    Some(verify::RowFields {
        iic: &invoice.iic,
        issue_date_time: &invoice.issue_date_time,
        ord_num: u64::try_from(invoice.ord_num).ok()?,
        business_unit_code: invoice.business_unit_code.as_deref()?,
        tcr_code: invoice.tcr_code.as_deref(),
        total: invoice.totals.total,
    })
}

/// `invoice` as read from its row, its verify URL made whole again (the row keeps a few
/// characters of it: `domain::verify::kept_url`).
pub fn whole_verify_url(mut invoice: Invoice) -> Invoice {
    if let Some(fields) = verify_fields(&invoice) {
        invoice.verify_url = verify::full_url(&invoice.verify_url, &fields);
    }
    invoice
}
