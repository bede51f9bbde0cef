//! Fiscal devices (TCRs) registered with the CIS.

use rusqlite::{Connection, named_params};

use super::{Result, now_text};

#[derive(Debug, Clone)]
pub struct Device {
    pub id: i64,
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
        name: d.name.to_string(),
        tcr_code: d.tcr_code.to_string(),
        business_unit_code: d.business_unit_code.to_string(),
        valid_from: d.valid_from.to_string(),
        valid_to: d.valid_to.map(str::to_string),
    })
}

/// Every registered TCR with its issuer's NUIS and business unit code (the sandbox hands these
/// to its simulator, which forgets them between runs).
pub fn all_with_issuer(conn: &Connection) -> Result<Vec<(String, String, String)>> {
    let mut stmt = conn.prepare(
        "SELECT d.tcr_code, c.nuis, d.business_unit_code FROM fiscal_devices d
         JOIN companies c ON c.id = d.company_id ORDER BY d.id",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}
