//! A medication's missed-dose escalation (issue 16): when a planned dose is still not logged
//! `after_minutes` after its time (or was recorded missed), the chosen carers are told. Stored
//! in `medications.escalation` as `{"after_minutes": N, "carers": [user ids]}`; `{}` is off.

use serde::{Deserialize, Serialize};

/// The shortest and longest wait before carers are told.
pub const MIN_AFTER_MINUTES: u32 = 5;
pub const MAX_AFTER_MINUTES: u32 = 1440;
/// Carers one medication may escalate to.
pub const MAX_CARERS: usize = 20;

/// What the column holds when escalation is off.
pub const OFF: &str = "{}";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Escalation {
    /// Minutes after the dose time (5–1440).
    pub after_minutes: u32,
    /// The carers told: user ids of accepted carers of the medication's person with role
    /// record or manage.
    pub carers: Vec<i64>,
}

/// Why an escalation cannot be saved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EscalationError {
    #[error("after_minutes must be between {MIN_AFTER_MINUTES} and {MAX_AFTER_MINUTES}")]
    AfterMinutes,
    #[error("an escalation needs at least one carer, and at most {MAX_CARERS}")]
    Carers,
}

impl Escalation {
    /// The stored column: `None` when off; a value that does not read counts as off rather
    /// than alerting anyone by mistake.
    pub fn parse(stored: &str) -> Option<Escalation> {
        serde_json::from_str::<Escalation>(stored).ok()
    }

    /// The column's text for `escalation` (`{}` for none).
    pub fn store(escalation: Option<&Escalation>) -> String {
        escalation
            .and_then(|e| serde_json::to_string(e).ok())
            .unwrap_or_else(|| OFF.to_owned())
    }

    /// Checks the bounds and removes repeated carers (whether each is an accepted carer
    /// with the right role is the service's question, it needs the database).
    pub fn checked(mut self) -> Result<Escalation, EscalationError> {
        if !(MIN_AFTER_MINUTES..=MAX_AFTER_MINUTES).contains(&self.after_minutes) {
            return Err(EscalationError::AfterMinutes);
        }
        let mut seen = std::collections::HashSet::new();
        self.carers.retain(|id| seen.insert(*id));
        if self.carers.is_empty() || self.carers.len() > MAX_CARERS {
            return Err(EscalationError::Carers);
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_column_reads_back_and_off_is_none() {
        let e = Escalation {
            after_minutes: 30,
            carers: vec![4, 9],
        };
        let stored = Escalation::store(Some(&e));
        assert_eq!(stored, r#"{"after_minutes":30,"carers":[4,9]}"#);
        assert_eq!(Escalation::parse(&stored), Some(e));
        assert_eq!(Escalation::parse(OFF), None);
        assert_eq!(Escalation::parse("not json"), None);
        assert_eq!(Escalation::store(None), OFF);
    }

    #[test]
    fn bounds_are_checked_and_repeats_removed() {
        let with = |after_minutes, carers: Vec<i64>| {
            Escalation {
                after_minutes,
                carers,
            }
            .checked()
        };
        assert_eq!(with(4, vec![1]), Err(EscalationError::AfterMinutes));
        assert_eq!(with(1441, vec![1]), Err(EscalationError::AfterMinutes));
        assert_eq!(with(5, vec![]), Err(EscalationError::Carers));
        assert_eq!(with(1440, vec![3, 3, 2]).unwrap().carers, vec![3, 2]);
        assert_eq!(with(5, (0..21).collect()), Err(EscalationError::Carers));
    }
}
