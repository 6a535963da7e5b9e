//! All SQL lives here, one file per resource. Functions take a connection (or transaction)
//! and never decide policy.

pub mod api_tokens;
pub mod batches;
pub mod calendar;
pub mod carers;
pub mod channels;
pub mod deliveries;
pub mod escalations;
pub mod health;
pub mod history;
pub mod imports;
pub mod medications;
pub mod notify_prefs;
pub mod oidc;
pub mod outbox;
pub mod passkeys;
pub mod people;
pub mod prescriptions;
pub mod push_subscriptions;
pub mod reminders;
pub mod sessions;
pub mod settings;
pub mod snapshot_files;
pub mod users;

use chrono::NaiveDate;
use rusqlite::Row;
use rusqlite::types::Type;

use crate::db::Stamp;

/// A stored value (a time, a date, a schedule's JSON) that does not read as one, named by where
/// it is: which table, which row and which column.
#[derive(Debug, thiserror::Error)]
#[error("{table} row {id}, column {column}: {cause}")]
pub struct BadStoredValue {
    pub table: &'static str,
    pub id: i64,
    pub column: String,
    cause: String,
}

/// The time in column `idx` of the `table` row with this `id`. Text that is no time is an
/// error naming the table, the row and the column, never a default.
pub fn stamp_at(row: &Row, idx: usize, table: &'static str, id: i64) -> rusqlite::Result<Stamp> {
    row.get(idx).map_err(|e| bad_stored_value(row, idx, table, id, e))
}

/// The calendar day (`YYYY-MM-DD`) in column `idx`, read as `stamp_at` reads a time: text that
/// is no date is an error naming the table, the row and the column, never today or 1970.
pub fn day_at(row: &Row, idx: usize, table: &'static str, id: i64) -> rusqlite::Result<NaiveDate> {
    text_at(row, idx, table, id, |text| {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| format!("{text:?} is not a YYYY-MM-DD date"))
    })
}

/// A calendar day column that may be empty (`NULL`), read as `day_at` reads one.
pub fn day_or_null_at(
    row: &Row,
    idx: usize,
    table: &'static str,
    id: i64,
) -> rusqlite::Result<Option<NaiveDate>> {
    let text: Option<String> = row
        .get(idx)
        .map_err(|e| bad_stored_value(row, idx, table, id, e))?;
    match text {
        None => Ok(None),
        Some(_) => day_at(row, idx, table, id).map(Some),
    }
}

/// The JSON in column `idx` (a schedule's times, weekdays or rules), read as `stamp_at` reads a
/// time: text that does not parse is an error naming the row, never an empty schedule.
pub fn json_at<T: serde::de::DeserializeOwned>(
    row: &Row,
    idx: usize,
    table: &'static str,
    id: i64,
) -> rusqlite::Result<T> {
    text_at(row, idx, table, id, |text| {
        serde_json::from_str(text).map_err(|e| format!("{text:?} is not the JSON expected here ({e})"))
    })
}

/// The text in column `idx` read by `parse`; what it refuses is an error naming the table, the
/// row and the column, with `parse`'s words.
fn text_at<T>(
    row: &Row,
    idx: usize,
    table: &'static str,
    id: i64,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> rusqlite::Result<T> {
    let text: String = row
        .get(idx)
        .map_err(|e| bad_stored_value(row, idx, table, id, e))?;
    parse(&text).map_err(|cause| {
        let e = rusqlite::Error::FromSqlConversionFailure(idx, Type::Text, cause.into());
        bad_stored_value(row, idx, table, id, e)
    })
}

/// A time column that may be empty (`NULL`), read as `stamp_at` reads one.
pub fn stamp_or_null_at(
    row: &Row,
    idx: usize,
    table: &'static str,
    id: i64,
) -> rusqlite::Result<Option<Stamp>> {
    row.get(idx).map_err(|e| bad_stored_value(row, idx, table, id, e))
}

fn bad_stored_value(
    row: &Row,
    idx: usize,
    table: &'static str,
    id: i64,
    e: rusqlite::Error,
) -> rusqlite::Error {
    let cause = match &e {
        rusqlite::Error::FromSqlConversionFailure(_, _, cause) => cause.to_string(),
        rusqlite::Error::InvalidColumnType(_, _, stored) => format!("{stored} is not a time"),
        _ => return e,
    };
    let column = row.as_ref().column_name(idx).unwrap_or("?").to_owned();
    rusqlite::Error::FromSqlConversionFailure(
        idx,
        Type::Text,
        Box::new(BadStoredValue {
            table,
            id,
            column,
            cause,
        }),
    )
}

/// How many rows a paged list has: exact, or a lower bound where counting stopped early
/// (counting a long list to the end would cost more than the page itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub total: i64,
    pub exact: bool,
}

/// How far past the end of a page a count goes before it stops.
pub const COUNT_AHEAD: i64 = 1000;

impl Count {
    /// From a count that was stopped at `cap` rows.
    pub fn capped(counted: i64, cap: i64) -> Count {
        Count {
            total: counted,
            exact: counted < cap,
        }
    }

    /// The cap for a page at `offset` of `limit` rows.
    pub fn cap(offset: i64, limit: i64) -> i64 {
        offset.saturating_add(limit).saturating_add(COUNT_AHEAD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_time_that_does_not_parse_names_its_table_row_and_column() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let read = |sql: &str| {
            conn.query_row(sql, [], |row| stamp_at(row, 1, "users", row.get(0)?))
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            read("SELECT 7, '2026-03-02T08:00:00.000Z' AS created_at").map(|s| s.to_string()),
            Ok("2026-03-02T08:00:00.000Z".to_owned())
        );
        let err = read("SELECT 7, 'next week' AS created_at").unwrap_err();
        assert!(
            err.contains("users row 7, column created_at: \"next week\" is not an RFC 3339 time"),
            "{err}"
        );
        let err = read("SELECT 8, 12 AS created_at").unwrap_err();
        assert!(
            err.contains("users row 8, column created_at: Integer is not a time"),
            "{err}"
        );
        let empty = conn
            .query_row("SELECT 9, NULL", [], |row| stamp_or_null_at(row, 1, "users", 9))
            .unwrap();
        assert_eq!(empty, None);
    }
}
