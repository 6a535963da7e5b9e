//! Test harness: runs the real `pillbox` binary on an ephemeral port with a temporary data
//! directory, and talks HTTP to it.
#![allow(dead_code)]

pub mod authenticator;
pub mod channels;
pub mod oidc;
pub mod push;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_pillbox");

/// A `pillbox` command with a clean environment: no `PILLBOX_*` from the developer's shell.
pub fn pillbox(data_dir: &Path) -> Command {
    with_clean_env(Command::new(BIN), data_dir)
}

/// `pillbox` started through `sh` with umask 000 (and the same clean environment), so only
/// the program's own care makes its files private.
pub fn pillbox_wide_open(data_dir: &Path) -> Command {
    let mut command = Command::new("sh");
    command.arg("-c").arg("umask 000; exec \"$0\" \"$@\"").arg(BIN);
    with_clean_env(command, data_dir)
}

fn with_clean_env(mut command: Command, data_dir: &Path) -> Command {
    for (name, _) in std::env::vars() {
        if name.starts_with("PILLBOX_") || name == "NOTIFY_SOCKET" {
            command.env_remove(name);
        }
    }
    command
        .env("PILLBOX_DATA_DIR", data_dir)
        .env("PILLBOX_LOG_LEVEL", "info");
    command
}

/// A database as the first release left it in `data_dir`: schema version 1, one account.
pub fn first_release_database(data_dir: &Path) -> PathBuf {
    std::fs::create_dir_all(data_dir).unwrap();
    let database = data_dir.join("pillbox.sqlite3");
    let conn = rusqlite::Connection::open(&database).unwrap();
    conn.execute_batch(include_str!("../../migrations/0001_users.sql"))
        .unwrap();
    conn.execute(
        "INSERT INTO users (email, password_hash, created_at, updated_at) VALUES ('old@example.org', 'x', 't', 't')",
        [],
    )
    .unwrap();
    conn.pragma_update(None, "user_version", 1).unwrap();
    database
}

/// Runs a CLI command to completion.
pub fn run(data_dir: &Path, args: &[&str]) -> Output {
    pillbox(data_dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run pillbox")
}

pub struct Server {
    pub base: String,
    pub data_dir: PathBuf,
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
    /// The thread that reads the server's stderr into `log`.
    reader: std::thread::JoinHandle<()>,
    _temp: Option<tempfile::TempDir>,
}

impl Server {
    /// Starts a server in a fresh data directory.
    pub fn start() -> Server {
        Self::start_with(|_| {})
    }

    pub fn start_with(configure: impl FnOnce(&mut Command)) -> Server {
        let temp = tempfile::tempdir().unwrap();
        let data_dir = temp.path().join("data");
        let mut server = Self::start_in(&data_dir, configure).expect("server starts");
        server._temp = Some(temp);
        server
    }

    /// Starts a server on an existing data directory; `Err` holds the log when it exits
    /// before listening.
    pub fn start_in(data_dir: &Path, configure: impl FnOnce(&mut Command)) -> Result<Server, String> {
        let mut command = pillbox(data_dir);
        command.args(["serve", "--bind", "127.0.0.1:0"]);
        configure(&mut command);
        Self::start_command(data_dir, command)
    }

    /// Starts a server from a prepared command (`serve` on `data_dir`, on port 0).
    pub fn start_command(data_dir: &Path, mut command: Command) -> Result<Server, String> {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let log_writer = log.clone();
        // Keep draining stderr for the server's lifetime so it never blocks on a full pipe.
        let reader = std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                // "listening on http://ADDR" (or https:// with tls_cert).
                if let Some(url) = line.split("listening on ").nth(1)
                    && url.starts_with("http")
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send(url.split_whitespace().next().unwrap_or_default().to_owned());
                }
                log_writer.lock().unwrap().push(line);
            }
        });
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(base) => Ok(Server {
                base,
                data_dir: data_dir.to_path_buf(),
                child,
                log,
                reader,
                _temp: None,
            }),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                wait_drained(&reader);
                Err(log.lock().unwrap().join("\n"))
            }
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    /// How many lines of the log hold `text`.
    fn lines_with(&self, text: &str) -> usize {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains(text))
            .count()
    }

    /// Waits (up to 5 s) for a line with `text` in the log, read from the server's stderr by
    /// another thread; whether it came.
    pub async fn logged(&self, text: &str) -> bool {
        self.logged_times(text, 1).await
    }

    /// `logged` for a test without an async runtime: blocks its thread while it waits.
    pub fn logged_blocking(&self, text: &str) -> bool {
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.lines_with(text) == 0 {
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }

    /// Waits (up to 5 s) until `n` lines with `text` are in the log; whether they came.
    pub async fn logged_times(&self, text: &str, n: usize) -> bool {
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.lines_with(text) < n {
            if Instant::now() > deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        true
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGTERM and waits for the process to exit.
    pub fn terminate(mut self) -> (ExitStatus, String) {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                wait_drained(&self.reader);
                return (status, self.log());
            }
            assert!(Instant::now() < deadline, "server did not stop after SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Waits (up to 5 s) until the thread reading a server's stderr has reached its end, which
/// it does soon after the process exits: a fixed pause was not enough on a busy machine,
/// where the last lines ("pillbox stopped") could still be unread when the log was taken.
fn wait_drained(reader: &std::thread::JoinHandle<()>) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !reader.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // A failing test shows what its server said: a wait that timed out on a busy CI
        // machine is otherwise a bare "nothing came", with no sign of why.
        if std::thread::panicking() {
            wait_drained(&self.reader);
            let log = self.log.lock().map(|l| l.clone()).unwrap_or_default();
            let tail = &log[log.len().saturating_sub(LOG_TAIL)..];
            eprintln!(
                "--- the last {} lines of the server's log ({}):\n{}\n---",
                tail.len(),
                self.base,
                tail.join("\n")
            );
        }
    }
}

/// How much of a server's log a failing test prints.
const LOG_TAIL: usize = 60;

pub fn client() -> reqwest::Client {
    // reqwest is built without a TLS crypto provider (the server installs ring at start);
    // tests speak plain HTTP but the client still wants one.
    let _ = rustls::crypto::ring::default_provider().install_default();
    // Built without decompression features: compressed bodies arrive as sent.
    reqwest::Client::new()
}

/// `(status, JSON body)` of a request; `token` adds a bearer header.
pub async fn call(
    server: &Server,
    method: reqwest::Method,
    path: &str,
    token: Option<&str>,
    body: Option<serde_json::Value>,
) -> (reqwest::StatusCode, serde_json::Value) {
    let mut request = client().request(method, server.url(path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    let json = serde_json::from_str(&text)
        .unwrap_or_else(|_| panic!("{path} answered {status} with non-JSON: {text}"));
    (status, json)
}

pub async fn post(
    server: &Server,
    path: &str,
    token: Option<&str>,
    body: serde_json::Value,
) -> (reqwest::StatusCode, serde_json::Value) {
    call(server, reqwest::Method::POST, path, token, Some(body)).await
}

/// The server's end of `stream` as /proc/net/tcp lists it: its socket's inode (0 until the
/// server accepts it) and how many received bytes it has not read yet.
pub fn server_end(stream: &std::net::TcpStream) -> Option<(u64, u64)> {
    let hex = |address: std::net::SocketAddr| match address {
        std::net::SocketAddr::V4(v4) => {
            format!("{:08X}:{:04X}", u32::from_le_bytes(v4.ip().octets()), v4.port())
        }
        std::net::SocketAddr::V6(_) => unreachable!("the tests listen on 127.0.0.1"),
    };
    let (ours, theirs) = (hex(stream.local_addr().ok()?), hex(stream.peer_addr().ok()?));
    std::fs::read_to_string("/proc/net/tcp")
        .ok()?
        .lines()
        .skip(1)
        .find_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.get(1) != Some(&theirs.as_str()) || fields.get(2) != Some(&ours.as_str()) {
                return None;
            }
            let unread = fields.get(4)?.split_once(':')?.1;
            Some((
                fields.get(9)?.parse().ok()?,
                u64::from_str_radix(unread, 16).ok()?,
            ))
        })
}

/// Waits until the server has accepted `stream` and read every byte sent on it.
pub fn server_end_read(stream: &std::net::TcpStream) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match server_end(stream) {
            Some((inode, 0)) if inode != 0 => return,
            state => assert!(
                Instant::now() < deadline,
                "the server has not taken the connection or read it: {state:?}"
            ),
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Lets a server's clock be moved (`POST /api/test/clock`; debug builds only).
pub fn with_test_clock(command: &mut Command) {
    command.env("PILLBOX_TEST_CLOCK", "1");
}

/// A movable clock that starts at `start` (RFC 3339), for tests whose expectations depend
/// on the day or the hour (debug builds only).
pub fn with_clock_start(command: &mut Command, start: &str) {
    with_test_clock(command);
    command.env("PILLBOX_TEST_CLOCK_START", start);
}

/// Moves the clock of a server started `with_test_clock` `seconds` forward; it answers once
/// the reminders due by then have been handled, with how many there were and the new time.
async fn move_clock(server: &Server, seconds: i64) -> serde_json::Value {
    test_clock(server, serde_json::json!({ "advance_seconds": seconds })).await
}

async fn test_clock(server: &Server, body: serde_json::Value) -> serde_json::Value {
    let (status, body) = post(server, "/api/test/clock", None, body).await;
    assert_eq!(status, reqwest::StatusCode::OK, "{body}");
    body
}

/// Sets the server's clock `seconds` forward or back as NTP sets a system clock (no time
/// passes), then runs a dispatcher pass (`POST /api/test/clock`, debug builds only).
pub async fn jump_clock(server: &Server, seconds: i64) {
    test_clock(server, serde_json::json!({ "jump_seconds": seconds })).await;
}

/// Moves the clock (see `move_clock`) and returns how many reminders were handled.
pub async fn advance_clock(server: &Server, seconds: i64) -> u64 {
    move_clock(server, seconds).await["data"]["handled"]
        .as_u64()
        .unwrap()
}

/// Moves the clock (see `move_clock`) and returns the server's time afterwards.
pub async fn advance(server: &Server, seconds: i64) -> chrono::DateTime<chrono::Utc> {
    instant(&move_clock(server, seconds).await["data"]["now"])
}

/// Adds a medication for the signed-in account; the test stops unless it is created.
pub async fn medication(server: &Server, token: &str, body: serde_json::Value) -> i64 {
    let (status, created) = post(server, "/api/medications", Some(token), body).await;
    assert_eq!(status, reqwest::StatusCode::CREATED, "{created}");
    created["data"]["id"].as_i64().unwrap()
}

/// Registers an account (sign-ups must be open for all but the first) and returns its token.
pub async fn register(server: &Server, email: &str) -> String {
    let (status, body) = post(
        server,
        "/api/auth/register",
        None,
        serde_json::json!({ "email": email, "password": "secret123" }),
    )
    .await;
    assert_eq!(status, reqwest::StatusCode::CREATED, "{body}");
    body["data"]["token"].as_str().unwrap().to_owned()
}

/// A verified account made with `pillbox create-user` (servers with SMTP want new sign-ups
/// to confirm their address first), signed in; returns its token.
pub async fn verified_account(server: &Server, email: &str) -> String {
    let data = server.data_dir.clone();
    let address = email.to_owned();
    let created = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = pillbox(&data)
            .args(["create-user", "--email", &address, "--password-stdin"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"secret123\n").unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
    login(server, email).await
}

/// A one-off reminder for `medication`, due `seconds` from now with no lead.
pub async fn remind_in(server: &Server, token: &str, medication: i64, seconds: i64) -> i64 {
    let due = chrono::Utc::now() + chrono::Duration::seconds(seconds);
    let (status, body) = post(
        server,
        "/api/notifications",
        Some(token),
        serde_json::json!({ "medication_id": medication, "scheduled_time": due.to_rfc3339(), "reminder_minutes_before": 0 }),
    )
    .await;
    assert_eq!(status, reqwest::StatusCode::CREATED, "{body}");
    body["data"]["id"].as_i64().unwrap()
}

/// A device of the local push service `push`, subscribed to the signed-in account.
pub async fn register_device(server: &Server, token: &str, push: &push::PushService, name: &str) {
    let sub = push.subscribe(name);
    let (status, body) = post(
        server,
        "/api/notifications/push/register",
        Some(token),
        serde_json::json!({ "subscription": sub.json, "userAgent": "test browser" }),
    )
    .await;
    assert_eq!(status, reqwest::StatusCode::CREATED, "{body}");
}

/// The account's delivery history, newest first.
pub async fn deliveries(server: &Server, token: &str) -> Vec<serde_json::Value> {
    let (status, body) = get_json(server, "/api/notifications/history?limit=200", Some(token)).await;
    assert_eq!(status, reqwest::StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

/// Signs an account registered by `register` in again and returns its new token.
pub async fn login(server: &Server, email: &str) -> String {
    let (status, body) = post(
        server,
        "/api/auth/login",
        None,
        serde_json::json!({ "email": email, "password": "secret123" }),
    )
    .await;
    assert_eq!(status, reqwest::StatusCode::OK, "{body}");
    body["data"]["token"].as_str().unwrap().to_owned()
}

pub async fn get_json(
    server: &Server,
    path: &str,
    token: Option<&str>,
) -> (reqwest::StatusCode, serde_json::Value) {
    call(server, reqwest::Method::GET, path, token, None).await
}

/// Saves settings for the signed-in account; the test stops unless they are accepted.
pub async fn save_settings(server: &Server, token: &str, settings: serde_json::Value) {
    let (status, body) = call(
        server,
        reqwest::Method::PUT,
        "/api/settings",
        Some(token),
        Some(settings),
    )
    .await;
    assert_eq!(status, reqwest::StatusCode::OK, "{body}");
}

/// A real SMTP server (Python's aiosmtpd) that stores every message in a Maildir.
pub struct SmtpSink {
    pub port: u16,
    dir: tempfile::TempDir,
    child: Child,
}

#[derive(Debug, Clone)]
pub struct Mail {
    pub to: String,
    pub subject: String,
    /// The decoded text/plain part.
    pub text: String,
    pub raw: String,
}

impl SmtpSink {
    /// Starts on a port that was free a moment ago. Another test's server can take that port
    /// before aiosmtpd binds it; aiosmtpd then exits, and another port is tried (a bare TCP
    /// connect would have found the other server and passed, and its mail would never come).
    pub fn start() -> SmtpSink {
        for _ in 0..5 {
            if let Some(sink) = Self::try_start_on(free_port()) {
                return sink;
            }
        }
        panic!("aiosmtpd exited at start five times: is it installed? (pip install aiosmtpd)");
    }

    /// Starts on a given port (a test can bring SMTP "back" where a server expects it).
    pub fn start_on(port: u16) -> SmtpSink {
        Self::try_start_on(port).unwrap_or_else(|| {
            panic!("aiosmtpd exited at start: port {port} is taken, or it is not installed (pip install aiosmtpd)")
        })
    }

    /// `None` when aiosmtpd exits before it greets on `port` (the port was taken).
    fn try_start_on(port: u16) -> Option<SmtpSink> {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new("python3")
            .args([
                "-m",
                "aiosmtpd",
                "-n",
                "-l",
                &format!("127.0.0.1:{port}"),
                "-c",
                "aiosmtpd.handlers.Mailbox",
            ])
            .arg(dir.path().join("maildir"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 with aiosmtpd (tests/run-all.sh installs it: pip install aiosmtpd)");
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if child.try_wait().unwrap().is_some() {
                return None;
            }
            if greets_as_aiosmtpd(port) {
                return Some(SmtpSink { port, dir, child });
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("aiosmtpd did not greet on port {port} within 15 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Environment that points a Pillbox at this server.
    pub fn configure(&self, command: &mut Command) {
        command
            .env("PILLBOX_SMTP_HOST", "127.0.0.1")
            .env("PILLBOX_SMTP_PORT", self.port.to_string())
            .env("PILLBOX_SMTP_TLS", "none")
            .env("PILLBOX_SMTP_FROM", "Pillbox <pillbox@example.test>");
    }

    pub fn messages(&self) -> Vec<Mail> {
        let new = self.dir.path().join("maildir").join("new");
        let mut entries: Vec<_> = std::fs::read_dir(&new)
            .map(|d| d.flatten().collect())
            .unwrap_or_default();
        entries.sort_by_key(|e| e.metadata().and_then(|m| m.modified()).ok());
        entries
            .iter()
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .map(|raw| parse_mail(&raw))
            .collect()
    }

    /// Waits for the `n`-th message (counting from 1) sent to `to`.
    pub fn wait_for(&self, to: &str, n: usize) -> Mail {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let mails: Vec<Mail> = self
                .messages()
                .into_iter()
                .filter(|m| m.to.contains(to))
                .collect();
            if mails.len() >= n {
                return mails[n - 1].clone();
            }
            assert!(
                Instant::now() < deadline,
                "no message #{n} for {to}; have {}",
                mails.len()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn count_for(&self, to: &str) -> usize {
        self.messages().into_iter().filter(|m| m.to.contains(to)).count()
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether what answers on `port` is aiosmtpd: its greeting, "220 <host> Python SMTP <version>".
fn greets_as_aiosmtpd(port: u16) -> bool {
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut greeting = [0u8; 256];
    let n = std::io::Read::read(&mut stream, &mut greeting).unwrap_or(0);
    let greeting = String::from_utf8_lossy(&greeting[..n]);
    greeting.starts_with("220 ") && greeting.contains("Python SMTP")
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn header(raw: &str, name: &str) -> String {
    let prefix = format!("{}:", name.to_ascii_lowercase());
    raw.lines()
        .take_while(|l| !l.is_empty())
        .find(|l| l.to_ascii_lowercase().starts_with(&prefix))
        .map(|l| l[prefix.len()..].trim().to_owned())
        .unwrap_or_default()
}

/// Finds the text/plain part of a MIME message and decodes its transfer encoding.
fn parse_mail(raw: &str) -> Mail {
    let raw = raw.replace("\r\n", "\n");
    let start = raw.find("Content-Type: text/plain").expect("a text/plain part");
    let part = &raw[start..];
    let (headers, rest) = part.split_once("\n\n").unwrap();
    let body = rest.split("\n--").next().unwrap_or_default();
    let encoding = headers.to_ascii_lowercase();
    let text = if encoding.contains("content-transfer-encoding: quoted-printable") {
        decode_quoted_printable(body)
    } else if encoding.contains("content-transfer-encoding: base64") {
        use base64::Engine;
        let joined: String = body.split_whitespace().collect();
        String::from_utf8(base64::engine::general_purpose::STANDARD.decode(joined).unwrap()).unwrap()
    } else {
        body.to_owned()
    };
    Mail {
        to: header(&raw, "To"),
        subject: header(&raw, "Subject"),
        text,
        raw: raw.clone(),
    }
}

fn decode_quoted_printable(body: &str) -> String {
    let joined = body.replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'='
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&joined[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// RFC 6238 TOTP (SHA-1, 6 digits, 30 s), written here from the RFC so that tests do not
/// trust the server's own implementation.
pub fn totp_code(base32_secret: &str, unix_time: u64) -> String {
    use hmac::{Hmac, Mac};
    let key = base32_decode(base32_secret);
    let counter = unix_time / 30;
    let mut mac = Hmac::<sha1::Sha1>::new_from_slice(&key).unwrap();
    mac.update(&counter.to_be_bytes());
    let digest = mac.finalize().into_bytes();
    let offset = (digest[19] & 0x0f) as usize;
    let binary = u32::from_be_bytes([
        digest[offset] & 0x7f,
        digest[offset + 1],
        digest[offset + 2],
        digest[offset + 3],
    ]);
    format!("{:06}", binary % 1_000_000)
}

fn base32_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut bits: u64 = 0;
    let mut count = 0;
    let mut out = Vec::new();
    for c in text.trim_end_matches('=').bytes() {
        let value = ALPHABET
            .iter()
            .position(|&a| a == c.to_ascii_uppercase())
            .expect("base32") as u64;
        bits = (bits << 5) | value;
        count += 5;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    out
}

pub fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// An RFC 3339 instant in an API answer.
pub fn instant(value: &serde_json::Value) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339(value.as_str().unwrap())
        .unwrap()
        .to_utc()
}

/// A planned reminder (an API row) comes `lead_minutes` before its dose, or, for a dose
/// closer than that when it was planned (at or after `planned`), at once and never in the
/// past.
pub fn assert_lead(reminder: &serde_json::Value, lead_minutes: i64, planned: chrono::DateTime<chrono::Utc>) {
    let (due, at) = (
        instant(&reminder["scheduled_time"]),
        instant(&reminder["reminder_time"]),
    );
    if due - planned > chrono::Duration::minutes(lead_minutes) {
        assert_eq!(due - at, chrono::Duration::minutes(lead_minutes), "{reminder}");
    } else {
        assert!(at >= planned && at <= due, "{reminder}");
    }
}
