"""Writes the .npy files of tests/unit/npy_test.cpp with numpy's own writer.

    python3 tests/data/npy/generate.py     (numpy >= 1.17; run from anywhere)

The files are committed: the test reads what numpy wrote, byte for byte, and
checks that kops::npy::write writes the same bytes for the same array.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, array, version=None):
    with open(os.path.join(HERE, name + ".npy"), "wb") as f:
        if version is None:
            np.save(f, array)  # numpy's default: version 1.0
        else:
            np.lib.format.write_array(f, array, version=version)


save("f4_2x3_v1", np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5 - 1)
save("f8_3_v2", np.array([1.0, -2.5, 1e300]), (2, 0))
save("i8_2x2_v3", np.array([[1, -2], [3, 1 << 40]], dtype=np.int64), (3, 0))
save("f2_3_v1", np.array([1.0, -0.5, 65504.0], dtype=np.float16))
save("f8_0d_v1", np.float64(3.25) * np.ones(()))
save("f8_4x0_v1", np.zeros((4, 0)))
# Refused by kops::npy::read:
save("f4_fortran", np.asfortranarray(np.arange(4, dtype=np.float32).reshape(2, 2)))
save("f8_bigendian", np.array([1.0, 2.0], dtype=">f8"))
save("i4_2", np.array([1, 2], dtype=np.int32))
