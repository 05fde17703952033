// Placeholder: filled in by the Redis family work (issue 22).
