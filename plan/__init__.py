"""The plan language: MemQ's reasoning sentences as typed, frozen steps, read and written.

The bottom of the house: :mod:`.steps` (the step types and the checks a plan must pass),
``plan.lark`` with :mod:`.reader` (text -> steps) and :mod:`.refs` (how a ``Find`` names
what it is of), and :mod:`.writer` (steps -> text). It imports nothing of the project but
:mod:`nl2sparql.errors`, so the compiler, the planner and the training code can all
import it, and none of them has to import another to speak about a plan.
"""
