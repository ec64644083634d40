"""Benchmarks: this project next to PyTorch, Apache TVM and NumPy, in one run.

    make bench                               # this script, then bench/memory.py
    .venv/bin/python bench/run.py --quick    # fewer rounds, smaller workloads
    .venv/bin/python bench/run.py --help

The suite, its workloads and their hand schedules are in bench/suite.py; the
table is printed and written as JSON under bench/results/ (or --json PATH).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import suite  # sets the thread-pool environment before NumPy is imported

if __name__ == "__main__":
    sys.exit(suite.main())
