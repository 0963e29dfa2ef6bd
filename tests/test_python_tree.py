"""The Python reader's own walk over libcst trees (tree.walk): the nodes
libcst's visitor would visit, in the same order, at a fraction of its cost;
the character offsets of every node (tree.positions), the positions of
libcst's PositionProvider; and `returns`, which walks statements only."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from promptlint.sources.python.scope import returns
from promptlint.sources.python.tree import _LEXICAL, nodes, positions, walk

ROOT = Path(__file__).resolve().parent.parent
TRICKY = '''\
@decorate(build_prompt())
@other
class Agent(make_base(), metaclass=meta()):
    """Doc."""
    tone = "a" if pick() else choose()

    @staticmethod
    async def run(a, /, b=default(), *args, c=kw(), **kw) -> ret():
        x = [f(y) for y in g() if h(y)]
        z = {k(): v() for k, v in items()}
        w = lambda q=dflt(): body(q)
        call(first(), key=second(), *star(), **double())
        match x:
            case [1, *rest] if guard():
                return rest
        try:
            pass
        except E() as e:
            raise Other() from e
        finally:
            final()
        return f"{left()!r:>{width()}}" + right()
'''


class _Order(cst.CSTVisitor):
    def __init__(self):
        self.seen = []

    def on_visit(self, node):
        self.seen.append(node)
        return True


def _sources():
    yield "tricky", TRICKY
    yield "tricky", "# CRLF and CR line ends\r\nimport os\rx = 1 ; y = f(\\\n  2)\r\nz = 'a' \\\r  'b'\n"
    for path in sorted((ROOT / "fixtures").rglob("*.py")) + sorted((ROOT / "tests" / "data").rglob("*.py")):
        yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")


def _parsed(text: str) -> cst.Module:
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError:
        pytest.skip("not Python libcst parses")


@pytest.mark.parametrize("name,text", list(_sources()), ids=lambda v: v if "/" in str(v) or v == "tricky" else "")
def test_walk_visits_what_libcst_visits_in_its_order(name, text):
    module = _parsed(text)
    oracle = _Order()
    module.visit(oracle)
    entered, left = [], []
    walk(module, entered.append, left.append)
    # everything but whitespace, comments and punctuation (nothing there holds code)
    expected = [n for n in oracle.seen if n is not module and not isinstance(n, _LEXICAL)
                and not any(isinstance(p, _LEXICAL) for p in _parents(module, n))]
    assert [type(n).__name__ for n in entered] == [type(n).__name__ for n in expected]
    assert all(a is b for a, b in zip(entered, expected)) and len(entered) == len(expected)
    assert sorted(map(id, left)) == sorted(map(id, entered))  # every node left once, after its children
    below = list(nodes(module))  # the same nodes from any root (here the module, yielded first)
    assert below[0] is module and len(below) == len(entered) + 1 and all(a is b for a, b in zip(below[1:], entered))


def _parents(module, node):
    if id(module) not in _PARENTS:
        _PARENTS[id(module)] = _parent_map(module)
    return _PARENTS[id(module)].get(id(node), ())


_PARENTS: dict = {}


def _parent_map(module) -> dict:
    out: dict = {}

    class Chain(cst.CSTVisitor):
        def __init__(self):
            self.stack = []

        def on_visit(self, node):
            out[id(node)] = tuple(self.stack)
            self.stack.append(node)
            return True

        def on_leave(self, node):
            self.stack.pop()

    module.visit(Chain())
    return out


def test_returns_are_the_functions_own_in_source_order():
    module = cst.parse_module(TRICKY)
    run = module.body[0].body.body[2]
    assert [type(r.value).__name__ for r in returns(run)] == ["Name", "BinaryOperation"]


@pytest.mark.parametrize("name,text", list(_sources()), ids=lambda v: v if "/" in str(v) or v == "tricky" else "")
def test_positions_are_libcst_positions_as_offsets(name, text):
    from libcst.metadata import MetadataWrapper, PositionProvider

    module = _parsed(text)
    ours = positions(module)
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n" or ch == "\r" and text[i + 1:i + 2] != "\n"]

    def offset(pos):
        return starts[pos.line - 1] + pos.column

    assert set(map(id, ours)) == set(map(id, theirs))
    assert all(ours[node] == (offset(rng.start), offset(rng.end)) for node, rng in theirs.items())
    for statement in module.body[-1:]:
        assert text[slice(*ours[statement])].strip() in module.code_for_node(statement)  # (it owns comments before)
