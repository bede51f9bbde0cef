//! A day's sales as the shop owner reads them: per TCR and per payment method, in lek.
//!
//! An invoice counts once in its TCR's receipts (non-cash invoices, issued without a TCR, form a
//! till of their own) with its gross in lek (`gross_all`). Each payment counts under its method,
//! converted to lek at the invoice's exchange rate and rounded to the cent on its own, as every
//! `_all` figure is; a method's column can therefore differ from `gross_all` by a cent on a
//! foreign-currency invoice, and it carries a non-cash invoice's fee, which `gross_all` leaves out.

use std::collections::BTreeMap;

use rust_decimal::Decimal;

use super::money::{self, Overflow};

/// One invoice of the day.
#[derive(Debug, Clone)]
pub struct Sale {
    /// `None` for a non-cash invoice.
    pub tcr_code: Option<String>,
    /// The total with VAT in lek, fee left out.
    pub gross_all: Decimal,
    pub exchange_rate: Decimal,
    /// Still waiting for the CIS (no FIC yet): a legal sale all the same.
    pub waiting: bool,
    /// (method, amount in the invoice's currency).
    pub payments: Vec<(String, Decimal)>,
}

/// The day of one till, or of the non-cash invoices (`tcr_code` `None`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TillSales {
    pub tcr_code: Option<String>,
    pub receipts: u64,
    pub waiting: u64,
    pub gross: Decimal,
    /// Lek by payment method, methods in alphabetical order.
    pub by_method: BTreeMap<String, Decimal>,
}

/// The day of the whole company: the tills' figures added up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DaySales {
    pub receipts: u64,
    pub waiting: u64,
    pub gross: Decimal,
    pub by_method: BTreeMap<String, Decimal>,
    /// TCRs in code order, the non-cash invoices last.
    pub tills: Vec<TillSales>,
}

fn add_sale(till: &mut TillSales, sale: &Sale) -> Result<(), Overflow> {
    till.receipts += 1;
    till.waiting += u64::from(sale.waiting);
    till.gross = money::add(till.gross, sale.gross_all)?;
    for (method, amount) in &sale.payments {
        let lek = money::round2(money::mul(*amount, sale.exchange_rate)?);
        let sum = till.by_method.entry(method.clone()).or_default();
        *sum = money::add(*sum, lek)?;
    }
    Ok(())
}

/// Adds up the day's invoices per till and for the company.
pub fn summarize(sales: &[Sale]) -> Result<DaySales, Overflow> {
    let mut tills: BTreeMap<(bool, Option<&str>), TillSales> = BTreeMap::new();
    let mut day = DaySales::default();
    for sale in sales {
        // (is non-cash, code): the TCRs in code order first, the non-cash invoices after them.
        let key = (sale.tcr_code.is_none(), sale.tcr_code.as_deref());
        let till = tills
            .entry(key)
            .or_insert_with(|| TillSales { tcr_code: sale.tcr_code.clone(), ..TillSales::default() });
        add_sale(till, sale)?;
    }
    for till in tills.into_values() {
        day.receipts += till.receipts;
        day.waiting += till.waiting;
        day.gross = money::add(day.gross, till.gross)?;
        for (method, amount) in &till.by_method {
            let sum = day.by_method.entry(method.clone()).or_default();
            *sum = money::add(*sum, *amount)?;
        }
        day.tills.push(till);
    }
    Ok(day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn sale(tcr: Option<&str>, gross: &str, rate: &str, payments: &[(&str, &str)]) -> Sale {
        Sale {
            tcr_code: tcr.map(str::to_string),
            gross_all: d(gross),
            exchange_rate: d(rate),
            waiting: false,
            payments: payments.iter().map(|(m, a)| (m.to_string(), d(a))).collect(),
        }
    }

    #[test]
    fn a_day_without_sales_is_all_zero() {
        assert_eq!(summarize(&[]).unwrap(), DaySales::default());
    }

    #[test]
    fn sales_add_up_per_till_and_method_with_the_non_cash_invoices_last() {
        //  till      | gross  | BANKNOTE | CARD   | ACCOUNT
        //  kb002     | 100.00 | 100.00   |        |
        //  (noncash) | 500.00 |          |        | 500.00
        //  ab001     | 285.00 | 285.00   |        |
        //  ab001     |  50.00 |  20.00   |  30.00 |
        let day = summarize(&[
            sale(Some("kb002"), "100", "1", &[("BANKNOTE", "100")]),
            sale(None, "500", "1", &[("ACCOUNT", "500")]),
            sale(Some("ab001"), "285", "1", &[("BANKNOTE", "285")]),
            sale(Some("ab001"), "50", "1", &[("BANKNOTE", "20"), ("CARD", "30")]),
        ])
        .unwrap();
        assert_eq!(day.receipts, 4);
        assert_eq!(day.gross, d("935"));
        let codes: Vec<Option<&str>> = day.tills.iter().map(|t| t.tcr_code.as_deref()).collect();
        assert_eq!(codes, [Some("ab001"), Some("kb002"), None]);
        assert_eq!(day.tills[0].receipts, 2);
        assert_eq!(day.tills[0].gross, d("335"));
        assert_eq!(day.tills[0].by_method["BANKNOTE"], d("305"));
        assert_eq!(day.tills[0].by_method["CARD"], d("30"));
        assert_eq!(day.by_method["BANKNOTE"], d("405"));
        assert_eq!(day.by_method["ACCOUNT"], d("500"));
        assert_eq!(day.by_method.keys().collect::<Vec<_>>(), ["ACCOUNT", "BANKNOTE", "CARD"]);
    }

    #[test]
    fn a_foreign_currency_payment_counts_in_lek_rounded_on_its_own() {
        // 10.01 EUR at 97.555 lek: 976.52555 -> 976.53 lek, whatever gross_all says.
        let day = summarize(&[sale(Some("ab001"), "976.53", "97.555", &[("CARD", "10.01")])]).unwrap();
        assert_eq!(day.by_method["CARD"], d("976.53"));
        assert_eq!(day.gross, d("976.53"));
    }

    #[test]
    fn invoices_waiting_for_the_cis_count_as_sales_and_are_counted_as_waiting() {
        let mut waiting = sale(Some("ab001"), "10", "1", &[("BANKNOTE", "10")]);
        waiting.waiting = true;
        let day = summarize(&[waiting, sale(Some("ab001"), "5", "1", &[("BANKNOTE", "5")])]).unwrap();
        assert_eq!((day.receipts, day.waiting, day.gross), (2, 1, d("15")));
        assert_eq!(day.tills[0].waiting, 1);
    }

    #[test]
    fn sums_beyond_a_decimal_are_an_overflow_not_a_panic() {
        let huge = Decimal::MAX;
        let sales = [
            sale(Some("ab001"), &huge.to_string(), "1", &[]),
            sale(Some("ab001"), &huge.to_string(), "1", &[]),
        ];
        assert_eq!(summarize(&sales), Err(Overflow));
    }
}
