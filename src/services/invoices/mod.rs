//! Invoices: issue (cash, non-cash, order, summary, the corrective document of a cancellation,
//! all through the pipeline), list, details, details by internalId, PDF.
//!
//! A request is checked (`content`, `table`, `cancel`) and becomes an `InvoiceDocument`
//! (`document`, its part in `services::pipeline`), whose CIS message and stored row `message`
//! writes; the pipeline numbers, signs, persists, delivers and settles it.

mod cancel;
mod content;
mod document;
pub mod einvoice;
mod message;
pub(crate) mod print;
mod rate;
mod table;

pub use cancel::{CancelRequest, Cancelled};
pub(super) use table::order_waiting;
pub use table::{OpenOrder, SummaryRequest};

pub(super) use content::{this_year, user_codes};

use chrono::Datelike;
use chrono_tz::Europe::Tirane;

use super::pipeline::Issued;
use super::{Error, NotAllowed, Result, Selling};
use crate::domain::document::{ApiVersion, DocumentKind};
use crate::domain::invoice::InvoiceInput;
use crate::domain::role::{self, DocumentScope, Role};
use crate::store::accounts::Caller;
use crate::store::invoices::{self as db, Invoice};

pub use crate::domain::invoice::request::ClientInput;

/// An issue request after the edge read v1 or v2.
#[derive(Debug, Clone)]
pub struct IssueRequest {
    /// Cash, non-cash or order.
    pub kind: DocumentKind,
    pub api_version: ApiVersion,
    pub internal_id: String,
    pub client: Option<ClientInput>,
    pub rules: InvoiceInput,
    pub currency: Option<String>,
    pub due_date: Option<String>,
    pub supply_start_date: Option<String>,
    pub supply_end_date: Option<String>,
    pub reverse_charge: bool,
    pub periodic_invoice: bool,
    pub notes: Option<String>,
    pub self_issue_type: Option<String>,
    pub doc_type: Option<String>,
    pub original_invoice_iic: Option<String>,
    pub bank_account_id: Option<i64>,
    /// The warehouse transfer note the goods already left with.
    pub wtn_id: Option<i64>,
}

/// A PDF rendered on the blocking pool. The input's bounds keep a render well under a second;
/// the limit is what a POS waits at worst, should anything stored before those bounds still be
/// very large.
pub(super) async fn rendered(
    what: String,
    render: impl FnOnce() -> std::result::Result<Vec<u8>, crate::print::Error> + Send + 'static,
) -> Result<Vec<u8>> {
    let limit = crate::print::RENDER_TIMEOUT;
    tokio::time::timeout(limit, tokio::task::spawn_blocking(render))
        .await
        .map_err(|cause| Error::TooSlow { what, limit, cause })??
        .map_err(Error::from)
}

/// A document `caller` may read (`domain::role::may_read_document`), else 403: a cashier reads
/// their till's documents and those they issued.
pub(super) fn readable(caller: &Caller, tcr_code: Option<&str>, user_id: Option<i64>) -> Result<()> {
    if role::may_read_document(caller.reader(), DocumentScope { tcr_code, user_id }) {
        Ok(())
    } else {
        Err(Error::Forbidden(NotAllowed::OthersDocument))
    }
}

/// What of the list a caller sees: a cashier, their own documents.
fn own_documents(caller: &Caller) -> Option<db::Own> {
    (caller.role() < Role::Manager)
        .then(|| db::Own { tcr_code: caller.user.tcr_code.clone(), user_id: caller.user.id })
}

impl Selling<'_> {
    pub async fn list_invoices(&self, caller: &Caller, filter: db::ListFilter) -> Result<Vec<Invoice>> {
        let company_id = caller.company.id;
        let filter = db::ListFilter { own: own_documents(caller), ..filter };
        Ok(self.services.store.read(move |conn| db::list(conn, company_id, &filter)).await?)
    }

    /// The company's invoice `id`, whoever may read it.
    async fn company_invoice(&self, caller: &Caller, id: i64) -> Result<Invoice> {
        let company_id = caller.company.id;
        self.services
            .store
            .read(move |conn| db::get(conn, company_id, id))
            .await?
            .ok_or_else(|| Error::NotFound("Invoice".into()))
    }

    /// The invoice `id`, when the caller may read it.
    pub async fn invoice(&self, caller: &Caller, id: i64) -> Result<Invoice> {
        let invoice = self.company_invoice(caller, id).await?;
        readable(caller, invoice.tcr_code.as_deref(), invoice.user_id)?;
        Ok(invoice)
    }

    /// The invoice issued this year with `internal_id`, when the caller may read it;
    /// integrators read 404 as "not issued yet, safe to retry".
    pub async fn invoice_by_internal_id(&self, caller: &Caller, internal_id: &str) -> Result<Invoice> {
        let invoice = self.company_invoice_by_internal_id(caller, internal_id).await?;
        readable(caller, invoice.tcr_code.as_deref(), invoice.user_id)?;
        Ok(invoice)
    }

    /// The company's invoice issued this year with `internal_id`, whoever may read it.
    async fn company_invoice_by_internal_id(&self, caller: &Caller, internal_id: &str) -> Result<Invoice> {
        let company_id = caller.company.id;
        let year = self.services.clock.utc().with_timezone(&Tirane).year();
        let internal_id = internal_id.to_string();
        self.services
            .store
            .read(move |conn| match db::id_by_internal_id(conn, company_id, year, &internal_id)? {
                Some(id) => db::get(conn, company_id, id),
                None => Ok(None),
            })
            .await?
            .ok_or_else(|| Error::NotFound("Invoice".into()))
    }

    /// The invoice as a PDF: A4, or an 80 mm receipt.
    pub async fn invoice_pdf(
        &self,
        caller: &Caller,
        id: i64,
        layout: crate::print::Layout,
    ) -> Result<Vec<u8>> {
        let invoice = self.invoice(caller, id).await?;
        let printable = print::printable(caller, &invoice);
        rendered(format!("invoice {id}"), move || crate::print::render(&printable, layout)).await
    }

    /// Where the PDFs are: `--public-url`, else the request's host.
    pub fn pdf_base(&self, host: Option<&str>) -> String {
        match (&self.services.public_url, host) {
            (Some(base), _) => base.clone(),
            (None, Some(host)) => format!("http://{host}"),
            (None, None) => "http://localhost".to_string(),
        }
    }

    /// Issues a cash or non-cash invoice: checked here, then numbered, signed, saved, delivered
    /// and settled by the pipeline. `Deferred` (cash only) is answered 503 with the invoice.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn issue_invoice(&self, caller: &Caller, req: IssueRequest) -> Result<Issued<Invoice>> {
        let document = self.invoice_document(caller, req).await?;
        self.services.issue(document).await
    }

    /// The setup wizard's test sale: issued as `cashier` (their till, their operator code), and
    /// written in the trail as the `owner`'s, in the sale's own transaction.
    #[tracing::instrument(skip_all, fields(company = owner.company.id, user = owner.user.id), err(level = "info"))]
    pub async fn issue_test_sale(
        &self,
        owner: &Caller,
        cashier: &Caller,
        req: IssueRequest,
    ) -> Result<Issued<Invoice>> {
        let mut document = self.invoice_document(cashier, req).await?;
        document.test_sale_by = Some(owner.clone());
        self.services.issue(document).await
    }
}
