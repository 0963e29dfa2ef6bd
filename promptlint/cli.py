"""The `promptlint` command. Imports stay light here: each command imports
what it needs when it runs, and nothing on the lint path imports torch or
transformers."""

from __future__ import annotations

import sys

import click

from promptlint import __version__

from promptlint.commands.options import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS  # noqa: F401 - the exit codes


# Commands that leave nothing to clean up when they return (no server, no
# engine, no atexit handler of their own): the process ends without the
# interpreter's teardown, which frees every object one by one (the
# tokenizer's 200,000 ranks alone take about 60 ms).
_NOTHING_AT_EXIT = frozenset({"check", "audit", "fix", "diff", "rules", "explain"})
_QUICK_EXIT = False


def entry() -> None:
    """The console script and `python -m promptlint`: `main`, then, after a
    command of _NOTHING_AT_EXIT, its exit status without the teardown (the
    output is flushed first)."""
    import os

    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code
        if not _QUICK_EXIT or not (code is None or isinstance(code, int)):
            raise
    if not _QUICK_EXIT:
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code or 0)


class _Group(click.Group):
    """Commands that live in their own modules are imported only when run,
    so `promptlint check` never pays for the GitHub client's imports."""

    LAZY = {
        "audit": "promptlint.commands.audit:audit",
        "check": "promptlint.commands.check:check",
        "explain": "promptlint.commands.rules:explain",
        "fix": "promptlint.commands.fix:fix",
        "lock": "promptlint.commands.lock:lock",
        "rules": "promptlint.commands.rules:rules_cmd",
        "comment": "promptlint.commands.comment:comment",
        "diff": "promptlint.commands.diff:diff",
        "speculate": "promptlint.commands.speculate:speculate",
        "verify": "promptlint.commands.verify:verify",
    }

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.LAZY))

    def invoke(self, ctx):
        """An unexpected exception is one line on stderr, exit 2 (CI reads 1 as
        "findings"), with what was being done and a request to report it;
        known secrets are redacted from it as from every other line."""
        global _QUICK_EXIT
        _QUICK_EXIT = ctx.invoked_subcommand in _NOTHING_AT_EXIT
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - the last resort: no traceback reaches the user
            from promptlint.secrets import redact

            what = " ".join(str(exc).split())[:300]
            where = f" while running `promptlint {ctx.invoked_subcommand}`" if ctx.invoked_subcommand else ""
            click.echo(redact(f"promptlint: internal error{where}: {type(exc).__name__}: {what}; please report it "
                              "at https://github.com/promptlint/promptlint/issues"), err=True)
            ctx.exit(EXIT_ERROR)

    def get_command(self, ctx, name):
        if name in self.LAZY and name not in self.commands:
            import importlib

            module, attr = self.LAZY[name].split(":")
            try:
                self.add_command(getattr(importlib.import_module(module), attr), name)
            except ImportError:
                return None
        return super().get_command(ctx, name)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="promptlint")
def main() -> None:
    """Find prompt layouts that throw away the provider's prefix cache, and what they cost."""
    # a string a reader decoded from an escape (`"\\ud800"` in JSON or Python) is
    # not encodable: printed escaped rather than failing the run
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass
    import warnings

    warnings.showwarning = _one_line_warning


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    """A library's warning (ruamel's ReusedAnchorWarning spans ten lines) as
    one line on stderr, its own words joined, once per message."""
    text = " ".join(str(message).split())
    seen = _one_line_warning.__dict__.setdefault("seen", set())
    if text in seen:
        return
    seen.add(text)
    from promptlint.secrets import redact

    click.echo(redact(f"warning: {text} ({category.__name__})"), err=True)


if __name__ == "__main__":  # pragma: no cover
    entry()
