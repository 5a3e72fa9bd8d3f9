"""A Triton driver that compiles for a chosen GPU and launches nothing, so no GPU (and no libcuda) is
needed: Triton's own JIT path runs as on the GPU (specialization, the compile pipeline down to
ptxas's cubin, the shared-memory and thread checks against the device's limits), and where it
would load the cubin and launch it this driver records the launch instead.

Why a driver rather than calling triton.compile on the kernels: the entry's host code decides which
kernels run, with which constexprs, num_warps, num_stages and grids; calling it is the only faithful
way to know, and the launches it makes are the ones the GPU judge will time.
"""
from dataclasses import dataclass, field

# The devices the verdicts are for: compute capability, multiprocessors, shared memory per block
# (opt-in maximum, the limit Triton checks a kernel against).
ARCHS = {
    "sm_90a": {"capability": 90, "multiprocessor_count": 132, "max_shared_mem": 232448},  # H200
    "sm_100a": {"capability": 100, "multiprocessor_count": 148, "max_shared_mem": 232448},  # B200
}

GRIDS_KEPT = 4  # grids recorded per kernel: the first few tell a persistent from a tiled launch


@dataclass
class CompiledKernel:
    """One compiled specialization that was launched."""
    name: str
    hash: str
    metadata: object
    cubin: bytes
    src: object = None  # the JIT's source object: the launcher is generated from it (launchers.py)
    ptx: str = ""
    ttgir: str = ""  # Triton's GPU IR: the TMA descriptors' box types (descriptors.py)
    launches: int = 0
    grids: list = field(default_factory=list)


class Recorder:
    """What the entry compiled and launched, in launch order."""

    def __init__(self):
        self.kernels = {}  # hash -> CompiledKernel
        self.launches = 0
        self._binaries = {}  # function handle -> (name, cubin)

    def loaded(self, name, cubin):
        handle = len(self._binaries) + 1  # never 0: a zero handle looks like a failed load
        self._binaries[handle] = (name, bytes(cubin))
        return handle

    def launched(self, src, metadata, function, grid):
        self.launches += 1
        kernel = self.kernels.get(metadata.hash)
        if kernel is None:
            name, cubin = self._binaries[function]
            kernel = CompiledKernel(name=name, hash=metadata.hash, metadata=metadata, cubin=cubin, src=src,
                                    ptx=_asm_of(src, metadata.hash, "ptx"),
                                    ttgir=_asm_of(src, metadata.hash, "ttgir"))
            self.kernels[metadata.hash] = kernel
        kernel.launches += 1
        if len(kernel.grids) < GRIDS_KEPT:
            kernel.grids.append([int(g) for g in grid])


def _asm_of(src, kernel_hash, stage):
    """One stage's text (ptx, ttgir) of the compiled kernel `kernel_hash`, from its JIT function's
    caches ("" if not found)."""
    for cache in getattr(getattr(src, "fn", None), "device_caches", {}).values():
        for kernel in cache[0].values():
            kernel = kernel.result() if hasattr(kernel, "result") else kernel
            if kernel.hash == kernel_hash:
                return kernel.asm.get(stage, "")
    return ""


def install(arch):
    """Makes the compile-only driver Triton's active driver for `arch`; returns its Recorder."""
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.driver import CudaDriver
    from triton.runtime import driver as runtime_driver

    device = ARCHS[arch]
    recorder = Recorder()

    class Utils:
        def load_binary(self, name, kernel, shared, device_index):
            # (module, function, registers, spills, max threads per block): the registers and spills
            # are ptxas's to know and unused here; 1024 threads lets Triton's own check stand.
            return 0, recorder.loaded(name, kernel), 0, 0, 1024

        def get_device_properties(self, device_index):
            return {"max_shared_mem": device["max_shared_mem"], "multiprocessor_count": device["multiprocessor_count"],
                    "max_num_regs": 65536, "warpSize": 32, "sm_clock_rate": 1980000, "mem_clock_rate": 3201000,
                    "mem_bus_width": 6144}

    class Launcher:
        def __init__(self, src, metadata):
            self.src, self.metadata = src, metadata

        def __call__(self, gx, gy, gz, stream, function, *rest):
            recorder.launched(self.src, self.metadata, function, (gx, gy, gz))

    class CompileOnlyDriver(CudaDriver):
        def __init__(self):  # no super().__init__(): it builds a C extension against libcuda
            self.utils = Utils()
            self.launcher_cls = Launcher
            self.get_current_device = lambda: 0
            self.set_current_device = lambda index: None
            self.get_current_stream = lambda index=None: 0

        def get_current_target(self):
            return GPUTarget("cuda", device["capability"], 32)

        @staticmethod
        def is_active():
            return True

    runtime_driver.set_active(CompileOnlyDriver())
    return recorder
