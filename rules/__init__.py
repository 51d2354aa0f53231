"""Built-in rules: one module per rule (see hlsllint/rule.py)."""
