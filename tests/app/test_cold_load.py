"""Cold page load: no page imports torch unless it shows a torch layer (DESIGN.md budget)."""

from __future__ import annotations

import json
import subprocess
import sys

from ui.registry import CONCEPTS, ROOT

# Pages whose default view shows a real torch layer. (attention_maps imports torch only in
# its "check against PyTorch" part, not on a cold load.)
# vision_transformer: nn.Conv2d; reverse_diffusion: the learned ε_θ MLP beside the exact one
TORCH_PAGES = {"set_transformer", "lambda_layers", "vision_transformer", "reverse_diffusion"}

PROBE = """
import json, sys
from streamlit.testing.v1 import AppTest
report = {}
for page in sys.argv[1:]:
    at = AppTest.from_file("app.py", default_timeout=120)
    at.run()
    at.switch_page(f"pages/{page}").run()
    report[page] = {"torch": "torch" in sys.modules, "exception": bool(at.exception)}
    if report[page]["torch"]:
        break
print(json.dumps(report))
"""


def test_pages_without_a_torch_layer_never_import_torch():
    pages = [c.page for c in CONCEPTS if c.slug not in TORCH_PAGES]
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *pages],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    importing = [p for p, r in report.items() if r["torch"]]
    assert importing == [], f"torch imported on a cold load of {importing}"
    assert list(report) == pages and not any(r["exception"] for r in report.values())
