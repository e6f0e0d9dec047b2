#!/usr/bin/env bash
# Rebuilds earlier dataset versions from the commit whose builder made them (recipes/versions.json), each in a
# git worktree with its own npm ci, and checks its test.jsonl and val.jsonl against its sums in recipes/.
#   scripts/rebuild-earlier.sh --mirror DIR --work DIR [VERSION ...]    (default: every earlier version)
# WORK/VERSION/out keeps each build (compare-builds reads the previous one); the worktrees are removed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

mirror='' work=''
versions=()
while [ $# -gt 0 ]; do
  case $1 in
    --mirror) mirror=$(cd "$2" && pwd); shift 2 ;;
    --work) mkdir -p "$2"; work=$(cd "$2" && pwd); shift 2 ;;
    -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "rebuild-earlier: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) versions+=("$1"); shift ;;
  esac
done
if [ -z "$mirror" ] || [ -z "$work" ]; then echo 'rebuild-earlier: --mirror DIR and --work DIR are required (see --help)' >&2; exit 2; fi

# version, commit and sums file of each entry, one per line
entries=$(node -e '
  const v = JSON.parse(require("fs").readFileSync("recipes/versions.json", "utf8"))
  const want = process.argv.slice(1)
  for (const w of want) if (!v.versions.some((e) => e.version === w)) { console.error(`rebuild-earlier: no version ${w} in recipes/versions.json`); process.exit(2) }
  for (const e of v.versions) if (!want.length || want.includes(e.version)) console.log(`${e.version} ${e.commit} ${e.sums}`)
' "${versions[@]+"${versions[@]}"}")

while read -r version commit sums; do
  if ! git cat-file -e "$commit^{commit}" 2>/dev/null && [ "$(git rev-parse --is-shallow-repository)" = true ]; then
    git fetch --quiet --unshallow || true
  fi
  if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "rebuild-earlier: $version's commit $commit is not in this clone (a shallow clone? run git fetch --unshallow)" >&2
    exit 2
  fi
  built=$(git show "$commit:recipes/jev-bench.json" | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).version')
  if [ "$built" != "$version" ]; then
    echo "rebuild-earlier: recipes/versions.json says $commit builds $version, its recipes/jev-bench.json is $built" >&2
    exit 1
  fi
  tree=$work/$version/tree
  rm -rf "$work/$version"
  mkdir -p "$work/$version"
  # a worktree left registered by a run that stopped midway is forgotten first
  git worktree prune
  git worktree add --quiet --force --detach "$tree" "$commit"
  echo "$version: builder at ${commit:0:12}"
  # its own dependencies and prepared cache, so nothing of this builder's leaks in
  log=$work/$version/build.log
  if ! (
    cd "$tree"
    npm ci --no-audit --no-fund
    XDG_CACHE_HOME=$work/$version/cache npm run -s build-dataset -- --mirror "$mirror" --out "$work/$version/out"
  ) >"$log" 2>&1; then
    git worktree remove --force "$tree" || true
    tail -n 40 "$log" >&2
    echo "rebuild-earlier: $version did not build at ${commit:0:12} (log: $log)" >&2
    exit 1
  fi
  git worktree remove --force "$tree"
  (cd "$work/$version/out" && sha256sum --check --strict "$repo/recipes/$sums")
done <<< "$entries"
