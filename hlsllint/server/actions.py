"""Code actions and hover of the language server: each finding's fix and `noqa`, the document's
safe fixes (`source.fixAll.hlsllint`), the rule code under the cursor in a `noqa` comment."""

from __future__ import annotations

import os
from collections.abc import Sequence

from lsprotocol import types
from pygls import uris

from hlsllint.diagnostics import Applicability
from hlsllint.fix import chosen_edits
from hlsllint.noqa import CODE_RE, FILE_RE, LINE_RE
from hlsllint.server.convert import Positions, fix_title, noqa_edit, overlaps, text_edit
from hlsllint.server.document_lint import Outcome

FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.hlsllint"


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    return only is None or any(kind == k or kind.startswith(k + ".") for k in only)


def quick_fixes(outcome: Outcome, at: types.Range) -> list[types.CodeAction]:
    actions: list[types.CodeAction] = []
    for d, item in zip(outcome.diagnostics, outcome.items, strict=True):
        if not overlaps(item.range, at):
            continue
        if d.fix is not None and d.fix.edits and d.fix.applicability is not Applicability.DISPLAY:
            changes: dict[str, list[types.TextEdit]] = {}
            for e in d.fix.edits:
                src = (
                    outcome.source
                    if os.path.normpath(e.path) == outcome.path
                    else outcome.sources.get(e.path)
                )
                if src is None:
                    break
                pos = outcome.positions if src is outcome.source else Positions(src, outcome.positions.codec)
                uri = outcome.uri if src is outcome.source else uris.from_fs_path(os.path.abspath(e.path))
                changes.setdefault(uri or outcome.uri, []).append(text_edit(e, pos))
            else:
                actions.append(
                    types.CodeAction(
                        title=fix_title(d),
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[item],
                        edit=types.WorkspaceEdit(changes=changes),
                        is_preferred=d.fix.applicability is Applicability.SAFE,
                    )
                )
        if d.code != "HL001":
            suppress = noqa_edit(d, outcome.source, outcome.positions)
            if suppress is not None:
                title, edit = suppress
                actions.append(
                    types.CodeAction(
                        title=title,
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[item],
                        edit=types.WorkspaceEdit(changes={outcome.uri: [edit]}),
                    )
                )
    return actions


def fix_all(outcome: Outcome) -> types.CodeAction | None:
    """Every safe fix in the document, as the edits of those fixes (the changed ranges only: an
    editor keeps its cursor, folds and undo steps everywhere else)."""
    text = outcome.source.text
    chosen, counts = chosen_edits({outcome.path: text}, outcome.diagnostics, unsafe=False)
    edits = [e for e in chosen.get(outcome.path, []) if text[e.start : e.end] != e.content]
    if not edits:
        return None
    return types.CodeAction(
        title=f"hlsllint: fix all safe fixes ({counts.get(outcome.path, 0)})",
        kind=FIX_ALL_KIND,
        edit=types.WorkspaceEdit(changes={outcome.uri: [text_edit(e, outcome.positions) for e in edits]}),
    )


def noqa_code_at(outcome: Outcome, position: types.Position) -> str | None:
    """The rule code under the cursor inside a `// noqa: ...` or `// hlsllint: noqa: ...` comment."""
    src = outcome.source
    if position.line >= src.line_count:
        return None
    offset = outcome.positions.offset(position)
    row_start = src.line_starts[position.line]
    line = src.line(position.line + 1)
    for regex in (FILE_RE, LINE_RE):
        for m in regex.finditer(line):
            codes = m.group("codes")
            if not codes:
                continue
            base = row_start + m.start("codes")
            for cm in CODE_RE.finditer(codes):
                if base + cm.start() <= offset <= base + cm.end():
                    return cm.group().upper()
    return None


def markdown(text: str) -> types.Hover:
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))
