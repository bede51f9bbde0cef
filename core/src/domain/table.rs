//! A restaurant's table: order invoices open it (lines with their own discounts, no payment:
//! the CIS's pay method ORDER), one summary invoice pays it (the orders' lines, an invoice
//! discount of its own, banknotes or card).

use chrono::NaiveDate;

use super::document::InvoiceType;
use super::invoice::request::{Details, check_details, currency};
use super::payments::{self, PaymentType, PaymentsInput, ReadPayments};
use super::validation::FieldErrors;

/// The most orders one summary pays (the CIS's `SumInvIICRefs` holds 1..1000).
pub const MAX_ORDERS: usize = 1000;

/// The IICs a summary names, upper-cased: at least one, at most `MAX_ORDERS`, none twice.
pub fn order_iics(sent: &[String]) -> Result<Vec<String>, FieldErrors> {
    if sent.is_empty() {
        return Err(FieldErrors::one(
            "order_invoices",
            "The order_invoices field must name at least one order invoice.",
        ));
    }
    if sent.len() > MAX_ORDERS {
        return Err(FieldErrors::one(
            "order_invoices",
            format!("A summary pays at most {MAX_ORDERS} order invoices."),
        ));
    }
    let mut errors = FieldErrors::new();
    let mut iics: Vec<String> = Vec::new();
    for (index, iic) in sent.iter().enumerate() {
        let iic = iic.trim().to_uppercase();
        if iic.is_empty() {
            errors.add(format!("order_invoices.{index}"), "The IIC of an order invoice is required.");
        } else if let Some(first) = iics.iter().position(|seen| *seen == iic) {
            errors.add(
                format!("order_invoices.{index}"),
                format!("The order {iic} is already named at order_invoices.{first}."),
            );
        }
        iics.push(iic);
    }
    errors.into_result()?;
    Ok(iics)
}

/// A summary is paid in banknotes or by card (one or several, each method once).
pub fn summary_payments(read: &ReadPayments) -> Result<(), FieldErrors> {
    let in_hand = |kind: PaymentType| matches!(kind, PaymentType::Banknote | PaymentType::Card);
    match read {
        ReadPayments::Whole { kind, .. } if in_hand(*kind) => Ok(()),
        ReadPayments::Whole { .. } => {
            Err(FieldErrors::one("payment_method", "A summary invoice is paid with BANKNOTE or CARD."))
        }
        ReadPayments::Split(payments) => {
            let mut errors = FieldErrors::new();
            for (index, payment) in payments.iter().enumerate() {
                if !in_hand(payment.kind) {
                    errors.add(
                        format!("payment_methods.{index}.type"),
                        "A summary invoice is paid with BANKNOTE or CARD.",
                    );
                }
            }
            errors.into_result()
        }
    }
}

/// What `check_summary` reads of a summary request.
#[derive(Debug, Clone, Copy)]
pub struct SummaryDetails<'a> {
    pub internal_id: &'a str,
    pub order_invoices: &'a [String],
    pub supply_start_date: Option<&'a str>,
    pub supply_end_date: Option<&'a str>,
    pub payments: &'a PaymentsInput,
}

/// A summary's own fields read: the orders' IICs (`order_iics`) and the supply days.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedSummary {
    pub iics: Vec<String>,
    pub supply_start: Option<NaiveDate>,
    pub supply_end: Option<NaiveDate>,
}

/// The summary's own fields, every problem in one answer: the internalId and the supply days
/// as an invoice's (`check_details`), the orders it names, and its payment in hand.
pub fn check_summary(d: &SummaryDetails) -> Result<CheckedSummary, FieldErrors> {
    let mut errors = FieldErrors::new();
    let details = Details {
        internal_id: d.internal_id,
        supply_start_date: d.supply_start_date,
        supply_end_date: d.supply_end_date,
        ..Details::default()
    };
    let checked = check_details(InvoiceType::Cash, &details, &mut errors);
    let iics = order_iics(d.order_invoices).unwrap_or_else(|e| {
        errors.merge(e);
        Vec::new()
    });
    if let Err(e) = payments::read(d.payments).and_then(|read| summary_payments(&read)) {
        errors.merge(e);
    }
    errors.into_result()?;
    Ok(CheckedSummary { iics, supply_start: checked.supply_start, supply_end: checked.supply_end })
}

/// The summary's currency: the one its orders share (`ALL` without orders), which a currency
/// sent with the summary must name.
pub fn summary_currency(orders: &[&str], sent: Option<&str>, errors: &mut FieldErrors) -> String {
    let of_orders = orders.first().copied().unwrap_or("ALL");
    if orders.iter().any(|c| *c != of_orders) {
        errors.add("order_invoices", "The orders of one summary must share one currency.");
    }
    let currency = currency(errors, Some(sent.unwrap_or(of_orders)));
    if currency != of_orders {
        errors.add("currency", format!("The orders are in {of_orders}: the summary must be too."));
    }
    currency
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::payments::{PaymentElementInput, PaymentsInput, read};
    use rust_decimal::Decimal;

    fn keys(e: FieldErrors) -> Vec<String> {
        e.into_map().into_keys().collect()
    }

    #[test]
    fn a_summary_names_each_order_once() {
        let iic = "d04c13b4063d63a13b5d822a90178a7c".to_string();
        // | sent                       | answer                      |
        assert_eq!(order_iics(std::slice::from_ref(&iic)).unwrap(), [iic.to_uppercase()]);
        assert_eq!(keys(order_iics(&[]).unwrap_err()), ["order_invoices"]);
        assert_eq!(keys(order_iics(&[iic.clone(), iic.to_uppercase()]).unwrap_err()), ["order_invoices.1"]);
        assert_eq!(keys(order_iics(&[" ".into()]).unwrap_err()), ["order_invoices.0"]);
        assert_eq!(keys(order_iics(&vec![iic; MAX_ORDERS + 1]).unwrap_err()), ["order_invoices"]);
    }

    #[test]
    fn a_summary_is_paid_in_banknotes_or_by_card() {
        let v1 = |method: &str| {
            read(&PaymentsInput::V1 {
                payment_method: Some(method.into()),
                company_card: None,
                vouchers: None,
            })
            .unwrap()
        };
        assert!(summary_payments(&v1("BANKNOTE")).is_ok());
        assert!(summary_payments(&v1("card")).is_ok());
        assert_eq!(keys(summary_payments(&v1("ACCOUNT")).unwrap_err()), ["payment_method"]);
        let element = |kind: &str| PaymentElementInput {
            kind: Some(kind.into()),
            amount: Some(Decimal::ONE),
            company_card: None,
            vouchers: None,
        };
        let v2 = read(&PaymentsInput::V2 {
            payment_methods: Some(vec![element("BANKNOTE"), element("CHECK")]),
            payment_method: None,
            company_card: None,
            vouchers: None,
        })
        .unwrap();
        assert_eq!(keys(summary_payments(&v2).unwrap_err()), ["payment_methods.1.type"]);
    }

    fn summary(
        internal_id: &str,
        orders: &[String],
        start: Option<&str>,
        method: &str,
    ) -> Result<CheckedSummary, Vec<String>> {
        let payments =
            PaymentsInput::V1 { payment_method: Some(method.into()), company_card: None, vouchers: None };
        check_summary(&SummaryDetails {
            internal_id,
            order_invoices: orders,
            supply_start_date: start,
            supply_end_date: None,
            payments: &payments,
        })
        .map_err(keys)
    }

    #[test]
    fn a_summary_names_its_fields_in_one_answer() {
        let order = vec!["d04c13b4063d63a13b5d822a90178a7c".to_string()];
        let long = "x".repeat(256);
        let ok = summary("t-1", &order, Some("2026-03-01"), "BANKNOTE").unwrap();
        assert_eq!(ok.iics, ["D04C13B4063D63A13B5D822A90178A7C"]);
        assert_eq!(ok.supply_start, NaiveDate::from_ymd_opt(2026, 3, 1));
        // | internalId | orders  | supply start | payment   | keys named                              |
        assert_eq!(summary(&long, &order, None, "CARD").unwrap_err(), ["internalId"]);
        assert_eq!(summary("t-1", &order, Some("2026-02-30"), "CARD").unwrap_err(), ["supply_start_date"]);
        assert_eq!(summary("t-1", &[], None, "ACCOUNT").unwrap_err(), ["order_invoices", "payment_method"]);
        assert_eq!(
            summary(&long, &[], Some("1.3.2026"), "BANKNOTE").unwrap_err(),
            ["internalId", "order_invoices", "supply_start_date"]
        );
    }

    #[test]
    fn a_summary_is_in_its_orders_currency() {
        let mut errors = FieldErrors::new();
        // | orders       | sent  | currency | keys named                 |
        assert_eq!(summary_currency(&["EUR", "EUR"], None, &mut errors), "EUR");
        assert_eq!(summary_currency(&["EUR"], Some("eur"), &mut errors), "EUR");
        assert_eq!(summary_currency(&[], None, &mut errors), "ALL");
        assert!(errors.into_result().is_ok());
        let mut errors = FieldErrors::new();
        summary_currency(&["EUR", "ALL"], None, &mut errors);
        assert_eq!(keys(errors), ["order_invoices"]);
        let mut errors = FieldErrors::new();
        summary_currency(&["EUR"], Some("USD"), &mut errors);
        assert_eq!(keys(errors), ["currency"]);
        let mut errors = FieldErrors::new();
        summary_currency(&["ALL"], Some("LEKE"), &mut errors);
        assert_eq!(keys(errors), ["currency"]);
    }
}
