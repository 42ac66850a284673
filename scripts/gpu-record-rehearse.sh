#!/usr/bin/env bash
# make gpu-record: the device call of scripts/gpu-record.sh, rehearsed on this machine as the lent
# GPU machine will run it, so that its first minutes are not spent on a path, a library or a typo.
# Needs the bundle (make gpu-record-bundle). What it imitates:
#   - only what the device tool sends travels: the tree's tracked and untracked-not-ignored files
#     plus the carried .gpu-bundle and .gl, copied to a scratch folder, and the command runs there;
#   - the exact command line of `scripts/gpu-record.sh --print-device-command`, under `env -i` (PATH,
#     HOME and OUT only), so nothing of this shell's environment helps it;
#   - where unshare can make a private mount namespace (root here), /work and
#     /usr/share/datasets are hidden behind empty folders: this checkout, its build folders and
#     Debian's Fashion-MNIST are missing, as on the device, and the call must link the bundle's;
#   - the .gl packages are unpacked into a scratch root, not into / (that would change this shared
#     machine), and ldconfig is skipped: the packages are Debian 12's, installed here already.
# Without a GPU the call says so and runs its rehearsal steps; with one it records for real.
#
# Usage: scripts/gpu-record-rehearse.sh [--out DIR] [--no-hide]   (default --out /tmp/gpu-record-out)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=/tmp/gpu-record-out hide=1
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=${2:-}; shift 2 ;;
        --no-hide) hide=0; shift ;;
        -h|--help) awk 'NR == 1 {next} /^#/ {sub(/^# ?/, ""); print; next} {exit}' "$0"; exit 0 ;;
        *) echo "gpu-record-rehearse: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ -f .gpu-bundle/MANIFEST ] || { echo "gpu-record-rehearse: no .gpu-bundle: make gpu-record-bundle first" >&2; exit 2; }
ls .gl/*.deb > /dev/null 2>&1 || { echo "gpu-record-rehearse: no .gl packages: make gpu-record-bundle first" >&2; exit 2; }
scratch=/tmp/gpu-record-rehearsal
tree=$scratch/tree
rm -rf "$scratch" "$out" && mkdir -p "$tree" "$scratch/root" "$out" || exit 1
# What the device tool sends: tracked files still present, untracked ones git does not ignore.
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -C "$tree" -xf - || exit 1
cp -a .gpu-bundle .gl "$tree/" || exit 1
echo "gpu-record-rehearse: the tree as it travels: $(du -sh "$tree" | cut -f1) in $tree"

cmd=$(scripts/gpu-record.sh --print-device-command)
# Here the packages go to a scratch root; the rest of the line is the device's, unchanged.
here_cmd=${cmd//dpkg -x \$f \//dpkg -x \$f $scratch/root}
here_cmd=${here_cmd//ldconfig;/true;}
[ "$here_cmd" != "$cmd" ] || { echo "gpu-record-rehearse: the device command no longer starts as expected: $cmd" >&2; exit 2; }
echo "gpu-record-rehearse: device command (${#cmd} characters): $cmd"
run=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "OUT=$out" bash -c "cd $tree && $here_cmd")
if [ "$hide" = 1 ] && unshare -m true 2> /dev/null; then
    echo "gpu-record-rehearse: /work and /usr/share/datasets hidden (a private mount namespace)"
    unshare -m bash -c 'mount -t tmpfs none /work && mount -t tmpfs none /usr/share/datasets && exec "$@"' _ "${run[@]}"
else
    echo "gpu-record-rehearse: note: nothing hidden (--no-hide, or unshare needs root): this checkout stays visible"
    "${run[@]}"
fi
rc=$?
echo "gpu-record-rehearse: exit $rc; the packages unpacked: $(find "$scratch/root" -name 'libEGL.so.1*' | head -1)"
echo "gpu-record-rehearse: what came back in $out:"
ls -la "$out"
exit "$rc"
