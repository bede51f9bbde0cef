//! Ping and account: what POS apps call to test their connection.

use std::sync::OnceLock;

use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;

use super::AppState;
use super::auth::Auth;
use super::error::{ApiError, ApiResult, ok};
use super::owner::RefusedView;
use crate::domain::time::local_text;
use crate::fiscal::gateway::{Breaker, CERTIFICATE_WARNING_DAYS};
use crate::services::accounts::CertificateInfo;

/// The addresses this server can be reached on (loopback only when there is nothing else).
fn server_addresses() -> Vec<String> {
    let all: Vec<std::net::IpAddr> =
        if_addrs::get_if_addrs().map(|ifs| ifs.into_iter().map(|i| i.ip()).collect()).unwrap_or_default();
    let outside: Vec<String> = all.iter().filter(|ip| !ip.is_loopback()).map(|ip| ip.to_string()).collect();
    if outside.is_empty() { all.iter().map(|ip| ip.to_string()).collect() } else { outside }
}

#[derive(Serialize)]
struct Pong {
    pong: i64,
    ip: Vec<String>,
}

pub async fn ping(State(state): State<AppState>, _auth: Auth) -> ApiResult {
    ok(Pong { pong: state.clock.utc().timestamp(), ip: server_addresses() })
}

/// Who the token speaks for, its certificate, the CIS link and the late-delivery queue.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AccountView<'a> {
    company: &'a str,
    nipt: &'a str,
    branch: Option<BranchRef<'a>>,
    user: AccountUser<'a>,
    vat_configs: VatConfigs,
    cert: Option<CertState<'a>>,
    cis_connection: CisConnection,
    fiscal_queue: FiscalQueue,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BranchRef<'a> {
    id: i64,
    name: &'a str,
    business_unit_code: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AccountUser<'a> {
    id: i64,
    name: &'a str,
    email: &'a str,
    operator_code: Option<&'a str>,
    fiscal_tcr_code: Option<&'a str>,
    role: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct VatConfigs {
    issuer_in_vat: bool,
}

/// The signing certificate; `warning` only once it expires within the warning days (or has).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CertState<'a> {
    expires_at: String,
    subject: &'a str,
    expires_soon: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    warning: Option<String>,
}

impl<'a> CertState<'a> {
    fn of(c: &'a CertificateInfo, now: chrono::DateTime<chrono::Utc>) -> Self {
        let expires_soon = c.valid_to - now < chrono::Duration::days(CERTIFICATE_WARNING_DAYS);
        let warning = if c.valid_to <= now {
            Some(
                "The certificate has expired: nothing can be fiscalized until a new one is uploaded."
                    .to_string(),
            )
        } else if expires_soon {
            Some(format!("The certificate expires on {}: upload a new one.", local_text(c.valid_to)))
        } else {
            None
        };
        CertState { expires_at: local_text(c.valid_to), subject: &c.subject, expires_soon, warning }
    }
}

#[derive(Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
enum CisConnection {
    Online,
    Offline { since: String, reason: String },
}

impl CisConnection {
    fn of(breaker: Breaker) -> Self {
        match breaker {
            Breaker::Closed => CisConnection::Online,
            Breaker::Open { since, reason, .. } => {
                CisConnection::Offline { since: local_text(since), reason }
            }
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FiscalQueue {
    waiting: usize,
    rejected: usize,
    refused: Vec<RefusedView>,
    oldest_waiting_since: Option<String>,
    near_legal_limit: Vec<String>,
}

pub async fn account(State(state): State<AppState>, Auth(caller): Auth) -> ApiResult {
    let cert = state.services.onboarding().current_certificate(&caller).await?;
    let queue = state.services.queue_summary(&caller).await?;
    let now = state.clock.utc();
    let (company, user) = (&caller.company, &caller.user);
    ok(AccountView {
        company: &company.name,
        nipt: &company.nuis,
        branch: caller.unit.as_ref().map(|u| BranchRef {
            id: u.id,
            name: &u.name,
            business_unit_code: u.business_unit_code.as_deref(),
        }),
        user: AccountUser {
            id: user.id,
            name: &user.name,
            email: &user.email,
            operator_code: user.operator_code.as_deref(),
            fiscal_tcr_code: user.tcr_code.as_deref(),
            role: user.role.as_str(),
        },
        vat_configs: VatConfigs { issuer_in_vat: company.issuer_in_vat },
        cert: cert.as_ref().map(|c| CertState::of(c, now)),
        cis_connection: CisConnection::of(state.services.gateway.breaker()),
        fiscal_queue: FiscalQueue {
            waiting: queue.waiting,
            rejected: queue.refused.len(),
            refused: queue.refused.iter().map(RefusedView::of).collect(),
            oldest_waiting_since: queue.oldest_waiting_issued_at.map(local_text),
            near_legal_limit: queue.near_legal_limit,
        },
    })
}

/// `assets/openapi.yaml` as `build.rs` packed it (raw DEFLATE: a tenth of its size in the binary).
const OPENAPI_PACKED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/openapi.yaml.deflate"));

/// The OpenAPI document, inflated at its first request.
fn openapi_yaml() -> Result<&'static [u8], ApiError> {
    static YAML: OnceLock<Vec<u8>> = OnceLock::new();
    if let Some(yaml) = YAML.get() {
        return Ok(yaml);
    }
    let yaml = super::web::inflate(OPENAPI_PACKED).map_err(|e| {
        tracing::error!(error = %e, "the embedded OpenAPI document could not be inflated");
        ApiError::status(StatusCode::INTERNAL_SERVER_ERROR, "The OpenAPI document could not be read.")
    })?;
    Ok(YAML.get_or_init(|| yaml))
}

/// The OpenAPI document of this server (no authentication: it describes, it reveals nothing).
pub async fn openapi() -> Result<impl axum::response::IntoResponse, ApiError> {
    Ok(([(axum::http::header::CONTENT_TYPE, "application/yaml")], openapi_yaml()?))
}
