//! A shop's credentials and boxes at the HQ. A shop ships from one box at a time: the first box
//! to call with the shop's token claims it, a restore (`arka restore --from-hq`) hands the shop
//! to the new box, and any other box calling with the token is refused and kept for the owner
//! to see (`box_refusals`): two boxes on one token would otherwise each believe the HQ holds what
//! the other sent. The owner rotates, revokes and retires a shop's token, and removes a shop
//! added by mistake; every such act is in the HQ's audit trail.

use deadpool_postgres::Pool;
use serde::Serialize;

use super::columns::Typed;
use super::db::Shop;
use super::{Error, Result};
use arka_edge::secrets::{hash_token, new_token};

/// Whether a box may speak for its shop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoxCheck {
    /// The shop's box (or the first to call, which claimed it).
    Ours,
    /// Another box: refused, and why (`second box`, or replaced by a restore).
    Refused { reason: String },
}

/// The refusal's reason for a box that was never the shop's.
pub const SECOND_BOX: &str = "another box already ships for this shop with the same token";
/// The refusal's reason for the box a restore replaced.
pub const REPLACED_BOX: &str = "this box was replaced by a box restored from the head office";

/// Whether `box_id` speaks for `shop`; the first box to call claims the shop (with the
/// non-cash numbers reserved before boxes had names). A refusal is counted for the owner.
pub async fn check_box(pool: &Pool, shop: &Shop, box_id: &str, address: &str) -> Result<BoxCheck> {
    if shop.box_id.as_deref() == Some(box_id) {
        return Ok(BoxCheck::Ours);
    }
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    if shop.box_id.is_none() {
        let claimed = tx
            .execute(
                "UPDATE shops SET box_id = $2, box_since = now() WHERE id = $1 AND box_id IS NULL",
                &[&shop.id, &box_id],
            )
            .await?;
        if claimed > 0 {
            tx.execute(
                "UPDATE noncash_numbers SET box_id = $2 WHERE shop_id = $1 AND box_id IS NULL",
                &[&shop.id, &box_id],
            )
            .await?;
            tx.commit().await?;
            return Ok(BoxCheck::Ours);
        }
        let owner = tx.query_one("SELECT box_id FROM shops WHERE id = $1", &[&shop.id]).await?;
        if owner.col::<Option<String>>("box_id")?.as_deref() == Some(box_id) {
            return Ok(BoxCheck::Ours);
        }
    }
    let refused = tx
        .query_one(
            "INSERT INTO box_refusals (shop_id, box_id, reason, address) VALUES ($1, $2, $3, $4)
             ON CONFLICT (shop_id, box_id) DO UPDATE SET last_at = now(), calls = box_refusals.calls + 1,
                 address = EXCLUDED.address
             RETURNING reason",
            &[&shop.id, &box_id, &SECOND_BOX, &address],
        )
        .await?;
    tx.commit().await?;
    tracing::warn!(shop = %shop.name, box_id, address, "a box not the shop's called with its token: refused");
    Ok(BoxCheck::Refused { reason: refused.col("reason")? })
}

/// Hands `shop` to the box `box_id` (a restore on a new box): the box before it is refused from
/// now on, its reservations stay its own. Audited.
pub async fn take_over(pool: &Pool, shop: &Shop, box_id: &str) -> Result<()> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let before = tx
        .query_one("SELECT box_id FROM shops WHERE id = $1 FOR UPDATE", &[&shop.id])
        .await?
        .col::<Option<String>>("box_id")?;
    tx.execute("UPDATE shops SET box_id = $2, box_since = now() WHERE id = $1", &[&shop.id, &box_id]).await?;
    if let Some(old) = before.as_deref().filter(|old| *old != box_id) {
        tx.execute(
            "INSERT INTO box_refusals (shop_id, box_id, reason, calls) VALUES ($1, $2, $3, 0)
             ON CONFLICT (shop_id, box_id) DO UPDATE SET reason = EXCLUDED.reason",
            &[&shop.id, &old, &REPLACED_BOX],
        )
        .await?;
    }
    tx.execute("DELETE FROM box_refusals WHERE shop_id = $1 AND box_id = $2", &[&shop.id, &box_id]).await?;
    let detail = serde_json::json!({"box": box_id, "replaced": before});
    super::audit::append(&tx, &format!("shop:{}", shop.name), "box.take_over", &shop.name, detail).await?;
    tx.commit().await?;
    Ok(())
}

/// A box refused for a shop, as the owner sees it.
#[derive(Debug, Clone, Serialize)]
pub struct Refusal {
    pub box_id: String,
    pub reason: String,
    pub first_at: chrono::DateTime<chrono::Utc>,
    pub last_at: chrono::DateTime<chrono::Utc>,
    pub calls: i64,
    pub address: Option<String>,
}

/// The boxes refused for `shop_id` that called, newest call first.
pub async fn refusals(pool: &Pool, shop_id: i64) -> Result<Vec<Refusal>> {
    let client = pool.get().await?;
    let rows = client
        .query(
            "SELECT box_id, reason, first_at, last_at, calls, address FROM box_refusals
             WHERE shop_id = $1 AND calls > 0 ORDER BY last_at DESC",
            &[&shop_id],
        )
        .await?;
    rows.iter()
        .map(|r| {
            Ok(Refusal {
                box_id: r.col("box_id")?,
                reason: r.col("reason")?,
                first_at: r.col("first_at")?,
                last_at: r.col("last_at")?,
                calls: r.col("calls")?,
                address: r.col("address")?,
            })
        })
        .collect()
}

/// What the owner does to a shop's credentials from the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// A new token; the old one stops working (and a revoked shop works again with the new one).
    Rotate,
    /// The token stops working; the shop's books stay.
    Revoke,
    /// Closed for good: the token stops working, the books stay, it is listed as retired.
    Retire,
}

impl Act {
    fn action(self) -> &'static str {
        match self {
            Act::Rotate => "shop.rotate",
            Act::Revoke => "shop.revoke",
            Act::Retire => "shop.retire",
        }
    }
}

/// Does `act` to the shop `name`; the new token for a rotation. Audited.
pub async fn act(pool: &Pool, name: &str, act: Act) -> Result<Option<String>> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let (token, changed) = match act {
        Act::Rotate => {
            let token = new_token("hqs").map_err(Error::Token)?;
            let changed = tx
                .execute(
                    "UPDATE shops SET token_hash = $2, revoked_at = NULL WHERE name = $1 AND retired_at IS NULL",
                    &[&name, &hash_token(&token)],
                )
                .await?;
            (Some(token), changed)
        }
        Act::Revoke => {
            let changed = tx
                .execute(
                    "UPDATE shops SET revoked_at = COALESCE(revoked_at, now()) WHERE name = $1",
                    &[&name],
                )
                .await?;
            (None, changed)
        }
        Act::Retire => {
            let changed = tx
                .execute(
                    "UPDATE shops SET revoked_at = COALESCE(revoked_at, now()), retired_at = COALESCE(retired_at, now())
                     WHERE name = $1",
                    &[&name],
                )
                .await?;
            (None, changed)
        }
    };
    if changed == 0 {
        return Err(Error::Unknown(format!("no shop named \"{name}\" (a retired shop cannot be rotated)")));
    }
    super::audit::append(&tx, "cli", act.action(), name, serde_json::Value::Null).await?;
    tx.commit().await?;
    Ok(token)
}

/// Removes a shop added by mistake: only one that never shipped a row nor took a number (a shop
/// with books is retired instead). Audited.
pub async fn remove(pool: &Pool, name: &str) -> Result<()> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let Some(row) = tx.query_opt("SELECT id FROM shops WHERE name = $1 FOR UPDATE", &[&name]).await? else {
        return Err(Error::Unknown(format!("no shop named \"{name}\"")));
    };
    let id: i64 = row.col("id")?;
    let used = tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM shop_rows WHERE shop_id = $1)
                 OR EXISTS (SELECT 1 FROM noncash_numbers WHERE shop_id = $1) AS used",
            &[&id],
        )
        .await?
        .col::<bool>("used")?;
    if used {
        return Err(Error::Taken(format!(
            "the shop \"{name}\" has books at the head office: retire it instead (arka hq shops retire)"
        )));
    }
    tx.execute("DELETE FROM box_refusals WHERE shop_id = $1", &[&id]).await?;
    tx.execute("DELETE FROM shops WHERE id = $1", &[&id]).await?;
    super::audit::append(&tx, "cli", "shop.remove", name, serde_json::Value::Null).await?;
    tx.commit().await?;
    Ok(())
}

/// The chain's owners by name, with when each was added.
pub async fn owners(pool: &Pool) -> Result<Vec<(String, chrono::DateTime<chrono::Utc>)>> {
    let client = pool.get().await?;
    let rows = client.query("SELECT name, created_at FROM owners ORDER BY name", &[]).await?;
    rows.iter().map(|r| Ok((r.col("name")?, r.col("created_at")?))).collect()
}

/// Removes an owner: their token stops working. Audited.
pub async fn remove_owner(pool: &Pool, name: &str) -> Result<()> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    if tx.execute("DELETE FROM owners WHERE name = $1", &[&name]).await? == 0 {
        return Err(Error::Unknown(format!("no owner named \"{name}\"")));
    }
    super::audit::append(&tx, "cli", "owner.remove", name, serde_json::Value::Null).await?;
    tx.commit().await?;
    Ok(())
}

/// Keeps what a shop's heartbeat said, and when.
pub async fn heard(pool: &Pool, shop_id: i64, said: &serde_json::Value) -> Result<()> {
    let client = pool.get().await?;
    client
        .execute("UPDATE shops SET last_heard_at = now(), heartbeat = $2 WHERE id = $1", &[&shop_id, said])
        .await?;
    Ok(())
}

/// A shop as the owner sees it: its record, how long since it was last heard from, and the
/// boxes refused for it.
#[derive(Debug, Clone, Serialize)]
pub struct ShopView {
    #[serde(flatten)]
    pub shop: Shop,
    /// Seconds since its last heartbeat (or batch); none if never heard.
    pub silent_seconds: Option<i64>,
    pub refused_boxes: Vec<Refusal>,
}

/// Every shop of the chain, by name, as the owner sees it.
pub async fn views(pool: &Pool) -> Result<Vec<ShopView>> {
    let now = chrono::Utc::now();
    let mut views = Vec::new();
    for shop in super::db::shops(pool).await? {
        let refused_boxes = refusals(pool, shop.id).await?;
        let silent_seconds = shop.last_heard_at.map(|at| (now - at).num_seconds().max(0));
        views.push(ShopView { shop, silent_seconds, refused_boxes });
    }
    Ok(views)
}
