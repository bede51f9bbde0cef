//! The notes report (`GET /api/v1/reports/wtn`): the notes issued in a period, in total, by
//! fiscal status and by destination, in the spec's shape; a shop's, or every shop's at the head
//! office.

use rust_decimal::Decimal;
use serde::Serialize;

use super::model::PeriodView;
use crate::domain::money::Overflow;
use crate::domain::report::Period;
use crate::domain::wtn::{self as rules, ReportNote, Tally};

/// How many notes and the value of their goods.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct TallyView {
    pub count: i64,
    pub value_of_goods: Decimal,
}

impl From<Tally> for TallyView {
    fn from(t: Tally) -> Self {
        TallyView { count: t.count, value_of_goods: t.value_of_goods }
    }
}

/// The notes of one fiscal status: `FISCALIZED` or `UNFISCALIZED`.
#[derive(Debug, Clone, Serialize)]
pub struct StatusView {
    pub status: &'static str,
    #[serde(flatten)]
    pub tally: TallyView,
}

/// The company's unit a note went to.
#[derive(Debug, Clone, Serialize)]
pub struct UnitView {
    pub id: i64,
    pub name: Option<String>,
}

/// The notes that went to one place.
#[derive(Debug, Clone, Serialize)]
pub struct DestinationView {
    pub business_unit: Option<UnitView>,
    pub point: &'static str,
    pub city: String,
    pub address: String,
    #[serde(flatten)]
    pub tally: TallyView,
}

/// `data` of the notes report.
#[derive(Debug, Clone, Serialize)]
pub struct WtnReport {
    pub period: PeriodView,
    pub totals: TallyView,
    pub by_status: Vec<StatusView>,
    pub unique_destinations: usize,
    pub destinations: Vec<DestinationView>,
}

/// The notes report of `notes` (a shop's, or every shop's at the head office).
pub fn wtn_report_of(period: Period, notes: &[ReportNote]) -> Result<WtnReport, Overflow> {
    let summary = rules::summarize(notes)?;
    Ok(WtnReport {
        period: period.into(),
        totals: summary.totals.into(),
        by_status: summary
            .by_status
            .into_iter()
            .map(|(status, tally)| StatusView { status, tally: tally.into() })
            .collect(),
        unique_destinations: summary.destinations.len(),
        destinations: summary
            .destinations
            .into_iter()
            .map(|(d, tally)| DestinationView {
                business_unit: d.unit_id.map(|id| UnitView { id, name: d.unit_name }),
                point: d.point.as_str(),
                city: d.city,
                address: d.address,
                tally: tally.into(),
            })
            .collect(),
    })
}
