"""Benchmark scripts: they print figures; nothing here is a test."""
