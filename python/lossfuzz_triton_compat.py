"""Triton kernels on a CPU runner: Triton's interpreter (TRITON_INTERPRET=1,
set before the kernel's module imports triton) runs @triton.jit kernels on
CPU tensors. What it needs of torch that Debian's 1.13 lacks is added here:
Tensor.untyped_storage (the interpreter copies tensors through it), the
tensor's storage as bytes. It must be untyped: the interpreter keys the
storages of a launch's arguments by data_ptr(), and every empty tensor has
data pointer 0, so an empty int64 target may be handed the float input's
storage, which a typed storage of the wrong dtype refuses. Known and left as it is: the interpreter hands a
Python float argument to a kernel as a Python float (float64 arithmetic),
where compiled Triton passes a float32 scalar."""
import os


def enable_interpreter():
    """Before the user's module is imported: run Triton kernels on the CPU,
    unless TRITON_INTERPRET is already set either way."""
    os.environ.setdefault("TRITON_INTERPRET", "1")
    import torch
    if not hasattr(torch.Tensor, "untyped_storage"):
        torch.Tensor.untyped_storage = lambda self: self.storage().untyped()
