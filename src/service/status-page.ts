/**
 * GET / — a page for people, plain HTML and inline SVG: no script, no external resource, so it
 * works with JavaScript off and behind any proxy. Every value is escaped.
 */
import type { RepositoryStatus, StatusSnapshot, VersionNode } from './status.js';

const esc = (s: unknown) =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const SIGNATURE: Record<string, string> = {
  G: 'signed, trusted key',
  U: 'signed, key not trusted',
  B: 'bad signature',
  N: 'not signed',
};

function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${i === 0 ? n : n.toFixed(1)} ${units[i]}`;
}

export function renderStatusPage(s: StatusSnapshot): string {
  const c = s.caches;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>fdl-gateway status</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1em 2em;color:#222}
h1{font-size:1.5em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f4f4f4}code{font-size:.92em}.muted{color:#777}.sig-G{color:#176f2c}.sig-B{color:#b00020;font-weight:bold}.sig-U{color:#a66000}.sig-N{color:#777}
.state{display:inline-block;padding:.1em .6em;border-radius:1em;background:#e8f5e9}.state-draining,.state-starting{background:#fff3e0}
svg text{font:12px system-ui,sans-serif}
</style></head><body>
<h1>fdl-gateway</h1>
<p>State: <span class="state state-${esc(s.state)}" id="state">${esc(s.state)}</span> · ${s.repositories.length} repositories · ${s.sessions.length} sessions · ${s.sessions.filter((x) => x.statementMs !== null).length} running · generated ${esc(s.generatedAt.toISOString())}</p>
${s.repositories.map(repository).join('\n')}
${running(s)}
<h2 id="sessions">Sessions</h2>
${
  s.sessions.length === 0
    ? '<p class="muted">No sessions.</p>'
    : `<table><tr><th>pid</th><th>user</th><th>application</th><th>database</th><th>client</th><th>state</th><th>since</th></tr>
${s.sessions.map((x) => `<tr><td>${x.pid}</td><td>${esc(x.user)}</td><td>${esc(x.applicationName)}</td><td>${esc(x.database)}</td><td>${esc(x.clientAddress)}</td><td>${esc(x.state)}</td><td>${esc(x.startedAt.toISOString())}</td></tr>`).join('\n')}</table>`
}
<h2 id="caches">Caches</h2>
<table><tr><th>cache</th><th>entries</th><th>size</th><th>hits</th><th>misses</th></tr>
<tr><td>files (downloaded data)</td><td>${c.files.entries}</td><td>${bytes(c.files.bytes)} of ${bytes(c.files.maxBytes)}</td><td>${c.files.hits}</td><td>${c.files.misses}</td></tr>
<tr><td>results</td><td>${c.results.entries}</td><td>${c.results.enabled ? bytes(c.results.bytes) : 'off'}</td><td>${c.results.hits}</td><td>${c.results.misses}</td></tr>
<tr><td>attached versions</td><td>${c.versions.attached}</td><td></td><td></td><td></td></tr>
</table>
<p class="muted">Metrics for machines: <a href="/metrics">/metrics</a> · health: <a href="/healthz">/healthz</a>, <a href="/readyz">/readyz</a></p>
</body></html>
`;
}

/** 1.2 s, 3 min 4 s, 2 h 5 min: a running statement's age at a glance. */
export function duration(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.floor(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** Statements running now, longest first (their text is not shown: it may hold other users' literals). */
function running(s: StatusSnapshot): string {
  const now = s.sessions.filter((x) => x.statementMs !== null).sort((a, b) => b.statementMs! - a.statementMs!);
  return `<h2 id="running">Running statements</h2>
${
  now.length === 0
    ? '<p class="muted">No statement is running.</p>'
    : `<table class="running"><tr><th>pid</th><th>user</th><th>application</th><th>database</th><th>running for</th></tr>
${now.map((x) => `<tr><td>${x.pid}</td><td>${esc(x.user)}</td><td>${esc(x.applicationName)}</td><td>${esc(x.database)}</td><td data-ms="${Math.round(x.statementMs!)}">${esc(duration(x.statementMs!))}</td></tr>`).join('\n')}</table>`
}`;
}

function repository(r: RepositoryStatus): string {
  const h = r.head;
  return `<section class="repository" id="repo-${esc(r.name)}">
<h2>${esc(r.name)}${h?.title ? ` — ${esc(h.title)}` : ''}</h2>
${h?.description ? `<p class="description">${esc(h.description)}</p>` : ''}
<p>${h?.license ? `Licence: <span class="license">${esc(h.license)}</span>` : '<span class="muted">No licence given.</span>'}${h?.homepage ? ` · <a href="${esc(safeUrl(h.homepage))}">${esc(h.homepage)}</a>` : ''}${h ? ` · HEAD is version <code>${esc(h.versionId)}</code>` : ''}</p>
${r.error ? `<p class="sig-B">Cannot read this repository now: ${esc(r.error)}</p>` : ''}
<h3>Refs and history</h3>
${graph(r)}
${history(r.history)}
${h ? tables(h) : ''}
</section>`;
}

/** Only http(s) links: a dataset cannot smuggle javascript: into the page. */
function safeUrl(u: string): string {
  return /^https?:\/\//i.test(u) ? u : '#';
}

function history(nodes: VersionNode[]): string {
  if (nodes.length === 0) return '<p class="muted">No versions.</p>';
  return `<table class="history"><tr><th>version</th><th>created</th><th>author</th><th>message</th><th>signature</th><th>hashes cover</th></tr>
${nodes
  .map(
    (v) =>
      `<tr><td><code>${esc(v.id.slice(0, 13))}…</code></td><td>${esc(v.created)}</td><td>${esc(v.author)}</td><td>${esc(v.message)}${v.expired ? ' <span class="sig-U">(expired)</span>' : ''}</td><td class="sig-${esc(v.signature)}">${esc(v.signature)} · ${esc(SIGNATURE[v.signature] ?? '')}${v.signer ? ` (${esc(v.signer)})` : ''}</td><td>${esc(v.hashes)}</td></tr>`,
  )
  .join('\n')}</table>`;
}

/**
 * Versions as dots in time order (newest on top), a line from each to its parents, and the
 * branches and tags that point at them as labels — a small `git log --graph`.
 */
function graph(r: RepositoryStatus): string {
  const nodes = r.history;
  if (nodes.length === 0) return '';
  const row = new Map(nodes.map((v, i) => [v.id, i]));
  // A lane per line of descent: a version takes the lane of its first child, or a new one.
  const lane = new Map<string, number>();
  let lanes = 0;
  for (const v of nodes) {
    if (!lane.has(v.id)) lane.set(v.id, lanes++);
    const p = v.parents[0];
    if (p !== undefined && row.has(p) && !lane.has(p)) lane.set(p, lane.get(v.id)!);
    for (const q of v.parents.slice(1)) if (row.has(q) && !lane.has(q)) lane.set(q, lanes++);
  }
  const x = (id: string) => 16 + lane.get(id)! * 18;
  const y = (id: string) => 16 + row.get(id)! * 24;
  const textX = 16 + lanes * 18 + 8;
  const labels = new Map<string, string[]>();
  for (const ref of r.refs)
    labels.set(ref.versionId, [...(labels.get(ref.versionId) ?? []), `${ref.kind === 'tag' ? '🏷 ' : ''}${ref.name}`]);
  const parts: string[] = [];
  for (const v of nodes) {
    for (const p of v.parents)
      if (row.has(p))
        parts.push(`<line x1="${x(v.id)}" y1="${y(v.id)}" x2="${x(p)}" y2="${y(p)}" stroke="#888" stroke-width="2"/>`);
  }
  for (const v of nodes) {
    const color =
      v.signature === 'G' ? '#176f2c' : v.signature === 'B' ? '#b00020' : v.signature === 'U' ? '#a66000' : '#999';
    parts.push(`<circle cx="${x(v.id)}" cy="${y(v.id)}" r="6" fill="${color}"><title>${esc(v.id)}</title></circle>`);
    const refs = labels.get(v.id) ?? [];
    const text = `${refs.length ? `[${refs.join(', ')}] ` : ''}${v.message ?? ''}`;
    parts.push(
      `<text x="${textX}" y="${y(v.id) + 4}"${refs.length ? ' font-weight="bold"' : ''}>${esc(text.length > 110 ? `${text.slice(0, 110)}…` : text)}</text>`,
    );
  }
  const h = 16 + nodes.length * 24;
  return `<svg class="graph" role="img" aria-label="version graph of ${esc(r.name)}" width="900" height="${h}" viewBox="0 0 900 ${h}">${parts.join('')}</svg>
<p class="refs">${r.refs.map((ref) => `<span class="ref ref-${esc(ref.kind)}">${esc(ref.name)}</span> → <code>${esc(ref.versionId.slice(0, 13))}…</code>`).join(' · ')}</p>`;
}

function tables(h: NonNullable<RepositoryStatus['head']>): string {
  if (h.tables.length === 0) return '<p class="muted">No tables.</p>';
  return `<h3>Tables at HEAD</h3>
${h.tables
  .map(
    (
      t,
    ) => `<details class="table" open><summary><code>${esc(t.schema)}.${esc(t.name)}</code>${t.description ? ` — ${esc(t.description)}` : ''}</summary>
<table><tr><th>column</th><th>type</th><th>description</th></tr>
${t.columns.map((c) => `<tr><td><code>${esc(c.name)}</code></td><td>${esc(c.type)}</td><td>${esc(c.description)}</td></tr>`).join('\n')}</table></details>`,
  )
  .join('\n')}`;
}
