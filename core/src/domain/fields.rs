//! Body fields read leniently, as POS apps send them: a number where text is expected (a phone,
//! a price, an internalId) is taken as its text, and numbers, integers and booleans may arrive
//! as strings. The catalog's updates read a `Patch` (absent: keep, null: clear, or a value);
//! the `opt_` readers give a plain `Option` (absent, null and "" are all `None`).
//! Use with `#[serde(default, deserialize_with = "...")]`, so an absent field stays `None`.

use rust_decimal::Decimal;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::client::Patch;

/// Text, or a number taken as its JSON text ("12.50" and 12.5 both read).
pub fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Patch<String>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(Some(None)),
        Value::String(s) => Ok(Some(Some(s))),
        Value::Number(n) => Ok(Some(Some(n.to_string()))),
        _ => Err(D::Error::custom("expected a string or a number")),
    }
}

/// An integer, or a string of digits.
pub fn integer<'de, D: Deserializer<'de>>(d: D) -> Result<Patch<i64>, D::Error> {
    let expected = || D::Error::custom("expected an integer");
    match Value::deserialize(d)? {
        Value::Null => Ok(Some(None)),
        Value::Number(n) => n.as_i64().map(|n| Some(Some(n))).ok_or_else(expected),
        Value::String(s) if s.trim().is_empty() => Ok(Some(None)),
        Value::String(s) => s.trim().parse().map(|n| Some(Some(n))).map_err(|_| expected()),
        _ => Err(expected()),
    }
}

/// true/false, also as 1/0 or the strings "true"/"false"/"1"/"0".
pub fn boolean<'de, D: Deserializer<'de>>(d: D) -> Result<Patch<bool>, D::Error> {
    let expected = || D::Error::custom("expected true or false");
    match Value::deserialize(d)? {
        Value::Null => Ok(Some(None)),
        Value::Bool(b) => Ok(Some(Some(b))),
        Value::Number(n) => match n.as_i64() {
            Some(0) => Ok(Some(Some(false))),
            Some(1) => Ok(Some(Some(true))),
            _ => Err(expected()),
        },
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(Some(Some(true))),
            "false" | "0" => Ok(Some(Some(false))),
            _ => Err(expected()),
        },
        _ => Err(expected()),
    }
}

/// A nested object; null reads as `Some(None)`.
pub fn object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Patch<T>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

pub fn opt_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    text(d).map(Option::flatten)
}

pub fn opt_integer<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    integer(d).map(Option::flatten)
}

pub fn opt_boolean<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    boolean(d).map(Option::flatten)
}

/// An exact decimal from a JSON number or a numeric string (read from its text, so 0.1 stays
/// 0.1); "" is absent.
pub fn opt_decimal<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
    let expected = || D::Error::custom("expected a number");
    let parse = |s: &str| {
        let s = s.trim();
        s.parse::<Decimal>().or_else(|_| Decimal::from_scientific(s)).map_err(|_| expected())
    };
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::Number(n) => parse(&n.to_string()).map(Some),
        Value::String(s) if s.trim().is_empty() => Ok(None),
        Value::String(s) => parse(&s).map(Some),
        _ => Err(expected()),
    }
}

/// A list, where absent and null read as empty.
pub fn list<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}
