//! `/health` answers 503, naming the check, when the database cannot be written, the disk is
//! full, or the reminder dispatcher has not finished a pass for too long.

mod common;

use std::net::TcpListener;
use std::time::{Duration, Instant};

use common::push::PushService;
use common::{Server, client, get_json, post};
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn health(server: &Server) -> (StatusCode, Value) {
    let response = client().get(server.url("/health")).send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

/// Polls `/health` until `done` holds for its answer.
async fn health_until(server: &Server, within: Duration, done: impl Fn(StatusCode, &Value) -> bool) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let (status, body) = health(server).await;
        if done(status, &body) {
            return body;
        }
        assert!(Instant::now() < deadline, "/health still answers {status} {body}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_healthy_server_reports_every_check() {
    let server = Server::start();
    let (status, body) = health(&server).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["status"], "ok");
    assert_eq!(body["data"]["database"], "ok");
    assert_eq!(
        body["data"]["checks"],
        json!({ "database": "ok", "disk": "ok", "dispatcher": "ok" })
    );
}

#[tokio::test]
async fn too_little_free_disk_space_answers_503_naming_the_disk() {
    // No file system here has an exabyte free: the real free space is below the threshold.
    let server = Server::start_with(|command| {
        command.env("PILLBOX_HEALTH_MIN_FREE_BYTES", "1000000000000000000");
    });
    let (status, body) = health(&server).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["success"], false);
    assert_eq!(body["code"], "service_unavailable");
    assert_eq!(body["message"], "Unhealthy: disk");
    let disk = body["checks"]["disk"].as_str().unwrap();
    assert!(
        disk.contains("MB free") && disk.contains("health.min_free_bytes"),
        "{disk}"
    );
    assert_eq!(body["checks"]["database"], "ok");
    assert_eq!(body["checks"]["dispatcher"], "ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_another_process_keeps_locked_answers_503_naming_the_database() {
    let server = Server::start();
    let (status, _) = health(&server).await;
    assert_eq!(status, StatusCode::OK);

    // Someone left a write transaction open on the database (an sqlite3 shell, a script):
    // the server can read but not write.
    let database = server.data_dir.join("pillbox.sqlite3");
    let (locked, release) = std::sync::mpsc::channel::<()>();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        let conn = rusqlite::Connection::open(&database).unwrap();
        conn.execute_batch("BEGIN EXCLUSIVE; UPDATE health_probe SET written_at = 'held';")
            .unwrap();
        locked.send(()).unwrap();
        release_rx.recv().unwrap();
        conn.execute_batch("ROLLBACK").unwrap();
    });
    release.recv().unwrap();
    // Answers given before the lock may be reused for 2 s.
    let body = health_until(&server, Duration::from_secs(15), |status, _| {
        status == StatusCode::SERVICE_UNAVAILABLE
    })
    .await;
    assert_eq!(body["message"], "Unhealthy: database", "{body}");
    let database = body["checks"]["database"].as_str().unwrap();
    assert!(database.contains("write"), "{database}");
    assert_eq!(body["checks"]["disk"], "ok");
    // Reading still works meanwhile.
    let (status, _) = get_json(&server, "/api/version", None).await;
    assert_eq!(status, StatusCode::OK);

    release_tx.send(()).unwrap();
    holder.join().unwrap();
    health_until(&server, Duration::from_secs(15), |status, _| {
        status == StatusCode::OK
    })
    .await;
}

/// A push service that accepts connections and never answers.
fn silent_push_endpoint() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/push/", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    base
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dispatcher_stuck_in_a_pass_answers_503_naming_the_dispatcher() {
    let silent = silent_push_endpoint();
    let server = Server::start_with(|command| {
        command
            .env("PILLBOX_PUSH_ALLOW_ENDPOINTS", &silent)
            .env("PILLBOX_REMINDERS_TICK_SECONDS", "1")
            .env("PILLBOX_HEALTH_DISPATCHER_STALE_SECONDS", "3");
    });
    let token = common::register(&server, "cy@example.test").await;
    // A device whose push service never answers: the pass sending to it waits for the
    // push timeout (15 s), longer than the 3 s the health check allows.
    let keys = PushService::start().await.subscribe("phone").json["keys"].clone();
    let (status, body) = post(
        &server,
        "/api/notifications/push/register",
        Some(&token),
        json!({ "subscription": { "endpoint": format!("{silent}phone"), "keys": keys }, "userAgent": "test browser" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = post(
        &server,
        "/api/medications",
        Some(&token),
        json!({ "name": "Folic acid", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let medication = body["data"]["id"].as_i64().unwrap();
    let (status, _) = health(&server).await;
    assert_eq!(status, StatusCode::OK, "healthy before the reminder falls due");

    let due = chrono::Utc::now() + chrono::Duration::seconds(1);
    let (status, body) = post(
        &server,
        "/api/notifications",
        Some(&token),
        json!({ "medication_id": medication, "scheduled_time": due.to_rfc3339(), "reminder_minutes_before": 0 }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    let body = health_until(&server, Duration::from_secs(12), |status, _| {
        status == StatusCode::SERVICE_UNAVAILABLE
    })
    .await;
    assert_eq!(body["message"], "Unhealthy: dispatcher", "{body}");
    let dispatcher = body["checks"]["dispatcher"].as_str().unwrap();
    assert!(dispatcher.contains("no pass has finished"), "{dispatcher}");
    assert_eq!(body["checks"]["database"], "ok");

    // Once the push times out the pass ends, and the dispatcher is healthy again.
    health_until(&server, Duration::from_secs(30), |status, _| {
        status == StatusCode::OK
    })
    .await;
}
