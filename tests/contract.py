#!/usr/bin/env python3
"""The API contract test: schemathesis against the real binary, every documented operation,
signed in. Fails on any 5xx, on any response that breaks the OpenAPI document (body schema,
status code, content type), and on any route the server serves but the document lacks.

Five accounts: the owner, whose token fuzzes the whole API; three carers the owner invited,
one with each role (view, record, manage), and a stranger with no link to the owner. The
operations that take an id (in the path, or `person_id`/`medicationId`/`medication_id`) are
fuzzed again with each carer's and the stranger's tokens against the owner's ids, so the
answers a carer gets (what their role allows, 403 `not_permitted` beyond it, 404) and another
account gets (404 only) must be documented too. Each role's answers are also asked directly,
as a person would meet them: the status a role must get, and that status documented.

The document must also say what the server takes: when every valid request a pass generated
for an operation was refused for its data (schemathesis's "Schema validation mismatch"
warning; a carer's 403 and 404 do not count), the test fails, unless the operation is on
MAY_REFUSE_EVERY_VALID_REQUEST with the reason no valid request can pass in this run; a
listed operation that is no longer named is told (not failed: rate-limited answers also leave
it unnamed). Every pass loads tests/contract_hooks.py, which puts into valid requests what no
document can state (the account's password, a time in the coming days, a media type's
matching `source`, integers written as integers).

Usage: python3 tests/contract.py [path/to/pillbox]   (default target/debug/pillbox)
Needs the pinned test tools: python3 -m pip install -r tests/requirements.txt (run-all.sh does). SCHEMATHESIS_MAX_EXAMPLES tunes the depth
of the owner's passes, SCHEMATHESIS_OTHERS_MAX_EXAMPLES of the view-only carer's and the stranger's, and
SCHEMATHESIS_CHANGING_CARERS_MAX_EXAMPLES of the record and the manage carer's.
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
STRANGER_EMAIL = "stranger@example.com"
# A carer's roles, in rising order (services/access.rs says what each allows).
CARER_ROLES = ("view", "record", "manage")
# The rank of each role and of the owner's, above every carer's: a role may do what the
# ranks up to its own allow.
RANKS = {role: rank for rank, role in enumerate(CARER_ROLES + ("owner",))}
# `carers` maps each role to the token of the carer who holds it.
Seeded = collections.namedtuple("Seeded", "owner carers stranger person medication entry stocked carers_stocked")
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


def medication_with_a_dose(base, owner, name):
    """A daily medication of the owner's with one dose taken: its id and the dose's entry id."""
    status, body = call(base, "POST", "/api/medications", {
        "name": name, "unit": "mg", "frequency": "daily",
        "schedule": {"times": ["08:00"]},
    }, owner)
    assert status in (200, 201), body
    medication = body["data"]["id"]
    status, body = call(base, "POST", f"/api/medications/{medication}/doses", {"status": "taken"}, owner)
    assert status == 201, body
    return medication, body["data"]["entry"]["id"]


def carer_with_role(base, owner, person, role):
    """The token of a carer who accepted the owner's invitation to `person` with `role`
    (through the API, as a person does)."""
    email = f"{role}-carer@example.com"
    status, body = call(base, "POST", f"/api/people/{person}/carers", {"email": email, "role": role}, owner)
    assert status == 201, body
    invitation = body["data"]["invite_url"].rsplit("/", 1)[-1]
    carer = register(base, email)
    status, body = call(base, "POST", f"/api/invitations/{invitation}/accept", token=carer)
    assert status == 200 and body["data"]["role"] == role, body
    return carer


def seed(base):
    """Five accounts: the owner with a person, a medication and a dose, so that ids in paths
    hit real rows; a carer of the owner's person with each role; and a stranger who has
    nothing to do with any of them."""
    owner = register(base, EMAIL)
    medication, entry = medication_with_a_dose(base, owner, "Contract")
    status, body = call(base, "GET", "/api/people", token=owner)
    assert status == 200, body
    person = next(p["id"] for p in body["data"] if p["is_self"])
    carers = {role: carer_with_role(base, owner, person, role) for role in CARER_ROLES}
    stranger = register(base, STRANGER_EMAIL)
    stocked = stocked_medication(base, owner)
    carers_stocked = stocked_medication(base, owner)
    return Seeded(owner, carers, stranger, person, medication, entry, stocked, carers_stocked)


def stocked_medication(base, owner):
    """A medication of the owner's with its stock counted (not in batches) and plenty of it, for
    the owner's pass to adjust: an adjustment is refused for a medication whose stock is off,
    or for a take-away of more than is on hand. The owner's passes adjust one, the carers'
    passes (which run first) another, so that what one takes away the other does not miss."""
    status, body = call(base, "POST", "/api/medications", {
        "name": "Stocked", "unit": "mg", "frequency": "daily", "schedule": {"times": ["08:00"]},
    }, owner)
    assert status in (200, 201), body
    medication = body["data"]["id"]
    status, body = call(base, "POST", f"/api/medications/{medication}/inventory", {
        "enabled": True, "inventory_type": "discrete", "container_type": "blister_pack",
        "container_quantity": 3, "item_quantity": 10, "item_strength": 500, "item_unit": "tablets",
    }, owner)
    assert status in (200, 201), body
    # A billion on hand: any take-away the document allows (down to -1e9) finds enough stock,
    # so that the pass does not meet `stock_below_zero` for most of what it takes away.
    status, body = call(base, "POST", f"/api/medications/{medication}/inventory/adjust",
                        {"adjustment": 1_000_000_000 - 30}, owner)
    assert status == 200, body
    return medication


def asks_of(medication, person, entry):
    """What a person may ask of a medication, its person and a history entry, each with the
    least role it needs: reads, then changes, then deletes (so that each ask still finds its
    rows)."""
    a_medication = {"name": "Theirs", "unit": "mg", "frequency": "daily",
                    "schedule": {"times": ["09:00"]}, "person_id": person}
    a_stock = {"enabled": True, "inventory_type": "discrete", "container_type": "blister_pack",
               "container_quantity": 3, "item_quantity": 10, "item_strength": 500, "item_unit": "tablets"}
    return [
        ("view", "GET", f"/api/medications/{medication}", None),
        ("view", "GET", f"/api/medications/{medication}/history", None),
        ("view", "GET", f"/api/medications/{medication}/inventory", None),
        ("view", "GET", f"/api/medications/{medication}/inventory/ledger", None),
        ("view", "GET", f"/api/medications?person_id={person}", None),
        ("view", "GET", f"/api/medications/history?person_id={person}", None),
        ("view", "GET", f"/api/medications/history?medicationId={medication}", None),
        ("view", "GET", f"/api/medications/today?person_id={person}", None),
        ("view", "GET", f"/api/medications/adherence?person_id={person}", None),
        ("view", "GET", f"/api/medications/inventory/low-stock?person_id={person}", None),
        ("record", "POST", f"/api/medications/{medication}/doses", {"status": "taken"}),
        ("record", "PUT", f"/api/medications/history/{entry}", {"dosage": "changed"}),
        ("manage", "PUT", f"/api/medications/{medication}", {"name": "Renamed"}),
        ("manage", "POST", f"/api/medications/{medication}/inventory", a_stock),
        ("manage", "POST", f"/api/medications/{medication}/inventory/adjust", {"adjustment": 5}),
        ("manage", "POST", "/api/medications", a_medication),
        ("owner", "GET", f"/api/people/{person}/carers", None),
        ("owner", "GET", f"/api/people/{person}/audit", None),
        ("owner", "PUT", f"/api/people/{person}", {"name": "Renamed"}),
        ("owner", "POST", f"/api/people/{person}/carers", {"email": "more@example.com", "role": "view"}),
        ("record", "DELETE", f"/api/medications/history/{entry}", None),
        ("manage", "DELETE", f"/api/medications/{medication}", None),
    ]


def documented_statuses(document, method, path):
    """The statuses the document lists for a concrete request (`/api/medications/7?x=1`): of
    the path template that matches it with the fewest parameters, so that
    `/api/medications/history` is not read as `/api/medications/{id}`."""
    path = path.split("?", 1)[0]

    def pattern(template):
        parts = re.split(r"(\{[^}]+\})", template)
        return "".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts)

    matching = [template for template in document["paths"] if re.fullmatch(pattern(template), path)]
    if not matching:
        return set()
    template = min(matching, key=lambda t: t.count("{"))
    operation = document["paths"][template].get(method.lower(), {})
    return {int(status) for status in operation.get("responses", {}) if status.isdigit()}


def each_role_meets_its_answers(base, document, seeded):
    """What a person would notice, asked directly. Another account's person, medication and
    history entry answer 404, whatever is asked of them. A carer gets what their role allows
    (view reads; record also logs, corrects and deletes doses; manage also changes the
    medication and its stock) and 403 `not_permitted` beyond it: the person's details and
    circle are the owner's alone. Every answer's status is one the document lists. The record
    and the manage carer change rows of their own, so that the owner's seeded rows stay for
    the fuzzing."""
    problems = []

    def ask(who, token, method, path, body):
        status, answer = call(base, method, path, body, token)
        if status not in documented_statuses(document, method, path):
            problems.append(f"{who}'s {method} {path} answered {status}, which the document "
                            f"does not list: {answer}")
        return status, (answer or {}).get("code")

    for _, method, path, body in asks_of(seeded.medication, seeded.person, seeded.entry):
        status, code = ask("another account", seeded.stranger, method, path, body)
        if status != 404:
            problems.append(f"another account's {method} {path} answered {status} {code}, not 404")
    for role, token in seeded.carers.items():
        # A view-only carer can change nothing, so it asks about the seeded rows themselves.
        if role == "view":
            medication, entry = seeded.medication, seeded.entry
        else:
            medication, entry = medication_with_a_dose(base, seeded.owner, f"For the {role} carer")
        for needed, method, path, body in asks_of(medication, seeded.person, entry):
            status, code = ask(f"a {role} carer", token, method, path, body)
            if RANKS[role] >= RANKS[needed]:
                if not 200 <= status < 300:
                    problems.append(f"a {role} carer's {method} {path} answered {status} {code}, "
                                    f"not a success")
            elif (status, code) != (403, "not_permitted"):
                problems.append(f"a {role} carer's {method} {path} answered {status} {code}, "
                                f"not 403 not_permitted")
        # What the role could not do left the rows as they were.
        status, answer = call(base, "GET", f"/api/medications/{medication}", token=seeded.owner)
        if RANKS[role] < RANKS["manage"] and (status != 200 or answer["data"]["name"] == "Renamed"):
            problems.append(f"a {role} carer changed or deleted the owner's medication: {status} {answer}")
        if RANKS[role] >= RANKS["manage"] and status != 404:
            problems.append(f"the medication a {role} carer deleted answers the owner {status}, not 404")
    status, answer = call(base, "GET", f"/api/medications/{seeded.medication}", token=seeded.owner)
    if status != 200 or answer["data"]["name"] != "Contract":
        problems.append(f"the owner's medication changed or went: {status} {answer}")
    status, answer = call(base, "GET", "/api/people", token=seeded.owner)
    if status != 200 or any(p["name"] == "Renamed" for p in answer["data"]):
        problems.append(f"a carer renamed the owner's person: {status} {answer}")
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
    medication's, the person's and the history entry's, each where its kind is asked for; a
    stock adjustment, of the owner's medication kept for the carers' passes. A carer's row id
    is one nobody has, so that the carer's pass never ends its own access."""
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
include-path = "/api/medications/{{id}}/inventory/adjust"
parameters = {{ "path.id" = {seeded.carers_stocked} }}

[[operations]]
include-path-regex = '^/api/(notifications/)?medications/\\{{id\\}}'
parameters = {{ "path.id" = {medication}, "query.person_id" = {person}, "query.medicationId" = {medication} }}

[[operations]]
include-path-regex = '^/api/people/\\{{id\\}}'
parameters = {{ "path.id" = {person}, "path.carerId" = 999999 }}
"""


def owners_config(seeded):
    """The owner's passes' configuration: the ids a valid request needs and the generator
    cannot guess. A stock adjustment is asked of the stocked medication; the changes that
    could turn its stock off or into batches (the medication, its stock, its batches) are
    asked of the owner's other medication instead, as are a one-off reminder and an export
    of one person. (Deletes keep generated ids: the delete pass would otherwise remove the
    seeded rows first and meet only 404s after.)"""
    return f"""
[[operations]]
include-path = "/api/medications/{{id}}/inventory/adjust"
parameters = {{ "path.id" = {seeded.stocked} }}

[[operations]]
include-path-regex = '^/api/medications/\\{{id\\}}(/inventory(/batches.*)?)?$'
exclude-method = "DELETE"
parameters = {{ "path.id" = {seeded.medication} }}

[[operations]]
include-path-regex = '^/api/people/\\{{id\\}}'
exclude-method = "DELETE"
parameters = {{ "path.id" = {seeded.person}, "path.carerId" = 999999 }}

[[operations]]
include-path = "/api/notifications"
include-method = "POST"
parameters = {{ "body.medication_id" = {seeded.medication} }}

[[operations]]
include-path = "/api/export"
parameters = {{ "query.person_id" = {seeded.person} }}
"""


# The operations the owner's pass may name in schemathesis's "Schema validation mismatch"
# warning (every valid request it generated was refused): what the server also asks of them
# is a secret or a state that no document can state and that this run cannot supply without
# ending its own session. Every other operation named there fails the test: its document
# allows more than the server takes, so write the missing constraint into the document. An
# operation listed here that the warning no longer names fails the test too: take it off.
MAY_REFUSE_EVERY_VALID_REQUEST = {
    "GET /api/auth/verify-email/{token}":
        "the token is one the server signed and e-mailed; no other is valid",
    "POST /api/auth/reset-password":
        "the token is one the server e-mailed with a reset link; no other is valid",
    "POST /api/auth/resend-verification":
        "the run's server has no e-mail configured (`email_not_configured`)",
    "POST /api/auth/change-password":
        "only the account's password is accepted, and changing it signs out the run's session",
    "POST /api/auth/2fa/verify-otp":
        "needs an account's password and a code the server e-mailed or its authenticator shows",
    "POST /api/auth/2fa/setup-email":
        "the run's server has no e-mail configured (`email_not_configured`)",
    "POST /api/auth/2fa/complete-totp-setup":
        "needs a code of the secret set-up answered, and turning two-factor on signs out the run's session",
    "POST /api/auth/2fa/backup-codes":
        "two-factor is off for the run's account (`two_factor_not_enabled`); turning it on signs out the run's session",
    "POST /api/auth/2fa/disable":
        "needs one of the account's backup codes, which exist only with two-factor on",
    "POST /api/auth/2fa/disable-method":
        "needs one of the account's backup codes, which exist only with two-factor on",
    "POST /api/auth/2fa/set-preference":
        "only an enabled method is accepted, and the run's account has none (`method_not_enabled`)",
    "POST /api/channels/{id}/link":
        "only a Telegram channel has a link, and without a bot on the run's server none can be made",
}


def mismatched_operations(output):
    """The operations schemathesis's "Schema validation mismatch" warning names in a run's
    output (an indented `- METHOD /path` line each, up to the next blank line)."""
    named, inside = set(), False
    for line in output.splitlines():
        if line.startswith("Schema validation mismatch:"):
            inside = True
            continue
        if inside:
            item = re.match(r"\s+- ([A-Z]+ /\S*)\s*$", line)
            if item:
                named.add(item.group(1))
            elif line.strip() or named:
                inside = False
    return named


def run_shown(command, env=None):
    """Runs schemathesis with its output shown as it comes, and answers its exit code and
    the output."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    lines = []
    for line in proc.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        lines.append(line)
    return proc.wait(), "".join(lines)


def mismatch_problems(named):
    """What the passes' mismatch warnings say about the document."""
    problems = []
    unexpected = sorted(named - MAY_REFUSE_EVERY_VALID_REQUEST.keys())
    if unexpected:
        problems.append(
            "a schemathesis pass met only refusals for valid requests of operations whose "
            "document allows more than the server takes (write the server's rule into the "
            "document):\n  " + "\n  ".join(unexpected))
    # A listed operation the warning did not name is told, not failed: besides a valid request
    # accepted (then take it off the list), a run whose answers for it were all rate limits
    # (429, which schemathesis leaves out of the count) names it neither, and that depends on
    # how fast the run went.
    stale = sorted(MAY_REFUSE_EVERY_VALID_REQUEST.keys() - named)
    if stale:
        print("contract: not named this run, though on MAY_REFUSE_EVERY_VALID_REQUEST (if one now "
              "accepts a valid request, take it off the list):\n  " + "\n  ".join(stale), flush=True)
    return problems


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
            problems += each_role_meets_its_answers(base, document, seeded)
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
            owner_config = os.path.join(temp, "owner.toml")
            with open(owner_config, "w") as f:
                f.write(owners_config(seeded))
            owner = [*command[:3], "--config-file", owner_config, *command[3:],
                     "--header", f"Authorization: Bearer {seeded.owner}",
                     "--max-examples", os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "25")]
            # The owner's passes fill in what a valid request needs and no document can say
            # (tests/contract_hooks.py).
            owner_env = dict(os.environ, SCHEMATHESIS_HOOKS=os.path.join(ROOT, "tests", "contract_hooks.py"),
                             PILLBOX_CONTRACT_PASSWORD=PASSWORD)
            # The carers and the stranger run first, against the owner's rows while they are
            # all there; only the operations that take an id, with valid requests only (an
            # invalid body is refused before anyone's access is asked) and fewer examples
            # each: the owner's pass has fuzzed the bodies already, these look at who may do
            # what. The view-only carer and the stranger can change nothing, so they run first;
            # the record and the manage carer then fuzz what their roles allow, deletes aside
            # (deleting the seeded medication would leave the rest of a pass only 404s to
            # meet): each role's deletes are asked directly above.
            config = os.path.join(temp, "owners-ids.toml")
            with open(config, "w") as f:
                f.write(owners_ids_config(seeded))
            with_ids = [arg for op in operations_taking_ids(document)
                        for arg in ("--include-operation-id", op)]
            others = os.environ.get("SCHEMATHESIS_OTHERS_MAX_EXAMPLES", "5")
            changing = os.environ.get("SCHEMATHESIS_CHANGING_CARERS_MAX_EXAMPLES", "3")

            def others_pass(token, examples, *extra):
                return [*command[:3], "--config-file", config, *command[3:],
                        "--header", f"Authorization: Bearer {token}", "--max-examples", examples,
                        "--mode", "positive", "--phases", "examples,fuzzing", *extra, *with_ids]

            passes = [others_pass(token, others) for token in (seeded.carers["view"], seeded.stranger)]
            passes += [others_pass(seeded.carers[role], changing, "--exclude-method", "DELETE")
                       for role in ("record", "manage")]
            failed = []
            mismatched = set()
            for name, p in zip(("view", "stranger", "record", "manage"), passes):
                code, output = run_shown(p, dict(owner_env, CONTRACT_PASS=name))
                if code != 0:
                    failed.append(p)
                mismatched |= mismatched_operations(output)
            # Deleting runs last, so that the rest is fuzzed with rows in place; the account
            # itself (DELETE /api/auth/me) is never fuzzed: its password is ours.
            keep_account = ["--exclude-path", "/api/auth/me"] if "/api/auth/me" in paths else []
            owners = [owner + ["--exclude-method", "DELETE"]]
            if any("delete" in item for path, item in paths.items() if path != "/api/auth/me"):
                owners.append(owner + ["--include-method", "DELETE"] + keep_account)
            for p in owners:
                code, output = run_shown(p, owner_env)
                if code != 0:
                    failed.append(p)
                mismatched |= mismatched_operations(output)
            problems += mismatch_problems(mismatched)
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
