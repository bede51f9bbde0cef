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
