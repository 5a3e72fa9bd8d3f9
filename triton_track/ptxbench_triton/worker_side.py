"""A Triton candidate inside ptxbench-worker.

The judge builds, per candidate, a shim shared object that defines the problem's C entry; the worker
loads it as it loads a CUDA candidate, so every defence stays the worker's (the same calls, stream,
GPU activity audit, counters, timing and sandbox). The shim forwards each call to the interpreter
the worker embeds (src/runner/triton/), which runs this module:

  load(config)  once, while the candidate is being loaded: Triton with a driver of our own (no torch;
                the stream is the one the harness passes), the candidate imported as a module.
  warm()        the entry called once per shape the job will use, launching nothing: every kernel
                the calls need is loaded from the build's cache (cubin and launcher) now, because
                after the load the worker's filters refuse every file open and executable mapping.
                Its buffers and stream are stand-ins that look like the harness's (fake_buffers.py),
                so the entry cannot tell the warm-up from the calls that follow. Returns the global
                scratch the launches need (device-side TMA descriptors).
  set_scratch(address, bytes)   the harness's allocation for that scratch.
  call(values)  one entry call: the C entry's arguments as integers, the stream last. None, or the
                error as text (no source lines: reading them would open files).

Nothing here compiles: a kernel the warm-up did not meet would need ptxas, which the worker cannot
run; such a call fails with a message saying so.
"""
import json
import os
import sys

from . import fake_buffers, launchers

_session = None


class _Failure(Exception):
    """The harness's own problem (a broken configuration), as opposed to the candidate's."""


def _error_text(e):
    """Type, message and where in the candidate, without reading any source file."""
    import traceback
    from . import candidate_errors
    where = ""
    path = _session.module_path if _session else ""
    for frame in reversed(traceback.StackSummary.extract(traceback.walk_tb(e.__traceback__), lookup_lines=False)):
        if path and os.path.realpath(frame.filename) == path:
            where = f" (candidate.py line {frame.lineno})"
            break
    detail = candidate_errors.short(e)
    return f"{type(e).__name__}{': ' + detail if detail else ''}{where}"


class _Session:
    def __init__(self, cfg):
        self.cfg = cfg
        self.warming = False
        self.scratch_needed = 0
        self.scratch = None
        self.launches = 0
        self.stream = 0
        self.calls = {}  # the scalars of a warmed call -> its arguments (buffer shapes and dtypes)
        for k in ("cache_dir", "module", "entry", "calls", "capability", "ptxas_version", "libcuda_dir"):
            if k not in cfg:
                raise _Failure(f"the worker's Triton configuration lacks '{k}'")
        # Triton reads these when it first needs them; nothing else of the environment matters.
        os.environ["TRITON_CACHE_DIR"] = cfg["cache_dir"]
        os.environ["TRITON_HOME"] = cfg.get("home", cfg["cache_dir"])
        os.environ["TRITON_LIBCUDA_PATH"] = cfg["libcuda_dir"]  # else Triton runs ldconfig (an exec)
        import math, typing  # noqa: F401,E401: what a candidate may import, imported now (later = a file open)
        import traceback  # noqa: F401: for errors after the load
        import triton
        launchers.pin_cache_keys(cfg["ptxas_version"])
        import triton.runtime.build as build

        def refuse_build(name, *rest):
            raise RuntimeError(f"Triton needed to compile {name} inside the worker, where nothing can be compiled: "
                               "a kernel specialization the judge's preparation did not build")
        triton.knobs.build.impl = refuse_build
        self.module_path = os.path.realpath(cfg["module"])
        triton.runtime.driver.set_active(_make_driver(self, cfg))
        self.allocator = self._allocate
        triton.set_allocator(self.allocator)
        from .compile_only import load_candidate
        self.entry = vars(load_candidate(cfg["module"])).get(cfg["entry"])
        if not callable(self.entry):
            raise ValueError(f"the candidate defines no function {cfg['entry']}")
        del build

    def _allocate(self, size, alignment, stream):
        if self.warming:
            self.scratch_needed = max(self.scratch_needed, size + alignment)
            return _Address(0)
        if self.scratch is None or size + alignment > self.scratch[1]:
            raise RuntimeError(f"a launch asked for {size} bytes of global scratch, more than the warm-up saw "
                               f"({self.scratch[1] if self.scratch else 0})")
        base = self.scratch[0]
        return _Address((base + alignment - 1) // alignment * alignment)

    def warm(self):
        self.warming = True
        try:
            for call in self.cfg["calls"]:
                values = fake_buffers.build_arguments(call["arguments"], call["scalars"])
                key = tuple(v for v in values[:-1] if isinstance(v, int))
                self.calls[key] = call["arguments"]
                self.entry(*values)
        finally:
            self.warming = False
        return {"calls": len(self.cfg["calls"]), "launches": self.launches, "scratch_bytes": self.scratch_needed}

    def arguments(self, values):
        """The entry's arguments for one call: buffers at the harness's addresses with the shapes of
        the warmed call whose scalars these are (fake_buffers.Buffer, the stand-ins' class)."""
        scalars = tuple(v for v, a in zip(values, self._kinds(values)) if a == "scalar")
        spec = self.calls.get(scalars)
        if spec is None:
            raise RuntimeError(f"the entry was called with scalars {list(scalars)}, which the warm-up did not see")
        args = []
        for value, arg in zip(values, spec):
            args.append(fake_buffers.Buffer([int(d) for d in arg["shape"]], arg["dtype"], value) if "dtype" in arg else value)
        return args

    def _kinds(self, values):
        some = next(iter(self.calls.values()))
        return ["buffer" if "dtype" in a else "scalar" for a in some]

    def call(self, values):
        import triton
        self.stream = values[-1]
        triton.set_allocator(self.allocator)
        self.entry(*self.arguments(values[:-1]), values[-1])


class _Address:
    """What Triton's allocator returns: something with data_ptr()."""

    def __init__(self, address):
        self.address = address

    def data_ptr(self):
        return self.address


def _make_driver(session, cfg):
    """Triton's CUDA driver without torch: the device, capability and stream come from the harness;
    its launchers run for real, except during the warm-up, where they only count."""
    from triton.backends.nvidia.driver import CudaDriver, CudaLauncher

    class Launcher(CudaLauncher):
        def __call__(self, gx, gy, gz, stream, function, *rest):
            if session.warming:
                session.launches += 1
                for size, align, allocator in ((self.global_scratch_size, self.global_scratch_align, session.allocator),):
                    if size > 0:
                        allocator(gx * gy * gz * self.num_ctas * size, align, stream)
                return None
            return super().__call__(gx, gy, gz, stream, function, *rest)

    capability = tuple(int(c) for c in cfg["capability"])
    device = int(cfg.get("device", 0))

    class WorkerDriver(CudaDriver):
        def __init__(self):  # CudaDriver's own would import torch
            from triton.backends.nvidia.driver import CudaUtils
            self.utils = CudaUtils()
            self.launcher_cls = Launcher
            self.get_device_capability = lambda index=None: capability
            self.get_current_device = lambda: device
            self.set_current_device = lambda index: None
            self.get_current_stream = lambda index=None: session.stream

        @staticmethod
        def is_active():
            return True

    return WorkerDriver()


# The functions the worker calls (src/runner/triton/triton_session.cpp): text in, text out.

def load(config_text):
    """"" or what went wrong (the harness's configuration, or the candidate's import)."""
    global _session
    try:
        _session = _Session(json.loads(config_text))
        return ""
    except _Failure as e:
        return f"harness: {e}"
    except BaseException as e:  # noqa: BLE001: the candidate's module code ran, SystemExit included
        return "candidate: " + _error_text(e)


def warm(_unused=""):
    """JSON: {"calls", "launches", "scratch_bytes"} or {"error"}."""
    try:
        return json.dumps(_session.warm())
    except BaseException as e:  # noqa: BLE001
        return json.dumps({"error": _error_text(e)})


def set_scratch(address, size):
    _session.scratch = (int(address), int(size))


def call(values):
    """None, or the error as text."""
    try:
        _session.call(list(values))
        return None
    except BaseException as e:  # noqa: BLE001
        return _error_text(e)
