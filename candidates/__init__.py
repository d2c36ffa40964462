"""The agent that knows what is valid: candidate plans built over the graph.

:mod:`.cues` reads which operators the question's words open, :mod:`.hops` binds the memory
bank's statements to grounded nodes, :mod:`.graph` looks at the store (bounded), :mod:`.shapes`
writes the operators, and :mod:`.agent` runs the beam search that joins them. The model
that knows what is likely is :mod:`nl2sparql.ranker`; the pipeline joins the two.
"""
