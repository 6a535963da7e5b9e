//! Signing in with a passkey: alone (the authenticator names the account), or as the second
//! factor after the password. Both spend the sign-in budget of the password: a failure counts
//! against the account and the client address, a passkey this server does not know against
//! the address.

use chrono::{DateTime, Utc};

use super::validation::account_key;
use super::{Accounts, SignedIn};
use crate::services::passkeys::{self, Assertion, CeremonyOptions, Identified};
use crate::services::{ServiceError, ServiceResult};
use crate::store::users::User;

/// The budget's name for tries with passkeys this server does not know: they are charged to
/// the client address (and its ceiling across accounts), never to a real account.
const UNKNOWN_PASSKEY: &str = "passkey:unknown";

impl Accounts<'_> {
    /// The options of a new passkey, after the account's password (asked again, on the
    /// sign-in budget, as before two-factor changes): a stolen session must not add a way in
    /// that outlives it. An account whose password nobody knows (made by an OpenID Connect
    /// sign-in) is not asked.
    pub async fn passkey_registration_options(
        &self,
        client: &str,
        user: &User,
        password: String,
        now: DateTime<Utc>,
    ) -> ServiceResult<CeremonyOptions> {
        let service = passkeys::configured(self.passkeys)?;
        if passkeys::password_usable(user) {
            self.confirm_password(client, user, password).await.inspect_err(|e| {
                tracing::warn!(user_id = user.id, reason = %e, "passkey registration refused: the password was not confirmed");
            })?;
        }
        service.registration_options(self.db, user, now).await
    }

    /// A session for a passkey's assertion, with no e-mail address or password: the passkey
    /// verified its user (webauthn-rs requires it), so it is a second factor of its own and
    /// two-factor asks for nothing more.
    pub async fn passkey_login(
        &self,
        client: &str,
        answer: Assertion,
        now: DateTime<Utc>,
    ) -> ServiceResult<SignedIn> {
        let service = passkeys::configured(self.passkeys)?;
        let budget = &self.limits.sign_in;
        let pending = match service.identify(self.db, answer, now).await {
            Ok(Identified::Known(pending)) => pending,
            Ok(Identified::Unknown) => {
                budget.begin(UNKNOWN_PASSKEY, client, None)?;
                return Err(passkeys::unknown_passkey());
            }
            Err(e) => {
                budget.begin(UNKNOWN_PASSKEY, client, None)?;
                return Err(e);
            }
        };
        let account = account_key(&pending.user.email);
        // Counted as a failure until the signature checks out.
        budget.begin(&account, client, None)?;
        let verified = service.verify(self.db, pending, now).await?;
        budget.passed(&account, client);
        let user = verified.user;
        if !user.email_verified && self.mailer.is_configured() {
            tracing::warn!(
                user_id = user.id,
                "passkey sign-in refused: the address is not verified"
            );
            return Err(ServiceError::EmailNotVerified);
        }
        budget.signed_in(&account, client);
        tracing::info!(
            user_id = user.id,
            passkey_id = verified.passkey_id,
            "signed in with a passkey"
        );
        self.signed_in(&user, now)
    }

    /// The second step of a password sign-in done with a passkey: it must be one of `user`'s.
    /// The caller charges the sign-in budget when this refuses.
    pub(super) async fn passkey_second_factor(
        &self,
        user: &User,
        answer: Assertion,
        now: DateTime<Utc>,
    ) -> ServiceResult<()> {
        let service = passkeys::configured(self.passkeys)?;
        match service.identify(self.db, answer, now).await? {
            Identified::Known(pending) if pending.user.id == user.id => {
                let verified = service.verify(self.db, pending, now).await?;
                tracing::info!(
                    user_id = user.id,
                    passkey_id = verified.passkey_id,
                    "second factor: a passkey"
                );
                Ok(())
            }
            Identified::Known(pending) => {
                tracing::warn!(
                    user_id = user.id,
                    other_user = pending.user.id,
                    "second factor refused: the passkey is another account's"
                );
                Err(passkeys::unknown_passkey())
            }
            Identified::Unknown => Err(passkeys::unknown_passkey()),
        }
    }
}
