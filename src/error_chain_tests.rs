//! The error chain (`arka_edge::error_chain`) over the shop's own layers: each named once, down to
//! SQLite's own code.

use crate::{error_chain, services, store};

fn failed_insert() -> rusqlite::Error {
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.execute_batch(
        "CREATE TABLE t (x INTEGER);
         CREATE TRIGGER no BEFORE INSERT ON t BEGIN SELECT RAISE(ABORT, 'the disk said no'); END;",
    )
    .unwrap();
    conn.execute("INSERT INTO t VALUES (1)", []).unwrap_err()
}

#[test]
fn every_layer_is_named_once_down_to_sqlites_own_code() {
    let e = services::Error::from(store::Error::from(failed_insert()));
    assert_eq!(e.to_string(), "the store failed: sqlite: the disk said no");
    assert_eq!(
        error_chain(&e).to_string(),
        "the store failed: sqlite: the disk said no: Error code 1811: constraint failed"
    );
}

#[test]
fn a_cause_its_error_does_not_quote_is_added() {
    let io = std::io::Error::other("disk full");
    let e = crate::StartError::CaFile { path: "/etc/ca.pem".into(), source: io };
    assert_eq!(error_chain(&e).to_string(), "CIS settings: /etc/ca.pem: disk full");
    let bare = services::Error::Broken("the in-flight set was poisoned");
    assert_eq!(error_chain(&bare).to_string(), "the in-flight set was poisoned");
}
