//! Purchase invoices: the e-invoices suppliers addressed to the company, read from the
//! e-invoice platform (GetEinvoices, PartyType BUYER) and kept in SQLite, so that a window of
//! days already read is served while the platform is away; and the company's answer to one
//! (EinvoiceChangeStatus).

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use chrono_tz::Europe::Tirane;
use uuid::Uuid;

use super::{Error, NotNow, Purchases, Result};
use crate::domain::validation::FieldErrors;
use crate::fiscal::delivery::Delivery;
use crate::fiscal::model::{
    EinvoiceChangeStatus, EinvoiceStatus, GetEinvoices, GetTaxpayers, PartyType, PlainHeader,
};
use crate::fiscal::requests;
use crate::fiscal::response::EinvoiceRecord;
use crate::store::accounts::Caller;
use crate::store::purchase::{self as db, PurchaseInvoice};

/// Purchase invoices per page.
pub const PAGE_SIZE: i64 = 20;

/// The e-invoice platform did not answer (`NotNow::Platform`), said to POS apps.
pub const PLATFORM_UNREACHABLE: &str = "The e-invoice platform could not be reached; try again.";

/// Where a page came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The platform answered now.
    Platform,
    /// The platform did not answer: the copy read at `fetched_at` (UTC, RFC 3339).
    Cache { fetched_at: String },
}

pub struct PurchasePage {
    pub items: Vec<PurchaseInvoice>,
    pub source: Source,
}

/// The status the company gives an e-invoice it received.
pub fn status(text: &str) -> Option<EinvoiceStatus> {
    match text.trim().to_uppercase().as_str() {
        "ACCEPTED" => Some(EinvoiceStatus::Accepted),
        "REFUSED" => Some(EinvoiceStatus::Refused),
        "PAID" => Some(EinvoiceStatus::Paid),
        "PARTIALLY_PAID" => Some(EinvoiceStatus::PartiallyPaid),
        _ => None,
    }
}

/// The first and last instant of the Tirane days `from`..=`to`.
fn window(from: NaiveDate, to: NaiveDate) -> Result<(DateTime<Utc>, DateTime<Utc>)> {
    let at = |day: NaiveDate, h, m, s| {
        day.and_hms_opt(h, m, s)
            .and_then(|local| Tirane.from_local_datetime(&local).earliest())
            .map(|t| t.with_timezone(&Utc))
            .ok_or(Error::Broken("a day of the window has no time in Tirane"))
    };
    Ok((at(from, 0, 0, 0)?, at(to, 23, 59, 59)?))
}

/// A listed e-invoice as kept; `None` when the platform's times do not read.
fn kept(record: &EinvoiceRecord, fetched_at: &str) -> Option<PurchaseInvoice> {
    let received = DateTime::parse_from_rfc3339(&record.rec_date_time).ok()?;
    let due = DateTime::parse_from_rfc3339(&record.due_date_time).ok();
    Some(PurchaseInvoice {
        eic: record.eic.to_lowercase(),
        doc_number: record.doc_number.clone(),
        doc_type: record.doc_type.clone(),
        seller_nuis: record.seller_tin.clone(),
        seller_name: None,
        received_at: received.with_timezone(&Utc).to_rfc3339(),
        received_date: received.with_timezone(&Tirane).date_naive().to_string(),
        due_date: due.map(|d| d.with_timezone(&Tirane).date_naive().to_string()),
        amount: record.amount,
        // The platform's list names no currency: its amounts are lek.
        currency: "ALL".to_string(),
        status: record.status.clone(),
        fetched_at: fetched_at.to_string(),
    })
}

fn header(now: DateTime<Utc>) -> PlainHeader {
    PlainHeader { uuid: Uuid::new_v4(), send_date_time: now }
}

fn unavailable() -> Error {
    Error::Unavailable(NotNow::Platform)
}

impl Purchases<'_> {
    /// Page `page` (from 1) of the e-invoices received `from`..=`to`, newest first.
    pub async fn purchase_invoices(
        &self,
        caller: &Caller,
        from: NaiveDate,
        to: NaiveDate,
        page: i64,
    ) -> Result<PurchasePage> {
        let company_id = caller.company.id;
        let (from_text, to_text) = (from.to_string(), to.to_string());
        let (start, end) = window(from, to)?;
        let query = GetEinvoices {
            eic: None,
            party_type: Some(PartyType::Buyer),
            rec_date_time_from: Some(start),
            rec_date_time_to: Some(end),
        };
        let certificate = self.services.signer(company_id).await?;
        let request = requests::get_einvoices(&header(self.services.clock.utc()), &query);
        let source = match self.services.call_cis(certificate, request, |c, b| c.get_einvoices(b)).await? {
            Delivery::Accepted(listed) => {
                let fetched_at = crate::store::now_text();
                let received: Vec<PurchaseInvoice> =
                    listed.einvoices.iter().filter_map(|r| kept(r, &fetched_at)).collect();
                self.name_sellers(caller, &received).await?;
                let (from, to) = (from_text.clone(), to_text.clone());
                self.services
                    .store
                    .write(move |tx| {
                        for invoice in &received {
                            db::upsert(tx, company_id, invoice)?;
                        }
                        db::record_read(tx, company_id, &from, &to, &fetched_at)
                    })
                    .await?;
                Source::Platform
            }
            Delivery::Refused(refusal) => return Err(Error::Refused(refusal.message())),
            // The platform's own fault is its trouble, like no answer: the copy serves.
            Delivery::NotDelivered { reason, .. } => {
                tracing::warn!(%reason, "purchase invoices not delivered; answering from the copy");
                let (from, to) = (from_text.clone(), to_text.clone());
                match self
                    .services
                    .store
                    .read(move |conn| db::last_read(conn, company_id, &from, &to))
                    .await?
                {
                    Some(fetched_at) => Source::Cache { fetched_at },
                    None => return Err(unavailable()),
                }
            }
        };
        let offset = (page - 1).saturating_mul(PAGE_SIZE);
        let items = self
            .services
            .store
            .read(move |conn| db::page(conn, company_id, &from_text, &to_text, PAGE_SIZE, offset))
            .await?;
        Ok(PurchasePage { items, source })
    }

    /// Looks up in the taxpayer register the sellers whose name is not known yet; one that
    /// cannot be looked up now stays without a name until a later read.
    async fn name_sellers(&self, caller: &Caller, received: &[PurchaseInvoice]) -> Result<()> {
        let sellers: Vec<String> = received.iter().filter_map(|p| p.seller_nuis.clone()).collect();
        let unnamed = self.services.store.read(move |conn| db::unnamed(conn, &sellers)).await?;
        for nuis in unnamed {
            let certificate = self.services.signer(caller.company.id).await?;
            let request =
                requests::get_taxpayers(&header(self.services.clock.utc()), &GetTaxpayers::Tin(nuis.clone()));
            if let Delivery::Accepted(found) =
                self.services.call_cis(certificate, request, |c, b| c.get_taxpayers(b)).await?
                && let Some(taxpayer) =
                    found.taxpayers.into_iter().find(|t| t.tin.eq_ignore_ascii_case(&nuis))
            {
                let now = crate::store::now_text();
                self.services
                    .store
                    .write(move |tx| db::set_taxpayer_name(tx, &nuis, &taxpayer.name, &now))
                    .await?;
            }
        }
        Ok(())
    }

    /// The company accepts, refuses or marks paid an e-invoice it received (one the list has
    /// shown it); the platform is told with EinvoiceChangeStatus.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn change_purchase_status(
        &self,
        caller: &Caller,
        eic: &str,
        status_text: &str,
    ) -> Result<PurchaseInvoice> {
        let new_status = status(status_text).ok_or_else(|| {
            Error::from(FieldErrors::one(
                "status",
                "The status must be one of ACCEPTED, REFUSED, PAID, PARTIALLY_PAID.",
            ))
        })?;
        let company_id = caller.company.id;
        let eic = eic.trim().to_lowercase();
        let lookup = eic.clone();
        let known = self.services.store.read(move |conn| db::get(conn, company_id, &lookup)).await?;
        if known.is_none() {
            return Err(Error::NotFound("Purchase invoice".into()));
        }
        let change = EinvoiceChangeStatus { eics: vec![eic.clone()], status: new_status };
        let request = requests::einvoice_change_status(&header(self.services.clock.utc()), &change);
        let certificate = self.services.signer(company_id).await?;
        match self.services.call_cis(certificate, request, |c, b| c.einvoice_change_status(b)).await? {
            Delivery::Accepted(_) => {
                let written = new_status.as_str();
                self.services
                    .store
                    .write(move |tx| {
                        db::set_status(tx, company_id, &eic, written)?;
                        db::get(tx, company_id, &eic)
                    })
                    .await?
                    .ok_or_else(|| Error::NotFound("Purchase invoice".into()))
            }
            Delivery::Refused(refusal) => Err(Error::Refused(refusal.message())),
            Delivery::NotDelivered { reason, .. } => {
                tracing::warn!(%reason, "e-invoice status change not delivered");
                Err(unavailable())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fiscal::model;
    use rust_decimal::Decimal;

    #[test]
    fn statuses_read_in_any_case() {
        // | sent            | status          |
        assert_eq!(status("accepted"), Some(EinvoiceStatus::Accepted));
        assert_eq!(status(" REFUSED "), Some(EinvoiceStatus::Refused));
        assert_eq!(status("paid"), Some(EinvoiceStatus::Paid));
        assert_eq!(status("Partially_Paid"), Some(EinvoiceStatus::PartiallyPaid));
        assert_eq!(status("DELIVERED"), None);
        assert_eq!(status("\u{0}"), None);
    }

    #[test]
    fn a_window_is_whole_tirane_days() {
        let day = |d| NaiveDate::from_ymd_opt(2026, 3, d).unwrap();
        let (start, end) = window(day(1), day(2)).unwrap();
        assert_eq!(model::datetime(start), "2026-03-01T00:00:00+01:00");
        assert_eq!(model::datetime(end), "2026-03-02T23:59:59+01:00");
    }

    #[test]
    fn a_listed_einvoice_is_kept_on_its_tirane_date() {
        let record = EinvoiceRecord {
            eic: "2F1C0A34-7B1E-4A3D-9C5E-0D8F6A2B1C3E".to_string(),
            doc_number: "40/2026".to_string(),
            doc_type: "380".to_string(),
            rec_date_time: "2026-03-01T23:30:00+01:00".to_string(),
            due_date_time: "2026-03-31T00:00:00+02:00".to_string(),
            status: "DELIVERED".to_string(),
            amount: Decimal::new(1245000, 2),
            party_type: "BUYER".to_string(),
            seller_tin: Some("K81234001A".to_string()),
            pdf: None,
        };
        let kept = kept(&record, "now").unwrap();
        assert_eq!(kept.eic, "2f1c0a34-7b1e-4a3d-9c5e-0d8f6a2b1c3e");
        assert_eq!(
            (kept.received_date.as_str(), kept.received_at.as_str()),
            ("2026-03-01", "2026-03-01T22:30:00+00:00")
        );
        assert_eq!(kept.due_date.as_deref(), Some("2026-03-31"));
        assert!(
            super::kept(&EinvoiceRecord { rec_date_time: "yesterday".into(), ..record }, "now").is_none()
        );
    }
}
