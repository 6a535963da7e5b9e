//! When doses are due: a medication's schedule expanded into instants over a window of
//! days, in the user's time zone (DESIGN §4). A wall-clock time that does not exist on a
//! day (spring forward) moves to the first valid instant after it; a time that happens
//! twice (fall back) fires once, at its first occurrence.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc, Weekday};
use chrono_tz::Tz;

use super::quantity::Quantity;
#[cfg(test)]
use super::schedule::Step;
use super::schedule::{self, ClockKind, Frequency, Rules};

/// What the planner needs to know about a medication's schedule.
pub struct Plan<'a> {
    pub frequency: Frequency,
    pub times: &'a [NaiveTime],
    pub weekdays: &'a [Weekday],
    pub start_date: NaiveDate,
    pub default_time: NaiveTime,
    pub tz: Tz,
    pub rules: &'a Rules,
}

/// The instant a local wall-clock time means in `tz`.
pub fn resolve(tz: Tz, local: NaiveDateTime) -> DateTime<Utc> {
    if let Some(first) = tz.from_local_datetime(&local).earliest() {
        return first.with_timezone(&Utc);
    }
    // In a gap: the first minute after it that exists (gaps last at most a few hours).
    (1..=24 * 60)
        .map(|minutes| local + Duration::minutes(minutes))
        .find_map(|later| tz.from_local_datetime(&later).earliest())
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_else(|| local.and_utc())
}

impl Plan<'_> {
    /// Whether day `day` of the schedule (0 is its start) is within its end date, steps,
    /// every-N-days and cycle.
    fn day_counts(&self, day: i64) -> bool {
        let r = self.rules;
        if day < 0 {
            return false;
        }
        if let Some(end) = r.end_date
            && day > (end - self.start_date).num_days()
        {
            return false;
        }
        if !r.steps.is_empty() && day >= r.steps_days() {
            return false;
        }
        if let Some(n) = r.every_days
            && day % i64::from(n.max(1)) != 0
        {
            return false;
        }
        if let (Some(on), Some(off)) = (r.cycle_on_days, r.cycle_off_days)
            && day % i64::from((on + off).max(1)) >= i64::from(on)
        {
            return false;
        }
        true
    }

    /// Whether the schedule has doses on local `date` (wall clock).
    fn due_on(&self, weekdays: &[Weekday], date: NaiveDate) -> bool {
        if !self.day_counts((date - self.start_date).num_days()) {
            return false;
        }
        match self.frequency {
            Frequency::Daily | Frequency::TwiceDaily => true,
            Frequency::Weekly => weekdays.contains(&date.weekday()),
            Frequency::Monthly => {
                schedule::monthly_day(self.start_date, date.year(), date.month()) == Some(date)
            }
            Frequency::AsNeeded => false,
        }
    }

    /// The first dose on the start date as an instant in the plan's zone: where an elapsed
    /// schedule counts from.
    pub fn first_dose(&self) -> Option<DateTime<Utc>> {
        let times = schedule::effective_times(self.frequency, self.times, self.default_time);
        times
            .first()
            .map(|t| resolve(self.tz, self.start_date.and_time(*t)))
    }

    /// An elapsed schedule's doses from `from` to `to`: fixed hours after its anchor
    /// (every `interval_hours`, else every 24 hours at each time's distance from the first),
    /// its days counted in 24-hour periods from the anchor.
    fn elapsed(&self, anchor: DateTime<Utc>, from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<DateTime<Utc>> {
        let times = schedule::effective_times(self.frequency, self.times, self.default_time);
        let Some(first) = times.first() else {
            return Vec::new();
        };
        let (period, offsets): (Duration, Vec<Duration>) = match self.rules.interval_hours {
            Some(hours) => (Duration::hours(i64::from(hours.max(1))), vec![Duration::zero()]),
            None => (Duration::days(1), times.iter().map(|t| *t - *first).collect()),
        };
        let mut instants = Vec::new();
        for offset in offsets {
            let base = anchor + offset;
            let skipped = ((from - base).num_seconds() / period.num_seconds()).max(0);
            let mut k = skipped;
            while let Some(instant) = i32::try_from(k)
                .ok()
                .and_then(|k| period.checked_mul(k))
                .map(|d| base + d)
                .filter(|instant| *instant < to)
            {
                let day = (instant - anchor).num_seconds().div_euclid(86_400);
                if instant >= from && self.day_counts(day) {
                    instants.push(instant);
                }
                k += 1;
            }
        }
        instants
    }
}

/// Every dose instant after `after` and before the end of local day `first_day + days - 1`.
pub fn occurrences(plan: &Plan, first_day: NaiveDate, days: u32, after: DateTime<Utc>) -> Vec<DateTime<Utc>> {
    if plan.frequency == Frequency::AsNeeded {
        return Vec::new();
    }
    let mut instants: Vec<DateTime<Utc>> = if plan.rules.clock() == ClockKind::Elapsed {
        let start = |date: NaiveDate| resolve(plan.tz, date.and_time(NaiveTime::MIN));
        let Some(anchor) = plan.rules.anchor.or_else(|| plan.first_dose()) else {
            return Vec::new();
        };
        let last = first_day + Duration::days(i64::from(days));
        plan.elapsed(anchor, start(first_day), start(last))
    } else {
        let times = schedule::day_times(
            plan.frequency,
            plan.times,
            plan.default_time,
            plan.rules.interval_hours,
        );
        let weekdays = schedule::effective_weekdays(plan.weekdays, plan.start_date);
        (0..days)
            .filter_map(|offset| first_day.checked_add_signed(Duration::days(i64::from(offset))))
            .filter(|date| plan.due_on(&weekdays, *date))
            .flat_map(|date| {
                times
                    .iter()
                    .map(move |time| resolve(plan.tz, date.and_time(*time)))
            })
            .collect()
    };
    instants.retain(|instant| *instant > after);
    instants.sort();
    // Two wall-clock times can land on one instant (a time in a gap moved forward onto
    // another): one dose, one reminder.
    instants.dedup();
    instants
}

/// The quantity of the dose at `instant` under a tapering plan (`None` without steps).
pub fn step_quantity(plan: &Plan, instant: DateTime<Utc>) -> Option<Quantity> {
    if plan.rules.steps.is_empty() {
        return None;
    }
    let day = match (
        plan.rules.clock(),
        plan.rules.anchor.or_else(|| plan.first_dose()),
    ) {
        (ClockKind::Elapsed, Some(anchor)) => (instant - anchor).num_seconds().div_euclid(86_400),
        _ => (instant.with_timezone(&plan.tz).date_naive() - plan.start_date).num_days(),
    };
    plan.rules.step_on(day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> NaiveTime {
        NaiveTime::parse_from_str(s, "%H:%M").unwrap()
    }

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    static NO_RULES: Rules = Rules {
        interval_hours: None,
        every_days: None,
        cycle_on_days: None,
        cycle_off_days: None,
        end_date: None,
        steps: Vec::new(),
        max_per_day: None,
        min_gap_minutes: None,
        clock: None,
        grace_minutes: None,
        repeat_every_minutes: None,
        repeat_times: None,
        anchor: None,
    };

    fn plan<'a>(frequency: Frequency, times: &'a [NaiveTime], tz: Tz) -> Plan<'a> {
        Plan {
            frequency,
            times,
            weekdays: &[],
            start_date: d("2026-01-01"),
            default_time: t("09:00"),
            tz,
            rules: &NO_RULES,
        }
    }

    fn all(plan: &Plan, first: &str, days: u32) -> Vec<String> {
        occurrences(plan, d(first), days, utc("2000-01-01T00:00:00Z"))
            .iter()
            .map(|i| i.to_rfc3339())
            .collect()
    }

    #[test]
    fn daily_at_nine_in_berlin_across_spring_forward() {
        // 2026-03-29: clocks go from 02:00 to 03:00 CET → CEST.
        let p = plan(Frequency::Daily, &[], chrono_tz::Europe::Berlin);
        assert_eq!(
            all(&p, "2026-03-28", 3),
            [
                "2026-03-28T08:00:00+00:00",
                "2026-03-29T07:00:00+00:00",
                "2026-03-30T07:00:00+00:00"
            ]
        );
    }

    #[test]
    fn a_time_in_the_gap_moves_to_the_first_valid_instant() {
        let times = [t("02:30")];
        let p = plan(Frequency::Daily, &times, chrono_tz::Europe::Berlin);
        // 02:30 does not exist on 2026-03-29; 03:00 CEST (01:00 UTC) is the first valid instant.
        assert_eq!(all(&p, "2026-03-29", 1), ["2026-03-29T01:00:00+00:00"]);
        let times = [t("02:30")];
        let p = plan(Frequency::Daily, &times, chrono_tz::America::New_York);
        // 2026-03-08 in New York: 02:00 EST jumps to 03:00 EDT (07:00 UTC).
        assert_eq!(all(&p, "2026-03-08", 1), ["2026-03-08T07:00:00+00:00"]);
    }

    #[test]
    fn a_time_that_happens_twice_fires_once() {
        // 2026-10-25 in Berlin: 02:00-03:00 happens twice; 2026-11-01 in New York: 01:00-02:00.
        let times = [t("02:30")];
        let p = plan(Frequency::Daily, &times, chrono_tz::Europe::Berlin);
        assert_eq!(all(&p, "2026-10-25", 1), ["2026-10-25T00:30:00+00:00"]);
        let times = [t("01:30")];
        let p = plan(Frequency::Daily, &times, chrono_tz::America::New_York);
        assert_eq!(all(&p, "2026-11-01", 1), ["2026-11-01T05:30:00+00:00"]);
    }

    #[test]
    fn twice_daily_in_new_york_across_fall_back() {
        let p = plan(Frequency::TwiceDaily, &[], chrono_tz::America::New_York);
        assert_eq!(
            all(&p, "2026-10-31", 2),
            [
                "2026-10-31T13:00:00+00:00",
                "2026-11-01T01:00:00+00:00",
                "2026-11-01T14:00:00+00:00",
                "2026-11-02T02:00:00+00:00"
            ]
        );
    }

    #[test]
    fn weekly_on_the_start_weekday_or_chosen_days() {
        let mut p = plan(Frequency::Weekly, &[], chrono_tz::UTC);
        p.start_date = d("2026-11-18"); // a Wednesday
        assert_eq!(
            all(&p, "2026-11-16", 14),
            ["2026-11-18T09:00:00+00:00", "2026-11-25T09:00:00+00:00"]
        );
        let days = [Weekday::Mon, Weekday::Fri];
        p.weekdays = &days;
        assert_eq!(
            all(&p, "2026-11-18", 7),
            ["2026-11-20T09:00:00+00:00", "2026-11-23T09:00:00+00:00"]
        );
    }

    #[test]
    fn monthly_on_the_31st_is_clamped_to_short_months() {
        let mut p = plan(Frequency::Monthly, &[], chrono_tz::UTC);
        p.start_date = d("2026-01-31");
        assert_eq!(
            all(&p, "2026-01-01", 120),
            [
                "2026-01-31T09:00:00+00:00",
                "2026-02-28T09:00:00+00:00",
                "2026-03-31T09:00:00+00:00",
                "2026-04-30T09:00:00+00:00"
            ]
        );
    }

    #[test]
    fn nothing_before_the_start_nothing_past_and_nothing_as_needed() {
        let mut p = plan(Frequency::Daily, &[], chrono_tz::UTC);
        p.start_date = d("2026-11-20");
        assert_eq!(all(&p, "2026-11-19", 2), ["2026-11-20T09:00:00+00:00"]);
        let after = utc("2026-11-20T10:00:00Z");
        assert_eq!(
            occurrences(&p, d("2026-11-20"), 2, after),
            [utc("2026-11-21T09:00:00Z")]
        );
        let as_needed = plan(Frequency::AsNeeded, &[], chrono_tz::UTC);
        assert!(all(&as_needed, "2026-11-19", 7).is_empty());
    }

    fn with_rules<'a>(
        frequency: Frequency,
        times: &'a [NaiveTime],
        tz: Tz,
        start: &str,
        rules: &'a Rules,
    ) -> Plan<'a> {
        Plan {
            start_date: d(start),
            rules,
            ..plan(frequency, times, tz)
        }
    }

    fn gaps_in_hours(instants: &[String]) -> Vec<i64> {
        instants
            .windows(2)
            .map(|w| (utc(&w[1]) - utc(&w[0])).num_minutes() / 60)
            .collect()
    }

    #[test]
    fn every_eight_hours_from_six_on_the_wall_clock_and_elapsed_across_spring_forward() {
        let six = [t("06:00")];
        let wall = Rules {
            interval_hours: Some(8),
            clock: Some(ClockKind::Wall),
            ..Rules::default()
        };
        let p = with_rules(
            Frequency::Daily,
            &six,
            chrono_tz::Europe::Berlin,
            "2026-03-28",
            &wall,
        );
        // Wall clock: 06:00, 14:00, 22:00 local every day; the night of the change is 7 hours.
        assert_eq!(
            all(&p, "2026-03-28", 2),
            [
                "2026-03-28T05:00:00+00:00",
                "2026-03-28T13:00:00+00:00",
                "2026-03-28T21:00:00+00:00",
                "2026-03-29T04:00:00+00:00",
                "2026-03-29T12:00:00+00:00",
                "2026-03-29T20:00:00+00:00"
            ]
        );
        // Elapsed (the default of interval schedules): exactly 8 hours apart throughout.
        let elapsed = Rules {
            interval_hours: Some(8),
            ..Rules::default()
        };
        let p = with_rules(
            Frequency::Daily,
            &six,
            chrono_tz::Europe::Berlin,
            "2026-03-28",
            &elapsed,
        );
        let doses = all(&p, "2026-03-28", 3);
        assert_eq!(doses[0], "2026-03-28T05:00:00+00:00");
        assert_eq!(gaps_in_hours(&doses), vec![8; doses.len() - 1]);
        // After the change they fall at 07:00, 15:00, 23:00 local.
        assert!(
            doses.contains(&"2026-03-29T05:00:00+00:00".to_owned()),
            "{doses:?}"
        );
    }

    #[test]
    fn an_elapsed_daily_dose_keeps_24_hours_and_a_wall_one_keeps_its_time_in_new_york() {
        let eight = [t("08:00")];
        let elapsed = Rules {
            clock: Some(ClockKind::Elapsed),
            ..Rules::default()
        };
        let p = with_rules(
            Frequency::Daily,
            &eight,
            chrono_tz::America::New_York,
            "2026-10-30",
            &elapsed,
        );
        // 2026-11-01: EDT → EST. The elapsed dose stays at 12:00 UTC (07:00 local after).
        assert_eq!(
            all(&p, "2026-10-31", 3),
            [
                "2026-10-31T12:00:00+00:00",
                "2026-11-01T12:00:00+00:00",
                "2026-11-02T12:00:00+00:00"
            ]
        );
        let p = with_rules(
            Frequency::Daily,
            &eight,
            chrono_tz::America::New_York,
            "2026-10-30",
            &NO_RULES,
        );
        assert_eq!(
            all(&p, "2026-10-31", 3),
            [
                "2026-10-31T12:00:00+00:00",
                "2026-11-01T13:00:00+00:00",
                "2026-11-02T13:00:00+00:00"
            ]
        );
    }

    #[test]
    fn lord_howe_moves_thirty_minutes_and_each_dose_is_once() {
        let tz = chrono_tz::Australia::Lord_Howe;
        // 2026-10-04: 02:00 → 02:30 (+10:30 → +11:00). 02:15 does not exist: it is taken at 02:30.
        let quarter_past_two = [t("02:15")];
        let p = plan(Frequency::Daily, &quarter_past_two, tz);
        assert_eq!(all(&p, "2026-10-04", 1), ["2026-10-03T15:30:00+00:00"]);
        // 2026-04-05: 02:00 → 01:30; 01:45 happens twice and is taken once, the first time.
        let quarter_to_two = [t("01:45")];
        let p = plan(Frequency::Daily, &quarter_to_two, tz);
        assert_eq!(all(&p, "2026-04-05", 1), ["2026-04-04T14:45:00+00:00"]);
        // An elapsed 12-hourly schedule stays 12 hours apart across both changes.
        let rules = Rules {
            interval_hours: Some(12),
            ..Rules::default()
        };
        let eight = [t("08:00")];
        let p = with_rules(Frequency::Daily, &eight, tz, "2026-10-01", &rules);
        let doses = all(&p, "2026-10-02", 5);
        assert_eq!(doses.len(), 10);
        assert_eq!(gaps_in_hours(&doses), vec![12; 9]);
    }

    #[test]
    fn every_other_day_a_cycle_an_end_date_and_steps() {
        let nine = [t("09:00")];
        let every_two = Rules {
            every_days: Some(2),
            ..Rules::default()
        };
        let p = with_rules(Frequency::Daily, &nine, chrono_tz::UTC, "2026-01-01", &every_two);
        assert_eq!(
            all(&p, "2026-01-01", 5),
            [
                "2026-01-01T09:00:00+00:00",
                "2026-01-03T09:00:00+00:00",
                "2026-01-05T09:00:00+00:00"
            ]
        );
        let cycle = Rules {
            cycle_on_days: Some(21),
            cycle_off_days: Some(7),
            ..Rules::default()
        };
        let p = with_rules(Frequency::Daily, &nine, chrono_tz::UTC, "2026-01-01", &cycle);
        let days: Vec<String> = all(&p, "2026-01-01", 56)
            .iter()
            .map(|i| i[..10].to_owned())
            .collect();
        assert_eq!(days.len(), 42);
        assert_eq!(days[20], "2026-01-21");
        assert_eq!(days[21], "2026-01-29", "7 days off, then on again");
        let course = Rules {
            end_date: Some(d("2026-01-07")),
            ..Rules::default()
        };
        let p = with_rules(Frequency::TwiceDaily, &[], chrono_tz::UTC, "2026-01-01", &course);
        let doses = all(&p, "2025-12-30", 30);
        assert_eq!(doses.len(), 14, "7 days twice a day, then nothing");
        assert!(doses.last().unwrap().starts_with("2026-01-07"));
        let taper = Rules {
            steps: vec![
                Step {
                    days: 2,
                    quantity: Quantity::whole(40),
                },
                Step {
                    days: 3,
                    quantity: Quantity::whole(30),
                },
            ],
            ..Rules::default()
        };
        let p = with_rules(Frequency::Daily, &nine, chrono_tz::UTC, "2026-01-01", &taper);
        let doses = occurrences(&p, d("2026-01-01"), 10, utc("2000-01-01T00:00:00Z"));
        assert_eq!(doses.len(), 5, "nothing after the last step");
        let quantities: Vec<Option<Quantity>> = doses.iter().map(|i| step_quantity(&p, *i)).collect();
        assert_eq!(quantities, [40, 40, 30, 30, 30].map(|q| Some(Quantity::whole(q))));
    }
}
