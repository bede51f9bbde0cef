//! The invoices of one business day with their payments, for the owner's page.

use rusqlite::{Connection, named_params};

use super::money::Money;
use super::{Result, with_payments};
use crate::domain::sales_day::Sale;

/// The company's invoices issued on `business_day` (`YYYY-MM-DD`, Tirane), each with its
/// payments, in one query over the (company, issue_date, id) index.
pub fn sales_on(conn: &Connection, company_id: i64, business_day: &str) -> Result<Vec<Sale>> {
    let mut stmt = conn.prepare_cached(
        "SELECT i.id, i.tcr_code, i.gross_all, i.exchange_rate, i.fic IS NULL AS waiting,
                p.type AS method, p.amount
         FROM invoices i LEFT JOIN invoice_payments p ON p.invoice_id = i.id
         WHERE i.company_id = :company AND i.issue_date = :day AND i.document_kind <> 'ORDER'
         ORDER BY i.id, p.position",
    )?;
    let mut rows = stmt.query(named_params! {":company": company_id, ":day": business_day})?;
    with_payments::fold(&mut rows, |r| {
        Ok(Sale {
            tcr_code: r.get("tcr_code")?,
            gross_all: r.get::<_, Money>("gross_all")?.0,
            exchange_rate: r.get::<_, Money>("exchange_rate")?.0,
            waiting: r.get("waiting")?,
            payments: Vec::new(),
        })
    })
}

impl with_payments::Paid for Sale {
    fn payments(&mut self) -> &mut Vec<(String, rust_decimal::Decimal)> {
        &mut self.payments
    }
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;

    use super::*;
    use crate::domain::spelled::Spelled;
    use crate::store::Store;
    use crate::store::invoices::tests::invoice;
    use crate::store::invoices::{self, Payment};

    fn payment(kind: &str, amount: i64) -> Payment {
        Payment {
            kind: Spelled::parse(kind).unwrap(),
            amount: Decimal::from(amount),
            company_card: None,
            vouchers: Vec::new(),
        }
    }

    #[test]
    fn the_day_holds_the_companys_invoices_of_that_date_with_their_payments() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let sales = store
            .write_blocking(|tx| {
                for nuis in ["L1", "L2"] {
                    tx.execute(
                        "INSERT INTO companies (nuis, name, created_at) VALUES (?1, 'Shop', 'now')",
                        [nuis],
                    )?;
                }
                let mut split = invoice(1, 1, "CASH", "2026-03-01", None);
                split.tcr_code = Some("aa111aa111".into());
                split.totals.gross_all = Decimal::from(50);
                split.payments = vec![payment("BANKNOTE", 20), payment("CARD", 30)];
                let mut fiscalized = invoice(1, 2, "NONCASH", "2026-03-01", Some("Buyer"));
                fiscalized.fic = Some("FIC".into());
                fiscalized.payments = vec![payment("ACCOUNT", 500)];
                let yesterday = invoice(1, 3, "CASH", "2026-02-28", None);
                let theirs = invoice(2, 4, "CASH", "2026-03-01", None);
                for i in [split, fiscalized, yesterday, theirs] {
                    invoices::insert(tx, &i)?;
                }
                sales_on(tx, 1, "2026-03-01")
            })
            .unwrap();
        assert_eq!(sales.len(), 2, "yesterday's and another company's invoices are not in the day");
        assert_eq!(sales[0].tcr_code.as_deref(), Some("aa111aa111"));
        assert_eq!(sales[0].gross_all, Decimal::from(50));
        assert!(sales[0].waiting);
        assert_eq!(
            sales[0].payments,
            [("BANKNOTE".to_string(), Decimal::from(20)), ("CARD".to_string(), Decimal::from(30))]
        );
        assert_eq!((sales[1].tcr_code.as_deref(), sales[1].waiting), (None, false));
        assert_eq!(sales[1].payments, [("ACCOUNT".to_string(), Decimal::from(500))]);
    }
}
