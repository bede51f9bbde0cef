//! Non-cash numbers reserved and not turned into documents: a shop killed between the HQ's
//! reservation and its own write, or a box a restore replaced, leaves its number reserved with
//! no document, a gap at the CIS unless the POS retries that document. The owner sees them
//! (`arka hq numbers held`, `GET /hq/v1/numbers/held`, the owner's page) with their age, and
//! resolves each: given back (the next reservation of the business takes it: only when sure it
//! never reached the CIS) or voided (kept taken, listed as a gap). Both are audited.

use deadpool_postgres::Pool;
use serde::Serialize;

use super::columns::Typed;
use super::{Error, Result};

/// A reservation with no document at the HQ.
#[derive(Debug, Clone, Serialize)]
pub struct Held {
    pub nuis: String,
    pub year: i32,
    pub ord_num: i64,
    /// The shop that reserved it (none once given back).
    pub shop: Option<String>,
    /// The box that reserved it was replaced by a restore: it may have issued it before it died.
    pub box_replaced: bool,
    pub reserved_at: chrono::DateTime<chrono::Utc>,
    pub age_seconds: i64,
    pub voided_at: Option<chrono::DateTime<chrono::Utc>>,
    pub void_reason: Option<String>,
}

/// The reservations older than `older_than_seconds` with no document at the HQ (a shop's
/// non-cash document of that business, year and number: `apply` marks the number documented
/// when it brings one), oldest first; the voided ones too with `voided`.
pub async fn held(pool: &Pool, older_than_seconds: i64, voided: bool) -> Result<Vec<Held>> {
    let client = pool.get().await?;
    let rows = client
        .query(
            "SELECT n.nuis, n.year, n.ord_num, s.name AS shop, n.reserved_at, n.voided_at, n.void_reason,
                 (n.box_id IS DISTINCT FROM s.box_id) AS box_replaced,
                 EXTRACT(EPOCH FROM now() - n.reserved_at)::bigint AS age_seconds
             FROM noncash_numbers n JOIN shops s ON s.id = n.shop_id
             WHERE NOT n.documented AND n.shop_id IS NOT NULL
               AND n.reserved_at <= now() - make_interval(secs => $1::bigint)
               AND ($2 OR n.voided_at IS NULL)
             ORDER BY n.reserved_at, n.ord_num",
            &[&older_than_seconds, &voided],
        )
        .await?;
    rows.iter()
        .map(|r| {
            Ok(Held {
                nuis: r.col("nuis")?,
                year: r.col("year")?,
                ord_num: r.col("ord_num")?,
                shop: r.col("shop")?,
                box_replaced: r.col("box_replaced")?,
                reserved_at: r.col("reserved_at")?,
                age_seconds: r.col("age_seconds")?,
                voided_at: r.col("voided_at")?,
                void_reason: r.col("void_reason")?,
            })
        })
        .collect()
}

/// What the owner does with a held number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// Free again: the next reservation of the business takes it.
    GiveBack,
    /// Kept taken and listed as a gap, with the reason.
    Void,
}

/// Resolves the held number `ord_num` of `nuis` in `year`, with `reason`. Audited. A number
/// with a document, one not reserved, or one voided already is refused.
pub async fn resolve(
    pool: &Pool,
    (nuis, year, ord_num): (&str, i32, i64),
    resolution: Resolution,
    reason: &str,
) -> Result<()> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let held = tx
        .query_opt(
            "SELECT s.name AS shop, n.held_for FROM noncash_numbers n JOIN shops s ON s.id = n.shop_id
             WHERE n.nuis = $1 AND n.year = $2 AND n.ord_num = $3 AND n.voided_at IS NULL AND NOT n.documented
             FOR UPDATE OF n",
            &[&nuis, &year, &ord_num],
        )
        .await?;
    let Some(held) = held else {
        return Err(Error::Unknown(format!(
            "{ord_num}/{year} of {nuis} is not a held number (not reserved, voided already, or its document is at the head office)"
        )));
    };
    let (action, statement) = match resolution {
        Resolution::GiveBack => (
            "numbers.give_back",
            "UPDATE noncash_numbers SET shop_id = NULL, held_for = NULL, box_id = NULL
             WHERE nuis = $1 AND year = $2 AND ord_num = $3",
        ),
        Resolution::Void => (
            "numbers.void",
            "UPDATE noncash_numbers SET voided_at = now(), void_reason = $4 WHERE nuis = $1 AND year = $2 AND ord_num = $3",
        ),
    };
    match resolution {
        Resolution::GiveBack => tx.execute(statement, &[&nuis, &year, &ord_num]).await?,
        Resolution::Void => tx.execute(statement, &[&nuis, &year, &ord_num, &reason]).await?,
    };
    let detail = serde_json::json!({
        "shop": held.col::<String>("shop")?,
        "held_for": held.col::<Option<String>>("held_for")?,
        "reason": reason,
    });
    super::audit::append(&tx, "cli", action, &format!("{nuis} {ord_num}/{year}"), detail).await?;
    tx.commit().await?;
    Ok(())
}

/// The last non-cash number the chain handed out for `nuis` in `year` (0 when none): what a shop
/// leaving the chain numbers after (`arka unlink-hq --noncash-after`).
pub async fn last(pool: &Pool, nuis: &str, year: i32) -> Result<i64> {
    let client = pool.get().await?;
    let row = client
        .query_opt("SELECT last FROM noncash_sequences WHERE nuis = $1 AND year = $2", &[&nuis, &year])
        .await?;
    Ok(row.map(|r| r.col::<i64>("last")).transpose()?.unwrap_or(0))
}
