import { SourceIndex, type SourceSymbol } from '../bytecode/sourceIndex.js';
import type { SymbolKind } from '../../../model/structural.js';
import { LANGUAGES } from '../../inventory/languages.js';
import { insertRows } from '../../../store/bulk.js';
import type { Db } from '../../../store/db.js';

/*
 * Reads and writes the artifact tables (schema.ts beside this file): artifact file
 * rows, the symbols only an artifact shows (generated code, service
 * endpoints), DI wiring and trace observations. Artifact rows and their
 * symbols take negative ids (see the schema for why).
 */

export type ArtifactKind = 'bytecode' | 'beans' | 'traces';

/** An artifact to import: the files row it gets and what the artifacts row says of it. */
export interface ArtifactSpec {
  /** The `files.path` of the row: workspace-relative for files inside the workspace, else an absolute path or URL. */
  readonly path: string;
  /** `files.language`: jvm-class, jvm-jar, spring-beans, spring-aot, traces. */
  readonly language: string;
  readonly kind: ArtifactKind;
  readonly format: string;
  readonly location: string;
  readonly hash: string | null;
  readonly size: number;
  readonly mtimeMs: number;
  readonly capturedAt?: number | null;
  readonly profile?: string | null;
  readonly summary?: unknown;
}

/** An artifact as stored: what it was imported as, its row id, and when. */
export interface ArtifactRow extends ArtifactSpec {
  readonly fileId: number;
  readonly importedAt: number;
  readonly capturedAt: number | null;
  readonly profile: string | null;
  readonly summary: unknown;
}

/** A symbol only an artifact shows (generated code, a service endpoint), as its reader found it. */
export interface ArtifactSymbol {
  readonly sid: string;
  readonly name: string;
  readonly qname: string;
  readonly kind: SymbolKind;
  /** Sid of the parent: a source symbol or another symbol of the same artifact. */
  readonly parentSid: string | null;
  /** The source symbol it is derived from, where that can be told (the field of an accessor, the interface method a mapper implements). */
  readonly derivedFrom: string | null;
  /** Line in its own (generated) source; 0 when unknown. */
  readonly line: number;
}

/** An artifact symbol to store: what produced it and which artifact row owns it. */
export interface NewSymbol extends ArtifactSymbol {
  readonly origin: string;
  /** Which artifact row owns it (an index into the batch's artifacts, or a file id). */
  readonly fileId: number;
}

export interface WiringRow {
  readonly consumerType: string;
  readonly consumerBean: string | null;
  readonly injection: string | null;
  readonly declaredType: string;
  readonly bean: string;
  readonly beanType: string;
  readonly candidates: number;
  readonly why: string;
  readonly tier: 'observed' | 'resolved';
}

export interface ObservationRow {
  readonly srcSid: string;
  readonly dstSid: string;
  readonly kind: string;
  readonly via: string;
  readonly services: string;
  readonly firstSeen: number;
  readonly lastSeen: number;
  readonly count: number;
  readonly traceIds: readonly string[];
  readonly reason: string;
}

const SOURCE_LANGUAGES = JSON.stringify(LANGUAGES.map((l) => l.id));

export class ArtifactStore {
  constructor(private readonly db: Db) {}

  /** The source symbols of the inventory (not those artifacts added), for linking artifacts to source. */
  async sourceIndex(languages?: readonly string[], options: { withArtifacts?: boolean } = {}): Promise<SourceIndex> {
    const rows = await this.db.all<{
      sid: string; name: string; qname: string; kind: SymbolKind; path: string; line: number; col: number; end_line: number; psid: string | null; language: string; package: string | null;
    }>(
      `SELECT s.sid, s.name, s.qname, s.kind, f.path, s.line, s.col, s.end_line, p.sid AS psid, f.language, f.package
         FROM symbols s JOIN files f ON f.id = s.file_id LEFT JOIN symbols p ON p.id = s.parent_id
         WHERE (s.origin IS NULL AND f.language IN (SELECT value FROM json_each(?))) OR (? AND s.origin IS NOT NULL)`,
      [languages ? JSON.stringify(languages) : SOURCE_LANGUAGES, options.withArtifacts ? 1 : 0],
    );
    return new SourceIndex(
      rows.map(
        (r): SourceSymbol => ({
          sid: r.sid, name: r.name, qname: r.qname, kind: r.kind, path: r.path, line: r.line, col: r.col, endLine: r.end_line, parentSid: r.psid, language: r.language, filePackage: r.package,
        }),
      ),
    );
  }

  /** Type → its direct supertypes (qualified names), as the inventory and resolvers proved them. */
  async inheritance(): Promise<Map<string, string[]>> {
    const rows = await this.db.all<{ sub: string; sup: string }>(
      `SELECT s.qname AS sub, d.qname AS sup FROM edges e JOIN symbols s ON s.id = e.src_id JOIN symbols d ON d.id = e.dst_id
         WHERE e.kind IN ('extends', 'implements') AND e.tier != 'ambiguous'
       UNION
       SELECT s.qname, d.qname FROM implementations i JOIN symbols s ON s.id = i.impl_id JOIN symbols d ON d.id = i.base_id
         WHERE s.kind IN ('class', 'interface', 'enum', 'type') AND i.wired_by IS NULL`,
    );
    const out = new Map<string, string[]>();
    for (const r of rows) out.set(r.sub, [...(out.get(r.sub) ?? []), r.sup]);
    return out;
  }

  /** Source files (path → mtime), to tell class files older than their source. */
  async sourceFiles(language: string): Promise<Map<string, { mtimeMs: number; hash: string | null }>> {
    const rows = await this.db.all<{ path: string; mtime_ms: number; hash: string | null }>('SELECT path, mtime_ms, hash FROM files WHERE language = ?', [language]);
    return new Map(rows.map((r) => [r.path, { mtimeMs: r.mtime_ms, hash: r.hash }]));
  }

  async artifacts(kind?: ArtifactKind): Promise<ArtifactRow[]> {
    const rows = await this.db.all<{
      file_id: number; path: string; language: string; kind: ArtifactKind; format: string; location: string; hash: string | null; size: number; mtime_ms: number;
      imported_at: number; captured_at: number | null; profile: string | null; summary: string | null;
    }>(
      `SELECT a.file_id, f.path, f.language, a.kind, a.format, a.location, f.hash, f.size, f.mtime_ms, a.imported_at, a.captured_at, a.profile, a.summary
         FROM artifacts a JOIN files f ON f.id = a.file_id ${kind ? 'WHERE a.kind = ?' : ''} ORDER BY f.path`,
      kind ? [kind] : [],
    );
    return rows.map((r) => ({
      fileId: r.file_id, path: r.path, language: r.language, kind: r.kind, format: r.format, location: r.location, hash: r.hash, size: r.size, mtimeMs: r.mtime_ms,
      importedAt: r.imported_at, capturedAt: r.captured_at, profile: r.profile, summary: r.summary ? (JSON.parse(r.summary) as unknown) : null,
    }));
  }

  /**
   * Replaces artifacts: the rows at `removePaths` and at the new specs' paths are
   * deleted (cascading to everything they contributed), the new rows inserted
   * with fresh negative ids, which are returned in the order of `specs`.
   * Call inside `db.write`.
   */
  static async replace(db: Db, specs: readonly ArtifactSpec[], removePaths: readonly string[] = []): Promise<number[]> {
    const paths = [...new Set([...removePaths, ...specs.map((s) => s.path)])];
    for (let i = 0; i < paths.length; i += 4000) {
      await db.run('DELETE FROM files WHERE path IN (SELECT value FROM json_each(?))', [JSON.stringify(paths.slice(i, i + 4000))]);
    }
    if (!specs.length) return [];
    const min = (await db.get<{ m: number | null }>('SELECT min(id) AS m FROM files'))?.m ?? 0;
    const first = Math.min(min, 0) - 1;
    const ids = specs.map((_, i) => first - i);
    const now = Date.now();
    await insertRows(
      db,
      'files',
      ['id', 'path', 'language', 'hash', 'size', 'mtime_ms', 'skip_reason', 'error_nodes', 'parse_ms', 'package', 'indexed_at'],
      specs.map((s, i) => [ids[i]!, s.path, s.language, s.hash, s.size, Math.floor(s.mtimeMs), null, 0, null, null, now]),
    );
    await insertRows(
      db,
      'artifacts',
      ['file_id', 'kind', 'format', 'location', 'imported_at', 'captured_at', 'profile', 'summary'],
      specs.map((s, i) => [ids[i]!, s.kind, s.format, s.location, now, s.capturedAt ?? null, s.profile ?? null, s.summary === undefined ? null : JSON.stringify(s.summary)]),
    );
    return ids;
  }

  /** Updates an artifact's summary (counts known only after linking). Call inside `db.write`. */
  static async setSummary(db: Db, fileId: number, summary: unknown, capturedAt?: number | null): Promise<void> {
    await db.run('UPDATE artifacts SET summary = ?, captured_at = COALESCE(?, captured_at) WHERE file_id = ?', [JSON.stringify(summary), capturedAt ?? null, fileId]);
  }

  /**
   * Inserts symbols that exist only in artifacts. Parents are looked up by sid
   * among existing symbols and earlier symbols of the batch; a sid that already
   * exists (declared in source, or added by an earlier artifact) is skipped.
   * Call inside `db.write`.
   */
  static async insertSymbols(db: Db, symbols: readonly NewSymbol[]): Promise<{ inserted: number; skipped: number }> {
    if (!symbols.length) return { inserted: 0, skipped: 0 };
    const sids = [...new Set(symbols.flatMap((s) => [s.sid, ...(s.parentSid ? [s.parentSid] : [])]))];
    const existing = new Map<string, number>();
    for (let i = 0; i < sids.length; i += 4000) {
      for (const r of await db.all<{ id: number; sid: string }>('SELECT id, sid FROM symbols WHERE sid IN (SELECT value FROM json_each(?))', [JSON.stringify(sids.slice(i, i + 4000))])) {
        if (!existing.has(r.sid)) existing.set(r.sid, r.id);
      }
    }
    const min = (await db.get<{ m: number | null }>('SELECT min(id) AS m FROM symbols'))?.m ?? 0;
    let next = Math.min(min, 0) - 1;
    const rows: (string | number | null)[][] = [];
    let skipped = 0;
    for (const s of symbols) {
      if (existing.has(s.sid)) {
        skipped++;
        continue;
      }
      const id = next--;
      existing.set(s.sid, id);
      const parent = s.parentSid ? (existing.get(s.parentSid) ?? null) : null;
      rows.push([id, s.sid, s.name, s.qname, s.kind, s.fileId, parent, s.line, 0, s.line, 0, 1, s.origin === 'endpoint' ? 'traces' : 'bytecode', s.origin, s.derivedFrom]);
    }
    await insertRows(db, 'symbols', ['id', 'sid', 'name', 'qname', 'kind', 'file_id', 'parent_id', 'line', 'col', 'end_line', 'end_col', 'exported', 'source', 'origin', 'derived_from'], rows);
    return { inserted: rows.length, skipped };
  }

  static async insertWiring(db: Db, fileId: number, rows: readonly WiringRow[]): Promise<void> {
    await insertRows(
      db,
      'di_wiring',
      ['file_id', 'consumer_type', 'consumer_bean', 'injection', 'declared_type', 'bean', 'bean_type', 'candidates', 'why', 'tier'],
      rows.map((r) => [fileId, r.consumerType, r.consumerBean, r.injection, r.declaredType, r.bean, r.beanType, r.candidates, r.why, r.tier]),
    );
  }

  static async insertObservations(db: Db, fileId: number, rows: readonly ObservationRow[]): Promise<void> {
    await insertRows(
      db,
      'observations',
      ['file_id', 'src_sid', 'dst_sid', 'kind', 'via', 'services', 'first_seen', 'last_seen', 'count', 'trace_ids', 'reason'],
      rows.map((r) => [fileId, r.srcSid, r.dstSid, r.kind, r.via, r.services, r.firstSeen, r.lastSeen, r.count, JSON.stringify(r.traceIds.slice(0, 20)), r.reason]),
    );
  }

  async wiring(): Promise<(WiringRow & { fileId: number; path: string; format: string; capturedAt: number | null; profile: string | null })[]> {
    const rows = await this.db.all<{
      file_id: number; consumer_type: string; consumer_bean: string | null; injection: string | null; declared_type: string; bean: string; bean_type: string;
      candidates: number; why: string; tier: 'observed' | 'resolved'; path: string; format: string; captured_at: number | null; profile: string | null;
    }>(
      `SELECT w.*, f.path, a.format, a.captured_at, a.profile FROM di_wiring w JOIN files f ON f.id = w.file_id JOIN artifacts a ON a.file_id = w.file_id ORDER BY w.id`,
    );
    return rows.map((r) => ({
      fileId: r.file_id, consumerType: r.consumer_type, consumerBean: r.consumer_bean, injection: r.injection, declaredType: r.declared_type, bean: r.bean, beanType: r.bean_type,
      candidates: r.candidates, why: r.why, tier: r.tier, path: r.path, format: r.format, capturedAt: r.captured_at, profile: r.profile,
    }));
  }

  async observations(fileIds?: readonly number[]): Promise<(ObservationRow & { fileId: number; path: string })[]> {
    const rows = await this.db.all<{
      file_id: number; src_sid: string; dst_sid: string; kind: string; via: string; services: string; first_seen: number; last_seen: number; count: number; trace_ids: string; reason: string; path: string;
    }>(
      `SELECT o.*, f.path FROM observations o JOIN files f ON f.id = o.file_id ${fileIds ? 'WHERE o.file_id IN (SELECT value FROM json_each(?))' : ''} ORDER BY o.id`,
      fileIds ? [JSON.stringify(fileIds)] : [],
    );
    return rows.map((r) => ({
      fileId: r.file_id, srcSid: r.src_sid, dstSid: r.dst_sid, kind: r.kind, via: r.via, services: r.services, firstSeen: r.first_seen, lastSeen: r.last_seen, count: r.count,
      traceIds: JSON.parse(r.trace_ids) as string[], reason: r.reason, path: r.path,
    }));
  }

  async meta(key: string): Promise<string | undefined> {
    return (await this.db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key]))?.value;
  }

  static async setMeta(db: Db, key: string, value: string): Promise<void> {
    await db.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [key, value]);
  }
}
