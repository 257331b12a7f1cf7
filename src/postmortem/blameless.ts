// A blameless postmortem talks about what the system allowed, not who slipped. This flags the
// phrases that usually mean the opposite, in what people wrote (titles, notes, reasons), by event,
// so the authors can reword them before the review. It flags; it never rewrites what was recorded.
import type { IncidentView } from '../incident/engine.ts';
import type { Actor } from '../incident/types.ts';

export interface Flag {
  seq: number;
  by: Actor;
  /** Which text of the event: `title`, `note`, `reason` … */
  field: string;
  phrase: string;
  text: string;
}

const PHRASES = /\b(should\s+have|failed\s+to|human\s+error)\b/gi;

export const BLAMELESS_HINT: Record<string, string> = {
  'should have': 'say what would have made the better move the easy one (a check, a default, a runbook step)',
  'failed to': 'say what the system did not make visible or easy at that moment',
  'human error': 'name the condition that let a person’s action cause harm',
};

/** The texts people wrote in this incident, with the field each came from. */
export function writtenTexts(view: IncidentView): { seq: number; by: Actor; field: string; text: string }[] {
  const out: { seq: number; by: Actor; field: string; text: string }[] = [];
  for (const e of view.events) {
    if (e.actor.kind === 'probe' || e.actor.kind === 'system') continue;
    const p = e.payload;
    const add = (field: string, v: unknown): void => {
      if (typeof v === 'string' && v !== '') out.push({ seq: e.seq, by: e.actor, field, text: v });
    };
    switch (e.kind) {
      case 'incident.opened':
        add('title', p.title);
        break;
      case 'incident.closed':
      case 'step.skipped':
      case 'override.requested':
        add('reason', p.reason);
        break;
      case 'override.refused':
        add('why', p.why);
        break;
      case 'note':
      case 'correction':
        add(e.kind, p.text);
        break;
      case 'step.blocked':
        // A person's own block (`seat step block`) is their words; a guardrail's are the bot's.
        if (p.guardrail === 'person') add('reason', p.why);
        break;
      default:
        break;
    }
  }
  return out;
}

export function blamelessFlags(view: IncidentView): Flag[] {
  const flags: Flag[] = [];
  for (const t of writtenTexts(view)) {
    for (const m of t.text.matchAll(PHRASES)) {
      flags.push({ seq: t.seq, by: t.by, field: t.field, phrase: (m[1] ?? m[0]).toLowerCase().replace(/\s+/g, ' '), text: t.text });
    }
  }
  return flags;
}
