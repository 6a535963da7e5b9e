//! Instants as the database stores them: UTC, RFC 3339 with milliseconds and a `Z`, fixed
//! width so that text order is time order.

use chrono::{DateTime, SecondsFormat, Utc};

pub fn now() -> DateTime<Utc> {
    Utc::now()
}

pub fn stamp(instant: DateTime<Utc>) -> String {
    instant.to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub fn now_stamp() -> String {
    stamp(now())
}
