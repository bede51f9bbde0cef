//! The TCR as the shop's cash register: the spec's balance formula and the business day (the
//! day's drawer and its close are `drawer`'s). Pure: amounts in lek (`Decimal`), times in UTC, days in Europe/Tirane.

use chrono::{DateTime, Days, NaiveDate, TimeZone, Utc};
use chrono_tz::Europe::Tirane;
use rust_decimal::Decimal;

use super::money::{self, MAX_AMOUNT, Overflow, checked_sum, is_cents, round2};
use super::spelled::spelled;
use super::validation::FieldErrors;

spelled! {
    /// The spec's `action_type` of a cash-register action.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ActionType {
        /// The cash in the drawer when the day opens (CIS `INITIAL`).
        Initial = "INITIAL",
        /// Cash put in (CIS `DEPOSIT`).
        MoneyIn = "MONEY_IN",
        /// Cash taken out (CIS `WITHDRAW`).
        MoneyOut = "MONEY_OUT",
    }
}

impl ActionType {
    /// What the action does to the drawer: +1 or -1.
    pub fn sign(self) -> Decimal {
        match self {
            ActionType::Initial | ActionType::MoneyIn => Decimal::ONE,
            ActionType::MoneyOut => Decimal::NEGATIVE_ONE,
        }
    }
}

spelled! {
    /// Why an action was made; the day's summary groups by it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Purpose {
        /// The opening: the INITIAL deposit, or the DEPOSIT of the difference when open-balance
        /// comes after the day was already opened.
        Open = "open",
        Deposit = "deposit",
        Withdraw = "withdraw",
        /// The withdrawal registered by close-balance.
        Close = "close",
    }
}

/// One movement of cash registered on the TCR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Movement {
    pub action_type: ActionType,
    pub amount: Decimal,
}

/// One cash invoice issued from the TCR, at its lek value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CashSale {
    pub gross_all: Decimal,
    /// A self-issued invoice pays a seller out of the drawer.
    pub self_issued: bool,
}

impl CashSale {
    /// What it moves the drawer by: a sale brings its gross in, a self-invoice pays it out.
    pub fn signed(self) -> Decimal {
        if self.self_issued { -self.gross_all } else { self.gross_all }
    }
}

/// The spec's balance: deposits (the INITIAL included) minus withdrawals registered on the TCR,
/// plus the cash invoices issued from it, self-invoices subtracted. The store leaves order
/// invoices out (their summary pays them) and hands corrective documents in as negative sales:
/// a cancelled cash sale lowers the balance by what it gave back. Checked: the rows are
/// whatever the database holds, however many.
pub fn balance(movements: &[Movement], sales: &[CashSale]) -> Result<Decimal, Overflow> {
    let moved = checked_sum(movements.iter().map(|m| m.action_type.sign() * m.amount))?;
    let sold = checked_sum(sales.iter().map(|s| s.signed()))?;
    Ok(round2(money::add(moved, sold)?))
}

/// The business day an instant belongs to: its date in Tirane.
pub fn business_day(instant: DateTime<Utc>) -> NaiveDate {
    instant.with_timezone(&Tirane).date_naive()
}

/// One business day of a TCR, as its till's state reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Day {
    pub id: i64,
    pub company_id: i64,
    pub tcr_code: String,
    pub business_day: String,
    pub opened_at: String,
    pub opened_automatically: bool,
    pub closed_at: Option<String>,
}

/// Where a till's day stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DayState {
    /// Open for business (possibly since an earlier date, until close-balance).
    Open,
    /// Today's day was opened and closed.
    Closed,
    /// No day was opened today (the first cash sale or open-balance opens one).
    NotOpened,
}

impl DayState {
    pub fn as_str(self) -> &'static str {
        match self {
            DayState::Open => "open",
            DayState::Closed => "closed",
            DayState::NotOpened => "not_opened",
        }
    }
}

/// The state of a till's day on `today`, from its latest day.
pub fn day_state(latest: Option<&Day>, today: NaiveDate) -> DayState {
    match latest {
        Some(day) if day.closed_at.is_none() => DayState::Open,
        Some(day) if day.business_day == today.to_string() => DayState::Closed,
        _ => DayState::NotOpened,
    }
}

/// The first instant after `day` in Tirane (its next midnight): "the balance at 23:59:59 of
/// that day" counts everything before it. Midnight exists on every Tirane date (the clocks move
/// at 02:00 and 03:00), and the earliest reading is taken should that ever change.
pub fn end_of_day(day: NaiveDate) -> Option<DateTime<Utc>> {
    let next = day.checked_add_days(Days::new(1))?.and_hms_opt(0, 0, 0)?;
    Tirane.from_local_datetime(&next).earliest().map(|t| t.with_timezone(&Utc))
}

/// An amount the caller sent: required, in lek with at most two decimals, and greater than 0
/// (or at least 0 where `zero_allowed`, as for the opening of the day).
pub fn amount(field: &str, sent: Option<Decimal>, zero_allowed: bool) -> Result<Decimal, FieldErrors> {
    let Some(value) = sent else {
        return Err(FieldErrors::one(field, format!("The {field} field is required.")));
    };
    if zero_allowed && value < Decimal::ZERO {
        return Err(FieldErrors::one(field, format!("The {field} must be at least 0.")));
    }
    if !zero_allowed && value <= Decimal::ZERO {
        return Err(FieldErrors::one(field, format!("The {field} must be greater than 0.")));
    }
    if !is_cents(value) {
        return Err(FieldErrors::one(field, format!("The {field} must have at most two decimals.")));
    }
    let mut errors = FieldErrors::new();
    money::within(&mut errors, field, value, MAX_AMOUNT);
    errors.into_result()?;
    Ok(round2(value))
}

/// What an explicit open-balance does on a day that is already open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reopening {
    /// More cash than the day opened with: a DEPOSIT of the difference.
    Deposit(Decimal),
    /// The same amount: nothing to register (a retried request).
    Unchanged,
    /// Less than the day opened with: cash leaves through a withdrawal, not an opening.
    Lower { opened_with: Decimal },
}

pub fn reopening(opened_with: Decimal, requested: Decimal) -> Result<Reopening, Overflow> {
    Ok(if requested > opened_with {
        Reopening::Deposit(money::sub(requested, opened_with)?)
    } else if requested == opened_with {
        Reopening::Unchanged
    } else {
        Reopening::Lower { opened_with }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn day(business_day: &str, closed: bool) -> Day {
        Day {
            id: 1,
            company_id: 1,
            tcr_code: "ab001".into(),
            business_day: business_day.into(),
            opened_at: format!("{business_day}T07:00:00Z"),
            opened_automatically: false,
            closed_at: closed.then(|| format!("{business_day}T20:00:00Z")),
        }
    }

    #[test]
    fn a_tills_day_reads_open_closed_or_not_opened() {
        let today: NaiveDate = "2026-03-02".parse().unwrap();
        //  latest day            | state
        //  none                  | not opened
        //  today, open           | open
        //  yesterday, still open | open (until close-balance)
        //  today, closed         | closed
        //  yesterday, closed     | not opened
        assert_eq!(day_state(None, today), DayState::NotOpened);
        assert_eq!(day_state(Some(&day("2026-03-02", false)), today), DayState::Open);
        assert_eq!(day_state(Some(&day("2026-03-01", false)), today), DayState::Open);
        assert_eq!(day_state(Some(&day("2026-03-02", true)), today), DayState::Closed);
        assert_eq!(day_state(Some(&day("2026-03-01", true)), today), DayState::NotOpened);
    }

    fn moved(action_type: ActionType, amount: &str) -> Movement {
        Movement { action_type, amount: d(amount) }
    }

    #[test]
    fn the_balance_is_deposits_minus_withdrawals_plus_cash_sales_less_self_invoices() {
        let movements = [
            moved(ActionType::Initial, "1000"),
            moved(ActionType::MoneyIn, "250.50"),
            moved(ActionType::MoneyOut, "300"),
        ];
        let sales = [
            CashSale { gross_all: d("285"), self_issued: false },
            CashSale { gross_all: d("1240.42"), self_issued: false },
            CashSale { gross_all: d("500"), self_issued: true },
        ];
        // 1000 + 250.50 - 300 + 285 + 1240.42 - 500
        assert_eq!(balance(&movements, &sales), Ok(d("1975.92")));
        assert_eq!(balance(&[], &[]), Ok(d("0")));
        // | sale 285 | its water cancelled (-45) | balance 240 |
        let refund = [
            CashSale { gross_all: d("285"), self_issued: false },
            CashSale { gross_all: d("-45"), self_issued: false },
        ];
        assert_eq!(balance(&[], &refund), Ok(d("240")));
    }

    #[test]
    fn a_balance_beyond_a_decimal_is_an_error_not_a_panic() {
        // The story: 105 deposits of 792281625142643375935439503.35 were stored.
        let huge = vec![moved(ActionType::MoneyIn, "792281625142643375935439503.35"); 105];
        assert_eq!(balance(&huge, &[]), Err(Overflow));
        let sales = vec![CashSale { gross_all: Decimal::MAX, self_issued: false }; 2];
        assert_eq!(balance(&[], &sales), Err(Overflow));
    }

    #[test]
    fn the_day_ends_at_tirane_midnight_in_winter_and_summer() {
        let winter = NaiveDate::from_ymd_opt(2026, 1, 15).unwrap();
        assert_eq!(end_of_day(winter).unwrap().to_rfc3339(), "2026-01-15T23:00:00+00:00");
        let summer = NaiveDate::from_ymd_opt(2026, 7, 15).unwrap();
        assert_eq!(end_of_day(summer).unwrap().to_rfc3339(), "2026-07-15T22:00:00+00:00");
        // The night the clocks go forward (29 March 2026 at 02:00).
        let spring = NaiveDate::from_ymd_opt(2026, 3, 28).unwrap();
        assert_eq!(end_of_day(spring).unwrap().to_rfc3339(), "2026-03-28T23:00:00+00:00");
        let late = "2026-01-15T23:30:00Z".parse::<DateTime<Utc>>().unwrap();
        assert_eq!(business_day(late), NaiveDate::from_ymd_opt(2026, 1, 16).unwrap());
    }

    #[test]
    fn amounts_are_positive_lek_with_two_decimals() {
        assert_eq!(amount("amount", Some(d("12.5")), false), Ok(d("12.5")));
        assert!(amount("amount", Some(d("0")), false).is_err());
        assert!(amount("amount", Some(d("-1")), false).is_err());
        assert!(amount("amount", Some(d("1.005")), false).is_err());
        assert!(amount("amount", None, false).is_err());
        assert_eq!(amount("amount", Some(d("0")), true), Ok(d("0")));
        assert!(amount("amount", Some(d("-0.01")), true).is_err());
        // | amount                          | accepted |
        assert_eq!(amount("amount", Some(d("100000000000")), false), Ok(d("100000000000")));
        for huge in ["100000000000.01", "9223372036854775807", "792281625142643375935439503.35"] {
            let refused = amount("amount", Some(d(huge)), false).unwrap_err();
            assert_eq!(refused.into_map().into_keys().collect::<Vec<_>>(), ["amount"], "{huge}");
        }
    }

    #[test]
    fn a_second_opening_deposits_only_the_difference() {
        assert_eq!(reopening(d("0"), d("500")), Ok(Reopening::Deposit(d("500"))));
        assert_eq!(reopening(d("500"), d("500")), Ok(Reopening::Unchanged));
        assert_eq!(reopening(d("500"), d("200")), Ok(Reopening::Lower { opened_with: d("500") }));
        assert_eq!(reopening(Decimal::MIN, d("1")), Err(Overflow));
    }
}
