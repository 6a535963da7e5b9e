//! What reminders and their deliveries are: the channels they go out on, the states a
//! reminder passes through, and the limits on what a person may set. No I/O.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::medication::{MAX_LEAD_MINUTES, MAX_MESSAGE, MAX_REPEATS};

/// A way a reminder goes out: Web Push to the account's devices, e-mail, or one of the
/// person's channels (ntfy, Gotify, Telegram, a webhook) by its id, written `channel:7`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeliveryMethod {
    Push,
    Email,
    Channel(i64),
}

impl DeliveryMethod {
    /// The word the API and the store use: `push`, `email` or `channel:<id>`.
    pub fn word(self) -> String {
        self.to_string()
    }

    /// The method a (trimmed) word names, if any.
    pub fn parse(text: &str) -> Option<DeliveryMethod> {
        text.parse().ok()
    }

    /// The channel's id, for a channel.
    pub fn channel_id(self) -> Option<i64> {
        match self {
            DeliveryMethod::Channel(id) => Some(id),
            _ => None,
        }
    }
}

impl FromStr for DeliveryMethod {
    type Err = UnknownWord;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim() {
            "push" => Ok(DeliveryMethod::Push),
            "email" => Ok(DeliveryMethod::Email),
            other => other
                .strip_prefix("channel:")
                .filter(|id| !id.is_empty() && id.len() <= 18 && id.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|id| id.parse().ok())
                .filter(|id: &i64| *id > 0)
                .map(DeliveryMethod::Channel)
                .ok_or(UnknownWord),
        }
    }
}

impl fmt::Display for DeliveryMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeliveryMethod::Push => f.write_str("push"),
            DeliveryMethod::Email => f.write_str("email"),
            DeliveryMethod::Channel(id) => write!(f, "channel:{id}"),
        }
    }
}

impl Serialize for DeliveryMethod {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DeliveryMethod {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse()
            .map_err(|_| serde::de::Error::custom("a delivery method is push, email or channel:<id>"))
    }
}

impl utoipa::PartialSchema for DeliveryMethod {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some("^(push|email|channel:[1-9][0-9]{0,17})$"))
            .description(Some(
                "push, email, or one of the person's channels by its id (`channel:7`)",
            ))
            .examples(["push", "channel:7"])
            .into()
    }
}

impl ToSchema for DeliveryMethod {}

/// The methods in a list, each once: push, e-mail, then channels by id.
pub fn normalize_methods(methods: &[DeliveryMethod]) -> Vec<DeliveryMethod> {
    let mut list = methods.to_vec();
    list.sort();
    list.dedup();
    list
}

/// A word that names none of an enum's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown value")]
pub struct UnknownWord;

/// Where a reminder is in its life. "Being sent" is not a status of its own: a scheduled
/// reminder that a dispatcher holds a claim on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReminderStatus {
    Scheduled,
    Sent,
    Cancelled,
    Failed,
}

impl ReminderStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ReminderStatus::Scheduled => "scheduled",
            ReminderStatus::Sent => "sent",
            ReminderStatus::Cancelled => "cancelled",
            ReminderStatus::Failed => "failed",
        }
    }
}

impl FromStr for ReminderStatus {
    type Err = UnknownWord;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "scheduled" => Ok(ReminderStatus::Scheduled),
            "sent" => Ok(ReminderStatus::Sent),
            "cancelled" => Ok(ReminderStatus::Cancelled),
            "failed" => Ok(ReminderStatus::Failed),
            _ => Err(UnknownWord),
        }
    }
}

impl fmt::Display for ReminderStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a reminder is for: a dose planned from a schedule, a dose someone set a one-off
/// reminder for, running low on stock, a refill to order, or a stock batch expiring soon or expired. Only
/// the first two are doses: the others are notices a logged dose never answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReminderKind {
    Dose,
    OneOff,
    LowStock,
    Refill,
    BatchExpiring,
    BatchExpired,
}

impl ReminderKind {
    /// A dose's reminder (planned or one-off), which a logged dose answers; the others are
    /// notices about stock, with no take link, snooze or repeats.
    pub fn is_dose(self) -> bool {
        matches!(self, ReminderKind::Dose | ReminderKind::OneOff)
    }
}

impl FromStr for ReminderKind {
    type Err = UnknownWord;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "dose" => Ok(ReminderKind::Dose),
            "one_off" => Ok(ReminderKind::OneOff),
            "low_stock" => Ok(ReminderKind::LowStock),
            "refill" => Ok(ReminderKind::Refill),
            "batch_expiring" => Ok(ReminderKind::BatchExpiring),
            "batch_expired" => Ok(ReminderKind::BatchExpired),
            _ => Err(UnknownWord),
        }
    }
}

/// Why a reminder setting cannot be used; the text is what the person reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    #[error("Reminder lead must be between 0 and {MAX_LEAD_MINUTES} minutes")]
    LeadOutOfRange,
    #[error("Message must be at most {MAX_MESSAGE} characters")]
    MessageTooLong,
    #[error("Repeat interval must be between 1 and {MAX_LEAD_MINUTES} minutes")]
    RepeatIntervalOutOfRange,
    #[error("Repeats must be between 0 and {MAX_REPEATS}")]
    RepeatsOutOfRange,
    #[error("Delivery methods must be push, email or channel:<id> of one of your channels")]
    MethodUnknown,
    #[error("Choose at least one delivery method")]
    MethodRequired,
}

/// A reminder's lead (minutes before the dose): 0 to a day.
pub fn check_lead(minutes: i64) -> Result<i64, SettingError> {
    if (0..=MAX_LEAD_MINUTES).contains(&minutes) {
        Ok(minutes)
    } else {
        Err(SettingError::LeadOutOfRange)
    }
}

/// A reminder's own message: trimmed, blank is none, at most `MAX_MESSAGE` characters.
pub fn check_message(message: Option<&str>) -> Result<Option<String>, SettingError> {
    let message = message.map(str::trim).filter(|m| !m.is_empty());
    match message {
        Some(m) if m.chars().count() > MAX_MESSAGE => Err(SettingError::MessageTooLong),
        other => Ok(other.map(str::to_owned)),
    }
}

/// Minutes between repeats of an unanswered reminder: 1 to a day.
pub fn check_repeat_interval(minutes: i64) -> Result<i64, SettingError> {
    if (1..=MAX_LEAD_MINUTES).contains(&minutes) {
        Ok(minutes)
    } else {
        Err(SettingError::RepeatIntervalOutOfRange)
    }
}

/// How many times an unanswered reminder repeats.
pub fn check_repeats(count: i64) -> Result<i64, SettingError> {
    if (0..=MAX_REPEATS).contains(&count) {
        Ok(count)
    } else {
        Err(SettingError::RepeatsOutOfRange)
    }
}

/// A list of delivery methods someone chose: known words, at least one, each once.
pub fn check_methods(list: &[String]) -> Result<Vec<DeliveryMethod>, SettingError> {
    let parsed: Option<Vec<DeliveryMethod>> = list.iter().map(|m| DeliveryMethod::parse(m)).collect();
    let parsed = parsed.ok_or(SettingError::MethodUnknown)?;
    if parsed.is_empty() {
        return Err(SettingError::MethodRequired);
    }
    Ok(normalize_methods(&parsed))
}

/// The longest wait between two tries of a reminder whose delivery keeps failing, once the
/// doubling has grown to it: after an outage, the reminder reaches the person at most this
/// long after the service is back.
pub const MAX_RETRY_WAIT_SECONDS: i64 = 15 * 60;

/// When a delivery that has failed `failures` times (the one just made included) is tried
/// again, or `None` when it is given up. The wait starts at `backoff_seconds` and doubles,
/// capped at [`MAX_RETRY_WAIT_SECONDS`] (or the backoff itself, when that is longer). After
/// `max_attempts` tries it goes on only while `until` lasts (a dose's grace: until then, a
/// late reminder still prevents a missed dose), the last try a minute before it.
pub fn next_try(
    failures: i64,
    backoff_seconds: i64,
    max_attempts: i64,
    until: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let backoff = backoff_seconds.max(1);
    let wait = backoff
        .saturating_mul(1_i64 << (failures - 1).clamp(0, 20))
        .min(MAX_RETRY_WAIT_SECONDS.max(backoff));
    let at = now + Duration::seconds(wait);
    if failures < max_attempts {
        return Some(at);
    }
    within(at, until?, now)
}

/// A try due at `at` of a delivery given up at `give_up`: moved to a minute before it when it
/// would come later, so that the last try is made; `None` when that is not after `now`.
pub fn within(at: DateTime<Utc>, give_up: DateTime<Utc>, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let at = at.min(give_up - Duration::minutes(1));
    (at > now).then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_through_serde_and_from_str() {
        for status in [
            ReminderStatus::Scheduled,
            ReminderStatus::Sent,
            ReminderStatus::Cancelled,
            ReminderStatus::Failed,
        ] {
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
            assert_eq!(status.as_str().parse::<ReminderStatus>(), Ok(status));
        }
        for kind in [
            ReminderKind::Dose,
            ReminderKind::OneOff,
            ReminderKind::LowStock,
            ReminderKind::Refill,
            ReminderKind::BatchExpiring,
            ReminderKind::BatchExpired,
        ] {
            // The word the API shows is the word the store reads back.
            let word = serde_json::to_value(kind).unwrap();
            assert_eq!(word.as_str().unwrap().parse::<ReminderKind>(), Ok(kind));
        }
        assert_eq!(" email ".parse::<DeliveryMethod>(), Ok(DeliveryMethod::Email));
        assert_eq!("sms".parse::<DeliveryMethod>(), Err(UnknownWord));
        assert_eq!(serde_json::to_value(DeliveryMethod::Push).unwrap(), "push");
    }

    #[test]
    fn chosen_methods_are_known_unique_and_not_empty() {
        let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            check_methods(&words(&["email", "push", "email"])),
            Ok(vec![DeliveryMethod::Push, DeliveryMethod::Email])
        );
        assert_eq!(check_methods(&words(&["fax"])), Err(SettingError::MethodUnknown));
        assert_eq!(check_methods(&[]), Err(SettingError::MethodRequired));
        assert_eq!(
            SettingError::MethodRequired.to_string(),
            "Choose at least one delivery method"
        );
    }

    #[test]
    fn limits_name_their_bounds() {
        assert_eq!(check_lead(0), Ok(0));
        assert!(check_lead(-1).is_err());
        assert!(check_lead(MAX_LEAD_MINUTES + 1).is_err());
        assert_eq!(check_message(Some("  ")), Ok(None));
        assert_eq!(check_message(Some(" hi ")), Ok(Some("hi".to_owned())));
        assert!(check_message(Some(&"x".repeat(MAX_MESSAGE + 1))).is_err());
        assert!(check_repeat_interval(0).is_err());
        assert_eq!(check_repeats(MAX_REPEATS), Ok(MAX_REPEATS));
    }
    #[test]
    fn a_failing_delivery_doubles_its_wait_and_keeps_trying_only_while_the_dose_can_still_be_taken() {
        let now = DateTime::parse_from_rfc3339("2026-03-20T06:45:00Z")
            .unwrap()
            .to_utc();
        let minutes = |m: i64| now + Duration::minutes(m);
        // Within the tries every delivery gets: 1, 2, 4 and 8 minutes.
        assert_eq!(next_try(1, 60, 5, None, now), Some(minutes(1)));
        assert_eq!(next_try(4, 60, 5, None, now), Some(minutes(8)));
        // Used up, with nothing to wait for: given up, as before.
        assert_eq!(next_try(5, 60, 5, None, now), None);
        // Used up, the dose's grace lasting two more hours: every 15 minutes.
        assert_eq!(next_try(5, 60, 5, Some(minutes(135)), now), Some(minutes(15)));
        assert_eq!(next_try(12, 60, 5, Some(minutes(135)), now), Some(minutes(15)));
        // The last try a minute before the grace ends; at that minute, none.
        assert_eq!(next_try(9, 60, 5, Some(minutes(10)), now), Some(minutes(9)));
        assert_eq!(next_try(10, 60, 5, Some(minutes(1)), now), None);
        assert_eq!(next_try(10, 60, 5, Some(minutes(-5)), now), None);
        // A backoff set longer than the cap is the cap.
        assert_eq!(next_try(3, 3600, 5, None, now), Some(minutes(60)));
    }
}
