//! The layers of ARCHITECTURE.md, checked on the source: which top-level module may import
//! which, no cycles between them, handlers that never import each other, SQL run only in
//! store/ and db/, handlers that name store row types but never reach a store function, and
//! every API route declared through the OpenAPI router (so none can be served without being
//! documented).

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
        // Home Assistant by MQTT: an edge that reads and records through services only.
        "home_assistant" => &["services", "domain", "config", "clock", "db", "version"],
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

/// The file's code with its comment lines blanked (so a doc comment that says "prepares" is
/// no call, and line numbers stay the file's).
fn code_lines(text: &str) -> String {
    without_tests(text)
        .lines()
        .map(|line| {
            if line.trim_start().starts_with("//") {
                ""
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// rusqlite's methods that run SQL, on a connection, a transaction or a statement.
const SQL_METHODS: &[&str] = &[
    "prepare",
    "prepare_cached",
    "execute",
    "execute_batch",
    "query",
    "query_row",
    "query_map",
    "query_one",
    "query_and_then",
    "query_row_and_then",
    "pragma",
    "pragma_query",
    "pragma_query_value",
    "pragma_update",
    "pragma_update_and_check",
];

/// Every call of an SQL method in `code`, by line: as a method (`conn.execute(`, also on the
/// line after its receiver, or with a turbofish) or as a path (`Connection::execute(&conn, …)`).
fn sql_calls(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for method in SQL_METHODS {
        for spelling in [
            format!(".{method}("),
            format!(".{method}::<"),
            format!("::{method}("),
        ] {
            for (i, _) in code.match_indices(&spelling) {
                let line = code[..i].matches('\n').count() + 1;
                found.push((line, format!("{method}(")));
            }
        }
    }
    found.sort();
    found
        .into_iter()
        .map(|(line, call)| format!("line {line}: {call}"))
        .collect()
}

/// Files outside store/ and db/ that may run SQL, and why.
const SQL_OUTSIDE_STORE: &[(&str, &str)] = &[(
    "services/backup.rs",
    // A restore checks a file someone hands it before it becomes the database: its integrity,
    // its schema version and its journal mode. That file is not yet the live database that
    // store/ describes (the snapshot's own key-file table is in store::snapshot_files).
    "restore's inspection of an incoming snapshot",
)];

/// Fields of store rows (and of the new rows handed to the store) named for an instant
/// (`…_at`, `…_until`) that hold it as text.
fn stored_times_as_text(code: &str) -> Vec<String> {
    code.lines()
        .map(str::trim)
        .filter(|line| {
            let Some((name, ty)) = line.strip_prefix("pub ").and_then(|f| f.split_once(':')) else {
                return false;
            };
            let ty = ty.trim().trim_end_matches(',');
            (name.ends_with("_at") || name.ends_with("_until"))
                && [
                    "String",
                    "Option<String>",
                    "&str",
                    "Option<&str>",
                    "&'a str",
                    "Option<&'a str>",
                ]
                .contains(&ty)
        })
        .map(str::to_owned)
        .collect()
}

/// A store row keeps an instant as a `Stamp` (ARCHITECTURE.md, "Time"): text would let an
/// unreadable value through to wherever it is parsed, with a default there. A claim
/// (`reminders::Job::claimed_until`: a time and a tag) is text on purpose.
#[test]
fn store_rows_keep_instants_as_stamps() {
    let mut wrong = Vec::new();
    for (path, text) in sources() {
        if !path.starts_with("store/") {
            continue;
        }
        for field in stored_times_as_text(&without_tests(&text)) {
            if field != "pub claimed_until: Option<String>," {
                wrong.push(format!("{path}: {field}"));
            }
        }
    }
    assert!(wrong.is_empty(), "instants held as text:\n{}", wrong.join("\n"));
    assert_eq!(
        stored_times_as_text("pub id: i64,\n    pub created_at: String,\n    pub sent_at: Option<Stamp>,"),
        ["pub created_at: String,"],
        "the check sees a planted field"
    );
}

#[test]
fn sql_runs_only_in_store_and_db() {
    let mut wrong = Vec::new();
    let mut needed = BTreeSet::new();
    for (path, text) in sources() {
        if path.starts_with("store/") || path.starts_with("db/") {
            continue;
        }
        let calls = sql_calls(&code_lines(&text));
        if calls.is_empty() {
            continue;
        }
        if SQL_OUTSIDE_STORE.iter().any(|(file, _)| *file == path) {
            needed.insert(path);
            continue;
        }
        for call in calls {
            wrong.push(format!("{path} {call}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "SQL outside store/ and db/ (move it into a store module and return typed rows):\n{}",
        wrong.join("\n")
    );
    for (file, why) in SQL_OUTSIDE_STORE {
        assert!(
            needed.contains(*file),
            "{file} runs no SQL any more: drop it from SQL_OUTSIDE_STORE ({why})"
        );
    }
}

/// The `use` declarations of `code` (each whole, however many lines it spans, with the line
/// it starts on) and the code with their lines blanked.
fn split_uses(code: &str) -> (Vec<(usize, String)>, String) {
    let mut uses = Vec::new();
    let mut rest = String::new();
    let mut current: Option<(usize, String)> = None;
    for (index, line) in code.lines().enumerate() {
        let trimmed = line.trim_start();
        let starts_use = ["use ", "pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .any(|p| trimmed.starts_with(p));
        if current.is_none() && starts_use {
            current = Some((index + 1, String::new()));
        }
        match current.as_mut() {
            Some((_, decl)) => {
                decl.push_str(trimmed);
                decl.push(' ');
                rest.push('\n');
                if trimmed.contains(';') {
                    uses.push(current.take().unwrap_or_default());
                }
            }
            None => {
                rest.push_str(line);
                rest.push('\n');
            }
        }
    }
    (uses, rest)
}

/// The paths a `use` tree brings in: `crate::{a::{b, C}, d as e}` → `crate::a::b`,
/// `crate::a::C`, `crate::d` (an alias keeps what it names; `x::self` is `x`).
fn use_paths(tree: &str) -> Vec<String> {
    fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
        let tree = tree.trim();
        if tree.is_empty() {
            return;
        }
        match tree.find('{') {
            Some(open) => {
                let head = tree[..open].trim().trim_end_matches("::");
                let inner = &tree[open + 1..];
                let inner = &inner[..matching_brace(inner)];
                let base = join(prefix, head);
                let mut depth = 0;
                let mut start = 0;
                for (i, c) in inner.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            expand(&base, &inner[start..i], out);
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
                expand(&base, &inner[start..], out);
            }
            None => {
                let named = tree.split(" as ").next().unwrap_or_default().trim();
                let path = join(prefix, named);
                out.push(path.strip_suffix("::self").unwrap_or(&path).to_owned());
            }
        }
    }
    fn join(prefix: &str, rest: &str) -> String {
        match (prefix.is_empty(), rest.is_empty()) {
            (true, _) => rest.to_owned(),
            (_, true) => prefix.to_owned(),
            _ => format!("{prefix}::{rest}"),
        }
    }
    let body = tree
        .trim()
        .trim_start_matches("pub(crate) ")
        .trim_start_matches("pub(super) ")
        .trim_start_matches("pub ")
        .trim_start_matches("use ");
    let body = body.split(';').next().unwrap_or_default();
    let mut out = Vec::new();
    expand("", body, &mut out);
    out
}

fn identifier(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// Whether a path into the store names only a type (a row type, or an item of one): some
/// segment after `store` is capitalised. `store::history`, `store::history::find` and
/// `store::*` name a module or a function.
fn names_a_store_type(after_store: &[&str]) -> bool {
    after_store
        .iter()
        .any(|segment| segment.chars().next().is_some_and(char::is_uppercase))
}

/// Every place in an http/ file that reaches a store function or module: a `use` that brings
/// one in (through any grouping, alias or glob), or a path in the code
/// (`crate::store::x::f(`, `store::x::f(`, `super::super::store::…`, `map(store::x::f)`).
fn store_function_uses(path: &str, text: &str) -> Vec<String> {
    // From http/x.rs, `super::super` is the crate; from http/mod.rs, `super` is.
    let code = code_lines(text);
    let code = if path.ends_with("/mod.rs") {
        code.replace("super::", "crate::")
    } else {
        code.replace("super::super::", "crate::")
    };
    let (uses, rest) = split_uses(&code);
    let mut found = Vec::new();
    for (line, decl) in &uses {
        for used in use_paths(decl) {
            let segments: Vec<&str> = used.split("::").collect();
            if let ["crate", "store", after_store @ ..] = segments.as_slice()
                && !names_a_store_type(after_store)
            {
                found.push(format!("line {line}: use {used}"));
            }
        }
    }
    for (i, _) in rest.match_indices("store::") {
        let before = rest[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let mut segments = Vec::new();
        let mut tail = &rest[i + "store::".len()..];
        loop {
            let name = identifier(tail);
            if name.is_empty() {
                break;
            }
            segments.push(name);
            tail = &tail[name.len()..];
            match tail.strip_prefix("::") {
                Some(next) => tail = next,
                None => break,
            }
        }
        if !names_a_store_type(&segments) {
            let line = rest[..i].matches('\n').count() + 1;
            found.push(format!("line {line}: store::{}", segments.join("::")));
        }
    }
    found
}

#[test]
fn handlers_name_store_rows_but_never_call_the_store() {
    let mut wrong = Vec::new();
    for (path, text) in sources() {
        if path.starts_with("http/") {
            for reach in store_function_uses(&path, &text) {
                wrong.push(format!("{path}: {reach}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "handlers reaching into the store instead of a service (http/ may name store row types only):\n{}",
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

/// The two checks above, shown the violations they exist for: each must be found, and the
/// allowed spellings must not be.
#[test]
fn the_sql_and_store_checks_catch_planted_violations() {
    let service = [
        "fn prune(conn: &Connection) {",
        "    conn.execute(\"DELETE FROM t\", [])?;",
        "    let n = tx",
        "        .prepare_cached(\"SELECT 1\")?",
        "        .query_row([], |r| r.get(0))?;",
        "    Connection::execute_batch(&conn, \"VACUUM\")?;",
        "    let v = conn.query_row::<i64, _, _>(\"PRAGMA user_version\", [], |r| r.get(0))?;",
        "}",
    ]
    .join("\n");
    assert_eq!(
        sql_calls(&service),
        [
            "line 2: execute(",
            "line 4: prepare_cached(",
            "line 5: query_row(",
            "line 6: execute_batch(",
            "line 7: query_row("
        ]
    );
    let harmless = "/// Prepares and executes the plan.\nfn run() { prepare(&tx); plan.execute_later(); }\n";
    assert!(sql_calls(&code_lines(harmless)).is_empty());

    let handler = |code: &str| store_function_uses("http/medications.rs", code);
    let planted = [
        "fn a() { crate::store::history::find(conn, 1, 2); }",
        "fn a() { store::history::find(conn, 1, 2); }",
        "fn a() { super::super::store::users::count(conn); }",
        "fn a() { ids.map(crate::store::users::exists); }",
        "use crate::store;",
        "use crate::store::history;",
        "use crate::store::history::{self, Entry};",
        "use crate::store::history::find as find_entry;",
        "use crate::store::history::*;",
        "use crate::{\n    services,\n    store::{history::Entry, users::exists},\n};",
        "use crate::{store::history as h};",
    ];
    for code in planted {
        assert!(!handler(code).is_empty(), "not caught: {code}");
    }
    assert_eq!(
        store_function_uses("http/mod.rs", "use super::store::users::count;"),
        ["line 1: use crate::store::users::count"]
    );
    let allowed = [
        "use crate::store::medications::LedgerRow;",
        "use crate::store::{deliveries::Delivery, reminders::Reminder};",
        "use crate::{services::doses, store::users::User};",
        "fn a(row: crate::store::history::Entry) -> crate::store::Count { todo!() }",
        "fn a() { conn.shed.store(true, Ordering::Release); }",
        "// crate::store::history::find is what the service calls",
    ];
    for code in allowed {
        assert!(
            handler(code).is_empty(),
            "wrongly caught: {code}: {:?}",
            handler(code)
        );
    }
}
