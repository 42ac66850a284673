#!/usr/bin/env bash
# make gpu-record-unpack RECORDING=...: back here, after the recording call, puts the returned
# recording where the app ships it: assets/recorded/<gpu-id>/ (gpu-id from its provenance.txt, e.g.
# nvidia-h200), flat, as core/recording/gpu_recording.h reads it. Only provenance.txt, *.csv and
# *.json are taken (no pictures, no logs), and only when:
#   - provenance.txt names a GPU and a date, and no not_a_gpu line (a rehearsal or a test recording
#     is never shipped as a GPU's);
#   - the names are plain (letters, digits, '.', '_', '-') and there are at most 600 files;
#   - the whole stays within the recording budget (20 MiB; --budget-mib N).
# An existing folder for that GPU is replaced only with --force. Then review and commit it:
#   git add assets/recorded/<gpu-id> && git commit
#
# Usage: scripts/gpu-record-unpack.sh FOLDER|recording.tar.gz [--dest DIR] [--force] [--budget-mib N]
#   FOLDER: what the device returned (holding recording.tar.gz); --dest: another folder than
#   assets/recorded/<gpu-id> (for a look, or a test).
set -uo pipefail
cd "$(dirname "$0")/.."
src="" dest="" force=0 budget_mib=20
while [ $# -gt 0 ]; do
    case "$1" in
        --dest) dest=${2:-}; shift 2 ;;
        --force) force=1; shift ;;
        --budget-mib) budget_mib=${2:-}; shift 2 ;;
        -h|--help) awk 'NR == 1 {next} /^#/ {sub(/^# ?/, ""); print; next} {exit}' "$0"; exit 0 ;;
        -*) echo "gpu-record-unpack: unknown option '$1' (see --help)" >&2; exit 2 ;;
        *) src=$1; shift ;;
    esac
done
die() { echo "gpu-record-unpack: $*" >&2; exit 1; }
[ -n "$src" ] || { echo "usage: scripts/gpu-record-unpack.sh FOLDER|recording.tar.gz [--dest DIR] [--force]" >&2; exit 2; }
[ -d "$src" ] && src=$src/recording.tar.gz
[ -f "$src" ] || die "no $src: give the folder the device call returned, or its recording.tar.gz"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# --no-same-owner, and no links or folders taken below: the archive came from another machine.
tar -C "$tmp" --no-same-owner -xzf "$src" || die "$src is not a gzipped tar"
prov=$tmp/provenance.txt
[ -f "$prov" ] && [ ! -L "$prov" ] || die "$src holds no provenance.txt"
key() { sed -n "s/^$1:[[:space:]]*//p" "$prov" | head -1; }
gpu=$(key gpu) date=$(key date) not_gpu=$(key not_a_gpu)
[ -n "$gpu" ] && [ -n "$date" ] || die "provenance.txt lacks its gpu: or date: line"
[ -z "$not_gpu" ] || die "not a GPU's recording (not_a_gpu: $not_gpu): it is never put under assets/recorded"
gpu_id=$(key gpu_id)
[ -n "$gpu_id" ] || gpu_id=$(echo "$gpu" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
[[ $gpu_id =~ ^[a-z0-9][a-z0-9-]*$ ]] || die "cannot make a folder name of the GPU '$gpu'"

files=()
while IFS= read -r -d '' f; do
    name=${f#"$tmp"/}
    case "$name" in provenance.txt|*.csv|*.json) ;; *) continue ;; esac
    [[ $name =~ ^[A-Za-z0-9._-]+$ ]] || die "a file name that is not plain: '$name'"
    files+=("$name")
done < <(find "$tmp" -mindepth 1 -maxdepth 1 -type f -print0)
[ "${#files[@]}" -le 600 ] || die "${#files[@]} files: more than a recording holds (600)"
[ "${#files[@]}" -ge 2 ] || die "nothing recorded beside provenance.txt"
bytes=$( (cd "$tmp" && stat -c %s "${files[@]}") | awk '{s += $1} END {print s + 0}')
[ "$bytes" -le $((budget_mib * 1048576)) ] || die "$((bytes / 1048576)) MiB: over the recording's $budget_mib MiB budget"

[ -n "$dest" ] || dest=assets/recorded/$gpu_id
if [ -e "$dest" ]; then
    [ "$force" = 1 ] || die "$dest exists: --force replaces it"
    rm -rf "$dest"
fi
mkdir -p "$dest" || die "cannot make $dest"
dest_abs=$(cd "$dest" && pwd)
(cd "$tmp" && cp "${files[@]}" "$dest_abs/") || die "cannot write $dest"
csvs=$(printf '%s\n' "${files[@]}" | grep -c '\.csv$')
echo "gpu-record-unpack: $gpu, $date: $csvs CSV files, $(( ${#files[@]} - csvs )) others, $((bytes / 1024)) KiB in $dest"
echo "gpu-record-unpack: look it over, then: git add $dest && git commit"
