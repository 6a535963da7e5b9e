//! Accounts: registration, sign-in with its second factor, sessions, the profile, the
//! password, e-mail verification, two-factor management and deleting an account. The HTTP
//! handlers and the command line call these; the rules live here once.

mod answers;
mod limits;
mod mails;
mod operator;
mod passkey_sign_in;
mod password_reset;
mod passwords;
mod profile;
mod proxy;
mod registration;
mod second_factor;
mod sessions;
mod sign_in;
mod two_factor;
mod validation;
mod verification;

pub use answers::{
    BackupCodes, Disabled, Enabled, Preference, Profile, Registered, Registration, Requirements, SetupStep,
    SignedIn, TotpSetup, TwoFactorMethod, TwoFactorStatus, methods_of, preference_of,
};
pub use limits::AuthLimits;
pub use mails::{code_email, password_reset_email, queue_account_mail, verification_email};
pub use operator::{create_verified, reset_password};
pub use passwords::{check_password, hash_password};
pub use second_factor::{
    EMAIL_CODE_MINUTES, check_second_factor, new_backup_codes, new_email_code, use_backup_code,
};
pub use sign_in::Second;
pub use validation::{MAX_NAME_LENGTH, validate_email, validate_new_password};
pub use verification::{VERIFICATION_HOURS, new_verification};

use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::config::Signups;
use crate::db::Db;
use crate::mailer::Mailer;
use crate::security::session;
use crate::services::sessions::RevokedSessions;
use crate::services::{ServiceError, ServiceResult};
use crate::store::users::User;

/// What the account services use of the server: the database, the rate limits, the signed-out
/// sessions, the mailer, the instance key (session tokens and code hashes) and the sign-up
/// policy.
pub struct Accounts<'a> {
    pub db: &'a Db,
    pub limits: &'a AuthLimits,
    pub revoked: &'a RevokedSessions,
    pub mailer: &'a Arc<Mailer>,
    pub key: &'a [u8],
    pub signups: Signups,
    /// The origin of links in e-mails.
    pub link_base: String,
    /// Passkeys, when the server offers them (`public_url` names a host).
    pub passkeys: Option<&'a crate::services::passkeys::Passkeys>,
}

impl Accounts<'_> {
    /// A session token of the user's current token version.
    pub fn token(&self, user_id: i64, token_version: i64, now: DateTime<Utc>) -> ServiceResult<String> {
        session::issue(self.key, user_id, token_version, now.timestamp())
            .map_err(|e| ServiceError::Internal(format!("cannot sign a session token: {e}")))
    }

    pub(super) fn signed_in(&self, user: &User, now: DateTime<Utc>) -> ServiceResult<SignedIn> {
        Ok(SignedIn {
            user: user.into(),
            token: self.token(user.id, user.token_version, now)?,
        })
    }
}
