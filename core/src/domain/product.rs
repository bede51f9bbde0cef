//! Products and their categories: the catalog's rules, the same for create and update.

use std::str::FromStr;

use rust_decimal::Decimal;

use super::client::Patch;
use super::money::{self, MAX_AMOUNT};
use super::validation::FieldErrors;

/// The VAT rates a product may carry, as the spec spells them.
pub const VAT_RATES: [&str; 4] = ["0", "6", "10", "20"];

/// Why a product with VAT 0 is exempt.
pub const VAT_EXEMPT_TYPES: [&str; 4] = ["TYPE_1", "TYPE_2", "EXPORT_OF_GOODS", "TAX_FREE"];

pub const DEFAULT_CURRENCY: &str = "ALL";

/// UN/ECE Recommendation 20 "one" (a piece), the unit when none is given.
pub const DEFAULT_UNIT_CODE: &str = "C62";

/// The unit of measure shown for a unit code; the code itself when it is not a common one.
pub fn unit_name(unit_code: &str) -> &str {
    match unit_code {
        "C62" | "H87" | "XPP" => "copë",
        "KGM" => "kg",
        "GRM" => "g",
        "LTR" => "l",
        "MTR" => "m",
        "MTK" => "m2",
        "MTQ" => "m3",
        "HUR" => "orë",
        "DAY" => "ditë",
        "MON" => "muaj",
        "SET" => "set",
        "PR" => "palë",
        "XBX" => "kuti",
        other => other,
    }
}

/// A valid product. `code` is None only before the store has generated one.
#[derive(Debug, Clone, PartialEq)]
pub struct Product {
    pub code: Option<String>,
    pub name: String,
    pub description: String,
    pub last_price: Decimal,
    pub cost_price: Option<Decimal>,
    /// One of `VAT_RATES`.
    pub vat_rate: String,
    pub currency: String,
    pub service: bool,
    pub unit_code: String,
    pub category_id: Option<i64>,
    /// One of `VAT_EXEMPT_TYPES`; only with VAT 0.
    pub vat_exempt_type: Option<String>,
}

/// What a caller sent. Numbers arrive as text so that "12.50" and 12.5 read alike and a bad
/// one is reported under its own field. Optional fields follow `Patch`: on an update a field
/// not sent keeps its value, a null takes the default a new product gets.
#[derive(Debug, Default, Clone)]
pub struct ProductInput {
    pub code: Patch<String>,
    pub name: Option<String>,
    pub description: Patch<String>,
    pub last_price: Option<String>,
    pub cost_price: Patch<String>,
    pub vat_rate: Option<String>,
    pub currency: Patch<String>,
    pub service: Patch<bool>,
    pub unit_code: Patch<String>,
    pub id_category: Patch<i64>,
    pub vat_exempt_type: Patch<String>,
}

fn clean(value: Option<&str>) -> Option<String> {
    value.map(str::trim).filter(|v| !v.is_empty()).map(str::to_string)
}

/// The sent value, the stored one when not sent, None when sent as null.
fn pick<T: Clone>(sent: &Patch<T>, stored: Option<T>) -> Option<T> {
    match sent {
        Some(value) => value.clone(),
        None => stored,
    }
}

/// A non-negative amount, at most `MAX_AMOUNT` (a price that reaches an invoice line).
fn amount(errors: &mut FieldErrors, field: &str, text: &str) -> Option<Decimal> {
    let text = text.trim();
    match Decimal::from_str(text).or_else(|_| Decimal::from_scientific(text)) {
        Ok(value) if value.is_sign_negative() && !value.is_zero() => {
            errors.add(field, format!("The {field} must be at least 0."));
            None
        }
        Ok(value) => money::within(errors, field, value, MAX_AMOUNT).then(|| value.normalize()),
        Err(_) => {
            errors.add(field, format!("The {field} must be a number."));
            None
        }
    }
}

/// "20", "20.0" and "20.00" all name the rate 20.
fn vat_rate(text: &str) -> Option<String> {
    let rate = Decimal::from_str(text.trim()).ok()?.normalize().to_string();
    VAT_RATES.contains(&rate.as_str()).then_some(rate)
}

/// A new product (`stored` None) or the stored one updated. The category is checked by the
/// caller, who can see the company's categories.
pub fn build(stored: Option<&Product>, input: &ProductInput) -> Result<Product, FieldErrors> {
    let mut errors = FieldErrors::new();

    // A code is never taken away: null on an update keeps the current one, on a create it
    // asks for a generated one.
    let code = clean(pick(&input.code, None).as_deref()).or_else(|| stored.and_then(|p| p.code.clone()));
    errors.max_len("code", code.as_deref(), 255);

    let name = errors.required("name", input.name.as_deref()).map(str::to_string);
    errors.max_len("name", name.as_deref(), 255);

    let description = clean(pick(&input.description, stored.map(|p| p.description.clone())).as_deref());
    errors.max_len("description", description.as_deref(), 255);

    let last_price = match clean(input.last_price.as_deref()) {
        Some(text) => amount(&mut errors, "last_price", &text),
        None => {
            errors.add("last_price", "The last_price field is required.");
            None
        }
    };
    let cost_text = match &input.cost_price {
        Some(sent) => sent.clone(),
        None => stored.and_then(|p| p.cost_price).map(|c| c.to_string()),
    };
    let cost_price = match clean(cost_text.as_deref()) {
        Some(text) => amount(&mut errors, "cost_price", &text),
        None => None,
    };

    let rate = match clean(input.vat_rate.as_deref()) {
        None => {
            errors.add("vat_rate", "The vat_rate field is required.");
            None
        }
        Some(text) => {
            let rate = vat_rate(&text);
            if rate.is_none() {
                errors.add("vat_rate", "The vat_rate must be one of: 0, 6, 10, 20.");
            }
            rate
        }
    };

    let currency = clean(pick(&input.currency, stored.map(|p| p.currency.clone())).as_deref())
        .map(|c| c.to_uppercase())
        .unwrap_or_else(|| DEFAULT_CURRENCY.to_string());
    errors.max_len("currency", Some(&currency), 10);

    let service = pick(&input.service, stored.map(|p| p.service)).unwrap_or(true);

    let unit_code = clean(pick(&input.unit_code, stored.map(|p| p.unit_code.clone())).as_deref())
        .map(|c| c.to_uppercase())
        .unwrap_or_else(|| DEFAULT_UNIT_CODE.to_string());
    if unit_code.len() > 10 || !unit_code.bytes().all(|b| b.is_ascii_alphanumeric()) {
        errors.add("unit_code", "The unit_code must be up to 10 letters and digits (UN/ECE Rec. 20).");
    }

    let category_id = pick(&input.id_category, stored.and_then(|p| p.category_id));

    // An exemption belongs to VAT 0 only; changing the rate away from 0 drops a stored one.
    let exempt_sent = matches!(input.vat_exempt_type, Some(Some(_)));
    let exempt =
        clean(pick(&input.vat_exempt_type, stored.and_then(|p| p.vat_exempt_type.clone())).as_deref())
            .map(|t| t.to_uppercase());
    let vat_exempt_type = match (&rate, exempt) {
        (_, None) => None,
        (_, Some(t)) if !VAT_EXEMPT_TYPES.contains(&t.as_str()) => {
            errors.add(
                "vat_exempt_type",
                format!("The vat_exempt_type must be one of: {}.", VAT_EXEMPT_TYPES.join(", ")),
            );
            None
        }
        (Some(r), Some(t)) if r == "0" => Some(t),
        (Some(_), Some(_)) if exempt_sent => {
            errors.add("vat_exempt_type", "The vat_exempt_type is allowed only with vat_rate 0.");
            None
        }
        (_, Some(_)) => None,
    };

    match (name, last_price, rate) {
        (Some(name), Some(last_price), Some(vat_rate)) if errors.is_empty() => Ok(Product {
            code,
            description: description.unwrap_or_else(|| name.clone()),
            name,
            last_price,
            cost_price,
            vat_rate,
            currency,
            service,
            unit_code,
            category_id,
            vat_exempt_type,
        }),
        _ => Err(errors),
    }
}

/// A product category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Category {
    pub name: String,
    /// `#RRGGBB`, uppercase.
    pub color: Option<String>,
}

#[derive(Debug, Default, Clone)]
pub struct CategoryInput {
    pub name: Option<String>,
    pub color: Patch<String>,
}

/// `#RGB` or `#RRGGBB`, returned as uppercase `#RRGGBB`.
fn hex_color(text: &str) -> Option<String> {
    let digits = text.strip_prefix('#')?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let full = match digits.len() {
        6 => digits.to_string(),
        3 => digits.chars().flat_map(|c| [c, c]).collect(),
        _ => return None,
    };
    Some(format!("#{}", full.to_uppercase()))
}

/// A new category (`stored` None) or the stored one updated.
pub fn build_category(stored: Option<&Category>, input: &CategoryInput) -> Result<Category, FieldErrors> {
    let mut errors = FieldErrors::new();
    let name = errors.required("name", input.name.as_deref()).map(str::to_string);
    errors.max_len("name", name.as_deref(), 255);
    let color = match clean(pick(&input.color, stored.and_then(|c| c.color.clone())).as_deref()) {
        None => None,
        Some(text) => {
            let color = hex_color(&text);
            if color.is_none() {
                errors.add("color", "The color must be a hex color such as #1A2B3C.");
            }
            color
        }
    };
    match name {
        Some(name) if errors.is_empty() => Ok(Category { name, color }),
        _ => Err(errors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> ProductInput {
        ProductInput {
            name: Some("Kafe espresso".into()),
            last_price: Some("120.50".into()),
            vat_rate: Some("20".into()),
            ..Default::default()
        }
    }

    fn keys(r: Result<Product, FieldErrors>) -> Vec<String> {
        r.unwrap_err().into_map().into_keys().collect()
    }

    #[test]
    fn defaults_fill_what_is_absent() {
        let p = build(None, &input()).unwrap();
        assert_eq!(p.description, "Kafe espresso");
        assert_eq!(p.currency, "ALL");
        assert!(p.service);
        assert_eq!(p.unit_code, "C62");
        assert_eq!(p.last_price, Decimal::from_str("120.5").unwrap());
        assert_eq!(p.code, None);
    }

    #[test]
    fn each_rule_names_its_field() {
        type Spoil = fn(&mut ProductInput);
        let cases: Vec<(Spoil, &str)> = vec![
            (|i| i.name = None, "name"),
            (|i| i.name = Some("x".repeat(256)), "name"),
            (|i| i.code = Some(Some("x".repeat(256))), "code"),
            (|i| i.description = Some(Some("x".repeat(256))), "description"),
            (|i| i.last_price = None, "last_price"),
            (|i| i.last_price = Some("-1".into()), "last_price"),
            (|i| i.last_price = Some("abc".into()), "last_price"),
            (|i| i.last_price = Some("100000000000.01".into()), "last_price"),
            (|i| i.last_price = Some("1e30".into()), "last_price"),
            (|i| i.cost_price = Some(Some("9223372036854775808".into())), "cost_price"),
            (|i| i.cost_price = Some(Some("-0.01".into())), "cost_price"),
            (|i| i.vat_rate = Some("7".into()), "vat_rate"),
            (|i| i.vat_rate = None, "vat_rate"),
            (|i| i.currency = Some(Some("x".repeat(11))), "currency"),
            (|i| i.vat_exempt_type = Some(Some("TYPE_1".into())), "vat_exempt_type"),
            (|i| i.unit_code = Some(Some("k g".into())), "unit_code"),
        ];
        for (spoil, field) in cases {
            let mut i = input();
            spoil(&mut i);
            assert_eq!(keys(build(None, &i)), [field]);
        }
    }

    #[test]
    fn an_exemption_needs_vat_zero_and_goes_when_the_rate_changes() {
        let mut i = input();
        i.vat_rate = Some("0.00".into());
        i.vat_exempt_type = Some(Some("export_of_goods".into()));
        let exempt = build(None, &i).unwrap();
        assert_eq!(exempt.vat_rate, "0");
        assert_eq!(exempt.vat_exempt_type.as_deref(), Some("EXPORT_OF_GOODS"));
        let taxed = build(Some(&exempt), &input()).unwrap();
        assert_eq!(taxed.vat_exempt_type, None);
    }

    #[test]
    fn an_update_keeps_optional_fields_not_sent() {
        let mut i = input();
        i.code = Some(Some("KAFE-1".into()));
        i.service = Some(Some(false));
        i.cost_price = Some(Some("60".into()));
        let stored = build(None, &i).unwrap();
        let updated = build(Some(&stored), &input()).unwrap();
        assert_eq!(updated.code.as_deref(), Some("KAFE-1"));
        assert!(!updated.service);
        assert_eq!(updated.cost_price, Some(Decimal::from(60)));
        let mut reset = input();
        reset.service = Some(None);
        reset.cost_price = Some(None);
        let reset = build(Some(&stored), &reset).unwrap();
        assert!(reset.service);
        assert_eq!(reset.cost_price, None);
    }

    #[test]
    fn category_colors_are_hex() {
        let ok = |c: &str| {
            build_category(None, &CategoryInput { name: Some("Pije".into()), color: Some(Some(c.into())) })
        };
        assert_eq!(ok("#1a2b3c").unwrap().color.as_deref(), Some("#1A2B3C"));
        assert_eq!(ok("#abc").unwrap().color.as_deref(), Some("#AABBCC"));
        assert!(ok("1A2B3C").is_err());
        assert!(ok("#12345").is_err());
        assert!(build_category(None, &CategoryInput::default()).is_err());
    }
}
