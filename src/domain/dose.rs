//! What a logged dose says happened.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The status of a history entry, stored and sent as `taken`, `skipped` or `missed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DoseStatus {
    Taken,
    Skipped,
    Missed,
}

impl DoseStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            DoseStatus::Taken => "taken",
            DoseStatus::Skipped => "skipped",
            DoseStatus::Missed => "missed",
        }
    }
}

impl fmt::Display for DoseStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A status that is none of the three.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Status must be taken, skipped or missed")]
pub struct UnknownStatus;

impl FromStr for DoseStatus {
    type Err = UnknownStatus;

    /// Surrounding blanks are ignored, as people and spreadsheets leave them.
    fn from_str(text: &str) -> Result<DoseStatus, UnknownStatus> {
        match text.trim() {
            "taken" => Ok(DoseStatus::Taken),
            "skipped" => Ok(DoseStatus::Skipped),
            "missed" => Ok(DoseStatus::Missed),
            _ => Err(UnknownStatus),
        }
    }
}

/// A history entry's id, kept apart from the other ids a service takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EntryId(pub i64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_read_and_write_as_today() {
        for status in [DoseStatus::Taken, DoseStatus::Skipped, DoseStatus::Missed] {
            assert_eq!(status.as_str().parse::<DoseStatus>(), Ok(status));
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
        }
        assert_eq!(" skipped ".parse::<DoseStatus>(), Ok(DoseStatus::Skipped));
        assert_eq!("Taken".parse::<DoseStatus>(), Err(UnknownStatus));
        assert_eq!("deleted".parse::<DoseStatus>(), Err(UnknownStatus));
    }
}
