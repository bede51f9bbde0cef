//! Who may call which route: for every operation of `assets/openapi.yaml`, the lowest role
//! that may call it and the scope rule the services apply on top. This table is the only
//! place that says so: `check` refuses a call beyond the caller's role with 403 (401 without
//! the right kind of token) before the handler runs, so a refused call changes nothing; the
//! book's permission table (docs/src/api/roles.md) is rendered from it and the OpenAPI document's `x-arka-role`
//! must agree with it (both checked by the tests below).

use std::collections::HashMap;
use std::sync::LazyLock;

use axum::extract::{MatchedPath, Request};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::auth::Identity;
use super::error::ApiError;
use crate::domain::role::Role;

/// Who may call a route at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// No token needed.
    Public,
    /// A partner token (registration); a user token is 403.
    Partner,
    /// A user token of this role or a higher one.
    User(Role),
}

impl Access {
    /// As `x-arka-role` and the book spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Public => "public",
            Access::Partner => "partner",
            Access::User(role) => role.as_str(),
        }
    }
}

/// What the services narrow a permitted call to (`domain::role`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Everything of the caller's company.
    Company,
    /// The caller's own till: the TCR of their `fiscalTcrCode`.
    OwnTill,
    /// A cashier's documents: their till's, and those they issued themselves.
    OwnDocuments,
    /// A cashier cancels their own sales of the same business day.
    OwnSalesOfTheDay,
    /// A cashier reads their own till's report.
    OwnTillReport,
    /// A manager creates cashiers and changes cashiers and themselves; only an owner gives or
    /// changes roles.
    Users,
    /// The caller's own token.
    OwnToken,
    /// The marketplace's own rule: the company's add-on, the token's right, one active venue.
    MarketplaceRight,
    /// Wolt's signature on the body.
    WoltSignature,
    /// The first start: the setup code, or a request from the box itself.
    SetupPass,
    /// The caller's own profile and password.
    OwnAccount,
    /// The one-time code `arka users reset-password` printed on the box.
    ResetCode,
    /// The owner of the box's one company: a backup copies every company on the box.
    TheBox,
    /// A cashier sees their own till; a manager or an owner every till.
    OwnTillOrAll,
    /// The caller's own till; a manager or an owner may name any till of the company (`?tcr=`).
    PickedTill,
}

impl Scope {
    /// The book's words for it.
    pub fn describe(self) -> &'static str {
        match self {
            Scope::Company => "the caller's company",
            Scope::OwnTill => "the caller's own till",
            Scope::OwnDocuments => "a cashier: their till's documents and those they issued",
            Scope::OwnSalesOfTheDay => "a cashier: their own sales of the same business day",
            Scope::OwnTillReport => "a cashier: their own till only",
            Scope::Users => "a manager: cashiers, and themselves; roles: an owner",
            Scope::OwnToken => "the caller's own token",
            Scope::MarketplaceRight => "and the token's marketplace right",
            Scope::WoltSignature => "Wolt's signature",
            Scope::SetupPass => "the setup code, or a request from the box itself",
            Scope::OwnAccount => "the caller's own profile and password",
            Scope::ResetCode => "the one-time code `arka users reset-password` printed on the box",
            Scope::OwnTillOrAll => "a cashier: their own till; a manager or an owner: every till",
            Scope::PickedTill => "the caller's own till; a manager or an owner: any till named in `tcr`",
            Scope::TheBox => "the owner of the box's one company (a backup holds every company)",
        }
    }
}

/// One operation: its method, its path template as the router and the OpenAPI document spell it.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub method: &'static str,
    pub path: &'static str,
    pub access: Access,
    pub scope: Scope,
}

const PUBLIC: Access = Access::Public;
const PARTNER: Access = Access::Partner;
const CASHIER: Access = Access::User(Role::Cashier);
const MANAGER: Access = Access::User(Role::Manager);
const OWNER: Access = Access::User(Role::Owner);

const fn rule(method: &'static str, path: &'static str, access: Access, scope: Scope) -> Rule {
    Rule { method, path, access, scope }
}

use Scope::{
    Company, MarketplaceRight, OwnAccount, OwnDocuments, OwnSalesOfTheDay, OwnTill, OwnTillOrAll,
    OwnTillReport, OwnToken, PickedTill, ResetCode, SetupPass, TheBox, Users, WoltSignature,
};

/// Every operation of `assets/openapi.yaml`, in the document's order of groups.
#[rustfmt::skip]
pub const RULES: &[Rule] = &[
    // Registration and on-boarding
    rule("POST", "/api/v1/register", PARTNER, Company),
    rule("GET", "/api/v1/register", PARTNER, Company),
    rule("POST", "/api/v1/on-boarding/certificate", OWNER, Company),
    rule("POST", "/api/v1/on-boarding/branch", OWNER, Company),
    rule("POST", "/api/v1/on-boarding/branch/{id}", OWNER, Company),
    rule("POST", "/api/v1/on-boarding/user", MANAGER, Users),
    rule("POST", "/api/v1/on-boarding/user/{id}", MANAGER, Users),
    rule("POST", "/api/v1/on-boarding/bank-account", OWNER, Company),
    rule("POST", "/api/v1/on-boarding/fiscal-device", OWNER, Company),
    // Users and their tokens
    rule("GET", "/api/v1/users", OWNER, Company),
    rule("POST", "/api/v1/users/{id}/token", OWNER, Company),
    rule("DELETE", "/api/v1/users/{id}/token", OWNER, Company),
    rule("POST", "/api/v1/users/me/token", CASHIER, OwnToken),
    rule("GET", "/api/v1/users/me", CASHIER, OwnAccount),
    rule("PATCH", "/api/v1/users/me", CASHIER, OwnAccount),
    rule("GET", "/api/v1/audit", MANAGER, Company),
    rule("POST", "/api/v1/users/{id}/password", OWNER, Company),
    // The first start's wizard and people signing in to the page
    rule("GET", "/api/v1/setup", PUBLIC, Company),
    rule("POST", "/api/v1/setup/code", PUBLIC, Company),
    rule("POST", "/api/v1/setup/business", PUBLIC, SetupPass),
    rule("POST", "/api/v1/setup/owner", PUBLIC, SetupPass),
    rule("POST", "/api/v1/setup/certificate", OWNER, Company),
    rule("POST", "/api/v1/setup/unit", OWNER, Company),
    rule("POST", "/api/v1/setup/devices", OWNER, Company),
    rule("POST", "/api/v1/setup/cashiers", OWNER, Company),
    rule("POST", "/api/v1/setup/test-sale", OWNER, Company),
    rule("GET", "/api/v1/session", CASHIER, Company),
    rule("POST", "/api/v1/session", PUBLIC, Company),
    rule("DELETE", "/api/v1/session", CASHIER, Company),
    rule("POST", "/api/v1/session/password", CASHIER, OwnAccount),
    rule("POST", "/api/v1/session/reset", PUBLIC, ResetCode),
    // Connection, account, bank accounts, clients, products
    rule("GET", "/api/openapi.yaml", PUBLIC, Company),
    rule("GET", "/api/v1/ping", CASHIER, Company),
    rule("GET", "/api/v1/account", CASHIER, Company),
    rule("GET", "/api/v1/client/search", CASHIER, Company),
    rule("GET", "/api/v1/bank-accounts", CASHIER, Company),
    rule("GET", "/api/v1/bank-accounts/{id}", CASHIER, Company),
    rule("GET", "/api/v1/clients", CASHIER, Company),
    rule("POST", "/api/v1/clients", CASHIER, Company),
    rule("PUT", "/api/v1/clients/{id}", MANAGER, Company),
    rule("GET", "/api/v1/clients/{id}/details", CASHIER, Company),
    rule("GET", "/api/v2/clients", CASHIER, Company),
    rule("POST", "/api/v2/clients", CASHIER, Company),
    rule("GET", "/api/v2/clients/{id}", CASHIER, Company),
    rule("PATCH", "/api/v2/clients/{id}", MANAGER, Company),
    rule("GET", "/api/v1/products", CASHIER, Company),
    rule("POST", "/api/v1/products", MANAGER, Company),
    rule("PUT", "/api/v1/products/{id}", MANAGER, Company),
    rule("GET", "/api/v1/products/{id}/details", CASHIER, Company),
    rule("GET", "/api/v1/product/categories", CASHIER, Company),
    rule("POST", "/api/v1/product/categories", MANAGER, Company),
    rule("PUT", "/api/v1/product/categories/{id}", MANAGER, Company),
    rule("POST", "/api/v1/products/import", MANAGER, Company),
    // Invoices
    rule("POST", "/api/v1/invoice/cash", CASHIER, OwnTill),
    rule("POST", "/api/v2/invoice/cash", CASHIER, OwnTill),
    rule("POST", "/api/v1/invoice/noncash", CASHIER, Company),
    rule("POST", "/api/v2/invoice/noncash", CASHIER, Company),
    rule("GET", "/api/v1/invoice", CASHIER, OwnDocuments),
    rule("GET", "/api/v2/invoice", CASHIER, OwnDocuments),
    rule("GET", "/api/v1/invoice/{id}/details", CASHIER, OwnDocuments),
    rule("GET", "/api/v2/invoice/{id}/details", CASHIER, OwnDocuments),
    rule("POST", "/api/v1/invoice/details/{internalId}", CASHIER, OwnDocuments),
    rule("POST", "/api/v2/invoice/details/{internalId}", CASHIER, OwnDocuments),
    rule("GET", "/api/v1/invoice/print/{id}", CASHIER, OwnDocuments),
    rule("GET", "/api/v2/invoice/print/{id}", CASHIER, OwnDocuments),
    rule("POST", "/api/v1/invoice/order", CASHIER, OwnTill),
    rule("POST", "/api/v2/invoice/order", CASHIER, OwnTill),
    rule("POST", "/api/v1/invoice/summary", CASHIER, OwnTill),
    rule("POST", "/api/v2/invoice/summary", CASHIER, OwnTill),
    rule("POST", "/api/v1/invoice/cancel/{id}", CASHIER, OwnSalesOfTheDay),
    rule("POST", "/api/v2/invoice/cancel/{id}", CASHIER, OwnSalesOfTheDay),
    rule("POST", "/api/v1/invoice/cancel-by-internal-id/{internalId}", CASHIER, OwnSalesOfTheDay),
    rule("POST", "/api/v2/invoice/cancel-by-internal-id/{internalId}", CASHIER, OwnSalesOfTheDay),
    rule("POST", "/api/v1/invoice/bulk-noncash", CASHIER, Company),
    rule("POST", "/api/v2/invoice/bulk-noncash", CASHIER, Company),
    // Cash register
    rule("POST", "/api/v1/cash-register/open-balance", CASHIER, PickedTill),
    rule("POST", "/api/v1/cash-register/deposit", CASHIER, PickedTill),
    rule("POST", "/api/v1/cash-register/withdraw", CASHIER, PickedTill),
    rule("POST", "/api/v1/cash-register/close-balance", CASHIER, PickedTill),
    rule("GET", "/api/v1/cash-register/actions", CASHIER, PickedTill),
    rule("GET", "/api/v1/cash-register/balance", CASHIER, PickedTill),
    rule("GET", "/api/v2/cash-register/balance", CASHIER, PickedTill),
    // Operations
    rule("GET", "/healthz", PUBLIC, Company),
    rule("GET", "/metrics", PUBLIC, Company),
    // Marketplace
    rule("GET", "/api/partner/v1/marketplace/events", CASHIER, MarketplaceRight),
    rule("GET", "/api/partner/v1/marketplace/orders", CASHIER, MarketplaceRight),
    rule("GET", "/api/partner/v1/marketplace/orders/{id}", CASHIER, MarketplaceRight),
    rule("POST", "/api/partner/v1/marketplace/orders/{id}/accept", CASHIER, MarketplaceRight),
    rule("POST", "/api/partner/v1/marketplace/orders/{id}/reject", CASHIER, MarketplaceRight),
    rule("POST", "/api/partner/v1/marketplace/orders/{id}/ready", CASHIER, MarketplaceRight),
    rule("POST", "/api/partner/v1/marketplace/orders/{id}/courier-picked-up", CASHIER, MarketplaceRight),
    rule("POST", "/api/partner/v1/marketplace/orders/{id}/courier-at-customer", CASHIER, MarketplaceRight),
    rule("POST", "/api/partner/v1/marketplace/orders/{id}/delivered", CASHIER, MarketplaceRight),
    rule("POST", "/api/partner/v1/marketplace/orders/{id}/fiscalize", CASHIER, MarketplaceRight),
    rule("POST", "/api/partner/v1/marketplace/webhooks/wolt", PUBLIC, WoltSignature),
    rule("GET", "/api/partner/v1/marketplace/settings", OWNER, Company),
    rule("PUT", "/api/partner/v1/marketplace/settings", OWNER, Company),
    rule("PUT", "/api/partner/v1/marketplace/rights/{user_id}", OWNER, Company),
    // Currencies, exchange rates, AI
    rule("GET", "/api/v1/currencies", CASHIER, Company),
    rule("PUT", "/api/v1/currencies/{code}", OWNER, Company),
    rule("GET", "/api/v1/exchange-rates", CASHIER, Company),
    rule("GET", "/api/v1/exchange-rates/manual", CASHIER, Company),
    rule("PUT", "/api/v1/exchange-rates/manual/{code}", MANAGER, Company),
    rule("DELETE", "/api/v1/exchange-rates/manual/{code}", MANAGER, Company),
    rule("POST", "/api/v1/ai/chat/completions", CASHIER, Company),
    // E-invoices and purchase invoices
    rule("POST", "/api/v1/invoice/e-invoice", CASHIER, Company),
    rule("POST", "/api/v2/invoice/e-invoice", CASHIER, Company),
    rule("GET", "/api/v1/invoice/print-eic/{eic}", MANAGER, Company),
    rule("GET", "/api/v2/invoice/print-eic/{eic}", MANAGER, Company),
    rule("GET", "/api/v1/purchase-invoices", MANAGER, Company),
    rule("POST", "/api/v1/purchase-invoices/{eic}/status", MANAGER, Company),
    // The owner's page
    rule("GET", "/", PUBLIC, Company),
    rule("GET", "/web/{version}/{name}", PUBLIC, Company),
    rule("GET", "/docs", PUBLIC, Company),
    rule("GET", "/docs/{path}", PUBLIC, Company),
    rule("GET", "/api/v1/owner/today", CASHIER, OwnTillOrAll),
    rule("GET", "/api/v1/owner/queue", MANAGER, Company),
    rule("POST", "/api/v1/owner/queue/{queueId}/resend", OWNER, Company),
    rule("GET", "/api/v1/owner/backup", OWNER, TheBox),
    rule("POST", "/api/v1/owner/backup", OWNER, TheBox),
    rule("POST", "/api/v1/owner/backup/copy/verify", OWNER, TheBox),
    rule("GET", "/api/v1/owner/backup/{file}", OWNER, TheBox),
    // The till and its printer
    rule("GET", "/till", PUBLIC, Company),
    rule("GET", "/till/", PUBLIC, Company),
    rule("GET", "/till/{version}/{name}", PUBLIC, Company),
    rule("GET", "/api/v1/printers", MANAGER, Company),
    rule("GET", "/api/v1/printers/mine", CASHIER, OwnTill),
    rule("PUT", "/api/v1/printers/{tcrCode}", OWNER, Company),
    rule("POST", "/api/v1/printers/{tcrCode}/test", OWNER, Company),
    rule("POST", "/api/v1/invoice/{id}/receipt", CASHIER, OwnDocuments),
    rule("GET", "/api/v2/invoice/open-orders", CASHIER, OwnTillOrAll),
    rule("GET", "/api/v1/till/settings", CASHIER, Company),
    rule("PUT", "/api/v1/till/settings", OWNER, Company),
    // Warehouse transfer notes and stock
    rule("POST", "/api/v1/invoice/wtn", CASHIER, Company),
    rule("GET", "/api/v1/invoice/wtn", CASHIER, OwnDocuments),
    rule("POST", "/api/v2/invoice/wtn", CASHIER, Company),
    rule("GET", "/api/v1/invoice/wtn/details/{internalId}", CASHIER, OwnDocuments),
    rule("GET", "/api/v2/invoice/wtn/details/{internalId}", CASHIER, OwnDocuments),
    rule("GET", "/api/v1/invoice/wtn/print/{id}", CASHIER, OwnDocuments),
    rule("GET", "/api/v2/invoice/wtn/print/{id}", CASHIER, OwnDocuments),
    rule("GET", "/api/v1/invoice/wtn/pdf/{id}", CASHIER, OwnDocuments),
    rule("GET", "/api/v2/invoice/wtn/pdf/{id}", CASHIER, OwnDocuments),
    rule("GET", "/api/v1/reports/wtn", MANAGER, Company),
    rule("GET", "/api/v1/print-settings", CASHIER, Company),
    rule("PUT", "/api/v1/print-settings", OWNER, Company),
    rule("GET", "/api/v1/mobile/products/stock", CASHIER, Company),
    rule("GET", "/api/v1/stock/settings", CASHIER, Company),
    rule("PUT", "/api/v1/stock/settings", OWNER, Company),
    rule("POST", "/api/v1/stock/products/{id}/adjustments", MANAGER, Company),
    rule("GET", "/api/v1/stock/products/{id}", CASHIER, Company),
    // Reports and the dashboard
    rule("GET", "/api/v1/reports/sales-summary", MANAGER, Company),
    rule("GET", "/api/v1/reports/vat", MANAGER, Company),
    rule("GET", "/api/v1/reports/daily-trend", MANAGER, Company),
    rule("GET", "/api/v1/reports/top-clients", MANAGER, Company),
    rule("GET", "/api/v1/reports/top-products", MANAGER, Company),
    rule("GET", "/api/v1/reports/by-operator", MANAGER, Company),
    rule("GET", "/api/v1/reports/by-tcr", MANAGER, Company),
    rule("GET", "/api/v1/reports/cash-register", MANAGER, Company),
    rule("GET", "/api/v1/reports/cash-register/closing", CASHIER, OwnTillReport),
    rule("GET", "/api/v1/reports/cash-register/closing/pdf", CASHIER, OwnTillReport),
    rule("GET", "/api/v1/reports/reversals", MANAGER, Company),
    rule("GET", "/api/v1/dashboard/summary", MANAGER, Company),
];

/// The methods a rule can name, as an index into a path's rules.
const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

fn method_index(method: &Method) -> Option<usize> {
    // HEAD is answered by a GET route.
    let name = if method == Method::HEAD { "GET" } else { method.as_str() };
    METHODS.iter().position(|m| *m == name)
}

/// The rules by path template, then by method.
static BY_PATH: LazyLock<HashMap<&'static str, [Option<&'static Rule>; METHODS.len()]>> =
    LazyLock::new(|| {
        let mut map: HashMap<&'static str, [Option<&'static Rule>; METHODS.len()]> = HashMap::new();
        for rule in RULES {
            if let Some(at) = METHODS.iter().position(|m| *m == rule.method) {
                map.entry(rule.path).or_default()[at] = Some(rule);
            }
        }
        map
    });

/// What the table says of a route.
#[derive(Debug, Clone, Copy)]
pub enum Lookup {
    Rule(&'static Rule),
    /// A path the table knows, with a method it does not: the router answers 405.
    OtherMethod,
    /// A route the table does not know.
    Unknown,
}

pub fn lookup(method: &Method, path: &str) -> Lookup {
    match BY_PATH.get(path) {
        None => Lookup::Unknown,
        Some(rules) => match method_index(method).and_then(|at| rules[at]) {
            Some(rule) => Lookup::Rule(rule),
            None => Lookup::OtherMethod,
        },
    }
}

/// Whether `identity` may call the route `path` (its template) with `method`.
pub fn decide(method: &Method, path: &str, identity: Option<&Identity>) -> Result<(), ApiError> {
    let rule = match lookup(method, path) {
        Lookup::Rule(rule) => rule,
        Lookup::OtherMethod => return Ok(()),
        Lookup::Unknown => {
            tracing::error!(%method, path, "a route has no rule in the permission table; refused");
            return Err(ApiError::status(StatusCode::FORBIDDEN, "No rule says who may call this route."));
        }
    };
    match (rule.access, identity) {
        (Access::Public, _) => Ok(()),
        (Access::Partner, Some(Identity::Partner(_))) => Ok(()),
        (Access::Partner, Some(Identity::User(_))) => {
            Err(ApiError::status(StatusCode::FORBIDDEN, "Registration needs a partner token."))
        }
        (Access::User(lowest), Some(Identity::User(caller))) if caller.role() >= lowest => Ok(()),
        (Access::User(lowest), Some(Identity::User(caller))) => {
            Err(ApiError::status(StatusCode::FORBIDDEN, beyond_role(lowest, caller.role())))
        }
        (Access::Partner | Access::User(_), _) => Err(ApiError::Unauthenticated),
    }
}

/// The 403's words: who may call the route, and what the caller's token is.
fn beyond_role(lowest: Role, caller: Role) -> String {
    let needed = match lowest {
        Role::Owner => "an owner's token".to_string(),
        role => format!("a {role}'s token or an owner's"),
    };
    format!("This needs {needed}; this token is a {caller}'s.")
}

/// The middleware: after `auth::identify`, before the route's budget and its handler.
pub async fn check(req: Request, next: Next) -> Response {
    let decided = match req.extensions().get::<MatchedPath>() {
        Some(path) => decide(req.method(), path.as_str(), req.extensions().get::<Identity>()).map_err(|e| {
            if path.as_str().starts_with(super::marketplace::PREFIX) { e.into_marketplace() } else { e }
        }),
        None => Ok(()),
    };
    match decided {
        Ok(()) => next.run(req).await,
        Err(refusal) => refusal.into_response(),
    }
}

/// The book's permission table (docs/src/api/roles.md).
pub fn markdown() -> String {
    let mut text = String::from("| Method | Route | Lowest role | Scope |\n| --- | --- | --- | --- |\n");
    for rule in RULES {
        text.push_str(&format!(
            "| {} | `{}` | {} | {} |\n",
            rule.method,
            rule.path,
            rule.access.as_str(),
            rule.scope.describe()
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use super::*;

    const OPENAPI: &str = include_str!("../../assets/openapi.yaml");
    const CHAPTER: &str = include_str!("../../docs/src/api/roles.md");
    const BEGIN: &str = "<!-- permissions: generated from src/api/permissions.rs -->\n";
    const END: &str = "<!-- permissions: end -->";

    /// Every operation of the OpenAPI document: (method, path) → the operation.
    fn operations() -> Vec<(String, String, serde_json::Value)> {
        let doc: serde_json::Value = serde_yaml_ng::from_str(OPENAPI).unwrap();
        let mut found = Vec::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                if ["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                    found.push((method.to_uppercase(), path.clone(), operation.clone()));
                }
            }
        }
        found
    }

    #[test]
    fn the_table_names_every_operation_of_the_openapi_document_and_nothing_else() {
        let documented: BTreeSet<(String, String)> =
            operations().into_iter().map(|(m, p, _)| (m, p)).collect();
        let table: BTreeSet<(String, String)> =
            RULES.iter().map(|r| (r.method.to_string(), r.path.to_string())).collect();
        assert_eq!(table.len(), RULES.len(), "a route is in the table twice");
        let missing: Vec<_> = documented.difference(&table).collect();
        let unknown: Vec<_> = table.difference(&documented).collect();
        assert!(missing.is_empty(), "operations of assets/openapi.yaml without a rule: {missing:?}");
        assert!(unknown.is_empty(), "rules for routes assets/openapi.yaml does not have: {unknown:?}");
    }

    #[test]
    fn every_operation_says_its_role_as_the_table_does() {
        for (method, path, operation) in operations() {
            let Lookup::Rule(rule) = lookup(&method.parse().unwrap(), &path) else {
                panic!("{method} {path} has no rule");
            };
            let role = rule.access.as_str();
            assert_eq!(operation["x-arka-role"].as_str(), Some(role), "x-arka-role of {method} {path}");
            let sentence = format!("**Role: `{role}`**");
            assert!(
                operation["description"].as_str().is_some_and(|d| d.contains(&sentence)),
                "the description of {method} {path} says {sentence}"
            );
            let refuses = matches!(rule.access, Access::User(r) if r > Role::Cashier)
                || !matches!(
                    rule.scope,
                    Scope::Company
                        | Scope::OwnTill
                        | Scope::OwnTillOrAll
                        | Scope::OwnToken
                        | Scope::OwnAccount
                        | Scope::ResetCode
                        | Scope::WoltSignature
                );
            if refuses {
                assert!(operation["responses"].get("403").is_some(), "{method} {path} lists its 403");
            }
        }
    }

    #[test]
    fn the_book_shows_the_table_as_the_code_has_it() {
        let expected = markdown();
        let found = CHAPTER
            .split_once(BEGIN)
            .and_then(|(_, rest)| rest.split_once(END))
            .map(|(table, _)| table.trim_start_matches('\n'))
            .unwrap_or_else(|| panic!("docs/src/api/roles.md has no block between {BEGIN:?} and {END:?}"));
        assert!(
            found == expected,
            "docs/src/api/roles.md's permission table differs from src/api/permissions.rs; put this between the markers:\n{expected}"
        );
    }

    fn user(role: Role) -> Identity {
        let company = crate::store::accounts::Company {
            id: 1,
            nuis: "L41323036D".into(),
            name: "Dyqani".into(),
            address: None,
            city: None,
            issuer_in_vat: true,
            is_sandbox: false,
        };
        let user = crate::store::accounts::User {
            id: 1,
            company_id: 1,
            business_unit_id: None,
            name: "Ana".into(),
            email: "ana@dyqani.al".into(),
            operator_code: None,
            tcr_code: None,
            role,
        };
        Identity::User(Arc::new(crate::store::accounts::Caller {
            user,
            company,
            unit: None,
            request_id: None,
            session: false,
        }))
    }

    fn status(result: Result<(), ApiError>) -> u16 {
        match result {
            Ok(()) => 200,
            Err(ApiError::Unauthenticated) => 401,
            Err(ApiError::Status { status, .. }) => status.as_u16(),
            Err(other) => panic!("unexpected refusal {other:?}"),
        }
    }

    #[test]
    fn a_role_below_the_rule_is_403_and_no_token_401() {
        let anonymous = Identity::Anonymous(std::net::Ipv4Addr::LOCALHOST.into());
        let partner = Identity::Partner(1);
        let (post, get) = (Method::POST, Method::GET);
        let certificate = "/api/v1/on-boarding/certificate";
        assert_eq!(status(decide(&post, certificate, Some(&user(Role::Owner)))), 200);
        assert_eq!(status(decide(&post, certificate, Some(&user(Role::Manager)))), 403);
        assert_eq!(status(decide(&post, certificate, Some(&user(Role::Cashier)))), 403);
        assert_eq!(status(decide(&post, certificate, Some(&partner))), 401);
        assert_eq!(status(decide(&post, certificate, Some(&anonymous))), 401);
        assert_eq!(status(decide(&post, certificate, None)), 401);
        assert_eq!(status(decide(&post, "/api/v1/register", Some(&partner))), 200);
        assert_eq!(status(decide(&post, "/api/v1/register", Some(&user(Role::Owner)))), 403);
        assert_eq!(status(decide(&post, "/api/v1/register", Some(&anonymous))), 401);
        assert_eq!(status(decide(&get, "/healthz", None)), 200);
        assert_eq!(status(decide(&Method::HEAD, "/api/v1/account", Some(&user(Role::Cashier)))), 200);
        assert_eq!(status(decide(&Method::DELETE, "/api/v1/account", None)), 200, "405 is the router's");
        assert_eq!(status(decide(&get, "/api/v1/nowhere", Some(&user(Role::Owner)))), 403, "fails closed");
        assert_eq!(
            beyond_role(Role::Owner, Role::Cashier),
            "This needs an owner's token; this token is a cashier's."
        );
        assert_eq!(
            beyond_role(Role::Manager, Role::Cashier),
            "This needs a manager's token or an owner's; this token is a cashier's."
        );
    }
}
