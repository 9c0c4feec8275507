#!/usr/bin/python3
"""Reference side of Tenure's Leiden comparison (bench/leiden.ts, test/integration/knowledge.leiden.reference.test.ts).

Run with Debian's /usr/bin/python3 (python3-leidenalg, python3-igraph, python3-networkx):

  /usr/bin/python3 scripts/knowledge-leiden-reference.py graph <name> <out.txt> [seed]
      Writes a benchmark graph as an edge list, one "u v weight" line per undirected edge,
      preceded by a "# nodes N" line. Names: karate, lesmis, lfr1k, lfr10k, lfr100k.
      Also writes <out.txt>.truth.json with the planted communities of LFR graphs.

  /usr/bin/python3 scripts/knowledge-leiden-reference.py leiden <edges.txt> [--seed S] [--iterations N] [--repeat R]
      Runs leidenalg.find_partition(G, ModularityVertexPartition, weights, n_iterations=N, seed=S)
      R times and prints one JSON line: membership of the first run, igraph's modularity of it,
      and the wall time of each find_partition call (graph construction excluded).
"""
import json
import sys
import time


def write_edges(path, n, edges):
    with open(path, "w") as f:
        f.write(f"# nodes {n}\n")
        for u, v, w in edges:
            f.write(f"{u} {v} {w:g}\n")


def relabel(g):
    import networkx as nx
    order = sorted(g.nodes(), key=lambda x: (str(type(x)), x))
    index = {node: i for i, node in enumerate(order)}
    return index, [(index[u], index[v], float(d.get("weight", 1.0))) for u, v, d in g.edges(data=True) if u != v]


# LFR parameters, chosen so networkx's generator converges at every size with the same shape:
# degree exponent 2.5, community-size exponent 1.5, mixing 0.3 (communities are clear but not trivial).
LFR = {
    "lfr1k": dict(n=1000, tau1=2.5, tau2=1.5, mu=0.3, average_degree=10, max_degree=50, min_community=20, max_community=100),
    "lfr10k": dict(n=10000, tau1=2.5, tau2=1.5, mu=0.3, average_degree=10, max_degree=100, min_community=20, max_community=500),
    "lfr100k": dict(n=100000, tau1=2.5, tau2=1.5, mu=0.3, average_degree=10, max_degree=200, min_community=50, max_community=2000),
}


def graph(name, out, seed):
    import networkx as nx
    truth = None
    if name == "karate":
        g = nx.karate_club_graph()
        # networkx >= 2.5 stores meeting counts as "weight"; the classic benchmark is unweighted.
        for _, _, d in g.edges(data=True):
            d.pop("weight", None)
    elif name == "lesmis":
        g = nx.les_miserables_graph()  # co-appearance counts as weights
    elif name in LFR:
        params = dict(LFR[name])
        t = time.time()
        g = nx.LFR_benchmark_graph(seed=seed, **params)
        sys.stderr.write(f"generated {name} in {time.time() - t:.1f} s\n")
        truth = {}
    else:
        raise SystemExit(f"unknown graph {name}")
    index, edges = relabel(g)
    write_edges(out, g.number_of_nodes(), edges)
    if truth is not None:
        communities = {frozenset(g.nodes[v]["community"]) for v in g}
        membership = [0] * g.number_of_nodes()
        for c, members in enumerate(sorted(communities, key=lambda s: min(s))):
            for v in members:
                membership[index[v]] = c
        with open(out + ".truth.json", "w") as f:
            json.dump({"params": LFR[name], "seed": seed, "membership": membership}, f)
    print(json.dumps({"name": name, "nodes": g.number_of_nodes(), "edges": len(edges)}))


def read_edges(path):
    n = None
    edges, weights = [], []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                parts = line.split()
                if len(parts) == 3 and parts[1] == "nodes":
                    n = int(parts[2])
                continue
            u, v, w = line.split()
            edges.append((int(u), int(v)))
            weights.append(float(w))
    return n, edges, weights


def leiden(path, seed, iterations, repeat):
    import igraph as ig
    import leidenalg
    n, edges, weights = read_edges(path)
    g = ig.Graph(n=n, edges=edges, directed=False)
    g.es["weight"] = weights
    times = []
    first = None
    for r in range(repeat):
        t = time.perf_counter()
        p = leidenalg.find_partition(g, leidenalg.ModularityVertexPartition, weights="weight", n_iterations=iterations, seed=seed + r)
        times.append((time.perf_counter() - t) * 1000)
        if first is None:
            first = p
    out = {
        "leidenalg": leidenalg.version,
        "igraph": ig.__version__,
        "nodes": n,
        "edges": len(edges),
        "iterations": iterations,
        "seed": seed,
        "ms": times,
        "modularity": g.modularity(first.membership, weights="weight"),
        "communities": len(set(first.membership)),
        "membership": first.membership,
    }
    print(json.dumps(out))


def main(argv):
    if len(argv) >= 3 and argv[1] == "graph":
        graph(argv[2], argv[3], int(argv[4]) if len(argv) > 4 else 42)
    elif len(argv) >= 3 and argv[1] == "leiden":
        args = argv[3:]
        opt = lambda k, d: int(args[args.index(k) + 1]) if k in args else d
        leiden(argv[2], opt("--seed", 42), opt("--iterations", 2), opt("--repeat", 1))
    else:
        print(__doc__)
        raise SystemExit(2)


if __name__ == "__main__":
    main(sys.argv)
