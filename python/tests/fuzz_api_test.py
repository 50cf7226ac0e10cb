"""lossfuzz.fuzz and lossfuzz.check_kernel (python/lossfuzz/fuzzing.py) on
lossfuzz's example kernels, with Debian's torch on the CPU: a buggy kernel's
campaign returns its findings (minimized case, both answers, the replay
command) and raises with the report's entries when asked; the correct kernel
gives none; the same seed gives the same campaign; claims= stands for the
kernel's own; a case folder is replayed with a result per file; what lossfuzz
cannot run on raises LossfuzzError. Run from the source tree (the lossfuzz
command: $LOSSFUZZ or build/lossfuzz) or, LOSSFUZZ_TEST_INSTALLED=1, against
the package pip installed."""
import functools
import glob
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
if not os.environ.get("LOSSFUZZ_TEST_INSTALLED"):  # else the package pip installed
    sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "kernels"))
sys.path.insert(0, os.path.join(ROOT, "examples", "kernels", "cases"))
import blind_spots  # noqa: E402
import ce_python  # noqa: E402
import torch  # noqa: E402

import lossfuzz  # noqa: E402

REGRESSIONS = os.path.join(ROOT, "regressions")
BEFORE = set(glob.glob(os.path.join(tempfile.gettempdir(), "lossfuzz-campaign-*")))


def tearDownModule():  # the campaigns' folders lossfuzz.fuzz made (out=None): this test's, not kept
    for folder in set(glob.glob(os.path.join(tempfile.gettempdir(), "lossfuzz-campaign-*"))) - BEFORE:
        shutil.rmtree(folder, ignore_errors=True)


class FuzzTest(unittest.TestCase):
    def test_buggy_kernel_findings(self):
        campaign = lossfuzz.fuzz(ce_python.rows_buggy, seconds=2)
        self.assertTrue(campaign.findings, campaign.summary)
        f = campaign.findings[0]
        self.assertTrue(f.signature.startswith(("value-mismatch/kernel", "grad-mismatch/kernel")), f.signature)
        self.assertEqual(f.case["loss"], "cross_entropy")
        self.assertTrue(os.path.isfile(f.case_file))
        self.assertIn("py:ce_python:rows_buggy", f.replay)
        self.assertIn("- PyTorch: ", f.entry)
        self.assertTrue(f.pytorch and f.kernel)
        # one bug, one entry: its cause in words, the signatures it folds as variants
        self.assertEqual(len(campaign.findings), 1, [g.signature for g in campaign.findings])
        self.assertIn("reduction mean", f.cause)
        self.assertIn("rows weighted unevenly", f.cause)
        self.assertIn(f.signature, [v["signature"] for v in f.variants])
        self.assertIsNone(f.flaky)
        with self.assertRaises(lossfuzz.FindingsError) as ctx:
            campaign.raise_for_findings()
        self.assertIn(f.signature, str(ctx.exception))
        with self.assertRaises(lossfuzz.FindingsError):
            lossfuzz.fuzz(ce_python.rows_buggy, seconds=1, raise_on_finding=True)

    def test_correct_kernel_no_finding(self):
        campaign = lossfuzz.fuzz(ce_python.rows, seconds=2, raise_on_finding=True)
        self.assertEqual(campaign.findings, [])
        self.assertIn("findings: 0", campaign.summary)

    def test_documented_refusal_no_finding(self):
        # F.cross_entropy, refusing the [1] target of a 1-D input that eager PyTorch takes and its documentation
        # excludes: a listed leniency, counted in the report, never a false alarm
        campaign = lossfuzz.fuzz(blind_spots.documented_1d, seconds=4, raise_on_finding=True)
        self.assertEqual(campaign.findings, [])
        self.assertNotIn("false-alarm", campaign.report)  # (kernel_test.sh checks the excuse on a fixed case)

    def test_same_seed_same_campaign(self):
        # a seed's campaign runs the same cases in the same order: the same first finding, minimized alike
        runs = [lossfuzz.fuzz(ce_python.rows_buggy, seconds=1.5, seed=7) for _ in range(2)]
        firsts = [min(run.findings, key=lambda f: f.first_s) for run in runs]
        self.assertEqual(firsts[0].signature, firsts[1].signature)
        self.assertEqual(firsts[0].case, firsts[1].case)

    def test_claims_stand_for_the_kernels(self):
        # the kernel's claims with its bug accepted: reported as accepted deviations, never failing
        known = {"value-mismatch/kernel": "the example's bug", "grad-mismatch/kernel": "the example's bug"}
        claims = dict(ce_python.rows_buggy.lossfuzz_claims, accept=known)
        campaign = lossfuzz.fuzz(ce_python.rows_buggy, seconds=2, claims=claims)
        self.assertEqual(campaign.findings, [], campaign.report)
        self.assertTrue(campaign.accepted)
        self.assertTrue(all(f.accepted for f in campaign.accepted))

    def test_out_folder_kept(self):
        out = tempfile.mkdtemp()
        lossfuzz.fuzz(ce_python.rows_buggy, seconds=1, out=out)
        self.assertTrue(os.listdir(os.path.join(out, "repros")))

    def test_what_cannot_run(self):
        def local_kernel(input, target, **options):
            return input.sum()

        for fn in (local_kernel, lambda input, target: input):
            with self.assertRaisesRegex(lossfuzz.LossfuzzError, "top level of a module"):
                lossfuzz.fuzz(fn, seconds=1)
        with self.assertRaisesRegex(lossfuzz.LossfuzzError, "cannot import no_such_module"):
            lossfuzz.fuzz("py:no_such_module:f", seconds=1)
        with self.assertRaisesRegex(lossfuzz.LossfuzzError, "--seconds|seconds"):
            lossfuzz.fuzz(ce_python.rows, seconds=-1)
        if not torch.cuda.is_available():  # said, whether the build or the machine lacks CUDA
            with self.assertRaisesRegex(lossfuzz.LossfuzzError, "CUDA"):
                lossfuzz.fuzz(ce_python.rows, seconds=1, backend="cuda")


class Callable:
    def __call__(self, input, target, **options):
        return ce_python.rows(input, target, **options)

    def rows(self, input, target, **options):
        return ce_python.rows(input, target, **options)


class ApplyLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, target):
        return ce_python.rows(input, target)


held_object = Callable()
held_partial = functools.partial(ce_python.rows, reduction="mean")


class NamingTest(unittest.TestCase):
    """What --kernel the worker is given for each kind of callable (no lossfuzz run)."""

    def test_names(self):
        from lossfuzz._command import kernel_spec
        me = "py:%s:" % __name__ if __name__ != "__main__" else "py:%s:" % os.path.abspath(__file__)
        self.assertEqual(kernel_spec(ce_python.rows), "py:ce_python:rows")
        self.assertEqual(kernel_spec(held_object), me + "held_object")
        self.assertEqual(kernel_spec(held_object.rows), me + "held_object.rows")
        self.assertEqual(kernel_spec(held_partial), me + "held_partial")
        self.assertEqual(kernel_spec(ApplyLoss.apply), me + "ApplyLoss.apply")  # a builtin method of the class
        self.assertEqual(kernel_spec("build/x.so"), "build/x.so")

    def test_targets_follow_the_claims(self):
        """lossfuzz fuzz picks the byte format from the claims its worker reads (the one claims reader)."""
        for losses, target in ((["cross_entropy_prob"], "fuzz_prob"), (["binary_cross_entropy"], "fuzz_prob"),
                               (["linear_cross_entropy"], "fuzz_linear"), (["nll_loss", "cross_entropy_prob"],
                                                                           "fuzz_class")):
            claims = dict(ce_python.rows.lossfuzz_claims, losses=losses)
            try:
                summary = lossfuzz.fuzz(ce_python.rows, seconds=0.3, claims=claims).summary
            except lossfuzz.LossfuzzError as exc:  # no case within these claims: its message names the target
                summary = str(exc)
            self.assertIn(target, summary, losses)

    def test_a_campaign_that_tested_nothing_raises(self):
        claims = dict(ce_python.rows.lossfuzz_claims, losses=["cross_entropy"])
        with self.assertRaisesRegex(lossfuzz.LossfuzzError, "none of the .* cases of fuzz_linear"):
            lossfuzz.fuzz(ce_python.rows, seconds=1, claims=claims, target="fuzz_linear")


class CheckKernelTest(unittest.TestCase):
    def test_a_result_per_file(self):
        bad = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        bad.write("{\"loss\":")
        bad.close()
        files = [os.path.join(REGRESSIONS, name) for name in
                 ("ignore_index_2_drops_class.json", "one_based_labels.json", "strided_prob_expanded_logits.json")]
        results = lossfuzz.check_kernel(ce_python.rows_buggy, files + [bad.name])
        self.assertEqual([r.verdict for r in results], ["finding", "pass", "skipped", "unusable"])
        self.assertTrue(results[0].signature.startswith("value-mismatch/kernel"))
        self.assertIn("PyTorch: ok 2.2063", str(results[0]))
        self.assertEqual([r.verdict for r in lossfuzz.check_kernel(ce_python.rows, files[:2])], ["pass", "pass"])
        with self.assertRaises(lossfuzz.FindingsError):
            lossfuzz.check_kernel(ce_python.rows_buggy, files[:1], raise_on_finding=True)

    def test_a_folder(self):
        results = lossfuzz.check_kernel(ce_python.rows, REGRESSIONS)
        self.assertGreater(len(results), 50)
        self.assertFalse([r for r in results if r.failed], [str(r) for r in results if r.failed])
        self.assertIn("pass", {r.verdict for r in results})


if __name__ == "__main__":
    unittest.main(verbosity=2)
