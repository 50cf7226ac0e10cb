"""The Python API (python/lossfuzz) with Debian's torch on the CPU: check()
passes valid calls, raises GuardError with the class, the first offending
element and the hint where PyTorch would assert or raise, warns on suspicious
ones; capture() writes the failing call as a .safetensors dump that
`lossfuzz repro` (argv[1]) reads and explains. Prints the cost of a check."""
import os
import subprocess
import sys
import tempfile
import time
import unittest
import warnings

if not os.environ.get("LOSSFUZZ_TEST_INSTALLED"):  # else the package pip installed
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import lossfuzz  # noqa: E402

LOSSFUZZ = sys.argv.pop(1) if len(sys.argv) > 1 else "build/lossfuzz"


class CheckTest(unittest.TestCase):
    def setUp(self):
        self.x = torch.randn(6, 5)

    def test_valid_call_passes(self):
        lossfuzz.check(self.x, torch.tensor([0, 4, 1, 2, 3, 0]))
        lossfuzz.check(self.x, torch.tensor([0, 255, 1, 2, 3, 0]), ignore_index=255)

    def test_one_based_labels_are_named(self):
        with self.assertRaises(lossfuzz.GuardError) as ctx:
            lossfuzz.check(self.x, torch.tensor([1, 2, 5, 3, 4, 1]))
        e = ctx.exception
        self.assertEqual(e.error, "label_out_of_range")
        self.assertEqual((e.index, e.value), (2, 5))
        self.assertIn("1-based", e.hint)

    def test_host_errors_and_other_losses(self):
        with self.assertRaises(lossfuzz.GuardError) as ctx:
            lossfuzz.check(self.x, torch.tensor([0, 1, 2]))  # batch size 3, not 6
        self.assertEqual(ctx.exception.error, "batch_size_mismatch")
        with self.assertRaises(lossfuzz.GuardError):
            lossfuzz.check(self.x.log_softmax(1), torch.tensor([0, 1, 2, 3, 4, -1]), loss="nll_loss")
        lossfuzz.check(self.x, torch.rand(6, 5), loss="binary_cross_entropy_with_logits")

    def test_probabilities_past_one_are_named(self):
        """binary_cross_entropy: a float16 sigmoid rounded past 1, and a 0/255 mask as its target."""
        p = torch.sigmoid(torch.tensor([0.0, 1.0, 9.0, -3.0])).half()
        lossfuzz.check(p, torch.tensor([0.0, 1.0, 1.0, 0.0]).half(), loss="binary_cross_entropy")
        p[2] = 1.0009765625
        with self.assertRaises(lossfuzz.GuardError) as ctx:
            lossfuzz.check(p, torch.tensor([0.0, 1.0, 1.0, 0.0]).half(), loss="binary_cross_entropy")
        e = ctx.exception
        self.assertEqual((e.error, e.index, e.hint_id), ("bce_out_of_range", 2, "sigmoid_past_one"))
        self.assertIn("input[2] = 1.0009766 (float16): a sigmoid rounded past 1", e.message)
        with self.assertRaises(lossfuzz.GuardError) as ctx:
            lossfuzz.check(torch.rand(2, 2), torch.tensor([[0.0, 255.0], [1.0, 0.0]]), loss="binary_cross_entropy")
        self.assertEqual((ctx.exception.index, ctx.exception.hint_id), (1, "target_not_probability"))

    def test_strided_and_spatial(self):
        x = torch.randn(2, 3, 4, 4).permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)  # channels-last
        t = torch.randint(0, 3, (2, 4, 4))
        lossfuzz.check(x, t)
        t[1, 2, 3] = 3
        with self.assertRaises(lossfuzz.GuardError) as ctx:
            lossfuzz.check(x, t.t() if t.dim() == 2 else t)
        self.assertEqual(ctx.exception.index, 1 * 16 + 2 * 4 + 3)

    def test_soft_targets_warn(self):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lossfuzz.check(self.x, torch.rand(6, 5) * 3)
        self.assertTrue(any(issubclass(x.category, lossfuzz.LossfuzzWarning) for x in w))

    def test_cost(self):
        x, t = torch.randn(64, 1000), torch.randint(0, 1000, (64,))
        n, start = 200, time.perf_counter()
        for _ in range(n):
            lossfuzz.check(x, t)
        print("\ncost of lossfuzz.check on [64, 1000] float32: %.3f ms a call" % ((time.perf_counter() - start) / n * 1e3))


class CaptureTest(unittest.TestCase):
    def test_bad_batch_is_dumped_and_explained(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.safetensors")
            x, t = torch.randn(4, 3), torch.tensor([0, 2, 255, 1])
            with self.assertRaises(lossfuzz.GuardError):
                with lossfuzz.capture(path):
                    F.cross_entropy(x, t, label_smoothing=0.1)
            self.assertTrue(os.path.exists(path))
            with open(path, "rb") as f:
                self.assertNotIn(b"pickle", f.read(64))
            out = subprocess.run([LOSSFUZZ, "repro", path], capture_output=True, text=True)
            self.assertIn("label_out_of_range", out.stdout + out.stderr)
            self.assertIs(F.cross_entropy, F.__dict__["cross_entropy"])

    def test_binary_cross_entropy_dump_reads_back(self):
        """Only the options the caller gave are written: binary_cross_entropy takes no ignore_index."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bce.safetensors")
            with self.assertRaises(lossfuzz.GuardError):
                with lossfuzz.capture(path):
                    F.binary_cross_entropy(torch.tensor([0.2, 1.5, 0.3]), torch.tensor([0.0, 1.0, 1.0]))
            out = subprocess.run([LOSSFUZZ, "repro", path], capture_output=True, text=True)
            self.assertIn("logits, not probabilities", out.stdout, out.stdout + out.stderr)

    def test_valid_calls_pass_through(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "none.safetensors")
            with lossfuzz.capture(path):
                loss = F.cross_entropy(torch.randn(4, 3), torch.tensor([0, 2, 1, 1]))
            self.assertTrue(torch.isfinite(loss))
            self.assertFalse(os.path.exists(path))


if __name__ == "__main__":
    unittest.main(verbosity=2)
