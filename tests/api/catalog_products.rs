//! Products and categories: the catalog a POS reads, the body rules, codes, the whole-catalog
//! list, the intervals (soft for reads, 429 for writes) and tenant isolation.

use crate::common::*;
use arka::store::Store;
use serde_json::{Value, json};

struct Shop {
    company_id: i64,
    owner: String,
}

fn open_shop(server: &TestServer, partner: &str, nuis: &str) -> Shop {
    let r = register_company(server, partner, nuis);
    Shop { company_id: r.company_id, owner: r.token }
}

fn espresso() -> Value {
    json!({"name": "Kafe espresso", "last_price": 120.5, "vat_rate": "20"})
}

fn category(server: &TestServer, shop: &Shop, name: &str, color: Option<&str>) -> Value {
    let reply = server.post_json(
        "/api/v1/product/categories",
        Some(&shop.owner),
        &json!({"name": name, "color": color}),
    );
    reply.data(201)["category"].clone()
}

#[test]
fn a_product_is_created_with_defaults_read_listed_and_updated() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let drinks = category(&server, &shop, "Pije", Some("#1a2b3c"));
    assert_eq!(drinks["color"], "#1A2B3C");

    let mut body = espresso();
    body["id_category"] = drinks["id"].clone();
    body["cost_price"] = json!("60.25");
    let reply = server.post_json("/api/v1/products", Some(&shop.owner), &body);
    assert_eq!(object_keys(reply.data(201)), ["product"]);
    let product = reply.data(201)["product"].clone();
    let id = product["id"].as_i64().unwrap();
    assert_eq!(
        object_keys(&product),
        [
            "category",
            "code",
            "cost_price",
            "created_at",
            "currency",
            "description",
            "id",
            "id_category",
            "last_price",
            "name",
            "service",
            "unit",
            "unit_code",
            "updated_at",
            "vat_exempt_type",
            "vat_rate"
        ]
    );
    assert!(product["code"].as_str().unwrap().starts_with('P'), "a code is generated: {product}");
    assert_eq!(product["description"], "Kafe espresso", "description defaults to name");
    assert_eq!(product["last_price"], json!(120.5), "money is a JSON number");
    assert_eq!(product["cost_price"], json!(60.25));
    assert_eq!(product["vat_rate"], "20");
    assert_eq!(product["currency"], "ALL");
    assert_eq!(product["service"], true);
    assert_eq!(product["unit_code"], "C62");
    assert_eq!(product["unit"], "copë");
    assert_eq!(product["vat_exempt_type"], Value::Null);
    assert_eq!(product["category"], json!({"id": drinks["id"], "name": "Pije", "color": "#1A2B3C"}));
    assert!(product["created_at"].as_str().unwrap().ends_with('Z'), "ISO 8601 UTC");

    let details = server.get(&format!("/api/v1/products/{id}/details"), Some(&shop.owner));
    assert_eq!(details.data(200)["product"], product);

    // Immediately in the list.
    let list = server.get("/api/v1/products", Some(&shop.owner));
    assert_eq!(list.status, 200);
    assert_eq!(list.body["status"], true);
    assert_eq!(object_keys(&list.body), ["data", "pagination", "status"]);
    assert_eq!(list.body["data"], json!([product.clone()]), "data is the plain array");
    assert_eq!(list.body["pagination"], json!({"records": 1, "total": 1, "limit": null, "offset": 0}));

    // PUT takes the same body; a price change keeps the rest. (Issued invoices keep their own
    // copies of lines; invoices arrive with the invoice issue, so that half is tested there.)
    let token = manager(&server, shop.company_id);
    let mut change = espresso();
    change["last_price"] = json!(130);
    let updated = server.put_json(&format!("/api/v1/products/{id}"), Some(&token), &change);
    let updated = updated.data(200)["product"].clone();
    assert_eq!(updated["last_price"], json!(130.0));
    assert_eq!(updated["code"], product["code"]);
    assert_eq!(updated["category"], product["category"]);
    assert_eq!(updated["cost_price"], json!(60.25));
    assert_eq!(updated["created_at"], product["created_at"]);

    // An exempt inventory article in euro, with a number for the rate.
    let token = manager(&server, shop.company_id);
    let export = json!({
        "code": "VERE-01", "name": "Verë e kuqe", "description": "Shishe 0.75 l", "last_price": "9.90",
        "vat_rate": 0, "vat_exempt_type": "EXPORT_OF_GOODS", "currency": "eur", "service": false,
        "unit_code": "XBX", "id_category": null,
    });
    let reply = server.post_json("/api/v1/products", Some(&token), &export);
    let wine = reply.data(201)["product"].clone();
    assert_eq!(wine["code"], "VERE-01");
    assert_eq!(wine["vat_rate"], "0");
    assert_eq!(wine["vat_exempt_type"], "EXPORT_OF_GOODS");
    assert_eq!(wine["currency"], "EUR");
    assert_eq!(wine["service"], false);
    assert_eq!(wine["unit"], "kuti");
    assert_eq!(wine["category"], Value::Null);
    assert_eq!(wine["last_price"], json!(9.9));
}

#[test]
fn each_product_rule_names_its_field() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let other = open_shop(&server, &partner, "M01234567N");
    let theirs = category(&server, &other, "Të tyret", None);
    let set = |field: &str, value: Value| {
        let mut b = espresso();
        b[field] = value;
        b
    };
    let unset = |field: &str| {
        let mut b = espresso();
        b.as_object_mut().unwrap().remove(field);
        b
    };
    let long = |n: usize| json!("x".repeat(n));
    let exempt_as = |exempt: &str| {
        let mut b = set("vat_rate", json!("0"));
        b["vat_exempt_type"] = json!(exempt);
        b
    };
    #[rustfmt::skip]
    let cases: Vec<(Value, &str)> = vec![
        (set("code", long(256)), "code"),
        (unset("name"), "name"),
        (set("name", long(256)), "name"),
        (set("name", json!("   ")), "name"),
        (set("description", long(256)), "description"),
        (unset("last_price"), "last_price"),
        (set("last_price", json!(-0.01)), "last_price"),
        (set("last_price", json!("shumë")), "last_price"),
        (set("last_price", json!(true)), "last_price"),
        (set("cost_price", json!(-5)), "cost_price"),
        (unset("vat_rate"), "vat_rate"),
        (set("vat_rate", json!("7")), "vat_rate"),
        (set("vat_rate", json!(18)), "vat_rate"),
        (set("currency", long(11)), "currency"),
        (set("service", json!("maybe")), "service"),
        (set("id_category", json!(999_999)), "id_category"),
        (set("id_category", theirs["id"].clone()), "id_category"),
        (set("id_category", json!("abc")), "id_category"),
        (set("vat_exempt_type", json!("TYPE_1")), "vat_exempt_type"),
        (exempt_as("TYPE_9"), "vat_exempt_type"),
        (set("unit_code", json!("kilo gram")), "unit_code"),
    ];
    for (body, field) in cases {
        let reply = server.post_json("/api/v1/products", Some(&manager(&server, shop.company_id)), &body);
        reply.assert_invalid(field);
        assert_eq!(reply.invalid_fields(), [field], "one failing field at a time: {}", reply.text);
    }

    // The edges pass: zero prices, the longest strings, each VAT rate and exemption.
    let mut fine = vec![
        set("last_price", json!(0)),
        set("name", long(255)),
        set("currency", long(10)),
        set("cost_price", json!(0)),
    ];
    for rate in ["0", "6", "10", "20"] {
        fine.push(set("vat_rate", json!(rate)));
    }
    for exempt in ["TYPE_1", "TYPE_2", "EXPORT_OF_GOODS", "TAX_FREE"] {
        fine.push(exempt_as(exempt));
    }
    for body in fine {
        let reply = server.post_json("/api/v1/products", Some(&manager(&server, shop.company_id)), &body);
        reply.data(201);
    }
}

#[test]
fn codes_are_unique_per_company_and_generated_when_absent() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let other = open_shop(&server, &partner, "M01234567N");
    let post = |company_id: i64, body: &Value| {
        server.post_json("/api/v1/products", Some(&manager(&server, company_id)), body)
    };

    let mut coded = espresso();
    coded["code"] = json!("KAFE");
    post(shop.company_id, &coded).data(201);
    post(shop.company_id, &coded).assert_error(409);
    post(other.company_id, &coded).data(201);

    // A caller may take the code that would have been generated next; generation moves on.
    let first = post(shop.company_id, &espresso()).data(201)["product"].clone();
    let n: i64 = first["code"].as_str().unwrap()[1..].parse().unwrap();
    let mut squatter = espresso();
    squatter["code"] = json!(format!("P{:06}", n + 1));
    post(shop.company_id, &squatter).data(201);
    let next = post(shop.company_id, &espresso()).data(201)["product"].clone();
    assert_ne!(next["code"], squatter["code"]);
    assert!(next["code"].as_str().unwrap().starts_with('P'));

    // An update to a taken code is 409 and changes nothing.
    let id = first["id"].as_i64().unwrap();
    let clash =
        server.put_json(&format!("/api/v1/products/{id}"), Some(&manager(&server, shop.company_id)), &coded);
    clash.assert_error(409);
    let read = server.get(&format!("/api/v1/products/{id}/details"), Some(&shop.owner));
    assert_eq!(read.data(200)["product"]["code"], first["code"]);
}

#[test]
fn the_list_pages_with_a_limit_up_to_500_or_returns_the_whole_catalog() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let store = Store::open(&server.data_dir().join("arka.db")).unwrap();
    store
        .write_blocking(|tx| -> arka::store::Result<_> {
            for n in 0..520 {
                let input = arka::domain::product::ProductInput {
                    name: Some(format!("Artikull {n}")),
                    last_price: Some("10".into()),
                    vat_rate: Some("20".into()),
                    ..Default::default()
                };
                let product = arka::domain::product::build(None, &input).unwrap();
                arka::store::products::insert_product(tx, shop.company_id, &product)?;
            }
            Ok(())
        })
        .unwrap();
    let list = |query: &str| {
        server.get(&format!("/api/v1/products{query}"), Some(&manager(&server, shop.company_id)))
    };

    let all = list("");
    let data = all.body["data"].as_array().unwrap();
    assert_eq!(data.len(), 520, "without limit, the whole catalog");
    assert_eq!(all.body["pagination"], json!({"records": 520, "total": 520, "limit": null, "offset": 0}));
    let ids: Vec<i64> = data.iter().map(|p| p["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "newest first");

    let capped = list("?limit=10000");
    assert_eq!(capped.body["pagination"], json!({"records": 500, "total": 520, "limit": 500, "offset": 0}));
    let last = list("?limit=500&offset=500");
    assert_eq!(last.body["pagination"], json!({"records": 20, "total": 520, "limit": 500, "offset": 500}));
    assert_eq!(last.body["data"][0]["id"].as_i64(), Some(ids[500]));
    let rest = list("?offset=515");
    assert_eq!(rest.body["pagination"], json!({"records": 5, "total": 520, "limit": null, "offset": 515}));
    list("?limit=0").assert_invalid("limit");
    list("?offset=-3").assert_invalid("offset");
}

#[test]
fn categories_are_created_listed_updated_and_unique_by_name() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let food = category(&server, &shop, "Ushqime", None);
    assert_eq!(object_keys(&food), ["color", "created_at", "id", "name", "updated_at"]);
    assert_eq!(food["color"], Value::Null);
    let drinks = category(&server, &shop, "Pije", Some("#0af"));
    assert_eq!(drinks["color"], "#00AAFF");

    let list = server.get("/api/v1/product/categories", Some(&shop.owner));
    assert_eq!(object_keys(list.data(200)), ["items"]);
    let names: Vec<&str> =
        list.data(200)["items"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Pije", "Ushqime"], "newest first");

    let id = food["id"].as_i64().unwrap();
    let renamed = server.put_json(
        &format!("/api/v1/product/categories/{id}"),
        Some(&shop.owner),
        &json!({"name": "Ushqime të freskëta", "color": "#112233"}),
    );
    let renamed = renamed.data(200)["category"].clone();
    assert_eq!(
        (renamed["name"].as_str(), renamed["color"].as_str()),
        (Some("Ushqime të freskëta"), Some("#112233"))
    );
    let kept = server.put_json(
        &format!("/api/v1/product/categories/{id}"),
        Some(&shop.owner),
        &json!({"name": "Ushqime"}),
    );
    assert_eq!(kept.data(200)["category"]["color"], "#112233", "color not sent is kept");

    let post = |body: Value| server.post_json("/api/v1/product/categories", Some(&shop.owner), &body);
    post(json!({"name": "pije"})).assert_error(409);
    server
        .put_json(&format!("/api/v1/product/categories/{id}"), Some(&shop.owner), &json!({"name": "Pije"}))
        .assert_error(409);
    post(json!({})).assert_invalid("name");
    post(json!({"name": "x".repeat(256)})).assert_invalid("name");
    post(json!({"name": "Ëmbëlsira", "color": "red"})).assert_invalid("color");
    post(json!({"name": "Ëmbëlsira", "color": "#12345G"})).assert_invalid("color");
    post(json!({"name": "Ëmbëlsira", "color": null})).data(201);
}

#[test]
fn reads_inside_the_interval_are_soft_failures_and_writes_are_429() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let token = shop.owner.clone();

    // GET /products and GET /product/categories share one interval (10 s), answered 200 status false.
    server.get("/api/v1/products", Some(&token)).data(200);
    for path in ["/api/v1/products", "/api/v1/product/categories"] {
        let soft = server.get(path, Some(&token));
        soft.assert_error(200);
    }
    // Writes have their own row in the spec's table: the first passes, the second is 429.
    let made = server.post_json("/api/v1/products", Some(&token), &espresso());
    let id = made.data(201)["product"]["id"].as_i64().unwrap();
    let again = server.post_json("/api/v1/products", Some(&token), &espresso());
    again.assert_error(429);
    assert_eq!(again.header("retry-after"), None);
    server.put_json(&format!("/api/v1/products/{id}"), Some(&token), &espresso()).assert_error(429);
    // Details and category writes are outside the intervals.
    server.get(&format!("/api/v1/products/{id}/details"), Some(&token)).data(200);
    server.post_json("/api/v1/product/categories", Some(&token), &json!({"name": "Pije"})).data(201);

    server.advance_clock(std::time::Duration::from_secs(10));
    server.get("/api/v1/product/categories", Some(&token)).data(200);
    server.put_json(&format!("/api/v1/products/{id}"), Some(&token), &espresso()).data(200);
}

#[test]
fn another_companys_products_and_categories_are_404_and_never_listed() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let mine = open_shop(&server, &partner, "L41323036D");
    let theirs = open_shop(&server, &partner, "M01234567N");
    let their_category = category(&server, &theirs, "Sekret", None);
    let made = server.post_json("/api/v1/products", Some(&theirs.owner), &espresso());
    let id = made.data(201)["product"]["id"].as_i64().unwrap();
    let category_id = their_category["id"].as_i64().unwrap();

    server.get(&format!("/api/v1/products/{id}/details"), Some(&mine.owner)).assert_error(404);
    server.put_json(&format!("/api/v1/products/{id}"), Some(&mine.owner), &espresso()).assert_error(404);
    server
        .put_json(
            &format!("/api/v1/product/categories/{category_id}"),
            Some(&mine.owner),
            &json!({"name": "Imja"}),
        )
        .assert_error(404);
    server.get("/api/v1/products/999999/details", Some(&mine.owner)).assert_error(404);

    let list = server.get("/api/v1/products", Some(&mine.owner));
    assert_eq!(list.body["data"], json!([]));
    assert_eq!(list.body["pagination"]["total"], 0);
    let categories = server.get("/api/v1/product/categories", Some(&manager(&server, mine.company_id)));
    assert_eq!(categories.data(200)["items"], json!([]));

    // The same category name in another company is fine.
    category(&server, &mine, "Sekret", None);
}

#[test]
fn every_product_route_needs_a_token() {
    let server = TestServer::start();
    for path in ["/api/v1/products", "/api/v1/products/1/details", "/api/v1/product/categories"] {
        server.get(path, None).assert_unauthenticated();
    }
    server.post_json("/api/v1/products", None, &espresso()).assert_unauthenticated();
    server.put_json("/api/v1/products/1", None, &espresso()).assert_unauthenticated();
    server.post_json("/api/v1/product/categories", None, &json!({"name": "x"})).assert_unauthenticated();
    server.put_json("/api/v1/product/categories/1", None, &json!({"name": "x"})).assert_unauthenticated();
}

/// A CSV file of products as the page uploads it: the body, `text/csv`.
fn import(server: &TestServer, token: &str, apply: bool, csv: &str) -> Reply {
    let path = format!("/api/v1/products/import?apply={apply}");
    server.post_raw(&path, Some(token), "text/csv", csv.as_bytes())
}

fn catalog(server: &TestServer, shop: &Shop) -> Vec<Value> {
    server.get("/api/v1/products", Some(&shop.owner)).data(200).as_array().unwrap().clone()
}

#[test]
fn a_csv_file_is_previewed_then_applied_in_one_go_and_a_bad_line_names_its_line_and_column() {
    let server = TestServer::start_with(|args| args.limits = "interval.products=1s".parse().unwrap());
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let mut body = espresso();
    body["code"] = json!("K1");
    server.post_json("/api/v1/products", Some(&shop.owner), &body).data(201);

    // A bad file: every bad line named by its line and column; nothing written, even asked to.
    let bad = "code;name;last_price;vat_rate\nK1;Kafe;130,00;20\nU1;Ujë;50;25\nB1;;80;6\n";
    for apply in [false, true] {
        let refused = import(&server, &shop.owner, apply, bad);
        assert_eq!(refused.invalid_fields(), ["line.3.vat_rate", "line.4.name"], "{}", refused.text);
        server.advance_clock(std::time::Duration::from_millis(1100));
        let listed = catalog(&server, &shop);
        assert_eq!((listed.len(), listed[0]["last_price"].clone()), (1, json!(120.5)), "nothing applied");
    }

    // The preview says what each line would do and writes nothing.
    let good = "code;name;last_price;vat_rate\nK1;Kafe;130,00;20\nU1;Ujë;50;6\nB1;Birrë;180;20%\n";
    let preview = import(&server, &shop.owner, false, good).data(200).clone();
    assert_eq!(object_keys(&preview), ["applied", "creates", "rows", "updates"]);
    assert_eq!(
        (preview["applied"].clone(), preview["creates"].clone(), preview["updates"].clone()),
        (json!(false), json!(2), json!(1))
    );
    assert_eq!(
        preview["rows"][0],
        json!({"line": 2, "action": "update", "id": 1, "code": "K1", "name": "Kafe", "last_price": 130.0, "vat_rate": "20"})
    );
    server.advance_clock(std::time::Duration::from_millis(1100));
    assert_eq!(catalog(&server, &shop).len(), 1, "a preview writes nothing");

    let applied = import(&server, &shop.owner, true, good).data(200).clone();
    assert_eq!((applied["applied"].clone(), applied["creates"].clone()), (json!(true), json!(2)));
    server.advance_clock(std::time::Duration::from_millis(1100));
    let listed = catalog(&server, &shop);
    assert_eq!(listed.len(), 3);
    let kafe = listed.iter().find(|p| p["code"] == "K1").unwrap();
    assert_eq!(
        (kafe["name"].clone(), kafe["last_price"].clone()),
        (json!("Kafe"), json!(130.0)),
        "the price changed"
    );

    // The owner's (or a manager's) only; a file that is not UTF-8 text; a bad `apply`.
    let clerk = cashier(&server, shop.company_id);
    import(&server, &clerk, false, good).assert_error(403);
    server
        .post_raw("/api/v1/products/import", Some(&shop.owner), "text/csv", b"code\xff")
        .assert_invalid("file");
    server
        .post_raw("/api/v1/products/import?apply=maybe", Some(&shop.owner), "text/csv", good.as_bytes())
        .assert_invalid("apply");
    import(&server, &shop.owner, false, "code,name\n").assert_invalid("line.1.last_price");
}

#[test]
fn an_import_refuses_the_control_characters_a_body_refuses_and_apply_is_true_or_false() {
    let server = TestServer::start_with(|args| args.limits = "interval.products=1s".parse().unwrap());
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");

    // What a JSON body may not carry, a file may not either: the product could not be sold.
    let bad = "code,name,last_price,vat_rate,description\nK2,a\u{0}b,10,20,\nK3,Kafe,10,20,a\u{7}\u{1b}b\nK\u{1}4,Ujë,5,6,\n";
    for apply in [false, true] {
        let refused = import(&server, &shop.owner, apply, bad);
        assert_eq!(
            refused.invalid_fields(),
            ["line.2.name", "line.3.description", "line.4.code"],
            "{}",
            refused.text
        );
        assert!(
            refused.body["errors"]["line.2.name"][0].as_str().unwrap().contains("U+0000"),
            "{}",
            refused.text
        );
    }
    // Tab, line feed and carriage return are text; U+FFFE is not.
    let fine = "code,name,last_price,vat_rate,description\nK2,Kafe\te madhe,10,20,\"two\r\nlines\"\n";
    import(&server, &shop.owner, false, fine).data(200);
    import(&server, &shop.owner, false, "code,name,last_price,vat_rate\nK5,a\u{FFFE},1,20\n")
        .assert_invalid("line.2.name");

    // `apply` is true or false, or absent (a preview); anything else is named, nothing written.
    for apply in ["1", "0", "", "TRUE", "yes", "true "] {
        let path = format!("/api/v1/products/import?apply={}", apply.replace(' ', "%20"));
        server.post_raw(&path, Some(&shop.owner), "text/csv", fine.as_bytes()).assert_invalid("apply");
    }
    server.advance_clock(std::time::Duration::from_millis(1100));
    assert!(catalog(&server, &shop).is_empty(), "nothing was written");
    server.post_raw("/api/v1/products/import", Some(&shop.owner), "text/csv", fine.as_bytes()).data(200);
    let applied = import(&server, &shop.owner, true, fine).data(200).clone();
    assert_eq!(applied["applied"], json!(true));
}
