//! HTTPS from certificate files: the real binary serves TLS with a certificate made here,
//! swaps in a renewed one without a restart, keeps serving the old one when the new files
//! are bad, and refuses to start with files it cannot use.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::Server;

/// A fresh self-signed certificate for 127.0.0.1, written as `cert.pem` and `key.pem` in
/// `dir`; returns the certificate's PEM for a client to trust.
fn write_certificate(dir: &Path) -> String {
    let made =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned(), "localhost".to_owned()]).unwrap();
    let pem = made.cert.pem();
    // Renewal tools replace the files by renaming over them.
    for (name, contents) in [
        ("key.pem", made.signing_key.serialize_pem()),
        ("cert.pem", pem.clone()),
    ] {
        let temp = dir.join(format!("{name}.new"));
        std::fs::write(&temp, contents).unwrap();
        std::fs::rename(&temp, dir.join(name)).unwrap();
    }
    pem
}

/// A client that trusts only `pem`.
fn client_trusting(pem: &str) -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(pem.as_bytes()).unwrap()])
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

/// Whether a client trusting only `pem` gets a healthy `/health`.
async fn healthy_with(server: &Server, pem: &str) -> bool {
    match client_trusting(pem).get(server.url("/health")).send().await {
        Ok(response) => response.status() == reqwest::StatusCode::OK,
        Err(_) => false,
    }
}

fn start(tls: &Path) -> Server {
    Server::start_with(|command| {
        command
            .env("PILLBOX_TLS_CERT", tls.join("cert.pem"))
            .env("PILLBOX_TLS_KEY", tls.join("key.pem"))
            .env("PILLBOX_TEST_TLS_RELOAD_MS", "200");
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_https_and_picks_up_a_renewed_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let first = write_certificate(dir.path());
    let server = start(dir.path());
    assert!(server.base.starts_with("https://127.0.0.1:"), "{}", server.base);
    assert!(healthy_with(&server, &first).await, "{}", server.log());
    // Plain HTTP on the TLS port gets no answer.
    let plain = common::client()
        .get(server.url("/health").replace("https://", "http://"))
        .timeout(Duration::from_secs(5))
        .send()
        .await;
    assert!(plain.is_err() || plain.unwrap().status() != reqwest::StatusCode::OK);

    // A half-written renewal (a certificate file that is not PEM) is refused; the old pair
    // is still served.
    std::fs::write(dir.path().join("cert.pem"), "not a certificate").unwrap();
    wait_for_log(&server, "still serving the previous certificate").await;
    assert!(healthy_with(&server, &first).await);

    let second = write_certificate(dir.path());
    let deadline = Instant::now() + Duration::from_secs(10);
    while !healthy_with(&server, &second).await {
        assert!(
            Instant::now() < deadline,
            "the renewed certificate is not served\n{}",
            server.log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        !healthy_with(&server, &first).await,
        "the old certificate is still served"
    );
    wait_for_log(&server, "loaded the renewed TLS certificate").await;
}

async fn wait_for_log(server: &Server, text: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !server.log().contains(text) {
        assert!(Instant::now() < deadline, "no \"{text}\" in\n{}", server.log());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn serve_with(data_dir: &Path, cert: &Path, key: &Path) -> std::process::Output {
    common::pillbox(data_dir)
        .args(["serve", "--bind", "127.0.0.1:0"])
        .env("PILLBOX_TLS_CERT", cert)
        .env("PILLBOX_TLS_KEY", key)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn files_that_cannot_be_used_stop_the_start_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let missing: PathBuf = dir.path().join("missing.pem");
    let output = serve_with(&data, &missing, &missing);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot read tls_cert") && stderr.contains("missing.pem"),
        "{stderr}"
    );

    // A key that belongs to another certificate.
    write_certificate(dir.path());
    let other = tempfile::tempdir().unwrap();
    write_certificate(other.path());
    let output = serve_with(&data, &dir.path().join("cert.pem"), &other.path().join("key.pem"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("do not make a pair"), "{stderr}");

    // Only one of the two.
    let output = common::pillbox(&data)
        .args(["serve", "--bind", "127.0.0.1:0"])
        .env("PILLBOX_TLS_CERT", dir.path().join("cert.pem"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("tls_cert and tls_key go together"), "{stderr}");
}
