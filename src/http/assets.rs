//! The web app, embedded from `ui/dist` at compile time.
//!
//! Exact file matches are served with their MIME type and an ETag. Hashed `/assets/*` files
//! are immutable for a year; everything else is revalidated. A missing path with a file
//! extension is a 404; only extension-less GET navigations get `index.html`, so a broken
//! deploy shows an error rather than a blank page.
//!
//! The build script gzipped each text file ahead of time: a request that accepts gzip (every
//! browser) gets that copy as it is and never waits for a compressor. A client that does not
//! (curl, a monitor) gets the copy inflated. One copy, not Brotli as well: see build.rs.

use std::io::Read;

use axum::body::Body;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

/// One file of `ui/dist`, and its gzip copy where it is worth having.
struct UiFile {
    path: &'static str,
    content_type: &'static str,
    /// The ETag of the file as it is.
    etag: &'static str,
    len: usize,
    /// The file as it is; `None` when it has a gzip copy to inflate instead.
    plain: Option<&'static [u8]>,
    gzip: Option<Variant>,
}

/// The bytes of the gzip copy of a file, with the ETag of exactly these bytes.
struct Variant {
    bytes: &'static [u8],
    etag: &'static str,
}

// `static UI_FILES: &[UiFile]`, sorted by path; written by build.rs.
include!(concat!(env!("OUT_DIR"), "/ui_files.rs"));

const INDEX: &str = "index.html";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
const REVALIDATE: &str = "no-cache";

fn file(path: &str) -> Option<&'static UiFile> {
    UI_FILES
        .binary_search_by(|file| file.path.cmp(path))
        .ok()
        .map(|i| &UI_FILES[i])
}

pub async fn serve(method: Method, uri: Uri, headers: HeaderMap) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "GET, HEAD")]).into_response();
    }
    let path = uri.path().trim_start_matches('/');
    let path = if path.is_empty() { INDEX } else { path };
    if let Some(file) = file(path) {
        return respond(file, &headers);
    }
    let last_segment = path.rsplit('/').next().unwrap_or_default();
    if last_segment.contains('.') {
        return (
            StatusCode::NOT_FOUND,
            [(header::CACHE_CONTROL, REVALIDATE)],
            "Not found",
        )
            .into_response();
    }
    match file(INDEX) {
        Some(index) => respond(index, &headers),
        None => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "The web app is missing from this build",
        )
            .into_response(),
    }
}

fn respond(file: &UiFile, request: &HeaderMap) -> Response {
    let (etag, gzipped) = match &file.gzip {
        Some(gzip) if accepts_gzip(request) => (gzip.etag, Some(gzip.bytes)),
        _ => (file.etag, None),
    };
    let cache_control = if file.path.starts_with("assets/") {
        IMMUTABLE
    } else {
        REVALIDATE
    };
    let mut response = Response::builder()
        .header(header::ETAG, etag)
        .header(header::CACHE_CONTROL, cache_control);
    if file.gzip.is_some() {
        response = response.header(header::VARY, "Accept-Encoding");
    }
    if etag_matches(request, etag) {
        return response
            .status(StatusCode::NOT_MODIFIED)
            .body(Body::empty())
            .unwrap_or_default();
    }
    response = response.header(header::CONTENT_TYPE, file.content_type);
    let body = match gzipped {
        Some(bytes) => {
            response = response.header(header::CONTENT_ENCODING, "gzip");
            Body::from(bytes)
        }
        None => match identity(file) {
            Some(body) => body,
            None => {
                return (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "This build's copy of the file is damaged",
                )
                    .into_response();
            }
        },
    };
    response.body(body).unwrap_or_default()
}

/// The file as it is: embedded, or inflated from its gzip copy.
fn identity(file: &UiFile) -> Option<Body> {
    if let Some(bytes) = file.plain {
        return Some(Body::from(bytes));
    }
    let gzip = file.gzip.as_ref()?;
    let mut plain = Vec::with_capacity(file.len);
    flate2::read::GzDecoder::new(gzip.bytes)
        .read_to_end(&mut plain)
        .ok()?;
    Some(Body::from(plain))
}

/// `If-None-Match` by weak comparison (RFC 9110 13.1.2): `W/` prefixes do not matter.
fn etag_matches(request: &HeaderMap, etag: &str) -> bool {
    let bare = etag.trim_start_matches("W/");
    request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|candidate| candidate == "*" || candidate.trim_start_matches("W/") == bare)
}

/// Whether the client takes gzip (`q=0` means "not acceptable").
pub(super) fn accepts_gzip(request: &HeaderMap) -> bool {
    let items = request
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','));
    for item in items {
        let mut parts = item.split(';').map(str::trim);
        let coding = parts.next().unwrap_or_default();
        let refused = parts
            .any(|p| matches!(p.strip_prefix("q="), Some(q) if q.parse::<f32>().is_ok_and(|q| q <= 0.0)));
        if !refused && (coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip")) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(name: header::HeaderName, value: &str) -> HeaderMap {
        let mut map = HeaderMap::new();
        map.insert(name, HeaderValue::from_str(value).unwrap());
        map
    }

    #[test]
    fn encoding_negotiation() {
        let gzip = |v| accepts_gzip(&headers(header::ACCEPT_ENCODING, v));
        assert!(gzip("gzip, deflate, br, zstd"));
        assert!(gzip("br;q=0, gzip;q=0.5"));
        assert!(gzip("x-gzip"));
        assert!(!gzip("gzip;q=0, br"));
        assert!(!gzip("identity"));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }

    #[test]
    fn etag_comparison_is_weak() {
        let etag = "\"abc\"";
        assert!(etag_matches(&headers(header::IF_NONE_MATCH, "\"abc\""), etag));
        assert!(etag_matches(
            &headers(header::IF_NONE_MATCH, "W/\"x\", W/\"abc\""),
            etag
        ));
        assert!(!etag_matches(&headers(header::IF_NONE_MATCH, "\"abd\""), etag));
        assert!(!etag_matches(&HeaderMap::new(), etag));
    }

    #[test]
    fn files_are_sorted_for_lookup_and_each_is_embedded_once_in_full() {
        assert!(UI_FILES.windows(2).all(|w| w[0].path < w[1].path));
        assert!(file(INDEX).is_some());
        for f in UI_FILES {
            assert!(f.plain.is_some() != f.gzip.is_some(), "{}", f.path);
            assert!(f.plain.is_none_or(|p| p.len() == f.len), "{}", f.path);
            if let Some(gzip) = &f.gzip {
                assert!(gzip.bytes.len() < f.len, "{}", f.path);
                assert_ne!(gzip.etag, f.etag, "{}", f.path);
            }
        }
    }
}
