//! The reminder engine: the planner turns schedules into reminders, the dispatcher
//! delivers them by Web Push and e-mail on a timer (tokio-cron-scheduler).

pub mod dispatcher;
pub mod messages;
pub mod planner;
pub mod push;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;
use tokio_cron_scheduler::{Job, JobScheduler};

use crate::db::DbError;
use dispatcher::Engine;

/// How often every user's reminders are topped up to the horizon.
const PLANNING_EVERY: Duration = Duration::from_secs(6 * 60 * 60);

/// Starts the dispatcher and the planner's top-up on a scheduler, and runs both once now.
pub async fn start(engine: Arc<Engine>) -> Result<JobScheduler, String> {
    let scheduler = JobScheduler::new()
        .await
        .map_err(|e| format!("cannot start the reminder scheduler: {e}"))?;
    let tick_every = Duration::from_secs(u64::from(engine.settings.reminders.tick_seconds));
    // A tick still running when the next is due makes the next one skip.
    let busy = Arc::new(Mutex::new(()));
    let tick_engine = Arc::clone(&engine);
    let tick = Job::new_repeated_async(tick_every, move |_, _| {
        let engine = Arc::clone(&tick_engine);
        let busy = Arc::clone(&busy);
        Box::pin(async move {
            let Ok(_guard) = busy.try_lock() else {
                return;
            };
            run_tick(&engine).await;
        })
    })
    .map_err(|e| format!("cannot schedule the dispatcher: {e}"))?;
    let plan_engine = Arc::clone(&engine);
    let plan = Job::new_repeated_async(PLANNING_EVERY, move |_, _| {
        let engine = Arc::clone(&plan_engine);
        Box::pin(async move { run_planning(&engine).await })
    })
    .map_err(|e| format!("cannot schedule the planner: {e}"))?;
    for job in [tick, plan] {
        scheduler
            .add(job)
            .await
            .map_err(|e| format!("cannot schedule reminders: {e}"))?;
    }
    scheduler
        .start()
        .await
        .map_err(|e| format!("cannot start the reminder scheduler: {e}"))?;
    let first = Arc::clone(&engine);
    tokio::spawn(async move {
        run_planning(&first).await;
        run_tick(&first).await;
    });
    Ok(scheduler)
}

async fn run_tick(engine: &Arc<Engine>) {
    let started = std::time::Instant::now();
    match engine.tick().await {
        Ok(0) => {}
        Ok(n) => tracing::info!(
            "dispatcher handled {n} reminders in {} ms",
            started.elapsed().as_millis()
        ),
        Err(e) => tracing::error!("dispatcher tick failed: {e}"),
    }
}

/// Tops up every user's reminders to the horizon, one user per transaction so requests
/// are never kept waiting long.
pub async fn run_planning(engine: &Engine) {
    let days = engine.settings.reminders.horizon_days;
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
    for user_id in users {
        let result = engine
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let n = planner::plan_user(&tx, user_id, days)?;
                tx.commit()?;
                Ok::<_, DbError>(n)
            })
            .await;
        match result {
            Ok(n) => added += n,
            Err(e) => tracing::error!("planning reminders for user {user_id} failed: {e}"),
        }
    }
    if added > 0 {
        tracing::info!(
            "planned {added} new reminders for {count} users in {} ms",
            started.elapsed().as_millis()
        );
    }
}
