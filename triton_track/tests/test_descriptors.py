import unittest

from ptxbench_triton import descriptors


class BoxBytes(unittest.TestCase):
    def test_sizes_each_distinct_box_by_its_element_type(self):
        ir = ("%a = tt.make_tensor_descriptor ... : !tt.tensordesc<tensor<128x64xbf16, #shared>>\n"
              "%b = ... : !tt.tensordesc<tensor<128x64xbf16, #shared>>\n"
              "%c = ... : !tt.tensordesc<tensor<64x128xf8E4M3FN, #shared1>>\n"
              "%d = ... : !tt.tensordesc<tensor<1x64x32xf32, #shared2>>")
        self.assertEqual(descriptors.box_bytes(ir), [8192, 16384])

    def test_no_descriptor_no_box(self):
        self.assertEqual(descriptors.box_bytes("tt.load %p : tensor<128x64x!tt.ptr<bf16>>"), [])
        self.assertEqual(descriptors.box_bytes(""), [])
        self.assertEqual(descriptors.box_bytes(None), [])

    def test_an_unknown_element_type_sizes_its_box_as_nothing(self):
        # Never more bytes than moved: the judge takes the smallest box, here 0 (the copies count none).
        self.assertEqual(descriptors.box_bytes("!tt.tensordesc<tensor<64x64xf4E2M1, #s>>"), [0])


if __name__ == "__main__":
    unittest.main()
