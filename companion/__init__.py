"""Table companion."""
