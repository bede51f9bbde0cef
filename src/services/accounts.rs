//! Registration and on-boarding: companies, business units, users, certificates, bank accounts.

use chrono::Utc;

use super::{Error, Onboarding, People, Result, audit};
use crate::domain::audit::Action;
use crate::domain::role::{self, Role};
use crate::domain::validation::{
    FieldErrors, is_currency_code, is_email, is_iban, is_nuis, is_registration_code,
};
use crate::fiscal::certificate::Certificate;
use crate::ops::secrets::{hash_token, new_token, token_prefix};
use crate::store;
use crate::store::accounts::{
    self as db, BankAccount, BusinessUnit, Caller, Company, NewBankAccount, NewCompany, NewUser, UnitFields,
    User, UserPatch,
};
use crate::store::devices;

/// The sandbox company's tax id, printed at start and in the README.
pub const SANDBOX_NUIS: &str = "K00000001S";
/// The fixed partner token of `--sandbox` (a sandbox has nothing to protect).
pub const SANDBOX_PARTNER_TOKEN: &str = "arka_p_sandbox";
const SANDBOX_COMPANY_NAME: &str = "Arka Sandbox sh.p.k.";

/// `arka apps create`: an application that may call with this client id and secret; only the
/// secret's hash is kept.
pub fn add_app(store: &store::Store, name: &str, client_id: &str, secret: &str) -> store::Result<i64> {
    store.write_blocking(|tx| db::insert_app(tx, name, client_id, &hash_token(secret)))
}

/// `arka partners create`: a partner that may register companies with this token; only its
/// hash is kept.
pub fn add_partner(store: &store::Store, name: &str, token: &str) -> store::Result<i64> {
    store.write_blocking(|tx| db::insert_partner(tx, name, &hash_token(token)))
}

pub struct Registration {
    pub nuis: String,
    pub name: String,
    pub address: Option<String>,
    pub administrator: String,
    pub phone: Option<String>,
    pub email: String,
    pub issuer_in_vat: bool,
    pub last_noncash_einvoice_number: i64,
}

pub struct Registered {
    pub company: Company,
    pub user: User,
    pub branch: BusinessUnit,
    pub token: String,
}

pub struct UnitInput {
    pub name: Option<String>,
    pub business_unit_code: Option<String>,
    pub administrator: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
}

pub struct NewUserInput {
    pub name: Option<String>,
    pub email: Option<String>,
    pub branch_id: Option<i64>,
    pub operator_code: Option<String>,
    pub tcr_code: Option<String>,
    /// As sent; not sent (or null): a cashier.
    pub role: Option<String>,
}

pub struct UserUpdate {
    pub name: Option<String>,
    pub branch_id: Option<i64>,
    pub operator_code: Option<String>,
    /// Not sent: kept; null: taken away.
    pub tcr_code: Option<Option<String>>,
    /// As sent; not sent (or null): kept.
    pub role: Option<String>,
}

/// The role `role` names, spelled exactly as the API spells it (" owner" is no role), or 422 on
/// `role`.
fn sent_role(errors: &mut FieldErrors, role: Option<&str>) -> Option<Role> {
    let sent = role?;
    let parsed = Role::parse(sent);
    if parsed.is_none() {
        errors.add("role", "The role must be one of owner, manager, cashier.");
    }
    parsed
}

pub struct BankAccountInput {
    pub name: Option<String>,
    pub holder: Option<String>,
    pub iban: Option<String>,
    pub swift: Option<String>,
    pub currency: Option<String>,
    pub notes: Option<String>,
}

/// A stored certificate as callers see it.
pub struct CertificateInfo {
    /// The NUIS found in the subject, when one is.
    pub nuis: Option<String>,
    pub subject: String,
    pub serial: String,
    pub valid_from: chrono::DateTime<Utc>,
    pub valid_to: chrono::DateTime<Utc>,
}

fn blank_to_none(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// A unique variant of a sandbox e-mail, so the same registration can be repeated.
fn sandbox_email(email: &str) -> Result<String> {
    let suffix = &new_token("s")?[7..15];
    Ok(match email.split_once('@') {
        Some((local, domain)) => format!("{local}+{suffix}@{domain}"),
        None => format!("{email}+{suffix}"),
    })
}

impl Onboarding<'_> {
    /// Makes sure the sandbox company, its first business unit and the sandbox partner exist.
    pub fn ensure_sandbox(&self) -> Result<Company> {
        let hash = hash_token(SANDBOX_PARTNER_TOKEN);
        self.services.store.write_blocking(|tx| {
            if db::partner_by_token(tx, &hash)?.is_none() {
                db::insert_partner(tx, "Sandbox partner", &hash)?;
            }
            if let Some(company) = db::sandbox_company(tx)? {
                return Ok(company);
            }
            let id = db::insert_company(
                tx,
                &NewCompany {
                    nuis: SANDBOX_NUIS,
                    name: SANDBOX_COMPANY_NAME,
                    address: Some("Rruga e Kavajës 1"),
                    city: Some("Tiranë"),
                    administrator: Some("Sandbox"),
                    phone: None,
                    email: None,
                    issuer_in_vat: true,
                    last_noncash_einvoice_number: 0,
                    is_sandbox: true,
                    partner_id: None,
                },
            )?;
            db::insert_unit(
                tx,
                id,
                &UnitFields {
                    name: "Sandbox shop",
                    business_unit_code: Some("sb001sb001"),
                    administrator: None,
                    address: Some("Rruga e Kavajës 1"),
                    city: Some("Tiranë"),
                },
            )?;
            db::company(tx, id)?.ok_or_else(|| Error::Vanished("the sandbox company"))
        })
    }

    #[tracing::instrument(skip_all, fields(partner = partner_id), err(level = "info"))]
    pub async fn register(&self, partner_id: i64, r: Registration) -> Result<Registered> {
        let mut errors = FieldErrors::new();
        check_business(&mut errors, &r.nuis, &r.name, r.address.as_deref());
        check_person(&mut errors, "administrator", &r.administrator, &r.email);
        errors.max_len("phone", r.phone.as_deref(), 50);
        if r.last_noncash_einvoice_number < 0 {
            errors.add("lastNonCashEInvoiceNumber", "The lastNonCashEInvoiceNumber must be at least 0.");
        }
        errors.into_result()?;

        let into_sandbox = self.services.sandbox && r.nuis.eq_ignore_ascii_case(SANDBOX_NUIS);
        let email = if into_sandbox { sandbox_email(&r.email)? } else { r.email.clone() };
        let r = Registration { email, ..r };
        let token = new_token("u")?;
        let token_hash = hash_token(&token);
        let prefix = token_prefix(&token).to_string();
        let (company, branch, user) = self
            .services
            .store
            .write(move |tx| register_in(tx, Some(partner_id), &r, into_sandbox, &token_hash, &prefix))
            .await?;
        tracing::info!(company = company.id, user = user.id, sandbox = into_sandbox, "registered");
        Ok(Registered { company, user, branch, token })
    }

    fn unit_fields(input: &UnitInput) -> Result<()> {
        let mut errors = FieldErrors::new();
        errors.required("name", input.name.as_deref());
        if let Some(code) = errors.required("businessUnitCode", input.business_unit_code.as_deref())
            && !is_registration_code(code)
        {
            errors.add("businessUnitCode", "The businessUnitCode must look like ab123cd456.");
        }
        errors.required("address", input.address.as_deref());
        for (field, value) in
            [("name", &input.name), ("administrator", &input.administrator), ("address", &input.address)]
        {
            errors.max_len(field, value.as_deref(), 255);
        }
        errors.max_len("city", input.city.as_deref(), 100);
        Ok(errors.into_result()?)
    }

    /// Creates a business unit, or replaces one when `id` is given. The unit registration made
    /// for the caller has no business unit code yet (the tax portal issues it later), so the
    /// first unit the caller creates while theirs has none becomes that unit: the user who
    /// registered then issues from the unit they created, and no empty unit is left behind.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn save_unit(
        &self,
        caller: &Caller,
        id: Option<i64>,
        input: UnitInput,
    ) -> Result<BusinessUnit> {
        Self::unit_fields(&input)?;
        let company_id = caller.company.id;
        let own_unit = caller.user.business_unit_id;
        let entry = audit::by(caller, Action::UnitUpdate, "");
        let unit = self
            .services
            .store
            .write(move |tx| -> Result<Option<BusinessUnit>> {
                let fields = UnitFields {
                    name: input.name.as_deref().unwrap_or_default().trim(),
                    business_unit_code: input.business_unit_code.as_deref().map(str::trim),
                    administrator: input.administrator.as_deref(),
                    address: input.address.as_deref(),
                    city: input.city.as_deref(),
                };
                let without_code = match own_unit {
                    Some(own) => db::unit(tx, company_id, own)?.filter(|u| u.business_unit_code.is_none()),
                    None => None,
                };
                let (id, before) = match (id, without_code) {
                    (Some(id), _) | (None, Some(BusinessUnit { id, .. })) => {
                        let before = db::unit(tx, company_id, id)?;
                        if !db::update_unit(tx, company_id, id, &fields)? {
                            return Ok(None);
                        }
                        (id, before)
                    }
                    (None, None) => (db::insert_unit(tx, company_id, &fields)?, None),
                };
                let unit = db::unit(tx, company_id, id)?;
                let action = if before.is_some() { Action::UnitUpdate } else { Action::UnitCreate };
                let mut entry = audit::Entry { action, object: id.to_string(), ..entry };
                if let Some(before) = &before {
                    entry = entry.before(unit_fields(before));
                }
                if let Some(after) = &unit {
                    entry = entry.after(unit_fields(after));
                }
                crate::store::audit::append(tx, &entry)?;
                Ok(unit)
            })
            .await?;
        unit.ok_or_else(|| Error::NotFound("Branch".into()))
    }

    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn add_bank_account(&self, caller: &Caller, input: BankAccountInput) -> Result<BankAccount> {
        let mut errors = FieldErrors::new();
        errors.required("name", input.name.as_deref());
        errors.required("holder", input.holder.as_deref());
        if let Some(iban) = errors.required("iban", input.iban.as_deref())
            && !is_iban(iban)
        {
            errors.add("iban", "The iban is not a valid IBAN (its checksum does not match).");
        }
        if let Some(currency) = errors.required("currency", input.currency.as_deref())
            && !is_currency_code(currency)
        {
            errors.add("currency", "The currency must be a three-letter ISO 4217 code such as ALL or EUR.");
        }
        for (field, value) in [("name", &input.name), ("holder", &input.holder), ("notes", &input.notes)] {
            errors.max_len(field, value.as_deref(), 255);
        }
        errors.max_len("swift", input.swift.as_deref(), 11);
        errors.into_result()?;

        let company_id = caller.company.id;
        let entry = audit::by(caller, Action::BankAccountCreate, "");
        let account = self
            .services
            .store
            .write(move |tx| {
                let iban: String = input
                    .iban
                    .as_deref()
                    .unwrap_or_default()
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                let swift = blank_to_none(input.swift);
                let notes = blank_to_none(input.notes);
                let id = db::insert_bank_account(
                    tx,
                    &NewBankAccount {
                        company_id,
                        name: input.name.as_deref().unwrap_or_default().trim(),
                        holder: input.holder.as_deref().unwrap_or_default().trim(),
                        iban: &iban,
                        swift: swift.as_deref(),
                        currency: input.currency.as_deref().unwrap_or_default().trim(),
                        notes: notes.as_deref(),
                    },
                )?;
                let account = db::bank_account(tx, company_id, id)?
                    .ok_or_else(|| Error::Vanished("the bank account just saved"))?;
                let entry = audit::Entry { object: id.to_string(), ..entry }.after(serde_json::json!({
                    "name": account.name,
                    "holder": account.holder,
                    "iban": account.iban,
                    "swift": account.swift,
                    "currency": account.currency,
                }));
                crate::store::audit::append(tx, &entry)?;
                Ok::<_, Error>(account)
            })
            .await?;
        Ok(account)
    }

    pub async fn bank_accounts(
        &self,
        caller: &Caller,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<BankAccount>, i64)> {
        let company_id = caller.company.id;
        Ok(self.services.store.read(move |conn| db::bank_accounts(conn, company_id, limit, offset)).await?)
    }

    pub async fn bank_account(&self, caller: &Caller, id: i64) -> Result<BankAccount> {
        let company_id = caller.company.id;
        self.services
            .store
            .read(move |conn| db::bank_account(conn, company_id, id))
            .await?
            .ok_or_else(|| Error::NotFound("Bank account".into()))
    }

    /// Stores the company's signing certificate. In the sandbox any file and password are
    /// accepted and a certificate for the company's NUIS, valid one year, is made instead.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn upload_certificate(
        &self,
        caller: &Caller,
        file: Vec<u8>,
        password: String,
    ) -> Result<CertificateInfo> {
        let company = caller.company.clone();
        let sandbox = self.services.sandbox;
        let now = self.services.clock.utc();
        let cert = tokio::task::spawn_blocking(move || -> Result<Certificate> {
            if sandbox {
                return Ok(Certificate::generate_self_signed(
                    &company.nuis,
                    &company.name,
                    chrono::Duration::days(365),
                )?);
            }
            let cert = Certificate::from_p12(&file, &password).map_err(certificate_field_error)?;
            if !cert.carries_nuis(&company.nuis) {
                let message = match cert.nuis() {
                    Some(other) => format!(
                        "The certificate is for NUIS {other}, not for this company's NUIS {}.",
                        company.nuis
                    ),
                    None => format!("The certificate does not belong to NUIS {}.", company.nuis),
                };
                return Err(Error::Invalid(FieldErrors::one("certificate_file", message)));
            }
            refuse_outside_validity(&cert, now)?;
            Ok(cert)
        })
        .await??;

        let sealed = self.services.key_file.seal(&cert.private_key_pkcs8_der()?)?;
        let info = CertificateInfo {
            nuis: cert.nuis(),
            subject: cert.subject(),
            serial: cert.serial_hex(),
            valid_from: cert.valid_from(),
            valid_to: cert.valid_to(),
        };
        let company_id = caller.company.id;
        let cert_der = cert.cert_der().to_vec();
        let (subject, serial) = (info.subject.clone(), info.serial.clone());
        let (from, to) = (info.valid_from.to_rfc3339(), info.valid_to.to_rfc3339());
        let entry = audit::by(caller, Action::CertificateUpload, "");
        self.services
            .store
            .write(move |tx| {
                let before = db::current_certificate(tx, company_id)?
                    .map(|c| serde_json::json!({ "serial": c.serial, "validTo": c.valid_to }));
                let after = serde_json::json!({ "subject": subject, "serial": serial, "validTo": to });
                let id = db::insert_certificate(
                    tx,
                    &db::NewCertificate {
                        company_id,
                        subject: &subject,
                        serial: &serial,
                        valid_from: &from,
                        valid_to: &to,
                        cert_der: &cert_der,
                        key_sealed: &sealed,
                    },
                )?;
                let mut entry = audit::Entry { object: id.to_string(), ..entry }.after(after);
                if let Some(before) = before {
                    entry = entry.before(before);
                }
                crate::store::audit::append(tx, &entry)
            })
            .await?;
        self.services.gateway.certificate_changed(company_id);
        tracing::info!(company = company_id, serial = %info.serial, "certificate stored");
        Ok(info)
    }

    /// The company's current certificate, if one was uploaded.
    pub async fn current_certificate(&self, caller: &Caller) -> Result<Option<CertificateInfo>> {
        let company_id = caller.company.id;
        let stored = self.services.store.read(move |conn| db::current_certificate(conn, company_id)).await?;
        Ok(stored.and_then(|c| {
            let der = openssl::x509::X509::from_der(&c.cert_der).ok();
            Some(CertificateInfo {
                nuis: der.as_ref().and_then(nuis_in_subject),
                subject: c.subject,
                serial: c.serial,
                valid_from: crate::domain::time::parse_stored(&c.valid_from)?,
                valid_to: crate::domain::time::parse_stored(&c.valid_to)?,
            })
        }))
    }
}

impl People<'_> {
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn create_user(&self, caller: &Caller, input: NewUserInput) -> Result<(User, String)> {
        let mut errors = FieldErrors::new();
        errors.required("name", input.name.as_deref());
        errors.max_len("name", input.name.as_deref(), 255);
        if let Some(email) = errors.required("email", input.email.as_deref())
            && !is_email(email)
        {
            errors.add("email", "The email must be a valid email address.");
        }
        errors.max_len("email", input.email.as_deref(), 255);
        if input.branch_id.is_none() {
            errors.add("branchId", "The branchId field is required.");
        }
        check_code(&mut errors, "operatorCode", input.operator_code.as_deref(), true);
        check_code(&mut errors, "fiscalTcrCode", input.tcr_code.as_deref(), false);
        let asked = sent_role(&mut errors, input.role.as_deref());
        errors.into_result()?;
        let role = role::role_of_new_user(caller.role(), asked)?;

        let company_id = caller.company.id;
        let token = new_token("u")?;
        let token_hash = hash_token(&token);
        let prefix = token_prefix(&token).to_string();
        let entry = audit::by(caller, Action::UserCreate, "");
        let created = self
            .services
            .store
            .write(move |tx| {
                let email = input.email.as_deref().unwrap_or_default().trim();
                if db::email_in_use(tx, email)? {
                    return Err(Error::Refused("The email has already been taken.".into()));
                }
                let Some(unit) = db::unit(tx, company_id, input.branch_id.unwrap_or_default())? else {
                    return Err(Error::Refused("Branch not found.".into()));
                };
                let tcr_code = input.tcr_code.as_deref().map(str::trim).filter(|c| !c.is_empty());
                if let Some(code) = tcr_code {
                    device_of_unit(tx, company_id, code, unit.id)?;
                }
                let id = db::insert_user(
                    tx,
                    &NewUser {
                        company_id,
                        business_unit_id: Some(unit.id),
                        name: input.name.as_deref().unwrap_or_default().trim(),
                        email,
                        operator_code: input.operator_code.as_deref(),
                        tcr_code,
                        role,
                        token_hash: &token_hash,
                        token_prefix: &prefix,
                    },
                )?;
                let user = db::user(tx, company_id, id)?
                    .ok_or_else(|| Error::Refused("The user could not be saved.".into()))?;
                let entry = audit::Entry { object: id.to_string(), ..entry }.after(audit::user_fields(&user));
                crate::store::audit::append(tx, &entry)?;
                Ok(user)
            })
            .await;
        match created {
            Ok(user) => Ok((user, token)),
            Err(Error::Store(e)) => {
                tracing::error!(error = %crate::error_chain(&e), "saving a user failed");
                Err(Error::Refused("The user could not be saved.".into()))
            }
            Err(e) => Err(e),
        }
    }

    /// Updates a user. `fiscalTcrCode` null (or "") takes the device away; a user moved to
    /// another business unit must leave the old unit's device behind in the same request.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn update_user(&self, caller: &Caller, id: i64, input: UserUpdate) -> Result<User> {
        let mut errors = FieldErrors::new();
        if input.name.as_deref().is_some_and(|n| n.trim().is_empty()) {
            errors.add("name", "The name field must not be empty.");
        }
        errors.max_len("name", input.name.as_deref(), 255);
        check_code(&mut errors, "operatorCode", input.operator_code.as_deref(), false);
        let tcr_code: Option<Option<String>> =
            input.tcr_code.map(|c| c.map(|c| c.trim().to_string()).filter(|c| !c.is_empty()));
        check_code(&mut errors, "fiscalTcrCode", tcr_code.clone().flatten().as_deref(), false);
        let new_role = sent_role(&mut errors, input.role.as_deref());
        errors.into_result()?;

        let (company_id, caller_id, caller_role) = (caller.company.id, caller.user.id, caller.role());
        let entry = audit::by(caller, Action::UserUpdate, id);
        self.services
            .store
            .write(move |tx| {
                let Some(user) = db::user(tx, company_id, id)? else {
                    return Err(Error::NotFound("User".into()));
                };
                let (_, working_owners) = db::owners(tx, company_id)?;
                let works = !db::token_revoked(tx, company_id, id)?;
                let target =
                    role::Target { is_caller: user.id == caller_id, role: user.role, works, working_owners };
                role::may_update_user(caller_role, target, new_role)?;
                if let Some(branch) = input.branch_id
                    && db::unit(tx, company_id, branch)?.is_none()
                {
                    return Err(Error::Refused("Branch not found.".into()));
                }
                let unit = input.branch_id.or(user.business_unit_id);
                let moved = input.branch_id.is_some_and(|b| Some(b) != user.business_unit_id);
                // The device sent, or the one kept when the user moves to another unit.
                let device = match &tcr_code {
                    Some(sent) => sent.clone(),
                    None if moved => user.tcr_code.clone(),
                    None => None,
                };
                if let (Some(code), Some(unit)) = (device.as_deref(), unit) {
                    device_of_unit(tx, company_id, code, unit).map_err(|e| match e {
                        Error::Invalid(_) if tcr_code.is_none() => FieldErrors::one(
                            "fiscalTcrCode",
                            format!(
                                "The user's fiscal device {code} belongs to another business unit: send the \
                                 fiscalTcrCode of a device of the new unit, or null to take the device away."
                            ),
                        )
                        .into(),
                        other => other,
                    })?;
                }
                let patch = UserPatch {
                    name: input.name.as_deref().map(str::trim),
                    business_unit_id: input.branch_id,
                    operator_code: input.operator_code.as_deref(),
                    tcr_code: tcr_code.as_ref().map(Option::as_deref),
                    role: new_role,
                };
                db::update_user(tx, company_id, id, &patch)?;
                let updated = db::user(tx, company_id, id)?.ok_or_else(|| Error::NotFound("User".into()))?;
                let action = if updated.role == user.role { Action::UserUpdate } else { Action::UserRole };
                let entry = audit::Entry { action, ..entry }
                    .before(audit::user_fields(&user))
                    .after(audit::user_fields(&updated));
                crate::store::audit::append(tx, &entry)?;
                Ok(updated)
            })
            .await
    }
}

/// What the trail keeps of a business unit: the code the CIS knows it by, and where it is.
fn unit_fields(unit: &BusinessUnit) -> serde_json::Value {
    serde_json::json!({
        "name": unit.name,
        "businessUnitCode": unit.business_unit_code,
        "address": unit.address,
        "city": unit.city,
    })
}

/// The business's own fields, as registration and the setup wizard check them: the NUIS
/// (`is_nuis`: a letter, eight digits and a letter), the name and the address.
pub fn check_business(errors: &mut FieldErrors, nuis: &str, name: &str, address: Option<&str>) {
    if !is_nuis(nuis) {
        errors.add("nuis", "The nuis must be a letter, eight digits and a letter (e.g. L41323036D).");
    }
    if name.trim().is_empty() {
        errors.add("name", "The name field is required.");
    }
    errors.max_len("name", Some(name), 255);
    errors.max_len("address", address, 255);
}

/// The first user's name (under `name_field`) and e-mail, as registration and the wizard check them.
pub fn check_person(errors: &mut FieldErrors, name_field: &str, name: &str, email: &str) {
    if name.trim().is_empty() {
        errors.add(name_field, format!("The {name_field} field is required."));
    }
    errors.max_len(name_field, Some(name), 255);
    if !is_email(email) {
        errors.add("email", "The email must be a valid email address.");
    }
    errors.max_len("email", Some(email), 255);
}

/// Registration's write, inside the caller's transaction: the company (or the sandbox's), its
/// first business unit, and its first user (the owner) with `token_hash`. A NUIS already
/// registered or an e-mail already taken is the inner error, with nothing written.
pub(crate) fn register_in(
    tx: &rusqlite::Transaction,
    partner_id: Option<i64>,
    r: &Registration,
    into_sandbox: bool,
    token_hash: &str,
    token_prefix: &str,
) -> Result<(Company, BusinessUnit, User)> {
    let nuis = r.nuis.to_uppercase();
    // One company per NUIS: its numbering and its devices are the tax administration's, so a
    // second company would issue duplicate numbers.
    if !into_sandbox && db::nuis_registered(tx, &nuis)? {
        return Err(Error::Taken {
            field: "nuis",
            message: format!("A company with the nuis {nuis} is already registered."),
        });
    }
    if db::email_in_use(tx, &r.email)? {
        return Err(FieldErrors::one("email", "The email has already been taken.").into());
    }
    let company_id = if into_sandbox {
        match db::sandbox_company(tx)? {
            Some(c) => c.id,
            None => return Err(Error::Vanished("the sandbox company")),
        }
    } else {
        db::insert_company(
            tx,
            &NewCompany {
                nuis: &nuis,
                name: &r.name,
                address: r.address.as_deref(),
                city: None,
                administrator: Some(&r.administrator),
                phone: r.phone.as_deref(),
                email: Some(&r.email),
                issuer_in_vat: r.issuer_in_vat,
                last_noncash_einvoice_number: r.last_noncash_einvoice_number,
                is_sandbox: false,
                partner_id,
            },
        )?
    };
    let unit_id = db::insert_unit(
        tx,
        company_id,
        &UnitFields {
            name: &r.name,
            business_unit_code: None,
            administrator: Some(&r.administrator),
            address: r.address.as_deref(),
            city: None,
        },
    )?;
    let user_id = db::insert_user(
        tx,
        &NewUser {
            company_id,
            business_unit_id: Some(unit_id),
            name: &r.administrator,
            email: &r.email,
            operator_code: None,
            tcr_code: None,
            role: Role::Owner,
            token_hash,
            token_prefix,
        },
    )?;
    let company = db::company(tx, company_id)?;
    let branch = db::unit(tx, company_id, unit_id)?;
    let user = db::user(tx, company_id, user_id)?;
    match (company, branch, user) {
        (Some(company), Some(branch), Some(user)) => Ok((company, branch, user)),
        _ => Err(Error::Vanished("the registration's rows")),
    }
}

/// A user's `fiscalTcrCode` must be one of the company's registered devices, in the user's
/// business unit: the CIS knows each TCR under one unit, and the balance and cash-register
/// actions answer for whichever TCR the user carries (`Error::Invalid` on `fiscalTcrCode`).
fn device_of_unit(conn: &rusqlite::Connection, company_id: i64, tcr_code: &str, unit_id: i64) -> Result<()> {
    match devices::by_code(conn, company_id, tcr_code)? {
        None => Err(FieldErrors::one(
            "fiscalTcrCode",
            "The fiscalTcrCode is not a fiscal device of this company: register one with \
             POST /api/v1/on-boarding/fiscal-device.",
        )
        .into()),
        Some(device) if device.business_unit_id != unit_id => Err(FieldErrors::one(
            "fiscalTcrCode",
            "The fiscalTcrCode is a fiscal device of another business unit than the user's.",
        )
        .into()),
        Some(_) => Ok(()),
    }
}

fn check_code(errors: &mut FieldErrors, field: &str, value: Option<&str>, required: bool) {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        Some(code) if !is_registration_code(code) => {
            errors.add(field, format!("The {field} must look like ab123cd456."));
        }
        None if required => errors.add(field, format!("The {field} field is required.")),
        _ => {}
    }
}

/// A certificate the CIS would refuse to see signatures of: expired, or not valid yet. Said
/// in words, with the date, on the file's field.
fn refuse_outside_validity(cert: &Certificate, now: chrono::DateTime<Utc>) -> Result<()> {
    let day = |t: chrono::DateTime<Utc>| crate::domain::time::local_text(t);
    let message = if now > cert.valid_to() {
        format!(
            "The certificate expired on {}: ask the certificate's issuer for a new one.",
            day(cert.valid_to())
        )
    } else if now < cert.valid_from() {
        format!("The certificate is valid only from {}: upload it then.", day(cert.valid_from()))
    } else {
        return Ok(());
    };
    Err(Error::Invalid(FieldErrors::one("certificate_file", message)))
}

/// The first NUIS-shaped value of a stored certificate's subject.
fn nuis_in_subject(cert: &openssl::x509::X509) -> Option<String> {
    cert.subject_name()
        .entries()
        .filter_map(|e| e.data().to_string().ok())
        .flat_map(|v| v.split(|c: char| !c.is_ascii_alphanumeric()).map(str::to_string).collect::<Vec<_>>())
        .find(|token| is_nuis(token))
}

/// Which field a PKCS#12 failure belongs to: the file, or its password.
fn certificate_field_error(e: crate::fiscal::Error) -> Error {
    let text = e.to_string();
    let field = if text.contains("password") { "password" } else { "certificate_file" };
    let message = if field == "password" {
        "The password does not open this certificate file.".to_string()
    } else {
        format!("The certificate_file is not a usable PKCS#12 (.p12/.pfx) file: {text}.")
    };
    Error::Invalid(FieldErrors::one(field, message))
}
