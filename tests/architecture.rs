//! The layers of ARCHITECTURE.md, checked on the source: which top-level module may import
//! which, no cycles between them, handlers that never import each other, and every API route
//! declared through the OpenAPI router (so none can be served without being documented).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Top-level module → the top-level modules it imports (`crate::x`), test code left out.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in sources() {
        let top = top_module(&path);
        let code = without_tests(&text);
        let entry = graph.entry(top.clone()).or_default();
        for target in crate_paths(&code) {
            if target != top {
                entry.insert(target);
            }
        }
    }
    graph
}

fn sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, fs::read_to_string(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn top_module(rel: &str) -> String {
    let first = rel.split('/').next().unwrap();
    first.trim_end_matches(".rs").to_owned()
}

/// The file without its `#[cfg(test)] mod tests { … }` (always last in this code base).
fn without_tests(text: &str) -> String {
    match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => text[..i].to_owned(),
        None => text.to_owned(),
    }
}

/// Every `x` in `crate::x` and `crate::{x, y::…}`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = matching_brace(group);
            for part in group[..end].split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != "self" {
                    out.insert(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

fn matching_brace(text: &str) -> usize {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return i,
            '}' => depth -= 1,
            _ => {}
        }
    }
    text.len()
}

/// What each layer may import (ARCHITECTURE.md). Modules not named here are infrastructure
/// (config, clock, db, files, logging, secrets, mailer, version) and may import only
/// infrastructure.
fn allowed(module: &str) -> Option<&'static [&'static str]> {
    Some(match module {
        "main" | "cli" => return None, // the binary's edge: may use everything
        "http" => &[
            "services",
            "domain",
            "store",
            "security",
            "reminders",
            "config",
            "clock",
            "db",
            "files",
            "secrets",
            "mailer",
            "version",
        ],
        "reminders" => &[
            "services", "domain", "store", "security", "config", "clock", "db", "files", "secrets", "mailer",
            "version",
        ],
        "services" => &[
            "domain", "store", "security", "config", "clock", "db", "files", "secrets", "mailer", "version",
        ],
        "store" => &["domain", "security", "clock", "db"],
        "security" => &["config", "clock", "db", "secrets"],
        "domain" => &[],
        "config" | "clock" | "db" | "files" | "logging" | "secrets" | "mailer" | "version" => &[
            "config", "clock", "db", "files", "logging", "secrets", "mailer", "version",
        ],
        _ => return Some(&[]),
    })
}

#[test]
fn layers_import_only_what_they_may() {
    let mut wrong = Vec::new();
    for (module, targets) in imports() {
        let Some(allowed) = allowed(&module) else { continue };
        for target in targets {
            if !allowed.contains(&target.as_str()) {
                wrong.push(format!("{module} imports {target}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that ARCHITECTURE.md forbids:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_cycles_between_top_level_modules() {
    let graph = imports();
    // Depth-first search for a back edge; reports the first cycle found.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|n| n == node) {
            let mut cycle = path[i..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(cycle) = visit(node, &graph, &mut Vec::new(), &mut done) {
            panic!("import cycle: {}", cycle.join(" → "));
        }
    }
}

/// Modules under src/http/ that are handlers (everything but the plumbing).
const HTTP_PLUMBING: &[&str] = &[
    "mod",
    "error",
    "extract",
    "middleware",
    "session",
    "openapi",
    "assets",
    "limits",
    "answers",
    "test_clock",
    "server",
    "list_cache",
];

#[test]
fn handlers_never_import_each_other() {
    let handlers: Vec<(String, String)> = sources()
        .into_iter()
        .filter(|(path, _)| path.starts_with("http/"))
        .map(|(path, text)| {
            let name = path
                .trim_start_matches("http/")
                .trim_end_matches(".rs")
                .to_owned();
            (name, text)
        })
        .collect();
    let names: Vec<&str> = handlers
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !HTTP_PLUMBING.contains(n))
        .collect();
    let mut wrong = Vec::new();
    for (name, text) in &handlers {
        let code = without_tests(text);
        for other in &names {
            if other == name {
                continue;
            }
            for pattern in [
                format!("super::{other}::"),
                format!("super::{{{other}"),
                format!("http::{other}::"),
            ] {
                if code.contains(&pattern) {
                    wrong.push(format!("http/{name}.rs uses {pattern}"));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "handlers importing handlers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_api_route_goes_through_the_openapi_router() {
    let mut wrong = Vec::new();
    for (path, text) in sources() {
        if !path.starts_with("http/") || path == "http/mod.rs" {
            continue;
        }
        let Some(start) = text.find("pub fn routes() -> OpenApiRouter<AppState>") else {
            continue;
        };
        let body = &text[start..];
        let body = &body[..body.find("\n}\n").unwrap_or(body.len())];
        if body.contains(".route(") {
            wrong.push(format!(
                "{path}: routes() serves a route without documenting it (use .routes(routes!(…)))"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The server takes only paths and methods from the annotations (`http::routes!`); utoipa's own
/// macro would put the code that describes each operation back into the binary (the tests make
/// the document, see src/http/openapi.rs).
#[test]
fn handler_modules_mount_routes_with_the_servers_own_macro() {
    let wrong: Vec<String> = sources()
        .into_iter()
        .filter(|(path, text)| {
            path.starts_with("http/") && path != "http/mod.rs" && text.contains("utoipa_axum::routes")
        })
        .map(|(path, _)| format!("{path}: use super::routes, not utoipa_axum::routes"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn handlers_name_store_rows_but_never_call_the_store() {
    let mut wrong = Vec::new();
    for (path, text) in sources() {
        if !path.starts_with("http/") {
            continue;
        }
        let code = without_tests(&text);
        for line in code.lines().filter(|l| l.contains("crate::store::")) {
            let used = line.split("crate::store::").nth(1).unwrap_or_default();
            // `module::{Row, Other}` or `module::Row`: only type names (capitalised) may follow.
            let names = used.split_once("::").map(|(_, rest)| rest).unwrap_or_default();
            let names = names.trim_end_matches(';').trim_matches(|c| c == '{' || c == '}');
            let calls_functions = names
                .split(',')
                .map(str::trim)
                .any(|name| !name.chars().next().is_some_and(char::is_uppercase));
            if calls_functions {
                wrong.push(format!("{path}: {}", line.trim()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "handlers reaching into the store instead of a service:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn handlers_open_no_transactions() {
    // A unit of work is a service's (or `Db::transaction`'s, which commits on Ok and rolls
    // back on Err): a handler that opened one could commit half of a change.
    let wrong: Vec<String> = sources()
        .into_iter()
        .filter(|(path, _)| path.starts_with("http/"))
        .flat_map(|(path, text)| {
            without_tests(&text)
                .lines()
                .filter(|line| line.contains(".transaction()") || line.contains(".commit()"))
                .map(|line| format!("{path}: {}", line.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "handlers opening or committing transactions (use a service or Db::transaction):\n{}",
        wrong.join("\n")
    );
}

/// What the HTTP edge may take from the engine (the other edge): the handle the server
/// state holds (`dispatcher::Engine`: send now, send a test, wake the queues, the channel
/// policy), the heartbeat `/health` reads, and — debug builds only — the test clock's pass.
const ENGINE_HANDLE: &[&str] = &[
    "reminders::dispatcher::Engine",
    "reminders::heartbeat",
    "reminders::run_tick_now",
];

#[test]
fn the_http_edge_reaches_the_engine_only_through_its_handle() {
    let mut wrong = Vec::new();
    for (path, text) in sources() {
        if !path.starts_with("http/") {
            continue;
        }
        let code = without_tests(&text);
        for (i, _) in code.match_indices("crate::reminders") {
            let used: String = code[i + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            if !ENGINE_HANDLE.iter().any(|allowed| used.starts_with(allowed)) {
                wrong.push(format!("{path}: {used}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the HTTP edge reaching into the engine past its handle (ARCHITECTURE.md):\n{}",
        wrong.join("\n")
    );
}
