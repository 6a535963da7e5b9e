//! The HTTP server: the JSON API under `/api`, instance endpoints and the embedded web app.

mod answers;
mod assets;
mod auth;
mod calendar;
mod channels;
mod data;
pub mod error;
pub mod extract;
mod history;
mod limits;
mod list_cache;
mod medications;
mod meta;
mod middleware;
mod notifications;
mod oidc;
pub mod openapi;
mod passkeys;
mod people;
mod proxy_session;
pub mod server;
mod session;
mod settings;
#[cfg(debug_assertions)]
mod test_clock;
pub mod tls;
mod tokens;
mod two_factor;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{any, get};
use tokio::net::TcpListener;
use tower_http::CompressionLevel;
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{NotForContentType, Predicate, SizeAbove};
use utoipa_axum::router::OpenApiRouter;

use crate::config::Settings;
use crate::db::Db;
use crate::mailer::Mailer;
use crate::reminders::dispatcher::Engine;
use crate::secrets::Secrets;
use crate::security::client_ip::IpNet;
use crate::security::proxy_header::ProxyHeader;
use crate::services::accounts::AuthLimits;
use crate::services::health::WriteProbe;
use crate::services::jobs::BackupStatus;
use crate::services::sessions::RevokedSessions;

/// Request bodies above this answer 413.
const BODY_LIMIT: usize = 1024 * 1024;

#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub settings: Arc<Settings>,
    pub secrets: Arc<Secrets>,
    pub mailer: Arc<Mailer>,
    pub limits: Arc<AuthLimits>,
    /// Tokens signed out one by one (loaded at start, kept in step with the database).
    pub revoked_sessions: Arc<RevokedSessions>,
    pub trusted_proxies: Arc<Vec<IpNet>>,
    /// Sign-in by an authenticating proxy's header (`auth.*`), when configured.
    pub proxy_header: Option<Arc<ProxyHeader>>,
    pub engine: Arc<Engine>,
    /// The data directory's `backups/`: instance snapshots and each person's auto-backups.
    pub backups_dir: Arc<PathBuf>,
    pub backup_status: BackupStatus,
    /// The data directory, whose free space /health watches.
    pub data_dir: Arc<PathBuf>,
    /// /health's database write check, shared so that its answer is reused for a moment.
    pub write_probe: Arc<WriteProbe>,
    /// The time for services (`clock.now()`); the reminder engine shares it, and tests
    /// move it (`POST /api/test/clock`, debug builds only).
    pub clock: crate::clock::Clock,
    /// The medication list's answers, reused until the database changes.
    pub list_cache: Arc<list_cache::ListCache>,
    /// Sign-in through an OpenID Connect provider, when `oidc.issuer` is set.
    pub oidc: Option<Arc<crate::services::oidc::Oidc>>,
    /// Passkeys, when `public_url` names a host (see services::passkeys).
    pub passkeys: Option<Arc<crate::services::passkeys::Passkeys>>,
}

/// The API's routes, declared with the annotations the OpenAPI document is made from: a
/// route cannot be served without being documented.
fn api() -> Router<AppState> {
    let (router, _) = api_routes().split_for_parts();
    router
}

fn api_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(meta::routes())
        .merge(auth::routes())
        .merge(proxy_session::routes())
        .merge(oidc::routes())
        .merge(passkeys::routes())
        .merge(two_factor::routes())
        .merge(settings::routes())
        .merge(notifications::routes())
        .merge(channels::routes())
        .merge(calendar::routes())
        .merge(medications::routes())
        .merge(history::routes())
        .merge(people::routes())
        .merge(tokens::routes())
        .merge(data::routes())
}

/// `utoipa_axum::routes!` in the tests, which make the OpenAPI document from the handlers'
/// annotations (see openapi.rs). The server itself takes only each handler's path and methods
/// from them, so the code describing each operation and schema is left out of the binary.
#[cfg(test)]
macro_rules! routes {
    ($($handlers:tt)*) => { utoipa_axum::routes!($($handlers)*) };
}

#[cfg(not(test))]
macro_rules! routes {
    ($($handler:ident),+ $(,)?) => {{
        use utoipa::Path as _;
        use utoipa_axum::PathItemExt as _;
        let mut paths = utoipa::openapi::path::Paths::new();
        let mut router = axum::routing::MethodRouter::new();
        $(utoipa_axum::paste! {
            let methods = [<__path_ $handler>]::methods();
            router = methods
                .iter()
                .fold(router, |router, method| router.on(method.to_method_filter(), $handler));
            paths.add_path_operation(
                [<__path_ $handler>]::path(),
                methods,
                utoipa::openapi::path::Operation::new(),
            );
        })+
        (Vec::new(), paths, router)
    }};
}
pub(crate) use routes;

/// The OpenAPI document of `/api` made from the annotations (the binary serves
/// src/http/openapi.json, which a test keeps equal to this).
#[cfg(test)]
pub fn openapi_document() -> utoipa::openapi::OpenApi {
    use utoipa::OpenApi;
    let doc = OpenApiRouter::with_openapi(openapi::generate::ApiDoc::openapi())
        .merge(api_routes())
        .into_openapi();
    let mut doc = openapi::generate::qualified_operation_ids(prefixed(doc));
    openapi::generate::add_common_responses(&mut doc);
    openapi::generate::catalogue_units(&mut doc);
    doc
}

/// The document with each path as a client calls it (`/api/…`): the routes are nested
/// under `/api`, their annotations name the path inside it.
#[cfg(test)]
fn prefixed(mut doc: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    let paths = std::mem::take(&mut doc.paths.paths);
    doc.paths.paths = paths
        .into_iter()
        .map(|(path, item)| (format!("/api{path}"), item))
        .collect();
    doc
}

pub fn router(state: AppState) -> Router {
    let api = api()
        .route("/openapi.json", get(openapi::document))
        .route("/docs", get(openapi::docs_page));
    // Test-only and undocumented: see test_clock.rs.
    #[cfg(debug_assertions)]
    let api = test_clock::mount(api);
    let api = api
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::wake_engine_after_changes,
        ))
        .fallback(meta::api_not_found)
        .method_not_allowed_fallback(meta::api_method_not_allowed)
        .layer(
            // The API's JSON is made per request: gzip's fastest level still shrinks it
            // several times, at a fraction of the default level's CPU. Only gzip: a Brotli
            // encoder would add about 2 MB to the binary for answers that gzip shrinks nearly
            // as well (the web app's files are gzipped at build time). Bodies
            // under 1 KiB (most answers) are not worth the work and the headers.
            CompressionLayer::new()
                .quality(CompressionLevel::Fastest)
                .compress_when(
                    SizeAbove::new(1024)
                        .and(NotForContentType::GRPC)
                        .and(NotForContentType::IMAGES)
                        .and(NotForContentType::SSE),
                ),
        );

    Router::new()
        .route("/health", get(meta::health))
        .route("/migrations/status", get(meta::migrations_status))
        .nest("/api", api)
        // `nest` leaves the bare prefix to the outer router; it is still an API path.
        .route("/api/", any(meta::api_not_found))
        .fallback(assets::serve)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn(middleware::no_store_for_api))
        .layer(axum::middleware::from_fn(middleware::security_headers))
        .layer(axum::middleware::from_fn(middleware::request_log))
        .with_state(state)
}

/// Serves until `shutdown` completes, then finishes in-flight requests (for a few seconds at
/// most, see server.rs).
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    tls: Option<tokio_rustls::TlsAcceptor>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = server::Limits::from_settings(&state.settings.http);
    server::run(listener, router(state), limits, tls, shutdown).await
}
