"""The kernel language as users import it (`import cutile as ct`)."""
