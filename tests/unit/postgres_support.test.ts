// The PostgreSQL test database helper: without a server a developer's run says why a PostgreSQL-backed test is
// skipped, while a CI run fails (README, "Tests"), so those tests cannot pass there without running.
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/e2e.js';
import { inCi, postgresTestDb } from '../support/postgres.js';

describe('postgresTestDb without a server', () => {
  it('returns the reason outside CI and throws in CI', async () => {
    // A port nothing listens on: freePort releases the port it found.
    const adminUrl = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;
    const reason = await postgresTestDb('nosrv', { adminUrl, ci: false });
    expect(reason).toMatch(/^no PostgreSQL server answers at /);
    await expect(postgresTestDb('nosrv', { adminUrl, ci: true })).rejects.toThrow(/CI must run the PostgreSQL-backed tests/);
  });

  it('reads CI as CI services set it', () => {
    expect(inCi({ CI: 'true' })).toBe(true);
    expect(inCi({ CI: '1' })).toBe(true);
    expect(inCi({})).toBe(false);
    expect(inCi({ CI: '' })).toBe(false);
    expect(inCi({ CI: 'false' })).toBe(false);
    expect(inCi({ CI: '0' })).toBe(false);
  });
});
