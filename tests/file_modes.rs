//! Files with user data are owner-only (0600) whatever the umask: the database and the
//! -wal and -shm files SQLite makes beside it, the key files, the daily snapshot, each
//! person's kept exports, and the snapshot taken before a migration. Every command here
//! runs with umask 000, so only the program's own care keeps the files private.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::{Server, get_json, post, register};
use reqwest::StatusCode;
use serde_json::json;

/// `pillbox ARGS` started through `sh` with umask 000.
fn wide_open(data_dir: &Path, args: &[&str]) -> Command {
    let mut command = common::pillbox_wide_open(data_dir);
    command.args(args);
    command
}

fn run_wide_open(data_dir: &Path, args: &[&str]) -> Output {
    wide_open(data_dir, args).stdin(Stdio::null()).output().unwrap()
}

/// The file's permission bits in octal, as `ls` and `chmod` write them.
fn mode(path: &Path) -> String {
    let meta = std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    format!("{:o}", meta.permissions().mode() & 0o777)
}

fn files_starting(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .map(|e| e.path())
        .collect()
}

#[tokio::test]
async fn a_server_started_with_umask_000_keeps_every_file_private() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let server = Server::start_command(
        &data_dir,
        wide_open(&data_dir, &["serve", "--bind", "127.0.0.1:0"]),
    )
    .unwrap();
    let token = register(&server, "a@example.com").await;
    let (status, body) = post(
        &server,
        "/api/medications",
        Some(&token),
        json!({ "name": "Aspirin", "unit": "tablets", "frequency": "daily", "default_quantity": 1 }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let id = body["data"]["id"].as_i64().unwrap();
    let (status, body) = post(
        &server,
        &format!("/api/medications/{id}/doses"),
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // The daily jobs run a few seconds after the start: the instance's snapshot and the
    // person's kept export (auto-backup is on by default).
    let mut kept = Vec::new();
    for _ in 0..100 {
        let (_, list) = get_json(&server, "/api/backups", Some(&token)).await;
        kept = list["data"].as_array().cloned().unwrap_or_default();
        if !kept.is_empty() && !files_starting(&data_dir.join("backups"), "pillbox-daily-").is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(kept.len(), 1, "a kept export within 20 s");
    let export = data_dir
        .join("backups/users/1")
        .join(kept[0]["name"].as_str().unwrap());
    let daily = files_starting(&data_dir.join("backups"), "pillbox-daily-");
    assert_eq!(daily.len(), 1, "a daily snapshot within 20 s");

    let backup = temp.path().join("instance.sqlite3");
    let output = run_wide_open(&data_dir, &["backup", "--out", backup.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    for path in [
        data_dir.join("pillbox.sqlite3"),
        data_dir.join("pillbox.sqlite3-wal"),
        data_dir.join("pillbox.sqlite3-shm"),
        data_dir.join("jwt.key"),
        data_dir.join("vapid_private.key"),
        data_dir.join("pillbox.lock"),
        daily[0].clone(),
        export,
        backup,
    ] {
        assert_eq!(mode(&path), "600", "{}", path.display());
    }
}

#[tokio::test]
async fn an_upgrade_and_a_restore_keep_an_old_readable_database_private() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    // A database as the first release could leave it under a lax umask: schema version 1,
    // readable by everyone.
    let database = common::first_release_database(&data_dir);
    std::fs::set_permissions(&database, std::fs::Permissions::from_mode(0o644)).unwrap();

    let server = Server::start_command(
        &data_dir,
        wide_open(&data_dir, &["serve", "--bind", "127.0.0.1:0"]),
    )
    .unwrap();
    assert!(
        server
            .log()
            .contains("saved a copy of the database before migrating"),
        "{}",
        server.log()
    );
    let snapshots = files_starting(&data_dir.join("backups"), "pre-migration-v1-");
    assert_eq!(snapshots.len(), 1);
    for path in [
        snapshots[0].clone(),
        database.clone(),
        data_dir.join("pillbox.sqlite3-wal"),
        data_dir.join("pillbox.sqlite3-shm"),
    ] {
        assert_eq!(mode(&path), "600", "{}", path.display());
    }

    // A restore over a database an older version left readable keeps that one beside it,
    // private.
    let backup = temp.path().join("instance.sqlite3");
    let output = run_wide_open(&data_dir, &["backup", "--out", backup.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    drop(server);
    std::fs::set_permissions(&database, std::fs::Permissions::from_mode(0o644)).unwrap();
    let output = run_wide_open(&data_dir, &["restore", backup.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let replaced = files_starting(&data_dir, "pillbox.sqlite3.replaced-");
    assert_eq!(replaced.len(), 1);
    assert_eq!(mode(&replaced[0]), "600");
    assert_eq!(mode(&database), "600");
}
