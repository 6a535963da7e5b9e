//! API tokens: each known by the SHA-256 of its secret, with the people it is limited to, and
//! what a token reaches of its account as a carer of that role would (`Reach`, as
//! `store::people` answers it for a signed-in user).

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::people::Reach;
use super::{stamp_at, stamp_or_null_at};
use crate::db::Stamp;

#[derive(Debug, Clone)]
pub struct ApiToken {
    pub id: i64,
    pub user_id: i64,
    pub name: String,
    /// `read`, `record` or `manage`.
    pub scope: String,
    /// None: every person of the account; else these people's ids.
    pub people: Option<Vec<i64>>,
    pub created_at: Stamp,
    pub last_used_at: Option<Stamp>,
    pub expires_at: Option<Stamp>,
}

const SELECT: &str = "SELECT t.id, t.user_id, t.name, t.scope, t.all_people,
        (SELECT group_concat(tp.person_id) FROM api_token_people tp WHERE tp.token_id = t.id),
        t.created_at, t.last_used_at, t.expires_at
     FROM api_tokens t";

fn from_row(row: &Row) -> rusqlite::Result<ApiToken> {
    let id: i64 = row.get(0)?;
    let all_people: bool = row.get(4)?;
    let listed: Option<String> = row.get(5)?;
    let people = if all_people {
        None
    } else {
        let mut ids: Vec<i64> = listed
            .unwrap_or_default()
            .split(',')
            .filter_map(|id| id.parse().ok())
            .collect();
        ids.sort_unstable();
        Some(ids)
    };
    Ok(ApiToken {
        id,
        user_id: row.get(1)?,
        name: row.get(2)?,
        scope: row.get(3)?,
        people,
        created_at: stamp_at(row, 6, "api_tokens", id)?,
        last_used_at: stamp_or_null_at(row, 7, "api_tokens", id)?,
        expires_at: stamp_or_null_at(row, 8, "api_tokens", id)?,
    })
}

/// An account's tokens, oldest first.
pub fn list(conn: &Connection, user_id: i64) -> rusqlite::Result<Vec<ApiToken>> {
    conn.prepare_cached(&format!("{SELECT} WHERE t.user_id = ?1 ORDER BY t.id"))?
        .query_map([user_id], from_row)?
        .collect()
}

pub fn count(conn: &Connection, user_id: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT count(*) FROM api_tokens WHERE user_id = ?1")?
        .query_row([user_id], |row| row.get(0))
}

/// The token whose secret hashes to `hash`.
pub fn by_hash(conn: &Connection, hash: &str) -> rusqlite::Result<Option<ApiToken>> {
    conn.prepare_cached(&format!("{SELECT} WHERE t.token_hash = ?1"))?
        .query_row([hash], from_row)
        .optional()
}

/// A new token of `user_id`, limited to `people` when given; answers its id.
#[allow(clippy::too_many_arguments)]
pub fn insert(
    conn: &Connection,
    user_id: i64,
    name: &str,
    scope: &str,
    hash: &str,
    people: Option<&[i64]>,
    now: Stamp,
    expires_at: Option<Stamp>,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO api_tokens (user_id, name, scope, token_hash, all_people, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        user_id,
        name,
        scope,
        hash,
        people.is_none(),
        now,
        expires_at
    ])?;
    let id = conn.last_insert_rowid();
    let mut add =
        conn.prepare_cached("INSERT OR IGNORE INTO api_token_people (token_id, person_id) VALUES (?1, ?2)")?;
    for person in people.unwrap_or_default() {
        add.execute([id, *person])?;
    }
    Ok(id)
}

/// Deletes one of the account's tokens; false when it has none by that id.
pub fn delete(conn: &Connection, user_id: i64, id: i64) -> rusqlite::Result<bool> {
    Ok(conn.execute(
        "DELETE FROM api_tokens WHERE id = ?1 AND user_id = ?2",
        [id, user_id],
    )? == 1)
}

/// Notes that the token was used at `now`.
pub fn touch(conn: &Connection, id: i64, now: Stamp) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE api_tokens SET last_used_at = ?2 WHERE id = ?1")?
        .execute(params![id, now])?;
    Ok(())
}

/// The people the token reaches, as `(owner, person, role)`: its account's own people (all,
/// or those it names), with the role of its scope (`read` is a carer's `view`).
const REACH: &str = "SELECT p.owner_id, p.id, CASE t.scope WHEN 'read' THEN 'view' ELSE t.scope END
     FROM api_tokens t JOIN people p ON p.owner_id = t.user_id
     WHERE t.id = ?1
       AND (t.all_people = 1
            OR EXISTS (SELECT 1 FROM api_token_people tp WHERE tp.token_id = t.id AND tp.person_id = p.id))";

fn reach_from(row: &Row) -> rusqlite::Result<Reach> {
    Ok(Reach {
        owner_id: row.get(0)?,
        person_id: row.get(1)?,
        role: row.get(2)?,
    })
}

/// The token's reach to a person, or None when it has none.
pub fn reach_person(conn: &Connection, token_id: i64, person_id: i64) -> rusqlite::Result<Option<Reach>> {
    conn.prepare_cached(&format!("{REACH} AND p.id = ?2"))?
        .query_row([token_id, person_id], reach_from)
        .optional()
}

/// The token's reach to a medication's person.
pub fn reach_medication(
    conn: &Connection,
    token_id: i64,
    medication_id: i64,
) -> rusqlite::Result<Option<Reach>> {
    conn.prepare_cached(&format!(
        "{REACH} AND p.id = (SELECT m.person_id FROM medications m WHERE m.id = ?2 AND m.user_id = t.user_id)"
    ))?
    .query_row([token_id, medication_id], reach_from)
    .optional()
}

/// The token's reach to a history entry's person.
pub fn reach_entry(conn: &Connection, token_id: i64, entry_id: i64) -> rusqlite::Result<Option<Reach>> {
    conn.prepare_cached(&format!(
        "{REACH} AND p.id = (SELECT h.person_id FROM dose_history h WHERE h.id = ?2 AND h.user_id = t.user_id)"
    ))?
    .query_row([token_id, entry_id], reach_from)
    .optional()
}

/// Every person the token reaches, the account holder first.
pub fn reachable(conn: &Connection, token_id: i64) -> rusqlite::Result<Vec<Reach>> {
    conn.prepare_cached(&format!("{REACH} ORDER BY p.is_self DESC, p.id"))?
        .query_map([token_id], reach_from)?
        .collect()
}

/// The people a limited token names; None for a token of every person.
pub fn limited_people(conn: &Connection, token_id: i64) -> rusqlite::Result<Option<Vec<i64>>> {
    let all: Option<bool> = conn
        .prepare_cached("SELECT all_people FROM api_tokens WHERE id = ?1")?
        .query_row([token_id], |row| row.get(0))
        .optional()?;
    match all {
        Some(true) => return Ok(None),
        // A token revoked meanwhile reaches nobody.
        None => return Ok(Some(Vec::new())),
        Some(false) => {}
    }
    conn.prepare_cached("SELECT person_id FROM api_token_people WHERE token_id = ?1 ORDER BY person_id")?
        .query_map([token_id], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()
        .map(Some)
}
