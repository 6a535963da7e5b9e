//! Test harness: runs the real `pillbox` binary on an ephemeral port with a temporary data
//! directory, and talks HTTP to it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_pillbox");

/// A `pillbox` command with a clean environment: no `PILLBOX_*` from the developer's shell.
pub fn pillbox(data_dir: &Path) -> Command {
    let mut command = Command::new(BIN);
    for (name, _) in std::env::vars() {
        if name.starts_with("PILLBOX_") || name == "NOTIFY_SOCKET" {
            command.env_remove(name);
        }
    }
    command
        .env("PILLBOX_DATA_DIR", data_dir)
        .env("PILLBOX_LOG_LEVEL", "info");
    command
}

/// Runs a CLI command to completion.
pub fn run(data_dir: &Path, args: &[&str]) -> Output {
    pillbox(data_dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run pillbox")
}

pub struct Server {
    pub base: String,
    pub data_dir: PathBuf,
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
    _temp: Option<tempfile::TempDir>,
}

impl Server {
    /// Starts a server in a fresh data directory.
    pub fn start() -> Server {
        Self::start_with(|_| {})
    }

    pub fn start_with(configure: impl FnOnce(&mut Command)) -> Server {
        let temp = tempfile::tempdir().unwrap();
        let data_dir = temp.path().join("data");
        let mut server = Self::start_in(&data_dir, configure).expect("server starts");
        server._temp = Some(temp);
        server
    }

    /// Starts a server on an existing data directory; `Err` holds the log when it exits
    /// before listening.
    pub fn start_in(data_dir: &Path, configure: impl FnOnce(&mut Command)) -> Result<Server, String> {
        let mut command = pillbox(data_dir);
        command.args(["serve", "--bind", "127.0.0.1:0"]);
        configure(&mut command);
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let log_writer = log.clone();
        // Keep draining stderr for the server's lifetime so it never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(address) = line.split("listening on http://").nth(1) {
                    if let Some(tx) = tx.take() {
                        let _ = tx.send(address.split_whitespace().next().unwrap_or_default().to_owned());
                    }
                }
                log_writer.lock().unwrap().push(line);
            }
        });
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(address) => Ok(Server {
                base: format!("http://{address}"),
                data_dir: data_dir.to_path_buf(),
                child,
                log,
                _temp: None,
            }),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                std::thread::sleep(Duration::from_millis(100));
                Err(log.lock().unwrap().join("\n"))
            }
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    /// Sends SIGTERM and waits for the process to exit.
    pub fn terminate(mut self) -> (ExitStatus, String) {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(100));
                return (status, self.log());
            }
            assert!(Instant::now() < deadline, "server did not stop after SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn client() -> reqwest::Client {
    // Built without decompression features: compressed bodies arrive as sent.
    reqwest::Client::new()
}
