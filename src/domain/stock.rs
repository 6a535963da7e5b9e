//! Stock rules: what an inventory holds in total, its status, how much of it a dose uses,
//! and when it runs out.
//!
//! Continuous stock (liquids, creams) is counted in the container's unit: 2 vials of 10 ml
//! hold 20 ml. Discrete stock (tablets) is counted in items: 3 blister packs of 10 tablets
//! hold 30 tablets; each item may carry a strength in the medication's unit (500 mg).

use chrono::{Duration, NaiveDate};
use serde::{Deserialize, Serialize};

use super::quantity::Quantity;
use super::units::{self, Category, UnitError, UnitInputError};

pub const DEFAULT_THRESHOLD: Quantity = Quantity::whole(10);
/// Containers, and items per container, beyond any real pharmacy order; it keeps totals far
/// from overflow.
pub const MAX_COUNT: i64 = 1_000_000;
pub const CONTINUOUS_CONTAINERS: &[&str] = &["vial", "bottle", "syringe", "box", "tube"];
pub const DISCRETE_CONTAINERS: &[&str] = &["pill_bottle", "blister_pack", "tablet_strip", "bottle", "box"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum InventoryType {
    Continuous,
    Discrete,
}

/// The shape of a medication's stock as the person describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Containers {
    pub inventory_type: InventoryType,
    pub container_type: Option<String>,
    pub container_quantity: Option<i64>,
    pub container_size: Option<Quantity>,
    pub container_unit: Option<String>,
    pub item_quantity: Option<i64>,
    pub item_strength: Option<Quantity>,
    pub item_unit: Option<String>,
}

impl Containers {
    /// Checks the fields the type needs (SPEC §5 "Medication forms").
    pub fn validate(&self) -> Result<(), ContainerError> {
        if self
            .container_quantity
            .is_some_and(|n| !(1..=MAX_COUNT).contains(&n))
        {
            return Err(ContainerError::Invalid(format!(
                "Container quantity must be a whole number from 1 to {MAX_COUNT}"
            )));
        }
        if self.item_quantity.is_some_and(|n| !(1..=MAX_COUNT).contains(&n)) {
            return Err(ContainerError::Invalid(format!(
                "Item quantity must be a whole number from 1 to {MAX_COUNT}"
            )));
        }
        for (value, label) in [
            (self.container_size, "Container size"),
            (self.item_strength, "Item strength"),
        ] {
            if value.is_some_and(|v| v < Quantity::ZERO) {
                return Err(ContainerError::Invalid(format!("{label} cannot be negative")));
            }
        }
        for unit in [&self.container_unit, &self.item_unit].into_iter().flatten() {
            units::check(unit)?;
        }
        match self.inventory_type {
            InventoryType::Continuous => {
                if self.container_quantity.is_none()
                    || self.container_size.is_none()
                    || blank(&self.container_unit)
                {
                    return Err(ContainerError::Invalid(
                        "Container quantity, size, and unit are required for continuous inventory".into(),
                    ));
                }
                check_container(&self.container_type, CONTINUOUS_CONTAINERS)
            }
            InventoryType::Discrete => {
                if blank(&self.container_type) || self.item_quantity.is_none() || blank(&self.item_unit) {
                    return Err(ContainerError::Invalid(
                        "Container type, item quantity and unit are required for discrete inventory".into(),
                    ));
                }
                check_container(&self.container_type, DISCRETE_CONTAINERS)
            }
        }
    }

    /// The unit stock is counted in.
    pub fn stock_unit(&self) -> &str {
        let unit = match self.inventory_type {
            InventoryType::Continuous => &self.container_unit,
            InventoryType::Discrete => &self.item_unit,
        };
        unit.as_deref()
            .and_then(units::find)
            .map(|u| u.symbol)
            .unwrap_or_default()
    }

    /// Container quantity × size (continuous) or × items per container (discrete).
    pub fn total(&self) -> Quantity {
        let containers = self.container_quantity.unwrap_or(1);
        let per_container = match self.inventory_type {
            InventoryType::Continuous => self.container_size.unwrap_or_default(),
            InventoryType::Discrete => Quantity::whole(self.item_quantity.unwrap_or(0)),
        };
        per_container.times(containers).unwrap_or_default()
    }

    /// How much stock a dose of `quantity` `dosage_unit` uses, in the stock's unit. A dose
    /// in the stock's own unit (or one it converts to) counts directly; for discrete stock a
    /// dose in the medication's strength unit counts in items (1000 mg of 500 mg tablets
    /// is 2 tablets).
    pub fn usage(
        &self,
        quantity: Quantity,
        dosage_unit: &str,
        medication_unit: &str,
    ) -> Result<Quantity, UnitError> {
        let direct = units::convert(quantity, dosage_unit, self.stock_unit());
        match (direct, self.inventory_type, self.item_strength) {
            (Ok(usage), _, _) => Ok(usage),
            (Err(mismatch @ UnitError::Incompatible { .. }), InventoryType::Discrete, Some(strength))
                if strength.is_positive() =>
            {
                // Through the strength, or else the dose and the stock do not match.
                units::convert(quantity, dosage_unit, medication_unit)
                    .ok()
                    .and_then(|amount| amount.divide(strength))
                    .ok_or(mismatch)
            }
            (Err(e), _, _) => Err(e),
        }
    }
}

impl Containers {
    /// Whether a dose in the medication's own unit can draw from this stock; the error says
    /// what to fill in. A set-up that fails this would refuse every dose, so it is refused
    /// when saved.
    pub fn check_dose_unit(&self, medication_unit: &str) -> Result<(), DoseUnitError> {
        if self
            .usage(Quantity::whole(1), medication_unit, medication_unit)
            .is_ok()
        {
            return Ok(());
        }
        let stock = self.stock_unit().to_owned();
        let unit = units::find(medication_unit)
            .map_or(medication_unit, |u| u.symbol)
            .to_owned();
        Err(match self.inventory_type {
            InventoryType::Discrete => DoseUnitError::StrengthNeeded {
                item: singular(&stock).to_owned(),
                stock,
                unit,
            },
            InventoryType::Continuous => {
                let hint = match units::find(&unit).filter(|u| u.convertible) {
                    Some(u) => format!(" or another {} unit", category_name(u.category)),
                    None => ", a unit a dose converts to".to_owned(),
                };
                DoseUnitError::Mismatch { stock, unit, hint }
            }
        })
    }
}

/// Why a dose in the medication's unit cannot draw from a stock, and what to fill in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DoseUnitError {
    /// Discrete stock whose items need a strength in the dose's unit.
    #[error(
        "Stock is counted in {stock} but doses are in {unit}: enter how many {unit} one {item} holds (item strength)"
    )]
    StrengthNeeded {
        stock: String,
        unit: String,
        item: String,
    },
    /// Continuous stock counted in a unit doses do not convert to; `hint` follows the unit
    /// (" or another weight unit").
    #[error("Stock is counted in {stock} but doses are in {unit}: count the stock in {unit}{hint}")]
    Mismatch {
        stock: String,
        unit: String,
        hint: String,
    },
}

impl DoseUnitError {
    /// The unit the stock is counted in, and the dose's unit.
    pub fn units(&self) -> (&str, &str) {
        match self {
            DoseUnitError::StrengthNeeded { stock, unit, .. }
            | DoseUnitError::Mismatch { stock, unit, .. } => (stock, unit),
        }
    }
}

/// A stock set-up that cannot be saved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContainerError {
    #[error(transparent)]
    Unit(#[from] UnitInputError),
    #[error("{0}")]
    Invalid(String),
}

/// The importer reports every problem of a file as text.
impl From<ContainerError> for String {
    fn from(e: ContainerError) -> String {
        e.to_string()
    }
}

impl From<DoseUnitError> for String {
    fn from(e: DoseUnitError) -> String {
        e.to_string()
    }
}

/// "tablet" for "tablets": how one item of a counted unit reads.
fn singular(unit: &str) -> &str {
    match units::find(unit) {
        Some(u) if u.category == Category::Count => unit.strip_suffix('s').unwrap_or(unit),
        _ => unit,
    }
}

fn category_name(category: Category) -> &'static str {
    match category {
        Category::Weight => "weight",
        Category::Volume => "volume",
        Category::Count => "count",
        Category::Concentration => "concentration",
    }
}

/// What a stock can give towards a dose: never more than is left, so stock never goes
/// below zero; `short` is the part of the dose taken beyond the stock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Draw {
    pub taken: Quantity,
    pub short: Quantity,
}

pub fn draw(current: Quantity, wanted: Quantity) -> Draw {
    let available = on_hand(current);
    let taken = wanted.min(available).max(Quantity::ZERO);
    Draw {
        taken,
        short: (wanted - taken).max(Quantity::ZERO),
    }
}

/// The stock as people see it: a balance below zero (left by older versions) is none.
pub fn on_hand(current: Quantity) -> Quantity {
    current.max(Quantity::ZERO)
}

/// Why a dose left the stock alone or could not take all it needed; the dose itself is
/// always recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DoseWarning {
    /// The dose's unit cannot be counted in the stock's unit.
    StockUnitMismatch,
    /// The dose was larger than what was left; stock stopped at zero.
    StockShort,
}

fn blank(value: &Option<String>) -> bool {
    value.as_deref().is_none_or(|v| v.trim().is_empty())
}

fn check_container(container: &Option<String>, allowed: &[&str]) -> Result<(), ContainerError> {
    match container.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        Some(c) if !allowed.contains(&c) => Err(ContainerError::Invalid(format!(
            "Container type must be one of {}",
            allowed.join(", ")
        ))),
        _ => Ok(()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StockStatus {
    OutOfStock,
    Low,
    InStock,
}

/// Out at zero or below, low at or below the threshold, else in stock (SPEC §4).
pub fn status(current: Quantity, threshold: Quantity) -> StockStatus {
    if current <= Quantity::ZERO {
        StockStatus::OutOfStock
    } else if current <= threshold {
        StockStatus::Low
    } else {
        StockStatus::InStock
    }
}

/// The day the stock is expected to run out, from `today` at `usage_per_day`; `None` when
/// nothing is used on a schedule.
pub fn runs_out_on(current: Quantity, usage_per_day: f64, today: NaiveDate) -> Option<NaiveDate> {
    if !(usage_per_day.is_finite() && usage_per_day > 0.0) {
        return None;
    }
    if current <= Quantity::ZERO {
        return Some(today);
    }
    let days = (current.to_f64() / usage_per_day).floor();
    // Cap far-away forecasts: a century of stock is "not soon".
    let days = days.min(36_500.0) as i64;
    today.checked_add_signed(Duration::days(days))
}

/// Days before a batch's expiry that the person is told about it.
pub const EXPIRY_NOTICE_DAYS: i64 = 30;

/// A batch may be used through its expiry day; from the next day on it is expired.
pub fn batch_expired(expires_on: NaiveDate, today: NaiveDate) -> bool {
    expires_on < today
}

/// Not expired, and expiring within `EXPIRY_NOTICE_DAYS` of `today`.
pub fn batch_expiring_soon(expires_on: NaiveDate, today: NaiveDate) -> bool {
    !batch_expired(expires_on, today) && (expires_on - today).num_days() <= EXPIRY_NOTICE_DAYS
}

/// How a dose of `wanted` is taken from batches (each `(id, remaining)`, given the first to
/// expire first): as much as each holds, in that order (first expiry, first out); `short` is
/// what none of them had.
pub fn first_expiry_first_out(
    batches: &[(i64, Quantity)],
    wanted: Quantity,
) -> (Vec<(i64, Quantity)>, Quantity) {
    let mut left = wanted.max(Quantity::ZERO);
    let mut takes = Vec::new();
    for &(id, remaining) in batches {
        if left == Quantity::ZERO {
            break;
        }
        let take = left.min(remaining.max(Quantity::ZERO));
        if take > Quantity::ZERO {
            takes.push((id, take));
            left = left - take;
        }
    }
    (takes, left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::quantity::q;

    fn vials() -> Containers {
        Containers {
            inventory_type: InventoryType::Continuous,
            container_type: Some("vial".into()),
            container_quantity: Some(2),
            container_size: Some(q(10.0)),
            container_unit: Some("ml".into()),
            item_quantity: None,
            item_strength: None,
            item_unit: None,
        }
    }

    fn blisters() -> Containers {
        Containers {
            inventory_type: InventoryType::Discrete,
            container_type: Some("blister_pack".into()),
            container_quantity: Some(3),
            container_size: None,
            container_unit: None,
            item_quantity: Some(10),
            item_strength: Some(q(500.0)),
            item_unit: Some("tablets".into()),
        }
    }

    #[test]
    fn totals() {
        assert_eq!(vials().total(), q(20.0));
        assert_eq!(vials().stock_unit(), "ml");
        assert_eq!(blisters().total(), q(30.0));
        assert_eq!(blisters().stock_unit(), "tablets");
        let half = Containers {
            container_size: Some(q(2.5)),
            container_quantity: Some(3),
            ..vials()
        };
        assert_eq!(half.total(), q(7.5));
    }

    #[test]
    fn validation_messages_from_the_spec() {
        assert_eq!(vials().validate(), Ok(()));
        assert_eq!(blisters().validate(), Ok(()));
        let no_size = Containers {
            container_size: None,
            ..vials()
        };
        assert_eq!(
            no_size.validate().unwrap_err().to_string(),
            "Container quantity, size, and unit are required for continuous inventory"
        );
        let no_items = Containers {
            item_quantity: None,
            ..blisters()
        };
        assert_eq!(
            no_items.validate().unwrap_err().to_string(),
            "Container type, item quantity and unit are required for discrete inventory"
        );
        let no_type = Containers {
            container_type: None,
            ..blisters()
        };
        assert!(no_type.validate().is_err());
        assert!(
            Containers {
                container_quantity: Some(0),
                ..vials()
            }
            .validate()
            .is_err()
        );
        assert!(
            Containers {
                item_quantity: Some(-1),
                ..blisters()
            }
            .validate()
            .is_err()
        );
        assert!(
            Containers {
                container_size: Some(q(-1.0)),
                ..vials()
            }
            .validate()
            .is_err()
        );
        assert!(
            Containers {
                container_type: Some("crate".into()),
                ..vials()
            }
            .validate()
            .is_err()
        );
        assert!(
            Containers {
                container_type: Some("vial".into()),
                ..blisters()
            }
            .validate()
            .is_err()
        );
        assert_eq!(
            Containers {
                container_unit: Some("cups".into()),
                ..vials()
            }
            .validate()
            .unwrap_err(),
            ContainerError::Unit(UnitInputError::Unknown("cups".into()))
        );
    }

    #[test]
    fn dose_usage_in_stock_units() {
        assert_eq!(vials().usage(q(2.5), "ml", "ml"), Ok(q(2.5)));
        assert_eq!(vials().usage(q(500.0), "μl", "ml"), Ok(q(0.5)));
        assert!(vials().usage(q(1.0), "mg", "ml").is_err());
        assert_eq!(blisters().usage(q(2.0), "tablets", "mg"), Ok(q(2.0)));
        assert_eq!(
            blisters().usage(q(1000.0), "mg", "mg"),
            Ok(q(2.0)),
            "via the strength"
        );
        assert_eq!(blisters().usage(q(1.0), "g", "mg"), Ok(q(2.0)));
        assert_eq!(blisters().usage(q(250.0), "mg", "mg"), Ok(q(0.5)));
        assert_eq!(
            blisters().usage(q(5.0), "ml", "mg").unwrap_err().to_string(),
            "Cannot convert between ml and tablets"
        );
        let unknown_strength = Containers {
            item_strength: None,
            ..blisters()
        };
        assert_eq!(
            unknown_strength
                .usage(q(500.0), "mg", "mg")
                .unwrap_err()
                .to_string(),
            "Cannot convert between mg and tablets"
        );
    }

    #[test]
    fn a_set_up_that_doses_cannot_draw_from_says_what_to_fill_in() {
        assert_eq!(blisters().check_dose_unit("mg"), Ok(()), "through the strength");
        assert_eq!(blisters().check_dose_unit("tablets"), Ok(()), "counted directly");
        let no_strength = Containers {
            item_strength: None,
            ..blisters()
        };
        assert_eq!(
            no_strength.check_dose_unit("mg").unwrap_err().to_string(),
            "Stock is counted in tablets but doses are in mg: enter how many mg one tablet holds (item strength)"
        );
        let zero_strength = Containers {
            item_strength: Some(Quantity::ZERO),
            ..blisters()
        };
        assert_eq!(
            zero_strength.check_dose_unit("mg").unwrap_err().units(),
            ("tablets", "mg")
        );
        assert_eq!(vials().check_dose_unit("ml"), Ok(()));
        assert_eq!(vials().check_dose_unit("μl"), Ok(()), "volumes convert");
        assert_eq!(
            vials().check_dose_unit("units").unwrap_err().to_string(),
            "Stock is counted in ml but doses are in units: count the stock in units, a unit a dose converts to"
        );
        assert_eq!(
            vials().check_dose_unit("mcg").unwrap_err().to_string(),
            "Stock is counted in ml but doses are in μg: count the stock in μg or another weight unit"
        );
    }

    #[test]
    fn stock_gives_at_most_what_is_left() {
        assert_eq!(
            draw(q(5.0), q(2.0)),
            Draw {
                taken: q(2.0),
                short: Quantity::ZERO
            }
        );
        assert_eq!(
            draw(q(1.0), q(3.0)),
            Draw {
                taken: q(1.0),
                short: q(2.0)
            }
        );
        assert_eq!(
            draw(Quantity::ZERO, q(0.5)),
            Draw {
                taken: Quantity::ZERO,
                short: q(0.5)
            }
        );
        assert_eq!(
            draw(q(-1.0), q(1.0)),
            Draw {
                taken: Quantity::ZERO,
                short: q(1.0)
            },
            "a negative balance gives nothing"
        );
        assert_eq!(on_hand(q(-2.0)), Quantity::ZERO);
        assert_eq!(on_hand(q(2.5)), q(2.5));
    }

    #[test]
    fn stock_status_edges() {
        assert_eq!(status(Quantity::ZERO, DEFAULT_THRESHOLD), StockStatus::OutOfStock);
        assert_eq!(status(q(-1.0), DEFAULT_THRESHOLD), StockStatus::OutOfStock);
        assert_eq!(status(q(10.0), DEFAULT_THRESHOLD), StockStatus::Low);
        assert_eq!(status(q(10.001), DEFAULT_THRESHOLD), StockStatus::InStock);
        assert_eq!(status(q(0.5), Quantity::ZERO), StockStatus::InStock);
    }

    #[test]
    fn forecast() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
        assert_eq!(
            runs_out_on(q(30.0), 2.0, today),
            NaiveDate::from_ymd_opt(2026, 12, 6)
        );
        assert_eq!(runs_out_on(q(1.0), 2.0, today), Some(today));
        assert_eq!(runs_out_on(Quantity::ZERO, 1.0, today), Some(today));
        assert_eq!(runs_out_on(q(30.0), 0.0, today), None);
        assert_eq!(
            runs_out_on(q(4.0), 2.0 / 7.0, today),
            NaiveDate::from_ymd_opt(2026, 12, 5)
        );
    }

    #[test]
    fn batches_expire_the_day_after_their_date_and_are_noticed_thirty_days_before() {
        let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        assert!(!batch_expired(day("2026-03-10"), day("2026-03-10")));
        assert!(batch_expired(day("2026-03-10"), day("2026-03-11")));
        assert!(batch_expiring_soon(day("2026-04-09"), day("2026-03-10")));
        assert!(!batch_expiring_soon(day("2026-04-10"), day("2026-03-10")));
        assert!(!batch_expiring_soon(day("2026-03-09"), day("2026-03-10")));
    }

    #[test]
    fn doses_draw_from_the_first_batch_to_expire_then_the_next() {
        let batches = [(1, q(3.0)), (2, q(0.0)), (3, q(10.0))];
        assert_eq!(
            first_expiry_first_out(&batches, q(2.0)),
            (vec![(1, q(2.0))], q(0.0))
        );
        assert_eq!(
            first_expiry_first_out(&batches, q(5.0)),
            (vec![(1, q(3.0)), (3, q(2.0))], q(0.0))
        );
        assert_eq!(
            first_expiry_first_out(&batches, q(15.0)),
            (vec![(1, q(3.0)), (3, q(10.0))], q(2.0))
        );
        assert_eq!(first_expiry_first_out(&[], q(1.0)), (vec![], q(1.0)));
    }
}
