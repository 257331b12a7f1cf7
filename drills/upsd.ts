// A real upsd with the dummy-ups driver on a loopback port, in a temp dir of its own: for tests, the
// `npm start` drill and the benchmark. Config files: upsd/config.ts; the daemons as processes:
// upsd/processes.ts; one running upsd: upsd/instance.ts. Tests import everything from here.
export { startUpsd, upsdAvailable, upsdUnavailableReason, type Upsd, type UpsdOptions } from './upsd/instance.ts';
export type { DevState, DummyMode } from './upsd/config.ts';
/** A loopback port nobody holds right now. */
export { freePort } from './net.ts';
