import type Graph from 'graphology';

/*
 * The Leiden algorithm (V. A. Traag, L. Waltman, N. J. van Eck, "From Louvain
 * to Leiden: guaranteeing well-connected communities", Scientific Reports 9,
 * 5233, 2019) for modularity with a resolution parameter, on a compressed
 * adjacency (CSR) built from a graphology graph. Pure: no I/O.
 *
 * One iteration is the paper's loop: fast local moving of nodes (a queue of
 * nodes whose neighbourhood changed), refinement of each community into
 * well-connected sub-communities (singletons merged, randomised with
 * temperature θ), and aggregation of the refined partition, where each
 * aggregate node starts in the community of the unrefined partition. Levels
 * repeat until the aggregate graph stops shrinking. Like leidenalg (the
 * reference implementation) it runs a fixed number of iterations by default
 * (2), each starting from the previous partition, or until an iteration
 * changes nothing.
 *
 * Quality is modularity with resolution γ, computed on the unnormalised
 * scale (gains in units of edge weight, as in the authors' code), so θ = 0.01
 * means nearly greedy for unit weights:
 *   H = Σ_c [ I_c − γ K_c² / (4m) ]     (I_c: internal weight, K_c: total strength, m: total weight)
 * modularity Q = H / m.
 */

/** Undirected weighted graph in compressed sparse rows. Self-loops are kept apart from the adjacency. */
export interface CsrGraph {
  readonly n: number;
  /** Row i's neighbours are targets[offsets[i]..offsets[i+1]). Each undirected edge appears in both rows. */
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
  readonly weights: Float64Array;
  /** Weight of the self-loop at each node (counted once; it adds twice to the strength). */
  readonly selfLoops: Float64Array;
  /** Weighted degree: Σ incident weights, self-loops twice. Σ strength = 2m. */
  readonly strength: Float64Array;
  /** How many original nodes each node stands for (1 before aggregation). */
  readonly nodeSize: Float64Array;
  /** m: total edge weight, each undirected edge once, self-loops included. */
  readonly totalWeight: number;
}

export interface LeidenOptions {
  /** γ: higher gives more, smaller communities. Default 1 (classic modularity). */
  readonly resolution?: number;
  /** Seed of the pseudo-random generator; the same seed and graph give the same partition. */
  readonly seed?: number;
  /** Iterations of the whole algorithm, each starting from the last partition. ≤ 0: until one changes nothing. Default 2, as leidenalg. */
  readonly iterations?: number;
  /** θ, the randomness of the refinement; 0 merges greedily. Default 0.01, as the paper. */
  readonly randomness?: number;
  /** No community may hold more original nodes than this (0: no limit). */
  readonly maxCommunitySize?: number;
  /** Start from this partition instead of singletons (keeps communities stable across small edits). */
  readonly initialMembership?: ArrayLike<number>;
}

export interface LeidenResult {
  /** Community of each node, numbered 0.. by decreasing size (ties: lowest node first). */
  readonly membership: Int32Array;
  readonly communities: number;
  /** Modularity (at the given resolution) of the result. */
  readonly modularity: number;
  /** Iterations run. */
  readonly iterations: number;
}

const EPS = 1e-12;

// ---------------------------------------------------------------- random numbers

/** sfc32 seeded through splitmix32: fast, good enough for shuffles and sampling, reproducible everywhere. */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** A random permutation of 0..n-1. */
  permutation(n: number): Int32Array {
    const p = new Int32Array(n);
    for (let i = 0; i < n; i++) p[i] = i;
    for (let i = n - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = p[i]!;
      p[i] = p[j]!;
      p[j] = t;
    }
    return p;
  }
}

// ---------------------------------------------------------------- building graphs

/**
 * A CSR graph from edge lists. Edges are undirected; parallel edges (and both
 * directions of one edge) are summed; self-loops are kept as loops.
 */
export function csrFromEdges(n: number, sources: ArrayLike<number>, targets: ArrayLike<number>, weights?: ArrayLike<number>): CsrGraph {
  const count = sources.length;
  const degree = new Int32Array(n + 1);
  const selfLoops = new Float64Array(n);
  for (let e = 0; e < count; e++) {
    const u = sources[e]!;
    const v = targets[e]!;
    if (u < 0 || u >= n || v < 0 || v >= n) throw new RangeError(`edge ${e} (${u}, ${v}) is outside 0..${n - 1}`);
    if (u === v) continue;
    degree[u]!++;
    degree[v]!++;
  }
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i]! + degree[i]!;
  const fill = offsets.slice(0, n);
  const tgt = new Int32Array(offsets[n]!);
  const wgt = new Float64Array(offsets[n]!);
  for (let e = 0; e < count; e++) {
    const u = sources[e]!;
    const v = targets[e]!;
    const w = weights ? weights[e]! : 1;
    if (u === v) {
      selfLoops[u]! += w;
      continue;
    }
    tgt[fill[u]!] = v;
    wgt[fill[u]!++] = w;
    tgt[fill[v]!] = u;
    wgt[fill[v]!++] = w;
  }
  return compact(n, offsets, tgt, wgt, selfLoops, new Float64Array(n).fill(1));
}

/** Sums repeated neighbours within each row and computes strengths and m. */
function compact(n: number, offsets: Int32Array, tgt: Int32Array, wgt: Float64Array, selfLoops: Float64Array, nodeSize: Float64Array): CsrGraph {
  const slot = new Int32Array(n).fill(-1);
  const outOffsets = new Int32Array(n + 1);
  let write = 0;
  for (let i = 0; i < n; i++) {
    const rowStart = write;
    for (let p = offsets[i]!; p < offsets[i + 1]!; p++) {
      const j = tgt[p]!;
      const s = slot[j]!;
      if (s >= rowStart) {
        wgt[s]! += wgt[p]!;
      } else {
        slot[j] = write;
        tgt[write] = j;
        wgt[write] = wgt[p]!;
        write++;
      }
    }
    outOffsets[i + 1] = write;
  }
  const targets = write === tgt.length ? tgt : tgt.slice(0, write);
  const weights = write === wgt.length ? wgt : wgt.slice(0, write);
  const strength = new Float64Array(n);
  let twoM = 0;
  for (let i = 0; i < n; i++) {
    let k = 2 * selfLoops[i]!;
    for (let p = outOffsets[i]!; p < outOffsets[i + 1]!; p++) k += weights[p]!;
    strength[i] = k;
    twoM += k;
  }
  return { n, offsets: outOffsets, targets, weights, selfLoops, strength, nodeSize, totalWeight: twoM / 2 };
}

/**
 * A CSR graph from a graphology graph (directed edges are read as undirected,
 * parallel edges summed). Node i is the i-th key of `graph.nodes()`.
 */
export function csrFromGraphology(graph: Graph, weightAttribute = 'weight'): { csr: CsrGraph; keys: string[] } {
  const keys = graph.nodes();
  const index = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) index.set(keys[i]!, i);
  const size = graph.size;
  const src = new Int32Array(size);
  const dst = new Int32Array(size);
  const w = new Float64Array(size);
  let e = 0;
  graph.forEachEdge((_edge, attrs, source, target) => {
    src[e] = index.get(source)!;
    dst[e] = index.get(target)!;
    const value = (attrs as Record<string, unknown>)[weightAttribute];
    w[e] = typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 1;
    e++;
  });
  return { csr: csrFromEdges(keys.length, src, dst, w), keys };
}

// ---------------------------------------------------------------- quality

/** Modularity of a partition at resolution γ (Newman–Girvan when γ = 1). */
export function modularity(g: CsrGraph, membership: ArrayLike<number>, resolution = 1): number {
  const m = g.totalWeight;
  if (m <= 0) return 0;
  let maxC = 0;
  for (let i = 0; i < g.n; i++) maxC = Math.max(maxC, membership[i]!);
  const internal = new Float64Array(maxC + 1);
  const total = new Float64Array(maxC + 1);
  for (let i = 0; i < g.n; i++) {
    const c = membership[i]!;
    total[c]! += g.strength[i]!;
    internal[c]! += g.selfLoops[i]!;
    for (let p = g.offsets[i]!; p < g.offsets[i + 1]!; p++) if (membership[g.targets[p]!] === c) internal[c]! += g.weights[p]! / 2;
  }
  let q = 0;
  for (let c = 0; c <= maxC; c++) q += internal[c]! / m - resolution * (total[c]! / (2 * m)) ** 2;
  return q;
}

// ---------------------------------------------------------------- the algorithm

/** Community state for one level's graph. Community ids are in [0, n). */
class Partition {
  readonly comm: Int32Array;
  readonly strength: Float64Array;
  readonly size: Float64Array;
  readonly count: Int32Array;
  private readonly empty: Int32Array;
  private emptyTop = 0;

  constructor(
    readonly g: CsrGraph,
    membership: Int32Array,
  ) {
    const n = g.n;
    this.comm = membership;
    this.strength = new Float64Array(n);
    this.size = new Float64Array(n);
    this.count = new Int32Array(n);
    this.empty = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const c = membership[i]!;
      this.strength[c]! += g.strength[i]!;
      this.size[c]! += g.nodeSize[i]!;
      this.count[c]!++;
    }
    for (let c = n - 1; c >= 0; c--) if (this.count[c] === 0) this.empty[this.emptyTop++] = c;
  }

  move(v: number, to: number): void {
    const from = this.comm[v]!;
    if (from === to) return;
    const g = this.g;
    this.strength[from]! -= g.strength[v]!;
    this.size[from]! -= g.nodeSize[v]!;
    if (--this.count[from]! === 0) this.empty[this.emptyTop++] = from;
    if (this.count[to] === 0) this.takeEmpty(to);
    this.strength[to]! += g.strength[v]!;
    this.size[to]! += g.nodeSize[v]!;
    this.count[to]!++;
    this.comm[v] = to;
  }

  /** An unused community id (there is always one while some community holds two nodes). */
  peekEmpty(): number {
    return this.emptyTop > 0 ? this.empty[this.emptyTop - 1]! : -1;
  }

  private takeEmpty(c: number): void {
    // Usually `c` is on top; otherwise find and remove it.
    if (this.empty[this.emptyTop - 1] === c) {
      this.emptyTop--;
      return;
    }
    for (let i = this.emptyTop - 1; i >= 0; i--) {
      if (this.empty[i] === c) {
        this.empty[i] = this.empty[this.emptyTop - 1]!;
        this.emptyTop--;
        return;
      }
    }
  }

  communityCount(): number {
    return this.g.n - this.emptyTop;
  }
}

/** Scratch space for summing a node's edge weight per neighbouring community. */
class Neighbourhood {
  readonly weight: Float64Array;
  readonly touched: Int32Array;
  private readonly seen: Uint8Array;
  length = 0;

  constructor(n: number) {
    this.weight = new Float64Array(n);
    this.touched = new Int32Array(n);
    this.seen = new Uint8Array(n);
  }

  add(c: number, w: number): void {
    if (!this.seen[c]) {
      this.seen[c] = 1;
      this.touched[this.length++] = c;
    }
    this.weight[c]! += w;
  }

  clear(): void {
    for (let i = 0; i < this.length; i++) {
      const c = this.touched[i]!;
      this.weight[c] = 0;
      this.seen[c] = 0;
    }
    this.length = 0;
  }
}

interface Params {
  readonly gamma: number;
  readonly theta: number;
  readonly maxSize: number;
}

/**
 * Fast local moving: visit nodes from a queue (random order first); move each
 * to the neighbouring (or an empty) community with the largest gain; requeue
 * its neighbours outside the new community. Returns whether anything moved.
 */
function moveNodes(p: Partition, rng: Random, params: Params, scratch: Neighbourhood): boolean {
  const g = p.g;
  const n = g.n;
  const twoM = 2 * g.totalWeight;
  if (twoM <= 0 || n === 0) return false;
  const gamma = params.gamma;
  const maxSize = params.maxSize;
  const queue = rng.permutation(n);
  const inQueue = new Uint8Array(n).fill(1);
  let head = 0;
  let queued = n;
  let moved = false;
  const { offsets, targets, weights } = g;
  const comm = p.comm;
  const cStrength = p.strength;
  while (queued > 0) {
    const v = queue[head]!;
    head = head + 1 === n ? 0 : head + 1;
    queued--;
    inQueue[v] = 0;
    const from = comm[v]!;
    const kv = g.strength[v]!;
    const sv = g.nodeSize[v]!;
    scratch.add(from, 0);
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) scratch.add(comm[targets[e]!]!, weights[e]!);
    // Gain of each option relative to v alone, with v taken out of its community.
    const kOverTwoM = (gamma * kv) / twoM;
    const stayStrength = cStrength[from]! - kv;
    let best = from;
    let bestGain = scratch.weight[from]! - kOverTwoM * stayStrength;
    const fromTooBig = maxSize > 0 && p.size[from]! > maxSize;
    if (fromTooBig) bestGain = -Infinity;
    for (let i = 0; i < scratch.length; i++) {
      const c = scratch.touched[i]!;
      if (c === from) continue;
      if (maxSize > 0 && p.size[c]! + sv > maxSize) continue;
      const gain = scratch.weight[c]! - kOverTwoM * cStrength[c]!;
      if (gain > bestGain + EPS) {
        bestGain = gain;
        best = c;
      }
    }
    // An empty community: gain 0 (no edges, no strength).
    if (bestGain < -EPS && p.count[from]! > 1) {
      const e = p.peekEmpty();
      if (e >= 0) {
        best = e;
        bestGain = 0;
      }
    }
    scratch.clear();
    if (best !== from) {
      p.move(v, best);
      moved = true;
      for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
        const u = targets[e]!;
        if (!inQueue[u] && comm[u] !== best) {
          inQueue[u] = 1;
          let tail = head + queued;
          if (tail >= n) tail -= n;
          queue[tail] = u;
          queued++;
        }
      }
    }
  }
  return moved;
}

/**
 * Refinement: within each community of `p`, start from singletons and merge
 * each still-single, well-connected node into a well-connected
 * sub-community, chosen at random with probability ∝ exp(gain / θ) among
 * non-negative gains (greedy when θ = 0). Returns the refined membership,
 * numbered 0..count-1, and the count.
 */
function refine(p: Partition, rng: Random, params: Params, scratch: Neighbourhood): { membership: Int32Array; count: number } {
  const g = p.g;
  const n = g.n;
  const twoM = 2 * g.totalWeight;
  const { gamma, theta, maxSize } = params;
  const { offsets, targets, weights } = g;
  const comm = p.comm;
  const ref = new Int32Array(n);
  const refStrength = new Float64Array(n);
  const refSize = new Float64Array(n);
  const refCount = new Int32Array(n);
  // E(T, C − T): weight from sub-community T to the rest of its community C.
  const external = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    ref[v] = v;
    refStrength[v] = g.strength[v]!;
    refSize[v] = g.nodeSize[v]!;
    refCount[v] = 1;
    let w = 0;
    const c = comm[v]!;
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) if (comm[targets[e]!] === c) w += weights[e]!;
    external[v] = w;
  }
  const order = rng.permutation(n);
  let cand = new Int32Array(16);
  let candGain = new Float64Array(16);
  for (let i = 0; i < n; i++) {
    const v = order[i]!;
    const rv = ref[v]!;
    if (refCount[rv] !== 1) continue;
    const c = comm[v]!;
    const kv = g.strength[v]!;
    const kC = p.strength[c]!;
    // Only nodes well connected to the rest of their community are merged.
    if (external[rv]! < (gamma * kv * (kC - kv)) / twoM - EPS) continue;
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
      const u = targets[e]!;
      if (comm[u] === c) scratch.add(ref[u]!, weights[e]!);
    }
    let nc = 0;
    let maxGain = 0;
    if (cand.length < scratch.length + 1) {
      cand = new Int32Array(2 * (scratch.length + 1));
      candGain = new Float64Array(2 * (scratch.length + 1));
    }
    // Staying alone is an option with gain 0.
    cand[nc] = rv;
    candGain[nc++] = 0;
    for (let k = 0; k < scratch.length; k++) {
      const t = scratch.touched[k]!;
      if (t === rv) continue;
      if (maxSize > 0 && refSize[t]! + g.nodeSize[v]! > maxSize) continue;
      const kT = refStrength[t]!;
      if (external[t]! < (gamma * kT * (kC - kT)) / twoM - EPS) continue;
      const gain = scratch.weight[t]! - (gamma * kv * kT) / twoM;
      if (gain < 0) continue;
      cand[nc] = t;
      candGain[nc++] = gain;
      if (gain > maxGain) maxGain = gain;
    }
    let chosen = rv;
    if (nc > 1) {
      if (theta <= 0) {
        let bestGain = 0;
        for (let k = 1; k < nc; k++) {
          if (candGain[k]! > bestGain + EPS) {
            bestGain = candGain[k]!;
            chosen = cand[k]!;
          }
        }
      } else {
        let total = 0;
        for (let k = 0; k < nc; k++) {
          const pk = Math.exp((candGain[k]! - maxGain) / theta);
          candGain[k] = pk;
          total += pk;
        }
        let r = rng.next() * total;
        chosen = cand[nc - 1]!;
        for (let k = 0; k < nc; k++) {
          r -= candGain[k]!;
          if (r <= 0) {
            chosen = cand[k]!;
            break;
          }
        }
      }
    }
    if (chosen !== rv) {
      const wvT = scratch.weight[chosen]!;
      external[chosen] = external[chosen]! + external[rv]! - 2 * wvT;
      refStrength[chosen]! += kv;
      refSize[chosen]! += g.nodeSize[v]!;
      refCount[chosen]!++;
      refCount[rv] = 0;
      ref[v] = chosen;
    }
    scratch.clear();
  }
  // Renumber 0..count-1 in order of first node.
  const id = new Int32Array(n).fill(-1);
  let count = 0;
  for (let v = 0; v < n; v++) {
    const r = ref[v]!;
    if (id[r] === -1) id[r] = count++;
    ref[v] = id[r]!;
  }
  return { membership: ref, count };
}

/** The graph of communities: node r stands for the nodes in `membership` r; internal edges become self-loops. */
export function aggregate(g: CsrGraph, membership: Int32Array, count: number): CsrGraph {
  const n = g.n;
  // Nodes grouped by community (counting sort).
  const start = new Int32Array(count + 1);
  for (let v = 0; v < n; v++) start[membership[v]! + 1]!++;
  for (let c = 0; c < count; c++) start[c + 1]! += start[c]!;
  const members = new Int32Array(n);
  const fill = start.slice(0, count);
  for (let v = 0; v < n; v++) members[fill[membership[v]!]!++] = v;

  const selfLoops = new Float64Array(count);
  const nodeSize = new Float64Array(count);
  const scratch = new Neighbourhood(count);
  const offsets = new Int32Array(count + 1);
  let tgt = new Int32Array(Math.max(16, Math.min(g.targets.length, count * 8)));
  let wgt = new Float64Array(tgt.length);
  let write = 0;
  for (let c = 0; c < count; c++) {
    let loop = 0;
    let size = 0;
    for (let k = start[c]!; k < start[c + 1]!; k++) {
      const v = members[k]!;
      loop += g.selfLoops[v]!;
      size += g.nodeSize[v]!;
      for (let e = g.offsets[v]!; e < g.offsets[v + 1]!; e++) {
        const d = membership[g.targets[e]!]!;
        if (d === c) loop += g.weights[e]! / 2;
        else scratch.add(d, g.weights[e]!);
      }
    }
    selfLoops[c] = loop;
    nodeSize[c] = size;
    if (write + scratch.length > tgt.length) {
      const cap = Math.max(tgt.length * 2, write + scratch.length);
      const t2 = new Int32Array(cap);
      t2.set(tgt.subarray(0, write));
      tgt = t2;
      const w2 = new Float64Array(cap);
      w2.set(wgt.subarray(0, write));
      wgt = w2;
    }
    for (let i = 0; i < scratch.length; i++) {
      const d = scratch.touched[i]!;
      tgt[write] = d;
      wgt[write++] = scratch.weight[d]!;
    }
    offsets[c + 1] = write;
    scratch.clear();
  }
  const targets = tgt.slice(0, write);
  const weights = wgt.slice(0, write);
  const strength = new Float64Array(count);
  for (let c = 0; c < count; c++) {
    let k = 2 * selfLoops[c]!;
    for (let e = offsets[c]!; e < offsets[c + 1]!; e++) k += weights[e]!;
    strength[c] = k;
  }
  return { n: count, offsets, targets, weights, selfLoops, strength, nodeSize, totalWeight: g.totalWeight };
}

/** Renumbers communities 0.. by decreasing size, ties by lowest member. */
function canonical(membership: Int32Array): { membership: Int32Array; count: number } {
  const n = membership.length;
  const size = new Map<number, number>();
  const first = new Map<number, number>();
  for (let v = 0; v < n; v++) {
    const c = membership[v]!;
    size.set(c, (size.get(c) ?? 0) + 1);
    if (!first.has(c)) first.set(c, v);
  }
  const order = [...size.keys()].sort((a, b) => size.get(b)! - size.get(a)! || first.get(a)! - first.get(b)!);
  const id = new Map(order.map((c, i) => [c, i]));
  const out = new Int32Array(n);
  for (let v = 0; v < n; v++) out[v] = id.get(membership[v]!)!;
  return { membership: out, count: order.length };
}

/** One iteration: move, refine, aggregate, until the aggregate stops shrinking. Mutates `membership`. Returns whether it changed. */
function iterate(g0: CsrGraph, membership: Int32Array, rng: Random, params: Params): boolean {
  const n0 = g0.n;
  const before = membership.slice();
  // nodeOf[i]: the node of the current level's graph that holds original node i.
  const nodeOf = new Int32Array(n0);
  for (let i = 0; i < n0; i++) nodeOf[i] = i;
  let g = g0;
  // Community ids must lie in [0, n) of the level's graph.
  let levelMembership = canonical(membership).membership;
  for (;;) {
    const p = new Partition(g, levelMembership);
    const scratch = new Neighbourhood(g.n);
    moveNodes(p, rng, params, scratch);
    const communities = p.communityCount();
    if (communities === g.n) {
      for (let i = 0; i < n0; i++) membership[i] = p.comm[nodeOf[i]!]!;
      break;
    }
    const refined = refine(p, rng, params, scratch);
    if (refined.count >= g.n) {
      // Refinement merged nothing: the aggregate would be this graph again.
      for (let i = 0; i < n0; i++) membership[i] = p.comm[nodeOf[i]!]!;
      break;
    }
    const next = aggregate(g, refined.membership, refined.count);
    // Each aggregate node starts in its unrefined community.
    const nextMembership = new Int32Array(refined.count);
    for (let v = 0; v < g.n; v++) nextMembership[refined.membership[v]!] = p.comm[v]!;
    for (let i = 0; i < n0; i++) nodeOf[i] = refined.membership[nodeOf[i]!]!;
    g = next;
    levelMembership = canonical(nextMembership).membership;
  }
  for (let i = 0; i < n0; i++) if (membership[i] !== before[i]) return true;
  return false;
}

/** Leiden on a CSR graph. */
export function leidenCsr(g: CsrGraph, options: LeidenOptions = {}): LeidenResult {
  const n = g.n;
  const params: Params = {
    gamma: options.resolution ?? 1,
    theta: options.randomness ?? 0.01,
    maxSize: options.maxCommunitySize ?? 0,
  };
  if (params.gamma < 0 || !Number.isFinite(params.gamma)) throw new RangeError('resolution must be a finite number ≥ 0');
  const rng = new Random(options.seed ?? 0xdeadbeef);
  const membership = new Int32Array(n);
  if (options.initialMembership) {
    if (options.initialMembership.length !== n) throw new RangeError(`initialMembership has ${options.initialMembership.length} entries for ${n} nodes`);
    for (let i = 0; i < n; i++) membership[i] = options.initialMembership[i]!;
    if (params.maxSize > 0) {
      // An initial community over the limit is broken up into singletons.
      const sizes = new Map<number, number>();
      for (let i = 0; i < n; i++) sizes.set(membership[i]!, (sizes.get(membership[i]!) ?? 0) + g.nodeSize[i]!);
      let nextId = Math.max(-1, ...sizes.keys()) + 1;
      for (let i = 0; i < n; i++) if (sizes.get(membership[i]!)! > params.maxSize) membership[i] = nextId++;
    }
  } else {
    for (let i = 0; i < n; i++) membership[i] = i;
  }
  const wanted = options.iterations ?? 2;
  let runs = 0;
  if (n > 0 && g.totalWeight > 0) {
    for (;;) {
      runs++;
      const changed = iterate(g, membership, rng, params);
      if (wanted > 0 ? runs >= wanted : !changed || runs >= 1000) break;
    }
  }
  const result = canonical(membership);
  return { membership: result.membership, communities: result.count, modularity: modularity(g, result.membership, params.gamma), iterations: runs };
}

/** Leiden on a graphology graph: community of each node key. */
export function leiden(graph: Graph, options: LeidenOptions & { weightAttribute?: string } = {}): LeidenResult & { communitiesByNode: Map<string, number> } {
  const { csr, keys } = csrFromGraphology(graph, options.weightAttribute);
  const result = leidenCsr(csr, options);
  return { ...result, communitiesByNode: new Map(keys.map((k, i) => [k, result.membership[i]!])) };
}

// ---------------------------------------------------------------- hierarchy

export interface HierarchicalCommunity {
  /** Unique across levels, assigned in order of creation (level 0 first). */
  readonly id: number;
  readonly level: number;
  /** The community at the level above that this one subdivides, or -1 at level 0. */
  readonly parent: number;
  /** Node indices (into the CSR graph), ascending. */
  readonly nodes: readonly number[];
}

export interface HierarchicalOptions extends LeidenOptions {
  /** Communities larger than this are clustered again, one level down (GraphRAG's max_cluster_size). Default 10. */
  readonly maxClusterSize?: number;
  /** Safety bound on depth. Default 8. */
  readonly maxLevels?: number;
  /**
   * Seed for clustering one community's subgraph, from its nodes. Default:
   * derived from the seed and the node indices. The pipeline derives it from
   * the entities' keys, so an unchanged community is split the same way
   * however the rest of the graph changed.
   */
  readonly subSeed?: (nodes: readonly number[]) => number;
}

/**
 * Hierarchical Leiden as GraphRAG does it (graspologic's hierarchical_leiden):
 * Leiden on the whole graph gives level 0; every community larger than
 * `maxClusterSize` is clustered again on its own induced subgraph, giving its
 * children one level down, recursively. A community that cannot be split
 * (Leiden returns it whole) stays a leaf, whatever its size.
 */
export function hierarchicalLeiden(g: CsrGraph, options: HierarchicalOptions = {}): HierarchicalCommunity[] {
  const maxCluster = options.maxClusterSize ?? 10;
  const maxLevels = options.maxLevels ?? 8;
  const out: HierarchicalCommunity[] = [];
  const top = leidenCsr(g, options);
  const groups: number[][] = Array.from({ length: top.communities }, () => []);
  for (let v = 0; v < g.n; v++) groups[top.membership[v]!]!.push(v);
  let frontier: HierarchicalCommunity[] = [];
  for (const nodes of groups) {
    const c = { id: out.length, level: 0, parent: -1, nodes };
    out.push(c);
    frontier.push(c);
  }
  for (let level = 1; level < maxLevels && frontier.length; level++) {
    const next: HierarchicalCommunity[] = [];
    for (const parent of frontier) {
      if (parent.nodes.length <= maxCluster) continue;
      const sub = induced(g, parent.nodes);
      const seed = options.subSeed ? options.subSeed(parent.nodes) : hashNodes(options.seed ?? 0xdeadbeef, parent.nodes);
      // The warm start covers the whole graph; a subgraph starts from singletons.
      const r = leidenCsr(sub, { resolution: options.resolution ?? 1, randomness: options.randomness ?? 0.01, iterations: options.iterations ?? 2, maxCommunitySize: options.maxCommunitySize ?? 0, seed });
      if (r.communities <= 1) continue;
      const parts: number[][] = Array.from({ length: r.communities }, () => []);
      for (let i = 0; i < sub.n; i++) parts[r.membership[i]!]!.push(parent.nodes[i]!);
      for (const nodes of parts) {
        const c = { id: out.length, level, parent: parent.id, nodes };
        out.push(c);
        next.push(c);
      }
    }
    frontier = next;
  }
  return out;
}

function hashNodes(seed: number, nodes: readonly number[]): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (const n of nodes) h = Math.imul(h ^ n, 0x01000193) >>> 0;
  return h;
}

/** The subgraph induced by `nodes` (ascending), renumbered 0..k-1 in that order. */
export function induced(g: CsrGraph, nodes: readonly number[]): CsrGraph {
  const local = new Map<number, number>();
  nodes.forEach((v, i) => local.set(v, i));
  const src: number[] = [];
  const dst: number[] = [];
  const w: number[] = [];
  nodes.forEach((v, i) => {
    if (g.selfLoops[v]! > 0) {
      src.push(i);
      dst.push(i);
      w.push(g.selfLoops[v]!);
    }
    for (let e = g.offsets[v]!; e < g.offsets[v + 1]!; e++) {
      const j = local.get(g.targets[e]!);
      // Each undirected edge once.
      if (j !== undefined && j > i) {
        src.push(i);
        dst.push(j);
        w.push(g.weights[e]!);
      }
    }
  });
  return csrFromEdges(nodes.length, src, dst, w);
}

/** Whether the nodes of each community induce a connected subgraph; returns the ids of communities that do not. */
export function disconnectedCommunities(g: CsrGraph, membership: ArrayLike<number>): number[] {
  const byComm = new Map<number, number[]>();
  for (let v = 0; v < g.n; v++) {
    const c = membership[v]!;
    let list = byComm.get(c);
    if (!list) byComm.set(c, (list = []));
    list.push(v);
  }
  const bad: number[] = [];
  const seen = new Uint8Array(g.n);
  for (const [c, nodes] of byComm) {
    const stack = [nodes[0]!];
    seen[nodes[0]!] = 1;
    let reached = 1;
    while (stack.length) {
      const v = stack.pop()!;
      for (let e = g.offsets[v]!; e < g.offsets[v + 1]!; e++) {
        const u = g.targets[e]!;
        if (!seen[u] && membership[u] === c) {
          seen[u] = 1;
          reached++;
          stack.push(u);
        }
      }
    }
    if (reached !== nodes.length) bad.push(c);
  }
  return bad;
}
