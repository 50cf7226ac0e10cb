"""table.py LOSSFUZZ_TSV [TORCH_TSV] - ci/bench-gpu.sh's table and goals from
bench_gpu's lines (shape dtype path ms GB/s loss) and, where PyTorch ran,
torch_ce.py's (shape dtype fwd_ms fwdbwd_ms loss).

Goals (issue 13): the guarded forward at >= 85% of the device's copy
bandwidth on the large shapes (2^26 elements or more), its statistics costing
<= 2% over the same kernels unguarded, the guarded forward with its fused
backward >= 2x as fast as PyTorch's forward + backward. A goal prints met,
missed, or why it could not be judged. GB/s counts the bytes a path must move:
the input and the targets read once, plus d input written with backward."""
import sys
from math import prod

LARGE = 1 << 26


def read(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 5 and not line.startswith("SKIP"):
                rows.append(parts)
    return rows


def main():
    ours = {}
    for shape, dtype, path, ms, gbs, *_ in read(sys.argv[1]):
        ours.setdefault((shape, dtype), {})[path] = (float(ms), float(gbs))
    torch = {}
    if len(sys.argv) > 2:
        for shape, dtype, fwd, fwdbwd, *_ in read(sys.argv[2]):
            torch[(shape, dtype)] = (float(fwd), float(fwdbwd))
    head = ("shape", "dtype", "guarded ms", "GB/s", "% copy", "unguarded ms", "guard cost", "reference ms",
            "guarded+bwd ms", "bwd GB/s", "torch fwd ms", "x torch fwd", "torch fwd+bwd ms", "x torch fwd+bwd")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    goals = {"bandwidth": [], "overhead": [], "fwd+bwd": []}
    for (shape, dtype), paths in ours.items():
        g, u, r, c, gb = (paths.get(k) for k in ("guarded", "unguarded", "reference", "copy", "guarded+backward"))
        if not (g and u and r and c and gb):
            continue
        pct = 100 * g[1] / c[1]
        cost = 100 * (g[0] - u[0]) / u[0]
        t = torch.get((shape, dtype))
        large = prod(int(d) for d in shape.split("x")) >= LARGE
        cells = [shape, dtype, "%.3f" % g[0], "%.0f" % g[1], "%.0f%%" % pct, "%.3f" % u[0], "%+.1f%%" % cost,
                 "%.3f" % r[0], "%.3f" % gb[0], "%.0f" % gb[1]]
        cells += ["%.3f" % t[0], "%.2fx" % (t[0] / g[0]), "%.3f" % t[1], "%.2fx" % (t[1] / gb[0])] if t else ["-"] * 4
        print("| " + " | ".join(cells) + " |")
        if large:
            goals["bandwidth"].append((shape, pct >= 85, "%.0f%% of copy" % pct))
            goals["overhead"].append((shape, cost <= 2, "%+.1f%%" % cost))
            if t:
                goals["fwd+bwd"].append((shape, t[1] / gb[0] >= 2, "%.2fx" % (t[1] / gb[0])))
    print()
    for name, want in (("bandwidth", "guarded forward >= 85% of copy bandwidth (large shapes)"),
                       ("overhead", "guard overhead <= 2% (large shapes)"),
                       ("fwd+bwd", "forward+backward >= 2x PyTorch's (large shapes)")):
        got = goals[name]
        if not got:
            print("goal %s: not judged (no large shape ran%s)" % (want, ", or no PyTorch" if name == "fwd+bwd" else ""))
            continue
        verdict = "met" if all(ok for _, ok, _ in got) else "missed"
        print("goal %s: %s (%s)" % (want, verdict, ", ".join("%s %s" % (s, f) for s, _, f in got)))


if __name__ == "__main__":
    main()
