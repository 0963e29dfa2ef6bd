"""`promptlint verify --usage-log`: logged responses grouped per prompt,
with the real cached-token rate and the money lost against the audit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
USAGE = REPO / "tests" / "data" / "usage"
SEED = REPO / "fixtures" / "seed"
TICKET = REPO / "fixtures" / "support-bot" / "good" / "prompts" / "ticket-summary.md"


def run(*args: str):
    return subprocess.run([sys.executable, "-m", "promptlint", "verify", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=300)


def test_usage_log_groups_by_template_and_route_and_prices_the_loss():
    proc = run("--usage-log", str(USAGE / "pairs.jsonl"), str(SEED), str(TICKET), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    groups = {g["name"]: g for g in report["groups"]}
    assert groups["ticket-summary"]["how"] == "template"
    assert groups["order-status"]["how"] == "route"
    assert report["groups"][-1]["how"] == "unmatched"
    assert report["totals"]["requests"] == sum(g["requests"] for g in report["groups"])
    seed = groups["seed.messages"]
    claude = next(m for m in seed["models"] if m["resolved"] == "anthropic/claude-sonnet-4.5")
    # the audit predicts the seed's 1,500 stable tokens cached for Claude; this request read none
    assert claude["predicted_cached_per_request"] == 1500 and claude["cached_tokens"] == 0
    assert claude["lost"] > 0 and claude["actual_cost"] > claude["predicted_cost"]
    assert report["table_date"] in claude["price_source"]
    route = groups["order-status"]["models"][0]
    assert route["predicted_cached_per_request"] is None and route["lost"] is None


def test_usage_log_text_report_names_its_sources():
    proc = run("--usage-log", str(USAGE / "pairs.jsonl"), str(SEED), str(TICKET), "--format", "text")
    assert proc.returncode == 0, proc.stderr
    assert "ticket-summary [template]" in proc.stdout
    assert "Cost formula: actual input cost =" in proc.stdout
    assert "Prices: promptlint provider table" in proc.stdout
    assert "lost against the audit's prediction" in proc.stdout


def test_malformed_usage_lines_are_reported_with_line_numbers_and_the_rest_counted():
    proc = run("--usage-log", str(USAGE / "malformed.jsonl"), "--format", "json")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines and all(":" in line and "malformed.jsonl:" in line for line in lines)
    assert any("malformed.jsonl:2:141: bad JSON" in line for line in lines)
    report = json.loads(proc.stdout)
    assert report["totals"]["requests"] == 2  # lines 1 and 8 still counted


# ------------------------------------------------------------- streaming: compressed, stdin, capped errors


def _report(proc) -> dict:
    """The JSON report, the log's own name left out of the why-missed examples (the only place it shows)."""
    assert proc.returncode == 0, proc.stderr
    return _without_log_name(json.loads(proc.stdout))


def _without_log_name(report: dict) -> dict:
    for group in report["groups"]:
        for cause in group["why_missed"]:
            for example in cause["examples"]:
                example["location"] = example["location"].rpartition(":")[2]
    return report


def test_gzip_zstandard_and_stdin_logs_give_the_plain_log_s_report(tmp_path):
    import gzip

    import zstandard

    data = (USAGE / "pairs.jsonl").read_bytes()
    (tmp_path / "pairs.jsonl.gz").write_bytes(gzip.compress(data))
    (tmp_path / "pairs.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(data))
    args = (str(SEED), str(TICKET), "--format", "json")
    plain = _report(run("--usage-log", str(USAGE / "pairs.jsonl"), *args))
    assert _report(run("--usage-log", str(tmp_path / "pairs.jsonl.gz"), *args)) == plain
    assert _report(run("--usage-log", str(tmp_path / "pairs.jsonl.zst"), *args)) == plain
    piped = subprocess.run([sys.executable, "-m", "promptlint", "verify", "--usage-log", "-", *args], input=data,
                           capture_output=True, cwd=REPO, timeout=300)
    assert piped.returncode == 0 and _without_log_name(json.loads(piped.stdout)) == plain


def test_a_truncated_gzip_log_counts_what_was_read_and_says_where_it_stopped(tmp_path):
    import gzip

    lines = (USAGE / "openai-chat.jsonl").read_bytes().splitlines(keepends=True)
    blob = gzip.compress(b"".join(lines * 200))
    (tmp_path / "cut.jsonl.gz").write_bytes(blob[: len(blob) // 2])
    proc = run("--usage-log", str(tmp_path / "cut.jsonl.gz"), "--format", "json")
    assert proc.returncode == 2
    [error] = proc.stderr.strip().splitlines()
    assert error.startswith(f"{tmp_path / 'cut.jsonl.gz'}:") and "cannot read usage log" in error
    line = int(error.split(":")[1])
    assert 1 < line < len(lines) * 200
    read = json.loads(proc.stdout)["totals"]["requests"]
    assert 0 < read < line  # every whole line before the break, no more


def test_bad_lines_past_the_cap_are_counted_in_one_line(tmp_path):
    good = (USAGE / "openai-chat.jsonl").read_text().splitlines()[0]
    (tmp_path / "bad.jsonl").write_text("\n".join(["{not json"] * 250 + [good]) + "\n")
    proc = run("--usage-log", str(tmp_path / "bad.jsonl"), "--format", "json")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 101 and lines[0].startswith(f"{tmp_path / 'bad.jsonl'}:1:2: bad JSON")
    assert lines[-1] == f"{tmp_path / 'bad.jsonl'}: 150 more bad lines not shown (250 in all; the first 100 are above)"
    assert json.loads(proc.stdout)["totals"]["requests"] == 1


def _to_parquet(jsonl: Path, parquet: Path) -> None:
    """The JSONL log as a warehouse exports it: one row per line, one schema
    for all rows (a field a line lacks is null in its row)."""
    import duckdb

    duckdb.connect().execute(f"COPY (SELECT * FROM read_json_auto('{jsonl}', format='newline_delimited')) "
                             f"TO '{parquet}' (FORMAT parquet)")


def test_a_parquet_log_gives_the_jsonl_log_s_report(tmp_path):
    args = (str(SEED), str(TICKET), "--format", "json")
    for name in ("pairs.jsonl", "anthropic.jsonl", "gemini.jsonl", "openai-responses.jsonl"):
        _to_parquet(USAGE / name, tmp_path / f"{name}.parquet")
        assert _report(run("--usage-log", str(tmp_path / f"{name}.parquet"), *args)) == \
            _report(run("--usage-log", str(USAGE / name), *args)), name


def test_a_bad_parquet_row_is_an_error_with_its_row_number(tmp_path):
    import duckdb

    duckdb.connect().execute(
        "COPY (SELECT * FROM (VALUES ({'prompt_tokens': 10, 'completion_tokens': 1}, 'gpt-4.1'), "
        "({'prompt_tokens': -3, 'completion_tokens': 1}, 'gpt-4.1')) AS t(usage, model)) "
        f"TO '{tmp_path / 'log.parquet'}' (FORMAT parquet)")
    proc = run("--usage-log", str(tmp_path / "log.parquet"), "--format", "json")
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"{tmp_path / 'log.parquet'}:2:1: usage.prompt_tokens must be >= 0, got -3"
    assert json.loads(proc.stdout)["totals"]["requests"] == 1


def test_a_file_that_is_not_parquet_is_one_error(tmp_path):
    (tmp_path / "log.parquet").write_text("not parquet")
    proc = run("--usage-log", str(tmp_path / "log.parquet"), "--format", "json")
    assert proc.returncode == 2
    [error] = proc.stderr.strip().splitlines()
    assert error.startswith(f"{tmp_path / 'log.parquet'}:1:1: cannot read usage log:") and "Parquet" in error


# ------------------------------------------------------------- why a request missed

_RULES = "\n".join(f"{n}. Answer questions about order {n} with the status, the carrier and the expected date, "
                   "and never promise a refund the policy does not allow." for n in range(1, 41))
TEMPLATE = "You are the support assistant of Example Shop.\nFollow the rules below.\nCurrent time: {{ now }}\n" \
           + _RULES + "\n"


def _pair(text: str, created: int, cached: int, question: str = "Where is my order?") -> str:
    request = {"model": "gpt-4.1", "messages": [{"role": "system", "content": text},
                                                {"role": "user", "content": question}]}
    response = {"object": "chat.completion", "model": "gpt-4.1-2025-04-14", "created": created,
                "usage": {"prompt_tokens": 1500, "completion_tokens": 20,
                          "prompt_tokens_details": {"cached_tokens": cached}}}
    return json.dumps({"request": request, "response": response})


def _missed(report: dict, name: str) -> list[dict]:
    [group] = [g for g in report["groups"] if g["name"] == name]
    return group["why_missed"]


def test_a_timestamp_on_line_3_is_named_for_every_missed_request(tmp_path):
    (tmp_path / "assistant.j2").write_text(TEMPLATE)
    lines = [_pair(TEMPLATE.replace("{{ now }}", f"2026-12-05 10:{m:02d}:00"), 1_780_000_000 + 60 * m, 0)
             for m in range(8)]
    (tmp_path / "log.jsonl").write_text("\n".join(lines) + "\n")
    report = _report(run("--usage-log", str(tmp_path / "log.jsonl"), str(tmp_path / "assistant.j2"),
                         "--format", "json"))
    [cause] = _missed(report, "assistant")
    assert cause["kind"] == "slot" and cause["requests"] == 7  # every request but the first
    assert cause["where"] == f"{tmp_path / 'assistant.j2'}:3:15" and cause["label"] == "now ({{ now }})"
    example = cause["examples"][0]
    assert example["location"] == "2" and example["message"] == 0
    assert TEMPLATE.index("{{ now }}") + len("2026-12-05 10:0") == example["offset"]
    assert example["before"].endswith("time: 2026-12-05 10:0") and example["earlier"][0] == "0" \
        and example["now"][0] == "1"
    assert 10 < example["token"] < 1024  # the change comes before the 1,024 tokens gpt-4.1 caches at least
    text = run("--usage-log", str(tmp_path / "log.jsonl"), str(tmp_path / "assistant.j2")).stdout
    assert f"7 x changed by slot now ({{{{ now }}}}) at {tmp_path / 'assistant.j2'}:3:15" in text


def test_a_miss_after_the_cache_ttl_is_explained_by_the_gap(tmp_path):
    text = TEMPLATE.replace("{{ now }}", "today")
    lines = [_pair(text, 1_780_000_000, 0), _pair(text, 1_780_000_060, 1408), _pair(text, 1_780_000_660, 0),
             _pair(text, 1_780_000_700, 0, "Can I change the address?")]
    (tmp_path / "log.jsonl").write_text("\n".join(lines) + "\n")
    report = _report(run("--usage-log", str(tmp_path / "log.jsonl"), "--format", "json"))
    [group] = [g for g in report["groups"] if g["how"] == "unmatched"]
    causes = {c["kind"]: c for c in group["why_missed"]}
    assert causes["ttl"]["requests"] == 1 and causes["ttl"]["examples"][0]["gap_seconds"] == 600
    assert "300 s cache TTL (openai/gpt-4.1)" in causes["ttl"]["label"]
    # 40 s later, a new question after the same 1,400 shared tokens: nothing explains it
    assert causes["unexplained"]["requests"] == 1 and causes["unexplained"]["examples"][0]["message"] == 1
