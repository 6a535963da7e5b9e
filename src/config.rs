//! Settings: one struct filled from defaults < TOML file < `PILLBOX_*` environment < flags.
//!
//! Every key of the file has an environment twin: `PILLBOX_` plus the key path with `.` as
//! `_`, upper-cased (`smtp.host` is `PILLBOX_SMTP_HOST`). Any key may instead be read from a
//! file named by `PILLBOX_<KEY>_FILE`, which is how secrets are passed under systemd or Docker.

use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use figment::providers::{Format, Serialized, Toml};
use figment::value::{Dict, Map, Value};
use figment::{Figment, Metadata, Profile, Provider};
use serde::{Deserialize, Serialize};

use std::net::IpAddr;

use ipnet::IpNet;

const ENV_PREFIX: &str = "PILLBOX_";

/// Every key the config file accepts, as dotted paths. The env layer maps variables onto
/// these; a test keeps `examples/config.toml` in step with this list.
pub const KEYS: &[&str] = &[
    "bind",
    "public_url",
    "data_dir",
    "signups",
    "registration_limit",
    "trusted_proxies",
    "tls_cert",
    "tls_key",
    "smtp.host",
    "smtp.port",
    "smtp.tls",
    "smtp.user",
    "smtp.password",
    "smtp.from",
    "smtp.timeout_seconds",
    "vapid.subject",
    "vapid.public_key",
    "vapid.private_key",
    "reminders.horizon_days",
    "reminders.catch_up_minutes",
    "reminders.tick_seconds",
    "reminders.retry_attempts",
    "reminders.retry_backoff_seconds",
    "push.allow_endpoints",
    "push.timeout_seconds",
    "channels.timeout_seconds",
    "channels.allow_networks",
    "telegram.bot_token",
    "telegram.api_url",
    "oidc.issuer",
    "oidc.client_id",
    "oidc.client_secret",
    "oidc.scopes",
    "oidc.button_label",
    "oidc.auto_register",
    "oidc.allowed_groups",
    "oidc.groups_claim",
    "oidc.disable_password_login",
    "mqtt.url",
    "mqtt.discovery_prefix",
    "mqtt.base_topic",
    "backup.daily",
    "backup.keep",
    "auth.proxy_header",
    "auth.proxy_email_header",
    "auth.trusted_proxies",
    "auth.proxy_auto_register",
    "http.header_timeout_seconds",
    "http.idle_timeout_seconds",
    "http.body_timeout_seconds",
    "http.max_connections",
    "health.min_free_bytes",
    "health.dispatcher_stale_seconds",
    "log.level",
    "log.format",
];

/// `PILLBOX_*` variables that are not config keys but are read by the CLI itself; debug
/// builds also read the test-only ones: `PILLBOX_TEST_CLOCK` (http/test_clock.rs),
/// `PILLBOX_TEST_CLOCK_START` (cli/serve.rs) and `PILLBOX_TEST_TLS_RELOAD_MS` (http/tls.rs).
#[cfg(not(debug_assertions))]
const CLI_VARIABLES: &[&str] = &["config"];
#[cfg(debug_assertions)]
const CLI_VARIABLES: &[&str] = &["config", "test_clock", "test_clock_start", "test_tls_reload_ms"];
/// Read by debug builds only; a release build says it ignores them.
const TEST_VARIABLES: &[&str] = &["test_clock", "test_clock_start", "test_tls_reload_ms"];

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    pub bind: SocketAddr,
    #[serde(deserialize_with = "lenient::opt_string")]
    pub public_url: Option<String>,
    pub data_dir: Option<PathBuf>,
    pub signups: Signups,
    /// New accounts per client address per hour while sign-ups are open.
    pub registration_limit: u32,
    /// Reverse proxies whose `X-Forwarded-For` is believed (addresses or CIDR blocks).
    #[serde(deserialize_with = "lenient::string_list")]
    pub trusted_proxies: Vec<String>,
    /// HTTPS: a PEM certificate chain and its private key, read again when they change.
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    pub smtp: SmtpSettings,
    pub vapid: VapidSettings,
    pub reminders: ReminderSettings,
    pub push: PushSettings,
    pub channels: ChannelSettings,
    pub telegram: TelegramSettings,
    pub oidc: OidcSettings,
    pub mqtt: MqttSettings,
    pub backup: BackupSettings,
    pub auth: AuthSettings,
    pub http: HttpSettings,
    pub health: HealthSettings,
    pub log: LogSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            bind: SocketAddr::from(([127, 0, 0, 1], 3001)),
            public_url: None,
            data_dir: None,
            signups: Signups::FirstUser,
            registration_limit: 10,
            trusted_proxies: Vec::new(),
            tls_cert: None,
            tls_key: None,
            smtp: SmtpSettings::default(),
            vapid: VapidSettings::default(),
            reminders: ReminderSettings::default(),
            push: PushSettings::default(),
            channels: ChannelSettings::default(),
            telegram: TelegramSettings::default(),
            oidc: OidcSettings::default(),
            mqtt: MqttSettings::default(),
            backup: BackupSettings::default(),
            auth: AuthSettings::default(),
            http: HttpSettings::default(),
            health: HealthSettings::default(),
            log: LogSettings::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Signups {
    /// Open until the first account exists, then only to an address registering with the
    /// token of its open care invitation (services::accounts::register).
    FirstUser,
    Open,
    Closed,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SmtpSettings {
    #[serde(deserialize_with = "lenient::opt_string")]
    pub host: Option<String>,
    /// Defaults by TLS mode: 587 (starttls), 465 (tls), 25 (none).
    pub port: Option<u16>,
    pub tls: SmtpTls,
    #[serde(deserialize_with = "lenient::opt_string")]
    pub user: Option<String>,
    #[serde(deserialize_with = "lenient::opt_string")]
    pub password: Option<String>,
    #[serde(deserialize_with = "lenient::opt_string")]
    pub from: Option<String>,
    /// The most one e-mail may take, connection to goodbye (default 30 s): a mail server
    /// that accepts and then says nothing must not hold reminders or shutdown.
    pub timeout_seconds: Option<u64>,
}

impl SmtpSettings {
    pub const DEFAULT_TIMEOUT_SECONDS: u64 = 30;

    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(
            self.timeout_seconds
                .unwrap_or(Self::DEFAULT_TIMEOUT_SECONDS)
                .clamp(1, 600),
        )
    }

    pub fn port_or_default(&self) -> u16 {
        self.port.unwrap_or(match self.tls {
            SmtpTls::None => 25,
            SmtpTls::Starttls => 587,
            SmtpTls::Tls => 465,
        })
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SmtpTls {
    None,
    #[default]
    Starttls,
    Tls,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VapidSettings {
    /// `mailto:` or `https:` contact the push services may use; defaults to a mailto built
    /// from `smtp.from`, else `public_url`.
    #[serde(deserialize_with = "lenient::opt_string")]
    pub subject: Option<String>,
    #[serde(deserialize_with = "lenient::opt_string")]
    pub public_key: Option<String>,
    #[serde(deserialize_with = "lenient::opt_string")]
    pub private_key: Option<String>,
}

/// How many days ahead reminders are planned by default (the spec's `days_ahead`).
pub const HORIZON_DAYS: u32 = 7;
/// The furthest ahead reminders can be planned, by configuration or by request.
pub const MAX_DAYS_AHEAD: u32 = 31;

/// The reminder engine (DESIGN §4).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReminderSettings {
    /// Days of reminders kept planned ahead per medication.
    pub horizon_days: u32,
    /// A reminder that came due while the server was down is still sent this many minutes
    /// late; older ones are marked failed ("expired").
    pub catch_up_minutes: u32,
    /// How often the dispatcher looks for due reminders.
    pub tick_seconds: u32,
    /// Delivery rounds before a reminder that no channel took is marked failed.
    pub retry_attempts: u32,
    /// The wait after the first failed round; it doubles after each further one.
    pub retry_backoff_seconds: u32,
}

impl Default for ReminderSettings {
    fn default() -> Self {
        ReminderSettings {
            horizon_days: HORIZON_DAYS,
            catch_up_minutes: 60,
            tick_seconds: 30,
            retry_attempts: 5,
            retry_backoff_seconds: 60,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PushSettings {
    /// URL prefixes accepted for push subscriptions besides the browsers' push services.
    #[serde(deserialize_with = "lenient::string_list")]
    pub allow_endpoints: Vec<String>,
    /// One push (connection and answer) must end within this many seconds; a push that
    /// did not is sent again in the next round, with the same Topic.
    pub timeout_seconds: u32,
}

impl Default for PushSettings {
    fn default() -> Self {
        PushSettings {
            allow_endpoints: Vec::new(),
            timeout_seconds: 15,
        }
    }
}

/// Channels (ntfy, Gotify, Telegram, webhooks): how long one send may take, and which
/// private networks a person's channel may reach.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ChannelSettings {
    /// The whole send (name lookup, connection, answer) must end within this many seconds.
    pub timeout_seconds: u32,
    /// Private networks (CIDR blocks) and host names a channel's URL may reach, e.g. a LAN
    /// ntfy: `["192.168.0.0/16", "ntfy.lan"]`. Other private, loopback and link-local
    /// addresses are refused; cloud metadata addresses always are.
    #[serde(deserialize_with = "lenient::string_list")]
    pub allow_networks: Vec<String>,
}

impl Default for ChannelSettings {
    fn default() -> Self {
        ChannelSettings {
            timeout_seconds: 10,
            allow_networks: Vec::new(),
        }
    }
}

/// The instance's Telegram bot (one for everyone): people link their chats to it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TelegramSettings {
    #[serde(deserialize_with = "lenient::opt_string")]
    pub bot_token: Option<String>,
    /// The Bot API's address (a local Bot API server, or a test double).
    pub api_url: String,
}

impl Default for TelegramSettings {
    fn default() -> Self {
        TelegramSettings {
            bot_token: None,
            api_url: "https://api.telegram.org".into(),
        }
    }
}

/// Sign-in through an OpenID Connect provider (Authelia, Authentik, Keycloak, Pocket ID,
/// kanidm): off unless `issuer` is set.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OidcSettings {
    /// The provider's issuer URL; its `/.well-known/openid-configuration` is read.
    #[serde(deserialize_with = "lenient::opt_string")]
    pub issuer: Option<String>,
    #[serde(deserialize_with = "lenient::opt_string")]
    pub client_id: Option<String>,
    #[serde(deserialize_with = "lenient::opt_string")]
    pub client_secret: Option<String>,
    /// Space-separated; `openid` is always asked for.
    pub scopes: String,
    /// The sign-in button says "Sign in with <button_label>".
    pub button_label: String,
    /// An unknown identity gets an account of its own (else the administrator must allow it).
    pub auto_register: bool,
    /// When not empty, only identities in one of these groups sign in.
    #[serde(deserialize_with = "lenient::string_list")]
    pub allowed_groups: Vec<String>,
    /// The ID token's claim that lists the identity's groups.
    pub groups_claim: String,
    /// The sign-in page offers only the provider (`/login?local=1` still shows the form).
    pub disable_password_login: bool,
}

impl Default for OidcSettings {
    fn default() -> Self {
        OidcSettings {
            issuer: None,
            client_id: None,
            client_secret: None,
            scopes: "openid email profile".into(),
            button_label: "OpenID Connect".into(),
            auto_register: false,
            allowed_groups: Vec::new(),
            groups_claim: "groups".into(),
            disable_password_login: false,
        }
    }
}

impl OidcSettings {
    fn validate(&self, public_url: Option<&str>) -> Result<(), ConfigError> {
        let Some(issuer) = &self.issuer else {
            if self.disable_password_login {
                return Err(config_error(
                    "oidc.disable_password_login needs oidc.issuer: without a provider nobody could sign in",
                ));
            }
            return Ok(());
        };
        let url = reqwest::Url::parse(issuer).map_err(|e| {
            config_error(format!(
                "oidc.issuer \"{issuer}\" is not a URL ({e}), e.g. https://auth.example.com"
            ))
        })?;
        let loopback = match url.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            Some(url::Host::Domain(name)) => name == "localhost",
            None => false,
        };
        if url.scheme() != "https" && !(url.scheme() == "http" && loopback) {
            return Err(config_error(format!(
                "oidc.issuer must be an https:// URL (got \"{issuer}\"); http:// is allowed only on a loopback address"
            )));
        }
        if self.client_id.is_none() {
            return Err(config_error(
                "oidc.client_id is required when oidc.issuer is set (PILLBOX_OIDC_CLIENT_ID)",
            ));
        }
        if public_url.is_none() {
            return Err(config_error(
                "public_url is required when oidc.issuer is set: the provider returns to \
                 <public_url>/api/auth/oidc/callback, e.g. public_url = \"https://pillbox.example.com\"",
            ));
        }
        if self.button_label.trim().is_empty() || self.button_label.chars().count() > 60 {
            return Err(config_error("oidc.button_label must be 1 to 60 characters"));
        }
        if self.groups_claim.trim().is_empty() {
            return Err(config_error("oidc.groups_claim must not be empty"));
        }
        Ok(())
    }
}

/// Home Assistant by MQTT discovery (issue 28): off unless `url` is set.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MqttSettings {
    /// `mqtt://user:password@host:1883` or `mqtts://…` (port 8883 unless given).
    #[serde(deserialize_with = "lenient::opt_string")]
    pub url: Option<String>,
    /// Where Home Assistant listens for discovery configs.
    pub discovery_prefix: String,
    /// Pillbox's own topics (availability, states, button commands) start with this.
    pub base_topic: String,
}

impl Default for MqttSettings {
    fn default() -> Self {
        MqttSettings {
            url: None,
            discovery_prefix: "homeassistant".into(),
            base_topic: "pillbox".into(),
        }
    }
}

/// `mqtt.url` taken apart: where the broker is and how to log in.
#[derive(Clone, PartialEq, Eq)]
pub struct Broker {
    pub host: String,
    pub port: u16,
    /// `mqtts://`: TLS, the broker's certificate checked against the system's roots.
    pub tls: bool,
    pub username: Option<String>,
    pub password: Option<String>,
}

impl fmt::Debug for Broker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the password: this ends up in logs.
        write!(f, "{}", self.address())
    }
}

impl Broker {
    /// `mqtt(s)://[user@]host:port`, without the password.
    pub fn address(&self) -> String {
        let scheme = if self.tls { "mqtts" } else { "mqtt" };
        let user = self
            .username
            .as_deref()
            .map(|u| format!("{u}@"))
            .unwrap_or_default();
        format!("{scheme}://{user}{}:{}", self.host, self.port)
    }
}

impl MqttSettings {
    /// The broker, `None` when MQTT is off; a setting that cannot work names its key.
    pub fn broker(&self) -> Result<Option<Broker>, ConfigError> {
        let Some(text) = &self.url else {
            return Ok(None);
        };
        let example = "e.g. mqtt://pillbox:secret@192.168.1.10:1883 or mqtts://broker.example.com";
        let url = url::Url::parse(text.trim())
            .map_err(|e| config_error(format!("mqtt.url is not a URL ({e}); {example}")))?;
        let tls = match url.scheme() {
            "mqtt" | "tcp" => false,
            "mqtts" | "ssl" => true,
            other => {
                return Err(config_error(format!(
                    "mqtt.url must start with mqtt:// or mqtts:// (got {other}://); {example}"
                )));
            }
        };
        let host = match url.host() {
            Some(url::Host::Domain(name)) if !name.is_empty() => name.to_owned(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            _ => return Err(config_error(format!("mqtt.url has no host name; {example}"))),
        };
        // The path, query and fragment together: none of them may be there.
        if !matches!(&url[url::Position::BeforePath..], "" | "/") {
            return Err(config_error(format!(
                "mqtt.url must name only the broker (no path or query); {example}"
            )));
        }
        let username = Some(url.username())
            .filter(|u| !u.is_empty())
            .map(percent_decoded);
        let password = url.password().map(percent_decoded);
        if password.is_some() && username.is_none() {
            return Err(config_error(format!(
                "mqtt.url has a password but no user name; {example}"
            )));
        }
        for (key, value) in [
            ("mqtt.discovery_prefix", &self.discovery_prefix),
            ("mqtt.base_topic", &self.base_topic),
        ] {
            let bad = value.is_empty()
                || value.starts_with('/')
                || value.ends_with('/')
                || value.contains("//")
                || value.contains(['+', '#', ' ', '\0']);
            if bad {
                return Err(config_error(format!(
                    "{key} \"{value}\" is not a usable MQTT topic prefix: use letters, digits, - and _ \
                     (and / between levels), without + or #"
                )));
            }
        }
        Ok(Some(Broker {
            host,
            port: url.port().unwrap_or(if tls { 8883 } else { 1883 }),
            tls,
            username,
            password,
        }))
    }
}

/// A URL's user or password as typed: `%40` is `@` (and `+` stays `+`).
fn percent_decoded(part: &str) -> String {
    let bytes = part.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(high), Some(low)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push(u8::try_from(high * 16 + low).unwrap_or(b'?'));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The instance's own daily snapshot (`pillbox backup` takes one on demand).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BackupSettings {
    /// Whether `serve` writes a snapshot to the data directory's `backups/` once a day.
    pub daily: bool,
    /// How many daily snapshots are kept.
    pub keep: u32,
}

impl Default for BackupSettings {
    fn default() -> Self {
        BackupSettings { daily: true, keep: 7 }
    }
}

/// Sign-in by an authenticating reverse proxy (Authelia, Authentik, Caddy's basicauth): the
/// proxy names the person in a header, believed only from `trusted_proxies`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuthSettings {
    /// The header the proxy names the signed-in person in (e.g. `Remote-User`).
    #[serde(deserialize_with = "lenient::opt_string")]
    pub proxy_header: Option<String>,
    /// The header with the person's e-mail address (e.g. `Remote-Email`); when set, the
    /// account is found by it instead of by `proxy_header`'s value.
    #[serde(deserialize_with = "lenient::opt_string")]
    pub proxy_email_header: Option<String>,
    /// The proxies (addresses or CIDR blocks) whose header is believed; empty: off.
    #[serde(deserialize_with = "lenient::string_list")]
    pub trusted_proxies: Vec<String>,
    /// Whether a person the proxy names without an account here gets one.
    pub proxy_auto_register: bool,
}

/// `auth.*` checked and parsed: what the server needs to believe a proxy's header.
#[derive(Debug, Clone)]
pub struct ProxySignIn {
    pub header: axum::http::HeaderName,
    pub email_header: Option<axum::http::HeaderName>,
    pub trusted: Vec<IpNet>,
    pub auto_register: bool,
}

impl AuthSettings {
    /// The proxy sign-in, `None` when off; a setting that cannot work names its key.
    pub fn proxy_sign_in(&self) -> Result<Option<ProxySignIn>, ConfigError> {
        let header = self
            .proxy_header
            .as_deref()
            .map(|name| header_name("auth.proxy_header", name))
            .transpose()?;
        let email_header = self
            .proxy_email_header
            .as_deref()
            .map(|name| header_name("auth.proxy_email_header", name))
            .transpose()?;
        let trusted = self
            .trusted_proxies
            .iter()
            .map(|entry| {
                parse_net(entry).map_err(|e| {
                    config_error(format!(
                        "auth.trusted_proxies: {e}; list the addresses or CIDR blocks of the proxy that signs people in, e.g. [\"127.0.0.1\"]"
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let Some(header) = header else {
            if !trusted.is_empty() || email_header.is_some() || self.proxy_auto_register {
                return Err(config_error(
                    "auth.proxy_header is not set, but auth.trusted_proxies, auth.proxy_email_header or \
                     auth.proxy_auto_register is: set auth.proxy_header (PILLBOX_AUTH_PROXY_HEADER) to the header \
                     your proxy names the person in, e.g. \"Remote-User\", or remove the others",
                ));
            }
            return Ok(None);
        };
        if trusted.is_empty() {
            return Err(config_error(
                "auth.proxy_header is set but auth.trusted_proxies is empty: list the proxy's addresses \
                 (PILLBOX_AUTH_TRUSTED_PROXIES), e.g. [\"127.0.0.1\"], or anyone could name themselves in the header",
            ));
        }
        Ok(Some(ProxySignIn {
            header,
            email_header,
            trusted,
            auto_register: self.proxy_auto_register,
        }))
    }
}

fn header_name(key: &str, name: &str) -> Result<axum::http::HeaderName, ConfigError> {
    axum::http::HeaderName::from_bytes(name.trim().as_bytes()).map_err(|_| {
        config_error(format!(
            "{key}: \"{name}\" is not a valid HTTP header name; use letters, digits and dashes, e.g. \"Remote-User\""
        ))
    })
}

/// How long the server waits for clients, and how many it holds at once (http/server.rs).
/// Out-of-range values are clamped.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpSettings {
    /// A request's headers must arrive within this many seconds of its first byte.
    pub header_timeout_seconds: u64,
    /// A connection with no request under way is closed after this many seconds.
    pub idle_timeout_seconds: u64,
    /// A request's body must arrive within this many seconds of its headers.
    pub body_timeout_seconds: u64,
    /// Open connections at most; the limit on open files may lower it.
    pub max_connections: u64,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            header_timeout_seconds: 10,
            idle_timeout_seconds: 60,
            body_timeout_seconds: 60,
            max_connections: 4096,
        }
    }
}

impl HttpSettings {
    pub fn header_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.header_timeout_seconds.clamp(1, 300))
    }

    pub fn idle_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.idle_timeout_seconds.clamp(1, 3600))
    }

    pub fn body_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.body_timeout_seconds.clamp(1, 3600))
    }

    pub fn max_connections(&self) -> usize {
        usize::try_from(self.max_connections.clamp(16, 1_000_000)).unwrap_or(1_000_000)
    }
}

/// When `/health` answers 503.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HealthSettings {
    /// The data directory's file system counts as full below this many free bytes.
    pub min_free_bytes: u64,
    /// The dispatcher counts as stuck when no pass has ended for this long (and never
    /// less than two ticks).
    pub dispatcher_stale_seconds: u64,
}

impl Default for HealthSettings {
    fn default() -> Self {
        HealthSettings {
            min_free_bytes: 32 * 1024 * 1024,
            dispatcher_stale_seconds: 120,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LogSettings {
    /// A tracing filter: `info`, `debug`, or directives such as `pillbox=debug,tower_http=info`.
    pub level: String,
    pub format: LogFormat,
}

impl Default for LogSettings {
    fn default() -> Self {
        LogSettings {
            level: "info".into(),
            format: LogFormat::Plain,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    #[default]
    Plain,
    Json,
}

/// Values given on the command line; they win over everything else.
#[derive(Debug, Default)]
pub struct Overrides {
    pub config_file: Option<PathBuf>,
    pub data_dir: Option<PathBuf>,
    pub bind: Option<SocketAddr>,
}

/// A configuration problem, phrased for the operator: which key, where, and what to do.
#[derive(Debug)]
pub struct ConfigError(String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

fn config_error(message: impl Into<String>) -> ConfigError {
    ConfigError(message.into())
}

/// Loaded settings plus the warnings that could only be logged once logging is set up.
pub struct Loaded {
    pub settings: Settings,
    pub warnings: Vec<String>,
}

impl Settings {
    /// Reads the file, the process environment and the flags, then validates the result.
    pub fn load(overrides: &Overrides) -> Result<Loaded, ConfigError> {
        let env: Vec<(String, String)> = std::env::vars().collect();
        Self::load_from(overrides, &env)
    }

    fn load_from(overrides: &Overrides, env: &[(String, String)]) -> Result<Loaded, ConfigError> {
        let mut figment = Figment::from(Serialized::defaults(Settings::default()));
        if let Some(path) = &overrides.config_file {
            if !path.is_file() {
                return Err(config_error(format!(
                    "config file {} does not exist (given by --config or PILLBOX_CONFIG)",
                    path.display()
                )));
            }
            figment = figment.merge(Toml::file_exact(path));
        }
        let (env_values, warnings) = env_layer(env)?;
        figment = figment.merge(Layer {
            name: "PILLBOX_* environment variables",
            values: env_values,
        });
        let mut flags = Dict::new();
        if let Some(data_dir) = &overrides.data_dir {
            flags.insert("data_dir".into(), Value::from(data_dir.display().to_string()));
        }
        if let Some(bind) = overrides.bind {
            flags.insert("bind".into(), Value::from(bind.to_string()));
        }
        figment = figment.merge(Layer {
            name: "command-line flags",
            values: flags,
        });
        let settings: Settings = figment.extract().map_err(describe_figment_error)?;
        settings.validate()?;
        Ok(Loaded { settings, warnings })
    }

    fn validate(&self) -> Result<(), ConfigError> {
        self.trusted_proxy_nets()?;
        self.auth.proxy_sign_in()?;
        if let Some(url) = &self.public_url {
            validate_public_url(url)?;
        }
        if self.tls_cert.is_some() != self.tls_key.is_some() {
            return Err(config_error(
                "tls_cert and tls_key go together: set both (PILLBOX_TLS_CERT and PILLBOX_TLS_KEY) to serve HTTPS, or neither",
            ));
        }
        if self.smtp.host.is_some() && self.smtp.from.is_none() {
            return Err(config_error(
                "smtp.from is required when smtp.host is set: set it to the sender address, \
                 e.g. from = \"Pillbox <pillbox@example.com>\" (PILLBOX_SMTP_FROM)",
            ));
        }
        if let Some(subject) = &self.vapid.subject
            && !(subject.starts_with("mailto:") || subject.starts_with("https://"))
        {
            return Err(config_error(format!(
                "vapid.subject must be a mailto: or https: URL (got \"{subject}\"), e.g. mailto:admin@example.com"
            )));
        }
        let r = &self.reminders;
        if !(1..=MAX_DAYS_AHEAD).contains(&r.horizon_days) {
            return Err(config_error(format!(
                "reminders.horizon_days must be between 1 and {MAX_DAYS_AHEAD}"
            )));
        }
        if !(1..=3600).contains(&r.tick_seconds) {
            return Err(config_error("reminders.tick_seconds must be between 1 and 3600"));
        }
        if !(1..=20).contains(&r.retry_attempts) {
            return Err(config_error("reminders.retry_attempts must be between 1 and 20"));
        }
        if !(1..=3600).contains(&r.retry_backoff_seconds) {
            return Err(config_error(
                "reminders.retry_backoff_seconds must be between 1 and 3600",
            ));
        }
        if !(1..=365).contains(&self.backup.keep) {
            return Err(config_error("backup.keep must be between 1 and 365"));
        }
        // Under the dispatcher's claim (10 minutes), which must outlive any push.
        if !(1..=300).contains(&self.push.timeout_seconds) {
            return Err(config_error("push.timeout_seconds must be between 1 and 300"));
        }
        if let Some(prefix) = self.push.allow_endpoints.iter().find(|p| {
            !(p.starts_with("https://") || p.starts_with("http://"))
                || reqwest::Url::parse(p).map_or(true, |u| u.host_str().is_none())
        }) {
            return Err(config_error(format!(
                "push.allow_endpoints: \"{prefix}\" is not an http(s) URL prefix, e.g. \"http://127.0.0.1:8080/push/\""
            )));
        }
        self.oidc.validate(self.public_url.as_deref())?;
        self.mqtt.broker()?;
        if let Err(e) = self.log.level.parse::<tracing_subscriber::filter::Targets>() {
            return Err(config_error(format!(
                "log.level \"{}\" is not a valid filter ({e}); use error, warn, info, debug or trace",
                self.log.level
            )));
        }
        Ok(())
    }

    pub fn trusted_proxy_nets(&self) -> Result<Vec<IpNet>, ConfigError> {
        self.trusted_proxies
            .iter()
            .map(|entry| {
                parse_net(entry).map_err(|e| {
                    config_error(format!(
                        "trusted_proxies: {e}; list addresses or CIDR blocks, e.g. [\"127.0.0.1\"]"
                    ))
                })
            })
            .collect()
    }

    /// The origin used in links (e-mails, push): `public_url`, else the bind address.
    pub fn link_base(&self) -> String {
        match self.public_base_url() {
            Some(url) => url.to_owned(),
            None => format!("{}://{}", self.scheme(), self.bind),
        }
    }

    /// `https` when the server serves TLS itself, else `http`.
    pub fn scheme(&self) -> &'static str {
        if self.tls_cert.is_some() { "https" } else { "http" }
    }

    /// `public_url` without a trailing slash, if configured.
    pub fn public_base_url(&self) -> Option<&str> {
        self.public_url.as_deref().map(|u| u.trim_end_matches('/'))
    }

    /// The data directory: configured, else the platform's data dir (`~/.local/share/pillbox`).
    pub fn resolved_data_dir(&self) -> Result<PathBuf, ConfigError> {
        if let Some(dir) = &self.data_dir {
            return Ok(dir.clone());
        }
        directories::ProjectDirs::from("", "", "pillbox")
            .map(|dirs| dirs.data_dir().to_path_buf())
            .ok_or_else(|| {
                config_error("no home directory to put the data in: set --data-dir or PILLBOX_DATA_DIR")
            })
    }
}

/// Maps an env variable (prefix stripped, lower-cased) to a config key path, if it is one.
fn env_key_to_path(key: &str) -> Option<String> {
    KEYS.iter()
        .find(|path| path.replace('.', "_") == key)
        .map(|p| (*p).to_owned())
}

/// A layer of values with a name that error messages can point at.
struct Layer {
    name: &'static str,
    values: Dict,
}

impl Provider for Layer {
    fn metadata(&self) -> Metadata {
        Metadata::named(self.name)
    }

    fn data(&self) -> Result<Map<Profile, Dict>, figment::Error> {
        Ok(Profile::Default.collect(self.values.clone()))
    }
}

/// The environment layer: `PILLBOX_<KEY>` values (typed the way figment reads them) and
/// `PILLBOX_<KEY>_FILE` contents (always text), plus warnings for unknown `PILLBOX_*` names.
fn env_layer(env: &[(String, String)]) -> Result<(Dict, Vec<String>), ConfigError> {
    let mut values = Dict::new();
    let mut warnings = Vec::new();
    for (name, value) in env {
        let Some(rest) = name.strip_prefix(ENV_PREFIX) else {
            continue;
        };
        let key = rest.to_ascii_lowercase();
        if CLI_VARIABLES.contains(&key.as_str()) {
            continue;
        }
        if TEST_VARIABLES.contains(&key.as_str()) {
            warnings.push(format!("ignoring {name}: only debug builds (the tests) read it"));
            continue;
        }
        if let Some(path) = env_key_to_path(&key) {
            let typed: Value = value.parse().unwrap_or_else(|_| Value::from(value.clone()));
            insert_path(&mut values, &path, typed);
            continue;
        }
        let Some(path) = key.strip_suffix("_file").and_then(env_key_to_path) else {
            warnings.push(format!("ignoring unknown environment variable {name}"));
            continue;
        };
        let contents = std::fs::read_to_string(value)
            .map_err(|e| config_error(format!("{name}: cannot read {value}: {e}")))?;
        insert_path(
            &mut values,
            &path,
            Value::from(contents.trim_end_matches(['\r', '\n']).to_owned()),
        );
    }
    Ok((values, warnings))
}

fn insert_path(dict: &mut Dict, path: &str, value: Value) {
    match path.split_once('.') {
        None => {
            dict.insert(path.to_owned(), value);
        }
        Some((section, key)) => {
            let entry = dict
                .entry(section.to_owned())
                .or_insert_with(|| Value::from(Dict::new()));
            if let Value::Dict(_, inner) = entry {
                insert_path(inner, key, value);
            }
        }
    }
}

fn describe_figment_error(err: figment::Error) -> ConfigError {
    let key = err
        .path
        .iter()
        .filter(|segment| segment.as_str() != "default")
        .cloned()
        .collect::<Vec<_>>()
        .join(".");
    let source = err
        .metadata
        .as_ref()
        .map(|m| match &m.source {
            Some(source) => format!(" (from {source})"),
            None => format!(" (from {})", m.name),
        })
        .unwrap_or_default();
    let message = match &err.kind {
        figment::error::Kind::UnknownField(field, _) => {
            // figment's path already ends with the unknown field.
            let full = if key.is_empty() {
                field.clone()
            } else {
                key.clone()
            };
            format!(
                "unknown configuration key `{full}`{source}: remove it or check its spelling; \
                 examples/config.toml lists every key"
            )
        }
        kind => format!("configuration key `{key}`{source}: {kind}"),
    };
    config_error(message)
}

/// Pillbox links (e-mail, push, take links) are built from `public_url`; it must name a host
/// of its own. Sub-path hosting is refused rather than half-supported.
fn validate_public_url(url: &str) -> Result<(), ConfigError> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| {
            config_error(format!(
                "public_url must start with https:// or http:// (got \"{url}\"), e.g. https://pillbox.example.com"
            ))
        })?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    if authority.is_empty() || authority.contains(['@', '?', '#', ' ']) {
        return Err(config_error(format!(
            "public_url \"{url}\" has no valid host name, e.g. https://pillbox.example.com"
        )));
    }
    if !path.is_empty() && path != "/" {
        return Err(config_error(format!(
            "public_url must not contain a path (got \"{path}\" in \"{url}\"): Pillbox needs a host name \
             of its own, e.g. https://pillbox.example.com, not a sub-path behind a proxy"
        )));
    }
    Ok(())
}

/// Env and file values arrive as text that figment may read as a number (`PASSWORD=123456`);
/// string settings accept any scalar, and an empty string counts as unset.
mod lenient {
    use serde::{Deserialize, Deserializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Scalar {
        Text(String),
        Unsigned(u64),
        Signed(i64),
        Float(f64),
        Bool(bool),
    }

    pub fn opt_string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
        let text = Option::<Scalar>::deserialize(deserializer)?.map(|scalar| match scalar {
            Scalar::Text(s) => s,
            Scalar::Unsigned(n) => n.to_string(),
            Scalar::Signed(n) => n.to_string(),
            Scalar::Float(n) => n.to_string(),
            Scalar::Bool(b) => b.to_string(),
        });
        // An empty value means "not set", as an empty environment variable does.
        Ok(text.filter(|s| !s.is_empty()))
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum List {
        Many(Vec<String>),
        One(String),
    }

    /// A TOML list, or one comma-separated string as environment variables give it.
    pub fn string_list<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
        Ok(match List::deserialize(deserializer)? {
            List::Many(items) => items,
            List::One(text) => text
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
        })
    }
}

/// Resolves a possibly relative path against the current directory, for messages.
pub fn display_path(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// An entry of `trusted_proxies`: a CIDR block, or a single address (a block of one).
pub fn parse_net(text: &str) -> Result<IpNet, String> {
    if let Ok(net) = text.trim().parse::<IpNet>() {
        return Ok(net);
    }
    let (address, prefix) = match text.trim().split_once('/') {
        Some((a, p)) => (a, Some(p)),
        None => (text, None),
    };
    let address: IpAddr = address
        .trim()
        .parse()
        .map_err(|_| format!("\"{text}\" is not an IP address"))?;
    match prefix {
        // The address is fine, so only the prefix can be wrong.
        Some(_) => Err(format!("\"{text}\" has a bad prefix length")),
        None => Ok(IpNet::from(address)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(env: &[(&str, &str)], overrides: Overrides) -> Result<Settings, ConfigError> {
        let env: Vec<_> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Settings::load_from(&overrides, &env).map(|l| l.settings)
    }

    fn write_file(dir: &tempfile::TempDir, name: &str, contents: &str) -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, contents).unwrap();
        path
    }

    #[test]
    fn defaults_without_any_configuration() {
        let s = load(&[], Overrides::default()).unwrap();
        assert_eq!(s.bind.to_string(), "127.0.0.1:3001");
        assert_eq!(s.signups, Signups::FirstUser);
        assert_eq!(s.smtp.tls, SmtpTls::Starttls);
        assert_eq!(s.smtp.port_or_default(), 587);
        assert!(s.public_url.is_none());
        assert!(s.resolved_data_dir().unwrap().ends_with("pillbox"));
    }

    #[test]
    fn flags_beat_env_beat_file_beat_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let file = write_file(
            &dir,
            "c.toml",
            "bind = \"127.0.0.1:4000\"\nsignups = \"open\"\n[smtp]\nhost = \"file.example\"\nfrom = \"a@b.c\"\nport = 2525\n",
        );
        let overrides = Overrides {
            config_file: Some(file.clone()),
            ..Default::default()
        };
        let s = load(&[("PILLBOX_SMTP_HOST", "env.example")], overrides).unwrap();
        assert_eq!(s.bind.to_string(), "127.0.0.1:4000");
        assert_eq!(s.signups, Signups::Open);
        assert_eq!(s.smtp.host.as_deref(), Some("env.example"));
        assert_eq!(s.smtp.port, Some(2525));

        let overrides = Overrides {
            config_file: Some(file),
            bind: Some("0.0.0.0:5000".parse().unwrap()),
            data_dir: Some("/srv/pillbox".into()),
        };
        let s = load(
            &[("PILLBOX_BIND", "127.0.0.1:4500"), ("PILLBOX_DATA_DIR", "/env")],
            overrides,
        )
        .unwrap();
        assert_eq!(s.bind.to_string(), "0.0.0.0:5000");
        assert_eq!(s.data_dir.as_deref(), Some(Path::new("/srv/pillbox")));
    }

    #[test]
    fn env_twins_cover_sections_and_numbers_as_text() {
        let s = load(
            &[
                ("PILLBOX_PUBLIC_URL", "https://pills.example.org/"),
                ("PILLBOX_SMTP_HOST", "mail.example.org"),
                ("PILLBOX_SMTP_PORT", "465"),
                ("PILLBOX_SMTP_TLS", "tls"),
                ("PILLBOX_SMTP_FROM", "pillbox@example.org"),
                ("PILLBOX_SMTP_PASSWORD", "123456"),
                ("PILLBOX_SIGNUPS", "closed"),
                ("PILLBOX_LOG_FORMAT", "json"),
                ("PILLBOX_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8"),
            ],
            Overrides::default(),
        )
        .unwrap();
        assert_eq!(s.public_base_url(), Some("https://pills.example.org"));
        assert_eq!(s.smtp.port_or_default(), 465);
        assert_eq!(s.smtp.tls, SmtpTls::Tls);
        assert_eq!(s.smtp.password.as_deref(), Some("123456"));
        assert_eq!(s.signups, Signups::Closed);
        assert_eq!(s.log.format, LogFormat::Json);
        assert_eq!(s.trusted_proxies, vec!["127.0.0.1", "10.0.0.0/8"]);
        let err = load(&[("PILLBOX_TRUSTED_PROXIES", "my-proxy")], Overrides::default()).unwrap_err();
        assert!(err.to_string().contains("trusted_proxies"), "{err}");
    }

    #[test]
    fn secrets_come_from_file_variables() {
        let dir = tempfile::tempdir().unwrap();
        let secret = write_file(&dir, "pw", "s3cret with spaces\n");
        let s = load(
            &[("PILLBOX_SMTP_PASSWORD_FILE", secret.to_str().unwrap())],
            Overrides::default(),
        )
        .unwrap();
        assert_eq!(s.smtp.password.as_deref(), Some("s3cret with spaces"));

        let err = load(
            &[("PILLBOX_SMTP_PASSWORD_FILE", "/nonexistent/pw")],
            Overrides::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("PILLBOX_SMTP_PASSWORD_FILE"), "{err}");
    }

    #[test]
    fn unknown_env_variables_warn_but_do_not_stop() {
        let env = vec![("PILLBOX_SMTP_HOTS".to_string(), "x".to_string())];
        let loaded = Settings::load_from(&Overrides::default(), &env).unwrap();
        assert_eq!(
            loaded.warnings,
            vec!["ignoring unknown environment variable PILLBOX_SMTP_HOTS"]
        );
    }

    #[test]
    fn unknown_file_key_names_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = write_file(&dir, "c.toml", "[smtp]\nhots = \"x\"\n");
        let err = load(
            &[],
            Overrides {
                config_file: Some(file),
                ..Default::default()
            },
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("unknown configuration key `smtp.hots`"), "{text}");
        assert!(text.contains("c.toml"), "{text}");
    }

    #[test]
    fn bad_values_name_the_key() {
        let err = load(&[("PILLBOX_SIGNUPS", "sometimes")], Overrides::default()).unwrap_err();
        assert!(err.to_string().contains("`signups`"), "{err}");
        let err = load(&[("PILLBOX_SMTP_TLS", "ssl")], Overrides::default()).unwrap_err();
        assert!(err.to_string().contains("`smtp.tls`"), "{err}");
        let err = load(&[("PILLBOX_BIND", "nowhere")], Overrides::default()).unwrap_err();
        assert!(err.to_string().contains("`bind`"), "{err}");
    }

    #[test]
    fn a_push_may_take_15_seconds_unless_configured_up_to_the_claim() {
        assert_eq!(load(&[], Overrides::default()).unwrap().push.timeout_seconds, 15);
        let s = load(&[("PILLBOX_PUSH_TIMEOUT_SECONDS", "300")], Overrides::default()).unwrap();
        assert_eq!(s.push.timeout_seconds, 300);
        for refused in ["0", "301"] {
            let err = load(&[("PILLBOX_PUSH_TIMEOUT_SECONDS", refused)], Overrides::default()).unwrap_err();
            assert!(err.to_string().contains("push.timeout_seconds"), "{err}");
        }
    }

    #[test]
    fn missing_config_file_is_refused() {
        let err = load(
            &[],
            Overrides {
                config_file: Some("/nope/pillbox.toml".into()),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("/nope/pillbox.toml does not exist"),
            "{err}"
        );
    }

    #[test]
    fn public_url_must_be_a_bare_origin() {
        for ok in [
            "https://pills.example.org",
            "http://localhost:3001/",
            "https://[::1]:8443",
        ] {
            assert!(validate_public_url(ok).is_ok(), "{ok}");
        }
        let err = load(
            &[("PILLBOX_PUBLIC_URL", "https://example.org/pillbox")],
            Overrides::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("must not contain a path"), "{err}");
        for bad in [
            "example.org",
            "ftp://example.org",
            "https://",
            "https://user@host/",
        ] {
            assert!(validate_public_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn http_and_health_settings_have_env_twins_and_are_clamped() {
        let s = load(&[], Overrides::default()).unwrap();
        assert_eq!(s.http.header_timeout().as_secs(), 10);
        assert_eq!(s.http.idle_timeout().as_secs(), 60);
        assert_eq!(s.http.body_timeout().as_secs(), 60);
        assert_eq!(s.http.max_connections(), 4096);
        assert_eq!(s.health.min_free_bytes, 32 * 1024 * 1024);
        let s = load(
            &[
                ("PILLBOX_HTTP_HEADER_TIMEOUT_SECONDS", "0"),
                ("PILLBOX_HTTP_IDLE_TIMEOUT_SECONDS", "99999"),
                ("PILLBOX_HTTP_BODY_TIMEOUT_SECONDS", "5"),
                ("PILLBOX_HTTP_MAX_CONNECTIONS", "3"),
                ("PILLBOX_HEALTH_MIN_FREE_BYTES", "1000"),
                ("PILLBOX_HEALTH_DISPATCHER_STALE_SECONDS", "300"),
            ],
            Overrides::default(),
        )
        .unwrap();
        assert_eq!(s.http.header_timeout().as_secs(), 1);
        assert_eq!(s.http.idle_timeout().as_secs(), 3600);
        assert_eq!(s.http.body_timeout().as_secs(), 5);
        assert_eq!(s.http.max_connections(), 16);
        assert_eq!(s.health.min_free_bytes, 1000);
        assert_eq!(s.health.dispatcher_stale_seconds, 300);
    }

    #[test]
    fn proxy_sign_in_comes_from_file_env_and_file_variables() {
        assert!(
            load(&[], Overrides::default())
                .unwrap()
                .auth
                .proxy_sign_in()
                .unwrap()
                .is_none()
        );
        let dir = tempfile::tempdir().unwrap();
        let file = write_file(
            &dir,
            "c.toml",
            "[auth]\nproxy_header = \"Remote-User\"\ntrusted_proxies = [\"10.0.0.0/8\"]\n",
        );
        let header = write_file(&dir, "email-header", "Remote-Email\n");
        let s = load(
            &[
                ("PILLBOX_AUTH_TRUSTED_PROXIES", "127.0.0.1, ::1"),
                ("PILLBOX_AUTH_PROXY_EMAIL_HEADER_FILE", header.to_str().unwrap()),
                ("PILLBOX_AUTH_PROXY_AUTO_REGISTER", "true"),
            ],
            Overrides {
                config_file: Some(file),
                ..Default::default()
            },
        )
        .unwrap();
        let proxy = s.auth.proxy_sign_in().unwrap().unwrap();
        assert_eq!(proxy.header.as_str(), "remote-user");
        assert_eq!(
            proxy.email_header.map(|h| h.to_string()).as_deref(),
            Some("remote-email")
        );
        assert_eq!(
            proxy.trusted,
            vec![parse_net("127.0.0.1").unwrap(), parse_net("::1").unwrap()]
        );
        assert!(proxy.auto_register);
        // The top-level trusted_proxies (X-Forwarded-For) is another list.
        assert!(s.trusted_proxies.is_empty());
    }

    #[test]
    fn a_proxy_sign_in_that_cannot_work_names_its_key() {
        let refused = |env: &[(&str, &str)], key: &str| {
            let err = load(env, Overrides::default()).unwrap_err();
            assert!(err.to_string().contains(key), "{key}: {err}");
        };
        let trusted = ("PILLBOX_AUTH_TRUSTED_PROXIES", "127.0.0.1");
        let header = ("PILLBOX_AUTH_PROXY_HEADER", "Remote-User");
        refused(
            &[header, ("PILLBOX_AUTH_TRUSTED_PROXIES", "10.0.0.0/33")],
            "auth.trusted_proxies",
        );
        refused(
            &[header, ("PILLBOX_AUTH_TRUSTED_PROXIES", "proxy.lan")],
            "auth.trusted_proxies",
        );
        refused(
            &[("PILLBOX_AUTH_PROXY_HEADER", "Remote User"), trusted],
            "auth.proxy_header",
        );
        refused(
            &[("PILLBOX_AUTH_PROXY_HEADER", "Remote:User"), trusted],
            "auth.proxy_header",
        );
        refused(
            &[header, trusted, ("PILLBOX_AUTH_PROXY_EMAIL_HEADER", "e mail")],
            "auth.proxy_email_header",
        );
        refused(&[header], "auth.trusted_proxies");
        refused(&[trusted], "auth.proxy_header");
        refused(
            &[("PILLBOX_AUTH_PROXY_AUTO_REGISTER", "true")],
            "auth.proxy_header",
        );
        refused(
            &[header, trusted, ("PILLBOX_AUTH_PROXY_AUTO_REGISTER", "sometimes")],
            "auth.proxy_auto_register",
        );
    }

    #[test]
    fn mqtt_is_off_unless_its_url_is_set_and_a_bad_url_names_the_key() {
        let s = load(&[], Overrides::default()).unwrap();
        assert!(s.mqtt.broker().unwrap().is_none());
        assert_eq!(s.mqtt.discovery_prefix, "homeassistant");
        assert_eq!(s.mqtt.base_topic, "pillbox");
        let dir = tempfile::tempdir().unwrap();
        let url = write_file(&dir, "url", "mqtts://ha%40home:p%3Ass+1@broker.lan\n");
        let s = load(
            &[
                ("PILLBOX_MQTT_URL_FILE", url.to_str().unwrap()),
                ("PILLBOX_MQTT_BASE_TOPIC", "home/pillbox"),
            ],
            Overrides::default(),
        )
        .unwrap();
        let broker = s.mqtt.broker().unwrap().unwrap();
        assert_eq!(
            (broker.host.as_str(), broker.port, broker.tls),
            ("broker.lan", 8883, true)
        );
        assert_eq!(broker.username.as_deref(), Some("ha@home"));
        assert_eq!(broker.password.as_deref(), Some("p:ss+1"));
        assert!(!format!("{broker:?}").contains("p:ss"), "no password in logs");
        assert_eq!(s.mqtt.base_topic, "home/pillbox");
        let plain = load(&[("PILLBOX_MQTT_URL", "mqtt://127.0.0.1")], Overrides::default()).unwrap();
        assert_eq!(plain.mqtt.broker().unwrap().unwrap().port, 1883);
        for bad in [
            "broker.lan:1883",
            "http://broker.lan",
            "mqtt://",
            "mqtt://broker.lan/topic",
            "mqtt://:secret@broker.lan",
        ] {
            let err = load(&[("PILLBOX_MQTT_URL", bad)], Overrides::default()).unwrap_err();
            assert!(err.to_string().contains("mqtt.url"), "{bad}: {err}");
        }
        let err = load(
            &[
                ("PILLBOX_MQTT_URL", "mqtt://b"),
                ("PILLBOX_MQTT_BASE_TOPIC", "pill/#"),
            ],
            Overrides::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("mqtt.base_topic"), "{err}");
    }

    #[test]
    fn smtp_without_sender_is_refused() {
        let err = load(&[("PILLBOX_SMTP_HOST", "mail.example.org")], Overrides::default()).unwrap_err();
        assert!(err.to_string().contains("smtp.from"), "{err}");
    }

    #[test]
    fn example_config_documents_every_key_and_parses() {
        let text = include_str!("../examples/config.toml");
        // Every key appears in the example, commented out or not.
        for key in KEYS {
            let leaf = key.rsplit('.').next().unwrap();
            let section = key.split_once('.').map(|(s, _)| s);
            assert!(
                text.lines()
                    .any(|l| l.trim_start_matches(['#', ' ']).starts_with(&format!("{leaf} ="))),
                "examples/config.toml does not document `{key}`"
            );
            if let Some(section) = section {
                assert!(
                    text.contains(&format!("[{section}]")),
                    "missing section [{section}]"
                );
            }
        }
        // The uncommented example is itself a valid configuration.
        let dir = tempfile::tempdir().unwrap();
        let file = write_file(&dir, "c.toml", text);
        load(
            &[],
            Overrides {
                config_file: Some(file),
                ..Default::default()
            },
        )
        .unwrap();
        // With every key uncommented it is still valid: no documented key is unknown.
        let uncommented: String = text
            .lines()
            .map(|l| l.strip_prefix("# ").filter(|l| l.contains(" = ")).unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n");
        let file = write_file(&dir, "all.toml", &uncommented);
        load(
            &[],
            Overrides {
                config_file: Some(file),
                ..Default::default()
            },
        )
        .unwrap();
    }
}
