#!/usr/bin/env bash
# How long a newcomer waits: clone the repository into a temporary folder and run the README's
# quick start there (the commands of its first code block, as written), timing each command, then
# pre-commit's install of the hook from that clone.
#
#     bash bench/setup_time.sh
#
# Prints, per command: wall seconds, and the CPU seconds of everything it ran (which the host's
# load moves far less); the machine's processors and load before and after. pip's download cache
# is whatever this machine has (warm once the project was installed here): the figures leave
# the network out. The clone is removed afterwards.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/hlsllint"
cd "$work/hlsllint"
mapfile -t commands < <(python3 - <<'PY'
import re
block = re.search(r"```sh\n(.*?)```", open("README.md", encoding="utf-8").read(), re.S).group(1)
for line in block.splitlines():
    if line.strip():
        print(line.split(" #")[0].strip())
PY
)
echo "HEAD $(git rev-parse --short HEAD), $(nproc) processors, load $(cut -d' ' -f1 /proc/loadavg)"
TIMEFORMAT='%R %U %S'  # bash's `time`: wall, then the CPU seconds of the command and its children
seconds() { python3 -c "import sys; w, u, s = map(float, open(sys.argv[1]).read().split()); print(f'{w:.0f} s wall, {u + s:.0f} s CPU')" "$1"; }
for command in "${commands[@]}"; do
  status=0
  { time bash -c "$command" > "$work/log" 2>&1 || status=$?; } 2> "$work/time"
  echo "$(seconds "$work/time"), exit $status: $command"
  tail -n 2 "$work/log" | sed 's/^/    /'
  cat "$work/time" >> "$work/times"
done
python3 -c "import sys; rows = [list(map(float, l.split())) for l in open(sys.argv[1])]; print(f'README set-up: {sum(r[0] for r in rows):.0f} s wall, {sum(r[1] + r[2] for r in rows):.0f} s CPU')" "$work/times"
echo "load $(cut -d' ' -f1 /proc/loadavg)"
# pre-commit installs the hook from this clone (pure Python: setup.py), as a user's first commit does.
git -C "$work" init -q user && cd "$work/user"
printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: hlsllint\n' \
  "$work/hlsllint" "$(git -C "$work/hlsllint" rev-parse HEAD)" > .pre-commit-config.yaml
{ time PRE_COMMIT_HOME="$work/pre-commit-home" "$work/hlsllint/.venv/bin/pre-commit" install-hooks \
    > "$work/log" 2>&1; } 2> "$work/time"
echo "pre-commit install-hooks: $(seconds "$work/time")"
