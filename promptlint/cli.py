"""The `promptlint` command. Imports stay light here: each command imports
what it needs when it runs, and nothing on the lint path imports torch or
transformers."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from promptlint import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Group(click.Group):
    """Commands that live in their own modules are imported only when run,
    so `promptlint check` never pays for the GitHub client's imports."""

    LAZY = {
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


def _prepare(paths, config_path, providers):
    """Group the paths that exist by the config that governs them (found
    upward from each path, unless --config names one) and pick the models.
    Missing paths are reported; a bad config or an unknown model exits 2.
    Returns (groups of (config, models, paths), how many paths were missing)."""
    from promptlint import config as config_mod
    from promptlint.audit import select_models

    from promptlint.stdin_text import exists

    paths = list(paths) or [Path(".")]
    missing = [p for p in paths if not exists(p)]
    for p in missing:
        click.echo(f"{p}:1:1: no such file or directory", err=True)
    groups: dict = {}
    config = None
    try:
        for path in (p for p in paths if exists(p)):
            config = config_mod.load(path, config_path)
            key = config.path or config.root
            if key not in groups:
                groups[key] = (config, select_models(config, tuple(providers) or None), [])
            groups[key][2].append(path)
    except config_mod.ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    except ValueError as exc:  # the model table with the config's overrides: name the file it came from
        where = f"{config.path}: models: " if config is not None and config.path is not None and config.models else ""
        click.echo(f"error: {where}{' '.join(str(exc).split())}", err=True)
        sys.exit(EXIT_ERROR)
    if not groups:  # nothing exists: still a valid (empty) run under the cwd's config
        config = config_mod.load(Path("."), config_path)
        groups[None] = (config, select_models(config, tuple(providers) or None), [])
    return list(groups.values()), len(missing)


def _apply(f, options):
    for option in reversed(options):
        f = option(f)
    return f


def _inputs(f):
    """What to read and how: paths, models, config (every analysing command)."""
    return _apply(f, [
        click.argument("paths", nargs=-1, type=click.Path(path_type=Path)),
        click.option("-p", "--provider", "providers", multiple=True, metavar="MODEL",
                     help="Provider/model to estimate for (repeatable), e.g. openai/gpt-4.1, claude-sonnet-4.5."),
        click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False),
                     help="Config file (default: promptlint.toml or [tool.promptlint] in pyproject.toml, "
                          "found upward)."),
    ])


def _common(f):
    """Options of the reporting commands: the inputs, an output file, --exit-zero."""
    return _apply(_inputs(f), [
        click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False),
                     help="Write the report to a file (atomically) instead of stdout."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings."),
    ])


@main.command(short_help="Tokens, stable prefix, cached tokens and money per prompt.")
@_common
@click.option("--format", "fmt", type=click.Choice(["auto", "text", "json"]), default="auto",
              show_default=True, help="Report format; auto is a rich table in a terminal, plain text otherwise.")
@click.option("-v", "--verbose", is_flag=True,
              help="Show every formula's inputs; say on stderr why each file was read or skipped.")
def audit(paths, providers, config_path, output, exit_zero, fmt, verbose):
    """Audit prompt files: tokens, stable prefix, what each provider caches, and the money."""
    from promptlint.report import write_report

    from promptlint.audit import merge_results

    groups, missing = _prepare(paths, config_path, providers)
    result = merge_results([_run_with_progress(p, c, m, fmt) for c, m, p in groups])
    result.missing = missing
    config = groups[0][0]
    _notes(result.notes, verbose)
    for error in result.errors:
        click.echo(str(error), err=True)
    nothing = _nothing_found(result, paths)
    write_report(result, config, fmt, output, verbose)
    if missing or result.errors or nothing:
        sys.exit(EXIT_ERROR)
    if not exit_zero and any(p.has_breaker for p in result.prompts):
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


@main.command(short_help="Lint prompt files for cache breakers (pre-commit, CI).")
@_common
@click.option("--output-format", "--format", "fmt",
              type=click.Choice(["auto", "concise", "full", "text", "json", "json-lines", "sarif", "github", "gitlab",
                                 "junit"]),
              default="auto", show_default=True,
              help="Output format (--format is an alias): auto is github (workflow commands) inside GitHub "
                   "Actions, else concise, coloured in a terminal; full adds the source line, a caret and the "
                   "fix; json-lines is one finding per line; sarif is SARIF 2.1.0 for code scanning; github also "
                   "appends a job summary to $GITHUB_STEP_SUMMARY; gitlab is GitLab's Code Quality report; junit is "
                   "JUnit XML. text is concise.")
@click.option("--stdin-filename", type=click.Path(path_type=Path, dir_okay=False), metavar="PATH",
              help="With `-` as the path: read the file's text from standard input, reported as PATH (for editors).")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings only, without the summary line.")
@click.option("--show-info", is_flag=True,
              help="List info findings too (they are always counted; --fail-on info lists them as well).")
@click.option("--show-fixes", is_flag=True,
              help="Mark findings `promptlint fix` can fix ([*] safe, [unsafe fix] with --unsafe-fixes) and count them.")
@click.option("--statistics", "stats", is_flag=True, help="Print the number of findings per rule instead of each.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour the terminal output; auto follows NO_COLOR and FORCE_COLOR, then whether stdout "
                   "is a terminal.")
@click.option("--select", "select", multiple=True, metavar="CODE",
              help="Only these rules (codes or prefixes, repeatable or comma-separated); overrides config.")
@click.option("--ignore", "ignore", multiple=True, metavar="CODE",
              help="Skip these rules (codes or prefixes), on top of config.")
@click.option("--baseline", "baseline_path", type=click.Path(path_type=Path, dir_okay=False), metavar="FILE",
              help="Report only findings not recorded in this baseline (see --write-baseline).")
@click.option("--write-baseline", "write_baseline", type=click.Path(path_type=Path, dir_okay=False), metavar="FILE",
              help="Record today's findings in FILE (by stable fingerprint) and exit 0; later runs with "
                   "--baseline FILE report only new ones.")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), default=None,
              help="Lowest severity that makes the exit code 1 [default: warning, or fail-on in config].")
@click.option("-v", "--verbose", is_flag=True,
              help="Also say on stderr why each file was read or skipped, and what a reader did not follow.")
def check(stdin_filename, **options):
    """Lint prompt files: each finding as path:line:col: PLxxx message, with what it costs."""
    from promptlint import stdin_text

    options["paths"] = _stdin_paths(options["paths"], stdin_filename)
    try:
        _check(**options)
    finally:
        stdin_text.clear()


def _check(paths, providers, config_path, output, exit_zero, fmt, quiet, show_info, show_fixes, stats, color, select,
           ignore, baseline_path, write_baseline, fail_on, verbose):
    from promptlint.checks.base import Severity
    from promptlint.lint import run_check
    from promptlint.report.check_report import write_check_report

    from promptlint.lint import merge_results

    select, ignore = _codes(select), _codes(ignore, "--ignore")
    groups, missing = _prepare(paths, config_path, providers)
    result = merge_results([run_check(p, c, m, select=select or None, ignore=ignore) for c, m, p in groups])
    result.missing = missing
    config = groups[0][0]
    _notes(result.notes, verbose)
    for error in result.errors:
        click.echo(str(error), err=True)
    nothing = _nothing_found(result, paths)
    if write_baseline is not None:
        from promptlint.report import baseline

        n = baseline.write(write_baseline, result.findings)
        click.echo(f"Wrote {n:,} finding{'s' if n != 1 else ''} to {write_baseline}: `promptlint check "
                   f"--baseline {write_baseline}` reports only new ones.")
        sys.exit(EXIT_ERROR if missing or result.errors or nothing else EXIT_CLEAN)
    if baseline_path is not None:
        from promptlint.report import baseline

        try:
            known = baseline.load(baseline_path)
        except baseline.BaselineError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_ERROR)
        result.findings, result.baselined = baseline.new_only(result.findings, known)
    threshold = Severity.parse(fail_on or config.fail_on)
    write_check_report(result, fmt, output, quiet=quiet, stats=stats, color=color,
                       show_info=show_info or threshold.label == "info", show_fixes=show_fixes,
                       fail_on=threshold.label)
    if missing or result.errors or nothing:
        sys.exit(EXIT_ERROR)
    if not exit_zero and any(f.severity >= threshold for f in result.findings):
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


@main.command(short_help="Apply the safe fixes, atomically, re-parsed and re-checked.")
@_inputs
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff of the fixes and write nothing.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that may change what the prompt says.")
@click.option("--select", "select", multiple=True, metavar="CODE", help="Only fix these rules.")
@click.option("--ignore", "ignore", multiple=True, metavar="CODE", help="Do not fix these rules.")
@click.option("--exit-non-zero-on-fix", is_flag=True,
              help="Exit 1 when a fix was applied, even if nothing remains (ruff's flag: CI sees the change).")
def fix(paths, providers, config_path, show_diff, unsafe_fixes, select, ignore, exit_non_zero_on_fix):
    """Apply the safe fixes findings carry; each fix is kept only if the file
    still parses and the finding is gone. Writes are atomic."""
    from promptlint.fixer import run_fix

    groups, missing = _prepare(paths, config_path, providers)
    select, ignore = _codes(select), _codes(ignore, "--ignore")
    results = [run_fix(p, c, m, unsafe=unsafe_fixes, write=not show_diff, select=select or None, ignore=ignore)
               for c, m, p in groups]
    changed = errors = remaining = fixed = 0
    gated: dict[str, int] = {}
    for result in results:
        for key, n in result.gated(unsafe_fixes).items():
            gated[key] = gated.get(key, 0) + n
        for error in result.check.errors:
            click.echo(str(error), err=True)
        errors += len(result.check.errors)
        for f in result.files:
            if f.skipped:
                click.echo(f"{f.display}: left unchanged: {f.skipped}", err=True)
            elif show_diff:
                click.echo(f.diff(), nl=False)
                changed += 1
            else:
                click.echo(f"{f.display}: fixed {len(f.fixed)} ({', '.join(sorted({x.rule for x in f.fixed}))})")
                changed += 1
        for finding in result.unfixable(unsafe_fixes):
            click.echo(f"{finding.path}:{finding.line_col[0]}:{finding.line_col[1]}: {finding.rule} left as is: "
                       f"{result.why_not(finding, unsafe_fixes)}", err=True)
        fixed += result.fixed
        remaining += result.remaining if result.remaining is not None else len(result.check.findings) - result.fixed
    from promptlint.report.words import plural, problems

    trouble = "".join(f"; {p}" for p in problems(errors, missing))
    if gated:  # fixes that exist but this run may not apply: say what enables each
        trouble = " (" + ", ".join(f"{n:,} fixable with {key}" for key, n in sorted(gated.items())) + ")" + trouble
    if show_diff:  # nothing written, nothing re-checked: what is left after is not known yet
        click.echo(f"Would fix {plural(fixed, 'finding')} in {plural(changed, 'file')}; "
                   f"{remaining:,} would not be fixed{trouble}.")
    else:
        click.echo(f"Fixed {plural(fixed, 'finding')} in {plural(changed, 'file')}; {remaining:,} remaining{trouble}.")
    if missing or errors:
        sys.exit(EXIT_ERROR)
    applied = fixed and not show_diff and exit_non_zero_on_fix
    sys.exit(EXIT_FINDINGS if (show_diff and changed) or remaining or applied else EXIT_CLEAN)


def _stdin_paths(paths, stdin_filename):
    """`-` reads the file's text from standard input, reported as --stdin-filename."""
    if Path("-") not in paths:
        if stdin_filename is not None:
            raise click.UsageError("--stdin-filename goes with `-` as the path")
        return paths
    if stdin_filename is None:
        raise click.UsageError("`-` reads standard input: name the file it stands for with --stdin-filename")
    from promptlint.stdin_text import provide

    provide(stdin_filename, sys.stdin.buffer.read())
    return [stdin_filename if p == Path("-") else p for p in paths]


def _nothing_found(result, paths) -> bool:
    """No named path yielded a prompt file: a warning that says how prompt
    files are found. True (exit 2: a run that read nothing checked nothing)
    when the paths are folders; files named one by one that are not prompts
    (pre-commit passes every text file it stages) are skipped, exit 0."""
    if result.files or result.errors:
        return False
    from promptlint.stdin_text import exists

    existing = [Path(p) for p in (paths or [Path(".")]) if exists(Path(p))]
    if not existing:
        return False  # each missing path was reported already
    click.echo(f"warning: no prompt files found in {', '.join(map(str, existing))}: promptlint reads {_FOUND_BY}; "
               "`-v` says why each file was skipped, [tool.promptlint] include adds others", err=True)
    return all(p.is_dir() for p in existing)


_FOUND_BY = ("*.j2, *.jinja, *.prompty, *.prompt, *.prompt.md, *.messages.json/yaml, Python that builds prompts, "
             "and Markdown, text, YAML and JSON that read as prompts (by name, folder or content)")


def _notes(notes: list[str], verbose: bool) -> None:
    """-v: why each file was read or skipped, and what the readers did not follow;
    what was left unanalysed (a limit reached) is said in any case."""
    from promptlint.sources.base import Incomplete

    for note in notes:
        if isinstance(note, Incomplete):
            click.echo(f"info: {note}", err=True)
        elif verbose:
            click.echo(f"note: {note}", err=True)


def _codes(values, option: str = "--select") -> tuple[str, ...]:
    """Rule selectors from the command line; a typo is a usage error (exit 2), never a run of no rule."""
    from promptlint.config import selector_problem

    codes = tuple(c.strip().upper() for v in values for c in v.split(",") if c.strip())
    problems = [p for p in map(selector_problem, codes) if p]
    if problems:
        raise click.BadParameter("; ".join(problems), param_hint=f"'{option}'")
    return codes


@main.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
def rules_cmd(fmt):
    """List the rule catalogue."""
    from promptlint import catalogue
    from promptlint.report.rule_docs import catalogue_json, catalogue_markdown

    rules = catalogue.load()
    if fmt == "markdown":
        click.echo(catalogue_markdown(rules), nl=False)
    elif fmt == "json":
        click.echo(catalogue_json(rules))
    else:
        width = max(len(r.name) for r in rules.values())
        for r in rules.values():
            click.echo(f"{r.id}  {r.name.ljust(width)}  {r.severity.label:<7}  {r.summary}")


@main.command(short_help="Print a rule's documentation.")
@click.argument("code")
@click.option("--all-examples", is_flag=True, help="Show every example, not one flagged and one clean.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Render for a terminal (auto: when stdout is one, following NO_COLOR and FORCE_COLOR); "
                   "plain Markdown otherwise.")
def explain(code, all_examples, color):
    """Print a rule's documentation (by code, e.g. PL001, or name)."""
    from promptlint import catalogue
    from promptlint.report.check_report import color_wanted
    from promptlint.report.rule_docs import rule_markdown

    rule = catalogue.by_code_or_name(code)
    if rule is None:
        click.echo(f"error: no rule {code!r}; see `promptlint rules`", err=True)
        sys.exit(EXIT_ERROR)
    text = rule_markdown(rule, examples=None if all_examples else 1)
    if not color_wanted(color):
        click.echo(text, nl=False)
        return
    from rich.console import Console
    from rich.markdown import Markdown

    Console(force_terminal=True if color == "always" else None, no_color=color == "never").print(Markdown(text))


PROGRESS_MIN_FILES = 25  # below this a run is over before a bar would help


def _run_with_progress(paths, config, models, fmt):
    """A progress bar on stderr for large trees in a terminal (started only
    once the tree turns out to have PROGRESS_MIN_FILES files or more)."""
    from promptlint.audit import run_audit

    if not sys.stderr.isatty() or fmt == "json":
        return run_audit(paths, config, models)
    from rich.console import Console
    from rich.progress import Progress

    bar = Progress(transient=True, console=Console(stderr=True))
    task = None

    def tick(done: int, total: int):
        nonlocal task
        if total < PROGRESS_MIN_FILES:
            return
        if task is None:
            bar.start()
            task = bar.add_task("auditing", total=total)
        bar.update(task, completed=done)

    try:
        return run_audit(paths, config, models, progress=tick)
    finally:
        bar.stop()


if __name__ == "__main__":  # pragma: no cover
    main()
