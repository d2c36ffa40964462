"""The fixed dev splits: no figure we report is measured on data that was trained on or stored.

Splits go by id so that every command (planner data, the default bank, bank tune, eval)
draws the same line: WebQSP train questions ``WebQTrn-N`` with ``N % 10 == 0``, and the CWQ
part-A questions whose ``webqsp_ID`` number has ``N % 5 == 0``. WebQSP test part A is for
evaluation only.
"""

from __future__ import annotations

import re
from typing import Any

_NUMBER = re.compile(r"(\d+)")


def _number(identifier: object) -> int | None:
    found = _NUMBER.search(str(identifier or ""))
    return int(found.group(1)) if found else None


def is_webqsp_dev(example: Any) -> bool:
    """WebQSP train dev split: ``WebQTrn-N`` with ``N % 10 == 0``.

    >>> from types import SimpleNamespace
    >>> is_webqsp_dev(SimpleNamespace(id="WebQTrn-30")), is_webqsp_dev(SimpleNamespace(id="WebQTrn-31"))
    (True, False)
    """
    n = _number(example.id)
    return n is not None and n % 10 == 0


def is_cwq_dev(example: Any) -> bool:
    """CWQ dev split: the ``webqsp_ID`` number ``N`` has ``N % 5 == 0``."""
    return seeds_cwq_dev(example.extra.get("webqsp_id"))


def seeds_cwq_dev(webqsp_id: object) -> bool:
    """Whether a WebQSP question is the seed of CWQ dev questions (its number ``N % 5 == 0``),
    so that nothing made from it for training mimics one.

    >>> seeds_cwq_dev("WebQTrn-2335"), seeds_cwq_dev("WebQTrn-2336"), seeds_cwq_dev(None)
    (True, False, False)
    """
    n = _number(webqsp_id)
    return n is not None and n % 5 == 0
