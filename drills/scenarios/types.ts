// What a drill scenario is: one seed's incident as the drill fleet's stand-ins play it, the files the
// person will need (written into the drill's own folder), and what to type first.
import type { DrillScenario } from '../litellm.ts';

export interface ScenarioFile {
  /** Its name in the drill's folder. */
  name: string;
  /** What it is, for the briefing ("power log", "vLLM log of vllm-xpu-chat"). */
  what: string;
  /** Where it came from in the story, shown beside the path. */
  from: string;
  text: () => string;
}

export interface Scenario {
  id: string;
  /** "seed 002 · 2026-09-13" */
  seed: string;
  /** One line for `seat drill --list`. */
  summary: string;
  /** The site the incident is at: the console's default site. */
  site: string;
  /** A few lines of briefing: what the person walks into. */
  story: string[];
  /** The gateway and seat stand-ins' behaviour. */
  fleet: DrillScenario;
  /** Sites with every address dark: hosts, BMCs and firewall unreachable, UPS and seats gone. */
  darkSites: string[];
  /** Other vantage points the drill plays besides the console's own (issue 33): each a network namespace
   * where `darkTo`'s addresses have no route, for a `seat probe` run from inside it (SEAT_VANTAGE=name). */
  vantages?: { name: string; darkTo: string[] }[];
  /** Files of drills/gpus/ replaced for this scenario (what nvidia-smi / xpu-smi answer). */
  gpus: Record<string, string>;
  /** host → container → what `docker inspect --type container NAME` prints there; the others as the drill's docker stand-in has them. */
  containers?: Record<string, Record<string, string>>;
  files: ScenarioFile[];
  /** What to type first, in order: [command, why]. `path(name)` is where a scenario file lies. */
  firstSteps: (path: (name: string) => string) => [string, string][];
}
