#!/usr/bin/env bash
# Proves README command 1 as a newcomer runs it: starts exactly ./scripts/run-sample.sh (no
# arguments: the embedded H2 default on port 8080), waits until /actuator/health says UP,
# makes one locked call (a withdrawal, which takes the account's lock) and checks that the
# lock was taken (mortise.lock.acquire counted it), then stops the service. Fails, printing
# the service's output, when any step does not happen. .ci/run runs it after the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

port=8080
base="http://127.0.0.1:$port"
# The build inside run-sample.sh comes first: on a fresh machine it downloads dependencies.
start_timeout_s=${CHECK_SAMPLE_TIMEOUT_S:-900}

if curl -s -o /dev/null "$base/actuator/health" 2>/dev/null; then
  echo "check-sample: something already answers on port $port; stop it first (README command 1 serves there)." >&2
  exit 1
fi

out=$(mktemp)
./scripts/run-sample.sh >"$out" 2>&1 &
pid=$!
stop() {
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
}
fail() {
  echo "check-sample: $1" >&2
  echo "---- ./scripts/run-sample.sh output (last 80 lines) ----" >&2
  tail -n 80 "$out" >&2
  stop
  exit 1
}
trap stop EXIT

started=$(date +%s)
until curl -fsS "$base/actuator/health" 2>/dev/null | grep -q '"status":"UP"'; do
  kill -0 "$pid" 2>/dev/null || fail "README command 1 (./scripts/run-sample.sh) ended before the service was UP"
  [ $(( $(date +%s) - started )) -lt "$start_timeout_s" ] || fail "the service was not UP within ${start_timeout_s}s"
  sleep 1
done
echo "check-sample: UP after $(( $(date +%s) - started ))s"

before=$(curl -fsS "$base/actuator/metrics/mortise.lock.acquire" 2>/dev/null | grep -o '"statistic":"COUNT","value":[0-9.]*' | grep -o '[0-9.]*$' || echo 0)
answer=$(curl -fsS -XPOST -H 'Content-Type: application/json' "$base/api/accounts/alice/withdraw" -d '{"amount":1}') \
  || fail "the locked call POST /api/accounts/alice/withdraw failed"
echo "$answer" | grep -q '"id":"alice"' || fail "the locked call answered something else: $answer"
after=$(curl -fsS "$base/actuator/metrics/mortise.lock.acquire" | grep -o '"statistic":"COUNT","value":[0-9.]*' | grep -o '[0-9.]*$') \
  || fail "mortise.lock.acquire is not served"
awk -v a="$after" -v b="$before" 'BEGIN { exit !(a > b) }' \
  || fail "the withdrawal took no lock (mortise.lock.acquire count $before -> $after)"
echo "check-sample: one locked call made (mortise.lock.acquire count $before -> $after); stopping the service"
stop
trap - EXIT
rm -f "$out"
