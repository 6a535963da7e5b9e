//! Schema migrations: `migrations/NNNN_name.sql`, embedded, applied in order by
//! rusqlite_migration (which tracks the version in `PRAGMA user_version`).

use std::fmt;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};
use serde::Serialize;

pub struct Migration {
    pub name: &'static str,
    sql: &'static str,
}

macro_rules! migration {
    ($name:literal) => {
        Migration {
            name: $name,
            sql: include_str!(concat!("../../migrations/", $name, ".sql")),
        }
    };
}

/// Every migration, oldest first. Never edit or reorder one that has been released.
pub const MIGRATIONS: &[Migration] = &[
    migration!("0001_users"),
    migration!("0002_account_security"),
    migration!("0003_medications"),
    migration!("0004_reminders"),
    migration!("0005_delivery"),
    migration!("0006_revoked_sessions"),
    migration!("0007_health_probe"),
    migration!("0008_history_counts"),
    migration!("0009_plain_checks"),
    migration!("0010_mail_outbox"),
    migration!("0011_schedule_rules"),
    migration!("0012_actionable_reminders"),
    migration!("0013_care_circle"),
    migration!("0014_escalation_delivery"),
    migration!("0015_password_resets"),
    migration!("0016_delivery_truth"),
    migration!("0017_channels"),
    migration!("0018_import_staging"),
    migration!("0019_mail_retry_until"),
    migration!("0020_escalation_retraction"),
    migration!("0021_api_tokens"),
    migration!("0022_oidc_identities"),
    migration!("0023_prescriptions"),
    migration!("0024_home_assistant"),
    migration!("0025_passkeys"),
    migration!("0026_stock_batches"),
    migration!("0027_stock_notices"),
];

#[derive(Debug, Serialize)]
pub struct Status {
    /// The schema version of the database: how many migrations it has.
    pub current: usize,
    /// The schema version this build brings.
    pub latest: usize,
    pub applied: Vec<&'static str>,
    pub pending: Vec<&'static str>,
}

#[derive(Debug)]
pub enum MigrateError {
    TooNew {
        found: usize,
        known: usize,
    },
    NotPillbox,
    /// Tables or columns that differ from what the migrations make at the file's version.
    UnknownShape {
        version: usize,
        differences: Vec<String>,
    },
    Sqlite(rusqlite::Error),
    Migration(rusqlite_migration::Error),
    Snapshot {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl fmt::Display for MigrateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MigrateError::TooNew { found, known } => write!(
                f,
                "the database has schema version {found}, but this Pillbox only knows up to {known}: \
                 it was used by a newer Pillbox. Upgrade Pillbox, or restore a backup from before the upgrade"
            ),
            MigrateError::NotPillbox => f.write_str(
                "the database file has tables but no Pillbox schema version: it is not a Pillbox database. \
                 Check --data-dir",
            ),
            MigrateError::UnknownShape {
                version: 0,
                differences,
            } => {
                write!(f, "not a Pillbox database: {}", differences.join("; "))
            }
            MigrateError::UnknownShape { version, differences } => write!(
                f,
                "not a Pillbox database of schema version {version}: {}",
                differences.join("; ")
            ),
            MigrateError::Sqlite(e) => write!(f, "database error: {e}"),
            MigrateError::Migration(e) => write!(f, "migration failed, nothing was changed: {e}"),
            MigrateError::Snapshot { path, source } => write!(
                f,
                "could not write the pre-migration snapshot {}: {source}; nothing was migrated",
                path.display()
            ),
        }
    }
}

impl std::error::Error for MigrateError {}

impl From<rusqlite::Error> for MigrateError {
    fn from(e: rusqlite::Error) -> Self {
        MigrateError::Sqlite(e)
    }
}

fn schema_version(conn: &Connection) -> Result<usize, MigrateError> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let version = usize::try_from(version).unwrap_or(usize::MAX);
    if version > MIGRATIONS.len() {
        return Err(MigrateError::TooNew {
            found: version,
            known: MIGRATIONS.len(),
        });
    }
    if version == 0 {
        let tables: i64 = conn.query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table'",
            [],
            |row| row.get(0),
        )?;
        if tables > 0 {
            return Err(MigrateError::NotPillbox);
        }
    }
    Ok(version)
}

pub fn status(conn: &Connection) -> Result<Status, MigrateError> {
    let current = schema_version(conn)?;
    let names = MIGRATIONS.iter().map(|m| m.name);
    Ok(Status {
        current,
        latest: MIGRATIONS.len(),
        applied: names.clone().take(current).collect(),
        pending: names.skip(current).collect(),
    })
}

/// How many differences a refusal names; more are counted, not listed.
const DIFFERENCES_NAMED: usize = 8;

/// Checks that the database is one the migrations made: for its schema version, the same
/// tables with the same columns, and the same indexes, triggers and views, as running the
/// migrations up to that version on an empty database gives. `extra_tables` may be there
/// besides (a snapshot's own tables). Returns the schema version; 0 for an empty file.
pub fn check_shape(conn: &Connection, extra_tables: &[&str]) -> Result<usize, MigrateError> {
    let version = match schema_version(conn) {
        Ok(0) => return Ok(0),
        Ok(version) => version,
        Err(MigrateError::NotPillbox) => {
            return Err(MigrateError::UnknownShape {
                version: 0,
                differences: vec!["it has tables but no Pillbox schema version".to_owned()],
            });
        }
        Err(e) => return Err(e),
    };
    let mut expected = Connection::open_in_memory()?;
    Migrations::new(MIGRATIONS[..version].iter().map(|m| M::up(m.sql)).collect())
        .to_latest(&mut expected)
        .map_err(MigrateError::Migration)?;
    let mut found = shape(conn)?;
    found.retain(|(kind, name), _| !(kind == "table" && extra_tables.contains(&name.as_str())));
    let mut differences = shape_differences(&shape(&expected)?, &found);
    if differences.is_empty() {
        return Ok(version);
    }
    if differences.len() > DIFFERENCES_NAMED {
        let more = differences.len() - DIFFERENCES_NAMED;
        differences.truncate(DIFFERENCES_NAMED);
        differences.push(format!("{more} more differences"));
    }
    Err(MigrateError::UnknownShape { version, differences })
}

/// A schema object's description: a table's columns (name and declaration), or the SQL
/// of an index, trigger or view.
type Shape = std::collections::BTreeMap<(String, String), Vec<(String, String)>>;

fn shape(conn: &Connection) -> rusqlite::Result<Shape> {
    let mut objects = conn.prepare(
        "SELECT type, name, coalesce(sql, '') FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    )?;
    let mut columns = conn.prepare(
        "SELECT name, trim(type || CASE WHEN \"notnull\" THEN ' NOT NULL' ELSE '' END
                           || CASE WHEN pk > 0 THEN ' PRIMARY KEY' ELSE '' END
                           || coalesce(' DEFAULT ' || dflt_value, ''))
           FROM pragma_table_info(?1) ORDER BY cid",
    )?;
    let mut shape = Shape::new();
    let listed: Vec<(String, String, String)> = objects
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (kind, name, sql) in listed {
        let description = if kind == "table" {
            columns
                .query_map([&name], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?
        } else {
            vec![(String::new(), sql)]
        };
        shape.insert((kind, name), description);
    }
    Ok(shape)
}

/// What `found` has that `expected` lacks and the other way round, in words: tables first,
/// then columns, then indexes, triggers and views.
fn shape_differences(expected: &Shape, found: &Shape) -> Vec<String> {
    let is_table = |(kind, _): &&(String, String)| kind == "table";
    if !found
        .keys()
        .filter(is_table)
        .any(|key| expected.contains_key(key))
    {
        let tables: Vec<&str> = found
            .keys()
            .filter(is_table)
            .map(|(_, name)| name.as_str())
            .collect();
        return vec![format!(
            "none of its tables are Pillbox's (it holds: {})",
            tables.join(", ")
        )];
    }
    let mut tables = Vec::new();
    let mut columns = Vec::new();
    let mut others = Vec::new();
    for (key @ (kind, name), wanted) in expected {
        let differences = if kind == "table" { &mut tables } else { &mut others };
        let Some(present) = found.get(key) else {
            differences.push(format!("{kind} {name} is missing"));
            continue;
        };
        if kind != "table" {
            if present != wanted {
                others.push(format!("{kind} {name} is not the one the migrations make"));
            }
            continue;
        }
        for (column, declared) in wanted {
            match present.iter().find(|(c, _)| c == column) {
                None => columns.push(format!("column {column} of table {name} is missing")),
                Some((_, actual)) if actual != declared => columns.push(format!(
                    "column {column} of table {name} is `{actual}`, not `{declared}`"
                )),
                Some(_) => {}
            }
        }
        for (column, _) in present {
            if !wanted.iter().any(|(c, _)| c == column) {
                columns.push(format!("table {name} has an unknown column {column}"));
            }
        }
    }
    for key @ (kind, name) in found.keys() {
        if !expected.contains_key(key) {
            let differences = if kind == "table" { &mut tables } else { &mut others };
            differences.push(format!("unknown {kind} {name}"));
        }
    }
    tables.into_iter().chain(columns).chain(others).collect()
}

/// Brings a copy to the latest schema without the pre-migration snapshot `migrate` takes:
/// for a file whose original the operator still has (a snapshot being restored).
pub fn migrate_copy(conn: &mut Connection) -> Result<Vec<&'static str>, MigrateError> {
    let pending = status(conn)?.pending;
    let migrations = Migrations::new(MIGRATIONS.iter().map(|m| M::up(m.sql)).collect());
    migrations.to_latest(conn).map_err(MigrateError::Migration)?;
    Ok(pending)
}

/// What `migrate` did.
#[derive(Debug)]
pub struct Applied {
    pub names: Vec<&'static str>,
    /// The `VACUUM INTO` copy taken before an existing database was changed.
    pub snapshot: Option<PathBuf>,
}

/// Brings the database to the latest schema. An existing database is first copied with
/// `VACUUM INTO` to `<backup_dir>/pre-migration-v<N>-<time>.sqlite3`.
pub fn migrate(conn: &mut Connection, backup_dir: &Path) -> Result<Applied, MigrateError> {
    let before = status(conn)?;
    if before.pending.is_empty() {
        return Ok(Applied {
            names: Vec::new(),
            snapshot: None,
        });
    }
    let snapshot = if before.current > 0 {
        Some(snapshot(conn, backup_dir, before.current)?)
    } else {
        None
    };
    let migrations = Migrations::new(MIGRATIONS.iter().map(|m| M::up(m.sql)).collect());
    migrations.to_latest(conn).map_err(MigrateError::Migration)?;
    Ok(Applied {
        names: before.pending,
        snapshot,
    })
}

fn snapshot(conn: &Connection, backup_dir: &Path, version: usize) -> Result<PathBuf, MigrateError> {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let path = backup_dir.join(format!("pre-migration-v{version}-{stamp}.sqlite3"));
    let failed = |source: std::io::Error| MigrateError::Snapshot {
        path: path.clone(),
        source,
    };
    crate::files::private_dir(backup_dir).map_err(failed)?;
    // An empty private file first: VACUUM INTO fills it and it keeps mode 0600.
    let file = crate::files::PrivateFile::create(&path).map_err(failed)?;
    let target = file
        .temp_path()
        .to_str()
        .ok_or_else(|| failed(std::io::Error::other("path is not valid UTF-8")))?
        .to_owned();
    conn.execute("VACUUM INTO ?1", [target])?;
    file.commit().map_err(failed)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_migration_file_is_listed_in_order() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".sql"))
            .map(|n| n.trim_end_matches(".sql").to_owned())
            .collect();
        files.sort();
        let listed: Vec<&str> = MIGRATIONS.iter().map(|m| m.name).collect();
        assert_eq!(files, listed);
        for (i, name) in listed.iter().enumerate() {
            assert!(
                name.starts_with(&format!("{:04}_", i + 1)),
                "{name} is out of sequence"
            );
        }
    }

    #[test]
    fn migrations_are_valid() {
        let migrations = Migrations::new(MIGRATIONS.iter().map(|m| M::up(m.sql)).collect());
        migrations.validate().unwrap();
    }

    #[test]
    fn applies_once_and_snapshots_existing_databases() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open(dir.path().join("db")).unwrap();
        let applied = migrate(&mut conn, dir.path()).unwrap();
        assert_eq!(applied.names.len(), MIGRATIONS.len());
        assert!(applied.snapshot.is_none(), "a new database needs no snapshot");
        let again = migrate(&mut conn, dir.path()).unwrap();
        assert!(again.names.is_empty());
        let s = status(&conn).unwrap();
        assert_eq!(
            (s.current, s.latest, s.pending.len()),
            (MIGRATIONS.len(), MIGRATIONS.len(), 0)
        );
    }

    #[test]
    fn every_schema_version_the_migrations_make_passes_the_shape_check() {
        for version in 1..=MIGRATIONS.len() {
            let mut conn = Connection::open_in_memory().unwrap();
            Migrations::new(MIGRATIONS[..version].iter().map(|m| M::up(m.sql)).collect())
                .to_latest(&mut conn)
                .unwrap();
            assert_eq!(check_shape(&conn, &[]).unwrap(), version);
        }
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, Path::new("unused")).unwrap();
        conn.execute_batch("ALTER TABLE users ADD COLUMN nickname TEXT; CREATE INDEX extra ON users (email)")
            .unwrap();
        let refused = check_shape(&conn, &[]).unwrap_err().to_string();
        assert!(
            refused.contains("table users has an unknown column nickname"),
            "{refused}"
        );
        assert!(refused.contains("unknown index extra"), "{refused}");
    }

    #[test]
    fn refuses_a_newer_database_and_foreign_ones() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open(dir.path().join("db")).unwrap();
        conn.pragma_update(None, "user_version", MIGRATIONS.len() as i64 + 1)
            .unwrap();
        assert!(matches!(
            migrate(&mut conn, dir.path()),
            Err(MigrateError::TooNew { .. })
        ));

        let mut other = Connection::open(dir.path().join("other")).unwrap();
        other.execute_batch("CREATE TABLE notes (x)").unwrap();
        assert!(matches!(
            migrate(&mut other, dir.path()),
            Err(MigrateError::NotPillbox)
        ));
    }

    #[test]
    fn version_5_keeps_reminders_and_does_not_send_the_past_in_a_burst() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open(dir.path().join("db")).unwrap();
        Migrations::new(MIGRATIONS[..4].iter().map(|m| M::up(m.sql)).collect())
            .to_latest(&mut conn)
            .unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (1, 'a@b.c', 'x', 't', 't');
             INSERT INTO medications (id, user_id, name, unit, frequency, color, icon, default_quantity, start_date,
                                      created_at, updated_at)
                  VALUES (1, 1, 'Aspirin', 'tablets', 'daily', 'blue', 'pill', 1000, '2026-01-01', 't', 't');
             INSERT INTO reminders (id, user_id, medication_id, scheduled_time, reminder_time, created_at) VALUES
                  (1, 1, 1, '2020-01-01T09:00:00.000Z', '2020-01-01T08:45:00.000Z', 't'),
                  (2, 1, 1, '2999-01-01T09:00:00.000Z', '2999-01-01T08:45:00.000Z', 't');",
        )
        .unwrap();
        let applied = migrate(&mut conn, dir.path()).unwrap();
        assert_eq!(applied.names.first(), Some(&"0005_delivery"), "later ones follow");
        assert!(applied.snapshot.is_some());
        type Row = (i64, String, String, Option<String>, Option<String>);
        let rows: Vec<Row> = conn
            .prepare("SELECT id, medication_name, status, next_attempt_at, failure_reason FROM reminders ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows[0].1, "Aspirin");
        assert_eq!((rows[0].2.as_str(), rows[0].3.as_deref()), ("failed", None));
        assert!(rows[0].4.is_some());
        assert_eq!(
            (rows[1].2.as_str(), rows[1].3.as_deref()),
            ("scheduled", Some("2999-01-01T08:45:00.000Z"))
        );
    }

    /// Migration 0020 makes `escalations` anew: the e-mails and channel messages of the
    /// alerts already there keep them (a dropped table would have deleted them, foreign keys
    /// being on), and a retracted alert no longer blocks a new one for the same dose and carer.
    #[test]
    fn version_20_keeps_what_names_an_alert_and_lets_a_retracted_one_be_sent_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open(dir.path().join("db")).unwrap();
        conn.pragma_update(None, "foreign_keys", "ON").unwrap();
        let before = MIGRATIONS
            .iter()
            .position(|m| m.name == "0020_escalation_retraction")
            .unwrap();
        Migrations::new(MIGRATIONS[..before].iter().map(|m| M::up(m.sql)).collect())
            .to_latest(&mut conn)
            .unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES
                 (1, 'o@x.test', 'x', 't', 't'), (2, 'c@x.test', 'x', 't', 't');
             INSERT INTO medications (id, user_id, name, unit, frequency, color, icon, default_quantity, start_date,
                                      created_at, updated_at)
                  VALUES (1, 1, 'Aspirin', 'tablets', 'daily', 'blue', 'pill', 1000, '2026-01-01', 't', 't');
             INSERT INTO reminders (id, user_id, medication_id, medication_name, scheduled_time, reminder_time,
                                    created_at)
                  VALUES (10, 1, 1, 'Aspirin', '2026-03-02T08:00:00.000Z', '2026-03-02T08:00:00.000Z', 't');
             INSERT INTO escalations (id, reminder_id, carer_id, status, created_at, sent_at)
                  VALUES (5, 10, 2, 'sent', 't', 't');
             INSERT INTO mail_outbox (kind, user_id, escalation_id, recipient, subject, text_body, html_body,
                                      message_id, created_at, max_attempts, backoff_seconds)
                  VALUES ('reminder', 2, 5, 'c@x.test', 's', 't', 'h', 'm', 't', 1, 1);",
        )
        .unwrap();
        let channel = crate::store::channels::insert(
            &conn,
            &crate::store::channels::NewChannel {
                user_id: 2,
                kind: "ntfy",
                name: "Phone",
                config: &serde_json::json!({ "server_url": "https://ntfy.example.org", "topic": "t" }),
                secret: None,
                state: "active",
                link_code_hash: None,
                link_expires_at: None,
                now: "t",
            },
        )
        .unwrap();
        crate::store::channels::enqueue(
            &conn,
            &crate::store::channels::NewSend {
                channel_id: channel,
                user_id: 2,
                reminder_id: Some(10),
                round: None,
                escalation_id: Some(5),
                event: "escalation.sent",
                delivery_kind: None,
                title: "Tom has not taken Aspirin",
                medication_name: None,
                fallback: false,
                message: &serde_json::json!({}),
                idempotency_key: "k",
                now: "t",
                give_up_at: crate::db::Stamp::from(chrono::Utc::now()),
            },
        )
        .unwrap();

        migrate(&mut conn, dir.path()).unwrap();
        let named = |table: &str| -> Vec<Option<i64>> {
            conn.prepare(&format!("SELECT escalation_id FROM {table}"))
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        };
        assert_eq!(named("mail_outbox"), [Some(5)]);
        assert_eq!(named("channel_sends"), [Some(5)]);
        let again = "INSERT INTO escalations (reminder_id, carer_id, created_at) VALUES (10, 2, 't')";
        assert!(
            conn.execute(again, []).is_err(),
            "one alert that holds per dose and carer"
        );
        conn.execute(
            "UPDATE escalations SET retracted_at = 't', status = 'withdrawn' WHERE id = 5",
            [],
        )
        .unwrap();
        conn.execute(again, []).unwrap();
        let fks: i64 = conn
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(fks, 0);
    }

    #[test]
    fn version_10_checks_the_same_values_without_a_temporary_btree_per_row() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open(dir.path().join("db")).unwrap();
        let before = MIGRATIONS.len() - 1;
        Migrations::new(MIGRATIONS[..before].iter().map(|m| M::up(m.sql)).collect())
            .to_latest(&mut conn)
            .unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (1, 'a@b.c', 'x', 't', 't');
             INSERT INTO medications (id, user_id, name, unit, frequency, color, icon, default_quantity, start_date,
                                      created_at, updated_at)
                  VALUES (1, 1, 'Aspirin', 'tablets', 'daily', 'blue', 'pill', 1000, '2026-01-01', 't', 't');
             INSERT INTO reminders (user_id, medication_id, medication_name, scheduled_time, reminder_time, created_at)
                  VALUES (1, 1, 'Aspirin', '2999-01-01T09:00:00.000Z', '2999-01-01T08:45:00.000Z', 't');",
        )
        .unwrap();
        migrate(&mut conn, dir.path()).unwrap();

        let ok: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(ok, "ok");
        let kept: i64 = conn
            .query_row("SELECT count(*) FROM reminders", [], |r| r.get(0))
            .unwrap();
        assert_eq!(kept, 1);
        for table in ["reminders", "dose_history", "stock_ledger", "deliveries"] {
            let sql: String = conn
                .query_row("SELECT sql FROM sqlite_schema WHERE name = ?1", [table], |r| {
                    r.get(0)
                })
                .unwrap();
            assert!(!sql.contains("kind IN") && !sql.contains("status IN"), "{sql}");
        }
        let program: Vec<String> = conn
            .prepare(
                "EXPLAIN INSERT INTO reminders (user_id, medication_id, medication_name, kind, status, scheduled_time,
                                                reminder_time, created_at) VALUES (1, 1, 'A', ?1, ?2, 's', 'r', 't')",
            )
            .unwrap()
            .query_map(["dose", "sent"], |r| r.get::<_, String>(1))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(!program.iter().any(|op| op == "OpenEphemeral"), "{program:?}");

        // The same values pass and fail as before.
        let insert = |kind: &str, status: &str, at: &str| {
            conn.execute(
                "INSERT INTO reminders (user_id, medication_id, medication_name, kind, status, scheduled_time,
                                        reminder_time, created_at) VALUES (1, 1, 'A', ?1, ?2, ?3, ?3, 't')",
                [kind, status, at],
            )
        };
        assert!(insert("one_off", "cancelled", "a").is_ok());
        assert!(insert("low_stock", "failed", "b").is_ok());
        for (kind, status) in [("doze", "sent"), ("dose", "done"), ("DOSE", "sent"), ("dose", "")] {
            let refused = insert(kind, status, "c").unwrap_err().to_string();
            assert!(refused.contains("CHECK constraint failed"), "{refused}");
        }
        let refused = conn
            .execute(
                "INSERT INTO dose_history_rows (user_id, medication_name, medication_unit, status, taken_at, quantity,
                                           dosage_unit, affect_inventory, created_at)
                 VALUES (1, 'A', 'mg', 'forgotten', 't', 1, 'mg', 1, 't')",
                [],
            )
            .unwrap_err()
            .to_string();
        assert!(refused.contains("CHECK constraint failed"), "{refused}");
    }

    #[test]
    fn version_27_takes_the_batch_notices_and_keeps_every_row() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open(dir.path().join("db")).unwrap();
        let before = MIGRATIONS
            .iter()
            .position(|m| m.name == "0027_stock_notices")
            .unwrap();
        Migrations::new(MIGRATIONS[..before].iter().map(|m| M::up(m.sql)).collect())
            .to_latest(&mut conn)
            .unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (1, 'a@b.c', 'x', 't', 't');
             INSERT INTO medications (id, user_id, name, unit, frequency, color, icon, default_quantity, start_date,
                                      created_at, updated_at)
                  VALUES (1, 1, 'Aspirin', 'tablets', 'daily', 'blue', 'pill', 1000, '2026-01-01', 't', 't');
             INSERT INTO reminders (user_id, medication_id, medication_name, kind, scheduled_time, reminder_time, created_at)
                  VALUES (1, 1, 'Aspirin', 'refill', 'a', 'a', 't');
             INSERT INTO deliveries (user_id, reminder_id, kind, title, channel, attempted_at, result)
                  VALUES (1, 1, 'refill', 'Order a refill of Aspirin', 'push', 't', 'sent');
             INSERT INTO stock_batches (medication_id, quantity, remaining, expires_on, created_at, updated_at)
                  VALUES (1, 10, 10, '2026-12-31', 't', 't');",
        )
        .unwrap();
        migrate(&mut conn, dir.path()).unwrap();
        let ok: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(ok, "ok");
        let kept: (i64, i64, Option<String>) = conn
            .query_row(
                "SELECT (SELECT count(*) FROM reminders), (SELECT count(*) FROM deliveries),
                        (SELECT expiry_noticed_for FROM stock_batches)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(kept, (1, 1, None));
        for (n, kind) in ["batch_expiring", "batch_expired"].iter().enumerate() {
            conn.execute(
                "INSERT INTO reminders (user_id, medication_id, medication_name, kind, scheduled_time, reminder_time,
                                        created_at) VALUES (1, 1, 'Aspirin', ?1, ?2, ?2, 't')",
                rusqlite::params![kind, format!("b{n}")],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO deliveries (user_id, kind, title, channel, attempted_at, result)
                 VALUES (1, ?1, 'x', 'push', 't', 'sent')",
                [kind],
            )
            .unwrap();
        }
        let refused = conn
            .execute(
                "INSERT INTO deliveries (user_id, kind, title, channel, attempted_at, result)
                 VALUES (1, 'batch', 'x', 'push', 't', 'sent')",
                [],
            )
            .unwrap_err()
            .to_string();
        assert!(refused.contains("CHECK constraint failed"), "{refused}");
    }
}
