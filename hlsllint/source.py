"""Reading source files: bytes to text, and offsets to rows and columns.

Everything downstream works on `str` offsets (code points) into `SourceFile.text`. The text keeps
its line endings as they are on disk (CRLF stays CRLF) so that fixes can be written back
byte-for-byte; a UTF-8 BOM is removed from the text and remembered. A lone CR is a line break
(as the compilers read it): rows count it, and the preprocessor turns it into LF for the parser.
UTF-16 and UTF-32 files with a BOM are decoded; such a file is never written back (see `writable`).
Only regular files are read, up to `max-file-size` (`hlsllint.files.read_regular`).
"""

from __future__ import annotations

import bisect
import codecs
import re
from dataclasses import dataclass, field

from hlsllint.files import read_regular

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Files larger than this are not linted (they are almost certainly generated or not shaders): the
default of the `max-file-size` setting."""

_WIDE_BOMS = (
    # UTF-32 first: its little-endian BOM starts with UTF-16's.
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

BOM = "\ufeff"
_LINE_BREAK = re.compile(r"\r\n?|\n")


class SourceError(Exception):
    """A file could not be read as shader source. The message is meant for users."""


@dataclass(frozen=True)
class Location:
    """A 1-based row and a 1-based column counted in code points (ruff's convention)."""

    row: int
    column: int


@dataclass
class SourceFile:
    path: str
    text: str
    had_bom: bool = False
    decode_errors: int = 0
    """Number of bytes that were not valid UTF-8 and were replaced with U+FFFD."""
    first_decode_error: int = 0
    """The offset in `text` of the first of them (HL005 points there)."""
    encoding: str = "utf-8"
    """"utf-8", or "utf-16" / "utf-32" for a file that started with such a BOM (decoded, never
    rewritten)."""
    _line_starts: list[int] = field(default_factory=list, repr=False, compare=False)

    @classmethod
    def from_bytes(cls, path: str, data: bytes) -> SourceFile:
        for bom, encoding in _WIDE_BOMS:
            if data.startswith(bom):
                try:
                    return cls(path=path, text=data.decode(encoding), encoding=encoding)
                except UnicodeDecodeError as e:
                    name = encoding.upper()
                    raise SourceError(f"{name} file that does not decode: save it as UTF-8") from e
        if b"\x00" in data[:8192]:
            raise SourceError("binary file (contains NUL bytes)")
        had_bom = data.startswith(b"\xef\xbb\xbf")
        if had_bom:
            data = data[3:]
        try:
            text = data.decode("utf-8")
            errors = first = 0
        except UnicodeDecodeError as e:
            text = data.decode("utf-8", errors="replace")
            errors = max(1, text.count("\ufffd"))
            first = len(data[: e.start].decode("utf-8"))  # the bytes before it are valid
        return cls(path=path, text=text, had_bom=had_bom, decode_errors=errors, first_decode_error=first)

    @classmethod
    def read(cls, path: str, max_bytes: int = MAX_FILE_BYTES) -> SourceFile:
        """Read a regular file of at most `max_bytes` (0: no limit); anything else (a FIFO, a
        device, a socket, a folder, a larger file) is a `SourceError` naming what it is."""
        try:
            data = read_regular(path, max_bytes, "max-file-size")
        except OSError as e:
            raise SourceError(e.strerror or str(e)) from e
        return cls.from_bytes(path, data)

    @property
    def writable(self) -> bool:
        """Whether fixes may rewrite the file byte-for-byte (not for lossy, UTF-16 or UTF-32 reads)."""
        return not self.decode_errors and self.encoding == "utf-8"

    def to_bytes(self, text: str | None = None) -> bytes:
        body = (self.text if text is None else text).encode("utf-8")
        return b"\xef\xbb\xbf" + body if self.had_bom else body

    # -- offsets ------------------------------------------------------------------------------

    @property
    def line_starts(self) -> list[int]:
        if not self._line_starts:
            starts = [0]
            if "\r" in self.text:
                starts.extend(m.end() for m in _LINE_BREAK.finditer(self.text))
            else:
                find = self.text.find
                i = find("\n")
                while i != -1:
                    starts.append(i + 1)
                    i = find("\n", i + 1)
            self._line_starts = starts
        return self._line_starts

    def location(self, offset: int) -> Location:
        offset = max(0, min(offset, len(self.text)))
        row = bisect.bisect_right(self.line_starts, offset) - 1
        return Location(row + 1, offset - self.line_starts[row] + 1)

    def offset(self, row: int, column: int) -> int:
        """The offset of a 1-based row and column (clamped to the text)."""
        starts = self.line_starts
        row = max(1, min(row, len(starts)))
        return min(starts[row - 1] + column - 1, len(self.text))

    def line(self, row: int) -> str:
        """The text of a 1-based row without its line ending."""
        starts = self.line_starts
        if row < 1 or row > len(starts):
            return ""
        end = starts[row] if row < len(starts) else len(self.text)
        return self.text[starts[row - 1] : end].rstrip("\r\n")

    @property
    def line_count(self) -> int:
        return len(self.line_starts)
