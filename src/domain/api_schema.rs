//! Pieces of the API document that the annotations cannot write themselves.

use utoipa::openapi::schema::{Object, ObjectBuilder, SchemaType, Type};

/// An integer that is one of `values` (or null, when `nullable`): the document's enum of a
/// field the server checks against a list of its own.
pub fn integer_choices(values: &[i64], nullable: bool, description: &str) -> Object {
    let mut choices: Vec<serde_json::Value> = values.iter().map(|v| (*v).into()).collect();
    let schema_type = if nullable {
        choices.push(serde_json::Value::Null);
        SchemaType::from_iter([Type::Integer, Type::Null])
    } else {
        Type::Integer.into()
    };
    ObjectBuilder::new()
        .schema_type(schema_type)
        .description(Some(description))
        .enum_values(Some(choices))
        .build()
}
