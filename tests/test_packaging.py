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
    (wheel,) = out.glob("promptlint-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    rules = sorted(p.name for p in (ROOT / "rules").glob("*.toml"))
    assert rules and all(f"promptlint/catalogue_files/{name}" in names for name in rules)
    assert "promptlint/data/providers.toml" in names
    assert "promptlint/commands/diff.py" in names and "promptlint/checks/pl001_volatile_before_stable.py" in names
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    base = [l for l in metadata.splitlines() if l.startswith("Requires-Dist:") and "extra ==" not in l]
    assert not any("torch" in l or "transformers" in l for l in base)
    assert any("torch==2.13.0" in l for l in metadata.splitlines() if "extra == \"verify\"" in l)
