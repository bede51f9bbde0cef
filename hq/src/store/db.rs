//! The HQ's PostgreSQL: the pool (tokio-postgres through deadpool, TLS through native-tls), the
//! migrations (refinery, `hq/migrations/`, embedded like the shop's), shops and owners.

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};

use super::columns::Typed;
use super::{Error, Result};
use arka_edge::secrets::{hash_token, new_token};

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// A pool of at most `size` connections to `url`; none is opened before it is asked for.
pub fn pool(url: &str, size: usize) -> Result<Pool> {
    let config: tokio_postgres::Config = url.parse().map_err(Error::Url)?;
    let connector = native_tls::TlsConnector::new().map_err(Error::Tls)?;
    let tls = postgres_native_tls::MakeTlsConnector::new(connector);
    let manager =
        Manager::from_config(config, tls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
    Pool::builder(manager)
        .max_size(size.max(1))
        .runtime(Runtime::Tokio1)
        .create_timeout(Some(std::time::Duration::from_secs(5)))
        .wait_timeout(Some(std::time::Duration::from_secs(10)))
        .build()
        .map_err(|e| Error::Pool(e.to_string()))
}

/// Brings the HQ's schema up to date.
pub async fn migrate(pool: &Pool) -> Result<()> {
    let mut client = pool.get().await?;
    let client: &mut tokio_postgres::Client = &mut client;
    embedded::migrations::runner().run_async(client).await.map_err(Error::Migration)?;
    Ok(())
}

/// Adds a shop of the business `nuis`; returns its token (stored hashed, shown once).
pub async fn add_shop(pool: &Pool, name: &str, nuis: &str) -> Result<String> {
    let token = new_token("hqs").map_err(Error::Token)?;
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let inserted = tx
        .execute(
            "INSERT INTO shops (name, token_hash, nuis) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
            &[&name, &hash_token(&token), &nuis],
        )
        .await?;
    if inserted == 0 {
        return Err(Error::Taken(format!("there is already a shop named \"{name}\"")));
    }
    super::audit::append(&tx, "cli", "shop.add", name, serde_json::json!({"nuis": nuis})).await?;
    tx.commit().await?;
    Ok(token)
}

/// Adds an owner of the chain; returns the token that reads every shop (stored hashed).
pub async fn add_owner(pool: &Pool, name: &str) -> Result<String> {
    let token = new_token("hqo").map_err(Error::Token)?;
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let inserted = tx
        .execute(
            "INSERT INTO owners (name, token_hash) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
            &[&name, &hash_token(&token)],
        )
        .await?;
    if inserted == 0 {
        return Err(Error::Taken(format!("there is already an owner named \"{name}\"")));
    }
    super::audit::append(&tx, "cli", "owner.add", name, serde_json::Value::Null).await?;
    tx.commit().await?;
    Ok(token)
}

/// A shop as the HQ knows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Shop {
    pub id: i64,
    pub name: String,
    /// The business it sells for; none for a shop added before it was asked and silent since.
    pub nuis: Option<String>,
    /// The highest outbox sequence of the shop the HQ holds.
    pub acked_seq: i64,
    pub synced_at: Option<chrono::DateTime<chrono::Utc>>,
    /// The box that ships for it (none before its first call).
    pub box_id: Option<String>,
    pub last_heard_at: Option<chrono::DateTime<chrono::Utc>>,
    pub retired_at: Option<chrono::DateTime<chrono::Utc>>,
    /// What its last heartbeat said (its backlog, its CIS queue).
    pub heartbeat: Option<serde_json::Value>,
}

/// The columns `shop` reads.
const SHOP_COLUMNS: &str =
    "id, name, nuis, acked_seq, synced_at, box_id, last_heard_at, retired_at, heartbeat";

fn shop(row: &tokio_postgres::Row) -> Result<Shop> {
    Ok(Shop {
        id: row.col("id")?,
        name: row.col("name")?,
        nuis: row.col("nuis")?,
        acked_seq: row.col("acked_seq")?,
        synced_at: row.col("synced_at")?,
        box_id: row.col("box_id")?,
        last_heard_at: row.col("last_heard_at")?,
        retired_at: row.col("retired_at")?,
        heartbeat: row.col("heartbeat")?,
    })
}

/// The shop whose token this is, unless the token was revoked.
pub async fn shop_by_token(pool: &Pool, token: &str) -> Result<Option<Shop>> {
    let client = pool.get().await?;
    let row = client
        .query_opt(
            &format!("SELECT {SHOP_COLUMNS} FROM shops WHERE token_hash = $1 AND revoked_at IS NULL"),
            &[&hash_token(token)],
        )
        .await?;
    row.as_ref().map(shop).transpose()
}

/// The owner whose token this is, by name.
pub async fn owner(pool: &Pool, token: &str) -> Result<Option<String>> {
    let client = pool.get().await?;
    let row =
        client.query_opt("SELECT name FROM owners WHERE token_hash = $1", &[&hash_token(token)]).await?;
    row.map(|r| r.col("name")).transpose()
}

pub async fn shops(pool: &Pool) -> Result<Vec<Shop>> {
    let client = pool.get().await?;
    let rows = client.query(&format!("SELECT {SHOP_COLUMNS} FROM shops ORDER BY name"), &[]).await?;
    rows.iter().map(shop).collect()
}

/// A page of a shop's rows of one table, in key order after `after` (for a restore).
pub async fn rows(
    pool: &Pool,
    shop_id: i64,
    table: &str,
    after: Option<&str>,
    limit: i64,
) -> Result<(Vec<serde_json::Value>, Option<String>)> {
    let client = pool.get().await?;
    let found = client
        .query(
            "SELECT key, row FROM shop_rows WHERE shop_id = $1 AND tbl = $2 AND key > $3 ORDER BY key LIMIT $4",
            &[&shop_id, &table, &after.unwrap_or(""), &limit],
        )
        .await?;
    let next = match found.last() {
        Some(last) if found.len() as i64 == limit => Some(last.col::<String>("key")?),
        _ => None,
    };
    Ok((found.iter().map(|r| r.col::<serde_json::Value>("row")).collect::<Result<_>>()?, next))
}

/// The name and NUIS of a shop's company as it shipped them (its first, as a shop has one).
pub async fn company(pool: &Pool, shop_id: i64) -> Result<Option<(String, String)>> {
    let client = pool.get().await?;
    let row = client
        .query_opt(
            "SELECT row->>'name' AS name, row->>'nuis' AS nuis FROM shop_rows WHERE shop_id = $1 AND tbl = 'companies'
             ORDER BY (row->>'id')::bigint LIMIT 1",
            &[&shop_id],
        )
        .await?;
    row.map(|r| Ok((r.col("name")?, r.col("nuis")?))).transpose()
}
