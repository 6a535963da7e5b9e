//! When doses are due: a medication's schedule expanded into instants over a window of
//! days, in the user's time zone (DESIGN §4). A wall-clock time that does not exist on a
//! day (spring forward) moves to the first valid instant after it; a time that happens
//! twice (fall back) fires once, at its first occurrence.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc, Weekday};
use chrono_tz::Tz;

use super::schedule::{self, Frequency};

/// What the planner needs to know about a medication's schedule.
pub struct Plan<'a> {
    pub frequency: Frequency,
    pub times: &'a [NaiveTime],
    pub weekdays: &'a [Weekday],
    pub start_date: NaiveDate,
    pub default_time: NaiveTime,
    pub tz: Tz,
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

/// Whether the schedule has doses on `date` (from its start date on).
fn due_on(plan: &Plan, weekdays: &[Weekday], date: NaiveDate) -> bool {
    if date < plan.start_date {
        return false;
    }
    match plan.frequency {
        Frequency::Daily | Frequency::TwiceDaily => true,
        Frequency::Weekly => weekdays.contains(&date.weekday()),
        Frequency::Monthly => schedule::monthly_day(plan.start_date, date.year(), date.month()) == Some(date),
        Frequency::AsNeeded => false,
    }
}

/// Every dose instant after `after` and before the end of local day `first_day + days - 1`.
pub fn occurrences(plan: &Plan, first_day: NaiveDate, days: u32, after: DateTime<Utc>) -> Vec<DateTime<Utc>> {
    let times = schedule::effective_times(plan.frequency, plan.times, plan.default_time);
    let weekdays = schedule::effective_weekdays(plan.weekdays, plan.start_date);
    let mut instants: Vec<DateTime<Utc>> = (0..days)
        .filter_map(|offset| first_day.checked_add_signed(Duration::days(i64::from(offset))))
        .filter(|date| due_on(plan, &weekdays, *date))
        .flat_map(|date| {
            times
                .iter()
                .map(move |time| resolve(plan.tz, date.and_time(*time)))
        })
        .filter(|instant| *instant > after)
        .collect();
    instants.sort();
    // Two wall-clock times can land on one instant (a time in a gap moved forward onto
    // another): one dose, one reminder.
    instants.dedup();
    instants
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

    fn plan<'a>(frequency: Frequency, times: &'a [NaiveTime], tz: Tz) -> Plan<'a> {
        Plan {
            frequency,
            times,
            weekdays: &[],
            start_date: d("2026-01-01"),
            default_time: t("09:00"),
            tz,
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
}
