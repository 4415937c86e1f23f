// Versioned schema migrations, recorded in `schema_migrations` per component ('indexer', 'explorer'), so each
// part that keeps tables in the indexer's database upgrades its own. A newer binary applies the missing steps
// in order, each in its own transaction with its record; an older binary finds a version it does not know and
// refuses to run instead of writing into a schema it does not understand.
import type { Db } from './db.js';

/** Advisory lock key held while a migration step runs (any constant unique to this project). */
const MIGRATION_LOCK = 0x1c9e7a11;

export interface Migration {
  /** 1, 2, 3, ... without gaps. */
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
  constructor(
    readonly component: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `the database's ${component} schema is at version ${found}, newer than this program knows (${known}); ` +
        'run a newer release, or point it at another database',
    );
  }
}

export async function currentVersion(db: Db, component: string): Promise<number> {
  await db.exec(
    `CREATE TABLE IF NOT EXISTS schema_migrations (
       component text NOT NULL,
       version integer NOT NULL,
       name text NOT NULL,
       applied_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (component, version)
     )`,
  );
  const r = await db.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations WHERE component = $1', [component]);
  return r.rows[0]?.v ?? 0;
}

/** Applies the missing migrations; returns the versions applied now. */
export async function migrate(db: Db, component: string, migrations: readonly Migration[]): Promise<number[]> {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`${component} migration ${m.name}: version ${m.version}, expected ${i + 1}`);
  });
  const found = await currentVersion(db, component);
  if (found > migrations.length) throw new SchemaTooNewError(component, found, migrations.length);
  const applied: number[] = [];
  for (const m of migrations.slice(found)) {
    const done = await db.transaction(async (tx) => {
      // Two processes starting on one server (indexer and explorer) take turns; the second finds it applied.
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const r = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations WHERE component = $1 AND version = $2', [component, m.version]);
      if ((r.rows[0]?.n ?? 0) > 0) return false;
      for (const statement of splitStatements(m.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (component, version, name) VALUES ($1, $2, $3)', [component, m.version, m.name]);
      return true;
    });
    if (done) applied.push(m.version);
  }
  return applied;
}

/** Splits a migration on `;` at line ends (migrations hold no functions or quoted semicolons). */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
