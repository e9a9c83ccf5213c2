#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Validate a JSON document against a JSON Schema (draft 2020-12).

usage: check_json_schema.py SCHEMA DOCUMENT

Exit status: 0 valid, 1 invalid (the first errors are printed), 2 bad
usage or unreadable files, 77 python3-jsonschema is not installed (the
caller skips).  Used by tests/unit/run/test_options.c and test_stats.c.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed", file=sys.stderr)
    sys.exit(77)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            schema = json.load(f)
        with open(argv[2]) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_json_schema: {e}", file=sys.stderr)
        return 2
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:10]:
        where = "/".join(str(p) for p in e.path) or "(root)"
        print(f"{where}: {e.message}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
