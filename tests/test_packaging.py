"""A built wheel carries what a plain `pip install .` needs: the provider
table and the rule catalogue (rules/ at the top of the repository ships as
promptlint/catalogue_files), and no torch requirement in the base install."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_ships_the_catalogue_and_the_provider_table(tmp_path):
    # build from a copy: setuptools leaves build/ behind in the tree it builds
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__",
                                                              ".hypothesis", ".pytest_cache", "fixtures"))
    out = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
                   check=True, capture_output=True, timeout=600)
    # the distribution's name is ours: "promptlint" on the package index is another project
    (wheel,) = out.glob("promptlint_cache-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    rules = sorted(p.name for p in (ROOT / "rules").glob("*.toml"))
    assert rules and all(f"promptlint/catalogue_files/{name}" in names for name in rules)
    assert "promptlint/data/providers.toml" in names
    assert "promptlint/commands/diff.py" in names and "promptlint/checks/pl001_volatile_before_stable.py" in names
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "Name: promptlint-cache" in metadata.splitlines()
    assert "promptlint = promptlint.cli:entry" in zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith("entry_points.txt"))).decode()
    base = [l for l in metadata.splitlines() if l.startswith("Requires-Dist:") and "extra ==" not in l]
    assert not any("torch" in l or "transformers" in l for l in base)
    assert any("torch==2.13.0" in l for l in metadata.splitlines() if "extra == \"verify\"" in l)


def test_every_install_command_in_the_docs_names_this_project():
    """No `pip install promptlint` (another project's name on the index): the
    README, the action, CI and the tool's own messages install from the tree
    or as promptlint-cache."""
    import re

    sources = [str(p.relative_to(ROOT)) for p in (ROOT / "promptlint").rglob("*.py")]
    for rel in ("README.md", "action.yml", ".ci/run", "bench/README.md", *sources):
        text = (ROOT / rel).read_text()
        for args in re.findall(r"pip install([^\n`&;|]*)", text):
            names = [a.strip("'\"") for a in args.split()]
            assert not any(re.fullmatch(r"promptlint(\[.*\])?([=<>~!].*)?", n) for n in names), f"{rel}: {args}"


def test_no_requirement_names_the_other_promptlint():
    """A self-reference for an extra (`promptlint[verify]`) must use this
    project's name: `promptlint` on the index would install another project."""
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "promptlint-cache"
    requirements = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra
    names = [re.match(r"[A-Za-z0-9._-]+", r).group(0).lower() for r in requirements]
    assert "promptlint" not in names, requirements
