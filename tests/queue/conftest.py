"""Put the repository root on sys.path so tests can import bench (the mock target, the synthetic library)."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
