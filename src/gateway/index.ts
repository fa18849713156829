/**
 * `agent-incidents/gateway`: the OTLP/HTTP gateway that folds and sanitizes
 * traces from any language (docs/gateway.md).
 */
export { createGateway } from './gateway.js';
export type { Gateway } from './gateway.js';
export { GATEWAY_CONFIG, GatewayConfigError, loadGatewayConfig, resolveGatewayConfig } from './config.js';
export type { GatewayConfig, GatewayConfigInput } from './config.js';
export { DROP_REASONS, GatewayMetrics, REFUSAL_REASONS } from './gateway-metrics.js';
export type { DropReason, LostFigures, LostRunLabels, MetricsSnapshot, RefusalReason } from './gateway-metrics.js';
export { SpillLogLockedError } from './spill-log.js';
