# Attack: load cuBLAS through ctypes and call cublasGemmEx on the raw pointers. Expected: import.
import ctypes

_cublas = ctypes.CDLL("libcublas.so.12")


def ptxbench_gemm(A, B, C, M, N, K, stream):
    handle = ctypes.c_void_p()
    _cublas.cublasCreate_v2(ctypes.byref(handle))
    _cublas.cublasGemmEx(handle, 1, 0, N, M, K, None, ctypes.c_void_p(B.data_ptr()), 14, K,
                         ctypes.c_void_p(A.data_ptr()), 14, K, None, ctypes.c_void_p(C.data_ptr()), 14, N, 68, 0)
