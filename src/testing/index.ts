/**
 * `agent-incidents/testing`: tools for testing a runtime's recovery against
 * real sockets. See {@link startFakeProvider}.
 */
export * from './fake-provider.js';
