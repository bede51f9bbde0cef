//! Reports as an accountant reads them: the period asked for, what counts as a sale, and each
//! document's figures in lek as the CIS registered them. The store keeps the sums; these rules
//! say what is summed.
//!
//! What counts: cash, non-cash, e-invoices and summaries are sales; the corrective document of
//! a cancellation is a reversal (negative amounts) and sales are always shown net of them. An
//! order is not a sale: its summary copies its lines and is the sale, so orders (and the
//! cancellations of orders) are counted apart and never in sales, VAT, payments, products or
//! clients.

use chrono::{Datelike, Days, Months, NaiveDate};
use rust_decimal::Decimal;

use super::cash_register::CashSale;
use super::document::{DocumentKind, InvoiceType};
use super::money::{payments_in_lek, registered_in_lek, round2};
use super::spelled::spelled;
use super::validation::FieldErrors;

/// Items a listing report returns without `limit`.
pub const DEFAULT_LIMIT: i64 = 20;
/// The spec's bound of a report's `limit`.
pub const MAX_LIMIT: i64 = 500;
/// The largest `offset` accepted: far past any shop's documents, far from i64's end.
pub const MAX_OFFSET: i64 = 1_000_000_000;
/// The longest daily trend: two years of rows.
pub const MAX_TREND_DAYS: i64 = 731;

/// Inclusive Tirane days.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub from: NaiveDate,
    pub to: NaiveDate,
}

impl Period {
    /// `from` and `to` as sent: both required, `YYYY-MM-DD`, from not after to.
    pub fn read(from: Option<&str>, to: Option<&str>) -> Result<Period, FieldErrors> {
        let mut errors = FieldErrors::new();
        let from = date(&mut errors, "from", from);
        let to = date(&mut errors, "to", to);
        match (from, to) {
            (Some(from), Some(to)) if from > to => {
                Err(FieldErrors::one("from", "The from date must not be after the to date."))
            }
            (Some(from), Some(to)) => Ok(Period { from, to }),
            _ => Err(errors),
        }
    }

    /// One day.
    pub fn day(day: NaiveDate) -> Period {
        Period { from: day, to: day }
    }

    /// How many days it covers.
    pub fn days(&self) -> i64 {
        (self.to - self.from).num_days() + 1
    }

    /// Its days, in order.
    pub fn each_day(&self) -> impl Iterator<Item = NaiveDate> + use<> {
        let to = self.to;
        self.from.iter_days().take_while(move |d| *d <= to)
    }

    /// The daily trend's period: at most `MAX_TREND_DAYS` days.
    pub fn for_trend(self) -> Result<Period, FieldErrors> {
        if self.days() > MAX_TREND_DAYS {
            return Err(FieldErrors::one(
                "to",
                format!("The daily trend covers at most {MAX_TREND_DAYS} days: choose an earlier to date."),
            ));
        }
        Ok(self)
    }
}

/// A date sent as exactly `YYYY-MM-DD` (no sign, no time, no padding left out).
fn date(errors: &mut FieldErrors, field: &str, sent: Option<&str>) -> Option<NaiveDate> {
    let Some(text) = sent.filter(|t| !t.trim().is_empty()) else {
        errors.add(field, format!("The {field} field is required."));
        return None;
    };
    let shaped = text.len() == 10
        && text
            .bytes()
            .enumerate()
            .all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() });
    match shaped.then(|| NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()).flatten() {
        Some(day) => Some(day),
        None => {
            errors.add(field, format!("The {field} must be a date in the format YYYY-MM-DD."));
            None
        }
    }
}

/// A whole number sent as text, within `range`; `None` when absent or blank.
fn whole(
    field: &str,
    sent: Option<&str>,
    range: std::ops::RangeInclusive<i64>,
) -> Result<Option<i64>, FieldErrors> {
    let Some(text) = sent.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    match text.parse::<i64>() {
        Ok(n) if range.contains(&n) => Ok(Some(n)),
        _ => Err(FieldErrors::one(
            field,
            format!("The {field} must be a whole number from {} to {}.", range.start(), range.end()),
        )),
    }
}

/// A listing report's `limit`: 1 to 500, `DEFAULT_LIMIT` when absent.
pub fn limit(sent: Option<&str>) -> Result<i64, FieldErrors> {
    Ok(whole("limit", sent, 1..=MAX_LIMIT)?.unwrap_or(DEFAULT_LIMIT))
}

/// A listing report's `offset`: 0 when absent.
pub fn offset(sent: Option<&str>) -> Result<i64, FieldErrors> {
    Ok(whole("offset", sent, 0..=MAX_OFFSET)?.unwrap_or(0))
}

/// A yes/no option (`true`/`false`, `1`/`0`); false when absent.
pub fn flag(field: &str, sent: Option<&str>) -> Result<bool, FieldErrors> {
    match sent.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        None | Some("") | Some("false") | Some("0") => Ok(false),
        Some("true") | Some("1") => Ok(true),
        Some(_) => Err(FieldErrors::one(field, format!("The {field} must be true or false."))),
    }
}

spelled! {
    /// What a document is in a report.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum ReportKind {
        Cash = "CASH",
        NonCash = "NONCASH",
        EInvoice = "EINVOICE",
        Summary = "SUMMARY",
        /// The corrective document of a cancelled sale.
        Corrective = "CORRECTIVE",
        Order = "ORDER",
        /// The corrective document of a cancelled order.
        OrderCorrective = "ORDER_CORRECTIVE",
    }
}

impl ReportKind {
    /// The kinds sales are made of, reversals included, in the order reports list them.
    pub const SALES: [ReportKind; 5] = [
        ReportKind::Cash,
        ReportKind::NonCash,
        ReportKind::EInvoice,
        ReportKind::Summary,
        ReportKind::Corrective,
    ];

    /// A sale (not a reversal).
    pub fn is_sale(self) -> bool {
        matches!(self, ReportKind::Cash | ReportKind::NonCash | ReportKind::EInvoice | ReportKind::Summary)
    }

    /// Counted in sales: a sale or the reversal of one.
    pub fn in_sales(self) -> bool {
        self.is_sale() || self == ReportKind::Corrective
    }

    /// A document of kind `kind`; `original` is the kind of the document a corrective one
    /// reverses; `einvoice` whether it went to the e-invoice platform.
    pub fn of(kind: DocumentKind, original: Option<DocumentKind>, einvoice: bool) -> ReportKind {
        match kind {
            DocumentKind::Cash => ReportKind::Cash,
            DocumentKind::NonCash if einvoice => ReportKind::EInvoice,
            DocumentKind::NonCash => ReportKind::NonCash,
            DocumentKind::Order => ReportKind::Order,
            DocumentKind::Summary => ReportKind::Summary,
            DocumentKind::Corrective if original == Some(DocumentKind::Order) => ReportKind::OrderCorrective,
            DocumentKind::Corrective => ReportKind::Corrective,
        }
    }
}

/// What a document moves its till's cash balance by, under the balance's own rule: the cash
/// documents of the till (cash sales, summaries, and the reversals of either), not orders.
pub fn till_effect(kind: ReportKind, invoice_type: InvoiceType, sale: CashSale) -> Decimal {
    let in_till = invoice_type == InvoiceType::Cash
        && matches!(kind, ReportKind::Cash | ReportKind::Summary | ReportKind::Corrective);
    if in_till { sale.signed() } else { Decimal::ZERO }
}

/// A line's amounts in the invoice currency.
#[derive(Debug, Clone, PartialEq)]
pub struct LineInput {
    pub quantity: Decimal,
    /// Without VAT, after every discount (`PB`).
    pub net: Decimal,
    pub vat: Decimal,
    /// The net part of the line discount.
    pub discount: Decimal,
    pub vat_rate: Decimal,
    pub exemption: Option<String>,
}

/// A document's amounts as stored, in its currency.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentInput<'a> {
    pub currency: &'a str,
    pub exchange_rate: Decimal,
    pub fee: Decimal,
    /// The net part of the invoice discount.
    pub invoice_discount: Decimal,
    pub lines: &'a [LineInput],
    pub payments: &'a [Decimal],
}

/// Without VAT, VAT, and with VAT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Amounts {
    pub net: Decimal,
    pub vat: Decimal,
    pub gross: Decimal,
}

/// The lines of one VAT rate or exemption.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassFigures {
    pub vat_rate: Decimal,
    pub exemption: Option<String>,
    pub lines: i64,
    /// In lek.
    pub amounts: Amounts,
}

/// A document's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// In lek; `gross` is net + VAT + fee, the CIS's `TotPrice`.
    pub lek: Amounts,
    pub discount: Decimal,
    pub fee: Decimal,
    /// In the invoice's currency.
    pub in_currency: Amounts,
    /// Each line in lek, in order.
    pub lines: Vec<Amounts>,
    pub classes: Vec<ClassFigures>,
    /// Each payment in lek, in order; they add up to `lek.gross`.
    pub payments: Vec<Decimal>,
}

/// The document's figures in lek as the CIS registered them: each line converted at the
/// invoice's rate and rounded to the cent, the totals their sums (so a foreign-currency
/// invoice's gross in lek is its `TotPrice`, which can be a cent away from converting its total
/// at once). The discount, line and invoice parts together, is converted part by part.
pub fn figures(doc: &DocumentInput) -> Figures {
    let foreign = doc.currency != "ALL";
    let lek = |d: Decimal| registered_in_lek(d, doc.exchange_rate, foreign);
    let lines: Vec<Amounts> = doc
        .lines
        .iter()
        .map(|l| {
            let (net, vat) = (lek(l.net), lek(l.vat));
            Amounts { net, vat, gross: net + vat }
        })
        .collect();
    let fee = lek(doc.fee);
    let net: Decimal = lines.iter().map(|l| l.net).sum();
    let vat: Decimal = lines.iter().map(|l| l.vat).sum();
    let gross = net + vat + fee;
    let mut classes: Vec<ClassFigures> = Vec::new();
    for (line, amounts) in doc.lines.iter().zip(&lines) {
        let rate = line.vat_rate.normalize();
        match classes.iter_mut().find(|c| c.vat_rate == rate && c.exemption == line.exemption) {
            Some(class) => {
                class.lines += 1;
                class.amounts.net += amounts.net;
                class.amounts.vat += amounts.vat;
                class.amounts.gross += amounts.gross;
            }
            None => classes.push(ClassFigures {
                vat_rate: rate,
                exemption: line.exemption.clone(),
                lines: 1,
                amounts: *amounts,
            }),
        }
    }
    let net_currency: Decimal = doc.lines.iter().map(|l| l.net).sum();
    let vat_currency: Decimal = doc.lines.iter().map(|l| l.vat).sum();
    Figures {
        lek: Amounts { net, vat, gross },
        discount: doc.lines.iter().map(|l| lek(l.discount)).sum::<Decimal>() + lek(doc.invoice_discount),
        fee,
        in_currency: Amounts {
            net: net_currency,
            vat: vat_currency,
            gross: net_currency + vat_currency + doc.fee,
        },
        payments: payments_in_lek(doc.payments, doc.exchange_rate, foreign, gross),
        lines,
        classes,
    }
}

/// Who bought, for top clients: the buyer's identifier (type and value) when it has one,
/// otherwise its name; `None` for a sale without a buyer.
pub fn buyer_key(id_type: Option<&str>, id_value: Option<&str>, name: Option<&str>) -> Option<String> {
    fn present(s: Option<&str>) -> Option<&str> {
        s.map(str::trim).filter(|s| !s.is_empty())
    }
    match (present(id_value), present(name)) {
        (Some(id), _) => {
            Some(format!("{}:{}", present(id_type).unwrap_or("ID").to_uppercase(), id.to_uppercase()))
        }
        (None, Some(name)) => Some(format!("NAME:{}", name.to_lowercase())),
        (None, None) => None,
    }
}

/// A period of the dashboard and the same period before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comparison {
    pub current: Period,
    pub previous: Period,
}

/// `day` against the day before.
pub fn today(day: NaiveDate) -> Comparison {
    let before = day.pred_opt().unwrap_or(day);
    Comparison { current: Period::day(day), previous: Period::day(before) }
}

/// The week so far (from Monday) against the same days of the week before.
pub fn this_week(day: NaiveDate) -> Comparison {
    let monday = day - Days::new(u64::from(day.weekday().num_days_from_monday()));
    let back = |d: NaiveDate| d.checked_sub_days(Days::new(7)).unwrap_or(d);
    Comparison {
        current: Period { from: monday, to: day },
        previous: Period { from: back(monday), to: back(day) },
    }
}

/// The month so far against the month before up to the same day (its last day when it is
/// shorter: 31 March compares with 1-28 February).
pub fn this_month(day: NaiveDate) -> Comparison {
    let first = day.with_day(1).unwrap_or(day);
    let previous_first = first.checked_sub_months(Months::new(1)).unwrap_or(first);
    let previous_last = first.pred_opt().unwrap_or(first);
    let same_day = previous_first.with_day(day.day()).unwrap_or(previous_last).min(previous_last);
    Comparison {
        current: Period { from: first, to: day },
        previous: Period { from: previous_first, to: same_day },
    }
}

/// How much `current` changed from `previous`, in percent to the cent; `None` from nothing.
pub fn change_percent(current: Decimal, previous: Decimal) -> Option<Decimal> {
    if previous.is_zero() {
        return None;
    }
    current
        .checked_sub(previous)
        .and_then(|d| d.checked_mul(Decimal::ONE_HUNDRED))
        .and_then(|d| d.checked_div(previous.abs()))
        .map(round2)
}

/// One entry per day of `period`, in order: what `found` holds for it, or `empty`.
pub fn every_day<T: Clone>(period: Period, found: &[(NaiveDate, T)], empty: &T) -> Vec<(NaiveDate, T)> {
    period
        .each_day()
        .map(|day| {
            let value =
                found.iter().find(|(d, _)| *d == day).map_or_else(|| empty.clone(), |(_, v)| v.clone());
            (day, value)
        })
        .collect()
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

    fn keys(e: FieldErrors) -> Vec<String> {
        e.into_map().into_keys().collect()
    }

    #[test]
    fn a_period_is_two_dates_in_order() {
        // | from         | to           | outcome          |
        assert_eq!(
            Period::read(Some("2026-03-01"), Some("2026-03-31")),
            Ok(Period { from: day("2026-03-01"), to: day("2026-03-31") })
        );
        assert_eq!(Period::read(Some("2026-03-05"), Some("2026-03-05")).map(|p| p.days()), Ok(1));
        let refused = [
            (None, Some("2026-03-31"), vec!["from"]),
            (Some("2026-03-01"), None, vec!["to"]),
            (None, None, vec!["from", "to"]),
            (Some("2026-3-1"), Some("2026-03-31"), vec!["from"]),
            (Some("2026-03-01"), Some("2026-02-30"), vec!["to"]),
            (Some("2026-03-01T00:00"), Some("2026-03-31"), vec!["from"]),
            (Some("+2026-03-1"), Some("2026-03-31"), vec!["from"]),
            (Some("2026-03-01"), Some("2026-03\u{0}31"), vec!["to"]),
            (Some("2026-04-01"), Some("2026-03-31"), vec!["from"]),
            (Some(""), Some("2026-03-31"), vec!["from"]),
        ];
        for (from, to, fields) in refused {
            assert_eq!(keys(Period::read(from, to).unwrap_err()), fields, "{from:?} {to:?}");
        }
    }

    #[test]
    fn limits_offsets_and_flags_name_their_field() {
        // | sent                  | limit  |
        assert_eq!(limit(None), Ok(20));
        assert_eq!(limit(Some("1")), Ok(1));
        assert_eq!(limit(Some(" 500 ")), Ok(500));
        for bad in ["0", "501", "-1", "1e30", "9223372036854775808", "2.5", "ten", "5\u{0}"] {
            assert_eq!(keys(limit(Some(bad)).unwrap_err()), ["limit"], "{bad}");
        }
        assert_eq!(offset(None), Ok(0));
        assert_eq!(offset(Some("40")), Ok(40));
        assert_eq!(keys(offset(Some("-1")).unwrap_err()), ["offset"]);
        assert_eq!(keys(offset(Some("9223372036854775807")).unwrap_err()), ["offset"]);
        assert_eq!(flag("documents", Some("true")), Ok(true));
        assert_eq!(flag("documents", Some("0")), Ok(false));
        assert_eq!(flag("documents", None), Ok(false));
        assert_eq!(keys(flag("documents", Some("yes please")).unwrap_err()), ["documents"]);
    }

    #[test]
    fn the_trend_is_at_most_two_years_long() {
        let two_years = Period { from: day("2025-01-01"), to: day("2026-12-31") };
        assert_eq!(two_years.days(), 730);
        assert!(two_years.for_trend().is_ok());
        let longer = Period { from: day("2024-01-01"), to: day("2026-12-31") };
        assert_eq!(keys(longer.for_trend().unwrap_err()), ["to"]);
    }

    #[test]
    fn sales_are_what_a_buyer_pays_for_and_orders_are_not() {
        // | document                     | report kind        | sale  | in sales |
        let table = [
            (DocumentKind::Cash, None, false, ReportKind::Cash, true, true),
            (DocumentKind::NonCash, None, false, ReportKind::NonCash, true, true),
            (DocumentKind::NonCash, None, true, ReportKind::EInvoice, true, true),
            (DocumentKind::Summary, None, false, ReportKind::Summary, true, true),
            (DocumentKind::Corrective, Some(DocumentKind::Cash), false, ReportKind::Corrective, false, true),
            (
                DocumentKind::Corrective,
                Some(DocumentKind::NonCash),
                false,
                ReportKind::Corrective,
                false,
                true,
            ),
            (DocumentKind::Order, None, false, ReportKind::Order, false, false),
            (
                DocumentKind::Corrective,
                Some(DocumentKind::Order),
                false,
                ReportKind::OrderCorrective,
                false,
                false,
            ),
        ];
        for (kind, original, einvoice, report_kind, sale, in_sales) in table {
            let read = ReportKind::of(kind, original, einvoice);
            assert_eq!(read, report_kind, "{kind:?} of {original:?}");
            assert_eq!((read.is_sale(), read.in_sales()), (sale, in_sales), "{read:?}");
            assert_eq!(ReportKind::parse(read.as_str()), Some(read));
        }
    }

    #[test]
    fn the_till_moves_with_its_cash_documents_only() {
        let sale = CashSale { gross_all: d("285"), self_issued: false };
        let paid_out = CashSale { gross_all: d("100"), self_issued: true };
        // | kind        | type    | sale        | till  |
        assert_eq!(till_effect(ReportKind::Cash, InvoiceType::Cash, sale), d("285"));
        assert_eq!(till_effect(ReportKind::Cash, InvoiceType::Cash, paid_out), d("-100"));
        assert_eq!(till_effect(ReportKind::Summary, InvoiceType::Cash, sale), d("285"));
        let refund = CashSale { gross_all: d("-120"), self_issued: false };
        assert_eq!(till_effect(ReportKind::Corrective, InvoiceType::Cash, refund), d("-120"));
        assert_eq!(till_effect(ReportKind::Corrective, InvoiceType::NonCash, refund), d("0"));
        assert_eq!(till_effect(ReportKind::Order, InvoiceType::Cash, sale), d("0"));
        assert_eq!(till_effect(ReportKind::OrderCorrective, InvoiceType::Cash, refund), d("0"));
        assert_eq!(till_effect(ReportKind::NonCash, InvoiceType::NonCash, sale), d("0"));
    }

    fn line(net: &str, vat: &str, rate: &str, exemption: Option<&str>) -> LineInput {
        LineInput {
            quantity: d("1"),
            net: d(net),
            vat: d(vat),
            discount: d("0"),
            vat_rate: d(rate),
            exemption: exemption.map(str::to_string),
        }
    }

    #[test]
    fn a_lek_invoice_is_reported_as_stored() {
        // The spec's coffee and water: 2 x 120 at 20 %, 50 at 6 % with 10 % off.
        let mut water = line("42.45", "2.55", "6", None);
        water.discount = d("4.72");
        let lines = [line("200.00", "40.00", "20", None), water];
        let doc = DocumentInput {
            currency: "ALL",
            exchange_rate: d("1"),
            fee: d("0"),
            invoice_discount: d("0"),
            lines: &lines,
            payments: &[d("285")],
        };
        let f = figures(&doc);
        assert_eq!(f.lek, Amounts { net: d("242.45"), vat: d("42.55"), gross: d("285.00") });
        assert_eq!(f.in_currency, f.lek);
        assert_eq!(f.discount, d("4.72"));
        assert_eq!(f.payments, vec![d("285")]);
        // | rate | exemption | lines | net    | vat   |
        let classes: Vec<_> = f
            .classes
            .iter()
            .map(|c| (c.vat_rate, c.exemption.clone(), c.lines, c.amounts.net, c.amounts.vat))
            .collect();
        assert_eq!(
            classes,
            vec![(d("20"), None, 1, d("200.00"), d("40.00")), (d("6"), None, 1, d("42.45"), d("2.55"))]
        );
    }

    #[test]
    fn a_foreign_invoice_is_reported_in_lek_line_by_line_as_the_cis_registered_it() {
        // 3 lines in EUR at 100.52; the fee and both discounts converted part by part.
        let lines = [
            line("10.01", "2.00", "20", None),
            line("10.01", "2.00", "20", None),
            line("5.00", "0", "0", Some("TYPE_1")),
        ];
        let doc = DocumentInput {
            currency: "EUR",
            exchange_rate: d("100.52"),
            fee: d("1.50"),
            invoice_discount: d("0.99"),
            lines: &lines,
            payments: &[d("20"), d("10.52")],
        };
        let f = figures(&doc);
        // | line  | net EUR | net ALL  | vat EUR | vat ALL |
        // | 1, 2  | 10.01   | 1006.21  | 2.00    | 201.04  |
        // | 3     | 5.00    | 502.60   | 0       | 0       |
        assert_eq!(f.lek.net, d("2515.02"));
        assert_eq!(f.lek.vat, d("402.08"));
        assert_eq!(f.fee, d("150.78"));
        assert_eq!(f.lek.gross, d("3067.88"));
        assert_eq!(f.discount, d("99.51"));
        assert_eq!(f.in_currency, Amounts { net: d("25.02"), vat: d("4.00"), gross: d("30.52") });
        assert_eq!(f.payments, vec![d("2010.41"), d("1057.47")]);
        assert_eq!(f.payments.iter().sum::<Decimal>(), f.lek.gross);
        assert_eq!(f.classes.len(), 2);
        assert_eq!((f.classes[0].lines, f.classes[0].amounts.net), (2, d("2012.42")));
        assert_eq!(f.classes[1].exemption.as_deref(), Some("TYPE_1"));
    }

    #[test]
    fn a_buyer_is_known_by_its_identifier_or_else_its_name() {
        // | id type | id value     | name       | key                   |
        assert_eq!(
            buyer_key(Some("NUIS"), Some("k81234001a"), Some("Dardania")).as_deref(),
            Some("NUIS:K81234001A")
        );
        assert_eq!(buyer_key(None, Some("I12"), None).as_deref(), Some("ID:I12"));
        assert_eq!(
            buyer_key(Some("NUIS"), Some(" "), Some(" Furra Korça ")).as_deref(),
            Some("NAME:furra korça")
        );
        assert_eq!(buyer_key(None, None, None), None);
        assert_eq!(buyer_key(None, Some(""), Some("")), None);
    }

    #[test]
    fn the_dashboard_compares_like_with_like() {
        // | today      | period   | current                 | previous                |
        let wednesday = day("2026-03-18");
        assert_eq!(today(wednesday).previous, Period::day(day("2026-03-17")));
        let week = this_week(wednesday);
        assert_eq!(week.current, Period { from: day("2026-03-16"), to: wednesday });
        assert_eq!(week.previous, Period { from: day("2026-03-09"), to: day("2026-03-11") });
        let monday = this_week(day("2026-03-16"));
        assert_eq!(monday.current, Period::day(day("2026-03-16")));
        let month = this_month(wednesday);
        assert_eq!(month.current, Period { from: day("2026-03-01"), to: wednesday });
        assert_eq!(month.previous, Period { from: day("2026-02-01"), to: day("2026-02-18") });
        let end_of_march = this_month(day("2026-03-31"));
        assert_eq!(end_of_march.previous, Period { from: day("2026-02-01"), to: day("2026-02-28") });
        let january = this_month(day("2026-01-10"));
        assert_eq!(january.previous, Period { from: day("2025-12-01"), to: day("2025-12-10") });
    }

    #[test]
    fn a_change_is_a_percentage_of_what_was_before() {
        // | current | previous | change  |
        assert_eq!(change_percent(d("150"), d("100")), Some(d("50")));
        assert_eq!(change_percent(d("50"), d("200")), Some(d("-75")));
        assert_eq!(change_percent(d("1"), d("3")), Some(d("-66.67")));
        assert_eq!(change_percent(d("10"), d("0")), None);
        assert_eq!(change_percent(d("10"), d("-10")), Some(d("200")));
    }

    #[test]
    fn every_day_of_the_period_has_a_row() {
        let period = Period { from: day("2026-02-27"), to: day("2026-03-02") };
        let found = [(day("2026-02-28"), 3), (day("2026-03-02"), 5)];
        let rows = every_day(period, &found, &0);
        assert_eq!(
            rows,
            vec![
                (day("2026-02-27"), 0),
                (day("2026-02-28"), 3),
                (day("2026-03-01"), 0),
                (day("2026-03-02"), 5)
            ]
        );
    }
}
