"""The CFG's graph is a networkx graph as networkx's own methods make it."""

from __future__ import annotations

import networkx as nx

from hlsllint.analysis import build_cfg
from hlsllint.semantic import build_model
from hlsllint.syntax import parse


def test_the_cfg_graph_is_what_networkx_would_build() -> None:
    # `cfg._Lowerer.finish` fills the graph's dictionaries itself: a copy through networkx's own
    # methods has the same blocks, attributes and edges, and an edge's two entries are one
    # attribute dictionary, as `add_edges_from` makes them.
    text = """RWStructuredBuffer<float> o;
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID)
{
    float s = 0;
    [loop] for (uint k = 0; k < i; ++k) {
        if (o[k] > 1) { continue; }
        if (o[k] < 0) { break; }
        s += o[k];
    }
    if (s > 2) { o[i] = s; return; o[i] = 1; }
    o[i] = -s;
}
"""
    model = build_model(parse(text))
    g = build_cfg(model, model.entry_points[0]).graph
    copy = nx.DiGraph()
    copy.add_nodes_from(g.nodes(data=True))
    copy.add_edges_from(g.edges)
    assert list(copy.nodes(data=True)) == list(g.nodes(data=True))
    assert list(copy.edges) == list(g.edges) and len(g.edges) >= 10
    assert all(g.pred[b][a] is g.adj[a][b] for a, b in g.edges)
    assert {b: dict(g.pred[b]) for b in g} == {b: dict(copy.pred[b]) for b in copy}
    assert nx.descendants(g, 0) | {0} == set(g)
