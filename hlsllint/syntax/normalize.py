"""`normalize(text)`: the text tree-sitter parses and what the repair took out of it
(`repair_passes`). A long text (a unit's expansion: its header chain, then its own code) is
repaired in pieces, each piece's repair kept by its content for the next text that holds it."""

from __future__ import annotations

import itertools
import re
import zlib

from hlsllint.syntax.annotations import Annotations, Attribute, Block, Modifier, Register, Semantic
from hlsllint.syntax.repair_passes import repair


def normalize(text: str) -> tuple[str, Annotations]:
    """The text to hand to tree-sitter (same length as `text`) and what was taken out of it.

    A long text (a unit's expansion: its header chain, then its own code) is repaired in pieces
    cut where the text alone decides where (`_cuts`), each piece's repair kept by its content for
    the next text that holds it (`_piece`); where a piece's repair could depend on its neighbour
    (`_joins`), the two are repaired as one. The result is the repair of the whole text."""
    if len(text) < PIECES_MIN:
        sc, notes, _ = repair(text)
        return sc.apply(text), notes
    return _normalize_cut(text, _cuts(text))


def _normalize_cut(text: str, cuts: list[int]) -> tuple[str, Annotations]:
    """`normalize(text)` from the pieces between `cuts` (line starts, in order), those whose
    repair could depend on a neighbour repaired with it."""
    bounds = [0, *cuts, len(text)]
    pieces = [_piece(text[a:b]) for a, b in itertools.pairwise(bounds)]
    for _ in range(MERGE_ROUNDS):
        keep = [0]
        for i in range(1, len(pieces)):
            if _joins(pieces[i - 1], pieces[i]):
                keep.append(i)
        if len(keep) == len(pieces):
            if len(pieces) == 1:
                return pieces[0].normalized, _copy_notes(pieces[0].notes)
            return "".join(p.normalized for p in pieces), _merged(pieces, bounds)
        # the pieces between two safe cuts are repaired as one (their joins are looked at again)
        keep.append(len(pieces))
        pieces = [
            pieces[i] if j == i + 1 else _piece(text[bounds[i] : bounds[j]])
            for i, j in itertools.pairwise(keep)
        ]
        bounds = [bounds[i] for i in keep]
    sc, notes, _ = repair(text)
    return sc.apply(text), notes


MERGE_ROUNDS = 4
"""How many times unsafe cuts are taken out before the text is repaired whole instead."""
PIECES_MIN = 1 << 15
"""A text shorter than this is repaired whole (a shader without a long header chain)."""
_CUT = re.compile(r"\n\};?[ \t\r]*\n")
"""A line holding only the `}` (or `};`) that ends a function or a type at the top level: where
a text may be cut into pieces, when `_STRIDE` says so."""
_STRIDE = 8
"""One cut in about this many: a cut is taken where the crc32 of the text around it is a multiple
of `_STRIDE` (so two texts holding the same stretch cut it in the same places, wherever it is in
them), pieces of about 8 KB on SpartanEngine's header chain."""
_AROUND = 96


def _cuts(text: str) -> list[int]:
    """Where `text` is cut into pieces: after some of the lines that `_CUT` finds, chosen by the
    text around each alone."""
    cuts: list[int] = []
    for m in _CUT.finditer(text):
        c = m.end()
        if c >= len(text):
            break
        around = text[max(0, c - _AROUND) : c + _AROUND].encode("utf-8", "surrogatepass")
        if zlib.crc32(around) % _STRIDE == 0:
            cuts.append(c)
    return cuts


class _Piece:
    """The repair of one piece of a text, alone, and what decides whether it is the repair of that
    piece inside a longer text (`_joins`)."""

    def __init__(self, text: str) -> None:
        sc, notes, marks = repair(text)
        self.normalized = sc.apply(text)
        self.notes = notes
        self.marks = marks
        last = marks[0][-1]
        self.end_ok = (
            not sc.read_past_end
            and text.endswith("\n")
            and last >= 0
            and sc.buf[last] in b";}"
            and all(m[-1] == last for m in marks)
            and sc.mask_end < len(text)
        )
        """Nothing after the piece could change its repair: no pass looked past its end; it
        ends with a line break outside every comment, string and directive; and its last
        significant byte, before and after every pass, is the same `;` or `}` (so what a pass
        over the next piece looks for backwards stops there, as at the start of a text)."""
        self.start_ok = not sc.read_before_start
        """Nothing before the piece could change its repair (given the piece before ends as
        `end_ok` says)."""
        self.line_comment_end = sc.line_comment_end
        self.line_comment_start = _LINE_COMMENT_START.match(text) is not None


_LINE_COMMENT_START = re.compile(r"[ \t]*//")


def _joins(a: _Piece, b: _Piece) -> bool:
    """Whether repairing `a` and `b` apart gives the repair of their text together: `a` needs
    nothing after it nor `b` before it, and no run of `//` lines goes on from one into the other
    (the mask of the two would take `b`'s indentation in)."""
    return a.end_ok and b.start_ok and not (a.line_comment_end and b.line_comment_start)


_pieces: dict[str, _Piece] = {}
_pieces_chars = 0
PIECES_MAX = 4096
PIECES_MAX_CHARS = 1 << 24
"""How many pieces (and characters of their text) are kept at most: the table is emptied when
either is reached (an engine's header chain is a few hundred pieces)."""


class PieceStats:
    """How many pieces were repaired (`repaired`) and how many were found already repaired
    (`reused`), in this process."""

    def __init__(self) -> None:
        self.repaired = 0
        self.reused = 0


STATS = PieceStats()


def _piece(text: str) -> _Piece:
    """The repair of `text` alone, kept by its content."""
    global _pieces_chars
    piece = _pieces.get(text)
    if piece is not None:
        STATS.reused += 1
        return piece
    piece = _Piece(text)
    STATS.repaired += 1
    if len(_pieces) >= PIECES_MAX or _pieces_chars + len(text) > PIECES_MAX_CHARS:
        _pieces.clear()
        _pieces_chars = 0
    _pieces[text] = piece
    _pieces_chars += len(text)
    return piece


def clear_pieces() -> None:
    """Forget every piece kept."""
    global _pieces_chars
    _pieces.clear()
    _pieces_chars = 0


def _merged(pieces: list[_Piece], bounds: list[int]) -> Annotations:
    """The annotations of the whole text from its pieces': each pass appends to its lists in the
    order of the text, so a kind's list is, pass after pass, every piece's entries of that pass,
    moved to where the piece starts (`_reanchor` replaces entries in place)."""
    notes = Annotations()
    for step in range(1, len(pieces[0].marks)):
        for piece, d in zip(pieces, bounds[:-1], strict=True):
            b = piece.marks[step - 1]
            a = piece.marks[step]
            n = piece.notes
            if a[0] > b[0]:
                notes.attributes.extend(_moved_attribute(x, d) for x in n.attributes[b[0] : a[0]])
            if a[1] > b[1]:
                notes.semantics.extend(
                    x if d == 0 else Semantic(x.name, (x.span[0] + d, x.span[1] + d), x.anchor + d)
                    for x in n.semantics[b[1] : a[1]]
                )
            if a[2] > b[2]:
                notes.registers.extend(_moved_register(x, d) for x in n.registers[b[2] : a[2]])
            if a[3] > b[3]:
                notes.modifiers.extend(
                    x if d == 0 else Modifier(x.name, (x.span[0] + d, x.span[1] + d), x.macro)
                    for x in n.modifiers[b[3] : a[3]]
                )
            if a[4] > b[4]:
                notes.blocks.extend(_moved_block(x, d) for x in n.blocks[b[4] : a[4]])
            if a[5] > b[5]:
                notes.renamed.extend((x[0] + d, x[1] + d) for x in n.renamed[b[5] : a[5]])
            if a[6] > b[6]:
                notes.effects.extend((x[0] + d, x[1] + d) for x in n.effects[b[6] : a[6]])
    return notes


def _moved_attribute(x: Attribute, d: int) -> Attribute:
    if d == 0:
        return x
    return Attribute(x.name, x.args, (x.span[0] + d, x.span[1] + d), x.anchor + d, x.double, x.macro)


def _moved_register(x: Register, d: int) -> Register:
    if d == 0:
        return x
    return Register(x.kind, x.slot, x.space, x.profile, (x.span[0] + d, x.span[1] + d), x.anchor + d)


def _moved_block(x: Block, d: int) -> Block:
    if d == 0:
        return x
    semicolon = x.synthetic_semicolon
    return Block(
        x.kind,
        x.name,
        (x.span[0] + d, x.span[1] + d),
        x.anchor + d,
        None if semicolon is None else semicolon + d,
    )


def _copy_notes(notes: Annotations) -> Annotations:
    """New lists of the same (frozen) entries: a kept piece's lists are never handed out."""
    return Annotations(
        list(notes.attributes),
        list(notes.semantics),
        list(notes.registers),
        list(notes.modifiers),
        list(notes.blocks),
        list(notes.renamed),
        list(notes.effects),
    )
