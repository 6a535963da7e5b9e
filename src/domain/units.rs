//! The unit catalogue (SPEC §3) and conversion. Only weight and volume convert, by powers
//! of ten, exactly on thousandths.

use serde::Serialize;

use super::quantity::Quantity;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Weight,
    Volume,
    Count,
    Concentration,
}

/// A unit of the catalogue.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Unit {
    #[schema(value_type = String)]
    pub symbol: &'static str,
    #[schema(value_type = String)]
    pub name: &'static str,
    pub category: Category,
    #[schema(value_type = String)]
    pub description: &'static str,
    /// Weight and volume units convert within their category.
    pub convertible: bool,
    /// Other spellings accepted for it (`mcg` for `μg`).
    #[schema(value_type = Vec<String>)]
    pub aliases: &'static [&'static str],
    /// Power of ten relative to the category's base unit (mg, ml); sent so that the web app
    /// converts with the server's own catalogue.
    exponent: i32,
}

const fn unit(
    symbol: &'static str,
    name: &'static str,
    category: Category,
    description: &'static str,
    aliases: &'static [&'static str],
    exponent: i32,
) -> Unit {
    let convertible = matches!(category, Category::Weight | Category::Volume);
    Unit {
        symbol,
        name,
        category,
        description,
        convertible,
        aliases,
        exponent,
    }
}

pub static CATALOGUE: &[Unit] = &[
    unit("mg", "milligram", Category::Weight, "Milligrams", &[], 0),
    unit("μg", "microgram", Category::Weight, "Micrograms", &["mcg"], -3),
    unit("g", "gram", Category::Weight, "Grams", &[], 3),
    unit("kg", "kilogram", Category::Weight, "Kilograms", &[], 6),
    unit("ml", "millilitre", Category::Volume, "Millilitres", &[], 0),
    unit("l", "litre", Category::Volume, "Litres", &[], 3),
    unit("μl", "microlitre", Category::Volume, "Microlitres", &["mcl"], -3),
    unit("tablets", "tablets", Category::Count, "Tablets", &[], 0),
    unit("capsules", "capsules", Category::Count, "Capsules", &[], 0),
    unit("pills", "pills", Category::Count, "Pills", &[], 0),
    unit(
        "units",
        "units",
        Category::Count,
        "Units (for example insulin units)",
        &[],
        0,
    ),
    unit("drops", "drops", Category::Count, "Drops", &[], 0),
    unit("%", "percent", Category::Concentration, "Percent", &[], 0),
    unit(
        "mg/ml",
        "milligrams per millilitre",
        Category::Concentration,
        "Milligrams per millilitre",
        &[],
        0,
    ),
    unit(
        "μg/ml",
        "micrograms per millilitre",
        Category::Concentration,
        "Micrograms per millilitre",
        &["mcg/ml"],
        0,
    ),
    unit(
        "g/l",
        "grams per litre",
        Category::Concentration,
        "Grams per litre",
        &[],
        0,
    ),
];

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    #[error("Invalid unit specified")]
    Invalid,
    #[error("Cannot convert between {from} and {to}")]
    Incompatible { from: String, to: String },
}

/// A unit someone typed that is not one to store, worded as the spec words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitInputError {
    #[error("Unit is required")]
    Required,
    /// The unit as typed (trimmed).
    #[error("Unit '{0}' is not a valid medical unit")]
    Unknown(String),
}

/// The importer reports every problem of a file as text.
impl From<UnitInputError> for String {
    fn from(e: UnitInputError) -> String {
        e.to_string()
    }
}

/// Looks a unit up by symbol or alias. The micro sign (U+00B5) counts as the Greek mu it is
/// usually typed for, and letters compare case-insensitively (`ML` is ml).
pub fn find(text: &str) -> Option<&'static Unit> {
    let wanted = text.trim().replace('\u{00b5}', "μ").to_lowercase();
    if wanted.is_empty() {
        return None;
    }
    CATALOGUE
        .iter()
        .find(|u| u.symbol == wanted || u.aliases.contains(&wanted.as_str()))
}

/// A unit someone typed, looked up in the catalogue.
pub fn check(text: &str) -> Result<&'static Unit, UnitInputError> {
    if text.trim().is_empty() {
        return Err(UnitInputError::Required);
    }
    find(text).ok_or_else(|| UnitInputError::Unknown(text.trim().to_owned()))
}

/// A unit from the catalogue as its canonical symbol (`mcg` is `μg`).
pub fn canonical(text: &str) -> Result<String, UnitInputError> {
    check(text).map(|u| u.symbol.to_owned())
}

/// Converts between two units of one convertible category. Same unit: unchanged.
pub fn convert(value: Quantity, from: &str, to: &str) -> Result<Quantity, UnitError> {
    let (source, target) = (
        find(from).ok_or(UnitError::Invalid)?,
        find(to).ok_or(UnitError::Invalid)?,
    );
    if source.symbol == target.symbol {
        return Ok(value);
    }
    if source.category != target.category || !source.convertible {
        return Err(UnitError::Incompatible {
            from: source.symbol.into(),
            to: target.symbol.into(),
        });
    }
    let shift = source.exponent - target.exponent;
    let thousandths = i128::from(value.thousandths());
    let converted = if shift >= 0 {
        thousandths * 10i128.pow(shift as u32)
    } else {
        let divisor = 10i128.pow((-shift) as u32);
        (thousandths + thousandths.signum() * divisor / 2) / divisor
    };
    i64::try_from(converted)
        .ok()
        .and_then(|t| Quantity::from_f64(t as f64 / 1000.0).ok())
        .ok_or(UnitError::Incompatible {
            from: source.symbol.into(),
            to: target.symbol.into(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::quantity::q;

    #[test]
    fn catalogue_matches_the_spec() {
        let of = |c: Category| {
            CATALOGUE
                .iter()
                .filter(|u| u.category == c)
                .map(|u| u.symbol)
                .collect::<Vec<_>>()
        };
        assert_eq!(of(Category::Weight), ["mg", "μg", "g", "kg"]);
        assert_eq!(of(Category::Volume), ["ml", "l", "μl"]);
        assert_eq!(
            of(Category::Count),
            ["tablets", "capsules", "pills", "units", "drops"]
        );
        assert_eq!(of(Category::Concentration), ["%", "mg/ml", "μg/ml", "g/l"]);
        for u in CATALOGUE {
            assert_eq!(
                u.convertible,
                matches!(u.category, Category::Weight | Category::Volume),
                "{}",
                u.symbol
            );
        }
    }

    #[test]
    fn aliases_and_spellings() {
        assert_eq!(find("mcg").unwrap().symbol, "μg");
        assert_eq!(find("mcl").unwrap().symbol, "μl");
        assert_eq!(find("\u{00b5}g").unwrap().symbol, "μg", "micro sign");
        assert_eq!(find(" ML ").unwrap().symbol, "ml");
        assert!(find("teaspoons").is_none());
        assert!(find("").is_none());
    }

    #[test]
    fn weight_conversions() {
        assert_eq!(convert(q(1.0), "g", "mg"), Ok(q(1000.0)));
        assert_eq!(convert(q(1500.0), "mg", "g"), Ok(q(1.5)));
        assert_eq!(convert(q(250.0), "mcg", "mg"), Ok(q(0.25)));
        assert_eq!(convert(q(1.0), "mg", "μg"), Ok(q(1000.0)));
        assert_eq!(convert(q(0.002), "kg", "g"), Ok(q(2.0)));
        assert_eq!(convert(q(1.0), "kg", "mg"), Ok(q(1_000_000.0)));
        assert_eq!(
            convert(q(1.0), "μg", "g"),
            Ok(Quantity::ZERO),
            "below a thousandth rounds away"
        );
        assert_eq!(
            convert(q(500.0), "μg", "g"),
            Ok(q(0.001)),
            "half a thousandth rounds up"
        );
    }

    #[test]
    fn volume_conversions() {
        assert_eq!(convert(q(2.5), "l", "ml"), Ok(q(2500.0)));
        assert_eq!(convert(q(500.0), "mcl", "ml"), Ok(q(0.5)));
        assert_eq!(convert(q(0.001), "l", "μl"), Ok(q(1000.0)));
        assert_eq!(convert(q(3.0), "ml", "ml"), Ok(q(3.0)));
    }

    #[test]
    fn only_weight_and_volume_convert() {
        let err = convert(q(1.0), "mg", "ml").unwrap_err();
        assert_eq!(err.to_string(), "Cannot convert between mg and ml");
        assert!(matches!(
            convert(q(1.0), "tablets", "capsules"),
            Err(UnitError::Incompatible { .. })
        ));
        assert!(matches!(
            convert(q(1.0), "mg/ml", "g/l"),
            Err(UnitError::Incompatible { .. })
        ));
        assert_eq!(
            convert(q(2.0), "tablets", "tablets"),
            Ok(q(2.0)),
            "same unit needs no conversion"
        );
        assert_eq!(
            convert(q(1.0), "mg", "spoons").unwrap_err().to_string(),
            "Invalid unit specified"
        );
    }

    #[test]
    fn spec_validation_messages() {
        assert_eq!(check("").unwrap_err().to_string(), "Unit is required");
        assert_eq!(
            check(" spoons ").unwrap_err(),
            UnitInputError::Unknown("spoons".into())
        );
        assert_eq!(
            check("spoons").unwrap_err().to_string(),
            "Unit 'spoons' is not a valid medical unit"
        );
        assert_eq!(canonical("mcg"), Ok("μg".into()));
    }
}
