//! Warehouse transfer notes: issue (checked here, then numbered, signed, saved with the stock it
//! moves, delivered and settled by the pipeline), list, details, the print document, the A4 PDF
//! and the report.
//!
//! A note is issued with the token user's business unit and operator code; a user without a TCR
//! may issue one. Its goods leave the user's unit: to another unit of the company
//! (`destination_unit_id`, stock moves between them) or out of the company's hands (stock goes
//! down).

mod document;
mod message;
mod print;
mod report;

use uuid::Uuid;

pub use self::print::PrintDocument;
pub use self::report::{WtnReport, wtn_report_of};
use super::invoices::{readable, this_year, user_codes};
use super::pipeline::{InternalId, Issued, Namespace};
use super::sequence::Sequence;
use super::{Error, Result, Services};
use crate::domain::audit::Action;
use crate::domain::client::Patch;
use crate::domain::document::ApiVersion;
use crate::domain::role::Role;
use crate::domain::validation::FieldErrors;
use crate::domain::wtn::{self as rules, Defaults, NoteInput};
use crate::store::accounts::{self, Caller};
use crate::store::print_settings::{self, PrintSettings};
use crate::store::wtn::{self as db, ListFilter, Wtn};
use document::WtnDocument;
use message::Content;

/// An issue request after the edge read v1 or v2.
#[derive(Debug, Clone)]
pub struct IssueWtnRequest {
    pub api_version: ApiVersion,
    /// Its internalId is required in v2 (the edge checks), optional in v1.
    pub note: NoteInput,
}

/// What an issue came to.
pub enum WtnIssue {
    Issued(Issued<Wtn>),
    /// v2: a note with this internalId was already issued this year; here it is, unchanged.
    Repeated(Wtn),
}

impl Services {
    /// The company's note issued this `year` with `internal_id`, if any.
    async fn wtn_of_year(&self, caller: &Caller, year: i32, internal_id: &str) -> Result<Option<Wtn>> {
        let (company_id, internal_id) = (caller.company.id, internal_id.to_string());
        Ok(self
            .store
            .read(move |c| match db::id_by_internal_id(c, company_id, year, &internal_id)? {
                Some(id) => db::get(c, company_id, id),
                None => Ok(None),
            })
            .await?)
    }

    /// The company's unit a note goes to: another company's (or none) is 422.
    async fn destination_unit(
        &self,
        caller: &Caller,
        id: Option<i64>,
    ) -> Result<Option<accounts::BusinessUnit>> {
        let Some(id) = id else { return Ok(None) };
        let company_id = caller.company.id;
        let unit = self.store.read(move |c| accounts::unit(c, company_id, id)).await?;
        unit.map(Some).ok_or_else(|| {
            FieldErrors::one("destination_unit_id", "No business unit of the company has this id.").into()
        })
    }

    /// Issues a note. Its internalId is looked up first; v2 answers a repeated one with the first
    /// note (also one issued meanwhile by a request with the same internalId) when the caller may
    /// read it, and like v1 with 409 otherwise: a replay hands out no note its caller could not
    /// read by its id.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn issue_wtn(&self, caller: &Caller, req: IssueWtnRequest) -> Result<WtnIssue> {
        let year = this_year(self.clock.utc());
        let internal_id = req.note.internal_id().map(|value| InternalId {
            namespace: Namespace::Wtn,
            company_id: caller.company.id,
            year,
            value: value.to_string(),
        });
        let repeat_answers_first = req.api_version == ApiVersion::V2;
        let looked_up = match &internal_id {
            Some(internal_id) => self.first_look(internal_id).await,
            None => Ok(()),
        };
        let issued = match looked_up {
            Ok(()) => self.issue_new_wtn(caller, req, year).await,
            Err(e) => Err(e),
        };
        match (issued, internal_id) {
            (Err(Error::Clash(clash)), Some(internal_id)) if repeat_answers_first => {
                match self.wtn_of_year(caller, year, &internal_id.value).await? {
                    Some(first) if readable(caller, first.device_code.as_deref(), first.user_id).is_ok() => {
                        Ok(WtnIssue::Repeated(first))
                    }
                    _ => Err(Error::Clash(clash)),
                }
            }
            (issued, _) => issued.map(WtnIssue::Issued),
        }
    }

    /// A note whose internalId (if any) was not issued yet: checked, then through the pipeline.
    async fn issue_new_wtn(&self, caller: &Caller, req: IssueWtnRequest, year: i32) -> Result<Issued<Wtn>> {
        let (operator_code, unit_code, tcr_code) = user_codes(caller, false)?;
        let unit =
            caller.unit.clone().ok_or_else(|| Error::Refused("The user has no business unit.".into()))?;
        rules::check_references(&req.note, unit.id)?;
        let destination = self.destination_unit(caller, req.note.destination_unit_id).await?;
        let company = &caller.company;
        let defaults = Defaults {
            origin_city: company.city.as_deref().or(unit.city.as_deref()),
            origin_address: unit.address.as_deref().or(company.address.as_deref()),
            destination_city: destination.as_ref().and_then(|d| d.city.as_deref()),
            destination_address: destination.as_ref().and_then(|d| d.address.as_deref()),
        };
        let note = rules::check(&req.note, &defaults)?;
        let issuer = self.issuer(caller, operator_code, unit_code, tcr_code).await?;
        let document = WtnDocument {
            issuer,
            content: Content {
                internal_id: req.note.internal_id().map(str::to_string),
                api_version: req.api_version,
                note,
                destination_unit_id: destination.as_ref().map(|d| d.id),
                destination_unit_name: destination.map(|d| d.name),
            },
            sequence: Sequence::WtnUnit(unit.id),
            year,
            request_key: Uuid::new_v4().to_string(),
        };
        self.issue(document).await
    }

    /// The company's notes; a cashier's own (their device's and those they issued).
    pub async fn wtns(&self, caller: &Caller, filter: ListFilter) -> Result<Vec<Wtn>> {
        let company_id = caller.company.id;
        let own = (caller.role() < Role::Manager).then(|| crate::store::invoices::Own {
            tcr_code: caller.user.tcr_code.clone(),
            user_id: caller.user.id,
        });
        let filter = ListFilter { own, ..filter };
        Ok(self.store.read(move |c| db::list(c, company_id, &filter)).await?)
    }

    /// The note `id`, when the caller may read it.
    pub async fn wtn(&self, caller: &Caller, id: i64) -> Result<Wtn> {
        let note = self.company_wtn(caller, id).await?;
        readable(caller, note.device_code.as_deref(), note.user_id)?;
        Ok(note)
    }

    /// The company's note `id`, whoever issued it.
    async fn company_wtn(&self, caller: &Caller, id: i64) -> Result<Wtn> {
        let company_id = caller.company.id;
        self.store
            .read(move |c| db::get(c, company_id, id))
            .await?
            .ok_or_else(|| Error::NotFound("Warehouse transfer note".into()))
    }

    /// The company's newest note with `internal_id`, when the caller may read it.
    pub async fn wtn_by_internal_id(&self, caller: &Caller, internal_id: &str) -> Result<Wtn> {
        let (company_id, internal_id) = (caller.company.id, internal_id.to_string());
        let note = self
            .store
            .read(move |c| db::by_internal_id(c, company_id, &internal_id))
            .await?
            .ok_or_else(|| Error::NotFound("Warehouse transfer note".into()))?;
        readable(caller, note.device_code.as_deref(), note.user_id)?;
        Ok(note)
    }

    /// The print document of the spec (the JSON a POS prints from).
    pub async fn wtn_print(&self, caller: &Caller, id: i64) -> Result<PrintDocument> {
        let note = self.wtn(caller, id).await?;
        let (company_id, unit_id) = (caller.company.id, note.business_unit_id);
        let (settings, unit) = self
            .store
            .read(move |c| {
                Ok((
                    crate::store::print_settings::get(c, company_id)?,
                    accounts::unit(c, company_id, unit_id)?,
                ))
            })
            .await?;
        Ok(print::document(&caller.company, unit.as_ref(), &settings, note))
    }

    /// The note as an A4 PDF.
    pub async fn wtn_pdf(&self, caller: &Caller, id: i64) -> Result<Vec<u8>> {
        let document = self.wtn_print(caller, id).await?;
        let printable = print::printable(&document);
        super::invoices::rendered(format!("warehouse transfer note {id}"), move || {
            crate::print::render_wtn(&printable)
        })
        .await
    }

    /// Absolute URL of a note's print document (`what` = `print`) or PDF (`pdf`).
    pub fn wtn_url(&self, host: Option<&str>, version: ApiVersion, what: &str, id: i64) -> String {
        format!("{}/api/v{}/invoice/wtn/{what}/{id}", self.selling().pdf_base(host), version.number())
    }

    pub async fn print_settings(&self, caller: &Caller) -> Result<PrintSettings> {
        let company_id = caller.company.id;
        Ok(self.store.read(move |c| print_settings::get(c, company_id)).await?)
    }

    /// The owner sets the logo (base64 of a PNG or JPEG file, `null` takes it away) and whether
    /// printed documents carry the unit's name instead of the company's.
    pub async fn update_print_settings(
        &self,
        caller: &Caller,
        logo: Patch<String>,
        unit_name: Option<bool>,
    ) -> Result<PrintSettings> {
        let logo = match logo {
            None => None,
            Some(None) => Some(None),
            Some(Some(text)) => Some(Some(print::logo(&text)?)),
        };
        let company_id = caller.company.id;
        let entry = crate::services::audit::by(caller, Action::SettingsPrint, company_id);
        self.store
            .write(move |tx| {
                let stored = print_settings::get(tx, company_id)?;
                let settings = PrintSettings {
                    logo: logo.unwrap_or_else(|| stored.logo.clone()),
                    unit_name: unit_name.unwrap_or(stored.unit_name),
                };
                print_settings::save(tx, company_id, &settings)?;
                let entry = entry.before(print_fields(&stored)).after(print_fields(&settings));
                crate::store::audit::append(tx, &entry)?;
                Ok(settings)
            })
            .await
    }
}

/// What the trail keeps of the print settings: whether a logo is set (its size, not its bytes)
/// and whose name is printed.
fn print_fields(settings: &PrintSettings) -> serde_json::Value {
    serde_json::json!({
        "logoBytes": settings.logo.as_ref().map(|l| l.bytes.len()),
        "unitName": settings.unit_name,
    })
}
