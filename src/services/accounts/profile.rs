//! The profile: names, the password, deleting the account.

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::validation::account_key;
use super::{Accounts, MAX_NAME_LENGTH, Profile, SignedIn, hash_password, validate_new_password};
use crate::db::Stamp;
use crate::services::{ErrorCode, ServiceError, ServiceResult, not_found, rejected, user_backups};
use crate::store::users::{self, User};

impl Accounts<'_> {
    /// Changes the names given; the others keep their values.
    pub async fn update_profile(
        &self,
        user: User,
        first_name: Option<String>,
        last_name: Option<String>,
        now: DateTime<Utc>,
    ) -> ServiceResult<Profile> {
        let first = first_name.map(|s| s.trim().to_owned()).unwrap_or(user.first_name);
        let last = last_name.map(|s| s.trim().to_owned()).unwrap_or(user.last_name);
        if first.chars().count() > MAX_NAME_LENGTH {
            return Err(rejected(
                ErrorCode::FirstNameTooLong,
                "First name must be at most 100 characters",
            ));
        }
        if last.chars().count() > MAX_NAME_LENGTH {
            return Err(rejected(
                ErrorCode::LastNameTooLong,
                "Last name must be at most 100 characters",
            ));
        }
        let id = user.id;
        let updated = self
            .db
            .write(move |conn| {
                users::update_profile(conn, id, &first, &last, Stamp::from(now))?;
                users::find_by_id(conn, id)?
                    .ok_or_else(|| not_found(ErrorCode::UserNotFound, "User not found"))
            })
            .await?;
        Ok((&updated).into())
    }

    /// Deletes the account (the password is required) with everything of it, its daily
    /// exports in `backups_dir` included: nothing of theirs stays on the server.
    pub async fn delete_account(
        &self,
        client: &str,
        user: User,
        password: String,
        backups_dir: PathBuf,
    ) -> ServiceResult<()> {
        self.confirm_password(client, &user, password).await?;
        let id = user.id;
        self.db
            .write(move |conn| users::delete(conn, id).map_err(ServiceError::from))
            .await?;
        let backups = user_backups::dir_for(&backups_dir, id);
        if let Err(e) = tokio::task::spawn_blocking(move || user_backups::remove_all(&backups))
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
        {
            tracing::error!(user = id, "could not remove the deleted account's backups: {e}");
        }
        tracing::info!(user = id, "account deleted");
        Ok(())
    }

    /// Changes the password (the current one is required) and signs out every other session:
    /// the answer carries the new token for this one.
    pub async fn change_password(
        &self,
        client: &str,
        user: User,
        current: String,
        new: String,
        now: DateTime<Utc>,
    ) -> ServiceResult<SignedIn> {
        let account = account_key(&user.email);
        let stored = Some(user.password_hash.clone());
        if !self
            .budgeted_password_check(&account, client, current, stored)
            .await?
        {
            return Err(rejected(
                ErrorCode::PasswordIncorrect,
                "Current password is incorrect",
            ));
        }
        validate_new_password(&new).map_err(ServiceError::Invalid)?;
        let hash = hash_password(new).await.map_err(ServiceError::Internal)?;
        let id = user.id;
        let updated = self
            .db
            .write(move |conn| {
                users::set_password(conn, id, &hash, Stamp::from(now))?;
                users::find_by_id(conn, id)?
                    .ok_or_else(|| not_found(ErrorCode::UserNotFound, "User not found"))
            })
            .await?;
        self.signed_in(&updated, now)
    }
}
