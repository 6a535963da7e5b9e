//! Accounts and their credentials: users, e-mail verification links, two-factor settings,
//! backup codes and e-mail sign-in codes.

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::stamp_at;
use crate::db::Stamp;

#[derive(Debug, Clone)]
pub struct User {
    pub id: i64,
    pub email: String,
    pub password_hash: String,
    pub first_name: String,
    pub last_name: String,
    pub email_verified: bool,
    pub token_version: i64,
    pub created_at: Stamp,
}

const USER_COLUMNS: &str =
    "id, email, password_hash, first_name, last_name, email_verified, token_version, created_at";

fn user_from_row(row: &Row) -> rusqlite::Result<User> {
    let id = row.get(0)?;
    Ok(User {
        id,
        email: row.get(1)?,
        password_hash: row.get(2)?,
        first_name: row.get(3)?,
        last_name: row.get(4)?,
        email_verified: row.get(5)?,
        token_version: row.get(6)?,
        created_at: stamp_at(row, 7, "users", id)?,
    })
}

pub fn find_by_email(conn: &Connection, email: &str) -> rusqlite::Result<Option<User>> {
    conn.query_row(
        &format!("SELECT {USER_COLUMNS} FROM users WHERE email = ?1"),
        [email],
        user_from_row,
    )
    .optional()
}

/// The account a session token names: every signed-in request asks, so the statement stays
/// prepared.
pub fn find_by_id(conn: &Connection, id: i64) -> rusqlite::Result<Option<User>> {
    conn.prepare_cached(&format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?1"))?
        .query_row([id], user_from_row)
        .optional()
}

/// The accounts that hold any data: a medication or a history entry.
pub fn with_data(conn: &Connection) -> rusqlite::Result<Vec<i64>> {
    conn.prepare(
        "SELECT id FROM users u WHERE EXISTS (SELECT 1 FROM medications m WHERE m.user_id = u.id)
            OR EXISTS (SELECT 1 FROM dose_history h WHERE h.user_id = u.id) ORDER BY id",
    )?
    .query_map([], |row| row.get(0))?
    .collect()
}

/// Whether an account with this id exists.
pub fn exists(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM users WHERE id = ?1)")?
        .query_row([id], |row| row.get(0))
}

pub fn count(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("SELECT count(*) FROM users", [], |row| row.get(0))
}

/// Inserts a user; `None` when the address is taken.
pub fn insert(
    conn: &Connection,
    email: &str,
    password_hash: &str,
    verified: bool,
    now: Stamp,
) -> rusqlite::Result<Option<User>> {
    let inserted = conn.execute(
        "INSERT INTO users (email, password_hash, email_verified, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT (email) DO NOTHING",
        params![email, password_hash, verified, now],
    )?;
    if inserted == 0 {
        return Ok(None);
    }
    find_by_id(conn, conn.last_insert_rowid())
}

pub fn update_profile(
    conn: &Connection,
    id: i64,
    first: &str,
    last: &str,
    now: Stamp,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE users SET first_name = ?2, last_name = ?3, updated_at = ?4 WHERE id = ?1",
        params![id, first, last, now],
    )?;
    Ok(())
}

/// Sets a new password and kills every session (token version bump) and every
/// forgotten-password link still out: a person who changes a password they fear is known
/// leaves no link behind that could change it again.
pub fn set_password(conn: &Connection, id: i64, password_hash: &str, now: Stamp) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE users SET password_hash = ?2, token_version = token_version + 1, updated_at = ?3 WHERE id = ?1",
        params![id, password_hash, now],
    )?;
    conn.execute("DELETE FROM password_resets WHERE user_id = ?1", [id])?;
    Ok(())
}

/// Kills every session of the user; returns the new version.
pub fn bump_token_version(conn: &Connection, id: i64) -> rusqlite::Result<i64> {
    conn.query_row(
        "UPDATE users SET token_version = token_version + 1 WHERE id = ?1 RETURNING token_version",
        [id],
        |row| row.get(0),
    )
}

/// Whether the user's address is verified (false for no such user).
pub fn email_verified(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .prepare_cached("SELECT email_verified FROM users WHERE id = ?1")?
        .query_row([id], |row| row.get(0))
        .optional()?
        .unwrap_or(false))
}

pub fn mark_verified(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    conn.execute("UPDATE users SET email_verified = 1 WHERE id = ?1", [id])?;
    conn.execute("DELETE FROM email_verifications WHERE user_id = ?1", [id])?;
    Ok(())
}

/// Removes the user; every table of theirs cascades.
pub fn delete(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM users WHERE id = ?1", [id])?;
    Ok(())
}

/// Stores a verification link, replacing the user's earlier ones.
pub fn replace_verification(
    conn: &Connection,
    user_id: i64,
    token_hash: &str,
    expires_at: &str,
) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM email_verifications WHERE user_id = ?1", [user_id])?;
    conn.execute(
        "INSERT INTO email_verifications (token_hash, user_id, expires_at) VALUES (?1, ?2, ?3)",
        params![token_hash, user_id, expires_at],
    )?;
    Ok(())
}

/// The user a valid, unexpired verification link belongs to.
pub fn verification_user(conn: &Connection, token_hash: &str, now: Stamp) -> rusqlite::Result<Option<i64>> {
    conn.query_row(
        "SELECT user_id FROM email_verifications WHERE token_hash = ?1 AND expires_at > ?2",
        params![token_hash, now],
        |row| row.get(0),
    )
    .optional()
}

/// Stores a forgotten-password link, replacing the user's earlier ones.
pub fn replace_password_reset(
    conn: &Connection,
    user_id: i64,
    token_hash: &str,
    expires_at: &str,
) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM password_resets WHERE user_id = ?1", [user_id])?;
    conn.execute(
        "INSERT INTO password_resets (token_hash, user_id, expires_at) VALUES (?1, ?2, ?3)",
        params![token_hash, user_id, expires_at],
    )?;
    Ok(())
}

/// The user a valid, unexpired forgotten-password link belongs to.
pub fn password_reset_user(conn: &Connection, token_hash: &str, now: Stamp) -> rusqlite::Result<Option<i64>> {
    conn.query_row(
        "SELECT user_id FROM password_resets WHERE token_hash = ?1 AND expires_at > ?2",
        params![token_hash, now],
        |row| row.get(0),
    )
    .optional()
}

/// Uses up a valid forgotten-password link (and any other of its user's): the user it
/// belonged to, or None when it was unknown, expired or already used.
pub fn consume_password_reset(
    conn: &Connection,
    token_hash: &str,
    now: Stamp,
) -> rusqlite::Result<Option<i64>> {
    let Some(user_id) = password_reset_user(conn, token_hash, now)? else {
        return Ok(None);
    };
    conn.execute("DELETE FROM password_resets WHERE user_id = ?1", [user_id])?;
    Ok(Some(user_id))
}

#[derive(Debug, Clone, Default)]
pub struct TwoFactor {
    pub email_enabled: bool,
    pub totp_secret: Option<String>,
    pub totp_pending_secret: Option<String>,
    pub totp_last_step: i64,
    pub preferred_method: Option<String>,
}

impl TwoFactor {
    /// Enabled methods, in a stable order.
    pub fn methods(&self) -> Vec<&'static str> {
        let mut methods = Vec::new();
        if self.email_enabled {
            methods.push("email");
        }
        if self.totp_secret.is_some() {
            methods.push("totp");
        }
        methods
    }

    pub fn enabled(&self) -> bool {
        !self.methods().is_empty()
    }

    /// The preferred method if it is still enabled, else the first enabled one.
    pub fn preference(&self) -> Option<&'static str> {
        let methods = self.methods();
        methods
            .iter()
            .copied()
            .find(|m| self.preferred_method.as_deref() == Some(*m))
            .or(methods.first().copied())
    }
}

pub fn two_factor(conn: &Connection, user_id: i64) -> rusqlite::Result<TwoFactor> {
    conn.query_row(
        "SELECT email_enabled, totp_secret, totp_pending_secret, totp_last_step, preferred_method
         FROM two_factor WHERE user_id = ?1",
        [user_id],
        |row| {
            Ok(TwoFactor {
                email_enabled: row.get(0)?,
                totp_secret: row.get(1)?,
                totp_pending_secret: row.get(2)?,
                totp_last_step: row.get(3)?,
                preferred_method: row.get(4)?,
            })
        },
    )
    .optional()
    .map(Option::unwrap_or_default)
}

pub fn save_two_factor(conn: &Connection, user_id: i64, tf: &TwoFactor) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO two_factor (user_id, email_enabled, totp_secret, totp_pending_secret, totp_last_step, preferred_method)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (user_id) DO UPDATE SET email_enabled = excluded.email_enabled,
           totp_secret = excluded.totp_secret, totp_pending_secret = excluded.totp_pending_secret,
           totp_last_step = excluded.totp_last_step, preferred_method = excluded.preferred_method",
        params![
            user_id,
            tf.email_enabled,
            tf.totp_secret,
            tf.totp_pending_secret,
            tf.totp_last_step,
            tf.preferred_method
        ],
    )?;
    Ok(())
}

/// Records the TOTP step just accepted, unless a concurrent sign-in took it first.
pub fn claim_totp_step(conn: &Connection, user_id: i64, step: i64) -> rusqlite::Result<bool> {
    let changed = conn.execute(
        "UPDATE two_factor SET totp_last_step = ?2 WHERE user_id = ?1 AND totp_last_step < ?2",
        params![user_id, step],
    )?;
    Ok(changed == 1)
}

pub fn replace_backup_codes(conn: &Connection, user_id: i64, hashes: &[String]) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM backup_codes WHERE user_id = ?1", [user_id])?;
    let mut insert = conn.prepare("INSERT INTO backup_codes (user_id, code_hash) VALUES (?1, ?2)")?;
    for hash in hashes {
        insert.execute(params![user_id, hash])?;
    }
    Ok(())
}

/// Marks an unused backup code used; false when there is no such unused code.
pub fn use_backup_code(conn: &Connection, user_id: i64, hash: &str, now: Stamp) -> rusqlite::Result<bool> {
    let changed = conn.execute(
        "UPDATE backup_codes SET used_at = ?3 WHERE user_id = ?1 AND code_hash = ?2 AND used_at IS NULL",
        params![user_id, hash, now],
    )?;
    Ok(changed == 1)
}

pub fn unused_backup_codes(conn: &Connection, user_id: i64) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT count(*) FROM backup_codes WHERE user_id = ?1 AND used_at IS NULL",
        [user_id],
        |row| row.get(0),
    )
}

pub struct EmailCode {
    pub code_hash: String,
    pub expires_at: Stamp,
    pub attempts: i64,
}

pub fn replace_email_code(
    conn: &Connection,
    user_id: i64,
    hash: &str,
    expires_at: &str,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO email_codes (user_id, code_hash, expires_at, attempts) VALUES (?1, ?2, ?3, 0)
         ON CONFLICT (user_id) DO UPDATE SET code_hash = excluded.code_hash,
           expires_at = excluded.expires_at, attempts = 0",
        params![user_id, hash, expires_at],
    )?;
    Ok(())
}

pub fn email_code(conn: &Connection, user_id: i64) -> rusqlite::Result<Option<EmailCode>> {
    conn.query_row(
        "SELECT code_hash, expires_at, attempts FROM email_codes WHERE user_id = ?1",
        [user_id],
        |row| {
            Ok(EmailCode {
                code_hash: row.get(0)?,
                expires_at: stamp_at(row, 1, "email_codes", user_id)?,
                attempts: row.get(2)?,
            })
        },
    )
    .optional()
}

pub fn count_email_code_failure(conn: &Connection, user_id: i64) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE email_codes SET attempts = attempts + 1 WHERE user_id = ?1",
        [user_id],
    )?;
    Ok(())
}

pub fn delete_email_code(conn: &Connection, user_id: i64) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM email_codes WHERE user_id = ?1", [user_id])?;
    Ok(())
}
