#!/bin/sh
# Writes slots_sql_vectors.tsv beside this script: the slot PostgreSQL puts
# each of a fixed list of UUIDs in when it runs the Slots panel's SQL
# snippet, for a few parameter sets.
#
# For each set, cargo prints the snippet (core/examples/slots_sql.rs) and
# PostgreSQL runs it once per slot, $1 from 0 to gcd(C, B) − 1, with gcd
# taken by PostgreSQL itself. The run fails unless every account comes back
# exactly once. The ids are a few whose last bytes sit at the edges of the
# raw values (0, 255, 256, 65,534, 65,535) and 200 more, md5('account k')
# read as a UUID for k = 1 to 200.
#
# Needs cargo and psql reaching a server through the usual PG* variables
# (PGDATABASE=postgres for a fresh cluster). Run from the repository:
#   sh core/tests/data/make_slots_sql_vectors.sh
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out="$here/slots_sql_vectors.tsv"

# Cycle in seconds, buckets, id bytes: 65,535 buckets from two bytes (15
# slots); 100 and 255 buckets from one byte, which do not divide 256 (100
# and 15 slots); 64 buckets, which do; and 65,535 buckets on a cycle that
# gives 65,535 slots, whose bucket · n passes 2^31.
sets="28800 65535 2
28800 100 1
28800 255 1
28800 64 1
262140 65535 2"

psql_run() {
    psql -X -q -At -F '	' -v ON_ERROR_STOP=1 "$@"
}

version=$(psql_run -c 'SELECT version()')

{
    echo "# The slot of UUID-keyed accounts by the Slots panel's SQL snippet (stampede_core::panels::snippet::slots),"
    echo "# run in $version."
    echo "# Made by make_slots_sql_vectors.sh beside this file, which runs the snippet once per slot"
    echo "# for each parameter set; every account came back exactly once."
    echo "# cycle_s, buckets and bytes are the panel's cyc, bk and lb; slots = gcd(cycle_s, buckets), by PostgreSQL."
    printf 'cycle_s\tbuckets\tbytes\tslots\tuuid\tslot\n'
} >"$out"

echo "$sets" | while read -r cycle buckets bytes; do
    snippet=$(cargo run -q -p stampede-core --example slots_sql -- "cyc=$cycle&bk=$buckets&lb=$bytes")
    {
        cat <<'SQL'
CREATE TEMP TABLE accounts (position serial, id uuid PRIMARY KEY);
INSERT INTO accounts (id) VALUES
    ('6f1c2a3e-0d4b-4c5e-8f60-718293a40000'),
    ('6f1c2a3e-0d4b-4c5e-8f60-718293a400ff'),
    ('6f1c2a3e-0d4b-4c5e-8f60-718293a40100'),
    ('6f1c2a3e-0d4b-4c5e-8f60-718293a4fffe'),
    ('6f1c2a3e-0d4b-4c5e-8f60-718293a4ffff');
INSERT INTO accounts (id)
SELECT md5('account ' || k)::uuid FROM generate_series(1, 200) AS k;
CREATE TEMP TABLE found (slot bigint, id uuid);
SQL
        printf 'DO $do$\nDECLARE\n    s bigint;\n    account uuid;\nBEGIN\n'
        printf '    FOR s IN 0 .. gcd(%s, %s) - 1 LOOP\n' "$cycle" "$buckets"
        printf '        FOR account IN EXECUTE $snippet$\n%s\n$snippet$ USING s LOOP\n' "$snippet"
        cat <<'SQL'
            INSERT INTO found VALUES (s, account);
        END LOOP;
    END LOOP;
    IF (SELECT count(*) FROM found) <> (SELECT count(*) FROM accounts)
        OR (SELECT count(DISTINCT id) FROM found) <> (SELECT count(*) FROM accounts) THEN
        RAISE EXCEPTION 'the snippet did not put every account in exactly one slot';
    END IF;
END
$do$;
SQL
        printf 'SELECT %s, %s, %s, gcd(%s, %s), a.id, f.slot\n' \
            "$cycle" "$buckets" "$bytes" "$cycle" "$buckets"
        printf 'FROM accounts AS a JOIN found AS f USING (id) ORDER BY a.position;\n'
    } | psql_run >>"$out"
done
