#!/bin/sh
# Reproducibility of `teeoracle record`: PAIRS pairs of runs of each
# scenario (same seed, same server build), each pair compared file by
# file with `teeoracle diff` (every teehistorian file, demo and the
# capture). Prints one line per pair and a count per scenario; the diffs
# of pairs that differ stay in $WORK.
#   corpus/record/reproducibility.sh [PAIRS] [SCENARIO.ron...]
# Environment: TEEORACLE (default target/release/teeoracle), DDNET
# (/usr/games/DDNet-Server), TEEWORLDS (/usr/games/teeworlds-server),
# WORK (a new temporary folder).
set -u
here=$(cd "$(dirname "$0")" && pwd)
pairs=${1:-10}
[ $# -gt 0 ] && shift
teeoracle=${TEEORACLE:-target/release/teeoracle}
ddnet=${DDNET:-/usr/games/DDNet-Server}
teeworlds=${TEEWORLDS:-/usr/games/teeworlds-server}
work=${WORK:-$(mktemp -d)}
if [ $# -eq 0 ]; then
    set -- join_move_leave.ron mixed_06_07.ron two_map_changes.ron \
        map_change_timeout_kill.ron sixty_six_clients.ron teeworlds_07.ron \
        gravity_base.ron
fi
echo "work folder: $work"
for scenario in "$@"; do
    name=$(basename "$scenario" .ron)
    case $name in
        teeworlds*) server=$teeworlds ;;
        *) server=$ddnet ;;
    esac
    same=0
    for i in $(seq 1 "$pairs"); do
        dir=$work/$name/$i
        mkdir -p "$dir"
        for side in a b; do
            "$teeoracle" record --server "$server" --scenario "$here/$name.ron" \
                -o "$dir/$side" --seed 1 >"$dir/$side.out" 2>&1
            echo "$?" >"$dir/$side.exit"
        done
        differ=""
        for f in "$dir"/a/*.teehistorian "$dir"/a/*.demo "$dir"/a/bots.pcapng; do
            [ -e "$f" ] || continue
            base=$(basename "$f")
            if ! "$teeoracle" diff "$f" "$dir/b/$base" >"$dir/$base.diff" 2>&1; then
                differ="$differ $base"
            fi
        done
        for f in "$dir"/b/*.teehistorian "$dir"/b/*.demo; do
            [ -e "$f" ] || continue
            [ -e "$dir/a/$(basename "$f")" ] || differ="$differ $(basename "$f")(only-b)"
        done
        if [ -z "$differ" ]; then
            same=$((same + 1))
            echo "$name pair $i: identical (record exits $(cat "$dir/a.exit") $(cat "$dir/b.exit"))"
        else
            echo "$name pair $i: differ:$differ (record exits $(cat "$dir/a.exit") $(cat "$dir/b.exit"))"
            # What differs: each file's count of differences and the
            # categories of its summary.
            for d in "$dir"/*.diff; do
                [ -e "$d" ] || continue
                grep -q ' differences\{0,1\}$' "$d" || continue
                count=$(grep -m1 -o '[0-9]* differences\{0,1\}$' "$d")
                cats=$(sed -n '/^summary:/,$p' "$d" | sed 1d | sed 's/^ *//' | paste -sd ';' -)
                echo "    $(basename "$d" .diff): $count; $cats"
            done
            # What each run said of the server's timing: a join or leave
            # sent in a tick the server overran may land a tick late.
            for side in a b; do
                sed -n '/^timing:/,$p' "$dir/$side.out" | sed "s/^/    $side: /"
            done
        fi
    done
    echo "== $name: $same of $pairs pairs identical"
done
