//! Clients: v1 flat and v2 structured views of one model, search, paging, the shared 10-second
//! interval, duplicates, tenant isolation and verification against the fiscal register.

use std::collections::HashSet;

use crate::common::*;
use arka::domain::client::{self, ClientPatch};
use arka::store::Store;
use serde_json::{Value, json};

/// A shop on a production-like server, with as many manager tokens as a story needs (a client's
/// update needs a manager): the client routes allow one call per 10 s per token, so each call
/// takes a fresh manager.
struct Shop {
    company_id: i64,
    owner: String,
}

fn open_shop(server: &TestServer, partner: &str, nuis: &str) -> Shop {
    let r = register_company(server, partner, nuis);
    Shop { company_id: r.company_id, owner: r.token }
}

fn store(server: &TestServer) -> Store {
    Store::open(&server.data_dir().join("arka.db")).expect("the store opens")
}

fn company_v2(name: &str, nuis: &str) -> Value {
    json!({
        "type": "company",
        "company": {"name": name, "category": "business", "id": {"type": "nuis", "value": nuis}},
        "address": {"line": "Rruga e Kavajës 112", "city": "Tiranë", "country": "ALB"},
        "contact": {"phone": "+355 69 123 4567", "email": "zyra@dardania.al"},
        "customer_number": "C-001",
    })
}

fn person_v2() -> Value {
    json!({
        "type": "person",
        "person": {
            "first_name": "Ana",
            "last_name": "Hoxha",
            "birthday": "1990-05-01",
            "id": {"type": "id", "value": "J90501123A"},
        },
        "address": {"line": "Rruga Myslym Shyri 5", "city": "Tiranë", "country": "ALB"},
        "contact": {"phone": "069 222 3333", "email": "ana@example.al"},
        "customer_number": "P-77",
    })
}

fn person_v1() -> Value {
    json!({
        "client_type": "PERSON",
        "first_name": "Blerina",
        "surname": "Gjoni",
        "birthday": "1985-11-28",
        "id_type": "PASSPORT",
        "id_num": "BA1234567",
        "nationality_code": "ALB",
        "nationality_id": 3,
        "telephone": "+355 68 000 1111",
        "email": "blerina@example.al",
        "address": "Rruga Durrësit 40",
        "city": "Durrës",
        "gender": "FEMALE",
    })
}

fn company_v1(nuis: &str) -> Value {
    json!({
        "client_type": "COMPANY",
        "company_name": "Ushqimore Dardania sh.p.k.",
        "company_type": "BUSINESS",
        "nipt": nuis,
        "telephone": "+355 4 222 333",
        "email": "info@dardania.al",
        "address": "Rruga e Kavajës 112",
        "city": "Tiranë",
        "country": "ALB",
        "customer_number": "D-9",
    })
}

/// The record without the fields a save is expected to change.
fn without_times(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("updated_at");
    }
    v
}

#[test]
fn v1_clients_are_created_listed_read_and_updated_in_the_flat_record() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");

    let reply = server.post_json("/api/v1/clients", Some(&shop.owner), &company_v1("k81234001a"));
    assert_eq!(object_keys(reply.data(201)), ["client"]);
    let client = reply.data(201)["client"].clone();
    let id = client["id"].as_i64().unwrap();
    assert_eq!(
        object_keys(&client),
        [
            "address",
            "birthday",
            "city",
            "client_type",
            "company_name",
            "company_type",
            "country",
            "created_at",
            "customer_number",
            "email",
            "first_name",
            "gender",
            "id",
            "id_num",
            "id_type",
            "name",
            "nationality_code",
            "nationality_id",
            "nipt",
            "surname",
            "telephone",
            "updated_at",
            "verified"
        ]
    );
    assert_eq!(client["name"], "Ushqimore Dardania sh.p.k.");
    assert_eq!(client["client_type"], "COMPANY");
    assert_eq!(client["company_type"], "BUSINESS");
    assert_eq!(client["nipt"], "K81234001A", "a NUIS is kept uppercase");
    assert_eq!(client["id_type"], "NUIS");
    assert_eq!(client["id_num"], Value::Null);
    assert_eq!(client["first_name"], Value::Null, "first_name is null for a company");
    assert_eq!(client["surname"], Value::Null);
    assert_eq!(client["verified"], false);
    assert!(client["created_at"].as_str().unwrap().ends_with('Z'), "ISO 8601 UTC: {client}");

    let details = server.get(&format!("/api/v1/clients/{id}/details"), Some(&shop.owner));
    assert_eq!(details.data(200)["client"], client);

    let token = manager(&server, shop.company_id);
    let updated = server.put_json(&format!("/api/v1/clients/{id}"), Some(&token), &json!({"city": "Durrës"}));
    let updated = updated.data(200)["client"].clone();
    assert_eq!(updated["city"], "Durrës");
    assert_eq!(updated["address"], "Rruga e Kavajës 112", "fields not sent are kept");
    assert_eq!(updated["nipt"], "K81234001A");

    let person = server.post_json("/api/v1/clients", Some(&manager(&server, shop.company_id)), &person_v1());
    let person = person.data(201)["client"].clone();
    assert_eq!(person["name"], "Blerina Gjoni", "name always holds the full name");
    assert_eq!(person["company_type"], Value::Null, "company_type is null for a person");
    assert_eq!(person["id_type"], "PASSPORT");
    assert_eq!(person["id_num"], "BA1234567");
    assert_eq!(person["nipt"], Value::Null);
    assert_eq!(person["gender"], "FEMALE");

    let list = server.get("/api/v1/clients", Some(&manager(&server, shop.company_id)));
    let data = list.data(200);
    assert_eq!(object_keys(data), ["items", "pagination"]);
    let ids: Vec<i64> = data["items"].as_array().unwrap().iter().map(|c| c["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [person["id"].as_i64().unwrap(), id], "newest first");
    assert_eq!(data["pagination"], json!({"records": 2, "total": 2, "limit": 20, "offset": 0}));
    assert_eq!(data["items"][1], updated);
}

#[test]
fn v2_clients_are_created_read_and_patched_in_the_structured_format() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");

    let reply = server.post_json("/api/v2/clients", Some(&shop.owner), &person_v2());
    let client = reply.data(201)["client"].clone();
    let id = client["id"].as_i64().unwrap();
    assert_eq!(
        object_keys(&client),
        [
            "address",
            "company",
            "contact",
            "created_at",
            "customer_number",
            "id",
            "person",
            "type",
            "updated_at",
            "verified"
        ]
    );
    assert_eq!(client["type"], "person");
    assert_eq!(client["company"], Value::Null);
    assert_eq!(
        client["person"],
        json!({"first_name": "Ana", "last_name": "Hoxha", "birthday": "1990-05-01",
               "id": {"type": "id", "value": "J90501123A"}})
    );
    assert_eq!(
        client["address"],
        json!({"line": "Rruga Myslym Shyri 5", "city": "Tiranë", "country": "ALB"})
    );
    assert_eq!(client["contact"], json!({"phone": "069 222 3333", "email": "ana@example.al"}));
    assert_eq!(client["customer_number"], "P-77");
    assert_eq!(client["verified"], false);

    let read = server.get(&format!("/api/v2/clients/{id}"), Some(&shop.owner));
    assert_eq!(read.data(200)["client"], client);

    // PATCH changes what it sends; a null object clears it; the rest stays.
    let token = manager(&server, shop.company_id);
    let patched = server.patch_json(
        &format!("/api/v2/clients/{id}"),
        Some(&token),
        &json!({"type": "person", "contact": {"email": "ana.hoxha@example.al"}, "address": null}),
    );
    let patched = patched.data(200)["client"].clone();
    assert_eq!(patched["contact"], json!({"phone": "069 222 3333", "email": "ana.hoxha@example.al"}));
    assert_eq!(patched["address"], json!({"line": null, "city": null, "country": null}), "never null itself");
    assert_eq!(patched["person"], client["person"]);

    // A birthday sent as a date-time keeps its date.
    let token = manager(&server, shop.company_id);
    let patched = server.patch_json(
        &format!("/api/v2/clients/{id}"),
        Some(&token),
        &json!({"person": {"birthday": "1990-05-02T00:00:00+02:00"}}),
    );
    assert_eq!(patched.data(200)["client"]["person"]["birthday"], "1990-05-02");

    // GET /api/v2/clients answers in the flat v1 format.
    let list = server.get("/api/v2/clients", Some(&manager(&server, shop.company_id)));
    let item = &list.data(200)["items"][0];
    assert_eq!(item["id"], id);
    assert_eq!(item["client_type"], "PERSON");
    assert_eq!(item["first_name"], "Ana");
    assert_eq!(item["surname"], "Hoxha");
    assert_eq!(item["id_type"], "ID");
    assert_eq!(item["telephone"], "069 222 3333");
}

#[test]
fn a_client_goes_from_v1_through_v2_and_back_without_loss() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");

    for body in [person_v1(), company_v1("K81234001A")] {
        let made = server.post_json("/api/v1/clients", Some(&manager(&server, shop.company_id)), &body);
        let v1 = made.data(201)["client"].clone();
        let id = v1["id"].as_i64().unwrap();

        // Read through v2, send that body back through v2, read through v1 again.
        let v2 = server.get(&format!("/api/v2/clients/{id}"), Some(&shop.owner)).data(200)["client"].clone();
        let mut body = v2.clone();
        for key in ["id", "verified", "created_at", "updated_at"] {
            body.as_object_mut().unwrap().remove(key);
        }
        let patched = server.patch_json(
            &format!("/api/v2/clients/{id}"),
            Some(&manager(&server, shop.company_id)),
            &body,
        );
        assert_eq!(without_times(&patched.data(200)["client"]), without_times(&v2));
        let back = server.get(&format!("/api/v1/clients/{id}/details"), Some(&shop.owner));
        assert_eq!(without_times(&back.data(200)["client"]), without_times(&v1), "v1-only fields survive v2");

        // And the flat record sent back through v1 changes nothing either.
        let put =
            server.put_json(&format!("/api/v1/clients/{id}"), Some(&manager(&server, shop.company_id)), &v1);
        assert_eq!(without_times(&put.data(200)["client"]), without_times(&v1));
        let again = server.get(&format!("/api/v2/clients/{id}"), Some(&shop.owner));
        assert_eq!(without_times(&again.data(200)["client"]), without_times(&v2));
    }

    // A client made through v2 reads through v1 with the same values, uppercase.
    let made = server.post_json(
        "/api/v2/clients",
        Some(&manager(&server, shop.company_id)),
        &company_v2("Çajupi", "K51234006F"),
    );
    let id = made.data(201)["client"]["id"].as_i64().unwrap();
    let flat =
        server.get(&format!("/api/v1/clients/{id}/details"), Some(&shop.owner)).data(200)["client"].clone();
    assert_eq!(flat["client_type"], "COMPANY");
    assert_eq!(flat["company_name"], "Çajupi");
    assert_eq!(flat["company_type"], "BUSINESS");
    assert_eq!(flat["nipt"], "K51234006F");
    assert_eq!(flat["customer_number"], "C-001");
    assert_eq!(flat["country"], "ALB");
}

#[test]
fn a_type_change_is_refused_in_each_views_envelope() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let made = server.post_json("/api/v2/clients", Some(&shop.owner), &company_v2("Dardania", "K81234001A"));
    let id = made.data(201)["client"]["id"].as_i64().unwrap();
    let company = &made.data(201)["client"]["company"];
    assert_eq!(object_keys(company), ["category", "id", "name"]);
    assert_eq!(company["id"], json!({"type": "nuis", "value": "K81234001A"}));
    assert_eq!(made.data(201)["client"]["person"], Value::Null);
    assert_eq!(object_keys(&made.data(201)["client"]["contact"]), ["email", "phone"]);

    let v2 = server.patch_json(
        &format!("/api/v2/clients/{id}"),
        Some(&manager(&server, shop.company_id)),
        &person_v2(),
    );
    v2.assert_error(422);
    assert!(v2.body["message"].as_str().unwrap().contains("type"), "{}", v2.text);

    let v1 = server.put_json(
        &format!("/api/v1/clients/{id}"),
        Some(&manager(&server, shop.company_id)),
        &json!({"client_type": "PERSON"}),
    );
    v1.assert_invalid("client_type");

    // The same type is no change.
    let same = server.patch_json(
        &format!("/api/v2/clients/{id}"),
        Some(&manager(&server, shop.company_id)),
        &json!({"type": "company", "customer_number": "C-002"}),
    );
    assert_eq!(same.data(200)["client"]["customer_number"], "C-002");
}

/// Sets `path` (dotted) in a JSON object, or removes it when `value` is None.
fn with(mut body: Value, path: &str, value: Option<Value>) -> Value {
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop().unwrap();
    let mut at = &mut body;
    for p in parts {
        at = &mut at[p];
    }
    match value {
        Some(v) => at[last] = v,
        None => {
            at.as_object_mut().unwrap().remove(last);
        }
    }
    body
}

#[test]
fn each_v2_body_rule_names_its_field() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let long = |n: usize| Some(json!("x".repeat(n)));
    let company = || company_v2("Dardania", "K81234001A");
    #[rustfmt::skip]
    let cases: Vec<(Value, &str)> = vec![
        (with(company(), "type", None), "type"),
        (with(company(), "type", Some(json!("shop"))), "type"),
        (with(company(), "company", None), "company"),
        (with(company(), "company.name", None), "company.name"),
        (with(company(), "company.name", long(256)), "company.name"),
        (with(company(), "company.category", Some(json!("ngo"))), "company.category"),
        (with(company(), "company.id", None), "company.id"),
        (with(company(), "company.id.type", Some(json!("passport"))), "company.id.type"),
        (with(company(), "company.id", Some(json!({"type": "vat", "value": "x".repeat(21)}))), "company.id.value"),
        (with(company(), "company.id.value", Some(json!("12345"))), "company.id.value"),
        (with(person_v2(), "person", None), "person"),
        (with(person_v2(), "person.first_name", None), "person.first_name"),
        (with(person_v2(), "person.first_name", long(256)), "person.first_name"),
        (with(person_v2(), "person.last_name", None), "person.last_name"),
        (with(person_v2(), "person.last_name", long(256)), "person.last_name"),
        (with(person_v2(), "person.birthday", Some(json!("01/05/1990"))), "person.birthday"),
        (with(person_v2(), "person.id", None), "person.id"),
        (with(person_v2(), "person.id.type", Some(json!("nuis"))), "person.id.type"),
        (with(person_v2(), "person.id.value", long(256)), "person.id.value"),
        (with(company(), "address.line", long(256)), "address.line"),
        (with(company(), "address.city", long(51)), "address.city"),
        (with(company(), "address.country", Some(json!("AL"))), "address.country"),
        (with(company(), "address.country", Some(json!("ALBA"))), "address.country"),
        (with(company(), "address.country", Some(json!("A1B"))), "address.country"),
        (with(company(), "address", Some(json!("Tiranë"))), "address"),
        (with(company(), "contact.phone", long(256)), "contact.phone"),
        (with(company(), "contact.email", Some(json!("not-an-email"))), "contact.email"),
        (with(company(), "contact.email", Some(json!(format!("{}@shop.al", "a".repeat(250))))), "contact.email"),
        (with(company(), "customer_number", long(31)), "customer_number"),
    ];
    for (body, field) in cases {
        let reply = server.post_json("/api/v2/clients", Some(&manager(&server, shop.company_id)), &body);
        reply.assert_invalid(field);
        assert_eq!(reply.invalid_fields(), [field], "one failing field at a time: {}", reply.text);
    }

    // Nullable parts may be null, and the limits themselves pass.
    #[rustfmt::skip]
    let fine = [
        with(with(with(company(), "address", Some(Value::Null)), "contact", Some(Value::Null)), "company.category", Some(Value::Null)),
        with(with(person_v2(), "person.birthday", Some(Value::Null)), "customer_number", Some(Value::Null)),
        with(with(company_v2("Dardania", "K51234006F"), "company.name", long(255)), "customer_number", long(30)),
        with(with(company(), "company.id", Some(json!({"type": "tax", "value": null}))), "address.city", long(50)),
    ];
    for body in fine {
        let reply = server.post_json("/api/v2/clients", Some(&manager(&server, shop.company_id)), &body);
        reply.data(201);
    }
}

#[test]
fn each_v1_body_rule_names_its_field() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let long = |n: usize| Some(json!("x".repeat(n)));
    let company = || company_v1("K81234001A");
    #[rustfmt::skip]
    let cases: Vec<(Value, &str)> = vec![
        (with(company(), "client_type", None), "client_type"),
        (with(company(), "client_type", Some(json!("SHOP"))), "client_type"),
        (with(company(), "company_name", None), "company_name"),
        (with(company(), "company_name", long(256)), "company_name"),
        (with(company(), "company_type", Some(json!("NGO"))), "company_type"),
        (with(company(), "nipt", Some(json!("123"))), "nipt"),
        (with(company(), "id_type", Some(json!("PASSPORT"))), "id_type"),
        (with(person_v1(), "first_name", None), "first_name"),
        (with(person_v1(), "surname", None), "surname"),
        (with(person_v1(), "birthday", Some(json!("28.11.1985"))), "birthday"),
        (with(person_v1(), "gender", Some(json!("X"))), "gender"),
        (with(person_v1(), "id_num", long(256)), "id_num"),
        (with(person_v1(), "nationality_code", Some(json!("ALBANIA"))), "nationality_code"),
        (with(person_v1(), "nationality_id", Some(json!("three"))), "nationality_id"),
        (with(person_v1(), "telephone", long(256)), "telephone"),
        (with(person_v1(), "email", Some(json!("blerina@"))), "email"),
        (with(person_v1(), "address", long(256)), "address"),
        (with(person_v1(), "city", long(51)), "city"),
        (with(person_v1(), "country", Some(json!("AL"))), "country"),
        (with(person_v1(), "customer_number", long(31)), "customer_number"),
    ];
    for (body, field) in cases {
        let reply = server.post_json("/api/v1/clients", Some(&manager(&server, shop.company_id)), &body);
        reply.assert_invalid(field);
        assert_eq!(reply.invalid_fields(), [field], "one failing field at a time: {}", reply.text);
    }

    // v1's `name` stands in for the name fields.
    let by_name = json!({"client_type": "PERSON", "name": "Arben Leka"});
    let reply = server.post_json("/api/v1/clients", Some(&manager(&server, shop.company_id)), &by_name);
    let client = reply.data(201)["client"].clone();
    assert_eq!((client["first_name"].clone(), client["surname"].clone()), (json!("Arben"), json!("Leka")));
    assert_eq!(client["id_type"], "ID");
}

#[test]
fn a_second_client_with_the_same_identifier_is_409() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let other = open_shop(&server, &partner, "M01234567N");
    let post = |version: &str, company_id: i64, body: &Value| {
        server.post_json(&format!("/api/{version}/clients"), Some(&manager(&server, company_id)), body)
    };

    let first = post("v1", shop.company_id, &company_v1("K81234001A"));
    let first_id = first.data(201)["client"]["id"].as_i64().unwrap();
    post("v2", shop.company_id, &company_v2("Another name", "k81234001a")).assert_error(409);
    post("v1", shop.company_id, &company_v1("K81234001A")).assert_error(409);

    // The same value under another identifier type, or in another company, is another client.
    let vat = with(company_v2("Dardania", "K81234001A"), "company.id.type", Some(json!("vat")));
    post("v2", shop.company_id, &vat).data(201);
    post("v1", other.company_id, &company_v1("K81234001A")).data(201);

    // Clients without an identifier value may repeat.
    let no_id = json!({"client_type": "COMPANY", "company_name": "Pa NIPT"});
    post("v1", shop.company_id, &no_id).data(201);
    post("v1", shop.company_id, &no_id).data(201);

    // An update to a taken identifier is 409 too, and changes nothing.
    let second = post("v1", shop.company_id, &company_v1("K51234006F"));
    let second_id = second.data(201)["client"]["id"].as_i64().unwrap();
    let clash = server.put_json(
        &format!("/api/v1/clients/{second_id}"),
        Some(&manager(&server, shop.company_id)),
        &json!({"nipt": "K81234001A"}),
    );
    clash.assert_error(409);
    let read = server.get(&format!("/api/v1/clients/{second_id}/details"), Some(&shop.owner));
    assert_eq!(read.data(200)["client"]["nipt"], "K51234006F");
    assert_ne!(first_id, second_id);
}

#[test]
fn another_companys_clients_are_404_and_never_listed() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let mine = open_shop(&server, &partner, "L41323036D");
    let theirs = open_shop(&server, &partner, "M01234567N");

    let made = server.post_json("/api/v2/clients", Some(&theirs.owner), &company_v2("Sekret", "K81234001A"));
    let id = made.data(201)["client"]["id"].as_i64().unwrap();

    server.get(&format!("/api/v2/clients/{id}"), Some(&mine.owner)).assert_error(404);
    server.get(&format!("/api/v1/clients/{id}/details"), Some(&mine.owner)).assert_error(404);
    server
        .patch_json(
            &format!("/api/v2/clients/{id}"),
            Some(&manager(&server, mine.company_id)),
            &json!({"customer_number": "x"}),
        )
        .assert_error(404);
    server
        .put_json(
            &format!("/api/v1/clients/{id}"),
            Some(&manager(&server, mine.company_id)),
            &json!({"city": "x"}),
        )
        .assert_error(404);
    server.get("/api/v2/clients/999999", Some(&mine.owner)).assert_error(404);
    server.get("/api/v2/clients/abc", Some(&mine.owner)).assert_error(404);

    for path in ["/api/v1/clients", "/api/v2/clients?query=sekret"] {
        let list = server.get(path, Some(&manager(&server, mine.company_id)));
        let data = list.data(200);
        assert_eq!(data["items"], json!([]), "items is empty when nothing matches");
        assert_eq!(data["pagination"]["total"], 0);
    }
    // Their own list still has it, unchanged.
    let theirs_list = server.get("/api/v1/clients", Some(&manager(&server, theirs.company_id)));
    assert_eq!(theirs_list.data(200)["items"][0]["customer_number"], "C-001");
}

#[test]
fn every_client_route_needs_a_token() {
    let server = TestServer::start();
    for path in ["/api/v1/clients", "/api/v1/clients/1/details", "/api/v2/clients", "/api/v2/clients/1"] {
        server.get(path, None).assert_unauthenticated();
    }
    server.post_json("/api/v1/clients", None, &company_v1("K81234001A")).assert_unauthenticated();
    server.post_json("/api/v2/clients", None, &person_v2()).assert_unauthenticated();
    server.put_json("/api/v1/clients/1", None, &json!({})).assert_unauthenticated();
    server.patch_json("/api/v2/clients/1", None, &json!({})).assert_unauthenticated();
}

#[test]
fn query_matches_every_named_field_partially_and_with_albanian_letters() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let post = |body: &Value| {
        let reply = server.post_json("/api/v2/clients", Some(&manager(&server, shop.company_id)), body);
        reply.data(201)["client"]["id"].as_i64().unwrap()
    };
    let cajupi = post(&company_v2("Çajupi Ëndërr sh.p.k.", "K81234001A"));
    let person = post(&with(
        with(person_v2(), "person.last_name", Some(json!("Çela"))),
        "contact.email",
        Some(json!("ana.cela@posta.al")),
    ));
    let plain = post(&json!({
        "type": "company",
        "company": {"name": "Bar Kafe 100%_Fresh", "id": {"type": "tax", "value": "TX-889"}},
        "customer_number": "K-4411",
    }));

    let find = |query: &str| -> Vec<i64> {
        let path = format!("/api/v1/clients?query={}", urlencode(query));
        let reply = server.get(&path, Some(&manager(&server, shop.company_id)));
        let data = reply.data(200);
        let ids: Vec<i64> =
            data["items"].as_array().unwrap().iter().map(|c| c["id"].as_i64().unwrap()).collect();
        assert_eq!(data["pagination"]["total"], json!(ids.len()), "total counts the matches");
        ids
    };
    assert_eq!(find("çaj"), [cajupi], "lowercase ç");
    assert_eq!(find("ËNDËR"), [cajupi], "uppercase Ë matches ë");
    assert_eq!(find("ÇELA"), [person], "last name");
    assert_eq!(find("ana"), [person], "first name (and e-mail)");
    assert_eq!(find("ana hoxha"), Vec::<i64>::new(), "the last name changed to Çela");
    assert_eq!(find("Ana Çela"), [person], "the full name");
    assert_eq!(find("k8123"), [cajupi], "NIPT");
    assert_eq!(find("j90501"), [person], "document number");
    assert_eq!(find("posta.al"), [person], "e-mail");
    assert_eq!(find("0692223333"), [person], "phone without its spaces");
    assert_eq!(find("123 4567"), [cajupi], "phone as written");
    assert_eq!(find("k-44"), [plain], "client number");
    assert_eq!(find("100%_"), [plain], "LIKE wildcards are matched literally");
    assert_eq!(find("%"), [plain]);
    assert_eq!(find("zzz"), Vec::<i64>::new());
    assert_eq!(find("  "), [plain, person, cajupi], "a blank query matches everything, newest first");
}

/// Percent-encodes a query value (every byte outside the unreserved characters).
fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn a_walk_over_250_clients_sees_each_once_newest_first() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let other = open_shop(&server, &partner, "M01234567N");

    // Bulk data straight through the store (the API allows one create per 10 s per token).
    let store = store(&server);
    store
        .write_blocking(|tx| -> arka::store::Result<_> {
            for n in 0..250 {
                for company_id in [shop.company_id, other.company_id] {
                    let patch = ClientPatch {
                        client_type: Some(Some("person".into())),
                        first_name: Some(Some(format!("Klient{n:03}"))),
                        last_name: Some(Some("Prova".into())),
                        ..Default::default()
                    };
                    arka::store::clients::insert(tx, company_id, &client::create(&patch).unwrap())?;
                }
            }
            Ok(())
        })
        .unwrap();

    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let path = format!("/api/v1/clients?limit=100&offset={offset}");
        let reply = server.get(&path, Some(&manager(&server, shop.company_id)));
        let data = reply.data(200);
        let total = data["pagination"]["total"].as_i64().unwrap();
        assert_eq!(total, 250);
        let items = data["items"].as_array().unwrap();
        assert_eq!(data["pagination"]["records"], json!(items.len()));
        assert_eq!(data["pagination"]["limit"], 100);
        assert_eq!(data["pagination"]["offset"], json!(offset));
        seen.extend(items.iter().map(|c| c["id"].as_i64().unwrap()));
        offset += 100;
        if offset >= total {
            break;
        }
    }
    assert_eq!(seen.len(), 250);
    assert_eq!(seen.iter().collect::<HashSet<_>>().len(), 250, "every id once");
    assert!(seen.windows(2).all(|w| w[0] > w[1]), "newest first by id");

    // A limit over 100 is lowered without error; the default is 20.
    let capped = server.get("/api/v2/clients?limit=1000", Some(&manager(&server, shop.company_id)));
    let data = capped.data(200);
    assert_eq!(data["pagination"]["limit"], 100);
    assert_eq!(data["items"].as_array().unwrap().len(), 100);
    let default = server.get("/api/v2/clients?offset=240", Some(&manager(&server, shop.company_id)));
    assert_eq!(
        default.data(200)["pagination"],
        json!({"records": 10, "total": 250, "limit": 20, "offset": 240})
    );

    for bad in ["limit=0", "limit=abc", "offset=-1"] {
        let reply = server.get(&format!("/api/v1/clients?{bad}"), Some(&manager(&server, shop.company_id)));
        reply.assert_invalid(bad.split('=').next().unwrap());
    }
}

#[test]
fn list_create_and_update_share_one_interval_per_token() {
    let server = TestServer::start();
    let partner = server.create_partner("desk");
    let shop = open_shop(&server, &partner, "L41323036D");
    let token = shop.owner.clone();

    let made = server.post_json("/api/v2/clients", Some(&token), &person_v2());
    let id = made.data(201)["client"]["id"].as_i64().unwrap();
    // Every other route of the interval is refused until it passes: 429 in the standard
    // envelope, without the general limiter's Retry-After.
    let refused = [
        server.get("/api/v1/clients", Some(&token)),
        server.get("/api/v2/clients", Some(&token)),
        server.post_json("/api/v1/clients", Some(&token), &person_v1()),
        server.post_json("/api/v2/clients", Some(&token), &company_v2("X", "K81234001A")),
        server.put_json(&format!("/api/v1/clients/{id}"), Some(&token), &json!({"city": "Fier"})),
        server.patch_json(&format!("/api/v2/clients/{id}"), Some(&token), &json!({"customer_number": "1"})),
    ];
    for reply in refused {
        reply.assert_error(429);
        assert_eq!(reply.header("retry-after"), None);
    }
    // Details are outside the interval, and another token has its own.
    server.get(&format!("/api/v2/clients/{id}"), Some(&token)).data(200);
    server.get(&format!("/api/v1/clients/{id}/details"), Some(&token)).data(200);
    server.get("/api/v1/clients", Some(&manager(&server, shop.company_id))).data(200);

    // The spec's 10 seconds pass.
    server.advance_clock(std::time::Duration::from_secs(10));
    server.get("/api/v2/clients", Some(&token)).data(200);
}

#[test]
fn a_nipt_confirmed_by_the_fiscal_register_marks_the_client_verified() {
    let server = TestServer::sandbox();
    let shop = register_sandbox(&server);
    let company_id = shop.company_id;
    let upload = server.post_multipart(
        "/api/v1/on-boarding/certificate",
        Some(&shop.token),
        &[
            Part::File("certificate_file", "any.p12", b"not really a certificate"),
            Part::Text("password", "x"),
        ],
    );
    upload.data(201);

    let made = server.post_json("/api/v2/clients", Some(&shop.token), &company_v2("Dardania", "K81234001A"));
    let id = made.data(201)["client"]["id"].as_i64().unwrap();
    assert_eq!(made.data(201)["client"]["verified"], false);
    let unconfirmed =
        server.post_json("/api/v1/clients", Some(&manager(&server, company_id)), &company_v1("K51234006F"));
    let unconfirmed = unconfirmed.data(201)["client"]["id"].as_i64().unwrap();

    let found = server.get("/api/v1/client/search?nipt=k81234001a", Some(&shop.token));
    assert_eq!(found.data(200)["name"], "Ushqimore Dardania sh.p.k.");
    assert_eq!(object_keys(found.data(200)), ["address", "city", "country", "name", "nipt", "verified"]);

    let read = server.get(&format!("/api/v2/clients/{id}"), Some(&shop.token));
    assert_eq!(read.data(200)["client"]["verified"], true);
    let other = server.get(&format!("/api/v1/clients/{unconfirmed}/details"), Some(&shop.token));
    assert_eq!(other.data(200)["client"]["verified"], false, "only the confirmed NIPT");

    // An update that keeps the identifier keeps the confirmation; a new identifier loses it.
    let kept = server.patch_json(
        &format!("/api/v2/clients/{id}"),
        Some(&manager(&server, company_id)),
        &json!({"customer_number": "C-9"}),
    );
    assert_eq!(kept.data(200)["client"]["verified"], true);
    let changed = server.put_json(
        &format!("/api/v1/clients/{id}"),
        Some(&manager(&server, company_id)),
        &json!({"nipt": "L41323036D"}),
    );
    assert_eq!(changed.data(200)["client"]["verified"], false);
}
