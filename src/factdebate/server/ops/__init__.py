"""Running the service: metrics, traces, load shedding, graceful shutdown, warm-up and worker processes."""
