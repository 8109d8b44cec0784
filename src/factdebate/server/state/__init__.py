"""State the service keeps or shares between replicas: the state database, kept checks and calls, batches."""
