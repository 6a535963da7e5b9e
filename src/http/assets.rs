//! The web app, embedded from `ui/dist` at compile time.
//!
//! Exact file matches are served with their MIME type and an ETag. Hashed `/assets/*` files
//! are immutable for a year; everything else is revalidated. A missing path with a file
//! extension is a 404; only extension-less GET navigations get `index.html`, so a broken
//! deploy shows an error rather than a blank page.
//!
//! The build script compressed each text file with Brotli and gzip ahead of time: a request
//! gets the copy its `Accept-Encoding` allows, as it is, and never waits for a compressor. A
//! client that takes neither (curl, a monitor) gets the gzip copy inflated.

use std::io::Read;

use axum::body::Body;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

/// One file of `ui/dist`, and its compressed copies where they are worth having.
struct UiFile {
    path: &'static str,
    content_type: &'static str,
    /// The ETag of the file as it is.
    etag: &'static str,
    len: usize,
    /// The file as it is; `None` when it has a gzip copy to inflate instead.
    plain: Option<&'static [u8]>,
    br: Option<Variant>,
    gzip: Option<Variant>,
}

/// The bytes of one encoding of a file, with the ETag of exactly these bytes.
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
    let accepted = accepted_encodings(request);
    let (etag, encoding) = match (&file.br, &file.gzip) {
        (Some(br), _) if accepted.br => (br.etag, Some(("br", br.bytes))),
        (_, Some(gzip)) if accepted.gzip => (gzip.etag, Some(("gzip", gzip.bytes))),
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
    if file.br.is_some() || file.gzip.is_some() {
        response = response.header(header::VARY, "Accept-Encoding");
    }
    if etag_matches(request, etag) {
        return response
            .status(StatusCode::NOT_MODIFIED)
            .body(Body::empty())
            .unwrap_or_default();
    }
    response = response.header(header::CONTENT_TYPE, file.content_type);
    let body = match encoding {
        Some((name, bytes)) => {
            response = response.header(header::CONTENT_ENCODING, name);
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

#[derive(Default, PartialEq, Debug)]
struct Accepted {
    br: bool,
    gzip: bool,
}

/// The codings the client takes (`q=0` means "not acceptable"). Brotli is preferred when
/// both are: it is the smaller.
fn accepted_encodings(request: &HeaderMap) -> Accepted {
    let mut accepted = Accepted::default();
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
        if refused {
            continue;
        }
        if coding.eq_ignore_ascii_case("br") {
            accepted.br = true;
        } else if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
            accepted.gzip = true;
        }
    }
    accepted
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
        let pick = |v| accepted_encodings(&headers(header::ACCEPT_ENCODING, v));
        let both = Accepted { br: true, gzip: true };
        let gzip = Accepted {
            br: false,
            gzip: true,
        };
        assert_eq!(pick("gzip, deflate, br, zstd"), both);
        assert_eq!(pick("gzip"), gzip);
        assert_eq!(pick("br;q=0, gzip;q=0.5"), gzip);
        assert_eq!(pick("identity"), Accepted::default());
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
            for variant in [&f.br, &f.gzip].into_iter().flatten() {
                assert!(variant.bytes.len() < f.len, "{}", f.path);
                assert_ne!(variant.etag, f.etag, "{}", f.path);
            }
        }
    }
}
