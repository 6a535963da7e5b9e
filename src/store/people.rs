//! The people of an account, their carers, and what a signed-in user may reach: the SQL of
//! the care circle. A person belongs to one account (its owner); carers reach a person through
//! an accepted `carers` row.

use rusqlite::{Connection, OptionalExtension, Row};

/// How a user reaches a person: as the owner, or as a carer with a role (`view`, `record`,
/// `manage`). `owner_id` is the account whose rows (medications, history) hold the person's data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    pub owner_id: i64,
    pub person_id: i64,
    /// `owner`, `manage`, `record` or `view`.
    pub role: String,
}

fn reach_from(row: &Row) -> rusqlite::Result<Reach> {
    Ok(Reach {
        owner_id: row.get(0)?,
        person_id: row.get(1)?,
        role: row.get(2)?,
    })
}

/// The user's reach to a person, or None when they have none (or there is no such person).
pub fn reach_person(conn: &Connection, user_id: i64, person_id: i64) -> rusqlite::Result<Option<Reach>> {
    conn.prepare_cached(
        "SELECT p.owner_id, p.id, CASE WHEN p.owner_id = ?1 THEN 'owner' ELSE c.role END
         FROM people p LEFT JOIN carers c ON c.person_id = p.id AND c.user_id = ?1
         WHERE p.id = ?2 AND (p.owner_id = ?1 OR c.user_id IS NOT NULL)",
    )?
    .query_row([user_id, person_id], reach_from)
    .optional()
}

/// The user's reach to a medication's person.
pub fn reach_medication(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
) -> rusqlite::Result<Option<Reach>> {
    conn.prepare_cached(
        "SELECT m.user_id, m.person_id, CASE WHEN m.user_id = ?1 THEN 'owner' ELSE c.role END
         FROM medications m LEFT JOIN carers c ON c.person_id = m.person_id AND c.user_id = ?1
         WHERE m.id = ?2 AND (m.user_id = ?1 OR c.user_id IS NOT NULL)",
    )?
    .query_row([user_id, medication_id], reach_from)
    .optional()
}

/// The user's reach to a history entry's person.
pub fn reach_entry(conn: &Connection, user_id: i64, entry_id: i64) -> rusqlite::Result<Option<Reach>> {
    conn.prepare_cached(
        "SELECT h.user_id, h.person_id, CASE WHEN h.user_id = ?1 THEN 'owner' ELSE c.role END
         FROM dose_history h LEFT JOIN carers c ON c.person_id = h.person_id AND c.user_id = ?1
         WHERE h.id = ?2 AND (h.user_id = ?1 OR c.user_id IS NOT NULL)",
    )?
    .query_row([user_id, entry_id], reach_from)
    .optional()
}

/// Every person the user reaches: their own people first (the account holder first), then
/// those they care for, each by name.
pub fn reachable(conn: &Connection, user_id: i64) -> rusqlite::Result<Vec<Reach>> {
    conn.prepare_cached(
        "SELECT p.owner_id, p.id, 'owner' FROM people p WHERE p.owner_id = ?1
         UNION ALL
         SELECT p.owner_id, p.id, c.role FROM carers c JOIN people p ON p.id = c.person_id
         WHERE c.user_id = ?1",
    )?
    .query_map([user_id], reach_from)?
    .collect()
}

/// The account holder's own person.
pub fn self_person(conn: &Connection, owner_id: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT id FROM people WHERE owner_id = ?1 AND is_self = 1")?
        .query_row([owner_id], |row| row.get(0))
}

/// A person's name, as the account shows it (the account holder's own person shows the
/// account's name when it has none of its own).
pub fn name(conn: &Connection, person_id: i64) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached(
        "SELECT CASE WHEN p.name <> '' THEN p.name
                     ELSE coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.email) END
         FROM people p JOIN users u ON u.id = p.owner_id WHERE p.id = ?1",
    )?
    .query_row([person_id], |row| row.get(0))
    .optional()
}

/// A user's name as others see it (first and last name, else the e-mail address).
pub fn user_name(conn: &Connection, user_id: i64) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached(
        "SELECT coalesce(nullif(trim(first_name || ' ' || last_name), ''), email) FROM users WHERE id = ?1",
    )?
    .query_row([user_id], |row| row.get(0))
    .optional()
}

/// Adds a line to a person's audit list.
pub fn audit(
    conn: &Connection,
    person_id: i64,
    actor_id: i64,
    actor_name: &str,
    action: &str,
    subject: &str,
    now: &str,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO care_audit (person_id, actor_id, actor_name, action, subject, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(rusqlite::params![
        person_id, actor_id, actor_name, action, subject, now
    ])?;
    Ok(())
}

/// An accepted carer's role for a person, or None.
pub fn carer_role(conn: &Connection, person_id: i64, user_id: i64) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT role FROM carers WHERE person_id = ?1 AND user_id = ?2")?
        .query_row([person_id, user_id], |row| row.get(0))
        .optional()
}

/// A person's name and whether they are archived.
pub fn brief(conn: &Connection, person_id: i64) -> rusqlite::Result<Option<(String, bool)>> {
    let Some(name) = name(conn, person_id)? else {
        return Ok(None);
    };
    let archived = conn
        .prepare_cached("SELECT archived_at IS NOT NULL FROM people WHERE id = ?1")?
        .query_row([person_id], |row| row.get(0))?;
    Ok(Some((name, archived)))
}
