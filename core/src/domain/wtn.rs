//! A warehouse transfer note being issued: the body's rules, and the defaults the spec's print
//! document names (origin WAREHOUSE, destination STORE, the company's city, the unit's address,
//! the issue time).
//!
//! Choices the spec leaves open, each forced by the CIS's schema: `vehicle_plates` is required
//! (letters, digits and `-`, printed upper case); a destination point is one of WAREHOUSE,
//! EXHIBITION, STORE, SALE, OTHER (the CIS takes CUSTOMS and ANOTHER only as an origin); a line
//! has a name, a unit and a quantity above 0 with at most 3 decimals. The value of the goods is
//! what the caller declares (`value_of_goods`), or the sum of the lines' `price` x `quantity`;
//! when both are sent they must agree.

use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Europe::Tirane;
use rust_decimal::{Decimal, RoundingStrategy};
use serde::Deserialize;

use super::fields;
use super::money::{self, MAX_AMOUNT, MAX_INVOICE_TOTAL, MAX_QUANTITY, round2};
use super::spelled::spelled;
use super::validation::{self, FieldErrors};

/// At most this many lines (the CIS's `Items` holds 1..1000).
pub const MAX_LINES: usize = 1000;
/// Longest line name and code (the CIS item carries the first 50 characters).
pub const MAX_LINE_TEXT: usize = 255;
/// Longest unit (the CIS's `U` is a String50).
pub const MAX_UNIT: usize = 50;
/// Longest address (the CIS's String200) and city (String100).
pub const MAX_ADDRESS: usize = 200;
pub const MAX_CITY: usize = 100;
/// Longest carrier name (String100), identifier (String20), vehicle plates, packaging type
/// (String50).
pub const MAX_CARRIER_NAME: usize = 100;
pub const MAX_CARRIER_ID: usize = 20;
pub const MAX_PLATES: usize = 20;
pub const MAX_PACK_TYPE: usize = 50;
/// The CIS's `PackNum` is an `xs:int` above 0.
pub const MAX_PACK_NUM: i64 = 2_147_483_647;

spelled! {
    /// WTN: the goods change place, not owner; SALE: they accompany a sale.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum NoteType {
        Wtn = "WTN",
        Sale = "SALE",
    }
}

spelled! {
    /// What the goods travel for.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Transaction {
        Transfer = "TRANSFER",
        Examination = "EXAMINATION",
        Sales = "SALES",
        Door = "DOOR",
    }
}

spelled! {
    /// Where goods start or arrive.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Point {
        Warehouse = "WAREHOUSE",
        Store = "STORE",
        Sale = "SALE",
        Exhibition = "EXHIBITION",
        Customs = "CUSTOMS",
        Another = "ANOTHER",
        Other = "OTHER",
    }
}

impl Point {
    /// Whether the CIS takes it as a destination (`WTNDestinPointSType`).
    pub fn is_destination(self) -> bool {
        !matches!(self, Point::Customs | Point::Another)
    }
}

spelled! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum VehicleOwnership {
        /// The company's own vehicle.
        Owner = "OWNER",
        ThirdParty = "THIRDPARTY",
    }
}

spelled! {
    /// How a carrier is identified: NUIS for a business, ID for a person.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum CarrierIdType {
        Nuis = "NUIS",
        Id = "ID",
    }
}

/// A place as sent: all optional. Read straight from the body (`PlaceBody` to serde, the name
/// a wrong-typed place has always been refused with), as are the inputs below.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename = "PlaceBody")]
pub struct PlaceInput {
    pub point: Option<String>,
    pub city: Option<String>,
    pub address: Option<String>,
    #[serde(alias = "dateTime")]
    pub date_time: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename = "CarrierBody")]
pub struct CarrierInput {
    pub name: Option<String>,
    #[serde(alias = "idType")]
    pub id_type: Option<String>,
    #[serde(default, alias = "idNum", deserialize_with = "fields::opt_text")]
    pub id_num: Option<String>,
    pub town: Option<String>,
    pub address: Option<String>,
}

impl CarrierInput {
    fn is_empty(&self) -> bool {
        [&self.name, &self.id_type, &self.id_num, &self.town, &self.address]
            .iter()
            .all(|f| f.as_deref().is_none_or(|v| v.trim().is_empty()))
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename = "LineBody")]
pub struct LineInput {
    #[serde(rename = "product_name", alias = "name")]
    pub name: Option<String>,
    #[serde(default, rename = "product_code", alias = "code", deserialize_with = "fields::opt_text")]
    pub code: Option<String>,
    pub unit: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    pub quantity: Option<Decimal>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    pub price: Option<Decimal>,
}

/// A note's body as sent, v1 and v2 alike (v2 spells some keys in camelCase).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename = "IssueBody")]
pub struct NoteInput {
    #[serde(default, rename = "internalId", deserialize_with = "fields::opt_text")]
    pub internal_id: Option<String>,
    #[serde(rename = "type")]
    pub note_type: Option<String>,
    pub transaction: Option<String>,
    pub carrier: Option<CarrierInput>,
    #[serde(alias = "vehicleOwnership")]
    pub vehicle_ownership: Option<String>,
    #[serde(default, alias = "vehiclePlates", deserialize_with = "fields::opt_text")]
    pub vehicle_plates: Option<String>,
    pub origin: Option<PlaceInput>,
    pub destination: Option<PlaceInput>,
    /// One of the company's other units the goods go to (looked up by the service).
    #[serde(default, alias = "destinationUnitId", deserialize_with = "fields::opt_integer")]
    pub destination_unit_id: Option<i64>,
    #[serde(
        default,
        rename = "is_goods_flammable",
        alias = "isGoodsFlammable",
        deserialize_with = "fields::opt_boolean"
    )]
    pub goods_flammable: Option<bool>,
    #[serde(
        default,
        rename = "is_escort_required",
        alias = "isEscortRequired",
        deserialize_with = "fields::opt_boolean"
    )]
    pub escort_required: Option<bool>,
    #[serde(alias = "packType")]
    pub pack_type: Option<String>,
    #[serde(default, alias = "packNum", deserialize_with = "fields::opt_integer")]
    pub pack_num: Option<i64>,
    #[serde(default, alias = "valueOfGoods", deserialize_with = "fields::opt_decimal")]
    pub value_of_goods: Option<Decimal>,
    #[serde(default, rename = "invoice_lines", deserialize_with = "fields::list")]
    pub lines: Vec<LineInput>,
}

impl NoteInput {
    /// The internalId sent, trimmed; blank is none.
    pub fn internal_id(&self) -> Option<&str> {
        self.internal_id.as_deref().map(str::trim).filter(|i| !i.is_empty())
    }
}

/// The rules of a note's internalId and receiving unit, read before the body's other rules:
/// the internalId at most `MAX_INTERNAL_ID` characters, the unit another than the issuing one.
pub fn check_references(input: &NoteInput, issuing_unit: i64) -> Result<(), FieldErrors> {
    let mut errors = FieldErrors::new();
    if let Some(internal_id) = input.internal_id() {
        validation::internal_id_length(&mut errors, internal_id);
    }
    if errors.is_empty() && input.destination_unit_id == Some(issuing_unit) {
        errors.add(
            "destination_unit_id",
            "The destination unit must be another unit of the company, not the issuing one.",
        );
    }
    errors.into_result()
}

/// What stands in for a place's city and address when they are not sent: the company's city
/// and the issuing unit's address for the origin; for the destination the receiving unit's when
/// the note goes to one, else the same as the origin's (the spec's defaults).
#[derive(Debug, Clone, Copy, Default)]
pub struct Defaults<'a> {
    pub origin_city: Option<&'a str>,
    pub origin_address: Option<&'a str>,
    pub destination_city: Option<&'a str>,
    pub destination_address: Option<&'a str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carrier {
    pub name: String,
    pub id_type: CarrierIdType,
    pub id_num: String,
    pub town: Option<String>,
    pub address: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub point: Point,
    pub city: String,
    pub address: String,
    /// `None`: the issue time (known when the note is numbered).
    pub date_time: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub name: String,
    pub code: Option<String>,
    pub unit: String,
    pub quantity: Decimal,
    /// Unit value in lek, when sent.
    pub price: Option<Decimal>,
}

/// A note checked: everything but its number and issue time.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub note_type: NoteType,
    pub transaction: Transaction,
    pub carrier: Option<Carrier>,
    pub vehicle_ownership: VehicleOwnership,
    /// Upper case, without spaces.
    pub vehicle_plates: String,
    pub origin: Place,
    pub destination: Place,
    pub goods_flammable: bool,
    pub escort_required: bool,
    pub pack_type: Option<String>,
    pub pack_num: Option<u32>,
    /// In lek, two decimals.
    pub value_of_goods: Decimal,
    pub lines: Vec<Line>,
}

impl Note {
    /// The sum of the lines' quantities.
    pub fn quantity(&self) -> Decimal {
        self.lines.iter().map(|l| l.quantity).sum()
    }
}

/// A sale names the note `number` as the one its goods left with, but the note took them to
/// the company's own unit `unit`: they are sold from that unit's shelf, without naming the note.
pub fn named_by_a_sale_in_another_unit(number: &str, unit: Option<&str>) -> FieldErrors {
    let unit = unit.unwrap_or("another unit");
    FieldErrors::one(
        "wtn_id",
        format!(
            "The warehouse transfer note {number} took its goods to the company's unit {unit}: they are sold from that unit's shelf, without naming the note."
        ),
    )
}

/// The print document's `itemsNum`: the sum of the line quantities as a whole number (a
/// fractional sum, 2.5 kg, rounds half away from zero).
pub fn items_num(quantity: Decimal) -> i64 {
    let whole = quantity.round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero);
    i64::try_from(whole).unwrap_or(i64::MAX)
}

/// The CIS's optional `ItemsNum` (an `xs:int` above 0): sent only when the quantities add up to
/// a whole number that fits.
pub fn cis_items_num(quantity: Decimal) -> Option<u32> {
    if quantity.fract() != Decimal::ZERO {
        return None;
    }
    u32::try_from(quantity).ok().filter(|n| *n > 0 && i64::from(*n) <= MAX_PACK_NUM)
}

fn text(value: &Option<String>) -> Option<String> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_string)
}

/// Reads a sent enumeration (any case), adding `message` under `field` when it is not one.
fn choice<T>(
    errors: &mut FieldErrors,
    field: &str,
    sent: &Option<String>,
    parse: fn(&str) -> Option<T>,
    message: &str,
) -> Option<T> {
    let value = text(sent)?;
    let parsed = parse(&value.to_uppercase());
    if parsed.is_none() {
        errors.add(field, format!("The {field} must be one of {message}."));
    }
    parsed
}

/// A time as POS apps send it: `YYYY-MM-DD HH:MM:SS` in Tirane time, or RFC 3339 with an offset.
pub fn parse_date_time(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Some(at.with_timezone(&Utc));
    }
    let naive = NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
        .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S"))
        .ok()?;
    Tirane.from_local_datetime(&naive).earliest().map(|at| at.with_timezone(&Utc))
}

fn place(
    errors: &mut FieldErrors,
    field: &str,
    sent: Option<&PlaceInput>,
    default_point: Point,
    default_city: Option<&str>,
    default_address: Option<&str>,
) -> Option<Place> {
    let empty = PlaceInput::default();
    let sent = sent.unwrap_or(&empty);
    let key = |name: &str| format!("{field}.{name}");
    let points = if field == "destination" {
        "WAREHOUSE, EXHIBITION, STORE, SALE, OTHER"
    } else {
        "WAREHOUSE, STORE, SALE, EXHIBITION, CUSTOMS, ANOTHER, OTHER"
    };
    let point = match choice(errors, &key("point"), &sent.point, Point::parse, points) {
        Some(p) if field == "destination" && !p.is_destination() => {
            errors.add(key("point"), format!("The {} must be one of {points}.", key("point")));
            None
        }
        Some(p) => Some(p),
        None if text(&sent.point).is_none() => Some(default_point),
        None => None,
    };
    let city = text(&sent.city).or_else(|| default_city.map(str::to_string));
    let address = text(&sent.address).or_else(|| default_address.map(str::to_string));
    if city.is_none() {
        errors.add(
            key("city"),
            format!("The {} field is required: the company has no city on record.", key("city")),
        );
    }
    if address.is_none() {
        errors.add(
            key("address"),
            format!("The {} field is required: the business unit has no address on record.", key("address")),
        );
    }
    errors.max_len(&key("city"), city.as_deref(), MAX_CITY);
    errors.max_len(&key("address"), address.as_deref(), MAX_ADDRESS);
    let date_time = match text(&sent.date_time) {
        None => None,
        Some(value) => match parse_date_time(&value) {
            Some(at) => Some(at),
            None => {
                errors.add(
                    key("date_time"),
                    format!(
                        "The {} must be a time as YYYY-MM-DD HH:MM:SS (Tirane) or RFC 3339.",
                        key("date_time")
                    ),
                );
                return None;
            }
        },
    };
    Some(Place { point: point?, city: city?, address: address?, date_time })
}

fn carrier(errors: &mut FieldErrors, sent: Option<&CarrierInput>) -> Option<Carrier> {
    let sent = sent.filter(|c| !c.is_empty())?;
    let name = text(&sent.name);
    if name.is_none() {
        errors.add("carrier.name", "The carrier.name field is required when a carrier is sent.");
    }
    let id_type = match text(&sent.id_type) {
        None => {
            errors.add("carrier.id_type", "The carrier.id_type field is required when a carrier is sent.");
            None
        }
        Some(_) => choice(errors, "carrier.id_type", &sent.id_type, CarrierIdType::parse, "NUIS, ID"),
    };
    let id_num = text(&sent.id_num);
    if id_num.is_none() {
        errors.add("carrier.id_num", "The carrier.id_num field is required when a carrier is sent.");
    }
    if id_type == Some(CarrierIdType::Nuis) && !id_num.as_deref().is_some_and(validation::is_nuis) {
        errors
            .add("carrier.id_num", "A carrier identified by NUIS needs a letter, eight digits and a letter.");
    }
    let (town, address) = (text(&sent.town), text(&sent.address));
    errors.max_len("carrier.name", name.as_deref(), MAX_CARRIER_NAME);
    errors.max_len("carrier.id_num", id_num.as_deref(), MAX_CARRIER_ID);
    errors.max_len("carrier.town", town.as_deref(), MAX_CITY);
    errors.max_len("carrier.address", address.as_deref(), MAX_ADDRESS);
    Some(Carrier { name: name?, id_type: id_type?, id_num: id_num?, town, address })
}

fn line(errors: &mut FieldErrors, index: usize, sent: &LineInput) -> Option<Line> {
    let key = |field: &str| format!("invoice_lines.{index}.{field}");
    let name = errors.required(&key("product_name"), sent.name.as_deref()).map(str::to_string);
    let code = text(&sent.code);
    let unit = errors.required(&key("unit"), sent.unit.as_deref()).map(str::to_string);
    errors.max_len(&key("product_name"), name.as_deref(), MAX_LINE_TEXT);
    errors.max_len(&key("product_code"), code.as_deref(), MAX_LINE_TEXT);
    errors.max_len(&key("unit"), unit.as_deref(), MAX_UNIT);
    let quantity_key = key("quantity");
    let quantity = match sent.quantity {
        None => {
            errors.add(&quantity_key, format!("The {quantity_key} field is required."));
            None
        }
        Some(q) if q <= Decimal::ZERO => {
            errors.add(&quantity_key, format!("The {quantity_key} field must be greater than 0."));
            None
        }
        Some(q) if q.normalize().scale() > 3 => {
            errors
                .add(&quantity_key, format!("The {quantity_key} field must have at most 3 decimal places."));
            None
        }
        Some(q) => money::within(errors, &quantity_key, q, MAX_QUANTITY).then_some(q),
    };
    let price_key = key("price");
    let price = match sent.price {
        None => Some(None),
        Some(p) if p < Decimal::ZERO => {
            errors.add(&price_key, format!("The {price_key} field must be at least 0."));
            None
        }
        Some(p) => money::within(errors, &price_key, p, MAX_AMOUNT).then_some(Some(p)),
    };
    if let (Some(q), Some(Some(p))) = (quantity, price)
        && p.checked_mul(q).is_none_or(|value| value > Decimal::from(MAX_AMOUNT))
    {
        errors.add(&price_key, format!("The {price_key} x quantity must not be greater than {MAX_AMOUNT}."));
        return None;
    }
    Some(Line { name: name?, code, unit: unit?, quantity: quantity?, price: price? })
}

/// The value of the goods: the declared one, or the sum of the priced lines; both must agree.
fn value_of_goods(errors: &mut FieldErrors, sent: Option<Decimal>, lines: &[Line]) -> Option<Decimal> {
    let priced: Vec<Decimal> = lines.iter().filter_map(|l| l.price.map(|p| round2(p * l.quantity))).collect();
    let from_lines = (!priced.is_empty()).then(|| priced.iter().copied().sum::<Decimal>());
    let Some(declared) = sent else {
        return Some(from_lines.unwrap_or(Decimal::ZERO));
    };
    if declared < Decimal::ZERO {
        errors.add("value_of_goods", "The value_of_goods field must be at least 0.");
        return None;
    }
    if !money::within(errors, "value_of_goods", declared, MAX_INVOICE_TOTAL) {
        return None;
    }
    if !money::is_cents(declared) {
        errors.add("value_of_goods", "The value_of_goods field must have at most 2 decimal places.");
        return None;
    }
    if let Some(sum) = from_lines
        && sum != declared
    {
        errors.add(
            "value_of_goods",
            format!("The value_of_goods ({declared}) must equal the lines' price x quantity ({sum:.2})."),
        );
        return None;
    }
    Some(declared)
}

/// Everything that can be wrong with a note's body, found in one place; the defaults fill what
/// the spec says they fill.
pub fn check(input: &NoteInput, defaults: &Defaults) -> Result<Note, FieldErrors> {
    let mut errors = FieldErrors::new();
    let note_type = match text(&input.note_type) {
        None => Some(NoteType::Wtn),
        Some(_) => choice(&mut errors, "type", &input.note_type, NoteType::parse, "WTN, SALE"),
    };
    let transaction = match text(&input.transaction) {
        None => note_type.map(|t| match t {
            NoteType::Wtn => Transaction::Transfer,
            NoteType::Sale => Transaction::Sales,
        }),
        Some(_) => choice(
            &mut errors,
            "transaction",
            &input.transaction,
            Transaction::parse,
            "TRANSFER, EXAMINATION, SALES, DOOR",
        ),
    };
    let carrier = carrier(&mut errors, input.carrier.as_ref());
    let vehicle_ownership = match text(&input.vehicle_ownership) {
        None => Some(VehicleOwnership::Owner),
        Some(_) => choice(
            &mut errors,
            "vehicle_ownership",
            &input.vehicle_ownership,
            VehicleOwnership::parse,
            "OWNER, THIRDPARTY",
        ),
    };
    let plates: Option<String> =
        text(&input.vehicle_plates).map(|p| p.split_whitespace().collect::<String>().to_uppercase());
    match plates.as_deref() {
        None => errors.add("vehicle_plates", "The vehicle_plates field is required."),
        Some(p) if !p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') => {
            errors.add("vehicle_plates", "The vehicle_plates may hold only letters, digits and -.")
        }
        Some(_) => errors.max_len("vehicle_plates", plates.as_deref(), MAX_PLATES),
    }
    let origin = place(
        &mut errors,
        "origin",
        input.origin.as_ref(),
        Point::Warehouse,
        defaults.origin_city,
        defaults.origin_address,
    );
    let destination = place(
        &mut errors,
        "destination",
        input.destination.as_ref(),
        Point::Store,
        defaults.destination_city.or(defaults.origin_city),
        defaults.destination_address.or(defaults.origin_address),
    );
    if let (Some(o), Some(d)) = (&origin, &destination)
        && let (Some(start), Some(end)) = (o.date_time, d.date_time)
        && end < start
    {
        errors.add(
            "destination.date_time",
            "The destination.date_time must not be before the origin.date_time.",
        );
    }
    let pack_type = text(&input.pack_type);
    errors.max_len("pack_type", pack_type.as_deref(), MAX_PACK_TYPE);
    let pack_num = match input.pack_num {
        None => Some(None),
        Some(n) if (1..=MAX_PACK_NUM).contains(&n) => u32::try_from(n).ok().map(Some),
        Some(_) => {
            errors.add("pack_num", format!("The pack_num must be between 1 and {MAX_PACK_NUM}."));
            None
        }
    };
    if input.lines.is_empty() {
        errors.add("invoice_lines", "The invoice_lines field is required and must hold at least one line.");
    }
    if input.lines.len() > MAX_LINES {
        errors.add("invoice_lines", format!("A note has at most {MAX_LINES} lines."));
    }
    let lines: Vec<Option<Line>> =
        input.lines.iter().take(MAX_LINES).enumerate().map(|(i, l)| line(&mut errors, i, l)).collect();
    let lines: Option<Vec<Line>> = lines.into_iter().collect();
    let value = lines.as_deref().and_then(|l| value_of_goods(&mut errors, input.value_of_goods, l));
    errors.into_result()?;
    match (note_type, transaction, vehicle_ownership, plates, origin, destination, pack_num, lines, value) {
        (
            Some(note_type),
            Some(transaction),
            Some(vehicle_ownership),
            Some(vehicle_plates),
            Some(origin),
            Some(destination),
            Some(pack_num),
            Some(lines),
            Some(value_of_goods),
        ) => Ok(Note {
            note_type,
            transaction,
            carrier,
            vehicle_ownership,
            vehicle_plates,
            origin,
            destination,
            goods_flammable: input.goods_flammable.unwrap_or(false),
            escort_required: input.escort_required.unwrap_or(false),
            pack_type,
            pack_num,
            value_of_goods,
            lines,
        }),
        _ => Err(FieldErrors::one("body", "The note could not be read.")),
    }
}

/// What the report reads of one note.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportNote {
    pub fiscalized: bool,
    pub value_of_goods: Decimal,
    pub destination: Destination,
}

/// Where a note went: one of the company's units, or a place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    pub unit_id: Option<i64>,
    pub unit_name: Option<String>,
    pub point: Point,
    pub city: String,
    pub address: String,
}

impl Destination {
    /// Notes to the same unit, or to the same city and address, go to one destination.
    fn same_as(&self, other: &Destination) -> bool {
        match (self.unit_id, other.unit_id) {
            (Some(a), Some(b)) => a == b,
            (None, None) => {
                self.city.trim().to_lowercase() == other.city.trim().to_lowercase()
                    && self.address.trim().to_lowercase() == other.address.trim().to_lowercase()
            }
            _ => false,
        }
    }
}

/// Count and value of a group of notes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub count: i64,
    pub value_of_goods: Decimal,
}

impl Tally {
    fn add(&mut self, value: Decimal) -> Result<(), money::Overflow> {
        self.count += 1;
        self.value_of_goods = money::add(self.value_of_goods, value)?;
        Ok(())
    }
}

/// The report of a period: totals, per fiscal status (FISCALIZED, then UNFISCALIZED, as far
/// as any note has it), and per destination (most notes first).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub totals: Tally,
    pub by_status: Vec<(&'static str, Tally)>,
    pub destinations: Vec<(Destination, Tally)>,
}

/// `FISCALIZED` once the CIS gave the note its code, else `UNFISCALIZED`.
pub fn fiscal_status(fiscalized: bool) -> &'static str {
    if fiscalized { "FISCALIZED" } else { "UNFISCALIZED" }
}

pub fn summarize(notes: &[ReportNote]) -> Result<Summary, money::Overflow> {
    let mut summary = Summary::default();
    let mut statuses = [(fiscal_status(true), Tally::default()), (fiscal_status(false), Tally::default())];
    for note in notes {
        summary.totals.add(note.value_of_goods)?;
        let status = if note.fiscalized { &mut statuses[0] } else { &mut statuses[1] };
        status.1.add(note.value_of_goods)?;
        match summary.destinations.iter_mut().find(|(d, _)| d.same_as(&note.destination)) {
            Some((_, tally)) => tally.add(note.value_of_goods)?,
            None => {
                let mut tally = Tally::default();
                tally.add(note.value_of_goods)?;
                summary.destinations.push((note.destination.clone(), tally));
            }
        }
    }
    summary.by_status = statuses.into_iter().filter(|(_, t)| t.count > 0).collect();
    summary.destinations.sort_by(|(a, x), (b, y)| {
        y.count.cmp(&x.count).then(y.value_of_goods.cmp(&x.value_of_goods)).then(a.city.cmp(&b.city))
    });
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn line(name: &str, quantity: &str, price: Option<&str>) -> LineInput {
        LineInput {
            name: Some(name.into()),
            code: Some(format!("{name}-1")),
            unit: Some("copë".into()),
            quantity: Some(d(quantity)),
            price: price.map(d),
        }
    }

    fn minimal() -> NoteInput {
        NoteInput {
            vehicle_plates: Some("aa 123 bb".into()),
            lines: vec![line("Miell", "2", None)],
            ..Default::default()
        }
    }

    const DEFAULTS: Defaults<'static> = Defaults {
        origin_city: Some("Tiranë"),
        origin_address: Some("Rruga Myslym Shyri 5"),
        destination_city: None,
        destination_address: None,
    };

    fn fields(input: &NoteInput) -> Vec<String> {
        check(input, &DEFAULTS).unwrap_err().into_map().into_keys().collect()
    }

    #[test]
    fn the_internal_id_and_the_receiving_unit_are_checked_before_the_body() {
        let long = "i".repeat(256);
        let ok = NoteInput { internal_id: Some(" w-1 ".into()), ..minimal() };
        // | rule                                | input                               | key                   | message
        let table: Vec<(&str, NoteInput, Option<[&str; 2]>)> = vec![
            (
                "an internalId and another unit",
                NoteInput { destination_unit_id: Some(8), ..ok.clone() },
                None,
            ),
            ("no internalId (v1 may)", NoteInput { internal_id: None, ..ok.clone() }, None),
            (
                "an internalId over 255 characters",
                NoteInput { internal_id: Some(long), destination_unit_id: Some(7), ..ok.clone() },
                Some(["internalId", "The internalId must not be greater than 255 characters."]),
            ),
            (
                "the issuing unit as destination",
                NoteInput { destination_unit_id: Some(7), ..ok.clone() },
                Some([
                    "destination_unit_id",
                    "The destination unit must be another unit of the company, not the issuing one.",
                ]),
            ),
        ];
        for (rule, input, expected) in table {
            let found = check_references(&input, 7)
                .err()
                .map(|e| e.into_map().into_iter().map(|(k, m)| (k, m.join(" | "))).collect::<Vec<_>>());
            let expected = expected.map(|[k, m]| vec![(k.to_string(), m.to_string())]);
            assert_eq!(found, expected, "{rule}");
        }
        assert_eq!(ok.internal_id(), Some("w-1"));
        assert_eq!(NoteInput { internal_id: Some("  ".into()), ..ok }.internal_id(), None);
    }

    #[test]
    fn a_body_reads_in_v1_and_v2_spelling_into_one_input() {
        let v1: NoteInput = serde_json::from_str(
            r#"{"internalId": 12, "is_goods_flammable": "true", "vehicle_plates": "AA1",
                "destination_unit_id": "3", "invoice_lines": [{"product_name": "Miell", "product_code": 7}]}"#,
        )
        .unwrap();
        let v2: NoteInput = serde_json::from_str(
            r#"{"internalId": "12", "isGoodsFlammable": true, "vehiclePlates": "AA1",
                "destinationUnitId": 3, "invoice_lines": [{"name": "Miell", "code": "7"}]}"#,
        )
        .unwrap();
        for input in [&v1, &v2] {
            assert_eq!(input.internal_id(), Some("12"));
            assert_eq!(input.goods_flammable, Some(true));
            assert_eq!(input.vehicle_plates.as_deref(), Some("AA1"));
            assert_eq!(input.destination_unit_id, Some(3));
            assert_eq!(input.lines.len(), 1);
            assert_eq!(input.lines[0].name.as_deref(), Some("Miell"));
            assert_eq!(input.lines[0].code.as_deref(), Some("7"));
        }
        let no_lines: NoteInput = serde_json::from_str(r#"{"invoice_lines": null}"#).unwrap();
        assert!(no_lines.lines.is_empty());
    }

    #[test]
    fn a_minimal_note_takes_the_spec_s_defaults() {
        let note = check(&minimal(), &DEFAULTS).unwrap();
        // | field              | default                  |
        assert_eq!(note.note_type, NoteType::Wtn);
        assert_eq!(note.transaction, Transaction::Transfer);
        assert_eq!(note.vehicle_ownership, VehicleOwnership::Owner);
        assert_eq!(note.vehicle_plates, "AA123BB");
        assert_eq!(
            note.origin,
            Place {
                point: Point::Warehouse,
                city: "Tiranë".into(),
                address: "Rruga Myslym Shyri 5".into(),
                date_time: None
            }
        );
        assert_eq!(note.destination.point, Point::Store);
        assert_eq!(note.destination.city, "Tiranë");
        assert_eq!(note.value_of_goods, d("0"));
        assert!(!note.goods_flammable && !note.escort_required && note.carrier.is_none());
        // A SALE note travels for a sale.
        let sale = check(&NoteInput { note_type: Some("sale".into()), ..minimal() }, &DEFAULTS).unwrap();
        assert_eq!((sale.note_type, sale.transaction), (NoteType::Sale, Transaction::Sales));
    }

    #[test]
    fn the_receiving_unit_s_place_is_the_destination_s_default() {
        let defaults =
            Defaults { destination_city: Some("Durrës"), destination_address: Some("Lagjja 1"), ..DEFAULTS };
        let note = check(&minimal(), &defaults).unwrap();
        assert_eq!(
            (note.destination.city.as_str(), note.destination.address.as_str()),
            ("Durrës", "Lagjja 1")
        );
    }

    #[test]
    fn the_value_of_goods_is_declared_or_summed_from_priced_lines() {
        // | lines (qty x price)       | declared | value   |
        let priced =
            NoteInput { lines: vec![line("A", "3", Some("10.005")), line("B", "1", None)], ..minimal() };
        assert_eq!(check(&priced, &DEFAULTS).unwrap().value_of_goods, d("30.02"));
        let declared = NoteInput { value_of_goods: Some(d("120.50")), ..minimal() };
        assert_eq!(check(&declared, &DEFAULTS).unwrap().value_of_goods, d("120.50"));
        let both = NoteInput { value_of_goods: Some(d("30.02")), ..priced.clone() };
        assert_eq!(check(&both, &DEFAULTS).unwrap().value_of_goods, d("30.02"));
        let disagree = NoteInput { value_of_goods: Some(d("31")), ..priced };
        assert_eq!(fields(&disagree), ["value_of_goods"]);
        for bad in ["-1", "1.001", "1e15"] {
            let input = NoteInput {
                value_of_goods: Some(bad.parse().or_else(|_| Decimal::from_scientific(bad)).unwrap()),
                ..minimal()
            };
            assert_eq!(fields(&input), ["value_of_goods"], "{bad}");
        }
    }

    #[test]
    fn every_field_that_can_be_wrong_is_named() {
        let input = NoteInput {
            note_type: Some("GIFT".into()),
            transaction: Some("THEFT".into()),
            vehicle_ownership: Some("RENTED".into()),
            vehicle_plates: Some("AA/123".into()),
            carrier: Some(CarrierInput {
                id_type: Some("NUIS".into()),
                id_num: Some("123".into()),
                ..Default::default()
            }),
            origin: Some(PlaceInput { date_time: Some("yesterday".into()), ..Default::default() }),
            destination: Some(PlaceInput { point: Some("CUSTOMS".into()), ..Default::default() }),
            pack_num: Some(0),
            lines: vec![LineInput { quantity: Some(d("0")), price: Some(d("-1")), ..Default::default() }],
            ..Default::default()
        };
        assert_eq!(
            fields(&input),
            [
                "carrier.id_num",
                "carrier.name",
                "destination.point",
                "invoice_lines.0.price",
                "invoice_lines.0.product_name",
                "invoice_lines.0.quantity",
                "invoice_lines.0.unit",
                "origin.date_time",
                "pack_num",
                "transaction",
                "type",
                "vehicle_ownership",
                "vehicle_plates",
            ]
        );
        assert_eq!(fields(&NoteInput { vehicle_plates: None, ..minimal() }), ["vehicle_plates"]);
        assert_eq!(fields(&NoteInput { lines: vec![], ..minimal() }), ["invoice_lines"]);
        let huge = NoteInput { lines: vec![line("A", "1000000001", None)], ..minimal() };
        assert_eq!(fields(&huge), ["invoice_lines.0.quantity"]);
        let too_valuable = NoteInput { lines: vec![line("A", "1000", Some("100000000000"))], ..minimal() };
        assert_eq!(fields(&too_valuable), ["invoice_lines.0.price"]);
    }

    #[test]
    fn without_a_city_or_address_on_record_the_place_must_be_sent() {
        let nothing = Defaults::default();
        let keys: Vec<String> = check(&minimal(), &nothing).unwrap_err().into_map().into_keys().collect();
        assert_eq!(keys, ["destination.address", "destination.city", "origin.address", "origin.city"]);
    }

    #[test]
    fn times_read_as_tirane_local_or_with_an_offset_and_arrival_is_not_before_departure() {
        let winter = parse_date_time("2026-01-15 10:00:00").unwrap();
        assert_eq!(winter.to_rfc3339(), "2026-01-15T09:00:00+00:00");
        assert_eq!(
            parse_date_time("2026-07-15T10:00:00+02:00").unwrap().to_rfc3339(),
            "2026-07-15T08:00:00+00:00"
        );
        assert_eq!(parse_date_time("2026-13-01 10:00:00"), None);
        let backwards = NoteInput {
            origin: Some(PlaceInput { date_time: Some("2026-01-15 10:00:00".into()), ..Default::default() }),
            destination: Some(PlaceInput {
                date_time: Some("2026-01-15 09:00:00".into()),
                ..Default::default()
            }),
            ..minimal()
        };
        assert_eq!(fields(&backwards), ["destination.date_time"]);
    }

    #[test]
    fn the_report_sums_by_status_and_destination() {
        let to = |unit_id: Option<i64>, city: &str, address: &str| Destination {
            unit_id,
            unit_name: unit_id.map(|_| "Durrës".to_string()),
            point: Point::Store,
            city: city.into(),
            address: address.into(),
        };
        let note = |fiscalized, value: &str, destination| ReportNote {
            fiscalized,
            value_of_goods: d(value),
            destination,
        };
        // | status       | value  | destination              |
        let notes = [
            note(true, "100.50", to(Some(2), "Durrës", "Lagjja 1")),
            note(false, "20", to(Some(2), "Durrës", "Lagjja 1")),
            note(true, "5", to(None, "Tiranë", "Rruga e Kavajës 12")),
            note(true, "5", to(None, " tiranë", "rruga e kavajës 12 ")),
            note(true, "1", to(None, "Tiranë", "Rruga e Elbasanit 3")),
        ];
        let summary = summarize(&notes).unwrap();
        assert_eq!(summary.totals, Tally { count: 5, value_of_goods: d("131.50") });
        assert_eq!(
            summary.by_status,
            [
                ("FISCALIZED", Tally { count: 4, value_of_goods: d("111.50") }),
                ("UNFISCALIZED", Tally { count: 1, value_of_goods: d("20") })
            ]
        );
        let destinations: Vec<(Option<i64>, &str, i64)> =
            summary.destinations.iter().map(|(d, t)| (d.unit_id, d.address.as_str(), t.count)).collect();
        assert_eq!(
            destinations,
            [(Some(2), "Lagjja 1", 2), (None, "Rruga e Kavajës 12", 2), (None, "Rruga e Elbasanit 3", 1)]
        );
        assert_eq!(summarize(&[]).unwrap(), Summary::default());
    }

    #[test]
    fn items_are_counted_whole() {
        // | quantities | itemsNum | CIS ItemsNum |
        assert_eq!((items_num(d("3")), cis_items_num(d("3"))), (3, Some(3)));
        assert_eq!((items_num(d("2.5")), cis_items_num(d("2.5"))), (3, None));
        assert_eq!((items_num(d("0.4")), cis_items_num(d("0.4"))), (0, None));
        assert_eq!(cis_items_num(d("3000000000")), None);
    }
}
