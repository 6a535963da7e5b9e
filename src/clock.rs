//! Time as the server sees it, and instants as the database stores them: UTC, RFC 3339 with
//! milliseconds and a `Z`, fixed width so that text order is time order.
//!
//! Services take the time as a parameter (`Clock::now()` at the edge) so that tests can move
//! a test clock instead of waiting.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Datelike, Duration, SecondsFormat, Timelike, Utc};

/// The server's clock: the system's, moved forward by an offset that only a test clock
/// ever changes. Cheap to clone; clones share the offset.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    offset_ms: Arc<AtomicI64>,
    /// The part of the offset a test moved as time passing (`advance`), as opposed to the
    /// system clock being set (`jump`): the engine's clock watch leaves it out.
    advanced_ms: Arc<AtomicI64>,
}

impl Clock {
    pub fn system() -> Clock {
        Clock::default()
    }

    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + Duration::milliseconds(self.offset_ms.load(Ordering::Relaxed))
    }

    pub fn now_stamp(&self) -> String {
        stamp(self.now())
    }

    /// A clock that reads `start` now and runs on from there at the system's pace; for
    /// tests that need a given day or hour (`PILLBOX_TEST_CLOCK_START`).
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub fn starting_at(start: DateTime<Utc>) -> Clock {
        let offset = start - Utc::now();
        Clock {
            offset_ms: Arc::new(AtomicI64::new(offset.num_milliseconds())),
            advanced_ms: Arc::default(),
        }
    }

    /// Moves this clock (and its clones) forward, as if that time had passed; for test clocks.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub fn advance(&self, by: Duration) {
        self.offset_ms.fetch_add(by.num_milliseconds(), Ordering::Relaxed);
        self.advanced_ms
            .fetch_add(by.num_milliseconds(), Ordering::Relaxed);
    }

    /// Sets this clock forward or back without time passing, as `date -s` or NTP sets a
    /// system clock; for test clocks.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub fn jump(&self, by: Duration) {
        self.offset_ms.fetch_add(by.num_milliseconds(), Ordering::Relaxed);
    }

    /// The time as the system clock says it, without a test's `advance`s: what the engine's
    /// clock watch compares with the time that really passed.
    pub fn system_now(&self) -> DateTime<Utc> {
        self.now() - Duration::milliseconds(self.advanced_ms.load(Ordering::Relaxed))
    }
}

pub fn now() -> DateTime<Utc> {
    Utc::now()
}

pub fn stamp(instant: DateTime<Utc>) -> String {
    let (date, time) = (instant.date_naive(), instant.time());
    // Written digit by digit: the planner stamps two instants per reminder, and chrono's
    // general formatter was a noticeable part of planning. Years outside four digits and
    // leap seconds take chrono's way.
    let (year, nanos) = (date.year(), time.nanosecond());
    if !(0..=9999).contains(&year) || nanos >= 1_000_000_000 {
        return instant.to_rfc3339_opts(SecondsFormat::Millis, true);
    }
    let mut text = String::with_capacity(24);
    let mut digits = |value: u32, width: u32, after: char| {
        for place in (0..width).rev() {
            let digit = value / 10u32.pow(place) % 10;
            text.push(char::from(b'0' + digit as u8));
        }
        text.push(after);
    };
    digits(year.unsigned_abs(), 4, '-');
    digits(date.month(), 2, '-');
    digits(date.day(), 2, 'T');
    digits(time.hour(), 2, ':');
    digits(time.minute(), 2, ':');
    digits(time.second(), 2, '.');
    digits(nanos / 1_000_000, 3, 'Z');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_started_at_an_instant_reads_it_and_runs_on() {
        let start = DateTime::parse_from_rfc3339("2026-03-02T06:30:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let clock = Clock::starting_at(start);
        let read = clock.now();
        assert!(read >= start && read - start < Duration::seconds(5), "{read}");
        // Moved like any clock, clones with it.
        let clone = clock.clone();
        clock.advance(Duration::hours(2));
        assert!(clone.now() - start >= Duration::hours(2));
    }

    #[test]
    fn stamps_are_rfc3339_with_milliseconds_as_chrono_writes_them() {
        let chrono_way = |t: DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Millis, true);
        let mut t = DateTime::parse_from_rfc3339("1969-12-31T23:59:59.999Z")
            .unwrap()
            .with_timezone(&Utc);
        // Every field rolls over at least once, with odd milliseconds.
        for _ in 0..20_000 {
            assert_eq!(stamp(t), chrono_way(t));
            t += Duration::milliseconds(86_400_000 * 3 + 3_723_457);
        }
        for text in [
            "0000-01-01T00:00:00.000Z",
            "9999-12-31T23:59:59.999Z",
            "2026-03-29T01:00:00.5Z",
        ] {
            let t = DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc);
            assert_eq!(stamp(t), chrono_way(t));
        }
        use chrono::TimeZone;
        for year in [-1, 10_000] {
            let far = Utc.with_ymd_and_hms(year, 1, 1, 0, 0, 0).unwrap();
            assert_eq!(stamp(far), chrono_way(far));
        }
    }
}
