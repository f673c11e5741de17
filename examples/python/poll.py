#!/usr/bin/env python3
"""Submit an eligibility check and poll its status as the service asks (Retry-After), then print the
finished check as JSON. Python 3.8+, standard library only.

    ELIG_API_KEY=elig_test_... python3 examples/python/poll.py     # the service on http://127.0.0.1:8080
    ELIG_URL=https://eligibility.example.com ELIG_API_KEY=... python3 examples/python/poll.py

Progress goes to stderr, the result to stdout. Exits 1 on an error answer (its code and message printed) or
when the check is not finished after ELIG_TIMEOUT_SECONDS (600).
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

BASE = os.environ.get("ELIG_URL", "http://127.0.0.1:8080").rstrip("/")
API_KEY = os.environ.get("ELIG_API_KEY")
TIMEOUT_SECONDS = float(os.environ.get("ELIG_TIMEOUT_SECONDS", "600"))

# A sandbox member (docs/sandbox.md): an active PPO with all seven service types.
REQUEST = {
    "tradingPartnerServiceId": "SANDBOX",
    "provider": {"organizationName": "Demo Clinic", "npi": "1234567893"},
    "subscriber": {"memberId": "SBX1000001", "firstName": "JANE", "lastName": "DOE", "dateOfBirth": "19800115"},
}


class ApiError(Exception):
    """An error answer: the API's {code, message} envelope, and the Retry-After it asked for."""

    def __init__(self, status, body, retry_after):
        envelope = body if isinstance(body, dict) else {}
        super().__init__(f"{status} {envelope.get('code', 'UnexpectedResponse')}: {envelope.get('message', '')}")
        self.status = status
        self.retry_after = retry_after


def retry_after_seconds(headers):
    value = headers.get("Retry-After")
    return int(value) if value and value.strip().isdigit() else None


def call(method, path, body=None, headers=None):
    """One request; returns (parsed JSON body, Retry-After seconds or None). Raises ApiError on 4xx/5xx."""
    request = urllib.request.Request(
        BASE + path,
        method=method,
        data=None if body is None else json.dumps(body).encode("utf-8"),
        headers={
            "Authorization": f"Key {API_KEY}",
            "Accept": "application/json",
            **({"Content-Type": "application/json"} if body is not None else {}),
            **(headers or {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response), retry_after_seconds(response.headers)
    except urllib.error.HTTPError as error:
        try:
            parsed = json.load(error)
        except ValueError:
            parsed = None
        raise ApiError(error.code, parsed, retry_after_seconds(error.headers)) from None


def main():
    if not API_KEY:
        print("Set ELIG_API_KEY to an API key (printed at the first start, or: npx elig key create).", file=sys.stderr)
        return 2
    try:
        # The Idempotency-Key makes a retry of this submit answer the same check, never a second one.
        accepted, _ = call("POST", "/api/eligibility", REQUEST, {"Idempotency-Key": f"python-example-{time.time_ns()}"})
        check_id = accepted["id"]
        print(f"submitted check {check_id}", file=sys.stderr)

        deadline = time.monotonic() + TIMEOUT_SECONDS
        while True:
            try:
                check, wait = call("GET", f"/api/eligibility/{check_id}/status")
                if check["status"] != "IN_PROGRESS":
                    break
            except ApiError as error:
                # 429 (rate limit) and 503 (briefly unavailable) say how long to wait; others are final.
                if error.status not in (429, 503):
                    raise
                print(f"status answered {error.status}, waiting as asked", file=sys.stderr)
                wait = error.retry_after
            wait = wait or 1  # Retry-After while IN_PROGRESS: never ask sooner
            if time.monotonic() + wait > deadline:
                print(f"check {check_id} is still IN_PROGRESS after {TIMEOUT_SECONDS:.0f}s", file=sys.stderr)
                return 1
            print(f"IN_PROGRESS; asking again in {wait}s", file=sys.stderr)
            time.sleep(wait)
    except ApiError as error:
        print(error, file=sys.stderr)
        return 1

    json.dump(check, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
