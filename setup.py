"""Installs the four top-level component folders as subpackages of `cutile` (docs/design.md §2),
and builds the compiled launch path (runtime/_native.c) where a C compiler is found: optional,
so an install without one takes the Python path (runtime/native.py)."""

from setuptools import Extension, find_packages, setup

COMPONENTS = ("compiler", "runtime", "checker", "lsp", "diagnostics", "reader")

package_dir = {"cutile": "cutile"}
packages = ["cutile"]
for component in COMPONENTS:
    package_dir[f"cutile.{component}"] = component
    packages.append(f"cutile.{component}")
    packages += [f"cutile.{component}.{sub}" for sub in find_packages(component)]

native = Extension("cutile.runtime._native", ["runtime/_native.c"], optional=True,
                   extra_compile_args=["-O2"])

setup(packages=packages, package_dir=package_dir, ext_modules=[native])
