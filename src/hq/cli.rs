//! `arka hq …`: the head office's commands (main.rs parses, these run).

use std::future::Future;

use super::{DatabaseArgs, HqServeArgs, db};

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
}

#[derive(Debug, clap::Subcommand)]
pub enum ShopsAction {
    /// Add a shop and print its token (shown only once; stored hashed): the shop's `--hq-token`.
    Add {
        /// A name to know the shop by, e.g. "Tirana, Rruga e Kavajës".
        name: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// List the shops with the last sequence each shipped and when.
    List {
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

#[derive(Debug, clap::Subcommand)]
pub enum OwnersAction {
    /// Add an owner and print the token (shown only once; stored hashed).
    Add {
        name: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

async fn migrated(database: &DatabaseArgs) -> Result<deadpool_postgres::Pool, String> {
    let pool = db::pool(&database.database_url, 2).map_err(|e| e.to_string())?;
    db::migrate(&pool).await.map_err(|e| e.to_string())?;
    Ok(pool)
}

/// Runs `command`; `serve` stops when `shutdown` completes.
pub async fn run(
    command: HqCommand,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    match command {
        HqCommand::Serve(args) => {
            let listener = tokio::net::TcpListener::bind(args.listen)
                .await
                .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
            let address = listener.local_addr().map_err(|e| e.to_string())?;
            let tls = crate::ops::tls::configure(&args.tls, &args.state_dir).map_err(|e| e.to_string())?;
            let scheme = if tls.is_some() { "https" } else { "http" };
            println!("Arka HQ on {scheme}://{address}");
            if let Some(tls) = &tls {
                println!("  TLS certificate:       {}", tls.cert_path.display());
                println!("  SHA-256 fingerprint:   {}", tls.fingerprint);
            }
            tracing::info!(%address, scheme, role = "hq", "arka is listening");
            super::server::run(&args, listener, tls, shutdown).await
        }
        HqCommand::Shops { action: ShopsAction::Add { name, database } } => {
            let token = db::add_shop(&migrated(&database).await?, &name).await.map_err(|e| e.to_string())?;
            println!("shop \"{name}\" added; the token is shown only this once");
            println!("--hq-token {token}");
            Ok(())
        }
        HqCommand::Shops { action: ShopsAction::List { database } } => {
            let shops = db::shops(&migrated(&database).await?).await.map_err(|e| e.to_string())?;
            println!("{:<30} {:>12}  last sync", "shop", "sequence");
            for shop in shops {
                let synced = shop.synced_at.map(|t| t.to_rfc3339()).unwrap_or_else(|| "never".to_string());
                println!("{:<30} {:>12}  {synced}", shop.name, shop.acked_seq);
            }
            Ok(())
        }
        HqCommand::Owners { action: OwnersAction::Add { name, database } } => {
            let token = db::add_owner(&migrated(&database).await?, &name).await.map_err(|e| e.to_string())?;
            println!("owner \"{name}\" added; the token is shown only this once");
            println!("Authorization: Bearer {token}");
            Ok(())
        }
    }
}
