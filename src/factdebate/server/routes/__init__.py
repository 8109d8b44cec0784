"""The service's HTTP routes: verify, check-response, kept checks, batches and the page's views."""
