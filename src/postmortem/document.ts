// One postmortem document for an incident, for both front ends: the journal is verified first (the
// document carries the chain's head hash, so it must be checkable), and the head printed is the
// hash of the last event the document shows — the bot may append between the read and the verify,
// so it reads again until both see the same last event.
import type { IncidentService } from '../incident/service.ts';
import type { Fleet } from '../inventory/fleet.ts';
import { renderPostmortem } from './index.ts';

export type ExportedDocument = { ok: true; doc: string; head: string } | { ok: false; code: 1 | 2; error: string };

export async function exportDocument(service: IncidentService, id: number, format: 'md' | 'html', now: Date, fleet?: Fleet): Promise<ExportedDocument> {
  let view = await service.view(id);
  if (!view) return { ok: false, code: 2, error: `no incident #${id}` };
  let head: string | undefined;
  for (let tries = 0; ; tries++) {
    const verified = await service.deps.store.verify(id);
    if (!verified.ok) {
      return { ok: false, code: 1, error: `the journal does not hold for incident #${verified.incident} at event ${verified.seq}: ${verified.why}; not exporting a postmortem that cannot be checked (seat journal verify ${id})` };
    }
    head = verified.heads.get(id);
    if (head === undefined || head === view.events.at(-1)?.hash || tries === 4) break;
    view = (await service.view(id))!;
  }
  if (!head) return { ok: false, code: 1, error: `incident #${id} has no events in the journal` };
  return { ok: true, doc: renderPostmortem(view, { format, head, now, ...(fleet ? { fleet } : {}) }), head };
}
