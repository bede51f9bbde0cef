//! Lines and totals of an invoice being issued: the rules of the spec's "Invoice line" and
//! "Discount rules", and the figures the CIS message needs (item `UPB UPA R RR PB VR VA PA EX`,
//! `SameTaxes`, `TotPriceWoVAT TotVATAmt TotPrice TaxFreeAmt GoodsExAmt`).
//!
//! How a line is priced, with `price` the unit price with VAT, `r` its VAT rate:
//! 1. its total with VAT after the line discount is `round2(price x quantity x (100 - discount) / 100)`;
//!    the sent `total` must round to the same cents, or the issue is refused (400);
//! 2. the invoice discount is taken off the sum of those totals (the fee is not part of it) and
//!    split over VAT groups, then lines, to the cent (see `discount` for where the cents go);
//! 3. the line's reduced total is `PA`; `PB = round2(PA / (1 + r/100))` and `VA = PA - PB`, so every
//!    line adds up exactly and VAT is recomputed on each group's reduced value;
//! 4. VAT groups and invoice totals are sums of lines, so they add up by construction too.
//!
//! Choices the spec leaves open: quantities must be positive with at most 3 decimals (the CIS's
//! quantity type); prices must not be negative; a line with `vat_exempt_type` must have `vat` 0;
//! a line at VAT 0 without exemption forms a VAT group of rate 0. An issuer outside VAT gets every
//! line as VAT 0 with TAX_FREE, and neither `vat` nor `vat_exempt_type` is checked then.

use rust_decimal::Decimal;
use serde::Deserialize;

use super::discount::{InvoiceDiscount, spread};
use super::error::{Error, LineTotalMismatch};
use super::fields;
use super::money::{
    self, MAX_AMOUNT, MAX_EXCHANGE_RATE, MAX_QUANTITY, exchange_rate, is_cents, round2, to_lek,
};
use super::payments::{self, Payment, PaymentsInput};
use super::spelled::{Spelled, spelled};
use super::validation::{self, FieldErrors};

pub mod request;

/// The VAT rates in use in Albania, in percent.
pub const VAT_RATES: [u32; 4] = [0, 6, 10, 20];
/// At most this many lines (the CIS's `Items` holds 1..1000).
pub const MAX_LINES: usize = 1000;
/// Longest `product_name` and `product_code` (the catalog's limit; the CIS item carries the
/// first 50 characters).
pub const MAX_LINE_TEXT: usize = 255;
/// Longest `unit` (the CIS's `U` is a String50).
pub const MAX_UNIT: usize = 50;
/// Longest `unit_code` (UN/ECE Rec. 20 codes have 2 or 3 characters).
pub const MAX_UNIT_CODE: usize = 10;
/// Longest `notes`: printed on the invoice, where an 80 mm receipt gives it about 25 lines.
pub const MAX_NOTES: usize = 1000;
/// Longest client name (the CIS carries its first 100), address (the buyer's `Address`) and
/// city (its `Town`).
pub const MAX_CLIENT_NAME: usize = 255;
pub const MAX_CLIENT_ADDRESS: usize = 200;
pub const MAX_CLIENT_CITY: usize = 100;

// Every amount is bounded (`money::MAX_AMOUNT` per price x quantity, line total, fee and
// discount; `MAX_QUANTITY`; `MAX_EXCHANGE_RATE`), and there are at most 1000 lines, so every
// product the rules form (a discount share times a weight) stays far inside `Decimal`'s range:
// no arithmetic on an accepted invoice can overflow.

spelled! {
    /// Why a line carries no VAT (`vat_exempt_type`, the item's `EX`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Exemption {
        Type1 = "TYPE_1",
        Type2 = "TYPE_2",
        ExportOfGoods = "EXPORT_OF_GOODS",
        TaxFree = "TAX_FREE",
    }
}

/// How a line is taxed. Lines of one class share the invoice discount as one VAT group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VatClass {
    Rate(Decimal),
    Exempt(Exemption),
}

impl VatClass {
    /// Whether the class is a CIS `SameTax`: a rate, or TYPE_1/TYPE_2. Tax-free and exported
    /// goods are declared in `TaxFreeAmt` and `GoodsExAmt` instead.
    pub fn is_same_tax(self) -> bool {
        matches!(self, VatClass::Rate(_) | VatClass::Exempt(Exemption::Type1 | Exemption::Type2))
    }
}

/// One of `lines[]` as sent (absent or null is `None`). Read straight from the body; named
/// `LineBody` to serde, the name a line of the wrong JSON type has always been refused with.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename = "LineBody")]
pub struct LineInput {
    pub product_name: Option<String>,
    pub product_code: Option<String>,
    pub unit: Option<String>,
    pub unit_code: Option<String>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    pub quantity: Option<Decimal>,
    /// Unit price with VAT.
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    pub price: Option<Decimal>,
    /// Line total with VAT, after the line discount.
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    pub total: Option<Decimal>,
    /// Percent off the unit price; absent means 0.
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    pub discount: Option<Decimal>,
    #[serde(default, deserialize_with = "fields::opt_decimal")]
    pub vat: Option<Decimal>,
    pub vat_exempt_type: Option<String>,
}

/// The parts of an issue body these rules read.
#[derive(Debug, Clone, PartialEq)]
pub struct InvoiceInput {
    pub lines: Vec<LineInput>,
    /// From the company, not the body.
    pub issuer_in_vat: bool,
    pub invoice_discount_type: Option<String>,
    pub invoice_discount_value: Option<Decimal>,
    /// Non-cash only: added after the discount, outside its base.
    pub fee: Option<Decimal>,
    pub exchange_rate: Option<Decimal>,
    pub payments: PaymentsInput,
}

/// A priced line: what the details show and what the CIS item carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub product_name: String,
    pub product_code: String,
    pub unit: String,
    pub unit_code: Option<String>,
    /// `Q`
    pub quantity: Decimal,
    /// `UPA`: the unit price with VAT, as sent (to the cent).
    pub unit_price: Decimal,
    /// `UPB`: the unit price without VAT.
    pub unit_price_before_vat: Decimal,
    /// The line discount in percent, 0 when none was sent.
    pub discount_rate: Decimal,
    /// The net part of the line discount: net before it minus net after it.
    pub discount: Decimal,
    /// With VAT, after the line discount, before the invoice discount (the sent `total`).
    pub total: Decimal,
    /// `R`: how much the line and invoice discounts together took off quantity x price, in
    /// percent; `None` when nothing was. Always reduces the base price: see `rebate_reducing`.
    pub rebate: Option<Decimal>,
    /// `PB`: without VAT, after every discount.
    pub price_before_vat: Decimal,
    /// `VR`
    pub vat_rate: Decimal,
    /// `VA`
    pub vat_amount: Decimal,
    /// `PA`: with VAT, after every discount; always `price_before_vat + vat_amount`.
    pub price_after_vat: Decimal,
    /// `EX`
    pub exemption: Option<Exemption>,
}

impl Line {
    /// `RR`: true beside every rebate, since `PB` is already reduced by it.
    pub fn rebate_reducing(&self) -> Option<bool> {
        self.rebate.map(|_| true)
    }

    pub fn vat_class(&self) -> VatClass {
        match self.exemption {
            Some(exemption) => VatClass::Exempt(exemption),
            None => VatClass::Rate(self.vat_rate),
        }
    }
}

/// A CIS `SameTax`: the sums of the lines of one VAT rate or TYPE_1/TYPE_2 exemption.
#[derive(Debug, Clone, PartialEq)]
pub struct VatGroup {
    pub class: VatClass,
    /// `NumOfItems`
    pub num_items: u32,
    /// `PriceBefVAT`
    pub net: Decimal,
    /// `VATAmt`
    pub vat: Decimal,
    pub gross: Decimal,
}

/// Invoice totals, in the invoice currency unless named `_all` (lek).
#[derive(Debug, Clone, PartialEq)]
pub struct Totals {
    /// With VAT, after the line discounts, before the invoice discount: the discount's base.
    pub gross_before_discount: Decimal,
    /// The invoice discount with VAT (line discounts not included).
    pub discount_gross: Decimal,
    /// The invoice discount without VAT: net before it minus net after it; 0 when none.
    pub discount: Decimal,
    /// `TotPriceWoVAT` without the fee: sum of the lines' `PB`.
    pub net: Decimal,
    /// `TotVATAmt`: sum of the lines' `VA`.
    pub vat: Decimal,
    /// Sum of the lines' `PA`: `net + vat`, and `gross_before_discount - discount_gross`.
    pub gross: Decimal,
    /// 0 when none.
    pub fee: Decimal,
    /// `TotPrice`: `gross + fee`, what the payments add up to.
    pub total: Decimal,
    /// `TaxFreeAmt`: sum of `PB` of the TAX_FREE lines.
    pub tax_free_amount: Decimal,
    /// `GoodsExAmt`: sum of `PB` of the EXPORT_OF_GOODS lines.
    pub goods_export_amount: Decimal,
    /// Lek per unit of the invoice currency (1 when absent or not positive).
    pub exchange_rate: Decimal,
    pub gross_all: Decimal,
    pub net_all: Decimal,
    pub vat_all: Decimal,
    pub discount_all: Decimal,
}

/// An invoice that passed the rules, ready to be numbered, signed and stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Invoice {
    pub issuer_in_vat: bool,
    pub lines: Vec<Line>,
    /// `SameTaxes`; empty when the issuer is outside VAT.
    pub vat_groups: Vec<VatGroup>,
    pub totals: Totals,
    pub payments: Vec<Payment>,
}

/// Applies the issue rules. Field errors anywhere (lines, discount, fee, payments) come back
/// together as `Error::Invalid` (422); only then are line totals compared (`Error::LineTotals`,
/// 400), and last the payments' sum against the total (`Error::Invalid` on `payment_methods`).
pub fn issue(input: &InvoiceInput) -> Result<Invoice, Error> {
    let lines = read_lines(&input.lines, input.issuer_in_vat);
    let discount =
        InvoiceDiscount::from_pair(input.invoice_discount_type.as_deref(), input.invoice_discount_value);
    let fee = read_fee(input.fee);
    let rate = read_exchange_rate(input.exchange_rate);
    let payments = payments::read(&input.payments);
    let (lines, discount, fee, rate, payments) = match (lines, discount, fee, rate, payments) {
        (Ok(lines), Ok(discount), Ok(fee), Ok(rate), Ok(payments)) => (lines, discount, fee, rate, payments),
        (lines, discount, fee, rate, payments) => {
            let mut errors = FieldErrors::new();
            let found = [lines.err(), discount.err(), fee.err(), rate.err(), payments.err()];
            for found in found.into_iter().flatten() {
                errors.merge(found);
            }
            return Err(Error::Invalid(errors));
        }
    };
    let mismatches: Vec<LineTotalMismatch> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| round2(line.total_sent) != line.expected_total())
        .map(|(index, line)| LineTotalMismatch {
            index,
            expected: line.expected_total(),
            sent: line.total_sent,
        })
        .collect();
    if !mismatches.is_empty() {
        return Err(Error::LineTotals(mismatches));
    }
    let priced = price_lines(&lines, discount);
    let vat_groups = if input.issuer_in_vat { vat_groups(&priced) } else { Vec::new() };
    let totals = totals(&priced, fee, rate);
    let payments = payments.settle(totals.total)?;
    Ok(Invoice { issuer_in_vat: input.issuer_in_vat, lines: priced, vat_groups, totals, payments })
}

/// An invoice of lines already priced (a corrective document's reversed lines): its VAT
/// groups and totals are their sums, as for an issued one.
pub fn from_priced(
    lines: Vec<Line>,
    issuer_in_vat: bool,
    fee: Decimal,
    exchange_rate: Decimal,
    payments: Vec<Payment>,
) -> Invoice {
    let vat_groups = if issuer_in_vat { vat_groups(&lines) } else { Vec::new() };
    let totals = totals(&lines, fee, exchange_rate);
    Invoice { issuer_in_vat, lines, vat_groups, totals, payments }
}

/// A line whose fields passed the rules.
struct ReadLine {
    product_name: String,
    product_code: String,
    unit: String,
    unit_code: Option<String>,
    quantity: Decimal,
    price: Decimal,
    discount_rate: Decimal,
    vat_rate: Decimal,
    exemption: Option<Exemption>,
    total_sent: Decimal,
}

impl ReadLine {
    /// price x quantity x (100 - discount) / 100, to the cent.
    fn expected_total(&self) -> Decimal {
        round2(
            self.price * self.quantity * (Decimal::ONE_HUNDRED - self.discount_rate) / Decimal::ONE_HUNDRED,
        )
    }

    /// With VAT, before the line discount.
    fn gross_before_line_discount(&self) -> Decimal {
        round2(self.price * self.quantity)
    }

    fn class(&self) -> VatClass {
        match self.exemption {
            Some(exemption) => VatClass::Exempt(exemption),
            None => VatClass::Rate(self.vat_rate),
        }
    }
}

/// The part without VAT of an amount with VAT at `rate` percent, to the cent.
pub fn net_of(gross: Decimal, rate: Decimal) -> Decimal {
    round2(gross * Decimal::ONE_HUNDRED / (Decimal::ONE_HUNDRED + rate))
}

fn read_lines(lines: &[LineInput], issuer_in_vat: bool) -> Result<Vec<ReadLine>, FieldErrors> {
    let mut errors = FieldErrors::new();
    if lines.is_empty() {
        errors.add("lines", "The lines field is required.");
    }
    if lines.len() > MAX_LINES {
        errors.add("lines", format!("The lines field must not have more than {MAX_LINES} items."));
    }
    let mut read = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        match read_line(index, line, issuer_in_vat) {
            Ok(line) => read.push(line),
            Err(found) => errors.merge(found),
        }
    }
    errors.into_result()?;
    Ok(read)
}

fn read_line(index: usize, line: &LineInput, issuer_in_vat: bool) -> Result<ReadLine, FieldErrors> {
    let key = |field: &str| format!("lines.{index}.{field}");
    let mut errors = FieldErrors::new();
    let product_name =
        errors.required(&key("product_name"), line.product_name.as_deref()).map(str::to_string);
    let product_code =
        errors.required(&key("product_code"), line.product_code.as_deref()).map(str::to_string);
    let unit = errors.required(&key("unit"), line.unit.as_deref()).map(str::to_string);
    let unit_code = line.unit_code.as_deref().map(str::trim).filter(|c| !c.is_empty()).map(str::to_string);
    errors.max_len(&key("product_name"), product_name.as_deref(), MAX_LINE_TEXT);
    errors.max_len(&key("product_code"), product_code.as_deref(), MAX_LINE_TEXT);
    errors.max_len(&key("unit"), unit.as_deref(), MAX_UNIT);
    errors.max_len(&key("unit_code"), unit_code.as_deref(), MAX_UNIT_CODE);
    let texts = [
        ("product_name", &product_name),
        ("product_code", &product_code),
        ("unit", &unit),
        ("unit_code", &unit_code),
    ];
    for (field, text) in texts {
        validation::xml_text(&mut errors, &key(field), text.as_deref().unwrap_or_default());
    }

    let quantity_key = key("quantity");
    let quantity = match line.quantity {
        None => {
            errors.add(&quantity_key, format!("The {quantity_key} field is required."));
            None
        }
        // A sale line sells something; returns go through cancellation and credit notes.
        Some(quantity) if quantity <= Decimal::ZERO => {
            errors.add(&quantity_key, format!("The {quantity_key} field must be greater than 0."));
            None
        }
        // The CIS's quantity type has at most 3 decimals.
        Some(quantity) if quantity.normalize().scale() > 3 => {
            errors
                .add(&quantity_key, format!("The {quantity_key} field must have at most 3 decimal places."));
            None
        }
        Some(quantity) => {
            money::within(&mut errors, &quantity_key, quantity, MAX_QUANTITY).then_some(quantity)
        }
    };
    let price_key = key("price");
    let price = match line.price {
        None => {
            errors.add(&price_key, format!("The {price_key} field is required."));
            None
        }
        Some(price) if price < Decimal::ZERO => {
            errors.add(&price_key, format!("The {price_key} field must be at least 0."));
            None
        }
        Some(price) => money::within(&mut errors, &price_key, price, MAX_AMOUNT).then_some(price),
    };
    let total_key = key("total");
    let total_sent = match line.total {
        None => {
            errors.add(&total_key, format!("The {total_key} field is required."));
            None
        }
        Some(total) => money::within(&mut errors, &total_key, total, MAX_AMOUNT).then_some(total),
    };
    // A bound far above any real sale keeps every later product and sum inside Decimal's range.
    if let (Some(quantity), Some(price)) = (quantity, price)
        && price.checked_mul(quantity).is_none_or(|gross| gross > Decimal::from(MAX_AMOUNT))
    {
        errors.add(
            &total_key,
            format!("The {total_key} field (price x quantity) must not be greater than {MAX_AMOUNT}."),
        );
    }
    let discount_rate = match line.discount {
        None => Some(Decimal::ZERO),
        Some(rate) if (Decimal::ZERO..=Decimal::ONE_HUNDRED).contains(&rate) => Some(rate),
        Some(_) => {
            errors.add(key("discount"), format!("The {} field must be between 0 and 100.", key("discount")));
            None
        }
    };
    let class = if issuer_in_vat {
        read_vat_class(index, line, &mut errors)
    } else {
        // Outside the VAT scheme every line is tax free, whatever was sent.
        Some(VatClass::Exempt(Exemption::TaxFree))
    };

    match (product_name, product_code, unit, quantity, price, total_sent, discount_rate, class) {
        (
            Some(product_name),
            Some(product_code),
            Some(unit),
            Some(quantity),
            Some(price),
            Some(total_sent),
            Some(discount_rate),
            Some(class),
        ) if errors.is_empty() => {
            let (vat_rate, exemption) = match class {
                VatClass::Rate(rate) => (rate, None),
                VatClass::Exempt(exemption) => (Decimal::ZERO, Some(exemption)),
            };
            Ok(ReadLine {
                product_name,
                product_code,
                unit,
                unit_code,
                quantity,
                price,
                discount_rate,
                vat_rate,
                exemption,
                total_sent,
            })
        }
        _ => Err(errors),
    }
}

fn read_vat_class(index: usize, line: &LineInput, errors: &mut FieldErrors) -> Option<VatClass> {
    let vat_key = format!("lines.{index}.vat");
    let exempt_key = format!("lines.{index}.vat_exempt_type");
    let rate = match line.vat {
        None => {
            errors.add(&vat_key, format!("The {vat_key} field is required."));
            None
        }
        Some(rate) if VAT_RATES.iter().any(|r| Decimal::from(*r) == rate) => Some(rate.normalize()),
        Some(_) => {
            errors.add(&vat_key, format!("The {vat_key} field must be one of 0, 6, 10, 20."));
            None
        }
    };
    let exemption = match line.vat_exempt_type.as_deref().map(str::trim).filter(|e| !e.is_empty()) {
        None => None,
        Some(name) => match Exemption::parse_any_case(name) {
            Some(exemption) => Some(exemption),
            None => {
                errors.add(
                    &exempt_key,
                    format!(
                        "The {exempt_key} field must be one of TYPE_1, TYPE_2, EXPORT_OF_GOODS, TAX_FREE."
                    ),
                );
                return None;
            }
        },
    };
    match (rate, exemption) {
        (Some(rate), None) => Some(VatClass::Rate(rate)),
        (Some(rate), Some(exemption)) if rate.is_zero() => Some(VatClass::Exempt(exemption)),
        (Some(_), Some(_)) => {
            errors.add(&vat_key, format!("The {vat_key} field must be 0 when {exempt_key} is sent."));
            None
        }
        (None, _) => None,
    }
}

fn read_fee(fee: Option<Decimal>) -> Result<Decimal, FieldErrors> {
    match fee {
        None => Ok(Decimal::ZERO),
        Some(fee) if fee < Decimal::ZERO => Err(FieldErrors::one("fee", "The fee field must be at least 0.")),
        Some(fee) if fee > Decimal::from(MAX_AMOUNT) => {
            Err(FieldErrors::one("fee", format!("The fee field must not be greater than {MAX_AMOUNT}.")))
        }
        Some(fee) if !is_cents(fee) => {
            Err(FieldErrors::one("fee", "The fee field must have at most 2 decimal places."))
        }
        Some(fee) => Ok(fee),
    }
}

/// Absent or not positive means 1; above `MAX_EXCHANGE_RATE` is a field error.
fn read_exchange_rate(sent: Option<Decimal>) -> Result<Decimal, FieldErrors> {
    let rate = exchange_rate(sent);
    if rate > Decimal::from(MAX_EXCHANGE_RATE) {
        return Err(FieldErrors::one(
            "exchange_rate",
            format!("The exchange_rate field must not be greater than {MAX_EXCHANGE_RATE}."),
        ));
    }
    Ok(rate)
}

/// The free texts of an issue body outside its lines: printed on the invoice, and the client's
/// sent to the CIS as the buyer.
#[derive(Debug, Clone, Copy, Default)]
pub struct IssueTexts<'a> {
    pub notes: Option<&'a str>,
    pub client_name: Option<&'a str>,
    pub client_id: Option<&'a str>,
    pub client_address: Option<&'a str>,
    pub client_city: Option<&'a str>,
    pub doc_type: Option<&'a str>,
    pub original_invoice_iic: Option<&'a str>,
}

/// The lengths those texts may have: `notes` up to `MAX_NOTES`; the client's name up to 255
/// (the CIS carries its first 100), identifier 20, address 200 and city 100 (the CIS buyer's
/// `IDNum`, `Address` and `Town`); `doc_type` 10; `original_invoice_iic` 64 (an IIC has 32).
pub fn check_texts(texts: &IssueTexts) -> Result<(), FieldErrors> {
    let mut errors = FieldErrors::new();
    for (field, value, max) in [
        ("notes", texts.notes, MAX_NOTES),
        ("client.name", texts.client_name, MAX_CLIENT_NAME),
        ("client.id", texts.client_id, 20),
        ("client.address", texts.client_address, MAX_CLIENT_ADDRESS),
        ("client.city", texts.client_city, MAX_CLIENT_CITY),
        ("doc_type", texts.doc_type, 10),
        ("original_invoice_iic", texts.original_invoice_iic, 64),
    ] {
        errors.max_len(field, value.map(str::trim), max);
        validation::xml_text(&mut errors, field, value.unwrap_or_default());
    }
    errors.into_result()
}

/// Takes the invoice discount off the lines: over VAT classes by their weight, then over each
/// class's lines by theirs (cents by largest remainder, see `discount::spread`).
fn price_lines(lines: &[ReadLine], discount: Option<InvoiceDiscount>) -> Vec<Line> {
    let totals: Vec<Decimal> = lines.iter().map(ReadLine::expected_total).collect();
    let discount_gross = discount.map_or(Decimal::ZERO, |d| d.gross_off(totals.iter().sum()));

    // Classes in the order their first line appears, each with its lines' indexes.
    let mut classes: Vec<(VatClass, Vec<usize>)> = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        match classes.iter_mut().find(|(class, _)| *class == line.class()) {
            Some((_, members)) => members.push(index),
            None => classes.push((line.class(), vec![index])),
        }
    }
    let class_weights: Vec<Decimal> =
        classes.iter().map(|(_, members)| members.iter().map(|&i| totals[i]).sum()).collect();
    let mut line_shares = vec![Decimal::ZERO; lines.len()];
    for ((_, members), class_share) in classes.iter().zip(spread(discount_gross, &class_weights)) {
        let weights: Vec<Decimal> = members.iter().map(|&i| totals[i]).collect();
        for (&index, share) in members.iter().zip(spread(class_share, &weights)) {
            line_shares[index] = share;
        }
    }
    lines
        .iter()
        .zip(totals)
        .zip(line_shares)
        .map(|((line, total), share)| price_line(line, total, share))
        .collect()
}

fn price_line(line: &ReadLine, total: Decimal, invoice_discount_share: Decimal) -> Line {
    let rate = line.vat_rate;
    let gross_before = line.gross_before_line_discount();
    let price_after_vat = total - invoice_discount_share;
    let price_before_vat = net_of(price_after_vat, rate);
    let rebate = if gross_before > Decimal::ZERO {
        Some(round2((gross_before - price_after_vat) * Decimal::ONE_HUNDRED / gross_before))
            .filter(|r| !r.is_zero())
    } else {
        None
    };
    let unit_price = round2(line.price);
    Line {
        product_name: line.product_name.clone(),
        product_code: line.product_code.clone(),
        unit: line.unit.clone(),
        unit_code: line.unit_code.clone(),
        quantity: line.quantity,
        unit_price,
        unit_price_before_vat: net_of(unit_price, rate),
        discount_rate: line.discount_rate,
        discount: net_of(gross_before, rate) - net_of(total, rate),
        total,
        rebate,
        price_before_vat,
        vat_rate: rate,
        vat_amount: price_after_vat - price_before_vat,
        price_after_vat,
        exemption: line.exemption,
    }
}

/// The `SameTaxes`: one per VAT rate or TYPE_1/TYPE_2 exemption, in order of first line.
fn vat_groups(lines: &[Line]) -> Vec<VatGroup> {
    let mut groups: Vec<VatGroup> = Vec::new();
    for line in lines.iter().filter(|line| line.vat_class().is_same_tax()) {
        let position = match groups.iter().position(|g| g.class == line.vat_class()) {
            Some(position) => position,
            None => {
                groups.push(VatGroup {
                    class: line.vat_class(),
                    num_items: 0,
                    net: Decimal::ZERO,
                    vat: Decimal::ZERO,
                    gross: Decimal::ZERO,
                });
                groups.len() - 1
            }
        };
        let group = &mut groups[position];
        group.num_items += 1;
        group.net += line.price_before_vat;
        group.vat += line.vat_amount;
        group.gross += line.price_after_vat;
    }
    groups
}

fn totals(lines: &[Line], fee: Decimal, exchange_rate: Decimal) -> Totals {
    let gross_before_discount: Decimal = lines.iter().map(|l| l.total).sum();
    let gross: Decimal = lines.iter().map(|l| l.price_after_vat).sum();
    let net: Decimal = lines.iter().map(|l| l.price_before_vat).sum();
    let vat: Decimal = lines.iter().map(|l| l.vat_amount).sum();
    let net_before_discount: Decimal = lines.iter().map(|l| net_of(l.total, l.vat_rate)).sum();
    let discount = net_before_discount - net;
    let exempt_net = |exemption: Exemption| -> Decimal {
        lines.iter().filter(|l| l.exemption == Some(exemption)).map(|l| l.price_before_vat).sum()
    };
    Totals {
        gross_before_discount,
        discount_gross: gross_before_discount - gross,
        discount,
        net,
        vat,
        gross,
        fee,
        total: gross + fee,
        tax_free_amount: exempt_net(Exemption::TaxFree),
        goods_export_amount: exempt_net(Exemption::ExportOfGoods),
        exchange_rate,
        gross_all: to_lek(gross, exchange_rate),
        net_all: to_lek(net, exchange_rate),
        vat_all: to_lek(vat, exchange_rate),
        discount_all: to_lek(discount, exchange_rate),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::payments::{PaymentElementInput, PaymentType};

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    /// A line of `quantity` x `price` (with VAT) at `vat` percent, total as the POS sends it.
    fn line(quantity: &str, price: &str, total: &str, vat: &str) -> LineInput {
        LineInput {
            product_name: Some("Kafe".to_string()),
            product_code: Some("001".to_string()),
            unit: Some("copë".to_string()),
            unit_code: None,
            quantity: Some(d(quantity)),
            price: Some(d(price)),
            total: Some(d(total)),
            discount: None,
            vat: Some(d(vat)),
            vat_exempt_type: None,
        }
    }

    fn discounted(line: LineInput, percent: &str) -> LineInput {
        LineInput { discount: Some(d(percent)), ..line }
    }

    fn exempt(line: LineInput, exemption: &str) -> LineInput {
        LineInput { vat_exempt_type: Some(exemption.to_string()), ..line }
    }

    fn cash(lines: Vec<LineInput>) -> InvoiceInput {
        InvoiceInput {
            lines,
            issuer_in_vat: true,
            invoice_discount_type: None,
            invoice_discount_value: None,
            fee: None,
            exchange_rate: None,
            payments: PaymentsInput::V1 {
                payment_method: Some("BANKNOTE".to_string()),
                company_card: None,
                vouchers: None,
            },
        }
    }

    fn with_discount(input: InvoiceInput, kind: &str, value: &str) -> InvoiceInput {
        InvoiceInput {
            invoice_discount_type: Some(kind.to_string()),
            invoice_discount_value: Some(d(value)),
            ..input
        }
    }

    /// (PB, VA, PA) of a line.
    fn pb_va_pa(line: &Line) -> (Decimal, Decimal, Decimal) {
        (line.price_before_vat, line.vat_amount, line.price_after_vat)
    }

    /// (class, NumOfItems, PriceBefVAT, VATAmt, gross) of a VAT group.
    fn same_tax(group: &VatGroup) -> (VatClass, u32, Decimal, Decimal, Decimal) {
        (group.class, group.num_items, group.net, group.vat, group.gross)
    }

    fn rate(r: &str) -> VatClass {
        VatClass::Rate(d(r))
    }

    fn invalid_keys(result: Result<Invoice, Error>) -> Vec<String> {
        match result {
            Err(Error::Invalid(errors)) => errors.into_map().into_keys().collect(),
            other => panic!("expected field errors, got {other:?}"),
        }
    }

    #[test]
    fn a_single_line_at_20_percent() {
        // 1 x 99.01 at 20%: PB = round2(99.01 / 1.20 = 82.5083) = 82.51, VA = 99.01 - 82.51 = 16.50
        // (the PROTOCOL.md sample).
        let invoice = issue(&cash(vec![line("1", "99.01", "99.01", "20")])).unwrap();
        let item = &invoice.lines[0];
        assert_eq!(
            (item.quantity, item.unit_price_before_vat, item.unit_price),
            (d("1"), d("82.51"), d("99.01"))
        );
        assert_eq!(pb_va_pa(item), (d("82.51"), d("16.50"), d("99.01")));
        assert_eq!(
            (item.vat_rate, item.exemption, item.rebate, item.rebate_reducing()),
            (d("20"), None, None, None)
        );
        assert_eq!(
            invoice.vat_groups.iter().map(same_tax).collect::<Vec<_>>(),
            vec![(rate("20"), 1, d("82.51"), d("16.50"), d("99.01"))]
        );
        let t = &invoice.totals;
        assert_eq!((t.net, t.vat, t.gross, t.total), (d("82.51"), d("16.50"), d("99.01"), d("99.01")));
        assert_eq!((t.discount, t.discount_gross, t.fee), (d("0"), d("0"), d("0")));
        assert_eq!(
            invoice.payments,
            vec![Payment {
                kind: PaymentType::Banknote,
                amount: d("99.01"),
                company_card: None,
                vouchers: vec![]
            }]
        );
    }

    #[test]
    fn lines_at_20_and_6_percent_and_a_type_1_exempt_line() {
        // | line | Q x price    | VAT    | PA     | PB     | VA    |
        // | 0    | 2 x 60.00    | 20%    | 120.00 | 100.00 | 20.00 |
        // | 1    | 1 x 10.60    | 6%     | 10.60  | 10.00  | 0.60  |
        // | 2    | 3 x 5.00     | TYPE_1 | 15.00  | 15.00  | 0     |
        let invoice = issue(&cash(vec![
            line("2", "60.00", "120.00", "20"),
            line("1", "10.60", "10.60", "6"),
            exempt(line("3", "5.00", "15.00", "0"), "TYPE_1"),
        ]))
        .unwrap();
        assert_eq!(
            invoice.lines.iter().map(pb_va_pa).collect::<Vec<_>>(),
            vec![
                (d("100.00"), d("20.00"), d("120.00")),
                (d("10.00"), d("0.60"), d("10.60")),
                (d("15.00"), d("0"), d("15.00")),
            ]
        );
        assert_eq!(invoice.lines[2].exemption, Some(Exemption::Type1));
        assert_eq!(
            invoice.vat_groups.iter().map(same_tax).collect::<Vec<_>>(),
            vec![
                (rate("20"), 1, d("100.00"), d("20.00"), d("120.00")),
                (rate("6"), 1, d("10.00"), d("0.60"), d("10.60")),
                (VatClass::Exempt(Exemption::Type1), 1, d("15.00"), d("0"), d("15.00")),
            ]
        );
        let t = &invoice.totals;
        assert_eq!((t.net, t.vat, t.gross), (d("125.00"), d("20.60"), d("145.60")));
        assert_eq!((t.tax_free_amount, t.goods_export_amount), (d("0"), d("0")));
    }

    #[test]
    fn tax_free_and_exported_lines_have_their_own_totals_and_no_vat_group() {
        let invoice = issue(&cash(vec![
            line("1", "12.00", "12.00", "20"),
            exempt(line("1", "7.00", "7.00", "0"), "TAX_FREE"),
            exempt(line("2", "4.50", "9.00", "0"), "EXPORT_OF_GOODS"),
        ]))
        .unwrap();
        assert_eq!(
            invoice.vat_groups.iter().map(same_tax).collect::<Vec<_>>(),
            vec![(rate("20"), 1, d("10.00"), d("2.00"), d("12.00"))]
        );
        let t = &invoice.totals;
        assert_eq!((t.tax_free_amount, t.goods_export_amount), (d("7.00"), d("9.00")));
        assert_eq!((t.net, t.vat, t.gross), (d("26.00"), d("2.00"), d("28.00")));
    }

    #[test]
    fn a_line_discount_of_10_percent() {
        // 3 x 12.00 at 20%, 10% off: total = 36.00 x 90 / 100 = 32.40.
        // Net before the discount 36.00 / 1.2 = 30.00, after 32.40 / 1.2 = 27.00: discount 3.00 net.
        // R = (36.00 - 32.40) / 36.00 = 10.00%.
        let invoice = issue(&cash(vec![discounted(line("3", "12.00", "32.40", "20"), "10")])).unwrap();
        let item = &invoice.lines[0];
        assert_eq!((item.discount_rate, item.discount, item.total), (d("10"), d("3.00"), d("32.40")));
        assert_eq!((item.unit_price, item.unit_price_before_vat), (d("12.00"), d("10.00")));
        assert_eq!(pb_va_pa(item), (d("27.00"), d("5.40"), d("32.40")));
        assert_eq!((item.rebate, item.rebate_reducing()), (Some(d("10.00")), Some(true)));
        // A line discount is not an invoice discount.
        assert_eq!((invoice.totals.discount, invoice.totals.discount_gross), (d("0"), d("0")));
    }

    #[test]
    fn invoice_discount_of_10_percent_over_two_vat_groups() {
        // Lines: A 1 x 19.99 at 20%, B 2 x 5.00 at 20%, C 1 x 10.60 at 6%. Base 40.59.
        // Discount 10% of 40.59 = 4.059 -> 4.06.
        // Over groups by weight: 20% (29.99): 4.06 x 29.99 / 40.59 = 2.99974 -> 2.99
        //                         6% (10.60): 4.06 x 10.60 / 40.59 = 1.06026 -> 1.06
        //   4.05 spread, one cent missing: the larger remainder (0.00974, 20%) takes it -> 3.00 / 1.06.
        // Inside 20%: A 3.00 x 19.99 / 29.99 = 1.99966 -> 1.99, B 3.00 x 10.00 / 29.99 = 1.00033 -> 1.00,
        //   the missing cent goes to A (remainder 0.00966) -> A 2.00, B 1.00.
        // | line | PA                   | PB                         | VA   | R                       |
        // | A    | 19.99 - 2.00 = 17.99 | 17.99 / 1.2 = 14.9917 -> 14.99 | 3.00 | 2.00 / 19.99 = 10.005 -> 10.01 |
        // | B    | 10.00 - 1.00 = 9.00  | 9.00 / 1.2 = 7.50          | 1.50 | 10.00                   |
        // | C    | 10.60 - 1.06 = 9.54  | 9.54 / 1.06 = 9.00         | 0.54 | 10.00                   |
        // VAT recomputed per group on its reduced value: 20% 26.99 -> 22.49 + 4.50, 6% 9.54 -> 9.00 + 0.54.
        // Net before the discount: 16.66 + 8.33 + 10.00 = 34.99; after: 31.49; discount 3.50 net.
        let input = with_discount(
            cash(vec![
                line("1", "19.99", "19.99", "20"),
                line("2", "5.00", "10.00", "20"),
                line("1", "10.60", "10.60", "6"),
            ]),
            "percent",
            "10",
        );
        let invoice = issue(&input).unwrap();
        assert_eq!(
            invoice.lines.iter().map(pb_va_pa).collect::<Vec<_>>(),
            vec![
                (d("14.99"), d("3.00"), d("17.99")),
                (d("7.50"), d("1.50"), d("9.00")),
                (d("9.00"), d("0.54"), d("9.54")),
            ]
        );
        assert_eq!(
            invoice.lines.iter().map(|l| l.rebate).collect::<Vec<_>>(),
            vec![Some(d("10.01")), Some(d("10.00")), Some(d("10.00"))]
        );
        // The line totals as sent stay what the API shows.
        assert_eq!(
            invoice.lines.iter().map(|l| l.total).collect::<Vec<_>>(),
            vec![d("19.99"), d("10.00"), d("10.60")]
        );
        assert_eq!(
            invoice.vat_groups.iter().map(same_tax).collect::<Vec<_>>(),
            vec![
                (rate("20"), 2, d("22.49"), d("4.50"), d("26.99")),
                (rate("6"), 1, d("9.00"), d("0.54"), d("9.54")),
            ]
        );
        let t = &invoice.totals;
        assert_eq!((t.gross_before_discount, t.discount_gross, t.gross), (d("40.59"), d("4.06"), d("36.53")));
        assert_eq!((t.net, t.vat, t.discount), (d("31.49"), d("5.04"), d("3.50")));
        assert_eq!(invoice.payments[0].amount, d("36.53"));
    }

    #[test]
    fn invoice_discount_as_an_amount() {
        // A 1 x 60.00 at 20%, B 1 x 40.00 TYPE_1; 25.00 off 100.00 -> 15.00 and 10.00.
        // A: PA 45.00, PB 37.50, VA 7.50. B: PA 30.00 = PB.
        // Net before 50.00 + 40.00 = 90.00, after 67.50: discount 22.50 net, 25.00 with VAT.
        let input = with_discount(
            cash(vec![line("1", "60.00", "60.00", "20"), exempt(line("1", "40.00", "40.00", "0"), "TYPE_1")]),
            "amount",
            "25",
        );
        let invoice = issue(&input).unwrap();
        assert_eq!(
            invoice.lines.iter().map(pb_va_pa).collect::<Vec<_>>(),
            vec![(d("37.50"), d("7.50"), d("45.00")), (d("30.00"), d("0"), d("30.00")),]
        );
        let t = &invoice.totals;
        assert_eq!(
            (t.discount_gross, t.discount, t.gross, t.net, t.vat),
            (d("25.00"), d("22.50"), d("75.00"), d("67.50"), d("7.50"))
        );
    }

    #[test]
    fn a_percent_above_100_counts_as_100() {
        let input = with_discount(
            cash(vec![line("1", "60.00", "60.00", "20"), line("1", "10.60", "10.60", "6")]),
            "percent",
            "150",
        );
        let invoice = issue(&input).unwrap();
        assert!(invoice.lines.iter().all(|l| pb_va_pa(l) == (d("0"), d("0"), d("0"))));
        assert!(invoice.lines.iter().all(|l| l.rebate == Some(d("100"))));
        let t = &invoice.totals;
        assert_eq!(
            (t.discount_gross, t.discount, t.gross, t.total),
            (d("70.60"), d("60.00"), d("0"), d("0"))
        );
        assert_eq!(invoice.payments[0].amount, d("0"));
    }

    #[test]
    fn an_amount_above_the_total_counts_as_the_total() {
        let input = with_discount(cash(vec![line("1", "60.00", "60.00", "20")]), "amount", "999");
        let t = issue(&input).unwrap().totals;
        assert_eq!((t.discount_gross, t.discount, t.gross), (d("60.00"), d("50.00"), d("0")));
    }

    #[test]
    fn half_a_pair_or_a_zero_value_is_no_discount_and_no_error() {
        let plain = issue(&cash(vec![line("1", "60.00", "60.00", "20")])).unwrap();
        let type_only = InvoiceInput {
            invoice_discount_type: Some("percent".to_string()),
            ..cash(vec![line("1", "60.00", "60.00", "20")])
        };
        let value_only = InvoiceInput {
            invoice_discount_value: Some(d("10")),
            ..cash(vec![line("1", "60.00", "60.00", "20")])
        };
        let zero = with_discount(cash(vec![line("1", "60.00", "60.00", "20")]), "amount", "0");
        for input in [type_only, value_only, zero] {
            let invoice = issue(&input).unwrap();
            assert_eq!(invoice, plain);
            assert_eq!(invoice.totals.discount, d("0"));
        }
    }

    #[test]
    fn the_fee_is_outside_the_discount_base() {
        // 100.00 at 20%, 10% off, fee 5.00: the discount is 10% of 100.00 (not of 105.00);
        // the fee is added after: 90.00 + 5.00 = 95.00, and that is what the payments cover.
        let input = InvoiceInput {
            fee: Some(d("5.00")),
            ..with_discount(cash(vec![line("1", "100.00", "100.00", "20")]), "percent", "10")
        };
        let invoice = issue(&input).unwrap();
        let t = &invoice.totals;
        assert_eq!(
            (t.discount_gross, t.gross, t.fee, t.total),
            (d("10.00"), d("90.00"), d("5.00"), d("95.00"))
        );
        assert_eq!((t.net, t.vat), (d("75.00"), d("15.00")));
        assert_eq!(invoice.payments[0].amount, d("95.00"));
        let negative = InvoiceInput { fee: Some(d("-1")), ..cash(vec![line("1", "1.00", "1.00", "20")]) };
        assert_eq!(invalid_keys(issue(&negative)), vec!["fee"]);
    }

    #[test]
    fn an_issuer_outside_vat_sells_everything_tax_free() {
        // Whatever VAT is sent (even a rate that does not exist), every line is VAT 0 TAX_FREE.
        let mut input = cash(vec![
            line("1", "120.00", "120.00", "20"),
            line("1", "10.60", "10.60", "7"),
            exempt(line("1", "5.00", "5.00", "0"), "TYPE_1"),
        ]);
        input.issuer_in_vat = false;
        let invoice = issue(&input).unwrap();
        assert!(!invoice.issuer_in_vat);
        for item in &invoice.lines {
            assert_eq!(
                (item.vat_rate, item.vat_amount, item.exemption),
                (d("0"), d("0"), Some(Exemption::TaxFree))
            );
            assert_eq!(item.price_before_vat, item.price_after_vat);
            assert_eq!(item.unit_price_before_vat, item.unit_price);
        }
        assert!(invoice.vat_groups.is_empty());
        let t = &invoice.totals;
        assert_eq!(
            (t.net, t.vat, t.gross, t.tax_free_amount),
            (d("135.60"), d("0"), d("135.60"), d("135.60"))
        );
    }

    #[test]
    fn a_foreign_currency_invoice_has_lek_figures_rounded_one_by_one() {
        // 1 x 12.34 EUR at 20%, 2.00 EUR off, 100.52 ALL per EUR.
        // PA 10.34, PB 10.34 / 1.2 = 8.6167 -> 8.62, VA 1.72; discount net 10.28 - 8.62 = 1.66.
        // | figure   | EUR   | x 100.52     | ALL     |
        // | gross    | 10.34 | 1039.3768    | 1039.38 |
        // | net      | 8.62  | 866.4824     | 866.48  |
        // | vat      | 1.72  | 172.8944     | 172.89  |
        // | discount | 1.66  | 166.8632     | 166.86  |
        // (866.48 + 172.89 = 1039.37: each figure is converted on its own.)
        let input = InvoiceInput {
            exchange_rate: Some(d("100.52")),
            ..with_discount(cash(vec![line("1", "12.34", "12.34", "20")]), "amount", "2")
        };
        let t = issue(&input).unwrap().totals;
        assert_eq!((t.gross, t.net, t.vat, t.discount), (d("10.34"), d("8.62"), d("1.72"), d("1.66")));
        assert_eq!(t.exchange_rate, d("100.52"));
        assert_eq!(
            (t.gross_all, t.net_all, t.vat_all, t.discount_all),
            (d("1039.38"), d("866.48"), d("172.89"), d("166.86"))
        );
        // Absent or not positive: lek figures are the figures.
        let input =
            InvoiceInput { exchange_rate: Some(d("0")), ..cash(vec![line("1", "12.34", "12.34", "20")]) };
        let t = issue(&input).unwrap().totals;
        assert_eq!((t.exchange_rate, t.gross_all, t.net_all), (d("1"), d("12.34"), d("10.28")));
    }

    #[test]
    fn a_total_that_does_not_match_names_the_line_and_the_expected_value() {
        // Line 1: 3 x 40.00 with 10% off = 108.00, sent 120.
        let input =
            cash(vec![line("1", "5.00", "5.00", "20"), discounted(line("3", "40.00", "120", "20"), "10")]);
        assert_eq!(
            issue(&input),
            Err(Error::LineTotals(vec![LineTotalMismatch {
                index: 1,
                expected: d("108.00"),
                sent: d("120")
            }]))
        );
        // Compared after rounding to the cent: 0.335 x 3 = 1.005 -> 1.01.
        issue(&cash(vec![line("3", "0.335", "1.01", "20")])).unwrap();
        issue(&cash(vec![line("3", "0.335", "1.005", "20")])).unwrap();
        assert_eq!(
            issue(&cash(vec![line("3", "0.335", "1.00", "20")])),
            Err(Error::LineTotals(vec![LineTotalMismatch {
                index: 0,
                expected: d("1.01"),
                sent: d("1.00")
            }]))
        );
    }

    #[test]
    fn a_line_discount_outside_0_to_100_is_a_field_error() {
        let input = cash(vec![
            discounted(line("1", "10.00", "10.10", "20"), "-1"),
            discounted(line("1", "10.00", "0", "20"), "101"),
            discounted(line("1", "10.00", "0", "20"), "100"),
            discounted(line("1", "10.00", "10.00", "20"), "0"),
        ]);
        // The field errors come first (422), even though the totals would not match either.
        assert_eq!(invalid_keys(issue(&input)), vec!["lines.0.discount", "lines.1.discount"]);
    }

    #[test]
    fn line_fields_are_checked_under_dotted_keys() {
        // | line | fault                          | key                       |
        // | 0    | quantity 0                     | lines.0.quantity          |
        // | 1    | quantity -1                    | lines.1.quantity          |
        // | 2    | quantity with 4 decimals       | lines.2.quantity          |
        // | 3    | price -1                       | lines.3.price             |
        // | 4    | vat 7                          | lines.4.vat               |
        // | 5    | vat_exempt_type TYPE_3         | lines.5.vat_exempt_type   |
        // | 6    | TYPE_1 with vat 20             | lines.6.vat               |
        // | 7    | everything missing             | lines.7.*                 |
        let input = cash(vec![
            line("0", "1.00", "0", "20"),
            line("-1", "1.00", "-1.00", "20"),
            line("1.0001", "1.00", "1.00", "20"),
            line("1", "-1", "-1", "20"),
            line("1", "1.00", "1.00", "7"),
            exempt(line("1", "1.00", "1.00", "0"), "TYPE_3"),
            exempt(line("1", "1.00", "1.00", "20"), "TYPE_1"),
            LineInput::default(),
        ]);
        assert_eq!(
            invalid_keys(issue(&input)),
            vec![
                "lines.0.quantity",
                "lines.1.quantity",
                "lines.2.quantity",
                "lines.3.price",
                "lines.4.vat",
                "lines.5.vat_exempt_type",
                "lines.6.vat",
                "lines.7.price",
                "lines.7.product_code",
                "lines.7.product_name",
                "lines.7.quantity",
                "lines.7.total",
                "lines.7.unit",
                "lines.7.vat",
            ]
        );
        assert_eq!(invalid_keys(issue(&cash(vec![]))), vec!["lines"]);
        // Bounds that keep the arithmetic inside Decimal's range: 100 billion per line and per
        // fee, 1,000,000 lek per unit of currency.
        let huge = cash(vec![line("1000000", "100000.01", "100000010000", "20")]);
        assert_eq!(invalid_keys(issue(&huge)), vec!["lines.0.total"]);
        let largest = cash(vec![line("1000000", "100000", "100000000000", "20"); 1000]);
        assert_eq!(issue(&largest).unwrap().totals.gross, d("100000000000000"));
        // 33.3333% of 100,000,000,000,000.00 = 33,333,300,000,000.00, spread to the cent.
        let t = issue(&with_discount(largest, "percent", "33.3333")).unwrap().totals;
        assert_eq!((t.discount_gross, t.gross), (d("33333300000000.00"), d("66666700000000.00")));
        assert_eq!(t.gross, t.net + t.vat);
        let overflowing = cash(vec![line("70000000000000000000000000", "7000000", "1", "20")]);
        assert_eq!(invalid_keys(issue(&overflowing)), vec!["lines.0.quantity"]);
        // | field    | largest accepted  | refused                          |
        // | quantity | 1 000 000 000     | 1 000 000 000.001                |
        // | price    | 100 000 000 000   | 9 223 372 036 854 775 807 (2^63-1) |
        // | total    | 100 000 000 000   | 792281625142643375935439503.35   |
        let free = cash(vec![line("1000000000", "0", "0", "20")]);
        issue(&free).unwrap();
        let bounds = cash(vec![
            line("1000000000.001", "0", "0", "20"),
            line("1", "9223372036854775807", "1", "20"),
            line("1", "1", "792281625142643375935439503.35", "20"),
        ]);
        assert_eq!(invalid_keys(issue(&bounds)), vec!["lines.0.quantity", "lines.1.price", "lines.2.total"]);
        let fee =
            InvoiceInput { fee: Some(d("100000000000.01")), ..cash(vec![line("1", "1.00", "1.00", "20")]) };
        assert_eq!(invalid_keys(issue(&fee)), vec!["fee"]);
        let rate = InvoiceInput {
            exchange_rate: Some(d("1000000.01")),
            ..cash(vec![line("1", "1.00", "1.00", "20")])
        };
        assert_eq!(invalid_keys(issue(&rate)), vec!["exchange_rate"]);
        // An omitted discount and a vat sent as 20.00 are fine.
        issue(&cash(vec![line("1.5", "2.00", "3.00", "20.00")])).unwrap();
    }

    #[test]
    fn line_texts_have_the_catalog_and_cis_lengths() {
        let mut long = line("1", "1.00", "1.00", "20");
        long.product_name = Some("n".repeat(MAX_LINE_TEXT + 1));
        long.product_code = Some("c".repeat(MAX_LINE_TEXT + 1));
        long.unit = Some("u".repeat(MAX_UNIT + 1));
        long.unit_code = Some("X".repeat(MAX_UNIT_CODE + 1));
        let mut longest = line("1", "1.00", "1.00", "20");
        longest.product_name = Some("ë".repeat(MAX_LINE_TEXT));
        longest.unit = Some("u".repeat(MAX_UNIT));
        assert_eq!(
            invalid_keys(issue(&cash(vec![long, longest]))),
            vec!["lines.0.product_code", "lines.0.product_name", "lines.0.unit", "lines.0.unit_code"]
        );
    }

    #[test]
    fn notes_and_client_texts_have_their_limits() {
        let keys =
            |texts: IssueTexts| check_texts(&texts).unwrap_err().into_map().into_keys().collect::<Vec<_>>();
        let at_limit = "x".repeat(MAX_NOTES);
        check_texts(&IssueTexts { notes: Some(&at_limit), ..Default::default() }).unwrap();
        let over = "x".repeat(MAX_NOTES + 1);
        assert_eq!(keys(IssueTexts { notes: Some(&over), ..Default::default() }), ["notes"]);
        let (name, id, address, city) = ("n".repeat(256), "1".repeat(21), "a".repeat(201), "c".repeat(101));
        let client = IssueTexts {
            client_name: Some(&name),
            client_id: Some(&id),
            client_address: Some(&address),
            client_city: Some(&city),
            doc_type: Some("38000000000"),
            original_invoice_iic: Some(&over),
            ..Default::default()
        };
        assert_eq!(
            keys(client),
            ["client.address", "client.city", "client.id", "client.name", "doc_type", "original_invoice_iic"]
        );
    }

    #[test]
    fn field_errors_of_every_part_come_back_together() {
        let input = InvoiceInput {
            invoice_discount_type: Some("fixed".to_string()),
            invoice_discount_value: Some(d("5")),
            payments: PaymentsInput::V2 {
                payment_methods: Some(vec![PaymentElementInput {
                    kind: Some("COMPANY".to_string()),
                    amount: Some(d("1.00")),
                    ..Default::default()
                }]),
                payment_method: None,
                company_card: None,
                vouchers: None,
            },
            ..cash(vec![discounted(line("1", "1.00", "1.00", "20"), "101")])
        };
        assert_eq!(
            invalid_keys(issue(&input)),
            vec!["invoice_discount_type", "lines.0.discount", "payment_methods.0.company_card"]
        );
    }

    #[test]
    fn v2_payments_must_add_up_to_the_total_after_discount() {
        let split = |banknote: &str, card: &str| PaymentsInput::V2 {
            payment_methods: Some(vec![
                PaymentElementInput {
                    kind: Some("BANKNOTE".to_string()),
                    amount: Some(d(banknote)),
                    ..Default::default()
                },
                PaymentElementInput {
                    kind: Some("CARD".to_string()),
                    amount: Some(d(card)),
                    ..Default::default()
                },
            ]),
            payment_method: None,
            company_card: None,
            vouchers: None,
        };
        // 100.00 with 10% off: 90.00 due.
        let base = with_discount(cash(vec![line("1", "100.00", "100.00", "20")]), "percent", "10");
        let paid = issue(&InvoiceInput { payments: split("50.00", "40.00"), ..base.clone() }).unwrap();
        assert_eq!(paid.payments.len(), 2);
        let short = issue(&InvoiceInput { payments: split("50.00", "50.00"), ..base });
        assert_eq!(invalid_keys(short), vec!["payment_methods"]);
    }

    /// A small deterministic generator (Knuth's MMIX LCG), so the property test needs no crate.
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }

        fn cents(&mut self, max: u64) -> Decimal {
            Decimal::new(self.below(max + 1) as i64, 2)
        }
    }

    fn random_line(rng: &mut Lcg) -> LineInput {
        let quantity = match rng.below(3) {
            0 => Decimal::from(rng.below(5) + 1),
            _ => Decimal::new(rng.below(9999) as i64 + 1, 3),
        };
        let price = match rng.below(4) {
            0 => Decimal::new(rng.below(500_000) as i64, 3),
            _ => rng.cents(50_000),
        };
        let discount = match rng.below(3) {
            0 => None,
            1 => Some(Decimal::from(rng.below(101))),
            _ => Some(Decimal::new(rng.below(10_001) as i64, 2)),
        };
        let (vat, exemption) = match rng.below(8) {
            0 => ("0", None),
            1 => ("6", None),
            2 => ("10", None),
            3 | 4 => ("20", None),
            5 => ("0", Some("TYPE_1")),
            6 => ("0", Some("TAX_FREE")),
            _ => ("0", Some(["TYPE_2", "EXPORT_OF_GOODS"][rng.below(2) as usize])),
        };
        let rate = discount.unwrap_or_default();
        let total = round2(price * quantity * (Decimal::ONE_HUNDRED - rate) / Decimal::ONE_HUNDRED);
        LineInput {
            quantity: Some(quantity),
            price: Some(price),
            total: Some(total),
            discount,
            vat: Some(d(vat)),
            vat_exempt_type: exemption.map(str::to_string),
            ..line("1", "0", "0", "0")
        }
    }

    fn random_invoice(rng: &mut Lcg) -> InvoiceInput {
        let lines: Vec<LineInput> = (0..rng.below(6) + 1).map(|_| random_line(rng)).collect();
        let (kind, value) = match rng.below(4) {
            0 => (None, None),
            1 => (Some("percent"), Some(Decimal::new(rng.below(15_001) as i64, 2))),
            2 => (Some("amount"), Some(rng.cents(200_000))),
            _ => (Some("percent"), Some(Decimal::from(rng.below(151)))),
        };
        InvoiceInput {
            lines,
            issuer_in_vat: rng.below(4) != 0,
            invoice_discount_type: kind.map(str::to_string),
            invoice_discount_value: value,
            fee: if rng.below(3) == 0 { Some(rng.cents(1_000)) } else { None },
            exchange_rate: if rng.below(3) == 0 {
                Some(Decimal::new(rng.below(20_000) as i64 + 1, 2))
            } else {
                None
            },
            ..cash(vec![])
        }
    }

    /// The groups the CIS simulator derives from the items (src/sim/cis/rules.rs): TYPE_1/TYPE_2
    /// by exemption, other exempt items in none, the rest by VR.
    fn groups_from_items(lines: &[Line]) -> Vec<(VatClass, u32, Decimal, Decimal)> {
        let mut groups: Vec<(VatClass, u32, Decimal, Decimal)> = Vec::new();
        for item in lines {
            let class = match item.exemption {
                Some(e @ (Exemption::Type1 | Exemption::Type2)) => VatClass::Exempt(e),
                Some(_) => continue,
                None => VatClass::Rate(item.vat_rate),
            };
            match groups.iter_mut().find(|g| g.0 == class) {
                Some(g) => {
                    g.1 += 1;
                    g.2 += item.price_before_vat;
                    g.3 += item.vat_amount;
                }
                None => groups.push((class, 1, item.price_before_vat, item.vat_amount)),
            }
        }
        groups
    }

    #[test]
    fn two_thousand_generated_invoices_add_up_as_the_cis_checks() {
        let mut rng = Lcg(20_260_914);
        let cent = d("0.01");
        for round in 0..2000 {
            let input = random_invoice(&mut rng);
            let invoice = issue(&input).unwrap_or_else(|e| panic!("invoice {round}: {e}"));
            let t = &invoice.totals;
            let context = format!("invoice {round}: {input:?}");

            for item in &invoice.lines {
                // Each line adds up, with its net computed from its gross.
                assert_eq!(item.price_after_vat, item.price_before_vat + item.vat_amount, "{context}");
                assert_eq!(item.price_before_vat, net_of(item.price_after_vat, item.vat_rate), "{context}");
                assert!(
                    Decimal::ZERO <= item.price_after_vat && item.price_after_vat <= item.total,
                    "{context}"
                );
                assert!(
                    item.rebate.is_none_or(|r| r > Decimal::ZERO && r <= Decimal::ONE_HUNDRED),
                    "{context}"
                );
                // The XSD's money: whole cents, prices and rebate not negative.
                for amount in [
                    item.unit_price,
                    item.unit_price_before_vat,
                    item.price_before_vat,
                    item.vat_amount,
                    item.price_after_vat,
                ] {
                    assert!(is_cents(amount) && amount >= Decimal::ZERO, "{context}");
                }
            }
            // Totals are sums of lines; the discount comes off the gross exactly.
            let sum = |f: fn(&Line) -> Decimal| invoice.lines.iter().map(f).sum::<Decimal>();
            assert_eq!(t.gross, sum(|l| l.price_after_vat), "{context}");
            assert_eq!(t.net, sum(|l| l.price_before_vat), "{context}");
            assert_eq!(t.vat, sum(|l| l.vat_amount), "{context}");
            assert_eq!(t.gross_before_discount, sum(|l| l.total), "{context}");
            assert_eq!(t.gross, t.gross_before_discount - t.discount_gross, "{context}");
            let expected_off = InvoiceDiscount::from_pair(
                input.invoice_discount_type.as_deref(),
                input.invoice_discount_value,
            )
            .unwrap()
            .map_or(Decimal::ZERO, |discount| discount.gross_off(t.gross_before_discount));
            assert_eq!(t.discount_gross, expected_off, "{context}");
            assert_eq!(t.total, t.gross + t.fee, "{context}");

            // Each class's share of the discount is within a cent of its exact proportion, and so is
            // each line's share of its class's.
            if t.discount_gross > Decimal::ZERO {
                let mut classes: Vec<VatClass> = Vec::new();
                for item in &invoice.lines {
                    if !classes.contains(&item.vat_class()) {
                        classes.push(item.vat_class());
                    }
                }
                for class in classes {
                    let members: Vec<&Line> =
                        invoice.lines.iter().filter(|l| l.vat_class() == class).collect();
                    let weight: Decimal = members.iter().map(|l| l.total).sum();
                    let share: Decimal = members.iter().map(|l| l.total - l.price_after_vat).sum();
                    let exact = t.discount_gross * weight / t.gross_before_discount;
                    assert!((share - exact).abs() < cent, "{context}");
                    for item in members.iter().filter(|_| weight > Decimal::ZERO) {
                        let exact = share * item.total / weight;
                        assert!((item.total - item.price_after_vat - exact).abs() < cent, "{context}");
                    }
                }
            }

            // The CIS's checks (src/sim/cis/rules.rs), re-asserted.
            let paid: Decimal = invoice.payments.iter().map(|p| p.amount).sum();
            assert_eq!(paid, t.total, "sum(PayMethod) = TotPrice; {context}");
            assert_eq!(
                t.total,
                t.net + t.vat + t.fee,
                "TotPrice = TotPriceWoVAT + TotVATAmt + fees; {context}"
            );
            if invoice.issuer_in_vat {
                let declared: Vec<(VatClass, u32, Decimal, Decimal)> =
                    invoice.vat_groups.iter().map(|g| (g.class, g.num_items, g.net, g.vat)).collect();
                assert_eq!(declared, groups_from_items(&invoice.lines), "SameTaxes = items; {context}");
                assert_eq!(invoice.vat_groups.iter().map(|g| g.vat).sum::<Decimal>(), t.vat, "{context}");
                for group in &invoice.vat_groups {
                    assert_eq!(group.gross, group.net + group.vat, "{context}");
                }
            } else {
                assert!(invoice.vat_groups.is_empty(), "{context}");
                assert_eq!(t.vat, Decimal::ZERO, "{context}");
                assert!(invoice.lines.iter().all(|l| l.vat_amount.is_zero()), "{context}");
                assert!(invoice.lines.iter().all(|l| l.exemption == Some(Exemption::TaxFree)), "{context}");
            }
            let exempt_net = |e: Exemption| -> Decimal {
                invoice.lines.iter().filter(|l| l.exemption == Some(e)).map(|l| l.price_before_vat).sum()
            };
            assert_eq!(t.tax_free_amount, exempt_net(Exemption::TaxFree), "{context}");
            assert_eq!(t.goods_export_amount, exempt_net(Exemption::ExportOfGoods), "{context}");
            assert_eq!(t.gross_all, to_lek(t.gross, t.exchange_rate), "{context}");
        }
    }
}
