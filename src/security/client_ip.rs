//! The client's address for rate limits. Behind a reverse proxy every request comes from the
//! proxy; `X-Forwarded-For` is believed only when the direct peer is a proxy the operator
//! listed in `trusted_proxies`, so nobody can pick their own address.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRef, FromRequestParts};
use axum::http::request::Parts;

use crate::http::AppState;

/// An address or a CIDR block from `trusted_proxies`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IpNet {
    address: IpAddr,
    prefix: u8,
}

impl std::str::FromStr for IpNet {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (address, prefix) = match text.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (text, None),
        };
        let address: IpAddr = address
            .trim()
            .parse()
            .map_err(|_| format!("\"{text}\" is not an IP address"))?;
        let max = if address.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p
                .trim()
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or(format!("\"{text}\" has a bad prefix length"))?,
            None => max,
        };
        Ok(IpNet { address, prefix })
    }
}

impl IpNet {
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        match (self.address, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                masked(u32::from(net).into(), 32, self.prefix)
                    == masked(u32::from(ip).into(), 32, self.prefix)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                masked(u128::from(net), 128, self.prefix) == masked(u128::from(ip), 128, self.prefix)
            }
            _ => false,
        }
    }
}

fn masked(bits: u128, width: u8, prefix: u8) -> u128 {
    if prefix == 0 { 0 } else { bits >> (width - prefix) }
}

/// `::ffff:1.2.3.4` is 1.2.3.4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
        v4 => v4,
    }
}

/// The client address chosen from the peer and, for trusted proxies, `X-Forwarded-For`.
pub fn resolve(peer: IpAddr, forwarded_for: Option<&str>, trusted: &[IpNet]) -> IpAddr {
    let peer = canonical(peer);
    let is_trusted = |ip: IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(peer) {
        return peer;
    }
    let hops: Vec<IpAddr> = forwarded_for
        .unwrap_or_default()
        .split(',')
        .filter_map(|hop| hop.trim().parse::<IpAddr>().ok())
        .map(canonical)
        .collect();
    // Walk back from the nearest hop; the first one we do not trust is the client.
    hops.iter()
        .rev()
        .copied()
        .find(|ip| !is_trusted(*ip))
        .or(hops.first().copied())
        .unwrap_or(peer)
}

pub struct ClientIp(pub IpAddr);

impl<S> FromRequestParts<S> for ClientIp
where
    AppState: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let state = AppState::from_ref(state);
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip())
            .unwrap_or(IpAddr::from([127, 0, 0, 1]));
        // Every X-Forwarded-For line counts: a proxy may append its own line after the
        // client's, and only reading the first would let the client choose its address.
        let forwarded: Vec<&str> = parts
            .headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        let forwarded = forwarded.join(",");
        Ok(ClientIp(resolve(peer, Some(&forwarded), &state.trusted_proxies)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_proxies() {
        let trusted: Vec<IpNet> = vec!["127.0.0.1".parse().unwrap(), "10.0.0.0/8".parse().unwrap()];
        assert_eq!(
            resolve(ip("203.0.113.9"), Some("1.2.3.4"), &trusted),
            ip("203.0.113.9")
        );
        assert_eq!(
            resolve(ip("127.0.0.1"), Some("198.51.100.7"), &trusted),
            ip("198.51.100.7")
        );
        // A client cannot hide behind a spoofed first hop: the proxy appended the real one.
        assert_eq!(
            resolve(ip("127.0.0.1"), Some("6.6.6.6, 198.51.100.7, 10.1.2.3"), &trusted),
            ip("198.51.100.7")
        );
        assert_eq!(resolve(ip("127.0.0.1"), None, &trusted), ip("127.0.0.1"));
        assert_eq!(
            resolve(ip("::ffff:127.0.0.1"), Some("198.51.100.7"), &trusted),
            ip("198.51.100.7")
        );
        assert_eq!(
            resolve(ip("127.0.0.1"), Some("198.51.100.7"), &[]),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn parses_addresses_and_blocks() {
        let net: IpNet = "192.168.0.0/16".parse().unwrap();
        assert!(net.contains(ip("192.168.44.1")) && !net.contains(ip("192.169.0.1")));
        let v6: IpNet = "fd00::/8".parse().unwrap();
        assert!(v6.contains(ip("fd12::1")) && !v6.contains(ip("fe80::1")));
        assert!("0.0.0.0/0".parse::<IpNet>().unwrap().contains(ip("8.8.8.8")));
        assert!("10.0.0.0/33".parse::<IpNet>().is_err());
        assert!("proxy".parse::<IpNet>().is_err());
    }
}
