//! A mail server that accepts and then never finishes its greeting must not hold an e-mail
//! for longer than `smtp.timeout_seconds`: it trickles one byte at a time, so a per-read
//! timeout alone would never fire.

mod common;

use std::io::Write;
use std::net::TcpListener;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::pillbox;

/// Accepts connections and sends "2" every 300 ms, never a whole line.
fn trickling_smtp_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                loop {
                    if stream.write_all(b"2").is_err() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(300));
                }
            });
        }
    });
    port
}

#[test]
fn a_mail_server_that_never_answers_fails_the_email_within_the_timeout() {
    let port = trickling_smtp_server();
    let temp = tempfile::tempdir().unwrap();
    let with_smtp = |command: &mut std::process::Command| {
        command
            .env("PILLBOX_SMTP_HOST", "127.0.0.1")
            .env("PILLBOX_SMTP_PORT", port.to_string())
            .env("PILLBOX_SMTP_TLS", "none")
            .env("PILLBOX_SMTP_FROM", "Pillbox <pillbox@example.test>")
            .env("PILLBOX_SMTP_TIMEOUT_SECONDS", "2");
    };
    let mut create = pillbox(temp.path());
    with_smtp(&mut create);
    let mut child = create
        .args(["create-user", "--email", "slow@example.test", "--password-stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"secret123\n").unwrap();
    assert!(child.wait_with_output().unwrap().status.success());
    // The test goes the way a reminder goes, so the person has e-mail notifications on.
    let database = rusqlite::Connection::open(temp.path().join("pillbox.sqlite3")).unwrap();
    database
        .execute(
            "INSERT INTO notification_preferences (user_id, email_enabled)
             SELECT id, 1 FROM users WHERE email = 'slow@example.test'
             ON CONFLICT (user_id) DO UPDATE SET email_enabled = 1",
            [],
        )
        .unwrap();
    drop(database);

    let started = Instant::now();
    let mut send = pillbox(temp.path());
    with_smtp(&mut send);
    let mut child = send
        .args(["send-test", "--email", "slow@example.test", "--method", "email"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A send that hangs is the failure this test looks for: stop it rather than hang CI.
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("send-test was still waiting for the mail server after 20 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let took = started.elapsed();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!output.status.success(), "{text}");
    assert!(
        text.contains("did not finish within 2 s"),
        "the reason names the limit: {text}"
    );
    // Two seconds of trickle, then the failure; without the whole-operation limit the
    // trickle would hold the send for as long as the server likes.
    assert!(took < Duration::from_secs(10), "took {took:?}");
}
