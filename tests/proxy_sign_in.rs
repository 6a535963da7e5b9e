//! Sign-in by an authenticating proxy, with Debian's `caddy` as the proxy: it checks the
//! person's password itself (`basicauth`) and names them to Pillbox in `Remote-User`. The
//! same header sent straight to Pillbox from an address that is not the proxy's is ignored.
//!
//! Caddy reaches Pillbox from 127.0.0.1, the only trusted proxy; the test's "straight" client
//! connects from 127.0.0.2, another loopback address, so the peer address differs for real.

mod common;

use std::net::IpAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use reqwest::StatusCode;
use serde_json::{Value, json};

const CADDY: &str = "caddy";

/// A caddy in front of one Pillbox, with basic-auth users, setting `Remote-User` to the name
/// the person signed in to caddy with.
struct Caddy {
    port: u16,
    child: Child,
    dir: tempfile::TempDir,
}

impl Caddy {
    fn start(upstream: &Server, users: &[(&str, &str)]) -> Caddy {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let accounts: String = users
            .iter()
            .map(|(name, password)| format!("\t\t{name} {}\n", hash_password(password)))
            .collect();
        let upstream = upstream.base.trim_start_matches("http://");
        // No admin endpoint, no certificates, no HTTP/3 (UDP): only this port (what caddy saves
        // goes to its temporary home).
        let caddyfile = format!(
            "{{\n\tadmin off\n\tauto_https off\n\tservers {{\n\t\tprotocols h1\n\t}}\n}}\n\
             http://127.0.0.1:{port} {{\n\tbasicauth {{\n{accounts}\t}}\n\
             \treverse_proxy {upstream} {{\n\t\theader_up Remote-User {{http.auth.user.id}}\n\t}}\n}}\n"
        );
        let config = dir.path().join("Caddyfile");
        std::fs::write(&config, caddyfile).unwrap();
        let log = std::fs::File::create(dir.path().join("caddy.log")).unwrap();
        let mut child = caddy_command(dir.path())
            .args(["run", "--adapter", "caddyfile", "--config"])
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("{}", caddy_missing(e)));
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = child.try_wait() {
                let log = std::fs::read_to_string(dir.path().join("caddy.log")).unwrap_or_default();
                panic!("caddy exited ({status}) before listening:\n{log}");
            }
            assert!(Instant::now() < deadline, "caddy did not listen on {port}");
            std::thread::sleep(Duration::from_millis(50));
        }
        Caddy { port, child, dir }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("caddy.log")).unwrap_or_default()
    }
}

impl Drop for Caddy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// caddy with its home and data in `dir`: it writes nothing of the developer's.
fn caddy_command(dir: &Path) -> Command {
    let mut command = Command::new(CADDY);
    command
        .env("HOME", dir)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_CONFIG_HOME", dir.join("config"));
    command
}

fn caddy_missing(e: std::io::Error) -> String {
    format!(
        "cannot run `{CADDY}` ({e}): this test needs Debian's caddy as the authenticating proxy; \
         install it with `apt-get install -y caddy` (tests/run-all.sh does)"
    )
}

/// The bcrypt hash caddy's `basicauth` wants, made by caddy itself.
fn hash_password(password: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let output = caddy_command(dir.path())
        .args(["hash-password", "--plaintext", password])
        .output()
        .unwrap_or_else(|e| panic!("{}", caddy_missing(e)));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// A Pillbox that believes `Remote-User` from 127.0.0.1 only.
fn behind_proxy(auto_register: bool) -> Server {
    Server::start_with(|c| {
        c.env("PILLBOX_AUTH_PROXY_HEADER", "Remote-User")
            .env("PILLBOX_AUTH_TRUSTED_PROXIES", "127.0.0.1")
            .env("PILLBOX_AUTH_PROXY_AUTO_REGISTER", auto_register.to_string());
    })
}

/// `(status, body)` of a request through caddy, signed in to caddy as `user`.
async fn through(
    caddy: &Caddy,
    method: reqwest::Method,
    path: &str,
    user: (&str, &str),
    headers: &[(&str, &str)],
) -> (StatusCode, String) {
    let mut request = client()
        .request(method, caddy.url(path))
        .basic_auth(user.0, Some(user.1));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    (response.status(), response.text().await.unwrap())
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

/// A client whose connections come from 127.0.0.2: not the proxy.
fn from_elsewhere() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .local_address(IpAddr::from([127, 0, 0, 2]))
        .build()
        .unwrap()
}

fn count_users(server: &Server, email: &str) -> i64 {
    let conn = rusqlite::Connection::open_with_flags(
        server.data_dir.join("pillbox.sqlite3"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    conn.query_row("SELECT count(*) FROM users WHERE email = ?1", [email], |row| {
        row.get(0)
    })
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_proxy_signs_the_account_in_and_its_header_from_elsewhere_is_ignored() {
    let server = behind_proxy(false);
    verified_account(&server, "ann@example.com").await;
    let caddy = Caddy::start(
        &server,
        &[
            ("ann@example.com", "ann-at-caddy"),
            ("bob@example.com", "bob-at-caddy"),
        ],
    );
    let ann = ("ann@example.com", "ann-at-caddy");

    // Through the proxy with the right password: Ann's request, without any token.
    let (status, body) = through(&caddy, reqwest::Method::GET, "/api/auth/me", ann, &[]).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "{body}\ncaddy:\n{}\npillbox:\n{}",
        caddy.log(),
        server.log()
    );
    assert_eq!(json_of(&body)["data"]["email"], "ann@example.com");
    // The proxy's header replaces the one the browser sent.
    let (status, body) = through(
        &caddy,
        reqwest::Method::GET,
        "/api/auth/me",
        ann,
        &[("Remote-User", "bob@example.com")],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(json_of(&body)["data"]["email"], "ann@example.com");

    // A wrong password, or none: caddy refuses, Pillbox is never asked.
    let (status, body) = through(
        &caddy,
        reqwest::Method::GET,
        "/api/auth/me",
        ("ann@example.com", "wrong"),
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert!(!body.contains("\"data\""), "{body}");
    let anonymous = client().get(caddy.url("/api/auth/me")).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    assert!(
        anonymous.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Basic"),
        "caddy asks for its own password"
    );

    // The web app's start asks first whether a proxy signs people in here: through caddy yes,
    // straight to Pillbox (even from the proxy's own address) no.
    let (status, body) = through(&caddy, reqwest::Method::GET, "/api/auth/providers", ann, &[]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(json_of(&body)["data"]["proxy"], true, "{body}");
    let direct: Value = client()
        .get(server.url("/api/auth/providers"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(direct["data"]["proxy"], false, "{direct}");

    // Then whom the proxy signed in (and no token, which caddy's basic authentication would
    // refuse in place of its own Authorization header).
    let (status, body) = through(&caddy, reqwest::Method::POST, "/api/auth/proxy-session", ann, &[]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let started = json_of(&body);
    assert_eq!(started["data"]["email"], "ann@example.com");
    assert!(started["data"].get("token").is_none(), "{started}");
    // Every other signed-in route through the proxy is Ann's too.
    let (status, body) = through(&caddy, reqwest::Method::GET, "/api/medications", ann, &[]).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    // The same header straight to Pillbox from another address: ignored, even when it also
    // claims to come from the proxy in X-Forwarded-For.
    let elsewhere = from_elsewhere();
    for forwarded in [None, Some("127.0.0.1")] {
        let mut request = elsewhere
            .get(server.url("/api/auth/me"))
            .header("Remote-User", "ann@example.com");
        if let Some(forwarded) = forwarded {
            request = request.header("X-Forwarded-For", forwarded);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["code"], "authentication_required", "{body}");
    }
    let exchanged: Value = elsewhere
        .post(server.url("/api/auth/proxy-session"))
        .header("Remote-User", "ann@example.com")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(exchanged, json!({"success": true, "data": null}));
    let offered: Value = elsewhere
        .get(server.url("/api/auth/providers"))
        .header("Remote-User", "ann@example.com")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(offered["data"]["proxy"], false, "{offered}");
    // The log is read from the server's stderr by another thread: wait for the last of these
    // requests' own line (the third for this path), after which every warning they caused is
    // in it too.
    assert!(
        server.logged_times("path=/api/auth/providers", 3).await,
        "{}",
        server.log()
    );
    let log = server.log();
    let warnings = log
        .lines()
        .filter(|l| l.contains("not in auth.trusted_proxies") && l.contains("127.0.0.2"))
        .count();
    assert_eq!(
        warnings, 1,
        "logged once for the address, not per request:\n{log}"
    );

    // Bob passed caddy but has no account, and the administrator has not allowed the proxy
    // to make one: refused with a code the app explains, and nothing is created.
    let bob = ("bob@example.com", "bob-at-caddy");
    for (method, path) in [
        (reqwest::Method::GET, "/api/auth/me"),
        (reqwest::Method::POST, "/api/auth/proxy-session"),
    ] {
        let (status, body) = through(&caddy, method, path, bob, &[]).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {body}");
        assert_eq!(json_of(&body)["code"], "proxy_registration_not_allowed", "{body}");
    }
    assert_eq!(count_users(&server, "bob@example.com"), 0);
    assert!(
        server
            .log()
            .contains("proxy sign-in refused: no account has this address"),
        "the refusal is in the log with its reason:\n{}",
        server.log()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn with_auto_register_the_proxy_makes_the_account_it_names() {
    let server = behind_proxy(true);
    let caddy = Caddy::start(
        &server,
        &[("cleo@example.com", "cleo-at-caddy"), ("dan", "dan-at-caddy")],
    );
    assert_eq!(count_users(&server, "cleo@example.com"), 0);

    let cleo = ("cleo@example.com", "cleo-at-caddy");
    let (status, body) = through(&caddy, reqwest::Method::GET, "/api/auth/me", cleo, &[]).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "{body}\ncaddy:\n{}\npillbox:\n{}",
        caddy.log(),
        server.log()
    );
    let me = json_of(&body);
    assert_eq!(me["data"]["email"], "cleo@example.com");
    assert_eq!(me["data"]["emailVerified"], true);
    assert_eq!(count_users(&server, "cleo@example.com"), 1);
    // Her account is used from then on, not made again.
    let (status, body) = through(
        &caddy,
        reqwest::Method::POST,
        "/api/auth/proxy-session",
        cleo,
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(json_of(&body)["data"]["id"], me["data"]["id"]);
    assert_eq!(count_users(&server, "cleo@example.com"), 1);
    // The proxy's password is not Pillbox's: the account has none anyone knows yet.
    let (status, body) = post(
        &server,
        "/api/auth/login",
        None,
        json!({"email": "cleo@example.com", "password": "cleo-at-caddy"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");

    // A name that is no e-mail address cannot become an account.
    let (status, body) = through(
        &caddy,
        reqwest::Method::GET,
        "/api/auth/me",
        ("dan", "dan-at-caddy"),
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(json_of(&body)["code"], "proxy_email_missing", "{body}");
    assert_eq!(count_users(&server, "dan"), 0);
}

#[test]
fn serve_stops_at_a_proxy_setting_that_cannot_work_and_names_it() {
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[
                ("PILLBOX_AUTH_PROXY_HEADER", "Remote-User"),
                ("PILLBOX_AUTH_TRUSTED_PROXIES", "10.0.0.0/33"),
            ],
            "auth.trusted_proxies",
        ),
        (
            &[("PILLBOX_AUTH_PROXY_HEADER", "Remote-User")],
            "auth.trusted_proxies",
        ),
        (
            &[("PILLBOX_AUTH_TRUSTED_PROXIES", "127.0.0.1")],
            "auth.proxy_header",
        ),
        (
            &[
                ("PILLBOX_AUTH_PROXY_HEADER", "Remote User"),
                ("PILLBOX_AUTH_TRUSTED_PROXIES", "127.0.0.1"),
            ],
            "auth.proxy_header",
        ),
    ];
    for (env, key) in cases {
        let temp = tempfile::tempdir().unwrap();
        let log = match Server::start_in(&temp.path().join("data"), |c| {
            for (name, value) in *env {
                c.env(name, value);
            }
        }) {
            Ok(_) => panic!("{env:?}: the server started"),
            Err(log) => log,
        };
        assert!(log.contains(key), "{env:?} should name {key}:\n{log}");
    }
}
