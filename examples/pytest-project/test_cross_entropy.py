"""A kernel repository's tests with lossfuzz's pytest plugin (installing
lossfuzz loads it). The kernels are lossfuzz's Python examples
(examples/kernels/ce_python.py, ce_three_bugs.py), copied beside this file by
ci/pip-test.sh, which runs this project outside lossfuzz's tree: the correct
kernel's tests pass, each buggy kernel's fail with its finding."""
import pytest

import ce_python
import ce_three_bugs

KERNELS = {"rows": ce_python.rows, "rows_buggy": ce_python.rows_buggy, "three_bugs": ce_three_bugs.cross_entropy}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_fuzzed(lossfuzz_fuzz, name):
    lossfuzz_fuzz(KERNELS[name])


@pytest.mark.lossfuzz_cases("lossfuzz-cases")
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_case(lossfuzz_case, name):
    lossfuzz_case.check(KERNELS[name])
