//! `arka backup` and `arka restore`: what they did, said for the person at the terminal.

use std::path::PathBuf;

use crate::config::DataArgs;

fn default_backup_path(data: &DataArgs, backup_dir: Option<PathBuf>) -> PathBuf {
    let dir = backup_dir.unwrap_or_else(|| data.data_dir.join("backups"));
    dir.join(format!("arka-{}.db", chrono::Utc::now().format("%Y%m%d-%H%M%S")))
}

/// Progress on a terminal as a bar, otherwise as a plain line every 10 %.
fn backup_progress() -> impl FnMut(crate::backup::Progress) {
    use std::io::IsTerminal;
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {percent:>3}% {pos}/{len} pages")
        {
            bar.set_style(style);
        }
        bar
    });
    let mut last_tenth = None;
    move |p: crate::backup::Progress| match &bar {
        Some(bar) => {
            bar.set_length(p.total_pages);
            bar.set_position(p.copied_pages);
            if p.copied_pages >= p.total_pages {
                bar.finish_and_clear();
            }
        }
        None => {
            let tenth = (p.copied_pages * 10).checked_div(p.total_pages).unwrap_or(10);
            if last_tenth != Some(tenth) {
                last_tenth = Some(tenth);
                eprintln!("backup: {}% ({} of {} pages)", tenth * 10, p.copied_pages, p.total_pages);
            }
        }
    }
}

/// `arka backup`: copies the database and its key file while the server runs, and checks the copy.
pub fn backup(data: DataArgs, to: Option<PathBuf>, backup_dir: Option<PathBuf>) -> Result<(), String> {
    let to = to.unwrap_or_else(|| default_backup_path(&data, backup_dir));
    let key = data.data_dir.join("arka.key");
    let made =
        crate::backup::backup(&data.db_path(), &key, &to, backup_progress()).map_err(|e| e.to_string())?;
    println!("backup written and checked (integrity_check ok, schema version {})", made.schema_version);
    println!("  database: {} ({} bytes)", made.db.display(), made.bytes);
    println!("  key file: {}", made.key.display());
    println!("Keep both together and safe: with the key file, the backup opens the certificate keys.");
    Ok(())
}

/// `arka restore FILE`: puts a backup in place of the data dir's database.
pub fn restore(file: PathBuf, force: bool, data: DataArgs) -> Result<(), String> {
    let stamp = chrono::Utc::now().format("%Y%m%d-%H%M%S").to_string();
    let done = crate::backup::restore(&data.data_dir, &file, &stamp, force).map_err(|e| e.to_string())?;
    println!(
        "restored {} (schema version {}, {} invoices) into {}",
        done.from.display(),
        done.schema_version,
        done.invoices,
        done.db.display()
    );
    match (&done.replaced_db, &done.replaced_key) {
        (None, _) => println!("  there was no database before"),
        (Some(db), key) => {
            println!("  the replaced database was kept as {}", db.display());
            if let Some(key) = key {
                println!("  the replaced key file was kept as {}", key.display());
            }
        }
    }
    print_numbering(&done);
    if done.schema_version < crate::store::latest_schema_version() {
        println!("  brought to schema version {}", crate::store::latest_schema_version());
    }
    println!("  the restore is written in its audit trail, by the command line (arka audit verify)");
    println!("Start the server again (systemctl start arka).");
    Ok(())
}

/// What the restore found of the numbering: each sequence's last number in the backup and in
/// the replaced database, what the backup predates, and where the numbering continues.
fn print_numbering(done: &crate::backup::Restored) {
    use crate::backup::Numbering;
    let (sequences, predated) = match &done.numbering {
        Numbering::NothingReplaced => return,
        Numbering::Unreadable { why, backup } => {
            println!(
                "  the replaced database could not be read ({why}): the numbers it had reached are unknown;"
            );
            println!(
                "  before the first sale, compare the backup's last numbers with the CIS's (docs, \"Backup and restore\": /docs/operations.html#backup-and-restore):"
            );
            for l in backup {
                println!(
                    "    {} (company {}), {}, {}: {}/{}",
                    l.nuis, l.company_id, l.sequence, l.year, l.ord_num, l.year
                );
            }
            return;
        }
        Numbering::Compared { sequences, predated, damaged } => {
            if let Some(why) = damaged {
                println!(
                    "  the replaced database is damaged ({why}): it may have numbered more than what was read of it;"
                );
                println!(
                    "  before the first sale, compare the last numbers below with the CIS's (docs, \"Backup and restore\": /docs/operations.html#backup-and-restore)"
                );
            }
            (sequences, predated)
        }
    };
    println!("  last numbers (the backup / the replaced database):");
    for s in sequences {
        let number = |n: i64| if n == 0 { "none".to_string() } else { format!("{n}/{}", s.year) };
        println!(
            "    {} (company {}), {}, {}: {} / {}",
            s.nuis,
            s.company_id,
            s.sequence,
            s.year,
            number(s.backup),
            number(s.replaced)
        );
    }
    if predated.is_empty() {
        println!("  the backup holds every numbered document of the replaced database");
        return;
    }
    println!("  the backup predates, in the replaced database:");
    for p in predated {
        println!("    {p}");
    }
    for p in predated.iter().filter(|p| p.company_in_backup) {
        let l = &p.last;
        println!(
            "  {} (company {}), {}, {}: the numbering continues after {}/{}",
            l.nuis, l.company_id, l.sequence, l.year, l.replaced, l.year
        );
    }
    if predated.iter().any(|p| !p.company_in_backup) {
        println!(
            "  a company not in the backup keeps no floor: see \"Backup and restore\" in the docs (/docs/operations.html#backup-and-restore)"
        );
    }
    if !done.floors.is_empty() {
        println!(
            "  the restored database was brought to schema version {}",
            crate::store::latest_schema_version()
        );
    }
}

/// `arka restore --from-hq URL`: an empty data dir filled from the chain's head office, as a new
/// box of the shop. A restore that fails leaves nothing behind: no database, and no data dir it
/// made.
pub fn restore_from_hq(from: &crate::services::hq_sync::RestoreFrom, data: &DataArgs) -> Result<(), String> {
    let made_dir = !data.data_dir.exists();
    let lock = crate::ops::data_lock::lock(&data.data_dir).map_err(|e| e.to_string())?;
    let done = crate::services::hq_sync::restore_data_dir(&data.db_path(), from);
    drop(lock);
    let done = match done {
        Ok(done) => done,
        Err(e) => {
            if made_dir {
                let _ = std::fs::remove_dir_all(&data.data_dir);
            }
            return Err(e.to_string());
        }
    };
    let mut tables: Vec<_> = done.rows.iter().filter(|(_, n)| **n > 0).collect();
    tables.sort();
    for (table, rows) in tables {
        println!("  {table}: {rows} rows");
    }
    println!(
        "restored {} from {} as box {} (its outbox goes on after {}); the box before it is refused from now on",
        data.db_path().display(),
        from.url,
        done.box_id,
        done.acked
    );
    println!("upload the company's certificate again: it never leaves the shop");
    Ok(())
}

/// `arka downgrade`: the database back to the previous release's schema, every row kept.
pub fn downgrade(data: &DataArgs, to: i32) -> Result<(), String> {
    let undone = crate::backup::downgrade(&data.data_dir, to).map_err(|e| e.to_string())?;
    if undone.is_empty() {
        println!("{} already has schema {to} or older: nothing to undo", data.db_path().display());
    } else {
        let list: Vec<String> = undone.iter().map(|v| format!("V{v}")).collect();
        println!(
            "{} is back at schema {to} (undone: {}); every document is kept",
            data.db_path().display(),
            list.join(", ")
        );
    }
    println!("Start the previous release now; starting this one again upgrades the database again.");
    Ok(())
}
