"""Files analysed in worker processes (`-j N`): one function applied to
each candidate file, results in the candidates' order, so a report is the
same for any N. Each worker keeps one reader context for all the files it
gets (a module that two files import is read once per worker that needs
it); the tokenizers are loaded before the workers start, and forked
workers inherit them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

PARALLEL_MIN_FILES = 8  # fewer files than this are analysed in this process: a pool costs more than it saves

_WORKER: dict = {}


def map_files(work: Callable, candidates: list, config, models, extra, display_root, jobs: int = 1) -> Iterator:
    """work(candidate, ctx, config, models, extra) for each candidate, in
    order. `work` must be a module-level function (workers look it up by
    reference); `jobs` 0 means one worker per core."""
    from promptlint.audit import source_context

    jobs = jobs or os.cpu_count() or 1
    jobs = min(jobs, len(candidates) // 2)
    if jobs < 2 or len(candidates) < PARALLEL_MIN_FILES:
        ctx = source_context(config, display_root)
        for candidate in candidates:
            yield work(candidate, ctx, config, models, extra)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from promptlint.tokenizers import get_tokenizer

    for model in models:
        try:
            get_tokenizer(model.tokenizer)
        except Exception:  # noqa: BLE001 - each worker meets the same error and reports it where it occurs
            pass
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method), initializer=_start,
                             initargs=(work, config, models, extra, display_root)) as pool:
        yield from pool.map(_run, candidates, chunksize=max(1, len(candidates) // (jobs * 8)))


def _start(work, config, models, extra, display_root) -> None:
    from promptlint.audit import source_context

    _WORKER.update(work=work, ctx=source_context(config, display_root), config=config, models=models, extra=extra)


def _run(candidate):
    w = _WORKER
    return w["work"](candidate, w["ctx"], w["config"], w["models"], w["extra"])
