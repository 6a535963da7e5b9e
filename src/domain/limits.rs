//! As-needed limits: the most doses taken in one local day (`max_per_day`) and the least time
//! between two (`min_gap_minutes`). A dose over a limit is refused unless the person confirms
//! it; a dose is never lost for it.

use chrono::{DateTime, Duration, Utc};

use super::schedule::Rules;

/// One local day as instants: from its start to the next day's.
#[derive(Debug, Clone, Copy)]
pub struct Day {
    pub start: DateTime<Utc>,
    pub next: DateTime<Utc>,
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

    /// Whether one more dose taken at `at` keeps within the limits, given the doses taken
    /// around it (`day`: the local day `at` falls on).
    pub fn refuse(&self, taken: &[DateTime<Utc>], at: DateTime<Utc>, day: Day) -> Option<Refusal> {
        let gap = self.min_gap_minutes.map(|m| Duration::minutes(i64::from(m)));
        let too_close = gap.and_then(|gap| {
            taken
                .iter()
                .filter(|t| (at - **t).abs() < gap)
                .max()
                .map(|t| *t + gap)
        });
        let on_the_day = taken
            .iter()
            .filter(|t| **t >= day.start && **t < day.next)
            .count();
        if let Some(max) = self.max_per_day
            && on_the_day >= max as usize
        {
            let next = too_close.map_or(day.next, |t| t.max(day.next));
            return Some(Refusal::DailyMaximum { max, next });
        }
        too_close.map(|next| Refusal::TooSoon { next })
    }

    /// The doses (`taken`, in time order) that broke a limit when they were taken, each
    /// judged against the doses before it, with the limit it broke: those a person logged
    /// with "Take anyway". `day_of` gives the local day an instant falls on.
    pub fn over_limits(
        &self,
        taken: &[DateTime<Utc>],
        day_of: impl Fn(DateTime<Utc>) -> Day,
    ) -> Vec<(DateTime<Utc>, Refusal)> {
        if !self.has_limits() {
            return Vec::new();
        }
        // A gap is at most a day and so is a day: older doses cannot count.
        let reach = Duration::days(2);
        let mut oldest = 0;
        let mut over = Vec::new();
        for (i, at) in taken.iter().enumerate() {
            while taken[oldest] < *at - reach {
                oldest += 1;
            }
            if let Some(refusal) = self.refuse(&taken[oldest..i], *at, day_of(*at)) {
                over.push((*at, refusal));
            }
        }
        over
    }

    /// When the next dose is allowed after the doses taken so far today (`day`) and before;
    /// `None` without limits or when no dose holds one back. May lie in the past.
    pub fn next_allowed(&self, taken: &[DateTime<Utc>], day: Day) -> Option<DateTime<Utc>> {
        let after_gap = self
            .min_gap_minutes
            .zip(taken.iter().max())
            .map(|(m, last)| *last + Duration::minutes(i64::from(m)));
        let on_the_day = taken
            .iter()
            .filter(|t| **t >= day.start && **t < day.next)
            .count();
        let after_day = self
            .max_per_day
            .filter(|max| on_the_day >= *max as usize)
            .map(|_| day.next);
        after_gap.into_iter().chain(after_day).max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn day() -> Day {
        Day {
            start: at("2026-11-23T00:00:00Z"),
            next: at("2026-11-24T00:00:00Z"),
        }
    }

    #[test]
    fn a_dose_too_soon_or_over_the_days_maximum_is_refused_with_when_the_next_is_allowed() {
        let rules = Rules {
            max_per_day: Some(3),
            min_gap_minutes: Some(240),
            ..Rules::default()
        };
        let taken = [at("2026-11-23T06:00:00Z"), at("2026-11-23T10:30:00Z")];
        assert_eq!(
            rules.refuse(&taken, at("2026-11-23T12:00:00Z"), day()),
            Some(Refusal::TooSoon {
                next: at("2026-11-23T14:30:00Z")
            })
        );
        assert_eq!(rules.refuse(&taken, at("2026-11-23T14:30:00Z"), day()), None);
        // Back-dated between two doses: too close to the later one.
        assert!(rules.refuse(&taken, at("2026-11-23T08:00:00Z"), day()).is_some());
        let three = [taken[0], taken[1], at("2026-11-23T15:00:00Z")];
        assert_eq!(
            rules.refuse(&three, at("2026-11-23T22:00:00Z"), day()),
            Some(Refusal::DailyMaximum {
                max: 3,
                next: day().next
            })
        );
        assert_eq!(rules.next_allowed(&three, day()), Some(day().next));
        assert_eq!(
            rules.next_allowed(&taken, day()),
            Some(at("2026-11-23T14:30:00Z"))
        );
        // Yesterday's doses count for the gap, not for today's maximum.
        let yesterday = [at("2026-11-22T22:00:00Z")];
        assert_eq!(
            rules.refuse(&yesterday, at("2026-11-23T01:00:00Z"), day()),
            Some(Refusal::TooSoon {
                next: at("2026-11-23T02:00:00Z")
            })
        );
        assert_eq!(
            Rules::default().refuse(&three, at("2026-11-23T22:00:00Z"), day()),
            None
        );
        assert_eq!(Rules::default().next_allowed(&three, day()), None);
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
        let day_of = |t: DateTime<Utc>| {
            let start = t.date_naive().and_hms_opt(0, 0, 0).unwrap().and_utc();
            Day {
                start,
                next: start + Duration::days(1),
            }
        };
        assert_eq!(
            rules.over_limits(&taken, day_of),
            [
                (
                    taken[1],
                    Refusal::TooSoon {
                        next: at("2026-11-23T02:00:00Z")
                    }
                ),
                (
                    taken[3],
                    Refusal::DailyMaximum {
                        max: 2,
                        next: day().next
                    }
                ),
            ]
        );
        assert!(Rules::default().over_limits(&taken, day_of).is_empty());
    }
}
