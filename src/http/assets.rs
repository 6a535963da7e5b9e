//! The web app, embedded from `ui/dist` at compile time.
//!
//! Exact file matches are served with their MIME type and an ETag from the embedded bytes.
//! Hashed `/assets/*` files are immutable for a year; everything else is revalidated. A missing
//! path with a file extension is a 404; only extension-less GET navigations get `index.html`,
//! so a broken deploy shows an error rather than a blank page.

use std::collections::HashMap;
use std::io::Write;
use std::sync::{LazyLock, Mutex};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use rust_embed::{EmbeddedFile, RustEmbed};

#[derive(RustEmbed)]
#[folder = "ui/dist"]
struct Ui;

const INDEX: &str = "index.html";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
const REVALIDATE: &str = "no-cache";
/// Smaller files are not worth compressing.
const MIN_COMPRESS: usize = 1024;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Encoding {
    Brotli,
    Gzip,
}

impl Encoding {
    fn header(self) -> HeaderValue {
        HeaderValue::from_static(match self {
            Encoding::Brotli => "br",
            Encoding::Gzip => "gzip",
        })
    }
}

/// Compressed copies of embedded files, made on first request: the files never change while
/// the binary runs, so a Raspberry Pi compresses each once, not per request.
static COMPRESSED: LazyLock<Mutex<HashMap<(String, Encoding), Bytes>>> = LazyLock::new(Default::default);

pub async fn serve(method: Method, uri: Uri, headers: HeaderMap) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "GET, HEAD")]).into_response();
    }
    let path = uri.path().trim_start_matches('/');
    let path = if path.is_empty() { INDEX } else { path };
    if let Some(file) = Ui::get(path) {
        return respond(path, file, &headers);
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
    match Ui::get(INDEX) {
        Some(index) => respond(INDEX, index, &headers),
        None => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "The web app is missing from this build",
        )
            .into_response(),
    }
}

fn respond(path: &str, file: EmbeddedFile, request: &HeaderMap) -> Response {
    let etag = format!(
        "W/\"{}\"",
        base16ct::lower::encode_string(&file.metadata.sha256_hash()[..16])
    );
    let cache_control = if path.starts_with("assets/") {
        IMMUTABLE
    } else {
        REVALIDATE
    };
    let mime = file.metadata.mimetype();
    let content_type = if mime.starts_with("text/") || mime == "application/javascript" {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_owned()
    };
    let mut response = Response::builder()
        .header(header::ETAG, &etag)
        .header(header::CACHE_CONTROL, cache_control)
        .header(header::VARY, "Accept-Encoding");

    if etag_matches(request, &etag) {
        return response
            .status(StatusCode::NOT_MODIFIED)
            .body(Body::empty())
            .unwrap_or_default();
    }
    response = response.header(header::CONTENT_TYPE, content_type);
    let data = file.data;
    let body = match preferred_encoding(request).filter(|_| data.len() >= MIN_COMPRESS && compressible(mime))
    {
        Some(encoding) => {
            response = response.header(header::CONTENT_ENCODING, encoding.header());
            compressed(path, encoding, &data)
        }
        None => Bytes::from(data.into_owned()),
    };
    response.body(Body::from(body)).unwrap_or_default()
}

fn compressible(mime: &str) -> bool {
    mime.starts_with("text/")
        || mime.ends_with("javascript")
        || mime.ends_with("json")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || mime == "image/svg+xml"
}

fn compressed(path: &str, encoding: Encoding, data: &[u8]) -> Bytes {
    let key = (path.to_owned(), encoding);
    if let Some(hit) = COMPRESSED.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return hit.clone();
    }
    let bytes = Bytes::from(match encoding {
        Encoding::Brotli => {
            let mut out = Vec::with_capacity(data.len() / 3);
            let params = brotli::enc::BrotliEncoderParams {
                quality: 9,
                lgwin: 22,
                ..Default::default()
            };
            // Writing into a Vec cannot fail.
            let _ = brotli::BrotliCompress(&mut &data[..], &mut out, &params);
            out
        }
        Encoding::Gzip => {
            let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            let _ = encoder.write_all(data);
            encoder.finish().unwrap_or_default()
        }
    });
    COMPRESSED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, bytes.clone());
    bytes
}

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

/// Brotli when the client takes it, else gzip, else none (`q=0` means "not acceptable").
fn preferred_encoding(request: &HeaderMap) -> Option<Encoding> {
    let accepted: Vec<&str> = request
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|item| {
            let mut parts = item.split(';').map(str::trim);
            let coding = parts.next()?;
            let refused = parts
                .any(|p| matches!(p.strip_prefix("q="), Some(q) if q.parse::<f32>().is_ok_and(|q| q <= 0.0)));
            (!refused).then_some(coding)
        })
        .collect();
    if accepted.contains(&"br") {
        Some(Encoding::Brotli)
    } else if accepted.contains(&"gzip") {
        Some(Encoding::Gzip)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(name: header::HeaderName, value: &str) -> HeaderMap {
        let mut map = HeaderMap::new();
        map.insert(name, HeaderValue::from_str(value).unwrap());
        map
    }

    #[test]
    fn encoding_negotiation() {
        let pick = |v| preferred_encoding(&headers(header::ACCEPT_ENCODING, v));
        assert!(pick("gzip, deflate, br, zstd") == Some(Encoding::Brotli));
        assert!(pick("gzip") == Some(Encoding::Gzip));
        assert!(pick("br;q=0, gzip;q=0.5") == Some(Encoding::Gzip));
        assert!(pick("identity").is_none());
    }

    #[test]
    fn etag_comparison_is_weak() {
        let etag = "W/\"abc\"";
        assert!(etag_matches(&headers(header::IF_NONE_MATCH, "\"abc\""), etag));
        assert!(etag_matches(
            &headers(header::IF_NONE_MATCH, "W/\"x\", W/\"abc\""),
            etag
        ));
        assert!(!etag_matches(&headers(header::IF_NONE_MATCH, "\"abd\""), etag));
        assert!(!etag_matches(&HeaderMap::new(), etag));
    }
}
