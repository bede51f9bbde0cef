//! Isolation: two companies on one server. Company B makes one of everything (sales, a
//! cancellation, a client, a category, a product with stock, a bank account, a unit, a user, a
//! WTN, an incoming e-invoice, an order of its Wolt venue); company A, with a venue of its own,
//! then tries every route with B's ids, codes and internalIds. Each answer must be 404 (or the
//! 400/422 with which a body's reference is refused), A's lists must hold nothing of B's, and B's
//! records must read the same afterwards.
//!
//! Then the cashier: a cashier of A's first till tries the owner's routes (users, tokens, the
//! certificate, units, devices, settings) and the documents of A's second till. Each answer must
//! be 403, the cashier's list must not show the other till's sale, and what A's owner reads must
//! be the same afterwards.

use std::time::Duration;

use serde_json::{Value, json};

use super::client::{Answer, Client, Sent};
use super::procs::{Sim, Stage, WOLT_VENUE, Wolt, panics_in};
use super::shop::{Shop, cash_sale, onboard, transfer_note};
use super::table::Row;
use super::{Error, Plan};

/// One attempt of A on something of B's.
struct Probe {
    what: String,
    method: &'static str,
    path: String,
    body: Option<Value>,
    /// Sent with A's cashier's token (sales need a TCR) rather than the owner's.
    cashier: bool,
    /// Sent with this `Idempotency-Key` (the marketplace's writes need one).
    idempotency_key: Option<&'static str>,
    allowed: &'static [u16],
}

const NOT_FOUND: &[u16] = &[404];
/// A reference inside a body is refused as invalid data or as not found.
const REFUSED_REFERENCE: &[u16] = &[400, 404, 422];
/// The spec's soft refusal of a user in a unit not found: 200 with `status: false`.
const SOFT_REFUSAL: &[u16] = &[200, 404, 422];

fn probe(
    what: &str,
    method: &'static str,
    path: String,
    body: Option<Value>,
    allowed: &'static [u16],
) -> Probe {
    Probe { what: what.to_string(), method, path, body, cashier: false, idempotency_key: None, allowed }
}

/// A call, waiting out the per-token intervals (429) and the 10 s list interval (200 status false).
fn patient(
    client: &Client,
    method: &str,
    path: &str,
    token: &str,
    body: Option<&Value>,
) -> Result<Answer, Error> {
    let sent = body.map_or(Sent::Nothing, Sent::Json);
    let mut answer = client.must(method, path, Some(token), sent)?;
    for _ in 0..40 {
        let interval = answer.status == 429
            || (answer.status == 200 && answer.body["status"] == json!(false) && method == "GET");
        if !interval {
            break;
        }
        std::thread::sleep(Duration::from_millis(300));
        answer = client.must(method, path, Some(token), sent)?;
    }
    Ok(answer)
}

/// What B owns, by id or code.
struct Owned {
    sale: i64,
    sale_iic: String,
    corrective: i64,
    client: i64,
    category: i64,
    product: i64,
    bank_account: i64,
    branch: i64,
    wtn: i64,
    eic: String,
    /// Arka's id of an order of B's Wolt venue.
    order: String,
}

fn created(answer: Answer, what: &str, pointer: &str) -> Result<i64, Error> {
    if !(200..300).contains(&answer.status) {
        return Err(Error::Unexpected(format!("{what}: HTTP {}: {}", answer.status, answer.body)));
    }
    answer.int_at(pointer)
}

/// The delivery marketplace's routes.
const MARKET: &str = "/api/partner/v1/marketplace";

/// A's and B's marketplace add-on, each with a Wolt venue of its own, and one order of B's
/// venue; Arka's id of that order.
fn marketplace_order(
    client: &Client,
    wolt: &Wolt,
    server: &str,
    a: &Shop,
    b: &Shop,
) -> Result<String, Error> {
    let (venue_b, key_b, secret_b) = WOLT_VENUE;
    let (venue_a, key_a, secret_a) = ("venue-a", "api-key-a", "webhook-secret-a");
    let venue = json!({"venue_id": venue_a, "api_key": key_a, "webhook_secret": secret_a});
    wolt.control("POST", "/control/venues", &venue, 200)?;
    let target = json!({"url": format!("{server}{MARKET}/webhooks/wolt")});
    wolt.control("PUT", "/control/webhook-target", &target, 200)?;
    for (shop, venue, key, secret) in [(a, venue_a, key_a, secret_a), (b, venue_b, key_b, secret_b)] {
        let settings = json!({"enabled": true, "venue": {"wolt_venue_id": venue, "name": format!("Venue {}", shop.nuis),
                              "api_key": key, "webhook_secret": secret}});
        client
            .must("PUT", &format!("{MARKET}/settings"), Some(&shop.token), Sent::Json(&settings))?
            .expect(200, "the marketplace settings")?;
        let right = json!({"marketplace": true});
        client
            .must("PUT", &format!("{MARKET}/rights/{}", shop.user_id), Some(&shop.token), Sent::Json(&right))?
            .expect(200, "the marketplace right")?;
    }
    wolt.control("POST", "/control/orders", &json!({"type": "takeaway", "venue_id": venue_b}), 201)?;
    let board = client.get(&format!("{MARKET}/orders"), Some(&b.token))?.expect(200, "B's order board")?;
    let order = match &board.body["data"]["items"][0]["id"] {
        Value::String(id) => id.clone(),
        Value::Number(id) => id.to_string(),
        _ => return Err(Error::Unexpected(format!("no order on B's board: {}", board.body))),
    };
    // B reads it, so A's 404 is the company's wall and not a wrong id.
    client.get(&format!("{MARKET}/orders/{order}"), Some(&b.token))?.expect(200, "B's order")?;
    Ok(order)
}

fn make_everything(client: &Client, sim: &Sim, b: &Shop, order: String) -> Result<Owned, Error> {
    let till = b.tills.first().ok_or_else(|| Error::Setup("no till".into()))?;
    let sale = client.post("/api/v1/invoice/cash", Some(&till.token), &cash_sale("b-sale-1", 150))?;
    let sale_iic = sale.text_at("/data/invoice/iic")?;
    let sale = created(sale, "B's sale", "/data/invoice/id")?;
    created(
        client.post("/api/v1/invoice/cash", Some(&till.token), &cash_sale("b-sale-2", 90))?,
        "B's second sale",
        "/data/invoice/id",
    )?;
    let corrective = created(
        client.post("/api/v1/invoice/cancel-by-internal-id/b-sale-2", Some(&till.token), &json!({}))?,
        "B's cancellation",
        "/data/invoice/id",
    )?;
    let client_body = json!({"type": "company", "company": {"name": "Klienti i B", "id": {"type": "nuis", "value": "K81234001A"}},
                             "address": {"line": "Rruga 1", "city": "Tiranë", "country": "ALB"}});
    let b_client = created(
        patient(client, "POST", "/api/v2/clients", &b.token, Some(&client_body))?,
        "B's client",
        "/data/client/id",
    )?;
    let category = created(
        patient(
            client,
            "POST",
            "/api/v1/product/categories",
            &b.token,
            Some(&json!({"name": "Pije B", "color": "#aa0000"})),
        )?,
        "B's category",
        "/data/category/id",
    )?;
    let product_body = json!({"name": "Ujë B", "last_price": 50, "vat_rate": "20", "service": false, "id_category": category});
    let product = created(
        patient(client, "POST", "/api/v1/products", &b.token, Some(&product_body))?,
        "B's product",
        "/data/product/id",
    )?;
    patient(
        client,
        "POST",
        &format!("/api/v1/stock/products/{product}/adjustments"),
        &b.token,
        Some(&json!({"kind": "delivery", "quantity": 10})),
    )?
    .expect(201, "B's stock")?;
    let bank = json!({"name": "Llogaria B", "holder": "B sh.p.k.", "iban": "AL47212110090000000235698741",
                      "swift": "BKTRALTR", "currency": "ALL"});
    let bank_account = created(
        client.post("/api/v1/on-boarding/bank-account", Some(&b.token), &bank)?,
        "B's bank account",
        "/data/bankAccount/id",
    )
    .or_else(|_| {
        created(client.post("/api/v1/bank-accounts", Some(&b.token), &bank)?, "B's bank account", "/data/id")
    })?;
    let branch_body = json!({"name": "Durrës B", "businessUnitCode": "cd456ef789", "administrator": "B",
                             "address": "Lagjja 1", "city": "Durrës"});
    let branch = created(
        client.post("/api/v1/on-boarding/branch", Some(&b.token), &branch_body)?,
        "B's unit",
        "/data/branch/id",
    )?;
    let wtn = created(
        patient(client, "POST", "/api/v2/invoice/wtn", &till.token, Some(&transfer_note("b-wtn-1")))?,
        "B's WTN",
        "/data/invoice/id",
    )?;
    let seeded = sim.seed_einvoice(
        &json!({"buyer_nuis": b.nuis, "seller_nuis": "K81234001A", "seller_name": "Furnitori",
                                           "doc_number": "7/2026", "amount": 1200}),
    )?;
    let eic = seeded["eic"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| Error::Unexpected(format!("no eic: {seeded}")))?;
    patient(client, "GET", "/api/v1/purchase-invoices", &b.token, None)?;
    Ok(Owned {
        sale,
        sale_iic,
        corrective,
        client: b_client,
        category,
        product,
        bank_account,
        branch,
        wtn,
        eic,
        order,
    })
}

/// Everything A tries against B's records, with the answers that keep them B's.
fn probes(b: &Shop, owned: &Owned) -> Vec<Probe> {
    let mut all = document_probes(owned);
    all.extend(reference_probes(owned));
    all.extend(catalog_probes(owned));
    all.extend(account_probes(b, owned));
    all.extend(stock_cash_and_marketplace_probes(b, owned));
    all
}

/// B's documents read, printed and cancelled by id or internalId, in both API versions.
fn document_probes(owned: &Owned) -> Vec<Probe> {
    let mut all = Vec::new();
    for v in [1, 2] {
        all.push(probe(
            "invoice details",
            "GET",
            format!("/api/v{v}/invoice/{}/details", owned.sale),
            None,
            NOT_FOUND,
        ));
        all.push(probe(
            "cancellation details",
            "GET",
            format!("/api/v{v}/invoice/{}/details", owned.corrective),
            None,
            NOT_FOUND,
        ));
        all.push(probe(
            "details by internalId",
            "POST",
            format!("/api/v{v}/invoice/details/b-sale-1"),
            None,
            NOT_FOUND,
        ));
        all.push(probe("print", "GET", format!("/api/v{v}/invoice/print/{}", owned.sale), None, NOT_FOUND));
        all.push(Probe {
            cashier: true,
            ..probe(
                "cancel by id",
                "POST",
                format!("/api/v{v}/invoice/cancel/{}", owned.sale),
                Some(json!({})),
                NOT_FOUND,
            )
        });
        all.push(Probe {
            cashier: true,
            ..probe(
                "cancel by internalId",
                "POST",
                format!("/api/v{v}/invoice/cancel-by-internal-id/b-sale-1"),
                Some(json!({})),
                NOT_FOUND,
            )
        });
        all.push(probe(
            "WTN details",
            "GET",
            format!("/api/v{v}/invoice/wtn/details/b-wtn-1"),
            None,
            NOT_FOUND,
        ));
        all.push(probe(
            "WTN print",
            "GET",
            format!("/api/v{v}/invoice/wtn/print/{}", owned.wtn),
            None,
            NOT_FOUND,
        ));
        all.push(probe(
            "WTN PDF",
            "GET",
            format!("/api/v{v}/invoice/wtn/pdf/{}", owned.wtn),
            None,
            NOT_FOUND,
        ));
        all.push(probe(
            "e-invoice print by EIC",
            "GET",
            format!("/api/v{v}/invoice/print-eic/{}", owned.eic),
            None,
            NOT_FOUND,
        ));
    }
    all
}

/// A's documents that name B's client, bank account or IIC.
fn reference_probes(owned: &Owned) -> Vec<Probe> {
    let mut all = Vec::new();
    let mut sale = cash_sale("a-iso-client", 100);
    sale["client"] = json!({"internal_id": owned.client});
    all.push(Probe {
        cashier: true,
        ..probe("sale to B's client", "POST", "/api/v1/invoice/cash".into(), Some(sale), REFUSED_REFERENCE)
    });
    let mut noncash = cash_sale("a-iso-bank", 100);
    noncash["payment_method"] = json!("ACCOUNT");
    noncash["bank_account_id"] = json!(owned.bank_account);
    noncash["client"] = json!({"name": "Ushqimore", "id": {"type": "NUIS", "id": "K81234001A"}, "address": "Rr 1", "city": "Tiranë"});
    all.push(Probe {
        cashier: true,
        ..probe(
            "non-cash into B's bank account",
            "POST",
            "/api/v1/invoice/noncash".into(),
            Some(noncash),
            REFUSED_REFERENCE,
        )
    });
    let summary = json!({"internalId": "a-iso-summary", "order_invoices": [owned.sale_iic], "payment_method": "BANKNOTE"});
    all.push(Probe {
        cashier: true,
        ..probe(
            "summary of B's IIC",
            "POST",
            "/api/v1/invoice/summary".into(),
            Some(summary),
            REFUSED_REFERENCE,
        )
    });
    all
}

/// B's clients, products, categories and bank account.
fn catalog_probes(owned: &Owned) -> Vec<Probe> {
    let mut all = Vec::new();
    all.push(probe(
        "client details v1",
        "GET",
        format!("/api/v1/clients/{}/details", owned.client),
        None,
        NOT_FOUND,
    ));
    all.push(probe(
        "client update v1",
        "PUT",
        format!("/api/v1/clients/{}", owned.client),
        Some(json!({"name": "A was here", "client_type": "COMPANY"})),
        NOT_FOUND,
    ));
    all.push(probe("client v2", "GET", format!("/api/v2/clients/{}", owned.client), None, NOT_FOUND));
    all.push(probe(
        "client update v2",
        "PATCH",
        format!("/api/v2/clients/{}", owned.client),
        Some(json!({"type": "company", "company": {"name": "A was here"}})),
        NOT_FOUND,
    ));
    all.push(probe(
        "product update",
        "PUT",
        format!("/api/v1/products/{}", owned.product),
        Some(json!({"name": "A", "last_price": 1, "vat_rate": "20"})),
        NOT_FOUND,
    ));
    all.push(probe(
        "product details",
        "GET",
        format!("/api/v1/products/{}/details", owned.product),
        None,
        NOT_FOUND,
    ));
    all.push(probe(
        "category update",
        "PUT",
        format!("/api/v1/product/categories/{}", owned.category),
        Some(json!({"name": "A"})),
        NOT_FOUND,
    ));
    all.push(probe(
        "product in B's category",
        "POST",
        "/api/v1/products".into(),
        Some(json!({"name": "A", "last_price": 1, "vat_rate": "20", "id_category": owned.category})),
        REFUSED_REFERENCE,
    ));
    all.push(probe(
        "bank account",
        "GET",
        format!("/api/v1/bank-accounts/{}", owned.bank_account),
        None,
        NOT_FOUND,
    ));
    all
}

/// B's unit, users and TCR code.
fn account_probes(b: &Shop, owned: &Owned) -> Vec<Probe> {
    let b_till = b.tills.first().map(|t| (t.tcr_code.clone(), t.user_id)).unwrap_or_default();
    let mut all = Vec::new();
    all.push(probe("unit update", "POST", format!("/api/v1/on-boarding/branch/{}", owned.branch), Some(json!({"name": "A", "businessUnitCode": "zz999zz999", "administrator": "A", "address": "Rruga 2", "city": "Tiranë"})), NOT_FOUND));
    all.push(probe("user in B's unit", "POST", "/api/v1/on-boarding/user".into(), Some(json!({"name": "A", "email": "a.iso@shop.al", "branchId": owned.branch, "operatorCode": "op777op777"})), SOFT_REFUSAL));
    all.push(probe("TCR in B's unit", "POST", "/api/v1/on-boarding/fiscal-device".into(), Some(json!({"branchId": owned.branch, "name": "A", "fromDate": chrono::Utc::now().date_naive().to_string()})), REFUSED_REFERENCE));
    all.push(probe(
        "B's user",
        "POST",
        format!("/api/v1/on-boarding/user/{}", b.user_id),
        Some(json!({"operatorCode": "op888op888"})),
        NOT_FOUND,
    ));
    all.push(probe(
        "B's cashier",
        "POST",
        format!("/api/v1/on-boarding/user/{}", b_till.1),
        Some(json!({"operatorCode": "op888op888"})),
        NOT_FOUND,
    ));
    all.push(probe("user on B's TCR code", "POST", "/api/v1/on-boarding/user".into(), Some(json!({"name": "A", "email": "a.tcr@shop.al", "operatorCode": "op666op666", "fiscalTcrCode": b_till.0})), SOFT_REFUSAL));
    all
}

/// B's stock, a withdrawal for B's client, B's purchase invoice and marketplace.
fn stock_cash_and_marketplace_probes(b: &Shop, owned: &Owned) -> Vec<Probe> {
    let mut all = Vec::new();
    all.push(probe(
        "stock of B's product",
        "GET",
        format!("/api/v1/stock/products/{}", owned.product),
        None,
        NOT_FOUND,
    ));
    all.push(probe(
        "stock adjustment of B's product",
        "POST",
        format!("/api/v1/stock/products/{}/adjustments", owned.product),
        Some(json!({"kind": "count", "quantity": 0})),
        NOT_FOUND,
    ));
    all.push(Probe {
        cashier: true,
        ..probe(
            "withdrawal for B's client",
            "POST",
            "/api/v1/cash-register/withdraw".into(),
            Some(json!({"amount": 1, "id_client": owned.client})),
            REFUSED_REFERENCE,
        )
    });
    all.push(probe(
        "purchase invoice status",
        "POST",
        format!("/api/v1/purchase-invoices/{}/status", owned.eic),
        Some(json!({"status": "ACCEPTED"})),
        NOT_FOUND,
    ));
    all.push(probe("marketplace order", "GET", format!("{MARKET}/orders/{}", owned.order), None, NOT_FOUND));
    all.push(Probe {
        idempotency_key: Some("isolation-accept-1"),
        ..probe(
            "marketplace order accepted",
            "POST",
            format!("{MARKET}/orders/{}/accept", owned.order),
            Some(json!({"preparation_time": 15})),
            NOT_FOUND,
        )
    });
    all.push(probe(
        "marketplace right of B's user",
        "PUT",
        format!("/api/partner/v1/marketplace/rights/{}", b.user_id),
        Some(json!({"marketplace": true})),
        &[403, 404],
    ));
    all
}

/// What B reads of its own records, to compare before and after.
fn b_view(client: &Client, b: &Shop, owned: &Owned) -> Result<Vec<Value>, Error> {
    let paths = [
        format!("/api/v1/invoice/{}/details", owned.sale),
        format!("/api/v1/invoice/{}/details", owned.corrective),
        format!("/api/v2/clients/{}", owned.client),
        format!("/api/v1/products/{}/details", owned.product),
        format!("/api/v1/bank-accounts/{}", owned.bank_account),
        "/api/v2/invoice/wtn/details/b-wtn-1".to_string(),
        format!("/api/v1/stock/products/{}", owned.product),
        "/api/v1/account".to_string(),
        format!("{MARKET}/orders/{}", owned.order),
    ];
    paths.iter().map(|p| Ok(patient(client, "GET", p, &b.token, None)?.body)).collect()
}

/// Names B gave its records, as A's lists must never show them.
const B_NAMES: [&str; 6] = ["b-sale", "Klienti i B", "Ujë B", "Pije B", "Llogaria B", "b-wtn"];

/// A's lists that show any of B's records.
fn in_lists(client: &Client, a: &Shop) -> Result<Vec<String>, Error> {
    let lists = [
        "/api/v1/invoice?limit=1000",
        "/api/v1/clients?limit=100",
        "/api/v1/products",
        "/api/v1/product/categories",
        "/api/v1/bank-accounts?limit=100",
        "/api/v1/invoice/wtn?limit=1000",
    ];
    let mut found = Vec::new();
    for path in lists {
        let text = patient(client, "GET", path, &a.token, None)?.body.to_string();
        if B_NAMES.iter().any(|name| text.contains(name)) {
            found.push(format!("{path} shows B's records"));
        }
    }
    Ok(found)
}

/// One attempt of a cashier beyond their role or their till: (what, method, path, body).
type Beyond = (&'static str, &'static str, String, Value);

fn beyond_the_cashier(a: &Shop, other_sale: i64) -> Vec<Beyond> {
    let today = chrono::Utc::now().date_naive().to_string();
    let owner = a.user_id;
    vec![
        ("the user list", "GET", "/api/v1/users".into(), Value::Null),
        ("the owner's token rotated", "POST", format!("/api/v1/users/{owner}/token"), json!({})),
        ("the owner's token revoked", "DELETE", format!("/api/v1/users/{owner}/token"), Value::Null),
        (
            "a manager made",
            "POST",
            "/api/v1/on-boarding/user".into(),
            json!({"name": "M", "email": "m.iso@shop.al", "branchId": a.branch_id, "operatorCode": "op555op555", "role": "manager"}),
        ),
        (
            "a cashier made",
            "POST",
            "/api/v1/on-boarding/user".into(),
            json!({"name": "C", "email": "c.iso@shop.al", "branchId": a.branch_id, "operatorCode": "op556op556"}),
        ),
        (
            "the owner demoted",
            "POST",
            format!("/api/v1/on-boarding/user/{owner}"),
            json!({"role": "cashier"}),
        ),
        (
            "a certificate",
            "POST",
            "/api/v1/on-boarding/certificate".into(),
            json!({"certificate_file": "AAAA", "password": "x"}),
        ),
        (
            "a unit",
            "POST",
            "/api/v1/on-boarding/branch".into(),
            json!({"name": "X", "businessUnitCode": "xx123xx123", "address": "Rruga 3"}),
        ),
        (
            "a TCR",
            "POST",
            "/api/v1/on-boarding/fiscal-device".into(),
            json!({"branchId": a.branch_id, "name": "X", "fromDate": today}),
        ),
        (
            "a bank account",
            "POST",
            "/api/v1/on-boarding/bank-account".into(),
            json!({"name": "X", "holder": "X", "iban": "AL47212110090000000235698741", "currency": "ALL"}),
        ),
        ("a currency switched off", "PUT", "/api/v1/currencies/EUR".into(), json!({"enabled": false})),
        ("the marketplace settings", "PUT", format!("{MARKET}/settings"), json!({"enabled": false})),
        ("a marketplace right", "PUT", format!("{MARKET}/rights/{owner}"), json!({"marketplace": false})),
        ("the print settings", "PUT", "/api/v1/print-settings".into(), json!({"unit_name": true})),
        ("the stock settings", "PUT", "/api/v1/stock/settings".into(), json!({"enforce": true})),
        (
            "a product",
            "POST",
            "/api/v1/products".into(),
            json!({"name": "X", "last_price": 1, "vat_rate": "20"}),
        ),
        (
            "the sales summary",
            "GET",
            format!("/api/v1/reports/sales-summary?from={today}&to={today}"),
            Value::Null,
        ),
        ("the CIS queue of every till", "GET", "/api/v1/owner/queue".into(), Value::Null),
        ("another till's sale", "GET", format!("/api/v1/invoice/{other_sale}/details"), Value::Null),
        ("another till's receipt", "GET", format!("/api/v1/invoice/print/{other_sale}"), Value::Null),
        ("another till's sale by internalId", "POST", "/api/v2/invoice/details/a-till-2".into(), json!({})),
        ("another till's sale cancelled", "POST", format!("/api/v1/invoice/cancel/{other_sale}"), json!({})),
        (
            "another till's X report",
            "GET",
            format!(
                "/api/v1/reports/cash-register/closing?from={today}&to={today}&tcr={}",
                a.tills.get(1).map_or("", |t| t.tcr_code.as_str())
            ),
            Value::Null,
        ),
    ]
}

/// What A's owner reads of what the cashier tried to reach.
fn owner_view(client: &Client, a: &Shop, other_sale: i64) -> Result<Vec<Value>, Error> {
    let paths = [
        "/api/v1/account".to_string(),
        "/api/v1/users".to_string(),
        format!("/api/v1/invoice/{other_sale}/details"),
        "/api/v1/currencies".to_string(),
        "/api/v1/stock/settings".to_string(),
        "/api/v1/print-settings".to_string(),
        format!("{MARKET}/settings"),
    ];
    let mut views = Vec::new();
    for path in paths {
        let mut body = patient(client, "GET", &path, &a.token, None)?.body;
        // The users' last uses move with every call, the cashier's own included.
        if let Some(items) = body.pointer_mut("/data/items").and_then(Value::as_array_mut) {
            for item in items {
                if let Some(user) = item.as_object_mut() {
                    user.remove("lastUse");
                }
            }
        }
        views.push(body);
    }
    Ok(views)
}

/// A cashier of A's first till against the owner's routes and A's second till.
fn cashier_beyond(client: &Client, a: &Shop) -> Result<Row, Error> {
    let (Some(mine), Some(other)) = (a.tills.first(), a.tills.get(1)) else {
        return Err(Error::Setup("company A needs two tills".into()));
    };
    let other_sale = created(
        client.post("/api/v1/invoice/cash", Some(&other.token), &cash_sale("a-till-2", 80))?,
        "A's second till's sale",
        "/data/invoice/id",
    )?;
    let own_sale = created(
        client.post("/api/v1/invoice/cash", Some(&mine.token), &cash_sale("a-till-1", 70))?,
        "A's first till's sale",
        "/data/invoice/id",
    )?;
    let before = owner_view(client, a, other_sale)?;
    let attempts = beyond_the_cashier(a, other_sale);
    let (mut reached, mut server_errors, mut findings) = (0, 0, Vec::new());
    for (what, method, path, body) in &attempts {
        let body = (!body.is_null()).then_some(body);
        let answer = patient(client, method, path, &mine.token, body)?;
        if answer.status != 403 {
            if answer.status >= 500 {
                server_errors += 1;
            } else {
                reached += 1;
            }
            findings
                .push(format!("cashier: {what} ({method} {path}): HTTP {} {}", answer.status, answer.body));
        }
    }
    let list = patient(client, "GET", "/api/v1/invoice?limit=100", &mine.token, None)?.body;
    let listed: Vec<i64> = list["data"]["items"]
        .as_array()
        .map(|items| items.iter().filter_map(|i| i["id"].as_i64()).collect())
        .unwrap_or_default();
    if listed != [own_sale] {
        reached += 1;
        findings.push(format!("the cashier's list is not their own sale ({own_sale}) alone: {list}"));
    }
    let after = owner_view(client, a, other_sale)?;
    for (n, (was, is)) in before.iter().zip(&after).enumerate() {
        if was != is {
            reached += 1;
            findings.push(format!("what A's owner reads changed ({n}): {was} -> {is}"));
        }
    }
    let mut row = Row::new(
        "isolation (cashier)",
        format!("{} attempts of a cashier beyond their role or their till, 1 list", attempts.len()),
        "users, tokens, roles, certificate, unit, TCR, bank account, settings, catalog, reports, another till's sale, receipt, cancellation and X report".to_string(),
    );
    row.leaks = reached;
    row.server_errors = server_errors;
    row.findings = findings;
    Ok(row)
}

pub fn run(plan: &Plan, progress: &dyn Fn(&str)) -> Result<Vec<Row>, Error> {
    progress("isolation: company A tries company B's ids, codes and internalIds");
    let wolt = Wolt::start(&plan.arka)?;
    let stage = Stage::start(&plan.arka, "isolation", &[wolt.flag()])?;
    let (sim, server, partner) = (&stage.sim, &stage.server, stage.partner.as_str());
    let client = Client::new(&server.base, Duration::from_secs(30));
    let a = onboard(&client, partner, "L41323036D", 2)?;
    let b = onboard(&client, partner, "K12345678L", 1)?;
    let order = marketplace_order(&client, &wolt, &server.base, &a, &b)?;
    let owned = make_everything(&client, sim, &b, order)?;
    let before = b_view(&client, &b, &owned)?;

    let a_cashier = a.tills.first().map(|t| t.token.clone()).ok_or_else(|| Error::Setup("no till".into()))?;
    let mut findings = Vec::new();
    let (mut reached, mut server_errors) = (0, 0);
    let probes = probes(&b, &owned);
    for p in &probes {
        let token = if p.cashier { &a_cashier } else { &a.token };
        let answer = match p.idempotency_key {
            Some(key) => {
                let sent = p.body.as_ref().map_or(Sent::Nothing, Sent::Json);
                client
                    .call_with(p.method, &p.path, Some(token), &[("Idempotency-Key", key)], sent)
                    .map_err(|f| Error::Unexpected(format!("{} {}: no answer: {f:?}", p.method, p.path)))?
            }
            None => patient(&client, p.method, &p.path, token, p.body.as_ref())?,
        };
        let succeeded = answer.body["status"] == json!(true);
        if succeeded || !p.allowed.contains(&answer.status) {
            if answer.status >= 500 {
                server_errors += 1;
            } else {
                reached += 1;
            }
            findings.push(format!(
                "{} ({} {}): HTTP {} {}",
                p.what, p.method, p.path, answer.status, answer.body
            ));
        }
    }
    let a_board = patient(&client, "GET", &format!("{MARKET}/orders"), &a.token, None)?;
    if a_board.body["data"]["items"].as_array().is_none_or(|items| !items.is_empty()) {
        reached += 1;
        findings.push(format!("A's order board shows orders: {}", a_board.body));
    }
    let listed = in_lists(&client, &a)?;
    reached += listed.len();
    findings.extend(listed);
    let after = b_view(&client, &b, &owned)?;
    for (n, (was, is)) in before.iter().zip(&after).enumerate() {
        if was != is {
            reached += 1;
            findings.push(format!("B's record {n} changed: {was} -> {is}"));
        }
    }
    let mut row = Row::new(
        "isolation",
        format!("{} attempts of company A on company B's records, 7 lists", probes.len()),
        "invoice, cancellation, client, product, category, bank account, unit, user, TCR code, print, details, WTN, stock, purchase invoice, EIC, marketplace order".to_string(),
    );
    row.leaks = reached;
    row.server_errors = server_errors;
    row.findings = findings;
    progress("isolation: a cashier tries the owner's routes and another till's documents");
    let mut cashier = cashier_beyond(&client, &a)?;
    let panics = panics_in(&server.log_text());
    row.hangs_and_panics = panics;
    cashier.hangs_and_panics = panics;
    Ok(vec![row, cashier])
}
