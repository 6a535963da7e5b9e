//! A medication's schedule: its frequency plus optional times of day and weekdays, with the
//! defaults of DESIGN §4. Expanding it into reminders (time zones, daylight saving) is the
//! reminder planner's job; here it is stored, validated and summarised.

use chrono::{DateTime, Datelike, NaiveDate, NaiveTime, Timelike, Utc, Weekday};
use serde::{Deserialize, Serialize};

use super::quantity::Quantity;

pub const MAX_TIMES_PER_DAY: usize = 12;
/// Limits of the schedule's rules (see `Rules::check`).
pub const MAX_DAYS: u32 = 366;
pub const MAX_STEPS: usize = 24;
pub const MAX_PER_DAY: u32 = 48;
pub const MAX_GAP_MINUTES: u32 = 1440;
pub const MAX_GRACE_MINUTES: u32 = 720;
pub const DEFAULT_GRACE_MINUTES: u32 = 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Frequency {
    Daily,
    TwiceDaily,
    Weekly,
    Monthly,
    AsNeeded,
}

impl Frequency {
    pub const ALL: [&'static str; 5] = ["daily", "twice_daily", "weekly", "monthly", "as_needed"];

    pub fn parse(text: &str) -> Option<Frequency> {
        match text {
            "daily" => Some(Frequency::Daily),
            "twice_daily" => Some(Frequency::TwiceDaily),
            "weekly" => Some(Frequency::Weekly),
            "monthly" => Some(Frequency::Monthly),
            "as_needed" => Some(Frequency::AsNeeded),
            _ => None,
        }
    }

    /// The frequency as stored and sent (`twice_daily`).
    pub fn as_str(self) -> &'static str {
        match self {
            Frequency::Daily => "daily",
            Frequency::TwiceDaily => "twice_daily",
            Frequency::Weekly => "weekly",
            Frequency::Monthly => "monthly",
            Frequency::AsNeeded => "as_needed",
        }
    }
}

/// A frequency that is none of `Frequency::ALL`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Frequency must be one of daily, twice_daily, weekly, monthly, as_needed")]
pub struct UnknownFrequency;

impl std::str::FromStr for Frequency {
    type Err = UnknownFrequency;

    fn from_str(text: &str) -> Result<Frequency, UnknownFrequency> {
        Frequency::parse(text).ok_or(UnknownFrequency)
    }
}

/// How a schedule's times hold when the clock moves (daylight saving, travel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClockKind {
    /// 08:00 wherever the person is, whatever the season.
    Wall,
    /// Fixed hours between doses, unchanged by daylight saving or travel.
    Elapsed,
}

/// One step of a tapering plan: `quantity` a dose for `days` days.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Step {
    #[schema(minimum = 1, maximum = 366)]
    pub days: u32,
    #[schema(value_type = f64, exclusive_minimum = 0, maximum = 1000000000)]
    pub quantity: Quantity,
}

/// A schedule's rules beyond its frequency, times, weekdays and start date; each is absent
/// unless set. Stored as one JSON object with the medication.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Rules {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_hours: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub every_days: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle_on_days: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle_off_days: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_date: Option<NaiveDate>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_per_day: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_gap_minutes: Option<u32>,
    /// As set; `clock()` gives the one in force.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grace_minutes: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat_every_minutes: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat_times: Option<u32>,
    /// An elapsed schedule's first dose as an instant, fixed when the schedule is saved so
    /// that a new time zone does not move it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<DateTime<Utc>>,
}

impl Rules {
    /// The clock in force: as set, else elapsed for interval schedules, else wall.
    pub fn clock(&self) -> ClockKind {
        self.clock.unwrap_or(if self.interval_hours.is_some() {
            ClockKind::Elapsed
        } else {
            ClockKind::Wall
        })
    }

    pub fn grace_minutes(&self) -> u32 {
        self.grace_minutes.unwrap_or(DEFAULT_GRACE_MINUTES)
    }

    /// The stored JSON; `{}` when nothing is set.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }

    /// Whether the rules fit together and with the frequency; the message says what to
    /// change.
    pub fn check(&self, frequency: Frequency, start_date: NaiveDate) -> Result<(), String> {
        let within = |value: Option<u32>, low: u32, high: u32, label: &str| match value {
            Some(v) if v < low || v > high => Err(format!("{label} must be from {low} to {high}")),
            _ => Ok(()),
        };
        within(self.interval_hours, 1, 24, "interval_hours")?;
        within(self.every_days, 1, MAX_DAYS, "every_days")?;
        within(self.cycle_on_days, 1, MAX_DAYS, "cycle_on_days")?;
        within(self.cycle_off_days, 1, MAX_DAYS, "cycle_off_days")?;
        within(self.max_per_day, 1, MAX_PER_DAY, "max_per_day")?;
        within(self.min_gap_minutes, 1, MAX_GAP_MINUTES, "min_gap_minutes")?;
        within(self.grace_minutes, 1, MAX_GRACE_MINUTES, "grace_minutes")?;
        within(self.repeat_every_minutes, 1, 1440, "repeat_every_minutes")?;
        within(self.repeat_times, 0, 10, "repeat_times")?;
        let daily = matches!(frequency, Frequency::Daily | Frequency::TwiceDaily);
        let scheduled = frequency != Frequency::AsNeeded;
        if self.interval_hours.is_some() && !daily {
            return Err("interval_hours repeats doses through the day: use it with a daily frequency".into());
        }
        if let Some(hours) = self.interval_hours
            && self.clock() == ClockKind::Wall
            && 24 % hours != 0
        {
            return Err(format!(
                "Every {hours} hours does not fit into a day on the wall clock: choose an interval that divides 24, or clock \"elapsed\""
            ));
        }
        if self.every_days.is_some() && !daily {
            return Err(
                "every_days needs a daily or twice_daily frequency (weekly and monthly have their own days)"
                    .into(),
            );
        }
        if self.cycle_on_days.is_some() != self.cycle_off_days.is_some() {
            return Err("A cycle needs both cycle_on_days and cycle_off_days".into());
        }
        if self.cycle_on_days.is_some() && !daily {
            return Err("A cycle needs a daily or twice_daily frequency".into());
        }
        if self.cycle_on_days.is_some() && self.every_days.is_some() {
            return Err("Choose either every_days or a cycle, not both".into());
        }
        if self.clock == Some(ClockKind::Elapsed) && !daily {
            return Err("clock \"elapsed\" keeps fixed hours between doses: use it with a daily frequency or interval_hours".into());
        }
        if let Some(end) = self.end_date
            && end < start_date
        {
            return Err("end_date must be on or after start_date".into());
        }
        if !self.steps.is_empty() && !scheduled {
            return Err("steps need a schedule: an as-needed medication has no days to count".into());
        }
        if self.steps.len() > MAX_STEPS {
            return Err(format!("At most {MAX_STEPS} steps are allowed"));
        }
        for step in &self.steps {
            if step.days < 1 || step.days > MAX_DAYS {
                return Err(format!("Each step lasts from 1 to {MAX_DAYS} days"));
            }
            if !step.quantity.is_positive() {
                return Err("Each step needs a positive quantity".into());
            }
        }
        Ok(())
    }

    /// The quantity of a dose on `day` days after the start, when steps are set; `None` past
    /// the last step (the course is over) or without steps.
    pub fn step_on(&self, day: i64) -> Option<Quantity> {
        let mut first = 0_i64;
        for step in &self.steps {
            let last = first + i64::from(step.days);
            if day >= first && day < last {
                return Some(step.quantity);
            }
            first = last;
        }
        None
    }

    /// How many days the steps last together.
    pub fn steps_days(&self) -> i64 {
        self.steps.iter().map(|s| i64::from(s.days)).sum()
    }

    /// The last day with doses of a schedule that starts on `start`: its end date or its
    /// last step's, whichever comes first; `None` when it has no end.
    pub fn last_day(&self, start: NaiveDate) -> Option<NaiveDate> {
        let steps_end =
            (!self.steps.is_empty()).then(|| start + chrono::Duration::days(self.steps_days() - 1));
        [self.end_date, steps_end].into_iter().flatten().min()
    }

    /// The steps of a tapering plan that starts on `start`, with their dates; a step the end
    /// date cuts short ends on it, and one after it is left out (it never happens).
    pub fn dated_steps(&self, start: NaiveDate) -> Vec<DatedStep> {
        let mut first = start;
        let mut dated = Vec::new();
        for step in &self.steps {
            let mut last = first + chrono::Duration::days(i64::from(step.days) - 1);
            if let Some(end) = self.end_date {
                if first > end {
                    break;
                }
                last = last.min(end);
            }
            dated.push(DatedStep {
                first_day: first,
                last_day: last,
                quantity: step.quantity,
            });
            first += chrono::Duration::days(i64::from(step.days));
        }
        dated
    }
}

/// One step of a tapering plan on the calendar: `quantity` a dose from `first_day` to
/// `last_day`, both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct DatedStep {
    #[schema(value_type = String, format = Date, example = "2026-11-01")]
    pub first_day: NaiveDate,
    #[schema(value_type = String, format = Date, example = "2026-11-05")]
    pub last_day: NaiveDate,
    #[schema(value_type = f64)]
    pub quantity: Quantity,
}

/// Parses `HH:MM` (24-hour) times of day; sorted, without duplicates.
pub fn parse_times(texts: &[String]) -> Result<Vec<NaiveTime>, String> {
    if texts.len() > MAX_TIMES_PER_DAY {
        return Err(format!("At most {MAX_TIMES_PER_DAY} times of day are allowed"));
    }
    let mut times = texts
        .iter()
        .map(|t| {
            NaiveTime::parse_from_str(t.trim(), "%H:%M")
                .map_err(|_| format!("Time of day '{}' must be written as HH:MM", t.trim()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    times.sort();
    times.dedup();
    Ok(times)
}

pub fn format_time(time: NaiveTime) -> String {
    format!("{:02}:{:02}", time.hour(), time.minute())
}

/// A time of day on the 24-hour clock, written `HH:MM`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, utoipa::ToSchema)]
#[schema(value_type = String, example = "08:00")]
pub struct TimeOfDay(NaiveTime);

impl From<NaiveTime> for TimeOfDay {
    fn from(time: NaiveTime) -> TimeOfDay {
        TimeOfDay(time)
    }
}

impl std::fmt::Display for TimeOfDay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&format_time(self.0))
    }
}

impl Serialize for TimeOfDay {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Weekdays as numbers, Monday = 1 … Sunday = 7 (ISO 8601).
pub fn parse_weekdays(numbers: &[u32]) -> Result<Vec<Weekday>, String> {
    let mut days = numbers
        .iter()
        .map(|n| match n {
            1..=7 => Ok(Weekday::try_from((*n - 1) as u8).unwrap_or(Weekday::Mon)),
            _ => Err("Weekdays are numbers from 1 (Monday) to 7 (Sunday)".to_owned()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    days.sort_by_key(|d| d.number_from_monday());
    days.dedup();
    Ok(days)
}

/// The times a dose is due on a day it is due: the user's own, else the defaults
/// (`daily`: the default reminder time; `twice_daily`: that time and 12 hours later).
pub fn effective_times(frequency: Frequency, times: &[NaiveTime], default_time: NaiveTime) -> Vec<NaiveTime> {
    if frequency == Frequency::AsNeeded {
        return Vec::new();
    }
    if !times.is_empty() {
        return times.to_vec();
    }
    match frequency {
        Frequency::TwiceDaily => {
            let mut pair = vec![
                default_time,
                default_time.overflowing_add_signed(chrono::Duration::hours(12)).0,
            ];
            pair.sort();
            pair
        }
        _ => vec![default_time],
    }
}

/// The times of day a dose is due: as set (or the defaults), or, every `interval_hours`,
/// from the first of them through the day.
pub fn day_times(
    frequency: Frequency,
    times: &[NaiveTime],
    default_time: NaiveTime,
    interval_hours: Option<u32>,
) -> Vec<NaiveTime> {
    let times = effective_times(frequency, times, default_time);
    match (interval_hours, times.first()) {
        (Some(hours), Some(first)) => interval_times(*first, hours),
        _ => times,
    }
}

/// The times of day of an every-`hours` schedule, from `first` through one day (on the wall
/// clock `hours` divides 24; an elapsed schedule's later days shift).
fn interval_times(first: NaiveTime, hours: u32) -> Vec<NaiveTime> {
    let hours = hours.clamp(1, 24);
    let mut times: Vec<NaiveTime> = (0..24_u32.div_ceil(hours))
        .map(|k| {
            first
                .overflowing_add_signed(chrono::Duration::hours(i64::from(k * hours)))
                .0
        })
        .collect();
    times.sort();
    times.dedup();
    times
}

/// The weekdays of a weekly schedule: the user's own, else the weekday of its start date.
pub fn effective_weekdays(weekdays: &[Weekday], start_date: NaiveDate) -> Vec<Weekday> {
    if weekdays.is_empty() {
        vec![start_date.weekday()]
    } else {
        weekdays.to_vec()
    }
}

/// The day of month of a monthly schedule, clamped to the month's last day (31 → 30 in
/// April, 28 or 29 in February).
pub fn monthly_day(start_date: NaiveDate, year: i32, month: u32) -> Option<NaiveDate> {
    let wanted = start_date.day();
    (1..=wanted)
        .rev()
        .find_map(|day| NaiveDate::from_ymd_opt(year, month, day))
}

/// Average doses per day, for the stock forecast; `None` for as-needed medication.
pub fn doses_per_day(frequency: Frequency, times_per_day: usize, weekdays: usize) -> Option<f64> {
    let times = times_per_day.max(1) as f64;
    match frequency {
        Frequency::Daily | Frequency::TwiceDaily => Some(times),
        Frequency::Weekly => Some(times * weekdays.max(1) as f64 / 7.0),
        Frequency::Monthly => Some(times * 12.0 / 365.25),
        Frequency::AsNeeded => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> NaiveTime {
        NaiveTime::parse_from_str(s, "%H:%M").unwrap()
    }

    #[test]
    fn frequencies_read_and_write_as_stored() {
        for text in Frequency::ALL {
            let frequency: Frequency = text.parse().unwrap();
            assert_eq!(frequency.as_str(), text);
            assert_eq!(serde_json::to_value(frequency).unwrap(), text);
        }
        assert_eq!(
            "hourly".parse::<Frequency>().unwrap_err().to_string(),
            format!("Frequency must be one of {}", Frequency::ALL.join(", "))
        );
    }

    #[test]
    fn a_time_of_day_is_hours_and_minutes() {
        let time = TimeOfDay::from(NaiveTime::from_hms_opt(8, 5, 30).unwrap());
        assert_eq!(time.to_string(), "08:05");
        assert_eq!(serde_json::to_value(time).unwrap(), "08:05");
    }

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn default_times_follow_the_frequency() {
        let nine = t("09:00");
        assert_eq!(effective_times(Frequency::Daily, &[], nine), [t("09:00")]);
        assert_eq!(
            effective_times(Frequency::TwiceDaily, &[], nine),
            [t("09:00"), t("21:00")]
        );
        assert_eq!(
            effective_times(Frequency::TwiceDaily, &[], t("20:00")),
            [t("08:00"), t("20:00")]
        );
        assert_eq!(effective_times(Frequency::Weekly, &[], nine), [nine]);
        assert!(effective_times(Frequency::AsNeeded, &[t("08:00")], nine).is_empty());
        assert_eq!(
            effective_times(Frequency::Daily, &[t("07:30"), t("19:30")], nine),
            [t("07:30"), t("19:30")]
        );
    }

    #[test]
    fn weekly_defaults_to_the_start_weekday() {
        assert_eq!(effective_weekdays(&[], d("2026-11-18")), [Weekday::Wed]);
        assert_eq!(
            effective_weekdays(&[Weekday::Mon, Weekday::Fri], d("2026-11-18")),
            [Weekday::Mon, Weekday::Fri]
        );
    }

    #[test]
    fn parsing_times_and_weekdays() {
        let times = parse_times(&["21:00".into(), " 08:05".into(), "08:05".into()]).unwrap();
        assert_eq!(times, [t("08:05"), t("21:00")]);
        assert_eq!(format_time(times[0]), "08:05");
        assert_eq!(
            parse_times(&["25:00".into()]).unwrap_err(),
            "Time of day '25:00' must be written as HH:MM"
        );
        assert!(parse_times(&["9am".into()]).is_err());
        assert_eq!(parse_weekdays(&[7, 1, 1]).unwrap(), [Weekday::Mon, Weekday::Sun]);
        assert!(parse_weekdays(&[0]).is_err());
        assert!(parse_weekdays(&[8]).is_err());
        assert_eq!(Frequency::parse("twice_daily"), Some(Frequency::TwiceDaily));
        assert_eq!(Frequency::parse("hourly"), None);
    }

    #[test]
    fn a_tapering_plan_has_dates_and_ends_with_its_last_step_or_end_date() {
        let q = Quantity::whole;
        let mut rules = Rules {
            steps: vec![
                Step {
                    days: 5,
                    quantity: q(40),
                },
                Step {
                    days: 3,
                    quantity: q(30),
                },
                Step {
                    days: 2,
                    quantity: q(10),
                },
            ],
            ..Rules::default()
        };
        let start = d("2026-11-01");
        let dated = |r: &Rules| {
            r.dated_steps(start)
                .iter()
                .map(|s| (s.first_day.to_string(), s.last_day.to_string(), s.quantity))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            dated(&rules),
            [
                ("2026-11-01".into(), "2026-11-05".into(), q(40)),
                ("2026-11-06".into(), "2026-11-08".into(), q(30)),
                ("2026-11-09".into(), "2026-11-10".into(), q(10)),
            ]
        );
        assert_eq!(rules.last_day(start), Some(d("2026-11-10")));
        rules.end_date = Some(d("2026-11-07"));
        assert_eq!(
            dated(&rules),
            [
                ("2026-11-01".into(), "2026-11-05".into(), q(40)),
                ("2026-11-06".into(), "2026-11-07".into(), q(30)),
            ]
        );
        assert_eq!(rules.last_day(start), Some(d("2026-11-07")));
        let open = Rules::default();
        assert!(open.dated_steps(start).is_empty());
        assert_eq!(open.last_day(start), None);
    }

    #[test]
    fn average_doses_per_day() {
        assert_eq!(doses_per_day(Frequency::Daily, 1, 0), Some(1.0));
        assert_eq!(doses_per_day(Frequency::TwiceDaily, 2, 0), Some(2.0));
        assert_eq!(doses_per_day(Frequency::Weekly, 1, 2), Some(2.0 / 7.0));
        assert!((doses_per_day(Frequency::Monthly, 1, 0).unwrap() - 0.03285).abs() < 1e-4);
        assert_eq!(doses_per_day(Frequency::AsNeeded, 1, 0), None);
    }
}
