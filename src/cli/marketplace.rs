//! `arka marketplace …`: the owner's settings of a company's delivery marketplace (Wolt).

use super::open_store;
use crate::config::DataArgs;
use crate::ops::secrets::KeyFile;
use crate::services::marketplace::{self, VenueInput, owner_cli};
use crate::store::Store;

fn fail(e: marketplace::Error) -> String {
    e.to_string()
}

/// Prints the company's settings, never the credentials.
fn print_settings(store: &Store, company: i64) -> Result<(), String> {
    let s = owner_cli::settings(store, company).map_err(fail)?;
    println!("add-on:           {}", if s.enabled { "enabled" } else { "disabled" });
    match &s.venue {
        Some(v) => println!("venue:            {} ({}), credentials stored sealed", v.wolt_venue_id, v.name),
        None => println!("venue:            none active"),
    }
    println!("users with right: {:?}", s.users_with_right);
    Ok(())
}

/// Turns the company's add-on on or off (its venue and orders stay).
pub fn set_addon(data: &DataArgs, nuis: &str, enabled: bool) -> Result<(), String> {
    let store = open_store(data)?;
    let company = owner_cli::company(&store, nuis).map_err(fail)?;
    owner_cli::set_addon(&store, company, enabled).map_err(fail)?;
    print_settings(&store, company)
}

/// Gives or takes the marketplace right of the token of the user with this e-mail.
pub fn set_right(data: &DataArgs, email: &str, granted: bool) -> Result<(), String> {
    let user = owner_cli::set_right(&open_store(data)?, email, granted).map_err(fail)?;
    if granted {
        println!("user {user} ({email}): its token has the marketplace right");
    } else {
        println!("user {user} ({email}): its token no longer has the marketplace right");
    }
    Ok(())
}

/// Makes this venue the company's one active venue; its credentials are stored sealed.
pub fn put(data: &DataArgs, nuis: &str, venue: &VenueInput) -> Result<(), String> {
    let store = open_store(data)?;
    let company = owner_cli::company(&store, nuis).map_err(fail)?;
    let key_file = KeyFile::load_or_create(&data.data_dir.join("arka.key")).map_err(|e| e.to_string())?;
    owner_cli::put_venue(&store, &key_file, company, venue).map_err(fail)?;
    print_settings(&store, company)
}

/// Leaves the company without an active venue.
pub fn remove_venue(data: &DataArgs, nuis: &str) -> Result<(), String> {
    let store = open_store(data)?;
    let company = owner_cli::company(&store, nuis).map_err(fail)?;
    owner_cli::remove_venue(&store, company).map_err(fail)?;
    print_settings(&store, company)
}

/// Shows the company's settings.
pub fn show(data: &DataArgs, nuis: &str) -> Result<(), String> {
    let store = open_store(data)?;
    let company = owner_cli::company(&store, nuis).map_err(fail)?;
    print_settings(&store, company)
}
