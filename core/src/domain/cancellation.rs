//! Cancellation: what a corrective document reverses of its original.
//!
//! - No lines: the whole invoice, that is everything earlier cancellations left. Nothing left
//!   is 422 (`invoice`).
//! - Lines: part of it, on a cash invoice only, never on one issued with an invoice-level
//!   discount nor on an order (422 `lines`). Each line names a product of the original by
//!   `product_name` and `product_code`, and by `price` (with VAT) when the original bills it at
//!   two prices; its `quantity` (> 0) is taken from the matching lines in their order, up to
//!   what earlier cancellations left (422 naming the line otherwise).
//!
//! The corrective document carries the reversed quantities and amounts negative, as the CIS
//! expects of a reversal (PROTOCOL.md section 4.1). A partial reversal of a line is priced as
//! that quantity of it would be (`round2(price x quantity x (100 - discount) / 100)`); the last
//! reversal of a line takes whatever its earlier ones left, so a line's reversals add up to it
//! to the cent. The refund goes back over the original's payments in their order, each up to
//! what it paid less what earlier refunds gave back.

use rust_decimal::Decimal;
use serde::Deserialize;

use super::fields;
use super::invoice::{Line, net_of};
use super::money::round2;
use super::payments::{Payment, PaymentType};
use super::validation::{self, FieldErrors};

/// What earlier corrective documents reversed of one original line, as positive figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reversed {
    pub quantity: Decimal,
    pub total: Decimal,
    pub discount: Decimal,
    pub net: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
}

/// One line of the original with what was already reversed of it.
#[derive(Debug, Clone)]
pub struct Reversible {
    pub line: Line,
    pub reversed: Reversed,
}

impl Reversible {
    fn remaining(&self) -> Decimal {
        self.line.quantity - self.reversed.quantity
    }
}

/// A line of a partial cancellation, as sent: read straight from the body (`CancelLineBody` to
/// serde, the name a wrong-typed line has always been refused with), any other key refused.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename = "CancelLineBody", deny_unknown_fields)]
pub struct CancelLineInput {
    pub product_name: Option<String>,
    pub product_code: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    pub quantity: Option<Decimal>,
    /// The unit price with VAT, to pick between lines of one product at different prices.
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    pub price: Option<Decimal>,
}

/// A corrective document's own internalId, when sent, follows an invoice's rules (422
/// `internalId`): not blank (sending none lets Arka name it), at most 255 characters, not a
/// name Arka gives a cancellation.
pub fn check_own_internal_id(own: &str) -> Result<(), FieldErrors> {
    if own.is_empty() {
        return Err(FieldErrors::one(
            "internalId",
            "The internalId must not be blank; send none to let Arka name the corrective document.",
        ));
    }
    let mut errors = FieldErrors::new();
    validation::internal_id_length(&mut errors, own);
    validation::not_a_cancellation_name(&mut errors, own);
    errors.into_result()
}

/// The name of the `n`-th cancellation of the sale `sale` sent without an internalId of its own:
/// `<sale>/cancel-<n>`, or the next `n` none of `taken` (the names of the year beginning so)
/// holds. A sale cannot take such a name (`validation::is_cancellation_name`), but one issued
/// before that rule may hold it, and a cancellation is never blocked by it.
pub fn cancellation_name(sale: &str, n: i64, taken: &[String]) -> String {
    let name = |n: i64| format!("{sale}/cancel-{n}");
    (n..).map(name).find(|candidate| !taken.contains(candidate)).unwrap_or_else(|| name(n))
}

/// Why an invoice is cancelled whole only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WholeOnly {
    NonCash,
    InvoiceDiscount,
    Order,
}

impl WholeOnly {
    fn message(self) -> &'static str {
        match self {
            WholeOnly::NonCash => {
                "Only a cash invoice can be cancelled in part; send no lines to cancel it whole."
            }
            WholeOnly::InvoiceDiscount => {
                "An invoice issued with an invoice-level discount is cancelled whole only; send no lines."
            }
            WholeOnly::Order => "An order invoice is cancelled whole only; send no lines.",
        }
    }
}

/// The quantity to reverse of each original line (in the original's order).
pub fn quantities(
    lines: &[Reversible],
    request: Option<&[CancelLineInput]>,
    whole_only: Option<WholeOnly>,
) -> Result<Vec<Decimal>, FieldErrors> {
    let Some(request) = request else {
        let whole: Vec<Decimal> = lines.iter().map(Reversible::remaining).collect();
        if whole.iter().all(|q| *q <= Decimal::ZERO) {
            return Err(FieldErrors::one("invoice", "The invoice is already wholly cancelled."));
        }
        return Ok(whole);
    };
    if let Some(reason) = whole_only {
        return Err(FieldErrors::one("lines", reason.message()));
    }
    if request.is_empty() {
        return Err(FieldErrors::one(
            "lines",
            "The lines field must hold at least one line; send no lines to cancel the whole invoice.",
        ));
    }
    let mut errors = FieldErrors::new();
    let mut taken = vec![Decimal::ZERO; lines.len()];
    for (index, wanted) in request.iter().enumerate() {
        let key = |field: &str| format!("lines.{index}.{field}");
        let name = wanted.product_name.as_deref().map(str::trim).filter(|n| !n.is_empty());
        let code = wanted.product_code.as_deref().map(str::trim).filter(|c| !c.is_empty());
        if name.is_none() {
            errors.add(key("product_name"), format!("The {} field is required.", key("product_name")));
        }
        if code.is_none() {
            errors.add(key("product_code"), format!("The {} field is required.", key("product_code")));
        }
        let quantity = errors.quantity(&key("quantity"), wanted.quantity);
        if wanted.price.is_some_and(|p| p < Decimal::ZERO) {
            errors.add(key("price"), format!("The {} field must be at least 0.", key("price")));
            continue;
        }
        let (Some(name), Some(code), Some(quantity)) = (name, code, quantity) else {
            continue;
        };
        let product: Vec<usize> = (0..lines.len())
            .filter(|&i| {
                lines[i].line.product_name.trim() == name && lines[i].line.product_code.trim() == code
            })
            .collect();
        let matching: Vec<usize> = match wanted.price {
            Some(price) => {
                product.iter().copied().filter(|&i| lines[i].line.unit_price == round2(price)).collect()
            }
            None => product.clone(),
        };
        if matching.is_empty() {
            let what = match wanted.price {
                Some(price) => format!("{name} ({code}) at {}", round2(price)),
                None => format!("{name} ({code})"),
            };
            errors.add(format!("lines.{index}"), format!("No line of the invoice is {what}."));
            continue;
        }
        let first_price = lines[matching[0]].line.unit_price;
        if wanted.price.is_none() && matching.iter().any(|&i| lines[i].line.unit_price != first_price) {
            errors.add(
                key("price"),
                format!("The invoice bills {name} ({code}) at different prices: send the price with VAT of the line to cancel."),
            );
            continue;
        }
        let left: Decimal = matching.iter().map(|&i| lines[i].remaining() - taken[i]).sum();
        if quantity > left {
            errors.add(
                key("quantity"),
                format!(
                    "The {} is above what remains to cancel of {name} ({code}): {}.",
                    key("quantity"),
                    left.normalize()
                ),
            );
            continue;
        }
        let mut rest = quantity;
        for &i in &matching {
            let take = rest.min(lines[i].remaining() - taken[i]);
            taken[i] += take;
            rest -= take;
        }
    }
    errors.into_result()?;
    Ok(taken)
}

/// Whether earlier cancellations left nothing of the invoice: it "cannot be cancelled in its
/// state" (422), whatever a new request asks and whichever internalId it brings, and the
/// refusal names the last corrective document (a POS retrying after a timeout reads it back).
pub fn wholly_cancelled(lines: &[Reversible]) -> bool {
    !lines.is_empty() && lines.iter().all(|l| l.remaining() <= Decimal::ZERO)
}

/// What earlier cancellations left of an invoice, as a list shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Remains {
    /// Nothing of any line is left.
    pub wholly: bool,
    /// What the corrective documents gave back, with VAT, in the invoice's currency (positive).
    pub cancelled: Decimal,
    /// What the invoice still stands for: its total less what was given back.
    pub remaining: Decimal,
}

/// `quantities`: the invoice's lines in order; `reversed`: what its corrective documents took of
/// each (by position, positive); `total`: the invoice's total; `corrective_totals`: theirs
/// (negative, a fee given back included).
pub fn remains(
    quantities: &[Decimal],
    reversed: &[(i64, Decimal)],
    total: Decimal,
    corrective_totals: &[Decimal],
) -> Remains {
    let taken = |position: usize| -> Decimal {
        reversed
            .iter()
            .filter(|(p, _)| usize::try_from(*p).is_ok_and(|p| p == position))
            .map(|(_, q)| *q)
            .sum()
    };
    let wholly = !quantities.is_empty() && quantities.iter().enumerate().all(|(i, q)| taken(i) >= *q);
    let given_back: Decimal = corrective_totals.iter().sum();
    Remains { wholly, cancelled: -given_back, remaining: total + given_back }
}

/// The corrective document's lines: for each original line with a quantity to reverse, its
/// position in the original and the reversed line, negative.
pub fn reversal(lines: &[Reversible], quantities: &[Decimal]) -> Vec<(usize, Line)> {
    lines
        .iter()
        .zip(quantities)
        .enumerate()
        .filter(|(_, (_, q))| **q > Decimal::ZERO)
        .map(|(position, (original, &q))| (position, negated(reversed_part(original, q))))
        .collect()
}

/// `quantity` of the line, as positive figures.
fn reversed_part(original: &Reversible, quantity: Decimal) -> Line {
    let line = &original.line;
    let done = original.reversed;
    if quantity == original.remaining() {
        return Line {
            quantity,
            total: line.total - done.total,
            discount: line.discount - done.discount,
            price_before_vat: line.price_before_vat - done.net,
            vat_amount: line.vat_amount - done.vat,
            price_after_vat: line.price_after_vat - done.gross,
            ..line.clone()
        };
    }
    let rate = line.vat_rate;
    let gross_before = round2(line.unit_price * quantity);
    let total = round2(gross_before * (Decimal::ONE_HUNDRED - line.discount_rate) / Decimal::ONE_HUNDRED);
    let net = net_of(total, rate);
    Line {
        quantity,
        total,
        discount: net_of(gross_before, rate) - net,
        price_before_vat: net,
        vat_amount: total - net,
        price_after_vat: total,
        ..line.clone()
    }
}

fn negated(line: Line) -> Line {
    Line {
        quantity: -line.quantity,
        total: -line.total,
        discount: -line.discount,
        price_before_vat: -line.price_before_vat,
        vat_amount: -line.vat_amount,
        price_after_vat: -line.price_after_vat,
        ..line
    }
}

/// The corrective document's payments: `refund` (positive, with VAT, in the invoice currency)
/// given back over the original's `payments` in their order, each up to what it paid less what
/// earlier refunds (`refunded`, positive, by method) gave back; anything beyond goes on the
/// first. Amounts come out negative.
pub fn refunds(payments: &[Payment], refunded: &[(PaymentType, Decimal)], refund: Decimal) -> Vec<Payment> {
    let mut rest = refund;
    let mut out: Vec<Payment> = Vec::new();
    for payment in payments {
        let given_back: Decimal =
            refunded.iter().filter(|(kind, _)| *kind == payment.kind).map(|(_, a)| *a).sum();
        let take = rest.min((payment.amount - given_back).max(Decimal::ZERO));
        if take > Decimal::ZERO {
            out.push(Payment { amount: -take, ..payment.clone() });
            rest -= take;
        }
    }
    // The CIS needs one payment at least, and the refund must add up.
    if rest > Decimal::ZERO || out.is_empty() {
        match (out.first_mut(), payments.first()) {
            (Some(first), _) => first.amount -= rest,
            (None, Some(payment)) => out.push(Payment { amount: -rest, ..payment.clone() }),
            (None, None) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::invoice::{InvoiceInput, LineInput, issue};
    use crate::domain::payments::PaymentsInput;

    #[test]
    fn a_corrective_document_s_own_internal_id() {
        // | internalId     | key        | message
        let long = "c".repeat(256);
        let table = [
            ("c-1", None),
            (
                "",
                Some("The internalId must not be blank; send none to let Arka name the corrective document."),
            ),
            (long.as_str(), Some("The internalId must not be greater than 255 characters.")),
        ];
        for (own, expected) in table {
            let found = check_own_internal_id(own).err().map(|e| e.into_map());
            let expected =
                expected.map(|m| [("internalId".to_string(), vec![m.to_string()])].into_iter().collect());
            assert_eq!(found, expected, "{own:?}");
        }
    }

    #[test]
    fn a_cancellation_takes_the_first_name_no_document_of_the_year_holds() {
        let taken = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let table: [(i64, &[&str], &str); 4] = [
            (1, &[], "t-1/cancel-1"),
            (2, &["t-1/cancel-1"], "t-1/cancel-2"),
            (1, &["t-1/cancel-1", "t-1/cancel-2", "t-1/cancel-01"], "t-1/cancel-3"),
            (1, &["t-1/cancel-2"], "t-1/cancel-1"),
        ];
        for (n, names, expected) in table {
            assert_eq!(cancellation_name("t-1", n, &taken(names)), expected, "{names:?}");
        }
    }

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    /// The priced lines of a cash invoice of `(name, code, quantity, price, discount)` at 20 %.
    fn sold(lines: &[(&str, &str, &str, &str, &str)]) -> Vec<Reversible> {
        let input = InvoiceInput {
            lines: lines
                .iter()
                .map(|(name, code, quantity, price, discount)| {
                    let (q, p, r) = (d(quantity), d(price), d(discount));
                    LineInput {
                        product_name: Some(name.to_string()),
                        product_code: Some(code.to_string()),
                        unit: Some("copë".to_string()),
                        unit_code: None,
                        quantity: Some(q),
                        price: Some(p),
                        total: Some(round2(p * q * (Decimal::ONE_HUNDRED - r) / Decimal::ONE_HUNDRED)),
                        discount: Some(r),
                        vat: Some(d("20")),
                        vat_exempt_type: None,
                    }
                })
                .collect(),
            issuer_in_vat: true,
            invoice_discount_type: None,
            invoice_discount_value: None,
            fee: None,
            exchange_rate: None,
            payments: PaymentsInput::V1 {
                payment_method: Some("BANKNOTE".into()),
                company_card: None,
                vouchers: None,
            },
        };
        issue(&input)
            .unwrap()
            .lines
            .into_iter()
            .map(|line| Reversible { line, reversed: Reversed::default() })
            .collect()
    }

    fn cancel(name: &str, code: &str, quantity: &str, price: Option<&str>) -> CancelLineInput {
        CancelLineInput {
            product_name: Some(name.into()),
            product_code: Some(code.into()),
            quantity: Some(d(quantity)),
            price: price.map(d),
        }
    }

    /// What `reversal` took, folded into the lines as an earlier cancellation.
    fn after(mut lines: Vec<Reversible>, reversal: &[(usize, Line)]) -> Vec<Reversible> {
        for (position, r) in reversal {
            let done = &mut lines[*position].reversed;
            done.quantity -= r.quantity;
            done.total -= r.total;
            done.discount -= r.discount;
            done.net -= r.price_before_vat;
            done.vat -= r.vat_amount;
            done.gross -= r.price_after_vat;
        }
        lines
    }

    #[test]
    fn no_lines_cancels_what_remains_and_nothing_remaining_is_refused() {
        let lines = sold(&[("Kafe", "K1", "2", "120", "0"), ("Ujë", "U1", "1", "50", "10")]);
        assert_eq!(quantities(&lines, None, None).unwrap(), [d("2"), d("1")]);
        let whole = reversal(&lines, &[d("2"), d("1")]);
        // | line | Q  | PA      | PB      | VA     |
        assert_eq!(whole[0].1.quantity, d("-2"));
        assert_eq!(whole[0].1.price_after_vat, d("-240.00"));
        assert_eq!(whole[1].1.price_after_vat, d("-45.00"));
        assert_eq!(whole[1].1.price_before_vat + whole[1].1.vat_amount, d("-45.00"));
        let gone = after(lines, &whole);
        assert_eq!(
            quantities(&gone, None, None).unwrap_err().into_map().keys().collect::<Vec<_>>(),
            ["invoice"]
        );
    }

    #[test]
    fn what_remains_of_a_part_cancelled_invoice() {
        // Two coffees at 120 and a water at 45: 285.
        // | given back                | wholly | cancelled | remaining |
        // | the water                 | no     | 45        | 240       |
        // | the water and one coffee  | no     | 165       | 120       |
        // | everything                | yes    | 285       | 0         |
        let quantities = [d("2"), d("1")];
        assert_eq!(
            remains(&quantities, &[(1, d("1"))], d("285"), &[d("-45")]),
            Remains { wholly: false, cancelled: d("45"), remaining: d("240") }
        );
        assert_eq!(
            remains(&quantities, &[(1, d("1")), (0, d("1"))], d("285"), &[d("-45"), d("-120")]),
            Remains { wholly: false, cancelled: d("165"), remaining: d("120") }
        );
        let all =
            remains(&quantities, &[(1, d("1")), (0, d("1")), (0, d("1"))], d("285"), &[d("-45"), d("-240")]);
        assert_eq!(all, Remains { wholly: true, cancelled: d("285"), remaining: d("0") });
        // A non-cash invoice's fee goes back with the whole.
        let with_fee = remains(&[d("1")], &[(0, d("1"))], d("110"), &[d("-110")]);
        assert_eq!(with_fee, Remains { wholly: true, cancelled: d("110"), remaining: d("0") });
    }

    #[test]
    fn an_invoice_is_wholly_cancelled_once_nothing_of_any_line_is_left() {
        let lines = sold(&[("Kafe", "K1", "2", "120", "0"), ("Ujë", "U1", "1", "50", "0")]);
        // | reversed so far           | wholly cancelled |
        // | nothing                   | no               |
        // | one coffee                | no               |
        // | both coffees              | no               |
        // | both coffees and the water | yes             |
        assert!(!wholly_cancelled(&lines));
        let one_coffee = quantities(&lines, Some(&[cancel("Kafe", "K1", "1", None)]), None).unwrap();
        let lines = after(lines.clone(), &reversal(&lines, &one_coffee));
        assert!(!wholly_cancelled(&lines));
        let coffee = quantities(&lines, Some(&[cancel("Kafe", "K1", "1", None)]), None).unwrap();
        let lines = after(lines.clone(), &reversal(&lines, &coffee));
        assert!(!wholly_cancelled(&lines));
        let rest = quantities(&lines, None, None).unwrap();
        let gone = after(lines.clone(), &reversal(&lines, &rest));
        assert!(wholly_cancelled(&gone));
        assert!(!wholly_cancelled(&[]), "no lines is no invoice to speak of");
    }

    #[test]
    fn partial_cancellations_add_up_to_the_line_to_the_cent() {
        // Three at 0.35 with 5 % off: 1.00 in total; three single cancellations of 0.33 each
        // would leave a cent, so the last takes what is left.
        let lines = sold(&[("Çamçakëz", "C1", "3", "0.35", "5")]);
        assert_eq!(lines[0].line.total, d("1.00"));
        let mut lines = lines;
        let mut reversed_total = Decimal::ZERO;
        for _ in 0..3 {
            let q = quantities(&lines, Some(&[cancel("Çamçakëz", "C1", "1", None)]), None).unwrap();
            let r = reversal(&lines, &q);
            reversed_total += r[0].1.price_after_vat;
            lines = after(lines, &r);
        }
        assert_eq!(reversed_total, d("-1.00"));
        let over = quantities(&lines, Some(&[cancel("Çamçakëz", "C1", "1", None)]), None).unwrap_err();
        assert!(over.into_map().contains_key("lines.0.quantity"));
    }

    #[test]
    fn lines_are_matched_by_name_code_and_price_and_checked_against_what_remains() {
        let lines = sold(&[
            ("Kafe", "K1", "2", "120", "0"),
            ("Kafe", "K1", "1", "100", "0"),
            ("Ujë", "U1", "1", "50", "0"),
        ]);
        let keys = |e: FieldErrors| e.into_map().into_keys().collect::<Vec<_>>();
        // | sent                        | answer                     |
        assert_eq!(
            keys(quantities(&lines, Some(&[cancel("Kafe", "K1", "1", None)]), None).unwrap_err()),
            ["lines.0.price"]
        );
        assert_eq!(
            quantities(&lines, Some(&[cancel("Kafe", "K1", "1", Some("100"))]), None).unwrap(),
            [d("0"), d("1"), d("0")]
        );
        assert_eq!(
            keys(quantities(&lines, Some(&[cancel("Kafe", "K1", "3", Some("120"))]), None).unwrap_err()),
            ["lines.0.quantity"]
        );
        assert_eq!(
            keys(quantities(&lines, Some(&[cancel("Çaj", "C9", "1", None)]), None).unwrap_err()),
            ["lines.0"]
        );
        assert_eq!(
            keys(quantities(&lines, Some(&[cancel("Ujë", "U1", "0", None)]), None).unwrap_err()),
            ["lines.0.quantity"]
        );
        // Two lines of one request draw on the same remainder.
        let twice = [cancel("Ujë", "U1", "1", None), cancel("Ujë", "U1", "1", None)];
        assert_eq!(keys(quantities(&lines, Some(&twice), None).unwrap_err()), ["lines.1.quantity"]);
        assert_eq!(keys(quantities(&lines, Some(&[]), None).unwrap_err()), ["lines"]);
    }

    #[test]
    fn some_invoices_are_cancelled_whole_only() {
        let lines = sold(&[("Kafe", "K1", "2", "120", "0")]);
        for reason in [WholeOnly::NonCash, WholeOnly::InvoiceDiscount, WholeOnly::Order] {
            let refused =
                quantities(&lines, Some(&[cancel("Kafe", "K1", "1", None)]), Some(reason)).unwrap_err();
            assert!(refused.into_map().contains_key("lines"), "{reason:?}");
            assert_eq!(quantities(&lines, None, Some(reason)).unwrap(), [d("2")]);
        }
    }

    #[test]
    fn a_refund_goes_back_over_the_payments_in_their_order() {
        let paid =
            |kind, amount: &str| Payment { kind, amount: d(amount), company_card: None, vouchers: vec![] };
        let payments = [paid(PaymentType::Banknote, "200"), paid(PaymentType::Card, "85")];
        let amounts = |r: Vec<Payment>| r.into_iter().map(|p| (p.kind, p.amount)).collect::<Vec<_>>();
        // | refund | refunded before   | given back                      |
        assert_eq!(amounts(refunds(&payments, &[], d("45"))), [(PaymentType::Banknote, d("-45"))]);
        assert_eq!(
            amounts(refunds(&payments, &[(PaymentType::Banknote, d("45"))], d("240"))),
            [(PaymentType::Banknote, d("-155")), (PaymentType::Card, d("-85"))]
        );
        assert_eq!(
            amounts(refunds(&payments, &[], d("285"))),
            [(PaymentType::Banknote, d("-200")), (PaymentType::Card, d("-85"))]
        );
    }
}
