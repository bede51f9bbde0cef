//! Products and prices set at the head office: the owner sets a business's product here
//! (`PUT /hq/v1/products/{code}`), each change takes the next version, and every shop of that
//! NUIS pulls what changed after the version it holds (`GET /hq/v1/products`), on its next sync.
//! The shop marks them central and refuses a local change of one, with the reason.

use deadpool_postgres::Pool;
use rust_decimal::Decimal;

use super::Result;
use super::columns::Typed;
use arka_core::domain::product::VAT_RATES;
use arka_core::domain::validation::FieldErrors;
use arka_core::wire::CentralProduct;

/// What the owner sends for one product.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct ProductBody {
    pub nuis: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
    pub price: Option<Decimal>,
    pub vat_rate: Option<String>,
    pub currency: Option<String>,
    pub unit_code: Option<String>,
    pub service: Option<bool>,
}

/// The product `code` as `body` sets it, or every field that is wrong.
pub fn read(code: &str, body: ProductBody) -> std::result::Result<CentralProduct, FieldErrors> {
    let mut errors = FieldErrors::new();
    let text = |errors: &mut FieldErrors, field: &str, value: Option<String>, max: usize| {
        let value = value.map(|v| v.trim().to_string()).unwrap_or_default();
        if value.is_empty() || value.chars().count() > max || value.chars().any(char::is_control) {
            errors.add(field, format!("The {field} is required, at most {max} characters."));
        }
        value
    };
    let nuis = text(&mut errors, "nuis", body.nuis, 20);
    let name = text(&mut errors, "name", body.name, 255);
    if code.trim().is_empty() || code.chars().count() > 50 || code.chars().any(char::is_control) {
        errors.add("code", "The code is required, at most 50 characters.");
    }
    let price = body.price.unwrap_or(Decimal::NEGATIVE_ONE);
    if price < Decimal::ZERO || price > Decimal::from(1_000_000_000) || price.scale() > 2 {
        errors.add("price", "The price must be an amount from 0 with at most 2 decimals.");
    }
    let vat_rate = body.vat_rate.map(|v| v.trim().to_string()).unwrap_or_default();
    if !VAT_RATES.contains(&vat_rate.as_str()) {
        errors.add("vat_rate", "The vat_rate must be one of: 0, 6, 10, 20.");
    }
    let currency = body.currency.map(|c| c.trim().to_ascii_uppercase()).unwrap_or_else(|| "ALL".into());
    if currency.len() != 3 || !currency.chars().all(|c| c.is_ascii_uppercase()) {
        errors.add("currency", "The currency must be a 3-letter code.");
    }
    let unit_code = body
        .unit_code
        .map(|u| u.trim().to_string())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "C62".into());
    errors.into_result()?;
    Ok(CentralProduct {
        nuis,
        code: code.trim().to_string(),
        name,
        description: body.description.unwrap_or_default(),
        price: price.to_string(),
        vat_rate,
        currency,
        unit_code,
        service: body.service.unwrap_or(false),
        version: 0,
        withdrawn: false,
    })
}

/// What setting a product came to: its new version, and the shops of its business that had a
/// product of that code of their own, which the head office now sets.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Set {
    pub version: i64,
    pub taken_over: Vec<String>,
}

/// Sets the product. Setters take turns (a transaction lock), so versions become visible in
/// their order and a shop that read version N never misses an N - 1 after it.
pub async fn set(pool: &Pool, p: &CentralProduct) -> Result<Set> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock(30)", &[]).await?;
    let central = tx
        .query_opt(
            "SELECT withdrawn_at IS NULL AS set FROM central_products WHERE nuis = $1 AND code = $2",
            &[&p.nuis, &p.code],
        )
        .await?
        .map(|r| r.col::<bool>("set"))
        .transpose()?
        .unwrap_or(false);
    let row = tx
        .query_one(
            "INSERT INTO central_products (nuis, code, name, description, price, vat_rate, currency, unit_code, service,
                 version)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, nextval('central_product_versions'))
             ON CONFLICT (nuis, code) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description,
                 price = EXCLUDED.price, vat_rate = EXCLUDED.vat_rate, currency = EXCLUDED.currency,
                 unit_code = EXCLUDED.unit_code, service = EXCLUDED.service, version = EXCLUDED.version,
                 updated_at = now(), withdrawn_at = NULL
             RETURNING version",
            &[&p.nuis, &p.code, &p.name, &p.description, &p.price, &p.vat_rate, &p.currency, &p.unit_code, &p.service],
        )
        .await?;
    // A shop's own product of this code (as it shipped it) is the head office's from now on.
    let taken_over = match central {
        true => Vec::new(),
        false => tx
            .query(
                "SELECT DISTINCT s.name FROM shops s JOIN shop_rows r ON r.shop_id = s.id AND r.tbl = 'products'
                 WHERE s.nuis = $1 AND r.row->>'code' = $2 ORDER BY s.name",
                &[&p.nuis, &p.code],
            )
            .await?
            .iter()
            .map(|r| r.col("name"))
            .collect::<Result<_>>()?,
    };
    tx.commit().await?;
    Ok(Set { version: row.col("version")?, taken_over })
}

/// Withdraws the product `code` of `nuis`: the shops keep it as their own. Its new version, or
/// none when the head office does not set it.
pub async fn withdraw(pool: &Pool, nuis: &str, code: &str) -> Result<Option<i64>> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock(30)", &[]).await?;
    let row = tx
        .query_opt(
            "UPDATE central_products SET withdrawn_at = now(), version = nextval('central_product_versions'),
                 updated_at = now()
             WHERE nuis = $1 AND code = $2 AND withdrawn_at IS NULL RETURNING version",
            &[&nuis, &code],
        )
        .await?;
    tx.commit().await?;
    row.map(|r| r.col("version")).transpose()
}

const COLUMNS: &str = "nuis, code, name, description, price, vat_rate, currency, unit_code, service, version,
     withdrawn_at IS NOT NULL AS withdrawn";

fn product(r: &tokio_postgres::Row) -> Result<CentralProduct> {
    Ok(CentralProduct {
        nuis: r.col("nuis")?,
        code: r.col("code")?,
        name: r.col("name")?,
        description: r.col("description")?,
        price: r.col("price")?,
        vat_rate: r.col("vat_rate")?,
        currency: r.col("currency")?,
        unit_code: r.col("unit_code")?,
        service: r.col("service")?,
        version: r.col("version")?,
        withdrawn: r.col("withdrawn")?,
    })
}

/// The products of `nuis` changed after `after`, oldest change first.
pub async fn changed(pool: &Pool, nuis: &str, after: i64, limit: i64) -> Result<Vec<CentralProduct>> {
    let client = pool.get().await?;
    let rows = client
        .query(
            &format!("SELECT {COLUMNS} FROM central_products WHERE nuis = $1 AND version > $2 ORDER BY version LIMIT $3"),
            &[&nuis, &after, &limit],
        )
        .await?;
    rows.iter().map(product).collect()
}

/// The products the head office sets (of `nuis`, or of every business), by business and code;
/// withdrawn ones left out.
pub async fn list(pool: &Pool, nuis: Option<&str>) -> Result<Vec<CentralProduct>> {
    let client = pool.get().await?;
    let rows = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM central_products
                 WHERE withdrawn_at IS NULL AND ($1::text IS NULL OR nuis = $1) ORDER BY nuis, code"
            ),
            &[&nuis],
        )
        .await?;
    rows.iter().map(product).collect()
}
