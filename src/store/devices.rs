//! Fiscal devices (TCRs) registered with the CIS.

use rusqlite::{Connection, OptionalExtension, Row, named_params};

use super::{Result, now_text};

#[derive(Debug, Clone)]
pub struct Device {
    pub id: i64,
    pub business_unit_id: i64,
    pub name: String,
    pub tcr_code: String,
    pub business_unit_code: String,
    pub valid_from: String,
    pub valid_to: Option<String>,
}

pub struct NewDevice<'a> {
    pub company_id: i64,
    pub business_unit_id: i64,
    pub name: &'a str,
    pub tcr_int_id: &'a str,
    pub tcr_code: &'a str,
    pub business_unit_code: &'a str,
    pub valid_from: &'a str,
    pub valid_to: Option<&'a str>,
}

pub fn insert(conn: &Connection, d: &NewDevice) -> Result<Device> {
    conn.execute(
        "INSERT INTO fiscal_devices (company_id, business_unit_id, name, tcr_int_id, tcr_code, business_unit_code,
             valid_from, valid_to, created_at)
         VALUES (:company, :unit, :name, :int_id, :code, :bu, :from, :to, :now)",
        named_params! {
            ":company": d.company_id, ":unit": d.business_unit_id, ":name": d.name, ":int_id": d.tcr_int_id,
            ":code": d.tcr_code, ":bu": d.business_unit_code, ":from": d.valid_from, ":to": d.valid_to,
            ":now": now_text(),
        },
    )?;
    Ok(Device {
        id: conn.last_insert_rowid(),
        business_unit_id: d.business_unit_id,
        name: d.name.to_string(),
        tcr_code: d.tcr_code.to_string(),
        business_unit_code: d.business_unit_code.to_string(),
        valid_from: d.valid_from.to_string(),
        valid_to: d.valid_to.map(str::to_string),
    })
}

fn device_from(r: &Row) -> rusqlite::Result<Device> {
    Ok(Device {
        id: r.get("id")?,
        business_unit_id: r.get("business_unit_id")?,
        name: r.get("name")?,
        tcr_code: r.get("tcr_code")?,
        business_unit_code: r.get("business_unit_code")?,
        valid_from: r.get("valid_from")?,
        valid_to: r.get("valid_to")?,
    })
}

/// The company's device registered under `tcr_code`, if it has one.
pub fn by_code(conn: &Connection, company_id: i64, tcr_code: &str) -> Result<Option<Device>> {
    Ok(conn
        .query_row(
            "SELECT id, business_unit_id, name, tcr_code, business_unit_code, valid_from, valid_to
             FROM fiscal_devices WHERE company_id = :company AND tcr_code = :code",
            named_params! {":company": company_id, ":code": tcr_code},
            device_from,
        )
        .optional()?)
}

/// The company's devices, in the order they were registered.
pub fn of_company(conn: &Connection, company_id: i64) -> Result<Vec<Device>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, business_unit_id, name, tcr_code, business_unit_code, valid_from, valid_to
         FROM fiscal_devices WHERE company_id = :company ORDER BY id",
    )?;
    let rows = stmt.query_map(named_params! {":company": company_id}, device_from)?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// A TCR a restore retired and the one that goes on after it (none yet until registered).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retired {
    pub id: i64,
    pub company_id: i64,
    pub business_unit_id: i64,
    pub name: String,
    pub tcr_code: String,
    pub business_unit_code: String,
    pub retired_at: String,
    pub why: String,
    pub continued_by: Option<String>,
    /// The last cash number the restored books hold on it (0 when none).
    pub last_number: i64,
}

/// Retires every TCR not retired yet (a restore: the numbers after the copy's last may be at the
/// CIS), saying why; how many.
pub fn retire_all(conn: &Connection, why: &str, now: &str) -> Result<usize> {
    Ok(conn.execute(
        "UPDATE fiscal_devices SET retired_at = :now, retired_why = :why WHERE retired_at IS NULL",
        named_params! {":now": now, ":why": why},
    )?)
}

/// Whether the company's TCR `tcr_code` is retired.
pub fn is_retired(conn: &Connection, company_id: i64, tcr_code: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT retired_at IS NOT NULL AS retired FROM fiscal_devices WHERE company_id = :company AND tcr_code = :code",
        )?
        .query_row(named_params! {":company": company_id, ":code": tcr_code}, |r| r.get("retired"))
        .optional()?
        .unwrap_or(false))
}

/// The retired TCRs, with the one after each and the last cash number the books hold on each.
pub fn retired(conn: &Connection) -> Result<Vec<Retired>> {
    let mut stmt = conn.prepare(
        "SELECT d.id, d.company_id, d.business_unit_id, d.name, d.tcr_code, d.business_unit_code, d.retired_at,
             d.retired_why, d.continued_by,
             (SELECT COALESCE(MAX(i.ord_num), 0) FROM invoices i
              WHERE i.company_id = d.company_id AND i.tcr_code = d.tcr_code AND i.kind = 'CASH') AS last_number
         FROM fiscal_devices d WHERE d.retired_at IS NOT NULL ORDER BY d.id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Retired {
            id: r.get("id")?,
            company_id: r.get("company_id")?,
            business_unit_id: r.get("business_unit_id")?,
            name: r.get("name")?,
            tcr_code: r.get("tcr_code")?,
            business_unit_code: r.get("business_unit_code")?,
            retired_at: r.get("retired_at")?,
            why: r.get("retired_why")?,
            continued_by: r.get("continued_by")?,
            last_number: r.get("last_number")?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Records that `new_code` goes on after the retired TCR `retired_id`, and moves the users of the
/// retired TCR to it.
pub fn continue_on(conn: &Connection, retired: &Retired, new_code: &str) -> Result<()> {
    conn.execute(
        "UPDATE fiscal_devices SET continued_by = :new WHERE id = :id",
        named_params! {":new": new_code, ":id": retired.id},
    )?;
    conn.execute(
        "UPDATE users SET tcr_code = :new WHERE company_id = :company AND tcr_code = :old",
        named_params! {":new": new_code, ":company": retired.company_id, ":old": retired.tcr_code},
    )?;
    Ok(())
}

/// An e-invoice the CIS lists for the seller that the books lack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CisOnly {
    pub eic: String,
    pub doc_number: Option<String>,
    pub amount: Option<String>,
    pub received_at: Option<String>,
}

/// Keeps what the CIS lists that the books lack (once each).
pub fn keep_cis_only(conn: &Connection, company_id: i64, found: &[CisOnly], now: &str) -> Result<()> {
    for e in found {
        conn.execute(
            "INSERT INTO cis_only_einvoices (company_id, eic, doc_number, amount, received_at, found_at)
             VALUES (:company, :eic, :number, :amount, :received, :now) ON CONFLICT DO NOTHING",
            named_params! {
                ":company": company_id, ":eic": e.eic, ":number": e.doc_number, ":amount": e.amount,
                ":received": e.received_at, ":now": now,
            },
        )?;
    }
    Ok(())
}

/// The e-invoices the CIS listed that the books lack.
pub fn cis_only(conn: &Connection) -> Result<Vec<CisOnly>> {
    let mut stmt = conn.prepare(
        "SELECT eic, doc_number, amount, received_at FROM cis_only_einvoices ORDER BY received_at, eic",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(CisOnly {
            eic: r.get("eic")?,
            doc_number: r.get("doc_number")?,
            amount: r.get("amount")?,
            received_at: r.get("received_at")?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Every registered TCR with its issuer's NUIS and business unit code (the sandbox hands these
/// to its simulator, which forgets them between runs).
pub fn all_with_issuer(conn: &Connection) -> Result<Vec<(String, String, String)>> {
    let mut stmt = conn.prepare(
        "SELECT d.tcr_code, c.nuis, d.business_unit_code FROM fiscal_devices d
         JOIN companies c ON c.id = d.company_id ORDER BY d.id",
    )?;
    let rows =
        stmt.query_map([], |r| Ok((r.get("tcr_code")?, r.get("nuis")?, r.get("business_unit_code")?)))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::accounts::{self, NewUser, UserPatch};
    use crate::store::{Store, fixtures};

    fn company(conn: &Connection, nuis: &str) -> (i64, i64) {
        let company = fixtures::company(conn, nuis);
        (company, fixtures::unit(conn, company, "Unit", Some("ab123cd456")))
    }

    fn device<'a>(company_id: i64, business_unit_id: i64, tcr_code: &'a str) -> NewDevice<'a> {
        NewDevice {
            company_id,
            business_unit_id,
            name: "Kasa",
            tcr_int_id: tcr_code,
            tcr_code,
            business_unit_code: "ab123cd456",
            valid_from: "2026-01-01",
            valid_to: None,
        }
    }

    #[test]
    fn a_device_is_found_by_its_code_only_in_its_own_company() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        store
            .write_blocking(|tx| -> Result<_> {
                let (mine, unit) = company(tx, "L41323036D");
                let (theirs, their_unit) = company(tx, "M01234567A");
                insert(tx, &device(mine, unit, "aa111aa111"))?;
                insert(tx, &device(theirs, their_unit, "bb222bb222"))?;

                let found = by_code(tx, mine, "aa111aa111")?.unwrap();
                assert_eq!((found.business_unit_id, found.name.as_str()), (unit, "Kasa"));
                assert!(by_code(tx, mine, "bb222bb222")?.is_none(), "another company's device");
                assert!(by_code(tx, mine, "zz999zz999")?.is_none());
                let codes: Vec<String> = of_company(tx, mine)?.into_iter().map(|d| d.tcr_code).collect();
                assert_eq!(codes, ["aa111aa111"], "only the company's own devices are listed");

                assert!(accounts::nuis_registered(tx, "l41323036d")?);
                assert!(!accounts::nuis_registered(tx, "K00000001S")?);

                // A user's device can be set and taken away again.
                let user = accounts::insert_user(
                    tx,
                    &NewUser {
                        company_id: mine,
                        business_unit_id: Some(unit),
                        name: "Ana",
                        email: "ana@shop.al",
                        operator_code: None,
                        tcr_code: None,
                        role: crate::domain::role::Role::Owner,
                        token_hash: "hash",
                        token_prefix: "arka_u_",
                    },
                )?;
                let set = UserPatch { tcr_code: Some(Some("aa111aa111")), ..Default::default() };
                accounts::update_user(tx, mine, user, &set)?;
                assert_eq!(accounts::user(tx, mine, user)?.unwrap().tcr_code.as_deref(), Some("aa111aa111"));
                accounts::update_user(
                    tx,
                    mine,
                    user,
                    &UserPatch { name: Some("Ana H."), ..Default::default() },
                )?;
                assert_eq!(accounts::user(tx, mine, user)?.unwrap().tcr_code.as_deref(), Some("aa111aa111"));
                accounts::update_user(
                    tx,
                    mine,
                    user,
                    &UserPatch { tcr_code: Some(None), ..Default::default() },
                )?;
                assert_eq!(accounts::user(tx, mine, user)?.unwrap().tcr_code, None);
                Ok(())
            })
            .unwrap();
    }
}
