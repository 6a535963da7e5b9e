//! The server over HTTP: instance routes, the JSON envelope, security headers, the embedded
//! web app (caching, compression, SPA fallback), secrets and shutdown.

mod common;

use std::io::Read;
use std::os::unix::fs::PermissionsExt;

use common::{Server, client};
use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap};
use serde_json::Value;

async fn get(server: &Server, path: &str) -> reqwest::Response {
    client().get(server.url(path)).send().await.unwrap()
}

async fn json(response: reqwest::Response) -> Value {
    let content_type = response.headers()[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        content_type.starts_with("application/json"),
        "content type {content_type}"
    );
    response.json().await.unwrap()
}

fn assert_security_headers(headers: &HeaderMap) {
    let csp = headers[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
    assert!(csp.contains("default-src 'self'"), "{csp}");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    assert_eq!(headers[header::REFERRER_POLICY], "no-referrer");
    assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    assert_eq!(headers[header::X_FRAME_OPTIONS], "DENY");
}

/// The first hashed script the built index.html loads, e.g. `/assets/vendor-AbC123.js`.
fn script_path(index_html: &str) -> String {
    let start = index_html
        .find("src=\"/assets/")
        .expect("index.html loads a hashed script")
        + 5;
    let end = index_html[start..].find('"').unwrap() + start;
    index_html[start..end].to_owned()
}

/// The app's code: the largest script index.html loads (the libraries and the start-up code
/// are separate files).
async fn app_code_path(server: &Server, index_html: &str) -> String {
    let mut largest = (0, script_path(index_html));
    for piece in index_html.split("\"/assets/").skip(1) {
        let Some(name) = piece.split('"').next().filter(|name| name.ends_with(".js")) else {
            continue;
        };
        let path = format!("/assets/{name}");
        let size = get(server, &path).await.bytes().await.unwrap().len();
        if size > largest.0 {
            largest = (size, path);
        }
    }
    largest.1
}

#[tokio::test]
async fn health_version_and_migration_status() {
    let server = Server::start();
    let health = get(&server, "/health").await;
    assert_eq!(health.status(), StatusCode::OK);
    let body = json(health).await;
    assert_eq!(body["success"], true);
    assert_eq!(body["data"]["database"], "ok");

    let version = json(get(&server, "/api/version").await).await;
    assert_eq!(version["success"], true);
    let label = version["data"]["version"].as_str().unwrap();
    assert!(label.starts_with(env!("CARGO_PKG_VERSION")), "{label}");

    let status = json(get(&server, "/migrations/status").await).await;
    let data = &status["data"];
    assert_eq!(data["current"], data["latest"]);
    assert!(data["latest"].as_u64().unwrap() >= 1);
    assert_eq!(data["pending"], serde_json::json!([]));
    assert_eq!(data["applied"][0], "0001_users");
}

#[tokio::test]
async fn unknown_api_paths_answer_json_errors() {
    let server = Server::start();
    for path in ["/api/nope", "/api/medications/not-a-thing/x", "/api/"] {
        let response = get(&server, path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        assert_eq!(response.headers()[header::CACHE_CONTROL], "no-store");
        assert_security_headers(response.headers());
        let body = json(response).await;
        assert_eq!(
            body,
            serde_json::json!({ "success": false, "message": "Not found", "code": "not_found" }),
            "{path}"
        );
    }
    let response = client().delete(server.url("/api/version")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    let body = json(response).await;
    assert_eq!(
        (body["success"].as_bool(), body["code"].as_str()),
        (Some(false), Some("method_not_allowed"))
    );
}

#[tokio::test]
async fn navigations_fall_back_to_the_app_but_missing_files_are_404() {
    let server = Server::start();
    let root = get(&server, "/").await;
    assert_eq!(root.status(), StatusCode::OK);
    assert_security_headers(root.headers());
    assert_eq!(root.headers()[header::CACHE_CONTROL], "no-cache");
    assert!(
        root.headers()[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let index = root.text().await.unwrap();
    assert!(index.contains("<div id=\"root\">"), "{index}");

    for route in [
        "/medications",
        "/today",
        "/notifications/take/abc",
        "/verify-email/xyz",
        "/settings",
    ] {
        let response = get(&server, route).await;
        assert_eq!(response.status(), StatusCode::OK, "{route}");
        assert_eq!(response.text().await.unwrap(), index, "{route} serves index.html");
    }
    for missing in ["/assets/missing-abc123.js", "/favicon.ico", "/some/dir/file.css"] {
        let response = get(&server, missing).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{missing}");
        assert_security_headers(response.headers());
    }
    let post = client().post(server.url("/medications")).send().await.unwrap();
    assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_revalidated_files_answer_304() {
    let server = Server::start();
    let index = get(&server, "/").await.text().await.unwrap();
    let script = script_path(&index);
    let response = get(&server, &script).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()[header::CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );
    assert!(
        response.headers()[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .contains("javascript")
    );

    for (path, mime) in [
        ("/", "text/html"),
        ("/sw.js", "javascript"),
        ("/manifest.webmanifest", "manifest+json"),
        ("/pwa-192x192.png", "image/png"),
    ] {
        let first = get(&server, path).await;
        assert_eq!(first.status(), StatusCode::OK, "{path}");
        assert_eq!(first.headers()[header::CACHE_CONTROL], "no-cache", "{path}");
        assert!(
            first.headers()[header::CONTENT_TYPE]
                .to_str()
                .unwrap()
                .contains(mime),
            "{path}"
        );
        let etag = first.headers()[header::ETAG].to_str().unwrap().to_owned();
        let again = client()
            .get(server.url(path))
            .header(header::IF_NONE_MATCH, &etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(again.headers()[header::ETAG].to_str().unwrap(), etag);
        assert!(again.bytes().await.unwrap().is_empty());
        let stale = client()
            .get(server.url(path))
            .header(header::IF_NONE_MATCH, "W/\"0000\"")
            .send()
            .await
            .unwrap();
        assert_eq!(stale.status(), StatusCode::OK, "{path}");
    }
}

/// index.html's inline script (a signed-in start's preload of its first screen) runs: the
/// policy admits it by its hash, and admits no other inline script.
#[tokio::test]
async fn the_policy_admits_index_htmls_one_inline_script_by_its_hash() {
    use base64::Engine as _;
    use sha2::Digest as _;

    let server = Server::start();
    let response = get(&server, "/today").await;
    let csp = response.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .to_owned();
    let html = response.text().await.unwrap();
    let scripts: Vec<&str> = html
        .split("<script>")
        .skip(1)
        .map(|rest| rest.split("</script>").next().unwrap())
        .collect();
    assert_eq!(scripts.len(), 1, "{html}");
    assert!(scripts[0].contains("modulepreload"), "{}", scripts[0]);
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(scripts[0]));
    let script_src = csp
        .split(';')
        .find(|directive| directive.trim().starts_with("script-src"))
        .unwrap();
    assert_eq!(
        script_src.split_whitespace().collect::<Vec<_>>(),
        ["script-src", "'self'", &format!("'sha256-{hash}'")],
        "{csp}"
    );
}

async fn get_encoded(server: &Server, path: &str, accept_encoding: Option<&str>) -> reqwest::Response {
    let mut request = client().get(server.url(path));
    if let Some(accept) = accept_encoding {
        request = request.header(header::ACCEPT_ENCODING, accept);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn text_files_come_gzipped_at_build_time_and_decode_to_the_same_bytes() {
    let server = Server::start();
    let index = get(&server, "/").await.text().await.unwrap();
    let script = app_code_path(&server, &index).await;
    // The app's script, the API reference's script and a page that falls back to index.html.
    for path in [script.as_str(), "/api-docs/redoc.standalone.js", "/settings"] {
        let plain = get_encoded(&server, path, None).await;
        assert_eq!(plain.status(), StatusCode::OK, "{path}");
        assert!(plain.headers().get(header::CONTENT_ENCODING).is_none(), "{path}");
        assert_eq!(plain.headers()[header::VARY], "Accept-Encoding", "{path}");
        let plain_headers = plain.headers().clone();
        let plain = plain.bytes().await.unwrap();
        if path == "/settings" {
            assert_eq!(plain, index.as_bytes(), "{path} is index.html");
        }

        let gzip = get_encoded(&server, path, Some("gzip, deflate")).await;
        assert_eq!(gzip.headers()[header::CONTENT_ENCODING], "gzip", "{path}");
        let gzip_headers = gzip.headers().clone();
        let compressed = gzip.bytes().await.unwrap();
        assert!(
            compressed.len() < plain.len() / 2 || path == "/settings",
            "{path}"
        );
        let mut inflated = Vec::new();
        flate2::read::GzDecoder::new(&compressed[..])
            .read_to_end(&mut inflated)
            .unwrap();
        assert_eq!(inflated, plain, "{path}");

        // A browser that offers Brotli too gets the same gzip copy: the binary carries one.
        let br = get_encoded(&server, path, Some("gzip, deflate, br, zstd")).await;
        assert_eq!(br.headers()[header::CONTENT_ENCODING], "gzip", "{path}");
        assert_eq!(br.headers()[header::ETAG], gzip_headers[header::ETAG], "{path}");
        assert_eq!(br.bytes().await.unwrap(), compressed, "{path}");

        // Same type, caching and Vary for each encoding; an ETag of its own, which answers 304
        // for that encoding only.
        for h in [&plain_headers, &gzip_headers] {
            assert_eq!(
                h[header::CONTENT_TYPE],
                plain_headers[header::CONTENT_TYPE],
                "{path}"
            );
            assert_eq!(
                h[header::CACHE_CONTROL],
                plain_headers[header::CACHE_CONTROL],
                "{path}"
            );
            assert_eq!(h[header::VARY], "Accept-Encoding", "{path}");
        }
        let plain_tag = plain_headers[header::ETAG].to_str().unwrap();
        let gzip_tag = gzip_headers[header::ETAG].to_str().unwrap();
        assert_ne!(plain_tag, gzip_tag, "{path}");
        let revalidate = |etag: &str, accept: &'static str| {
            client()
                .get(server.url(path))
                .header(header::IF_NONE_MATCH, etag.to_owned())
                .header(header::ACCEPT_ENCODING, accept)
        };
        let fresh = revalidate(gzip_tag, "gzip, br").send().await.unwrap();
        assert_eq!(fresh.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(fresh.headers()[header::ETAG].to_str().unwrap(), gzip_tag);
        assert_eq!(fresh.headers()[header::VARY], "Accept-Encoding");
        let other_encoding = revalidate(gzip_tag, "identity").send().await.unwrap();
        assert_eq!(other_encoding.status(), StatusCode::OK, "{path}");
        assert!(other_encoding.headers().get(header::CONTENT_ENCODING).is_none());
        assert_eq!(other_encoding.bytes().await.unwrap(), plain, "{path}");
    }

    // A client that refuses gzip gets the file as it is; PNGs are already compressed and
    // never vary.
    let refused = get_encoded(&server, &script, Some("gzip;q=0, br")).await;
    assert!(refused.headers().get(header::CONTENT_ENCODING).is_none());
    let png = get_encoded(&server, "/pwa-512x512.png", Some("gzip, br")).await;
    assert!(png.headers().get(header::CONTENT_ENCODING).is_none());
    assert!(png.headers().get(header::VARY).is_none());
}

#[tokio::test]
async fn manifest_describes_an_installable_app() {
    let server = Server::start();
    let manifest: Value = get(&server, "/manifest.webmanifest").await.json().await.unwrap();
    assert_eq!(manifest["display"], "standalone");
    assert_eq!(manifest["short_name"], "Pillbox");
    let icons = manifest["icons"].as_array().unwrap();
    for (size, purpose) in [("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")] {
        let icon = icons
            .iter()
            .find(|i| i["sizes"] == size && i["purpose"].as_str().unwrap_or("any").contains(purpose))
            .unwrap_or_else(|| panic!("no {size} {purpose} icon"));
        let src = icon["src"].as_str().unwrap();
        let path = if src.starts_with('/') {
            src.to_owned()
        } else {
            format!("/{src}")
        };
        let response = get(&server, &path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let png = response.bytes().await.unwrap();
        assert_eq!(&png[1..4], b"PNG", "{path}");
    }
}

#[tokio::test]
async fn secrets_and_database_are_private_and_survive_restarts() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let server = Server::start_in(&data_dir, |_| {}).unwrap();
    assert_eq!(get(&server, "/health").await.status(), StatusCode::OK);
    let mode = |name: &str| {
        std::fs::metadata(data_dir.join(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("jwt.key"), 0o600);
    assert_eq!(mode("vapid_private.key"), 0o600);
    assert_eq!(mode("pillbox.sqlite3"), 0o600);
    assert_eq!(
        std::fs::metadata(&data_dir).unwrap().permissions().mode() & 0o777,
        0o700
    );
    let jwt = std::fs::read(data_dir.join("jwt.key")).unwrap();
    let vapid = std::fs::read(data_dir.join("vapid_private.key")).unwrap();
    let (status, _) = server.terminate();
    assert!(status.success());

    let server = Server::start_in(&data_dir, |_| {}).unwrap();
    assert_eq!(get(&server, "/health").await.status(), StatusCode::OK);
    assert_eq!(std::fs::read(data_dir.join("jwt.key")).unwrap(), jwt);
    assert_eq!(std::fs::read(data_dir.join("vapid_private.key")).unwrap(), vapid);
    let status = json(get(&server, "/migrations/status").await).await;
    assert_eq!(status["data"]["pending"], serde_json::json!([]));
}

#[tokio::test]
async fn sigterm_stops_cleanly_and_the_log_never_holds_tokens() {
    let server = Server::start();
    get(&server, "/notifications/take/SECRET-TAKE-TOKEN?x=1").await;
    get(&server, "/api/auth/verify-email/SECRET-VERIFY-TOKEN").await;
    let (status, log) = server.terminate();
    assert!(status.success(), "exit status {status}\n{log}");
    assert!(log.contains("pillbox stopped"), "{log}");
    assert!(log.contains("/notifications/take/[token]"), "{log}");
    assert!(!log.contains("SECRET-"), "{log}");
}

#[tokio::test]
async fn serve_raises_the_open_files_limit_a_shell_gives_it() {
    use std::os::unix::process::CommandExt;
    let (_, hard) = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap();
    let server = Server::start_with(|command| {
        // As if started by hand from a shell with the usual soft limit of 1,024.
        // SAFETY: setrlimit is async-signal-safe and touches only the child.
        unsafe {
            command.pre_exec(move || rlimit::setrlimit(rlimit::Resource::NOFILE, 1024.min(hard), hard));
        }
    });
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", server.pid())).unwrap();
    let line = limits.lines().find(|l| l.starts_with("Max open files")).unwrap();
    let soft = line.split_whitespace().nth(3).unwrap();
    let expected = if hard == rlimit::INFINITY {
        "unlimited".to_owned()
    } else {
        hard.to_string()
    };
    assert_eq!(soft, expected, "{line}");
}
