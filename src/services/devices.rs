//! Fiscal devices (TCR registration) and the taxpayer look-up, both answered by the CIS.

use uuid::Uuid;

use super::{Error, NotNow, Onboarding, Result, Services};
use crate::domain::validation::{FieldErrors, is_nuis};
use crate::fiscal::delivery::Delivery;
use crate::fiscal::model::{GetEinvoices, GetTaxpayers, PartyType, PlainHeader, Tcr, TcrType};
use crate::fiscal::requests;
use crate::fiscal::response::Taxpayer;
use crate::store::accounts::{self as db, Caller, UserPatch};
use crate::store::clients;
use crate::store::devices::{self, Device, NewDevice};

pub struct DeviceInput {
    pub branch_id: Option<i64>,
    pub name: Option<String>,
    pub from_date: Option<String>,
    pub to_date: Option<String>,
}

/// How far before the oldest retirement the CIS's e-invoices are compared with the books: a dead
/// box's unshipped documents are older than the restore, by as long as it was dead.
const LOOK_BACK: chrono::Duration = chrono::Duration::days(2);

/// The 503's message for a document on a TCR a restore retired.
pub const TCR_RETIRED: &str = "This till's TCR was retired when the shop was restored: the numbers after the restored ones may be at the CIS already. The till goes on on a new TCR as soon as it is registered at the CIS (upload the certificate; Arka registers it): try again then.";

/// How often the continuation is tried while retired TCRs wait for their new one.
const CONTINUE_EVERY: std::time::Duration = std::time::Duration::from_secs(3);

/// A TCR a restore retired, and the new one the shop goes on with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Continued {
    pub retired: String,
    pub new: String,
    /// The last cash number the restored books held on the retired TCR.
    pub last_number: i64,
}

fn unavailable() -> Error {
    Error::Unavailable(NotNow::CisForDevice)
}

impl Onboarding<'_> {
    /// Registers a TCR with the CIS and stores it; the code also goes on the calling user when
    /// the device is in that user's business unit. Nothing is stored unless the CIS accepted it.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn register_device(&self, caller: &Caller, input: DeviceInput) -> Result<Device> {
        let mut errors = FieldErrors::new();
        let name = errors.required("name", input.name.as_deref()).map(str::to_string);
        errors.max_len("name", input.name.as_deref(), 255);
        if input.branch_id.is_none() {
            errors.add("branchId", "The branchId field is required.");
        }
        if input.from_date.as_deref().is_none_or(|d| d.trim().is_empty()) {
            errors.add("fromDate", "The fromDate field is required.");
        }
        let from = errors.date("fromDate", input.from_date.as_deref());
        let to = errors.date("toDate", input.to_date.as_deref());
        if let (Some(from), Some(to)) = (from, to)
            && to < from
        {
            errors.add("toDate", "The toDate must be a date after or equal to fromDate.");
        }
        let company_id = caller.company.id;
        let unit = match input.branch_id {
            Some(id) => self.services.store.read(move |conn| db::unit(conn, company_id, id)).await?,
            None => None,
        };
        if input.branch_id.is_some() && unit.is_none() {
            errors.add("branchId", "The selected branch does not exist.");
        }
        let unit_code = unit.as_ref().and_then(|u| u.business_unit_code.clone());
        if unit.is_some() && unit_code.is_none() {
            errors.add(
                "branchId",
                "The branch has no businessUnitCode yet: set it with POST /api/v1/on-boarding/branch/{id}.",
            );
        }
        errors.into_result()?;
        let (Some(name), Some(unit), Some(unit_code), Some(from)) = (name, unit, unit_code, from) else {
            return Err(Error::Broken("validated device input is incomplete"));
        };
        let (tcr_int_id, tcr_code) =
            self.register_at_cis(company_id, &caller.company.nuis, &unit_code, from, to).await?;
        let user_id = caller.user.id;
        let caller_unit = caller.user.business_unit_id;
        let entry = super::audit::by(caller, crate::domain::audit::Action::DeviceRegister, "");
        let caller_has_none = caller.user.tcr_code.is_none();
        let device = self
            .services
            .store
            .write(move |tx| -> Result<_> {
                let from = from.to_string();
                let to = to.map(|d| d.to_string());
                let device = devices::insert(
                    tx,
                    &NewDevice {
                        company_id,
                        business_unit_id: unit.id,
                        name: &name,
                        tcr_int_id: &tcr_int_id,
                        tcr_code: &tcr_code,
                        business_unit_code: &unit_code,
                        valid_from: &from,
                        valid_to: to.as_deref(),
                    },
                )?;
                // A user's device is one of their own unit's (see `accounts::device_of_unit`); a
                // second device does not take the first one's place: with two tills, a manager
                // or an owner names the one they act on (`?tcr=`).
                let given_to_caller = caller_unit == Some(unit.id) && caller_has_none;
                if given_to_caller {
                    db::update_user(
                        tx,
                        company_id,
                        user_id,
                        &UserPatch { tcr_code: Some(Some(&tcr_code)), ..Default::default() },
                    )?;
                }
                let entry =
                    super::audit::Entry { object: device.id.to_string(), ..entry }.after(serde_json::json!({
                        "name": device.name,
                        "tcr": device.tcr_code,
                        "businessUnitCode": device.business_unit_code,
                        "validFrom": device.valid_from,
                        "validTo": device.valid_to,
                        "givenTo": given_to_caller.then_some(user_id),
                    }));
                crate::store::audit::append(tx, &entry)?;
                Ok(device)
            })
            .await?;
        tracing::info!(company = company_id, tcr = %device.tcr_code, "fiscal device registered");
        Ok(device)
    }

    /// Registers a TCR of `nuis` in the business unit `unit_code` with the CIS: its internal id
    /// and the code the CIS gave it. Nothing is stored here.
    async fn register_at_cis(
        &self,
        company_id: i64,
        nuis: &str,
        unit_code: &str,
        from: chrono::NaiveDate,
        to: Option<chrono::NaiveDate>,
    ) -> Result<(String, String)> {
        let soft_code = self.services.gateway.codes().soft_code.clone().ok_or_else(|| {
            Error::Refused(
                "Arka has no software code: set ARKA_SOFT_CODE (issued by the tax administration).".into(),
            )
        })?;
        let tcr_int_id = format!("arka-{}", Uuid::new_v4().simple());
        let request = requests::register_tcr(
            &PlainHeader { uuid: Uuid::new_v4(), send_date_time: self.services.clock.utc() },
            &Tcr {
                issuer_nuis: nuis.to_string(),
                busin_unit_code: unit_code.to_string(),
                tcr_int_id: tcr_int_id.clone(),
                soft_code: Some(soft_code),
                maintainer_code: self.services.gateway.codes().maintainer_code.clone(),
                valid_from: Some(from),
                valid_to: to,
                tcr_type: Some(TcrType::Regular),
            },
        );
        let certificate = self.services.signer(company_id).await?;
        match self.services.call_cis(certificate, request, |c, b| c.register_tcr(b)).await? {
            Delivery::Accepted(accepted) => Ok((tcr_int_id, accepted.tcr_code)),
            Delivery::Refused(refusal) => Err(Error::Refused(refusal.message())),
            Delivery::NotDelivered { reason, .. } => {
                tracing::warn!(%reason, "TCR registration not delivered");
                Err(unavailable())
            }
        }
    }

    /// Issues 43 and 46: a box brought back from a copy (its head office, an off-box backup) goes
    /// on on new TCRs, never on numbers it cannot prove unused. For each TCR retired by the
    /// restore (`store::devices::retire_all`, in the restore's own transaction) with none after it
    /// yet: a new TCR is registered at the CIS in the same business unit, recorded as the one after
    /// it, and its users move to it. Then the CIS's list of the seller's e-invoices since the
    /// oldest retirement less `LOOK_BACK` is compared with the books, and what the books lack is
    /// kept for the owner. Needs the company's certificate and the CIS; safe to call again (what is
    /// done is skipped). What went on on what.
    pub async fn continue_on_new_tcrs(&self) -> Result<Vec<Continued>> {
        let retired = self.services.store.read(devices::retired).await?;
        let mut continued = Vec::new();
        let today = self.services.clock.utc().with_timezone(&chrono_tz::Europe::Tirane).date_naive();
        for old in retired.iter().filter(|r| r.continued_by.is_none()) {
            let company_id = old.company_id;
            let company = self
                .services
                .store
                .read(move |conn| db::company(conn, company_id))
                .await?
                .ok_or(Error::Vanished("the retired TCR's company"))?;
            let (tcr_int_id, tcr_code) =
                self.register_at_cis(company_id, &company.nuis, &old.business_unit_code, today, None).await?;
            let (retired_code, last_number) = (old.tcr_code.clone(), old.last_number);
            let (old, new_code) = (old.clone(), tcr_code.clone());
            self.services
                .store
                .write(move |tx| -> Result<_> {
                    devices::insert(
                        tx,
                        &NewDevice {
                            company_id: old.company_id,
                            business_unit_id: old.business_unit_id,
                            name: &old.name,
                            tcr_int_id: &tcr_int_id,
                            tcr_code: &new_code,
                            business_unit_code: &old.business_unit_code,
                            valid_from: &today.to_string(),
                            valid_to: None,
                        },
                    )?;
                    devices::continue_on(tx, &old, &new_code)?;
                    Ok(())
                })
                .await?;
            tracing::warn!(retired = %retired_code, new = %tcr_code, last_number, "a restored till goes on on a new TCR registered at the CIS");
            continued.push(Continued { retired: retired_code, new: tcr_code, last_number });
        }
        if let Some(since) = retired.iter().map(|r| r.retired_at.as_str()).min() {
            self.find_cis_only_einvoices(&retired, since).await?;
        }
        Ok(continued)
    }

    /// What a restore left for the owner to see: the retired TCRs and what the CIS lists that the
    /// books lack.
    pub async fn restore_findings(&self) -> Result<(Vec<devices::Retired>, Vec<devices::CisOnly>)> {
        Ok(self.services.store.read(|conn| Ok((devices::retired(conn)?, devices::cis_only(conn)?))).await?)
    }

    /// Keeps the e-invoices the CIS lists for each retired TCR's company since `since` less
    /// `LOOK_BACK` that the books lack.
    async fn find_cis_only_einvoices(&self, retired: &[devices::Retired], since: &str) -> Result<()> {
        let Some(since) = crate::domain::time::parse_stored(since) else { return Ok(()) };
        let mut companies: Vec<i64> = retired.iter().map(|r| r.company_id).collect();
        companies.dedup();
        for company_id in companies {
            let query = GetEinvoices {
                eic: None,
                party_type: Some(PartyType::Seller),
                rec_date_time_from: Some(since - LOOK_BACK),
                rec_date_time_to: Some(self.services.clock.utc()),
            };
            let request = requests::get_einvoices(
                &PlainHeader { uuid: Uuid::new_v4(), send_date_time: self.services.clock.utc() },
                &query,
            );
            let certificate = self.services.signer(company_id).await?;
            let listed = match self.services.call_cis(certificate, request, |c, b| c.get_einvoices(b)).await?
            {
                Delivery::Accepted(listed) => listed.einvoices,
                Delivery::Refused(refusal) => return Err(Error::Refused(refusal.message())),
                Delivery::NotDelivered { .. } => return Err(unavailable()),
            };
            let now = crate::store::now_text();
            self.services
                .store
                .write(move |tx| -> Result<_> {
                    let mut lacking = Vec::new();
                    for e in listed.iter().filter(|e| e.party_type == "SELLER") {
                        if !crate::store::einvoices::company_has_eic(tx, company_id, &e.eic)? {
                            lacking.push(devices::CisOnly {
                                eic: e.eic.clone(),
                                doc_number: Some(e.doc_number.clone()),
                                amount: Some(e.amount.to_string()),
                                received_at: Some(e.rec_date_time.clone()),
                            });
                        }
                    }
                    devices::keep_cis_only(tx, company_id, &lacking, &now)?;
                    Ok(())
                })
                .await?;
        }
        Ok(())
    }

    /// Looks a business up by NIPT in the fiscal register (GetTaxpayers).
    pub async fn find_taxpayer(&self, caller: &Caller, nipt: Option<String>) -> Result<Taxpayer> {
        let nipt = nipt.map(|n| n.trim().to_uppercase()).unwrap_or_default();
        if nipt.is_empty() {
            return Err(FieldErrors::one("nipt", "The nipt field is required.").into());
        }
        if !is_nuis(&nipt) {
            return Err(
                FieldErrors::one("nipt", "The nipt must be a letter, eight digits and a letter.").into()
            );
        }
        let request = requests::get_taxpayers(
            &PlainHeader { uuid: Uuid::new_v4(), send_date_time: self.services.clock.utc() },
            &GetTaxpayers::Tin(nipt.clone()),
        );
        let certificate = self.services.signer(caller.company.id).await?;
        match self.services.call_cis(certificate, request, |c, b| c.get_taxpayers(b)).await? {
            Delivery::Accepted(found) => {
                let taxpayer = found
                    .taxpayers
                    .into_iter()
                    .find(|t| t.tin.eq_ignore_ascii_case(&nipt))
                    .ok_or_else(|| Error::NotFound(format!("Taxpayer {nipt}")))?;
                // The register confirmed this NIPT: the company's clients carrying it are verified.
                let company_id = caller.company.id;
                self.services.store.write(move |tx| clients::mark_verified(tx, company_id, &nipt)).await?;
                Ok(taxpayer)
            }
            Delivery::Refused(refusal) => Err(Error::Refused(refusal.message())),
            Delivery::NotDelivered { reason, .. } => {
                tracing::warn!(%reason, "taxpayer look-up not delivered");
                Err(Error::Unavailable(NotNow::CisForTaxpayer))
            }
        }
    }
}

impl Services {
    /// While a retired TCR waits for its new one (a restore, until the certificate is uploaded and
    /// the CIS answers), tries `continue_on_new_tcrs` every few seconds; ends once none waits.
    pub async fn keep_tcrs_continued(self, mut stop: tokio::sync::watch::Receiver<bool>) {
        loop {
            let waiting = match self.store.read(devices::retired).await {
                Ok(retired) => retired.iter().any(|r| r.continued_by.is_none()),
                Err(e) => {
                    tracing::error!(error = %crate::error_chain(&e), "cannot read the retired TCRs");
                    true
                }
            };
            if !waiting || *stop.borrow() {
                return;
            }
            if let Err(e) = self.onboarding().continue_on_new_tcrs().await {
                tracing::info!(error = %crate::error_chain(&e), "the restored tills wait for their new TCRs (the certificate, the CIS)");
            }
            tokio::select! {
                () = tokio::time::sleep(CONTINUE_EVERY) => {}
                _ = stop.changed() => {}
            }
        }
    }
}
