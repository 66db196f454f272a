"""Installs the four top-level component folders as subpackages of `cutile` (docs/design.md §2)."""

from setuptools import find_packages, setup

COMPONENTS = ("compiler", "runtime", "checker", "lsp", "diagnostics", "reader")

package_dir = {"cutile": "cutile"}
packages = ["cutile"]
for component in COMPONENTS:
    package_dir[f"cutile.{component}"] = component
    packages.append(f"cutile.{component}")
    packages += [f"cutile.{component}.{sub}" for sub in find_packages(component)]

setup(packages=packages, package_dir=package_dir)
