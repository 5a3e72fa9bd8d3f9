"""The entry's buffers: stand-ins for a compile without a GPU (the build, and the worker's warm-up),
and the same class around the harness's own addresses for the GPU's calls (worker_side.py); the
entry's arguments built from ARGS.json and SHAPE.json.

Triton reads a buffer argument through data_ptr() (its alignment picks a specialization) and dtype
(str() gives the element type's name); the candidate's host code may read shape, stride(),
size(), numel(), element_size() and data_ptr(). Nothing is ever read from or written to a stand-in's
address.

The entry must not be able to tell a stand-in call from a GPU call: a candidate that could would
show the build (whose cubins the static checks judge) one kernel and the GPU another. A stand-in is
the very class the GPU's calls get, with the same shape, strides and dtype; only its address and the
stream are made up, and they are made to look like the harness's (below), drawn afresh for every call
so that no constant marks them. docs/triton.md says what cannot be made the same.
"""
import random

ELEMENT_SIZES = {
    "bfloat16": 2, "float16": 2, "float32": 4, "float64": 8, "float8_e4m3fn": 1, "float8_e5m2": 1,
    "int8": 1, "uint8": 1, "int16": 2, "int32": 4, "int64": 8,
}

# The harness's buffers (src/runner/detail/device_buffer.h, problems/*/workload.cu): one cudaMalloc
# each, made by the workload's prepare() one after another. The model (cudaMalloc's guaranteed 256-byte
# alignment and its usual placement; not measured on a GPU for this change): device memory lies in the
# unified virtual address range the driver reserves beside the host's mmap area (0x7f.. on x86-64
# Linux); an allocation of 2 MiB or more starts on a 2 MiB page and takes whole pages, smaller ones
# share a page 512 bytes apart. A stand-in call lays its buffers out so, in argument order, from a
# page drawn at random in that range.
DEVICE_LOW, DEVICE_HIGH = 0x7F00_0000_0000, 0x7FF0_0000_0000
DEVICE_PAGE = 2 << 20
SMALL_ALIGNMENT = 512

# The harness's stream (runner/detail/device_buffer.h, CudaStream): a cudaStreamCreateWithFlags
# handle, a pointer to the driver's stream object on the host heap (0x55.., 0x56.. for a
# position-independent executable on x86-64 Linux), 16-byte aligned like every malloc. Never 0 (the
# legacy default stream), which a stand-in's stream once was.
STREAM_LOW, STREAM_HIGH = 0x5500_0000_0000, 0x5700_0000_0000
STREAM_ALIGNMENT = 16

_draws = random.Random()  # seeded from the OS at import; in the worker, before its filters close


def round_up(value, multiple):
    return (value + multiple - 1) // multiple * multiple


def device_layout(sizes):
    """Offsets from the first page of buffers of these byte sizes, as successive cudaMalloc calls lay
    them out (see above), and the span they cover. A buffer of no bytes is never allocated: its
    address is 0, as DeviceBuffer's null pointer."""
    offsets, end, shared_page, shared_used = [], 0, None, 0
    for size in sizes:
        if size == 0:
            offsets.append(None)
        elif size >= DEVICE_PAGE:
            start = round_up(end, DEVICE_PAGE)
            offsets.append(start)
            end = start + round_up(size, DEVICE_PAGE)
        else:
            need = round_up(size, SMALL_ALIGNMENT)
            if shared_page is None or shared_used + need > DEVICE_PAGE:
                shared_page, shared_used = round_up(end, DEVICE_PAGE), 0
                end = shared_page + DEVICE_PAGE
            offsets.append(shared_page + shared_used)
            shared_used += need
    return offsets, end


def device_addresses(sizes, draws=None):
    """Addresses for one call's buffers (byte sizes, in argument order) from a page drawn at random."""
    draws = draws or _draws
    offsets, span = device_layout(sizes)
    pages = max(1, (DEVICE_HIGH - DEVICE_LOW - span) // DEVICE_PAGE)
    base = DEVICE_LOW + draws.randrange(pages) * DEVICE_PAGE
    return [0 if offset is None else base + offset for offset in offsets]


def stream_handle(draws=None):
    """A stream handle for one stand-in call, drawn as the harness's looks."""
    draws = draws or _draws
    return STREAM_LOW + draws.randrange((STREAM_HIGH - STREAM_LOW) // STREAM_ALIGNMENT) * STREAM_ALIGNMENT


class DType:
    """A buffer's element type: str() is its name ("bfloat16"), as Triton expects."""

    def __init__(self, name):
        self.name = name
        self.itemsize = ELEMENT_SIZES[name]

    def __str__(self):
        return self.name

    __repr__ = __str__

    def __eq__(self, other):
        return str(other) == self.name

    def __hash__(self):
        return hash(self.name)


class Buffer:
    """A contiguous row-major device buffer: a stand-in's made-up address, or the harness's own."""

    def __init__(self, shape, dtype, address):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = DType(dtype)
        strides, count = [], 1
        for d in reversed(self.shape):
            strides.append(count)
            count *= d
        self._strides = tuple(reversed(strides))
        self._numel = count
        self._address = address

    def data_ptr(self):
        return self._address

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def dim(self):
        return len(self.shape)

    @property
    def ndim(self):
        return len(self.shape)

    def numel(self):
        return self._numel

    def element_size(self):
        return self.dtype.itemsize

    def is_contiguous(self):
        return True

    def __repr__(self):
        return f"Buffer({list(self.shape)}, {self.dtype})"


class ArgumentError(ValueError):
    """ARGS.json or SHAPE.json is not what the contract says (a usage error, not the candidate's)."""


def _dimension(value, scalars, where):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ArgumentError(f"{where}: a dimension must be an integer or a name in the shape, not {value!r}")
    if isinstance(value, str):
        if value not in scalars:
            raise ArgumentError(f"{where}: '{value}' is not in the shape ({', '.join(sorted(scalars))})")
        value = scalars[value]
    if value < 0:
        raise ArgumentError(f"{where}: a dimension must not be negative ({value})")
    return value


def build_arguments(arguments, scalars, draws=None):
    """The entry's positional arguments for one stand-in call: a Buffer per buffer (at addresses laid
    out as the harness's, drawn for this call), an int per scalar, then a stream handle."""
    if not isinstance(arguments, list):
        raise ArgumentError("the arguments must be a JSON list")
    if not isinstance(scalars, dict) or not all(isinstance(v, int) and not isinstance(v, bool) for v in scalars.values()):
        raise ArgumentError("the shape must be a JSON object of integers")
    specs = [_argument(i, arg, scalars) for i, arg in enumerate(arguments)]  # (shape, dtype) or an int
    buffers = [spec for spec in specs if isinstance(spec, tuple)]
    sizes = [_count(shape) * ELEMENT_SIZES[dtype] for shape, dtype in buffers]
    addresses = iter(device_addresses(sizes, draws))
    values = [Buffer(spec[0], spec[1], next(addresses)) if isinstance(spec, tuple) else spec for spec in specs]
    values.append(stream_handle(draws))  # the harness makes its stream current; kernels launch there
    return values


def _argument(i, arg, scalars):
    """One entry of ARGS.json: (shape, dtype) for a buffer, the value for a scalar."""
    if not isinstance(arg, dict) or not isinstance(arg.get("name"), str):
        raise ArgumentError(f"argument {i}: an object with a name is needed")
    where = f"argument {i} ({arg['name']})"
    unknown = set(arg) - {"name", "dtype", "shape", "output", "value"}
    if unknown:
        raise ArgumentError(f"{where}: unknown keys {sorted(unknown)}")
    if "dtype" in arg:
        if arg["dtype"] not in ELEMENT_SIZES:
            raise ArgumentError(f"{where}: unknown dtype {arg['dtype']!r} (one of {', '.join(ELEMENT_SIZES)})")
        if not isinstance(arg.get("shape"), list):
            raise ArgumentError(f"{where}: a buffer needs a shape (a list)")
        return [_dimension(d, scalars, where) for d in arg["shape"]], arg["dtype"]
    if "value" in arg:
        return _dimension(arg["value"], scalars, where)
    if arg["name"] in scalars:
        return scalars[arg["name"]]
    raise ArgumentError(f"{where}: a scalar needs a value in the shape")


def _count(shape):
    count = 1
    for d in shape:
        count *= d
    return count
