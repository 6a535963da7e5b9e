//! `pillbox serve`: migrate, load secrets, listen, and run until SIGTERM or Ctrl-C.

use std::future::Future;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use tokio::net::{TcpListener, TcpSocket};

use super::{CliResult, DataArgs, Paths, load_settings, open_and_migrate, systemd};
use crate::clock::Clock;
use crate::config::{Overrides, Settings, display_path};
use crate::db::{Db, Stamp};
use crate::http::{self, AppState, tls};
use crate::mailer::Mailer;
use crate::reminders::{self, dispatcher::Engine, push::Pusher};
use crate::secrets::{self, Secrets};
use crate::security::proxy_header::ProxyHeader;
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
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    // The signal handlers come first: until they exist, SIGTERM's default action kills the
    // process on the spot, whatever it is doing (a migration, the first requests).
    let stop = Stop::listen(&runtime)?;
    let served = serve(args, &runtime, &stop);
    // A blocking job still running (the daily exports of every account, a snapshot) must
    // not hold the exit: dropping the runtime would wait for it however long it takes. A
    // transaction cut off here is rolled back by SQLite's journal, and files are written
    // under a temporary name and renamed when complete.
    runtime.shutdown_timeout(SHUTDOWN_BLOCKING_WAIT);
    served
}

/// SIGTERM (systemd stop) or Ctrl-C, heard from the first moment of `serve` on.
struct Stop {
    sender: Arc<tokio::sync::watch::Sender<bool>>,
    receiver: tokio::sync::watch::Receiver<bool>,
}

impl Stop {
    fn listen(runtime: &tokio::runtime::Runtime) -> std::io::Result<Stop> {
        use tokio::signal::unix::{SignalKind, signal};
        let _context = runtime.enter();
        // Registered now, not when a task first runs: a signal that arrives in between is
        // kept for `recv`.
        let mut terminate = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        let (sender, receiver) = tokio::sync::watch::channel(false);
        let sender = Arc::new(sender);
        runtime.spawn({
            let sender = Arc::clone(&sender);
            async move {
                tokio::select! {
                    _ = terminate.recv() => {},
                    _ = interrupt.recv() => {},
                }
                tracing::info!("shutting down: finishing requests in flight");
                sender.send_replace(true);
            }
        });
        Ok(Stop { sender, receiver })
    }

    fn requested(&self) -> bool {
        *self.receiver.borrow()
    }

    /// Completes once a stop has been asked for (at once if it already has).
    fn stopped(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut receiver = self.receiver.clone();
        async move {
            // An error means the sender is gone, which only happens once everything stops.
            let _ = receiver.wait_for(|stop| *stop).await;
        }
    }
}

fn serve(args: ServeArgs, runtime: &tokio::runtime::Runtime, stop: &Stop) -> CliResult {
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
    systemd::notify("STATUS=Migrating the database");
    // Migrating a large database (after its snapshot) on an SD card can outlast systemd's
    // start timeout: while it runs, each note asks for another minute.
    let extending = runtime.spawn(async {
        loop {
            tokio::time::sleep(std::time::Duration::from_secs(20)).await;
            systemd::notify("EXTEND_TIMEOUT_USEC=60000000");
        }
    });
    let writer = open_and_migrate(&paths);
    extending.abort();
    let writer = writer?;
    discard_unfinished_imports(&writer, &paths.data_dir)?;
    let secrets = secrets::load_or_create(&paths.data_dir, &settings.vapid)?;
    let tls = tls::Certificates::load(&settings)?;
    if stop_before_ready(stop) {
        return Ok(ExitCode::SUCCESS);
    }
    if settings.public_url.is_none() {
        tracing::warn!(
            "public_url is not set: links in e-mails and push reminders need it (PILLBOX_PUBLIC_URL)"
        );
    }

    let trusted_proxies = settings.trusted_proxy_nets()?;
    let proxy_header = settings.auth.proxy_sign_in()?.map(|config| {
        tracing::info!(
            header = %config.header,
            trusted = ?config.trusted.iter().map(ToString::to_string).collect::<Vec<_>>(),
            auto_register = config.auto_register,
            "sign-in by an authenticating proxy is on"
        );
        Arc::new(ProxyHeader::new(config))
    });
    runtime.block_on(async move {
        // lettre's connection pool starts a task, so the mailer is made inside the runtime.
        let mailer = Mailer::new(&settings.smtp)?;
        if !mailer.is_configured() {
            tracing::info!("e-mail is off (no smtp.host): new accounts are verified at once, e-mail reminders are unavailable");
        }
        let registration_limit = settings.registration_limit;
        // One clock for the API and the reminder engine: a test that moves it moves both.
        let clock = server_clock()?;
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
        let oidc = crate::services::oidc::Oidc::new(&settings).map(Arc::new);
        let passkeys = crate::services::passkeys::Passkeys::new(&settings).map(Arc::new);
        if let Some(why) = crate::services::passkeys::unavailable_because(&settings) {
            tracing::info!("passkeys are off: {why} (set public_url to the https:// address people open)");
        }
        let state = AppState {
            db,
            settings,
            secrets: Arc::new(secrets),
            mailer,
            limits: Arc::new(AuthLimits::new(registration_limit)),
            revoked_sessions: Arc::new(revoked_sessions),
            trusted_proxies: Arc::new(trusted_proxies),
            proxy_header,
            engine: Arc::clone(&engine),
            backups_dir: Arc::new(paths.backups.clone()),
            backup_status,
            data_dir: Arc::new(paths.data_dir.clone()),
            write_probe: Arc::default(),
            oidc,
            passkeys,
            clock,
            list_cache: Arc::default(),
        };
        let bind = state.settings.bind;
        let listener =
            listen(bind).map_err(|e| format!("cannot listen on {bind}: {e} (change --bind or PILLBOX_BIND)"))?;
        let address = listener.local_addr()?;
        let scheme = if tls.is_some() { "https" } else { "http" };
        tracing::info!(
            "pillbox {VERSION} listening on {scheme}://{address} (data in {})",
            display_path(&paths.data_dir)
        );
        let running = reminders::start(engine).await?;
        // Home Assistant by MQTT: its own task, which nothing else waits for.
        let home_assistant =
            crate::home_assistant::start(&state.settings, state.db.clone(), state.clock.clone())?;
        let data_jobs = data_jobs.start();
        let reloading = tls.as_ref().map(|certificates| certificates.watch());
        if stop_before_ready(stop) {
            if let Some(publisher) = home_assistant {
                publisher.stop().await;
            }
            running.stop().await;
            data_jobs.abort();
            return Ok(ExitCode::SUCCESS);
        }
        systemd::notify(&format!("READY=1\nSTATUS=Serving on {scheme}://{address}"));
        let watchdog = systemd::watchdog_period().map(|period| tokio::spawn(feed_watchdog(period, state.clone())));
        // On SIGTERM the HTTP server drains and the engine stops at the same time, so the
        // whole stop takes the longer of the two (5 s at most each), not their sum.
        let engine_stopped = tokio::spawn({
            let stopped = stop.stopped();
            let watchdog = watchdog.as_ref().map(tokio::task::JoinHandle::abort_handle);
            async move {
                stopped.await;
                if let Some(watchdog) = watchdog {
                    watchdog.abort();
                }
                systemd::notify("STOPPING=1\nSTATUS=Stopping: finishing requests and reminders in flight");
                let publisher = async {
                    if let Some(publisher) = home_assistant {
                        publisher.stop().await;
                    }
                };
                tokio::join!(running.stop(), publisher);
            }
        });
        let served = http::serve(listener, state, tls.as_ref().map(tls::Certificates::acceptor), stop.stopped()).await;
        // Also when the server ended with an error rather than a signal.
        stop.sender.send_replace(true);
        if let Err(e) = engine_stopped.await {
            tracing::warn!("the reminder engine did not stop cleanly: {e}");
        }
        if let Some(reloading) = reloading {
            reloading.abort();
        }
        data_jobs.abort();
        served?;
        tracing::info!("pillbox stopped");
        Ok(ExitCode::SUCCESS)
    })
}

/// An import the server stopped in the middle of left rows nobody sees and maybe its
/// upload: both go before anything is served.
fn discard_unfinished_imports(
    writer: &rusqlite::Connection,
    data_dir: &std::path::Path,
) -> Result<(), String> {
    let rows = crate::services::import::discard_unfinished(writer)
        .map_err(|e| format!("cannot clear an unfinished import: {e}"))?;
    let files = crate::services::import::remove_leftovers(data_dir).map_err(|e| {
        format!(
            "cannot delete an unfinished import's upload in {}: {e}",
            data_dir.display()
        )
    })?;
    if rows > 0 || files > 0 {
        tracing::warn!(
            "an import was interrupted when pillbox last stopped: none of it was shown, and its {rows} staged entries and {files} uploaded files are deleted"
        );
    }
    Ok(())
}

/// A stop asked for while starting ends the start where it is, cleanly (exit code 0):
/// migrations are whole transactions and nothing has been served yet.
/// The system's clock; a debug build started with `PILLBOX_TEST_CLOCK_START` (an RFC 3339
/// instant) starts its clock there instead, so that a test can pick the day and hour it
/// runs at. Release builds ignore the variable (config.rs warns of it).
#[cfg(debug_assertions)]
fn server_clock() -> Result<Clock, String> {
    const START: &str = "PILLBOX_TEST_CLOCK_START";
    let Ok(text) = std::env::var(START) else {
        return Ok(Clock::system());
    };
    let start = chrono::DateTime::parse_from_rfc3339(text.trim()).map_err(|e| {
        format!("{START} must be an RFC 3339 instant such as 2026-03-02T08:00:00Z, not {text:?}: {e}")
    })?;
    tracing::warn!("{START}={text}: this debug build's clock starts at {start}");
    Ok(Clock::starting_at(start.with_timezone(&chrono::Utc)))
}

#[cfg(not(debug_assertions))]
fn server_clock() -> Result<Clock, String> {
    Ok(Clock::system())
}

fn stop_before_ready(stop: &Stop) -> bool {
    let requested = stop.requested();
    if requested {
        systemd::notify("STOPPING=1");
        tracing::info!("pillbox stopped before it was ready");
    }
    requested
}

/// Tells systemd every `period` that the server is alive, but only while the database takes
/// a write (the probe `/health` uses) and the reminder dispatcher finishes its passes: a
/// server stuck in either is restarted by systemd once `WatchdogSec` passes without a ping.
async fn feed_watchdog(period: std::time::Duration, state: AppState) {
    let stale_after = reminders::heartbeat::stale_after(&state.settings);
    let mut ticks = tokio::time::interval(period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut was_alive = true;
    loop {
        ticks.tick().await;
        let database = state
            .write_probe
            .check(&state.db, Stamp::from(state.clock.now()))
            .await;
        let since = state.engine.heartbeat.since_last();
        let problem = match database {
            Some(problem) => Some(format!("database: {problem}")),
            None if since >= stale_after => Some(format!(
                "dispatcher: no reminder pass has finished for {} s",
                since.as_secs()
            )),
            None => None,
        };
        match problem {
            None => {
                if !was_alive {
                    tracing::info!("healthy again: feeding the systemd watchdog");
                    systemd::notify("STATUS=Serving");
                }
                systemd::notify("WATCHDOG=1");
                was_alive = true;
            }
            Some(problem) => {
                if was_alive {
                    tracing::error!("not feeding the systemd watchdog: {problem}");
                }
                systemd::notify(&format!("STATUS=Unhealthy: {problem}"));
                was_alive = false;
            }
        }
    }
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
        std::time::Duration::from_secs(u64::from(settings.push.timeout_seconds)),
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

/// Started by hand, a shell gives 1,024 open files: a few hundred idle browsers would use
/// them up. The soft limit may go up to the hard one without privileges, so take it.
fn raise_open_files_limit() {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => tracing::debug!("open files limit: {limit}"),
        Err(e) => tracing::warn!("could not raise the open files limit: {e}"),
    }
}
