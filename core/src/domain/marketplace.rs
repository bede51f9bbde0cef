//! Delivery-marketplace orders: their kinds and statuses, which action each status allows and
//! which Wolt call carries it, how Wolt's own statuses move an order, Wolt's minor units, and
//! the invoice an order becomes.

use rust_decimal::Decimal;

use super::invoice::LineInput;
use super::money::round2;
use super::payments::PaymentType;
use super::spelled::spelled;
use super::validation::FieldErrors;

spelled! {
    /// How the order reaches the customer.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum DeliveryType {
        /// The customer collects it at the counter.
        Takeaway = "takeaway",
        /// A Wolt courier collects it; Wolt marks it delivered.
        WoltDelivery = "wolt_delivery",
        /// The shop's own courier delivers it.
        SelfDelivery = "self_delivery",
    }
}

spelled! {
    /// Where an order stands, as the partner API shows it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum OrderStatus {
        /// New: waiting for accept or reject.
        Received = "received",
        /// A pre-order the shop confirmed; Wolt moves it to production at preparation time.
        Scheduled = "scheduled",
        /// Being prepared (Wolt's PRODUCTION).
        Accepted = "accepted",
        Ready = "ready",
        /// Self-delivery: the shop's courier has it.
        PickedUp = "picked_up",
        /// Self-delivery: the shop's courier is at the customer.
        AtCustomer = "at_customer",
        Delivered = "delivered",
        /// Rejected by the shop.
        Rejected = "rejected",
        /// Cancelled by the customer or by Wolt.
        Canceled = "canceled",
    }
}

impl OrderStatus {
    /// Delivered, rejected and cancelled orders have left the active board.
    pub fn is_final(self) -> bool {
        matches!(self, OrderStatus::Delivered | OrderStatus::Rejected | OrderStatus::Canceled)
    }

    /// How far along the order is; statuses only ever move to a higher rank.
    fn rank(self) -> u8 {
        match self {
            OrderStatus::Received => 0,
            OrderStatus::Scheduled => 1,
            OrderStatus::Accepted => 2,
            OrderStatus::Ready => 3,
            OrderStatus::PickedUp => 4,
            OrderStatus::AtCustomer => 5,
            OrderStatus::Delivered | OrderStatus::Rejected | OrderStatus::Canceled => 6,
        }
    }

    /// The kind of the event that reports an order reaching this status.
    pub fn event_kind(self) -> &'static str {
        match self {
            OrderStatus::Received => "order.received",
            OrderStatus::Scheduled => "order.scheduled",
            OrderStatus::Accepted => "order.accepted",
            OrderStatus::Ready => "order.ready",
            OrderStatus::PickedUp => "order.picked_up",
            OrderStatus::AtCustomer => "order.at_customer",
            OrderStatus::Delivered => "order.delivered",
            OrderStatus::Rejected => "order.rejected",
            OrderStatus::Canceled => "order.canceled",
        }
    }
}

/// The event kind of an order's invoice being issued (its status does not change).
pub const FISCALIZED_EVENT: &str = "order.fiscalized";

spelled! {
    /// A pre-order's own state.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum PreorderStatus {
        /// Waiting for the shop to confirm it.
        Waiting = "waiting",
        Confirmed = "confirmed",
    }
}

impl PreorderStatus {
    /// Wolt's text, any case; anything but "confirmed" still waits.
    /// Confirmed in any case; anything else is still waiting.
    pub fn confirmed_or_waiting(s: &str) -> Self {
        if s.trim().eq_ignore_ascii_case("confirmed") {
            PreorderStatus::Confirmed
        } else {
            PreorderStatus::Waiting
        }
    }
}

spelled! {
    /// Who moved an order: the shop through the partner API, or Wolt through its webhook.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum EventSource {
        Pos = "pos",
        Wolt = "wolt",
    }
}

spelled! {
    /// What a POS asks of an order (each is one write route).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Action {
        Accept = "accept",
        Reject = "reject",
        Ready = "ready",
        CourierPickedUp = "courier-picked-up",
        CourierAtCustomer = "courier-at-customer",
        Delivered = "delivered",
    }
}

/// The Wolt merchant API call that carries an action (`PUT /orders/{id}/<path>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WoltCall {
    Accept,
    SelfDeliveryAccept,
    ConfirmPreorder,
    Reject,
    Ready,
    PickupCompleted,
    CourierAtCustomer,
    Delivered,
}

impl WoltCall {
    pub const ALL: [WoltCall; 8] = [
        WoltCall::Accept,
        WoltCall::SelfDeliveryAccept,
        WoltCall::ConfirmPreorder,
        WoltCall::Reject,
        WoltCall::Ready,
        WoltCall::PickupCompleted,
        WoltCall::CourierAtCustomer,
        WoltCall::Delivered,
    ];

    pub fn path(self) -> &'static str {
        match self {
            WoltCall::Accept => "accept",
            WoltCall::SelfDeliveryAccept => "self-delivery/accept",
            WoltCall::ConfirmPreorder => "confirm-preorder",
            WoltCall::Reject => "reject",
            WoltCall::Ready => "ready",
            WoltCall::PickupCompleted => "pickup-completed",
            WoltCall::CourierAtCustomer => "courier-at-customer",
            WoltCall::Delivered => "delivered",
        }
    }

    pub fn from_path(path: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.path() == path)
    }
}

/// An allowed action: the Wolt call to make and the status the order then has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub call: WoltCall,
    pub next: OrderStatus,
}

/// Why an action is not allowed in the order's status (409 `invalid_transition`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

/// The facts about an order the transitions depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderState {
    pub status: OrderStatus,
    pub delivery: DeliveryType,
    /// `Some` for a pre-order.
    pub preorder: Option<PreorderStatus>,
}

/// Which Wolt call an action makes from the order's state, and where it leaves the order.
///
/// | status      | kind                       | action              | Wolt call             | next        |
/// |-------------|----------------------------|---------------------|-----------------------|-------------|
/// | received    | pre-order waiting          | accept              | confirm-preorder      | scheduled   |
/// | received    | takeaway, Wolt delivery    | accept              | accept                | accepted    |
/// | received    | self-delivery              | accept              | self-delivery/accept  | accepted    |
/// | received    | any                        | reject              | reject                | rejected    |
/// | accepted    | any                        | ready               | ready                 | ready       |
/// | ready       | takeaway                   | delivered           | delivered             | delivered   |
/// | ready       | self-delivery              | courier-picked-up   | pickup-completed      | picked_up   |
/// | picked_up   | self-delivery              | courier-at-customer | courier-at-customer   | at_customer |
/// | at_customer | self-delivery              | delivered           | delivered             | delivered   |
///
/// Everything else is refused, and nothing reaches Wolt.
pub fn step(state: OrderState, action: Action) -> Result<Step, Refusal> {
    use DeliveryType as D;
    use OrderStatus as S;
    let found = match (state.status, action) {
        (S::Received, Action::Accept) => Some(match (state.preorder, state.delivery) {
            (Some(PreorderStatus::Waiting), _) => {
                Step { call: WoltCall::ConfirmPreorder, next: S::Scheduled }
            }
            (_, D::SelfDelivery) => Step { call: WoltCall::SelfDeliveryAccept, next: S::Accepted },
            _ => Step { call: WoltCall::Accept, next: S::Accepted },
        }),
        (S::Received, Action::Reject) => Some(Step { call: WoltCall::Reject, next: S::Rejected }),
        (S::Accepted, Action::Ready) => Some(Step { call: WoltCall::Ready, next: S::Ready }),
        (S::Ready, Action::Delivered) if state.delivery == D::Takeaway => {
            Some(Step { call: WoltCall::Delivered, next: S::Delivered })
        }
        (S::Ready, Action::CourierPickedUp) if state.delivery == D::SelfDelivery => {
            Some(Step { call: WoltCall::PickupCompleted, next: S::PickedUp })
        }
        (S::PickedUp, Action::CourierAtCustomer) => {
            Some(Step { call: WoltCall::CourierAtCustomer, next: S::AtCustomer })
        }
        (S::AtCustomer, Action::Delivered) => Some(Step { call: WoltCall::Delivered, next: S::Delivered }),
        _ => None,
    };
    found.ok_or_else(|| Refusal(refusal_text(state, action)))
}

fn refusal_text(state: OrderState, action: Action) -> String {
    let kind = match state.delivery {
        DeliveryType::Takeaway => "A takeaway order",
        DeliveryType::WoltDelivery => "A Wolt-delivered order",
        DeliveryType::SelfDelivery => "A self-delivery order",
    };
    let hint = match (action, state.delivery) {
        (Action::Delivered, DeliveryType::WoltDelivery) => " Wolt marks its courier's orders delivered.",
        (
            Action::CourierPickedUp | Action::CourierAtCustomer,
            DeliveryType::Takeaway | DeliveryType::WoltDelivery,
        ) => " The courier steps are for self-delivery orders.",
        (Action::Reject, _) if state.status != OrderStatus::Received => " Only a new order can be rejected.",
        _ => "",
    };
    format!("{kind} in status {} cannot take {}.{hint}", state.status.as_str(), action.as_str())
}

/// The actions the order's status allows now (shown on every order, so a POS can draw buttons).
pub fn allowed_actions(state: OrderState) -> Vec<Action> {
    Action::ALL.into_iter().filter(|a| step(state, *a).is_ok()).collect()
}

/// Whether the order's invoice may be issued: once accepted and not rejected, cancelled or
/// already invoiced.
pub fn may_fiscalize(status: OrderStatus, invoiced: bool) -> Result<(), Refusal> {
    if invoiced {
        return Err(Refusal("The order's invoice has already been issued.".into()));
    }
    match status {
        OrderStatus::Accepted
        | OrderStatus::Ready
        | OrderStatus::PickedUp
        | OrderStatus::AtCustomer
        | OrderStatus::Delivered => Ok(()),
        other => Err(Refusal(format!(
            "An order in status {} cannot be fiscalized: accept it first (rejected and cancelled orders never are).",
            other.as_str()
        ))),
    }
}

/// Wolt's order statuses (webhook `order.status` upper case, order `order_status` lower case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WoltStatus {
    Created,
    Production,
    Ready,
    Delivered,
    Rejected,
    Canceled,
}

impl WoltStatus {
    /// Any case; Wolt may add values, which read as `None` and move nothing.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "created" | "received" | "fetched" | "acknowledged" => Some(WoltStatus::Created),
            "production" => Some(WoltStatus::Production),
            "ready" => Some(WoltStatus::Ready),
            "delivered" => Some(WoltStatus::Delivered),
            "rejected" => Some(WoltStatus::Rejected),
            "canceled" | "cancelled" | "refunded" => Some(WoltStatus::Canceled),
            _ => None,
        }
    }

    /// The upper-case name a webhook carries.
    pub fn notification(self) -> &'static str {
        match self {
            WoltStatus::Created => "CREATED",
            WoltStatus::Production => "PRODUCTION",
            WoltStatus::Ready => "READY",
            WoltStatus::Delivered => "DELIVERED",
            WoltStatus::Rejected => "REJECTED",
            WoltStatus::Canceled => "CANCELED",
        }
    }

    /// The lower-case name an order carries.
    pub fn order_status(self) -> &'static str {
        match self {
            WoltStatus::Created => "created",
            WoltStatus::Production => "production",
            WoltStatus::Ready => "ready",
            WoltStatus::Delivered => "delivered",
            WoltStatus::Rejected => "rejected",
            WoltStatus::Canceled => "canceled",
        }
    }
}

/// The status a new order starts in, from what Wolt says of it.
pub fn initial_status(wolt: Option<WoltStatus>, preorder: Option<PreorderStatus>) -> OrderStatus {
    match wolt {
        None | Some(WoltStatus::Created) if preorder == Some(PreorderStatus::Confirmed) => {
            OrderStatus::Scheduled
        }
        None | Some(WoltStatus::Created) => OrderStatus::Received,
        Some(WoltStatus::Production) => OrderStatus::Accepted,
        Some(WoltStatus::Ready) => OrderStatus::Ready,
        Some(WoltStatus::Delivered) => OrderStatus::Delivered,
        Some(WoltStatus::Rejected) => OrderStatus::Rejected,
        Some(WoltStatus::Canceled) => OrderStatus::Canceled,
    }
}

/// Where Wolt's word moves a known order: only forward, never out of a final status. Wolt
/// shows no courier steps, so a READY from Wolt leaves a self-delivery order with its courier.
/// A rejection Wolt reports for an order the shop did not reject is a cancellation.
pub fn moved_by_wolt(
    current: OrderStatus,
    wolt: WoltStatus,
    preorder: Option<PreorderStatus>,
) -> Option<OrderStatus> {
    if current.is_final() {
        return None;
    }
    let target = match wolt {
        WoltStatus::Rejected | WoltStatus::Canceled => OrderStatus::Canceled,
        other => initial_status(Some(other), preorder),
    };
    (target.rank() > current.rank()).then_some(target)
}

/// What Wolt shows of an order, enough to tell whether a call already took effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WoltProgress {
    pub status: Option<WoltStatus>,
    pub preorder: Option<PreorderStatus>,
    /// Self-delivery: Wolt's `delivery.status` (picked_up, at_customer, delivered).
    pub courier: Option<CourierProgress>,
}

spelled! {
    /// Self-delivery courier progress as Wolt reports it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    pub enum CourierProgress {
        PickedUp = "picked_up",
        AtCustomer = "at_customer",
    }
}

impl CourierProgress {
    /// Wolt's `delivery.status`, in any case and in either of Wolt's words for it.
    pub fn from_wolt(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "picked_up" | "pickup_completed" => Some(CourierProgress::PickedUp),
            "at_customer" | "courier_at_customer" => Some(CourierProgress::AtCustomer),
            _ => None,
        }
    }
}

/// Whether Wolt already shows the effect of `call`: after a call that got no answer, the retry
/// reads the order first and does not send the call twice.
pub fn already_applied(call: WoltCall, wolt: WoltProgress) -> bool {
    let status_rank = |s: WoltStatus| match s {
        WoltStatus::Created => 0,
        WoltStatus::Production => 1,
        WoltStatus::Ready => 2,
        WoltStatus::Delivered => 3,
        WoltStatus::Rejected | WoltStatus::Canceled => 4,
    };
    let at_least = |s: WoltStatus| {
        wolt.status.is_some_and(|w| {
            !matches!(w, WoltStatus::Rejected | WoltStatus::Canceled) && status_rank(w) >= status_rank(s)
        })
    };
    match call {
        WoltCall::Accept | WoltCall::SelfDeliveryAccept => at_least(WoltStatus::Production),
        WoltCall::ConfirmPreorder => {
            wolt.preorder == Some(PreorderStatus::Confirmed) || at_least(WoltStatus::Production)
        }
        WoltCall::Reject => wolt.status == Some(WoltStatus::Rejected),
        WoltCall::Ready => at_least(WoltStatus::Ready),
        WoltCall::PickupCompleted => wolt.courier.is_some() || at_least(WoltStatus::Delivered),
        WoltCall::CourierAtCustomer => {
            wolt.courier == Some(CourierProgress::AtCustomer) || at_least(WoltStatus::Delivered)
        }
        WoltCall::Delivered => at_least(WoltStatus::Delivered),
    }
}

/// Decimal places of a currency's minor unit (ISO 4217). Wolt sends every amount in minor
/// units: for the lek (ALL, exponent 2) 45000 means 450.00 ALL.
pub fn minor_unit_exponent(currency: &str) -> u32 {
    match currency.trim().to_ascii_uppercase().as_str() {
        "ISK" | "JPY" | "KRW" | "CLP" | "VND" | "XAF" | "XOF" | "PYG" | "UGX" | "RWF" => 0,
        "BHD" | "IQD" | "JOD" | "KWD" | "LYD" | "OMR" | "TND" => 3,
        _ => 2,
    }
}

/// A Wolt amount (minor units) in major units of `currency`.
pub fn major_units(minor: i64, currency: &str) -> Decimal {
    Decimal::new(minor, minor_unit_exponent(currency))
}

/// A chosen option of a line (a size, an extra), priced per unit of the line.
#[derive(Debug, Clone, PartialEq)]
pub struct LineOption {
    pub name: String,
    pub value: Option<String>,
    pub price: Decimal,
}

/// One line of an order, in major units. `unit_price` includes the options' prices.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderLine {
    pub name: String,
    /// Wolt's `pos_id` or `sku`: matched against the catalog's product codes.
    pub code: Option<String>,
    pub quantity: Decimal,
    pub unit_price: Decimal,
    /// Amount off the line (item campaigns).
    pub discount: Decimal,
    /// `unit_price x quantity - discount`.
    pub total: Decimal,
    /// The VAT percent Wolt or the linked product gives; `None` uses the default.
    pub vat_rate: Option<Decimal>,
    pub options: Vec<LineOption>,
}

impl OrderLine {
    /// Prices a line: the discount is capped at the line's value.
    pub fn priced(
        name: String,
        code: Option<String>,
        quantity: Decimal,
        unit_price: Decimal,
        discount: Decimal,
        vat_rate: Option<Decimal>,
        options: Vec<LineOption>,
    ) -> OrderLine {
        let gross = round2(unit_price * quantity);
        let discount = round2(discount.max(Decimal::ZERO).min(gross));
        OrderLine { name, code, quantity, unit_price, discount, total: gross - discount, vat_rate, options }
    }

    pub fn gross(&self) -> Decimal {
        self.total + self.discount
    }
}

/// A basket-wide campaign: its label and the amount it takes off.
#[derive(Debug, Clone, PartialEq)]
pub struct Campaign {
    pub label: String,
    pub amount: Decimal,
}

/// The order's totals, in major units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub subtotal_before_discount: Decimal,
    /// Line discounts.
    pub line_discount: Decimal,
    /// Basket campaigns, capped at what the lines come to after their own discounts.
    pub campaign_discount: Decimal,
    /// The delivery fee the shop earns (self-delivery only; Wolt keeps its couriers' fee).
    pub delivery_fee: Decimal,
    /// What the shop's invoice comes to: subtotal - discounts + delivery fee.
    pub total: Decimal,
}

impl Totals {
    pub fn discount(&self) -> Decimal {
        self.line_discount + self.campaign_discount
    }
}

/// The delivery fee that is the shop's revenue: only a self-delivery order's.
pub fn shop_delivery_fee(delivery: DeliveryType, fee: Decimal) -> Decimal {
    if delivery == DeliveryType::SelfDelivery { fee.max(Decimal::ZERO) } else { Decimal::ZERO }
}

pub fn totals(lines: &[OrderLine], campaigns: &[Campaign], delivery_fee: Decimal) -> Totals {
    let subtotal_before_discount: Decimal = lines.iter().map(OrderLine::gross).sum();
    let line_discount: Decimal = lines.iter().map(|l| l.discount).sum();
    let after_lines = subtotal_before_discount - line_discount;
    let campaigns: Decimal = campaigns.iter().map(|c| c.amount.max(Decimal::ZERO)).sum();
    let campaign_discount = round2(campaigns).min(after_lines);
    Totals {
        subtotal_before_discount,
        line_discount,
        campaign_discount,
        delivery_fee,
        total: after_lines - campaign_discount + delivery_fee,
    }
}

/// The customer as Wolt shares them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Customer {
    pub name: Option<String>,
    /// Wolt shares it only when the shop needs it (self-delivery).
    pub phone: Option<String>,
    pub note: Option<String>,
}

/// The company a B2B order is billed to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BillingCompany {
    pub tax_id: Option<String>,
    pub name: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
}

/// A scheduled order's time (ISO 8601, as Wolt gives it) and state.
#[derive(Debug, Clone, PartialEq)]
pub struct Preorder {
    pub time: Option<String>,
    pub status: PreorderStatus,
}

/// A Wolt order as Arka takes it in, amounts already in major units.
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingOrder {
    pub wolt_order_id: String,
    pub wolt_venue_id: String,
    pub order_number: Option<String>,
    pub delivery: DeliveryType,
    pub wolt_status: Option<WoltStatus>,
    pub preorder: Option<Preorder>,
    pub customer: Customer,
    pub company: Option<BillingCompany>,
    pub currency: String,
    pub lines: Vec<OrderLine>,
    pub campaigns: Vec<Campaign>,
    /// Every campaign label of the order: item campaigns and basket campaigns.
    pub campaign_labels: Vec<String>,
    /// The shop's share of the delivery fee (see `shop_delivery_fee`).
    pub delivery_fee: Decimal,
    pub cash_payment: bool,
    pub created_at: Option<String>,
}

impl IncomingOrder {
    pub fn totals(&self) -> Totals {
        totals(&self.lines, &self.campaigns, self.delivery_fee)
    }

    pub fn first_status(&self) -> OrderStatus {
        initial_status(self.wolt_status, self.preorder.as_ref().map(|p| p.status))
    }
}

/// The VAT percent used when neither the catalog nor Wolt gives one: Albania's standard rate.
pub const DEFAULT_VAT_RATE: u32 = 20;
/// The name, code and unit of the invoice line carrying a self-delivery fee.
pub const DELIVERY_LINE_NAME: &str = "Dërgesa";
pub const DELIVERY_LINE_CODE: &str = "DELIVERY";
pub const LINE_UNIT: &str = "copë";
/// The product code of an invoice line whose Wolt item carries no code of its own.
pub const UNCODED_ITEM: &str = "WOLT";
const DELIVERY_LINE_UNIT: &str = "shërbim";

/// The order as its invoice needs it.
#[derive(Debug, Clone)]
pub struct FiscalOrder<'a> {
    pub lines: &'a [OrderLine],
    pub totals: Totals,
    /// Paid in cash to the shop's courier; otherwise paid online in the Wolt app.
    pub cash_payment: bool,
    /// A B2B order billed to a company: a non-cash invoice.
    pub billed_to_company: bool,
}

/// The invoice an order becomes, in the invoice rules' terms.
#[derive(Debug, Clone, PartialEq)]
pub struct FiscalDraft {
    pub lines: Vec<LineInput>,
    /// Basket campaigns as one invoice-level discount (an amount with VAT).
    pub invoice_discount: Option<Decimal>,
    pub payment: PaymentType,
}

/// The order's lines (their line discounts as percents), basket campaigns as the invoice-level
/// discount, the shop's delivery fee as one more line at the standard rate, and how it was paid:
/// on account for a company, in banknotes when the courier collected cash, else by card (Wolt
/// charged the customer's card in its app).
pub fn fiscal_draft(order: &FiscalOrder) -> FiscalDraft {
    let mut lines: Vec<LineInput> = order
        .lines
        .iter()
        .map(|line| {
            let name = match line.options.is_empty() {
                true => line.name.clone(),
                false => {
                    let chosen: Vec<String> = line
                        .options
                        .iter()
                        .map(|o| o.value.clone().unwrap_or_else(|| o.name.clone()))
                        .collect();
                    format!("{} ({})", line.name, chosen.join(", "))
                }
            };
            LineInput {
                product_name: Some(name),
                product_code: Some(line.code.clone().unwrap_or_else(|| UNCODED_ITEM.to_string())),
                unit: Some(LINE_UNIT.to_string()),
                unit_code: None,
                quantity: Some(line.quantity),
                price: Some(line.unit_price),
                total: Some(line.total),
                discount: discount_percent(line),
                vat: Some(line.vat_rate.unwrap_or(Decimal::from(DEFAULT_VAT_RATE))),
                vat_exempt_type: None,
            }
        })
        .collect();
    if order.totals.delivery_fee > Decimal::ZERO {
        lines.push(LineInput {
            product_name: Some(DELIVERY_LINE_NAME.to_string()),
            product_code: Some(DELIVERY_LINE_CODE.to_string()),
            unit: Some(DELIVERY_LINE_UNIT.to_string()),
            unit_code: None,
            quantity: Some(Decimal::ONE),
            price: Some(order.totals.delivery_fee),
            total: Some(order.totals.delivery_fee),
            discount: None,
            vat: Some(Decimal::from(DEFAULT_VAT_RATE)),
            vat_exempt_type: None,
        });
    }
    let payment = match (order.billed_to_company, order.cash_payment) {
        (true, _) => PaymentType::Account,
        (false, true) => PaymentType::Banknote,
        (false, false) => PaymentType::Card,
    };
    let campaign = order.totals.campaign_discount;
    FiscalDraft { lines, invoice_discount: (campaign > Decimal::ZERO).then_some(campaign), payment }
}

/// A line's discount amount as the percent of its value the invoice rules take.
fn discount_percent(line: &OrderLine) -> Option<Decimal> {
    let gross = line.gross();
    if line.discount.is_zero() || gross.is_zero() {
        return None;
    }
    Some(line.discount * Decimal::ONE_HUNDRED / gross)
}

/// A venue as the owner gives it (fields under `venue.`): the id and both credentials required,
/// bounded lengths, no control characters, and a webhook secret of at least 16 characters (Wolt's
/// client secrets have at least 128 bits, so a shorter one is a typing mistake).
pub fn check_venue(
    wolt_venue_id: &str,
    name: &str,
    api_key: &str,
    webhook_secret: &str,
) -> Result<(), FieldErrors> {
    let mut errors = FieldErrors::new();
    let fields = [
        ("venue.wolt_venue_id", wolt_venue_id, 100, true),
        ("venue.name", name, 255, false),
        ("venue.api_key", api_key, 4096, true),
        ("venue.webhook_secret", webhook_secret, 4096, true),
    ];
    for (field, value, max, required) in fields {
        if required {
            errors.required(field, Some(value));
        }
        errors.max_len(field, Some(value), max);
        if value.chars().any(char::is_control) {
            errors.add(field, format!("The {field} must not contain control characters."));
        }
    }
    let secret = webhook_secret.trim();
    if !secret.is_empty() && secret.len() < 16 {
        errors.add("venue.webhook_secret", "The venue.webhook_secret must have at least 16 characters.");
    }
    errors.into_result()
}

/// An `Idempotency-Key` a caller may use: 1 to 255 visible ASCII characters.
pub fn idempotency_key_problem(key: &str) -> Option<&'static str> {
    if key.is_empty() {
        Some("The Idempotency-Key must not be empty.")
    } else if key.len() > 255 {
        Some("The Idempotency-Key must not be longer than 255 characters.")
    } else if !key.bytes().all(|b| b.is_ascii_graphic()) {
        Some("The Idempotency-Key may hold only visible ASCII characters.")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::invoice::{self, InvoiceInput};
    use crate::domain::payments::PaymentsInput;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn state(status: OrderStatus, delivery: DeliveryType, preorder: Option<PreorderStatus>) -> OrderState {
        OrderState { status, delivery, preorder }
    }

    #[test]
    fn the_transitions_table() {
        use Action as A;
        use DeliveryType::{SelfDelivery as Self_, Takeaway as Take, WoltDelivery as Wolt};
        use OrderStatus as S;
        use WoltCall as C;
        let waiting = Some(PreorderStatus::Waiting);
        // | status        | kind  | pre-order | action              | Wolt call              | next          |
        let allowed = [
            (S::Received, Take, waiting, A::Accept, C::ConfirmPreorder, S::Scheduled),
            (S::Received, Take, None, A::Accept, C::Accept, S::Accepted),
            (S::Received, Wolt, None, A::Accept, C::Accept, S::Accepted),
            (S::Received, Self_, None, A::Accept, C::SelfDeliveryAccept, S::Accepted),
            (S::Received, Wolt, None, A::Reject, C::Reject, S::Rejected),
            (S::Received, Take, waiting, A::Reject, C::Reject, S::Rejected),
            (S::Accepted, Wolt, None, A::Ready, C::Ready, S::Ready),
            (S::Ready, Take, None, A::Delivered, C::Delivered, S::Delivered),
            (S::Ready, Self_, None, A::CourierPickedUp, C::PickupCompleted, S::PickedUp),
            (S::PickedUp, Self_, None, A::CourierAtCustomer, C::CourierAtCustomer, S::AtCustomer),
            (S::AtCustomer, Self_, None, A::Delivered, C::Delivered, S::Delivered),
        ];
        for (status, kind, preorder, action, call, next) in allowed {
            assert_eq!(
                step(state(status, kind, preorder), action),
                Ok(Step { call, next }),
                "{status:?} {kind:?} {action:?}"
            );
        }
        // | status     | kind  | action              | why not                                   |
        let refused = [
            (S::Ready, Wolt, A::Delivered),       // Wolt's courier: Wolt marks it delivered
            (S::Ready, Self_, A::Delivered),      // the courier steps come first
            (S::Ready, Take, A::CourierPickedUp), // no courier at a takeaway
            (S::Accepted, Take, A::Delivered),    // not ready yet
            (S::Received, Take, A::Ready),        // not accepted yet
            (S::Scheduled, Take, A::Ready),       // Wolt starts production of a pre-order
            (S::Scheduled, Take, A::Reject),      // a confirmed pre-order cannot be rejected
            (S::Accepted, Take, A::Reject),       // only new orders can be rejected
            (S::Accepted, Take, A::Accept),       // accepted already
            (S::Delivered, Take, A::Delivered),   // final
            (S::Rejected, Take, A::Accept),       // final
            (S::Canceled, Self_, A::CourierPickedUp), // final
            (S::PickedUp, Self_, A::Delivered),   // at the customer first
        ];
        for (status, kind, action) in refused {
            assert!(step(state(status, kind, None), action).is_err(), "{status:?} {kind:?} {action:?}");
        }
        let why = step(state(S::Ready, Wolt, None), A::Delivered).unwrap_err();
        assert!(why.0.contains("Wolt marks"), "{}", why.0);
    }

    #[test]
    fn allowed_actions_follow_the_table() {
        let new = state(OrderStatus::Received, DeliveryType::Takeaway, None);
        assert_eq!(allowed_actions(new), vec![Action::Accept, Action::Reject]);
        let ready = state(OrderStatus::Ready, DeliveryType::SelfDelivery, None);
        assert_eq!(allowed_actions(ready), vec![Action::CourierPickedUp]);
        assert!(allowed_actions(state(OrderStatus::Delivered, DeliveryType::Takeaway, None)).is_empty());
    }

    #[test]
    fn fiscalizing_needs_an_accepted_order_without_an_invoice() {
        // | status      | invoiced | allowed |
        let table = [
            (OrderStatus::Received, false, false),
            (OrderStatus::Scheduled, false, false),
            (OrderStatus::Accepted, false, true),
            (OrderStatus::Ready, false, true),
            (OrderStatus::AtCustomer, false, true),
            (OrderStatus::Delivered, false, true),
            (OrderStatus::Delivered, true, false),
            (OrderStatus::Rejected, false, false),
            (OrderStatus::Canceled, false, false),
        ];
        for (status, invoiced, allowed) in table {
            assert_eq!(may_fiscalize(status, invoiced).is_ok(), allowed, "{status:?} invoiced={invoiced}");
        }
    }

    #[test]
    fn wolt_moves_orders_only_forward() {
        use OrderStatus as S;
        use WoltStatus as W;
        let confirmed = Some(PreorderStatus::Confirmed);
        // | current     | Wolt says  | pre-order  | becomes          |
        let table = [
            (S::Received, W::Production, None, Some(S::Accepted)),
            (S::Scheduled, W::Production, confirmed, Some(S::Accepted)),
            (S::Received, W::Created, confirmed, Some(S::Scheduled)),
            (S::Accepted, W::Created, None, None),
            (S::Ready, W::Delivered, None, Some(S::Delivered)),
            (S::PickedUp, W::Ready, None, None),
            (S::Accepted, W::Canceled, None, Some(S::Canceled)),
            (S::Received, W::Rejected, None, Some(S::Canceled)),
            (S::Rejected, W::Rejected, None, None),
            (S::Delivered, W::Canceled, None, None),
        ];
        for (current, wolt, preorder, becomes) in table {
            assert_eq!(moved_by_wolt(current, wolt, preorder), becomes, "{current:?} + {wolt:?}");
        }
        assert_eq!(initial_status(Some(W::Created), None), S::Received);
        assert_eq!(initial_status(None, confirmed), S::Scheduled);
        assert_eq!(WoltStatus::parse("ACKNOWLEDGED"), Some(W::Created));
        assert_eq!(WoltStatus::parse("something_new"), None);
    }

    #[test]
    fn a_call_wolt_already_shows_is_not_sent_again() {
        let progress = |status, preorder, courier| WoltProgress { status, preorder, courier };
        let production = progress(Some(WoltStatus::Production), None, None);
        assert!(already_applied(WoltCall::Accept, production));
        assert!(!already_applied(WoltCall::Ready, production));
        assert!(!already_applied(WoltCall::Accept, progress(Some(WoltStatus::Created), None, None)));
        assert!(already_applied(
            WoltCall::ConfirmPreorder,
            progress(Some(WoltStatus::Created), Some(PreorderStatus::Confirmed), None)
        ));
        let picked = progress(Some(WoltStatus::Ready), None, Some(CourierProgress::PickedUp));
        assert!(already_applied(WoltCall::PickupCompleted, picked));
        assert!(!already_applied(WoltCall::CourierAtCustomer, picked));
        assert!(!already_applied(WoltCall::Accept, progress(Some(WoltStatus::Canceled), None, None)));
        assert!(already_applied(WoltCall::Reject, progress(Some(WoltStatus::Rejected), None, None)));
    }

    #[test]
    fn wolt_minor_units_become_major_units() {
        // | minor  | currency | major   |
        let table = [
            (45000, "ALL", "450.00"),
            (1, "ALL", "0.01"),
            (1999, "EUR", "19.99"),
            (500, "ISK", "500"),
            (1234, "KWD", "1.234"),
            (-250, "all", "-2.50"),
        ];
        for (minor, currency, major) in table {
            assert_eq!(major_units(minor, currency), d(major), "{minor} {currency}");
        }
    }

    fn line(name: &str, qty: &str, price: &str, discount: &str, vat: Option<&str>) -> OrderLine {
        OrderLine::priced(name.into(), None, d(qty), d(price), d(discount), vat.map(d), Vec::new())
    }

    #[test]
    fn totals_of_an_order() {
        let lines = [line("Byrek", "2", "150", "0", None), line("Sufllaqe", "3", "350", "100", None)];
        let campaigns = [Campaign { label: "-10%".into(), amount: d("125") }];
        // | figure                    | value   |
        let t = totals(&lines, &campaigns, d("200"));
        assert_eq!(t.subtotal_before_discount, d("1350"));
        assert_eq!(t.line_discount, d("100"));
        assert_eq!(t.campaign_discount, d("125"));
        assert_eq!(t.discount(), d("225"));
        assert_eq!(t.total, d("1325"));
        // A campaign larger than the basket takes it to zero, not below.
        let t = totals(&lines, &[Campaign { label: "free".into(), amount: d("99999") }], Decimal::ZERO);
        assert_eq!(t.total, Decimal::ZERO);
        // A line discount is capped at the line.
        assert_eq!(line("x", "1", "10", "15", None).total, Decimal::ZERO);
    }

    #[test]
    fn only_a_self_delivery_fee_is_the_shops() {
        assert_eq!(shop_delivery_fee(DeliveryType::SelfDelivery, d("200")), d("200"));
        assert_eq!(shop_delivery_fee(DeliveryType::WoltDelivery, d("200")), Decimal::ZERO);
        assert_eq!(shop_delivery_fee(DeliveryType::Takeaway, d("200")), Decimal::ZERO);
    }

    /// The draft passes the invoice rules and comes to the order's total.
    #[test]
    fn the_invoice_of_an_order_comes_to_its_total() {
        let mut pizza = line("Pica", "1", "800", "0", Some("20"));
        pizza.options =
            vec![LineOption { name: "Djathë".into(), value: Some("shtesë".into()), price: d("100") }];
        let lines =
            [pizza, line("Sufllaqe", "3", "350", "100", None), line("Ujë", "2", "60", "0", Some("6"))];
        let campaigns = [Campaign { label: "Fundjavë".into(), amount: d("150") }];
        let t = totals(&lines, &campaigns, d("200"));
        let draft = fiscal_draft(&FiscalOrder {
            lines: &lines,
            totals: t,
            cash_payment: true,
            billed_to_company: false,
        });
        assert_eq!(draft.payment, PaymentType::Banknote);
        assert_eq!(draft.invoice_discount, Some(d("150")));
        assert_eq!(draft.lines.len(), 4);
        assert_eq!(draft.lines[0].product_name.as_deref(), Some("Pica (shtesë)"));
        assert_eq!(draft.lines[1].vat, Some(d("20")));
        assert_eq!(draft.lines[3].product_code.as_deref(), Some(DELIVERY_LINE_CODE));
        let input = InvoiceInput {
            lines: draft.lines.clone(),
            issuer_in_vat: true,
            invoice_discount_type: Some("amount".into()),
            invoice_discount_value: draft.invoice_discount,
            fee: None,
            exchange_rate: None,
            payments: PaymentsInput::V1 {
                payment_method: Some(draft.payment.as_str().into()),
                company_card: None,
                vouchers: None,
            },
        };
        let invoice = invoice::issue(&input).expect("the invoice rules accept the draft");
        assert_eq!(invoice.totals.total, t.total);
        let company = fiscal_draft(&FiscalOrder {
            lines: &lines,
            totals: t,
            cash_payment: true,
            billed_to_company: true,
        });
        assert_eq!(company.payment, PaymentType::Account);
        let online = fiscal_draft(&FiscalOrder {
            lines: &lines,
            totals: t,
            cash_payment: false,
            billed_to_company: false,
        });
        assert_eq!(online.payment, PaymentType::Card);
    }

    #[test]
    fn a_venue_needs_its_id_and_credentials() {
        let keys = |r: Result<(), FieldErrors>| r.err().map(|e| e.into_map().into_keys().collect::<Vec<_>>());
        // | id    | name | api key  | secret                    | refused fields                  |
        assert_eq!(keys(check_venue("5f3a", "", "key", "a-long-enough-secret")), None);
        assert_eq!(
            keys(check_venue("", "x", "", "a-long-enough-secret")),
            Some(vec!["venue.api_key".into(), "venue.wolt_venue_id".into()])
        );
        assert_eq!(keys(check_venue("v", "x", "k", "short")), Some(vec!["venue.webhook_secret".into()]));
        assert_eq!(
            keys(check_venue("v", "x\u{0}", "k", "a-long-enough-secret")),
            Some(vec!["venue.name".into()])
        );
        assert_eq!(
            keys(check_venue(&"v".repeat(101), "", "k", "a-long-enough-secret")),
            Some(vec!["venue.wolt_venue_id".into()])
        );
    }

    #[test]
    fn idempotency_keys() {
        assert_eq!(idempotency_key_problem("pos-1-7f3a"), None);
        assert!(idempotency_key_problem("").is_some());
        assert!(idempotency_key_problem("has space").is_some());
        assert!(idempotency_key_problem("nul\u{0}").is_some());
        assert!(idempotency_key_problem(&"k".repeat(256)).is_some());
    }
}
