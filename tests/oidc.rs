//! Signing in through an OpenID Connect provider (issue 27) against a real one:
//! `oidc-provider` from npm (tests/common/oidc.rs). The browser's part is played by hand:
//! redirects followed, the provider's own login and consent forms filled in.

mod common;

use std::process::Command;

use common::oidc::{Browser, Provider};
use common::{Server, call, get_json, post, register};
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
    setup_with(None, configure)
}

/// As `setup`; with `audience`, the provider's ID tokens name it instead of Pillbox.
fn setup_with(audience: Option<&str>, configure: impl FnOnce(&mut Command)) -> Setup {
    let port = common::free_port();
    let redirect = format!("http://127.0.0.1:{port}/api/auth/oidc/callback");
    let provider = match audience {
        Some(audience) => Provider::start_with_audience(&redirect, audience),
        None => Provider::start(&redirect),
    };
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
    sign_in_with(setup, login, &format!("return_to={return_to}")).await
}

/// Signs in as `login` from the start route with `query`; the app's address it ends at.
async fn sign_in_with(setup: &Setup, login: &str, query: &str) -> String {
    let start = setup.server.url(&format!("/api/auth/oidc/start?{query}"));
    Browser::default()
        .sign_in(&start, &setup.provider.issuer, login)
        .await
        .unwrap_or_else(|(status, page)| panic!("{status}: {page}"))
}

fn database(setup: &Setup) -> rusqlite::Connection {
    rusqlite::Connection::open(setup.server.data_dir.join("pillbox.sqlite3")).unwrap()
}

fn count(setup: &Setup, sql: &str) -> i64 {
    database(setup).query_row(sql, [], |r| r.get(0)).unwrap()
}

/// Opens the linking page of a return that asks to link: what it shows, and its secret.
async fn open_link(setup: &Setup, back: &str) -> Value {
    assert!(back.starts_with(&setup.server.url("/login/link?")), "{back}");
    let code = query(back, "oidc_link").expect("a link code");
    let (status, offer) = post(
        &setup.server,
        "/api/auth/oidc/link/open",
        None,
        json!({ "code": code }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{offer}");
    // The link code works once.
    let (status, again) = post(
        &setup.server,
        "/api/auth/oidc/link/open",
        None,
        json!({ "code": code }),
    )
    .await;
    assert_eq!(
        (status, again["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("oidc_code_invalid"))
    );
    offer["data"].clone()
}

async fn link(setup: &Setup, link: &str, password: &str, code: Option<&str>) -> (StatusCode, Value) {
    post(
        &setup.server,
        "/api/auth/oidc/link",
        None,
        json!({ "link": link, "password": password, "code": code }),
    )
    .await
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
        json!({ "password": true, "oidc": { "label": "Authelia" }, "proxy": false, "passkeys": false })
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
        json!({ "password": true, "oidc": null, "proxy": false, "passkeys": false })
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

#[tokio::test]
async fn a_verified_address_of_an_existing_account_links_once_its_password_is_given() {
    // Accounts are not made from the provider here: linking does not need it.
    let setup = setup(|_| {});
    let token = register(&setup.server, "kim@example.test").await;
    let (_, me) = get_json(&setup.server, "/api/auth/me", Some(&token)).await;

    let back = sign_in(&setup, "kim", "/today").await;
    assert_eq!(query(&back, "return_to").as_deref(), Some("/today"));
    assert!(!back.contains("token"), "no session token in a URL: {back}");
    let offer = open_link(&setup, &back).await;
    assert_eq!(offer["provider"], "Authelia");
    assert_eq!(offer["identity_email"], "kim@example.test");
    assert_eq!(offer["account_email"], "kim@example.test");
    let secret = offer["link"].as_str().unwrap();
    assert_eq!(count(&setup, "SELECT count(*) FROM oidc_identities"), 0);

    // A wrong password links nothing, and the link waits for the right one.
    let (status, body) = link(&setup, secret, "not-the-password", None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("invalid_credentials"))
    );
    assert_eq!(count(&setup, "SELECT count(*) FROM oidc_identities"), 0);

    let (status, session) = link(&setup, secret, "secret123", None).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    assert_eq!(session["data"]["user"]["id"], me["data"]["id"]);
    let linked = session["data"]["token"].as_str().unwrap();
    assert_eq!(
        get_json(&setup.server, "/api/auth/me", Some(linked)).await.0,
        StatusCode::OK
    );
    assert_eq!(count(&setup, "SELECT count(*) FROM users"), 1);
    // The secret links once.
    let (status, body) = link(&setup, secret, "secret123", None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("oidc_code_invalid"))
    );

    // From now on the provider signs in to the account directly.
    let back = sign_in(&setup, "kim", "/").await;
    let (status, session) =
        exchange(&setup.server, &query(&back, "oidc_code").expect("a sign-in code")).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    assert_eq!(session["data"]["user"]["id"], me["data"]["id"]);
    assert!(setup.server.logged("linked to an existing account").await);
}

#[tokio::test]
async fn linking_asks_for_the_second_factor_and_wrong_passwords_use_up_the_sign_in_budget() {
    let setup = setup(|c| {
        c.env("PILLBOX_OIDC_AUTO_REGISTER", "true");
    });
    let token = register(&setup.server, "kim@example.test").await;
    let (status, body) = post(
        &setup.server,
        "/api/auth/2fa/setup-totp",
        Some(&token),
        json!({ "password": "secret123" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let secret = body["data"]["secret"].as_str().unwrap().to_owned();
    let (status, body) = post(
        &setup.server,
        "/api/auth/2fa/complete-totp-setup",
        Some(&token),
        json!({ "otp": common::totp_code(&secret, common::now_unix()) }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let backup = body["data"]["backupCodes"][0].as_str().unwrap().to_owned();

    // With auto_register on, the address of an existing account still only links.
    let back = sign_in(&setup, "kim", "/").await;
    let offer = open_link(&setup, &back).await;
    let link_secret = offer["link"].as_str().unwrap();
    let (status, body) = link(&setup, link_secret, "secret123", None).await;
    assert_eq!(
        (status, body["code"].as_str(), &body["availableMethods"]),
        (
            StatusCode::UNAUTHORIZED,
            Some("two_factor_required"),
            &json!(["totp"])
        )
    );
    let (status, body) = link(&setup, link_secret, "secret123", Some("000000")).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("invalid_code"))
    );
    assert_eq!(count(&setup, "SELECT count(*) FROM oidc_identities"), 0);
    let (status, session) = link(&setup, link_secret, "secret123", Some(&backup)).await;
    assert_eq!(status, StatusCode::OK, "{session}");
    assert_eq!(count(&setup, "SELECT count(*) FROM oidc_identities"), 1);
    assert_eq!(count(&setup, "SELECT count(*) FROM users"), 1);

    // Wrong passwords on the linking page count as wrong sign-ins of the account.
    let setup2 = self::setup(|_| {});
    register(&setup2.server, "ola@example.test").await;
    let offer = open_link(&setup2, &sign_in(&setup2, "ola", "/").await).await;
    let link_secret = offer["link"].as_str().unwrap();
    for guess in 1..=5 {
        let (status, _) = link(&setup2, link_secret, &format!("guess-{guess}"), None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    let (status, body) = post(
        &setup2.server,
        "/api/auth/login",
        None,
        json!({ "email": "ola@example.test", "password": "secret123" }),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::TOO_MANY_REQUESTS, Some("rate_limited")),
        "{body}"
    );
    assert_eq!(count(&setup2, "SELECT count(*) FROM oidc_identities"), 0);
}

#[tokio::test]
async fn an_address_the_provider_did_not_verify_neither_links_nor_makes_an_account() {
    for auto_register in ["false", "true"] {
        let setup = setup(|c| {
            c.env("PILLBOX_OIDC_AUTO_REGISTER", auto_register);
        });
        register(&setup.server, "unverified-uma@example.test").await;
        let back = sign_in(&setup, "unverified-uma", "/").await;
        assert_eq!(
            back,
            setup.server.url("/login?oidc_error=oidc_email_unverified"),
            "auto_register {auto_register}"
        );
        // Nor a new account from an unverified address.
        let back = sign_in(&setup, "unverified-ulf", "/").await;
        assert_eq!(back, setup.server.url("/login?oidc_error=oidc_email_unverified"));
        assert_eq!(count(&setup, "SELECT count(*) FROM oidc_identities"), 0);
        assert_eq!(count(&setup, "SELECT count(*) FROM users"), 1);
        assert!(setup.server.logged("did not verify the e-mail address").await);
    }
}

#[tokio::test]
async fn an_account_made_by_the_provider_speaks_the_language_the_app_spoke() {
    let setup = setup(|c| {
        c.env("PILLBOX_OIDC_AUTO_REGISTER", "true");
    });
    for (login, lang, expected) in [("lena", "de", "de"), ("sam", "xx", "en"), ("ines", "es", "es")] {
        let back = sign_in_with(&setup, login, &format!("return_to=%2Ftoday&lang={lang}")).await;
        let (status, session) = exchange(&setup.server, &query(&back, "oidc_code").unwrap()).await;
        assert_eq!(status, StatusCode::OK, "{session}");
        let token = session["data"]["token"].as_str().unwrap();
        let (_, settings) = get_json(&setup.server, "/api/settings", Some(token)).await;
        assert_eq!(settings["data"]["language"], expected, "{login} with lang={lang}");
    }
}

#[tokio::test]
async fn settings_list_the_linked_identity_and_unlink_it_while_another_way_to_sign_in_remains() {
    let setup = setup(|c| {
        c.env("PILLBOX_OIDC_AUTO_REGISTER", "true");
    });
    // An account with a password of its own, linked.
    let token = register(&setup.server, "kim@example.test").await;
    let offer = open_link(&setup, &sign_in(&setup, "kim", "/").await).await;
    assert_eq!(
        link(&setup, offer["link"].as_str().unwrap(), "secret123", None)
            .await
            .0,
        StatusCode::OK
    );
    let (status, list) = get_json(&setup.server, "/api/auth/oidc/identities", Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let identities = list["data"].as_array().unwrap();
    assert_eq!(identities.len(), 1, "{list}");
    assert_eq!(identities[0]["issuer"], setup.provider.issuer.as_str());
    assert_eq!(identities[0]["label"], "Authelia");
    assert_eq!(identities[0]["email"], "kim@example.test");
    assert!(identities[0]["linked_at"].is_string());
    assert!(identities[0]["last_used_at"].is_string());
    let kims = identities[0]["id"].as_i64().unwrap();

    // An account the provider made has no password of its own: its identity stays.
    let back = sign_in(&setup, "ola", "/").await;
    let (_, session) = exchange(&setup.server, &query(&back, "oidc_code").unwrap()).await;
    let ola = session["data"]["token"].as_str().unwrap().to_owned();
    let (_, list) = get_json(&setup.server, "/api/auth/oidc/identities", Some(&ola)).await;
    let olas = list["data"][0]["id"].as_i64().unwrap();
    let (status, body) = call(
        &setup.server,
        reqwest::Method::DELETE,
        &format!("/api/auth/oidc/identities/{olas}"),
        Some(&ola),
        None,
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("oidc_last_sign_in")),
        "{body}"
    );
    // Another account's identity is not found, and stays.
    let (status, body) = call(
        &setup.server,
        reqwest::Method::DELETE,
        &format!("/api/auth/oidc/identities/{kims}"),
        Some(&ola),
        None,
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("oidc_identity_not_found"))
    );
    assert_eq!(count(&setup, "SELECT count(*) FROM oidc_identities"), 2);

    // An API token reaches neither route.
    let (status, created) = post(
        &setup.server,
        "/api/tokens",
        Some(&token),
        json!({ "name": "script", "scope": "manage" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let api_token = created["data"]["token"].as_str().unwrap();
    let (status, body) = get_json(&setup.server, "/api/auth/oidc/identities", Some(api_token)).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("token_not_allowed"))
    );
    let (status, body) = call(
        &setup.server,
        reqwest::Method::DELETE,
        &format!("/api/auth/oidc/identities/{kims}"),
        Some(api_token),
        None,
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("token_not_allowed"))
    );

    // Kim has a password: the identity is unlinked, and the provider asks to link again.
    let (status, body) = call(
        &setup.server,
        reqwest::Method::DELETE,
        &format!("/api/auth/oidc/identities/{kims}"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, list) = get_json(&setup.server, "/api/auth/oidc/identities", Some(&token)).await;
    assert_eq!(list["data"], json!([]));
    let back = sign_in(&setup, "kim", "/").await;
    assert!(back.starts_with(&setup.server.url("/login/link?")), "{back}");
    // Once the operator gives Ola's account a password, its identity can go too.
    let data_dir = setup.server.data_dir.clone();
    let reset = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = common::pillbox(&data_dir)
            .args([
                "reset-password",
                "--email",
                "ola@example.test",
                "--password-stdin",
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"olas-own-password\n")
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert!(
        reset.status.success(),
        "{}",
        String::from_utf8_lossy(&reset.stderr)
    );
    let (status, session) = post(
        &setup.server,
        "/api/auth/login",
        None,
        json!({ "email": "ola@example.test", "password": "olas-own-password" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let ola = session["data"]["token"].as_str().unwrap();
    let (status, body) = call(
        &setup.server,
        reqwest::Method::DELETE,
        &format!("/api/auth/oidc/identities/{olas}"),
        Some(ola),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(count(&setup, "SELECT count(*) FROM oidc_identities"), 0);
}

#[tokio::test]
async fn a_code_the_provider_issued_to_another_application_is_refused() {
    let setup = setup(|c| {
        c.env("PILLBOX_OIDC_AUTO_REGISTER", "true");
    });
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let start = http
        .get(setup.server.url("/api/auth/oidc/start"))
        .send()
        .await
        .unwrap();
    let at_provider = start.headers()["location"].to_str().unwrap().to_owned();
    // The same sign-in (state, nonce, PKCE, return address), asked for by the provider's
    // other application: its code and ID token are that application's.
    let mut url = reqwest::Url::parse(&at_provider).unwrap();
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| {
            let v = if k == "client_id" {
                "another-app".into()
            } else {
                v.into_owned()
            };
            (k.into_owned(), v)
        })
        .collect();
    assert!(pairs.iter().any(|(k, v)| k == "client_id" && v == "another-app"));
    url.query_pairs_mut().clear().extend_pairs(pairs);
    let back = Browser::default()
        .sign_in(url.as_str(), &setup.provider.issuer, "kim")
        .await
        .unwrap_or_else(|(status, page)| panic!("{status}: {page}"));
    assert_eq!(back, setup.server.url("/login?oidc_error=oidc_failed"));
    assert!(
        setup.server.logged("the code exchange failed").await,
        "{}",
        setup.server.log()
    );
    assert_eq!(count(&setup, "SELECT count(*) FROM users"), 0);
}

#[tokio::test]
async fn an_id_token_for_another_audience_is_refused_and_nothing_is_created() {
    // The provider signs, with its own published key, an ID token for its other application.
    let setup = setup_with(Some("another-app"), |c| {
        c.env("PILLBOX_OIDC_AUTO_REGISTER", "true");
    });
    let back = sign_in(&setup, "kim", "/").await;
    assert_eq!(back, setup.server.url("/login?oidc_error=oidc_failed"));
    assert!(
        setup.server.logged("the ID token does not verify").await,
        "{}",
        setup.server.log()
    );
    assert!(
        setup
            .server
            .log()
            .contains("Invalid audiences: must contain `pillbox` (found audiences: `another-app`)"),
        "{}",
        setup.server.log()
    );
    assert_eq!(count(&setup, "SELECT count(*) FROM users"), 0);
    assert_eq!(count(&setup, "SELECT count(*) FROM oidc_identities"), 0);
}

#[tokio::test]
async fn an_expired_unsigned_or_other_issuers_id_token_is_refused_and_nothing_is_created() {
    for (how, reason) in [
        ("expired", "ID token expired"),
        ("unsigned", "Signature verification failed"),
        ("issuer", "Invalid issuer"),
    ] {
        let port = common::free_port();
        let redirect = format!("http://127.0.0.1:{port}/api/auth/oidc/callback");
        let provider = Provider::start_tampered(&redirect, how);
        let temp = tempfile::tempdir().unwrap();
        let server = pillbox(&provider, port, &temp, |c| {
            c.env("PILLBOX_OIDC_AUTO_REGISTER", "true");
        });
        let setup = Setup {
            provider,
            server,
            _temp: temp,
        };
        let back = sign_in(&setup, "kim", "/").await;
        assert_eq!(back, setup.server.url("/login?oidc_error=oidc_failed"), "{how}");
        assert!(
            setup.server.logged("the ID token does not verify").await,
            "{how}: {}",
            setup.server.log()
        );
        assert!(
            setup.server.log().contains(reason),
            "{how}: {}",
            setup.server.log()
        );
        assert_eq!(count(&setup, "SELECT count(*) FROM users"), 0, "{how}");
        assert_eq!(count(&setup, "SELECT count(*) FROM oidc_identities"), 0, "{how}");
    }
}

#[tokio::test]
async fn a_rotated_signing_key_is_fetched_again() {
    let mut setup = setup(|c| {
        c.env("PILLBOX_OIDC_AUTO_REGISTER", "true");
    });
    let back = sign_in(&setup, "kim", "/").await;
    let (status, first) = exchange(&setup.server, &query(&back, "oidc_code").unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{first}");

    // The provider now signs with a key Pillbox has not seen.
    setup.provider.rotate_key("key-2");
    let back = sign_in(&setup, "kim", "/").await;
    let code = query(&back, "oidc_code").unwrap_or_else(|| panic!("{back}\n{}", setup.server.log()));
    let (status, again) = exchange(&setup.server, &code).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["data"]["user"]["id"], first["data"]["user"]["id"]);
}
