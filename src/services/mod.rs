//! Services: the rules that more than one edge needs (HTTP handlers, the CLI, background
//! jobs). They take a connection or paths, never a request, and answer with their own
//! error type that each edge turns into its own kind of answer.

pub mod backup;
pub mod export;
pub mod import;
pub mod jobs;
pub mod report;
pub mod retention;
pub mod user_backups;
pub mod user_settings;

use std::fmt;

/// What went wrong in a service: the person's input (told to them as it is) or the
/// machinery (logged; the person sees a generic failure).
#[derive(Debug)]
pub enum ServiceError {
    /// Input that cannot be used; the message says what to change.
    Invalid(String),
    Database(rusqlite::Error),
    Io(std::io::Error),
}

impl fmt::Display for ServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServiceError::Invalid(message) => f.write_str(message),
            ServiceError::Database(e) => write!(f, "database error: {e}"),
            ServiceError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ServiceError {}

impl From<rusqlite::Error> for ServiceError {
    fn from(e: rusqlite::Error) -> Self {
        ServiceError::Database(e)
    }
}

impl From<std::io::Error> for ServiceError {
    fn from(e: std::io::Error) -> Self {
        ServiceError::Io(e)
    }
}

impl From<crate::db::DbError> for ServiceError {
    fn from(e: crate::db::DbError) -> Self {
        match e {
            crate::db::DbError::Sqlite(e) => ServiceError::Database(e),
            crate::db::DbError::Task(e) => ServiceError::Io(std::io::Error::other(e)),
        }
    }
}

pub fn invalid(message: impl Into<String>) -> ServiceError {
    ServiceError::Invalid(message.into())
}

pub type ServiceResult<T> = Result<T, ServiceError>;
