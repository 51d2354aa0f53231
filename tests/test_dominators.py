"""`ir.immediate_dominators` gives what networkx gives, in networkx's order: value numbering walks
the dominator tree's children in that order, and which values it merges can depend on it."""

from __future__ import annotations

import random

import networkx as nx

from hlsllint.analysis.ir import immediate_dominators


def _random_graph(rng: random.Random) -> tuple[nx.DiGraph, int]:
    n = rng.randint(1, 40)
    g = nx.DiGraph()
    g.add_nodes_from(rng.sample(range(100), n))  # numbers out of order, as a CFG's after passes
    nodes = list(g.nodes)
    for _ in range(rng.randint(0, 3 * n)):  # self-loops, back edges, unreached blocks
        g.add_edge(rng.choice(nodes), rng.choice(nodes))
    return g, rng.choice(nodes)


def test_same_dominators_in_the_same_order_as_networkx() -> None:
    rng = random.Random(24)
    for _ in range(2000):
        g, start = _random_graph(rng)
        expected = nx.immediate_dominators(g, start)
        expected.pop(start, None)  # networkx before 3.5 maps the start to itself
        assert list(immediate_dominators(g._succ, g._pred, start).items()) == list(expected.items())


def test_post_dominators_through_the_reversed_edges() -> None:
    rng = random.Random(31)
    for _ in range(500):
        g, exit_block = _random_graph(rng)
        expected = nx.immediate_dominators(g.reverse(copy=False), exit_block)
        expected.pop(exit_block, None)
        assert list(immediate_dominators(g._pred, g._succ, exit_block).items()) == list(expected.items())


def test_a_loop_and_a_diamond() -> None:
    # 0 -> 1 -> 2 -> 1 (loop), 1 -> 3, 3 -> 4, 3 -> 5, 4 -> 6, 5 -> 6
    g = nx.DiGraph([(0, 1), (1, 2), (2, 1), (1, 3), (3, 4), (3, 5), (4, 6), (5, 6)])
    assert immediate_dominators(g._succ, g._pred, 0) == {1: 0, 2: 1, 3: 1, 4: 3, 5: 3, 6: 3}
