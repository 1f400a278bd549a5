#!/usr/bin/env bash
# setup-postgres.sh installs and starts what the integration tests need on a
# Debian bookworm machine, as root: PostgreSQL 15 with the pgvector extension
# (built from Debian trixie's source package when bookworm has none), and
# poppler-utils for pdftotext. It is idempotent: when everything is in place
# it only says so. It exports nothing; .ci/run sets DATABASE_URL.
set -euo pipefail

PG_MAJOR=15
PG_BIN=/usr/lib/postgresql/${PG_MAJOR}/bin
PG_CONFIG=${PG_BIN}/pg_config
PG_HOST=127.0.0.1
PG_USER=postgres
PG_DB=test

log() { printf 'setup-postgres: %s\n' "$*"; }
die() { printf 'setup-postgres: ERROR: %s\n' "$*" >&2; exit 1; }

export DEBIAN_FRONTEND=noninteractive
apt_updated=
apt_install() {
	if [[ -z $apt_updated ]]; then
		log "apt-get update"
		apt-get update -qq
		apt_updated=1
	fi
	log "apt-get install $*"
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 ||
		apt-get install -y --no-install-recommends "$@" # again, to show why it failed
}

psql_q() { PGOPTIONS='--client-min-messages=warning' psql -h "$PG_HOST" -U "$PG_USER" -v ON_ERROR_STOP=1 -qAtX "$@"; }

# PostgreSQL itself.
if [[ ! -x ${PG_BIN}/postgres ]]; then
	apt_install "postgresql-${PG_MAJOR}"
fi

if ! pg_isready -q -h "$PG_HOST"; then
	if ! pg_lsclusters -h | awk -v v="$PG_MAJOR" '$1 == v && $2 == "main" { found = 1 } END { exit !found }'; then
		log "creating cluster ${PG_MAJOR}/main"
		pg_createcluster "$PG_MAJOR" main
	fi
	log "starting cluster ${PG_MAJOR}/main"
	pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" main start || true
	for _ in $(seq 1 60); do
		pg_isready -q -h "$PG_HOST" && break
		sleep 0.5
	done
	pg_isready -h "$PG_HOST" >/dev/null || die "PostgreSQL did not become ready on ${PG_HOST}:5432"
	log "PostgreSQL is accepting connections"
fi

# The tests connect as postgres over TCP without a password and use database
# "test". A fresh cluster uses scram for host connections, so trust loopback.
if ! psql_q -d postgres -c 'select 1' >/dev/null 2>&1; then
	hba=$(su postgres -c "psql -qAtX -c 'show hba_file'")
	log "trusting loopback connections in ${hba}"
	sed -i '/^# BEGIN setup-postgres/,/^# END setup-postgres/d' "$hba"
	tmp=$(mktemp)
	{
		echo '# BEGIN setup-postgres'
		echo 'host all all 127.0.0.1/32 trust'
		echo 'host all all ::1/128 trust'
		echo '# END setup-postgres'
		cat "$hba"
	} >"$tmp"
	cat "$tmp" >"$hba"
	rm -f "$tmp"
	su postgres -c "psql -qAtX -c 'select pg_reload_conf()'" >/dev/null
	psql_q -d postgres -c 'select 1' >/dev/null || die "cannot connect as ${PG_USER} to ${PG_HOST}"
fi
if [[ $(psql_q -d postgres -c "select count(*) from pg_database where datname = '${PG_DB}'") == 0 ]]; then
	log "creating database ${PG_DB}"
	psql_q -d postgres -c "create database ${PG_DB}"
fi

# pdftotext reads PDF filings.
if ! command -v pdftotext >/dev/null; then
	apt_install poppler-utils
fi

# pgvector.
create_vector() { psql_q -d "$PG_DB" -c 'CREATE EXTENSION IF NOT EXISTS vector SCHEMA public' >/dev/null 2>&1; }

if create_vector; then
	log "pgvector present ($(psql_q -d "$PG_DB" -c "select extversion from pg_extension where extname = 'vector'"))"
	exit 0
fi

log "pgvector missing: building it from Debian trixie's source package"
start=$(date +%s)
apt_install "postgresql-server-dev-${PG_MAJOR}" build-essential

# The mirror this machine already uses, from deb822 .sources or one-line .list files.
find_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -r $f ]] && awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -r $f ]] && sed -E 's/\[[^]]*\]//' "$f" | awk '/^deb(-src)?[[:space:]]/ { print $2 }'
	done
	return 0
}
mirror=$(find_mirror | awk '/\/debian\/?$/ && !/security/ { print; exit }' || true)
mirror=${mirror:-http://deb.debian.org/debian}
mirror=${mirror%/}
log "using mirror ${mirror} (trixie sources, in a separate apt configuration)"

work=$(mktemp -d /tmp/pgvector-build.XXXXXX)
trap 'rm -rf "$work"' EXIT
apt_dir=${work}/apt
mkdir -p "${apt_dir}/lists/partial" "${apt_dir}/cache/archives/partial" "${apt_dir}/parts" "${work}/src"
echo "deb-src ${mirror} trixie main" >"${apt_dir}/sources.list"
# apt downloads as the unprivileged _apt user when it can.
chown -R _apt "$work" 2>/dev/null || true
apt_opts=(
	-o "Dir::Etc::SourceList=${apt_dir}/sources.list"
	-o "Dir::Etc::SourceParts=${apt_dir}/parts"
	-o "Dir::State::Lists=${apt_dir}/lists"
	-o "Dir::Cache=${apt_dir}/cache"
)
log "apt-get update (trixie deb-src only)"
apt-get "${apt_opts[@]}" update -qq
log "apt-get source --download-only pgvector"
(cd "${work}/src" && apt-get "${apt_opts[@]}" source --download-only -qq pgvector 2>&1 |
	grep -v 'unsandboxed as root' || true)
orig=$(find "${work}/src" -maxdepth 1 -name 'pgvector_*.orig.tar.*' | head -n1)
[[ -n $orig ]] || die "no pgvector orig tarball downloaded into ${work}/src"
log "unpacking $(basename "$orig")"
mkdir -p "${work}/build"
tar -xf "$orig" -C "${work}/build" --strip-components=1

log "make && make install (PG_CONFIG=${PG_CONFIG})"
make -s -C "${work}/build" PG_CONFIG="$PG_CONFIG" -j"$(nproc)" >"${work}/make.log" 2>&1 ||
	{ cat "${work}/make.log" >&2; die "building pgvector failed"; }
make -s -C "${work}/build" PG_CONFIG="$PG_CONFIG" install >>"${work}/make.log" 2>&1 ||
	{ cat "${work}/make.log" >&2; die "installing pgvector failed"; }

if ! psql_q -d "$PG_DB" -c 'CREATE EXTENSION IF NOT EXISTS vector SCHEMA public' >/dev/null; then
	die "pgvector was built and installed but CREATE EXTENSION vector still fails"
fi
log "pgvector $(psql_q -d "$PG_DB" -c "select extversion from pg_extension where extname = 'vector'") installed in $(($(date +%s) - start)) s"
