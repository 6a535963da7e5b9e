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
        json!({ "database": "ok", "disk": "ok", "dispatcher": "ok", "clock": "ok" })
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

/// A small tmpfs, unmounted when dropped (after the server that uses it).
struct SmallFileSystem {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
}

impl SmallFileSystem {
    /// `Err` with mount's words where this process may not mount (not root, or a
    /// container without the right).
    fn mount(megabytes: u32) -> Result<SmallFileSystem, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fs");
        std::fs::create_dir(&path).unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(&path)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !mounted.status.success() {
            return Err(String::from_utf8_lossy(&mounted.stderr).trim().to_owned());
        }
        Ok(SmallFileSystem { _dir: dir, path })
    }

    /// Writes zeros until the file system refuses more.
    fn fill(&self) {
        use std::io::Write;
        let mut file = std::fs::File::create(self.path.join("filler")).unwrap();
        let block = vec![0u8; 64 * 1024];
        while file.write_all(&block).is_ok() {}
        // The last bytes may fit only one at a time.
        while file.write_all(&[0]).is_ok() {}
    }
}

impl Drop for SmallFileSystem {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.path)
            .status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_really_full_file_system_answers_503_naming_the_database_and_the_disk() {
    // tests/run-all.sh runs this test as root with PILLBOX_REQUIRE_ROOT_TESTS=1: there a
    // file system that cannot be mounted is a failure, not a skip.
    let fs = match SmallFileSystem::mount(16) {
        Ok(fs) => fs,
        Err(why) if std::env::var("PILLBOX_REQUIRE_ROOT_TESTS").as_deref() == Ok("1") => {
            panic!(
                "PILLBOX_REQUIRE_ROOT_TESTS=1 but a tmpfs cannot be mounted (root with CAP_SYS_ADMIN needed): {why}"
            )
        }
        Err(why) => {
            eprintln!(
                "skipped: mounting a tmpfs needs root (CAP_SYS_ADMIN): {why}; tests/run-all.sh runs this test as root"
            );
            return;
        }
    };
    let server = Server::start_in(&fs.path.join("data"), |command| {
        command
            .env("PILLBOX_HEALTH_MIN_FREE_BYTES", "4000000")
            .env("PILLBOX_BACKUP_DAILY", "false");
    })
    .unwrap();
    let (status, body) = health(&server).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let token = common::register(&server, "full@example.org").await;
    let medication = common::medication(
        &server,
        &token,
        json!({ "name": "Aspirin", "unit": "tablets", "frequency": "as_needed", "default_quantity": 1 }),
    )
    .await;
    let doses = format!("/api/medications/{medication}/doses");
    let log_dose = || post(&server, &doses, Some(&token), json!({}));

    fs.fill();
    let body = health_until(&server, Duration::from_secs(10), |status, body| {
        status == StatusCode::SERVICE_UNAVAILABLE && body["checks"]["database"] != "ok"
    })
    .await;
    assert_eq!(body["message"], "Unhealthy: database, disk", "{body}");
    let database = body["checks"]["database"].as_str().unwrap();
    assert!(database.contains("full"), "{database}");
    assert!(
        body["checks"]["disk"].as_str().unwrap().contains("0.0 MB free"),
        "{body}"
    );

    // A dose logged meanwhile is refused with what happened, not "something went wrong".
    let (status, refused) = log_dose().await;
    assert_eq!(status, StatusCode::INSUFFICIENT_STORAGE, "{refused}");
    assert_eq!(refused["code"], "storage_full", "{refused}");
    assert!(
        refused["message"].as_str().unwrap().contains("nothing was saved"),
        "{refused}"
    );

    std::fs::remove_file(fs.path.join("filler")).unwrap();
    health_until(&server, Duration::from_secs(10), |status, _| {
        status == StatusCode::OK
    })
    .await;
    let (status, logged) = log_dose().await;
    assert_eq!(status, StatusCode::CREATED, "{logged}");
    let (_, history) = get_json(&server, "/api/medications/history", Some(&token)).await;
    assert_eq!(
        history["data"].as_array().unwrap().len(),
        1,
        "only the dose logged with room: {history}"
    );
    drop(server);
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
