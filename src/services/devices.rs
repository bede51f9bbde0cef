//! Fiscal devices (TCR registration) and the taxpayer look-up, both answered by the CIS.

use chrono::Utc;
use uuid::Uuid;

use super::{Error, Result, Services};
use crate::domain::validation::{FieldErrors, is_nuis};
use crate::fiscal::delivery::Delivery;
use crate::fiscal::model::{GetTaxpayers, PlainHeader, Tcr, TcrType};
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

fn unavailable() -> Error {
    Error::Unavailable(
        "The fiscalization service (CIS) could not be reached. Nothing was saved; try again.".into(),
    )
}

impl Services {
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
            Some(id) => self.store.read(move |conn| db::unit(conn, company_id, id)).await?,
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
            return Err(Error::Internal("validated device input is incomplete".into()));
        };
        let soft_code = self.gateway.codes().soft_code.clone().ok_or_else(|| {
            Error::Refused(
                "Arka has no software code: set ARKA_SOFT_CODE (issued by the tax administration).".into(),
            )
        })?;

        let tcr_int_id = format!("arka-{}", Uuid::new_v4().simple());
        let request = requests::register_tcr(
            &PlainHeader { uuid: Uuid::new_v4(), send_date_time: Utc::now() },
            &Tcr {
                issuer_nuis: caller.company.nuis.clone(),
                busin_unit_code: unit_code.clone(),
                tcr_int_id: tcr_int_id.clone(),
                soft_code: Some(soft_code),
                maintainer_code: self.gateway.codes().maintainer_code.clone(),
                valid_from: Some(from),
                valid_to: to,
                tcr_type: Some(TcrType::Regular),
            },
        );
        let certificate = self.signer(company_id).await?;
        let accepted = match self.call_cis(certificate, request, |c, b| c.register_tcr(b)).await? {
            Delivery::Accepted(a) => a,
            Delivery::Refused(refusal) => return Err(Error::Refused(refusal.message())),
            Delivery::NotDelivered { reason, .. } => {
                tracing::warn!(%reason, "TCR registration not delivered");
                return Err(unavailable());
            }
        };
        let user_id = caller.user.id;
        let caller_unit = caller.user.business_unit_id;
        let entry = super::audit::by(caller, crate::domain::audit::Action::DeviceRegister, "");
        let device = self
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
                        tcr_code: &accepted.tcr_code,
                        business_unit_code: &unit_code,
                        valid_from: &from,
                        valid_to: to.as_deref(),
                    },
                )?;
                // A user's device is one of their own unit's (see `accounts::device_of_unit`).
                let given_to_caller = caller_unit == Some(unit.id);
                if given_to_caller {
                    db::update_user(
                        tx,
                        company_id,
                        user_id,
                        &UserPatch { tcr_code: Some(Some(&accepted.tcr_code)), ..Default::default() },
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
            &PlainHeader { uuid: Uuid::new_v4(), send_date_time: Utc::now() },
            &GetTaxpayers::Tin(nipt.clone()),
        );
        let certificate = self.signer(caller.company.id).await?;
        match self.call_cis(certificate, request, |c, b| c.get_taxpayers(b)).await? {
            Delivery::Accepted(found) => {
                let taxpayer = found
                    .taxpayers
                    .into_iter()
                    .find(|t| t.tin.eq_ignore_ascii_case(&nipt))
                    .ok_or_else(|| Error::NotFound(format!("Taxpayer {nipt}")))?;
                // The register confirmed this NIPT: the company's clients carrying it are verified.
                let company_id = caller.company.id;
                self.store.write(move |tx| clients::mark_verified(tx, company_id, &nipt)).await?;
                Ok(taxpayer)
            }
            Delivery::Refused(refusal) => Err(Error::Refused(refusal.message())),
            Delivery::NotDelivered { reason, .. } => {
                tracing::warn!(%reason, "taxpayer look-up not delivered");
                Err(Error::Unavailable("The fiscal register (CIS) could not be reached; try again.".into()))
            }
        }
    }
}
