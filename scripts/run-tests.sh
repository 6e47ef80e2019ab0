#!/usr/bin/env bash
# `node --test ARGS` over every dist/test/*.test.js, the longest files first: node --test starts
# files in the order given, and with --test-concurrency=2 a long file started last keeps one worker
# busy after the other is done. Every other file follows in name order.
set -euo pipefail
cd "$(dirname "$0")/.."
longest=(
  ceilings host security service-signals integrity host-publish-roundtrip pg-corpus store-writer
  memory-ceilings host-preflight remote-prune fuzz serve host-signals operator protocol push cost-guards
  pg-function-catalog lake-count host-publish compat host-cli-inputs host-gc psql-describe
)
files=()
for name in "${longest[@]}"; do
  [[ -f dist/test/$name.test.js ]] || { echo "scripts/run-tests.sh: no dist/test/$name.test.js; update its list" >&2; exit 1; }
  files+=("dist/test/$name.test.js")
done
for file in dist/test/*.test.js; do
  [[ " ${longest[*]} " == *" $(basename "$file" .test.js) "* ]] || files+=("$file")
done
exec node --test "$@" "${files[@]}"
