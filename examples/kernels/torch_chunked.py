"""PyTorch's own chunked fused linear + cross-entropy as a kernel under test:
torch 2.15's F.linear_cross_entropy with options= (nn.LinearCrossEntropyOptions),
which never makes the whole logits, computes its gradients in forward and
takes the reference path, with a warning, where it does not apply (label
smoothing, a K-dimensional weight, a probability target of another dtype or
requiring grad). lossfuzz holds it to the same op's contract with options=None.

    lossfuzz fuzz --target fuzz_linear --seconds 300 --kernel py:examples/kernels/torch_chunked.py:chunked

  chunked         LinearCrossEntropyOptions() as users write it: its "auto"
                  chunk size (on the fuzzer's small batches, one chunk)
  chunked_by_two  batch_chunk_size=2: several chunks, the last one short

Its claims are its documented limits: it takes every call
F.linear_cross_entropy takes (dtypes, class weights, ignore_index, a bias,
probability targets; label smoothing and K-dimensional weights through its
fallback) and refuses the rest as the reference path does; it is not sent
the options= fields a case gives (it sets its own); higher-order autograd,
which it does not support, lossfuzz does not ask for. The fallback's
warning is documented behaviour, not kept. What a campaign reports is
PyTorch's own: examples/kernels/released/torch_chunked_bugs.py shows each in
plain torch (README, "PyTorch's chunked linear_cross_entropy")."""
import warnings

import torch
import torch.nn.functional as F


def _call(options, input, linear_weight, target, linear_bias=None, weight=None, ignore_index=None, reduction="mean",
          label_smoothing=0.0):
    given = {} if ignore_index is None else {"ignore_index": ignore_index}  # its default is None: -100 is a value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the documented fallback's "options ignored"
        return F.linear_cross_entropy(input, linear_weight, target, linear_bias=linear_bias, weight=weight,
                                      reduction=reduction, label_smoothing=label_smoothing, options=options, **given)


def chunked(input, linear_weight, target, **kwargs):
    return _call(torch.nn.LinearCrossEntropyOptions(), input, linear_weight, target, **kwargs)


def chunked_by_two(input, linear_weight, target, **kwargs):
    return _call(torch.nn.LinearCrossEntropyOptions(batch_chunk_size=2), input, linear_weight, target, **kwargs)


_CLAIMS = {"losses": ["linear_cross_entropy"]}  # every dtype, option and shape the op takes or refuses
chunked.lossfuzz_claims = dict(_CLAIMS, name="torch 2.15 F.linear_cross_entropy, options=LinearCrossEntropyOptions()")
chunked_by_two.lossfuzz_claims = dict(_CLAIMS, name="torch 2.15 F.linear_cross_entropy, batch_chunk_size=2")
