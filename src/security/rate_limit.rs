//! In-memory sliding-window rate limits, keyed by account or by client address.
//! They protect sign-in, code checks, code sending and verification e-mails. A restart
//! forgets them, which is acceptable for a single-instance server.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Past this many tracked keys, every key's stale entries are swept.
const SWEEP_AT: usize = 10_000;

pub struct RateLimiter {
    max: usize,
    window: Duration,
    hits: Mutex<HashMap<String, VecDeque<Instant>>>,
}

/// Refused: retry after this many seconds.
#[derive(Debug, PartialEq, Eq)]
pub struct Limited(pub u64);

impl RateLimiter {
    pub fn new(max: usize, window: Duration) -> RateLimiter {
        RateLimiter {
            max,
            window,
            hits: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one try for `key` (a failure, or a send).
    pub fn record(&self, key: &str) {
        let now = Instant::now();
        let mut hits = self.hits.lock().unwrap_or_else(|p| p.into_inner());
        if hits.len() >= SWEEP_AT {
            hits.retain(|_, entries| {
                entries.retain(|t| now.duration_since(*t) < self.window);
                !entries.is_empty()
            });
        }
        let entries = hits.entry(key.to_owned()).or_default();
        self.expire(entries, now);
        entries.push_back(now);
    }

    /// Checks and counts in one go, under one lock, so parallel requests cannot all pass
    /// the check before any of them is counted.
    pub fn hit(&self, key: &str) -> Result<(), Limited> {
        let now = Instant::now();
        let mut hits = self.hits.lock().unwrap_or_else(|p| p.into_inner());
        let entries = hits.entry(key.to_owned()).or_default();
        self.expire(entries, now);
        if entries.len() >= self.max
            && let Some(oldest) = entries.front()
        {
            let wait = self.window.saturating_sub(now.duration_since(*oldest));
            return Err(Limited(wait.as_secs().max(1)));
        }
        entries.push_back(now);
        Ok(())
    }

    /// Takes back the most recent try of `key` (it turned out to be a success).
    pub fn forgive(&self, key: &str) {
        if let Some(entries) = self.hits.lock().unwrap_or_else(|p| p.into_inner()).get_mut(key) {
            entries.pop_back();
        }
    }

    fn expire(&self, entries: &mut VecDeque<Instant>, now: Instant) {
        while entries
            .front()
            .is_some_and(|t| now.duration_since(*t) >= self.window)
        {
            entries.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_after_max_tries() {
        let limiter = RateLimiter::new(3, Duration::from_secs(900));
        for _ in 0..2 {
            assert_eq!(limiter.hit("a"), Ok(()));
        }
        limiter.record("a");
        let Err(Limited(wait)) = limiter.hit("a") else {
            panic!("should be limited")
        };
        assert!((899..=900).contains(&wait), "{wait}");
        assert_eq!(limiter.hit("b"), Ok(()), "other keys are unaffected");
    }

    #[test]
    fn parallel_tries_are_counted_before_they_run() {
        let limiter = std::sync::Arc::new(RateLimiter::new(10, Duration::from_secs(900)));
        let passed = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let threads: Vec<_> = (0..50)
            .map(|_| {
                let (limiter, passed) = (limiter.clone(), passed.clone());
                std::thread::spawn(move || {
                    if limiter.hit("a").is_ok() {
                        passed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(passed.load(std::sync::atomic::Ordering::SeqCst), 10);
        limiter.forgive("a");
        assert_eq!(limiter.hit("a"), Ok(()), "a forgiven try frees its place");
    }

    #[test]
    fn old_entries_fall_out_of_the_window() {
        let limiter = RateLimiter::new(1, Duration::from_millis(50));
        assert_eq!(limiter.hit("a"), Ok(()));
        assert!(limiter.hit("a").is_err());
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(limiter.hit("a"), Ok(()));
    }
}
