//! All SQL lives here, one file per resource. Functions take a connection (or transaction)
//! and never decide policy.

pub mod users;
