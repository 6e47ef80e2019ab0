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
  python3-venv python3-pip                                                # the venv for SQLAlchemy 2 / pandas (below)
  libpostgresql-jdbc-java openjdk-17-jdk-headless                         # JDBC
  odbc-postgresql unixodbc python3-pyodbc                                 # ODBC
  pgcli tmux                                                              # interactive clients
  ruby-pg libdbd-pg-perl                                                  # Ruby and Perl clients
  haproxy chromium                                                        # load balancer and status page tests
  sqlsmith                                                                # generated queries over the catalog emulation
)
# FDL_TEST_DEPS_PACKAGES replaces the list (the lock-waiting test installs a package that does not exist).
if [ -n "${FDL_TEST_DEPS_PACKAGES:-}" ]; then read -r -a packages <<<"$FDL_TEST_DEPS_PACKAGES"; fi

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

# SQLAlchemy 2 and pandas are not Debian packages: a venv over the system's Python packages, with
# test/clients/requirements-venv.txt from pip's index (PIP_INDEX_URL; a local mirror at
# /opt/pypi/simple when there is one). Rebuilt only when the requirements change.
python_venv() {
  local venv="${FDL_TEST_VENV:-$HOME/.cache/fdl-gateway/test-venv}"
  local req; req="$(dirname "$0")/../test/clients/requirements-venv.txt"
  [ -f "$venv/.requirements" ] && cmp -s "$req" "$venv/.requirements" && return 0
  [ "$mode" = check ] && { echo "test-deps: the Python venv $venv is missing or stale (run with FDL_TEST_DEPS=install)" >&2; return 1; }
  local index=()
  [ -z "${PIP_INDEX_URL:-}" ] && [ -d /opt/pypi/simple ] && index=(--index-url file:///opt/pypi/simple)
  /usr/bin/python3 -m venv --system-site-packages "$venv" &&
    "$venv/bin/pip" install -q --retries 0 "${index[@]}" -r "$req" &&
    cp "$req" "$venv/.requirements"
}

# apt-get, waiting (up to 10 minutes) while another apt or dpkg (unattended-upgrades, a second
# `npm test`) holds a package lock instead of failing at once. DPkg::Lock::Timeout covers dpkg's
# lock only; `apt-get update` fails at once on the lists lock, so a refused lock is retried here.
apt_waiting() {
  local deadline=$((SECONDS + 600)) out said=
  while :; do
    if out=$(apt-get -o DPkg::Lock::Timeout=600 "$@" 2>&1); then
      [ -n "$out" ] && printf '%s\n' "$out" >&2
      return 0
    fi
    if [[ $out == *"Could not get lock"* ]] && [ $SECONDS -lt $deadline ]; then
      [ -n "$said" ] || echo "test-deps: waiting for the package lock ($(grep -m1 -o 'held by process.*' <<<"$out" || echo 'another apt or dpkg holds it'))" >&2
      said=1
      sleep 2
      continue
    fi
    printf '%s\n' "$out" >&2
    return 1
  done
}

if [ ${#missing[@]} -eq 0 ]; then python_venv; exit $?; fi

if [ "$mode" = install ] && [ "$(id -u)" = 0 ]; then
  echo "test-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt_waiting update -qq || exit 1
  apt_waiting install -y -qq --no-install-recommends "${missing[@]}" || exit 1
  python_venv
  exit $?
fi

{
  echo "test-deps: the tests need these Debian packages, which are not installed:"
  echo "    ${missing[*]}"
  echo "  install them with:"
  echo "    sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
  echo "  (as root, \`npm test\` installs them itself; FDL_TEST_DEPS=skip runs the tests anyway)"
} >&2
exit 1
