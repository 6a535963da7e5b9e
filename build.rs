//! Build script: records the git revision for `/api/version`, builds the web UI (`ui/dist`)
//! and prepares it for embedding: each compressible file gzipped, so that no request pays for
//! compressing a static file (src/http/assets.rs serves them), and packs the binary's
//! relocations where the platform allows it.
//!
//! Set `PILLBOX_SKIP_UI_BUILD=1` to use an existing `ui/dist` as it is (for example when
//! cross-compiling with a UI built elsewhere).

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use sha2::{Digest, Sha256};

fn main() {
    let version = record_git_revision();
    build_ui();
    embed_ui();
    hash_index_scripts();
    embed_openapi(&version);
    pack_relative_relocations();
}

/// Writes `$OUT_DIR/openapi.json.gz`: the API's OpenAPI document (src/http/openapi.json,
/// which a test keeps equal to the handlers' annotations) with this build's version, gzipped
/// for src/http/openapi.rs to serve.
fn embed_openapi(version: &str) {
    let file = "src/http/openapi.json";
    println!("cargo:rerun-if-changed={file}");
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("read {file}: {e}"));
    let package = format!(
        "\"version\": \"{}\"",
        std::env::var("CARGO_PKG_VERSION").unwrap_or_default()
    );
    // The document's own version comes first: `info` is written before paths and schemas.
    let found = text.find(&package);
    if found.is_none_or(|at| text.find("\"paths\"").is_some_and(|paths| paths < at)) {
        panic!(
            "{file} does not name the package's version in `info`: write it anew (see src/http/openapi.rs)"
        );
    }
    let text = text.replacen(&package, &format!("\"version\": \"{version}\""), 1);
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out_dir.join("openapi.json.gz"), gzip(text.as_bytes(), 9)).expect("write openapi.json.gz");
}

/// The binary is position-independent, so every pointer in its static data (vtables, the 35,000
/// rows of chrono-tz's time zone tables) is a relocation applied at start: as classic
/// `Elf64_Rela` entries they took 1 MB of the file, read once and then kept resident. DT_RELR
/// packs them into bitmaps of 18 KB and keeps address randomisation. The C library applies
/// them: musl from 1.2.4 (Rust's musl targets ship 1.2.5; a static-pie relocates itself) and
/// glibc from 2.36, which only a native build can check (the binary then names
/// GLIBC_ABI_DT_RELR, so an older glibc refuses it). x86_64 with the toolchain's own linker
/// only (GNU ld 2.40 and lld take the flag): zig's, which packaging/release.sh links with,
/// refuses it, and an unknown one may too.
fn pack_relative_relocations() {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let linker_setting = format!(
        "CARGO_TARGET_{}_LINKER",
        var("TARGET").to_uppercase().replace('-', "_")
    );
    println!("cargo:rerun-if-env-changed={linker_setting}");
    if var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ARCH") != "x86_64"
        || std::env::var_os("RUSTC_LINKER").is_some()
    {
        return;
    }
    let supported = match var("CARGO_CFG_TARGET_ENV").as_str() {
        "musl" => true,
        "gnu" => var("TARGET") == var("HOST") && host_glibc_has_relr(),
        _ => false,
    };
    if supported {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// glibc 2.36 or later on the build machine (`getconf GNU_LIBC_VERSION` says "glibc 2.36").
fn host_glibc_has_relr() -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else {
        return false;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (2, 36)
}

/// Sets `PILLBOX_VERSION` (the package's version and the git revision) and answers it.
fn record_git_revision() -> String {
    println!("cargo:rerun-if-env-changed=PILLBOX_GIT_REV");
    for path in [".git/HEAD", ".git/packed-refs"] {
        if Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    if let Ok(head) = std::fs::read_to_string(".git/HEAD")
        && let Some(reference) = head.strip_prefix("ref: ")
    {
        let ref_path = format!(".git/{}", reference.trim());
        if Path::new(&ref_path).exists() {
            println!("cargo:rerun-if-changed={ref_path}");
        }
    }
    let revision = std::env::var("PILLBOX_GIT_REV").ok().or_else(|| {
        let out = Command::new("git")
            .args(["rev-parse", "--short=8", "HEAD"])
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
            .filter(|rev| !rev.is_empty())
    });
    let package_version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let version = match revision {
        Some(revision) => format!("{package_version}+{revision}"),
        None => package_version,
    };
    println!("cargo:rustc-env=PILLBOX_VERSION={version}");
    version
}

fn build_ui() {
    println!("cargo:rerun-if-env-changed=PILLBOX_SKIP_UI_BUILD");
    let skip = std::env::var_os("PILLBOX_SKIP_UI_BUILD").is_some_and(|v| v != "0" && !v.is_empty());
    if !skip {
        for input in [
            "ui/src",
            "ui/public",
            "ui/index.html",
            "ui/package.json",
            "ui/package-lock.json",
            "ui/vite.config.ts",
            "ui/tsconfig.json",
            "ui/tsconfig.app.json",
            "ui/tsconfig.node.json",
            "ui/tsconfig.sw.json",
        ] {
            if Path::new(input).exists() {
                println!("cargo:rerun-if-changed={input}");
            }
        }
        if needs_npm_ci() {
            npm(&["ci", "--no-audit", "--no-fund"]);
        }
        npm(&["run", "build"]);
    } else {
        // Nothing else tells cargo that a UI built by hand changed.
        println!("cargo:rerun-if-changed=ui/dist");
    }
    if !Path::new("ui/dist/index.html").exists() {
        panic!(
            "ui/dist/index.html is missing: build the web UI with `npm --prefix ui ci && npm --prefix ui run build`, \
             or unset PILLBOX_SKIP_UI_BUILD so the build script does it"
        );
    }
}

/// `npm ci` again when node_modules is missing or older than the lock file.
fn needs_npm_ci() -> bool {
    let modified = |p: &str| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (
        modified("ui/node_modules/.package-lock.json"),
        modified("ui/package-lock.json"),
    ) {
        (Some(installed), Some(lock)) => installed < lock,
        _ => true,
    }
}

fn npm(args: &[&str]) {
    let status = Command::new("npm")
        .args(args)
        .current_dir("ui")
        .status()
        .unwrap_or_else(|e| {
            panic!("could not run npm ({e}); Node.js 20+ with npm is needed to build the web UI")
        });
    if !status.success() {
        panic!("`npm {}` in ui/ failed with {status}", args.join(" "));
    }
}

/// Smaller files are not worth a `Content-Encoding` header and another copy. Compressing
/// costs nothing at run time, so even index.html (about 1 KB) has its copy.
const MIN_COMPRESS: usize = 256;

/// Writes `$OUT_DIR/ui_files.rs`: one `UiFile` a file of `ui/dist`, sorted by path, with its
/// content type and its bytes gzipped (`include_bytes!`), or as they are when compression is
/// not worth it. Each encoding has its own ETag: a cache that keeps one encoding must not
/// revalidate it with another's tag.
///
/// One compressed copy, gzip: every client takes it, while browsers offer Brotli only over
/// HTTPS. A Brotli copy as well cost 475 KB of the binary to save 16% of a transfer that a
/// browser makes once per version of the app (hashed assets are cached for a year).
fn embed_ui() {
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/dist");
    // The cache keeps each file's copy by content, so an unchanged file (Redoc, most of the
    // icons) is never compressed twice.
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let gzip_level = if release { 9 } else { 6 };
    let cache = out_dir.join("ui-compressed");
    std::fs::create_dir_all(&cache).expect("create the UI compression cache");

    let mut paths = Vec::new();
    list_files(&dist, &mut paths);
    // By name, as the server looks files up.
    paths.sort_by_key(|p| p.to_string_lossy().into_owned());
    let mut used = HashSet::new();
    let mut code = String::from("static UI_FILES: &[UiFile] = &[\n");
    for path in paths {
        let name = path
            .strip_prefix(&dist)
            .expect("listed under ui/dist")
            .to_str()
            .expect("UI file names are UTF-8")
            .replace('\\', "/");
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let hash = base16(&Sha256::digest(&data)[..16]);
        let content_type = content_type(&name);
        let mut gzip_copy = None;
        if data.len() >= MIN_COMPRESS && compressible(content_type) {
            let gzip_file = cache.join(format!("{hash}.l{gzip_level}.gz"));
            if !gzip_file.exists() {
                write_atomically(&gzip_file, &gzip(&data, gzip_level));
            }
            // A copy that saves little is not worth its space in the binary.
            if std::fs::metadata(&gzip_file).is_ok_and(|m| (m.len() as usize) < data.len() * 9 / 10) {
                gzip_copy = Some(gzip_file.clone());
            }
            used.insert(gzip_file);
        }
        // A file with a gzip copy is not embedded as it is too: the rare client that does not
        // take gzip gets the copy inflated, which costs a millisecond or two and saves the
        // binary two megabytes.
        let (plain, gzip) = match gzip_copy {
            Some(file) => (
                "None".to_owned(),
                format!(
                    "Some(Variant {{ bytes: include_bytes!({:?}), etag: {:?} }})",
                    file.display().to_string(),
                    format!("\"{hash}-gz\""),
                ),
            ),
            None => (
                format!("Some(include_bytes!({:?}))", path.display().to_string()),
                "None".to_owned(),
            ),
        };
        let _ = writeln!(
            code,
            "    UiFile {{ path: {name:?}, content_type: {content_type:?}, etag: {etag:?}, \
             len: {len}, plain: {plain}, gzip: {gzip} }},",
            etag = format!("\"{hash}\""),
            len = data.len(),
        );
    }
    code.push_str("];\n");
    // Copies of files the UI no longer has.
    if let Ok(entries) = std::fs::read_dir(&cache) {
        for entry in entries.flatten() {
            if !used.contains(&entry.path()) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    std::fs::write(out_dir.join("ui_files.rs"), code).expect("write ui_files.rs");
}

fn list_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("list ui/dist").path();
        if path.is_dir() {
            list_files(&path, files);
        } else {
            files.push(path);
        }
    }
}

/// The `Content-Type` of a file the UI build makes, by its extension.
fn content_type(name: &str) -> &'static str {
    let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("txt") => "text/plain; charset=utf-8",
        Some("json" | "map") => "application/json",
        Some("webmanifest") => "application/manifest+json",
        Some("svg") => "image/svg+xml",
        Some("xml") => "application/xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("webp") => "image/webp",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("woff2") => "font/woff2",
        Some("woff") => "font/woff",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    }
}

fn compressible(content_type: &str) -> bool {
    let mime = content_type.split(';').next().unwrap_or_default();
    mime.starts_with("text/")
        || mime.ends_with("json")
        || mime.ends_with("+xml")
        || mime == "application/xml"
        || mime == "application/wasm"
}

/// Writes `$OUT_DIR/index_script_hashes.txt`: a `'sha256-…'` source for each inline script of
/// `ui/dist/index.html` (the first screen's preload, written by vite.config.ts), which the
/// server's Content-Security-Policy admits by these hashes and no other inline script.
fn hash_index_scripts() {
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let index = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/dist/index.html");
    let html = std::fs::read_to_string(&index).unwrap_or_else(|e| panic!("read {}: {e}", index.display()));
    let mut sources = Vec::new();
    for tag in html.split("<script").skip(1) {
        let (attributes, rest) = tag.split_once('>').expect("index.html: a <script> tag is closed");
        if attributes.contains(" src=") {
            continue;
        }
        // An inline script with attributes (say `type="module"`) would go unhashed and the
        // policy would block it without a word: refused here instead.
        assert!(
            attributes.is_empty(),
            "index.html: an inline script with attributes (<script{attributes}>) is not admitted by the policy; \
             write it as a plain <script> so that build.rs hashes it"
        );
        let body = rest
            .split_once("</script>")
            .expect("index.html: an inline script is closed")
            .0;
        let digest = Sha256::digest(body.as_bytes());
        sources.push(format!("'sha256-{}'", BASE64.encode(digest)));
    }
    std::fs::write(out_dir.join("index_script_hashes.txt"), sources.join(" "))
        .expect("write index_script_hashes.txt");
}

fn gzip(data: &[u8], level: u32) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
    encoder.write_all(data).expect("gzip into memory");
    encoder.finish().expect("gzip into memory")
}

/// A cache file is whole or absent, even if the build is interrupted.
fn write_atomically(path: &Path, data: &[u8]) {
    let partial = path.with_extension("partial");
    std::fs::write(&partial, data).unwrap_or_else(|e| panic!("write {}: {e}", partial.display()));
    std::fs::rename(&partial, path).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

fn base16(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
