//! The notes report (`GET /api/v1/reports/wtn`): the notes issued in a period, in total, by
//! fiscal status and by destination, in the spec's shape.

// The report's shape and its summing are the core's, shared with the head office.
pub use arka_core::report::wtn::*;

use super::super::reports::ReportQuery;
use super::super::{Result, Services};
use crate::store::accounts::Caller;
use crate::store::wtn as db;

impl Services {
    /// The notes issued in the query's period (Tirane days, both included).
    pub async fn wtn_report(&self, caller: &Caller, query: ReportQuery) -> Result<WtnReport> {
        let company_id = caller.company.id;
        let period = query.period;
        let (from, to) = (period.from.to_string(), period.to.to_string());
        let notes = self.store.read(move |c| db::report_rows(c, company_id, &from, &to)).await?;
        Ok(wtn_report_of(period, &notes).map_err(crate::store::Error::from)?)
    }
}
