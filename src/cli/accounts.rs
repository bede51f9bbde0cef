//! `arka apps create`, `arka partners create` and `arka users reset-password`: credentials and
//! codes shown only once.

use super::open_store;
use crate::config::DataArgs;
use crate::ops::secrets::new_token;
use crate::services::{accounts, people};

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

/// Prints a one-time code with which the user of `email` sets a new password at the page.
pub fn reset_password(data: &DataArgs, email: &str) -> Result<(), String> {
    let store = open_store(data)?;
    let code = people::issue_reset_code(&store, email, chrono::Utc::now()).map_err(|e| match e {
        crate::services::Error::NotFound(why) => why,
        crate::services::Error::Forbidden(rule) => rule.to_string(),
        other => other.to_string(),
    })?;
    let until = crate::domain::time::local_text(code.expires_at);
    println!("one-time code for {}: {} (valid until {until}; it works once)", code.email, code.code);
    println!(
        "open the server's page, choose \"Forgot the password?\" and type the e-mail, this code and a new password"
    );
    Ok(())
}
