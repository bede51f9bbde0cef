//! The HQ's own audit trail (`hq_audit`): what the chain's people did to shops, owners, boxes
//! and numbers, written in the action's own transaction, read by `arka hq audit`.

use deadpool_postgres::Pool;
use serde_json::Value;

use super::Result;
use super::columns::Typed;

/// Appends an entry in `tx`, the action's own transaction.
pub async fn append(
    tx: &tokio_postgres::Transaction<'_>,
    actor: &str,
    action: &str,
    object: &str,
    detail: Value,
) -> Result<()> {
    let detail = (!detail.is_null()).then_some(detail);
    tx.execute(
        "INSERT INTO hq_audit (actor, action, object, detail) VALUES ($1, $2, $3, $4)",
        &[&actor, &action, &object, &detail],
    )
    .await?;
    Ok(())
}

/// An entry as kept.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Entry {
    pub at: chrono::DateTime<chrono::Utc>,
    pub actor: String,
    pub action: String,
    pub object: String,
    pub detail: Option<Value>,
}

/// The newest `limit` entries, newest first.
pub async fn newest(pool: &Pool, limit: i64) -> Result<Vec<Entry>> {
    let client = pool.get().await?;
    let rows = client
        .query("SELECT at, actor, action, object, detail FROM hq_audit ORDER BY id DESC LIMIT $1", &[&limit])
        .await?;
    rows.iter()
        .map(|r| {
            Ok(Entry {
                at: r.col("at")?,
                actor: r.col("actor")?,
                action: r.col("action")?,
                object: r.col("object")?,
                detail: r.col("detail")?,
            })
        })
        .collect()
}
