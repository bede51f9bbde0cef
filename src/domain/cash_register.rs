//! The TCR as the shop's cash register: the balance formula, the business day and the day's
//! closing figures. Pure: amounts in lek (`Decimal`), times in UTC, days in Europe/Tirane.

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
    fn sign(self) -> Decimal {
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

/// The day's movements, by purpose, and its cash sales.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DayFigures {
    pub opening: Decimal,
    pub cash_sales: Decimal,
    pub deposits: Decimal,
    pub withdrawals: Decimal,
}

impl DayFigures {
    /// Adds one of the day's actions under its purpose (the closing withdrawal is not a
    /// withdrawal of the day: it is what the close takes out).
    pub fn add(
        &mut self,
        purpose: Purpose,
        action_type: ActionType,
        amount: Decimal,
    ) -> Result<(), Overflow> {
        let signed = action_type.sign() * amount;
        match purpose {
            Purpose::Open => self.opening = money::add(self.opening, signed)?,
            Purpose::Deposit => self.deposits = money::add(self.deposits, amount)?,
            Purpose::Withdraw => self.withdrawals = money::add(self.withdrawals, amount)?,
            Purpose::Close => {}
        }
        Ok(())
    }
}

/// The closing of a day, in the summary's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closing {
    /// The balance before the day's opening (0 when every earlier day was emptied).
    pub carried_over: Decimal,
    /// What the drawer should hold: the TCR's balance.
    pub expected: Decimal,
    pub counted: Decimal,
    /// counted - expected: negative when cash is missing.
    pub difference: Decimal,
    /// What leaves the drawer with the close (registered as a WITHDRAW when above 0).
    pub withdraw: Decimal,
    /// The balance once the closing withdrawal is registered.
    pub balance_after: Decimal,
}

/// Why a day could not be closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloseError {
    /// `counted` or `withdraw` broke a rule (422).
    Invalid(FieldErrors),
    /// The stored figures are beyond what a decimal holds.
    Overflow(Overflow),
}

impl From<FieldErrors> for CloseError {
    fn from(e: FieldErrors) -> Self {
        CloseError::Invalid(e)
    }
}

impl From<Overflow> for CloseError {
    fn from(e: Overflow) -> Self {
        CloseError::Overflow(e)
    }
}

/// A sent `counted` or `withdraw`: at least 0, whole cents, at most `MAX_AMOUNT`. A broken
/// rule is added to `errors` and reads as 0, which nothing uses once `errors` is returned.
fn drawer_amount(errors: &mut FieldErrors, field: &str, value: Decimal) -> Decimal {
    if value < Decimal::ZERO {
        errors.add(field, format!("The {field} must be at least 0."));
    } else if !is_cents(value) {
        errors.add(field, format!("The {field} must have at most two decimals."));
    } else if money::within(errors, field, value, MAX_AMOUNT) {
        return round2(value);
    }
    Decimal::ZERO
}

/// Closes a day whose TCR balance is `balance`. `counted` defaults to what the drawer should
/// hold; `withdraw` defaults to everything counted, up to the balance (the register cannot go
/// below zero), so a day normally ends at 0 and the next one opens with its float.
pub fn close(
    figures: &DayFigures,
    balance: Decimal,
    counted: Option<Decimal>,
    withdraw: Option<Decimal>,
) -> Result<Closing, CloseError> {
    let mut errors = FieldErrors::new();
    let counted = match counted {
        None => balance.max(Decimal::ZERO),
        Some(c) => drawer_amount(&mut errors, "counted", c),
    };
    let withdraw = match withdraw {
        None => counted.min(balance).max(Decimal::ZERO),
        Some(w) => {
            let w = drawer_amount(&mut errors, "withdraw", w);
            if w > counted {
                errors.add("withdraw", "The withdraw must not be greater than the counted cash.");
            }
            w
        }
    };
    errors.into_result()?;
    let day = money::sub(
        checked_sum([figures.opening, figures.cash_sales, figures.deposits])?,
        figures.withdrawals,
    )?;
    Ok(Closing {
        carried_over: money::sub(balance, day)?,
        expected: balance,
        counted,
        difference: money::sub(counted, balance)?,
        withdraw,
        balance_after: money::sub(balance, withdraw)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
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
        let mut figures = DayFigures::default();
        figures.add(Purpose::Deposit, ActionType::MoneyIn, Decimal::MAX).unwrap();
        assert_eq!(figures.add(Purpose::Deposit, ActionType::MoneyIn, Decimal::MAX), Err(Overflow));
        figures.cash_sales = Decimal::MAX;
        assert_eq!(close(&figures, d("0"), None, None), Err(CloseError::Overflow(Overflow)));
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

    #[test]
    fn closing_counts_the_drawer_and_takes_out_what_was_counted() {
        let mut figures = DayFigures::default();
        figures.add(Purpose::Open, ActionType::Initial, d("0")).unwrap();
        figures.add(Purpose::Open, ActionType::MoneyIn, d("500")).unwrap();
        figures.add(Purpose::Deposit, ActionType::MoneyIn, d("200")).unwrap();
        figures.add(Purpose::Withdraw, ActionType::MoneyOut, d("100")).unwrap();
        figures.cash_sales = d("570");
        assert_eq!(figures.opening, d("500"));
        // 500 + 570 + 200 - 100 = 1170 on a drawer that started empty.
        let exact = close(&figures, d("1170"), None, None).unwrap();
        assert_eq!(
            exact,
            Closing {
                carried_over: d("0"),
                expected: d("1170"),
                counted: d("1170"),
                difference: d("0"),
                withdraw: d("1170"),
                balance_after: d("0"),
            }
        );
        let short = close(&figures, d("1170"), Some(d("1160")), Some(d("1000"))).unwrap();
        assert_eq!((short.difference, short.withdraw, short.balance_after), (d("-10"), d("1000"), d("170")));
        let surplus = close(&figures, d("1180"), Some(d("1200")), None).unwrap();
        assert_eq!(
            (surplus.carried_over, surplus.difference, surplus.withdraw),
            (d("10"), d("20"), d("1180"))
        );
        let keys = |e: CloseError| match e {
            CloseError::Invalid(fields) => fields.into_map().into_keys().collect::<Vec<_>>(),
            CloseError::Overflow(_) => panic!("not an overflow"),
        };
        let too_much = close(&figures, d("1170"), Some(d("100")), Some(d("200"))).unwrap_err();
        assert_eq!(keys(too_much), ["withdraw"]);
        assert!(close(&figures, d("1170"), Some(d("-1")), None).is_err());
        let huge =
            close(&figures, d("1170"), Some(d("9223372036854775807")), Some(d("1000000000000"))).unwrap_err();
        assert_eq!(keys(huge), ["counted", "withdraw"]);
    }
}
