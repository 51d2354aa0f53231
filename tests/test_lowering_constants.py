"""What lowering folds costs each expression once: operands asked again under an inlined copy's
constant arguments, and a local's uses, are answered from memos, with the answers folding them
afresh gives."""

from __future__ import annotations

from hlsllint.analysis import build_cfg
from hlsllint.semantic import build_model
from hlsllint.semantic.constants import FoldMemo
from hlsllint.syntax import parse

_HEAD = "RWStructuredBuffer<float> o;\n"
_MAIN = "[numthreads(64, 1, 1)]\nvoid main(uint i : SV_DispatchThreadID)\n"


def test_an_inlined_copy_folds_each_operand_once() -> None:
    # `((o[i] + k) + k) + ...`: lowering asks every level whether it is a constant, and under the
    # copy's binding of `k` each question folded the whole chain below it again (1,325 folds for
    # 50 levels); with the copy's memo, a few per level.
    n = 50
    chain = "o[0]" + " + k" * n
    text = f"{_HEAD}float f(int k) {{ return {chain}; }}\n{_MAIN}{{ o[i] = f(3) + f(3) * f(4); }}\n"
    model = build_model(parse(text))
    before = model.folds
    cfg = build_cfg(model, model.entry_points[0])
    assert model.folds - before <= 6 * n
    assert not cfg.truncated and sum(1 for ins in cfg.all_instrs() if ins.op == "alu") >= n


def test_a_chain_of_locals_under_bindings_has_the_answers_of_a_fresh_fold() -> None:
    # 100 locals, each twice the one before, from a parameter bound to 1: within 64 levels (two
    # per local) the value, past them unknown, asked in order and in reverse, with one memo for
    # the bindings.
    n = 100
    body = "".join(f"    float a{k} = a{k - 1} * 2;\n" for k in range(1, n))
    helper = f"float f(int k)\n{{\n    float a0 = k;\n{body}    return a{n - 1};\n}}\n"
    text = f"{_HEAD}{helper}{_MAIN}{{ o[i] = f(1); }}\n"
    model = build_model(parse(text))
    tree = model.tree
    inits = [n for n in tree.nodes_of_type("binary_expression") if tree.node_text(n).endswith(" * 2")]
    assert len(inits) == n - 1
    k = model.functions["f"][0].params[0]
    bindings: dict[int, int | float | bool] = {id(k): 1}
    fresh = [model.const_value_with(node, bindings) for node in inits]
    assert fresh[:32] == [2**j for j in range(1, 33)] and set(fresh[32:]) == {None}
    memo = FoldMemo()
    before = model.folds
    assert [model.const_value_with(node, bindings, memo) for node in inits] == fresh
    assert model.folds - before <= 4 * n
    backwards = FoldMemo()
    assert [model.const_value_with(node, bindings, backwards) for node in reversed(inits)] == fresh[::-1]


def test_whether_a_local_is_written_is_asked_of_its_uses_once() -> None:
    # Every use of `a` folded asks whether `a` is ever written, which walked all of its uses:
    # 200 uses, 200 walks of 200 uses each.
    n = 200
    sum_ = " + ".join(["a * o[i]"] * n)
    text = f"{_HEAD}float f(int k) {{ float a = 2; return {sum_} + k; }}\n{_MAIN}{{ o[i] = f(1); }}\n"
    model = build_model(parse(text))
    before = model.use_walks
    cfg = build_cfg(model, model.entry_points[0])
    assert model.use_walks - before <= 2
    assert not cfg.truncated
