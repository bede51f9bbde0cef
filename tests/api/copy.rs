//! Issue 46: the shop's books off the box. `arka serve` keeps a copy of the database in a folder
//! on another disk and in an S3-compatible bucket (moto's server, a real one on loopback), seconds
//! behind, sealed before it leaves; `arka restore --from-copy` brings the shop back on a new box,
//! document by document and signature by signature as it was; the copy goes on through a cut
//! line, a killed server, a full disk and a restart, and catches up.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::common::s3::{ACCESS_KEY, BUCKET, Line, Moto, SECRET_KEY, SmallDisk};
use crate::common::sim::SimServer;
use crate::common::till::*;
use crate::common::*;

const WAIT: Duration = Duration::from_secs(90);

/// Where a story's copy goes: a folder, a bucket (at `s3`, the server's or a line's address).
struct Places {
    folder: Option<PathBuf>,
    s3: Option<String>,
}

/// Settings of a shop whose copy goes to `places`, read every second; its copy's key is made by
/// `arka copy key` in the data dir first and kept in `key`, as the owner writes it down.
fn copied(args: &mut arka::config::ServeArgs, places: &Places, key: &Arc<Mutex<String>>) {
    let data = args.data.data_dir.clone();
    std::fs::create_dir_all(&data).unwrap();
    let printed = arka_ok(&["copy", "key", "--data-dir", data.to_str().unwrap()]);
    *key.lock().unwrap() = typed_key(&printed);
    let c = &mut args.copy;
    c.copy_every = 1;
    c.places.copy_dir = places.folder.clone();
    if let Some(url) = &places.s3 {
        c.places.copy_s3_url = Some(url.clone());
        c.places.copy_s3_bucket = Some(BUCKET.into());
        c.places.copy_s3_access_key = Some(ACCESS_KEY.into());
        c.places.copy_s3_secret_key = Some(arka::config::Secret(SECRET_KEY.into()));
        c.places.copy_s3_timeout = 5;
    }
}

/// The key on the line `arka copy key` printed it on: 8 groups of 8 hexadecimal digits.
fn typed_key(printed: &str) -> String {
    printed
        .lines()
        .map(str::trim)
        .find(|l| l.len() == 71 && l.split('-').count() == 8)
        .unwrap_or_else(|| panic!("no key in {printed}"))
        .to_string()
}

fn copy_status(server: &TestServer, token: &str) -> Value {
    server.get("/api/v1/owner/backup", Some(token)).data(200)["copy"].clone()
}

fn place<'a>(copy: &'a Value, name: &str) -> &'a Value {
    copy["places"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["place"] == name)
        .unwrap_or_else(|| panic!("{name} in {copy}"))
}

/// Waits until every place holds a whole copy with every sale.
fn caught_up(server: &TestServer, token: &str) {
    eventually("the copy holds every sale at every place", WAIT, || {
        let copy = copy_status(server, token);
        copy["state"] == "running"
            && copy["places"]
                .as_array()
                .unwrap()
                .iter()
                .all(|p| p["restorable"] == true && p["upToDate"] == true)
    });
}

fn sell(server: &TestServer, token: &str, tag: &str, count: usize) {
    for i in 0..count {
        let reply =
            server.post_json("/api/v1/invoice/cash", Some(token), &coffee_and_water(&format!("{tag}-{i}")));
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
}

/// `arka restore --from-copy` of `place` (`--copy-dir DIR` or the bucket at `s3`) into a new
/// data dir; returns it.
fn restore_from(place: &Places, key: &str, at: Option<&str>) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    restore_into(place, key, at, &data);
    (dir, data)
}

/// `arka restore --from-copy` of `place` into the data dir `data`; what it printed.
fn restore_into(place: &Places, key: &str, at: Option<&str>, data: &Path) -> String {
    let mut args = vec!["restore".to_string(), "--from-copy".into(), "--copy-key".into(), key.into()];
    args.extend(["--data-dir".into(), data.display().to_string()]);
    if let Some(folder) = &place.folder {
        args.extend(["--copy-dir".into(), folder.display().to_string()]);
    }
    if let Some(url) = &place.s3 {
        args.extend(["--copy-s3-url".into(), url.clone(), "--copy-s3-bucket".into(), BUCKET.into()]);
        args.extend([
            "--copy-s3-access-key".into(),
            ACCESS_KEY.into(),
            "--copy-s3-secret-key".into(),
            SECRET_KEY.into(),
        ]);
    }
    if let Some(at) = at {
        args.extend(["--at".into(), at.into()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let printed = arka_ok(&args);
    assert!(printed.contains("restored"), "{printed}");
    printed
}

/// The TCRs of the database at `db` and whether each is retired.
fn tcrs_retired(db: &Path) -> Vec<(String, bool)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt =
        conn.prepare("SELECT tcr_code, retired_at IS NOT NULL FROM fiscal_devices ORDER BY id").unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

/// Every row of every table, as text, sorted, by table (the audit trail apart: a restore adds
/// its own entry after the original's).
fn books(db: &Path) -> BTreeMap<String, Vec<String>> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE).unwrap();
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    tables
        .into_iter()
        .map(|table| {
            // A restore retires every TCR (checked apart): the rest of each device is compared.
            let select = if table == "fiscal_devices" {
                "SELECT id, company_id, business_unit_id, name, tcr_int_id, tcr_code, business_unit_code, valid_from, valid_to, created_at FROM fiscal_devices".to_string()
            } else {
                format!("SELECT * FROM \"{table}\"")
            };
            let mut stmt = conn.prepare(&select).unwrap();
            let columns = stmt.column_count();
            let mut rows: Vec<String> = stmt
                .query_map([], |r| {
                    Ok((0..columns)
                        .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                        .collect::<Vec<_>>()
                        .join("|"))
                })
                .unwrap()
                .map(Result::unwrap)
                .collect();
            rows.sort();
            (table, rows)
        })
        .collect()
}

/// The restored database holds the original's books: every table's rows the same, the audit
/// trail the original's and the restore's own entry after it.
fn assert_same_books(original: &Path, restored: &Path) {
    let (mut a, mut b) = (books(original), books(restored));
    let (trail_a, trail_b) = (a.remove("audit").unwrap_or_default(), b.remove("audit").unwrap_or_default());
    assert_eq!(trail_b.len(), trail_a.len() + 1, "the restore adds its own audit entry");
    assert!(trail_a.iter().all(|row| trail_b.contains(row)));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (table, rows) in &a {
        assert_eq!(rows, &b[table], "table {table}");
    }
    assert!(a["invoices"].len() > 1);
}

/// Every kept request rebuilt as it was sent, signed (`arka queue requests --out`).
fn sent_requests(data_dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let out = tempfile::tempdir().unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_arka"))
        .args(["queue", "requests", "--out"])
        .arg(out.path())
        .arg("--data-dir")
        .arg(data_dir)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().into_string().unwrap(), std::fs::read(e.path()).unwrap())
        })
        .collect()
}

fn invoices(db: &Path) -> i64 {
    rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE)
        .unwrap()
        .query_row("SELECT COUNT(*) FROM invoices", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_shop_copied_to_a_folder_and_a_bucket_comes_back_on_a_new_box_document_by_document() {
    let sim = SimServer::start();
    let moto = Moto::start();
    let folder = tempfile::tempdir().unwrap();
    let places = Places { folder: Some(folder.path().join("copy")), s3: Some(moto.url()) };
    let key = Arc::new(Mutex::new(String::new()));
    let till = open_till_with(&sim, |args| copied(args, &places, &key));
    let key = key.lock().unwrap().clone();
    sell(&till.server, &till.token, "morning", 12);
    caught_up(&till.server, &till.token);
    let copy = copy_status(&till.server, &till.token);
    assert_eq!(copy["behind"], false, "{copy}");
    for name in ["folder", "s3"] {
        assert!(place(&copy, name)["lastSentAt"].is_string(), "{copy}");
    }
    let between = chrono::Utc::now().to_rfc3339();
    sell(&till.server, &till.token, "noon", 8);
    caught_up(&till.server, &till.token);
    // Nothing of the books is in clear in the bucket, the certificate's keys least of all.
    let names = moto.names("arka/");
    assert!(
        names.iter().any(|n| n.ends_with("/manifest")) && names.iter().any(|n| n.contains("/wal/")),
        "{names:?}"
    );
    for name in &names {
        let object = moto.get(name);
        assert!(object.starts_with(b"ARKACPY1"), "{name} is sealed");
        for clear in [&b"Kafe"[..], NUIS.as_bytes(), b"SQLite format 3", b"PRIVATE KEY"] {
            assert!(
                !contains_bytes(&object, clear),
                "{name} holds {:?} in clear",
                String::from_utf8_lossy(clear)
            );
        }
    }

    // A restore of each place, made and checked at the owner's asking (409 while the one made
    // after each new base still runs).
    eventually("the owner's verification is taken", WAIT, || {
        let asked = till.server.post_json(
            "/api/v1/owner/backup/copy/verify",
            Some(&till.token),
            &serde_json::json!({}),
        );
        assert!(matches!(asked.status, 202 | 409), "{}", asked.body);
        asked.status == 202
    });
    let mut last = Value::Null;
    let verified = |copy: &Value| {
        ["folder", "s3"].iter().all(|n| {
            place(copy, n)["verified"]["passed"] == true && place(copy, n)["verified"]["invoices"] == 20
        })
    };
    for _ in 0..900 {
        last = copy_status(&till.server, &till.token);
        if verified(&last) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(verified(&last), "a verified restore of both places with every sale: {last}");
    let health = till.server.get("/healthz", None);
    assert_eq!(health.body["copy"]["state"], "running", "{}", health.body);
    assert_eq!(health.body["copy"]["behind"], false);

    let kept = till.server.stop_and_keep();
    let original = kept.path().join("data");
    for (name, from) in [
        ("folder", Places { folder: places.folder.clone(), s3: None }),
        ("s3", Places { folder: None, s3: Some(moto.url()) }),
    ] {
        let (_dir, restored) = restore_from(&from, &key, None);
        assert_same_books(&original.join("arka.db"), &restored.join("arka.db"));
        // The lost box may have numbered on after the copy's last: no TCR of the copy issues again.
        assert_eq!(
            tcrs_retired(&restored.join("arka.db")),
            vec![(till.tcr_code.clone(), true)],
            "every TCR retired by the restore from the {name}"
        );
        assert_eq!(
            sent_requests(&restored),
            sent_requests(&original),
            "every signed request from the {name}"
        );
        assert_eq!(
            std::fs::read(restored.join("arka.key")).unwrap(),
            std::fs::read(original.join("arka.key")).unwrap(),
            "the key file came with the copy"
        );
    }
    // Back to a chosen time: the morning's sales only.
    let (_dir, morning) = restore_from(&Places { folder: None, s3: Some(moto.url()) }, &key, Some(&between));
    assert_eq!(invoices(&morning.join("arka.db")), 12);
    a_restore_refuses_a_data_dir_with_a_database_and_another_key(&places, &key, &morning, folder.path());

    the_copy_s_new_box_goes_on_on_a_new_tcr(&sim, &places, &key, &till.token);
}

/// Into a data dir that holds a database, a restore is refused and changes nothing; another key
/// opens nothing.
fn a_restore_refuses_a_data_dir_with_a_database_and_another_key(
    places: &Places,
    key: &str,
    morning: &Path,
    scratch: &Path,
) {
    let out = arka(&[
        "restore",
        "--from-copy",
        "--copy-key",
        key,
        "--copy-dir",
        places.folder.as_ref().unwrap().to_str().unwrap(),
        "--data-dir",
        morning.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("empty data dir"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(invoices(&morning.join("arka.db")), 12);
    // Another key opens nothing.
    let wrong = "0".repeat(64);
    let out = arka(&[
        "restore",
        "--from-copy",
        "--copy-key",
        &wrong,
        "--copy-dir",
        places.folder.as_ref().unwrap().to_str().unwrap(),
        "--data-dir",
        scratch.join("none").to_str().unwrap(),
    ]);
    assert!(!out.status.success(), "another key restores nothing");
    assert!(!scratch.join("none/arka.db").exists());
}

/// A new box from the copy goes on on a new TCR registered at the CIS (the lost box may have
/// issued after the copy's last number): its first receipt is 1 there.
fn the_copy_s_new_box_goes_on_on_a_new_tcr(sim: &SimServer, places: &Places, key: &str, token: &str) {
    let mut new_box = TestServer::start_with(|args| sim.configure(args));
    new_box.restart_after(|dir| {
        for made in ["arka.db", "arka.db-wal", "arka.db-shm", "arka.key"] {
            let _ = std::fs::remove_file(dir.join(made));
        }
        let printed = restore_into(&Places { folder: places.folder.clone(), s3: None }, key, None, dir);
        assert!(printed.contains("new TCR"), "{printed}");
    });
    eventually("the till on its new TCR", WAIT, || {
        let today = new_box.get("/api/v1/owner/today", Some(token)).data(200).clone();
        today["restored"]["retired_tcrs"][0]["continued_by"].is_string()
    });
    let sold = new_box.post_json("/api/v1/invoice/cash", Some(token), &coffee_and_water("after"));
    let next = sold.data(201).clone();
    assert_eq!(
        next["invoice"]["number"],
        serde_json::json!(format!("1/{}", chrono::Utc::now().format("%Y")))
    );
    assert_eq!(tcrs_retired(&new_box.data_dir().join("arka.db")).len(), 2, "the retired TCR and its new one");
}

#[test]
fn the_copy_goes_on_through_a_cut_line_a_restart_and_a_killed_server_and_catches_up() {
    let sim = SimServer::start();
    let mut moto = Moto::start();
    let line = Line::to(moto.port);
    let places = Places { folder: None, s3: Some(line.url()) };
    let key = Arc::new(Mutex::new(String::new()));
    let mut till = open_till_with(&sim, |args| copied(args, &places, &key));
    let key = key.lock().unwrap().clone();
    sell(&till.server, &till.token, "first", 5);
    caught_up(&till.server, &till.token);
    let manifests = |moto: &Moto| {
        moto.names("arka/").into_iter().filter(|n| n.ends_with("/manifest")).collect::<Vec<_>>()
    };
    let first = manifests(&moto);
    assert_eq!(first.len(), 1);

    // The line goes down: the shop sells as before, the copy says it cannot reach its place.
    line.cut();
    sell(&till.server, &till.token, "offline", 10);
    eventually("the copy says its place cannot be reached", WAIT, || {
        place(&copy_status(&till.server, &till.token), "s3")["failing"] == "unreachable"
    });
    let copy = copy_status(&till.server, &till.token);
    assert_eq!(copy["behind"], false, "seconds behind are not yet a banner: {copy}");
    till.server.advance_clock(Duration::from_secs(120));
    let copy = copy_status(&till.server, &till.token);
    assert_eq!(copy["behind"], true, "two minutes later the page shows the banner: {copy}");
    assert!(place(&copy, "s3")["lagSeconds"].as_i64().unwrap() >= 120, "{copy}");
    let health = till.server.get("/healthz", None);
    assert_eq!(health.body["copy"]["behind"], true, "{}", health.body);
    line.mend();
    caught_up(&till.server, &till.token);

    // A restart goes on with the same generation: no new base.
    till.server.restart();
    sell(&till.server, &till.token, "after-restart", 5);
    caught_up(&till.server, &till.token);
    assert_eq!(manifests(&moto), first, "the same generation goes on after a restart");

    // The bucket's server is killed and comes back empty (it kept everything in memory): the
    // copy finds its place lost it and sends a new one.
    moto.kill();
    sell(&till.server, &till.token, "server-down", 5);
    eventually("the copy says its place cannot be reached", WAIT, || {
        place(&copy_status(&till.server, &till.token), "s3")["failing"] == "unreachable"
    });
    moto = Moto::start_on(moto.port);
    sell(&till.server, &till.token, "server-back", 3);
    caught_up(&till.server, &till.token);
    let again = manifests(&moto);
    assert_eq!(again.len(), 1);
    assert_ne!(again, first, "a new generation");

    let kept = till.server.stop_and_keep();
    let original = kept.path().join("data");
    let (_dir, restored) = restore_from(&Places { folder: None, s3: Some(moto.url()) }, &key, None);
    assert_same_books(&original.join("arka.db"), &restored.join("arka.db"));
    assert_eq!(invoices(&restored.join("arka.db")), 28);
}

#[test]
fn a_full_copy_disk_holds_the_copy_back_never_a_sale_and_it_catches_up_once_there_is_room() {
    let sim = SimServer::start();
    let root = tempfile::tempdir().unwrap();
    let disk = SmallDisk::mount(root.path().join("disk"), 4 * 1024 * 1024);
    let filler = disk.path.join("filler");
    // The disk is full before the shop opens.
    let _ = std::fs::write(&filler, vec![0u8; 4 * 1024 * 1024]);
    let places = Places { folder: Some(disk.path.join("copy")), s3: None };
    let key = Arc::new(Mutex::new(String::new()));
    let till = open_till_with(&sim, |args| copied(args, &places, &key));
    let key = key.lock().unwrap().clone();
    sell(&till.server, &till.token, "full", 10);
    eventually("the copy says its disk is full", WAIT, || {
        place(&copy_status(&till.server, &till.token), "folder")["failing"] == "full"
    });
    let copy = copy_status(&till.server, &till.token);
    assert_eq!(place(&copy, "folder")["restorable"], false, "{copy}");
    assert_eq!(copy["behind"], true, "no whole copy yet: the banner shows");
    std::fs::remove_file(&filler).unwrap();
    sell(&till.server, &till.token, "room", 4);
    caught_up(&till.server, &till.token);
    let kept = till.server.stop_and_keep();
    let (_dir, restored) = restore_from(&places, &key, None);
    assert_same_books(&kept.path().join("data/arka.db"), &restored.join("arka.db"));
    drop(disk);
}

/// The owner's page, in a real browser: the copy's place with its age and its last verified
/// restore, and a banner while the copy is behind (here a folder that cannot be made: no whole
/// copy yet). In Albanian, axe-clean.
#[test]
fn the_owner_s_page_shows_the_copy_s_age_its_last_verified_restore_and_a_banner_when_it_is_behind() {
    use crate::common::browser::Browser;
    use crate::common::people::{OWNER_EMAIL, OWNER_PASSWORD, owner_from_the_box};
    use crate::owner_browser::keys;
    use fantoccini::key::Key;

    let folder = tempfile::tempdir().unwrap();
    let blocked = folder.path().join("a-file-not-a-folder");
    std::fs::write(&blocked, b"").unwrap();
    let key = Arc::new(Mutex::new(String::new()));
    let working = Places { folder: Some(folder.path().join("copy")), s3: None };
    let good = TestServer::start_with(|args| copied(args, &working, &key));
    let behind = TestServer::start_with(|args| {
        copied(args, &Places { folder: Some(blocked.clone()), s3: None }, &key)
    });
    for server in [&good, &behind] {
        owner_from_the_box(server);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.block_on(async {
        let page = Browser::start(1280, 900).await;
        for (server, up_to_date) in [(&good, true), (&behind, false)] {
            page.client.goto(&server.base_url()).await.unwrap();
            page.type_into("#signin-email", OWNER_EMAIL).await;
            page.type_into("#signin-password", &format!("{OWNER_PASSWORD}{}", keys(Key::Enter))).await;
            page.find("nav button[data-view=admin]").await;
            let mut shown = String::new();
            for _ in 0..120 {
                page.click("nav button[data-view=admin]").await;
                shown = page.text_when("#copy-folder", |t| !t.is_empty()).await;
                let ready = if up_to_date {
                    shown.contains("e përditësuar") && shown.contains("Rikthimi i fundit i verifikuar")
                } else {
                    shown.contains("ende pa një kopje të plotë")
                };
                if ready {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            if up_to_date {
                assert!(shown.starts_with("Dosja në diskun tjetër: e përditësuar"), "{shown}");
                assert!(shown.contains("Rikthimi i fundit i verifikuar"), "{shown}");
                assert!(
                    page.client.find(fantoccini::Locator::Css("#copy-behind")).await.is_err(),
                    "no banner"
                );
            } else {
                assert!(shown.contains("ende pa një kopje të plotë"), "{shown}");
                let banner = page.text_when("#copy-behind", |t| !t.is_empty()).await;
                assert!(banner.starts_with("Kopja jashtë kompjuterit ka mbetur prapa"), "{banner}");
            }
            page.axe(if up_to_date { "the copy up to date" } else { "the copy behind" }).await;
            page.click("#signout").await;
        }
        page.stop().await;
    });
}
