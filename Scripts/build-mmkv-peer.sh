#!/usr/bin/env bash
# Builds the MMKV contender of `stash-bench preferences` from MMKV's own sources.
#
#   Scripts/build-mmkv-peer.sh <mmkv-source-dir> [<build-dir>]
#
# <mmkv-source-dir> is a checkout of https://github.com/Tencent/MMKV (the figures in
# docs/BENCHMARKS.md use tag v2.4.2); nothing of it is copied into this repository. MMKV's
# core (Core/) is compiled as its Core/CMakeLists.txt compiles it for a release build
# (C++20, -O3 -DNDEBUG, system zlib when present, else MMKV's embedded copy), with our
# driver (Benchmarks/Peers/MMKV/driver.cpp) linked against it. The build goes into
# <build-dir> (default: a folder under ${TMPDIR:-/tmp}), never into the repository; the last
# line printed is the driver's path, for
#
#   STASH_BENCH_MMKV=<driver> swift run -c release stash-bench preferences
set -euo pipefail

if [[ $# -lt 1 || ! -d "$1/Core" ]]; then
    echo "usage: $0 <mmkv-source-dir> [<build-dir>]  (the folder holding MMKV's Core/)" >&2
    exit 2
fi
source_dir=$(cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${2:-${TMPDIR:-/tmp}/stash-mmkv-peer}
case "$(cd "$(dirname "$build_dir")" 2>/dev/null && pwd)/" in
    "$repo"/*) echo "the build folder must be outside the repository" >&2; exit 2 ;;
esac
mkdir -p "$build_dir/obj"
cxx=${CXX:-g++}
core="$source_dir/Core"
flags=(-std=c++20 -O3 -DNDEBUG -fPIC -I"$core")
libs=(-lpthread)
if [[ -f /usr/include/zlib.h ]]; then libs+=(-lz); else flags+=(-DMMKV_EMBED_ZLIB=1); fi

# Every source of Core/CMakeLists.txt; the platform files (_Android, _OSX, _Win32) compile
# to nothing on Linux, as they do in MMKV's own CMake build.
sources=("$core"/*.cpp "$core"/aes/*.cpp "$core"/aes/openssl/*.cpp "$core"/crc32/*.cpp "$core"/crc32/zlib/*.cpp)
objects=()
for source in "${sources[@]}"; do
    object="$build_dir/obj/$(echo "${source#"$core"/}" | tr / _).o"
    if [[ ! -f "$object" || "$source" -nt "$object" ]]; then
        "$cxx" "${flags[@]}" -c "$source" -o "$object"
    fi
    objects+=("$object")
done
ar rcs "$build_dir/libmmkvcore.a" "${objects[@]}"
"$cxx" "${flags[@]}" "$repo/Benchmarks/Peers/MMKV/driver.cpp" "$build_dir/libmmkvcore.a" "${libs[@]}" \
    -o "$build_dir/mmkv-driver"
echo "MMKV $(git -C "$source_dir" describe --tags 2>/dev/null || echo "(source at $source_dir)")" >&2
echo "$build_dir/mmkv-driver"
