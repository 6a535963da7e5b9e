//! A forgotten password: a one-time link by e-mail, then a new password with it.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use super::validation::account_key;
use super::{
    Accounts, hash_password, password_reset_email, queue_account_mail, validate_email, validate_new_password,
};
use crate::clock;
use crate::db::Stamp;
use crate::security::codes;
use crate::services::{ErrorCode, ServiceError, ServiceResult, rejected, user_settings};
use crate::store::users;

/// How long a forgotten-password link works.
pub const PASSWORD_RESET_HOURS: i64 = 1;

/// Stores a new forgotten-password link for the user and returns its token.
pub fn new_password_reset(conn: &Connection, user_id: i64, now: DateTime<Utc>) -> rusqlite::Result<String> {
    let token = codes::link_token();
    let expires = clock::stamp(now + chrono::Duration::hours(PASSWORD_RESET_HOURS));
    users::replace_password_reset(conn, user_id, &codes::hash_link_token(&token), &expires)?;
    Ok(token)
}

impl Accounts<'_> {
    /// this server sends e-mail. The outcome is the same whether or not the address has an
    /// account (and the e-mail goes out in the background): it reveals nothing. Answers
    /// whether this server can send e-mail at all, which says nothing about the address.
    pub async fn forgot_password(
        &self,
        client: &str,
        email: &str,
        now: DateTime<Utc>,
    ) -> ServiceResult<bool> {
        let email = validate_email(email).map_err(ServiceError::Invalid)?;
        self.limits
            .password_resets_per_account
            .hit(&account_key(&email))?;
        self.limits.password_resets_per_client.hit(client)?;
        if !self.mailer.is_configured() {
            tracing::warn!(
                "a password reset was asked for, but e-mail is not configured: use `pillbox reset-password`"
            );
            return Ok(false);
        }
        let mailer = Arc::clone(self.mailer);
        let link_base = self.link_base.clone();
        let issued = self
            .db
            .write(move |conn| {
                let Some(user) = users::find_by_email(conn, &email)? else {
                    return Ok(false);
                };
                let tx = conn.transaction()?;
                let token = new_password_reset(&tx, user.id, now)?;
                let mail = password_reset_email(user_settings::language(&tx, user.id)?, &link_base, &token);
                queue_account_mail(&tx, &mailer, user.id, &user.email, &mail, now)?;
                tx.commit()?;
                Ok::<_, ServiceError>(true)
            })
            .await?;
        if issued {
            self.mailer.wake_queue();
        }
        Ok(true)
    }

    /// Sets a new password with a forgotten-password link: the link is used up, every session
    /// of the account ends, and the address counts as verified (the link reached it). Unknown,
    /// expired or used links count against the client address; the account's sign-in budget
    /// applies as to a sign-in.
    pub async fn reset_password(
        &self,
        client: &str,
        token: &str,
        new_password: String,
        now: DateTime<Utc>,
    ) -> ServiceResult<()> {
        self.limits.reset_failures_per_client.hit(client)?;
        let invalid_link = || {
            rejected(
                ErrorCode::ResetLinkInvalid,
                "This link is invalid or has expired: ask for a new one",
            )
        };
        let token = token.trim();
        // A link token is 43 characters; anything far longer names nothing.
        if token.is_empty() || token.len() > 128 {
            return Err(invalid_link());
        }
        let hash = codes::hash_link_token(token);
        let lookup = hash.clone();
        let user = self
            .db
            .read(move |conn| {
                let Some(id) = users::password_reset_user(conn, &lookup, Stamp::from(now))? else {
                    return Ok(None);
                };
                Ok::<_, ServiceError>(users::find_by_id(conn, id)?)
            })
            .await?
            .ok_or_else(invalid_link)?;
        self.limits.reset_failures_per_client.forgive(client);
        validate_new_password(&new_password).map_err(ServiceError::Invalid)?;
        let account = account_key(&user.email);
        self.limits.sign_in.begin(&account, client, None)?;
        let password_hash = hash_password(new_password)
            .await
            .map_err(ServiceError::Internal)?;
        let reset = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                // Used up here, inside the change: two tries with one link cannot both succeed.
                let Some(user_id) = users::consume_password_reset(&tx, &hash, Stamp::from(now))? else {
                    return Ok(false);
                };
                users::set_password(&tx, user_id, &password_hash, Stamp::from(now))?;
                users::mark_verified(&tx, user_id)?;
                tx.commit()?;
                Ok::<_, ServiceError>(true)
            })
            .await?;
        if !reset {
            // Used up by a parallel try meanwhile: stays counted as a failure.
            return Err(invalid_link());
        }
        self.limits.sign_in.passed(&account, client);
        tracing::info!(
            user = user.id,
            "password reset with an e-mailed link; every session signed out"
        );
        Ok(())
    }
}
