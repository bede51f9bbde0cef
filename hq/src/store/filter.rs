//! What a report of the HQ reads: the shops and the period it covers, as SQL conditions and their
//! values. Every query of the reports (`reports`, `report_rows`, `invoices`) narrows by it.

use arka_core::domain::report::Period;

/// Which documents a report of the HQ covers: the period's, of one shop or of all, narrowed to
/// a branch (of the one shop: its ids are the shop's), a TCR or an operator code as a shop's are.
#[derive(Debug, Clone)]
pub struct Filter {
    pub period: Period,
    pub shop_id: Option<i64>,
    pub business_unit_id: Option<i64>,
    pub tcr_code: Option<String>,
    pub operator_code: Option<String>,
}

/// The columns a table has of the filter's narrowing ones (a table without one ignores it, as
/// the shop's store does: products have no operator, clients neither TCR nor operator).
#[derive(Debug, Clone, Copy)]
pub(super) struct Narrowed {
    pub day: &'static str,
    pub prefix: &'static str,
    pub tcr: bool,
    pub operator: bool,
}

pub(super) const TOTALS: Narrowed = Narrowed { day: "day", prefix: "", tcr: true, operator: true };
pub(super) const ON_INVOICES: Narrowed =
    Narrowed { day: "issue_date", prefix: "i.", tcr: true, operator: true };

pub(super) type Values = Vec<Box<dyn tokio_postgres::types::ToSql + Sync + Send>>;

impl Filter {
    /// The whole chain (or one shop) over `period`, not narrowed further.
    pub fn of(period: Period, shop_id: Option<i64>) -> Filter {
        Filter { period, shop_id, business_unit_id: None, tcr_code: None, operator_code: None }
    }

    /// The SQL conditions on a table with `n`'s columns, and their values ($1, $2, ...).
    pub(super) fn on(&self, n: Narrowed) -> (String, Values) {
        let p = n.prefix;
        let mut sql = format!("{p}{} >= $1 AND {p}{} <= $2", n.day, n.day);
        let mut values: Values =
            vec![Box::new(self.period.from.to_string()), Box::new(self.period.to.to_string())];
        let mut add =
            |sql: &mut String, column: &str, value: Box<dyn tokio_postgres::types::ToSql + Sync + Send>| {
                values.push(value);
                sql.push_str(&format!(" AND {p}{column} = ${}", values.len()));
            };
        if let Some(shop) = self.shop_id {
            add(&mut sql, "shop_id", Box::new(shop));
        }
        if let Some(unit) = self.business_unit_id {
            add(&mut sql, "business_unit_id", Box::new(unit));
        }
        if let (Some(code), true) = (&self.tcr_code, n.tcr) {
            add(&mut sql, "tcr_code", Box::new(code.clone()));
        }
        if let (Some(code), true) = (&self.operator_code, n.operator) {
            add(&mut sql, "operator_code", Box::new(code.clone()));
        }
        (sql, values)
    }
}

/// The values as the client takes them.
pub(super) fn refs(values: &Values) -> Vec<&(dyn tokio_postgres::types::ToSql + Sync)> {
    values.iter().map(|v| v.as_ref() as &(dyn tokio_postgres::types::ToSql + Sync)).collect()
}
