# Attack: build and run something else (a CUDA library kernel, a tool) in a child process.
# Expected: import.
import subprocess


def ptxbench_gemm(A, B, C, M, N, K, stream):
    subprocess.run(["nvidia-smi"], check=False)
