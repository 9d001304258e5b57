#!/usr/bin/env bash
# The README's two commands on a truly fresh Debian 12, as a new user runs them:
#   scripts/check-fresh-debian.sh [ROOT]      (as root; ROOT defaults to a new folder in /var/tmp)
# Builds a minimal bookworm root (debootstrap --variant=minbase, then only git and
# ca-certificates), configures its package sources as this machine's are (Debian's archive and
# the npm registry, nothing else), clones this checkout's HEAD into it with ../shared beside it,
# and runs inside a chroot (/proc, /sys and /dev bound, a tmpfs /tmp, a resolvable hostname):
#   1. scripts/setup.sh && scripts/main-job.sh
#   2. scripts/test.sh
# STEPS=main runs only the first (the set-up and the main job: what a change to linking or to
# the dependency list puts at risk); the default runs both.
# It prints each command's wall time, exit status and the test runner's summary, and exits 0 only
# when both pass. It takes long (two builds from nothing), so it is not part of .ci/run: run it
# after any change to scripts/setup.sh, the front end or the dependency list.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$repo/../shared" 2>/dev/null && pwd) || { echo "check-fresh: no ../shared beside the checkout" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "check-fresh: run as root (debootstrap and chroot need it)" >&2; exit 2; }
root=${1:-$(mktemp -d /var/tmp/frugal-fresh.XXXXXX)}
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}

if ! command -v debootstrap >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi
if [[ ! -x $root/bin/bash ]]; then
  echo "check-fresh: debootstrap minbase bookworm into $root ($mirror)"
  debootstrap --variant=minbase --include=git,ca-certificates bookworm "$root" "$mirror" \
    >"$root.debootstrap.log" 2>&1 || { echo "check-fresh: debootstrap failed, see $root.debootstrap.log" >&2; exit 1; }
fi

# Package sources and client settings as this machine has them (the archive, its security
# updates, the npm registry); nothing else of this machine goes in.
mkdir -p "$root/etc/apt/sources.list.d" "$root/etc/apt/apt.conf.d"
if compgen -G '/etc/apt/sources.list.d/*.sources' >/dev/null; then
  cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/"
  rm -f "$root/etc/apt/sources.list"  # debootstrap's one-line copy of the same archive
fi
cp /etc/apt/apt.conf.d/99* "$root/etc/apt/apt.conf.d/" 2>/dev/null || true
for rc in /etc/npmrc /root/.npmrc; do [[ -f $rc ]] && install -D -m 600 "$rc" "$root$rc"; done
# The certificate authorities this machine adds to Debian's (a TLS-inspecting proxy's, say): the
# npm registry is reached over HTTPS through them.
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null 2>&1
fi
echo frugal-fresh >"$root/etc/hostname"
printf '127.0.0.1 localhost frugal-fresh\n::1 localhost ip6-localhost\n' >"$root/etc/hosts"
cp /etc/resolv.conf "$root/etc/resolv.conf"

mounted=()
mount_in() { mount "$@" && mounted+=("${@: -1}"); }
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null; done
}
trap cleanup EXIT
mount_in -t proc proc "$root/proc"
mount_in --rbind /sys "$root/sys"
mount_in --rbind /dev "$root/dev"
mount_in -t tmpfs -o size=8g tmpfs "$root/tmp"

rm -rf "$root/src"
mkdir -p "$root/src"
git clone -q "$repo" "$root/src/frugal"
commit=$(git -C "$root/src/frugal" rev-parse --short HEAD)
cp -a "$shared" "$root/src/shared"

run_in() {
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 TERM=dumb /bin/bash -c "cd /src/frugal && $1"
}
results=()
overall=0
steps=("scripts/setup.sh && scripts/main-job.sh" "scripts/test.sh")
[[ ${STEPS:-all} == main ]] && steps=("${steps[0]}")
for step in "${steps[@]}"; do
  [[ $step == scripts/test.sh ]] && log="$root.test.log" || log="$root.main.log"
  echo "check-fresh: running '$step' (log: $log)"
  t0=$(date +%s)
  run_in "$step" >"$log" 2>&1
  rc=$?
  wall=$(($(date +%s) - t0))
  summary=$(grep -E '^(tests: [0-9]+ passed, [0-9]+ failed|[0-9]+% tests passed)' "$log" | tail -2 | paste -sd ';' -)
  results+=("$(printf "%-40s rc %-3s %6ss  %s" "$step" "$rc" "$wall" "$summary")")
  ((rc == 0)) || overall=1
  tail -5 "$log"
done
echo "== check-fresh-debian: $commit on $(. "$root/etc/os-release"; echo "$PRETTY_NAME"), node $(chroot "$root" node --version 2>/dev/null || echo none)"
printf '%s\n' "${results[@]}"
exit "$overall"
