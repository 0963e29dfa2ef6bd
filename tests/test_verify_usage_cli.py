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
