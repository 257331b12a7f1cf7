// Issue 33, the other half of seed 002's proof ("all other sites 0% loss"): the replica at hq loses its
// own path to Fountain Valley (its uplink, its firewall), while fv itself is up and irv reaches it.
// From hq alone fv looks dark; from two vantages it is hq's path. The drill plays hq as a network
// namespace where fv's addresses have no route (root and iproute2; else it says it cannot), and the
// console measures from its own vantage, where fv answers.
import type { Scenario } from './types.ts';

export const HQ_UPLINK_DOWN: Scenario = {
  id: 'hq-uplink-down',
  seed: 'issue 33 · seed 002’s proof from two vantages',
  summary: 'hq’s own path to Fountain Valley is gone while irv reaches fv: from two vantages it is hq’s uplink, not a dark site',
  site: 'fv',
  story: [
    'The replica at hq finds every Fountain Valley address unreachable; the replica at irv reaches them all.',
    'A dark site needs two vantages to agree: this is hq’s own path (its firewall, its uplink), not fv.',
  ],
  fleet: { aliases: {} },
  darkSites: [],
  vantages: [{ name: 'hq', darkTo: ['fv'] }],
  gpus: {},
  files: [],
  firstSteps: () => [
    ['probe fv --only power', 'from this console’s vantage: fv answers'],
    ['(hq) SEAT_VANTAGE=hq ip netns exec <hq namespace> seat probe fv --json --only power', 'from hq: fv unreachable; merged with this vantage’s report: "unreachable from hq only"'],
  ],
};
