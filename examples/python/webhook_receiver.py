#!/usr/bin/env python3
"""A webhook receiver that verifies each delivery's signature, refuses old timestamps (replays), answers
retries of an event it already has without processing them again, and prints what arrived. Python 3.8+,
standard library only.

    WEBHOOK_SECRET=whsec_... PORT=3000 python3 examples/python/webhook_receiver.py
    npx elig webhook set --org ORG_ID --url http://127.0.0.1:3000/hook --secret whsec_...

(http:// and 127.0.0.1 need ELIG_ALLOW_PRIVATE_WEBHOOKS=1 on the service: local development only.) During a
secret roll, list both secrets: WEBHOOK_SECRET=whsec_old,whsec_new.

The signature (docs/webhooks.md): lowercase hex HMAC-SHA256, keyed with the secret string exactly as shown
(whsec_ prefix included), over the X-Webhook-Timestamp value, a period, and the raw body bytes.
"""
import hashlib
import hmac
import json
import os
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRETS = [s for s in os.environ.get("WEBHOOK_SECRET", "").split(",") if s]
TOLERANCE_SECONDS = 300
SIGNATURE = re.compile(r"^[0-9a-fA-F]{64}$")
processed = set()  # in production: a table of event ids, kept at least 7 days


def is_authentic(headers, raw_body):
    timestamp = headers.get("X-Webhook-Timestamp", "")
    if not re.fullmatch(r"\d{1,12}", timestamp):
        return False
    if abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    presented = [
        s.lower()
        for s in (headers.get("X-Webhook-Signature"), headers.get("X-Webhook-Signature-Previous"))
        if s and SIGNATURE.match(s)
    ]
    authentic = False
    for secret in SECRETS:
        expected = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + raw_body, hashlib.sha256)
        for signature in presented:
            # compare_digest takes the same time wherever the strings differ
            authentic = hmac.compare_digest(signature, expected.hexdigest()) or authentic
    return authentic


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        # The exact bytes as received: verify before parsing.
        raw_body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if not is_authentic(self.headers, raw_body):
            print("rejected: signature or timestamp", flush=True)
            return self.answer(401)
        event_id = self.headers.get("X-Webhook-Id")
        if event_id in processed:
            print(f"duplicate {event_id}: already processed", flush=True)
            return self.answer(200)
        processed.add(event_id)
        event_type = self.headers.get("X-Webhook-Event")
        event = json.loads(raw_body)
        # Acknowledge within seconds; hand real work to a queue. Print ids and status only, never patient data.
        what = f"check {event.get('id')} {event.get('status')}" if event_type == "eligibility.completed" else "event"
        print(f"verified {event_type} {event_id}: {what}", flush=True)
        return self.answer(200)

    def answer(self, status):
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format, *args):
        pass  # the lines above say what happened; the default access log adds nothing


def main():
    if not SECRETS:
        print("Set WEBHOOK_SECRET to the signing secret shown in the portal (Settings > API > Webhooks).", file=sys.stderr)
        return 2
    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "3000"))), Receiver)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/hook", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
