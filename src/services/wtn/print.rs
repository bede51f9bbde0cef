//! What a printed note shows: the spec's print document (JSON), and the A4 page made from it.

use openssl::base64;

use crate::domain::time::local_text;
use crate::domain::wtn::items_num;
use crate::store::accounts::{BusinessUnit, Company};
use crate::store::print_settings::PrintSettings;
use crate::store::wtn::{Place, Wtn};

/// The print document of a note, with every default the spec names already applied.
#[derive(Debug, Clone)]
pub struct PrintDocument {
    /// The company's logo as base64 file content (no `data:` prefix).
    pub logo: Option<String>,
    pub title: &'static str,
    /// The company's name, or the issuing unit's when the company prints its units' names.
    pub company_name: String,
    pub nuis: String,
    /// The issuing unit's address, else the company's.
    pub company_address: Option<String>,
    pub company_city: Option<String>,
    pub unit: Option<BusinessUnit>,
    pub note: Wtn,
    pub footer: Vec<String>,
}

pub fn document(
    company: &Company,
    unit: Option<&BusinessUnit>,
    settings: &PrintSettings,
    note: Wtn,
) -> PrintDocument {
    let company_name = match unit {
        Some(unit) if settings.unit_name => unit.name.clone(),
        _ => company.name.clone(),
    };
    let mut footer = vec![format!("Arka {}", env!("CARGO_PKG_VERSION"))];
    if note.fwtnic.is_none() {
        footer.push("Në pritje të fiskalizimit / Awaiting fiscalization (subsequent delivery)".to_string());
    }
    PrintDocument {
        logo: settings.logo.as_ref().map(|l| base64::encode_block(&l.bytes)),
        title: crate::print::WTN_TITLE,
        company_name,
        nuis: company.nuis.clone(),
        company_address: unit.and_then(|u| u.address.clone()).or_else(|| company.address.clone()),
        company_city: unit.and_then(|u| u.city.clone()).or_else(|| company.city.clone()),
        unit: unit.cloned(),
        note,
        footer,
    }
}

fn place(p: &Place) -> crate::print::WtnPlace {
    crate::print::WtnPlace {
        point: p.point.as_str().to_string(),
        address: p.address.clone(),
        city: p.city.clone(),
        date_time: local_text(p.date_time),
    }
}

/// The A4 page of a print document.
pub fn printable(d: &PrintDocument) -> crate::print::PrintWtn {
    use crate::print as p;
    let note = &d.note;
    p::PrintWtn {
        issuer: p::Seller {
            name: d.company_name.clone(),
            nuis: d.nuis.clone(),
            address: d.company_address.clone().unwrap_or_default(),
            city: d.company_city.clone().unwrap_or_default(),
        },
        business_unit: p::BusinessUnit {
            name: d.unit.as_ref().map(|u| u.name.clone()).unwrap_or_default(),
            code: note.business_unit_code.clone(),
            address: d.unit.as_ref().and_then(|u| u.address.clone()).unwrap_or_default(),
        },
        device_code: note.device_code.clone(),
        operator_code: note.operator_code.clone(),
        number: note.number.clone(),
        issued_at: local_text(note.issued_at),
        note_type: note.note_type.as_str().to_string(),
        transaction: note.transaction.as_str().to_string(),
        origin: place(&note.origin),
        destination: place(&note.destination),
        carrier: note.carrier.as_ref().map(|c| p::WtnCarrier {
            name: c.name.clone(),
            id: format!("{}: {}", c.id_type.as_str(), c.id_num),
            address: c.address.clone().unwrap_or_default(),
            town: c.town.clone().unwrap_or_default(),
        }),
        vehicle: format!("{}, {}", note.vehicle_ownership.as_str(), note.vehicle_plates),
        lines: note
            .lines
            .iter()
            .map(|l| p::WtnLine {
                name: l.name.clone(),
                code: l.code.clone().unwrap_or_default(),
                unit: l.unit.clone(),
                quantity: l.quantity,
            })
            .collect(),
        items_num: items_num(note.quantity),
        value_of_goods: note.value_of_goods,
        iic: note.wtnic.clone(),
        fic: note.fwtnic.clone(),
        verify_url: note.verify_url.clone(),
        footer_lines: d.footer.clone(),
    }
}
