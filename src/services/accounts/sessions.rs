//! Sessions: the user of a token, signing out, refreshing.

use chrono::{DateTime, Utc};

use super::{Accounts, SignedIn};
use crate::security::session;
use crate::services::{ErrorCode, ServiceError, ServiceResult, unauthorized};
use crate::store::sessions;
use crate::store::users::{self, User};

impl Accounts<'_> {
    /// The user a token belongs to, if it is valid at `now` and of the user's current version.
    pub async fn user_for_token(&self, token: &str, now: DateTime<Utc>) -> ServiceResult<Option<User>> {
        let Some(claims) = session::decode(self.key, token, now.timestamp()) else {
            return Ok(None);
        };
        if self.revoked.contains(&claims.session_id()) {
            return Ok(None);
        }
        let user = self
            .db
            .read_inline(move |conn| users::find_by_id(conn, claims.sub).map_err(ServiceError::from))
            .await?;
        Ok(user.filter(|u| u.token_version == claims.ver))
    }

    /// Signs this one token out: it is refused from now on, the account's other sessions
    /// stay. The caller has checked the token.
    pub async fn logout(&self, token: &str, now: DateTime<Utc>) -> ServiceResult<()> {
        let Some(claims) = session::decode(self.key, token, now.timestamp()) else {
            return Err(unauthorized(
                ErrorCode::SessionExpired,
                "Invalid or expired session",
            ));
        };
        let id = claims.session_id();
        let (user_id, expires_at, now) = (claims.sub, claims.exp, now.timestamp());
        let stored = id.clone();
        self.db
            .write(move |conn| {
                sessions::prune(conn, now)?;
                sessions::revoke(conn, &stored, user_id, expires_at).map_err(ServiceError::from)
            })
            .await?;
        self.revoked.remember(id, expires_at, now);
        Ok(())
    }

    /// Signs every session of the account out, the caller's included.
    pub async fn logout_everywhere(&self, user_id: i64) -> ServiceResult<()> {
        self.db
            .write(move |conn| users::bump_token_version(conn, user_id).map_err(ServiceError::from))
            .await?;
        tracing::info!(user = user_id, "signed out of all devices");
        Ok(())
    }

    /// A fresh session for a valid token.
    pub async fn refresh(&self, token: &str, now: DateTime<Utc>) -> ServiceResult<SignedIn> {
        match self.user_for_token(token, now).await? {
            Some(user) => self.signed_in(&user, now),
            None => Err(unauthorized(
                ErrorCode::SessionExpired,
                "Invalid or expired session",
            )),
        }
    }
}

impl Accounts<'_> {
    /// A session for an account whose holder another party signed in (the OpenID Connect
    /// provider, through a code it returned): `None` when the account is gone meanwhile.
    pub async fn session_for(&self, user_id: i64, now: DateTime<Utc>) -> ServiceResult<Option<SignedIn>> {
        let user = self
            .db
            .read(move |conn| Ok::<_, ServiceError>(users::find_by_id(conn, user_id)?))
            .await?;
        user.map(|user| self.signed_in(&user, now)).transpose()
    }
}
