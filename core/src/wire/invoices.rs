//! The invoice answers as typed views: the issue result (`data.invoice` of an issue, a
//! summary, a cancellation, details by internalId), the list item and the details. v1 and v2
//! differ only in how payments show (`Payments`). A shop answers them, and its head office
//! answers its shops' documents in the same shapes.

use rust_decimal::Decimal;
use serde::Serialize;

use crate::domain::document::{ApiVersion, DocumentKind, InvoiceType};
use crate::domain::time::{local_text, parse_stored};
use crate::invoice::{Invoice, Line, Payment, SettledOrder, WtnRef};

/// Times the spec shows as `YYYY-MM-DD HH:MM:SS`, Tirane time, from a stored UTC time.
pub fn local(stored: &str) -> String {
    parse_stored(stored).map(local_text).unwrap_or_else(|| stored.to_string())
}

/// One element of v2 `payment_methods`.
#[derive(Serialize)]
pub struct PaymentView<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    amount: Decimal,
    company_card: Option<&'a str>,
    vouchers: &'a [String],
}

fn payment_views(payments: &[Payment]) -> Vec<PaymentView<'_>> {
    payments
        .iter()
        .map(|p| PaymentView {
            kind: p.kind.as_str(),
            amount: p.amount,
            company_card: p.company_card.as_deref(),
            vouchers: &p.vouchers,
        })
        .collect()
}

/// v2 shows every payment; v1 the first method only (in the list).
#[derive(Serialize)]
#[serde(untagged)]
pub enum Payments<'a> {
    V1 { payment_method: Option<&'a str> },
    V2 { payment_methods: Vec<PaymentView<'a>> },
}

/// The fiscal fields an issue answers with, also in the details.
#[derive(Serialize)]
pub struct Fiscal<'a> {
    #[serde(rename = "tcrCode")]
    tcr_code: Option<&'a str>,
    #[serde(rename = "businessCode")]
    business_code: Option<&'a str>,
    #[serde(rename = "operatorCode")]
    operator_code: Option<&'a str>,
    #[serde(rename = "fiscalizedAt")]
    fiscalized_at: String,
    #[serde(rename = "verifyURL")]
    verify_url: &'a str,
    pdf: String,
}

/// An order a summary paid (`settledOrderInvoices[]`).
#[derive(Serialize)]
pub struct SettledOrderView<'a> {
    id: i64,
    number: &'a str,
    iic: &'a str,
    date: String,
    #[serde(rename = "amountGross")]
    amount_gross: Decimal,
    currency: &'a str,
}

/// What a summary adds to its answers.
#[derive(Serialize)]
pub struct SummaryView<'a> {
    #[serde(rename = "isSummaryInvoice")]
    is_summary_invoice: bool,
    #[serde(rename = "settledOrderInvoices")]
    settled_order_invoices: Vec<SettledOrderView<'a>>,
}

fn summary(invoice: &Invoice) -> Option<SummaryView<'_>> {
    (invoice.document_kind == DocumentKind::Summary).then(|| SummaryView {
        is_summary_invoice: true,
        settled_order_invoices: invoice.settled_orders.iter().map(settled_order).collect(),
    })
}

fn settled_order(o: &SettledOrder) -> SettledOrderView<'_> {
    SettledOrderView {
        id: o.id,
        number: &o.number,
        iic: &o.iic,
        date: local(&o.issued_at),
        amount_gross: o.total,
        currency: &o.currency,
    }
}

/// The warehouse transfer note an invoice names (`wtn`).
#[derive(Serialize)]
pub struct WtnView<'a> {
    id: i64,
    number: &'a str,
    iic: &'a str,
}

fn wtn_view(wtn: &WtnRef) -> WtnView<'_> {
    WtnView { id: wtn.id, number: &wtn.number, iic: &wtn.iic }
}

/// `data.invoice` of an issue, a summary, a cancellation and details by internalId.
#[derive(Serialize)]
pub struct IssueResult<'a> {
    id: i64,
    number: &'a str,
    iic: &'a str,
    fic: Option<&'a str>,
    #[serde(flatten)]
    fiscal: Fiscal<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    eic: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    payment_methods: Option<Vec<PaymentView<'a>>>,
    /// A corrective document's original.
    #[serde(skip_serializing_if = "Option::is_none")]
    original_invoice_id: Option<i64>,
    /// The note the goods left with, when the invoice names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    wtn: Option<WtnView<'a>>,
    #[serde(flatten)]
    summary: Option<SummaryView<'a>>,
}

/// Where a document's PDFs are: the server's public URL (`--public-url`, else the request's
/// host). The head office, which prints nothing, names the shop's routes under no host.
pub struct Links {
    pub base: String,
}

impl Links {
    fn pdf_url(&self, version: ApiVersion, id: i64) -> String {
        format!("{}/api/v{}/invoice/print/{id}", self.base, version.number())
    }

    fn eic_pdf_url(&self, version: ApiVersion, eic: &str) -> String {
        format!("{}/api/v{}/invoice/print-eic/{eic}", self.base, version.number())
    }
}

fn fiscal_at<'a>(links: &Links, invoice: &'a Invoice, version: ApiVersion) -> Fiscal<'a> {
    Fiscal {
        tcr_code: invoice.tcr_code.as_deref(),
        business_code: invoice.business_unit_code.as_deref(),
        operator_code: invoice.operator_code.as_deref(),
        fiscalized_at: local(&invoice.issued_at),
        verify_url: &invoice.verify_url,
        pdf: match &invoice.eic {
            // The e-invoice platform's official PDF, once it has registered the e-invoice.
            Some(eic) => links.eic_pdf_url(version, eic),
            None => links.pdf_url(version, invoice.id),
        },
    }
}

pub fn issue_result_at<'a>(links: &Links, invoice: &'a Invoice, version: ApiVersion) -> IssueResult<'a> {
    IssueResult {
        id: invoice.id,
        number: &invoice.number,
        iic: &invoice.iic,
        fic: invoice.fic.as_deref(),
        fiscal: fiscal_at(links, invoice, version),
        eic: invoice.eic.as_deref(),
        payment_methods: (version == ApiVersion::V2).then(|| payment_views(&invoice.payments)),
        original_invoice_id: invoice.original_invoice_id,
        wtn: invoice.wtn.as_ref().map(wtn_view),
        summary: summary(invoice),
    }
}

#[derive(Serialize)]
pub struct ClientId<'a> {
    #[serde(rename = "type")]
    kind: Option<&'a str>,
    id: Option<&'a str>,
}

#[derive(Serialize)]
pub struct ClientAddress<'a> {
    street: Option<&'a str>,
    city: Option<&'a str>,
    country: &'a str,
}

#[derive(Serialize)]
pub struct ClientView<'a> {
    name: Option<&'a str>,
    id: ClientId<'a>,
    address: ClientAddress<'a>,
}

#[derive(Serialize)]
pub struct LocalCurrency {
    currency: &'static str,
    gross: Decimal,
    net: Decimal,
    vat: Decimal,
    discount: Decimal,
}

#[derive(Serialize)]
pub struct Amount<'a> {
    currency: &'a str,
    exchange_rate: Option<Decimal>,
    gross: Decimal,
    net: Decimal,
    vat: Decimal,
    discount: Decimal,
    net_all: Decimal,
    gross_all: Decimal,
    vat_all: Decimal,
    discount_all: Decimal,
    /// Where a foreign-currency invoice's rate came from (REQUEST, MANUAL or a source) and the
    /// day it was quoted for; absent on an invoice in lek.
    #[serde(skip_serializing_if = "Option::is_none")]
    exchange_rate_source: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exchange_rate_date: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    local_currency: Option<LocalCurrency>,
}

#[derive(Serialize)]
pub struct PaymentState {
    state: &'static str,
    amount_paid: Decimal,
    amount_left: Decimal,
}

/// What is paid of an invoice: a till's document in full when issued, an order once its
/// summary paid it, a non-cash invoice later (Arka records no payments of it).
fn payment_state(invoice: &Invoice) -> PaymentState {
    let total = invoice.totals.total;
    let paid = match (invoice.kind, invoice.document_kind) {
        (_, DocumentKind::Order) if invoice.settled_by.is_none() => Decimal::ZERO,
        (InvoiceType::Cash, _) => total,
        (InvoiceType::NonCash, _) => Decimal::ZERO,
    };
    let state = if paid == total {
        "PAID"
    } else if paid == Decimal::ZERO {
        "UNPAID"
    } else {
        "PARTIALLY_PAID"
    };
    PaymentState { state, amount_paid: paid, amount_left: total - paid }
}

#[derive(Serialize)]
pub struct BankAccountView<'a> {
    id: i64,
    bank_name: &'a str,
    iban: &'a str,
    swift: Option<&'a str>,
    currency: &'a str,
    notes: Option<&'a str>,
}

/// What an invoice's cancellations left of it: `partial` (some of it remains) or `whole`, what
/// they gave back and what remains, with VAT in the invoice's currency.
#[derive(Serialize)]
pub struct CancellationView {
    state: &'static str,
    cancelled: Decimal,
    remaining: Decimal,
}

/// One item of `GET /invoice` (the spec's "Invoice list item", plus what tells the documents
/// of a table and of a cancellation apart).
#[derive(Serialize)]
pub struct ListItem<'a> {
    id: i64,
    number: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    document_kind: &'static str,
    issue_date: &'a str,
    due_date: &'a str,
    delivery_date: &'a str,
    created_at: String,
    supply_start_date: Option<&'a str>,
    supply_end_date: Option<&'a str>,
    client: ClientView<'a>,
    amount: Amount<'a>,
    #[serde(flatten)]
    payments: Payments<'a>,
    payment: PaymentState,
    bank_account: Option<BankAccountView<'a>>,
    /// The warehouse transfer note the goods left with, or null.
    wtn: Option<WtnView<'a>>,
    notes: Option<&'a str>,
    iic: &'a str,
    fic: Option<&'a str>,
    eic: Option<&'a str>,
    doc_type: Option<&'a str>,
    process: Option<&'a str>,
    self_issue_type: Option<&'a str>,
    reversed_at: Option<String>,
    /// What cancellations left of it; null when it was never cancelled.
    cancellation: Option<CancellationView>,
    /// The spec's "id of the invoice this one reverses": a corrective document's original.
    reversed_by: Option<i64>,
    original_invoice_id: Option<i64>,
    /// An order's state: `open` until a summary pays it, then `settled`.
    order_state: Option<&'static str>,
    /// The summary that paid an order.
    settled_by: Option<i64>,
    /// Arka's own: the user whose token issued it (null for what Arka issued by itself), so a
    /// till offers a cashier to cancel only their own sales, as the permission table allows.
    user_id: Option<i64>,
    pdf_url: String,
    reverse_charge: bool,
    periodic_invoice: bool,
}

pub fn list_item_at<'a>(links: &Links, invoice: &'a Invoice, version: ApiVersion) -> ListItem<'a> {
    let t = &invoice.totals;
    let foreign = invoice.currency != "ALL";
    let b = &invoice.buyer;
    ListItem {
        id: invoice.id,
        number: &invoice.number,
        kind: if invoice.process.is_some() { "EINVOICE" } else { invoice.kind.as_str() },
        document_kind: invoice.document_kind.as_str(),
        issue_date: &invoice.issue_date,
        due_date: invoice.due_date.as_deref().unwrap_or(&invoice.issue_date),
        delivery_date: invoice.delivery_date.as_deref().unwrap_or(&invoice.issue_date),
        created_at: local(&invoice.issued_at),
        supply_start_date: invoice.supply_start_date.as_deref(),
        supply_end_date: invoice.supply_end_date.as_deref(),
        client: ClientView {
            name: b.name.as_deref(),
            id: ClientId { kind: b.id_type.as_deref(), id: b.id_value.as_deref() },
            address: ClientAddress {
                street: b.address.as_deref(),
                city: b.city.as_deref(),
                country: b.country.as_deref().unwrap_or("ALB"),
            },
        },
        amount: Amount {
            currency: &invoice.currency,
            exchange_rate: foreign.then_some(invoice.exchange_rate),
            gross: t.total,
            net: t.net,
            vat: t.vat,
            discount: t.discount,
            net_all: t.net_all,
            gross_all: t.gross_all,
            vat_all: t.vat_all,
            discount_all: t.discount_all,
            exchange_rate_source: invoice.exchange_rate_origin.filter(|_| foreign).map(|o| o.as_str()),
            exchange_rate_date: invoice.exchange_rate_date.as_deref().filter(|_| foreign),
            local_currency: foreign.then_some(LocalCurrency {
                currency: "ALL",
                gross: t.gross_all,
                net: t.net_all,
                vat: t.vat_all,
                discount: t.discount_all,
            }),
        },
        payments: if version == ApiVersion::V2 {
            Payments::V2 { payment_methods: payment_views(&invoice.payments) }
        } else {
            Payments::V1 { payment_method: invoice.payments.first().map(|p| p.kind.as_str()) }
        },
        payment: payment_state(invoice),
        bank_account: invoice.bank_account.as_ref().map(|b| BankAccountView {
            id: b.id,
            bank_name: &b.name,
            iban: &b.iban,
            swift: b.swift.as_deref(),
            currency: &b.currency,
            notes: b.notes.as_deref(),
        }),
        wtn: invoice.wtn.as_ref().map(wtn_view),
        notes: invoice.notes.as_deref(),
        iic: &invoice.iic,
        fic: invoice.fic.as_deref(),
        eic: invoice.eic.as_deref(),
        doc_type: invoice.doc_type.as_deref(),
        process: invoice.process.as_deref(),
        self_issue_type: invoice.self_issue_type.as_deref(),
        reversed_at: invoice.reversed_at.as_deref().map(local),
        cancellation: invoice.remains.map(|r| CancellationView {
            state: if r.wholly { "whole" } else { "partial" },
            cancelled: r.cancelled,
            remaining: r.remaining,
        }),
        reversed_by: invoice.original_invoice_id,
        original_invoice_id: invoice.original_invoice_id,
        order_state: (invoice.document_kind == DocumentKind::Order)
            .then_some(if invoice.settled_by.is_some() { "settled" } else { "open" }),
        settled_by: invoice.settled_by,
        user_id: invoice.user_id,
        pdf_url: links.pdf_url(version, invoice.id),
        reverse_charge: invoice.reverse_charge,
        periodic_invoice: invoice.periodic_invoice,
    }
}

/// A line of the details.
#[derive(Serialize)]
pub struct LineView<'a> {
    product_name: &'a str,
    product_code: &'a str,
    unit: &'a str,
    unit_code: Option<&'a str>,
    quantity: Decimal,
    #[serde(rename = "unitPrice")]
    unit_price: Decimal,
    discount_rate: Decimal,
    discount: Decimal,
    total: Decimal,
    vat: Decimal,
    vat_exempt_type: Option<&'a str>,
    net: Decimal,
    vat_amount: Decimal,
    gross: Decimal,
}

fn line_view(l: &Line) -> LineView<'_> {
    LineView {
        product_name: &l.product_name,
        product_code: &l.product_code,
        unit: &l.unit,
        unit_code: l.unit_code.as_deref(),
        quantity: l.quantity,
        unit_price: l.price,
        discount_rate: l.discount_rate,
        discount: l.discount,
        total: l.total,
        vat: l.vat_rate,
        vat_exempt_type: l.exemption.as_deref(),
        net: l.net,
        vat_amount: l.vat,
        gross: l.gross,
    }
}

/// `GET /invoice/{id}/details`: the list item, the fiscal fields of the issue result, the lines,
/// and a summary's orders.
#[derive(Serialize)]
pub struct Details<'a> {
    #[serde(flatten)]
    item: ListItem<'a>,
    #[serde(flatten)]
    fiscal: Fiscal<'a>,
    lines: Vec<LineView<'a>>,
    #[serde(flatten)]
    summary: Option<SummaryView<'a>>,
}

pub fn details_at<'a>(links: &Links, invoice: &'a Invoice, version: ApiVersion) -> Details<'a> {
    Details {
        item: list_item_at(links, invoice, version),
        fiscal: fiscal_at(links, invoice, version),
        lines: invoice.lines.iter().map(line_view).collect(),
        summary: summary(invoice),
    }
}
