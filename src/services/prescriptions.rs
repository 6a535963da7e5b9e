//! A medication's prescription (issue 29): who prescribed it, the pharmacy that fills it, when
//! it expires and how many refills are left; and when a refill must be ordered: `order_days_before`
//! days (default 7) before the stock runs out at the planned rate, or before the prescription
//! expires. Marking a refill ordered silences it until stock is added; adding stock counts a
//! refill down. With no refills left, or a prescription about to expire, the person is told to
//! ask for a new prescription.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{ErrorCode, Problem, ServiceError, ServiceResult, not_found};
use crate::db::Stamp;
use crate::store::prescriptions::{self, Prescription};

pub const DEFAULT_ORDER_DAYS_BEFORE: u32 = 7;
const MAX_TEXT: usize = 200;
const MAX_PHONE: usize = 40;
const MAX_URL: usize = 500;
const MAX_REFILLS: u32 = 99;
const MAX_ORDER_DAYS: u32 = 90;

/// A prescription as sent with a medication; what is left out is empty. Sending one replaces
/// the one before (a refill marked ordered stays so).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct PrescriptionInput {
    #[schema(max_length = 200)]
    pub prescriber: Option<String>,
    #[schema(max_length = 200)]
    pub pharmacy_name: Option<String>,
    /// Digits, spaces and `+ - ( ) / .`.
    #[schema(max_length = 40, pattern = r"^[0-9 +\-()/.]*$")]
    pub pharmacy_phone: Option<String>,
    /// An `http://` or `https://` address (its ordering page).
    #[schema(max_length = 500, pattern = "^(https?://.+)?$")]
    pub pharmacy_url: Option<String>,
    #[schema(format = Date)]
    pub prescribed_on: Option<String>,
    /// Not before `prescribed_on`.
    #[schema(format = Date)]
    pub expires_on: Option<String>,
    #[schema(minimum = 0, maximum = 99)]
    pub refills_authorised: Option<u32>,
    /// At most `refills_authorised`.
    #[schema(minimum = 0, maximum = 99)]
    pub refills_left: Option<u32>,
    /// Days before the stock runs out (or the prescription expires) to order; default 7.
    #[schema(minimum = 1, maximum = 90)]
    pub order_days_before: Option<u32>,
}

/// Why a refill is needed now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RefillReason {
    /// The stock runs out on `due_on` at the planned rate.
    Stock,
    /// The prescription expires on `due_on`.
    Expiry,
}

/// A refill (or a new prescription) to order now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct RefillNeed {
    pub reason: RefillReason,
    /// The day the stock runs out, or the prescription expires.
    #[schema(value_type = String, format = Date)]
    pub due_on: NaiveDate,
    /// `order_days_before` days before `due_on`: from this day on it needs ordering.
    #[schema(value_type = String, format = Date)]
    pub order_by: NaiveDate,
    /// `order_by` has passed (in the person's time zone): it needs ordering now.
    pub late: bool,
    /// The person marked it ordered (until stock is added).
    pub ordered: bool,
    /// No refills are left, or the prescription expires: the prescriber must write a new one.
    pub new_prescription_needed: bool,
}

/// A medication's prescription as the API shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PrescriptionView {
    pub prescriber: String,
    pub pharmacy_name: String,
    pub pharmacy_phone: String,
    pub pharmacy_url: String,
    #[schema(value_type = Option<String>, format = Date, required = true)]
    pub prescribed_on: Option<NaiveDate>,
    #[schema(value_type = Option<String>, format = Date, required = true)]
    pub expires_on: Option<NaiveDate>,
    #[schema(required = true)]
    pub refills_authorised: Option<i64>,
    #[schema(required = true)]
    pub refills_left: Option<i64>,
    pub order_days_before: i64,
    /// When a refill was marked ordered (cleared when stock is added).
    #[schema(value_type = Option<String>, required = true)]
    pub ordered_at: Option<Stamp>,
    /// What needs ordering now; null when nothing does.
    #[schema(required = true)]
    pub refill: Option<RefillNeed>,
}

/// A refusal of one of the prescription's fields, with its code and the field's API name.
fn refused(code: ErrorCode, field: &str, message: String) -> ServiceError {
    ServiceError::Invalid(Problem::new(code, message).with_param("field", field))
}

/// A text field trimmed; `key` is its API name, `label` its name in the message.
fn text(value: Option<String>, max: usize, key: &str, label: &str) -> ServiceResult<String> {
    let value = value.unwrap_or_default().trim().to_owned();
    if value.chars().count() > max {
        return Err(ServiceError::Invalid(
            Problem::new(
                ErrorCode::PrescriptionTextTooLong,
                format!("{label} can be at most {max} characters"),
            )
            .with_param("field", key)
            .with_param("max", max),
        ));
    }
    if value.chars().any(char::is_control) {
        return Err(refused(
            ErrorCode::PrescriptionTextInvalid,
            key,
            format!("{label} cannot contain control characters"),
        ));
    }
    Ok(value)
}

fn day(value: Option<String>, key: &str, label: &str) -> ServiceResult<Option<NaiveDate>> {
    value
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
        .map(|v| {
            NaiveDate::parse_from_str(&v, "%Y-%m-%d").map_err(|_| {
                refused(
                    ErrorCode::PrescriptionDateInvalid,
                    key,
                    format!("{label} must be a date written YYYY-MM-DD"),
                )
            })
        })
        .transpose()
}

/// The prescription a medication's input describes, checked before anything is written (its
/// medication and its refill's state are set when it is saved, by `apply`). Each refusal has
/// its own code, and `params.field` names the field where there is one.
pub fn checked(input: PrescriptionInput, now: DateTime<Utc>) -> ServiceResult<Prescription> {
    let phone = text(
        input.pharmacy_phone,
        MAX_PHONE,
        "pharmacy_phone",
        "The pharmacy's phone",
    )?;
    if !phone.chars().all(|c| c.is_ascii_digit() || " +-()/.".contains(c)) {
        return Err(refused(
            ErrorCode::PharmacyPhoneInvalid,
            "pharmacy_phone",
            "The pharmacy's phone can have digits, spaces and + - ( ) / . only".into(),
        ));
    }
    let url = text(
        input.pharmacy_url,
        MAX_URL,
        "pharmacy_url",
        "The pharmacy's web address",
    )?;
    if !(url.is_empty() || url.starts_with("https://") || url.starts_with("http://")) {
        return Err(refused(
            ErrorCode::PharmacyUrlInvalid,
            "pharmacy_url",
            "The pharmacy's web address must start with https:// (or http://)".into(),
        ));
    }
    let prescribed_on = day(input.prescribed_on, "prescribed_on", "The prescription date")?;
    let expires_on = day(input.expires_on, "expires_on", "The expiry date")?;
    if let (Some(from), Some(to)) = (prescribed_on, expires_on)
        && to < from
    {
        return Err(refused(
            ErrorCode::PrescriptionExpiresBeforeWritten,
            "expires_on",
            "The prescription cannot expire before it was written".into(),
        ));
    }
    for (value, key, label) in [
        (
            input.refills_authorised,
            "refills_authorised",
            "Refills authorised",
        ),
        (input.refills_left, "refills_left", "Refills left"),
    ] {
        if value.is_some_and(|n| n > MAX_REFILLS) {
            return Err(ServiceError::Invalid(
                Problem::new(
                    ErrorCode::RefillsOutOfRange,
                    format!("{label} must be from 0 to {MAX_REFILLS}"),
                )
                .with_param("field", key)
                .with_param("max", MAX_REFILLS),
            ));
        }
    }
    if let (Some(left), Some(all)) = (input.refills_left, input.refills_authorised)
        && left > all
    {
        return Err(refused(
            ErrorCode::RefillsLeftAboveAuthorised,
            "refills_left",
            "Refills left cannot be more than the refills authorised".into(),
        ));
    }
    let order_days_before = input.order_days_before.unwrap_or(DEFAULT_ORDER_DAYS_BEFORE);
    if !(1..=MAX_ORDER_DAYS).contains(&order_days_before) {
        return Err(ServiceError::Invalid(
            Problem::new(
                ErrorCode::OrderDaysOutOfRange,
                format!("Order a refill from 1 to {MAX_ORDER_DAYS} days before it is needed"),
            )
            .with_param("field", "order_days_before")
            .with_param("min", 1)
            .with_param("max", MAX_ORDER_DAYS),
        ));
    }
    let prescriber = text(input.prescriber, MAX_TEXT, "prescriber", "The prescriber")?;
    let pharmacy_name = text(
        input.pharmacy_name,
        MAX_TEXT,
        "pharmacy_name",
        "The pharmacy's name",
    )?;
    Ok(Prescription {
        medication_id: 0,
        prescriber,
        pharmacy_name,
        pharmacy_phone: phone,
        pharmacy_url: url,
        prescribed_on,
        expires_on,
        refills_authorised: input.refills_authorised.map(i64::from),
        refills_left: input.refills_left.map(i64::from),
        order_days_before: i64::from(order_days_before),
        ordered_at: None,
        reminded_for: None,
        updated_at: Stamp::from(now),
    })
}

/// Saves a medication's prescription as `checked` made it (a refill marked ordered stays so),
/// or with `None` removes it.
pub fn apply(conn: &Connection, medication_id: i64, prescription: Option<Prescription>) -> ServiceResult<()> {
    match prescription {
        None => {
            prescriptions::remove(conn, medication_id)?;
        }
        Some(mut p) => {
            let before = prescriptions::find(conn, medication_id)?;
            p.medication_id = medication_id;
            p.ordered_at = before.as_ref().and_then(|b| b.ordered_at);
            p.reminded_for = before.as_ref().and_then(|b| b.reminded_for);
            prescriptions::save(conn, &p)?;
        }
    }
    Ok(())
}

/// Marks a refill of the medication ordered (until stock is added).
pub fn mark_ordered(conn: &Connection, medication_id: i64, now: DateTime<Utc>) -> ServiceResult<()> {
    let Some(mut p) = prescriptions::find(conn, medication_id)? else {
        return Err(not_found(
            ErrorCode::PrescriptionNotFound,
            "This medication has no prescription: add one to order refills",
        ));
    };
    p.ordered_at = Some(Stamp::from(now));
    p.updated_at = Stamp::from(now);
    prescriptions::save(conn, &p)?;
    Ok(())
}

/// What needs ordering on `today`, given the day the stock runs out (None: it does not, or is
/// not counted): the earlier of the stock's and the prescription's day, once within
/// `order_days_before` of it.
pub fn need(p: &Prescription, runs_out_on: Option<NaiveDate>, today: NaiveDate) -> Option<RefillNeed> {
    let days = Duration::days(p.order_days_before);
    let mut candidates: Vec<(RefillReason, NaiveDate)> = Vec::new();
    if let Some(out) = runs_out_on {
        candidates.push((RefillReason::Stock, out));
    }
    if let Some(expires) = p.expires_on {
        candidates.push((RefillReason::Expiry, expires));
    }
    let (reason, due_on) = candidates
        .into_iter()
        .filter(|(_, due)| today >= *due - days)
        .min_by_key(|(_, due)| *due)?;
    Some(RefillNeed {
        reason,
        due_on,
        order_by: due_on - days,
        late: due_on - days < today,
        ordered: p.ordered_at.is_some(),
        new_prescription_needed: reason == RefillReason::Expiry || p.refills_left == Some(0),
    })
}

pub fn view(p: &Prescription, runs_out_on: Option<NaiveDate>, today: NaiveDate) -> PrescriptionView {
    PrescriptionView {
        prescriber: p.prescriber.clone(),
        pharmacy_name: p.pharmacy_name.clone(),
        pharmacy_phone: p.pharmacy_phone.clone(),
        pharmacy_url: p.pharmacy_url.clone(),
        prescribed_on: p.prescribed_on,
        expires_on: p.expires_on,
        refills_authorised: p.refills_authorised,
        refills_left: p.refills_left,
        order_days_before: p.order_days_before,
        ordered_at: p.ordered_at,
        refill: need(p, runs_out_on, today),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prescription(expires: Option<&str>, left: Option<i64>) -> Prescription {
        Prescription {
            medication_id: 1,
            prescriber: String::new(),
            pharmacy_name: String::new(),
            pharmacy_phone: String::new(),
            pharmacy_url: String::new(),
            prescribed_on: None,
            expires_on: expires.map(|d| d.parse().unwrap()),
            refills_authorised: left,
            refills_left: left,
            order_days_before: 7,
            ordered_at: None,
            reminded_for: None,
            updated_at: Stamp::at("2026-11-01T00:00:00Z"),
        }
    }

    fn d(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    #[test]
    fn a_refill_is_needed_from_a_week_before_the_stock_runs_out() {
        let p = prescription(None, Some(2));
        assert_eq!(need(&p, Some(d("2026-12-10")), d("2026-12-02")), None);
        let n = need(&p, Some(d("2026-12-10")), d("2026-12-03")).unwrap();
        assert_eq!(
            (n.reason, n.order_by, n.new_prescription_needed),
            (RefillReason::Stock, d("2026-12-03"), false)
        );
        assert_eq!(
            need(&p, None, d("2026-12-03")),
            None,
            "stock not counted, no expiry"
        );
    }

    #[test]
    fn an_expiring_prescription_or_no_refills_left_asks_for_a_new_one() {
        let p = prescription(Some("2026-12-05"), Some(3));
        let n = need(&p, Some(d("2027-01-30")), d("2026-11-29")).unwrap();
        assert_eq!(
            (n.reason, n.due_on, n.new_prescription_needed),
            (RefillReason::Expiry, d("2026-12-05"), true)
        );
        let none_left = prescription(None, Some(0));
        assert!(
            need(&none_left, Some(d("2026-12-01")), d("2026-11-30"))
                .unwrap()
                .new_prescription_needed
        );
    }

    #[test]
    fn bad_fields_are_refused_with_what_to_change() {
        let now = Utc::now();
        let bad = |input: PrescriptionInput| checked(input, now).unwrap_err().to_string();
        assert!(
            bad(PrescriptionInput {
                pharmacy_phone: Some("call me".into()),
                ..Default::default()
            })
            .contains("digits")
        );
        assert!(
            bad(PrescriptionInput {
                pharmacy_url: Some("javascript:alert(1)".into()),
                ..Default::default()
            })
            .contains("https://")
        );
        assert!(
            bad(PrescriptionInput {
                prescribed_on: Some("2026-12-01".into()),
                expires_on: Some("2026-11-01".into()),
                ..Default::default()
            })
            .contains("expire before")
        );
        assert!(
            bad(PrescriptionInput {
                refills_authorised: Some(1),
                refills_left: Some(2),
                ..Default::default()
            })
            .contains("more than")
        );
        assert!(
            bad(PrescriptionInput {
                order_days_before: Some(0),
                ..Default::default()
            })
            .contains("from 1 to 90")
        );
        assert!(
            bad(PrescriptionInput {
                expires_on: Some("soon".into()),
                ..Default::default()
            })
            .contains("YYYY-MM-DD")
        );
    }
}
