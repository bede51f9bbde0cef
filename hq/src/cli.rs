//! `arka hq …`: the head office's commands (main.rs parses, these run).

use std::future::Future;

use super::store::db;
use super::store::shops::Act;
use super::{DatabaseArgs, HqServeArgs};

#[derive(Debug, clap::Subcommand)]
pub enum HqCommand {
    /// Run the head office: shops ship to it, the owner reads every shop from it.
    Serve(Box<HqServeArgs>),
    /// The shops of the chain.
    Shops {
        #[command(subcommand)]
        action: ShopsAction,
    },
    /// The chain's owners (their token reads every shop's reports and documents).
    Owners {
        #[command(subcommand)]
        action: OwnersAction,
    },
    /// The business's non-cash numbers: those reserved and never turned into documents (held),
    /// resolved by giving them back or voiding them; the last one handed out.
    Numbers {
        #[command(subcommand)]
        action: NumbersAction,
    },
    /// What the chain's people did at the head office (shops, owners, boxes, numbers), newest first.
    Audit {
        /// How many entries.
        #[arg(long, default_value_t = 50)]
        limit: i64,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

#[derive(Debug, clap::Subcommand)]
pub enum ShopsAction {
    /// Add a shop of a business and print its token (shown only once; stored hashed): the shop's
    /// `ARKA_HQ_TOKEN`.
    Add {
        /// A name to know the shop by, e.g. "Tirana, Rruga e Kavajës".
        name: String,
        /// The business (NUIS) the shop sells for: its non-cash numbers and its central products
        /// are that business's.
        #[arg(long)]
        nuis: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// List the shops: business, last sequence shipped, when last heard from, what waits at each
    /// (for the HQ and for the CIS), and any box refused on its token.
    List {
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Give a shop a new token (printed once); the old one stops working.
    Rotate {
        name: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Stop a shop's token working; its books stay (rotate gives it a new one).
    Revoke {
        name: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Close a shop for good: its token stops working, its books stay in the reports.
    Retire {
        name: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Remove a shop added by mistake (one that never shipped anything).
    Remove {
        name: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

#[derive(Debug, clap::Subcommand)]
pub enum NumbersAction {
    /// List the non-cash numbers reserved and not turned into documents at the head office, with
    /// their shop and age (a shop killed between the reservation and its write, or a box a restore
    /// replaced, leaves one).
    Held {
        /// Only reservations at least this many seconds old (younger ones may still be on their way).
        #[arg(long, default_value_t = 60)]
        older_than: i64,
        /// The voided ones too (kept taken, gaps on the record).
        #[arg(long)]
        voided: bool,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Give a held number back: the business's next reservation takes it. Only for a number that
    /// certainly never reached the CIS (its box's screen or the tax portal says so).
    GiveBack {
        #[command(flatten)]
        number: HeldNumber,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Void a held number: it stays taken, a gap on the record with the reason.
    Void {
        #[command(flatten)]
        number: HeldNumber,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// The last non-cash number the chain handed out for a business (what `arka unlink-hq
    /// --noncash-after` takes).
    Last {
        #[arg(long)]
        nuis: String,
        /// The year (this year by default).
        #[arg(long)]
        year: Option<i32>,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

/// A held number and why it is resolved so.
#[derive(Debug, clap::Args)]
pub struct HeldNumber {
    /// The business.
    #[arg(long)]
    nuis: String,
    #[arg(long)]
    year: i32,
    /// The number (its ordinal).
    #[arg(long)]
    number: i64,
    /// Why (kept in the HQ's audit trail).
    #[arg(long)]
    reason: String,
}

#[derive(Debug, clap::Subcommand)]
pub enum OwnersAction {
    /// Add an owner and print the token (shown only once; stored hashed).
    Add {
        name: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// List the owners.
    List {
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Remove an owner: their token stops working.
    Remove {
        name: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

async fn migrated(database: &DatabaseArgs) -> Result<deadpool_postgres::Pool, String> {
    let pool = db::pool(&database.url()?, 2).map_err(|e| e.to_string())?;
    db::migrate(&pool).await.map_err(|e| e.to_string())?;
    Ok(pool)
}

/// Runs `command`; `serve` stops when `shutdown` completes.
pub async fn run(
    command: HqCommand,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    match command {
        HqCommand::Serve(args) => super::server::start(&args, shutdown).await,
        HqCommand::Shops { action } => shops(action).await,
        HqCommand::Owners { action } => owners(action).await,
        HqCommand::Numbers { action } => numbers(action).await,
        HqCommand::Audit { limit, database } => {
            let entries = super::store::audit::newest(&migrated(&database).await?, limit.clamp(1, 10_000))
                .await
                .map_err(|e| e.to_string())?;
            for e in entries {
                let detail = e.detail.map(|d| d.to_string()).unwrap_or_default();
                println!("{}  {:<14} {:<16} {} {detail}", e.at.to_rfc3339(), e.actor, e.action, e.object);
            }
            Ok(())
        }
    }
}

async fn shops(action: ShopsAction) -> Result<(), String> {
    let act = |pool, name: String, act: Act| async move {
        super::store::shops::act(&pool, &name, act).await.map_err(|e| e.to_string())
    };
    match action {
        ShopsAction::Add { name, nuis, database } => {
            let nuis = nuis.trim().to_ascii_uppercase();
            if !arka_core::domain::validation::is_nuis(&nuis) {
                return Err(format!("{nuis} is not a NUIS (a letter, eight digits and a letter)"));
            }
            let token =
                db::add_shop(&migrated(&database).await?, &name, &nuis).await.map_err(|e| e.to_string())?;
            println!("shop \"{name}\" of {nuis} added; the token is shown only this once");
            println!("ARKA_HQ_TOKEN={token}");
        }
        ShopsAction::List { database } => list_shops(&migrated(&database).await?).await?,
        ShopsAction::Rotate { name, database } => {
            let token = act(migrated(&database).await?, name.clone(), Act::Rotate).await?;
            println!("shop \"{name}\" has a new token; the old one no longer works. Shown only this once:");
            println!("ARKA_HQ_TOKEN={}", token.unwrap_or_default());
        }
        ShopsAction::Revoke { name, database } => {
            act(migrated(&database).await?, name.clone(), Act::Revoke).await?;
            println!("shop \"{name}\": its token no longer works (arka hq shops rotate gives it a new one)");
        }
        ShopsAction::Retire { name, database } => {
            act(migrated(&database).await?, name.clone(), Act::Retire).await?;
            println!("shop \"{name}\" retired: its token no longer works, its books stay");
        }
        ShopsAction::Remove { name, database } => {
            super::store::shops::remove(&migrated(&database).await?, &name)
                .await
                .map_err(|e| e.to_string())?;
            println!("shop \"{name}\" removed");
        }
    }
    Ok(())
}

async fn list_shops(pool: &deadpool_postgres::Pool) -> Result<(), String> {
    let views = super::store::shops::views(pool).await.map_err(|e| e.to_string())?;
    println!(
        "{:<24} {:<11} {:>10}  {:<25} {:>8} {:>8} {:>9}  state",
        "shop", "nuis", "sequence", "last heard", "backlog", "cis", "set aside"
    );
    for view in views {
        let shop = &view.shop;
        let heard = shop.last_heard_at.map(|t| t.to_rfc3339()).unwrap_or_else(|| "never".to_string());
        let said = |key: &str| {
            shop.heartbeat.as_ref().and_then(|h| h.get(key)).and_then(serde_json::Value::as_i64).unwrap_or(0)
        };
        let state = if shop.retired_at.is_some() { "retired" } else { "open" };
        println!(
            "{:<24} {:<11} {:>10}  {heard:<25} {:>8} {:>8} {:>9}  {state}",
            shop.name,
            shop.nuis.as_deref().unwrap_or("?"),
            shop.acked_seq,
            said("backlog"),
            said("cis_queue"),
            said("set_aside"),
        );
        for refused in &view.refused_boxes {
            println!(
                "  ! box {} refused {} calls from {} ({} to {}): {}",
                refused.box_id,
                refused.calls,
                refused.address.as_deref().unwrap_or("?"),
                refused.first_at.to_rfc3339(),
                refused.last_at.to_rfc3339(),
                refused.reason
            );
        }
    }
    Ok(())
}

async fn numbers(action: NumbersAction) -> Result<(), String> {
    use super::store::held::{self, Resolution};
    let resolve = |number: HeldNumber, database: DatabaseArgs, resolution: Resolution| async move {
        if number.reason.trim().is_empty() {
            return Err("say why (--reason): the audit trail keeps it".to_string());
        }
        let nuis = number.nuis.trim().to_ascii_uppercase();
        held::resolve(
            &migrated(&database).await?,
            (&nuis, number.year, number.number),
            resolution,
            number.reason.trim(),
        )
        .await
        .map_err(|e| e.to_string())?;
        Ok::<_, String>(format!("{}/{} of {nuis}", number.number, number.year))
    };
    match action {
        NumbersAction::Held { older_than, voided, database } => {
            let found = held::held(&migrated(&database).await?, older_than.max(0), voided)
                .await
                .map_err(|e| e.to_string())?;
            println!("{:<11} {:>14}  {:<24} {:>10}  state", "nuis", "number", "shop", "age (s)");
            for h in found {
                let state = match (&h.voided_at, h.box_replaced) {
                    (Some(_), _) => format!("voided: {}", h.void_reason.unwrap_or_default()),
                    (None, true) => "held by a replaced box (it may be at the CIS)".to_string(),
                    (None, false) => "held".to_string(),
                };
                let number = format!("{}/{}", h.ord_num, h.year);
                let shop = h.shop.unwrap_or_default();
                println!("{:<11} {number:>14}  {shop:<24} {:>10}  {state}", h.nuis, h.age_seconds);
            }
        }
        NumbersAction::GiveBack { number, database } => {
            let which = resolve(number, database, Resolution::GiveBack).await?;
            println!("{which} given back: the business's next reservation takes it");
        }
        NumbersAction::Void { number, database } => {
            let which = resolve(number, database, Resolution::Void).await?;
            println!("{which} voided: it stays taken, listed as a gap");
        }
        NumbersAction::Last { nuis, year, database } => {
            use chrono::Datelike;
            let year =
                year.unwrap_or_else(|| chrono::Utc::now().with_timezone(&chrono_tz::Europe::Tirane).year());
            let nuis = nuis.trim().to_ascii_uppercase();
            let last =
                held::last(&migrated(&database).await?, &nuis, year).await.map_err(|e| e.to_string())?;
            println!("{last}");
        }
    }
    Ok(())
}

async fn owners(action: OwnersAction) -> Result<(), String> {
    match action {
        OwnersAction::Add { name, database } => {
            let token = db::add_owner(&migrated(&database).await?, &name).await.map_err(|e| e.to_string())?;
            println!("owner \"{name}\" added; the token is shown only this once");
            println!("Authorization: Bearer {token}");
        }
        OwnersAction::List { database } => {
            for (name, added) in
                super::store::shops::owners(&migrated(&database).await?).await.map_err(|e| e.to_string())?
            {
                println!("{name:<30} added {}", added.to_rfc3339());
            }
        }
        OwnersAction::Remove { name, database } => {
            super::store::shops::remove_owner(&migrated(&database).await?, &name)
                .await
                .map_err(|e| e.to_string())?;
            println!("owner \"{name}\" removed: their token no longer works");
        }
    }
    Ok(())
}
