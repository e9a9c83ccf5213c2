#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# pgtmp.sh CMD [ARG...] - run CMD against a throwaway PostgreSQL server.
#
# Creates a cluster in a temporary directory with Debian's initdb (owned
# by the unprivileged user postgres: the server refuses to run as root),
# listening on a Unix socket in that directory only (no TCP; trust
# authentication on the socket), creates the database bbtest, runs CMD
# with
#   BB_TEST_STORE     the database's URI (postgresql://postgres@/bbtest?host=DIR&port=N)
#   BB_TEST_PG_STOP   a command that stops the server (pg_ctl stop -m fast)
#   BB_TEST_PG_START  a command that starts it again
# and stops and removes everything at exit, whatever happens.  Exits 77
# (skip) when PostgreSQL's binaries or the user postgres are missing;
# else CMD's status.  PG_BINDIR overrides /usr/lib/postgresql/15/bin.
set -u
bindir=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
if [ ! -x "$bindir/initdb" ] || [ ! -x "$bindir/pg_ctl" ]; then
	echo "pgtmp: PostgreSQL's initdb/pg_ctl not found in $bindir (apt-get install postgresql)" >&2
	exit 77
fi
if ! id postgres >/dev/null 2>&1; then
	echo "pgtmp: no user postgres to run the server as" >&2
	exit 77
fi
as_pg=()
if [ "$(id -u)" = 0 ]; then
	as_pg=(runuser -u postgres --)
elif [ "$(id -un)" != postgres ]; then
	as_pg=()   # an unprivileged user runs the server as itself
fi
dir=$(mktemp -d /tmp/bb_pg_XXXXXX) || exit 1
cleanup() {
	"${as_pg[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop \
		>/dev/null 2>&1
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ ${#as_pg[@]} -gt 0 ] && chown postgres: "$dir"
chmod 700 "$dir"
# a private port: with no TCP it only names the socket file
port=$((20000 + RANDOM % 30000))
if ! "${as_pg[@]}" "$bindir/initdb" -D "$dir/data" -U postgres -E UTF8 \
	--locale=C -A trust >"$dir/initdb.log" 2>&1; then
	echo "pgtmp: initdb failed:" >&2
	cat "$dir/initdb.log" >&2
	exit 1
fi
cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$dir'
port = $port
fsync = off
full_page_writes = off
CONF
printf 'local all all trust\n' >"$dir/data/pg_hba.conf"
start="${as_pg[*]} $bindir/pg_ctl -D $dir/data -l $dir/server.log -w -t 60 start"
stop="${as_pg[*]} $bindir/pg_ctl -D $dir/data -m fast -w stop"
if ! $start >/dev/null; then
	echo "pgtmp: the server did not start:" >&2
	cat "$dir/server.log" >&2
	exit 1
fi
if ! "${as_pg[@]}" "$bindir/../bin/psql" -q -h "$dir" -p "$port" -U postgres \
	-d postgres -c 'CREATE DATABASE bbtest' >/dev/null 2>"$dir/psql.err" &&
   ! "${as_pg[@]}" "$bindir/createdb" -h "$dir" -p "$port" -U postgres bbtest; then
	echo "pgtmp: cannot create the database:" >&2
	cat "$dir/psql.err" >&2
	exit 1
fi
export BB_TEST_STORE="postgresql://postgres@/bbtest?host=$dir&port=$port"
export BB_TEST_PG_STOP="$stop"
export BB_TEST_PG_START="$start"
export BB_TEST_PG_DIR="$dir"
"$@"
