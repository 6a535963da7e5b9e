"""Checks a Pillbox FHIR export with an independent implementation: fhir.resources (its R4B
models, pinned in tests/requirements.txt). Prints one JSON object: the problems found (empty
when the bundle is sound) and the resources counted by type.

Checked: every resource parses into its model (unknown elements, wrong types and missing
required elements are refused there); the codes of the elements Pillbox fills are in their
FHIR R4 value sets (the models do not check codes); every reference inside the bundle names
an entry's fullUrl, or (`#id`) a resource contained in the one that refers to it; and a round
trip through the models keeps every element and value.
"""

import json
import sys
from collections import Counter
from datetime import datetime
from decimal import Decimal

from fhir.resources.R4B.bundle import Bundle

CODES = {
    ("MedicationRequest", "status"): {"active", "on-hold", "cancelled", "completed",
                                      "entered-in-error", "stopped", "draft", "unknown"},
    ("MedicationRequest", "intent"): {"proposal", "plan", "order", "original-order",
                                      "reflex-order", "filler-order", "instance-order", "option"},
    ("MedicationStatement", "status"): {"active", "completed", "entered-in-error", "intended",
                                        "stopped", "on-hold", "unknown", "not-taken"},
    ("MedicationAdministration", "status"): {"in-progress", "not-done", "on-hold", "completed",
                                             "entered-in-error", "stopped", "unknown"},
}
PERIOD_UNITS = {"s", "min", "h", "d", "wk", "mo", "a"}
DAYS = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"}


def references(value, found):
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "reference" and isinstance(inner, str):
                found.append(inner)
            else:
                references(inner, found)
    elif isinstance(value, list):
        for inner in value:
            references(inner, found)
    return found


def same(a, b):
    """Equal values, reading numbers as decimals and instants as instants."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return Decimal(str(a)) == Decimal(str(b))
    if isinstance(a, str) and isinstance(b, str) and a != b and "T" in a and "T" in b:
        try:
            return datetime.fromisoformat(a.replace("Z", "+00:00")) == \
                datetime.fromisoformat(b.replace("Z", "+00:00"))
        except ValueError:
            return False
    return a == b


def differences(a, b, path="$"):
    if same(a, b):
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}.{k}: lost" for k in a.keys() - b.keys()]
        out += [f"{path}.{k}: added" for k in b.keys() - a.keys()]
        for k in a.keys() & b.keys():
            out += differences(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [f"{path}: {json.dumps(a)} became {json.dumps(b, default=str)}"]


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        data = json.load(f)
    problems = []
    try:
        model = Bundle.model_validate(data)
    except Exception as e:  # the models' own message says which element
        print(json.dumps({"problems": [f"does not parse: {e}"], "counts": {}}))
        return
    again = json.loads(model.model_dump_json(exclude_none=True))
    problems += [f"round trip: {d}" for d in differences(data, again)]

    urls = {entry.get("fullUrl") for entry in data.get("entry", [])}
    counts = Counter()
    for i, entry in enumerate(data.get("entry", [])):
        resource = entry["resource"]
        kind = resource["resourceType"]
        counts[kind] += 1
        if entry.get("fullUrl") != f"urn:uuid:{resource.get('id')}":
            problems.append(f"entry {i}: fullUrl {entry.get('fullUrl')} is not its id's")
        for (of, element), allowed in CODES.items():
            if kind == of and resource.get(element) not in allowed:
                problems.append(f"entry {i}: {kind}.{element} {resource.get(element)!r} is no R4 code")
        for dosage in resource.get("dosageInstruction", []):
            repeat = dosage.get("timing", {}).get("repeat", {})
            if "periodUnit" in repeat and repeat["periodUnit"] not in PERIOD_UNITS:
                problems.append(f"entry {i}: periodUnit {repeat['periodUnit']!r}")
            for day in repeat.get("dayOfWeek", []):
                if day not in DAYS:
                    problems.append(f"entry {i}: dayOfWeek {day!r}")
        contained = {f"#{inner.get('id')}" for inner in resource.get("contained", [])}
        for reference in references(resource, []):
            if reference not in urls and reference not in contained:
                problems.append(f"entry {i}: {kind} refers to {reference}, which is not in the bundle")
    print(json.dumps({"problems": problems, "counts": counts}))


if __name__ == "__main__":
    main()
