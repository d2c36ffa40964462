"""The planner: models that write a plan for a question, their inference runtimes and backends.

Training data and fine-tuning live in :mod:`nl2sparql.training`; the plan types in
:mod:`nl2sparql.plan`.
"""
