#!/usr/bin/env bash
# Runs `stampede check` as a user's pre-commit runs it: PyPI's pre-commit
# installs this repository's hook (.pre-commit-hooks.yaml, language: rust)
# from a snapshot of this tree and runs it over the check's fixture, made
# a git repository. The fixture has errors, so the hook must fail and name
# them; against a baseline of that same run it must pass.
# Usage: tests/recipes/pre_commit.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PYTHONPATH=$root/.tools/pre-commit
pre_commit() { python3 -m pre_commit "$@"; }
git_quiet() { git -c user.name=stampede -c user.email=stampede@localhost -c init.defaultBranch=main "$@"; }

# The hook repository: this tree as it stands, committed, since pre-commit
# clones a repository at a revision.
hooks=$work/hooks
mkdir "$hooks"
tar -C "$root" --exclude=./target --exclude=./dist --exclude=./.tools --exclude=./.git \
  --exclude=node_modules -cf - . | tar -C "$hooks" -xf -
git_quiet -C "$hooks" init -q
git_quiet -C "$hooks" add -A
git_quiet -C "$hooks" commit -qm "hooks"
rev=$(git -C "$hooks" rev-parse HEAD)

# The user's repository: the fixture, with the hook in its config.
repo=$work/repo
cp -r cli/tests/check/repo "$repo"
configure() {
  cat >"$repo/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $hooks
    rev: $rev
    hooks:
      - id: stampede-check
        args: [--from, "2026-11-23T00:00:00Z", --max-starts-per-minute, "10"$1]
YAML
}
configure ', --output, "json=base.json", --output, text'
git_quiet -C "$repo" init -q
git_quiet -C "$repo" add -A
git_quiet -C "$repo" commit -qm "schedules"

# Environments and builds kept between runs under target/.
export PRE_COMMIT_HOME=$root/target/pre-commit/home
export CARGO_TARGET_DIR=$root/target/pre-commit/build
run() { (cd "$repo" && pre_commit run --all-files --color never) >"$work/out" 2>&1; }

if run; then
  cat "$work/out"
  echo "pre-commit recipe: the hook passed on a fixture with errors" >&2
  exit 1
fi
for expected in "ops/crontab:7: error[never-runs]" "error[starts-per-minute]" "Failed"; do
  grep -qF "$expected" "$work/out" || {
    cat "$work/out"
    echo "pre-commit recipe: no \"$expected\" in the hook's output" >&2
    exit 1
  }
done
[[ -s $repo/base.json ]] || { echo "pre-commit recipe: the hook wrote no base.json" >&2; exit 1; }

# The same repository against its own baseline: nothing new, so it passes.
configure ', --baseline, base.json'
if ! run; then
  cat "$work/out"
  echo "pre-commit recipe: the hook failed against its own baseline" >&2
  exit 1
fi
echo "pre-commit recipe: the hook fails on the fixture's errors and passes against their baseline"
