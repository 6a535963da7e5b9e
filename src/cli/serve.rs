//! `pillbox serve`: migrate, load secrets, listen, and run until SIGTERM or Ctrl-C.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use tokio::net::{TcpListener, TcpSocket};

use super::{CliResult, DataArgs, Paths, load_settings, open_and_migrate};
use crate::clock::Clock;
use crate::config::{Overrides, Settings, display_path};
use crate::db::Db;
use crate::http::{self, AppState};
use crate::mailer::Mailer;
use crate::reminders::{self, dispatcher::Engine, push::Pusher};
use crate::secrets::{self, Secrets};
use crate::services::accounts::AuthLimits;
use crate::services::backup;
use crate::services::jobs::{BackupStatus, DataJobs};
use crate::services::sessions::RevokedSessions;
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
    raise_open_files_limit();
    let paths = Paths::new(&settings)?;
    paths.ensure_data_dir()?;
    // One server per data directory: two would send every reminder twice, and `pillbox
    // restore` must know not to swap the database under a running server.
    let _lock = backup::lock_data_dir(&paths.data_dir)?;
    let writer = open_and_migrate(&paths)?;
    let secrets = secrets::load_or_create(&paths.data_dir, &settings.vapid)?;
    if settings.public_url.is_none() {
        tracing::warn!(
            "public_url is not set: links in e-mails and push reminders need it (PILLBOX_PUBLIC_URL)"
        );
    }

    let trusted_proxies = settings.trusted_proxy_nets()?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let served = runtime.block_on(async move {
        // lettre's connection pool starts a task, so the mailer is made inside the runtime.
        let mailer = Mailer::new(&settings.smtp)?;
        if !mailer.is_configured() {
            tracing::info!("e-mail is off (no smtp.host): new accounts are verified at once, e-mail reminders are unavailable");
        }
        let registration_limit = settings.registration_limit;
        // One clock for the API and the reminder engine: a test that moves it moves both.
        let clock = Clock::system();
        let revoked_sessions = RevokedSessions::load(&writer, clock.now().timestamp())
            .map_err(|e| format!("cannot read the signed-out sessions: {e}"))?;
        let db = Db::new(paths.database.clone(), writer);
        let settings = Arc::new(settings);
        let mailer = Arc::new(mailer);
        let engine = Arc::new(engine(&db, &settings, &secrets, &mailer, clock.clone())?);
        let backup_status = BackupStatus::default();
        let data_jobs = DataJobs {
            db: db.clone(),
            database: paths.database.clone(),
            data_dir: paths.data_dir.clone(),
            backups: paths.backups.clone(),
            settings: settings.backup.clone(),
            status: backup_status.clone(),
            clock: clock.clone(),
        };
        let state = AppState {
            db,
            settings,
            secrets: Arc::new(secrets),
            mailer,
            limits: Arc::new(AuthLimits::new(registration_limit)),
            revoked_sessions: Arc::new(revoked_sessions),
            trusted_proxies: Arc::new(trusted_proxies),
            engine: Arc::clone(&engine),
            backups_dir: Arc::new(paths.backups.clone()),
            backup_status,
            data_dir: Arc::new(paths.data_dir.clone()),
            write_probe: Arc::default(),
            clock,
            list_cache: Arc::default(),
        };
        let bind = state.settings.bind;
        let listener =
            listen(bind).map_err(|e| format!("cannot listen on {bind}: {e} (change --bind or PILLBOX_BIND)"))?;
        let address = listener.local_addr()?;
        tracing::info!(
            "pillbox {VERSION} listening on http://{address} (data in {})",
            display_path(&paths.data_dir)
        );
        let running = reminders::start(engine).await?;
        let data_jobs = data_jobs.start();
        systemd::notify("READY=1");
        // On SIGTERM the HTTP server drains and the engine stops at the same time, so the
        // whole stop takes the longer of the two (5 s at most each), not their sum.
        let (stop, stopping) = tokio::sync::watch::channel(false);
        let stop = Arc::new(stop);
        let signal = tokio::spawn({
            let stop = Arc::clone(&stop);
            async move {
                shutdown_signal().await;
                stop.send_replace(true);
            }
        });
        let engine_stopped = tokio::spawn({
            let stopping = stopping.clone();
            async move {
                stopped(stopping).await;
                systemd::notify("STOPPING=1");
                running.stop().await;
            }
        });
        let served = http::serve(listener, state, stopped(stopping)).await;
        // Also when the server ended with an error rather than a signal.
        stop.send_replace(true);
        signal.abort();
        if let Err(e) = engine_stopped.await {
            tracing::warn!("the reminder engine did not stop cleanly: {e}");
        }
        data_jobs.abort();
        served?;
        tracing::info!("pillbox stopped");
        Ok(ExitCode::SUCCESS)
    });
    // A blocking job still running (the daily exports of every account, a snapshot) must
    // not hold the exit: dropping the runtime would wait for it however long it takes. A
    // transaction cut off here is rolled back by SQLite's journal, and files are written
    // under a temporary name and renamed when complete.
    runtime.shutdown_timeout(SHUTDOWN_BLOCKING_WAIT);
    served
}

/// A listening socket with room for a burst of new connections: the kernel drops a
/// connection attempt beyond the backlog, and the client tries again only a second later.
fn listen(address: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if address.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(1024)
}

/// How long the exit waits for blocking work (database calls, file writes) in progress.
const SHUTDOWN_BLOCKING_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The reminder engine: the database, both channels, the settings they need and the clock.
pub fn engine(
    db: &Db,
    settings: &Arc<Settings>,
    secrets: &Secrets,
    mailer: &Arc<Mailer>,
    clock: Clock,
) -> Result<Engine, String> {
    let pusher = Pusher::new(
        &secrets.vapid.private_key,
        vapid_subject(settings),
        settings.push.allow_endpoints.clone(),
    )?;
    Ok(Engine::new(
        db.clone(),
        Arc::clone(mailer),
        pusher,
        Arc::clone(settings),
        clock,
    ))
}

/// The contact push services see: configured, else the sender address, else the site.
fn vapid_subject(settings: &Settings) -> String {
    if let Some(subject) = &settings.vapid.subject {
        return subject.clone();
    }
    if let Some(from) = settings.smtp.from.as_deref()
        && let Ok(mailbox) = from.parse::<lettre::message::Mailbox>()
    {
        return format!("mailto:{}", mailbox.email);
    }
    match settings.public_base_url() {
        Some(url) if url.starts_with("https://") => url.to_owned(),
        _ => {
            tracing::warn!(
                "vapid.subject is not set and there is no smtp.from or https public_url to derive it from; \
                 some push services (Apple's) refuse the placeholder mailto:pillbox@localhost"
            );
            "mailto:pillbox@localhost".to_owned()
        }
    }
}

/// Completes once `stop` has been set.
async fn stopped(mut stopping: tokio::sync::watch::Receiver<bool>) {
    // An error means the sender is gone, which only happens once everything is stopping.
    let _ = stopping.wait_for(|stop| *stop).await;
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

/// Started by hand, a shell gives 1,024 open files: a few hundred idle browsers would use
/// them up. The soft limit may go up to the hard one without privileges, so take it.
fn raise_open_files_limit() {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => tracing::debug!("open files limit: {limit}"),
        Err(e) => tracing::warn!("could not raise the open files limit: {e}"),
    }
}
