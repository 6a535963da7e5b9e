//! The reminder engine. The planner turns schedules into reminders; delivery (the
//! dispatcher, Web Push, e-mail) arrives with the rest of the reminders work.

pub mod planner;
