//! `arka apps create` and `arka partners create`: credentials shown only once.

use super::open_store;
use crate::config::DataArgs;
use crate::ops::secrets::new_token;
use crate::services::accounts;

/// Creates an application and prints its client id and secret.
pub fn create_app(data: &DataArgs, name: &str) -> Result<(), String> {
    let store = open_store(data)?;
    let client_id = new_token("app").map_err(|e| e.to_string())?;
    let secret = new_token("secret").map_err(|e| e.to_string())?;
    accounts::add_app(&store, name, &client_id, &secret).map_err(|e| e.to_string())?;
    println!("application \"{name}\" created; the secret is shown only this once");
    println!("X-Client-Id: {client_id}");
    println!("X-Client-Secret: {secret}");
    Ok(())
}

/// Creates a partner and prints its token.
pub fn create_partner(data: &DataArgs, name: &str) -> Result<(), String> {
    let store = open_store(data)?;
    let token = new_token("p").map_err(|e| e.to_string())?;
    accounts::add_partner(&store, name, &token).map_err(|e| e.to_string())?;
    println!("partner \"{name}\" created; the token is shown only this once");
    println!("Authorization: Bearer {token}");
    Ok(())
}
