/**
 * The gateway's HTTP routes: `POST /v1/traces` (the intake), `GET /healthz`, `GET /metrics`; anything else is
 * answered `404` or `405`. `route` is the pure table; `createRequestHandler` serves it and never lets a request
 * crash the process.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { diag } from '@opentelemetry/api';
import type { GatewayState, StateParts } from './gateway-state.js';
import type { Intake, Responder } from './intake.js';
import type { MetricsEndpoint } from './metrics-endpoint.js';
import { METRICS_TYPE } from './metrics-endpoint.js';

/** Where a request goes: a handler, or an answer of its own. */
export type Route =
  | { readonly handler: 'traces' }
  | { readonly handler: 'healthz' }
  | { readonly handler: 'metrics' }
  | { readonly handler: 'none'; readonly status: 404 | 405; readonly message: string };

/** The route of a request by method and URL (its query ignored). */
export function route(method: string | undefined, url: string | undefined): Route {
  const path = (url ?? '').split('?')[0];
  if (path === '/v1/traces')
    return method === 'POST' ? { handler: 'traces' } : { handler: 'none', status: 405, message: 'use POST' };
  if (path === '/healthz' && method === 'GET') return { handler: 'healthz' };
  if (path === '/metrics' && method === 'GET') return { handler: 'metrics' };
  return { handler: 'none', status: 404, message: 'not found' };
}

/** What the routes serve. */
export interface RouteTargets {
  readonly state: GatewayState<StateParts>;
  readonly intake: Intake;
  readonly responder: Responder;
  readonly metrics: MetricsEndpoint;
}

/** The `node:http` request listener of a gateway. */
export function createRequestHandler(
  targets: RouteTargets,
): (request: IncomingMessage, response: ServerResponse) => void {
  const { state, intake, responder, metrics } = targets;
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const target = route(request.method, request.url);
    if (target.handler === 'traces') return intake.receive(request, response);
    // No other route reads a body: drained, so the connection can serve the next request.
    request.resume();
    if (target.handler === 'healthz')
      return responder.answer(response, state.closing ? 503 : 200, state.closing ? 'closing\n' : 'ok\n', 'text/plain');
    if (target.handler === 'metrics') return responder.answer(response, 200, metrics.render(), METRICS_TYPE);
    return responder.refuse(response, {
      status: target.status,
      message: target.message,
      spans: 0,
      holdForSender: false,
      closeConnection: false,
    });
  };
  return (request, response) => {
    handle(request, response).catch((error: unknown) => {
      // Never crash on a request: answer 500 if nothing was written yet.
      diag.error('agent-incidents gateway: request failed', error);
      if (!response.headersSent)
        responder.refuse(response, {
          status: 500,
          message: 'internal error',
          spans: 0,
          holdForSender: false,
          closeConnection: false,
        });
      else response.destroy();
    });
  };
}
