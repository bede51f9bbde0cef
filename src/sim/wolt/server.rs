//! The Wolt simulator's routing table (merchant API and control API) and its webhook sender,
//! served by the shared simulator plumbing (`crate::sim::http`).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use hyper::body::Incoming;
use hyper::{Method, Request, StatusCode};
use serde::Deserialize;
use serde_json::{Value, json};

use super::Inner;
use super::state::{
    CallOutcome, CallRecord, Mode, ModeSetting, OrderKind, OrderSpec, SimVenue, WebhookRecord, apply,
    wolt_moves,
};
use crate::domain::marketplace::{WoltCall, WoltStatus};
use crate::sim::http::{Answer, Dropped, json, message, read_body};
use crate::wolt::model::{Notification, NotifiedOrder};
use crate::wolt::{API_KEY_HEADER, SIGNATURE_HEADER, signature};

const MAX_BODY_BYTES: usize = 256 * 1024;

pub async fn serve(
    sim: Arc<Inner>,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    crate::sim::http::serve("Wolt simulator", listener, shutdown, move |request, _local| {
        handle(sim.clone(), request)
    })
    .await
}

/// Makes an order of the next kind for the first venue every `every`, first soon after start.
pub async fn make_orders(sim: Arc<Inner>, every: Duration) {
    tokio::time::sleep(super::FIRST_ORDER_AFTER).await;
    let mut tick = tokio::time::interval(every);
    for kind in OrderKind::CYCLE.iter().cycle() {
        tick.tick().await;
        let spec = OrderSpec {
            kind: *kind,
            venue_id: None,
            items: None,
            basket_discounts: None,
            delivery_fee: None,
            cash: None,
            notify: Some(true),
        };
        match create(&sim, &spec).await {
            Ok(_) => tracing::info!(kind = ?kind, "Wolt simulator: a new order"),
            Err(why) => tracing::warn!(%why, "Wolt simulator: no order made"),
        }
    }
}

async fn handle(sim: Arc<Inner>, request: Request<Incoming>) -> Result<Answer, Dropped> {
    let path = request.uri().path().to_string();
    if path == "/control" || path.starts_with("/control/") {
        return Ok(control(&sim, request, &path).await);
    }
    merchant(&sim, request, &path).await
}

/// Which merchant API call a request is: the order id and, for a PUT, the action.
fn route(method: &Method, path: &str) -> Option<(String, Option<WoltCall>, bool)> {
    if let Some(id) = path.strip_prefix("/v2/orders/").filter(|id| !id.is_empty() && !id.contains('/')) {
        return (method == Method::GET).then(|| (id.to_string(), None, true));
    }
    let rest = path.strip_prefix("/orders/")?;
    match rest.split_once('/') {
        None if method == Method::GET && !rest.is_empty() => Some((rest.to_string(), None, false)),
        Some((id, action)) if method == Method::PUT => {
            WoltCall::from_path(action).map(|call| (id.to_string(), Some(call), false))
        }
        _ => None,
    }
}

fn wolt_error(status: StatusCode, code: &str, msg: &str) -> Answer {
    json(status, &json!({"error_code": code, "msg": msg}))
}

async fn merchant(sim: &Arc<Inner>, request: Request<Incoming>, path: &str) -> Result<Answer, Dropped> {
    let method = request.method().clone();
    let api_key = request.headers().get(API_KEY_HEADER).and_then(|v| v.to_str().ok()).map(str::to_string);
    let routed = route(&method, path);
    let body = match read_body(request, MAX_BODY_BYTES).await {
        Ok(body) => body,
        Err(answer) => return Ok(answer),
    };
    let body_json: Option<Value> = if body.is_empty() { None } else { serde_json::from_slice(&body).ok() };
    let mode = sim.state().mode.clone();
    let mut record = CallRecord {
        method: method.to_string(),
        path: path.to_string(),
        order_id: routed.as_ref().map(|r| r.0.clone()),
        action: routed.as_ref().and_then(|r| r.1).map(|c| c.path().to_string()),
        body: body_json,
        outcome: CallOutcome::Answered,
        status: None,
        received_at: Utc::now(),
    };
    if mode.mode == Mode::Down {
        record.outcome = CallOutcome::Dropped;
        sim.state().log_call(record);
        return Err(Dropped);
    }
    let (answer, status_change) = match routed {
        None => (wolt_error(StatusCode::NOT_FOUND, "NOT_FOUND", "No such endpoint."), None),
        Some((order_id, call, v2)) => {
            answer_merchant(sim, &order_id, call, v2, api_key.as_deref(), mode.mode)
        }
    };
    record.status = Some(answer.status().as_u16());
    sim.state().log_call(record);
    if let Some((order_id, status)) = status_change {
        let sim = sim.clone();
        tokio::spawn(async move { notify(&sim, &order_id, status, None).await });
    }
    if mode.mode == Mode::Slow {
        tokio::time::sleep(Duration::from_millis(mode.delay_ms.unwrap_or_default())).await;
    }
    Ok(answer)
}

/// The answer to one merchant call, and the status change a webhook must report.
fn answer_merchant(
    sim: &Inner,
    order_id: &str,
    call: Option<WoltCall>,
    v2: bool,
    api_key: Option<&str>,
    mode: Mode,
) -> (Answer, Option<(String, WoltStatus)>) {
    let mut state = sim.state();
    let venue_id = match state.orders.get(order_id) {
        Some(order) => order.order.venue.id.clone(),
        None => return (wolt_error(StatusCode::NOT_FOUND, "NOT_FOUND", "No such order."), None),
    };
    let key_ok = state.venue(&venue_id).is_some_and(|v| Some(v.api_key.as_str()) == api_key);
    if !key_ok {
        return (wolt_error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED", "Invalid API key."), None);
    }
    let Some(order) = state.orders.get_mut(order_id) else {
        return (wolt_error(StatusCode::NOT_FOUND, "NOT_FOUND", "No such order."), None);
    };
    let Some(call) = call else {
        let answer = if v2 {
            json(StatusCode::OK, &order.order)
        } else {
            json(StatusCode::OK, &json!({"id": order.order.id, "order_status": order.order.order_status}))
        };
        return (answer, None);
    };
    if mode == Mode::Refuse {
        return (wolt_error(StatusCode::BAD_REQUEST, "REFUSED", "Simulated refusal."), None);
    }
    match apply(order, call) {
        Ok(change) => (json(StatusCode::OK, &json!({})), change.map(|s| (order_id.to_string(), s))),
        Err(refused) => {
            let status = StatusCode::from_u16(refused.status).unwrap_or(StatusCode::BAD_REQUEST);
            (wolt_error(status, refused.error_code, &refused.msg), None)
        }
    }
}

/// Sends a notification of `status` for the order to the webhook URL, signed with the venue's
/// secret (or with `forge_with`). None when no URL is set or the order is unknown.
async fn notify(
    sim: &Arc<Inner>,
    order_id: &str,
    status: WoltStatus,
    forge_with: Option<String>,
) -> Option<WebhookRecord> {
    let (url, venue_id, secret) = {
        let state = sim.state();
        let url = state.webhook_url.clone()?;
        let venue_id = state.orders.get(order_id)?.order.venue.id.clone();
        let secret = state.venue(&venue_id)?.webhook_secret.clone();
        (url, venue_id, secret)
    };
    let notification = Notification {
        id: format!("{:032x}", uuid::Uuid::new_v4().as_u128()),
        kind: "order.notification".into(),
        order: NotifiedOrder {
            id: order_id.to_string(),
            venue_id,
            status: status.notification().to_string(),
            resource_url: format!("/orders/{order_id}"),
        },
        created_at: Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    };
    let body = serde_json::to_string(&notification).ok()?;
    let forged = forge_with.is_some();
    let key = forge_with.unwrap_or(secret);
    let signature = signature::sign(key.as_bytes(), body.as_bytes()).ok()?;
    let record = WebhookRecord {
        notification_id: notification.id,
        order_id: order_id.to_string(),
        status: status.notification().to_string(),
        url,
        body,
        signature,
        forged,
        answer_status: None,
        answer_body: None,
        error: None,
        sent_at: Utc::now(),
    };
    Some(deliver(sim, record).await)
}

/// POSTs a webhook (again) and logs what came back.
async fn deliver(sim: &Arc<Inner>, mut record: WebhookRecord) -> WebhookRecord {
    let agent = sim.agent.clone();
    let (url, body, signature) = (record.url.clone(), record.body.clone(), record.signature.clone());
    let sent = tokio::task::spawn_blocking(move || {
        let mut response = agent
            .post(&url)
            .header("Content-Type", "application/json")
            .header(SIGNATURE_HEADER, &signature)
            .send(body)
            .map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().unwrap_or_default();
        Ok::<_, String>((status, text))
    })
    .await
    .map_err(|e| e.to_string())
    .and_then(|r| r);
    record.sent_at = Utc::now();
    match sent {
        Ok((status, text)) => {
            record.answer_status = Some(status);
            record.answer_body = Some(text);
        }
        Err(e) => {
            tracing::warn!(error = %e, "Wolt simulator: webhook not delivered");
            record.error = Some(e);
        }
    }
    sim.state().log_webhook(record.clone());
    record
}

async fn create(sim: &Arc<Inner>, spec: &OrderSpec) -> Result<Value, String> {
    let made = sim.state().make_order(spec, Utc::now())?;
    let webhook = match spec.notify.unwrap_or(true) {
        true => notify(sim, &made.order.id, WoltStatus::Created, None).await,
        false => None,
    };
    Ok(json!({"order": made.order, "webhook": webhook}))
}

#[derive(Deserialize)]
struct StatusBody {
    status: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct NotifyBody {
    secret: Option<String>,
}

#[derive(Deserialize)]
struct TargetBody {
    url: Option<String>,
}

/// The body as `T` (an empty body is `{}`), or why not.
fn parse<T: for<'de> Deserialize<'de>>(body: &[u8]) -> Result<T, String> {
    let body: &[u8] = if body.iter().all(u8::is_ascii_whitespace) { b"{}" } else { body };
    serde_json::from_slice(body).map_err(|e| format!("invalid body: {e}"))
}

async fn control(sim: &Arc<Inner>, request: Request<Incoming>, path: &str) -> Answer {
    let method = request.method().clone();
    let body = match read_body(request, MAX_BODY_BYTES).await {
        Ok(body) => body,
        Err(answer) => return answer,
    };
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let result = match (&method, segments.as_slice()) {
        (&Method::GET, ["control"]) => Ok(json(StatusCode::OK, &sim.state().mode)),
        (&Method::POST, ["control"]) => parse::<ModeSetting>(&body).map(|setting| {
            let setting = setting.normalized();
            tracing::info!(?setting, "Wolt simulator: mode changed");
            sim.state().mode = setting.clone();
            json(StatusCode::OK, &setting)
        }),
        (&Method::POST, ["control", "orders"]) => match parse::<OrderSpec>(&body) {
            Ok(spec) => create(sim, &spec).await.map(|made| json(StatusCode::CREATED, &made)),
            Err(why) => Err(why),
        },
        (&Method::GET, ["control", "orders"]) => {
            let orders: Vec<_> = sim.state().orders.values().cloned().collect();
            Ok(json(StatusCode::OK, &orders))
        }
        (&Method::GET, ["control", "orders", id]) => Ok(match sim.state().orders.get(*id) {
            Some(order) => json(StatusCode::OK, order),
            None => message(StatusCode::NOT_FOUND, "no such order"),
        }),
        (&Method::POST, ["control", "orders", id, "status"]) => match parse::<StatusBody>(&body) {
            Ok(b) => Ok(move_order(sim, id, &b.status).await),
            Err(why) => Err(why),
        },
        (&Method::POST, ["control", "orders", id, "notify"]) => match parse::<NotifyBody>(&body) {
            Ok(b) => {
                let status = sim.state().orders.get(*id).and_then(|o| o.status());
                Ok(match status {
                    Some(status) => match notify(sim, id, status, b.secret).await {
                        Some(record) => json(StatusCode::OK, &record),
                        None => message(StatusCode::CONFLICT, "no webhook target is set"),
                    },
                    None => message(StatusCode::NOT_FOUND, "no such order"),
                })
            }
            Err(why) => Err(why),
        },
        (&Method::GET, ["control", "webhooks"]) => {
            let webhooks: Vec<_> = sim.state().webhooks.iter().cloned().collect();
            Ok(json(StatusCode::OK, &webhooks))
        }
        (&Method::POST, ["control", "webhooks", id, "resend"]) => {
            let found = sim.state().webhooks.iter().rev().find(|w| w.notification_id == *id).cloned();
            Ok(match found {
                Some(record) => json(StatusCode::OK, &deliver(sim, record).await),
                None => message(StatusCode::NOT_FOUND, "no such webhook"),
            })
        }
        (&Method::GET, ["control", "calls"]) => {
            let calls: Vec<_> = sim.state().calls.iter().cloned().collect();
            Ok(json(StatusCode::OK, &calls))
        }
        (&Method::DELETE, ["control", "calls"]) => {
            let mut state = sim.state();
            let cleared = state.calls.len();
            state.calls.clear();
            Ok(json(StatusCode::OK, &json!({"cleared": cleared})))
        }
        (&Method::PUT, ["control", "webhook-target"]) => parse::<TargetBody>(&body).map(|b| {
            sim.state().webhook_url = b.url.clone();
            json(StatusCode::OK, &json!({"url": b.url}))
        }),
        (&Method::POST, ["control", "venues"]) => parse::<SimVenue>(&body).map(|venue| {
            let venue_id = venue.venue_id.clone();
            sim.state().put_venue(venue);
            json(StatusCode::OK, &json!({"venue_id": venue_id}))
        }),
        _ => Ok(message(StatusCode::NOT_FOUND, "not found")),
    };
    result.unwrap_or_else(|why| message(StatusCode::BAD_REQUEST, &why))
}

async fn move_order(sim: &Arc<Inner>, id: &str, status: &str) -> Answer {
    let Some(to) = WoltStatus::parse(status) else {
        return message(StatusCode::BAD_REQUEST, "status is one of production, ready, delivered, canceled");
    };
    let moved = match sim.state().orders.get_mut(id) {
        Some(order) => wolt_moves(order, to).map(|()| order.order.clone()),
        None => return message(StatusCode::NOT_FOUND, "no such order"),
    };
    match moved {
        Ok(order) => {
            let webhook = notify(sim, id, to, None).await;
            json(StatusCode::OK, &json!({"order": order, "webhook": webhook}))
        }
        Err(why) => message(StatusCode::CONFLICT, &why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merchant_paths_route_to_calls() {
        assert_eq!(route(&Method::GET, "/v2/orders/abc"), Some(("abc".into(), None, true)));
        assert_eq!(route(&Method::GET, "/orders/abc"), Some(("abc".into(), None, false)));
        assert_eq!(
            route(&Method::PUT, "/orders/abc/self-delivery/accept"),
            Some(("abc".into(), Some(WoltCall::SelfDeliveryAccept), false))
        );
        assert_eq!(route(&Method::PUT, "/orders/abc/unknown"), None);
        assert_eq!(route(&Method::POST, "/orders/abc/accept"), None);
        assert_eq!(route(&Method::GET, "/v2/orders/"), None);
    }
}
