//! A clock that integration tests move, so that they never wait in real time for a
//! reminder, a repeat or a retry to fall due.
//!
//! `POST /api/test/clock` with `{"advance_seconds": N}` moves the server's clock (the one
//! the API and the reminder engine share) N seconds forward (`{"jump_seconds": N}` sets it
//! N seconds forward or back as a system clock is set, which the engine's clock watch
//! notices; `advance_seconds` is time passing, which it does not), then runs a dispatcher pass
//! and answers only when the work it started has finished: the pass with every push it
//! sent answered (withdrawals and carers' alerts among them), and the e-mail and channel
//! queues with nothing due left unsent. So whatever is due by the new time has been
//! handled, and a test may assert that nothing (more) arrived as soon as it answers. It
//! answers `{"success": true, "data": {"now": "<the server's time>", "handled": <reminders>}}`,
//! or 503 when the queues are still sending a minute later.
//!
//! `PILLBOX_TEST_CLOCK_START` (an RFC 3339 instant; read by cli/serve.rs, debug builds
//! only) starts the same clock at that instant instead of the system's time.
//!
//! The route exists only in a debug build (this module is compiled only with
//! `debug_assertions`) started with `PILLBOX_TEST_CLOCK=1`. A release build never has it
//! (its `/api/test/clock` is the API's 404), and it is not in the OpenAPI document.

use std::time::Duration as StdDuration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use chrono::Duration;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::AppState;
use super::error::{ApiError, ApiResult, Data, data};
use super::extract::ApiJson;
use crate::reminders::run_tick_now;

/// The variable that turns the route on (in debug builds only).
const ENABLE: &str = "PILLBOX_TEST_CLOCK";
/// Tests move minutes or days; a year is plenty and keeps the arithmetic far from overflow.
const MAX_ADVANCE_SECONDS: i64 = 366 * 24 * 60 * 60;
/// How long the queues may take to send what fell due before the route says they did not.
const SETTLE_WITHIN: StdDuration = StdDuration::from_secs(60);

#[derive(Deserialize)]
struct Advance {
    /// Time passing: the clock moves and so does everything waiting on it.
    #[serde(default)]
    advance_seconds: i64,
    /// The system clock being set (forward, or back when negative) without time passing:
    /// what NTP does to a Pi that booted with a stale clock. The engine's clock watch sees it.
    #[serde(default)]
    jump_seconds: i64,
}

#[derive(Serialize)]
struct Moved {
    now: String,
    handled: usize,
}

/// `api` with the test clock's route when `PILLBOX_TEST_CLOCK=1`.
pub fn mount(api: Router<AppState>) -> Router<AppState> {
    if std::env::var(ENABLE).as_deref() != Ok("1") {
        return api;
    }
    tracing::warn!("{ENABLE}=1: this debug build lets POST /api/test/clock move its clock");
    api.route("/test/clock", post(advance))
}

async fn advance(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<Advance>,
) -> ApiResult<axum::Json<Data<Moved>>> {
    if !(0..=MAX_ADVANCE_SECONDS).contains(&body.advance_seconds) {
        return Err(ApiError::bad_request(format!(
            "advance_seconds must be between 0 and {MAX_ADVANCE_SECONDS}"
        )));
    }
    if !(-MAX_ADVANCE_SECONDS..=MAX_ADVANCE_SECONDS).contains(&body.jump_seconds) {
        return Err(ApiError::bad_request(format!(
            "jump_seconds must be between -{MAX_ADVANCE_SECONDS} and {MAX_ADVANCE_SECONDS}"
        )));
    }
    state.clock.jump(Duration::seconds(body.jump_seconds));
    state.clock.advance(Duration::seconds(body.advance_seconds));
    let handled = run_tick_now(&state.engine).await?;
    // The pass has its pushes' answers; the e-mails and channel messages that fell due
    // (reminders' among them) have their attempt too. A channel message that failed may
    // fall back to e-mail, so both queues are waited on until neither has anything due.
    let deadline = Instant::now() + SETTLE_WITHIN;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mail_idle = state.engine.mail.drain(left).await;
        let left = deadline.saturating_duration_since(Instant::now());
        let channels_idle = state.engine.channels.drain(left).await;
        if mail_idle && channels_idle && state.engine.mail.drain(StdDuration::ZERO).await {
            break;
        }
        if Instant::now() >= deadline {
            // A test must not read "nothing arrived" from work still under way.
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "e-mails or channel messages were still being sent {} s after the pass",
                    SETTLE_WITHIN.as_secs()
                ),
            ));
        }
    }
    Ok(data(Moved {
        now: state.clock.now_stamp(),
        handled,
    }))
}
