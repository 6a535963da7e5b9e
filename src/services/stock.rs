//! Stock: what a dose takes from a medication's inventory and gives back, with a ledger row
//! for every move, all in the caller's transaction.

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use serde::Serialize;
use utoipa::ToSchema;

use super::{ErrorCode, Problem, ServiceError, ServiceResult};
use crate::clock;
use crate::domain::dose::DoseStatus;
use crate::domain::quantity::Quantity;
use crate::domain::stock::{self, ContainerError, DoseUnitError, DoseWarning, StockStatus};
use crate::domain::units::{self, UnitError, UnitInputError};
use crate::reminders::words::Lang;
use crate::store::history::Entry;
use crate::store::medications::{self, Inventory, Medication, StockChange};

impl From<UnitInputError> for ServiceError {
    fn from(e: UnitInputError) -> Self {
        ServiceError::Invalid(match &e {
            UnitInputError::Required => Problem::new(ErrorCode::UnitRequired, e.to_string()),
            UnitInputError::Unknown(unit) => {
                Problem::new(ErrorCode::UnitInvalid, e.to_string()).with_param("unit", unit.as_str())
            }
        })
    }
}

impl From<UnitError> for ServiceError {
    fn from(e: UnitError) -> Self {
        ServiceError::Invalid(match &e {
            UnitError::Invalid => Problem::new(ErrorCode::UnitInvalid, e.to_string()),
            UnitError::Incompatible { from, to } => Problem::new(ErrorCode::UnitIncompatible, e.to_string())
                .with_param("from", from.as_str())
                .with_param("to", to.as_str()),
        })
    }
}

impl From<DoseUnitError> for ServiceError {
    fn from(e: DoseUnitError) -> Self {
        let code = match e {
            DoseUnitError::StrengthNeeded { .. } => ErrorCode::StrengthNeeded,
            DoseUnitError::Mismatch { .. } => ErrorCode::UnitMismatch,
        };
        let (stock, unit) = e.units();
        let problem = Problem::new(code, e.to_string())
            .with_param("stock", stock)
            .with_param("unit", unit);
        ServiceError::Invalid(problem)
    }
}

impl From<ContainerError> for ServiceError {
    fn from(e: ContainerError) -> Self {
        match e {
            ContainerError::Unit(e) => e.into(),
            ContainerError::Invalid(message) => super::invalid(message),
        }
    }
}

/// A medication's stock after a change, as answers show it; `None` (null) when it keeps none.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StockLevel {
    pub current_quantity: Quantity,
    pub stock_status: StockStatus,
}

impl StockLevel {
    pub fn of(inv: &Inventory) -> StockLevel {
        StockLevel {
            current_quantity: stock::on_hand(inv.current_quantity),
            stock_status: stock::status(inv.current_quantity, inv.reminder_threshold),
        }
    }
}

/// The stock level of a medication whose inventory is on.
pub fn level(conn: &Connection, medication_id: Option<i64>) -> ServiceResult<Option<StockLevel>> {
    let Some(id) = medication_id else {
        return Ok(None);
    };
    Ok(medications::inventory(conn, id)?
        .filter(|inv| inv.enabled)
        .as_ref()
        .map(StockLevel::of))
}

/// Why a recorded dose did not move the stock as it would have: a message for people and a
/// stable code for the client, both null when the stock moved as asked.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct StockWarning {
    pub warning: Option<String>,
    pub warning_code: Option<DoseWarning>,
}

impl StockWarning {
    fn new(code: DoseWarning, message: String) -> StockWarning {
        StockWarning {
            warning: Some(message),
            warning_code: Some(code),
        }
    }
}

/// Stock a taken entry uses now: zero unless taken, inventory-affecting, and the
/// medication's inventory is on. An error when the dose cannot be counted in the stock.
fn stock_use_of(
    entry: &Entry,
    medication: Option<&Medication>,
    inventory: Option<&Inventory>,
) -> Result<Quantity, UnitError> {
    let taken = entry.status.parse::<DoseStatus>() == Ok(DoseStatus::Taken);
    match (taken, entry.affect_inventory, medication, inventory) {
        (true, true, Some(m), Some(inv)) if inv.enabled => {
            inv.containers.usage(entry.quantity, &entry.dosage_unit, &m.unit)
        }
        _ => Ok(Quantity::ZERO),
    }
}

/// "2 tablets", "1 tablet", "0.5 ml": an amount in plain English for stored texts.
fn amount(quantity: Quantity, unit: &str) -> String {
    Lang::En.words().amount(quantity, unit)
}

/// Brings the stock in line with what `entry` should use, writing the ledger row. The
/// entry is never refused for its stock: a dose the stock cannot count leaves it alone,
/// and one larger than what is left takes only that (stock never goes below zero); both
/// answer a warning. `stock_used` is always what really came out of the stock, so a
/// delete or a switch gives back exactly that.
pub fn settle(
    conn: &Connection,
    user_id: i64,
    entry: &mut Entry,
    now: DateTime<Utc>,
) -> ServiceResult<StockWarning> {
    settle_to(conn, user_id, entry, false, now)
}

/// Gives back all the stock `entry` used, before it is deleted.
pub fn release(conn: &Connection, user_id: i64, entry: &mut Entry, now: DateTime<Utc>) -> ServiceResult<()> {
    settle_to(conn, user_id, entry, true, now).map(|_| ())
}

fn settle_to(
    conn: &Connection,
    user_id: i64,
    entry: &mut Entry,
    deleting: bool,
    now: DateTime<Utc>,
) -> ServiceResult<StockWarning> {
    let now = clock::stamp(now);
    let medication = match entry.medication_id {
        Some(id) => medications::find(conn, user_id, id)?,
        None => None,
    };
    let inventory = match &medication {
        Some(m) => medications::inventory(conn, m.id)?,
        None => None,
    };
    let used = if deleting {
        Ok(Quantity::ZERO)
    } else {
        stock_use_of(entry, medication.as_ref(), inventory.as_ref())
    };
    let should_use = match used {
        Ok(usage) => usage,
        Err(_) => {
            let (Some(m), Some(inv)) = (&medication, &inventory) else {
                return Ok(StockWarning::default());
            };
            let c = &inv.containers;
            let why = match c.check_dose_unit(&m.unit) {
                Err(e) => e.to_string(),
                Ok(()) => format!(
                    "A dose in {} cannot be counted in {}.",
                    entry.dosage_unit,
                    c.stock_unit()
                ),
            };
            return Ok(StockWarning::new(
                DoseWarning::StockUnitMismatch,
                format!(
                    "The dose is recorded, but the stock was left as it was. {}.",
                    why.trim_end_matches('.')
                ),
            ));
        }
    };
    let delta = should_use - entry.stock_used;
    let (Some(m), Some(inv)) = (&medication, &inventory) else {
        entry.stock_used = should_use;
        return Ok(StockWarning::default());
    };
    if delta == Quantity::ZERO {
        return Ok(StockWarning::default());
    }
    if delta < Quantity::ZERO {
        medications::move_stock(
            conn,
            m.id,
            -delta,
            StockChange::DoseReverted,
            None,
            Some(entry.id),
            &now,
        )?;
        entry.stock_used = should_use;
        return Ok(StockWarning::default());
    }
    let draw = stock::draw(inv.current_quantity, delta);
    let unit = inv.containers.stock_unit();
    let beyond =
        (draw.short > Quantity::ZERO).then(|| format!("{} taken beyond the stock", amount(draw.short, unit)));
    medications::move_stock(
        conn,
        m.id,
        -draw.taken,
        StockChange::Dose,
        beyond.as_deref(),
        Some(entry.id),
        &now,
    )?;
    entry.stock_used = entry.stock_used + draw.taken;
    Ok(match beyond {
        None => StockWarning::default(),
        Some(beyond) => StockWarning::new(
            DoseWarning::StockShort,
            if draw.taken == Quantity::ZERO {
                format!("The dose is recorded, but the stock was already empty ({beyond}).")
            } else {
                format!(
                    "The dose is recorded, but the stock had only {}: it is now 0 ({beyond}).",
                    amount(draw.taken, unit)
                )
            },
        ),
    })
}

/// A dose or stock unit from the catalogue, as its canonical symbol (`mcg` is `μg`).
pub fn unit(text: &str) -> ServiceResult<String> {
    Ok(units::canonical(text)?)
}
