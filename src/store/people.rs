//! The people of an account, their carers, and what a signed-in user may reach: the SQL of
//! the care circle. A person belongs to one account (its owner); carers reach a person through
//! an accepted `carers` row.

use rusqlite::{Connection, OptionalExtension, Row};

use super::stamp_at;
use crate::db::Stamp;

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
    Ok(find(conn, person_id)?.map(|person| person.name))
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
    now: Stamp,
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

/// A person as the people list shows them.
#[derive(Debug, Clone)]
pub struct Person {
    pub id: i64,
    pub owner_id: i64,
    /// As `name` shows it (the account's name for an account holder without one).
    pub name: String,
    pub is_self: bool,
    pub archived: bool,
    pub created_at: Stamp,
    /// The account holder's name as others see it.
    pub owner_name: String,
    /// Published to Home Assistant by MQTT (the owner's choice).
    pub home_assistant: bool,
}

/// A person the user cares for, with their carers row.
#[derive(Debug, Clone)]
pub struct Cared {
    pub person: Person,
    pub role: String,
    pub carer_id: i64,
}

const PERSON_COLUMNS: &str = "p.id, p.owner_id,
        CASE WHEN p.name <> '' THEN p.name
             ELSE coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.email) END AS shown,
        p.is_self, p.archived_at IS NOT NULL, p.created_at,
        coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.email), p.home_assistant";

fn person_from(row: &Row) -> rusqlite::Result<Person> {
    Ok(Person {
        id: row.get(0)?,
        owner_id: row.get(1)?,
        name: row.get(2)?,
        is_self: row.get(3)?,
        archived: row.get(4)?,
        created_at: stamp_at(row, 5, "people", row.get(0)?)?,
        owner_name: row.get(6)?,
        home_assistant: row.get(7)?,
    })
}

/// One person, whoever owns them.
pub fn find(conn: &Connection, person_id: i64) -> rusqlite::Result<Option<Person>> {
    conn.prepare_cached(&format!(
        "SELECT {PERSON_COLUMNS} FROM people p JOIN users u ON u.id = p.owner_id WHERE p.id = ?1"
    ))?
    .query_row([person_id], person_from)
    .optional()
}

/// An account's own people: the account holder first, then by name.
pub fn own(conn: &Connection, owner_id: i64) -> rusqlite::Result<Vec<Person>> {
    conn.prepare_cached(&format!(
        "SELECT {PERSON_COLUMNS} FROM people p JOIN users u ON u.id = p.owner_id
         WHERE p.owner_id = ?1 ORDER BY p.is_self DESC, shown COLLATE NOCASE, p.id"
    ))?
    .query_map([owner_id], person_from)?
    .collect()
}

/// The people a user cares for (accepted invitations), by name.
pub fn cared(conn: &Connection, user_id: i64) -> rusqlite::Result<Vec<Cared>> {
    conn.prepare_cached(&format!(
        "SELECT {PERSON_COLUMNS}, c.role, c.id
         FROM carers c JOIN people p ON p.id = c.person_id JOIN users u ON u.id = p.owner_id
         WHERE c.user_id = ?1 ORDER BY shown COLLATE NOCASE, p.id"
    ))?
    .query_map([user_id], |row| {
        Ok(Cared {
            person: person_from(row)?,
            role: row.get(8)?,
            carer_id: row.get(9)?,
        })
    })?
    .collect()
}

/// Adds a person (not an account holder) to an account; answers the id.
pub fn insert(conn: &Connection, owner_id: i64, name: &str, now: Stamp) -> rusqlite::Result<i64> {
    insert_as(conn, None, owner_id, name, now)
}

/// Inserts a person with the id reserved for them (`store::imports::reserve_ids`), or the
/// next one when None. Returns the id.
pub fn insert_as(
    conn: &Connection,
    id: Option<i64>,
    owner_id: i64,
    name: &str,
    now: Stamp,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO people (id, owner_id, name, is_self, created_at, updated_at) VALUES (?4, ?1, ?2, 0, ?3, ?3)",
    )?
    .execute(rusqlite::params![owner_id, name, now, id])?;
    Ok(conn.last_insert_rowid())
}

pub fn rename(conn: &Connection, person_id: i64, name: &str, now: Stamp) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE people SET name = ?2, updated_at = ?3 WHERE id = ?1")?
        .execute(rusqlite::params![person_id, name, now])?;
    Ok(())
}

/// Publishes a person to Home Assistant, or stops.
pub fn set_home_assistant(conn: &Connection, person_id: i64, on: bool, now: Stamp) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE people SET home_assistant = ?2, updated_at = ?3 WHERE id = ?1")?
        .execute(rusqlite::params![person_id, on, now])?;
    Ok(())
}

/// The people published to Home Assistant and not archived, of every account, by id.
pub fn published(conn: &Connection) -> rusqlite::Result<Vec<Person>> {
    conn.prepare_cached(&format!(
        "SELECT {PERSON_COLUMNS} FROM people p JOIN users u ON u.id = p.owner_id
         WHERE p.home_assistant = 1 AND p.archived_at IS NULL ORDER BY p.id"
    ))?
    .query_map([], person_from)?
    .collect()
}

/// Adds a line to a person's audit list for a change no account made (Home Assistant).
pub fn audit_without_account(
    conn: &Connection,
    person_id: i64,
    actor_name: &str,
    action: &str,
    subject: &str,
    now: Stamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO care_audit (person_id, actor_id, actor_name, action, subject, created_at)
         VALUES (?1, NULL, ?2, ?3, ?4, ?5)",
    )?
    .execute(rusqlite::params![person_id, actor_name, action, subject, now])?;
    Ok(())
}

/// Archives (with the time) or brings back (None) a person.
pub fn set_archived(
    conn: &Connection,
    person_id: i64,
    archived_at: Option<Stamp>,
    now: Stamp,
) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE people SET archived_at = ?2, updated_at = ?3 WHERE id = ?1")?
        .execute(rusqlite::params![person_id, archived_at, now])?;
    Ok(())
}

/// Deletes a person with their history, medications (reminders, stock and all) and carers.
/// The history goes first and by itself, so the history counts' triggers see each entry
/// leave once, under the medication it was counted under.
pub fn delete(conn: &Connection, person_id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("DELETE FROM dose_history_rows WHERE person_id = ?1")?
        .execute([person_id])?;
    conn.prepare_cached("DELETE FROM medications WHERE person_id = ?1")?
        .execute([person_id])?;
    Ok(conn
        .prepare_cached("DELETE FROM people WHERE id = ?1 AND is_self = 0")?
        .execute([person_id])?
        == 1)
}

/// The medications of archived people of the users with ids from `first` to `last`.
pub fn archived_medications(
    conn: &Connection,
    first: i64,
    last: i64,
) -> rusqlite::Result<std::collections::HashSet<i64>> {
    conn.prepare_cached(
        "SELECT m.id FROM medications m JOIN people p ON p.id = m.person_id
         WHERE m.user_id BETWEEN ?1 AND ?2 AND p.archived_at IS NOT NULL",
    )?
    .query_map([first, last], |row| row.get(0))?
    .collect()
}

/// A line of a person's audit list.
#[derive(Debug, Clone)]
pub struct AuditRow {
    pub id: i64,
    pub actor_name: String,
    pub action: String,
    pub subject: String,
    pub created_at: Stamp,
}

/// A page of a person's audit list, newest first.
pub fn audit_page(
    conn: &Connection,
    person_id: i64,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<Vec<AuditRow>> {
    conn.prepare_cached(
        "SELECT id, actor_name, action, subject, created_at FROM care_audit WHERE person_id = ?1
         ORDER BY id DESC LIMIT ?2 OFFSET ?3",
    )?
    .query_map([person_id, limit, offset], |row| {
        Ok(AuditRow {
            id: row.get(0)?,
            actor_name: row.get(1)?,
            action: row.get(2)?,
            subject: row.get(3)?,
            created_at: stamp_at(row, 4, "care_audit", row.get(0)?)?,
        })
    })?
    .collect()
}

/// An accepted carer's role for a person, or None.
pub fn carer_role(conn: &Connection, person_id: i64, user_id: i64) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT role FROM carers WHERE person_id = ?1 AND user_id = ?2")?
        .query_row([person_id, user_id], |row| row.get(0))
        .optional()
}
