//! What the summary and fiscal blocks say, decided once so that the A4 page and the receipt
//! always print the same facts; the layouts only decide where they go.

use super::PrintInvoice;
use super::format::{amount, amount_in, plain};
use super::labels;

/// How a summary row is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emphasis {
    Normal,
    /// The amount to pay.
    Total,
    /// A label over the rows that follow, without a value.
    Heading,
}

/// A label on the left and its value on the right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub label: String,
    pub value: String,
    pub emphasis: Emphasis,
}

impl Row {
    pub fn normal(label: impl Into<String>, value: String) -> Self {
        Row { label: label.into(), value, emphasis: Emphasis::Normal }
    }
}

/// Discount, fee, totals in the invoice currency and, for a foreign currency, the rate and the
/// totals in lek.
pub fn totals(invoice: &PrintInvoice) -> Vec<Row> {
    let currency = invoice.currency.as_str();
    let mut rows = Vec::new();
    if let Some(discount) = &invoice.invoice_discount {
        let label = if discount.description.trim().is_empty() {
            labels::INVOICE_DISCOUNT.to_string()
        } else {
            format!("{} ({})", labels::INVOICE_DISCOUNT, discount.description.trim())
        };
        // The amount is what the discount takes off, so it prints as a deduction.
        rows.push(Row::normal(label, amount_in(-discount.amount.abs(), currency)));
    }
    if let Some(fee) = invoice.fee {
        rows.push(Row::normal(labels::FEE, amount_in(fee, currency)));
    }
    rows.push(Row::normal(labels::TOTAL_NET, amount_in(invoice.totals.net, currency)));
    rows.push(Row::normal(labels::TOTAL_VAT, amount_in(invoice.totals.vat, currency)));
    rows.push(Row {
        label: labels::TOTAL_GROSS.to_string(),
        value: amount_in(invoice.totals.gross, currency),
        emphasis: Emphasis::Total,
    });
    if let Some(rate) = invoice.exchange_rate {
        rows.push(Row::normal(labels::EXCHANGE_RATE, format!("1 {currency} = {} ALL", plain(rate))));
    }
    if let Some(all) = &invoice.totals_all {
        rows.push(Row {
            label: labels::IN_LEK.to_string(),
            value: String::new(),
            emphasis: Emphasis::Heading,
        });
        rows.push(Row::normal(labels::IN_LEK_NET, amount_in(all.net, "ALL")));
        rows.push(Row::normal(labels::IN_LEK_VAT, amount_in(all.vat, "ALL")));
        rows.push(Row::normal(labels::IN_LEK_GROSS, amount_in(all.gross, "ALL")));
    }
    rows
}

/// One row per payment element, amounts in the invoice currency.
pub fn payments(invoice: &PrintInvoice) -> Vec<Row> {
    invoice
        .payments
        .iter()
        .map(|payment| Row::normal(payment.method.clone(), amount_in(payment.amount, &invoice.currency)))
        .collect()
}

/// The fiscal identifiers: IIC, FIC (or pending) and EIC when there is one.
pub fn fiscal(invoice: &PrintInvoice) -> Vec<Row> {
    let mut rows = vec![Row::normal(labels::IIC, invoice.iic.clone())];
    let fic = invoice.fic.clone().unwrap_or_else(|| labels::FIC_PENDING.to_string());
    rows.push(Row::normal(labels::FIC, fic));
    if let Some(eic) = &invoice.eic {
        rows.push(Row::normal(labels::EIC, eic.clone()));
    }
    rows
}

/// The amounts of a VAT group row: net, VAT, gross.
pub fn vat_amounts(group: &super::VatGroup) -> [String; 3] {
    [amount(group.net), amount(group.vat), amount(group.gross)]
}
