"""F.cross_entropy under torch.compile, as a kernel under test. A worker runs
case after case, so a compiled kernel meets more variants (dtypes, ranks,
options) than its recompile limit; with fail_on_recompile_limit_hit every
later call would fail. The worker resets dynamo's caches when the limit is
hit and calls again (python/lossfuzz_worker.py): the limit is the worker's
state, not the case's, and a campaign must find nothing here.

    lossfuzz fuzz --seconds 30 --kernel py:examples/kernels/cases/compiled.py:cross_entropy"""
import torch
import torch.nn.functional as F

torch._dynamo.config.fail_on_recompile_limit_hit = True
torch._dynamo.config.recompile_limit = 2  # met within the first cases
_compiled = torch.compile(F.cross_entropy, backend="eager")  # no C++ compiler needed: dynamo's guards only


def cross_entropy(input, target, **options):
    return _compiled(input, target, **options)


cross_entropy.lossfuzz_claims = {"name": "torch.compile(F.cross_entropy, backend='eager')",
                                 "losses": ["cross_entropy"], "max_spatial_dims": 0}
