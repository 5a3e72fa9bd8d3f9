"""Stand-in device buffers for a compile without a GPU, and the entry's arguments built from
ARGS.json and SHAPE.json.

Triton reads a buffer argument through data_ptr() (its alignment picks a specialization) and dtype
(str() gives the element type's name); the candidate's host code may read shape, stride(),
size(), numel(), element_size(). Nothing is ever read from or written to the addresses.
"""

ELEMENT_SIZES = {
    "bfloat16": 2, "float16": 2, "float32": 4, "float64": 8, "float8_e4m3fn": 1, "float8_e5m2": 1,
    "int8": 1, "uint8": 1, "int16": 2, "int32": 4, "int64": 8,
}

# Where the first buffer lies and how far apart they are: cudaMalloc-like (256-byte aligned, so every
# pointer gets Triton's 16-byte alignment specialization, as on the GPU) and 1 TiB apart, so no two
# buffers of any allowed shape overlap.
FIRST_ADDRESS = 1 << 40
SPACING = 1 << 40


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
    """A contiguous row-major device buffer at a fake address."""

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


def build_arguments(arguments, scalars):
    """The entry's positional arguments: a Buffer per buffer, an int per scalar, then the stream (0)."""
    if not isinstance(arguments, list):
        raise ArgumentError("the arguments must be a JSON list")
    if not isinstance(scalars, dict) or not all(isinstance(v, int) and not isinstance(v, bool) for v in scalars.values()):
        raise ArgumentError("the shape must be a JSON object of integers")
    values, address = [], FIRST_ADDRESS
    for i, arg in enumerate(arguments):
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
            shape = [_dimension(d, scalars, where) for d in arg["shape"]]
            values.append(Buffer(shape, arg["dtype"], address))
            address += SPACING
        elif "value" in arg:
            values.append(_dimension(arg["value"], scalars, where))
        elif arg["name"] in scalars:
            values.append(scalars[arg["name"]])
        else:
            raise ArgumentError(f"{where}: a scalar needs a value in the shape")
    values.append(0)  # the stream: the harness makes it current; kernels launch there
    return values
