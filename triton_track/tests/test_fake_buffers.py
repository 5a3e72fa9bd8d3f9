"""The stand-in buffers and the entry's arguments built from ARGS.json and SHAPE.json."""
import json
import unittest

from ptxbench_triton import fake_buffers
from tests import support


class BuildArguments(unittest.TestCase):
    def test_gemm_fixture(self):
        with open(support.fixture("gemm.arguments.json")) as f:
            args = json.load(f)
        a, b, c, m, n, k, stream = fake_buffers.build_arguments(args, {"M": 256, "N": 384, "K": 64})
        self.assertEqual((m, n, k, stream), (256, 384, 64, 0))
        self.assertEqual((a.shape, b.shape, c.shape), ((256, 64), (384, 64), (256, 384)))
        self.assertEqual((a.stride(), a.stride(0), a.stride(-1)), ((64, 1), 64, 1))
        self.assertEqual((c.size(), c.size(1), c.numel(), c.element_size()), ((256, 384), 384, 256 * 384, 2))
        self.assertEqual(str(a.dtype), "bfloat16")
        self.assertEqual(a.dtype, "bfloat16")

    def test_addresses_are_aligned_distinct_and_apart(self):
        with open(support.fixture("mha_fwd.arguments.json")) as f:
            args = json.load(f)
        values = fake_buffers.build_arguments(args, {"B": 64, "H": 128, "S": 32768, "D": 128})
        buffers = [v for v in values if isinstance(v, fake_buffers.Buffer)]
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
        self.assertEqual(values[1:], [4096, 0])

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


if __name__ == "__main__":
    unittest.main()
