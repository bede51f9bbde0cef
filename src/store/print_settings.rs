//! What printed documents show of a company: its logo and whether the issuing unit's name
//! stands in for the company's.

use rusqlite::{Connection, OptionalExtension, named_params};

use super::{Result, now_text};

/// A company's logo: the image file's bytes and their type (`image/png`, `image/jpeg`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logo {
    pub bytes: Vec<u8>,
    pub content_type: String,
}

/// A company without a row has no logo and prints its own name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrintSettings {
    pub logo: Option<Logo>,
    /// Print the issuing unit's name where the company's would stand.
    pub unit_name: bool,
}

pub fn get(conn: &Connection, company_id: i64) -> Result<PrintSettings> {
    let found = conn
        .query_row(
            "SELECT logo, logo_type, unit_name FROM print_settings WHERE company_id = :company",
            named_params! {":company": company_id},
            |r| {
                let bytes: Option<Vec<u8>> = r.get("logo")?;
                let content_type: Option<String> = r.get("logo_type")?;
                Ok(PrintSettings {
                    logo: bytes.zip(content_type).map(|(bytes, content_type)| Logo { bytes, content_type }),
                    unit_name: r.get("unit_name")?,
                })
            },
        )
        .optional()?;
    Ok(found.unwrap_or_default())
}

pub fn save(conn: &Connection, company_id: i64, s: &PrintSettings) -> Result<()> {
    conn.execute(
        "INSERT INTO print_settings (company_id, logo, logo_type, unit_name, updated_at)
         VALUES (:company, :logo, :type, :unit_name, :now)
         ON CONFLICT (company_id) DO UPDATE SET logo = excluded.logo, logo_type = excluded.logo_type,
             unit_name = excluded.unit_name, updated_at = excluded.updated_at",
        named_params! {
            ":company": company_id, ":logo": s.logo.as_ref().map(|l| &l.bytes),
            ":type": s.logo.as_ref().map(|l| &l.content_type), ":unit_name": s.unit_name, ":now": now_text(),
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::fixtures::company;

    #[test]
    fn settings_are_kept_per_company_and_the_logo_can_be_taken_away() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("arka.db")).unwrap();
        store
            .write_blocking(|tx| -> Result<_> {
                let (mine, theirs) = (company(tx, "L41323036D"), company(tx, "M01234567A"));
                assert_eq!(get(tx, mine)?, PrintSettings::default());
                let logo = Logo { bytes: vec![0x89, b'P', b'N', b'G'], content_type: "image/png".into() };
                save(tx, mine, &PrintSettings { logo: Some(logo.clone()), unit_name: true })?;
                assert_eq!(get(tx, mine)?, PrintSettings { logo: Some(logo), unit_name: true });
                assert_eq!(get(tx, theirs)?, PrintSettings::default());
                save(tx, mine, &PrintSettings { logo: None, unit_name: true })?;
                assert_eq!(get(tx, mine)?.logo, None);
                Ok(())
            })
            .unwrap();
    }
}
