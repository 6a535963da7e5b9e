//! The HTTP server: the JSON API under `/api`, instance endpoints and the embedded web app.

mod assets;
pub mod error;
pub mod json;
mod meta;
mod middleware;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{any, get};
use tokio::net::TcpListener;
use tower_http::compression::CompressionLayer;

use crate::config::Settings;
use crate::db::Db;
use crate::secrets::Secrets;

/// Request bodies above this answer 413.
const BODY_LIMIT: usize = 1024 * 1024;

#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub settings: Arc<Settings>,
    pub secrets: Arc<Secrets>,
    pub data_dir: Arc<PathBuf>,
}

pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/version", get(meta::version))
        .fallback(meta::api_not_found)
        .method_not_allowed_fallback(meta::api_method_not_allowed)
        .layer(CompressionLayer::new());

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

/// Serves until `shutdown` completes, then finishes in-flight requests.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown)
        .await
}
