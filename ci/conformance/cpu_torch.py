#!/usr/bin/env python3
"""Conformance of lossfuzz against PyTorch on the CPU (Debian's python3-torch).

Generates random cases (torch_cases.py), runs torch on each (torch_cpu.py),
runs `lossfuzz check --json` over all of them (lossfuzz_json.py), and judges
each case with the comparison every conformance run shares (compare.py),
leaving out the documented version and device differences (KNOWN_DIFFERENCES);
report.py prints the result.

    "$(ci/find-python.sh)" ci/conformance/cpu_torch.py --lossfuzz build/lossfuzz
        [--cases 2000] [--seed 1] [--workdir DIR] [--keep] [--verbose]
    "$(ci/find-python.sh)" ci/conformance/cpu_torch.py --dry-run [--cases N] [--seed S]

Exit status: 0 no disagreements (outside KNOWN_DIFFERENCES), 1 some,
2 usage error or lossfuzz binary missing, 77 torch not importable (skipped).
"""
import argparse
import math
import os
import shutil
import sys
import tempfile
import time
from collections import Counter

import compare
import lossfuzz_json
from report import MAX_PRINTED, fmt_torch, print_distribution, print_summary
from torch_cases import CE, NLL, IMPORT_ERROR, CaseGenerator, roundtrip_errors, torch, write_case
from torch_cpu import run_torch, run_torch_backward


# Documented torch-version differences: (predicate, reason). predicate(d) gets a
# Disagreement (d.kind, d.case, d.torch, d.record, d.detail) and returns True
# when `reason` explains it; such disagreements are not failures.
def _is_1d_ignored_mean(d):
    t, ign = d.case.tensors["target"], d.case.options.get("ignore_index", -100)
    return (d.kind == "value" and d.case.tensors["input"].dim() == 1 and t.numel() == 1
            and int(t.flatten()[0]) == ign and d.case.options.get("reduction", "mean") == "mean"
            and d.torch["value"] and math.isnan(d.torch["value"][0]))


def _is_1d_input_1d_target(d):
    return (d.kind in ("outcome", "false_alarm", "guard_miss", "error_class")
            and d.case.loss in (CE, NLL) and d.case.tensors["input"].dim() == 1
            and d.case.tensors["target"].dim() == 1
            and (d.case.loss == NLL  # for cross_entropy, equal shapes mean probabilities
                 or d.case.tensors["target"].shape != d.case.tensors["input"].shape))


def _is_empty_batch_dtype(d):
    inp = d.case.tensors["input"]
    return (d.kind in ("outcome", "false_alarm", "guard_miss") and d.torch["outcome"] == "host_error"
            and d.torch["error"] in ("target_dtype", "weight_dtype") and inp.dim() >= 2 and inp.shape[0] == 0
            and d.record.get("spec", {}).get("outcome") == "ok")


def _is_meta_target_dtype_on_empty(d):
    spec = d.record.get("spec") or {}
    return (d.kind in ("outcome", "false_alarm") and torch.__version__ < "2" and d.torch["outcome"] == "ok"
            and spec.get("outcome") == "host_error" and spec.get("error") == "target_dtype"
            and d.case.tensors["input"].dim() <= 2 and d.case.tensors["target"].numel() == 0)


def _reads_int32_labels(case):
    target = case.tensors["target"]
    return (case.loss != "binary_cross_entropy_with_logits" and case.tensors["input"].dim() >= 3
            and case.options.get("reduction", "mean") != "none" and not target.is_floating_point()
            and bool(((target > 2**31 - 1) | (target < -2**31)).any()))


def _is_int32_narrowing(d):
    spec = d.record.get("spec") or {}
    return (d.kind in ("outcome", "guard_miss", "false_alarm") and d.torch["outcome"] == "device_assert"
            and ((spec.get("outcome") == "ok" and spec.get("silent") == "label_truncated")
                 or (spec.get("outcome") == "host_error" and _reads_int32_labels(d.case))))  # a later host error


def _is_f16_sum_overflow(d):
    return (d.kind == "value" and d.torch["dtype"] == "float16" and torch.__version__ < "2"
            and d.case.options.get("reduction", "mean") in ("mean", "sum")
            and d.torch["value"] and math.isinf(d.torch["value"][0]))


def _is_bf16_spatial_log_softmax(d):
    inp = d.case.tensors["input"]
    return (d.kind == "value" and inp.dtype == torch.bfloat16 and inp.dim() >= 3
            and any(math.isinf(v) or math.isnan(v) for v in d.torch["value"]))


def _is_u8_wrapped_ignore_index(d):
    ignore_index = d.case.options.get("ignore_index", -100)
    return (d.kind in ("value", "outcome") and torch.__version__ < "2" and d.case.dtype("target") == "uint8"
            and d.case.loss == "cross_entropy" and d.case.options.get("label_smoothing", 0) > 0
            and not 0 <= ignore_index <= 255
            and bool((d.case.tensors["target"] == ignore_index % 256).any()))


def _is_bce_infinite_logit(d):
    return (d.kind == "value" and torch.__version__ < "2" and d.case.loss == "binary_cross_entropy_with_logits"
            and any(math.isnan(v) for v in d.torch["value"]))


KNOWN_DIFFERENCES = [
    (_is_1d_ignored_mean, "CUDA's nll_loss_forward_reduce_cuda_kernel_1d returns 0 for an ignored "
                          "target under mean; the CPU returns NaN (the spec models CUDA)"),
    (_is_1d_input_1d_target, "1-D input with a 1-D target: 2.x accepts shape [1] only, 1.13 accepts "
                             "[C] and rejects [1] unless C == 1 (the spec models 2.x)"),
    (_is_empty_batch_dtype, "an empty batch returns on CUDA before the kernels dispatch on the target's "
                            "and weight's dtypes (PyTorch 2.11, H100); the CPU checks them (the spec models CUDA)"),
    (_is_meta_target_dtype_on_empty, "nll_loss's meta function checks the target's dtype on an empty batch too "
                                     "since PyTorch PR 175151 (2026); 1.13 returns the empty result (the spec "
                                     "models PyTorch main)"),
    (_is_int32_narrowing, "CUDA's nll_loss2d_forward_kernel (spatial mean/sum) and MultiMarginLoss_forward_kernel "
                          "read int64 labels as int32, so 2^32+k is class k, no assert (PyTorch 2.11, H100); the CPU raises (the spec models CUDA)"),
    (_is_bf16_spatial_log_softmax, "torch 1.13's CPU bfloat16 log_softmax over the class dim "
                                        "of a spatial input returns inf or NaN at some positions (2.15 CPU "
                                        "gives the spec's finite values)"),
    (_is_f16_sum_overflow, "torch 1.13's CPU sums float16 in float16 and overflows; CUDA and the spec "
                           "accumulate in float32"),
    (_is_bce_infinite_logit, "torch 1.13's BCE-with-logits (max_val + log(exp(-max_val) + exp(-x - max_val))) "
                             "gives NaN for an infinite logit, or one past the target dtype's range, where 2.x's "
                             "log_sigmoid chain, which the spec follows, gives a number or inf"),
    (_is_u8_wrapped_ignore_index, "torch 1.13 wraps an ignore_index outside uint8's range into it (2^31 is 0, "
                                  "-100 is 156) when label smoothing masks uint8 targets; nll_loss does not "
                                  "(2.x not yet measured; the spec does not wrap)"),
]

# (rtol, atol) per dtype; a case uses the coarsest of its input dtype and the
# dtype of torch's result (BCE returns the target's dtype, e.g. float16).
TOLERANCES = {
    "float64": (1e-9, 1e-9),
    "float32": (1e-4, 1e-5),
    "bfloat16": (3e-2, 1e-2),
    "float16": (1e-2, 1e-3),
}


class Disagreement:
    def __init__(self, kind, case, torch_out, record, detail=""):
        self.kind, self.case, self.torch, self.record, self.detail = \
            kind, case, torch_out, record, detail
        self.known = None  # reason string when matched by KNOWN_DIFFERENCES


def compare_case(case, tout, rec):
    """(flags, disagreements) for one supported case: the shared comparison,
    plus what only the CPU run knows (the host-error class torch's message names)
    and d input by torch's autograd, with the upstream gradient lossfuzz used."""
    flags, problems = compare.compare(tout, rec, case.dtype("input"), TOLERANCES)
    if tout["outcome"] == "ok" and "upstream" in rec:
        flags["grad"], grad_problems = compare.compare_grad(run_torch_backward(case, rec["upstream"]), rec,
                                                            case.dtype("input"), TOLERANCES)
        problems += grad_problems
    flags["error_class"] = None
    found = [Disagreement(kind, case, tout, rec, detail) for kind, detail in problems]
    if tout["outcome"] == "host_error" and tout["error"].startswith("unmapped:"):
        found.append(Disagreement("unmapped", case, tout, rec, "torch error not in ERROR_TABLE"))
    elif flags["outcome"] and tout["outcome"] == "host_error":
        flags["error_class"] = (rec.get("spec") or {}).get("error") == tout["error"]
        if not flags["error_class"]:
            found.append(Disagreement("error_class", case, tout, rec))
    return flags, found


def mark_known(disagreements):
    for d in disagreements:
        for predicate, reason in KNOWN_DIFFERENCES:
            if predicate(d):
                d.known = reason
                break


def parse_args(argv):
    p = argparse.ArgumentParser(description="Compare lossfuzz with PyTorch on random cases.")
    p.add_argument("--lossfuzz", metavar="PATH", help="the lossfuzz binary")
    p.add_argument("--cases", type=int, default=2000, help="number of cases (default 2000)")
    p.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    p.add_argument("--workdir", metavar="DIR", help="write case files here and keep them")
    p.add_argument("--keep", action="store_true", help="keep the case files")
    p.add_argument("--verbose", action="store_true", help="print every case")
    p.add_argument("--dry-run", action="store_true",
                   help="generate and run torch only; print the outcome distribution")
    args = p.parse_args(argv)
    if args.cases < 1:
        p.error("--cases must be at least 1")
    if not args.dry_run and not args.lossfuzz:
        p.error("--lossfuzz is required (or use --dry-run)")
    return args


def make_workdir(args):
    """(directory, keep?)"""
    if args.workdir:
        os.makedirs(args.workdir, exist_ok=True)
        return os.path.abspath(args.workdir), True
    return tempfile.mkdtemp(prefix="lossfuzz-conformance-"), args.keep


def generate_cases(args, workdir):
    gen = CaseGenerator(args.seed)
    cases = [gen.case() for _ in range(args.cases)]
    for i, case in enumerate(cases):
        case.path = os.path.join(workdir, "case_%05d.json" % i)
        write_case(case)
    return cases


def dry_run(cases, outcomes, verbose):
    if verbose:
        for case, out in zip(cases, outcomes):
            print("%s  %s\n    %s" % (os.path.basename(case.path), case.describe(), fmt_torch(out)))
    n_unmapped = print_distribution(cases, outcomes)
    bad = roundtrip_errors(cases)
    print("JSON round trip: %s" % ("exact" if not bad else "%d MISMATCHES" % len(bad)))
    for line in bad[:MAX_PRINTED]:
        print("  " + line)
    return 1 if bad or n_unmapped else 0


def conformance(args, cases, outcomes, keep):
    supported = [(c, o) for c, o in zip(cases, outcomes) if o["outcome"] != "unsupported"]
    records = lossfuzz_json.records(os.path.abspath(args.lossfuzz), [c.path for c, _ in supported],
                                    args.verbose)
    stats, found = Counter(), []
    for case, tout in supported:
        flags, disagreements = compare_case(case, tout, records[case.path])
        mark_known(disagreements)
        # A case explained by a known difference is reported there, not in the counts.
        if not disagreements or not all(d.known for d in disagreements):
            stats.update((key, value) for key, value in flags.items() if value is not None)
        found += disagreements
        if args.verbose:
            print("%s  %s: %s" % (os.path.basename(case.path), fmt_torch(tout),
                                  ", ".join(d.kind for d in disagreements) or "agree"))
    failures = [d for d in found if not d.known]
    print_summary(len(cases), len(cases) - len(supported), stats, failures,
                  [d for d in found if d.known], keep)
    return 1 if failures else 0


def main(argv=None):
    args = parse_args(argv)
    if not args.dry_run and not (os.path.isfile(args.lossfuzz) and os.access(args.lossfuzz, os.X_OK)):
        print("error: lossfuzz binary not found or not executable: %s" % args.lossfuzz,
              file=sys.stderr)
        return 2
    if IMPORT_ERROR is not None:
        print("SKIP: cannot import torch/numpy: %s" % IMPORT_ERROR)
        return 77
    print("python: %s, torch %s" % (sys.executable, torch.__version__))
    torch.set_num_threads(1)
    workdir, keep = make_workdir(args)
    try:
        t0 = time.monotonic()
        cases = generate_cases(args, workdir)
        t1 = time.monotonic()
        outcomes = [run_torch(c) for c in cases]
        t2 = time.monotonic()
        if args.verbose or args.dry_run:
            print("generated %d cases in %.2fs, torch ran in %.2fs (%s)"
                  % (len(cases), t1 - t0, t2 - t1, workdir))
        if args.dry_run:
            return dry_run(cases, outcomes, args.verbose)
        return conformance(args, cases, outcomes, keep)
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
