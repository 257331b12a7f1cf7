// Where a probe report is finished in the bot: every run of RunProbe tells `onReport` of its report,
// after it resolves (a listener's failure never fails the probe).
import type { ProbeDeps, ProbeReport, ProbeRequest } from '../commands/probe.ts';
import type { Fleet } from '../inventory/fleet.ts';

type Run = (fleet: Fleet, req: ProbeRequest, deps?: ProbeDeps) => Promise<ProbeReport>;

export function observeReports<R extends Run>(run: R, onReport: ((report: ProbeReport) => void) | undefined): R {
  if (!onReport) return run;
  const observed = async (fleet: Fleet, req: ProbeRequest, deps?: ProbeDeps): Promise<ProbeReport> => {
    const report = await run(fleet, req, deps);
    try {
      onReport(report);
    } catch {
      // The metrics are a view: the report goes on to the channel whatever became of them.
    }
    return report;
  };
  return observed as R;
}
