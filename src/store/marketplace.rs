//! The delivery marketplace: add-on, token rights, venues, orders with their lines, the event
//! feed, webhook notifications taken, and the Idempotency-Key store.

use chrono::{DateTime, Utc};
use chrono_tz::Europe::Tirane;
use rusqlite::{Connection, OptionalExtension, Row, named_params};
use rust_decimal::Decimal;

use super::money::Money;
use super::{Error, Result};
use crate::domain::document::InvoiceType;
use crate::domain::marketplace::{
    BillingCompany, Customer, DeliveryType, EventSource, IncomingOrder, LineOption, OrderLine, OrderStatus,
    Preorder, PreorderStatus, Totals,
};

/// How long an Idempotency-Key is remembered (the spec's 24 hours).
pub const IDEMPOTENCY_KEPT: chrono::Duration = chrono::Duration::hours(24);

fn time_text(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

// ---------------------------------------------------------------------------------------------
// Add-on, rights, owner
// ---------------------------------------------------------------------------------------------

pub fn addon_enabled(conn: &Connection, company_id: i64) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT enabled FROM marketplace_addons WHERE company_id = :company",
            named_params! {":company": company_id},
            |r| r.get::<_, bool>("enabled"),
        )
        .optional()?
        .unwrap_or(false))
}

pub fn set_addon(conn: &Connection, company_id: i64, enabled: bool, now: DateTime<Utc>) -> Result<()> {
    conn.execute(
        "INSERT INTO marketplace_addons (company_id, enabled, updated_at) VALUES (:company, :enabled, :now)
         ON CONFLICT (company_id) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at",
        named_params! {":company": company_id, ":enabled": enabled, ":now": time_text(now)},
    )?;
    Ok(())
}

pub fn has_right(conn: &Connection, user_id: i64) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM marketplace_rights WHERE user_id = :user",
            named_params! {":user": user_id},
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

pub fn set_right(conn: &Connection, user_id: i64, granted: bool, now: DateTime<Utc>) -> Result<()> {
    if granted {
        conn.execute(
            "INSERT OR IGNORE INTO marketplace_rights (user_id, granted_at) VALUES (:user, :now)",
            named_params! {":user": user_id, ":now": time_text(now)},
        )?;
    } else {
        conn.execute(
            "DELETE FROM marketplace_rights WHERE user_id = :user",
            named_params! {":user": user_id},
        )?;
    }
    Ok(())
}

/// The company's users whose tokens carry the marketplace right.
pub fn users_with_right(conn: &Connection, company_id: i64) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare(
        "SELECT r.user_id FROM marketplace_rights r JOIN users u ON u.id = r.user_id
         WHERE u.company_id = :company ORDER BY r.user_id",
    )?;
    let ids = stmt.query_map(named_params! {":company": company_id}, |r| r.get("user_id"))?;
    Ok(ids.collect::<rusqlite::Result<_>>()?)
}

/// The companies with this tax id (normally one).
pub fn companies_by_nuis(conn: &Connection, nuis: &str) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare("SELECT id FROM companies WHERE nuis = :nuis COLLATE NOCASE ORDER BY id")?;
    let ids = stmt.query_map(named_params! {":nuis": nuis.trim()}, |r| r.get("id"))?;
    Ok(ids.collect::<rusqlite::Result<_>>()?)
}

/// The user with this e-mail.
pub fn user_by_email(conn: &Connection, email: &str) -> Result<Option<i64>> {
    Ok(conn
        .query_row("SELECT id FROM users WHERE email = :email", named_params! {":email": email.trim()}, |r| {
            r.get("id")
        })
        .optional()?)
}

/// The company a user belongs to.
pub fn company_of_user(conn: &Connection, user_id: i64) -> Result<Option<i64>> {
    Ok(conn
        .query_row("SELECT company_id FROM users WHERE id = :user", named_params! {":user": user_id}, |r| {
            r.get("company_id")
        })
        .optional()?)
}

// ---------------------------------------------------------------------------------------------
// Venues
// ---------------------------------------------------------------------------------------------

#[derive(Clone)]
pub struct Venue {
    pub id: i64,
    pub company_id: i64,
    pub wolt_venue_id: String,
    pub name: String,
    pub api_key_sealed: Vec<u8>,
    pub webhook_secret_sealed: Vec<u8>,
    pub active: bool,
    pub updated_at: String,
}

impl std::fmt::Debug for Venue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Venue").field("id", &self.id).field("wolt_venue_id", &self.wolt_venue_id).finish()
    }
}

const VENUE_COLUMNS: &str =
    "id, company_id, wolt_venue_id, name, api_key_sealed, webhook_secret_sealed, active, updated_at";

fn venue_from(r: &Row) -> rusqlite::Result<Venue> {
    Ok(Venue {
        id: r.get("id")?,
        company_id: r.get("company_id")?,
        wolt_venue_id: r.get("wolt_venue_id")?,
        name: r.get("name")?,
        api_key_sealed: r.get("api_key_sealed")?,
        webhook_secret_sealed: r.get("webhook_secret_sealed")?,
        active: r.get("active")?,
        updated_at: r.get("updated_at")?,
    })
}

pub fn active_venues(conn: &Connection, company_id: i64) -> Result<Vec<Venue>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {VENUE_COLUMNS} FROM marketplace_venues WHERE company_id = :company AND active = 1 ORDER BY id"
    ))?;
    let venues = stmt.query_map(named_params! {":company": company_id}, venue_from)?;
    Ok(venues.collect::<rusqlite::Result<_>>()?)
}

pub fn venue_by_wolt_id(conn: &Connection, wolt_venue_id: &str) -> Result<Option<Venue>> {
    Ok(conn
        .query_row(
            &format!("SELECT {VENUE_COLUMNS} FROM marketplace_venues WHERE wolt_venue_id = :wolt"),
            named_params! {":wolt": wolt_venue_id},
            venue_from,
        )
        .optional()?)
}

/// A venue with its sealed credentials, as `put_venue` stores it.
pub struct NewVenue<'a> {
    pub wolt_venue_id: &'a str,
    pub name: &'a str,
    pub api_key_sealed: &'a [u8],
    pub webhook_secret_sealed: &'a [u8],
}

/// Makes `v` the company's one active venue (updating it when the Wolt venue id is known),
/// deactivating the others. A Wolt venue id of another company is `Error::Duplicate`.
pub fn put_venue(conn: &Connection, company_id: i64, v: &NewVenue, now: DateTime<Utc>) -> Result<i64> {
    if let Some(existing) = venue_by_wolt_id(conn, v.wolt_venue_id)?
        && existing.company_id != company_id
    {
        return Err(Error::Duplicate("marketplace_venues.wolt_venue_id".into()));
    }
    conn.execute(
        "UPDATE marketplace_venues SET active = 0, updated_at = :now WHERE company_id = :company AND active = 1",
        named_params! {":company": company_id, ":now": time_text(now)},
    )?;
    conn.execute(
        "INSERT INTO marketplace_venues
            (company_id, wolt_venue_id, name, api_key_sealed, webhook_secret_sealed, active, created_at, updated_at)
         VALUES (:company, :wolt, :name, :key, :secret, 1, :now, :now)
         ON CONFLICT (wolt_venue_id) DO UPDATE SET name = excluded.name, api_key_sealed = excluded.api_key_sealed,
            webhook_secret_sealed = excluded.webhook_secret_sealed, active = 1, updated_at = excluded.updated_at",
        named_params! {
            ":company": company_id, ":wolt": v.wolt_venue_id, ":name": v.name, ":key": v.api_key_sealed,
            ":secret": v.webhook_secret_sealed, ":now": time_text(now),
        },
    )?;
    Ok(conn.query_row(
        "SELECT id FROM marketplace_venues WHERE wolt_venue_id = :wolt",
        named_params! {":wolt": v.wolt_venue_id},
        |r| r.get("id"),
    )?)
}

/// Leaves the company without an active venue.
pub fn deactivate_venues(conn: &Connection, company_id: i64, now: DateTime<Utc>) -> Result<usize> {
    Ok(conn.execute(
        "UPDATE marketplace_venues SET active = 0, updated_at = :now WHERE company_id = :company AND active = 1",
        named_params! {":company": company_id, ":now": time_text(now)},
    )?)
}

// ---------------------------------------------------------------------------------------------
// Orders
// ---------------------------------------------------------------------------------------------

/// The catalog product a line is linked to by its code.
#[derive(Debug, Clone, PartialEq)]
pub struct ProductRef {
    pub id: i64,
    pub code: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StoredLine {
    pub line: OrderLine,
    pub product: Option<ProductRef>,
}

/// The order's invoice, read from the invoices with its current FIC.
#[derive(Debug, Clone, PartialEq)]
pub struct InvoiceRef {
    pub id: i64,
    pub number: String,
    pub iic: String,
    pub fic: Option<String>,
    pub kind: InvoiceType,
    pub issued_at: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StoredOrder {
    pub id: i64,
    pub company_id: i64,
    pub venue_id: i64,
    pub wolt_order_id: String,
    pub order_number: Option<String>,
    pub delivery: DeliveryType,
    pub status: OrderStatus,
    pub preorder: Option<Preorder>,
    pub customer: Customer,
    pub company: Option<BillingCompany>,
    pub currency: String,
    pub totals: Totals,
    pub campaigns: Vec<String>,
    pub cash_payment: bool,
    pub preparation_time: Option<i64>,
    pub reject_reason: Option<String>,
    pub invoice: Option<InvoiceRef>,
    pub wolt_created_at: Option<String>,
    pub received_at: String,
    pub updated_at: String,
    pub lines: Vec<StoredLine>,
}

const ORDER_COLUMNS: &str =
    "o.id, o.company_id, o.venue_id, o.wolt_order_id, o.order_number, o.delivery_type,
    o.status, o.preorder_time, o.preorder_status, o.customer_name, o.customer_phone, o.customer_note,
    o.company_tax_id, o.company_name, o.company_address, o.company_city, o.currency,
    o.subtotal_before_discount, o.line_discount, o.campaign_discount, o.delivery_fee, o.total, o.campaigns,
    o.cash_payment, o.preparation_time, o.reject_reason, o.invoice_id, o.wolt_created_at, o.received_at,
    o.updated_at, i.number AS invoice_number, i.iic AS invoice_iic, i.fic AS invoice_fic,
    i.kind AS invoice_kind, i.issued_at AS invoice_issued_at";

const ORDER_FROM: &str = "marketplace_orders o LEFT JOIN invoices i ON i.id = o.invoice_id";

fn money(r: &Row, column: &str) -> rusqlite::Result<Decimal> {
    Ok(r.get::<_, Money>(column)?.0)
}

fn order_from(r: &Row) -> rusqlite::Result<StoredOrder> {
    let preorder_status: Option<String> = r.get("preorder_status")?;
    let company = BillingCompany {
        tax_id: r.get("company_tax_id")?,
        name: r.get("company_name")?,
        address: r.get("company_address")?,
        city: r.get("company_city")?,
    };
    let has_company = company.tax_id.is_some() || company.name.is_some();
    let campaigns: String = r.get("campaigns")?;
    let invoice_id: Option<i64> = r.get("invoice_id")?;
    let invoice_number: Option<String> = r.get("invoice_number")?;
    let invoice = match (invoice_id, invoice_number) {
        (Some(id), Some(number)) => Some(InvoiceRef {
            id,
            number,
            iic: r.get("invoice_iic")?,
            fic: r.get("invoice_fic")?,
            kind: r.get("invoice_kind")?,
            issued_at: r.get("invoice_issued_at")?,
        }),
        _ => None,
    };
    Ok(StoredOrder {
        id: r.get("id")?,
        company_id: r.get("company_id")?,
        venue_id: r.get("venue_id")?,
        wolt_order_id: r.get("wolt_order_id")?,
        order_number: r.get("order_number")?,
        delivery: r.get("delivery_type")?,
        status: r.get("status")?,
        preorder: preorder_status
            .map(|s| {
                Ok::<_, rusqlite::Error>(Preorder {
                    time: r.get("preorder_time")?,
                    status: PreorderStatus::confirmed_or_waiting(&s),
                })
            })
            .transpose()?,
        customer: Customer {
            name: r.get("customer_name")?,
            phone: r.get("customer_phone")?,
            note: r.get("customer_note")?,
        },
        company: has_company.then_some(company),
        currency: r.get("currency")?,
        totals: Totals {
            subtotal_before_discount: money(r, "subtotal_before_discount")?,
            line_discount: money(r, "line_discount")?,
            campaign_discount: money(r, "campaign_discount")?,
            delivery_fee: money(r, "delivery_fee")?,
            total: money(r, "total")?,
        },
        campaigns: serde_json::from_str(&campaigns).unwrap_or_default(),
        cash_payment: r.get("cash_payment")?,
        preparation_time: r.get("preparation_time")?,
        reject_reason: r.get("reject_reason")?,
        invoice,
        wolt_created_at: r.get("wolt_created_at")?,
        received_at: r.get("received_at")?,
        updated_at: r.get("updated_at")?,
        lines: Vec::new(),
    })
}

/// The catalog product with this code, with its VAT rate.
fn product_by_code(
    conn: &Connection,
    company_id: i64,
    code: &str,
) -> Result<Option<(ProductRef, Option<Decimal>)>> {
    Ok(conn
        .query_row(
            "SELECT id, code, name, vat_rate FROM products WHERE company_id = :company AND code = :code",
            named_params! {":company": company_id, ":code": code},
            |r| {
                let vat: Option<String> = r.get("vat_rate")?;
                Ok((
                    ProductRef { id: r.get("id")?, code: r.get("code")?, name: r.get("name")? },
                    vat.and_then(|v| v.parse::<Decimal>().ok()),
                ))
            },
        )
        .optional()?)
}

/// Stores a new order with its lines. A line whose code is a catalog product's is linked to
/// it and takes the product's VAT rate.
pub fn insert_order(
    conn: &Connection,
    company_id: i64,
    venue_id: i64,
    order: &IncomingOrder,
    now: DateTime<Utc>,
) -> Result<i64> {
    let t = order.totals();
    let company = order.company.clone().unwrap_or_default();
    let preorder = order.preorder.as_ref();
    conn.execute(
        "INSERT INTO marketplace_orders (company_id, venue_id, wolt_order_id, order_number, delivery_type, status,
            preorder_time, preorder_status, customer_name, customer_phone, customer_note, company_tax_id,
            company_name, company_address, company_city, currency, subtotal_before_discount, line_discount,
            campaign_discount, delivery_fee, total, campaigns, cash_payment, wolt_created_at, received_at,
            received_date, updated_at)
         VALUES (:company, :venue, :wolt, :number, :delivery, :status, :preorder_time, :preorder_status, :customer_name,
            :customer_phone, :customer_note, :tax_id, :company_name, :company_address, :company_city, :currency,
            :subtotal, :line_discount, :campaign_discount, :delivery_fee, :total, :campaigns, :cash, :wolt_created,
            :now, :date, :now)",
        named_params! {
            ":company": company_id, ":venue": venue_id, ":wolt": order.wolt_order_id, ":number": order.order_number,
            ":delivery": order.delivery, ":status": order.first_status(),
            ":preorder_time": preorder.and_then(|p| p.time.clone()),
            ":preorder_status": preorder.map(|p| p.status.as_str()),
            ":customer_name": order.customer.name, ":customer_phone": order.customer.phone,
            ":customer_note": order.customer.note, ":tax_id": company.tax_id, ":company_name": company.name,
            ":company_address": company.address, ":company_city": company.city, ":currency": order.currency,
            ":subtotal": Money(t.subtotal_before_discount), ":line_discount": Money(t.line_discount),
            ":campaign_discount": Money(t.campaign_discount), ":delivery_fee": Money(t.delivery_fee),
            ":total": Money(t.total),
            ":campaigns": serde_json::to_string(&order.campaign_labels).unwrap_or_else(|_| "[]".into()),
            ":cash": order.cash_payment, ":wolt_created": order.created_at, ":now": time_text(now),
            ":date": now.with_timezone(&Tirane).date_naive().to_string(),
        },
    )?;
    let order_id = conn.last_insert_rowid();
    for (position, line) in order.lines.iter().enumerate() {
        let linked = match &line.code {
            Some(code) => product_by_code(conn, company_id, code)?,
            None => None,
        };
        let vat_rate = linked.as_ref().and_then(|(_, vat)| *vat).or(line.vat_rate);
        let options: Vec<serde_json::Value> = line
            .options
            .iter()
            .map(|o| serde_json::json!({"name": o.name, "value": o.value, "price": o.price.normalize().to_string()}))
            .collect();
        conn.execute(
            "INSERT INTO marketplace_order_lines (order_id, position, name, code, quantity, unit_price, discount, total,
                vat_rate, product_id, options)
             VALUES (:order, :position, :name, :code, :quantity, :unit_price, :discount, :total, :vat, :product, :options)",
            named_params! {
                ":order": order_id, ":position": position as i64, ":name": line.name, ":code": line.code,
                ":quantity": Money(line.quantity), ":unit_price": Money(line.unit_price),
                ":discount": Money(line.discount), ":total": Money(line.total), ":vat": vat_rate.map(Money),
                ":product": linked.map(|(p, _)| p.id),
                ":options": serde_json::Value::Array(options).to_string(),
            },
        )?;
    }
    Ok(order_id)
}

fn line_from(r: &Row) -> rusqlite::Result<(i64, StoredLine)> {
    let options: String = r.get("options")?;
    let options: Vec<serde_json::Value> = serde_json::from_str(&options).unwrap_or_default();
    let options = options
        .iter()
        .map(|o| LineOption {
            name: o["name"].as_str().unwrap_or_default().to_string(),
            value: o["value"].as_str().map(str::to_string),
            price: o["price"].as_str().and_then(|p| p.parse().ok()).unwrap_or_default(),
        })
        .collect();
    let product_id: Option<i64> = r.get("product_id")?;
    let product_code: Option<String> = r.get("product_code")?;
    let product = match (product_id, product_code) {
        (Some(id), Some(code)) => Some(ProductRef { id, code, name: r.get("product_name")? }),
        _ => None,
    };
    let vat: Option<Money> = r.get("vat_rate")?;
    Ok((
        r.get("order_id")?,
        StoredLine {
            line: OrderLine {
                name: r.get("name")?,
                code: r.get("code")?,
                quantity: money(r, "quantity")?,
                unit_price: money(r, "unit_price")?,
                discount: money(r, "discount")?,
                total: money(r, "total")?,
                vat_rate: vat.map(|v| v.0),
                options,
            },
            product,
        },
    ))
}

/// Fills in the lines of `orders` with one query.
fn load_lines(conn: &Connection, orders: &mut [StoredOrder]) -> Result<()> {
    if orders.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = orders.iter().map(|o| o.id).collect();
    let mut stmt = conn.prepare(
        "SELECT l.order_id, l.name, l.code, l.quantity, l.unit_price, l.discount, l.total, l.vat_rate, l.options,
                l.product_id, p.code AS product_code, p.name AS product_name
         FROM marketplace_order_lines l LEFT JOIN products p ON p.id = l.product_id
         WHERE l.order_id IN (SELECT value FROM json_each(:ids)) ORDER BY l.order_id, l.position",
    )?;
    let rows =
        stmt.query_map(named_params! {":ids": serde_json::to_string(&ids).unwrap_or_default()}, line_from)?;
    for row in rows {
        let (order_id, line) = row?;
        if let Some(order) = orders.iter_mut().find(|o| o.id == order_id) {
            order.lines.push(line);
        }
    }
    Ok(())
}

/// One of the company's orders, with its lines and invoice.
pub fn order(conn: &Connection, company_id: i64, id: i64) -> Result<Option<StoredOrder>> {
    let found = conn
        .query_row(
            &format!("SELECT {ORDER_COLUMNS} FROM {ORDER_FROM} WHERE o.id = :id AND o.company_id = :company"),
            named_params! {":id": id, ":company": company_id},
            order_from,
        )
        .optional()?;
    match found {
        Some(order) => {
            let mut orders = [order];
            load_lines(conn, &mut orders)?;
            let [order] = orders;
            Ok(Some(order))
        }
        None => Ok(None),
    }
}

/// The id and status of the venue's order with this Wolt id.
pub fn order_by_wolt_id(
    conn: &Connection,
    venue_id: i64,
    wolt_order_id: &str,
) -> Result<Option<(i64, OrderStatus)>> {
    Ok(conn
        .query_row(
            "SELECT id, status FROM marketplace_orders WHERE venue_id = :venue AND wolt_order_id = :wolt",
            named_params! {":venue": venue_id, ":wolt": wolt_order_id},
            |r| Ok((r.get("id")?, r.get("status")?)),
        )
        .optional()?)
}

/// Which orders a list shows.
#[derive(Debug, Clone, Default)]
pub struct OrderFilter {
    pub venue_id: i64,
    /// Empty means every status.
    pub statuses: Vec<OrderStatus>,
    /// Local dates (Tirane) the order arrived on, inclusive.
    pub from_date: Option<String>,
    pub to_date: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

/// A page of the company's orders, newest first, and how many match in all.
pub fn orders(conn: &Connection, company_id: i64, f: &OrderFilter) -> Result<(Vec<StoredOrder>, i64)> {
    let statuses: Vec<&str> = f.statuses.iter().map(|s| s.as_str()).collect();
    let statuses = serde_json::to_string(&statuses).unwrap_or_else(|_| "[]".into());
    let filter = "o.company_id = :company AND o.venue_id = :venue
        AND (:no_status OR o.status IN (SELECT value FROM json_each(:statuses)))
        AND (:from IS NULL OR o.received_date >= :from) AND (:to IS NULL OR o.received_date <= :to)";
    let no_status = f.statuses.is_empty();
    let total: i64 = conn.query_row(
        &format!("SELECT COUNT(*) AS n FROM marketplace_orders o WHERE {filter}"),
        named_params! {":company": company_id, ":venue": f.venue_id, ":no_status": no_status,
        ":statuses": statuses, ":from": f.from_date, ":to": f.to_date},
        |r| r.get("n"),
    )?;
    let mut stmt = conn.prepare(&format!(
        "SELECT {ORDER_COLUMNS} FROM {ORDER_FROM} WHERE {filter} ORDER BY o.id DESC LIMIT :limit OFFSET :offset"
    ))?;
    let rows = stmt.query_map(
        named_params! {":company": company_id, ":venue": f.venue_id, ":no_status": no_status,
        ":statuses": statuses, ":from": f.from_date, ":to": f.to_date, ":limit": f.limit,
        ":offset": f.offset},
        order_from,
    )?;
    let mut orders: Vec<StoredOrder> = rows.collect::<rusqlite::Result<_>>()?;
    load_lines(conn, &mut orders)?;
    Ok((orders, total))
}

/// Moves an order to `status`; returns false when it already was there, or when it had left
/// the board meanwhile (a webhook cancelling it while a POS action was on its way to Wolt).
pub fn set_status(conn: &Connection, id: i64, status: OrderStatus, now: DateTime<Utc>) -> Result<bool> {
    let finals: Vec<&str> = OrderStatus::ALL.iter().filter(|s| s.is_final()).map(|s| s.as_str()).collect();
    Ok(conn.execute(
        "UPDATE marketplace_orders SET status = :status, updated_at = :now
         WHERE id = :id AND status <> :status AND status NOT IN (SELECT value FROM json_each(:finals))",
        named_params! {":id": id, ":status": status, ":now": time_text(now),
        ":finals": serde_json::to_string(&finals).unwrap_or_else(|_| "[]".into())},
    )? > 0)
}

/// What an accept or a reject adds to the order.
pub fn set_action_details(
    conn: &Connection,
    id: i64,
    preparation_time: Option<i64>,
    reject_reason: Option<&str>,
    preorder_confirmed: bool,
) -> Result<()> {
    conn.execute(
        "UPDATE marketplace_orders SET preparation_time = COALESCE(:prep, preparation_time),
            reject_reason = COALESCE(:reason, reject_reason),
            preorder_status = CASE WHEN :confirmed AND preorder_status IS NOT NULL THEN 'confirmed'
                                   ELSE preorder_status END
         WHERE id = :id",
        named_params! {":id": id, ":prep": preparation_time, ":reason": reject_reason, ":confirmed": preorder_confirmed},
    )?;
    Ok(())
}

pub fn set_preorder_status(conn: &Connection, id: i64, status: PreorderStatus) -> Result<()> {
    conn.execute(
        "UPDATE marketplace_orders SET preorder_status = :status WHERE id = :id AND preorder_status IS NOT NULL",
        named_params! {":id": id, ":status": status.as_str()},
    )?;
    Ok(())
}

pub fn set_invoice(conn: &Connection, id: i64, invoice_id: i64, now: DateTime<Utc>) -> Result<()> {
    conn.execute(
        "UPDATE marketplace_orders SET invoice_id = :invoice, updated_at = :now WHERE id = :id",
        named_params! {":id": id, ":invoice": invoice_id, ":now": time_text(now)},
    )?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub id: i64,
    pub order_id: i64,
    pub kind: String,
    pub status: OrderStatus,
    pub source: EventSource,
    pub created_at: String,
}

pub fn insert_event(
    conn: &Connection,
    company_id: i64,
    order_id: i64,
    kind: &str,
    status: OrderStatus,
    source: EventSource,
    now: DateTime<Utc>,
) -> Result<i64> {
    conn.execute(
        "INSERT INTO marketplace_events (company_id, order_id, kind, status, source, created_at)
         VALUES (:company, :order, :kind, :status, :source, :now)",
        named_params! {":company": company_id, ":order": order_id, ":kind": kind, ":status": status,
        ":source": source, ":now": time_text(now)},
    )?;
    Ok(conn.last_insert_rowid())
}

/// The events of the venue's orders after `after` (an event id), oldest first.
pub fn events_after(
    conn: &Connection,
    company_id: i64,
    venue_id: i64,
    after: i64,
    limit: i64,
) -> Result<Vec<Event>> {
    let mut stmt = conn.prepare(
        "SELECT e.id, e.order_id, e.kind, e.status, e.source, e.created_at
         FROM marketplace_events e JOIN marketplace_orders o ON o.id = e.order_id
         WHERE e.company_id = :company AND e.id > :after AND o.venue_id = :venue ORDER BY e.id LIMIT :limit",
    )?;
    let rows = stmt.query_map(
        named_params! {":company": company_id, ":venue": venue_id, ":after": after, ":limit": limit},
        |r| {
            Ok(Event {
                id: r.get("id")?,
                order_id: r.get("order_id")?,
                kind: r.get("kind")?,
                status: r.get("status")?,
                source: r.get("source")?,
                created_at: r.get("created_at")?,
            })
        },
    )?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

// ---------------------------------------------------------------------------------------------
// Webhook notifications
// ---------------------------------------------------------------------------------------------

/// Whether the venue's notification with this id was already taken.
pub fn webhook_seen(conn: &Connection, venue_id: i64, notification_id: &str) -> Result<Option<i64>> {
    Ok(conn
        .query_row(
            "SELECT order_id FROM marketplace_webhooks WHERE venue_id = :venue AND notification_id = :id",
            named_params! {":venue": venue_id, ":id": notification_id},
            |r| r.get("order_id"),
        )
        .optional()?)
}

pub fn remember_webhook(
    conn: &Connection,
    venue_id: i64,
    notification_id: &str,
    order_id: i64,
    now: DateTime<Utc>,
) -> Result<()> {
    conn.execute(
        "INSERT OR IGNORE INTO marketplace_webhooks (notification_id, venue_id, order_id, received_at)
         VALUES (:id, :venue, :order, :now)",
        named_params! {":id": notification_id, ":venue": venue_id, ":order": order_id, ":now": time_text(now)},
    )?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Idempotency keys
// ---------------------------------------------------------------------------------------------

/// What a write finds under its Idempotency-Key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// First use: the key is now in flight for this process.
    Fresh,
    /// An earlier try did not finish (Wolt did not answer, or Arka stopped): this try takes it
    /// over, and must not assume the earlier one had no effect.
    Resumed,
    /// Done before: the answer to give again.
    Replay { status: u16, body: String },
    /// Another call with this key is being worked on now.
    InProgress,
    /// The key was used for another request (another route, order or body).
    Mismatch,
}

/// Claims `key` of `user_id` for the request `fingerprint`, within the 24 hours a key is kept.
/// `run_id` names this process, so a key left in flight by a stopped one can be taken over.
pub fn claim(
    conn: &Connection,
    user_id: i64,
    key: &str,
    fingerprint: &str,
    run_id: &str,
    now: DateTime<Utc>,
) -> Result<Claim> {
    let cutoff = time_text(now - IDEMPOTENCY_KEPT);
    conn.execute(
        "DELETE FROM marketplace_idempotency WHERE created_at < :cutoff",
        named_params! {":cutoff": cutoff},
    )?;
    let found = conn
        .query_row(
            "SELECT fingerprint, state, run_id, status, body FROM marketplace_idempotency
             WHERE user_id = :user AND key = :key",
            named_params! {":user": user_id, ":key": key},
            |r| {
                Ok((
                    r.get::<_, String>("fingerprint")?,
                    r.get::<_, String>("state")?,
                    r.get::<_, Option<String>>("run_id")?,
                    r.get::<_, Option<u16>>("status")?,
                    r.get::<_, Option<String>>("body")?,
                ))
            },
        )
        .optional()?;
    let Some((stored_fingerprint, state, stored_run, status, body)) = found else {
        conn.execute(
            "INSERT INTO marketplace_idempotency (user_id, key, fingerprint, state, run_id, created_at)
             VALUES (:user, :key, :fingerprint, 'in_flight', :run, :now)",
            named_params! {":user": user_id, ":key": key, ":fingerprint": fingerprint, ":run": run_id,
            ":now": time_text(now)},
        )?;
        return Ok(Claim::Fresh);
    };
    if stored_fingerprint != fingerprint {
        return Ok(Claim::Mismatch);
    }
    match (state.as_str(), status, body) {
        ("done", Some(status), Some(body)) => Ok(Claim::Replay { status, body }),
        ("in_flight", _, _) if stored_run.as_deref() == Some(run_id) => Ok(Claim::InProgress),
        _ => {
            conn.execute(
                "UPDATE marketplace_idempotency SET state = 'in_flight', run_id = :run WHERE user_id = :user AND key = :key",
                named_params! {":user": user_id, ":key": key, ":run": run_id},
            )?;
            Ok(Claim::Resumed)
        }
    }
}

/// Keeps the answer of a finished request for replays.
pub fn finish(conn: &Connection, user_id: i64, key: &str, status: u16, body: &str) -> Result<()> {
    conn.execute(
        "UPDATE marketplace_idempotency SET state = 'done', run_id = NULL, status = :status, body = :body
         WHERE user_id = :user AND key = :key",
        named_params! {":user": user_id, ":key": key, ":status": status, ":body": body},
    )?;
    Ok(())
}

/// Frees the key for a retry: the request did not finish.
pub fn release(conn: &Connection, user_id: i64, key: &str) -> Result<()> {
    conn.execute(
        "UPDATE marketplace_idempotency SET state = 'retry', run_id = NULL WHERE user_id = :user AND key = :key",
        named_params! {":user": user_id, ":key": key},
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::marketplace::{Campaign, WoltStatus};
    use crate::store::Store;
    use crate::store::accounts::{self, NewCompany, NewUser};

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn store() -> (tempfile::TempDir, Store, i64, i64) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        let (company, user) = store
            .write_blocking(|tx| -> Result<_> {
                let company = accounts::insert_company(
                    tx,
                    &NewCompany {
                        nuis: "L41323036D",
                        name: "Byrektore",
                        address: None,
                        city: None,
                        administrator: None,
                        phone: None,
                        email: None,
                        issuer_in_vat: true,
                        last_noncash_einvoice_number: 0,
                        is_sandbox: false,
                        partner_id: None,
                    },
                )?;
                let user = accounts::insert_user(
                    tx,
                    &NewUser {
                        company_id: company,
                        business_unit_id: None,
                        name: "Ana",
                        email: "ana@byrek.al",
                        operator_code: None,
                        tcr_code: None,
                        role: crate::domain::role::Role::Owner,
                        token_hash: "h",
                        token_prefix: "arka_u_h",
                    },
                )?;
                Ok((company, user))
            })
            .unwrap();
        (dir, store, company, user)
    }

    fn incoming(id: &str) -> IncomingOrder {
        IncomingOrder {
            wolt_order_id: id.into(),
            wolt_venue_id: "v1".into(),
            order_number: Some("A1".into()),
            delivery: DeliveryType::Takeaway,
            wolt_status: Some(WoltStatus::Created),
            preorder: None,
            customer: Customer { name: Some("Ana".into()), phone: None, note: Some("pa qepë".into()) },
            company: None,
            currency: "ALL".into(),
            lines: vec![OrderLine::priced(
                "Byrek".into(),
                Some("B1".into()),
                d("2"),
                d("150"),
                d("30"),
                None,
                vec![LineOption { name: "Salcë".into(), value: Some("kos".into()), price: d("0") }],
            )],
            campaigns: vec![Campaign { label: "-20".into(), amount: d("20") }],
            campaign_labels: vec!["-20".into()],
            delivery_fee: Decimal::ZERO,
            cash_payment: false,
            created_at: None,
        }
    }

    fn venue(store: &Store, company: i64, wolt: &str) -> i64 {
        store
            .write_blocking(|tx| {
                put_venue(
                    tx,
                    company,
                    &NewVenue {
                        wolt_venue_id: wolt,
                        name: "Byrektore",
                        api_key_sealed: b"k",
                        webhook_secret_sealed: b"s",
                    },
                    Utc::now(),
                )
            })
            .unwrap()
    }

    #[test]
    fn an_order_round_trips_with_its_lines_and_linked_product() {
        let (_dir, store, company, _) = store();
        let venue = venue(&store, company, "v1");
        let id = store
            .write_blocking(|tx| {
                tx.execute(
                    "INSERT INTO products (company_id, code, name, description, last_price, vat_rate, currency, service,
                        unit_code, created_at, updated_at)
                     VALUES (:c, 'B1', 'Byrek me spinaq', '', '150', '6', 'ALL', 0, 'XPP', 'now', 'now')",
                    named_params! {":c": company},
                )?;
                insert_order(tx, company, venue, &incoming("w1"), Utc::now())
            })
            .unwrap();
        let found = store.read_blocking(|c| order(c, company, id)).unwrap().unwrap();
        assert_eq!(found.status, OrderStatus::Received);
        assert_eq!(found.totals.total, d("250"));
        assert_eq!(found.totals.discount(), d("50"));
        assert_eq!(found.campaigns, vec!["-20".to_string()]);
        assert_eq!(found.lines.len(), 1);
        let line = &found.lines[0];
        assert_eq!(line.product.as_ref().map(|p| p.name.as_str()), Some("Byrek me spinaq"));
        assert_eq!(line.line.vat_rate, Some(d("6")), "the catalog's VAT rate wins");
        assert_eq!(line.line.options[0].value.as_deref(), Some("kos"));
        assert_eq!(
            store.read_blocking(|c| order_by_wolt_id(c, venue, "w1")).unwrap(),
            Some((id, OrderStatus::Received))
        );
        assert!(
            store.read_blocking(|c| order(c, company + 1, id)).unwrap().is_none(),
            "another company sees nothing"
        );
        let duplicate =
            store.write_blocking(|tx| insert_order(tx, company, venue, &incoming("w1"), Utc::now()));
        assert!(matches!(duplicate, Err(Error::Duplicate(_))));
    }

    #[test]
    fn lists_filter_by_status_and_date() {
        let (_dir, store, company, _) = store();
        let venue = venue(&store, company, "v1");
        let now = Utc::now();
        store
            .write_blocking(|tx| -> Result<_> {
                for n in 0..3 {
                    let id = insert_order(tx, company, venue, &incoming(&format!("w{n}")), now)?;
                    if n == 0 {
                        set_status(tx, id, OrderStatus::Delivered, now)?;
                    }
                }
                Ok(())
            })
            .unwrap();
        let first = store.read_blocking(|c| order_by_wolt_id(c, venue, "w0")).unwrap().unwrap().0;
        let reopened = store.write_blocking(|tx| set_status(tx, first, OrderStatus::Accepted, now)).unwrap();
        assert!(!reopened, "a delivered order never comes back to the board");
        let page = |statuses: Vec<OrderStatus>, from: Option<&str>| {
            let f = OrderFilter {
                venue_id: venue,
                statuses,
                from_date: from.map(str::to_string),
                to_date: None,
                limit: 10,
                offset: 0,
            };
            store.read_blocking(|c| orders(c, company, &f)).unwrap()
        };
        assert_eq!(page(vec![], None).1, 3);
        assert_eq!(page(vec![OrderStatus::Received], None).1, 2);
        assert_eq!(page(vec![OrderStatus::Delivered, OrderStatus::Rejected], None).0[0].wolt_order_id, "w0");
        assert_eq!(page(vec![], Some("2999-01-01")).1, 0);
        let (first, _) = page(vec![], None);
        assert_eq!(first[0].wolt_order_id, "w2", "newest first");
        assert_eq!(first[0].lines.len(), 1);
    }

    #[test]
    fn one_active_venue_per_company_and_venues_belong_to_one_company() {
        let (_dir, store, company, _) = store();
        venue(&store, company, "v1");
        venue(&store, company, "v2");
        let active = store.read_blocking(|c| active_venues(c, company)).unwrap();
        assert_eq!(active.iter().map(|v| v.wolt_venue_id.as_str()).collect::<Vec<_>>(), ["v2"]);
        let other = store.write_blocking(|tx| {
            put_venue(
                tx,
                company + 1,
                &NewVenue {
                    wolt_venue_id: "v1",
                    name: "x",
                    api_key_sealed: b"k",
                    webhook_secret_sealed: b"s",
                },
                Utc::now(),
            )
        });
        assert!(matches!(other, Err(Error::Duplicate(_))));
        store.write_blocking(|tx| deactivate_venues(tx, company, Utc::now())).unwrap();
        assert!(store.read_blocking(|c| active_venues(c, company)).unwrap().is_empty());
    }

    #[test]
    fn idempotency_keys_replay_resume_and_expire() {
        let (_dir, store, _, user) = store();
        let now = Utc::now();
        let claim_at = |run: &str, fingerprint: &str, at: DateTime<Utc>| {
            store.write_blocking(|tx| claim(tx, user, "k1", fingerprint, run, at)).unwrap()
        };
        assert_eq!(claim_at("run-a", "f", now), Claim::Fresh);
        assert_eq!(claim_at("run-a", "f", now), Claim::InProgress);
        assert_eq!(claim_at("run-a", "other", now), Claim::Mismatch);
        // A restarted process finds the key its predecessor left in flight.
        assert_eq!(claim_at("run-b", "f", now), Claim::Resumed);
        store.write_blocking(|tx| release(tx, user, "k1")).unwrap();
        assert_eq!(claim_at("run-b", "f", now), Claim::Resumed);
        store.write_blocking(|tx| finish(tx, user, "k1", 201, "{\"status\":true}")).unwrap();
        assert_eq!(
            claim_at("run-b", "f", now),
            Claim::Replay { status: 201, body: "{\"status\":true}".into() }
        );
        // 24 hours later the key is free again.
        let later = now + IDEMPOTENCY_KEPT + chrono::Duration::seconds(1);
        assert_eq!(claim_at("run-b", "other", later), Claim::Fresh);
    }

    #[test]
    fn rights_addon_owners_and_events() {
        let (_dir, store, company, user) = store();
        let now = Utc::now();
        assert!(!store.read_blocking(|c| addon_enabled(c, company)).unwrap());
        store
            .write_blocking(|tx| {
                set_addon(tx, company, true, now)?;
                set_right(tx, user, true, now)?;
                set_right(tx, user, true, now)
            })
            .unwrap();
        assert!(store.read_blocking(|c| addon_enabled(c, company)).unwrap());
        assert!(store.read_blocking(|c| has_right(c, user)).unwrap());
        assert_eq!(store.read_blocking(|c| users_with_right(c, company)).unwrap(), vec![user]);
        assert_eq!(store.read_blocking(|c| crate::store::accounts::owners(c, company)).unwrap(), (1, 1));
        store.write_blocking(|tx| set_right(tx, user, false, now)).unwrap();
        assert!(!store.read_blocking(|c| has_right(c, user)).unwrap());

        let venue = venue(&store, company, "v1");
        let order_id =
            store.write_blocking(|tx| insert_order(tx, company, venue, &incoming("w1"), now)).unwrap();
        let first = store
            .write_blocking(|tx| {
                insert_event(
                    tx,
                    company,
                    order_id,
                    "order.received",
                    OrderStatus::Received,
                    EventSource::Wolt,
                    now,
                )
            })
            .unwrap();
        store
            .write_blocking(|tx| {
                insert_event(
                    tx,
                    company,
                    order_id,
                    "order.accepted",
                    OrderStatus::Accepted,
                    EventSource::Pos,
                    now,
                )
            })
            .unwrap();
        let after_first = store.read_blocking(|c| events_after(c, company, venue, first, 10)).unwrap();
        assert_eq!(after_first.len(), 1);
        assert_eq!(after_first[0].source, EventSource::Pos);
        assert!(store.read_blocking(|c| events_after(c, company + 1, venue, 0, 10)).unwrap().is_empty());
        assert!(store.read_blocking(|c| events_after(c, company, venue + 1, 0, 10)).unwrap().is_empty());
        assert_eq!(store.read_blocking(|c| webhook_seen(c, venue, "n1")).unwrap(), None);
        store.write_blocking(|tx| remember_webhook(tx, venue, "n1", order_id, now)).unwrap();
        assert_eq!(store.read_blocking(|c| webhook_seen(c, venue, "n1")).unwrap(), Some(order_id));
    }
}
