#!/usr/bin/env bash
# Installs what `npm test` needs beyond `npm ci`, only where it is missing:
#   - Debian's chromium (the browser suite), nginx and redis-server (the scale-out suites start them
#     themselves on loopback; they are never started as system services: a policy-rc.d that refuses every
#     service start is in place while apt installs them);
#   - the deno and bun binaries of node_modules (their postinstall scripts fetch them; re-run once if not).
# Needs root or sudo for apt-get. `npm run test:fresh` runs it before `npm test`; .ci/run after `npm ci`.
#
#   bash testing/install_missing.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export DEBIAN_FRONTEND=noninteractive
CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
NGINX=/usr/sbin/nginx
REDIS_SERVER=/usr/bin/redis-server

log() { printf '[install_missing %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
die() { log "FAILED: $*" >&2; exit 1; }

as_root() {
  if [[ $EUID -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo -n "$@"
  else
    die "installing Debian packages needs root (or sudo): $*"
  fi
}

missing=()
[[ -x $CHROMIUM ]] || missing+=(chromium)
[[ -x $NGINX ]] || missing+=(nginx)
[[ -x $REDIS_SERVER ]] || missing+=(redis-server)
if ((${#missing[@]} == 0)); then
  log "chromium, nginx and redis-server are installed"
else
  command -v apt-get >/dev/null || die "missing ${missing[*]}, and this is no Debian machine: install them by hand"
  log "missing: ${missing[*]}: installing them from Debian"
  POLICY_RC=/usr/sbin/policy-rc.d
  own_policy=0
  if [[ ! -e $POLICY_RC ]]; then
    as_root sh -c "printf '#!/bin/sh\nexit 101\n' > $POLICY_RC && chmod 755 $POLICY_RC" && own_policy=1
  fi
  trap '((own_policy)) && as_root rm -f "$POLICY_RC"' EXIT
  # One retry each: a mirror hiccup should not fail the run.
  as_root timeout 10m apt-get update </dev/null \
    || { sleep 15; as_root timeout 10m apt-get update </dev/null; } \
    || die "apt-get update failed twice"
  as_root timeout 20m apt-get install -y "${missing[@]}" </dev/null \
    || { sleep 15; as_root timeout 20m apt-get install -y "${missing[@]}" </dev/null; } \
    || die "apt-get install -y ${missing[*]} failed twice"
  [[ -x $CHROMIUM ]] || die "apt-get installed chromium but $CHROMIUM is still missing"
  [[ -x $NGINX ]] || die "apt-get installed nginx but $NGINX is still missing"
  [[ -x $REDIS_SERVER ]] || die "apt-get installed redis-server but $REDIS_SERVER is still missing"
fi
log "$("$CHROMIUM" --version 2>/dev/null); $("$NGINX" -v 2>&1); $("$REDIS_SERVER" --version)"

# The deno and bun binaries from node_modules must run; if a postinstall did not fetch one, retry it once.
check_runtimes() {
  local ok=0 name out
  for name in deno bun; do
    if out=$(timeout 60s "node_modules/.bin/$name" --version </dev/null 2>&1); then
      log "$name: $(echo "$out" | head -1)"
    else
      log "$name does not run: $(echo "$out" | head -3 | tr '\n' ' ')"
      ok=1
    fi
  done
  return "$ok"
}
[[ -d node_modules ]] || die "node_modules is missing: run 'npm ci' first"
if ! check_runtimes; then
  log "re-running the deno and bun postinstall scripts (npm rebuild deno bun)"
  timeout 10m npm rebuild deno bun </dev/null || true
  check_runtimes \
    || die "the deno or bun binary from npm does not run: their postinstall scripts must run (package.json \"allowScripts\": {\"bun\": true, \"deno\": true}; npm must not use --ignore-scripts)"
fi
