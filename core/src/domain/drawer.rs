//! What a till's drawer holds, apart from what its documents were paid with otherwise. Pure:
//! amounts in lek.
//!
//! The spec's balance (`cash_register::balance`) counts a cash invoice in full whatever paid it:
//! the CIS's "cash" invoice includes a card. A person counts banknotes, so the close, the X and
//! Z reports and the owner's page expect what the drawer should hold: what the last count left
//! in it, the cash actions since (the opening, deposits, withdrawals), the banknotes the till's
//! documents took in, the banknotes they gave out (a refund, a self-invoice paid to its seller)
//! and the change given (a sale's negative banknote payment: cash back on a card). Every other
//! payment method is named apart and is not in the drawer.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::cash_register::{self, ActionType, Movement, Purpose};
use super::money::{self, MAX_AMOUNT, Overflow, checked_sum, is_cents, registered_in_lek, round2};
use super::validation::FieldErrors;

/// The payment method whose money is in the drawer.
pub const BANKNOTE: &str = "BANKNOTE";

/// The lek notes and coins a drawer is counted by, largest first.
pub const NOTES: [u32; 5] = [5000, 2000, 1000, 500, 200];
pub const COINS: [u32; 6] = [100, 50, 20, 10, 5, 1];

/// The most pieces of one denomination a count takes (a million 5000-lek notes is far beyond a
/// drawer, and keeps every total inside `MAX_AMOUNT`'s bound).
pub const MAX_PIECES: u64 = 1_000_000;

/// One cash document of the till (a sale, a summary, a corrective document), as paid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TillDocument {
    /// A corrective document: its payments are negative, what it gave back.
    pub corrective: bool,
    /// A self-invoice: the shop paid its seller, so its payments leave the drawer.
    pub self_issued: bool,
    /// Not in lek: each payment is converted at `exchange_rate`, as the CIS registers it.
    pub foreign: bool,
    pub exchange_rate: Decimal,
    /// (method, amount in the document's currency), as paid.
    pub payments: Vec<(String, Decimal)>,
}

/// What a till's documents took, in lek (kept with a closed day, amounts as exact text).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Takings {
    /// Banknotes the documents brought into the drawer.
    #[serde(with = "rust_decimal::serde::str")]
    pub banknotes_in: Decimal,
    /// Banknotes given out by refunds and self-invoices.
    #[serde(with = "rust_decimal::serde::str")]
    pub banknotes_out: Decimal,
    /// Banknotes given back on a sale (its negative banknote payment).
    #[serde(with = "rust_decimal::serde::str")]
    pub change_given: Decimal,
    /// What the sales brought by payment method (a self-invoice's negative), methods by name.
    #[serde(with = "amounts_text")]
    pub sales: BTreeMap<String, Decimal>,
    /// What the corrective documents gave back by payment method (negative), methods by name.
    #[serde(with = "amounts_text")]
    pub refunds: BTreeMap<String, Decimal>,
}

/// Amounts by name as exact text, as a kept day holds them.
mod amounts_text {
    use std::collections::BTreeMap;

    use rust_decimal::Decimal;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(amounts: &BTreeMap<String, Decimal>, s: S) -> Result<S::Ok, S::Error> {
        let text: BTreeMap<&String, String> = amounts.iter().map(|(k, v)| (k, v.to_string())).collect();
        text.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, Decimal>, D::Error> {
        let text = BTreeMap::<String, String>::deserialize(d)?;
        text.into_iter()
            .map(|(k, v)| v.parse().map(|amount| (k, amount)).map_err(serde::de::Error::custom))
            .collect()
    }
}

fn add_to(map: &mut BTreeMap<String, Decimal>, method: &str, amount: Decimal) -> Result<(), Overflow> {
    let sum = map.entry(method.to_string()).or_default();
    *sum = money::add(*sum, amount)?;
    Ok(())
}

impl Takings {
    /// Adds one document: each payment in lek, signed as it moves the shop's money (a
    /// self-invoice's payments go out).
    pub fn add(&mut self, document: &TillDocument) -> Result<(), Overflow> {
        for (method, amount) in &document.payments {
            let lek = registered_in_lek(*amount, document.exchange_rate, document.foreign);
            let signed = if document.self_issued { -lek } else { lek };
            if document.corrective {
                add_to(&mut self.refunds, method, signed)?;
            } else {
                add_to(&mut self.sales, method, signed)?;
            }
            if method != BANKNOTE {
                continue;
            }
            if signed > Decimal::ZERO {
                self.banknotes_in = money::add(self.banknotes_in, signed)?;
            } else if document.corrective || document.self_issued {
                self.banknotes_out = money::sub(self.banknotes_out, signed)?;
            } else {
                self.change_given = money::sub(self.change_given, signed)?;
            }
        }
        Ok(())
    }

    pub fn of(documents: &[TillDocument]) -> Result<Takings, Overflow> {
        let mut takings = Takings::default();
        for document in documents {
            takings.add(document)?;
        }
        Ok(takings)
    }

    /// What the documents moved the drawer by: banknotes in, less banknotes out and change.
    pub fn in_drawer(&self) -> Result<Decimal, Overflow> {
        money::sub(money::sub(self.banknotes_in, self.banknotes_out)?, self.change_given)
    }

    /// Sales less refunds, by payment method, banknotes included.
    pub fn by_method(&self) -> Result<BTreeMap<String, Decimal>, Overflow> {
        let mut net = self.sales.clone();
        for (method, amount) in &self.refunds {
            add_to(&mut net, method, *amount)?;
        }
        Ok(net)
    }

    /// Every payment method but banknotes, sales less refunds: money the drawer does not hold.
    pub fn not_in_drawer(&self) -> Result<BTreeMap<String, Decimal>, Overflow> {
        let mut net = self.by_method()?;
        net.remove(BANKNOTE);
        Ok(net)
    }
}

/// What the drawer should hold: what the last count left in it (`left_at_count`, 0 before the
/// first), the cash actions registered since, and the banknotes of the documents since.
pub fn expected(
    left_at_count: Decimal,
    movements: &[Movement],
    takings: &Takings,
) -> Result<Decimal, Overflow> {
    let moved = cash_register::balance(movements, &[])?;
    checked_sum([left_at_count, moved, takings.in_drawer()?])
}

/// What a count left in the drawer: the counted cash less what the close took out.
pub fn left_at_count(counted: Decimal, withdrawn: Decimal) -> Result<Decimal, Overflow> {
    money::sub(counted, withdrawn)
}

/// The day's movements, by purpose, its cash sales (the spec's balance counts them in full) and
/// what its documents took, by payment method and in the drawer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DayFigures {
    pub opening: Decimal,
    pub cash_sales: Decimal,
    pub deposits: Decimal,
    pub withdrawals: Decimal,
    pub takings: Takings,
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

    /// What the day itself moved the drawer by: its opening, deposits, withdrawals and the
    /// banknotes of its documents.
    pub fn in_drawer(&self) -> Result<Decimal, Overflow> {
        let cash = money::sub(checked_sum([self.opening, self.deposits])?, self.withdrawals)?;
        money::add(cash, self.takings.in_drawer()?)
    }

    /// What the day moved the spec's balance by: its actions and its cash sales in full.
    pub fn in_balance(&self) -> Result<Decimal, Overflow> {
        money::sub(checked_sum([self.opening, self.cash_sales, self.deposits])?, self.withdrawals)
    }
}

/// The closing of a day, in the summary's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closing {
    /// What the drawer held before the day's own moves: what the last count left in it, and
    /// the cash actions made while no day was open.
    pub carried_over: Decimal,
    /// What the drawer should hold (`drawer::expected`).
    pub expected: Decimal,
    pub counted: Decimal,
    /// counted - expected: negative when cash is missing. Booked once, on this day: the next
    /// day starts from what was counted.
    pub difference: Decimal,
    /// What leaves the drawer with the close (registered as a WITHDRAW when above 0).
    pub withdraw: Decimal,
    /// The spec's balance at the close (card sales included).
    pub balance: Decimal,
    /// The spec's balance once the closing withdrawal is registered.
    pub balance_after: Decimal,
    /// What the count leaves in the drawer for the next day: counted - withdraw.
    pub left_in_drawer: Decimal,
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

/// Closes a day whose drawer should hold `expected` while the TCR's spec balance is `balance`.
/// `counted` defaults to what the drawer should hold; `withdraw` defaults to everything
/// counted, up to the balance (the register cannot go below zero), so a day normally ends
/// with an empty drawer and the next one opens with its float.
pub fn close(
    figures: &DayFigures,
    (expected, balance): (Decimal, Decimal),
    counted: Option<Decimal>,
    withdraw: Option<Decimal>,
) -> Result<Closing, CloseError> {
    let mut errors = FieldErrors::new();
    let counted = match counted {
        None => expected.max(Decimal::ZERO),
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
    Ok(Closing {
        carried_over: money::sub(expected, figures.in_drawer()?)?,
        expected,
        counted,
        difference: money::sub(counted, expected)?,
        withdraw,
        balance,
        balance_after: money::sub(balance, withdraw)?,
        left_in_drawer: money::sub(counted, withdraw)?,
    })
}

/// A day's drawer, move by move: what it started with, the day's own moves, and what it should
/// hold (`expected`), apart from card and every other method. `carried_over` is what the last
/// count left in it and the actions made while no day was open. Serialized as the API shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Drawer {
    pub carried_over: Decimal,
    pub opening: Decimal,
    pub banknotes_in: Decimal,
    pub banknotes_out: Decimal,
    pub change_given: Decimal,
    pub deposits: Decimal,
    pub withdrawals: Decimal,
    pub expected: Decimal,
}

impl Drawer {
    /// The drawer of a day with `figures` that should hold `expected`.
    pub fn of(figures: &DayFigures, expected: Decimal) -> Result<Drawer, Overflow> {
        Ok(Drawer {
            carried_over: money::sub(expected, figures.in_drawer()?)?,
            opening: figures.opening,
            banknotes_in: figures.takings.banknotes_in,
            banknotes_out: figures.takings.banknotes_out,
            change_given: figures.takings.change_given,
            deposits: figures.deposits,
            withdrawals: figures.withdrawals,
            expected,
        })
    }
}

/// A count by lek notes and coins: pieces by denomination (an absent one is none).
pub type Count = BTreeMap<u32, u64>;

/// Reads a count as sent (`{"5000": 2, "100": 3}`): each key a lek note or coin, each value a
/// whole number of pieces from 0 to `MAX_PIECES`; a refusal names `field.<key>`.
pub fn read_count(field: &str, sent: &BTreeMap<String, serde_json::Value>) -> Result<Count, FieldErrors> {
    let mut errors = FieldErrors::new();
    let mut count = Count::new();
    for (key, pieces) in sent {
        let name = format!("{field}.{key}");
        let denomination = key.trim().parse::<u32>().ok().filter(|d| NOTES.contains(d) || COINS.contains(d));
        let Some(denomination) = denomination else {
            errors.add(
                &name,
                format!(
                    "The {name} is not a lek note or coin: send pieces of {}.",
                    NOTES.iter().chain(COINS.iter()).map(u32::to_string).collect::<Vec<_>>().join(", ")
                ),
            );
            continue;
        };
        match pieces.as_u64().filter(|p| *p <= MAX_PIECES) {
            Some(p) => {
                count.insert(denomination, p);
            }
            None => errors.add(&name, format!("The {name} must be a whole number from 0 to {MAX_PIECES}.")),
        }
    }
    errors.into_result()?;
    Ok(count)
}

/// What a count adds up to, in lek.
pub fn count_total(count: &Count) -> Decimal {
    count.iter().map(|(denomination, pieces)| Decimal::from(*denomination) * Decimal::from(*pieces)).sum()
}

/// The counted cash of a close: `counted` as sent, or what the count adds up to; both sent must
/// agree (422 `counted`), and a total beyond `MAX_AMOUNT` is refused on `count_field`.
pub fn counted_cash(
    counted: Option<Decimal>,
    count: Option<&Count>,
    count_field: &str,
) -> Result<Option<Decimal>, FieldErrors> {
    let Some(count) = count else { return Ok(counted) };
    let total = count_total(count);
    let mut errors = FieldErrors::new();
    if money::within(&mut errors, count_field, total, MAX_AMOUNT) {
        match counted {
            Some(sent) if sent != total => errors.add(
                "counted",
                format!("The counted cash ({sent}) is not what the notes and coins add up to ({total})."),
            ),
            _ => {}
        }
    }
    errors.into_result()?;
    Ok(Some(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn document(corrective: bool, self_issued: bool, payments: &[(&str, &str)]) -> TillDocument {
        TillDocument {
            corrective,
            self_issued,
            foreign: false,
            exchange_rate: Decimal::ONE,
            payments: payments.iter().map(|(m, a)| (m.to_string(), d(a))).collect(),
        }
    }

    fn sale(payments: &[(&str, &str)]) -> TillDocument {
        document(false, false, payments)
    }

    #[test]
    fn card_sales_are_named_apart_and_never_expected_in_the_drawer() {
        // The day: a float of 4919.50, sales of 240 and 350 in banknotes, 480 by card.
        // | figure                 | drawer   | spec balance |
        // | opening                | 4919.50  | 4919.50      |
        // | 240 + 350 banknotes    | +590.00  | +590.00      |
        // | 480 card               |          | +480.00      |
        // | expected / balance     | 5509.50  | 5989.50      |
        let takings = Takings::of(&[
            sale(&[("BANKNOTE", "240")]),
            sale(&[("BANKNOTE", "350")]),
            sale(&[("CARD", "480")]),
        ])
        .unwrap();
        assert_eq!(
            (takings.banknotes_in, takings.banknotes_out, takings.change_given),
            (d("590"), d("0"), d("0"))
        );
        assert_eq!(takings.not_in_drawer().unwrap(), BTreeMap::from([("CARD".to_string(), d("480"))]));
        let opening = [Movement { action_type: ActionType::Initial, amount: d("4919.50") }];
        assert_eq!(expected(d("0"), &opening, &takings), Ok(d("5509.50")));
        let cash_invoices = [d("240"), d("350"), d("480")]
            .map(|gross_all| cash_register::CashSale { gross_all, self_issued: false });
        assert_eq!(cash_register::balance(&opening, &cash_invoices), Ok(d("5989.50")));
    }

    #[test]
    fn banknotes_go_in_with_a_sale_and_out_with_a_refund_change_or_a_self_invoice() {
        let table: [(&str, TillDocument, [&str; 3]); 7] = [
            //  what                              | document                                           | in, out, change
            ("a sale in banknotes", sale(&[("BANKNOTE", "285")]), ["285", "0", "0"]),
            ("cash back on a card", sale(&[("CARD", "500"), ("BANKNOTE", "-260")]), ["0", "0", "260"]),
            ("split banknotes and card", sale(&[("BANKNOTE", "20"), ("CARD", "30")]), ["20", "0", "0"]),
            ("the water given back", document(true, false, &[("BANKNOTE", "-45")]), ["0", "45", "0"]),
            ("a refund to a card", document(true, false, &[("CARD", "-85")]), ["0", "0", "0"]),
            ("a seller paid in banknotes", document(false, true, &[("BANKNOTE", "500")]), ["0", "500", "0"]),
            ("that self-invoice cancelled", document(true, true, &[("BANKNOTE", "-500")]), ["500", "0", "0"]),
        ];
        for (what, document, [banknotes_in, banknotes_out, change]) in table {
            let takings = Takings::of(std::slice::from_ref(&document)).unwrap();
            assert_eq!(
                (takings.banknotes_in, takings.banknotes_out, takings.change_given),
                (d(banknotes_in), d(banknotes_out), d(change)),
                "{what}"
            );
            assert_eq!(
                takings.in_drawer().unwrap(),
                d(banknotes_in) - d(banknotes_out) - d(change),
                "{what}"
            );
        }
    }

    #[test]
    fn refunds_are_kept_apart_from_sales_and_netted_by_method() {
        let takings = Takings::of(&[
            sale(&[("BANKNOTE", "200"), ("CARD", "85")]),
            document(true, false, &[("BANKNOTE", "-45")]),
            document(true, false, &[("CARD", "-85")]),
            sale(&[("CHECK", "1000")]),
        ])
        .unwrap();
        assert_eq!(takings.sales["CARD"], d("85"));
        assert_eq!(takings.refunds["CARD"], d("-85"));
        let net = takings.by_method().unwrap();
        assert_eq!(net.keys().collect::<Vec<_>>(), ["BANKNOTE", "CARD", "CHECK"]);
        assert_eq!((net["BANKNOTE"], net["CARD"], net["CHECK"]), (d("155"), d("0"), d("1000")));
        assert!(!takings.not_in_drawer().unwrap().contains_key(BANKNOTE));
    }

    #[test]
    fn a_foreign_currency_payment_is_in_lek_as_the_cis_registers_it() {
        // 10.01 EUR at 97.555: 976.52555 -> 976.53 lek.
        let euros =
            TillDocument { foreign: true, exchange_rate: d("97.555"), ..sale(&[("BANKNOTE", "10.01")]) };
        assert_eq!(Takings::of(&[euros]).unwrap().banknotes_in, d("976.53"));
    }

    #[test]
    fn the_next_day_starts_from_what_was_counted() {
        // Day 1 expected 1000 and was counted at 962.50 (-37.50); the close took out 900.
        // | left at the count | day 2 opening | day 2 sales | expected on day 2 |
        // | 62.50             | 0             | 100         | 162.50            |
        let left = left_at_count(d("962.50"), d("900")).unwrap();
        let day_two = [Movement { action_type: ActionType::Initial, amount: d("0") }];
        let sales = Takings::of(&[sale(&[("BANKNOTE", "100")])]).unwrap();
        assert_eq!(expected(left, &day_two, &sales), Ok(d("162.50")));
        // A withdrawal and a deposit since the count move it too.
        let moved = [
            Movement { action_type: ActionType::MoneyOut, amount: d("50") },
            Movement { action_type: ActionType::MoneyIn, amount: d("10") },
        ];
        assert_eq!(expected(left, &moved, &Takings::default()), Ok(d("22.50")));
    }

    #[test]
    fn sums_beyond_a_decimal_are_an_overflow() {
        let huge = sale(&[("BANKNOTE", &Decimal::MAX.to_string())]);
        assert_eq!(Takings::of(&[huge.clone(), huge]), Err(Overflow));
        let all = Takings { banknotes_in: Decimal::MAX, ..Takings::default() };
        assert_eq!(expected(Decimal::MAX, &[], &all), Err(Overflow));
    }

    #[test]
    fn a_count_by_notes_and_coins_adds_up_and_refuses_what_is_not_lek() {
        let sent = |pairs: &[(&str, serde_json::Value)]| -> BTreeMap<String, serde_json::Value> {
            pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
        };
        // | pieces                                   | total   |
        // | 1 x 5000, 2 x 200, 3 x 50, 4 x 1         | 5554    |
        let count = read_count(
            "count",
            &sent(&[
                ("5000", 1.into()),
                ("200", 2.into()),
                ("50", 3.into()),
                ("1", 4.into()),
                ("10", 0.into()),
            ]),
        )
        .unwrap();
        assert_eq!(count_total(&count), d("5554"));
        let keys = |e: FieldErrors| e.into_map().into_keys().collect::<Vec<_>>();
        for (key, pieces) in [
            ("3", serde_json::json!(1)),
            ("10000", 1.into()),
            ("five", 1.into()),
            ("100", serde_json::json!(-1)),
        ] {
            let refused = read_count("count", &sent(&[(key, pieces)])).unwrap_err();
            assert_eq!(keys(refused), [format!("count.{key}")]);
        }
        let refused = read_count("count", &sent(&[("100", serde_json::json!(1.5))])).unwrap_err();
        assert_eq!(keys(refused), ["count.100"]);
        let refused = read_count("count", &sent(&[("100", (MAX_PIECES + 1).into())])).unwrap_err();
        assert_eq!(keys(refused), ["count.100"]);
        // The counted cash is the count's, and both sent must agree.
        assert_eq!(counted_cash(None, Some(&count), "count"), Ok(Some(d("5554"))));
        assert_eq!(counted_cash(Some(d("5554.00")), Some(&count), "count"), Ok(Some(d("5554"))));
        assert_eq!(keys(counted_cash(Some(d("5550")), Some(&count), "count").unwrap_err()), ["counted"]);
        assert_eq!(counted_cash(Some(d("12.50")), None, "count"), Ok(Some(d("12.50"))));
    }

    #[test]
    fn closing_counts_the_drawer_and_takes_out_what_was_counted() {
        let mut figures = DayFigures::default();
        figures.add(Purpose::Open, ActionType::Initial, d("0")).unwrap();
        figures.add(Purpose::Open, ActionType::MoneyIn, d("500")).unwrap();
        figures.add(Purpose::Deposit, ActionType::MoneyIn, d("200")).unwrap();
        figures.add(Purpose::Withdraw, ActionType::MoneyOut, d("100")).unwrap();
        figures.cash_sales = d("570");
        figures.takings.banknotes_in = d("570");
        assert_eq!(figures.opening, d("500"));
        // 500 + 570 + 200 - 100 = 1170 on a drawer that started empty.
        let exact = close(&figures, (d("1170"), d("1170")), None, None).unwrap();
        assert_eq!(
            exact,
            Closing {
                carried_over: d("0"),
                expected: d("1170"),
                counted: d("1170"),
                difference: d("0"),
                withdraw: d("1170"),
                balance: d("1170"),
                balance_after: d("0"),
                left_in_drawer: d("0"),
            }
        );
        let short = close(&figures, (d("1170"), d("1170")), Some(d("1160")), Some(d("1000"))).unwrap();
        assert_eq!(
            (short.difference, short.withdraw, short.balance_after, short.left_in_drawer),
            (d("-10"), d("1000"), d("170"), d("160"))
        );
        let surplus = close(&figures, (d("1180"), d("1180")), Some(d("1200")), None).unwrap();
        assert_eq!(
            (surplus.carried_over, surplus.difference, surplus.withdraw, surplus.left_in_drawer),
            (d("10"), d("20"), d("1180"), d("20"))
        );
        let keys = |e: CloseError| match e {
            CloseError::Invalid(fields) => fields.into_map().into_keys().collect::<Vec<_>>(),
            CloseError::Overflow(_) => panic!("not an overflow"),
        };
        let too_much = close(&figures, (d("1170"), d("1170")), Some(d("100")), Some(d("200"))).unwrap_err();
        assert_eq!(keys(too_much), ["withdraw"]);
        assert!(close(&figures, (d("1170"), d("1170")), Some(d("-1")), None).is_err());
        let huge =
            close(&figures, (d("1170"), d("1170")), Some(d("9223372036854775807")), Some(d("1000000000000")))
                .unwrap_err();
        assert_eq!(keys(huge), ["counted", "withdraw"]);
    }

    #[test]
    fn a_card_sale_is_in_the_balance_but_not_expected_in_the_drawer() {
        // | figure           | drawer  | balance |
        // | opening          | 4919.50 | 4919.50 |
        // | banknote sales   | 590.00  | 590.00  |
        // | card sale        |         | 480.00  |
        // An honest count of 5509.50 is no difference; the close takes it all out and the
        // balance keeps the card's 480, which no drawer holds.
        let mut figures = DayFigures::default();
        figures.add(Purpose::Open, ActionType::Initial, d("4919.50")).unwrap();
        figures.cash_sales = d("1070");
        figures.takings.banknotes_in = d("590");
        assert_eq!(figures.in_drawer(), Ok(d("5509.50")));
        assert_eq!(figures.in_balance(), Ok(d("5989.50")));
        let closed = close(&figures, (d("5509.50"), d("5989.50")), Some(d("5509.50")), None).unwrap();
        assert_eq!(
            (closed.difference, closed.withdraw, closed.balance_after, closed.left_in_drawer),
            (d("0"), d("5509.50"), d("480"), d("0"))
        );
        // Counted 37.50 short: the difference is this day's, and the drawer the next day
        // starts from what was counted and left.
        let short = close(&figures, (d("5509.50"), d("5989.50")), Some(d("5472")), Some(d("5000"))).unwrap();
        assert_eq!((short.difference, short.left_in_drawer), (d("-37.50"), d("472")));
    }

    #[test]
    fn a_close_beyond_a_decimal_is_an_error_not_a_panic() {
        let mut figures = DayFigures::default();
        figures.add(Purpose::Deposit, ActionType::MoneyIn, Decimal::MAX).unwrap();
        assert_eq!(figures.add(Purpose::Deposit, ActionType::MoneyIn, Decimal::MAX), Err(Overflow));
        figures.takings.banknotes_in = Decimal::MAX;
        assert_eq!(close(&figures, (d("0"), d("0")), None, None), Err(CloseError::Overflow(Overflow)));
    }
}
