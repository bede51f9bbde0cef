//! Currencies and exchange rates: which currencies a company invoices in, where a rate comes from,
//! the owner's manual rate, and the rate a foreign-currency invoice takes.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::money::MAX_EXCHANGE_RATE;
use super::spelled::spelled;
use super::validation::FieldErrors;

/// The lek: every amount is also kept in it, so it is always enabled.
pub const LEK: &str = "ALL";

/// A currency Arka knows by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Currency {
    pub code: &'static str,
    pub name: &'static str,
    pub symbol: &'static str,
}

const fn currency(code: &'static str, name: &'static str, symbol: &'static str) -> Currency {
    Currency { code, name, symbol }
}

/// The lek and the currencies the central bank publishes a rate for (the precious metals and
/// the SDR aside), in the order an owner expects to see them.
pub const CURRENCIES: &[Currency] = &[
    currency(LEK, "Albanian lek", "L"),
    currency("EUR", "Euro", "€"),
    currency("USD", "US dollar", "$"),
    currency("GBP", "British pound", "£"),
    currency("CHF", "Swiss franc", "CHF"),
    currency("JPY", "Japanese yen", "¥"),
    currency("AUD", "Australian dollar", "A$"),
    currency("CAD", "Canadian dollar", "C$"),
    currency("SEK", "Swedish krona", "kr"),
    currency("NOK", "Norwegian krone", "kr"),
    currency("DKK", "Danish krone", "kr"),
    currency("TRY", "Turkish lira", "₺"),
    currency("CNY", "Chinese yuan", "¥"),
    currency("BGN", "Bulgarian lev", "лв"),
    currency("HUF", "Hungarian forint", "Ft"),
    currency("RUB", "Russian ruble", "₽"),
    currency("CZK", "Czech koruna", "Kč"),
    currency("MKD", "Macedonian denar", "ден"),
    currency("PLN", "Polish złoty", "zł"),
    currency("RON", "Romanian leu", "lei"),
];

/// Enabled for every company until its owner says otherwise.
pub const ENABLED_BY_DEFAULT: [&str; 4] = ["EUR", "USD", "GBP", "CHF"];

pub fn find(code: &str) -> Option<&'static Currency> {
    CURRENCIES.iter().find(|c| c.code.eq_ignore_ascii_case(code))
}

/// Whether a company with the owner's `changes` (currency, enabled) invoices in `code`.
pub fn is_enabled(code: &str, changes: &[(String, bool)]) -> bool {
    if code == LEK {
        return true;
    }
    match changes.iter().find(|(c, _)| c == code) {
        Some((_, enabled)) => *enabled,
        None => ENABLED_BY_DEFAULT.contains(&code),
    }
}

spelled! {
    /// A page Arka reads rates from.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Source {
        /// The Bank of Albania's official rate (the "fixing").
        Boa = "BOA",
        /// Banka Kombëtare Tregtare.
        Bkt = "BKT",
        /// The Iliria98 exchange bureau.
        Iliria98 = "Iliria98",
        /// The ADON exchange bureau.
        Adon = "ADON",
    }
}

impl Source {
    /// The spec's reading of `?source=`: any spelling of a known name, and anything else (or
    /// nothing) is the central bank.
    pub fn from_query(sent: Option<&str>) -> Source {
        let sent = sent.map(str::trim).unwrap_or_default();
        Source::ALL.into_iter().find(|s| s.as_str().eq_ignore_ascii_case(sent)).unwrap_or(Source::Boa)
    }
}

/// Where a rate in use came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Fetched(Source),
    /// The owner's rate for the day.
    Manual,
    /// Sent by the POS with the invoice.
    Request,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Fetched(source) => source.as_str(),
            Origin::Manual => "MANUAL",
            Origin::Request => "REQUEST",
        }
    }

    pub fn parse(stored: &str) -> Option<Origin> {
        match stored {
            "MANUAL" => Some(Origin::Manual),
            "REQUEST" => Some(Origin::Request),
            other => Source::parse(other).map(Origin::Fetched),
        }
    }
}

/// A rate as a source writes it: lek for `unit` units of the currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote {
    pub currency: String,
    pub unit: u32,
    pub sell: Decimal,
    pub buy: Option<Decimal>,
    /// The day the rate is for.
    pub date: NaiveDate,
}

/// Lek for one unit of a rate quoted for `unit` units.
pub fn per_unit(quoted: Decimal, unit: u32) -> Decimal {
    (quoted / Decimal::from(unit.max(1))).normalize()
}

/// One currency's line in `rates`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLine {
    /// Selling rate, lek per one unit.
    pub rate: Decimal,
    /// Units the source quotes for (1, or 100 where a currency is worth little).
    pub unit: u32,
    /// The selling rate as quoted: lek for `unit` units.
    pub quoted: Decimal,
    /// Buying rate, lek per one unit, when the source has one.
    pub buy: Option<Decimal>,
    pub date: NaiveDate,
    pub origin: Origin,
}

/// The owner's rate for one currency and day: lek for `unit` units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManualRate {
    pub currency: String,
    pub rate: Decimal,
    pub unit: u32,
    pub date: NaiveDate,
}

/// A source's rates with the day's manual rates laid over them: a manual rate replaces the
/// fetched one of its currency (or adds the currency) and shows as MANUAL.
pub fn rate_lines(source: Source, fetched: &[Quote], manual: &[ManualRate]) -> BTreeMap<String, RateLine> {
    let mut lines: BTreeMap<String, RateLine> = fetched
        .iter()
        .map(|q| {
            let line = RateLine {
                rate: per_unit(q.sell, q.unit),
                unit: q.unit,
                quoted: q.sell,
                buy: q.buy.map(|b| per_unit(b, q.unit)),
                date: q.date,
                origin: Origin::Fetched(source),
            };
            (q.currency.clone(), line)
        })
        .collect();
    for m in manual {
        let line = RateLine {
            rate: per_unit(m.rate, m.unit),
            unit: m.unit,
            quoted: m.rate,
            buy: None,
            date: m.date,
            origin: Origin::Manual,
        };
        lines.insert(m.currency.clone(), line);
    }
    lines
}

/// Units an owner may quote a manual rate for.
pub const MANUAL_UNITS: [u32; 4] = [1, 10, 100, 1000];

/// How far ahead an owner may set a day's rate.
pub const MANUAL_DAYS_AHEAD: i64 = 31;

/// The owner's manual rate as sent.
#[derive(Debug, Clone, Default)]
pub struct ManualRateInput {
    pub rate: Option<Decimal>,
    pub unit: Option<i64>,
    pub date: Option<String>,
}

/// Checks a manual rate for `currency`: a positive rate with at most 6 decimals, no more than
/// the invoices accept per unit, one of `MANUAL_UNITS`, for today or a day up to a month ahead.
pub fn manual_rate(
    currency: &str,
    input: &ManualRateInput,
    today: NaiveDate,
) -> Result<ManualRate, FieldErrors> {
    let mut errors = FieldErrors::new();
    let unit = match input.unit {
        None => 1,
        Some(u) => match MANUAL_UNITS.iter().find(|m| i64::from(**m) == u) {
            Some(u) => *u,
            None => {
                errors.add("unit", "The unit must be one of 1, 10, 100, 1000.");
                1
            }
        },
    };
    let rate = match input.rate {
        None => {
            errors.add("rate", "The rate field is required.");
            Decimal::ZERO
        }
        Some(r) if r <= Decimal::ZERO => {
            errors.add("rate", "The rate must be greater than 0.");
            r
        }
        Some(r) if r.normalize().scale() > 6 => {
            errors.add("rate", "The rate must have at most 6 decimal places.");
            r
        }
        Some(r) if per_unit(r, unit) > Decimal::from(MAX_EXCHANGE_RATE) => {
            errors
                .add("rate", format!("The rate must not be greater than {MAX_EXCHANGE_RATE} lek per unit."));
            r
        }
        Some(r) => r,
    };
    let date = match input.date.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
        None => today,
        Some(text) => match NaiveDate::parse_from_str(text, "%Y-%m-%d") {
            Ok(d) if d < today => {
                errors
                    .add("date", "The date must be today or later: invoices already issued keep their rate.");
                d
            }
            Ok(d) if (d - today).num_days() > MANUAL_DAYS_AHEAD => {
                errors.add("date", format!("The date must be at most {MANUAL_DAYS_AHEAD} days ahead."));
                d
            }
            Ok(d) => d,
            Err(_) => {
                errors.add("date", "The date must be a date in the format YYYY-MM-DD.");
                today
            }
        },
    };
    errors.into_result()?;
    Ok(ManualRate { currency: currency.to_string(), rate, unit, date })
}

/// The rate an invoice uses and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateBasis {
    /// Lek per one unit of the invoice currency.
    pub rate: Decimal,
    pub origin: Origin,
    /// The day a manual or fetched rate is for; none for a rate sent with the invoice.
    pub date: Option<NaiveDate>,
}

/// What is known when a foreign-currency invoice is issued.
#[derive(Debug, Clone, Default)]
pub struct KnownRates {
    /// The owner's rate for today: lek per one unit.
    pub manual: Option<(Decimal, NaiveDate)>,
    /// The central bank's most recent rate: lek per one unit.
    pub official: Option<(Decimal, NaiveDate)>,
}

/// The rate of an invoice in `currency` (not lek): the one sent when it is positive, else the
/// owner's rate for today, else the central bank's most recent rate. With none of them the POS
/// is asked for one rather than the invoice silently going out at 1.
pub fn invoice_rate(
    currency: &str,
    sent: Option<Decimal>,
    known: &KnownRates,
) -> Result<RateBasis, FieldErrors> {
    if let Some(rate) = sent.filter(|r| *r > Decimal::ZERO) {
        return Ok(RateBasis { rate, origin: Origin::Request, date: None });
    }
    if let Some((rate, date)) = known.manual {
        return Ok(RateBasis { rate, origin: Origin::Manual, date: Some(date) });
    }
    if let Some((rate, date)) = known.official {
        return Ok(RateBasis { rate, origin: Origin::Fetched(Source::Boa), date: Some(date) });
    }
    Err(FieldErrors::one(
        "exchange_rate",
        format!(
            "No Bank of Albania rate is known for {currency}: send exchange_rate, or set today's rate with \
             PUT /api/v1/exchange-rates/manual/{currency}."
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn lek_and_four_currencies_are_enabled_until_the_owner_changes_them() {
        let none: Vec<(String, bool)> = Vec::new();
        for code in ["ALL", "EUR", "USD", "GBP", "CHF"] {
            assert!(is_enabled(code, &none), "{code}");
        }
        assert!(!is_enabled("JPY", &none));
        let changes = vec![("JPY".to_string(), true), ("USD".to_string(), false), ("ALL".to_string(), false)];
        assert!(is_enabled("JPY", &changes));
        assert!(!is_enabled("USD", &changes));
        assert!(is_enabled("ALL", &changes), "the lek cannot be switched off");
    }

    #[test]
    fn every_known_currency_has_a_name_and_symbol() {
        for c in CURRENCIES {
            assert!(super::super::validation::is_currency_code(c.code), "{}", c.code);
            assert!(!c.name.is_empty() && !c.symbol.is_empty(), "{}", c.code);
        }
        assert_eq!(find("eur").map(|c| c.code), Some("EUR"));
        assert_eq!(find("XYZ"), None);
    }

    #[test]
    fn source_is_normalized_and_unknown_means_the_central_bank() {
        // | sent        | source   |
        let table = [
            (None, "BOA"),
            (Some(""), "BOA"),
            (Some("boa"), "BOA"),
            (Some("bkt"), "BKT"),
            (Some("ILIRIA98"), "Iliria98"),
            (Some(" adon "), "ADON"),
            (Some("Raiffeisen"), "BOA"),
            (Some("\u{0}"), "BOA"),
        ];
        for (sent, expected) in table {
            assert_eq!(Source::from_query(sent).as_str(), expected, "{sent:?}");
        }
    }

    #[test]
    fn origins_read_back_as_written() {
        for origin in
            [Origin::Manual, Origin::Request, Origin::Fetched(Source::Boa), Origin::Fetched(Source::Adon)]
        {
            assert_eq!(Origin::parse(origin.as_str()), Some(origin));
        }
        assert_eq!(Origin::parse("boa"), None);
    }

    #[test]
    fn a_rate_per_hundred_is_divided_per_unit() {
        assert_eq!(per_unit(d("60.36"), 100), d("0.6036"));
        assert_eq!(per_unit(d("98.15"), 1), d("98.15"));
    }

    #[test]
    fn manual_rates_replace_fetched_ones_and_show_as_manual() {
        let fetched = vec![
            Quote { currency: "EUR".into(), unit: 1, sell: d("98.15"), buy: None, date: day("2026-11-20") },
            Quote {
                currency: "JPY".into(),
                unit: 100,
                sell: d("60.36"),
                buy: Some(d("59.80")),
                date: day("2026-11-20"),
            },
        ];
        let manual =
            vec![ManualRate { currency: "EUR".into(), rate: d("99.5"), unit: 1, date: day("2026-11-23") }];
        let lines = rate_lines(Source::Bkt, &fetched, &manual);
        let eur = &lines["EUR"];
        assert_eq!((eur.rate, eur.origin, eur.date), (d("99.5"), Origin::Manual, day("2026-11-23")));
        let jpy = &lines["JPY"];
        assert_eq!((jpy.rate, jpy.unit, jpy.quoted), (d("0.6036"), 100, d("60.36")));
        assert_eq!((jpy.buy, jpy.origin), (Some(d("0.598")), Origin::Fetched(Source::Bkt)));
    }

    #[test]
    fn manual_rate_rules() {
        let today = day("2026-11-23");
        let ok = |rate: &str, unit: Option<i64>, date: Option<&str>| {
            manual_rate(
                "EUR",
                &ManualRateInput { rate: Some(d(rate)), unit, date: date.map(str::to_string) },
                today,
            )
        };
        let keys =
            |r: Result<ManualRate, FieldErrors>| r.unwrap_err().into_map().into_keys().collect::<Vec<_>>();
        assert_eq!(
            ok("99.5", None, None).unwrap(),
            ManualRate { currency: "EUR".into(), rate: d("99.5"), unit: 1, date: today }
        );
        assert_eq!(ok("60.36", Some(100), Some("2026-11-24")).unwrap().unit, 100);
        // | rate        | unit | date         | rejected |
        let table: [(&str, Option<i64>, Option<&str>, &str); 8] = [
            ("0", None, None, "rate"),
            ("-1", None, None, "rate"),
            ("1.1234567", None, None, "rate"),
            ("1000000.01", None, None, "rate"),
            ("9223372036854775808", None, None, "rate"),
            ("99", Some(7), None, "unit"),
            ("99", None, Some("2026-11-22"), "date"),
            ("99", None, Some("2027-01-01"), "date"),
        ];
        for (rate, unit, date, field) in table {
            assert_eq!(keys(ok(rate, unit, date)), [field], "{rate} {unit:?} {date:?}");
        }
        assert_eq!(keys(manual_rate("EUR", &ManualRateInput::default(), today)), ["rate"]);
        // 100,000,000 lek per 100 units is 1,000,000 per unit: still allowed.
        assert!(ok("100000000", Some(100), None).is_ok());
    }

    #[test]
    fn an_invoice_takes_the_sent_rate_then_the_owners_then_the_central_banks() {
        let known = KnownRates {
            manual: Some((d("99.5"), day("2026-11-23"))),
            official: Some((d("98.15"), day("2026-11-20"))),
        };
        let official_only = KnownRates { manual: None, official: known.official };
        // | sent  | known         | rate   | origin  |
        let table = [
            (Some(d("101")), &known, d("101"), Origin::Request),
            (Some(d("0")), &known, d("99.5"), Origin::Manual),
            (None, &known, d("99.5"), Origin::Manual),
            (Some(d("-3")), &official_only, d("98.15"), Origin::Fetched(Source::Boa)),
            (None, &official_only, d("98.15"), Origin::Fetched(Source::Boa)),
        ];
        for (sent, known, rate, origin) in table {
            let basis = invoice_rate("EUR", sent, known).unwrap();
            assert_eq!((basis.rate, basis.origin), (rate, origin), "{sent:?}");
        }
        assert_eq!(invoice_rate("EUR", None, &official_only).unwrap().date, Some(day("2026-11-20")));
        assert_eq!(invoice_rate("EUR", Some(d("101")), &known).unwrap().date, None);
        let missing = invoice_rate("EUR", None, &KnownRates::default()).unwrap_err().into_map();
        assert!(missing["exchange_rate"][0].contains("EUR"), "{missing:?}");
    }
}
