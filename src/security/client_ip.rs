//! The client's address for rate limits. Behind a reverse proxy every request comes from the
//! proxy; `X-Forwarded-For` is believed only when the direct peer is a proxy the operator
//! listed in `trusted_proxies`, so nobody can pick their own address.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRef, FromRequestParts};
use axum::http::request::Parts;
pub use ipnet::IpNet;

/// `::ffff:1.2.3.4` is 1.2.3.4.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
        v4 => v4,
    }
}

/// The client address chosen from the peer and, for trusted proxies, `X-Forwarded-For`.
pub fn resolve(peer: IpAddr, forwarded_for: Option<&str>, trusted: &[IpNet]) -> IpAddr {
    let peer = canonical(peer);
    let is_trusted = |ip: IpAddr| trusted.iter().any(|net| net.contains(&ip));
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

/// The key a per-address limit counts by: the address, or for IPv6 its /64, the block one
/// subscriber gets (else each of its 2^64 addresses would have a budget of its own).
pub fn limit_key(ip: IpAddr) -> String {
    match canonical(ip) {
        IpAddr::V6(v6) => {
            let block = u128::from(v6) & !((1u128 << 64) - 1);
            format!("{}/64", std::net::Ipv6Addr::from(block))
        }
        v4 => v4.to_string(),
    }
}

/// The proxies whose `X-Forwarded-For` is believed; the server's state hands them over.
#[derive(Clone, Default)]
pub struct TrustedProxies(pub Arc<Vec<IpNet>>);

pub struct ClientIp(pub IpAddr);

impl<S> FromRequestParts<S> for ClientIp
where
    TrustedProxies: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let TrustedProxies(trusted) = TrustedProxies::from_ref(state);
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
        Ok(ClientIp(resolve(peer, Some(&forwarded), &trusted)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_net;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_ipv6_client_is_limited_by_its_64_block() {
        assert_eq!(limit_key(ip("2001:db8:1:2::1")), "2001:db8:1:2::/64");
        assert_eq!(limit_key(ip("2001:db8:1:2:ffff::1")), "2001:db8:1:2::/64");
        assert_eq!(limit_key(ip("2001:db8:1:3::1")), "2001:db8:1:3::/64");
        assert_eq!(limit_key(ip("::ffff:198.51.100.1")), "198.51.100.1");
        assert_eq!(limit_key(ip("198.51.100.1")), "198.51.100.1");
    }

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_proxies() {
        let trusted = vec![parse_net("127.0.0.1").unwrap(), parse_net("10.0.0.0/8").unwrap()];
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
        let net = parse_net("192.168.0.0/16").unwrap();
        assert!(net.contains(&ip("192.168.44.1")) && !net.contains(&ip("192.169.0.1")));
        let v6 = parse_net("fd00::/8").unwrap();
        assert!(v6.contains(&ip("fd12::1")) && !v6.contains(&ip("fe80::1")));
        assert!(parse_net("0.0.0.0/0").unwrap().contains(&ip("8.8.8.8")));
        let one = parse_net(" 10.1.2.3 ").unwrap();
        assert!(one.contains(&ip("10.1.2.3")) && !one.contains(&ip("10.1.2.4")));
        assert_eq!(
            parse_net("10.0.0.0/33"),
            Err("\"10.0.0.0/33\" has a bad prefix length".into())
        );
        assert_eq!(parse_net("proxy"), Err("\"proxy\" is not an IP address".into()));
    }
}
