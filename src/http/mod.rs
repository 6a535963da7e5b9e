//! The HTTP server: the JSON API under `/api`, instance endpoints and the embedded web app.

mod assets;
mod auth;
mod data;
pub mod error;
pub mod extract;
mod history;
mod medications;
mod meta;
mod middleware;
mod notifications;
mod session;
mod settings;
mod two_factor;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{any, get, post, put};
use tokio::net::TcpListener;
use tower_http::compression::CompressionLayer;

use crate::accounts::AuthLimits;
use crate::config::Settings;
use crate::db::Db;
use crate::mailer::Mailer;
use crate::reminders::dispatcher::Engine;
use crate::secrets::Secrets;
use crate::security::client_ip::IpNet;
use crate::services::jobs::BackupStatus;

/// Request bodies above this answer 413.
const BODY_LIMIT: usize = 1024 * 1024;

#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub settings: Arc<Settings>,
    pub secrets: Arc<Secrets>,
    pub mailer: Arc<Mailer>,
    pub limits: Arc<AuthLimits>,
    pub trusted_proxies: Arc<Vec<IpNet>>,
    pub engine: Arc<Engine>,
    /// The data directory's `backups/`: instance snapshots and each person's auto-backups.
    pub backups_dir: Arc<PathBuf>,
    pub backup_status: BackupStatus,
}

pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/version", get(meta::version))
        .route("/auth/register", post(auth::register))
        .route("/auth/login", post(auth::login))
        .route("/auth/refresh", post(auth::refresh))
        .route(
            "/auth/me",
            get(auth::me).put(auth::update_me).delete(auth::delete_me),
        )
        .route("/auth/verify-email/{token}", get(auth::verify_email))
        .route("/auth/resend-verification", post(auth::resend_verification))
        .route("/auth/change-password", post(auth::change_password))
        .route(
            "/auth/2fa/check-login-requirements",
            post(two_factor::check_login_requirements),
        )
        .route("/auth/2fa/generate-otp", post(two_factor::generate_otp))
        .route("/auth/2fa/verify-otp", post(two_factor::verify_otp))
        .route("/auth/2fa/status", get(two_factor::status))
        .route("/auth/2fa/setup", post(two_factor::setup))
        .route("/auth/2fa/setup-email", post(two_factor::setup_email))
        .route("/auth/2fa/setup-totp", post(two_factor::setup_totp))
        .route(
            "/auth/2fa/complete-totp-setup",
            post(two_factor::complete_totp_setup),
        )
        .route("/auth/2fa/disable-method", post(two_factor::disable_method))
        .route("/auth/2fa/disable", post(two_factor::disable_all))
        .route("/auth/2fa/set-preference", post(two_factor::set_preference))
        .route(
            "/auth/2fa/backup-codes",
            post(two_factor::regenerate_backup_codes),
        )
        .route("/settings", get(settings::get).put(settings::update))
        .route(
            "/notifications",
            get(notifications::list).post(notifications::create),
        )
        .route(
            "/notifications/settings",
            get(notifications::get_settings).put(notifications::put_settings),
        )
        .route(
            "/notifications/preferences",
            get(notifications::get_preferences).put(notifications::put_preferences),
        )
        .route(
            "/notifications/medications/{id}/preferences",
            get(notifications::get_medication_preferences).put(notifications::put_medication_preferences),
        )
        .route("/notifications/history", get(notifications::delivery_history))
        .route(
            "/notifications/schedule-medication",
            post(notifications::schedule_medication),
        )
        .route(
            "/notifications/push/public-key",
            get(notifications::push_public_key),
        )
        .route("/notifications/push/register", post(notifications::push_register))
        .route(
            "/notifications/push/unregister",
            post(notifications::push_unregister),
        )
        .route("/notifications/test", post(notifications::test))
        .route(
            "/notifications/take/{token}",
            get(notifications::take_details).post(notifications::take_log),
        )
        .route(
            "/notifications/{id}",
            put(notifications::update).delete(notifications::cancel),
        )
        .route("/notifications/{id}/send", post(notifications::send_now))
        .route("/units", get(medications::units_catalogue))
        .route("/medications", get(medications::list).post(medications::create))
        .route("/medications/adherence", get(medications::adherence))
        .route("/medications/inventory/low-stock", get(medications::low_stock))
        .route("/medications/history", get(history::list))
        .route("/medications/history/retention", get(data::retention_preview))
        .route("/export", get(data::export))
        .route("/import", post(data::import))
        .route("/report", get(data::report))
        .route("/backups", get(data::backups))
        .route("/backups/{name}", get(data::backup_file))
        .route(
            "/medications/history/{id}",
            put(history::update).delete(history::delete),
        )
        .route(
            "/medications/{id}",
            get(medications::get)
                .put(medications::update)
                .delete(medications::delete),
        )
        .route("/medications/{id}/doses", post(medications::log_dose))
        .route("/medications/{id}/history", get(history::for_medication))
        .route(
            "/medications/{id}/inventory",
            get(medications::get_inventory)
                .post(medications::save_inventory)
                .put(medications::save_inventory),
        )
        .route(
            "/medications/{id}/inventory/adjust",
            post(medications::adjust_inventory),
        )
        .route("/medications/{id}/inventory/ledger", get(medications::ledger))
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
    // Connect info gives handlers the peer address (for rate limits).
    let app = router(state).into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await
}
