#!/usr/bin/env bash
# The Debian packages the test suite talks to (real PostgreSQL, real clients, HAProxy, Chromium).
# `npm test` runs this first. FDL_TEST_DEPS controls it:
#   install (default) — install missing packages when running as root, else behave like check
#   check             — list what is missing and fail
#   skip              — do nothing
# Fast when everything is installed: one dpkg-query call, no network.
set -euo pipefail

packages=(
  postgresql-15 postgresql-client-15 openssh-client                      # PostgreSQL 15 (fidelity tests), ssh-keygen (signatures)
  python3-psycopg2 python3-psycopg python3-sqlalchemy python3-asyncpg     # Python clients
  libpostgresql-jdbc-java openjdk-17-jdk-headless                         # JDBC
  odbc-postgresql unixodbc python3-pyodbc                                 # ODBC
  pgcli tmux                                                              # interactive clients
  ruby-pg libdbd-pg-perl                                                  # Ruby and Perl clients
  haproxy chromium                                                        # load balancer and status page tests
)

mode="${FDL_TEST_DEPS:-install}"
case "$mode" in
  skip) exit 0 ;;
  install|check) ;;
  *) echo "test-deps: FDL_TEST_DEPS must be install, check or skip (got \"$mode\")" >&2; exit 2 ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "test-deps: not a Debian system (no dpkg-query); install the equivalents of: ${packages[*]}" >&2
  echo "test-deps: then run with FDL_TEST_DEPS=skip" >&2
  exit 1
fi

missing=()
while read -r name status; do
  [ "$status" = "installed" ] || missing+=("$name")
done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${packages[@]}" 2>/dev/null || true)
# Packages dpkg has never heard of print nothing at all.
for p in "${packages[@]}"; do
  dpkg-query -W -f='${db:Status-Status}' "$p" >/dev/null 2>&1 || { [[ " ${missing[*]-} " == *" $p "* ]] || missing+=("$p"); }
done

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$mode" = install ] && [ "$(id -u)" = 0 ]; then
  echo "test-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
  exit 0
fi

{
  echo "test-deps: the tests need these Debian packages, which are not installed:"
  echo "    ${missing[*]}"
  echo "  install them with:"
  echo "    sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
  echo "  (as root, \`npm test\` installs them itself; FDL_TEST_DEPS=skip runs the tests anyway)"
} >&2
exit 1
