//! The owner's screens after the wizard, part of the owner's story (`owner_browser`): the
//! products (added with a refusal beside its field, searched, a price changed, stock delivered,
//! a CSV file refused line by line, then previewed and applied) and the administration (the
//! cashier's password set, their token rotated with a new card, a backup taken, the
//! certificate's days left), every figure checked against the API's.

use crate::common::TestServer;
use crate::common::browser::Browser;
use crate::common::people::{OWNER_EMAIL, OWNER_PASSWORD};
use crate::owner_browser::{CASHIER_PASSWORD, Cashier, keys, screen};
use fantoccini::key::Key;
use serde_json::{Value, json};

/// The API's catalog, as the owner sees it.
fn catalog(server: &TestServer) -> Vec<Value> {
    let mut owner = crate::common::people::Browser::new(server);
    owner.sign_in(OWNER_EMAIL, OWNER_PASSWORD).data(200);
    owner.get("/api/v1/products").data(200).as_array().unwrap().clone()
}

pub(crate) async fn the_products(page: &Browser, server: &TestServer) {
    page.click("nav button[data-view=products]").await;
    page.find("#product-form-new").await;
    // No name: refused beside the field, in Albanian.
    page.type_into("#product-new-price", &format!("120{}", keys(Key::Enter))).await;
    let said = page.text_when("#product-new-name-error", |t| !t.is_empty()).await;
    assert_eq!(said, "Fusha «Emri» është e detyrueshme.");
    page.type_into("#product-new-code", "KAFE").await;
    page.type_into("#product-new-name", &format!("Kafe espresso{}", keys(Key::Enter))).await;
    page.text_when("#status", |t| t == "Produkti u shtua: KAFE").await;
    page.find("[data-edit=KAFE]").await;

    // A price change from the list, right after: the page's session is not paced like a POS.
    page.click("[data-edit=KAFE]").await;
    page.type_into("#product-edit-1-price", &format!("130,50{}", keys(Key::Enter))).await;
    page.text_when("[data-price=KAFE]", |t| t == "130,50").await;
    let listed = catalog(server);
    assert_eq!(listed[0]["last_price"], json!(130.5), "the API has the new price");

    // Stock: a delivery of 24 at the shop's unit.
    page.click("[data-stock=KAFE]").await;
    page.find("#stock-quantity").await;
    page.axe("products stock").await;
    page.type_into("#stock-quantity", "24").await;
    page.type_into("#stock-note", &format!("Furnizimi i parë{}", keys(Key::Enter))).await;
    page.text_when("#dialog-body table", |t| t.contains("24")).await;
    page.click("#dialog-close").await;

    import_a_file(page, server).await;
    // The search finds by code or name.
    page.type_into("#product-search", "ujë").await;
    let shown = page.text_when("#product-list", |t| !t.contains("KAFE")).await;
    assert!(shown.contains("Ujë") && !shown.contains("Birrë"), "{shown}");
    screen(page, "products").await;
    page.type_into("#product-search", "").await;
}

async fn import_a_file(page: &Browser, server: &TestServer) {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "code;name;last_price;vat_rate\nKAFE;Kafe espresso;140;20\nUJE;Ujë;50;25\n")
        .unwrap();
    page.find("#import-file").await.send_keys(&bad.display().to_string()).await.unwrap();
    page.click("#import-form button[type=submit]").await;
    let said = page.text_when("#import-errors", |t| !t.is_empty()).await;
    page.axe("products import refused").await;
    assert!(said.contains("Rreshti 3: TVSH duhet të jetë një nga: 0, 6, 10, 20."), "{said}");
    assert_eq!(catalog(server)[0]["last_price"], json!(130.5), "nothing of the file was saved");

    let good = dir.path().join("good.csv");
    std::fs::write(
        &good,
        "code,name,last_price,vat_rate\nKAFE,Kafe espresso,140,20\nUJE,Ujë,50,6\nBIRRE,Birrë,180,20\n",
    )
    .unwrap();
    page.find("#import-file").await.send_keys(&good.display().to_string()).await.unwrap();
    page.click("#import-form button[type=submit]").await;
    let summary = page.text_when("#import-summary", |t| !t.is_empty()).await;
    assert_eq!(summary, "Të reja: 2 · Të ndryshuara: 1");
    assert_eq!(catalog(server).len(), 1, "a preview saves nothing");
    page.click("#import-apply").await;
    page.text_when("#status", |t| t.starts_with("Produktet u importuan")).await;
    page.text_when("[data-price=BIRRE]", |t| t == "180,00").await;
    let listed = catalog(server);
    assert_eq!(listed.len(), 3);
    let kafe = listed.iter().find(|p| p["code"] == "KAFE").unwrap();
    assert_eq!(kafe["last_price"], json!(140.0));
}

pub(crate) async fn the_administration(page: &Browser, server: &TestServer, cashier: &mut Cashier<'_>) {
    page.click("nav button[data-view=admin]").await;
    // The cashier's password, set by the owner: a short one is refused beside the field.
    page.click("[data-password=\"besa@dyqani-ana.al\"]").await;
    page.type_into("#new-password", &format!("short{}", keys(Key::Enter))).await;
    page.text_when("#new-password-error", |t| t.contains("10")).await;
    page.type_into("#new-password", &format!("{CASHIER_PASSWORD}{}", keys(Key::Enter))).await;
    page.text_when("#status", |t| t == "Fjalëkalimi u vendos për Besa Kola").await;

    // A new token and card: the old token stops at once.
    page.click("[data-rotate=\"besa@dyqani-ana.al\"]").await;
    page.client.accept_alert().await.unwrap();
    let token = page.text_when("#pairing-token", |t| !t.is_empty() && t != cashier.token).await;
    server.get("/api/v1/session", Some(&cashier.token)).assert_unauthenticated();
    assert_eq!(server.get("/api/v1/session", Some(&token)).data(200)["user"]["name"], "Besa Kola");
    cashier.token = token;
    page.click("#dialog-close").await;

    // The certificate's days left, as the banner says; a backup taken now.
    assert_eq!(page.text_when("#cert-days", |t| !t.is_empty()).await, "20");
    page.click("#backup-now").await;
    page.text_when("#backup-made", |t| !t.is_empty()).await;
    let file = page.find("#backup-files [data-download]").await.attr("data-download").await.unwrap().unwrap();
    let file = file.as_str();
    // The file's name carries its time in UTC (the files sort by it); the page says it in Tirana
    // time, as it shows every time.
    let utc = chrono::NaiveDateTime::parse_from_str(&file[5..20], "%Y%m%d-%H%M%S").unwrap().and_utc();
    let tirana = utc.with_timezone(&chrono_tz::Europe::Tirane).format("%Y-%m-%d %H:%M:%S").to_string();
    assert_eq!(page.find("#backup-made-at").await.text().await.unwrap(), tirana, "{file}");
    let mut owner = crate::common::people::Browser::new(server);
    owner.sign_in(OWNER_EMAIL, OWNER_PASSWORD).data(200);
    let db = owner.get_bytes(&format!("/api/v1/owner/backup/{file}"));
    assert!(db.starts_with(b"SQLite format 3\0"), "the backup the page offers is the database");
    page.find(&format!("[data-download=\"{file}.key\"]")).await;
    screen(page, "admin").await;

    // The people as GET /api/v1/users lists them: role, the token's prefix and its last use.
    page.click("nav button[data-view=admin]").await;
    let users = owner.get("/api/v1/users").data(200)["items"].clone();
    for user in users.as_array().unwrap() {
        let email = user["email"].as_str().unwrap();
        let listed = user["token"]["prefix"].as_str().map_or("–".to_string(), |p| format!("{p}…"));
        let prefix = page.text_when(&format!("[data-prefix=\"{email}\"]"), |t| t == listed).await;
        assert_eq!(prefix, listed, "{email}'s token prefix");
    }
    let besa = users.as_array().unwrap().iter().find(|u| u["email"] == "besa@dyqani-ana.al").unwrap();
    assert_eq!(besa["role"], "cashier");
    assert!(
        cashier.token.starts_with(besa["token"]["prefix"].as_str().unwrap()),
        "the rotated token's prefix"
    );
    let last = &besa["lastUse"];
    assert_eq!(last["ip"], "127.0.0.1", "the session call above used the new token");
    let listed = format!("{} · 127.0.0.1", last["at"].as_str().unwrap());
    let used = page.text_when("[data-last-use=\"besa@dyqani-ana.al\"]", |t| t == listed).await;
    assert_eq!(used, listed, "the last use as the API lists it");
    if crate::owner_browser::form().0 == "desktop" {
        // At 1280 px the people's table fits its box: no button of theirs is out of sight.
        let sizes: Value = page
            .client
            .execute(
                "const box = document.getElementById('people'); return [box.scrollWidth, box.clientWidth];",
                vec![],
            )
            .await
            .unwrap();
        assert!(sizes[0].as_i64() <= sizes[1].as_i64(), "the users table fits its box at 1280 px: {sizes}");
    }
    the_roles_from_the_page(page, &owner).await;
}

/// The owner makes the cashier a manager and a cashier again from the list, as the API then says.
async fn the_roles_from_the_page(page: &Browser, owner: &crate::common::people::Browser<'_>) {
    let role_of_besa = || {
        owner.get("/api/v1/users").data(200)["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["email"] == "besa@dyqani-ana.al")
            .unwrap()["role"]
            .clone()
    };
    for (role, said) in [
        ("manager", "Roli u ndryshua për Besa Kola: Menaxher"),
        ("cashier", "Roli u ndryshua për Besa Kola: Arkëtar"),
    ] {
        page.find("[data-role-of=\"besa@dyqani-ana.al\"]").await.select_by_value(role).await.unwrap();
        page.text_when("#status", |t| t == said).await;
        assert_eq!(role_of_besa(), role, "the API has the page's choice");
    }
}

/// A shop of 5 000 products: the page shows them 50 at a time, a search keystroke redraws one
/// page (not the whole catalog: 100–140 ms a keystroke before, issue 42), and the pages and the
/// search's count are the catalog's. The time per keystroke is printed as a figure, not judged.
#[test]
fn five_thousand_products_are_shown_a_page_at_a_time() {
    let server = TestServer::start();
    let mut owner = crate::common::people::owner_from_the_box(&server);
    let mut csv = String::from("code,name,last_price,vat_rate\n");
    for n in 1..=5000 {
        csv.push_str(&format!("P{n:04},Produkt {n},{}.50,20\n", 100 + n % 900));
    }
    let applied = owner.post_bytes("/api/v1/products/import?apply=true", "text/csv", csv.as_bytes());
    assert_eq!(applied.data(200)["creates"], 5000, "{}", applied.text);
    let listed = owner.get("/api/v1/products").data(200).as_array().unwrap().clone();
    assert_eq!(listed.len(), 5000);
    let wanted = "produkt 12";
    let found = listed.iter().filter(|p| p["name"].as_str().unwrap().to_lowercase().contains(wanted)).count();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(async {
        let page = Browser::start(1280, 900).await;
        page.client.goto(&server.base_url()).await.unwrap();
        page.type_into("#signin-email", OWNER_EMAIL).await;
        page.type_into("#signin-password", &format!("{OWNER_PASSWORD}{}", keys(Key::Enter))).await;
        page.find("nav button[data-view=products]:not([hidden])").await;
        page.click("nav button[data-view=products]").await;
        page.text_when("#product-shown", |t| t == "1–50 / 5000").await;
        let rows = "return document.querySelectorAll('#product-list tbody tr').length";
        assert_eq!(page.client.execute(rows, vec![]).await.unwrap(), json!(50), "one page of the catalog");
        page.click("#product-next").await;
        page.text_when("#product-shown", |t| t == "51–100 / 5000").await;
        page.axe("products paged").await;
        page.type_into("#product-search", wanted).await;
        let shown = page.text_when("#product-shown", |t| t.ends_with(&format!(" / {found}"))).await;
        assert_eq!(shown, format!("1–{} / {found}", found.min(50)), "the search starts at its first page");
        assert_eq!(page.client.execute(rows, vec![]).await.unwrap(), json!(found.min(50)));
        // A keystroke's cost: the search typed anew, one character at a time, 20 times.
        let cost: Value = page
            .client
            .execute(
                "const search = document.getElementById('product-search');
                 const started = performance.now();
                 for (let i = 0; i < 20; i += 1) {
                   search.value = ['p', 'pr', 'pro', 'prod', 'produ'][i % 5];
                   search.dispatchEvent(new Event('input'));
                 }
                 return (performance.now() - started) / 20;",
                vec![],
            )
            .await
            .unwrap();
        eprintln!(
            "5 000 products, one search keystroke: {:.1} ms (drawing one page of 50)",
            cost.as_f64().unwrap()
        );
        page.stop().await;
    });
}
