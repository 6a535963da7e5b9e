//! When the dispatcher last finished a pass, for `/health`: a stuck or dead dispatcher stops
//! beating. Measured on the monotonic clock, never on the (movable) service clock.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::config::Settings;

pub struct Heartbeat {
    origin: Instant,
    /// Milliseconds from `origin` to the end of the last finished pass.
    last_ms: AtomicU64,
}

impl Heartbeat {
    /// Counts as a beat now, so that a server that just started is not reported stuck.
    pub fn new() -> Heartbeat {
        Heartbeat {
            origin: Instant::now(),
            last_ms: AtomicU64::new(0),
        }
    }

    /// A pass has ended.
    pub fn beat(&self) {
        let now = u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.fetch_max(now, Ordering::Relaxed);
    }

    /// How long ago the last pass ended.
    pub fn since_last(&self) -> Duration {
        let last = Duration::from_millis(self.last_ms.load(Ordering::Relaxed));
        self.origin.elapsed().saturating_sub(last)
    }
}

impl Default for Heartbeat {
    fn default() -> Self {
        Self::new()
    }
}

/// How long without a finished pass means stuck: `health.dispatcher_stale_seconds`, but
/// never less than two ticks, since a pass only starts once per tick.
pub fn stale_after(settings: &Settings) -> Duration {
    let configured = settings.health.dispatcher_stale_seconds.clamp(1, 86_400);
    let two_ticks = 2 * u64::from(settings.reminders.tick_seconds);
    Duration::from_secs(configured.max(two_ticks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_beat_resets_the_time_since_the_last_pass() {
        let heartbeat = Heartbeat::new();
        std::thread::sleep(Duration::from_millis(30));
        assert!(heartbeat.since_last() >= Duration::from_millis(30));
        heartbeat.beat();
        assert!(heartbeat.since_last() < Duration::from_millis(30));
    }

    #[test]
    fn stale_after_two_minutes_or_two_ticks_whichever_is_longer() {
        let mut settings = Settings::default();
        assert_eq!(stale_after(&settings), Duration::from_secs(120));
        settings.reminders.tick_seconds = 600;
        assert_eq!(stale_after(&settings), Duration::from_secs(1200));
        settings.reminders.tick_seconds = 1;
        settings.health.dispatcher_stale_seconds = 0;
        assert_eq!(stale_after(&settings), Duration::from_secs(2));
    }
}
