//! Currencies and exchange rates, as a POS developer and a shop owner meet them: the sources'
//! rates read from their pages (served on loopback from tests/fixtures/rates/), kept an hour and
//! in the database, the last good ones when a site is down, the owner's manual rates and
//! currencies, and the rate a foreign-currency invoice takes and keeps.

use std::collections::BTreeSet;

use crate::common;
use crate::common::pages::RatePages;
use crate::common::sim::SimServer;
use crate::common::till::{Till, coffee_and_water, open_till_with};
use crate::common::{Registered, TestServer, object_keys, register_company};
use chrono::NaiveDate;
use serde_json::{Value, json};

fn today() -> NaiveDate {
    chrono::Utc::now().with_timezone(&chrono_tz::Europe::Tirane).date_naive()
}

fn is_local_time(v: &Value) -> bool {
    v.as_str().is_some_and(|t| chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S").is_ok())
}

struct Shop {
    server: TestServer,
    shop: Registered,
    other: Registered,
}

impl Shop {
    fn open(pages: &RatePages, configure: impl FnOnce(&mut arka::config::ServeArgs)) -> Shop {
        let server = TestServer::start_with(|args| {
            pages.configure(args);
            configure(args);
        });
        let partner = server.create_partner("desk");
        let shop = register_company(&server, &partner, "L41323036D");
        let other = register_company(&server, &partner, "K12345678L");
        Shop { server, shop, other }
    }

    fn token(&self) -> Option<&str> {
        Some(self.shop.token.as_str())
    }

    fn rates(&self, query: &str) -> Value {
        self.server.get(&format!("/api/v1/exchange-rates{query}"), self.token()).data(200).clone()
    }
}

#[test]
fn each_source_is_read_from_its_page_and_an_unknown_source_is_the_central_bank() {
    let pages = RatePages::start();
    let s = Shop::open(&pages, |_| {});
    s.server.get("/api/v1/exchange-rates", None).assert_unauthenticated();

    let boa = s.rates("");
    assert_eq!(object_keys(&boa), ["fetchedAt", "rates", "source", "stale"]);
    assert_eq!((&boa["source"], &boa["stale"]), (&json!("BOA"), &json!(false)));
    assert!(is_local_time(&boa["fetchedAt"]), "{boa}");
    assert_eq!(
        boa["rates"]["EUR"],
        json!({"rate": 97.35, "unit": 1, "quoted": 97.35, "buy": null, "date": "2026-11-20", "source": "BOA"})
    );
    // The central bank quotes the yen, the forint and the ruble per 100.
    assert_eq!(
        boa["rates"]["JPY"],
        json!({"rate": 0.5431, "unit": 100, "quoted": 54.31, "buy": null, "date": "2026-11-20", "source": "BOA"})
    );
    assert_eq!(
        (&boa["rates"]["HUF"]["unit"], &boa["rates"]["HUF"]["date"]),
        (&json!(100), &json!("2026-11-13"))
    );
    assert_eq!(boa["rates"].as_object().unwrap().len(), 21);

    let bkt = s.rates("?source=bkt");
    assert_eq!(bkt["source"], "BKT");
    assert_eq!(
        bkt["rates"]["EUR"],
        json!({"rate": 98.2, "unit": 1, "quoted": 98.2, "buy": 96.8, "date": "2026-11-23", "source": "BKT"})
    );
    let iliria = s.rates("?source=ILIRIA98");
    assert_eq!(iliria["source"], "Iliria98");
    assert_eq!(
        (&iliria["rates"]["JPY"]["rate"], &iliria["rates"]["JPY"]["buy"]),
        (&json!(0.556), &json!(0.534))
    );
    let adon = s.rates("?source=Adon");
    assert_eq!(adon["source"], "ADON");
    assert_eq!(
        (&adon["rates"]["USD"]["rate"], &adon["rates"]["USD"]["date"]),
        (&json!(84.8), &json!("2026-11-22"))
    );

    for unknown in ["?source=Raiffeisen", "?source=", "?source=%00", "?source=1e30", "?other=1"] {
        let data = s.rates(unknown);
        assert_eq!(data["source"], "BOA", "{unknown}");
        assert_eq!(data["rates"]["EUR"]["rate"], json!(97.35), "{unknown}");
    }
}

#[test]
fn rates_are_read_once_an_hour_by_one_request_and_kept_in_the_database() {
    let pages = RatePages::start();
    let s = Shop::open(&pages, |_| {});
    let url = format!("{}/api/v1/exchange-rates", s.server.base_url());
    // Eight POS apps ask at once: one of them reads the page, the others wait for it.
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| {
                let agent: ureq::Agent =
                    ureq::Agent::config_builder().http_status_as_error(false).build().into();
                let mut reply = agent
                    .get(&url)
                    .header("Authorization", format!("Bearer {}", s.shop.token))
                    .call()
                    .unwrap();
                assert_eq!(reply.status().as_u16(), 200);
                let body: Value = serde_json::from_str(&reply.body_mut().read_to_string().unwrap()).unwrap();
                assert_eq!(body["data"]["rates"]["EUR"]["rate"], json!(97.35));
            });
        }
    });
    assert_eq!(pages.hits(), 1);
    s.rates("");
    s.server.get("/api/v1/currencies", Some(&s.other.token)).data(200);
    assert_eq!(pages.hits(), 1, "within the hour the page is not read again, for any company");
    s.rates("?source=BKT");
    assert_eq!(pages.hits(), 2, "each source has its own page");

    let store = arka::store::Store::open(&s.server.data_dir().join("arka.db")).unwrap();
    let (date, unit, sell, fetched_at): (String, i64, String, String) = store
        .read_blocking(|conn| {
            Ok(conn.query_row(
                "SELECT rate_date, unit, sell, fetched_at FROM exchange_rates WHERE source = 'BOA' AND currency = 'JPY'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )?)
        })
        .unwrap();
    assert_eq!((date.as_str(), unit, sell.as_str()), ("2026-11-20", 100, "54.31"));
    assert!(chrono::DateTime::parse_from_rfc3339(&fetched_at).is_ok(), "{fetched_at}");
}

#[test]
fn an_offline_or_changed_source_serves_the_last_good_rates_with_their_age() {
    let pages = RatePages::start();
    // Read the pages again on every request, to see each failure.
    let mut s = Shop::open(&pages, |args| args.rates.rates_cache = 0);
    let good = s.rates("");
    assert_eq!(good["stale"], false);

    pages.set_down(true);
    let offline = s.rates("");
    assert_eq!((&offline["stale"], &offline["fetchedAt"]), (&json!(true), &good["fetchedAt"]));
    assert_eq!(offline["rates"], good["rates"]);

    pages.set_down(false);
    pages.set_page("boa", "<html><body><h1>Faqja është zhvendosur</h1></body></html>");
    let moved = s.rates("");
    assert_eq!((&moved["stale"], &moved["fetchedAt"]), (&json!(true), &good["fetchedAt"]));
    assert_eq!(moved["rates"], good["rates"]);

    // After a restart nothing is in memory: the last good rates come from the database.
    pages.set_down(true);
    s.server.restart();
    let restarted = s.rates("");
    assert_eq!((&restarted["stale"], &restarted["fetchedAt"]), (&json!(true), &good["fetchedAt"]));
    assert_eq!(restarted["rates"], good["rates"]);

    // A source never read has nothing to fall back on, and still answers.
    let never = s.rates("?source=ADON");
    assert_eq!(never, json!({"rates": {}, "source": "ADON", "fetchedAt": null, "stale": true}));
    let currencies = s.server.get("/api/v1/currencies", s.token()).data(200).clone();
    assert_eq!(currencies["items"][1]["rate"], json!(97.35));

    pages.set_down(false);
    pages.set_page("boa", &RatePages::saved("boa").replace("97.35", "97.80"));
    let back = s.rates("");
    assert_eq!((&back["stale"], &back["rates"]["EUR"]["rate"]), (&json!(false), &json!(97.8)));
}

#[test]
fn the_owners_manual_rate_wins_for_its_day_and_shows_as_manual() {
    let pages = RatePages::start();
    let s = Shop::open(&pages, |_| {});
    let t = s.token();
    let today = today().to_string();
    let tomorrow = (self::today() + chrono::Days::new(1)).to_string();

    let set = s.server.put_json("/api/v1/exchange-rates/manual/eur", t, &json!({"rate": "99.50"}));
    assert_eq!(
        set.data(200)["manualRate"],
        json!({"currency": "EUR", "rate": 99.5, "unit": 1, "quoted": 99.5, "date": today})
    );
    let rates = s.rates("");
    assert_eq!(
        rates["rates"]["EUR"],
        json!({"rate": 99.5, "unit": 1, "quoted": 99.5, "buy": null, "date": today, "source": "MANUAL"})
    );
    assert_eq!(rates["rates"]["USD"]["source"], "BOA");
    assert_eq!(s.rates("?source=BKT")["rates"]["EUR"]["source"], "MANUAL");
    let others = s.server.get("/api/v1/exchange-rates", Some(&s.other.token)).data(200).clone();
    assert_eq!(
        (&others["rates"]["EUR"]["source"], &others["rates"]["EUR"]["rate"]),
        (&json!("BOA"), &json!(97.35))
    );

    // A rate set ahead waits for its day; a rate per 100 is divided per unit.
    let jpy = json!({"rate": 55, "unit": 100, "date": tomorrow});
    s.server.put_json("/api/v1/exchange-rates/manual/JPY", t, &jpy).data(200);
    assert_eq!(s.rates("")["rates"]["JPY"]["source"], "BOA");
    let listed = s.server.get("/api/v1/exchange-rates/manual", t).data(200).clone();
    assert_eq!(
        listed["items"],
        json!([
            {"currency": "EUR", "rate": 99.5, "unit": 1, "quoted": 99.5, "date": today},
            {"currency": "JPY", "rate": 0.55, "unit": 100, "quoted": 55.0, "date": tomorrow},
        ])
    );
    assert_eq!(
        s.server.get("/api/v1/exchange-rates/manual", Some(&s.other.token)).data(200)["items"],
        json!([])
    );

    // Another company's manual rate is not this company's to remove.
    s.server
        .delete(&format!("/api/v1/exchange-rates/manual/JPY?date={tomorrow}"), Some(&s.other.token))
        .assert_error(404);
    s.server.delete("/api/v1/exchange-rates/manual/EUR", t).data(200);
    assert_eq!(s.rates("")["rates"]["EUR"]["source"], "BOA");
    s.server.delete("/api/v1/exchange-rates/manual/EUR", t).assert_error(404);
    s.server.delete("/api/v1/exchange-rates/manual/EUR?date=soon", t).assert_invalid("date");
    assert_eq!(
        s.server.get("/api/v1/exchange-rates/manual", t).data(200)["items"].as_array().unwrap().len(),
        1
    );
    s.server.delete("/api/v1/exchange-rates/manual/EUR", None).assert_unauthenticated();
}

#[test]
fn bad_input_to_the_rate_routes_gets_a_clear_4xx_and_writing_goes_on() {
    let pages = RatePages::start();
    let s = Shop::open(&pages, |_| {});
    let t = s.token();
    let manual = "/api/v1/exchange-rates/manual/EUR";
    // | body                                     | field |
    let table = [
        (json!({}), "rate"),
        (json!({"rate": 0}), "rate"),
        (json!({"rate": -97}), "rate"),
        (json!({"rate": 1e30}), "rate"),
        (json!({"rate": 9223372036854775808u64}), "rate"),
        (json!({"rate": "\u{0}"}), "rate"),
        (json!({"rate": "97.1234567"}), "rate"),
        (json!({"rate": 97, "unit": 7}), "unit"),
        (json!({"rate": 97, "unit": 9223372036854775808u64}), "unit"),
        (json!({"rate": 97, "unit": 1e30}), "unit"),
        (json!({"rate": 97, "date": "2020-01-01"}), "date"),
        (json!({"rate": 97, "date": "\u{0}"}), "date"),
        (json!({"rate": 97, "date": "2099-01-01"}), "date"),
    ];
    for (body, field) in table {
        s.server.put_json(manual, t, &body).assert_invalid(field);
    }
    let bearer = format!("Bearer {}", s.shop.token);
    let headers = [("Authorization", bearer.as_str())];
    s.server.request("PUT", manual, &headers, Some(("application/json", b"[1, 2]"))).assert_invalid("body");
    s.server.put_json("/api/v1/exchange-rates/manual/ALL", t, &json!({"rate": 1})).assert_invalid("currency");
    s.server.put_json("/api/v1/exchange-rates/manual/XYZ", t, &json!({"rate": 1})).assert_error(404);
    s.server.put_json("/api/v1/exchange-rates/manual/%00", t, &json!({"rate": 1})).assert_error(404);
    s.server
        .put_json(&format!("/api/v1/exchange-rates/manual/{}", "E".repeat(5000)), t, &json!({"rate": 1}))
        .assert_error(404);

    let currency = "/api/v1/currencies/JPY";
    for (body, field) in [
        (json!({}), "enabled"),
        (json!({"enabled": 1e30}), "enabled"),
        (json!({"enabled": 9223372036854775808u64}), "enabled"),
        (json!({"enabled": "\u{0}"}), "enabled"),
    ] {
        s.server.put_json(currency, t, &body).assert_invalid(field);
    }
    s.server.put_json("/api/v1/currencies/ALL", t, &json!({"enabled": false})).assert_invalid("enabled");
    s.server.put_json("/api/v1/currencies/XYZ", t, &json!({"enabled": true})).assert_error(404);
    s.server.put_json("/api/v1/currencies/%00", t, &json!({"enabled": true})).assert_error(404);
    s.server.get("/api/v1/currencies?all=maybe", t).assert_invalid("all");

    // Nothing half-written, and everyone can still write.
    assert_eq!(s.server.get("/api/v1/exchange-rates/manual", t).data(200)["items"], json!([]));
    s.server.put_json(manual, t, &json!({"rate": 98})).data(200);
    s.server.put_json(manual, Some(&s.other.token), &json!({"rate": 96})).data(200);
    s.server.put_json(currency, Some(&s.other.token), &json!({"enabled": true})).data(200);
    assert_eq!(s.rates("")["rates"]["EUR"]["rate"], json!(98.0));
}

#[test]
fn the_owner_chooses_the_currencies_the_company_invoices_in() {
    let pages = RatePages::start();
    let s = Shop::open(&pages, |_| {});
    let t = s.token();
    let codes = |token: &str, query: &str| -> Vec<String> {
        s.server.get(&format!("/api/v1/currencies{query}"), Some(token)).data(200)["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["code"].as_str().unwrap().to_string())
            .collect()
    };
    let list = s.server.get("/api/v1/currencies", t).data(200).clone();
    assert_eq!(codes(&s.shop.token, ""), ["ALL", "EUR", "USD", "GBP", "CHF"]);
    assert_eq!(
        list["items"][0],
        json!({"code": "ALL", "name": "Albanian lek", "symbol": "L", "enabled": true, "rate": 1.0, "rateSource": null, "rateDate": null})
    );
    assert_eq!(
        list["items"][1],
        json!({"code": "EUR", "name": "Euro", "symbol": "€", "enabled": true, "rate": 97.35, "rateSource": "BOA", "rateDate": "2026-11-20"})
    );

    let jpy = s.server.put_json("/api/v1/currencies/jpy", t, &json!({"enabled": true}));
    assert_eq!(
        jpy.data(200)["currency"],
        json!({"code": "JPY", "name": "Japanese yen", "symbol": "¥", "enabled": true, "rate": 0.5431, "rateSource": "BOA", "rateDate": "2026-11-20"})
    );
    s.server.put_json("/api/v1/currencies/USD", t, &json!({"enabled": "false"})).data(200);
    assert_eq!(codes(&s.shop.token, ""), ["ALL", "EUR", "GBP", "CHF", "JPY"]);
    let all = s.server.get("/api/v1/currencies?all=true", t).data(200).clone();
    let items = all["items"].as_array().unwrap();
    assert_eq!(items.len(), 20);
    let usd = items.iter().find(|c| c["code"] == "USD").unwrap();
    assert_eq!((&usd["enabled"], &usd["rate"]), (&json!(false), &json!(84.12)));
    let codes_seen: BTreeSet<&str> = items.iter().map(|c| c["code"].as_str().unwrap()).collect();
    assert_eq!(codes_seen.len(), 20, "no currency twice");

    // The other company keeps the defaults.
    assert_eq!(codes(&s.other.token, ""), ["ALL", "EUR", "USD", "GBP", "CHF"]);

    // Today's manual rate is the rate shown.
    s.server.put_json("/api/v1/exchange-rates/manual/EUR", t, &json!({"rate": 99.5})).data(200);
    let eur = s.server.get("/api/v1/currencies", t).data(200)["items"][1].clone();
    assert_eq!((&eur["rate"], &eur["rateSource"]), (&json!(99.5), &json!("MANUAL")));
}

fn issue(till: &Till, internal_id: &str, currency: &str, rate: Option<f64>) -> common::Reply {
    let mut body = coffee_and_water(internal_id);
    body["currency"] = json!(currency);
    if let Some(rate) = rate {
        body["exchange_rate"] = json!(rate);
    }
    till.server.post_json("/api/v1/invoice/cash", Some(&till.token), &body)
}

fn amount(till: &Till, reply: &common::Reply) -> Value {
    let id = reply.data(201)["invoice"]["id"].as_i64().unwrap();
    till.server.get(&format!("/api/v1/invoice/{id}/details"), Some(&till.token)).data(200)["invoice"]["amount"].clone()
}

#[test]
fn a_foreign_currency_invoice_takes_the_days_central_bank_rate_and_keeps_it() {
    let sim = SimServer::start();
    let pages = RatePages::start();
    let till = open_till_with(&sim, |args| {
        pages.configure(args);
        args.rates.rates_cache = 0;
    });
    let t = Some(till.token.as_str());

    let boa = issue(&till, "eur-boa", "EUR", None);
    let boa_amount = amount(&till, &boa);
    // 285.00 EUR at 97.35 ALL.
    assert_eq!(
        (
            &boa_amount["exchange_rate"],
            &boa_amount["exchange_rate_source"],
            &boa_amount["exchange_rate_date"]
        ),
        (&json!(97.35), &json!("BOA"), &json!("2026-11-20"))
    );
    assert_eq!(boa_amount["gross_all"], json!(27744.75));

    let sent = amount(&till, &issue(&till, "eur-sent", "eur", Some(101.0)));
    assert_eq!(
        (&sent["exchange_rate"], &sent["exchange_rate_source"], &sent["exchange_rate_date"]),
        (&json!(101.0), &json!("REQUEST"), &Value::Null)
    );

    till.server.put_json("/api/v1/exchange-rates/manual/EUR", t, &json!({"rate": 99.5})).data(200);
    let manual = amount(&till, &issue(&till, "eur-manual", "EUR", Some(0.0)));
    assert_eq!(
        (&manual["exchange_rate"], &manual["exchange_rate_source"], &manual["exchange_rate_date"]),
        (&json!(99.5), &json!("MANUAL"), &json!(today().to_string()))
    );

    // A yen invoice takes the rate per yen, though the bank quotes per 100.
    issue(&till, "jpy-off", "JPY", Some(0.6)).assert_invalid("currency");
    till.server.put_json("/api/v1/currencies/JPY", t, &json!({"enabled": true})).data(200);
    let yen = amount(&till, &issue(&till, "jpy-boa", "JPY", None));
    assert_eq!((&yen["exchange_rate"], &yen["gross_all"]), (&json!(0.5431), &json!(154.78)));

    // The rate used is stored with the invoice, never recomputed.
    till.server.delete("/api/v1/exchange-rates/manual/EUR", t).data(200);
    pages.set_page("boa", &RatePages::saved("boa").replace("97.35", "120.00"));
    assert_eq!(till.server.get("/api/v1/exchange-rates", t).data(200)["rates"]["EUR"]["rate"], json!(120.0));
    let id = boa.data(201)["invoice"]["id"].as_i64().unwrap();
    let again =
        till.server.get(&format!("/api/v1/invoice/{id}/details"), t).data(200)["invoice"]["amount"].clone();
    assert_eq!(again, boa_amount);
    let listed = till.server.get("/api/v1/invoice", t).data(200)["items"].clone();
    let item = listed.as_array().unwrap().iter().find(|i| i["id"] == json!(id)).unwrap();
    assert_eq!(item["amount"]["exchange_rate"], json!(97.35));

    // A currency the owner switched off is refused, whatever rate comes with it.
    till.server.put_json("/api/v1/currencies/USD", t, &json!({"enabled": false})).data(200);
    issue(&till, "usd-off", "USD", Some(84.0)).assert_invalid("currency");
    let lek = amount(&till, &issue(&till, "lek", "ALL", None));
    assert!(lek.get("exchange_rate_source").is_none(), "{lek}");
}

#[test]
fn without_any_central_bank_rate_the_pos_is_asked_for_one() {
    let sim = SimServer::start();
    let pages = RatePages::start();
    pages.set_down(true);
    let till = open_till_with(&sim, |args| pages.configure(args));
    let t = Some(till.token.as_str());

    let refused = issue(&till, "eur-1", "EUR", None);
    refused.assert_invalid("exchange_rate");
    assert!(refused.body["errors"]["exchange_rate"][0].as_str().unwrap().contains("send exchange_rate"));
    assert_eq!(till.server.get("/api/v1/invoice", t).data(200)["items"], json!([]), "nothing was saved");

    let sent = amount(&till, &issue(&till, "eur-1", "EUR", Some(97.0)));
    assert_eq!((&sent["exchange_rate"], &sent["exchange_rate_source"]), (&json!(97.0), &json!("REQUEST")));
    till.server.put_json("/api/v1/exchange-rates/manual/EUR", t, &json!({"rate": 97.5})).data(200);
    let manual = amount(&till, &issue(&till, "eur-2", "EUR", None));
    assert_eq!((&manual["exchange_rate"], &manual["exchange_rate_source"]), (&json!(97.5), &json!("MANUAL")));
}
