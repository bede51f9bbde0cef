//! Registration and on-boarding (camelCase bodies, as real integrators of the cloud send them)
//! and the bank-account list.

use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::header::CONTENT_TYPE;
use serde::{Deserialize, Serialize};

use super::AppState;
use super::auth::{Auth, Partner};
use super::error::{ApiError, ApiResult, created, ok};
use super::extract::{Body, Changes, PathId, Query, body_rejection, parse_json};
use super::fields;
use super::limits::Interval;
use crate::domain::time::local_text;
use crate::domain::validation::{self, FieldErrors};
use crate::services::accounts::{
    BankAccountInput, CertificateInfo, NewUserInput, Registration, UnitInput, UserUpdate,
};
use crate::services::devices::DeviceInput;
use crate::store::accounts::{BankAccount, BusinessUnit, User};
use crate::store::devices::Device;

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

#[derive(Serialize)]
struct Pong {
    pong: i64,
}

pub async fn register_ping(State(state): State<AppState>, _partner: Partner) -> ApiResult {
    ok(Pong { pong: state.clock.utc().timestamp() })
}

/// What a registration made: the company, its owner with the token (shown this once) and the
/// first branch.
#[derive(Serialize)]
struct RegisteredView<'a> {
    company: RegisteredCompany<'a>,
    user: RegisteredUser<'a>,
    branch: RegisteredBranch<'a>,
    api_token: &'a str,
}

#[derive(Serialize)]
struct RegisteredCompany<'a> {
    id: i64,
    nuis: &'a str,
    name: &'a str,
}

#[derive(Serialize)]
struct RegisteredUser<'a> {
    id: i64,
    name: &'a str,
    email: &'a str,
    token: &'a str,
    role: &'static str,
}

#[derive(Serialize)]
struct RegisteredBranch<'a> {
    id: i64,
    name: &'a str,
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
        .onboarding()
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
    let (company, user, branch) = (&registered.company, &registered.user, &registered.branch);
    created(RegisteredView {
        company: RegisteredCompany { id: company.id, nuis: &company.nuis, name: &company.name },
        user: RegisteredUser {
            id: user.id,
            name: &user.name,
            email: &user.email,
            token: &registered.token,
            role: user.role.as_str(),
        },
        branch: RegisteredBranch { id: branch.id, name: &branch.name },
        api_token: &registered.token,
    })
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

/// The password part as text. Read as UTF-8, which browsers and HTTP clients send, whatever
/// charset the part names: decoding other charsets (multer's `text()`) would carry encoding_rs's
/// tables for CJK encodings into the binary (0.15 MB, issue 34), and a password that is not
/// UTF-8 is named rather than turned into replacement characters and a "wrong password". A
/// control character is refused as in a JSON body (`extract`'s rule for every string).
fn utf8_password(bytes: Vec<u8>) -> Result<String, ApiError> {
    let password = String::from_utf8(bytes)
        .map_err(|_| ApiError::field("password", "The password must be UTF-8 text."))?;
    let mut errors = FieldErrors::new();
    validation::xml_text(&mut errors, "password", &password);
    if errors.is_empty() { Ok(password) } else { Err(ApiError::Validation(errors)) }
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
                    let bytes = field.bytes().await.map_err(|e| multipart_error(e.status()))?;
                    password = Some(utf8_password(bytes.to_vec())?);
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

/// An uploaded certificate: whose it is and how long it signs (local time).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CertView<'a> {
    subject: &'a str,
    nuis: Option<&'a str>,
    serial: &'a str,
    valid_from: String,
    expires_at: String,
}

impl<'a> From<&'a CertificateInfo> for CertView<'a> {
    fn from(c: &'a CertificateInfo) -> Self {
        CertView {
            subject: &c.subject,
            nuis: c.nuis.as_deref(),
            serial: &c.serial,
            valid_from: local_text(c.valid_from),
            expires_at: local_text(c.valid_to),
        }
    }
}

/// `data` of a certificate upload.
#[derive(Serialize)]
pub(super) struct Uploaded<'a> {
    pub cert: CertView<'a>,
}

pub async fn certificate(State(state): State<AppState>, Auth(caller): Auth, req: Request) -> ApiResult {
    let (file, password) = certificate_parts(&state, req).await?;
    let info = state.services.onboarding().upload_certificate(&caller, file, password).await?;
    created(Uploaded { cert: (&info).into() })
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

/// A branch (business unit) as the on-boarding routes answer it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BranchView<'a> {
    id: i64,
    name: &'a str,
    business_unit_code: Option<&'a str>,
    address: Option<&'a str>,
    city: Option<&'a str>,
}

impl<'a> From<&'a BusinessUnit> for BranchView<'a> {
    fn from(u: &'a BusinessUnit) -> Self {
        BranchView {
            id: u.id,
            name: &u.name,
            business_unit_code: u.business_unit_code.as_deref(),
            address: u.address.as_deref(),
            city: u.city.as_deref(),
        }
    }
}

/// `data` of a route answering one branch.
#[derive(Serialize)]
pub(super) struct OneBranch<'a> {
    pub branch: BranchView<'a>,
}

pub async fn create_branch(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Body(b): Body<BranchBody>,
) -> ApiResult {
    let unit = state.services.onboarding().save_unit(&caller, None, b.into()).await?;
    created(OneBranch { branch: (&unit).into() })
}

pub async fn update_branch(
    State(state): State<AppState>,
    Auth(caller): Auth,
    PathId(id): PathId,
    Body(b): Body<BranchBody>,
) -> ApiResult {
    let unit = state.services.onboarding().save_unit(&caller, Some(id), b.into()).await?;
    ok(OneBranch { branch: (&unit).into() })
}

/// A new user, or a user's changes. Strict: a key it does not know (a misspelt `Role`) is
/// refused, not ignored, as the user it would make is not the one asked for, and a change not
/// sent keeps what the user has. A change's `email` is ignored (it is the user's sign-in, not
/// changed here; integrators send the whole user back).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
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

/// A user as the on-boarding and token routes answer it (never the token's hash).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct UserView<'a> {
    id: i64,
    name: &'a str,
    operator_code: Option<&'a str>,
    fiscal_tcr_code: Option<&'a str>,
    branch_id: Option<i64>,
    role: &'static str,
}

impl<'a> From<&'a User> for UserView<'a> {
    fn from(u: &'a User) -> Self {
        UserView {
            id: u.id,
            name: &u.name,
            operator_code: u.operator_code.as_deref(),
            fiscal_tcr_code: u.tcr_code.as_deref(),
            branch_id: u.business_unit_id,
            role: u.role.as_str(),
        }
    }
}

/// A user with their new token, shown this once.
#[derive(Serialize)]
pub(super) struct WithToken<'a> {
    #[serde(flatten)]
    pub user: UserView<'a>,
    pub token: &'a str,
}

/// `data` of a route answering one user.
#[derive(Serialize)]
struct OneUser<T> {
    user: T,
}

pub async fn create_user(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Body(b): Body<UserBody>,
) -> ApiResult {
    let (user, token) = state
        .services
        .people()
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
    created(OneUser { user: WithToken { user: (&user).into(), token: &token } })
}

pub async fn update_user(
    State(state): State<AppState>,
    Auth(caller): Auth,
    PathId(id): PathId,
    Changes(b): Changes<UserBody>,
) -> ApiResult {
    let user = state
        .services
        .people()
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
    ok(OneUser { user: UserView::from(&user) })
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

#[derive(Serialize)]
struct BankAccountView<'a> {
    id: i64,
    name: &'a str,
    holder: &'a str,
    iban: &'a str,
    swift: Option<&'a str>,
    currency: &'a str,
    notes: Option<&'a str>,
}

impl<'a> From<&'a BankAccount> for BankAccountView<'a> {
    fn from(b: &'a BankAccount) -> Self {
        BankAccountView {
            id: b.id,
            name: &b.name,
            holder: &b.holder,
            iban: &b.iban,
            swift: b.swift.as_deref(),
            currency: &b.currency,
            notes: b.notes.as_deref(),
        }
    }
}

/// `data` of a route answering one bank account.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OneBankAccount<'a> {
    bank_account: BankAccountView<'a>,
}

/// A bank account in the list, which also names it `bank_name`.
#[derive(Serialize)]
struct ListedBankAccount<'a> {
    #[serde(flatten)]
    account: BankAccountView<'a>,
    bank_name: &'a str,
}

#[derive(Serialize)]
struct BankAccounts<'a> {
    items: Vec<ListedBankAccount<'a>>,
    pagination: Pagination,
}

/// A page of a list that also says how many items there are in all.
#[derive(Serialize)]
struct Pagination {
    records: usize,
    total: i64,
    limit: i64,
    offset: i64,
}

pub async fn create_bank_account(
    State(state): State<AppState>,
    Auth(caller): Auth,
    Body(b): Body<BankAccountBody>,
) -> ApiResult {
    let account = state
        .services
        .onboarding()
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
    created(OneBankAccount { bank_account: (&account).into() })
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
    let (items, total) = state.services.onboarding().bank_accounts(&auth.0, limit, offset).await?;
    let items: Vec<ListedBankAccount> =
        items.iter().map(|b| ListedBankAccount { account: b.into(), bank_name: &b.name }).collect();
    let pagination = Pagination { records: items.len(), total, limit, offset };
    ok(BankAccounts { items, pagination })
}

pub async fn bank_account(
    State(state): State<AppState>,
    Auth(caller): Auth,
    PathId(id): PathId,
) -> ApiResult {
    let account = state.services.onboarding().bank_account(&caller, id).await?;
    ok(OneBankAccount { bank_account: (&account).into() })
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
        .onboarding()
        .register_device(
            &caller,
            DeviceInput { branch_id: b.branch_id, name: b.name, from_date: b.from_date, to_date: b.to_date },
        )
        .await?;
    created(Registered { device: (&device).into() })
}

/// A fiscal device as its registration answers it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeviceView<'a> {
    id: i64,
    name: &'a str,
    fiscal_tcr_code: &'a str,
    business_unit_code: &'a str,
    valid_from: &'a str,
    valid_to: Option<&'a str>,
}

impl<'a> From<&'a Device> for DeviceView<'a> {
    fn from(d: &'a Device) -> Self {
        DeviceView {
            id: d.id,
            name: &d.name,
            fiscal_tcr_code: &d.tcr_code,
            business_unit_code: &d.business_unit_code,
            valid_from: &d.valid_from,
            valid_to: d.valid_to.as_deref(),
        }
    }
}

/// `data` of a device registration.
#[derive(Serialize)]
struct Registered<'a> {
    device: DeviceView<'a>,
}
