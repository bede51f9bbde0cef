//! What the Wolt simulator remembers, in memory only: its mode, the venues it knows, every
//! order with Wolt's view of its state, the merchant API calls it received and the webhooks
//! it sent. Also Wolt's own rules for the order calls, and the sample orders of each kind.

use std::collections::{BTreeMap, VecDeque};

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::marketplace::{CourierProgress, WoltCall, WoltStatus};
use crate::wolt::model::{
    BasketPrice, CashPayment, Company, Delivery, Item, ItemOption, ItemPrice, Money, NamedAmount, OrderV2,
    PreOrder, VenueRef,
};

/// The newest calls and webhooks kept in the logs.
const LOG_KEPT: usize = 10_000;
const CURRENCY: &str = "ALL";

/// How the merchant API answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// As Wolt would.
    #[default]
    Ok,
    /// Every order action (PUT) is refused with 400; reads still work.
    Refuse,
    /// Every merchant API request is dropped without an answer.
    Down,
    /// Answered as `ok`, after `delay_ms`.
    Slow,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ModeSetting {
    pub mode: Mode,
    #[serde(default)]
    pub delay_ms: Option<u64>,
}

impl ModeSetting {
    /// `slow` waits 10 s unless told otherwise, at most 10 minutes.
    pub fn normalized(mut self) -> Self {
        self.delay_ms = match self.mode {
            Mode::Slow => Some(self.delay_ms.unwrap_or(10_000).min(600_000)),
            _ => None,
        };
        self
    }
}

/// A venue the simulator plays Wolt for: its id, the API key calls must carry and the secret
/// its webhooks are signed with.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimVenue {
    pub venue_id: String,
    pub api_key: String,
    pub webhook_secret: String,
}

impl std::fmt::Debug for SimVenue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimVenue").field("venue_id", &self.venue_id).finish_non_exhaustive()
    }
}

/// The kinds of order the control API makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderKind {
    Takeaway,
    WoltDelivery,
    SelfDelivery,
    Preorder,
    B2b,
}

impl OrderKind {
    /// The order the sandbox makes next, in turn.
    pub const CYCLE: [OrderKind; 5] = [
        OrderKind::Takeaway,
        OrderKind::WoltDelivery,
        OrderKind::SelfDelivery,
        OrderKind::Preorder,
        OrderKind::B2b,
    ];
}

/// One item of a custom order, as the control API takes it (amounts in minor units).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ItemSpec {
    pub name: String,
    pub count: i64,
    pub unit_price: i64,
    pub pos_id: Option<String>,
    #[serde(with = "rust_decimal::serde::float_option")]
    pub vat_percentage: Option<Decimal>,
    /// A campaign on the item: its name and the amount it takes off the line.
    pub discount: Option<NamedSpec>,
    pub options: Vec<OptionSpec>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct NamedSpec {
    pub name: String,
    pub amount: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct OptionSpec {
    pub name: String,
    pub value: Option<String>,
    pub price: i64,
}

/// `POST /control/orders`: the kind, and optionally the order's contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderSpec {
    #[serde(rename = "type")]
    pub kind: OrderKind,
    #[serde(default)]
    pub venue_id: Option<String>,
    #[serde(default)]
    pub items: Option<Vec<ItemSpec>>,
    #[serde(default)]
    pub basket_discounts: Option<Vec<NamedSpec>>,
    #[serde(default)]
    pub delivery_fee: Option<i64>,
    #[serde(default)]
    pub cash: Option<bool>,
    /// Send the CREATED webhook (default true).
    #[serde(default)]
    pub notify: Option<bool>,
}

/// An order as Wolt sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimOrder {
    pub kind: OrderKind,
    pub order: OrderV2,
}

impl SimOrder {
    pub fn status(&self) -> Option<WoltStatus> {
        self.order.order_status.as_deref().and_then(WoltStatus::parse)
    }

    fn set_status(&mut self, status: WoltStatus) {
        self.order.order_status = Some(status.order_status().to_string());
    }

    fn courier(&self) -> Option<CourierProgress> {
        self.order.delivery.status.as_deref().and_then(CourierProgress::from_wolt)
    }

    fn preorder_waiting(&self) -> bool {
        self.order.pre_order.as_ref().is_some_and(|p| p.pre_order_status.as_deref() == Some("waiting"))
    }
}

/// Wolt refusing a call: the HTTP status and `{error_code, msg}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub status: u16,
    pub error_code: &'static str,
    pub msg: String,
}

fn invalid(msg: impl Into<String>) -> Refused {
    Refused { status: 400, error_code: "INVALID_STATE", msg: msg.into() }
}

fn conflict(msg: impl Into<String>) -> Refused {
    Refused { status: 409, error_code: "CONFLICT", msg: msg.into() }
}

/// Applies a merchant call to an order as Wolt would, refusing what Wolt refuses. Returns the
/// new status when the order's status changed (a webhook is then due).
pub fn apply(order: &mut SimOrder, call: WoltCall) -> Result<Option<WoltStatus>, Refused> {
    use WoltStatus as S;
    let status = order.status();
    let self_delivery = order.order.delivery.self_delivery;
    let is_preorder = order.order.pre_order.is_some();
    match call {
        WoltCall::Accept | WoltCall::SelfDeliveryAccept => {
            if self_delivery != (call == WoltCall::SelfDeliveryAccept) {
                return Err(invalid(if self_delivery {
                    "A self-delivery order is accepted at /self-delivery/accept."
                } else {
                    "Only self-delivery orders are accepted at /self-delivery/accept."
                }));
            }
            if order.preorder_waiting() {
                return Err(invalid("Confirm the pre-order first (/confirm-preorder)."));
            }
            match status {
                Some(S::Created) if !is_preorder => {
                    order.set_status(S::Production);
                    Ok(Some(S::Production))
                }
                Some(S::Production | S::Ready | S::Delivered) => Err(conflict("Order already accepted.")),
                _ => Err(invalid("The order cannot be accepted in its state.")),
            }
        }
        WoltCall::ConfirmPreorder => match (status, order.preorder_waiting()) {
            (Some(S::Created), true) => {
                if let Some(p) = order.order.pre_order.as_mut() {
                    p.pre_order_status = Some("confirmed".into());
                }
                Ok(None)
            }
            (_, false) if is_preorder => Err(conflict("The pre-order is already confirmed.")),
            _ => Err(invalid("The order is not a pre-order waiting for confirmation.")),
        },
        WoltCall::Reject => match status {
            Some(S::Created) if !is_preorder || order.preorder_waiting() => {
                order.set_status(S::Rejected);
                Ok(Some(S::Rejected))
            }
            _ => Err(invalid("The order can no longer be rejected.")),
        },
        WoltCall::Ready => match status {
            Some(S::Production) => {
                order.set_status(S::Ready);
                Ok(Some(S::Ready))
            }
            _ => Err(invalid("Only an order in production can be marked ready.")),
        },
        WoltCall::PickupCompleted => match (self_delivery, status, order.courier()) {
            (true, Some(S::Ready), None) => {
                order.order.delivery.status = Some(CourierProgress::PickedUp.as_str().into());
                Ok(None)
            }
            _ => Err(invalid("Pickup can be completed only for a ready self-delivery order.")),
        },
        WoltCall::CourierAtCustomer => match (self_delivery, order.courier()) {
            (true, Some(CourierProgress::PickedUp)) => {
                order.order.delivery.status = Some(CourierProgress::AtCustomer.as_str().into());
                Ok(None)
            }
            _ => Err(invalid("The courier must have picked the order up first.")),
        },
        WoltCall::Delivered => {
            let takeaway = order.kind == OrderKind::Takeaway
                || order.order.delivery.kind.as_deref() == Some("takeaway") && !self_delivery;
            let allowed = match (self_delivery, takeaway) {
                (true, _) => order.courier() == Some(CourierProgress::AtCustomer) && status == Some(S::Ready),
                (false, true) => status == Some(S::Ready),
                (false, false) => {
                    return Err(invalid("Orders delivered by Wolt's couriers are marked delivered by Wolt."));
                }
            };
            if !allowed {
                return Err(invalid("The order is not ready to be marked delivered."));
            }
            order.set_status(S::Delivered);
            if self_delivery {
                order.order.delivery.status = Some("delivered".into());
            }
            Ok(Some(S::Delivered))
        }
    }
}

/// What happened to a merchant API call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    Answered,
    Dropped,
}

/// One merchant API call the simulator received.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallRecord {
    pub method: String,
    pub path: String,
    pub order_id: Option<String>,
    /// The action's path (`accept`, `self-delivery/accept`, ...) of a PUT.
    pub action: Option<String>,
    pub body: Option<Value>,
    pub outcome: CallOutcome,
    /// The HTTP status answered (none when dropped).
    pub status: Option<u16>,
    pub received_at: DateTime<Utc>,
}

/// One webhook the simulator sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WebhookRecord {
    pub notification_id: String,
    pub order_id: String,
    pub status: String,
    pub url: String,
    pub body: String,
    pub signature: String,
    /// Signed with a secret other than the venue's.
    pub forged: bool,
    /// What the receiver answered, or why nothing came back.
    pub answer_status: Option<u16>,
    pub answer_body: Option<String>,
    pub error: Option<String>,
    pub sent_at: DateTime<Utc>,
}

#[derive(Debug, Default)]
pub struct State {
    pub mode: ModeSetting,
    pub venues: Vec<SimVenue>,
    pub webhook_url: Option<String>,
    pub orders: BTreeMap<String, SimOrder>,
    pub calls: VecDeque<CallRecord>,
    pub webhooks: VecDeque<WebhookRecord>,
    made: u64,
}

impl State {
    pub fn new(venues: Vec<SimVenue>, webhook_url: Option<String>) -> State {
        State { venues, webhook_url, ..State::default() }
    }

    pub fn log_call(&mut self, call: CallRecord) {
        if self.calls.len() >= LOG_KEPT {
            self.calls.pop_front();
        }
        self.calls.push_back(call);
    }

    pub fn log_webhook(&mut self, webhook: WebhookRecord) {
        if self.webhooks.len() >= LOG_KEPT {
            self.webhooks.pop_front();
        }
        self.webhooks.push_back(webhook);
    }

    pub fn venue(&self, venue_id: &str) -> Option<&SimVenue> {
        self.venues.iter().find(|v| v.venue_id == venue_id)
    }

    /// Adds or replaces a venue.
    pub fn put_venue(&mut self, venue: SimVenue) {
        self.venues.retain(|v| v.venue_id != venue.venue_id);
        self.venues.push(venue);
    }

    /// Makes a new order of `spec` (the first venue when none is named).
    pub fn make_order(&mut self, spec: &OrderSpec, now: DateTime<Utc>) -> Result<SimOrder, String> {
        let venue_id = match &spec.venue_id {
            Some(id) if self.venue(id).is_some() => id.clone(),
            Some(id) => return Err(format!("unknown venue {id}")),
            None => self.venues.first().map(|v| v.venue_id.clone()).ok_or("no venue is configured")?,
        };
        self.made += 1;
        let order = sample_order(spec, &venue_id, self.made, now);
        let made = SimOrder { kind: spec.kind, order };
        self.orders.insert(made.order.id.clone(), made.clone());
        Ok(made)
    }
}

fn money(amount: i64) -> Money {
    Money { amount, currency: CURRENCY.to_string() }
}

fn item(spec: &ItemSpec, n: usize) -> Item {
    Item {
        id: format!("item-{n}"),
        name: spec.name.clone(),
        count: spec.count,
        pos_id: spec.pos_id.clone(),
        sku: None,
        vat_percentage: spec.vat_percentage,
        item_price: ItemPrice {
            unit_price: money(spec.unit_price),
            discounts: spec
                .discount
                .iter()
                .map(|d| NamedAmount { name: d.name.clone(), amount: money(d.amount) })
                .collect(),
        },
        options: spec
            .options
            .iter()
            .map(|o| ItemOption {
                id: None,
                name: o.name.clone(),
                value: o.value.clone(),
                price: money(o.price),
                count: Some(1),
            })
            .collect(),
    }
}

fn spec(name: &str, count: i64, unit_price: i64, pos_id: &str) -> ItemSpec {
    ItemSpec {
        name: name.into(),
        count,
        unit_price,
        pos_id: Some(pos_id.into()),
        vat_percentage: Some(Decimal::from(20)),
        ..ItemSpec::default()
    }
}

/// The sample contents of each kind (amounts in qindarka: 15000 is 150.00 ALL).
fn sample_items(kind: OrderKind) -> (Vec<ItemSpec>, Vec<NamedSpec>, i64) {
    match kind {
        OrderKind::Takeaway => (
            vec![spec("Byrek me spinaq", 2, 15000, "BYREK-S"), spec("Dhallë", 1, 12000, "DHALLE")],
            vec![],
            0,
        ),
        OrderKind::WoltDelivery => {
            let mut pizza = spec("Pica Margarita", 1, 70000, "PICA-M");
            pizza.options =
                vec![OptionSpec { name: "Djathë".into(), value: Some("shtesë".into()), price: 10000 }];
            let cola = ItemSpec { vat_percentage: None, ..spec("Coca-Cola 0.33 l", 2, 15000, "COLA") };
            (vec![pizza, cola], vec![NamedSpec { name: "Wolt+ -10%".into(), amount: 11000 }], 15000)
        }
        OrderKind::SelfDelivery => {
            let mut souvlaki = spec("Sufllaqe pule", 3, 35000, "SUFLLAQE");
            souvlaki.discount = Some(NamedSpec { name: "1+1 e martë".into(), amount: 35000 });
            (vec![souvlaki, spec("Ujë 0.5 l", 2, 6000, "UJE")], vec![], 20000)
        }
        OrderKind::Preorder => (vec![spec("Tavë kosi", 2, 90000, "TAVE-K")], vec![], 0),
        OrderKind::B2b => (
            vec![spec("Kafe ekspres", 10, 10000, "KAFE"), spec("Kruasan", 10, 12000, "KRUASAN")],
            vec![],
            15000,
        ),
    }
}

/// A Wolt OrderV2 of `spec`'s kind.
fn sample_order(spec: &OrderSpec, venue_id: &str, n: u64, now: DateTime<Utc>) -> OrderV2 {
    let (default_items, default_discounts, default_fee) = sample_items(spec.kind);
    let items: Vec<Item> =
        spec.items.clone().unwrap_or(default_items).iter().enumerate().map(|(i, s)| item(s, i + 1)).collect();
    let discounts: Vec<NamedAmount> = spec
        .basket_discounts
        .clone()
        .unwrap_or(default_discounts)
        .iter()
        .map(|d| NamedAmount { name: d.name.clone(), amount: money(d.amount) })
        .collect();
    let self_delivery = spec.kind == OrderKind::SelfDelivery;
    let takeaway = matches!(spec.kind, OrderKind::Takeaway | OrderKind::Preorder);
    let fee = if takeaway { 0 } else { spec.delivery_fee.unwrap_or(default_fee) };
    let items_total: i64 = items
        .iter()
        .map(|i| {
            let options: i64 = i.options.iter().map(|o| o.price.amount).sum();
            (i.item_price.unit_price.amount + options) * i.count
                - i.item_price.discounts.iter().map(|d| d.amount.amount).sum::<i64>()
        })
        .sum();
    let total = items_total - discounts.iter().map(|d| d.amount.amount).sum::<i64>() + fee;
    let cash = spec.cash.unwrap_or(self_delivery);
    OrderV2 {
        id: format!("{:032x}", uuid::Uuid::new_v4().as_u128()),
        venue: VenueRef { id: venue_id.to_string(), name: Some("Arka Sandbox shop".into()) },
        order_number: Some(format!("W{n:03}")),
        order_status: Some(WoltStatus::Created.order_status().to_string()),
        kind: Some(if spec.kind == OrderKind::Preorder { "preorder" } else { "instant" }.to_string()),
        pre_order: (spec.kind == OrderKind::Preorder).then(|| PreOrder {
            preorder_time: Some(
                (now + chrono::Duration::hours(2)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            ),
            pre_order_status: Some("waiting".into()),
        }),
        created_at: Some(now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        consumer_name: Some(if self_delivery { "Ana Hoxha" } else { "Ana H." }.to_string()),
        consumer_phone_number: self_delivery.then(|| "+355691234567".to_string()),
        consumer_comment: Some("Pa qepë, ju lutem.".into()),
        delivery: Delivery {
            kind: Some(if takeaway { "takeaway" } else { "homedelivery" }.to_string()),
            self_delivery,
            fee: (fee > 0).then(|| money(fee)),
            status: None,
        },
        basket_price: Some(BasketPrice { total: Some(money(total)), discounts }),
        items,
        cash_payment: cash.then(|| CashPayment { amount_to_collect: money(total) }),
        company: (spec.kind == OrderKind::B2b).then(|| Company {
            name: Some("Ushqimore Dardania sh.p.k.".into()),
            tax_id: Some("K81234001A".into()),
            address: Some("Rruga e Kavajës 112".into()),
            city: Some("Tiranë".into()),
        }),
    }
}

/// Wolt moving an order itself (`POST /control/orders/{id}/status`): a pre-order reaching its
/// preparation time, a courier delivering, a customer cancelling.
pub fn wolt_moves(order: &mut SimOrder, to: WoltStatus) -> Result<(), String> {
    let from = order.status();
    let allowed = match to {
        WoltStatus::Production => from == Some(WoltStatus::Created) && !order.preorder_waiting(),
        WoltStatus::Ready => from == Some(WoltStatus::Production),
        WoltStatus::Delivered => from == Some(WoltStatus::Ready),
        WoltStatus::Canceled => {
            matches!(from, Some(WoltStatus::Created | WoltStatus::Production | WoltStatus::Ready))
        }
        WoltStatus::Created | WoltStatus::Rejected => false,
    };
    if !allowed {
        return Err(format!(
            "Wolt does not move an order from {} to {}",
            from.map_or("unknown", WoltStatus::order_status),
            to.order_status()
        ));
    }
    order.set_status(to);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(kind: OrderKind) -> SimOrder {
        let mut state = State::new(
            vec![SimVenue { venue_id: "v".into(), api_key: "k".into(), webhook_secret: "s".into() }],
            None,
        );
        let spec = OrderSpec {
            kind,
            venue_id: None,
            items: None,
            basket_discounts: None,
            delivery_fee: None,
            cash: None,
            notify: None,
        };
        state.make_order(&spec, Utc::now()).unwrap()
    }

    #[test]
    fn wolt_refuses_what_wolt_refuses() {
        use WoltCall as C;
        // | kind            | calls in order (each must pass)                                      |
        let paths = [
            (OrderKind::Takeaway, vec![C::Accept, C::Ready, C::Delivered]),
            (OrderKind::WoltDelivery, vec![C::Accept, C::Ready]),
            (
                OrderKind::SelfDelivery,
                vec![C::SelfDeliveryAccept, C::Ready, C::PickupCompleted, C::CourierAtCustomer, C::Delivered],
            ),
            (OrderKind::Preorder, vec![C::ConfirmPreorder]),
            (OrderKind::B2b, vec![C::Reject]),
        ];
        for (kind, calls) in paths {
            let mut o = order(kind);
            for call in calls {
                assert!(apply(&mut o, call).is_ok(), "{kind:?} {call:?}");
            }
        }
        // | kind          | first call      | refused with |
        let refusals = [
            (OrderKind::Takeaway, C::Ready, 400),
            (OrderKind::SelfDelivery, C::Accept, 400),
            (OrderKind::Takeaway, C::SelfDeliveryAccept, 400),
            (OrderKind::Preorder, C::Accept, 400),
            (OrderKind::Takeaway, C::PickupCompleted, 400),
        ];
        for (kind, call, status) in refusals {
            assert_eq!(apply(&mut order(kind), call).unwrap_err().status, status, "{kind:?} {call:?}");
        }
        let mut courier = order(OrderKind::WoltDelivery);
        for call in [C::Accept, C::Ready] {
            apply(&mut courier, call).unwrap();
        }
        assert_eq!(apply(&mut courier, C::Delivered).unwrap_err().status, 400);
        assert_eq!(apply(&mut courier, C::Accept).unwrap_err().status, 409, "already accepted");
        assert_eq!(apply(&mut courier, C::Reject).unwrap_err().status, 400);
        wolt_moves(&mut courier, WoltStatus::Delivered).unwrap();
        assert!(wolt_moves(&mut courier, WoltStatus::Canceled).is_err());
    }

    #[test]
    fn sample_orders_read_back_in_arka_terms() {
        use crate::domain::marketplace::DeliveryType;
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        let self_delivery = order(OrderKind::SelfDelivery).order.incoming().unwrap();
        assert_eq!(self_delivery.delivery, DeliveryType::SelfDelivery);
        // 3 x 350 - 350 + 2 x 60 + 200 delivery = 1020.00 ALL
        assert_eq!(self_delivery.totals().total, d("1020.00"));
        assert!(self_delivery.cash_payment);
        let courier = order(OrderKind::WoltDelivery).order.incoming().unwrap();
        // 800 + 2 x 150 - 110; Wolt keeps its courier's fee.
        assert_eq!(courier.totals().total, d("990.00"));
        let b2b = order(OrderKind::B2b).order.incoming().unwrap();
        assert_eq!(b2b.company.unwrap().tax_id.as_deref(), Some("K81234001A"));
        assert!(order(OrderKind::Preorder).order.incoming().unwrap().preorder.is_some());
    }
}
