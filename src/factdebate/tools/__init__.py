"""Retrieval tools behind one protocol (see base.py)."""
