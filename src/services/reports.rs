//! Reports and the dashboard: the store's sums put together the way an accountant reads them.
//! Each report runs in one read transaction, so its parts agree with each other. Amounts are
//! in lek (ALL) as the CIS registered them (see `domain::report`), sales always net of their
//! reversals; deferred documents (fic null) count like any other and are flagged as `waiting`.

use chrono::NaiveDate;
use rusqlite::Connection;
use rust_decimal::Decimal;

use super::{Result, Services};
// The report model and its pure summing are the core's (shared with the head office); named here
// too, where the shop's callers have always found them.
use crate::domain::report::{self, Comparison, Period};
use crate::domain::time::local_text;
use crate::domain::validation::FieldErrors;
use crate::store::accounts::Caller;
use crate::store::invoices;
use crate::store::invoices::report_totals;
pub use crate::store::invoices::report_totals::Drift;
use crate::store::reports::{self as db, Filter};
use crate::store::{self, Store};
pub use arka_core::report::*;

/// The reports capability: what was sold, taxed, counted and taken back, each report read over
/// one snapshot of the books. Read-only.
#[derive(Clone, Copy)]
pub struct Reports<'a> {
    services: &'a Services,
}

impl Services {
    pub fn reports(&self) -> Reports<'_> {
        Reports { services: self }
    }
}

impl Reports<'_> {
    /// `f` over one snapshot of the books (`Store::read_snapshot`): a report's parts agree with
    /// each other.
    async fn in_snapshot<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> crate::store::Result<T> + Send + 'static,
    ) -> Result<T> {
        Ok(self.services.store.read_snapshot(f).await?)
    }

    /// The store's filter for `q`, once its branch, TCR and operator are the company's own.
    async fn report_filter(&self, caller: &Caller, q: &ReportQuery) -> Result<Filter> {
        let filter = Filter {
            company_id: caller.company.id,
            from: q.period.from.to_string(),
            to: q.period.to.to_string(),
            business_unit_id: q.branch,
            tcr_code: q.tcr.clone(),
            operator_code: q.operator.clone(),
        };
        let asked = filter.clone();
        let (branch, tcr, operator) =
            self.services.store.read(move |conn| db::filter_known(conn, &asked)).await?;
        let mut errors = FieldErrors::new();
        if !branch {
            errors.add("branch", "The branch is not one of the company's branches.");
        }
        if !tcr {
            errors.add("tcr", "The tcr is not one of the company's TCRs.");
        }
        if !operator {
            errors.add("operator", "The operator is not an operator code of the company.");
        }
        errors.into_result()?;
        Ok(filter)
    }

    pub async fn sales_summary(&self, caller: &Caller, q: ReportQuery) -> Result<SalesSummary> {
        let filter = self.report_filter(caller, &q).await?;
        let (by_currency, payments, waiting, open) = self
            .in_snapshot(move |c| {
                Ok((
                    db::sales(c, &filter, SalesBy::Currency)?,
                    db::payments(c, &filter)?,
                    db::waiting(c, &filter)?,
                    db::open_orders(c, &filter)?,
                ))
            })
            .await?;
        Ok(summarize_sales(q.period, &by_currency, &payments, &waiting, open))
    }

    /// The VAT report; with `book` (limit, offset), a page of the sales book too.
    pub async fn vat_report(
        &self,
        caller: &Caller,
        q: ReportQuery,
        book: Option<(i64, i64)>,
    ) -> Result<VatReport> {
        let filter = self.report_filter(caller, &q).await?;
        let (rows, waiting, page) = self
            .in_snapshot(move |c| {
                let page = match book {
                    Some((limit, offset)) => Some(db::sales_book(c, &filter, limit, offset)?),
                    None => None,
                };
                Ok((db::vat(c, &filter)?, db::waiting(c, &filter)?, page))
            })
            .await?;
        let book = match (page, book) {
            (Some(page), Some((limit, offset))) => {
                Some((page.documents.iter().map(|(i, kind)| book_entry(i, *kind)).collect(), limit, offset))
            }
            _ => None,
        };
        Ok(vat_of(q.period, &rows, &waiting, book))
    }

    pub async fn daily_trend(&self, caller: &Caller, q: ReportQuery) -> Result<DailyTrend> {
        let period = q.period.for_trend()?;
        let filter = self.report_filter(caller, &q).await?;
        let (rows, waiting) = self
            .in_snapshot(move |c| Ok((db::sales(c, &filter, SalesBy::Day)?, db::waiting(c, &filter)?)))
            .await?;
        Ok(trend_of(period, &rows, &waiting))
    }

    pub async fn top_clients(&self, caller: &Caller, q: ReportQuery, limit: i64) -> Result<TopClients> {
        let filter = self.report_filter(caller, &q).await?;
        let (clients, sales) = self
            .in_snapshot(move |c| {
                let only_branch = Filter { tcr_code: None, operator_code: None, ..filter.clone() };
                Ok((db::clients(c, &filter)?, db::sales(c, &only_branch, SalesBy::Kind)?))
            })
            .await?;
        Ok(top_clients_of(q.period, clients, &sales, limit))
    }

    pub async fn top_products(&self, caller: &Caller, q: ReportQuery, limit: i64) -> Result<TopProducts> {
        let filter = self.report_filter(caller, &q).await?;
        let products = self.services.store.read(move |conn| db::products(conn, &filter)).await?;
        Ok(top_products_of(q.period, products, limit))
    }

    pub async fn by_operator(&self, caller: &Caller, q: ReportQuery) -> Result<ByOperator> {
        let filter = self.report_filter(caller, &q).await?;
        let company_id = caller.company.id;
        let (rows, waiting, users) = self
            .in_snapshot(move |c| {
                Ok((
                    db::sales(c, &filter, SalesBy::Operator)?,
                    db::waiting(c, &filter)?,
                    db::users(c, company_id)?,
                ))
            })
            .await?;
        Ok(by_operator_of(q.period, &rows, &waiting, &users))
    }

    pub async fn by_tcr(&self, caller: &Caller, q: ReportQuery) -> Result<ByTcr> {
        let filter = self.report_filter(caller, &q).await?;
        let company_id = caller.company.id;
        let (rows, waiting, tcrs) = self
            .in_snapshot(move |c| {
                Ok((db::sales(c, &filter, SalesBy::Tcr)?, db::waiting(c, &filter)?, db::tcrs(c, company_id)?))
            })
            .await?;
        Ok(by_tcr_of(q.period, &rows, &waiting, &tcrs))
    }

    pub async fn cash_register_report(&self, caller: &Caller, q: ReportQuery) -> Result<CashRegisterReport> {
        let filter = Filter { operator_code: None, ..self.report_filter(caller, &q).await? };
        let company_id = caller.company.id;
        let (movements, sales, tcrs) = self
            .in_snapshot(move |c| {
                Ok((
                    db::movements(c, &filter)?,
                    db::sales(c, &filter, SalesBy::Tcr)?,
                    db::tcrs(c, company_id)?,
                ))
            })
            .await?;
        Ok(cash_register_of(q.period, &movements, &sales, &tcrs))
    }

    pub async fn closing_report(
        &self,
        caller: &Caller,
        q: ReportQuery,
        limit: i64,
        offset: i64,
    ) -> Result<ClosingReport> {
        // A cashier's X/Z report is their own till's.
        let tcr = crate::domain::role::till_of_report(caller.reader(), q.tcr.as_deref())?.map(str::to_string);
        let q = ReportQuery { tcr, ..q };
        let filter = Filter { operator_code: None, ..self.report_filter(caller, &q).await? };
        let days = self.in_snapshot(move |c| db::days(c, &filter, limit, offset)).await?;
        Ok(closing_of(q.period, &days, limit, offset).map_err(store::Error::from)?)
    }

    pub async fn reversals_report(
        &self,
        caller: &Caller,
        q: ReportQuery,
        limit: i64,
        offset: i64,
    ) -> Result<Reversals> {
        let filter = self.report_filter(caller, &q).await?;
        let company_id = caller.company.id;
        let (rows, waiting, page, originals, credit_notes) = self
            .in_snapshot(move |c| {
                let page = db::reversals(c, &filter, limit, offset)?;
                // A credit note names its original by IIC; a corrective document by id.
                let originals = page
                    .documents
                    .iter()
                    .map(|(invoice, _)| match (invoice.original_invoice_id, &invoice.original_invoice_iic) {
                        (None, Some(iic)) => invoices::id_by_iic(c, company_id, iic),
                        (id, _) => Ok(id),
                    })
                    .collect::<store::Result<Vec<_>>>()?;
                let credit_notes = db::credit_notes(c, &filter)?;
                Ok((
                    db::sales(c, &filter, SalesBy::Kind)?,
                    db::waiting(c, &filter)?,
                    page,
                    originals,
                    credit_notes,
                ))
            })
            .await?;
        let items = page
            .documents
            .iter()
            .zip(originals)
            .map(|((invoice, _), original_invoice_id)| ReversalLine {
                id: invoice.id,
                number: invoice.number.clone(),
                invoice_type: invoice.kind.as_str(),
                reversed_at: Some(stored_time(&invoice.issued_at)),
                original_invoice_id,
                gross: taken_back(invoice),
                operator: invoice.operator_code.clone(),
            })
            .collect();
        let credited: Vec<Decimal> =
            credit_notes.documents.iter().map(|(invoice, _)| taken_back(invoice)).collect();
        Ok(reversals_of(q.period, &rows, &waiting, items).with_credit_notes(&credited))
    }

    /// The owner's dashboard as of `day` (today in Tirane when not given).
    pub async fn dashboard(&self, caller: &Caller, day: Option<NaiveDate>) -> Result<Dashboard> {
        let day =
            day.unwrap_or_else(|| crate::domain::cash_register::business_day(self.services.clock.utc()));
        let comparisons = [report::today(day), report::this_week(day), report::this_month(day)];
        let company_id = caller.company.id;
        let filter_of = move |p: Period| Filter {
            company_id,
            from: p.from.to_string(),
            to: p.to.to_string(),
            ..Filter::default()
        };
        let (sales, open_days) = self
            .in_snapshot(move |c| {
                let mut sales = Vec::new();
                for Comparison { current, previous } in comparisons {
                    for period in [current, previous] {
                        let filter = filter_of(period);
                        let rows = db::sales(c, &filter, SalesBy::Kind)?;
                        sales.push(Sales::of(&rows, count_waiting(&db::waiting(c, &filter)?)));
                    }
                }
                Ok((sales, db::open_days(c, company_id)?))
            })
            .await?;
        let compared = |i: usize| -> Compared {
            let Comparison { current, previous } = comparisons[i];
            let (now, before) = (sales[2 * i], sales[2 * i + 1]);
            Compared {
                period: current.into(),
                sales: now,
                previous: PreviousSales { period: previous.into(), sales: before },
                change_percent: report::change_percent(now.gross, before.gross),
            }
        };
        let queue = self.services.queue_summary(caller).await?;
        let now = self.services.clock.utc();
        let onboarding = self.services.onboarding();
        let certificate = onboarding.current_certificate(caller).await?.map(|c| DashboardCertificate {
            subject: c.subject,
            expires_at: local_text(c.valid_to),
            days_left: (c.valid_to - now).num_days(),
            expired: c.valid_to <= now,
            expires_soon: c.valid_to - now
                < chrono::Duration::days(crate::fiscal::gateway::CERTIFICATE_WARNING_DAYS),
        });
        Ok(Dashboard {
            period: Period::day(day).into(),
            currency: "ALL",
            today: compared(0),
            week: compared(1),
            month: compared(2),
            queue: DashboardQueue {
                waiting: queue.waiting,
                refused: queue.refused.len(),
                oldest_waiting_since: queue.oldest_waiting_issued_at.map(local_text),
                near_legal_limit: queue.near_legal_limit,
            },
            certificate,
            open_days: open_days
                .into_iter()
                .map(|(tcr_code, business_day, opened_at)| OpenDay {
                    tcr_code,
                    business_day,
                    opened_at: stored_time(&opened_at),
                })
                .collect(),
        })
    }
}

/// stored documents; nothing is changed.
pub fn verify_totals(store: &Store) -> store::Result<Vec<Drift>> {
    store.trial_blocking(|tx| report_totals::verify(tx))
}

/// `arka reports rebuild`: the report totals built again from the stored documents; how many
/// documents they were built from.
pub fn rebuild_totals(store: &Store) -> store::Result<usize> {
    store.write_blocking(|tx| report_totals::rebuild(tx, &mut |_, _| {}))
}
