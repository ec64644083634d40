"""Make the shared helpers of test/python importable (pytest runs in importlib mode)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
