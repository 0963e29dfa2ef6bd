"""Report writers. A report file is written atomically (temporary file, then
rename), so a reader never sees half a report."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path


def atomic_write(path: Path, text: str) -> None:
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent or Path("."), prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_report(result, config, fmt: str, output: Path | None, verbose: bool) -> None:
    from promptlint.report import json_report, text_report

    if fmt == "json":
        text = json.dumps(json_report.build(result, config), indent=2, ensure_ascii=False) + "\n"
    elif output is None and fmt == "auto" and sys.stdout.isatty():
        from rich.console import Console

        text_report.print_rich(result, config, verbose, Console())
        return
    else:
        text = text_report.render_plain(result, config, verbose)
    if output is not None:
        atomic_write(output, text)
    else:
        sys.stdout.write(text)
