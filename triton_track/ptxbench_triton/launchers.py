"""The host-side pieces Triton needs to run a compiled kernel on the GPU, built ahead of time.

Triton compiles two small C extensions with the system C compiler the first time it runs a kernel:
`cuda_utils` (loads cubins, fills TMA descriptors) and one `__triton_launcher` per kernel signature.
Inside ptxbench-worker nothing may be compiled or executed (its seccomp filters forbid exec, and
after the candidate is loaded every file open), so the GPU judge's preparation step builds both
into the evaluation's own Triton cache, where Triton's own lookup finds them in the worker.

Both sides must compute the same cache keys. Triton keys a C extension by its source and
`platform_key()`, which runs the `file` program on sys.executable (a different program in the
worker, and an exec there): pin_cache_keys() fixes it to one value on both sides, and records the
ptxas version the kernels were compiled with (the kernel cache key includes it, and asking ptxas in
the worker is an exec too).
"""
import hashlib
import os
import sysconfig

PLATFORM_KEY = "x86_64,Linux,ptxbench"


def pin_cache_keys(ptxas_version=None):
    """Fixes platform_key() (both sides) and, when given, the ptxas version (the worker's side)."""
    import triton.runtime.build as build
    build.platform_key = lambda: PLATFORM_KEY
    if ptxas_version is not None:
        import triton.backends.nvidia.compiler as nvidia_compiler
        nvidia_compiler.get_ptxas_version = lambda arch=80: ptxas_version


def ptxas_version(capability):
    """The ptxas version string Triton keys this target's kernels with (runs ptxas once)."""
    import triton.backends.nvidia.compiler as nvidia_compiler
    return nvidia_compiler.get_ptxas_version(capability)


def _cached(src, name):
    """Whether Triton's cache holds the C extension `name` built from `src` (Triton's own key)."""
    from triton.runtime.cache import get_cache_manager
    import triton.runtime.build as build
    key = hashlib.sha256((src + build.platform_key()).encode("utf-8")).hexdigest()
    return get_cache_manager(key).get_file(name + sysconfig.get_config_var("EXT_SUFFIX")) is not None


def _build(make, src, name):
    """Runs Triton's own build of one extension; on a host without libcuda.so.1 loading it fails after
    it is cached, which is all this step needs. Returns "" or why it is not in the cache."""
    error = ""
    try:
        make()
    except (ImportError, OSError, RuntimeError) as e:  # the load, on a host without a GPU driver
        error = f"{type(e).__name__}: {e}"
    if _cached(src, name):
        return ""
    return error or f"{name} is not in the cache after its build"


def build_all(kernels, libcuda_dir):
    """cuda_utils and the launcher of every (src, metadata) in `kernels`, into TRITON_CACHE_DIR.
    `libcuda_dir` holds a libcuda.so.1 to link against (the driver's, or the CUDA toolkit's stub).
    Returns (number built, first error or "")."""
    os.environ["TRITON_LIBCUDA_PATH"] = libcuda_dir
    from pathlib import Path
    from triton.backends.nvidia import driver as nvidia_driver
    utils_src = Path(os.path.join(nvidia_driver.dirname, "driver.c")).read_text()
    error = _build(nvidia_driver.CudaUtils, utils_src, "cuda_utils")
    if error:
        return 0, "cuda_utils: " + error
    built = 1
    seen = set()
    for src, metadata in kernels:
        launcher_src = launcher_source(src, metadata)
        if launcher_src in seen:
            continue
        seen.add(launcher_src)
        error = _build(lambda: nvidia_driver.CudaLauncher(src, metadata), launcher_src, "__triton_launcher")
        if error:
            return built, "launcher: " + error
        built += 1
    return built, ""


def launcher_source(src, metadata):
    """The C source Triton generates for this kernel's launcher (as CudaLauncher.__init__ does)."""
    from triton.backends.nvidia import driver as nvidia_driver
    constants = src.constants if hasattr(src, "constants") else dict()
    arg_idx = lambda x: (src.fn.arg_names.index(x), ) if isinstance(x, str) else x  # noqa: E731
    constants = {arg_idx(idx): value for idx, value in constants.items()}
    signature = {idx: value for idx, value in src.signature.items()}
    return nvidia_driver.make_launcher(constants, signature, getattr(metadata, "tensordesc_meta", None))
