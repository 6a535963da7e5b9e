//! A clock that integration tests move, so that they never wait in real time for a
//! reminder, a repeat or a retry to fall due.
//!
//! `POST /api/test/clock` with `{"advance_seconds": N}` moves the server's clock (the one
//! the API and the reminder engine share) N seconds forward, then runs a dispatcher pass
//! and answers when it has ended and the e-mail queue has tried every mail due: whatever
//! is due by the new time has been handled. It
//! answers `{"success": true, "data": {"now": "<the server's time>", "handled": <reminders>}}`.
//!
//! The route exists only in a debug build (this module is compiled only with
//! `debug_assertions`) started with `PILLBOX_TEST_CLOCK=1`. A release build never has it
//! (its `/api/test/clock` is the API's 404), and it is not in the OpenAPI document.

use axum::Router;
use axum::extract::State;
use axum::routing::post;
use chrono::Duration;
use serde::{Deserialize, Serialize};

use super::AppState;
use super::error::{ApiError, ApiResult, Data, data};
use super::extract::ApiJson;
use crate::reminders::run_tick_now;

/// The variable that turns the route on (in debug builds only).
const ENABLE: &str = "PILLBOX_TEST_CLOCK";
/// Tests move minutes or days; a year is plenty and keeps the arithmetic far from overflow.
const MAX_ADVANCE_SECONDS: i64 = 366 * 24 * 60 * 60;

#[derive(Deserialize)]
struct Advance {
    advance_seconds: i64,
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
    state.clock.advance(Duration::seconds(body.advance_seconds));
    let handled = run_tick_now(&state.engine).await?;
    // E-mails that fell due (reminders' among them) have had their attempt too.
    state.engine.mail.drain(std::time::Duration::from_secs(60)).await;
    // And the channels' messages.
    state
        .engine
        .channels
        .drain(std::time::Duration::from_secs(60))
        .await;
    Ok(data(Moved {
        now: state.clock.now_stamp(),
        handled,
    }))
}
