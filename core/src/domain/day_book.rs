//! A till's day as its X and Z reports read it to an owner and an inspector: the receipts and
//! their count, who issued them, the sales by payment method, VAT by rate, the cancellations
//! with their corrective documents, and what the documents took in the drawer. Pure: amounts
//! in lek.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::drawer::{Takings, TillDocument};
use super::money::{self, Overflow};
use super::report::ClassFigures;

/// One cash document linked to the day.
#[derive(Debug, Clone, PartialEq)]
pub struct DayDocument {
    pub number: String,
    pub user_id: Option<i64>,
    pub operator_code: Option<String>,
    /// Not registered with the CIS yet.
    pub waiting: bool,
    /// A corrective document: the number of the invoice it cancels (in whole or in part).
    pub corrects: Option<String>,
    pub paid: TillDocument,
    /// With VAT, in lek (negative on a corrective document).
    pub gross: Decimal,
    /// Its lines by VAT rate or exemption, in lek.
    pub classes: Vec<ClassFigures>,
}

/// The lines of one VAT rate or exemption, sales less cancellations. Kept with a closed day
/// (amounts as exact text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VatLine {
    #[serde(with = "rust_decimal::serde::str")]
    pub vat_rate: Decimal,
    pub exemption: Option<String>,
    #[serde(with = "rust_decimal::serde::str")]
    pub net: Decimal,
    #[serde(with = "rust_decimal::serde::str")]
    pub vat: Decimal,
    #[serde(with = "rust_decimal::serde::str")]
    pub gross: Decimal,
}

/// A corrective document of the day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cancellation {
    pub number: String,
    pub corrects: Option<String>,
    #[serde(with = "rust_decimal::serde::str")]
    pub gross: Decimal,
}

/// The day's documents, summed: computed from them while the day is open, kept with it once it
/// is closed (its documents never change, and a report of 500 days then reads 500 rows).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DayBook {
    /// Sales (every document but the corrective ones), in the order they were issued.
    pub receipts: u64,
    pub first_receipt: Option<String>,
    pub last_receipt: Option<String>,
    /// Documents of the day still waiting for the CIS, corrective ones included (at the close,
    /// once it is closed).
    pub waiting: u64,
    /// The sales' gross.
    #[serde(with = "rust_decimal::serde::str")]
    pub sales_gross: Decimal,
    /// Highest rate first, then the exemptions by name.
    pub vat: Vec<VatLine>,
    pub cancellations: Vec<Cancellation>,
    #[serde(with = "rust_decimal::serde::str")]
    pub cancelled_gross: Decimal,
    pub takings: Takings,
    /// Who issued the documents or made the actions of the day.
    pub people: Vec<Person>,
}

/// A person a day's report names: a user of the company (name and operator code as they were
/// when the day was summed), or only the operator code a document carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    pub id_user: Option<i64>,
    pub name: Option<String>,
    pub operator_code: Option<String>,
}

/// Who issued `documents` and made actions as `action_users`, each once, documents' first,
/// named from `users` (id: name, operator code).
pub fn people_of(
    documents: &[DayDocument],
    action_users: &[i64],
    users: &std::collections::HashMap<i64, (String, Option<String>)>,
) -> Vec<Person> {
    let mut people: Vec<Person> = Vec::new();
    let named = documents
        .iter()
        .map(|d| (d.user_id, d.operator_code.clone()))
        .chain(action_users.iter().map(|u| (Some(*u), None)));
    for (user, operator_code) in named {
        let seen = people.iter().any(|p| match user {
            Some(_) => p.id_user == user,
            None => p.id_user.is_none() && p.operator_code == operator_code,
        });
        if seen {
            continue;
        }
        let known = user.and_then(|u| users.get(&u));
        people.push(Person {
            id_user: user,
            name: known.map(|(name, _)| name.clone()),
            operator_code: known.and_then(|(_, code)| code.clone()).or(operator_code),
        });
    }
    people
}

/// Sums the day's documents, given in the order they were issued; `people` made them and its
/// actions (`people_of`).
pub fn summarize(documents: &[DayDocument], people: Vec<Person>) -> Result<DayBook, Overflow> {
    let mut book = DayBook { people, ..DayBook::default() };
    let mut vat: BTreeMap<(bool, Decimal, Option<String>), VatLine> = BTreeMap::new();
    for document in documents {
        book.waiting += u64::from(document.waiting);
        book.takings.add(&document.paid)?;
        match &document.corrects {
            None if !document.paid.corrective => {
                book.receipts += 1;
                book.first_receipt.get_or_insert_with(|| document.number.clone());
                book.last_receipt = Some(document.number.clone());
                book.sales_gross = money::add(book.sales_gross, document.gross)?;
            }
            corrects => {
                book.cancelled_gross = money::add(book.cancelled_gross, document.gross)?;
                book.cancellations.push(Cancellation {
                    number: document.number.clone(),
                    corrects: corrects.clone(),
                    gross: document.gross,
                });
            }
        }
        for class in &document.classes {
            // Keyed so that the highest rate comes first and the exemptions after the rates.
            let key = (class.exemption.is_some(), -class.vat_rate, class.exemption.clone());
            let line = vat.entry(key).or_insert_with(|| VatLine {
                vat_rate: class.vat_rate,
                exemption: class.exemption.clone(),
                net: Decimal::ZERO,
                vat: Decimal::ZERO,
                gross: Decimal::ZERO,
            });
            line.net = money::add(line.net, class.amounts.net)?;
            line.vat = money::add(line.vat, class.amounts.vat)?;
            line.gross = money::add(line.gross, class.amounts.gross)?;
        }
    }
    book.vat = vat.into_values().collect();
    Ok(book)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::report::Amounts;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn class(rate: &str, exemption: Option<&str>, net: &str, vat: &str) -> ClassFigures {
        ClassFigures {
            vat_rate: d(rate),
            exemption: exemption.map(str::to_string),
            lines: 1,
            amounts: Amounts { net: d(net), vat: d(vat), gross: d(net) + d(vat) },
        }
    }

    fn document(number: &str, user: i64, corrects: Option<&str>, payments: &[(&str, &str)]) -> DayDocument {
        let paid = TillDocument {
            corrective: corrects.is_some(),
            self_issued: false,
            foreign: false,
            exchange_rate: Decimal::ONE,
            payments: payments.iter().map(|(m, a)| (m.to_string(), d(a))).collect(),
        };
        DayDocument {
            number: number.to_string(),
            user_id: Some(user),
            operator_code: Some(format!("op{user}")),
            waiting: false,
            corrects: corrects.map(str::to_string),
            gross: paid.payments.iter().map(|(_, a)| *a).sum(),
            paid,
            classes: Vec::new(),
        }
    }

    #[test]
    fn a_day_of_receipts_card_sales_and_a_cancellation() {
        // | number | cashier | paid                 | VAT classes            |
        // | 1/2026 | 7       | 240 banknotes        | 20 %: 200 + 40         |
        // | 2/2026 | 7       | 350 banknotes        | 20 %: 291.67 + 58.33   |
        // | 3/2026 | 8       | 480 card             | 6 %: 452.83 + 27.17    |
        // | 4/2026 | 8       | -45 banknotes (of 2) | 6 %: -42.45 - 2.55     |
        let mut sales = vec![
            document("1/2026", 7, None, &[("BANKNOTE", "240")]),
            document("2/2026", 7, None, &[("BANKNOTE", "350")]),
            document("3/2026", 8, None, &[("CARD", "480")]),
            document("4/2026", 8, Some("2/2026"), &[("BANKNOTE", "-45")]),
        ];
        sales[0].classes = vec![class("20", None, "200", "40")];
        sales[1].classes = vec![class("20", None, "291.67", "58.33")];
        sales[2].classes = vec![class("6", None, "452.83", "27.17")];
        sales[3].classes = vec![class("6", None, "-42.45", "-2.55")];
        sales[3].waiting = true;
        let book = summarize(&sales, Vec::new()).unwrap();
        assert_eq!(book.receipts, 3);
        assert_eq!(
            (book.first_receipt.as_deref(), book.last_receipt.as_deref()),
            (Some("1/2026"), Some("3/2026"))
        );
        assert_eq!(book.waiting, 1);
        assert_eq!(book.sales_gross, d("1070"));
        assert_eq!(
            book.cancellations,
            [Cancellation { number: "4/2026".into(), corrects: Some("2/2026".into()), gross: d("-45") }]
        );
        assert_eq!(book.cancelled_gross, d("-45"));
        assert_eq!(
            book.takings.sales,
            BTreeMap::from([("BANKNOTE".into(), d("590")), ("CARD".into(), d("480"))])
        );
        assert_eq!(book.takings.in_drawer(), Ok(d("545")));
        assert_eq!(
            book.vat,
            [
                VatLine {
                    vat_rate: d("20"),
                    exemption: None,
                    net: d("491.67"),
                    vat: d("98.33"),
                    gross: d("590")
                },
                VatLine {
                    vat_rate: d("6"),
                    exemption: None,
                    net: d("410.38"),
                    vat: d("24.62"),
                    gross: d("435")
                },
            ]
        );
    }

    #[test]
    fn exempt_lines_come_after_the_rates() {
        let mut one = document("1/2026", 1, None, &[("BANKNOTE", "100")]);
        one.classes = vec![
            class("0", Some("TYPE_1"), "50", "0"),
            class("0", None, "10", "0"),
            class("6", None, "40", "0"),
        ];
        let book = summarize(&[one], Vec::new()).unwrap();
        let order: Vec<(Decimal, Option<&str>)> =
            book.vat.iter().map(|l| (l.vat_rate, l.exemption.as_deref())).collect();
        assert_eq!(order, [(d("6"), None), (d("0"), None), (d("0"), Some("TYPE_1"))]);
    }

    #[test]
    fn an_empty_day_is_all_zero() {
        assert_eq!(summarize(&[], Vec::new()).unwrap(), DayBook::default());
    }

    #[test]
    fn who_made_the_day_is_named_once_documents_first() {
        let users = std::collections::HashMap::from([
            (7, ("Besa Kola".to_string(), Some("bk123bk123".to_string()))),
            (9, ("Drita Leka".to_string(), None)),
        ]);
        let mut unknown = document("3/2026", 0, None, &[("BANKNOTE", "1")]);
        unknown.user_id = None;
        unknown.operator_code = Some("old12old12".into());
        let documents = [
            document("1/2026", 7, None, &[("BANKNOTE", "1")]),
            document("2/2026", 7, None, &[("BANKNOTE", "1")]),
            unknown.clone(),
            unknown,
        ];
        // | who          | from                         |
        // | Besa Kola    | her documents (user 7)       |
        // | old12old12   | a document of no known user  |
        // | Drita Leka   | an action (user 9)           |
        let people = people_of(&documents, &[9, 7], &users);
        let named: Vec<(Option<i64>, Option<&str>, Option<&str>)> =
            people.iter().map(|p| (p.id_user, p.name.as_deref(), p.operator_code.as_deref())).collect();
        assert_eq!(
            named,
            [
                (Some(7), Some("Besa Kola"), Some("bk123bk123")),
                (None, None, Some("old12old12")),
                (Some(9), Some("Drita Leka"), None),
            ]
        );
    }

    #[test]
    fn a_kept_day_reads_back_to_the_cent() {
        let mut sale = document("1/2026", 7, None, &[("BANKNOTE", "0.10"), ("CARD", "1234567890123.45")]);
        sale.classes = vec![class("20", None, "0.07", "0.03")];
        sale.gross = d("1234567890123.55");
        let book =
            summarize(&[sale], vec![Person { id_user: Some(7), name: None, operator_code: None }]).unwrap();
        let text = serde_json::to_string(&book).unwrap();
        assert!(text.contains("\"1234567890123.45\""), "amounts kept as exact text: {text}");
        assert_eq!(serde_json::from_str::<DayBook>(&text).unwrap(), book);
    }
}
