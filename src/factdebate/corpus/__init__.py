"""Loading, chunking and indexing document collections."""
