//! All SQL lives here, one file per resource. Functions take a connection (or transaction)
//! and never decide policy.

pub mod deliveries;
pub mod health;
pub mod history;
pub mod medications;
pub mod notify_prefs;
pub mod push_subscriptions;
pub mod reminders;
pub mod sessions;
pub mod settings;
pub mod users;
