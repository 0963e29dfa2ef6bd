from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from importlib.resources import files
from pathlib import Path

_cache: dict[str, str] = {}


def _load_template(filename: str) -> str:
    # the package's prompt folder, read once and kept: the file is found by the name the call passes
    if filename not in _cache:
        _cache[filename] = Path(files("desktop_agent").joinpath("prompt", filename)).read_text(encoding="utf-8")
    return _cache[filename]


def system_prompt(desktop, max_steps: int) -> str:
    template = _load_template("system.md")
    with ThreadPoolExecutor(max_workers=2) as executor:
        # a future's result is what the submitted function returns: the Windows version, per release
        os_future = executor.submit(desktop.get_windows_version)
        os_version = os_future.result()
    return template.format(datetime=datetime.now().strftime("%A, %B %d, %Y %H:%M:%S"), os=os_version,
                           max_steps=max_steps)
