//! `Stamp`: an instant as the database stores it and the API shows it — UTC, RFC 3339 with
//! milliseconds and a `Z` (`2026-03-02T08:00:00.000Z`, `clock::stamp`), fixed width so that
//! text order is time order. One type for every stored time, so that a value that does not
//! parse is an error where it is read, never a silent default.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::clock;

/// An instant in UTC, written as `clock::stamp` writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stamp(DateTime<Utc>);

/// Text that is not an RFC 3339 instant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not an RFC 3339 time ({reason})")]
pub struct BadStamp {
    pub text: String,
    reason: String,
}

impl Stamp {
    pub fn instant(self) -> DateTime<Utc> {
        self.0
    }

    /// A time written out in a test.
    #[cfg(test)]
    pub fn at(text: &str) -> Stamp {
        Stamp::parse(text).expect("an RFC 3339 time")
    }

    /// Reads RFC 3339 text in any offset (what the server writes has `Z` and milliseconds);
    /// the instant keeps its full precision.
    pub fn parse(text: &str) -> Result<Stamp, BadStamp> {
        DateTime::parse_from_rfc3339(text)
            .map(|t| Stamp(t.with_timezone(&Utc)))
            .map_err(|e| BadStamp {
                text: text.to_owned(),
                reason: e.to_string(),
            })
    }
}

impl From<DateTime<Utc>> for Stamp {
    fn from(instant: DateTime<Utc>) -> Stamp {
        Stamp(instant)
    }
}

impl From<Stamp> for DateTime<Utc> {
    fn from(stamp: Stamp) -> DateTime<Utc> {
        stamp.0
    }
}

impl FromStr for Stamp {
    type Err = BadStamp;

    fn from_str(text: &str) -> Result<Stamp, BadStamp> {
        Stamp::parse(text)
    }
}

impl fmt::Display for Stamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&clock::stamp(self.0))
    }
}

impl ToSql for Stamp {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(clock::stamp(self.0)))
    }
}

/// A conversion failure carries the text and why; `store::stamp_at` adds the table and row.
impl FromSql for Stamp {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Stamp> {
        let text = value.as_str()?;
        Stamp::parse(text).map_err(|e| FromSqlError::Other(Box::new(e)))
    }
}

impl Serialize for Stamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&clock::stamp(self.0))
    }
}

impl<'de> Deserialize<'de> for Stamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Stamp, D::Error> {
        let text = String::deserialize(deserializer)?;
        Stamp::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_stamp_reads_and_writes_the_stored_text_unchanged() {
        let text = "2026-03-02T08:00:00.120Z";
        let stamp = Stamp::parse(text).unwrap();
        assert_eq!(stamp.to_string(), text);
        assert_eq!(
            stamp.instant(),
            Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap() + chrono::Duration::milliseconds(120)
        );
        assert_eq!(Stamp::from(stamp.instant()), stamp);
        assert_eq!(serde_json::to_value(stamp).unwrap(), serde_json::json!(text));
        assert_eq!(
            serde_json::from_value::<Stamp>(serde_json::json!(text)).unwrap(),
            stamp
        );

        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let (stored, back): (String, Stamp) = conn
            .query_row("SELECT ?1, ?1", [stamp], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap();
        assert_eq!(stored, text, "written as clock::stamp writes it");
        assert_eq!(back, stamp);
    }

    #[test]
    fn other_offsets_read_as_the_same_instant_and_are_written_in_utc() {
        let stamp = Stamp::parse("2026-03-02T09:00:00+01:00").unwrap();
        assert_eq!(stamp.to_string(), "2026-03-02T08:00:00.000Z");
    }

    #[test]
    fn text_that_is_no_time_is_an_error_that_quotes_it() {
        let err = Stamp::parse("yesterday").unwrap_err();
        assert!(err.to_string().contains("\"yesterday\""), "{err}");
        assert!(serde_json::from_value::<Stamp>(serde_json::json!("2026-13-01T00:00:00Z")).is_err());
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let read = conn.query_row("SELECT 'soon'", [], |row| row.get::<_, Stamp>(0));
        assert!(read.is_err(), "{read:?}");
        let read = conn.query_row("SELECT 5", [], |row| row.get::<_, Stamp>(0));
        assert!(read.is_err(), "a number is no stamp: {read:?}");
    }
}
