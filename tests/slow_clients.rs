//! Slow and idle clients cannot hold the server: headers, bodies and idle connections have
//! timeouts, the connections it holds have a ceiling below its open files limit, and SIGTERM
//! ends it within 10 s whatever the clients do.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Server, client, server_end, server_end_read};
use reqwest::StatusCode;

/// Starts a server with the given open files limits, as a shell or a tight system gives them.
fn start_with_open_files(soft: u64, hard: Option<u64>, env: &[(&str, &str)]) -> Server {
    let (_, current_hard) = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap();
    let hard = hard.unwrap_or(current_hard).min(current_hard);
    let env: Vec<(String, String)> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Server::start_with(move |command: &mut Command| {
        command.envs(env);
        // SAFETY: setrlimit is async-signal-safe and touches only the child.
        unsafe {
            command.pre_exec(move || rlimit::setrlimit(rlimit::Resource::NOFILE, soft.min(hard), hard));
        }
    })
}

/// The test itself holds thousands of sockets.
fn raise_own_open_files_limit() {
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap();
    assert!(
        limit >= 2_500,
        "this test needs 2,500 open files; the hard limit allows {limit}"
    );
}

fn open_files(server: &Server) -> usize {
    std::fs::read_dir(format!("/proc/{}/fd", server.pid()))
        .map(|dir| dir.count())
        .unwrap_or(0)
}

/// 1,000 connections that say nothing and 1,000 that send a request's headers a byte a
/// second and never finish them (slowloris). Dropping the value stops the writer.
struct Crowd {
    _idle: Vec<TcpStream>,
    stop: Arc<AtomicBool>,
    /// Rounds of a byte to every slow connection written so far.
    rounds: Arc<AtomicUsize>,
    writer: Option<std::thread::JoinHandle<()>>,
}

impl Crowd {
    fn gather(server: &Server) -> Crowd {
        let address: std::net::SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();
        let connect = || {
            TcpStream::connect_timeout(&address, Duration::from_secs(5))
                .expect("the server stopped accepting connections")
        };
        let idle: Vec<TcpStream> = (0..1_000).map(|_| connect()).collect();
        let mut slow: Vec<TcpStream> = (0..1_000)
            .map(|_| {
                let mut stream = connect();
                let _ = stream.write_all(b"GET /health HTTP/1.1\r\nHost: pillbox\r\nX-Slow: ");
                stream
            })
            .collect();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let rounds = Arc::new(AtomicUsize::new(0));
        let written = Arc::clone(&rounds);
        let writer = std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                for stream in &mut slow {
                    // A connection the server closed fails here; that is its business.
                    let _ = stream.write(b"a");
                }
                written.fetch_add(1, Ordering::Release);
                std::thread::sleep(Duration::from_millis(900));
            }
        });
        Crowd {
            _idle: idle,
            stop,
            rounds,
            writer: Some(writer),
        }
    }

    /// Waits until the slow connections have each sent `more` further bytes.
    fn wait_rounds(&self, more: usize) {
        let target = self.rounds.load(Ordering::Acquire) + more;
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.rounds.load(Ordering::Acquire) < target {
            assert!(Instant::now() < deadline, "the crowd's writer stalled");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Crowd {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// A person's requests, each on a new connection: `/health` and their medication list.
async fn assert_answered_quickly(server: &Server, token: &str) {
    for (path, token) in [("/health", None), ("/api/medications", Some(token))] {
        let started = Instant::now();
        let mut request = client().get(server.url(path)).timeout(Duration::from_secs(10));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        response.bytes().await.unwrap();
        let took = started.elapsed();
        assert!(took < Duration::from_secs(1), "{path} took {took:?}");
    }
}

fn terminate_within_ten_seconds(server: Server) {
    let started = Instant::now();
    let (status, log) = server.terminate();
    let took = started.elapsed();
    assert!(status.success(), "exit status {status}\n{log}");
    assert!(took < Duration::from_secs(10), "SIGTERM took {took:?}\n{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_idle_and_slowloris_connections_neither_delay_a_person_nor_hold_sigterm() {
    raise_own_open_files_limit();
    // Started by hand: a soft limit of 1,024, which serve raises to the hard limit. Long
    // timeouts, so that the crowd stays connected for the whole test.
    let server = start_with_open_files(
        1024,
        None,
        &[
            ("PILLBOX_HTTP_HEADER_TIMEOUT_SECONDS", "60"),
            ("PILLBOX_HTTP_IDLE_TIMEOUT_SECONDS", "60"),
        ],
    );
    let token = common::register(&server, "ana@example.test").await;
    let before = open_files(&server);
    let crowd = Crowd::gather(&server);
    // The server holds the crowd (past 1,024 files) as far as its ceiling allows.
    let (_, hard) = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap();
    let held = 2_000.min(usize::try_from(hard.saturating_sub(256)).unwrap_or(usize::MAX));
    let deadline = Instant::now() + Duration::from_secs(10);
    while open_files(&server) < before + held - 10 {
        assert!(
            Instant::now() < deadline,
            "the server holds {} files, expected about {}",
            open_files(&server),
            before + held
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    assert_answered_quickly(&server, &token).await;
    // Still so once the slowloris connections have trickled two more bytes each.
    crowd.wait_rounds(2);
    assert_answered_quickly(&server, &token).await;

    terminate_within_ten_seconds(server);
    drop(crowd);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_open_files_ceiling_the_longest_idle_connection_makes_room() {
    raise_own_open_files_limit();
    // A hard limit of 1,024 too: the server cannot raise it, so 2,000 connections would use
    // up its files unless it holds fewer.
    let server = start_with_open_files(1024, Some(1024), &[]);
    let token = common::register(&server, "bo@example.test").await;

    let crowd = Crowd::gather(&server);
    for _ in 0..3 {
        assert_answered_quickly(&server, &token).await;
        let files = open_files(&server);
        assert!(files < 1024, "the server has {files} files open");
        crowd.wait_rounds(1);
    }
    // The log names the ceiling in force.
    assert!(
        server.logged("holding at most 768 connections").await,
        "{}",
        server.log()
    );
    terminate_within_ten_seconds(server);
    drop(crowd);
}

/// Whether the server closed its end of `stream` within `within`: none of its files is that
/// connection's socket any more.
fn server_let_go(server: &Server, stream: &TcpStream, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let socket = loop {
        match server_end(stream) {
            Some((inode, _)) if inode != 0 => break format!("socket:[{inode}]"),
            _ if Instant::now() > deadline => return false,
            _ => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    loop {
        let held = std::fs::read_dir(format!("/proc/{}/fd", server.pid()))
            .map(|files| {
                files.flatten().any(|file| {
                    std::fs::read_link(file.path()).is_ok_and(|to| to.as_os_str() == socket.as_str())
                })
            })
            .unwrap_or(false);
        if !held {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether the server closed `stream` (end of file or reset) within `within`.
fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => return false,
            Err(_) => return true,
        }
    }
}

/// Reads one response: its status and body (by `Content-Length`).
fn read_response(stream: &mut TcpStream) -> (u16, String) {
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&data).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let length: usize = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().to_owned())
                })
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            if data.len() >= end + 4 + length {
                let status = text[9..12].parse().unwrap();
                return (status, text[end + 4..end + 4 + length].to_owned());
            }
        }
        let n = stream.read(&mut buf).expect("a response");
        assert!(n > 0, "closed before a whole response: {text}");
        data.extend_from_slice(&buf[..n]);
    }
}

#[test]
fn headers_bodies_and_idle_connections_have_their_own_timeouts() {
    let server = Server::start_with(|command| {
        command
            .env("PILLBOX_HTTP_HEADER_TIMEOUT_SECONDS", "1")
            .env("PILLBOX_HTTP_IDLE_TIMEOUT_SECONDS", "5")
            .env("PILLBOX_HTTP_BODY_TIMEOUT_SECONDS", "1");
    });
    let address = server.base.trim_start_matches("http://").to_owned();
    let connect = || TcpStream::connect(&address).unwrap();
    let idle_started = Instant::now();
    let mut idle = connect();

    // Headers that never finish: closed after the header timeout.
    let mut slow = connect();
    slow.write_all(b"GET /health HTTP/1.1\r\nHost: pillbox\r\n")
        .unwrap();
    let started = Instant::now();
    assert!(closed_within(&mut slow, Duration::from_secs(5)));
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_millis(2500),
        "{took:?}"
    );

    // The same on a kept-alive connection waiting for its next request.
    let mut kept = connect();
    kept.write_all(b"GET /health HTTP/1.1\r\nHost: pillbox\r\n\r\n")
        .unwrap();
    assert_eq!(read_response(&mut kept).0, 200);
    kept.write_all(b"GET /health HTTP/1.1\r\nHost: pil").unwrap();
    let started = Instant::now();
    assert!(closed_within(&mut kept, Duration::from_secs(5)));
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_millis(2500),
        "{took:?}"
    );

    // A body that stops arriving: 408 after the body timeout.
    let mut body = connect();
    body.write_all(
        b"POST /api/auth/login HTTP/1.1\r\nHost: pillbox\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\":",
    )
    .unwrap();
    let started = Instant::now();
    let (status, answer) = read_response(&mut body);
    let took = started.elapsed();
    assert_eq!(status, 408, "{answer}");
    let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["code"], "request_timeout", "{answer}");
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_millis(2500),
        "{took:?}"
    );

    // A connection that sent nothing outlived the header timeout, and is closed after the
    // idle timeout.
    assert!(
        idle_started.elapsed() < Duration::from_millis(4500),
        "{:?}",
        idle_started.elapsed()
    );
    assert!(
        !closed_within(&mut idle, Duration::from_millis(100)),
        "closed before its idle timeout"
    );
    assert!(closed_within(&mut idle, Duration::from_secs(5)));
    let took = idle_started.elapsed();
    assert!(
        took >= Duration::from_millis(4900) && took < Duration::from_millis(6500),
        "{took:?}"
    );
}

#[test]
fn sigterm_lets_a_request_under_way_finish_and_closes_idle_connections_at_once() {
    let server = Server::start();
    let address = server.base.trim_start_matches("http://").to_owned();
    let mut idle = TcpStream::connect(&address).unwrap();
    let mut half_sent = TcpStream::connect(&address).unwrap();
    half_sent.write_all(b"GET /health HTTP/1.1\r\nHost: pil").unwrap();
    // A sign-in whose body is still on its way when SIGTERM comes.
    let body = br#"{"email":"nobody@example.test","password":"wrong password"}"#;
    let mut under_way = TcpStream::connect(&address).unwrap();
    write!(
        under_way,
        "POST /api/auth/login HTTP/1.1\r\nHost: pillbox\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .unwrap();
    under_way.write_all(&body[..10]).unwrap();
    // The server has taken all three and read what each sent before SIGTERM comes.
    for stream in [&idle, &half_sent, &under_way] {
        server_end_read(stream);
    }

    let stopping = Instant::now();
    Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(
        closed_within(&mut idle, Duration::from_secs(2)),
        "idle connection kept"
    );
    assert!(
        closed_within(&mut half_sent, Duration::from_secs(2)),
        "half-sent headers kept"
    );
    under_way.write_all(&body[10..]).unwrap();
    let (status, answer) = read_response(&mut under_way);
    assert_eq!(status, 401, "{answer}");
    assert!(
        closed_within(&mut under_way, Duration::from_secs(2)),
        "kept alive while stopping"
    );

    let (status, log) = server.terminate();
    assert!(status.success(), "exit status {status}\n{log}");
    assert!(
        stopping.elapsed() < Duration::from_secs(10),
        "{:?}",
        stopping.elapsed()
    );
}

/// A client that asks for large answers and stops reading them would otherwise keep its
/// connection busy (never shed) for as long as it likes: it is closed once the answer
/// makes no progress for `http.body_timeout_seconds`.
#[test]
fn a_client_that_stops_reading_its_answer_is_disconnected() {
    let server = Server::start_with(|c| {
        c.env("PILLBOX_HTTP_BODY_TIMEOUT_SECONDS", "1");
    });
    let mut stream = TcpStream::connect(server.base.trim_start_matches("http://")).unwrap();
    // Twenty pipelined requests for a 1 MB asset, uncompressed: far more than the socket
    // buffers hold, so the server must wait for a reader that never comes.
    const ASKED: usize = 20;
    let request = "GET /api-docs/redoc.standalone.js HTTP/1.1\r\nHost: pillbox\r\n\r\n".repeat(ASKED);
    stream.write_all(request.as_bytes()).unwrap();
    // The server's answers stall on the unread socket; wait until it lets the connection go.
    assert!(
        server_let_go(&server, &stream, Duration::from_secs(20)),
        "the stalled connection was kept"
    );
    // Now read everything there is: a server that gave up stops before the end.
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut received = 0usize;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => received += n,
        }
    }
    assert!(
        received < ASKED * 1_000_000,
        "the whole {received} bytes came: the stalled connection was kept"
    );
    assert!(received > 0, "the answers started");
}
