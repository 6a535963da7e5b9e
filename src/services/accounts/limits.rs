//! The rate limits of the sign-in and code paths.

use std::time::Duration;

use crate::security::rate_limit::RateLimiter;
use crate::security::sign_in_budget::{self, SignInBudget};

/// The rate limits of the sign-in and code paths (DESIGN §5; the numbers are in the README).
pub struct AuthLimits {
    /// Wrong passwords and sign-in codes: per account and address with backoff, with
    /// ceilings per account and per address. The two-factor requirement check shares it.
    pub sign_in: SignInBudget,
    /// Codes checked by a signed-in session (completing the authenticator set-up, turning
    /// two-factor off with a backup code), per account.
    pub session_code_checks: RateLimiter,
    /// E-mail codes sent per account and per client address.
    pub codes_per_account: RateLimiter,
    pub codes_per_client: RateLimiter,
    /// Verification e-mails per address and per client address.
    pub verification_per_account: RateLimiter,
    pub verification_per_client: RateLimiter,
    /// Verification links that were unknown or expired, per client address.
    pub verify_failures_per_client: RateLimiter,
    /// Forgotten-password links asked for, per address and per client address.
    pub password_resets_per_account: RateLimiter,
    pub password_resets_per_client: RateLimiter,
    /// Forgotten-password links that were unknown, expired or used, per client address.
    pub reset_failures_per_client: RateLimiter,
    /// New accounts per client address (when sign-ups are open).
    pub registrations_per_client: RateLimiter,
    /// Take-link requests (look-ups and logs) per client address.
    pub take_links_per_client: RateLimiter,
    /// Passkey sign-ins started per client address (each holds a ceremony in memory).
    pub passkey_options_per_client: RateLimiter,
}

impl AuthLimits {
    /// The limits, with `registrations_per_hour` new accounts per client address.
    pub fn new(registrations_per_hour: u32) -> Self {
        let quarter_hour = Duration::from_secs(15 * 60);
        let hour = Duration::from_secs(3600);
        AuthLimits {
            sign_in: SignInBudget::new(sign_in_budget::POLICY),
            session_code_checks: RateLimiter::new(10, quarter_hour),
            codes_per_account: RateLimiter::new(5, quarter_hour),
            codes_per_client: RateLimiter::new(20, quarter_hour),
            verification_per_account: RateLimiter::new(3, hour),
            verification_per_client: RateLimiter::new(10, hour),
            verify_failures_per_client: RateLimiter::new(10, hour),
            password_resets_per_account: RateLimiter::new(3, hour),
            password_resets_per_client: RateLimiter::new(10, hour),
            reset_failures_per_client: RateLimiter::new(10, hour),
            registrations_per_client: RateLimiter::new(registrations_per_hour as usize, hour),
            take_links_per_client: RateLimiter::new(60, quarter_hour),
            passkey_options_per_client: RateLimiter::new(60, quarter_hour),
        }
    }
}
