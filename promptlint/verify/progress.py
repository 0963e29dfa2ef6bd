"""What a long replay says while it runs, on stderr: a rich progress bar
(prompts, requests, prompt tokens a second, time left) in a terminal, one
line per prompt otherwise (CI logs); and the third-party progress bars and
warnings that would interleave with it, silenced."""

from __future__ import annotations

import os
import sys
import time


def quiet_third_parties() -> None:
    """transformers' and huggingface_hub's own bars and advice lines are noise
    in a linter's output (the weights are local; nothing is downloading)."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        from transformers.utils import logging as tf_logging

        tf_logging.set_verbosity_error()
        tf_logging.disable_progress_bar()
    except Exception:  # noqa: BLE001 - an older or absent transformers: nothing to silence
        pass
    try:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    except Exception:  # noqa: BLE001
        pass


class ReplayProgress:
    """`on_request(prompt, result)` for replay(); `close()` when it is done."""

    def __init__(self, groups, stream=None):
        self.stream = stream or sys.stderr
        self.groups = [(name, len(requests)) for name, _, requests in groups]
        self.total = sum(n for _, n in self.groups)
        self.done = self.tokens = 0
        self.prompt_index = 0
        self.current: str | None = None
        self.started = self.prompt_started = time.monotonic()
        self.prompt_tokens = self.prompt_requests = 0
        self.bar = None
        if self.stream.isatty() and self.total:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn("verify {task.description}"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                                console=Console(file=self.stream), transient=True)
            self.task = self.bar.add_task("", total=self.total, rate="")
            self.bar.start()

    def __call__(self, prompt: str, result) -> None:
        if prompt != self.current:
            self._prompt_done()
            self.current, self.prompt_index = prompt, self.prompt_index + 1
            self.prompt_started, self.prompt_tokens, self.prompt_requests = time.monotonic(), 0, 0
        self.done += 1
        self.tokens += result.prompt_tokens
        self.prompt_tokens += result.prompt_tokens
        self.prompt_requests += 1
        if self.bar is not None:
            elapsed = max(time.monotonic() - self.started, 1e-9)
            self.bar.update(self.task, completed=self.done, description=f"{prompt} ({self.prompt_index}/"
                            f"{len(self.groups)} prompts)", rate=f"{self.tokens / elapsed:,.0f} tokens/s")

    def _prompt_done(self) -> None:
        if self.current is None or self.bar is not None:
            return
        seconds = time.monotonic() - self.prompt_started
        self.stream.write(f"verify: prompt {self.prompt_index}/{len(self.groups)} {self.current}: "
                          f"{self.prompt_requests} requests, {self.prompt_tokens:,} prompt tokens, {seconds:.1f} s\n")
        self.stream.flush()

    def close(self) -> None:
        self._prompt_done()
        self.current = None
        if self.bar is not None:
            self.bar.stop()
