//! The command line: configuration errors at start-up, migrations, gen-vapid and help for
//! every subcommand.

mod common;

use std::os::unix::fs::PermissionsExt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use common::{Server, run};

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn every_subcommand_has_help() {
    let temp = tempfile::tempdir().unwrap();
    for command in [
        "serve",
        "migrate",
        "create-user",
        "export",
        "import",
        "backup",
        "restore",
        "gen-vapid",
        "send-test",
    ] {
        let output = run(temp.path(), &[command, "--help"]);
        assert!(output.status.success(), "{command} --help");
        let text = stdout(&output);
        assert!(text.contains("Usage: pillbox"), "{command}: {text}");
        if command != "gen-vapid" {
            assert!(
                text.contains("--data-dir") && text.contains("PILLBOX_DATA_DIR"),
                "{command}: {text}"
            );
        }
    }
    assert!(stdout(&run(temp.path(), &["serve", "--help"])).contains("PILLBOX_BIND"));
    let version = stdout(&run(temp.path(), &["--version"]));
    assert!(
        version.starts_with(&format!("pillbox {}", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
}

#[test]
fn unknown_config_key_stops_start_up_with_one_clear_line() {
    let temp = tempfile::tempdir().unwrap();
    let config = temp.path().join("pillbox.toml");
    std::fs::write(
        &config,
        "bind = \"127.0.0.1:0\"\n[smtp]\nhots = \"mail.example.com\"\n",
    )
    .unwrap();
    let data_dir = temp.path().join("data");
    let output = run(&data_dir, &["serve", "--config", config.to_str().unwrap()]);
    assert!(!output.status.success());
    let err = stderr(&output);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("unknown configuration key `smtp.hots`"), "{err}");
    assert!(err.contains("pillbox.toml"), "{err}");
    assert!(
        !data_dir.exists(),
        "nothing is created when the configuration is wrong"
    );
}

#[test]
fn bad_values_and_public_url_paths_are_refused() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let cases = [
        (
            "PILLBOX_PUBLIC_URL",
            "https://example.com/pillbox",
            "must not contain a path",
        ),
        ("PILLBOX_SIGNUPS", "maybe", "`signups`"),
        ("PILLBOX_SMTP_TLS", "ssl", "`smtp.tls`"),
    ];
    for (name, value, expected) in cases {
        let output = common::pillbox(&data_dir)
            .env(name, value)
            .args(["serve", "--bind", "127.0.0.1:0"])
            .output()
            .unwrap();
        assert!(!output.status.success(), "{name}={value}");
        let err = stderr(&output);
        assert!(err.contains(expected), "{name}={value}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let missing = run(&data_dir, &["serve", "--config", "/nonexistent/pillbox.toml"]);
    assert!(
        stderr(&missing).contains("does not exist"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn env_and_flags_configure_the_server() {
    let temp = tempfile::tempdir().unwrap();
    let config = temp.path().join("pillbox.toml");
    // The file says one data dir, the flag another: the flag wins.
    std::fs::write(
        &config,
        format!("data_dir = \"{}\"\n", temp.path().join("from-file").display()),
    )
    .unwrap();
    let flag_dir = temp.path().join("from-flag");
    let server = Server::start_in(&temp.path().join("from-env"), |command| {
        command.args([
            "--config",
            config.to_str().unwrap(),
            "--data-dir",
            flag_dir.to_str().unwrap(),
        ]);
    })
    .unwrap();
    assert!(flag_dir.join("pillbox.sqlite3").exists());
    assert!(!temp.path().join("from-file").exists());
    assert!(!temp.path().join("from-env").exists());
    drop(server);
}

#[test]
fn migrate_applies_once_and_reports_status() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let status = run(&data_dir, &["migrate", "--status"]);
    assert!(status.status.success());
    assert!(
        stdout(&status).contains("pending  0001_users"),
        "{}",
        stdout(&status)
    );
    assert!(!data_dir.exists(), "--status changes nothing");

    let first = run(&data_dir, &["migrate"]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(stderr(&first).contains("applied migration 0001_users"));
    let second = run(&data_dir, &["migrate"]);
    assert!(second.status.success());
    assert!(
        !stderr(&second).contains("applied migration"),
        "running twice is a no-op"
    );
    let status = stdout(&run(&data_dir, &["migrate", "--status"]));
    assert!(
        status.contains("applied  0001_users") && !status.contains("pending"),
        "{status}"
    );
}

#[test]
fn a_database_from_a_newer_pillbox_is_refused() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    assert!(run(&data_dir, &["migrate"]).status.success());
    let database = data_dir.join("pillbox.sqlite3");
    let conn = rusqlite::Connection::open(&database).unwrap();
    conn.pragma_update(None, "user_version", 999).unwrap();
    drop(conn);
    let before = std::fs::read(&database).unwrap();

    let err = Server::start_in(&data_dir, |_| {}).err().expect("serve refuses");
    assert!(err.contains("newer Pillbox"), "{err}");
    let output = run(&data_dir, &["migrate"]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("schema version 999"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        std::fs::read(&database).unwrap(),
        before,
        "the database is untouched"
    );
}

#[tokio::test]
async fn gen_vapid_prints_config_lines_and_writes_the_instance_key() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let output = run(&data_dir, &["gen-vapid"]);
    assert!(output.status.success());
    let text = stdout(&output);
    let table: toml::Table = text.parse().expect("gen-vapid prints valid TOML");
    let public = B64
        .decode(table["vapid"]["public_key"].as_str().unwrap())
        .unwrap();
    let private = B64
        .decode(table["vapid"]["private_key"].as_str().unwrap())
        .unwrap();
    assert_eq!((public.len(), public[0], private.len()), (65, 4, 32));
    assert!(!data_dir.exists(), "printing writes nothing");

    // Pasted into a config file, the printed pair is what the server serves.
    let config = temp.path().join("pillbox.toml");
    std::fs::write(&config, &text).unwrap();
    let server = Server::start_in(&data_dir, |c| {
        c.args(["--config", config.to_str().unwrap()]);
    })
    .unwrap();
    assert!(
        !data_dir.join("vapid_private.key").exists(),
        "configured keys are used instead of a file"
    );
    let served: serde_json::Value = common::client()
        .get(server.url("/api/notifications/push/public-key"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        served["data"]["publicKey"].as_str(),
        table["vapid"]["public_key"].as_str()
    );
    drop(server);

    let written = run(&data_dir, &["gen-vapid", "--write"]);
    assert!(written.status.success(), "{}", stderr(&written));
    let key_file = data_dir.join("vapid_private.key");
    assert_eq!(
        std::fs::metadata(&key_file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let key = std::fs::read(&key_file).unwrap();
    let again = run(&data_dir, &["gen-vapid", "--write"]);
    assert!(!again.status.success());
    assert!(stderr(&again).contains("--force"));
    assert_eq!(
        std::fs::read(&key_file).unwrap(),
        key,
        "an existing key is kept without --force"
    );
    assert!(
        run(&data_dir, &["gen-vapid", "--write", "--force"])
            .status
            .success()
    );
    assert_ne!(std::fs::read(&key_file).unwrap(), key);
}

#[test]
fn send_test_names_an_unknown_account() {
    let temp = tempfile::tempdir().unwrap();
    assert!(run(temp.path(), &["migrate"]).status.success());
    let output = run(temp.path(), &["send-test", "--email", "nobody@example.com"]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("no account with the e-mail address nobody@example.com"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn upgrading_an_existing_database_keeps_a_snapshot_first() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    // A database as the first release left it: schema version 1, with an account.
    let database = common::first_release_database(&data_dir);

    let output = run(&data_dir, &["migrate"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("saved a copy of the database before migrating"),
        "{}",
        stderr(&output)
    );
    let snapshots: Vec<_> = std::fs::read_dir(data_dir.join("backups"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(snapshots.len(), 1);
    let name = snapshots[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("pre-migration-v1-") && name.ends_with(".sqlite3"),
        "{name}"
    );
    let snapshot = rusqlite::Connection::open(&snapshots[0]).unwrap();
    let version: i64 = snapshot
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    let email: String = snapshot
        .query_row("SELECT email FROM users", [], |r| r.get(0))
        .unwrap();
    assert_eq!((version, email.as_str()), (1, "old@example.org"));
    let upgraded = rusqlite::Connection::open(&database).unwrap();
    let version: i64 = upgraded
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert!(version > 1);
    let kept: String = upgraded
        .query_row("SELECT email FROM users", [], |r| r.get(0))
        .unwrap();
    assert_eq!(kept, "old@example.org", "data survives the upgrade");
}
