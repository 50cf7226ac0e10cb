#!/bin/sh
# gpu_memcheck.sh LOSSFUZZ REGRESSIONS - compute-sanitizer's memcheck over the
# CUDA backend on a handful of regressions, one per kernel family. The canary
# guards (lf_canary.h) catch writes into the 256 bytes around a buffer and
# reads that reach a result; memcheck sees every access beyond the allocation.
# Exits 77 (skipped) with the reason where there is no CUDA build, no GPU or no
# compute-sanitizer.
lf=$1 dir=$2
cases="one_based_labels vocab_edge_c33 uint8_labels_2d input_1d_target_0d empty_batch_mean
       spatial_4d_weight_mean void_255_without_ignore_index bf16_large_logits_with_smoothing
       prob_targets_with_label_smoothing bce_pos_weight_and_weight"
files=""
for c in $cases; do files="$files $dir/$c.json"; done

out=$("$lf" check --backend cuda "$dir/one_based_labels.json" 2>&1)
case "$out" in
*"no CUDA device"*|*"has no CUDA"*) echo "SKIP: ${out#*: }"; exit 77 ;;
esac
cs=$(command -v compute-sanitizer || ls "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" 2>/dev/null)
if [ -z "$cs" ]; then
    echo "SKIP: compute-sanitizer is not installed (not on PATH nor in ${CUDA_HOME:-/usr/local/cuda}/bin)"
    exit 77
fi
# Worker processes included; exit 99 on any memcheck error, else lossfuzz's own status.
# shellcheck disable=SC2086
out=$("$cs" --tool memcheck --target-processes all --error-exitcode 99 "$lf" check --backend cuda $files 2>&1)
rc=$?
printf '%s\n' "$out" | tail -n 40
exit $rc
