import { Router, type Request, type Response } from 'express';
import type { Executor } from '../db/index.ts';
import {
  ExpectationError,
  resolveBreak,
  resolveExpectation,
  type ExpectationContext,
} from '../expectations/index.ts';
import { resolveDiscrepancy } from '../ledger/index.ts';
import { disableEndpoint, enableEndpoint, EndpointError } from '../relay/index.ts';
import { replayInboxEvents } from '../replay/index.ts';
import { asyncHandler } from './async-handler.ts';
import { page, type DashboardView } from './dashboard-layout.ts';
import { dashboardForm, type DashboardLogin } from './dashboard-login.ts';
import { html } from './html.ts';
import { expectationContextOf, type ResolvedOpsDependencies } from './ops-dependencies.ts';
import { sendPage as send } from './send-page.ts';

/**
 * The dashboard's POST forms (`/actions/…`), behind the session (the caller's) and each with
 * the session's CSRF token: resolve a discrepancy, ack an alert, replay an inbox event, enable
 * or disable an endpoint, resolve an expectation or a break. Each answers 303 back to its page.
 */
export function createDashboardActions(
  deps: ResolvedOpsDependencies,
  options: {
    /** Where every redirect starts: `''`, or `/tenants/<tenant>`. */
    readonly base: string;
    /** The page chrome of the request's session. */
    readonly view: (response: Response) => DashboardView;
    readonly requireCsrf: DashboardLogin['requireCsrf'];
  },
): Router {
  const { base, view, requireCsrf } = options;
  const actions = Router();
  actions.post(
    '/actions/discrepancies/:id/resolve',
    dashboardForm,
    requireCsrf,
    asyncHandler(async (request, response) => {
      const id = Number(request.params.id);
      if (Number.isSafeInteger(id) && id > 0)
        await resolveDiscrepancy(deps.db, id, deps.now().toISOString());
      response.redirect(303, `${base}/`);
    }),
  );
  actions.post(
    '/actions/alerts/:id/ack',
    dashboardForm,
    requireCsrf,
    asyncHandler(async (request, response) => {
      const id = Number(request.params.id);
      if (Number.isSafeInteger(id) && id > 0)
        await deps.features.ackAlert(deps.db, id, 'dashboard');
      response.redirect(303, `${base}/`);
    }),
  );
  actions.post(
    '/actions/replay',
    dashboardForm,
    requireCsrf,
    asyncHandler(async (request, response) => {
      const body = request.body as Record<string, unknown>;
      const inboxId = Number(body.inboxId);
      if (deps.queues && Number.isSafeInteger(inboxId) && inboxId > 0) {
        await replayInboxEvents({ db: deps.db, queues: deps.queues }, { inboxId });
      }
      const back = typeof body.back === 'string' ? `/items/${encodeURIComponent(body.back)}` : '/';
      response.redirect(303, `${base}${back}`);
    }),
  );
  actions.post(
    '/actions/endpoints/:id/:action',
    dashboardForm,
    requireCsrf,
    asyncHandler(async (request, response) => {
      const id = String(request.params.id);
      const action = request.params.action === 'enable' ? enableEndpoint : disableEndpoint;
      if (request.params.action === 'enable' || request.params.action === 'disable') {
        try {
          await action(deps.db, id, deps.now());
        } catch (error) {
          // An endpoint deleted meanwhile: the page shows what is left.
          if (!(error instanceof EndpointError)) throw error;
        }
      }
      response.redirect(303, `${base}/endpoints`);
    }),
  );
  /**
   * The resolve forms of the Expectations page: reason required, `by` optional (`dashboard`),
   * back to the page with its filters; a refusal of the domain is a page that says why.
   */
  const expectationAction = (
    resolve: (
      trx: Executor,
      ctx: ExpectationContext,
      id: string,
      reason: string,
      by: string,
    ) => Promise<unknown>,
  ) =>
    asyncHandler(async (request: Request, response: Response) => {
      const body = request.body as Record<string, unknown>;
      const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
      const ctx = expectationContextOf(deps);
      try {
        await deps.db
          .transaction()
          .execute((trx) =>
            resolve(
              trx,
              ctx,
              String(request.params.id),
              text('reason'),
              text('by').trim() || 'dashboard',
            ),
          );
      } catch (error) {
        if (!(error instanceof ExpectationError)) throw error;
        const status = error.code === 'not_found' ? 404 : 400;
        const message = error.message;
        return send(
          response,
          status,
          page({
            title: 'Not resolved',
            chrome: view(response),
            body: html`<section>
              <p class="verdict verdict-breaks">${message}</p>
              <p><a href="${base}/expectations">Back to Expectations</a></p>
            </section>`,
          }),
        );
      }
      const back = text('back');
      response.redirect(
        303,
        `${base}${/^\/expectations(\?[^/\\]*)?$/.test(back) ? back : '/expectations'}`,
      );
    });
  actions.post(
    '/actions/expectations/:id/resolve',
    dashboardForm,
    requireCsrf,
    expectationAction((trx, ctx, id, reason, by) =>
      resolveExpectation(trx, ctx, id, { reason, by, source: 'dashboard' }),
    ),
  );
  actions.post(
    '/actions/expectation-breaks/:id/resolve',
    dashboardForm,
    requireCsrf,
    expectationAction((trx, ctx, id, reason, by) => {
      const breakId = Number(id);
      if (!Number.isSafeInteger(breakId) || breakId <= 0) {
        throw new ExpectationError('not_found', `no break ${id}`);
      }
      return resolveBreak(trx, ctx, breakId, { reason, by });
    }),
  );
  return actions;
}
