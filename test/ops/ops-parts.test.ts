import { describe, expect, it } from 'vitest';
import { loadConfig, secretValues } from '../../src/config/index.ts';
import { CsrfTokens } from '../../src/ops/csrf-token.ts';
import { html, jsonForScript } from '../../src/ops/html.ts';
import { AdminTokens } from '../../src/ops/ops-auth.ts';
import { maskNumber } from '../../src/alerts/index.ts';
import { expressPathOf, OPS_ROUTES } from '../../src/ops/ops-routes.ts';
import { decodeCursor, encodeCursor, pageOf } from '../../src/ops/page-cursor.ts';

describe('ops building blocks', () => {
  it('reads several admin tokens and the ops port, and treats each token as a secret', () => {
    const config = loadConfig({
      PAYSYNC_ADMIN_TOKEN: ' first-token , second-token ,',
      PAYSYNC_OPS_PORT: '9100',
    });
    expect(config.ops).toEqual({ adminTokens: ['first-token', 'second-token'], port: 9100 });
    expect(secretValues(config)).toEqual(expect.arrayContaining(['first-token', 'second-token']));
    expect(loadConfig({}).ops).toEqual({ adminTokens: [], port: undefined });
    expect(() => loadConfig({ PAYSYNC_OPS_PORT: '70000' })).toThrow(
      'PAYSYNC_OPS_PORT="70000" is invalid: must be at most 65535',
    );
  });

  it('accepts each configured token and its session, nothing else', () => {
    const tokens = new AdminTokens(['alpha-token', 'beta-token']);
    expect(tokens.accepts('alpha-token')).toBe(true);
    expect(tokens.accepts('beta-token')).toBe(true);
    expect(tokens.accepts('alpha-tokenx')).toBe(false);
    expect(tokens.accepts('')).toBe(false);
    expect(tokens.accepts(undefined)).toBe(false);
    const session = tokens.sessionFor('beta-token');
    expect(session).not.toContain('beta-token');
    expect(tokens.acceptsSession(session)).toBe(true);
    expect(tokens.acceptsSession(new AdminTokens(['other']).sessionFor('other'))).toBe(false);
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
