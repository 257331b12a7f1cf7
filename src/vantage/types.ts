// What a report says of the other vantages it asked (vantage/ask.ts): a file of its own, so the
// report's type (commands/probe.ts) names it without importing the asking code.

/** What became of one other vantage asked. */
export interface AskedVantage {
  vantage: string;
  /** The replicas at that vantage that were asked (by heartbeat), and the one whose answer counts. */
  replicas: string[];
  answeredBy?: string;
  /** `answered`: its findings are in the report; the rest are not. */
  outcome: 'answered' | 'no_answer' | 'unfinished' | 'failed' | 'refused';
  why?: string;
  /** From the request to its last row, ms. */
  ms?: number;
  /** What its own probe took, as it says (answered only). */
  probeMs?: number;
  findings: number;
}
