// What every listener shares: the fleet, the log, the seams (sleep, clock, probe deps, the probe
// runner) and the state of the running app (the probe queue, probes in flight by scope, messages
// being probed into, requests already seen).
import type { Logger } from '@slack/bolt';
import type { ProbeDeps, ProbeReport, ProbeRequest } from '../commands/probe.ts';
import type { IncidentService } from '../incident/service.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { slackErrorCode } from './errors.ts';
import type { FetchFile } from './evidence-file.ts';
import type { ProbeQueue } from './probe-queue.ts';
import type { ReplayGuard } from './replay.ts';
import type { SendQueue } from './send-queue.ts';
import type { ThreadMessages } from './thread-messages.ts';
import type { WebClient } from './web-client.ts';

/** The listeners take the client with the context; it is defined in web-client.ts. */
export type { WebClient };

/** Plans and runs one probe (commands/probe.ts `runProbe`); tests hold probes with a stand-in. */
export type RunProbe = (fleet: Fleet, req: ProbeRequest, deps?: ProbeDeps) => Promise<ProbeReport>;

/** A probe queued or running into a channel message: who asked, and whether it has started. */
export interface ProbeInFlight {
  askedBy: string;
  started: boolean;
}

export interface SeatContext {
  fleet: Fleet;
  log: Logger;
  probeDeps: ProbeDeps | undefined;
  runProbe: RunProbe;
  /** Every probe the bot runs goes through it: a bounded number at once, the rest in order. */
  probes: ProbeQueue;
  /** Channel probes queued or running, by channel and scope (probe-flow.ts `probeKey`): asked again, one is joined. */
  probing: Map<string, ProbeInFlight>;
  /** Milliseconds between progress updates of one message. */
  updateIntervalMs: number;
  /** Waits out Slack's Retry-After; tests inject one that returns at once. */
  sleep: (ms: number) => Promise<void>;
  replays: ReplayGuard;
  /** `channel:ts` of messages a probe is running into: a double click runs one. */
  busyMessages: Set<string>;
  /** Runs work after the ack; `idle()` waits for it. Its errors are logged with their code. */
  track(work: Promise<void>): void;
  /** Members of a Slack user group, cached for a minute. */
  groupMembers(client: WebClient, group: string): Promise<string[]>;
  /** Incidents and their journal: there once the app has started with a journal; else why not. */
  incidents: IncidentService | { missing: string };
  /** Posts and updates in one channel, in order, waiting out Slack's Retry-After. */
  send: SendQueue;
  /** Downloads a file uploaded to Slack with the bot token (evidence the bot measures). */
  fetchFile: FetchFile;
  /** Each incident's messages: its checklist, one per step, one per override request. */
  threads: ThreadMessages;
  /** The last report of each site in each channel (`channel site`): Start runbook journals it as the incident's first finding. */
  detected?: Map<string, ProbeReport>;
}

export function groupCache(log: Logger, now: () => number, ttlMs = 60_000): SeatContext['groupMembers'] {
  const cache = new Map<string, { at: number; members: string[] }>();
  return async (client, group) => {
    const hit = cache.get(group);
    if (hit && now() - hit.at < ttlMs) return hit.members;
    let members: string[];
    try {
      members = (await client.usergroups.users.list({ usergroup: group })).users ?? [];
    } catch (err) {
      log.warn(`usergroups.users.list ${group} failed: ${slackErrorCode(err)}`);
      throw err;
    }
    cache.set(group, { at: now(), members });
    return members;
  };
}
