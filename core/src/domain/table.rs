//! A restaurant's table: order invoices open it (lines with their own discounts, no payment:
//! the CIS's pay method ORDER, and the table's name), summary invoices pay it (the orders'
//! lines, all of them or a guest's share of them, an invoice discount of its own, banknotes or
//! card).

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Deserialize;

use super::fields;
use super::money::round2;

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

/// The longest table name (`table` of an order): what a waiter types or a POS shows.
pub const MAX_TABLE_NAME: usize = 50;

/// An order's `table`, trimmed; none when absent or blank.
pub fn table_name(sent: Option<&str>) -> Result<Option<String>, FieldErrors> {
    let Some(name) = sent.map(str::trim).filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    if name.chars().count() > MAX_TABLE_NAME {
        return Err(FieldErrors::one(
            "table",
            format!("The table field must not be greater than {MAX_TABLE_NAME} characters."),
        ));
    }
    Ok(Some(name.to_string()))
}

/// A line of an order as a summary finds it: its quantity, and what earlier summaries left of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderLine {
    pub quantity: Decimal,
    pub left: Decimal,
}

/// One element of a summary's `order_lines` as sent: a line of one of its orders (by the order's
/// IIC and the line's position, from 0) and how much of it the summary pays.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename = "OrderLineBody")]
pub struct LineChoice {
    #[serde(default, deserialize_with = "fields::opt_text")]
    pub order_invoice: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_integer")]
    pub line: Option<i64>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    pub quantity: Option<Decimal>,
}

/// What a summary pays of one line: the order (its index in `order_invoices`), the line's
/// position in the order, the quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Take {
    pub order: usize,
    pub position: usize,
    pub quantity: Decimal,
}

/// The most lines a summary takes (the CIS's `Items` hold 1..1000).
pub const MAX_SUMMARY_LINES: usize = 1000;

/// What a summary of the orders `iics` (whose lines are `orders`, in the same order) pays: without
/// `order_lines`, everything left of every order; with them, exactly the lines and quantities
/// they name, each line once, every order named by one of them at least. Every problem in one
/// answer, keyed by `order_lines.N…` or `order_invoices.N`.
pub fn takes(
    iics: &[String],
    orders: &[Vec<OrderLine>],
    chosen: Option<&[LineChoice]>,
) -> Result<Vec<Take>, FieldErrors> {
    let Some(chosen) = chosen else {
        return Ok(orders
            .iter()
            .enumerate()
            .flat_map(|(order, lines)| {
                lines
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.left > Decimal::ZERO)
                    .map(move |(position, l)| Take { order, position, quantity: l.left })
            })
            .collect());
    };
    if chosen.is_empty() {
        return Err(FieldErrors::one("order_lines", "The order_lines field must name at least one line."));
    }
    if chosen.len() > MAX_SUMMARY_LINES {
        return Err(FieldErrors::one(
            "order_lines",
            format!("The order_lines field must not have more than {MAX_SUMMARY_LINES} items."),
        ));
    }
    let mut errors = FieldErrors::new();
    let mut taken: Vec<Take> = Vec::new();
    let mut first_at: Vec<((usize, usize), usize)> = Vec::new();
    let mut named: Vec<usize> = Vec::new();
    for (index, choice) in chosen.iter().enumerate() {
        let key = |field: &str| format!("order_lines.{index}.{field}");
        let order = match choice.order_invoice.as_deref().map(|i| i.trim().to_uppercase()) {
            None => {
                errors.add(key("order_invoice"), "The IIC of the line's order is required.");
                None
            }
            Some(iic) => {
                let found = iics.iter().position(|named| *named == iic);
                match found {
                    Some(order) => named.push(order),
                    None => errors.add(
                        key("order_invoice"),
                        format!("The order {iic} is not named in order_invoices."),
                    ),
                }
                found
            }
        };
        let position = match (order, choice.line) {
            (_, None) => {
                errors.add(key("line"), "The line's position in its order (from 0) is required.");
                None
            }
            (Some(order), Some(line)) => {
                let count = orders.get(order).map_or(0, Vec::len);
                match usize::try_from(line).ok().filter(|p| *p < count) {
                    Some(position) => Some((order, position)),
                    None => {
                        errors.add(
                            key("line"),
                            format!(
                                "The order {} has no line {line}: its lines are 0 to {}.",
                                iics[order],
                                count.saturating_sub(1)
                            ),
                        );
                        None
                    }
                }
            }
            (None, Some(_)) => None,
        };
        let quantity = errors.quantity(&key("quantity"), choice.quantity);
        let Some((order, position)) = position else { continue };
        if let Some((_, first)) = first_at.iter().find(|(at, _)| *at == (order, position)) {
            errors.add(
                format!("order_lines.{index}"),
                format!("The line is already named at order_lines.{first}."),
            );
            continue;
        }
        first_at.push(((order, position), index));
        let left = orders[order][position].left;
        match quantity {
            Some(_) if left <= Decimal::ZERO => {
                errors.add(key("quantity"), "The line is paid already.");
            }
            Some(q) if q > left => {
                errors.add(key("quantity"), format!("Only {} of the line is left to pay.", left.normalize()));
            }
            Some(quantity) => taken.push(Take { order, position, quantity }),
            None => {}
        }
    }
    for (order, iic) in iics.iter().enumerate() {
        if !named.contains(&order) {
            errors.add(
                format!("order_invoices.{order}"),
                format!("No line of the order {iic} is in order_lines."),
            );
        }
    }
    errors.into_result()?;
    Ok(taken)
}

/// What `quantity` of a line at `price` (with VAT) less `discount_rate` percent comes to, to the
/// cent: the line's total when the quantity is all of it, as a line of any invoice is checked.
pub fn part_total(price: Decimal, quantity: Decimal, discount_rate: Decimal) -> Decimal {
    round2(price * quantity * (Decimal::ONE_HUNDRED - discount_rate) / Decimal::ONE_HUNDRED)
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

    fn d(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    #[test]
    fn a_table_is_named_in_fifty_characters_at_most() {
        // | sent              | answer             |
        assert_eq!(table_name(None), Ok(None));
        assert_eq!(table_name(Some("  ")), Ok(None));
        assert_eq!(table_name(Some(" T4 ")), Ok(Some("T4".to_string())));
        assert_eq!(table_name(Some(&"ë".repeat(50))), Ok(Some("ë".repeat(50))));
        assert_eq!(keys(table_name(Some(&"x".repeat(51))).unwrap_err()), ["table"]);
    }

    fn choice(iic: &str, line: i64, quantity: &str) -> LineChoice {
        LineChoice { order_invoice: Some(iic.into()), line: Some(line), quantity: Some(d(quantity)) }
    }

    #[test]
    fn a_summary_takes_what_is_left_or_the_lines_it_names() {
        let iics = vec!["AA".to_string(), "BB".to_string()];
        let line = |quantity: &str, left: &str| OrderLine { quantity: d(quantity), left: d(left) };
        // Two coffees (one paid), a water; a pizza.
        let orders = vec![vec![line("2", "1"), line("1", "1")], vec![line("1", "1")]];
        let take = |order, position, quantity: &str| Take { order, position, quantity: d(quantity) };
        assert_eq!(
            takes(&iics, &orders, None).unwrap(),
            [take(0, 0, "1"), take(0, 1, "1"), take(1, 0, "1")],
            "without order_lines: all that is left"
        );
        let chosen = [choice("aa", 1, "1"), choice("BB", 0, "1")];
        assert_eq!(takes(&iics, &orders, Some(&chosen)).unwrap(), [take(0, 1, "1"), take(1, 0, "1")]);
        let half = [choice("AA", 0, "0.5"), choice("BB", 0, "1")];
        assert_eq!(takes(&iics, &orders, Some(&half)).unwrap(), [take(0, 0, "0.5"), take(1, 0, "1")]);
        // | order_lines                                 | keys named                             |
        let refused = |chosen: &[LineChoice]| keys(takes(&iics, &orders, Some(chosen)).unwrap_err());
        assert_eq!(refused(&[]), ["order_lines"]);
        assert_eq!(refused(&[choice("AA", 0, "2"), choice("BB", 0, "1")]), ["order_lines.0.quantity"]);
        assert_eq!(refused(&[choice("AA", 2, "1"), choice("BB", 0, "1")]), ["order_lines.0.line"]);
        assert_eq!(
            refused(&[choice("CC", 0, "1"), choice("BB", 0, "1")]),
            ["order_invoices.0", "order_lines.0.order_invoice"]
        );
        assert_eq!(
            refused(&[choice("AA", 1, "0"), choice("BB", 0, "1.0001")]),
            ["order_lines.0.quantity", "order_lines.1.quantity"]
        );
        assert_eq!(
            refused(&[choice("AA", 1, "1"), choice("AA", 1, "1"), choice("BB", 0, "1")]),
            ["order_lines.1"]
        );
        assert_eq!(refused(&[choice("AA", 1, "1")]), ["order_invoices.1"]);
        assert_eq!(
            refused(&[LineChoice::default(), choice("BB", 0, "1")]),
            [
                "order_invoices.0",
                "order_lines.0.line",
                "order_lines.0.order_invoice",
                "order_lines.0.quantity"
            ]
        );
        let paid = vec![vec![line("1", "0")], vec![line("1", "1")]];
        let refused =
            keys(takes(&iics, &paid, Some(&[choice("AA", 0, "1"), choice("BB", 0, "1")])).unwrap_err());
        assert_eq!(refused, ["order_lines.0.quantity"]);
    }

    #[test]
    fn a_part_of_a_line_is_priced_as_a_line_of_that_quantity() {
        // | price | quantity | discount | total  |
        assert_eq!(part_total(d("120"), d("2"), d("0")), d("240"));
        assert_eq!(part_total(d("80"), d("1"), d("10")), d("72"));
        assert_eq!(part_total(d("3.35"), d("1"), d("10")), d("3.02"));
        assert_eq!(part_total(d("3.35"), d("2"), d("10")), d("6.03"));
        assert_eq!(part_total(d("800"), d("0.375"), d("0")), d("300"));
    }
}
