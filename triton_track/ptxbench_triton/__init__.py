"""PTXBench's Triton track tools, run by the C++ judge (src/compile/triton_driver.cpp) in its sandbox:

  static_scan   the candidate's source against the allowlist (rules.py, source_rules.py); nothing runs
  compile_only  the entry called once on a compile-only Triton driver (compile_driver.py) with
                stand-in buffers (fake_buffers.py): one cubin per launched kernel, no GPU
  disassemble   SASS opcode counts of a cubin (Triton's cuobjdump), for tests and a quick look

See triton_track/README.md for the contracts.
"""
