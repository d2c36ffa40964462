"""The model that knows what is likely: scores of (question, candidate plan) pairs.

The agent (:mod:`nl2sparql.candidates`) proposes only valid plans, in the graph's own
words; a scorer here only compares them with the question, so it never has to write a
word of a graph it has not seen. :mod:`.reading` turns a candidate into the text a scorer
reads; :mod:`.features` says what the question's cues and the grounding say of it;
:mod:`.scorer` joins a text model's similarity with those features.
"""
