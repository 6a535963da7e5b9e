//! All SQL lives here, one file per resource. Functions take a connection (or transaction)
//! and never decide policy.

pub mod deliveries;
pub mod history;
pub mod medications;
pub mod notify_prefs;
pub mod outbox;
pub mod push_subscriptions;
pub mod reminders;
pub mod settings;
pub mod users;
