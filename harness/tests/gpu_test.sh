#!/bin/sh
# gpu_test.sh LOSSFUZZ REGRESSIONS - the regressions on the CUDA backend; exits
# 77 (skipped) with the reason where this build or machine has no GPU.
lf=$1
out=$("$lf" check --backend cuda "$2" 2>&1)
rc=$?
case "$out" in
*"no CUDA device"*|*"has no CUDA"*) echo "SKIP: ${out#*: }"; exit 77 ;;
esac
printf '%s\n' "$out" | tail -n 20
exit $rc
