//! What a printed note shows: the spec's print document (JSON), and the A4 page made from it.

use openssl::base64;

use crate::domain::time::local_text;
use crate::domain::validation::FieldErrors;
use crate::domain::wtn::items_num;
use crate::store::accounts::{BusinessUnit, Company};
use crate::store::print_settings::{Logo, PrintSettings};
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

/// The largest logo accepted: a print logo needs far less, and each print document carries it.
pub const MAX_LOGO_BYTES: usize = 256 * 1024;

/// The image type of a logo file, by its first bytes.
fn image_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&[0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n']) {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else {
        None
    }
}

/// A logo as sent: base64 of a PNG or JPEG file (a `data:` prefix is taken off) of at most
/// `MAX_LOGO_BYTES`.
pub fn logo(text: &str) -> Result<Logo, FieldErrors> {
    let text = text.trim();
    let text = match text.strip_prefix("data:") {
        Some(rest) => rest.split_once(',').map_or(rest, |(_, data)| data),
        None => text,
    };
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.len() > MAX_LOGO_BYTES * 4 / 3 + 4 {
        return Err(FieldErrors::one(
            "logo",
            format!("The logo must not be larger than {} KiB.", MAX_LOGO_BYTES / 1024),
        ));
    }
    let bytes = base64::decode_block(&compact)
        .map_err(|_| FieldErrors::one("logo", "The logo must be the base64 of a PNG or JPEG file."))?;
    if bytes.len() > MAX_LOGO_BYTES {
        return Err(FieldErrors::one(
            "logo",
            format!("The logo must not be larger than {} KiB.", MAX_LOGO_BYTES / 1024),
        ));
    }
    let content_type =
        image_type(&bytes).ok_or_else(|| FieldErrors::one("logo", "The logo must be a PNG or JPEG file."))?;
    Ok(Logo { bytes, content_type: content_type.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_logo_is_a_png_or_jpeg_file_in_base64_within_the_size() {
        let png = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n', 0, 0];
        let sent = base64::encode_block(&png);
        assert_eq!(logo(&sent).unwrap(), Logo { bytes: png.to_vec(), content_type: "image/png".into() });
        assert_eq!(logo(&format!("data:image/png;base64,{sent}")).unwrap().bytes, png.to_vec());
        assert_eq!(
            logo(&base64::encode_block(&[0xFF, 0xD8, 0xFF, 0xE0])).unwrap().content_type,
            "image/jpeg"
        );
        // | sent                      | refused |
        for bad in [
            base64::encode_block(b"GIF89a"),
            "not base64!".to_string(),
            base64::encode_block(&vec![0xFF; MAX_LOGO_BYTES + 1]),
        ] {
            assert!(logo(&bad).unwrap_err().into_map().contains_key("logo"));
        }
    }
}
