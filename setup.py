"""Map the repository's top-level folders onto the one import package ``nl2sparql``.

The product's folders (``compiler/``, ``kg/``, ...) sit at the repository root, as
ARCHITECTURE.md lays them out, but install as ``nl2sparql.compiler``, ``nl2sparql.kg``
so nothing generic lands at the top of site-packages. Sub-packages are discovered,
so a new folder with an ``__init__.py`` needs no edit here.
"""

from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent
SUBPACKAGES = (
    "plan", "compiler", "memory_bank", "kg", "candidates", "ranker", "planner", "training", "server", "evaluation",
)  # fmt: skip

package_dir = {"nl2sparql": "nl2sparql"}
packages = ["nl2sparql"]
for folder in SUBPACKAGES:
    package_dir[f"nl2sparql.{folder}"] = folder
    packages.append(f"nl2sparql.{folder}")
    packages += [f"nl2sparql.{folder}.{sub}" for sub in find_packages(str(ROOT / folder))]


class build_py_with_protos(build_py):
    """Compile ``protos/**/*.proto`` into ``*_pb2.py``, ``*_pb2_grpc.py`` and ``*_pb2.pyi``.

    A proto's folder under ``protos/`` is its package (``protos/nl2sparql/v1/`` holds package
    ``nl2sparql.v1``), so its modules import as ``nl2sparql.v1.nl2sparql_pb2``. They are written
    into the build folder for a wheel and into the source tree for an editable install (where
    they are git-ignored); re-run ``pip install -e .`` after changing a proto.
    """

    def run(self) -> None:
        super().run()
        compile_protos(ROOT.resolve() if self.editable_mode else Path(self.build_lib))


def compile_protos(out: Path) -> None:
    from importlib.resources import files

    try:
        from grpc_tools import protoc
    except ImportError as exc:
        raise RuntimeError("building nl2sparql needs grpcio-tools (pip install grpcio-tools)") from exc
    protos = ROOT.resolve() / "protos"
    sources = sorted(str(p.relative_to(protos)) for p in protos.rglob("*.proto"))
    well_known = str(files("grpc_tools") / "_proto")
    args = [
        f"-I{protos}",
        f"-I{well_known}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--pyi_out={out}",
    ]
    for source in sources:
        (out / source).parent.mkdir(parents=True, exist_ok=True)
        if protoc.main(["grpc_tools.protoc", *args, str(protos / source)]) != 0:
            raise RuntimeError(f"protoc failed on {protos / source}")


setup(
    cmdclass={"build_py": build_py_with_protos},
    package_dir=package_dir,
    packages=packages,
    package_data={
        "nl2sparql": ["py.typed"],
        "nl2sparql.plan": ["*.lark"],
        "nl2sparql.compiler": ["*.lark"],
        "nl2sparql.ranker": ["model/*.safetensors"],
        "nl2sparql.planner": ["default/*", "plain/*", "freebase/*", "smollm2/*"],
    },
)
