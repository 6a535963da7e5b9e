//! A person's private calendar feed (issue 15): a secret address serving the next 14 days
//! of planned doses as iCalendar (RFC 5545) events, for calendar apps that subscribe to it.
//! Only the SHA-256 of the token is stored, like take links; a new feed replaces the old.

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::{ErrorCode, ServiceError, ServiceResult, not_found};
use crate::db::Stamp;
use crate::domain::schedule::Frequency;
use crate::security::codes;
use crate::services::planner::{self, UserClock};
use crate::services::user_settings;
use crate::store::{calendar, medications, notify_prefs, settings};

/// How many days of doses the feed holds, from today.
pub const FEED_DAYS: u32 = 14;
/// How long each event lasts: a dose is a moment, but calendars show a zero-length event
/// poorly.
const EVENT_MINUTES: i64 = 15;

/// A new feed's address.
#[derive(Debug, Serialize, ToSchema)]
pub struct NewFeed {
    /// The secret address to subscribe to (`…/api/calendar/<token>.ics`); shown once.
    pub url: String,
    /// RFC 3339, UTC.
    #[schema(value_type = String)]
    pub created_at: Stamp,
}

/// Whether the person has a feed.
#[derive(Debug, Serialize, ToSchema)]
pub struct FeedStatus {
    pub exists: bool,
    /// When the current feed was made (RFC 3339, UTC); null without one.
    #[schema(required = true, value_type = Option<String>)]
    pub created_at: Option<Stamp>,
}

fn feed_not_found() -> ServiceError {
    not_found(ErrorCode::CalendarFeedNotFound, "Calendar feed not found")
}

/// Makes a new feed for the person (the old address stops working); answers its address
/// under `link_base`.
pub fn create(
    conn: &Connection,
    user_id: i64,
    link_base: &str,
    now: DateTime<Utc>,
) -> ServiceResult<NewFeed> {
    let token = codes::link_token();
    let created_at = Stamp::from(now);
    calendar::set(conn, user_id, &codes::hash_link_token(&token), created_at)?;
    Ok(NewFeed {
        url: format!("{link_base}/api/calendar/{token}.ics"),
        created_at,
    })
}

/// Revokes the person's feed; false when there was none.
pub fn revoke(conn: &Connection, user_id: i64) -> ServiceResult<bool> {
    Ok(calendar::delete(conn, user_id)?)
}

pub fn status(conn: &Connection, user_id: i64) -> ServiceResult<FeedStatus> {
    let created_at = calendar::created_at(conn, user_id)?;
    Ok(FeedStatus {
        exists: created_at.is_some(),
        created_at,
    })
}

/// The calendar a feed's file name (`<token>.ics`) opens; `calendar_feed_not_found` for
/// anything else.
pub fn feed(conn: &Connection, file: &str, now: DateTime<Utc>) -> ServiceResult<String> {
    let token = file.strip_suffix(".ics").ok_or_else(feed_not_found)?;
    if super::reminders::check_token(token).is_err() || token.is_empty() {
        return Err(feed_not_found());
    }
    let user_id = calendar::owner(conn, &codes::hash_link_token(token))?.ok_or_else(feed_not_found)?;
    let user_clock = UserClock::at(conn, user_id, now)?;
    let user_settings = settings::get(conn, user_id)?;
    let words = user_settings::language_of(&user_settings).words();
    let hide = notify_prefs::global(conn, user_id)?.hide_medication_names;
    let time_format = user_settings::time_pattern_of(&user_settings);
    let today = user_clock.today();
    let after = user_clock.start_of(today) - Duration::seconds(1);
    let mut events = Vec::new();
    for m in medications::list(conn, user_id)? {
        if Frequency::parse(&m.frequency).is_none_or(|f| f == Frequency::AsNeeded) {
            continue;
        }
        for at in planner::doses_of(&m, &user_clock, today, FEED_DAYS, after) {
            let summary = if hide {
                let time = at.with_timezone(&user_clock.tz).format(time_format).to_string();
                words.fill(words.hidden_title, &[("time", &time)])
            } else {
                let quantity = planner::quantity_at(&m, &user_clock, at);
                format!("{} {}", m.name, words.amount(quantity, &m.unit))
            };
            events.push(Event {
                uid: format!("dose-{}-{}@pillbox", m.id, ical_instant(at)),
                start: at,
                summary,
            });
        }
    }
    events.sort_by(|a, b| a.start.cmp(&b.start).then_with(|| a.uid.cmp(&b.uid)));
    Ok(ical(&events, now))
}

/// One planned dose as a calendar event.
struct Event {
    uid: String,
    start: DateTime<Utc>,
    summary: String,
}

/// An instant as iCalendar writes UTC: `20260302T080000Z`.
fn ical_instant(at: DateTime<Utc>) -> String {
    at.format("%Y%m%dT%H%M%SZ").to_string()
}

/// TEXT escaping (RFC 5545 §3.3.11).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\;"),
            ',' => out.push_str("\\,"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Appends a content line folded at 75 octets (RFC 5545 §3.1), never inside a character.
fn line(out: &mut String, content: &str) {
    let mut width = 0;
    for c in content.chars() {
        let len = c.len_utf8();
        if width + len > 75 {
            out.push_str("\r\n ");
            // The folding space counts toward the next line's 75 octets.
            width = 1;
        }
        out.push(c);
        width += len;
    }
    out.push_str("\r\n");
}

fn ical(events: &[Event], now: DateTime<Utc>) -> String {
    let mut out = String::new();
    line(&mut out, "BEGIN:VCALENDAR");
    line(&mut out, "VERSION:2.0");
    line(
        &mut out,
        &format!("PRODID:-//Pillbox//Pillbox {}//EN", crate::version::VERSION),
    );
    line(&mut out, "CALSCALE:GREGORIAN");
    line(&mut out, "METHOD:PUBLISH");
    line(&mut out, "X-WR-CALNAME:Pillbox");
    let stamp = ical_instant(now);
    for e in events {
        line(&mut out, "BEGIN:VEVENT");
        line(&mut out, &format!("UID:{}", e.uid));
        line(&mut out, &format!("DTSTAMP:{stamp}"));
        line(&mut out, &format!("DTSTART:{}", ical_instant(e.start)));
        line(
            &mut out,
            &format!(
                "DTEND:{}",
                ical_instant(e.start + Duration::minutes(EVENT_MINUTES))
            ),
        );
        line(&mut out, &format!("SUMMARY:{}", escape(&e.summary)));
        line(&mut out, "TRANSP:TRANSPARENT");
        line(&mut out, "END:VEVENT");
    }
    line(&mut out, "END:VCALENDAR");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_fold_at_75_octets_between_characters() {
        let mut out = String::new();
        let summary = format!(
            "SUMMARY:{}",
            escape(&"Ibuprofène; 500 mg, nach dem Essen ".repeat(5))
        );
        line(&mut out, &summary);
        for physical in out.split("\r\n").filter(|l| !l.is_empty()) {
            assert!(physical.len() <= 75, "{physical:?} is {} octets", physical.len());
        }
        let unfolded = out.trim_end_matches("\r\n").replace("\r\n ", "");
        assert_eq!(unfolded, summary);
        assert!(summary.contains("Ibuprofène\\; 500 mg\\, nach"));
    }

    #[test]
    fn an_empty_calendar_is_still_a_calendar() {
        let now = DateTime::parse_from_rfc3339("2026-03-02T08:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let text = ical(&[], now);
        assert!(text.starts_with("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:"));
        assert!(text.ends_with("END:VCALENDAR\r\n"));
    }
}
