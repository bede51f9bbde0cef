//! Who may call the routes of setup, sign-in and people: the one place their role checks live
//! until the permission table of the roles issue ("Roles, least privilege and an audit trail")
//! takes them over. Until then the company's owner is its first user, and no manager exists,
//! so `OwnerOrManager` admits the owner alone.
//!
//! | route                                   | needed                                        |
//! |-----------------------------------------|-----------------------------------------------|
//! | GET /api/v1/setup                       | anyone (details for the owner only)           |
//! | POST /api/v1/setup/code                 | anyone (wrong codes count against the address) |
//! | POST /api/v1/setup/business, /owner     | the setup code or a request from the box      |
//! | POST /api/v1/setup/certificate … /test-sale | `Owner`                                   |
//! | POST /api/v1/session, GET/DELETE        | anyone / `SignedIn`                           |
//! | POST /api/v1/session/password           | `SignedIn` (their own password)               |
//! | POST /api/v1/users/{id}/password        | `Owner`                                       |
//! | POST /api/v1/users/{id}/token (card)    | `OwnerOrManager`                              |
//! | POST /api/v1/owner/queue/{id}/resend    | `Owner`                                       |
//! | POST /api/v1/products/import            | `OwnerOrManager`                              |
//! | GET, POST /api/v1/owner/backup, GET …/{file} | the owner of the box's one company (`backups`) |

use axum::http::StatusCode;

use super::AppState;
use super::error::ApiError;
use crate::store::accounts::Caller;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needed {
    /// The company's owner.
    Owner,
    /// The owner or a manager of the company.
    OwnerOrManager,
}

/// 403 unless the caller holds `needed`.
pub async fn require(state: &AppState, caller: &Caller, needed: Needed) -> Result<(), ApiError> {
    let allowed = match needed {
        Needed::Owner | Needed::OwnerOrManager => state.services.is_owner(caller).await?,
    };
    if allowed {
        return Ok(());
    }
    let who = match needed {
        Needed::Owner => "the company's owner",
        Needed::OwnerOrManager => "the company's owner or a manager",
    };
    Err(ApiError::status(StatusCode::FORBIDDEN, format!("Only {who} may do this.")))
}
