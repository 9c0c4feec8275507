/// <reference lib="dom" />
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import type { HistoryEntry } from '../core/episodic/history.js';
import type { Quotation } from '../core/knowledge/quotes.js';
import type { WhyItem } from '../core/knowledge/why.js';
import { EDGE_TIERS, actionButton, applyTierPalette, clear, h, icon, onMessage, post, siteLink, tierChip, urlLink, vscode } from './common.js';
import type { MemoryPart, PanelState, WhyView } from './protocol.js';
import { answerOf, conclusionWords, sharedRationales } from './whyModel.js';

/*
 * "Why is this?": the composed answer for one symbol. Four sections, one per
 * memory, each labelled with the memory that produced it and the tiers it
 * rests on; every document, quotation, call site and episode is a link.
 */

const root = document.getElementById('root')!;
let state: PanelState = vscode.getState() ?? {};

const MEMORY_INFO = {
  knowledge: { icon: 'book', title: 'Why it is this way', memory: 'knowledge memory', trust: 'link tiers: exact › strong › weak › unresolved' },
  episodic: { icon: 'history', title: 'What happened before', memory: 'episodic memory', trust: 'outcomes: high confidence, from the build system; conclusions: low, decaying' },
  procedural: { icon: 'checklist', title: 'Rules that apply here', memory: 'procedural memory', trust: 'standing: promoted › proposed › candidate' },
  structural: { icon: 'type-hierarchy', title: 'What a change breaks', memory: 'structural memory', trust: 'edge tiers: resolved › observed › inferred › ambiguous › dynamic' },
} as const;

function section(kind: keyof typeof MEMORY_INFO, part: MemoryPart<unknown>, body: () => Node[]): HTMLElement {
  const info = MEMORY_INFO[kind];
  const s = h('section', { class: `memory memory-${kind} status-${part.status}`, id: `memory-${kind}`, 'aria-labelledby': `h-${kind}`, 'data-status': part.status });
  s.appendChild(
    h(
      'h2',
      { id: `h-${kind}` },
      icon(info.icon),
      ' ',
      info.title,
      ' ',
      h('span', { class: 'memory-label', title: info.trust }, `— ${info.memory}`),
    ),
  );
  s.appendChild(h('div', { class: 'trust' }, info.trust));
  if (part.status === 'unavailable') {
    s.appendChild(h('div', { class: 'notice error', role: 'note' }, icon('error'), ` This memory could not answer: ${part.hint ?? 'unknown error'}`));
    return s;
  }
  const nodes = part.data ? body() : [];
  if (part.status === 'empty' || !nodes.length) {
    s.appendChild(h('div', { class: 'notice empty-memory', role: 'note' }, icon('info'), ' ', part.hint ?? 'Nothing recorded here yet.'));
    if (kind === 'knowledge') s.appendChild(h('div', { class: 'actions' }, actionButton('Index Knowledge', 'book', () => post({ type: 'runCommand', command: 'tenure.indexKnowledge' }), true)));
    if (kind === 'episodic') s.appendChild(h('div', { class: 'actions' }, actionButton('Import Episodes…', 'history', () => post({ type: 'runCommand', command: 'tenure.importEpisodes' }), true)));
  }
  for (const n of nodes) s.appendChild(n);
  return s;
}

function quoteBlock(q: Quotation): HTMLElement {
  const where = q.document.path && q.line ? siteLink(q.document.path, q.line, undefined, `${q.document.ref ?? q.document.path}:${q.line}`) : q.url ? urlLink(q.url, q.document.ref ?? q.url) : h('span', {}, q.document.ref ?? q.document.title);
  return h('blockquote', { class: 'excerpt' }, h('span', { class: 'quote' }, `“${q.quote}”`), ' — ', where, q.author ? ` (${q.author})` : '');
}

function documentLink(item: WhyItem): HTMLElement {
  const d = item.document;
  const label = d.ref && !d.title.startsWith(d.ref) ? `${d.ref}: ${d.title}` : d.title;
  if (d.path) return siteLink(d.path, item.excerpts[0]?.line ?? 1, undefined, label);
  if (d.url) return urlLink(d.url, label);
  return h('span', {}, label);
}

function knowledgeBody(view: WhyView): Node[] {
  const r = view.knowledge.data;
  if (!r || (!r.items.length && !r.constraints.length)) return [];
  const answer = answerOf(r);
  const out: Node[] = [h('p', { class: 'summary' }, r.summary)];
  const list = h('ul', { class: 'why-items' });
  for (const item of r.items) {
    // The answer's quote is already at the top: not again here.
    const excerpts = item.excerpts.filter((q) => !(answer && q.quote === answer.quote.quote && q.document.path === answer.quote.document.path));
    list.appendChild(
      h(
        'li',
        { class: `why-item category-${item.category}`, 'data-category': item.category, 'data-tier': item.tier },
        h(
          'div',
          { class: 'item-head' },
          h('span', { class: 'category' }, icon(item.category === 'incident' ? 'flame' : item.category === 'decision' ? 'law' : item.category === 'commit' ? 'git-commit' : 'comment-discussion'), ` ${item.category}`),
          item.status ? h('span', { class: 'record-status' }, ` (${item.status})`) : null,
          ' ',
          documentLink(item),
          ' ',
          tierChip(item.tier, 'link'),
          item.about ? h('span', { class: 'via' }, ` about ${item.about.qname}`) : null,
          item.hops === 2 && item.via ? h('span', { class: 'via' }, ` reached through ${item.via}`) : null,
        ),
        excerpts.length ? h('details', { class: 'evidence-fold' }, h('summary', {}, excerpts.length === 1 ? 'quoted passage' : `${excerpts.length} quoted passages`), ...excerpts.slice(0, 3).map(quoteBlock)) : null,
      ),
    );
  }
  out.push(list);
  // How each document is tied to the symbol: each rationale once, with the documents it ties.
  const rationales = sharedRationales(r.items);
  if (rationales.length) {
    const ul = h('ul', { class: 'rationales' });
    for (const x of rationales) ul.appendChild(h('li', {}, x.text, h('span', { class: 'via' }, ` — ${x.documents.join(', ')}`)));
    out.push(h('details', { class: 'evidence-fold', id: 'rationales' }, h('summary', {}, `How these documents are tied to ${r.target.name} (${rationales.length === 1 ? 'one link' : `${rationales.length} links`})`), ul));
  }
  if (r.constraints.length) {
    out.push(h('h3', {}, icon('lock'), ' Constraints around it'));
    const ul = h('ul', { class: 'constraints' });
    for (const c of r.constraints) {
      ul.appendChild(
        h(
          'li',
          { class: 'constraint', 'data-tier': c.tier },
          h('div', { class: 'item-head' }, h('strong', {}, c.name), ' ', tierChip(c.tier, 'link'), h('span', { class: 'via' }, ` via ${c.via.join(', ')}`)),
          c.sources.length ? h('details', { class: 'evidence-fold' }, h('summary', {}, 'quoted passage'), ...c.sources.slice(0, 1).map(quoteBlock)) : null,
        ),
      );
    }
    out.push(ul);
  }
  out.push(h('p', { class: 'fineprint' }, 'Quoted text is the team’s words with its source: evidence to weigh, never instructions to follow.'));
  return out;
}

/** The answer first: the recorded reason, quoted, with its source and tier; the memories' evidence below. */
function answerBlock(view: WhyView): HTMLElement {
  const a = answerOf(view.knowledge.data);
  if (!a) {
    return h('section', { class: 'answer answer-none', id: 'answer', 'aria-label': 'The answer' }, h('h2', {}, icon('comment'), ' The reason'), h('p', { class: 'empty' }, view.knowledge.hint ?? `No recorded reason names ${view.target.qname}. What is known is below, by memory.`));
  }
  return h(
    'section',
    { class: 'answer', id: 'answer', 'aria-label': 'The answer' },
    h('h2', {}, icon('comment'), ' The reason', ' ', h('span', { class: 'memory-label' }, `— ${a.category}${a.status ? ` (${a.status})` : ''}, `), tierChip(a.tier, 'link'), a.about !== view.target.qname ? h('span', { class: 'via' }, ` about ${a.about}`) : null),
    quoteBlock(a.quote),
  );
}

const OUTCOME_ICON: Record<string, string> = { success: 'pass', failure: 'error', rejected: 'circle-slash', cancelled: 'debug-stop', recorded: 'record' };

function episodeItem(e: HistoryEntry): HTMLElement {
  const o = e.outcome;
  const li = h('li', { class: `episode outcome-${o.status}`, 'data-outcome': o.status, 'data-episode': e.episode.id });
  li.appendChild(
    h(
      'div',
      { class: 'item-head' },
      icon(OUTCOME_ICON[o.status] ?? 'circle-outline', o.status),
      ' ',
      h('strong', {}, `${o.kind} ${o.status === 'failure' ? 'FAILED' : o.status === 'rejected' ? 'REJECTED' : o.status}`),
      ` · ${e.episode.age}`,
      e.episode.command ? h('code', { class: 'command' }, ` ${e.episode.command}`) : null,
      h('span', { class: 'chip outcome-confidence', title: 'Decided by the build system, a test report, CI or a reviewer: it never decays.' }, ` outcome: ${o.source}, high confidence`),
    ),
  );
  li.appendChild(h('div', { class: 'detail' }, `#${e.episode.id} — touched ${e.link.relation === 'self' ? 'the symbol itself' : `${e.link.relation} ${e.link.qname ?? e.link.path}${e.link.edgeTier ? ` (${e.link.edgeTier} edge)` : ''}`}${e.episode.intent ? ` · intent: ${e.episode.intent}` : ''}`));
  // The build system's own words, folded under the outcome.
  if (o.evidence || o.failingTests.length) {
    li.appendChild(
      h(
        'details',
        { class: 'evidence-fold' },
        h('summary', {}, o.failingTests.length ? `evidence: ${o.failingTests.length} failing test${o.failingTests.length === 1 ? '' : 's'}` : 'evidence'),
        o.evidence ? h('pre', { class: 'evidence' }, o.evidence) : null,
        ...o.failingTests.slice(0, 5).map((t) => h('div', { class: 'failing-test' }, icon('error'), ` ${t.suite ? `${t.suite} › ` : ''}${t.name}${t.message ? ` — ${t.message.split('\n')[0]}` : ''}`)),
      ),
    );
  }
  for (const c of e.conclusions) {
    li.appendChild(h('div', { class: `conclusion author-${c.authorKind}` }, icon('lightbulb'), ` ${conclusionWords(c)}: `, h('q', {}, c.text)));
  }
  if (e.drift.stale) li.appendChild(h('div', { class: 'notice' }, icon('warning'), ' The code it touched has changed a lot since.'));
  return li;
}

function episodicBody(view: WhyView): Node[] {
  const r = view.episodic.data;
  if (!r || !r.entries.length) return [];
  const ul = h('ul', { class: 'episodes' });
  for (const e of r.entries) ul.appendChild(episodeItem(e));
  const out: Node[] = [h('p', { class: 'summary' }, r.summary), ul];
  if (r.archived.length) out.push(h('p', { class: 'fineprint' }, `${r.archived.length} archived lesson(s) about code that has changed since are not shown.`));
  return out;
}

function proceduralBody(view: WhyView): Node[] {
  const rules = view.procedural.data ?? [];
  if (!rules.length) return [];
  const ul = h('ul', { class: 'rules' });
  for (const r of rules) {
    ul.appendChild(
      h('li', { class: `rule status-${r.status}`, 'data-status': r.status }, h('div', { class: 'item-head' }, tierChip(r.status, 'rule', r.meaning), ' ', h('span', {}, r.text)), h('div', { class: 'detail' }, `${r.successes} successes, ${r.failures} failures · matched ${r.matched}${r.always ? ' · applies to every change' : ''}`)),
    );
  }
  return [ul];
}

function structuralBody(view: WhyView): Node[] {
  const r = view.structural.data;
  if (!r) return [];
  const cut = r.summary.search(/[:;]/);
  const head = cut > 0 ? `${r.summary.slice(0, cut)}.` : r.summary;
  const out: Node[] = [h('div', { class: 'lower-bound-banner', role: 'note' }, icon('warning'), ' ', h('strong', {}, 'Lower bound. '), head)];
  const ul = h('ul', { class: 'rows' });
  let shown = 0;
  for (const tier of EDGE_TIERS) {
    for (const d of r.dependents.filter((x) => x.tier === tier).slice(0, 8)) {
      const site = d.sites[0];
      shown++;
      ul.appendChild(h('li', { class: `row tier-${tier}`, 'data-tier': tier }, tierChip(tier), ' ', h('span', { class: 'qname' }, d.symbol.qname), ' ', site ? siteLink(site.path, site.line, site.col) : null));
    }
  }
  for (const d of r.dynamicSites) {
    shown++;
    ul.appendChild(h('li', { class: 'row tier-dynamic', 'data-tier': 'dynamic' }, tierChip('dynamic'), ' ', h('span', { class: 'qname' }, d.owner.qname), ' ', siteLink(d.site.path, d.site.line, d.site.col), ` — ${d.reason}`));
  }
  const fold = h('details', { class: 'evidence-fold' }, h('summary', {}, `${shown} of them, by tier, and the full sentence`), h('p', { class: 'fineprint' }, r.summary), ul);
  out.push(fold);
  out.push(h('div', { class: 'actions' }, actionButton('Open Impact Panel', 'type-hierarchy', () => post({ type: 'showImpact', symbol: r.target.sid }))));
  return out;
}

function render(view: WhyView): void {
  applyTierPalette();
  clear(root);
  const t = view.target;
  root.appendChild(
    h(
      'header',
      { class: 'panel-header' },
      h('h1', {}, icon('question'), ' Why is ', h('code', {}, t.qname), ' this way?'),
      h('div', { class: 'subtitle' }, `${t.kind} · `, siteLink(t.path, t.line), ' · one answer from four memories, each labelled with how far to trust it'),
    ),
  );
  if (view.restricted) {
    root.appendChild(
      h('div', { class: 'notice restricted', role: 'note', id: 'restricted-notice' }, icon('shield'), ' Restricted mode: this workspace is not trusted. Tenure answers from what is already stored and the tree-sitter index; it starts no language server, calls no model on this workspace’s text and writes no instruction file until you trust the folder.'),
    );
  }
  root.appendChild(answerBlock(view));
  const nav = h('nav', { class: 'memory-nav', 'aria-label': 'Memories' });
  for (const k of ['knowledge', 'episodic', 'procedural', 'structural'] as const) {
    const part = view[k];
    const a = h('a', { href: `#memory-${k}`, class: `nav-${part.status}` }, icon(MEMORY_INFO[k].icon), ` ${MEMORY_INFO[k].memory}`, h('span', { class: 'nav-status' }, ` · ${part.status}`));
    nav.appendChild(a);
  }
  root.appendChild(nav);
  root.appendChild(section('knowledge', view.knowledge, () => knowledgeBody(view)));
  root.appendChild(section('episodic', view.episodic, () => episodicBody(view)));
  root.appendChild(section('procedural', view.procedural, () => proceduralBody(view)));
  root.appendChild(section('structural', view.structural, () => structuralBody(view)));
  post({
    type: 'rendered',
    view: 'why',
    stats: {
      documents: view.knowledge.data?.items.length ?? 0,
      constraints: view.knowledge.data?.constraints.length ?? 0,
      episodes: view.episodic.data?.entries.length ?? 0,
      rules: view.procedural.data?.length ?? 0,
      dependents: view.structural.data?.dependents.length ?? 0,
    },
  });
}

// The tiers' colours follow the theme kind (VS Code swaps the body's classes).
new MutationObserver(() => applyTierPalette()).observe(document.body, { attributes: true, attributeFilter: ['class'] });

onMessage((m) => {
  if (m.type === 'loading') {
    clear(root);
    root.appendChild(h('div', { class: 'loading', role: 'status' }, icon('loading codicon-modifier-spin'), ` Asking Tenure’s memories about ${m.symbol}…`));
  } else if (m.type === 'error') {
    clear(root);
    root.appendChild(h('div', { class: 'notice error', role: 'alert' }, icon('error'), ' ', m.message));
  } else if (m.type === 'why') {
    state = { ...state, symbol: m.view.target.sid };
    vscode.setState(state);
    render(m.view);
  }
});
post({ type: 'ready' });
