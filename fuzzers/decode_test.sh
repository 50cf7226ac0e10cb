#!/bin/sh
# decode_test.sh LOSSFUZZ - the byte format's wide rows (lf_decode.c): a batch
# too big for a wide row is cut, never the row, and a label word with its top
# bit set is one of a wide row's last 8 classes (in a narrow row, v % C).
set -u
lf=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/../harness/tests/lf_expect.sh"
py=$("$(dirname "$0")/../ci/find-python.sh" json) || { echo "decode_test: no python3"; exit 1; }

# INPUT N_BYTE C_INDEX: one label word 0x8003, then the 22 parameter bytes
# (read from the end: loss, rank, N, C, ...), all zero but N and C.
bytes() {
    "$py" -c 'import sys
p = [0] * 22; p[2], p[3] = int(sys.argv[2]), int(sys.argv[3])
open(sys.argv[1], "wb").write(bytes([0x03, 0x80]) + bytes(reversed(p)))' "$@"
}
shape_and_labels() { "$lf" show --target fuzz_class "$1" | "$py" -c 'import json, sys
d = json.load(sys.stdin); print(d["input"]["shape"], d["target"]["values"])'; }

expect_out() { # WANT FILE
    got=$(shape_and_labels "$2")
    [ "$got" = "$1" ] && ok || fail "$2: got $got, want $1"
}

bytes "$dir/wide.bin" 7 24   # a batch of 8 asked, C = 2049
expect_out "[1, 2048] [2044]" "$dir/wide.bin"   # one row of 2048 (the limit), label 2047 - 3
bytes "$dir/narrow.bin" 7 3  # C = 4
expect_out "[8, 4] [3, 0, 0, 0, 0, 0, 0, 0]" "$dir/narrow.bin"   # 0x8003 % 4; bytes past the end read as 0
finish
