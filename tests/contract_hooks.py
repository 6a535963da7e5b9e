"""Schemathesis hooks of the owner's passes in tests/contract.py (loaded through
SCHEMATHESIS_HOOKS): the parts of a valid request that no document can state, because they
are the account's secret or depend on the hour the run starts.

- The operations that ask for the account's password again, and leave the session as it is,
  get the owner's real password in their valid (positive) cases: a password the generator
  makes up is a wrong one, and wrong passwords also use up the sign-in budget that the rest
  of the run shares. (Changing the password and the operations that turn two-factor on end
  the run's own session: they keep the generated, wrong passwords.)
- A one-off reminder must be at most a minute in the past and within a year: every valid
  case gets a time in the coming days (a different one each, so that they do not collide
  with each other's reminder).
- A push subscription's `p256dh` must be a point on P-256, which a pattern cannot say: a
  valid case sends a browser's real key (the curve's generator, uncompressed).
- A dose's time (`taken`) may not be in the future, which no document can state: a valid
  case logging or correcting a dose takes it in the past hours.
- JSON Schema counts 14.0 as an integer; the server's JSON reader (serde) takes integers
  written as integers only, as every JSON encoder writes them: a valid case's whole-number
  floats are sent as integers.
- An import's `source` says what file it is, and the body's media type says it too: a valid
  case sends an export file as `pillbox` and a FHIR Bundle as `fhir`.
- An export names one person (`person_id`) with `format=fhir` only: every other valid case
  that names one asks for FHIR, the rest leave the person out.

With CONTRACT_TRACE set to a file, every call is written to it as a JSON line (operation,
phase, mode, status, message): what tells why an operation refuses what it is sent.
"""

import base64
import datetime
import itertools
import json
import os

import schemathesis
from schemathesis.generation.modes import GenerationMode

PASSWORD = os.environ["PILLBOX_CONTRACT_PASSWORD"]
# The password-confirming operations that change nothing about the session.
CONFIRMS_PASSWORD = {
    "POST /api/auth/2fa/setup",
    "POST /api/auth/2fa/setup-totp",
    "POST /api/auth/2fa/setup-email",
    "POST /api/auth/2fa/backup-codes",
    "POST /api/auth/2fa/disable",
}
REMINDER = "POST /api/notifications"
PUSH_REGISTER = "POST /api/notifications/push/register"
# P-256's generator point, uncompressed (SEC 2 §2.4.2), as base64url: a valid public key.
P256_POINT = base64.urlsafe_b64encode(bytes.fromhex(
    "04"
    "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
    "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")).rstrip(b"=").decode()
# The operations that log or correct a dose, whose `taken` may not be in the future.
DOSE_TIMES = {"POST /api/medications/{id}/doses", "PUT /api/medications/history/{id}"}
IMPORT = "POST /api/import"
EXPORT = "GET /api/export"
# What `source` a file of each media type is (the document lists both, and cannot tie them).
IMPORT_SOURCES = {"application/json": "pillbox", "application/fhir+json": "fhir"}
_reminders = itertools.count(1)
_doses = itertools.count(1)
_exports = itertools.count(1)


def _positive(case):
    return case.meta is not None and case.meta.generation.mode == GenerationMode.POSITIVE


def _integers_as_integers(value):
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    if isinstance(value, dict):
        return {k: _integers_as_integers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integers_as_integers(v) for v in value]
    return value


@schemathesis.hook
def before_call(context, case, **kwargs):
    label = f"{case.operation.method.upper()} {case.operation.path}"
    if not _positive(case):
        return
    if label == IMPORT and case.media_type in IMPORT_SOURCES:
        case.query = dict(case.query or {}, source=IMPORT_SOURCES[case.media_type])
    if label == EXPORT and (case.query or {}).get("person_id") is not None:
        # Half of them export the one person as FHIR, the other half the whole account.
        if next(_exports) % 2:
            case.query["format"] = "fhir"
        elif case.query.get("format") != "fhir":
            del case.query["person_id"]
    if not isinstance(case.body, dict):
        return
    case.body = _integers_as_integers(case.body)
    if label in CONFIRMS_PASSWORD and "password" in case.body:
        case.body["password"] = PASSWORD
    elif (label == PUSH_REGISTER and isinstance(case.body.get("subscription"), dict)
          and isinstance(case.body["subscription"].get("keys"), dict)):
        case.body["subscription"]["keys"]["p256dh"] = P256_POINT
    elif label in DOSE_TIMES and isinstance(case.body.get("taken"), str):
        now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        at = now - datetime.timedelta(minutes=next(_doses))
        case.body["taken"] = at.isoformat().replace("+00:00", "Z")
    elif label == REMINDER:
        n = next(_reminders)
        start = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        at = start + datetime.timedelta(hours=1, minutes=n)
        case.body["scheduled_time"] = at.isoformat().replace("+00:00", "Z")


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """A test message that no channel could deliver answers 502 `delivery_failed`, as the
    document says: the devices the run registers are made up and the run has no network.
    Every other failure stands."""
    if response.status_code != 502:
        return True
    try:
        return json.loads(response.content or b"null").get("code") != "delivery_failed"
    except (ValueError, AttributeError):
        return True


TRACE = os.environ.get("CONTRACT_TRACE")

if TRACE:

    @schemathesis.hook
    def after_call(context, case, response):
        message = ""
        try:
            body = json.loads(response.content or b"null")
            if isinstance(body, dict):
                message = str(body.get("message", ""))[:100]
        except ValueError:
            pass
        with open(TRACE, "a") as f:
            f.write(json.dumps({
                "pass": os.environ.get("CONTRACT_PASS", "owner"),
                "operation": f"{case.operation.method.upper()} {case.operation.path}",
                "phase": case.meta.phase.name.value if case.meta else None,
                "mode": case.meta.generation.mode.value if case.meta else None,
                "status": response.status_code,
                "message": message,
                "query": case.query,
            }, default=str) + "\n")
