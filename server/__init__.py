"""The gRPC service: a thin servicer over the pipeline, ``serve()`` with health and reflection.

Applications use nl2sparql through it: :func:`nl2sparql.server.serve.serve` starts a server
over any object that keeps the :class:`~nl2sparql.server.protocol.AnsweringPipeline`
contract, and :class:`nl2sparql.server.client.Client` talks to one. Nothing is imported
here, so ``import nl2sparql.server`` costs nothing until a module is used.
"""
