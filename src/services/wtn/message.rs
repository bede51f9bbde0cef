//! A note in the CIS's terms (RegisterWTNRequest, with its signed WTNIC) and as stored, once the
//! pipeline gave it a number and a time.
//!
//! The WTN number: the CIS's `WTNNum` is `WTNOrdNum/YYYY` (PROTOCOL.md section 7), and the spec's
//! print document numbers a note `<n>/<year>` with n "the day's sequence number for the business
//! unit". A sequence restarting every day would give two notes of a unit the same `WTNNum` in a
//! year, which the CIS's "ordinal number and calendar year" cannot tell apart; so Arka numbers
//! notes in one sequence per business unit and calendar year, and the printed number is the
//! CIS's. The WTNIC signs the ordinal (`WTNOrdNum`), as the published test vector does.

use chrono::{DateTime, Utc};
use chrono_tz::Europe::Tirane;
use uuid::Uuid;

use super::super::Result;
use super::super::pipeline::Issuer;
use crate::domain::document::ApiVersion;
use crate::domain::numbering::invoice_number;
use crate::domain::verify::verify_url;
use crate::domain::wtn::{self as rules, Note};
use crate::fiscal::iic::{IicInput, WtnicInput, wtnic};
use crate::fiscal::model::{self, Header, Wtn as CisWtn, WtnCarrier, WtnIssuer, WtnItem};
use crate::fiscal::requests;
use crate::store::wtn::{Place, Wtn};

/// A note and where it goes, as the pipeline hands it on.
#[derive(Debug, Clone)]
pub struct Content {
    pub internal_id: Option<String>,
    pub api_version: ApiVersion,
    pub note: Note,
    pub destination_unit_id: Option<i64>,
    pub destination_unit_name: Option<String>,
}

/// Everything the CIS message and the stored note share.
pub struct Draft {
    pub issue_date_time: String,
    pub header_uuid: Uuid,
    pub wtnic: String,
    pub wtnic_signature: String,
    pub verify_url: String,
    pub unsigned_request: String,
    pub origin_at: DateTime<Utc>,
    pub destination_at: DateTime<Utc>,
}

fn first(text: &str, chars: usize) -> String {
    text.chars().take(chars).collect()
}

/// The CIS message of the note numbered `ord_num` in `year`, issued at `issued_at`, with its
/// signed WTNIC.
pub fn draft(
    issuer: &Issuer,
    note: &Note,
    ord_num: u32,
    year: i32,
    issued_at: DateTime<Utc>,
) -> Result<Draft> {
    let company = &issuer.caller.company;
    let unit = issuer.caller.unit.as_ref();
    let issue_date_time = model::datetime(issued_at);
    let ord = ord_num.to_string();
    let code = wtnic(
        issuer.certificate.as_ref(),
        &WtnicInput {
            nuis: &company.nuis,
            issue_date_time: &issue_date_time,
            wtn_number: &ord,
            business_unit_code: &issuer.unit_code,
            soft_code: &issuer.soft_code,
        },
    )?;
    let value = model::money(note.value_of_goods);
    let verify = verify_url(
        &issuer.verify_base,
        &code.iic,
        &IicInput {
            nuis: &company.nuis,
            issue_date_time: &issue_date_time,
            ord_num: u64::from(ord_num),
            business_unit_code: &issuer.unit_code,
            tcr_code: None,
            soft_code: &issuer.soft_code,
            tot_price: &value,
        },
    );
    let origin_at = note.origin.date_time.unwrap_or(issued_at);
    // A destination time not sent is the issue time, but never before the departure.
    let destination_at = note.destination.date_time.unwrap_or(issued_at.max(origin_at));
    let cis = CisWtn {
        wtn_type: note.note_type,
        transaction: note.transaction,
        issue_date_time: issued_at,
        operator_code: issuer.operator_code.clone(),
        busin_unit_code: issuer.unit_code.clone(),
        soft_code: issuer.soft_code.clone(),
        wtn_ord_num: ord_num,
        wtn_num: invoice_number(ord_num, year),
        value_of_goods: note.value_of_goods,
        veh_ownership: note.vehicle_ownership,
        veh_plates: note.vehicle_plates.clone(),
        start_addr: note.origin.address.clone(),
        start_city: note.origin.city.clone(),
        start_date_time: origin_at,
        start_point: note.origin.point,
        destin_addr: note.destination.address.clone(),
        destin_city: note.destination.city.clone(),
        destin_date_time: destination_at,
        destin_point: note.destination.point,
        is_goods_flammable: note.goods_flammable,
        is_escort_required: note.escort_required,
        pack_type: note.pack_type.clone(),
        pack_num: note.pack_num,
        items_num: rules::cis_items_num(note.quantity()),
        wtnic: code.iic.clone(),
        wtnic_signature: code.signature.clone(),
        issuer: WtnIssuer {
            nuis: company.nuis.clone(),
            name: first(&company.name, 100),
            // The CIS requires both; the origin's are known when the unit's and company's are not.
            address: unit
                .and_then(|u| u.address.clone())
                .or_else(|| company.address.clone())
                .unwrap_or_else(|| note.origin.address.clone()),
            town: unit
                .and_then(|u| u.city.clone())
                .or_else(|| company.city.clone())
                .unwrap_or_else(|| note.origin.city.clone()),
        },
        carrier: note.carrier.as_ref().map(|c| WtnCarrier {
            id_type: c.id_type,
            id_num: c.id_num.clone(),
            name: c.name.clone(),
            address: c.address.clone(),
            town: c.town.clone(),
        }),
        items: note
            .lines
            .iter()
            .map(|l| WtnItem {
                name: first(&l.name, 50),
                code: l.code.as_deref().map(|c| first(c, 50)),
                unit: first(&l.unit, 50),
                quantity: l.quantity,
            })
            .collect(),
    };
    let header_uuid = Uuid::new_v4();
    let unsigned_request = requests::register_wtn(
        &Header { uuid: header_uuid, send_date_time: issued_at, subseq_deliv_type: None },
        &cis,
    );
    Ok(Draft {
        issue_date_time,
        header_uuid,
        wtnic: code.iic,
        wtnic_signature: code.signature,
        verify_url: verify,
        unsigned_request,
        origin_at,
        destination_at,
    })
}

/// The note as stored, numbered `ord_num` by its draft.
pub fn stored(
    issuer: &Issuer,
    content: &Content,
    draft: &Draft,
    (ord_num, year): (u32, i32),
    at: DateTime<Utc>,
) -> Wtn {
    let caller = &issuer.caller;
    let note = &content.note;
    let place = |p: &rules::Place, date_time| Place {
        point: p.point,
        city: p.city.clone(),
        address: p.address.clone(),
        date_time,
    };
    Wtn {
        id: 0,
        company_id: caller.company.id,
        business_unit_id: caller.unit.as_ref().map(|u| u.id).unwrap_or_default(),
        user_id: Some(caller.user.id),
        internal_id: content.internal_id.clone(),
        year,
        api_version: content.api_version,
        ord_num: i64::from(ord_num),
        number: invoice_number(ord_num, year),
        issued_at: at,
        issue_date: at.with_timezone(&Tirane).date_naive().to_string(),
        issue_date_time: draft.issue_date_time.clone(),
        operator_code: issuer.operator_code.clone(),
        business_unit_code: issuer.unit_code.clone(),
        device_code: issuer.tcr_code.clone(),
        note_type: note.note_type,
        transaction: note.transaction,
        carrier: note.carrier.clone(),
        vehicle_ownership: note.vehicle_ownership,
        vehicle_plates: note.vehicle_plates.clone(),
        origin: place(&note.origin, draft.origin_at),
        destination: place(&note.destination, draft.destination_at),
        destination_unit_id: content.destination_unit_id,
        destination_unit_name: content.destination_unit_name.clone(),
        goods_flammable: note.goods_flammable,
        escort_required: note.escort_required,
        pack_type: note.pack_type.clone(),
        pack_num: note.pack_num,
        value_of_goods: note.value_of_goods,
        quantity: note.quantity(),
        wtnic: draft.wtnic.clone(),
        wtnic_signature: draft.wtnic_signature.clone(),
        header_uuid: draft.header_uuid.to_string(),
        fwtnic: None,
        verify_url: draft.verify_url.clone(),
        created_at: String::new(),
        lines: note.lines.clone(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use chrono::TimeZone;

    use super::*;
    use crate::domain::wtn::{Carrier, CarrierIdType, Defaults, LineInput, NoteInput, check};
    use crate::fiscal::requests::Operation;
    use crate::fiscal::requests::tests::{assert_accepted_by_outside_tools, vector_certificate};
    use crate::store::accounts::{BusinessUnit, Caller, Company, User};

    /// The issuer of the published test vector: NUIS I12345678I, unit bb123bb123, software
    /// ss123ss123, signing with the example key.
    fn vector_issuer() -> Issuer {
        Issuer {
            caller: Caller {
                user: User {
                    id: 1,
                    company_id: 1,
                    business_unit_id: Some(1),
                    name: "Ana".into(),
                    email: "ana@shop.al".into(),
                    operator_code: Some("oo123oo123".into()),
                    tcr_code: None,
                    role: crate::domain::role::Role::Owner,
                },
                company: Company {
                    id: 1,
                    nuis: "I12345678I".into(),
                    name: "Dyqani".into(),
                    address: None,
                    city: None,
                    issuer_in_vat: true,
                    is_sandbox: false,
                },
                unit: Some(BusinessUnit {
                    id: 1,
                    company_id: 1,
                    name: "Qendër".into(),
                    business_unit_code: Some("bb123bb123".into()),
                    administrator: None,
                    address: Some("Rruga e Kavajës 12".into()),
                    city: Some("Tiranë".into()),
                }),
                request_id: None,
                session: false,
            },
            operator_code: "oo123oo123".into(),
            unit_code: "bb123bb123".into(),
            tcr_code: None,
            soft_code: "ss123ss123".into(),
            certificate: Arc::new(vector_certificate()),
            verify_base: crate::domain::verify::TEST_VERIFY_BASE.into(),
        }
    }

    fn note() -> Note {
        let input = NoteInput {
            vehicle_plates: Some("AA 123 BB".into()),
            value_of_goods: Some("99.01".parse().unwrap()),
            lines: vec![LineInput {
                name: Some("Miell gruri tip 00 për bukë dhe ëmbëlsira, thes 25 kg, prodhim vendi".into()),
                code: Some("MIELL".into()),
                unit: Some("thes".into()),
                quantity: Some("4".parse().unwrap()),
                price: None,
            }],
            ..Default::default()
        };
        let defaults = Defaults {
            origin_city: Some("Tiranë"),
            origin_address: Some("Rruga e Kavajës 12"),
            ..Default::default()
        };
        let mut note = check(&input, &defaults).unwrap();
        note.carrier = Some(Carrier {
            name: "Transport Ana".into(),
            id_type: CarrierIdType::Nuis,
            id_num: "K81234001A".into(),
            town: Some("Durrës".into()),
            address: None,
        });
        note
    }

    #[test]
    fn the_note_numbered_9952_reproduces_the_published_wtnic() {
        // The vector's IssueDateTime, 2019-06-12T17:05:43+02:00.
        let at = Tirane.with_ymd_and_hms(2019, 6, 12, 17, 5, 43).unwrap().with_timezone(&Utc);
        let draft = draft(&vector_issuer(), &note(), 9952, 2019, at).unwrap();
        assert_eq!(draft.issue_date_time, "2019-06-12T17:05:43+02:00");
        assert_eq!(draft.wtnic, "363350A9E21BC289253AAC9DC8C5E7E5");
        assert!(draft.wtnic_signature.starts_with("7F3E538EFDEA77AE"), "{}", draft.wtnic_signature);
        let request = &draft.unsigned_request;
        assert!(request.contains(r#"WTNNum="9952/2019" WTNOrdNum="9952""#), "{request}");
        // Names are cut to the CIS's 50 characters, plates travel without spaces.
        assert!(request.contains(r#"N="Miell gruri tip 00 për bukë dhe ëmbëlsira, thes 25""#), "{request}");
        assert!(request.contains(r#"VehPlates="AA123BB""#));
        assert!(request.contains(r#"ItemsNum="4""#));
        assert!(
            draft.verify_url.contains("iic=363350A9E21BC289253AAC9DC8C5E7E5&tin=I12345678I"),
            "{}",
            draft.verify_url
        );
        // The signed request passes the tax authority's schema (xmllint) and xmlsec1.
        assert_accepted_by_outside_tools(Operation::RegisterWtn, &draft.unsigned_request);
    }

    #[test]
    fn times_not_sent_are_the_issue_time_and_arrival_is_never_before_departure() {
        let at = Utc.with_ymd_and_hms(2026, 3, 14, 9, 0, 0).unwrap();
        let mut later = note();
        later.origin.date_time = Some(at + chrono::Duration::hours(2));
        let draft = draft(&vector_issuer(), &later, 1, 2026, at).unwrap();
        assert_eq!(draft.origin_at, at + chrono::Duration::hours(2));
        assert_eq!(draft.destination_at, draft.origin_at);
        let stored = stored(
            &vector_issuer(),
            &Content {
                internal_id: Some("w-1".into()),
                api_version: ApiVersion::V2,
                note: later,
                destination_unit_id: None,
                destination_unit_name: None,
            },
            &draft,
            (1, 2026),
            at,
        );
        assert_eq!((stored.number.as_str(), stored.issue_date.as_str()), ("1/2026", "2026-03-14"));
        assert_eq!(stored.quantity, "4".parse().unwrap());
        assert_eq!(stored.wtnic, draft.wtnic);
    }
}
