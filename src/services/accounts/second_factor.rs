//! The second factor's codes: checking a sign-in code, making e-mail and backup codes.

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use crate::clock;
use crate::db::Stamp;
use crate::security::codes::{self, BACKUP_CODE_COUNT, BACKUP_CODE_LENGTH};
use crate::security::totp;
use crate::store::users::{self, TwoFactor};

pub const EMAIL_CODE_MINUTES: i64 = 10;
pub const EMAIL_CODE_MAX_TRIES: i64 = 5;

/// Purposes that key the code hashes, so a code of one kind never matches another.
const EMAIL_CODE: &str = "email-code";
const BACKUP_CODE: &str = "backup-code";

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
        if tf.email_enabled && check_email_code(conn, key, user_id, code, now)? {
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
    now: DateTime<Utc>,
) -> rusqlite::Result<bool> {
    let Some(pending) = users::email_code(conn, user_id)? else {
        return Ok(false);
    };
    if pending.expires_at.instant() <= now || pending.attempts >= EMAIL_CODE_MAX_TRIES {
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
        Stamp::from(now),
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
