//! Missed-dose escalation of a medication (issue 16): when a planned dose is still unanswered
//! `after_minutes` after its time (or was recorded missed), the chosen carers are told, each on
//! their own channels with their own take link.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The shortest and longest wait before carers are told.
pub const MIN_AFTER_MINUTES: u32 = 5;
pub const MAX_AFTER_MINUTES: u32 = 1440;
/// At most this many carers per medication.
pub const MAX_CARERS: usize = 20;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Escalation {
    /// Minutes after the dose's time, from 5 to 1440.
    #[schema(minimum = 5, maximum = 1440)]
    pub after_minutes: u32,
    /// The user ids of the carers to tell: accepted carers of the medication's person with
    /// role `record` or `manage`.
    pub carers: Vec<i64>,
}

impl Escalation {
    /// From the stored JSON; `{}` (or anything unreadable) is off.
    pub fn from_json(text: &str) -> Option<Escalation> {
        serde_json::from_str(text).ok()
    }

    /// The stored JSON of a setting, `{}` when off.
    pub fn to_json(setting: Option<&Escalation>) -> String {
        setting
            .and_then(|e| serde_json::to_string(e).ok())
            .unwrap_or_else(|| "{}".to_owned())
    }

    /// Whether the setting can be used on its own terms (the carers' roles are checked
    /// against the database by the service); the message says what to change.
    pub fn check(&self) -> Result<(), String> {
        if !(MIN_AFTER_MINUTES..=MAX_AFTER_MINUTES).contains(&self.after_minutes) {
            return Err(format!(
                "after_minutes must be from {MIN_AFTER_MINUTES} to {MAX_AFTER_MINUTES}"
            ));
        }
        if self.carers.is_empty() {
            return Err("Choose at least one carer, or turn escalation off (null)".to_owned());
        }
        if self.carers.len() > MAX_CARERS {
            return Err(format!("At most {MAX_CARERS} carers"));
        }
        Ok(())
    }

    /// The carers without repeats, in the order given.
    pub fn normalise(&mut self) {
        let mut seen = std::collections::HashSet::new();
        self.carers.retain(|id| seen.insert(*id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_is_empty_json_and_reads_back_as_off() {
        assert_eq!(Escalation::to_json(None), "{}");
        assert_eq!(Escalation::from_json("{}"), None);
        let on = Escalation {
            after_minutes: 30,
            carers: vec![4, 9],
        };
        assert_eq!(Escalation::from_json(&Escalation::to_json(Some(&on))), Some(on));
    }

    #[test]
    fn check_bounds_and_carers() {
        let mut e = Escalation {
            after_minutes: 4,
            carers: vec![1],
        };
        assert!(e.check().unwrap_err().contains("from 5 to 1440"));
        e.after_minutes = 1441;
        assert!(e.check().is_err());
        e.after_minutes = 1440;
        assert!(e.check().is_ok());
        e.carers.clear();
        assert!(e.check().unwrap_err().contains("at least one carer"));
        e.carers = vec![3, 3, 2, 3];
        e.normalise();
        assert_eq!(e.carers, vec![3, 2]);
    }
}
