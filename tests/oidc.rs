//! Signing in through an OpenID Connect provider (issue 27) against a real one:
//! `oidc-provider` from npm (tests/common/oidc.rs). The browser's part is played by hand:
//! redirects followed, the provider's own login and consent forms filled in.

mod common;

use std::process::Command;

use common::oidc::{Browser, Provider};
use common::{Server, get_json, post};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Pillbox on a fixed port (the provider knows its callback), signing in with `provider`.
fn pillbox(
    provider: &Provider,
    port: u16,
    temp: &tempfile::TempDir,
    configure: impl FnOnce(&mut Command),
) -> Server {
    let data_dir = temp.path().join("data");
    let mut command = common::pillbox(&data_dir);
    command.args(["serve", "--bind", &format!("127.0.0.1:{port}")]);
    command.env("PILLBOX_PUBLIC_URL", format!("http://127.0.0.1:{port}"));
    command.env("PILLBOX_OIDC_ISSUER", &provider.issuer);
    command.env("PILLBOX_OIDC_CLIENT_ID", "pillbox");
    command.env("PILLBOX_OIDC_CLIENT_SECRET", "pillbox-test-secret");
    command.env("PILLBOX_OIDC_SCOPES", "openid email profile groups");
    command.env("PILLBOX_OIDC_BUTTON_LABEL", "Authelia");
    configure(&mut command);
    Server::start_command(&data_dir, command).expect("server starts")
}

struct Setup {
    provider: Provider,
    server: Server,
    _temp: tempfile::TempDir,
}

fn setup(configure: impl FnOnce(&mut Command)) -> Setup {
    let port = common::free_port();
    let provider = Provider::start(&format!("http://127.0.0.1:{port}/api/auth/oidc/callback"));
    let temp = tempfile::tempdir().unwrap();
    let server = pillbox(&provider, port, &temp, configure);
    Setup {
        provider,
        server,
        _temp: temp,
    }
}

/// Signs in as `login` from the start route; the app's address it ends at.
async fn sign_in(setup: &Setup, login: &str, return_to: &str) -> String {
    let start = setup
        .server
        .url(&format!("/api/auth/oidc/start?return_to={return_to}"));
    Browser::default()
        .sign_in(&start, &setup.provider.issuer, login)
        .await
        .unwrap_or_else(|(status, page)| panic!("{status}: {page}"))
}

fn query(url: &str, name: &str) -> Option<String> {
    reqwest::Url::parse(url)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

async fn exchange(server: &Server, code: &str) -> (StatusCode, Value) {
    post(server, "/api/auth/oidc/exchange", None, json!({ "code": code })).await
}

#[tokio::test]
async fn a_new_identity_gets_an_account_when_allowed_and_signs_in_again_to_the_same_one() {
    let setup = setup(|c| {
        c.env("PILLBOX_OIDC_AUTO_REGISTER", "true");
    });
    let (status, providers) = get_json(&setup.server, "/api/auth/providers", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        providers["data"],
        json!({ "password": true, "oidc": { "label": "Authelia" }, "proxy": false })
    );

    let back = sign_in(&setup, "kim", "/today").await;
    assert!(back.starts_with(&setup.server.url("/login?")), "{back}");
    assert_eq!(query(&back, "return_to").as_deref(), Some("/today"));
    let code = query(&back, "oidc_code").expect("a one-time code");
    assert!(!back.contains("token"), "no session token in a URL: {back}");

    let (status, session) = exchange(&setup.server, &code).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    assert_eq!(session["data"]["user"]["email"], "kim@example.test");
    let token = session["data"]["token"].as_str().unwrap().to_owned();
    let (status, me) = get_json(&setup.server, "/api/auth/me", Some(&token)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me["data"]["email"], "kim@example.test");

    // The code works once.
    let (status, again) = exchange(&setup.server, &code).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(again["code"], "oidc_code_invalid");

    // The next sign-in finds the same account by the provider's `sub`.
    let back = sign_in(&setup, "kim", "/").await;
    let (_, session) = exchange(&setup.server, &query(&back, "oidc_code").unwrap()).await;
    assert_eq!(session["data"]["user"]["id"], me["data"]["id"]);
    let db = rusqlite::Connection::open(setup.server.data_dir.join("pillbox.sqlite3")).unwrap();
    let identities: i64 = db
        .query_row(
            "SELECT count(*) FROM oidc_identities WHERE subject = 'kim'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(identities, 1);
}

#[tokio::test]
async fn an_unknown_identity_is_refused_when_accounts_are_not_made_for_it_and_nothing_is_created() {
    let setup = setup(|_| {});
    let back = sign_in(&setup, "stranger", "/today").await;
    assert_eq!(back, setup.server.url("/login?oidc_error=oidc_not_allowed"));
    let db = rusqlite::Connection::open(setup.server.data_dir.join("pillbox.sqlite3")).unwrap();
    let users: i64 = db
        .query_row("SELECT count(*) FROM users", [], |r| r.get(0))
        .unwrap();
    assert_eq!(users, 0);
    assert!(
        setup.server.logged("oidc.auto_register is off").await,
        "{}",
        setup.server.log()
    );
}

#[tokio::test]
async fn only_the_allowed_groups_sign_in() {
    let setup = setup(|c| {
        c.env("PILLBOX_OIDC_AUTO_REGISTER", "true");
        c.env("PILLBOX_OIDC_ALLOWED_GROUPS", "family");
    });
    let back = sign_in(&setup, "outsider-ola", "/").await;
    assert_eq!(back, setup.server.url("/login?oidc_error=oidc_group_denied"));
    let back = sign_in(&setup, "kim", "/").await;
    assert!(query(&back, "oidc_code").is_some(), "{back}");
}

#[tokio::test]
async fn a_forged_or_replayed_return_is_refused() {
    let setup = setup(|c| {
        c.env("PILLBOX_OIDC_AUTO_REGISTER", "true");
    });
    // A return with a state this server never sent.
    let mut browser = Browser::default();
    let forged = setup
        .server
        .url("/api/auth/oidc/callback?code=abc&state=not-ours");
    let back = browser
        .sign_in(&forged, &setup.provider.issuer, "kim")
        .await
        .unwrap();
    assert_eq!(back, setup.server.url("/login?oidc_error=oidc_failed"));
    assert!(setup.server.logged("unknown, used or expired state").await);

    // The provider's own return, replayed: the state is used up.
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let start = http
        .get(setup.server.url("/api/auth/oidc/start"))
        .send()
        .await
        .unwrap();
    assert_eq!(start.status(), StatusCode::SEE_OTHER);
    let at_provider = start.headers()["location"].to_str().unwrap().to_owned();
    assert!(at_provider.starts_with(&setup.provider.issuer), "{at_provider}");
    assert_eq!(
        query(&at_provider, "code_challenge_method").as_deref(),
        Some("S256")
    );
    assert!(query(&at_provider, "nonce").is_some());
    let mut browser = Browser::default();
    let callback = browser
        .sign_in(&at_provider, &setup.provider.issuer, "kim")
        .await
        .err()
        .map(|(s, p)| format!("{s} {p}"));
    // The provider leads to the callback, which the browser follows into the app.
    assert!(callback.is_none(), "{callback:?}");
    let state = query(&at_provider, "state").unwrap();
    let replay = http
        .get(
            setup
                .server
                .url(&format!("/api/auth/oidc/callback?code=used&state={state}")),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(
        replay.headers()["location"].to_str().unwrap(),
        "/login?oidc_error=oidc_failed"
    );
}

#[tokio::test]
async fn without_a_provider_the_routes_say_so() {
    let server = Server::start();
    let (status, providers) = get_json(&server, "/api/auth/providers", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        providers["data"],
        json!({ "password": true, "oidc": null, "proxy": false })
    );
    let (status, body) = exchange(&server, "whatever").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["code"], "oidc_not_configured");
}

#[test]
fn a_provider_over_plain_http_elsewhere_than_this_machine_is_refused_at_start() {
    let temp = tempfile::tempdir().unwrap();
    let output = common::pillbox(&temp.path().join("data"))
        .args(["serve", "--bind", "127.0.0.1:0"])
        .env("PILLBOX_PUBLIC_URL", "https://pillbox.example.com")
        .env("PILLBOX_OIDC_ISSUER", "http://auth.example.com")
        .env("PILLBOX_OIDC_CLIENT_ID", "pillbox")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("oidc.issuer must be an https:// URL"), "{stderr}");
}
