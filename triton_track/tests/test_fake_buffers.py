"""The stand-in buffers and the entry's arguments built from ARGS.json and SHAPE.json, and what makes
a stand-in call look like the GPU's (fake_buffers.py, worker_side.py)."""
import json
import random
import unittest

from ptxbench_triton import fake_buffers, worker_side
from tests import support

MIB = 1 << 20


def gemm_arguments():
    with open(support.fixture("gemm.arguments.json")) as f:
        return json.load(f)


def buffers_of(values):
    return [v for v in values if isinstance(v, fake_buffers.Buffer)]


class BuildArguments(unittest.TestCase):
    def test_gemm_fixture(self):
        a, b, c, m, n, k, stream = fake_buffers.build_arguments(gemm_arguments(), {"M": 256, "N": 384, "K": 64})
        self.assertEqual((m, n, k), (256, 384, 64))
        self.assertIsInstance(stream, int)
        self.assertEqual((a.shape, b.shape, c.shape), ((256, 64), (384, 64), (256, 384)))
        self.assertEqual((a.stride(), a.stride(0), a.stride(-1)), ((64, 1), 64, 1))
        self.assertEqual((c.size(), c.size(1), c.numel(), c.element_size()), ((256, 384), 384, 256 * 384, 2))
        self.assertEqual(str(a.dtype), "bfloat16")
        self.assertEqual(a.dtype, "bfloat16")

    def test_addresses_are_aligned_distinct_and_apart(self):
        with open(support.fixture("mha_fwd.arguments.json")) as f:
            args = json.load(f)
        values = fake_buffers.build_arguments(args, {"B": 64, "H": 128, "S": 32768, "D": 128})
        buffers = buffers_of(values)
        self.assertEqual(len(buffers), 5)
        self.assertEqual(str(buffers[4].dtype), "float32")
        for x, y in zip(buffers, buffers[1:]):
            self.assertEqual(x.data_ptr() % 256, 0)
            self.assertGreaterEqual(y.data_ptr() - x.data_ptr(), x.numel() * x.element_size())  # no overlap
        self.assertLess(buffers[-1].data_ptr(), 1 << 64)

    def test_integer_dimensions_and_values(self):
        values = fake_buffers.build_arguments([{"name": "W", "dtype": "uint8", "shape": [3, "N"]},
                                               {"name": "bytes", "value": 4096}], {"N": 5})
        self.assertEqual(values[0].shape, (3, 5))
        self.assertEqual(values[1], 4096)
        self.assertEqual(len(values), 3)  # the stream last

    def test_contract_violations(self):
        bad = [
            ([{"name": "A", "dtype": "bfloat16", "shape": ["M", "Q"]}], {"M": 1}),  # unknown dimension
            ([{"name": "A", "dtype": "complex64", "shape": [1]}], {}),  # unknown dtype
            ([{"name": "A", "dtype": "bfloat16"}], {}),  # buffer without a shape
            ([{"name": "M"}], {"N": 1}),  # scalar without a value
            ([{"name": "A", "dtype": "bfloat16", "shape": [1], "strides": [1]}], {}),  # unknown key
            ({"name": "A"}, {}),  # not a list
            ([{"name": "M"}], {"M": "4096"}),  # a shape value that is not an integer
            ([{"name": "A", "dtype": "bfloat16", "shape": [-1]}], {}),  # negative
        ]
        for args, shape in bad:
            with self.subTest(args=args, shape=shape):
                with self.assertRaises(fake_buffers.ArgumentError):
                    fake_buffers.build_arguments(args, shape)


def gpu_call_arguments(arguments, scalars, addresses, stream):
    """What worker_side hands the entry for a GPU call: the harness's addresses and stream as integers,
    mapped to the shapes of the warmed call with these scalars (worker_side._Session.arguments)."""
    session = worker_side._Session.__new__(worker_side._Session)  # no Triton session: only the mapping
    arguments = [dict(a, shape=[fake_buffers._dimension(d, scalars, a["name"]) for d in a["shape"]])
                 if "shape" in a else a for a in arguments]  # the judge's calls carry evaluated shapes
    values = fake_buffers.build_arguments(arguments, scalars)
    session.calls = {tuple(v for v in values[:-1] if isinstance(v, int)): arguments}
    addresses = iter(addresses)
    harness = [next(addresses) if isinstance(v, fake_buffers.Buffer) else v for v in values[:-1]]
    return session.arguments(harness) + [stream]


class LikeTheGpusCall(unittest.TestCase):
    """A stand-in call must show the entry nothing a GPU call does not: the same class of buffer with
    the same behaviour, addresses and a stream laid out as the harness's, nothing constant."""

    SCALARS = {"M": 4096, "N": 4096, "K": 4096}
    # cudaMalloc-like addresses of A, B, C (32 MiB each), one after another; a stream handle.
    HARNESS = [0x7F3A_2C00_0000, 0x7F3A_2E00_0000, 0x7F3A_3000_0000]
    HARNESS_STREAM = 0x55D3_B8B0_D6A0

    def test_same_class_and_behaviour_as_a_gpu_calls_buffer(self):
        stand_in = fake_buffers.build_arguments(gemm_arguments(), self.SCALARS)
        real = gpu_call_arguments(gemm_arguments(), self.SCALARS, self.HARNESS, self.HARNESS_STREAM)
        self.assertEqual(len(stand_in), len(real))
        for s, r in zip(stand_in, real):
            self.assertIs(type(s), type(r))
            if not isinstance(s, fake_buffers.Buffer):
                continue
            self.assertEqual(sorted(vars(s)), sorted(vars(r)))
            self.assertEqual((repr(s), str(s), f"{s}"), (repr(r), str(r), f"{r}"))  # no address in either
            self.assertEqual((s.shape, s.stride(), s.size(), s.numel(), s.element_size()),
                             (r.shape, r.stride(), r.size(), r.numel(), r.element_size()))
            self.assertIs(type(s.dtype), type(r.dtype))
            self.assertEqual((str(s.dtype), repr(s.dtype), hash(s.dtype)), (str(r.dtype), repr(r.dtype), hash(r.dtype)))
            self.assertIs(type(s.data_ptr()), type(r.data_ptr()))

    def test_addresses_follow_cudamallocs_rules(self):
        for scalars in (self.SCALARS, {"M": 128, "N": 256, "K": 64}, {"M": 8192, "N": 1024, "K": 576}):
            with self.subTest(scalars=scalars):
                buffers = buffers_of(fake_buffers.build_arguments(gemm_arguments(), scalars))
                for b in buffers:
                    address, size = b.data_ptr(), b.numel() * b.element_size()
                    self.assertTrue(fake_buffers.DEVICE_LOW <= address < fake_buffers.DEVICE_HIGH, hex(address))
                    self.assertEqual(address % (2 * MIB if size >= 2 * MIB else 512), 0, hex(address))
                for x, y in zip(buffers, buffers[1:]):  # in argument order, each after the last one's pages
                    size = x.numel() * x.element_size()
                    gap = y.data_ptr() - x.data_ptr()
                    if size >= 2 * MIB:
                        self.assertEqual(gap, fake_buffers.round_up(size, 2 * MIB))
                    else:
                        self.assertGreaterEqual(gap, fake_buffers.round_up(size, 512))

    def test_the_layout_of_large_buffers_is_the_harness_example(self):
        # Three 32 MiB buffers from one page: the HARNESS layout above, shifted.
        offsets, span = fake_buffers.device_layout([32 * MIB] * 3)
        self.assertEqual(offsets, [a - self.HARNESS[0] for a in self.HARNESS])
        self.assertEqual(span, 96 * MIB)
        self.assertEqual(fake_buffers.device_layout([0, 4, 600])[0], [None, 0, 512])  # no bytes: a null pointer

    def test_no_constant_marks_a_stand_in(self):
        calls = [fake_buffers.build_arguments(gemm_arguments(), self.SCALARS) for _ in range(8)]
        firsts = {buffers_of(c)[0].data_ptr() for c in calls}
        streams = {c[-1] for c in calls}
        self.assertEqual(len(firsts), len(calls), "each call draws its own base")
        self.assertEqual(len(streams), len(calls), "each call draws its own stream")
        for stream in streams:
            self.assertNotEqual(stream, 0)
            self.assertEqual(stream % fake_buffers.STREAM_ALIGNMENT, 0)
            self.assertTrue(fake_buffers.STREAM_LOW <= stream < fake_buffers.STREAM_HIGH, hex(stream))
        self.assertTrue(fake_buffers.STREAM_LOW <= self.HARNESS_STREAM < fake_buffers.STREAM_HIGH)

    def test_a_seeded_draw_repeats(self):
        one = fake_buffers.build_arguments(gemm_arguments(), self.SCALARS, random.Random(7))
        two = fake_buffers.build_arguments(gemm_arguments(), self.SCALARS, random.Random(7))
        self.assertEqual([b.data_ptr() for b in buffers_of(one)] + [one[-1]],
                         [b.data_ptr() for b in buffers_of(two)] + [two[-1]])

    def test_the_build_probe_attack_sees_a_gpu_call(self):
        # attacks/build_probe.py's test, run on stand-ins and on the harness's example: both alike.
        namespace = {}
        with open(support.ATTACKS + "/build_probe.py") as f:
            source = f.read()
        probe = source[source.index("def looks_like_a_stand_in"):source.index("def ptxbench_gemm")]
        exec(compile("CUDA_PAGE = 2 << 20\n" + probe, "build_probe.py", "exec"), namespace)  # noqa: S102: our own file
        looks = namespace["looks_like_a_stand_in"]
        real = gpu_call_arguments(gemm_arguments(), self.SCALARS, self.HARNESS, self.HARNESS_STREAM)
        self.assertFalse(looks(real[0], real[1], real[-1]))
        for _ in range(20):
            stand_in = fake_buffers.build_arguments(gemm_arguments(), self.SCALARS)
            self.assertFalse(looks(stand_in[0], stand_in[1], stand_in[-1]))


if __name__ == "__main__":
    unittest.main()
