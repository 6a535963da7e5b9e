//! Build script: records the git revision for `/api/version` and builds the web UI
//! (`ui/dist`) that rust-embed compiles into the binary.
//!
//! Set `PILLBOX_SKIP_UI_BUILD=1` to use an existing `ui/dist` as it is (for example when
//! cross-compiling with a UI built elsewhere).

use std::path::Path;
use std::process::Command;

fn main() {
    record_git_revision();
    build_ui();
}

fn record_git_revision() {
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
