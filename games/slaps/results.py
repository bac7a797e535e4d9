"""Slaps results: cleaning a match's two players and winner, storing and reading them back."""
