//! The books after a trial, read from the server's database (read-only, beside the running
//! server) and from what the simulator registered: every acknowledged document there with the
//! number it was acknowledged with, each key issued once, numbers without gaps, every document
//! fiscalized and registered by the CIS exactly once.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde_json::Value;

use super::Error;
use super::pos::{Ack, Kind};
use super::table::Row;

/// What is wrong with the books; every list empty when all is well.
#[derive(Debug, Default)]
pub struct Findings {
    /// Acknowledged documents missing or under another number, and keys with no document.
    pub lost: Vec<String>,
    /// A key issued twice, a sale cancelled twice, an IIC registered twice.
    pub duplicated: Vec<String>,
    /// A numbering sequence that does not run 1, 2, 3, ...
    pub gaps: Vec<String>,
    /// Documents without their CIS code, or whose code the simulator does not hold.
    pub unfiscalized: Vec<String>,
}

impl Findings {
    /// Puts the counts and the words of these findings into `row`, after its own findings.
    pub fn fill(self, row: &mut Row) {
        row.lost += self.lost.len();
        row.duplicated += self.duplicated.len();
        row.gaps += self.gaps.len();
        row.findings
            .extend(self.lost.into_iter().chain(self.duplicated).chain(self.gaps).chain(self.unfiscalized));
    }

    pub fn merge(&mut self, other: Findings) {
        self.lost.extend(other.lost);
        self.duplicated.extend(other.duplicated);
        self.gaps.extend(other.gaps);
        self.unfiscalized.extend(other.unfiscalized);
    }
}

/// Documents counted in the books.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub invoices: i64,
    pub deposits: i64,
    pub wtns: i64,
    /// Documents the CIS refused for a fault of the request itself (a client fault): kept in
    /// the books with the reason, never fiscalized, as the protocol wants.
    pub refused: i64,
}

fn open(db: &Path) -> Result<Connection, Error> {
    Ok(Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)?)
}

fn number_of(conn: &Connection, ack: &Ack) -> Result<Option<Vec<String>>, Error> {
    let found = match ack.kind {
        Kind::Cash | Kind::NonCash | Kind::Cancel => conn
            .query_row("SELECT number FROM invoices WHERE id = ?1", [ack.id], |r| Ok(vec![r.get("number")?]))
            .optional()?,
        Kind::Deposit => conn
            .query_row(
                "SELECT cash_action_no, CAST(transaction_no AS TEXT) AS transaction_no FROM cash_actions WHERE id = ?1",
                [ack.id],
                |r| Ok(vec![r.get("cash_action_no")?, r.get("transaction_no")?]),
            )
            .optional()?,
        Kind::Wtn => conn
            .query_row("SELECT number FROM wtns WHERE id = ?1", [ack.id], |r| Ok(vec![r.get("number")?]))
            .optional()?,
    };
    Ok(found)
}

/// How many documents `key` of `kind` made: sales and notes by internalId, cancellations by
/// the corrective documents of the sale.
fn documents_of(conn: &Connection, kind: Kind, key: &str) -> Result<i64, Error> {
    let sql = match kind {
        Kind::Cash | Kind::NonCash => "SELECT COUNT(*) AS n FROM invoices WHERE internal_id = ?1",
        Kind::Cancel => {
            "SELECT COUNT(*) AS n FROM invoices WHERE original_invoice_id IN \
             (SELECT id FROM invoices WHERE internal_id = ?1)"
        }
        Kind::Wtn => "SELECT COUNT(*) AS n FROM wtns WHERE internal_id = ?1",
        Kind::Deposit => return Ok(1),
    };
    Ok(conn.query_row(sql, [key], |r| r.get("n"))?)
}

/// Sequences that do not run 1..n: `sql` yields `sequence`, `count`, `min`, `max` and `distinct_n`. A
/// number the CIS refused is held for its document's retry (`held_numbers`): issued and held
/// numbers together run without a gap.
fn gaps_in(conn: &Connection, sql: &str, findings: &mut Findings) -> Result<(), Error> {
    let mut statement = conn.prepare(sql)?;
    let rows = statement.query_map([], |r| {
        Ok((
            r.get::<_, String>("sequence")?,
            r.get::<_, i64>("count")?,
            r.get::<_, i64>("min")?,
            r.get::<_, i64>("max")?,
            r.get::<_, i64>("distinct_n")?,
        ))
    })?;
    for row in rows {
        let (sequence, count, min, max, distinct) = row?;
        if min != 1 || max != count || distinct != count {
            findings
                .gaps
                .push(format!("{sequence}: {count} numbers from {min} to {max}, {distinct} distinct"));
        }
    }
    Ok(())
}

/// Codes the simulator registered under `list`, keyed by `key` (iic, wtnic, ...), with how many
/// registrations each had.
fn registered_codes(
    registered: &Value,
    list: &str,
    key: &str,
    code: &str,
) -> HashMap<String, (String, usize)> {
    let mut codes: HashMap<String, (String, usize)> = HashMap::new();
    for record in registered[list].as_array().map(Vec::as_slice).unwrap_or_default() {
        let (Some(k), Some(c)) = (record[key].as_str(), record[code].as_str()) else { continue };
        let entry = codes.entry(k.to_string()).or_insert_with(|| (c.to_string(), 0));
        entry.1 += 1;
    }
    codes
}

/// Why the CIS refused document `id` of the queue's `kind`, when it did: its fault code.
fn refusal_of(conn: &Connection, kind: &str, id: i64) -> Result<Option<String>, Error> {
    Ok(conn
        .query_row(
            "SELECT COALESCE(fault_code, '') AS fault_code FROM fiscal_queue \
             WHERE document_kind = ?1 AND document_id = ?2 AND status = 'rejected'",
            rusqlite::params![kind, id],
            |r| r.get("fault_code"),
        )
        .optional()?)
}

/// A fault code that blames the CIS itself (its own 9xx codes): never a reason to refuse.
fn blames_the_cis(code: &str) -> bool {
    code.len() == 3 && code.starts_with('9') && code.bytes().all(|b| b.is_ascii_digit())
}

/// One table of documents checked against what the CIS registered.
struct Documents<'a> {
    /// `id`, `code` (the document's) and `cis_code` of every row.
    sql: &'a str,
    /// The queue's `document_kind` of these rows.
    queue_kind: &'a str,
    what: &'a str,
}

/// Each (id, document code, CIS code) of the database held by the simulator exactly once; a
/// document without a CIS code is fine only when the CIS refused the request itself. Returns
/// how many rows there are and how many the CIS refused.
fn against_the_cis(
    conn: &Connection,
    documents: &Documents<'_>,
    registered: &HashMap<String, (String, usize)>,
    findings: &mut Findings,
) -> Result<(i64, i64), Error> {
    let what = documents.what;
    let mut statement = conn.prepare(documents.sql)?;
    let rows = statement.query_map([], |r| {
        Ok((r.get::<_, i64>("id")?, r.get::<_, String>("code")?, r.get::<_, Option<String>>("cis_code")?))
    })?;
    let (mut count, mut refused) = (0, 0);
    for row in rows {
        let (id, code, cis_code) = row?;
        count += 1;
        match (cis_code, registered.get(&code)) {
            (None, _) => match refusal_of(conn, documents.queue_kind, id)? {
                Some(fault) if !blames_the_cis(&fault) => refused += 1,
                Some(fault) => {
                    findings.unfiscalized.push(format!("{what} {id} refused for the CIS's own fault {fault}"))
                }
                None => findings.unfiscalized.push(format!("{what} {id} has no CIS code")),
            },
            (Some(_), None) => {
                findings.unfiscalized.push(format!("{what} {id}: the CIS never registered {code}"))
            }
            (Some(ours), Some((theirs, _))) if &ours != theirs => {
                findings.unfiscalized.push(format!("{what} {id}: our code {ours}, the CIS's {theirs}"))
            }
            (Some(_), Some((_, times))) if *times > 1 => {
                findings.duplicated.push(format!("{what} {id}: {code} registered {times} times"))
            }
            _ => {}
        }
    }
    Ok((count, refused))
}

/// Checks the database at `db` against what POS apps were told (`acks`), the keys they
/// retried after getting no answer (`retried`), and the simulator's registry.
pub fn check(
    db: &Path,
    acks: &[Ack],
    retried: &[(Kind, String)],
    registered: &Value,
) -> Result<(Findings, Counts), Error> {
    let conn = open(db)?;
    let mut findings = Findings::default();
    for ack in acks {
        match number_of(&conn, ack)? {
            None => {
                findings.lost.push(format!("{} {} ({}) is not there", ack.kind.as_str(), ack.id, ack.number))
            }
            Some(numbers) if !numbers.contains(&ack.number) => findings.lost.push(format!(
                "{} {} was acknowledged as {}, is {numbers:?}",
                ack.kind.as_str(),
                ack.id,
                ack.number
            )),
            Some(_) => {}
        }
        let queue_kind = match ack.kind {
            Kind::Cash | Kind::NonCash | Kind::Cancel => "invoice",
            Kind::Deposit => "cash_action",
            Kind::Wtn => "wtn",
        };
        if let Some(fault) = refusal_of(&conn, queue_kind, ack.id)? {
            findings.lost.push(format!(
                "{} {} was acknowledged, then refused by the CIS ({fault})",
                ack.kind.as_str(),
                ack.id
            ));
        }
    }
    let keys = acks.iter().filter_map(|a| a.key.clone().map(|k| (a.kind, k))).chain(retried.iter().cloned());
    for (kind, key) in keys {
        match documents_of(&conn, kind, &key)? {
            1 => {}
            0 => findings.lost.push(format!("{} {key} made no document", kind.as_str())),
            n => findings.duplicated.push(format!("{} {key} made {n} documents", kind.as_str())),
        }
    }
    gaps_in(
        &conn,
        "SELECT sequence, COUNT(*) AS count, MIN(n) AS min, MAX(n) AS max, COUNT(DISTINCT n) AS distinct_n FROM ( \
           SELECT 'company ' || company_id || ' ' || kind || ' ' || COALESCE(tcr_code, '') || ' ' || year AS sequence, \
                  ord_num AS n FROM invoices \
           UNION ALL SELECT 'company ' || company_id || ' CASH ' || substr(sequence, 6) || ' ' || year, ord_num \
                  FROM held_numbers WHERE sequence LIKE 'cash:%') GROUP BY sequence",
        &mut findings,
    )?;
    gaps_in(
        &conn,
        "SELECT 'company ' || company_id || ' cash actions ' || tcr_code || ' ' || year AS sequence, \
         COUNT(*) AS count, MIN(transaction_no) AS min, MAX(transaction_no) AS max, \
         COUNT(DISTINCT transaction_no) AS distinct_n FROM cash_actions GROUP BY company_id, tcr_code, year",
        &mut findings,
    )?;
    gaps_in(
        &conn,
        "SELECT sequence, COUNT(*) AS count, MIN(n) AS min, MAX(n) AS max, COUNT(DISTINCT n) AS distinct_n FROM ( \
           SELECT 'company ' || company_id || ' WTNs of unit ' || business_unit_id || ' ' || year AS sequence, \
                  ord_num AS n FROM wtns \
           UNION ALL SELECT 'company ' || company_id || ' WTNs of unit ' || substr(sequence, 5) || ' ' || year, ord_num \
                  FROM held_numbers WHERE sequence LIKE 'wtn:%') GROUP BY sequence",
        &mut findings,
    )?;
    let invoices = registered_codes(registered, "invoices", "iic", "fic");
    let deposits = registered_codes(registered, "cash_deposits", "uuid", "fcdc");
    let wtns = registered_codes(registered, "wtns", "wtnic", "fwtnic");
    let invoices = against_the_cis(
        &conn,
        &Documents {
            sql: "SELECT id, iic AS code, fic AS cis_code FROM invoices",
            queue_kind: "invoice",
            what: "invoice",
        },
        &invoices,
        &mut findings,
    )?;
    let deposits = against_the_cis(
        &conn,
        &Documents {
            sql: "SELECT id, fiscal_uuid AS code, fiscal_fic AS cis_code FROM cash_actions",
            queue_kind: "cash_action",
            what: "cash action",
        },
        &deposits,
        &mut findings,
    )?;
    let wtns = against_the_cis(
        &conn,
        &Documents {
            sql: "SELECT id, wtnic AS code, fwtnic AS cis_code FROM wtns",
            queue_kind: "wtn",
            what: "WTN",
        },
        &wtns,
        &mut findings,
    )?;
    let counts = Counts {
        invoices: invoices.0,
        deposits: deposits.0,
        wtns: wtns.0,
        refused: invoices.1 + deposits.1 + wtns.1,
    };
    Ok((findings, counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_cis_own_9xx_codes_blame_it() {
        assert!(blames_the_cis("999"));
        assert!(blames_the_cis("900"));
        assert!(!blames_the_cis("11"));
        assert!(!blames_the_cis("9"));
        assert!(!blames_the_cis("9a9"));
        assert!(!blames_the_cis(""));
    }
}
