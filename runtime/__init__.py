"""cutile.runtime"""
