#!/usr/bin/env bash
# The style checks CI runs (../shared/STYLE.md, .clang-format, .clang-tidy):
#   scripts/lint.sh [BASE]
# 1. clang-format: every tracked C++ file is formatted; a difference fails, showing it.
# 2. clang-tidy: the C++ sources changed since BASE (default: the commit before HEAD), and the
#    sources beside changed headers, have no finding. Uses build/dev/compile_commands.json.
set -uo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD~1}
status=0

mapfile -t sources < <(git ls-files '*.cc' '*.h')
# One clang-format process over the tree; it names each file that differs.
mapfile -t unformatted < <(printf '%s\n' "${sources[@]}" | xargs clang-format --dry-run --Werror 2>&1 |
  sed -n 's/^\([^: ]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if ((${#unformatted[@]})); then
  echo "lint: ${#unformatted[@]} file(s) are not clang-format clean (run clang-format -i on them):" >&2
  for f in "${unformatted[@]}"; do
    echo "--- $f" >&2
    diff -u "$f" <(clang-format "$f") | sed -n '3,40p' >&2
  done
  status=1
else
  echo "lint: clang-format: ${#sources[@]} files clean"
fi

database=build/dev/compile_commands.json
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  echo "lint: clang-tidy: no commit $base to compare with; skipped"
elif [[ ! -f $database ]]; then
  echo "lint: clang-tidy: $database is missing (build the dev preset first)" >&2
  status=1
else
  declare -A wanted=()
  changed=()
  while IFS= read -r f; do
    [[ -f $f ]] || continue
    changed+=("$f")
    case $f in
      *.cc) wanted[$f]=1 ;;
      *.h) [[ -f ${f%.h}.cc ]] && wanted[${f%.h}.cc]=1 ;;
    esac
  done < <(git diff --name-only "$base" HEAD -- '*.cc' '*.h')
  # The sources as written, one command each (the build compiles most in unity batches),
  # without GCC's precompiled header: scripts/lib/tidy_database.py.
  tidy_db=$(mktemp -d)
  trap 'rm -rf "$tidy_db"' EXIT
  python3 scripts/lib/tidy_database.py "$database" "$tidy_db"
  # Only files the build compiles (a deleted or generated one has no entry).
  files=()
  for f in "${!wanted[@]}"; do
    grep -q "\"file\": \"[^\"]*/$f\"" "$tidy_db/compile_commands.json" && files+=("$f")
  done
  if ((${#files[@]} == 0)); then
    echo "lint: clang-tidy: no changed C++ source since $base"
  else
    echo "lint: clang-tidy: ${#files[@]} changed source(s) since $base"
    # Findings in the changed files only: a changed source also reports what its unchanged
    # headers hold, which is not this change's to fix.
    findings=$(printf '%s\n' "${files[@]}" |
      xargs -P "$(nproc)" -n 1 clang-tidy -p "$tidy_db" --quiet 2>/dev/null |
      grep -E '^[^ ].*: (warning|error): ' |
      grep -F -f <(printf '/%s:\n' "${changed[@]}") | sort -u || true)
    if [[ -n $findings ]]; then
      echo "lint: clang-tidy findings:" >&2
      echo "$findings" >&2
      status=1
    else
      echo "lint: clang-tidy: no findings"
    fi
  fi
fi
exit "$status"
