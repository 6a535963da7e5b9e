//! Verifying an account's e-mail address with a link.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use super::validation::account_key;
use super::{Accounts, queue_account_mail, validate_email, verification_email};
use crate::clock;
use crate::db::Stamp;
use crate::security::codes;
use crate::services::{ErrorCode, ServiceError, ServiceResult, rejected, user_settings};
use crate::store::users;

pub const VERIFICATION_HOURS: i64 = 24;

/// Stores a new verification link for the user and returns its token.
pub fn new_verification(conn: &Connection, user_id: i64, now: DateTime<Utc>) -> rusqlite::Result<String> {
    let token = codes::link_token();
    let expires = clock::stamp(now + chrono::Duration::hours(VERIFICATION_HOURS));
    users::replace_verification(conn, user_id, &codes::hash_link_token(&token), &expires)?;
    Ok(token)
}

impl Accounts<'_> {
    /// that is unknown or expired.
    /// Unknown links count against the client address (counted before the look-up, so
    /// parallel guesses cannot slip past the limit; a good link is forgiven).
    pub async fn verify_email(&self, client: &str, token: &str, now: DateTime<Utc>) -> ServiceResult<bool> {
        self.limits.verify_failures_per_client.hit(client)?;
        let hash = codes::hash_link_token(token.trim());
        let verified = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let Some(user_id) = users::verification_user(&tx, &hash, Stamp::from(now))? else {
                    return Ok(false);
                };
                users::mark_verified(&tx, user_id)?;
                tx.commit()?;
                Ok::<_, ServiceError>(true)
            })
            .await?;
        if verified {
            self.limits.verify_failures_per_client.forgive(client);
        }
        Ok(verified)
    }

    /// Sends a new verification link when the address has an account waiting. The outcome is
    /// the same either way (and the e-mail goes out in the background, so the time taken is
    /// too): it reveals nothing.
    pub async fn resend_verification(
        &self,
        client: &str,
        email: &str,
        now: DateTime<Utc>,
    ) -> ServiceResult<()> {
        let email = validate_email(email).map_err(ServiceError::Invalid)?;
        if !self.mailer.is_configured() {
            return Err(rejected(
                ErrorCode::EmailNotConfigured,
                "Email is not configured on this server",
            ));
        }
        self.limits.verification_per_account.hit(&account_key(&email))?;
        self.limits.verification_per_client.hit(client)?;
        let mailer = Arc::clone(self.mailer);
        let link_base = self.link_base.clone();
        let issued = self
            .db
            .write(move |conn| {
                let Some(user) = users::find_by_email(conn, &email)?.filter(|u| !u.email_verified) else {
                    return Ok(false);
                };
                let tx = conn.transaction()?;
                let token = new_verification(&tx, user.id, now)?;
                let mail = verification_email(user_settings::language(&tx, user.id)?, &link_base, &token);
                queue_account_mail(&tx, &mailer, user.id, &user.email, &mail, now)?;
                tx.commit()?;
                Ok::<_, ServiceError>(true)
            })
            .await?;
        if issued {
            self.mailer.wake_queue();
        }
        Ok(())
    }
}
