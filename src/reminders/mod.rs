//! The reminder engine: the planner turns schedules into reminders, the dispatcher
//! delivers them by Web Push and e-mail on a timer.

pub mod channel_queue;
pub mod channels;
pub mod clock_watch;
pub mod dispatcher;
pub mod escalation;
pub mod heartbeat;
pub mod mail_queue;
pub mod push;
pub mod telegram_bot;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};

use crate::db::DbError;
use crate::services::planner;
use dispatcher::Engine;

/// How often every user's reminders are topped up to the horizon.
const PLANNING_EVERY: Duration = Duration::from_secs(6 * 60 * 60);
/// Users planned per transaction: one commit (and fsync) per chunk, and what planning needs
/// read in a few queries per chunk; still short enough (about 50 ms for 500 users with a
/// week of reminders to write, far less for a top-up) that requests are not kept waiting
/// long, and small enough that a pass holds little memory.
const PLANNING_CHUNK: usize = 500;

/// How long a stop waits for a dispatcher pass that is sending. Pushes are answered in
/// milliseconds; a push service slower than this has its round sent again after the next
/// start (with the same topic, so the device shows it once). Together with the HTTP
/// server's own shutdown this keeps a stop well under systemd's patience.
const STOP_WAIT: Duration = Duration::from_secs(5);

/// The running engine, its timers and the e-mail queue's worker.
pub struct Running {
    timers: [JoinHandle<()>; 2],
    engine: Arc<Engine>,
    mail: mail_queue::Worker,
    channels: channel_queue::Worker,
    telegram: Option<telegram_bot::Poller>,
}

impl Running {
    /// Stops scheduling, waits (up to `STOP_WAIT`) for a pass that is sending, and stops
    /// the e-mail queue at once: whatever SMTP does, it never holds the stop.
    pub async fn stop(self) {
        for timer in &self.timers {
            timer.abort();
        }
        let telegram = async {
            if let Some(poller) = self.telegram {
                poller.stop().await;
            }
        };
        let (finished, (), (), ()) = tokio::join!(
            self.engine.finish_pass(STOP_WAIT),
            self.mail.stop(),
            self.channels.stop(),
            telegram
        );
        if !finished {
            tracing::warn!("stopped while reminders were still being sent; they go out after the next start");
        }
    }
}

/// Takes over what a stopped or killed server left, starts the e-mail queue, the
/// dispatcher and the planner's top-up on timers, and runs both once now.
pub async fn start(engine: Arc<Engine>) -> Result<Running, String> {
    engine
        .recover()
        .await
        .map_err(|e| format!("cannot take over the reminders of the last run: {e}"))?;
    let mail = engine.mail.start();
    let channels = engine.channels.start();
    let telegram = telegram_bot::start(&engine);
    let tick_every = Duration::from_secs(u64::from(engine.settings.reminders.tick_seconds));
    let tick = dispatch_on_time(Arc::clone(&engine), tick_every);
    let plan_engine = Arc::clone(&engine);
    let plan = every(PLANNING_EVERY, move || {
        let engine = Arc::clone(&plan_engine);
        async move { run_planning(&engine).await }
    });
    let first = Arc::clone(&engine);
    tokio::spawn(async move {
        run_planning(&first).await;
        // Its failure is logged like every pass's.
        let _ = run_tick_now(&first).await;
    });
    Ok(Running {
        timers: [tick, plan],
        engine,
        mail,
        channels,
        telegram,
    })
}

/// Runs a dispatcher pass when the next reminder is due (to the millisecond: the timer sleeps
/// until then, and an API change that plans one sooner wakes it), and at least every
/// `tick_every` as a safety net; nothing wakes it in between. Each pass runs in a task of
/// its own: stopping the timer never cancels a pass under way.
fn dispatch_on_time(engine: Arc<dispatcher::Engine>, tick_every: Duration) -> JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            if !engine.until_next_due(tick_every).await {
                continue;
            }
            let pass_engine = Arc::clone(&engine);
            let pass = tokio::spawn(async move {
                // After the pass under way (a test clock's, say), if there is one.
                run_tick_now(&pass_engine).await.is_err()
            });
            // A pass that failed (the database, say) is tried again after a tick, not at once.
            if pass.await.unwrap_or(true) {
                tokio::time::sleep(tick_every).await;
            }
        }
    })
}

/// Starts `job` in a task of its own every `period`, the first time one period from now.
/// The timer only waits: aborting it never cancels a job it started.
fn every<F, Fut>(period: Duration, job: F) -> JoinHandle<()>
where
    F: Fn() -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    tokio::spawn(async move {
        let mut timer = tokio::time::interval_at(Instant::now() + period, period);
        // After a suspend or a stall, one run, not a burst of the missed ones.
        timer.set_missed_tick_behavior(MissedTickBehavior::Skip);
        loop {
            timer.tick().await;
            tokio::spawn(job());
        }
    })
}

/// A dispatcher pass now, after the one running (if any).
pub async fn run_tick_now(engine: &Arc<Engine>) -> Result<usize, DbError> {
    let started = std::time::Instant::now();
    let result = engine.tick_now().await;
    log_tick(&result, started);
    result
}

fn log_tick(result: &Result<usize, DbError>, started: std::time::Instant) {
    match result {
        Ok(0) => {}
        Ok(n) => tracing::info!(
            "dispatcher handled {n} reminders in {} ms",
            started.elapsed().as_millis()
        ),
        Err(e) => tracing::error!("dispatcher tick failed: {e}"),
    }
}

/// Tops up every user's reminders to the horizon, a few users per transaction so requests
/// are never kept waiting long.
pub async fn run_planning(engine: &Engine) {
    let days = engine.settings.reminders.horizon_days;
    let now = engine.clock.now();
    let started = std::time::Instant::now();
    let users = match engine
        .db
        .read(|conn| Ok::<_, DbError>(planner::users_with_medications(conn)?))
        .await
    {
        Ok(users) => users,
        Err(e) => {
            tracing::error!("planning reminders failed: {e}");
            return;
        }
    };
    let mut added = 0;
    let count = users.len();
    for chunk in users.chunks(PLANNING_CHUNK) {
        // The list is sorted: the chunk is the users with medications in this id range.
        let (Some(&first), Some(&last)) = (chunk.first(), chunk.last()) else {
            continue;
        };
        let result = engine
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let n = planner::plan_users(&tx, first, last, days, now)?;
                tx.commit()?;
                Ok::<_, DbError>(n)
            })
            .await;
        match result {
            Ok(n) => added += n,
            Err(e) => tracing::error!("planning reminders failed: {e}"),
        }
    }
    if added > 0 {
        tracing::info!(
            "planned {added} new reminders for {count} users in {} ms",
            started.elapsed().as_millis()
        );
    }
    if let Err(e) = engine
        .db
        .write(|conn| Ok::<_, DbError>(crate::db::shrink_memory(conn)?))
        .await
    {
        tracing::warn!("could not release the planner's page cache: {e}");
    }
}
