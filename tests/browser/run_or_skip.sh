#!/usr/bin/env bash
# run_or_skip.sh unit|browser NODE ARGS...: runs NODE ARGS, or exits 77 (CTest's SKIP) naming what
# is missing: node; for `browser` also /usr/bin/chromium (or $CHROMIUM) and node_modules/puppeteer-core.
kind=$1; node=$2; shift 2
if [ -z "$node" ] || [ ! -x "$node" ]; then echo "SKIP: node not found (scripts/install-deps.sh installs it)"; exit 77; fi
if [ "$kind" = browser ]; then
  chromium=${CHROMIUM:-/usr/bin/chromium}
  if [ ! -x "$chromium" ]; then echo "SKIP: $chromium not found (apt-get install chromium; scripts/install-deps.sh)"; exit 77; fi
  if [ ! -d node_modules/puppeteer-core ]; then echo "SKIP: node_modules/puppeteer-core missing (npm ci; scripts/install-deps.sh)"; exit 77; fi
fi
exec "$node" "$@"
