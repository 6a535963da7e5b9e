//! Account rules shared by the HTTP handlers and the command line: validation, second-factor
//! checks, backup codes, and the e-mails that carry links and codes.

use std::time::Duration;

use rusqlite::Connection;

use crate::clock;
use crate::mailer::{Email, button, escape_html};
use crate::security::codes::{self, BACKUP_CODE_COUNT, BACKUP_CODE_LENGTH};
use crate::security::rate_limit::{Limited, RateLimiter};
use crate::security::{password, totp};
use crate::store::users::{self, TwoFactor};

pub const EMAIL_CODE_MINUTES: i64 = 10;
pub const EMAIL_CODE_MAX_TRIES: i64 = 5;
pub const VERIFICATION_HOURS: i64 = 24;
pub const MAX_EMAIL_LENGTH: usize = 254;
pub const MAX_NAME_LENGTH: usize = 100;

/// Purposes that key the code hashes, so a code of one kind never matches another.
const EMAIL_CODE: &str = "email-code";
const BACKUP_CODE: &str = "backup-code";

/// Failed checks counted per account and per client address.
pub struct FailureLimits {
    pub per_account: RateLimiter,
    pub per_client: RateLimiter,
}

impl FailureLimits {
    fn new(per_account: usize, per_client: usize, window: Duration) -> FailureLimits {
        FailureLimits {
            per_account: RateLimiter::new(per_account, window),
            per_client: RateLimiter::new(per_client, window),
        }
    }

    /// Counts a try before it runs (so parallel tries cannot slip past the limit); a try
    /// that succeeds is then `forgive`n.
    pub fn attempt(&self, account: &str, client: &str) -> Result<(), Limited> {
        self.per_account.hit(account)?;
        self.per_client
            .hit(client)
            .inspect_err(|_| self.per_account.forgive(account))
    }

    pub fn forgive(&self, account: &str, client: &str) {
        self.per_account.forgive(account);
        self.per_client.forgive(client);
    }

    /// Counts a failure found after the fact (a wrong code after the right password).
    pub fn record(&self, account: &str, client: &str) {
        self.per_account.record(account);
        self.per_client.record(client);
    }
}

/// The rate limits of the sign-in and code paths (DESIGN §5).
pub struct AuthLimits {
    /// Failed password or code checks when signing in (and changing the password).
    pub sign_in: FailureLimits,
    /// Wrong passwords at the two-factor requirement check. Kept apart from `sign_in`: the
    /// web app checks the requirements before every sign-in, and one typo must count once.
    pub requirement_checks: FailureLimits,
    /// E-mail codes sent per account and per client address.
    pub codes_per_account: RateLimiter,
    pub codes_per_client: RateLimiter,
    /// Verification e-mails per address and per client address.
    pub verification_per_account: RateLimiter,
    pub verification_per_client: RateLimiter,
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
            sign_in: FailureLimits::new(10, 30, quarter_hour),
            requirement_checks: FailureLimits::new(10, 30, quarter_hour),
            codes_per_account: RateLimiter::new(5, quarter_hour),
            codes_per_client: RateLimiter::new(20, quarter_hour),
            verification_per_account: RateLimiter::new(3, hour),
            verification_per_client: RateLimiter::new(10, hour),
            registrations_per_client: RateLimiter::new(registrations_per_hour as usize, hour),
            take_links_per_client: RateLimiter::new(60, quarter_hour),
        }
    }
}

/// A trimmed e-mail address that looks deliverable, or the message to show.
pub fn validate_email(input: &str) -> Result<String, &'static str> {
    let email = input.trim();
    if email.is_empty() {
        return Err("Email is required");
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
        Err("Please enter a valid email address")
    }
}

pub fn validate_new_password(input: &str) -> Result<(), &'static str> {
    // The minimum counts characters (what people see); the maximum counts bytes, the same
    // measure sign-in applies, so every password that can be set can be used.
    if input.chars().count() < password::MIN_LENGTH {
        Err("Password must be at least 6 characters long")
    } else if input.len() > password::MAX_LENGTH {
        Err("Password must be at most 1024 bytes long")
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
) -> rusqlite::Result<Option<SecondFactor>> {
    let code = code.trim();
    let now = clock::now();
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
    if backup.len() == BACKUP_CODE_LENGTH && use_backup_code(conn, key, user_id, &backup)? {
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
pub fn use_backup_code(conn: &Connection, key: &[u8], user_id: i64, code: &str) -> rusqlite::Result<bool> {
    users::use_backup_code(
        conn,
        user_id,
        &codes::hash_code(key, BACKUP_CODE, code),
        &clock::now_stamp(),
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
pub fn new_email_code(conn: &Connection, key: &[u8], user_id: i64) -> rusqlite::Result<String> {
    let code = codes::six_digit_code();
    let expires = clock::stamp(clock::now() + chrono::Duration::minutes(EMAIL_CODE_MINUTES));
    users::replace_email_code(conn, user_id, &codes::hash_code(key, EMAIL_CODE, &code), &expires)?;
    Ok(code)
}

/// Stores a new verification link for the user and returns its token.
pub fn new_verification(conn: &Connection, user_id: i64) -> rusqlite::Result<String> {
    let token = codes::link_token();
    let expires = clock::stamp(clock::now() + chrono::Duration::hours(VERIFICATION_HOURS));
    users::replace_verification(conn, user_id, &codes::hash_link_token(&token), &expires)?;
    Ok(token)
}

pub fn verification_email(link_base: &str, token: &str) -> Email {
    let link = format!("{link_base}/verify-email/{token}");
    Email {
        subject: "Confirm your e-mail address for Pillbox".into(),
        text: format!(
            "Welcome to Pillbox.\n\nConfirm your e-mail address by opening this link within {VERIFICATION_HOURS} hours:\n\n{link}\n\n\
             If you did not create a Pillbox account, ignore this message."
        ),
        html: format!(
            "<p>Welcome to Pillbox.</p><p>Confirm your e-mail address within {VERIFICATION_HOURS} hours:</p>{}\
             <p style=\"color:#6b7280\">Or open this link: {}</p>\
             <p style=\"color:#6b7280\">If you did not create a Pillbox account, ignore this message.</p>",
            button(&link, "Confirm e-mail address"),
            escape_html(&link)
        ),
    }
}

pub fn code_email(code: &str) -> Email {
    Email {
        subject: "Your Pillbox sign-in code".into(),
        text: format!(
            "Your Pillbox sign-in code is {code}\n\nIt is valid for {EMAIL_CODE_MINUTES} minutes. \
             If you did not try to sign in, change your password."
        ),
        html: format!(
            "<p>Your Pillbox sign-in code is</p><p style=\"font-size:28px;letter-spacing:6px;font-weight:700\">{}</p>\
             <p>It is valid for {EMAIL_CODE_MINUTES} minutes. If you did not try to sign in, change your password.</p>",
            escape_html(code)
        ),
    }
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
        assert_eq!(validate_email(""), Err("Email is required"));
    }

    #[test]
    fn password_rules() {
        assert_eq!(
            validate_new_password("12345"),
            Err("Password must be at least 6 characters long")
        );
        assert_eq!(validate_new_password("123456"), Ok(()));
        assert_eq!(validate_new_password("ÄÖÜäöü"), Ok(()), "counted in characters");
        assert!(
            validate_new_password(&"é".repeat(600)).is_err(),
            "1200 bytes could never sign in"
        );
    }
}
