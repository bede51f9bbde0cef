//! The first start of a production box: a one-time setup code, and the wizard's first two
//! steps (the business, then its owner) that make the company. The steps after them are the
//! on-boarding services themselves, called with the owner's session.

use chrono::{DateTime, Utc};

use super::accounts::{Registration, check_business, check_person, register_in};
use super::audit;
use super::people::{Session, check_new_password, new_session_id};
use super::{Clash, Error, NotAllowed, Result, Setup};
use crate::domain::audit::Action;
use crate::domain::validation::{FieldErrors, is_registration_code};
use crate::ops::secrets::{
    hash_password, hash_token, new_setup_code, new_token, setup_code_key, token_prefix,
};
use crate::store::accounts::{self as db, Caller};
use crate::store::people::{self, Progress, SetupBusiness};

/// How long a setup code works.
pub const SETUP_CODE_HOURS: i64 = 24;

/// What lets a request make the first company.
#[derive(Debug, Clone)]
pub enum SetupPass {
    /// The request came from the box itself (`--setup-from-box`).
    FromBox,
    /// The setup code, as typed.
    Code(String),
    Nothing,
}

/// Where the wizard stands, for anyone who asks.
pub struct SetupState {
    /// The box has its owner: the rest of the wizard needs the owner's session.
    pub claimed: bool,
    pub business: Option<SetupBusiness>,
    /// When the code in force expires, while the box has no owner.
    pub code_expires_at: Option<String>,
}

pub struct BusinessInput {
    pub nuis: Option<String>,
    pub name: Option<String>,
    pub address: Option<String>,
    pub issuer_in_vat: Option<bool>,
}

pub struct OwnerInput {
    pub name: Option<String>,
    pub email: Option<String>,
    pub password: Option<String>,
    /// The owner's operator code (tax portal), when they have it now.
    pub operator_code: Option<String>,
}

fn text_at(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn claimed_already() -> Error {
    Error::Clash(Clash::SetUpAlready)
}

fn pass_refused() -> Error {
    Error::Forbidden(NotAllowed::SetupPass)
}

impl Setup<'_> {
    /// At the start of a production server whose box has no owner yet: a new setup code (its
    /// hash kept, valid `SETUP_CODE_HOURS`), in place of any unused one. None once claimed.
    pub fn issue_setup_code(&self) -> Result<Option<(String, DateTime<Utc>)>> {
        if self.services.sandbox {
            return Ok(None);
        }
        let code = new_setup_code()?;
        let hash = hash_token(&setup_code_key(&code));
        let expires = self.services.clock.utc() + chrono::Duration::hours(SETUP_CODE_HOURS);
        let expires_text = text_at(expires);
        let issued = self.services.store.write_blocking(|tx| -> Result<bool> {
            if people::claimed(tx)? {
                return Ok(false);
            }
            people::replace_setup_code(tx, &hash, &expires_text)?;
            Ok(true)
        })?;
        Ok(issued.then_some((code, expires)))
    }

    pub async fn setup_state(&self) -> Result<SetupState> {
        let now = text_at(self.services.clock.utc());
        let sandbox = self.services.sandbox;
        Ok(self
            .services
            .store
            .read(move |conn| {
                let claimed = sandbox || people::claimed(conn)?;
                Ok(SetupState {
                    claimed,
                    business: if claimed { None } else { people::setup_business(conn)? },
                    code_expires_at: if claimed { None } else { people::setup_code_expiry(conn, &now)? },
                })
            })
            .await?)
    }

    /// Whether `pass` may make the first company now: `Clash::SetUpAlready` once the box has its owner; a
    /// wrong code is `Forbidden`, like none.
    pub async fn check_setup_pass(&self, pass: &SetupPass) -> Result<()> {
        self.unclaimed().await?;
        match pass {
            SetupPass::FromBox => Ok(()),
            SetupPass::Nothing => Err(pass_refused()),
            SetupPass::Code(typed) => {
                let hash = hash_token(&setup_code_key(typed));
                let now = text_at(self.services.clock.utc());
                let valid =
                    self.services.store.read(move |conn| people::setup_code_valid(conn, &hash, &now)).await?;
                if valid { Ok(()) } else { Err(pass_refused()) }
            }
        }
    }

    async fn unclaimed(&self) -> Result<()> {
        if self.services.sandbox || self.services.store.read(people::claimed).await? {
            return Err(claimed_already());
        }
        Ok(())
    }

    /// The wizard's first step, saved (again, until the owner's step makes the company).
    pub async fn save_setup_business(&self, pass: &SetupPass, input: BusinessInput) -> Result<SetupBusiness> {
        self.check_setup_pass(pass).await?;
        let mut errors = FieldErrors::new();
        let nuis = input.nuis.as_deref().map(str::trim).unwrap_or_default().to_uppercase();
        let name = input.name.as_deref().map(str::trim).unwrap_or_default().to_string();
        let address = input.address.map(|a| a.trim().to_string()).filter(|a| !a.is_empty());
        if nuis.is_empty() {
            errors.add("nuis", "The nuis field is required.");
        }
        check_business(&mut errors, &nuis, &name, address.as_deref());
        if input.issuer_in_vat.is_none() {
            errors.add("issuerInVat", "The issuerInVat field is required.");
        }
        errors.into_result()?;
        let business =
            SetupBusiness { nuis, name, address, issuer_in_vat: input.issuer_in_vat.unwrap_or(true) };
        let saved = business.clone();
        self.services
            .store
            .write(move |tx| {
                if people::claimed(tx)? {
                    return Err(claimed_already());
                }
                if db::nuis_registered(tx, &saved.nuis)? {
                    return Err(Error::Taken {
                        field: "nuis",
                        message: format!("A company with the nuis {} is already registered.", saved.nuis),
                    });
                }
                people::save_setup_business(tx, &saved)?;
                Ok(())
            })
            .await?;
        tracing::info!(nuis = %business.nuis, "setup: business saved");
        Ok(business)
    }

    /// The wizard's second step: the company from the saved business, its first business unit
    /// and its owner (a password, and a token nobody is shown until it is rotated), in one
    /// transaction that also uses the setup code up and signs the owner in.
    pub async fn create_setup_owner(&self, pass: &SetupPass, input: OwnerInput) -> Result<Session> {
        self.check_setup_pass(pass).await?;
        let name = input.name.as_deref().map(str::trim).unwrap_or_default().to_string();
        let email = input.email.as_deref().map(str::trim).unwrap_or_default().to_string();
        let mut errors = FieldErrors::new();
        check_person(&mut errors, "name", &name, &email);
        check_new_password(&mut errors, "password", input.password.as_deref(), &email);
        let operator_code = input.operator_code.map(|c| c.trim().to_string()).filter(|c| !c.is_empty());
        if operator_code.as_deref().is_some_and(|c| !is_registration_code(c)) {
            errors.add("operatorCode", "The operatorCode must look like ab123cd456.");
        }
        errors.into_result()?;
        let business = self
            .services
            .store
            .read(people::setup_business)
            .await?
            .ok_or_else(|| Error::Clash(Clash::BusinessFirst))?;
        let password = input.password.unwrap_or_default();
        let password_hash = tokio::task::spawn_blocking(move || hash_password(&password)).await??;
        let token = new_token("u")?;
        let (token_hash, prefix) = (hash_token(&token), token_prefix(&token).to_string());
        let (session_id, session_hash) = new_session_id()?;
        let code_hash = match pass {
            SetupPass::Code(typed) => Some(hash_token(&setup_code_key(typed))),
            _ => None,
        };
        let registration = Registration {
            nuis: business.nuis.clone(),
            name: business.name.clone(),
            address: business.address.clone(),
            administrator: name,
            phone: None,
            email,
            issuer_in_vat: business.issuer_in_vat,
            last_noncash_einvoice_number: 0,
        };
        let clock = self.services.clock.clone();
        let caller = self
            .services
            .store
            .write(move |tx| {
                if people::claimed(tx)? {
                    return Err(claimed_already());
                }
                // The code is checked again inside the write: two browsers racing with one code
                // make one owner.
                if let Some(hash) = &code_hash
                    && !people::setup_code_valid(tx, hash, &text_at(clock.utc()))?
                {
                    return Err(pass_refused());
                }
                let (company, _, user) = register_in(tx, None, &registration, false, &token_hash, &prefix)?;
                people::set_password(tx, company.id, user.id, &password_hash)?;
                if let Some(code) = operator_code.as_deref() {
                    let patch = db::UserPatch { operator_code: Some(code), ..Default::default() };
                    db::update_user(tx, company.id, user.id, &patch)?;
                }
                let user = db::user(tx, company.id, user.id)?.ok_or_else(|| Error::Vanished("the owner"))?;
                people::use_setup_codes(tx)?;
                people::clear_setup_business(tx)?;
                people::insert_session(tx, &session_hash, user.id, &crate::store::time_text(clock.utc()))?;
                let caller = db::caller_by_user(tx, user.id)?.ok_or_else(|| Error::Vanished("the owner"))?;
                // The wizard's owner makes themselves: the first entry of the company's trail.
                let entry = audit::by(&caller, Action::UserCreate, user.id).after(audit::user_fields(&user));
                crate::store::audit::append(tx, &entry)?;
                Ok(caller)
            })
            .await?;
        tracing::info!(
            company = caller.company.id,
            user = caller.user.id,
            "setup: the owner is made and signed in"
        );
        Ok(Session { id: session_id, caller })
    }

    /// What the company has of the wizard's later steps.
    pub async fn setup_progress(&self, caller: &Caller) -> Result<Progress> {
        let company_id = caller.company.id;
        Ok(self.services.store.read(move |conn| people::progress(conn, company_id)).await?)
    }

    /// The cashier a test sale is made as: the one asked for, or the company's first user with
    /// an operator code and a fiscal device.
    pub async fn test_sale_cashier(&self, caller: &Caller, user_id: Option<i64>) -> Result<Caller> {
        let company_id = caller.company.id;
        let found = self
            .services
            .store
            .read(move |conn| {
                let id = match user_id {
                    Some(id) => Some(id),
                    None => people::first_cashier(conn, company_id)?,
                };
                match id {
                    Some(id) => db::caller_by_user(conn, id),
                    None => Ok(None),
                }
            })
            .await?
            .filter(|c| c.company.id == company_id);
        let Some(cashier) = found else {
            return Err(match user_id {
                Some(_) => {
                    FieldErrors::one("cashierId", "The cashierId is not a user of this company.").into()
                }
                None => Error::Clash(Clash::CashierAndTillFirst),
            });
        };
        if cashier.user.operator_code.is_none() || cashier.user.tcr_code.is_none() {
            return Err(FieldErrors::one(
                "cashierId",
                "The cashier needs an operator code and a till (fiscal device) to sell.",
            )
            .into());
        }
        Ok(cashier)
    }
}

/// What the owner sees of the wizard's later steps.
pub struct SetupDetails {
    pub certificate: Option<super::accounts::CertificateInfo>,
    pub units: Vec<crate::store::accounts::BusinessUnit>,
    pub devices: Vec<crate::store::devices::Device>,
    pub users: Vec<crate::store::accounts::User>,
}

impl Setup<'_> {
    pub async fn setup_details(&self, caller: &Caller) -> Result<SetupDetails> {
        let certificate = self.services.onboarding().current_certificate(caller).await?;
        let company_id = caller.company.id;
        let (units, devices, users) = self
            .services
            .store
            .read(move |conn| {
                Ok((
                    db::units_of(conn, company_id)?,
                    crate::store::devices::of_company(conn, company_id)?,
                    db::users_of(conn, company_id)?,
                ))
            })
            .await?;
        Ok(SetupDetails { certificate, units, devices, users })
    }
}

impl Setup<'_> {
    /// The business unit of the company's device `tcr_code`, if it has that device.
    pub async fn device_unit(&self, caller: &Caller, tcr_code: &str) -> Result<Option<i64>> {
        let company_id = caller.company.id;
        let code = tcr_code.to_string();
        let device = self
            .services
            .store
            .read(move |conn| crate::store::devices::by_code(conn, company_id, &code))
            .await?;
        Ok(device.map(|d| d.business_unit_id))
    }
}
