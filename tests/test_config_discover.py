"""Config loading (strict keys, overrides) and file discovery (patterns,
.gitignore, excludes)."""

from pathlib import Path

import pytest

from promptlint import config
from promptlint.discover import Discovery
from promptlint.ir import Volatility


def write(root: Path, rel: str, text: str = "x") -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def test_pyproject_table_found_upward(tmp_path):
    write(tmp_path, "pyproject.toml", '[tool.promptlint]\nproviders = ["openai/gpt-4o"]\n'
                                      '[tool.promptlint.variables]\nnow = "day"\n'
                                      'tone = { volatility = "user", samples = ["warm", "formal"] }\n'
                                      '[tool.promptlint.traffic]\nrequests-per-day = 1000\nusers = 10\n')
    deep = write(tmp_path, "a/b/prompt.j2")
    cfg = config.load(deep)
    assert cfg.path == tmp_path / "pyproject.toml"
    assert cfg.root == tmp_path
    assert cfg.providers == ("openai/gpt-4o",)
    assert cfg.variables == {"now": Volatility.DAY, "tone": Volatility.USER}
    assert cfg.samples == {"tone": ("warm", "formal")}
    assert cfg.traffic.requests_per_day == 1000 and cfg.traffic.users == 10


def test_promptlint_toml_wins_over_pyproject(tmp_path):
    write(tmp_path, "pyproject.toml", '[tool.promptlint]\nproviders = ["openai/gpt-4o"]\n')
    write(tmp_path, "promptlint.toml", 'providers = ["openai/gpt-4.1"]\n')
    assert config.load(tmp_path).providers == ("openai/gpt-4.1",)


@pytest.mark.parametrize("body,key", [
    ('provders = ["x"]\n', "provders"),
    ('[variables]\nnow = "hourly"\n', "variables.now"),
    ('[traffic]\nrequests_per_minute = 3\n', "traffic.requests_per_minute"),
    ('[traffic]\nusers = -1\n', "traffic.users"),
    ('exclude = "a"\n', "exclude"),
])
def test_bad_config_names_file_and_key(tmp_path, body, key):
    write(tmp_path, "promptlint.toml", body)
    with pytest.raises(config.ConfigError) as err:
        config.load(tmp_path)
    assert str(err.value).startswith(f"{tmp_path / 'promptlint.toml'}: {key}:")


def test_discovery_patterns_gitignore_and_excludes(tmp_path):
    write(tmp_path, ".gitignore", "generated/\n*.tmp.j2\n")
    (tmp_path / ".git").mkdir()
    keep = [
        write(tmp_path, "app/system.j2"),
        write(tmp_path, "app/triage.prompty"),
        write(tmp_path, "app/answer.prompt"),
        write(tmp_path, "app/chat.messages.json", "{}"),
        write(tmp_path, "prompts/support.md"),
        write(tmp_path, "prompts/sub/faq.txt"),
    ]
    write(tmp_path, "generated/out.j2")           # .gitignore'd folder
    write(tmp_path, "app/draft.tmp.j2")            # .gitignore'd pattern
    write(tmp_path, "app/notes.txt")               # text outside prompts/ is not a prompt
    write(tmp_path, "app/data.yaml", "a: 1")       # YAML outside prompts/ is not a prompt
    write(tmp_path, "app/partials/footer.j2")      # partials only count through includes
    write(tmp_path, "node_modules/x/y.j2")
    write(tmp_path, "legacy/old.j2")
    found = Discovery(tmp_path, exclude=("legacy/",)).find([tmp_path])
    assert sorted(c.path for c in found) == sorted(p.resolve() for p in keep)
    assert all(not c.explicit for c in found)


def test_explicit_files_are_read_unless_excluded_or_not_prompts(tmp_path):
    a = write(tmp_path, "system.txt")
    b = write(tmp_path, "legacy/old.j2")
    c = write(tmp_path, "notes.txt")  # pre-commit passes every text file: one that is not a prompt is skipped
    discovery = Discovery(tmp_path, exclude=("legacy/",))
    found = discovery.find([a, b, c])
    assert [f.path for f in found] == [a]
    assert found[0].explicit and found[0].format == "text"
    assert [(s.path, s.reason) for s in discovery.skipped] == [
        (b, "excluded by config"),
        (c, "text that does not read as a prompt (no placeholders and instructions together)")]


def test_chinese_instructions_read_as_a_prompt_and_a_chinese_ui_message_does_not():
    from promptlint.sniff import directive_score

    assert directive_score("你是一名客服助手。请根据参考资料回答用户的问题，不要编造，请返回JSON格式。") >= 3
    assert directive_score("请输入用户名和密码后再登录，密码至少八位。") < 3
    assert directive_score("You are a helpful assistant. Do not guess. Answer the question.") == 4  # unchanged
