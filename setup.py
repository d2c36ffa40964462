"""Map the repository's top-level folders onto the one import package ``nl2sparql``.

The product's folders (``compiler/``, ``kg/``, ...) sit at the repository root, as
ARCHITECTURE.md lays them out, but install as ``nl2sparql.compiler``, ``nl2sparql.kg``
so nothing generic lands at the top of site-packages. Sub-packages are discovered,
so a new folder with an ``__init__.py`` needs no edit here.
"""

from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).parent
SUBPACKAGES = ("grammar", "compiler", "memory_bank", "planner", "kg", "server", "evaluation")

package_dir = {"nl2sparql": "nl2sparql"}
packages = ["nl2sparql"]
for folder in SUBPACKAGES:
    package_dir[f"nl2sparql.{folder}"] = folder
    packages.append(f"nl2sparql.{folder}")
    packages += [f"nl2sparql.{folder}.{sub}" for sub in find_packages(str(ROOT / folder))]

setup(
    package_dir=package_dir,
    packages=packages,
    package_data={
        "nl2sparql": ["py.typed"],
        "nl2sparql.grammar": ["*.lark"],
    },
)
