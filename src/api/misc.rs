//! Ping and account: what POS apps call to test their connection.

use axum::extract::State;
use serde_json::json;

use super::AppState;
use super::auth::Auth;
use super::error::{ApiResult, ok};
use super::owner::RefusedView;
use crate::domain::time::local_text;
use crate::fiscal::gateway::{Breaker, CERTIFICATE_WARNING_DAYS};

/// The addresses this server can be reached on (loopback only when there is nothing else).
fn server_addresses() -> Vec<String> {
    let all: Vec<std::net::IpAddr> =
        if_addrs::get_if_addrs().map(|ifs| ifs.into_iter().map(|i| i.ip()).collect()).unwrap_or_default();
    let outside: Vec<String> = all.iter().filter(|ip| !ip.is_loopback()).map(|ip| ip.to_string()).collect();
    if outside.is_empty() { all.iter().map(|ip| ip.to_string()).collect() } else { outside }
}

pub async fn ping(_auth: Auth) -> ApiResult {
    ok(json!({"pong": chrono::Utc::now().timestamp(), "ip": server_addresses()}))
}

pub async fn account(State(state): State<AppState>, Auth(caller): Auth) -> ApiResult {
    let cert = state.services.current_certificate(&caller).await?;
    let queue = state.services.queue_summary(&caller).await?;
    let now = chrono::Utc::now();
    let cert = cert.map(|c| {
        let expires_soon = c.valid_to - now < chrono::Duration::days(CERTIFICATE_WARNING_DAYS);
        let mut v =
            json!({"expiresAt": local_text(c.valid_to), "subject": c.subject, "expiresSoon": expires_soon});
        if c.valid_to <= now {
            v["warning"] =
                json!("The certificate has expired: nothing can be fiscalized until a new one is uploaded.");
        } else if expires_soon {
            v["warning"] =
                json!(format!("The certificate expires on {}: upload a new one.", local_text(c.valid_to)));
        }
        v
    });
    let branch = caller
        .unit
        .as_ref()
        .map(|u| json!({"id": u.id, "name": u.name, "businessUnitCode": u.business_unit_code}));
    ok(json!({
        "company": caller.company.name,
        "nipt": caller.company.nuis,
        "branch": branch,
        "user": {
            "id": caller.user.id,
            "name": caller.user.name,
            "email": caller.user.email,
            "operatorCode": caller.user.operator_code,
            "fiscalTcrCode": caller.user.tcr_code,
            "role": caller.user.role.as_str(),
        },
        "vatConfigs": {"issuerInVat": caller.company.issuer_in_vat},
        "cert": cert,
        "cisConnection": match state.services.gateway.breaker() {
            Breaker::Closed => json!({"state": "online"}),
            Breaker::Open { since, reason, .. } => json!({
                "state": "offline",
                "since": local_text(since),
                "reason": reason,
            }),
        },
        "fiscalQueue": {
            "waiting": queue.waiting,
            "rejected": queue.refused.len(),
            "refused": queue.refused.iter().map(RefusedView::of).collect::<Vec<_>>(),
            "oldestWaitingSince": queue.oldest_waiting_issued_at.map(local_text),
            "nearLegalLimit": queue.near_legal_limit,
        },
    }))
}

/// The OpenAPI document of this server (no authentication: it describes, it reveals nothing).
pub async fn openapi() -> impl axum::response::IntoResponse {
    ([(axum::http::header::CONTENT_TYPE, "application/yaml")], include_str!("../../assets/openapi.yaml"))
}
