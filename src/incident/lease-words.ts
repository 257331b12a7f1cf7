// What a person is told about a probe step's lease: a run in progress (here or on another replica),
// or a run that a replica left unfinished and that ran again. Times as given; front ends format.
import type { Lease } from '../journal/store.ts';
import { actorName } from './service.ts';

export function runningWords(l: Lease, when: (iso: string) => string = (iso) => iso): string {
  return `the probe of step ${l.step} is already running: ${actorName(l.by)} pressed Done ${when(l.at)} on replica ${l.replica} (its lease holds until ${when(l.until)}); nothing was recorded for you`;
}

export function retookWords(l: Lease, when: (iso: string) => string = (iso) => iso): string {
  return `the probe of step ${l.step} that ${actorName(l.by)} started ${when(l.at)} on replica ${l.replica} did not finish (its lease ran out ${when(l.until)}): it ran again`;
}
