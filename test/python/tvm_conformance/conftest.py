"""Make the suite's shared helpers (`conformance_helpers`) importable: pytest runs
in importlib mode, so a test module can't import its neighbours by itself."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
