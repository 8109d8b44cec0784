"""methods/mermaid"""
