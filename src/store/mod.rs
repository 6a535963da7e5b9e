//! All SQL lives here, one file per resource. Functions take a connection (or transaction)
//! and never decide policy.

pub mod calendar;
pub mod carers;
pub mod channels;
pub mod deliveries;
pub mod escalations;
pub mod health;
pub mod history;
pub mod medications;
pub mod notify_prefs;
pub mod outbox;
pub mod people;
pub mod push_subscriptions;
pub mod reminders;
pub mod sessions;
pub mod settings;
pub mod snapshot_files;
pub mod users;

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
