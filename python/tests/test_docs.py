"""The Python snippets of the docs run as written (docs/api.md), their asserts included."""

from __future__ import annotations

import re

from conftest import REPO


def test_the_python_snippets_of_the_api_page_run():
    text = (REPO / "docs" / "api.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    namespace: dict = {}
    for block in blocks:  # in order: a later block uses the names of the earlier ones
        exec(compile(block, "docs/api.md", "exec"), namespace)
    assert namespace["q"].q1.shape == (1000,)
