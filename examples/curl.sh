#!/usr/bin/env bash
# Submit an eligibility check to the sandbox payer, poll its status as the service asks (Retry-After), and
# print the finished check as JSON. Needs bash and curl only.
#
#   ELIG_API_KEY=elig_test_... ./examples/curl.sh              # the service on http://127.0.0.1:8080
#   ELIG_URL=https://eligibility.example.com ELIG_API_KEY=... ./examples/curl.sh
#
# Progress goes to stderr, the result to stdout (pipe it into jq or a file). Exits 1 on an error answer
# (its {code, message} printed) or when the check is not finished after ELIG_TIMEOUT_SECONDS (600).
set -euo pipefail

: "${ELIG_API_KEY:?set ELIG_API_KEY to an API key (printed at the first start, or: npx elig key create)}"
BASE="${ELIG_URL:-http://127.0.0.1:8080}"
TIMEOUT_SECONDS="${ELIG_TIMEOUT_SECONDS:-600}"

# A sandbox member (docs/sandbox.md): an active PPO with all seven service types.
BODY='{
  "tradingPartnerServiceId": "SANDBOX",
  "provider": { "organizationName": "Demo Clinic", "npi": "1234567893" },
  "subscriber": { "memberId": "SBX1000001", "firstName": "JANE", "lastName": "DOE", "dateOfBirth": "19800115" },
  "encounter": { "serviceTypeCodes": ["30"] }
}'

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# One request: the body goes to $tmp/body, the headers to $tmp/headers, the status code to stdout.
call() {
  curl --silent --show-error --output "$tmp/body" --dump-header "$tmp/headers" --write-out '%{http_code}' \
    -H "Authorization: Key $ELIG_API_KEY" -H 'Accept: application/json' "$@"
}
retry_after() {
  tr -d '\r' <"$tmp/headers" | awk 'tolower($1) == "retry-after:" { print $2 }'
}

# Submit. An Idempotency-Key makes retrying this request safe: the same key and body answer the same check.
code="$(call -X POST "$BASE/api/eligibility" -H 'Content-Type: application/json' \
  -H "Idempotency-Key: curl-example-$(date +%s)-$$" --data "$BODY")"
if [ "$code" != 202 ]; then
  echo "submit answered $code: $(cat "$tmp/body")" >&2
  exit 1
fi
# The 202 body is {"id":"...","status":"IN_PROGRESS"}: the first "id" is the check's.
id="$(grep -o '"id":"[^"]*"' "$tmp/body" | head -n 1 | cut -d '"' -f 4)"
echo "submitted check $id" >&2

# Poll. While IN_PROGRESS the answer carries Retry-After (seconds): wait that long, never less. A 429 (rate
# limit) or 503 (service briefly unavailable) also says how long to wait; anything else is an error.
deadline=$(($(date +%s) + TIMEOUT_SECONDS))
while :; do
  code="$(call "$BASE/api/eligibility/$id/status")"
  case "$code" in
    200) grep -q '"status":"IN_PROGRESS"' "$tmp/body" || break ;;
    429 | 503) echo "status answered $code, waiting as asked" >&2 ;;
    *)
      echo "status answered $code: $(cat "$tmp/body")" >&2
      exit 1
      ;;
  esac
  wait="$(retry_after)"
  wait="${wait:-1}"
  if [ $(($(date +%s) + wait)) -gt "$deadline" ]; then
    echo "check $id is still IN_PROGRESS after ${TIMEOUT_SECONDS}s" >&2
    exit 1
  fi
  echo "IN_PROGRESS; asking again in ${wait}s" >&2
  sleep "$wait"
done

cat "$tmp/body"
echo
