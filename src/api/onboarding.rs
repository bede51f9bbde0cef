//! Registration and on-boarding (camelCase bodies, as real integrators of the cloud send them)
//! and the bank-account list.

use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::header::CONTENT_TYPE;
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::auth::{Auth, Partner};
use super::error::{ApiError, ApiResult, created, ok};
use super::extract::{Body, PathId, Query, body_rejection, parse_json};
use super::fields;
use super::limits::Interval;
use crate::domain::time::local_text;
use crate::domain::validation::FieldErrors;
use crate::services::accounts::{
    BankAccountInput, CertificateInfo, NewUserInput, Registration, UnitInput, UserUpdate,
};
use crate::services::devices::DeviceInput;
use crate::store::accounts::{BankAccount, BusinessUnit, User};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RegisterBody {
    nuis: Option<String>,
    name: Option<String>,
    address: Option<String>,
    administrator: Option<String>,
    phone: Option<String>,
    email: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_boolean")]
    issuer_in_vat: Option<bool>,
    #[serde(default, rename = "lastNonCashEInvoiceNumber", deserialize_with = "fields::opt_integer")]
    last_non_cash_e_invoice_number: Option<i64>,
}

pub async fn register_ping(_partner: Partner) -> ApiResult {
    ok(json!({"pong": chrono::Utc::now().timestamp()}))
}

pub async fn register(
    State(state): State<AppState>,
    Partner(partner): Partner,
    Body(b): Body<RegisterBody>,
) -> ApiResult {
    let mut errors = FieldErrors::new();
    let nuis = errors.required("nuis", b.nuis.as_deref()).map(str::to_string);
    let name = errors.required("name", b.name.as_deref()).map(str::to_string);
    let administrator = errors.required("administrator", b.administrator.as_deref()).map(str::to_string);
    let email = errors.required("email", b.email.as_deref()).map(str::to_string);
    if b.issuer_in_vat.is_none() {
        errors.add("issuerInVat", "The issuerInVat field is required.");
    }
    let (Some(nuis), Some(name), Some(administrator), Some(email), Some(issuer_in_vat)) =
        (nuis, name, administrator, email, b.issuer_in_vat)
    else {
        return Err(ApiError::Validation(errors));
    };
    let registered = state
        .services
        .register(
            partner,
            Registration {
                nuis,
                name,
                address: b.address,
                administrator,
                phone: b.phone,
                email,
                issuer_in_vat,
                last_noncash_einvoice_number: b.last_non_cash_e_invoice_number.unwrap_or(0),
            },
        )
        .await?;
    created(json!({
        "company": {"id": registered.company.id, "nuis": registered.company.nuis, "name": registered.company.name},
        "user": {
            "id": registered.user.id,
            "name": registered.user.name,
            "email": registered.user.email,
            "token": registered.token,
            "role": registered.user.role.as_str(),
        },
        "branch": {"id": registered.branch.id, "name": registered.branch.name},
        "api_token": registered.token,
    }))
}

/// The longest certificate password accepted; shops' exports use far shorter ones.
const MAX_CERTIFICATE_PASSWORD: usize = 256;

#[derive(Deserialize)]
struct CertificateJson {
    certificate_file: Option<String>,
    password: Option<String>,
}

/// A multipart body over the size limit is 413 like any other body; anything else unreadable
/// is a 422 on the file field.
fn multipart_error(status: axum::http::StatusCode) -> ApiError {
    if status == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::status(status, "The request body is too large.")
    } else {
        ApiError::field("certificate_file", "The multipart body could not be read.")
    }
}

/// `certificate_file` and `password`, from multipart/form-data or from JSON with base64.
pub(super) async fn certificate_parts(state: &AppState, req: Request) -> Result<(Vec<u8>, String), ApiError> {
    let is_multipart = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    let (file, password) = if is_multipart {
        let mut multipart =
            Multipart::from_request(req, state).await.map_err(|e| multipart_error(e.status()))?;
        let (mut file, mut password) = (None, None);
        while let Some(field) = multipart.next_field().await.map_err(|e| multipart_error(e.status()))? {
            match field.name() {
                Some("certificate_file") => {
                    let bytes = field.bytes().await.map_err(|e| multipart_error(e.status()))?;
                    file = Some(bytes.to_vec());
                }
                Some("password") => {
                    password = Some(field.text().await.map_err(|e| multipart_error(e.status()))?);
                }
                _ => {}
            }
        }
        (file, password)
    } else {
        let bytes = Bytes::from_request(req, state).await.map_err(body_rejection)?;
        let body: CertificateJson = parse_json(&bytes)?;
        let file =
            match body.certificate_file {
                Some(b64) => Some(openssl::base64::decode_block(b64.trim()).map_err(|_| {
                    ApiError::field("certificate_file", "The certificate_file must be base64.")
                })?),
                None => None,
            };
        (file, body.password)
    };
    let mut errors = FieldErrors::new();
    if file.as_ref().is_none_or(Vec::is_empty) {
        errors.add("certificate_file", "The certificate_file field is required.");
    }
    if password.is_none() {
        errors.add("password", "The password field is required.");
    }
    // The PKCS#12 key derivation hashes the password once per iteration (2048 and more): a
    // password of megabytes would hold a core for seconds.
    errors.max_len("password", password.as_deref(), MAX_CERTIFICATE_PASSWORD);
    match (file, password) {
        (Some(file), Some(password)) if errors.is_empty() => Ok((file, password)),
        _ => Err(ApiError::Validation(errors)),
    }
}

pub(super) fn cert_json(c: &CertificateInfo) -> Value {
    json!({
        "subject": c.subject,
        "nuis": c.nuis,
        "serial": c.serial,
        "validFrom": local_text(c.valid_from),
        "expiresAt": local_text(c.valid_to),
    })
}

pub async fn certificate(State(state): State<AppState>, Auth(caller): Auth, req: Request) -> ApiResult {
    let (file, password) = certificate_parts(&state, req).await?;
    let info = state.services.upload_certificate(&caller, file, password).await?;
    created(json!({"cert": cert_json(&info)}))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchBody {
    name: Option<String>,
    business_unit_code: Option<String>,
    administrator: Option<String>,
    address: Option<String>,
    city: Option<String>,
}

impl From<BranchBody> for UnitInput {
    fn from(b: BranchBody) -> Self {
        UnitInput {
            name: b.name,
            business_unit_code: b.business_unit_code,
            administrator: b.administrator,
            address: b.address,
            city: b.city,
        }
    }
}

pub(super) fn branch_json(u: &BusinessUnit) -> Value {
    json!({
        "id": u.id,
        "name": u.name,
        "businessUnitCode": u.business_unit_code,
        "address": u.address,
        "city": u.city,
    })
}

pub async fn create_branch(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Body(b): Body<BranchBody>,
) -> ApiResult {
    let unit = state.services.save_unit(&caller, None, b.into()).await?;
    created(json!({"branch": branch_json(&unit)}))
}

pub async fn update_branch(
    State(state): State<AppState>,
    Auth(caller): Auth,
    PathId(id): PathId,
    Body(b): Body<BranchBody>,
) -> ApiResult {
    let unit = state.services.save_unit(&caller, Some(id), b.into()).await?;
    ok(json!({"branch": branch_json(&unit)}))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserBody {
    name: Option<String>,
    email: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_integer")]
    branch_id: Option<i64>,
    operator_code: Option<String>,
    #[serde(default, deserialize_with = "fields::text")]
    fiscal_tcr_code: Option<Option<String>>,
    role: Option<String>,
}

pub(super) fn user_json(u: &User) -> Value {
    json!({
        "id": u.id,
        "name": u.name,
        "operatorCode": u.operator_code,
        "fiscalTcrCode": u.tcr_code,
        "branchId": u.business_unit_id,
        "role": u.role.as_str(),
    })
}

pub async fn create_user(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Body(b): Body<UserBody>,
) -> ApiResult {
    let (user, token) = state
        .services
        .create_user(
            &caller,
            NewUserInput {
                name: b.name,
                email: b.email,
                branch_id: b.branch_id,
                operator_code: b.operator_code,
                tcr_code: b.fiscal_tcr_code.flatten(),
                role: b.role,
            },
        )
        .await?;
    let mut data = user_json(&user);
    data["token"] = json!(token);
    created(json!({"user": data}))
}

pub async fn update_user(
    State(state): State<AppState>,
    Auth(caller): Auth,
    PathId(id): PathId,
    Body(b): Body<UserBody>,
) -> ApiResult {
    let user = state
        .services
        .update_user(
            &caller,
            id,
            UserUpdate {
                name: b.name,
                branch_id: b.branch_id,
                operator_code: b.operator_code,
                tcr_code: b.fiscal_tcr_code,
                role: b.role,
            },
        )
        .await?;
    ok(json!({"user": user_json(&user)}))
}

#[derive(Deserialize)]
pub struct BankAccountBody {
    name: Option<String>,
    holder: Option<String>,
    iban: Option<String>,
    swift: Option<String>,
    currency: Option<String>,
    notes: Option<String>,
}

fn bank_account_json(b: &BankAccount) -> Value {
    json!({
        "id": b.id,
        "name": b.name,
        "holder": b.holder,
        "iban": b.iban,
        "swift": b.swift,
        "currency": b.currency,
        "notes": b.notes,
    })
}

pub async fn create_bank_account(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Body(b): Body<BankAccountBody>,
) -> ApiResult {
    let account = state
        .services
        .add_bank_account(
            &caller,
            BankAccountInput {
                name: b.name,
                holder: b.holder,
                iban: b.iban,
                swift: b.swift,
                currency: b.currency,
                notes: b.notes,
            },
        )
        .await?;
    created(json!({"bankAccount": bank_account_json(&account)}))
}

#[derive(Deserialize)]
pub struct Page {
    limit: Option<i64>,
    offset: Option<i64>,
}

/// The spec's list paging: default 20, capped (lowered without error), offset from 0.
/// A page as answered where no total is given: how many items it holds, and how it was asked.
#[derive(serde::Serialize)]
pub struct PageView {
    pub records: usize,
    pub limit: i64,
    pub offset: i64,
}

pub fn paging(limit: Option<i64>, offset: Option<i64>, cap: i64) -> Result<(i64, i64), ApiError> {
    let limit = limit.unwrap_or(20);
    let offset = offset.unwrap_or(0);
    if limit < 1 {
        return Err(ApiError::field("limit", "The limit must be at least 1."));
    }
    if offset < 0 {
        return Err(ApiError::field("offset", "The offset must be at least 0."));
    }
    Ok((limit.min(cap), offset))
}

pub async fn bank_accounts(State(state): State<AppState>, auth: Auth, Query(q): Query<Page>) -> ApiResult {
    auth.interval(&state, Interval::BankAccounts)?;
    let (limit, offset) = paging(q.limit, q.offset, 100)?;
    let (items, total) = state.services.bank_accounts(&auth.0, limit, offset).await?;
    let items: Vec<Value> = items
        .iter()
        .map(|b| {
            let mut v = bank_account_json(b);
            v["bank_name"] = json!(b.name);
            v
        })
        .collect();
    ok(json!({
        "items": items,
        "pagination": {"records": items.len(), "total": total, "limit": limit, "offset": offset},
    }))
}

pub async fn bank_account(
    State(state): State<AppState>,
    Auth(caller): Auth,
    PathId(id): PathId,
) -> ApiResult {
    let account = state.services.bank_account(&caller, id).await?;
    ok(json!({"bankAccount": bank_account_json(&account)}))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeviceBody {
    #[serde(default, deserialize_with = "fields::opt_integer")]
    branch_id: Option<i64>,
    name: Option<String>,
    from_date: Option<String>,
    to_date: Option<String>,
}

pub async fn fiscal_device(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Body(b): Body<DeviceBody>,
) -> ApiResult {
    let device = state
        .services
        .register_device(
            &caller,
            DeviceInput { branch_id: b.branch_id, name: b.name, from_date: b.from_date, to_date: b.to_date },
        )
        .await?;
    created(json!({"device": {
        "id": device.id,
        "name": device.name,
        "fiscalTcrCode": device.tcr_code,
        "businessUnitCode": device.business_unit_code,
        "validFrom": device.valid_from,
        "validTo": device.valid_to,
    }}))
}
