"""Names the CLI shows before any model loads (``planner --help`` must not import torch).

:mod:`nl2sparql.planner.model` and :mod:`nl2sparql.training.train` take their defaults from
here, so the help text and the code cannot disagree.
"""

from __future__ import annotations

from typing import Literal

#: the default planner base: MiniLM warm-started on both sides of an encoder-decoder
DEFAULT_BASE = "minilm-ed"
#: the default way of fine-tuning a base
DEFAULT_METHOD: Literal["full", "lora"] = "full"
