//! `pillbox serve`: migrate, load secrets, listen, and run until SIGTERM or Ctrl-C.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use tokio::net::TcpListener;

use super::{CliResult, DataArgs, Paths, load_settings, open_and_migrate};
use crate::accounts::AuthLimits;
use crate::config::{Overrides, display_path};
use crate::db::Db;
use crate::http::{self, AppState};
use crate::mailer::Mailer;
use crate::secrets;
use crate::version::VERSION;

#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    data: DataArgs,
    /// Address and port to listen on [default: 127.0.0.1:3001]
    #[arg(long, env = "PILLBOX_BIND", value_name = "ADDR:PORT")]
    bind: Option<SocketAddr>,
}

pub fn run(args: ServeArgs) -> CliResult {
    let overrides = Overrides {
        bind: args.bind,
        ..args.data.overrides()
    };
    let settings = load_settings(&overrides)?;
    let paths = Paths::new(&settings)?;
    paths.ensure_data_dir()?;
    let writer = open_and_migrate(&paths)?;
    let secrets = secrets::load_or_create(&paths.data_dir, &settings.vapid)?;
    if settings.public_url.is_none() {
        tracing::warn!(
            "public_url is not set: links in e-mails and push reminders need it (PILLBOX_PUBLIC_URL)"
        );
    }

    let trusted_proxies = settings.trusted_proxy_nets()?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        // lettre's connection pool starts a task, so the mailer is made inside the runtime.
        let mailer = Mailer::new(&settings.smtp)?;
        if !mailer.is_configured() {
            tracing::info!("e-mail is off (no smtp.host): new accounts are verified at once, e-mail reminders are unavailable");
        }
        let registration_limit = settings.registration_limit;
        let state = AppState {
            db: Db::new(paths.database.clone(), writer),
            settings: Arc::new(settings),
            secrets: Arc::new(secrets),
            mailer: Arc::new(mailer),
            limits: Arc::new(AuthLimits::new(registration_limit)),
            trusted_proxies: Arc::new(trusted_proxies),
        };
        let bind = state.settings.bind;
        let listener = TcpListener::bind(bind)
            .await
            .map_err(|e| format!("cannot listen on {bind}: {e} (change --bind or PILLBOX_BIND)"))?;
        let address = listener.local_addr()?;
        tracing::info!(
            "pillbox {VERSION} listening on http://{address} (data in {})",
            display_path(&paths.data_dir)
        );
        systemd::notify("READY=1");
        http::serve(listener, state, shutdown_signal()).await?;
        systemd::notify("STOPPING=1");
        tracing::info!("pillbox stopped");
        Ok(ExitCode::SUCCESS)
    })
}

/// Completes on SIGTERM (systemd stop) or Ctrl-C.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!("cannot listen for Ctrl-C: {e}");
            std::future::pending::<()>().await;
        }
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(e) => {
                tracing::error!("cannot listen for SIGTERM: {e}");
                std::future::pending::<()>().await;
            }
        }
    };
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing requests in flight");
}

/// systemd's `Type=notify` readiness protocol: a datagram to `$NOTIFY_SOCKET`.
mod systemd {
    use std::os::unix::net::UnixDatagram;

    pub fn notify(state: &str) {
        let Some(socket) = std::env::var_os("NOTIFY_SOCKET") else {
            return;
        };
        let result = UnixDatagram::unbound().and_then(|sender| {
            let path = socket.to_string_lossy();
            match path.strip_prefix('@') {
                Some(name) => {
                    use std::os::linux::net::SocketAddrExt;
                    let address = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
                    sender.send_to_addr(state.as_bytes(), &address)
                }
                None => sender.send_to(state.as_bytes(), &*path),
            }
        });
        if let Err(e) = result {
            tracing::warn!("could not notify systemd ({state}): {e}");
        }
    }
}
