#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The pollen and climate APIs for the docs tests' agents: test/ha/fake_api.py's loopback
stand-in (the real fixtures, dates moved to today), run as a process. Writes its base URL to
the file given, then serves until killed. The test's "user" points the installed agent's
`endpoints:` at it, as if the machine could reach Open-Meteo."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ha"))
from fake_api import FakeAPI  # noqa: E402

api = FakeAPI()
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(api.base + "\n")
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    time.sleep(3600)
