//! What the shop owner's page reads beyond the spec's routes: today's sales per till and
//! payment method with each till's cash and day, and the documents waiting for the CIS.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::cash_register::{balance_at, day_figures};
use super::queue::{QueueSummary, summarize};
use super::{Result, Services};
// A till's day state and today's date in Tirane are the core's: the head office reads them too.
pub use arka_core::domain::cash_register::{DayState, business_day, day_state};

use crate::domain::audit::Action;
use crate::domain::drawer::{DayFigures, Drawer};
use crate::domain::role::Role;
use crate::domain::sales_day::{self, DaySales};
use crate::store::accounts::Caller;
use crate::store::cash_register::{self as cash_db, Day};
use crate::store::devices::{self, Device};
use crate::store::fiscal_queue::{self, Queued};
use crate::store::sales_day::sales_on;

/// One TCR of the company: its cash now and its latest day.
pub struct Till {
    pub device: Device,
    /// The spec's balance (card sales included).
    pub balance: Decimal,
    pub state: DayState,
    /// The TCR's latest day, with its figures and its drawer while it is open.
    pub day: Option<(Day, Option<(DayFigures, Drawer)>)>,
}

/// The owner's today.
pub struct Today {
    pub business_day: NaiveDate,
    pub sales: DaySales,
    pub tills: Vec<Till>,
}

/// The documents waiting for the CIS, oldest first, and the queue's summary.
pub struct WaitingDocuments {
    pub summary: QueueSummary,
    pub oldest_first: Vec<Queued>,
}

impl Services {
    /// Today's sales of the caller's company, and every one of its TCRs with its cash and day; a
    /// cashier's: their own till's alone.
    pub async fn owner_today(&self, caller: &Caller) -> Result<Today> {
        let company_id = caller.company.id;
        let today = business_day(self.clock.utc());
        let only = (caller.role() == Role::Cashier).then(|| caller.user.tcr_code.clone().unwrap_or_default());
        let (sales, tills) = self
            .store
            .read(move |conn| {
                let mut sold = sales_on(conn, company_id, &today.to_string())?;
                if let Some(own) = &only {
                    sold.retain(|sale| sale.tcr_code.as_deref() == Some(own.as_str()));
                }
                let sales = sales_day::summarize(&sold)?;
                let mut tills = Vec::new();
                let devices = devices::of_company(conn, company_id)?.into_iter();
                for device in devices.filter(|d| only.as_ref().is_none_or(|own| &d.tcr_code == own)) {
                    let latest = cash_db::latest_day(conn, company_id, &device.tcr_code)?;
                    let state = day_state(latest.as_ref(), today);
                    let day = match latest {
                        Some(day) if state == DayState::Open => {
                            let figures = day_figures(conn, &day, &cash_db::day_actions(conn, day.id)?)?;
                            let expected = cash_db::drawer_expected(conn, company_id, &device.tcr_code)?;
                            let drawer = Drawer::of(&figures, expected)?;
                            Some((day, Some((figures, drawer))))
                        }
                        other => other.map(|day| (day, None)),
                    };
                    let balance = balance_at(conn, company_id, &device.tcr_code, None)?;
                    tills.push(Till { device, balance, state, day });
                }
                Ok((sales, tills))
            })
            .await?;
        Ok(Today { business_day: today, sales, tills })
    }

    /// The company's documents waiting for the CIS, oldest first (at most `limit`), with the
    /// queue's summary (refused documents included).
    pub async fn owner_queue(&self, caller: &Caller, limit: usize) -> Result<WaitingDocuments> {
        let company_id = caller.company.id;
        let items = self.store.read(move |conn| fiscal_queue::open_items(conn, Some(company_id))).await?;
        let summary = summarize(&items, self.clock.utc());
        let mut waiting: Vec<Queued> =
            items.into_iter().filter(|q| q.status == fiscal_queue::Status::Waiting).collect();
        waiting.sort_by(|a, b| a.issued_at.cmp(&b.issued_at).then(a.id.cmp(&b.id)));
        waiting.truncate(limit);
        Ok(WaitingDocuments { summary, oldest_first: waiting })
    }

    /// The owner's re-send, from the page, of a document of their company the CIS refused, once
    /// its cause is corrected (as `arka queue resend`). False when the company has no refused
    /// document with this queue id.
    pub async fn resend_refused(&self, caller: &Caller, queue_id: i64) -> Result<bool> {
        let company = caller.company.id;
        let now = self.clock.utc().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let entry = super::audit::by(caller, Action::QueueResend, queue_id);
        let resent = self
            .store
            .write(move |tx| super::queue::resend_in(tx, queue_id, Some(company), &now, |_| entry))
            .await?;
        if resent {
            tracing::info!(queue_id, company, "a refused document waits for the CIS again");
        }
        Ok(resent)
    }
}
