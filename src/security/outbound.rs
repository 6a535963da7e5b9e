//! Where the server may send a request a person configured (a channel's URL): checked when
//! the URL is saved and again, after the name is resolved, when it is used. Only `http` and
//! `https`; loopback, link-local, cloud metadata and other special addresses are refused;
//! private ranges only where the operator lists them (`channels.allow_networks`).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use ipnet::IpNet;

/// The operator's list: networks, and host names whose private addresses are allowed.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    networks: Vec<IpNet>,
    hosts: Vec<String>,
}

impl Policy {
    /// From `channels.allow_networks`: CIDR blocks, single addresses, or host names.
    pub fn new(allow: &[String]) -> Policy {
        let mut policy = Policy::default();
        for entry in allow.iter().map(|e| e.trim()).filter(|e| !e.is_empty()) {
            if let Ok(net) = entry.parse::<IpNet>() {
                policy.networks.push(net);
            } else if let Ok(ip) = entry.parse::<IpAddr>() {
                policy.networks.push(IpNet::from(ip));
            } else {
                policy
                    .hosts
                    .push(entry.trim_end_matches('.').to_ascii_lowercase());
            }
        }
        policy
    }

    /// Why a request to `ip` (reached by the name `host`) is refused, or `None`.
    pub fn refuse_ip(&self, host: &str, ip: IpAddr) -> Option<String> {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
            v4 => v4,
        };
        if is_metadata(ip) {
            return Some(format!("{ip} is a cloud metadata address"));
        }
        if ip.is_unspecified() || ip.is_multicast() || is_broadcast(ip) {
            return Some(format!("{ip} is not an address a server can be reached at"));
        }
        let special = if ip.is_loopback() {
            Some("a loopback address")
        } else if is_link_local(ip) {
            Some("a link-local address")
        } else if is_private(ip) {
            Some("a private address")
        } else {
            None
        };
        let what = special?;
        let listed_host = self
            .hosts
            .iter()
            .any(|h| h == &host.trim_end_matches('.').to_ascii_lowercase());
        let listed_net = self.networks.iter().any(|n| n.contains(&ip));
        if listed_net || (listed_host && !is_link_local(ip)) {
            return None;
        }
        Some(format!(
            "{host} is {what} ({ip}); the server's operator can allow it with channels.allow_networks"
        ))
    }

    /// Checks a URL as written: scheme, no credentials, and a literal address's range.
    /// Names are checked again when resolved (`Resolver`).
    pub fn check_url(&self, text: &str) -> Result<reqwest::Url, UrlRefused> {
        let malformed = |why: String| Err(UrlRefused::Malformed(why));
        let Ok(url) = reqwest::Url::parse(text.trim()) else {
            return malformed(format!("{text:?} is not a URL"));
        };
        if url.scheme() != "http" && url.scheme() != "https" {
            return malformed("the URL must start with http:// or https://".into());
        }
        if !url.username().is_empty() || url.password().is_some() {
            return malformed("the URL must not carry a user name or password".into());
        }
        let refused = match url.host() {
            Some(url::Host::Domain(host))
                if host.eq_ignore_ascii_case("localhost")
                    || host.to_ascii_lowercase().ends_with(".localhost") =>
            {
                self.refuse_ip(host, IpAddr::V4(Ipv4Addr::LOCALHOST))
            }
            Some(url::Host::Domain(_)) => None,
            Some(url::Host::Ipv4(ip)) => self.refuse_ip(&ip.to_string(), IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => self.refuse_ip(&ip.to_string(), IpAddr::V6(ip)),
            None => return malformed("the URL has no host".into()),
        };
        match refused {
            Some(why) => Err(UrlRefused::Address(why)),
            None => Ok(url),
        }
    }
}

/// Why a URL a person gave is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlRefused {
    /// It is not an `http(s)` URL with a host and without credentials.
    Malformed(String),
    /// Its address is one the server does not send to (`channels.allow_networks` may allow it).
    Address(String),
}

impl std::fmt::Display for UrlRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UrlRefused::Malformed(why) | UrlRefused::Address(why) => f.write_str(why),
        }
    }
}

fn is_metadata(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4 == Ipv4Addr::new(169, 254, 169, 254) || v4 == Ipv4Addr::new(100, 100, 100, 200),
        IpAddr::V6(v6) => v6 == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254),
    }
}

fn is_broadcast(ip: IpAddr) -> bool {
    matches!(ip, IpAddr::V4(v4) if v4.is_broadcast())
}

fn is_link_local(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_link_local(),
        IpAddr::V6(v6) => (v6.segments()[0] & 0xffc0) == 0xfe80,
    }
}

fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            v4.is_private()
                // Shared address space (carrier-grade NAT), benchmarking, reserved.
                || (o[0] == 100 && (o[1] & 0xc0) == 64)
                || (o[0] == 198 && (o[1] & 0xfe) == 18)
                || o[0] == 0
                || o[0] >= 240
        }
        // Unique local addresses (fc00::/7).
        IpAddr::V6(v6) => (v6.segments()[0] & 0xfe00) == 0xfc00,
    }
}

/// A name resolver for the channels' HTTP client that refuses what the policy refuses, so
/// a name that points somewhere else when it is used than when it was saved gets nowhere.
#[derive(Debug, Clone)]
pub struct Resolver {
    policy: Arc<Policy>,
}

impl Resolver {
    pub fn new(policy: Arc<Policy>) -> Resolver {
        Resolver { policy }
    }
}

impl reqwest::dns::Resolve for Resolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = Arc::clone(&self.policy);
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|e| -> Box<dyn std::error::Error + Send + Sync> { Box::new(e) })?
                .collect();
            let mut refused = None;
            let allowed: Vec<SocketAddr> = found
                .into_iter()
                .filter(|addr| match policy.refuse_ip(&host, addr.ip()) {
                    None => true,
                    Some(why) => {
                        refused = Some(why);
                        false
                    }
                })
                .collect();
            if allowed.is_empty() {
                let why = refused.unwrap_or_else(|| format!("{host} has no address"));
                return Err(why.into());
            }
            let addrs: reqwest::dns::Addrs = Box::new(allowed.into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_addresses_pass_and_special_ones_are_refused_unless_listed() {
        let none = Policy::new(&[]);
        assert!(none.check_url("https://ntfy.sh/").is_ok());
        assert!(none.check_url("ftp://ntfy.sh/").is_err());
        assert!(none.check_url("https://user:pw@ntfy.sh/").is_err());
        assert!(
            none.check_url("http://127.0.0.1:8080/")
                .unwrap_err()
                .to_string()
                .contains("loopback")
        );
        assert!(
            none.check_url("http://localhost/")
                .unwrap_err()
                .to_string()
                .contains("loopback")
        );
        assert!(none.check_url("http://[::1]/").is_err());
        assert!(
            none.check_url("http://169.254.169.254/latest")
                .unwrap_err()
                .to_string()
                .contains("metadata")
        );
        assert!(
            none.check_url("http://192.168.1.5/")
                .unwrap_err()
                .to_string()
                .contains("allow_networks")
        );
        assert!(none.check_url("http://[::ffff:10.0.0.1]/").is_err());
        assert!(none.refuse_ip("x", "8.8.8.8".parse().unwrap()).is_none());

        let lan = Policy::new(&["192.168.0.0/16".into(), "ntfy.lan".into(), "127.0.0.1".into()]);
        assert!(lan.check_url("http://192.168.1.5/").is_ok());
        assert!(lan.check_url("http://127.0.0.1:9/").is_ok());
        assert!(lan.check_url("http://10.0.0.1/").is_err());
        assert!(lan.refuse_ip("ntfy.lan", "10.1.2.3".parse().unwrap()).is_none());
        assert!(lan.refuse_ip("other.lan", "10.1.2.3".parse().unwrap()).is_some());
        // Metadata stays refused whatever is listed.
        let all = Policy::new(&["0.0.0.0/0".into()]);
        assert!(all.check_url("http://169.254.169.254/").is_err());
    }
}
