//! The invoice answers (`arka_core::wire::invoices`, the shapes a shop and its head office
//! share), with where a shop's links point: the server's public URL (`--public-url`, else the
//! request's host).

use arka_core::domain::document::ApiVersion;
use arka_core::invoice::Invoice;
pub use arka_core::wire::invoices::*;

use super::super::AppState;

fn links(state: &AppState, host: Option<&str>) -> Links {
    Links { base: state.services.selling().pdf_base(host) }
}

pub fn issue_result<'a>(
    state: &AppState,
    invoice: &'a Invoice,
    version: ApiVersion,
    host: Option<&str>,
) -> IssueResult<'a> {
    issue_result_at(&links(state, host), invoice, version)
}

pub fn list_item<'a>(
    state: &AppState,
    invoice: &'a Invoice,
    version: ApiVersion,
    host: Option<&str>,
) -> ListItem<'a> {
    list_item_at(&links(state, host), invoice, version)
}

pub fn details<'a>(
    state: &AppState,
    invoice: &'a Invoice,
    version: ApiVersion,
    host: Option<&str>,
) -> Details<'a> {
    details_at(&links(state, host), invoice, version)
}
