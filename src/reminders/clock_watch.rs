//! Notices the system clock being set: a Raspberry Pi boots with the time it saved at
//! shutdown and jumps forward when NTP answers; a bad RTC or a hand-set clock jumps back.
//! Each dispatcher pass compares how far the wall clock moved since the last pass with how
//! much time really passed (the monotonic clock, which setting the time does not move).
//! A jump of more than `JUMP` either way is logged by the engine and shown by `/health`
//! (`checks.clock`, status "degraded") for `SHOWN_FOR`.

use std::sync::Mutex;
use std::time::{Duration as StdDuration, Instant};

use chrono::{DateTime, Duration, SecondsFormat, Utc};

/// Smaller differences are drift, a suspend's rounding or NTP's slewing: no jump.
pub const JUMP_MINUTES: i64 = 5;
/// How long `/health` shows a jump.
pub const SHOWN_FOR: StdDuration = StdDuration::from_secs(60 * 60);

#[derive(Debug, Clone, Copy)]
struct Seen {
    /// How far the wall clock moved beyond the time that passed (negative: back).
    by: Duration,
    /// The wall clock's time after the jump.
    at: DateTime<Utc>,
    noticed: Instant,
}

#[derive(Default)]
struct State {
    last: Option<(DateTime<Utc>, Instant)>,
    jump: Option<Seen>,
}

#[derive(Default)]
pub struct ClockWatch {
    state: Mutex<State>,
}

impl ClockWatch {
    /// Looks at the wall clock (`wall`, the system's time now); the jump since the last look
    /// when it is more than `JUMP_MINUTES` either way.
    pub fn look(&self, wall: DateTime<Utc>) -> Option<Duration> {
        self.look_at(wall, Instant::now())
    }

    fn look_at(&self, wall: DateTime<Utc>, now: Instant) -> Option<Duration> {
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let last = state.last.replace((wall, now));
        let (last_wall, last_instant) = last?;
        let passed = Duration::from_std(now.saturating_duration_since(last_instant)).ok()?;
        let by = (wall - last_wall) - passed;
        if by.num_minutes().abs() < JUMP_MINUTES {
            return None;
        }
        state.jump = Some(Seen {
            by,
            at: wall,
            noticed: now,
        });
        Some(by)
    }

    /// For `/health`: what the last jump was, while it is less than `SHOWN_FOR` ago.
    pub fn recent_jump(&self) -> Option<String> {
        self.recent_jump_at(Instant::now())
    }

    fn recent_jump_at(&self, now: Instant) -> Option<String> {
        let state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let seen = state.jump?;
        (now.saturating_duration_since(seen.noticed) < SHOWN_FOR).then(|| describe(seen.by, seen.at))
    }
}

/// "the system clock jumped back 2 h 5 min (now 2026-03-02T07:00:00Z)".
pub fn describe(by: Duration, at: DateTime<Utc>) -> String {
    let way = if by < Duration::zero() { "back" } else { "forward" };
    // To the nearest minute: the two readings compared are a few milliseconds apart.
    let minutes = (by.num_seconds().unsigned_abs() + 30) / 60;
    let size = match (minutes / 60, minutes % 60) {
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    };
    format!(
        "the system clock jumped {way} {size} (now {})",
        at.to_rfc3339_opts(SecondsFormat::Secs, true)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn a_wall_clock_that_moves_more_than_time_passed_is_a_jump_either_way() {
        let watch = ClockWatch::default();
        let start = Instant::now();
        assert_eq!(
            watch.look_at(at("2026-03-02T08:00:00Z"), start),
            None,
            "nothing to compare yet"
        );
        // Thirty seconds pass and the wall clock says so, give or take a few minutes of drift.
        let later = start + StdDuration::from_secs(30);
        assert_eq!(watch.look_at(at("2026-03-02T08:04:00Z"), later), None);
        assert_eq!(watch.recent_jump_at(later), None);
        // NTP answers: the clock is set 2 h 5 min ahead within the next 30 s.
        let later = later + StdDuration::from_secs(30);
        let by = watch.look_at(at("2026-03-02T10:09:30Z"), later).unwrap();
        assert_eq!(by, Duration::minutes(125));
        assert_eq!(
            watch.recent_jump_at(later).as_deref(),
            Some("the system clock jumped forward 2 h 5 min (now 2026-03-02T10:09:30Z)")
        );
        // And back by 3 h.
        let later = later + StdDuration::from_secs(30);
        let by = watch.look_at(at("2026-03-02T07:10:00Z"), later).unwrap();
        assert_eq!(by, Duration::minutes(-180));
        assert_eq!(
            watch.recent_jump_at(later).as_deref(),
            Some("the system clock jumped back 3 h (now 2026-03-02T07:10:00Z)")
        );
        // An hour on, /health says nothing of it any more.
        assert!(
            watch
                .recent_jump_at(later + SHOWN_FOR - StdDuration::from_secs(1))
                .is_some()
        );
        assert_eq!(watch.recent_jump_at(later + SHOWN_FOR), None);
    }
}
