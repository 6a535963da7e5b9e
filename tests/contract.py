#!/usr/bin/env python3
"""The API contract test: schemathesis against the real binary, every documented operation,
signed in. Fails on any 5xx, on any response that breaks the OpenAPI document (body schema,
status code, content type), and on any route the server serves but the document lacks.

Three accounts: the owner, whose token fuzzes the whole API; a carer the owner invited with
the view role, and a stranger with no link to the owner. The operations that take an id (in
the path, or `person_id`/`medicationId`/`medication_id`) are fuzzed again with the carer's and
the stranger's tokens against the owner's ids, so the answers a carer gets (403
`not_permitted`, 404) and another account gets (404 only) must be documented too; a few of
them are asserted directly, as a person would meet them.

Usage: python3 tests/contract.py [path/to/pillbox]   (default target/debug/pillbox)
Needs the pinned test tools: python3 -m pip install -r tests/requirements.txt (run-all.sh does). SCHEMATHESIS_MAX_EXAMPLES tunes the depth.
"""

import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/debug/pillbox"))
EMAIL = "contract@example.com"
PASSWORD = "contract-secret-1"
CARER_EMAIL = "carer@example.com"
STRANGER_EMAIL = "stranger@example.com"
Seeded = collections.namedtuple("Seeded", "owner carer stranger person medication entry")
CHECKS = ",".join([
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
])


def start_server(data_dir):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PILLBOX_")}
    env.update({
        "PILLBOX_DATA_DIR": data_dir,
        "PILLBOX_LOG_LEVEL": "info",
        "PILLBOX_SIGNUPS": "open",
        # The fuzzer signs in and registers far more often than a person does.
        "PILLBOX_REGISTRATION_LIMIT": "100000",
    })
    proc = subprocess.Popen([BIN, "serve", "--bind", "127.0.0.1:0"], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    log = []
    ready = threading.Event()
    address = {}

    def drain():
        for line in proc.stderr:
            log.append(line.rstrip("\n"))
            match = re.search(r"listening on (http://\S+)", line)
            if match and not ready.is_set():
                address["base"] = match.group(1)
                ready.set()

    threading.Thread(target=drain, daemon=True).start()
    if not ready.wait(30):
        proc.kill()
        sys.exit("pillbox did not start:\n" + "\n".join(log))
    return proc, address["base"], log


def call(base, method, path, body=None, token=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def register(base, email):
    status, body = call(base, "POST", "/api/auth/register", {"email": email, "password": PASSWORD})
    assert status == 201, body
    return body["data"]["token"]


def seed(base):
    """Three accounts: the owner with a person, a medication and a dose, so that ids in paths
    hit real rows; a carer who accepted the owner's invitation with the view role (through the
    API, as a person does); and a stranger who has nothing to do with either."""
    owner = register(base, EMAIL)
    status, body = call(base, "POST", "/api/medications", {
        "name": "Contract", "unit": "mg", "frequency": "daily",
        "schedule": {"times": ["08:00"]},
    }, owner)
    assert status in (200, 201), body
    medication = body["data"]["id"]
    status, body = call(base, "POST", f"/api/medications/{medication}/doses", {"status": "taken"}, owner)
    assert status == 201, body
    entry = body["data"]["entry"]["id"]
    status, body = call(base, "GET", "/api/people", token=owner)
    assert status == 200, body
    person = next(p["id"] for p in body["data"] if p["is_self"])
    status, body = call(base, "POST", f"/api/people/{person}/carers",
                        {"email": CARER_EMAIL, "role": "view"}, owner)
    assert status == 201, body
    invitation = body["data"]["invite_url"].rsplit("/", 1)[-1]
    carer = register(base, CARER_EMAIL)
    status, body = call(base, "POST", f"/api/invitations/{invitation}/accept", token=carer)
    assert status == 200 and body["data"]["role"] == "view", body
    stranger = register(base, STRANGER_EMAIL)
    return Seeded(owner, carer, stranger, person, medication, entry)


def others_meet_403_and_404(base, seeded):
    """What a person would notice, asked directly: another account's person, medication and
    history entry answer 404, whatever is asked of them; a view-only carer sees the owner's
    medication and history but changing them answers 403 `not_permitted`."""
    medication, person, entry = seeded.medication, seeded.person, seeded.entry
    change_medication = {"name": "Renamed"}
    a_dose = {"status": "taken"}
    asks = [
        ("GET", f"/api/medications/{medication}", None),
        ("PUT", f"/api/medications/{medication}", change_medication),
        ("DELETE", f"/api/medications/{medication}", None),
        ("POST", f"/api/medications/{medication}/doses", a_dose),
        ("GET", f"/api/medications/{medication}/history", None),
        ("GET", f"/api/medications/{medication}/inventory", None),
        ("POST", f"/api/medications/{medication}/inventory/adjust", {"adjustment": 5}),
        ("PUT", f"/api/medications/history/{entry}", {"dosage": "changed"}),
        ("DELETE", f"/api/medications/history/{entry}", None),
        ("GET", f"/api/medications?person_id={person}", None),
        ("GET", f"/api/medications/history?person_id={person}", None),
        ("GET", f"/api/medications/today?person_id={person}", None),
        ("POST", "/api/medications", {"name": "Theirs", "unit": "mg", "frequency": "daily",
                                   "schedule": {"times": ["09:00"]}, "person_id": person}),
        ("PUT", f"/api/people/{person}", {"name": "Renamed"}),
        ("GET", f"/api/people/{person}/carers", None),
    ]
    problems = []
    for method, path, body in asks:
        status, answer = call(base, method, path, body, seeded.stranger)
        if status != 404:
            problems.append(f"another account's {method} {path} answered {status}, not 404: {answer}")
    carer_changes = [ask for ask in asks if ask[0] != "GET" and "/carers" not in ask[1]]
    for method, path, body in carer_changes:
        status, answer = call(base, method, path, body, seeded.carer)
        code = (answer or {}).get("code")
        if (status, code) != (403, "not_permitted"):
            problems.append(f"a view-only carer's {method} {path} answered {status} {code}, "
                            f"not 403 not_permitted")
    for method, path, _ in asks:
        if method == "GET" and "/carers" not in path:
            status, answer = call(base, method, path, None, seeded.carer)
            if status != 200:
                problems.append(f"a view-only carer's {method} {path} answered {status}, not 200: {answer}")
    status, answer = call(base, "GET", f"/api/medications/{medication}", token=seeded.owner)
    if status != 200 or answer["data"]["name"] != "Contract":
        problems.append(f"the owner's medication changed or went: {status} {answer}")
    return problems


def served_but_undocumented(base, document):
    """Routes answered by the API but missing from the document: every documented path with a
    method it does not list must answer 405 (no route) and never something else."""
    problems = []
    for path, item in document["paths"].items():
        concrete = re.sub(r"\{[^}]+\}", "1", path)
        for method in ("get", "post", "put", "delete", "patch"):
            if method in item:
                continue
            request = urllib.request.Request(base + concrete, method=method.upper(), data=b"{}")
            request.add_header("Content-Type", "application/json")
            try:
                urllib.request.urlopen(request)
                problems.append(f"{method.upper()} {path} is served but not documented")
            except urllib.error.HTTPError as error:
                if error.code != 405:
                    problems.append(f"{method.upper()} {path} answers {error.code} but is not documented")
    return problems


# Names that carry the id of a person or a medication, in a query or a JSON body.
ID_QUERY_PARAMETERS = ("person_id", "medicationId")
ID_BODY_FIELDS = ("person_id", "medication_id")


def operations_taking_ids(document):
    """The ids of the operations that name a row by its id: in the path, or a person or
    medication in the query or the body. Those are the ones another account or a carer can
    point at the owner's data; the rest answer for the caller's own account alone."""
    schemas = document.get("components", {}).get("schemas", {})
    chosen = []
    for item in document["paths"].values():
        for method, operation in item.items():
            if method not in ("get", "post", "put", "delete", "patch"):
                continue
            names = {(p.get("in"), p.get("name")) for p in operation.get("parameters", [])}
            body = (operation.get("requestBody", {}).get("content", {})
                    .get("application/json", {}).get("schema", {}))
            fields = schemas.get(body.get("$ref", "").rsplit("/", 1)[-1], {}).get("properties", {})
            if (("path", "id") in names
                    or any(("query", q) in names for q in ID_QUERY_PARAMETERS)
                    or any(f in fields for f in ID_BODY_FIELDS)):
                chosen.append(operation["operationId"])
    return chosen


def owners_ids_config(seeded):
    """A schemathesis configuration that puts the owner's ids into every request: the
    medication's, the person's and the history entry's, each where its kind is asked for. A
    carer's row id is one nobody has, so that the carer's pass never ends its own access."""
    medication, person, entry = seeded.medication, seeded.person, seeded.entry
    return f"""
[parameters]
"query.person_id" = {person}
"query.medicationId" = {medication}
"body.person_id" = {person}
"body.medication_id" = {medication}

[[operations]]
include-path-regex = '^/api/medications/history/\\{{id\\}}$'
parameters = {{ "path.id" = {entry}, "query.person_id" = {person}, "query.medicationId" = {medication} }}

[[operations]]
include-path-regex = '^/api/(notifications/)?medications/\\{{id\\}}'
parameters = {{ "path.id" = {medication}, "query.person_id" = {person}, "query.medicationId" = {medication} }}

[[operations]]
include-path-regex = '^/api/people/\\{{id\\}}'
parameters = {{ "path.id" = {person}, "path.carerId" = 999999 }}
"""


def main():
    if not os.path.exists(BIN):
        sys.exit(f"no binary at {BIN}: build it first (cargo build)")
    try:
        import schemathesis  # noqa: F401  (installed by tests/run-all.sh)
    except ImportError:
        sys.exit("schemathesis is not installed: python3 -m pip install -r tests/requirements.txt")
    with tempfile.TemporaryDirectory() as temp:
        proc, base, log = start_server(os.path.join(temp, "data"))
        try:
            seeded = seed(base)
            with urllib.request.urlopen(base + "/api/openapi.json") as response:
                document = json.loads(response.read())
            operations = sum(len([m for m in item if m in ("get", "post", "put", "delete", "patch")])
                             for item in document["paths"].values())
            print(f"contract: {operations} operations in {len(document['paths'])} paths", flush=True)
            problems = served_but_undocumented(base, document)
            problems += others_meet_403_and_404(base, seeded)
            paths = document["paths"]
            command = [
                sys.executable, "-m", "schemathesis.cli", "run", base + "/api/openapi.json",
                "--checks", CHECKS,
                # One worker: with two, hypothesis parses lambda sources in two threads at
                # once, and CPython 3.11's AST builder shares its depth counter between them
                # (python/cpython#106905): the run then crashes with "AST constructor recursion
                # depth mismatch" on a case that passes alone. The run is CPU-bound on this
                # machine's two cores, so one worker takes the same time (80 s).
                "--workers", "1",
                "--seed", os.environ.get("SCHEMATHESIS_SEED", "20261123"),
                # Hypothesis's health checks time the generation itself: on a busy machine
                # they stop a run that found nothing wrong. The seed and the example count
                # bound the run instead; the contract checks still fail every real break.
                "--suppress-health-check", "all",
                "--phases", "examples,coverage,fuzzing",
                "--request-timeout", "20",
                "--no-color",
                "--output-truncate", "true",
            ]
            # Signing out (this session, or every one) would end the run's own session halfway,
            # and every later call would only test the 401: those two are not fuzzed (the
            # integration tests in tests/accounts.rs cover them).
            for path in ("/api/auth/logout", "/api/auth/logout-all"):
                if path in paths:
                    command += ["--exclude-path", path]
            owner = command + [
                "--header", f"Authorization: Bearer {seeded.owner}",
                "--max-examples", os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "25"),
            ]
            # The carer and the stranger run first, against the owner's rows while they are
            # all there; only the operations that take an id, with valid requests only (an
            # invalid body is refused before anyone's access is asked) and fewer examples
            # each: the owner's pass has fuzzed the bodies already, these look at who may do
            # what.
            config = os.path.join(temp, "owners-ids.toml")
            with open(config, "w") as f:
                f.write(owners_ids_config(seeded))
            with_ids = [arg for op in operations_taking_ids(document)
                        for arg in ("--include-operation-id", op)]
            others = os.environ.get("SCHEMATHESIS_OTHERS_MAX_EXAMPLES", "5")
            passes = [
                [*command[:3], "--config-file", config, *command[3:],
                 "--header", f"Authorization: Bearer {token}", "--max-examples", others,
                 "--mode", "positive", "--phases", "examples,fuzzing", *with_ids]
                for token in (seeded.carer, seeded.stranger)
            ]
            # Deleting runs last, so that the rest is fuzzed with rows in place; the account
            # itself (DELETE /api/auth/me) is never fuzzed: its password is ours.
            keep_account = ["--exclude-path", "/api/auth/me"] if "/api/auth/me" in paths else []
            passes.append(owner + ["--exclude-method", "DELETE"])
            if any("delete" in item for path, item in paths.items() if path != "/api/auth/me"):
                passes.append(owner + ["--include-method", "DELETE"] + keep_account)
            failed = [p for p in passes if subprocess.run(p).returncode != 0]
            server_errors = [line for line in log if "request failed" in line and "status=5" in line]
            if proc.poll() is not None:
                problems.append("the server exited during the run")
            if server_errors:
                problems.append("the server logged 5xx answers:\n  " + "\n  ".join(server_errors[:20]))
            if failed:
                problems.append("schemathesis found responses that break the document (see above)")
            if problems:
                print("\n".join(["", "contract test FAILED:"] + problems), file=sys.stderr)
                sys.exit(1)
            print("contract: every operation answered within the document, no 5xx, "
                  "and the owner's ids answer a carer and another account as documented")
        finally:
            proc.terminate()
            proc.wait(timeout=15)


if __name__ == "__main__":
    main()
