import { describe, expect, it } from 'vitest';
import { loadConfig, secretValues } from '../../src/config/index.ts';
import { CsrfTokens } from '../../src/ops/csrf-token.ts';
import { html, jsonForScript } from '../../src/ops/html.ts';
import { AdminTokens } from '../../src/ops/ops-auth.ts';
import { DashboardSessions } from '../../src/ops/dashboard-sessions.ts';
import { sessionCookieName } from '../../src/ops/dashboard-login.ts';
import { maskNumber } from '../../src/alerts/index.ts';
import { expressPathOf, OPS_ROUTES } from '../../src/ops/ops-routes.ts';
import { decodeCursor, encodeCursor, pageOf } from '../../src/ops/page-cursor.ts';

describe('ops building blocks', () => {
  it('reads several admin tokens and the ops port, and treats each token as a secret', () => {
    const config = loadConfig({
      PAYSYNC_ADMIN_TOKEN: ' first-token , second-token ,',
      PAYSYNC_OPS_PORT: '9100',
    });
    expect(config.ops).toMatchObject({
      adminTokens: ['first-token', 'second-token'],
      port: 9100,
      host: '127.0.0.1',
      public: false,
    });
    expect(secretValues(config)).toEqual(expect.arrayContaining(['first-token', 'second-token']));
    expect(loadConfig({}).ops).toMatchObject({ adminTokens: [], port: 9465, host: '127.0.0.1' });
    expect(loadConfig({ PAYSYNC_OPS_HOST: '0.0.0.0' }).ops.public).toBe(true);
    expect(loadConfig({ PAYSYNC_METRICS_TOKEN: 'scrape-token' }).ops.metricsTokens).toEqual([
      'scrape-token',
    ]);
    expect(secretValues(loadConfig({ PAYSYNC_METRICS_TOKEN: 'scrape-token' }))).toContain(
      'scrape-token',
    );
    expect(() => loadConfig({ PAYSYNC_OPS_PORT: '8080' })).toThrow(
      'PAYSYNC_OPS_PORT="8080" is invalid: must differ from PAYSYNC_PORT',
    );
    expect(() => loadConfig({ PAYSYNC_OPS_PORT: '70000' })).toThrow(
      'PAYSYNC_OPS_PORT="70000" is invalid: must be at most 65535',
    );
  });

  it('accepts each configured token, nothing else', () => {
    const tokens = new AdminTokens(['alpha-token', 'beta-token']);
    expect(tokens.accepts('alpha-token')).toBe(true);
    expect(tokens.accepts('beta-token')).toBe(true);
    expect(tokens.accepts('alpha-tokenx')).toBe(false);
    expect(tokens.accepts('')).toBe(false);
    expect(tokens.accepts(undefined)).toBe(false);
  });

  it('refuses, in live, an admin or scrape token shorter than 32 characters, naming it', () => {
    const live = { PAYSYNC_ENVIRONMENT: 'live' };
    expect(() => loadConfig({ ...live, PAYSYNC_ADMIN_TOKEN: 'abc' })).toThrow(
      'PAYSYNC_ADMIN_TOKEN is too short for live: each token needs at least 32 characters → make one with: openssl rand -hex 32',
    );
    expect(() => loadConfig({ ...live, PAYSYNC_ADMIN_TOKEN: `${'a'.repeat(32)},short` })).toThrow(
      'PAYSYNC_ADMIN_TOKEN is too short',
    );
    expect(() => loadConfig({ ...live, PAYSYNC_METRICS_TOKEN: 'x'.repeat(31) })).toThrow(
      'PAYSYNC_METRICS_TOKEN is too short',
    );
    expect(
      loadConfig({ ...live, PAYSYNC_ADMIN_TOKEN: 'a'.repeat(32) }).ops.adminTokens,
    ).toHaveLength(1);
    // The sandbox keeps short tokens convenient.
    expect(loadConfig({ PAYSYNC_ADMIN_TOKEN: 'abc' }).ops.adminTokens).toEqual(['abc']);
  });

  it('ends a dashboard session when idle, at its absolute limit and at logout', () => {
    let now = Date.parse('2026-11-28T10:00:00.000Z');
    const sessions = new DashboardSessions({
      idleMs: 30 * 60_000,
      maxMs: 12 * 3_600_000,
      now: () => new Date(now),
    });
    const idle = sessions.open('token-a');
    expect(idle).not.toContain('token-a');
    now += 29 * 60_000;
    expect(sessions.tokenOf(idle)).toBe('token-a');
    now += 31 * 60_000;
    expect(sessions.tokenOf(idle)).toBeUndefined();

    const busy = sessions.open('token-a');
    // Busy all along: a request every 20 minutes for 12 hours, then one minute more.
    for (let minutes = 20; minutes <= 12 * 60; minutes += 20) {
      now += 20 * 60_000;
      expect(sessions.tokenOf(busy)).toBe('token-a');
    }
    now += 60_000;
    expect(sessions.tokenOf(busy)).toBeUndefined();

    const closed = sessions.open('token-a');
    sessions.close(closed);
    expect(sessions.tokenOf(closed)).toBeUndefined();
    expect(sessions.tokenOf('made-up')).toBeUndefined();
    expect(sessionCookieName(true)).toBe('__Host-paysync_ops');
    expect(sessionCookieName(false)).toBe('paysync_ops');
  });

  it('binds a CSRF token to its session and to this process', () => {
    const csrf = new CsrfTokens(Buffer.alloc(32, 1));
    const token = csrf.tokenFor('session-a');
    expect(csrf.verify('session-a', token)).toBe(true);
    expect(csrf.verify('session-b', token)).toBe(false);
    expect(csrf.verify('session-a', undefined)).toBe(false);
    expect(new CsrfTokens(Buffer.alloc(32, 2)).verify('session-a', token)).toBe(false);
  });

  it('escapes everything interpolated into a page, and JSON for a script block', () => {
    const hostile = `<script>alert("x")</script>' onload='x' &amp;`;
    expect(html`<td title="${hostile}">${hostile}</td>`.text).toBe(
      '<td title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x&#39; &amp;amp;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&#39;x&#39; &amp;amp;</td>',
    );
    const json = jsonForScript({ s: '</script><b>' }).text;
    expect(json).not.toMatch(/[<>]/);
    expect(JSON.parse(json)).toEqual({ s: '</script><b>' });
  });

  it('pages by opaque cursors and refuses one it did not make', () => {
    expect(decodeCursor(encodeCursor(40))).toBe(40);
    expect(decodeCursor(undefined)).toBe(0);
    expect(decodeCursor('bm9wZQ')).toBeUndefined();
    expect(pageOf([1, 2, 3, 4, 5], 2, 2)).toEqual({ data: [3, 4], nextCursor: encodeCursor(4) });
    expect(pageOf([1, 2, 3, 4], 2, 2)).toEqual({ data: [3, 4], nextCursor: null });
  });

  it('masks a number with the one policy: network prefix and last two digits', () => {
    expect(maskNumber('+221770009901')).toBe('+22177•••••01');
    expect(maskNumber('12')).toBe('•••');
  });

  it('mounts each route of the one table at its Express path, and refuses a path outside /api/v1', () => {
    const mounted = OPS_ROUTES.map((r) => `${r.method} ${expressPathOf(r)}`);
    expect(mounted).toContain('get /items/:id');
    expect(mounted).toContain('post /alerts/:id/resolve');
    expect(mounted).toContain('get /reports/:date');
    expect(new Set(mounted).size).toBe(OPS_ROUTES.length);
    expect(new Set(OPS_ROUTES.map((r) => r.operationId)).size).toBe(OPS_ROUTES.length);
    expect(() => expressPathOf({ ...OPS_ROUTES[0]!, path: '/items/{id}' })).toThrow(
      'ops route /items/{id} does not start with /api/v1/',
    );
  });
});
