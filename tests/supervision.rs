//! Under systemd: the real binary talks the notify protocol to a socket of the test's own
//! (as systemd's would be), feeds the watchdog only while it is healthy, and stops cleanly on
//! SIGTERM at any moment of its life.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixDatagram;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Server, pillbox};

/// The service manager's end of `$NOTIFY_SOCKET`.
struct NotifySocket {
    socket: UnixDatagram,
    path: std::path::PathBuf,
}

impl NotifySocket {
    fn bind(dir: &Path) -> NotifySocket {
        let path = dir.join("notify.sock");
        let socket = UnixDatagram::bind(&path).unwrap();
        NotifySocket { socket, path }
    }

    /// Points a server at this socket with a watchdog of `watchdog` (pinged every half).
    fn configure(&self, command: &mut Command, watchdog: Option<Duration>) {
        command.env("NOTIFY_SOCKET", &self.path);
        if let Some(watchdog) = watchdog {
            command.env("WATCHDOG_USEC", watchdog.as_micros().to_string());
        }
    }

    /// The next message's lines (`READY=1`, `STATUS=…`), or `None` after `within`.
    fn next(&self, within: Duration) -> Option<Vec<String>> {
        self.socket.set_read_timeout(Some(within)).unwrap();
        let mut buffer = [0u8; 4096];
        let n = self.socket.recv(&mut buffer).ok()?;
        Some(
            String::from_utf8_lossy(&buffer[..n])
                .lines()
                .map(str::to_owned)
                .collect(),
        )
    }

    /// Waits for a message with a line that starts with `line`; returns every line seen up
    /// to it.
    fn wait_for(&self, line: &str, within: Duration) -> Vec<String> {
        let deadline = Instant::now() + within;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no {line} within {within:?}; got {seen:?}");
            if let Some(lines) = self.next(left) {
                let found = lines.iter().any(|l| l.starts_with(line));
                seen.extend(lines);
                if found {
                    return seen;
                }
            }
        }
    }

    /// Every line that arrives during `window`.
    fn collect(&self, window: Duration) -> Vec<String> {
        let deadline = Instant::now() + window;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return seen;
            }
            if let Some(lines) = self.next(left) {
                seen.extend(lines);
            }
        }
    }
}

fn start(dir: &tempfile::TempDir, notify: &NotifySocket, watchdog: Option<Duration>) -> Server {
    Server::start_in(&dir.path().join("data"), |command| {
        notify.configure(command, watchdog);
    })
    .unwrap()
}

fn sigterm(pid: u32) {
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn ready_then_watchdog_pings_then_stopping_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let notify = NotifySocket::bind(dir.path());
    let server = start(&dir, &notify, Some(Duration::from_secs(1)));
    let seen = notify.wait_for("READY=1", Duration::from_secs(10));
    assert!(
        seen.iter()
            .any(|l| l.starts_with("STATUS=Serving on http://127.0.0.1:")),
        "{seen:?}"
    );
    // WatchdogSec=1s: a ping every half second.
    let pings = notify
        .collect(Duration::from_secs(2))
        .iter()
        .filter(|l| *l == "WATCHDOG=1")
        .count();
    assert!(pings >= 3, "{pings} pings in 2 s");

    let (status, log) = server.terminate();
    assert_eq!(status.code(), Some(0), "{log}");
    notify.wait_for("STOPPING=1", Duration::from_secs(1));
}

#[test]
fn no_watchdog_pings_without_a_watchdog() {
    let dir = tempfile::tempdir().unwrap();
    let notify = NotifySocket::bind(dir.path());
    let _server = start(&dir, &notify, None);
    notify.wait_for("READY=1", Duration::from_secs(10));
    let seen = notify.collect(Duration::from_millis(1500));
    assert!(!seen.iter().any(|l| l == "WATCHDOG=1"), "{seen:?}");
}

#[test]
fn the_watchdog_goes_hungry_while_the_database_cannot_take_a_write() {
    let dir = tempfile::tempdir().unwrap();
    let notify = NotifySocket::bind(dir.path());
    let server = start(&dir, &notify, Some(Duration::from_secs(1)));
    notify.wait_for("READY=1", Duration::from_secs(10));
    notify.wait_for("WATCHDOG=1", Duration::from_secs(5));

    // Someone leaves a write transaction open on the database (an sqlite3 shell, a script).
    let database = server.data_dir.join("pillbox.sqlite3");
    let holder = rusqlite::Connection::open(&database).unwrap();
    holder
        .execute_batch("BEGIN EXCLUSIVE; UPDATE health_probe SET written_at = 'held';")
        .unwrap();
    let seen = notify.wait_for("STATUS=Unhealthy: database: ", Duration::from_secs(15));
    assert!(
        seen.iter().any(|l| l == "WATCHDOG=1"),
        "pinged before the lock: {seen:?}"
    );
    // From then on systemd hears nothing: after WatchdogSec it restarts the service.
    let quiet = notify.collect(Duration::from_secs(3));
    assert!(!quiet.iter().any(|l| l == "WATCHDOG=1"), "{quiet:?}");
    assert!(
        server.logged_blocking("not feeding the systemd watchdog: database: "),
        "{}",
        server.log()
    );

    holder.execute_batch("ROLLBACK").unwrap();
    let seen = notify.wait_for("WATCHDOG=1", Duration::from_secs(15));
    assert!(seen.iter().any(|l| l == "STATUS=Serving"), "{seen:?}");
}

#[test]
fn sigterm_the_moment_ready_is_sent_stops_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let notify = NotifySocket::bind(dir.path());
    let server = start(&dir, &notify, Some(Duration::from_secs(60)));
    notify.wait_for("READY=1", Duration::from_secs(10));
    sigterm(server.pid());
    let (status, log) = server.terminate();
    assert_eq!(status.code(), Some(0), "signal {:?}\n{log}", status.signal());
    assert!(log.contains("pillbox stopped"), "{log}");
    notify.wait_for("STOPPING=1", Duration::from_secs(1));
}

#[test]
fn sigterm_while_starting_stops_cleanly_and_the_next_start_works() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let notify = NotifySocket::bind(dir.path());
    let mut command = pillbox(&data_dir);
    command.args(["serve", "--bind", "127.0.0.1:0"]);
    notify.configure(&mut command, None);
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first line ("creating a new database …") comes before the migrations.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    sigterm(child.id());
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(0),
        "signal {:?}\n{first}{rest}",
        status.signal()
    );

    let server = Server::start_in(&data_dir, |_| {}).unwrap();
    let (status, log) = server.terminate();
    assert!(status.success(), "{log}");
}

#[test]
fn sigterm_with_a_request_in_flight_answers_it_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let notify = NotifySocket::bind(dir.path());
    let server = start(&dir, &notify, None);
    notify.wait_for("READY=1", Duration::from_secs(10));

    // A sign-up whose body is still on its way when SIGTERM comes.
    let body = br#"{"email":"first@example.test","password":"secret123"}"#;
    let address = server.base.trim_start_matches("http://").to_owned();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    write!(
        stream,
        "POST /api/auth/register HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .unwrap();
    stream.write_all(&body[..10]).unwrap();
    // The server is reading the request when SIGTERM comes, and the rest of the body
    // arrives once it says it is stopping.
    common::server_end_read(&stream);
    sigterm(server.pid());
    notify.wait_for("STOPPING=1", Duration::from_secs(5));
    stream.write_all(&body[10..]).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");

    let (status, log) = server.terminate();
    assert_eq!(status.code(), Some(0), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_mid_pass_lets_the_sends_under_way_finish_and_claims_nothing_more() {
    use common::push::PushService;
    use common::{post, register_device, remind_in};
    // More than one batch (100) is due; each push takes 1.5 s to be answered.
    const DUE: usize = 150;
    let push = PushService::start().await;
    let temp = tempfile::tempdir().unwrap();
    let data = temp.path().join("data");
    let engine = |command: &mut Command| {
        common::with_test_clock(command);
        command
            .env("PILLBOX_REMINDERS_TICK_SECONDS", "3600")
            .env("PILLBOX_PUSH_ALLOW_ENDPOINTS", push.prefix());
    };
    let server = Server::start_in(&data, engine).unwrap();
    let token = common::register(&server, "lee@example.test").await;
    register_device(&server, &token, &push, "phone").await;
    let (_, created) = post(
        &server,
        "/api/medications",
        Some(&token),
        serde_json::json!({ "name": "Metformin", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    let medication = created["data"]["id"].as_i64().unwrap();
    // Due in an hour: the dispatcher, which sleeps until a reminder is due, leaves them
    // alone while they are made; the test clock brings them due in one pass.
    for _ in 0..DUE {
        remind_in(&server, &token, medication, 3600).await;
    }
    push.delay("phone", Duration::from_millis(1500));
    let clock = server.url("/api/test/clock");
    tokio::spawn(async move {
        let _ = common::client()
            .post(clock)
            .json(&serde_json::json!({ "advance_seconds": 3605 }))
            .send()
            .await;
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    while push.hits("phone") == 0 {
        assert!(Instant::now() < deadline, "no push was sent");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let (status, log) = tokio::task::spawn_blocking(move || server.terminate())
        .await
        .unwrap();
    assert_eq!(status.code(), Some(0), "{log}");
    // The first batch's pushes were all answered and recorded; the rest was never claimed.
    assert_eq!(push.hits("phone"), 100, "{log}");
    assert_eq!(push.answered("phone"), 100, "{log}");
    assert!(!log.contains("still being sent"), "{log}");
    assert!(!log.contains("the last run stopped while sending"), "{log}");

    // After a restart the other 50 go out, and no reminder reaches the phone twice.
    push.delay("phone", Duration::ZERO);
    let server = Server::start_in(&data, engine).unwrap();
    // A new server's test clock starts at the real time again.
    common::advance_clock(&server, 3605).await;
    let received = push.received("phone");
    let topics: std::collections::BTreeSet<_> = received.iter().filter_map(|r| r.topic.clone()).collect();
    assert_eq!(received.len(), DUE, "{}", server.log());
    assert_eq!(topics.len(), DUE, "a reminder was pushed twice");
    // The log is read from the server's stderr by another thread: wait for the clock
    // request's own line. The server takes over the last run's reminders before it serves
    // any request, so whatever that said is in the log by then.
    assert!(
        server.logged("method=POST path=/api/test/clock status=200").await,
        "{}",
        server.log()
    );
    assert!(
        !server.log().contains("the last run stopped while sending"),
        "{}",
        server.log()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watchdog_goes_hungry_while_the_dispatcher_is_stuck_in_a_pass() {
    use common::push::PushService;
    use common::{post, remind_in};
    // A push service that takes connections and never answers: the pass sending to it
    // waits for the push timeout (15 s), longer than the 3 s the dispatcher may go quiet.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let prefix = format!("http://{}/push/", silent.local_addr().unwrap());
    std::thread::spawn(move || {
        let held: Vec<_> = silent.incoming().flatten().collect();
        drop(held);
    });
    let dir = tempfile::tempdir().unwrap();
    let notify = NotifySocket::bind(dir.path());
    let server = Server::start_in(&dir.path().join("data"), |command| {
        notify.configure(command, Some(Duration::from_secs(1)));
        command
            .env("PILLBOX_PUSH_ALLOW_ENDPOINTS", &prefix)
            .env("PILLBOX_REMINDERS_TICK_SECONDS", "1")
            .env("PILLBOX_HEALTH_DISPATCHER_STALE_SECONDS", "3");
    })
    .unwrap();
    notify.wait_for("READY=1", Duration::from_secs(10));
    let token = common::register(&server, "max@example.test").await;
    let keys = PushService::start().await.subscribe("phone").json["keys"].clone();
    let (status, body) = post(
        &server,
        "/api/notifications/push/register",
        Some(&token),
        serde_json::json!({ "subscription": { "endpoint": format!("{prefix}phone"), "keys": keys }, "userAgent": "test browser" }),
    )
    .await;
    assert_eq!(status, reqwest::StatusCode::CREATED, "{body}");
    let (_, created) = post(
        &server,
        "/api/medications",
        Some(&token),
        serde_json::json!({ "name": "Folic acid", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    remind_in(&server, &token, created["data"]["id"].as_i64().unwrap(), 1).await;

    let seen = tokio::task::spawn_blocking(move || {
        let seen = notify.wait_for("STATUS=Unhealthy: dispatcher: ", Duration::from_secs(15));
        let quiet = notify.collect(Duration::from_secs(2));
        (seen, quiet)
    })
    .await
    .unwrap();
    assert!(
        seen.0.iter().any(|l| l == "WATCHDOG=1"),
        "fed before: {:?}",
        seen.0
    );
    assert!(!seen.1.iter().any(|l| l == "WATCHDOG=1"), "{:?}", seen.1);
}
