# Attack (or the other TMA path): a host-side TensorDescriptor from triton.tools. Outside the
# allowed surface (device-side tl.make_tensor_descriptor is the sanctioned TMA path). Expected:
# triton_internal.
from triton.tools.tensor_descriptor import TensorDescriptor


def ptxbench_gemm(A, B, C, M, N, K, stream):
    TensorDescriptor(A, [M, K], [K, 1], [128, 64])
