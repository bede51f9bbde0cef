//! Wolt's shapes on the wire: the webhook notification and the order of `GET /v2/orders/{id}`
//! (OrderV2). Read leniently, as Wolt asks: unknown fields are ignored, missing ones take their
//! defaults, and enum-like strings are matched loosely.
//!
//! What Arka reads from an order: `id`, `venue.id`, `order_number`, `order_status`, `type`
//! (instant or preorder), `pre_order {preorder_time, pre_order_status}`, `created_at`,
//! `consumer_name`, `consumer_phone_number`, `consumer_comment`, `delivery {type, self_delivery,
//! fee, status}`, `basket_price {total, discounts[] {name, amount}}`, `items[] {id, name, count,
//! pos_id, sku, vat_percentage, item_price {unit_price, discounts[]}, options[] {name, value,
//! price, count}}`, `cash_payment` and `company {name, tax_id, address, city}`. Money is
//! `{amount, currency}` in minor units.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::domain::marketplace::{
    BillingCompany, Campaign, CourierProgress, Customer, DeliveryType, IncomingOrder, LineOption, OrderLine,
    Preorder, PreorderStatus, WoltProgress, WoltStatus, major_units, shop_delivery_fee,
};
use crate::domain::validation::{FieldErrors, is_xml_char};

/// `{amount, currency}`, the amount in minor units.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Money {
    pub amount: i64,
    pub currency: String,
}

/// The longest id Arka takes from Wolt, a notification's or an order's: Wolt's own are 24 to 36
/// characters. Ids are stored and compared, so one that is too long or holds a control
/// character is refused, never cut or cleaned (two ids must not become one).
pub const MAX_ID_CHARS: usize = 128;

/// What is wrong with an id from Wolt: missing, longer than `MAX_ID_CHARS`, or not printable.
fn id_problem(id: &str) -> Option<String> {
    let id = id.trim();
    if id.is_empty() {
        Some("is missing".into())
    } else if id.chars().count() > MAX_ID_CHARS {
        Some(format!("is longer than {MAX_ID_CHARS} characters"))
    } else if id.chars().any(|c| c.is_control() || !is_xml_char(c)) {
        Some("holds a control character".into())
    } else {
        None
    }
}

/// What Wolt POSTs to the webhook.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Notification {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub order: NotifiedOrder,
    pub created_at: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NotifiedOrder {
    pub id: String,
    pub venue_id: String,
    /// Upper case: CREATED, PRODUCTION, READY, CANCELED, DELIVERED, ...
    pub status: String,
    pub resource_url: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct VenueRef {
    pub id: String,
    pub name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PreOrder {
    pub preorder_time: Option<String>,
    /// waiting | confirmed
    pub pre_order_status: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Delivery {
    /// homedelivery | takeaway | eatin
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub self_delivery: bool,
    pub fee: Option<Money>,
    /// Self-delivery courier progress: picked_up | at_customer | delivered.
    pub status: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NamedAmount {
    pub name: String,
    pub amount: Money,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BasketPrice {
    pub total: Option<Money>,
    /// Basket-wide campaigns.
    pub discounts: Vec<NamedAmount>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ItemPrice {
    pub unit_price: Money,
    /// Item campaigns, for the whole line.
    pub discounts: Vec<NamedAmount>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ItemOption {
    pub id: Option<String>,
    pub name: String,
    pub value: Option<String>,
    /// Per unit of the option.
    pub price: Money,
    /// Units of the option per unit of the item (1 when absent).
    pub count: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Item {
    pub id: String,
    pub name: String,
    pub count: i64,
    pub pos_id: Option<String>,
    pub sku: Option<String>,
    #[serde(with = "rust_decimal::serde::float_option")]
    pub vat_percentage: Option<Decimal>,
    pub item_price: ItemPrice,
    pub options: Vec<ItemOption>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CashPayment {
    pub amount_to_collect: Money,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Company {
    pub name: Option<String>,
    pub tax_id: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
}

/// `GET /v2/orders/{id}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OrderV2 {
    pub id: String,
    pub venue: VenueRef,
    pub order_number: Option<String>,
    /// Lower case: created, production, ready, delivered, rejected, canceled, ...
    pub order_status: Option<String>,
    /// instant | preorder
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub pre_order: Option<PreOrder>,
    pub created_at: Option<String>,
    pub consumer_name: Option<String>,
    pub consumer_phone_number: Option<String>,
    pub consumer_comment: Option<String>,
    pub delivery: Delivery,
    pub basket_price: Option<BasketPrice>,
    pub items: Vec<Item>,
    pub cash_payment: Option<CashPayment>,
    pub company: Option<Company>,
}

impl Notification {
    /// What Arka cannot take of a notification (its signature verified): its own id and its
    /// order's, each checked by `id_problem`.
    pub fn problems(&self) -> FieldErrors {
        let mut errors = FieldErrors::new();
        if let Some(problem) = id_problem(&self.id) {
            errors.add("id", format!("The notification's id {problem}."));
        }
        if let Some(problem) = id_problem(&self.order.id) {
            errors.add("order.id", format!("The notification's order id {problem}."));
        }
        errors
    }
}

fn blank_to_none(s: &Option<String>) -> Option<String> {
    s.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_string)
}

impl OrderV2 {
    pub fn delivery_type(&self) -> DeliveryType {
        if self.delivery.self_delivery {
            return DeliveryType::SelfDelivery;
        }
        match self.delivery.kind.as_deref().map(str::to_ascii_lowercase).as_deref() {
            Some("takeaway" | "eatin" | "pickup") => DeliveryType::Takeaway,
            _ => DeliveryType::WoltDelivery,
        }
    }

    fn preorder_status(&self) -> Option<PreorderStatus> {
        let is_preorder = self.kind.as_deref().is_some_and(|k| k.eq_ignore_ascii_case("preorder"));
        match (&self.pre_order, is_preorder) {
            (Some(p), _) => {
                Some(PreorderStatus::confirmed_or_waiting(p.pre_order_status.as_deref().unwrap_or("waiting")))
            }
            (None, true) => Some(PreorderStatus::Waiting),
            (None, false) => None,
        }
    }

    /// What Wolt shows of the order's progress.
    pub fn progress(&self) -> WoltProgress {
        WoltProgress {
            status: self.order_status.as_deref().and_then(WoltStatus::parse),
            preorder: self.preorder_status(),
            courier: self.delivery.status.as_deref().and_then(CourierProgress::from_wolt),
        }
    }

    fn currency(&self) -> String {
        self.basket_price
            .as_ref()
            .and_then(|b| b.total.as_ref())
            .map(|m| m.currency.clone())
            .or_else(|| self.items.first().map(|i| i.item_price.unit_price.currency.clone()))
            .filter(|c| !c.trim().is_empty())
            .unwrap_or_else(|| "ALL".to_string())
            .to_uppercase()
    }

    /// The order in Arka's terms. Errors name what Arka cannot take (a line without units).
    pub fn incoming(&self) -> Result<IncomingOrder, String> {
        if let Some(problem) = id_problem(&self.id) {
            return Err(format!("the order's id {problem}"));
        }
        if self.items.is_empty() {
            return Err("the order has no items".into());
        }
        let currency = self.currency();
        let mut labels: Vec<String> = Vec::new();
        let mut remember = |name: &str| {
            let name = name.trim();
            if !name.is_empty() && !labels.iter().any(|l| l == name) {
                labels.push(name.to_string());
            }
        };
        let mut lines = Vec::with_capacity(self.items.len());
        for (index, item) in self.items.iter().enumerate() {
            if item.count <= 0 {
                return Err(format!("items.{index}.count must be at least 1"));
            }
            let options: Vec<LineOption> = item
                .options
                .iter()
                .map(|o| LineOption {
                    name: o.name.clone(),
                    value: blank_to_none(&o.value),
                    price: major_units(o.price.amount, &currency)
                        * Decimal::from(o.count.unwrap_or(1).max(0)),
                })
                .collect();
            let unit_price = major_units(item.item_price.unit_price.amount, &currency)
                + options.iter().map(|o| o.price).sum::<Decimal>();
            let discount: Decimal =
                item.item_price.discounts.iter().map(|d| major_units(d.amount.amount, &currency)).sum();
            for d in &item.item_price.discounts {
                remember(&d.name);
            }
            let code = blank_to_none(&item.pos_id)
                .or_else(|| blank_to_none(&item.sku))
                .or_else(|| blank_to_none(&Some(item.id.clone())));
            lines.push(OrderLine::priced(
                item.name.clone(),
                code,
                Decimal::from(item.count),
                unit_price,
                discount,
                item.vat_percentage,
                options,
            ));
        }
        let campaigns: Vec<Campaign> = self
            .basket_price
            .iter()
            .flat_map(|b| b.discounts.iter())
            .map(|d| Campaign { label: d.name.clone(), amount: major_units(d.amount.amount, &currency) })
            .collect();
        for c in &campaigns {
            remember(&c.label);
        }
        let delivery = self.delivery_type();
        let fee = self.delivery.fee.as_ref().map_or(Decimal::ZERO, |f| major_units(f.amount, &currency));
        let company = self
            .company
            .as_ref()
            .filter(|c| blank_to_none(&c.tax_id).is_some() || blank_to_none(&c.name).is_some());
        Ok(IncomingOrder {
            wolt_order_id: self.id.trim().to_string(),
            wolt_venue_id: self.venue.id.trim().to_string(),
            order_number: blank_to_none(&self.order_number),
            delivery,
            wolt_status: self.order_status.as_deref().and_then(WoltStatus::parse),
            preorder: self.preorder_status().map(|status| Preorder {
                time: self.pre_order.as_ref().and_then(|p| blank_to_none(&p.preorder_time)),
                status,
            }),
            customer: Customer {
                name: blank_to_none(&self.consumer_name),
                phone: blank_to_none(&self.consumer_phone_number),
                note: blank_to_none(&self.consumer_comment),
            },
            company: company.map(|c| BillingCompany {
                tax_id: blank_to_none(&c.tax_id),
                name: blank_to_none(&c.name),
                address: blank_to_none(&c.address),
                city: blank_to_none(&c.city),
            }),
            currency,
            lines,
            campaigns,
            campaign_labels: labels,
            delivery_fee: shop_delivery_fee(delivery, fee),
            cash_payment: self.cash_payment.is_some(),
            created_at: blank_to_none(&self.created_at),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::marketplace::OrderStatus;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    /// An order as Wolt documents it, with fields Arka does not know and an unknown status.
    const SELF_DELIVERY: &str = r#"{
        "id": "w-1", "venue": {"id": "v-1", "name": "Byrektore"}, "order_number": "A7",
        "order_status": "production", "type": "instant", "created_at": "2026-11-20T10:00:00Z",
        "consumer_name": "Ana H.", "consumer_phone_number": "+355691111111", "consumer_comment": "pa qepë",
        "delivery": {"type": "homedelivery", "self_delivery": true, "fee": {"amount": 20000, "currency": "ALL"},
                     "status": "picked_up", "location": {"city": "Tiranë"}},
        "basket_price": {"total": {"amount": 119000, "currency": "ALL"},
                         "discounts": [{"name": "Fundjavë -50", "amount": {"amount": 5000, "currency": "ALL"}}]},
        "items": [
          {"id": "i1", "name": "Pica", "count": 1, "pos_id": "P1", "vat_percentage": 20,
           "item_price": {"unit_price": {"amount": 70000, "currency": "ALL"}},
           "options": [{"name": "Djathë", "value": "shtesë", "price": {"amount": 10000, "currency": "ALL"}}]},
          {"id": "i2", "name": "Sufllaqe", "count": 2, "sku": "S-9",
           "item_price": {"unit_price": {"amount": 35000, "currency": "ALL"},
                          "discounts": [{"name": "1+1", "amount": {"amount": 35000, "currency": "ALL"}}]}}
        ],
        "cash_payment": {"amount_to_collect": {"amount": 119000, "currency": "ALL"}},
        "something_new": [1, 2, 3]
    }"#;

    #[test]
    fn an_order_v2_becomes_an_incoming_order_in_major_units() {
        let order: OrderV2 = serde_json::from_str(SELF_DELIVERY).unwrap();
        let incoming = order.incoming().unwrap();
        assert_eq!(incoming.delivery, DeliveryType::SelfDelivery);
        assert_eq!(incoming.first_status(), OrderStatus::Accepted);
        assert_eq!(incoming.currency, "ALL");
        assert_eq!(incoming.lines[0].unit_price, d("800.00"));
        assert_eq!(incoming.lines[0].code.as_deref(), Some("P1"));
        assert_eq!(incoming.lines[0].vat_rate, Some(d("20")));
        assert_eq!(incoming.lines[1].code.as_deref(), Some("S-9"));
        assert_eq!(incoming.lines[1].discount, d("350.00"));
        assert_eq!(incoming.lines[1].total, d("350.00"));
        assert_eq!(incoming.campaign_labels, vec!["1+1".to_string(), "Fundjavë -50".to_string()]);
        let t = incoming.totals();
        assert_eq!(t.subtotal_before_discount, d("1500.00"));
        assert_eq!(t.discount(), d("400.00"));
        assert_eq!(t.delivery_fee, d("200.00"));
        assert_eq!(t.total, d("1300.00"));
        assert!(incoming.cash_payment);
        assert_eq!(order.progress().courier, Some(CourierProgress::PickedUp));
    }

    #[test]
    fn what_arka_cannot_take_is_named() {
        let mut order: OrderV2 = serde_json::from_str(SELF_DELIVERY).unwrap();
        order.items[1].count = 0;
        assert_eq!(order.incoming().unwrap_err(), "items.1.count must be at least 1");
        order.items.clear();
        assert!(order.incoming().is_err());
    }

    #[test]
    fn a_notification_with_an_id_arka_cannot_keep_is_refused() {
        let mut n = Notification { id: "a".repeat(MAX_ID_CHARS), ..Notification::default() };
        n.order.id = "w-1".into();
        assert!(n.problems().is_empty());
        n.id.push('a');
        n.order.id = "w\u{1}".into();
        let problems = n.problems().into_map();
        assert_eq!(problems.keys().collect::<Vec<_>>(), ["id", "order.id"]);
        assert!(problems["id"][0].contains("128"), "{problems:?}");
        n.id = " ".into();
        n.order.id = "w\u{9b}".into();
        assert_eq!(n.problems().into_map().len(), 2);
    }

    #[test]
    fn a_wolt_courier_fee_is_not_the_shops_and_preorders_are_read() {
        let order: OrderV2 = serde_json::from_str(
            r#"{"id": "w-2", "venue": {"id": "v"}, "type": "preorder",
                "pre_order": {"preorder_time": "2026-11-20T18:00:00+01:00", "pre_order_status": "WAITING"},
                "delivery": {"type": "homedelivery", "fee": {"amount": 15000, "currency": "ALL"}},
                "items": [{"id": "i", "name": "Kafe", "count": 2, "item_price": {"unit_price": {"amount": 10000, "currency": "ALL"}}}]}"#,
        )
        .unwrap();
        let incoming = order.incoming().unwrap();
        assert_eq!(incoming.delivery, DeliveryType::WoltDelivery);
        assert_eq!(incoming.delivery_fee, Decimal::ZERO);
        assert_eq!(incoming.preorder.as_ref().unwrap().status, PreorderStatus::Waiting);
        assert_eq!(incoming.first_status(), OrderStatus::Received);
        assert_eq!(incoming.lines[0].code.as_deref(), Some("i"));
        assert_eq!(incoming.totals().total, d("200.00"));
    }
}
