//! The failure budget of sign-in (DESIGN §5, issue 13). A wrong password is charged to the
//! pair of account and client address: a few failures are free, then each further try waits
//! twice as long as the one before, up to a cap. The account as a whole has a much higher
//! ceiling across all addresses (so an attack from many addresses is still bounded), and one
//! address a ceiling across all accounts. Wrong guesses from one address therefore never lock
//! the owner out from another.
//!
//! A wrong password that was already charged is not charged again: repeating it tells the
//! guesser nothing new, and the web app sends the same password to the requirement check and
//! then to sign-in. Those repeats are recognised by a keyed hash (the key lives only in this
//! process) of the account, the stored password hash and the guess, so a password that
//! changed in between is checked for real.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use rand_core::{OsRng, RngCore};
use sha2::{Digest, Sha256};

use super::rate_limit::{Limited, RateLimiter};

/// The numbers of the budget (README, "Accounts and security").
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// Failures of one account from one address before tries have to wait.
    pub free_failures: u32,
    /// The wait after the first failure past the free ones; it doubles with each further one.
    pub first_wait: Duration,
    pub max_wait: Duration,
    /// A pair's failures are forgotten this long after its last one.
    pub forget_after: Duration,
    /// Failures of one account from all addresses together, per `ceiling_window`.
    pub account_ceiling: usize,
    /// Failures from one address at all accounts together, per `ceiling_window`.
    pub client_ceiling: usize,
    pub ceiling_window: Duration,
}

pub const POLICY: Policy = Policy {
    free_failures: 5,
    first_wait: Duration::from_secs(30),
    max_wait: Duration::from_secs(15 * 60),
    forget_after: Duration::from_secs(3600),
    account_ceiling: 100,
    client_ceiling: 30,
    ceiling_window: Duration::from_secs(3600),
};

/// Past this many tracked pairs, forgotten ones are swept.
const SWEEP_AT: usize = 10_000;
/// How long a pair that signed in stays exempt from the account's ceiling.
const TRUSTED_FOR: Duration = Duration::from_secs(30 * 24 * 3600);
/// Trusted pairs kept at most (memory stays bounded whatever the traffic).
const MAX_TRUSTED: usize = 100_000;
/// Wrong passwords remembered per pair for recognising repeats.
const REMEMBERED_GUESSES: usize = 8;

type Fingerprint = [u8; 32];
/// An account by the hash of its normalised address: a fixed size whatever was typed.
type AccountKey = [u8; 16];

#[derive(Default)]
struct Pair {
    failures: u32,
    last_failure: Option<Instant>,
    wrong_guesses: VecDeque<Fingerprint>,
}

impl Pair {
    fn forgotten(&self, now: Instant, policy: &Policy) -> bool {
        self.last_failure
            .is_none_or(|last| now.duration_since(last) >= policy.forget_after)
    }

    /// How long this pair still has to wait before its next try.
    fn wait(&self, now: Instant, policy: &Policy) -> Duration {
        let Some(last) = self.last_failure else {
            return Duration::ZERO;
        };
        if self.failures < policy.free_failures {
            return Duration::ZERO;
        }
        let doublings = (self.failures - policy.free_failures).min(20);
        let wait = policy
            .first_wait
            .saturating_mul(1 << doublings)
            .min(policy.max_wait);
        wait.saturating_sub(now.duration_since(last))
    }
}

/// What a try may do.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Check the password; it is counted as a failure until `passed` says otherwise.
    Check,
    /// This wrong password was already charged: answer "wrong" without checking or counting.
    Repeat,
}

pub struct SignInBudget {
    policy: Policy,
    key: [u8; 32],
    pairs: Mutex<HashMap<(AccountKey, String), Pair>>,
    /// Pairs that signed in, and when: the account's ceiling does not apply to them, so
    /// that guesses spread over many addresses cannot lock the owner out of a place the
    /// owner has signed in from before.
    trusted: Mutex<HashMap<(AccountKey, String), Instant>>,
    per_account: RateLimiter,
    per_client: RateLimiter,
}

impl SignInBudget {
    pub fn new(policy: Policy) -> SignInBudget {
        let mut key = [0u8; 32];
        OsRng.fill_bytes(&mut key);
        SignInBudget {
            policy,
            key,
            pairs: Mutex::new(HashMap::new()),
            trusted: Mutex::new(HashMap::new()),
            per_account: RateLimiter::new(policy.account_ceiling, policy.ceiling_window),
            per_client: RateLimiter::new(policy.client_ceiling, policy.ceiling_window),
        }
    }

    fn is_trusted(&self, key: AccountKey, client: &str, now: Instant) -> bool {
        self.trusted
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&(key, client.to_owned()))
            .is_some_and(|at| now.duration_since(*at) < TRUSTED_FOR)
    }

    fn account_key(account: &str) -> AccountKey {
        let digest = Sha256::digest(account.trim().to_lowercase().as_bytes());
        let mut key = [0u8; 16];
        key.copy_from_slice(&digest[..16]);
        key
    }

    /// Recognises a guess again: the account, the password hash it was checked against (none
    /// for an unknown account) and the guess.
    pub fn fingerprint(&self, account: &str, stored_hash: Option<&str>, guess: &str) -> Fingerprint {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.key).expect("HMAC takes any key length");
        for part in [
            account.trim().to_lowercase().as_str(),
            stored_hash.unwrap_or(""),
            guess,
        ] {
            mac.update(&(part.len() as u64).to_le_bytes());
            mac.update(part.as_bytes());
        }
        mac.finalize().into_bytes().into()
    }

    /// Decides a try of `account` from `client` and, when it is to be checked, counts it as
    /// a failure at once (parallel tries cannot all slip through before one is counted).
    /// `client` is the address's limit key (`client_ip::limit_key`); `guess` is the
    /// password's fingerprint (none for a code).
    pub fn begin(
        &self,
        account: &str,
        client: &str,
        guess: Option<&Fingerprint>,
    ) -> Result<Verdict, Limited> {
        self.begin_at(account, client, guess, Instant::now())
    }

    fn begin_at(
        &self,
        account: &str,
        client: &str,
        guess: Option<&Fingerprint>,
        now: Instant,
    ) -> Result<Verdict, Limited> {
        let key = Self::account_key(account);
        let account_id = base16ct::lower::encode_string(&key);
        let trusted = self.is_trusted(key, client, now);
        let mut pairs = self.pairs.lock().unwrap_or_else(|p| p.into_inner());
        if pairs.len() >= SWEEP_AT {
            pairs.retain(|_, pair| !pair.forgotten(now, &self.policy));
        }
        let pair = pairs.entry((key, client.to_owned())).or_default();
        if pair.forgotten(now, &self.policy) {
            *pair = Pair::default();
        }
        if guess.is_some_and(|g| pair.wrong_guesses.contains(g)) {
            return Ok(Verdict::Repeat);
        }
        let wait = pair.wait(now, &self.policy);
        if !wait.is_zero() {
            return Err(Limited(round_up(wait)));
        }
        self.per_client.hit(client)?;
        if !trusted {
            self.per_account
                .hit(&account_id)
                .inspect_err(|_| self.per_client.forgive(client))?;
        }
        pair.failures += 1;
        pair.last_failure = Some(now);
        Ok(Verdict::Check)
    }

    /// The try turned out right: it is not a failure after all.
    pub fn passed(&self, account: &str, client: &str) {
        let key = Self::account_key(account);
        if let Some(pair) = self
            .pairs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(&(key, client.to_owned()))
        {
            pair.failures = pair.failures.saturating_sub(1);
        }
        if !self.is_trusted(key, client, Instant::now()) {
            self.per_account.forgive(&base16ct::lower::encode_string(&key));
        }
        self.per_client.forgive(client);
    }

    /// The try was wrong: remember the guess so that repeating it is not charged again.
    pub fn failed(&self, account: &str, client: &str, guess: Option<Fingerprint>) {
        let Some(guess) = guess else { return };
        let key = Self::account_key(account);
        let mut pairs = self.pairs.lock().unwrap_or_else(|p| p.into_inner());
        let pair = pairs.entry((key, client.to_owned())).or_default();
        if pair.wrong_guesses.len() >= REMEMBERED_GUESSES {
            pair.wrong_guesses.pop_front();
        }
        pair.wrong_guesses.push_back(guess);
    }

    /// Charges a failure found after the gate (a wrong code after the right password).
    pub fn charge(&self, account: &str, client: &str) {
        let key = Self::account_key(account);
        let now = Instant::now();
        {
            let mut pairs = self.pairs.lock().unwrap_or_else(|p| p.into_inner());
            let pair = pairs.entry((key, client.to_owned())).or_default();
            pair.failures += 1;
            pair.last_failure = Some(now);
        }
        if !self.is_trusted(key, client, now) {
            self.per_account.record(&base16ct::lower::encode_string(&key));
        }
        self.per_client.record(client);
    }

    /// Signed in from this address: its pair starts over. The account's ceiling keeps its
    /// count, or a distributed attack could reset it by watching the owner sign in.
    pub fn signed_in(&self, account: &str, client: &str) {
        self.signed_in_at(account, client, Instant::now());
    }

    fn signed_in_at(&self, account: &str, client: &str, now: Instant) {
        let key = Self::account_key(account);
        let client = client.to_owned();
        self.pairs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&(key, client.clone()));
        let mut trusted = self.trusted.lock().unwrap_or_else(|p| p.into_inner());
        if trusted.len() >= MAX_TRUSTED {
            trusted.retain(|_, at| now.duration_since(*at) < TRUSTED_FOR);
        }
        if trusted.len() < MAX_TRUSTED {
            trusted.insert((key, client), now);
        }
    }
}

/// Whole seconds to wait, never 0 (Retry-After: 0 would invite an immediate retry).
fn round_up(wait: Duration) -> u64 {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    secs.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANN: &str = "ann@example.org";
    const A: &str = "198.51.100.1";
    const B: &str = "203.0.113.2";

    fn budget() -> SignInBudget {
        SignInBudget::new(Policy {
            account_ceiling: 12,
            client_ceiling: 9,
            ..POLICY
        })
    }

    fn fail(budget: &SignInBudget, account: &str, client: &str, guess: &str, now: Instant) {
        let fp = budget.fingerprint(account, Some("hash"), guess);
        assert_eq!(
            budget.begin_at(account, client, Some(&fp), now),
            Ok(Verdict::Check)
        );
        budget.failed(account, client, Some(fp));
    }

    #[test]
    fn guesses_from_many_addresses_do_not_lock_the_owner_out_where_they_signed_in_before() {
        let budget = budget();
        let start = Instant::now();
        budget.signed_in_at(ANN, B, start);
        // 12 failures (the account's ceiling here) from 12 addresses.
        for i in 0..12 {
            fail(&budget, ANN, &format!("192.0.2.{i}"), "guess", start);
        }
        let fp = budget.fingerprint(ANN, Some("hash"), "new guess");
        assert!(
            budget.begin_at(ANN, "198.51.100.77", Some(&fp), start).is_err(),
            "a new address meets the account's ceiling"
        );
        assert_eq!(
            budget.begin_at(ANN, B, Some(&fp), start),
            Ok(Verdict::Check),
            "where the owner signed in before, the ceiling does not apply"
        );
    }

    #[test]
    fn an_address_waits_longer_after_each_failure_past_the_free_ones() {
        let budget = budget();
        let start = Instant::now();
        for i in 0..5 {
            fail(&budget, ANN, A, &format!("guess {i}"), start);
        }
        let next = budget.fingerprint(ANN, Some("hash"), "guess 5");
        assert_eq!(budget.begin_at(ANN, A, Some(&next), start), Err(Limited(30)));
        assert_eq!(
            budget.begin_at(ANN, B, Some(&next), start),
            Ok(Verdict::Check),
            "another address is not held up"
        );
        budget.passed(ANN, B);
        let later = start + Duration::from_secs(30);
        fail(&budget, ANN, A, "guess 5", later);
        let next = budget.fingerprint(ANN, Some("hash"), "guess 6");
        assert_eq!(
            budget.begin_at(ANN, A, Some(&next), later + Duration::from_secs(10)),
            Err(Limited(50)),
            "the wait doubled"
        );
        // At the cap the wait stops growing.
        let mut pair = Pair {
            failures: 30,
            last_failure: Some(start),
            ..Pair::default()
        };
        assert_eq!(pair.wait(start, &POLICY), POLICY.max_wait);
        pair.failures = 4;
        assert_eq!(pair.wait(start, &POLICY), Duration::ZERO);
    }

    #[test]
    fn a_repeated_wrong_password_is_charged_once() {
        let budget = budget();
        let now = Instant::now();
        fail(&budget, ANN, A, "typo", now);
        let again = budget.fingerprint("  Ann@Example.org", Some("hash"), "typo");
        assert_eq!(budget.begin_at(ANN, A, Some(&again), now), Ok(Verdict::Repeat));
        let changed = budget.fingerprint(ANN, Some("new hash"), "typo");
        assert_eq!(
            budget.begin_at(ANN, A, Some(&changed), now),
            Ok(Verdict::Check),
            "after a password change the same guess is checked again"
        );
    }

    #[test]
    fn the_account_ceiling_holds_across_addresses_and_a_success_keeps_it() {
        let budget = budget();
        let now = Instant::now();
        for i in 0..12 {
            let client = format!("10.0.0.{}", i / 4);
            fail(&budget, ANN, &client, &format!("guess {i}"), now);
        }
        let fp = budget.fingerprint(ANN, Some("hash"), "right");
        assert!(budget.begin_at(ANN, B, Some(&fp), now).is_err(), "everyone waits");
        assert_eq!(
            budget.begin_at("bob@example.org", B, None, now),
            Ok(Verdict::Check),
            "other accounts do not"
        );
        budget.signed_in(ANN, "10.0.0.0");
        assert!(budget.begin_at(ANN, B, Some(&fp), now).is_err());
    }

    #[test]
    fn one_address_is_bounded_across_accounts() {
        let budget = budget();
        let now = Instant::now();
        for i in 0..9 {
            fail(&budget, &format!("user{i}@example.org"), A, "guess", now);
        }
        assert!(budget.begin_at("ann@example.org", A, None, now).is_err());
        assert_eq!(
            budget.begin_at("ann@example.org", B, None, now),
            Ok(Verdict::Check)
        );
    }

    #[test]
    fn a_right_password_is_not_a_failure_and_failures_are_forgotten() {
        let budget = budget();
        let now = Instant::now();
        for _ in 0..10 {
            assert_eq!(budget.begin_at(ANN, A, None, now), Ok(Verdict::Check));
            budget.passed(ANN, A);
        }
        for i in 0..5 {
            fail(&budget, ANN, A, &format!("guess {i}"), now);
        }
        assert!(budget.begin_at(ANN, A, None, now).is_err());
        let much_later = now + POLICY.forget_after;
        assert_eq!(budget.begin_at(ANN, A, None, much_later), Ok(Verdict::Check));
        budget.signed_in(ANN, A);
        assert_eq!(budget.begin_at(ANN, A, None, now), Ok(Verdict::Check));
    }

    #[test]
    fn parallel_tries_are_counted_before_they_run() {
        let budget = std::sync::Arc::new(budget());
        let passed = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let threads: Vec<_> = (0..40)
            .map(|_| {
                let (budget, passed) = (budget.clone(), passed.clone());
                std::thread::spawn(move || {
                    if budget.begin(ANN, A, None).is_ok() {
                        passed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(passed.load(std::sync::atomic::Ordering::SeqCst), 5);
    }
}
