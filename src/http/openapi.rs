//! The OpenAPI 3.1 document of the API, and the reference page that shows it at `/api/docs`
//! (embedded, works off-line).
//!
//! The document is generated from the handlers' annotations by the tests (`generate`) and
//! kept in src/http/openapi.json, which the binary embeds (gzipped by build.rs, with this
//! build's version). Building it at every start cost the binary the code that describes each
//! operation and schema, and the server a few megabytes of short-lived allocations.
//! `tests::openapi_json_is_current` fails when the file differs from the annotations;
//! `PILLBOX_WRITE_OPENAPI=1 cargo test openapi_json` writes it anew.

use std::io::Read;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

/// src/http/openapi.json with this build's version, gzipped (build.rs).
static DOCUMENT_GZIP: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/openapi.json.gz"));

/// The document as JSON text (`pillbox openapi`).
pub fn document_json() -> std::io::Result<String> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(DOCUMENT_GZIP).read_to_string(&mut text)?;
    Ok(text)
}

/// `/api/openapi.json`: the gzip copy as it is for a client that takes gzip, else inflated.
pub async fn document(request: HeaderMap) -> Response {
    let headers = [
        (header::CONTENT_TYPE, "application/json"),
        (header::CACHE_CONTROL, "no-cache"),
        (header::VARY, "Accept-Encoding"),
    ];
    if super::assets::accepts_gzip(&request) {
        return (headers, [(header::CONTENT_ENCODING, "gzip")], DOCUMENT_GZIP).into_response();
    }
    match document_json() {
        Ok(text) => (headers, text).into_response(),
        Err(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "This build's copy of the API document is damaged",
        )
            .into_response(),
    }
}

/// The API reference page; its script is part of the embedded web app.
pub async fn docs_page() -> impl IntoResponse {
    (
        [(header::CONTENT_SECURITY_POLICY, DOCS_CONTENT_SECURITY_POLICY)],
        Html(DOCS_PAGE),
    )
}

/// The app's policy, except that Redoc writes its styles into `<style>` elements at run time
/// (styled-components), which `style-src 'self'` blocks; the page holds no personal data.
const DOCS_CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
     worker-src 'self' blob:; object-src 'none'; base-uri 'self'; form-action 'self'; \
     frame-ancestors 'none'";

const DOCS_PAGE: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pillbox API</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
<redoc spec-url="/api/openapi.json"></redoc>
<script src="/api-docs/redoc.standalone.js"></script>
</body>
</html>
"#;

/// The document made from the annotations (tests only; see the module's comment).
#[cfg(test)]
pub mod generate {
    use std::collections::HashMap;

    use utoipa::openapi::OpenApi as OpenApiDoc;
    use utoipa::openapi::path::Operation;
    use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
    use utoipa::{Modify, OpenApi};

    use crate::http::error::ErrorBody;
    use crate::services::ErrorCode;
    use crate::version::VERSION;

    #[derive(OpenApi)]
    #[openapi(
        info(
            title = "Pillbox API",
            description = "The JSON API of a Pillbox server. Every answer is `{\"success\": true, \"data\": …}` or an error body with a stable `code`. Sign in with `POST /api/auth/login` and send the token as `Authorization: Bearer …`. Scripts can use an API token instead (`POST /api/tokens`, sent as `Authorization: Bearer pbx_…`) on the operations that list `api_token`: a person's medications, doses, stock and history, as a carer of the token's scope would; everywhere else it answers 403 `token_not_allowed`.",
            license(name = "Apache-2.0", identifier = "Apache-2.0"),
        ),
        components(schemas(ErrorBody, ErrorCode)),
        modifiers(&Security),
        security(("bearer" = [])),
    )]
    pub struct ApiDoc;

    struct Security;

    impl Modify for Security {
        fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
            openapi.info.version = VERSION.to_owned();
            let components = openapi.components.get_or_insert_with(Default::default);
            components.add_security_scheme(
                "bearer",
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .bearer_format("JWT")
                        .build(),
                ),
            );
            components.add_security_scheme(
                "api_token",
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .bearer_format("pbx_…")
                        .description(Some(
                            "An API token made in Settings → Security (`POST /api/tokens`); only the operations that list it accept it",
                        ))
                        .build(),
                ),
            );
        }
    }

    /// A medication's `unit` is one of the catalogue's (`GET /api/units`): the document lists
    /// their symbols, so that a client (and the contract test's generator) sends one the server
    /// takes. The server also reads other spellings of them (`mcg`, upper case).
    pub fn catalogue_units(doc: &mut OpenApiDoc) {
        use utoipa::openapi::schema::{Schema, SchemaType, Type};
        use utoipa::openapi::{ObjectBuilder, RefOr};

        let symbols: Vec<serde_json::Value> = crate::domain::units::CATALOGUE
            .iter()
            .map(|u| serde_json::Value::from(u.symbol))
            .collect();
        let Some(components) = doc.components.as_mut() else {
            return;
        };
        for name in ["MedicationInput", "NewMedicationInput"] {
            let Some(RefOr::T(Schema::Object(object))) = components.schemas.get_mut(name) else {
                continue;
            };
            let Some(RefOr::T(Schema::Object(unit))) = object.properties.get_mut("unit") else {
                continue;
            };
            let nullable = !matches!(unit.schema_type, SchemaType::Type(Type::String));
            let mut values = symbols.clone();
            if nullable {
                values.push(serde_json::Value::Null);
            }
            *unit = ObjectBuilder::new()
                .schema_type(unit.schema_type.clone())
                .description(unit.description.clone())
                .enum_values(Some(values))
                .build();
        }
    }

    /// Every operation of the document, with its method.
    pub fn operations_mut(doc: &mut OpenApiDoc) -> impl Iterator<Item = (&'static str, &mut Operation)> {
        doc.paths.paths.values_mut().flat_map(|item| {
            [
                ("get", &mut item.get),
                ("put", &mut item.put),
                ("post", &mut item.post),
                ("delete", &mut item.delete),
                ("options", &mut item.options),
                ("head", &mut item.head),
                ("patch", &mut item.patch),
                ("trace", &mut item.trace),
            ]
            .into_iter()
            .filter_map(|(method, operation)| operation.as_mut().map(|o| (method, o)))
        })
    }

    /// utoipa names an operation after its handler, and handlers of different modules share names
    /// (`list`, `get`, `update`); OpenAPI wants operation ids unique, and the web app's generated
    /// types are keyed by them. Each id gets its first tag in front (`instance_version`), and a
    /// handler that serves several methods of one path gets the method behind
    /// (`inventory_save_inventory_put`).
    pub fn qualified_operation_ids(mut doc: OpenApiDoc) -> OpenApiDoc {
        let mut uses: HashMap<String, usize> = HashMap::new();
        for (_, operation) in operations_mut(&mut doc) {
            let tag = operation.tags.as_ref().and_then(|tags| tags.first());
            if let (Some(tag), Some(id)) = (tag, operation.operation_id.as_mut()) {
                *id = format!("{}_{id}", tag.replace('-', "_"));
                *uses.entry(id.clone()).or_default() += 1;
            }
        }
        for (method, operation) in operations_mut(&mut doc) {
            if let Some(id) = operation.operation_id.as_mut()
                && uses.get(id.as_str()).is_some_and(|n| *n > 1)
            {
                id.push('_');
                id.push_str(method);
            }
        }
        doc
    }

    /// Adds the answers every operation of a kind can give, so each annotation lists only its
    /// own: 401 on every operation that needs a session, 507 on every one that may write, 413
    /// and 415 on every one that reads a JSON body.
    pub fn add_common_responses(doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};

        let error = |description: &str| {
            ResponseBuilder::new()
                .description(description)
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name("ErrorBody")))
                        .build(),
                )
                .build()
        };
        for (method, operation) in operations_mut(doc) {
            // `security(())` marks a public operation; the rest inherit the bearer scheme.
            let public = operation
                .security
                .as_ref()
                .is_some_and(|s| s.iter().all(|r| *r == SecurityRequirement::default()));
            let json_body = operation.request_body.as_ref().is_some_and(|b| match b {
                utoipa::openapi::RefOr::T(body) => body.content.keys().all(|k| k == "application/json"),
                utoipa::openapi::RefOr::Ref(_) => false,
            });
            let takes_api_token = operation.security.as_ref().is_some_and(|s| {
                s.iter()
                    .any(|r| *r == SecurityRequirement::new("api_token", Vec::<String>::new()))
            });
            let responses = &mut operation.responses.responses;
            if takes_api_token {
                responses.entry("401".into()).or_insert_with(|| {
                    error("Not signed in, the session expired, or the API token was revoked or expired (`authentication_required`, `session_expired`, `api_token_invalid`)").into()
                });
            } else if !public {
                responses.entry("401".into()).or_insert_with(|| {
                        error("Not signed in, or the session expired (`authentication_required`, `session_expired`)").into()
                    });
                responses.entry("403".into()).or_insert_with(|| {
                    error("Sent with an API token: this needs a password sign-in (`token_not_allowed`)")
                        .into()
                });
            }
            if method != "get" && method != "head" {
                responses.entry("507".into()).or_insert_with(|| {
                    error("The server's disk is full: nothing was saved (`storage_full`)").into()
                });
            }
            if json_body {
                responses
                    .entry("413".into())
                    .or_insert_with(|| error("The body is too large (`body_too_large`)").into());
                responses
                    .entry("415".into())
                    .or_insert_with(|| error("The body is not JSON (`unsupported_media_type`)").into());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/http/openapi.json");

    /// The annotations' document as the file holds it: pretty, with the package's version
    /// (build.rs puts this build's in).
    fn generated() -> String {
        let mut doc = crate::http::openapi_document();
        doc.info.version = env!("CARGO_PKG_VERSION").to_owned();
        doc.to_pretty_json().expect("the document serializes") + "\n"
    }

    #[test]
    fn openapi_json_is_current() {
        let generated = generated();
        let committed = std::fs::read_to_string(COMMITTED).unwrap_or_default();
        if generated == committed {
            return;
        }
        if std::env::var_os("PILLBOX_WRITE_OPENAPI").is_some() {
            std::fs::write(COMMITTED, generated).expect("write src/http/openapi.json");
            return;
        }
        panic!(
            "src/http/openapi.json differs from the handlers' annotations: write it anew with \
             `PILLBOX_WRITE_OPENAPI=1 cargo test openapi_json`, then rebuild and run \
             `npm --prefix ui run api-types`"
        );
    }

    #[test]
    fn the_embedded_document_is_the_file_with_this_builds_version() {
        let served: serde_json::Value = serde_json::from_str(&super::document_json().unwrap()).unwrap();
        let mut file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(COMMITTED).unwrap()).unwrap();
        file["info"]["version"] = crate::version::VERSION.into();
        assert!(
            served == file,
            "rebuild: the binary embeds an older src/http/openapi.json"
        );
    }

    #[test]
    fn every_operation_id_is_unique_and_names_its_tag() {
        let mut doc = crate::http::openapi_document();
        let mut seen = HashSet::new();
        for (method, operation) in super::generate::operations_mut(&mut doc) {
            let id = operation.operation_id.clone().unwrap_or_default();
            assert!(!id.is_empty(), "a {method} operation has no id");
            assert!(seen.insert(id.clone()), "operation id {id} is used twice");
        }
        assert!(seen.contains("instance_version"), "{seen:?}");
    }
}
