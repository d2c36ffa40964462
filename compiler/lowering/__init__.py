"""Lowering: a resolved plan and the statements chosen for it, written as one SELECT query.

One module per pattern: :mod:`.graph` (chains, conjunctions, shared CVTs),
:mod:`.filters` (equality and typed comparisons), :mod:`.time_window` (WebQSP's
``NOT EXISTS || EXISTS`` windows on a CVT), :mod:`.union` (``Combine``), :mod:`.analytic`
(groups and ``HAVING``, ``OPTIONAL``, ``FILTER NOT EXISTS``, ``BIND`` arithmetic), and
:mod:`.lower`, which walks the plan and handles ranking, counting and the answer.
"""

from nl2sparql.compiler.lowering.lower import language_filter, lower
from nl2sparql.compiler.lowering.options import STYLES, LoweringError, LoweringOptions, Style, style

__all__ = ["STYLES", "LoweringError", "LoweringOptions", "Style", "language_filter", "lower", "style"]
