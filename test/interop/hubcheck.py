"""Shared by the interop scripts: named checks that print `ok <name>` when they pass.

Each script runs the real Python huggingface_hub (found on PYTHONPATH) against the
local Hub at HF_ENDPOINT; test/interop/python-hub.test.ts starts the Hub, passes a
JSON spec file as the first argument, and holds the list of check names it expects.
"""
import hashlib
import json
import sys
import traceback

failed = []


def spec():
    with open(sys.argv[1], encoding="utf-8") as f:
        return json.load(f)


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def check(name):
    """Runs the decorated function at once; a failure is printed and the script goes on to the next check."""

    def run(fn):
        try:
            fn()
            print(f"ok {name}", flush=True)
        except Exception:
            failed.append(name)
            print(f"FAIL {name}", flush=True)
            traceback.print_exc()
        return fn

    return run


def http_status(fn):
    """The HTTP status of the error the client raises for `fn()`; fails when it raises none."""
    from huggingface_hub.errors import HfHubHTTPError

    try:
        fn()
    except HfHubHTTPError as e:
        return e.response.status_code
    raise AssertionError("expected an HTTP error, the call succeeded")


def done():
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr, flush=True)
    sys.exit(1 if failed else 0)
