//! The reports' pure summing: rows in, a report's shape out. The shop sums its SQLite totals
//! with these, the head office every shop's PostgreSQL totals, so both answer the same figures.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::model::*;
use super::rows::{
    ClientRow, DayRow, MovementRow, PaymentRow, ProductRow, SalesRow, SalesSums, VatRow, WaitingRow,
};
use crate::domain::cash_register::Purpose;
use crate::domain::drawer::{DayFigures, Drawer};
use crate::domain::money::{self, Overflow};
use crate::domain::report::{self, Period, ReportKind};
use crate::domain::time::{local_text, parse_stored};

/// The sales summary of a period from its sums: the shop's over its SQLite totals, the head
/// office's over every shop's (hq/src/store/reports.rs), one shape for both.
pub fn summarize_sales(
    period: Period,
    by_currency: &[SalesRow],
    payments: &[PaymentRow],
    waiting: &[WaitingRow],
    open: i64,
) -> SalesSummary {
    let waiting_of = |kind: ReportKind| waiting.iter().filter(|w| w.kind == kind).count() as i64;
    let by_kind = ReportKind::SALES
        .into_iter()
        .map(|kind| {
            let mut sums = SalesSums::default();
            by_currency.iter().filter(|r| r.kind == kind).for_each(|r| sums.add(&r.sums));
            KindLine {
                kind: kind.as_str(),
                documents: sums.documents,
                waiting: waiting_of(kind),
                net: sums.net,
                vat: sums.vat,
                gross: sums.gross,
                discount: sums.discount,
                fee: sums.fee,
            }
        })
        .collect::<Vec<_>>();
    let mut by_payment: Vec<PaymentLine> = Vec::new();
    for row in payments.iter().filter(|p| p.kind.in_sales()) {
        match by_payment.iter_mut().find(|p| p.payment_method == row.payment_method) {
            Some(line) => {
                line.documents += row.documents;
                line.amount += row.amount;
            }
            None => by_payment.push(PaymentLine {
                payment_method: row.payment_method.clone(),
                documents: row.documents,
                amount: row.amount,
            }),
        }
    }
    let mut currencies: BTreeMap<String, CurrencyLine> = BTreeMap::new();
    for row in by_currency.iter().filter(|r| r.kind.in_sales() && r.key != "ALL") {
        let line = currencies.entry(row.key.clone()).or_insert_with(|| CurrencyLine {
            currency: row.key.clone(),
            documents: 0,
            waiting: waiting.iter().filter(|w| w.kind.in_sales() && w.currency == row.key).count() as i64,
            net: Decimal::ZERO,
            vat: Decimal::ZERO,
            gross: Decimal::ZERO,
            net_all: Decimal::ZERO,
            vat_all: Decimal::ZERO,
            gross_all: Decimal::ZERO,
        });
        line.documents += row.sums.documents;
        line.net += row.sums.net_currency;
        line.vat += row.sums.vat_currency;
        line.gross += row.sums.gross_currency;
        line.net_all += row.sums.net;
        line.vat_all += row.sums.vat;
        line.gross_all += row.sums.gross;
    }
    let mut orders = Orders { open, waiting: waiting_of(ReportKind::Order), ..Orders::default() };
    for row in by_currency {
        match row.kind {
            ReportKind::Order => {
                orders.documents += row.sums.documents;
                orders.gross += row.sums.gross;
            }
            ReportKind::OrderCorrective => {
                orders.cancelled += row.sums.documents;
                orders.cancelled_gross += row.sums.gross;
            }
            _ => {}
        }
    }
    SalesSummary {
        period: period.into(),
        currency: "ALL",
        totals: Sales::of(by_currency, count_waiting(waiting)),
        discount: by_kind.iter().map(|k| k.discount).sum(),
        fee: by_kind.iter().map(|k| k.fee).sum(),
        by_kind,
        by_payment,
        by_currency: currencies.into_values().collect(),
        orders,
    }
}

/// The VAT report of `rows` (a page of the sales book with it when `book` holds one: its
/// entries, limit and offset). The shop's and the head office's alike.
pub fn vat_of(
    period: Period,
    rows: &[VatRow],
    waiting: &[WaitingRow],
    book: Option<(Vec<BookEntry>, i64, i64)>,
) -> VatReport {
    let mut rates: Vec<VatLine> = Vec::new();
    for row in rows.iter().filter(|r| r.kind.in_sales()) {
        let position = rates.iter().position(|l| l.vat_rate == row.vat_rate && l.exemption == row.exemption);
        let line = match position {
            Some(i) => &mut rates[i],
            None => {
                rates.push(VatLine {
                    vat_rate: row.vat_rate,
                    exemption: row.exemption.clone(),
                    documents: 0,
                    amounts: VatAmounts::default(),
                });
                let last = rates.len() - 1;
                &mut rates[last]
            }
        };
        line.documents += row.documents;
        line.amounts.add(row.kind.is_sale(), row.net, row.vat);
    }
    // Highest rate first, then the exemptions by name.
    rates.sort_by(|a, b| {
        (a.exemption.is_some(), b.vat_rate, &a.exemption).cmp(&(
            b.exemption.is_some(),
            a.vat_rate,
            &b.exemption,
        ))
    });
    let mut totals = VatAmounts::default();
    for row in rows.iter().filter(|r| r.kind.in_sales()) {
        totals.add(row.kind.is_sale(), row.net, row.vat);
    }
    let (items, pagination) = match book {
        Some((items, limit, offset)) => {
            let pagination = Pagination { records: items.len(), limit, offset };
            (Some(items), Some(pagination))
        }
        None => (None, None),
    };
    VatReport {
        period: period.into(),
        currency: "ALL",
        rates,
        totals,
        waiting: count_waiting(waiting),
        items,
        pagination,
    }
}

/// The daily trend of `rows` (sales by day) over every day of `period` (already checked).
pub fn trend_of(period: Period, rows: &[SalesRow], waiting: &[WaitingRow]) -> DailyTrend {
    let mut found: Vec<(NaiveDate, Sales)> = Vec::new();
    for day in rows.iter().map(|r| r.key.clone()).collect::<std::collections::BTreeSet<_>>() {
        let Ok(date) = day.parse::<NaiveDate>() else { continue };
        let waiting = count_waiting(waiting.iter().filter(|w| w.day == day));
        found.push((date, Sales::of(rows.iter().filter(|r| r.key == day), waiting)));
    }
    let items = report::every_day(period, &found, &Sales::default())
        .into_iter()
        .map(|(date, sales)| TrendDay { date, sales })
        .collect();
    DailyTrend {
        period: period.into(),
        currency: "ALL",
        totals: Sales::of(rows, count_waiting(waiting)),
        items,
    }
}

/// The top clients: `clients` by gross, the first `limit`; the rest of `sales` (sales by kind)
/// is the anonymous buyers'.
pub fn top_clients_of(
    period: Period,
    mut clients: Vec<ClientRow>,
    sales: &[SalesRow],
    limit: i64,
) -> TopClients {
    let all = Sales::of(sales, 0);
    let totals = BuyerTotals {
        clients: clients.len(),
        documents: clients.iter().map(|c| c.documents).sum(),
        gross: clients.iter().map(|c| c.gross).sum(),
    };
    // Ties broken by name, then by the buyer's key: the same order on every call.
    clients.sort_by(|a, b| {
        b.gross.cmp(&a.gross).then_with(|| a.name.cmp(&b.name)).then_with(|| a.buyer_key.cmp(&b.buyer_key))
    });
    let items = clients.into_iter().take(usize::try_from(limit).unwrap_or(0)).collect();
    TopClients {
        period: period.into(),
        currency: "ALL",
        totals,
        anonymous: Anonymous {
            documents: all.documents + all.reversals - totals.documents,
            gross: all.gross - totals.gross,
        },
        items,
    }
}

/// The top products: `products` by gross, the first `limit`.
pub fn top_products_of(period: Period, mut products: Vec<ProductRow>, limit: i64) -> TopProducts {
    let totals =
        ProductTotals { products: products.len(), gross: products.iter().map(|p| p.net + p.vat).sum() };
    products.sort_by(|a, b| {
        (b.net + b.vat).cmp(&(a.net + a.vat)).then_with(|| a.product_code.cmp(&b.product_code))
    });
    let items = products
        .into_iter()
        .take(usize::try_from(limit).unwrap_or(0))
        .map(|p| ProductLine {
            gross: p.net + p.vat,
            product_code: p.product_code,
            product_name: p.product_name,
            unit: p.unit,
            quantity: p.quantity,
            lines: p.lines,
            net: p.net,
            vat: p.vat,
        })
        .collect();
    TopProducts { period: period.into(), currency: "ALL", totals, items }
}

/// Sales by operator (`rows` by operator and user), named from `users` (id: name, operator code).
pub fn by_operator_of(
    period: Period,
    rows: &[SalesRow],
    waiting: &[WaitingRow],
    users: &std::collections::HashMap<i64, (String, Option<String>)>,
) -> ByOperator {
    let mut items: Vec<OperatorLine> = Vec::new();
    let mut groups: Vec<(i64, String)> = rows.iter().map(|r| (r.user_id, r.key.clone())).collect();
    groups.dedup();
    for (user_id, operator_code) in groups {
        let sales = Sales::of(rows.iter().filter(|r| r.user_id == user_id && r.key == operator_code), 0);
        if sales.documents == 0 && sales.reversals == 0 {
            continue;
        }
        let user = users.get(&user_id);
        items.push(OperatorLine {
            id_user: user.map(|_| user_id),
            name: user.map(|(name, _)| name.clone()).unwrap_or_else(|| operator_code.clone()),
            operator_code: (!operator_code.is_empty()).then_some(operator_code),
            invoices: sales.documents,
            gross: sales.gross,
        });
    }
    items.sort_by(|a, b| {
        b.gross
            .cmp(&a.gross)
            .then_with(|| a.id_user.cmp(&b.id_user))
            .then_with(|| a.operator_code.cmp(&b.operator_code))
    });
    ByOperator { period: period.into(), items, waiting: count_waiting(waiting) }
}

/// Sales by TCR (`rows` by TCR code), named from `tcrs` (code: device name, branch id).
pub fn by_tcr_of(
    period: Period,
    rows: &[SalesRow],
    waiting: &[WaitingRow],
    tcrs: &std::collections::HashMap<String, (String, i64)>,
) -> ByTcr {
    let mut codes: Vec<String> = rows.iter().map(|r| r.key.clone()).collect();
    codes.dedup();
    let items = codes
        .into_iter()
        .map(|code| {
            let mine = || rows.iter().filter(|r| r.key == code);
            let device = tcrs.get(&code);
            TcrLine {
                sales: Sales::of(mine(), count_waiting(waiting.iter().filter(|w| w.tcr_code == code))),
                cash: mine().map(|r| r.sums.till).sum(),
                name: device.map(|(name, _)| name.clone()),
                branch_id: device.map(|(_, unit)| *unit),
                tcr_code: (!code.is_empty()).then_some(code.clone()),
            }
        })
        .collect();
    ByTcr { period: period.into(), currency: "ALL", totals: Sales::of(rows, count_waiting(waiting)), items }
}

/// The cash register report: each TCR's `movements` and its cash sales (`sales` by TCR).
pub fn cash_register_of(
    period: Period,
    movements: &[MovementRow],
    sales: &[SalesRow],
    tcrs: &std::collections::HashMap<String, (String, i64)>,
) -> CashRegisterReport {
    let mut items: Vec<TillLine> = Vec::new();
    let line = |items: &mut Vec<TillLine>, code: &str| -> usize {
        match items.iter().position(|l| l.tcr_code == code) {
            Some(i) => i,
            None => {
                items.push(TillLine {
                    tcr_code: code.to_string(),
                    name: tcrs.get(code).map(|(name, _)| name.clone()),
                    ..TillLine::default()
                });
                items.len() - 1
            }
        }
    };
    for m in movements {
        let i = line(&mut items, &m.tcr_code);
        let till = &mut items[i];
        till.actions += m.actions;
        till.waiting += m.waiting;
        match (m.action_type.as_str(), m.purpose.as_str()) {
            ("INITIAL", _) => till.initial += m.amount,
            ("MONEY_IN", "open") => till.opening_deposits += m.amount,
            ("MONEY_IN", _) => till.deposits += m.amount,
            ("MONEY_OUT", "close") => till.closing_withdrawals += m.amount,
            _ => till.withdrawals += m.amount,
        }
    }
    for row in sales.iter().filter(|r| !r.key.is_empty() && !r.sums.till.is_zero()) {
        let i = line(&mut items, &row.key);
        items[i].cash_sales += row.sums.till;
    }
    for till in &mut items {
        till.change = till.initial + till.opening_deposits + till.deposits + till.cash_sales
            - till.withdrawals
            - till.closing_withdrawals;
    }
    items.sort_by(|a, b| a.tcr_code.cmp(&b.tcr_code));
    CashRegisterReport { period: period.into(), currency: "ALL", items }
}

/// The X/Z report of `days` (a page of `limit` from `offset`).
pub fn closing_of(
    period: Period,
    days: &[DayRow],
    limit: i64,
    offset: i64,
) -> std::result::Result<ClosingReport, Overflow> {
    let items: Vec<Closing> = days.iter().map(closing).collect::<std::result::Result<_, _>>()?;
    let mut totals = ClosingTotals { days: items.len(), ..ClosingTotals::default() };
    for day in &items {
        match (day.status, day.expected, day.counted, day.difference) {
            ("closed", Some(expected), Some(counted), Some(difference)) => {
                totals.expected += expected;
                totals.counted += counted;
                totals.difference += difference;
            }
            _ => totals.open += 1,
        }
    }
    let pagination = Pagination { records: items.len(), limit, offset };
    Ok(ClosingReport { period: period.into(), currency: "ALL", totals, items, pagination })
}

/// The reversals report: the totals of the corrective documents among `rows` (sales by kind)
/// and `items`, a page of them.
pub fn reversals_of(
    period: Period,
    rows: &[SalesRow],
    waiting: &[WaitingRow],
    items: Vec<ReversalLine>,
) -> Reversals {
    let corrective = |k: ReportKind| matches!(k, ReportKind::Corrective | ReportKind::OrderCorrective);
    let mut totals = ReversalTotals::default();
    for row in rows.iter().filter(|r| corrective(r.kind)) {
        totals.count += row.sums.documents;
        totals.gross += row.sums.gross;
    }
    Reversals {
        period: period.into(),
        totals,
        items,
        waiting: waiting.iter().filter(|w| corrective(w.kind)).count() as i64,
    }
}

/// What a reversal takes back of the period's sales, in lek: a corrective document's gross
impl Reversals {
    /// The report with the period's credit notes (what each takes back) in its totals: the
    /// daily totals the rest is summed from count a credit note as a sale of its kind.
    pub fn with_credit_notes(mut self, taken_back: &[Decimal]) -> Reversals {
        self.totals.count += i64::try_from(taken_back.len()).unwrap_or(i64::MAX);
        self.totals.gross += taken_back.iter().sum::<Decimal>();
        self
    }
}

/// A stored UTC time as the reports show it, in Tirane; text that is no stored time as it is.
pub fn stored_time(text: &str) -> String {
    parse_stored(text).map(local_text).unwrap_or_else(|| text.to_string())
}

/// A day's row of the X/Z report.
fn closing(day: &DayRow) -> std::result::Result<Closing, Overflow> {
    let mut figures = DayFigures { cash_sales: day.cash_sales, ..DayFigures::default() };
    let mut withdrawn = Decimal::ZERO;
    for (purpose, action_type, amount) in &day.actions {
        figures.add(*purpose, *action_type, *amount)?;
        if *purpose == Purpose::Close {
            withdrawn = money::add(withdrawn, *amount)?;
        }
    }
    let book = &day.book;
    figures.takings = book.takings.clone();
    let closed = day.closed_at.is_some();
    // A day closed before Arka counted the drawer was counted against the spec's balance.
    let against_balance = closed && day.balance.is_none();
    let expected = if closed { day.expected } else { day.expected_now };
    let drawer = match expected {
        Some(expected) if !against_balance => Some(Drawer::of(&figures, expected)?),
        _ => None,
    };
    let carried_over = match (drawer, expected) {
        (Some(drawer), _) => Some(drawer.carried_over),
        (None, Some(expected)) if against_balance => Some(money::sub(expected, figures.in_balance()?)?),
        _ => None,
    };
    Ok(Closing {
        id: day.id,
        tcr_code: day.tcr_code.clone(),
        name: day.name.clone(),
        business_day: day.business_day.clone(),
        status: if closed { "closed" } else { "open" },
        opened_at: stored_time(&day.opened_at),
        opened_automatically: day.opened_automatically,
        closed_at: day.closed_at.as_deref().map(stored_time),
        cashiers: book
            .people
            .iter()
            .map(|p| CashierView {
                id_user: p.id_user,
                name: p.name.clone(),
                operator_code: p.operator_code.clone(),
            })
            .collect(),
        receipts: ReceiptsView {
            count: book.receipts,
            first: book.first_receipt.clone(),
            last: book.last_receipt.clone(),
            waiting: book.waiting,
            gross: book.sales_gross,
        },
        sales_by_payment_method: book.takings.sales.clone(),
        vat: book
            .vat
            .iter()
            .map(|l| DayVatView {
                vat_rate: l.vat_rate,
                exemption: l.exemption.clone(),
                net: l.net,
                vat: l.vat,
                gross: l.gross,
            })
            .collect(),
        cancellations: CancellationsView {
            count: book.cancellations.len(),
            gross: book.cancelled_gross,
            by_payment_method: book.takings.refunds.clone(),
            documents: book
                .cancellations
                .iter()
                .map(|c| CorrectiveView {
                    number: c.number.clone(),
                    corrects: c.corrects.clone(),
                    gross: c.gross,
                })
                .collect(),
        },
        opening: figures.opening,
        deposits: figures.deposits,
        withdrawals: figures.withdrawals,
        cash_sales: day.cash_sales,
        drawer,
        not_in_drawer: book.takings.not_in_drawer()?,
        counted_against: if against_balance { "balance" } else { "drawer" },
        denominations: day.count.clone(),
        carried_over,
        expected,
        counted: day.counted.filter(|_| closed),
        difference: day.expected.zip(day.counted).filter(|_| closed).map(|(e, c)| c - e),
        withdrawn,
        balance: day.balance,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::cash_register::ActionType;
    use crate::report::rows::{Action, movements_of};

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn march() -> Period {
        Period { from: "2026-03-01".parse().unwrap(), to: "2026-03-31".parse().unwrap() }
    }

    fn sales(kind: ReportKind, key: &str, documents: i64, gross: &str) -> SalesRow {
        let gross = d(gross);
        SalesRow {
            kind,
            key: key.into(),
            user_id: 0,
            sums: SalesSums { documents, gross, net: gross, gross_currency: gross, ..SalesSums::default() },
        }
    }

    fn waiting(kind: ReportKind, currency: &str) -> WaitingRow {
        WaitingRow {
            kind,
            day: "2026-03-02".into(),
            tcr_code: String::new(),
            user_id: 0,
            operator_code: String::new(),
            currency: currency.into(),
        }
    }

    #[test]
    fn sales_are_net_of_reversals_and_orders_apart() {
        //  kind              | documents | gross | counted as
        //  cash              | 3         | 300   | a sale
        //  non-cash          | 1         | 100   | a sale
        //  corrective        | 1         | -50   | a reversal, in the sums
        //  order             | 2         | 80    | an order, not in the sales
        //  order corrective  | 1         | -40   | an order's cancellation
        let rows = [
            sales(ReportKind::Cash, "ALL", 3, "300"),
            sales(ReportKind::NonCash, "ALL", 1, "100"),
            sales(ReportKind::Corrective, "ALL", 1, "-50"),
            sales(ReportKind::Order, "ALL", 2, "80"),
            sales(ReportKind::OrderCorrective, "ALL", 1, "-40"),
        ];
        let summary = summarize_sales(march(), &rows, &[], &[waiting(ReportKind::Cash, "ALL")], 1);
        assert_eq!(summary.totals.documents, 4);
        assert_eq!(summary.totals.reversals, 1);
        assert_eq!(summary.totals.waiting, 1);
        assert_eq!(summary.totals.gross, d("350"));
        assert_eq!((summary.orders.documents, summary.orders.gross), (2, d("80")));
        assert_eq!((summary.orders.cancelled, summary.orders.cancelled_gross), (1, d("-40")));
        assert_eq!(summary.orders.open, 1);
        assert!(summary.by_currency.is_empty(), "lek alone has no currency line");
    }

    #[test]
    fn a_foreign_currency_has_its_line_in_it_and_in_lek() {
        let mut euro = sales(ReportKind::Cash, "EUR", 2, "1000");
        euro.sums.gross_currency = d("10");
        let summary = summarize_sales(march(), &[euro], &[], &[waiting(ReportKind::Cash, "EUR")], 0);
        let line = &summary.by_currency[0];
        assert_eq!((line.currency.as_str(), line.documents, line.waiting), ("EUR", 2, 1));
        assert_eq!((line.gross, line.gross_all), (d("10"), d("1000")));
    }

    #[test]
    fn vat_lines_go_highest_rate_first_then_exemptions_by_name() {
        let vat = |kind, rate: &str, exemption: Option<&str>, net: &str, vat: &str| VatRow {
            kind,
            vat_rate: d(rate),
            exemption: exemption.map(str::to_string),
            documents: 1,
            lines: 1,
            net: d(net),
            vat: d(vat),
        };
        let rows = [
            vat(ReportKind::Cash, "6", None, "100", "6"),
            vat(ReportKind::Cash, "0", Some("TYPE_2"), "50", "0"),
            vat(ReportKind::Cash, "20", None, "100", "20"),
            vat(ReportKind::Corrective, "20", None, "-10", "-2"),
            vat(ReportKind::Cash, "0", Some("TYPE_1"), "30", "0"),
            vat(ReportKind::Order, "20", None, "999", "199.8"),
        ];
        let report = vat_of(march(), &rows, &[], None);
        let order: Vec<(Decimal, Option<&str>)> =
            report.rates.iter().map(|l| (l.vat_rate, l.exemption.as_deref())).collect();
        assert_eq!(
            order,
            [(d("20"), None), (d("6"), None), (d("0"), Some("TYPE_1")), (d("0"), Some("TYPE_2"))]
        );
        assert_eq!(report.rates[0].documents, 2, "the reversal counts on its rate");
        assert_eq!(report.totals.vat, d("24"), "orders are no sales");
        assert!(report.items.is_none() && report.pagination.is_none());
    }

    #[test]
    fn the_cash_register_report_sorts_each_action_by_its_type_and_purpose() {
        let action = |action_type, purpose, amount: &str| Action {
            tcr_code: "ab123".into(),
            action_type,
            purpose,
            waiting: false,
            amount: d(amount),
        };
        //  type       | purpose | goes to
        //  INITIAL    | open    | initial
        //  MONEY_IN   | open    | opening deposits
        //  MONEY_IN   | other   | deposits
        //  MONEY_OUT  | close   | closing withdrawals
        //  MONEY_OUT  | other   | withdrawals
        let movements = movements_of([
            action(ActionType::Initial, Purpose::Open, "1000"),
            action(ActionType::MoneyIn, Purpose::Open, "200"),
            action(ActionType::MoneyIn, Purpose::Deposit, "50"),
            action(ActionType::MoneyIn, Purpose::Deposit, "25"),
            action(ActionType::MoneyOut, Purpose::Close, "900"),
            action(ActionType::MoneyOut, Purpose::Withdraw, "30"),
        ])
        .unwrap();
        assert_eq!(movements.len(), 5, "{movements:?}");
        let mut cash = sales(ReportKind::Cash, "ab123", 1, "120");
        cash.sums.till = d("120");
        let report = cash_register_of(march(), &movements, &[cash], &std::collections::HashMap::new());
        let till = &report.items[0];
        assert_eq!(
            (till.initial, till.opening_deposits, till.deposits, till.closing_withdrawals, till.withdrawals),
            (d("1000"), d("200"), d("75"), d("900"), d("30"))
        );
        assert_eq!(till.cash_sales, d("120"));
        assert_eq!(till.change, d("465"));
    }

    #[test]
    fn credit_notes_count_among_the_reversals() {
        let rows = [sales(ReportKind::Corrective, "", 2, "-70"), sales(ReportKind::Cash, "", 5, "500")];
        let report = reversals_of(march(), &rows, &[waiting(ReportKind::Corrective, "ALL")], Vec::new())
            .with_credit_notes(&[d("-15")]);
        assert_eq!((report.totals.count, report.totals.gross, report.waiting), (3, d("-85"), 1));
    }

    #[test]
    fn a_stored_time_shows_in_tirane_and_other_text_as_it_is() {
        assert_eq!(stored_time("2026-03-02T10:00:00Z"), "2026-03-02 11:00:00");
        assert_eq!(stored_time("not a time"), "not a time");
    }
}
