"""Report writers. A report file is written atomically (temporary file, then
rename), so a reader never sees half a report."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from promptlint.fsutil import atomic_write


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
        atomic_write(output, text, errors="backslashreplace")  # a report: a lone surrogate escaped
    else:
        sys.stdout.write(text)
