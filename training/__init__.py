"""The training-data factory and the training of planners, kept apart from inference.

Gold plans synthesised from SPARQL (:mod:`.synthesise`), KG-pattern, question-shape,
complex-question and constraint pairs, the pairs a planner is trained on (:mod:`.data`),
fine-tuning (:mod:`.train`), export (:mod:`.export`) and the ``nl2sparql planner`` command
(:mod:`.cli`). It stands above the compiler, the memory bank and the planner, and nothing
that answers a question imports it: the ``oracle`` planner (:mod:`.oracle`), which writes
gold plans, is opened by name through the planner registry.
"""
