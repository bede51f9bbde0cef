//! A restaurant's table: order invoices open it (lines with their own discounts, no payment:
//! the CIS's pay method ORDER), one summary invoice pays it (the orders' lines, an invoice
//! discount of its own, banknotes or card).

use super::payments::{PaymentType, ReadPayments};
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
}
