//! Quantities (doses, stock) with three decimals, kept exactly as integer thousandths so
//! that 0.1 + 0.2 is 0.3 and a stock count never drifts. The API speaks plain JSON numbers.

use std::fmt;
use std::ops::{Add, Neg, Sub};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The largest magnitude accepted (a billion units): far beyond any real stock, small enough
/// that sums never overflow.
const MAX_THOUSANDTHS: i64 = 1_000_000_000_000;

/// In the API: a JSON number with at most three decimals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, utoipa::ToSchema)]
#[schema(value_type = f64)]
pub struct Quantity(i64);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    #[error("not a number")]
    NotANumber,
    #[error("at most 3 decimals are allowed")]
    TooPrecise,
    #[error("number is too large")]
    TooLarge,
}

impl Quantity {
    pub const ZERO: Quantity = Quantity(0);

    /// `units` whole units (saturating far beyond any real stock).
    pub const fn whole(units: i64) -> Quantity {
        Quantity(units.saturating_mul(1000))
    }

    pub const fn thousandths(self) -> i64 {
        self.0
    }

    /// From a JSON number: at most three decimals.
    pub fn from_f64(value: f64) -> Result<Quantity, QuantityError> {
        if !value.is_finite() {
            return Err(QuantityError::NotANumber);
        }
        let scaled = value * 1000.0;
        let rounded = scaled.round();
        // Decimal input such as 0.1 is not exact in binary; anything within a millionth of a
        // thousandth is that thousandth.
        if (scaled - rounded).abs() > 1e-6 * rounded.abs().max(1.0) {
            return Err(QuantityError::TooPrecise);
        }
        if rounded.abs() > MAX_THOUSANDTHS as f64 {
            return Err(QuantityError::TooLarge);
        }
        Ok(Quantity(rounded as i64))
    }

    pub fn to_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }

    pub fn is_positive(self) -> bool {
        self.0 > 0
    }

    /// `self × n`, or `None` past the accepted range.
    pub fn times(self, n: i64) -> Option<Quantity> {
        self.0
            .checked_mul(n)
            .filter(|v| v.abs() <= MAX_THOUSANDTHS * 1000)
            .map(Quantity)
    }

    /// `self ÷ other` as decimals, rounded to thousandths; `None` when dividing by zero.
    pub fn divide(self, other: Quantity) -> Option<Quantity> {
        if other.0 == 0 {
            return None;
        }
        let numerator = i128::from(self.0) * 1000;
        let denominator = i128::from(other.0);
        let quotient = (numerator * 2 + denominator.signum() * numerator.signum() * denominator.abs())
            / (denominator * 2);
        i64::try_from(quotient).ok().map(Quantity)
    }
}

impl Add for Quantity {
    type Output = Quantity;
    fn add(self, other: Quantity) -> Quantity {
        Quantity(self.0 + other.0)
    }
}

impl Sub for Quantity {
    type Output = Quantity;
    fn sub(self, other: Quantity) -> Quantity {
        Quantity(self.0 - other.0)
    }
}

impl Neg for Quantity {
    type Output = Quantity;
    fn neg(self) -> Quantity {
        Quantity(-self.0)
    }
}

impl fmt::Display for Quantity {
    /// `1`, `0.5`, `2.125`: no trailing zeros.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let (whole, fraction) = (abs / 1000, abs % 1000);
        if fraction == 0 {
            write!(f, "{sign}{whole}")
        } else {
            let digits = format!("{fraction:03}");
            write!(f, "{sign}{whole}.{}", digits.trim_end_matches('0'))
        }
    }
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0 % 1000 == 0 {
            serializer.serialize_i64(self.0 / 1000)
        } else {
            serializer.serialize_f64(self.to_f64())
        }
    }
}

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = f64::deserialize(deserializer)?;
        Quantity::from_f64(value).map_err(serde::de::Error::custom)
    }
}

impl rusqlite::ToSql for Quantity {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(self.0.into())
    }
}

impl rusqlite::types::FromSql for Quantity {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        i64::column_result(value).map(Quantity)
    }
}

/// A quantity from a literal, for tests.
#[cfg(test)]
pub fn q(value: f64) -> Quantity {
    Quantity::from_f64(value).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_sums_are_exact() {
        assert_eq!(q(0.1) + q(0.2), q(0.3));
        assert_eq!((q(0.1) + q(0.2)).to_string(), "0.3");
        let mut total = Quantity::ZERO;
        for _ in 0..1000 {
            total = total + q(0.001);
        }
        assert_eq!(total, Quantity::whole(1));
        assert_eq!(q(10.0) - q(0.333) - q(0.333) - q(0.334), q(9.0));
    }

    #[test]
    fn three_decimals_at_most() {
        assert_eq!(q(2.125).thousandths(), 2125);
        assert_eq!(q(-0.5).thousandths(), -500);
        assert_eq!(Quantity::from_f64(0.0005), Err(QuantityError::TooPrecise));
        assert_eq!(Quantity::from_f64(1.2345), Err(QuantityError::TooPrecise));
        assert_eq!(Quantity::from_f64(f64::NAN), Err(QuantityError::NotANumber));
        assert_eq!(Quantity::from_f64(1e13), Err(QuantityError::TooLarge));
        assert_eq!(q(123456.789).thousandths(), 123_456_789);
    }

    #[test]
    fn json_round_trip_uses_plain_numbers() {
        assert_eq!(serde_json::to_string(&q(0.3)).unwrap(), "0.3");
        assert_eq!(serde_json::to_string(&q(20.0)).unwrap(), "20");
        assert_eq!(serde_json::to_string(&q(-1.5)).unwrap(), "-1.5");
        let parsed: Quantity = serde_json::from_str("0.1").unwrap();
        assert_eq!(parsed, q(0.1));
        assert!(serde_json::from_str::<Quantity>("0.0001").is_err());
        assert!(serde_json::from_str::<Quantity>("\"1\"").is_err());
    }

    #[test]
    fn quotients_round_to_thousandths() {
        assert_eq!(q(1.0).divide(q(3.0)), Some(q(0.333)));
        assert_eq!(q(2.0).divide(q(3.0)), Some(q(0.667)));
        assert_eq!(q(1000.0).divide(q(500.0)), Some(q(2.0)));
        assert_eq!(q(1.0).divide(Quantity::ZERO), None);
        assert_eq!(Quantity::whole(3).times(10), Some(Quantity::whole(30)));
    }

    #[test]
    fn display_trims_zeros() {
        assert_eq!(q(1.0).to_string(), "1");
        assert_eq!(q(0.05).to_string(), "0.05");
        assert_eq!(q(-2.5).to_string(), "-2.5");
    }
}
