//! `pillbox doctor`: checks an instance the way a self-hoster needs it checked, one line per
//! check (`ok`, `warn` or `fail`), each warning and failure saying how to fix it. Exits 1
//! when any check fails. It reads and connects; it changes nothing (a probe file in the data
//! directory is made and removed) and sends no mail.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use clap::Args;

use super::healthcheck::{self, Probe};
use super::{CliResult, DataArgs};
use crate::config::{Settings, display_path};
use crate::db::{self, migrations};
use crate::files;
use crate::http::tls;
use crate::mailer::Mailer;
use crate::secrets::{self, VapidKeys};

#[derive(Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    data: DataArgs,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Ok,
    Warn,
    Fail,
}

/// One check's outcome.
struct Line {
    level: Level,
    name: &'static str,
    text: String,
    fix: Option<String>,
}

fn ok(name: &'static str, text: impl Into<String>) -> Line {
    Line {
        level: Level::Ok,
        name,
        text: text.into(),
        fix: None,
    }
}

fn warn(name: &'static str, text: impl Into<String>, fix: impl Into<String>) -> Line {
    Line {
        level: Level::Warn,
        name,
        text: text.into(),
        fix: Some(fix.into()),
    }
}

fn fail(name: &'static str, text: impl Into<String>, fix: impl Into<String>) -> Line {
    Line {
        level: Level::Fail,
        name,
        text: text.into(),
        fix: Some(fix.into()),
    }
}

impl Line {
    fn print(&self) {
        let level = match self.level {
            Level::Ok => "ok",
            Level::Warn => "warn",
            Level::Fail => "FAIL",
        };
        let fix = self
            .fix
            .as_deref()
            .map(|f| format!(" -> {f}"))
            .unwrap_or_default();
        println!("{level:<4}  {:<10}  {}{fix}", self.name, self.text);
        // Lines appear as each check finishes, even through a pipe.
        let _ = std::io::stdout().flush();
    }
}

pub fn run(args: DoctorArgs) -> CliResult {
    let overrides = args.data.overrides();
    let settings = match Settings::load(&overrides) {
        Ok(loaded) => {
            check_config(overrides.config_file.as_deref()).print();
            loaded.settings
        }
        Err(e) => {
            fail(
                "config",
                e.to_string(),
                "fix the file or variable it names; examples/config.toml lists every key",
            )
            .print();
            return Ok(ExitCode::FAILURE);
        }
    };
    let mut failed = false;
    let mut report = |line: Line| {
        failed |= line.level == Level::Fail;
        line.print();
    };
    let data_dir = settings.resolved_data_dir()?;
    let data_ready = check_data_dir(&data_dir, settings.health.min_free_bytes);
    let data_ok = data_ready.level != Level::Fail;
    report(data_ready);
    if data_ok {
        report(check_database(&data_dir));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    report(runtime.block_on(check_server(&settings)));
    report(runtime.block_on(check_smtp(&settings)));
    if let Some(line) = runtime.block_on(check_mqtt(&settings)) {
        report(line);
    }
    report(check_vapid(&settings, &data_dir));
    report(check_public_url(&settings));
    report(check_proxy_sign_in(&settings));
    if let (Some(cert), Some(key)) = (&settings.tls_cert, &settings.tls_key) {
        report(match tls::load_pair(cert, key) {
            Ok(pair) => check_expiry(cert, tls::expires(&pair)),
            Err(e) => fail(
                "tls",
                e,
                "point tls_cert at the full chain and tls_key at its key (e.g. certbot's fullchain.pem and privkey.pem), readable by the service user",
            ),
        });
    }
    report(check_clock());
    if data_ok {
        report(check_backups(&data_dir.join("backups"), settings.backup.daily));
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn check_expiry(cert: &Path, expires: Option<chrono::DateTime<chrono::Utc>>) -> Line {
    let shown = cert.display();
    let Some(at) = expires else {
        return ok("tls", format!("{shown} and its key load and match"));
    };
    let left = at - chrono::Utc::now();
    let text = format!("{shown} and its key match; valid until {}", at.format("%Y-%m-%d"));
    let renew = "renew it: certbot renew (with the deploy hook in README: HTTPS), or tailscale cert again";
    if left <= chrono::Duration::zero() {
        fail(
            "tls",
            format!("{shown} expired on {}", at.format("%Y-%m-%d")),
            renew,
        )
    } else if left < chrono::Duration::days(14) {
        warn("tls", format!("{text}, {} days from now", left.num_days()), renew)
    } else {
        ok("tls", text)
    }
}

fn check_config(file: Option<&Path>) -> Line {
    const PACKAGED: &str = "/etc/pillbox/config.toml";
    let Some(file) = file else {
        if Path::new(PACKAGED).exists() {
            return warn(
                "config",
                format!("no file given, so defaults and PILLBOX_* variables only; {PACKAGED} exists"),
                format!("check what the service reads: pillbox doctor --config {PACKAGED}"),
            );
        }
        return ok(
            "config",
            "no file given (--config, PILLBOX_CONFIG): defaults and PILLBOX_* variables",
        );
    };
    let shown = display_path(file);
    let holds_secret = std::fs::read_to_string(file).is_ok_and(|text| {
        text.lines().map(str::trim_start).any(|l| {
            (l.starts_with("password") || l.starts_with("private_key"))
                && l.split_once('=').is_some_and(|(_, v)| v.trim() != "\"\"")
        })
    });
    let others_read = std::fs::metadata(file).is_ok_and(|m| m.permissions().mode() & 0o004 != 0);
    if holds_secret && others_read {
        return warn(
            "config",
            format!("{shown} holds a password or key and every user may read it"),
            format!(
                "chmod 640 {shown} (group: the service's), or move the secret to PILLBOX_SMTP_PASSWORD_FILE"
            ),
        );
    }
    ok("config", format!("{shown} read"))
}

fn check_data_dir(dir: &Path, min_free: u64) -> Line {
    let shown = display_path(dir);
    if !dir.is_dir() {
        return fail(
            "data",
            format!("{shown} does not exist"),
            "check --data-dir or PILLBOX_DATA_DIR (the packaged service uses /var/lib/pillbox), or start the server once to create it",
        );
    }
    let probe = dir.join(format!(".doctor-{}", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&probe)
        .and_then(|mut file| {
            file.write_all(b"pillbox doctor")?;
            file.sync_all()
        });
    let _ = std::fs::remove_file(&probe);
    if let Err(e) = written {
        return fail(
            "data",
            format!("{shown} is not writable by this user: {e}"),
            format!(
                "run as the service user (sudo -u pillbox pillbox doctor ...), or chown -R pillbox: {shown}"
            ),
        );
    }
    match files::free_bytes(dir) {
        Ok(free) if free < min_free => fail(
            "data",
            format!("{shown}: writable, only {} free", megabytes(free)),
            format!(
                "free space on that disk: /health fails below {} (health.min_free_bytes)",
                megabytes(min_free)
            ),
        ),
        Ok(free) if free < min_free.saturating_mul(4) => warn(
            "data",
            format!("{shown}: writable, {} free", megabytes(free)),
            "free space soon: the database, its WAL and daily backups grow",
        ),
        Ok(free) => ok("data", format!("{shown}: writable, {} free", megabytes(free))),
        Err(e) => warn(
            "data",
            format!("{shown}: writable; free space unknown: {e}"),
            "check the disk with df",
        ),
    }
}

fn megabytes(bytes: u64) -> String {
    if bytes >= 10_000_000_000 {
        format!("{:.1} GB", bytes as f64 / 1e9)
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

/// The schema, read only by the database's owner: anyone else (root) opening it could
/// leave its -wal and -shm files with an owner the service cannot write.
fn check_database(data_dir: &Path) -> Line {
    let path = data_dir.join(db::DATABASE_FILE);
    let shown = display_path(&path);
    let Ok(meta) = std::fs::metadata(&path) else {
        return warn(
            "database",
            format!("no database at {shown} yet"),
            "start the server once (or run pillbox migrate) to create it",
        );
    };
    // /proc/self belongs to the process's effective user.
    let me = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
    if me != Some(meta.uid()) {
        return warn(
            "database",
            format!(
                "{shown} belongs to uid {}, not to this user: not opened",
                meta.uid()
            ),
            "run as the service user to check it: sudo -u pillbox pillbox doctor ...",
        );
    }
    let status = db::open_connection(&path, false)
        .map_err(|e| e.to_string())
        .and_then(|conn| migrations::status(&conn).map_err(|e| e.to_string()));
    match status {
        Ok(status) if status.current > status.latest => fail(
            "database",
            format!(
                "schema version {} is newer than this pillbox knows ({})",
                status.current, status.latest
            ),
            "run the newer pillbox that wrote it, or restore a backup",
        ),
        Ok(status) if !status.pending.is_empty() => warn(
            "database",
            format!(
                "schema version {}, {} migration(s) pending",
                status.current,
                status.pending.len()
            ),
            "restart the server: it takes a snapshot and migrates at start",
        ),
        Ok(status) => ok(
            "database",
            format!("{shown}: schema version {}, up to date", status.current),
        ),
        Err(e) => fail(
            "database",
            format!("cannot read {shown}: {e}"),
            "see pillbox restore to put a backup in its place",
        ),
    }
}

async fn check_server(settings: &Settings) -> Line {
    match healthcheck::probe(settings, Duration::from_secs(3)).await {
        Probe::Healthy { url, status, version } if status == "ok" => {
            ok("server", format!("{url} healthy (pillbox {version})"))
        }
        Probe::Healthy { url, status, .. } => warn(
            "server",
            format!("{url} answers, status {status}"),
            "the last daily backup failed: see journalctl -u pillbox",
        ),
        Probe::Unhealthy { url, code, message } => fail(
            "server",
            format!("{url} answered {code}: {message}"),
            "see journalctl -u pillbox; README's HTTP section explains each check",
        ),
        Probe::Unreachable { url, error } => warn(
            "server",
            format!("not answering at {url}: {error}"),
            "start it (sudo systemctl start pillbox); journalctl -u pillbox says why it stopped",
        ),
    }
}

async fn check_smtp(settings: &Settings) -> Line {
    let smtp = &settings.smtp;
    let Some(host) = &smtp.host else {
        return warn(
            "smtp",
            "not configured: no e-mail reminders, verification links or sign-in codes",
            "set smtp.host, smtp.from (and user, password) to send e-mail",
        );
    };
    let target = format!("{host}:{} ({})", smtp.port_or_default(), tls_mode(settings));
    let mailer = match Mailer::new(smtp) {
        Ok(mailer) => mailer,
        Err(e) => return fail("smtp", e, "fix the smtp settings it names"),
    };
    match mailer.check_connection().await {
        Ok(()) => match &smtp.user {
            Some(user) => ok("smtp", format!("{target}: connected, logged in as {user}")),
            None => ok("smtp", format!("{target}: connected (no smtp.user: no login)")),
        },
        Err(e) => fail(
            "smtp",
            format!("{target}: {e}"),
            "check smtp.host, port and tls with your mail provider's settings; a 535 answer means smtp.user or smtp.password is wrong",
        ),
    }
}

/// The MQTT broker Home Assistant reads from, when `mqtt.url` is set: connects and logs in.
async fn check_mqtt(settings: &Settings) -> Option<Line> {
    let broker = match settings.mqtt.broker() {
        Ok(broker) => broker?,
        Err(e) => return Some(fail("mqtt", e.to_string(), "fix mqtt.url")),
    };
    let target = broker.address();
    Some(
        match crate::home_assistant::check_connection(&broker, settings).await {
            Ok(()) => match &broker.username {
                Some(user) => ok("mqtt", format!("{target}: connected, logged in as {user}")),
                None => ok("mqtt", format!("{target}: connected (no login)")),
            },
            Err(e) => fail(
                "mqtt",
                format!("{target}: {e}"),
                "check mqtt.url: the broker's host and port, and the user and password it accepts (mqtt:// or mqtts://)",
            ),
        },
    )
}

fn tls_mode(settings: &Settings) -> &'static str {
    match settings.smtp.tls {
        crate::config::SmtpTls::None => "no TLS",
        crate::config::SmtpTls::Starttls => "STARTTLS",
        crate::config::SmtpTls::Tls => "TLS",
    }
}

fn check_vapid(settings: &Settings, data_dir: &Path) -> Line {
    if let Some(private_key) = &settings.vapid.private_key {
        return match VapidKeys::from_private_key(private_key) {
            Ok(keys)
                if settings
                    .vapid
                    .public_key
                    .as_deref()
                    .is_some_and(|p| p.trim_end_matches('=') != keys.public_key) =>
            {
                fail(
                    "vapid",
                    "vapid.public_key does not belong to vapid.private_key",
                    "set both from one `pillbox gen-vapid` run, or leave public_key out",
                )
            }
            Ok(_) => ok("vapid", "key pair from the configuration"),
            Err(e) => fail(
                "vapid",
                format!("vapid.private_key is invalid: {e}"),
                "run `pillbox gen-vapid` for a new pair",
            ),
        };
    }
    let path: PathBuf = secrets::vapid_key_path(data_dir);
    let shown = display_path(&path);
    match std::fs::read_to_string(&path) {
        Ok(key) => match VapidKeys::from_private_key(&key) {
            Ok(_) if std::fs::metadata(&path).is_ok_and(|m| m.permissions().mode() & 0o077 != 0) => warn(
                "vapid",
                format!("{shown} can be read by other users"),
                format!("chmod 600 {shown}"),
            ),
            Ok(_) => ok("vapid", format!("key pair in {shown}")),
            Err(e) => fail(
                "vapid",
                format!("{shown} is damaged: {e}"),
                "pillbox gen-vapid --write --force (every device then subscribes again)",
            ),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => warn(
            "vapid",
            format!("no key pair yet ({shown})"),
            "the server makes one at its first start; or run pillbox gen-vapid --write",
        ),
        Err(e) => fail(
            "vapid",
            format!("cannot read {shown}: {e}"),
            "run as the service user: sudo -u pillbox pillbox doctor ...",
        ),
    }
}

fn check_public_url(settings: &Settings) -> Line {
    let Some(url) = settings.public_base_url() else {
        return warn(
            "public_url",
            "not set: links in e-mails and push reminders point at the bind address",
            "set public_url to the https:// address people open, e.g. https://pillbox.example.com",
        );
    };
    if url.starts_with("https://") {
        return ok("public_url", format!("{url} (HTTPS: browsers allow push)"));
    }
    let host = url.trim_start_matches("http://");
    let local = ["localhost", "127.0.0.1", "[::1]"]
        .iter()
        .any(|name| host == *name || host.starts_with(&format!("{name}:")));
    if local {
        return warn(
            "public_url",
            format!("{url} works on this machine only"),
            "set the https:// address other devices use (README: HTTPS)",
        );
    }
    fail(
        "public_url",
        format!("{url} is not HTTPS: browsers offer push only to secure (https) sites"),
        "serve HTTPS (tls_cert/tls_key, or Caddy/nginx in front; README: HTTPS) and set public_url to https://...",
    )
}

/// Sign-in by an authenticating proxy: off, or whose header is believed and whether the proxy
/// may make accounts.
fn check_proxy_sign_in(settings: &Settings) -> Line {
    let proxy = match settings.auth.proxy_sign_in() {
        Ok(Some(proxy)) => proxy,
        Ok(None) => {
            return ok(
                "proxy",
                "sign-in by an authenticating proxy is off (auth.proxy_header)",
            );
        }
        Err(e) => {
            return fail(
                "proxy",
                e.to_string(),
                "fix the auth.* key it names (README: Behind an authenticating proxy)",
            );
        }
    };
    let header = &proxy.header;
    if proxy.trusted.iter().any(|net| net.prefix_len() == 0) {
        return fail(
            "proxy",
            format!("{header} is believed from every address: anyone can sign in as anyone"),
            "list only your proxy's addresses in auth.trusted_proxies, e.g. [\"127.0.0.1\"]",
        );
    }
    let trusted: Vec<String> = proxy.trusted.iter().map(ToString::to_string).collect();
    let accounts = match proxy.auto_register {
        true => "a person without an account gets one (auth.proxy_auto_register)",
        false => "a person without an account is refused (auth.proxy_auto_register is off)",
    };
    ok(
        "proxy",
        format!("{header} from {} signs people in; {accounts}", trusted.join(", ")),
    )
}

/// The kernel's own verdict on the clock, which systemd reports as NTPSynchronized: true
/// while an NTP client (timesyncd, chrony, ntpd) keeps it in step. No guessing from other
/// servers' Date headers: seconds of error hide in their one-second resolution.
fn check_clock() -> Line {
    let answer = std::process::Command::new("timedatectl")
        .args(["show", "--property=NTPSynchronized", "--value"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    match answer {
        Ok(out) if out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "yes" => {
            ok("clock", "synchronized (timedatectl: NTPSynchronized=yes)")
        }
        Ok(out) if out.status.success() => warn(
            "clock",
            "not synchronized (timedatectl: NTPSynchronized=no): reminders and sign-in codes follow this clock",
            "sudo timedatectl set-ntp true (or install chrony)",
        ),
        // timesyncd marks each synchronization with this file, also where timedated is absent.
        _ if Path::new("/run/systemd/timesync/synchronized").exists() => ok(
            "clock",
            "synchronized (systemd-timesyncd: /run/systemd/timesync/synchronized)",
        ),
        _ => warn(
            "clock",
            "cannot tell: timedatectl does not answer here (a container?)",
            "make sure the host keeps its clock in sync with NTP; reminders and sign-in codes follow it",
        ),
    }
}

/// The newest instance snapshot in `backups/` (daily ones and `pillbox backup`'s default
/// place; copies written elsewhere with --out are not seen).
fn check_backups(dir: &Path, daily: bool) -> Line {
    let shown = display_path(dir);
    let newest = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("pillbox-") && name.ends_with(".sqlite3")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.file_name())))
        .max_by_key(|(modified, _)| *modified);
    let fix_daily = if daily {
        "the server takes one daily while it runs; take one now: pillbox backup"
    } else {
        "backup.daily is off: turn it on, or run pillbox backup from a timer"
    };
    let Some((modified, name)) = newest else {
        return warn("backup", format!("no instance backup in {shown}"), fix_daily);
    };
    let age = SystemTime::now().duration_since(modified).unwrap_or_default();
    let text = format!("newest {} ({} old)", name.to_string_lossy(), ago(age));
    if age > Duration::from_secs(2 * 24 * 3600) {
        return warn("backup", text, fix_daily);
    }
    ok("backup", text)
}

fn ago(age: Duration) -> String {
    let hours = age.as_secs() / 3600;
    match hours {
        0 => format!("{} min", age.as_secs() / 60),
        1..=47 => format!("{hours} h"),
        _ => format!("{} days", hours / 24),
    }
}
