"""What must not be kept or must go: secrets, forgets by subject, held texts, size limits."""
