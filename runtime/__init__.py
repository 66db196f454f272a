"""cutile.runtime"""

from .render import install as _install_error_display

_install_error_display()  # uncaught cutile errors print in the checker's full format
