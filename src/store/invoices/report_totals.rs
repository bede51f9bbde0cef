//! The daily totals reports read (V16): sales, VAT classes, payments, products and clients per
//! day. The invoice store's `insert` adds a document to them and its `delete` takes it out, in
//! the document's own transaction, so they never drift from the documents; `rebuild` makes
//! them again from the documents (after the upgrade that brings them, or by `arka reports
//! rebuild`), `verify` compares them with a rebuild without keeping it.
//!
//! Amounts are integer cents and quantities thousandths: SQLite adds integers exactly.

use rusqlite::{Connection, named_params};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

use crate::domain::cash_register::CashSale;
use crate::domain::money::round2;
use crate::domain::payments::PaymentType;
use crate::domain::report::{self, Figures, ReportKind};
use crate::store::invoices::{self, Invoice};
use crate::store::{Error, Result};
// Sums back as amounts and a document's figures are the core's report model's.
pub use arka_core::report::{amount, figures_of, quantity};

/// An amount as stored in the totals: whole cents.
pub fn cents(amount: Decimal) -> Result<i64> {
    round2(amount).checked_mul(Decimal::ONE_HUNDRED).and_then(|c| c.to_i64()).ok_or(Error::Overflow)
}

/// A quantity as stored in the totals: thousandths (the CIS's quantities have at most three
/// decimals).
pub fn thousandths(quantity: Decimal) -> Result<i64> {
    quantity.round_dp(3).checked_mul(Decimal::ONE_THOUSAND).and_then(|q| q.to_i64()).ok_or(Error::Overflow)
}

/// What the document is in reports (a corrective document by what it reverses).
pub fn kind_of(conn: &Connection, invoice: &Invoice) -> Result<ReportKind> {
    let original = match invoice.original_invoice_id {
        Some(id) => invoices::document_kind(conn, id)?,
        None => None,
    };
    Ok(arka_core::report::kind_of(invoice, original))
}

/// Adds a document just written.
pub fn add(conn: &Connection, invoice: &Invoice) -> Result<()> {
    apply(conn, invoice, 1)
}

/// Takes out a document about to be deleted.
pub fn remove(conn: &Connection, invoice: &Invoice) -> Result<()> {
    apply(conn, invoice, -1)
}

/// The key columns every table shares.
struct Key<'a> {
    company_id: i64,
    day: &'a str,
    business_unit_id: i64,
    tcr_code: &'a str,
    user_id: i64,
    operator_code: &'a str,
    kind: &'static str,
}

fn apply(conn: &Connection, invoice: &Invoice, sign: i64) -> Result<()> {
    let kind = kind_of(conn, invoice)?;
    let f = figures_of(invoice);
    let key = Key {
        company_id: invoice.company_id,
        day: &invoice.issue_date,
        business_unit_id: invoice.business_unit_id.unwrap_or(0),
        tcr_code: invoice.tcr_code.as_deref().unwrap_or(""),
        user_id: invoice.user_id.unwrap_or(0),
        operator_code: invoice.operator_code.as_deref().unwrap_or(""),
        kind: kind.as_str(),
    };
    let sale =
        CashSale { gross_all: invoice.totals.gross_all, self_issued: invoice.self_issue_type.is_some() };
    let till = report::till_effect(kind, invoice.kind, sale);
    add_sales(conn, &key, &invoice.currency, &f, till, sign)?;
    for class in &f.classes {
        let rate = class.vat_rate.normalize().to_string();
        let exemption = class.exemption.as_deref().unwrap_or("");
        conn.prepare_cached(
            "INSERT INTO report_vat (company_id, day, business_unit_id, tcr_code, user_id, operator_code, kind,
                 vat_rate, exemption, documents, lines, net, vat)
             VALUES (:company, :day, :unit, :tcr, :user, :operator, :kind, :rate, :exemption, :documents, :lines,
                 :net, :vat)
             ON CONFLICT DO UPDATE SET documents = documents + excluded.documents, lines = lines + excluded.lines,
                 net = net + excluded.net, vat = vat + excluded.vat",
        )?
        .execute(named_params! {
            ":company": key.company_id, ":day": key.day, ":unit": key.business_unit_id, ":tcr": key.tcr_code,
            ":user": key.user_id, ":operator": key.operator_code, ":kind": key.kind, ":rate": rate,
            ":exemption": exemption, ":documents": sign, ":lines": sign * class.lines,
            ":net": sign * cents(class.amounts.net)?, ":vat": sign * cents(class.amounts.vat)?,
        })?;
        if sign < 0 {
            conn.prepare_cached(
                "DELETE FROM report_vat WHERE company_id = :company AND day = :day AND business_unit_id = :unit
                     AND tcr_code = :tcr AND user_id = :user AND operator_code = :operator AND kind = :kind
                     AND vat_rate = :rate AND exemption = :exemption AND documents = 0",
            )?
            .execute(named_params! {
                ":company": key.company_id, ":day": key.day, ":unit": key.business_unit_id, ":tcr": key.tcr_code,
                ":user": key.user_id, ":operator": key.operator_code, ":kind": key.kind, ":rate": rate,
                ":exemption": exemption,
            })?;
        }
    }
    add_payments(conn, &key, invoice, &f, sign)?;
    if kind.in_sales() {
        add_products(conn, &key, invoice, &f, sign)?;
        add_client(conn, &key, invoice, &f, sign)?;
    }
    Ok(())
}

fn add_sales(
    conn: &Connection,
    key: &Key,
    currency: &str,
    f: &Figures,
    till: Decimal,
    sign: i64,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO report_sales (company_id, day, business_unit_id, tcr_code, user_id, operator_code, kind, currency,
             documents, net, vat, gross, discount, fee, net_currency, vat_currency, gross_currency, till)
         VALUES (:company, :day, :unit, :tcr, :user, :operator, :kind, :currency, :documents, :net, :vat, :gross,
             :discount, :fee, :net_currency, :vat_currency, :gross_currency, :till)
         ON CONFLICT DO UPDATE SET documents = documents + excluded.documents, net = net + excluded.net,
             vat = vat + excluded.vat, gross = gross + excluded.gross, discount = discount + excluded.discount,
             fee = fee + excluded.fee, net_currency = net_currency + excluded.net_currency,
             vat_currency = vat_currency + excluded.vat_currency,
             gross_currency = gross_currency + excluded.gross_currency, till = till + excluded.till",
    )?
    .execute(named_params! {
        ":company": key.company_id, ":day": key.day, ":unit": key.business_unit_id, ":tcr": key.tcr_code,
        ":user": key.user_id, ":operator": key.operator_code, ":kind": key.kind, ":currency": currency,
        ":documents": sign, ":net": sign * cents(f.lek.net)?, ":vat": sign * cents(f.lek.vat)?,
        ":gross": sign * cents(f.lek.gross)?, ":discount": sign * cents(f.discount)?, ":fee": sign * cents(f.fee)?,
        ":net_currency": sign * cents(f.in_currency.net)?, ":vat_currency": sign * cents(f.in_currency.vat)?,
        ":gross_currency": sign * cents(f.in_currency.gross)?, ":till": sign * cents(till)?,
    })?;
    if sign < 0 {
        conn.prepare_cached(
            "DELETE FROM report_sales WHERE company_id = :company AND day = :day AND business_unit_id = :unit
                 AND tcr_code = :tcr AND user_id = :user AND operator_code = :operator AND kind = :kind
                 AND currency = :currency AND documents = 0",
        )?
        .execute(named_params! {
            ":company": key.company_id, ":day": key.day, ":unit": key.business_unit_id, ":tcr": key.tcr_code,
            ":user": key.user_id, ":operator": key.operator_code, ":kind": key.kind, ":currency": currency,
        })?;
    }
    Ok(())
}

fn add_payments(conn: &Connection, key: &Key, invoice: &Invoice, f: &Figures, sign: i64) -> Result<()> {
    // A method listed twice on one document counts the document once.
    let mut methods: Vec<(PaymentType, Decimal)> = Vec::new();
    for (payment, lek) in invoice.payments.iter().zip(&f.payments) {
        match methods.iter_mut().find(|(m, _)| *m == payment.kind) {
            Some((_, sum)) => *sum += *lek,
            None => methods.push((payment.kind, *lek)),
        }
    }
    for (method, lek) in methods {
        conn.prepare_cached(
            "INSERT INTO report_payments (company_id, day, business_unit_id, tcr_code, user_id, operator_code, kind,
                 payment_method, documents, amount)
             VALUES (:company, :day, :unit, :tcr, :user, :operator, :kind, :method, :documents, :amount)
             ON CONFLICT DO UPDATE SET documents = documents + excluded.documents, amount = amount + excluded.amount",
        )?
        .execute(named_params! {
            ":company": key.company_id, ":day": key.day, ":unit": key.business_unit_id, ":tcr": key.tcr_code,
            ":user": key.user_id, ":operator": key.operator_code, ":kind": key.kind, ":method": method,
            ":documents": sign, ":amount": sign * cents(lek)?,
        })?;
        if sign < 0 {
            conn.prepare_cached(
                "DELETE FROM report_payments WHERE company_id = :company AND day = :day AND business_unit_id = :unit
                     AND tcr_code = :tcr AND user_id = :user AND operator_code = :operator AND kind = :kind
                     AND payment_method = :method AND documents = 0",
            )?
            .execute(named_params! {
                ":company": key.company_id, ":day": key.day, ":unit": key.business_unit_id, ":tcr": key.tcr_code,
                ":user": key.user_id, ":operator": key.operator_code, ":kind": key.kind, ":method": method,
            })?;
        }
    }
    Ok(())
}

fn add_products(conn: &Connection, key: &Key, invoice: &Invoice, f: &Figures, sign: i64) -> Result<()> {
    for (line, lek) in invoice.lines.iter().zip(&f.lines) {
        // The latest document names the product; taking one out leaves the name as it is.
        conn.prepare_cached(
            "INSERT INTO report_products (company_id, day, business_unit_id, tcr_code, product_code, product_name,
                 unit, lines, quantity, net, vat)
             VALUES (:company, :day, :unit, :tcr, :code, :name, :unit_name, :lines, :quantity, :net, :vat)
             ON CONFLICT DO UPDATE SET lines = lines + excluded.lines, quantity = quantity + excluded.quantity,
                 net = net + excluded.net, vat = vat + excluded.vat,
                 product_name = CASE WHEN excluded.lines > 0 THEN excluded.product_name ELSE product_name END,
                 unit = CASE WHEN excluded.lines > 0 THEN excluded.unit ELSE unit END",
        )?
        .execute(named_params! {
            ":company": key.company_id, ":day": key.day, ":unit": key.business_unit_id, ":tcr": key.tcr_code,
            ":code": line.product_code, ":name": line.product_name, ":unit_name": line.unit, ":lines": sign,
            ":quantity": sign * thousandths(line.quantity)?, ":net": sign * cents(lek.net)?,
            ":vat": sign * cents(lek.vat)?,
        })?;
        if sign < 0 {
            conn.prepare_cached(
                "DELETE FROM report_products WHERE company_id = :company AND day = :day AND business_unit_id = :unit
                     AND tcr_code = :tcr AND product_code = :code AND lines = 0",
            )?
            .execute(named_params! {
                ":company": key.company_id, ":day": key.day, ":unit": key.business_unit_id, ":tcr": key.tcr_code,
                ":code": line.product_code,
            })?;
        }
    }
    Ok(())
}

fn add_client(conn: &Connection, key: &Key, invoice: &Invoice, f: &Figures, sign: i64) -> Result<()> {
    let buyer = &invoice.buyer;
    let Some(buyer_key) =
        report::buyer_key(buyer.id_type.as_deref(), buyer.id_value.as_deref(), buyer.name.as_deref())
    else {
        return Ok(());
    };
    let mut quantity = 0i64;
    for line in &invoice.lines {
        quantity += thousandths(line.quantity)?;
    }
    conn.prepare_cached(
        "INSERT INTO report_clients (company_id, day, business_unit_id, buyer_key, client_id, buyer_name, buyer_id_type,
             buyer_id_value, documents, quantity, net, vat, gross)
         VALUES (:company, :day, :unit, :key, :client, :name, :id_type, :id_value, :documents, :quantity, :net, :vat,
             :gross)
         ON CONFLICT DO UPDATE SET documents = documents + excluded.documents,
             quantity = quantity + excluded.quantity, net = net + excluded.net, vat = vat + excluded.vat,
             gross = gross + excluded.gross,
             client_id = CASE WHEN excluded.documents > 0 THEN COALESCE(excluded.client_id, client_id) ELSE client_id END,
             buyer_name = CASE WHEN excluded.documents > 0 THEN excluded.buyer_name ELSE buyer_name END",
    )?
    .execute(named_params! {
        ":company": key.company_id, ":day": key.day, ":unit": key.business_unit_id, ":key": buyer_key,
        ":client": buyer.client_id, ":name": buyer.name.as_deref().map(str::trim).unwrap_or(""),
        ":id_type": buyer.id_type, ":id_value": buyer.id_value, ":documents": sign,
        ":quantity": sign * quantity, ":net": sign * cents(f.lek.net)?, ":vat": sign * cents(f.lek.vat)?,
        ":gross": sign * cents(f.lek.gross)?,
    })?;
    if sign < 0 {
        conn.prepare_cached(
            "DELETE FROM report_clients WHERE company_id = :company AND day = :day AND business_unit_id = :unit
                 AND buyer_key = :key AND documents = 0",
        )?
        .execute(named_params! {
            ":company": key.company_id, ":day": key.day, ":unit": key.business_unit_id, ":key": buyer_key,
        })?;
    }
    Ok(())
}

/// The tables and the columns `verify` compares (names are the latest seen, not compared).
const TABLES: [(&str, &str); 5] = [
    (
        "report_sales",
        "company_id, day, business_unit_id, tcr_code, user_id, operator_code, kind, currency, documents, net, vat,
         gross, discount, fee, net_currency, vat_currency, gross_currency, till",
    ),
    (
        "report_vat",
        "company_id, day, business_unit_id, tcr_code, user_id, operator_code, kind, vat_rate, exemption, documents,
         lines, net, vat",
    ),
    (
        "report_payments",
        "company_id, day, business_unit_id, tcr_code, user_id, operator_code, kind, payment_method, documents, amount",
    ),
    ("report_products", "company_id, day, business_unit_id, tcr_code, product_code, lines, quantity, net, vat"),
    ("report_clients", "company_id, day, business_unit_id, buyer_key, documents, quantity, net, vat, gross"),
];

/// Makes the totals again from every stored document, and fills in the cash sales of days
/// closed before they were kept; returns how many documents were added.
pub fn rebuild(conn: &Connection, progress: &mut dyn FnMut(usize, usize)) -> Result<usize> {
    for (table, _) in TABLES {
        conn.execute(&format!("DELETE FROM {table}"), [])?;
    }
    let ids: Vec<i64> = conn
        .prepare("SELECT id FROM invoices ORDER BY id")?
        .query_map([], |r| r.get("id"))?
        .collect::<rusqlite::Result<_>>()?;
    for (done, id) in ids.iter().enumerate() {
        if let Some(invoice) = invoices::by_id(conn, *id)? {
            add(conn, &invoice)?;
        }
        progress(done + 1, ids.len());
    }
    fill_cash_sales(conn)?;
    conn.execute("UPDATE report_state SET built = 1", [])?;
    Ok(ids.len())
}

/// The cash sales of each closed day that does not have them yet, as its close computed them:
/// the till's cash documents written while it was open.
fn fill_cash_sales(conn: &Connection) -> Result<()> {
    let days: Vec<i64> = conn
        .prepare("SELECT id FROM cash_days WHERE closed_at IS NOT NULL AND cash_sales IS NULL")?
        .query_map([], |r| r.get("id"))?
        .collect::<rusqlite::Result<_>>()?;
    for id in days {
        let sales = crate::store::cash_register::day_cash_sales(conn, id)?;
        let sold = crate::domain::money::checked_sum(
            sales.into_iter().map(|(gross_all, self_issued)| CashSale { gross_all, self_issued }.signed()),
        )?;
        crate::store::cash_register::set_cash_sales(conn, id, round2(sold))?;
    }
    Ok(())
}

/// Builds the totals if the database has never had them built (the first open after the
/// upgrade that brings them); returns how many documents were added.
pub fn build_if_needed(conn: &Connection, progress: &mut dyn FnMut(usize, usize)) -> Result<Option<usize>> {
    let built: bool =
        conn.query_row("SELECT built FROM report_state WHERE id = 1", [], |r| r.get("built"))?;
    if built {
        return Ok(None);
    }
    rebuild(conn, progress).map(Some)
}

/// Rows of one table that differ between the kept totals and a rebuild.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    pub table: &'static str,
    /// Rows only the kept totals have, or have with other figures.
    pub kept_only: i64,
    /// Rows only the rebuild has, or has with other figures.
    pub rebuilt_only: i64,
}

/// Compares the kept totals with a rebuild from the documents: empty when they agree. Rebuilds
/// in place: run it in a transaction that is rolled back (`Store::trial_blocking`).
pub fn verify(conn: &Connection) -> Result<Vec<Drift>> {
    for (table, columns) in TABLES {
        conn.execute(&format!("DROP TABLE IF EXISTS temp.kept_{table}"), [])?;
        conn.execute(&format!("CREATE TEMP TABLE kept_{table} AS SELECT {columns} FROM main.{table}"), [])?;
    }
    rebuild(conn, &mut |_, _| {})?;
    let mut drifts = Vec::new();
    for (table, columns) in TABLES {
        let count = |a: &str, b: &str| -> Result<i64> {
            Ok(conn.query_row(
                &format!(
                    "SELECT COUNT(*) AS rows FROM (SELECT {columns} FROM {a} EXCEPT SELECT {columns} FROM {b})"
                ),
                [],
                |r| r.get("rows"),
            )?)
        };
        let kept_only = count(&format!("temp.kept_{table}"), &format!("main.{table}"))?;
        let rebuilt_only = count(&format!("main.{table}"), &format!("temp.kept_{table}"))?;
        conn.execute(&format!("DROP TABLE temp.kept_{table}"), [])?;
        if kept_only > 0 || rebuilt_only > 0 {
            drifts.push(Drift { table, kept_only, rebuilt_only });
        }
    }
    Ok(drifts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::document::{DocumentKind, InvoiceType};
    use crate::domain::spelled::Spelled;
    use crate::store::Store;
    use crate::store::invoices::{Buyer, Line, Payment, Totals};

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn line(code: &str, quantity: &str, net: &str, vat: &str, rate: &str) -> Line {
        let (net, vat) = (d(net), d(vat));
        Line {
            product_name: format!("Product {code}"),
            product_code: code.into(),
            unit: "copë".into(),
            unit_code: None,
            quantity: d(quantity),
            price: net + vat,
            total: net + vat,
            discount_rate: Decimal::ZERO,
            discount: Decimal::ZERO,
            vat_rate: d(rate),
            exemption: None,
            unit_price_net: net,
            rebate: None,
            net,
            vat,
            gross: net + vat,
            original_position: None,
        }
    }

    /// A document of `kind` on `day` with `lines`, paid in full by `method`.
    fn document(
        company_id: i64,
        n: i64,
        kind: DocumentKind,
        day: &str,
        lines: Vec<Line>,
        method: &str,
    ) -> Invoice {
        let net: Decimal = lines.iter().map(|l| l.net).sum();
        let vat: Decimal = lines.iter().map(|l| l.vat).sum();
        let mut invoice = invoices::tests::invoice(company_id, n, kind.as_str(), day, None);
        invoice.kind = if kind == DocumentKind::NonCash { InvoiceType::NonCash } else { InvoiceType::Cash };
        invoice.tcr_code = (kind != DocumentKind::NonCash).then(|| "aa111aa111".to_string());
        invoice.operator_code = Some("op123op123".into());
        invoice.totals = Totals {
            gross: net + vat,
            net,
            vat,
            total: net + vat,
            gross_all: net + vat,
            net_all: net,
            vat_all: vat,
            ..Totals::default()
        };
        invoice.fic = Some(format!("fic-{n}"));
        invoice.payments = vec![Payment {
            kind: Spelled::parse(method).unwrap(),
            amount: net + vat,
            company_card: None,
            vouchers: vec![],
        }];
        invoice.lines = lines;
        invoice
    }

    fn shop() -> (tempfile::TempDir, Store, i64) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let company = store
            .write_blocking(|tx| -> Result<_> {
                tx.execute(
                    "INSERT INTO companies (nuis, name, created_at) VALUES ('L1', 'Shop', 'now')",
                    [],
                )?;
                Ok(tx.last_insert_rowid())
            })
            .unwrap();
        (dir, store, company)
    }

    fn rows(store: &Store, table: &str) -> i64 {
        store
            .read_blocking(|c| {
                Ok(c.query_row(&format!("SELECT COUNT(*) AS rows FROM {table}"), [], |r| r.get("rows"))?)
            })
            .unwrap()
    }

    #[test]
    fn documents_written_and_given_back_leave_totals_equal_to_a_rebuild() {
        let (_dir, store, company) = shop();
        let sale = |n: i64, day: &str| {
            document(
                company,
                n,
                DocumentKind::Cash,
                day,
                vec![line("K1", "2", "200", "40", "20"), line("U1", "1", "47.17", "2.83", "6")],
                "BANKNOTE",
            )
        };
        let mut euro = document(
            company,
            3,
            DocumentKind::NonCash,
            "2026-03-02",
            vec![line("S1", "1.5", "10.01", "2", "20")],
            "ACCOUNT",
        );
        euro.currency = "EUR".into();
        euro.exchange_rate = d("100.52");
        euro.buyer = Buyer {
            name: Some("Dardania".into()),
            id_type: Some("NUIS".into()),
            id_value: Some("K81234001A".into()),
            ..Buyer::default()
        };
        let order = document(
            company,
            4,
            DocumentKind::Order,
            "2026-03-02",
            vec![line("K1", "1", "100", "20", "20")],
            "ORDER",
        );
        let ids = store
            .write_blocking(|tx| -> Result<_> {
                let first = invoices::insert(tx, &sale(1, "2026-03-01"))?;
                let second = invoices::insert(tx, &sale(2, "2026-03-01"))?;
                let euro = invoices::insert(tx, &euro)?;
                let order = invoices::insert(tx, &order)?;
                Ok(vec![first, second, euro, order])
            })
            .unwrap();
        let mut refund = document(
            company,
            5,
            DocumentKind::Corrective,
            "2026-03-03",
            vec![line("K1", "-1", "-100", "-20", "20")],
            "BANKNOTE",
        );
        refund.original_invoice_id = Some(ids[0]);
        let mut order_cancelled = document(
            company,
            6,
            DocumentKind::Corrective,
            "2026-03-03",
            vec![line("K1", "-1", "-100", "-20", "20")],
            "ORDER",
        );
        order_cancelled.original_invoice_id = Some(ids[3]);
        let more = store
            .write_blocking(|tx| -> Result<_> {
                Ok((invoices::insert(tx, &refund)?, invoices::insert(tx, &order_cancelled)?))
            })
            .unwrap();
        let sums = |store: &Store| -> (i64, i64, i64) {
            store
                .read_blocking(|c| {
                    Ok(c.query_row(
                        "SELECT SUM(documents) AS documents, SUM(gross) AS gross, SUM(till) AS till FROM report_sales
                         WHERE kind IN ('CASH', 'CORRECTIVE')",
                        [],
                        |r| Ok((r.get("documents")?, r.get("gross")?, r.get("till")?)),
                    )?)
                })
                .unwrap()
        };
        // | documents | gross (cents)             | till (cents)      |
        // | 2 sales + 1 refund | 2 x 290.00 - 120.00 | the same, in cash |
        assert_eq!(sums(&store), (3, 46000, 46000));
        assert!(store.trial_blocking(|tx| verify(tx)).unwrap().is_empty(), "kept totals equal a rebuild");

        // The CIS refuses the second sale and the refund: both leave, and nothing is left behind.
        store.write_blocking(|tx| invoices::delete(tx, ids[1])).unwrap();
        store.write_blocking(|tx| invoices::delete(tx, more.0)).unwrap();
        assert_eq!(sums(&store), (1, 29000, 29000));
        assert!(store.trial_blocking(|tx| verify(tx)).unwrap().is_empty(), "still equal after deletes");
        let products: Vec<(String, i64)> = store
            .read_blocking(|c| {
                let mut stmt = c.prepare("SELECT product_code, SUM(quantity) AS quantity FROM report_products GROUP BY product_code ORDER BY product_code")?;
                Ok(stmt.query_map([], |r| Ok((r.get("product_code")?, r.get("quantity")?)))?.collect::<rusqlite::Result<_>>()?)
            })
            .unwrap();
        // The order and its cancellation are not sales: only the sale and the euro invoice count.
        assert_eq!(products, vec![("K1".into(), 2000), ("S1".into(), 1500), ("U1".into(), 1000)]);
        assert_eq!(rows(&store, "report_clients"), 1);

        // A drift is found, and a rebuild puts it right.
        store
            .write_blocking(|tx| -> Result<_> {
                Ok(tx.execute("UPDATE report_sales SET net = net + 1 WHERE kind = 'CASH'", [])?)
            })
            .unwrap();
        let drifts = store.trial_blocking(|tx| verify(tx)).unwrap();
        assert_eq!(drifts, vec![Drift { table: "report_sales", kept_only: 1, rebuilt_only: 1 }]);
        store.write_blocking(|tx| rebuild(tx, &mut |_, _| {})).unwrap();
        assert!(store.trial_blocking(|tx| verify(tx)).unwrap().is_empty());
    }

    #[test]
    fn an_upgraded_database_builds_its_totals_on_first_open() {
        let (dir, store, company) = shop();
        store
            .write_blocking(|tx| -> Result<_> {
                invoices::insert(
                    tx,
                    &document(
                        company,
                        1,
                        DocumentKind::Cash,
                        "2026-03-01",
                        vec![line("K1", "1", "100", "20", "20")],
                        "BANKNOTE",
                    ),
                )?;
                // As the upgrade leaves it: documents, no totals yet.
                tx.execute_batch(
                    "DELETE FROM report_sales; DELETE FROM report_vat; DELETE FROM report_payments;
                                  DELETE FROM report_products; UPDATE report_state SET built = 0",
                )?;
                Ok(())
            })
            .unwrap();
        drop(store);
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        assert_eq!(
            (rows(&store, "report_sales"), rows(&store, "report_vat"), rows(&store, "report_payments")),
            (1, 1, 1)
        );
        assert!(store.trial_blocking(|tx| verify(tx)).unwrap().is_empty());
    }

    #[test]
    fn amounts_are_kept_as_whole_cents_and_thousandths() {
        // | amount   | cents |
        assert_eq!(cents(d("285.00")).unwrap(), 28500);
        assert_eq!(cents(d("-0.005")).unwrap(), -1);
        assert_eq!(thousandths(d("1.5")).unwrap(), 1500);
        assert_eq!(amount(28500), d("285.00"));
        assert_eq!(quantity(1500), d("1.5"));
        assert!(matches!(cents(Decimal::MAX), Err(Error::Overflow)));
    }
}
