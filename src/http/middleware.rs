//! Layers applied to every response: security headers and the request log; and to the API's
//! changes: waking the reminder engine.

use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::Response;

use super::AppState;

/// Same-origin only. `img-src data:` admits the TOTP QR code, which the server draws itself;
/// the hashes admit index.html's one inline script (the first screen's preload, see build.rs).
const CONTENT_SECURITY_POLICY: &str = concat!(
    "default-src 'self'; script-src 'self' ",
    include_str!(concat!(env!("OUT_DIR"), "/index_script_hashes.txt")),
    "; style-src 'self'; \
     img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; worker-src 'self'; \
     object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
);

const SECURITY_HEADERS: &[(HeaderName, &str)] = &[
    (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
    // Take links and verification links carry secrets in their URLs.
    (header::REFERRER_POLICY, "no-referrer"),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::X_FRAME_OPTIONS, "DENY"),
];

pub async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    for (name, value) in SECURITY_HEADERS {
        // A page with a policy of its own (the API reference) keeps it.
        if name == header::CONTENT_SECURITY_POLICY && headers.contains_key(name) {
            continue;
        }
        headers.insert(name.clone(), HeaderValue::from_static(value));
    }
    headers.insert(
        HeaderName::from_static("permissions-policy"),
        HeaderValue::from_static("camera=(), microphone=(), geolocation=(), payment=()"),
    );
    response
}

/// After a change the API accepted (any method but GET and HEAD answered 2xx: a medication,
/// a schedule, a snooze, a one-off reminder, an import), the reminder engine looks again at
/// when its next reminder is due, so that one planned sooner than it meant to wake leaves on
/// time.
pub async fn wake_engine_after_changes(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let changes = !matches!(*request.method(), Method::GET | Method::HEAD);
    let response = next.run(request).await;
    if changes && response.status().is_success() {
        state.engine.wake();
    }
    response
}

/// API answers hold personal data: no cache may keep them.
pub async fn no_store_for_api(request: Request, next: Next) -> Response {
    let is_api = request.uri().path().starts_with("/api");
    let mut response = next.run(request).await;
    if is_api {
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

pub async fn request_log(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = redact(request.uri().path());
    let response = next.run(request).await;
    tracing::info!(
        method = %method,
        path = %path,
        status = response.status().as_u16(),
        ms = started.elapsed().as_millis() as u64,
        "request"
    );
    response
}

/// Paths whose last segment is a secret token (take links, e-mail verification, password
/// links, invitations). The query string is never logged.
const TOKEN_PATHS: &[&str] = &[
    "/api/notifications/take/",
    "/notifications/take/",
    "/api/auth/verify-email/",
    "/verify-email/",
    "/reset-password/",
    "/api/invitations/",
    "/invite/",
];

fn redact(path: &str) -> String {
    TOKEN_PATHS
        .iter()
        .find(|prefix| path.starts_with(*prefix) && path.len() > prefix.len())
        .map(|prefix| format!("{prefix}[token]"))
        .unwrap_or_else(|| path.to_owned())
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn tokens_never_reach_the_log() {
        assert_eq!(
            redact("/api/notifications/take/abcDEF123"),
            "/api/notifications/take/[token]"
        );
        assert_eq!(redact("/verify-email/xyz"), "/verify-email/[token]");
        assert_eq!(redact("/reset-password/xyz"), "/reset-password/[token]");
        assert_eq!(redact("/api/invitations/xyz/preview"), "/api/invitations/[token]");
        assert_eq!(redact("/api/medications/3"), "/api/medications/3");
    }
}
