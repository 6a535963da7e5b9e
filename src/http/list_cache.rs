//! The medication list's answer, kept per person and reused until anything is committed to
//! the database (see `Db::version`) or the person's day changes.
//!
//! The list is the screen the app opens on and reloads after every change, and the hottest
//! read: building it takes seven queries and about 1.3 KiB of JSON a medication. Kept as
//! bytes, and gzipped once, a repeat costs a hash-map lookup. It can never
//! show an old stock count: any commit, from this server or a CLI command beside it, makes
//! every kept answer unusable, and the answer depends on nothing else but the date (the day
//! stock runs out is counted from today) and whether e-mail is set up.

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

use axum::body::{Body, Bytes};
use axum::http::header::{ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_TYPE, VARY};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::Response;
use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;

/// People whose answers are kept; past it, stale answers go first, then all. A household
/// server has a handful of people; this bounds the memory (about 30 KiB each) on a big one.
const MOST_KEPT: usize = 1024;

/// Smaller answers are sent as they are: compressing them saves less than its headers cost
/// (the same threshold as the API's compression layer).
const COMPRESS_ABOVE: usize = 1024;

/// Answers kept per person.
#[derive(Default)]
pub struct ListCache {
    kept: Mutex<HashMap<i64, Arc<Answer>>>,
}

/// One person's list as sent, and what it was made for.
pub struct Answer {
    /// `Db::version()` before the list was read.
    version: u64,
    tz: Tz,
    today: NaiveDate,
    email_available: bool,
    json: Bytes,
    gzip: OnceLock<Bytes>,
}

/// What the answer was made for; a kept answer is reused only when all of it is the same.
pub struct Made {
    pub version: u64,
    pub tz: Tz,
    pub today: NaiveDate,
    pub email_available: bool,
}

impl ListCache {
    /// The person's kept answer, if it still says what a new one would.
    pub fn get(
        &self,
        user_id: i64,
        version: u64,
        now: DateTime<Utc>,
        email_available: bool,
    ) -> Option<Arc<Answer>> {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        let answer = kept.get(&user_id)?;
        let current = answer.version == version
            && answer.email_available == email_available
            && now.with_timezone(&answer.tz).date_naive() == answer.today;
        current.then(|| answer.clone())
    }

    /// Keeps an answer (replacing the person's older one).
    pub fn keep(&self, user_id: i64, answer: Arc<Answer>) {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() >= MOST_KEPT && !kept.contains_key(&user_id) {
            let version = answer.version;
            kept.retain(|_, a| a.version == version);
            if kept.len() >= MOST_KEPT {
                kept.clear();
            }
        }
        kept.insert(user_id, answer);
    }
}

impl Answer {
    pub fn new(json: Vec<u8>, made: Made) -> Answer {
        Answer {
            version: made.version,
            tz: made.tz,
            today: made.today,
            email_available: made.email_available,
            json: Bytes::from(json),
            gzip: OnceLock::new(),
        }
    }

    /// The response, gzipped when the request accepts it (made once). Like the rest of the
    /// API, no Brotli: the binary carries no Brotli encoder.
    pub fn response(&self, request: &HeaderMap) -> Response {
        let (body, encoding) = match Encoding::accepted(request) {
            _ if self.json.len() <= COMPRESS_ABOVE => (self.json.clone(), None),
            Encoding::Gzip => (self.gzip.get_or_init(|| gzip(&self.json)).clone(), Some("gzip")),
            Encoding::Identity => (self.json.clone(), None),
        };
        let mut response = Response::new(Body::from(body));
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
        if let Some(encoding) = encoding {
            // The API's compression layer leaves an answer that has an encoding alone.
            headers.insert(CONTENT_ENCODING, HeaderValue::from_static(encoding));
        }
        response
    }
}

#[derive(Debug, PartialEq)]
enum Encoding {
    Gzip,
    Identity,
}

impl Encoding {
    /// Gzip if the client takes it, else none (`q=0` refuses it).
    fn accepted(request: &HeaderMap) -> Encoding {
        let mut gzip = false;
        for value in request.get_all(ACCEPT_ENCODING) {
            let Ok(value) = value.to_str() else { continue };
            for item in value.split(',') {
                let mut parts = item.split(';');
                let name = parts.next().unwrap_or("").trim();
                let refused = parts.any(|p| {
                    p.trim()
                        .strip_prefix("q=")
                        .and_then(|q| q.trim().parse::<f32>().ok())
                        .is_some_and(|q| q <= 0.0)
                });
                if refused {
                    continue;
                }
                if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") || name == "*" {
                    gzip = true;
                }
            }
        }
        if gzip { Encoding::Gzip } else { Encoding::Identity }
    }
}

/// Made once per change and sent many times: worth more effort than per-request
/// compression's fastest level, still a millisecond for a long list.
fn gzip(json: &[u8]) -> Bytes {
    let mut encoder =
        flate2::write::GzEncoder::new(Vec::with_capacity(json.len() / 4), flate2::Compression::new(6));
    let _ = encoder.write_all(json);
    Bytes::from(encoder.finish().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> Encoding {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT_ENCODING, HeaderValue::from_str(value).unwrap());
        Encoding::accepted(&headers)
    }

    #[test]
    fn the_encoding_follows_accept_encoding() {
        assert_eq!(accept("gzip, deflate, br, zstd"), Encoding::Gzip);
        assert_eq!(accept("gzip"), Encoding::Gzip);
        assert_eq!(accept("br;q=0, gzip;q=0.5"), Encoding::Gzip);
        assert_eq!(accept("br, gzip;q=0"), Encoding::Identity);
        assert_eq!(accept("br"), Encoding::Identity);
        assert_eq!(accept("identity"), Encoding::Identity);
        assert_eq!(Encoding::accepted(&HeaderMap::new()), Encoding::Identity);
    }

    fn made(version: u64, today: NaiveDate) -> Made {
        Made {
            version,
            tz: chrono_tz::Europe::Berlin,
            today,
            email_available: true,
        }
    }

    #[test]
    fn a_kept_answer_is_reused_only_for_the_same_version_and_day() {
        let cache = ListCache::default();
        // 23:30 UTC is already the next day in Berlin (UTC+1 in November).
        let late: DateTime<Utc> = "2026-11-23T23:30:00Z".parse().unwrap();
        let berlin_today = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        cache.keep(7, Arc::new(Answer::new(b"[]".to_vec(), made(3, berlin_today))));
        let evening: DateTime<Utc> = "2026-11-23T20:00:00Z".parse().unwrap();
        assert!(cache.get(7, 3, evening, true).is_some());
        assert!(
            cache.get(7, 4, evening, true).is_none(),
            "something was committed"
        );
        assert!(cache.get(7, 3, late, true).is_none(), "a new day in Berlin");
        assert!(cache.get(7, 3, evening, false).is_none(), "e-mail was turned off");
        assert!(cache.get(8, 3, evening, true).is_none(), "another person");
    }

    #[test]
    fn compressed_answers_decode_to_the_same_json() {
        let json: Vec<u8> = format!("[{}]", vec!["{\"name\":\"Aspirin\"}"; 200].join(",")).into_bytes();
        let answer = Answer::new(
            json.clone(),
            made(1, NaiveDate::from_ymd_opt(2026, 1, 1).unwrap()),
        );
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        let gzip = answer.response(&headers);
        assert_eq!(gzip.headers()[CONTENT_ENCODING], "gzip");
        let mut plain = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&answer.gzip.get().unwrap()[..]),
            &mut plain,
        )
        .unwrap();
        assert_eq!(plain, json);
    }
}
