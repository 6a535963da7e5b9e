//! `pillbox healthcheck` and `pillbox doctor` against a real server, a real SMTP server that
//! wants a login (aiosmtpd), and real files.

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use common::{Server, free_port, pillbox};

/// A config file for `pillbox` commands that describes `server` (its bind address).
fn config_for(server: &Server, dir: &Path, extra: &str) -> PathBuf {
    let address = server.base.split("://").nth(1).unwrap();
    let path = dir.join("config.toml");
    std::fs::write(&path, format!("bind = \"{address}\"\n{extra}")).unwrap();
    // It may hold the SMTP password: owner only, as the doctor advises.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path
}

fn command(data_dir: &Path, args: &[&str], config: &Path) -> Output {
    pillbox(data_dir)
        .args(args)
        .arg("--config")
        .arg(config)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn healthcheck_answers_for_the_configured_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start();
    let config = config_for(&server, dir.path(), "");
    let output = command(&server.data_dir, &["healthcheck"], &config);
    let line = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{line}");
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(
        line.starts_with(&format!(
            "healthy: {}/health answered 200 (status ok",
            server.base
        )),
        "{line}"
    );

    let (status, _) = server.terminate();
    assert!(status.success());
    let output = command(&dir.path().join("data"), &["healthcheck"], &config);
    let line = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{line}");
    assert!(line.starts_with("unreachable: http://127.0.0.1:"), "{line}");
    assert!(line.contains("refused"), "{line}");
}

#[test]
fn healthcheck_fails_naming_the_check_that_failed() {
    let dir = tempfile::tempdir().unwrap();
    // No disk has an exabyte free.
    let server = Server::start_with(|command| {
        command.env("PILLBOX_HEALTH_MIN_FREE_BYTES", "1000000000000000000");
    });
    let config = config_for(&server, dir.path(), "");
    let output = command(&server.data_dir, &["healthcheck"], &config);
    let line = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{line}");
    assert!(line.contains("answered 503: Unhealthy: disk (disk: "), "{line}");
}

#[test]
fn healthcheck_speaks_https_when_the_config_has_a_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let made = rcgen::generate_simple_self_signed(vec!["pillbox.example.test".to_owned()]).unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    let server = Server::start_with(|command| {
        command
            .env("PILLBOX_TLS_CERT", &cert)
            .env("PILLBOX_TLS_KEY", &key);
    });
    let tls = format!(
        "tls_cert = \"{}\"\ntls_key = \"{}\"\n",
        cert.display(),
        key.display()
    );
    let config = config_for(&server, dir.path(), &tls);
    let output = command(&server.data_dir, &["healthcheck"], &config);
    let line = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{line}");
    assert!(line.starts_with("healthy: https://127.0.0.1:"), "{line}");
}

/// aiosmtpd that accepts the login pillbox / right and no other (AUTH without TLS, as on
/// a LAN relay), and never stores a message.
struct LoginSmtp {
    port: u16,
    child: Child,
}

impl LoginSmtp {
    fn start() -> LoginSmtp {
        const SCRIPT: &str = r#"
import sys
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

class Refuse:
    async def handle_DATA(self, server, session, envelope):
        return "554 doctor must not send mail"

def check(server, session, envelope, mechanism, data):
    good = isinstance(data, LoginPassword) and data.login == b"pillbox" and data.password == b"right"
    return AuthResult(success=good)

controller = Controller(Refuse(), hostname="127.0.0.1", port=int(sys.argv[1]),
                        authenticator=check, auth_require_tls=False)
controller.start()
print("ready", flush=True)
sys.stdin.read()
controller.stop()
"#;
        let port = free_port();
        let mut child = Command::new("python3")
            .args(["-c", SCRIPT, &port.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 with aiosmtpd (pip install aiosmtpd)");
        let mut ready = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut ready)
            .unwrap();
        assert_eq!(ready.trim(), "ready", "aiosmtpd did not start");
        LoginSmtp { port, child }
    }

    fn config(&self, password: &str) -> String {
        format!(
            "[smtp]\nhost = \"127.0.0.1\"\nport = {}\ntls = \"none\"\nuser = \"pillbox\"\npassword = \"{password}\"\nfrom = \"Pillbox <pillbox@example.test>\"\ntimeout_seconds = 5\n",
            self.port
        )
    }
}

impl Drop for LoginSmtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The doctor's line for `check`.
fn line_of<'a>(report: &'a str, check: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some(check))
        .unwrap_or_else(|| panic!("no {check} line in\n{report}"))
}

#[test]
fn doctor_passes_a_well_set_up_instance_and_fails_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let smtp = LoginSmtp::start();
    let server = Server::start();
    let data = server.data_dir.clone();
    let public = "public_url = \"https://pillbox.example.test\"\n";
    let config = config_for(&server, dir.path(), &format!("{public}{}", smtp.config("right")));
    let backup = common::run(&data, &["backup"]);
    assert!(backup.status.success());

    let output = command(&data, &["doctor"], &config);
    let report = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{report}");
    let expect_ok = |check: &str, text: &str| {
        let line = line_of(&report, check);
        assert!(line.starts_with("ok ") && line.contains(text), "{line}");
    };
    expect_ok("config", "config.toml read");
    expect_ok("data", "writable");
    expect_ok("database", "up to date");
    expect_ok("server", "healthy");
    expect_ok("smtp", "logged in as pillbox");
    expect_ok("vapid", "vapid_private.key");
    expect_ok("public_url", "https://pillbox.example.test");
    expect_ok("backup", "newest pillbox-");
    assert!(
        line_of(&report, "clock").contains("synchronized") || line_of(&report, "clock").starts_with("warn")
    );

    // A wrong password, and a public address without HTTPS: both fail, each saying how to fix.
    let public = "public_url = \"http://pillbox.example.test\"\n";
    let config = config_for(&server, dir.path(), &format!("{public}{}", smtp.config("wrong")));
    let output = command(&data, &["doctor"], &config);
    let report = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{report}");
    let line = line_of(&report, "smtp");
    assert!(
        line.starts_with("FAIL") && line.contains("535") && line.contains("-> "),
        "{line}"
    );
    let line = line_of(&report, "public_url");
    assert!(line.starts_with("FAIL") && line.contains("HTTPS"), "{line}");
    assert_eq!(line_of(&report, "server").split_whitespace().next(), Some("ok"));

    // A config file with a password that every user can read.
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).unwrap();
    let report = stdout(&command(&data, &["doctor"], &config));
    let line = line_of(&report, "config");
    assert!(line.starts_with("warn") && line.contains("chmod 640"), "{line}");
}

#[test]
fn doctor_fails_an_smtp_server_that_is_not_there_and_a_missing_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "bind = \"127.0.0.1:{}\"\n[smtp]\nhost = \"127.0.0.1\"\nport = {port}\ntls = \"none\"\nfrom = \"p@example.test\"\ntimeout_seconds = 3\n",
            free_port()
        ),
    )
    .unwrap();
    let output = command(&dir.path().join("nowhere"), &["doctor"], &config);
    let report = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{report}");
    assert!(line_of(&report, "data").starts_with("FAIL"), "{report}");
    assert!(line_of(&report, "data").contains("does not exist"), "{report}");
    let line = line_of(&report, "smtp");
    assert!(line.starts_with("FAIL") && line.contains("refused"), "{line}");
    assert!(line_of(&report, "server").starts_with("warn"), "{report}");
    assert!(line_of(&report, "public_url").starts_with("warn"), "{report}");
}

#[test]
fn doctor_says_who_may_sign_people_in_by_a_proxy_header() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let report = |auth: &str| {
        std::fs::write(&config, format!("bind = \"127.0.0.1:{}\"\n{auth}", free_port())).unwrap();
        stdout(&command(&dir.path().join("data"), &["doctor"], &config))
    };
    let off = report("");
    assert!(
        line_of(&off, "proxy").starts_with("ok") && line_of(&off, "proxy").contains("off"),
        "{off}"
    );
    let on = report("[auth]\nproxy_header = \"Remote-User\"\ntrusted_proxies = [\"127.0.0.1\"]\n");
    let line = line_of(&on, "proxy");
    assert!(
        line.starts_with("ok") && line.contains("remote-user from 127.0.0.1/32") && line.contains("refused"),
        "{line}"
    );
    let everyone = report("[auth]\nproxy_header = \"Remote-User\"\ntrusted_proxies = [\"0.0.0.0/0\"]\n");
    let line = line_of(&everyone, "proxy");
    assert!(
        line.starts_with("FAIL") && line.contains("anyone can sign in as anyone"),
        "{line}"
    );
}

#[test]
fn doctor_names_a_config_file_it_cannot_use() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "[smtp]\nhots = \"x\"\n").unwrap();
    let output = command(dir.path(), &["doctor"], &config);
    let report = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{report}");
    let line = line_of(&report, "config");
    assert!(line.starts_with("FAIL") && line.contains("smtp.hots"), "{line}");
}

/// A certificate for pillbox.example.test valid until `until`, and its key, in `dir`.
fn certificate_until(dir: &Path, until: chrono::NaiveDate) -> (PathBuf, PathBuf) {
    use chrono::Datelike;
    let mut params = rcgen::CertificateParams::new(vec!["pillbox.example.test".to_owned()]).unwrap();
    params.not_before = rcgen::date_time_ymd(2020, 1, 1);
    params.not_after = rcgen::date_time_ymd(until.year(), until.month() as u8, until.day() as u8);
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = params.self_signed(&key).unwrap();
    let (cert_path, key_path) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert_path, cert.pem()).unwrap();
    std::fs::write(&key_path, key.serialize_pem()).unwrap();
    (cert_path, key_path)
}

#[test]
fn doctor_warns_of_a_certificate_about_to_expire_and_fails_an_expired_one() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let today = chrono::Utc::now().date_naive();
    for (until, level, text) in [
        (today + chrono::Days::new(120), "ok", "valid until"),
        (today + chrono::Days::new(5), "warn", "days from now"),
        (today - chrono::Days::new(2), "FAIL", "expired on"),
    ] {
        let (cert, key) = certificate_until(dir.path(), until);
        std::fs::write(
            &config,
            format!(
                "tls_cert = \"{}\"\ntls_key = \"{}\"\n",
                cert.display(),
                key.display()
            ),
        )
        .unwrap();
        let output = command(&dir.path().join("data"), &["doctor"], &config);
        let report = stdout(&output);
        let line = line_of(&report, "tls");
        assert!(
            line.starts_with(level) && line.contains(text) && line.contains(&until.to_string()),
            "{line}"
        );
        if level != "ok" {
            assert!(line.contains("-> renew it"), "{line}");
        }
    }
}

#[test]
fn doctor_says_when_the_clock_is_not_synchronized_and_the_unit_waits_for_time_sync() {
    let dir = tempfile::tempdir().unwrap();
    // systemd's own answer on a Pi whose NTP client has not reached a server yet.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let timedatectl = bin.join("timedatectl");
    std::fs::write(&timedatectl, "#!/bin/sh\necho no\n").unwrap();
    std::fs::set_permissions(&timedatectl, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let data = dir.path().join("data");
    assert!(common::run(&data, &["migrate"]).status.success());
    let output = pillbox(&data)
        .arg("doctor")
        .env("PATH", path)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let report = stdout(&output);
    let line = line_of(&report, "clock");
    assert!(
        line.starts_with("warn")
            && line.contains("not synchronized")
            && line.contains("timedatectl set-ntp true"),
        "{line}"
    );

    let unit =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/packaging/pillbox.service")).unwrap();
    let has = |line: &str| unit.lines().any(|l| l.trim() == line);
    assert!(has("Wants=network-online.target time-sync.target"), "{unit}");
    assert!(has("After=network-online.target time-sync.target"), "{unit}");
}
