//! Warehouse transfer notes and their lines. Amounts and quantities are exact decimal TEXT;
//! times are UTC RFC 3339 (`issue_date_time` is what the CIS saw, `issue_date` the local date).

use chrono::{DateTime, Utc};
use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, Row, named_params};
use rust_decimal::Decimal;

use super::money::Money;
use super::{Result, now_text};
use crate::domain::document::ApiVersion;
use crate::domain::wtn::{
    Carrier, Destination, Line, NoteType, Point, ReportNote, Transaction, VehicleOwnership,
};

/// Where the goods start or arrive, as the CIS saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub point: Point,
    pub city: String,
    pub address: String,
    pub date_time: DateTime<Utc>,
}

/// A note as stored (also what is written; `id` and `created_at` are ignored on insert).
#[derive(Debug, Clone, PartialEq)]
pub struct Wtn {
    pub id: i64,
    pub company_id: i64,
    pub business_unit_id: i64,
    pub user_id: Option<i64>,
    pub internal_id: Option<String>,
    pub year: i32,
    pub api_version: ApiVersion,
    pub ord_num: i64,
    /// `<n>/<year>`: the CIS's WTNNum.
    pub number: String,
    pub issued_at: DateTime<Utc>,
    pub issue_date: String,
    /// `IssueDateTime` as sent to the CIS.
    pub issue_date_time: String,
    pub operator_code: String,
    pub business_unit_code: String,
    /// The issuing user's TCR, when the user has one (a note needs none).
    pub device_code: Option<String>,
    pub note_type: NoteType,
    pub transaction: Transaction,
    pub carrier: Option<Carrier>,
    pub vehicle_ownership: VehicleOwnership,
    pub vehicle_plates: String,
    pub origin: Place,
    pub destination: Place,
    pub destination_unit_id: Option<i64>,
    /// Read back with the note; not written.
    pub destination_unit_name: Option<String>,
    pub goods_flammable: bool,
    pub escort_required: bool,
    pub pack_type: Option<String>,
    pub pack_num: Option<u32>,
    pub value_of_goods: Decimal,
    /// The sum of the lines' quantities.
    pub quantity: Decimal,
    pub wtnic: String,
    pub wtnic_signature: String,
    pub header_uuid: String,
    /// The CIS's code; `None` while the note waits for it.
    pub fwtnic: Option<String>,
    pub verify_url: String,
    pub created_at: String,
    pub lines: Vec<Line>,
}

/// The highest ordinal the unit used in `year` (0 when none).
pub fn max_ord_num(conn: &Connection, company_id: i64, business_unit_id: i64, year: i32) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT COALESCE(MAX(ord_num), 0) AS max FROM wtns
         WHERE company_id = :company AND business_unit_id = :unit AND year = :year",
        named_params! {":company": company_id, ":unit": business_unit_id, ":year": year},
        |r| r.get("max"),
    )?)
}

pub fn id_by_internal_id(
    conn: &Connection,
    company_id: i64,
    year: i32,
    internal_id: &str,
) -> Result<Option<i64>> {
    Ok(conn
        .query_row(
            "SELECT id FROM wtns WHERE company_id = :company AND year = :year AND internal_id = :internal",
            named_params! {":company": company_id, ":year": year, ":internal": internal_id},
            |r| r.get("id"),
        )
        .optional()?)
}

fn time_text(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

pub fn insert(conn: &Connection, w: &Wtn) -> Result<i64> {
    let carrier = w.carrier.as_ref();
    conn.execute(
        "INSERT INTO wtns (company_id, business_unit_id, user_id, internal_id, year, api_version, ord_num, number,
             issued_at, issue_date, issue_date_time, operator_code, business_unit_code, device_code, wtn_type,
             transaction_type, carrier_name, carrier_id_type, carrier_id_num, carrier_town, carrier_address,
             vehicle_ownership, vehicle_plates, origin_point, origin_city, origin_address, origin_date_time,
             destination_point, destination_city, destination_address, destination_date_time, destination_unit_id,
             goods_flammable, escort_required, pack_type, pack_num, value_of_goods, items_num, wtnic,
             wtnic_signature, header_uuid, fwtnic, verify_url, created_at)
         VALUES (:company, :unit, :user, :internal, :year, :version, :ord, :number, :issued_at, :issue_date,
             :issue_date_time, :operator, :unit_code, :device, :type, :transaction, :carrier_name,
             :carrier_id_type, :carrier_id_num, :carrier_town, :carrier_address, :ownership, :plates,
             :origin_point, :origin_city, :origin_address, :origin_at, :destination_point, :destination_city,
             :destination_address, :destination_at, :destination_unit, :flammable, :escort, :pack_type,
             :pack_num, :value, :items, :wtnic, :signature, :uuid, :fwtnic, :verify, :now)",
        named_params! {
            ":company": w.company_id, ":unit": w.business_unit_id, ":user": w.user_id, ":internal": w.internal_id,
            ":year": w.year, ":version": w.api_version, ":ord": w.ord_num, ":number": w.number,
            ":issued_at": time_text(w.issued_at), ":issue_date": w.issue_date, ":issue_date_time": w.issue_date_time,
            ":operator": w.operator_code, ":unit_code": w.business_unit_code, ":device": w.device_code,
            ":type": w.note_type, ":transaction": w.transaction,
            ":carrier_name": carrier.map(|c| &c.name), ":carrier_id_type": carrier.map(|c| c.id_type),
            ":carrier_id_num": carrier.map(|c| &c.id_num), ":carrier_town": carrier.and_then(|c| c.town.as_ref()),
            ":carrier_address": carrier.and_then(|c| c.address.as_ref()),
            ":ownership": w.vehicle_ownership, ":plates": w.vehicle_plates,
            ":origin_point": w.origin.point, ":origin_city": w.origin.city,
            ":origin_address": w.origin.address, ":origin_at": time_text(w.origin.date_time),
            ":destination_point": w.destination.point, ":destination_city": w.destination.city,
            ":destination_address": w.destination.address, ":destination_at": time_text(w.destination.date_time),
            ":destination_unit": w.destination_unit_id, ":flammable": w.goods_flammable,
            ":escort": w.escort_required, ":pack_type": w.pack_type, ":pack_num": w.pack_num,
            ":value": Money(w.value_of_goods), ":items": Money(w.quantity), ":wtnic": w.wtnic,
            ":signature": w.wtnic_signature, ":uuid": w.header_uuid, ":fwtnic": w.fwtnic,
            ":verify": w.verify_url, ":now": now_text(),
        },
    )?;
    let id = conn.last_insert_rowid();
    let mut stmt = conn.prepare_cached(
        "INSERT INTO wtn_lines (wtn_id, position, name, code, unit, quantity, price)
         VALUES (:wtn, :position, :name, :code, :unit, :quantity, :price)",
    )?;
    for (position, line) in (0i64..).zip(&w.lines) {
        stmt.execute(named_params! {
            ":wtn": id, ":position": position, ":name": line.name, ":code": line.code, ":unit": line.unit,
            ":quantity": Money(line.quantity), ":price": line.price.map(Money),
        })?;
    }
    Ok(id)
}

/// Removes a note the CIS refused on its first call (its lines go with it).
pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    conn.execute("DELETE FROM wtns WHERE id = :id", named_params! {":id": id})?;
    Ok(())
}

pub fn set_fwtnic(conn: &Connection, id: i64, fwtnic: &str) -> Result<()> {
    conn.execute(
        "UPDATE wtns SET fwtnic = :code WHERE id = :id",
        named_params! {":id": id, ":code": fwtnic},
    )?;
    Ok(())
}

const COLUMNS: &str = "w.*, d.name AS destination_unit_name";
const FROM: &str = "FROM wtns w LEFT JOIN business_units d ON d.id = w.destination_unit_id";

fn parse<T>(r: &Row, column: &str, read: fn(&str) -> Option<T>) -> rusqlite::Result<T> {
    let text: String = r.get(column)?;
    read(&text).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            0,
            Type::Text,
            format!("{column}: unexpected {text}").into(),
        )
    })
}

fn time(r: &Row, column: &str) -> rusqlite::Result<DateTime<Utc>> {
    parse(r, column, crate::domain::time::parse_stored)
}

fn place(r: &Row, prefix: &str) -> rusqlite::Result<Place> {
    Ok(Place {
        point: r.get(format!("{prefix}_point").as_str())?,
        city: r.get(format!("{prefix}_city").as_str())?,
        address: r.get(format!("{prefix}_address").as_str())?,
        date_time: time(r, &format!("{prefix}_date_time"))?,
    })
}

fn wtn_from(r: &Row) -> rusqlite::Result<Wtn> {
    let carrier = match r.get::<_, Option<String>>("carrier_name")? {
        Some(name) => Some(Carrier {
            name,
            id_type: r.get("carrier_id_type")?,
            id_num: r.get("carrier_id_num")?,
            town: r.get("carrier_town")?,
            address: r.get("carrier_address")?,
        }),
        None => None,
    };
    let value: Money = r.get("value_of_goods")?;
    let items: Money = r.get("items_num")?;
    Ok(Wtn {
        id: r.get("id")?,
        company_id: r.get("company_id")?,
        business_unit_id: r.get("business_unit_id")?,
        user_id: r.get("user_id")?,
        internal_id: r.get("internal_id")?,
        year: r.get("year")?,
        api_version: r.get("api_version")?,
        ord_num: r.get("ord_num")?,
        number: r.get("number")?,
        issued_at: time(r, "issued_at")?,
        issue_date: r.get("issue_date")?,
        issue_date_time: r.get("issue_date_time")?,
        operator_code: r.get("operator_code")?,
        business_unit_code: r.get("business_unit_code")?,
        device_code: r.get("device_code")?,
        note_type: r.get("wtn_type")?,
        transaction: r.get("transaction_type")?,
        carrier,
        vehicle_ownership: r.get("vehicle_ownership")?,
        vehicle_plates: r.get("vehicle_plates")?,
        origin: place(r, "origin")?,
        destination: place(r, "destination")?,
        destination_unit_id: r.get("destination_unit_id")?,
        destination_unit_name: r.get("destination_unit_name")?,
        goods_flammable: r.get("goods_flammable")?,
        escort_required: r.get("escort_required")?,
        pack_type: r.get("pack_type")?,
        pack_num: r.get("pack_num")?,
        value_of_goods: value.0,
        quantity: items.0,
        wtnic: r.get("wtnic")?,
        wtnic_signature: r.get("wtnic_signature")?,
        header_uuid: r.get("header_uuid")?,
        fwtnic: r.get("fwtnic")?,
        verify_url: r.get("verify_url")?,
        created_at: r.get("created_at")?,
        lines: Vec::new(),
    })
}

fn line_from(r: &Row) -> rusqlite::Result<(i64, Line)> {
    let quantity: Money = r.get("quantity")?;
    let price: Option<Money> = r.get("price")?;
    Ok((
        r.get("wtn_id")?,
        Line {
            name: r.get("name")?,
            code: r.get("code")?,
            unit: r.get("unit")?,
            quantity: quantity.0,
            price: price.map(|p| p.0),
        },
    ))
}

/// Fills in the lines of `notes` with one query.
fn with_lines(conn: &Connection, mut notes: Vec<Wtn>) -> Result<Vec<Wtn>> {
    let (Some(low), Some(high)) = (notes.iter().map(|n| n.id).min(), notes.iter().map(|n| n.id).max()) else {
        return Ok(notes);
    };
    let mut stmt = conn.prepare(
        "SELECT wtn_id, name, code, unit, quantity, price FROM wtn_lines
         WHERE wtn_id BETWEEN :low AND :high ORDER BY wtn_id, position",
    )?;
    let rows = stmt.query_map(named_params! {":low": low, ":high": high}, line_from)?;
    for row in rows {
        let (wtn_id, line) = row?;
        if let Some(note) = notes.iter_mut().find(|n| n.id == wtn_id) {
            note.lines.push(line);
        }
    }
    Ok(notes)
}

fn one(conn: &Connection, found: Option<Wtn>) -> Result<Option<Wtn>> {
    Ok(with_lines(conn, found.into_iter().collect())?.pop())
}

/// The company's note with this id.
pub fn get(conn: &Connection, company_id: i64, id: i64) -> Result<Option<Wtn>> {
    let found = conn
        .query_row(
            &format!("SELECT {COLUMNS} {FROM} WHERE w.id = :id AND w.company_id = :company"),
            named_params! {":id": id, ":company": company_id},
            wtn_from,
        )
        .optional()?;
    one(conn, found)
}

/// The company's newest note with this internalId (each year has its own).
pub fn by_internal_id(conn: &Connection, company_id: i64, internal_id: &str) -> Result<Option<Wtn>> {
    let found = conn
        .query_row(
            &format!(
                "SELECT {COLUMNS} {FROM} WHERE w.company_id = :company AND w.internal_id = :internal
                 ORDER BY w.year DESC LIMIT 1"
            ),
            named_params! {":company": company_id, ":internal": internal_id},
            wtn_from,
        )
        .optional()?;
    one(conn, found)
}

/// The list's filter: local issue dates, inclusive, and the page.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub from_date: Option<String>,
    pub to_date: Option<String>,
    pub limit: i64,
    pub offset: i64,
    /// Only a cashier's notes: those of their device and those they issued.
    pub own: Option<crate::store::invoices::Own>,
}

/// A page of the company's notes, newest first.
pub fn list(conn: &Connection, company_id: i64, f: &ListFilter) -> Result<Vec<Wtn>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} {FROM} WHERE w.company_id = :company
           AND (:from IS NULL OR w.issue_date >= :from) AND (:to IS NULL OR w.issue_date <= :to)
           AND (NOT :own OR w.device_code = :device OR w.user_id = :user)
         ORDER BY w.id DESC LIMIT :limit OFFSET :offset"
    ))?;
    let own = f.own.as_ref();
    let rows = stmt.query_map(
        named_params! {
            ":company": company_id, ":from": f.from_date, ":to": f.to_date, ":limit": f.limit, ":offset": f.offset,
            ":own": own.is_some(), ":device": own.and_then(|o| o.tcr_code.as_deref()),
            ":user": own.map(|o| o.user_id),
        },
        wtn_from,
    )?;
    let notes = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    with_lines(conn, notes)
}

/// The company's notes issued between the local dates `from` and `to`, inclusive.
pub fn report_rows(conn: &Connection, company_id: i64, from: &str, to: &str) -> Result<Vec<ReportNote>> {
    let mut stmt = conn.prepare(
        "SELECT w.fwtnic IS NOT NULL AS fiscalized, w.value_of_goods, w.destination_unit_id,
             d.name AS destination_unit_name, w.destination_point, w.destination_city, w.destination_address
         FROM wtns w LEFT JOIN business_units d ON d.id = w.destination_unit_id
         WHERE w.company_id = :company AND w.issue_date BETWEEN :from AND :to ORDER BY w.id",
    )?;
    let rows = stmt.query_map(named_params! {":company": company_id, ":from": from, ":to": to}, |r| {
        let value: Money = r.get("value_of_goods")?;
        Ok(ReportNote {
            fiscalized: r.get("fiscalized")?,
            value_of_goods: value.0,
            destination: Destination {
                unit_id: r.get("destination_unit_id")?,
                unit_name: r.get("destination_unit_name")?,
                point: r.get("destination_point")?,
                city: r.get("destination_city")?,
                address: r.get("destination_address")?,
            },
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::domain::wtn::CarrierIdType;
    use crate::store::{Store, fixtures};

    fn company(conn: &Connection, nuis: &str) -> (i64, i64, i64) {
        let company = fixtures::company(conn, nuis);
        (
            company,
            fixtures::unit(conn, company, "Qendër", None),
            fixtures::unit(conn, company, "Durrës", None),
        )
    }

    /// A note of `unit` numbered `ord_num`, with two lines.
    pub(crate) fn note(company_id: i64, unit: i64, ord_num: i64, internal_id: Option<&str>) -> Wtn {
        let at: DateTime<Utc> = "2026-03-14T09:25:07Z".parse().unwrap();
        let place = |point| Place { point, city: "Tiranë".into(), address: "Rruga 1".into(), date_time: at };
        Wtn {
            id: 0,
            company_id,
            business_unit_id: unit,
            user_id: None,
            internal_id: internal_id.map(str::to_string),
            year: 2026,
            api_version: ApiVersion::V1,
            ord_num,
            number: format!("{ord_num}/2026"),
            issued_at: at,
            issue_date: "2026-03-14".into(),
            issue_date_time: "2026-03-14T10:25:07+01:00".into(),
            operator_code: "op123op123".into(),
            business_unit_code: "ab123cd456".into(),
            device_code: None,
            note_type: NoteType::Wtn,
            transaction: Transaction::Transfer,
            carrier: Some(Carrier {
                name: "Transport Ana".into(),
                id_type: CarrierIdType::Nuis,
                id_num: "K81234001A".into(),
                town: None,
                address: Some("Rruga e Kavajës".into()),
            }),
            vehicle_ownership: VehicleOwnership::ThirdParty,
            vehicle_plates: "AA123BB".into(),
            origin: place(Point::Warehouse),
            destination: place(Point::Store),
            destination_unit_id: None,
            destination_unit_name: None,
            goods_flammable: false,
            escort_required: true,
            pack_type: Some("Kuti".into()),
            pack_num: Some(3),
            value_of_goods: "120.50".parse().unwrap(),
            quantity: "2.5".parse().unwrap(),
            wtnic: format!("{ord_num:032X}{unit}"),
            wtnic_signature: "AB".repeat(256),
            header_uuid: "0d1b3c8e-5a1f-4c1e-9a7e-3f1c2b4d5e6f".into(),
            fwtnic: None,
            verify_url: "https://verify".into(),
            created_at: String::new(),
            lines: vec![
                Line {
                    name: "Miell".into(),
                    code: Some("MIELL".into()),
                    unit: "kg".into(),
                    quantity: "2".parse().unwrap(),
                    price: Some("60.25".parse().unwrap()),
                },
                Line {
                    name: "Kuti".into(),
                    code: None,
                    unit: "copë".into(),
                    quantity: "0.5".parse().unwrap(),
                    price: None,
                },
            ],
        }
    }

    #[test]
    fn a_note_reads_back_as_written_numbered_per_unit_and_found_only_in_its_company() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        store
            .write_blocking(|tx| -> Result<_> {
                let (mine, main, second) = company(tx, "L41323036D");
                let (theirs, _, _) = company(tx, "M01234567A");
                assert_eq!(max_ord_num(tx, mine, main, 2026)?, 0);
                let mut first = note(mine, main, 1, Some("w-1"));
                first.destination_unit_id = Some(second);
                first.id = insert(tx, &first)?;
                let other = insert(tx, &note(mine, second, 1, None))?;
                insert(tx, &note(mine, main, 2, None))?;
                assert_eq!(max_ord_num(tx, mine, main, 2026)?, 2);
                assert_eq!(max_ord_num(tx, mine, second, 2026)?, 1);
                assert_eq!(max_ord_num(tx, mine, main, 2027)?, 0);
                // Two notes may not take the same number in a unit.
                assert!(matches!(
                    insert(tx, &note(mine, main, 2, None)),
                    Err(crate::store::Error::Duplicate(_))
                ));
                // Nor the same internalId in a year.
                assert!(insert(tx, &note(mine, main, 9, Some("w-1"))).is_err());

                let mut read = get(tx, mine, first.id)?.unwrap();
                assert_eq!(read.destination_unit_name.as_deref(), Some("Durrës"));
                read.destination_unit_name = None;
                read.created_at = String::new();
                assert_eq!(read, first);
                assert_eq!(get(tx, theirs, first.id)?, None);
                assert_eq!(id_by_internal_id(tx, mine, 2026, "w-1")?, Some(first.id));
                assert_eq!(id_by_internal_id(tx, theirs, 2026, "w-1")?, None);
                assert_eq!(by_internal_id(tx, mine, "w-1")?.map(|n| n.id), Some(first.id));

                let page = list(tx, mine, &ListFilter { limit: 2, ..ListFilter::default() })?;
                assert_eq!(page.iter().map(|n| n.number.as_str()).collect::<Vec<_>>(), ["2/2026", "1/2026"]);
                assert_eq!(page[1].id, other);
                assert!(page.iter().all(|n| n.lines.len() == 2), "each note brings its own lines");
                let later =
                    ListFilter { from_date: Some("2026-03-15".into()), limit: 20, ..ListFilter::default() };
                assert!(list(tx, mine, &later)?.is_empty());

                set_fwtnic(tx, first.id, "0d1b3c8e-0000-4c1e-9a7e-3f1c2b4d5e6f")?;
                let rows = report_rows(tx, mine, "2026-03-01", "2026-03-31")?;
                assert_eq!(rows.len(), 3);
                assert_eq!(rows.iter().filter(|r| r.fiscalized).count(), 1);
                assert_eq!(rows[0].destination.unit_name.as_deref(), Some("Durrës"));
                delete(tx, other)?;
                assert_eq!(get(tx, mine, other)?, None);
                let lines: i64 = tx.query_row(
                    "SELECT COUNT(*) AS lines FROM wtn_lines WHERE wtn_id = ?1",
                    [other],
                    |r| r.get("lines"),
                )?;
                assert_eq!(lines, 0, "its lines went with it");
                Ok(())
            })
            .unwrap();
    }
}
