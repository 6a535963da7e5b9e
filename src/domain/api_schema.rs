//! Pieces of the API document that the annotations cannot write themselves.

use utoipa::openapi::schema::{ArrayBuilder, Object, ObjectBuilder, SchemaType, Type};
use utoipa::openapi::{KnownFormat, SchemaFormat};

/// `kind`, or `kind` and null when `nullable`.
fn of_type(kind: Type, nullable: bool) -> SchemaType {
    if nullable {
        SchemaType::from_iter([kind, Type::Null])
    } else {
        kind.into()
    }
}

/// An integer that is one of `values` (or null, when `nullable`): the document's enum of a
/// field the server checks against a list of its own.
pub fn integer_choices(values: &[i64], nullable: bool, description: &str) -> Object {
    let mut choices: Vec<serde_json::Value> = values.iter().map(|v| (*v).into()).collect();
    if nullable {
        choices.push(serde_json::Value::Null);
    }
    ObjectBuilder::new()
        .schema_type(of_type(Type::Integer, nullable))
        .description(Some(description))
        .enum_values(Some(choices))
        .build()
}

/// A calendar day as the server reads it, `YYYY-MM-DD`: each month's length is kept
/// (8650-04-31 is not a day), leap years are not (no pattern knows them). The history list's
/// `date_from` and `date_to` write it out with an optional time (`http/history.rs`): a query
/// parameter whose schema is built here loses its description.
const DAY: &str =
    "[0-9]{4}-((0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])|(0[13-9]|1[0-2])-(29|30)|(0[13578]|1[02])-31)";

/// A field holding a day (`YYYY-MM-DD`, spaces around it allowed), or null when `nullable`.
/// (A field's schema written here carries its own description: the doc comment is not used.)
pub fn day(nullable: bool, description: &str) -> Object {
    ObjectBuilder::new()
        .schema_type(of_type(Type::String, nullable))
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Date)))
        .description(Some(description))
        .pattern(Some(format!("^\\s*{DAY}\\s*$")))
        .build()
}

/// A list of `items`, or null (an optional list a request may leave out).
pub fn nullable_array(items: ObjectBuilder, description: impl Into<String>) -> ArrayBuilder {
    ArrayBuilder::new()
        .schema_type(of_type(Type::Array, true))
        .items(items)
        .description(Some(description))
}
