"""cutile.diagnostics: the base every layer uses: the code registry (codes.py), message
templates (messages.py), Diagnostic and Span (diagnostic.py) and the exception classes
(errors.py)."""
