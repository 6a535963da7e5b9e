//! Sign-in by an authenticating reverse proxy: the proxy names the signed-in person in a
//! header (`auth.proxy_header`), which is believed only when the TCP peer is one of
//! `auth.trusted_proxies`. The peer address decides, never `X-Forwarded-For`: a client can
//! write any header it likes, but not the address its connection comes from.

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::Mutex;

use axum::http::{HeaderMap, HeaderName};

use super::client_ip::canonical;
use crate::config::ProxySignIn;

/// Addresses whose ignored headers were logged; past this many, no more are remembered (a
/// flood of addresses must not grow memory), and so none logged.
const WARNED_ADDRESSES: usize = 1024;

/// What a request's headers say about who the proxy signed in.
#[derive(Debug, PartialEq, Eq)]
pub enum ProxyClaim {
    /// No proxy header: an ordinary request.
    Absent,
    /// A header that is not believed (not from a trusted proxy, or unreadable); ignored.
    Ignored,
    /// A trusted proxy names this person: their e-mail address (or `proxy_header`'s value when
    /// no e-mail header is configured).
    Named(String),
}

pub struct ProxyHeader {
    config: ProxySignIn,
    warned: Mutex<HashSet<IpAddr>>,
}

impl ProxyHeader {
    pub fn new(config: ProxySignIn) -> ProxyHeader {
        ProxyHeader {
            config,
            warned: Mutex::new(HashSet::new()),
        }
    }

    /// Whether a person the proxy names without an account gets one.
    pub fn auto_register(&self) -> bool {
        self.config.auto_register
    }

    /// Who the request's proxy header names, given the address the connection comes from.
    pub fn claim(&self, peer: IpAddr, headers: &HeaderMap) -> ProxyClaim {
        let Some(user) = single_value(headers, &self.config.header) else {
            return ProxyClaim::Absent;
        };
        let peer = canonical(peer);
        if !self.config.trusted.iter().any(|net| net.contains(&peer)) {
            self.warn_once(peer);
            return ProxyClaim::Ignored;
        }
        let Ok(user) = user else {
            tracing::warn!(%peer, header = %self.config.header, "proxy sign-in refused: the header appears more than once or is not UTF-8 text");
            return ProxyClaim::Ignored;
        };
        let email = match &self.config.email_header {
            Some(name) => match single_value(headers, name) {
                Some(Ok(email)) => Some(email),
                None => None,
                Some(Err(())) => {
                    tracing::warn!(%peer, header = %name, "proxy sign-in refused: the e-mail header appears more than once or is not UTF-8 text");
                    return ProxyClaim::Ignored;
                }
            },
            None => None,
        };
        ProxyClaim::Named(email.unwrap_or(user))
    }

    /// Logs an untrusted address's header once per address: a client that sends it on
    /// every request must not fill the log.
    fn warn_once(&self, peer: IpAddr) {
        let mut warned = self.warned.lock().unwrap_or_else(|p| p.into_inner());
        if warned.len() < WARNED_ADDRESSES && warned.insert(peer) {
            tracing::warn!(
                %peer,
                header = %self.config.header,
                "ignoring the proxy sign-in header from an address not in auth.trusted_proxies (logged once per address)"
            );
        }
    }
}

/// A header's one non-empty value; `Err` when it appears more than once or is not text
/// (a proxy that adds its header beside the client's must not let the client's count).
fn single_value(headers: &HeaderMap, name: &HeaderName) -> Option<Result<String, ()>> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?;
    if values.next().is_some() {
        return Some(Err(()));
    }
    match std::str::from_utf8(first.as_bytes()) {
        Err(_) => Some(Err(())),
        Ok(text) if text.trim().is_empty() => None,
        Ok(text) => Some(Ok(text.trim().to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_net;

    fn proxy(email_header: Option<&str>) -> ProxyHeader {
        ProxyHeader::new(ProxySignIn {
            header: HeaderName::from_static("remote-user"),
            email_header: email_header.map(|h| HeaderName::from_bytes(h.as_bytes()).unwrap()),
            trusted: vec![parse_net("127.0.0.1").unwrap(), parse_net("10.0.0.0/8").unwrap()],
            auto_register: false,
        })
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        map
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn the_header_is_believed_only_from_a_trusted_peer() {
        let proxy = proxy(None);
        let named = headers(&[("Remote-User", "ann@example.com")]);
        assert_eq!(
            proxy.claim(ip("127.0.0.1"), &named),
            ProxyClaim::Named("ann@example.com".into())
        );
        assert_eq!(
            proxy.claim(ip("::ffff:10.1.2.3"), &named),
            ProxyClaim::Named("ann@example.com".into())
        );
        assert_eq!(proxy.claim(ip("192.168.1.9"), &named), ProxyClaim::Ignored);
        // X-Forwarded-For does not make an untrusted peer a trusted one.
        let forwarded = headers(&[
            ("Remote-User", "ann@example.com"),
            ("X-Forwarded-For", "127.0.0.1"),
        ]);
        assert_eq!(proxy.claim(ip("192.168.1.9"), &forwarded), ProxyClaim::Ignored);
        assert_eq!(proxy.claim(ip("127.0.0.1"), &headers(&[])), ProxyClaim::Absent);
        assert_eq!(
            proxy.claim(ip("127.0.0.1"), &headers(&[("Remote-User", "  ")])),
            ProxyClaim::Absent
        );
    }

    #[test]
    fn a_repeated_header_is_not_believed() {
        let proxy = proxy(None);
        let twice = headers(&[
            ("Remote-User", "mallory@example.com"),
            ("Remote-User", "ann@example.com"),
        ]);
        assert_eq!(proxy.claim(ip("127.0.0.1"), &twice), ProxyClaim::Ignored);
    }

    #[test]
    fn the_email_header_names_the_account_when_configured() {
        let proxy = proxy(Some("Remote-Email"));
        let both = headers(&[("Remote-User", "ann"), ("Remote-Email", "ann@example.com")]);
        assert_eq!(
            proxy.claim(ip("127.0.0.1"), &both),
            ProxyClaim::Named("ann@example.com".into())
        );
        let user_only = headers(&[("Remote-User", "ann")]);
        assert_eq!(
            proxy.claim(ip("127.0.0.1"), &user_only),
            ProxyClaim::Named("ann".into())
        );
        // The e-mail header alone signs nobody in.
        let email_only = headers(&[("Remote-Email", "ann@example.com")]);
        assert_eq!(proxy.claim(ip("127.0.0.1"), &email_only), ProxyClaim::Absent);
    }

    #[test]
    fn an_untrusted_address_is_remembered_once() {
        let proxy = proxy(None);
        let named = headers(&[("Remote-User", "ann@example.com")]);
        for _ in 0..3 {
            assert_eq!(proxy.claim(ip("192.168.1.9"), &named), ProxyClaim::Ignored);
        }
        assert_eq!(proxy.warned.lock().unwrap().len(), 1);
    }
}
