# Sourced by scripts/loadtest and scripts/loadtest-nodes: a throwaway
# PostgreSQL of the machine's binaries (scripts/ensure-postgres installs
# Debian's package when they are missing), in a directory of its own, with
# its production defaults (fsync and synchronous commit on).
#
#   pg_start DIR PORT   initialises DIR/data and starts it on 127.0.0.1:PORT;
#                       sets database_url
#   pg_stop DIR         stops it, if it runs (DIR is the caller's to remove)

pgbin=""
pguser=$(id -un)

# pgrun runs a PostgreSQL program as the cluster's owner: initdb and
# postgres refuse to run as root.
pgrun() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$pguser" -- "$pgbin/$1" "${@:2}"
	else
		"$pgbin/$1" "${@:2}"
	fi
}

pg_start() {
	local pgdir=$1 port=$2
	TEST_DATABASE_URL="" ./scripts/ensure-postgres
	pgbin=$(dirname "$(command -v initdb 2>/dev/null || ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)")
	if [ "$(id -u)" -eq 0 ]; then
		pguser=postgres
		id postgres >/dev/null 2>&1 || pguser=nobody
	fi
	chown "$pguser" "$pgdir"
	pgrun initdb -D "$pgdir/data" -U arena --auth=trust --encoding=UTF8 --locale=C >"$pgdir/initdb.log" 2>&1 ||
		{ cat "$pgdir/initdb.log" >&2; exit 1; }
	pgrun pg_ctl -D "$pgdir/data" -l "$pgdir/server.log" -w -t 60 \
		-o "-p $port -k $pgdir -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=128MB" start >/dev/null ||
		{ cat "$pgdir/server.log" >&2; exit 1; }
	database_url="postgres://arena@127.0.0.1:$port/postgres?sslmode=disable"
	echo "postgresql: $pgbin, 127.0.0.1:$port, data in $pgdir" >&2
}

pg_stop() {
	local pgdir=$1
	if [ -n "$pgbin" ] && [ -f "$pgdir/data/postmaster.pid" ]; then
		pgrun pg_ctl -D "$pgdir/data" -m fast -w stop >/dev/null 2>&1 || true
	fi
}
