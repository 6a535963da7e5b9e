//! Services: the rules that more than one edge needs (HTTP handlers, the CLI, background
//! jobs). They take a connection or paths, never a request, and answer with their own
//! error type that each edge turns into its own kind of answer.

pub mod access;
pub mod accounts;
pub mod api_tokens;
pub mod backup;
pub mod batches;
pub mod calendar;
pub mod channels;
pub mod doses;
pub mod email;
pub mod export;
pub mod fhir;
pub mod health;
pub mod home_assistant;
pub mod import;
pub mod import_sources;
pub mod jobs;
pub mod medications;
pub mod messages;
pub mod notifications;
pub mod oidc;
pub mod passkeys;
pub mod people;
pub mod planner;
pub mod prescriptions;
pub mod push_subscriptions;
pub mod reminders;
pub mod report;
pub mod retention;
pub mod rounds;
pub mod sessions;
pub mod stock;
pub mod stock_notices;
pub mod user_backups;
pub mod user_settings;

pub mod error;

#[allow(unused_imports)] // the helpers every service module reaches for
pub use error::{
    ErrorCode, Problem, ServiceError, ServiceResult, conflict, invalid, not_found, rejected, unauthorized,
};
