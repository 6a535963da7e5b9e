//! Time as the server sees it, and instants as the database stores them: UTC, RFC 3339 with
//! milliseconds and a `Z`, fixed width so that text order is time order.
//!
//! Services take the time as a parameter (`Clock::now()` at the edge) so that tests can move
//! a test clock instead of waiting.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Duration, SecondsFormat, Utc};

/// The server's clock: the system's, moved forward by an offset that only a test clock
/// ever changes. Cheap to clone; clones share the offset.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    offset_ms: Arc<AtomicI64>,
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

    /// Moves this clock (and its clones) forward; for test clocks.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub fn advance(&self, by: Duration) {
        self.offset_ms.fetch_add(by.num_milliseconds(), Ordering::Relaxed);
    }
}

pub fn now() -> DateTime<Utc> {
    Utc::now()
}

pub fn stamp(instant: DateTime<Utc>) -> String {
    instant.to_rfc3339_opts(SecondsFormat::Millis, true)
}
