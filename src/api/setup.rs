//! The setup wizard of a fresh production box: where it stands, the setup code, and each step
//! saved as it is done. The business and the owner need the setup code (`X-Setup-Code`) or a
//! request from the box itself; the steps after them need the owner (their session or token)
//! and are the on-boarding services themselves.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, StatusCode};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::AppState;
use super::auth::{Auth, Identity};
use super::error::{ApiError, ApiResult, created, ok};
use super::extract::{Body, Changes, parse_value};
use super::fields;
use super::onboarding::{BranchView, CertView};
use super::pairing::{PairingCard, pairing_card};
use super::people::{UserView, session_answer};
use crate::domain::document::{ApiVersion, DocumentKind};
use crate::domain::role::Role;
use crate::domain::throttle::{self, Secret};
use crate::domain::time::local_text;
use crate::services::Error as ServiceError;
use crate::services::accounts::{NewUserInput, UnitInput};
use crate::services::devices::DeviceInput;
use crate::services::pipeline::Issued;
use crate::services::setup::{BusinessInput, OwnerInput, SetupDetails, SetupPass};
use crate::store::accounts::Caller;
use crate::store::devices::Device;
use crate::store::people::{Progress, SetupBusiness};

/// The header the setup code travels in.
pub const SETUP_CODE_HEADER: &str = "x-setup-code";

/// The wizard's steps, in order.
pub const STEPS: [&str; 7] = ["business", "owner", "certificate", "unit", "devices", "cashiers", "testSale"];

/// What lets this request make the first company: the code it carries, else the box rule.
fn pass(state: &AppState, code: Option<&str>, peer: SocketAddr) -> SetupPass {
    match code.map(str::trim).filter(|c| !c.is_empty()) {
        Some(code) => SetupPass::Code(code.to_string()),
        None if state.people.setup_from_box.includes(peer.ip()) => SetupPass::FromBox,
        None => SetupPass::Nothing,
    }
}

fn header_code(headers: &HeaderMap) -> Option<&str> {
    headers.get(SETUP_CODE_HEADER).and_then(|v| v.to_str().ok())
}

/// A typed code is a guess at the setup code, slowed per address as passwords are
/// (`domain::throttle`): a guess that must wait is 429, even the right code, from this address only.
async fn checked_pass(state: &AppState, pass: SetupPass, peer: SocketAddr) -> Result<SetupPass, ApiError> {
    let pair = matches!(pass, SetupPass::Code(_)).then(|| throttle::pair(Secret::SetupCode, peer.ip()));
    if let Some(pair) = &pair {
        state.people.guess(pair, state.clock.now())?;
    }
    match state.services.setup().check_setup_pass(&pass).await {
        Ok(()) => {
            if let Some(pair) = &pair {
                state.people.right(pair);
            }
            Ok(pass)
        }
        Err(e) => {
            // Only a wrong code stays counted.
            if let Some(pair) = pair.as_deref().filter(|_| !matches!(e, ServiceError::Forbidden(_))) {
                state.people.right(pair);
            }
            Err(e.into())
        }
    }
}

#[derive(Serialize)]
struct StepView {
    step: &'static str,
    done: bool,
}

fn steps(claimed: bool, business_saved: bool, progress: Option<&Progress>) -> Vec<StepView> {
    let later = |step: &str| {
        progress.is_some_and(|p| match step {
            "certificate" => p.certificate,
            "unit" => p.units_with_code > 0,
            "devices" => p.devices > 0,
            "cashiers" => p.cashiers > 0,
            "testSale" => p.receipts > 0,
            _ => false,
        })
    };
    STEPS
        .iter()
        .map(|&step| StepView {
            step,
            done: match step {
                "business" => claimed || business_saved,
                "owner" => claimed,
                other => later(other),
            },
        })
        .collect()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SetupView<'a> {
    /// The box has its owner: sign in (the owner sees the steps after theirs here).
    claimed: bool,
    sandbox: bool,
    /// This request counts as made from the box itself: no setup code needed.
    from_box: bool,
    /// When the setup code printed at start expires (while the box has no owner).
    setup_code_expires_at: Option<String>,
    /// Every step and whether it is done; empty for a claimed box asked by anyone but its owner.
    steps: Vec<StepView>,
    /// The first step not done.
    next: Option<&'static str>,
    /// Every step is done.
    complete: bool,
    /// The business step as saved (before the owner's step).
    business: Option<BusinessView>,
    /// For the owner: what the later steps made.
    details: Option<DetailsView<'a>>,
}

/// The business as the wizard saved it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BusinessView {
    nuis: String,
    name: String,
    address: Option<String>,
    issuer_in_vat: bool,
}

impl From<SetupBusiness> for BusinessView {
    fn from(b: SetupBusiness) -> Self {
        BusinessView { nuis: b.nuis, name: b.name, address: b.address, issuer_in_vat: b.issuer_in_vat }
    }
}

/// What the steps after the owner's made: the company, its certificate, units, devices, users.
#[derive(Serialize)]
struct DetailsView<'a> {
    company: CompanyView<'a>,
    certificate: Option<CertView<'a>>,
    units: Vec<BranchView<'a>>,
    devices: Vec<DeviceView<'a>>,
    users: Vec<UserView>,
}

impl<'a> DetailsView<'a> {
    fn of(caller: &'a Caller, d: &'a SetupDetails) -> Self {
        let c = &caller.company;
        DetailsView {
            company: CompanyView {
                id: c.id,
                nuis: &c.nuis,
                name: &c.name,
                address: c.address.as_deref(),
                issuer_in_vat: c.issuer_in_vat,
            },
            certificate: d.certificate.as_ref().map(CertView::from),
            units: d.units.iter().map(BranchView::from).collect(),
            devices: d.devices.iter().map(DeviceView::from).collect(),
            users: d.users.iter().map(UserView::of).collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompanyView<'a> {
    id: i64,
    nuis: &'a str,
    name: &'a str,
    address: Option<&'a str>,
    issuer_in_vat: bool,
}

/// A fiscal device as the wizard lists it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeviceView<'a> {
    id: i64,
    name: &'a str,
    fiscal_tcr_code: &'a str,
    business_unit_code: &'a str,
    branch_id: i64,
}

impl<'a> From<&'a Device> for DeviceView<'a> {
    fn from(d: &'a Device) -> Self {
        DeviceView {
            id: d.id,
            name: &d.name,
            fiscal_tcr_code: &d.tcr_code,
            business_unit_code: &d.business_unit_code,
            branch_id: d.business_unit_id,
        }
    }
}

/// `GET /api/v1/setup`: where the wizard stands.
pub async fn status(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    identity: Option<axum::Extension<Identity>>,
) -> ApiResult {
    let setup = state.services.setup().setup_state().await?;
    let caller = match identity {
        Some(axum::Extension(Identity::User(caller))) => Some(caller),
        _ => None,
    };
    let owner = match &caller {
        Some(c) if setup.claimed => c.user.role == Role::Owner,
        _ => false,
    };
    let progress = match (&caller, owner) {
        (Some(c), true) => Some(state.services.setup().setup_progress(c).await?),
        _ => None,
    };
    let list = if setup.claimed && !owner {
        Vec::new()
    } else {
        steps(setup.claimed, setup.business.is_some(), progress.as_ref())
    };
    let next = list.iter().find(|s| !s.done).map(|s| s.step);
    let details = match (&caller, owner) {
        (Some(c), true) => Some((c, state.services.setup().setup_details(c).await?)),
        _ => None,
    };
    ok(SetupView {
        claimed: setup.claimed,
        sandbox: state.services.sandbox,
        from_box: !setup.claimed && state.people.setup_from_box.includes(peer.ip()),
        setup_code_expires_at: setup
            .code_expires_at
            .as_deref()
            .and_then(crate::domain::time::parse_stored)
            .map(local_text),
        complete: !list.is_empty() && next.is_none(),
        next,
        steps: list,
        business: setup.business.map(BusinessView::from),
        details: details.as_ref().map(|(c, d)| DetailsView::of(c, d)),
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeBody {
    code: Option<String>,
}

/// `POST /api/v1/setup/code`: whether a typed setup code is the one in force (the wizard's
/// first screen). A wrong one counts against the address like a wrong password.
pub async fn check_code(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Body(b): Body<CodeBody>,
) -> ApiResult {
    let Some(code) = b.code.map(|c| c.trim().to_string()).filter(|c| !c.is_empty()) else {
        return Err(ApiError::field("code", "The code field is required."));
    };
    match checked_pass(&state, pass(&state, Some(&code), peer), peer).await {
        Ok(_) => ok(Accepted { accepted: true }),
        Err(ApiError::Status { status: StatusCode::FORBIDDEN, .. }) => Err(ApiError::field(
            "code",
            "The setup code is wrong or has expired: read the one the server printed at its last start.",
        )),
        Err(e) => Err(e),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BusinessBody {
    nuis: Option<String>,
    name: Option<String>,
    address: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_boolean")]
    issuer_in_vat: Option<bool>,
}

/// `POST /api/v1/setup/business`: the business, saved until the owner's step makes the company.
pub async fn business(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Body(b): Body<BusinessBody>,
) -> ApiResult {
    let pass = checked_pass(&state, pass(&state, header_code(&headers), peer), peer).await?;
    let saved = state
        .services
        .setup()
        .save_setup_business(
            &pass,
            BusinessInput { nuis: b.nuis, name: b.name, address: b.address, issuer_in_vat: b.issuer_in_vat },
        )
        .await?;
    ok(SavedBusiness { business: saved.into() })
}

#[derive(Serialize)]
struct Accepted {
    accepted: bool,
}

#[derive(Serialize)]
struct SavedBusiness {
    business: BusinessView,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OwnerBody {
    name: Option<String>,
    email: Option<String>,
    password: Option<String>,
    /// The owner's operator code from the tax portal: what the owner's own sales and
    /// cancellations carry (it can be given later, in the owner's profile).
    operator_code: Option<String>,
}

/// `POST /api/v1/setup/owner`: the company is made with its owner, the setup code is used up,
/// and the owner is signed in (the session cookie).
pub async fn owner(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Body(b): Body<OwnerBody>,
) -> ApiResult {
    let pass = checked_pass(&state, pass(&state, header_code(&headers), peer), peer).await?;
    let session = state
        .services
        .setup()
        .create_setup_owner(
            &pass,
            OwnerInput { name: b.name, email: b.email, password: b.password, operator_code: b.operator_code },
        )
        .await?;
    session_answer(&state, session, StatusCode::CREATED).await
}

/// `POST /api/v1/setup/certificate`: the on-boarding certificate upload (multipart or JSON),
/// answered with the subject, NUIS and validity; another NUIS's or an expired one is refused.
pub async fn certificate(State(state): State<AppState>, auth: Auth, req: Request) -> ApiResult {
    let (file, password) = super::onboarding::certificate_parts(&state, req).await?;
    let info = state.services.onboarding().upload_certificate(&auth.0, file, password).await?;
    created(super::onboarding::Uploaded { cert: (&info).into() })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UnitBody {
    name: Option<String>,
    business_unit_code: Option<String>,
    administrator: Option<String>,
    address: Option<String>,
    city: Option<String>,
}

/// `POST /api/v1/setup/unit`: a business unit and its code from the tax portal (the first one
/// completes the unit made with the company).
pub async fn unit(State(state): State<AppState>, auth: Auth, Body(b): Body<UnitBody>) -> ApiResult {
    let input = UnitInput {
        name: b.name,
        business_unit_code: b.business_unit_code,
        administrator: b.administrator,
        address: b.address,
        city: b.city,
    };
    let unit = state.services.onboarding().save_unit(&auth.0, None, input).await?;
    created(super::onboarding::OneBranch { branch: (&unit).into() })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DeviceBody {
    #[serde(default, deserialize_with = "fields::opt_integer")]
    branch_id: Option<i64>,
    name: Option<String>,
    from_date: Option<String>,
    to_date: Option<String>,
}

/// `POST /api/v1/setup/devices`: a fiscal device registered with the CIS (the on-boarding
/// route's service); the business unit defaults to the owner's, the start to today.
pub async fn device(State(state): State<AppState>, auth: Auth, Body(b): Body<DeviceBody>) -> ApiResult {
    let today = state.clock.utc().with_timezone(&chrono_tz::Europe::Tirane).date_naive().to_string();
    let input = DeviceInput {
        branch_id: b.branch_id.or(auth.0.user.business_unit_id),
        name: b.name,
        from_date: b.from_date.or(Some(today)),
        to_date: b.to_date,
    };
    let device = state.services.onboarding().register_device(&auth.0, input).await?;
    created(RegisteredDevice {
        device: DeviceWithValidity {
            device: (&device).into(),
            valid_from: &device.valid_from,
            valid_to: device.valid_to.as_deref(),
        },
    })
}

/// A device just registered, with its validity.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeviceWithValidity<'a> {
    #[serde(flatten)]
    device: DeviceView<'a>,
    valid_from: &'a str,
    valid_to: Option<&'a str>,
}

#[derive(Serialize)]
struct RegisteredDevice<'a> {
    device: DeviceWithValidity<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CashierBody {
    name: Option<String>,
    email: Option<String>,
    operator_code: Option<String>,
    /// The till: one of the company's fiscal devices.
    fiscal_tcr_code: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_integer")]
    branch_id: Option<i64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CashierView {
    user: UserView,
    /// Shown this once: only its hash is kept. `POST /api/v1/users/{id}/token` makes a new one.
    token: String,
    pairing_card: PairingCard,
}

/// `POST /api/v1/setup/cashiers`: a cashier (the on-boarding user service) with their till,
/// answered with their token and pairing card. The business unit defaults to the till's.
pub async fn cashier(
    State(state): State<AppState>,
    auth: Auth,
    headers: HeaderMap,
    Body(b): Body<CashierBody>,
) -> ApiResult {
    let till = b.fiscal_tcr_code.map(|c| c.trim().to_string()).filter(|c| !c.is_empty());
    if till.is_none() {
        return Err(ApiError::field(
            "fiscalTcrCode",
            "The fiscalTcrCode field is required: the cashier's till.",
        ));
    }
    let branch_id = match (b.branch_id, &till) {
        (Some(id), _) => Some(id),
        (None, Some(code)) => {
            state.services.setup().device_unit(&auth.0, code).await?.or(auth.0.user.business_unit_id)
        }
        (None, None) => auth.0.user.business_unit_id,
    };
    let (user, token) = state
        .services
        .people()
        .create_user(
            &auth.0,
            NewUserInput {
                name: b.name,
                email: b.email,
                branch_id,
                operator_code: b.operator_code,
                tcr_code: till,
                role: Some(Role::Cashier.as_str().to_string()),
            },
        )
        .await?;
    let pairing_card = pairing_card(&state, &headers, &user, &token)?;
    Ok(with_status(StatusCode::CREATED, CashierView { user: UserView::of(&user), token, pairing_card }))
}

fn with_status<T: Serialize>(status: StatusCode, data: T) -> axum::response::Response {
    super::error::success(status, data)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TestSaleBody {
    #[serde(default, deserialize_with = "fields::opt_integer")]
    cashier_id: Option<i64>,
}

/// The test sale's one line: a real receipt for a small amount, as any POS would send it.
const TEST_SALE_PRICE: u32 = 10;

/// `POST /api/v1/setup/test-sale`: a real cash receipt of one item at 10 ALL, issued as the
/// cashier (the first one unless named), through the same path as `POST /api/v2/invoice/cash`.
/// Its PDF is `printUrl` (the print route, A4; `?format=receipt` for 80 mm). A receipt is real
/// money at the CIS, so what is not sent means the first cashier only when the body says so
/// (`{}`): an empty body is refused.
pub async fn test_sale(
    State(state): State<AppState>,
    auth: Auth,
    headers: HeaderMap,
    Changes(b): Changes<TestSaleBody>,
) -> ApiResult {
    let cashier = state.services.setup().test_sale_cashier(&auth.0, b.cashier_id).await?;
    let internal_id = format!("setup-test-sale-{}", state.clock.utc().timestamp_millis());
    let body = json!({
        "internalId": internal_id,
        "lines": [{
            "product_name": "Shitje prove", "product_code": "ARKA-TEST", "unit": "copë",
            "quantity": 1, "price": TEST_SALE_PRICE, "total": TEST_SALE_PRICE, "vat": 20,
        }],
        "payment_methods": [{"type": "BANKNOTE", "amount": TEST_SALE_PRICE}],
    });
    let request = super::invoices::issue_request(parse_value(body)?, DocumentKind::Cash, ApiVersion::V2)?;
    let issued = state.services.selling().issue_test_sale(&auth.0, &cashier, request).await?;
    let (invoice, fiscalized) = match issued {
        Issued::Fiscalized(invoice) => (invoice, true),
        Issued::Deferred(invoice) => (invoice, false),
    };
    let host = super::invoices::host(&headers);
    let view = super::invoices::issue_result(&state, &invoice, ApiVersion::V2, host);
    Ok(with_status(
        StatusCode::CREATED,
        json!({
            "invoice": view,
            "fiscalized": fiscalized,
            "cashierId": cashier.user.id,
            "printUrl": format!("/api/v1/invoice/print/{}", invoice.id),
        }),
    ))
}
