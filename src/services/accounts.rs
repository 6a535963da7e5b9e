//! Accounts: registration, sign-in with its second factor, sessions, the profile, the
//! password, e-mail verification, two-factor management and deleting an account. The HTTP
//! handlers and the command line call these; the rules live here once.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use serde::Serialize;
use utoipa::ToSchema;

use super::email::{self, Button, Letter};
use super::sessions::RevokedSessions;
use super::{
    ErrorCode, Problem, ServiceError, ServiceResult, conflict, invalid, not_found, rejected, user_backups,
    user_settings,
};
use crate::clock;
use crate::config::Signups;
use crate::db::Db;
use crate::domain::words::Lang;
use crate::mailer::{Email, Mailer};
use crate::security::codes::{self, BACKUP_CODE_COUNT, BACKUP_CODE_LENGTH};
use crate::security::rate_limit::{Limited, RateLimiter};
use crate::security::sign_in_budget::{self, SignInBudget, Verdict};
use crate::security::{password, session, totp};
use crate::store::carers;
use crate::store::outbox::{self, MailKind, NewMail};
use crate::store::sessions;
use crate::store::users::{self, TwoFactor, User};

pub const EMAIL_CODE_MINUTES: i64 = 10;
pub const EMAIL_CODE_MAX_TRIES: i64 = 5;
pub const VERIFICATION_HOURS: i64 = 24;
/// How long a forgotten-password link works.
pub const PASSWORD_RESET_HOURS: i64 = 1;
pub const MAX_EMAIL_LENGTH: usize = 254;
pub const MAX_NAME_LENGTH: usize = 100;

/// An account e-mail (verification link, sign-in code) is tried this many times, the
/// first retry after `ACCOUNT_MAIL_BACKOFF_SECONDS` and each further one after twice the
/// wait: about a quarter of an hour in all.
const ACCOUNT_MAIL_ATTEMPTS: u32 = 6;
const ACCOUNT_MAIL_BACKOFF_SECONDS: u32 = 30;

/// Purposes that key the code hashes, so a code of one kind never matches another.
const EMAIL_CODE: &str = "email-code";
const BACKUP_CODE: &str = "backup-code";

/// The rate limits of the sign-in and code paths (DESIGN §5; the numbers are in the README).
pub struct AuthLimits {
    /// Wrong passwords and sign-in codes: per account and address with backoff, with
    /// ceilings per account and per address. The two-factor requirement check shares it.
    pub sign_in: SignInBudget,
    /// Codes checked by a signed-in session (completing the authenticator set-up, turning
    /// two-factor off with a backup code), per account.
    pub session_code_checks: RateLimiter,
    /// E-mail codes sent per account and per client address.
    pub codes_per_account: RateLimiter,
    pub codes_per_client: RateLimiter,
    /// Verification e-mails per address and per client address.
    pub verification_per_account: RateLimiter,
    pub verification_per_client: RateLimiter,
    /// Verification links that were unknown or expired, per client address.
    pub verify_failures_per_client: RateLimiter,
    /// Forgotten-password links asked for, per address and per client address.
    pub password_resets_per_account: RateLimiter,
    pub password_resets_per_client: RateLimiter,
    /// Forgotten-password links that were unknown, expired or used, per client address.
    pub reset_failures_per_client: RateLimiter,
    /// New accounts per client address (when sign-ups are open).
    pub registrations_per_client: RateLimiter,
    /// Take-link requests (look-ups and logs) per client address.
    pub take_links_per_client: RateLimiter,
}

impl AuthLimits {
    /// The limits, with `registrations_per_hour` new accounts per client address.
    pub fn new(registrations_per_hour: u32) -> Self {
        let quarter_hour = Duration::from_secs(15 * 60);
        let hour = Duration::from_secs(3600);
        AuthLimits {
            sign_in: SignInBudget::new(sign_in_budget::POLICY),
            session_code_checks: RateLimiter::new(10, quarter_hour),
            codes_per_account: RateLimiter::new(5, quarter_hour),
            codes_per_client: RateLimiter::new(20, quarter_hour),
            verification_per_account: RateLimiter::new(3, hour),
            verification_per_client: RateLimiter::new(10, hour),
            verify_failures_per_client: RateLimiter::new(10, hour),
            password_resets_per_account: RateLimiter::new(3, hour),
            password_resets_per_client: RateLimiter::new(10, hour),
            reset_failures_per_client: RateLimiter::new(10, hour),
            registrations_per_client: RateLimiter::new(registrations_per_hour as usize, hour),
            take_links_per_client: RateLimiter::new(60, quarter_hour),
        }
    }
}

/// A trimmed e-mail address that looks deliverable, or the message to show.
pub fn validate_email(input: &str) -> Result<String, Problem> {
    let email = input.trim();
    if email.is_empty() {
        return Err(Problem::new(ErrorCode::EmailRequired, "Email is required"));
    }
    let valid = email.len() <= MAX_EMAIL_LENGTH
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
        });
    if valid {
        Ok(email.to_owned())
    } else {
        Err(Problem::new(
            ErrorCode::EmailInvalid,
            "Please enter a valid email address",
        ))
    }
}

pub fn validate_new_password(input: &str) -> Result<(), Problem> {
    // The minimum counts characters (what people see); the maximum counts bytes, the same
    // measure sign-in applies, so every password that can be set can be used.
    if input.chars().count() < password::MIN_LENGTH {
        Err(Problem::new(
            ErrorCode::PasswordTooShort,
            "Password must be at least 6 characters long",
        ))
    } else if input.len() > password::MAX_LENGTH {
        Err(Problem::new(
            ErrorCode::PasswordTooLong,
            "Password must be at most 1024 bytes long",
        ))
    } else {
        Ok(())
    }
}

/// Password hashes running at once. Each argon2 run holds 19 MiB: without a bound, a flood
/// of sign-in requests could exhaust a Raspberry Pi's memory and stop the reminders.
static HASHING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(4);

/// Argon2 takes tens of milliseconds of CPU: never on the async runtime.
pub async fn hash_password(input: String) -> Result<String, String> {
    let _permit = HASHING.acquire().await.map_err(|e| e.to_string())?;
    tokio::task::spawn_blocking(move || password::hash(&input).map_err(|e| e.to_string()))
        .await
        .map_err(|e| e.to_string())?
}

/// Checks a password off the async runtime; an unknown account costs the same time.
pub async fn check_password(input: String, stored: Option<String>) -> bool {
    if input.len() > password::MAX_LENGTH {
        return false;
    }
    let Ok(_permit) = HASHING.acquire().await else {
        return false;
    };
    tokio::task::spawn_blocking(move || match stored {
        Some(hash) => password::verify(&input, &hash),
        None => {
            password::verify_dummy(&input);
            false
        }
    })
    .await
    .unwrap_or(false)
}

/// Which kind of second factor a code was accepted as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecondFactor {
    Totp,
    EmailCode,
    BackupCode,
}

/// Checks a sign-in code against the user's enabled methods: an authenticator code (each
/// step once), the pending e-mail code (10 minutes, 5 tries), or an unused backup code.
/// Run inside the writer so that every use is recorded before the answer.
pub fn check_second_factor(
    conn: &Connection,
    key: &[u8],
    user_id: i64,
    tf: &TwoFactor,
    code: &str,
    now: DateTime<Utc>,
) -> rusqlite::Result<Option<SecondFactor>> {
    let code = code.trim();
    if code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit()) {
        if let Some(secret) = &tf.totp_secret {
            let unix = u64::try_from(now.timestamp()).unwrap_or_default();
            if let Some(step) = totp::verify(secret, code, unix, tf.totp_last_step)
                && users::claim_totp_step(conn, user_id, step)?
            {
                return Ok(Some(SecondFactor::Totp));
            }
        }
        if tf.email_enabled && check_email_code(conn, key, user_id, code, &clock::stamp(now))? {
            return Ok(Some(SecondFactor::EmailCode));
        }
        return Ok(None);
    }
    let backup = codes::normalize_backup_code(code);
    if backup.len() == BACKUP_CODE_LENGTH && use_backup_code(conn, key, user_id, &backup, now)? {
        return Ok(Some(SecondFactor::BackupCode));
    }
    Ok(None)
}

fn check_email_code(
    conn: &Connection,
    key: &[u8],
    user_id: i64,
    code: &str,
    now: &str,
) -> rusqlite::Result<bool> {
    let Some(pending) = users::email_code(conn, user_id)? else {
        return Ok(false);
    };
    if pending.expires_at.as_str() <= now || pending.attempts >= EMAIL_CODE_MAX_TRIES {
        users::delete_email_code(conn, user_id)?;
        return Ok(false);
    }
    if codes::hashes_equal(&codes::hash_code(key, EMAIL_CODE, code), &pending.code_hash) {
        users::delete_email_code(conn, user_id)?;
        return Ok(true);
    }
    users::count_email_code_failure(conn, user_id)?;
    Ok(false)
}

/// Consumes a backup code (already normalised); false if it is not an unused code.
pub fn use_backup_code(
    conn: &Connection,
    key: &[u8],
    user_id: i64,
    code: &str,
    now: DateTime<Utc>,
) -> rusqlite::Result<bool> {
    users::use_backup_code(
        conn,
        user_id,
        &codes::hash_code(key, BACKUP_CODE, code),
        &clock::stamp(now),
    )
}

/// Makes a fresh set of backup codes (the old ones stop working) and returns them once.
pub fn new_backup_codes(conn: &Connection, key: &[u8], user_id: i64) -> rusqlite::Result<Vec<String>> {
    let plain: Vec<String> = (0..BACKUP_CODE_COUNT).map(|_| codes::backup_code()).collect();
    let hashes: Vec<String> = plain
        .iter()
        .map(|c| codes::hash_code(key, BACKUP_CODE, c))
        .collect();
    users::replace_backup_codes(conn, user_id, &hashes)?;
    Ok(plain)
}

/// Stores a new e-mail sign-in code and returns it for sending.
pub fn new_email_code(
    conn: &Connection,
    key: &[u8],
    user_id: i64,
    now: DateTime<Utc>,
) -> rusqlite::Result<String> {
    let code = codes::six_digit_code();
    let expires = clock::stamp(now + chrono::Duration::minutes(EMAIL_CODE_MINUTES));
    users::replace_email_code(conn, user_id, &codes::hash_code(key, EMAIL_CODE, &code), &expires)?;
    Ok(code)
}

/// Stores a new verification link for the user and returns its token.
pub fn new_verification(conn: &Connection, user_id: i64, now: DateTime<Utc>) -> rusqlite::Result<String> {
    let token = codes::link_token();
    let expires = clock::stamp(now + chrono::Duration::hours(VERIFICATION_HOURS));
    users::replace_verification(conn, user_id, &codes::hash_link_token(&token), &expires)?;
    Ok(token)
}

/// Queues an account e-mail (or another a person asked for, like a care invitation); the
/// caller wakes the queue after committing.
pub fn queue_account_mail(
    conn: &Connection,
    mailer: &Mailer,
    user_id: i64,
    to: &str,
    email: &Email,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    let message_id = mailer.message_id(&format!("account.{}", codes::link_token()));
    outbox::enqueue(
        conn,
        &NewMail {
            kind: MailKind::Account,
            user_id: Some(user_id),
            reminder: None,
            recipient: to,
            subject: &email.subject,
            text: &email.text,
            html: &email.html,
            message_id: &message_id,
            max_attempts: ACCOUNT_MAIL_ATTEMPTS,
            backoff_seconds: ACCOUNT_MAIL_BACKOFF_SECONDS,
            now: &clock::stamp(now),
        },
    )?;
    Ok(())
}

/// The verification e-mail, in the language the person signed up in.
pub fn verification_email(lang: Lang, link_base: &str, token: &str) -> Email {
    let link = format!("{link_base}/verify-email/{token}");
    let w = verification_words(lang);
    let hours = |text: &str| text.replace("{hours}", &VERIFICATION_HOURS.to_string());
    Letter {
        paragraphs: vec![w.welcome.into(), hours(w.confirm)],
        button: Some(Button {
            href: link,
            label: w.button.into(),
            text_label: None,
            or_open: Some(email::or_open(lang).into()),
        }),
        notes: vec![w.ignore.into()],
        ..Letter::new(lang, w.subject)
    }
    .email()
}

/// The sign-in code e-mail, in the person's language.
pub fn code_email(lang: Lang, code: &str) -> Email {
    let w = code_words(lang);
    Letter {
        paragraphs: vec![w.is.into()],
        code: Some(code.into()),
        after_code: vec![w.valid.replace("{minutes}", &EMAIL_CODE_MINUTES.to_string())],
        ..Letter::new(lang, w.subject)
    }
    .email()
}

/// The verification e-mail's texts (`{hours}`: `VERIFICATION_HOURS`).
struct VerificationWords {
    subject: &'static str,
    welcome: &'static str,
    confirm: &'static str,
    button: &'static str,
    ignore: &'static str,
}

fn verification_words(lang: Lang) -> &'static VerificationWords {
    match lang {
        Lang::En => &VerificationWords {
            subject: "Confirm your e-mail address for Pillbox",
            welcome: "Welcome to Pillbox.",
            confirm: "Confirm your e-mail address within {hours} hours:",
            button: "Confirm e-mail address",
            ignore: "If you did not create a Pillbox account, ignore this message.",
        },
        Lang::Es => &VerificationWords {
            subject: "Confirma tu dirección de correo para Pillbox",
            welcome: "Te damos la bienvenida a Pillbox.",
            confirm: "Confirma tu dirección de correo en las próximas {hours} horas:",
            button: "Confirmar dirección de correo",
            ignore: "Si no has creado una cuenta de Pillbox, ignora este mensaje.",
        },
        Lang::Fr => &VerificationWords {
            subject: "Confirmez votre adresse e-mail pour Pillbox",
            welcome: "Bienvenue dans Pillbox.",
            confirm: "Confirmez votre adresse e-mail dans les {hours} heures :",
            button: "Confirmer l'adresse e-mail",
            ignore: "Si vous n'avez pas créé de compte Pillbox, ignorez ce message.",
        },
        Lang::De => &VerificationWords {
            subject: "Bestätigen Sie Ihre E-Mail-Adresse für Pillbox",
            welcome: "Willkommen bei Pillbox.",
            confirm: "Bestätigen Sie Ihre E-Mail-Adresse innerhalb von {hours} Stunden:",
            button: "E-Mail-Adresse bestätigen",
            ignore: "Wenn Sie kein Pillbox-Konto angelegt haben, ignorieren Sie diese Nachricht.",
        },
    }
}

/// The sign-in code e-mail's texts (`{minutes}`: `EMAIL_CODE_MINUTES`).
struct CodeWords {
    subject: &'static str,
    is: &'static str,
    valid: &'static str,
}

fn code_words(lang: Lang) -> &'static CodeWords {
    match lang {
        Lang::En => &CodeWords {
            subject: "Your Pillbox sign-in code",
            is: "Your Pillbox sign-in code is",
            valid: "It is valid for {minutes} minutes. If you did not try to sign in, change your password.",
        },
        Lang::Es => &CodeWords {
            subject: "Tu código de acceso a Pillbox",
            is: "Tu código de acceso a Pillbox es",
            valid: "Es válido durante {minutes} minutos. Si no has intentado iniciar sesión, cambia tu contraseña.",
        },
        Lang::Fr => &CodeWords {
            subject: "Votre code de connexion Pillbox",
            is: "Votre code de connexion Pillbox est",
            valid: "Il est valable {minutes} minutes. Si vous n'avez pas essayé de vous connecter, changez votre mot de passe.",
        },
        Lang::De => &CodeWords {
            subject: "Ihr Pillbox-Anmeldecode",
            is: "Ihr Pillbox-Anmeldecode lautet",
            valid: "Er ist {minutes} Minuten gültig. Wenn Sie sich nicht anmelden wollten, ändern Sie Ihr Passwort.",
        },
    }
}

/// Stores a new forgotten-password link for the user and returns its token.
pub fn new_password_reset(conn: &Connection, user_id: i64, now: DateTime<Utc>) -> rusqlite::Result<String> {
    let token = codes::link_token();
    let expires = clock::stamp(now + chrono::Duration::hours(PASSWORD_RESET_HOURS));
    users::replace_password_reset(conn, user_id, &codes::hash_link_token(&token), &expires)?;
    Ok(token)
}

/// The forgotten-password e-mail, in the account holder's language.
pub fn password_reset_email(lang: Lang, link_base: &str, token: &str) -> Email {
    let link = format!("{link_base}/reset-password/{token}");
    let w = reset_words(lang);
    Letter {
        paragraphs: vec![w.asked.into(), w.open.into()],
        button: Some(Button {
            href: link,
            label: w.button.into(),
            text_label: None,
            or_open: Some(email::or_open(lang).into()),
        }),
        notes: vec![w.ignore.into()],
        ..Letter::new(lang, w.subject)
    }
    .email()
}

/// The forgotten-password e-mail's texts (the link is valid for `PASSWORD_RESET_HOURS`: one).
struct ResetWords {
    subject: &'static str,
    asked: &'static str,
    open: &'static str,
    button: &'static str,
    ignore: &'static str,
}

fn reset_words(lang: Lang) -> &'static ResetWords {
    match lang {
        Lang::En => &ResetWords {
            subject: "Reset your Pillbox password",
            asked: "Someone asked to reset the password of your Pillbox account.",
            open: "Open this link within 1 hour to choose a new password. It works once.",
            button: "Choose a new password",
            ignore: "If you did not ask for this, ignore this message: your password stays as it is.",
        },
        Lang::Es => &ResetWords {
            subject: "Restablece tu contraseña de Pillbox",
            asked: "Alguien ha pedido restablecer la contraseña de tu cuenta de Pillbox.",
            open: "Abre este enlace en la próxima hora para elegir una contraseña nueva. Solo funciona una vez.",
            button: "Elegir una contraseña nueva",
            ignore: "Si no lo has pedido tú, ignora este mensaje: tu contraseña no cambia.",
        },
        Lang::Fr => &ResetWords {
            subject: "Réinitialisez votre mot de passe Pillbox",
            asked: "Quelqu'un a demandé à réinitialiser le mot de passe de votre compte Pillbox.",
            open: "Ouvrez ce lien dans l'heure pour choisir un nouveau mot de passe. Il ne fonctionne qu'une fois.",
            button: "Choisir un nouveau mot de passe",
            ignore: "Si vous n'avez rien demandé, ignorez ce message : votre mot de passe reste inchangé.",
        },
        Lang::De => &ResetWords {
            subject: "Ihr Pillbox-Passwort zurücksetzen",
            asked: "Jemand hat das Zurücksetzen des Passworts Ihres Pillbox-Kontos angefordert.",
            open: "Öffnen Sie diesen Link innerhalb einer Stunde, um ein neues Passwort zu wählen. Er funktioniert nur einmal.",
            button: "Neues Passwort wählen",
            ignore: "Wenn Sie das nicht angefordert haben, ignorieren Sie diese Nachricht: Ihr Passwort bleibt unverändert.",
        },
    }
}

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
    pub created_at: String,
}

impl From<&User> for Profile {
    fn from(user: &User) -> Profile {
        Profile {
            id: user.id,
            email: user.email.clone(),
            first_name: user.first_name.clone(),
            last_name: user.last_name.clone(),
            email_verified: user.email_verified,
            created_at: user.created_at.clone(),
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

/// What the operator's commands answer: the account, or why nothing was changed.
pub type OperatorResult<T> = Result<T, String>;

/// Creates an account verified at once (`pillbox create-user`: the operator vouches for the
/// address), with the same rules for addresses and passwords as registration.
pub fn create_verified(
    conn: &Connection,
    email: &str,
    new_password: &str,
    now: DateTime<Utc>,
) -> OperatorResult<User> {
    let email = validate_email(email).map_err(|p| p.message)?;
    validate_new_password(new_password).map_err(|p| p.message)?;
    let hash = password::hash(new_password).map_err(|e| e.to_string())?;
    users::insert(conn, &email, &hash, true, &clock::stamp(now))
        .map_err(|e| format!("database error: {e}"))?
        .ok_or_else(|| format!("an account with the address {email} already exists; nothing was changed"))
}

/// Sets a new password and signs the account out everywhere (`pillbox reset-password`).
pub fn reset_password(
    conn: &Connection,
    email: &str,
    new_password: &str,
    now: DateTime<Utc>,
) -> OperatorResult<User> {
    let user = users::find_by_email(conn, email.trim())
        .map_err(|e| format!("database error: {e}"))?
        .ok_or_else(|| format!("no account with the address {}", email.trim()))?;
    validate_new_password(new_password).map_err(|p| p.message)?;
    let hash = password::hash(new_password).map_err(|e| e.to_string())?;
    users::set_password(conn, user.id, &hash, &clock::stamp(now))
        .map_err(|e| format!("database error: {e}"))?;
    Ok(user)
}

/// Why a sign-in or an account change was refused, beyond what every service can answer.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error(transparent)]
    Service(#[from] ServiceError),
    /// Not signed in (401): wrong credentials, a wrong or missing second factor, a dead session.
    #[error("{0}")]
    Unauthorized(Problem),
    /// The address is not verified yet and this server sends e-mail (403).
    #[error("Please verify your email address before signing in")]
    EmailNotVerified,
    /// The password was right; a second factor must follow (401).
    #[error("Two-factor authentication code required")]
    TwoFactorRequired {
        methods: Vec<TwoFactorMethod>,
        preferred: Option<TwoFactorMethod>,
    },
    /// Too many tries: retry after this many seconds (429).
    #[error("too many attempts, retry in {0} s")]
    Limited(u64),
    /// A message the person needs could not be sent (503).
    #[error("{0}")]
    Unavailable(Problem),
    /// Hashing or signing failed: logged, never shown.
    #[error("{0}")]
    Internal(String),
}

impl From<Limited> for AccountError {
    fn from(Limited(secs): Limited) -> Self {
        AccountError::Limited(secs)
    }
}

impl From<crate::db::DbError> for AccountError {
    fn from(e: crate::db::DbError) -> Self {
        AccountError::Service(e.into())
    }
}

impl From<rusqlite::Error> for AccountError {
    fn from(e: rusqlite::Error) -> Self {
        AccountError::Service(e.into())
    }
}

pub type AccountResult<T> = Result<T, AccountError>;

fn unauthorized(code: ErrorCode, message: &str) -> AccountError {
    AccountError::Unauthorized(Problem::new(code, message))
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

fn account_key(email: &str) -> String {
    email.trim().to_lowercase()
}

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
}

impl Accounts<'_> {
    /// A session token of the user's current token version.
    pub fn token(&self, user_id: i64, token_version: i64, now: DateTime<Utc>) -> AccountResult<String> {
        session::issue(self.key, user_id, token_version, now.timestamp())
            .map_err(|e| AccountError::Internal(format!("cannot sign a session token: {e}")))
    }

    fn signed_in(&self, user: &User, now: DateTime<Utc>) -> AccountResult<SignedIn> {
        Ok(SignedIn {
            user: user.into(),
            token: self.token(user.id, user.token_version, now)?,
        })
    }

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
    pub async fn logout(&self, token: &str, now: DateTime<Utc>) -> AccountResult<()> {
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
    pub async fn refresh(&self, token: &str, now: DateTime<Utc>) -> AccountResult<SignedIn> {
        match self.user_for_token(token, now).await? {
            Some(user) => self.signed_in(&user, now),
            None => Err(unauthorized(
                ErrorCode::SessionExpired,
                "Invalid or expired session",
            )),
        }
    }

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
    ) -> AccountResult<Registered> {
        let invitation = invitation.map(crate::security::codes::hash_link_token);
        let language = language.map(user_settings::parse_language).transpose()?;
        let email = validate_email(email).map_err(ServiceError::Invalid)?;
        validate_new_password(&password).map_err(ServiceError::Invalid)?;
        self.limits.registrations_per_client.hit(client)?;
        let hash = hash_password(password).await.map_err(AccountError::Internal)?;
        let needs_verification = self.mailer.is_configured();
        let signups = self.signups;
        let mailer = Arc::clone(self.mailer);
        let link_base = self.link_base.clone();
        let (user, verification) =
            self.db
                .write(move |conn| {
                    let tx = conn.transaction()?;
                    // The invitation's token (not the address alone) proves that the mail sent to
                    // this address was received: the address needs no verification link.
                    let invited = match &invitation {
                        Some(hash) => carers::invited(&tx, &email, hash, &clock::stamp(now))?,
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
                    let user = users::insert(&tx, &email, &hash, verified, &clock::stamp(now))?.ok_or_else(
                        || conflict(ErrorCode::EmailTaken, "An account with this email already exists"),
                    )?;
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

    /// Checks a password against the sign-in budget of `account` from `client`: refused while
    /// the budget says wait; a wrong guess already charged is answered without checking.
    async fn budgeted_password_check(
        &self,
        account: &str,
        client: &str,
        password: String,
        stored: Option<String>,
    ) -> AccountResult<bool> {
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
    ) -> AccountResult<(User, TwoFactor)> {
        if email.trim().is_empty() || password.is_empty() {
            return Err(rejected(ErrorCode::CredentialsRequired, "Email and password are required").into());
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
        code: Option<&str>,
        invitation: Option<&str>,
        now: DateTime<Utc>,
    ) -> AccountResult<User> {
        let (mut user, tf) = self.password_step(client, email, password).await?;
        if !user.email_verified && self.mailer.is_configured() {
            if !self.verify_by_invitation(&user, invitation, now).await? {
                return Err(AccountError::EmailNotVerified);
            }
            user.email_verified = true;
        }
        let account = account_key(email);
        if tf.enabled() {
            let Some(code) = code.map(str::trim).filter(|c| !c.is_empty()) else {
                return Err(AccountError::TwoFactorRequired {
                    methods: methods_of(&tf),
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
                if !carers::invited(conn, &email, &hash, &clock::stamp(now))? {
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
        code: Option<&str>,
        invitation: Option<&str>,
        now: DateTime<Utc>,
    ) -> AccountResult<SignedIn> {
        let user = self
            .authenticate(client, email, password, code, invitation, now)
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
    ) -> AccountResult<SignedIn> {
        if code.trim().is_empty() {
            return Err(rejected(ErrorCode::CodeRequired, "Please enter the verification code").into());
        }
        self.login(client, email, password, Some(code), None, now).await
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
    ) -> AccountResult<Requirements> {
        if email.trim().is_empty() || password.is_empty() {
            return Ok(Requirements::default());
        }
        // The same budget as sign-in: the web app sends the same password to both, and a
        // repeated wrong one is charged once.
        match self.password_step(client, email, password).await {
            Ok((_, tf)) if tf.enabled() => Ok(Requirements {
                methods: methods_of(&tf),
                preferred: preference_of(&tf),
            }),
            Err(e @ AccountError::Limited(_)) => Err(e),
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
    ) -> AccountResult<&'static str> {
        let (user, tf) = self.password_step(client, email, password).await?;
        match method {
            "totp" if tf.totp_secret.is_some() => Ok("Enter the code from your authenticator app"),
            "email" if tf.email_enabled => {
                self.limits.codes_per_account.hit(&format!("user:{}", user.id))?;
                self.limits.codes_per_client.hit(client)?;
                self.send_email_code(&user, now).await?;
                Ok("A sign-in code has been sent to your email")
            }
            "email" | "totp" => {
                Err(rejected(ErrorCode::MethodNotEnabled, "This sign-in method is not enabled").into())
            }
            _ => Err(invalid("Method must be email or totp").into()),
        }
    }

    /// Makes a sign-in code and queues its e-mail (in one transaction).
    async fn send_email_code(&self, user: &User, now: DateTime<Utc>) -> AccountResult<()> {
        if !self.mailer.is_configured() {
            tracing::error!(user = user.id, "sign-in code not sent: e-mail is not configured");
            return Err(AccountError::Unavailable(Problem::new(
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
    pub async fn confirm_password(&self, client: &str, user: &User, password: String) -> AccountResult<()> {
        if password.is_empty() {
            return Err(rejected(ErrorCode::PasswordRequired, "Please enter your password").into());
        }
        let account = account_key(&user.email);
        let stored = Some(user.password_hash.clone());
        if self
            .budgeted_password_check(&account, client, password, stored)
            .await?
        {
            Ok(())
        } else {
            Err(rejected(ErrorCode::PasswordIncorrect, "Password is incorrect").into())
        }
    }

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
                users::update_profile(conn, id, &first, &last, &clock::stamp(now))?;
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
    ) -> AccountResult<()> {
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

    /// Marks the address of a verification link's account as verified; false for a link
    /// that is unknown or expired.
    /// Unknown links count against the client address (counted before the look-up, so
    /// parallel guesses cannot slip past the limit; a good link is forgiven).
    pub async fn verify_email(&self, client: &str, token: &str, now: DateTime<Utc>) -> AccountResult<bool> {
        self.limits.verify_failures_per_client.hit(client)?;
        let hash = codes::hash_link_token(token.trim());
        let verified = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let Some(user_id) = users::verification_user(&tx, &hash, &clock::stamp(now))? else {
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
    ) -> AccountResult<()> {
        let email = validate_email(email).map_err(ServiceError::Invalid)?;
        if !self.mailer.is_configured() {
            return Err(rejected(
                ErrorCode::EmailNotConfigured,
                "Email is not configured on this server",
            )
            .into());
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

    /// Mails a one-time link to choose a new password when the address has an account and
    /// this server sends e-mail. The outcome is the same whether or not the address has an
    /// account (and the e-mail goes out in the background): it reveals nothing. Answers
    /// whether this server can send e-mail at all, which says nothing about the address.
    pub async fn forgot_password(
        &self,
        client: &str,
        email: &str,
        now: DateTime<Utc>,
    ) -> AccountResult<bool> {
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
    ) -> AccountResult<()> {
        self.limits.reset_failures_per_client.hit(client)?;
        let invalid_link = || {
            AccountError::Service(rejected(
                ErrorCode::ResetLinkInvalid,
                "This link is invalid or has expired: ask for a new one",
            ))
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
                let Some(id) = users::password_reset_user(conn, &lookup, &clock::stamp(now))? else {
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
            .map_err(AccountError::Internal)?;
        let reset = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                // Used up here, inside the change: two tries with one link cannot both succeed.
                let Some(user_id) = users::consume_password_reset(&tx, &hash, &clock::stamp(now))? else {
                    return Ok(false);
                };
                users::set_password(&tx, user_id, &password_hash, &clock::stamp(now))?;
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

    /// Changes the password (the current one is required) and signs out every other session:
    /// the answer carries the new token for this one.
    pub async fn change_password(
        &self,
        client: &str,
        user: User,
        current: String,
        new: String,
        now: DateTime<Utc>,
    ) -> AccountResult<SignedIn> {
        let account = account_key(&user.email);
        let stored = Some(user.password_hash.clone());
        if !self
            .budgeted_password_check(&account, client, current, stored)
            .await?
        {
            return Err(rejected(ErrorCode::PasswordIncorrect, "Current password is incorrect").into());
        }
        validate_new_password(&new).map_err(ServiceError::Invalid)?;
        let hash = hash_password(new).await.map_err(AccountError::Internal)?;
        let id = user.id;
        let updated = self
            .db
            .write(move |conn| {
                users::set_password(conn, id, &hash, &clock::stamp(now))?;
                users::find_by_id(conn, id)?
                    .ok_or_else(|| not_found(ErrorCode::UserNotFound, "User not found"))
            })
            .await?;
        self.signed_in(&updated, now)
    }

    pub async fn two_factor_status(&self, user_id: i64) -> ServiceResult<TwoFactorStatus> {
        let (tf, remaining) = self
            .db
            .read(move |conn| {
                Ok::<_, ServiceError>((
                    users::two_factor(conn, user_id)?,
                    users::unused_backup_codes(conn, user_id)?,
                ))
            })
            .await?;
        Ok(TwoFactorStatus {
            methods: methods_of(&tf),
            preference: preference_of(&tf),
            backup_codes_remaining: remaining,
            email_available: self.mailer.is_configured(),
        })
    }

    /// Turns a method on after the password: e-mail codes at once, the authenticator app
    /// with its first step (the secret to scan).
    pub async fn setup(
        &self,
        client: &str,
        user: &User,
        method: &str,
        password: String,
        now: DateTime<Utc>,
    ) -> AccountResult<SetupStep> {
        let method = TwoFactorMethod::parse(method)?;
        self.confirm_password(client, user, password).await?;
        Ok(match method {
            TwoFactorMethod::Email => SetupStep::EmailEnabled(self.enable_email(user, now).await?),
            TwoFactorMethod::Totp => SetupStep::TotpStarted(self.start_totp(user).await?),
        })
    }

    /// Applies a change to the user's two-factor settings in one transaction, makes a fresh
    /// set of backup codes when asked, and signs out other sessions. Returns the new backup
    /// codes (if any), the fresh token and the settings.
    async fn change_two_factor<F>(
        &self,
        user: &User,
        new_codes: bool,
        now: DateTime<Utc>,
        change: F,
    ) -> AccountResult<(Option<Vec<String>>, String, TwoFactor)>
    where
        F: FnOnce(&rusqlite::Connection, &mut TwoFactor) -> ServiceResult<()> + Send + 'static,
    {
        let key = self.key.to_vec();
        let user_id = user.id;
        let (codes, version, tf) = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let mut tf = users::two_factor(&tx, user_id)?;
                change(&tx, &mut tf)?;
                if tf.preference() != tf.preferred_method.as_deref() {
                    tf.preferred_method = tf.preference().map(str::to_owned);
                }
                users::save_two_factor(&tx, user_id, &tf)?;
                let codes = if !tf.enabled() {
                    users::replace_backup_codes(&tx, user_id, &[])?;
                    None
                } else if new_codes {
                    Some(new_backup_codes(&tx, &key, user_id)?)
                } else {
                    None
                };
                let version = users::bump_token_version(&tx, user_id)?;
                tx.commit()?;
                Ok::<_, ServiceError>((codes, version, tf))
            })
            .await?;
        let token = self.token(user_id, version, now)?;
        Ok((codes, token, tf))
    }

    /// Turns e-mail codes on (the password was confirmed).
    pub async fn enable_email(&self, user: &User, now: DateTime<Utc>) -> AccountResult<Enabled> {
        if !self.mailer.is_configured() {
            return Err(rejected(
                ErrorCode::EmailNotConfigured,
                "Email is not configured on this server",
            )
            .into());
        }
        let (codes, token, tf) = self
            .change_two_factor(user, true, now, |_, tf| {
                if tf.email_enabled {
                    return Err(conflict(
                        ErrorCode::MethodAlreadyEnabled,
                        "Email two-factor authentication is already enabled",
                    ));
                }
                tf.email_enabled = true;
                Ok(())
            })
            .await?;
        Ok(Enabled {
            backup_codes: codes,
            token,
            methods: methods_of(&tf),
        })
    }

    /// The authenticator app's first step (the password was confirmed): a new secret,
    /// pending until a code from it is entered.
    pub async fn start_totp(&self, user: &User) -> AccountResult<TotpSetup> {
        let user_id = user.id;
        let secret = totp::new_secret();
        let qr = totp::qr_data_url(&secret, &user.email)
            .ok_or_else(|| AccountError::Internal("cannot draw the TOTP QR code".into()))?;
        let pending = secret.clone();
        self.db
            .write(move |conn| {
                let mut tf = users::two_factor(conn, user_id)?;
                if tf.totp_secret.is_some() {
                    return Err(conflict(
                        ErrorCode::MethodAlreadyEnabled,
                        "Authenticator app two-factor authentication is already enabled",
                    ));
                }
                tf.totp_pending_secret = Some(pending);
                users::save_two_factor(conn, user_id, &tf)?;
                Ok(())
            })
            .await?;
        Ok(TotpSetup {
            secret,
            qr_code_url: qr,
        })
    }

    /// Turns the authenticator app on with a first code from it.
    pub async fn complete_totp(&self, user: &User, otp: &str, now: DateTime<Utc>) -> AccountResult<Enabled> {
        // Counted before the check, forgiven unless the code was wrong.
        let account = format!("user:{}", user.id);
        self.limits.session_code_checks.hit(&account)?;
        let otp = otp.trim().to_owned();
        let unix = u64::try_from(now.timestamp()).unwrap_or_default();
        let result = self
            .change_two_factor(user, true, now, move |_, tf| {
                let pending = tf.totp_pending_secret.clone().ok_or_else(|| {
                    rejected(
                        ErrorCode::TotpSetupNotStarted,
                        "Start the authenticator app setup first",
                    )
                })?;
                let step = totp::verify(&pending, &otp, unix, 0)
                    .ok_or_else(|| rejected(ErrorCode::InvalidCode, "Invalid verification code"))?;
                tf.totp_secret = Some(pending);
                tf.totp_pending_secret = None;
                tf.totp_last_step = step;
                Ok(())
            })
            .await;
        if !is_problem(&result, ErrorCode::InvalidCode) {
            self.limits.session_code_checks.forgive(&account);
        }
        let (codes, token, tf) = result?;
        Ok(Enabled {
            backup_codes: codes,
            token,
            methods: methods_of(&tf),
        })
    }

    /// Turns off one method (`Some`) or all of them (`None`); a valid backup code is required
    /// either way, and is used up.
    pub async fn disable(
        &self,
        user: &User,
        method: Option<&str>,
        backup_code: &str,
        now: DateTime<Utc>,
    ) -> AccountResult<Disabled> {
        let backup_code = codes::normalize_backup_code(backup_code.trim());
        if backup_code.is_empty() {
            return Err(rejected(ErrorCode::BackupCodeRequired, "Please enter a backup code").into());
        }
        let method = method.map(TwoFactorMethod::parse).transpose()?;
        let account = format!("user:{}", user.id);
        self.limits.session_code_checks.hit(&account)?;
        let key = self.key.to_vec();
        let user_id = user.id;
        let result = self
            .change_two_factor(user, false, now, move |conn, tf| {
                match method {
                    Some(m) if !tf.methods().contains(&m.as_str()) => {
                        return Err(rejected(
                            ErrorCode::MethodNotEnabled,
                            "This method is not enabled",
                        ));
                    }
                    None if !tf.enabled() => {
                        return Err(rejected(
                            ErrorCode::TwoFactorNotEnabled,
                            "Two-factor authentication is not enabled",
                        ));
                    }
                    _ => {}
                }
                if !use_backup_code(conn, &key, user_id, &backup_code, now)? {
                    return Err(rejected(ErrorCode::InvalidBackupCode, "Invalid backup code"));
                }
                if matches!(method, None | Some(TwoFactorMethod::Email)) {
                    tf.email_enabled = false;
                }
                if matches!(method, None | Some(TwoFactorMethod::Totp)) {
                    tf.totp_secret = None;
                    tf.totp_pending_secret = None;
                }
                Ok(())
            })
            .await;
        if !is_problem(&result, ErrorCode::InvalidBackupCode) {
            self.limits.session_code_checks.forgive(&account);
        }
        let (_, token, tf) = result?;
        Ok(Disabled {
            token,
            methods: methods_of(&tf),
            preference: preference_of(&tf),
        })
    }

    /// Turns everything off: the password and a backup code are both required.
    pub async fn disable_all(
        &self,
        client: &str,
        user: &User,
        method: Option<&str>,
        backup_code: &str,
        password: String,
        now: DateTime<Utc>,
    ) -> AccountResult<Disabled> {
        if backup_code.trim().is_empty() {
            return Err(rejected(ErrorCode::BackupCodeRequired, "Please enter a backup code").into());
        }
        self.confirm_password(client, user, password).await?;
        self.disable(user, method, backup_code, now).await
    }

    /// The method offered first at sign-in.
    pub async fn set_preference(&self, user_id: i64, preference: String) -> ServiceResult<Preference> {
        let tf = self
            .db
            .write(move |conn| {
                let mut tf = users::two_factor(conn, user_id)?;
                if !tf.methods().contains(&preference.as_str()) {
                    return Err(rejected(
                        ErrorCode::MethodNotEnabled,
                        "That method is not enabled",
                    ));
                }
                tf.preferred_method = Some(preference);
                users::save_two_factor(conn, user_id, &tf)?;
                Ok(tf)
            })
            .await?;
        Ok(Preference {
            preference: preference_of(&tf),
            methods: methods_of(&tf),
        })
    }

    /// A fresh set of backup codes (the password was asked); the old ones stop working.
    pub async fn regenerate_backup_codes(
        &self,
        client: &str,
        user: &User,
        password: String,
    ) -> AccountResult<BackupCodes> {
        self.confirm_password(client, user, password).await?;
        let key = self.key.to_vec();
        let user_id = user.id;
        let codes = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                if !users::two_factor(&tx, user_id)?.enabled() {
                    return Err(rejected(
                        ErrorCode::TwoFactorNotEnabled,
                        "Enable two-factor authentication first",
                    ));
                }
                let codes = new_backup_codes(&tx, &key, user_id)?;
                tx.commit()?;
                Ok(codes)
            })
            .await?;
        Ok(BackupCodes { backup_codes: codes })
    }
}

/// Whether a result is the refusal with this code (a wrong code counts as a failed try).
fn is_problem<T>(result: &AccountResult<T>, code: ErrorCode) -> bool {
    matches!(
        result,
        Err(AccountError::Service(ServiceError::Invalid(p))) if p.code == code
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_validation() {
        assert_eq!(
            validate_email("  Someone@Example.org "),
            Ok("Someone@Example.org".into())
        );
        for bad in ["", "plain", "a@b", "a@@b.c", "a b@c.d", "@c.d", "a@.c", "a@c."] {
            assert!(validate_email(bad).is_err(), "{bad}");
        }
        assert_eq!(
            validate_email("").map_err(|p| p.code),
            Err(ErrorCode::EmailRequired)
        );
        assert_eq!(
            validate_email("plain").map_err(|p| p.code),
            Err(ErrorCode::EmailInvalid)
        );
    }

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

    #[test]
    fn password_rules() {
        assert_eq!(
            validate_new_password("12345"),
            Err(Problem::new(
                ErrorCode::PasswordTooShort,
                "Password must be at least 6 characters long"
            ))
        );
        assert_eq!(validate_new_password("123456"), Ok(()));
        assert_eq!(validate_new_password("ÄÖÜäöü"), Ok(()), "counted in characters");
        assert!(
            validate_new_password(&"é".repeat(600)).is_err(),
            "1200 bytes could never sign in"
        );
    }
}
