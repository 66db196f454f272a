"""cutile.checker"""
