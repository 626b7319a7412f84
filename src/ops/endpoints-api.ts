import type { Request, Response } from 'express';
import {
  addEndpoint,
  deleteEndpoint,
  disableEndpoint,
  enableEndpoint,
  endpointAttempts,
  listEndpoints,
  pingEndpoint,
  redeliverToEndpoint,
  requireEndpoint,
  rotateEndpointSecret,
  showEndpoint,
  undeliveredEvents,
} from '../relay/index.ts';
import {
  endpointAddBody,
  endpointIdParam,
  endpointRedeliverBody,
  pageQuery,
  pendingQuery,
} from './ops-api.schema.ts';
import type { ResolvedOpsDependencies } from './ops-dependencies.ts';
import { parseParameters } from './ops-errors.ts';
import { pageOf } from './page-cursor.ts';
import { offsetOf, query } from './request-query.ts';

type Handler = (request: Request, response: Response) => Promise<void>;

/** The operationIds of the table's `endpoints` routes. */
export type EndpointOperationId =
  | 'listEndpoints'
  | 'addEndpoint'
  | 'listUndeliveredEvents'
  | 'getEndpoint'
  | 'deleteEndpoint'
  | 'listEndpointAttempts'
  | 'disableEndpoint'
  | 'enableEndpoint'
  | 'rotateEndpointSecret'
  | 'testEndpoint'
  | 'redeliverToEndpoint'
  | 'replayToEndpoint';

function idOf(request: Request): string {
  return parseParameters(endpointIdParam, request.params, 'path').id;
}

/** The handlers of `/api/v1/endpoints…`: each parses, calls one relay function, answers. */
export function endpointHandlers(
  deps: ResolvedOpsDependencies,
): Record<EndpointOperationId, Handler> {
  const environment = deps.environment === 'live' ? 'live' : 'sandbox';
  const redeliver: Handler = async (request, response) => {
    const id = idOf(request);
    const body = parseParameters(endpointRedeliverBody, request.body ?? {}, 'body');
    const selection =
      body.event !== undefined
        ? { eventId: body.event }
        : { since: new Date(body.since!), ...(body.types ? { types: body.types } : {}) };
    response.json({
      data: await redeliverToEndpoint({ db: deps.db, now: deps.now() }, id, selection),
    });
  };
  // A refusal of the relay is worded by the router's one wrapper (refusal-answers.ts).
  return {
    listEndpoints: async (request, response) => {
      const q = query(pageQuery, request);
      const offset = offsetOf(q.cursor);
      // A handful of endpoints: page the list here, like the runs.
      response.json(pageOf(await listEndpoints(deps.db, deps.now()), offset, q.limit));
    },
    addEndpoint: async (request, response) => {
      const body = parseParameters(endpointAddBody, request.body ?? {}, 'body');
      const added = await addEndpoint(
        { db: deps.db, now: deps.now(), environment, relay: deps.relay },
        {
          url: body.url,
          ...(body.events ? { events: body.events } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
        },
      );
      response.status(201).json({ data: added });
    },
    listUndeliveredEvents: async (request, response) => {
      const q = query(pendingQuery, request);
      const offset = offsetOf(q.cursor);
      const rows = await undeliveredEvents(deps.db, {
        ...(q.endpoint ? { endpointId: q.endpoint } : {}),
        limit: offset + q.limit + 1,
      });
      response.json(pageOf(rows, offset, q.limit));
    },
    getEndpoint: async (request, response) => {
      response.json({ data: await showEndpoint(deps.db, idOf(request), deps.now()) });
    },
    deleteEndpoint: async (request, response) => {
      response.json({ data: { deleted: await deleteEndpoint(deps.db, idOf(request)) } });
    },
    listEndpointAttempts: async (request, response) => {
      const id = idOf(request);
      const q = query(pageQuery, request);
      const offset = offsetOf(q.cursor);
      const rows = await endpointAttempts(deps.db, id, { limit: offset + q.limit + 1, offset: 0 });
      response.json(pageOf(rows, offset, q.limit));
    },
    disableEndpoint: async (request, response) => {
      response.json({ data: await disableEndpoint(deps.db, idOf(request), deps.now()) });
    },
    enableEndpoint: async (request, response) => {
      response.json({ data: await enableEndpoint(deps.db, idOf(request), deps.now()) });
    },
    rotateEndpointSecret: async (request, response) => {
      response.json({
        data: await rotateEndpointSecret(deps.db, idOf(request), deps.now(), {
          environment,
          ...deps.relay,
        }),
      });
    },
    testEndpoint: async (request, response) => {
      const row = await requireEndpoint(deps.db, idOf(request));
      response.json({ data: await pingEndpoint(row, deps.relay, environment, deps.now()) });
    },
    redeliverToEndpoint: redeliver,
    // The deprecated former path of redeliver: the same handler, the same answers.
    replayToEndpoint: redeliver,
  };
}
