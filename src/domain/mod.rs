//! Pure rules with no I/O: quantities, units, stock and schedules. Tested densely.

pub mod api_schema;
pub mod dose;
pub mod escalation;
pub mod limits;
pub mod medication;
pub mod notification;
pub mod planner;
pub mod quantity;
pub mod schedule;
pub mod stock;
pub mod today;
pub mod units;
pub mod words;
