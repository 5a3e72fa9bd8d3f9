# Not an attack: checks that the module it is imported as holds only its own names and the
# module attributes Python sets (compile_only.load_candidate, which compile_only and the worker use,
# must import it into a fresh namespace, nothing of the tool's visible). Raises if anything else is
# there. The scan refuses it (dir(), sets, __name__): tests/test_compile_only.py loads it directly.
import triton
import triton.language as tl

OWN = {"triton", "tl", "copy_kernel", "ptxbench_gemm", "OWN", "PYTHON_SETS", "found"}
PYTHON_SETS = {"__name__", "__doc__", "__package__", "__loader__", "__spec__", "__file__", "__cached__", "__builtins__"}
found = set(dir())
if found - OWN - PYTHON_SETS or __name__ != "candidate":
    raise RuntimeError(f"unexpected names: {sorted(found - OWN - PYTHON_SETS)} in {__name__}")


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    copy_kernel[(1,)](A, C)
