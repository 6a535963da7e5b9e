//! As-needed limits: the most doses taken in any 24 hours (`max_per_day`, as medicine labels
//! say "no more than 3 in 24 hours") and the least time between two (`min_gap_minutes`). A
//! dose over a limit is refused unless the person confirms it; a dose is never lost for it.

use chrono::{DateTime, Duration, Utc};

use super::schedule::Rules;

/// The span `max_per_day` counts over: a rolling 24 hours, not the calendar day.
pub fn window() -> Duration {
    Duration::hours(24)
}

/// Why one more dose is refused, and when one would be allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    TooSoon { next: DateTime<Utc> },
    DailyMaximum { max: u32, next: DateTime<Utc> },
}

impl Rules {
    pub fn has_limits(&self) -> bool {
        self.max_per_day.is_some() || self.min_gap_minutes.is_some()
    }

    /// How far either side of a dose the doses that can hold it back lie.
    pub fn reach(&self) -> Duration {
        let gap = Duration::minutes(i64::from(self.min_gap_minutes.unwrap_or(0)));
        gap.max(window())
    }

    /// Whether one more dose taken at `at` keeps within the limits, given the doses taken
    /// around it (at least those within `reach` of `at`).
    pub fn refuse(&self, taken: &[DateTime<Utc>], at: DateTime<Utc>) -> Option<Refusal> {
        let gap = self.min_gap_minutes.map(|m| Duration::minutes(i64::from(m)));
        let too_close = gap.and_then(|gap| {
            taken
                .iter()
                .filter(|t| (at - **t).abs() < gap)
                .max()
                .map(|t| *t + gap)
        });
        if let Some(max) = self.max_per_day
            && most_in_a_window_holding(taken, at) >= max as usize
        {
            // When the window frees a place after the latest dose (a back-dated dose between
            // others has no better answer), and never before the gap allows.
            let frees = window_frees(max, taken)
                .or_else(|| taken.iter().max().map(|last| *last + window()))
                .unwrap_or(at + window());
            let next = too_close.map_or(frees, |t| t.max(frees));
            return Some(Refusal::DailyMaximum { max, next });
        }
        too_close.map(|next| Refusal::TooSoon { next })
    }

    /// The doses (`taken`, in time order) that broke a limit when they were taken, each
    /// judged against the doses before it, with the limit it broke: those a person logged
    /// with "Take anyway".
    pub fn over_limits(&self, taken: &[DateTime<Utc>]) -> Vec<(DateTime<Utc>, Refusal)> {
        if !self.has_limits() {
            return Vec::new();
        }
        let reach = self.reach();
        let mut oldest = 0;
        let mut over = Vec::new();
        for (i, at) in taken.iter().enumerate() {
            while taken[oldest] < *at - reach {
                oldest += 1;
            }
            if let Some(refusal) = self.refuse(&taken[oldest..i], *at) {
                over.push((*at, refusal));
            }
        }
        over
    }

    /// When the next dose is allowed after the doses taken so far: the last one plus the
    /// gap, or when the oldest of the `max_per_day` latest doses leaves the 24 hours,
    /// whichever is later; `None` without limits or when no dose holds one back. May lie
    /// in the past.
    pub fn next_allowed(&self, taken: &[DateTime<Utc>]) -> Option<DateTime<Utc>> {
        let after_gap = self
            .min_gap_minutes
            .zip(taken.iter().max())
            .map(|(m, last)| *last + Duration::minutes(i64::from(m)));
        let after_window = self.max_per_day.and_then(|max| window_frees(max, taken));
        after_gap.into_iter().chain(after_window).max()
    }
}

/// When the `max`-th latest dose leaves the 24 hours (so fewer than `max` remain in them);
/// `None` with fewer than `max` doses.
fn window_frees(max: u32, taken: &[DateTime<Utc>]) -> Option<DateTime<Utc>> {
    let mut latest_first = taken.to_vec();
    latest_first.sort_unstable_by(|a, b| b.cmp(a));
    let oldest_counted = latest_first.get((max as usize).checked_sub(1)?)?;
    Some(*oldest_counted + window())
}

/// The most doses that share one 24 hours with a dose at `at`. Any 24 hours holding `at` can
/// slide later until it starts at `at` or at a dose before it without losing a dose, so
/// only those starts need counting.
fn most_in_a_window_holding(taken: &[DateTime<Utc>], at: DateTime<Utc>) -> usize {
    let starts = taken
        .iter()
        .copied()
        .filter(|t| *t <= at && at - *t < window())
        .chain([at]);
    starts
        .map(|start| {
            taken
                .iter()
                .filter(|t| **t >= start && **t < start + window())
                .count()
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn three_in_24_hours_four_apart() -> Rules {
        Rules {
            max_per_day: Some(3),
            min_gap_minutes: Some(240),
            ..Rules::default()
        }
    }

    #[test]
    fn a_dose_too_soon_is_refused_with_when_the_next_is_allowed() {
        let rules = three_in_24_hours_four_apart();
        let taken = [at("2026-11-23T06:00:00Z"), at("2026-11-23T10:30:00Z")];
        assert_eq!(
            rules.refuse(&taken, at("2026-11-23T12:00:00Z")),
            Some(Refusal::TooSoon {
                next: at("2026-11-23T14:30:00Z")
            })
        );
        assert_eq!(rules.refuse(&taken, at("2026-11-23T14:30:00Z")), None);
        // Back-dated between two doses: too close to the later one.
        assert!(rules.refuse(&taken, at("2026-11-23T08:00:00Z")).is_some());
        assert_eq!(rules.next_allowed(&taken), Some(at("2026-11-23T14:30:00Z")));
        assert_eq!(Rules::default().refuse(&taken, at("2026-11-23T12:00:00Z")), None);
        assert_eq!(Rules::default().next_allowed(&taken), None);
    }

    #[test]
    fn the_maximum_counts_the_last_24_hours_across_midnight() {
        let rules = three_in_24_hours_four_apart();
        let three = [
            at("2026-11-23T06:00:00Z"),
            at("2026-11-23T10:30:00Z"),
            at("2026-11-23T15:00:00Z"),
        ];
        // The next dose waits until the oldest of the three is 24 hours old, not midnight.
        let full = Refusal::DailyMaximum {
            max: 3,
            next: at("2026-11-24T06:00:00Z"),
        };
        assert_eq!(rules.refuse(&three, at("2026-11-23T22:00:00Z")), Some(full));
        assert_eq!(rules.refuse(&three, at("2026-11-24T01:00:00Z")), Some(full));
        assert_eq!(rules.refuse(&three, at("2026-11-24T05:59:00Z")), Some(full));
        assert_eq!(rules.refuse(&three, at("2026-11-24T06:00:00Z")), None);
        assert_eq!(rules.next_allowed(&three), Some(at("2026-11-24T06:00:00Z")));
        // Doses of yesterday evening count today: three within 24 hours across midnight.
        let late = [
            at("2026-11-22T20:00:00Z"),
            at("2026-11-23T00:30:00Z"),
            at("2026-11-23T05:00:00Z"),
        ];
        assert_eq!(
            rules.refuse(&late, at("2026-11-23T12:00:00Z")),
            Some(Refusal::DailyMaximum {
                max: 3,
                next: at("2026-11-23T20:00:00Z")
            })
        );
    }

    #[test]
    fn the_next_allowed_is_the_later_of_the_gap_and_the_window() {
        let rules = Rules {
            max_per_day: Some(2),
            min_gap_minutes: Some(600),
            ..Rules::default()
        };
        let two = [at("2026-11-23T08:00:00Z"), at("2026-11-23T20:00:00Z")];
        assert_eq!(rules.next_allowed(&two), Some(at("2026-11-24T08:00:00Z")));
        // Taken anyway beyond the maximum: the window frees when the second latest leaves it.
        let four = [
            at("2026-11-23T08:00:00Z"),
            at("2026-11-23T09:00:00Z"),
            at("2026-11-23T20:00:00Z"),
            at("2026-11-23T23:00:00Z"),
        ];
        assert_eq!(rules.next_allowed(&four), Some(at("2026-11-24T20:00:00Z")));
        let gap_only = Rules {
            max_per_day: Some(2),
            min_gap_minutes: Some(1800),
            ..Rules::default()
        };
        assert_eq!(gap_only.next_allowed(&two), Some(at("2026-11-25T02:00:00Z")));
    }

    #[test]
    fn a_back_dated_dose_is_refused_when_any_24_hours_would_hold_too_many() {
        let rules = Rules {
            max_per_day: Some(2),
            ..Rules::default()
        };
        let taken = [at("2026-11-23T08:00:00Z"), at("2026-11-24T06:00:00Z")];
        // Between the two, 22 hours apart: the 24 hours from 08:00 would hold three.
        assert!(matches!(
            rules.refuse(&taken, at("2026-11-23T20:00:00Z")),
            Some(Refusal::DailyMaximum { max: 2, .. })
        ));
        // Before the first by more than the window's room: no 24 hours holds three.
        assert_eq!(rules.refuse(&taken, at("2026-11-23T06:00:00Z")), None);
    }

    #[test]
    fn doses_taken_over_a_limit_are_found_in_the_order_they_were_taken() {
        let rules = Rules {
            max_per_day: Some(2),
            min_gap_minutes: Some(240),
            ..Rules::default()
        };
        let taken = [
            at("2026-11-22T22:00:00Z"),
            at("2026-11-23T01:00:00Z"),
            at("2026-11-23T08:00:00Z"),
            at("2026-11-23T20:00:00Z"),
        ];
        // Under the rolling 24 hours, the third and the fourth each have two doses within
        // the 24 hours before them.
        assert_eq!(
            rules.over_limits(&taken),
            [
                (
                    taken[1],
                    Refusal::TooSoon {
                        next: at("2026-11-23T02:00:00Z")
                    }
                ),
                (
                    taken[2],
                    Refusal::DailyMaximum {
                        max: 2,
                        next: at("2026-11-23T22:00:00Z")
                    }
                ),
                (
                    taken[3],
                    Refusal::DailyMaximum {
                        max: 2,
                        next: at("2026-11-24T01:00:00Z")
                    }
                ),
            ]
        );
        assert!(Rules::default().over_limits(&taken).is_empty());
    }
}
