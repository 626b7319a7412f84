import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** An item as it rests in the cold store: its columns, and the rest as JSON. */
export interface ColdItemRow {
  seq: number;
  key: string;
  kind: string;
  mode: string;
  createdAt: string;
  /** `{ resource, history, plan }` as JSON. */
  body: string;
  /** Index entries (`field`, `value`) the item was found by. */
  references: readonly (readonly [string, string])[];
}

/** What a list window needs of a cold item before its body is read. */
export interface ColdItemStub {
  seq: number;
  key: string;
  kind: string;
  mode: string;
  createdAt: string;
}

export interface ColdMovementRow {
  /** The movement's place in the money ledger (record order). */
  n: number;
  mode: string;
  accountType: string;
  currency: string;
  atMs: number;
  amount: number;
  resourceId: string | null;
  body: string;
}

const OWN_TABLES: ReadonlySet<string> = new Set(['items', 'item_references', 'movements']);

const SCHEMA = `
CREATE TABLE IF NOT EXISTS items (
  seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, mode TEXT NOT NULL,
  created_at TEXT NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS items_window ON items (kind, mode, created_at, key, seq);
CREATE INDEX IF NOT EXISTS items_kind ON items (kind, seq);
CREATE TABLE IF NOT EXISTS item_references (
  kind TEXT NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS item_references_value ON item_references (kind, field, value, seq);
CREATE INDEX IF NOT EXISTS item_references_seq ON item_references (seq);
CREATE TABLE IF NOT EXISTS movements (
  n INTEGER PRIMARY KEY, mode TEXT NOT NULL, account_type TEXT NOT NULL, currency TEXT NOT NULL,
  at_ms INTEGER NOT NULL, amount INTEGER NOT NULL, resource_id TEXT, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS movements_at ON movements (mode, at_ms);
CREATE INDEX IF NOT EXISTS movements_resource ON movements (resource_id);
`;

/**
 * The simulator's own SQLite file for what it moved out of memory: settled items and old money
 * movements. Nothing else reads it; it lives as long as the simulator (a temporary file unless
 * a path is given, and then it is emptied at start so a run never mixes with an older one; a
 * file holding any other table is refused, so a wrong path never empties someone else's data).
 */
export class ColdStore {
  private readonly db: BetterSqlite3.Database;
  private readonly temporaryDir: string | undefined;
  private readonly statements;

  constructor(path?: string) {
    this.temporaryDir =
      path === undefined ? mkdtempSync(join(tmpdir(), 'paysync-sim-')) : undefined;
    this.db = new BetterSqlite3(path ?? join(this.temporaryDir as string, 'cold.sqlite'));
    // The file is scratch space: ground truth lives as long as the process, so a crash loses
    // nothing the simulator could have served again.
    const foreign = (
      this.db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .pluck()
        .all() as string[]
    ).filter((name) => !OWN_TABLES.has(name));
    if (foreign.length > 0) {
      this.db.close();
      throw new Error(
        `cold store ${path}: the file holds other tables (${foreign.slice(0, 3).join(', ')}); give the simulator a file of its own`,
      );
    }
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.exec(SCHEMA);
    this.clear();
    const db = this.db;
    this.statements = {
      insertItem: db.prepare(
        'INSERT INTO items (seq, key, kind, mode, created_at, body) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      insertReference: db.prepare(
        'INSERT INTO item_references (kind, field, value, seq) VALUES (?, ?, ?, ?)',
      ),
      itemByKey: db.prepare(
        'SELECT seq, key, kind, mode, created_at AS createdAt, body FROM items WHERE key = ?',
      ),
      hasKey: db.prepare('SELECT 1 FROM items WHERE key = ?').pluck(),
      bodyBySeq: db.prepare('SELECT body FROM items WHERE seq = ?').pluck(),
      referencesOf: db.prepare('SELECT field, value FROM item_references WHERE seq = ?').raw(),
      deleteItem: db.prepare('DELETE FROM items WHERE seq = ?'),
      deleteReferences: db.prepare('DELETE FROM item_references WHERE seq = ?'),
      window: db.prepare(
        `SELECT seq, key, kind, mode, created_at AS createdAt FROM items
         WHERE kind = ? AND mode = ? AND created_at >= ? AND created_at <= ?
         ORDER BY created_at, key`,
      ),
      ofKind: db.prepare(
        'SELECT seq, key, kind, mode, created_at AS createdAt FROM items WHERE kind = ? ORDER BY seq',
      ),
      withReference: db.prepare(
        `SELECT i.seq, i.key, i.kind, i.mode, i.created_at AS createdAt FROM item_references r
         JOIN items i ON i.seq = r.seq WHERE r.kind = ? AND r.field = ? AND r.value = ?
         ORDER BY r.seq`,
      ),
      allItems: db.prepare(
        'SELECT seq, key, kind, mode, created_at AS createdAt, body FROM items ORDER BY seq',
      ),
      itemsOfKind: db.prepare(
        'SELECT seq, key, kind, mode, created_at AS createdAt, body FROM items WHERE kind = ? ORDER BY seq',
      ),
      itemSeqs: db.prepare('SELECT seq, key FROM items ORDER BY seq').raw(),
      itemSeqsOfKind: db.prepare('SELECT seq, key FROM items WHERE kind = ? ORDER BY seq').raw(),
      itemsBetween: db.prepare(
        'SELECT seq, key, kind, mode, created_at AS createdAt, body FROM items WHERE seq BETWEEN ? AND ?',
      ),
      movementsBetween: db
        .prepare('SELECT body FROM movements WHERE n BETWEEN ? AND ? ORDER BY n')
        .pluck(),
      countItems: db.prepare('SELECT count(*) FROM items').pluck(),
      insertMovement: db.prepare(
        `INSERT INTO movements (n, mode, account_type, currency, at_ms, amount, resource_id, body)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      allMovements: db.prepare('SELECT body FROM movements ORDER BY n').pluck(),
      movementsOf: db
        .prepare('SELECT body FROM movements WHERE resource_id = ? ORDER BY n')
        .pluck(),
      sumsAt: db.prepare(
        `SELECT account_type AS accountType, currency, sum(amount) AS amount FROM movements
         WHERE mode = ? AND at_ms <= ? GROUP BY account_type, currency`,
      ),
      countMovements: db.prepare('SELECT count(*) FROM movements').pluck(),
    };
  }

  /** Writes items out in one transaction. */
  putItems(rows: readonly ColdItemRow[]): void {
    this.db.transaction(() => {
      for (const row of rows) {
        this.statements.insertItem.run(
          row.seq,
          row.key,
          row.kind,
          row.mode,
          row.createdAt,
          row.body,
        );
        for (const [field, value] of row.references) {
          this.statements.insertReference.run(row.kind, field, value, row.seq);
        }
      }
    })();
  }

  itemByKey(key: string): Omit<ColdItemRow, 'references'> | undefined {
    return this.statements.itemByKey.get(key) as Omit<ColdItemRow, 'references'> | undefined;
  }

  has(key: string): boolean {
    return this.statements.hasKey.get(key) !== undefined;
  }

  bodyOf(seq: number): string {
    return this.statements.bodyBySeq.get(seq) as string;
  }

  /** Removes an item (it goes back to memory) and returns its index entries. */
  takeItem(seq: number): [string, string][] {
    const references = this.statements.referencesOf.all(seq) as [string, string][];
    this.db.transaction(() => {
      this.statements.deleteItem.run(seq);
      this.statements.deleteReferences.run(seq);
    })();
    return references;
  }

  /** Items of `kind` and `mode` created in [fromIso, toIso], by (createdAt, key). */
  window(kind: string, mode: string, fromIso: string, toIso: string): ColdItemStub[] {
    return this.statements.window.all(kind, mode, fromIso, toIso) as ColdItemStub[];
  }

  ofKind(kind: string): ColdItemStub[] {
    return this.statements.ofKind.all(kind) as ColdItemStub[];
  }

  withReference(kind: string, field: string, value: string): ColdItemStub[] {
    return this.statements.withReference.all(kind, field, value) as ColdItemStub[];
  }

  /** Every item (of `kind`), by seq, with its body. */
  items(kind?: string): Omit<ColdItemRow, 'references'>[] {
    return (
      kind === undefined ? this.statements.allItems.all() : this.statements.itemsOfKind.all(kind)
    ) as Omit<ColdItemRow, 'references'>[];
  }

  /** `[seq, key]` of every item (of `kind`), by seq: what a streamed ground truth will read. */
  itemSeqs(kind?: string): [number, string][] {
    return (
      kind === undefined ? this.statements.itemSeqs.all() : this.statements.itemSeqsOfKind.all(kind)
    ) as [number, string][];
  }

  /** Items with seq in [from, to], by seq. */
  itemsBetween(from: number, to: number): Map<number, Omit<ColdItemRow, 'references'>> {
    const rows = this.statements.itemsBetween.all(from, to) as Omit<ColdItemRow, 'references'>[];
    return new Map(rows.map((row) => [row.seq, row]));
  }

  /** Movement JSON with n in [from, to], in record order. */
  movementsBetween(from: number, to: number): string[] {
    return this.statements.movementsBetween.all(from, to) as string[];
  }

  get itemCount(): number {
    return this.statements.countItems.get() as number;
  }

  putMovements(rows: readonly ColdMovementRow[]): void {
    this.db.transaction(() => {
      for (const row of rows) {
        this.statements.insertMovement.run(
          row.n,
          row.mode,
          row.accountType,
          row.currency,
          row.atMs,
          row.amount,
          row.resourceId,
          row.body,
        );
      }
    })();
  }

  /** Every movement's JSON, in record order. */
  movements(): string[] {
    return this.statements.allMovements.all() as string[];
  }

  movementsOf(resourceId: string): string[] {
    return this.statements.movementsOf.all(resourceId) as string[];
  }

  /** Sums per account of `mode` over the movements at or before `atMs`. */
  sumsAt(mode: string, atMs: number): { accountType: string; currency: string; amount: number }[] {
    return this.statements.sumsAt.all(mode, atMs) as {
      accountType: string;
      currency: string;
      amount: number;
    }[];
  }

  get movementCount(): number {
    return this.statements.countMovements.get() as number;
  }

  clear(): void {
    this.db.exec('DELETE FROM items; DELETE FROM item_references; DELETE FROM movements;');
  }

  /** Closes the file, and deletes it when it was a temporary one. */
  close(): void {
    if (this.db.open) this.db.close();
    if (this.temporaryDir !== undefined)
      rmSync(this.temporaryDir, { recursive: true, force: true });
  }
}
