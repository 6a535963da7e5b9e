//! Sign-in: the password under its budget, the verified address, the second factor, the
//! sign-in code by e-mail, and the password asked again before sensitive changes.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::validation::account_key;
use super::{
    Accounts, Requirements, SignedIn, TwoFactorMethod, check_password, check_second_factor, code_email,
    methods_of, new_email_code, preference_of, queue_account_mail,
};
use crate::db::Stamp;
use crate::security::codes;
use crate::security::sign_in_budget::Verdict;
use crate::services::passkeys::{self, Assertion};
use crate::services::{
    ErrorCode, Problem, ServiceError, ServiceResult, invalid, rejected, unauthorized, user_settings,
};
use crate::store::carers;
use crate::store::users::{self, TwoFactor, User};

/// What follows the password at sign-in: nothing yet, a code (authenticator, e-mail or
/// backup), or a passkey's assertion.
pub enum Second<'a> {
    None,
    Code(&'a str),
    Passkey(Assertion),
}

impl<'a> Second<'a> {
    /// The code if one was typed, else the passkey's answer, else nothing.
    pub fn of(code: Option<&'a str>, passkey: Option<Assertion>) -> Second<'a> {
        match (code.map(str::trim).filter(|c| !c.is_empty()), passkey) {
            (Some(code), _) => Second::Code(code),
            (None, Some(answer)) => Second::Passkey(answer),
            (None, None) => Second::None,
        }
    }
}

impl Accounts<'_> {
    /// The account's second factors as sign-in offers them: its two-factor methods, and a
    /// passkey when it has one and the server offers passkeys.
    async fn second_factors(&self, user_id: i64, tf: &TwoFactor) -> ServiceResult<Vec<TwoFactorMethod>> {
        let mut methods = methods_of(tf);
        if self.passkeys.is_some() && passkeys::has_any(self.db, user_id).await? {
            methods.push(TwoFactorMethod::Passkey);
        }
        Ok(methods)
    }

    /// Checks a password against the sign-in budget of `account` from `client`: refused while
    /// the budget says wait; a wrong guess already charged is answered without checking.
    pub(super) async fn budgeted_password_check(
        &self,
        account: &str,
        client: &str,
        password: String,
        stored: Option<String>,
    ) -> ServiceResult<bool> {
        let budget = &self.limits.sign_in;
        let guess = budget.fingerprint(account, stored.as_deref(), &password);
        if budget.begin(account, client, Some(&guess))? == Verdict::Repeat {
            return Ok(false);
        }
        if check_password(password, stored).await {
            budget.passed(account, client);
            Ok(true)
        } else {
            budget.failed(account, client, Some(guess));
            Ok(false)
        }
    }

    /// The password step: the user and their two-factor settings when the password is right.
    /// Failures count against the sign-in budget of the account and the client address.
    pub async fn password_step(
        &self,
        client: &str,
        email: &str,
        password: String,
    ) -> ServiceResult<(User, TwoFactor)> {
        if email.trim().is_empty() || password.is_empty() {
            return Err(rejected(
                ErrorCode::CredentialsRequired,
                "Email and password are required",
            ));
        }
        let account = account_key(email);
        let lookup = email.trim().to_owned();
        let found = self
            .db
            .read(move |conn| {
                let Some(user) = users::find_by_email(conn, &lookup)? else {
                    return Ok(None);
                };
                let tf = users::two_factor(conn, user.id)?;
                Ok::<_, ServiceError>(Some((user, tf)))
            })
            .await?;
        // An unknown address is checked (and charged) like a wrong password.
        let stored = found.as_ref().map(|(user, _)| user.password_hash.clone());
        let right = self
            .budgeted_password_check(&account, client, password, stored)
            .await?;
        match found {
            Some(found) if right => Ok(found),
            _ => Err(unauthorized(
                ErrorCode::InvalidCredentials,
                "Invalid email or password",
            )),
        }
    }

    /// The whole sign-in: password, verified address, then the second factor when enabled.
    /// A code without the right password never signs anyone in.
    pub async fn authenticate(
        &self,
        client: &str,
        email: &str,
        password: String,
        second: Second<'_>,
        invitation: Option<&str>,
        now: DateTime<Utc>,
    ) -> ServiceResult<User> {
        let (mut user, tf) = self.password_step(client, email, password).await?;
        if !user.email_verified && self.mailer.is_configured() {
            if !self.verify_by_invitation(&user, invitation, now).await? {
                return Err(ServiceError::EmailNotVerified);
            }
            user.email_verified = true;
        }
        let account = account_key(email);
        if tf.enabled() {
            let code = match second {
                Second::Passkey(answer) => {
                    if let Err(e) = self.passkey_second_factor(&user, answer, now).await {
                        self.limits.sign_in.charge(&account, client);
                        return Err(e);
                    }
                    self.limits.sign_in.signed_in(&account, client);
                    return Ok(user);
                }
                Second::Code(code) => Some(code),
                Second::None => None,
            };
            let Some(code) = code.map(str::trim).filter(|c| !c.is_empty()) else {
                return Err(ServiceError::TwoFactorRequired {
                    methods: self.second_factors(user.id, &tf).await?,
                    preferred: preference_of(&tf),
                });
            };
            let key = self.key.to_vec();
            let code = code.to_owned();
            let user_id = user.id;
            let accepted = self
                .db
                .write(move |conn| {
                    check_second_factor(conn, &key, user_id, &tf, &code, now).map_err(ServiceError::from)
                })
                .await?;
            if accepted.is_none() {
                self.limits.sign_in.charge(&account, client);
                return Err(unauthorized(ErrorCode::InvalidCode, "Invalid verification code"));
            }
        }
        self.limits.sign_in.signed_in(&account, client);
        Ok(user)
    }

    /// An invitation's link proves its address like a verification link does: marks the
    /// account verified when `invitation` is an open invitation to the account's own address.
    async fn verify_by_invitation(
        &self,
        user: &User,
        invitation: Option<&str>,
        now: DateTime<Utc>,
    ) -> ServiceResult<bool> {
        let Some(hash) = invitation.map(|t| codes::hash_link_token(t.trim())) else {
            return Ok(false);
        };
        let (user_id, email) = (user.id, user.email.clone());
        self.db
            .write(move |conn| {
                if !carers::invited(conn, &email, &hash, Stamp::from(now))? {
                    return Ok(false);
                }
                users::mark_verified(conn, user_id)?;
                Ok::<_, ServiceError>(true)
            })
            .await
    }

    /// Sign-in: a session for the right password (and code, when two-factor is on). With the
    /// token of an open invitation to the account's address, an unverified address counts
    /// as verified (the invitation's mail reached it).
    pub async fn login(
        &self,
        client: &str,
        email: &str,
        password: String,
        second: Second<'_>,
        invitation: Option<&str>,
        now: DateTime<Utc>,
    ) -> ServiceResult<SignedIn> {
        let user = self
            .authenticate(client, email, password, second, invitation, now)
            .await?;
        self.signed_in(&user, now)
    }

    /// The code step as its own call: the password is required again, a code alone is not
    /// enough.
    pub async fn verify_code(
        &self,
        client: &str,
        email: &str,
        password: String,
        code: &str,
        now: DateTime<Utc>,
    ) -> ServiceResult<SignedIn> {
        if code.trim().is_empty() {
            return Err(rejected(
                ErrorCode::CodeRequired,
                "Please enter the verification code",
            ));
        }
        self.login(client, email, password, Second::Code(code), None, now)
            .await
    }

    /// Says whether a code step follows. Two-factor details are given only with the right
    /// password; every other case (no password, wrong password, unknown address, no 2FA)
    /// gets the same answer, so the call reveals nothing about which addresses have
    /// accounts. Only a rate limit is an error.
    pub async fn login_requirements(
        &self,
        client: &str,
        email: &str,
        password: String,
    ) -> ServiceResult<Requirements> {
        if email.trim().is_empty() || password.is_empty() {
            return Ok(Requirements::default());
        }
        // The same budget as sign-in: the web app sends the same password to both, and a
        // repeated wrong one is charged once.
        match self.password_step(client, email, password).await {
            Ok((user, tf)) if tf.enabled() => Ok(Requirements {
                methods: self.second_factors(user.id, &tf).await?,
                preferred: preference_of(&tf),
            }),
            Err(e @ ServiceError::Limited(_)) => Err(e),
            _ => Ok(Requirements::default()),
        }
    }

    /// Sends an e-mail sign-in code (after the password step); for the authenticator method
    /// there is nothing to send. Answers the message to show.
    pub async fn send_sign_in_code(
        &self,
        client: &str,
        email: &str,
        password: String,
        method: &str,
        now: DateTime<Utc>,
    ) -> ServiceResult<&'static str> {
        let (user, tf) = self.password_step(client, email, password).await?;
        match method {
            "totp" if tf.totp_secret.is_some() => Ok("Enter the code from your authenticator app"),
            "email" if tf.email_enabled => {
                self.limits.codes_per_account.hit(&format!("user:{}", user.id))?;
                self.limits.codes_per_client.hit(client)?;
                self.send_email_code(&user, now).await?;
                Ok("A sign-in code has been sent to your email")
            }
            "email" | "totp" => Err(rejected(
                ErrorCode::MethodNotEnabled,
                "This sign-in method is not enabled",
            )),
            _ => Err(invalid("Method must be email or totp")),
        }
    }

    /// Makes a sign-in code and queues its e-mail (in one transaction).
    async fn send_email_code(&self, user: &User, now: DateTime<Utc>) -> ServiceResult<()> {
        if !self.mailer.is_configured() {
            tracing::error!(user = user.id, "sign-in code not sent: e-mail is not configured");
            return Err(ServiceError::Unavailable(Problem::new(
                ErrorCode::CodeNotSent,
                "The code could not be sent by email. Please try again later.",
            )));
        }
        let key = self.key.to_vec();
        let (user_id, address) = (user.id, user.email.clone());
        let mailer = Arc::clone(self.mailer);
        self.db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let code = new_email_code(&tx, &key, user_id, now)?;
                let lang = user_settings::language(&tx, user_id)?;
                queue_account_mail(&tx, &mailer, user_id, &address, &code_email(lang, &code), now)?;
                tx.commit()?;
                Ok::<_, ServiceError>(())
            })
            .await?;
        self.mailer.wake_queue();
        Ok(())
    }

    /// The account password, asked again before changes a stolen session must not make
    /// (two-factor set-up, new backup codes, turning two-factor off, deleting the account).
    pub async fn confirm_password(&self, client: &str, user: &User, password: String) -> ServiceResult<()> {
        if password.is_empty() {
            return Err(rejected(
                ErrorCode::PasswordRequired,
                "Please enter your password",
            ));
        }
        let account = account_key(&user.email);
        let stored = Some(user.password_hash.clone());
        if self
            .budgeted_password_check(&account, client, password, stored)
            .await?
        {
            Ok(())
        } else {
            Err(rejected(ErrorCode::PasswordIncorrect, "Password is incorrect"))
        }
    }
}
