#!/bin/sh
# gpu_kernel_test.sh LOSSFUZZ KERNEL_DIR - the CUDA builds of ce_rows.cu
# (ce_cuda_*.so) on a GPU, held to what kernel_test.sh holds their CPU builds
# to: the plain and the guarded one keep PyTorch's contract, forward and
# backward, on every regression they claim; each planted bug is found. Exits
# 77 (skipped), saying why, without nvcc's builds or a GPU.
. "$(dirname "$0")/../../harness/tests/lf_expect.sh"
lossfuzz=$1 dir=$2
regressions=$(dirname "$0")/../../regressions
cd "$(dirname "$0")/../.." || exit 2
[ -f "$dir/ce_cuda_plain.so" ] || { echo "SKIP: no CUDA build of the example kernels (nvcc not found)"; exit 77; }
out=$("$lossfuzz" check --backend cuda --kernel "$dir/ce_cuda_plain.so" "$regressions/one_based_labels.json" 2>&1)
case "$out" in
*"no CUDA device"*|*"has no CUDA"*) echo "SKIP: ${out#*: }"; exit 77 ;;
esac
cuda() { "$lossfuzz" check --backend cuda "$@"; }
expect 0 "0 failed, 0 unusable" cuda --kernel "$dir/ce_cuda_plain.so" "$regressions"
expect 0 "0 failed, 0 unusable" cuda --kernel "$dir/ce_cuda_guarded.so" "$regressions"
# Where PyTorch asserts, the plain kernel asserts on the device (accepted), the guarded one rejects.
expect 0 "device_assert" cuda --kernel "$dir/ce_cuda_plain.so" "$regressions/one_based_labels.json"
expect 0 "kernel_rejected" cuda --kernel "$dir/ce_cuda_guarded.so" "$regressions/one_based_labels.json"
expect 1 "kernel-silent/label_out_of_range" cuda --kernel "$dir/ce_cuda_buggy.so" "$regressions"
expect 0 "0 failed, 0 unusable" cuda --kernel "$dir/ce_cuda_plain.so" examples/kernels/cases/upstream_none.json
expect 1 "grad-mismatch/kernel: d input[4]" cuda --kernel "$dir/ce_cuda_buggy_grad.so" \
    examples/kernels/cases/upstream_none.json
expect 1 "input-modified/kernel: the kernel changed its input (in forward)" cuda \
    --kernel "$dir/ce_cuda_inplace.so" examples/kernels/cases/upstream_none.json
expect 0 "4 passed, 0 failed, 0 unusable" cuda --kernel "$dir/ce_cuda_linear.so" \
    examples/kernels/cases/linear_none.json examples/kernels/cases/linear_frozen_hidden.json \
    examples/kernels/cases/linear_uneven_chunks.json examples/kernels/cases/linear_mean_first_ignored.json
expect 1 "grad-mismatch/kernel: d linear_bias[0]" cuda --kernel "$dir/ce_cuda_linear_buggy.so" \
    examples/kernels/cases/linear_none.json
finish
