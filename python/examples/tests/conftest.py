"""The examples' tests run in the training environment (training/.venv: torch, transformers, TRL,
verl); the reward API's client and its live-server helpers come from the source tree."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
for p in (os.path.join(ROOT, "python", "ptxbench_client", "src"), os.path.join(ROOT, "python", "ptxbench_client", "tests"),
          os.path.join(ROOT, "python", "examples")):
    if p not in sys.path:
        sys.path.insert(0, p)
