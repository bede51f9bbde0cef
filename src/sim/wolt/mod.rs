//! A Wolt simulator: the merchant order API Arka relays to, and the webhooks Wolt sends, with a
//! control API to drive it. `arka wolt-sim --listen` runs it alone; `arka serve --sandbox` runs
//! it in-process on loopback (its sandbox company gets an enabled venue and a new order every
//! few minutes); the tests run it on `127.0.0.1:0`.
//!
//! # Merchant API (as ../shared/wolt/ORDER-API.md describes Wolt's)
//!
//! Every call needs the venue's `WOLT-API-KEY` (401 otherwise); an unknown order is 404.
//!
//! * `GET /v2/orders/{id}`: the OrderV2 (`wolt::model`), with Wolt's `order_status`,
//!   `pre_order.pre_order_status` and, for self-delivery, `delivery.status`.
//! * `GET /orders/{id}`: the v1 summary `{id, order_status}`.
//! * `PUT /orders/{id}/accept`, `/self-delivery/accept`, `/confirm-preorder`, `/reject`
//!   (`{"reason"}`), `/ready`, `/pickup-completed`, `/courier-at-customer`, `/delivered`:
//!   200 `{}` when Wolt allows it, else `{"error_code", "msg"}` with 400 (wrong state or order
//!   type) or 409 (accepted or confirmed already). The rules are in `state::apply`. A change of
//!   status sends a webhook (CREATED, PRODUCTION, READY, DELIVERED, CANCELED).
//!
//! # Control API (JSON, same listener)
//!
//! * `GET /control`, `POST /control {"mode": "ok"|"refuse"|"down"|"slow", "delay_ms"?}`:
//!   `refuse` answers every PUT with 400; `down` drops every merchant API request without an
//!   answer (the connection is closed); `slow` answers after `delay_ms` (default 10 000).
//! * `POST /control/orders {"type": "takeaway"|"wolt_delivery"|"self_delivery"|"preorder"|"b2b",
//!   "venue_id"?, "items"? [{name, count, unit_price, pos_id?, vat_percentage?, discount?
//!   {name, amount}, options? [{name, value?, price}]}], "basket_discounts"? [{name, amount}],
//!   "delivery_fee"?, "cash"?, "notify"? (default true)}`: amounts in minor units. Answers 201
//!   `{"order": OrderV2, "webhook": record or null}`; the CREATED webhook is delivered before
//!   the answer.
//! * `GET /control/orders`, `GET /control/orders/{id}`: `{kind, order}`.
//! * `POST /control/orders/{id}/status {"status": "production"|"ready"|"delivered"|"canceled"}`:
//!   Wolt moving the order itself (pre-order at preparation time, courier delivered, customer
//!   cancelled), with its webhook.
//! * `POST /control/orders/{id}/notify {"secret"?}`: a new notification for the order's
//!   status; with `secret` it is signed with that secret instead of the venue's (forged).
//! * `GET /control/webhooks`: every webhook sent; `POST /control/webhooks/{id}/resend` sends
//!   the same bytes and signature again (a replay).
//! * `GET /control/calls`, `DELETE /control/calls`: the merchant API calls received (method,
//!   path, order id, action, body, outcome, status).
//! * `PUT /control/webhook-target {"url"}`, `POST /control/venues {venue_id, api_key,
//!   webhook_secret}`.

mod server;
pub mod state;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::net::TcpListener;

use crate::sim::http::SimHandle;

pub use state::{CallRecord, Mode, ModeSetting, OrderKind, OrderSpec, SimOrder, SimVenue, WebhookRecord};

/// How long the simulator waits for the receiver of a webhook.
const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(10);
/// The first order of `order_every` comes this soon after start.
const FIRST_ORDER_AFTER: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, Default)]
pub struct SimConfig {
    pub venues: Vec<SimVenue>,
    /// Where webhooks go (Arka's `/api/partner/v1/marketplace/webhooks/wolt`).
    pub webhook_url: Option<String>,
    /// Make an order of the next kind, for the first venue, this often.
    pub order_every: Option<Duration>,
}

#[derive(Debug)]
struct Inner {
    state: Mutex<state::State>,
    agent: ureq::Agent,
    order_every: Option<Duration>,
}

impl Inner {
    fn state(&self) -> std::sync::MutexGuard<'_, state::State> {
        // Each request leaves the state consistent before it could panic.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A Wolt simulator; cheap to clone, every clone is the same simulator.
#[derive(Debug, Clone)]
pub struct WoltSim {
    inner: Arc<Inner>,
}

impl WoltSim {
    pub fn new(config: SimConfig) -> WoltSim {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(WEBHOOK_TIMEOUT))
            .max_redirects(0)
            .build()
            .into();
        WoltSim {
            inner: Arc::new(Inner {
                state: Mutex::new(state::State::new(config.venues, config.webhook_url)),
                agent,
                order_every: config.order_every,
            }),
        }
    }

    /// Serves the merchant and control APIs on `listener` until `shutdown` completes, making an
    /// order every `order_every` meanwhile.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let maker =
            self.inner.order_every.map(|every| tokio::spawn(server::make_orders(self.inner.clone(), every)));
        let served = server::serve(self.inner.clone(), listener, shutdown).await;
        if let Some(maker) = maker {
            maker.abort();
        }
        served
    }

    pub fn set_mode(&self, setting: ModeSetting) {
        self.inner.state().mode = setting.normalized();
    }

    /// The merchant API calls received, oldest first.
    pub fn calls(&self) -> Vec<CallRecord> {
        self.inner.state().calls.iter().cloned().collect()
    }

    /// The webhooks sent, oldest first.
    pub fn webhooks(&self) -> Vec<WebhookRecord> {
        self.inner.state().webhooks.iter().cloned().collect()
    }

    pub fn set_webhook_url(&self, url: Option<String>) {
        self.inner.state().webhook_url = url;
    }
}

/// Starts a simulator on `127.0.0.1` on a free port, served by a task of the current runtime.
pub async fn spawn_loopback(config: SimConfig) -> std::io::Result<(SocketAddr, WoltSimHandle)> {
    let handle =
        SimHandle::spawn(WoltSim::new(config), |sim, listener, shutdown| sim.serve(listener, shutdown))
            .await?;
    tracing::info!(addr = %handle.addr(), "Wolt simulator listening");
    Ok((handle.addr(), handle))
}

/// A running loopback simulator; dropping it stops the simulator.
pub type WoltSimHandle = SimHandle<WoltSim>;

impl SimHandle<WoltSim> {
    /// The merchant API's base URL (what `--wolt-url` takes).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr())
    }
}
