//! Credentials and the checks around them: password hashing, session tokens, one-time codes,
//! TOTP, rate limits and the client address they are keyed by.

pub mod client_ip;
pub mod codes;
pub mod jwt;
pub mod outbound;
pub mod password;
pub mod proxy_header;
pub mod rate_limit;
pub mod session;
pub mod sign_in_budget;
pub mod totp;
