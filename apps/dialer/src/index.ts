/**
 * What other workspace packages may use of the dialer (the simulation in tools/simulate): the Dialer
 * itself and its dependencies' types. The daemon's entry point is main.ts.
 */
export { Dialer, type DialerDeps, type DialerStats, type DialerTiming } from './dialer.js'
