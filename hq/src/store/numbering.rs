//! A chain's non-cash numbering. Cash invoices are numbered per TCR, and a TCR belongs to one
//! shop; the business's non-cash sequence (and the e-invoice's) is one per NUIS and year, so two
//! shops of one NUIS numbering it each on its own would hand out the same number. In a chain it
//! lives here: a shop reserves each non-cash number from the HQ before its write transaction,
//! under its own sequence lock, and answers 503 when the HQ cannot be reached.
//!
//! - Unique: the numbers of a NUIS and year are handed out under the sequence row's lock, and
//!   `(nuis, year, ord_num)` is the key of what was handed out.
//! - Idempotent: a shop asking again for the same document (its held-number key, the same as the
//!   shop's own held numbers) gets the same number, so a retry never takes a second one.
//! - Gapless: a number whose document was not written is given back and is the next one handed
//!   out; a document given up after it was written keeps its number for its retry, as a shop's
//!   held numbers do.
//! - Continuous: a shop sends the number its own books would give next (`at_least`), so the
//!   sequence starts after what the business issued before the chain, and never goes back.

use deadpool_postgres::Pool;

use super::Result;
use super::columns::Typed;

/// The largest ordinal the CIS takes (`InvOrdNum` is an `int` above 0): no sequence goes past it,
/// and no `at_least` may ask for more.
pub const MAX_ORD_NUM: i64 = 2_147_483_647;

/// What a reservation came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Given {
    Number(i64),
    /// The business's sequence of the year reached `MAX_ORD_NUM`.
    Full,
    /// The box a restore replaced numbered this document (`held_for`) and the HQ never received
    /// it: it may be at the CIS, so this box does not number it again until the owner resolves
    /// that number (`arka hq numbers held`).
    HeldByReplacedBox(i64),
}

/// A box's ask for the number of one document: the shop and its box, the business and year, the
/// document's held-number key.
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    pub shop_id: i64,
    pub box_id: &'a str,
    pub nuis: &'a str,
    pub year: i32,
    pub held_for: &'a str,
}

/// Reserves the next non-cash number, at least `at_least`, for the document `ask` names.
pub async fn reserve(pool: &Pool, ask: Ask<'_>, at_least: i64) -> Result<Given> {
    let Ask { shop_id, box_id, nuis, year, held_for } = ask;
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let earlier = tx
        .query(
            "SELECT ord_num, box_id FROM noncash_numbers
             WHERE nuis = $1 AND year = $2 AND shop_id = $3 AND held_for = $4 AND voided_at IS NULL",
            &[&nuis, &year, &shop_id, &held_for],
        )
        .await?;
    for row in &earlier {
        if row.col::<Option<String>>("box_id")?.as_deref() == Some(box_id) {
            return Ok(Given::Number(row.col("ord_num")?));
        }
    }
    if let Some(row) = earlier.first() {
        return Ok(Given::HeldByReplacedBox(row.col("ord_num")?));
    }
    // The sequence's row, locked (made first when this NUIS and year have none).
    tx.execute(
        "INSERT INTO noncash_sequences (nuis, year, last) VALUES ($1, $2, $3::bigint - 1) ON CONFLICT (nuis, year) DO NOTHING",
        &[&nuis, &year, &at_least],
    )
    .await?;
    let last: i64 = tx
        .query_one(
            "SELECT last FROM noncash_sequences WHERE nuis = $1 AND year = $2 FOR UPDATE",
            &[&nuis, &year],
        )
        .await?
        .col("last")?;
    let given_back = tx
        .query_opt(
            "SELECT ord_num FROM noncash_numbers WHERE nuis = $1 AND year = $2 AND shop_id IS NULL
             ORDER BY ord_num LIMIT 1",
            &[&nuis, &year],
        )
        .await?;
    let ord_num = match given_back {
        Some(row) => {
            let ord_num: i64 = row.col("ord_num")?;
            tx.execute(
                "UPDATE noncash_numbers SET shop_id = $4, held_for = $5, box_id = $6, reserved_at = now(),
                     documented = false
                 WHERE nuis = $1 AND year = $2 AND ord_num = $3",
                &[&nuis, &year, &ord_num, &shop_id, &held_for, &box_id],
            )
            .await?;
            ord_num
        }
        None => {
            // Never back: the sequence only ever moves forward, and never past the CIS's largest.
            let ord_num = last.saturating_add(1).max(at_least);
            if ord_num > MAX_ORD_NUM {
                return Ok(Given::Full);
            }
            tx.execute(
                "UPDATE noncash_sequences SET last = $3 WHERE nuis = $1 AND year = $2",
                &[&nuis, &year, &ord_num],
            )
            .await?;
            tx.execute(
                "INSERT INTO noncash_numbers (nuis, year, ord_num, shop_id, held_for, box_id) VALUES ($1, $2, $3, $4, $5, $6)",
                &[&nuis, &year, &ord_num, &shop_id, &held_for, &box_id],
            )
            .await?;
            ord_num
        }
    };
    tx.commit().await?;
    Ok(Given::Number(ord_num))
}

/// Gives back the number the box reserved for the document `ask` names (it was not written).
pub async fn release(pool: &Pool, ask: Ask<'_>) -> Result<bool> {
    let Ask { shop_id, box_id, nuis, year, held_for } = ask;
    let client = pool.get().await?;
    let released = client
        .execute(
            "UPDATE noncash_numbers SET shop_id = NULL, held_for = NULL, box_id = NULL
             WHERE nuis = $1 AND year = $2 AND shop_id = $3 AND held_for = $4 AND box_id = $5 AND voided_at IS NULL",
            &[&nuis, &year, &shop_id, &held_for, &box_id],
        )
        .await?;
    Ok(released > 0)
}
