//! Sign-in by an authenticating proxy: the account a trusted proxy names, made when the
//! administrator allows it. The proxy has authenticated the person (its own password, its own
//! second factor), so this is a full sign-in: Pillbox asks for nothing more.

use chrono::{DateTime, Utc};

use super::{Accounts, hash_password, validate_email};
use crate::db::Stamp;
use crate::services::{ErrorCode, Problem, ServiceError, ServiceResult};
use crate::store::users::{self, User};

impl Accounts<'_> {
    /// The account with the address the proxy named (`identity`). Without one: made (verified,
    /// with a password nobody knows until the person chooses one through "Forgot password")
    /// when `auto_register` is on, else refused with `proxy_registration_not_allowed`.
    pub async fn proxy_account(
        &self,
        identity: &str,
        auto_register: bool,
        now: DateTime<Utc>,
    ) -> ServiceResult<User> {
        let address = identity.to_owned();
        let found = self
            .db
            .read_inline(move |conn| users::find_by_email(conn, &address).map_err(ServiceError::from))
            .await?;
        if let Some(user) = found {
            return Ok(user);
        }
        if !auto_register {
            tracing::warn!(
                identity,
                "proxy sign-in refused: no account has this address and auth.proxy_auto_register is off"
            );
            return Err(ServiceError::Forbidden(
                Problem::new(
                    ErrorCode::ProxyRegistrationNotAllowed,
                    format!(
                        "There is no Pillbox account for {identity}. Ask the administrator to create it, \
                         or to let the sign-in proxy create accounts (auth.proxy_auto_register)."
                    ),
                )
                .with_param("identity", identity),
            ));
        }
        let Ok(email) = validate_email(identity) else {
            tracing::warn!(
                identity,
                "proxy sign-in refused: no account, and the proxy named no e-mail address to make one with"
            );
            return Err(ServiceError::Forbidden(
                Problem::new(
                    ErrorCode::ProxyEmailMissing,
                    format!(
                        "There is no Pillbox account for {identity}, and the sign-in proxy sent no e-mail address \
                         to create one with. Ask the administrator to set auth.proxy_email_header."
                    ),
                )
                .with_param("identity", identity),
            ));
        };
        // A password no one knows: the account signs in through the proxy until its owner
        // sets one of their own ("Forgot password", or `pillbox reset-password`).
        let hash = hash_password(crate::security::codes::link_token())
            .await
            .map_err(ServiceError::Internal)?;
        let (user, created) = self
            .db
            .write(move |conn| {
                // Two first requests at once: the second finds the account the first made.
                match users::insert(conn, &email, &hash, true, Stamp::from(now))? {
                    Some(user) => Ok::<_, ServiceError>((Some(user), true)),
                    None => Ok((users::find_by_email(conn, &email)?, false)),
                }
            })
            .await?;
        let user = user.ok_or_else(|| ServiceError::Internal("the proxy's new account vanished".into()))?;
        if created {
            tracing::info!(
                user = user.id,
                "account created for a person the sign-in proxy named"
            );
        }
        Ok(user)
    }
}
