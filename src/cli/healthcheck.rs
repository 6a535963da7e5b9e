//! `pillbox healthcheck`: asks the server that the configuration describes for `/health`
//! and exits 0 when it answers healthy, 1 otherwise, with one line saying which. For
//! container health checks (`HEALTHCHECK CMD pillbox healthcheck`) and scripts.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use super::CliResult;
use crate::config::{Overrides, Settings};

#[derive(Args)]
pub struct HealthcheckArgs {
    /// Configuration file (TOML): its bind address and TLS settings say where to ask
    #[arg(long, env = "PILLBOX_CONFIG", value_name = "FILE")]
    config: Option<PathBuf>,
    /// The server's address and port, if not the configured `bind`
    #[arg(long, env = "PILLBOX_BIND", value_name = "ADDR:PORT")]
    bind: Option<SocketAddr>,
    /// Seconds to wait for the answer
    #[arg(long, default_value_t = 5, value_name = "SECONDS")]
    timeout: u64,
}

pub fn run(args: HealthcheckArgs) -> CliResult {
    // No logger: the one line below is the whole output.
    let settings = Settings::load(&Overrides {
        config_file: args.config,
        data_dir: None,
        bind: args.bind,
    })?
    .settings;
    let timeout = Duration::from_secs(args.timeout.clamp(1, 300));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let probe = runtime.block_on(probe(&settings, timeout));
    println!("{}", probe.line());
    Ok(if probe.healthy() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// What `/health` said.
pub enum Probe {
    /// 200: `status` is `ok` or `degraded` (a failed backup).
    Healthy {
        url: String,
        status: String,
        version: String,
    },
    /// Any other answer, with its message.
    Unhealthy { url: String, code: u16, message: String },
    /// No answer at all.
    Unreachable { url: String, error: String },
}

impl Probe {
    pub fn healthy(&self) -> bool {
        matches!(self, Probe::Healthy { .. })
    }

    pub fn line(&self) -> String {
        match self {
            Probe::Healthy { url, status, version } => {
                format!("healthy: {url} answered 200 (status {status}, pillbox {version})")
            }
            Probe::Unhealthy { url, code, message } => format!("unhealthy: {url} answered {code}: {message}"),
            Probe::Unreachable { url, error } => format!("unreachable: {url}: {error}"),
        }
    }
}

/// Where the configured server listens, as seen from this machine: a wildcard bind
/// (0.0.0.0, ::) is asked over loopback.
pub fn health_url(settings: &Settings) -> String {
    let ip = match settings.bind.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    let address = SocketAddr::new(ip, settings.bind.port());
    format!("{}://{address}/health", settings.scheme())
}

pub async fn probe(settings: &Settings, timeout: Duration) -> Probe {
    let url = health_url(settings);
    // The certificate names the public host, not this address, and nothing secret is
    // sent or received: whether the server is alive is the question, not who it is.
    let client = reqwest::Client::builder()
        .timeout(timeout)
        .tls_danger_accept_invalid_certs(true)
        .build();
    let client = match client {
        Ok(client) => client,
        Err(e) => {
            return Probe::Unreachable {
                url,
                error: cause(&e),
            };
        }
    };
    let response = match client.get(&url).send().await {
        Ok(response) => response,
        Err(e) => {
            return Probe::Unreachable {
                url,
                error: cause(&e),
            };
        }
    };
    let code = response.status().as_u16();
    let body: serde_json::Value = match response.bytes().await {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
        Err(e) => {
            return Probe::Unreachable {
                url,
                error: cause(&e),
            };
        }
    };
    if code == 200 {
        let text = |v: &serde_json::Value| v.as_str().unwrap_or("unknown").to_owned();
        return Probe::Healthy {
            url,
            status: text(&body["data"]["status"]),
            version: text(&body["data"]["version"]),
        };
    }
    let message = match body["message"].as_str() {
        Some(message) => {
            let details: Vec<String> = body["checks"]
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, outcome)| outcome.as_str() != Some("ok"))
                .map(|(name, outcome)| format!("{name}: {}", outcome.as_str().unwrap_or_default()))
                .collect();
            if details.is_empty() {
                message.to_owned()
            } else {
                format!("{message} ({})", details.join("; "))
            }
        }
        None => "not a Pillbox /health answer".to_owned(),
    };
    Probe::Unhealthy { url, code, message }
}

/// The innermost reason of an error ("Connection refused"), which is what an operator
/// needs; reqwest's outer message is only "error sending request".
pub fn cause(error: &dyn std::error::Error) -> String {
    let mut inner = error;
    while let Some(source) = inner.source() {
        inner = source;
    }
    inner.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wildcard_bind_is_asked_over_loopback_with_the_configured_scheme() {
        let mut settings = Settings {
            bind: "0.0.0.0:8080".parse().unwrap(),
            ..Settings::default()
        };
        assert_eq!(health_url(&settings), "http://127.0.0.1:8080/health");
        settings.bind = "[::]:8443".parse().unwrap();
        settings.tls_cert = Some("/etc/pillbox/cert.pem".into());
        assert_eq!(health_url(&settings), "https://[::1]:8443/health");
        settings.bind = "192.168.1.5:3001".parse().unwrap();
        assert_eq!(health_url(&settings), "https://192.168.1.5:3001/health");
    }
}
