//! The product catalog and its categories.

use super::{Catalog, Clash, Error, Result};
use crate::domain::product::{self, CategoryInput, Product, ProductInput};
use crate::domain::product_import::{ImportRow, key};
use crate::domain::validation::FieldErrors;
use crate::store;
use crate::store::accounts::Caller;
use crate::store::products::{self as db, StoredCategory, StoredProduct};

/// A taken unique value is the caller's 409, `clash` naming which; any other failure stays as
/// it is.
fn taken(clash: fn(store::Error) -> Clash) -> impl Fn(Error) -> Error {
    move |e| match e {
        Error::Store(duplicate @ store::Error::Duplicate(_)) => Error::Clash(clash(duplicate)),
        other => other,
    }
}

fn unknown_category() -> Error {
    Error::Invalid(FieldErrors::one("id_category", "The selected id_category is invalid."))
}

fn lost(what: &'static str) -> Error {
    Error::Vanished(what)
}

/// Why a shop in a chain may not change a product its head office sets.
pub const CENTRAL_PRODUCT: &str = "This product and its price are set by the chain's head office: change it there, and it comes down to every shop on their next sync.";

/// What an import does to one product: `id` None creates it.
#[derive(Debug, Clone)]
pub struct ImportPlan {
    pub line: usize,
    pub id: Option<i64>,
    pub product: Product,
}

/// Every row checked as its own create or update would be (the same rules and messages), each
/// error keyed by its line; all of them, or the plan when none.
fn plan_import(conn: &rusqlite::Connection, company_id: i64, rows: &[ImportRow]) -> Result<Vec<ImportPlan>> {
    let mut errors = FieldErrors::new();
    let mut plans = Vec::with_capacity(rows.len());
    for row in rows {
        let id = db::product_id_by_code(conn, company_id, &row.code)?;
        if let Some(id) = id
            && crate::store::hq_outbox::is_central(conn, id)?
        {
            // A chain's central product is the head office's to change, in an import too.
            errors.add(key(row.line, "code"), CENTRAL_PRODUCT);
            continue;
        }
        let stored = match id {
            Some(id) => db::product(conn, company_id, id)?,
            None => None,
        };
        match product::build(stored.as_ref().map(|s| &s.product), &row.input) {
            Ok(product) => plans.push(ImportPlan { line: row.line, id, product }),
            Err(refused) => {
                for (field, messages) in refused.into_map() {
                    for message in messages {
                        errors.add(key(row.line, &field), message);
                    }
                }
            }
        }
    }
    if !errors.is_empty() {
        return Err(Error::Invalid(errors));
    }
    Ok(plans)
}

impl Catalog<'_> {
    /// A product list from a file: `apply` false only checks it and says what it would do;
    /// true writes every row in one transaction, and nothing when any row is refused.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, rows = rows.len(), apply), err(level = "info"))]
    pub async fn import_products(
        &self,
        caller: &Caller,
        rows: Vec<ImportRow>,
        apply: bool,
    ) -> Result<Vec<ImportPlan>> {
        let company_id = caller.company.id;
        if !apply {
            return self.services.store.read(move |conn| Ok(plan_import(conn, company_id, &rows))).await?;
        }
        let entry = super::audit::by(caller, crate::domain::audit::Action::ProductImport, company_id);
        self.services
            .store
            .write(move |tx| {
                let plans = plan_import(tx, company_id, &rows)?;
                for plan in &plans {
                    match plan.id {
                        Some(id) => {
                            db::update_product(tx, company_id, id, &plan.product)?;
                        }
                        None => {
                            db::insert_product(tx, company_id, &plan.product)?;
                        }
                    }
                }
                let updated = plans.iter().filter(|p| p.id.is_some()).count();
                let entry = entry.after(serde_json::json!({
                    "created": plans.len() - updated,
                    "updated": updated,
                }));
                crate::store::audit::append(tx, &entry)?;
                Ok(plans)
            })
            .await
            .map_err(taken(Clash::DuplicateProductCode))
    }

    /// The company's products, newest first (`limit` None: all of them), and how many there are.
    pub async fn products(
        &self,
        caller: &Caller,
        limit: Option<i64>,
        offset: i64,
    ) -> Result<(Vec<StoredProduct>, i64)> {
        let company_id = caller.company.id;
        Ok(self
            .services
            .store
            .read(move |conn| {
                let total = db::count_products(conn, company_id)?;
                let items = db::products(conn, company_id, limit, offset)?;
                Ok((items, total))
            })
            .await?)
    }

    pub async fn product(&self, caller: &Caller, id: i64) -> Result<StoredProduct> {
        let company_id = caller.company.id;
        self.services
            .store
            .read(move |conn| db::product(conn, company_id, id))
            .await?
            .ok_or_else(|| Error::NotFound("Product".into()))
    }

    /// Creates a product (`id` None) or rewrites one of the company's, in one transaction that
    /// also checks the category belongs to the company.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn save_product(
        &self,
        caller: &Caller,
        id: Option<i64>,
        input: ProductInput,
    ) -> Result<StoredProduct> {
        let company_id = caller.company.id;
        self.services
            .store
            .write(move |tx| {
                let stored = match id {
                    Some(id) => match db::product(tx, company_id, id)? {
                        Some(_) if crate::store::hq_outbox::is_central(tx, id)? => {
                            return Err(Error::Clash(Clash::CentralProduct));
                        }
                        Some(stored) => Some(stored),
                        None => return Err(Error::NotFound("Product".into())),
                    },
                    None => None,
                };
                let product = product::build(stored.as_ref().map(|s| &s.product), &input)?;
                if let Some(category_id) = product.category_id
                    && db::category(tx, company_id, category_id)?.is_none()
                {
                    return Err(unknown_category());
                }
                let id = match id {
                    Some(id) => {
                        db::update_product(tx, company_id, id, &product)?;
                        id
                    }
                    None => db::insert_product(tx, company_id, &product)?,
                };
                db::product(tx, company_id, id)?.ok_or_else(|| lost("the product just saved"))
            })
            .await
            .map_err(taken(Clash::DuplicateProductCode))
    }

    /// Every category of the company, newest first.
    pub async fn categories(&self, caller: &Caller) -> Result<Vec<StoredCategory>> {
        let company_id = caller.company.id;
        Ok(self.services.store.read(move |conn| db::categories(conn, company_id)).await?)
    }

    /// Creates a category (`id` None) or rewrites one of the company's.
    #[tracing::instrument(skip_all, fields(company = caller.company.id, user = caller.user.id), err(level = "info"))]
    pub async fn save_category(
        &self,
        caller: &Caller,
        id: Option<i64>,
        input: CategoryInput,
    ) -> Result<StoredCategory> {
        let company_id = caller.company.id;
        self.services
            .store
            .write(move |tx| {
                let stored = match id {
                    Some(id) => match db::category(tx, company_id, id)? {
                        Some(stored) => Some(stored),
                        None => return Err(Error::NotFound("Category".into())),
                    },
                    None => None,
                };
                let category = product::build_category(stored.as_ref().map(|s| &s.category), &input)?;
                let id = match id {
                    Some(id) => {
                        db::update_category(tx, company_id, id, &category)?;
                        id
                    }
                    None => db::insert_category(tx, company_id, &category)?,
                };
                db::category(tx, company_id, id)?.ok_or_else(|| lost("the category just saved"))
            })
            .await
            .map_err(taken(Clash::DuplicateCategory))
    }
}
