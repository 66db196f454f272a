"""cutile.lsp"""
