"""Evaluation harness: datasets with gold labels, the resumable runner, metrics and reports."""
