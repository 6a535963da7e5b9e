//! The instance from the command line: `export` and `import` of one person's data, `backup`
//! while serving, and `restore`, including onto a new machine.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;

use common::{Server, call, get_json, post, register, run};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `pillbox ARGS` with umask 000, so only the program's own care makes files private.
fn run_wide_open(data_dir: &Path, args: &[&str]) -> Output {
    common::pillbox_wide_open(data_dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

async fn medication(server: &Server, token: &str, name: &str) -> i64 {
    let (status, body) = post(
        server,
        "/api/medications",
        Some(token),
        json!({ "name": name, "unit": "tablets", "frequency": "daily", "default_quantity": 1 }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let id = body["data"]["id"].as_i64().unwrap();
    let (status, body) = post(
        server,
        &format!("/api/medications/{id}/doses"),
        Some(token),
        json!({ "taken": "2026-01-10T08:00:00Z", "dosage": "with water" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    id
}

async fn names(server: &Server, token: &str) -> Vec<String> {
    let (status, body) = get_json(server, "/api/medications", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_owned())
        .collect()
}

fn without_date(mut file: Value) -> Value {
    file.as_object_mut().unwrap().remove("exportDate");
    file
}

#[tokio::test]
async fn export_and_import_from_the_command_line_while_the_server_runs() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let server = Server::start_in(&data_dir, |c| {
        c.env("PILLBOX_SIGNUPS", "open");
    })
    .unwrap();
    let token = register(&server, "a@example.com").await;
    let aspirin = medication(&server, &token, "Aspirin").await;
    // A stock batch and a prescription travel with it (export format 1.2).
    let (status, body) = post(
        &server,
        &format!("/api/medications/{aspirin}/inventory/batches"),
        Some(&token),
        json!({ "quantity": 20, "expires_on": "2030-01-31", "lot": "A1" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = post(
        &server,
        "/api/medications",
        Some(&token),
        json!({ "name": "Metformin", "unit": "tablets", "frequency": "as_needed", "default_quantity": 1,
                "prescription": { "prescriber": "Dr. Weber", "refills_authorised": 2, "refills_left": 2 } }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    let out = temp.path().join("a.json");
    let output = run_wide_open(
        &data_dir,
        &[
            "export",
            "--email",
            "a@example.com",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("a.json"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(mode(&out), 0o600, "user data is private whatever the umask");
    let from_cli: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let response = common::client()
        .get(server.url("/api/export"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    let from_api: Value = response.json().await.unwrap();
    assert_eq!(without_date(from_cli), without_date(from_api));

    let csv = run(
        &data_dir,
        &["export", "--email", "a@example.com", "--format", "csv"],
    );
    assert!(csv.status.success(), "{}", text(&csv.stderr));
    let csv = text(&csv.stdout);
    assert!(
        csv.starts_with("date,time,medication,quantity,unit,status,note,taken_at,person,logged_by\n"),
        "{csv}"
    );
    assert!(
        csv.contains(",Aspirin,1,tablets,taken,with water,2026-01-10T08:00:00.000Z"),
        "{csv}"
    );

    let unknown = run(&data_dir, &["export", "--email", "nobody@example.com"]);
    assert!(!unknown.status.success());
    assert!(text(&unknown.stderr).contains("no account with the e-mail address nobody@example.com"));

    let other = register(&server, "b@example.com").await;
    let path = out.to_str().unwrap();
    let dry = run(
        &data_dir,
        &["import", "--email", "b@example.com", path, "--dry-run"],
    );
    assert!(dry.status.success(), "{}", text(&dry.stderr));
    for line in [
        "medications: would add 2, 0 already there",
        "prescriptions: would add 1, 0 already there",
        "stock batches: would add 1, 0 already there",
    ] {
        assert!(text(&dry.stdout).contains(line), "{}", text(&dry.stdout));
    }
    assert!(text(&dry.stdout).contains("dry run: nothing was changed"));
    assert!(names(&server, &other).await.is_empty());
    let done = run(&data_dir, &["import", "--email", "b@example.com", path]);
    assert!(done.status.success(), "{}", text(&done.stderr));
    assert!(
        text(&done.stdout).contains("history entries: added 1, 0 already there"),
        "{}",
        text(&done.stdout)
    );
    assert_eq!(names(&server, &other).await, ["Aspirin", "Metformin"]);

    let broken = temp.path().join("broken.json");
    std::fs::write(&broken, "{\"version\": \"1.0.0\"}").unwrap();
    let refused = run(
        &data_dir,
        &["import", "--email", "b@example.com", broken.to_str().unwrap()],
    );
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("no \"medications\""),
        "{}",
        text(&refused.stderr)
    );
}

#[tokio::test]
async fn a_backup_taken_while_serving_restores_the_instance_keys_and_all() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let server = Server::start_in(&data_dir, |_| {}).unwrap();
    let token = register(&server, "a@example.com").await;
    medication(&server, &token, "Before").await;
    let (_, key) = get_json(&server, "/api/notifications/push/public-key", None).await;

    let snapshot = temp.path().join("pillbox-backup.sqlite3");
    let output = run_wide_open(&data_dir, &["backup", "--out", snapshot.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let printed = text(&output.stdout);
    assert!(
        printed.contains("pillbox-backup.sqlite3") && printed.contains("bytes"),
        "{printed}"
    );
    assert_eq!(mode(&snapshot), 0o600);
    {
        let copy = rusqlite::Connection::open(&snapshot).unwrap();
        let files: i64 = copy
            .query_row("SELECT count(*) FROM pillbox_backup_files", [], |r| r.get(0))
            .unwrap();
        assert_eq!(files, 2, "the JWT and VAPID keys travel with the snapshot");
    }

    // Without --out, into the data directory's backups/.
    let default = run(&data_dir, &["backup"]);
    assert!(default.status.success(), "{}", text(&default.stderr));
    assert!(
        text(&default.stdout).contains("backups/pillbox-"),
        "{}",
        text(&default.stdout)
    );

    let refused = run(&data_dir, &["restore", snapshot.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("another Pillbox server is running"),
        "{}",
        text(&refused.stderr)
    );
    let second = run(&data_dir, &["serve", "--bind", "127.0.0.1:0"]);
    assert!(
        !second.status.success(),
        "a second server on the same data directory is refused"
    );
    assert!(
        text(&second.stderr).contains("another Pillbox server is running"),
        "{}",
        text(&second.stderr)
    );

    medication(&server, &token, "After").await;
    assert_eq!(names(&server, &token).await, ["After", "Before"]);
    drop(server);

    let restored = run_wide_open(&data_dir, &["restore", snapshot.to_str().unwrap()]);
    assert!(restored.status.success(), "{}", text(&restored.stderr));
    let said = text(&restored.stdout);
    assert!(said.contains("the replaced database is kept as"), "{said}");
    let kept = replaced_copies(&data_dir);
    assert_eq!(kept.len(), 1);
    assert_eq!(mode(&kept[0]), 0o600);
    assert_eq!(mode(&data_dir.join("pillbox.sqlite3")), 0o600);

    let server = Server::start_in(&data_dir, |_| {}).unwrap();
    assert_eq!(
        names(&server, &token).await,
        ["Before"],
        "the session still works: same keys"
    );

    // Moving to a new machine: restore into an empty data directory.
    let moved = temp.path().join("new-machine");
    let output = run(&moved, &["restore", snapshot.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    drop(server);
    let server = Server::start_in(&moved, |_| {}).unwrap();
    assert_eq!(names(&server, &token).await, ["Before"]);
    let (_, moved_key) = get_json(&server, "/api/notifications/push/public-key", None).await;
    assert_eq!(moved_key, key, "push subscriptions keep working after the move");
    let (status, _) = call(&server, Method::GET, "/api/auth/me", Some(&token), None).await;
    assert_eq!(status, StatusCode::OK);
}

#[test]
fn restore_refuses_what_it_cannot_trust_and_changes_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    assert!(run(&data_dir, &["migrate"]).status.success());
    let database = data_dir.join("pillbox.sqlite3");
    let before = std::fs::read(&database).unwrap();

    let garbage = temp.path().join("garbage.sqlite3");
    std::fs::write(
        &garbage,
        "this is no database at all, just some words".repeat(200),
    )
    .unwrap();
    let output = run(&data_dir, &["restore", garbage.to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("not a SQLite database"),
        "{}",
        text(&output.stderr)
    );

    let newer = temp.path().join("newer.sqlite3");
    assert!(
        run(&data_dir, &["backup", "--out", newer.to_str().unwrap()])
            .status
            .success()
    );
    rusqlite::Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", 999)
        .unwrap();
    let output = run(&data_dir, &["restore", newer.to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("newer Pillbox"),
        "{}",
        text(&output.stderr)
    );

    let empty = temp.path().join("empty.sqlite3");
    std::fs::write(&empty, "").unwrap();
    let output = run(&data_dir, &["restore", empty.to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("holds no Pillbox data"),
        "{}",
        text(&output.stderr)
    );

    let missing = run(&data_dir, &["restore", "/nonexistent/backup.sqlite3"]);
    assert!(!missing.status.success());
    assert!(
        text(&missing.stderr).contains("cannot read"),
        "{}",
        text(&missing.stderr)
    );

    assert_eq!(
        std::fs::read(&database).unwrap(),
        before,
        "the database was not touched"
    );
    let leftovers: Vec<String> = std::fs::read_dir(&data_dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("restoring") || n.contains("replaced"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_snapshot_from_an_older_pillbox_is_migrated_on_restore() {
    let temp = tempfile::tempdir().unwrap();
    // A database as the previous release left it: every migration but the last.
    let old = temp.path().join("old.sqlite3");
    {
        let conn = rusqlite::Connection::open(&old).unwrap();
        let mut files: Vec<_> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        let previous = files.len() - 1;
        for file in &files[..previous] {
            conn.execute_batch(&std::fs::read_to_string(file).unwrap())
                .unwrap();
        }
        conn.pragma_update(None, "user_version", previous as i64).unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (1, 'old@example.com', 'x', 't', 't')",
        )
        .unwrap();
    }
    let data_dir = temp.path().join("data");
    let output = run(&data_dir, &["restore", old.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("applied migration"),
        "{}",
        text(&output.stdout)
    );
    let status = run(&data_dir, &["migrate", "--status"]);
    assert!(status.status.success(), "{}", text(&status.stderr));
    assert!(
        !text(&status.stdout).contains("pending"),
        "{}",
        text(&status.stdout)
    );
    let conn = rusqlite::Connection::open(data_dir.join("pillbox.sqlite3")).unwrap();
    let email: String = conn
        .query_row("SELECT email FROM users WHERE id = 1", [], |r| r.get(0))
        .unwrap();
    assert_eq!(email, "old@example.com");
}

/// An instance with one person and one medication, stopped, and a snapshot of it.
async fn stopped_instance(temp: &Path) -> (std::path::PathBuf, String, std::path::PathBuf) {
    let data_dir = temp.join("data");
    let server = Server::start_in(&data_dir, |_| {}).unwrap();
    let token = register(&server, "a@example.com").await;
    medication(&server, &token, "Aspirin").await;
    let snapshot = temp.join("good.sqlite3");
    let output = run(&data_dir, &["backup", "--out", snapshot.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    drop(server);
    (data_dir, token, snapshot)
}

/// The instance starts and still shows the person's medication.
async fn still_serves(data_dir: &Path, token: &str) {
    let server = Server::start_in(data_dir, |_| {}).unwrap();
    assert_eq!(names(&server, token).await, ["Aspirin"]);
}

/// Names in `dir` that a restore may have left behind: its incoming copy, SQLite's side
/// files of it, partial files.
/// A refused restore of `file`: it failed saying each of `expected` and "nothing was
/// restored", left the live database as it was (`before`) and nothing of its own behind.
fn assert_refused(output: &Output, file: &str, expected: &[&str], data_dir: &Path, before: &[u8]) {
    let said = text(&output.stderr);
    assert!(!output.status.success(), "{file} was restored");
    for words in expected {
        assert!(said.contains(words), "{file}: {said}");
    }
    assert!(said.contains("nothing was restored"), "{said}");
    assert_eq!(
        std::fs::read(data_dir.join("pillbox.sqlite3")).unwrap(),
        before,
        "the database was not touched"
    );
    let left = restore_leftovers(data_dir);
    assert!(left.is_empty(), "{left:?}");
}

/// The databases restores replaced, kept beside the live one.
fn replaced_copies(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("pillbox.sqlite3.replaced-")
        })
        .map(|e| e.path())
        .collect()
}

fn restore_leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("restoring") || n.contains("partial"))
        .collect()
}

/// The schema version this build brings: how many migrations it has.
fn latest_schema_version() -> i64 {
    std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".sql"))
        .count() as i64
}

#[tokio::test]
async fn restore_refuses_a_sqlite_file_that_is_not_a_pillbox_database() {
    let temp = tempfile::tempdir().unwrap();
    let (data_dir, token, snapshot) = stopped_instance(temp.path()).await;
    let database = data_dir.join("pillbox.sqlite3");
    let before = std::fs::read(&database).unwrap();
    let latest = latest_schema_version();

    // Another program's database that claims the current schema version.
    let foreign = temp.path().join("notes.sqlite3");
    {
        let conn = rusqlite::Connection::open(&foreign).unwrap();
        conn.execute_batch("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
            .unwrap();
        conn.pragma_update(None, "user_version", latest).unwrap();
    }
    // A Pillbox snapshot with a table dropped, and one with a column renamed.
    let altered = |name: &str, sql: &str| {
        let path = temp.path().join(name);
        std::fs::copy(&snapshot, &path).unwrap();
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        path
    };
    let no_table = altered("no-table.sqlite3", "DROP TABLE password_resets");
    let renamed_column = altered(
        "renamed-column.sqlite3",
        "ALTER TABLE users RENAME COLUMN email TO mail",
    );
    let newer = altered("newer.sqlite3", "PRAGMA user_version = 99");

    let cases = [
        (
            &foreign,
            vec![
                "not a Pillbox database",
                "none of its tables are Pillbox's (it holds: notes)",
            ],
        ),
        (
            &no_table,
            vec!["not a Pillbox database", "table password_resets is missing"],
        ),
        (
            &renamed_column,
            vec![
                "not a Pillbox database",
                "column email of table users is missing",
                "table users has an unknown column mail",
            ],
        ),
        (&newer, vec!["schema version 99", "newer Pillbox"]),
    ];
    for (file, expected) in cases {
        let output = run(&data_dir, &["restore", file.to_str().unwrap()]);
        assert_refused(
            &output,
            &file.display().to_string(),
            &expected,
            &data_dir,
            &before,
        );
    }
    still_serves(&data_dir, &token).await;
}

#[tokio::test]
async fn restore_reads_only_regular_files_and_never_waits_on_one() {
    let temp = tempfile::tempdir().unwrap();
    let (data_dir, token, _) = stopped_instance(temp.path()).await;
    let database = data_dir.join("pillbox.sqlite3");
    let before = std::fs::read(&database).unwrap();

    let fifo = temp.path().join("pipe.sqlite3");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let directory = temp.path().join("a-directory.sqlite3");
    std::fs::create_dir(&directory).unwrap();
    let cases = [
        (
            fifo.to_str().unwrap(),
            "is a named pipe (FIFO), not a regular file",
        ),
        (directory.to_str().unwrap(), "is a directory, not a regular file"),
        ("/dev/zero", "is a character device, not a regular file"),
    ];
    for (file, expected) in cases {
        // Bounded in time and memory, so a restore that reads forever fails the test
        // instead of the machine.
        let mut command = std::process::Command::new("sh");
        command
            .arg("-c")
            .arg("ulimit -v 4000000; exec \"$0\" \"$@\"")
            .arg(common::BIN)
            .args(["restore", file])
            .env("PILLBOX_DATA_DIR", &data_dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = command.spawn().unwrap();
        let started = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > std::time::Duration::from_secs(10) {
                child.kill().unwrap();
                child.wait().unwrap();
                panic!("restore {file} did not answer within 10 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let output = child.wait_with_output().unwrap();
        assert_refused(&output, file, &[expected], &data_dir, &before);
    }
    still_serves(&data_dir, &token).await;
}

#[tokio::test]
async fn restores_in_the_same_second_each_keep_the_database_they_replaced() {
    let temp = tempfile::tempdir().unwrap();
    let (data_dir, token, snapshot) = stopped_instance(temp.path()).await;
    // One after the other as fast as they go: most of them fall in the same second.
    for _ in 0..4 {
        let output = run(&data_dir, &["restore", snapshot.to_str().unwrap()]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        assert!(
            text(&output.stdout).contains("the replaced database is kept as"),
            "{}",
            text(&output.stdout)
        );
    }
    let kept = replaced_copies(&data_dir);
    assert_eq!(kept.len(), 4, "{kept:?}");
    for path in &kept {
        assert_eq!(mode(path), 0o600, "{}", path.display());
    }
    assert!(
        restore_leftovers(&data_dir).is_empty(),
        "{:?}",
        restore_leftovers(&data_dir)
    );
    assert!(
        !data_dir.join("backups").exists()
            || std::fs::read_dir(data_dir.join("backups")).unwrap().count() == 0,
        "a restore leaves no copy in backups/"
    );
    still_serves(&data_dir, &token).await;
}
