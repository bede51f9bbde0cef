//! What a shop and its head office say to each other over HTTPS, both sides' one definition.
//! The shop always calls; the HQ never calls a shop. And the invoice's answers (`invoices`), in
//! the shapes a shop's POS apps read, which the head office answers its shops' documents in.

pub mod invoices;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `POST /hq/v1/sync`'s path: a shop's batch of outbox entries.
pub const SYNC_PATH: &str = "/hq/v1/sync";

/// `GET /hq/v1/rows`'s path: a shop's rows back from the HQ, for `arka restore --from-hq`.
pub const ROWS_PATH: &str = "/hq/v1/rows";

/// The header every call of a shop carries: its box's identity (made when the box is linked or
/// restored). The HQ takes a shop's calls from one box only.
pub const BOX_HEADER: &str = "x-arka-box";

/// `POST`: the shop's heartbeat (`Heartbeat`), every `HEARTBEAT_EVERY_SECONDS` whatever it ships.
pub const HEARTBEAT_PATH: &str = "/hq/v1/heartbeat";

/// How often a shop says it is alive; the HQ counts a shop silent after a few of these.
pub const HEARTBEAT_EVERY_SECONDS: u64 = 10;

/// `POST`: a box restored from the HQ takes its shop over; the box before it is refused from
/// then on.
pub const TAKE_OVER_PATH: &str = "/hq/v1/boxes/take-over";

/// What a shop says in its heartbeat: what waits to reach the HQ and the CIS.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heartbeat {
    /// The binary's version.
    pub version: String,
    /// Changes noted for the HQ and not acknowledged yet, and the age of the oldest.
    pub backlog: i64,
    pub backlog_oldest_age_seconds: Option<i64>,
    /// Documents waiting for the CIS (the late-delivery queue), and the age of the oldest.
    pub cis_queue: i64,
    pub cis_queue_oldest_age_seconds: Option<i64>,
    /// Changes the HQ refused and the shop set aside (kept at the shop, shown to its owner).
    pub set_aside: i64,
}

/// `POST`: a non-cash number of the business from the chain's one sequence (`NumberAsk`).
pub const NONCASH_PATH: &str = "/hq/v1/numbers/noncash";

/// `POST`: a non-cash number given back, its document not written (`NumberAsk`).
pub const NONCASH_RELEASE_PATH: &str = "/hq/v1/numbers/noncash/release";

/// A shop asking for (or giving back) the non-cash number of one document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NumberAsk {
    pub nuis: String,
    pub year: i32,
    /// The document's held-number key (company, year and internalId): the same document always
    /// gets the same number.
    pub held_for: String,
    /// The number the shop's own books would give next: the sequence never goes below it.
    #[serde(default)]
    pub at_least: i64,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct NumberGiven {
    pub ord_num: i64,
}

/// `GET ?nuis=&after=`: a business's products set at the HQ, changed after a version.
pub const PRODUCTS_PATH: &str = "/hq/v1/products";

/// A product and its price as the head office sets it for a business (NUIS).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CentralProduct {
    pub nuis: String,
    pub code: String,
    pub name: String,
    pub description: String,
    /// Decimal text, as the shop stores prices.
    pub price: String,
    pub vat_rate: String,
    pub currency: String,
    pub unit_code: String,
    pub service: bool,
    /// The change's place in the HQ's order of changes.
    pub version: i64,
    /// The head office no longer sets this product: the shop keeps it as its own.
    #[serde(default)]
    pub withdrawn: bool,
}

/// Whether a row was written or taken away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Upsert,
    Delete,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Upsert => "upsert",
            Op::Delete => "delete",
        }
    }

    pub fn parse(text: &str) -> Option<Op> {
        match text {
            "upsert" => Some(Op::Upsert),
            "delete" => Some(Op::Delete),
            _ => None,
        }
    }
}

/// One outbox entry: the shop's sequence, the table, the row's key (its primary key columns)
/// and, for an upsert, the row as the shop holds it when it ships it (a JSON object, column →
/// value). The row travels as the text SQLite wrote and PostgreSQL reads: neither side builds
/// it into values, the bulk of a backfill's work otherwise.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    pub seq: i64,
    pub table: String,
    pub key: Map<String, Value>,
    pub op: Op,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<Box<serde_json::value::RawValue>>,
}

/// A batch, oldest first. `upto` is the highest sequence the batch accounts for: entries the
/// shop folded into a later one of the same row still count as shipped.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Batch {
    pub upto: i64,
    pub entries: Vec<Entry>,
}

/// The HQ's answer to a batch (and to `GET /hq/v1/sync`): the highest sequence it holds of
/// this shop. The shop forgets every entry at or below it.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Acked {
    pub acked: i64,
}

/// A page of a shop's rows, for a restore: one table at a time, in key order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RowsPage {
    pub acked: i64,
    pub rows: Vec<Map<String, Value>>,
    /// The key to ask after for the next page; none on the last.
    pub next: Option<String>,
}

/// The tables a shop ships, with their primary key columns, in an order a restore can insert
/// them in (a row's references come before it).
pub const TABLES: &[(&str, &[&str])] = &[
    ("partners", &["id"]),
    ("companies", &["id"]),
    ("business_units", &["id"]),
    ("users", &["id"]),
    ("fiscal_devices", &["id"]),
    ("bank_accounts", &["id"]),
    ("product_categories", &["id"]),
    ("products", &["id"]),
    ("clients", &["id"]),
    ("cash_days", &["id"]),
    ("invoices", &["id"]),
    ("invoice_lines", &["invoice_id", "position"]),
    ("invoice_payments", &["invoice_id", "position"]),
    ("einvoices", &["invoice_id"]),
    ("purchase_invoices", &["company_id", "eic"]),
    ("wtns", &["id"]),
    ("wtn_lines", &["id"]),
    ("invoice_wtns", &["invoice_id"]),
    ("wtn_invoiced", &["id"]),
    ("cash_actions", &["id"]),
    ("fiscal_queue", &["id"]),
    ("held_numbers", &["id"]),
    ("numbering_floors", &["company_id", "sequence", "year"]),
    ("stock_levels", &["business_unit_id", "product_id"]),
    ("stock_movements", &["id"]),
    (
        "report_sales",
        &[
            "company_id",
            "day",
            "business_unit_id",
            "tcr_code",
            "user_id",
            "operator_code",
            "kind",
            "currency",
        ],
    ),
    (
        "report_vat",
        &[
            "company_id",
            "day",
            "business_unit_id",
            "tcr_code",
            "user_id",
            "operator_code",
            "kind",
            "vat_rate",
            "exemption",
        ],
    ),
    (
        "report_payments",
        &[
            "company_id",
            "day",
            "business_unit_id",
            "tcr_code",
            "user_id",
            "operator_code",
            "kind",
            "payment_method",
        ],
    ),
    ("report_products", &["company_id", "day", "business_unit_id", "tcr_code", "product_code"]),
    ("report_clients", &["company_id", "day", "business_unit_id", "buyer_key"]),
];

/// The key columns of a shipped table; none for a table no shop ships.
pub fn key_columns(table: &str) -> Option<&'static [&'static str]> {
    TABLES.iter().find(|(name, _)| *name == table).map(|(_, key)| *key)
}

/// A key as the outbox writes it and the HQ stores it: the key columns' values in key order,
/// as a JSON array's text, so the same row always has the same key whatever the JSON's order.
pub fn key_text(table: &str, key: &Map<String, Value>) -> Option<String> {
    let columns = key_columns(table)?;
    let values = columns.iter().map(|c| key.get(*c).cloned()).collect::<Option<Vec<Value>>>()?;
    serde_json::to_string(&values).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_its_columns_in_key_order_whatever_the_order_it_came_in() {
        let mut key = Map::new();
        key.insert("position".into(), Value::from(2));
        key.insert("invoice_id".into(), Value::from(7));
        assert_eq!(key_text("invoice_lines", &key).as_deref(), Some("[7,2]"));
        key.remove("position");
        assert_eq!(key_text("invoice_lines", &key), None);
        assert_eq!(key_text("certificates", &key), None);
    }

    #[test]
    fn every_table_a_trigger_notes_is_a_table_the_hq_knows() {
        let migration = include_str!("../../migrations/V26__hq_outbox.sql");
        for line in migration.lines().filter(|l| l.starts_with("CREATE TRIGGER")) {
            let table = line.split(" ON ").nth(1).and_then(|rest| rest.split_whitespace().next());
            assert!(table.and_then(key_columns).is_some(), "{line}");
        }
        for (table, _) in TABLES {
            assert!(migration.contains(&format!("AFTER INSERT ON {table} ")), "{table}");
        }
    }
}
