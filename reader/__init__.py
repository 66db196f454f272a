"""cutile.reader: the module reader: Python source -> ModuleInfo (imports of cutile, kernel and
helper definitions, module constants), one parse per document version (source.py),
statement pre-scans (scan.py) and decoding source bytes (decode.py)."""
