"""`hlsllint rule`: a rule's documentation, generated from the rule's own metadata."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from hlsllint.registry import all_rules, find_rule


def run_rule(args: argparse.Namespace) -> int:
    rules = all_rules()
    if args.all or not args.code:
        if args.output_format == "json":
            print(json.dumps([_rule_json(r) for r in rules], indent=2))
        else:
            # Columns as wide as their longest entry (plugins bring their own codes and names).
            code_w = max(len(r.code) for r in rules)
            name_w = max(len(r.name) for r in rules)
            sev_w = max(len(r.severity.value) for r in rules)
            for r in rules:
                fix = "[*]" if r.fix.value != "none" else "   "
                print(
                    f"{r.code:<{code_w}}  {r.name:<{name_w}}  {r.severity.value:<{sev_w}}  {fix}  "
                    f"{r.summary.strip().splitlines()[0]}"
                )
        return 0
    rule = find_rule(args.code)
    if rule is None:
        print(
            f"hlsllint: error: unknown rule `{args.code}` (see `hlsllint rule --all`)",
            file=sys.stderr,
        )
        return 2
    if args.output_format == "json":
        print(json.dumps(_rule_json(rule), indent=2))
    else:
        print(rule.documentation())
    return 0


def _rule_json(r: Any) -> dict[str, Any]:
    return {
        "code": r.code,
        "name": r.name,
        "summary": r.summary.strip(),
        "severity": r.severity.value,
        "fix": r.fix.value,
        "tags": list(r.tags),
        "explanation": r.documentation(),
    }
