//! What the account services answer: the shapes the API shows (profile, session, two-factor
//! settings) and the outcomes the handlers tell apart.

use serde::Serialize;
use utoipa::ToSchema;

use crate::config::Signups;
use crate::db::Stamp;
use crate::services::{ServiceResult, invalid};
use crate::store::users::{TwoFactor, User};

/// The user as the API shows it: never the password hash or token version.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Profile {
    pub id: i64,
    pub email: String,
    #[serde(rename = "firstName")]
    pub first_name: String,
    #[serde(rename = "lastName")]
    pub last_name: String,
    #[serde(rename = "emailVerified")]
    pub email_verified: bool,
    /// When the account was made (RFC 3339, UTC).
    #[schema(value_type = String)]
    pub created_at: Stamp,
}

impl From<&User> for Profile {
    fn from(user: &User) -> Profile {
        Profile {
            id: user.id,
            email: user.email.clone(),
            first_name: user.first_name.clone(),
            last_name: user.last_name.clone(),
            email_verified: user.email_verified,
            created_at: user.created_at,
        }
    }
}

/// A signed-in session: who, and the bearer token for the next requests.
#[derive(Debug, Serialize, ToSchema)]
pub struct SignedIn {
    pub user: Profile,
    /// Send as `Authorization: Bearer …`.
    pub token: String,
}

/// A second sign-in factor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TwoFactorMethod {
    /// A code sent by e-mail.
    Email,
    /// A code from an authenticator app.
    Totp,
    /// One of the account's passkeys (`POST /api/auth/passkeys/login/options`, then the
    /// assertion as `passkey` in the sign-in body). Offered at sign-in when the account has
    /// one; never set up or preferred here.
    Passkey,
}

impl TwoFactorMethod {
    /// The method a request names; anything else is "Method must be email or totp".
    pub fn parse(text: &str) -> ServiceResult<TwoFactorMethod> {
        match text {
            "email" => Ok(TwoFactorMethod::Email),
            "totp" => Ok(TwoFactorMethod::Totp),
            _ => Err(invalid("Method must be email or totp")),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TwoFactorMethod::Email => "email",
            TwoFactorMethod::Totp => "totp",
            TwoFactorMethod::Passkey => "passkey",
        }
    }

    fn of(text: &str) -> Option<TwoFactorMethod> {
        TwoFactorMethod::parse(text).ok()
    }
}

/// The methods a person has turned on, in the order the API lists them.
pub fn methods_of(tf: &TwoFactor) -> Vec<TwoFactorMethod> {
    tf.methods().into_iter().filter_map(TwoFactorMethod::of).collect()
}

pub fn preference_of(tf: &TwoFactor) -> Option<TwoFactorMethod> {
    tf.preference().and_then(TwoFactorMethod::of)
}

/// How a registration ended: signed in at once, or waiting for the address to be verified.
pub enum Registered {
    SignedIn(SignedIn),
    /// The verification e-mail is queued (in the transaction that made the account).
    Verify {
        user: Profile,
    },
}

/// Whether people can make an account on this server now.
#[derive(Debug, Serialize, ToSchema)]
pub struct Registration {
    /// The server's `signups` setting: `open`, `closed`, or `first-user` (open until the
    /// first account exists, then only through a care invitation's link).
    #[schema(value_type = String, example = "first-user")]
    pub signups: Signups,
    /// Anyone may register now.
    pub open: bool,
    /// An open care invitation's link lets its address register even when `open` is false
    /// (`first-user` once the first account exists).
    pub invitations: bool,
}

impl Registration {
    pub fn of(signups: Signups, first_account_missing: bool) -> Registration {
        let open = match signups {
            Signups::Open => true,
            Signups::Closed => false,
            Signups::FirstUser => first_account_missing,
        };
        Registration {
            signups,
            open,
            invitations: open || signups == Signups::FirstUser,
        }
    }
}

/// Whether a code step follows the password (the answer of the requirement check).
#[derive(Debug, Default)]
pub struct Requirements {
    pub methods: Vec<TwoFactorMethod>,
    pub preferred: Option<TwoFactorMethod>,
}

/// A person's two-factor settings as the settings page shows them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TwoFactorStatus {
    pub methods: Vec<TwoFactorMethod>,
    pub preference: Option<TwoFactorMethod>,
    pub backup_codes_remaining: i64,
    /// Whether this server can send e-mail codes.
    pub email_available: bool,
}

/// A two-factor method turned on: the new backup codes (shown once) and the session's fresh
/// token (every other session is signed out).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Enabled {
    /// The new backup codes, shown this once (the old ones stop working).
    pub backup_codes: Option<Vec<String>>,
    pub token: String,
    pub methods: Vec<TwoFactorMethod>,
}

/// The authenticator app set-up's first step: the secret and its QR code.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TotpSetup {
    pub secret: String,
    /// A `data:image/png;base64,…` URL.
    pub qr_code_url: String,
}

/// What `setup` did: e-mail codes are on at once; the authenticator app needs a code first.
pub enum SetupStep {
    EmailEnabled(Enabled),
    TotpStarted(TotpSetup),
}

/// The two-factor settings after a method was turned off, and the session's fresh token.
#[derive(Debug, Serialize, ToSchema)]
pub struct Disabled {
    pub token: String,
    pub methods: Vec<TwoFactorMethod>,
    pub preference: Option<TwoFactorMethod>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Preference {
    pub preference: Option<TwoFactorMethod>,
    pub methods: Vec<TwoFactorMethod>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackupCodes {
    pub backup_codes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_are_listed_in_order_and_the_preference_falls_back() {
        let tf = TwoFactor {
            email_enabled: true,
            totp_secret: Some("SECRET".into()),
            preferred_method: Some("sms".into()),
            ..TwoFactor::default()
        };
        assert_eq!(methods_of(&tf), [TwoFactorMethod::Email, TwoFactorMethod::Totp]);
        assert_eq!(preference_of(&tf), Some(TwoFactorMethod::Email));
        assert_eq!(
            serde_json::to_value(methods_of(&tf)).unwrap(),
            serde_json::json!(["email", "totp"])
        );
        assert!(TwoFactorMethod::parse("sms").is_err());
        assert_eq!(preference_of(&TwoFactor::default()), None);
    }
}
