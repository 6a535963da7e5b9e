//! Today's doses and their state: each scheduled dose is answered by the history entry that
//! answered its reminder, else by an entry logged near it (the reminder engine's rule: the
//! latest dose already due within 12 hours before the log — or earlier today — else the next
//! one within the hour after it); unanswered doses are upcoming until their time, then due.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::dose::DoseStatus;

/// How far back a log answers a dose, and how far ahead (a dose logged a little early).
const ANSWERS_BACK_HOURS: i64 = 12;
const ANSWERS_AHEAD_HOURS: i64 = 1;

/// A dose the schedule puts at `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScheduledDose {
    pub medication_id: i64,
    pub at: DateTime<Utc>,
}

/// A planned reminder for a dose, and the history entry that answered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedReminder {
    pub id: i64,
    pub medication_id: i64,
    pub at: DateTime<Utc>,
    pub history_id: Option<i64>,
}

/// A history entry: a dose logged as taken, skipped or missed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Log {
    pub id: i64,
    pub medication_id: i64,
    pub status: DoseState,
    pub taken: DateTime<Utc>,
}

/// A dose of today as the day reads: answered by a log, else upcoming or due.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DoseState {
    Upcoming,
    Due,
    Taken,
    Skipped,
    Missed,
}

impl From<DoseStatus> for DoseState {
    fn from(status: DoseStatus) -> DoseState {
        match status {
            DoseStatus::Taken => DoseState::Taken,
            DoseStatus::Skipped => DoseState::Skipped,
            DoseStatus::Missed => DoseState::Missed,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DoseOfToday {
    pub medication_id: i64,
    pub at: DateTime<Utc>,
    pub status: DoseState,
    pub history_id: Option<i64>,
    /// When the entry that answered it was logged.
    pub logged_at: Option<DateTime<Utc>>,
    pub reminder_id: Option<i64>,
}

/// What the day's doses look like.
pub struct Day<'a> {
    /// The doses of the day before and of today (an early-morning log may answer last
    /// night's dose, as the reminder engine would), in any order.
    pub doses: &'a [ScheduledDose],
    /// Where today starts: earlier doses only take part in the matching.
    pub today_from: DateTime<Utc>,
    pub reminders: &'a [PlannedReminder],
    pub logs: &'a [Log],
    /// Entries that answered some reminder (of any day): they answer nothing else.
    pub answered_reminders: &'a HashSet<i64>,
    pub now: DateTime<Utc>,
}

/// Today's doses with their state, sorted by time (then medication id).
pub fn doses_of_today(day: &Day) -> Vec<DoseOfToday> {
    let mut doses: Vec<ScheduledDose> = day.doses.to_vec();
    doses.sort_by_key(|d| (d.at, d.medication_id));
    doses.dedup();
    let logs: HashMap<i64, &Log> = day.logs.iter().map(|l| (l.id, l)).collect();
    let reminder_of: HashMap<(i64, DateTime<Utc>), &PlannedReminder> = day
        .reminders
        .iter()
        .map(|r| ((r.medication_id, r.at), r))
        .collect();
    let mut answer: Vec<Option<&Log>> = doses
        .iter()
        .map(|d| {
            reminder_of
                .get(&(d.medication_id, d.at))
                .and_then(|r| r.history_id)
                .and_then(|h| logs.get(&h).copied())
        })
        .collect();
    let mut used: HashSet<i64> = answer.iter().flatten().map(|l| l.id).collect();
    let mut free_logs: Vec<&Log> = day
        .logs
        .iter()
        .filter(|l| !used.contains(&l.id) && !day.answered_reminders.contains(&l.id))
        .collect();
    free_logs.sort_by_key(|l| (l.taken, l.id));
    for log in free_logs {
        if used.contains(&log.id) {
            continue;
        }
        let open = |i: &usize| answer[*i].is_none() && doses[*i].medication_id == log.medication_id;
        // Twelve hours back, and never less than the whole of today: a dose taken late in
        // the day answers this morning's dose that had no reminder to link it.
        let back = (log.taken - Duration::hours(ANSWERS_BACK_HOURS)).min(day.today_from);
        let ahead = log.taken + Duration::hours(ANSWERS_AHEAD_HOURS);
        let latest_due = (0..doses.len())
            .filter(open)
            .filter(|i| doses[*i].at >= back && doses[*i].at <= log.taken)
            .max_by_key(|i| doses[*i].at);
        let next_coming = || {
            (0..doses.len())
                .filter(open)
                .filter(|i| doses[*i].at > log.taken && doses[*i].at <= ahead)
                .min_by_key(|i| doses[*i].at)
        };
        if let Some(i) = latest_due.or_else(next_coming) {
            answer[i] = Some(log);
            used.insert(log.id);
        }
    }
    doses
        .iter()
        .zip(answer)
        .filter(|(d, _)| d.at >= day.today_from)
        .map(|(d, log)| DoseOfToday {
            medication_id: d.medication_id,
            at: d.at,
            status: match log {
                Some(l) => l.status,
                None if d.at > day.now => DoseState::Upcoming,
                None => DoseState::Due,
            },
            history_id: log.map(|l| l.id),
            logged_at: log.map(|l| l.taken),
            reminder_id: reminder_of.get(&(d.medication_id, d.at)).map(|r| r.id),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn dose(medication_id: i64, s: &str) -> ScheduledDose {
        ScheduledDose {
            medication_id,
            at: at(s),
        }
    }

    fn log(id: i64, medication_id: i64, status: DoseState, s: &str) -> Log {
        Log {
            id,
            medication_id,
            status,
            taken: at(s),
        }
    }

    fn states(list: &[DoseOfToday]) -> Vec<(i64, String, DoseState, Option<i64>)> {
        list.iter()
            .map(|d| {
                (
                    d.medication_id,
                    d.at.format("%H:%M").to_string(),
                    d.status,
                    d.history_id,
                )
            })
            .collect()
    }

    const TODAY: &str = "2026-03-02T00:00:00Z";

    #[test]
    fn unanswered_doses_are_upcoming_then_due() {
        let doses = [dose(1, "2026-03-02T20:00:00Z"), dose(1, "2026-03-02T08:00:00Z")];
        let none = HashSet::new();
        let day = Day {
            doses: &doses,
            today_from: at(TODAY),
            reminders: &[],
            logs: &[],
            answered_reminders: &none,
            now: at("2026-03-02T12:00:00Z"),
        };
        assert_eq!(
            states(&doses_of_today(&day)),
            [
                (1, "08:00".into(), DoseState::Due, None),
                (1, "20:00".into(), DoseState::Upcoming, None)
            ]
        );
    }

    #[test]
    fn a_reminder_answer_wins_and_carries_its_id() {
        let doses = [dose(1, "2026-03-02T08:00:00Z"), dose(1, "2026-03-02T20:00:00Z")];
        let reminders = [
            PlannedReminder {
                id: 50,
                medication_id: 1,
                at: at("2026-03-02T08:00:00Z"),
                history_id: Some(7),
            },
            PlannedReminder {
                id: 51,
                medication_id: 1,
                at: at("2026-03-02T20:00:00Z"),
                history_id: None,
            },
        ];
        // Logged late, at 19:55, through the 08:00 reminder's link: it answers 08:00, not 20:00.
        let logs = [log(7, 1, DoseState::Skipped, "2026-03-02T19:55:00Z")];
        let answered = HashSet::from([7]);
        let day = Day {
            doses: &doses,
            today_from: at(TODAY),
            reminders: &reminders,
            logs: &logs,
            answered_reminders: &answered,
            now: at("2026-03-02T20:30:00Z"),
        };
        let list = doses_of_today(&day);
        assert_eq!(
            states(&list),
            [
                (1, "08:00".into(), DoseState::Skipped, Some(7)),
                (1, "20:00".into(), DoseState::Due, None)
            ]
        );
        assert_eq!(
            list.iter().map(|d| d.reminder_id).collect::<Vec<_>>(),
            [Some(50), Some(51)]
        );
    }

    #[test]
    fn a_free_log_answers_the_latest_due_dose_else_the_next_within_the_hour() {
        let doses = [
            dose(1, "2026-03-01T21:00:00Z"),
            dose(1, "2026-03-02T08:00:00Z"),
            dose(1, "2026-03-02T14:00:00Z"),
            dose(1, "2026-03-02T21:00:00Z"),
            dose(2, "2026-03-02T08:00:00Z"),
        ];
        let logs = [
            // Last night's dose, logged after midnight: it stays last night's.
            log(1, 1, DoseState::Taken, "2026-03-01T23:30:00Z"),
            // Half an hour early for 08:00.
            log(2, 1, DoseState::Taken, "2026-03-02T07:30:00Z"),
            // Late for 14:00.
            log(3, 1, DoseState::Missed, "2026-03-02T16:00:00Z"),
            // Another medication's log never answers this one's dose.
            log(4, 2, DoseState::Taken, "2026-03-02T13:59:00Z"),
        ];
        let none = HashSet::new();
        let day = Day {
            doses: &doses,
            today_from: at(TODAY),
            reminders: &[],
            logs: &logs,
            answered_reminders: &none,
            now: at("2026-03-02T17:00:00Z"),
        };
        assert_eq!(
            states(&doses_of_today(&day)),
            [
                (1, "08:00".into(), DoseState::Taken, Some(2)),
                (2, "08:00".into(), DoseState::Taken, Some(4)),
                (1, "14:00".into(), DoseState::Missed, Some(3)),
                (1, "21:00".into(), DoseState::Upcoming, None),
            ]
        );
    }

    #[test]
    fn a_log_answers_one_dose_and_logs_of_other_reminders_answer_none() {
        let doses = [dose(1, "2026-03-02T08:00:00Z"), dose(1, "2026-03-02T08:30:00Z")];
        let logs = [
            log(1, 1, DoseState::Taken, "2026-03-02T08:40:00Z"),
            log(2, 1, DoseState::Taken, "2026-03-02T08:45:00Z"),
        ];
        // Entry 2 answered a one-off reminder elsewhere: it stays with that one.
        let answered = HashSet::from([2]);
        let day = Day {
            doses: &doses,
            today_from: at(TODAY),
            reminders: &[],
            logs: &logs,
            answered_reminders: &answered,
            now: at("2026-03-02T09:00:00Z"),
        };
        assert_eq!(
            states(&doses_of_today(&day)),
            [
                (1, "08:00".into(), DoseState::Due, None),
                (1, "08:30".into(), DoseState::Taken, Some(1)),
            ]
        );
        // Nothing within 12 hours before or an hour after: no answer.
        let far = [log(9, 1, DoseState::Taken, "2026-03-02T06:00:00Z")];
        let none = HashSet::new();
        let day = Day {
            logs: &far,
            answered_reminders: &none,
            ..day
        };
        assert!(doses_of_today(&day).iter().all(|d| d.history_id.is_none()));
    }

    #[test]
    fn a_late_log_answers_a_dose_from_earlier_today() {
        // Midnight's dose had no reminder (the medication was added later); it is logged
        // at 13:00, more than 12 hours on, and is still today's answer.
        let doses = [dose(1, "2026-03-02T00:00:00Z"), dose(1, "2026-03-02T23:59:00Z")];
        let logs = [log(5, 1, DoseState::Taken, "2026-03-02T13:00:00Z")];
        let none = HashSet::new();
        let day = Day {
            doses: &doses,
            today_from: at(TODAY),
            reminders: &[],
            logs: &logs,
            answered_reminders: &none,
            now: at("2026-03-02T13:00:05Z"),
        };
        assert_eq!(
            states(&doses_of_today(&day)),
            [
                (1, "00:00".into(), DoseState::Taken, Some(5)),
                (1, "23:59".into(), DoseState::Upcoming, None),
            ]
        );
    }
}
