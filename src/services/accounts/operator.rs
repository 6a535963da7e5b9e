//! The operator's commands (`pillbox create-user`, `pillbox reset-password`).

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use super::{validate_email, validate_new_password};
use crate::db::Stamp;
use crate::security::password;
use crate::store::users::{self, User};

/// What the operator's commands answer: the account, or why nothing was changed.
pub type OperatorResult<T> = Result<T, String>;

/// Creates an account verified at once (`pillbox create-user`: the operator vouches for the
/// address), with the same rules for addresses and passwords as registration.
pub fn create_verified(
    conn: &Connection,
    email: &str,
    new_password: &str,
    now: DateTime<Utc>,
) -> OperatorResult<User> {
    let email = validate_email(email).map_err(|p| p.message)?;
    validate_new_password(new_password).map_err(|p| p.message)?;
    let hash = password::hash(new_password).map_err(|e| e.to_string())?;
    users::insert(conn, &email, &hash, true, Stamp::from(now))
        .map_err(|e| format!("database error: {e}"))?
        .ok_or_else(|| format!("an account with the address {email} already exists; nothing was changed"))
}

/// Sets a new password and signs the account out everywhere (`pillbox reset-password`).
pub fn reset_password(
    conn: &Connection,
    email: &str,
    new_password: &str,
    now: DateTime<Utc>,
) -> OperatorResult<User> {
    let user = users::find_by_email(conn, email.trim())
        .map_err(|e| format!("database error: {e}"))?
        .ok_or_else(|| format!("no account with the address {}", email.trim()))?;
    validate_new_password(new_password).map_err(|p| p.message)?;
    let hash = password::hash(new_password).map_err(|e| e.to_string())?;
    users::set_password(conn, user.id, &hash, Stamp::from(now))
        .map_err(|e| format!("database error: {e}"))?;
    Ok(user)
}
