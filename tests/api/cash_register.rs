//! The cash register as a shop tells it: the till opens the day with its float, sells for cash,
//! puts money in and takes it out, counts the drawer at night; the CIS goes away for a while;
//! twenty cashiers try to empty the drawer at once. The balance is checked after every step
//! against a hand computation.

use std::time::Duration;

use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::*;
use chrono::Utc;
use serde_json::{Value, json};

const ACTION_KEYS: [&str; 11] = [
    "action_type",
    "amount",
    "cash_action_no",
    "currency",
    "description",
    "fiscal_fic",
    "fiscal_status",
    "fiscal_uuid",
    "id",
    "transaction_date",
    "transaction_no",
];

impl Till {
    fn post(&self, path: &str, body: Value) -> Reply {
        self.server.post_json(&format!("/api/v1/cash-register/{path}"), Some(&self.token), &body)
    }

    fn balance(&self) -> f64 {
        let v1 = self.server.get("/api/v1/cash-register/balance", Some(&self.token));
        let v2 = self.server.get("/api/v2/cash-register/balance", Some(&self.token));
        let (v1, v2) = (v1.data(200).clone(), v2.data(200).clone());
        assert_eq!(v1, v2, "v1 and v2 answer alike");
        assert_eq!(object_keys(&v1), ["balance", "currency", "fiscal_tcr_code", "to_date"]);
        assert_eq!(v1["currency"], "ALL");
        assert_eq!(v1["to_date"], Value::Null);
        v1["balance"].as_f64().unwrap()
    }

    fn balance_to(&self, day: &str) -> f64 {
        let reply =
            self.server.get(&format!("/api/v1/cash-register/balance?toDate={day}"), Some(&self.token));
        let data = reply.data(200);
        assert_eq!(data["to_date"], day);
        data["balance"].as_f64().unwrap()
    }

    fn actions(&self, query: &str) -> Vec<Value> {
        let reply = self.server.get(&format!("/api/v1/cash-register/actions?{query}"), Some(&self.token));
        assert_eq!(object_keys(reply.data(200)), ["items", "pagination"]);
        assert_eq!(object_keys(&reply.data(200)["pagination"]), ["limit", "offset", "records"]);
        reply.data(200)["items"].as_array().unwrap().clone()
    }

    fn sell(&self, internal_id: &str) {
        self.server
            .post_json("/api/v1/invoice/cash", Some(&self.token), &coffee_and_water(internal_id))
            .data(201);
    }
}

fn assert_action(action: &Value, action_type: &str, amount: f64) {
    assert_eq!(object_keys(action), ACTION_KEYS, "{action}");
    assert_eq!(action["action_type"], action_type, "{action}");
    assert_eq!(action["amount"].as_f64().unwrap(), amount, "{action}");
    assert_eq!(action["currency"], "ALL");
    let year = Utc::now().format("%Y").to_string();
    let no = action["transaction_no"].as_i64().unwrap();
    assert_eq!(action["cash_action_no"], format!("{no}/{year}"));
    assert_eq!(action["transaction_date"].as_str().unwrap().len(), "2026-04-21 10:00:00".len());
    assert_eq!(action["fiscal_uuid"].as_str().unwrap().len(), 36);
}

fn assert_fiscalized(action: &Value) {
    assert_eq!(action["fiscal_status"], "FISCALIZED", "{action}");
    assert!(action["fiscal_fic"].as_str().is_some_and(|f| !f.is_empty()), "{action}");
}

/// (Operation, CashAmt) of every deposit the simulator registered, oldest first.
fn deposits_seen(sim: &SimServer) -> Vec<(String, f64)> {
    sim.registered()["cash_deposits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["operation"].as_str().unwrap().to_string(), d["cash_amt"].as_f64().unwrap()))
        .collect()
}

fn ops(list: &[(&str, f64)]) -> Vec<(String, f64)> {
    list.iter().map(|(o, a)| (o.to_string(), *a)).collect()
}

#[test]
fn a_full_day_keeps_the_balance_right_after_every_step() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    assert_eq!(till.balance(), 0.0);

    // Morning: the float.
    let opened = till.post("open-balance", json!({"amount": 1000, "description": "Float"}));
    let opened = opened.data(201).clone();
    assert_action(&opened, "INITIAL", 1000.0);
    assert_fiscalized(&opened);
    assert_eq!(opened["transaction_no"], 1);
    assert_eq!(opened["description"], "Float");
    assert_eq!(till.balance(), 1000.0);

    // Two sales of 285.00.
    till.sell("d-1");
    assert_eq!(till.balance(), 1285.0);
    till.sell("d-2");
    assert_eq!(till.balance(), 1570.0);

    // Change brought from the bank, a supplier paid out of the drawer.
    let deposit = till.post("deposit", json!({"amount": "200.50", "description": "Kusur nga banka"}));
    let deposit = deposit.data(201).clone();
    assert_action(&deposit, "MONEY_IN", 200.5);
    assert_fiscalized(&deposit);
    assert_eq!(deposit["transaction_no"], 2);
    assert_eq!(till.balance(), 1770.5);
    let withdrawal = till.post("withdraw", json!({"amount": 300, "third_party": "Furra Korça"}));
    let withdrawal = withdrawal.data(201).clone();
    assert_action(&withdrawal, "MONEY_OUT", 300.0);
    assert_fiscalized(&withdrawal);
    assert_eq!(withdrawal["description"], "");
    assert_eq!(till.balance(), 1470.5);

    // The same opening again is a retry: nothing new. A bigger one deposits the difference;
    // a smaller one is refused.
    let again = till.post("open-balance", json!({"amount": 1000}));
    assert_eq!(again.data(200)["id"], opened["id"]);
    let more = till.post("open-balance", json!({"amount": 1200}));
    assert_action(more.data(201), "MONEY_IN", 200.0);
    assert_eq!(till.balance(), 1670.5);
    till.post("open-balance", json!({"amount": 900})).assert_error(200);

    // Night: 10 lek are missing; everything counted leaves the drawer.
    let closed = till.post("close-balance", json!({"counted": 1660.50}));
    let summary = closed.data(200).clone();
    assert_eq!(
        object_keys(&summary),
        [
            "balance",
            "balance_after",
            "business_day",
            "by_payment_method",
            "carried_over",
            "cash_sales",
            "closed_at",
            "closing_action",
            "counted",
            "currency",
            "denominations",
            "deposits",
            "difference",
            "drawer",
            "expected",
            "fiscal_tcr_code",
            "left_in_drawer",
            "not_in_drawer",
            "opened_at",
            "opened_automatically",
            "opening",
            "opening_actions",
            "withdrawals",
            "withdrawn"
        ]
    );
    // opening 1000 + 200 = 1200; sales 570; deposits 200.50; withdrawals 300.
    let expected = 1200.0 + 570.0 + 200.5 - 300.0;
    assert_eq!(summary["opening"].as_f64().unwrap(), 1200.0, "{summary}");
    assert_eq!(summary["cash_sales"].as_f64().unwrap(), 570.0);
    assert_eq!(summary["deposits"].as_f64().unwrap(), 200.5);
    assert_eq!(summary["withdrawals"].as_f64().unwrap(), 300.0);
    assert_eq!(summary["carried_over"].as_f64().unwrap(), 0.0);
    assert_eq!(summary["expected"].as_f64().unwrap(), expected);
    assert_eq!(summary["counted"].as_f64().unwrap(), 1660.5);
    assert_eq!(summary["difference"].as_f64().unwrap(), -10.0);
    assert_eq!(summary["withdrawn"].as_f64().unwrap(), 1660.5);
    assert_eq!(summary["balance_after"].as_f64().unwrap(), 10.0);
    // Every sale was paid in banknotes: the drawer's expectation is the balance.
    assert_eq!(summary["balance"].as_f64().unwrap(), expected);
    assert_eq!(summary["drawer"]["banknotes_in"].as_f64().unwrap(), 570.0);
    assert_eq!(summary["drawer"]["expected"].as_f64().unwrap(), expected);
    assert_eq!(summary["not_in_drawer"], json!({}));
    assert_eq!(summary["left_in_drawer"].as_f64().unwrap(), 0.0);
    assert_eq!(summary["opened_automatically"], false);
    assert!(summary["closed_at"].is_string());
    assert_eq!(summary["opening_actions"].as_array().unwrap().len(), 2);
    assert_action(&summary["closing_action"], "MONEY_OUT", 1660.5);
    assert_fiscalized(&summary["closing_action"]);
    assert_eq!(till.balance(), 10.0);

    // A closed day cannot be closed twice.
    till.post("close-balance", json!({})).assert_error(200);

    assert_eq!(
        deposits_seen(&sim),
        ops(&[
            ("INITIAL", 1000.0),
            ("DEPOSIT", 200.5),
            ("WITHDRAW", 300.0),
            ("DEPOSIT", 200.0),
            ("WITHDRAW", 1660.5)
        ])
    );
    for d in sim.registered()["cash_deposits"].as_array().unwrap() {
        assert_eq!(d["subseq_deliv_type"], Value::Null, "delivered on time: {d}");
        assert_eq!(d["tcr_code"], opened_tcr(&till));
    }
}

fn opened_tcr(till: &Till) -> Value {
    till.server.get("/api/v1/cash-register/balance", Some(&till.token)).data(200)["fiscal_tcr_code"].clone()
}

#[test]
fn the_first_cash_sale_of_an_unopened_day_opens_it_with_an_initial_of_zero() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    till.sell("a-1");
    let actions = till.actions("");
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_action(&actions[0], "INITIAL", 0.0);
    assert_fiscalized(&actions[0]);
    assert!(actions[0]["description"].as_str().unwrap().contains("automatically"));
    // The CIS saw the opening before the invoice.
    let order: Vec<String> = sim
        .requests()
        .iter()
        .filter(|r| r["outcome"] == "accepted")
        .map(|r| r["operation"].as_str().unwrap().to_string())
        .filter(|o| o != "RegisterTCR")
        .collect();
    assert_eq!(order, ["RegisterCashDeposit", "RegisterInvoice"]);

    // The day is open now: no second opening.
    till.sell("a-2");
    assert_eq!(till.actions("").len(), 1);
    assert_eq!(till.balance(), 570.0);

    // The float counted later is deposited as the difference.
    let float = till.post("open-balance", json!({"amount": 500}));
    assert_action(float.data(201), "MONEY_IN", 500.0);
    assert_eq!(till.balance(), 1070.0);

    let summary = till.post("close-balance", json!({"withdraw": 1000})).data(200).clone();
    assert_eq!(summary["opened_automatically"], true, "{summary}");
    let openings = summary["opening_actions"].as_array().unwrap();
    assert_eq!(openings.len(), 2);
    assert_action(&openings[0], "INITIAL", 0.0);
    assert_action(&openings[1], "MONEY_IN", 500.0);
    assert_eq!(summary["opening"].as_f64().unwrap(), 500.0);
    assert_eq!(summary["cash_sales"].as_f64().unwrap(), 570.0);
    assert_eq!(summary["expected"].as_f64().unwrap(), 1070.0);
    assert_eq!(summary["counted"].as_f64().unwrap(), 1070.0);
    assert_eq!(summary["difference"].as_f64().unwrap(), 0.0);
    assert_eq!(summary["withdrawn"].as_f64().unwrap(), 1000.0);
    assert_eq!(till.balance(), 70.0);

    // A sale after the close opens a new day, again with an INITIAL of 0.
    till.sell("a-3");
    let initials = till.actions("type=INITIAL");
    assert_eq!(initials.len(), 2);
    assert_eq!(initials[0]["amount"].as_f64().unwrap(), 0.0);
    assert_eq!(till.balance(), 355.0);
    assert_eq!(
        deposits_seen(&sim),
        ops(&[("INITIAL", 0.0), ("DEPOSIT", 500.0), ("WITHDRAW", 1000.0), ("INITIAL", 0.0)])
    );
}

#[test]
fn balances_to_a_date_end_at_midnight_in_tirane() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    till.sell("m-1");
    till.sell("m-2");
    // The two sales moved to chosen times, and four actions written with chosen times
    // (winter: UTC+1; summer: UTC+2). The automatic opening of today stays as it is (0).
    let action = |id: i64, kind: &str, amount: &str, at: &str| {
        format!(
            "INSERT INTO cash_actions (company_id, tcr_code, action_type, operation, purpose, amount, transacted_at,
                 business_day, year, transaction_no, cash_action_no, fiscal_status, fiscal_uuid, created_at)
             SELECT company_id, tcr_code, '{kind}', 'X', 'deposit', '{amount}', '{at}', substr('{at}', 1, 10), 2000,
                 {id}, '{id}/2000', 'FISCALIZED', 'uuid-{id}', '{at}' FROM cash_actions LIMIT 1"
        )
    };
    till.sql(&[
        "UPDATE invoices SET issued_at = '2026-01-15T22:59:59Z' WHERE internal_id = 'm-1'".to_string(),
        "UPDATE invoices SET issued_at = '2026-01-15T23:00:00.250+00:00' WHERE internal_id = 'm-2'"
            .to_string(),
        action(101, "INITIAL", "100", "2026-01-14T22:00:00Z"),
        action(102, "MONEY_OUT", "30", "2026-01-14T23:00:00+00:00"),
        action(103, "MONEY_IN", "40", "2026-07-01T21:59:59Z"),
        action(104, "MONEY_IN", "60", "2026-07-01T22:00:00Z"),
    ]);
    // 14 Jan 23:00 local: the INITIAL. 15 Jan 00:00 local: the withdrawal (still 14 Jan in UTC).
    assert_eq!(till.balance_to("2026-01-13"), 0.0);
    assert_eq!(till.balance_to("2026-01-14"), 100.0);
    // 15 Jan 23:59:59 local: the first sale; the second is at 16 Jan 00:00:00.25 local.
    assert_eq!(till.balance_to("2026-01-15"), 100.0 - 30.0 + 285.0);
    assert_eq!(till.balance_to("2026-01-16"), 100.0 - 30.0 + 570.0);
    // 1 Jul 23:59:59 CEST and 2 Jul 00:00 CEST.
    assert_eq!(till.balance_to("2026-07-01"), 640.0 + 40.0);
    assert_eq!(till.balance_to("2026-07-02"), 640.0 + 100.0);
    assert_eq!(till.balance(), 740.0);
    till.server
        .get("/api/v1/cash-register/balance?toDate=15.01.2026", Some(&till.token))
        .assert_invalid("toDate");
}

#[test]
fn the_rules_of_amounts_clients_and_funds_are_enforced_and_a_refusal_leaves_nothing() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    till.post("open-balance", json!({"amount": 100})).data(201);

    let reply = till.post("withdraw", json!({"amount": 100.01}));
    reply.assert_error(200);
    assert!(reply.body["message"].as_str().unwrap().contains("Insufficient funds"), "{}", reply.text);
    assert_eq!(till.actions("").len(), 1, "nothing written");
    assert_eq!(deposits_seen(&sim).len(), 1, "nothing sent");
    // Even the day's close cannot take more than there is.
    till.post("close-balance", json!({"counted": 500, "withdraw": 500})).assert_error(200);

    for path in ["deposit", "withdraw"] {
        till.post(path, json!({"amount": 0})).assert_invalid("amount");
        till.post(path, json!({"amount": -5})).assert_invalid("amount");
        till.post(path, json!({"amount": "abc"})).assert_invalid("amount");
        till.post(path, json!({"amount": 1.005})).assert_invalid("amount");
        till.post(path, json!({})).assert_invalid("amount");
        till.post(path, json!({"amount": 1, "description": "x".repeat(256)})).assert_invalid("description");
        till.post(path, json!({"amount": 1, "third_party": "x".repeat(256)})).assert_invalid("third_party");
        till.post(path, json!({"amount": 1, "id_client": 999})).assert_invalid("id_client");
    }
    till.post("open-balance", json!({"amount": -1})).assert_invalid("amount");
    till.post("close-balance", json!({"counted": 50, "withdraw": 60})).assert_invalid("withdraw");

    let client = till.server.post_json(
        "/api/v2/clients",
        Some(&till.token),
        &json!({
            "type": "person",
            "person": {"first_name": "Ana", "last_name": "Hoxha", "id": {"type": "id", "value": "J90501123A"}},
            "address": {"line": "Rruga Myslym Shyri 5", "city": "Tiranë", "country": "ALB"},
        }),
    );
    let client_id = client.data(201)["client"]["id"].as_i64().unwrap();
    let paid = till.post(
        "withdraw",
        json!({"amount": 40, "id_client": client_id, "third_party": "Ana Hoxha", "description": "Kthim"}),
    );
    assert_action(paid.data(201), "MONEY_OUT", 40.0);
    assert_eq!(till.balance(), 60.0);

    // The CIS refuses: the caller reads its code and reason, and nothing is kept.
    sim.set_mode(json!({"mode": "fault", "fault_code": "11"}));
    let refused = till.post("deposit", json!({"amount": 25}));
    refused.assert_error(200);
    assert!(refused.body["message"].as_str().unwrap().starts_with("[11] "), "{}", refused.text);
    sim.mode("ok");
    assert_eq!(till.actions("").len(), 2);
    assert_eq!(till.balance(), 60.0);
    let next = till.post("deposit", json!({"amount": 25}));
    assert_eq!(next.data(201)["transaction_no"], 3, "the refused number was given back");
}

#[test]
fn a_user_without_a_till_gets_a_soft_refusal_on_every_route() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    let cashier = till.server.post_json(
        "/api/v1/on-boarding/user",
        Some(&till.token),
        &json!({"name": "Pa kasë", "email": "pakase@shop.al", "branchId": 1, "operatorCode": "op999op999"}),
    );
    let token = cashier.data(201)["user"]["token"].as_str().unwrap().to_string();
    let posts = [
        ("open-balance", json!({"amount": 100})),
        ("close-balance", json!({})),
        ("deposit", json!({"amount": 100})),
        ("withdraw", json!({"amount": 100})),
    ];
    for (path, body) in posts {
        let reply = till.server.post_json(&format!("/api/v1/cash-register/{path}"), Some(&token), &body);
        reply.assert_error(200);
        assert!(reply.body["message"].as_str().unwrap().contains("fiscal device"), "{path}: {}", reply.text);
    }
    for path in
        ["/api/v1/cash-register/actions", "/api/v1/cash-register/balance", "/api/v2/cash-register/balance"]
    {
        till.server.get(path, Some(&token)).assert_error(200);
    }
    till.server.get("/api/v1/cash-register/balance", None).assert_unauthenticated();
}

#[test]
fn twenty_concurrent_withdrawals_never_take_the_balance_below_zero() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    till.post("open-balance", json!({"amount": 1000})).data(201);
    let replies = post_at_once(&till, "/api/v1/cash-register/withdraw", 20, |_| json!({"amount": 150}));
    let outcomes: Vec<bool> = replies
        .iter()
        .map(|(status, body)| match status {
            201 => true,
            200 if body["status"] == false => false,
            _ => panic!("unexpected answer {status}: {body}"),
        })
        .collect();
    // 1000 holds six withdrawals of 150 (900), not seven.
    assert_eq!(outcomes.iter().filter(|ok| **ok).count(), 6);
    assert_eq!(till.balance(), 100.0);
    let withdrawals = till.actions("type=MONEY_OUT&limit=100");
    assert_eq!(withdrawals.len(), 6);
    let mut numbers: Vec<i64> = withdrawals.iter().map(|a| a["transaction_no"].as_i64().unwrap()).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (2..=7).collect::<Vec<_>>());
    assert_eq!(deposits_seen(&sim).iter().filter(|(op, _)| op == "WITHDRAW").count(), 6);
}

#[test]
fn while_the_cis_is_away_actions_wait_and_are_delivered_later_in_order() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    sim.mode("down");
    // The day's first sale: the automatic opening and the invoice both wait.
    let reply = till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &coffee_and_water("o-1"));
    assert_eq!(reply.status, 503, "{}", reply.text);
    let opening = till.actions("");
    assert_eq!(opening.len(), 1);
    assert_action(&opening[0], "INITIAL", 0.0);
    assert_eq!(opening[0]["fiscal_status"], "PENDING");
    assert_eq!(opening[0]["fiscal_fic"], Value::Null);

    let deposit = till.post("deposit", json!({"amount": 500}));
    let deposit = deposit.data(201).clone();
    assert_action(&deposit, "MONEY_IN", 500.0);
    assert_eq!(deposit["fiscal_status"], "PENDING");
    assert_eq!(deposit["fiscal_fic"], Value::Null);
    // Counted at once.
    assert_eq!(till.balance(), 785.0);
    let withdrawal = till.post("withdraw", json!({"amount": 100}));
    assert_eq!(withdrawal.data(201)["fiscal_status"], "PENDING");
    assert_eq!(till.balance(), 685.0);
    assert!(deposits_seen(&sim).is_empty());

    sim.mode("ok");
    eventually("the late delivery", Duration::from_secs(60), || {
        till.actions("").iter().all(|a| a["fiscal_status"] == "FISCALIZED")
    });
    for a in till.actions("") {
        assert_fiscalized(&a);
    }
    let registered = sim.registered();
    let seen = registered["cash_deposits"].as_array().unwrap();
    assert_eq!(deposits_seen(&sim), ops(&[("INITIAL", 0.0), ("DEPOSIT", 500.0), ("WITHDRAW", 100.0)]));
    for d in seen {
        assert!(matches!(d["subseq_deliv_type"].as_str(), Some("NOINTERNET") | Some("SERVICE")), "{d}");
        assert_eq!(d["deliveries"], 1, "{d}");
    }
    // The opening reached the CIS before the invoice it opened the day for.
    let accepted: Vec<String> = sim
        .requests()
        .iter()
        .filter(|r| r["outcome"] == "accepted" && r["operation"] != "RegisterTCR")
        .map(|r| r["operation"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(accepted[0], "RegisterCashDeposit");
    assert_eq!(accepted[1], "RegisterInvoice");
    assert_eq!(till.balance(), 685.0);
}

#[test]
fn the_actions_list_pages_filters_and_shows_the_newest_first() {
    let sim = SimServer::start();
    let till = open_till(&sim);
    till.post("open-balance", json!({"amount": 100})).data(201);
    for amount in [10, 20, 30] {
        till.post("deposit", json!({"amount": amount})).data(201);
    }
    for amount in [5, 15] {
        till.post("withdraw", json!({"amount": amount})).data(201);
    }
    let all = till.actions("limit=100");
    assert_eq!(all.len(), 6);
    let ids: Vec<i64> = all.iter().map(|a| a["id"].as_i64().unwrap()).collect();
    let mut newest_first = ids.clone();
    newest_first.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(ids, newest_first);
    assert_eq!(all[0]["action_type"], "MONEY_OUT");
    assert_eq!(all[0]["amount"].as_f64().unwrap(), 15.0);
    for a in &all {
        assert_eq!(object_keys(a), ACTION_KEYS);
    }
    assert_eq!(till.actions("").len(), 6, "the default limit is 20");

    let mut paged = Vec::new();
    for offset in [0, 2, 4] {
        let page = till.actions(&format!("limit=2&offset={offset}"));
        assert_eq!(page.len(), 2);
        paged.extend(page.iter().map(|a| a["id"].as_i64().unwrap()));
    }
    assert_eq!(paged, ids);
    assert!(till.actions("limit=2&offset=6").is_empty());

    assert_eq!(till.actions("type=MONEY_IN").len(), 3);
    assert_eq!(till.actions("type=DEPOSIT").len(), 3);
    assert_eq!(till.actions("type=INITIAL").len(), 1);
    assert_eq!(till.actions("type=MONEY_OUT,INITIAL").len(), 3);
    let today = Utc::now().with_timezone(&chrono_tz::Europe::Tirane).date_naive();
    assert_eq!(till.actions(&format!("fromDate={today}&toDate={today}")).len(), 6);
    assert_eq!(till.actions("fromDate=2001-01-01&toDate=2001-12-31").len(), 0);
    assert_eq!(till.actions(&format!("fromDate={}", today.succ_opt().unwrap())).len(), 0);

    let get = |q: &str| till.server.get(&format!("/api/v1/cash-register/actions?{q}"), Some(&till.token));
    get("fromDate=22.11.2026").assert_invalid("fromDate");
    get("toDate=x").assert_invalid("toDate");
    get("type=BOGUS").assert_invalid("type");
    get("limit=0").assert_invalid("limit");
    get("offset=-1").assert_invalid("offset");
    let reply = get("limit=2");
    assert_eq!(reply.data(200)["pagination"], json!({"records": 2, "limit": 2, "offset": 0}));
}
