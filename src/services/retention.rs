//! History retention (Settings → Data Management): only when the person chose a period
//! themselves, a daily job deletes the history entries older than it. Stock is not
//! touched: the doses were taken, only their record goes.

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;
use serde::Serialize;
use utoipa::ToSchema;

use super::{ServiceResult, invalid, user_settings};
use crate::clock;
use crate::store::{history, settings};

/// What a retention period would delete now.
#[derive(Debug, Serialize, ToSchema)]
pub struct Preview {
    #[schema(schema_with = super::user_settings::retention_kept)]
    pub days: i64,
    /// Entries taken before this instant would go.
    pub cutoff: Option<String>,
    pub entries: i64,
}

fn cutoff(now: DateTime<Utc>, days: i64) -> String {
    clock::stamp(now - Duration::days(days))
}

/// How many entries choosing `days` would delete now (none for 0, "forever").
pub fn preview(conn: &Connection, user_id: i64, days: i64, now: DateTime<Utc>) -> ServiceResult<Preview> {
    if !user_settings::RETENTION_DAYS.contains(&days) {
        return Err(invalid("Data retention must be 0, 30, 90, 365 or 730 days"));
    }
    if days == 0 {
        return Ok(Preview {
            days,
            cutoff: None,
            entries: 0,
        });
    }
    let cutoff = cutoff(now, days);
    let entries = history::count_taken_before(conn, user_id, &cutoff)?;
    Ok(Preview {
        days,
        cutoff: Some(cutoff),
        entries,
    })
}

/// Deletes what the person's chosen period no longer keeps; nothing when they never chose.
pub fn prune(conn: &Connection, user_id: i64, now: DateTime<Utc>) -> ServiceResult<usize> {
    let Some(days) = user_settings::retention_days(&settings::get(conn, user_id)?) else {
        return Ok(0);
    };
    Ok(history::delete_taken_before(conn, user_id, &cutoff(now, days))?)
}

/// Every user who chose a retention period.
pub fn users_with_retention(conn: &Connection) -> ServiceResult<Vec<i64>> {
    let mut users = Vec::new();
    for user_id in settings::users(conn)? {
        if user_settings::retention_days(&settings::get(conn, user_id)?).is_some() {
            users.push(user_id);
        }
    }
    Ok(users)
}
