//! What the HQ's reports read beyond the sales totals: the shops' VAT, product and buyer totals,
//! their tills, days, users, notes and corrective documents, each from a typed table derived
//! from the shipped rows (indexed by day), through the core's mappers the shop's store reads its
//! own rows with, so the core's report rules add them up alike.

use std::collections::{BTreeMap, HashMap};

use rust_decimal::Decimal;
use tokio_postgres::{GenericClient, Row};

use arka_core::domain::cash_register::{ActionType, CashSale, Movement};
use arka_core::domain::day_book::DayBook;
use arka_core::domain::wtn::{Destination, Point, ReportNote};
use arka_core::report::rows;
use arka_core::report::{ClientRow, DayRow, MovementRow, ProductRow, ReversalLine, VatRow};
use arka_core::row::Columns;

use super::columns::{Typed, mapped};
use super::filter::{Filter, Narrowed, Values, refs};
use super::{Error, Result};

const VAT: Narrowed = Narrowed { day: "day", prefix: "", tcr: true, operator: true };
const PRODUCTS: Narrowed = Narrowed { day: "day", prefix: "", tcr: true, operator: false };
const CLIENTS: Narrowed = Narrowed { day: "day", prefix: "", tcr: false, operator: false };

pub async fn vat<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<VatRow>> {
    let (conditions, values) = f.on(VAT);
    let rows = client
        .query(
            &format!(
                "SELECT kind, vat_rate, exemption, SUM(documents)::bigint AS documents, SUM(lines)::bigint AS lines,
                     SUM(net)::bigint AS net, SUM(vat)::bigint AS vat
                 FROM report_vat WHERE {conditions} GROUP BY kind, vat_rate, exemption"
            ),
            &refs(&values),
        )
        .await?;
    mapped(&rows, rows::vat_row)
}

/// Every product sold, by code across the shops; its name and unit as the latest day named it.
pub async fn products<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<ProductRow>> {
    let (conditions, values) = f.on(PRODUCTS);
    let rows = client
        .query(
            &format!(
                "SELECT product_code, (array_agg(product_name ORDER BY day DESC))[1] AS product_name,
                     (array_agg(unit ORDER BY day DESC))[1] AS unit, SUM(lines)::bigint AS lines,
                     SUM(quantity)::bigint AS quantity, SUM(net)::bigint AS net, SUM(vat)::bigint AS vat
                 FROM report_products WHERE {conditions} GROUP BY product_code"
            ),
            &refs(&values),
        )
        .await?;
    mapped(&rows, rows::product_row)
}

/// Every buyer, by its key across the shops; its name and ids as the latest day had them (the
/// client id is the latest shop's own).
pub async fn clients<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<ClientRow>> {
    let (conditions, values) = f.on(CLIENTS);
    let rows = client
        .query(
            &format!(
                "SELECT buyer_key, (array_agg(client_id ORDER BY day DESC))[1] AS client_id,
                     (array_agg(buyer_name ORDER BY day DESC))[1] AS buyer_name,
                     (array_agg(buyer_id_type ORDER BY day DESC))[1] AS buyer_id_type,
                     (array_agg(buyer_id_value ORDER BY day DESC))[1] AS buyer_id_value,
                     SUM(documents)::bigint AS documents, SUM(quantity)::bigint AS quantity,
                     SUM(net)::bigint AS net, SUM(vat)::bigint AS vat, SUM(gross)::bigint AS gross
                 FROM report_clients WHERE {conditions} GROUP BY buyer_key"
            ),
            &refs(&values),
        )
        .await?;
    mapped(&rows, rows::client_row)
}

/// Each shop's users: id to (name, operator code), by shop.
pub async fn users<C: GenericClient>(
    client: &C,
    shop_id: Option<i64>,
) -> Result<BTreeMap<i64, HashMap<i64, (String, Option<String>)>>> {
    let rows = client
        .query(
            "SELECT shop_id, id, COALESCE(name, '') AS name, operator_code FROM users
             WHERE $1::bigint IS NULL OR shop_id = $1",
            &[&shop_id],
        )
        .await?;
    let mut by_shop: BTreeMap<i64, HashMap<i64, (String, Option<String>)>> = BTreeMap::new();
    for r in &rows {
        let (id, user) = rows::user_row(r)?;
        by_shop.entry(r.col("shop_id")?).or_default().insert(id, user);
    }
    Ok(by_shop)
}

/// The shops' TCRs by code (a code the CIS gave is one TCR's): device name, branch id.
pub async fn tcrs<C: GenericClient>(
    client: &C,
    shop_id: Option<i64>,
) -> Result<HashMap<String, (String, i64)>> {
    let rows = client
        .query(
            "SELECT tcr_code, COALESCE(name, '') AS name, COALESCE(business_unit_id, 0) AS business_unit_id
             FROM fiscal_devices
             WHERE tcr_code IS NOT NULL AND ($1::bigint IS NULL OR shop_id = $1) ORDER BY shop_id, id",
            &[&shop_id],
        )
        .await?;
    Ok(mapped(&rows, rows::tcr_row)?.into_iter().collect())
}

/// The conditions on a shop's days or cash actions (`r`) as the shop's store puts them: the
/// period's business days, the TCR asked for or the branch's TCRs.
fn on_tills(f: &Filter) -> (String, Values) {
    let mut sql = "r.business_day >= $1 AND r.business_day <= $2".to_string();
    let mut values: Values = vec![Box::new(f.period.from.to_string()), Box::new(f.period.to.to_string())];
    if let Some(shop) = f.shop_id {
        values.push(Box::new(shop));
        sql.push_str(&format!(" AND r.shop_id = ${}", values.len()));
    }
    if let Some(code) = &f.tcr_code {
        values.push(Box::new(code.clone()));
        sql.push_str(&format!(" AND r.tcr_code = ${}", values.len()));
    }
    if let Some(unit) = f.business_unit_id {
        values.push(Box::new(unit));
        sql.push_str(&format!(
            " AND r.tcr_code IN (SELECT d.tcr_code FROM fiscal_devices d WHERE d.shop_id = r.shop_id
                 AND d.business_unit_id = ${})",
            values.len()
        ));
    }
    (sql, values)
}

/// The cash actions of the period summed by TCR, type and purpose.
pub async fn movements<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<MovementRow>> {
    let (conditions, values) = on_tills(f);
    let rows = client
        .query(
            &format!(
                "SELECT COALESCE(r.tcr_code, '') AS tcr_code, r.action_type, r.purpose,
                     COALESCE(r.fiscal_status = 'PENDING', false) AS waiting, COALESCE(r.amount, '0') AS amount
                 FROM cash_actions r WHERE {conditions}"
            ),
            &refs(&values),
        )
        .await?;
    rows::movements_of(mapped(&rows, rows::action)?.into_iter().flatten()).map_err(|_| Error::Overflow)
}

/// One till's day at the HQ, with what its X or Z report needs beyond the typed rows: the shop's
/// documents to read (as the shop reads them), who made its actions, and for a day still open
/// on the till's latest day where its drawer stands.
pub struct ShopDay {
    pub shop_id: i64,
    pub row: DayRow,
    /// What a closed day's documents came to, as the shop kept it when the day closed; None for
    /// a day open (or closed before the shop kept it): its documents are read and summed.
    pub kept: Option<DayBook>,
    pub action_users: Vec<i64>,
    /// The day's cash documents, oldest first, and the numbers of what the corrective ones cancel.
    pub document_ids: Vec<i64>,
    pub originals: HashMap<i64, String>,
    /// The shop's users (name, operator code) by id.
    pub users: HashMap<i64, (String, Option<String>)>,
    pub drawer: Option<DrawerSince>,
}

/// Where an open day's drawer stands: what the till's last count left, the actions after it, and
/// the cash documents of the days after it, to read.
pub struct DrawerSince {
    pub left: Decimal,
    pub movements: Vec<Movement>,
    pub document_ids: Vec<i64>,
}

/// The cash documents the shop's drawer and day report read (`store::cash_register`'s rule): not
/// orders, nor an order's cancellation.
const CASH_SALE: &str = "i.kind = 'CASH' AND i.document_kind <> 'ORDER'
    AND NOT EXISTS (SELECT 1 FROM invoices o WHERE o.shop_id = i.shop_id AND o.id = i.original_invoice_id
        AND o.document_kind = 'ORDER')";

/// The TCRs' business days of the period, oldest first, a page of them; a day still open has
/// its cash sales so far, from the shop's cash documents linked to it (as the shop's store adds).
/// What only the shop's own row holds (its balance at the close, its count by notes and coins,
/// the mark of its last action) is read from the shipped row.
pub async fn days<C: GenericClient>(client: &C, f: &Filter, limit: i64, offset: i64) -> Result<Vec<ShopDay>> {
    let (conditions, mut values) = on_tills(f);
    values.push(Box::new(limit));
    values.push(Box::new(offset));
    let (at_limit, at_offset) = (values.len() - 1, values.len());
    let rows = client
        .query(
            &format!(
                "SELECT r.shop_id, r.id, COALESCE(r.tcr_code, '') AS tcr_code,
                     COALESCE(r.business_day, '') AS business_day, COALESCE(r.opened_at, '') AS opened_at,
                     r.opened_automatically, r.closed_at, r.expected, r.counted, r.cash_sales,
                     s.row->>'balance' AS balance,
                     s.row->>'counted_by_denomination' AS count, s.row->>'day_book' AS day_book,
                     (SELECT d.name FROM fiscal_devices d WHERE d.shop_id = r.shop_id AND d.tcr_code = r.tcr_code
                      ORDER BY d.id LIMIT 1) AS name
                 FROM cash_days r
                 LEFT JOIN shop_rows s ON s.shop_id = r.shop_id AND s.tbl = 'cash_days' AND s.key = '[' || r.id || ']'
                 WHERE {conditions}
                 ORDER BY r.business_day, r.tcr_code COLLATE \"C\", r.shop_id, r.id
                 LIMIT ${at_limit} OFFSET ${at_offset}"
            ),
            &refs(&values),
        )
        .await?;
    let mut days = Vec::with_capacity(rows.len());
    let mut users: HashMap<i64, HashMap<i64, (String, Option<String>)>> = HashMap::new();
    for r in &rows {
        let (shop_id, mut day): (i64, DayRow) = (r.col("shop_id")?, rows::day_row(r)?);
        let id = day.id;
        let kept = rows::kept_book(r)?.filter(|_| day.closed_at.is_some());
        let mut action_users = Vec::new();
        for a in client
            .query(
                "SELECT a.purpose, a.action_type, COALESCE(a.amount, '0') AS amount,
                     (s.row->>'user_id')::bigint AS user_id
                 FROM cash_actions a
                 LEFT JOIN shop_rows s ON s.shop_id = a.shop_id AND s.tbl = 'cash_actions' AND s.key = '[' || a.id || ']'
                 WHERE a.shop_id = $1 AND a.cash_day_id = $2
                 ORDER BY a.id",
                &[&shop_id, &id],
            )
            .await?
        {
            let (action, user) = rows::day_action(&a)?;
            day.actions.extend(action);
            action_users.extend(user);
        }
        let document_ids = match kept {
            Some(_) => Vec::new(),
            None => document_ids(client, "i.cash_day_id = $2", &[&shop_id, &id]).await?,
        };
        let originals = originals_of(client, shop_id, &document_ids).await?;
        let mut drawer = None;
        if day.closed_at.is_none() {
            day.cash_sales = open_day_sales(client, shop_id, id).await?;
            drawer = drawer_since(client, shop_id, &day).await?;
        }
        let shop_users = match users.get(&shop_id) {
            Some(known) => known.clone(),
            None => {
                let read = users_of(client, shop_id).await?;
                users.insert(shop_id, read.clone());
                read
            }
        };
        days.push(ShopDay {
            shop_id,
            row: day,
            kept,
            action_users,
            document_ids,
            originals,
            users: shop_users,
            drawer,
        });
    }
    Ok(days)
}

/// The shop's cash documents matching `condition` (on `i`, with `$1` the shop and `$2`, `$3` the
/// arguments after it), oldest first.
async fn document_ids<C: GenericClient>(
    client: &C,
    condition: &str,
    args: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Vec<i64>> {
    let rows = client
        .query(
            &format!("SELECT i.id FROM invoices i WHERE i.shop_id = $1 AND {condition} AND {CASH_SALE} ORDER BY i.id"),
            args,
        )
        .await?;
    rows.iter().map(|r| r.col("id")).collect()
}

/// The numbers of the invoices the corrective documents among `ids` cancel, by id.
async fn originals_of<C: GenericClient>(
    client: &C,
    shop_id: i64,
    ids: &[i64],
) -> Result<HashMap<i64, String>> {
    let rows = client
        .query(
            "SELECT o.id, o.number FROM invoices i JOIN invoices o ON o.shop_id = i.shop_id AND o.id = i.original_invoice_id
             WHERE i.shop_id = $1 AND i.id = ANY($2)",
            &[&shop_id, &ids],
        )
        .await?;
    rows.iter().map(|r| Ok((r.col("id")?, r.col::<Option<String>>("number")?.unwrap_or_default()))).collect()
}

async fn users_of<C: GenericClient>(
    client: &C,
    shop_id: i64,
) -> Result<HashMap<i64, (String, Option<String>)>> {
    let rows = client
        .query(
            "SELECT id, COALESCE(name, '') AS name, operator_code FROM users WHERE shop_id = $1",
            &[&shop_id],
        )
        .await?;
    Ok(mapped(&rows, rows::user_row)?.into_iter().collect())
}

/// An open day that is its till's latest: what the till's last count left in the drawer, the
/// actions after that count, and the cash documents of the days after it (as the shop's
/// `store::cash_register::drawer_expected` reads them); None for an older day left open.
async fn drawer_since<C: GenericClient>(
    client: &C,
    shop_id: i64,
    day: &DayRow,
) -> Result<Option<DrawerSince>> {
    let latest: Option<i64> = client
        .query_one(
            "SELECT MAX(id) AS latest FROM cash_days WHERE shop_id = $1 AND tcr_code = $2",
            &[&shop_id, &day.tcr_code],
        )
        .await?
        .col("latest")?;
    if latest != Some(day.id) {
        return Ok(None);
    }
    let count = client
        .query_opt(
            "SELECT r.id, r.counted, (s.row->>'drawer_mark')::bigint AS drawer_mark
             FROM cash_days r
             LEFT JOIN shop_rows s ON s.shop_id = r.shop_id AND s.tbl = 'cash_days' AND s.key = '[' || r.id || ']'
             WHERE r.shop_id = $1 AND r.tcr_code = $2 AND r.closed_at IS NOT NULL ORDER BY r.id DESC LIMIT 1",
            &[&shop_id, &day.tcr_code],
        )
        .await?;
    let (counted_day, left, mark) = match count {
        Some(c) => {
            let counted_day: i64 = c.col("id")?;
            let withdrawn = client
                .query(
                    "SELECT amount FROM cash_actions WHERE shop_id = $1 AND cash_day_id = $2 AND purpose = 'close'",
                    &[&shop_id, &counted_day],
                )
                .await?
                .iter()
                .map(|r| Ok(r.decimal_opt("amount")?.unwrap_or_default()))
                .sum::<Result<Decimal>>()?;
            let counted = c.decimal_opt("counted")?.unwrap_or_default();
            let left =
                arka_core::domain::drawer::left_at_count(counted, withdrawn).map_err(|_| Error::Overflow)?;
            (counted_day, left, c.col::<Option<i64>>("drawer_mark")?.unwrap_or_default())
        }
        None => (0, Decimal::ZERO, 0),
    };
    let movements = client
        .query(
            "SELECT action_type, amount FROM cash_actions WHERE shop_id = $1 AND tcr_code = $2 AND id > $3 ORDER BY id",
            &[&shop_id, &day.tcr_code, &mark],
        )
        .await?
        .iter()
        .filter_map(|r| match r.spelled_opt::<ActionType>("action_type", "a cash action's type") {
            Ok(Some(action_type)) => Some(
                r.decimal_opt("amount").map(|amount| Movement { action_type, amount: amount.unwrap_or_default() }),
            ),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        })
        .collect::<arka_core::row::Result<Vec<_>>>()?;
    let after = "i.cash_day_id IN (SELECT d.id FROM cash_days d WHERE d.shop_id = $1 AND d.tcr_code = $2 AND d.id > $3)";
    let document_ids = document_ids(client, after, &[&shop_id, &day.tcr_code, &counted_day]).await?;
    Ok(Some(DrawerSince { left, movements, document_ids }))
}

/// A day still open: its cash documents' gross in lek, a self-invoice's paid out (orders and
/// their cancellations left out), as the shop's balance counts them.
async fn open_day_sales<C: GenericClient>(client: &C, shop_id: i64, day_id: i64) -> Result<Decimal> {
    let rows = client
        .query(
            "SELECT i.gross_all, i.self_issue_type IS NOT NULL AS self_issued FROM invoices i
             WHERE i.shop_id = $1 AND i.cash_day_id = $2 AND i.kind = 'CASH' AND i.document_kind <> 'ORDER'
                 AND NOT EXISTS (SELECT 1 FROM invoices o WHERE o.shop_id = i.shop_id
                     AND o.id = i.original_invoice_id AND o.document_kind = 'ORDER')",
            &[&shop_id, &day_id],
        )
        .await?;
    let sales = rows
        .iter()
        .map(|r| {
            Ok(CashSale {
                gross_all: r.decimal_opt("gross_all")?.unwrap_or_default(),
                self_issued: r.col("self_issued")?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    arka_core::domain::money::checked_sum(sales.into_iter().map(CashSale::signed))
        .map_err(|_| Error::Overflow)
}

/// A page of the corrective documents of the period, newest first, as the reversals report
/// lists them (their gross in lek as the shop stored it).
pub async fn reversals<C: GenericClient>(
    client: &C,
    f: &Filter,
    limit: i64,
    offset: i64,
) -> Result<Vec<ReversalLine>> {
    let (conditions, mut values) = f.on(super::filter::ON_INVOICES);
    values.push(Box::new(limit));
    values.push(Box::new(offset));
    let (at_limit, at_offset) = (values.len() - 1, values.len());
    let rows = client
        .query(
            &format!(
                "SELECT i.id, i.number, i.kind, i.issued_at, i.original_invoice_id, COALESCE(i.gross_all, '0') AS gross_all,
                     i.operator_code
                 FROM invoices i WHERE i.document_kind = 'CORRECTIVE' AND {conditions}
                 ORDER BY i.issue_date DESC, i.shop_id, i.id DESC LIMIT ${at_limit} OFFSET ${at_offset}"
            ),
            &refs(&values),
        )
        .await?;
    mapped(&rows, rows::reversal_line)
}

/// The warehouse transfer notes of the period, as the notes report reads them (a destination
/// unit named as its shop names it); a note whose point no longer parses is left out.
pub async fn wtn_notes<C: GenericClient>(client: &C, f: &Filter) -> Result<Vec<ReportNote>> {
    let rows = client
        .query(
            "SELECT w.fwtnic IS NOT NULL AS fiscalized, w.value_of_goods, w.destination_unit_id, u.name AS unit_name,
                 w.destination_point,
                 w.destination_city, w.destination_address
             FROM wtns w LEFT JOIN business_units u ON u.shop_id = w.shop_id AND u.id = w.destination_unit_id
             WHERE w.issue_date >= $1 AND w.issue_date <= $2 AND ($3::bigint IS NULL OR w.shop_id = $3)
             ORDER BY w.shop_id, w.id",
            &[&f.period.from.to_string(), &f.period.to.to_string(), &f.shop_id],
        )
        .await?;
    rows.iter().filter_map(|r| report_note(r).transpose()).collect()
}

/// A row of `wtns` as the notes report reads it; a note without a destination point is none.
fn report_note(r: &Row) -> Result<Option<ReportNote>> {
    let point = match r.col::<Option<&str>>("destination_point")? {
        None | Some("") => return Ok(None),
        Some(_) => r.spelled::<Point>("destination_point", "a transfer's point")?,
    };
    Ok(Some(ReportNote {
        fiscalized: r.col("fiscalized")?,
        value_of_goods: r.decimal_opt("value_of_goods")?.unwrap_or_default(),
        destination: Destination {
            unit_id: r.col("destination_unit_id")?,
            unit_name: r.col("unit_name")?,
            point,
            city: r.col::<Option<String>>("destination_city")?.unwrap_or_default(),
            address: r.col::<Option<String>>("destination_address")?.unwrap_or_default(),
        },
    }))
}
