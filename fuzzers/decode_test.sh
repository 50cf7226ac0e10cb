#!/bin/sh
# decode_test.sh LOSSFUZZ - the byte format's wide rows (lf_decode.c): a batch
# too big for a wide row is cut, never the row (past 2,048 classes, the block
# path, not even to a vocabulary's 50,257, in 2-D or 1-D), and a label word
# with its top bit set is one of a wide row's last 8 classes (in a narrow row,
# v % C).
set -u
lf=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/../harness/tests/lf_expect.sh"
py=$("$(dirname "$0")/../ci/find-python.sh" json) || { echo "decode_test: no python3"; exit 1; }

# INPUT N_BYTE C_INDEX [RANK_INDEX]: one label word 0x8003, then the 22
# parameter bytes (read from the end: loss, rank, N, C, ...), all zero but
# N, C and the rank.
bytes() {
    "$py" -c 'import sys
p = [0] * 22; p[2], p[3], p[1] = int(sys.argv[2]), int(sys.argv[3]), int((sys.argv[4:] or [0])[0])
open(sys.argv[1], "wb").write(bytes([0x03, 0x80]) + bytes(reversed(p)))' "$@"
}
shape_and_labels() { "$lf" show --target fuzz_class "$1" | "$py" -c 'import json, sys
d = json.load(sys.stdin); print(d["input"]["shape"], d["target"]["values"])'; }

expect_out() { # WANT FILE
    got=$(shape_and_labels "$2")
    [ "$got" = "$1" ] && ok || fail "$2: got $got, want $1"
}

bytes "$dir/wide.bin" 7 24   # a batch of 8 asked, C = 2049
expect_out "[8, 2049] [2045, 0, 0, 0, 0, 0, 0, 0]" "$dir/wide.bin"   # 8 rows of 2049 fit; label 2048 - 3
bytes "$dir/wider.bin" 7 16  # a batch of 8 asked, C = 8193
expect_out "[2, 8193] [8189, 0]" "$dir/wider.bin"   # 2 rows of 8193 fit the budget
bytes "$dir/vocab.bin" 7 28  # a batch of 8 asked, C = 50257 (GPT-2's vocabulary)
expect_out "[1, 50257] [50253]" "$dir/vocab.bin"   # one row, whole
bytes "$dir/vocab1d.bin" 0 25 1  # 1-D, C = 32000
expect_out "[32000] [31996]" "$dir/vocab1d.bin"
bytes "$dir/mid.bin" 7 31    # a batch of 8 asked, C = 1536
expect_out "[1, 1536] [1532]" "$dir/mid.bin"   # past a block of 1024: at most two rows, here one
bytes "$dir/narrow.bin" 7 3  # C = 4
expect_out "[8, 4] [3, 0, 0, 0, 0, 0, 0, 0]" "$dir/narrow.bin"   # 0x8003 % 4; bytes past the end read as 0
finish
