//! New accounts, and whether registration is open.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::{
    Accounts, Registered, Registration, hash_password, new_verification, queue_account_mail, validate_email,
    validate_new_password, verification_email,
};
use crate::config::Signups;
use crate::db::Stamp;
use crate::domain::words::Lang;
use crate::services::{ErrorCode, Problem, ServiceError, ServiceResult, conflict, user_settings};
use crate::store::{carers, users};

impl Accounts<'_> {
    /// A new account. Signed in at once when this server sends no e-mail; otherwise it waits
    /// for the address to be verified and the link goes out by e-mail.
    pub async fn register(
        &self,
        client: &str,
        email: &str,
        password: String,
        invitation: Option<&str>,
        language: Option<&str>,
        now: DateTime<Utc>,
    ) -> ServiceResult<Registered> {
        let invitation = invitation.map(crate::security::codes::hash_link_token);
        let language = language.map(user_settings::parse_language).transpose()?;
        let email = validate_email(email).map_err(ServiceError::Invalid)?;
        validate_new_password(&password).map_err(ServiceError::Invalid)?;
        self.limits.registrations_per_client.hit(client)?;
        let hash = hash_password(password).await.map_err(ServiceError::Internal)?;
        let needs_verification = self.mailer.is_configured();
        let signups = self.signups;
        let mailer = Arc::clone(self.mailer);
        let link_base = self.link_base.clone();
        let (user, verification) = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                // The invitation's token (not the address alone) proves that the mail sent to
                // this address was received: the address needs no verification link.
                let invited = match &invitation {
                    Some(hash) => carers::invited(&tx, &email, hash, Stamp::from(now))?,
                    None => false,
                };
                // Past the first account, an address invited to care for someone may still
                // register with the invitation's link: the invitation is an account holder's
                // explicit choice.
                let open = match signups {
                    Signups::Open => true,
                    Signups::Closed => false,
                    Signups::FirstUser => invited || users::count(&tx)? == 0,
                };
                if !open {
                    return Err(ServiceError::Forbidden(Problem::new(
                        ErrorCode::RegistrationClosed,
                        "Registration is closed",
                    )));
                }
                let verified = !needs_verification || invited;
                let user =
                    users::insert(&tx, &email, &hash, verified, Stamp::from(now))?.ok_or_else(|| {
                        conflict(ErrorCode::EmailTaken, "An account with this email already exists")
                    })?;
                if let Some(language) = language {
                    user_settings::set_language(&tx, user.id, language)?;
                }
                let verification = (!verified)
                    .then(|| -> rusqlite::Result<()> {
                        let token = new_verification(&tx, user.id, now)?;
                        let email = verification_email(language.unwrap_or(Lang::En), &link_base, &token);
                        queue_account_mail(&tx, &mailer, user.id, &user.email, &email, now)
                    })
                    .transpose()?;
                tx.commit()?;
                Ok((user, verification))
            })
            .await?;
        if verification.is_none() {
            return Ok(Registered::SignedIn(self.signed_in(&user, now)?));
        }
        self.mailer.wake_queue();
        Ok(Registered::Verify { user: (&user).into() })
    }

    /// Whether registration is possible now (`GET /api/auth/registration`, no session).
    pub async fn registration(&self) -> ServiceResult<Registration> {
        let signups = self.signups;
        let first_account_missing = match signups {
            Signups::FirstUser => {
                self.db
                    .read(|conn| Ok::<_, ServiceError>(users::count(conn)? == 0))
                    .await?
            }
            Signups::Open | Signups::Closed => false,
        };
        Ok(Registration::of(signups, first_account_missing))
    }
}
